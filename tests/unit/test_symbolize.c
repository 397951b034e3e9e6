// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer tests on real processes built at test time (symfixtures/):
 * DWARF lines, inline frames, a stripped binary with a debuglink file, C++
 * templates, a dlopen'ed library at a random base, a stripped library
 * ([unknown] lib+0x..), perf maps (override, growth), a process that exits
 * before symbolization, kallsyms parsing and demangling.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "sym/demangle.h"
#include "output/output.h"
#include "fixture_proc.h"
#include "proc/follow.h"
#include "proc/table.h"
#include "profile/profile.h"
#include "pipeline_fixture.h"
#include "sym/kernel.h"
#include "proc/jvm_reply.h"
#include "sym/perfmap.h"
#include "sym/symbolizer.h"
#include "profile/view.h"

static const struct symbolizer_opts quiet_opts = { .quiet = true };

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static void start(struct fx_proc *p, const char *prog, const char *a1, const char *a2)
{
	assert_non_null(fx_build());
	assert_int_equal(fx_start(p, prog, a1, a2), 0);
}

static void test_symtab_and_lines(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	const struct proc_mapping *main_map;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	assert_int_equal(symbolizer_note_pid(s, (uint32_t)p.pid), 0);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "leaf_target"), false, &r);
	assert_int_equal(r.nr_frames, 1);
	assert_string_equal(r.frames[0].name, "leaf_target");
	assert_true(ends_with(r.frames[0].file, "fx_main.c"));
	assert_true(r.frames[0].line > 0);
	assert_non_null(r.map);
	assert_true(r.map->is_main);
	assert_true(ends_with(r.map->path, "/fx_main"));
	assert_int_equal(strlen(r.build_id), 40); /* sha1 build-id */
	{
		/* The same hex digits as binutils prints. */
		char cmd[PATH_MAX + 64], want[64] = "";
		FILE *f;

		snprintf(cmd, sizeof(cmd), "readelf -n %s/fx_main | awk '/Build ID/ {print $3}'",
			 fx_build());
		f = popen(cmd, "r");
		assert_non_null(f);
		assert_non_null(fgets(want, sizeof(want), f));
		pclose(f);
		want[strcspn(want, "\n")] = '\0';
		assert_string_equal(r.build_id, want);
	}
	main_map = proc_table_main_mapping(symbolizer_procs(s), (uint32_t)p.pid);
	assert_ptr_equal(main_map, r.map);
	fx_stop(&p);
	symbolizer_free(s);
}

/* The vDSO is no file: it is symbolized from our own copy. */
static void test_vdso(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	uint64_t a;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	a = fx_addr(&p, "vdso_clock_gettime");
	if (!a) {
		fx_stop(&p);
		symbolizer_free(s);
		skip();
	}
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, a + 4, false, &r);
	assert_non_null(strstr(r.frames[0].name, "clock_gettime"));
	assert_string_equal(r.map->path, "[vdso]");
	assert_true(r.build_id[0] != '\0');
	fx_stop(&p);
	symbolizer_free(s);
}

/* The return address of probe() lies in inl_helper, inlined into
 * outer_with_inline: two frames, innermost first. */
static void test_inline_frames(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "probe_ret") - 1, false, &r);
	assert_true(r.nr_frames >= 2);
	assert_string_equal(r.frames[0].name, "inl_helper");
	assert_string_equal(r.frames[1].name, "outer_with_inline");
	assert_true(r.frames[0].line > 0 && r.frames[1].line > 0);
	assert_true(r.has_inline);
	fx_stop(&p);
	symbolizer_free(s);
}

/* No symbols in the binary at all: names and lines come from the
 * .gnu_debuglink file beside it. */
static void test_stripped_debuglink(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;

	(void)state;
	start(&p, "fx_stripped", NULL, NULL);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "leaf_target"), false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	assert_true(ends_with(r.frames[0].file, "fx_main.c"));
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "probe_ret") - 1, false, &r);
	assert_true(r.nr_frames >= 2);
	assert_string_equal(r.frames[0].name, "inl_helper");
	fx_stop(&p);
	symbolizer_free(s);
}

/* Stripped, no debuglink: the debug file is found by build-id in the
 * debug root (here a private one standing in for /usr/lib/debug). */
static void test_build_id_debug_dir(void **state)
{
	char root[PATH_MAX];
	struct symbolizer_opts o = { .quiet = true, .debug_path = root };
	struct symbolizer *s;
	struct fx_proc p;
	struct sym_result r;

	(void)state;
	snprintf(root, sizeof(root), "%s/debugroot", fx_build());
	s = symbolizer_new(&o);
	start(&p, "fx_buildid", NULL, NULL);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "leaf_target"), false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	assert_true(ends_with(r.frames[0].file, "fx_main.c"));
	fx_stop(&p);
	symbolizer_free(s);
}

static void test_cpp_templates(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;

	(void)state;
	start(&p, "fx_cpp", NULL, NULL);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "twice_int"), false, &r);
	assert_string_equal(r.frames[0].name, "int twice<int>(int)");
	assert_true(!strncmp(r.frames[0].system_name, "_Z", 2));
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "box_get"), false, &r);
	assert_non_null(strstr(r.frames[0].name, "ns::Box<double>::get("));
	fx_stop(&p);
	symbolizer_free(s);
}

/* A library dlopen'ed after the pid was first noted: the miss re-reads the
 * maps. Its base is random (ASLR), the answer must not depend on it. */
static void test_dlopen_random_base(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p, q;
	struct sym_result r;
	char lib[PATH_MAX];
	size_t files;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libfx.so", fx_build());
	start(&p, "fx_main", "dlopen", lib);
	start(&q, "fx_main", "dlopen", lib);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	files = symbolizer_nr_files(s);
	assert_true(files >= 3); /* fx_main, libfx.so, libc, ld.so */
	/* The same files in a second process: cached by build-id, not
	 * opened again. */
	symbolizer_note_pid(s, (uint32_t)q.pid);
	assert_int_equal(symbolizer_nr_files(s), files);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "lib_func"), false, &r);
	assert_string_equal(r.frames[0].name, "lib_func");
	assert_true(ends_with(r.map->path, "/libfx.so"));
	assert_false(r.map->is_main);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "lib_static"), false, &r);
	assert_string_equal(r.frames[0].name, "lib_static");
	/* The second process maps it elsewhere; same answer. */
	symbolizer_resolve(s, (uint32_t)q.pid, fx_addr(&q, "lib_static"), false, &r);
	assert_string_equal(r.frames[0].name, "lib_static");
	assert_int_equal(r.map->pid, (uint32_t)q.pid);
	fx_stop(&p);
	fx_stop(&q);
	symbolizer_free(s);
}

