// SPDX-License-Identifier: GPL-2.0
/* A mapping's file, as its process sees it (see files.h). */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
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

static bool same_ident(const struct stat *st, const struct files_ident *w)
{
	return major(st->st_dev) == w->dev_major && minor(st->st_dev) == w->dev_minor &&
	       (uint64_t)st->st_ino == w->ino && (uint64_t)st->st_size == w->size &&
	       (int64_t)st->st_mtim.tv_sec == w->mtime_sec &&
	       (uint64_t)st->st_mtim.tv_nsec == w->mtime_nsec;
}

/* Whether fd is an ELF file whose GNU build-id is w's. */
static bool same_build_id(int fd, const struct files_ident *w)
{
	const void *bid = NULL;
	bool same = false;
	Elf *elf;

	if (!w->build_id_size)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	if (elf_kind(elf) == ELF_K_ELF) {
		ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);

		same = n == w->build_id_size && !memcmp(bid, w->build_id, (size_t)n);
	}
	elf_end(elf);
	return same;
}

/*
 * fd when it is the recorded file (closed otherwise, and -1). *found: a
 * file was there at all.
 */
static int check_fd(int fd, const struct files_ident *w, bool *found, enum files_check *how)
{
	struct stat st;

	if (fd < 0)
		return -1;
	*found = true;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if (same_ident(&st, w)) {
			*how = FILES_VERIFIED;
			return fd;
		}
		if (same_build_id(fd, w)) {
			*how = FILES_BY_BUILD_ID;
			return fd;
		}
	}
	close(fd);
	return -1;
}

int files_open_ident(const char *proc_root, uint32_t pid, const char *path, uint64_t start,
		     uint64_t limit, const struct files_ident *want, enum files_check *why,
		     char *opened, size_t opened_len)
{
	char where[3][PATH_MAX];
	bool found = false;
	int n, fd;

	if (!proc_root)
		proc_root = "/proc";
	if (opened && opened_len)
		opened[0] = '\0';
	if (path[0] != '/') {
		*why = FILES_NO_PATH;
		return -1;
	}
	/* A path cut by snprintf names another file: that candidate is left out. */
	n = snprintf(where[0], PATH_MAX, "%s/%u/root%s", proc_root, pid, path);
	if (n < 0 || n >= PATH_MAX)
		where[0][0] = '\0';
	n = snprintf(where[1], PATH_MAX, "%s/%u/map_files/%" PRIx64 "-%" PRIx64, proc_root, pid,
		     start, limit);
	if (n < 0 || n >= PATH_MAX)
		where[1][0] = '\0';
	snprintf(where[2], PATH_MAX, "%s", path);
	for (int i = 0; i < 3; i++) {
		if (!where[i][0])
			continue;
		fd = check_fd(open(where[i], O_RDONLY | O_CLOEXEC), want, &found, why);
		if (fd >= 0) {
			/* map_files names no file to look for debuginfo beside */
			if (opened && opened_len)
				snprintf(opened, opened_len, "%s", where[i == 1 ? 0 : i]);
			return fd;
		}
	}
	*why = found ? FILES_REPLACED : FILES_GONE;
	return -1;
}

const char *files_check_name(enum files_check c)
{
	switch (c) {
	case FILES_UNCHECKED:
		return "not opened";
	case FILES_VERIFIED:
		return "verified";
	case FILES_BY_BUILD_ID:
		return "verified by build-id";
	case FILES_REPLACED:
		return "replaced";
	case FILES_GONE:
		return "gone";
	case FILES_NO_PATH:
		return "no path";
	case __FILES_CHECK_MAX:
		break;
	}
	return "?";
}
