// SPDX-License-Identifier: GPL-2.0
/*
 * The process table (table.h): per pid a chain of generations, newest first,
 * in a fixed array of hash buckets.
 *
 * A miss (an address in no captured mapping: a library dlopen'ed after
 * first sight) re-reads the maps while the process lives and still runs
 * the image they were captured from; after an exec the process is a new
 * generation with maps of its own, and the older ones are frozen.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strtab.h"
#include "lib/path.h"
#include "proc/files.h"
#include "proc/maps.h"
#include "proc/table.h"
#include "proc/table_priv.h"

#define PROC_BUCKETS 1024

/* Reads of /proc/PID/maps: see read_maps. */
#define MAPS_READ_BYTES (64 * 1024)

struct proc_table {
	char proc_root[PATH_MAX];
	struct proc_table_hooks hooks;
	struct strtab paths; /* the mappings' */
	/* Our own pid namespace (proc_root's self/ns/pid), once looked up. */
	bool own_pidns_tried, own_pidns_known;
	dev_t own_pidns_dev;
	ino_t own_pidns_ino;
	struct proc_gen *procs[PROC_BUCKETS];
	char *maps_buf; /* read_maps' stdio buffer, kept: malloc'd and freed
			 * for each read, it was new heap memory each time */
	struct proc_aspace_counts aspace;
};

struct proc_gen **proc_table_chain(struct proc_table *t, uint32_t pid)
{
	return &t->procs[pid % PROC_BUCKETS];
}

struct proc_aspace_counts *proc_table_counts(struct proc_table *t)
{
	return &t->aspace;
}

void proc_table_captured(struct proc_table *t, struct proc_gen *g, bool first)
{
	if (t->hooks.captured)
		t->hooks.captured(t->hooks.arg, g, first);
}

struct proc_table *proc_table_new(const char *proc_root, const struct proc_table_hooks *hooks)
{
	struct proc_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (!path_fmt(t->proc_root, sizeof(t->proc_root), "%s", proc_root ? proc_root : "/proc") ||
	    strtab_init(&t->paths)) {
		free(t);
		return NULL;
	}
	if (hooks)
		t->hooks = *hooks;
	return t;
}

static void gen_free(struct proc_gen *g)
{
	for (size_t i = 0; i < g->nr_maps; i++)
		free(g->maps[i]);
	free(g->maps);
	if (g->rootfd >= 0)
		close(g->rootfd);
	free(g);
}

void proc_table_free(struct proc_table *t)
{
	if (!t)
		return;
	for (size_t b = 0; b < PROC_BUCKETS; b++) {
		while (t->procs[b]) {
			struct proc_gen *n = t->procs[b]->next;

			gen_free(t->procs[b]);
			t->procs[b] = n;
		}
	}
	strtab_free(&t->paths);
	free(t->maps_buf);
	free(t);
}

const char *proc_table_root(const struct proc_table *t)
{
	return t->proc_root;
}

void proc_table_each(struct proc_table *t, void (*fn)(void *arg, struct proc_gen *g), void *arg)
{
	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct proc_gen *g = t->procs[b]; g; g = g->next)
			fn(arg, g);
}

struct proc_gen *proc_table_newest(struct proc_table *t, uint32_t pid)
{
	for (struct proc_gen *g = t->procs[pid % PROC_BUCKETS]; g; g = g->next)
		if (g->pid == pid)
			return g;
	return NULL;
}

struct proc_gen *proc_table_gen(struct proc_table *t, uint32_t pid, uint16_t gen)
{
	for (struct proc_gen *g = t->procs[pid % PROC_BUCKETS]; g; g = g->next)
		if (g->pid == pid && g->gen == gen)
			return g;
	return NULL;
}

/* Is pid in our own pid namespace? Two stats of ns/pid links. */
static bool in_own_pidns(struct proc_table *t, uint32_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (!t->own_pidns_tried) {
		t->own_pidns_tried = true;
		if (path_fmt(path, sizeof(path), "%s/self/ns/pid", t->proc_root) &&
		    !stat(path, &st)) {
			t->own_pidns_known = true;
			t->own_pidns_dev = st.st_dev;
			t->own_pidns_ino = st.st_ino;
		}
	}
	return t->own_pidns_known &&
	       path_fmt(path, sizeof(path), "%s/%u/ns/pid", t->proc_root, pid) &&
	       !stat(path, &st) && st.st_dev == t->own_pidns_dev && st.st_ino == t->own_pidns_ino;
}

