// SPDX-License-Identifier: GPL-2.0
/*
 * One profiling session from the daemon's side. Everything that can be
 * refused is refused in capture_prepare(), before the session starts and
 * before a `-- CMD` child is let go, so that a bad option never costs a run.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <skyprof.h>

#include "capture/capture.h"
#include "capture/modload.h"
#include "capture/cgroup.h"
#include "lib/clock.h"

static bool pid_exists(uint32_t pid)
{
	/* EPERM: it exists, it is just not ours. */
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

bool capture_pids_alive(const uint32_t *pids, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (pid_exists(pids[i]))
			return true;
	return false;
}

bool capture_targets_alive(const struct capture_opts *o)
{
	if (o->target != TARGET_PIDS && o->target != TARGET_TIDS)
		return true;
	return o->nr_tids ? capture_pids_alive(o->tids, o->nr_tids)
			  : capture_pids_alive(o->pids, o->nr_pids);
}

/* The module filters by tgid: a thread id given to -p means its process. */
static uint32_t tgid_of(uint32_t pid)
{
	char path[64], line[256];
	uint32_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid ? tgid : pid;
}

static bool has_cap(const struct capture *c, uint32_t cap)
{
	/* A module that reports no capabilities at all gets the benefit of the doubt. */
	return !c->info.caps || (c->info.caps & cap);
}

static int resolve_clock(struct capture *c, enum capture_clock clock, uint32_t *out)
{
	switch (clock) {
	case CAPTURE_CLOCK_AUTO:
		*out = SKYPROF_CLOCK_AUTO;
		return 0;
	case CAPTURE_CLOCK_PERF:
		if (c->info.caps & SKYPROF_CAP_PERF_HW)
			*out = SKYPROF_CLOCK_PERF_HW;
		else if (has_cap(c, SKYPROF_CAP_PERF_SW))
			*out = SKYPROF_CLOCK_PERF_SW;
		else
			break;
		return 0;
	case CAPTURE_CLOCK_PERF_HW:
		*out = SKYPROF_CLOCK_PERF_HW;
		if (has_cap(c, SKYPROF_CAP_PERF_HW))
			return 0;
		snprintf(c->err, sizeof(c->err),
			 "--clock perf-hw: no hardware cycles counter here (a VM without a "
			 "PMU?); use --clock perf or auto");
		return -EOPNOTSUPP;
	case CAPTURE_CLOCK_PERF_SW:
		*out = SKYPROF_CLOCK_PERF_SW;
		if (has_cap(c, SKYPROF_CAP_PERF_SW))
			return 0;
		break;
	case CAPTURE_CLOCK_HRTIMER:
		*out = SKYPROF_CLOCK_HRTIMER;
		if (has_cap(c, SKYPROF_CAP_HRTIMER))
			return 0;
		snprintf(c->err, sizeof(c->err), "--clock hrtimer: not available in this module");
		return -EOPNOTSUPP;
	}
	snprintf(c->err, sizeof(c->err),
		 "--clock perf: this kernel has no perf events for the module (try --clock "
		 "hrtimer)");
	return -EOPNOTSUPP;
}

/* What the module must be able to do for these options. */
static int check_caps(struct capture *c, const struct capture_opts *o)
{
	if (o->offcpu && !has_cap(c, SKYPROF_CAP_OFFCPU)) {
		snprintf(c->err, sizeof(c->err),
			 "--offcpu: this module cannot trace scheduler switches on this kernel");
		return -EOPNOTSUPP;
	}
	if (o->ustack_bytes && !has_cap(c, SKYPROF_CAP_USTACK_COPY)) {
		snprintf(c->err, sizeof(c->err),
			 "--dwarf: this module cannot copy user stacks on this kernel");
		return -EOPNOTSUPP;
	}
	if (o->target == TARGET_CGROUP && !has_cap(c, SKYPROF_CAP_CGROUP)) {
		snprintf(c->err, sizeof(c->err),
			 "--cgroup: this module cannot filter by cgroup on this kernel");
		return -EOPNOTSUPP;
	}
	if (!o->offcpu && c->info.freq_max && o->freq > c->info.freq_max) {
		snprintf(c->err, sizeof(c->err), "-F %u: the module allows at most %u Hz", o->freq,
			 c->info.freq_max);
		return -EINVAL;
	}
	if (o->ring_pages && c->info.ring_pages_max && o->ring_pages > c->info.ring_pages_max) {
		snprintf(c->err, sizeof(c->err),
			 "--ring-pages %u: the module allows at most %u pages", o->ring_pages,
			 c->info.ring_pages_max);
		return -EINVAL;
	}
	return 0;
}

