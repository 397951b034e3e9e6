// SPDX-License-Identifier: GPL-2.0
/* Output dispatch: format from the file name, atomic write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "output.h"
#include "profile.h"
#include "view.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

int output_format_from_path(const char *path)
{
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pprof"))
		return OUTPUT_PPROF;
	/* "-": folded stacks on stdout, for a pipe into flamegraph.pl. */
	if (!strcmp(path, "-") || ends_with(path, ".folded") || ends_with(path, ".collapsed"))
		return OUTPUT_FOLDED;
	if (ends_with(path, ".svg"))
		return OUTPUT_SVG;
	if (ends_with(path, ".json"))
		return OUTPUT_JSON;
	fprintf(stderr,
		"skyprof: %s: unknown output format; use .pb.gz or .pprof (pprof), "
		".folded or .collapsed, .svg, .json, or - (folded to stdout)\n",
		path);
	return -EINVAL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

bool output_format_diffable(int format)
{
	return format == OUTPUT_FOLDED || format == OUTPUT_SVG;
}

static int write_to(const struct view *v, FILE *f, const char *path, int format,
		    const struct output_opts *o)
{
	if (o->diff_base) {
		if (format == OUTPUT_SVG)
			return output_svg_diff_write(o->diff_base, v, f, base_name(path));
		if (format == OUTPUT_FOLDED)
			return output_folded_diff_write(o->diff_base, v, f);
		return -EINVAL;
	}
	switch (format) {
	case OUTPUT_PPROF:
		return output_pprof_write(v, f);
	case OUTPUT_FOLDED:
		return output_folded_write(v, f);
	case OUTPUT_SVG:
		return output_svg_write(v, f, base_name(path));
	default:
		return output_json_write(v, f, base_name(path));
	}
}

int output_write(struct profile *p, const char *path, int format)
{
	static const struct output_opts none;

	return output_write_opts(p, path, format, &none);
}

int output_write_opts(struct profile *p, const char *path, int format, const struct output_opts *o)
{
	struct view *v = profile_view(p);
	char *tmp = NULL;
	FILE *f;
	int r;

	if (!v) {
		fprintf(stderr, "skyprof: %s: out of memory while symbolizing\n", path);
		return -ENOMEM;
	}
	/* Symbolizing is over before encoding starts: the encoders' memory
	 * then does not add to libdw's. */
	profile_view_done(p);
	if (format < OUTPUT_PPROF || format > OUTPUT_JSON ||
	    (o->diff_base && !output_format_diffable(format))) {
		fprintf(stderr, "skyprof: %s: invalid output format %d\n", path, format);
		return -EINVAL;
	}
	v->per_thread = o->per_thread;
	if (!strcmp(path, "-")) {
		r = write_to(v, stdout, path, OUTPUT_FOLDED, o);
		if (fflush(stdout) && !r)
			r = -errno;
		if (r)
			fprintf(stderr, "skyprof: cannot write to standard output: %s\n",
				strerror(-r));
		return r;
	}
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	f = fopen(tmp, "we");
	if (!f) {
		r = -errno;
		fprintf(stderr, "skyprof: cannot write %s: %s\n", path, strerror(-r));
		free(tmp);
		return r;
	}
	r = write_to(v, f, path, format, o);
	if (fflush(f) && !r)
		r = -errno;
	if (ferror(f) && !r)
		r = -EIO;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		fprintf(stderr, "skyprof: cannot write %s: %s\n", path, strerror(-r));
		unlink(tmp);
	}
	free(tmp);
	return r;
}
