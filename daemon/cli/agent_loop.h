/* SPDX-License-Identifier: GPL-2.0 */
/* skyprof agent, running: its threads and its main loop (agent_loop.c). */
#ifndef SKYPROF_CLI_AGENT_LOOP_H
#define SKYPROF_CLI_AGENT_LOOP_H

struct agent_config;

/*
 * Runs the agent on a loaded and checked config, which it takes over (and
 * frees), until SIGTERM or SIGINT: the exit code.
 */
int agent_loop_run(struct agent_config *cfg);

#endif
