// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer facade: per-process maps captured on first sight, then
 * dispatch of each address to the kernel table, the process's ELF files or
 * its JIT perf map.
 *
 * Mappings are allocated one by one and never moved or freed before the
 * symbolizer, because the view keys pprof mappings on their address. A miss
 * (an address in no captured mapping: a library dlopen'ed after first sight)
 * re-reads the maps while the process lives and still runs the image they
 * were captured from; after an exec the process is a new generation (see
 * symbolize.h) with maps of its own.
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
#include "proc/files.h"
#include "proc/ident.h"
#include "proc/maps.h"
#include "lib/strtab.h"
#include "sym/elf.h"
#include "sym/kernel.h"
#include "sym/perfmap.h"
#include "sym/symbolizer.h"

struct sym_map {
	struct sym_mapping pub;
	struct sym_elf *elf; /* NULL: anonymous, special or unreadable */
};

struct sym_proc {
	struct sym_proc *next; /* hash chain; a pid's newest generation first */
	uint32_t pid;
	uint16_t gen;
	bool have_ident;
	bool frozen; /* a newer generation exists: the maps are final */
	struct proc_ident ident;
	uint32_t nspid; /* the pid inside its own namespace, 0: not looked up */
	struct sym_map **maps;
	size_t nr_maps, cap_maps;
	struct sym_map *last_hit; /* symbolizer_maps_miss's: ips come in runs */
	struct sym_perfmap *perfmap;
	bool anon_exec; /* anonymous executable memory in its maps: a JIT? */
	/* Its root directory, held from the first sight of anonymous
	 * executable memory: the perf map is opened through it, also after
	 * the process is gone (a JVM writes it at exit). -1: none. */
	int rootfd;
	uint32_t perfmap_epoch; /* symbolizer's jit_epoch when last looked for */
	bool jit_unnamed;	/* an address in its anonymous memory had no name */
	bool gone;		/* /proc/PID no longer readable */
	char exe[PATH_MAX];
};

#define PROC_BUCKETS 1024

struct symbolizer {
	char proc_root[PATH_MAX];
	char kallsyms[PATH_MAX];
	bool quiet;
	struct strtab names;
	struct sym_elf_cache *elfs;
	struct sym_kernel *kernel;
	bool kernel_loaded;
	struct sym_elf *vdso; /* our own vDSO image */
	size_t vdso_len;
	bool vdso_tried;
	/* Our own pid namespace (proc_root's self/ns/pid), once looked up. */
	bool own_pidns_tried, own_pidns_known;
	dev_t own_pidns_dev;
	ino_t own_pidns_ino;
	struct sym_proc *procs[PROC_BUCKETS];
	uint32_t jit_epoch; /* symbolizer_recheck_jit's count, from 1 */
	char *maps_buf;	    /* read_maps' stdio buffer, kept: malloc'd and freed
			     * for each read, it was new heap memory each time */
};

/* snprintf that reports truncation: a cut path must not open another file. */
__attribute__((format(printf, 3, 4))) static bool fmt_path(char *buf, size_t n, const char *fmt,
							   ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r >= 0 && (size_t)r < n;
}

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

struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	struct symbolizer_opts def = { 0 };

	if (!s)
		return NULL;
	if (!opts)
		opts = &def;
	if (!fmt_path(s->proc_root, sizeof(s->proc_root), "%s",
		      opts->proc_root ? opts->proc_root : "/proc") ||
	    !fmt_path(s->kallsyms, sizeof(s->kallsyms), "%s",
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
	if (!s->elfs) {
		strtab_free(&s->names);
		free(s);
		return NULL;
	}
	return s;
}

static void proc_free(struct sym_proc *p)
{
	for (size_t i = 0; i < p->nr_maps; i++)
		free(p->maps[i]);
	free(p->maps);
	sym_perfmap_free(p->perfmap);
	if (p->rootfd >= 0)
		close(p->rootfd);
	free(p);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t b = 0; b < PROC_BUCKETS; b++) {
		while (s->procs[b]) {
			struct sym_proc *n = s->procs[b]->next;

			proc_free(s->procs[b]);
			s->procs[b] = n;
		}
	}
	sym_kernel_free(s->kernel);
	sym_elf_cache_free(s->elfs);
	strtab_free(&s->names);
	free(s->maps_buf);
	free(s);
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

/* pid's newest generation */
static struct sym_proc *find_proc(struct symbolizer *s, uint32_t pid)
{
	for (struct sym_proc *p = s->procs[pid % PROC_BUCKETS]; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct sym_proc *find_gen(struct symbolizer *s, uint32_t pid, uint16_t gen)
{
	for (struct sym_proc *p = s->procs[pid % PROC_BUCKETS]; p; p = p->next)
		if (p->pid == pid && p->gen == gen)
			return p;
	return NULL;
}

/* Is pid in our own pid namespace? Two stats of ns/pid links. */
static bool in_own_pidns(struct symbolizer *s, uint32_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (!s->own_pidns_tried) {
		s->own_pidns_tried = true;
		if (fmt_path(path, sizeof(path), "%s/self/ns/pid", s->proc_root) &&
		    !stat(path, &st)) {
			s->own_pidns_known = true;
			s->own_pidns_dev = st.st_dev;
			s->own_pidns_ino = st.st_ino;
		}
	}
	return s->own_pidns_known &&
	       fmt_path(path, sizeof(path), "%s/%u/ns/pid", s->proc_root, pid) &&
	       !stat(path, &st) && st.st_dev == s->own_pidns_dev && st.st_ino == s->own_pidns_ino;
}

/*
 * The pid the JIT names its map by: pid itself in our namespace, else the
 * innermost NSpid of /proc/PID/status. The namespace test comes first
 * because the kernel renders all of status (signal masks, capabilities,
 * memory counters) to answer one line of it.
 */
static uint32_t read_nspid(struct symbolizer *s, uint32_t pid)
{
	char path[PATH_MAX], line[256];
	uint32_t ns = pid;
	FILE *f;

	if (in_own_pidns(s, pid))
		return pid;
	if (!fmt_path(path, sizeof(path), "%s/%u/status", s->proc_root, pid))
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

/*
 * While the process lives: hold its root and learn the pid its JIT names
 * the map by, so the map can be found later whatever happens to it.
 */
static void hold_root(struct symbolizer *s, struct sym_proc *p)
{
	char path[PATH_MAX];

	if (p->rootfd >= 0 || p->gone)
		return;
	/* Only a perf map is named by it: looked up here, not for every
	 * process met. */
	if (!p->nspid)
		p->nspid = read_nspid(s, p->pid);
	if (fmt_path(path, sizeof(path), "%s/%u/root", s->proc_root, p->pid))
		p->rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int open_in(struct sym_proc *p, int dirfd, const char *path, struct stat *now,
		   struct stat *cur);

/*
 * Opens (or, when the JIT replaced the file, reopens) the process's perf
 * map through its root: /tmp/perf-NSPID.map as the process sees it.
 */
static void open_perfmap(struct symbolizer *s, struct sym_proc *p)
{
	char path[64];
	struct stat now, cur;
	int fd, dirfd;

	/* The root is held only for a process that has JIT code: a map is
	 * looked for in any other only while it lives, without keeping a
	 * descriptor for each process whose address no file covered. */
	if (p->anon_exec)
		hold_root(s, p);
	p->perfmap_epoch = s->jit_epoch;
	dirfd = p->rootfd;
	if (dirfd < 0 && !p->gone && !p->frozen) {
		char root[PATH_MAX];

		if (!p->nspid)
			p->nspid = read_nspid(s, p->pid);
		if (fmt_path(root, sizeof(root), "%s/%u/root", s->proc_root, p->pid))
			dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0)
			return;
	}
	if (dirfd < 0 ||
	    !fmt_path(path, sizeof(path), "tmp/perf-%u.map", p->nspid ? p->nspid : p->pid)) {
		if (dirfd >= 0 && dirfd != p->rootfd)
			close(dirfd);
		return;
	}
	fd = open_in(p, dirfd, path, &now, &cur);
	if (dirfd != p->rootfd)
		close(dirfd);
	if (fd < 0)
		return;
	if (p->perfmap)
		sym_perfmap_reopen(p->perfmap, fd);
	else
		p->perfmap = sym_perfmap_open(fd);
}

/* The map at path under dirfd, opened unless it is the file already open
 * (then -1). */
static int open_in(struct sym_proc *p, int dirfd, const char *path, struct stat *now,
		   struct stat *cur)
{
	if (p->perfmap) {
		if (fstatat(dirfd, path, now, 0) || !sym_perfmap_stat(p->perfmap, cur) ||
		    (now->st_dev == cur->st_dev && now->st_ino == cur->st_ino))
			return -1;
	}
	return openat(dirfd, path, O_RDONLY | O_CLOEXEC);
}

void symbolizer_recheck_jit(struct symbolizer *s)
{
	s->jit_epoch++;
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
 * calls).
 */
static struct sym_elf *open_elf(struct symbolizer *s, struct sym_proc *p,
				const struct sym_mapping *m)
{
	struct files_mapping fm;
	int fd;

	if (!files_look(s->proc_root, p->pid, m->path, m->start, m->limit, m->inode, &fm))
		return NULL;
	if (fm.same) {
		struct sym_elf *e = sym_elf_find_stat(s->elfs, &fm.st);

		if (e)
			return e;
	}
	fd = files_open(s->proc_root, p->pid, &fm);
	if (fd < 0)
		return NULL;
	return sym_elf_get(s->elfs, fd, fm.path, m->path);
}

int symbolizer_open_mapping(struct symbolizer *s, const struct sym_mapping *m)
{
	struct files_mapping fm;

	if (!files_look(s->proc_root, m->pid, m->path, m->start, m->limit, m->inode, &fm))
		return -1;
	return files_open(s->proc_root, m->pid, &fm);
}

static bool have_map(const struct sym_proc *p, uint64_t start, uint64_t limit, uint64_t off,
		     const char *path)
{
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct sym_mapping *m = &p->maps[i]->pub;

		if (m->start == start && m->limit == limit && m->offset == off &&
		    !strcmp(m->path, path))
			return true;
	}
	return false;
}

static int add_map(struct symbolizer *s, struct sym_proc *p, uint64_t start, uint64_t limit,
		   uint64_t off, uint64_t inode, const char *path)
{
	struct sym_map *m;

	if (p->nr_maps == p->cap_maps) {
		size_t cap = p->cap_maps ? p->cap_maps * 2 : 32;
		struct sym_map **n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap_maps = cap;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->pub.start = start;
	m->pub.limit = limit;
	m->pub.offset = off;
	m->pub.inode = inode;
	m->pub.pid = p->pid;
	m->pub.path = intern(s, path);
	m->pub.is_main = p->exe[0] && !strcmp(path, p->exe);
	m->elf = !strcmp(path, "[vdso]") ? vdso_elf(s, limit - start) : open_elf(s, p, &m->pub);
	m->pub.build_id = intern(s, m->elf ? sym_elf_build_id(m->elf) : "");
	p->maps[p->nr_maps++] = m;
	return 0;
}

/* Anonymous memory (no file, or a named "[anon:...]" region): where JIT
 * code lives, so only there is a perf map consulted. */
static bool anon_path(const char *path)
{
	return !path[0] || !strncmp(path, "[anon", 5);
}

/* Reads of /proc/PID/maps: see read_maps. */
#define MAPS_READ_BYTES (64 * 1024)

/*
 * Reads /proc/PID/maps; keeps executable mappings only, as only they hold
 * code. Sets p->anon_exec when the process has anonymous executable memory
 * (where JIT code lives).
 */
static int read_maps(struct symbolizer *s, struct sym_proc *p)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int r = 0;

	f = NULL;
	if (fmt_path(path, sizeof(path), "%s/%u/maps", s->proc_root, p->pid))
		f = fopen(path, "re");
	if (!f) {
		p->gone = true;
		return -errno;
	}
	/* Each read of maps takes the target's mmap lock and renders lines
	 * anew: read in large chunks, so a process with thousands of mappings
	 * (a VM, a JVM) is not walked a kilobyte at a time. The buffer must be
	 * ours: given none, glibc keeps its own of st_blksize (1 KiB for files
	 * in /proc)
	 * whatever size is asked for. */
	if (!s->maps_buf)
		s->maps_buf = malloc(MAPS_READ_BYTES);
	if (s->maps_buf)
		setvbuf(f, s->maps_buf, _IOFBF, MAPS_READ_BYTES);
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
			p->anon_exec = true;
		/* A replaced file: the mapping is still the old inode. */
		if (len > 10 && !strcmp(name + len - 10, " (deleted)"))
			name[len - 10] = '\0';
		if (have_map(p, m.start, m.end, m.offset, name))
			continue;
		r = add_map(s, p, m.start, m.end, m.offset, m.inode, name);
		if (r)
			break;
	}
	free(line);
	fclose(f);
	return r;
}

/*
 * Capture generation gen of pid from the live process: its identity,
 * executable, perf map and maps. Every older generation is frozen. *out is
 * the new generation (NULL only without memory); returns read_maps' result.
 */
static int new_gen(struct symbolizer *s, uint32_t pid, uint16_t gen, struct sym_proc **out)
{
	struct sym_proc *p = calloc(1, sizeof(*p));
	char path[PATH_MAX];
	ssize_t n;
	int r;

	*out = p;
	if (!p)
		return -ENOMEM;
	for (struct sym_proc *o = s->procs[pid % PROC_BUCKETS]; o; o = o->next)
		if (o->pid == pid)
			o->frozen = true;
	p->pid = pid;
	p->gen = gen;
	p->rootfd = -1;
	p->next = s->procs[pid % PROC_BUCKETS];
	s->procs[pid % PROC_BUCKETS] = p;
	p->have_ident = !ident_read(s->proc_root, pid, &p->ident);
	n = -1;
	if (fmt_path(path, sizeof(path), "%s/%u/exe", s->proc_root, pid))
		n = readlink(path, p->exe, sizeof(p->exe) - 1);
	if (n > 0) {
		p->exe[n] = '\0';
		if (n > 10 && !strcmp(p->exe + n - 10, " (deleted)"))
			p->exe[n - 10] = '\0';
	} else {
		p->exe[0] = '\0';
	}
	r = read_maps(s, p);
	/*
	 * A JIT's perf map is opened now, while the process (and its mount
	 * namespace) is still there, if it has anonymous executable memory:
	 * JIT code lives there, and a JIT maps its code cache before it runs
	 * much. Other processes are not asked for one at first sight (a failed
	 * open of a path through its root for every new process); if one turns
	 * up later, resolving an address in anonymous memory looks for it.
	 */
	if (p->anon_exec)
		open_perfmap(s, p);
	return r;
}

int symbolizer_note_pid(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = find_proc(s, pid);
	int r;

	if (p)
		return p->gone ? -ESRCH : 0;
	r = new_gen(s, pid, 0, &p);
	/*
	 * A process named as a target keeps its root from the start, not
	 * only once JIT code is seen: a JVM noted as it starts (a restarted
	 * service) maps its code cache later, and if it exits before the
	 * next look (the agent's symbolizer looks at each flush) its perf
	 * map, written at exit, could no longer be opened. One descriptor
	 * per target.
	 */
	if (r >= 0 && p)
		hold_root(s, p);
	return r;
}

/* Does the process still run the image p was captured from? A process that
 * is gone says yes: its maps cannot change any more. */
static bool same_image(struct symbolizer *s, struct sym_proc *p)
{
	struct proc_ident now;

	if (ident_read(s->proc_root, p->pid, &now))
		return true;
	if (!p->have_ident) {
		p->ident = now;
		p->have_ident = true;
		return true;
	}
	return ident_same(&p->ident, &now);
}

uint16_t symbolizer_exec_check(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = find_proc(s, pid), *n = NULL;

	if (!p) {
		new_gen(s, pid, 0, &n);
		return 0;
	}
	if (p->gen == UINT16_MAX || same_image(s, p))
		return p->gen;
	new_gen(s, pid, (uint16_t)(p->gen + 1), &n);
	return n ? n->gen : p->gen;
}

size_t symbolizer_nr_files(const struct symbolizer *s)
{
	return sym_elf_cache_files(s->elfs);
}

const struct sym_mapping *symbolizer_main_mapping(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = find_proc(s, pid);

	if (!p)
		return NULL;
	for (size_t i = 0; i < p->nr_maps; i++)
		if (p->maps[i]->pub.is_main)
			return &p->maps[i]->pub;
	return NULL;
}

size_t symbolizer_nr_mappings(struct symbolizer *s, uint32_t pid)
{
	struct sym_proc *p = find_proc(s, pid);

	return p ? p->nr_maps : 0;
}

const struct sym_mapping *symbolizer_mapping(struct symbolizer *s, uint32_t pid, size_t i)
{
	struct sym_proc *p = find_proc(s, pid);

	return p && i < p->nr_maps ? &p->maps[i]->pub : NULL;
}

static struct sym_map *find_map(struct sym_proc *p, uint64_t addr)
{
	/* Newest first: a region re-mapped after a refresh wins. */
	for (size_t i = p->nr_maps; i-- > 0;) {
		struct sym_map *m = p->maps[i];

		if (addr >= m->pub.start && addr < m->pub.limit)
			return m;
	}
	return NULL;
}

bool symbolizer_maps_miss(struct symbolizer *s, uint32_t pid, uint16_t gen, const uint64_t *ips,
			  size_t n)
{
	struct sym_proc *p = find_proc(s, pid);
	struct sym_map *last;

	if (!p || p->gen != gen || p->gone || p->frozen)
		return false;
	last = p->last_hit;
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = ips[i];

		/* Below the first page or above the lower half is no code: the
		 * end of a frame-pointer chain, not a mapping the maps lack. */
		if (ip < 4096 || ip >= 0x800000000000ull)
			continue;
		if (last && ip >= last->pub.start && ip < last->pub.limit)
			continue;
		last = find_map(p, ip);
		if (!last)
			return true;
		p->last_hit = last;
	}
	return false;
}

int symbolizer_refresh(struct symbolizer *s, uint32_t pid, uint16_t *gen)
{
	struct sym_proc *p = find_proc(s, pid), *n = NULL;
	size_t before;
	int r;

	if (!p) {
		r = new_gen(s, pid, 0, &n);
		*gen = 0;
		return r < 0 ? r : (int)(n ? n->nr_maps : 0);
	}
	*gen = p->gen;
	if (p->gone || p->frozen)
		return -ESRCH;
	if (!same_image(s, p)) {
		if (p->gen == UINT16_MAX)
			return 0;
		r = new_gen(s, pid, (uint16_t)(p->gen + 1), &n);
		if (!n)
			return r;
		*gen = n->gen;
		return r < 0 ? r : (int)n->nr_maps;
	}
	before = p->nr_maps;
	r = read_maps(s, p);
	if (r < 0)
		return r;
	/* JIT code appeared since first sight: its perf map may be there too. */
	if (p->anon_exec && p->rootfd < 0)
		open_perfmap(s, p);
	return (int)(p->nr_maps - before);
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
	struct sym_proc *p = newest ? find_proc(s, pid) : find_gen(s, pid, gen);
	struct sym_map *m;
	const char *jit;
	char buf[PATH_MAX + 64];

	if (!p) {
		struct sym_proc *last = find_proc(s, pid);

		/* Never noted, or a generation newer than any seen: capture it now,
		 * late but better than never. An older one never seen stays
		 * unknown: its image is gone. */
		if (!last)
			new_gen(s, pid, newest ? 0 : gen, &p);
		else if (!newest && gen > last->gen)
			new_gen(s, pid, gen, &p);
		if (!p) {
			one_frame(out, "[unknown]");
			return;
		}
	}
	m = find_map(p, addr);
	if (!m && !p->gone && !p->frozen) {
		if (same_image(s, p)) {
			read_maps(s, p);
		} else if (p->gen < UINT16_MAX) {
			/* exec'd since: the address is the new image's (the older
			 * one keeps its maps as they were) */
			struct sym_proc *n = NULL;

			new_gen(s, pid, (uint16_t)(p->gen + 1), &n);
			if (n)
				p = n;
		}
		m = find_map(p, addr);
	}
	if (m && m->elf) {
		uint64_t off = addr - m->pub.start + m->pub.offset;
		unsigned int n = sym_elf_resolve(m->elf, off, out->frames, SYM_MAX_FRAMES,
						 &out->has_lines, &out->has_inline);

		out->map = &m->pub;
		if (n) {
			out->nr_frames = n;
			out->has_functions = true;
			return;
		}
	}
	/* JIT code lives in anonymous memory; only there is the perf map
	 * consulted, so it can never shadow a real binary. */
	if (!m || anon_path(m->pub.path)) {
		/* Once per recheck (symbolizer_recheck_jit): the map may have
		 * been written, or replaced, since the last look. */
		if (p->perfmap_epoch != s->jit_epoch)
			open_perfmap(s, p);
		jit = sym_perfmap_lookup(p->perfmap, addr);
		if (jit) {
			char *dem = sym_demangle(jit);

			one_frame(out, intern(s, dem ? dem : jit));
			if (dem)
				out->frames[0].system_name = intern(s, jit);
			free(dem);
			out->has_functions = true;
			return;
		}
	}
	if (m && anon_path(m->pub.path))
		p->jit_unnamed = true;
	if (m && m->pub.path[0]) {
		snprintf(buf, sizeof(buf), "[unknown] %s+0x%" PRIx64, basename_of(m->pub.path),
			 addr - m->pub.start + m->pub.offset);
		out->map = &m->pub;
		one_frame(out, intern(s, buf));
		return;
	}
	one_frame(out, "[unknown]");
}

void symbolizer_resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
			struct sym_result *out)
{
	memset(out, 0, sizeof(*out));
	if (kernel)
		resolve_kernel(s, addr, out);
	else
		resolve_user(s, pid, 0, true, addr, out);
}

void symbolizer_resolve_gen(struct symbolizer *s, uint32_t pid, uint16_t gen, uint64_t addr,
			    bool kernel, struct sym_result *out)
{
	memset(out, 0, sizeof(*out));
	if (kernel)
		resolve_kernel(s, addr, out);
	else
		resolve_user(s, pid, gen, false, addr, out);
}

size_t symbolizer_jit_unnamed(struct symbolizer *s,
			      void (*fn)(void *arg, uint32_t pid, const char *exe, bool has_map),
			      void *arg)
{
	size_t n = 0;

	for (size_t b = 0; b < PROC_BUCKETS; b++)
		for (struct sym_proc *p = s->procs[b]; p; p = p->next)
			if (p->jit_unnamed) {
				n++;
				if (fn)
					fn(arg, p->pid, p->exe, p->perfmap != NULL);
			}
	return n;
}
