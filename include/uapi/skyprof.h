/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skyprof: the one contract between skyprof.ko and userspace.
 *
 * Two channels:
 *  - control: the generic netlink family SKYPROF_GENL_NAME (commands and
 *    attributes below; every attribute is validated by a policy in the
 *    module, out-of-range input is refused with -EINVAL and an extack
 *    message, nothing is half-applied);
 *  - data: the character device /dev/skyprof. After SESSION_START the owner
 *    opens the device, binds the file to its session (SKYPROF_IOC_BIND with
 *    the session id and the secret token the start reply carried), then maps
 *    per CPU one control page (read-write) and one data area (read-only).
 *
 * Userspace must be able to compile this header with only <linux/types.h>.
 */
#ifndef _UAPI_LINUX_SKYPROF_H
#define _UAPI_LINUX_SKYPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define SKYPROF_GENL_NAME	"skyprof"
#define SKYPROF_GENL_VERSION	1
#define SKYPROF_MCGRP_EVENTS	"events"
#define SKYPROF_DEVICE_NAME	"skyprof"	/* /dev/skyprof */

/*
 * ABI version of everything in this file. Bumped on any incompatible change;
 * GET_INFO reports the module's, and the daemon refuses a mismatch.
 */
#define SKYPROF_ABI_VERSION	1

/* Limits enforced by the module's netlink policy. */
#define SKYPROF_FREQ_MIN		1
#define SKYPROF_FREQ_MAX		100000	/* Hz, per CPU */
#define SKYPROF_MAX_DEPTH		256	/* frames, each of kernel/user */
#define SKYPROF_USTACK_MAX		65536	/* bytes of raw user stack */
#define SKYPROF_MAX_TGIDS		1024
#define SKYPROF_MAX_TIDS		1024
#define SKYPROF_MAX_SESSIONS		8
#define SKYPROF_RING_PAGES_MIN		8	/* data pages per CPU, power of 2 */
#define SKYPROF_RING_PAGES_MAX		16384
#define SKYPROF_RING_PAGES_DEFAULT	256
#define SKYPROF_CGROUP_PATH_MAX		4096
#define SKYPROF_BUDGET_PCT_DEFAULT	5
/* Defaults of the SESSION_START attributes that have none above. */
#define SKYPROF_FREQ_DEFAULT		99	/* Hz */
#define SKYPROF_MAX_DEPTH_DEFAULT	127
#define SKYPROF_WATERMARK_PCT_DEFAULT	50
#define SKYPROF_OFFCPU_MIN_NS_DEFAULT	1000
/* Off-CPU mode: entries of the per-session table of switched-out tasks. */
#define SKYPROF_OFFCPU_ENTRIES_MIN	64
#define SKYPROF_OFFCPU_ENTRIES_MAX	65536
#define SKYPROF_OFFCPU_ENTRIES_DEFAULT	2048
/* Side-band (SKYPROF_F_SIDEBAND): slots of the table of address spaces. */
#define SKYPROF_SIDEBAND_ENTRIES_MIN	64
#define SKYPROF_SIDEBAND_ENTRIES_MAX	65536
#define SKYPROF_SIDEBAND_ENTRIES_DEFAULT 4096
/* Executable file mappings reported per address space and report. */
#define SKYPROF_SIDEBAND_MAPS_MAX	1024
/* SKYPROF_F_FOLLOW_FORKS: slots of the table of processes followed. */
#define SKYPROF_FOLLOW_ENTRIES_MIN	64
#define SKYPROF_FOLLOW_ENTRIES_MAX	65536
#define SKYPROF_FOLLOW_ENTRIES_DEFAULT	8192

enum skyprof_cmd {
	SKYPROF_CMD_UNSPEC,
	SKYPROF_CMD_GET_INFO,		/* -> module/ABI version, caps, limits */
	SKYPROF_CMD_SESSION_START,	/* session attrs -> id, token, geometry */
	SKYPROF_CMD_SESSION_STOP,	/* SESSION_ID (own sessions only) */
	SKYPROF_CMD_GET_STATS,		/* SESSION_ID -> per-CPU stats */
	SKYPROF_CMD_EVENT,		/* multicast only, kernel -> user */
	/*
	 * No attributes -> one SKYPROF_A_SESSION_INFO per running session, of
	 * every owner (the same privilege as every other command; GET_STATS
	 * already takes any session's id).
	 */
	SKYPROF_CMD_LIST_SESSIONS,
	__SKYPROF_CMD_MAX,
};

