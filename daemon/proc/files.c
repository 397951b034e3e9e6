// SPDX-License-Identifier: GPL-2.0
/* A mapping's file, as its process sees it (see files.h). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "proc/files.h"

bool files_look(const char *proc_root, uint32_t pid, const char *path, uint64_t start,
		uint64_t limit, uint64_t inode, struct files_mapping *out)
{
	int n;

	out->found = out->same = false;
	out->start = start;
	out->limit = limit;
	if (path[0] != '/')
		return false;
	n = snprintf(out->path, sizeof(out->path), "%s/%u/root%s", proc_root ? proc_root : "/proc",
		     pid, path);
	/* a cut path must not open another file: map_files only */
	if (n < 0 || (size_t)n >= sizeof(out->path))
		out->path[0] = '\0';
	else if (!stat(out->path, &out->st)) {
		out->found = true;
		/* An overlay can report another inode number for the same
		 * file: a mismatch only means trying map_files first. */
		out->same = !inode || (uint64_t)out->st.st_ino == inode;
	}
	return true;
}

static int open_map_files(const char *proc_root, uint32_t pid, const struct files_mapping *m)
{
	char mf[PATH_MAX];
	int n = snprintf(mf, sizeof(mf), "%s/%u/map_files/%" PRIx64 "-%" PRIx64,
			 proc_root ? proc_root : "/proc", pid, m->start, m->limit);

	if (n < 0 || (size_t)n >= sizeof(mf))
		return -1;
	return open(mf, O_RDONLY | O_CLOEXEC);
}

int files_open(const char *proc_root, uint32_t pid, const struct files_mapping *m)
{
	int fd = -1;

	if (m->same)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open_map_files(proc_root, pid, m);
	if (fd < 0 && m->found && !m->same)
		/* No map_files: the file now at the path, the best there is. */
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	return fd;
}
