// SPDX-License-Identifier: GPL-2.0
/*
 * The JVMs being profiled, asked for their JIT names (jvm_ask.h). Every pid
 * added has a slot in an open-addressed table (a command's whole process
 * tree may come through here); only a JVM gets the state of its requests.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/clock.h"
#include "lib/path.h"
#include "proc/jvm_ask.h"
#include "proc/jvm_attach.h"

/* A JVM without a SIGQUIT handler yet is looked at again this often, this
 * long after it was added (it may be starting). */
#define HANDLER_RETRY_NS   1000000000ull
#define HANDLER_GIVE_UP_NS 60000000000ull
/* Probes per poll: a fork storm must not make one poll slow. */
#define PROBES_PER_POLL 16
/* The java launcher loads libjvm.so a moment after its exec: looked at
 * again this often, this long. */
#define LAUNCHER_RETRY_NS 200000000ull
#define LAUNCHER_WAIT_NS  30000000000ull
/* At the end, a JVM whose last answer is younger than this is not asked again. */
#define FRESH_NS 1000000000ull

#define CMD_PERFMAP  "Compiler.perfmap"
#define CMD_CODELIST "Compiler.codelist"

enum state {
	S_NEW,	   /* to be probed */
	S_IDLE,	   /* a JVM: asked again at next_ns */
	S_ASKING,  /* a request in flight */
	S_QUIET,   /* not a JVM, gone, or writes its own map: nothing to do */
	S_GAVE_UP, /* refused or failed: said so, not asked again */
};

/* A JVM's requests. */
struct jvm {
	struct jvm_probe probe;
	struct jvm_attach_target target;
	struct jvm_attach x;
	bool codelist;	/* Compiler.perfmap unknown to it: JDK 9 to 16 */
	bool end_asked; /* the request before a planned end was made */
	uint64_t added_ns, next_ns, interval_ns, asked_ns, answered_ns;
	uint64_t size; /* at the last answer: the map's bytes, or methods listed */
	unsigned int answers;
	uint64_t cost_sum_ns, cost_max_ns;
	char why[192];
};

struct slot {
	uint32_t pid; /* 0: free */
	uint16_t gen; /* the image's, as the caller numbers them */
	enum state st;
	uint64_t added_ns, probe_ns; /* S_NEW: probed from probe_ns on */
	struct jvm *jvm;	     /* JVMs only */
};

struct jvm_ask {
	char proc_root[PATH_MAX];
	struct jvm_ask_hooks h;
	struct slot *slots;
	size_t nr, cap; /* cap a power of two */
};

struct jvm_ask *jvm_ask_new(const char *proc_root, const struct jvm_ask_hooks *hooks)
{
	struct jvm_ask *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	if (!path_fmt(j->proc_root, sizeof(j->proc_root), "%s", proc_root ? proc_root : "/proc")) {
		free(j);
		return NULL;
	}
	if (hooks)
		j->h = *hooks;
	j->cap = 16;
	j->slots = calloc(j->cap, sizeof(*j->slots));
	if (!j->slots) {
		free(j);
		return NULL;
	}
	return j;
}

void jvm_ask_free(struct jvm_ask *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->cap; i++) {
		if (!j->slots[i].jvm)
			continue;
		jvm_attach_end(&j->slots[i].jvm->x);
		free(j->slots[i].jvm);
	}
	free(j->slots);
	free(j);
}

static size_t hash(uint32_t pid, size_t cap)
{
	return (size_t)(pid * 2654435761u) & (cap - 1);
}

static struct slot *find(const struct jvm_ask *j, uint32_t pid)
{
	for (size_t i = hash(pid, j->cap);; i = (i + 1) & (j->cap - 1)) {
		if (j->slots[i].pid == pid)
			return &j->slots[i];
		if (!j->slots[i].pid)
			return NULL;
	}
}

static int grow(struct jvm_ask *j)
{
	size_t cap = j->cap * 2;
	struct slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < j->cap; i++) {
		size_t k;

		if (!j->slots[i].pid)
			continue;
		for (k = hash(j->slots[i].pid, cap); s[k].pid; k = (k + 1) & (cap - 1))
			;
		s[k] = j->slots[i];
	}
	free(j->slots);
	j->slots = s;
	j->cap = cap;
	return 0;
}

/*
 * Is s's process still the JVM it was (or gone: then what it was is kept
 * for the notes at the end)? A caller's new generation may be only its
 * exit (its exe unreadable once it is a zombie).
 */
