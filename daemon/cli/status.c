// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof status: is the module there, what can it do, what runs.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skyprof.h>

#include "cli/commands.h"
#include "capture/control.h"
#include "capture/modload.h"
#include "cli/options.h"
#include "cli/usage.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: skyprof status [--json] [SESSION_ID]\n"
		   "\n"
		   "Shows whether the skyprof kernel module is loaded, its version and ABI,\n"
		   "what this kernel lets it do, its limits and every running session (any\n"
		   "owner's: id, owner pid, mode, clock, rate, targets, samples, lost). With\n"
		   "SESSION_ID, also that session's per-CPU counters, side-band records and\n"
		   "followed forks included.\n"
		   "\n"
		   "  --json       the same as one JSON object on stdout, for scripts\n"
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
	struct control_cpu_stats sum;
	char cpu[16];

	printf("\n%5s %12s %10s %10s %10s %10s %8s %8s %12s %12s\n", "cpu", "samples", "lost",
	       "unwind-err", "throttled", "filtered", "nested", "missed", "handler-avg",
	       "handler-max");
	for (size_t i = 0; i < n; i++) {
		snprintf(cpu, sizeof(cpu), "%u", st[i].cpu);
		print_row(cpu, &st[i]);
	}
	control_stats_sum(st, n, &sum);
	print_row("all", &sum);
}

static void print_sideband_row(const char *cpu, const struct control_cpu_stats *s)
{
	printf("%5s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
	       " %10.1f %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
	       cpu, s->sb_noted, s->sb_full, s->sb_reports, s->sb_records, s->sb_lost,
	       (double)s->sb_walk_ns / 1e6, s->sb_throttled, s->follow_added, s->follow_full);
}

/* The side-band and following counters, a table of their own: shown only
 * when the session has any. */
static void print_sideband_stats(const struct control_cpu_stats *st, size_t n,
				 const struct control_session_counters *sc)
{
	struct control_cpu_stats sum;
	char cpu[16];

	control_stats_sum(st, n, &sum);
	if (!sc->sideband_used && !sc->follow_used && !sum.sb_noted && !sum.sb_full &&
	    !sum.sb_reports && !sum.follow_added && !sum.follow_full)
		return;
	printf("\nside-band:  %u address spaces tracked, %u of them kept alive until reported; "
	       "%u processes followed\n",
	       sc->sideband_used, sc->sideband_pinned, sc->follow_used);
	printf("%5s %10s %10s %10s %10s %10s %10s %10s %12s %12s\n", "cpu", "noted", "no-slot",
	       "reports", "records", "lost", "walk-ms", "put-off", "forks-added", "forks-missed");
	for (size_t i = 0; i < n; i++) {
		snprintf(cpu, sizeof(cpu), "%u", st[i].cpu);
		print_sideband_row(cpu, &st[i]);
	}
	print_sideband_row("all", &sum);
}

static const char *mode_name(uint32_t mode)
{
	return mode == SKYPROF_MODE_OFFCPU  ? "off-cpu"
	       : mode == SKYPROF_MODE_ONCPU ? "on-cpu"
					    : "?";
}

/* "1,3,7" of a u32 list into buf (truncated with "..."). */
static const char *id_list(const uint32_t *v, uint32_t n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && at < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%u", i ? "," : "", v[i]);

		if (w < 0 || (size_t)w >= len - at) {
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
			break;
		}
		at += (size_t)w;
	}
	return buf;
}

/* The CPUs of a LIST_SESSIONS bitmap as a list into buf. */
static const char *cpu_list(const uint32_t *words, uint32_t nw, char *buf, size_t len)
{
	uint32_t cpus[256], n = 0;

	for (uint32_t c = 0; c < nw * 32 && n < 256; c++)
		if (words[c / 32] >> (c % 32) & 1)
			cpus[n++] = c;
	return id_list(cpus, n, buf, len);
}

