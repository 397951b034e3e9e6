// SPDX-License-Identifier: GPL-2.0
/*
 * process_discovery.scanner.regex: the finders, each a command-line regex
 * and the name templates of what it finds; see config_internal.h.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "agent/config.h"
#include "agent/config_internal.h"
#include "agent/config_parse.h"
#include "agent/log.h"
#include "agent/template.h"

static int parse_labels(struct config_ctx *x, yaml_node_t *n, const char *path,
			struct agent_finder *f)
{
	char *v = NULL;
	int r;

	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			char **nl;

			r = config_parse_scalar(x, yaml_document_get_node(x->doc, *it), path, &v);
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
	r = config_parse_scalar(x, n, path, &v);
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

static int parse_finder(struct config_ctx *x, yaml_node_t *n, const char *base,
			struct agent_finder *f)
{
	static const char *const template_keys[] = { "layer", "service_name", "instance_name",
						     "process_name" };
	char path[256];
	int r;

	if (n->type != YAML_MAPPING_NODE)
		return config_parse_fail(x, n, base,
					 "expected a mapping of match_cmd, layer, service_name, "
					 "instance_name, process_name, labels");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *name =
			k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "?";
		char **dst = NULL;

		config_parse_join(path, sizeof(path), base, ".", name);
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

			r = config_parse_scalar(x, v, path, &val);
			if (r)
				return r;
			config_parse_set_str(dst, val);
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
		config_parse_join(path, sizeof(path), base, ".", "match_cmd");
		return config_parse_fail(x, n, path,
					 "missing or empty: a finder needs a command-line regex");
	}
	if (!f->service_name) {
		config_parse_join(path, sizeof(path), base, ".", "service_name");
		return config_parse_fail(x, n, path,
					 "missing or empty: a finder needs a service name");
	}
	r = regcomp(&f->re, f->match_cmd, REG_EXTENDED | REG_NOSUB);
	if (r) {
		char msg[256];

		regerror(r, &f->re, msg, sizeof(msg));
		config_parse_join(path, sizeof(path), base, ".", "match_cmd");
		return config_parse_fail(x, n, path, "bad regex '%s': %s", f->match_cmd, msg);
	}
	f->re_ok = true;
	for (size_t i = 0; i < 4; i++) {
		const char *t = i == 0	 ? f->layer
				: i == 1 ? f->service_name
				: i == 2 ? f->instance_name
					 : f->process_name;
		char msg[256];

		if (template_check(t, msg, sizeof(msg))) {
			config_parse_join(path, sizeof(path), base, ".", template_keys[i]);
			return config_parse_fail(x, n, path, "%s", msg);
		}
	}
	return 0;
}

int config_finders_parse(struct config_ctx *x, yaml_node_t *n, const char *path)
{
	struct agent_config *c = x->c;
	char base[256];
	size_t i = 0;

	if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return config_parse_fail(x, n, path, "expected a list of finders");
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
