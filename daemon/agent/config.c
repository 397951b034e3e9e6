// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's configuration; see config_agent.h.
 *
 * libyaml's document loader gives the tree with line numbers; a table of
 * known keys (full dotted paths) says how each value is parsed and where it
 * goes. Sections are walked recursively, so a key under the wrong parent is
 * reported as unknown with its path and line rather than silently used.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
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
#include "lib/duration.h"
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
	free(c->continuous.policies_json);
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

int config_subst_env(const char *in, char **out)
{
	size_t cap = strlen(in) + 1, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
#define APPEND(p, n)                                                                               \
	do {                                                                                       \
		size_t n_ = (n);                                                                   \
		if (len + n_ + 1 > cap) {                                                          \
			char *nb;                                                                  \
			cap = (len + n_ + 1) * 2;                                                  \
			nb = realloc(buf, cap);                                                    \
			if (!nb) {                                                                 \
				free(buf);                                                         \
				return -ENOMEM;                                                    \
			}                                                                          \
			buf = nb;                                                                  \
		}                                                                                  \
		memcpy(buf + len, (p), n_);                                                        \
		len += n_;                                                                         \
	} while (0)
	while (*in) {
		const char *start = strstr(in, "${"), *name, *colon = NULL, *end;
		int depth = 0;

		if (!start) {
			APPEND(in, strlen(in));
			break;
		}
		APPEND(in, (size_t)(start - in));
		name = start + 2;
		/* The default may itself hold braces ({{.Rover.HostIPV4 "en0"}}):
		 * the reference ends at the '}' that balances its '{'. */
		for (end = name; *end; end++) {
			if (*end == ':' && !colon && !depth)
				colon = end;
			else if (*end == '{')
				depth++;
			else if (*end == '}' && depth-- == 0)
				break;
		}
		if (!*end) {
			free(buf);
			return -EINVAL;
		}
		{
			size_t nl = (size_t)((colon ? colon : end) - name);
			char var[256];
			const char *val;

			if (!nl || nl >= sizeof(var)) {
				free(buf);
				return -EINVAL;
			}
			memcpy(var, name, nl);
			var[nl] = 0;
			for (size_t i = 0; i < nl; i++)
				if (!(isalnum((unsigned char)var[i]) || var[i] == '_')) {
					free(buf);
					return -EINVAL;
				}
			val = getenv(var);
			if (val && *val) {
				APPEND(val, strlen(val));
			} else if (colon) {
				const char *d = colon + 1;
				size_t dl = (size_t)(end - d);

				if (dl >= 2 && d[0] == '"' && d[dl - 1] == '"') {
					d++;
					dl -= 2;
				}
				APPEND(d, dl);
			}
		}
		in = end + 1;
	}
#undef APPEND
	buf[len] = 0;
	*out = buf;
	return 0;
}

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

int config_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1 << 10 },
		{ "kb", 1000 },
		{ "kib", 1 << 10 },
		{ "m", 1 << 20 },
		{ "mb", 1000000 },
		{ "mib", 1 << 20 },
		{ "g", 1ull << 30 },
		{ "gb", 1000000000 },
		{ "gib", 1ull << 30 },
	};
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -EINVAL;
		*bytes = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int config_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
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
	K_POLICIES, /* a YAML subtree kept as JSON text */
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

struct ctx {
	yaml_document_t *doc;
	struct agent_config *c;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *x, yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct ctx *x, yaml_node_t *n, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s (line %zu): %s", path, n ? n->start_mark.line + 1 : 0, msg);
	return -EINVAL;
}

/* A dotted key path; a path too long for the buffer is cut (it is only
 * ever printed or compared against the table's short ones). */
static void join(char *out, size_t outlen, const char *a, const char *sep, const char *b)
{
	if (snprintf(out, outlen, "%s%s%s", a, sep, b) >= (int)outlen)
		out[outlen - 1] = 0;
}

static const struct key *find_key(const char *path)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].path, path))
			return &keys[i];
	return NULL;
}

