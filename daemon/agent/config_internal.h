/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parsers of the config's two structured keys, each in its own file,
 * which the walk over the document (config.c) calls; they read the document
 * with config_parse.h's helpers. Not for users of the config (config.h).
 */
#ifndef SKYPROF_AGENT_CONFIG_INTERNAL_H
#define SKYPROF_AGENT_CONFIG_INTERNAL_H

#include <yaml.h>

struct config_ctx;

/* config_finders.c: process_discovery.scanner.regex, the list of finders. */
int config_finders_parse(struct config_ctx *x, yaml_node_t *n, const char *path);
/* config_policies.c: skyprof.continuous.policies, into c->continuous.policies. */
int config_policies_parse(struct config_ctx *x, yaml_node_t *n, const char *path);

#endif
