// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: the table, their lifetime and their per-CPU sources.
 *
 * A session belongs to the netlink socket (portid) that started it. It ends
 * by SESSION_STOP from that socket, when the socket is released (the
 * NETLINK_URELEASE notifier, which may run in atomic context, only claims
 * the session and defers the teardown to skyprof_wq), or at module unload.
 * Whoever sets ->ending first (under skyprof_sessions_lock) owns the
 * teardown, which always runs in process context under
 * skyprof_sessions_mutex, in skyprof_session_destroy() and nowhere else.
 *
 * Sources are per-CPU instances of one multi-instance cpuhp state: the online
 * callback (on the CPU concerned, process context) creates the perf event or
 * starts the hrtimer, the offline callback releases/cancels it. Adding the
 * instance at start runs the online callback on every online CPU; removing it
 * at teardown runs the offline callback on each. Rings exist for every
 * possible CPU, so a CPU that comes online later just starts writing.
 *
 * Locks: skyprof_sessions_mutex serializes start, stop, teardown, stats and
 * bind (all process context); skyprof_sessions_lock (a spinlock, taken in
 * process context and by the notifier) protects the table slots and the
 * ->ending/->end_reason claim. The sample path takes neither.
 *
 * Events (a session's end, a ring over its watermark, a throttled CPU) go
 * to the one listener set with skyprof_sessions_set_announce(), genl.c's
 * multicast: the session knows nothing of netlink messages.
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>

#include "skyprof_kmod.h"

/* start, stop, teardown, stats, bind (see above) */
DEFINE_MUTEX(skyprof_sessions_mutex);
static DEFINE_SPINLOCK(skyprof_sessions_lock);
static struct skyprof_session *skyprof_sessions[SKYPROF_MAX_SESSIONS];
static u32 skyprof_next_id = 1;
static bool skyprof_unloading;
static int skyprof_cpuhp_state = -1;
static struct workqueue_struct *skyprof_wq;
/*
 * Set before the first session can start and cleared after the last one
 * ended (see skyprof_sessions_set_announce()), so never changed under a
 * caller; READ_ONCE/WRITE_ONCE only say that it is shared.
 */
static void (*skyprof_announce)(u32 event, u32 session_id, u32 reason, int cpu);

void skyprof_config_free(struct skyprof_config *cfg)
{
	kfree(cfg->tgids);
	kfree(cfg->tids);
	kfree(cfg->cpus);
	kfree(cfg->cgroup_path);
	cfg->tgids = NULL;
	cfg->tids = NULL;
	cfg->cpus = NULL;
	cfg->cgroup_path = NULL;
}

u32 skyprof_record_max(const struct skyprof_config *cfg)
{
	u32 size = sizeof(struct skyprof_sample) + 2 * sizeof(u64) * cfg->max_depth;

	if (cfg->flags & SKYPROF_F_SIDEBAND)
		size += sizeof(struct skyprof_sample_as);

	if (cfg->ustack_bytes)
		size += sizeof(struct skyprof_user_regs) +
			ALIGN(cfg->ustack_bytes, SKYPROF_REC_ALIGN);
	return size;
}

void skyprof_sessions_set_announce(void (*fn)(u32 event, u32 session_id, u32 reason, int cpu))
{
	WRITE_ONCE(skyprof_announce, fn);
}

/* Process context; cpu is -1 for SESSION_ENDED, reason 0 for the others. */
static void skyprof_session_announce(u32 event, u32 session_id, u32 reason, int cpu)
{
	void (*fn)(u32 event, u32 session_id, u32 reason, int cpu) = READ_ONCE(skyprof_announce);

	if (fn)
		fn(event, session_id, reason, cpu);
}

/* ---- per-CPU sources (cpuhp callbacks) ---------------------------------- */

static int skyprof_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct skyprof_session *s = hlist_entry(node, struct skyprof_session, cpuhp_node);
	struct skyprof_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);
	int ret;

	/* Outside the session's CPUs no clock runs at all. */
	if (!skyprof_config_cpu(&s->cfg, cpu))
		return 0;
	if (s->clock_used == SKYPROF_CLOCK_HRTIMER)
		ret = skyprof_hrtimer_start_cpu(pc);
	else
		ret = skyprof_perf_start_cpu(pc);
	/*
	 * At session start a failure fails the start (the core rolls back
	 * the CPUs done so far). A CPU coming online later must not be kept
	 * offline by us: it just goes unsampled.
	 */
	return READ_ONCE(s->starting) ? ret : 0;
}

