// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's configuration; see config.h. This file is the schema (the
 * table of keys), the walk over the document and the checks of the whole;
 * the value parsers and the helpers that read the document are in
 * config_parse.c, the two structured keys in config_finders.c and
 * config_policies.c.
 *
 * libyaml's document loader gives the tree with line numbers; a table of
 * known keys (full dotted paths) says how each value is parsed and where it
 * goes. Sections are walked recursively, so a key under the wrong parent is
 * reported as unknown with its path and line rather than silently used.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <yaml.h>

#include "agent/log.h"
#include "agent/template.h"
#include "agent/config.h"
#include "agent/config_internal.h"
#include "agent/config_parse.h"
#include "lib/duration.h"
#include "lib/json.h"
#include "lib/net_addr.h"

#define DEFAULT_SPOOL "/var/lib/skyprof/spool"

void config_defaults(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	/* rover 0.5's defaults, from its shipped rover_configs.yaml */
	c->log_level = LOG_LVL_INFO;
	c->backend.check_period_ms = 5000;
	c->heartbeat_period_ms = 20000;
	c->properties_report_period = 10;
	c->scan_period_ms = 1000;
	c->profiling_active = true;
	c->check_interval_ms = 10000;
	c->flush_interval_ms = 5000;
	c->oncpu_dump_period_ms = 9;
	c->continuous.fetch_interval_ms = 1000;
	c->continuous.check_interval_ms = 5000;
	c->continuous.execute_duration_ms = 600000;
	c->continuous.silence_duration_ms = 1200000;
	/* ours */
	c->skyprof.queue_bytes = 64ull << 20;
	c->skyprof.connect_timeout_ms = 5000;
	c->skyprof.call_timeout_ms = 10000;
	c->skyprof.backoff_max_ms = 60000;
	c->skyprof.schedule_duration_ms = 60000;
	c->skyprof.schedule_interval_ms = 600000;
	c->skyprof.jvm_attach = true;
}

static void finder_free(struct agent_finder *f)
{
	free(f->match_cmd);
	if (f->re_ok)
		regfree(&f->re);
	free(f->layer);
	free(f->service_name);
	free(f->instance_name);
	free(f->process_name);
	for (size_t i = 0; i < f->nr_labels; i++)
		free(f->labels[i]);
	free(f->labels);
	memset(f, 0, sizeof(*f));
}

void config_free(struct agent_config *c)
{
	free(c->cluster_name);
	free(c->backend.addr);
	free(c->backend.client_pem_path);
	free(c->backend.client_key_path);
	free(c->backend.ca_pem_path);
	free(c->backend.authentication);
	free(c->scan_mode);
	for (size_t i = 0; i < c->nr_finders; i++)
		finder_free(&c->finders[i]);
	free(c->finders);
	free(c->continuous.meter_prefix);
	json_free(c->continuous.policies);
	free(c->continuous.policies_error);
	free(c->skyprof.spool_dir);
	memset(c, 0, sizeof(*c));
}

uint32_t config_oncpu_freq(const struct agent_config *c)
{
	uint64_t p = c->oncpu_dump_period_ms ? c->oncpu_dump_period_ms : 9;

	if (c->skyprof.frequency)
		return c->skyprof.frequency;
	return (uint32_t)((1000 + p / 2) / p);
}

/* Value parsers --------------------------------------------------------------- */

int config_parse_duration_ns(const char *s, uint64_t *ns)
{
	double t;
	bool bare;

	/* A bare number is seconds, as rover's check_period. */
	if (duration_parse(s, DURATION_GO, &t, &bare))
		return -EINVAL;
	if (bare) {
		if (t > 1e18)
			return -EINVAL;
		*ns = (uint64_t)(t + 0.5);
		return 0;
	}
	if (t > 1e9 * 86400 * 3650)
		return -EINVAL;
	*ns = (uint64_t)t;
	return 0;
}

int config_parse_duration_ms(const char *s, uint64_t *ms)
{
	uint64_t ns;
	int r = config_parse_duration_ns(s, &ns);

	/* Round up: a sub-millisecond period is not zero. */
	if (!r)
		*ms = (ns + 999999) / 1000000;
	return r;
}

/* The schema -------------------------------------------------------------------- */

enum ktype {
	K_SECTION, /* a mapping of further keys */
	K_IGNORED, /* a rover key or section skyprof has no use for: noted, skipped */
	K_STR,
	K_TMPL, /* a string that must be a valid name template */
	K_BOOL,
	K_DUR,	  /* milliseconds */
	K_DUR_NS, /* nanoseconds, given as a duration */
	K_U32,
	K_SIZE,
	K_LEVEL,
	K_MODE,
	K_TARGET,
	K_FINDERS,
	K_POLICIES, /* a YAML subtree read as the JSON reader's value */
};

