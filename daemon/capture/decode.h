/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring record decoder: the one parser of untrusted bytes in the daemon.
 *
 * The ring is written by the kernel, but a buggy or hostile module, a torn
 * read or a reader bug must never make the daemon read outside the range it
 * was given. decode_record() therefore checks every length against the range
 * before touching it, copies the fixed part out of the shared memory before
 * validating it (the kernel could rewrite it between check and use), and
 * reports precisely what was wrong so the caller can count it.
 */
#ifndef SKYPROF_CAPTURE_DECODE_H
#define SKYPROF_CAPTURE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <skyprof.h>

#include "capture/sample.h"

enum decode_result {
	DECODE_SAMPLE,	   /* out->sample filled; advance by *rec_size */
	DECODE_MMAP,	   /* out->mmap filled (side-band); advance by *rec_size */
	DECODE_ASPACE,	   /* out->aspace filled (side-band); advance by *rec_size */
	DECODE_PAD,	   /* a pad record: skip to the end of the data area */
	DECODE_SKIP,	   /* well framed but not for us (type/version/content):
			    * advance by *rec_size and count it */
	DECODE_TRUNCATED,  /* fewer bytes than a header, or than its size claims */
	DECODE_BAD_SIZE,   /* size < header, not a multiple of 8, or oversized */
	DECODE_MISALIGNED, /* the record does not start on an 8-byte boundary */
};

/* Why a record was skipped (DECODE_SKIP), for the counters. */
enum decode_skip_reason {
	DECODE_SKIP_NONE,
	DECODE_SKIP_TYPE,    /* unknown record type */
	DECODE_SKIP_VERSION, /* known type, unknown version */
	DECODE_SKIP_SHORT,   /* size smaller than the fixed part */
	DECODE_SKIP_COUNTS,  /* nr_kernel/nr_user/ustack (ASPACE: nr_maps) exceed the limits */
	DECODE_SKIP_OVERLAP, /* its arrays (MMAP: its path) run past its own size */
	DECODE_SKIP_SLACK,   /* size larger than its content needs */
	/* Side-band records (SKYPROF_REC_MMAP, SKYPROF_REC_ASPACE) */
	DECODE_SKIP_PATH,     /* MMAP path: empty, not NUL terminated, a NUL inside, or
			       * PATH_CUT with a path */
	DECODE_SKIP_RESERVED, /* a reserved field or the padding after the path not zero */
	DECODE_SKIP_BUILD_ID, /* build_id_size over SKYPROF_BUILD_ID_MAX or not as the flag
			       * says, or bytes after it not zero */
	DECODE_SKIP_AS_ID,    /* as_id 0: side-band records always name one */
	DECODE_SKIP_RANGE,    /* MMAP: end not above start */
	__DECODE_SKIP_MAX,
};

/* What decode_record fills: the member its result names. */
struct sp_record {
	union {
		struct sp_sample sample; /* DECODE_SAMPLE */
		struct sp_mmap mmap;	 /* DECODE_MMAP */
		struct sp_aspace aspace; /* DECODE_ASPACE */
	};
};

/*
 * Largest record the ABI allows: a sample's fixed part and address space,
 * two full stacks, registers and the largest user-stack copy (an MMAP record
 * with the longest path is smaller). Anything claiming more is corrupt.
 * Inline: the decoder tests every record against it.
 */
static inline size_t decode_max_record_size(void)
{
	return sizeof(struct skyprof_sample) + sizeof(struct skyprof_sample_as) +
	       2 * (size_t)SKYPROF_MAX_DEPTH * sizeof(uint64_t) + sizeof(struct skyprof_user_regs) +
	       SKYPROF_USTACK_MAX;
}

/*
 * Decode the record at buf, of which len bytes are readable (and belong to
 * the ring's unread range). On DECODE_SAMPLE, DECODE_MMAP, DECODE_ASPACE,
 * DECODE_PAD and DECODE_SKIP, *rec_size is the record's size (a multiple of
 * 8, 8 <= size <= len); on the other results the framing is lost and
 * *rec_size is 0. *why is set on DECODE_SKIP (DECODE_SKIP_NONE otherwise);
 * it may be NULL.
 *
 * The pointers in *out point into buf.
 */
enum decode_result decode_record(const uint8_t *buf, size_t len, struct sp_record *out,
				 size_t *rec_size, enum decode_skip_reason *why);

const char *decode_result_name(enum decode_result r);
const char *decode_skip_name(enum decode_skip_reason r);

#endif
