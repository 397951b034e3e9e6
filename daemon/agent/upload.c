// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolized stacks to upload messages; see upload.h.
 *
 * The view keeps a sample per (thread, kernel addresses, user addresses);
 * the OAP wants one entry per symbol sequence. Each flush takes what each
 * view sample gained since the last one (its counts are cumulative) and
 * sums that by symbol key, in a hash table that lives as long as the task
 * and gives each key its stack id. What is new is counted per sample, not
 * per key, because a sample's symbols can change: a JIT frame named late
 * (profile/view_build.c) moves the sample to another key, which must get
 * only the counts that came after, not the ones sent under the old name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/queue.h"
#include "agent/upload.h"
#include "sw_ebpf_profiling.pb-c.h"
#include "profile/view.h"

#define MISSING	   "[MISSING]"
#define MAX_FRAMES 1024

struct delta_entry {
	char *key;
	uint64_t hash;
	uint64_t new_count, new_weight; /* this flush's, when gen is the table's */
	uint32_t sample;		/* a view sample with these symbols */
	uint32_t gen;
	int32_t id; /* stackId: this stack's number within the task */
};

/* What was sent of one view sample (sample i is stack i all the task long). */
struct sample_sent {
	uint64_t count, weight;
};

struct delta_table {
	struct delta_entry *v;
	size_t n, cap; /* cap: power of two */
	uint32_t gen;
	int32_t last_id;
	struct sample_sent *sent;
	uint32_t nr_sent;
};

struct delta_table *upload_deltas_new(void)
{
	return calloc(1, sizeof(struct delta_table));
}

void upload_deltas_free(struct delta_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].key);
	free(t->v);
	free(t->sent);
	free(t);
}

const char *upload_symbol_name(const char *name)
{
	if (!name || !*name || !strncmp(name, "[unknown]", 9))
		return MISSING;
	/* rover strips a leading '.' or '$' (compiler-local symbol prefixes) */
	if ((name[0] == '.' || name[0] == '$') && name[1])
		return name + 1;
	return name;
}

/* The frames of one sample, split by space, leaf first, inline frames expanded. */
struct frames {
	const char *kernel[MAX_FRAMES];
	const char *user[MAX_FRAMES];
	size_t nk, nu;
};

static void sample_frames(const struct view *v, const struct view_sample *s, struct frames *f)
{
	f->nk = f->nu = 0;
	for (uint32_t i = 0; i < s->nr_locs; i++) {
		const struct view_location *loc = &v->locations[v->sample_locs[s->first_loc + i]];

		if (!loc->nr_lines) {
			if (loc->kernel && f->nk < MAX_FRAMES)
				f->kernel[f->nk++] = MISSING;
			else if (!loc->kernel && f->nu < MAX_FRAMES)
				f->user[f->nu++] = MISSING;
			continue;
		}
		/* lines are innermost first: an inlined callee is a leafier frame */
		for (uint32_t l = 0; l < loc->nr_lines; l++) {
			const struct view_line *ln = &v->lines[loc->first_line + l];
			const char *name =
				upload_symbol_name(view_str(v, v->functions[ln->function].name));

			if (loc->kernel && f->nk < MAX_FRAMES)
				f->kernel[f->nk++] = name;
			else if (!loc->kernel && f->nu < MAX_FRAMES)
				f->user[f->nu++] = name;
		}
	}
}

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* "k1\nk2\n\001u1\nu2\n": unique per (kernel symbols, user symbols). */
static char *frames_key(const struct frames *f, uint64_t *hash)
{
	size_t len = 2;
	char *k, *p;

	for (size_t i = 0; i < f->nk; i++)
		len += strlen(f->kernel[i]) + 1;
	for (size_t i = 0; i < f->nu; i++)
		len += strlen(f->user[i]) + 1;
	p = k = malloc(len);
	if (!k)
		return NULL;
	for (size_t i = 0; i < f->nk; i++) {
		size_t l = strlen(f->kernel[i]);

		memcpy(p, f->kernel[i], l);
		p += l;
		*p++ = '\n';
	}
	*p++ = 1;
	for (size_t i = 0; i < f->nu; i++) {
		size_t l = strlen(f->user[i]);

		memcpy(p, f->user[i], l);
		p += l;
		*p++ = '\n';
	}
	*p = 0;
	*hash = fnv(1469598103934665603ull, k, (size_t)(p - k));
	return k;
}

