// SPDX-License-Identifier: GPL-2.0
/*
 * --cgroup path conversion against a fake mountinfo whose cgroup2 mounts
 * point at directories made in a temporary tree.
 */
#include <errno.h>
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

#include "capture/cgroup.h"

static char top[256], mi[300], out[4096], err[512];

static void mk(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", top, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void write_mountinfo(const char *lines)
{
	FILE *f = fopen(mi, "w");

	assert_non_null(f);
	fputs(lines, f);
	fclose(f);
}

static int setup(void **state)
{
	char lines[4096];

	(void)state;
	snprintf(top, sizeof(top), "/tmp/skyprof-cgtest.%d", (int)getpid());
	snprintf(mi, sizeof(mi), "%s/mountinfo", top);
	assert_int_equal(mkdir(top, 0755), 0);
	mk("/cg");
	mk("/cg/system.slice");
	mk("/cg/system.slice/app.service");
	mk("/cg/unified");
	mk("/cg/unified/user.slice");
	mk("/sub");
	mk("/sub/pod");
	mk("/with space");
	/* The unified mount nests inside the first one; the ns mount shows a subtree. */
	snprintf(lines, sizeof(lines),
		 "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		 "36 22 0:30 / %s/cg rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
		 "37 36 0:31 / %s/cg/unified rw shared:10 - cgroup2 cgroup2 rw\n"
		 "38 22 0:30 /kubepods/burstable %s/sub rw - cgroup2 cgroup2 rw\n"
		 "39 22 0:32 / %s/v1 rw shared:11 - cgroup cgroup rw,cpu\n"
		 "40 22 0:30 / %s/with\\040space rw - cgroup2 cgroup2 rw\n",
		 top, top, top, top, top);
	write_mountinfo(lines);
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int conv(const char *fmt, const char *arg)
{
	char in[1024];

	snprintf(in, sizeof(in), fmt, arg);
	return cgroup_hierarchy_path(in, mi, out, sizeof(out), err, sizeof(err));
}

static void normalize(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(cgroup_normalize("/a//b/./c/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a/b/c");
	assert_int_equal(cgroup_normalize("a/b", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a/b");
	assert_int_equal(cgroup_normalize("/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(cgroup_normalize("", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(cgroup_normalize("/a/../b", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cgroup_normalize("/abcdefgh", buf, 8), -ENAMETOOLONG);
	assert_int_equal(cgroup_normalize("/..a/b..", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/..a/b..");
}

static void sysfs_path_is_stripped(void **state)
{
	(void)state;
	assert_int_equal(conv("%s/cg/system.slice/app.service", top), 0);
	assert_string_equal(out, "/system.slice/app.service");
	assert_int_equal(conv("%s/cg/system.slice/", top), 0);
	assert_string_equal(out, "/system.slice");
	assert_int_equal(conv("%s/cg", top), 0);
	assert_string_equal(out, "/");
	assert_int_equal(conv("%s//cg/./system.slice", top), 0);
	assert_string_equal(out, "/system.slice");
}

static void longest_mount_wins(void **state)
{
	(void)state;
	assert_int_equal(conv("%s/cg/unified/user.slice", top), 0);
	assert_string_equal(out, "/user.slice");
}

static void mount_root_is_prepended(void **state)
{
	(void)state;
	assert_int_equal(conv("%s/sub/pod", top), 0);
	assert_string_equal(out, "/kubepods/burstable/pod");
	assert_int_equal(conv("%s/with space", top), 0);
	assert_string_equal(out, "/");
}

static void hierarchy_path_kept(void **state)
{
	(void)state;
	assert_int_equal(conv("%s", "/system.slice/app.service"), 0);
	assert_string_equal(out, "/system.slice/app.service");
	assert_int_equal(conv("%s", "system.slice"), 0);
	assert_string_equal(out, "/system.slice");
	assert_int_equal(conv("%s", "/"), 0);
	assert_string_equal(out, "/");
	/* Only visible through the subtree mount. */
	assert_int_equal(conv("%s", "/kubepods/burstable/pod"), 0);
	assert_string_equal(out, "/kubepods/burstable/pod");
}

static void missing_and_bad(void **state)
{
	(void)state;
	assert_int_equal(conv("%s/cg/nope", top), -ENOENT);
	assert_non_null(strstr(err, "no such cgroup"));
	assert_int_equal(conv("%s", "/no/such/group"), -ENOENT);
	assert_non_null(strstr(err, "/no/such/group"));
	assert_int_equal(conv("%s/cg/../etc", top), -EINVAL);
	assert_non_null(strstr(err, ".."));
	/* A v1 mount does not count. */
	assert_int_equal(conv("%s/v1", top), -ENOENT);
}

static void no_cgroup2(void **state)
{
	(void)state;
	write_mountinfo("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
	assert_int_equal(conv("%s", "/x"), -ENOENT);
	assert_non_null(strstr(err, "cgroup v2"));
	assert_int_equal(cgroup_hierarchy_path("/x", "/nonexistent/mountinfo", out, sizeof(out),
					       err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot read"));
}

static void transient_group(void **state)
{
	struct cgroup_transient t;
	char procs[sizeof(((struct cgroup_transient *)0)->dir) + 32], buf[32] = "";
	FILE *f;

	(void)state;
	assert_int_equal(cgroup_transient_create(&t, mi, "skyprof-record.42", err, sizeof(err)), 0);
	/* Made below the mount of the whole hierarchy, not the subtree mount. */
	assert_string_equal(t.path, "/skyprof-record.42");
	snprintf(procs, sizeof(procs), "%s/cg/skyprof-record.42", top);
	assert_string_equal(t.dir, procs);
	assert_int_equal(cgroup_transient_create(&t, mi, "skyprof-record.42", err, sizeof(err)),
			 -EEXIST);
	assert_non_null(strstr(err, "cannot create"));
	t.made = true;
	assert_int_equal(cgroup_transient_add(&t, 1234, err, sizeof(err)), 0);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", t.dir);
	f = fopen(procs, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "1234\n");
	/* A plain directory with a file in it is not empty: not removed. */
	assert_int_not_equal(cgroup_transient_remove(&t), 0);
	unlink(procs);
	assert_int_equal(cgroup_transient_remove(&t), 0);
	assert_false(t.made);
	assert_int_equal(cgroup_transient_remove(&t), 0);

	write_mountinfo("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
	assert_int_equal(cgroup_transient_create(&t, mi, "x", err, sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalize),
		cmocka_unit_test_setup_teardown(sysfs_path_is_stripped, setup, teardown),
		cmocka_unit_test_setup_teardown(longest_mount_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(mount_root_is_prepended, setup, teardown),
		cmocka_unit_test_setup_teardown(hierarchy_path_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_and_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(no_cgroup2, setup, teardown),
		cmocka_unit_test_setup_teardown(transient_group, setup, teardown),
	};

	return cmocka_run_group_tests_name("cgroup", tests, NULL, NULL);
}
