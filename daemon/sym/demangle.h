/* SPDX-License-Identifier: GPL-2.0 */
/* C++ (Itanium) and Rust (legacy and v0) symbol demangling. */
#ifndef SKYPROF_SYM_DEMANGLE_H
#define SKYPROF_SYM_DEMANGLE_H

/* A malloc'd demangled name, or NULL when name is not a mangled symbol. */
char *sym_demangle(const char *name);

#endif
