/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process table's inside, shared by its two files: table.c (the table,
 * and a process's state read from /proc) and aspace.c (a process's state
 * from the module's side-band records). Nothing else includes this.
 */
#ifndef SKYPROF_PROC_TABLE_PRIV_H
#define SKYPROF_PROC_TABLE_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/strtab.h"
#include "proc/table.h"

#define PROC_BUCKETS 1024

/* What the side-band half did (proc/aspace.h reports them). */
struct proc_aspace_counts {
	uint64_t reports, mappings;
	uint64_t fallbacks;	  /* generations whose maps /proc gave: no report */
	uint64_t fallback_reused; /* ... refused: /proc showed a later process */
	uint64_t fallback_gone;	  /* ... nothing there any more */
};

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
 * Reads g's /proc/PID/maps into it, executable mappings only; anon_only:
 * only to learn whether it has anonymous executable memory (sets
 * anon_exec), adding nothing. 0 or -errno (sets gone).
 */
int proc_table_read_maps(struct proc_table *t, struct proc_gen *g, bool anon_only);

/* g's executable from /proc/PID/exe ("" when unreadable). */
void proc_table_read_exe(struct proc_table *t, struct proc_gen *g);

/* A new generation of pid, numbered gen, not linked into the table yet. */
struct proc_gen *proc_table_gen_alloc(uint32_t pid, uint16_t gen);

#endif