static bool same_image(const struct jvm_ask *j, const struct slot *s)
{
	struct proc_ident now;

	if (!s->jvm || s->st == S_NEW)
		return false;
	if (ident_read(j->proc_root, s->pid, &now))
		return true;
	if (!now.exe_dev && !now.exe_ino) /* exiting */
		return now.start_time == s->jvm->probe.ident.start_time;
	return ident_same(&now, &s->jvm->probe.ident);
}

/* s's process exec'd: what it was is forgotten, it is probed anew. */
static void reset(struct slot *s, uint16_t gen)
{
	if (s->jvm) {
		jvm_attach_end(&s->jvm->x);
		free(s->jvm);
		s->jvm = NULL;
	}
	s->gen = gen;
	s->st = S_NEW;
	s->added_ns = clock_mono_ns();
	s->probe_ns = 0;
}

int jvm_ask_add(struct jvm_ask *j, uint32_t pid, uint16_t gen)
{
	struct slot *s;
	size_t i;

	if (!pid)
		return 0;
	s = find(j, pid);
	if (s) {
		if (gen > s->gen && !same_image(j, s))
			reset(s, gen);
		s->gen = gen > s->gen ? gen : s->gen;
		return 0;
	}
	if (2 * (j->nr + 1) > j->cap && grow(j))
		return -ENOMEM;
	for (i = hash(pid, j->cap); j->slots[i].pid; i = (i + 1) & (j->cap - 1))
		;
	j->slots[i] =
		(struct slot){ .pid = pid, .gen = gen, .st = S_NEW, .added_ns = clock_mono_ns() };
	j->nr++;
	return 0;
}

static void say(struct jvm_ask *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct jvm_ask *j, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!j->h.say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	j->h.say(j->h.arg, line);
}

bool jvm_ask_asking(const struct jvm_ask *j, uint32_t pid)
{
	const struct slot *s = find(j, pid);

	return s && (s->st == S_IDLE || s->st == S_ASKING) && s->jvm->answers;
}

void jvm_ask_unnamed(struct jvm_ask *j, uint32_t pid)
{
	struct slot *s = find(j, pid);
	uint64_t soon;

	if (!s || s->st != S_IDLE || !s->jvm->answers)
		return;
	soon = s->jvm->answered_ns + JVM_ASK_INTERVAL_MIN_NS;
	if (soon < s->jvm->next_ns)
		s->jvm->next_ns = soon;
	s->jvm->interval_ns = JVM_ASK_INTERVAL_MIN_NS;
}

/* Is pid still the image that was probed? */
static bool alive(const struct jvm_ask *j, uint32_t pid, const struct jvm *v)
{
	struct proc_ident now;

	return !ident_read(j->proc_root, pid, &now) && ident_same(&now, &v->probe.ident);
}

static void probe(struct jvm_ask *j, struct slot *s, uint64_t now)
{
	struct jvm *v;

	s->st = S_QUIET;
	v = calloc(1, sizeof(*v));
	if (!v)
		return;
	if (jvm_probe_read(j->proc_root, s->pid, &v->probe) || !v->probe.hotspot ||
	    !jvm_attach_target_of(&v->target, j->proc_root, s->pid, &v->probe)) {
		if (v->probe.launcher && now - s->added_ns < LAUNCHER_WAIT_NS) {
			s->st = S_NEW; /* libjvm.so comes next */
			s->probe_ns = now + LAUNCHER_RETRY_NS;
		}
		free(v);
		return;
	}
	v->x.fd = -1;
	v->added_ns = v->next_ns = now;
	v->interval_ns = JVM_ASK_INTERVAL_MIN_NS;
	s->jvm = v;
	if (v->probe.map_open) {
		snprintf(v->why, sizeof(v->why), "it writes its own perf map");
		return;
	}
	if (v->probe.disable_attach == JVM_FLAG_ON) {
		snprintf(v->why, sizeof(v->why), "it runs with -XX:+DisableAttachMechanism");
		say(j, "JVM pid %u (%s) is not asked for its perf map: %s", s->pid, v->probe.comm,
		    v->why);
		s->st = S_GAVE_UP;
		return;
	}
	s->st = S_IDLE;
}

static void give_up(struct jvm_ask *j, struct slot *s, const char *why)
{
	struct jvm *v = s->jvm;

	jvm_attach_end(&v->x);
	if (!alive(j, s->pid, v)) {
		s->st = S_QUIET; /* it exited: its last answer stands */
		return;
	}
	snprintf(v->why, sizeof(v->why), "%s", why);
	s->st = S_GAVE_UP;
	say(j, "JVM pid %u (%s) %s: %s; its JIT frames stay unnamed", s->pid, v->probe.comm,
	    v->answers ? "stopped answering for its perf map" : "gave no perf map", why);
}

