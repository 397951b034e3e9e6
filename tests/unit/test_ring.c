// SPDX-License-Identifier: GPL-2.0
/*
 * The ring drain over an in-memory ring: a producer simulated here writes
 * records the way the module does (pad at the end of the area, then start at
 * 0, head published after the data), and the tests check what the reader
 * hands on, where it leaves data_tail, and that a hostile head or a corrupt
 * record never makes it read outside the area or loop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records.h"
#include "capture/ring.h"

#define AREA 4096u

struct sim {
	struct skyprof_ring_ctl ctl;
	uint8_t *data; /* AREA bytes, malloc'ed: ASan sees overruns */
	struct ring_cpu rc;
	struct ring_stats st;
	uint64_t head; /* producer's private head */
};

struct seen {
	uint32_t tgids[1024];
	size_t n;
	int stop_after; /* return nonzero after this many, 0: never */
};

static int collect(void *arg, const struct sp_sample *s)
{
	struct seen *seen = arg;

	if (seen->n < 1024)
		seen->tgids[seen->n] = s->tgid;
	seen->n++;
	/* Touch everything the sample points at. */
	for (unsigned i = 0; i < s->nr_kernel; i++)
		assert_int_equal(s->kernel_ips[i], 0x1000 + i);
	for (unsigned i = 0; i < s->nr_user; i++)
		assert_int_equal(s->user_ips[i], 0x400000 + i);
	return seen->stop_after && (int)seen->n >= seen->stop_after;
}

static int drain(struct sim *sim, struct seen *seen)
{
	struct ring_sink k = { .sample = collect, .arg = seen };

	return ring_cpu_drain(&sim->rc, &k, &sim->st);
}

static int setup(void **state)
{
	struct sim *sim = calloc(1, sizeof(*sim));

	assert_non_null(sim);
	sim->data = calloc(1, AREA);
	assert_non_null(sim->data);
	sim->ctl.version = SKYPROF_ABI_VERSION;
	sim->ctl.ctl_size = sizeof(sim->ctl);
	sim->ctl.data_size = AREA;
	sim->rc.ctl = &sim->ctl;
	sim->rc.data = sim->data;
	sim->rc.size = AREA;
	sim->rc.cpu = 3;
	sim->rc.mapped = true;
	*state = sim;
	return 0;
}

static int teardown(void **state)
{
	struct sim *sim = *state;

	free(sim->data);
	free(sim);
	return 0;
}

/* The producer: room check against the reader's tail, pad + wrap, publish. */
static int produce(struct sim *sim, uint32_t tgid, unsigned nk, unsigned nu)
{
	size_t size = rec_sample_size(nk, nu, 0, 0);
	uint64_t tail = sim->ctl.data_tail, off = sim->head & (AREA - 1);
	uint64_t need = size;

	if (AREA - off < size)
		need += AREA - off;
	if (sim->head + need - tail > AREA)
		return -1; /* full: the module would count a drop */
	if (AREA - off < size) {
		rec_put_pad(sim->data + off, (uint32_t)(AREA - off));
		sim->head += AREA - off;
		off = 0;
	}
	rec_put_sample(sim->data + off, 3, tgid, nk, nu, 0, 0);
	sim->head += size;
	return 0;
}

static void publish(struct sim *sim)
{
	__atomic_store_n(&sim->ctl.data_head, sim->head, __ATOMIC_RELEASE);
}

static void empty_ring(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 0);
	assert_int_equal(sim->ctl.data_tail, 0);
}

static void drains_in_order(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(produce(sim, 100 + i, i % 4, i % 7), 0);
	publish(sim);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 10);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(seen.tgids[i], 100 + i);
	assert_int_equal(sim->ctl.data_tail, sim->head);
	assert_int_equal(sim->st.samples, 10);
	assert_int_equal(sim->st.framing_errors, 0);
}

