// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof-ktest: the test client of skyprof.ko used by tests/vm/suite/NN-kmod-*.sh.
 *
 *   skyprof-ktest info                        GET_INFO as key=value lines
 *   skyprof-ktest record [options]            start a session (on- or off-CPU), drain its rings
 *   skyprof-ktest badinput                    every malformed request -> -EINVAL
 *   skyprof-ktest perm                        (unprivileged) -EPERM everywhere
 *   skyprof-ktest perm-mmap                   (root) bind, drop privileges, mmap
 *   skyprof-ktest cycles N                    N start/map/stop cycles
 *   skyprof-ktest limits                      session limit, foreign STOP
 *   skyprof-ktest killwait PID[,PID...] [MS]  SIGKILL the PIDs, time until their sessions are gone
 *
 * Every subcommand prints what it measured and exits 0 only on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nl.h"
#include "ring.h"

static const char *const clock_names[] = { "auto", "hw", "sw", "hrtimer" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int open_nl(struct ktest_nl *nl)
{
	int ret = ktest_nl_open(nl);

	if (ret)
		fprintf(stderr, "skyprof-ktest: cannot reach the skyprof family (%d): "
				"is the module loaded?\n", ret);
	return ret;
}

/* ---- info ------------------------------------------------------------------ */

struct info {
	uint32_t caps, nr_cpu_ids, active, page_size;
	uint64_t ring_bytes, offcpu_bytes;
};

static int get_info(struct ktest_nl *nl, struct info *in, bool print)
{
	struct ktest_reply rep;
	struct nlattr **tb = rep.tb;

	if (ktest_nl_request(nl, ktest_nl_msg(nl, SKYPROF_CMD_GET_INFO), &rep)) {
		fprintf(stderr, "GET_INFO: %s (%s)\n", strerror(-rep.err), rep.ext);
		return rep.err;
	}
	if (!tb[SKYPROF_A_CAPS] || !tb[SKYPROF_A_NR_CPU_IDS] || !tb[SKYPROF_A_ACTIVE_SESSIONS] ||
	    !tb[SKYPROF_A_RING_BYTES] || !tb[SKYPROF_A_ABI_VERSION] ||
	    !tb[SKYPROF_A_MODULE_VERSION]) {
		fprintf(stderr, "GET_INFO: attributes missing\n");
		ktest_reply_free(&rep);
		return -EPROTO;
	}
	in->caps = nla_get_u32(tb[SKYPROF_A_CAPS]);
	in->nr_cpu_ids = nla_get_u32(tb[SKYPROF_A_NR_CPU_IDS]);
	in->active = nla_get_u32(tb[SKYPROF_A_ACTIVE_SESSIONS]);
	in->ring_bytes = nla_get_u64(tb[SKYPROF_A_RING_BYTES]);
	in->page_size = tb[SKYPROF_A_PAGE_SIZE] ? nla_get_u32(tb[SKYPROF_A_PAGE_SIZE]) : 0;
	in->offcpu_bytes = tb[SKYPROF_A_OFFCPU_BYTES] ? nla_get_u64(tb[SKYPROF_A_OFFCPU_BYTES]) : 0;
	if (print) {
		printf("module_version=%s\n", nla_get_string(tb[SKYPROF_A_MODULE_VERSION]));
		printf("abi_version=%u\n", nla_get_u32(tb[SKYPROF_A_ABI_VERSION]));
		printf("caps=0x%x%s%s%s%s%s%s%s%s\n", in->caps,
		       in->caps & SKYPROF_CAP_PERF_HW ? " perf_hw" : "",
		       in->caps & SKYPROF_CAP_PERF_SW ? " perf_sw" : "",
		       in->caps & SKYPROF_CAP_HRTIMER ? " hrtimer" : "",
		       in->caps & SKYPROF_CAP_OFFCPU ? " offcpu" : "",
		       in->caps & SKYPROF_CAP_USTACK_COPY ? " ustack_copy" : "",
		       in->caps & SKYPROF_CAP_CGROUP ? " cgroup" : "",
		       in->caps & SKYPROF_CAP_SIDEBAND ? " sideband" : "",
		       in->caps & SKYPROF_CAP_FOLLOW ? " follow" : "");
		printf("nr_cpu_ids=%u\n", in->nr_cpu_ids);
		if (tb[SKYPROF_A_MAX_SESSIONS])
			printf("max_sessions=%u\n", nla_get_u32(tb[SKYPROF_A_MAX_SESSIONS]));
		printf("active_sessions=%u\n", in->active);
		if (tb[SKYPROF_A_FREQ_MAX])
			printf("freq_max=%u\n", nla_get_u32(tb[SKYPROF_A_FREQ_MAX]));
		if (tb[SKYPROF_A_RING_PAGES_MAX])
			printf("ring_pages_max=%u\n", nla_get_u32(tb[SKYPROF_A_RING_PAGES_MAX]));
		printf("page_size=%u\n", in->page_size);
		printf("ring_bytes=%llu\n", (unsigned long long)in->ring_bytes);
		printf("offcpu_bytes=%llu\n", (unsigned long long)in->offcpu_bytes);
		if (tb[SKYPROF_A_SIDEBAND_BYTES])
			printf("sideband_bytes=%llu\n",
			       (unsigned long long)nla_get_u64(tb[SKYPROF_A_SIDEBAND_BYTES]));
	}
	ktest_reply_free(&rep);
	return 0;
}

static int cmd_info(int argc, char **argv)
{
	struct ktest_nl nl;
	struct info in;
	int ret;

	(void)argc;
	(void)argv;
	if (open_nl(&nl))
		return 1;
	ret = get_info(&nl, &in, true);
	ktest_nl_close(&nl);
	return ret ? 1 : 0;
}

/* ---- sessions -------------------------------------------------------------- */

struct start_opts {
	int clock;			/* -1: not sent */
	int mode;			/* -1: not sent */
	uint32_t freq, pages, depth, ustack, flags, budget, watermark, entries;
	bool has_flags, has_min;
	uint64_t offcpu_min;
	uint32_t tgids[SKYPROF_MAX_TGIDS];
	int nr_tgids;
	const char *cgroup;
};

struct session {
	uint32_t id, clock_used;
	uint64_t token, data_size;
};

static struct nl_msg *start_msg(struct ktest_nl *nl, const struct start_opts *o)
{
	struct nl_msg *msg = ktest_nl_msg(nl, SKYPROF_CMD_SESSION_START);

	if (o->mode > 0)
		nla_put_u32(msg, SKYPROF_A_MODE, o->mode);
	if (o->clock >= 0)
		nla_put_u32(msg, SKYPROF_A_CLOCK, o->clock);
	if (o->has_min)
		nla_put_u64(msg, SKYPROF_A_OFFCPU_MIN_NS, o->offcpu_min);
	if (o->entries)
		nla_put_u32(msg, SKYPROF_A_OFFCPU_ENTRIES, o->entries);
	if (o->freq)
		nla_put_u32(msg, SKYPROF_A_FREQ, o->freq);
	if (o->pages)
		nla_put_u32(msg, SKYPROF_A_RING_PAGES, o->pages);
	if (o->depth)
		nla_put_u32(msg, SKYPROF_A_MAX_DEPTH, o->depth);
	if (o->ustack)
		nla_put_u32(msg, SKYPROF_A_USTACK_BYTES, o->ustack);
	if (o->has_flags)
		nla_put_u32(msg, SKYPROF_A_FLAGS, o->flags);
	if (o->budget)
		nla_put_u32(msg, SKYPROF_A_BUDGET_PCT, o->budget);
	if (o->watermark)
		nla_put_u32(msg, SKYPROF_A_WATERMARK_PCT, o->watermark);
	if (o->nr_tgids)
		nla_put(msg, SKYPROF_A_TARGET_TGIDS, o->nr_tgids * sizeof(uint32_t), o->tgids);
	if (o->cgroup)
		nla_put_string(msg, SKYPROF_A_TARGET_CGROUP, o->cgroup);
	return msg;
}

static int start_session(struct ktest_nl *nl, const struct start_opts *o, struct session *s,
			 struct ktest_reply *out)
{
	struct ktest_reply rep;

	if (ktest_nl_request(nl, start_msg(nl, o), &rep)) {
		if (out)
			*out = rep;
		else
			fprintf(stderr, "SESSION_START: %s (%s)\n", strerror(-rep.err), rep.ext);
		return rep.err;
	}
	if (!rep.tb[SKYPROF_A_SESSION_ID] || !rep.tb[SKYPROF_A_SESSION_TOKEN] ||
	    !rep.tb[SKYPROF_A_RING_DATA_SIZE] || !rep.tb[SKYPROF_A_CLOCK_USED]) {
		fprintf(stderr, "SESSION_START: reply attributes missing\n");
		ktest_reply_free(&rep);
		return -EPROTO;
	}
	s->id = nla_get_u32(rep.tb[SKYPROF_A_SESSION_ID]);
	s->token = nla_get_u64(rep.tb[SKYPROF_A_SESSION_TOKEN]);
	s->data_size = nla_get_u64(rep.tb[SKYPROF_A_RING_DATA_SIZE]);
	s->clock_used = nla_get_u32(rep.tb[SKYPROF_A_CLOCK_USED]);
	ktest_reply_free(&rep);
	return 0;
}

static int stop_session(struct ktest_nl *nl, uint32_t id, struct ktest_reply *rep)
{
	struct nl_msg *msg = ktest_nl_msg(nl, SKYPROF_CMD_SESSION_STOP);

	nla_put_u32(msg, SKYPROF_A_SESSION_ID, id);
	return ktest_nl_request(nl, msg, rep);
}

/* ---- record ---------------------------------------------------------------- */

static void usage_record(void)
{
	fprintf(stderr,
		"usage: skyprof-ktest record [-c auto|hw|sw|hrtimer] [-f HZ] [-d SECONDS]\n"
		"       [-p PAGES] [-D DEPTH] [-u USTACK_BYTES] [-F k,u,kt|none] [-b BUDGET%%]\n"
		"       [-w WATERMARK%%] [-t TGID[,TGID..]] [-g CGROUP] [-o DUMP]\n"
		"       [--stall SECONDS] [--hold SECONDS] [--expect-clock NAME]\n"
		"       [-m on|off] [--offcpu-min NS] [--entries N] [--ready-file PATH]\n"
		"       [--until-gone PID]   (-F also takes pre: F_OFFCPU_PREEMPT,\n"
		"       sb: F_SIDEBAND, follow: F_FOLLOW_FORKS)\n");
}

static int parse_clock(const char *s)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, clock_names[i]))
			return i;
	return -2;
}

