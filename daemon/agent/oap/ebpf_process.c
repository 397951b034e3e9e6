// SPDX-License-Identifier: GPL-2.0
/* EBPFProcessService: reportProcesses and keepAlive; see ebpf_process.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/entity.h"
#include "agent/log.h"
#include "agent/oap/ebpf_process.h"
#include "agent/oap/state.h"
#include "agent/oap/rpc.h"
#include "agent/procs.h"
#include "agent/template.h"
#include "sw_ebpf_process.pb-c.h"

#define PATH_REPORT    "/skywalking.v3.EBPFProcessService/reportProcesses"
#define PATH_KEEPALIVE "/skywalking.v3.EBPFProcessService/keepAlive"

/* The properties each process is reported with. */
#define NR_PROPS 4

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
/* A reportProcesses request and the storage it points into. */
struct report_req {
	Skywalking__V3__EBPFProcessReportList list;
	Skywalking__V3__EBPFProcessProperties *props, **pp;
	Skywalking__V3__EBPFHostProcessMetadata *hosts;
	Skywalking__V3__EBPFProcessEntityMetadata *ents;
	Skywalking__V3__KeyStringValuePair *kv, **kvp;
	char (*pids)[16];
	uint32_t *sent; /* the pid of each process in the request */
	size_t n;
	char host_ip[64];
};

static int report_req_alloc(struct report_req *r, size_t n)
{
	r->props = calloc(n, sizeof(*r->props));
	r->pp = calloc(n, sizeof(*r->pp));
	r->hosts = calloc(n, sizeof(*r->hosts));
	r->ents = calloc(n, sizeof(*r->ents));
	r->kv = calloc(n * NR_PROPS, sizeof(*r->kv));
	r->kvp = calloc(n * NR_PROPS, sizeof(*r->kvp));
	r->pids = calloc(n, sizeof(*r->pids));
	r->sent = calloc(n, sizeof(*r->sent));
	if (!r->props || !r->pp || !r->hosts || !r->ents || !r->kv || !r->kvp || !r->pids ||
	    !r->sent)
		return -1;
	return 0;
}

static void report_req_free(struct report_req *r)
{
	free(r->props);
	free(r->pp);
	free(r->hosts);
	free(r->ents);
	free(r->kv);
	free(r->kvp);
	free(r->pids);
	free(r->sent);
}

/* Append p to the request; the strings stay p's (under the table's lock). */
static void report_req_add(struct report_req *r, const struct agent_proc *p)
{
	const char *keys[NR_PROPS] = { "host_ip", "pid", "command_line", "support_ebpf_profiling" };
	const char *vals[NR_PROPS];
	size_t n = r->n;
	Skywalking__V3__KeyStringValuePair *kv = &r->kv[n * NR_PROPS];

	snprintf(r->pids[n], sizeof(r->pids[n]), "%u", p->pid);
	vals[0] = r->host_ip;
	vals[1] = r->pids[n];
	vals[2] = p->cmdline;
	/* The OAP keeps this from the first report only: it must be right then. */
	vals[3] = p->support_profiling ? "true" : "false";
	for (int k = 0; k < NR_PROPS; k++) {
		skywalking__v3__key_string_value_pair__init(&kv[k]);
		kv[k].key = (char *)keys[k];
		kv[k].value = (char *)vals[k];
		r->kvp[n * NR_PROPS + k] = &kv[k];
	}
	fill_entity(&r->ents[n], p);
	skywalking__v3__ebpfhost_process_metadata__init(&r->hosts[n]);
	r->hosts[n].entity = &r->ents[n];
	r->hosts[n].pid = (int32_t)p->pid;
	r->hosts[n].n_properties = NR_PROPS;
	r->hosts[n].properties = &r->kvp[n * NR_PROPS];
	skywalking__v3__ebpfprocess_properties__init(&r->props[n]);
	r->props[n].metadata_case = SKYWALKING__V3__EBPFPROCESS_PROPERTIES__METADATA_HOST_PROCESS;
	r->props[n].hostprocess = &r->hosts[n];
	r->pp[n] = &r->props[n];
	r->sent[n] = p->pid;
	r->n++;
}

