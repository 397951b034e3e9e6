// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band hold (capture/hold.h) fed from ring bytes the way the module
 * writes them: a sample whose address space has no report waits until the
 * ASPACE record comes (in its own ring or another CPU's) and then goes on
 * after the report; without one it goes on after the wait, with the hold
 * full or at the end; a report is the last nr_maps MMAP records before its
 * ASPACE in that ring. The order of what comes out is the contract.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/hold.h"
#include "capture/ring.h"
#include "records.h"

#define AREA 8192u
#define WAIT 1000000ull /* ns: the tests' wait, short and exact */

/* One CPU's ring, written front to back (no wrap needed here). */
struct tring {
	struct skyprof_ring_ctl ctl;
	uint8_t *data;
	struct ring_cpu rc;
	struct ring_stats st;
	uint64_t head;
};

static void tring_init(struct tring *r, uint32_t cpu)
{
	memset(r, 0, sizeof(*r));
	r->data = calloc(1, AREA);
	assert_non_null(r->data);
	r->ctl.data_size = AREA;
	r->rc.ctl = &r->ctl;
	r->rc.data = r->data;
	r->rc.size = AREA;
	r->rc.cpu = cpu;
	r->rc.mapped = true;
}

static uint8_t *tring_at(struct tring *r)
{
	assert_true(r->head + 512 < AREA);
	return r->data + r->head;
}

static void tring_sample(struct tring *r, uint32_t tgid, uint64_t as_id)
{
	r->head += rec_put_sample_as(tring_at(r), r->rc.cpu, tgid, as_id, 1, 2, 0, 0);
}

static void tring_mmap(struct tring *r, uint64_t as_id, uint32_t tgid, const char *path)
{
	r->head += rec_put_mmap(tring_at(r), as_id, tgid, 0x400000, 0x401000, 0, path, 0, NULL);
}

static void tring_aspace(struct tring *r, uint64_t as_id, uint32_t tgid, uint32_t nr)
{
	r->head += rec_put_aspace(tring_at(r), as_id, tgid, nr, 0, 0);
}

/* What came out of the hold, in order: "s<tgid>" and "r<as_id>:<paths>". */
struct seen {
	char log[64][64];
	size_t n;
};

static int on_sample(void *arg, const struct sp_sample *s)
{
	struct seen *v = arg;

	assert_true(v->n < 64);
	/* the copy's arrays are the sample's */
	assert_int_equal(s->nr_kernel, 1);
	assert_int_equal(s->kernel_ips[0], 0x1000);
	assert_int_equal(s->user_ips[1], 0x400001);
	snprintf(v->log[v->n++], 64, "s%u", s->tgid);
	return 0;
}

static int on_report(void *arg, const struct sp_report *r)
{
	struct seen *v = arg;
	size_t at;

	assert_true(v->n < 64);
	at = (size_t)snprintf(v->log[v->n], 64, "r%llu:", (unsigned long long)r->as.as_id);
	for (uint32_t i = 0; i < r->nr_maps && at < 64; i++)
		at += (size_t)snprintf(v->log[v->n] + at, 64 - at, "%s%s", i ? "," : "",
				       r->maps[i].path);
	v->n++;
	return 0;
}

struct fix {
	struct hold *h;
	struct seen seen;
	struct sp_sink out;
	struct tring cpu[2];
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct hold_opts o = { .wait_ns = WAIT };

	assert_non_null(f);
	f->h = hold_new(&o);
	assert_non_null(f->h);
	f->out = (struct sp_sink){ .sample = on_sample, .report = on_report, .arg = &f->seen };
	tring_init(&f->cpu[0], 0);
	tring_init(&f->cpu[1], 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	hold_free(f->h);
	free(f->cpu[0].data);
	free(f->cpu[1].data);
	free(f);
	return 0;
}

/* What each ring has published, drained through the hold at time now. */
static void drain_at(struct fix *f, uint64_t now)
{
	struct ring_sink k = hold_ring_sink(f->h);

	hold_begin(f->h, &f->out, now);
	for (int c = 0; c < 2; c++) {
		__atomic_store_n(&f->cpu[c].ctl.data_head, f->cpu[c].head, __ATOMIC_RELEASE);
		assert_int_equal(ring_cpu_drain(&f->cpu[c].rc, &k, &f->cpu[c].st), 0);
	}
	assert_int_equal(hold_expire(f->h), 0);
}

static void assert_log(const struct fix *f, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n && i < f->seen.n; i++)
		assert_string_equal(f->seen.log[i], want[i]);
	assert_int_equal(f->seen.n, n);
}

/* Samples wait for their address space's report, and go on after it. */
static void released_by_report(void **state)
{
	static const char *const want[] = { "s20", "r5:/a,/b", "s10", "s11", "s12" };
	struct fix *f = *state;
	const struct hold_stats *st = hold_get_stats(f->h);

	tring_sample(&f->cpu[0], 10, 5);
	tring_sample(&f->cpu[0], 20, 0); /* names no address space: at once */
	tring_sample(&f->cpu[0], 11, 5);
	drain_at(f, 100);
	assert_int_equal(f->seen.n, 1);
	assert_true(hold_waiting(f->h));
	assert_int_equal(hold_deadline(f->h), 100 + WAIT);
	/* the report, in the same ring, a few ms later */
	tring_mmap(&f->cpu[0], 5, 10, "/a");
	tring_mmap(&f->cpu[0], 5, 10, "/b");
	tring_aspace(&f->cpu[0], 5, 10, 2);
	tring_sample(&f->cpu[0], 12, 5); /* known now: at once */
	drain_at(f, 300);
	assert_log(f, want, 5);
	assert_false(hold_waiting(f->h));
	assert_int_equal(st->held, 2);
	assert_int_equal(st->by_report, 2);
	assert_int_equal(st->reports, 1);
	assert_int_equal(st->first_reports, 1);
	assert_int_equal(st->mappings, 2);
	assert_int_equal(st->wait_max_ns, 200);
	assert_int_equal(st->by_timeout + st->when_full + st->at_end + st->orphans, 0);
	assert_int_equal(f->cpu[0].st.mmaps, 2);
	assert_int_equal(f->cpu[0].st.aspaces, 1);
}

/* The report comes in another CPU's ring, drained before the samples'. */
static void report_in_another_ring(void **state)
{
	static const char *const want[] = { "r7:/x", "s30" };
	struct fix *f = *state;

	tring_mmap(&f->cpu[0], 7, 30, "/x");
	tring_aspace(&f->cpu[0], 7, 30, 1);
	tring_sample(&f->cpu[1], 30, 7);
	drain_at(f, 100);
	assert_log(f, want, 2);
	assert_int_equal(hold_get_stats(f->h)->held, 0);
}

/* No report within the wait: the address space's samples go on without it,
 * later ones at once; a report that comes after all is counted late. */
static void released_by_timeout(void **state)
{
	static const char *const want[] = { "s40", "s41", "s42", "r9:/late" };
	struct fix *f = *state;
	const struct hold_stats *st = hold_get_stats(f->h);

	tring_sample(&f->cpu[0], 40, 9);
	drain_at(f, 1000);
	tring_sample(&f->cpu[0], 41, 9);
	drain_at(f, 1000 + WAIT - 1);
	assert_int_equal(f->seen.n, 0);
	drain_at(f, 1000 + WAIT);
	assert_int_equal(f->seen.n, 2);
	assert_int_equal(st->by_timeout, 2);
	tring_sample(&f->cpu[0], 42, 9);
	tring_mmap(&f->cpu[1], 9, 40, "/late");
	tring_aspace(&f->cpu[1], 9, 40, 1);
	drain_at(f, 1000 + WAIT + 5);
	assert_log(f, want, 4);
	assert_int_equal(st->held, 2);
	assert_int_equal(st->late_reports, 1);
	assert_false(hold_waiting(f->h));
}

/* A try that did not fit in the ring left MMAP records no ASPACE closed:
 * the report is the last nr_maps of them. */
static void failed_try_dropped(void **state)
{
	static const char *const want[] = { "r3:/new1,/new2", "s50" };
	struct fix *f = *state;
	const struct hold_stats *st = hold_get_stats(f->h);

	tring_sample(&f->cpu[1], 50, 3);
	tring_mmap(&f->cpu[0], 3, 50, "/old1");
	tring_mmap(&f->cpu[0], 3, 50, "/old2");
	tring_mmap(&f->cpu[0], 3, 50, "/new1");
	tring_mmap(&f->cpu[0], 3, 50, "/new2");
	tring_aspace(&f->cpu[0], 3, 50, 2);
	drain_at(f, 10);
	assert_log(f, want, 2);
	assert_int_equal(st->orphans, 2);
	assert_int_equal(st->short_reports, 0);
	/* fewer records than announced (lost here): what there is, counted */
	tring_mmap(&f->cpu[0], 4, 51, "/only");
	tring_aspace(&f->cpu[0], 4, 51, 3);
	drain_at(f, 20);
	assert_string_equal(f->seen.log[2], "r4:/only");
	assert_int_equal(st->short_reports, 1);
	/* records whose ASPACE never comes are dropped after twice the wait */
	tring_mmap(&f->cpu[1], 6, 52, "/never");
	drain_at(f, 30);
	drain_at(f, 30 + 2 * WAIT + 1);
	assert_int_equal(st->orphans, 3);
}

/* The hold full: the oldest address space's samples go on first. */
static void released_when_full(void **state)
{
	struct fix *f = *state;
	struct hold_opts o = { .wait_ns = WAIT, .max_bytes = 600 };
	const struct hold_stats *st;

	hold_free(f->h);
	f->h = hold_new(&o);
	assert_non_null(f->h);
	st = hold_get_stats(f->h);
	tring_sample(&f->cpu[0], 60, 1);
	tring_sample(&f->cpu[0], 61, 1);
	tring_sample(&f->cpu[0], 62, 2);
	tring_sample(&f->cpu[0], 63, 2);
	tring_sample(&f->cpu[0], 64, 3);
	drain_at(f, 10);
	/* each copy is some 200 bytes: address space 1 had to make room */
	assert_true(st->when_full >= 2);
	assert_string_equal(f->seen.log[0], "s60");
	assert_string_equal(f->seen.log[1], "s61");
	assert_true(st->peak_bytes <= 600);
	/* the end of the capture: the rest, oldest first */
	hold_begin(f->h, &f->out, 20);
	assert_int_equal(hold_flush(f->h), 0);
	assert_int_equal(f->seen.n, 5);
	assert_string_equal(f->seen.log[4], "s64");
	assert_int_equal(st->when_full + st->at_end, 5);
	assert_false(hold_waiting(f->h));
}

/* A sink that fails stops the drain; what waits stays for the next one. */
static int failing(void *arg, const struct sp_sample *s)
{
	(void)arg;
	(void)s;
	return -12;
}

static void sink_error_propagates(void **state)
{
	struct fix *f = *state;

	f->out.sample = failing;
	tring_sample(&f->cpu[0], 70, 8);
	tring_sample(&f->cpu[0], 71, 8);
	drain_at(f, 10);
	hold_begin(f->h, &f->out, 10 + WAIT);
	assert_int_equal(hold_expire(f->h), -12);
	assert_true(hold_waiting(f->h));
	f->out.sample = on_sample;
	assert_int_equal(hold_expire(f->h), 0);
	assert_int_equal(f->seen.n, 1);
}

/* A report's copy outlives the callback, paths and all. */
static int dup_report(void *arg, const struct sp_report *r)
{
	struct sp_report **out = arg;

	*out = hold_report_dup(r);
	return 0;
}

static void report_copy(void **state)
{
	struct fix *f = *state;
	struct sp_report *c = NULL;

	f->out = (struct sp_sink){ .sample = on_sample, .report = dup_report, .arg = &c };
	tring_mmap(&f->cpu[0], 11, 80, "/lib/one.so");
	tring_mmap(&f->cpu[0], 11, 80, "/lib/two.so");
	tring_aspace(&f->cpu[0], 11, 80, 2);
	drain_at(f, 10);
	assert_non_null(c);
	assert_int_equal(c->nr_maps, 2);
	assert_int_equal(c->as.tgid, 80);
	assert_string_equal(c->maps[0].path, "/lib/one.so");
	assert_string_equal(c->maps[1].path, "/lib/two.so");
	assert_int_equal(c->maps[1].path_len, 12);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(released_by_report, setup, teardown),
		cmocka_unit_test_setup_teardown(report_in_another_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(released_by_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_try_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(released_when_full, setup, teardown),
		cmocka_unit_test_setup_teardown(sink_error_propagates, setup, teardown),
		cmocka_unit_test_setup_teardown(report_copy, setup, teardown),
	};

	return cmocka_run_group_tests_name("hold", tests, NULL, NULL);
}
