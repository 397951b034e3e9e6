// SPDX-License-Identifier: GPL-2.0
/*
 * `skyprof report` end to end through cli_report_main, on pprof files
 * written by the project's own writer (and one Go heap profile encoded by
 * a stdlib-only Python script): the filters, --diff (its SVG parsed by
 * Python's xml.etree: the function whose share grew is red, the one whose
 * share shrank blue), --per-thread, -o - and .collapsed, the subtitle, bad
 * input, and the flame graph showing exactly the folded output's stacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/output.h"
#include "output/pprof_read.h"
#include "profile/profile.h"
#include "profile/view.h"
#include "scratch_dir.h"
#include "view_fixture.h"

int cli_report_main(int argc, char **argv);

static void write_view(struct view *v, const char *path)
{
	struct view *p = v;

	assert_non_null(p);
	assert_int_equal(output_write(p, path, output_format_from_path(path)), 0);
	vf_free(p);
}

/*
 * Runs `skyprof report ARGS...` with stdout and stderr captured into
 * tmp("out") and tmp("err"); returns its exit status.
 */
static int report(int argc, ...)
{
	char *argv[32] = { "report" };
	int so = dup(1), se = dup(2), r;
	int fo = open(tmp("out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int fe = open(tmp("err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	va_list ap;

	va_start(ap, argc);
	for (int i = 1; i <= argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	r = cli_report_main(argc + 1, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	return r;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* Python from a file, so the scripts may quote freely. */
static int python(const char *script, const char *a1, const char *a2)
{
	char cmd[1024];
	FILE *f = fopen(tmp("check.py"), "w");

	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s %s", tmp("check.py"), a1, a2 ? a2 : "");
	return system(cmd);
}

static void test_filters(void **state)
{
	char *out;

	(void)state;
	write_view(vf_make(PROFILE_ONCPU), tmp("f.pb.gz"));
	assert_int_equal(report(5, "--pid", "200", "-o", "-", tmp("f.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "other;main 5"));
	assert_int_equal(count_lines(out), 1);
	free(out);

	assert_int_equal(report(5, "--tid", "7,101", "-o", "-", tmp("f.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "workload;main;do_syscall_64_[k];schedule_[k] 10"));
	assert_int_equal(count_lines(out), 1);
	free(out);

	assert_int_equal(report(5, "--comm", "workload", "-o", "-", tmp("f.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_int_equal(count_lines(out), 2);
	free(out);

	/* --focus matches any frame, an inlined one included. */
	assert_int_equal(report(5, "--focus", "^in[l]$", "-o", "-", tmp("f.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "workload;main;outer;middle;inl;spin_leaf 90"));
	assert_int_equal(count_lines(out), 1);
	free(out);

	assert_int_equal(
		report(7, "--ignore", "sched|spin", "--pid", "100,200", "-o", "-", tmp("f.pb.gz")),
		0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "other;main 5"));
	assert_int_equal(count_lines(out), 1);
	free(out);

	/* The top and the pprof output are filtered too. */
	assert_int_equal(report(5, "--comm", "other", "-o", tmp("f2.pb.gz"), tmp("f.pb.gz")), 0);
	assert_int_equal(report(1, tmp("f2.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_non_null(strstr(out, "on-CPU, 5 samples"));
	free(out);

	/* Bad input: one line, exit 2. */
	assert_int_equal(report(3, "--focus", "(unclosed", tmp("f.pb.gz")), 2);
	out = slurp(tmp("err"));
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "--focus '(unclosed'"));
	free(out);
	assert_int_equal(report(3, "--pid", "12,x", tmp("f.pb.gz")), 2);
	assert_int_equal(report(3, "--tid", "", tmp("f.pb.gz")), 2);
	assert_int_equal(report(3, "--pid", "1,", tmp("f.pb.gz")), 2);
}

/* prog;main;hotA and prog;main;hotB with the given counts. */
static struct view *two_hot(uint64_t a, uint64_t b, uint32_t hz)
{
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = hz };
	struct view *v = calloc(1, sizeof(*v));
	struct view_mapping exe = { 0 };
	struct view_sample s = { 0 };
	uint32_t f_main, f_a, f_b, lm, st[2];

	view_init(v, &meta);
	exe.limit = 0x100000;
	exe.filename = (uint32_t)strtab_intern(&v->strs, "/usr/bin/prog");
	exe.is_main = exe.has_functions = true;
	view_add_mapping(v, &exe);
	f_main = vf_func(v, "main");
	f_a = vf_func(v, "hotA");
	f_b = vf_func(v, "hotB");
	lm = vf_loc(v, 0x1000, 1, false, &f_main, 1);
	s.pid = s.tid = 42;
	s.comm = (uint32_t)strtab_intern(&v->strs, "prog");
	s.nr_locs = 2;
	st[1] = lm;
	st[0] = vf_loc(v, 0x2000, 1, false, &f_a, 1);
	s.count = s.weight = a;
	view_add_sample(v, &s, st);
	st[0] = vf_loc(v, 0x3000, 1, false, &f_b, 1);
	s.count = s.weight = b;
	view_add_sample(v, &s, st);
	return v;
}

/*
 * The hot function moved from hotA to hotB. The new profile is ten times
 * longer, so both grew in samples: only the share normalised by each
 * profile's total tells that hotA shrank.
 */
static void test_diff(void **state)
{
	static const char check[] =
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = {'s': 'http://www.w3.org/2000/svg'}\n"
		"root = ET.parse(sys.argv[1]).getroot()\n"
		"fr = root.findall('.//s:g[@class=\"f\"]', ns)\n"
		"fill = {g.get('data-n'): g.find('s:rect', ns).get('fill') for g in fr}\n"
		"rgb = {n: [int(x) for x in f[4:-1].split(',')] for n, f in fill.items()}\n"
		"a, b, m = rgb['hotA'], rgb['hotB'], rgb['main']\n"
		"assert b[0] > b[2] and b[0] - b[2] > 100, ('hotB red', b)\n"
		"assert a[2] > a[0] and a[2] - a[0] > 100, ('hotA blue', a)\n"
		"assert m == [250, 250, 250], ('main unchanged', m)\n"
		"t = {g.get('data-n'): g.find('s:title', ns).text for g in fr}\n"
		"assert t['hotB'] == 'hotB (7,000 samples, 70.00%; base 30 samples, 30.00%; "
		"+40.00%)', t['hotB']\n"
		"v = {g.get('data-n'): int(g.get('data-v')) for g in fr}\n"
		"assert v['hotA'] == 3000 and v['hotB'] == 7000, v\n"
		"sub = root.find('s:text[@id=\"subtitle\"]', ns).text\n"
		"assert '10,000 samples' in sub and '100 samples' in sub, sub\n";
	char *out;

	(void)state;
	write_view(two_hot(70, 30, 99), tmp("base.pb.gz"));
	write_view(two_hot(3000, 7000, 99), tmp("new.pb.gz"));
	assert_int_equal(report(7, "--diff", tmp("base.pb.gz"), tmp("new.pb.gz"), "-o",
				tmp("d.svg"), "-o", tmp("d.collapsed")),
			 0);
	assert_int_equal(python(check, tmp("d.svg"), NULL), 0);
	out = slurp(tmp("d.collapsed"));
	assert_true(has_line(out, "prog;main;hotA 70 3000"));
	assert_true(has_line(out, "prog;main;hotB 30 7000"));
	free(out);

	/* The text form: functions by how much their self share moved. */
	assert_int_equal(report(3, "--diff", tmp("base.pb.gz"), tmp("new.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_non_null(strstr(out, "  70.00%   30.00%  -40.00%  hotA\n"));
	assert_non_null(strstr(out, "  30.00%   70.00%  +40.00%  hotB\n"));
	free(out);

	/* A stack only the base has is listed with new 0. */
	write_view(vf_make(PROFILE_ONCPU), tmp("other.pb.gz"));
	assert_int_equal(report(5, "--diff", tmp("other.pb.gz"), "-o", "-", tmp("new.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "other;main 5 0"));
	assert_true(has_line(out, "prog;main;hotB 0 7000"));
	free(out);

	/* Formats without a differential form, and kinds that do not mix. */
	assert_int_equal(
		report(5, "--diff", tmp("base.pb.gz"), "-o", tmp("d.pb.gz"), tmp("new.pb.gz")), 2);
	write_view(vf_make(PROFILE_OFFCPU), tmp("off.pb.gz"));
	assert_int_equal(report(3, "--diff", tmp("off.pb.gz"), tmp("new.pb.gz")), 1);
	out = slurp(tmp("err"));
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "off-CPU"));
	free(out);
}

static void test_per_thread(void **state)
{
	static const char check[] =
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = {'s': 'http://www.w3.org/2000/svg'}\n"
		"root = ET.parse(sys.argv[1]).getroot()\n"
		"fr = root.findall('.//s:g[@class=\"f\"]', ns)\n"
		"d = {g.get('data-n'): int(g.get('data-d')) for g in fr}\n"
		"v = {g.get('data-n'): int(g.get('data-v')) for g in fr}\n"
		"assert d['workload-100'] == 2 and v['workload-100'] == 90, (d, v)\n"
		"assert d['workload-101'] == 2 and v['workload-101'] == 10, (d, v)\n"
		"assert d['spin_leaf'] == 7, d\n";
	char *out;

	(void)state;
	write_view(vf_make(PROFILE_ONCPU), tmp("t.pb.gz"));
	assert_int_equal(report(6, "--per-thread", "-o", "-", "-o", tmp("t.svg"), tmp("t.pb.gz")),
			 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "workload;workload-100;main;outer;middle;inl;spin_leaf 90"));
	assert_true(has_line(out, "workload;workload-101;main;do_syscall_64_[k];schedule_[k] 10"));
	assert_true(has_line(out, "other;other-200;main 5"));
	free(out);
	assert_int_equal(python(check, tmp("t.svg"), NULL), 0);
	/* Without it, one frame per process. */
	assert_int_equal(report(3, "-o", "-", tmp("t.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_null(strstr(out, "workload-1"));
	free(out);
}

/*
 * The SVG and the folded output of one profile hold the same stacks: the
 * C runtime's frames above main (_start, __libc_start_main, an unnamed
 * address of a stripped libc: `make demo`'s [unknown]) are dropped from
 * both, thread roots kept in both. The stacks are rebuilt from the SVG's
 * frames (depth and offset) with their self values and compared with the
 * folded lines.
 */
static void test_svg_matches_folded(void **state)
{
	static const char check[] =
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = {'s': 'http://www.w3.org/2000/svg'}\n"
		"root = ET.parse(sys.argv[1]).getroot()\n"
		"fr = [(int(g.get('data-d')), int(g.get('data-o')), int(g.get('data-v')),\n"
		"       g.get('data-n')) for g in root.findall('.//s:g[@class=\"f\"]', ns)]\n"
		"fr.sort()\n"
		"path, self_ = {}, {}\n"
		"for f in fr:\n"
		"    d, o, v, n = f\n"
		"    if d == 0:\n"
		"        path[f] = []\n"
		"        self_[f] = v\n"
		"        continue\n"
		"    par = [p for p in fr if p[0] == d - 1 and p[1] <= o and o + v <= p[1] + "
		"p[2]]\n"
		"    assert len(par) >= 1, f\n"
		"    p = par[0]\n"
		"    path[f] = path[p] + [n]\n"
		"    self_[f] = v\n"
		"    self_[p] -= v\n"
		"svg = {';'.join(path[f]): s for f, s in self_.items() if s and path[f]}\n"
		"folded = {}\n"
		"for l in open(sys.argv[2]):\n"
		"    st, c = l.rsplit(' ', 1)\n"
		"    st = ';'.join(x[:-4] if x.endswith('_[k]') else x for x in st.split(';'))\n"
		"    folded[st] = int(c)\n"
		"assert svg == folded, (svg, folded)\n"
		"assert not any('[unknown]' in s or '_start' in s for s in svg), svg\n"
		"assert 'rt;start_thread;worker' in svg, svg\n";
	struct view *v = vf_make(PROFILE_ONCPU);
	struct view_sample s = { 0 };
	uint32_t f_start = vf_func(v, "_start"), f_libc = vf_func(v, "__libc_start_main");
	uint32_t f_anon = vf_func(v, ""), f_thr = vf_func(v, "start_thread");
	uint32_t f_work = vf_func(v, "worker"), f_main = vf_func(v, "main");
	uint32_t f_leaf = vf_func(v, "spin_leaf");
	uint32_t st[5], th[2];

	(void)state;
	st[0] = vf_loc(v, 0x404100, 1, false, &f_leaf, 1);
	st[1] = vf_loc(v, 0x401100, 1, false, &f_main, 1);
	st[2] = vf_loc(v, 0x7f0000000100ULL, 0, false, &f_anon, 1);
	st[3] = vf_loc(v, 0x7f0000001000ULL, 0, false, &f_libc, 1);
	st[4] = vf_loc(v, 0x400100, 1, false, &f_start, 1);
	s.nr_locs = 5;
	s.pid = s.tid = 300;
	s.comm = (uint32_t)strtab_intern(&v->strs, "rt");
	s.count = s.weight = 7;
	view_add_sample(v, &s, st);
	th[0] = vf_loc(v, 0x405000, 1, false, &f_work, 1);
	th[1] = vf_loc(v, 0x7f0000002000ULL, 0, false, &f_thr, 1);
	s.nr_locs = 2;
	s.tid = 301;
	s.count = s.weight = 3;
	view_add_sample(v, &s, th);
	write_view(v, tmp("m.pb.gz"));
	assert_int_equal(report(5, "-o", tmp("m.svg"), "-o", tmp("m.folded"), tmp("m.pb.gz")), 0);
	assert_int_equal(python(check, tmp("m.svg"), tmp("m.folded")), 0);
}

/* -o - is the folded output on stdout, .collapsed another name for it;
 * the subtitle says what the profile knows, lost included when known. */
static void test_outputs_and_subtitle(void **state)
{
	static const char check[] = "import sys, xml.etree.ElementTree as ET\n"
				    "ns = {'s': 'http://www.w3.org/2000/svg'}\n"
				    "root = ET.parse(sys.argv[1]).getroot()\n"
				    "sub = root.find('s:text[@id=\"subtitle\"]', ns).text\n"
				    "assert sub == sys.argv[2].replace('_', ' '), sub\n";
	struct view *v = vf_make(PROFILE_ONCPU);
	char *a, *b;

	(void)state;
	assert_int_equal(output_format_from_path("x.collapsed"), OUTPUT_FOLDED);
	assert_int_equal(output_format_from_path("-"), OUTPUT_FOLDED);
	write_view(vf_make(PROFILE_ONCPU), tmp("o.pb.gz"));
	assert_int_equal(report(5, "-o", "-", "-o", tmp("o.collapsed"), tmp("o.pb.gz")), 0);
	a = slurp(tmp("out"));
	b = slurp(tmp("o.collapsed"));
	assert_string_equal(a, b);
	assert_true(has_line(a, "other;main 5"));
	free(a);
	free(b);

	assert_int_equal(report(3, "-o", tmp("o.svg"), tmp("o.pb.gz")), 0);
	assert_int_equal(
		python(check, tmp("o.svg"), "on-CPU,_100_Hz,_5.00_s,_105_samples,_lost_n/a"), 0);
	/* A run's losses survive the pprof file. */
	v->meta.lost = 1234;
	v->meta.lost_known = true;
	write_view(v, tmp("lost.pb.gz"));
	assert_int_equal(report(3, "-o", tmp("lost.svg"), tmp("lost.pb.gz")), 0);
	assert_int_equal(
		python(check, tmp("lost.svg"), "on-CPU,_100_Hz,_5.00_s,_105_samples,_1,234_lost"),
		0);
	assert_int_equal(report(1, tmp("lost.pb.gz")), 0);
	a = slurp(tmp("out"));
	assert_non_null(strstr(a, "on-CPU, 105 samples, 100 Hz, 5.00 s, 1234 lost"));
	free(a);
}

/*
 * A Go heap profile, encoded here with the Python stdlib (varints, gzip):
 * sample types alloc_objects, alloc_space, inuse_objects, inuse_space,
 * period type space/bytes, no default_sample_type: inuse_space (the last),
 * as go tool pprof picks it.
 */
static void test_heap_profile(void **state)
{
	static const char gen[] =
		"import gzip, sys\n"
		"def var(n):\n"
		"    b = b''\n"
		"    while True:\n"
		"        x = n & 0x7f\n"
		"        n >>= 7\n"
		"        if n:\n"
		"            b += bytes([x | 0x80])\n"
		"        else:\n"
		"            return b + bytes([x])\n"
		"def fld(no, payload):\n"
		"    return var(no << 3 | 2) + var(len(payload)) + payload\n"
		"def num(no, n):\n"
		"    return var(no << 3) + var(n)\n"
		"def packed(no, ns):\n"
		"    return fld(no, b''.join(var(n) for n in ns))\n"
		"S = ['', 'alloc_objects', 'count', 'alloc_space', 'bytes', 'inuse_objects',\n"
		"     'inuse_space', 'space', 'main.alloc', 'main.main', 'runtime.main']\n"
		"st = [(1, 2), (3, 4), (5, 2), (6, 4)]\n"
		"p = b''.join(fld(1, num(1, t) + num(2, u)) for t, u in st)\n"
		"p += fld(2, packed(1, [1, 2, 3]) + packed(2, [10, 40960, 4, 16384]))\n"
		"p += fld(2, packed(1, [2, 3]) + packed(2, [5, 5120, 1, 1024]))\n"
		"for i, f in enumerate([8, 9, 10]):\n"
		"    p += fld(4, num(1, i + 1) + num(3, 0x1000 * (i + 1)) + fld(4, num(1, i + "
		"1)))\n"
		"    p += fld(5, num(1, i + 1) + num(2, f))\n"
		"p += b''.join(fld(6, s.encode()) for s in S)\n"
		"p += fld(11, num(1, 7) + num(2, 4))\n"
		"p += num(12, 524288)\n"
		"open(sys.argv[1], 'wb').write(gzip.compress(p))\n";
	char *out;

	(void)state;
	assert_int_equal(python(gen, tmp("heap.pb.gz"), NULL), 0);
	assert_int_equal(report(1, tmp("heap.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_non_null(strstr(out, "heap.pb.gz: inuse_space, 17408 bytes\n"));
	assert_null(strstr(out, "on-CPU"));
	assert_null(strstr(out, "Hz"));
	assert_non_null(strstr(out, "  94.12%   94.12%  main.alloc\n"));
	free(out);
	assert_int_equal(report(5, "-o", "-", "-o", tmp("heap2.pb.gz"), tmp("heap.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_true(has_line(out, "[unknown];runtime.main;main.main;main.alloc 16384"));
	free(out);
	/* Converted, it stays inuse_space. */
	assert_int_equal(report(1, tmp("heap2.pb.gz")), 0);
	out = slurp(tmp("out"));
	assert_non_null(strstr(out, "inuse_space, 17408 bytes\n"));
	free(out);
}

static void test_bad_files(void **state)
{
	char *err;
	int fd;

	(void)state;
	fd = open(tmp("empty.pb.gz"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	assert_int_equal(report(1, tmp("empty.pb.gz")), 1);
	err = slurp(tmp("err"));
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "empty file, not a pprof profile"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_per_thread),
		cmocka_unit_test(test_svg_matches_folded),
		cmocka_unit_test(test_outputs_and_subtitle),
		cmocka_unit_test(test_heap_profile),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests_name("report", tests, scratch_setup, scratch_teardown);
}
