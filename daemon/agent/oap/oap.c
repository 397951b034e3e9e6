// SPDX-License-Identifier: GPL-2.0
/* The OAP thread; see agent_oap.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "agent/oap/oap.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "agent/template.h"
#include "agent/config.h"
#include "grpc/conn.h"
#include "grpc/frame.h"
#include "lib/clock.h"
#include "lib/random_bytes.h"
#include "sw_command.pb-c.h"
#include "sw_continuous.pb-c.h"
#include "sw_ebpf_process.pb-c.h"
#include "sw_ebpf_profiling.pb-c.h"

#define PATH_REPORT    "/skywalking.v3.EBPFProcessService/reportProcesses"
#define PATH_KEEPALIVE "/skywalking.v3.EBPFProcessService/keepAlive"
#define PATH_QUERY     "/skywalking.v3.EBPFProfilingService/queryTasks"
#define PATH_POLICIES  "/skywalking.v3.ContinuousProfilingService/queryPolicies"
#define PATH_CONT_TASK "/skywalking.v3.ContinuousProfilingService/reportProfilingTask"

/* Inbox ------------------------------------------------------------------------- */

int inbox_init(struct agent_inbox *in)
{
	memset(in, 0, sizeof(*in));
	pthread_mutex_init(&in->lock, NULL);
	in->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return in->efd < 0 ? -errno : 0;
}

void inbox_destroy(struct agent_inbox *in)
{
	free(in->v);
	if (in->efd >= 0)
		close(in->efd);
	pthread_mutex_destroy(&in->lock);
}

int inbox_push(struct agent_inbox *in, const struct task_spec *t)
{
	uint64_t one = 1;
	int r = 0;

	pthread_mutex_lock(&in->lock);
	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 8;
		struct task_spec *nv = realloc(in->v, cap * sizeof(*nv));

		if (!nv)
			r = -ENOMEM;
		else {
			in->v = nv;
			in->cap = cap;
		}
	}
	if (!r)
		in->v[in->n++] = *t;
	pthread_mutex_unlock(&in->lock);
	if (!r && write(in->efd, &one, sizeof(one)) < 0)
		r = 0; /* the counter is saturated: the reader is awake anyway */
	return r;
}

size_t inbox_take(struct agent_inbox *in, struct task_spec **out)
{
	uint64_t junk;
	size_t n;

	if (read(in->efd, &junk, sizeof(junk)) < 0)
		junk = 0;
	pthread_mutex_lock(&in->lock);
	n = in->n;
	*out = in->v;
	in->v = NULL;
	in->n = in->cap = 0;
	pthread_mutex_unlock(&in->lock);
	return n;
}

/* Time and backoff ---------------------------------------------------------------- */

static double jitter(void)
{
	uint32_t r = 0;

	if (!random_bytes(&r, sizeof(r)))
		r = (uint32_t)clock_mono_ms() * 2654435761u;
	return (double)r / 4294967296.0;
}

uint64_t oap_backoff_ms(unsigned int failures, uint64_t max_ms, double r)
{
	/* 1 s, 2 s, 4 s ... up to max, each within -20 %..+20 % so that many
	 * agents behind one restarted OAP do not come back in lockstep. */
	uint64_t base = 1000;
	double v;

	for (unsigned int i = 1; i < failures && base < max_ms; i++)
		base *= 2;
	if (base > max_ms)
		base = max_ms;
	v = (double)base * (0.8 + 0.4 * r);
	return v < 100 ? 100 : (uint64_t)v;
}

/* Answers with these codes mean the OAP is not usable right now (rover's list
 * plus the ones our own client produces); others are about the request. */
static bool code_is_transient(int code)
{
	switch (code) {
	case GRPC_UNAVAILABLE:
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
	case GRPC_RESOURCE_EXHAUSTED:
	case GRPC_UNKNOWN:
	case GRPC_DEADLINE_EXCEEDED:
	case GRPC_CANCELLED:
		return true;
	default:
		return false;
	}
}

/* Answers that come from the OAP's interceptors or its method table, before
 * any message reaches a handler: nothing of the request was stored. */
static bool refused_unread(int code)
{
	switch (code) {
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
	case GRPC_RESOURCE_EXHAUSTED:
	case GRPC_UNIMPLEMENTED:
		return true;
	default:
		return false;
	}
}

bool oap_nothing_stored(int rc, const struct grpc_result *res)
{
	return !res->msgs_sent || (!rc && !res->local && refused_unread(res->code));
}

