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
 * kernel and 0x400000+i for user frames. Returns its size.
 */
static inline size_t rec_put_sample(uint8_t *buf, uint32_t cpu, uint32_t tgid, unsigned nk,
				    unsigned nu, int regs, unsigned ustack)
{
	struct skyprof_sample s;
	size_t size = rec_sample_size(nk, nu, regs, ustack), off = sizeof(s);

	memset(buf, 0, size);
	memset(&s, 0, sizeof(s));
	s.hdr.size = (uint32_t)size;
	s.hdr.type = SKYPROF_REC_SAMPLE;
	s.hdr.version = SKYPROF_SAMPLE_VERSION;
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

#endif