#define SKYPROF_CMD_MAX (__SKYPROF_CMD_MAX - 1)

enum skyprof_mode {
	SKYPROF_MODE_ONCPU,	/* periodic samples of the running task */
	/*
	 * sched_switch: when a target task is switched out blocked (not when
	 * preempted while runnable, unless SKYPROF_F_OFFCPU_PREEMPT), its
	 * stacks and the time are kept in a per-session table of
	 * SKYPROF_A_OFFCPU_ENTRIES slots; when it runs again, one sample with
	 * SKYPROF_SF_OFFCPU and the blocked ns as weight is written to the ring
	 * of the CPU it runs on (blocks under SKYPROF_A_OFFCPU_MIN_NS are only
	 * counted). FREQ and CLOCK do not apply; USTACK_BYTES must be 0.
	 */
	SKYPROF_MODE_OFFCPU,
	__SKYPROF_MODE_MAX,
};

enum skyprof_clock {
	SKYPROF_CLOCK_AUTO,	/* perf hw cycles, else perf sw, else hrtimer */
	SKYPROF_CLOCK_PERF_HW,	/* PERF_COUNT_HW_CPU_CYCLES (NMI on x86) */
	SKYPROF_CLOCK_PERF_SW,	/* PERF_COUNT_SW_CPU_CLOCK */
	SKYPROF_CLOCK_HRTIMER,	/* per-CPU pinned hard hrtimer */
	__SKYPROF_CLOCK_MAX,
};

/* SKYPROF_A_CAPS bits: what this kernel and module can do. */
#define SKYPROF_CAP_PERF_HW	(1U << 0)	/* a cycles counter could be created */
#define SKYPROF_CAP_PERF_SW	(1U << 1)
#define SKYPROF_CAP_HRTIMER	(1U << 2)
#define SKYPROF_CAP_OFFCPU	(1U << 3)
#define SKYPROF_CAP_USTACK_COPY	(1U << 4)
#define SKYPROF_CAP_CGROUP	(1U << 5)
#define SKYPROF_CAP_SIDEBAND	(1U << 6)	/* SKYPROF_F_SIDEBAND is accepted */
#define SKYPROF_CAP_FOLLOW	(1U << 7)	/* SKYPROF_F_FOLLOW_FORKS is accepted */

/* SKYPROF_A_FLAGS bits of a session. */
#define SKYPROF_F_KERNEL_STACK	(1U << 0)	/* needs CAP_SYSLOG: else -EPERM, no default */
#define SKYPROF_F_USER_STACK	(1U << 1)	/* frame-pointer walk */
#define SKYPROF_F_KTHREADS	(1U << 2)	/* include kernel threads */
#define SKYPROF_F_OFFCPU_PREEMPT (1U << 3)	/* off-CPU: count runnable preemption too */
/*
 * Side-band: the first time the session samples an address space (and
 * again when its executable mappings may have changed: a dlopen, an mmap
 * of code), the module writes that address space's executable file
 * mappings into the ring (SKYPROF_REC_MMAP, then SKYPROF_REC_ASPACE), and
 * every sample is SKYPROF_SAMPLE_VERSION_AS, naming its address space. The
 * address space is kept alive from its first sample until it is reported,
 * so a process that exits at once is still described.
 */
#define SKYPROF_F_SIDEBAND	(1U << 4)
/*
 * The processes that the TARGET_TGIDS processes fork, at any depth, become
 * targets as they are forked (a table of SKYPROF_A_FOLLOW_ENTRIES slots; a
 * full table is counted in SKYPROF_STAT_FOLLOW_FULL). Needs TARGET_TGIDS.
 */
#define SKYPROF_F_FOLLOW_FORKS	(1U << 5)
#define SKYPROF_F_ALL		((1U << 6) - 1)

/* Target selection: none given = all tasks (idle always excluded). */

