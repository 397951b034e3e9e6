// SPDX-License-Identifier: GPL-2.0
/*
 * Processes named from the module's side-band records (proc/aspace.h), on
 * real binaries built at test time (symfixtures/) and a fake /proc that
 * shows what the test wants: another program under the pid, or nothing.
 * Each test fails on the /proc path alone: a reused pid, an exec of the
 * same binary at other addresses, a dlopen reported later, a process gone
 * from /proc, a replaced file, a sample whose report never came. The last
 * ones go the whole way from ring bytes through the hold (capture/hold.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <cmocka.h>

#include "capture/hold.h"
#include "capture/ring.h"
#include "fixture_proc.h"
#include "pipeline_fixture.h"
#include "proc/aspace.h"
#include "proc/table.h"
#include "records.h"
#include "sym/symbolizer.h"

#define PID 5151

static const char *fx(const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	assert_non_null(fx_build());
	snprintf(p, PATH_MAX, "%s/%s", fx_build(), name);
	return p;
}

struct fixture {
	char dir[PATH_MAX / 2]; /* the fake /proc */
	struct symbolizer *sym;
	struct tpipe *tp;
	struct sp_mmap maps[8];
	uint32_t nr_maps;
};

/* /proc shows pid running bin at [start, start + 0x10000), started at
 * start_time (clock ticks after boot). */
static void fake_proc(struct fixture *f, const char *bin, uint64_t start,
		      unsigned long long start_time)
{
	char path[PATH_MAX], text[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%d", f->dir, PID);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/maps", f->dir, PID);
	snprintf(text, sizeof(text), "%llx-%llx r-xp 00000000 00:00 0 %s\n",
		 (unsigned long long)start, (unsigned long long)start + 0x10000, bin);
	assert_true(fx_write_text(path, text));
	snprintf(path, sizeof(path), "%s/%d/stat", f->dir, PID);
	snprintf(text, sizeof(text),
		 "%d (other) R 1 %d %d 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 %llu 2535424 303\n",
		 PID, PID, PID, start_time);
	assert_true(fx_write_text(path, text));
	snprintf(path, sizeof(path), "%s/%d/exe", f->dir, PID);
	unlink(path);
	assert_int_equal(symlink(bin, path), 0);
	snprintf(path, sizeof(path), "%s/%d/root", f->dir, PID);
	unlink(path);
	assert_int_equal(symlink("/", path), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct symbolizer_opts o = { .quiet = true };
	char cmd[PATH_MAX];

	assert_non_null(f);
	assert_non_null(fx_build());
	snprintf(f->dir, sizeof(f->dir), "%s/sbproc", fx_build());
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mkdir(f->dir, 0755), 0);
	o.proc_root = f->dir;
	f->sym = symbolizer_new(&o);
	assert_non_null(f->sym);
	f->tp = tp_new(&meta, f->sym);
	assert_non_null(f->tp);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tp_free(f->tp);
	symbolizer_free(f->sym);
	free(f);
	return 0;
}

/* The module's record of bin mapped at [start, start + 0x10000) from 0. */
static void add_map(struct fixture *f, uint64_t as_id, const char *bin, uint64_t start,
		    uint32_t flags)
{
	struct sp_mmap *m = &f->maps[f->nr_maps++];
	struct stat st;

	assert_int_equal(stat(bin, &st), 0);
	memset(m, 0, sizeof(*m));
	m->as_id = as_id;
	m->tgid = PID;
	m->start = start;
	m->end = start + 0x10000;
	m->ino = st.st_ino;
	m->size = (uint64_t)st.st_size;
	m->mtime_sec = st.st_mtim.tv_sec;
	m->mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	m->dev_major = major(st.st_dev);
	m->dev_minor = minor(st.st_dev);
	m->flags = flags;
	m->path = bin;
	m->path_len = (uint16_t)(strlen(bin) + 1);
}

/* The mappings added since the last report, as one report of as_id. */
static void report(struct fixture *f, uint64_t as_id, uint32_t nr, uint64_t first_ns)
{
	struct sp_report r = {
		.as = { .as_id = as_id, .tgid = PID, .first_ns = first_ns, .nr_maps = nr },
		.maps = f->maps + f->nr_maps - nr,
		.nr_maps = nr
	};

	assert_true(ingest_report(f->tp->in, &r) >= 0);
}