/* Unpublished records are not read, even when they are already in memory. */
static void stops_at_head(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	produce(sim, 1, 2, 2);
	publish(sim);
	produce(sim, 2, 2, 2);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 1);
	publish(sim);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.tgids[1], 2);
}

/* Many laps around the area with pads at every wrap, reader keeping up. */
static void wraps_with_pads(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };
	uint32_t produced = 0;

	for (int round = 0; round < 200; round++) {
		for (int k = 0; k < 5; k++)
			if (produce(sim, produced + 1, (unsigned)(round % 9), (unsigned)(k * 3)) ==
			    0)
				produced++;
		publish(sim);
		assert_int_equal(drain(sim, &seen), 0);
	}
	assert_true(sim->head > 20 * AREA);
	assert_int_equal(seen.n, produced);
	assert_true(sim->st.pads > 0);
	assert_int_equal(sim->st.framing_errors, 0);
	assert_int_equal(sim->st.head_errors, 0);
	for (uint32_t i = 0; i < 1024 && i < produced; i++)
		assert_int_equal(seen.tgids[i], i + 1);
	assert_int_equal(sim->ctl.data_tail, sim->head);
}

/* A full ring: producer refuses, reader drains everything, no overlap. */
static void full_ring(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };
	uint32_t produced = 0;

	while (produce(sim, produced + 1, 10, 10) == 0)
		produced++;
	publish(sim);
	assert_true(sim->head - sim->ctl.data_tail <= AREA);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, produced);
	assert_int_equal(produce(sim, 999, 10, 10), 0);
}

static void callback_stops_drain(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { .stop_after = 2 };

	for (uint32_t i = 0; i < 5; i++)
		produce(sim, i, 1, 1);
	publish(sim);
	assert_int_equal(drain(sim, &seen), 1);
	assert_int_equal(seen.n, 2);
	/* The tail covers exactly the two consumed records. */
	assert_int_equal(sim->ctl.data_tail, 2 * rec_sample_size(1, 1, 0, 0));
	seen.stop_after = 0;
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 5);
}

/* Heads a hostile or broken producer might publish. */
static void hostile_head(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	produce(sim, 1, 1, 1);
	publish(sim);
	drain(sim, &seen);
	assert_int_equal(seen.n, 1);

	/* More than one area ahead: unread data would have been overwritten. */
	__atomic_store_n(&sim->ctl.data_head, sim->rc.tail + AREA + 8, __ATOMIC_RELEASE);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(sim->st.head_errors, 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(sim->ctl.data_tail, sim->rc.tail);

	/* Behind the tail (a reset producer): as unsigned, hugely ahead. */
	__atomic_store_n(&sim->ctl.data_head, sim->rc.tail - 64, __ATOMIC_RELEASE);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(sim->st.head_errors, 2);

	/* Misaligned. */
	__atomic_store_n(&sim->ctl.data_head, sim->rc.tail + 12, __ATOMIC_RELEASE);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(sim->st.head_errors, 3);
	assert_int_equal(seen.n, 1);

	/* Garbage in the area with a plausible head: framing error, no read past it. */
	__atomic_store_n(&sim->ctl.data_head, 0, __ATOMIC_RELEASE);
	sim->rc.tail = 0;
	memset(sim->data, 0xff, AREA);
	__atomic_store_n(&sim->ctl.data_head, AREA, __ATOMIC_RELEASE);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(sim->st.framing_errors, 1);
	assert_int_equal(sim->ctl.data_tail, AREA);
}

/* A hostile data_tail in the control page does not steer the reader. */
static void hostile_tail_in_page(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	produce(sim, 1, 1, 1);
	produce(sim, 2, 1, 1);
	publish(sim);
	sim->ctl.data_tail = 0xdeadbeefcafe; /* someone scribbled on the page */
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(sim->ctl.data_tail, sim->head);
}

/* A record whose size reaches past head (into unpublished space). */
static void record_overruns_head(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };
	size_t n = rec_sample_size(2, 2, 0, 0);

	produce(sim, 1, 2, 2);
	produce(sim, 2, 2, 2);
	rec_set_u32(sim->data + n, offsetof(struct skyprof_sample, hdr.size), (uint32_t)(2 * n));
	publish(sim);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 1);
	assert_int_equal(sim->st.framing_errors, 1);
	assert_int_equal(sim->st.bytes_dropped, n);
	assert_int_equal(sim->ctl.data_tail, sim->head);
}

