// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer facade: dispatch of each address to the kernel table, the
 * process's ELF files or its JIT perf map.
 *
 * Each process's state over time (its generations, their captured maps,
 * its root) is the process table's (proc/table.h), which this symbolizer
 * makes and hooks into: each mapping's ELF file is opened as the table
 * captures the mapping, while the process lives, and a JIT's perf map as
 * the table captures a generation with anonymous executable memory. What
 * is kept here is symbolization state only: the ELF cache (per mapping,
 * its sym_elf), per generation its perf map, the kernel's symbols and the
 * vDSO.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/demangle.h"
#include "lib/path.h"
#include "proc/files.h"
#include "proc/jvm_reply.h"
#include "proc/table.h"
#include "lib/strtab.h"
#include "sym/elf.h"
#include "sym/kernel.h"
#include "sym/perfmap.h"
#include "sym/symbolizer.h"

/* A mapping's symbolization state (its proc_mapping's priv). */
struct sym_map {
	struct sym_elf *elf;  /* NULL: anonymous, special or unreadable */
	const char *build_id; /* lowercase hex, "" when unknown */
};

/* A generation's JIT state (its proc_gen's priv), made when first needed. */
struct sym_gen {
	struct sym_perfmap *perfmap;
	uint32_t perfmap_epoch; /* symbolizer's jit_epoch when last looked for */
	bool jit_unnamed;	/* an address in its anonymous memory had no name */
	bool jit_named;		/* one had a name from the perf map */
};

struct symbolizer {
	char kallsyms[PATH_MAX];
	bool quiet;
	struct proc_table *procs;
	struct strtab names;
	struct sym_elf_cache *elfs;
	struct sym_kernel *kernel;
	bool kernel_loaded;
	struct sym_elf *vdso; /* our own vDSO image */
	size_t vdso_len;
	bool vdso_tried;
	uint32_t jit_epoch; /* symbolizer_recheck_jit's count, from 1 */
};

/*
 * Every distinct binary stays open so that it still symbolizes after its
 * process exits; a system-wide profile can exceed the default soft limit of
 * 1024 descriptors, so take the hard limit.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void on_mapping(void *arg, struct proc_gen *g, struct proc_mapping *m);
static void on_captured(void *arg, struct proc_gen *g, bool first);

struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	struct symbolizer_opts def = { 0 };
	struct proc_table_hooks hooks = { .mapping = on_mapping, .captured = on_captured };

	if (!s)
		return NULL;
	if (!opts)
		opts = &def;
	if (!path_fmt(s->kallsyms, sizeof(s->kallsyms), "%s",
		      opts->kallsyms ? opts->kallsyms : "/proc/kallsyms")) {
		free(s);
		return NULL;
	}
	s->quiet = opts->quiet;
	s->jit_epoch = 1;
	raise_nofile();
	if (strtab_init(&s->names)) {
		free(s);
		return NULL;
	}
	s->elfs = sym_elf_cache_new(opts->debug_path, &s->names);
	hooks.arg = s;
	s->procs = s->elfs ? proc_table_new(opts->proc_root, &hooks) : NULL;
	if (!s->procs) {
		sym_elf_cache_free(s->elfs);
		strtab_free(&s->names);
		free(s);
		return NULL;
	}
	return s;
}

static void gen_free(void *arg, struct proc_gen *g)
{
	struct sym_gen *sg = g->priv;

	(void)arg;
	for (size_t i = 0; i < g->nr_maps; i++)
		free(g->maps[i]->priv);
	if (sg)
		sym_perfmap_free(sg->perfmap);
	free(sg);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	proc_table_each(s->procs, gen_free, NULL);
	proc_table_free(s->procs);
	sym_kernel_free(s->kernel);
	sym_elf_cache_free(s->elfs);
	strtab_free(&s->names);
	free(s);
}

struct proc_table *symbolizer_procs(struct symbolizer *s)
{
	return s->procs;
}

void symbolizer_trim(struct symbolizer *s)
{
	if (!s)
		return;
	sym_elf_cache_trim(s->elfs);
#ifdef __GLIBC__
	/* libdw's small blocks (DIEs, line rows) leave free holes in the heap
	 * that glibc keeps mapped; hand the free pages back. */
	malloc_trim(0);
#endif
}

static const char *intern(struct symbolizer *s, const char *str)
{
	int64_t i = strtab_intern(&s->names, str);

	return strtab_get(&s->names, i > 0 ? (uint32_t)i : 0);
}

/* g's JIT state, made now if it was not; NULL without memory. */
static struct sym_gen *gen_state(struct proc_gen *g)
{
	if (!g->priv)
		g->priv = calloc(1, sizeof(struct sym_gen));
	return g->priv;
}