static int skyprof_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct skyprof_session *s = hlist_entry(node, struct skyprof_session, cpuhp_node);
	struct skyprof_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);

	if (s->clock_used == SKYPROF_CLOCK_HRTIMER)
		skyprof_hrtimer_stop_cpu(pc);
	else
		skyprof_perf_stop_cpu(pc);
	return 0;
}

/* ---- deferred work out of the handler ----------------------------------- */

/*
 * irq_work: runs on the CPU that queued it, in hardirq (or in a thread on
 * PREEMPT_RT), where waking readers and queueing work is allowed.
 */
static void skyprof_pcpu_work(struct irq_work *work)
{
	struct skyprof_pcpu *pc = container_of(work, struct skyprof_pcpu, work);
	struct skyprof_session *s = pc->s;
	bool events = false;

	if (test_and_clear_bit(SKYPROF_PEND_WATERMARK, &pc->pending)) {
		wake_up_all(&s->rings->wq);
		set_bit(pc->cpu, s->wm_cpus);
		events = true;
	}
	if (test_and_clear_bit(SKYPROF_PEND_THROTTLED, &pc->pending)) {
		set_bit(pc->cpu, s->thr_cpus);
		events = true;
	}
	if (test_and_clear_bit(SKYPROF_PEND_SIDEBAND, &pc->pending))
		skyprof_sideband_kick(s);
	if (events)
		queue_work(skyprof_wq, &s->event_work);
}

/* Announces the watermark/throttle events the handlers asked for. */
static void skyprof_event_work(struct work_struct *work)
{
	struct skyprof_session *s = container_of(work, struct skyprof_session, event_work);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (test_and_clear_bit(cpu, s->wm_cpus))
			skyprof_session_announce(SKYPROF_EVENT_RING_WATERMARK, s->id, 0, cpu);
		if (test_and_clear_bit(cpu, s->thr_cpus))
			skyprof_session_announce(SKYPROF_EVENT_THROTTLED, s->id, 0, cpu);
	}
}

/* ---- lifetime ----------------------------------------------------------- */

static void skyprof_session_free(struct skyprof_session *s)
{
	unsigned int cpu;

	if (s->pcpu) {
		for_each_possible_cpu(cpu)
			kvfree(per_cpu_ptr(s->pcpu, cpu)->scratch);
		free_percpu(s->pcpu);
	}
	skyprof_offcpu_free(s);
	skyprof_sideband_free(s);
	skyprof_follow_free(s);
	if (s->rings)
		skyprof_rings_put(s->rings);
	bitmap_free(s->wm_cpus);
	bitmap_free(s->thr_cpus);
	skyprof_filter_release(s);
	skyprof_config_free(&s->cfg);
	kfree(s);
}

/* Claims the teardown of s; true if the caller now owns it. */
static bool skyprof_session_claim_end(struct skyprof_session *s, u32 reason)
{
	bool mine = false;

	spin_lock(&skyprof_sessions_lock);
	if (!s->ending) {
		s->ending = true;
		s->end_reason = reason;
		/* Handlers stop producing at once; the sources go below. */
		WRITE_ONCE(s->running, false);
		mine = true;
	}
	spin_unlock(&skyprof_sessions_lock);
	return mine;
}

