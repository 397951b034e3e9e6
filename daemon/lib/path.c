// SPDX-License-Identifier: GPL-2.0
/* Paths built with a format (see path.h). */
#include <stdarg.h>
#include <stdio.h>

#include "lib/path.h"

bool path_fmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r >= 0 && (size_t)r < n;
}
