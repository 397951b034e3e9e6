/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of hottest functions that `report` prints and `top` refreshes:
 * self and total share of each, kernel functions marked [k].
 */
#ifndef SKYPROF_OUTPUT_TOP_TABLE_H
#define SKYPROF_OUTPUT_TOP_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/top.h"

/* The heading and n rows of top, as shares of total (0 % when total is 0). */
void output_top_table_print(FILE *f, const struct func_share *top, size_t n, uint64_t total);

#endif