static void skyprof_session_unlink(struct skyprof_session *s)
{
	unsigned int i;

	spin_lock(&skyprof_sessions_lock);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++)
		if (skyprof_sessions[i] == s)
			skyprof_sessions[i] = NULL;
	spin_unlock(&skyprof_sessions_lock);
}

/*
 * After the sources stopped: waits out the deferred work of the handlers.
 * The irq_works kick the side-band worker only while the session runs,
 * and the worker queues irq_works (wakeups), hence the second sync.
 */
static void skyprof_session_drain(struct skyprof_session *s)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(s->pcpu, cpu)->work);
	skyprof_sideband_stop(s);
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(s->pcpu, cpu)->work);
	cancel_work_sync(&s->event_work);
}

/*
 * The one teardown, in reverse order of skyprof_session_start(). Process
 * context, skyprof_sessions_mutex held, ->ending claimed by the caller.
 */
static void skyprof_session_destroy(struct skyprof_session *s)
{
	u32 id = s->id, reason = s->end_reason;

	WRITE_ONCE(s->running, false);
	if (s->cfg.mode == SKYPROF_MODE_OFFCPU)
		/* Unregisters the probes and waits for the ones still running. */
		skyprof_offcpu_stop(s);
	else
		/* Offline callback on every online CPU: cancel timers, release events. */
		skyprof_cpuhp_remove_instance(skyprof_cpuhp_state, &s->cpuhp_node);
	skyprof_follow_stop(s);
	/*
	 * A perf handler (NMI or hrtimer hardirq) that fetched its context
	 * before its event went away is an RCU reader; wait it out before the
	 * per-CPU state goes.
	 */
	synchronize_rcu();
	skyprof_session_drain(s);
	skyprof_session_unlink(s);
	skyprof_rings_end(s->rings);
	skyprof_session_free(s);
	skyprof_session_announce(SKYPROF_EVENT_SESSION_ENDED, id, reason, -1);
}

static void skyprof_end_work(struct work_struct *work)
{
	struct skyprof_session *s = container_of(work, struct skyprof_session, end_work);

	mutex_lock(&skyprof_sessions_mutex);
	skyprof_session_destroy(s);
	mutex_unlock(&skyprof_sessions_mutex);
}

struct skyprof_session *skyprof_session_find(u32 id)
{
	unsigned int i;

	lockdep_assert_held(&skyprof_sessions_mutex);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++)
		if (skyprof_sessions[i] && skyprof_sessions[i]->id == id)
			return skyprof_sessions[i];
	return NULL;
}

static u32 skyprof_alloc_id(void)
{
	u32 id;

	do {
		id = skyprof_next_id++;
	} while (!id || skyprof_session_find(id));
	return id;
}

static int skyprof_pick_clock(struct skyprof_session *s, struct netlink_ext_ack *extack)
{
	switch (s->cfg.clock) {
	case SKYPROF_CLOCK_AUTO:
		if (skyprof_perf_hw_available())
			s->clock_used = SKYPROF_CLOCK_PERF_HW;
		else if (skyprof_perf_sw_available())
			s->clock_used = SKYPROF_CLOCK_PERF_SW;
		else
			s->clock_used = SKYPROF_CLOCK_HRTIMER;
		return 0;
	case SKYPROF_CLOCK_PERF_HW:
		if (!skyprof_perf_hw_available()) {
			NL_SET_ERR_MSG_MOD(extack, "no hardware cycles counter on this machine");
			return -EOPNOTSUPP;
		}
		break;
	case SKYPROF_CLOCK_PERF_SW:
		if (!skyprof_perf_sw_available()) {
			NL_SET_ERR_MSG_MOD(extack, "no perf cpu-clock on this kernel");
			return -EOPNOTSUPP;
		}
		break;
	}
	s->clock_used = s->cfg.clock;
	return 0;
}

/*
 * Starts a session from a validated config (whose tgids and cgroup_path it
 * takes over) and fills *reply. Nothing is left behind on failure.
 */
