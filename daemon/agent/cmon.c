// SPDX-License-Identifier: GPL-2.0
/* The continuous-profiling monitor; see cmon.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/cmon.h"
#include "agent/continuous.h"
#include "agent/log.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "agent/runner.h"
#include "agent/config.h"
#include "sw_meter.pb-c.h"
#include "lib/clock.h"

struct cmon_proc {
	uint32_t pid;
	uint64_t start_time;
	uint64_t prev_ticks, prev_ms;
	bool have_prev, seen;
	uint64_t silence_until[CONTINUOUS_NR_TARGETS]; /* wall ms */
	struct continuous_window w[CONTINUOUS_NR_MONITORS];
};

struct cmon {
	const struct agent_config *cfg;
	struct continuous_policies *pol;
	struct agent_procs *procs;
	struct upload_queue *queue;
	const char *proc_root;
	long clk_tck;
	struct cmon_proc **v;
	size_t n;
	uint64_t next_fetch, next_check;
	uint64_t local_seq;
};

struct cmon *cmon_new(const struct agent_config *cfg, struct continuous_policies *pol,
		      struct agent_procs *procs, struct upload_queue *queue, const char *proc_root)
{
	struct cmon *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cfg = cfg;
	m->pol = pol;
	m->procs = procs;
	m->queue = queue;
	m->proc_root = proc_root ? proc_root : "/proc";
	m->clk_tck = sysconf(_SC_CLK_TCK);
	return m;
}

void cmon_free(struct cmon *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	free(m);
}

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

static struct cmon_proc *get_proc(struct cmon *m, uint32_t pid, uint64_t start_time)
{
	struct cmon_proc *p, **nv;

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i]->pid == pid && m->v[i]->start_time == start_time)
			return m->v[i];
	p = calloc(1, sizeof(*p));
	nv = p ? realloc(m->v, (m->n + 1) * sizeof(*nv)) : NULL;
	if (!nv) {
		free(p);
		return NULL;
	}
	m->v = nv;
	p->pid = pid;
	p->start_time = start_time;
	m->v[m->n++] = p;
	return p;
}

/* One sample of every discovered process; exited ones are forgotten. */
static void fetch(struct cmon *m, uint64_t now)
{
	struct agent_procs *t = m->procs;
	char path[64], buf[1024];
	double load1 = 0;

	if (read_small("/proc/loadavg", buf, sizeof(buf)) || continuous_parse_loadavg(buf, &load1))
		load1 = 0;
	for (size_t i = 0; i < m->n; i++)
		m->v[i]->seen = false;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct cmon_proc *p = get_proc(m, t->v[i].pid, t->v[i].start_time);
		uint64_t ticks;
		uint32_t threads;

		if (!p)
			continue;
		p->seen = true;
		snprintf(path, sizeof(path), "%s/%u/stat", m->proc_root, p->pid);
		if (read_small(path, buf, sizeof(buf)) ||
		    continuous_parse_stat(buf, &ticks, &threads))
			continue;
		if (p->have_prev)
			continuous_window_push(&p->w[CONTINUOUS_PROCESS_CPU],
					       continuous_cpu_percent(p->prev_ticks, ticks,
								      m->clk_tck,
								      now - p->prev_ms));
		/* thread count and load need no previous read, but are pushed in step
		 * with CPU so the three windows cover the same seconds */
		if (p->have_prev) {
			continuous_window_push(&p->w[CONTINUOUS_THREAD_COUNT], threads);
			continuous_window_push(&p->w[CONTINUOUS_SYSTEM_LOAD], load1);
		}
		p->prev_ticks = ticks;
		p->prev_ms = now;
		p->have_prev = true;
	}
	pthread_mutex_unlock(&t->lock);
	for (size_t i = 0; i < m->n;) {
		if (!m->v[i]->seen) {
			free(m->v[i]);
			m->v[i] = m->v[--m->n];
			continue;
		}
		i++;
	}
}