static int grow(struct delta_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct delta_entry *nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->v[i].key)
			continue;
		for (j = t->v[i].hash & (cap - 1); nv[j].key; j = (j + 1) & (cap - 1))
			;
		nv[j] = t->v[i];
	}
	free(t->v);
	t->v = nv;
	t->cap = cap;
	return 0;
}

/* Find or insert; takes ownership of key. NULL on -ENOMEM (key freed). */
static struct delta_entry *lookup(struct delta_table *t, char *key, uint64_t hash)
{
	size_t j;

	if ((t->n + 1) * 2 > t->cap && grow(t)) {
		free(key);
		return NULL;
	}
	for (j = hash & (t->cap - 1); t->v[j].key; j = (j + 1) & (t->cap - 1))
		if (t->v[j].hash == hash && !strcmp(t->v[j].key, key)) {
			free(key);
			return &t->v[j];
		}
	t->v[j].key = key;
	t->v[j].hash = hash;
	/* The OAP keys a record on (task, "kernelId_userId", upload time): two
	 * stacks with one id in one upload overwrite each other, so ids are
	 * handed out in order rather than hashed. Past INT32_MAX stacks (more
	 * than memory holds) they would repeat. */
	t->v[j].id = t->last_id < INT32_MAX ? ++t->last_id : INT32_MAX;
	t->n++;
	return &t->v[j];
}

