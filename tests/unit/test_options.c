// SPDX-License-Identifier: GPL-2.0
/* Option parsing of `skyprof record` and `skyprof top`. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/options.h"

static struct record_opts o;
static char err[256];

/* Parse a NULL-terminated list; argv must outlive o, hence static storage. */
#define PARSE(which, ...)                                                                          \
	({                                                                                         \
		static char *argv[] = { "cmd", __VA_ARGS__, NULL };                                \
		options_parse(which, (int)(sizeof(argv) / sizeof(argv[0])) - 1, argv, &o, err,     \
			      sizeof(err));                                                        \
	})

static void record_defaults(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_ALL);
	assert_int_equal(o.capture.freq, OPTS_DEFAULT_FREQ);
	assert_false(o.freq_given);
	assert_int_equal(o.duration_ns, 0);
	assert_int_equal(o.capture.clock, CAPTURE_CLOCK_AUTO);
	assert_int_equal(o.nr_outputs, 1);
	assert_string_equal(o.outputs[0], OPTS_DEFAULT_OUTPUT);
	assert_null(o.cmd);
}

static void record_acceptance_line(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-F", "999", "-d", "5", "-o", "p.folded", "-o",
			       "p.pb.gz", "-o", "p.svg", "--", "./workload", "-x", "3"),
			 OPTS_OK);
	assert_int_equal(o.capture.freq, 999);
	assert_true(o.freq_given);
	assert_int_equal(o.duration_ns, 5000000000ull);
	assert_int_equal(o.nr_outputs, 3);
	assert_string_equal(o.outputs[2], "p.svg");
	assert_int_equal(o.capture.target, TARGET_NONE);
	assert_non_null(o.cmd);
	assert_string_equal(o.cmd[0], "./workload");
	/* Options after the command belong to the command. */
	assert_string_equal(o.cmd[1], "-x");
	assert_string_equal(o.cmd[2], "3");
	assert_null(o.cmd[3]);
}

static void command_without_dashes(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-F", "99", "sleep", "-1"), OPTS_OK);
	assert_string_equal(o.cmd[0], "sleep");
	assert_string_equal(o.cmd[1], "-1");
}

