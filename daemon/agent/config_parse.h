/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config file's value parsers, which know nothing of its keys: rover's
 * environment substitution, sizes, booleans.
 */
#ifndef SKYPROF_AGENT_CONFIG_PARSE_H
#define SKYPROF_AGENT_CONFIG_PARSE_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