/* A record crossing the end of the area (no pad written): truncated, not wrapped. */
static void record_crosses_end(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };
	size_t n = rec_sample_size(4, 4, 0, 0);
	uint8_t tmp[512];

	sim->rc.tail = AREA - 64;
	sim->ctl.data_tail = sim->rc.tail;
	rec_put_sample(tmp, 3, 9, 4, 4, 0, 0);
	memcpy(sim->data + AREA - 64, tmp, 64);
	memcpy(sim->data, tmp + 64, n - 64);
	__atomic_store_n(&sim->ctl.data_head, AREA - 64 + n, __ATOMIC_RELEASE);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 0);
	assert_int_equal(sim->st.framing_errors, 1);
	assert_int_equal(sim->ctl.data_tail, AREA - 64 + n);
}

/* A pad whose span was not published yet, and a pad in the middle. */
static void pad_rules(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };

	rec_put_pad(sim->data, 64); /* pad at 0 means: skip to end of area */
	__atomic_store_n(&sim->ctl.data_head, 64, __ATOMIC_RELEASE);
	/* head inside the padded region: inconsistent, dropped. */
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(sim->st.framing_errors, 1);
	assert_int_equal(sim->st.pads, 0);
}

/* Other skipped records are stepped over and counted; the drain goes on. */
static void skip_counts(void **state)
{
	struct sim *sim = *state;
	struct seen seen = { 0 };
	size_t n = rec_sample_size(1, 1, 0, 0);

	produce(sim, 1, 1, 1);
	produce(sim, 2, 1, 1);
	produce(sim, 3, 1, 1);
	rec_set_u16(sim->data + n, offsetof(struct skyprof_sample, hdr.version), 9);
	rec_set_u32(sim->data + 2 * n, offsetof(struct skyprof_sample, cpu), 77);
	publish(sim);
	assert_int_equal(drain(sim, &seen), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(sim->st.skipped[DECODE_SKIP_VERSION], 1);
	assert_int_equal(sim->st.cpu_mismatch, 1);
}

static void cpulist(void **state)
{
	uint8_t bm[2];

	(void)state;
	assert_int_equal(ring_parse_cpulist("0-3,5,7-8\n", bm, 16), 0);
	assert_int_equal(bm[0], 0xaf);
	assert_int_equal(bm[1], 0x01);
	assert_int_equal(ring_parse_cpulist("0", bm, 16), 0);
	assert_int_equal(bm[0], 1);
	assert_int_equal(ring_parse_cpulist("0-16", bm, 16), -EINVAL);
	assert_int_equal(ring_parse_cpulist("3-1", bm, 16), -EINVAL);
	assert_int_equal(ring_parse_cpulist("a", bm, 16), -EINVAL);
	assert_int_equal(ring_parse_cpulist("1,,2", bm, 16), -EINVAL);
	assert_int_equal(ring_parse_cpulist("1-", bm, 16), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(empty_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(drains_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(stops_at_head, setup, teardown),
		cmocka_unit_test_setup_teardown(wraps_with_pads, setup, teardown),
		cmocka_unit_test_setup_teardown(full_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(callback_stops_drain, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_head, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_tail_in_page, setup, teardown),
		cmocka_unit_test_setup_teardown(record_overruns_head, setup, teardown),
		cmocka_unit_test_setup_teardown(record_crosses_end, setup, teardown),
		cmocka_unit_test_setup_teardown(pad_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(skip_counts, setup, teardown),
		cmocka_unit_test(cpulist),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
