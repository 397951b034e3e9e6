// SPDX-License-Identifier: GPL-2.0
/*
 * proc/table: each process's state over time, on a /proc built by hand so
 * every exec and every new mapping is exact: what a capture keeps of the
 * maps (executable mappings only, " (deleted)" cut, anonymous and
 * "[anon:...]" memory marked), the hooks called as mappings are captured,
 * the root and namespace pid of a target, exec generations (a new image, a
 * reused pid) with the older ones frozen, misses and re-reads, a process
 * gone, and late captures when symbolizing.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/table.h"
#include "scratch_dir.h"

#define PID 100

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* What the hooks saw. */
struct seen {
	unsigned int mappings, first, again;
	char last_path[256];
	struct proc_gen *last_gen;
};

static void on_mapping(void *arg, struct proc_gen *g, struct proc_mapping *m)
{
	struct seen *s = arg;

	s->mappings++;
	s->last_gen = g;
	snprintf(s->last_path, sizeof(s->last_path), "%s", m->path);
	/* the hooks' state rides on the mapping */
	m->priv = s;
}

static void on_captured(void *arg, struct proc_gen *g, bool first)
{
	struct seen *s = arg;

	s->last_gen = g;
	if (first)
		s->first++;
	else
		s->again++;
}

/* A fresh fake /proc under the scratch dir: returns its path. */
static const char *fake_proc(const char *name)
{
	static char root[160];

	snprintf(root, sizeof(root), "%s", tmp(name));
	assert_int_equal(mkdir(root, 0755), 0);
	return root;
}

static void pid_path(char *buf, size_t n, const char *root, uint32_t pid, const char *leaf)
{
	snprintf(buf, n, "%s/%u%s%s", root, pid, leaf[0] ? "/" : "", leaf);
}

/*
 * pid now runs exe (a file made under root, so an exec to another name is
 * another inode), started at start_time, with maps text. The first call
 * for a pid also makes its directory, root and status (NSpid 7).
 */
static void fake_image(const char *root, uint32_t pid, const char *exe, unsigned long long start,
		       const char *maps)
{
	char path[512], target[512], text[512];
	struct stat st;

	pid_path(path, sizeof(path), root, pid, "");
	if (stat(path, &st)) {
		assert_int_equal(mkdir(path, 0755), 0);
		pid_path(path, sizeof(path), root, pid, "root");
		assert_int_equal(mkdir(path, 0755), 0);
		pid_path(path, sizeof(path), root, pid, "status");
		snprintf(text, sizeof(text), "Name:\tx\nNSpid:\t%u\t7\n", pid);
		put(path, text);
	}
	snprintf(target, sizeof(target), "%s/%s", root, exe);
	if (stat(target, &st))
		put(target, "binary");
	pid_path(path, sizeof(path), root, pid, "exe");
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
	pid_path(path, sizeof(path), root, pid, "stat");
	snprintf(text, sizeof(text),
		 "%u (x) R 1 %u %u 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 %llu 2535424 303\n", pid,
		 pid, pid, start);
	put(path, text);
	pid_path(path, sizeof(path), root, pid, "maps");
	put(path, maps);
}

/* The process is gone: its directory's files are no more. */
static void fake_exit(const char *root, uint32_t pid)
{
	char path[512];

	pid_path(path, sizeof(path), root, pid, "maps");
	unlink(path);
	pid_path(path, sizeof(path), root, pid, "stat");
	unlink(path);
}

/* A maps line of an executable mapping of path at start. */
static void xline(char *buf, size_t n, uint64_t start, const char *path)
{
	size_t len = strlen(buf);

	snprintf(buf + len, n - len, "%llx-%llx r-xp 00001000 08:01 1234 %s\n",
		 (unsigned long long)start, (unsigned long long)start + 0x1000, path);
}

