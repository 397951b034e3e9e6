/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one image of a process is: an exec changes the executable (exe's
 * device and inode), a reused pid the start time (/proc/PID/stat field 22).
 * An exec of the same file is not told apart (its code is the same).
 */
#ifndef SKYPROF_PROC_IDENT_H
#define SKYPROF_PROC_IDENT_H

#include <stdbool.h>
#include <stdint.h>

struct proc_ident {
	uint64_t start_time;
	uint64_t exe_dev, exe_ino;
};

/* proc_root NULL: "/proc". 0 or -errno (the process is gone). */
int ident_read(const char *proc_root, uint32_t pid, struct proc_ident *out);
bool ident_same(const struct proc_ident *a, const struct proc_ident *b);

#endif
