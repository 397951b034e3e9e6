/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process table's other half (proc/table.h): a process's state from the
 * module's side-band records, as perf's machine/thread/maps take it from
 * MMAP2 records.
 *
 * Each address space the module reports (a process between two execs) is a
 * generation of its tgid: a new address space under the same tgid is an
 * exec or a reused pid, a new generation, and the older ones are frozen
 * (ordered by their first samples, so a report that comes late does not
 * make an old image the newest). A generation's mappings are the reported
 * ones: a later report of the same address space (a dlopen) adds to them,
 * a range mapped anew winning over what it overlaps (lookups go newest
 * first); the executable is the mapping marked SKYPROF_MMAP_F_EXE. Their
 * files are opened through the process's root while it lives and by path
 * after, and only if they are the recorded files (proc/files.h): a
 * replaced binary, a reused pid or an address the kernel reused never
 * gives another program's names.
 *
 * /proc/PID/maps is the fallback for a generation whose report never came
 * (its samples waited in vain: capture/hold.h): read once, and not at all
 * when /proc shows a process that started after the sample (the pid was
 * reused). A generation the module reports is never re-read from /proc.
 */
#ifndef SKYPROF_PROC_ASPACE_H
#define SKYPROF_PROC_ASPACE_H

#include <stdint.h>

#include "capture/sample.h"
#include "proc/files.h"
#include "proc/table.h"

/* pid's generation that is address space as_id, or NULL. */
struct proc_gen *proc_aspace_find(struct proc_table *t, uint32_t pid, uint64_t as_id);

/*
 * pid's generation that is address space as_id, made now when new, with no
 * mappings. gen: its number as the caller numbers pid's generations (the
 * agent's flush worker, which gets them from the drain thread's ingest: a
 * generation of that number not yet an address space, captured from /proc
 * when the pid was noted, becomes this one), -1: the table numbers it, the
 * next after pid's highest. first_ns: the time of its first sample. NULL:
 * no memory, or gen names another address space's generation.
 */
struct proc_gen *proc_aspace_gen(struct proc_table *t, uint32_t pid, uint64_t as_id, int gen,
				 uint64_t first_ns);

/*
 * Adds report r's mappings to g (its address space's generation); their
 * files are opened now, through the table's hooks. On the first report of
 * a process that still runs that image, /proc/PID/maps is read once for
 * anonymous executable memory only (a JIT: its perf map is then looked for
 * while the process is there). 0 or -ENOMEM.
 */
int proc_aspace_report(struct proc_table *t, struct proc_gen *g, const struct sp_report *r);

/*
 * A sample of g came without any report of g's address space under g's pid:
 * the mappings another pid's report gave that address space are g's (a
 * vfork child on its parent's), else g's maps are read from /proc, once,
 * unless /proc shows a process that started after sample_ns
 * (CLOCK_MONOTONIC) under the pid by then: another program, whose names
 * these samples must not get ([unknown] instead, counted).
 */
void proc_aspace_fallback(struct proc_table *t, struct proc_gen *g, uint64_t sample_ns);

struct proc_aspace_stats {
	uint64_t reports;		   /* reports taken */
	uint64_t mappings;		   /* mappings they added */
	uint64_t fallbacks;		   /* generations whose maps came from /proc: no report */
	uint64_t fallback_reused;	   /* ... refused: /proc showed a later process */
	uint64_t fallback_gone;		   /* ... gone from /proc */
	uint64_t files[__FILES_CHECK_MAX]; /* recorded mappings by enum files_check */
};

void proc_aspace_get_stats(struct proc_table *t, struct proc_aspace_stats *out);

/*
 * One line on what the checks of the recorded files found ("" when no
 * recorded file was opened): how many were verified and how many not,
 * by why. Into buf; returns buf.
 */
const char *proc_aspace_files_line(const struct proc_aspace_stats *st, char *buf, size_t len);

#endif