static const char *hint(int code)
{
	switch (code) {
	case GRPC_PERMISSION_DENIED:
	case GRPC_UNAUTHENTICATED:
		return " (check core.backend.authentication against the OAP's token)";
	case GRPC_RESOURCE_EXHAUSTED:
		return " (the OAP is over its memory watermark)";
	case GRPC_UNIMPLEMENTED:
		return " (is the OAP's receiver-ebpf module enabled?)";
	default:
		return "";
	}
}

/* One line per backoff step, whatever failed. */
static void failed(struct agent_oap *o, const char *what, int rc, const struct grpc_result *res)
{
	uint64_t now = clock_mono_ms();

	o->failures++;
	o->st.calls_failed++;
	o->backoff_ms = oap_backoff_ms(o->failures, o->cfg->skyprof.backoff_max_ms, jitter());
	o->next_try = now + o->backoff_ms;
	if (rc)
		log_warn("OAP %s: %s: %s; retrying in %.1f s", o->cfg->backend.addr, what,
			 res->message, (double)o->backoff_ms / 1000);
	else
		log_warn("OAP %s: %s: %s%s%s%s; retrying in %.1f s", o->cfg->backend.addr, what,
			 grpc_code_name(res->code), res->message[0] ? ": " : "", res->message,
			 res->local ? "" : hint(res->code), (double)o->backoff_ms / 1000);
}

static void succeeded(struct agent_oap *o)
{
	o->st.calls_ok++;
	if (o->failures) {
		log_info("OAP %s: reachable again after %u failed attempts", o->cfg->backend.addr,
			 o->failures);
		o->st.reconnects++;
		/* A restarted OAP may not know our processes: register them all again. */
		o->full_report = true;
	}
	o->failures = 0;
	o->backoff_ms = 0;
}

/* The wire form of a request (malloc'ed), or NULL on -ENOMEM. */
static uint8_t *pack_msg(const ProtobufCMessage *m, size_t *len)
{
	uint8_t *buf;

	*len = protobuf_c_message_get_packed_size(m);
	buf = malloc(*len ? *len : 1);
	if (buf)
		protobuf_c_message_pack(m, buf);
	return buf;
}

/*
 * A call whose answer must be OK and, with a descriptor, decode as that
 * message: 0 with *out (NULL without a descriptor), -1 after failed(), or 1
 * when the OAP answered OK with something that does not decode. That counts
 * as a failure too (backoff, one line): a server that answers garbage at
 * once must not make us ask again at once.
 */
static int call(struct agent_oap *o, const char *what, const char *path, const uint8_t *req,
		size_t len, const ProtobufCMessageDescriptor *answer, ProtobufCMessage **out)
{
	struct grpc_msg m = { req, len };
	struct grpc_result res;
	int rc = grpc_call(o->conn, path, &m, 1, (uint32_t)o->cfg->skyprof.call_timeout_ms, &res);

	if (out)
		*out = NULL;
	if (rc || res.code != GRPC_OK) {
		failed(o, what, rc, &res);
		grpc_result_free(&res);
		return -1;
	}
	if (answer) {
		*out = protobuf_c_message_unpack(answer, NULL, res.body_len,
						 res.body ? res.body : (const uint8_t *)"");
		if (!*out) {
			size_t n = res.body_len;

			grpc_result_free(&res);
			res.code = GRPC_INTERNAL;
			res.local = true;
			snprintf(res.message, sizeof(res.message),
				 "the answer (%zu bytes) does not decode as %s", n, answer->name);
			failed(o, what, 0, &res);
			return 1;
		}
	}
	grpc_result_free(&res);
	succeeded(o);
	return 0;
}

/*
 * A call answered with Commands (queryTasks, queryPolicies,
 * reportProfilingTask): -1 when it failed, else 0 with *out, which is NULL
 * when the answer did not decode (logged, counted, backed off).
 */
static int call_commands(struct agent_oap *o, const char *what, const char *path,
			 const ProtobufCMessage *req, Skywalking__V3__Commands **out)
{
	ProtobufCMessage *m = NULL;
	size_t len;
	uint8_t *buf = pack_msg(req, &len);
	int r = buf ? call(o, what, path, buf, len, &skywalking__v3__commands__descriptor, &m) : -1;

	free(buf);
	*out = (Skywalking__V3__Commands *)m;
	if (r < 0)
		return -1;
	if (r > 0)
		o->st.commands_rejected++;
	return 0;
}

/* Process registration ------------------------------------------------------------- */

