// SPDX-License-Identifier: GPL-2.0
/*
 * The flame graph: a self-contained interactive SVG, laid out here from
 * scratch following the conventions flamegraph.pl made familiar: x is
 * population with siblings sorted alphabetically, y is depth with
 * the root at the bottom, 1200 px wide, 16 px frames, Verdana 12 px, frames
 * narrower than 0.1 px left out. Every frame is a <g> with a <title>
 * tooltip "func (N samples, P%)" (off-CPU: "func (1.25 ms, P%)"), a <rect> and a truncated
 * <text>; the script (svg_script.c) adds zoom and search.
 *
 * The frames are the folded output's lines (fold.h), so both show the same
 * stacks. A subtitle gives what the profile knows of its run: rate,
 * duration, samples and lost samples ("lost n/a" when the source did not
 * record them).
 *
 * Colours: user frames a warm palette, kernel frames a blue one, process
 * and thread frames grey-violet; hues come from a hash of the name so the
 * same function has the same colour in every graph. The differential graph
 * (report --diff) is laid out from the new profile and coloured by the
 * change of each frame's share of its profile's total: red grew, blue
 * shrank, white unchanged; frames only the base has are not drawn (the
 * folded diff lists them).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/fold.h"
#include "output/output.h"
#include "output/svg.h"
#include "lib/strtab.h"
#include "profile/view.h"

#define WIDTH	1200
#define PAD	10
#define FRAME_H 16
#define TOP	66
#define BOTTOM	34
#define MIN_PX	0.1
#define GLYPH_W 7.2

enum node_type { NODE_USER, NODE_KERNEL, NODE_COMM, NODE_ROOT, NODE_THREAD };

struct node {
	uint32_t name; /* string index in the tree's names */
	uint32_t parent;
	uint32_t depth;
	uint8_t type;
	uint64_t value, offset;
	uint64_t base; /* the base profile's value (differential graph) */
};

struct tree {
	struct strtab names;
	struct node *n;
	uint32_t nr, cap;
	uint64_t *keys; /* open addressing: (parent, name, type) */
	uint32_t *vals; /* node + 1 */
	uint32_t nr_slots;
	uint64_t base_total; /* the base profile's total */
};

static uint32_t slot_of(uint64_t key, uint32_t n)
{
	key *= 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(key >> 32) & (n - 1);
}

static int rehash(struct tree *t)
{
	uint32_t n = t->nr_slots ? t->nr_slots * 2 : 1024;
	uint64_t *k = calloc(n, sizeof(*k));
	uint32_t *v = calloc(n, sizeof(*v));

	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->nr_slots; i++) {
		if (!t->vals[i])
			continue;
		uint32_t h = slot_of(t->keys[i], n);

		while (v[h])
			h = (h + 1) & (n - 1);
		k[h] = t->keys[i];
		v[h] = t->vals[i];
	}
	free(t->keys);
	free(t->vals);
	t->keys = k;
	t->vals = v;
	t->nr_slots = n;
	return 0;
}

