// SPDX-License-Identifier: GPL-2.0
/* Generations from the module's side-band records (aspace.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "proc/aspace.h"
#include "proc/ident.h"
#include "proc/table.h"
#include "proc/table_priv.h"

struct proc_gen *proc_aspace_find(struct proc_table *t, uint32_t pid, uint64_t as_id)
{
	for (struct proc_gen *g = *proc_table_chain(t, pid); g; g = g->next)
		if (g->pid == pid && g->as_id == as_id)
			return g;
	return NULL;
}

/* The number after pid's highest; -1 when none is left. */
static int next_number(struct proc_table *t, uint32_t pid)
{
	int n = 0;

	for (struct proc_gen *g = *proc_table_chain(t, pid); g; g = g->next)
		if (g->pid == pid && g->gen >= n)
			n = g->gen + 1;
	return n <= UINT16_MAX ? n : -1;
}

/*
 * g into pid's chain (newest first) by its first sample: after every
 * generation of pid the module reported first sampled later. The newest
 * freezes the others; one that comes in behind a newer one is frozen.
 */
static void link_gen(struct proc_table *t, struct proc_gen *g)
{
	struct proc_gen **head = proc_table_chain(t, g->pid), **pos = head;

	for (struct proc_gen **pp = head; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == g->pid && (*pp)->as_id && (*pp)->first_ns > g->first_ns)
			pos = &(*pp)->next;
	if (pos == head) {
		for (struct proc_gen *o = *head; o; o = o->next)
			if (o->pid == g->pid)
				o->frozen = true;
	} else {
		g->frozen = true;
	}
	g->next = *pos;
	*pos = g;
}

struct proc_gen *proc_aspace_gen(struct proc_table *t, uint32_t pid, uint64_t as_id, int gen,
				 uint64_t first_ns)
{
	struct proc_gen *g = proc_aspace_find(t, pid, as_id);

	if (g) {
		if (first_ns && (!g->first_ns || first_ns < g->first_ns))
			g->first_ns = first_ns;
		return g;
	}
	if (gen >= 0) {
		g = proc_table_gen(t, pid, (uint16_t)gen);
		if (g && g->as_id)
			return NULL;
		if (g) {
			/* captured from /proc when the pid was noted: this image */
			g->as_id = as_id;
			g->first_ns = first_ns;
			return g;
		}
	} else {
		gen = next_number(t, pid);
		if (gen < 0)
			return proc_table_newest(t, pid);
	}
	g = proc_table_gen_alloc(pid, (uint16_t)gen);
	if (!g)
		return NULL;
	g->as_id = as_id;
	g->first_ns = first_ns;
	link_gen(t, g);
	return g;
}

static bool have_recorded(const struct proc_gen *g, const struct sp_mmap *mm)
{
	for (size_t i = 0; i < g->nr_maps; i++) {
		const struct proc_mapping *m = g->maps[i];

		if (m->recorded && m->start == mm->start && m->limit == mm->end &&
		    m->offset == mm->pgoff && m->ident.ino == mm->ino &&
		    m->ident.dev_major == mm->dev_major && m->ident.dev_minor == mm->dev_minor &&
		    m->ident.mtime_sec == mm->mtime_sec && m->ident.mtime_nsec == mm->mtime_nsec &&
		    !strcmp(m->path, mm->path))
			return true;
	}
	return false;
}

static void set_ident(struct files_ident *id, const struct sp_mmap *mm)
{
	id->dev_major = mm->dev_major;
	id->dev_minor = mm->dev_minor;
	id->ino = mm->ino;
	id->size = mm->size;
	id->mtime_sec = mm->mtime_sec;
	id->mtime_nsec = mm->mtime_nsec;
	id->build_id_size = mm->build_id_size <= sizeof(id->build_id) ? mm->build_id_size : 0;
	memcpy(id->build_id, mm->build_id, sizeof(id->build_id));
}

/*
 * The live process under g's pid runs the reported image: its executable
 * is the file the report marked as such. The pid may have been reused
 * since, by another program; by the same one it does no harm here.
 */
static bool runs_reported_image(struct proc_table *t, struct proc_gen *g, struct proc_ident *now)
{
	for (size_t i = 0; i < g->nr_maps; i++) {
		const struct proc_mapping *m = g->maps[i];

		if (!m->recorded || !m->is_main)
			continue;
		return !ident_read(proc_table_root(t), g->pid, now) &&
		       major((dev_t)now->exe_dev) == m->ident.dev_major &&
		       minor((dev_t)now->exe_dev) == m->ident.dev_minor &&
		       now->exe_ino == m->ident.ino;
	}
	return false;
}

int proc_aspace_report(struct proc_table *t, struct proc_gen *g, const struct sp_report *r)
{
	struct proc_ident now;
	bool anon = false;

	for (uint32_t i = 0; i < r->nr_maps; i++) {
		const struct sp_mmap *mm = &r->maps[i];
		struct proc_mapping *m;

		if (mm->as_id != g->as_id)
			continue;
		if (mm->flags & SKYPROF_MMAP_F_ANON)
			anon = true;
		if (have_recorded(g, mm))
			continue;
		m = proc_table_add_mapping(t, g, mm->start, mm->end, mm->pgoff, mm->ino, mm->path);
		if (!m)
			return -ENOMEM;
		m->recorded = true;
		m->is_main = mm->flags & SKYPROF_MMAP_F_EXE;
		set_ident(&m->ident, mm);
		if (m->is_main && mm->path[0])
			snprintf(g->exe, sizeof(g->exe), "%s", mm->path);
		proc_table_counts(t)->mappings++;
		proc_table_announce(t, g, m);
	}
	g->nr_reports++;
	proc_table_counts(t)->reports++;
	/* Anonymous executable memory is where JIT code lives: its perf map is
	 * looked for now, while the process still runs this image (and not
	 * another program under a reused pid). */
	if (anon && !g->anon_exec && !g->frozen && !(r->as.flags & SKYPROF_ASPACE_F_EXITED) &&
	    runs_reported_image(t, g, &now)) {
		g->ident = now;
		g->have_ident = true;
		g->anon_exec = true;
	}
	proc_table_captured(t, g, g->nr_reports == 1);
	return 0;
}