int capture_cmd_target(struct capture *c, const struct capture_opts *o, uint32_t cmd_tgid)
{
	struct control_session_opts *s = &c->sopts;

	if (!cmd_tgid) {
		snprintf(c->err, sizeof(c->err), "no target");
		return -EINVAL;
	}
	c->extra_tgid = cmd_tgid;
	s->tgids = &c->extra_tgid;
	s->nr_tgids = 1;
	/* As perf's inherited events: the module adds each process the
	 * command forks, at any depth, on every kernel. */
	if (o->cmd_children && (c->info.caps & SKYPROF_CAP_FOLLOW)) {
		s->flags |= SKYPROF_F_FOLLOW_FORKS;
		c->cmd_followed = true;
	}
	return 0;
}

static int resolve_targets(struct capture *c, const struct capture_opts *o, uint32_t cmd_tgid,
			   uint32_t *tgids)
{
	struct control_session_opts *s = &c->sopts;
	int ret;

	switch (o->target) {
	case TARGET_NONE:
		return capture_cmd_target(c, o, cmd_tgid);
	case TARGET_PIDS:
		for (uint32_t i = 0; i < o->nr_pids; i++) {
			if (!pid_exists(o->pids[i])) {
				snprintf(c->err, sizeof(c->err), "no such process: %u", o->pids[i]);
				return -ESRCH;
			}
			tgids[i] = tgid_of(o->pids[i]);
		}
		s->tgids = tgids;
		s->nr_tgids = o->nr_pids;
		/* -t with -p: those threads only (the module wants both lists). */
		s->tids = o->nr_tids ? o->tids : NULL;
		s->nr_tids = o->nr_tids;
		return 0;
	case TARGET_TIDS:
		s->tids = o->tids;
		s->nr_tids = o->nr_tids;
		return 0;
	case TARGET_ALL:
		/* System-wide includes kernel threads, as perf record -a does. */
		s->flags |= SKYPROF_F_KTHREADS;
		return 0;
	case TARGET_CGROUP:
		ret = cgroup_hierarchy_path(o->cgroup, NULL, c->cgroup_path, sizeof(c->cgroup_path),
					    c->err, sizeof(c->err));
		if (ret)
			return ret;
		s->cgroup = c->cgroup_path;
		return 0;
	}
	return -EINVAL;
}

int capture_prepare(struct capture *c, const struct capture_opts *o, uint32_t cmd_tgid)
{
	static uint32_t tgids[SKYPROF_MAX_TGIDS]; /* one capture per process */
	enum control_open_failure why;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = control_open(&c->ctl, &why, c->err, sizeof(c->err));
	if (ret) {
		if (why == CONTROL_NO_MODULE) {
			struct modload_state ms;
			size_t l = strlen(c->err);

			modload_state_read(&ms, NULL);
			snprintf(c->err + l, sizeof(c->err) - l, "%s", modload_hint_short(&ms));
		}
		return ret;
	}
	ret = control_get_info(c->ctl, &c->info);
	if (!ret)
		ret = control_check_abi(c->ctl, &c->info);
	if (ret) {
		snprintf(c->err, sizeof(c->err), "%s", control_error(c->ctl));
		return ret;
	}
	ret = capture_session_opts(c, o);
	if (ret)
		return ret;
	if (o->nr_cpu_words) {
		c->sopts.cpus = o->cpus;
		c->sopts.nr_cpu_words = o->nr_cpu_words;
	}
	return resolve_targets(c, o, cmd_tgid, tgids);
}

bool capture_cmd_cgroup(struct capture *c, const char *cmd_cgroup)
{
	struct control_session_opts *s = &c->sopts;

	if (c->cmd_followed || !cmd_cgroup || !c->extra_tgid ||
	    !(c->info.caps & SKYPROF_CAP_CGROUP))
		return c->cmd_by_cgroup;
	snprintf(c->cgroup_path, sizeof(c->cgroup_path), "%s", cmd_cgroup);
	s->cgroup = c->cgroup_path;
	s->tgids = NULL;
	s->nr_tgids = 0;
	c->cmd_by_cgroup = true;
	return true;
}

