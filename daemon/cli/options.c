// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for record and top. Only syntax and the rules between
 * options live here; what the module can do (frequency limit, capabilities)
 * is checked against GET_INFO when the session starts.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/usage.h"
#include "lib/duration.h"

__attribute__((format(printf, 3, 4))) static enum options_result fail(char *err, size_t len,
								      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return OPTS_ERROR;
}

int options_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/*
 * The next item of the comma-separated list at *p, into buf; *p moves past
 * it and its comma. 0, or -EINVAL for an empty or too long item (a trailing
 * comma included).
 */
static int list_next(const char **p, char *buf, size_t len)
{
	size_t n = strcspn(*p, ",");

	if (!n || n >= len)
		return -EINVAL;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n;
	if (**p == ',' && !*++*p)
		return -EINVAL;
	return 0;
}

int options_parse_pids(const char *s, uint32_t *pids, uint32_t *nr, uint32_t max)
{
	const char *p = s;

	if (!*p)
		return -EINVAL;
	while (*p) {
		char buf[16];
		uint32_t pid;
		bool dup = false;

		if (list_next(&p, buf, sizeof(buf)) || options_parse_u32(buf, 1, INT_MAX, &pid))
			return -EINVAL;
		for (uint32_t i = 0; i < *nr; i++)
			dup |= pids[i] == pid;
		if (!dup) {
			if (*nr >= max)
				return -E2BIG;
			pids[(*nr)++] = pid;
		}
	}
	return 0;
}

int options_parse_cpus(const char *s, uint32_t *words, uint32_t nwords, uint32_t *nr_words)
{
	const char *p = s;

	memset(words, 0, nwords * sizeof(*words));
	*nr_words = 0;
	if (!s || !*p)
		return -EINVAL;
	while (*p) {
		char buf[32], *dash;
		uint32_t lo, hi;

		if (list_next(&p, buf, sizeof(buf)))
			return -EINVAL;
		dash = strchr(buf, '-');
		if (dash)
			*dash = '\0';
		if (options_parse_u32(buf, 0, nwords * 32 - 1, &lo))
			return -EINVAL;
		hi = lo;
		if (dash && (options_parse_u32(dash + 1, 0, nwords * 32 - 1, &hi) || hi < lo))
			return -EINVAL;
		for (uint32_t c = lo; c <= hi; c++)
			words[c / 32] |= 1u << (c % 32);
		if (hi / 32 + 1 > *nr_words)
			*nr_words = hi / 32 + 1;
	}
	return 0;
}

int options_parse_duration(const char *s, uint64_t *ns)
{
	double t;

	if (duration_parse(s, DURATION_S | DURATION_MS | DURATION_M | DURATION_H, &t, NULL))
		return -EINVAL;
	/* Below 1 ms is a typo, above a year is one too. */
	if (t < 1e6 || t > 365.0 * 86400e9)
		return -EINVAL;
	*ns = (uint64_t)t;
	return 0;
}

int options_parse_block_time(const char *s, uint64_t *ns)
{
	double t;
	bool bare;

	if (duration_parse(s, DURATION_NS | DURATION_US | DURATION_MS | DURATION_S, &t, &bare))
		return -EINVAL;
	/* A number needs its unit, but for 0. */
	if ((bare && t != 0) || t > 3600e9)
		return -EINVAL;
	*ns = (uint64_t)(t + 0.5);
	return 0;
}

int options_parse_clock(const char *s, enum capture_clock *out)
{
	static const struct {
		const char *name;
		enum capture_clock clock;
	} names[] = {
		{ "auto", CAPTURE_CLOCK_AUTO },	      { "perf", CAPTURE_CLOCK_PERF },
		{ "perf-hw", CAPTURE_CLOCK_PERF_HW }, { "perf-sw", CAPTURE_CLOCK_PERF_SW },
		{ "hrtimer", CAPTURE_CLOCK_HRTIMER },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].clock;
			return 0;
		}
	return -EINVAL;
}