static void sample(struct fixture *f, uint64_t as_id, uint64_t ip, uint64_t time_ns, int n)
{
	struct sp_sample s = { .tgid = PID,
			       .tid = PID,
			       .weight = 1,
			       .as_id = as_id,
			       .time_ns = time_ns,
			       .nr_user = 1,
			       .user_ips = &ip };

	snprintf(s.comm, sizeof(s.comm), "prog");
	for (int i = 0; i < n; i++)
		assert_int_equal(tp_add(f->tp, &s), 0);
}

/* The top's self count of name (0: not there). */
static uint64_t self_of(struct fixture *f, const char *name)
{
	struct func_share top[16];
	size_t n = tp_top(f->tp, top, 16);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(top[i].name, name))
			return top[i].self;
	return 0;
}

static uint64_t self_prefix(struct fixture *f, const char *prefix)
{
	struct func_share top[16];
	size_t n = tp_top(f->tp, top, 16);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (!strncmp(top[i].name, prefix, strlen(prefix)))
			sum += top[i].self;
	return sum;
}

static const uint64_t X = 0x7000000; /* where the programs' leaves are */

/*
 * One pid, two address spaces (a pid reused by another program), both
 * reported, the later one's report first; /proc shows a third program at
 * the same addresses. Each sample is named in its own binary.
 */
static void pid_reuse(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *b = fx("fx_cpp"), *other = fx("libfxstrip.so");
	uint64_t va = fx_nm_addr(a, "leaf_target"), vb = fx_nm_addr(b, "_Z5twiceIiET_S0_");
	struct proc_gen *g;

	fake_proc(f, other, X - va, 1);
	add_map(f, 200, b, X - vb, SKYPROF_MMAP_F_EXE);
	report(f, 200, 1, 2000);
	add_map(f, 100, a, X - va, SKYPROF_MMAP_F_EXE);
	report(f, 100, 1, 1000);
	sample(f, 100, X, 1500, 3);
	sample(f, 200, X, 2500, 2);
	assert_int_equal(self_of(f, "leaf_target"), 3);
	assert_int_equal(self_of(f, "int twice<int>(int)"), 2);
	assert_int_equal(self_prefix(f, "[unknown]"), 0);
	/* the one first sampled later is the newest, whatever came first */
	g = proc_table_newest(symbolizer_procs(f->sym), PID);
	assert_non_null(g);
	assert_int_equal(g->as_id, 200);
	assert_false(g->frozen);
	assert_true(proc_aspace_find(symbolizer_procs(f->sym), PID, 100)->frozen);
	assert_true(proc_table_main_mapping(symbolizer_procs(f->sym), PID)->is_main);
}

/* The same binary exec'd twice, at other addresses: each address space
 * has its own mapping; an address of one is nothing in the other. */
static void exec_same_binary_twice(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main");
	uint64_t va = fx_nm_addr(a, "leaf_target"), y = X + 0x100000;

	add_map(f, 300, a, X - va, SKYPROF_MMAP_F_EXE);
	report(f, 300, 1, 1000);
	add_map(f, 301, a, y - va, SKYPROF_MMAP_F_EXE);
	report(f, 301, 1, 2000);
	sample(f, 300, X, 1500, 2);
	sample(f, 301, y, 2500, 3);
	sample(f, 300, y, 1600, 1); /* the second image's address in the first */
	assert_int_equal(self_of(f, "leaf_target"), 5);
	assert_int_equal(self_of(f, "[unknown]"), 1);
}

/* A library dlopen'ed after the first report: the second report adds it. */
static void dlopen_second_report(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *lib = fx("libfx.so");
	uint64_t va = fx_nm_addr(a, "leaf_target"), vl = fx_nm_addr(lib, "lib_func");
	uint64_t l = 0x7f0000000000;

	add_map(f, 400, a, X - va, SKYPROF_MMAP_F_EXE);
	report(f, 400, 1, 1000);
	sample(f, 400, l + vl, 1100, 2);
	/* a re-report lists every mapping again: the old one is not doubled */
	add_map(f, 400, a, X - va, SKYPROF_MMAP_F_EXE);
	add_map(f, 400, lib, l, 0);
	report(f, 400, 2, 1000);
	sample(f, 400, X, 1200, 1);
	assert_int_equal(self_of(f, "lib_func"), 2);
	assert_int_equal(self_of(f, "leaf_target"), 1);
	assert_int_equal(proc_aspace_find(symbolizer_procs(f->sym), PID, 400)->nr_maps, 2);
}