static void test_capture(void **state)
{
	const char *root = fake_proc("capture");
	struct seen seen = { 0 };
	struct proc_table_hooks h = { .arg = &seen,
				      .mapping = on_mapping,
				      .captured = on_captured };
	struct proc_table *t = proc_table_new(root, &h);
	char maps[2048] = "", exe[512], deleted[600];
	struct proc_gen *g;
	const struct proc_mapping *m;

	(void)state;
	assert_non_null(t);
	assert_string_equal(proc_table_root(t), root);
	snprintf(exe, sizeof(exe), "%s/bin_a", root);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", exe);
	xline(maps, sizeof(maps), 0x400000, exe);
	/* not executable: no code, not kept */
	strcat(maps, "401000-402000 r--p 00002000 08:01 1234 /bin/data\n");
	/* replaced on disk: the mapping is still the old inode, path cut */
	xline(maps, sizeof(maps), 0x7f0000000000, "/lib/libz.so (deleted)");
	/* anonymous and named anonymous executable memory: JIT code */
	strcat(maps, "7f0000100000-7f0000200000 rwxp 00000000 00:00 0\n");
	xline(maps, sizeof(maps), 0x7f0000300000, "[anon:jit]");
	xline(maps, sizeof(maps), 0x7fff00000000, "[vdso]");
	fake_image(root, PID, "bin_a", 1000, maps);

	assert_null(proc_table_newest(t, PID));
	assert_int_equal(proc_table_note(t, PID), 0);
	g = proc_table_newest(t, PID);
	assert_non_null(g);
	assert_int_equal(g->gen, 0);
	assert_int_equal(g->pid, PID);
	assert_string_equal(g->exe, exe);
	assert_true(g->have_ident);
	assert_int_equal(g->ident.start_time, 1000);
	assert_false(g->frozen);
	assert_false(g->gone);
	assert_true(g->anon_exec);
	assert_int_equal(g->nr_maps, 5);
	assert_string_equal(g->maps[0]->path, exe);
	assert_true(g->maps[0]->is_main);
	assert_int_equal(g->maps[0]->start, 0x400000);
	assert_int_equal(g->maps[0]->limit, 0x401000);
	assert_int_equal(g->maps[0]->offset, 0x1000);
	assert_int_equal(g->maps[0]->inode, 1234);
	assert_int_equal(g->maps[0]->pid, PID);
	assert_string_equal(g->maps[1]->path, "/lib/libz.so");
	assert_false(g->maps[1]->is_main);
	assert_string_equal(g->maps[2]->path, "");
	assert_string_equal(g->maps[3]->path, "[anon:jit]");
	assert_string_equal(g->maps[4]->path, "[vdso]");
	/* the hooks: each mapping as it was captured, then the generation */
	assert_int_equal(seen.mappings, 5);
	assert_string_equal(seen.last_path, "[vdso]");
	assert_int_equal(seen.first, 1);
	assert_int_equal(seen.again, 0);
	assert_ptr_equal(seen.last_gen, g);
	assert_ptr_equal(g->maps[0]->priv, &seen);
	/* a target: its root held, its namespace pid known */
	assert_true(g->rootfd >= 0);
	assert_int_equal(g->nspid, 7);
	assert_int_equal(proc_table_nspid(t, g), 7);

	m = proc_table_find(g, 0x400800);
	assert_ptr_equal(m, g->maps[0]);
	assert_null(proc_table_find(g, 0x401000)); /* limit is outside */
	assert_null(proc_table_find(g, 0x401800)); /* not executable */
	assert_ptr_equal(proc_table_main_mapping(t, PID), g->maps[0]);
	assert_null(proc_table_main_mapping(t, PID + 1));

	/* a second note captures nothing */
	assert_int_equal(proc_table_note(t, PID), 0);
	assert_int_equal(seen.mappings, 5);
	assert_int_equal(seen.first, 1);
	assert_ptr_equal(proc_table_newest(t, PID), g);
	/* a pid that is not there */
	assert_true(proc_table_note(t, PID + 1) < 0);
	g = proc_table_newest(t, PID + 1);
	assert_non_null(g);
	assert_true(g->gone);
	assert_int_equal(g->rootfd, -1);
	assert_int_equal(proc_table_note(t, PID + 1), -ESRCH);
	proc_table_free(t);
}

/* An executable deleted after it started: "(deleted)" cut from both the exe
 * link and the maps, so its mapping is still the main one. */