/* Counts the watermark/throttle events of session id already queued on ev. */
static void count_events(struct ktest_nl *ev, uint32_t id, unsigned int *count)
{
	uint32_t event, sid, reason, cpu;

	while (ktest_nl_wait_event(ev, 0, &event, &sid, &reason, &cpu) > 0)
		if (sid == id && event <= SKYPROF_EVENT_THROTTLED)
			count[event]++;
}

static int cmd_record(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "stall", required_argument, NULL, 'S' },
		{ "hold", required_argument, NULL, 'H' },
		{ "expect-clock", required_argument, NULL, 'E' },
		{ "offcpu-min", required_argument, NULL, 'M' },
		{ "entries", required_argument, NULL, 'N' },
		{ "ready-file", required_argument, NULL, 'R' },
		{ "until-gone", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	struct start_opts o = { .clock = -1, .mode = -1 };
	const char *ready = NULL;
	int until_gone = 0;
	struct ktest_cpu_stats sum, per_cpu[KTEST_MAX_CPUS];
	double duration = 1, stall = 0, hold = 0;
	const char *dump = NULL;
	int expect_clock = -1, c, ret = 1, cpu;
	unsigned int ev_count[SKYPROF_EVENT_THROTTLED + 1] = { 0 };
	struct ktest_nl nl, ev;
	struct ktest_rings r;
	struct session s;
	struct info in;
	uint64_t t0, t_end, lost;
	char *tok, *save;

	while ((c = getopt_long(argc, argv, "c:f:d:p:D:u:F:b:w:t:g:o:m:", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o.mode = !strcmp(optarg, "off") ? SKYPROF_MODE_OFFCPU : SKYPROF_MODE_ONCPU;
			break;
		case 'M':
			o.has_min = true;
			o.offcpu_min = strtoull(optarg, NULL, 0);
			break;
		case 'N':
			o.entries = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			ready = optarg;
			break;
		case 'G':
			until_gone = atoi(optarg);
			break;
		case 'c':
			o.clock = parse_clock(optarg);
			break;
		case 'f':
			o.freq = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			duration = strtod(optarg, NULL);
			break;
		case 'p':
			o.pages = strtoul(optarg, NULL, 0);
			break;
		case 'D':
			o.depth = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			o.ustack = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			o.has_flags = true;
			o.flags = 0;
			for (tok = strtok_r(optarg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (!strcmp(tok, "k"))
					o.flags |= SKYPROF_F_KERNEL_STACK;
				else if (!strcmp(tok, "u"))
					o.flags |= SKYPROF_F_USER_STACK;
				else if (!strcmp(tok, "kt"))
					o.flags |= SKYPROF_F_KTHREADS;
				else if (!strcmp(tok, "pre"))
					o.flags |= SKYPROF_F_OFFCPU_PREEMPT;
				else if (!strcmp(tok, "sb"))
					o.flags |= SKYPROF_F_SIDEBAND;
				else if (!strcmp(tok, "follow"))
					o.flags |= SKYPROF_F_FOLLOW_FORKS;
			}
			break;
		case 'b':
			o.budget = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			o.watermark = strtoul(optarg, NULL, 0);
			break;
		case 't':
			for (tok = strtok_r(optarg, ",", &save); tok && o.nr_tgids < SKYPROF_MAX_TGIDS;
			     tok = strtok_r(NULL, ",", &save))
				o.tgids[o.nr_tgids++] = strtoul(tok, NULL, 0);
			break;
		case 'g':
			o.cgroup = optarg;
			break;
		case 'o':
			dump = optarg;
			break;
		case 'S':
			stall = strtod(optarg, NULL);
			break;
		case 'H':
			hold = strtod(optarg, NULL);
			break;
		case 'E':
			expect_clock = parse_clock(optarg);
			break;
		default:
			usage_record();
			return 2;
		}
	}
	if (o.clock == -2) {
		usage_record();
		return 2;
	}
	if (open_nl(&nl) || get_info(&nl, &in, false))
		return 1;
	if (open_nl(&ev) || ktest_nl_subscribe(&ev)) {
		fprintf(stderr, "cannot subscribe to the events group\n");
		return 1;
	}
	if (start_session(&nl, &o, &s, NULL))
		return 1;
	printf("session=%u clock_used=%s data_size=%llu\n", s.id,
	       s.clock_used < 4 ? clock_names[s.clock_used] : "?",
	       (unsigned long long)s.data_size);
	if (expect_clock >= 0 && (int)s.clock_used != expect_clock) {
		printf("FAIL: clock_used=%s, expected %s\n", clock_names[s.clock_used],
		       clock_names[expect_clock]);
		return 1;
	}
	ret = ktest_rings_open(&r, s.id, s.token, s.data_size, in.nr_cpu_ids);
	if (ret) {
		printf("FAIL: rings: %s\n", strerror(-ret));
		return 1;
	}
	if (dump) {
		r.dump = fopen(dump, "w");
		if (!r.dump) {
			perror(dump);
			return 1;
		}
	}
	fflush(stdout);
	if (ready) {
		FILE *rf = fopen(ready, "w");

		if (!rf) {
			perror(ready);
			return 1;
		}
		fclose(rf);
	}
	t0 = now_ns();
	t_end = t0 + (uint64_t)(duration * 1e9);
	r.win_start_ns = t0;
	r.win_end_ns = UINT64_MAX;
	if (stall > 0) {
		usleep((useconds_t)(stall * 1e6));
		lost = ktest_rings_lost(&r);
		ktest_rings_drain(&r);
		printf("stall_lost=%llu\n", (unsigned long long)lost);
		/* Samples taken after the drain prove the ring recovered. */
		r.since_ns = now_ns();
	}
	while (now_ns() < t_end) {
		struct pollfd pfd = { .fd = r.fd, .events = POLLIN };

		poll(&pfd, 1, 50);
		ktest_rings_drain(&r);
		count_events(&ev, s.id, ev_count);
		if (until_gone > 0 && kill(until_gone, 0) && errno == ESRCH) {
			printf("gone=%d after=%.3f\n", until_gone, (now_ns() - t0) / 1e9);
			/* Let the last switches of its children land. */
			usleep(200000);
			ktest_rings_drain(&r);
			break;
		}
	}
	/*
	 * The rings' lost counters just before GET_STATS: a sample dropped
	 * counts in STAT_DROPS first, then in the ring, so this is <= the
	 * STAT_DROPS that follows, which is <= the lost count after the stop
	 * (the reader does not drain in between).
	 */
	lost = ktest_rings_lost(&r);
	ret = ktest_get_stats(&nl, s.id, &sum, per_cpu, KTEST_MAX_CPUS);
	if (ret) {
		printf("FAIL: GET_STATS: %s\n", strerror(-ret));
		return 1;
	}
	printf("lost_before_stats=%llu\n", (unsigned long long)lost);
	count_events(&ev, s.id, ev_count);
	printf("events_watermark=%u events_throttled=%u\n", ev_count[SKYPROF_EVENT_RING_WATERMARK],
	       ev_count[SKYPROF_EVENT_THROTTLED]);
	if (hold > 0) {
		/* Keep the session, let the device go: rmmod must now succeed. */
		uint32_t event = 0, id = 0, reason = 0, evcpu = 0;
		uint64_t deadline = now_ns() + (uint64_t)(hold * 1e9);
		int got;

		ktest_rings_drain(&r);
		ktest_rings_close(&r);
		printf("holding session=%u samples=%llu\n", s.id, (unsigned long long)r.samples);
		fflush(stdout);
		for (;;) {
			int left = (int)((int64_t)(deadline - now_ns()) / 1000000);

			if (left <= 0) {
				printf("FAIL: no SESSION_ENDED event within %.1f s\n", hold);
				return 1;
			}
			got = ktest_nl_wait_event(&ev, left, &event, &id, &reason, &evcpu);
			if (got <= 0)
				continue;
			if (event == SKYPROF_EVENT_SESSION_ENDED && id == s.id)
				break;
		}
		printf("event=session_ended session=%u reason=%u\n", id, reason);
		return reason == SKYPROF_END_UNLOAD ? 0 : 1;
	}
	{
		struct ktest_reply rep;

		/* The window rate checks use: from t0 to the stop request, so
		 * neither setup nor teardown time counts as sampling time.
		 */
		r.win_end_ns = now_ns();
		if (stop_session(&nl, s.id, &rep)) {
			printf("FAIL: SESSION_STOP: %s (%s)\n", strerror(-rep.err), rep.ext);
			return 1;
		}
	}
	/* What was committed before the stop is still there. */
	ktest_rings_drain(&r);
	lost = ktest_rings_lost(&r);
	if (r.dump)
		fclose(r.dump);
	printf("window=%.3f window_samples=%llu\n", (r.win_end_ns - t0) / 1e9,
	       (unsigned long long)r.in_window);
	printf("duration=%.3f samples=%llu lost=%llu pads=%llu bad_records=%llu "
	       "padding_errors=%llu recent=%llu\n",
	       (now_ns() - t0) / 1e9, (unsigned long long)r.samples, (unsigned long long)lost,
	       (unsigned long long)r.pads, (unsigned long long)r.bad_records,
	       (unsigned long long)r.padding_errors, (unsigned long long)r.recent);
	printf("stat_samples=%llu stat_drops=%llu unwind_errors=%llu handler_ns=%llu "
	       "handler_max_ns=%llu throttled=%llu filtered=%llu nested=%llu missed=%llu\n",
	       (unsigned long long)sum.v[SKYPROF_STAT_SAMPLES],
	       (unsigned long long)sum.v[SKYPROF_STAT_DROPS],
	       (unsigned long long)sum.v[SKYPROF_STAT_UNWIND_ERRORS],
	       (unsigned long long)sum.v[SKYPROF_STAT_HANDLER_NS],
	       (unsigned long long)sum.v[SKYPROF_STAT_HANDLER_MAX_NS],
	       (unsigned long long)sum.v[SKYPROF_STAT_THROTTLED],
	       (unsigned long long)sum.v[SKYPROF_STAT_FILTERED],
	       (unsigned long long)sum.v[SKYPROF_STAT_NESTED],
	       (unsigned long long)sum.v[SKYPROF_STAT_MISSED]);
	printf("sb_mmaps=%llu sb_aspaces=%llu sb_noted=%llu sb_full=%llu sb_reports=%llu "
	       "sb_records=%llu sb_lost=%llu sb_walk_ns=%llu sb_throttled=%llu follow_added=%llu "
	       "follow_full=%llu\n",
	       (unsigned long long)r.mmaps, (unsigned long long)r.aspaces,
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_NOTED],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_FULL],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_REPORTS],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_RECORDS],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_LOST],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_WALK_NS],
	       (unsigned long long)sum.v[SKYPROF_STAT_SB_THROTTLED],
	       (unsigned long long)sum.v[SKYPROF_STAT_FOLLOW_ADDED],
	       (unsigned long long)sum.v[SKYPROF_STAT_FOLLOW_FULL]);
	if (sum.has_offcpu)
		printf("offcpu_entries=%llu offcpu_used=%llu offcpu_exited=%llu offcpu_short=%llu "
		       "offcpu_full=%llu weight_sum=%llu\n",
		       (unsigned long long)sum.off_entries, (unsigned long long)sum.off_used,
		       (unsigned long long)sum.off_exited,
		       (unsigned long long)sum.v[SKYPROF_STAT_OFFCPU_SHORT],
		       (unsigned long long)sum.v[SKYPROF_STAT_OFFCPU_FULL],
		       (unsigned long long)r.weight_sum);
	for (cpu = 0; cpu < r.nr; cpu++)
		if (r.ring[cpu].ctl)
			printf("cpu%d_samples=%llu\n", cpu, (unsigned long long)r.per_cpu[cpu]);
	ktest_rings_close(&r);
	ktest_nl_close(&nl);
	return r.bad_records || r.padding_errors ? 1 : 0;
}

