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
 *    heads, pads, wraps and overruns.
 * The area is malloc'ed at its exact size, so ASan flags any read past it.
 *
 * Build and run: make fuzz FUZZ_TARGETS=decode (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <skyprof.h>

#include "capture/decode.h"
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
	*sum += strlen(s->comm);
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
		struct sp_sample s;
		size_t rec;
		enum decode_result r = decode_record(buf + off, size - off, &s, &rec, NULL);

		if (r == DECODE_SAMPLE)
			consume(&sum, &s);
		if (r != DECODE_SAMPLE && r != DECODE_PAD && r != DECODE_SKIP)
			break;
		if (rec < 8 || rec > size - off || rec % 8)
			abort(); /* the decoder broke its own contract */
		off += rec;
	}
	free(buf);
}

static void ring(const uint8_t *data, size_t size)
{
	struct skyprof_ring_ctl ctl = { 0 };
	struct ring_stats st = { 0 };
	struct ring_cpu rc = { 0 };
	uint64_t head, tail, area = 64, sum = 0;
	uint8_t *buf;

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
	ring_cpu_drain(&rc, &k, &st);
	if (rc.tail != head)
		abort(); /* a drain always ends at head: it never stalls */
	/* A second pass with nothing new must be a no-op. */
	ring_cpu_drain(&rc, &k, &st);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		ring(data + 1, size - 1);
	else
		flat(data + 1, size - 1);
	return 0;
}
