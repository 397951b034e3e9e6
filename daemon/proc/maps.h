/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of /proc/PID/maps: "START-END PERMS OFFSET MAJ:MIN INODE [PATH]".
 */
#ifndef SKYPROF_PROC_MAPS_H
#define SKYPROF_PROC_MAPS_H

#include <stdbool.h>
#include <stdint.h>

struct maps_line {
	uint64_t start, end, offset;
	uint64_t inode; /* of the mapped file; 0 for anonymous memory */
	char perms[8];	/* "r-xp", NUL terminated */
	char *path;	/* into the line, after the inode's blanks: "" for none */
};

/*
 * Parses line (one line, with or without its '\n', which stays). false: not
 * a maps line (then *out is unspecified). path points into line.
 */
bool maps_parse_line(char *line, struct maps_line *out);

#endif
