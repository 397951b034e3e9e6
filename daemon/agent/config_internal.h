/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the config loader share: the YAML document being read
 * and the error to fill, the helpers every key's parser uses (config.c),
 * and the parsers of the two structured keys, each in its own file. Not
 * for users of the config (config.h).
 */
#ifndef SKYPROF_AGENT_CONFIG_INTERNAL_H
#define SKYPROF_AGENT_CONFIG_INTERNAL_H

#include <stddef.h>

#include <yaml.h>

struct agent_config;

struct config_ctx {
	yaml_document_t *doc;
	struct agent_config *c;
	char *err;
	size_t errlen;
};

/* "path (line N): message" into x->err; returns -EINVAL. */
int config_fail(struct config_ctx *x, yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A dotted key path; a path too long for the buffer is cut (it is only
 * ever printed or compared against the table's short ones). */
void config_join(char *out, size_t outlen, const char *a, const char *sep, const char *b);
/* The scalar's text after ${ENV:default} substitution, malloc'ed. */
int config_scalar(struct config_ctx *x, yaml_node_t *n, const char *path, char **out);
/* Replace *dst with v (taken); an empty v means unset. */
void config_set_str(char **dst, char *v);

/* config_finders.c: process_discovery.scanner.regex, the list of finders. */
int config_finders_parse(struct config_ctx *x, yaml_node_t *n, const char *path);
/* config_policies.c: skyprof.continuous.policies, into c->continuous.policies. */
int config_policies_parse(struct config_ctx *x, yaml_node_t *n, const char *path);

#endif
