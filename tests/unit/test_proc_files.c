// SPDX-License-Identifier: GPL-2.0
/*
 * proc/files: a mapping's file found as its process sees it, in a fake
 * /proc: through PID/root while its path names the mapped inode, through
 * map_files when the file at the path was replaced, the replacement only
 * when map_files is not there, nothing for anonymous memory.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/files.h"
#include "scratch_dir.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* What the descriptor reads: which file was opened. */
static void assert_reads(int fd, const char *want)
{
	char buf[64] = "";
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
	close(fd);
}

static void test_files(void **state)
{
	struct files_mapping m;
	struct stat st;
	char root[160];

	(void)state;
	snprintf(root, sizeof(root), "%s", tmp("proc"));
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(tmp("proc/42"), 0755), 0);
	assert_int_equal(mkdir(tmp("proc/42/root"), 0755), 0);
	assert_int_equal(mkdir(tmp("proc/42/root/lib"), 0755), 0);
	assert_int_equal(mkdir(tmp("proc/42/map_files"), 0755), 0);
	put(tmp("proc/42/root/lib/libx.so"), "at the path");
	put(tmp("proc/42/map_files/1000-2000"), "the mapped one");
	assert_int_equal(stat(tmp("proc/42/root/lib/libx.so"), &st), 0);

	/* the path names the mapped inode: the path */
	assert_true(files_look(root, 42, "/lib/libx.so", 0x1000, 0x2000, st.st_ino, &m));
	assert_true(m.found && m.same);
	assert_reads(files_open(root, 42, &m), "at the path");
	/* no inode to compare: the path too */
	assert_true(files_look(root, 42, "/lib/libx.so", 0x1000, 0x2000, 0, &m));
	assert_true(m.same);
	/* replaced on disk (another inode): map_files */
	assert_true(files_look(root, 42, "/lib/libx.so", 0x1000, 0x2000, st.st_ino + 1, &m));
	assert_true(m.found && !m.same);
	assert_reads(files_open(root, 42, &m), "the mapped one");
	/* replaced and no map_files (the process is gone): the file at the path */
	assert_int_equal(unlink(tmp("proc/42/map_files/1000-2000")), 0);
	assert_reads(files_open(root, 42, &m), "at the path");
	/* gone from the path as well: nothing */
	assert_true(files_look(root, 42, "/lib/gone.so", 0x1000, 0x2000, 7, &m));
	assert_false(m.found);
	assert_int_equal(files_open(root, 42, &m), -1);
	/* anonymous memory and [vdso] have no file */
	assert_false(files_look(root, 42, "", 0x1000, 0x2000, 0, &m));
	assert_false(files_look(root, 42, "[vdso]", 0x1000, 0x2000, 0, &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