enum skyprof_attr {
	SKYPROF_A_UNSPEC,
	SKYPROF_A_PAD,			/* padding for 64-bit attributes */
	/* GET_INFO reply */
	SKYPROF_A_MODULE_VERSION,	/* string */
	SKYPROF_A_ABI_VERSION,		/* u32 */
	SKYPROF_A_CAPS,			/* u32, SKYPROF_CAP_* */
	SKYPROF_A_NR_CPU_IDS,		/* u32: rings per session (possible CPU ids) */
	SKYPROF_A_MAX_SESSIONS,		/* u32 */
	SKYPROF_A_ACTIVE_SESSIONS,	/* u32 */
	SKYPROF_A_FREQ_MAX,		/* u32 */
	SKYPROF_A_RING_PAGES_MAX,	/* u32 */
	SKYPROF_A_PAGE_SIZE,		/* u32 */
	/* SESSION_START request */
	SKYPROF_A_MODE,			/* u32, enum skyprof_mode */
	SKYPROF_A_CLOCK,		/* u32, enum skyprof_clock */
	SKYPROF_A_FREQ,			/* u32 Hz per CPU, on-CPU mode */
	SKYPROF_A_FLAGS,		/* u32, SKYPROF_F_*; default KERNEL|USER */
	SKYPROF_A_MAX_DEPTH,		/* u32, 1..SKYPROF_MAX_DEPTH, default 127 */
	SKYPROF_A_USTACK_BYTES,		/* u32, 0..SKYPROF_USTACK_MAX, multiple of 8 */
	SKYPROF_A_OFFCPU_MIN_NS,	/* u64, default 1000 */
	SKYPROF_A_RING_PAGES,		/* u32, power of two in [MIN, MAX] */
	SKYPROF_A_WATERMARK_PCT,	/* u32 1..100: wake the reader at this fill */
	SKYPROF_A_BUDGET_PCT,		/* u32 1..100: max share of a CPU in the handler */
	SKYPROF_A_TARGET_TGIDS,		/* binary: __u32[], 1..SKYPROF_MAX_TGIDS */
	SKYPROF_A_TARGET_CGROUP,	/* string: path in the cgroup v2 hierarchy */
	/* SESSION_START reply; SESSION_ID also in STOP/GET_STATS/EVENT */
	SKYPROF_A_SESSION_ID,		/* u32, nonzero */
	SKYPROF_A_SESSION_TOKEN,	/* u64: secret for SKYPROF_IOC_BIND */
	SKYPROF_A_CLOCK_USED,		/* u32, enum skyprof_clock actually used */
	SKYPROF_A_RING_DATA_SIZE,	/* u64 bytes of data area per CPU */
	/* GET_STATS reply */
	SKYPROF_A_CPU_STATS,		/* nested, repeated: SKYPROF_STAT_* */
	/* EVENT */
	SKYPROF_A_EVENT,		/* u32, enum skyprof_event */
	SKYPROF_A_END_REASON,		/* u32, enum skyprof_end_reason */
	SKYPROF_A_CPU,			/* u32 */
	/* GET_INFO reply (added after the first draft: append only) */
	SKYPROF_A_RING_BYTES,		/* u64: ring memory currently allocated */
	/*
	 * Off-CPU mode. OFFCPU_ENTRIES: SESSION_START request (u32, table
	 * slots, a power of two in SKYPROF_OFFCPU_ENTRIES_MIN..MAX, default
	 * _DEFAULT) and GET_STATS reply. GET_STATS reply of an off-CPU
	 * session: OFFCPU_USED (u32, slots holding a switched-out task now),
	 * OFFCPU_EXITED (u64, slots freed because their task exited).
	 * GET_INFO reply: OFFCPU_BYTES (u64, off-CPU table memory currently
	 * allocated, all sessions).
	 */
	SKYPROF_A_OFFCPU_ENTRIES,
	SKYPROF_A_OFFCPU_USED,
	SKYPROF_A_OFFCPU_EXITED,
	SKYPROF_A_OFFCPU_BYTES,
	/*
	 * SESSION_START request. TARGET_TIDS (binary: __u32[], 1..
	 * SKYPROF_MAX_TIDS): only these threads; with TARGET_TGIDS a task must
	 * be in both lists (the tids restrict the processes); not with
	 * TARGET_CGROUP. TARGET_CPUS (binary: __u32[] CPU bitmap, bit c % 32 of
	 * word c / 32 is CPU c, at most DIV_ROUND_UP(NR_CPU_IDS, 32) words, only
	 * possible CPUs, at least one): sample only on these CPUs; on the
	 * others no clock runs and nothing is written (their stats stay 0). In
	 * off-CPU mode a block is recorded only when the task leaves and
	 * resumes on CPUs of the mask.
	 */
	SKYPROF_A_TARGET_TIDS,
	SKYPROF_A_TARGET_CPUS,
	/*
	 * LIST_SESSIONS reply: SESSION_INFO, nested, repeated, holding
	 * SESSION_ID, OWNER_PID (u32: tgid that started it, initial pid
	 * namespace), MODE, CLOCK_USED, FREQ, FLAGS, the targets as given
	 * (TARGET_TGIDS, TARGET_TIDS, TARGET_CGROUP, TARGET_CPUS, each only
	 * when set), SAMPLES and LOST (u64, all CPUs: records written, records
	 * dropped because the ring was full).
	 */
	SKYPROF_A_SESSION_INFO,
	SKYPROF_A_OWNER_PID,
	SKYPROF_A_SAMPLES,
	SKYPROF_A_LOST,
	/*
	 * SESSION_START request, each a u32 power of two in its _MIN.._MAX,
	 * default _DEFAULT: SIDEBAND_ENTRIES, the address spaces a session
	 * keeps track of at once (SKYPROF_F_SIDEBAND); FOLLOW_ENTRIES, the
	 * processes it follows at once (SKYPROF_F_FOLLOW_FORKS). GET_STATS
	 * reply: SIDEBAND_USED (u32, address spaces tracked now), SIDEBAND_PINNED
	 * (u32, of them kept alive until reported), FOLLOW_USED (u32, processes
	 * followed now). GET_INFO reply: SIDEBAND_BYTES (u64, memory of both
	 * tables, all sessions).
	 */
	SKYPROF_A_SIDEBAND_ENTRIES,
	SKYPROF_A_FOLLOW_ENTRIES,
	SKYPROF_A_SIDEBAND_USED,
	SKYPROF_A_SIDEBAND_PINNED,
	SKYPROF_A_FOLLOW_USED,
	SKYPROF_A_SIDEBAND_BYTES,
	__SKYPROF_A_MAX,
};