int skyprof_session_start(struct skyprof_config *cfg, u32 portid,
			  struct netlink_ext_ack *extack, struct skyprof_start_reply *reply)
{
	struct skyprof_session *s;
	unsigned int cpu, i, slot = SKYPROF_MAX_SESSIONS;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		skyprof_config_free(cfg);
		return -ENOMEM;
	}
	s->cfg = *cfg;
	cfg->tgids = NULL;
	cfg->tids = NULL;
	cfg->cpus = NULL;
	cfg->cgroup_path = NULL;
	s->portid = portid;
	/* SESSION_START runs in the sender's context. */
	s->owner_pid = task_tgid_nr(current);
	s->period_ns = div_u64(NSEC_PER_SEC, s->cfg.freq);
	s->max_rec = skyprof_record_max(&s->cfg);
	INIT_WORK(&s->event_work, skyprof_event_work);
	INIT_WORK(&s->end_work, skyprof_end_work);

	if (s->cfg.mode == SKYPROF_MODE_OFFCPU) {
		/* No sampling clock: the scheduler drives the session. */
		s->clock_used = SKYPROF_CLOCK_AUTO;
		ret = skyprof_offcpu_alloc(s);
		if (ret) {
			NL_SET_ERR_MSG_MOD(extack, "out of memory for the off-CPU table");
			goto err_free;
		}
	} else {
		ret = skyprof_pick_clock(s, extack);
		if (ret)
			goto err_free;
	}
	s->sample_version = SKYPROF_SAMPLE_VERSION;
	if (s->cfg.flags & SKYPROF_F_SIDEBAND) {
		s->sample_version = SKYPROF_SAMPLE_VERSION_AS;
		ret = skyprof_sideband_alloc(s);
		if (ret) {
			NL_SET_ERR_MSG_MOD(extack, "out of memory for the side-band table");
			goto err_free;
		}
	}
	if (s->cfg.flags & SKYPROF_F_FOLLOW_FORKS) {
		ret = skyprof_follow_alloc(s);
		if (ret) {
			NL_SET_ERR_MSG_MOD(extack, "out of memory for the followed processes");
			goto err_free;
		}
	}
	ret = skyprof_filter_setup(s, extack);
	if (ret)
		goto err_free;
	ret = -ENOMEM;
	s->rings = skyprof_rings_alloc(s->cfg.ring_pages, s->cfg.watermark_pct);
	s->wm_cpus = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
	s->thr_cpus = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
	s->pcpu = alloc_percpu(struct skyprof_pcpu);
	if (!s->rings || !s->wm_cpus || !s->thr_cpus || !s->pcpu) {
		NL_SET_ERR_MSG_MOD(extack, "out of memory for the rings");
		goto err_free;
	}
	for_each_possible_cpu(cpu) {
		struct skyprof_pcpu *pc = per_cpu_ptr(s->pcpu, cpu);

		pc->s = s;
		pc->cpu = cpu;
		pc->ring = s->rings->ring[cpu];
		skyprof_budget_init(&pc->budget, s->cfg.budget_pct);
		init_irq_work(&pc->work, skyprof_pcpu_work);
		pc->scratch = kvmalloc_node(s->max_rec, GFP_KERNEL, cpu_to_node(cpu));
		if (!pc->scratch)
			goto err_free;
	}
	s->token = get_random_u64();

	mutex_lock(&skyprof_sessions_mutex);
	if (skyprof_unloading) {
		NL_SET_ERR_MSG_MOD(extack, "module is unloading");
		ret = -ESHUTDOWN;
		goto err_unlock;
	}
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++)
		if (!skyprof_sessions[i])
			slot = i;
	if (slot == SKYPROF_MAX_SESSIONS) {
		NL_SET_ERR_MSG_MOD(extack, "all sessions are in use");
		ret = -EBUSY;
		goto err_unlock;
	}
	s->id = skyprof_alloc_id();
	s->running = true;
	s->starting = true;
	spin_lock(&skyprof_sessions_lock);
	skyprof_sessions[slot] = s;
	spin_unlock(&skyprof_sessions_lock);

	ret = 0;
	if (s->follow) {
		/* Before the sources: no fork of a target goes unseen once they run. */
		ret = skyprof_follow_start(s);
		if (ret)
			NL_SET_ERR_MSG_MOD(extack, "could not attach to the fork tracepoint");
	}
	if (ret) {
		/* Nothing else started. */
	} else if (s->cfg.mode == SKYPROF_MODE_OFFCPU) {
		ret = skyprof_offcpu_start(s);
		if (ret)
			NL_SET_ERR_MSG_MOD(extack, "could not attach to the scheduler tracepoints");
	} else {
		ret = skyprof_cpuhp_add_instance(skyprof_cpuhp_state, &s->cpuhp_node);
		if (ret)
			NL_SET_ERR_MSG_MOD(extack,
					   "could not start the sampling clock on every CPU");
	}
	if (ret) {
		WRITE_ONCE(s->running, false);
		skyprof_follow_stop(s);
		skyprof_session_unlink(s);
		mutex_unlock(&skyprof_sessions_mutex);
		/* The core rolled the started CPUs back; drain their leftovers. */
		synchronize_rcu();
		skyprof_session_drain(s);
		goto err_free;
	}
	WRITE_ONCE(s->starting, false);
	reply->id = s->id;
	reply->token = s->token;
	reply->clock_used = s->clock_used;
	reply->data_size = s->rings->data_size;
	mutex_unlock(&skyprof_sessions_mutex);
	return 0;