/* ---- badinput -------------------------------------------------------------- */

enum { T_U32, T_U64, T_RAW, T_STR };

struct bad_case {
	const char *what;
	uint8_t cmd;
	uint16_t attr;
	int kind;
	uint64_t val;			/* T_U32/T_U64 value; T_RAW: length */
	const char *str;
	int expect;			/* -errno */
};

#define BAD_U32(a, v, w)	{ w, SKYPROF_CMD_SESSION_START, a, T_U32, v, NULL, -EINVAL }
#define BAD_LEN(a, n, w)	{ w, SKYPROF_CMD_SESSION_START, a, T_RAW, n, NULL, -EINVAL }

static const struct bad_case bad_cases[] = {
	BAD_LEN(SKYPROF_A_MODE, 2, "MODE: 2 bytes"),
	BAD_LEN(SKYPROF_A_MODE, 8, "MODE: 8 bytes"),
	BAD_U32(SKYPROF_A_MODE, 7, "MODE: unknown"),
	BAD_LEN(SKYPROF_A_CLOCK, 1, "CLOCK: 1 byte"),
	BAD_U32(SKYPROF_A_CLOCK, 4, "CLOCK: unknown"),
	BAD_LEN(SKYPROF_A_FREQ, 8, "FREQ: 8 bytes"),
	BAD_U32(SKYPROF_A_FREQ, 0, "FREQ: 0"),
	BAD_U32(SKYPROF_A_FREQ, 100001, "FREQ: 100001"),
	BAD_LEN(SKYPROF_A_FLAGS, 3, "FLAGS: 3 bytes"),
	BAD_U32(SKYPROF_A_FLAGS, 1u << 9, "FLAGS: unknown bit"),
	BAD_LEN(SKYPROF_A_MAX_DEPTH, 0, "MAX_DEPTH: empty"),
	BAD_U32(SKYPROF_A_MAX_DEPTH, 0, "MAX_DEPTH: 0"),
	BAD_U32(SKYPROF_A_MAX_DEPTH, 257, "MAX_DEPTH: 257"),
	BAD_LEN(SKYPROF_A_USTACK_BYTES, 2, "USTACK_BYTES: 2 bytes"),
	BAD_U32(SKYPROF_A_USTACK_BYTES, 65544, "USTACK_BYTES: 65544"),
	BAD_U32(SKYPROF_A_USTACK_BYTES, 100, "USTACK_BYTES: not a multiple of 8"),
	BAD_LEN(SKYPROF_A_OFFCPU_MIN_NS, 4, "OFFCPU_MIN_NS: 4 bytes"),
	BAD_LEN(SKYPROF_A_OFFCPU_ENTRIES, 8, "OFFCPU_ENTRIES: 8 bytes"),
	BAD_U32(SKYPROF_A_OFFCPU_ENTRIES, 32, "OFFCPU_ENTRIES: 32"),
	BAD_U32(SKYPROF_A_OFFCPU_ENTRIES, 131072, "OFFCPU_ENTRIES: 131072"),
	BAD_U32(SKYPROF_A_OFFCPU_ENTRIES, 100, "OFFCPU_ENTRIES: not a power of two"),
	{ "USTACK_BYTES in off-CPU mode", SKYPROF_CMD_SESSION_START, SKYPROF_A_USTACK_BYTES,
	  T_STR, 0, "OFFUS", -EINVAL },
	BAD_U32(SKYPROF_A_OFFCPU_USED, 1, "reply-only OFFCPU_USED"),
	BAD_LEN(SKYPROF_A_SIDEBAND_ENTRIES, 8, "SIDEBAND_ENTRIES: 8 bytes"),
	BAD_U32(SKYPROF_A_SIDEBAND_ENTRIES, 32, "SIDEBAND_ENTRIES: 32"),
	BAD_U32(SKYPROF_A_SIDEBAND_ENTRIES, 131072, "SIDEBAND_ENTRIES: 131072"),
	BAD_U32(SKYPROF_A_SIDEBAND_ENTRIES, 100, "SIDEBAND_ENTRIES: not a power of two"),
	BAD_LEN(SKYPROF_A_FOLLOW_ENTRIES, 2, "FOLLOW_ENTRIES: 2 bytes"),
	BAD_U32(SKYPROF_A_FOLLOW_ENTRIES, 32, "FOLLOW_ENTRIES: 32"),
	BAD_U32(SKYPROF_A_FOLLOW_ENTRIES, 100, "FOLLOW_ENTRIES: not a power of two"),
	BAD_U32(SKYPROF_A_FLAGS, SKYPROF_F_FOLLOW_FORKS, "FLAGS: FOLLOW_FORKS without targets"),
	BAD_U32(SKYPROF_A_SIDEBAND_USED, 1, "reply-only SIDEBAND_USED"),
	BAD_U32(SKYPROF_A_SIDEBAND_BYTES, 1, "reply-only SIDEBAND_BYTES"),
	BAD_LEN(SKYPROF_A_RING_PAGES, 2, "RING_PAGES: 2 bytes"),
	BAD_U32(SKYPROF_A_RING_PAGES, 4, "RING_PAGES: 4"),
	BAD_U32(SKYPROF_A_RING_PAGES, 32768, "RING_PAGES: 32768"),
	BAD_U32(SKYPROF_A_RING_PAGES, 24, "RING_PAGES: not a power of two"),
	BAD_LEN(SKYPROF_A_WATERMARK_PCT, 8, "WATERMARK_PCT: 8 bytes"),
	BAD_U32(SKYPROF_A_WATERMARK_PCT, 0, "WATERMARK_PCT: 0"),
	BAD_U32(SKYPROF_A_WATERMARK_PCT, 101, "WATERMARK_PCT: 101"),
	BAD_LEN(SKYPROF_A_BUDGET_PCT, 1, "BUDGET_PCT: 1 byte"),
	BAD_U32(SKYPROF_A_BUDGET_PCT, 0, "BUDGET_PCT: 0"),
	BAD_U32(SKYPROF_A_BUDGET_PCT, 101, "BUDGET_PCT: 101"),
	BAD_LEN(SKYPROF_A_TARGET_TGIDS, 0, "TARGET_TGIDS: empty"),
	BAD_LEN(SKYPROF_A_TARGET_TGIDS, 6, "TARGET_TGIDS: 6 bytes"),
	BAD_LEN(SKYPROF_A_TARGET_TGIDS, 4 * (SKYPROF_MAX_TGIDS + 1), "TARGET_TGIDS: too many"),
	{ "TARGET_TGIDS: tgid 0", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_TGIDS, T_U32, 0,
	  NULL, -EINVAL },
	BAD_LEN(SKYPROF_A_TARGET_CGROUP, 5, "TARGET_CGROUP: no NUL"),
	{ "TARGET_CGROUP: empty", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CGROUP, T_STR, 0,
	  "", -EINVAL },
	{ "TARGET_CGROUP: too long", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CGROUP, T_STR, 0,
	  "LONG", -EINVAL },
	{ "TGIDS and CGROUP", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CGROUP, T_STR, 0,
	  "BOTH", -EINVAL },
	BAD_LEN(SKYPROF_A_TARGET_TIDS, 0, "TARGET_TIDS: empty"),
	BAD_LEN(SKYPROF_A_TARGET_TIDS, 6, "TARGET_TIDS: 6 bytes"),
	BAD_LEN(SKYPROF_A_TARGET_TIDS, 4 * (SKYPROF_MAX_TIDS + 1), "TARGET_TIDS: too many"),
	{ "TARGET_TIDS: tid 0", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_TIDS, T_U32, 0,
	  NULL, -EINVAL },
	{ "TIDS and CGROUP", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CGROUP, T_STR, 0,
	  "TIDCG", -EINVAL },
	BAD_LEN(SKYPROF_A_TARGET_CPUS, 0, "TARGET_CPUS: empty"),
	BAD_LEN(SKYPROF_A_TARGET_CPUS, 6, "TARGET_CPUS: 6 bytes"),
	BAD_LEN(SKYPROF_A_TARGET_CPUS, 4 * (SKYPROF_MAX_TGIDS + 1), "TARGET_CPUS: too long"),
	{ "TARGET_CPUS: no CPU", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CPUS, T_U32, 0,
	  NULL, -EINVAL },
	{ "TARGET_CPUS: CPU NR_CPU_IDS", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CPUS, T_STR,
	  0, "CPUBEYOND", -EINVAL },
	{ "TARGET_TIDS with an empty CPUS", SKYPROF_CMD_SESSION_START, SKYPROF_A_TARGET_CPUS,
	  T_STR, 0, "CPUTID0", -EINVAL },
	BAD_U32(SKYPROF_A_OWNER_PID, 1, "reply-only OWNER_PID"),
	BAD_U32(SKYPROF_A_SESSION_INFO, 1, "reply-only SESSION_INFO"),
	{ "LIST_SESSIONS with MODE", SKYPROF_CMD_LIST_SESSIONS, SKYPROF_A_MODE, T_U32, 0, NULL,
	  -EINVAL },
	/* Attributes a request must not carry. */
	BAD_U32(SKYPROF_A_PAD, 0, "PAD in a request"),
	BAD_U32(SKYPROF_A_CAPS, 1, "reply-only CAPS"),
	{ "reply-only SESSION_TOKEN", SKYPROF_CMD_SESSION_START, SKYPROF_A_SESSION_TOKEN, T_U64, 1,
	  NULL, -EINVAL },
	BAD_U32(SKYPROF_A_SESSION_ID, 1, "SESSION_ID in START"),
	BAD_U32(SKYPROF_A_MAX + 1, 1, "attribute beyond MAX"),
	{ "GET_INFO with MODE", SKYPROF_CMD_GET_INFO, SKYPROF_A_MODE, T_U32, 0, NULL, -EINVAL },
	{ "STOP without SESSION_ID", SKYPROF_CMD_SESSION_STOP, 0, T_RAW, 0, NULL, -EINVAL },
	{ "STOP: SESSION_ID 2 bytes", SKYPROF_CMD_SESSION_STOP, SKYPROF_A_SESSION_ID, T_RAW, 2,
	  NULL, -EINVAL },
	{ "STOP: SESSION_ID 0", SKYPROF_CMD_SESSION_STOP, SKYPROF_A_SESSION_ID, T_U32, 0, NULL,
	  -EINVAL },
	{ "STOP: FREQ", SKYPROF_CMD_SESSION_STOP, SKYPROF_A_FREQ, T_U32, 99, NULL, -EINVAL },
	{ "GET_STATS: SESSION_ID 8 bytes", SKYPROF_CMD_GET_STATS, SKYPROF_A_SESSION_ID, T_RAW, 8,
	  NULL, -EINVAL },
	{ "GET_STATS without SESSION_ID", SKYPROF_CMD_GET_STATS, 0, T_RAW, 0, NULL, -EINVAL },
	/* Commands. */
	{ "unknown command 99", 99, 0, T_RAW, 0, NULL, -EOPNOTSUPP },
	{ "EVENT is kernel-to-user only", SKYPROF_CMD_EVENT, 0, T_RAW, 0, NULL, -EOPNOTSUPP },
	{ "UNSPEC command", SKYPROF_CMD_UNSPEC, 0, T_RAW, 0, NULL, -EOPNOTSUPP },
};