static void test_deleted_exe(void **state)
{
	const char *root = fake_proc("deleted");
	struct proc_table *t = proc_table_new(root, NULL);
	char maps[1024] = "", exe[512], link[600], path[512];
	struct proc_gen *g;

	(void)state;
	snprintf(exe, sizeof(exe), "%s/bin_a", root);
	snprintf(link, sizeof(link), "%s (deleted)", exe);
	xline(maps, sizeof(maps), 0x400000, link);
	fake_image(root, PID, "bin_a", 1000, maps);
	pid_path(path, sizeof(path), root, PID, "exe");
	unlink(path);
	assert_int_equal(symlink(link, path), 0);
	assert_int_equal(proc_table_exec_check(t, PID), 0);
	g = proc_table_newest(t, PID);
	assert_string_equal(g->exe, exe);
	assert_string_equal(g->maps[0]->path, exe);
	assert_true(g->maps[0]->is_main);
	/* not noted as a target: no root held, no namespace pid looked up */
	assert_int_equal(g->rootfd, -1);
	assert_int_equal(g->nspid, 0);
	proc_table_hold_root(t, g);
	assert_true(g->rootfd >= 0);
	assert_int_equal(g->nspid, 7);
	proc_table_free(t);
}

static void test_generations(void **state)
{
	const char *root = fake_proc("gens");
	struct seen seen = { 0 };
	struct proc_table_hooks h = { .arg = &seen,
				      .mapping = on_mapping,
				      .captured = on_captured };
	struct proc_table *t = proc_table_new(root, &h);
	char maps_a[1024] = "", maps_b[1024] = "", exe_a[512], exe_b[512];
	struct proc_gen *g0, *g1, *g2;

	(void)state;
	snprintf(exe_a, sizeof(exe_a), "%s/bin_a", root);
	snprintf(exe_b, sizeof(exe_b), "%s/bin_b", root);
	xline(maps_a, sizeof(maps_a), 0x400000, exe_a);
	xline(maps_b, sizeof(maps_b), 0x400000, exe_b);
	xline(maps_b, sizeof(maps_b), 0x500000, "/lib/libb.so");
	fake_image(root, PID, "bin_a", 1000, maps_a);

	assert_int_equal(proc_table_exec_check(t, PID), 0);
	assert_int_equal(proc_table_exec_check(t, PID), 0); /* no exec: the same */
	assert_int_equal(seen.first, 1);
	g0 = proc_table_newest(t, PID);
	/* the exec: another executable, the same start time */
	fake_image(root, PID, "bin_b", 1000, maps_b);
	assert_int_equal(proc_table_exec_check(t, PID), 1);
	assert_int_equal(seen.first, 2);
	g1 = proc_table_newest(t, PID);
	assert_ptr_not_equal(g1, g0);
	assert_ptr_equal(proc_table_gen(t, PID, 0), g0);
	assert_ptr_equal(proc_table_gen(t, PID, 1), g1);
	assert_null(proc_table_gen(t, PID, 2));
	assert_true(g0->frozen);
	assert_false(g1->frozen);
	/* each image keeps its own maps, at the same addresses */
	assert_int_equal(g0->nr_maps, 1);
	assert_int_equal(g1->nr_maps, 2);
	assert_string_equal(proc_table_find(g0, 0x400000)->path, exe_a);
	assert_string_equal(proc_table_find(g1, 0x400000)->path, exe_b);
	assert_true(proc_table_find(g1, 0x400000)->is_main);
	assert_null(proc_table_find(g0, 0x500000));
	/* a frozen generation's maps are final: no miss, no re-read */
	assert_false(proc_table_maps_miss(t, PID, 0, (uint64_t[]){ 0x500000 }, 1));
	/* a reused pid: the same executable, another start time */
	fake_image(root, PID, "bin_b", 2000, maps_b);
	assert_int_equal(proc_table_exec_check(t, PID), 2);
	g2 = proc_table_newest(t, PID);
	assert_int_equal(g2->ident.start_time, 2000);
	assert_true(g1->frozen);
	assert_int_equal(proc_table_exec_check(t, PID), 2);
	proc_table_free(t);
}