/* Gone from /proc before the report came: named from the records, the
 * files opened by path and verified. */
static void gone_from_proc(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main");
	uint64_t va = fx_nm_addr(a, "leaf_target");
	struct proc_aspace_stats st;

	add_map(f, 500, a, X - va, SKYPROF_MMAP_F_EXE);
	report(f, 500, 1, 1000);
	sample(f, 500, X, 1100, 4);
	assert_int_equal(self_of(f, "leaf_target"), 4);
	proc_aspace_get_stats(symbolizer_procs(f->sym), &st);
	assert_int_equal(st.files[FILES_VERIFIED], 1);
	assert_int_equal(st.reports, 1);
	assert_int_equal(st.fallbacks + st.fallback_gone + st.fallback_reused, 0);
}

static void count_jit(void *arg, uint32_t pid, const char *exe, bool has_map)
{
	unsigned int *n = arg;

	assert_int_equal(pid, PID);
	assert_string_equal(exe, fx("fx_main"));
	assert_false(has_map);
	(*n)++;
}

/*
 * Anonymous executable memory the module reported (JIT code) in a process
 * gone from /proc: a sample there is JIT code no perf map named, which the
 * record's hint is about; no file is looked for, none counted unverifiable.
 * A sample outside every mapping is no JIT's.
 */
static void recorded_anon_memory(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main");
	uint64_t va = fx_nm_addr(a, "leaf_target");
	const uint64_t jit = 0x40000000;
	struct proc_aspace_stats st;
	struct sp_mmap *m;
	unsigned int n = 0;

	add_map(f, 800, a, X - va, SKYPROF_MMAP_F_EXE);
	m = &f->maps[f->nr_maps++];
	memset(m, 0, sizeof(*m));
	m->as_id = 800;
	m->tgid = PID;
	m->start = jit;
	m->end = jit + 0x100000;
	m->flags = SKYPROF_MMAP_F_ANON;
	m->path = "";
	m->path_len = 1;
	report(f, 800, 2, 1000);
	sample(f, 800, 0x90000000, 1100, 1);
	assert_int_equal(symbolizer_jit_unnamed(f->sym, NULL, NULL), 0);
	sample(f, 800, jit + 0x1000, 1100, 3);
	sample(f, 800, X, 1100, 2);
	assert_int_equal(self_of(f, "leaf_target"), 2);
	assert_int_equal(self_of(f, "[unknown]"), 4);
	assert_int_equal(symbolizer_jit_unnamed(f->sym, count_jit, &n), 1);
	assert_int_equal(n, 1);
	proc_aspace_get_stats(symbolizer_procs(f->sym), &st);
	assert_int_equal(st.files[FILES_VERIFIED], 1);
	assert_int_equal(st.files[FILES_NO_PATH] + st.files[FILES_GONE], 0);
}

/* The file at the path is no longer the one recorded: [unknown], counted;
 * another identity with the recorded build-id (an overlay's inode) is it. */