static int cmd_badinput(int argc, char **argv)
{
	static char raw[4 * (SKYPROF_MAX_TGIDS + 1)];
	static char longpath[SKYPROF_CGROUP_PATH_MAX + 16];
	struct ktest_nl nl;
	struct info before, after;
	unsigned int i, fails = 0, noext = 0;

	(void)argc;
	(void)argv;
	memset(raw, 'x', sizeof(raw));
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	if (open_nl(&nl) || get_info(&nl, &before, false))
		return 1;
	if (!nl.ext_ack)
		printf("no extended acks in this kernel (NETLINK_EXT_ACK refused): errnos only\n");
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct nl_msg *msg = ktest_nl_msg(&nl, b->cmd);
		struct ktest_reply rep;
		uint32_t one = 1;
		bool ok;

		switch (b->kind) {
		case T_U32:
			nla_put_u32(msg, b->attr, (uint32_t)b->val);
			break;
		case T_U64:
			nla_put_u64(msg, b->attr, b->val);
			break;
		case T_RAW:
			if (b->attr)
				nla_put(msg, b->attr, (int)b->val, raw);
			break;
		case T_STR:
			if (!strcmp(b->str, "LONG")) {
				nla_put_string(msg, b->attr, longpath);
			} else if (!strcmp(b->str, "OFFUS")) {
				nla_put_u32(msg, SKYPROF_A_MODE, SKYPROF_MODE_OFFCPU);
				nla_put_u32(msg, b->attr, 64);
			} else if (!strcmp(b->str, "BOTH")) {
				nla_put(msg, SKYPROF_A_TARGET_TGIDS, 4, &one);
				nla_put_string(msg, b->attr, "/");
			} else if (!strcmp(b->str, "TIDCG")) {
				nla_put(msg, SKYPROF_A_TARGET_TIDS, 4, &one);
				nla_put_string(msg, b->attr, "/");
			} else if (!strcmp(b->str, "CPUBEYOND")) {
				/* The first CPU id past the module's nr_cpu_ids. */
				static uint32_t mask[SKYPROF_MAX_TGIDS];
				uint32_t n = before.nr_cpu_ids;

				memset(mask, 0, sizeof(mask));
				if (n / 32 < SKYPROF_MAX_TGIDS)
					mask[n / 32] = 1u << (n % 32);
				nla_put(msg, b->attr, (int)(n / 32 + 1) * 4, mask);
			} else if (!strcmp(b->str, "CPUTID0")) {
				/* Valid tids, then a CPU mask that fails: nothing kept. */
				uint32_t zero = 0;

				nla_put(msg, SKYPROF_A_TARGET_TIDS, 4, &one);
				nla_put(msg, b->attr, 4, &zero);
			} else {
				nla_put_string(msg, b->attr, b->str);
			}
			break;
		}
		ktest_nl_request(&nl, msg, &rep);
		ok = rep.err == b->expect;
		/*
		 * -EINVAL must explain itself; -EOPNOTSUPP for commands comes from
		 * genl. Kernels without extended acks cannot carry the text (the
		 * module logs it): there the errno alone is checked.
		 */
		if (ok && b->expect == -EINVAL && !rep.ext[0] && nl.ext_ack) {
			ok = false;
			noext++;
		}
		printf("%-4s %-34s -> %d (%s)%s%s\n", ok ? "ok" : "FAIL", b->what, rep.err,
		       rep.err ? strerror(-rep.err) : "success", rep.ext[0] ? ": " : "", rep.ext);
		if (!ok)
			fails++;
		ktest_reply_free(&rep);
		/* A wrongly accepted START must not leak a session. */
		if (!rep.err && b->cmd == SKYPROF_CMD_SESSION_START) {
			ktest_nl_close(&nl);
			if (open_nl(&nl))
				return 1;
		}
	}
	if (get_info(&nl, &after, false))
		return 1;
	printf("cases=%zu failed=%u missing_extack=%u active_before=%u active_after=%u "
	       "ring_bytes_after=%llu\n", sizeof(bad_cases) / sizeof(bad_cases[0]), fails, noext,
	       before.active, after.active, (unsigned long long)after.ring_bytes);
	if (after.active != before.active || after.ring_bytes != before.ring_bytes ||
	    after.offcpu_bytes != before.offcpu_bytes) {
		printf("FAIL: a refused request changed the module's state\n");
		fails++;
	}
	ktest_nl_close(&nl);
	return fails ? 1 : 0;
}