/* Take the process id the answer has for p, if any; false: none for p. */
static bool report_take_id(struct agent_oap *o, struct agent_proc *p,
			   const Skywalking__V3__EBPFReportProcessDownstream *down)
{
	for (size_t d = 0; d < down->n_processes; d++) {
		Skywalking__V3__EBPFProcessDownstream *ds = down->processes[d];

		if (!ds ||
		    ds->process_case !=
			    SKYWALKING__V3__EBPFPROCESS_DOWNSTREAM__PROCESS_HOST_PROCESS ||
		    !ds->hostprocess ||
		    !matches(p, ds->hostprocess->pid, ds->hostprocess->entitymetadata))
			continue;
		if (!ds->processid || !*ds->processid || strlen(ds->processid) > ENTITY_ID_LEN) {
			log_warn("OAP: pid %u: the answer has no usable process id", p->pid);
			return false;
		}
		if (strcmp(p->process_id, ds->processid) || p->state != PROC_REPORTED)
			log_info("OAP: pid %u registered as process %s", p->pid, ds->processid);
		snprintf(p->process_id, sizeof(p->process_id), "%s", ds->processid);
		if (strcmp(ds->processid, p->expected_id))
			log_warn("OAP: pid %u: process id %s differs from the formula's %s", p->pid,
				 ds->processid, p->expected_id);
		p->state = PROC_REPORTED;
		o->any_reported = true;
		return true;
	}
	return false;
}

/* The answer: the processes sent get their ids, or are not profiled. */
static void report_apply(struct agent_oap *o, const struct report_req *r,
			 const Skywalking__V3__EBPFReportProcessDownstream *down)
{
	struct agent_procs *t = o->procs;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct agent_proc *p = &t->v[i];
		bool was_sent = false;

		for (size_t s = 0; s < r->n && !was_sent; s++)
			was_sent = r->sent[s] == p->pid;
		if (!was_sent)
			continue;
		if (!report_take_id(o, p, down) && p->state != PROC_REPORTED) {
			if (p->state != PROC_IGNORED)
				log_warn("OAP: pid %u (%s) was not accepted by the OAP; it will "
					 "not be "
					 "profiled",
					 p->pid, p->process);
			p->state = PROC_IGNORED;
		}
	}
	pthread_mutex_unlock(&t->lock);
}

void ebpf_process_report(struct agent_oap *o, bool full)
{
	struct report_req r = { .list = SKYWALKING__V3__EBPFPROCESS_REPORT_LIST__INIT };
	struct agent_procs *t = o->procs;
	ProtobufCMessage *answer;
	uint8_t *buf = NULL;
	size_t n = 0, len;

	template_host_ip(NULL, 2 /* AF_INET */, "en0", r.host_ip, sizeof(r.host_ip));
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
	if (report_req_alloc(&r, n)) {
		pthread_mutex_unlock(&t->lock);
		log_warn("OAP: out of memory building reportProcesses");
		goto out;
	}
	for (size_t i = 0; i < t->n; i++)
		if (full || t->v[i].state == PROC_NEW)
			report_req_add(&r, &t->v[i]);
	r.list.n_processes = r.n;
	r.list.processes = r.pp;
	r.list.ebpfagentid = o->agent_id;
	buf = rpc_pack(&r.list.base, &len);
	pthread_mutex_unlock(&t->lock);
	/* An answer that does not decode: reported again after the backoff. */
	if (!buf || rpc_call(o, "reportProcesses", PATH_REPORT, buf, len,
			     &skywalking__v3__ebpfreport_process_downstream__descriptor, &answer))
		goto out;
	report_apply(o, &r, (Skywalking__V3__EBPFReportProcessDownstream *)answer);
	skywalking__v3__ebpfreport_process_downstream__free_unpacked(
		(Skywalking__V3__EBPFReportProcessDownstream *)answer, NULL);
	if (full)
		o->full_report = false;
out:
	free(buf);
	report_req_free(&r);
}

void ebpf_process_keep_alive(struct agent_oap *o)
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
	buf = rpc_pack(&list.base, &len);
	pthread_mutex_unlock(&t->lock);
	/* The answer (Commands) carries nothing for hosts: not decoded. */
	if (buf)
		rpc_call(o, "keepAlive", PATH_KEEPALIVE, buf, len, NULL, NULL);
out:
	free(buf);
	free(pk);
	free(pkp);
	free(ents);
	free(kv);
	free(kvp);
}
