// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the ring reader's untrusted-input path.
 *
 * The input's first byte picks the shape:
 *  - even: the rest is a run of records, decoded back to back as a flat
 *    range (decode_record alone, every claimed size checked against it);
 *  - odd: the next 16 bytes are the control page's data_head and the
 *    reader's starting tail, the rest (rounded down to a power of two, at
 *    least 64 bytes) is a data area, drained by ring_cpu_drain: hostile
 *    heads, pads, wraps and overruns. Bit 1 of the first byte sends the
 *    drain through the side-band hold (capture/hold.h), as a session with
 *    SKYPROF_F_SIDEBAND does: then two bytes (the hold's wait in ns, the
 *    ring's CPU) come before the 16; side-band records are paired into
 *    reports, samples held, copied and released (by report, after the
 *    wait, at the end); everything handed on is read.
 * The area is malloc'ed at its exact size, so ASan flags any read past it.
 *
 * Build and run: make fuzz FUZZ_TARGETS=decode (tests/fuzz/build.mk).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <skyprof.h>

#include "capture/decode.h"
#include "capture/hold.h"
#include "capture/ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int consume(void *arg, const struct sp_sample *s)
{
	uint64_t *sum = arg;

	/* Read everything the sample points at: ASan checks it is in bounds. */
	for (unsigned i = 0; i < s->nr_kernel; i++)
		*sum += s->kernel_ips[i];
	for (unsigned i = 0; i < s->nr_user; i++)
		*sum += s->user_ips[i];
	if (s->regs)
		*sum += s->regs->mask;
	for (uint32_t i = 0; i < s->ustack_size; i++)
		*sum += s->ustack[i];
	*sum += strlen(s->comm) + s->as_id;
	return 0;
}

/* A side-band record as decoded: its path read up to its length. */
static void consume_mmap(uint64_t *sum, const struct sp_mmap *m)
{
	if (!m->path_len || m->build_id_size > SKYPROF_BUILD_ID_MAX)
		abort(); /* the decoder let a bad one through */
	for (uint16_t i = 0; i < m->path_len; i++)
		*sum += (uint8_t)m->path[i];
	*sum += m->start ^ m->end ^ m->build_id[m->build_id_size ? m->build_id_size - 1 : 0];
}

static int consume_report(void *arg, const struct sp_report *r)
{
	uint64_t *sum = arg;

	if (r->nr_maps > SKYPROF_SIDEBAND_MAPS_MAX)
		abort();
	for (uint32_t i = 0; i < r->nr_maps; i++) {
		if (r->maps[i].as_id != r->as.as_id)
			abort(); /* paired with another address space's report */
		*sum += strlen(r->maps[i].path);
		consume_mmap(sum, &r->maps[i]);
	}
	*sum += strlen(r->as.comm);
	return 0;
}

static void flat(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	uint64_t sum = 0;
	size_t off = 0;

	if (!buf)
		return;
	memcpy(buf, data, size);
	while (off < size) {
		struct sp_record s;
		size_t rec;
		enum decode_result r = decode_record(buf + off, size - off, &s, &rec, NULL);

		if (r == DECODE_SAMPLE)
			consume(&sum, &s.sample);
		else if (r == DECODE_MMAP)
			consume_mmap(&sum, &s.mmap);
		else if (r == DECODE_ASPACE)
			sum += strlen(s.aspace.comm);
		else if (r != DECODE_PAD && r != DECODE_SKIP)
			break;
		if (rec < 8 || rec > size - off || rec % 8)
			abort(); /* the decoder broke its own contract */
		off += rec;
	}
	free(buf);
}

static void ring(const uint8_t *data, size_t size, bool hold)
{
	struct skyprof_ring_ctl ctl = { 0 };
	struct ring_stats st = { 0 };
	struct ring_cpu rc = { 0 };
	uint64_t head, tail, area = 64, sum = 0;
	struct sp_sink out = { .sample = consume, .report = consume_report, .arg = &sum };
	struct hold_opts ho = { .max_bytes = 64 << 10, .max_pending_bytes = 16 << 10 };
	struct ring_sink k = { .sample = consume, .arg = &sum };
	struct hold *h = NULL;
	uint8_t *buf;

	if (hold) {
		/* a short wait and a small hold: their limits are reached too */
		if (size < 2)
			return;
		ho.wait_ns = 1 + data[0] % 64;
		rc.cpu = data[1] % 4;
		data += 2;
		size -= 2;
	}
	if (size < 16)
		return;
	memcpy(&head, data, 8);
	memcpy(&tail, data + 8, 8);
	data += 16;
	size -= 16;
	while (area * 2 <= size && area < (1u << 20))
		area *= 2;
	buf = calloc(1, area);
	if (!buf)
		return;
	memcpy(buf, data, size < area ? size : area);
	/* Small heads are the interesting ones: keep most of them near the tail. */
	if (!(head >> 63))
		head = tail + (head % (2 * area));
	ctl.data_head = head;
	ctl.data_size = area;
	rc.ctl = &ctl;
	rc.data = buf;
	rc.size = area;
	rc.tail = tail;
	if (hold) {
		h = hold_new(&ho);
		if (!h) {
			free(buf);
			return;
		}
		k = hold_ring_sink(h);
		hold_begin(h, &out, 100);
	}
	ring_cpu_drain(&rc, &k, &st);
	if (rc.tail != head)
		abort(); /* a drain always ends at head: it never stalls */
	if (h) {
		hold_expire(h);
		hold_begin(h, &out, 100 + ho.wait_ns / 2);
	}
	/* A second pass with nothing new must be a no-op. */
	ring_cpu_drain(&rc, &k, &st);
	if (h) {
		hold_expire(h);
		hold_flush(h);
		if (hold_waiting(h))
			abort(); /* the end hands on every waiting sample */
		hold_free(h);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		ring(data + 1, size - 1, data[0] & 2);
	else
		flat(data + 1, size - 1);
	return 0;
}
