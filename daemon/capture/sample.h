/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ring reader hands on: decoded samples, the side-band records that
 * describe the address spaces they ran in (skyprof.h, SKYPROF_F_SIDEBAND),
 * and the sink that takes both. Pointers point into the reader's buffer and
 * are valid only during the callback that receives them: whoever keeps a
 * record copies what it needs.
 */
#ifndef SKYPROF_CAPTURE_SAMPLE_H
#define SKYPROF_CAPTURE_SAMPLE_H

#include <stdint.h>
#include <stddef.h>

#include <skyprof.h>

struct sp_sample {
	uint64_t time_ns;
	uint64_t weight; /* 1 on-CPU, blocked ns off-CPU */
	uint64_t cgroup_id;
	uint32_t cpu;
	uint32_t tgid;
	uint32_t tid;
	uint32_t flags; /* SKYPROF_SF_* */
	uint64_t as_id; /* its address space (SKYPROF_SAMPLE_VERSION_AS); 0: none named */
	char comm[17];	/* always NUL terminated */
	uint16_t nr_kernel;
	uint16_t nr_user;
	const uint64_t *kernel_ips; /* innermost first */
	const uint64_t *user_ips;   /* innermost first */
	/* DWARF material, present when flags & SKYPROF_SF_REGS */
	const struct skyprof_user_regs *regs;
	const uint8_t *ustack;
	uint32_t ustack_size;
};

/*
 * One executable file mapping of address space as_id (SKYPROF_REC_MMAP).
 * path has path_len bytes, the last one NUL and no NUL before it, as they
 * were when decoded; it points into the ring, which a hostile producer may
 * rewrite meanwhile, so whoever copies it copies path_len bytes and ends the
 * copy with a NUL of its own.
 */
struct sp_mmap {
	uint64_t time_ns, as_id;
	uint64_t start, end, pgoff; /* [start, end) maps the file from pgoff on */
	/* The file's identity, as stat(2) of it gave it to the module. */
	uint64_t ino, size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint32_t dev_major, dev_minor;
	uint32_t generation;
	uint32_t tgid;
	uint32_t prot;	       /* PROT_* */
	uint32_t flags;	       /* SKYPROF_MMAP_F_* */
	uint8_t build_id_size; /* 0: none (SKYPROF_MMAP_F_BUILD_ID unset) */
	uint8_t build_id[SKYPROF_BUILD_ID_MAX];
	uint16_t path_len; /* with the NUL; 1: no path (SKYPROF_MMAP_F_PATH_CUT) */
	const char *path;
};

/* The record that closes one report of an address space (SKYPROF_REC_ASPACE). */
struct sp_aspace {
	uint64_t time_ns, as_id;
	uint64_t first_ns; /* its first sample */
	uint32_t tgid;
	uint32_t nr_maps; /* MMAP records of this report */
	uint32_t report;  /* 0 first, then 1, 2, ... */
	uint32_t flags;	  /* SKYPROF_ASPACE_F_* */
	char comm[17];	  /* always NUL terminated */
};

/*
 * One whole report of an address space, as the side-band hold hands it on
 * (capture/hold.h): the ASPACE record and the MMAP records it closed, with
 * their paths copied and NUL terminated.
 */
struct sp_report {
	struct sp_aspace as;
	const struct sp_mmap *maps;
	uint32_t nr_maps;
};

/*
 * Where the capture hands what it read: every sample, in ring order except
 * that a sample waits for the first report of its address space; and each
 * report, before the samples that waited for it. A nonzero return stops the
 * drain and is passed back. report may be NULL (reports are dropped).
 */
struct sp_sink {
	int (*sample)(void *arg, const struct sp_sample *s);
	int (*report)(void *arg, const struct sp_report *r);
	void *arg;
};

#endif