static void test_unknown_in_stripped_lib(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	char lib[PATH_MAX];

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libfxstrip.so", fx_build());
	start(&p, "fx_main", "dlopen", lib);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "lib_static"), false, &r);
	assert_int_equal(r.nr_frames, 1);
	assert_true(!strncmp(r.frames[0].name, "[unknown] libfxstrip.so+0x", 26));
	/* Unmapped address, unknown pid: never empty, never a crash. */
	symbolizer_resolve(s, (uint32_t)p.pid, 0x10, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	symbolizer_resolve(s, 0x7ffffff0, 0x401000, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	fx_stop(&p);
	symbolizer_free(s);
}

/* Maps captured on first sight: the process is gone when we resolve. */
static void test_process_exited(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	char lib[PATH_MAX], path[64];
	uint32_t pid;
	uint64_t leaf, libf;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libfx.so", fx_build());
	start(&p, "fx_stripped", "dlopen", lib);
	pid = (uint32_t)p.pid;
	leaf = fx_addr(&p, "leaf_target");
	libf = fx_addr(&p, "lib_func");
	assert_int_equal(symbolizer_note_pid(s, pid), 0);
	fx_stop(&p);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	assert_int_not_equal(access(path, F_OK), 0);
	symbolizer_resolve(s, pid, leaf, false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	symbolizer_resolve(s, pid, libf, false, &r);
	assert_string_equal(r.frames[0].name, "lib_func");
	symbolizer_free(s);
}

/* How many of our mappings are of a file whose path ends in name: libdw
 * maps the ELF files it reads. */
static int mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += ends_with(line, name);
	}
	fclose(f);
	return n;
}

/*
 * symbolizer_trim ends libdw's sessions (the file's mappings go with them)
 * and a later lookup reopens the file, even after the process is gone;
 * names resolved before the trim stay valid.
 */
static void test_trim_reopens(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r, again;
	uint32_t pid;
	uint64_t inl, leaf;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	pid = (uint32_t)p.pid;
	inl = fx_addr(&p, "probe_ret") - 1;
	leaf = fx_addr(&p, "leaf_target");
	assert_int_equal(symbolizer_note_pid(s, pid), 0);
	symbolizer_resolve(s, pid, inl, false, &r);
	assert_true(r.nr_frames >= 2);
	assert_true(mapped("/fx_main") > 0);
	symbolizer_trim(s);
	assert_int_equal(mapped("/fx_main"), 0);
	fx_stop(&p);

	symbolizer_resolve(s, pid, leaf, false, &again);
	assert_int_equal(again.nr_frames, 1);
	assert_string_equal(again.frames[0].name, "leaf_target");
	assert_true(ends_with(again.frames[0].file, "fx_main.c"));
	assert_true(again.frames[0].line > 0);
	assert_true(mapped("/fx_main") > 0);

	/* the same answer as before the trim, from the reopened file; the
	 * earlier result's strings are still readable (ASan would say) */
	symbolizer_resolve(s, pid, inl, false, &again);
	assert_int_equal(again.nr_frames, r.nr_frames);
	for (unsigned int i = 0; i < r.nr_frames; i++) {
		assert_string_equal(again.frames[i].name, r.frames[i].name);
		assert_string_equal(again.frames[i].file, r.frames[i].file);
		assert_int_equal(again.frames[i].line, r.frames[i].line);
	}
	assert_string_equal(r.frames[0].name, "inl_helper");
	symbolizer_free(s);
}

static void append_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A library replaced on disk while mapped (a package upgrade writes a new
 * file and renames it over the old): its path now names another file, so
 * the symbols come from the mapped one, through map_files (root only).
 */
static void test_replaced_lib(void **state)
{
	struct symbolizer *s;
	struct fx_proc p;
	struct sym_result r;
	char lib[PATH_MAX], copy[PATH_MAX], tmp[PATH_MAX + 8], cmd[3 * PATH_MAX];

	(void)state;
	if (geteuid() != 0)
		skip(); /* map_files needs CAP_SYS_ADMIN */
	s = symbolizer_new(&quiet_opts);
	snprintf(lib, sizeof(lib), "%s/libfx.so", fx_build());
	snprintf(copy, sizeof(copy), "%s/libfx-replaced.so", fx_build());
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", lib, copy);
	assert_int_equal(system(cmd), 0);
	start(&p, "fx_main", "dlopen", copy);
	/* Renamed over it: not an ELF file at all, another inode. */
	snprintf(tmp, sizeof(tmp), "%s.new", copy);
	append_file(tmp, "not the library any more\n");
	assert_int_equal(rename(tmp, copy), 0);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, fx_addr(&p, "lib_func"), false, &r);
	assert_string_equal(r.frames[0].name, "lib_func");
	assert_true(ends_with(r.map->path, "/libfx-replaced.so"));
	fx_stop(&p);
	unlink(copy);
	symbolizer_free(s);
}