static void print_sessions(const struct control_session_info *v, size_t n)
{
	char buf[256], targets[1024];

	if (!n)
		return;
	printf("\n%5s %8s %-8s %-8s %8s %12s %8s  %s\n", "id", "owner", "mode", "clock", "rate",
	       "samples", "lost", "targets");
	for (size_t i = 0; i < n; i++) {
		const struct control_session_info *si = &v[i];
		size_t at = 0;
		char rate[16];

		targets[0] = '\0';
		if (si->nr_tgids)
			at += (size_t)snprintf(targets + at, sizeof(targets) - at, "pids %s ",
					       id_list(si->tgids, si->nr_tgids, buf, sizeof(buf)));
		if (si->nr_tids && at < sizeof(targets))
			at += (size_t)snprintf(targets + at, sizeof(targets) - at, "tids %s ",
					       id_list(si->tids, si->nr_tids, buf, sizeof(buf)));
		if (si->cgroup && at < sizeof(targets))
			at += (size_t)snprintf(targets + at, sizeof(targets) - at, "cgroup %s ",
					       si->cgroup);
		if (!si->nr_tgids && !si->nr_tids && !si->cgroup && at < sizeof(targets))
			at += (size_t)snprintf(targets + at, sizeof(targets) - at, "all ");
		if ((si->flags & SKYPROF_F_FOLLOW_FORKS) && at < sizeof(targets))
			at += (size_t)snprintf(targets + at, sizeof(targets) - at, "and forks ");
		if (si->cpus && at < sizeof(targets))
			snprintf(targets + at, sizeof(targets) - at, "cpus %s",
				 cpu_list(si->cpus, si->nr_cpu_words, buf, sizeof(buf)));
		if (si->mode == SKYPROF_MODE_OFFCPU)
			snprintf(rate, sizeof(rate), "-");
		else
			snprintf(rate, sizeof(rate), "%u Hz", si->freq);
		printf("%5u %8u %-8s %-8s %8s %12" PRIu64 " %8" PRIu64 "  %s\n", si->id,
		       si->owner_pid, mode_name(si->mode),
		       si->mode == SKYPROF_MODE_OFFCPU ? "-" : control_clock_name(si->clock_used),
		       rate, si->samples, si->lost, targets);
	}
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void json_u32s(const uint32_t *v, uint32_t n)
{
	putchar('[');
	for (uint32_t i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", v[i]);
	putchar(']');
}

static void json_session(const struct control_session_info *si)
{
	printf("{\"id\":%u,\"owner_pid\":%u,\"mode\":", si->id, si->owner_pid);
	json_str(mode_name(si->mode));
	printf(",\"clock\":");
	if (si->mode == SKYPROF_MODE_OFFCPU)
		printf("null,\"freq_hz\":null");
	else {
		json_str(control_clock_name(si->clock_used));
		printf(",\"freq_hz\":%u", si->freq);
	}
	printf(",\"targets\":{\"pids\":");
	json_u32s(si->tgids, si->nr_tgids);
	printf(",\"tids\":");
	json_u32s(si->tids, si->nr_tids);
	printf(",\"cgroup\":");
	if (si->cgroup)
		json_str(si->cgroup);
	else
		printf("null");
	printf(",\"cpus\":");
	if (si->cpus) {
		bool first = true;

		putchar('[');
		for (uint32_t c = 0; c < si->nr_cpu_words * 32; c++)
			if (si->cpus[c / 32] >> (c % 32) & 1) {
				printf("%s%u", first ? "" : ",", c);
				first = false;
			}
		putchar(']');
	} else {
		printf("null");
	}
	printf("},\"sideband\":%s,\"follow_forks\":%s",
	       si->flags & SKYPROF_F_SIDEBAND ? "true" : "false",
	       si->flags & SKYPROF_F_FOLLOW_FORKS ? "true" : "false");
	printf(",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64 "}", si->samples, si->lost);
}

static void json_stats(const struct control_cpu_stats *st, size_t n,
		       const struct control_session_counters *sc)
{
	printf(",\"cpu_stats\":[");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"cpu\":%u,\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"unwind_errors\":%" PRIu64 ",\"throttled\":%" PRIu64
		       ",\"filtered\":%" PRIu64 ",\"nested\":%" PRIu64 ",\"missed\":%" PRIu64
		       ",\"handler_ns\":%" PRIu64 ",\"handler_max_ns\":%" PRIu64,
		       i ? "," : "", st[i].cpu, st[i].samples, st[i].drops, st[i].unwind_errors,
		       st[i].throttled, st[i].filtered, st[i].nested, st[i].missed,
		       st[i].handler_ns, st[i].handler_max_ns);
		printf(",\"sb_noted\":%" PRIu64 ",\"sb_full\":%" PRIu64 ",\"sb_reports\":%" PRIu64
		       ",\"sb_records\":%" PRIu64 ",\"sb_lost\":%" PRIu64 ",\"sb_walk_ns\":%" PRIu64
		       ",\"sb_throttled\":%" PRIu64 ",\"follow_added\":%" PRIu64
		       ",\"follow_full\":%" PRIu64 "}",
		       st[i].sb_noted, st[i].sb_full, st[i].sb_reports, st[i].sb_records,
		       st[i].sb_lost, st[i].sb_walk_ns, st[i].sb_throttled, st[i].follow_added,
		       st[i].follow_full);
	}
	printf("],\"sideband_used\":%u,\"sideband_pinned\":%u,\"follow_used\":%u",
	       sc->sideband_used, sc->sideband_pinned, sc->follow_used);
}

