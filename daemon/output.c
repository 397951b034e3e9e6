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
	if (ends_with(path, ".folded"))
		return OUTPUT_FOLDED;
	if (ends_with(path, ".svg"))
		return OUTPUT_SVG;
	if (ends_with(path, ".json"))
		return OUTPUT_JSON;
	fprintf(stderr,
		"skyprof: %s: unknown output format; use .pb.gz or .pprof (pprof), "
		".folded, .svg or .json\n",
		path);
	return -EINVAL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int output_write(struct profile *p, const char *path, int format)
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
	if (format < OUTPUT_PPROF || format > OUTPUT_JSON) {
		fprintf(stderr, "skyprof: %s: invalid output format %d\n", path, format);
		return -EINVAL;
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
	switch (format) {
	case OUTPUT_PPROF:
		r = output_pprof_write(v, f);
		break;
	case OUTPUT_FOLDED:
		r = output_folded_write(v, f);
		break;
	case OUTPUT_SVG:
		r = output_svg_write(v, f, base_name(path));
		break;
	default:
		r = output_json_write(v, f, base_name(path));
		break;
	}
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
