/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interning string table: each distinct string is stored once and named by
 * a dense index, index 0 being "". pprof's string_table has exactly this
 * shape, so the table doubles as it; the symbolizer uses it so that a name
 * seen in many processes costs one copy.
 */
#ifndef SKYPROF_LIB_STRTAB_H
#define SKYPROF_LIB_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char **strs; /* strs[i] is string i, NUL terminated */
	uint32_t *lens;
	uint32_t nr, cap;
	uint32_t *slots;   /* open addressing: index + 1, 0 = empty */
	uint32_t nr_slots; /* power of two */
};

int strtab_init(struct strtab *t);
void strtab_free(struct strtab *t);
/* Returns the index of s (added if new), or -ENOMEM. */
int64_t strtab_intern_len(struct strtab *t, const char *s, size_t len);
int64_t strtab_intern(struct strtab *t, const char *s);
/* Returns the index of s, or -1 when it was never interned. */
int64_t strtab_find(const struct strtab *t, const char *s);

static inline const char *strtab_get(const struct strtab *t, uint32_t i)
{
	return i < t->nr ? t->strs[i] : "";
}

uint64_t strtab_hash(const void *p, size_t len);

#endif