int options_parse_call_graph(const char *s, uint32_t *ustack_bytes)
{
	const char *size;

	if (!strcmp(s, "fp")) {
		*ustack_bytes = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return -EINVAL;
	if (!s[5]) {
		*ustack_bytes = OPTS_DEFAULT_DWARF;
		return 0;
	}
	size = s + 6;
	/* The module copies whole 8-byte words, up to its USTACK_MAX. */
	if (options_parse_u32(size, 8, SKYPROF_USTACK_MAX, ustack_bytes) || *ustack_bytes % 8)
		return -ERANGE;
	return 0;
}

enum {
	OPT_CGROUP = 256,
	OPT_CLOCK,
	OPT_OFFCPU,
	OPT_DWARF,
	OPT_NO_KERNEL,
	OPT_NO_USER,
	OPT_RING_PAGES,
	OPT_MAX_DEPTH,
	OPT_NO_INHERIT,
	OPT_OFFCPU_MIN,
	OPT_BUDGET,
	OPT_PER_THREAD,
	OPT_CALL_GRAPH,
	OPT_NO_JVM_ATTACH,
};

/* The process a thread id belongs to, 0 when there is no such thread. */
static uint32_t thread_tgid(uint32_t tid)
{
	char path[64], line[256];
	uint32_t tgid = 0;
	FILE *f;

	/* /proc/TID exists for every thread, listed in /proc or not. */
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static char *read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

enum options_result options_check_system(const struct record_opts *o, const char *possible,
					 char *err, size_t len)
{
	static uint32_t have[CAPTURE_CPU_WORDS];
	char buf[256];
	uint32_t nr;

	if (o->capture.nr_cpu_words) {
		if (!possible)
			possible = read_small_file("/sys/devices/system/cpu/possible", buf,
						   sizeof(buf));
		if (!possible || options_parse_cpus(possible, have, CAPTURE_CPU_WORDS, &nr))
			return fail(err, len, "-C: cannot read the CPUs of this machine");
		for (uint32_t c = 0; c < o->capture.nr_cpu_words * 32; c++)
			if ((o->capture.cpus[c / 32] >> (c % 32) & 1) &&
			    !(have[c / 32] >> (c % 32) & 1))
				return fail(err, len, "-C: no CPU %u here (CPUs: %s)", c, possible);
	}
	for (uint32_t i = 0; i < o->capture.nr_tids; i++) {
		uint32_t tgid = thread_tgid(o->capture.tids[i]);
		bool in = !o->capture.nr_pids;

		if (!tgid)
			return fail(err, len, "-t: no such thread: %u", o->capture.tids[i]);
		/* -p takes thread ids too, meaning their process. */
		for (uint32_t k = 0; k < o->capture.nr_pids && !in; k++)
			in = thread_tgid(o->capture.pids[k]) == tgid;
		if (!in)
			return fail(err, len, "-t: thread %u is not in the -p processes",
				    o->capture.tids[i]);
	}
	return OPTS_OK;
}

static const struct option record_long[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "all", no_argument, NULL, 'a' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "freq", required_argument, NULL, 'F' },
	{ "duration", required_argument, NULL, 'd' },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "offcpu-min", required_argument, NULL, OPT_OFFCPU_MIN },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "dwarf", optional_argument, NULL, OPT_DWARF },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "no-user", no_argument, NULL, OPT_NO_USER },
	{ "output", required_argument, NULL, 'o' },
	{ "ring-pages", required_argument, NULL, OPT_RING_PAGES },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "no-jvm-attach", no_argument, NULL, OPT_NO_JVM_ATTACH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* top: -d is the refresh delay, as in perf top; no outputs, no command. */
static const struct option top_long[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "all", no_argument, NULL, 'a' },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "freq", required_argument, NULL, 'F' },
	{ "delay", required_argument, NULL, 'd' },
	{ "lines", required_argument, NULL, 'n' },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "no-user", no_argument, NULL, OPT_NO_USER },
	{ "ring-pages", required_argument, NULL, OPT_RING_PAGES },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "no-jvm-attach", no_argument, NULL, OPT_NO_JVM_ATTACH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static enum options_result set_target(struct record_opts *o, enum capture_target t, char *err,
				      size_t len)
{
	if (o->capture.target != TARGET_NONE && o->capture.target != t)
		return fail(err, len, "-p, -a and --cgroup exclude each other: give one target");
	o->capture.target = t;
	return OPTS_OK;
}

/* -p, -t, -C, -a, --cgroup: what is sampled. */
static enum options_result target_option(int c, struct record_opts *o, char *err, size_t len)
{
	int r;

	switch (c) {
	case 'p':
		if (set_target(o, TARGET_PIDS, err, len))
			return OPTS_ERROR;
		r = options_parse_pids(optarg, o->capture.pids, &o->capture.nr_pids,
				       SKYPROF_MAX_TGIDS);
		if (r == -E2BIG)
			return fail(err, len, "-p: at most %d processes", SKYPROF_MAX_TGIDS);
		if (r)
			return fail(err, len,
				    "-p: '%s' is not a list of process ids (PID[,PID...])", optarg);
		return OPTS_OK;
	case 't':
		r = options_parse_pids(optarg, o->capture.tids, &o->capture.nr_tids,
				       SKYPROF_MAX_TIDS);
		if (r == -E2BIG)
			return fail(err, len, "-t: at most %d threads", SKYPROF_MAX_TIDS);
		if (r)
			return fail(err, len, "-t: '%s' is not a list of thread ids (TID[,TID...])",
				    optarg);
		return OPTS_OK;
	case 'C':
		if (options_parse_cpus(optarg, o->capture.cpus, CAPTURE_CPU_WORDS,
				       &o->capture.nr_cpu_words))
			return fail(err, len,
				    "-C: '%s' is not a list of CPUs (e.g. 0,2-3; each below %d)",
				    optarg, CAPTURE_MAX_CPUS);
		return OPTS_OK;
	case 'a':
		return set_target(o, TARGET_ALL, err, len);
	case OPT_CGROUP:
		if (set_target(o, TARGET_CGROUP, err, len))
			return OPTS_ERROR;
		if (!*optarg)
			return fail(err, len, "--cgroup: empty path");
		o->capture.cgroup = optarg;
		return OPTS_OK;
	default:
		return fail(err, len, "unknown option");
	}
}