static int open_in(struct sym_gen *sg, int dirfd, const char *path, bool again, struct stat *now,
		   struct stat *cur);

/*
 * Opens (or, when the JIT replaced the file, reopens) the process's perf
 * map through its root: /tmp/perf-NSPID.map as the process sees it. again:
 * the JIT wrote the file anew; read it from its start even if it is the
 * file already open.
 */
static void open_perfmap(struct symbolizer *s, struct proc_gen *p, bool again)
{
	struct sym_gen *sg = gen_state(p);
	char path[64];
	struct stat now, cur;
	int fd, dirfd;

	if (!sg)
		return;
	/* The root is held only for a process that has JIT code: a map is
	 * looked for in any other only while it lives, without keeping a
	 * descriptor for each process whose address no file covered. */
	if (p->anon_exec)
		proc_table_hold_root(s->procs, p);
	sg->perfmap_epoch = s->jit_epoch;
	dirfd = p->rootfd;
	if (dirfd < 0 && !p->gone && !p->frozen) {
		char root[PATH_MAX];

		proc_table_nspid(s->procs, p);
		if (path_fmt(root, sizeof(root), "%s/%u/root", proc_table_root(s->procs), p->pid))
			dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return;
	}
	if (dirfd < 0 ||
	    !path_fmt(path, sizeof(path), "tmp/perf-%u.map", p->nspid ? p->nspid : p->pid)) {
		if (dirfd >= 0 && dirfd != p->rootfd)
			close(dirfd);
		return;
	}
	fd = open_in(sg, dirfd, path, again, &now, &cur);
	if (dirfd != p->rootfd)
		close(dirfd);
	if (fd < 0)
		return;
	if (sg->perfmap)
		sym_perfmap_reopen(sg->perfmap, fd);
	else
		sg->perfmap = sym_perfmap_open(fd);
}

/* The map at path under dirfd, opened unless it is the file already open
 * (then -1) and not to be read again. */
static int open_in(struct sym_gen *sg, int dirfd, const char *path, bool again, struct stat *now,
		   struct stat *cur)
{
	if (sg->perfmap && !again) {
		if (fstatat(dirfd, path, now, 0) || !sym_perfmap_stat(sg->perfmap, cur) ||
		    (now->st_dev == cur->st_dev && now->st_ino == cur->st_ino))
			return -1;
	}
	return openat(dirfd, path, O_RDONLY | O_CLOEXEC);
}

void symbolizer_recheck_jit(struct symbolizer *s)
{
	s->jit_epoch++;
}

/* pid's newest generation and its JIT state, captured now if never met. */
static struct sym_gen *jit_gen(struct symbolizer *s, uint32_t pid, struct proc_gen **g)
{
	*g = proc_table_want(s->procs, pid, 0, true);
	return *g ? gen_state(*g) : NULL;
}

void symbolizer_jit_reread(struct symbolizer *s, uint32_t pid)
{
	struct proc_gen *g;
	struct sym_gen *sg = jit_gen(s, pid, &g);

	if (!sg)
		return;
	proc_table_hold_root(s->procs, g);
	open_perfmap(s, g, true);
	sym_perfmap_read(sg->perfmap);
}

int symbolizer_jit_add(struct symbolizer *s, uint32_t pid, const struct jvm_method *methods,
		       size_t n)
{
	struct proc_gen *g;
	struct sym_gen *sg = jit_gen(s, pid, &g);

	if (!sg)
		return -ENOMEM;
	proc_table_hold_root(s->procs, g);
	if (!sg->perfmap)
		sg->perfmap = sym_perfmap_open(-1);
	if (!sg->perfmap)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int e = sym_perfmap_add(sg->perfmap, methods[i].start, methods[i].end,
					methods[i].name);

		if (e)
			return e;
	}
	return 0;
}

/*
 * The vDSO is no file: symbolize it from our own copy, which is the same
 * image when the sizes match (same kernel, same ABI; a 32-bit process's
 * differs and stays [unknown]).
 */
static struct sym_elf *vdso_elf(struct symbolizer *s, uint64_t len)
{
	if (!s->vdso_tried) {
		FILE *f = fopen("/proc/self/maps", "re");
		char line[512];

		s->vdso_tried = true;
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long long a, b;

			if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2) {
				s->vdso = sym_elf_get_memory(s->elfs, (const void *)(uintptr_t)a,
							     (size_t)(b - a), "[vdso]");
				s->vdso_len = (size_t)(b - a);
				break;
			}
		}
		if (f)
			fclose(f);
	}
	return s->vdso && s->vdso_len == len ? s->vdso : NULL;
}

