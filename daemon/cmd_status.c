// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof status: is the module there, what can it do, what runs.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skyprof.h>

#include "commands.h"
#include "control.h"
#include "modload_hint.h"
#include "options.h"
#include "usage.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: skyprof status [SESSION_ID]\n"
		   "\n"
		   "Shows whether the skyprof kernel module is loaded, its version and ABI,\n"
		   "what this kernel lets it do, its limits and how many sessions run. With\n"
		   "SESSION_ID, also that session's per-CPU counters.\n"
		   "\n"
		   "  -h, --help   this text\n"
		   "\n"
		   "Exit status: 0 the module is usable, 1 it is missing, too old or\n"
		   "unreachable, 2 bad usage.\n");
}

static void print_row(const char *cpu, const struct control_cpu_stats *s)
{
	/* The handler runs on every tick that is not throttled, sampled or not. */
	uint64_t ticks = s->samples + s->drops + s->filtered + s->nested;

	printf("%5s %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
	       " %8" PRIu64 " %10" PRIu64 "ns %10" PRIu64 "ns\n",
	       cpu, s->samples, s->drops, s->unwind_errors, s->throttled, s->filtered, s->nested,
	       s->missed, ticks ? s->handler_ns / ticks : 0, s->handler_max_ns);
}

static void print_stats(const struct control_cpu_stats *st, size_t n)
{
	struct control_cpu_stats sum = { 0 };
	char cpu[16];

	printf("\n%5s %12s %10s %10s %10s %10s %8s %8s %12s %12s\n", "cpu", "samples", "lost",
	       "unwind-err", "throttled", "filtered", "nested", "missed", "handler-avg",
	       "handler-max");
	for (size_t i = 0; i < n; i++) {
		const struct control_cpu_stats *s = &st[i];

		snprintf(cpu, sizeof(cpu), "%u", s->cpu);
		print_row(cpu, s);
		sum.samples += s->samples;
		sum.drops += s->drops;
		sum.unwind_errors += s->unwind_errors;
		sum.throttled += s->throttled;
		sum.filtered += s->filtered;
		sum.nested += s->nested;
		sum.missed += s->missed;
		sum.handler_ns += s->handler_ns;
		if (s->handler_max_ns > sum.handler_max_ns)
			sum.handler_max_ns = s->handler_max_ns;
	}
	print_row("all", &sum);
}

/* Signature enforcement for a missing module, both versions for an old one. */
static void explain_open_failure(enum control_open_failure why)
{
	struct modload_state ms;
	char v[64];

	if (why == CONTROL_NO_MODULE) {
		modload_state_read(&ms, NULL);
		modload_hint_signing(stderr, &ms);
	} else if (why == CONTROL_BAD_VERSION) {
		modload_loaded_version(v, sizeof(v), NULL);
		fprintf(stderr,
			"skyprof status: the loaded module is version %s, this skyprof %s\n", v,
			SKYPROF_VERSION);
	}
}

int cmd_status_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct control_cpu_stats *st = NULL;
	enum control_open_failure why;
	struct control_info info;
	struct control *c;
	uint32_t session = 0;
	char err[512], caps[128];
	size_t n;
	int opt, ret;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((opt = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage_getopt_fail("status", opt, argc, argv);
		}
	}
	if (argc - optind > 1)
		return usage_fail("status", "one SESSION_ID at most, not %d arguments",
				  argc - optind);
	if (optind < argc && opts_parse_u32(argv[optind], 1, UINT32_MAX, &session))
		return usage_fail("status", "'%s' is not a session id", argv[optind]);
	printf("skyprof:    %s (ABI %d)\n", SKYPROF_VERSION, SKYPROF_ABI_VERSION);
	ret = control_open(&c, &why, err, sizeof(err));
	if (ret) {
		printf("module:     %s\n", why == CONTROL_NO_MODULE	? "not loaded"
					   : why == CONTROL_BAD_VERSION ? "too old"
									: "unreachable");
		fprintf(stderr, "skyprof status: %s\n", err);
		explain_open_failure(why);
		return 1;
	}
	ret = control_get_info(c, &info);
	if (ret) {
		printf("module:     loaded, not answering\n");
		fprintf(stderr, "skyprof status: %s\n", control_error(c));
		control_close(c);
		return 1;
	}
	printf("module:     loaded, version %s, ABI %u\n", info.module_version, info.abi_version);
	if (control_check_abi(c, &info)) {
		fprintf(stderr, "skyprof status: %s\n", control_error(c));
		control_close(c);
		return 1;
	}
	printf("caps:       %s\n", control_caps_string(info.caps, caps, sizeof(caps)));
	printf("limits:     up to %u Hz per CPU, %u sessions, rings of up to %u pages of %u "
	       "bytes per CPU\n",
	       info.freq_max, info.max_sessions, info.ring_pages_max, info.page_size);
	printf("cpus:       %u possible cpu ids\n", info.nr_cpu_ids);
	printf("sessions:   %u of %u active, %.1f MiB of ring memory\n", info.active_sessions,
	       info.max_sessions, (double)info.ring_bytes / (1024.0 * 1024.0));

	if (session) {
		ret = control_get_stats(c, session, &st, &n);
		if (ret) {
			fprintf(stderr, "skyprof status: %s\n", control_error(c));
			control_close(c);
			return 1;
		}
		printf("session:    %u\n", session);
		print_stats(st, n);
		free(st);
	}
	control_close(c);
	return 0;
}