struct key {
	const char *path;
	enum ktype type;
	size_t off;
	uint64_t min, max;
};

#define O(f) offsetof(struct agent_config, f)
static const struct key keys[] = {
	{ "logger", K_SECTION },
	{ "logger.level", K_LEVEL, O(log_level) },
	{ "core", K_SECTION },
	{ "core.cluster_name", K_STR, O(cluster_name) },
	{ "core.backend", K_SECTION },
	{ "core.backend.addr", K_STR, O(backend.addr) },
	{ "core.backend.enable_TLS", K_BOOL, O(backend.enable_tls) },
	{ "core.backend.client_pem_path", K_STR, O(backend.client_pem_path) },
	{ "core.backend.client_key_path", K_STR, O(backend.client_key_path) },
	{ "core.backend.insecure_skip_verify", K_BOOL, O(backend.insecure_skip_verify) },
	{ "core.backend.ca_pem_path", K_STR, O(backend.ca_pem_path) },
	{ "core.backend.check_period", K_DUR, O(backend.check_period_ms), 100, 3600000 },
	{ "core.backend.authentication", K_STR, O(backend.authentication) },
	{ "process_discovery", K_SECTION },
	{ "process_discovery.heartbeat_period", K_DUR, O(heartbeat_period_ms), 1000, 290000 },
	{ "process_discovery.properties_report_period", K_U32, O(properties_report_period), 1,
	  1000000 },
	{ "process_discovery.scanner", K_SECTION },
	{ "process_discovery.scanner.period", K_DUR, O(scan_period_ms), 100, 3600000 },
	{ "process_discovery.scanner.mode", K_MODE, O(scan_mode) },
	{ "process_discovery.scanner.regex", K_FINDERS },
	{ "process_discovery.scanner.agent", K_IGNORED },
	{ "process_discovery.kubernetes", K_IGNORED },
	{ "process_discovery.analyze_period", K_IGNORED },
	{ "profiling", K_SECTION },
	{ "profiling.active", K_BOOL, O(profiling_active) },
	{ "profiling.check_interval", K_DUR, O(check_interval_ms), 1000, 3600000 },
	{ "profiling.flush_interval", K_DUR, O(flush_interval_ms), 500, 600000 },
	{ "profiling.task", K_SECTION },
	{ "profiling.task.on_cpu", K_SECTION },
	{ "profiling.task.on_cpu.dump_period", K_DUR, O(oncpu_dump_period_ms), 1, 1000 },
	{ "profiling.task.network", K_IGNORED },
	{ "profiling.continuous", K_SECTION },
	{ "profiling.continuous.meter_prefix", K_STR, O(continuous.meter_prefix) },
	{ "profiling.continuous.fetch_interval", K_DUR, O(continuous.fetch_interval_ms), 100,
	  60000 },
	{ "profiling.continuous.check_interval", K_DUR, O(continuous.check_interval_ms), 100,
	  600000 },
	{ "profiling.continuous.trigger", K_SECTION },
	{ "profiling.continuous.trigger.execute_duration", K_DUR, O(continuous.execute_duration_ms),
	  1000, 86400000 },
	{ "profiling.continuous.trigger.silence_duration", K_DUR, O(continuous.silence_duration_ms),
	  0, 86400000 },
	{ "access_log", K_IGNORED },
	{ "skyprof", K_SECTION },
	{ "skyprof.frequency", K_U32, O(skyprof.frequency), 1, 100000 },
	{ "skyprof.dwarf_bytes", K_U32, O(skyprof.dwarf_bytes), 0, 65528 },
	{ "skyprof.max_depth", K_U32, O(skyprof.max_depth), 0, 1024 },
	{ "skyprof.ring_pages", K_U32, O(skyprof.ring_pages), 0, 1 << 20 },
	{ "skyprof.offcpu_min_block", K_DUR_NS, O(skyprof.offcpu_min_block_ns) },
	{ "skyprof.jvm_attach", K_BOOL, O(skyprof.jvm_attach) },
	{ "skyprof.spool_dir", K_STR, O(skyprof.spool_dir) },
	{ "skyprof.queue_size", K_SIZE, O(skyprof.queue_bytes), 64 << 10, 1ull << 40 },
	{ "skyprof.connect_timeout", K_DUR, O(skyprof.connect_timeout_ms), 100, 600000 },
	{ "skyprof.call_timeout", K_DUR, O(skyprof.call_timeout_ms), 100, 600000 },
	{ "skyprof.backoff_max", K_DUR, O(skyprof.backoff_max_ms), 100, 3600000 },
	{ "skyprof.continuous", K_SECTION },
	{ "skyprof.continuous.policies", K_POLICIES },
	{ "skyprof.schedule", K_SECTION },
	{ "skyprof.schedule.target", K_TARGET, O(skyprof.schedule_target) },
	{ "skyprof.schedule.duration", K_DUR, O(skyprof.schedule_duration_ms), 1000, 86400000 },
	{ "skyprof.schedule.interval", K_DUR, O(skyprof.schedule_interval_ms), 1000, 604800000 },
};
#undef O