static void fill_entity(Skywalking__V3__EBPFProcessEntityMetadata *e, const struct agent_proc *p)
{
	skywalking__v3__ebpfprocess_entity_metadata__init(e);
	e->layer = p->layer;
	e->servicename = p->service;
	e->instancename = p->instance;
	e->processname = p->process;
	e->n_labels = p->nr_labels;
	e->labels = p->labels;
}

static bool same_labels(const struct agent_proc *p,
			const Skywalking__V3__EBPFProcessEntityMetadata *e)
{
	/* Both sorted: ours at discovery, the OAP echoes what we sent. Sort a copy anyway. */
	char **l;
	bool same = true;

	if (e->n_labels != p->nr_labels)
		return false;
	if (!e->n_labels)
		return true;
	l = malloc(e->n_labels * sizeof(*l));
	if (!l)
		return false;
	memcpy(l, e->labels, e->n_labels * sizeof(*l));
	for (size_t i = 1; i < e->n_labels; i++)
		for (size_t j = i; j > 0 && strcmp(l[j - 1], l[j]) > 0; j--) {
			char *t = l[j];

			l[j] = l[j - 1];
			l[j - 1] = t;
		}
	for (size_t i = 0; i < e->n_labels && same; i++)
		same = !strcmp(l[i], p->labels[i]);
	free(l);
	return same;
}

static bool matches(const struct agent_proc *p, int32_t pid,
		    const Skywalking__V3__EBPFProcessEntityMetadata *e)
{
	return e && (uint32_t)pid == p->pid && e->layer && !strcmp(e->layer, p->layer) &&
	       e->servicename && !strcmp(e->servicename, p->service) && e->instancename &&
	       !strcmp(e->instancename, p->instance) && e->processname &&
	       !strcmp(e->processname, p->process) && same_labels(p, e);
}

