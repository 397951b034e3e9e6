// SPDX-License-Identifier: GPL-2.0
/*
 * Ring record decoder. See decode.h for the trust model; the rules in short:
 *  - nothing beyond buf + len is ever read, whatever the record claims;
 *  - the header and the fixed part are copied out before they are checked,
 *    so a concurrent rewrite of the shared page cannot slip past a check;
 *  - a record whose framing is sound but whose content is not (unknown
 *    version, counts that do not add up to its size) is skipped by its size,
 *    so one bad record costs one sample; a record whose framing is unsound
 *    (size not a multiple of 8, beyond the range) ends the batch, because
 *    nothing after it can be located.
 */
#include <stdbool.h>
#include <string.h>

#include <skyprof.h>

#include "capture/decode.h"

#define ALIGN8(x) (((x) + 7u) & ~(uint64_t)7u)

static enum decode_result skip(enum decode_skip_reason reason, size_t size, size_t *rec_size,
			       enum decode_skip_reason *why)
{
	*rec_size = size;
	if (why)
		*why = reason;
	return DECODE_SKIP;
}

/*
 * comm is NUL padded by contract; do not rely on it: dst gets the bytes up
 * to the first NUL (at most 16) and zeroes after them, so it is always
 * terminated and two samples of one name compare equal byte for byte.
 * Word at a time on little-endian hosts, without library calls: this runs
 * for every record, on the daemon's per-sample hot path, where a memcpy,
 * two strlen and a memset per record would be a large share of the work.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* w with every byte from its first zero byte on cleared; *nul: there was one. */
static uint64_t keep_before_nul(uint64_t w, bool *nul)
{
	/* The lowest flagged byte is the first zero byte (borrows only
	 * travel upward, so later flags may be false, never earlier ones). */
	uint64_t z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;

	*nul = z != 0;
	return z ? w & (((z & -z) >> 7) - 1) : w;
}

static void copy_comm(char dst[17], const char src[16])
{
	uint64_t w[2];
	bool nul;

	memcpy(w, src, sizeof(w));
	w[0] = keep_before_nul(w[0], &nul);
	w[1] = nul ? 0 : keep_before_nul(w[1], &nul);
	memcpy(dst, w, sizeof(w));
	dst[16] = '\0';
}
#else
static void copy_comm(char dst[17], const char src[16])
{
	size_t i = 0;

	for (; i < 16 && src[i]; i++)
		dst[i] = src[i];
	for (; i < 17; i++)
		dst[i] = '\0';
}
#endif

/* A version-2 sample (SKYPROF_SAMPLE_VERSION_AS) names its address space
 * between the fixed part and the arrays. */
static enum decode_result decode_sample(const uint8_t *buf, size_t size, bool with_as,
					struct sp_sample *out, size_t *rec_size,
					enum decode_skip_reason *why)
{
	struct skyprof_sample fixed;
	size_t head = sizeof(fixed) + (with_as ? sizeof(struct skyprof_sample_as) : 0);
	uint64_t need;
	size_t off;

	if (size < head)
		return skip(DECODE_SKIP_SHORT, size, rec_size, why);
	memcpy(&fixed, buf, sizeof(fixed));

	if (fixed.nr_kernel > SKYPROF_MAX_DEPTH || fixed.nr_user > SKYPROF_MAX_DEPTH ||
	    fixed.ustack_size > SKYPROF_USTACK_MAX)
		return skip(DECODE_SKIP_COUNTS, size, rec_size, why);

	/* All terms are small (bounded above), so this cannot overflow. */
	need = head + (uint64_t)(fixed.nr_kernel + fixed.nr_user) * sizeof(uint64_t);
	if (fixed.flags & SKYPROF_SF_REGS)
		need += sizeof(struct skyprof_user_regs);
	need += ALIGN8((uint64_t)fixed.ustack_size);
	if (need > size)
		return skip(DECODE_SKIP_OVERLAP, size, rec_size, why);
	if (need < size)
		return skip(DECODE_SKIP_SLACK, size, rec_size, why);

