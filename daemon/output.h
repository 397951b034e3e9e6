/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profile outputs. The format follows the file name's extension:
 *   .pb.gz, .pprof  gzipped pprof profile.proto
 *   .folded, .collapsed  folded stacks (flamegraph.pl input)
 *   -               folded stacks on standard output
 *   .svg            self-contained interactive flame graph
 *   .json           speedscope's file format (see output_json.c)
 * Every writer works from the symbolized view (view.h), so a profile read
 * back from a pprof file converts through the same code.
 */
#ifndef SKYPROF_OUTPUT_H
#define SKYPROF_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct profile;
struct view;

enum output_format {
	OUTPUT_PPROF = 1,
	OUTPUT_FOLDED,
	OUTPUT_SVG,
	OUTPUT_JSON,
};

/* An enum output_format, or -EINVAL with a message on stderr. */
int output_format_from_path(const char *path);

/* How output_write_opts renders; zeroed: as output_write. */
struct output_opts {
	bool per_thread; /* folded/SVG: a comm-tid frame under the process */
	/* report --diff: the base profile. SVG: the differential flame
	 * graph; folded: "stack base new" lines; other formats refused. */
	const struct view *diff_base;
};

/* Whether a format can be written as a difference of two profiles. */
bool output_format_diffable(int format);

/*
 * Writes p to path (through a temporary file renamed into place, so a
 * reader never sees half a profile). Returns 0, or -errno with a message on
 * stderr.
 */
int output_write(struct profile *p, const char *path, int format);
int output_write_opts(struct profile *p, const char *path, int format, const struct output_opts *o);

/* The writers, to an open stream; 0 or -errno. */
int output_folded_write(const struct view *v, FILE *f);
int output_pprof_write(const struct view *v, FILE *f);
int output_svg_write(const struct view *v, FILE *f, const char *title);
int output_folded_diff_write(const struct view *base, const struct view *v, FILE *f);
int output_svg_diff_write(const struct view *base, const struct view *v, FILE *f,
			  const char *title);
int output_json_write(const struct view *v, FILE *f, const char *name);

#endif