/* One MeterDataCollection per process with a policy: rover's meter names. */
static void add_meters(struct cmon *m, struct upload_batch *b, const struct agent_proc *ap,
		       const struct cmon_proc *p, const struct continuous_policy *pol,
		       uint64_t wall)
{
	Skywalking__V3__MeterDataCollection coll = SKYWALKING__V3__METER_DATA_COLLECTION__INIT;
	Skywalking__V3__MeterData md[CONTINUOUS_NR_MONITORS], *mdp[CONTINUOUS_NR_MONITORS];
	Skywalking__V3__MeterSingleValue sv[CONTINUOUS_NR_MONITORS];
	Skywalking__V3__Label lab[2] = { SKYWALKING__V3__LABEL__INIT, SKYWALKING__V3__LABEL__INIT };
	Skywalking__V3__Label *labp[2] = { &lab[0], &lab[1] };
	char names[CONTINUOUS_NR_MONITORS][128];
	size_t n = 0, len;
	uint8_t *buf;

	lab[0].name = "process_name";
	lab[0].value = ap->process;
	lab[1].name = "layer";
	lab[1].value = ap->layer;
	for (int mo = 0; mo < CONTINUOUS_NR_MONITORS; mo++) {
		bool used = false;

		for (int t = 0; t < CONTINUOUS_NR_TARGETS; t++)
			used |= pol->items[t][mo].set;
		if (!used || !p->w[mo].n)
			continue;
		snprintf(names[n], sizeof(names[n]), "%s_%s", m->cfg->continuous.meter_prefix,
			 continuous_meter_suffix(mo));
		skywalking__v3__meter_single_value__init(&sv[n]);
		sv[n].name = names[n];
		sv[n].n_labels = 2;
		sv[n].labels = labp;
		sv[n].value = continuous_window_last(&p->w[mo]);
		skywalking__v3__meter_data__init(&md[n]);
		md[n].metric_case = SKYWALKING__V3__METER_DATA__METRIC_SINGLE_VALUE;
		md[n].singlevalue = &sv[n];
		md[n].service = ap->service;
		md[n].serviceinstance = ap->instance;
		md[n].timestamp = (int64_t)wall;
		mdp[n] = &md[n];
		n++;
	}
	if (!n)
		return;
	coll.n_meterdata = n;
	coll.meterdata = mdp;
	len = skywalking__v3__meter_data_collection__get_packed_size(&coll);
	buf = malloc(len ? len : 1);
	if (!buf)
		return;
	skywalking__v3__meter_data_collection__pack(&coll, buf);
	if (batch_add(b, buf, len))
		free(buf);
}

static void fire(struct cmon *m, const struct agent_proc *ap, struct cmon_proc *p, int ti,
		 const struct continuous_trigger *tr, struct task_spec *out, size_t *nout,
		 size_t max)
{
	uint64_t wall = clock_wall_ms();
	char causes[256] = "";
	size_t off = 0;

	for (size_t i = 0; i < tr->nr_causes && off < sizeof(causes); i++)
		off += (size_t)snprintf(causes + off, sizeof(causes) - off, "%s%s %.2f >= %g",
					i ? ", " : "",
					continuous_monitor_name(tr->causes[i].monitor),
					tr->causes[i].current, tr->causes[i].threshold);
	log_info("continuous: pid %u (%s of %s) fired %s: %s", p->pid, ap->process, ap->service,
		 task_target_name(tr->target), causes);
	/* Silent while the task runs and for silence_duration after it (rover). */
	p->silence_until[ti] = wall + m->cfg->continuous.execute_duration_ms +
			       m->cfg->continuous.silence_duration_ms;
	if (m->queue) {
		if (!continuous_trigger_push(m->pol, tr))
			log_warn("continuous: pid %u: trigger dropped: %d are waiting for the OAP",
				 p->pid, CONTINUOUS_MAX_TRIGGERS);
		return;
	}
	if (*nout < max) {
		struct task_spec *s = &out[(*nout)++];

		memset(s, 0, sizeof(*s));
		snprintf(s->task_id, sizeof(s->task_id), "continuous-%" PRIu64 "-%u-%" PRIu64, wall,
			 p->pid, ++m->local_seq);
		snprintf(s->process_id, sizeof(s->process_id), "%s", tr->process_id);
		s->target = tr->target;
		s->trigger = TASK_TRIGGER_CONTINUOUS;
		s->start_ms = s->update_ms = wall;
		s->duration_s = tr->duration_s;
	}
}

