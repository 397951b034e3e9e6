// SPDX-License-Identifier: GPL-2.0
/*
 * bool user_access_begin(const void __user *ptr, size_t len), unsafe_get_user()
 * and user_access_end() (x86 5.3+; before, one argument or none). Where the
 * kernel's access_ok() warns outside task context (5.10 with
 * DEBUG_ATOMIC_SLEEP) it does so only with pagefaults enabled: callers keep
 * them disabled.
 */
#include <linux/types.h>
#include <linux/uaccess.h>

int skyprof_probe(const u64 __user *p, u64 *v);
int skyprof_probe(const u64 __user *p, u64 *v)
{
	u64 x;

	if (!user_access_begin(p, 2 * sizeof(*p)))
		return -1;
	unsafe_get_user(x, p, fault);
	unsafe_get_user(*v, p + 1, fault);
	user_access_end();
	return x ? 0 : 1;
fault:
	user_access_end();
	return -1;
}
