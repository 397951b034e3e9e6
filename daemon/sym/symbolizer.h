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

#include "proc/table.h"
#include "sym/frame.h"

struct symbolizer_opts {
	const char *proc_root;	/* "/proc" unless testing */
	const char *kallsyms;	/* "/proc/kallsyms" unless testing */
	const char *debug_path; /* libdwfl debuginfo path; NULL: default */
	bool quiet;		/* no warnings on stderr */
};

struct sym_result {
	unsigned int nr_frames;			 /* >= 1 */
	struct sym_frame frames[SYM_MAX_FRAMES]; /* innermost first */
	const struct proc_mapping *map;		 /* NULL for kernel/JIT/unmapped */
	const char *build_id;			 /* map's file's, hex; "" unknown */
	bool has_functions, has_lines, has_inline;
	/* JIT code no perf map names yet: a later resolve of the same address
	 * may name it (after symbolizer_recheck_jit), so a caller that keeps
	 * results keeps asking (profile/view_build.c). */
	bool jit_pending;
};

struct symbolizer;

/* opts may be NULL for the defaults. */
struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts);
void symbolizer_free(struct symbolizer *s);

/*
 * The process table the symbolizer made and hooks into (proc/table.h): each
 * process's generations and captured maps, for whoever follows processes
 * while samples come in (proc/follow.c) or reads their files (the DWARF
 * unwinder). The symbolizer opens each mapping's ELF file as the table
 * captures it. Lives until symbolizer_free.
 */
struct proc_table *symbolizer_procs(struct symbolizer *s);

/*
 * Capture the maps of pid now (first sight only; later calls are cheap
 * no-ops): proc_table_note on symbolizer_procs. Returns 0, or -errno when
 * the process is already gone: its addresses then resolve as [unknown].
 */
int symbolizer_note_pid(struct symbolizer *s, uint32_t pid);

/*
 * Resolve addr in pid (user) or in the kernel. addr is the address to look up:
 * the caller has already adjusted return addresses of non-leaf frames.
 * symbolizer_resolve uses pid's newest generation; _gen a given one (the
 * generation proc/follow.c tagged the sample with). The generation and the
 * mapping come from the process table (proc_table_want, proc_table_lookup):
 * a generation newer than any seen is captured now, late; a miss in the
 * newest generation re-reads the maps only while the process still runs the
 * same image, and if it exec'd meanwhile, a new generation is captured and
 * the address looked up there.
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
 * pid's JIT wrote its perf map anew (a JVM asked for it, proc/jvm_ask.h):
 * read it now, from its start, while the process lives (its root is held
 * from now on, so the map still counts once it has exited). Its entries are
 * the newest; older ones stay where nothing newer covers them.
 */
void symbolizer_jit_reread(struct symbolizer *s, uint32_t pid);
/*
 * n compiled methods pid's JVM listed (Compiler.codelist, proc/jvm_reply.h),
 * added to its JIT names as if read from its perf map. 0 or -ENOMEM.
 */
struct jvm_method;
int symbolizer_jit_add(struct symbolizer *s, uint32_t pid, const struct jvm_method *methods,
		       size_t n);

/*
 * The processes (generations) where an address symbolized so far fell in
 * anonymous executable memory and no perf map named it: JIT frames left
 * unnamed. fn (may be NULL) is called for each with its executable and
 * whether it had a perf map at all. Returns how many.
 */
size_t symbolizer_jit_unnamed(struct symbolizer *s,
			      void (*fn)(void *arg, uint32_t pid, const char *exe, bool has_map),
			      void *arg);

/*
 * Is addr, in pid's newest generation, in anonymous executable memory (JIT
 * code) that its perf map does not name? For the capture's look at a new
 * stack's leaf (profile/ingest.h): the captured maps and the map as read,
 * no re-read of the maps, no ELF file. false when addr is in no captured
 * mapping.
 */
bool symbolizer_jit_unnamed_at(struct symbolizer *s, uint32_t pid, uint64_t addr);

/* A process (generation) whose anonymous executable memory (JIT code)
 * addresses were symbolized: whether the perf map named them. */
struct sym_jit_proc {
	uint32_t pid;
	const char *exe;
	bool has_map; /* a perf map was found (or given, symbolizer_jit_add) */
	bool named;   /* some address had a name from it */
	bool unnamed; /* some had none */
};
/* fn for each such process. */
void symbolizer_jit_each(struct symbolizer *s, void (*fn)(void *arg, const struct sym_jit_proc *p),
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

#endif
