/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SKYPROF_LIB_RANDOM_BYTES_H
#define SKYPROF_LIB_RANDOM_BYTES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Fills buf with len bytes from the kernel's random pool: getrandom(), or
 * /dev/urandom on kernels older than 3.17, which have no getrandom (RHEL 7's
 * 3.10 among them). False when neither gives the bytes.
 */
bool random_bytes(void *buf, size_t len);

#endif