/* ---- privilege ------------------------------------------------------------- */

static int expect_eperm(const char *what, int err, const char *ext)
{
	bool ok = err == -EPERM;

	printf("%-4s %-30s -> %d (%s)%s%s\n", ok ? "ok" : "FAIL", what, err,
	       err ? strerror(-err) : "success", ext && ext[0] ? ": " : "", ext ? ext : "");
	return ok ? 0 : 1;
}

static int cmd_perm(int argc, char **argv)
{
	struct start_opts o = { .clock = -1 };
	struct ktest_reply rep;
	struct ktest_nl nl;
	struct nl_msg *msg;
	int fails = 0, fd;

	(void)argc;
	(void)argv;
	printf("uid=%u euid=%u\n", getuid(), geteuid());
	if (open_nl(&nl))
		return 1;
	ktest_nl_request(&nl, ktest_nl_msg(&nl, SKYPROF_CMD_GET_INFO), &rep);
	fails += expect_eperm("GET_INFO", rep.err, rep.ext);
	ktest_reply_free(&rep);
	ktest_nl_request(&nl, start_msg(&nl, &o), &rep);
	fails += expect_eperm("SESSION_START", rep.err, rep.ext);
	ktest_reply_free(&rep);
	stop_session(&nl, 1, &rep);
	fails += expect_eperm("SESSION_STOP", rep.err, rep.ext);
	ktest_reply_free(&rep);
	msg = ktest_nl_msg(&nl, SKYPROF_CMD_GET_STATS);
	nla_put_u32(msg, SKYPROF_A_SESSION_ID, 1);
	ktest_nl_request(&nl, msg, &rep);
	fails += expect_eperm("GET_STATS", rep.err, rep.ext);
	ktest_reply_free(&rep);
	fd = open("/dev/" SKYPROF_DEVICE_NAME, O_RDWR);
	fails += expect_eperm("open(/dev/skyprof, O_RDWR)", fd < 0 ? -errno : 0, NULL);
	if (fd >= 0)
		close(fd);
	fd = open("/dev/" SKYPROF_DEVICE_NAME, O_RDONLY);
	fails += expect_eperm("open(/dev/skyprof, O_RDONLY)", fd < 0 ? -errno : 0, NULL);
	if (fd >= 0)
		close(fd);
	ktest_nl_close(&nl);
	printf("perm_failures=%d\n", fails);
	return fails ? 1 : 0;
}

