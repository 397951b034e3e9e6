// SPDX-License-Identifier: GPL-2.0
/*
 * perf map files: "START SIZE name" per line, START and SIZE hex without 0x,
 * name the rest of the line. The file grows while the JIT runs and later
 * entries override earlier overlapping ones (code moved or recompiled), so
 * every entry keeps its sequence number and a lookup takes the newest entry
 * that covers the address.
 *
 * A JIT may also write the whole file anew (`jcmd PID Compiler.perfmap`
 * truncates and rewrites it, and skyprof asks a JVM for that again while
 * its code grows): the first bytes read and the last ones before the offset
 * read up to are kept, and a file whose size changed and whose head or
 * those bytes differ is read again from the start. Its entries are then
 * newer than everything read before, so they win where they overlap and
 * older ones stay where they do not. An entry read again as it was (same
 * range, same name: most of a rewritten map) is not added twice, only made
 * the newest, so a JVM asked a hundred times holds its methods once.
 *
 * Lookup: entries sorted by start, with a running maximum of end. Bisect to
 * the last entry starting at or below addr, then walk back while the running
 * maximum says an earlier entry may still reach addr. Non-overlapping maps
 * (the usual case) stop after one step.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/perfmap.h"

struct pm_entry {
	uint64_t start, end;
	uint64_t seq;
	char *name;
};

#define HEAD_BYTES 64
#define TAIL_BYTES 64

struct sym_perfmap {
	int fd;
	off_t read_off;
	off_t size_seen; /* the file's size at the last refresh */
	char head[HEAD_BYTES];
	size_t head_len; /* of the file's first bytes, as read */
	char tail[TAIL_BYTES];
	size_t tail_len; /* of the bytes right before read_off */
	char *partial;	 /* an unterminated last line, kept for later */
	size_t partial_len;
	struct pm_entry *e;
	size_t nr, cap;
	size_t sorted; /* e[0..sorted) is sorted, maxend valid */
	uint64_t *maxend;
	uint64_t seq;
	/* Index of the entries by (start, end): e[slot - 1], 0 free. */
	uint32_t *index;
	size_t index_cap; /* a power of two, more than twice nr */
};

struct sym_perfmap *sym_perfmap_open(int fd)
{
	struct sym_perfmap *m = calloc(1, sizeof(*m));

	if (!m) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	m->fd = fd;
	return m;
}

void sym_perfmap_free(struct sym_perfmap *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	for (size_t i = 0; i < m->nr; i++)
		free(m->e[i].name);
	free(m->e);
	free(m->maxend);
	free(m->partial);
	free(m->index);
	free(m);
}