err_unlock:
	mutex_unlock(&skyprof_sessions_mutex);
err_free:
	skyprof_session_free(s);
	return ret;
}

int skyprof_session_stop(u32 id, u32 portid, struct netlink_ext_ack *extack)
{
	struct skyprof_session *s;
	int ret = 0;

	mutex_lock(&skyprof_sessions_mutex);
	s = skyprof_session_find(id);
	if (!s) {
		NL_SET_ERR_MSG_MOD(extack, "no such session");
		ret = -ENOENT;
	} else if (s->portid != portid) {
		NL_SET_ERR_MSG_MOD(extack, "session belongs to another socket");
		ret = -EPERM;
	} else if (!skyprof_session_claim_end(s, SKYPROF_END_STOPPED)) {
		NL_SET_ERR_MSG_MOD(extack, "session is already ending");
		ret = -ENOENT;
	} else {
		skyprof_session_destroy(s);
	}
	mutex_unlock(&skyprof_sessions_mutex);
	return ret;
}

int skyprof_sessions_for_each(int (*fn)(struct skyprof_session *s, void *arg), void *arg)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&skyprof_sessions_mutex);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		struct skyprof_session *s = skyprof_sessions[i];

		if (!s || READ_ONCE(s->ending))
			continue;
		ret = fn(s, arg);
		if (ret)
			return ret;
	}
	return 0;
}

unsigned int skyprof_sessions_active(void)
{
	unsigned int i, n = 0;

	spin_lock(&skyprof_sessions_lock);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++)
		n += !!skyprof_sessions[i];
	spin_unlock(&skyprof_sessions_lock);
	return n;
}

void skyprof_session_read_stats(struct skyprof_session *s, unsigned int cpu,
				struct skyprof_cpu_stats *out)
{
	struct skyprof_cpu_stats *st = &per_cpu_ptr(s->pcpu, cpu)->st;