static void start(struct jvm_ask *j, struct slot *s, uint64_t now)
{
	struct jvm *v = s->jvm;

	v->asked_ns = now;
	s->st = S_ASKING;
	/* a failure of the first step is handled by the next poll's step */
	jvm_attach_begin(&v->x, &v->target, v->codelist ? CMD_CODELIST : CMD_PERFMAP, now);
	(void)j;
}

/* Collects Compiler.codelist's methods, names copied. */
struct methods {
	struct jvm_method *m;
	size_t n, cap;
};

static int take_method(void *arg, const struct jvm_method *m)
{
	struct methods *ms = arg;
	char *name;

	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? 2 * ms->cap : 256;
		struct jvm_method *a = realloc(ms->m, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		ms->m = a;
		ms->cap = cap;
	}
	name = strdup(m->name);
	if (!name)
		return -ENOMEM;
	ms->m[ms->n] = *m;
	ms->m[ms->n++].name = name;
	return 0;
}

static void free_methods(struct methods *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free((char *)ms->m[i].name);
	free(ms->m);
}

/* The JVM's answer to a request that went through: 0, or why it is no use. */
static int take_answer(struct jvm_ask *j, struct slot *s, char *why, size_t n, uint64_t *size)
{
	struct jvm *v = s->jvm;
	struct jvm_reply r;
	char line[160];

	if (jvm_reply_parse(v->x.answer, v->x.answer_len, &r)) {
		snprintf(why, n, "its answer is not of the attach protocol");
		return -EINVAL;
	}
	jvm_reply_first_line(&r, line, sizeof(line));
	if (r.status == JVM_REPLY_BAD_VERSION) {
		snprintf(why, n, "it does not speak attach protocol version 1");
		return -EPROTO;
	}
	if (r.status) {
		if (strstr(line, "Unknown diagnostic command")) {
			if (!v->codelist)
				return -ENOENT; /* JDK 9..16: Compiler.codelist then */
			snprintf(why, n,
				 "it has neither Compiler.perfmap (JDK 17+) nor "
				 "Compiler.codelist (JDK 9+): JDK 8 has no way to "
				 "name JIT code without an agent (perf-map-agent)");
		} else {
			snprintf(why, n, "it refused %s: %s",
				 v->codelist ? CMD_CODELIST : CMD_PERFMAP, line[0] ? line : "?");
		}
		return -EPERM;
	}
	if (v->codelist) {
		struct methods ms = { 0 };
		int e = jvm_reply_codelist(r.text, r.len, take_method, &ms);

		if (e >= 0 && j->h.answered)
			j->h.answered(j->h.arg, s->pid, ms.m, ms.n);
		free_methods(&ms);
		if (e < 0) {
			snprintf(why, n, "out of memory reading its answer");
			return e;
		}
		*size = (uint64_t)e;
	} else {
		char path[PATH_MAX];
		struct stat st;

		if (!path_fmt(path, sizeof(path), "%s/perf-%u.map", v->target.tmp_dir,
			      v->target.nspid) ||
		    stat(path, &st)) {
			snprintf(why, n, "it answered, but wrote no /tmp/perf-%u.map",
				 v->target.nspid);
			return -ENOENT;
		}
		*size = (uint64_t)st.st_size;
		if (j->h.answered)
			j->h.answered(j->h.arg, s->pid, NULL, 0);
	}
	return 0;
}

static void answered(struct jvm_ask *j, struct slot *s, uint64_t now)
{
	struct jvm *v = s->jvm;
	uint64_t size = 0, cost = now - v->asked_ns;
	char why[192];
	int e = take_answer(j, s, why, sizeof(why), &size);

	jvm_attach_end(&v->x);
	if (e == -ENOENT && !v->codelist) {
		v->codelist = true;
		start(j, s, now);
		return;
	}
	if (e) {
		give_up(j, s, why);
		return;
	}
	if (!v->answers)
		say(j, "JVM pid %u (%s): %s on request over its attach socket, in %.0f ms", s->pid,
		    v->probe.comm,
		    v->codelist ? "compiled methods listed (Compiler.codelist, JDK < 17)"
				: "perf map written",
		    (double)cost / 1e6);
	/* compiled code that grew is asked for again soon, else ever later */
	if (!v->answers || size > v->size + v->size / 32)
		v->interval_ns = JVM_ASK_INTERVAL_MIN_NS;
	else if ((v->interval_ns *= 2) > JVM_ASK_INTERVAL_MAX_NS)
		v->interval_ns = JVM_ASK_INTERVAL_MAX_NS;
	v->size = size;
	v->answers++;
	v->answered_ns = now;
	v->cost_sum_ns += cost;
	if (cost > v->cost_max_ns)
		v->cost_max_ns = cost;
	v->next_ns = now + v->interval_ns;
	s->st = S_IDLE;
}

