/* SPDX-License-Identifier: GPL-2.0 */
/* One frame an address resolves to: what every symbol source fills in. */
#ifndef SKYPROF_SYM_FRAME_H
#define SKYPROF_SYM_FRAME_H

#include <stdint.h>

struct sym_frame {
	const char *name;	 /* demangled; never NULL or empty */
	const char *system_name; /* the symbol as in the binary, or "" */
	const char *file;	 /* source file, or "" */
	uint32_t line;		 /* 0 when unknown */
};

#define SYM_MAX_FRAMES 16 /* inline depth kept per address */

#endif