/* Root binds and maps, then becomes nobody: mmap and ioctl must say EPERM. */
static int cmd_perm_mmap(int argc, char **argv)
{
	struct start_opts o = { .clock = -1, .pages = 8 };
	struct skyprof_bind b = { 0 };
	struct ktest_nl nl;
	struct session s;
	struct info in;
	long page = sysconf(_SC_PAGESIZE);
	int fd, fails = 0;
	void *p;

	(void)argc;
	(void)argv;
	if (open_nl(&nl) || get_info(&nl, &in, false) || start_session(&nl, &o, &s, NULL))
		return 1;
	fd = open("/dev/" SKYPROF_DEVICE_NAME, O_RDWR);
	b.session_id = s.id;
	b.token = s.token;
	if (fd < 0 || ioctl(fd, SKYPROF_IOC_BIND, &b)) {
		perror("bind");
		return 1;
	}
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	printf("%-4s root mmap of cpu0 ctl\n", p != MAP_FAILED ? "ok" : "FAIL");
	fails += p == MAP_FAILED;
	/* Data areas are read-only even for root. */
	p = mmap(NULL, s.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)SKYPROF_MMAP_DATA_PGOFF(0) * page);
	printf("%-4s root PROT_WRITE mmap of cpu0 data -> %s\n", p == MAP_FAILED ? "ok" : "FAIL",
	       p == MAP_FAILED ? strerror(errno) : "mapped");
	fails += p != MAP_FAILED;
	p = mmap(NULL, s.data_size, PROT_READ, MAP_SHARED, fd,
		 (off_t)SKYPROF_MMAP_DATA_PGOFF(0) * page);
	if (p != MAP_FAILED) {
		int r = mprotect(p, s.data_size, PROT_READ | PROT_WRITE);

		printf("%-4s mprotect(PROT_WRITE) of cpu0 data -> %s\n", r ? "ok" : "FAIL",
		       r ? strerror(errno) : "allowed");
		fails += !r;
	}
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) {
		perror("setresuid");
		return 1;
	}
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	fails += expect_eperm("mmap as uid 65534", p == MAP_FAILED ? -errno : 0, NULL);
	fails += expect_eperm("BIND ioctl as uid 65534",
			      ioctl(fd, SKYPROF_IOC_BIND, &b) ? -errno : 0, NULL);
	printf("perm_failures=%d\n", fails);
	return fails ? 1 : 0;
}