static void test_miss_refresh(void **state)
{
	const char *root = fake_proc("miss");
	struct seen seen = { 0 };
	struct proc_table_hooks h = { .arg = &seen,
				      .mapping = on_mapping,
				      .captured = on_captured };
	struct proc_table *t = proc_table_new(root, &h);
	char maps[1024] = "", more[1024], maps_b[1024] = "", exe_a[512], exe_b[512];
	uint64_t ips[3] = { 0x400010, 0x10, 0xffffffff81000000ull };
	uint64_t lib[2] = { 0x400010, 0x600010 };
	struct proc_gen *g;
	uint16_t gen = 99;

	(void)state;
	snprintf(exe_a, sizeof(exe_a), "%s/bin_a", root);
	snprintf(exe_b, sizeof(exe_b), "%s/bin_b", root);
	xline(maps, sizeof(maps), 0x400000, exe_a);
	fake_image(root, PID, "bin_a", 1000, maps);
	assert_int_equal(proc_table_exec_check(t, PID), 0);
	g = proc_table_newest(t, PID);
	/* page zero and the kernel half are no code: no miss */
	assert_false(proc_table_maps_miss(t, PID, 0, ips, 3));
	assert_true(proc_table_maps_miss(t, PID, 0, lib, 2));
	assert_false(proc_table_maps_miss(t, PID, 1, lib, 2));	   /* not a generation */
	assert_false(proc_table_maps_miss(t, PID + 1, 0, lib, 2)); /* never met */
	/* a library dlopen'ed since: a re-read adds it, and only it */
	snprintf(more, sizeof(more), "%s", maps);
	xline(more, sizeof(more), 0x600000, "/lib/late.so");
	fake_image(root, PID, "bin_a", 1000, more);
	assert_int_equal(proc_table_refresh(t, PID, &gen), 1);
	assert_int_equal(gen, 0);
	assert_int_equal(g->nr_maps, 2);
	assert_int_equal(seen.mappings, 2);
	assert_string_equal(seen.last_path, "/lib/late.so");
	assert_int_equal(seen.again, 1);
	assert_false(proc_table_maps_miss(t, PID, 0, lib, 2));
	/* nothing new: nothing added, no mapping captured twice */
	assert_int_equal(proc_table_refresh(t, PID, &gen), 0);
	assert_int_equal(seen.mappings, 2);
	/* exec'd meanwhile: the refresh captures the new image */
	xline(maps_b, sizeof(maps_b), 0x400000, exe_b);
	fake_image(root, PID, "bin_b", 1000, maps_b);
	assert_int_equal(proc_table_refresh(t, PID, &gen), 1);
	assert_int_equal(gen, 1);
	assert_int_equal(g->nr_maps, 2); /* the old image's maps stay */
	assert_true(g->frozen);
	assert_int_equal(proc_table_refresh(t, PID, &gen), 0);
	assert_int_equal(gen, 1);
	/* gone: a re-read fails once, then the image is final */
	fake_exit(root, PID);
	assert_true(proc_table_refresh(t, PID, &gen) < 0);
	g = proc_table_newest(t, PID);
	assert_true(g->gone);
	assert_int_equal(proc_table_refresh(t, PID, &gen), -ESRCH);
	assert_false(proc_table_maps_miss(t, PID, 1, lib, 2));
	assert_int_equal(g->nr_maps, 1);
	/* a refresh of a pid never met captures it */
	xline(maps, sizeof(maps), 0x700000, "/lib/other.so");
	fake_image(root, PID + 1, "bin_a", 1000, maps);
	assert_int_equal(proc_table_refresh(t, PID + 1, &gen), 2);
	assert_int_equal(gen, 0);
	proc_table_free(t);
}

/* What symbolizing asks: the generation a sample was tagged with, and the
 * mapping of an address in it, re-read or captured late when missing. */
