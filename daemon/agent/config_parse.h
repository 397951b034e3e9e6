/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config file's value parsers, which know nothing of its keys: rover's
 * environment substitution, sizes, booleans; and what every key's parser
 * uses to read the YAML document: its scalars, the key paths and the error.
 * The schema (config.c) and the parsers of the structured keys
 * (config_internal.h) are built on these, never the other way.
 */
#ifndef SKYPROF_AGENT_CONFIG_PARSE_H
#define SKYPROF_AGENT_CONFIG_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

/*
 * Rover's ${ENV_NAME:default}: each occurrence is replaced by the variable's
 * value, or by the default when it is unset or empty; a default wrapped in
 * double quotes loses them. *out is malloc'ed. 0, -EINVAL (unterminated) or
 * -ENOMEM.
 */
int config_parse_env(const char *in, char **out);

/* "64MiB", "64M", "512k", "1GiB", or bytes. */
int config_parse_size(const char *s, uint64_t *bytes);
/* true/false, yes/no, on/off, 1/0, any case. */
int config_parse_bool(const char *s, bool *out);

struct agent_config;

/* The YAML document being read, the config it fills, the error to fill. */
struct config_ctx {
	yaml_document_t *doc;
	struct agent_config *c;
	char *err;
	size_t errlen;
};

/* "path (line N): message" into x->err; returns -EINVAL. */
int config_parse_fail(struct config_ctx *x, yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A dotted key path; a path too long for the buffer is cut (it is only
 * ever printed or compared against the table's short ones). */
void config_parse_join(char *out, size_t outlen, const char *a, const char *sep, const char *b);
/* The scalar's text after ${ENV:default} substitution, malloc'ed. */
int config_parse_scalar(struct config_ctx *x, yaml_node_t *n, const char *path, char **out);
/* Replace *dst with v (taken); an empty v means unset. */
void config_parse_set_str(char **dst, char *v);

#endif