static void pid_lists(void **state)
{
	uint32_t pids[4], nr = 0;

	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-p", "12,34", "--pid", "56,12"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_PIDS);
	assert_int_equal(o.capture.nr_pids, 3);
	assert_int_equal(o.capture.pids[0], 12);
	assert_int_equal(o.capture.pids[2], 56);

	assert_int_equal(options_parse_pids("1,2,3,4", pids, &nr, 4), 0);
	assert_int_equal(options_parse_pids("5", pids, &nr, 4), -E2BIG);
	nr = 0;
	assert_int_equal(options_parse_pids("", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids("1,", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids(",1", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids("0", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids("-3", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids("12x", pids, &nr, 4), -EINVAL);
	assert_int_equal(options_parse_pids("99999999999", pids, &nr, 4), -EINVAL);

	assert_int_equal(PARSE(OPTS_RECORD, "-p", "abc"), OPTS_ERROR);
	assert_non_null(strstr(err, "abc"));
}

static void targets_exclude_each_other(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-p", "1", "-a"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--cgroup", "/x"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "--cgroup", "/x", "-p", "3"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-a"), OPTS_OK);
	/* A command bounds a system-wide run, as perf record -a -- sleep 5. */
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--", "sleep", "5"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_ALL);
	assert_non_null(o.cmd);
	assert_int_equal(PARSE(OPTS_RECORD, "-F", "99"), OPTS_ERROR);
	assert_non_null(strstr(err, "no target"));
}

static void frequency_and_duration(void **state)
{
	uint64_t ns;

	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-F", "0"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-F", "100001"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-F", "100000"), OPTS_OK);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-F", "99hz"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-F"), OPTS_ERROR);
	assert_non_null(strstr(err, "needs a value"));

	assert_int_equal(options_parse_duration("30", &ns), 0);
	assert_int_equal(ns, 30000000000ull);
	assert_int_equal(options_parse_duration("30s", &ns), 0);
	assert_int_equal(ns, 30000000000ull);
	assert_int_equal(options_parse_duration("1.5", &ns), 0);
	assert_int_equal(ns, 1500000000ull);
	assert_int_equal(options_parse_duration("500ms", &ns), 0);
	assert_int_equal(ns, 500000000ull);
	assert_int_equal(options_parse_duration("2m", &ns), 0);
	assert_int_equal(ns, 120000000000ull);
	assert_int_equal(options_parse_duration("1h", &ns), 0);
	assert_int_equal(options_parse_duration("0", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("-5", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("5x", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("inf", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("nan", &ns), -EINVAL);
	assert_int_equal(options_parse_duration("1e30", &ns), -EINVAL);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-d", "soon"), OPTS_ERROR);
}

static void clocks_and_modes(void **state)
{
	enum capture_clock c;

	(void)state;
	assert_int_equal(options_parse_clock("perf", &c), 0);
	assert_int_equal(c, CAPTURE_CLOCK_PERF);
	assert_int_equal(options_parse_clock("hrtimer", &c), 0);
	assert_int_equal(c, CAPTURE_CLOCK_HRTIMER);
	assert_int_equal(options_parse_clock("tsc", &c), -EINVAL);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--clock", "hrtimer"), OPTS_OK);
	assert_int_equal(o.capture.clock, CAPTURE_CLOCK_HRTIMER);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--clock=bogus"), OPTS_ERROR);

	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu"), OPTS_OK);
	assert_true(o.capture.offcpu);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "-F", "99"), OPTS_ERROR);

	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--no-kernel"), OPTS_OK);
	assert_true(o.capture.no_kernel);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--no-kernel", "--no-user"), OPTS_ERROR);
}

static void offcpu_options(void **state)
{
	uint64_t ns;

	(void)state;
	assert_int_equal(options_parse_block_time("0", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(options_parse_block_time("1us", &ns), 0);
	assert_int_equal(ns, 1000);
	assert_int_equal(options_parse_block_time("2.5ms", &ns), 0);
	assert_int_equal(ns, 2500000);
	assert_int_equal(options_parse_block_time("750ns", &ns), 0);
	assert_int_equal(ns, 750);
	assert_int_equal(options_parse_block_time("1s", &ns), 0);
	assert_int_equal(ns, 1000000000);
	/* A bare number other than 0 has no unit; an hour is the most. */
	assert_int_equal(options_parse_block_time("5", &ns), -EINVAL);
	assert_int_equal(options_parse_block_time("2h", &ns), -EINVAL);
	assert_int_equal(options_parse_block_time("3601s", &ns), -EINVAL);
	assert_int_equal(options_parse_block_time("-1us", &ns), -EINVAL);
	assert_int_equal(options_parse_block_time("1 us", &ns), -EINVAL);
	assert_int_equal(options_parse_block_time("", &ns), -EINVAL);

	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "--offcpu-min=100us"), OPTS_OK);
	assert_true(o.capture.offcpu_min_given);
	assert_int_equal(o.capture.offcpu_min_ns, 100000);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "--offcpu-min", "0"), OPTS_OK);
	assert_true(o.capture.offcpu_min_given);
	assert_int_equal(o.capture.offcpu_min_ns, 0);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu"), OPTS_OK);
	assert_false(o.capture.offcpu_min_given);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu-min=1us"), OPTS_ERROR);
	assert_non_null(strstr(err, "--offcpu"));
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "--offcpu-min=1"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "--dwarf"), OPTS_ERROR);
	assert_non_null(strstr(err, "--dwarf"));

	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--budget=100"), OPTS_OK);
	assert_int_equal(o.capture.budget_pct, 100);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--budget", "0"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--budget", "101"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a"), OPTS_OK);
	assert_int_equal(o.capture.budget_pct, 0);
}

static void dwarf_sizes(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf"), OPTS_OK);
	assert_int_equal(o.capture.ustack_bytes, OPTS_DEFAULT_DWARF);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf=16384"), OPTS_OK);
	assert_int_equal(o.capture.ustack_bytes, 16384);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf=65536"), OPTS_OK);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf=65544"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf=100"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf=0"), OPTS_ERROR);
	/* Without '=' the next word is the command, not the size (as in perf). */
	assert_int_equal(PARSE(OPTS_RECORD, "--dwarf", "4096"), OPTS_OK);
	assert_int_equal(o.capture.ustack_bytes, OPTS_DEFAULT_DWARF);
	assert_string_equal(o.cmd[0], "4096");
}

/* perf's -g and --call-graph: fp is what skyprof always walks, dwarf is --dwarf. */
static void call_graphs(void **state)
{
	uint32_t b = 1;

	(void)state;
	for (int w = OPTS_RECORD; w <= OPTS_TOP; w++) {
		assert_int_equal(PARSE(w, "-a", "-g"), OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, 0);
		assert_int_equal(PARSE(w, "-g", "-a", "--call-graph", "fp"), OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, 0);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf"), OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, OPTS_DEFAULT_DWARF);
		assert_int_equal(PARSE(w, "-a", "--call-graph=dwarf,16384"), OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, 16384);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,65536"), OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, SKYPROF_USTACK_MAX);
		/* the module's limits: 8-byte words, at most USTACK_MAX */
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,65544"), OPTS_ERROR);
		assert_non_null(strstr(err, "--call-graph"));
		assert_null(strchr(err, '\n'));
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,100"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,0"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf,-8"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "lbr"), OPTS_ERROR);
		assert_non_null(strstr(err, "lbr"));
		assert_null(strchr(err, '\n'));
		assert_int_equal(PARSE(w, "-a", "--call-graph", "junk"), OPTS_ERROR);
		assert_non_null(strstr(err, "junk"));
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarfx"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", "fp,8"), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph", ""), OPTS_ERROR);
		assert_int_equal(PARSE(w, "-a", "--call-graph"), OPTS_ERROR);
		/* the last word wins, as in perf */
		assert_int_equal(PARSE(w, "-a", "--call-graph", "dwarf", "--call-graph", "fp"),
				 OPTS_OK);
		assert_int_equal(o.capture.ustack_bytes, 0);
	}
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--dwarf", "--call-graph", "fp"), OPTS_OK);
	assert_int_equal(o.capture.ustack_bytes, 0);
	/* dwarf is --dwarf: not with --offcpu */
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--offcpu", "--call-graph", "dwarf"), OPTS_ERROR);
	assert_int_equal(options_parse_call_graph("dwarf,4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(options_parse_call_graph("dwarf,4097", &b), -ERANGE);
	assert_int_equal(options_parse_call_graph("lbr", &b), -EINVAL);
}

static void outputs_and_ring(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-o", ""), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-o", "1", "-o", "2", "-o", "3", "-o", "4", "-o",
			       "5", "-o", "6", "-o", "7", "-o", "8", "-o", "9", "-o", "10", "-o",
			       "11", "-o", "12", "-o", "13", "-o", "14", "-o", "15", "-o", "16",
			       "-o", "17"),
			 OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--ring-pages", "512"), OPTS_OK);
	assert_int_equal(o.capture.ring_pages, 512);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--ring-pages", "500"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--ring-pages", "4"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--max-depth", "257"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--max-depth", "64"), OPTS_OK);
	assert_int_equal(o.capture.max_depth, 64);
}

