// SPDX-License-Identifier: GPL-2.0
/*
 * pprof reader (see pprof_read.h). Trusts nothing in the file: protobuf-c
 * checks the wire format, this file checks the meaning (string indices in
 * range, ids nonzero and unique, references resolvable, one value per
 * sample type, no negative counts) before anything is copied into a view.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "output/pprof_read.h"
#include "profile.pb-c.h"
#include "profile/view.h"

typedef Perftools__Profiles__Profile PbProfile;

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *outlen, char *err,
		  size_t errlen)
{
	z_stream z = { 0 };
	size_t cap = len * 4 + 4096, n = 0;
	uint8_t *buf;
	int zr;

	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return -ENOMEM;
	if (cap > PPROF_MAX_BYTES)
		cap = PPROF_MAX_BYTES;
	buf = malloc(cap);
	if (!buf) {
		inflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	for (;;) {
		if (n == cap) {
			uint8_t *nb;

			if (cap >= PPROF_MAX_BYTES) {
				free(buf);
				inflateEnd(&z);
				return fail(err, errlen, "decompresses to more than %llu bytes",
					    (unsigned long long)PPROF_MAX_BYTES);
			}
			cap = cap * 2 > PPROF_MAX_BYTES ? PPROF_MAX_BYTES : cap * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				inflateEnd(&z);
				return -ENOMEM;
			}
			buf = nb;
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - buf);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && !(zr == Z_BUF_ERROR && n == cap)) {
			free(buf);
			inflateEnd(&z);
			return fail(err, errlen, "corrupt gzip data%s%s", z.msg ? ": " : "",
				    z.msg ? z.msg : "");
		}
	}
	inflateEnd(&z);
	*out = buf;
	*outlen = n;
	return 0;
}

/* id -> index, by bisection over a sorted copy. */
struct idmap {
	uint64_t *ids; /* sorted */
	uint32_t *idx;
	size_t n;
};

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Builds the map; fails on a zero or duplicated id. */
static int idmap_build(struct idmap *m, size_t n, uint64_t (*get)(const void *, size_t),
		       const void *arr)
{
	uint64_t *pairs = calloc(n ? n * 2 : 2, sizeof(*pairs));

	m->ids = calloc(n ? n : 1, sizeof(*m->ids));
	m->idx = calloc(n ? n : 1, sizeof(*m->idx));
	m->n = n;
	if (!pairs || !m->ids || !m->idx) {
		free(pairs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		pairs[i * 2] = get(arr, i);
		pairs[i * 2 + 1] = i;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), cmp_pair);
	for (size_t i = 0; i < n; i++) {
		m->ids[i] = pairs[i * 2];
		m->idx[i] = (uint32_t)pairs[i * 2 + 1];
		if (!m->ids[i] || (i && m->ids[i] == m->ids[i - 1])) {
			free(pairs);
			return -EINVAL;
		}
	}
	free(pairs);
	return 0;
}

static int64_t idmap_find(const struct idmap *m, uint64_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ids[mid] == id)
			return m->idx[mid];
		if (m->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void idmap_free(struct idmap *m)
{
	free(m->ids);
	free(m->idx);
}

static uint64_t map_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Mapping *const *)a)[i]->id;
}

static uint64_t loc_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Location *const *)a)[i]->id;
}

static uint64_t func_id(const void *a, size_t i)
{
	return ((Perftools__Profiles__Function *const *)a)[i]->id;
}

struct ctx {
	const PbProfile *pb;
	struct view *v;
	uint32_t *str;	    /* file string index -> view string index */
	size_t value_index; /* PROFILE_OTHER: the value kept */
	struct idmap maps, locs, funcs;
	char *err;
	size_t errlen;
};

static bool str_ok(const struct ctx *c, int64_t i)
{
	return i >= 0 && (uint64_t)i < c->pb->n_string_table;
}

/* Callers check str_ok first; the guard keeps a slip from reading out of
 * bounds. */
static uint32_t S(const struct ctx *c, int64_t i)
{
	return c->str && str_ok(c, i) ? c->str[i] : 0;
}

