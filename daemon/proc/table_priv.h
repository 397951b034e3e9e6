/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the process table's two files share beyond table.h: table.c (the
 * table, and a process's state read from /proc) and aspace.c (a process's
 * state from the module's side-band records). Nothing else includes this;
 * the table's structure stays table.c's.
 */
#ifndef SKYPROF_PROC_TABLE_PRIV_H
#define SKYPROF_PROC_TABLE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

struct proc_gen;
struct proc_mapping;
struct proc_table;

/* What the side-band half did (proc/aspace.h reports them). */
struct proc_aspace_counts {
	uint64_t reports, mappings;
	uint64_t fallbacks;	  /* generations whose maps /proc gave: no report */
	uint64_t fallback_reused; /* ... refused: /proc showed a later process */
	uint64_t fallback_gone;	  /* ... nothing there any more */
};

/* The table's: the head of pid's chain of generations (newest first), and
 * the side-band half's counters. */
struct proc_gen **proc_table_chain(struct proc_table *t, uint32_t pid);
struct proc_aspace_counts *proc_table_counts(struct proc_table *t);

/* The hooks' captured(g, first): g's state was taken, its files opened. */
void proc_table_captured(struct proc_table *t, struct proc_gen *g, bool first);

/*
 * A new mapping appended to g, its path interned; the caller fills in the
 * rest, then announces it (proc_table_announce) so that the hooks open its
 * file. NULL: no memory.
 */
struct proc_mapping *proc_table_add_mapping(struct proc_table *t, struct proc_gen *g,
					    uint64_t start, uint64_t limit, uint64_t offset,
					    uint64_t inode, const char *path);
void proc_table_announce(struct proc_table *t, struct proc_gen *g, struct proc_mapping *m);

/*
 * Reads g's /proc/PID/maps into it, executable mappings only (sets
 * anon_exec for anonymous ones). 0 or -errno (sets gone).
 */
int proc_table_read_maps(struct proc_table *t, struct proc_gen *g);

/* g's executable from /proc/PID/exe ("" when unreadable). */
void proc_table_read_exe(struct proc_table *t, struct proc_gen *g);

/* A new generation of pid, numbered gen, not linked into the table yet. */
struct proc_gen *proc_table_gen_alloc(uint32_t pid, uint16_t gen);

#endif