/* The child of parent named name (created if new); -ENOMEM on failure. */
static int64_t child(struct tree *t, uint32_t parent, uint32_t name, uint8_t type)
{
	uint64_t key = (uint64_t)parent << 35 | (uint64_t)name << 3 | type;
	uint32_t h;

	if ((t->nr + 1) * 2 > t->nr_slots && rehash(t))
		return -ENOMEM;
	for (h = slot_of(key, t->nr_slots); t->vals[h]; h = (h + 1) & (t->nr_slots - 1))
		if (t->keys[h] == key)
			return t->vals[h] - 1;
	if (t->nr == t->cap) {
		uint32_t cap = t->cap * 2;
		struct node *n = realloc(t->n, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->n = n;
		t->cap = cap;
	}
	memset(&t->n[t->nr], 0, sizeof(t->n[0]));
	t->n[t->nr].name = name;
	t->n[t->nr].parent = parent;
	t->n[t->nr].depth = t->n[parent].depth + 1;
	t->n[t->nr].type = type;
	t->keys[h] = key;
	t->vals[h] = t->nr + 1;
	return t->nr++;
}

static void tree_free(struct tree *t)
{
	strtab_free(&t->names);
	free(t->n);
	free(t->keys);
	free(t->vals);
}

static int tree_init(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->n = calloc(t->cap, sizeof(*t->n));
	if (!t->n || strtab_init(&t->names))
		return -ENOMEM;
	t->nr = 1; /* node 0: "all" */
	t->n[0].type = NODE_ROOT;
	return 0;
}

/*
 * Adds one folded line (fold.h) with its value, to the new profile's
 * values or (base) the base profile's: the graph is laid out from exactly
 * the lines the folded output prints, so the two never disagree on a
 * stack. The first frame is the process, the second its thread with
 * per_thread, "_[k]" marks a kernel frame.
 */
static int add_line(struct tree *t, const char *line, uint64_t val, bool per_thread, bool base)
{
	static const char ksuf[] = "_[k]";
	const size_t klen = sizeof(ksuf) - 1;
	uint32_t cur = 0, depth = 0;

	if (base)
		t->n[0].base += val;
	else
		t->n[0].value += val;
	while (*line) {
		const char *end = strchr(line, ';');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		uint8_t type = depth == 0		  ? NODE_COMM
			       : depth == 1 && per_thread ? NODE_THREAD
							  : NODE_USER;
		int64_t name, c;

		if (type == NODE_USER && len > klen && !memcmp(line + len - klen, ksuf, klen)) {
			type = NODE_KERNEL;
			len -= klen;
		}
		name = strtab_intern_len(&t->names, line, len);
		if (name < 0)
			return -ENOMEM;
		c = child(t, cur, (uint32_t)name, type);
		if (c < 0)
			return -ENOMEM;
		cur = (uint32_t)c;
		if (base)
			t->n[cur].base += val;
		else
			t->n[cur].value += val;
		depth++;
		line += len + (type == NODE_KERNEL ? klen : 0);
		if (*line == ';')
			line++;
	}
	return 0;
}

static int add_view(struct tree *t, const struct view *v, bool base)
{
	struct fold fo;
	int r = fold_build(&fo, v);

	for (uint32_t i = 1; !r && i < fo.lines.nr; i++)
		r = add_line(t, strtab_get(&fo.lines, i), fo.values[i], v->per_thread, base);
	fold_free(&fo);
	return r;
}

static const char *node_name(const struct tree *t, const struct node *n)
{
	const char *s;

	if (n->type == NODE_ROOT)
		return "all";
	s = strtab_get(&t->names, n->name);
	return *s ? s : "[unknown]";
}

/* qsort_r's comparison: siblings by name, then by kind. The tree comes as
 * the argument, so two graphs may be written at once (the agent). */
static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	const struct node *x = &t->n[*(const uint32_t *)a];
	const struct node *y = &t->n[*(const uint32_t *)b];
	int r = strcmp(node_name(t, x), node_name(t, y));

	return r ? r : (int)x->type - (int)y->type;
}

/*
 * Offsets: siblings alphabetically, left to right, each starting where the
 * previous ended inside the parent's span. Children have higher indices
 * than their parent, so one pass in index order sees parents first.
 */
static int layout(struct tree *t)
{
	uint32_t *first = calloc((size_t)t->nr + 1, sizeof(*first));
	uint32_t *order = calloc(t->nr ? t->nr : 1, sizeof(*order));
	uint32_t *fill;

	if (!first || !order) {
		free(first);
		free(order);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < t->nr; i++)
		first[t->n[i].parent + 1]++;
	for (uint32_t i = 1; i <= t->nr; i++)
		first[i] += first[i - 1];
	fill = calloc(t->nr ? t->nr : 1, sizeof(*fill));
	if (!fill) {
		free(first);
		free(order);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < t->nr; i++) {
		uint32_t p = t->n[i].parent;

		order[first[p] + fill[p]++] = i;
	}
	for (uint32_t p = 0; p < t->nr; p++) {
		uint64_t off = t->n[p].offset;

		qsort_r(order + first[p], first[p + 1] - first[p], sizeof(*order), cmp_child, t);
		for (uint32_t k = first[p]; k < first[p + 1]; k++) {
			t->n[order[k]].offset = off;
			off += t->n[order[k]].value;
		}
	}
	free(fill);
	free(first);
	free(order);
	return 0;
}

