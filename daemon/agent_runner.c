// SPDX-License-Identifier: GPL-2.0
/* One running profiling task; see agent_runner.h. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent_log.h"
#include "agent_queue.h"
#include "agent_runner.h"
#include "capture.h"
#include "config_agent.h"
#include "output.h"
#include "profile.h"
#include "symbolize.h"
#include "view.h"

struct agent_run {
	struct task_spec spec;
	uint32_t pid;
	const struct agent_config *cfg;
	struct upload_queue *queue;
	struct capture cap;
	bool cap_started;
	struct symbolizer *sym;
	struct profile *prof;
	struct delta_table *deltas;
	uint64_t started_ms; /* profilingStartTime: constant for the task */
	uint64_t end_ms;
	uint64_t next_flush_ms;
	uint64_t next_alive_ms;
	int error;
	bool finished;
	struct run_stats st;
};

uint64_t agent_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int on_sample(void *arg, const struct sp_sample *s)
{
	struct agent_run *r = arg;
	int e = profile_add(r->prof, s);

	if (e) {
		r->error = e;
		return e;
	}
	r->st.samples_read++;
	return 0;
}

int run_start(struct agent_run **out, const struct task_spec *spec, uint32_t pid,
	      const struct agent_config *cfg, struct upload_queue *queue, char *err, size_t errlen)
{
	struct agent_run *r = calloc(1, sizeof(*r));
	struct record_opts o = { 0 };
	struct profile_meta meta = { 0 };
	struct symbolizer_opts so = { .quiet = true };
	uint64_t now = agent_wall_ms();
	int e;

	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->spec = *spec;
	r->pid = pid;
	r->cfg = cfg;
	r->queue = queue;
	/* TARGET_NONE with a tgid: the capture keeps the target in itself, so
	 * several tasks' captures never share a target array. */
	o.target = TARGET_NONE;
	o.offcpu = spec->target == AGENT_TARGET_OFF_CPU;
	o.freq = config_oncpu_freq(cfg);
	o.clock = CLOCK_OPT_AUTO;
	o.ustack_bytes = cfg->skyprof.dwarf_bytes;
	o.max_depth = cfg->skyprof.max_depth;
	o.ring_pages = cfg->skyprof.ring_pages;
	e = capture_prepare(&r->cap, &o, pid);
	if (!e && cfg->skyprof.offcpu_min_block_ns && o.offcpu)
		r->cap.sopts.offcpu_min_ns = cfg->skyprof.offcpu_min_block_ns;
	/* The symbolizer notes the process before the session, so its maps are known. */
	if (!e) {
		r->sym = symbolizer_new(&so);
		if (r->sym)
			symbolizer_note_pid(r->sym, pid);
		meta.kind = o.offcpu ? PROFILE_OFFCPU : PROFILE_ONCPU;
		meta.freq_hz = o.offcpu ? 0 : o.freq;
		meta.start_ns = now * 1000000ull;
		r->prof = r->sym ? profile_new(&meta, r->sym) : NULL;
		r->deltas = delta_table_new();
		if (!r->prof || !r->deltas) {
			e = -ENOMEM;
			snprintf(r->cap.err, sizeof(r->cap.err), "out of memory");
		}
	}
	if (!e)
		e = capture_start(&r->cap);
	if (e) {
		snprintf(err, errlen, "%s", r->cap.err);
		run_free(r);
		return e;
	}
	r->cap_started = true;
	r->started_ms = agent_wall_ms();
	r->end_ms = task_end_ms(spec);
	/* The first flush comes early so the UI shows data soon after the task
	 * starts; then every flush_interval, as rover. */
	r->next_flush_ms =
		r->started_ms + (cfg->flush_interval_ms < 2000 ? cfg->flush_interval_ms : 2000);
	r->next_alive_ms = r->started_ms + 500;
	*out = r;
	return 0;
}

int run_pollfds(struct agent_run *r, struct pollfd *p)
{
	int n = 0;

	if (!r->cap_started)
		return 0;
	p[n++] = (struct pollfd){ .fd = ring_fd(r->cap.ring), .events = POLLIN };
	if (control_event_fd(r->cap.ctl) >= 0)
		p[n++] = (struct pollfd){ .fd = control_event_fd(r->cap.ctl), .events = POLLIN };
	return n;
}