/*
 * The ELF file of a mapping (proc/files.h). A file already cached is found
 * by a stat of its path, without opening it (every new process maps libc
 * and ld.so again; an open, fstat and close cost three path-walking system
 * calls). A mapping the module recorded is opened only as the recorded file
 * (proc_table_open_mapping checks its identity): a cached file found by a
 * stat of a path could be another one by now.
 */
static struct sym_elf *open_elf(struct symbolizer *s, struct proc_mapping *m)
{
	const char *root = proc_table_root(s->procs);
	struct files_mapping fm;
	char opened[PATH_MAX];
	int fd;

	if (m->recorded) {
		fd = proc_table_open_mapping(s->procs, m, opened, sizeof(opened));
		return fd < 0 ? NULL : sym_elf_get(s->elfs, fd, opened, m->path);
	}
	if (!files_look(root, m->pid, m->path, m->start, m->limit, m->inode, &fm))
		return NULL;
	if (fm.same) {
		struct sym_elf *e = sym_elf_find_stat(s->elfs, &fm.st);

		if (e)
			return e;
	}
	fd = files_open(root, m->pid, &fm);
	if (fd < 0)
		return NULL;
	return sym_elf_get(s->elfs, fd, fm.path, m->path);
}

/* The build-id the module read for a recorded mapping, hex; "" without. */
static const char *recorded_build_id(struct symbolizer *s, const struct proc_mapping *m)
{
	char hex[2 * sizeof(m->ident.build_id) + 1];

	if (!m->recorded || !m->ident.build_id_size)
		return "";
	for (size_t i = 0; i < m->ident.build_id_size; i++) {
		hex[i * 2] = "0123456789abcdef"[m->ident.build_id[i] >> 4];
		hex[i * 2 + 1] = "0123456789abcdef"[m->ident.build_id[i] & 15];
	}
	hex[m->ident.build_id_size * 2] = '\0';
	return intern(s, hex);
}

/* The table captured m: its ELF file is opened now, while the process
 * lives. Without memory m stays unsymbolized (priv NULL). */
static void on_mapping(void *arg, struct proc_gen *g, struct proc_mapping *m)
{
	struct symbolizer *s = arg;
	struct sym_map *sm = calloc(1, sizeof(*sm));

	(void)g;
	if (!sm)
		return;
	m->priv = sm;
	if (proc_table_mapping_anon(m)) {
		sm->build_id = ""; /* no file: JIT code, named by a perf map if at all */
		return;
	}
	sm->elf = !strcmp(m->path, "[vdso]") ? vdso_elf(s, m->limit - m->start) : open_elf(s, m);
	/* A file that could not be verified keeps the build-id the kernel
	 * read: the profile still says which binary it was. */
	sm->build_id = sm->elf ? intern(s, sym_elf_build_id(sm->elf)) : recorded_build_id(s, m);
}

/*
 * The table read g's maps. A JIT's perf map is opened now, while the
 * process (and its mount namespace) is still there, if it has anonymous
 * executable memory: JIT code lives there, and a JIT maps its code cache
 * before it runs much. Other processes are not asked for one at first sight
 * (a failed open of a path through its root for every new process); if one
 * turns up later, resolving an address in anonymous memory looks for it.
 * On a re-read (first false), JIT code that appeared since first sight may
 * have its perf map there too.
 */
static void on_captured(void *arg, struct proc_gen *g, bool first)
{
	if (g->anon_exec && (first || g->rootfd < 0))
		open_perfmap(arg, g, false);
}

int symbolizer_note_pid(struct symbolizer *s, uint32_t pid)
{
	return proc_table_note(s->procs, pid);
}

size_t symbolizer_nr_files(const struct symbolizer *s)
{
	return sym_elf_cache_files(s->elfs);
}

