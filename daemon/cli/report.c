// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof report FILE [--top N] [-o OUTPUT]... [filters] [--diff BASE]
 *
 * Reads a pprof file (as skyprof writes it; any valid pprof works), prints
 * the top functions by self share, and/or converts it to other formats
 * through the same writers `record` uses. Filters drop samples from the
 * view before anything is written (the pprof output included); --diff
 * compares against a second profile, filtered the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "output/output.h"
#include "output/pprof_read.h"
#include "output/top_table.h"
#include "profile/profile.h"
#include "profile/top.h"
#include "cli/usage.h"
#include "profile/view.h"

#define MAX_OUTPUTS 16

static void usage(FILE *f)
{
	fputs("usage: skyprof report FILE [options]\n"
	      "\n"
	      "Reads a pprof profile (.pb.gz or .pprof; skyprof's own or any valid one) and\n"
	      "prints its hottest functions, or converts it to other formats.\n"
	      "\n"
	      "  --top N          print the N functions with the most self time (default 20;\n"
	      "                   with -o, only when --top is given)\n"
	      "  -o, --output OUTPUT\n"
	      "                   write the profile to OUTPUT, format by extension: .pb.gz or\n"
	      "                   .pprof (pprof), .folded or .collapsed, .svg (flame graph),\n"
	      "                   .json (speedscope), - (folded to stdout); may be repeated\n"
	      "  --pid PID[,PID]  keep only samples of these processes\n"
	      "  --tid TID[,TID]  keep only samples of these threads\n"
	      "  --comm NAME      keep only samples of processes named NAME\n"
	      "  --focus REGEX    keep only stacks with a function matching REGEX\n"
	      "  --ignore REGEX   drop stacks with a function matching REGEX\n"
	      "                   (POSIX extended regular expressions)\n"
	      "  --per-thread     folded lines and flame graphs get a comm-tid frame under\n"
	      "                   the process\n"
	      "  --diff BASE      compare FILE against the profile BASE: the top lists the\n"
	      "                   functions whose share changed most; .svg is a differential\n"
	      "                   flame graph (red grew, blue shrank, by the change of share\n"
	      "                   of each profile's total), .folded/.collapsed/- lines\n"
	      "                   \"stack base new\"; .pb.gz and .json are refused\n"
	      "  -h, --help       this text\n"
	      "\n"
	      "Exit status: 0 done, 1 failure, 2 bad usage (an OUTPUT that cannot be\n"
	      "written is found before FILE is read).\n",
	      f);
}

struct filter {
	uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	const char *comm;
	regex_t focus, ignore;
	bool has_focus, has_ignore;
};

/* "1,2,3" into *list; false on anything else. */
static bool parse_ids(const char *arg, uint32_t **list, size_t *nr)
{
	const char *p = arg;

	while (*p) {
		char *end;
		unsigned long n;
		uint32_t *l;

		if (*p < '0' || *p > '9')
			return false;
		errno = 0;
		n = strtoul(p, &end, 10);
		if (errno || n > UINT32_MAX || (*end && *end != ','))
			return false;
		l = realloc(*list, (*nr + 1) * sizeof(*l));
		if (!l)
			return false;
		*list = l;
		l[(*nr)++] = (uint32_t)n;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return false;
	}
	return *nr > 0;
}

static bool in_list(const uint32_t *l, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == x)
			return true;
	return false;
}

struct match {
	const struct view *v;
	const regex_t *re;
};

static int frame_matches(void *arg, uint32_t func, bool kernel)
{
	const struct match *m = arg;

	(void)kernel;
	return !regexec(m->re, view_str(m->v, m->v->functions[func].name), 0, NULL, 0);
}

static bool stack_matches(const struct view *v, const struct view_sample *s, const regex_t *re)
{
	struct match m = { v, re };

	return view_walk_root_first(v, s, frame_matches, &m) != 0;
}

static bool keep_sample(void *arg, const struct view *v, const struct view_sample *s)
{
	const struct filter *fl = arg;

	if (fl->nr_pids && !in_list(fl->pids, fl->nr_pids, s->pid))
		return false;
	if (fl->nr_tids && !in_list(fl->tids, fl->nr_tids, s->tid))
		return false;
	if (fl->comm && strcmp(view_str(v, s->comm), fl->comm))
		return false;
	if (fl->has_focus && !stack_matches(v, s, &fl->focus))
		return false;
	return !(fl->has_ignore && stack_matches(v, s, &fl->ignore));
}

static bool filtering(const struct filter *fl)
{
	return fl->nr_pids || fl->nr_tids || fl->comm || fl->has_focus || fl->has_ignore;
}

static const char *kind_label(const struct view *v)
{
	return v->meta.kind == PROFILE_OFFCPU  ? "off-CPU"
	       : v->meta.kind == PROFILE_OTHER ? view_str(v, v->value_type)
					       : "on-CPU";
}

