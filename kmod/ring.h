/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU rings: types, the functions of ring.c, and the producer's
 * per-record fast path (reserve in place, commit), inline because the
 * sample handler runs them for every record: calls there would be paid at
 * every tick. See ring.c for the ordering contract with the reader.
 */
#ifndef SKYPROF_RING_H
#define SKYPROF_RING_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <skyprof.h>

/* One CPU's ring. Producer state lives here, in kernel memory. */
struct skyprof_ring {
	struct skyprof_ring_ctl *ctl;	/* vmalloc_user page, mapped rw */
	void *data;			/* vmalloc_user area, mapped ro */
	u64 size;			/* bytes, power of two */
	u64 head;			/* producer-private free-running head */
	u64 lost;
	u64 written;
	u64 watermark;			/* bytes used that trigger a wakeup */
};

/*
 * All rings of a session. Referenced by the session and by every file bound
 * to it (a mapping holds its file), so the memory outlives the session until
 * the last reader is gone.
 */
struct skyprof_rings {
	struct kref ref;
	wait_queue_head_t wq;		/* poll() readers */
	bool ended;			/* the session is gone: EPOLLHUP */
	u64 data_size;
	unsigned int nr;		/* nr_cpu_ids */
	struct skyprof_ring *ring[];	/* NULL for CPUs that are not possible */
};

struct skyprof_rings *skyprof_rings_alloc(u32 pages, u32 watermark_pct);
void skyprof_rings_get(struct skyprof_rings *rings);
void skyprof_rings_put(struct skyprof_rings *rings);
void skyprof_rings_end(struct skyprof_rings *rings);
bool skyprof_rings_readable(struct skyprof_rings *rings);
u64 skyprof_ring_bytes(void);

void *skyprof_ring_reserve(struct skyprof_ring *ring, u32 size);
void skyprof_ring_lost(struct skyprof_ring *ring);

/* Bytes in use as the producer sees them; a hostile tail reads as full. */
static __always_inline u64 skyprof_ring_used(struct skyprof_ring *ring)
{
	/* (A): pairs with the reader's release store of data_tail (D). */
	u64 tail = smp_load_acquire(&ring->ctl->data_tail);
	u64 used = ring->head - tail;

	return used > ring->size ? ring->size : used;
}

/*
 * Room for a record of at most max bytes written in place: the address of
 * max free bytes contiguous from the head, or NULL (the ring is nearly full
 * or wraps within max bytes; the caller then builds the record aside and
 * reserves its real size). Nothing is written: a record that ends up
 * shorter than max commits only its own size.
 */
static __always_inline void *skyprof_ring_reserve_inplace(struct skyprof_ring *ring, u32 max)
{
	u64 used = skyprof_ring_used(ring);
	u64 off = ring->head & (ring->size - 1);

	if (max > ring->size - off || max > ring->size - used)
		return NULL;
	return ring->data + off;
}

/*
 * Publishes the record reserved last. Returns true when this record made the
 * ring cross its watermark (the caller wakes the reader).
 */
static __always_inline bool skyprof_ring_commit(struct skyprof_ring *ring, u32 size)
{
	u64 before = skyprof_ring_used(ring);

	ring->head += size;
	ring->written++;
	WRITE_ONCE(ring->ctl->written, ring->written);
	/* (B): the record's bytes before the head; pairs with the reader's (C). */
	smp_store_release(&ring->ctl->data_head, ring->head);
	return before < ring->watermark && before + size >= ring->watermark;
}

#endif