/*
 * The ring size when none was asked for. Frame-pointer records are a few
 * hundred bytes, and the module's default ring (SKYPROF_RING_PAGES_DEFAULT)
 * holds seconds of them. A --dwarf record carries its stack copy: at 999 Hz
 * with 8 KiB copies the default holds about 0.1 s, less than the daemon may
 * spend on its first sight of a process (maps, ELF files, CFI). Such a
 * session gets a ring that holds half a second of samples, within the
 * module's limit.
 */
static uint32_t default_ring_pages(const struct capture *c, const struct capture_opts *o)
{
	uint64_t rec, bytes, pages = SKYPROF_RING_PAGES_DEFAULT;
	uint32_t max = c->info.ring_pages_max ? c->info.ring_pages_max : SKYPROF_RING_PAGES_MAX;
	long psz = sysconf(_SC_PAGESIZE);

	if (o->offcpu || !o->ustack_bytes || !o->freq || psz <= 0)
		return 0;
	rec = sizeof(struct skyprof_sample) + sizeof(struct skyprof_user_regs) + o->ustack_bytes +
	      2 * 8 * (o->max_depth ? o->max_depth : SKYPROF_MAX_DEPTH_DEFAULT);
	bytes = (uint64_t)o->freq * rec / 2;
	while (pages * (uint64_t)psz < bytes && pages < max)
		pages *= 2;
	return pages > SKYPROF_RING_PAGES_DEFAULT && pages <= max ? (uint32_t)pages : 0;
}

int capture_session_opts(struct capture *c, const struct capture_opts *o)
{
	struct control_session_opts *s = &c->sopts;
	int ret;

	ret = check_caps(c, o);
	if (ret)
		return ret;
	memset(s, 0, sizeof(*s));
	s->mode = o->offcpu ? SKYPROF_MODE_OFFCPU : SKYPROF_MODE_ONCPU;
	ret = resolve_clock(c, o->clock, &s->clock);
	if (ret)
		return ret;
	s->freq = o->offcpu ? 0 : o->freq;
	s->has_flags = true;
	s->flags = (o->no_kernel ? 0 : SKYPROF_F_KERNEL_STACK) |
		   (o->no_user ? 0 : SKYPROF_F_USER_STACK);
	/* The module describes each sampled address space in the ring: a
	 * process is named from what the kernel knew at its samples, not from
	 * /proc later. Only where the module says it can (an older one would
	 * refuse the flag); without it the /proc path does as before. */
	if (c->info.caps & SKYPROF_CAP_SIDEBAND)
		s->flags |= SKYPROF_F_SIDEBAND;
	s->max_depth = o->max_depth;
	s->ustack_bytes = o->ustack_bytes;
	s->ring_pages = o->ring_pages ? o->ring_pages : default_ring_pages(c, o);
	s->budget_pct = o->budget_pct;
	if (o->offcpu) {
		/* The module keeps frame-pointer stacks per blocked task, no raw copies. */
		s->ustack_bytes = 0;
		s->offcpu_min_ns = o->offcpu_min_ns;
		s->has_offcpu_min = o->offcpu_min_given;
	}
	return 0;
}

int capture_start(struct capture *c)
{
	uint32_t nr_cpu_ids = c->info.nr_cpu_ids;
	int ret;

	if (c->sopts.flags & SKYPROF_F_SIDEBAND) {
		c->hold = hold_new(NULL);
		if (!c->hold) {
			snprintf(c->err, sizeof(c->err), "out of memory");
			return -ENOMEM;
		}
	}
	ret = control_session_start(c->ctl, &c->sopts, &c->sess);
	if (ret) {
		snprintf(c->err, sizeof(c->err), "%s", control_error(c->ctl));
		return ret;
	}
	/* Without events, the device hanging up still tells us the session ended. */
	if (control_subscribe_events(c->ctl))
		fprintf(stderr, "skyprof: warning: %s\n", control_error(c->ctl));
	if (!nr_cpu_ids)
		nr_cpu_ids = (uint32_t)get_nprocs_conf();
	ret = ring_open(&c->ring, c->sess.id, c->sess.token, nr_cpu_ids, c->sess.ring_data_size,
			c->err, sizeof(c->err));
	if (ret)
		return ret;
	c->start_mono_ns = clock_mono_ns();
	return 0;
}

