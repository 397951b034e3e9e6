/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of processes a session follows (follow.c): its layout and the
 * lookup, inline for the sample path's target filter (filter.c), which
 * asks it on every tick of a following session.
 */
#ifndef SKYPROF_FOLLOW_H
#define SKYPROF_FOLLOW_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/types.h>

/* A slot left by an exit (0: never used); scans go past both. */
#define SKYPROF_FOLLOW_TOMB	U32_MAX

struct skyprof_follow {
	u32 *tgid;			/* nr slots */
	u32 nr;
	u32 bits;
	u32 window;
	atomic_t used;
	u64 bytes;
};

/* Is tgid followed by t? Any context: the window of slots after hash(tgid). */
static __always_inline bool skyprof_follow_has(const struct skyprof_follow *t, u32 tgid)
{
	u32 h = hash_32(tgid, t->bits), i;

	for (i = 0; i < t->window; i++)
		if (READ_ONCE(t->tgid[(h + i) & (t->nr - 1)]) == tgid)
			return true;
	return false;
}

#endif