static void test_perf_map(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	char path[64], buf[256];
	uint64_t jit;

	(void)state;
	start(&p, "fx_main", "jit", NULL);
	jit = fx_addr(&p, "jit");
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", p.pid);
	/* Hex without 0x; the name is the rest of the line, spaces and all;
	 * a later entry overrides an earlier overlapping one. */
	snprintf(buf, sizeof(buf),
		 "%llx 100 py::work:/app/x.py\n%llx 40 _Z3barv\n"
		 "%llx 10 LazyCompile:*hot loop\n",
		 (unsigned long long)jit, (unsigned long long)jit + 0x100,
		 (unsigned long long)jit + 0x20);
	unlink(path);
	append_file(path, buf);
	symbolizer_note_pid(s, (uint32_t)p.pid);
	symbolizer_resolve(s, (uint32_t)p.pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "py::work:/app/x.py");
	symbolizer_resolve(s, (uint32_t)p.pid, jit + 0x24, false, &r);
	assert_string_equal(r.frames[0].name, "LazyCompile:*hot loop");
	symbolizer_resolve(s, (uint32_t)p.pid, jit + 0x110, false, &r);
	assert_string_equal(r.frames[0].name, "bar()");
	/* The JIT keeps appending while we run. */
	snprintf(buf, sizeof(buf), "%llx 20 late_entry\n", (unsigned long long)jit + 0x200);
	append_file(path, buf);
	symbolizer_resolve(s, (uint32_t)p.pid, jit + 0x210, false, &r);
	assert_string_equal(r.frames[0].name, "late_entry");
	symbolizer_resolve(s, (uint32_t)p.pid, jit + 0x300, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	unlink(path);
	fx_stop(&p);
	symbolizer_free(s);
}

static void count_unnamed(void *arg, uint32_t pid, const char *exe, bool has_map)
{
	int *n = arg;

	(void)pid;
	assert_true(ends_with(exe, "/fx_main"));
	assert_false(has_map);
	(*n)++;
}

/*
 * A perf map that appears only after the process is gone (a JVM with
 * -XX:+DumpPerfMapAtExit writes it at exit), is then written anew (jcmd
 * Compiler.perfmap truncates and rewrites it) and replaced by another file:
 * each is read at the next recheck, through the root held since first
 * sight, and the newest entry wins.
 */
static void test_perf_map_after_exit(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct fx_proc p;
	struct sym_result r;
	char path[64], tmp[80], buf[256];
	uint32_t pid;
	uint64_t jit;
	int n = 0;

	(void)state;
	start(&p, "fx_main", "jit", NULL);
	jit = fx_addr(&p, "jit");
	pid = (uint32_t)p.pid;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	unlink(path);
	symbolizer_note_pid(s, pid);
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	assert_int_equal(symbolizer_jit_unnamed(s, count_unnamed, &n), 1);
	assert_int_equal(n, 1);
	fx_stop(&p);
	snprintf(buf, sizeof(buf), "%llx 100 Interpreter\n%llx 10 LFoo;::hot\n",
		 (unsigned long long)jit, (unsigned long long)jit);
	append_file(path, buf);
	/* Not looked for again before a recheck. */
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	symbolizer_recheck_jit(s);
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "LFoo;::hot");
	symbolizer_resolve(s, pid, jit + 0x40, false, &r);
	assert_string_equal(r.frames[0].name, "Interpreter");
	/* Written anew, longer than before: read from the start. */
	assert_int_equal(truncate(path, 0), 0);
	snprintf(buf, sizeof(buf),
		 "%llx 20 LFoo;::recompiled_with_a_longer_name\n%llx 8 LBar;::x\n",
		 (unsigned long long)jit, (unsigned long long)jit + 0x80);
	append_file(path, buf);
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "LFoo;::recompiled_with_a_longer_name");
	symbolizer_resolve(s, pid, jit + 0x84, false, &r);
	assert_string_equal(r.frames[0].name, "LBar;::x");
	/* Older entries stay where nothing newer covers them. */
	symbolizer_resolve(s, pid, jit + 0x40, false, &r);
	assert_string_equal(r.frames[0].name, "Interpreter");
	/* Replaced by another file (written aside, renamed over it). */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	unlink(tmp);
	snprintf(buf, sizeof(buf), "%llx 10 LBaz;::replaced\n", (unsigned long long)jit);
	append_file(tmp, buf);
	assert_int_equal(rename(tmp, path), 0);
	symbolizer_recheck_jit(s);
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "LBaz;::replaced");
	unlink(path);
	symbolizer_free(s);
}

static void add_at(struct tpipe *prof, uint32_t pid, uint64_t t_ns, uint64_t *ips, uint16_t n);

/*
 * A stack met before its JIT wrote the perf map (a JVM with
 * -XX:+DumpPerfMapAtExit writes it at exit): a live view, built before the
 * map existed, names the location at its first build after the map
 * appeared, with the counts it had. Before, it stayed [unknown] for the
 * view's life, and so did every later sample of that stack.
 */
static void test_view_names_jit_late(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *prof = tp_new(&meta, s);
	struct func_share top[4];
	struct fx_proc p;
	char path[64], buf[128];
	uint64_t ips[2], jit;
	uint32_t pid;

	(void)state;
	assert_non_null(prof);
	start(&p, "fx_main", "jit", NULL);
	pid = (uint32_t)p.pid;
	jit = fx_addr(&p, "jit");
	ips[0] = jit + 4;
	ips[1] = fx_addr(&p, "probe_ret");
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	unlink(path);
	for (int i = 0; i < 5; i++)
		add_at(prof, pid, 1000 + (uint64_t)i, ips, 2);
	assert_true(tp_top(prof, top, 4) >= 1);
	assert_string_equal(top[0].name, "[unknown]");
	assert_int_equal(top[0].self, 5);
	for (int i = 0; i < 3; i++)
		add_at(prof, pid, 2000 + (uint64_t)i, ips, 2);
	fx_stop(&p);
	snprintf(buf, sizeof(buf), "%llx 40 LHot;::hotA\n", (unsigned long long)jit);
	append_file(path, buf);
	assert_true(tp_top(prof, top, 4) >= 1);
	assert_string_equal(top[0].name, "LHot;::hotA");
	assert_int_equal(top[0].self, 8);
	assert_int_equal(tp_total(prof), 8);
	unlink(path);
	tp_free(prof);
	symbolizer_free(s);
}

static void test_perf_map_parser(void **state)
{
	struct sym_perfmap *m = sym_perfmap_open(-1);
	static const char junk[] = "zz 10 bad\n1000\n1000 0 empty\n0x2000 10 with0x\n"
				   "3000 ffffffffffffffff wrap\n4000 10 split";

	(void)state;
	assert_non_null(m);
	assert_int_equal(sym_perfmap_feed(m, junk, sizeof(junk) - 1), 0);
	assert_null(sym_perfmap_lookup(m, 0x1000));
	assert_string_equal(sym_perfmap_lookup(m, 0x2008), "with0x");
	assert_null(sym_perfmap_lookup(m, 0x3000));
	/* "split" has no newline yet: a JIT mid-write. */
	assert_null(sym_perfmap_lookup(m, 0x4000));
	assert_int_equal(sym_perfmap_feed(m, "_name\n", 6), 0);
	assert_string_equal(sym_perfmap_lookup(m, 0x4000), "split_name");
	sym_perfmap_free(m);
}

/*
 * A map written anew the way a JVM asked for it again writes it (the same
 * file truncated and rewritten, longer, its first lines the same, what was
 * read up to the old end different): read again from its start, and the
 * entries read again as they were kept once.
 */
