/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file a mapping of a process maps, found as the process sees it: its
 * path through /proc/PID/root (the process's own mount namespace, a
 * container's binaries), or /proc/PID/map_files/START-END when the path no
 * longer names the mapped inode (a library replaced on disk by an upgrade).
 * The symbolizer reads symbols from it and the DWARF unwinder CFI, from the
 * same file.
 */
#ifndef SKYPROF_PROC_FILES_H
#define SKYPROF_PROC_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct files_mapping {
	char path[PATH_MAX]; /* PROC/PID/root/PATH */
	struct stat st;	     /* of path, when found */
	bool found;	     /* path exists */
	bool same;	     /* and is the mapped inode (or no inode to compare) */
	uint64_t start, limit;
};

/*
 * Looks at the file mapped at [start, limit) from path (as in the maps, an
 * absolute path) with inode (0: unknown) in pid, without opening it.
 * proc_root NULL: "/proc". false: the path is not absolute (anonymous
 * memory, [vdso]); nothing to open.
 */
bool files_look(const char *proc_root, uint32_t pid, const char *path, uint64_t start,
		uint64_t limit, uint64_t inode, struct files_mapping *out);

/*
 * Opens what files_look found, read-only: the path when it names the mapped
 * inode, else map_files (while the process lives), else the path's file
 * (the best there is). A descriptor, or -1.
 */
int files_open(const char *proc_root, uint32_t pid, const struct files_mapping *m);

/*
 * A mapped file's identity as the module recorded it (side-band records):
 * what stat(2) gave for it when the mappings were read, and its build-id
 * where the module read one.
 */
struct files_ident {
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint8_t build_id_size; /* 0: none */
	uint8_t build_id[20];
};

/* How a recorded mapping's file was found (or why not). */
enum files_check {
	FILES_UNCHECKED,   /* not opened yet */
	FILES_VERIFIED,	   /* a file with the recorded identity */
	FILES_BY_BUILD_ID, /* another identity (an overlay's inode), the same build-id */
	FILES_REPLACED,	   /* files there, none of them the recorded one */
	FILES_GONE,	   /* no file at all (the path and the process gone) */
	FILES_NO_PATH,	   /* the module sent no path (too long) */
	__FILES_CHECK_MAX,
};

/*
 * Opens the file pid mapped at [start, limit) from path (as the process
 * sees it), read-only, only if it is the file the module recorded: through
 * PROC/PID/root (the process's mount namespace, while it lives), then
 * PROC/PID/map_files/START-END (the mapped inode itself, while it lives),
 * then path in our own namespace (a process gone: by path after). The
 * first whose fstat matches want (major and minor of st_dev, st_ino,
 * st_size, st_mtim to the ns) or, where want has a build-id, whose build-id
 * matches it, is returned; a reused pid, a replaced binary or another
 * process's file is never. *why says how it was found or why nothing was;
 * opened (may be NULL) gets the path that was opened. A descriptor or -1.
 */
int files_open_ident(const char *proc_root, uint32_t pid, const char *path, uint64_t start,
		     uint64_t limit, const struct files_ident *want, enum files_check *why,
		     char *opened, size_t opened_len);

const char *files_check_name(enum files_check c);

#endif