/* How it is sampled: rate, clock, stacks, off-CPU, ring. */
static enum options_result sampling_option(int c, struct record_opts *o, char *err, size_t len)
{
	int r;

	switch (c) {
	case 'F':
		if (options_parse_u32(optarg, SKYPROF_FREQ_MIN, SKYPROF_FREQ_MAX, &o->capture.freq))
			return fail(err, len, "-F: '%s' is not a frequency in %d..%d Hz", optarg,
				    SKYPROF_FREQ_MIN, SKYPROF_FREQ_MAX);
		o->freq_given = true;
		return OPTS_OK;
	case OPT_CLOCK:
		if (options_parse_clock(optarg, &o->capture.clock))
			return fail(err, len,
				    "--clock: '%s' is not one of auto, perf, perf-hw, perf-sw, "
				    "hrtimer",
				    optarg);
		return OPTS_OK;
	case OPT_OFFCPU:
		o->capture.offcpu = true;
		return OPTS_OK;
	case OPT_OFFCPU_MIN:
		if (options_parse_block_time(optarg, &o->capture.offcpu_min_ns))
			return fail(
				err, len,
				"--offcpu-min: '%s' is not a block time (0, or e.g. 500ns, 1us, "
				"2ms; at most 1 h)",
				optarg);
		o->capture.offcpu_min_given = true;
		return OPTS_OK;
	case OPT_BUDGET:
		if (options_parse_u32(optarg, 1, 100, &o->capture.budget_pct))
			return fail(err, len, "--budget: '%s' is not a percentage in 1..100",
				    optarg);
		return OPTS_OK;
	case OPT_DWARF:
		o->capture.ustack_bytes = OPTS_DEFAULT_DWARF;
		if (optarg &&
		    (options_parse_u32(optarg, 8, SKYPROF_USTACK_MAX, &o->capture.ustack_bytes) ||
		     o->capture.ustack_bytes % 8))
			return fail(err, len,
				    "--dwarf: '%s' is not a stack copy size (a multiple of 8 up to "
				    "%d bytes)",
				    optarg, SKYPROF_USTACK_MAX);
		return OPTS_OK;
	case 'g':
		/* perf's -g: a call graph, which skyprof always records (fp) */
		return OPTS_OK;
	case OPT_CALL_GRAPH:
		r = options_parse_call_graph(optarg, &o->capture.ustack_bytes);
		if (r == -ERANGE)
			return fail(
				err, len,
				"--call-graph: '%s': the size is a multiple of 8 up to %d bytes",
				optarg, SKYPROF_USTACK_MAX);
		if (r)
			return fail(err, len, "--call-graph: '%s' is not fp, dwarf or dwarf,SIZE%s",
				    optarg,
				    !strncmp(optarg, "lbr", 3) ? " (skyprof has no LBR unwinding)"
							       : "");
		return OPTS_OK;
	case OPT_NO_KERNEL:
		o->capture.no_kernel = true;
		return OPTS_OK;
	case OPT_NO_USER:
		o->capture.no_user = true;
		return OPTS_OK;
	case OPT_RING_PAGES:
		if (options_parse_u32(optarg, SKYPROF_RING_PAGES_MIN, SKYPROF_RING_PAGES_MAX,
				      &o->capture.ring_pages) ||
		    !is_pow2(o->capture.ring_pages))
			return fail(err, len, "--ring-pages: '%s' is not a power of two in %d..%d",
				    optarg, SKYPROF_RING_PAGES_MIN, SKYPROF_RING_PAGES_MAX);
		return OPTS_OK;
	case OPT_MAX_DEPTH:
		if (options_parse_u32(optarg, 1, SKYPROF_MAX_DEPTH, &o->capture.max_depth))
			return fail(err, len, "--max-depth: '%s' is not a depth in 1..%d", optarg,
				    SKYPROF_MAX_DEPTH);
		return OPTS_OK;
	default:
		return fail(err, len, "unknown option");
	}
}

