// SPDX-License-Identifier: GPL-2.0
/*
 * From parsed options to the SESSION_START attributes, against what the
 * module said it can do: every refusal happens here, before a session or a
 * command starts, with a message that names the option.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture/capture.h"

static struct capture c;
static struct capture_opts o;

static void module(uint32_t caps)
{
	memset(&c, 0, sizeof(c));
	c.info.abi_version = SKYPROF_ABI_VERSION;
	c.info.caps = caps;
	c.info.freq_max = SKYPROF_FREQ_MAX;
	c.info.ring_pages_max = SKYPROF_RING_PAGES_MAX;
	memset(&o, 0, sizeof(o));
	o.target = TARGET_ALL;
	o.freq = 99;
}

static const uint32_t ALL_CAPS = SKYPROF_CAP_PERF_HW | SKYPROF_CAP_PERF_SW | SKYPROF_CAP_HRTIMER |
				 SKYPROF_CAP_OFFCPU | SKYPROF_CAP_USTACK_COPY | SKYPROF_CAP_CGROUP;

static void defaults(void **state)
{
	(void)state;
	module(ALL_CAPS);
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.mode, SKYPROF_MODE_ONCPU);
	assert_int_equal(c.sopts.clock, SKYPROF_CLOCK_AUTO);
	assert_int_equal(c.sopts.freq, 99);
	assert_true(c.sopts.has_flags);
	assert_int_equal(c.sopts.flags, SKYPROF_F_KERNEL_STACK | SKYPROF_F_USER_STACK);
	assert_int_equal(c.sopts.ustack_bytes, 0);
	assert_int_equal(c.sopts.ring_pages, 0);
}

static void clocks(void **state)
{
	(void)state;
	module(ALL_CAPS);
	o.clock = CAPTURE_CLOCK_PERF;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.clock, SKYPROF_CLOCK_PERF_HW);

	/* A guest without a PMU: perf means cpu-clock, perf-hw is refused. */
	module(SKYPROF_CAP_PERF_SW | SKYPROF_CAP_HRTIMER);
	o.clock = CAPTURE_CLOCK_PERF;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.clock, SKYPROF_CLOCK_PERF_SW);
	o.clock = CAPTURE_CLOCK_PERF_HW;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "perf-hw"));
	o.clock = CAPTURE_CLOCK_HRTIMER;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.clock, SKYPROF_CLOCK_HRTIMER);

	/* No perf events at all. */
	module(SKYPROF_CAP_HRTIMER);
	o.clock = CAPTURE_CLOCK_PERF;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "hrtimer"));
	o.clock = CAPTURE_CLOCK_PERF_SW;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	module(SKYPROF_CAP_PERF_SW);
	o.clock = CAPTURE_CLOCK_HRTIMER;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "--clock hrtimer"));
}

static void capabilities(void **state)
{
	(void)state;
	module(SKYPROF_CAP_PERF_SW);
	o.offcpu = true;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "--offcpu"));
	o.offcpu = false;
	o.ustack_bytes = 4096;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "--dwarf"));
	o.ustack_bytes = 0;
	o.target = TARGET_CGROUP;
	assert_int_equal(capture_session_opts(&c, &o), -EOPNOTSUPP);
	assert_non_null(strstr(c.err, "--cgroup"));

	module(ALL_CAPS);
	o.offcpu = true;
	o.ustack_bytes = 4096;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.mode, SKYPROF_MODE_OFFCPU);
	assert_int_equal(c.sopts.freq, 0);
	/* Off-CPU sessions keep frame-pointer stacks only: no raw copy asked. */
	assert_int_equal(c.sopts.ustack_bytes, 0);
	assert_false(c.sopts.has_offcpu_min);
	o.offcpu_min_ns = 0;
	o.offcpu_min_given = true;
	o.budget_pct = 100;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_true(c.sopts.has_offcpu_min);
	assert_int_equal(c.sopts.offcpu_min_ns, 0);
	assert_int_equal(c.sopts.budget_pct, 100);
	o.offcpu_min_given = false;
	o.budget_pct = 0;

	/* A module that reports no capabilities is not second-guessed. */
	module(0);
	o.offcpu = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
}

static void limits_and_flags(void **state)
{
	(void)state;
	module(ALL_CAPS);
	c.info.freq_max = 1000;
	o.freq = 1001;
	assert_int_equal(capture_session_opts(&c, &o), -EINVAL);
	assert_non_null(strstr(c.err, "at most 1000 Hz"));
	o.freq = 1000;
	assert_int_equal(capture_session_opts(&c, &o), 0);

	c.info.ring_pages_max = 64;
	o.ring_pages = 128;
	assert_int_equal(capture_session_opts(&c, &o), -EINVAL);
	o.ring_pages = 64;
	o.max_depth = 32;
	o.no_kernel = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.ring_pages, 64);
	assert_int_equal(c.sopts.max_depth, 32);
	assert_int_equal(c.sopts.flags, SKYPROF_F_USER_STACK);
	o.no_kernel = false;
	o.no_user = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.flags, SKYPROF_F_KERNEL_STACK);
}

