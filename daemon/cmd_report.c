// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof report FILE [--top N] [-o OUTPUT]...
 *
 * Reads a pprof file (as skyprof writes it; any valid pprof works), prints
 * the top functions by self share, and/or converts it to other formats
 * through the same writers `record` uses.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "pprof_read.h"
#include "profile.h"
#include "usage.h"
#include "view.h"

#define MAX_OUTPUTS 16

static void usage(FILE *f)
{
	fputs("usage: skyprof report FILE [--top N] [-o OUTPUT]...\n"
	      "\n"
	      "Reads a pprof profile (.pb.gz or .pprof) written by skyprof and prints its\n"
	      "hottest functions, or converts it to other formats.\n"
	      "\n"
	      "  --top N      print the N functions with the most self time (default 20;\n"
	      "               with -o, only when --top is given)\n"
	      "  -o, --output OUTPUT\n"
	      "               write the profile to OUTPUT, format by extension: .pb.gz or\n"
	      "               .pprof (pprof), .folded, .svg (flame graph), .json\n"
	      "               (speedscope); may be repeated\n"
	      "  -h, --help   this text\n"
	      "\n"
	      "Exit status: 0 done, 1 failure, 2 bad usage (an OUTPUT that cannot be\n"
	      "written is found before FILE is read).\n",
	      f);
}

static void print_top(struct profile *p, const char *path, size_t n)
{
	const struct profile_meta *m = profile_get_meta(p);
	uint64_t total = profile_total_value(p);
	bool off = m->kind == PROFILE_OFFCPU;
	struct func_share *top = calloc(n ? n : 1, sizeof(*top));
	size_t got;

	if (!top) {
		fprintf(stderr, "skyprof report: out of memory\n");
		return;
	}
	got = profile_top_functions(p, top, n);
	printf("%s: %s, %" PRIu64 " %s", path, off ? "off-CPU" : "on-CPU", total,
	       off ? "ns blocked" : "samples");
	if (!off && m->freq_hz)
		printf(", %u Hz", m->freq_hz);
	if (m->duration_ns)
		printf(", %.2f s", (double)m->duration_ns / 1e9);
	printf("\n\n%8s %8s  %s\n", "self%", "total%", "function");
	for (size_t i = 0; i < got; i++)
		printf("%7.2f%% %7.2f%%  %s%s\n",
		       total ? 100.0 * (double)top[i].self / (double)total : 0.0,
		       total ? 100.0 * (double)top[i].total / (double)total : 0.0, top[i].name,
		       top[i].kernel ? " [k]" : "");
	free(top);
}

int cmd_report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outputs[MAX_OUTPUTS];
	int formats[MAX_OUTPUTS];
	struct output_file outs[MAX_OUTPUTS];
	size_t nr_out = 0, top = 20;
	bool top_given = false;
	struct view *v = NULL;
	struct profile *p;
	char err[256] = "";
	int c, r, rc = 0;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 't': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || n == 0 || n > 100000)
				return usage_fail("report",
						  "--top: '%s' is not a number in 1..100000",
						  optarg);
			top = n;
			top_given = true;
			break;
		}
		case 'o':
			if (nr_out == MAX_OUTPUTS)
				return usage_fail("report", "-o: at most %d outputs", MAX_OUTPUTS);
			r = output_format_from_path(optarg);
			if (r < 0)
				return usage_fail("report", "%s: unknown output format; use %s",
						  optarg, OUTPUT_FORMATS);
			formats[nr_out] = r;
			outputs[nr_out++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage_getopt_fail("report", c, argc, argv);
		}
	}
	if (optind != argc - 1)
		return usage_fail("report", "%s",
				  optind >= argc ? "which profile? give one FILE"
						 : "give exactly one FILE");
	/* outputs that cannot be written fail before the input is read */
	for (size_t i = 0; i < nr_out; i++) {
		if (output_open(&outs[i], outputs[i], formats[i], err, sizeof(err))) {
			while (i--)
				output_discard(&outs[i]);
			return usage_fail("report", "%s", err);
		}
	}
	r = pprof_read_file(argv[optind], &v, err, sizeof(err));
	p = r ? NULL : profile_from_view(v);
	if (!p) {
		if (r) {
			fprintf(stderr, "skyprof report: %s: %s\n", argv[optind], err);
		} else {
			view_free(v);
			free(v);
			fprintf(stderr, "skyprof report: out of memory\n");
		}
		for (size_t i = 0; i < nr_out; i++)
			output_discard(&outs[i]);
		return 1;
	}
	if (!nr_out || top_given)
		print_top(p, argv[optind], top);
	for (size_t i = 0; i < nr_out; i++)
		if (output_commit(p, &outs[i]))
			rc = 1;
	profile_free(p);
	return rc;
}