#define SKYPROF_A_MAX (__SKYPROF_A_MAX - 1)

/* Attributes nested in each SKYPROF_A_CPU_STATS. Counters are u64. */
enum skyprof_stat {
	SKYPROF_STAT_UNSPEC,
	SKYPROF_STAT_PAD,
	SKYPROF_STAT_CPU,		/* u32 */
	SKYPROF_STAT_SAMPLES,		/* records written */
	SKYPROF_STAT_DROPS,		/* records lost: ring full */
	SKYPROF_STAT_UNWIND_ERRORS,	/* user or kernel walk faulted */
	SKYPROF_STAT_HANDLER_NS,	/* total time in the sample handler */
	SKYPROF_STAT_HANDLER_MAX_NS,
	SKYPROF_STAT_THROTTLED,		/* ticks skipped by the time budget */
	SKYPROF_STAT_FILTERED,		/* ticks that hit no target */
	SKYPROF_STAT_NESTED,		/* ticks dropped: writer already active */
	SKYPROF_STAT_MISSED,		/* hrtimer clock: periods that expired unserved */
	SKYPROF_STAT_OFFCPU_SHORT,	/* off-CPU: blocks under OFFCPU_MIN_NS, not written */
	SKYPROF_STAT_OFFCPU_FULL,	/* off-CPU: switch-outs not tracked, table full */
	/* Side-band (SKYPROF_F_SIDEBAND) and following (SKYPROF_F_FOLLOW_FORKS). */
	SKYPROF_STAT_SB_NOTED,		/* address spaces (and re-walks) noted by samples */
	SKYPROF_STAT_SB_FULL,		/* samples whose address space found no slot */
	SKYPROF_STAT_SB_REPORTS,	/* address spaces reported (SKYPROF_REC_ASPACE) */
	SKYPROF_STAT_SB_RECORDS,	/* SKYPROF_REC_MMAP records written */
	SKYPROF_STAT_SB_LOST,		/* side-band records lost: ring full */
	SKYPROF_STAT_SB_WALK_NS,	/* time walking address spaces (process context) */
	SKYPROF_STAT_SB_THROTTLED,	/* walks put off by the time budget */
	SKYPROF_STAT_FOLLOW_ADDED,	/* processes that became targets by fork */
	SKYPROF_STAT_FOLLOW_FULL,	/* forks not followed: table full */
	__SKYPROF_STAT_MAX,
};

