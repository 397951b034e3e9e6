// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU rings, producer side.
 *
 * One ring per possible CPU per session: a control page (struct
 * skyprof_ring_ctl, mapped read-write by the reader for data_tail) and a
 * power-of-two data area (mapped read-only). Exactly one producer writes a
 * ring: the session's sample handler on that CPU, behind a per-CPU nesting
 * guard (sample.c), so reservation needs no atomics.
 *
 * Ordering contract (see include/uapi/skyprof.h):
 *   producer: tail = LOAD_ACQUIRE(ctl->data_tail)        (A)
 *             if space: STORE record; STORE_RELEASE(ctl->data_head) (B)
 *   reader:   head = LOAD_ACQUIRE(ctl->data_head)        (C)
 *             LOAD records in [tail, head)
 *             STORE_RELEASE(ctl->data_tail)              (D)
 * A pairs with D: the reader has finished reading the bytes it frees before
 * the producer overwrites them. B pairs with C: the record's bytes are
 * visible before the head that covers them.
 *
 * The reader owns data_tail and may write anything there: it is clamped
 * (a bogus tail only makes the ring look full, i.e. costs drops), and the
 * producer never reads anything else back from user-writable memory.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "skyprof_kmod.h"

/* Ring memory currently allocated (GET_INFO SKYPROF_A_RING_BYTES). */
static atomic64_t skyprof_ring_mem = ATOMIC64_INIT(0);

u64 skyprof_ring_bytes(void)
{
	return atomic64_read(&skyprof_ring_mem);
}

static void skyprof_ring_free(struct skyprof_ring *ring)
{
	if (!ring)
		return;
	vfree(ring->data);
	vfree(ring->ctl);
	atomic64_sub(ring->size + PAGE_SIZE, &skyprof_ring_mem);
	kfree(ring);
}

static struct skyprof_ring *skyprof_ring_alloc(unsigned int cpu, u64 size, u32 watermark_pct)
{
	struct skyprof_ring *ring;

	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL, cpu_to_node(cpu));
	if (!ring)
		return NULL;
	ring->size = size;
	atomic64_add(size + PAGE_SIZE, &skyprof_ring_mem);
	/* vmalloc_user memory is zeroed and may be remapped to user space. */
	ring->ctl = vmalloc_user(PAGE_SIZE);
	ring->data = vmalloc_user(size);
	if (!ring->ctl || !ring->data) {
		skyprof_ring_free(ring);
		return NULL;
	}
	ring->watermark = div_u64(size * watermark_pct, 100);
	if (!ring->watermark)
		ring->watermark = 1;
	ring->ctl->version = SKYPROF_ABI_VERSION;
	ring->ctl->ctl_size = sizeof(struct skyprof_ring_ctl);
	ring->ctl->data_size = size;
	return ring;
}

struct skyprof_rings *skyprof_rings_alloc(u32 pages, u32 watermark_pct)
{
	struct skyprof_rings *rings;
	u64 size = (u64)pages << PAGE_SHIFT;
	unsigned int cpu;

	rings = kzalloc(struct_size(rings, ring, nr_cpu_ids), GFP_KERNEL);
	if (!rings)
		return NULL;
	kref_init(&rings->ref);
	init_waitqueue_head(&rings->wq);
	rings->data_size = size;
	rings->nr = nr_cpu_ids;
	for_each_possible_cpu(cpu) {
		rings->ring[cpu] = skyprof_ring_alloc(cpu, size, watermark_pct);
		if (!rings->ring[cpu]) {
			skyprof_rings_put(rings);
			return NULL;
		}
	}
	return rings;
}

static void skyprof_rings_release(struct kref *ref)
{
	struct skyprof_rings *rings = container_of(ref, struct skyprof_rings, ref);
	unsigned int cpu;

	for (cpu = 0; cpu < rings->nr; cpu++)
		skyprof_ring_free(rings->ring[cpu]);
	kfree(rings);
}

void skyprof_rings_get(struct skyprof_rings *rings)
{
	kref_get(&rings->ref);
}

void skyprof_rings_put(struct skyprof_rings *rings)
{
	kref_put(&rings->ref, skyprof_rings_release);
}

/* The session is gone: readers drain what is left and see EPOLLHUP. */
void skyprof_rings_end(struct skyprof_rings *rings)
{
	WRITE_ONCE(rings->ended, true);
	wake_up_all(&rings->wq);
}

bool skyprof_rings_readable(struct skyprof_rings *rings)
{
	unsigned int cpu;

	for (cpu = 0; cpu < rings->nr; cpu++) {
		struct skyprof_ring *ring = rings->ring[cpu];

		/* Pairs with the release in skyprof_ring_commit(). */
		if (ring && smp_load_acquire(&ring->ctl->data_head) !=
			    READ_ONCE(ring->ctl->data_tail))
			return true;
	}
	return false;
}

/*
 * Reserves size bytes (a multiple of 8, at most half the area) contiguous in
 * the data area; when they do not fit before the end, the rest of the area
 * becomes a zeroed PAD record. Returns NULL when the ring is full. Nothing is
 * visible to the reader until skyprof_ring_commit().
 */
void *skyprof_ring_reserve(struct skyprof_ring *ring, u32 size)
{
	u64 used = skyprof_ring_used(ring);
	u64 off = ring->head & (ring->size - 1);
	u64 to_end = ring->size - off;
	u64 need = size <= to_end ? size : to_end + size;
	struct skyprof_rec_header *pad;

	if (need > ring->size - used)
		return NULL;
	if (size > to_end) {
		/* to_end >= 8: offsets and sizes are multiples of 8. */
		pad = ring->data + off;
		memset(pad, 0, to_end);
		pad->size = to_end;
		pad->type = SKYPROF_REC_PAD;
		ring->head += to_end;
		off = 0;
	}
	return ring->data + off;
}

void skyprof_ring_lost(struct skyprof_ring *ring)
{
	ring->lost++;
	WRITE_ONCE(ring->ctl->lost, ring->lost);
}
