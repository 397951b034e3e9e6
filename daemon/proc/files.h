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

#endif
