// SPDX-License-Identifier: GPL-2.0
#include "lib/random_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

static bool read_urandom(unsigned char *p, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return len == 0;
}

bool random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, GRND_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		/* ENOSYS: a kernel before getrandom; EAGAIN: a pool not yet
		 * initialised early at boot, where urandom still answers. */
		if (n < 0)
			return read_urandom(p, len);
		p += n;
		len -= (size_t)n;
	}
	return true;
}