/* Report the NEW processes, or all when full. */
static void report(struct agent_oap *o, bool full)
{
	Skywalking__V3__EBPFProcessReportList list = SKYWALKING__V3__EBPFPROCESS_REPORT_LIST__INIT;
	struct agent_procs *t = o->procs;
	Skywalking__V3__EBPFProcessProperties *props = NULL, **pp = NULL;
	Skywalking__V3__EBPFHostProcessMetadata *hosts = NULL;
	Skywalking__V3__EBPFProcessEntityMetadata *ents = NULL;
	Skywalking__V3__KeyStringValuePair *kv = NULL, **kvp = NULL;
	Skywalking__V3__EBPFReportProcessDownstream *down;
	ProtobufCMessage *answer;
	char(*pids)[16] = NULL, host_ip[64];
	uint8_t *buf = NULL;
	size_t n = 0, len;
	uint32_t *sent = NULL;

	tmpl_host_ip(NULL, 2 /* AF_INET */, "en0", host_ip, sizeof(host_ip));
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++)
		if (full || t->v[i].state == PROC_NEW)
			n++;
	if (!n) {
		pthread_mutex_unlock(&t->lock);
		if (full)
			o->full_report = false;
		return;
	}
	props = calloc(n, sizeof(*props));
	pp = calloc(n, sizeof(*pp));
	hosts = calloc(n, sizeof(*hosts));
	ents = calloc(n, sizeof(*ents));
	kv = calloc(n * 4, sizeof(*kv));
	kvp = calloc(n * 4, sizeof(*kvp));
	pids = calloc(n, sizeof(*pids));
	sent = calloc(n, sizeof(*sent));
	if (!props || !pp || !hosts || !ents || !kv || !kvp || !pids || !sent) {
		pthread_mutex_unlock(&t->lock);
		log_warn("OAP: out of memory building reportProcesses");
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct agent_proc *p = &t->v[i];
		const char *keys[4] = { "host_ip", "pid", "command_line",
					"support_ebpf_profiling" };
		const char *vals[4];

		if (!(full || p->state == PROC_NEW))
			continue;
		snprintf(pids[n], sizeof(pids[n]), "%u", p->pid);
		vals[0] = host_ip;
		vals[1] = pids[n];
		vals[2] = p->cmdline;
		/* The OAP keeps this from the first report only: it must be right then. */
		vals[3] = p->support_profiling ? "true" : "false";
		for (int k = 0; k < 4; k++) {
			skywalking__v3__key_string_value_pair__init(&kv[n * 4 + k]);
			kv[n * 4 + k].key = (char *)keys[k];
			kv[n * 4 + k].value = (char *)vals[k];
			kvp[n * 4 + k] = &kv[n * 4 + k];
		}
		fill_entity(&ents[n], p);
		skywalking__v3__ebpfhost_process_metadata__init(&hosts[n]);
		hosts[n].entity = &ents[n];
		hosts[n].pid = (int32_t)p->pid;
		hosts[n].n_properties = 4;
		hosts[n].properties = &kvp[n * 4];
		skywalking__v3__ebpfprocess_properties__init(&props[n]);
		props[n].metadata_case =
			SKYWALKING__V3__EBPFPROCESS_PROPERTIES__METADATA_HOST_PROCESS;
		props[n].hostprocess = &hosts[n];
		pp[n] = &props[n];
		sent[n] = p->pid;
		n++;
	}
	list.n_processes = n;
	list.processes = pp;
	list.ebpfagentid = o->agent_id;
	buf = pack_msg(&list.base, &len);
	pthread_mutex_unlock(&t->lock);
	/* An answer that does not decode: reported again after the backoff. */
	if (!buf || call(o, "reportProcesses", PATH_REPORT, buf, len,
			 &skywalking__v3__ebpfreport_process_downstream__descriptor, &answer))
		goto out;
	down = (Skywalking__V3__EBPFReportProcessDownstream *)answer;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct agent_proc *p = &t->v[i];
		bool was_sent = false, found = false;

		for (size_t s = 0; s < n && !was_sent; s++)
			was_sent = sent[s] == p->pid;
		if (!was_sent)
			continue;
		for (size_t d = 0; d < down->n_processes && !found; d++) {
			Skywalking__V3__EBPFProcessDownstream *ds = down->processes[d];

			if (!ds ||
			    ds->process_case !=
				    SKYWALKING__V3__EBPFPROCESS_DOWNSTREAM__PROCESS_HOST_PROCESS ||
			    !ds->hostprocess ||
			    !matches(p, ds->hostprocess->pid, ds->hostprocess->entitymetadata))
				continue;
			found = true;
			if (!ds->processid || !*ds->processid ||
			    strlen(ds->processid) > ENTITY_ID_LEN) {
				log_warn("OAP: pid %u: the answer has no usable process id",
					 p->pid);
				found = false;
				break;
			}
			if (strcmp(p->process_id, ds->processid) || p->state != PROC_REPORTED)
				log_info("OAP: pid %u registered as process %s", p->pid,
					 ds->processid);
			snprintf(p->process_id, sizeof(p->process_id), "%s", ds->processid);
			if (strcmp(ds->processid, p->expected_id))
				log_warn("OAP: pid %u: process id %s differs from the formula's %s",
					 p->pid, ds->processid, p->expected_id);
			p->state = PROC_REPORTED;
			o->any_reported = true;
		}
		if (!found && p->state != PROC_REPORTED) {
			if (p->state != PROC_IGNORED)
				log_warn("OAP: pid %u (%s) was not accepted by the OAP; it will "
					 "not be "
					 "profiled",
					 p->pid, p->process);
			p->state = PROC_IGNORED;
		}
	}
	pthread_mutex_unlock(&t->lock);
	skywalking__v3__ebpfreport_process_downstream__free_unpacked(down, NULL);
	if (full)
		o->full_report = false;
out:
	free(buf);
	free(props);
	free(pp);
	free(hosts);
	free(ents);
	free(kv);
	free(kvp);
	free(pids);
	free(sent);
}

static void keep_alive(struct agent_oap *o)
{
	Skywalking__V3__EBPFProcessPingPkgList list =
		SKYWALKING__V3__EBPFPROCESS_PING_PKG_LIST__INIT;
	struct agent_procs *t = o->procs;
	Skywalking__V3__EBPFProcessPingPkg *pk = NULL, **pkp = NULL;
	Skywalking__V3__EBPFProcessEntityMetadata *ents = NULL;
	Skywalking__V3__KeyStringValuePair *kv = NULL, **kvp = NULL;
	uint8_t *buf = NULL;
	size_t n = 0, len;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].state == PROC_REPORTED;
	if (!n) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	pk = calloc(n, sizeof(*pk));
	pkp = calloc(n, sizeof(*pkp));
	ents = calloc(n, sizeof(*ents));
	kv = calloc(n, sizeof(*kv));
	kvp = calloc(n, sizeof(*kvp));
	if (!pk || !pkp || !ents || !kv || !kvp) {
		pthread_mutex_unlock(&t->lock);
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct agent_proc *p = &t->v[i];

		if (p->state != PROC_REPORTED)
			continue;
		fill_entity(&ents[n], p);
		skywalking__v3__key_string_value_pair__init(&kv[n]);
		kv[n].key = "support_ebpf_profiling";
		kv[n].value = p->support_profiling ? "true" : "false";
		kvp[n] = &kv[n];
		skywalking__v3__ebpfprocess_ping_pkg__init(&pk[n]);
		pk[n].entitymetadata = &ents[n];
		pk[n].n_properties = 1;
		pk[n].properties = &kvp[n];
		pkp[n] = &pk[n];
		n++;
	}
	list.n_processes = n;
	list.processes = pkp;
	list.ebpfagentid = o->agent_id;
	buf = pack_msg(&list.base, &len);
	pthread_mutex_unlock(&t->lock);
	/* The answer (Commands) carries nothing for hosts: not decoded. */
	if (buf)
		call(o, "keepAlive", PATH_KEEPALIVE, buf, len, NULL, NULL);