static void one_frame(struct sym_result *out, const char *name)
{
	out->nr_frames = 1;
	out->frames[0].name = name;
	out->frames[0].system_name = "";
	out->frames[0].file = "";
	out->frames[0].line = 0;
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void resolve_kernel(struct symbolizer *s, uint64_t addr, struct sym_result *out)
{
	const char *name;

	if (!s->kernel_loaded) {
		s->kernel_loaded = true;
		s->kernel = sym_kernel_load(s->kallsyms, s->quiet);
	}
	name = sym_kernel_lookup(s->kernel, addr);
	one_frame(out, name ? intern(s, name) : "[unknown]");
	out->has_functions = name != NULL;
}

/* newest: pid's newest generation, whatever gen says */
static void resolve_user(struct symbolizer *s, uint32_t pid, uint16_t gen, bool newest,
			 uint64_t addr, struct sym_result *out)
{
	struct proc_gen *p = proc_table_want(s->procs, pid, gen, newest);
	struct proc_mapping *m;
	struct sym_map *sm;
	struct sym_gen *sg;
	const char *jit;
	char buf[PATH_MAX + 64];

	if (!p) {
		one_frame(out, "[unknown]");
		return;
	}
	m = proc_table_lookup(s->procs, &p, addr);
	sm = m ? m->priv : NULL;
	if (sm && sm->elf) {
		uint64_t off = addr - m->start + m->offset;
		unsigned int n = sym_elf_resolve(sm->elf, off, out->frames, SYM_MAX_FRAMES,
						 &out->has_lines, &out->has_inline);

		out->map = m;
		out->build_id = sm->build_id;
		if (n) {
			out->nr_frames = n;
			out->has_functions = true;
			return;
		}
	}
	/* JIT code lives in anonymous memory; only there (or outside every
	 * mapping) is the perf map consulted, so it can never shadow a real
	 * binary. */
	sg = !m || proc_table_mapping_anon(m) ? gen_state(p) : NULL;
	if (sg) {
		/* Once per recheck (symbolizer_recheck_jit): the map may have
		 * been written, or replaced, since the last look. */
		if (sg->perfmap_epoch != s->jit_epoch)
			open_perfmap(s, p, false);
		jit = sym_perfmap_lookup(sg->perfmap, addr);
		if (jit) {
			sg->jit_named = true;
			char *dem = sym_demangle(jit);

			one_frame(out, intern(s, dem ? dem : jit));
			if (dem)
				out->frames[0].system_name = intern(s, jit);
			free(dem);
			out->has_functions = true;
			return;
		}
	}
	if (sg && m)
		sg->jit_unnamed = out->jit_pending = true;
	if (m && m->path[0]) {
		snprintf(buf, sizeof(buf), "[unknown] %s+0x%" PRIx64, basename_of(m->path),
			 addr - m->start + m->offset);
		out->map = m;
		out->build_id = sm ? sm->build_id : "";
		one_frame(out, intern(s, buf));
		return;
	}
	one_frame(out, "[unknown]");
}

bool symbolizer_jit_unnamed_at(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
	struct proc_gen *g = proc_table_newest(s->procs, pid);
	struct proc_mapping *m = g ? proc_table_find(g, addr) : NULL;
	struct sym_gen *sg = g ? g->priv : NULL;

	if (!m || !proc_table_mapping_anon(m))
		return false;
	return !sg || !sym_perfmap_lookup(sg->perfmap, addr);
}

void symbolizer_resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
			struct sym_result *out)
{
	memset(out, 0, sizeof(*out));
	out->build_id = "";
	if (kernel)
		resolve_kernel(s, addr, out);
	else
		resolve_user(s, pid, 0, true, addr, out);
}

void symbolizer_resolve_gen(struct symbolizer *s, uint32_t pid, uint16_t gen, uint64_t addr,
			    bool kernel, struct sym_result *out)
{
	memset(out, 0, sizeof(*out));
	out->build_id = "";
	if (kernel)
		resolve_kernel(s, addr, out);
	else
		resolve_user(s, pid, gen, false, addr, out);
}

struct jit_walk {
	void (*fn)(void *arg, uint32_t pid, const char *exe, bool has_map);
	void *arg;
	size_t n;
};

static void jit_one(void *arg, struct proc_gen *g)
{
	struct jit_walk *w = arg;
	struct sym_gen *sg = g->priv;

	if (!sg || !sg->jit_unnamed)
		return;
	w->n++;
	if (w->fn)
		w->fn(w->arg, g->pid, g->exe, sg->perfmap != NULL);
}

struct jit_each {
	void (*fn)(void *arg, const struct sym_jit_proc *p);
	void *arg;
};

static void jit_each_one(void *arg, struct proc_gen *g)
{
	struct jit_each *w = arg;
	struct sym_gen *sg = g->priv;
	struct sym_jit_proc p;

	if (!sg || (!sg->jit_named && !sg->jit_unnamed))
		return;
	p.pid = g->pid;
	p.exe = g->exe;
	p.has_map = sg->perfmap != NULL;
	p.named = sg->jit_named;
	p.unnamed = sg->jit_unnamed;
	w->fn(w->arg, &p);
}

void symbolizer_jit_each(struct symbolizer *s, void (*fn)(void *arg, const struct sym_jit_proc *p),
			 void *arg)
{
	struct jit_each w = { .fn = fn, .arg = arg };

	proc_table_each(s->procs, jit_each_one, &w);
}

size_t symbolizer_jit_unnamed(struct symbolizer *s,
			      void (*fn)(void *arg, uint32_t pid, const char *exe, bool has_map),
			      void *arg)
{
	struct jit_walk w = { .fn = fn, .arg = arg };

	proc_table_each(s->procs, jit_one, &w);
	return w.n;
}
