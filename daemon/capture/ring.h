/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring reader: /dev/skyprof bound to one session, every possible CPU's
 * control page and data area mapped, poll() for wakeups, and the drain that
 * walks [data_tail, data_head) through the decoder.
 *
 * The drain works on a struct ring_cpu alone, so tests drive it over an
 * in-memory ring with a simulated producer.
 */
#ifndef SKYPROF_CAPTURE_RING_H
#define SKYPROF_CAPTURE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"
#include "capture/sample.h"

struct skyprof_ring_ctl;

/* What the reader saw; all counters only grow. */
struct ring_stats {
	uint64_t samples; /* handed to the callback */
	uint64_t pads;
	uint64_t skipped[__DECODE_SKIP_MAX]; /* by enum decode_skip_reason */
	uint64_t framing_errors;  /* truncated/bad size/misaligned: rest of batch dropped */
	uint64_t bytes_dropped;	  /* unread bytes given up after a framing error */
	uint64_t head_errors;	  /* head behind tail, too far ahead, or misaligned */
	uint64_t cpu_mismatch;	  /* record's cpu differs from its ring's */
	uint64_t mmaps, aspaces;  /* side-band records handed on */
	uint64_t sideband_unread; /* side-band records with no one to take them */
};

/* One CPU's ring as the reader sees it. */
struct ring_cpu {
	struct skyprof_ring_ctl *ctl; /* shared control page */
	const uint8_t *data;	      /* data area, size bytes, read-only */
	uint64_t size;		      /* power of two, from the session (not the page) */
	uint64_t tail;		      /* our own copy: the page's is never read back */
	uint32_t cpu;
	bool mapped;
};

/*
 * Called for every decoded sample. The sample's pointers point into the ring
 * and are valid until the callback returns. A nonzero return stops the drain
 * after this record (the record counts as consumed) and is passed back.
 */
typedef int (*ring_sample_fn)(void *arg, const struct sp_sample *s);

/*
 * Where a drain hands what it decodes: samples, and the side-band records
 * with the CPU whose ring they came in (capture/hold.h pairs them). The
 * side-band callbacks may be NULL: those records are then counted in
 * sideband_unread and passed over. Returns as for ring_sample_fn.
 */
struct ring_sink {
	ring_sample_fn sample;
	int (*mmap)(void *arg, uint32_t cpu, const struct sp_mmap *m);
	int (*aspace)(void *arg, uint32_t cpu, const struct sp_aspace *a);
	void *arg;
};

/*
 * Consume what the producer has published on one CPU: load data_head
 * (acquire), decode records up to it, publish data_tail (release). Returns
 * the sink's nonzero result or 0.
 */
int ring_cpu_drain(struct ring_cpu *rc, const struct ring_sink *k, struct ring_stats *st);

struct ring;

/*
 * Open /dev/skyprof, bind it to the session, map every possible CPU below
 * nr_cpu_ids. data_size is the session's RING_DATA_SIZE. On error returns
 * -errno with a one-line message in err.
 */
int ring_open(struct ring **out, uint32_t session_id, uint64_t token, uint32_t nr_cpu_ids,
	      uint64_t data_size, char *err, size_t errlen);
void ring_close(struct ring *r);

/* The device fd, for callers that poll() it together with other fds. */
int ring_fd(const struct ring *r);

/* poll() the device; returns >0 when data is ready, 0 on timeout, -errno. */
int ring_wait(struct ring *r, int timeout_ms);

/* Drain every mapped CPU. Same return as ring_cpu_drain. */
int ring_drain(struct ring *r, const struct ring_sink *k);

const struct ring_stats *ring_get_stats(const struct ring *r);

/* Records the kernel reports lost on the CPUs' control pages, summed. */
uint64_t ring_lost(const struct ring *r);
uint32_t ring_nr_mapped(const struct ring *r);

/*
 * Parse a kernel cpu list ("0-3,5,7-8") into a bitmap of nbits bits.
 * Returns 0 or -EINVAL (syntax, or a cpu >= nbits).
 */
int ring_parse_cpulist(const char *s, uint8_t *bitmap, uint32_t nbits);

#endif