static void print_head(const struct view *v, const char *path)
{
	const struct profile_meta *m = &v->meta;
	uint64_t total = top_total(v);

	printf("%s: %s, %" PRIu64 " %s", path, kind_label(v), total,
	       m->kind == PROFILE_OFFCPU  ? "ns blocked"
	       : m->kind == PROFILE_OTHER ? view_str(v, v->value_unit)
					  : "samples");
	if (m->kind == PROFILE_ONCPU && m->freq_hz)
		printf(", %u Hz", m->freq_hz);
	if (m->duration_ns)
		printf(", %.2f s", (double)m->duration_ns / 1e9);
	if (m->lost_known)
		printf(", %" PRIu64 " lost", m->lost);
	printf("\n");
}

static void print_top(const struct view *v, const char *path, size_t n)
{
	uint64_t total = top_total(v);
	struct func_share *top = calloc(n ? n : 1, sizeof(*top));
	size_t got;

	if (!top) {
		fprintf(stderr, "skyprof report: out of memory\n");
		return;
	}
	got = top_functions(v, top, n);
	print_head(v, path);
	putchar('\n');
	output_top_table_print(stdout, top, got, total);
	free(top);
}

/* Every function of v with its self and total share. */
static struct func_share *all_functions(const struct view *v, size_t *n)
{
	size_t cap = (size_t)v->nr_functions + 1;
	struct func_share *all = calloc(cap, sizeof(*all));

	*n = all ? top_functions(v, all, cap) : 0;
	return all;
}

struct diff_row {
	const char *name;
	bool kernel;
	double base, now; /* self shares */
};

static int cmp_row(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->now - x->base), dy = fabs(y->now - y->base);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	/* Equal moves (none, comparing a profile with itself): the hotter
	 * first. */
	if (x->now != y->now)
		return x->now < y->now ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The text form of --diff: functions by how much their self share moved. */
static int print_diff_top(const struct view *base, const struct view *v, const char *bpath,
			  const char *path, size_t n)
{
	uint64_t bt = top_total(base), nt = top_total(v);
	size_t nb, nn, nr = 0;
	struct func_share *fb = all_functions(base, &nb), *fn = all_functions(v, &nn);
	struct diff_row *rows = calloc(nb + nn + 1, sizeof(*rows));

	if (!fb || !fn || !rows) {
		free(fb);
		free(fn);
		free(rows);
		fprintf(stderr, "skyprof report: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < nn; i++) {
		rows[nr].name = fn[i].name;
		rows[nr].kernel = fn[i].kernel;
		rows[nr++].now = nt ? (double)fn[i].self / (double)nt : 0;
	}
	for (size_t i = 0; i < nb; i++) {
		double share = bt ? (double)fb[i].self / (double)bt : 0;
		size_t k;

		for (k = 0; k < nn; k++)
			if (rows[k].kernel == fb[i].kernel && !strcmp(rows[k].name, fb[i].name))
				break;
		if (k == nn) {
			rows[nr].name = fb[i].name;
			rows[nr].kernel = fb[i].kernel;
			k = nr++;
		}
		rows[k].base = share;
	}
	qsort(rows, nr, sizeof(*rows), cmp_row);
	print_head(v, path);
	print_head(base, bpath);
	printf("\n%8s %8s %8s  %s\n", "base%", "new%", "change", "function (self share)");
	for (size_t i = 0; i < nr && i < n; i++)
		printf("%7.2f%% %7.2f%% %+7.2f%%  %s%s\n", 100 * rows[i].base, 100 * rows[i].now,
		       100 * (rows[i].now - rows[i].base), rows[i].name,
		       rows[i].kernel ? " [k]" : "");
	free(fb);
	free(fn);
	free(rows);
	return 0;
}

/* Reads path into a view with the filters applied; NULL said why. */
static struct view *load(const char *path, const struct filter *fl, bool per_thread)
{
	struct view *v = NULL;
	char err[256] = "";

	if (pprof_read_file(path, &v, err, sizeof(err))) {
		fprintf(stderr, "skyprof report: %s: %s\n", path, err);
		return NULL;
	}
	if (filtering(fl))
		view_filter(v, keep_sample, (void *)fl);
	v->per_thread = per_thread;
	return v;
}

static void unload(struct view *v)
{
	if (v) {
		view_free(v);
		free(v);
	}
}

static bool compile(regex_t *re, const char *opt, const char *arg)
{
	char msg[128];
	int r = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);

	if (!r)
		return true;
	regerror(r, re, msg, sizeof(msg));
	fprintf(stderr, "skyprof report: %s '%s': %s\n", opt, arg, msg);
	return false;
}

enum {
	OPT_TOP = 0x100,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_DIFF,
	OPT_PER_THREAD,
};

/* What the command line asks for. */
struct report_args {
	const char *outputs[MAX_OUTPUTS], *diff, *path;
	int formats[MAX_OUTPUTS];
	size_t nr_out, top;
	bool top_given;
	struct output_opts oo;
	struct filter fl;
};

