// SPDX-License-Identifier: GPL-2.0
/* Output dispatch: format from the file name, atomic write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output/output.h"
#include "profile/view.h"

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

/* The name is cleared before it is freed: record's signal handler may read it. */
static void drop_tmp(struct output_file *of)
{
	char *t = of->tmp;

	of->tmp = NULL;
	free(t);
}

/* A new file beside path (O_EXCL: a second -o of the same name gets its own). */
static int create_tmp(struct output_file *of)
{
	for (unsigned int i = 0; i < 100; i++) {
		char *t;

		drop_tmp(of);
		if (asprintf(&t, "%s.tmp.%d.%u", of->path, (int)getpid(), i) < 0)
			return -ENOMEM;
		of->tmp = t;
		of->fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (of->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	return -errno;
}

int output_open(struct output_file *of, const char *path, int format, char *err, size_t errlen)
{
	struct stat st;
	int r;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->path = path;
	of->format = format;
	if (format < OUTPUT_PPROF || format > OUTPUT_JSON) {
		snprintf(err, errlen, "%s: unknown output format; use %s", path, OUTPUT_FORMATS);
		return -EINVAL;
	}
	if (!strcmp(path, "-"))
		return 0; /* standard output: nothing to create */
	/* what rename would refuse at the end, refused now */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	r = create_tmp(of);
	if (r) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-r));
		drop_tmp(of);
		return r;
	}
	return 0;
}

void output_discard(struct output_file *of)
{
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmp)
		unlink(of->tmp);
	drop_tmp(of);
}

static int encode(const struct view *v, FILE *f, const char *path, int format,
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
		return output_speedscope_write(v, f, base_name(path));
	}
}

/* Encodes into fd (closed in any case); 0 or -errno. */
static int write_fd(const struct view *v, int fd, const char *path, int format,
		    const struct output_opts *o)
{
	FILE *f = fdopen(fd, "w");
	int r;

	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	errno = 0;
	r = encode(v, f, path, format, o);
	/* the writers see a failed write as EIO; the write itself said why */
	if (r == -EIO && ferror(f) && errno && errno != EIO)
		r = -errno;
	if (fflush(f) && !r)
		r = -errno;
	if (ferror(f) && !r)
		r = -EIO;
	if (fclose(f) && !r)
		r = -errno;
	return r;
}

/*
 * The directory filled up (or went away) while the run went on: the profile
 * is still in memory, so it goes where there is room, under its own name,
 * rather than nowhere.
 */
static void keep_elsewhere(const struct view *v, const struct output_file *of, int why,
			   const struct output_opts *o)
{
	const char *dir = getenv("TMPDIR");
	char *alt = NULL;
	int fd, r;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&alt, "%s/skyprof-%d-%s", dir, (int)getpid(), base_name(of->path)) < 0) {
		fprintf(stderr, "skyprof: cannot write %s: %s; nothing kept\n", of->path,
			strerror(-why));
		return;
	}
	fd = open(alt, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	r = fd < 0 ? -errno : write_fd(v, fd, of->path, of->format, o);
	if (!r) {
		fprintf(stderr, "skyprof: cannot write %s: %s; kept it as %s\n", of->path,
			strerror(-why), alt);
	} else {
		if (fd >= 0)
			unlink(alt);
		fprintf(stderr, "skyprof: cannot write %s: %s; nor %s: %s\n", of->path,
			strerror(-why), alt, strerror(-r));
	}
	free(alt);
}

static int write_stdout(const struct view *v, const struct output_opts *o)
{
	int r = encode(v, stdout, "-", OUTPUT_FOLDED, o);

	if (fflush(stdout) && !r)
		r = -errno;
	if (r)
		fprintf(stderr, "skyprof: cannot write to standard output: %s\n", strerror(-r));
	return r;
}

int output_commit(struct view *v, struct output_file *of)
{
	static const struct output_opts none;

	return output_commit_opts(v, of, &none);
}

int output_commit_opts(struct view *v, struct output_file *of, const struct output_opts *o)
{
	int r;

	if (o->diff_base && !output_format_diffable(of->format)) {
		fprintf(stderr, "skyprof: %s: a difference is written as .svg or folded only\n",
			of->path);
		output_discard(of);
		return -EINVAL;
	}
	v->per_thread = o->per_thread;
	if (!strcmp(of->path, "-"))
		return write_stdout(v, o);
	if (of->fd < 0) {
		output_discard(of);
		return -EBADF;
	}
	r = write_fd(v, of->fd, of->path, of->format, o);
	of->fd = -1;
	if (!r && rename(of->tmp, of->path))
		r = -errno;
	if (r) {
		/* the partial file goes first: it holds the room the rescue needs */
		output_discard(of);
		keep_elsewhere(v, of, r, o);
		return r;
	}
	drop_tmp(of);
	return 0;
}

int output_write(struct view *v, const char *path, int format)
{
	static const struct output_opts none;

	return output_write_opts(v, path, format, &none);
}

int output_write_opts(struct view *v, const char *path, int format, const struct output_opts *o)
{
	struct output_file of;
	char err[512];
	int r = output_open(&of, path, format, err, sizeof(err));

	if (r) {
		fprintf(stderr, "skyprof: %s\n", err);
		return r;
	}
	return output_commit_opts(v, &of, o);
}
