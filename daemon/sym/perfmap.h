/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT symbols from /tmp/perf-PID.map, which a JIT (node --perf-basic-prof,
 * a JVM's perf map agent, CPython 3.12+ -X perf) writes and keeps
 * appending to: one "START SIZE name" line per code region, START and SIZE
 * hex without 0x, the name the rest of the line (spaces included); later
 * entries may cover earlier ones when code moves. Format: the Linux
 * kernel's tools/perf/Documentation/jit-interface.txt.
 */
#ifndef SKYPROF_SYM_PERFMAP_H
#define SKYPROF_SYM_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_perfmap;

/* Takes ownership of fd, an open perf map; NULL on -ENOMEM. */
struct sym_perfmap *sym_perfmap_open(int fd);
void sym_perfmap_free(struct sym_perfmap *m);
/*
 * The name of the newest entry covering addr, or NULL. Reads what the JIT
 * appended since the last call first: the file grows while the JIT runs
 * (or is written anew, then read again from its start).
 * The string lives until sym_perfmap_free.
 */
const char *sym_perfmap_lookup(struct sym_perfmap *m, uint64_t addr);
/*
 * The map is now the file at fd (the JIT replaced the file): read from its
 * start at the next lookup, its entries newer than those kept. Takes
 * ownership of fd.
 */
void sym_perfmap_reopen(struct sym_perfmap *m, int fd);
/* The open file's stat (to tell a replaced file); false: none or no file. */
struct stat;
bool sym_perfmap_stat(const struct sym_perfmap *m, struct stat *st);
/* Parses a buffer as if it had been read from the file (fuzzing, tests). */
int sym_perfmap_feed(struct sym_perfmap *m, const char *buf, size_t len);
/*
 * Adds [start, end) named name as the newest entry, as if read from the
 * file (a JVM's Compiler.codelist answer: proc/jvm_reply.h). An empty range
 * or name is passed over. 0 or -ENOMEM.
 */
int sym_perfmap_add(struct sym_perfmap *m, uint64_t start, uint64_t end, const char *name);
/* Entries held (one per distinct range and name). */
size_t sym_perfmap_nr(const struct sym_perfmap *m);
/* Reads what the file has that was not read yet, now (not at the next
 * lookup: before the JIT writes it anew). */
void sym_perfmap_read(struct sym_perfmap *m);

#endif