	/* Every field is set below: no memset of the whole struct (this runs
	 * for every record; see copy_comm). */
	out->time_ns = fixed.time_ns;
	out->weight = fixed.weight;
	out->cgroup_id = fixed.cgroup_id;
	out->cpu = fixed.cpu;
	out->tgid = fixed.tgid;
	out->tid = fixed.tid;
	out->flags = fixed.flags;
	out->as_id = 0;
	if (with_as)
		memcpy(&out->as_id, buf + sizeof(fixed), sizeof(out->as_id));
	copy_comm(out->comm, fixed.comm);
	out->nr_kernel = fixed.nr_kernel;
	out->nr_user = fixed.nr_user;
	out->regs = NULL;
	out->ustack = NULL;
	out->ustack_size = 0;
	/* buf is 8-aligned (checked by the caller) and so is every offset. */
	off = head;
	out->kernel_ips = fixed.nr_kernel ? (const uint64_t *)(const void *)(buf + off) : NULL;
	off += (size_t)fixed.nr_kernel * sizeof(uint64_t);
	out->user_ips = fixed.nr_user ? (const uint64_t *)(const void *)(buf + off) : NULL;
	off += (size_t)fixed.nr_user * sizeof(uint64_t);
	if (fixed.flags & SKYPROF_SF_REGS) {
		out->regs = (const struct skyprof_user_regs *)(const void *)(buf + off);
		off += sizeof(struct skyprof_user_regs);
	}
	if (fixed.ustack_size) {
		out->ustack = buf + off;
		out->ustack_size = fixed.ustack_size;
	}