/* ---- cycles ---------------------------------------------------------------- */

static int cmd_cycles(int argc, char **argv)
{
	struct start_opts o = { .clock = -1, .freq = 999, .pages = 8 };
	int n = argc > 1 ? atoi(argv[1]) : 200, i, fails = 0;
	bool off = argc > 2 && !strcmp(argv[2], "off");
	struct ktest_nl nl;
	struct info in;
	uint64_t t0 = now_ns(), samples = 0;

	if (open_nl(&nl) || get_info(&nl, &in, false))
		return 1;
	for (i = 0; i < n; i++) {
		struct ktest_reply rep;
		struct ktest_rings r;
		struct session s;

		o.clock = i % 3 == 2 ? SKYPROF_CLOCK_HRTIMER : SKYPROF_CLOCK_AUTO;
		o.mode = off ? SKYPROF_MODE_OFFCPU : SKYPROF_MODE_ONCPU;
		if (start_session(&nl, &o, &s, NULL)) {
			fails++;
			break;
		}
		if (ktest_rings_open(&r, s.id, s.token, s.data_size, in.nr_cpu_ids)) {
			fails++;
		} else {
			ktest_rings_drain(&r);
			samples += r.samples;
			if (r.bad_records || r.padding_errors)
				fails++;
			/* Every 4th cycle: stop with the rings still mapped. */
			if (i % 4)
				ktest_rings_close(&r);
		}
		if (stop_session(&nl, s.id, &rep)) {
			printf("FAIL: cycle %d: STOP: %s (%s)\n", i, strerror(-rep.err), rep.ext);
			fails++;
		}
		if (!(i % 4)) {
			ktest_rings_drain(&r);
			ktest_rings_close(&r);
		}
	}
	if (get_info(&nl, &in, false))
		return 1;
	printf("cycles=%d failures=%d samples_seen=%llu active_after=%u ring_bytes_after=%llu "
	       "offcpu_bytes_after=%llu seconds=%.2f\n", i, fails, (unsigned long long)samples,
	       in.active, (unsigned long long)in.ring_bytes, (unsigned long long)in.offcpu_bytes,
	       (now_ns() - t0) / 1e9);
	ktest_nl_close(&nl);
	return fails || in.active || in.ring_bytes || in.offcpu_bytes ? 1 : 0;
}

