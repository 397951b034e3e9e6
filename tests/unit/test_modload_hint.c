// SPDX-License-Identifier: GPL-2.0
/*
 * The signing explanation from a fake system root: sig_enforce, lockdown,
 * an installed module signed or not; and the module-missing message: the
 * package command of the package manager the root has, the headers when
 * skyprof-dkms built nothing, a kernel without module support.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cmocka.h>

#include "capture/modload.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512], cmd[700];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/skyprof-modload.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static char *hint(const struct modload_state *s, bool *wrote)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	*wrote = modload_hint_signing(f, s);
	fclose(f);
	return buf;
}

static void test_not_enforced(void **state)
{
	struct modload_state s;
	bool wrote;

	(void)state;
	put("/sys/module/module/parameters/sig_enforce", "N\n");
	put("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
	modload_state_read(&s, root);
	assert_false(modload_enforced(&s));
	hint(&s, &wrote);
	assert_false(wrote);
	assert_string_equal(modload_hint_short(&s), "");
}

static void test_sig_enforce_unsigned(void **state)
{
	struct modload_state s;
	struct utsname u;
	char rel[300];
	bool wrote;
	char *t;

	(void)state;
	assert_int_equal(uname(&u), 0);
	put("/sys/module/module/parameters/sig_enforce", "Y\n");
	snprintf(rel, sizeof(rel), "/lib/modules/%s/updates/dkms/skyprof.ko", u.release);
	put(rel, "\177ELF, a module without the signature marker at its end");
	modload_state_read(&s, root);
	assert_true(s.sig_enforce);
	assert_true(modload_enforced(&s));
	assert_int_equal(s.module_signed, 0);
	t = hint(&s, &wrote);
	assert_true(wrote);
	assert_non_null(strstr(t, "module.sig_enforce=1"));
	assert_non_null(strstr(t, "mokutil --import /var/lib/dkms/mok.pub"));
	assert_non_null(strstr(t, "scripts/sign-file sha256 /var/lib/dkms/mok.key"));
	assert_non_null(strstr(t, "(not signed)"));
	assert_non_null(strstr(modload_hint_short(&s), "skyprof status"));
	/* signed with an untrusted key */
	put(rel, "\177ELF...~Module signature appended~\n");
	modload_state_read(&s, root);
	assert_int_equal(s.module_signed, 1);
	t = hint(&s, &wrote);
	assert_non_null(strstr(t, "signed, but apparently not with a trusted key"));
}

static void test_lockdown(void **state)
{
	struct modload_state s;
	bool wrote;
	char *t;

	(void)state;
	put("/sys/module/module/parameters/sig_enforce", "N\n");
	put("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	modload_state_read(&s, root);
	assert_true(s.lockdown);
	t = hint(&s, &wrote);
	assert_true(wrote);
	assert_non_null(strstr(t, "lockdown"));
}

static void test_loaded_version(void **state)
{
	char v[64];

	(void)state;
	modload_loaded_version(v, sizeof(v), root);
	assert_string_equal(v, "?");
	put("/sys/module/skyprof/version", "0.0.9\n");
	modload_loaded_version(v, sizeof(v), root);
	assert_string_equal(v, "0.0.9");
}

/* An empty root: what earlier tests wrote does not leak into the next. */
static void fresh(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", root, root);
	assert_int_equal(system(cmd), 0);
}

static const char *missing(void)
{
	static char err[512];

	modload_explain_missing(err, sizeof(err), root);
	return err;
}

static void test_missing_no_module_support(void **state)
{
	(void)state;
	fresh();
	put("/usr/bin/apt-get", "");
	/* no /proc/modules: CONFIG_MODULES=n */
	assert_non_null(strstr(missing(), "this kernel cannot load modules"));
	assert_null(strstr(missing(), "apt install"));
}

static void test_missing_by_package_manager(void **state)
{
	struct utsname u;
	char want[400];

	(void)state;
	assert_int_equal(uname(&u), 0);
	fresh();
	put("/proc/modules", "");
	assert_int_equal(modload_package_manager(root), MODLOAD_PKG_NONE);
	assert_non_null(strstr(missing(), "no package manager was found"));
	assert_non_null(strstr(missing(), "make dkms-install"));

	/* RHEL/CentOS 7: yum (rpm alone counts too) */
	put("/usr/bin/rpm", "");
	assert_int_equal(modload_package_manager(root), MODLOAD_PKG_YUM);
	put("/usr/bin/yum", "");
	snprintf(want, sizeof(want), "`yum install skyprof-dkms kernel-devel-%s`", u.release);
	assert_non_null(strstr(missing(), want));
	assert_non_null(strstr(missing(), "epel-release"));

	/* SLES: zypper wins over its rpm */
	put("/usr/bin/zypper", "");
	assert_int_equal(modload_package_manager(root), MODLOAD_PKG_ZYPPER);
	assert_non_null(strstr(missing(), "`zypper install skyprof-dkms kernel-default-devel`"));

	/* Debian with rpm installed (to build rpms) is still Debian */
	put("/usr/bin/dpkg", "");
	assert_int_equal(modload_package_manager(root), MODLOAD_PKG_APT);
	snprintf(want, sizeof(want), "`apt install skyprof-dkms linux-headers-%s`", u.release);
	assert_non_null(strstr(missing(), want));
	assert_non_null(strstr(missing(), u.release));
}

static void test_missing_installed_or_unbuilt(void **state)
{
	struct utsname u;
	char rel[300], want[400];

	(void)state;
	assert_int_equal(uname(&u), 0);
	fresh();
	put("/proc/modules", "");
	put("/bin/dpkg", "");
	/* the package's sources but no module for this kernel: the headers are missing */
	put("/usr/src/skyprof-0.1.0/dkms.conf", "PACKAGE_NAME=skyprof\n");
	snprintf(want, sizeof(want), "install its headers (linux-headers-%s)", u.release);
	assert_non_null(strstr(missing(), want));
	assert_non_null(strstr(missing(), "dkms autoinstall"));
	/* a module installed for this kernel: only the modprobe is missing */
	snprintf(rel, sizeof(rel), "/lib/modules/%s/updates/dkms/skyprof.ko", u.release);
	put(rel, "\177ELF");
	assert_non_null(strstr(missing(), "load it with `modprobe skyprof`"));
	/* loaded, but the family is not there */
	put("/sys/module/skyprof/version", "0.1.0\n");
	assert_non_null(strstr(missing(), "netlink family is missing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_enforced),
		cmocka_unit_test(test_sig_enforce_unsigned),
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_loaded_version),
		cmocka_unit_test(test_missing_no_module_support),
		cmocka_unit_test(test_missing_by_package_manager),
		cmocka_unit_test(test_missing_installed_or_unbuilt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
