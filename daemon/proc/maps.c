// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps lines, parsed by hand: the process table (table.c) reads the maps of
 * every process it meets (and again after an exec), and sscanf spent most
 * of those instructions in its format interpreter and locale-aware number
 * conversion, and this runs for every new process and every re-read.
 */
#include <stddef.h>

#include "proc/maps.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* Hex digits at p into *v (at most 16 of them); NULL when there are none. */
static const char *hex_u64(const char *p, uint64_t *v)
{
	const char *start = p;
	uint64_t x = 0;

	for (;; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			break;
		if (p - start == 16)
			return NULL; /* would overflow */
		x = x << 4 | d;
	}
	*v = x;
	return p == start ? NULL : p;
}

/* Decimal digits at p into *v; NULL when there are none or it overflows. */
static const char *dec_u64(const char *p, uint64_t *v)
{
	const char *start = p;
	uint64_t x = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return NULL;
		x = x * 10 + d;
	}
	*v = x;
	return p == start ? NULL : p;
}

bool maps_parse_line(char *line, struct maps_line *out)
{
	const char *p = line;
	uint64_t dev;
	size_t i;

	if (!(p = hex_u64(p, &out->start)) || *p++ != '-' || !(p = hex_u64(p, &out->end)) ||
	    !is_blank(*p))
		return false;
	p = skip_blanks(p);
	for (i = 0; p[i] && !is_blank(p[i]) && p[i] != '\n'; i++) {
		if (i == sizeof(out->perms) - 1)
			return false;
		out->perms[i] = p[i];
	}
	if (!i)
		return false;
	out->perms[i] = '\0';
	p = skip_blanks(p + i);
	if (!(p = hex_u64(p, &out->offset)) || !is_blank(*p))
		return false;
	p = skip_blanks(p);
	if (!(p = hex_u64(p, &dev)) || *p++ != ':' || !(p = hex_u64(p, &dev)) || !is_blank(*p))
		return false;
	p = skip_blanks(p);
	if (!(p = dec_u64(p, &out->inode)) || (*p && !is_blank(*p) && *p != '\n'))
		return false;
	/* The path starts after the blanks that pad the inode column. */
	out->path = line + (skip_blanks(p) - line);
	return true;
}