static void on_event(void *arg, const struct control_event *e)
{
	struct capture *c = arg;

	if (e->session_id != c->sess.id)
		return;
	if (e->event == SKYPROF_EVENT_SESSION_ENDED) {
		c->ended = true;
		c->end_reason = e->end_reason;
	}
}

/* Every CPU's ring into k, through the hold when there is one. */
static int drain(struct capture *c, const struct sp_sink *k)
{
	struct ring_sink rs = { .sample = k->sample, .arg = k->arg };
	int ret;

	if (!c->hold)
		return ring_drain(c->ring, &rs);
	hold_begin(c->hold, k, clock_mono_ns());
	rs = hold_ring_sink(c->hold);
	ret = ring_drain(c->ring, &rs);
	return ret ? ret : hold_expire(c->hold);
}

/* timeout_ms, or less when the first held sample's wait ends sooner. */
static int hold_timeout(const struct capture *c, int timeout_ms)
{
	uint64_t now, dl;

	if (!c->hold || !hold_waiting(c->hold))
		return timeout_ms;
	now = clock_mono_ns();
	dl = hold_deadline(c->hold);
	if (dl <= now)
		return 0;
	if (timeout_ms >= 0 && (dl - now) / 1000000 >= (uint64_t)timeout_ms)
		return timeout_ms;
	return (int)((dl - now) / 1000000) + 1;
}

int capture_poll(struct capture *c, int timeout_ms, const struct sp_sink *k)
{
	struct pollfd pfd[2] = {
		{ .fd = ring_fd(c->ring), .events = POLLIN },
		{ .fd = control_event_fd(c->ctl), .events = POLLIN },
	};
	int n = poll(pfd, pfd[1].fd >= 0 ? 2 : 1, hold_timeout(c, timeout_ms));

	if (n < 0 && errno != EINTR) {
		snprintf(c->err, sizeof(c->err), "poll: %s", strerror(errno));
		return -errno;
	}
	if (n > 0 && pfd[1].fd >= 0 && (pfd[1].revents & POLLIN))
		control_read_events(c->ctl, on_event, c);
	if (n > 0 && (pfd[0].revents & (POLLHUP | POLLERR)) && !(pfd[0].revents & POLLIN))
		c->ended = true;
	/* Drain on every wakeup, timeouts included: the watermark may not be reached. */
	return drain(c, k);
}

/*
 * The module walks an address space a few ms after its first sample: the
 * samples still waiting at the end (a short command's last process) get the
 * rest of the hold's wait, once, while the session runs. New samples that
 * wait meanwhile do not extend it.
 */
static void wait_for_reports(struct capture *c, const struct sp_sink *k)
{
	uint64_t until = clock_mono_ns() + HOLD_WAIT_NS_DEFAULT;

	while (!c->ended && c->hold && hold_waiting(c->hold)) {
		uint64_t now = clock_mono_ns(), dl = hold_deadline(c->hold);

		if (now >= until)
			break;
		if (dl > until)
			dl = until;
		if (ring_wait(c->ring, dl > now ? (int)((dl - now) / 1000000) + 1 : 0) < 0)
			break;
		if (drain(c, k))
			break;
	}
}

int capture_finish(struct capture *c, const struct sp_sink *k, struct control_cpu_stats **stats,
		   size_t *nr_stats)
{
	int ret;

	*stats = NULL;
	*nr_stats = 0;
	drain(c, k);
	wait_for_reports(c, k);
	if (control_get_stats(c->ctl, c->sess.id, stats, nr_stats) && !c->ended)
		fprintf(stderr, "skyprof: warning: %s\n", control_error(c->ctl));
	drain(c, k);
	if (c->hold) {
		hold_begin(c->hold, k, clock_mono_ns());
		hold_flush(c->hold);
	}
	if (c->ended)
		return 0;
	ret = control_session_stop(c->ctl, c->sess.id);
	if (ret == -ENOENT)
		ret = 0; /* ended meanwhile */
	if (ret)
		snprintf(c->err, sizeof(c->err), "%s", control_error(c->ctl));
	return ret;
}

const struct hold_stats *capture_hold_stats(const struct capture *c)
{
	return c->hold ? hold_get_stats(c->hold) : NULL;
}

void capture_close(struct capture *c)
{
	ring_close(c->ring);
	c->ring = NULL;
	control_close(c->ctl); /* ends the session too, if it still runs */
	c->ctl = NULL;
	hold_free(c->hold);
	c->hold = NULL;
}
