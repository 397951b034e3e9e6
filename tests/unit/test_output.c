// SPDX-License-Identifier: GPL-2.0
/*
 * Output tests: folded lines, pprof round trip through our own reader and
 * through an independent decoder (go tool pprof, from Debian's golang-go)
 * with totals equal to the folded ones, speedscope JSON and SVG parsed by
 * Python's json and xml.etree, and `skyprof report` top/convert/errors.
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

#include <skyprof.h>
#include <zlib.h>

#include "output/output.h"
#include "output/pprof_read.h"
#include "output/top_table.h"
#include "profile.pb-c.h"
#include "profile/profile.h"
#include "profile/top.h"
#include "profile/view.h"
#include "pipeline_fixture.h"
#include "scratch_dir.h"
#include "view_fixture.h"

int cli_report_main(int argc, char **argv);

static void write_fixture(enum profile_kind kind, const char *path)
{
	struct view *p = vf_make(kind);

	assert_non_null(p);
	assert_int_equal(output_write(p, path, output_format_from_path(path)), 0);
	vf_free(p);
}

/* Sum of the counts of a folded file, and whether it has line `want`. */
static uint64_t folded_total(const char *path, const char *want, bool *found)
{
	char *text = slurp(path), *save = NULL;
	uint64_t total = 0;

	if (found)
		*found = false;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(l, ' ');

		assert_non_null(sp);
		total += strtoull(sp + 1, NULL, 10);
		if (want && !strcmp(l, want))
			*found = true;
	}
	free(text);
	return total;
}

static void test_format_from_path(void **state)
{
	(void)state;
	assert_int_equal(output_format_from_path("a.pb.gz"), OUTPUT_PPROF);
	assert_int_equal(output_format_from_path("dir/a.pprof"), OUTPUT_PPROF);
	assert_int_equal(output_format_from_path("a.folded"), OUTPUT_FOLDED);
	assert_int_equal(output_format_from_path("a.svg"), OUTPUT_SVG);
	assert_int_equal(output_format_from_path("A.SVG"), OUTPUT_SVG);
	assert_int_equal(output_format_from_path("a.json"), OUTPUT_JSON);
	assert_int_equal(output_format_from_path("a.txt"), -EINVAL);
	assert_int_equal(output_format_from_path("gz"), -EINVAL);
}

static void test_folded(void **state)
{
	bool found;

	(void)state;
	write_fixture(PROFILE_ONCPU, tmp("p.folded"));
	assert_int_equal(folded_total(tmp("p.folded"),
				      "workload;main;outer;middle;inl;spin_leaf 90", &found),
			 VF_TOTAL);
	assert_true(found);
	folded_total(tmp("p.folded"), "workload;main;do_syscall_64_[k];schedule_[k] 10", &found);
	assert_true(found);
	folded_total(tmp("p.folded"), "other;main 5", &found);
	assert_true(found);
	/* Off-CPU lines carry blocked ns. */
	write_fixture(PROFILE_OFFCPU, tmp("off.folded"));
	assert_int_equal(folded_total(tmp("off.folded"), "other;main 5000", &found), 105000);
	assert_true(found);
}

/* Folded lines start the user stack at main: the C runtime's start frames
 * above it are dropped, thread roots are kept, pprof keeps everything. */
static void test_folded_runtime_root(void **state)
{
	struct view *v = vf_make(PROFILE_ONCPU);
	struct view_sample s = { 0 };
	uint32_t f_start = vf_func(v, "_start"), f_libc = vf_func(v, "__libc_start_main");
	uint32_t f_thr = vf_func(v, "start_thread"), f_work = vf_func(v, "worker");
	uint32_t f_main = vf_func(v, "main"), f_leaf = vf_func(v, "spin_leaf");
	uint32_t st[4], th[2];
	struct view *p;
	bool found;

	(void)state;
	st[0] = vf_loc(v, 0x404100, 1, false, &f_leaf, 1);
	st[1] = vf_loc(v, 0x401100, 1, false, &f_main, 1);
	st[2] = vf_loc(v, 0x7f0000001000ULL, 0, false, &f_libc, 1);
	st[3] = vf_loc(v, 0x400100, 1, false, &f_start, 1);
	s.nr_locs = 4;
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
	p = v;
	assert_non_null(p);
	assert_int_equal(output_write(p, tmp("rt.folded"), OUTPUT_FOLDED), 0);
	assert_int_equal(folded_total(tmp("rt.folded"), "rt;main;spin_leaf 7", &found),
			 VF_TOTAL + 10);
	assert_true(found);
	folded_total(tmp("rt.folded"), "rt;start_thread;worker 3", &found);
	assert_true(found);
	vf_free(p);
}

