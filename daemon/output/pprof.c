// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof output: the view serialized as perftools.profiles.Profile and
 * gzip-compressed. The view already has pprof's shape, so this is mostly a
 * copy: ids are indices + 1 (0 means unset in pprof), mappings are reordered
 * so the main binaries come first and the kernel last.
 *
 * Values: on-CPU samples/count + cpu/nanoseconds (count x period), off-CPU
 * switches/count + off-cpu/nanoseconds (blocked time), a profile of another
 * kind read back its one chosen value; labels pid, tid, comm. The run's lost
 * samples, when known, go in a comment "skyprof lost=N".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/output.h"
#include "profile.pb-c.h"
#include "profile/view.h"

#ifndef SKYPROF_VERSION
#define SKYPROF_VERSION "dev"
#endif

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/* Everything allocated for one write, freed in one place. */
struct pb {
	struct strtab strs;
	PbProfile prof;
	PbValueType vt[3];
	PbValueType *vtp[2];
	PbSample *samples;
	PbSample **samplep;
	PbLabel *labels;
	PbLabel **labelp;
	uint64_t *locids;
	int64_t *values;
	PbMapping *maps;
	PbMapping **mapp;
	size_t nr_maps; /* filled so far */
	PbLocation *locs;
	PbLocation **locp;
	PbLine *lines;
	PbLine **linep;
	PbFunction *funcs;
	PbFunction **funcp;
	uint64_t *map_ids; /* view mapping index -> pprof id */
	int64_t comment[2];
	size_t nr_comments;
	int64_t k_pid, k_tid, k_comm; /* label keys */
};

static void pb_free(struct pb *b)
{
	strtab_free(&b->strs);
	free(b->samples);
	free(b->samplep);
	free(b->labels);
	free(b->labelp);
	free(b->locids);
	free(b->values);
	free(b->maps);
	free(b->mapp);
	free(b->locs);
	free(b->locp);
	free(b->lines);
	free(b->linep);
	free(b->funcs);
	free(b->funcp);
	free(b->map_ids);
}

static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

#define ALLOC(ptr, n) ((ptr) = zalloc((n), sizeof(*(ptr))))

static int64_t str(struct pb *b, const char *s)
{
	return strtab_intern(&b->strs, s);
}

/* The view's strings at their indices, then the value types, label keys and comments. */
static int build_strings(struct pb *b, const struct view *v)
{
	bool off = v->meta.kind == PROFILE_OFFCPU;

	if (strtab_init(&b->strs))
		return -ENOMEM;
	/* Same indices as the view's table; new strings go after. */
	for (uint32_t i = 1; i < v->strs.nr; i++)
		if (strtab_intern_len(&b->strs, v->strs.strs[i], v->strs.lens[i]) != i)
			return -ENOMEM;

	perftools__profiles__value_type__init(&b->vt[0]);
	perftools__profiles__value_type__init(&b->vt[1]);
	perftools__profiles__value_type__init(&b->vt[2]);
	b->vt[0].type = str(b, off ? "switches" : "samples");
	b->vt[0].unit = str(b, "count");
	b->vt[1].type = str(b, off ? "off-cpu" : "cpu");
	b->vt[1].unit = str(b, "nanoseconds");
	b->vt[2] = b->vt[1];
	b->vtp[0] = &b->vt[0];
	b->vtp[1] = &b->vt[1];
	b->k_pid = str(b, "pid");
	b->k_tid = str(b, "tid");
	b->k_comm = str(b, "comm");
	b->comment[0] = str(b, "skyprof " SKYPROF_VERSION);
	if (v->meta.lost_known) {
		char lost[48];

		snprintf(lost, sizeof(lost), "skyprof lost=%llu", (unsigned long long)v->meta.lost);
		b->comment[1] = str(b, lost);
		b->nr_comments = 2;
	} else {
		b->nr_comments = 1;
	}
	if (v->meta.kind == PROFILE_OTHER) {
		/* A profile of another kind read back: its one chosen value. */
		b->vt[0].type = v->value_type;
		b->vt[0].unit = v->value_unit;
		b->vt[2] = b->vt[0];
	}
	if (b->vt[0].type < 0 || b->vt[0].unit < 0 || b->vt[1].type < 0 || b->vt[1].unit < 0 ||
	    b->k_pid < 0 || b->k_tid < 0 || b->k_comm < 0 || b->comment[0] < 0 ||
	    b->comment[b->nr_comments - 1] < 0)
		return -ENOMEM;
	return 0;
}