/* Hand the new stacks to the queue as one batch. */
static void flush(struct agent_run *r, uint64_t now)
{
	struct upload_task_meta m = {
		.task_id = r->spec.task_id,
		.process_id = r->spec.process_id,
		.profiling_start_ms = r->started_ms,
		.current_ms = now,
		.offcpu = r->spec.target == AGENT_TARGET_OFF_CPU,
	};
	struct upload_totals tot;
	struct upload_batch *b;
	struct view *v;
	char what[160];
	uint64_t t0;

	if (!r->queue)
		return;
	t0 = agent_wall_ms();
	v = profile_view(r->prof);
	if (!v) {
		log_warn("task %s: out of memory symbolizing; this flush is skipped",
			 r->spec.task_id);
		return;
	}
	snprintf(what, sizeof(what), "task %.64s pid %u", r->spec.task_id, r->pid);
	b = batch_new(UPLOAD_PATH_PROFILING, what);
	if (!b || upload_collect(r->deltas, v, r->pid, &m, b, &tot)) {
		log_warn("task %s: out of memory building an upload; this flush is skipped",
			 r->spec.task_id);
		batch_free(b);
		return;
	}
	if (!b->n) {
		batch_free(b);
		return;
	}
	r->st.uploaded_count += tot.count;
	r->st.uploaded_weight += tot.weight;
	r->st.batches++;
	/* The first flush symbolizes the process's binaries and the kernel: say
	 * how long that took, it is the upload's latency. */
	log_msg(r->st.batches == 1 ? LOG_LVL_INFO : LOG_LVL_DEBUG,
		"task %s: flush: %" PRIu64 " stacks, count %" PRIu64
		", %zu bytes, symbolized in %" PRIu64 " ms",
		r->spec.task_id, tot.messages, tot.count, b->bytes, agent_wall_ms() - t0);
	r->st.dropped_batches += queue_push(r->queue, b);
}

int run_step(struct agent_run *r, uint64_t now)
{
	int e = capture_poll(&r->cap, 0, on_sample, r);

	if (e < 0 || r->error)
		return e < 0 ? e : r->error;
	if (now >= r->next_flush_ms) {
		flush(r, now);
		r->next_flush_ms = now + r->cfg->flush_interval_ms;
	}
	if (r->cap.ended)
		return 1;
	if (now >= r->end_ms)
		return 1;
	if (now >= r->next_alive_ms) {
		r->next_alive_ms = now + 500;
		if (!capture_pids_alive(&r->pid, 1))
			return 1;
	}
	return 0;
}

void run_extend(struct agent_run *r, uint64_t end_ms)
{
	if (end_ms > r->end_ms)
		r->end_ms = end_ms;
}

static void spool(struct agent_run *r, const char *dir)
{
	char base[512], path[600];
	time_t t = (time_t)(r->started_ms / 1000);
	struct tm tm;
	char when[32];

	if (mkdir(dir, 0750) && errno != EEXIST) {
		log_warn("spool: cannot create %s: %s", dir, strerror(errno));
		return;
	}
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(base, sizeof(base), "%s/%s-pid%u-%s", dir, when, r->pid,
		 r->spec.target == AGENT_TARGET_OFF_CPU ? "offcpu" : "oncpu");
	snprintf(path, sizeof(path), "%s.pb.gz", base);
	if (!output_write(r->prof, path, OUTPUT_PPROF))
		log_info("spool: wrote %s", path);
	snprintf(path, sizeof(path), "%s.svg", base);
	if (!output_write(r->prof, path, OUTPUT_SVG))
		log_info("spool: wrote %s", path);
}

void run_finish(struct agent_run *r, const char *spool_dir)
{
	struct control_cpu_stats *st = NULL;
	size_t nst = 0;
	uint64_t now;

	if (r->finished || !r->cap_started)
		return;
	r->finished = true;
	if (capture_finish(&r->cap, on_sample, r, &st, &nst))
		log_warn("task %s: stopping the session: %s", r->spec.task_id, r->cap.err);
	for (size_t i = 0; i < nst; i++) {
		r->st.module_samples += st[i].samples;
		r->st.module_drops += st[i].drops;
	}
	free(st);
	if (!nst)
		r->st.module_drops = ring_lost(r->cap.ring);
	now = agent_wall_ms();
	profile_set_duration(r->prof, (now - r->started_ms) * 1000000ull);
	flush(r, now);
	log_info("task %s %s pid %u finished after %.1f s: %" PRIu64
		 " samples read, module %" PRIu64 " samples %" PRIu64
		 " lost; uploaded count %" PRIu64 " duration %" PRIu64 " ns in %" PRIu64 " batches",
		 r->spec.task_id, task_target_name(r->spec.target), r->pid,
		 (double)(now - r->started_ms) / 1000.0, r->st.samples_read, r->st.module_samples,
		 r->st.module_drops, r->st.uploaded_count, r->st.uploaded_weight, r->st.batches);
	if (spool_dir)
		spool(r, spool_dir);
	capture_close(&r->cap);
}

void run_free(struct agent_run *r)
{
	if (!r)
		return;
	if (r->cap.ctl || r->cap.ring)
		capture_close(&r->cap);
	profile_free(r->prof);
	symbolizer_free(r->sym);
	delta_table_free(r->deltas);
	free(r);
}

const struct task_spec *run_spec(const struct agent_run *r)
{
	return &r->spec;
}

uint32_t run_pid(const struct agent_run *r)
{
	return r->pid;
}

const struct run_stats *run_get_stats(const struct agent_run *r)
{
	return &r->st;
}