static void test_want_lookup(void **state)
{
	const char *root = fake_proc("lookup");
	struct proc_table *t = proc_table_new(root, NULL);
	char maps[1024] = "", more[1024], maps_b[1024] = "", exe_a[512], exe_b[512];
	struct proc_gen *g, *g0;
	struct proc_mapping *m;

	(void)state;
	snprintf(exe_a, sizeof(exe_a), "%s/bin_a", root);
	snprintf(exe_b, sizeof(exe_b), "%s/bin_b", root);
	xline(maps, sizeof(maps), 0x400000, exe_a);
	fake_image(root, PID, "bin_a", 1000, maps);
	/* never met: captured now, as generation 0 or the one asked for */
	g0 = proc_table_want(t, PID, 0, true);
	assert_non_null(g0);
	assert_int_equal(g0->gen, 0);
	assert_ptr_equal(proc_table_want(t, PID, 7, true), g0); /* newest: gen unused */
	/* a miss while the image is the same: re-read, found */
	snprintf(more, sizeof(more), "%s", maps);
	xline(more, sizeof(more), 0x600000, "/lib/late.so");
	fake_image(root, PID, "bin_a", 1000, more);
	g = g0;
	m = proc_table_lookup(t, &g, 0x600010);
	assert_non_null(m);
	assert_string_equal(m->path, "/lib/late.so");
	assert_ptr_equal(g, g0);
	/* an address in no mapping at all: nothing, still generation 0 */
	assert_null(proc_table_lookup(t, &g, 0x900000));
	assert_ptr_equal(g, g0);
	/* exec'd since: the address is the new image's, captured as the next
	 * generation; the old one keeps its maps */
	xline(maps_b, sizeof(maps_b), 0x800000, exe_b);
	fake_image(root, PID, "bin_b", 1000, maps_b);
	m = proc_table_lookup(t, &g, 0x800010);
	assert_non_null(m);
	assert_string_equal(m->path, exe_b);
	assert_int_equal(g->gen, 1);
	assert_true(g0->frozen);
	assert_int_equal(g0->nr_maps, 2);
	/* a frozen generation is not re-read */
	g = g0;
	assert_null(proc_table_lookup(t, &g, 0x800010));
	assert_ptr_equal(g, g0);
	/* a generation newer than any seen is captured late; an older one
	 * never seen stays unknown */
	g = proc_table_want(t, PID, 5, false);
	assert_non_null(g);
	assert_int_equal(g->gen, 5);
	assert_null(proc_table_want(t, PID, 3, false));
	assert_ptr_equal(proc_table_want(t, PID, 1, false), proc_table_gen(t, PID, 1));
	proc_table_free(t);
}

/* Maps larger than one read buffer: every line kept, none split. */
static void test_many_maps(void **state)
{
	const char *root = fake_proc("many");
	struct proc_table *t = proc_table_new(root, NULL);
	size_t cap = 4000 * 96, n = 4000;
	char *maps = calloc(1, cap);
	struct proc_gen *g;

	(void)state;
	assert_non_null(maps);
	for (size_t i = 0; i < n; i++)
		xline(maps, cap, 0x10000000 + i * 0x2000, "/usr/lib/libmany-with-a-long-name.so");
	fake_image(root, PID, "bin_a", 1000, maps);
	free(maps);
	assert_int_equal(proc_table_note(t, PID), 0);
	g = proc_table_newest(t, PID);
	assert_int_equal(g->nr_maps, n);
	assert_int_equal(g->maps[n - 1]->start, 0x10000000 + (n - 1) * 0x2000);
	assert_ptr_equal(g->maps[0]->path, g->maps[n - 1]->path); /* one copy */
	proc_table_free(t);
}

/* Every generation is visited: a pid's newest first. */
static void count_gen(void *arg, struct proc_gen *g)
{
	uint16_t *order = arg;

	order[order[0]++ + 1] = g->gen;
}

static void test_each(void **state)
{
	const char *root = fake_proc("each");
	struct proc_table *t = proc_table_new(root, NULL);
	char maps[256] = "";
	uint16_t order[8] = { 0 };

	(void)state;
	xline(maps, sizeof(maps), 0x400000, "/bin/x");
	fake_image(root, PID, "bin_a", 1000, maps);
	proc_table_exec_check(t, PID);
	fake_image(root, PID, "bin_b", 1000, maps);
	proc_table_exec_check(t, PID);
	proc_table_each(t, count_gen, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 0);
	proc_table_free(t);
	proc_table_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),	    cmocka_unit_test(test_deleted_exe),
		cmocka_unit_test(test_generations), cmocka_unit_test(test_miss_refresh),
		cmocka_unit_test(test_want_lookup), cmocka_unit_test(test_many_maps),
		cmocka_unit_test(test_each),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