static void check(struct cmon *m, cmon_busy_fn busy, void *arg, struct task_spec *out, size_t *nout,
		  size_t max)
{
	struct agent_procs *t = m->procs;
	uint64_t wall = clock_wall_ms();
	struct upload_batch *b = m->queue ? batch_new(CMON_PATH_METERS, "meters") : NULL;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct agent_proc *ap = &t->v[i];
		struct cmon_proc *p = NULL;
		struct continuous_policy pol;

		for (size_t k = 0; k < m->n && !p; k++)
			if (m->v[k]->pid == ap->pid && m->v[k]->start_time == ap->start_time)
				p = m->v[k];
		if (!p || !continuous_policies_get(m->pol, ap->service, &pol))
			continue;
		if (m->queue) {
			/* the OAP derives the task's process from the names: it must know it */
			if (ap->state != PROC_REPORTED)
				continue;
			if (b)
				add_meters(m, b, ap, p, &pol, wall);
		} else {
			/* locally the formula's id is the process's id (as the schedule) */
			snprintf(ap->process_id, sizeof(ap->process_id), "%s", ap->expected_id);
		}
		for (int ti = 0; ti < CONTINUOUS_NR_TARGETS; ti++) {
			struct continuous_trigger tr = { 0 };

			tr.target = ti == 0 ? AGENT_TARGET_ON_CPU : AGENT_TARGET_OFF_CPU;
			if (wall < p->silence_until[ti] ||
			    (busy && busy(arg, ap->pid, ap->process_id, tr.target)))
				continue;
			for (int mo = 0; mo < CONTINUOUS_NR_MONITORS; mo++) {
				const struct continuous_item *it = &pol.items[ti][mo];
				double cur = 0;

				if (!it->set ||
				    !continuous_window_fires(&p->w[mo], it->threshold, it->period,
							     it->count, &cur))
					continue;
				tr.causes[tr.nr_causes].monitor = mo;
				tr.causes[tr.nr_causes].threshold = it->threshold;
				tr.causes[tr.nr_causes].current = cur;
				tr.nr_causes++;
			}
			if (!tr.nr_causes)
				continue;
			snprintf(tr.layer, sizeof(tr.layer), "%s", ap->layer);
			snprintf(tr.service, sizeof(tr.service), "%s", ap->service);
			snprintf(tr.instance, sizeof(tr.instance), "%s", ap->instance);
			snprintf(tr.process, sizeof(tr.process), "%s", ap->process);
			snprintf(tr.process_id, sizeof(tr.process_id), "%s", ap->process_id);
			tr.duration_s =
				(uint32_t)((m->cfg->continuous.execute_duration_ms + 999) / 1000);
			fire(m, ap, p, ti, &tr, out, nout, max);
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (b && b->n)
		queue_push(m->queue, b);
	else
		batch_free(b);
}

size_t cmon_tick(struct cmon *m, uint64_t now, cmon_busy_fn busy, void *arg, struct task_spec *out,
		 size_t max)
{
	size_t nout = 0;

	if (now >= m->next_fetch) {
		fetch(m, now);
		m->next_fetch = now + m->cfg->continuous.fetch_interval_ms;
	}
	if (now >= m->next_check) {
		if (m->next_check)
			check(m, busy, arg, out, &nout, max);
		m->next_check = now + m->cfg->continuous.check_interval_ms;
	}
	return nout;
}
