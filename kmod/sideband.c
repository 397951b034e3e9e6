// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band (SKYPROF_F_SIDEBAND): the executable file mappings of every
 * address space a session samples, written into its rings as records
 * (SKYPROF_REC_MMAP, closed by SKYPROF_REC_ASPACE), so that the program
 * names code of processes that are gone, or whose pid now belongs to
 * another program, by the time it reads their samples (perf's MMAP2).
 *
 * Two halves:
 *  - the sample path (skyprof_sideband_note(), hardirq, NMI or the
 *    sched_switch probe) looks the task's mm up in a per-session table of
 *    slots; the first sample of an mm claims a slot, gives the mm an id
 *    (the samples carry it), pins the mm (mm_users: its VMAs stay until
 *    they are read, however soon the process exits; mm_count: the address
 *    is not reused while the slot names it) and kicks the worker through
 *    the per-CPU irq_work. A reported mm whose map count changed since
 *    (a dlopen, code mapped later) is pinned and kicked again;
 *  - the worker (process context, the system workqueue) reads each kicked
 *    mm's executable file mappings under its mmap lock into a staging
 *    buffer, writes them with interrupts off into the ring of the CPU it
 *    runs on (a report that does not fit is tried again later, a few
 *    times), unpins, and frees slots whose mm has no users left. Its time
 *    counts in the stats and against the per-CPU budget of that CPU: a
 *    walk over budget is put off, not skipped (the pin keeps the VMAs).
 *
 * The table: nr slots (a power of two); an mm's slot is one of the window
 * slots following hash(mm). Each slot's state is an atomic; its owner by
 * state is: FREE nobody, CLAIMED the claiming sample path, PENDING nobody
 * (waiting for the worker), WALKING the worker, REPORTED nobody (the sample
 * path may claim it back to PENDING, the worker may evict it). Every
 * transition out of a shared state is a cmpxchg, so one side wins. A slot's
 * mm is published with a release store after its id and fields are set
 * (the lookup's acquire load pairs with it) and cleared before the slot is
 * freed, before mm_count is dropped: a lookup never matches an mm through a
 * slot that no longer holds it. Two CPUs meeting a new mm at once may both
 * claim a slot: the mm is then reported under two ids, which the reader
 * takes as two generations with the same mappings (harmless).
 *
 * Teardown (skyprof_sideband_stop(), then _free()): after the sources are
 * stopped and the irq_works synced (no new kicks: the irq_work only kicks a
 * running session), the worker is cancelled and every slot's pins dropped.
 */
#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kdev_t.h>
#include <linux/log2.h>
#include <linux/mman.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat/mm.h"
#include "sample_fixed.h"
#include "skyprof_kmod.h"

#define SKYPROF_SB_WINDOW	16
/* Bytes of records staged per report: a few hundred mappings. */
#define SKYPROF_SB_STAGE	(128 * 1024)
/* A report that did not fit in the ring is tried again this often. */
#define SKYPROF_SB_TRIES	5
#define SKYPROF_SB_RETRY	msecs_to_jiffies(20)
/* A walk over budget waits for the next budget window. */
#define SKYPROF_SB_THROTTLE	msecs_to_jiffies(10)
/*
 * A changed map count walks the mm again at most this often: anonymous
 * mmaps (malloc) change it too, and a walk that finds the same executable
 * mappings writes nothing.
 */
#define SKYPROF_SB_REWALK_MS	20
#define SKYPROF_SB_REWALK_NS	(SKYPROF_SB_REWALK_MS * NSEC_PER_MSEC)

enum {
	SKYPROF_SB_FREE,
	SKYPROF_SB_CLAIMED,
	SKYPROF_SB_PENDING,
	SKYPROF_SB_WALKING,
	SKYPROF_SB_REPORTED,
};

struct skyprof_sb_slot {
	struct mm_struct *mm;		/* mm_count held; NULL: none */
	atomic_t state;			/* SKYPROF_SB_* */
	bool pinned;			/* mm_users held (owner: CLAIMED/PENDING/WALKING) */
	int map_count;			/* at the last walk; -1 before */
	u32 tgid;
	u32 report;			/* reports closed so far */
	u32 tries;			/* of the current report */
	u32 aflags;			/* SKYPROF_ASPACE_F_* carried to the next report */
	u64 as_id;
	u64 first_ns;
	u64 walked_ns;			/* skyprof_now_ns() of the last walk */
	u64 sig;			/* of the executable mappings at the last report */
	char comm[TASK_COMM_LEN];
};

struct skyprof_sideband {
	struct skyprof_session *s;
	struct skyprof_sb_slot *slots;
	u32 nr;
	u32 bits;
	u32 window;
	atomic64_t next_id;
	atomic_t used;
	atomic_t pinned;
	struct delayed_work work;
	char *path;			/* PATH_MAX, the worker's */
	u8 *stage;			/* SKYPROF_SB_STAGE, the worker's */
	u64 bytes;
};

static atomic64_t skyprof_sideband_mem = ATOMIC64_INIT(0);

u64 skyprof_sideband_bytes(void)
{
	return atomic64_read(&skyprof_sideband_mem);
}

/* ---- the sample path ------------------------------------------------------ */

/* Slot k holds mm and is idle: pin it and hand it to the worker. */
static void skyprof_sb_kick(struct skyprof_pcpu *pc, struct skyprof_sb_slot *slot,
			    struct mm_struct *mm)
{
	struct skyprof_sideband *sb = pc->s->sb;

	slot->pinned = skyprof_mm_get_users(mm);
	if (slot->pinned)
		atomic_inc(&sb->pinned);
	/* The fields above before the worker's cmpxchg from PENDING. */
	smp_mb__before_atomic();
	atomic_set(&slot->state, SKYPROF_SB_PENDING);
	pc->st.sb_noted++;
	set_bit(SKYPROF_PEND_SIDEBAND, &pc->pending);
	irq_work_queue(&pc->work);
}

/* A reported mm whose mappings may have changed: pin and kick it again. */
static void skyprof_sb_recheck(struct skyprof_pcpu *pc, struct skyprof_sb_slot *slot,
			       struct mm_struct *mm)
{
	if (atomic_read(&slot->state) != SKYPROF_SB_REPORTED)
		return;
	/* Pairs with the worker's release of REPORTED: map_count is its. */
	smp_rmb();
	/*
	 * map_count changes under the mmap write lock, which we cannot take
	 * here: a stale read only delays the re-walk to the next sample.
	 */
	if (READ_ONCE(slot->map_count) == data_race(READ_ONCE(mm->map_count)))
		return;
	if (atomic_cmpxchg(&slot->state, SKYPROF_SB_REPORTED, SKYPROF_SB_CLAIMED) !=
	    SKYPROF_SB_REPORTED)
		return;
	skyprof_sb_kick(pc, slot, mm);
}

/*
 * The id of task's address space for a sample of s on this CPU (pc), taken
 * at now; 0 for none (a kernel thread, an exiting task, a full table).
 * task is current, or a task not running that cannot change its mm (the
 * off-CPU switch-out). Any context: atomics and the irq_work only.
 */
u64 skyprof_sideband_note(struct skyprof_pcpu *pc, struct task_struct *task, u64 now)
{
	struct skyprof_sideband *sb = pc->s->sb;
	struct mm_struct *mm = READ_ONCE(task->mm);
	struct skyprof_sb_slot *slot;
	u32 h, i, k;

	if (!mm || (task->flags & PF_KTHREAD))
		return 0;
	h = hash_ptr(mm, sb->bits);
	for (i = 0; i < sb->window; i++) {
		slot = &sb->slots[(h + i) & (sb->nr - 1)];
		/* Pairs with the release store that published the slot. */
		if (smp_load_acquire(&slot->mm) == mm) {
			skyprof_sb_recheck(pc, slot, mm);
			return slot->as_id;
		}
	}
	for (i = 0; i < sb->window; i++) {
		k = (h + i) & (sb->nr - 1);
		slot = &sb->slots[k];
		if (atomic_read(&slot->state) != SKYPROF_SB_FREE ||
		    atomic_cmpxchg(&slot->state, SKYPROF_SB_FREE, SKYPROF_SB_CLAIMED) !=
		    SKYPROF_SB_FREE)
			continue;
		atomic_inc(&sb->used);
		skyprof_mm_grab(mm);
		slot->as_id = atomic64_inc_return(&sb->next_id);
		slot->tgid = task->tgid;
		slot->first_ns = now;
		slot->walked_ns = 0;
		slot->map_count = -1;
		slot->report = 0;
		slot->tries = 0;
		slot->aflags = 0;
		slot->sig = 0;
		skyprof_copy_comm(slot->comm, task->comm);
		/* Publishes the fields above to lookups: pairs with their acquire. */
		smp_store_release(&slot->mm, mm);
		skyprof_sb_kick(pc, slot, mm);
		return slot->as_id;
	}
	pc->st.sb_full++;
	/* A full table: the worker frees the slots of the dead. */
	set_bit(SKYPROF_PEND_SIDEBAND, &pc->pending);
	irq_work_queue(&pc->work);
	return 0;
}

/* From the per-CPU irq_work (hardirq, or its thread on RT). */
void skyprof_sideband_kick(struct skyprof_session *s)
{
	if (s->sb && READ_ONCE(s->running))
		mod_delayed_work(system_wq, &s->sb->work, 0);
}

/* ---- the worker ------------------------------------------------------------ */

/* Bytes of an mmap record with a path of len bytes (its NUL included). */
static inline u32 skyprof_sb_mmap_size(u32 len)
{
	return ALIGN(sizeof(struct skyprof_mmap) + len, SKYPROF_REC_ALIGN);
}

/*
 * One executable mapping (of a file, or the vDSO: f NULL) into the stage
 * at *off; false: no room.
 */
static bool skyprof_sb_stage_vma(struct skyprof_sideband *sb, struct skyprof_sb_slot *slot,
				 struct vm_area_struct *vma, const struct inode *exe,
				 u64 now, u32 *off)
{
	struct file *f = vma->vm_file;
	const struct inode *inode = f ? skyprof_file_user_inode(f) : NULL;
	struct skyprof_mmap *rec;
	const char *path;
	u32 len, flags = 0, size;

	if (!f && skyprof_vma_is_vdso(vma->vm_mm, vma)) {
		path = "[vdso]";
		flags |= SKYPROF_MMAP_F_VDSO;
	} else if (!f) {
		path = "";
		flags |= SKYPROF_MMAP_F_ANON;
	} else {
		path = d_path(skyprof_file_user_path(f), sb->path, PATH_MAX);
	}
	if (IS_ERR(path)) {
		path = "";
		flags |= SKYPROF_MMAP_F_PATH_CUT;
	}
	len = strlen(path);
	if (len > 10 && !strcmp(path + len - 10, " (deleted)")) {
		len -= 10;
		flags |= SKYPROF_MMAP_F_DELETED;
	}
	size = skyprof_sb_mmap_size(len + 1);
	if (*off + size > SKYPROF_SB_STAGE)
		return false;
	rec = (struct skyprof_mmap *)(sb->stage + *off);
	/* The whole record, padding included, goes to user space. */
	memset(rec, 0, size);
	rec->hdr.size = size;
	rec->hdr.type = SKYPROF_REC_MMAP;
	rec->hdr.version = SKYPROF_MMAP_VERSION;
	rec->time_ns = now;
	rec->as_id = slot->as_id;
	rec->start = vma->vm_start;
	rec->end = vma->vm_end;
	rec->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (inode) {
		rec->ino = inode->i_ino;
		rec->size = i_size_read(inode);
		skyprof_inode_mtime(inode, &rec->mtime_sec, &rec->mtime_nsec);
		rec->dev_major = MAJOR(inode->i_sb->s_dev);
		rec->dev_minor = MINOR(inode->i_sb->s_dev);
		rec->generation = inode->i_generation;
	}
	rec->tgid = slot->tgid;
	rec->prot = ((vma->vm_flags & VM_READ) ? PROT_READ : 0) |
		    ((vma->vm_flags & VM_WRITE) ? PROT_WRITE : 0) | PROT_EXEC;
	if (inode && inode == exe)
		flags |= SKYPROF_MMAP_F_EXE;
	rec->flags = flags;
	rec->path_len = len + 1;
	memcpy(rec + 1, path, len);
	*off += size;
	return true;
}

/* What a walk found. */
struct skyprof_sb_walk {
	u32 bytes;			/* staged */
	u32 nr;				/* mmap records staged */
	u32 flags;			/* SKYPROF_ASPACE_F_* */
	int map_count;
	u64 sig;
};

/*
 * An anonymous executable mapping right after the anonymous one staged last
 * (at stage offset last) grows that record instead of adding one: a JIT
 * flipping pages between writable and executable splits its code cache into
 * many mappings that only name one thing, code without a file (and a split
 * alone is then no change to report). Whether it did.
 */
static bool skyprof_sb_extend_anon(struct skyprof_sideband *sb, struct vm_area_struct *vma,
				   u32 last)
{
	struct skyprof_mmap *rec;

	if (vma->vm_file || last == U32_MAX || skyprof_vma_is_vdso(vma->vm_mm, vma))
		return false;
	rec = (struct skyprof_mmap *)(sb->stage + last);
	if (!(rec->flags & SKYPROF_MMAP_F_ANON) || rec->end != vma->vm_start)
		return false;
	rec->end = vma->vm_end;
	if (vma->vm_flags & VM_WRITE)
		rec->prot |= PROT_WRITE;
	return true;
}

/* What the staged records say, hashed: a re-walk that finds it again has nothing to tell. */
static u64 skyprof_sb_signature(const struct skyprof_sideband *sb, u32 bytes)
{
	const struct skyprof_mmap *rec;
	u64 sig = 0;
	u32 off;

	for (off = 0; off < bytes; off += rec->hdr.size) {
		rec = (const struct skyprof_mmap *)(sb->stage + off);
		sig = (sig ^ rec->start ^ (rec->end << 7) ^ (rec->pgoff << 17) ^ rec->ino) *
		      0x100000001b3ULL;
	}
	return sig;
}

/*
 * Stages slot's executable mappings: files, the vDSO, anonymous memory.
 * Process context: the lock sleeps.
 */
static void skyprof_sb_walk(struct skyprof_sideband *sb, struct skyprof_sb_slot *slot, u64 now,
			    struct skyprof_sb_walk *w)
{
	struct mm_struct *mm = slot->mm;
	struct vm_area_struct *vma;
	struct skyprof_vma_iter it;
	const struct inode *exe;
	u32 last = U32_MAX;		/* stage offset of the last record */

	memset(w, 0, sizeof(*w));
	if (!slot->pinned || skyprof_mm_dead(mm)) {
		/* Torn down before we could pin it: nothing to read. */
		w->flags |= SKYPROF_ASPACE_F_EXITED;
		return;
	}
	skyprof_mm_read_lock(mm);
	w->map_count = mm->map_count;
	exe = skyprof_mm_exe_inode(mm);
	for (vma = skyprof_vma_first(mm, &it); vma; vma = skyprof_vma_next(&it, vma)) {
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		if (skyprof_sb_extend_anon(sb, vma, last))
			continue;
		last = w->bytes;
		if (w->nr == SKYPROF_SIDEBAND_MAPS_MAX ||
		    !skyprof_sb_stage_vma(sb, slot, vma, exe, now, &w->bytes)) {
			w->flags |= SKYPROF_ASPACE_F_MAPS_CUT;
			break;
		}
		w->nr++;
	}
	skyprof_mm_read_unlock(mm);
	w->sig = skyprof_sb_signature(sb, w->bytes);
	/* Only the owner's exit can leave the VMAs to us alone. */
	if (atomic_read(&mm->mm_users) == 1)
		w->flags |= SKYPROF_ASPACE_F_EXITED;
}

/*
 * Writes the staged records and the closing ASPACE into this CPU's ring.
 * Interrupts off: the CPU's handlers are the ring's only other writer, and
 * none runs meanwhile (an NMI finds the ring busy and counts itself
 * nested). Returns false when the ring had no room for all of it.
 */
static bool skyprof_sb_emit(struct skyprof_session *s, struct skyprof_sb_slot *slot,
			    const struct skyprof_sb_walk *w, u64 now)
{
	struct skyprof_sideband *sb = s->sb;
	struct skyprof_aspace *as;
	struct skyprof_pcpu *pc;
	unsigned long irqflags;
	bool wake = false, ok = false;
	u32 off = 0, size;
	void *dst;

	local_irq_save(irqflags);
	pc = this_cpu_ptr(s->pcpu);
	WRITE_ONCE(pc->busy, 1);
	/* Pairs with the barrier() in skyprof_sample(): the flag before the ring. */
	barrier();
	while (off < w->bytes) {
		size = ((struct skyprof_rec_header *)(sb->stage + off))->size;
		dst = skyprof_ring_reserve(pc->ring, size);
		if (!dst)
			goto lost;
		memcpy(dst, sb->stage + off, size);
		wake |= skyprof_ring_commit(pc->ring, size);
		pc->st.sb_records++;
		off += size;
	}
	size = sizeof(*as);
	as = skyprof_ring_reserve(pc->ring, size);
	if (!as)
		goto lost;
	memset(as, 0, size);
	as->hdr.size = size;
	as->hdr.type = SKYPROF_REC_ASPACE;
	as->hdr.version = SKYPROF_ASPACE_VERSION;
	as->time_ns = now;
	as->as_id = slot->as_id;
	as->first_ns = slot->first_ns;
	as->tgid = slot->tgid;
	as->nr_maps = w->nr;
	as->report = slot->report;
	as->flags = w->flags | slot->aflags | (slot->report ? 0 : SKYPROF_ASPACE_F_FIRST);
	memcpy(as->comm, slot->comm, sizeof(as->comm));
	wake |= skyprof_ring_commit(pc->ring, size);
	pc->st.sb_reports++;
	ok = true;
	goto out;
lost:
	pc->st.sb_lost++;
	skyprof_ring_lost(pc->ring);
out:
	if (wake) {
		set_bit(SKYPROF_PEND_WATERMARK, &pc->pending);
		irq_work_queue(&pc->work);
	}
	barrier();
	WRITE_ONCE(pc->busy, 0);
	local_irq_restore(irqflags);
	return ok;
}

/* The walk and its writing since t0, in this CPU's stats and budget. */
static void skyprof_sb_charge(struct skyprof_session *s, u64 t0)
{
	struct skyprof_pcpu *pc;
	unsigned long irqflags;
	u64 dt;

	local_irq_save(irqflags);
	pc = this_cpu_ptr(s->pcpu);
	dt = skyprof_since_ns(t0);
	pc->st.sb_walk_ns += dt;
	if (skyprof_budget_charge(&pc->budget, dt)) {
		set_bit(SKYPROF_PEND_THROTTLED, &pc->pending);
		irq_work_queue(&pc->work);
	}
	local_irq_restore(irqflags);
}

/* May this CPU's budget take a walk now? Counts the ones put off. */
static bool skyprof_sb_budget_allow(struct skyprof_session *s, u64 now)
{
	struct skyprof_pcpu *pc;
	unsigned long irqflags;
	bool ok;

	local_irq_save(irqflags);
	pc = this_cpu_ptr(s->pcpu);
	ok = skyprof_budget_allow(&pc->budget, now);
	if (!ok)
		pc->st.sb_throttled++;
	local_irq_restore(irqflags);
	return ok;
}

static void skyprof_sb_unpin(struct skyprof_sideband *sb, struct skyprof_sb_slot *slot)
{
	if (!slot->pinned)
		return;
	slot->pinned = false;
	atomic_dec(&sb->pinned);
	mmput(slot->mm);
}

/* Slot k (WALKING) is done with for now: REPORTED, pins dropped. */
static void skyprof_sb_settle(struct skyprof_sideband *sb, struct skyprof_sb_slot *slot)
{
	skyprof_sb_unpin(sb, slot);
	/* map_count and the rest before the state: pairs with smp_rmb() in _recheck. */
	smp_mb__before_atomic();
	atomic_set(&slot->state, SKYPROF_SB_REPORTED);
}

/*
 * One PENDING slot, claimed (WALKING). Returns the jiffies after which the
 * worker must look again (0: done with it).
 */
static unsigned long skyprof_sb_report(struct skyprof_session *s, struct skyprof_sb_slot *slot)
{
	struct skyprof_sideband *sb = s->sb;
	struct skyprof_sb_walk w;
	u64 t0 = skyprof_now_ns();
	bool ok;

	if (slot->report && t0 - slot->walked_ns < SKYPROF_SB_REWALK_NS) {
		atomic_set(&slot->state, SKYPROF_SB_PENDING);
		return msecs_to_jiffies(SKYPROF_SB_REWALK_MS);
	}
	if (!skyprof_sb_budget_allow(s, t0)) {
		atomic_set(&slot->state, SKYPROF_SB_PENDING);
		return SKYPROF_SB_THROTTLE;
	}
	skyprof_sb_walk(sb, slot, t0, &w);
	slot->walked_ns = t0;
	slot->map_count = w.map_count;
	if (slot->report && w.sig == slot->sig && !(w.flags & SKYPROF_ASPACE_F_EXITED)) {
		/* Only anonymous mappings changed: nothing new to say. */
		skyprof_sb_charge(s, t0);
		skyprof_sb_settle(sb, slot);
		return 0;
	}
	ok = skyprof_sb_emit(s, slot, &w, t0);
	skyprof_sb_charge(s, t0);
	if (!ok) {
		slot->aflags |= SKYPROF_ASPACE_F_RETRIED;
		if (++slot->tries < SKYPROF_SB_TRIES) {
			atomic_set(&slot->state, SKYPROF_SB_PENDING);
			return SKYPROF_SB_RETRY;
		}
		/* Given up: a later sample of a live process asks again. */
		slot->map_count = -1;
		slot->tries = 0;
		skyprof_sb_settle(sb, slot);
		return 0;
	}
	slot->sig = w.sig;
	slot->report++;
	slot->tries = 0;
	slot->aflags = 0;
	/*
	 * Mapped meanwhile (a dlopen while we walked or waited for the
	 * budget): samples in it found the slot busy and asked nothing. The
	 * pin is still ours, so walk again before the process can be gone.
	 * map_count is read without the lock (data_race): a stale value only
	 * costs one walk more, or one less that the next sample asks for.
	 */
	if (slot->pinned && !(w.flags & SKYPROF_ASPACE_F_EXITED) &&
	    /* unlocked read of map_count: see above */
	    data_race(READ_ONCE(slot->mm->map_count)) != slot->map_count) {
		atomic_set(&slot->state, SKYPROF_SB_PENDING);
		return msecs_to_jiffies(SKYPROF_SB_REWALK_MS);
	}
	skyprof_sb_settle(sb, slot);
	return 0;
}

/* A REPORTED slot whose mm has no users left: free it. */
static void skyprof_sb_evict(struct skyprof_sideband *sb, struct skyprof_sb_slot *slot)
{
	struct mm_struct *mm = slot->mm;

	if (!mm || !skyprof_mm_dead(mm) ||
	    atomic_cmpxchg(&slot->state, SKYPROF_SB_REPORTED, SKYPROF_SB_WALKING) !=
	    SKYPROF_SB_REPORTED)
		return;
	/* No lookup matches it from here on; only then may mm be reused. */
	WRITE_ONCE(slot->mm, NULL);
	/* The cleared mm before FREE: pairs with the claimer's cmpxchg. */
	smp_mb__before_atomic();
	atomic_set(&slot->state, SKYPROF_SB_FREE);
	atomic_dec(&sb->used);
	mmdrop(mm);
}

static void skyprof_sb_work(struct work_struct *work)
{
	struct skyprof_sideband *sb = container_of(to_delayed_work(work),
						   struct skyprof_sideband, work);
	struct skyprof_session *s = sb->s;
	unsigned long again = 0, t;
	u32 k;

	for (k = 0; k < sb->nr && READ_ONCE(s->running); k++) {
		struct skyprof_sb_slot *slot = &sb->slots[k];

		switch (atomic_read(&slot->state)) {
		case SKYPROF_SB_PENDING:
			if (atomic_cmpxchg(&slot->state, SKYPROF_SB_PENDING, SKYPROF_SB_WALKING) !=
			    SKYPROF_SB_PENDING)
				break;
			/* Pairs with smp_mb__before_atomic() in skyprof_sb_kick(). */
			smp_mb__after_atomic();
			t = skyprof_sb_report(s, slot);
			if (t && (!again || t < again))
				again = t;
			cond_resched();
			break;
		case SKYPROF_SB_REPORTED:
			skyprof_sb_evict(sb, slot);
			break;
		}
	}
	if (again && READ_ONCE(s->running))
		queue_delayed_work(system_wq, &sb->work, again);
}

/* ---- session lifetime --------------------------------------------------- */

/* Process context: the table for s->cfg.sideband_entries. */
int skyprof_sideband_alloc(struct skyprof_session *s)
{
	struct skyprof_sideband *sb;
	u32 nr = s->cfg.sideband_entries;

	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return -ENOMEM;
	sb->s = s;
	sb->nr = nr;
	sb->bits = ilog2(nr);
	sb->window = min_t(u32, nr, SKYPROF_SB_WINDOW);
	atomic64_set(&sb->next_id, 0);
	atomic_set(&sb->used, 0);
	atomic_set(&sb->pinned, 0);
	INIT_DELAYED_WORK(&sb->work, skyprof_sb_work);
	sb->slots = vzalloc(array_size(nr, sizeof(*sb->slots)));
	sb->path = kmalloc(PATH_MAX, GFP_KERNEL);
	sb->stage = kvmalloc_node(SKYPROF_SB_STAGE, GFP_KERNEL, NUMA_NO_NODE);
	if (!sb->slots || !sb->path || !sb->stage) {
		vfree(sb->slots);
		kfree(sb->path);
		kvfree(sb->stage);
		kfree(sb);
		return -ENOMEM;
	}
	sb->bytes = (u64)nr * sizeof(*sb->slots) + PATH_MAX + SKYPROF_SB_STAGE;
	atomic64_add(sb->bytes, &skyprof_sideband_mem);
	s->sb = sb;
	return 0;
}

/*
 * Process context, the session's sources stopped and its irq_works synced
 * (nothing kicks the worker any more): the worker is done after this.
 */
void skyprof_sideband_stop(struct skyprof_session *s)
{
	if (s->sb)
		cancel_delayed_work_sync(&s->sb->work);
}

/* After skyprof_sideband_stop(), or when the session never ran. */
void skyprof_sideband_free(struct skyprof_session *s)
{
	struct skyprof_sideband *sb = s->sb;
	u32 k;

	if (!sb)
		return;
	for (k = 0; k < sb->nr; k++) {
		struct skyprof_sb_slot *slot = &sb->slots[k];

		if (!slot->mm)
			continue;
		skyprof_sb_unpin(sb, slot);
		mmdrop(slot->mm);
		slot->mm = NULL;
	}
	vfree(sb->slots);
	kfree(sb->path);
	kvfree(sb->stage);
	atomic64_sub(sb->bytes, &skyprof_sideband_mem);
	kfree(sb);
	s->sb = NULL;
}

void skyprof_sideband_read_stats(struct skyprof_session *s, struct skyprof_sideband_stats *out)
{
	struct skyprof_sideband *sb = s->sb;

	memset(out, 0, sizeof(*out));
	if (!sb)
		return;
	out->entries = sb->nr;
	out->used = atomic_read(&sb->used);
	out->pinned = atomic_read(&sb->pinned);
}