/*
 * The pid the process knows itself by (a JIT names its map by it): pid
 * itself in our namespace, else the innermost NSpid of /proc/PID/status.
 * The namespace test comes first because the kernel renders all of status
 * (signal masks, capabilities, memory counters) to answer one line of it.
 */
static uint32_t read_nspid(struct proc_table *t, uint32_t pid)
{
	char path[PATH_MAX], line[256];
	uint32_t ns = pid;
	FILE *f;

	if (in_own_pidns(t, pid))
		return pid;
	if (!path_fmt(path, sizeof(path), "%s/%u/status", t->proc_root, pid))
		return pid;
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NSpid:", 6)) {
			char *tok, *save = NULL;

			for (tok = strtok_r(line + 6, " \t\n", &save); tok;
			     tok = strtok_r(NULL, " \t\n", &save))
				ns = (uint32_t)strtoul(tok, NULL, 10);
			break;
		}
	}
	fclose(f);
	return ns;
}

uint32_t proc_table_nspid(struct proc_table *t, struct proc_gen *g)
{
	/* Only a perf map is named by it: looked up when asked, not for
	 * every process met. */
	if (!g->nspid)
		g->nspid = read_nspid(t, g->pid);
	return g->nspid;
}

void proc_table_hold_root(struct proc_table *t, struct proc_gen *g)
{
	char path[PATH_MAX];

	if (g->rootfd >= 0 || g->gone)
		return;
	proc_table_nspid(t, g);
	if (path_fmt(path, sizeof(path), "%s/%u/root", t->proc_root, g->pid))
		g->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int proc_table_open_mapping(struct proc_table *t, struct proc_mapping *m, char *opened,
			    size_t opened_len)
{
	struct files_mapping fm;
	enum files_check why;
	int fd;

	if (m->recorded) {
		/* Only the file the module saw mapped: a reused pid, a replaced
		 * binary, another process's file under the same path, never. */
		fd = files_open_ident(t->proc_root, m->pid, m->path, m->start, m->limit, &m->ident,
				      &why, opened, opened_len);
		if (m->check == FILES_UNCHECKED)
			m->check = (uint8_t)why;
		return fd;
	}
	if (!files_look(t->proc_root, m->pid, m->path, m->start, m->limit, m->inode, &fm))
		return -1;
	if (opened && opened_len)
		snprintf(opened, opened_len, "%s", fm.path);
	return files_open(t->proc_root, m->pid, &fm);
}

static bool have_map(const struct proc_gen *g, uint64_t start, uint64_t limit, uint64_t off,
		     const char *path)
{
	for (size_t i = 0; i < g->nr_maps; i++) {
		const struct proc_mapping *m = g->maps[i];

		if (m->start == start && m->limit == limit && m->offset == off &&
		    !strcmp(m->path, path))
			return true;
	}
	return false;
}

struct proc_mapping *proc_table_add_mapping(struct proc_table *t, struct proc_gen *g,
					    uint64_t start, uint64_t limit, uint64_t offset,
					    uint64_t inode, const char *path)
{
	struct proc_mapping *m;
	int64_t i;

	if (g->nr_maps == g->cap_maps) {
		size_t cap = g->cap_maps ? g->cap_maps * 2 : 32;
		struct proc_mapping **n = realloc(g->maps, cap * sizeof(*n));

		if (!n)
			return NULL;
		g->maps = n;
		g->cap_maps = cap;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	i = strtab_intern(&t->paths, path);
	m->start = start;
	m->limit = limit;
	m->offset = offset;
	m->inode = inode;
	m->pid = g->pid;
	m->path = strtab_get(&t->paths, i > 0 ? (uint32_t)i : 0);
	g->maps[g->nr_maps++] = m;
	return m;
}

void proc_table_announce(struct proc_table *t, struct proc_gen *g, struct proc_mapping *m)
{
	/* Its file is opened now, while the process is most likely there. */
	if (t->hooks.mapping)
		t->hooks.mapping(t->hooks.arg, g, m);
}

static int add_map(struct proc_table *t, struct proc_gen *g, const struct maps_line *l,
		   const char *path)
{
	struct proc_mapping *m =
		proc_table_add_mapping(t, g, l->start, l->end, l->offset, l->inode, path);

	if (!m)
		return -ENOMEM;
	m->is_main = g->exe[0] && !strcmp(path, g->exe);
	proc_table_announce(t, g, m);
	return 0;
}

/* Anonymous memory (no file, or a named "[anon:...]" region): where JIT
 * code lives. */
static bool anon_path(const char *path)
{
	return !path[0] || !strncmp(path, "[anon", 5);
}

bool proc_table_mapping_anon(const struct proc_mapping *m)
{
	return anon_path(m->path) && !(m->recorded && m->ident.ino);
}

/*
 * Reads /proc/PID/maps; keeps executable mappings only, as only they hold
 * code. Sets g->anon_exec when the process has anonymous executable memory
 * (where JIT code lives).
 */
static int read_maps(struct proc_table *t, struct proc_gen *g)
{
	return proc_table_read_maps(t, g);
}

int proc_table_read_maps(struct proc_table *t, struct proc_gen *g)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	f = NULL;
	if (path_fmt(path, sizeof(path), "%s/%u/maps", t->proc_root, g->pid))
		f = fopen(path, "re");
	if (!f) {
		g->gone = true;
		return -errno;
	}
	/* Each read of maps takes the target's mmap lock and renders lines
	 * anew: read in large chunks, so a process with thousands of mappings
	 * (a VM, a JVM) is not walked a kilobyte at a time. The buffer must be
	 * ours: given none, glibc keeps its own of st_blksize (1 KiB for files
	 * in /proc) whatever size is asked for. */
	if (!t->maps_buf)
		t->maps_buf = malloc(MAPS_READ_BYTES);
	if (t->maps_buf)
		setvbuf(f, t->maps_buf, _IOFBF, MAPS_READ_BYTES);
	while (getline(&line, &cap, f) > 0) {
		struct maps_line m;
		char *name;
		size_t len;

		if (!maps_parse_line(line, &m) || !strchr(m.perms, 'x'))
			continue;
		name = m.path;
		len = strcspn(name, "\n");
		name[len] = '\0';
		if (anon_path(name))
			g->anon_exec = true;
		/* A replaced file: the mapping is still the old inode. */
		if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
			name[len - 10] = '\0';
		if (have_map(g, m.start, m.end, m.offset, name))
			continue;
		r = add_map(t, g, &m, name);
		if (r)
			break;
	}
	free(line);
	fclose(f);
	return r;
}

/*
 * Capture generation gen of pid from the live process: its identity,
 * executable and maps. Every older generation is frozen. *out is the new
 * generation (NULL only without memory); returns read_maps' result.
 */
struct proc_gen *proc_table_gen_alloc(uint32_t pid, uint16_t gen)
{
	struct proc_gen *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->pid = pid;
	g->gen = gen;
	g->rootfd = -1;
	return g;
}

void proc_table_read_exe(struct proc_table *t, struct proc_gen *g)
{
	char path[PATH_MAX];
	ssize_t n = -1;

	if (path_fmt(path, sizeof(path), "%s/%u/exe", t->proc_root, g->pid))
		n = readlink(path, g->exe, sizeof(g->exe) - 1);
	if (n > 0) {
		g->exe[n] = '\0';
		if (n > 10 && !strcmp(g->exe + n - 10, " (deleted)"))
			g->exe[n - 10] = '\0';
	} else {
		g->exe[0] = '\0';
	}
}

static int new_gen(struct proc_table *t, uint32_t pid, uint16_t gen, struct proc_gen **out)
{
	struct proc_gen *g = proc_table_gen_alloc(pid, gen);
	int r;

	*out = g;
	if (!g)
		return -ENOMEM;
	for (struct proc_gen *o = t->procs[pid % PROC_BUCKETS]; o; o = o->next)
		if (o->pid == pid)
			o->frozen = true;
	g->next = t->procs[pid % PROC_BUCKETS];
	t->procs[pid % PROC_BUCKETS] = g;
	g->have_ident = !ident_read(t->proc_root, pid, &g->ident);
	proc_table_read_exe(t, g);
	r = read_maps(t, g);
	if (t->hooks.captured)
		t->hooks.captured(t->hooks.arg, g, true);
	return r;
}

int proc_table_note(struct proc_table *t, uint32_t pid)
{
	struct proc_gen *g = proc_table_newest(t, pid);
	int r;

	if (g)
		return g->gone ? -ESRCH : 0;
	r = new_gen(t, pid, 0, &g);
	/*
	 * A process named as a target keeps its root from the start, not
	 * only once JIT code is seen: a JVM noted as it starts (a restarted
	 * service) maps its code cache later, and if it exits before the
	 * next look (the agent's symbolizer looks at each flush) its perf
	 * map, written at exit, could no longer be opened. One descriptor
	 * per target.
	 */
	if (r >= 0 && g)
		proc_table_hold_root(t, g);
	return r;
}

/* Does the process still run the image g was captured from? A process that
 * is gone says yes: its maps cannot change any more. */
static bool same_image(struct proc_table *t, struct proc_gen *g)
{
	struct proc_ident now;

	if (ident_read(t->proc_root, g->pid, &now))
		return true;
	if (!g->have_ident) {
		g->ident = now;
		g->have_ident = true;
		return true;
	}
	return ident_same(&g->ident, &now);
}

uint16_t proc_table_exec_check(struct proc_table *t, uint32_t pid)
{
	struct proc_gen *g = proc_table_newest(t, pid), *n = NULL;

	if (!g) {
		new_gen(t, pid, 0, &n);
		return 0;
	}
	if (g->gen == UINT16_MAX || same_image(t, g))
		return g->gen;
	new_gen(t, pid, (uint16_t)(g->gen + 1), &n);
	return n ? n->gen : g->gen;
}

const struct proc_mapping *proc_table_main_mapping(struct proc_table *t, uint32_t pid)
{
	struct proc_gen *g = proc_table_newest(t, pid);

	if (!g)
		return NULL;
	for (size_t i = 0; i < g->nr_maps; i++)
		if (g->maps[i]->is_main)
			return g->maps[i];
	return NULL;
}

struct proc_mapping *proc_table_find(const struct proc_gen *g, uint64_t addr)
{
	/* Newest first: a region re-mapped after a refresh wins. */
	for (size_t i = g->nr_maps; i-- > 0;) {
		struct proc_mapping *m = g->maps[i];

		if (addr >= m->start && addr < m->limit)
			return m;
	}
	return NULL;
}

bool proc_table_maps_miss(struct proc_table *t, uint32_t pid, uint16_t gen, const uint64_t *ips,
			  size_t n)
{
	struct proc_gen *g = proc_table_newest(t, pid);
	struct proc_mapping *last;

	/* A generation the module reports has the mappings it reports: /proc
	 * may show another process by now. */
	if (!g || g->gen != gen || g->gone || g->frozen || g->as_id)
		return false;
	last = g->last_hit;
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = ips[i];

		/* Below the first page or above the lower half is no code: the
		 * end of a frame-pointer chain, not a mapping the maps lack. */
		if (ip < 4096 || ip >= 0x800000000000ull)
			continue;
		if (last && ip >= last->start && ip < last->limit)
			continue;
		last = proc_table_find(g, ip);
		if (!last)
			return true;
		g->last_hit = last;
	}
	return false;
}