/* Whether the process /proc shows (identity now) started after sample_ns. */
static bool started_after(const struct proc_ident *now, uint64_t sample_ns)
{
	struct timespec mono, boot;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t start_ns, sample_boot_ns;

	if (hz <= 0 || clock_gettime(CLOCK_MONOTONIC, &mono) ||
	    clock_gettime(CLOCK_BOOTTIME, &boot))
		return false;
	/* The start time counts from boot (suspended time included), the
	 * sample's clock does not: the difference now is added, which can only
	 * place the sample later than it was (never a live process refused). */
	start_ns = now->start_time * (1000000000ull / (uint64_t)hz);
	sample_boot_ns = sample_ns + (uint64_t)(boot.tv_sec - mono.tv_sec) * 1000000000ull +
			 (uint64_t)(boot.tv_nsec - mono.tv_nsec);
	return start_ns > sample_boot_ns;
}

struct elsewhere {
	const struct proc_gen *g;
	const struct proc_gen *found;
};

static void find_reported(void *arg, struct proc_gen *o)
{
	struct elsewhere *w = arg;

	if (o != w->g && o->as_id == w->g->as_id && o->nr_reports && !w->found)
		w->found = o;
}

/*
 * An address space another pid's report described: a vfork child runs on
 * its parent's until it execs, and the report names the task that noted
 * it. Its recorded mappings are g's. Whether there was one.
 */
static bool copy_reported(struct proc_table *t, struct proc_gen *g)
{
	struct elsewhere w = { .g = g };

	proc_table_each(t, find_reported, &w);
	if (!w.found)
		return false;
	for (size_t i = 0; i < w.found->nr_maps; i++) {
		const struct proc_mapping *o = w.found->maps[i];
		struct proc_mapping *m;

		if (!o->recorded)
			continue;
		m = proc_table_add_mapping(t, g, o->start, o->limit, o->offset, o->inode, o->path);
		if (!m)
			break;
		m->recorded = true;
		m->is_main = o->is_main;
		m->ident = o->ident;
		proc_table_announce(t, g, m);
	}
	snprintf(g->exe, sizeof(g->exe), "%s", w.found->exe);
	proc_table_captured(t, g, true);
	return true;
}

void proc_aspace_fallback(struct proc_table *t, struct proc_gen *g, uint64_t sample_ns)
{
	struct proc_aspace_counts *n = proc_table_counts(t);
	struct proc_ident now;

	if (g->fallback_tried)
		return;
	g->fallback_tried = true;
	if (copy_reported(t, g))
		return;
	if (ident_read(proc_table_root(t), g->pid, &now)) {
		g->gone = true;
		n->fallback_gone++;
		return;
	}
	if (started_after(&now, sample_ns)) {
		n->fallback_reused++;
		return;
	}
	g->ident = now;
	g->have_ident = true;
	proc_table_read_exe(t, g);
	if (proc_table_read_maps(t, g) < 0) {
		n->fallback_gone++;
		return;
	}
	n->fallbacks++;
	proc_table_captured(t, g, true);
}

static void count_files(void *arg, struct proc_gen *g)
{
	struct proc_aspace_stats *out = arg;

	for (size_t i = 0; i < g->nr_maps; i++)
		if (g->maps[i]->recorded && g->maps[i]->check < __FILES_CHECK_MAX)
			out->files[g->maps[i]->check]++;
}

void proc_aspace_get_stats(struct proc_table *t, struct proc_aspace_stats *out)
{
	const struct proc_aspace_counts *n = proc_table_counts(t);

	memset(out, 0, sizeof(*out));
	out->reports = n->reports;
	out->mappings = n->mappings;
	out->fallbacks = n->fallbacks;
	out->fallback_reused = n->fallback_reused;
	out->fallback_gone = n->fallback_gone;
	proc_table_each(t, count_files, out);
}

const char *proc_aspace_files_line(const struct proc_aspace_stats *st, char *buf, size_t len)
{
	uint64_t ok = st->files[FILES_VERIFIED] + st->files[FILES_BY_BUILD_ID];
	uint64_t bad = st->files[FILES_REPLACED] + st->files[FILES_GONE] + st->files[FILES_NO_PATH];

	buf[0] = '\0';
	if (!ok && !bad)
		return buf;
	snprintf(buf, len,
		 "%" PRIu64 " mapped files verified against the recorded identity (%" PRIu64
		 " by build-id), %" PRIu64 " not verifiable, their frames [unknown] (%" PRIu64
		 " replaced, %" PRIu64 " gone, %" PRIu64 " without a path)",
		 ok, st->files[FILES_BY_BUILD_ID], bad, st->files[FILES_REPLACED],
		 st->files[FILES_GONE], st->files[FILES_NO_PATH]);
	return buf;
}
