// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof: the subcommand table. Each subcommand is its own file with its
 * own usage text (see commands.h); this file only dispatches.
 */
#include <stdio.h>
#include <string.h>

#include <skyprof.h>

#include "cli/commands.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *description;
} subcommands[] = {
	{ "record", cli_record_main, "profile processes, a cgroup or the system into files" },
	{ "top", cli_top_main, "live view of the hottest functions" },
	{ "report", cli_report_main, "print or convert a profile written by record" },
	{ "status", cli_status_main, "show the kernel module, its limits and sessions" },
	{ "agent", cli_agent_main, "SkyWalking agent: register processes, run and upload tasks" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: skyprof COMMAND [ARGS...]\n"
		   "       skyprof --version | --help\n\n"
		   "A sampling profiler for Linux (kernel module skyprof.ko). Commands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].description);
	fprintf(f, "\n`skyprof COMMAND --help` describes each.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "skyprof: which command? record, top, report, status or agent\n"
				"(see `skyprof --help`)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("skyprof %s (module ABI %d)\n", SKYPROF_VERSION, SKYPROF_ABI_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "skyprof: '%s' is not a command\n(see `skyprof --help`)\n", argv[1]);
	return 2;
}