static void replaced_file(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *b = fx("fx_cpp");
	char copy[PATH_MAX], cmd[3 * PATH_MAX], bid[64] = "";
	uint64_t va = fx_nm_addr(a, "leaf_target");
	struct proc_aspace_stats st;
	char line[512];
	FILE *p;

	snprintf(copy, sizeof(copy), "%s/fx_copy", f->dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s", a, copy);
	assert_int_equal(system(cmd), 0);
	add_map(f, 600, copy, X - va, SKYPROF_MMAP_F_EXE);
	/* replaced in place before the report is read: same inode, other
	 * size and time */
	snprintf(cmd, sizeof(cmd), "cat %s > %s", b, copy);
	assert_int_equal(system(cmd), 0);
	report(f, 600, 1, 1000);
	sample(f, 600, X, 1100, 2);
	assert_int_equal(self_of(f, "leaf_target"), 0);
	assert_int_equal(self_prefix(f, "[unknown] fx_copy+0x"), 2);
	proc_aspace_get_stats(symbolizer_procs(f->sym), &st);
	assert_int_equal(st.files[FILES_REPLACED], 1);
	assert_int_equal(st.files[FILES_VERIFIED], 0);

	/* the build-id says it is the file, though its inode is another */
	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID/ {print $3}'", a);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(bid, sizeof(bid), p));
	pclose(p);
	add_map(f, 601, a, X - va, SKYPROF_MMAP_F_EXE | SKYPROF_MMAP_F_BUILD_ID);
	f->maps[f->nr_maps - 1].ino ^= 1;
	f->maps[f->nr_maps - 1].build_id_size = 20;
	for (int i = 0; i < 20; i++) {
		unsigned int byte;

		assert_int_equal(sscanf(bid + 2 * i, "%2x", &byte), 1);
		f->maps[f->nr_maps - 1].build_id[i] = (uint8_t)byte;
	}
	report(f, 601, 1, 2000);
	sample(f, 601, X, 2100, 1);
	assert_int_equal(self_of(f, "leaf_target"), 1);
	proc_aspace_get_stats(symbolizer_procs(f->sym), &st);
	assert_int_equal(st.files[FILES_BY_BUILD_ID], 1);
	(void)line;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * No report came: /proc, once, if it still shows the process of the
 * sample; a process that started after the sample is another program.
 */
static void fallback_without_report(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *other = fx("fx_cpp");
	uint64_t va = fx_nm_addr(a, "leaf_target"), now = mono_ns();
	long hz = sysconf(_SC_CLK_TCK);
	struct proc_aspace_stats st;

	/* started a tick after boot, long before the sample: the same process */
	fake_proc(f, a, X - va, 1);
	sample(f, 700, X, now, 2);
	assert_int_equal(self_of(f, "leaf_target"), 2);
	/* a pid reused: /proc shows a program started an hour after the sample */
	fake_proc(f, other, X - fx_nm_addr(other, "_Z5twiceIiET_S0_"),
		  (unsigned long long)((now / 1000000000ull + 3600) * (uint64_t)hz));
	sample(f, 701, X, now, 3);
	assert_int_equal(self_of(f, "int twice<int>(int)"), 0);
	assert_int_equal(self_of(f, "[unknown]"), 3);
	proc_aspace_get_stats(symbolizer_procs(f->sym), &st);
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.fallback_reused, 1);
}

/* A vfork child runs on its parent's address space until it execs: its
 * samples name that address space, whose report named the parent. */
static void address_space_of_another_pid(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *other = fx("fx_cpp");
	uint64_t va = fx_nm_addr(a, "leaf_target");
	struct sp_sample s = { .tgid = PID + 1,
			       .tid = PID + 1,
			       .weight = 1,
			       .as_id = 950,
			       .time_ns = 1100,
			       .nr_user = 1 };
	uint64_t ip = X;

	fake_proc(f, other, X - fx_nm_addr(other, "_Z5twiceIiET_S0_"), 1);
	add_map(f, 950, a, X - va, SKYPROF_MMAP_F_EXE);
	report(f, 950, 1, 1000);
	s.user_ips = &ip;
	assert_int_equal(tp_add(f->tp, &s), 0);
	assert_int_equal(self_of(f, "leaf_target"), 1);
}

/* --- the whole way: ring bytes, the hold, ingest -------------------------- */

#define AREA 8192u

struct ring_fix {
	struct skyprof_ring_ctl ctl;
	uint8_t data[AREA] __attribute__((aligned(8)));
	struct ring_cpu rc;
	struct ring_stats st;
	uint64_t head;
};

static void ring_drain_into(struct ring_fix *r, struct hold *h, struct fixture *f, uint64_t now)
{
	struct ingest_sink k = { .in = f->tp->in, .prof = f->tp->p };
	struct sp_sink out = ingest_sink_of(&k);
	struct ring_sink rs = hold_ring_sink(h);

	r->rc.ctl = &r->ctl;
	r->rc.data = r->data;
	r->rc.size = AREA;
	r->ctl.data_size = AREA;
	__atomic_store_n(&r->ctl.data_head, r->head, __ATOMIC_RELEASE);
	hold_begin(h, &out, now);
	assert_int_equal(ring_cpu_drain(&r->rc, &rs, &r->st), 0);
	assert_int_equal(hold_expire(h), 0);
	assert_int_equal(k.error, 0);
}

/* The module's identity of bin, as rec_put_mmap takes it. */
static struct skyprof_mmap identity(const char *bin)
{
	struct skyprof_mmap id = { 0 };
	struct stat st;

	assert_int_equal(stat(bin, &st), 0);
	id.ino = st.st_ino;
	id.size = (uint64_t)st.st_size;
	id.mtime_sec = st.st_mtim.tv_sec;
	id.mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
	id.dev_major = major(st.st_dev);
	id.dev_minor = minor(st.st_dev);
	return id;
}

/*
 * Samples first, their report a drain later: they wait in the hold, and
 * are named from the report, not from the program /proc shows by then.
 */
static void held_until_report(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main"), *other = fx("fx_cpp");
	uint64_t va = fx_nm_addr(a, "leaf_target"), ip = 0x400000; /* records.h's user ip */
	struct skyprof_mmap id = identity(a);
	static struct ring_fix r;
	struct hold *h = hold_new(NULL);

	assert_non_null(h);
	fake_proc(f, other, ip - fx_nm_addr(other, "_Z5twiceIiET_S0_"), 1);
	r.head += rec_put_sample_as(r.data + r.head, 0, PID, 800, 0, 1, 0, 0);
	r.head += rec_put_sample_as(r.data + r.head, 0, PID, 800, 0, 1, 0, 0);
	ring_drain_into(&r, h, f, 10);
	assert_true(hold_waiting(h));
	assert_int_equal(profile_total_samples(f->tp->p), 0);
	r.head += rec_put_mmap(r.data + r.head, 800, PID, ip - va, ip - va + 0x10000, 0, a,
			       SKYPROF_MMAP_F_EXE, &id);
	r.head += rec_put_aspace(r.data + r.head, 800, PID, 1, 0, 0);
	ring_drain_into(&r, h, f, 20);
	assert_false(hold_waiting(h));
	assert_int_equal(hold_get_stats(h)->by_report, 2);
	assert_int_equal(self_of(f, "leaf_target"), 2);
	assert_int_equal(self_of(f, "int twice<int>(int)"), 0);
	hold_free(h);
	memset(&r, 0, sizeof(r));
}

/* No report within the wait: the samples go on, to /proc (which shows
 * their process still); the hold counts them. */
static void held_until_timeout(void **state)
{
	struct fixture *f = *state;
	const char *a = fx("fx_main");
	uint64_t va = fx_nm_addr(a, "leaf_target"), ip = 0x400000;
	struct hold_opts o = { .wait_ns = 1000 };
	static struct ring_fix r;
	struct hold *h = hold_new(&o);
	uint64_t t0 = mono_ns();
	uint8_t *rec;

	assert_non_null(h);
	fake_proc(f, a, ip - va, 1);
	rec = r.data + r.head;
	r.head += rec_put_sample_as(rec, 0, PID, 900, 0, 1, 0, 0);
	rec_set_u64(rec, offsetof(struct skyprof_sample, time_ns), t0);
	ring_drain_into(&r, h, f, t0);
	assert_int_equal(profile_total_samples(f->tp->p), 0);
	ring_drain_into(&r, h, f, t0 + 1000);
	assert_int_equal(hold_get_stats(h)->by_timeout, 1);
	assert_int_equal(self_of(f, "leaf_target"), 1);
	hold_free(h);
	memset(&r, 0, sizeof(r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(exec_same_binary_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(dlopen_second_report, setup, teardown),
		cmocka_unit_test_setup_teardown(gone_from_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(recorded_anon_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(replaced_file, setup, teardown),
		cmocka_unit_test_setup_teardown(fallback_without_report, setup, teardown),
		cmocka_unit_test_setup_teardown(address_space_of_another_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(held_until_report, setup, teardown),
		cmocka_unit_test_setup_teardown(held_until_timeout, setup, teardown),
	};
	int r = cmocka_run_group_tests_name("sideband", tests, NULL, NULL);

	fx_cleanup();
	return r;
}