static int32_t clamp32(uint64_t v)
{
	return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* The task metadata alone, for the first message of a batch's remainder. */
static int set_prefix(struct upload_batch *b, Skywalking__V3__EBPFProfilingTaskMetadata *tm)
{
	Skywalking__V3__EBPFProfilingData d = SKYWALKING__V3__EBPFPROFILING_DATA__INIT;
	uint8_t buf[512];
	size_t len;

	d.task = tm;
	len = skywalking__v3__ebpfprofiling_data__get_packed_size(&d);
	if (len > sizeof(buf))
		return -ENOMEM; /* two ids under 128 bytes and two numbers: cannot happen */
	skywalking__v3__ebpfprofiling_data__pack(&d, buf);
	return batch_set_prefix(b, buf, len);
}

static int encode(const struct view *v, const struct delta_entry *e,
		  const struct upload_task_meta *m, bool first, struct upload_batch *b,
		  struct frames *f)
{
	Skywalking__V3__EBPFProfilingData d = SKYWALKING__V3__EBPFPROFILING_DATA__INIT;
	Skywalking__V3__EBPFProfilingTaskMetadata tm =
		SKYWALKING__V3__EBPFPROFILING_TASK_METADATA__INIT;
	Skywalking__V3__EBPFProfilingStackMetadata ks =
		SKYWALKING__V3__EBPFPROFILING_STACK_METADATA__INIT;
	Skywalking__V3__EBPFProfilingStackMetadata us =
		SKYWALKING__V3__EBPFPROFILING_STACK_METADATA__INIT;
	Skywalking__V3__EBPFOnCPUProfiling on = SKYWALKING__V3__EBPFON_CPUPROFILING__INIT;
	Skywalking__V3__EBPFOffCPUProfiling off = SKYWALKING__V3__EBPFOFF_CPUPROFILING__INIT;
	Skywalking__V3__EBPFProfilingStackMetadata *stacks[2];
	size_t ns = 0, len;
	uint8_t *buf;

	sample_frames(v, &v->samples[e->sample], f);
	if (f->nk) {
		ks.stacktype = SKYWALKING__V3__EBPFPROFILING_STACK_TYPE__PROCESS_KERNEL_SPACE;
		/* unique within the task and stable across its flushes (lookup) */
		ks.stackid = e->id;
		ks.n_stacksymbols = f->nk;
		ks.stacksymbols = (char **)f->kernel;
		stacks[ns++] = &ks;
	}
	if (f->nu) {
		us.stacktype = SKYWALKING__V3__EBPFPROFILING_STACK_TYPE__PROCESS_USER_SPACE;
		us.stackid = e->id;
		us.n_stacksymbols = f->nu;
		us.stacksymbols = (char **)f->user;
		stacks[ns++] = &us;
	}
	if (!ns)
		return 1; /* neither stack: the OAP wants no such message */
	if (first) {
		tm.taskid = (char *)m->task_id;
		tm.processid = (char *)m->process_id;
		tm.profilingstarttime = (int64_t)m->profiling_start_ms;
		tm.currenttime = (int64_t)m->current_ms;
		d.task = &tm;
	}
	if (m->offcpu) {
		off.n_stacks = ns;
		off.stacks = stacks;
		off.switchcount = clamp32(e->new_count);
		off.duration = (int64_t)e->new_weight;
		d.profiling_case = SKYWALKING__V3__EBPFPROFILING_DATA__PROFILING_OFF_CPU;
		d.offcpu = &off;
	} else {
		on.n_stacks = ns;
		on.stacks = stacks;
		on.dumpcount = clamp32(e->new_count);
		d.profiling_case = SKYWALKING__V3__EBPFPROFILING_DATA__PROFILING_ON_CPU;
		d.oncpu = &on;
	}
	len = skywalking__v3__ebpfprofiling_data__get_packed_size(&d);
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	skywalking__v3__ebpfprofiling_data__pack(&d, buf);
	if (batch_add_units(b, buf, len, e->new_count)) {
		free(buf);
		return -ENOMEM;
	}
	return first ? set_prefix(b, &tm) : 0;
}

/* Room for what was sent of n samples, the new ones at zero. */
static int grow_sent(struct delta_table *t, uint32_t n)
{
	struct sample_sent *ns;

	if (n <= t->nr_sent)
		return 0;
	ns = realloc(t->sent, n * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memset(ns + t->nr_sent, 0, (n - t->nr_sent) * sizeof(*ns));
	t->sent = ns;
	t->nr_sent = n;
	return 0;
}

static uint64_t gain(uint64_t now, uint64_t sent)
{
	return now > sent ? now - sent : 0;
}

int upload_collect(struct delta_table *t, const struct view *v, uint32_t pid,
		   const struct upload_task_meta *m, struct upload_batch *b,
		   struct upload_totals *tot)
{
	struct frames *f;
	bool first = true;
	int r = 0;

	memset(tot, 0, sizeof(*tot));
	if (grow_sent(t, v->nr_samples))
		return -ENOMEM;
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	t->gen++;
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		const struct view_sample *s = &v->samples[i];
		uint64_t dc = gain(s->count, t->sent[i].count);
		uint64_t dw = gain(s->weight, t->sent[i].weight);
		struct delta_entry *e;
		uint64_t hash;
		char *key;

		if ((pid && s->pid != pid) || (!dc && !dw))
			continue;
		sample_frames(v, s, f);
		key = frames_key(f, &hash);
		if (!key || !(e = lookup(t, key, hash))) {
			r = -ENOMEM;
			goto out;
		}
		if (e->gen != t->gen) {
			e->gen = t->gen;
			e->new_count = e->new_weight = 0;
			e->sample = i;
		}
		e->new_count += dc;
		e->new_weight += dw;
	}
	for (size_t j = 0; j < t->cap; j++) {
		struct delta_entry *e = &t->v[j];
		int er;

		if (!e->key || e->gen != t->gen || !e->new_count)
			continue;
		/* dumpCount is int32: more than 2^31 samples in one flush interval
		 * cannot happen at the module's frequency limit; it is clamped. */
		er = encode(v, e, m, first, b, f);
		if (er < 0) {
			r = er;
			goto out;
		}
		if (er == 0) {
			first = false;
			tot->messages++;
			tot->count += e->new_count;
			tot->weight += e->new_weight;
		}
	}
	/* All of it is in the batch: it counts as sent (a stack with neither
	 * space's frames too, which the OAP takes no message for). */
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		if (pid && v->samples[i].pid != pid)
			continue;
		t->sent[i].count = v->samples[i].count;
		t->sent[i].weight = v->samples[i].weight;
	}
out:
	free(f);
	return r;
}