static size_t index_hash(uint64_t start, uint64_t end, size_t cap)
{
	uint64_t h = (start ^ (end << 17) ^ (end >> 47)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static void index_put(struct sym_perfmap *m, size_t i)
{
	size_t k = index_hash(m->e[i].start, m->e[i].end, m->index_cap);

	while (m->index[k])
		k = (k + 1) & (m->index_cap - 1);
	m->index[k] = (uint32_t)(i + 1);
}

/* The index rebuilt for e[0..nr) (after a sort moved them, or to grow). */
static int index_rebuild(struct sym_perfmap *m, size_t want)
{
	size_t cap = m->index_cap ? m->index_cap : 512;
	uint32_t *ix;

	while (cap < 2 * want)
		cap *= 2;
	if (cap != m->index_cap || !m->index) {
		ix = calloc(cap, sizeof(*ix));
		if (!ix)
			return -ENOMEM;
		free(m->index);
		m->index = ix;
		m->index_cap = cap;
	} else {
		memset(m->index, 0, cap * sizeof(*m->index));
	}
	for (size_t i = 0; i < m->nr; i++)
		index_put(m, i);
	return 0;
}

/* The entry [start, end) named name (len bytes), or NULL. */
static struct pm_entry *index_find(struct sym_perfmap *m, uint64_t start, uint64_t end,
				   const char *name, size_t len)
{
	if (!m->index)
		return NULL;
	for (size_t k = index_hash(start, end, m->index_cap); m->index[k];
	     k = (k + 1) & (m->index_cap - 1)) {
		struct pm_entry *e = &m->e[m->index[k] - 1];

		if (e->start == start && e->end == end && strnlen(e->name, len + 1) == len &&
		    !memcmp(e->name, name, len))
			return e;
	}
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses hex at *p (an optional 0x is tolerated), advancing *p. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	while (s < end && hexval(*s) >= 0) {
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)hexval(*s++);
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

static int add_entry(struct sym_perfmap *m, uint64_t start, uint64_t size, const char *s,
		     size_t len)
{
	struct pm_entry *old = index_find(m, start, start + size, s, len);
	char *name;

	if (old) {
		/* read again as it was: the newest now, without a copy */
		old->seq = m->seq++;
		m->sorted = 0;
		return 0;
	}
	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct pm_entry *e = realloc(m->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		m->e = e;
		m->cap = cap;
	}
	if (m->nr >= UINT32_MAX - 1 ||
	    ((m->nr + 1) * 2 > m->index_cap && index_rebuild(m, m->nr + 1)))
		return -ENOMEM;
	name = strndup(s, len);
	if (!name)
		return -ENOMEM;
	m->e[m->nr].start = start;
	m->e[m->nr].end = start + size;
	m->e[m->nr].seq = m->seq++;
	m->e[m->nr].name = name;
	index_put(m, m->nr);
	m->nr++;
	return 0;
}

int sym_perfmap_add(struct sym_perfmap *m, uint64_t start, uint64_t end, const char *name)
{
	if (!m || end <= start || !name[0])
		return 0;
	return add_entry(m, start, end - start, name, strlen(name));
}

static int add_line(struct sym_perfmap *m, const char *s, const char *end)
{
	uint64_t start, size;

	if (end > s && end[-1] == '\r')
		end--;
	if (!parse_hex(&s, end, &start) || s >= end || *s != ' ')
		return 0;
	s++;
	if (!parse_hex(&s, end, &size) || s >= end || *s != ' ')
		return 0;
	s++;
	if (s >= end || !size || start + size < start)
		return 0; /* malformed lines are skipped, not fatal */
	return add_entry(m, start, size, s, (size_t)(end - s));
}

int sym_perfmap_feed(struct sym_perfmap *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		int r;

		if (!nl) {
			/* The JIT may be mid-write: keep the tail. */
			char *n = realloc(m->partial, m->partial_len + (size_t)(end - p));

			if (!n)
				return -ENOMEM;
			memcpy(n + m->partial_len, p, (size_t)(end - p));
			m->partial = n;
			m->partial_len += (size_t)(end - p);
			return 0;
		}
		if (m->partial_len) {
			size_t l = m->partial_len + (size_t)(nl - p);
			char *n = realloc(m->partial, l);

			if (!n)
				return -ENOMEM;
			memcpy(n + m->partial_len, p, (size_t)(nl - p));
			m->partial = n;
			r = add_line(m, n, n + l);
			m->partial_len = 0;
		} else {
			r = add_line(m, p, nl);
		}
		if (r)
			return r;
		p = nl + 1;
	}
	return 0;
}

/* From the start again: the file was rewritten, or is another file. */
static void restart(struct sym_perfmap *m)
{
	m->read_off = 0;
	m->size_seen = 0;
	m->head_len = 0;
	m->tail_len = 0;
	m->partial_len = 0;
}

static bool rewritten(struct sym_perfmap *m, const struct stat *st)
{
	char buf[HEAD_BYTES > TAIL_BYTES ? HEAD_BYTES : TAIL_BYTES];
	ssize_t n;

	if (st->st_size < m->read_off)
		return true;
	if (m->head_len) {
		n = pread(m->fd, buf, m->head_len, 0);
		if (n != (ssize_t)m->head_len || memcmp(buf, m->head, m->head_len))
			return true;
	}
	if (m->tail_len) {
		n = pread(m->fd, buf, m->tail_len, m->read_off - (off_t)m->tail_len);
		if (n != (ssize_t)m->tail_len || memcmp(buf, m->tail, m->tail_len))
			return true;
	}
	return false;
}

/* The last bytes of what was read, kept to tell a rewrite that regrew. */
static void keep_tail(struct sym_perfmap *m, const char *buf, size_t n)
{
	if (n >= TAIL_BYTES) {
		memcpy(m->tail, buf + n - TAIL_BYTES, TAIL_BYTES);
		m->tail_len = TAIL_BYTES;
		return;
	}
	if (m->tail_len + n > TAIL_BYTES) {
		size_t drop = m->tail_len + n - TAIL_BYTES;

		memmove(m->tail, m->tail + drop, m->tail_len - drop);
		m->tail_len -= drop;
	}
	memcpy(m->tail + m->tail_len, buf, n);
	m->tail_len += n;
}

static void refresh(struct sym_perfmap *m)
{
	struct stat st;
	char buf[65536];
	ssize_t n;

	if (m->fd < 0 || fstat(m->fd, &st) || st.st_size == m->size_seen)
		return;
	if (rewritten(m, &st))
		restart(m);
	m->size_seen = st.st_size;
	while ((n = pread(m->fd, buf, sizeof(buf), m->read_off)) > 0) {
		if (m->read_off < HEAD_BYTES && m->head_len == (size_t)m->read_off) {
			size_t k = HEAD_BYTES - m->head_len < (size_t)n ? HEAD_BYTES - m->head_len
									: (size_t)n;

			memcpy(m->head + m->head_len, buf, k);
			m->head_len += k;
		}
		m->read_off += n;
		keep_tail(m, buf, (size_t)n);
		if (sym_perfmap_feed(m, buf, (size_t)n))
			return;
	}
}

size_t sym_perfmap_nr(const struct sym_perfmap *m)
{
	return m ? m->nr : 0;
}

void sym_perfmap_read(struct sym_perfmap *m)
{
	if (m)
		refresh(m);
}

bool sym_perfmap_stat(const struct sym_perfmap *m, struct stat *st)
{
	return m && m->fd >= 0 && !fstat(m->fd, st);
}

void sym_perfmap_reopen(struct sym_perfmap *m, int fd)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = fd;
	restart(m);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int resort(struct sym_perfmap *m)
{
	uint64_t *me = realloc(m->maxend, (m->nr ? m->nr : 1) * sizeof(*me));

	if (!me)
		return -ENOMEM;
	m->maxend = me;
	qsort(m->e, m->nr, sizeof(*m->e), cmp_entry);
	for (size_t i = 0; i < m->nr; i++)
		me[i] = i && me[i - 1] > m->e[i].end ? me[i - 1] : m->e[i].end;
	m->sorted = m->nr;
	/* the entries moved: so do their slots */
	return m->index ? index_rebuild(m, m->nr) : 0;
}

const char *sym_perfmap_lookup(struct sym_perfmap *m, uint64_t addr)
{
	const struct pm_entry *best = NULL;
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	refresh(m);
	if (m->sorted != m->nr && resort(m))
		return NULL;
	hi = m->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && m->maxend[i] > addr;) {
		const struct pm_entry *e = &m->e[i];

		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	return best ? best->name : NULL;
}
