// SPDX-License-Identifier: GPL-2.0
/*
 * A JVM's attach answer (jvm_reply.h). Nothing here trusts the bytes: every
 * read is bounded by the length given, numbers by their digit count, and a
 * line that is not of the expected form is skipped whole.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "proc/jvm_reply.h"

/* Bounds of what a well-formed answer holds. */
#define STATUS_DIGITS_MAX 10
#define NAME_IN_MAX	  4096	      /* a method's name and descriptor */
#define NAME_OUT_MAX	  1024	      /* as handed to the callback */
#define CODE_SIZE_MAX	  (64u << 20) /* one compiled method's code */
#define ARRAY_DIMS_MAX	  255	      /* the JVM's own limit */

int jvm_reply_parse(const char *buf, size_t len, struct jvm_reply *out)
{
	size_t i = 0, digits = 0;
	bool neg = false;
	long v = 0;

	if (i < len && buf[i] == '-') {
		neg = true;
		i++;
	}
	while (i < len && buf[i] >= '0' && buf[i] <= '9') {
		if (++digits > STATUS_DIGITS_MAX)
			return -EINVAL;
		v = v * 10 + (buf[i++] - '0');
	}
	if (!digits || i >= len || buf[i] != '\n')
		return -EINVAL;
	out->status = (int)(neg ? -v : v);
	out->text = buf + i + 1;
	out->len = len - i - 1;
	return 0;
}

void jvm_reply_first_line(const struct jvm_reply *r, char *out, size_t n)
{
	size_t i = 0, k = 0;

	if (!n)
		return;
	while (i < r->len && (r->text[i] == '\n' || r->text[i] == '\r' || r->text[i] == ' '))
		i++;
	for (; i < r->len && r->text[i] != '\n' && k + 1 < n; i++) {
		unsigned char c = (unsigned char)r->text[i];

		if (c == '\r')
			continue;
		out[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[k] = '\0';
}

/* A bounded string being built: what does not fit is left out. */
struct sbuf {
	char *s;
	size_t n, len;
};

static void sb_putc(struct sbuf *b, char c)
{
	if (b->len + 1 < b->n)
		b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sb_putc(b, s[i]);
}

static const char *primitive(char c)
{
	switch (c) {
	case 'B':
		return "byte";
	case 'C':
		return "char";
	case 'D':
		return "double";
	case 'F':
		return "float";
	case 'I':
		return "int";
	case 'J':
		return "long";
	case 'S':
		return "short";
	case 'Z':
		return "boolean";
	case 'V':
		return "void";
	}
	return NULL;
}

/* One field type of a descriptor at *p, written as Java source names it. */
static bool put_type(const char **p, const char *end, bool is_return, struct sbuf *b)
{
	unsigned int dims = 0;
	const char *s = *p;

	while (s < end && *s == '[') {
		if (++dims > ARRAY_DIMS_MAX)
			return false;
		s++;
	}
	if (s >= end)
		return false;
	if (*s == 'L') {
		const char *semi = memchr(s, ';', (size_t)(end - s));

		if (!semi || semi == s + 1)
			return false;
		for (const char *c = s + 1; c < semi; c++)
			sb_putc(b, *c == '/' ? '.' : *c);
		s = semi + 1;
	} else {
		const char *name = primitive(*s);

		if (!name || (*s == 'V' && (dims || !is_return)))
			return false;
		sb_puts(b, name, strlen(name));
		s++;
	}
	while (dims--)
		sb_puts(b, "[]", 2);
	*p = s;
	return true;
}

int jvm_reply_method_name(const char *in, size_t len, char *out, size_t n)
{
	const char *open = memchr(in, '(', len), *end = in + len, *p;
	char params[NAME_OUT_MAX];
	struct sbuf pb = { .s = params, .n = sizeof(params) };
	struct sbuf ob = { .s = out, .n = n };
	bool first = true;

	if (!n)
		return -EINVAL;
	out[0] = params[0] = '\0';
	if (!open || open == in)
		goto raw;
	for (p = open + 1; p < end && *p != ')'; first = false) {
		if (!first)
			sb_puts(&pb, ", ", 2);
		if (!put_type(&p, end, false, &pb))
			goto raw;
	}
	if (p >= end)
		goto raw;
	p++;
	if (!put_type(&p, end, true, &ob) || p != end)
		goto raw;
	sb_putc(&ob, ' ');
	sb_puts(&ob, in, (size_t)(open - in));
	sb_putc(&ob, '(');
	sb_puts(&ob, params, pb.len);
	sb_putc(&ob, ')');
	return (int)ob.len;
raw:
	ob.len = 0;
	sb_puts(&ob, in, len);
	return -EINVAL;
}

/* A decimal integer (optionally negative) at *p, then one space. */
static bool skip_int(const char **p, const char *end)
{
	const char *s = *p;
	size_t digits = 0;

	if (s < end && *s == '-')
		s++;
	while (s < end && *s >= '0' && *s <= '9') {
		if (++digits > STATUS_DIGITS_MAX)
			return false;
		s++;
	}
	if (!digits || s >= end || *s != ' ')
		return false;
	*p = s + 1;
	return true;
}

/* "0x" and 1..16 hex digits at *p. */
static bool parse_addr(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s < 3 || s[0] != '0' || (s[1] | 0x20) != 'x')
		return false;
	for (s += 2; s < end; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (*s | 0x20) - 'a' + 10;
		else
			break;
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool literal(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

/* One codelist line [s, end): the method, or false. */
static bool codelist_line(const char *s, const char *end, struct jvm_method *m, char *name,
			  size_t name_n)
{
	const char *bracket = NULL, *p, *name_start, *third;
	uint64_t header, begin, stop;

	while (end > s && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (p = s; p + 1 < end; p++)
		if (p[0] == ' ' && p[1] == '[')
			bracket = p;
	if (!bracket)
		return false;
	p = s;
	if (!skip_int(&p, bracket) || !skip_int(&p, bracket))
		return false;
	/* JDK 11+: a third number, the method's state, when a name follows */
	third = p;
	if (skip_int(&third, bracket) && third < bracket)
		p = third;
	name_start = p;
	/* a method is named Class.method: a bare number is no name */
	if (name_start >= bracket || (size_t)(bracket - name_start) > NAME_IN_MAX ||
	    !memchr(name_start, '.', (size_t)(bracket - name_start)))
		return false;
	p = bracket + 2;
	if (!parse_addr(&p, end, &header) || !literal(&p, end, ", ") ||
	    !parse_addr(&p, end, &begin) || !literal(&p, end, " - ") ||
	    !parse_addr(&p, end, &stop) || !literal(&p, end, "]") || p != end)
		return false;
	if (stop <= begin || stop - begin > CODE_SIZE_MAX)
		return false;
	(void)header;
	jvm_reply_method_name(name_start, (size_t)(bracket - name_start), name, name_n);
	m->start = begin;
	m->end = stop;
	m->name = name;
	return name[0] != '\0';
}

int jvm_reply_codelist(const char *text, size_t len,
		       int (*fn)(void *arg, const struct jvm_method *m), void *arg)
{
	const char *p = text, *end = text + len;
	char name[NAME_OUT_MAX];
	int n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct jvm_method m;

		if (codelist_line(p, eol, &m, name, sizeof(name))) {
			int r = fn(arg, &m);

			if (r < 0)
				return r;
			n++;
		}
		p = nl ? nl + 1 : end;
	}
	return n;
}