/* Length of the UTF-8 sequence at p, or 0 when it is not valid UTF-8. */
static int utf8_len(const unsigned char *p)
{
	int n = p[0] < 0x80		? 1
		: (p[0] & 0xe0) == 0xc0 ? 2
		: (p[0] & 0xf0) == 0xe0 ? 3
		: (p[0] & 0xf8) == 0xf0 ? 4
					: 0;

	for (int k = 1; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * XML text or attribute value of at most max characters. Symbol names are
 * bytes from binaries: what is not UTF-8 becomes U+FFFD, and the control
 * characters XML 1.0 forbids become spaces, so the SVG always parses.
 */
static void put_xml(FILE *f, const char *str, size_t max)
{
	const unsigned char *p = (const unsigned char *)str;

	for (size_t i = 0; *p && i < max; i++) {
		int n = utf8_len(p);

		if (!n) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, (size_t)n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*p < 0x20 ? ' ' : *p, f);
		}
		p++;
	}
}

/* Characters (not bytes) in a UTF-8 string, invalid bytes counting one. */
static size_t utf8_chars(const char *str)
{
	const unsigned char *p = (const unsigned char *)str;
	size_t n = 0;

	while (*p) {
		int l = utf8_len(p);

		p += l ? l : 1;
		n++;
	}
	return n;
}

static void put_count(FILE *f, uint64_t v)
{
	char buf[32], out[48];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = buf[i];
	}
	out[o] = '\0';
	fputs(out, f);
}

/* Off-CPU values are ns: shown as time with three significant digits. */
static void put_time(FILE *f, uint64_t ns)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	double v;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if ((double)ns < units[i].scale)
			continue;
		v = (double)ns / units[i].scale;
		fprintf(f, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, units[i].unit);
		return;
	}
	fprintf(f, "%" PRIu64 " ns", ns);
}

static uint32_t name_hash(const char *s)
{
	return (uint32_t)strtab_hash(s, strlen(s));
}

static void colour(const struct node *n, const char *name, char *buf, size_t len)
{
	uint32_t h = name_hash(name);
	double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0;
	double c = ((h >> 16) & 0xff) / 255.0;

	switch (n->type) {
	case NODE_ROOT:
		snprintf(buf, len, "rgb(200,200,200)");
		break;
	case NODE_COMM:
	case NODE_THREAD:
		snprintf(buf, len, "rgb(%d,%d,%d)", 170 + (int)(30 * a), 160 + (int)(20 * b), 210);
		break;
	case NODE_KERNEL:
		snprintf(buf, len, "rgb(%d,%d,%d)", 60 + (int)(60 * a), 150 + (int)(60 * b),
			 210 + (int)(45 * c));
		break;
	default:
		snprintf(buf, len, "rgb(%d,%d,%d)", 205 + (int)(50 * a), (int)(230 * b),
			 (int)(55 * c));
	}
}

static const char style[] =
	"<style type=\"text/css\">\n"
	"\ttext { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"\t#title { text-anchor: middle; font-size: 17px; }\n"
	"\t#subtitle { text-anchor: middle; fill: rgb(80,80,80); }\n"
	"\t#search, #reset, #clear { cursor: pointer; }\n"
	"\tg.f { cursor: pointer; }\n"
	"\tg.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	"\tg.p { opacity: 0.5; }\n"
	"</style>\n";

/* A node's share of its profile's total minus its share of the base's:
 * the differential graph's colour, normalised so that profiles of
 * different lengths compare. */
static double delta_share(const struct tree *t, const struct node *n)
{
	double now = t->n[0].value ? (double)n->value / (double)t->n[0].value : 0;
	double was = t->base_total ? (double)n->base / (double)t->base_total : 0;

	return now - was;
}

/* Red where the share grew, blue where it shrank, the deeper the more it
 * moved (relative to the largest move), white where it did not. */
static void diff_colour(double d, double max, char *buf, size_t len)
{
	double i = max > 0 ? fabs(d) / max : 0;
	int c = 250 - (int)(200 * i);

	if (i < 0.005)
		snprintf(buf, len, "rgb(250,250,250)");
	else if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", c, c);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", c, c);
}

static const char *kind_name(const struct view *v)
{
	return v->meta.kind == PROFILE_OFFCPU  ? "off-CPU"
	       : v->meta.kind == PROFILE_OTHER ? view_str(v, v->value_type)
					       : "on-CPU";
}