static void json_status(const struct control_info *info, const struct control_session_info *v,
			size_t n, uint32_t session, const struct control_cpu_stats *st, size_t nst,
			const struct control_session_counters *sc)
{
	char caps[128];

	printf("{\"skyprof_version\":");
	json_str(SKYPROF_VERSION);
	printf(",\"module\":{\"version\":");
	json_str(info->module_version);
	printf(",\"abi\":%u,\"caps\":", info->abi_version);
	json_str(control_caps_string(info->caps, caps, sizeof(caps)));
	printf(",\"nr_cpu_ids\":%u,\"max_sessions\":%u,\"active_sessions\":%u,"
	       "\"freq_max\":%u,\"ring_bytes\":%" PRIu64 ",\"sideband_bytes\":%" PRIu64
	       "},\"sessions\":[",
	       info->nr_cpu_ids, info->max_sessions, info->active_sessions, info->freq_max,
	       info->ring_bytes, info->sideband_bytes);
	for (size_t i = 0; i < n; i++) {
		if (i)
			putchar(',');
		json_session(&v[i]);
	}
	putchar(']');
	if (session) {
		printf(",\"session\":%u", session);
		json_stats(st, nst, sc);
	}
	printf("}\n");
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

/* The control channel to a module that answers with a known ABI; NULL said why. */
static struct control *open_module(struct control_info *info, bool json)
{
	enum control_open_failure why;
	struct control *c;
	char err[512];

	if (control_open(&c, &why, err, sizeof(err))) {
		if (!json)
			printf("module:     %s\n", why == CONTROL_NO_MODULE	? "not loaded"
						   : why == CONTROL_BAD_VERSION ? "too old"
										: "unreachable");
		fprintf(stderr, "skyprof status: %s\n", err);
		explain_open_failure(why);
		return NULL;
	}
	if (control_get_info(c, info)) {
		if (!json)
			printf("module:     loaded, not answering\n");
		fprintf(stderr, "skyprof status: %s\n", control_error(c));
		control_close(c);
		return NULL;
	}
	if (!json)
		printf("module:     loaded, version %s, ABI %u\n", info->module_version,
		       info->abi_version);
	if (control_check_abi(c, info)) {
		fprintf(stderr, "skyprof status: %s\n", control_error(c));
		control_close(c);
		return NULL;
	}
	return c;
}

/* The text form after the module line: what it can do, its sessions, one session's counters. */
static void print_text(const struct control_info *info, const struct control_session_info *sessions,
		       size_t nsess, uint32_t session, const struct control_cpu_stats *st, size_t n,
		       const struct control_session_counters *sc)
{
	char caps[128];

	printf("caps:       %s\n", control_caps_string(info->caps, caps, sizeof(caps)));
	printf("limits:     up to %u Hz per CPU, %u sessions, rings of up to %u pages of "
	       "%u bytes per CPU\n",
	       info->freq_max, info->max_sessions, info->ring_pages_max, info->page_size);
	printf("cpus:       %u possible cpu ids\n", info->nr_cpu_ids);
	printf("sessions:   %u of %u active, %.1f MiB of ring memory", info->active_sessions,
	       info->max_sessions, (double)info->ring_bytes / (1024.0 * 1024.0));
	if (info->caps & (SKYPROF_CAP_SIDEBAND | SKYPROF_CAP_FOLLOW))
		printf(", %.1f MiB of side-band tables",
		       (double)info->sideband_bytes / (1024.0 * 1024.0));
	putchar('\n');
	print_sessions(sessions, nsess);
	if (session) {
		printf("\nsession:    %u\n", session);
		print_stats(st, n);
		print_sideband_stats(st, n, sc);
	}
}

int cli_status_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct control_session_info *sessions = NULL;
	struct control_session_counters sc = { 0 };
	struct control_cpu_stats *st = NULL;
	struct control_info info;
	struct control *c;
	uint32_t session = 0;
	size_t n = 0, nsess = 0;
	bool json = false;
	int opt, ret;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((opt = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
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
	if (optind < argc && options_parse_u32(argv[optind], 1, UINT32_MAX, &session))
		return usage_fail("status", "'%s' is not a session id", argv[optind]);
	if (!json)
		printf("skyprof:    %s (ABI %d)\n", SKYPROF_VERSION, SKYPROF_ABI_VERSION);
	c = open_module(&info, json);
	if (!c)
		return 1;
	/* A module from before LIST_SESSIONS: the count alone, said so. */
	if (info.active_sessions && control_list_sessions(c, &sessions, &nsess))
		fprintf(stderr, "skyprof status: %s\n", control_error(c));
	if (session) {
		ret = control_get_stats(c, session, &st, &n);
		/* session-wide counters, absent from an older module's reply */
		if (!ret)
			ret = control_get_session_counters(c, session, &sc);
		if (ret) {
			fprintf(stderr, "skyprof status: %s\n", control_error(c));
			control_sessions_free(sessions, nsess);
			control_close(c);
			return 1;
		}
	}
	if (json) {
		json_status(&info, sessions, nsess, session, st, n, &sc);
	} else {
		print_text(&info, sessions, nsess, session, st, n, &sc);
	}
	free(st);
	control_sessions_free(sessions, nsess);
	control_close(c);
	return 0;
}