out:
	free(buf);
	free(pk);
	free(pkp);
	free(ents);
	free(kv);
	free(kvp);
}

/* Tasks ----------------------------------------------------------------------------- */

static void query_tasks(struct agent_oap *o)
{
	Skywalking__V3__EBPFProfilingTaskQuery q = SKYWALKING__V3__EBPFPROFILING_TASK_QUERY__INIT;
	Skywalking__V3__Commands *cmds;

	q.roverinstanceid = o->agent_id;
	q.latestupdatetime = (int64_t)o->latest_update_ms;
	if (call_commands(o, "queryTasks", PATH_QUERY, &q.base, &cmds) || !cmds)
		return;
	for (size_t i = 0; i < cmds->n_commands; i++) {
		struct task_spec t;
		char err[256];
		int r = task_parse_command(cmds->commands[i], &t, err, sizeof(err));

		if (r == -ENOENT) {
			log_debug("OAP: command '%s' is not for this agent; ignored",
				  cmds->commands[i] && cmds->commands[i]->command
					  ? cmds->commands[i]->command
					  : "");
			continue;
		}
		if (r) {
			o->st.commands_rejected++;
			log_warn("OAP: rejected a task command: %s", err);
			/* A task with a readable update time is not asked for again. */
			if (t.update_ms > o->latest_update_ms)
				o->latest_update_ms = t.update_ms;
			continue;
		}
		if (t.update_ms > o->latest_update_ms)
			o->latest_update_ms = t.update_ms;
		o->st.tasks_received++;
		log_info("OAP: task %s: %s for process %s, start %" PRIu64 ", %" PRIu64 " s",
			 t.task_id, task_target_name(t.target), t.process_id, t.start_ms,
			 t.duration_s);
		if (inbox_push(o->inbox, &t))
			log_warn("OAP: out of memory queueing task %s", t.task_id);
	}
	skywalking__v3__commands__free_unpacked(cmds, NULL);
}

/* Continuous profiling ------------------------------------------------------------------ */

static const char *cmd_arg(const Skywalking__V3__Command *c, const char *key)
{
	for (size_t i = 0; c && i < c->n_args; i++)
		if (c->args[i] && c->args[i]->key && c->args[i]->value &&
		    !strcmp(c->args[i]->key, key))
			return c->args[i]->value;
	return NULL;
}

/* One entry per distinct service of the registered processes, with the
 * policy version held for it: the OAP answers only for changed ones. */
