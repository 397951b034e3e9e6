/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profile outputs. The format follows the file name's extension:
 *   .pb.gz, .pprof  gzipped pprof profile.proto
 *   .folded         folded stacks (flamegraph.pl input)
 *   .svg            self-contained interactive flame graph
 *   .json           speedscope's file format (see output_json.c)
 * Every writer works from the symbolized view (view.h), so a profile read
 * back from a pprof file converts through the same code.
 */
#ifndef SKYPROF_OUTPUT_H
#define SKYPROF_OUTPUT_H

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

/*
 * Writes p to path (through a temporary file renamed into place, so a
 * reader never sees half a profile). Returns 0, or -errno with a message on
 * stderr.
 */
int output_write(struct profile *p, const char *path, int format);

/* The writers, to an open stream; 0 or -errno. */
int output_folded_write(const struct view *v, FILE *f);
int output_pprof_write(const struct view *v, FILE *f);
int output_svg_write(const struct view *v, FILE *f, const char *title);
int output_json_write(const struct view *v, FILE *f, const char *name);

#endif