	/* Written by that CPU's handler only; each counter read once. */
	out->samples = READ_ONCE(st->samples);
	out->drops = READ_ONCE(st->drops);
	out->unwind_errors = READ_ONCE(st->unwind_errors);
	out->handler_ns = READ_ONCE(st->handler_ns);
	out->handler_max_ns = READ_ONCE(st->handler_max_ns);
	out->throttled = READ_ONCE(st->throttled);
	out->filtered = READ_ONCE(st->filtered);
	out->nested = READ_ONCE(st->nested);
	out->missed = READ_ONCE(st->missed);
	out->offcpu_short = READ_ONCE(st->offcpu_short);
	out->offcpu_full = READ_ONCE(st->offcpu_full);
	out->sb_noted = READ_ONCE(st->sb_noted);
	out->sb_full = READ_ONCE(st->sb_full);
	out->sb_reports = READ_ONCE(st->sb_reports);
	out->sb_records = READ_ONCE(st->sb_records);
	out->sb_lost = READ_ONCE(st->sb_lost);
	out->sb_walk_ns = READ_ONCE(st->sb_walk_ns);
	out->sb_throttled = READ_ONCE(st->sb_throttled);
	out->follow_added = READ_ONCE(st->follow_added);
	out->follow_full = READ_ONCE(st->follow_full);
}

/* Looks up a session for SKYPROF_IOC_BIND; returns a rings reference. */
struct skyprof_rings *skyprof_session_bind(u32 id, u64 token)
{
	struct skyprof_rings *rings = ERR_PTR(-ENOENT);
	struct skyprof_session *s;

	mutex_lock(&skyprof_sessions_mutex);
	s = skyprof_session_find(id);
	if (s && !READ_ONCE(s->ending)) {
		if (s->token == token) {
			skyprof_rings_get(s->rings);
			rings = s->rings;
		} else {
			rings = ERR_PTR(-EACCES);
		}
	}
	mutex_unlock(&skyprof_sessions_mutex);
	return rings;
}

/* ---- owner tracking ------------------------------------------------------ */

/* May run in atomic context (RCU read side): claim and defer only. */
static int skyprof_netlink_notify(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct skyprof_session *s;
	unsigned int i;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;
	spin_lock(&skyprof_sessions_lock);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		s = skyprof_sessions[i];
		if (!s || s->portid != n->portid || s->ending)
			continue;
		s->ending = true;
		s->end_reason = SKYPROF_END_OWNER_CLOSED;
		WRITE_ONCE(s->running, false);
		queue_work(skyprof_wq, &s->end_work);
	}
	spin_unlock(&skyprof_sessions_lock);
	return NOTIFY_DONE;
}

static struct notifier_block skyprof_netlink_nb = {
	.notifier_call = skyprof_netlink_notify,
};

/* ---- module init/exit ----------------------------------------------------- */

int skyprof_sessions_init(void)
{
	int ret;

	skyprof_wq = alloc_workqueue("skyprof", 0, 0);
	if (!skyprof_wq)
		return -ENOMEM;
	ret = skyprof_cpuhp_setup("skyprof:online", skyprof_cpu_online, skyprof_cpu_offline);
	if (ret < 0)
		goto err_wq;
	skyprof_cpuhp_state = ret;
	ret = netlink_register_notifier(&skyprof_netlink_nb);
	if (ret)
		goto err_cpuhp;
	return 0;

err_cpuhp:
	skyprof_cpuhp_remove(skyprof_cpuhp_state);
err_wq:
	destroy_workqueue(skyprof_wq);
	return ret;
}

/* First step of unload: refuse new sessions, end every live one. */
void skyprof_sessions_end_all(void)
{
	struct skyprof_session *s;
	unsigned int i;

	mutex_lock(&skyprof_sessions_mutex);
	skyprof_unloading = true;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		s = skyprof_sessions[i];
		if (s && skyprof_session_claim_end(s, SKYPROF_END_UNLOAD))
			skyprof_session_destroy(s);
	}
	mutex_unlock(&skyprof_sessions_mutex);
	/* Sessions whose owner went away just before: their teardown is queued. */
	flush_workqueue(skyprof_wq);
}

void skyprof_sessions_exit(void)
{
	netlink_unregister_notifier(&skyprof_netlink_nb);
	destroy_workqueue(skyprof_wq);
	skyprof_cpuhp_remove(skyprof_cpuhp_state);
}
