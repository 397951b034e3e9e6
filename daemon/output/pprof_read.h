/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a pprof file back into a view (view.h): gunzip, protobuf-c unpack
 * and a validation of every index and id, so a corrupt or hostile file gets
 * a clear error and never a crash. Used by `skyprof report`.
 */
#ifndef SKYPROF_OUTPUT_PPROF_READ_H
#define SKYPROF_OUTPUT_PPROF_READ_H

#include <stddef.h>
#include <stdint.h>

struct view;

/* The largest profile accepted once decompressed. */
#define PPROF_MAX_BYTES (1ULL << 30)

/*
 * On success *out is a new view (view_free + free) and 0 is returned; else
 * -errno and, in err, a one-line reason.
 */
int pprof_read_buffer(const uint8_t *buf, size_t len, struct view **out, char *err, size_t errlen);
int pprof_read_file(const char *path, struct view **out, char *err, size_t errlen);

#endif
