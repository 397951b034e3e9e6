// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON output: speedscope's file format (the "sampled" profile type of
 * speedscope's file-format-spec), so the file opens in speedscope as it is
 * and is easy to read from scripts. The schema as skyprof writes it:
 *
 *   {
 *     "$schema": "https://www.speedscope.app/file-format-schema.json",
 *     "exporter": "skyprof VERSION",
 *     "name": file name,
 *     "activeProfileIndex": 0,
 *     "shared": { "frames": [ { "name": s, "file": s?, "line": n? }, ... ] },
 *     "profiles": [ {
 *       "type": "sampled",
 *       "name": "on-CPU" | "off-CPU",
 *       "unit": "none" (weights are samples) | "nanoseconds" (blocked time),
 *       "startValue": 0, "endValue": sum of weights,
 *       "samples": [ [frame index, ...] root first, ... ],
 *       "weights": [ n, ... ]   one per sample
 *     } ]
 *   }
 *
 * As in the folded output the process name is each stack's root frame;
 * kernel frames carry a " [k]" suffix. Stacks are merged per distinct
 * (pid, tid, stack), so samples[] is short and weights[] carries the counts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "profile/view.h"

#ifndef SKYPROF_VERSION
#define SKYPROF_VERSION "dev"
#endif

/* JSON string: escapes, and bytes that are not UTF-8 become U+FFFD. */
static void put_str(FILE *f, const char *s, const char *suffix)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		int n = c < 0x80	     ? 0
			: (c & 0xe0) == 0xc0 ? 1
			: (c & 0xf0) == 0xe0 ? 2
			: (c & 0xf8) == 0xf0 ? 3
					     : -1;
		bool ok = n >= 0;

		for (int k = 1; ok && k <= n; k++)
			ok = (p[k] & 0xc0) == 0x80;
		if (!ok) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (n) {
			fwrite(p, 1, (size_t)n + 1, f);
			p += n + 1;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
		p++;
	}
	if (suffix)
		fputs(suffix, f);
	fputc('"', f);
}

struct jctx {
	const struct view *v;
	FILE *f;
	uint32_t *frame_of;   /* function * 2 + kernel -> frame index + 1 */
	uint32_t *comm_frame; /* string index -> frame index + 1 */
	uint32_t nr_frames;
	bool first;
};

static int emit_frame_ref(void *arg, uint32_t func, bool kernel)
{
	struct jctx *c = arg;

	fprintf(c->f, ",%" PRIu32, c->frame_of[func * 2 + kernel] - 1);
	return 0;
}

static int mark_frame(void *arg, uint32_t func, bool kernel)
{
	struct jctx *c = arg;
	uint32_t *slot = &c->frame_of[func * 2 + kernel];

	if (!*slot) {
		const struct view_function *fn = &c->v->functions[func];

		*slot = ++c->nr_frames;
		fputs(c->first ? "\n    {\"name\": " : ",\n    {\"name\": ", c->f);
		c->first = false;
		put_str(c->f, view_str(c->v, fn->name), kernel ? " [k]" : NULL);
		if (fn->filename) {
			fputs(", \"file\": ", c->f);
			put_str(c->f, view_str(c->v, fn->filename), NULL);
		}
		fputc('}', c->f);
	}
	return 0;
}

int output_speedscope_write(const struct view *v, FILE *f, const char *name)
{
	struct jctx c = { v, f, NULL, NULL, 0, true };
	bool off = v->meta.kind == PROFILE_OFFCPU;
	uint64_t total = 0;
	bool first;

	c.frame_of = calloc((size_t)v->nr_functions * 2 + 2, sizeof(*c.frame_of));
	c.comm_frame = calloc((size_t)v->strs.nr + 1, sizeof(*c.comm_frame));
	if (!c.frame_of || !c.comm_frame) {
		free(c.frame_of);
		free(c.comm_frame);
		return -ENOMEM;
	}
	fputs("{\n  \"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      "  \"exporter\": \"skyprof " SKYPROF_VERSION "\",\n  \"name\": ",
	      f);
	put_str(f, name, NULL);
	fputs(",\n  \"activeProfileIndex\": 0,\n  \"shared\": {\"frames\": [", f);
	/* Frames first, numbered in order of first use. */
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		const struct view_sample *s = &v->samples[i];

		if (!view_sample_value(v, s))
			continue;
		if (!c.comm_frame[s->comm]) {
			c.comm_frame[s->comm] = ++c.nr_frames;
			fputs(c.first ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
			c.first = false;
			put_str(f, s->comm ? view_str(v, s->comm) : "[unknown]", NULL);
			fputc('}', f);
		}
		view_walk_root_first(v, s, mark_frame, &c);
	}
	fputs("\n  ]},\n  \"profiles\": [{\n    \"type\": \"sampled\",\n    \"name\": ", f);
	put_str(f, off ? "off-CPU" : "on-CPU", NULL);
	fprintf(f, ",\n    \"unit\": \"%s\",\n    \"startValue\": 0,\n",
		off ? "nanoseconds" : "none");
	for (uint32_t i = 0; i < v->nr_samples; i++)
		total += view_sample_value(v, &v->samples[i]);
	fprintf(f, "    \"endValue\": %" PRIu64 ",\n    \"samples\": [", total);
	first = true;
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		const struct view_sample *s = &v->samples[i];

		if (!view_sample_value(v, s))
			continue;
		fprintf(f, "%s\n      [%" PRIu32, first ? "" : ",", c.comm_frame[s->comm] - 1);
		first = false;
		view_walk_root_first(v, s, emit_frame_ref, &c);
		fputc(']', f);
	}
	fputs("\n    ],\n    \"weights\": [", f);
	first = true;
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		uint64_t val = view_sample_value(v, &v->samples[i]);

		if (!val)
			continue;
		fprintf(f, "%s%" PRIu64, first ? "" : ", ", val);
		first = false;
	}
	fputs("]\n  }]\n}\n", f);
	free(c.frame_of);
	free(c.comm_frame);
	return ferror(f) ? -EIO : 0;
}