	*rec_size = size;
	if (why)
		*why = DECODE_SKIP_NONE;
	return DECODE_SAMPLE;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * An MMAP record: the fixed part, then path_len bytes of path (its NUL the
 * last of them, no NUL before), then zeroes to the record's end, which is
 * the next multiple of 8. The path is checked in the ring and handed on by
 * pointer: a later rewrite can only change bytes that whoever copies it
 * terminates again (sample.h).
 */
static enum decode_result decode_mmap(const uint8_t *buf, size_t size, struct sp_mmap *out,
				      size_t *rec_size, enum decode_skip_reason *why)
{
	struct skyprof_mmap fixed;
	const uint8_t *path = buf + sizeof(fixed);
	uint64_t need;

	if (size < sizeof(fixed))
		return skip(DECODE_SKIP_SHORT, size, rec_size, why);
	memcpy(&fixed, buf, sizeof(fixed));
	if (fixed.reserved || fixed.reserved2)
		return skip(DECODE_SKIP_RESERVED, size, rec_size, why);
	if (!fixed.as_id)
		return skip(DECODE_SKIP_AS_ID, size, rec_size, why);
	if (fixed.end <= fixed.start)
		return skip(DECODE_SKIP_RANGE, size, rec_size, why);
	if (fixed.build_id_size > SKYPROF_BUILD_ID_MAX ||
	    !(fixed.flags & SKYPROF_MMAP_F_BUILD_ID) != !fixed.build_id_size ||
	    !all_zero(fixed.build_id + fixed.build_id_size,
		      SKYPROF_BUILD_ID_MAX - fixed.build_id_size))
		return skip(DECODE_SKIP_BUILD_ID, size, rec_size, why);
	if (!fixed.path_len)
		return skip(DECODE_SKIP_PATH, size, rec_size, why);
	need = ALIGN8(sizeof(fixed) + (uint64_t)fixed.path_len);
	if (need > size)
		return skip(DECODE_SKIP_OVERLAP, size, rec_size, why);
	if (need < size)
		return skip(DECODE_SKIP_SLACK, size, rec_size, why);
	if (path[fixed.path_len - 1] || memchr(path, '\0', fixed.path_len - 1u) ||
	    ((fixed.flags & SKYPROF_MMAP_F_PATH_CUT) && fixed.path_len != 1))
		return skip(DECODE_SKIP_PATH, size, rec_size, why);
	if (!all_zero(path + fixed.path_len, size - sizeof(fixed) - fixed.path_len))
		return skip(DECODE_SKIP_RESERVED, size, rec_size, why);

	out->time_ns = fixed.time_ns;
	out->as_id = fixed.as_id;
	out->start = fixed.start;
	out->end = fixed.end;
	out->pgoff = fixed.pgoff;
	out->ino = fixed.ino;
	out->size = fixed.size;
	out->mtime_sec = fixed.mtime_sec;
	out->mtime_nsec = fixed.mtime_nsec;
	out->dev_major = fixed.dev_major;
	out->dev_minor = fixed.dev_minor;
	out->generation = fixed.generation;
	out->tgid = fixed.tgid;
	out->prot = fixed.prot;
	out->flags = fixed.flags;
	out->build_id_size = fixed.build_id_size;
	memcpy(out->build_id, fixed.build_id, sizeof(out->build_id));
	out->path_len = fixed.path_len;
	out->path = (const char *)path;
	*rec_size = size;
	if (why)
		*why = DECODE_SKIP_NONE;
	return DECODE_MMAP;
}

static enum decode_result decode_aspace(const uint8_t *buf, size_t size, struct sp_aspace *out,
					size_t *rec_size, enum decode_skip_reason *why)
{
	struct skyprof_aspace fixed;

	if (size < sizeof(fixed))
		return skip(DECODE_SKIP_SHORT, size, rec_size, why);
	if (size > sizeof(fixed))
		return skip(DECODE_SKIP_SLACK, size, rec_size, why);
	memcpy(&fixed, buf, sizeof(fixed));
	if (!fixed.as_id)
		return skip(DECODE_SKIP_AS_ID, size, rec_size, why);
	if (fixed.nr_maps > SKYPROF_SIDEBAND_MAPS_MAX)
		return skip(DECODE_SKIP_COUNTS, size, rec_size, why);

	out->time_ns = fixed.time_ns;
	out->as_id = fixed.as_id;
	out->first_ns = fixed.first_ns;
	out->tgid = fixed.tgid;
	out->nr_maps = fixed.nr_maps;
	out->report = fixed.report;
	out->flags = fixed.flags;
	copy_comm(out->comm, fixed.comm);
	*rec_size = size;
	if (why)
		*why = DECODE_SKIP_NONE;
	return DECODE_ASPACE;
}

enum decode_result decode_record(const uint8_t *buf, size_t len, struct sp_record *out,
				 size_t *rec_size, enum decode_skip_reason *why)
{
	struct skyprof_rec_header hdr;

	*rec_size = 0;
	if (why)
		*why = DECODE_SKIP_NONE;

	if ((uintptr_t)buf & (SKYPROF_REC_ALIGN - 1))
		return DECODE_MISALIGNED;
	if (len < sizeof(hdr))
		return DECODE_TRUNCATED;
	memcpy(&hdr, buf, sizeof(hdr));

	if (hdr.size < sizeof(hdr) || hdr.size & (SKYPROF_REC_ALIGN - 1))
		return DECODE_BAD_SIZE;
	/* A pad may legitimately span most of the area; anything else is bounded. */
	if (hdr.type != SKYPROF_REC_PAD && hdr.size > decode_max_record_size())
		return DECODE_BAD_SIZE;
	if (hdr.size > len)
		return DECODE_TRUNCATED;

	switch (hdr.type) {
	case SKYPROF_REC_PAD:
		*rec_size = hdr.size;
		return DECODE_PAD;
	case SKYPROF_REC_SAMPLE:
		if (hdr.version != SKYPROF_SAMPLE_VERSION &&
		    hdr.version != SKYPROF_SAMPLE_VERSION_AS)
			return skip(DECODE_SKIP_VERSION, hdr.size, rec_size, why);
		return decode_sample(buf, hdr.size, hdr.version == SKYPROF_SAMPLE_VERSION_AS,
				     &out->sample, rec_size, why);
	case SKYPROF_REC_MMAP:
		if (hdr.version != SKYPROF_MMAP_VERSION)
			return skip(DECODE_SKIP_VERSION, hdr.size, rec_size, why);
		return decode_mmap(buf, hdr.size, &out->mmap, rec_size, why);
	case SKYPROF_REC_ASPACE:
		if (hdr.version != SKYPROF_ASPACE_VERSION)
			return skip(DECODE_SKIP_VERSION, hdr.size, rec_size, why);
		return decode_aspace(buf, hdr.size, &out->aspace, rec_size, why);
	default:
		return skip(DECODE_SKIP_TYPE, hdr.size, rec_size, why);
	}
}

const char *decode_result_name(enum decode_result r)
{
	switch (r) {
	case DECODE_SAMPLE:
		return "sample";
	case DECODE_MMAP:
		return "mmap";
	case DECODE_ASPACE:
		return "aspace";
	case DECODE_PAD:
		return "pad";
	case DECODE_SKIP:
		return "skipped";
	case DECODE_TRUNCATED:
		return "truncated";
	case DECODE_BAD_SIZE:
		return "bad size";
	case DECODE_MISALIGNED:
		return "misaligned";
	}
	return "?";
}

const char *decode_skip_name(enum decode_skip_reason r)
{
	switch (r) {
	case DECODE_SKIP_NONE:
		return "none";
	case DECODE_SKIP_TYPE:
		return "unknown type";
	case DECODE_SKIP_VERSION:
		return "unknown version";
	case DECODE_SKIP_SHORT:
		return "shorter than its fixed part";
	case DECODE_SKIP_COUNTS:
		return "counts over the limits";
	case DECODE_SKIP_OVERLAP:
		return "arrays overrun the record";
	case DECODE_SKIP_SLACK:
		return "size exceeds content";
	case DECODE_SKIP_PATH:
		return "bad mapping path";
	case DECODE_SKIP_RESERVED:
		return "reserved bytes not zero";
	case DECODE_SKIP_BUILD_ID:
		return "bad build-id size";
	case DECODE_SKIP_AS_ID:
		return "no address space id";
	case DECODE_SKIP_RANGE:
		return "empty mapping range";
	case __DECODE_SKIP_MAX:
		break;
	}
	return "?";
}
