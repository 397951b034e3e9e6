// SPDX-License-Identifier: GPL-2.0
/* One running profiling task; see runner.h. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/flush.h"
#include "agent/log.h"
#include "agent/queue.h"
#include "agent/runner.h"
#include "capture/capture.h"
#include "capture/sideband.h"
#include "agent/config.h"
#include "output/output.h"
#include "proc/aspace.h"
#include "proc/jvm_ask.h"
#include "proc/table.h"
#include "lib/clock.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "profile/view.h"
#include "profile/view_build.h"
#include "sym/symbolizer.h"

/* The flush worker's side of a run: only the worker touches it once the run
 * has started (the queue hand-over orders the accesses). */
struct run_sink {
	struct task_spec spec;
	uint32_t pid;
	struct upload_queue *queue;
	struct symbolizer *sym;
	struct profile *prof; /* every sample so far */
	struct view view;     /* prof symbolized, built again at each flush */
	struct delta_table *deltas;
	uint64_t started_ms; /* profilingStartTime: constant for the task */
	uint64_t uploaded_count, uploaded_weight, batches, dropped_batches;
};

/* A report of the task's process's address space, for the worker's table,
 * in the generation the drain side's ingest gave it. */
struct run_report {
	struct sp_report *r; /* hold_report_dup's */
	uint16_t gen;
};

/* Reports the drain side took since the last flush that the worker got. */
struct run_reports {
	struct run_report *v;
	size_t n, cap;
};

/* One flush for the worker: the samples since the previous one. */
struct flush_req {
	struct run_sink *k;
	struct run_reports reports; /* applied before the samples */
	struct profile *pend;
	uint64_t now_ms;
	bool final;
	struct run_stats st; /* the final one: the drain side's numbers */
	const char *spool_dir;
};

struct agent_run {
	struct task_spec spec;
	uint32_t pid;
	const struct agent_config *cfg;
	struct flush_worker *worker;
	struct capture cap;
	bool cap_started;
	struct run_sink *sink; /* NULL once the last flush took it */
	/* The last flush's request, allocated at the start: the last flush
	 * frees the sink, so it must never fail for want of memory while
	 * earlier flushes of the task may still wait for the worker. */
	struct flush_req *final_req;
	struct profile_meta meta;
	struct profile *pend; /* samples since the last flush */
	/* Samples come in here, in time order: pid's exec generations are
	 * followed by the image's identity (the worker's symbolizer captures a
	 * new generation when it first meets it), and DWARF unwinding has a
	 * symbolizer of its own: the worker's is busy symbolizing meanwhile. */
	struct ingest *in;
	struct symbolizer *dsym;
	struct sp_sink cap_sink; /* on_sample, on_report */
	struct run_reports reports;
	/* The process, if a JVM, asked for its perf map (here, on the drain
	 * thread: the requests never wait); each answer goes to the worker's
	 * symbolizer as a job. NULL: skyprof.jvm_attach off. */
	struct jvm_ask *ask;
	uint16_t gen; /* of the last sample */
	uint64_t end_ms;
	uint64_t next_flush_ms;
	uint64_t next_alive_ms;
	uint64_t last_step_ms;
	int error;
	bool finished;
	bool process_exited;
	struct run_stats st;
};

static int on_sample(void *arg, const struct sp_sample *s)
{
	struct agent_run *r = arg;
	uint16_t gen;
	int e;

	e = ingest_sample(r->in, r->pend, s);
	if (e < 0) {
		r->error = e;
		return e;
	}
	gen = (uint16_t)e;
	if (s->tgid == r->pid && gen != r->gen) {
		r->gen = gen;
		log_info("task %s: pid %u exec'd (now %.16s): its later samples "
			 "symbolize in the new image",
			 r->spec.task_id, r->pid, s->comm);
	}
	r->st.samples_read++;
	return 0;
}

static void reports_free(struct run_reports *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].r);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/*
 * A report of the task's process, for the worker's table (its symbolizer
 * opens the files the report names). Its generation is the drain side's,
 * so that the samples of this address space resolve in it there too.
 */
static int on_report(void *arg, const struct sp_report *rep)
{
	struct agent_run *r = arg;
	struct run_reports *v = &r->reports;
	int gen = ingest_report(r->in, rep);

	if (gen < 0) {
		r->error = gen;
		return gen;
	}
	if (rep->as.tgid != r->pid)
		return 0;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct run_report *n = realloc(v->v, cap * sizeof(*n));

		if (!n)
			return 0; /* its samples fall back to /proc on the worker */
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n].r = hold_report_dup(rep);
	if (v->v[v->n].r)
		v->v[v->n++].gen = (uint16_t)gen;
	return 0;
}