static void test_perf_map_rewritten_same_head(void **state)
{
	char path[] = "/tmp/skyprof-pm-XXXXXX", buf[4096];
	struct sym_perfmap *m;
	size_t len = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	for (int i = 0; i < 20; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%x 10 int Same.m%d()\n",
					0x1000 + 0x10 * i, i);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	m = sym_perfmap_open(open(path, O_RDONLY));
	assert_string_equal(sym_perfmap_lookup(m, 0x1000), "int Same.m0()");
	assert_string_equal(sym_perfmap_lookup(m, 0x1130), "int Same.m19()");
	assert_int_equal(sym_perfmap_nr(m), 20);
	/* rewritten: same head, m19 moved, one method more */
	assert_int_equal(ftruncate(fd, 0), 0);
	len = 0;
	for (int i = 0; i < 19; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%x 10 int Same.m%d()\n",
					0x1000 + 0x10 * i, i);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"1130 10 int Other.replaced()\n2000 10 int Same.m19()\n"
				"3000 10 int Late.compiled()\n");
	assert_int_equal(pwrite(fd, buf, len, 0), (ssize_t)len);
	assert_string_equal(sym_perfmap_lookup(m, 0x1130), "int Other.replaced()");
	assert_string_equal(sym_perfmap_lookup(m, 0x2000), "int Same.m19()");
	assert_string_equal(sym_perfmap_lookup(m, 0x3000), "int Late.compiled()");
	assert_string_equal(sym_perfmap_lookup(m, 0x1000), "int Same.m0()");
	/* 20 read once, 3 new */
	assert_int_equal(sym_perfmap_nr(m), 23);
	/* added entries (Compiler.codelist's), the same once */
	assert_int_equal(sym_perfmap_add(m, 0x4000, 0x4100, "long Hot.hotA(long)"), 0);
	assert_int_equal(sym_perfmap_add(m, 0x4000, 0x4100, "long Hot.hotA(long)"), 0);
	assert_int_equal(sym_perfmap_add(m, 0x5000, 0x5000, "empty"), 0);
	assert_string_equal(sym_perfmap_lookup(m, 0x40ff), "long Hot.hotA(long)");
	assert_null(sym_perfmap_lookup(m, 0x5000));
	assert_int_equal(sym_perfmap_nr(m), 24);
	close(fd);
	unlink(path);
	sym_perfmap_free(m);
}

static void count_jit(void *arg, const struct sym_jit_proc *p)
{
	int *n = arg;

	n[0]++;
	n[1] += p->named;
	n[2] += p->unnamed;
}

/*
 * A JVM asked for its perf map (proc/jvm_ask.h): the map read at once,
 * again from its start when it is written anew, and a JDK 11's listed
 * methods taken as its names; the process counted as one with named JIT
 * frames.
 */