#define SKYPROF_STAT_MAX (__SKYPROF_STAT_MAX - 1)

enum skyprof_event {
	SKYPROF_EVENT_UNSPEC,
	SKYPROF_EVENT_SESSION_ENDED,	/* + SESSION_ID, END_REASON */
	SKYPROF_EVENT_RING_WATERMARK,	/* + SESSION_ID, CPU */
	SKYPROF_EVENT_THROTTLED,	/* + SESSION_ID, CPU */
};

enum skyprof_end_reason {
	SKYPROF_END_STOPPED,		/* SESSION_STOP */
	SKYPROF_END_OWNER_CLOSED,	/* the owning netlink socket went away */
	SKYPROF_END_UNLOAD,		/* module unloading */
	SKYPROF_END_ERROR,
};

/* ------------------------------------------------------------------------
 * Data channel: /dev/skyprof
 */

struct skyprof_bind {
	__u32 session_id;
	__u32 reserved;		/* must be 0 */
	__u64 token;		/* SKYPROF_A_SESSION_TOKEN */
};

#define SKYPROF_IOC_MAGIC	0xB5
#define SKYPROF_IOC_BIND	_IOW(SKYPROF_IOC_MAGIC, 1, struct skyprof_bind)

/*
 * mmap offsets (in pages) after BIND. CPU c's control page is at page
 * SKYPROF_MMAP_CTL_PGOFF(c), one page, mappable PROT_READ|PROT_WRITE; its data
 * area is at SKYPROF_MMAP_DATA_PGOFF(c), RING_DATA_SIZE bytes, PROT_READ only.
 * CPUs that are not possible give -EINVAL.
 */
#define SKYPROF_MMAP_CPU_STRIDE		(1UL << 20)	/* pages */
#define SKYPROF_MMAP_CTL_PGOFF(cpu)	((unsigned long)(cpu) * SKYPROF_MMAP_CPU_STRIDE)
#define SKYPROF_MMAP_DATA_PGOFF(cpu)	(SKYPROF_MMAP_CTL_PGOFF(cpu) + 1)

/*
 * The control page of one CPU's ring.
 *
 * Memory ordering: the producer writes a record into the data area, then
 * publishes data_head with a release store (smp_store_release). The reader
 * loads data_head with acquire, reads records in [data_tail, data_head), then
 * stores data_tail with release. The producer loads data_tail with acquire
 * before reserving space and treats it as hostile (clamped to the area).
 * Both counters are free-running byte offsets; index = counter & (size - 1).
 * A record never wraps: when it does not fit before the end of the area the
 * producer fills the rest with a SKYPROF_REC_PAD record and starts at 0.
 */
struct skyprof_ring_ctl {
	__u32 version;		/* SKYPROF_ABI_VERSION */
	__u32 ctl_size;		/* sizeof(struct skyprof_ring_ctl) */
	__u64 data_size;	/* bytes, power of two */
	__u64 data_head;	/* kernel-written, release */
	__u64 lost;		/* records dropped on this CPU (ring full) */
	__u64 written;		/* records written on this CPU */
	__u64 reserved0[3];
	/* The reader's own cache line. */
	__u64 data_tail;	/* reader-written, release */
	__u64 reserved1[7];
};

/* Record types. */
enum skyprof_rec_type {
	SKYPROF_REC_PAD = 1,	/* skip to the end of the data area */
	SKYPROF_REC_SAMPLE = 2,	/* struct skyprof_sample */
	SKYPROF_REC_MMAP = 3,	/* struct skyprof_mmap (SKYPROF_F_SIDEBAND) */
	SKYPROF_REC_ASPACE = 4,	/* struct skyprof_aspace (SKYPROF_F_SIDEBAND) */
};

#define SKYPROF_REC_ALIGN	8

/* Every record starts with this; size includes it and is a multiple of 8. */
struct skyprof_rec_header {
	__u32 size;
	__u16 type;		/* enum skyprof_rec_type */
	__u16 version;		/* per type; SAMPLE: SKYPROF_SAMPLE_VERSION */
};

#define SKYPROF_SAMPLE_VERSION	1
/*
 * The sample of a SKYPROF_F_SIDEBAND session: struct skyprof_sample, then
 * struct skyprof_sample_as, then the arrays (see below).
 */