static void no_inherit(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "--no-inherit", "--", "make"), OPTS_OK);
	assert_true(o.no_inherit);
	assert_int_equal(PARSE(OPTS_RECORD, "--", "make"), OPTS_OK);
	assert_false(o.no_inherit);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--no-inherit", "--", "make"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-p", "1", "--no-inherit"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_TOP, "-a", "--no-inherit"), OPTS_ERROR);
}

static void per_thread_and_stdout(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--per-thread", "-o", "-"), OPTS_OK);
	assert_true(o.per_thread);
	assert_string_equal(o.outputs[0], "-");
	assert_int_equal(PARSE(OPTS_RECORD, "-a"), OPTS_OK);
	assert_false(o.per_thread);
}

static void help_and_unknown(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "--help"), OPTS_HELP);
	assert_int_equal(PARSE(OPTS_RECORD, "-h"), OPTS_HELP);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "--bogus"), OPTS_ERROR);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-z"), OPTS_ERROR);
	assert_non_null(strstr(err, "-z"));
}

static void cpu_lists(void **state)
{
	uint32_t w[4], n;

	(void)state;
	assert_int_equal(options_parse_cpus("0,2-3", w, 4, &n), 0);
	assert_int_equal(w[0], 0xd);
	assert_int_equal(n, 1);
	assert_int_equal(options_parse_cpus("1", w, 4, &n), 0);
	assert_int_equal(w[0], 2);
	assert_int_equal(options_parse_cpus("33,0-1", w, 4, &n), 0);
	assert_int_equal(w[0], 3);
	assert_int_equal(w[1], 2);
	assert_int_equal(n, 2);
	assert_int_equal(options_parse_cpus("5-5", w, 4, &n), 0);
	assert_int_equal(w[0], 1u << 5);
	assert_int_equal(options_parse_cpus("127", w, 4, &n), 0);
	assert_int_equal(n, 4);
	/* Malformed, backwards, beyond the bitmap. */
	assert_int_equal(options_parse_cpus("", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("1,", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus(",1", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("3-1", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("1-", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("-1", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("a", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("1-2-3", w, 4, &n), -EINVAL);
	assert_int_equal(options_parse_cpus("128", w, 4, &n), -EINVAL);

	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-C", "0,2-3"), OPTS_OK);
	assert_int_equal(o.capture.cpus[0], 0xd);
	assert_int_equal(o.capture.nr_cpu_words, 1);
	assert_int_equal(PARSE(OPTS_RECORD, "-a"), OPTS_OK);
	assert_int_equal(o.capture.nr_cpu_words, 0);
	assert_int_equal(PARSE(OPTS_TOP, "-a", "--cpu", "1"), OPTS_OK);
	assert_int_equal(o.capture.cpus[0], 2);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-C", "x"), OPTS_ERROR);
	assert_non_null(strstr(err, "-C"));
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-C", "4096"), OPTS_ERROR);
}

static void cpus_against_the_machine(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-C", "1"), OPTS_OK);
	assert_int_equal(options_check_system(&o, "0-1", err, sizeof(err)), OPTS_OK);
	assert_int_equal(options_check_system(&o, "0", err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "no CPU 1"));
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-C", "0,99"), OPTS_OK);
	assert_int_equal(options_check_system(&o, "0-3", err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "no CPU 99"));
	assert_int_equal(options_check_system(&o, "0-63,96-127", err, sizeof(err)), OPTS_OK);
}

static void tid_lists(void **state)
{
	char self[16];
	static char *argv[] = { "cmd", "-t", NULL, NULL };

	(void)state;
	assert_int_equal(PARSE(OPTS_RECORD, "-t", "12,13", "-t", "12"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_TIDS);
	assert_int_equal(o.capture.nr_tids, 2);
	assert_int_equal(o.capture.tids[1], 13);
	/* -t restricts -p: the target stays the processes, with the threads. */
	assert_int_equal(PARSE(OPTS_RECORD, "-p", "10", "-t", "12"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_PIDS);
	assert_int_equal(o.capture.nr_tids, 1);
	assert_int_equal(PARSE(OPTS_TOP, "--tid", "7"), OPTS_OK);
	assert_int_equal(o.capture.target, TARGET_TIDS);
	assert_int_equal(PARSE(OPTS_RECORD, "-t", "abc"), OPTS_ERROR);
	assert_non_null(strstr(err, "thread ids"));
	assert_int_equal(PARSE(OPTS_RECORD, "-t", "0"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-t", "1,"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_RECORD, "-a", "-t", "5"), OPTS_ERROR);
	assert_non_null(strstr(err, "-t combines with -p only"));
	assert_int_equal(PARSE(OPTS_RECORD, "--cgroup", "/x", "-t", "5"), OPTS_ERROR);

	/* The threads must exist, and be of the -p processes. */
	snprintf(self, sizeof(self), "%d", (int)getpid());
	argv[2] = self;
	assert_int_equal(options_parse(OPTS_RECORD, 3, argv, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(options_check_system(&o, NULL, err, sizeof(err)), OPTS_OK);
	assert_int_equal(PARSE(OPTS_RECORD, "-t", "2147483647"), OPTS_OK);
	assert_int_equal(options_check_system(&o, NULL, err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "no such thread: 2147483647"));
	o.capture.nr_pids = 1;
	o.capture.pids[0] = 1;
	o.capture.nr_tids = 1;
	o.capture.tids[0] = (uint32_t)getpid();
	assert_int_equal(options_check_system(&o, NULL, err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "not in the -p processes"));
	o.capture.pids[0] = (uint32_t)getpid();
	assert_int_equal(options_check_system(&o, NULL, err, sizeof(err)), OPTS_OK);
}

static void top_options(void **state)
{
	(void)state;
	assert_int_equal(PARSE(OPTS_TOP, "-a"), OPTS_OK);
	assert_int_equal(o.delay_ns, OPTS_DEFAULT_TOP_DELAY_NS);
	assert_int_equal(PARSE(OPTS_TOP, "-p", "7", "-F", "499", "-d", "0.5", "-n", "20"), OPTS_OK);
	assert_int_equal(o.delay_ns, 500000000ull);
	assert_int_equal(o.lines, 20);
	assert_int_equal(o.capture.freq, 499);
	assert_int_equal(PARSE(OPTS_TOP, "-F", "99"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_TOP, "-a", "--", "sleep", "1"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_TOP, "-a", "-o", "x.svg"), OPTS_ERROR);
	assert_int_equal(PARSE(OPTS_TOP, "-a", "--offcpu"), OPTS_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(record_defaults),
		cmocka_unit_test(record_acceptance_line),
		cmocka_unit_test(command_without_dashes),
		cmocka_unit_test(pid_lists),
		cmocka_unit_test(targets_exclude_each_other),
		cmocka_unit_test(frequency_and_duration),
		cmocka_unit_test(clocks_and_modes),
		cmocka_unit_test(offcpu_options),
		cmocka_unit_test(dwarf_sizes),
		cmocka_unit_test(call_graphs),
		cmocka_unit_test(outputs_and_ring),
		cmocka_unit_test(no_inherit),
		cmocka_unit_test(per_thread_and_stdout),
		cmocka_unit_test(help_and_unknown),
		cmocka_unit_test(top_options),
		cmocka_unit_test(cpu_lists),
		cmocka_unit_test(cpus_against_the_machine),
		cmocka_unit_test(tid_lists),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
