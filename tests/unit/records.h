/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builders for ring records, shared by the decoder and ring tests: they
 * write records the way the module's producer does (skyprof.h layout), so
 * that tests can then break exactly one thing about them.
 */
#ifndef SKYPROF_TEST_RECORDS_H
#define SKYPROF_TEST_RECORDS_H

#include <stdint.h>
#include <string.h>

#include <skyprof.h>

/* Bytes a well-formed sample with these contents takes. */
static inline size_t rec_sample_size(unsigned nk, unsigned nu, int regs, unsigned ustack)
{
	return sizeof(struct skyprof_sample) + 8u * (nk + nu) +
	       (regs ? sizeof(struct skyprof_user_regs) : 0) + ((ustack + 7u) & ~7u);
}

/*
 * Write a sample at buf (which must have room for it); ips are 0x1000+i for
 * kernel and 0x400000+i for user frames. as_id nonzero: a version-2 sample
 * naming that address space (SKYPROF_SAMPLE_VERSION_AS), 8 bytes longer.
 * Returns its size.
 */
static inline size_t rec_put_sample_as(uint8_t *buf, uint32_t cpu, uint32_t tgid, uint64_t as_id,
				       unsigned nk, unsigned nu, int regs, unsigned ustack)
{
	struct skyprof_sample s;
	size_t size = rec_sample_size(nk, nu, regs, ustack) + (as_id ? 8 : 0), off = sizeof(s);

	memset(buf, 0, size);
	memset(&s, 0, sizeof(s));
	s.hdr.size = (uint32_t)size;
	s.hdr.type = SKYPROF_REC_SAMPLE;
	s.hdr.version = as_id ? SKYPROF_SAMPLE_VERSION_AS : SKYPROF_SAMPLE_VERSION;
	s.time_ns = 1000 + tgid;
	s.weight = 1;
	s.cgroup_id = 7;
	s.cpu = cpu;
	s.tgid = tgid;
	s.tid = tgid + 1;
	s.flags = regs ? SKYPROF_SF_REGS : 0;
	s.nr_kernel = (uint16_t)nk;
	s.nr_user = (uint16_t)nu;
	s.ustack_size = ustack;
	memcpy(s.comm, "workload", 8);
	memcpy(buf, &s, sizeof(s));
	if (as_id) {
		memcpy(buf + off, &as_id, 8);
		off += 8;
	}
	for (unsigned i = 0; i < nk; i++, off += 8) {
		uint64_t ip = 0x1000 + i;

		memcpy(buf + off, &ip, 8);
	}
	for (unsigned i = 0; i < nu; i++, off += 8) {
		uint64_t ip = 0x400000 + i;

		memcpy(buf + off, &ip, 8);
	}
	if (regs) {
		struct skyprof_user_regs r;

		memset(&r, 0, sizeof(r));
		r.abi = SKYPROF_REGS_ABI_64;
		r.mask = 0xff;
		memcpy(buf + off, &r, sizeof(r));
		off += sizeof(r);
	}
	for (unsigned i = 0; i < ustack; i++)
		buf[off + i] = (uint8_t)(i + 1);
	return size;
}

static inline size_t rec_put_sample(uint8_t *buf, uint32_t cpu, uint32_t tgid, unsigned nk,
				    unsigned nu, int regs, unsigned ustack)
{
	return rec_put_sample_as(buf, cpu, tgid, 0, nk, nu, regs, ustack);
}

/* Bytes an MMAP record with a path of path_len bytes (its NUL included) takes. */
static inline size_t rec_mmap_size(size_t path_len)
{
	return (sizeof(struct skyprof_mmap) + path_len + 7) & ~(size_t)7;
}

/*
 * Write an MMAP record of address space as_id (tgid) at buf: [start, end)
 * mapping path from pgoff, with the identity in id (NULL: zeroes). Returns
 * its size.
 */
static inline size_t rec_put_mmap(uint8_t *buf, uint64_t as_id, uint32_t tgid, uint64_t start,
				  uint64_t end, uint64_t pgoff, const char *path, uint32_t flags,
				  const struct skyprof_mmap *id)
{
	struct skyprof_mmap m;
	size_t len = strlen(path) + 1, size = rec_mmap_size(len);

	memset(buf, 0, size);
	if (id)
		m = *id;
	else
		memset(&m, 0, sizeof(m));
	m.hdr.size = (uint32_t)size;
	m.hdr.type = SKYPROF_REC_MMAP;
	m.hdr.version = SKYPROF_MMAP_VERSION;
	m.time_ns = 5000;
	m.as_id = as_id;
	m.tgid = tgid;
	m.start = start;
	m.end = end;
	m.pgoff = pgoff;
	m.prot = 5; /* PROT_READ | PROT_EXEC */
	m.flags |= flags;
	m.path_len = (uint16_t)len;
	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), path, len);
	return size;
}

/* Write the ASPACE record closing a report of nr_maps mappings. */
static inline size_t rec_put_aspace(uint8_t *buf, uint64_t as_id, uint32_t tgid, uint32_t nr_maps,
				    uint32_t report, uint32_t flags)
{
	struct skyprof_aspace a;

	memset(&a, 0, sizeof(a));
	a.hdr.size = sizeof(a);
	a.hdr.type = SKYPROF_REC_ASPACE;
	a.hdr.version = SKYPROF_ASPACE_VERSION;
	a.time_ns = 5000;
	a.as_id = as_id;
	a.first_ns = 1000 + tgid;
	a.tgid = tgid;
	a.nr_maps = nr_maps;
	a.report = report;
	a.flags = flags | (report ? 0 : SKYPROF_ASPACE_F_FIRST);
	memcpy(a.comm, "workload", 8);
	memcpy(buf, &a, sizeof(a));
	return sizeof(a);
}

static inline size_t rec_put_pad(uint8_t *buf, uint32_t size)
{
	struct skyprof_rec_header h = { .size = size, .type = SKYPROF_REC_PAD, .version = 0 };

	memset(buf, 0, size);
	memcpy(buf, &h, sizeof(h));
	return size;
}

/* Overwrite one field of the header / fixed part at buf. */
static inline void rec_set_u32(uint8_t *buf, size_t off, uint32_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static inline void rec_set_u16(uint8_t *buf, size_t off, uint16_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

static inline void rec_set_u64(uint8_t *buf, size_t off, uint64_t v)
{
	memcpy(buf + off, &v, sizeof(v));
}

#endif