static void put_value(FILE *f, const struct view *v, const char *unit, uint64_t val)
{
	if (v->meta.kind == PROFILE_OFFCPU) {
		put_time(f, val);
	} else {
		put_count(f, val);
		fprintf(f, " %s", unit);
	}
}

/* What the profile knows of its run: rate, length, samples, losses. */
static void put_facts(FILE *f, const struct view *v, const char *unit, uint64_t total)
{
	uint64_t count = 0;

	for (uint32_t i = 0; i < v->nr_samples; i++)
		count += v->samples[i].count;
	fprintf(f, "%s", kind_name(v));
	if (v->meta.kind == PROFILE_ONCPU && v->meta.freq_hz)
		fprintf(f, ", %u Hz", v->meta.freq_hz);
	if (v->meta.duration_ns)
		fprintf(f, ", %.2f s", (double)v->meta.duration_ns / 1e9);
	fputs(", ", f);
	if (v->meta.kind == PROFILE_OFFCPU) {
		put_count(f, count);
		fputs(" switches, ", f);
		put_time(f, total);
		fputs(" blocked", f);
	} else if (v->meta.kind == PROFILE_OTHER) {
		put_value(f, v, unit, total);
	} else {
		put_count(f, total);
		fputs(" samples", f);
	}
	if (v->meta.kind == PROFILE_OTHER)
		return;
	if (v->meta.lost_known) {
		fputs(", ", f);
		put_count(f, v->meta.lost);
		fputs(" lost", f);
	} else {
		fputs(", lost n/a", f);
	}
}

/* What the whole picture shares: its height, the px per unit, the largest change of share. */
struct page {
	const struct view *v, *base; /* base: a differential flame graph */
	const char *unit;
	double scale, maxdelta;
	int height;
};

static void measure(const struct tree *t, struct page *pg)
{
	uint32_t maxd = 0;

	pg->scale = t->n[0].value ? (WIDTH - 2.0 * PAD) / (double)t->n[0].value : 0;
	pg->maxdelta = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		if (t->n[i].value * pg->scale < MIN_PX)
			continue;
		if (t->n[i].depth > maxd)
			maxd = t->n[i].depth;
		if (pg->base && fabs(delta_share(t, &t->n[i])) > pg->maxdelta)
			pg->maxdelta = fabs(delta_share(t, &t->n[i]));
	}
	pg->height = TOP + (int)(maxd + 1) * FRAME_H + BOTTOM;
}

/* The title: what kind of graph, and the caller's title after it. */
static void put_title(FILE *f, const struct page *pg, const char *title)
{
	const struct view *v = pg->v;
	char head[96];

	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", WIDTH / 2);
	if (pg->base)
		snprintf(head, sizeof(head), "Differential Flame Graph");
	else if (v->meta.kind == PROFILE_OTHER)
		snprintf(head, sizeof(head), "Flame Graph (%.60s)", view_str(v, v->value_type));
	else
		snprintf(head, sizeof(head), "%s",
			 v->meta.kind == PROFILE_OFFCPU ? "Off-CPU Flame Graph (time blocked)"
							: "Flame Graph");
	put_xml(f, head, sizeof(head));
	if (title && *title) {
		fputs(": ", f);
		put_xml(f, title, 200);
	}
	fputs("</text>\n", f);
}

/* Everything before the frames: the document, style, script, title and controls. */
static void put_head(FILE *f, const struct tree *t, const struct page *pg, const char *title)
{
	fprintf(f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" data-unit=\"",
		WIDTH, pg->height, WIDTH, pg->height);
	put_xml(f, pg->unit, 64);
	fputs("\" onload=\"fg.init()\">\n", f);
	fprintf(f, "<!-- Flame graph written by skyprof. Click a frame to zoom, Ctrl-F to "
		   "search, Ctrl-I to toggle case, Esc to reset. -->\n");
	fputs("<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" "
	      "offset=\"95%\"/></linearGradient></defs>\n",
	      f);
	fputs(style, f);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		output_svg_script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n", WIDTH,
		pg->height);
	put_title(f, pg, title);
	fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\">", WIDTH / 2);
	if (pg->base) {
		/* Widths are the new profile; colours the change of share. */
		put_facts(f, pg->v, pg->unit, t->n[0].value);
		fputs(" against base ", f);
		put_facts(f, pg->base, pg->unit, t->base_total);
		fputs("; red grew, blue shrank", f);
	} else {
		put_facts(f, pg->v, pg->unit, t->n[0].value);
	}
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"reset\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n",
		PAD);
	fprintf(f, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n", WIDTH - PAD - 110);
	fprintf(f, "<text id=\"case\" x=\"%d\" y=\"24\"></text>\n", WIDTH - PAD - 20);
	fprintf(f, "<text id=\"clear\" x=\"%d\" y=\"24\" style=\"opacity:0\">Clear</text>\n",
		WIDTH - PAD - 55);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, pg->height - 12);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n", WIDTH - PAD - 150,
		pg->height - 12);
}