/* The scalar's text after ${ENV:default} substitution, malloc'ed. */
static int scalar_value(struct ctx *x, yaml_node_t *n, const char *path, char **out)
{
	char *raw;
	int r;

	if (n->type != YAML_SCALAR_NODE)
		return fail(x, n, path, "expected a single value");
	raw = strndup((const char *)n->data.scalar.value, n->data.scalar.length);
	if (!raw)
		return -ENOMEM;
	r = config_subst_env(raw, out);
	free(raw);
	if (r == -EINVAL)
		return fail(x, n, path, "unterminated or malformed ${ENV:default}");
	return r;
}

static void set_str(char **dst, char *v)
{
	free(*dst);
	/* An empty value means unset, as rover's `${X:}` defaults. */
	if (v && !*v) {
		free(v);
		v = NULL;
	}
	*dst = v;
}

static int parse_labels(struct ctx *x, yaml_node_t *n, const char *path, struct agent_finder *f)
{
	char *v = NULL;
	int r;

	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			char **nl;

			r = scalar_value(x, yaml_document_get_node(x->doc, *it), path, &v);
			if (r)
				return r;
			nl = realloc(f->labels, (f->nr_labels + 1) * sizeof(*nl));
			if (!nl) {
				free(v);
				return -ENOMEM;
			}
			f->labels = nl;
			f->labels[f->nr_labels++] = v;
		}
		return 0;
	}
	/* rover: one string, comma-separated */
	r = scalar_value(x, n, path, &v);
	if (r)
		return r;
	for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char **nl;

		while (isspace((unsigned char)*tok))
			tok++;
		for (char *e = tok + strlen(tok); e > tok && isspace((unsigned char)e[-1]);)
			*--e = 0;
		if (!*tok)
			continue;
		nl = realloc(f->labels, (f->nr_labels + 1) * sizeof(*nl));
		if (!nl || !(nl[f->nr_labels] = strdup(tok))) {
			if (nl)
				f->labels = nl;
			free(v);
			return -ENOMEM;
		}
		f->labels = nl;
		f->nr_labels++;
	}
	free(v);
	return 0;
}

static int parse_finder(struct ctx *x, yaml_node_t *n, const char *base, struct agent_finder *f)
{
	static const char *const tmpl_keys[] = { "layer", "service_name", "instance_name",
						 "process_name" };
	char path[256];
	int r;

	if (n->type != YAML_MAPPING_NODE)
		return fail(x, n, base,
			    "expected a mapping of match_cmd, layer, service_name, "
			    "instance_name, process_name, labels");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *name =
			k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?";
		char **dst = NULL;

		join(path, sizeof(path), base, ".", name);
		if (!strcmp(name, "labels")) {
			r = parse_labels(x, v, path, f);
			if (r)
				return r;
			continue;
		}
		if (!strcmp(name, "match_cmd"))
			dst = &f->match_cmd;
		else if (!strcmp(name, "layer"))
			dst = &f->layer;
		else if (!strcmp(name, "service_name"))
			dst = &f->service_name;
		else if (!strcmp(name, "instance_name"))
			dst = &f->instance_name;
		else if (!strcmp(name, "process_name"))
			dst = &f->process_name;
		if (!dst) {
			log_warn("config: unknown key %s (line %zu) ignored", path,
				 k->start_mark.line + 1);
			x->c->nr_warnings++;
			continue;
		}
		{
			char *val;

			r = scalar_value(x, v, path, &val);
			if (r)
				return r;
			set_str(dst, val);
		}
	}
	/* rover's defaults for an item */
	if (!f->layer && !(f->layer = strdup("OS_LINUX")))
		return -ENOMEM;
	if (!f->instance_name && !(f->instance_name = strdup("{{.Rover.HostIPV4 \"en0\"}}")))
		return -ENOMEM;
	if (!f->process_name && !(f->process_name = strdup("{{.Process.ExeName}}")))
		return -ENOMEM;
	if (!f->match_cmd) {
		join(path, sizeof(path), base, ".", "match_cmd");
		return fail(x, n, path, "missing or empty: a finder needs a command-line regex");
	}
	if (!f->service_name) {
		join(path, sizeof(path), base, ".", "service_name");
		return fail(x, n, path, "missing or empty: a finder needs a service name");
	}
	r = regcomp(&f->re, f->match_cmd, REG_EXTENDED | REG_NOSUB);
	if (r) {
		char msg[256];

		regerror(r, &f->re, msg, sizeof(msg));
		join(path, sizeof(path), base, ".", "match_cmd");
		return fail(x, n, path, "bad regex '%s': %s", f->match_cmd, msg);
	}
	f->re_ok = true;
	for (size_t i = 0; i < 4; i++) {
		const char *t = i == 0	 ? f->layer
				: i == 1 ? f->service_name
				: i == 2 ? f->instance_name
					 : f->process_name;
		char msg[256];

		if (tmpl_check(t, msg, sizeof(msg))) {
			join(path, sizeof(path), base, ".", tmpl_keys[i]);
			return fail(x, n, path, "%s", msg);
		}
	}
	return 0;
}