#define SKYPROF_SAMPLE_VERSION_AS 2

/* struct skyprof_sample.flags */
#define SKYPROF_SF_IN_KERNEL	(1U << 0)	/* the tick interrupted kernel mode */
#define SKYPROF_SF_KSTACK_TRUNC	(1U << 1)	/* hit max depth */
#define SKYPROF_SF_USTACK_TRUNC	(1U << 2)	/* hit max depth */
#define SKYPROF_SF_USTACK_FAULT	(1U << 3)	/* FP walk stopped on a fault */
#define SKYPROF_SF_REGS		(1U << 4)	/* struct skyprof_user_regs follows */
#define SKYPROF_SF_KTHREAD	(1U << 5)
#define SKYPROF_SF_OFFCPU	(1U << 6)	/* weight is blocked ns */

/*
 * An off-CPU sample (SKYPROF_SF_OFFCPU): time_ns is when the task ran again
 * and cpu the CPU it ran on (the ring's), weight the ns it was off-CPU (the
 * block began at time_ns - weight); tgid, tid, comm, cgroup_id and both
 * stacks are the task's as it was switched out, the kernel stack starting
 * in the scheduler.
 */

/*
 * One sample. Layout after the fixed part, each 8-byte aligned:
 *   struct skyprof_sample_as as;    version SKYPROF_SAMPLE_VERSION_AS only
 *   __u64 kernel_ips[nr_kernel];    innermost first
 *   __u64 user_ips[nr_user];        innermost first (user_ips[0] = user pc)
 *   struct skyprof_user_regs regs;  if flags & SKYPROF_SF_REGS
 *   __u8 ustack[ustack_size];       raw copy from user sp upward, padded
 *                                   with zeroes to 8 bytes
 * All padding is zero: no uninitialized kernel memory reaches the ring.
 */
struct skyprof_sample {
	struct skyprof_rec_header hdr;
	__u64 time_ns;		/* ktime_get_mono_fast_ns() (CLOCK_MONOTONIC) */
	__u64 weight;		/* 1 on-CPU; blocked ns off-CPU */
	__u64 cgroup_id;	/* cgroup v2 id (kernfs ino), 0 unknown */
	__u32 cpu;
	__u32 tgid;		/* initial pid namespace */
	__u32 tid;
	__u32 flags;		/* SKYPROF_SF_* */
	__u16 nr_kernel;
	__u16 nr_user;
	__u32 ustack_size;	/* bytes actually copied */
	char comm[16];		/* task comm, NUL padded */
};

/*
 * SKYPROF_SAMPLE_VERSION_AS: the fixed part is followed by the sample's
 * address space (SKYPROF_REC_ASPACE), before the arrays; 0 for none (a
 * kernel thread, or no slot was free: SKYPROF_STAT_SB_FULL).
 */
struct skyprof_sample_as {
	__u64 as_id;
};

/*
 * Side-band records (SKYPROF_F_SIDEBAND), perf's MMAP2 for the address
 * spaces the session sampled. An address space (a process between two
 * execs: a new exec is a new one) gets an id, unique in the session and
 * never reused, at its first sample; the samples carry it (as_id). In
 * process context soon after, the module walks it and writes, in one go
 * into one CPU's ring, a SKYPROF_REC_MMAP per executable file mapping
 * and one for the vDSO (at most SKYPROF_SIDEBAND_MAPS_MAX in all), then
 * one SKYPROF_REC_ASPACE that closes the report: a report's nr_maps MMAP
 * records are the ones right before its ASPACE in the same ring, with the
 * same time_ns. A later sample that finds the address space's
 * mappings changed (map count or layout) makes it report again: the
 * mappings of every report add to those before, a range mapped anew
 * replacing what it overlaps. A report whose records did not all fit in
 * the ring is not closed (no ASPACE): it is tried again a little later,
 * a few times, and counted in SKYPROF_STAT_SB_LOST.
 * Side-band records of an address space come after its first samples in
 * time (and may come in another CPU's ring): a reader holds a sample whose
 * address space it does not know yet until the ASPACE record comes.
 */
#define SKYPROF_MMAP_VERSION	1
#define SKYPROF_ASPACE_VERSION	1