/* ---- killwait ------------------------------------------------------------ */

/*
 * SIGKILLs every PID of a comma-separated list at once (owners torn down
 * concurrently), then polls GET_INFO until no session and no ring memory is
 * left.
 */
static int cmd_killwait(int argc, char **argv)
{
	int timeout_ms = argc > 2 ? atoi(argv[2]) : 3000, polls = 0, killed = 0;
	const char *list = argc > 1 ? argv[1] : "";
	struct ktest_nl nl;
	struct info before, in;
	uint64_t t0;
	char *end;

	if (open_nl(&nl) || get_info(&nl, &before, false))
		return 2;
	t0 = now_ns();
	for (const char *p = list; *p; p = *end ? end + 1 : end) {
		long pid = strtol(p, &end, 10);

		if (pid <= 0 || (*end && *end != ',')) {
			fprintf(stderr, "killwait: bad PID list '%s'\n", list);
			return 2;
		}
		if (kill((pid_t)pid, SIGKILL)) {
			perror("kill");
			return 2;
		}
		killed++;
	}
	if (!killed) {
		fprintf(stderr, "killwait: no PID\n");
		return 2;
	}
	for (;;) {
		double ms = (now_ns() - t0) / 1e6;

		if (get_info(&nl, &in, false))
			return 1;
		polls++;
		if (!in.active && !in.ring_bytes && !in.offcpu_bytes) {
			printf("killed=%d active_before=%u ring_bytes_before=%llu gone_ms=%.1f polls=%d\n",
			       killed, before.active, (unsigned long long)before.ring_bytes, ms, polls);
			return 0;
		}
		if (ms > timeout_ms) {
			printf("killed=%d still active=%u ring_bytes=%llu after %.1f ms\n", killed,
			       in.active, (unsigned long long)in.ring_bytes, ms);
			return 1;
		}
		usleep(2000);
	}
}

/* ---- limits ---------------------------------------------------------------- */

static int cmd_limits(int argc, char **argv)
{
	struct start_opts o = { .clock = SKYPROF_CLOCK_HRTIMER, .freq = 10, .pages = 8 };
	struct session s[SKYPROF_MAX_SESSIONS + 1];
	struct ktest_nl nl, other;
	struct ktest_reply rep;
	int i, fails = 0;

	(void)argc;
	(void)argv;
	if (open_nl(&nl) || open_nl(&other))
		return 1;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (start_session(&nl, &o, &s[i], NULL)) {
			printf("FAIL: session %d of %d refused\n", i + 1, SKYPROF_MAX_SESSIONS);
			return 1;
		}
	}
	printf("ok   started %d sessions\n", SKYPROF_MAX_SESSIONS);
	start_session(&nl, &o, &s[i], &rep);
	printf("%-4s session %d -> %d (%s): %s\n", rep.err == -EBUSY ? "ok" : "FAIL", i + 1,
	       rep.err, strerror(-rep.err), rep.ext);
	fails += rep.err != -EBUSY;
	ktest_reply_free(&rep);
	stop_session(&other, s[0].id, &rep);
	fails += expect_eperm("STOP from another socket", rep.err, rep.ext);
	ktest_reply_free(&rep);
	stop_session(&nl, 0x7fffffff, &rep);
	printf("%-4s STOP of unknown session -> %d (%s): %s\n",
	       rep.err == -ENOENT ? "ok" : "FAIL", rep.err, strerror(-rep.err), rep.ext);
	fails += rep.err != -ENOENT;
	ktest_reply_free(&rep);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (stop_session(&nl, s[i].id, &rep)) {
			printf("FAIL: STOP %u: %s\n", s[i].id, strerror(-rep.err));
			fails++;
		}
	}
	printf("limit_failures=%d\n", fails);
	ktest_nl_close(&other);
	ktest_nl_close(&nl);
	return fails ? 1 : 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "info", cmd_info },		{ "record", cmd_record }, { "badinput", cmd_badinput },
	{ "perm", cmd_perm },		{ "perm-mmap", cmd_perm_mmap },
	{ "cycles", cmd_cycles },	{ "limits", cmd_limits },
	{ "killwait", cmd_killwait },
};

int main(int argc, char **argv)
{
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		goto usage;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
usage:
	fprintf(stderr, "usage: skyprof-ktest info|record|badinput|perm|perm-mmap|cycles N|limits|killwait PID\n");
	return 2;
}
