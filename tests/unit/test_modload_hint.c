// SPDX-License-Identifier: GPL-2.0
/*
 * The signing explanation from a fake system root: sig_enforce, lockdown,
 * an installed module signed or not.
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

#include "modload_hint.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_enforced),
		cmocka_unit_test(test_sig_enforce_unsigned),
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_loaded_version),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