static const struct key *find_key(const char *path)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].path, path))
			return &keys[i];
	return NULL;
}

/* A duration key's value: ns (K_DUR_NS) or ms within the key's range. */
static int parse_duration_value(struct config_ctx *x, const struct key *k, yaml_node_t *n,
				const char *v, void *dst)
{
	uint64_t ns, ms;

	if (config_parse_duration_ns(v, &ns))
		return config_parse_fail(x, n, k->path,
					 "'%s' is not a duration (e.g. 20s, 1m, 9ms)", v);
	if (k->type == K_DUR_NS) {
		*(uint64_t *)dst = ns;
		return 0;
	}
	ms = (ns + 999999) / 1000000;
	if ((k->min && ms < k->min) || (k->max && ms > k->max))
		return config_parse_fail(x, n, k->path, "'%s' is out of range (%llu ms to %llu ms)",
					 v, (unsigned long long)k->min, (unsigned long long)k->max);
	*(uint64_t *)dst = ms;
	return 0;
}

static int parse_value(struct config_ctx *x, const struct key *k, yaml_node_t *n)
{
	void *dst = (char *)x->c + k->off;
	char *v = NULL;
	int r;

	r = config_parse_scalar(x, n, k->path, &v);
	if (r)
		return r;
	switch (k->type) {
	case K_STR:
	case K_TMPL:
		config_parse_set_str(dst, v);
		return 0;
	case K_MODE:
		if (strcasecmp(v, "REGEX")) {
			r = config_parse_fail(
				x, n, k->path,
				"'%s' is not supported: skyprof finds host processes by REGEX "
				"(AGENT_SENSOR metadata files are not read)",
				v);
			free(v);
			return r;
		}
		config_parse_set_str(dst, v);
		return 0;
	case K_BOOL:
		r = config_parse_bool(v, dst);
		if (r)
			r = config_parse_fail(x, n, k->path, "'%s' is not true or false", v);
		break;
	case K_DUR:
	case K_DUR_NS:
		r = parse_duration_value(x, k, n, v, dst);
		break;
	case K_U32: {
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end || errno || u < k->min || u > k->max)
			r = config_parse_fail(
				x, n, k->path, "'%s' is not an integer from %llu to %llu", v,
				(unsigned long long)k->min, (unsigned long long)k->max);
		else
			*(uint32_t *)dst = (uint32_t)u;
		break;
	}
	case K_SIZE: {
		uint64_t b;

		if (config_parse_size(v, &b) || b < k->min || b > k->max)
			r = config_parse_fail(x, n, k->path,
					      "'%s' is not a size from 64KiB (e.g. 64MiB)", v);
		else
			*(uint64_t *)dst = b;
		break;
	}
	case K_LEVEL: {
		int l = log_level_parse(v);

		if (l < 0)
			r = config_parse_fail(x, n, k->path,
					      "'%s' is not one of error, warn, info, debug", v);
		else
			*(int *)dst = l;
		break;
	}
	case K_TARGET:
		if (!strcasecmp(v, "ON_CPU"))
			*(int *)dst = AGENT_TARGET_ON_CPU;
		else if (!strcasecmp(v, "OFF_CPU"))
			*(int *)dst = AGENT_TARGET_OFF_CPU;
		else if (!strcasecmp(v, "NONE") || !*v)
			*(int *)dst = AGENT_TARGET_NONE;
		else
			r = config_parse_fail(x, n, k->path, "'%s' is not ON_CPU, OFF_CPU or NONE",
					      v);
		break;
	default:
		break;
	}
	free(v);
	return r;
}

static int walk_mapping(struct config_ctx *x, yaml_node_t *n, const char *prefix)
{
	char path[256];
	int r;

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0; /* "section:" with nothing under it */
	if (n->type != YAML_MAPPING_NODE)
		return config_parse_fail(x, n, *prefix ? prefix : "(top)",
					 "expected a mapping of keys");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const struct key *key;

		if (k->type != YAML_SCALAR_NODE)
			return config_parse_fail(x, k, prefix, "a key must be a plain name");
		config_parse_join(path, sizeof(path), prefix, *prefix ? "." : "",
				  (const char *)k->data.scalar.value);
		key = find_key(path);
		if (!key) {
			log_warn("config: unknown key %s (line %zu) ignored", path,
				 k->start_mark.line + 1);
			x->c->nr_warnings++;
			continue;
		}
		switch (key->type) {
		case K_SECTION:
			r = walk_mapping(x, v, path);
			break;
		case K_IGNORED:
			log_info("config: %s (line %zu) is a rover setting skyprof does not use",
				 path, k->start_mark.line + 1);
			r = 0;
			break;
		case K_FINDERS:
			r = config_finders_parse(x, v, path);
			break;
		case K_POLICIES:
			r = config_policies_parse(x, v, path);
			break;
		default:
			r = parse_value(x, key, v);
			break;
		}
		if (r)
			return r;
	}
	return 0;
}