static void query_policies(struct agent_oap *o)
{
	Skywalking__V3__ContinuousProfilingPolicyQuery q =
		SKYWALKING__V3__CONTINUOUS_PROFILING_POLICY_QUERY__INIT;
	Skywalking__V3__ContinuousProfilingServicePolicyQuery *ents = NULL, **ep = NULL;
	struct agent_procs *t = o->procs;
	char(*uuids)[128] = NULL;
	char **names = NULL;
	Skywalking__V3__Commands *cmds;
	size_t n = 0;

	pthread_mutex_lock(&t->lock);
	names = calloc(t->n ? t->n : 1, sizeof(*names));
	for (size_t i = 0; names && i < t->n; i++) {
		bool dup = false;

		if (t->v[i].state != PROC_REPORTED)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(names[k], t->v[i].service);
		if (!dup && !(names[n++] = strdup(t->v[i].service)))
			n--;
	}
	pthread_mutex_unlock(&t->lock);
	if (!n)
		goto out;
	ents = calloc(n, sizeof(*ents));
	ep = calloc(n, sizeof(*ep));
	uuids = calloc(n, sizeof(*uuids));
	if (!ents || !ep || !uuids)
		goto out;
	for (size_t i = 0; i < n; i++) {
		skywalking__v3__continuous_profiling_service_policy_query__init(&ents[i]);
		cont_policies_uuid(o->policies, names[i], uuids[i], sizeof(uuids[i]));
		ents[i].servicename = names[i];
		ents[i].uuid = uuids[i];
		ep[i] = &ents[i];
	}
	q.n_policies = n;
	q.policies = ep;
	if (call_commands(o, "queryPolicies", PATH_POLICIES, &q.base, &cmds) || !cmds)
		goto out;
	for (size_t i = 0; i < cmds->n_commands; i++) {
		const Skywalking__V3__Command *c = cmds->commands[i];
		const char *js = cmd_arg(c, "ServiceWithPolicyJSON");
		struct cont_apply_stats st;
		char err[256];

		if (!c || !c->command || strcmp(c->command, "ContinuousProfilingPolicyQuery"))
			continue;
		if (!js) {
			log_warn("OAP: policy command without ServiceWithPolicyJSON; ignored");
			o->st.commands_rejected++;
			continue;
		}
		if (cont_policies_apply(o->policies, js, strlen(js), NULL, &st, err, sizeof(err))) {
			log_warn("OAP: continuous policies rejected: %s", err);
			o->st.commands_rejected++;
			continue;
		}
		o->st.policies_applied += st.services;
	}
	skywalking__v3__commands__free_unpacked(cmds, NULL);
out:
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(ents);
	free(ep);
	free(uuids);
}

/* Report one fired policy; the task id of the answer becomes a task for the
 * main thread, run like a UI task. false when the call failed (retry). */
static bool report_trigger(struct agent_oap *o, const struct cont_trigger *tr)
{
	Skywalking__V3__ContinuousProfilingReport r =
		SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__INIT;
	Skywalking__V3__ContinuousProfilingCause causes[CONT_NR_MONITORS], *cp[CONT_NR_MONITORS];
	Skywalking__V3__ContinuousProfilingSingleValueCause sv[CONT_NR_MONITORS];
	Skywalking__V3__ContinuousOnCPUProfilingTask on =
		SKYWALKING__V3__CONTINUOUS_ON_CPUPROFILING_TASK__INIT;
	Skywalking__V3__ContinuousOffCPUProfilingTask off =
		SKYWALKING__V3__CONTINUOUS_OFF_CPUPROFILING_TASK__INIT;
	Skywalking__V3__Commands *cmds;
	struct task_spec t = { 0 };
	const char *id = NULL;

	r.layer = (char *)tr->layer;
	r.servicename = (char *)tr->service;
	r.instancename = (char *)tr->instance;
	r.processname = (char *)tr->process;
	r.duration = (int32_t)tr->duration_s;
	for (size_t i = 0; i < tr->nr_causes; i++) {
		skywalking__v3__continuous_profiling_cause__init(&causes[i]);
		skywalking__v3__continuous_profiling_single_value_cause__init(&sv[i]);
		sv[i].threshold = tr->causes[i].threshold;
		sv[i].current = tr->causes[i].current;
		causes[i].type = tr->causes[i].monitor; /* our numbers are the enum's */
		causes[i].cause_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_CAUSE__CAUSE_SINGLE_VALUE;
		causes[i].singlevalue = &sv[i];
		cp[i] = &causes[i];
	}
	r.n_causes = tr->nr_causes;
	r.causes = cp;
	if (tr->target == AGENT_TARGET_OFF_CPU) {
		r.target_task_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__TARGET_TASK_OFF_CPU;
		r.offcpu = &off;
	} else {
		r.target_task_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__TARGET_TASK_ON_CPU;
		r.oncpu = &on;
	}
	if (call_commands(o, "reportProfilingTask", PATH_CONT_TASK, &r.base, &cmds))
		return false;
	for (size_t i = 0; cmds && i < cmds->n_commands && !id; i++) {
		const Skywalking__V3__Command *c = cmds->commands[i];

		if (c && c->command && !strcmp(c->command, "ContinuousProfilingReportTask"))
			id = cmd_arg(c, "TaskId");
	}
	if (!id || !*id || strlen(id) >= sizeof(t.task_id)) {
		/* Without an id the data could not be found in the UI: do not profile. */
		log_warn("OAP: reportProfilingTask for %s (pid's process %s): no usable TaskId in "
			 "the answer; not profiling",
			 tr->process, tr->process_id);
		o->st.triggers_failed++;
	} else {
		snprintf(t.task_id, sizeof(t.task_id), "%s", id);
		snprintf(t.process_id, sizeof(t.process_id), "%s", tr->process_id);
		t.target = tr->target;
		t.trigger = TASK_TRIGGER_CONTINUOUS;
		/* the OAP stores the task with start = now and the reported duration */
		t.start_ms = t.update_ms = (uint64_t)time(NULL) * 1000;
		t.duration_s = tr->duration_s;
		o->st.triggers_reported++;
		log_info("OAP: continuous task %s: %s for process %s, %u s", t.task_id,
			 task_target_name(t.target), t.process_id, tr->duration_s);
		if (inbox_push(o->inbox, &t))
			log_warn("OAP: out of memory queueing task %s", t.task_id);
	}
	if (cmds)
		skywalking__v3__commands__free_unpacked(cmds, NULL);
	return true;
}

