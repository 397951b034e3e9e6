/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF/DWARF symbolization of user code through elfutils libdwfl: .symtab and
 * .dynsym, DWARF lines and inline frames, debuginfo found by build-id, by
 * .gnu_debuglink and in /usr/lib/debug. Files are cached by build-id, so a
 * library mapped by a hundred processes is opened and read once.
 */
#ifndef SKYPROF_SYM_ELF_H
#define SKYPROF_SYM_ELF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/strtab.h"
#include "sym/frame.h"

struct sym_elf_cache;
struct sym_elf;

/* debug_path: libdwfl's debuginfo path (NULL: ":.debug:/usr/lib/debug"). */
struct sym_elf_cache *sym_elf_cache_new(const char *debug_path, struct strtab *names);
void sym_elf_cache_free(struct sym_elf_cache *c);
size_t sym_elf_cache_files(const struct sym_elf_cache *c);
/*
 * Ends every file's libdwfl session: what libdw built for lookups (debug
 * sections decompressed to the heap, line tables, DIE and CFI caches) is
 * freed; the files stay cached and the next lookup in one reopens it.
 */
void sym_elf_cache_trim(struct sym_elf_cache *c);

/*
 * The cached file for fd (opened by the caller, ownership taken: closed
 * when a file with the same build-id is already cached). path is where
 * debuginfo is searched relative to (the debuglink lives beside it);
 * fallback_path is tried for that when path is gone (the process exited).
 * NULL when fd is not an ELF file.
 */
struct sym_elf *sym_elf_get(struct sym_elf_cache *c, int fd, const char *path,
			    const char *fallback_path);
/*
 * The cached file with st's identity (device, inode, size, modification
 * time), read before through sym_elf_get, or NULL: lets a caller that can
 * stat a path skip opening a file it already has.
 */
struct sym_elf *sym_elf_find_stat(struct sym_elf_cache *c, const struct stat *st);
/*
 * The same for an ELF image in memory (the vDSO, copied from our own
 * process: every process of one kernel and ABI maps the same image). The
 * image is copied.
 */
struct sym_elf *sym_elf_get_memory(struct sym_elf_cache *c, const void *image, size_t len,
				   const char *name);
const char *sym_elf_build_id(const struct sym_elf *e); /* hex or "" */

/*
 * Frames for the code at file offset off, innermost first; returns how many
 * (0: no symbol covers it). Strings are interned in the cache's table.
 */
unsigned int sym_elf_resolve(struct sym_elf *e, uint64_t off, struct sym_frame *frames,
			     unsigned int max, bool *has_lines, bool *has_inline);

#endif