/* One frame: its data for the script, a tooltip, the box and as much of the name as fits. */
static void put_frame(FILE *f, const struct tree *t, const struct page *pg, const struct node *n)
{
	const char *name = node_name(t, n);
	double x = PAD + (double)n->offset * pg->scale, w = (double)n->value * pg->scale;
	int y = pg->height - BOTTOM - (int)(n->depth + 1) * FRAME_H;
	size_t fit = w > 6 ? (size_t)floor((w - 6) / GLYPH_W) : 0;
	char fill[64];

	if (pg->base)
		diff_colour(delta_share(t, n), pg->maxdelta, fill, sizeof(fill));
	else
		colour(n, name, fill, sizeof(fill));
	fputs("<g class=\"f\" data-n=\"", f);
	put_xml(f, name, SIZE_MAX);
	fprintf(f, "\" data-o=\"%" PRIu64 "\" data-v=\"%" PRIu64 "\" data-d=\"%u\"", n->offset,
		n->value, n->depth);
	if (pg->base)
		fprintf(f, " data-b=\"%" PRIu64 "\"", n->base);
	fputs("><title>", f);
	put_xml(f, name, SIZE_MAX);
	fputs(" (", f);
	put_value(f, pg->v, pg->unit, n->value);
	fprintf(f, ", %.2f%%",
		t->n[0].value ? 100.0 * (double)n->value / (double)t->n[0].value : 0.0);
	if (pg->base) {
		fputs("; base ", f);
		put_value(f, pg->v, pg->unit, n->base);
		fprintf(f, ", %.2f%%; %+.2f%%",
			t->base_total ? 100.0 * (double)n->base / (double)t->base_total : 0.0,
			100.0 * delta_share(t, n));
	}
	fputs(")</title>", f);
	fprintf(f,
		"<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\" ry=\"2\"/><text x=\"%.1f\" y=\"%d\">",
		x, y, w, FRAME_H - 1, fill, x + 3, y + FRAME_H - 4);
	if (fit >= 3) {
		if (utf8_chars(name) <= fit) {
			put_xml(f, name, SIZE_MAX);
		} else {
			put_xml(f, name, fit - 2);
			fputs("..", f);
		}
	}
	fputs("</text></g>\n", f);
}

static int write_svg(struct tree *t, const struct view *v, const struct view *base, FILE *f,
		     const char *title)
{
	struct page pg = {
		.v = v,
		.base = base,
		.unit = v->meta.kind == PROFILE_OFFCPU	? "ns"
			: v->meta.kind == PROFILE_OTHER ? view_str(v, v->value_unit)
							: "samples",
	};
	int r = layout(t);

	if (r)
		return r;
	measure(t, &pg);
	put_head(f, t, &pg, title);
	fputs("<g id=\"frames\">\n", f);
	for (uint32_t i = 0; i < t->nr; i++)
		if ((double)t->n[i].value * pg.scale >= MIN_PX)
			put_frame(f, t, &pg, &t->n[i]);
	fputs("</g>\n</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

int output_svg_write(const struct view *v, FILE *f, const char *title)
{
	struct tree t;
	int r = tree_init(&t);

	if (!r)
		r = add_view(&t, v, false);
	if (!r)
		r = write_svg(&t, v, NULL, f, title);
	tree_free(&t);
	return r;
}

int output_svg_diff_write(const struct view *base, const struct view *v, FILE *f, const char *title)
{
	struct tree t;
	int r = tree_init(&t);

	if (!r)
		r = add_view(&t, base, true);
	if (!r)
		r = add_view(&t, v, false);
	if (!r) {
		t.base_total = t.n[0].base;
		r = write_svg(&t, v, base, f, title);
	}
	tree_free(&t);
	return r;
}
