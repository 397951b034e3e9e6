/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `--cgroup PATH`: the module filters on a path inside the cgroup v2
 * hierarchy, the form /proc/PID/cgroup shows ("/system.slice/foo.service",
 * "/" being the root). Users naturally type the directory instead
 * ("/sys/fs/cgroup/system.slice/foo.service"), so both are accepted:
 *  - a path under a cgroup2 mount point (from /proc/self/mountinfo; the
 *    longest matching mount wins, so the hybrid layout's
 *    /sys/fs/cgroup/unified works) has the mount point stripped, and the
 *    mount's own root prepended when the mount shows a subtree (a bind
 *    mount, or a mount made inside a cgroup namespace);
 *  - any other absolute path, or a relative one, is taken as already being
 *    inside the hierarchy;
 * and in both cases the cgroup's directory must exist under a cgroup2 mount,
 * so a typo fails here with a clear message instead of in the module.
 * "." and empty components are dropped; ".." is refused.
 */
#ifndef SKYPROF_CAPTURE_CGROUP_H
#define SKYPROF_CAPTURE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include <skyprof.h>

/*
 * mountinfo: the file to read (NULL: /proc/self/mountinfo). Returns 0 with
 * the hierarchy path in out, or -errno with a one-line message in err.
 */
int cgroup_hierarchy_path(const char *in, const char *mountinfo, char *out, size_t outlen,
			  char *err, size_t errlen);

/* Lexical normalisation (exposed for tests): "/a//b/./c/" -> "/a/b/c". */
int cgroup_normalize(const char *in, char *out, size_t outlen);

/*
 * A cgroup made for one `record -- CMD` run, so that the command's children
 * are profiled too (as perf record -- CMD follows them): a new group
 * directly below the root of the cgroup2 hierarchy (the root is exempt from
 * the no-internal-processes rule, so this works whatever controllers are
 * enabled), the command moved in while it still waits to exec, removed
 * when the run is over.
 */
struct cgroup_transient {
	char dir[2 * SKYPROF_CGROUP_PATH_MAX]; /* its directory */
	char path[SKYPROF_CGROUP_PATH_MAX];    /* its path in the hierarchy */
	bool made;
};

/* mountinfo as for cgroup_hierarchy_path. 0 or -errno with err. */
int cgroup_transient_create(struct cgroup_transient *t, const char *mountinfo, const char *name,
			    char *err, size_t errlen);
int cgroup_transient_add(struct cgroup_transient *t, int pid, char *err, size_t errlen);
/* rmdir; -EBUSY when processes the command left behind still live in it. */
int cgroup_transient_remove(struct cgroup_transient *t);

#endif