static void test_jit_answers(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct jvm_method m[2];
	struct fx_proc p;
	struct sym_result r;
	char path[64], buf[256];
	uint32_t pid;
	uint64_t jit;
	int n[3] = { 0 };

	(void)state;
	start(&p, "fx_main", "jit", NULL);
	jit = fx_addr(&p, "jit");
	pid = (uint32_t)p.pid;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	unlink(path);
	snprintf(buf, sizeof(buf), "%llx 40 void Asked.first()\n", (unsigned long long)jit);
	append_file(path, buf);
	symbolizer_jit_reread(s, pid);
	/* rewritten (same size) before any lookup: the reread had read it */
	assert_int_equal(truncate(path, 0), 0);
	snprintf(buf, sizeof(buf), "%llx 40 void Asked.again()\n", (unsigned long long)jit + 0x40);
	append_file(path, buf);
	symbolizer_resolve(s, pid, jit + 4, false, &r);
	assert_string_equal(r.frames[0].name, "void Asked.first()");
	symbolizer_jit_reread(s, pid);
	symbolizer_resolve(s, pid, jit + 0x44, false, &r);
	assert_string_equal(r.frames[0].name, "void Asked.again()");
	m[0] = (struct jvm_method){ jit + 0x80, jit + 0x90, "long Hot.hotA(long)" };
	m[1] = (struct jvm_method){ jit + 0x90, jit + 0xa0, "long Hot.hotB(long)" };
	assert_int_equal(symbolizer_jit_add(s, pid, m, 2), 0);
	symbolizer_resolve(s, pid, jit + 0x94, false, &r);
	assert_string_equal(r.frames[0].name, "long Hot.hotB(long)");
	symbolizer_resolve(s, pid, jit + 0x200, false, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	assert_true(symbolizer_jit_unnamed_at(s, pid, jit + 0x200));
	assert_false(symbolizer_jit_unnamed_at(s, pid, jit + 0x94));
	assert_false(symbolizer_jit_unnamed_at(s, pid, fx_addr(&p, "leaf_target")));
	symbolizer_jit_each(s, count_jit, n);
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 1);
	assert_int_equal(n[2], 1);
	unlink(path);
	fx_stop(&p);
	symbolizer_free(s);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/skyprof-ksyms-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_kallsyms(void **state)
{
	char *path = write_tmp("ffffffff81000000 T _stext\n"
			       "ffffffff81000100 T do_syscall_64\n"
			       "ffffffff81000180 d some_data\n"
			       "ffffffff81000200 t helper\n"
			       "ffffffffc0a01000 t ext4_write\t[ext4]\n"
			       "garbage line\n");
	struct sym_kernel *k = sym_kernel_load(path, true);

	(void)state;
	assert_non_null(k);
	assert_int_equal(sym_kernel_count(k), 4);
	assert_string_equal(sym_kernel_lookup(k, 0xffffffff81000150), "do_syscall_64");
	/* Data symbols do not split functions. */
	assert_string_equal(sym_kernel_lookup(k, 0xffffffff81000190), "do_syscall_64");
	assert_string_equal(sym_kernel_lookup(k, 0xffffffffc0a01010), "ext4_write [ext4]");
	assert_null(sym_kernel_lookup(k, 0x1000));
	/* Far past the last symbol: not that symbol. */
	assert_null(sym_kernel_lookup(k, 0xffffffffc0b00000));
	sym_kernel_free(k);
	unlink(path);
}

/* kptr_restrict: all zeros. Kernel frames resolve as [unknown]. */
static void test_kallsyms_restricted(void **state)
{
	char *path = write_tmp("0000000000000000 T _stext\n0000000000000000 t foo\n");
	struct symbolizer_opts o = { .quiet = true, .kallsyms = path };
	struct symbolizer *s = symbolizer_new(&o);
	struct sym_result r;

	(void)state;
	symbolizer_resolve(s, 0, 0xffffffff81000150, true, &r);
	assert_string_equal(r.frames[0].name, "[unknown]");
	assert_null(r.map);
	symbolizer_free(s);
	unlink(path);
}

/* The host's own kallsyms: a symbol read from it resolves to itself. */
static void test_kallsyms_host(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct sym_result r;
	char line[512], name[256] = "";
	unsigned long long a = 0;
	char t;

	(void)state;
	if (!f) {
		symbolizer_free(s);
		skip();
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && a &&
		    !strcmp(name, "schedule"))
			break;
	fclose(f);
	if (strcmp(name, "schedule") || !a) {
		symbolizer_free(s);
		skip();
	}
	symbolizer_resolve(s, 0, a + 1, true, &r);
	assert_string_equal(r.frames[0].name, "schedule");
	symbolizer_free(s);
}

static void test_demangle(void **state)
{
	char *d;

	(void)state;
	d = sym_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi");
	assert_non_null(d);
	assert_string_equal(d, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	free(d);
	/* Rust legacy: Itanium-shaped with a hash, which is dropped. */
	d = sym_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	assert_non_null(d);
	assert_string_equal(d, "core::fmt::write");
	free(d);
	/* Rust v0. */
	d = sym_demangle("_RNvCs15kBYyAo9fc_7mycrate7example");
	assert_non_null(d);
	assert_string_equal(d, "mycrate::example");
	free(d);
	assert_null(sym_demangle("main"));
	assert_null(sym_demangle("_Zgarbage"));
	assert_null(sym_demangle(""));
}

/* The whole path: samples -> profile -> view with return addresses
 * adjusted and inline frames expanded -> top functions. */
static void test_profile_symbolized(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *prof = tp_new(&meta, s);
	struct func_share top[8];
	struct fx_proc p;
	struct sp_sample smp = { 0 };
	uint64_t ips[2];
	size_t n;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	/* leaf_target called from the inlined probe() site. */
	ips[0] = fx_addr(&p, "leaf_target");
	ips[1] = fx_addr(&p, "probe_ret");
	smp.tgid = smp.tid = (uint32_t)p.pid;
	smp.weight = 1;
	strcpy(smp.comm, "fx_main");
	smp.nr_user = 2;
	smp.user_ips = ips;
	for (int i = 0; i < 10; i++)
		assert_int_equal(tp_add(prof, &smp), 0);
	fx_stop(&p); /* noted on first sight: exiting is fine */
	n = tp_top(prof, top, 8);
	assert_int_equal(n, 3);
	assert_string_equal(top[0].name, "leaf_target");
	assert_int_equal(top[0].self, 10);
	for (size_t i = 1; i < n; i++) {
		assert_int_equal(top[i].self, 0);
		assert_int_equal(top[i].total, 10);
		assert_true(!strcmp(top[i].name, "inl_helper") ||
			    !strcmp(top[i].name, "outer_with_inline"));
	}
	tp_free(prof);
	symbolizer_free(s);
}

/* Has the fixture dlopen its library now; reads the new addresses. */
static void fx_dlopen_now(struct fx_proc *p)
{
	char line[256];

	assert_int_equal(write(p->in_fd, "\n", 1), 1);
	while (fgets(line, sizeof(line), p->out) && strncmp(line, "ready", 5)) {
		unsigned long long a;
		char name[32];

		if (sscanf(line, "%31s %llx", name, &a) == 2 && p->nr < FX_MAX_ADDRS) {
			snprintf(p->names[p->nr], sizeof(p->names[0]), "%s", name);
			p->addrs[p->nr++] = a;
		}
	}
}

static void add_at(struct tpipe *prof, uint32_t pid, uint64_t t_ns, uint64_t *ips, uint16_t n)
{
	struct sp_sample smp = { 0 };

	smp.tgid = smp.tid = pid;
	smp.time_ns = t_ns;
	smp.weight = 1;
	strcpy(smp.comm, "fx_main");
	smp.nr_user = n;
	smp.user_ips = ips;
	assert_int_equal(tp_add(prof, &smp), 0);
}

/*
 * A library dlopen'ed after the process's first sample, by a process that
 * exits before symbolization (as `record -- CMD` sees it): its maps must be
 * re-read while samples come in, as nothing can read them afterwards.
 */
static void test_dlopen_late_exited(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *prof = tp_new(&meta, s);
	const struct follow_stats *st = ingest_follow_stats(prof->in);
	struct func_share top[8];
	struct fx_proc p;
	struct sym_result r;
	char lib[PATH_MAX];
	uint64_t ips[2];
	uint32_t pid;
	size_t n;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libfx.so", fx_build());
	start(&p, "fx_main", "dlopen-late", lib);
	pid = (uint32_t)p.pid;
	ips[0] = fx_addr(&p, "leaf_target");
	add_at(prof, pid, 1000000, ips, 1); /* first sight: the maps without the library */
	assert_int_equal(st->misses, 0);
	fx_dlopen_now(&p);
	ips[0] = fx_addr(&p, "lib_func");
	ips[1] = fx_addr(&p, "leaf_target");
	assert_int_not_equal(ips[0], 0);
	add_at(prof, pid, 2000000, ips, 2);
	assert_int_equal(st->misses, 1);
	assert_int_equal(st->rereads, 1);
	assert_true(st->found >= 1);
	/* The same stack again is no new stack: no check, no re-read. */
	add_at(prof, pid, 3000000, ips, 2);
	assert_int_equal(st->misses, 1);
	fx_stop(&p);
	symbolizer_resolve_gen(s, pid, 0, ips[0], false, &r);
	assert_string_equal(r.frames[0].name, "lib_func");
	assert_true(ends_with(r.map->path, "/libfx.so"));
	n = tp_top(prof, top, 8);
	assert_true(n >= 1);
	assert_string_equal(top[0].name, "lib_func");
	assert_int_equal(top[0].self, 2);
	tp_free(prof);
	symbolizer_free(s);
}

/*
 * Misses that find nothing (a frame pointer into nowhere) back off: a miss
 * inside the interval waits, and runs at the process's first sample after
 * it, not at once and not never.
 */
static void test_miss_backoff(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *prof = tp_new(&meta, s);
	const struct follow_stats *st = ingest_follow_stats(prof->in);
	struct fx_proc p;
	uint64_t ips[2];
	uint32_t pid;

	(void)state;
	start(&p, "fx_main", NULL, NULL);
	pid = (uint32_t)p.pid;
	ips[0] = fx_addr(&p, "leaf_target");
	ips[1] = 0x5000; /* in no mapping */
	add_at(prof, pid, 1000000, ips, 2);
	assert_int_equal(st->misses, 1);
	assert_int_equal(st->rereads, 1);
	assert_int_equal(st->found, 0);
	ips[1] = 0x6000; /* a new stack, 1 ms later: waits */
	add_at(prof, pid, 2000000, ips, 2);
	assert_int_equal(st->misses, 2);
	assert_int_equal(st->rereads, 1);
	add_at(prof, pid, 3000000, ips, 1); /* still inside the interval */
	assert_int_equal(st->rereads, 1);
	add_at(prof, pid, 100000000, ips, 1); /* past it: the waiting re-read runs */
	assert_int_equal(st->rereads, 2);
	/* Addresses outside user code (page zero, kernel half) are no miss. */
	ips[1] = 0x10;
	add_at(prof, pid, 200000000, ips, 2);
	ips[1] = 0xffffffff81000000ull;
	add_at(prof, pid, 300000000, ips, 2);
	assert_int_equal(st->misses, 2);
	fx_stop(&p);
	tp_free(prof);
	symbolizer_free(s);
}

/*
 * Following without a symbolizer (the agent's reader): generations by the
 * image's identity, the one at follow_note being 0, an exec a new one,
 * reported once.
 */
static void test_follow_ident(void **state)
{
	struct follow *f = follow_new(NULL);
	char *argv[] = { "sh", "-c", "echo ready; read x; exec sleep 30", NULL };
	struct sp_sample smp = { 0 };
	char path[64], exe[PATH_MAX];
	struct fx_proc p;
	ssize_t n = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(fx_spawn(&p, argv), 0);
	assert_int_equal(follow_note(f, (uint32_t)p.pid), 0);
	smp.tgid = smp.tid = (uint32_t)p.pid;
	smp.time_ns = 5000000000ull;
	strcpy(smp.comm, "sh");
	assert_int_equal(follow_sample(f, &smp), 0);
	assert_int_equal(write(p.in_fd, "\n", 1), 1);
	snprintf(path, sizeof(path), "/proc/%d/exe", p.pid);
	for (int i = 0; i < 500; i++) {
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0 && (exe[n] = '\0', ends_with(exe, "/sleep")))
			break;
		usleep(10000);
	}
	assert_true(n > 0 && ends_with(exe, "/sleep"));
	strcpy(smp.comm, "sleep"); /* the exec renamed it: checked at once */
	smp.time_ns += 1000;
	assert_int_equal(follow_sample(f, &smp), 1);
	smp.time_ns += 1000;
	assert_int_equal(follow_sample(f, &smp), 1);
	/* Another process, first seen at a sample: its image then is 0. */
	smp.tgid = smp.tid = (uint32_t)getpid();
	assert_int_equal(follow_sample(f, &smp), 0);
	kill(p.pid, SIGKILL);
	fx_stop(&p);
	follow_free(f);
}

/* The child of pid (unshare --fork runs the payload as its child). */
static pid_t child_of(pid_t pid)
{
	char path[64];
	long c = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	for (int tries = 0; tries < 100 && !c; tries++) {
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%ld", &c) != 1)
				c = 0;
			fclose(f);
		}
		if (!c)
			usleep(10000);
	}
	return (pid_t)c;
}