/* Mappings: main binaries, then the rest, then the kernel. */
static int build_mappings(struct pb *b, const struct view *v)
{
	if (!ALLOC(b->maps, v->nr_mappings) || !ALLOC(b->mapp, v->nr_mappings) ||
	    !ALLOC(b->map_ids, v->nr_mappings))
		return -ENOMEM;
	for (int pass = 0; pass < 3; pass++) {
		for (uint32_t i = 0; i < v->nr_mappings; i++) {
			const struct view_mapping *m = &v->mappings[i];
			int want = m->kernel ? 2 : m->is_main ? 0 : 1;
			PbMapping *pm = &b->maps[b->nr_maps];

			if (want != pass)
				continue;
			perftools__profiles__mapping__init(pm);
			pm->id = b->nr_maps + 1;
			pm->memory_start = m->start;
			pm->memory_limit = m->limit;
			pm->file_offset = m->offset;
			pm->filename = m->filename;
			pm->build_id = m->build_id;
			pm->has_functions = m->has_functions;
			pm->has_filenames = m->has_lines;
			pm->has_line_numbers = m->has_lines;
			pm->has_inline_frames = m->has_inline;
			b->mapp[b->nr_maps] = pm;
			b->map_ids[i] = pm->id;
			b->nr_maps++;
		}
	}
	return 0;
}

static int build_functions(struct pb *b, const struct view *v)
{
	if (!ALLOC(b->funcs, v->nr_functions) || !ALLOC(b->funcp, v->nr_functions))
		return -ENOMEM;
	for (uint32_t i = 0; i < v->nr_functions; i++) {
		PbFunction *f = &b->funcs[i];

		perftools__profiles__function__init(f);
		f->id = i + 1;
		f->name = v->functions[i].name;
		f->system_name = v->functions[i].system_name;
		f->filename = v->functions[i].filename;
		f->start_line = v->functions[i].start_line;
		b->funcp[i] = f;
	}
	return 0;
}

/* Locations with their lines. */
static int build_locations(struct pb *b, const struct view *v)
{
	size_t nl = 0;

	if (!ALLOC(b->locs, v->nr_locations) || !ALLOC(b->locp, v->nr_locations) ||
	    !ALLOC(b->lines, v->nr_lines) || !ALLOC(b->linep, v->nr_lines))
		return -ENOMEM;
	for (uint32_t i = 0; i < v->nr_locations; i++) {
		const struct view_location *l = &v->locations[i];
		PbLocation *pl = &b->locs[i];

		perftools__profiles__location__init(pl);
		pl->id = i + 1;
		pl->address = l->address;
		pl->mapping_id =
			l->mapping && l->mapping <= v->nr_mappings ? b->map_ids[l->mapping - 1] : 0;
		pl->n_line = l->nr_lines;
		pl->line = b->linep + nl;
		for (uint32_t k = 0; k < l->nr_lines; k++, nl++) {
			const struct view_line *vl = &v->lines[l->first_line + k];

			perftools__profiles__line__init(&b->lines[nl]);
			b->lines[nl].function_id = vl->function + 1;
			b->lines[nl].line = vl->line;
			b->linep[nl] = &b->lines[nl];
		}
		b->locp[i] = pl;
	}
	return 0;
}

