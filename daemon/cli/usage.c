// SPDX-License-Identifier: GPL-2.0
/* Usage errors; see usage.h. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/usage.h"

int usage_fail(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a message is one line: a newline in a value would make it two */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(stderr, "skyprof %s: %s\n(see `skyprof %s --help`)\n", cmd, msg, cmd);
	return USAGE_EXIT;
}

void usage_getopt_message(int c, int argc, char **argv, char *buf, size_t len)
{
	const char *name = optind > 0 && optind <= argc ? argv[optind - 1] : "?";

	if (c == ':') {
		if (optopt && optopt < 256 && strncmp(name, "--", 2))
			snprintf(buf, len, "option '-%c' needs a value", optopt);
		else
			snprintf(buf, len, "option '%s' needs a value", name);
		return;
	}
	/* a short option inside a group ("-az"): argv names the group */
	if (optopt && optopt < 256 && strncmp(name, "--", 2)) {
		snprintf(buf, len, "unknown option '-%c'", optopt);
		return;
	}
	/* getopt_long's '?' with optopt set: a known long option given a value */
	if (optopt && !strncmp(name, "--", 2) && strchr(name, '=')) {
		snprintf(buf, len, "option '%.*s' takes no value", (int)strcspn(name, "="), name);
		return;
	}
	snprintf(buf, len, "unknown option '%s'", name);
}

int usage_getopt_fail(const char *cmd, int c, int argc, char **argv)
{
	char msg[300];

	usage_getopt_message(c, argc, argv, msg, sizeof(msg));
	return usage_fail(cmd, "%s", msg);
}