static void report_triggers(struct agent_oap *o)
{
	struct cont_trigger tr;

	while (cont_trigger_pop(o->policies, &tr))
		if (!report_trigger(o, &tr)) {
			/* back in line for after the backoff; a full queue loses it (logged) */
			if (!cont_trigger_push(o->policies, &tr))
				log_warn("continuous: trigger for %s dropped: queue full",
					 tr.process);
			break;
		}
}

/* Uploads ---------------------------------------------------------------------------- */

/*
 * Send one batch; false when the OAP failed. Delivery is at most once per
 * message: a batch goes again only when none of it can have reached the
 * OAP (no connection, or refused unread); after a stream broke with some
 * messages written, those are counted as unconfirmed and only the rest goes
 * again (queue_unconfirmed).
 */
static bool send_batch(struct agent_oap *o, struct upload_batch *b)
{
	struct grpc_msg *m = calloc(b->n ? b->n : 1, sizeof(*m));
	struct grpc_result res;
	/* A larger batch gets more time: 1 s per MiB on top of the call timeout. */
	uint32_t timeout = (uint32_t)(o->cfg->skyprof.call_timeout_ms + (b->bytes >> 20) * 1000);
	int rc;

	if (!m) {
		queue_return(o->queue, b);
		return false;
	}
	for (size_t i = 0; i < b->n; i++)
		m[i] = (struct grpc_msg){ b->msgs[i], b->lens[i] };
	rc = grpc_call(o->conn, b->path, m, b->n, timeout, &res);
	free(m);
	if (!rc && res.code == GRPC_OK) {
		grpc_result_free(&res);
		succeeded(o);
		log_debug("OAP: sent %s: %zu messages", b->what, b->n);
		queue_sent(o->queue, b);
		return true;
	}
	failed(o, b->what[0] ? b->what : "upload", rc, &res);
	grpc_result_free(&res);
	if (!oap_nothing_stored(rc, &res)) {
		/* At most once: what went out may be stored already. */
		log_warn("OAP: %s: the stream broke after %zu of %zu messages were written: "
			 "those are counted as unconfirmed and not sent again%s",
			 b->what, res.msgs_sent, b->n,
			 res.msgs_sent < b->n ? "; the rest will be" : "");
		queue_unconfirmed(o->queue, b, res.msgs_sent);
		return false;
	}
	if (!rc && !code_is_transient(res.code) && b->attempts >= 2) {
		/* The OAP keeps refusing this data: resending it forever would stall
		 * everything behind it. */
		log_warn("OAP: giving up on %s after %u attempts: %zu messages dropped", b->what,
			 b->attempts + 1, b->n);
		queue_drop(o->queue, b);
		return false;
	}
	queue_return(o->queue, b);
	return false;
}

/* The loop ---------------------------------------------------------------------------- */

static bool has_new(struct agent_procs *t)
{
	bool any = false;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n && !any; i++)
		any = t->v[i].state == PROC_NEW;
	pthread_mutex_unlock(&t->lock);
	return any;
}

