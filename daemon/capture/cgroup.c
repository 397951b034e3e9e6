// SPDX-License-Identifier: GPL-2.0
/*
 * Converting a user's --cgroup argument to the path inside the cgroup v2
 * hierarchy (see cgroup.h for the rules and why).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <skyprof.h>

#include "capture/cgroup.h"

#define MAX_MOUNTS 16

struct cg_mount {
	char point[SKYPROF_CGROUP_PATH_MAX]; /* where it is mounted */
	char root[SKYPROF_CGROUP_PATH_MAX];  /* the subtree of the hierarchy it shows */
};

int cgroup_normalize(const char *in, char *out, size_t outlen)
{
	size_t used = 0;
	const char *p = in;

	if (outlen < 2)
		return -ENAMETOOLONG;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (used + 1 + n + 1 > outlen)
			return -ENAMETOOLONG;
		out[used++] = '/';
		memcpy(out + used, p, n);
		used += n;
		p += n;
	}
	if (!used)
		out[used++] = '/';
	out[used] = '\0';
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Fields: id parent maj:min root point options [optional...] - fstype source super */
static bool parse_mountinfo_line(char *line, struct cg_mount *m)
{
	char *field[6] = { 0 }, *save = NULL, *tok;
	int n = 0;
	bool dash = false;

	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (n < 5) {
			field[n++] = tok;
			continue;
		}
		if (!dash) {
			dash = !strcmp(tok, "-");
			continue;
		}
		field[5] = tok; /* fstype */
		break;
	}
	if (n < 5 || !field[5] || strcmp(field[5], "cgroup2") != 0)
		return false;
	unescape(field[3]);
	unescape(field[4]);
	if (cgroup_normalize(field[3], m->root, sizeof(m->root)) ||
	    cgroup_normalize(field[4], m->point, sizeof(m->point)))
		return false;
	return true;
}

static int read_mounts(const char *path, struct cg_mount *mounts, size_t *nr)
{
	char line[3 * SKYPROF_CGROUP_PATH_MAX];
	FILE *f = fopen(path, "re");

	*nr = 0;
	if (!f)
		return -errno;
	while (*nr < MAX_MOUNTS && fgets(line, sizeof(line), f))
		if (parse_mountinfo_line(line, &mounts[*nr]))
			(*nr)++;
	fclose(f);
	return 0;
}

/* rest of path below prefix ("/" when equal), or NULL when not below it. */
static const char *below(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!strcmp(prefix, "/"))
		return path;
	if (strncmp(path, prefix, n) != 0)
		return NULL;
	if (path[n] == '\0')
		return "/";
	if (path[n] == '/')
		return path + n;
	return NULL;
}

static bool is_dir(const char *point, const char *rel)
{
	char full[2 * SKYPROF_CGROUP_PATH_MAX + 2];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", strcmp(point, "/") ? point : "",
		 strcmp(rel, "/") ? rel : "/");
	return stat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

static int join(const char *root, const char *rel, char *out, size_t outlen)
{
	char tmp[2 * SKYPROF_CGROUP_PATH_MAX + 2];

	snprintf(tmp, sizeof(tmp), "%s/%s", root, rel);
	return cgroup_normalize(tmp, out, outlen);
}