/* struct skyprof_mmap.flags */
#define SKYPROF_MMAP_F_EXE	(1U << 0)	/* the file is the address space's executable */
#define SKYPROF_MMAP_F_DELETED	(1U << 1)	/* unlinked ("(deleted)" cut from the path) */
#define SKYPROF_MMAP_F_BUILD_ID	(1U << 2)	/* build_id holds build_id_size bytes */
#define SKYPROF_MMAP_F_PATH_CUT	(1U << 3)	/* the path was too long: path is empty */
/* No file: the kernel's vDSO, path "[vdso]", the identity fields 0. */
#define SKYPROF_MMAP_F_VDSO	(1U << 4)
/*
 * No file: anonymous executable memory (where a JIT keeps its code), path
 * empty, the identity fields 0. Adjacent such mappings come as one record:
 * a JIT that flips its pages between writable and executable splits them.
 */
#define SKYPROF_MMAP_F_ANON	(1U << 5)

#define SKYPROF_BUILD_ID_MAX	20

struct skyprof_mmap {
	struct skyprof_rec_header hdr;	/* type SKYPROF_REC_MMAP */
	__u64 time_ns;		/* when the mappings were read */
	__u64 as_id;
	__u64 start;		/* [start, end) in the process */
	__u64 end;
	__u64 pgoff;		/* file offset of start, bytes */
	/* The file's identity, as stat(2) would give it. */
	__u64 ino;
	__u64 size;		/* i_size */
	__s64 mtime_sec;
	__u32 mtime_nsec;
	__u32 dev_major;	/* of the file's filesystem (st_dev) */
	__u32 dev_minor;
	__u32 generation;	/* i_generation: an inode number reused */
	__u32 tgid;		/* initial pid namespace */
	__u32 prot;		/* PROT_READ/WRITE/EXEC bits of the mapping */
	__u32 flags;		/* SKYPROF_MMAP_F_* */
	__u16 path_len;		/* bytes of path, its NUL included; >= 1 */
	__u8 build_id_size;
	__u8 reserved;		/* 0 */
	__u8 build_id[SKYPROF_BUILD_ID_MAX];
	__u32 reserved2;	/* 0 */
	/*
	 * char path[path_len], NUL terminated, then zeroes to the next 8
	 * bytes. Resolved against the root of the initial mount namespace:
	 * a file outside it (a container's, after pivot_root or in a mount
	 * namespace of its own) is named from the root of its own mount
	 * namespace, as the process sees it; a chroot's file keeps its path
	 * from the initial root.
	 */
};

/* struct skyprof_aspace.flags */
#define SKYPROF_ASPACE_F_FIRST	(1U << 0)	/* the first report of this address space */
#define SKYPROF_ASPACE_F_MAPS_CUT (1U << 1)	/* more executable mappings than reported */
#define SKYPROF_ASPACE_F_EXITED	(1U << 2)	/* the process had exited when it was read */
#define SKYPROF_ASPACE_F_RETRIED (1U << 3)	/* an earlier try did not fit in the ring */

struct skyprof_aspace {
	struct skyprof_rec_header hdr;	/* type SKYPROF_REC_ASPACE */
	__u64 time_ns;		/* when the mappings were read */
	__u64 as_id;
	__u64 first_ns;		/* time of the first sample that noted it */
	__u32 tgid;		/* of the task whose sample noted it */
	__u32 nr_maps;		/* SKYPROF_REC_MMAP records of this report */
	__u32 report;		/* 0 first, then 1, 2, ... */
	__u32 flags;		/* SKYPROF_ASPACE_F_* */
	char comm[16];		/* of that task at its first sample, NUL padded */
};

/* ABI of user registers: perf's PERF_SAMPLE_REGS_ABI_* values. */
#define SKYPROF_REGS_ABI_NONE	0
#define SKYPROF_REGS_ABI_32	1
#define SKYPROF_REGS_ABI_64	2

#define SKYPROF_UREGS_NR	24	/* perf's x86 numbering, PERF_REG_X86_* */

struct skyprof_user_regs {
	__u32 abi;		/* SKYPROF_REGS_ABI_* */
	__u32 reserved;
	__u64 mask;		/* bit i set: regs[i] valid */
	__u64 regs[SKYPROF_UREGS_NR];	/* indexed by PERF_REG_X86_* on x86 */
};

#endif /* _UAPI_LINUX_SKYPROF_H */
