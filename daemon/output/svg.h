/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by the flame graph writer and its script. */
#ifndef SKYPROF_OUTPUT_SVG_H
#define SKYPROF_OUTPUT_SVG_H

extern const char output_svg_script[];

#endif