/* Raw samples without a symbolizer: frames named by address, non-leaf
 * return addresses moved into the call, identical stacks merged. */
static void test_profile_to_folded(void **state)
{
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *t = tp_new(&meta, NULL);
	uint64_t user[2] = { 0x1000, 0x2000 }, kern[1] = { 0xffffffff81000010ULL };
	struct sp_sample s = { 0 };
	bool found;

	(void)state;
	strcpy(s.comm, "a;b");
	s.tgid = 7;
	s.weight = 1;
	s.nr_user = 2;
	s.user_ips = user;
	s.nr_kernel = 1;
	s.kernel_ips = kern;
	for (int i = 0; i < 3; i++) {
		s.tid = 7 + (uint32_t)(i % 2); /* two threads: one folded line */
		assert_int_equal(tp_add(t, &s), 0);
	}
	assert_int_equal(profile_nr_stacks(t->p), 2);
	assert_int_equal(tp_write(t, tmp("raw.folded"), OUTPUT_FOLDED), 0);
	assert_int_equal(folded_total(tmp("raw.folded"),
				      "a:b;0x1fff;0x1000;0xffffffff81000010_[k] 3", &found),
			 3);
	assert_true(found);
	tp_free(t);
}

/* A whole gzip file into memory; *len its size. */
static uint8_t *gunzip_file(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	int r;

	assert_non_null(g);
	assert_non_null(buf);
	while ((r = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	assert_int_equal(r, 0);
	gzclose(g);
	*len = n;
	return buf;
}

/*
 * Off-CPU records as the ring hands them on (SF_OFFCPU, weight = blocked
 * ns) aggregate per stack into a switch count and a total time: the folded
 * line carries the ns, pprof the two values switches/count and
 * off-cpu/nanoseconds, and both add up to the records.
 */
static void test_offcpu_records(void **state)
{
	struct profile_meta meta = { .kind = PROFILE_OFFCPU };
	struct tpipe *t = tp_new(&meta, NULL);
	uint64_t sleep_u[2] = { 0x1000, 0x2000 }, lock_u[2] = { 0x3000, 0x2000 };
	uint64_t kern[1] = { 0xffffffff81000010ULL };
	static const uint64_t w[] = { 10000000, 12000000, 9000000, 500, 700 };
	Perftools__Profiles__Profile *pb;
	uint64_t sleep_ns = 0, lock_ns = 0, ns = 0, count = 0;
	struct sp_sample s = { 0 };
	const char *const *st;
	uint8_t *raw;
	size_t len;
	bool found;

	(void)state;
	strcpy(s.comm, "app");
	s.tgid = 9;
	s.flags = SKYPROF_SF_OFFCPU | SKYPROF_SF_IN_KERNEL;
	s.nr_kernel = 1;
	s.kernel_ips = kern;
	s.nr_user = 2;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		bool sleeper = i < 3;

		s.tid = 9 + (uint32_t)(i % 2);
		s.user_ips = sleeper ? sleep_u : lock_u;
		s.weight = w[i];
		*(sleeper ? &sleep_ns : &lock_ns) += w[i];
		assert_int_equal(tp_add(t, &s), 0);
	}
	assert_int_equal(tp_total(t), sleep_ns + lock_ns);
	profile_set_duration(t->p, 1000000000ULL);
	assert_int_equal(tp_write(t, tmp("offrec.folded"), OUTPUT_FOLDED), 0);
	assert_int_equal(tp_write(t, tmp("offrec.pb.gz"), OUTPUT_PPROF), 0);
	tp_free(t);

	/* Folded: ns per stack, the two threads of one stack on one line. */
	assert_int_equal(folded_total(tmp("offrec.folded"),
				      "app;0x1fff;0x1000;0xffffffff81000010_[k] 31000000", &found),
			 sleep_ns + lock_ns);
	assert_true(found);
	folded_total(tmp("offrec.folded"), "app;0x1fff;0x3000;0xffffffff81000010_[k] 1200", &found);
	assert_true(found);

	/* pprof: [switches/count, off-cpu/nanoseconds] per sample. */
	raw = gunzip_file(tmp("offrec.pb.gz"), &len);
	pb = perftools__profiles__profile__unpack(NULL, len, raw);
	assert_non_null(pb);
	st = (const char *const *)pb->string_table;
	assert_int_equal(pb->n_sample_type, 2);
	assert_string_equal(st[pb->sample_type[0]->type], "switches");
	assert_string_equal(st[pb->sample_type[0]->unit], "count");
	assert_string_equal(st[pb->sample_type[1]->type], "off-cpu");
	assert_string_equal(st[pb->sample_type[1]->unit], "nanoseconds");
	for (size_t i = 0; i < pb->n_sample; i++) {
		assert_int_equal(pb->sample[i]->n_value, 2);
		count += (uint64_t)pb->sample[i]->value[0];
		ns += (uint64_t)pb->sample[i]->value[1];
	}
	assert_int_equal(count, sizeof(w) / sizeof(w[0]));
	assert_int_equal(ns, sleep_ns + lock_ns);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	free(raw);
}

static void test_pprof_roundtrip(void **state)
{
	struct view *v = NULL;
	struct view *p;
	char err[256];
	unsigned char magic[2];
	FILE *f;
	bool found;

	(void)state;
	write_fixture(PROFILE_ONCPU, tmp("p.pb.gz"));
	f = fopen(tmp("p.pb.gz"), "rb");
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f); /* gzip */
	assert_int_equal(magic[1], 0x8b);
	assert_int_equal(pprof_read_file(tmp("p.pb.gz"), &v, err, sizeof(err)), 0);
	assert_int_equal(v->meta.kind, PROFILE_ONCPU);
	assert_int_equal(v->meta.freq_hz, 100);
	assert_int_equal(v->period, 10000000);
	assert_int_equal(v->meta.duration_ns, 5000000000ULL);
	assert_int_equal(v->nr_samples, 3);
	assert_true(v->mappings[0].is_main);
	assert_string_equal(view_str(v, v->mappings[0].build_id), "0123456789abcdef");
	assert_true(v->mappings[1].kernel);
	assert_int_equal(v->samples[1].tid, 101);
	assert_string_equal(view_str(v, v->samples[2].comm), "other");
	p = v;
	assert_int_equal(vf_count(p), VF_TOTAL);
	assert_int_equal(output_write(p, tmp("back.folded"), OUTPUT_FOLDED), 0);
	vf_free(p);
	write_fixture(PROFILE_ONCPU, tmp("orig.folded"));
	{
		char *a = slurp(tmp("orig.folded")), *b = slurp(tmp("back.folded"));

		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	assert_int_equal(folded_total(tmp("back.folded"),
				      "workload;main;outer;middle;inl;spin_leaf 90", &found),
			 VF_TOTAL);
	assert_true(found);

	/* Off-CPU keeps its blocked time through the round trip. */
	write_fixture(PROFILE_OFFCPU, tmp("off.pb.gz"));
	assert_int_equal(pprof_read_file(tmp("off.pb.gz"), &v, err, sizeof(err)), 0);
	assert_int_equal(v->meta.kind, PROFILE_OFFCPU);
	assert_int_equal(v->samples[0].weight, 90000);
	p = v;
	assert_int_equal(top_total(p), 105000);
	vf_free(p);
}

/*
 * The independent decoder: `go tool pprof -raw` (Go's own pprof, shipped in
 * golang-go). Its sample totals must equal the folded totals.
 */
static void test_pprof_go_tool(void **state)
{
	char cmd[512], line[512];
	uint64_t count = 0, ns = 0;
	bool in_samples = false, saw_leaf = false, saw_kernel = false;
	FILE *f;

	(void)state;
	if (system("command -v go >/dev/null 2>&1")) {
		fprintf(stderr, "go not installed (golang-go): skipping the go tool pprof check\n");
		skip();
	}
	write_fixture(PROFILE_ONCPU, tmp("go.pb.gz"));
	write_fixture(PROFILE_ONCPU, tmp("go.folded"));
	snprintf(cmd, sizeof(cmd), "HOME=%s GOCACHE=%s/gocache GOFLAGS= go tool pprof -raw %s 2>&1",
		 dir, dir, tmp("go.pb.gz"));
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (!strncmp(line, "samples/count cpu/nanoseconds", 29)) {
			in_samples = true;
			continue;
		}
		if (!strncmp(line, "Locations", 9))
			in_samples = false;
		if (in_samples && sscanf(line, " %llu %llu:", &a, &b) == 2) {
			count += a;
			ns += b;
		}
		if (strstr(line, " spin_leaf "))
			saw_leaf = true;
		if (strstr(line, "[kernel.kallsyms]"))
			saw_kernel = true;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(count, folded_total(tmp("go.folded"), NULL, NULL));
	assert_int_equal(ns, count * 10000000ULL);
	assert_true(saw_leaf);
	assert_true(saw_kernel);
}

static int run_python(const char *script, const char *arg)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c '%s' '%s'", script, arg);
	return system(cmd);
}

