/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch directory for a test binary's files: made by scratch_setup (the
 * group setup), removed with its contents by scratch_teardown; tmp(NAME) is
 * a path in it (16 at a time stay valid), slurp(PATH) a file read whole.
 * Include after the cmocka headers.
 */
#ifndef SKYPROF_TEST_SCRATCH_DIR_H
#define SKYPROF_TEST_SCRATCH_DIR_H

#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static const char *tmp(const char *name)
{
	static char path[16][160];
	static int next;
	char *p = path[next++ % 16];

	snprintf(p, 160, "%s/%s", dir, name);
	return p;
}

static __attribute__((unused)) char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static int scratch_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/skyprof-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int scratch_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