/* One option into a; -1 to go on, else the exit status (the message said). */
static int one_arg(int c, int argc, char **argv, struct report_args *a)
{
	int r;

	switch (c) {
	case OPT_TOP: {
		char *end;
		unsigned long n = strtoul(optarg, &end, 10);

		if (!*optarg || *end || n == 0 || n > 100000)
			return usage_fail("report", "--top: '%s' is not a number in 1..100000",
					  optarg);
		a->top = n;
		a->top_given = true;
		return -1;
	}
	case 'o':
		if (a->nr_out == MAX_OUTPUTS)
			return usage_fail("report", "-o: at most %d outputs", MAX_OUTPUTS);
		r = output_format_from_path(optarg);
		if (r < 0)
			return usage_fail("report", "%s: unknown output format; use %s", optarg,
					  OUTPUT_FORMATS);
		a->formats[a->nr_out] = r;
		a->outputs[a->nr_out++] = optarg;
		return -1;
	case OPT_PID:
	case OPT_TID:
		if (!(c == OPT_PID ? parse_ids(optarg, &a->fl.pids, &a->fl.nr_pids)
				   : parse_ids(optarg, &a->fl.tids, &a->fl.nr_tids)))
			return usage_fail("report", "--%s: '%s' is not numbers separated by commas",
					  c == OPT_PID ? "pid" : "tid", optarg);
		return -1;
	case OPT_COMM:
		a->fl.comm = optarg;
		return -1;
	case OPT_FOCUS:
	case OPT_IGNORE: {
		regex_t *re = c == OPT_FOCUS ? &a->fl.focus : &a->fl.ignore;
		bool *has = c == OPT_FOCUS ? &a->fl.has_focus : &a->fl.has_ignore;

		if (*has)
			regfree(re);
		*has = false;
		if (!compile(re, c == OPT_FOCUS ? "--focus" : "--ignore", optarg))
			return USAGE_EXIT;
		*has = true;
		return -1;
	}
	case OPT_DIFF:
		a->diff = optarg;
		return -1;
	case OPT_PER_THREAD:
		a->oo.per_thread = true;
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	default:
		return usage_getopt_fail("report", c, argc, argv);
	}
}

/* The command line into a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, OPT_TOP },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = one_arg(c, argc, argv, a);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1)
		return usage_fail("report", "%s",
				  optind >= argc ? "which profile? give one FILE"
						 : "give exactly one FILE");
	a->path = argv[optind];
	for (size_t i = 0; a->diff && i < a->nr_out; i++)
		if (!output_format_diffable(a->formats[i]))
			return usage_fail("report",
					  "%s: --diff writes .svg, .folded, .collapsed or - only",
					  a->outputs[i]);
	return -1;
}

/* Whether base and p can be compared; false said why. */
static bool same_kind(const struct view *base, const struct view *p, const char *bpath,
		      const char *path)
{
	if (base->meta.kind == p->meta.kind &&
	    (p->meta.kind != PROFILE_OTHER || !strcmp(kind_label(base), kind_label(p))))
		return true;
	fprintf(stderr,
		"skyprof report: %s is %s and %s %s: a difference needs two "
		"profiles of one kind\n",
		bpath, kind_label(base), path, kind_label(p));
	return false;
}

int cli_report_main(int argc, char **argv)
{
	struct report_args a = { .top = 20 };
	struct output_file outs[MAX_OUTPUTS];
	size_t nr_open = 0;
	struct view *p = NULL, *base = NULL;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		goto out;
	/* outputs that cannot be written fail before the input is read */
	for (; nr_open < a.nr_out; nr_open++) {
		char err[256];

		if (output_open(&outs[nr_open], a.outputs[nr_open], a.formats[nr_open], err,
				sizeof(err))) {
			rc = usage_fail("report", "%s", err);
			goto out;
		}
	}
	rc = 1;
	p = load(a.path, &a.fl, a.oo.per_thread);
	if (!p)
		goto out;
	if (a.diff) {
		base = load(a.diff, &a.fl, a.oo.per_thread);
		if (!base || !same_kind(base, p, a.diff, a.path))
			goto out;
		a.oo.diff_base = base;
	}
	rc = 0;
	if (!a.nr_out || a.top_given) {
		if (base)
			rc = print_diff_top(base, p, a.diff, a.path, a.top);
		else
			print_top(p, a.path, a.top);
	}
	for (; nr_open; nr_open--)
		if (output_commit_opts(p, &outs[a.nr_out - nr_open], &a.oo))
			rc = 1;
out:
	while (nr_open)
		output_discard(&outs[--nr_open]);
	unload(p);
	unload(base);
	if (a.fl.has_focus)
		regfree(&a.fl.focus);
	if (a.fl.has_ignore)
		regfree(&a.fl.ignore);
	free(a.fl.pids);
	free(a.fl.tids);
	return rc;
}
