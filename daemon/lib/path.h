/* SPDX-License-Identifier: GPL-2.0 */
/* Paths built with a format, where a cut path must not name another file. */
#ifndef SKYPROF_LIB_PATH_H
#define SKYPROF_LIB_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* snprintf into buf[n] that says whether the whole path fit: false when it
 * was cut (or the format failed), and the path must not be used. */
__attribute__((format(printf, 3, 4))) bool path_fmt(char *buf, size_t n, const char *fmt, ...);

#endif
