/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols from /proc/kallsyms, module symbols named "func [module]". */
#ifndef SKYPROF_SYM_KERNEL_H
#define SKYPROF_SYM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

struct sym_kernel;

/*
 * Loads the text symbols of path. When every address reads as zero
 * (kernel.kptr_restrict, or not root) says so once on stderr unless quiet,
 * and every lookup then misses. NULL only on -ENOMEM or an unreadable file.
 */
struct sym_kernel *sym_kernel_load(const char *path, bool quiet);
void sym_kernel_free(struct sym_kernel *k);
/* "func", "func [module]", or NULL when addr is below every symbol. */
const char *sym_kernel_lookup(const struct sym_kernel *k, uint64_t addr);
size_t sym_kernel_count(const struct sym_kernel *k);

#endif
