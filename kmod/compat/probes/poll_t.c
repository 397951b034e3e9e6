// SPDX-License-Identifier: GPL-2.0
/* __poll_t and the EPOLL* masks in the kernel (4.16+). */
#include <linux/poll.h>

__poll_t skyprof_probe(void);
__poll_t skyprof_probe(void)
{
	return EPOLLIN | EPOLLRDNORM | EPOLLHUP | EPOLLERR;
}