/*
 * A container: its own mount and pid namespaces, pivot_root'ed into a tmpfs
 * that exists only in its mount namespace, so /proc/PID/maps names the binary
 * /bin/fx, a path that means nothing on the host, and the JIT map is
 * /tmp/perf-1.map inside it (1 being its namespace pid). Both must be found
 * through /proc/PID/root.
 */
static void test_container(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	char root[256], script[2048], map[64], line[128];
	char *argv[] = { "unshare", "--mount", "--pid", "--fork", "sh", "-c", script, NULL };
	struct fx_proc p;
	struct sym_result r;
	uint64_t jit;
	pid_t inner;

	(void)state;
	/* Namespaces may be denied (a sandboxed CI): that is a skip, not a
	 * symbolizer failure. */
	if (geteuid() != 0 || system("command -v unshare pivot_root >/dev/null 2>&1") ||
	    system("unshare --mount --pid --fork true >/dev/null 2>&1")) {
		symbolizer_free(s);
		skip();
	}
	snprintf(root, sizeof(root), "%s/croot", fx_build());
	assert_int_equal(mkdir(root, 0755), 0);
	snprintf(script, sizeof(script),
		 "mount -t tmpfs none %s && mkdir %s/bin %s/tmp %s/old && "
		 "cp %s/fx_static %s/bin/fx && cd %s && pivot_root . old && exec /bin/fx jit",
		 root, root, root, root, fx_build(), root, root);
	assert_int_equal(fx_spawn(&p, argv), 0);
	assert_int_equal(fx_addr(&p, "nspid"), 1);
	inner = child_of(p.pid);
	assert_true(inner > 0);
	jit = fx_addr(&p, "jit");
	snprintf(map, sizeof(map), "/proc/%d/root/tmp/perf-1.map", inner);
	snprintf(line, sizeof(line), "%llx 80 jit_in_container\n", (unsigned long long)jit);
	append_file(map, line);
	assert_int_equal(symbolizer_note_pid(s, (uint32_t)inner), 0);
	symbolizer_resolve(s, (uint32_t)inner, fx_addr(&p, "leaf_target"), false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	assert_string_equal(r.map->path, "/bin/fx");
	assert_true(r.map->is_main);
	symbolizer_resolve(s, (uint32_t)inner, jit + 8, false, &r);
	assert_string_equal(r.frames[0].name, "jit_in_container");
	fx_stop(&p);
	symbolizer_free(s);
}

/*
 * Real symbols end to end: a symbolized profile written as pprof and read
 * by go tool pprof: function names, the main binary as mapping 1 with its
 * build id, inline frames as extra lines of one location.
 */
static void test_symbolized_pprof_go(void **state)
{
	struct symbolizer *s = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *prof = tp_new(&meta, s);
	char path[PATH_MAX], cmd[PATH_MAX * 4], line[512], lib[PATH_MAX];
	struct sp_sample smp = { 0 };
	struct fx_proc p;
	uint64_t ips[3];
	bool main_first = false, inl = false, libline = false;
	const struct proc_mapping *mm;
	struct sym_result r;
	FILE *f;

	(void)state;
	if (system("command -v go >/dev/null 2>&1")) {
		tp_free(prof);
		symbolizer_free(s);
		skip();
	}
	snprintf(lib, sizeof(lib), "%s/libfx.so", fx_build());
	start(&p, "fx_main", "dlopen", lib);
	ips[0] = fx_addr(&p, "lib_func");
	ips[1] = fx_addr(&p, "probe_ret");
	ips[2] = fx_addr(&p, "leaf_target") + 1;
	smp.tgid = smp.tid = (uint32_t)p.pid;
	smp.weight = 1;
	strcpy(smp.comm, "fx_main");
	smp.nr_user = 3;
	smp.user_ips = ips;
	assert_int_equal(tp_add(prof, &smp), 0);
	mm = proc_table_main_mapping(symbolizer_procs(s), (uint32_t)p.pid);
	assert_non_null(mm);
	symbolizer_resolve(s, (uint32_t)p.pid, mm->start, false, &r);
	assert_ptr_equal(r.map, mm);
	fx_stop(&p);
	snprintf(path, sizeof(path), "%s/sym.pb.gz", fx_build());
	assert_int_equal(tp_write(prof, path, OUTPUT_PPROF), 0);
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/gocache go tool pprof -raw %s 2>&1",
		 fx_build(), fx_build(), path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "1: ", 3) && strstr(line, "/fx_main ") &&
		    strstr(line, r.build_id))
			main_first = true;
		if (strstr(line, " inl_helper "))
			inl = true;
		if (strstr(line, " lib_func ") && strstr(line, "fx_lib.c"))
			libline = true;
	}
	assert_int_equal(pclose(f), 0);
	assert_true(main_first);
	assert_true(inl);
	assert_true(libline);
	tp_free(prof);
	symbolizer_free(s);
}

static int teardown_all(void **state)
{
	(void)state;
	fx_cleanup();
	return 0;
}

