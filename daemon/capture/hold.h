/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side-band hold: the stage between the ring drain and whoever ingests
 * the samples, in a session with SKYPROF_F_SIDEBAND.
 *
 * The module describes an address space (its executable file mappings) in
 * process context a few milliseconds after the sample that first named it,
 * possibly into another CPU's ring (skyprof.h, SKYPROF_REC_ASPACE). A
 * sample whose address space has no report yet therefore waits here, copied,
 * until the report comes, so that everything after this stage (the process
 * table, the DWARF unwinder at ingest) sees the mappings before the samples
 * that need them. A sample goes on without its report, to the /proc
 * fallback, when the wait is over (wait_ns after it came), when the hold's
 * memory is full (the oldest address space's samples first) or at the end
 * of the capture; each way is counted.
 *
 * MMAP records wait for the ASPACE record that closes their report, per
 * ring and address space: the module writes one report into one ring in
 * one go, so the report is the last nr_maps MMAP records of that address
 * space before its ASPACE in that ring (earlier ones are from a try that
 * did not fit and was not closed: counted and dropped).
 */
#ifndef SKYPROF_CAPTURE_HOLD_H
#define SKYPROF_CAPTURE_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/ring.h"
#include "capture/sample.h"

/* Longest a sample waits for its address space's report. */
#define HOLD_WAIT_NS_DEFAULT 500000000ull
/* Memory for the copies of waiting samples, and for waiting MMAP records. */
#define HOLD_BYTES_DEFAULT	   (16u << 20)
#define HOLD_PENDING_BYTES_DEFAULT (4u << 20)

struct hold_opts {
	uint64_t wait_ns;	  /* 0: HOLD_WAIT_NS_DEFAULT */
	size_t max_bytes;	  /* 0: HOLD_BYTES_DEFAULT */
	size_t max_pending_bytes; /* 0: HOLD_PENDING_BYTES_DEFAULT */
};

/* What the hold saw; all counters only grow. */
struct hold_stats {
	uint64_t reports;	/* reports handed on */
	uint64_t first_reports; /* of them the first of an address space */
	uint64_t mappings;	/* MMAP records in them */
	uint64_t maps_cut;	/* reports of address spaces with more mappings than sent */
	uint64_t held;		/* samples that waited for a report */
	uint64_t by_report;	/* ... and went on after it */
	uint64_t by_timeout;	/* ... and went on without it after the wait */
	uint64_t when_full;	/* ... and went on without it, the hold full */
	uint64_t at_end;	/* ... and went on without it at the end of the capture */
	uint64_t no_memory;	/* samples that went on at once: no memory to copy them */
	uint64_t late_reports;	/* first reports after their samples went on without */
	uint64_t short_reports; /* reports with fewer MMAP records than they announced */
	uint64_t orphans;	/* MMAP records no report closed, dropped */
	uint64_t pending_full;	/* MMAP records dropped: too many waiting */
	uint64_t forgotten;	/* address spaces forgotten (the table of them was full) */
	uint64_t peak_bytes;	/* most memory the waiting samples took at once */
	uint64_t wait_max_ns;	/* longest wait that a report ended */
};

struct hold;

/* NULL on -ENOMEM; opts may be NULL for the defaults. */
struct hold *hold_new(const struct hold_opts *opts);
/* Frees what still waits, without handing it on (see hold_flush). */
void hold_free(struct hold *h);

/*
 * Before each drain: where the hold hands samples and reports on, and the
 * time (CLOCK_MONOTONIC ns) that the records of this drain came at.
 */
void hold_begin(struct hold *h, const struct sp_sink *out, uint64_t now_ns);

/* The ring sink that feeds h (ring.h): valid while h lives. */
struct ring_sink hold_ring_sink(struct hold *h);

/*
 * After a drain: the samples whose wait is over go on (all of their address
 * space's at once: a report that late will not come in time), and MMAP
 * records that waited twice as long for their ASPACE are dropped. Returns
 * the sink's nonzero result or 0.
 */
int hold_expire(struct hold *h);

/* End of the capture: every waiting sample goes on, oldest first. */
int hold_flush(struct hold *h);

/* Whether any sample waits, and until when the first one does (0: none). */
bool hold_waiting(const struct hold *h);
uint64_t hold_deadline(const struct hold *h);

const struct hold_stats *hold_get_stats(const struct hold *h);

/*
 * A copy of r that outlives the callback (the agent hands reports to its
 * flush worker): one allocation, NULL on -ENOMEM. Free with free().
 */
struct sp_report *hold_report_dup(const struct sp_report *r);

#endif