static void *oap_thread(void *arg)
{
	struct agent_oap *o = arg;
	const struct agent_config *c = o->cfg;
	uint64_t stop_deadline = 0;

	o->next_heartbeat = clock_mono_ms();
	o->next_query = clock_mono_ms() + 1000;
	for (;;) {
		uint64_t now = clock_mono_ms();
		struct upload_batch *b;

		if (atomic_load(&o->stop)) {
			if (!stop_deadline)
				stop_deadline = now + o->drain_ms;
			if (now >= stop_deadline)
				break;
		}
		if (now < o->next_try) {
			/* backing off: wait, but wake for the stop request */
			usleep(100000);
			continue;
		}
		/* Registration first: tasks and uploads need process ids. Rover waits a
		 * whole heartbeat before its first report; new processes go out at once. */
		if (!atomic_load(&o->stop) &&
		    (now >= o->next_heartbeat || has_new(o->procs) || o->full_report)) {
			bool beat = now >= o->next_heartbeat;

			if (beat) {
				o->heartbeats++;
				o->next_heartbeat = now + c->heartbeat_period_ms;
			}
			report(o,
			       o->full_report ||
				       (beat && o->heartbeats % c->properties_report_period == 0));
			if (now < o->next_try)
				continue;
			if (beat)
				keep_alive(o);
			if (now < o->next_try || clock_mono_ms() < o->next_try)
				continue;
		}
		if (!atomic_load(&o->stop) && c->profiling_active && now >= o->next_query &&
		    o->any_reported) {
			o->next_query = now + c->check_interval_ms;
			query_tasks(o);
			if (clock_mono_ms() < o->next_try)
				continue;
			if (o->policies)
				query_policies(o);
			if (clock_mono_ms() < o->next_try)
				continue;
		}
		/* Fired policies go out before uploads: the task waits for the id. */
		if (!atomic_load(&o->stop) && o->policies && o->any_reported) {
			report_triggers(o);
			if (clock_mono_ms() < o->next_try)
				continue;
		}
		b = queue_pop(o->queue, atomic_load(&o->stop) ? 0 : 200);
		if (b) {
			send_batch(o, b);
			continue;
		}
		if (atomic_load(&o->stop))
			break; /* nothing left to send */
		if (grpc_conn_keepalive(o->conn, 5000))
			log_info("OAP %s: the connection did not answer a keepalive PING; "
				 "reconnecting on the next call",
				 c->backend.addr);
	}
	return NULL;
}

int oap_start(struct agent_oap *o, const struct agent_config *cfg, struct agent_procs *procs,
	      struct upload_queue *queue, struct agent_inbox *inbox, const struct tmpl_host *host,
	      struct cont_policies *policies, const char *agent_id, char *err, size_t errlen)
{
	struct grpc_opts go = {
		.addr = cfg->backend.addr,
		.tls = cfg->backend.enable_tls,
		.ca_file = cfg->backend.ca_pem_path,
		.cert_file = cfg->backend.client_pem_path,
		.key_file = cfg->backend.client_key_path,
		.insecure_skip_verify = cfg->backend.insecure_skip_verify,
		.authentication = cfg->backend.authentication,
		.connect_timeout_ms = (uint32_t)cfg->skyprof.connect_timeout_ms,
		.keepalive_ms = (uint32_t)cfg->backend.check_period_ms,
	};
	int r;

	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->procs = procs;
	o->queue = queue;
	o->inbox = inbox;
	o->host = host;
	o->policies = policies;
	snprintf(o->agent_id, sizeof(o->agent_id), "%s", agent_id);
	/* rover's shipped config names client files that usually do not exist:
	 * a missing one means "no client certificate", as in rover. */
	if (go.tls && ((go.cert_file && access(go.cert_file, R_OK)) ||
		       (go.key_file && access(go.key_file, R_OK)))) {
		if (go.cert_file || go.key_file)
			log_info("OAP: client certificate %s / key %s not readable: connecting "
				 "without one",
				 go.cert_file ? go.cert_file : "-",
				 go.key_file ? go.key_file : "-");
		go.cert_file = go.key_file = NULL;
	}
	if (go.tls && go.ca_file && !go.insecure_skip_verify && access(go.ca_file, R_OK)) {
		log_warn("OAP: CA file %s not readable: verifying against the system's trust store",
			 go.ca_file);
		go.ca_file = NULL;
	}
	o->conn = grpc_conn_new(&go, err, errlen);
	if (!o->conn)
		return -EINVAL;
	r = pthread_create(&o->thread, NULL, oap_thread, o);
	if (r) {
		snprintf(err, errlen, "cannot start the OAP thread: %s", strerror(r));
		grpc_conn_free(o->conn);
		o->conn = NULL;
		return -r;
	}
	o->running = true;
	return 0;
}

void oap_stop(struct agent_oap *o, uint32_t drain_ms)
{
	if (!o->running)
		return;
	o->drain_ms = drain_ms;
	atomic_store(&o->stop, true);
	queue_close(o->queue);
	pthread_join(o->thread, NULL);
	o->running = false;
	grpc_conn_free(o->conn);
	o->conn = NULL;
}