/* --dwarf without --ring-pages: a ring for half a second of samples. */
static void dwarf_ring(void **state)
{
	(void)state;
	module(ALL_CAPS);
	o.freq = 999;
	o.ustack_bytes = 8192;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	/* 999 x (8192 + record, regs, 2 x 127 frames) / 2 = 5.6 MB: 2048 pages */
	assert_int_equal(c.sopts.ring_pages, 2048);
	o.freq = 99; /* 0.56 MB: the default 256 pages hold it */
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.ring_pages, 0);
	o.freq = 9999; /* capped to what the module allows */
	c.info.ring_pages_max = 4096;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.ring_pages, 4096);
	o.ring_pages = 512; /* asked for: kept */
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.ring_pages, 512);
	o.ring_pages = 0;
	o.ustack_bytes = 0; /* frame pointers: the module's default */
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(c.sopts.ring_pages, 0);
}

/* A pid or tid target ends when none of its ids is left; the others never do. */
static void targets_alive(void **state)
{
	struct capture_opts t = { .target = TARGET_PIDS, .nr_pids = 1 };
	pid_t gone = fork();

	(void)state;
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	t.pids[0] = (uint32_t)gone;
	assert_false(capture_targets_alive(&t));
	t.pids[0] = (uint32_t)getpid();
	assert_true(capture_targets_alive(&t));
	/* With threads given, the threads decide. */
	t.tids[0] = (uint32_t)gone;
	t.nr_tids = 1;
	assert_false(capture_targets_alive(&t));
	t.target = TARGET_TIDS;
	assert_false(capture_targets_alive(&t));
	t.tids[0] = (uint32_t)getpid();
	assert_true(capture_targets_alive(&t));
	t.target = TARGET_ALL;
	t.tids[0] = (uint32_t)gone;
	assert_true(capture_targets_alive(&t));
}

/*
 * A module that reports address spaces gets asked for them in every
 * session, on-CPU and off-CPU; an older one is not (it would refuse the
 * flag) and works as before.
 */
static void sideband_where_the_module_has_it(void **state)
{
	(void)state;
	module(ALL_CAPS | SKYPROF_CAP_SIDEBAND);
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_true(c.sopts.flags & SKYPROF_F_SIDEBAND);
	o.offcpu = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_true(c.sopts.flags & SKYPROF_F_SIDEBAND);
	module(ALL_CAPS);
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_false(c.sopts.flags & SKYPROF_F_SIDEBAND);
	/* no caps reported at all: no benefit of the doubt for a new flag */
	module(0);
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_false(c.sopts.flags & SKYPROF_F_SIDEBAND);
}

/*
 * record -- CMD: the command's forks followed by the module where it can;
 * else its cgroup where the module filters by cgroup; else the command's
 * own process. --no-inherit (cmd_children false) keeps it to that.
 */
static void cmd_target(void **state)
{
	(void)state;
	module(ALL_CAPS | SKYPROF_CAP_FOLLOW);
	o.target = TARGET_NONE;
	o.cmd_children = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(capture_cmd_target(&c, &o, 4321), 0);
	assert_true(c.cmd_followed);
	assert_true(c.sopts.flags & SKYPROF_F_FOLLOW_FORKS);
	assert_int_equal(c.sopts.nr_tgids, 1);
	assert_int_equal(c.sopts.tgids[0], 4321);
	assert_false(capture_cmd_cgroup(&c, "/skyprof-record.1"));
	assert_null(c.sopts.cgroup);

	module(ALL_CAPS);
	o.target = TARGET_NONE;
	o.cmd_children = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(capture_cmd_target(&c, &o, 4321), 0);
	assert_false(c.cmd_followed);
	assert_false(c.sopts.flags & SKYPROF_F_FOLLOW_FORKS);
	assert_true(capture_cmd_cgroup(&c, "/skyprof-record.1"));
	assert_string_equal(c.sopts.cgroup, "/skyprof-record.1");
	assert_int_equal(c.sopts.nr_tgids, 0);

	module(ALL_CAPS & ~SKYPROF_CAP_CGROUP);
	o.target = TARGET_NONE;
	o.cmd_children = true;
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(capture_cmd_target(&c, &o, 4321), 0);
	assert_false(capture_cmd_cgroup(&c, "/skyprof-record.1"));
	assert_int_equal(c.sopts.nr_tgids, 1);

	module(ALL_CAPS | SKYPROF_CAP_FOLLOW);
	o.target = TARGET_NONE; /* --no-inherit, or an agent task */
	assert_int_equal(capture_session_opts(&c, &o), 0);
	assert_int_equal(capture_cmd_target(&c, &o, 4321), 0);
	assert_false(c.cmd_followed);
	assert_false(c.sopts.flags & SKYPROF_F_FOLLOW_FORKS);
	assert_int_equal(capture_cmd_target(&c, &o, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sideband_where_the_module_has_it),
		cmocka_unit_test(cmd_target),
		cmocka_unit_test(defaults),
		cmocka_unit_test(clocks),
		cmocka_unit_test(capabilities),
		cmocka_unit_test(limits_and_flags),
		cmocka_unit_test(dwarf_ring),
		cmocka_unit_test(targets_alive),
	};

	return cmocka_run_group_tests_name("capture", tests, NULL, NULL);
}
