/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer: (pid, address, kernel?) -> frames.
 *
 * A pid is noted on first sight (symbolizer_note_pid): its /proc/PID/maps is
 * captured then and the executable files it maps are opened through
 * /proc/PID/root, so a process that exits before the profile is written still
 * symbolizes, and a container's binaries are found in its own mount
 * namespace. ELF/DWARF data is cached by build-id: a library mapped by many
 * processes is read once.
 *
 * Every string handed out is owned by the symbolizer and lives until
 * symbolizer_free. A lookup never fails: what cannot be resolved comes back
 * as one frame named "[unknown]" or "[unknown] libfoo.so+0x1234".
 */
#ifndef SKYPROF_SYM_SYMBOLIZER_H
#define SKYPROF_SYM_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sym/frame.h"

struct symbolizer_opts {
	const char *proc_root;	/* "/proc" unless testing */
	const char *kallsyms;	/* "/proc/kallsyms" unless testing */
	const char *debug_path; /* libdwfl debuginfo path; NULL: default */
	bool quiet;		/* no warnings on stderr */
};

/* A file mapping of one process, as captured from /proc/PID/maps. */
struct sym_mapping {
	uint64_t start, limit; /* [start, limit) in the process */
	uint64_t offset;       /* file offset of start */
	uint64_t inode;	       /* of the mapped file, 0 unknown */
	const char *path;      /* as the process sees it; "" for anonymous */
	const char *build_id;  /* lowercase hex, "" when unknown */
	uint32_t pid;
	bool is_main; /* the process's executable */
};

struct sym_result {
	unsigned int nr_frames;			 /* >= 1 */
	struct sym_frame frames[SYM_MAX_FRAMES]; /* innermost first */
	const struct sym_mapping *map;		 /* NULL for kernel/JIT/unmapped */
	bool has_functions, has_lines, has_inline;
};

struct symbolizer;

/* opts may be NULL for the defaults. */
struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts);
void symbolizer_free(struct symbolizer *s);

/*
 * Capture the maps of pid now (first sight only; later calls are cheap
 * no-ops). Returns 0, or -errno when the process is already gone: its
 * addresses then resolve as [unknown].
 */
int symbolizer_note_pid(struct symbolizer *s, uint32_t pid);

#include "proc/ident.h"

/*
 * Generations: each image a pid runs (after an exec, or a reuse of the pid)
 * is a generation of its own, numbered from 0, with its own captured maps,
 * so samples taken before an exec keep resolving in the old binary even
 * where the new one maps code at the same addresses. Whoever reads the
 * samples in time order tags them with the generation (proc/follow.c does,
 * through symbolizer_exec_check); the generation then goes with the
 * address to symbolizer_resolve_gen.
 *
 * symbolizer_exec_check: the newest generation of pid, after comparing the
 * live process's identity with it: on a change the newest is frozen (its
 * maps are no longer re-read) and a new one is captured now. Notes an
 * unknown pid (generation 0). Costs a stat and a small read.
 */
uint16_t symbolizer_exec_check(struct symbolizer *s, uint32_t pid);

/*
 * For following a process during the capture (proc/follow.c): is one of the
 * n user addresses ips in no captured mapping of pid's generation gen?
 * Addresses that cannot be code (page zero, the kernel half) are passed
 * over. Only the newest generation of a process still there can miss;
 * anything else says false (its maps cannot change, or nothing is known to
 * re-read).
 */
bool symbolizer_maps_miss(struct symbolizer *s, uint32_t pid, uint16_t gen, const uint64_t *ips,
			  size_t n);
/*
 * Re-reads the maps of pid's newest generation now (or captures a new
 * generation if the process exec'd meanwhile; *gen is then the new one).
 * Returns how many mappings it added, or -errno (-ESRCH: the process is
 * gone or its image final; nothing is lost, the old maps stay).
 */
int symbolizer_refresh(struct symbolizer *s, uint32_t pid, uint16_t *gen);

/*
 * Resolve addr in pid (user) or in the kernel. addr is the address to look up:
 * the caller has already adjusted return addresses of non-leaf frames.
 * symbolizer_resolve uses pid's newest generation; _gen a given one (a
 * generation newer than any seen is captured now, late). A miss in the
 * newest generation re-reads the maps only while the process still runs the
 * same image; if it exec'd meanwhile, a new generation is captured and the
 * address looked up there.
 */
void symbolizer_resolve(struct symbolizer *s, uint32_t pid, uint64_t addr, bool kernel,
			struct sym_result *out);
void symbolizer_resolve_gen(struct symbolizer *s, uint32_t pid, uint16_t gen, uint64_t addr,
			    bool kernel, struct sym_result *out);

/*
 * The perf map of every process with anonymous executable memory (JIT code)
 * is looked for once when the process is first seen and then once after
 * each call of this (view_build calls it before symbolizing): a JIT may
 * write or replace its map at any time, a JVM at exit. The process's root
 * is held from first sight, so a process gone by then still counts.
 */
void symbolizer_recheck_jit(struct symbolizer *s);

/*
 * The processes (generations) where an address symbolized so far fell in
 * anonymous executable memory and no perf map named it: JIT frames left
 * unnamed. fn (may be NULL) is called for each with its executable and
 * whether it had a perf map at all. Returns how many.
 */
size_t symbolizer_jit_unnamed(struct symbolizer *s,
			      void (*fn)(void *arg, uint32_t pid, const char *exe, bool has_map),
			      void *arg);

/* Distinct ELF files opened so far (the build-id cache's size). */
size_t symbolizer_nr_files(const struct symbolizer *s);

/*
 * Frees what the lookups so far made libdw build: with a distribution's
 * debug packages installed that is tens of MiB (compressed debug sections
 * inflated to the heap, line tables, DIE caches). Names already resolved
 * stay valid (they are interned here); a later lookup in a file reopens it.
 * For a finished view, not between the refreshes of a live one.
 */
void symbolizer_trim(struct symbolizer *s);

/*
 * The captured executable mappings of pid's newest generation (noted
 * earlier), oldest first:
 * the DWARF unwinder (unwind_dwarf.c) reports them to libdwfl. Returns how
 * many, 0 for an unknown pid; i-th with symbolizer_mapping.
 */
size_t symbolizer_nr_mappings(struct symbolizer *s, uint32_t pid);
const struct sym_mapping *symbolizer_mapping(struct symbolizer *s, uint32_t pid, size_t i);

/*
 * Opens the file mapping m (of symbolizer_mapping) maps, as the symbols were
 * read from (proc/files.h): the DWARF unwinder reads its CFI there. A
 * descriptor of the caller's, or -1.
 */
int symbolizer_open_mapping(struct symbolizer *s, const struct sym_mapping *m);

/* The executable's mapping of pid (newest generation), or NULL. */
const struct sym_mapping *symbolizer_main_mapping(struct symbolizer *s, uint32_t pid);

#endif