static int parse_finders(struct ctx *x, yaml_node_t *n, const char *path)
{
	struct agent_config *c = x->c;
	char base[256];
	size_t i = 0;

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(x, n, path, "expected a list of finders");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++, i++) {
		struct agent_finder *nf = realloc(c->finders, (c->nr_finders + 1) * sizeof(*nf));
		int r;

		if (!nf)
			return -ENOMEM;
		c->finders = nf;
		memset(&nf[c->nr_finders], 0, sizeof(*nf));
		c->nr_finders++;
		if (snprintf(base, sizeof(base), "%s[%zu]", path, i) >= (int)sizeof(base))
			base[sizeof(base) - 1] = 0;
		r = parse_finder(x, yaml_document_get_node(x->doc, *it), base,
				 &nf[c->nr_finders - 1]);
		if (r)
			return r;
	}
	return 0;
}

/*
 * The local continuous policies are written in YAML with the OAP's
 * ServiceWithPolicyJSON shape; they are turned into that JSON so that one
 * parser and one set of checks serve both. Plain scalars that read as
 * numbers become numbers, everything else a string.
 */
struct jbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void jput(struct jbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *ns = realloc(b->s, cap);

		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void jstr(struct jbuf *b, const char *s, size_t n)
{
	jput(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jput(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			jput(b, esc, 6);
		} else {
			jput(b, (const char *)&c, 1);
		}
	}
	jput(b, "\"", 1);
}

static int yaml_to_json(struct ctx *x, yaml_node_t *n, struct jbuf *b, int depth)
{
	if (!n || depth > 16)
		return -EINVAL;
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)n->data.scalar.value;
		size_t len = n->data.scalar.length;
		char *end;

		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && len &&
		    (strtod(v, &end), end == v + len) && strspn(v, "+-0123456789.eE") == len)
			jput(b, v, len);
		else
			jstr(b, v, len);
		return 0;
	}
	case YAML_SEQUENCE_NODE:
		jput(b, "[", 1);
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			if (it != n->data.sequence.items.start)
				jput(b, ",", 1);
			if (yaml_to_json(x, yaml_document_get_node(x->doc, *it), b, depth + 1))
				return -EINVAL;
		}
		jput(b, "]", 1);
		return 0;
	case YAML_MAPPING_NODE:
		jput(b, "{", 1);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(x->doc, p->key);

			if (!k || k->type != YAML_SCALAR_NODE)
				return -EINVAL;
			if (p != n->data.mapping.pairs.start)
				jput(b, ",", 1);
			jstr(b, (const char *)k->data.scalar.value, k->data.scalar.length);
			jput(b, ":", 1);
			if (yaml_to_json(x, yaml_document_get_node(x->doc, p->value), b, depth + 1))
				return -EINVAL;
		}
		jput(b, "}", 1);
		return 0;
	default:
		return -EINVAL;
	}
}

