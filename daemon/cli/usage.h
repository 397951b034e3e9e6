/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Usage errors, the same for every subcommand: one line saying what is
 * wrong, one line pointing at --help, exit status 2 (skyprof(8): "Every
 * failure is one line on standard error").
 */
#ifndef SKYPROF_CLI_USAGE_H
#define SKYPROF_CLI_USAGE_H

#include <stddef.h>

#define USAGE_EXIT 2

/*
 * Prints "skyprof CMD: MESSAGE" and "(see `skyprof CMD --help`)" on stderr;
 * returns USAGE_EXIT for `return usage_fail(...)`.
 */
__attribute__((format(printf, 2, 3))) int usage_fail(const char *cmd, const char *fmt, ...);

/*
 * What getopt_long's ':' or '?' (opterr = 0, optstring starting with ':')
 * means, as one phrase: "unknown option '--x'", "option '-o' needs a
 * value", "option '--help' takes no value". Reads optind and optopt.
 */
void usage_getopt_message(int c, int argc, char **argv, char *buf, size_t len);

/* The two together: usage_fail with usage_getopt_message. */
int usage_getopt_fail(const char *cmd, int c, int argc, char **argv);

#endif