static int check_strings(struct ctx *c)
{
	const PbProfile *pb = c->pb;

	if (!pb->n_string_table)
		return fail(c->err, c->errlen, "not a pprof profile (no string table)");
	if (!pb->string_table[0] || pb->string_table[0][0])
		return fail(c->err, c->errlen, "string_table[0] is not the empty string");
	if (pb->n_string_table > UINT32_MAX / 2)
		return fail(c->err, c->errlen, "string table too large");
	c->str = calloc(pb->n_string_table, sizeof(*c->str));
	if (!c->str)
		return -ENOMEM;
	for (size_t i = 0; i < pb->n_string_table; i++) {
		int64_t r =
			strtab_intern(&c->v->strs, pb->string_table[i] ? pb->string_table[i] : "");

		if (r < 0)
			return -ENOMEM;
		c->str[i] = (uint32_t)r;
	}
	return 0;
}

static int copy_mappings(struct ctx *c)
{
	const PbProfile *pb = c->pb;
	int r = idmap_build(&c->maps, pb->n_mapping, map_id, pb->mapping);

	if (r == -EINVAL)
		return fail(c->err, c->errlen, "mapping ids must be nonzero and unique");
	if (r)
		return r;
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = pb->mapping[i];
		struct view_mapping vm = { 0 };

		if (!str_ok(c, m->filename) || !str_ok(c, m->build_id))
			return fail(c->err, c->errlen, "mapping %llu: string index out of range",
				    (unsigned long long)m->id);
		vm.start = m->memory_start;
		vm.limit = m->memory_limit;
		vm.offset = m->file_offset;
		vm.filename = S(c, m->filename);
		vm.build_id = S(c, m->build_id);
		vm.has_functions = m->has_functions;
		vm.has_lines = m->has_line_numbers;
		vm.has_inline = m->has_inline_frames;
		vm.kernel = !strcmp(view_str(c->v, vm.filename), VIEW_KERNEL_MAPPING);
		vm.is_main = i == 0 && !vm.kernel;
		if (view_add_mapping(c->v, &vm) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int copy_functions(struct ctx *c)
{
	const PbProfile *pb = c->pb;
	int r = idmap_build(&c->funcs, pb->n_function, func_id, pb->function);

	if (r == -EINVAL)
		return fail(c->err, c->errlen, "function ids must be nonzero and unique");
	if (r)
		return r;
	for (size_t i = 0; i < pb->n_function; i++) {
		const Perftools__Profiles__Function *f = pb->function[i];
		struct view_function vf = { 0 };

		if (!str_ok(c, f->name) || !str_ok(c, f->system_name) || !str_ok(c, f->filename))
			return fail(c->err, c->errlen, "function %llu: string index out of range",
				    (unsigned long long)f->id);
		vf.name = S(c, f->name);
		vf.system_name = S(c, f->system_name);
		vf.filename = S(c, f->filename);
		vf.start_line = f->start_line;
		if (view_add_function(c->v, &vf) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int copy_locations(struct ctx *c)
{
	const PbProfile *pb = c->pb;
	int r = idmap_build(&c->locs, pb->n_location, loc_id, pb->location);

	if (r == -EINVAL)
		return fail(c->err, c->errlen, "location ids must be nonzero and unique");
	if (r)
		return r;
	for (size_t i = 0; i < pb->n_location; i++) {
		const Perftools__Profiles__Location *l = pb->location[i];
		struct view_location vl = { 0 };
		int64_t m = -1;

		if (l->mapping_id) {
			m = idmap_find(&c->maps, l->mapping_id);
			if (m < 0)
				return fail(c->err, c->errlen,
					    "location %llu: unknown mapping %llu",
					    (unsigned long long)l->id,
					    (unsigned long long)l->mapping_id);
		}
		vl.address = l->address;
		vl.mapping = (uint32_t)(m + 1);
		vl.kernel = m >= 0 && c->v->mappings[m].kernel;
		vl.first_line = c->v->nr_lines;
		for (size_t k = 0; k < l->n_line; k++) {
			int64_t f = idmap_find(&c->funcs, l->line[k]->function_id);
			struct view_line ln = { 0 };

			if (f < 0)
				return fail(c->err, c->errlen,
					    "location %llu: unknown function %llu",
					    (unsigned long long)l->id,
					    (unsigned long long)l->line[k]->function_id);
			ln.function = (uint32_t)f;
			ln.line = l->line[k]->line;
			if (view_add_line(c->v, &ln) < 0)
				return -ENOMEM;
		}
		vl.nr_lines = c->v->nr_lines - vl.first_line;
		if (!vl.nr_lines) {
			/* Unsymbolized: give it a name so every output has one. */
			struct view_function vf = { 0 };
			struct view_line ln = { 0 };
			char name[64];
			int64_t s, f;

			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)l->address);
			s = strtab_intern(&c->v->strs, name);
			if (s < 0)
				return -ENOMEM;
			vf.name = (uint32_t)s;
			f = view_add_function(c->v, &vf);
			if (f < 0)
				return -ENOMEM;
			ln.function = (uint32_t)f;
			if (view_add_line(c->v, &ln) < 0)
				return -ENOMEM;
			vl.nr_lines = 1;
		}
		if (view_add_location(c->v, &vl) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int copy_samples(struct ctx *c)
{
	const PbProfile *pb = c->pb;
	bool off = c->v->meta.kind == PROFILE_OFFCPU;
	int64_t k_pid = strtab_find(&c->v->strs, "pid");
	int64_t k_tid = strtab_find(&c->v->strs, "tid");
	int64_t k_comm = strtab_find(&c->v->strs, "comm");
	uint32_t *locs = NULL;
	size_t cap = 0;
	int r = 0;

	for (size_t i = 0; i < pb->n_sample && !r; i++) {
		const Perftools__Profiles__Sample *s = pb->sample[i];
		struct view_sample vs = { 0 };

		if (s->n_value != pb->n_sample_type) {
			r = fail(c->err, c->errlen,
				 "sample %zu has %zu values for %zu sample types", i, s->n_value,
				 pb->n_sample_type);
			break;
		}
		for (size_t k = 0; k < s->n_value; k++)
			if (s->value[k] < 0)
				r = fail(c->err, c->errlen, "sample %zu: negative value", i);
		if (r)
			break;
		if (s->n_location_id > UINT32_MAX / 2) {
			r = fail(c->err, c->errlen, "sample %zu: too many locations", i);
			break;
		}
		if (s->n_location_id > cap) {
			uint32_t *n = realloc(locs, s->n_location_id * sizeof(*n));

			if (!n) {
				r = -ENOMEM;
				break;
			}
			locs = n;
			cap = s->n_location_id;
		}
		for (size_t k = 0; k < s->n_location_id; k++) {
			int64_t l = idmap_find(&c->locs, s->location_id[k]);

			if (l < 0) {
				r = fail(c->err, c->errlen, "sample %zu: unknown location %llu", i,
					 (unsigned long long)s->location_id[k]);
				break;
			}
			locs[k] = (uint32_t)l;
		}
		if (r)
			break;
		for (size_t k = 0; k < s->n_label; k++) {
			const Perftools__Profiles__Label *lb = s->label[k];

			if (!str_ok(c, lb->key) || !str_ok(c, lb->str) ||
			    !str_ok(c, lb->num_unit)) {
				r = fail(c->err, c->errlen, "sample %zu: label string out of range",
					 i);
				break;
			}
			if (k_pid >= 0 && S(c, lb->key) == (uint32_t)k_pid)
				vs.pid = (uint32_t)lb->num;
			else if (k_tid >= 0 && S(c, lb->key) == (uint32_t)k_tid)
				vs.tid = (uint32_t)lb->num;
			else if (k_comm >= 0 && S(c, lb->key) == (uint32_t)k_comm)
				vs.comm = S(c, lb->str);
		}
		if (r)
			break;
		vs.nr_locs = (uint32_t)s->n_location_id;
		vs.count = (uint64_t)s->value[0];
		/* On-CPU the weight is samples; off-CPU the blocked time. */
		vs.weight = off && s->n_value > 1 ? (uint64_t)s->value[1] : vs.count;
		if (c->v->meta.kind == PROFILE_OTHER)
			vs.count = vs.weight = (uint64_t)s->value[c->value_index];
		if (view_add_sample(c->v, &vs, locs) < 0)
			r = -ENOMEM;
	}
	free(locs);
	return r;
}

static int convert(struct ctx *c)
{
	const PbProfile *pb = c->pb;
	const char *t0;
	int r;

	r = check_strings(c);
	if (r)
		return r;
	if (!pb->n_sample_type)
		return fail(c->err, c->errlen, "no sample types");
	for (size_t i = 0; i < pb->n_sample_type; i++)
		if (!str_ok(c, pb->sample_type[i]->type) || !str_ok(c, pb->sample_type[i]->unit))
			return fail(c->err, c->errlen, "sample type string out of range");
	if (pb->period_type &&
	    (!str_ok(c, pb->period_type->type) || !str_ok(c, pb->period_type->unit)))
		return fail(c->err, c->errlen, "period type string out of range");
	t0 = pb->string_table[pb->sample_type[0]->type];
	if (!strcmp(t0, "switches")) {
		c->v->meta.kind = PROFILE_OFFCPU;
	} else if (!strcmp(t0, "samples")) {
		c->v->meta.kind = PROFILE_ONCPU;
	} else {
		/* Another kind (a Go heap profile: alloc_objects, alloc_space,
		 * inuse_objects, inuse_space): one of its values, as go tool
		 * pprof picks it: default_sample_type, else the last type. */
		size_t idx = pb->n_sample_type - 1;

		for (size_t i = 0; pb->default_sample_type > 0 && i < pb->n_sample_type; i++)
			if (pb->sample_type[i]->type == pb->default_sample_type)
				idx = i;
		c->v->meta.kind = PROFILE_OTHER;
		c->value_index = idx;
		c->v->value_type = S(c, pb->sample_type[idx]->type);
		c->v->value_unit = S(c, pb->sample_type[idx]->unit);
	}
	for (size_t i = 0; i < pb->n_comment; i++) {
		unsigned long long lost;
		char tail;

		/* What pprof.c writes of a run's losses. */
		if (str_ok(c, pb->comment[i]) && sscanf(pb->string_table[pb->comment[i]],
							"skyprof lost=%llu%c", &lost, &tail) == 1) {
			c->v->meta.lost = lost;
			c->v->meta.lost_known = true;
		}
	}
	c->v->meta.start_ns = pb->time_nanos > 0 ? (uint64_t)pb->time_nanos : 0;
	c->v->meta.duration_ns = pb->duration_nanos > 0 ? (uint64_t)pb->duration_nanos : 0;
	if (c->v->meta.kind == PROFILE_ONCPU && pb->period > 0) {
		c->v->period = (uint64_t)pb->period;
		c->v->meta.freq_hz = (uint32_t)(1000000000ULL / c->v->period);
	}
	r = copy_mappings(c);
	if (!r)
		r = copy_functions(c);
	if (!r)
		r = copy_locations(c);
	if (!r)
		r = copy_samples(c);
	return r;
}

int pprof_read_buffer(const uint8_t *buf, size_t len, struct view **out, char *err, size_t errlen)
{
	uint8_t *raw = NULL;
	size_t rawlen = len;
	struct ctx c = { 0 };
	PbProfile *pb;
	int r;

	*out = NULL;
	if (!len)
		return fail(err, errlen, "empty file, not a pprof profile");
	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		r = gunzip(buf, len, &raw, &rawlen, err, errlen);
		if (r)
			return r == -ENOMEM ? fail(err, errlen, "out of memory"), -ENOMEM : r;
		buf = raw;
	}
	pb = perftools__profiles__profile__unpack(NULL, rawlen, buf);
	free(raw);
	if (!pb)
		return fail(err, errlen, "not a pprof profile (protobuf decoding failed)");
	c.pb = pb;
	c.err = err;
	c.errlen = errlen;
	c.v = calloc(1, sizeof(*c.v));
	if (!c.v || view_init(c.v, NULL)) {
		free(c.v);
		perftools__profiles__profile__free_unpacked(pb, NULL);
		return -ENOMEM;
	}
	r = convert(&c);
	if (r == -ENOMEM)
		fail(err, errlen, "out of memory");
	free(c.str);
	idmap_free(&c.maps);
	idmap_free(&c.locs);
	idmap_free(&c.funcs);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	if (r) {
		view_free(c.v);
		free(c.v);
		return r;
	}
	*out = c.v;
	return 0;
}

int pprof_read_file(const char *path, struct view **out, char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > PPROF_MAX_BYTES) {
		close(fd);
		return fail(err, errlen, "not a regular file of at most %llu bytes",
			    (unsigned long long)PPROF_MAX_BYTES);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return fail(err, errlen, "out of memory"), -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	r = pprof_read_buffer(buf, got, out, err, errlen);
	free(buf);
	return r;
}