/*
 * Exec generations, on a /proc built by hand (proc_root) so the "exec" is
 * exact: pid 4242 first runs fx_main, then "execs" fx_cpp mapped so that
 * twice<int> sits at the very address leaf_target had. Samples before and
 * after must keep their own binary, in the symbolizer (generations), in a
 * profile that tracks execs itself (record, top) and in one whose caller
 * tags the generation (the agent's drain side) merged into a symbolized one.
 */
#define EXEC_PID 4242

/* The fake process now runs bin mapped at start, started at start_time. */
static void fake_image(const char *dir, const char *bin, const char *comm, uint64_t start,
		       unsigned long long start_time)
{
	char path[PATH_MAX], text[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%d/maps", dir, EXEC_PID);
	snprintf(text, sizeof(text), "%llx-%llx r-xp 00000000 00:00 0 %s\n",
		 (unsigned long long)start, (unsigned long long)start + 0x10000, bin);
	assert_true(fx_write_text(path, text));
	snprintf(path, sizeof(path), "%s/%d/stat", dir, EXEC_PID);
	snprintf(text, sizeof(text),
		 "%d (%s) R 1 %d %d 0 -1 4194304 10 0 0 0 7 3 0 0 20 0 1 0 %llu 2535424 303\n",
		 EXEC_PID, comm, EXEC_PID, EXEC_PID, start_time);
	assert_true(fx_write_text(path, text));
	snprintf(path, sizeof(path), "%s/%d/exe", dir, EXEC_PID);
	unlink(path);
	assert_int_equal(symlink(bin, path), 0);
}

static struct sp_sample exec_sample(const uint64_t *ip, const char *comm)
{
	struct sp_sample smp = { 0 };

	smp.tgid = smp.tid = EXEC_PID;
	smp.weight = 1;
	snprintf(smp.comm, sizeof(smp.comm), "%s", comm);
	smp.nr_user = 1;
	smp.user_ips = ip;
	return smp;
}

/* The generation the symbolizer's process table gives EXEC_PID now. */
static uint16_t exec_check(struct symbolizer *s)
{
	return proc_table_exec_check(symbolizer_procs(s), EXEC_PID);
}

/* top: leaf_target with self a, twice<int> with self b, nothing else. */
static void assert_two_images(struct tpipe *prof, uint64_t a, uint64_t b)
{
	struct func_share top[8];
	size_t n = tp_top(prof, top, 8);
	bool seen_a = false, seen_b = false;

	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(top[i].name, "leaf_target")) {
			assert_int_equal(top[i].self, a);
			seen_a = true;
		} else {
			assert_string_equal(top[i].name, "int twice<int>(int)");
			assert_int_equal(top[i].self, b);
			seen_b = true;
		}
	}
	assert_true(seen_a && seen_b);
}

