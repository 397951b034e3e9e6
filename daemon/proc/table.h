/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes met so far, one owner of each one's state over time: its
 * generations (each image a pid runs, after an exec or a reuse of the pid,
 * numbered from 0), and for each generation its identity (proc/ident.h),
 * executable, captured executable mappings, root directory and pid in its
 * own namespace.
 *
 * Where the module reports address spaces (side-band records), each of them
 * is a generation of its own and its mappings are the reported ones, files
 * checked against the recorded identity (proc/aspace.h, the table's other
 * half); what follows here about /proc is the fallback for the rest.
 *
 * Whatever symbolizing needs later is captured while the process lives,
 * because by the time a profile is written it may be gone: a generation's
 * maps are read when it is first met (proc_table_note, _exec_check), then
 * re-read while it still runs the same image when an address falls in no
 * captured mapping (proc_table_refresh for proc/follow.c during the
 * capture, proc_table_lookup when symbolizing). After an exec the older
 * generation is frozen: its maps stay as they were, so samples taken before
 * keep resolving in the old binary even where the new one maps code at the
 * same addresses.
 *
 * Whoever reads files for the mappings (the symbolizer) does it as they are
 * captured, through hooks, since only then is the process sure to be there.
 * Mappings and generations are never moved or freed before the table: their
 * addresses are keys (the view's pprof mappings) and hold the hooks' state
 * (priv).
 */
#ifndef SKYPROF_PROC_TABLE_H
#define SKYPROF_PROC_TABLE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/files.h"
#include "proc/ident.h"

/*
 * An executable mapping of one generation, as captured from /proc/PID/maps
 * or as the module reported it (recorded).
 */
struct proc_mapping {
	uint64_t start, limit; /* [start, limit) in the process */
	uint64_t offset;       /* file offset of start */
	uint64_t inode;	       /* of the mapped file, 0 unknown */
	const char *path;      /* as the process sees it; "" for anonymous */
	uint32_t pid;
	bool is_main;  /* the process's executable */
	bool recorded; /* from the module's records: ident is the file's */
	uint8_t check; /* recorded: enum files_check, how its file was found */
	struct files_ident ident;
	void *priv; /* the hooks' (the symbolizer's ELF file), NULL first */
};

/*
 * Whether m is anonymous memory (no file, or a named "[anon:...]" region),
 * where JIT code lives. A recorded file whose path was too long for the
 * record is not: it has an inode.
 */
bool proc_table_mapping_anon(const struct proc_mapping *m);

/* One generation of a process. Read-only outside table.c but for priv. */
struct proc_gen {
	uint32_t pid;
	uint16_t gen;
	bool have_ident;
	bool frozen;	/* a newer generation exists: the maps are final */
	bool gone;	/* /proc/PID/maps no longer readable */
	bool anon_exec; /* anonymous executable memory in its maps: a JIT? */
	struct proc_ident ident;
	uint32_t nspid; /* the pid inside its own namespace, 0: not looked up */
	/* The module's address space this generation is (side-band records,
	 * proc/aspace.h), 0: none, read from /proc; then when its first sample
	 * was (the order of generations), the reports taken, and whether /proc
	 * was asked for a sample that came without one. */
	uint64_t as_id;
	uint64_t first_ns;
	uint32_t nr_reports;
	bool fallback_tried;
	/* Its root directory, held from proc_table_hold_root on (-1: not
	 * held): files in its mount namespace are found through it also
	 * after the process is gone. */
	int rootfd;
	char exe[PATH_MAX];	    /* "" unknown; " (deleted)" cut */
	struct proc_mapping **maps; /* oldest first */
	size_t nr_maps, cap_maps;
	void *priv; /* the hooks' (the symbolizer's perf map), NULL first */
	/* table.c's */
	struct proc_gen *next;	       /* hash chain; a pid's newest first */
	struct proc_mapping *last_hit; /* proc_table_maps_miss's: ips come in runs */
};

/*
 * Called as the process's state is captured, while it lives. mapping: m was
 * just added to g (its file is to be opened now). captured: g's maps were
 * read, first (a new generation) or again by proc_table_refresh. Either may
 * be NULL.
 */
struct proc_table_hooks {
	void *arg;
	void (*mapping)(void *arg, struct proc_gen *g, struct proc_mapping *m);
	void (*captured)(void *arg, struct proc_gen *g, bool first);
};

struct proc_table;

/* proc_root NULL: "/proc"; hooks may be NULL. NULL on -ENOMEM (or a
 * proc_root too long). */
struct proc_table *proc_table_new(const char *proc_root, const struct proc_table_hooks *hooks);
/* Closes the roots held; priv is the hooks' to free before (see _each). */
void proc_table_free(struct proc_table *t);
const char *proc_table_root(const struct proc_table *t);

/*
 * Captures pid now (first sight only; later calls are cheap no-ops) and
 * holds its root: a process named as a target (a JVM noted as it starts
 * maps its code cache later, and its perf map, written at exit, must still
 * be found). Returns 0, or -errno when the process is already gone.
 */
int proc_table_note(struct proc_table *t, uint32_t pid);

/*
 * The newest generation of pid, after comparing the live process's identity
 * with it: on a change the newest is frozen and a new one captured now.
 * Captures an unknown pid (generation 0). Costs a stat and a small read.
 */
uint16_t proc_table_exec_check(struct proc_table *t, uint32_t pid);

/*
 * Is one of the n user addresses ips in no captured mapping of pid's
 * generation gen? Addresses that cannot be code (page zero, the kernel
 * half) are passed over. Only the newest generation of a process still
 * there can miss; anything else says false.
 */
bool proc_table_maps_miss(struct proc_table *t, uint32_t pid, uint16_t gen, const uint64_t *ips,
			  size_t n);

/*
 * Re-reads the maps of pid's newest generation now (or captures a new
 * generation if the process exec'd meanwhile; *gen is then the new one).
 * Returns how many mappings it added, or -errno (-ESRCH: the process is
 * gone or its image final; nothing is lost, the old maps stay).
 */
int proc_table_refresh(struct proc_table *t, uint32_t pid, uint16_t *gen);

/* pid's newest generation, or its generation gen; NULL: never captured. */
struct proc_gen *proc_table_newest(struct proc_table *t, uint32_t pid);
struct proc_gen *proc_table_gen(struct proc_table *t, uint32_t pid, uint16_t gen);

/*
 * For symbolizing: generation gen of pid (newest: the newest, whatever gen
 * says). One never captured is captured now, late but better than never,
 * when pid was never met or gen is newer than any seen; an older one never
 * seen stays unknown (NULL): its image is gone.
 */
struct proc_gen *proc_table_want(struct proc_table *t, uint32_t pid, uint16_t gen, bool newest);

/*
 * The mapping of *g holding addr. A miss in a generation still current
 * re-reads the maps while the process runs the same image; if it exec'd
 * meanwhile, the next generation is captured, *g becomes it and addr is
 * looked up there. NULL: in no mapping.
 */
struct proc_mapping *proc_table_lookup(struct proc_table *t, struct proc_gen **g, uint64_t addr);

/* The mapping of g holding addr as captured (no re-read), newest first: a
 * region re-mapped after a re-read wins. NULL: none. */
struct proc_mapping *proc_table_find(const struct proc_gen *g, uint64_t addr);

/* The executable's mapping in pid's newest generation, or NULL. */
const struct proc_mapping *proc_table_main_mapping(struct proc_table *t, uint32_t pid);

/*
 * While g's process lives: hold its root and learn its pid in its own
 * namespace, so files in its mount namespace (a JIT's perf map) are found
 * later whatever happens to it. A no-op once held or when gone.
 */
void proc_table_hold_root(struct proc_table *t, struct proc_gen *g);
/* g's pid in its own namespace, looked up now if it was not yet. */
uint32_t proc_table_nspid(struct proc_table *t, struct proc_gen *g);

/*
 * Opens the file m maps, as the process sees it (proc/files.h): the
 * symbolizer reads its symbols there, the DWARF unwinder its CFI. A
 * recorded mapping's file only if it is the one recorded (files_open_ident;
 * m->check says how the first open went). opened (may be NULL) gets the
 * path opened, where debuginfo is looked for. A descriptor of the
 * caller's, or -1.
 */
int proc_table_open_mapping(struct proc_table *t, struct proc_mapping *m, char *opened,
			    size_t opened_len);

/* Calls fn for every generation: by pid's hash, a pid's newest first. */
void proc_table_each(struct proc_table *t, void (*fn)(void *arg, struct proc_gen *g), void *arg);

#endif
