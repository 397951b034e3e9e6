// SPDX-License-Identifier: GPL-2.0
/*
 * Demangling through libiberty's cplus_demangle (Debian's libiberty-dev, the
 * same code binutils and gdb use). It is chosen over libstdc++'s
 * __cxa_demangle because one call covers Itanium C++ and both Rust schemes:
 * legacy Rust symbols look like C++ ones (_ZN...17h<hash>E) and need the Rust
 * rules to drop the hash, and v0 symbols (_R...) are not C++ at all. It is a
 * static library, so the binary gains no runtime dependency.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sym/demangle.h"

char *sym_demangle(const char *name)
{
	/* Cheap filter: everything mangled starts with _Z or _R (possibly
	 * behind the extra underscore some platforms add). */
	if (!name || name[0] != '_')
		return NULL;
	if (name[1] != 'Z' && name[1] != 'R' &&
	    !(name[1] == '_' && (name[2] == 'Z' || name[2] == 'R')))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