/* One option; the rules between options are checked after the loop. */
static enum options_result one_option(enum options_cmd which, int c, struct record_opts *o,
				      char *err, size_t len)
{
	switch (c) {
	case 'p':
	case 't':
	case 'C':
	case 'a':
	case OPT_CGROUP:
		return target_option(c, o, err, len);
	case 'h':
		return OPTS_HELP;
	case 'd':
		if (which == OPTS_TOP) {
			if (options_parse_duration(optarg, &o->delay_ns))
				return fail(err, len,
					    "-d: '%s' is not a refresh delay (e.g. 2, 0.5s)",
					    optarg);
			return OPTS_OK;
		}
		if (options_parse_duration(optarg, &o->duration_ns))
			return fail(err, len,
				    "-d: '%s' is not a duration (e.g. 30, 30s, 2m, 500ms)", optarg);
		return OPTS_OK;
	case 'n':
		if (options_parse_u32(optarg, 1, 10000, &o->lines))
			return fail(err, len, "-n: '%s' is not a line count", optarg);
		return OPTS_OK;
	case OPT_NO_INHERIT:
		o->no_inherit = true;
		return OPTS_OK;
	case OPT_PER_THREAD:
		o->per_thread = true;
		return OPTS_OK;
	case OPT_NO_JVM_ATTACH:
		o->no_jvm_attach = true;
		return OPTS_OK;
	case 'o':
		if (o->nr_outputs == OPTS_MAX_OUTPUTS)
			return fail(err, len, "-o: at most %d outputs", OPTS_MAX_OUTPUTS);
		if (!*optarg)
			return fail(err, len, "-o: empty file name");
		o->outputs[o->nr_outputs++] = optarg;
		return OPTS_OK;
	default:
		return sampling_option(c, o, err, len);
	}
}

static enum options_result check_rules(enum options_cmd which, struct record_opts *o, char *err,
				       size_t len)
{
	if (o->capture.no_kernel && o->capture.no_user)
		return fail(err, len, "--no-kernel and --no-user together leave nothing to record");
	if (o->capture.nr_tids) {
		/* As perf's -t: only those threads; -p then says whose threads they are. */
		if (o->capture.target == TARGET_ALL || o->capture.target == TARGET_CGROUP)
			return fail(err, len, "-t combines with -p only, not with -a or --cgroup");
		if (o->capture.target == TARGET_NONE)
			o->capture.target = TARGET_TIDS;
	}
	if (o->capture.offcpu && o->freq_given)
		return fail(err, len, "-F has no meaning with --offcpu (it records every block)");
	if (o->capture.offcpu_min_given && !o->capture.offcpu)
		return fail(err, len, "--offcpu-min needs --offcpu");
	if (o->capture.offcpu && o->capture.ustack_bytes)
		return fail(err, len,
			    "--dwarf (--call-graph dwarf) does not combine with --offcpu (stacks "
			    "are kept per blocked "
			    "task; frame pointers only)");
	if (which == OPTS_TOP) {
		if (o->cmd)
			return fail(err, len, "top takes no command; use `skyprof record -- CMD`");
		if (o->capture.target == TARGET_NONE)
			return fail(err, len,
				    "no target: give -p PID, -t TID, -a or --cgroup PATH");
		return OPTS_OK;
	}
	if (o->capture.target == TARGET_NONE && !o->cmd)
		return fail(err, len,
			    "no target: give -p PID, -t TID, -a, --cgroup PATH or -- CMD");
	if (o->no_inherit && (o->capture.target != TARGET_NONE || !o->cmd))
		return fail(err, len, "--no-inherit is about -- CMD as the only target");
	if (!o->nr_outputs)
		o->outputs[o->nr_outputs++] = OPTS_DEFAULT_OUTPUT;
	return OPTS_OK;
}

enum options_result options_parse(enum options_cmd which, int argc, char **argv,
				  struct record_opts *o, char *err, size_t errlen)
{
	const struct option *longopts = which == OPTS_TOP ? top_long : record_long;
	const char *shortopts = which == OPTS_TOP ? "+:p:t:C:aF:d:n:gh" : "+:p:t:C:aF:d:o:gh";
	enum options_result r;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->capture.freq = OPTS_DEFAULT_FREQ;
	o->delay_ns = OPTS_DEFAULT_TOP_DELAY_NS;
	err[0] = '\0';

	optind = 0; /* glibc: full reinitialisation, so tests can parse repeatedly */
	opterr = 0; /* our messages, one line each */
	while ((idx = -1, c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		if (c == ':' || c == '?') {
			usage_getopt_message(c, argc, argv, err, errlen);
			return OPTS_ERROR;
		}
		r = one_option(which, c, o, err, errlen);
		if (r != OPTS_OK)
			return r;
	}
	/* Whatever follows the options (after "--" or not) is the command. */
	if (optind < argc)
		o->cmd = &argv[optind];
	return check_rules(which, o, err, errlen);
}
