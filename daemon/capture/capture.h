/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture: one profiling session seen from the daemon, from the options
 * to the drained samples. It opens the control channel, checks what the
 * module can do against what was asked (before anything starts), starts the
 * session, maps its rings and drains them; `record` and `top` differ only in
 * what they do with the samples and when they stop.
 */
#ifndef SKYPROF_CAPTURE_CAPTURE_H
#define SKYPROF_CAPTURE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skyprof.h>

#include "capture/control.h"
#include "capture/hold.h"
#include "capture/ring.h"

#define CAPTURE_MAX_CPUS  4096 /* highest CPU id + 1 that a CPU list may name */
#define CAPTURE_CPU_WORDS (CAPTURE_MAX_CPUS / 32)

/* Who is sampled. */
enum capture_target {
	TARGET_NONE, /* only valid with a command: then the command's tgid */
	TARGET_PIDS,
	TARGET_ALL,
	TARGET_CGROUP,
	TARGET_TIDS, /* threads alone; with pids the target stays TARGET_PIDS, restricted */
};

/* The sampling clock: "perf" means hardware cycles where the module has them, else cpu-clock. */
enum capture_clock {
	CAPTURE_CLOCK_AUTO,
	CAPTURE_CLOCK_PERF,
	CAPTURE_CLOCK_PERF_HW,
	CAPTURE_CLOCK_PERF_SW,
	CAPTURE_CLOCK_HRTIMER,
};

/*
 * What a capture is asked to do: the session's settings as the command line
 * (or the agent's configuration) gives them. The arrays and the cgroup string
 * are read again when the session starts: they must outlive capture_start.
 */
struct capture_opts {
	enum capture_target target;
	uint32_t pids[SKYPROF_MAX_TGIDS];
	uint32_t nr_pids;
	uint32_t tids[SKYPROF_MAX_TIDS]; /* only these threads */
	uint32_t nr_tids;
	uint32_t cpus[CAPTURE_CPU_WORDS]; /* bit c % 32 of word c / 32 */
	uint32_t nr_cpu_words;		  /* 0: every CPU; else words up to the highest */
	const char *cgroup;		  /* as given; see cgroup.h for the conversion */
	uint32_t freq;			  /* Hz */
	enum capture_clock clock;
	bool offcpu;
	uint64_t offcpu_min_ns;
	bool offcpu_min_given;
	uint32_t budget_pct;   /* 0: module default */
	uint32_t ustack_bytes; /* user stack copied for DWARF unwinding; 0 off */
	bool no_kernel, no_user;
	uint32_t ring_pages; /* 0: module default */
	uint32_t max_depth;  /* 0: module default */
	/* TARGET_NONE with a command: the processes it starts too, followed
	 * by the module as they fork where it can (SKYPROF_CAP_FOLLOW; else
	 * see capture_cmd_cgroup). */
	bool cmd_children;
};

struct capture {
	struct control *ctl;
	struct control_info info;
	struct control_session sess;
	struct control_session_opts sopts;
	struct ring *ring;
	/* With SKYPROF_F_SIDEBAND: samples wait there for their address
	 * space's report (capture/hold.h); NULL without. */
	struct hold *hold;
	char cgroup_path[SKYPROF_CGROUP_PATH_MAX];
	uint32_t extra_tgid; /* the `-- CMD` child, when it is the target */
	bool cmd_by_cgroup;  /* the `-- CMD` target is its cgroup: children too */
	bool cmd_followed;   /* the module follows the `-- CMD` child's forks */
	uint64_t start_mono_ns;
	bool ended; /* the module ended the session */
	uint32_t end_reason;
	char err[512];
};

/*
 * Open the control channel, check ABI and capabilities, and resolve the
 * options (clock, cgroup path, targets; cmd_tgid is the forked command's
 * tgid or 0: with o->cmd_children, c->cmd_followed says whether the module
 * follows its forks). Where the module has SKYPROF_CAP_SIDEBAND the session
 * asks for its side-band records. Nothing runs yet. 0 or -errno with the
 * message in c->err.
 */
int capture_prepare(struct capture *c, const struct capture_opts *o, uint32_t cmd_tgid);

/*
 * After capture_prepare, for a `-- CMD` whose forks the module cannot
 * follow and that was put in a cgroup of its own: cmd_cgroup (its path in
 * the hierarchy) becomes the target instead of the command's tgid when the
 * module can filter by cgroup, so the command's children count too.
 * Returns c->cmd_by_cgroup, which says whether it did.
 */
bool capture_cmd_cgroup(struct capture *c, const char *cmd_cgroup);

/*
 * The part of capture_prepare that needs only the module's GET_INFO answer
 * (c->info): capabilities against the options, the clock, the stack flags;
 * fills c->sopts except the targets. Exposed for tests.
 */
int capture_session_opts(struct capture *c, const struct capture_opts *o);

/*
 * The part of capture_prepare that makes a TARGET_NONE session's target:
 * the command's (or the agent task's) tgid, its forks followed with
 * o->cmd_children where the module can. Exposed for tests.
 */
int capture_cmd_target(struct capture *c, const struct capture_opts *o, uint32_t cmd_tgid);

/* Start the session and map its rings. 0 or -errno with c->err. */
int capture_start(struct capture *c);

/*
 * Wait up to timeout_ms for data or an event (less when a held sample's
 * wait ends sooner), then drain every CPU into k, through the hold when
 * there is one. Returns 0, the sink's nonzero result, or -errno. Sets
 * c->ended when the module ends the session (an event, or the device
 * hanging up).
 */
int capture_poll(struct capture *c, int timeout_ms, const struct sp_sink *k);

/*
 * End of run: drain what is left, give held samples the rest of their wait
 * for their reports while the session still runs, read the per-CPU
 * statistics (*stats is malloc'ed, may be NULL when the module has none),
 * hand on what still waits, stop the session. Returns 0 or -errno with
 * c->err; a session the module already ended is no error.
 */
int capture_finish(struct capture *c, const struct sp_sink *k, struct control_cpu_stats **stats,
		   size_t *nr_stats);

/* The hold's counters, NULL without side-band records. */
const struct hold_stats *capture_hold_stats(const struct capture *c);

void capture_close(struct capture *c);

/* Whether any of the pids still exists. */
bool capture_pids_alive(const uint32_t *pids, uint32_t nr);

/*
 * Whether a target named by process or thread ids has any of them left (the
 * threads, when given); true for the other targets.
 */
bool capture_targets_alive(const struct capture_opts *o);

#endif
