/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profile outputs. The format follows the file name's extension:
 *   .pb.gz, .pprof  gzipped pprof profile.proto
 *   .folded, .collapsed  folded stacks (flamegraph.pl input)
 *   -               folded stacks on standard output
 *   .svg            self-contained interactive flame graph
 *   .json           speedscope's file format (see speedscope.c)
 * Every writer works from the symbolized view (view.h), so a profile read
 * back from a pprof file converts through the same code.
 */
#ifndef SKYPROF_OUTPUT_OUTPUT_H
#define SKYPROF_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct view;

enum output_format {
	OUTPUT_PPROF = 1,
	OUTPUT_FOLDED,
	OUTPUT_SVG,
	OUTPUT_JSON,
};

#define OUTPUT_FORMATS                                                                             \
	".pb.gz or .pprof (pprof), .folded or .collapsed, .svg, .json, or - (folded to standard "  \
	"output)"

/* An enum output_format, or -EINVAL (the name says none: see OUTPUT_FORMATS). */
int output_format_from_path(const char *path);

/*
 * An output, opened before anything is measured: a temporary file in the
 * destination's directory, renamed into place once written, so that a
 * directory that cannot be written fails at once and a reader never sees
 * half a profile.
 */
struct output_file {
	const char *path; /* not copied */
	char *tmp;	  /* path.tmp.PID.N; NULL once renamed or discarded */
	int fd;
	int format;
};

/* Creates the temporary file (none for "-", standard output). 0, or -errno with
 * "cannot write PATH: why" in err. */
int output_open(struct output_file *of, const char *path, int format, char *err, size_t errlen);

/*
 * Writes v into it and renames it into place. When that fails (the disk
 * filled up meanwhile), the partial file is removed and the profile written
 * to $TMPDIR (or /tmp) as skyprof-PID-NAME instead; stderr says where.
 * Returns 0, or the -errno of the failed write.
 */
int output_commit(struct view *v, struct output_file *of);

/* Removes the temporary file (an error before anything was written). */
void output_discard(struct output_file *of);

/* How output_commit_opts renders; zeroed: as output_commit. */
struct output_opts {
	bool per_thread; /* folded/SVG: a comm-tid frame under the process */
	/* report --diff: the base profile. SVG: the differential flame
	 * graph; folded: "stack base new" lines; other formats refused. */
	const struct view *diff_base;
};

/* Whether a format can be written as a difference of two profiles. */
bool output_format_diffable(int format);

int output_commit_opts(struct view *v, struct output_file *of, const struct output_opts *o);

/* output_open and output_commit at once, messages on stderr. */
int output_write(struct view *v, const char *path, int format);
int output_write_opts(struct view *v, const char *path, int format, const struct output_opts *o);

/* The writers, to an open stream; 0 or -errno. */
int output_folded_write(const struct view *v, FILE *f);
int output_pprof_write(const struct view *v, FILE *f);
int output_svg_write(const struct view *v, FILE *f, const char *title);
int output_folded_diff_write(const struct view *base, const struct view *v, FILE *f);
int output_svg_diff_write(const struct view *base, const struct view *v, FILE *f,
			  const char *title);
int output_speedscope_write(const struct view *v, FILE *f, const char *name);

#endif