/* Worker: the reports into the worker's table, before their samples. */
static void apply_reports(struct run_sink *k, struct run_reports *v)
{
	struct proc_table *t = symbolizer_procs(k->sym);

	for (size_t i = 0; i < v->n; i++) {
		const struct sp_report *rep = v->v[i].r;
		struct proc_gen *g =
			proc_aspace_gen(t, k->pid, rep->as.as_id, v->v[i].gen, rep->as.first_ns);

		if (g && proc_aspace_report(t, g, rep))
			log_warn("task %s: out of memory taking the module's mappings",
				 k->spec.task_id);
	}
	reports_free(v);
}

/* Worker: a JVM's answer into the task's symbolizer. */
struct answer_job {
	struct run_sink *k;
	uint32_t pid;
	size_t n;
	struct jvm_method m[]; /* Compiler.codelist's; none: the map was written */
};

static void answer_job(void *arg)
{
	struct answer_job *a = arg;

	if (a->n)
		symbolizer_jit_add(a->k->sym, a->pid, a->m, a->n);
	else
		symbolizer_jit_reread(a->k->sym, a->pid);
	for (size_t i = 0; i < a->n; i++)
		free((char *)a->m[i].name);
	free(a);
}

static void on_jvm_answer(void *arg, uint32_t pid, const struct jvm_method *m, size_t n)
{
	struct agent_run *r = arg;
	struct answer_job *a;

	if (!r->sink)
		return;
	a = calloc(1, sizeof(*a) + n * sizeof(*m));
	if (!a)
		return;
	a->k = r->sink;
	a->pid = pid;
	for (size_t i = 0; i < n; i++) {
		a->m[i] = m[i];
		a->m[i].name = strdup(m[i].name);
		if (!a->m[i].name)
			break;
		a->n++;
	}
	/* Jobs run in order: this one before the task's last flush. If the
	 * worker is behind, the names wait for the next answer. */
	if (!flush_worker_submit(r->worker, answer_job, a, 0, false)) {
		for (size_t i = 0; i < a->n; i++)
			free((char *)a->m[i].name);
		free(a);
	}
}

static void on_jvm_line(void *arg, const char *line)
{
	struct agent_run *r = arg;

	log_info("task %s: %s", r->spec.task_id, line);
}

static void sink_free(struct run_sink *k)
{
	if (!k)
		return;
	view_free(&k->view);
	profile_free(k->prof);
	symbolizer_free(k->sym);
	upload_deltas_free(k->deltas);
	free(k);
}

/*
 * Worker, at the task's start: load what the first flush needs anyway (the
 * kernel's symbol table, the symbols of each binary the process maps), so
 * that its symbolization, which is slow (every binary's symbols are read),
 * overlaps the first flush interval (or, locally, the task) instead of
 * following it.
 */
static void warm_job(void *arg)
{
	struct run_sink *k = arg;
	uint64_t t0 = clock_wall_ms();
	struct proc_gen *g = proc_table_newest(symbolizer_procs(k->sym), k->pid);
	size_t n = g ? g->nr_maps : 0;
	struct sym_result r;

	symbolizer_resolve(k->sym, 0, 0, true, &r);
	/* by index: a lookup may re-read the maps and grow the array */
	for (size_t i = 0; i < n; i++)
		symbolizer_resolve(k->sym, k->pid, g->maps[i]->start, false, &r);
	log_debug("task %s: symbols of the kernel and %zu mappings loaded in %" PRIu64 " ms",
		  k->spec.task_id, n, clock_wall_ms() - t0);
}

int runner_start(struct agent_run **out, const struct task_spec *spec, uint32_t pid,
		 const struct agent_config *cfg, struct upload_queue *queue,
		 struct flush_worker *worker, char *err, size_t errlen)
{
	struct agent_run *r = calloc(1, sizeof(*r));
	struct run_sink *k = calloc(1, sizeof(*k));
	struct capture_opts o = { 0 };
	struct symbolizer_opts so = { .quiet = true };
	uint64_t now = clock_wall_ms();
	int e;