int cgroup_hierarchy_path(const char *in, const char *mountinfo, char *out, size_t outlen,
			  char *err, size_t errlen)
{
	static struct cg_mount mounts[MAX_MOUNTS]; /* ~128 KiB: not on the stack */
	char norm[SKYPROF_CGROUP_PATH_MAX];
	const struct cg_mount *best = NULL;
	const char *rel = NULL;
	size_t nr, best_len = 0;
	int ret;

	if (!mountinfo)
		mountinfo = "/proc/self/mountinfo";
	ret = cgroup_normalize(in, norm, sizeof(norm));
	if (ret) {
		snprintf(err, errlen, "--cgroup %s: %s", in,
			 ret == -EINVAL ? "'..' is not allowed" : "path too long");
		return ret;
	}
	ret = read_mounts(mountinfo, mounts, &nr);
	if (ret) {
		snprintf(err, errlen, "--cgroup: cannot read %s: %s", mountinfo, strerror(-ret));
		return ret;
	}
	if (!nr) {
		snprintf(err, errlen,
			 "--cgroup: no cgroup v2 hierarchy is mounted (skyprof filters on cgroup "
			 "v2 only)");
		return -ENOENT;
	}

	/* A directory under a mount point: the longest mount point wins. */
	for (size_t i = 0; i < nr; i++) {
		const char *r = below(norm, mounts[i].point);
		size_t len = strlen(mounts[i].point);

		if (r && strcmp(mounts[i].point, "/") != 0 && len > best_len) {
			best = &mounts[i];
			best_len = len;
			rel = r;
		}
	}
	if (best) {
		if (!is_dir(best->point, rel)) {
			snprintf(err, errlen, "--cgroup %s: no such cgroup directory", in);
			return -ENOENT;
		}
		ret = join(best->root, rel, out, outlen);
		goto done;
	}

	/* Already a hierarchy path: find a mount that shows it. */
	for (size_t i = 0; i < nr; i++) {
		const char *r = below(norm, mounts[i].root);

		if (r && is_dir(mounts[i].point, r)) {
			ret = cgroup_normalize(norm, out, outlen);
			goto done;
		}
	}
	snprintf(err, errlen, "--cgroup %s: no such cgroup (looked for %s%s)", in,
		 strcmp(mounts[0].point, "/") ? mounts[0].point : "", norm);
	return -ENOENT;

done:
	if (ret)
		snprintf(err, errlen, "--cgroup %s: path too long", in);
	return ret;
}

int cgroup_transient_create(struct cgroup_transient *t, const char *mountinfo, const char *name,
			    char *err, size_t errlen)
{
	static struct cg_mount mounts[MAX_MOUNTS];
	const struct cg_mount *m = NULL;
	size_t nr;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = read_mounts(mountinfo ? mountinfo : "/proc/self/mountinfo", mounts, &nr);
	if (ret) {
		snprintf(err, errlen, "cannot read the mount table: %s", strerror(-ret));
		return ret;
	}
	/* A mount of the whole hierarchy; the conventional place first. */
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(mounts[i].root, "/") &&
		    (!m || !strcmp(mounts[i].point, "/sys/fs/cgroup")))
			m = &mounts[i];
	if (!m) {
		snprintf(err, errlen, "no cgroup v2 hierarchy is mounted");
		return -ENOENT;
	}
	snprintf(t->path, sizeof(t->path), "/%s", name);
	snprintf(t->dir, sizeof(t->dir), "%s/%s", strcmp(m->point, "/") ? m->point : "", name);
	if (mkdir(t->dir, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create cgroup %s: %s", t->dir, strerror(errno));
		return ret;
	}
	t->made = true;
	return 0;
}

int cgroup_transient_add(struct cgroup_transient *t, int pid, char *err, size_t errlen)
{
	char procs[sizeof(t->dir) + 16];
	FILE *f;
	int ret = 0;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", t->dir);
	f = fopen(procs, "we");
	if (!f || fprintf(f, "%d\n", pid) < 0)
		ret = -errno;
	if (f && fclose(f) && !ret)
		ret = -errno; /* the kernel reports a refused move at close */
	if (ret)
		snprintf(err, errlen, "cannot move the command into cgroup %s: %s", t->dir,
			 strerror(-ret));
	return ret;
}

int cgroup_transient_remove(struct cgroup_transient *t)
{
	if (!t->made)
		return 0;
	/* A process that just exited may linger in the group for a moment. */
	for (int i = 0; i < 50; i++) {
		if (rmdir(t->dir) == 0 || errno == ENOENT) {
			t->made = false;
			return 0;
		}
		if (errno != EBUSY)
			return -errno;
		usleep(10000);
	}
	return -EBUSY;
}
