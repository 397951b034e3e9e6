// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps line parsing: the kernel's own format (real lines of this
 * test's own maps, compared with sscanf), paths with blanks, "(deleted)",
 * anonymous mappings, and malformed lines that must be refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proc/maps.h"

static void parse_ok(const char *text, uint64_t start, uint64_t end, const char *perms,
		     uint64_t off, const char *path)
{
	char *line = strdup(text);
	struct maps_line m;

	assert_non_null(line);
	assert_true(maps_parse_line(line, &m));
	assert_int_equal(m.start, start);
	assert_int_equal(m.end, end);
	assert_string_equal(m.perms, perms);
	assert_int_equal(m.offset, off);
	assert_string_equal(m.path, path);
	free(line);
}

static void parse_bad(const char *text)
{
	char *line = strdup(text);
	struct maps_line m;

	assert_non_null(line);
	assert_false(maps_parse_line(line, &m));
	free(line);
}

static void kernel_format(void **state)
{
	(void)state;
	parse_ok("00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n",
		 0x400000, 0x452000, "r-xp", 0, "/usr/bin/dbus-daemon\n");
	parse_ok("7f3c5a1e2000-7f3c5a38d000 r-xp 00028000 fe:01 1835043                    "
		 "/usr/lib/x86_64-linux-gnu/libc.so.6",
		 0x7f3c5a1e2000ull, 0x7f3c5a38d000ull, "r-xp", 0x28000,
		 "/usr/lib/x86_64-linux-gnu/libc.so.6");
	parse_ok("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  "
		 "[vsyscall]\n",
		 0xffffffffff600000ull, 0xffffffffff601000ull, "--xp", 0, "[vsyscall]\n");
	/* Upper-case hex is accepted too. */
	parse_ok("7F00-7FFF r-xp 0000ABCD 00:1f 12 /x", 0x7f00, 0x7fff, "r-xp", 0xabcd, "/x");
}

/* The inode (decimal, up to 64 bits): what a mapping's file is checked by. */
static void inodes(void **state)
{
	char l1[] = "1000-2000 r-xp 0 fe:01 1835043   /usr/lib/x86_64-linux-gnu/libc.so.6\n";
	char l2[] = "1000-2000 rw-p 0 00:00 0\n";
	char l3[] = "1000-2000 r-xp 0 00:2a 18446744073709551615 /x\n";
	struct maps_line m;

	(void)state;
	assert_true(maps_parse_line(l1, &m));
	assert_int_equal(m.inode, 1835043);
	assert_true(maps_parse_line(l2, &m));
	assert_int_equal(m.inode, 0);
	assert_true(maps_parse_line(l3, &m));
	assert_true(m.inode == UINT64_MAX);
	parse_bad("1000-2000 r-xp 0 00:2a 18446744073709551616 /x\n"); /* 2^64 */
}

static void paths(void **state)
{
	(void)state;
	/* Anonymous: no path, with or without the padding and the newline. */
	parse_ok("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 \n", 0x7ffd1000, 0x7ffd3000, "rw-p", 0,
		 "\n");
	parse_ok("7ffd1000-7ffd3000 rw-p 00000000 00:00 0\n", 0x7ffd1000, 0x7ffd3000, "rw-p", 0,
		 "\n");
	parse_ok("7ffd1000-7ffd3000 rw-p 00000000 00:00 0", 0x7ffd1000, 0x7ffd3000, "rw-p", 0, "");
	/* Blanks inside the path are the path's. */
	parse_ok("1000-2000 r-xp 00001000 08:01 42   /opt/my app/lib x.so (deleted)\n", 0x1000,
		 0x2000, "r-xp", 0x1000, "/opt/my app/lib x.so (deleted)\n");
}

static void malformed(void **state)
{
	(void)state;
	parse_bad("");
	parse_bad("\n");
	parse_bad("garbage\n");
	parse_bad("1000 2000 r-xp 0 08:01 42 /x\n");		/* no '-' */
	parse_bad("1000-2000r-xp 0 08:01 42 /x\n");		/* no blank after end */
	parse_bad("1000-2000 r-xp 0 0801 42 /x\n");		/* no ':' in the device */
	parse_bad("1000-2000 r-xp 0 08:01 x42 /x\n");		/* inode not decimal */
	parse_bad("1000-2000 r-xp 0 08:01 42x /x\n");		/* inode runs into text */
	parse_bad("1000-2000 r-xp\n");				/* truncated */
	parse_bad("1000-2000 r-xpr-xpr-xp 0 08:01 42 /x");	/* perms too long */
	parse_bad("10000000000000000-2000 r-xp 0 08:01 42 /x"); /* 17 hex digits */
	parse_bad("-2000 r-xp 0 08:01 42 /x");
}

/* Every line of this process's own maps parses as sscanf reads it. */
static void own_maps_agree_with_sscanf(void **state)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	(void)state;
	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off, ino;
		char perms[8];
		int pathpos = 0;
		struct maps_line m;

		assert_int_equal(sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end,
					perms, &off, &ino, &pathpos),
				 5);
		assert_true(maps_parse_line(line, &m));
		assert_int_equal(m.start, start);
		assert_int_equal(m.end, end);
		assert_string_equal(m.perms, perms);
		assert_int_equal(m.offset, off);
		assert_true(m.inode == ino);
		/* sscanf's blank also eats the newline of a pathless line. */
		assert_int_equal(strcspn(m.path, "\n"), strcspn(line + pathpos, "\n"));
		assert_memory_equal(m.path, line + pathpos, strcspn(m.path, "\n"));
		n++;
	}
	free(line);
	fclose(f);
	assert_true(n > 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_format),
		cmocka_unit_test(inodes),
		cmocka_unit_test(paths),
		cmocka_unit_test(malformed),
		cmocka_unit_test(own_maps_agree_with_sscanf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