int proc_table_refresh(struct proc_table *t, uint32_t pid, uint16_t *gen)
{
	struct proc_gen *g = proc_table_newest(t, pid), *n = NULL;
	size_t before;
	int r;

	if (!g) {
		r = new_gen(t, pid, 0, &n);
		*gen = 0;
		return r < 0 ? r : (int)(n ? n->nr_maps : 0);
	}
	*gen = g->gen;
	if (g->gone || g->frozen || g->as_id)
		return -ESRCH;
	if (!same_image(t, g)) {
		if (g->gen == UINT16_MAX)
			return 0;
		r = new_gen(t, pid, (uint16_t)(g->gen + 1), &n);
		if (!n)
			return r;
		*gen = n->gen;
		return r < 0 ? r : (int)n->nr_maps;
	}
	before = g->nr_maps;
	r = read_maps(t, g);
	if (r < 0)
		return r;
	if (t->hooks.captured)
		t->hooks.captured(t->hooks.arg, g, false);
	return (int)(g->nr_maps - before);
}

struct proc_gen *proc_table_want(struct proc_table *t, uint32_t pid, uint16_t gen, bool newest)
{
	struct proc_gen *g = newest ? proc_table_newest(t, pid) : proc_table_gen(t, pid, gen);
	struct proc_gen *last;

	if (g)
		return g;
	last = proc_table_newest(t, pid);
	if (!last)
		new_gen(t, pid, newest ? 0 : gen, &g);
	else if (!newest && gen > last->gen)
		new_gen(t, pid, gen, &g);
	return g;
}

struct proc_mapping *proc_table_lookup(struct proc_table *t, struct proc_gen **gp, uint64_t addr)
{
	struct proc_gen *g = *gp;
	struct proc_mapping *m = proc_table_find(g, addr);

	if (m || g->gone || g->frozen || g->as_id)
		return m;
	if (same_image(t, g)) {
		read_maps(t, g);
	} else if (g->gen < UINT16_MAX) {
		/* exec'd since: the address is the new image's (the older one
		 * keeps its maps as they were) */
		struct proc_gen *n = NULL;

		new_gen(t, g->pid, (uint16_t)(g->gen + 1), &n);
		if (n)
			*gp = g = n;
	}
	return proc_table_find(g, addr);
}