static int check(struct agent_config *c, char *err, size_t errlen)
{
	if (c->backend.enable_tls && c->backend.insecure_skip_verify && c->backend.ca_pem_path)
		log_info("config: core.backend.insecure_skip_verify is set: ca_pem_path is not "
			 "used");
	if (!c->scan_mode && c->nr_finders) {
		/* rover's default mode is AGENT_SENSOR; finders only mean something with REGEX */
		log_info("config: process_discovery.scanner.mode not set: using REGEX");
	}
	if (!c->scan_mode && !(c->scan_mode = strdup("REGEX")))
		return -ENOMEM;
	if (!c->continuous.meter_prefix && !(c->continuous.meter_prefix = strdup("rover_con_p")))
		return -ENOMEM;
	if (!c->skyprof.spool_dir && !(c->skyprof.spool_dir = strdup(DEFAULT_SPOOL)))
		return -ENOMEM;
	if (c->backend.addr) {
		char host[NET_ADDR_HOST_MAX], port[NET_ADDR_PORT_MAX], why[160];

		/* rover's default port is the OAP's gRPC one */
		if (net_addr_split(c->backend.addr, "11800", host, port, why, sizeof(why))) {
			snprintf(err, errlen, "core.backend.addr: %s", why);
			return -EINVAL;
		}
	}
	if (c->skyprof.schedule_target != AGENT_TARGET_NONE &&
	    c->skyprof.schedule_duration_ms >= c->skyprof.schedule_interval_ms) {
		snprintf(err, errlen,
			 "skyprof.schedule.duration: must be shorter than "
			 "skyprof.schedule.interval");
		return -EINVAL;
	}
	return 0;
}

/*
 * libyaml's problem alone misleads: an unclosed quote on line 3 is "found
 * unexpected end of stream" at the last line. Its context says what it was
 * reading and where that began.
 */
static void yaml_error(const yaml_parser_t *p, char *err, size_t errlen)
{
	const char *problem = p->problem ? p->problem : "?";

	if (p->error == YAML_READER_ERROR) {
		/* the bytes themselves: no line yet, an offset */
		if (p->problem_value >= 0)
			snprintf(err, errlen, "YAML error at byte %zu: %s (0x%x)",
				 p->problem_offset, problem, (unsigned int)p->problem_value);
		else
			snprintf(err, errlen, "YAML error at byte %zu: %s", p->problem_offset,
				 problem);
		return;
	}
	if (p->context)
		snprintf(err, errlen, "YAML syntax error at line %zu:%zu: %s, %s at line %zu:%zu",
			 p->problem_mark.line + 1, p->problem_mark.column + 1, problem, p->context,
			 p->context_mark.line + 1, p->context_mark.column + 1);
	else
		snprintf(err, errlen, "YAML syntax error at line %zu:%zu: %s",
			 p->problem_mark.line + 1, p->problem_mark.column + 1, problem);
}

int config_load_string(struct agent_config *c, const char *yaml, size_t len, char *err,
		       size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct config_ctx x = { .doc = &doc, .c = c, .err = err, .errlen = errlen };
	int r = 0;

	config_defaults(c);
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_error(&parser, err, errlen);
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root)
		r = walk_mapping(&x, root, "");
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (!r)
		r = check(c, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return r;
}

int config_load_file(struct agent_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r;

	struct stat st;

	if (!f) {
		r = -errno;
		config_defaults(c);
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(-r));
		return r;
	}
	/* fopen opens a directory, which then reads as an empty config */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		config_defaults(c);
		snprintf(err, errlen, "%s is a directory, not a config file", path);
		return -EISDIR;
	}
	for (;;) {
		size_t n;

		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 8192));

			if (!nb) {
				free(buf);
				fclose(f);
				config_defaults(c);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			buf = nb;
		}
		errno = 0;
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0 && ferror(f)) {
			r = errno ? -errno : -EIO;
			free(buf);
			fclose(f);
			config_defaults(c);
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(-r));
			return r;
		}
		if (n == 0)
			break;
		if (len > (16u << 20)) {
			free(buf);
			fclose(f);
			config_defaults(c);
			snprintf(err, errlen, "%s: larger than 16 MiB, not a config file", path);
			return -EFBIG;
		}
	}
	fclose(f);
	r = config_load_string(c, buf ? buf : "", len, err, errlen);
	free(buf);
	return r;
}
