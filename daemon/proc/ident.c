// SPDX-License-Identifier: GPL-2.0
/* A process image's identity (ident.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/ident.h"

static bool path_of(char *buf, size_t n, const char *root, uint32_t pid, const char *leaf)
{
	int r = snprintf(buf, n, "%s/%u/%s", root, pid, leaf);

	return r >= 0 && (size_t)r < n;
}

int ident_read(const char *proc_root, uint32_t pid, struct proc_ident *out)
{
	char path[PATH_MAX], buf[1024], *p;
	unsigned long long st = 0;
	struct stat sb;
	ssize_t n;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!proc_root)
		proc_root = "/proc";
	if (!path_of(path, sizeof(path), proc_root, pid, "stat"))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* comm may hold spaces and ')': the fields start after the last ')' */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &st) != 1)
		return -EINVAL;
	out->start_time = st;
	/* exe unreadable (a kernel thread, no permission): the start time alone */
	if (path_of(path, sizeof(path), proc_root, pid, "exe") && !stat(path, &sb)) {
		out->exe_dev = (uint64_t)sb.st_dev;
		out->exe_ino = (uint64_t)sb.st_ino;
	}
	return 0;
}

bool ident_same(const struct proc_ident *a, const struct proc_ident *b)
{
	return a->start_time == b->start_time && a->exe_dev == b->exe_dev &&
	       a->exe_ino == b->exe_ino;
}