/* Samples: their stacks, values (see the top of the file) and labels pid, tid, comm. */
static int build_samples(struct pb *b, const struct view *v, uint64_t period)
{
	bool off = v->meta.kind == PROFILE_OFFCPU;
	bool other = v->meta.kind == PROFILE_OTHER;

	if (!ALLOC(b->samples, v->nr_samples) || !ALLOC(b->samplep, v->nr_samples) ||
	    !ALLOC(b->labels, (size_t)v->nr_samples * 3) ||
	    !ALLOC(b->labelp, (size_t)v->nr_samples * 3) || !ALLOC(b->locids, v->nr_sample_locs) ||
	    !ALLOC(b->values, (size_t)v->nr_samples * 2))
		return -ENOMEM;
	for (uint32_t i = 0; i < v->nr_sample_locs; i++)
		b->locids[i] = (uint64_t)v->sample_locs[i] + 1;
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		const struct view_sample *s = &v->samples[i];
		PbSample *ps = &b->samples[i];
		PbLabel *lb = &b->labels[(size_t)i * 3];

		perftools__profiles__sample__init(ps);
		ps->n_location_id = s->nr_locs;
		ps->location_id = b->locids + s->first_loc;
		ps->n_value = other ? 1 : 2;
		ps->value = b->values + (size_t)i * 2;
		ps->value[0] = (int64_t)(other ? s->weight : s->count);
		ps->value[1] = off	? (int64_t)s->weight
			       : period ? (int64_t)(s->weight * period)
					: (int64_t)s->weight;
		for (int k = 0; k < 3; k++) {
			perftools__profiles__label__init(&lb[k]);
			b->labelp[(size_t)i * 3 + k] = &lb[k];
		}
		lb[0].key = b->k_pid;
		lb[0].num = s->pid;
		lb[1].key = b->k_tid;
		lb[1].num = s->tid;
		lb[2].key = b->k_comm;
		lb[2].str = s->comm;
		ps->n_label = 3;
		ps->label = b->labelp + (size_t)i * 3;
		b->samplep[i] = ps;
	}
	return 0;
}

static int build(struct pb *b, const struct view *v)
{
	bool other = v->meta.kind == PROFILE_OTHER;
	uint64_t period = v->meta.kind == PROFILE_OFFCPU || other ? 1 : v->period;
	int r;

	r = build_strings(b, v);
	if (!r)
		r = build_mappings(b, v);
	if (!r)
		r = build_functions(b, v);
	if (!r)
		r = build_locations(b, v);
	if (!r)
		r = build_samples(b, v, period);
	if (r)
		return r;

	perftools__profiles__profile__init(&b->prof);
	b->prof.n_sample_type = other ? 1 : 2;
	b->prof.sample_type = b->vtp;
	b->prof.n_sample = v->nr_samples;
	b->prof.sample = b->samplep;
	b->prof.n_mapping = b->nr_maps;
	b->prof.mapping = b->mapp;
	b->prof.n_location = v->nr_locations;
	b->prof.location = b->locp;
	b->prof.n_function = v->nr_functions;
	b->prof.function = b->funcp;
	b->prof.n_string_table = b->strs.nr;
	b->prof.string_table = b->strs.strs;
	b->prof.time_nanos = (int64_t)v->meta.start_ns;
	b->prof.duration_nanos = (int64_t)v->meta.duration_ns;
	b->prof.period_type = &b->vt[2];
	b->prof.period = other ? 0 : (int64_t)period;
	b->prof.n_comment = b->nr_comments;
	b->prof.comment = b->comment;
	return 0;
}

/* gzip (not raw deflate): windowBits 15 + 16 asks zlib for the header. */
static int write_gzip(FILE *f, const uint8_t *buf, size_t len)
{
	unsigned char out[65536];
	z_stream z = { 0 };
	int r = 0, zr;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	do {
		/* avail_in is 32-bit: feed large buffers in pieces. */
		if (!z.avail_in && len) {
			size_t n = len > (1U << 30) ? (1U << 30) : len;

			z.avail_in = (uInt)n;
			len -= n;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, len || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			r = -EIO;
			break;
		}
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			r = -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return r;
}

int output_pprof_write(const struct view *v, FILE *f)
{
	struct pb b;
	uint8_t *buf = NULL;
	size_t len;
	int r;

	memset(&b, 0, sizeof(b));
	r = build(&b, v);
	if (!r) {
		len = perftools__profiles__profile__get_packed_size(&b.prof);
		buf = malloc(len ? len : 1);
		if (!buf)
			r = -ENOMEM;
	}
	if (!r) {
		perftools__profiles__profile__pack(&b.prof, buf);
		r = write_gzip(f, buf, len);
	}
	free(buf);
	pb_free(&b);
	return r;
}