static void test_json(void **state)
{
	static const char check[] =
		"import json, sys\n"
		"d = json.load(open(sys.argv[1]))\n"
		"assert d[\"$schema\"].endswith(\"file-format-schema.json\")\n"
		"p = d[\"profiles\"][0]\n"
		"assert p[\"type\"] == \"sampled\" and p[\"unit\"] == \"none\"\n"
		"assert sum(p[\"weights\"]) == 105 == p[\"endValue\"]\n"
		"assert len(p[\"samples\"]) == len(p[\"weights\"])\n"
		"names = [f[\"name\"] for f in d[\"shared\"][\"frames\"]]\n"
		"s = [[names[i] for i in st] for st in p[\"samples\"]]\n"
		"assert [\"workload\", \"main\", \"outer\", \"middle\", \"inl\", \"spin_leaf\"] in "
		"s, s\n"
		"assert [\"workload\", \"main\", \"do_syscall_64 [k]\", \"schedule [k]\"] in s, "
		"s\n";

	(void)state;
	write_fixture(PROFILE_ONCPU, tmp("p.json"));
	assert_int_equal(run_python(check, tmp("p.json")), 0);
}

static void test_svg_wellformed(void **state)
{
	static const char check[] =
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = {\"s\": \"http://www.w3.org/2000/svg\"}\n"
		"root = ET.parse(sys.argv[1]).getroot()\n"
		"assert root.get(\"viewBox\") and root.find(\"s:script\", ns) is not None\n"
		"fr = root.findall(\".//s:g[@class=\\\"f\\\"]\", ns)\n"
		"t = {g.get(\"data-n\"): g.find(\"s:title\", ns).text for g in fr}\n"
		"assert t[\"spin_leaf\"] == \"spin_leaf (90 samples, 85.71%)\", t\n"
		"assert t[\"all\"] == \"all (105 samples, 100.00%)\", t\n"
		"fill = {g.get(\"data-n\"): g.find(\"s:rect\", ns).get(\"fill\") for g in fr}\n"
		"k = [int(x) for x in fill[\"schedule\"][4:-1].split(\",\")]\n"
		"u = [int(x) for x in fill[\"spin_leaf\"][4:-1].split(\",\")]\n"
		"assert k[2] > k[0] and u[0] > u[2], (k, u)\n"
		"d = {g.get(\"data-n\"): int(g.get(\"data-d\")) for g in fr}\n"
		"assert d[\"spin_leaf\"] == 6 and d[\"workload\"] == 1\n"
		"for name in (\"main\", \"outer\", \"middle\", \"inl\", \"do_syscall_64\", "
		"\"other\"):\n"
		"    assert name in t, name\n"
		"assert \"http\" not in open(sys.argv[1]).read().replace(\"http://www.w3.org\", "
		"\"\")\n";
	static const char check_off[] =
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = {\"s\": \"http://www.w3.org/2000/svg\"}\n"
		"root = ET.parse(sys.argv[1]).getroot()\n"
		"fr = root.findall(\".//s:g[@class=\\\"f\\\"]\", ns)\n"
		"t = {g.get(\"data-n\"): g.find(\"s:title\", ns).text for g in fr}\n"
		"assert t[\"spin_leaf\"] == \"spin_leaf (90.0 us, 85.71%)\", t\n"
		"assert \" samples\" not in open(sys.argv[1]).read()\n"
		"assert root.get(\"data-unit\") == \"ns\"\n";

	(void)state;
	write_fixture(PROFILE_ONCPU, tmp("p.svg"));
	assert_int_equal(run_python(check, tmp("p.svg")), 0);
	write_fixture(PROFILE_OFFCPU, tmp("off.svg"));
	assert_int_equal(run_python(check_off, tmp("off.svg")), 0);
}

/* Names with XML and folded metacharacters survive every output. */
static void test_hostile_names(void **state)
{
	struct view *v = vf_make(PROFILE_ONCPU);
	struct view *p;
	static const char check[] = "import sys, xml.etree.ElementTree as ET\n"
				    "ET.parse(sys.argv[1])\n";

	(void)state;
	/* Rename "outer" in place. */
	for (uint32_t i = 0; i < v->nr_functions; i++)
		if (!strcmp(view_str(v, v->functions[i].name), "outer"))
			v->functions[i].name =
				(uint32_t)strtab_intern(&v->strs, "op<&\"'>;x\n\x01\xff");
	p = v;
	assert_int_equal(output_write(p, tmp("h.svg"), OUTPUT_SVG), 0);
	assert_int_equal(run_python(check, tmp("h.svg")), 0);
	assert_int_equal(output_write(p, tmp("h.json"), OUTPUT_JSON), 0);
	assert_int_equal(run_python("import json,sys; json.load(open(sys.argv[1]))", tmp("h.json")),
			 0);
	assert_int_equal(output_write(p, tmp("h.folded"), OUTPUT_FOLDED), 0);
	assert_int_equal(folded_total(tmp("h.folded"), NULL, NULL), VF_TOTAL);
	vf_free(p);
}

/* Runs cli_report_main with stdout captured into a file. */
static int report(const char *out, int argc, char **argv)
{
	int saved = dup(1), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), r;

	fflush(stdout);
	dup2(fd, 1);
	close(fd);
	r = cli_report_main(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return r;
}

static void test_report(void **state)
{
	char *text;

	(void)state;
	write_fixture(PROFILE_ONCPU, tmp("r.pb.gz"));
	{
		char *argv[] = { "report", (char *)tmp("r.pb.gz"), "--top", "3", NULL };

		assert_int_equal(report(tmp("r.txt"), 4, argv), 0);
	}
	text = slurp(tmp("r.txt"));
	assert_non_null(strstr(text, "on-CPU, 105 samples, 100 Hz, 5.00 s"));
	assert_non_null(strstr(text, "  85.71%   85.71%  spin_leaf\n"));
	assert_non_null(strstr(text, "   9.52%    9.52%  schedule [k]\n"));
	assert_non_null(strstr(text, "   4.76%  100.00%  main\n"));
	free(text);
	{
		char *argv[] = { "report",
				 "-o",
				 (char *)tmp("conv.folded"),
				 "-o",
				 (char *)tmp("conv.svg"),
				 (char *)tmp("r.pb.gz"),
				 NULL };

		assert_int_equal(report(tmp("r2.txt"), 6, argv), 0);
	}
	assert_int_equal(folded_total(tmp("conv.folded"), NULL, NULL), VF_TOTAL);
	assert_int_equal(access(tmp("conv.svg"), R_OK), 0);
	{
		char *argv[] = { "report", "-o", "x.bmp", (char *)tmp("r.pb.gz"), NULL };

		assert_int_equal(report(tmp("r3.txt"), 4, argv), 2);
	}
	{
		char *argv[] = { "report", (char *)tmp("missing.pb.gz"), NULL };

		assert_int_equal(report(tmp("r4.txt"), 2, argv), 1);
	}
	{
		char *argv[] = { "report", (char *)tmp("p.folded"), NULL };

		write_fixture(PROFILE_ONCPU, tmp("p.folded"));
		assert_int_equal(report(tmp("r5.txt"), 2, argv), 1);
	}
	{
		char *argv[] = { "report", NULL };

		assert_int_equal(report(tmp("r6.txt"), 1, argv), 2);
	}
	{
		char *argv[] = { "report", "--top", "0", (char *)tmp("r.pb.gz"), NULL };

		assert_int_equal(report(tmp("r7.txt"), 4, argv), 2);
	}
}

static void test_write_errors(void **state)
{
	struct view *p = vf_make(PROFILE_ONCPU);

	(void)state;
	assert_int_equal(output_write(p, "/nonexistent-dir/p.svg", OUTPUT_SVG), -ENOENT);
	assert_int_equal(output_write(p, tmp("bad"), 99), -EINVAL);
	vf_free(p);
}

/*
 * An output is opened (its temporary file made) before anything is measured;
 * when its directory is gone at the end, the profile is kept in $TMPDIR.
 */
static void test_open_early_keep_late(void **state)
{
	struct view *p = vf_make(PROFILE_ONCPU);
	struct output_file of;
	char err[256], sub[128], kept[256], *saved_tmpdir = getenv("TMPDIR");
	struct stat st;

	(void)state;
	assert_non_null(p);
	/* the failures come from output_open, before any data */
	assert_int_equal(output_open(&of, "/nonexistent-dir/p.svg", OUTPUT_SVG, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-dir/p.svg"));
	assert_null(of.tmp);
	assert_int_equal(mkdir(tmp("isdir.svg"), 0755), 0);
	assert_int_equal(output_open(&of, tmp("isdir.svg"), OUTPUT_SVG, err, sizeof(err)), -EISDIR);
	/* opened: a temporary file beside the output, which does not exist yet */
	snprintf(sub, sizeof(sub), "%s", tmp("sub"));
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(kept, sizeof(kept), "%s/p.folded", sub);
	assert_int_equal(output_open(&of, kept, OUTPUT_FOLDED, err, sizeof(err)), 0);
	assert_non_null(of.tmp);
	assert_int_equal(strncmp(of.tmp, kept, strlen(kept)), 0);
	assert_int_equal(access(of.tmp, F_OK), 0);
	assert_int_equal(access(kept, F_OK), -1);
	/* discarded: nothing left */
	{
		char *t = strdup(of.tmp);

		output_discard(&of);
		assert_int_equal(access(t, F_OK), -1);
		free(t);
	}
	/* the directory goes away during the run: rename fails, the profile is
	 * kept in $TMPDIR instead, whole */
	assert_int_equal(output_open(&of, kept, OUTPUT_FOLDED, err, sizeof(err)), 0);
	assert_int_equal(unlink(of.tmp), 0);
	assert_int_equal(rmdir(sub), 0);
	setenv("TMPDIR", dir, 1);
	assert_int_equal(output_commit(p, &of), -ENOENT);
	if (saved_tmpdir)
		setenv("TMPDIR", saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	assert_null(of.tmp);
	snprintf(kept, sizeof(kept), "%s/skyprof-%d-p.folded", dir, (int)getpid());
	assert_int_equal(stat(kept, &st), 0);
	assert_int_equal(folded_total(kept, NULL, NULL), VF_TOTAL);
	/* two outputs of one name each get their own temporary file */
	{
		struct output_file a, b;

		assert_int_equal(
			output_open(&a, tmp("twice.folded"), OUTPUT_FOLDED, err, sizeof(err)), 0);
		assert_int_equal(
			output_open(&b, tmp("twice.folded"), OUTPUT_FOLDED, err, sizeof(err)), 0);
		assert_string_not_equal(a.tmp, b.tmp);
		assert_int_equal(output_commit(p, &a), 0);
		assert_int_equal(output_commit(p, &b), 0);
		assert_int_equal(folded_total(tmp("twice.folded"), NULL, NULL), VF_TOTAL);
	}
	vf_free(p);
}

/* The table of report and top: shares of the total, [k] on kernel rows, no division by 0. */
static void test_top_table(void **state)
{
	struct func_share top[2] = {
		{ .name = "main", .self = 1, .total = 4 },
		{ .name = "do_syscall_64", .self = 3, .total = 3, .kernel = 1 },
	};
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	output_top_table_print(f, top, 2, 4);
	output_top_table_print(f, top, 1, 0);
	fclose(f);
	/* A heading, then one row per function, its shares first. */
	line = strtok(buf, "\n");
	assert_non_null(strstr(line, "self%"));
	for (size_t i = 0; i < 3; i++) {
		static const double want[3][2] = { { 25, 100 }, { 75, 75 }, { 0, 0 } };
		double self, total;
		int name_at = 0;

		line = strtok(NULL, "\n");
		if (i == 2) {
			assert_non_null(strstr(line, "self%"));
			line = strtok(NULL, "\n");
		}
		assert_non_null(line);
		assert_int_equal(sscanf(line, "%lf%% %lf%% %n", &self, &total, &name_at), 2);
		assert_true(self == want[i][0] && total == want[i][1]);
		assert_memory_equal(line + name_at, top[i % 2].name, strlen(top[i % 2].name));
		assert_int_equal(strstr(line, "[k]") != NULL, i == 1);
	}
	assert_null(strtok(NULL, "\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_from_path),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_runtime_root),
		cmocka_unit_test(test_profile_to_folded),
		cmocka_unit_test(test_offcpu_records),
		cmocka_unit_test(test_pprof_roundtrip),
		cmocka_unit_test(test_pprof_go_tool),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_svg_wellformed),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_top_table),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_open_early_keep_late),
	};

	return cmocka_run_group_tests_name("output", tests, scratch_setup, scratch_teardown);
}