static int parse_policies(struct ctx *x, yaml_node_t *n, const char *path)
{
	struct jbuf b = { 0 };

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(x, n, path, "expected a list of service policies");
	if (yaml_to_json(x, n, &b, 0) || b.oom) {
		free(b.s);
		return b.oom ? -ENOMEM : fail(x, n, path, "keys must be plain names");
	}
	free(x->c->continuous.policies_json);
	x->c->continuous.policies_json = b.s;
	return 0;
}

static int parse_value(struct ctx *x, const struct key *k, yaml_node_t *n)
{
	void *dst = (char *)x->c + k->off;
	char *v = NULL;
	int r;

	r = scalar_value(x, n, k->path, &v);
	if (r)
		return r;
	switch (k->type) {
	case K_STR:
	case K_TMPL:
		set_str(dst, v);
		return 0;
	case K_MODE:
		if (strcasecmp(v, "REGEX")) {
			r = fail(x, n, k->path,
				 "'%s' is not supported: skyprof finds host processes by REGEX "
				 "(AGENT_SENSOR metadata files are not read)",
				 v);
			free(v);
			return r;
		}
		set_str(dst, v);
		return 0;
	case K_BOOL:
		r = config_parse_bool(v, dst);
		if (r)
			r = fail(x, n, k->path, "'%s' is not true or false", v);
		break;
	case K_DUR:
	case K_DUR_NS: {
		uint64_t ns, ms;

		r = config_parse_duration_ns(v, &ns);
		if (r) {
			r = fail(x, n, k->path, "'%s' is not a duration (e.g. 20s, 1m, 9ms)", v);
			break;
		}
		if (k->type == K_DUR_NS) {
			*(uint64_t *)dst = ns;
			break;
		}
		ms = (ns + 999999) / 1000000;
		if ((k->min && ms < k->min) || (k->max && ms > k->max)) {
			r = fail(x, n, k->path, "'%s' is out of range (%llu ms to %llu ms)", v,
				 (unsigned long long)k->min, (unsigned long long)k->max);
			break;
		}
		*(uint64_t *)dst = ms;
		break;
	}
	case K_U32: {
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end || errno || u < k->min || u > k->max)
			r = fail(x, n, k->path, "'%s' is not an integer from %llu to %llu", v,
				 (unsigned long long)k->min, (unsigned long long)k->max);
		else
			*(uint32_t *)dst = (uint32_t)u;
		break;
	}
	case K_SIZE: {
		uint64_t b;

		if (config_parse_size(v, &b) || b < k->min || b > k->max)
			r = fail(x, n, k->path, "'%s' is not a size from 64KiB (e.g. 64MiB)", v);
		else
			*(uint64_t *)dst = b;
		break;
	}
	case K_LEVEL: {
		int l = log_level_parse(v);

		if (l < 0)
			r = fail(x, n, k->path, "'%s' is not one of error, warn, info, debug", v);
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
			r = fail(x, n, k->path, "'%s' is not ON_CPU, OFF_CPU or NONE", v);
		break;
	default:
		break;
	}
	free(v);
	return r;
}

static int walk_mapping(struct ctx *x, yaml_node_t *n, const char *prefix)
{
	char path[256];
	int r;

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0; /* "section:" with nothing under it */
	if (n->type != YAML_MAPPING_NODE)
		return fail(x, n, *prefix ? prefix : "(top)", "expected a mapping of keys");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const struct key *key;

		if (k->type != YAML_SCALAR_NODE)
			return fail(x, k, prefix, "a key must be a plain name");
		join(path, sizeof(path), prefix, *prefix ? "." : "",
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
			r = parse_finders(x, v, path);
			break;
		case K_POLICIES:
			r = parse_policies(x, v, path);
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
	struct ctx x = { .doc = &doc, .c = c, .err = err, .errlen = errlen };
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
