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

#include "capture/control.h"
#include "cli/options.h"
#include "capture/ring.h"

struct capture {
	struct control *ctl;
	struct control_info info;
	struct control_session sess;
	struct control_session_opts sopts;
	struct ring *ring;
	char cgroup_path[SKYPROF_CGROUP_PATH_MAX];
	uint32_t extra_tgid; /* the `-- CMD` child, when it is the target */
	bool cmd_by_cgroup;  /* the `-- CMD` target is its cgroup: children too */
	uint64_t start_mono_ns;
	bool ended; /* the module ended the session */
	uint32_t end_reason;
	char err[512];
};

/*
 * Open the control channel, check ABI and capabilities, and resolve the
 * options (clock, cgroup path, targets; cmd_tgid is the forked command's
 * tgid or 0). Nothing runs yet. 0 or -errno with the message in c->err.
 */
int capture_prepare(struct capture *c, const struct record_opts *o, uint32_t cmd_tgid);

/*
 * The same, for a `-- CMD` that was put in a cgroup of its own: cmd_cgroup
 * (its path in the hierarchy) is the target instead of cmd_tgid when the
 * module can filter by cgroup, so the command's children count too;
 * c->cmd_by_cgroup says which was used.
 */
int capture_prepare_cmd(struct capture *c, const struct record_opts *o, uint32_t cmd_tgid,
			const char *cmd_cgroup);

/*
 * The part of capture_prepare that needs only the module's GET_INFO answer
 * (c->info): capabilities against the options, the clock, the stack flags;
 * fills c->sopts except the targets. Exposed for tests.
 */
int capture_session_opts(struct capture *c, const struct record_opts *o);

/* Start the session and map its rings. 0 or -errno with c->err. */
int capture_start(struct capture *c);

/*
 * Wait up to timeout_ms for data or an event, then drain every CPU into fn.
 * Returns 0, the callback's nonzero result, or -errno. Sets c->ended when the
 * module ends the session (an event, or the device hanging up).
 */
int capture_poll(struct capture *c, int timeout_ms, ring_sample_fn fn, void *arg);

/*
 * End of run: drain what is left, read the per-CPU statistics (*stats is
 * malloc'ed, may be NULL when the module has none), stop the session.
 * Returns 0 or -errno with c->err; a session the module already ended is no
 * error.
 */
int capture_finish(struct capture *c, ring_sample_fn fn, void *arg,
		   struct control_cpu_stats **stats, size_t *nr_stats);

void capture_close(struct capture *c);

/* Whether any of the pids still exists. */
bool capture_pids_alive(const uint32_t *pids, uint32_t nr);

#endif