	*out = NULL;
	if (!r || !k) {
		free(r);
		free(k);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->spec = *spec;
	r->pid = pid;
	r->cfg = cfg;
	r->cap_sink = (struct sp_sink){ .sample = on_sample, .report = on_report, .arg = r };
	r->worker = worker;
	r->sink = k;
	r->final_req = calloc(1, sizeof(*r->final_req));
	k->spec = *spec;
	k->pid = pid;
	k->queue = queue;
	/* TARGET_NONE with a tgid: the capture keeps the target in itself, so
	 * several tasks' captures never share a target array. */
	o.target = TARGET_NONE;
	o.offcpu = spec->target == AGENT_TARGET_OFF_CPU;
	o.freq = config_oncpu_freq(cfg);
	o.clock = CAPTURE_CLOCK_AUTO;
	o.ustack_bytes = cfg->skyprof.dwarf_bytes;
	o.max_depth = cfg->skyprof.max_depth;
	o.ring_pages = cfg->skyprof.ring_pages;
	e = capture_prepare(&r->cap, &o, pid);
	if (!e && cfg->skyprof.offcpu_min_block_ns && o.offcpu)
		r->cap.sopts.offcpu_min_ns = cfg->skyprof.offcpu_min_block_ns;
	/* The symbolizers note the process before the session, so its maps are known. */
	if (!e) {
		k->sym = symbolizer_new(&so);
		if (k->sym)
			symbolizer_note_pid(k->sym, pid);
		if (o.ustack_bytes) {
			r->dsym = symbolizer_new(&so);
			if (r->dsym)
				symbolizer_note_pid(r->dsym, pid);
		}
		if (cfg->skyprof.jvm_attach) {
			struct jvm_ask_hooks h = { .arg = r,
						   .say = on_jvm_line,
						   .answered = on_jvm_answer };

			r->ask = jvm_ask_new(NULL, &h);
			if (r->ask)
				jvm_ask_add(r->ask, pid, 0);
		}
		r->in = ingest_new(NULL, r->dsym);
		if (r->in) {
			ingest_only(r->in, pid);
			/* the image the worker's symbolizer captured: generation 0 */
			ingest_note(r->in, pid);
		}
		r->meta.kind = o.offcpu ? PROFILE_OFFCPU : PROFILE_ONCPU;
		r->meta.freq_hz = o.offcpu ? 0 : o.freq;
		r->meta.start_ns = now * 1000000ull;
		k->prof = profile_new(&r->meta);
		r->pend = profile_new(&r->meta);
		k->deltas = upload_deltas_new();
		if (!k->sym || !k->prof || view_init(&k->view, &r->meta) || !r->pend ||
		    !k->deltas || !r->final_req || !r->in || (o.ustack_bytes && !r->dsym)) {
			e = -ENOMEM;
			snprintf(r->cap.err, sizeof(r->cap.err), "out of memory");
		}
	}
	if (!e)
		e = capture_start(&r->cap);
	if (e) {
		snprintf(err, errlen, "%s", r->cap.err);
		runner_free(r);
		return e;
	}
	r->cap_started = true;
	k->started_ms = clock_wall_ms();
	r->end_ms = task_end_ms(spec);
	/* The first flush comes early so the UI shows data soon after the task
	 * starts; then every flush_interval, as rover. */
	r->next_flush_ms =
		k->started_ms + (cfg->flush_interval_ms < 2000 ? cfg->flush_interval_ms : 2000);
	r->next_alive_ms = k->started_ms + 500;
	flush_worker_submit(worker, warm_job, k, 0, true);
	*out = r;
	return 0;
}

int runner_pollfds(struct agent_run *r, struct pollfd *p)
{
	int n = 0;

	if (!r->cap_started)
		return 0;
	p[n++] = (struct pollfd){ .fd = ring_fd(r->cap.ring), .events = POLLIN };
	if (control_event_fd(r->cap.ctl) >= 0)
		p[n++] = (struct pollfd){ .fd = control_event_fd(r->cap.ctl), .events = POLLIN };
	return n;
}

/*
 * Worker: brings the view up to date with every sample so far. Between
 * flushes (seconds apart) the daemon holds no libdw state: reopening a
 * file's debug information once per flush costs little time, keeping it
 * open between flushes much memory. 0 or -ENOMEM.
 */
static int sink_view(struct run_sink *k)
{
	int e = view_build(&k->view, k->prof, k->sym);

	symbolizer_trim(k->sym);
	return e;
}

/* Worker: symbolize what is new and hand it to the queue as one batch. */
static void sink_upload(struct run_sink *k, uint64_t now)
{
	struct upload_task_meta m = {
		.task_id = k->spec.task_id,
		.process_id = k->spec.process_id,
		.profiling_start_ms = k->started_ms,
		.current_ms = now,
		.offcpu = k->spec.target == AGENT_TARGET_OFF_CPU,
	};
	struct upload_totals tot;
	struct upload_batch *b;
	char what[160];
	uint64_t t0 = clock_wall_ms();

	if (sink_view(k)) {
		log_warn("task %s: out of memory symbolizing; this flush is skipped",
			 k->spec.task_id);
		return;
	}
	snprintf(what, sizeof(what), "task %.64s pid %u", k->spec.task_id, k->pid);
	b = batch_new(UPLOAD_PATH_PROFILING, what);
	if (!b || upload_collect(k->deltas, &k->view, k->pid, &m, b, &tot)) {
		log_warn("task %s: out of memory building an upload; this flush is skipped",
			 k->spec.task_id);
		batch_free(b);
		return;
	}
	if (!b->n) {
		batch_free(b);
		return;
	}
	k->uploaded_count += tot.count;
	k->uploaded_weight += tot.weight;
	k->batches++;
	/* The first flush symbolizes the process's binaries and the kernel: say
	 * how long that took, it is the upload's latency. */
	log_msg(k->batches == 1 ? LOG_LVL_INFO : LOG_LVL_DEBUG,
		"task %s: flush: %" PRIu64 " stacks, count %" PRIu64
		", %zu bytes, symbolized in %" PRIu64 " ms",
		k->spec.task_id, tot.messages, tot.count, b->bytes, clock_wall_ms() - t0);
	k->dropped_batches += queue_push(k->queue, b);
}

static void spool(struct run_sink *k, const char *dir)
{
	char base[512], path[600];
	time_t t = (time_t)(k->started_ms / 1000);
	struct tm tm;
	char when[32];

	if (mkdir(dir, 0750) && errno != EEXIST) {
		log_warn("spool: cannot create %s: %s", dir, strerror(errno));
		return;
	}
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(base, sizeof(base), "%s/%s-pid%u-%s", dir, when, k->pid,
		 k->spec.target == AGENT_TARGET_OFF_CPU ? "offcpu" : "oncpu");
	if (sink_view(k)) {
		log_warn("spool: out of memory symbolizing task %s", k->spec.task_id);
		return;
	}
	snprintf(path, sizeof(path), "%s.pb.gz", base);
	if (!output_write(&k->view, path, OUTPUT_PPROF))
		log_info("spool: wrote %s", path);
	snprintf(path, sizeof(path), "%s.svg", base);
	if (!output_write(&k->view, path, OUTPUT_SVG))
		log_info("spool: wrote %s", path);
}

/* Worker: one flush; the last one also ends the task and frees its state. */
static void flush_job(void *arg)
{
	struct flush_req *q = arg;
	struct run_sink *k = q->k;
	const struct run_stats *st = &q->st;
	struct proc_aspace_stats as;
	char files[512];

	apply_reports(k, &q->reports);
	if (q->pend && profile_merge(k->prof, q->pend))
		log_warn("task %s: out of memory merging %" PRIu64 " samples: they are lost",
			 k->spec.task_id, profile_total_samples(q->pend));
	profile_free(q->pend);
	if (k->queue)
		sink_upload(k, q->now_ms);
	if (q->final) {
		profile_set_duration(k->prof, (q->now_ms - k->started_ms) * 1000000ull);
		log_info("task %s %s pid %u finished after %.1f s: %" PRIu64
			 " samples read, module %" PRIu64 " samples %" PRIu64
			 " lost; uploaded count %" PRIu64 " duration %" PRIu64 " ns in %" PRIu64
			 " batches; flushes dropped %" PRIu64 " (%" PRIu64
			 " samples); drain: longest pause %" PRIu64 " ms, hand-off %" PRIu64 " ms",
			 k->spec.task_id, task_target_name(k->spec.target), k->pid,
			 (double)(q->now_ms - k->started_ms) / 1000.0, st->samples_read,
			 st->module_samples, st->module_drops, k->uploaded_count,
			 k->uploaded_weight, k->batches, st->dropped_flushes, st->dropped_samples,
			 st->max_pause_ms, st->max_handoff_ms);
		proc_aspace_get_stats(symbolizer_procs(k->sym), &as);
		if (proc_aspace_files_line(&as, files, sizeof(files))[0])
			log_info("task %s: %s", k->spec.task_id, files);
		if (q->spool_dir)
			spool(k, q->spool_dir);
		sink_free(k);
	}
	free(q);
}

/* Drain side: hand the samples since the last flush to the worker. */
static void flush(struct agent_run *r, uint64_t now, bool final, const char *spool_dir)
{
	struct flush_req *q;
	struct timespec t0, t1;
	uint64_t n, ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (final) {
		q = r->final_req;
		r->final_req = NULL;
	} else {
		q = calloc(1, sizeof(*q));
	}
	if (!q)
		return; /* not the last one: the samples stay for the next one */
	q->k = r->sink;
	q->reports = r->reports;
	memset(&r->reports, 0, sizeof(r->reports));
	q->pend = r->pend;
	q->now_ms = now;
	q->final = final;
	q->spool_dir = spool_dir;
	r->pend = final ? NULL : profile_new(&r->meta);
	if (!final && !r->pend) {
		/* keep the samples; the task ends on the error */
		r->pend = q->pend;
		r->reports = q->reports;
		r->error = -ENOMEM;
		free(q);
		return;
	}
	n = profile_total_samples(q->pend);
	if (final) {
		q->st = r->st;
		r->sink = NULL; /* the worker frees it */
	}
	if (!flush_worker_submit(r->worker, flush_job, q, n, final)) {
		r->st.dropped_flushes++;
		r->st.dropped_samples += n;
		log_warn("task %s: the flush worker is behind: a flush of %" PRIu64
			 " samples is dropped (%" PRIu64 " so far)",
			 r->spec.task_id, n, r->st.dropped_flushes);
		profile_free(q->pend);
		/* the reports stay for the next flush: later samples need them */
		r->reports = q->reports;
		free(q);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	if (ms > r->st.max_handoff_ms)
		r->st.max_handoff_ms = ms;
}

int runner_step(struct agent_run *r, uint64_t now)
{
	int e = capture_poll(&r->cap, 0, &r->cap_sink);

	if (r->last_step_ms && now - r->last_step_ms > r->st.max_pause_ms)
		r->st.max_pause_ms = now - r->last_step_ms;
	r->last_step_ms = now;
	if (e < 0 || r->error)
		return e < 0 ? e : r->error;
	/* Without a queue (embedded mode) only the last flush has work to do. */
	if (now >= r->next_flush_ms) {
		if (r->sink && r->sink->queue)
			flush(r, now, false, NULL);
		r->next_flush_ms = now + r->cfg->flush_interval_ms;
	}
	if (r->ask)
		jvm_ask_poll(r->ask, r->end_ms > now ? (r->end_ms - now) * 1000000ull : 0);
	if (r->cap.ended)
		return 1;
	if (now >= r->end_ms)
		return 1;
	if (now >= r->next_alive_ms) {
		r->next_alive_ms = now + 500;
		if (!capture_pids_alive(&r->pid, 1)) {
			r->process_exited = true;
			return 1;
		}
	}
	return 0;
}

bool runner_process_exited(const struct agent_run *r)
{
	return r->process_exited;
}

void runner_extend(struct agent_run *r, uint64_t end_ms)
{
	if (end_ms > r->end_ms)
		r->end_ms = end_ms;
}

/* capture_sideband_lines' lines, in the task's log. */
static void log_line(void *arg, bool warning, const char *text)
{
	struct agent_run *r = arg;

	log_msg(warning ? LOG_LVL_WARN : LOG_LVL_INFO, "task %s: %s", r->spec.task_id, text);
}

void runner_finish(struct agent_run *r, const char *spool_dir)
{
	struct control_cpu_stats *st = NULL;
	size_t nst = 0;

	if (r->finished || !r->cap_started)
		return;
	r->finished = true;
	if (r->ask)
		jvm_ask_finish(r->ask, false); /* a request in flight is dropped */
	if (capture_finish(&r->cap, &r->cap_sink, &st, &nst))
		log_warn("task %s: stopping the session: %s", r->spec.task_id, r->cap.err);
	for (size_t i = 0; i < nst; i++) {
		r->st.module_samples += st[i].samples;
		r->st.module_drops += st[i].drops;
	}
	capture_sideband_lines(&r->cap, st, nst, log_line, r);
	free(st);
	if (!nst)
		r->st.module_drops = ring_lost(r->cap.ring);
	/* the last flush, the summary line and the spool files: on the worker */
	flush(r, clock_wall_ms(), true, spool_dir);
	capture_close(&r->cap);
}

void runner_free(struct agent_run *r)
{
	if (!r)
		return;
	if (r->cap.ctl || r->cap.ring)
		capture_close(&r->cap);
	profile_free(r->pend);
	reports_free(&r->reports);
	free(r->final_req);
	ingest_free(r->in);
	jvm_ask_free(r->ask);
	symbolizer_free(r->dsym);
	sink_free(r->sink);
	free(r);
}

const struct task_spec *runner_spec(const struct agent_run *r)
{
	return &r->spec;
}

uint32_t runner_pid(const struct agent_run *r)
{
	return r->pid;
}