static void test_exec_generations(void **state)
{
	char dir[PATH_MAX / 2], path[PATH_MAX], bin_a[PATH_MAX / 2], bin_b[PATH_MAX / 2];
	struct symbolizer_opts o = { .quiet = true, .proc_root = dir };
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct symbolizer *s;
	struct tpipe *prof;
	struct profile *pend;
	struct profile_stack st;
	struct sp_sample smp;
	struct sym_result r;
	struct proc_ident id0, id1;
	uint64_t x = 0x7000000, va, vb, y;

	(void)state;
	assert_non_null(fx_build());
	snprintf(bin_a, sizeof(bin_a), "%s/fx_main", fx_build());
	snprintf(bin_b, sizeof(bin_b), "%s/fx_cpp", fx_build());
	va = fx_nm_addr(bin_a, "leaf_target");
	vb = fx_nm_addr(bin_b, "_Z5twiceIiET_S0_");
	snprintf(dir, sizeof(dir), "%s/fakeproc", fx_build());
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%d", dir, EXEC_PID);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/root", dir, EXEC_PID);
	unlink(path);
	assert_int_equal(symlink("/", path), 0);

	/* the identity: start time and the executable's inode */
	fake_image(dir, bin_a, "fx_main", x - va, 1000);
	assert_int_equal(ident_read(dir, EXEC_PID, &id0), 0);
	assert_int_equal(id0.start_time, 1000);
	fake_image(dir, bin_b, "fx_cpp", x - vb, 1000);
	assert_int_equal(ident_read(dir, EXEC_PID, &id1), 0);
	assert_false(ident_same(&id0, &id1));
	assert_int_equal(ident_read(dir, 4243, &id1), -ENOENT);

	/* 1. the symbolizer's generations */
	fake_image(dir, bin_a, "fx_main", x - va, 1000);
	s = symbolizer_new(&o);
	assert_int_equal(exec_check(s), 0);
	assert_int_equal(exec_check(s), 0); /* no exec: the same */
	symbolizer_resolve_gen(s, EXEC_PID, 0, x, false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	fake_image(dir, bin_b, "fx_cpp", x - vb, 1000); /* the exec */
	assert_int_equal(exec_check(s), 1);
	symbolizer_resolve_gen(s, EXEC_PID, 1, x, false, &r);
	assert_string_equal(r.frames[0].name, "int twice<int>(int)");
	assert_true(r.map->is_main);
	symbolizer_resolve_gen(s, EXEC_PID, 0, x, false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	symbolizer_resolve(s, EXEC_PID, x, false, &r); /* the newest */
	assert_string_equal(r.frames[0].name, "int twice<int>(int)");
	assert_int_equal(proc_table_newest(symbolizer_procs(s), EXEC_PID)->nr_maps, 1);
	/* a reused pid (another start time) is a generation too */
	fake_image(dir, bin_a, "fx_main", x - va, 2000);
	assert_int_equal(exec_check(s), 2);
	symbolizer_resolve_gen(s, EXEC_PID, 2, x, false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	symbolizer_resolve_gen(s, EXEC_PID, 1, x, false, &r);
	assert_string_equal(r.frames[0].name, "int twice<int>(int)");
	symbolizer_free(s);

	/* 2. nobody told the symbolizer: an address of the new image outside
	 * the old maps captures a new generation instead of adding the new
	 * image's maps to the old one, which stays as it was */
	fake_image(dir, bin_a, "fx_main", x - va, 1000);
	s = symbolizer_new(&o);
	assert_int_equal(symbolizer_note_pid(s, EXEC_PID), 0);
	y = x + 0x100000; /* twice<int> of an image mapped elsewhere */
	fake_image(dir, bin_b, "fx_cpp", y - vb, 1000);
	symbolizer_resolve_gen(s, EXEC_PID, 0, y, false, &r);
	assert_string_equal(r.frames[0].name, "int twice<int>(int)");
	assert_int_equal(exec_check(s), 1); /* the one it made */
	symbolizer_resolve_gen(s, EXEC_PID, 0, x, false, &r);
	assert_string_equal(r.frames[0].name, "leaf_target");
	symbolizer_free(s);

	/* 3. a profile with a symbolizer tracks the exec by the main thread's
	 * comm: the same address before and after is two stacks */
	fake_image(dir, bin_a, "fx_main", x - va, 1000);
	s = symbolizer_new(&o);
	prof = tp_new(&meta, s);
	smp = exec_sample(&x, "fx_main");
	for (int i = 0; i < 3; i++)
		assert_int_equal(tp_add(prof, &smp), 0);
	fake_image(dir, bin_b, "fx_cpp", x - vb, 1000);
	smp = exec_sample(&x, "fx_cpp");
	for (int i = 0; i < 2; i++)
		assert_int_equal(tp_add(prof, &smp), 0);
	assert_int_equal(profile_nr_stacks(prof->p), 2);
	profile_get_stack(prof->p, 1, &st);
	assert_int_equal(st.gen, 1);
	assert_two_images(prof, 3, 2);
	tp_free(prof);
	symbolizer_free(s);

	/* 4. the agent's way: the drain side tags generations in a profile
	 * without a symbolizer; the worker's symbolized profile, which noted
	 * generation 0 at the start, meets generation 1 at its first flush */
	fake_image(dir, bin_a, "fx_main", x - va, 1000);
	s = symbolizer_new(&o);
	assert_int_equal(symbolizer_note_pid(s, EXEC_PID), 0);
	prof = tp_new(&meta, s);
	pend = profile_new(&meta);
	smp = exec_sample(&x, "fx_main");
	assert_true(profile_add(pend, &smp, 0) >= 0);
	fake_image(dir, bin_b, "fx_cpp", x - vb, 1000);
	smp = exec_sample(&x, "fx_cpp");
	for (int i = 0; i < 4; i++)
		assert_true(profile_add(pend, &smp, 1) >= 0);
	assert_int_equal(profile_nr_stacks(pend), 2);
	assert_int_equal(profile_merge(prof->p, pend), 0);
	assert_two_images(prof, 1, 4);
	profile_free(pend);
	tp_free(prof);
	symbolizer_free(s);
}

/* Fake process pid under dir, its root at dir/root-PID with a perf map
 * naming jit at 7f0000000100, its maps as given. */
static void fake_jit_proc(const char *dir, uint32_t pid, const char *jit, const char *maps)
{
	char path[PATH_MAX], jroot[PATH_MAX / 2 + 32], line[128];

	snprintf(jroot, sizeof(jroot), "%s/root-%u", dir, pid);
	mkdir(jroot, 0755);
	snprintf(path, sizeof(path), "%s/tmp", jroot);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tmp/perf-%u.map", jroot, pid);
	snprintf(line, sizeof(line), "7f0000000100 40 %s\n", jit);
	assert_true(fx_write_text(path, line));
	snprintf(path, sizeof(path), "%s/%u", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/root", dir, pid);
	unlink(path);
	assert_int_equal(symlink(jroot, path), 0);
	snprintf(path, sizeof(path), "%s/%u/stat", dir, pid);
	assert_true(
		fx_write_text(path, "1 (jit) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 500 0 0\n"));
	snprintf(path, sizeof(path), "%s/%u/maps", dir, pid);
	assert_true(fx_write_text(path, maps));
}

/* It is gone: nothing of it left under /proc. */
static void fake_jit_exit(const char *dir, uint32_t pid)
{
	static const char *const leaves[] = { "root", "maps", "stat" };
	char path[PATH_MAX];

	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%u/%s", dir, pid, leaves[i]);
		unlink(path);
	}
}

/*
 * Processes with JIT code met by following alone (not noted as targets, as
 * `record -a` meets them): the root is held and the perf map opened when
 * the table first sees anonymous executable memory, at first sight or at a
 * re-read, because by the time the profile is written the process and its
 * /proc/PID/root may be gone.
 */
static void test_perf_map_first_sight(void **state)
{
	static const char anon[] = "7f0000000000-7f0000010000 rwxp 00000000 00:00 0\n";
	char dir[PATH_MAX / 2];
	struct symbolizer_opts o = { .quiet = true, .proc_root = dir };
	struct symbolizer *s;
	struct proc_table *t;
	struct sym_result r;
	uint16_t gen;

	(void)state;
	assert_non_null(fx_build());
	snprintf(dir, sizeof(dir), "%s/fakejit", fx_build());
	mkdir(dir, 0755);
	s = symbolizer_new(&o);
	assert_non_null(s);
	t = symbolizer_procs(s);
	/* JIT code at first sight */
	fake_jit_proc(dir, 4244, "jit_first_sight", anon);
	assert_int_equal(proc_table_exec_check(t, 4244), 0);
	/* none at first sight, JIT code found by a re-read after a miss */
	fake_jit_proc(dir, 4245, "jit_at_reread", "400000-401000 r--p 00000000 00:00 0\n");
	assert_int_equal(proc_table_exec_check(t, 4245), 0);
	assert_int_equal(proc_table_newest(t, 4245)->rootfd, -1);
	fake_jit_proc(dir, 4245, "jit_at_reread", anon);
	assert_int_equal(proc_table_refresh(t, 4245, &gen), 1);
	fake_jit_exit(dir, 4244);
	fake_jit_exit(dir, 4245);
	symbolizer_recheck_jit(s);
	symbolizer_resolve_gen(s, 4244, 0, 0x7f0000000110, false, &r);
	assert_string_equal(r.frames[0].name, "jit_first_sight");
	symbolizer_resolve_gen(s, 4245, 0, 0x7f0000000110, false, &r);
	assert_string_equal(r.frames[0].name, "jit_at_reread");
	symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab_and_lines),
		cmocka_unit_test(test_inline_frames),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_stripped_debuglink),
		cmocka_unit_test(test_build_id_debug_dir),
		cmocka_unit_test(test_cpp_templates),
		cmocka_unit_test(test_dlopen_random_base),
		cmocka_unit_test(test_replaced_lib),
		cmocka_unit_test(test_unknown_in_stripped_lib),
		cmocka_unit_test(test_process_exited),
		cmocka_unit_test(test_trim_reopens),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_perf_map_after_exit),
		cmocka_unit_test(test_view_names_jit_late),
		cmocka_unit_test(test_perf_map_parser),
		cmocka_unit_test(test_perf_map_rewritten_same_head),
		cmocka_unit_test(test_jit_answers),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_restricted),
		cmocka_unit_test(test_kallsyms_host),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_profile_symbolized),
		cmocka_unit_test(test_dlopen_late_exited),
		cmocka_unit_test(test_miss_backoff),
		cmocka_unit_test(test_follow_ident),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_symbolized_pprof_go),
		cmocka_unit_test(test_exec_generations),
		cmocka_unit_test(test_perf_map_first_sight),
	};

	return cmocka_run_group_tests_name("symbolize", tests, NULL, teardown_all);
}