static void failed(struct jvm_ask *j, struct slot *s, uint64_t now)
{
	struct jvm *v = s->jvm;

	if (v->x.why == JVM_WHY_NO_HANDLER && !v->answers &&
	    now - v->added_ns < HANDLER_GIVE_UP_NS) {
		/* starting: the JVM installs its handler a little later */
		jvm_attach_end(&v->x);
		v->next_ns = now + HANDLER_RETRY_NS;
		s->st = S_IDLE;
		return;
	}
	give_up(j, s, v->x.err);
}

static void step(struct jvm_ask *j, struct slot *s, uint64_t now)
{
	switch (jvm_attach_step(&s->jvm->x, now)) {
	case JVM_ATTACH_DONE:
		answered(j, s, now);
		break;
	case JVM_ATTACH_FAILED:
		failed(j, s, now);
		break;
	case JVM_ATTACH_PENDING:
		break;
	}
}

void jvm_ask_poll(struct jvm_ask *j, uint64_t left_ns)
{
	uint64_t now = clock_mono_ns();
	int probes = 0;

	for (size_t i = 0; i < j->cap; i++) {
		struct slot *s = &j->slots[i];

		if (!s->pid)
			continue;
		if (s->st == S_NEW) {
			if (now < s->probe_ns || probes++ >= PROBES_PER_POLL)
				continue;
			probe(j, s, now);
		}
		if (s->st == S_ASKING) {
			step(j, s, now);
			continue;
		}
		if (s->st != S_IDLE)
			continue;
		if (left_ns <= JVM_ASK_END_LEAD_NS && !s->jvm->end_asked && s->jvm->answers) {
			s->jvm->end_asked = true;
			s->jvm->next_ns = now;
		}
		if (now >= s->jvm->next_ns) {
			if (!alive(j, s->pid, s->jvm)) {
				s->st = S_QUIET;
				continue;
			}
			start(j, s, now);
		}
	}
}

/* Waits for s's request, answered or not. */
static void wait_one(struct jvm_ask *j, struct slot *s)
{
	while (s->st == S_ASKING) {
		jvm_attach_wait(&s->jvm->x);
		step(j, s, clock_mono_ns());
	}
}

void jvm_ask_finish(struct jvm_ask *j, bool wait)
{
	for (size_t i = 0; i < j->cap; i++) {
		struct slot *s = &j->slots[i];

		if (s->st == S_ASKING && !wait) {
			jvm_attach_end(&s->jvm->x);
			s->st = S_IDLE;
		}
		if (s->st == S_ASKING)
			wait_one(j, s);
		if (wait && s->st == S_IDLE && s->jvm->answers &&
		    clock_mono_ns() - s->jvm->answered_ns >= FRESH_NS && alive(j, s->pid, s->jvm)) {
			start(j, s, clock_mono_ns());
			wait_one(j, s);
		}
	}
	for (size_t i = 0; i < j->cap; i++) {
		struct jvm *v = j->slots[i].jvm;

		if (v && v->answers > 1)
			say(j,
			    "JVM pid %u (%s): perf map asked for %u times, %.0f ms each on "
			    "average, at most %.0f ms",
			    j->slots[i].pid, v->probe.comm, v->answers,
			    (double)v->cost_sum_ns / v->answers / 1e6,
			    (double)v->cost_max_ns / 1e6);
	}
}

bool jvm_ask_result(const struct jvm_ask *j, uint32_t pid, struct jvm_ask_result *out)
{
	const struct slot *s = find(j, pid);

	memset(out, 0, sizeof(*out));
	if (!s || !s->jvm)
		return false;
	out->jvm = true;
	out->answered = s->jvm->answers > 0;
	out->own_map = s->jvm->probe.map_open;
	out->preserve_fp = s->jvm->probe.preserve_fp;
	snprintf(out->why, sizeof(out->why), "%s", s->jvm->why);
	return true;
}
