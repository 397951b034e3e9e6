// SPDX-License-Identifier: GPL-2.0
/*
 * random_bytes() with getrandom and, in a child whose seccomp filter makes
 * getrandom fail with ENOSYS as on a 3.10 kernel, through /dev/urandom.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/random_bytes.h"

/* Two fills of 64 bytes that are equal, or all zero, mean no randomness. */
static int looks_random(void)
{
	unsigned char a[64], b[64], zero[64] = { 0 };

	if (!random_bytes(a, sizeof(a)) || !random_bytes(b, sizeof(b)))
		return 1;
	if (!memcmp(a, b, sizeof(a)) || !memcmp(a, zero, sizeof(a)))
		return 2;
	return 0;
}

static void with_getrandom(void **state)
{
	(void)state;
	assert_int_equal(looks_random(), 0);
}

static int deny_getrandom(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void without_getrandom(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char c;

		if (deny_getrandom())
			_exit(10);
		/* the filter really denies it: else this tests nothing */
		if (syscall(SYS_getrandom, &c, 1, 0) != -1 || errno != ENOSYS)
			_exit(11);
		_exit(looks_random());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(with_getrandom),
		cmocka_unit_test(without_getrandom),
	};

	return cmocka_run_group_tests_name("random_bytes", tests, NULL, NULL);
}
