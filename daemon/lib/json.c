// SPDX-License-Identifier: GPL-2.0
/* A small JSON reader; see json.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

struct jp {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	bool failed;
};

static void *jfail(struct jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *jfail(struct jp *p, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (p->failed)
		return NULL; /* keep the innermost (first) reason */
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s at byte %zu", msg, p->pos);
	return NULL;
}

static void skip_ws(struct jp *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int hex4(struct jp *p, uint32_t *out)
{
	uint32_t v = 0;

	if (p->len - p->pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* At the opening quote. The decoded string is never longer than the input. */
static char *parse_string(struct jp *p)
{
	size_t start = ++p->pos, end = start;
	char *out, *o;

	while (end < p->len && p->s[end] != '"')
		end += p->s[end] == '\\' ? 2 : 1;
	if (end >= p->len)
		return jfail(p, "unterminated string");
	out = malloc(end - start + 1);
	if (!out)
		return jfail(p, "out of memory");
	o = out;
	while (p->pos < end) {
		unsigned char c = (unsigned char)p->s[p->pos++];
		uint32_t cp, lo;

		if (c < 0x20) {
			p->pos--;
			free(out);
			return jfail(p, "control character in a string");
		}
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			*o++ = (char)c;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (hex4(p, &cp))
				goto bad_u;
			if (cp >= 0xd800 && cp < 0xdc00) {
				/* a surrogate pair: \uD8xx\uDCxx is one code point */
				if (p->len - p->pos < 6 || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u')
					goto bad_u;
				p->pos += 2;
				if (hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
					goto bad_u;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				goto bad_u;
			}
			/* 6 input bytes (12 for a pair) always cover the output */
			if (!cp)
				goto bad_u;
			o += put_utf8(o, cp);
			break;
		default:
			p->pos--;
			free(out);
			return jfail(p, "bad escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
		}
		if (p->pos > end) {
			free(out);
			return jfail(p, "unterminated string");
		}
	}
	*o = 0;
	p->pos = end + 1;
	return out;
bad_u:
	free(out);
	return jfail(p, "bad \\u escape");
}

static bool parse_number(struct jp *p, double *out)
{
	size_t i = p->pos;
	char buf[64], *end;

	if (i < p->len && p->s[i] == '-')
		i++;
	if (i >= p->len || p->s[i] < '0' || p->s[i] > '9')
		return jfail(p, "bad number"), false;
	if (p->s[i] == '0' && i + 1 < p->len && p->s[i + 1] >= '0' && p->s[i + 1] <= '9')
		return jfail(p, "leading zero in a number"), false;
	while (i < p->len && ((p->s[i] >= '0' && p->s[i] <= '9') || p->s[i] == '.' ||
			      p->s[i] == 'e' || p->s[i] == 'E' || p->s[i] == '+' || p->s[i] == '-'))
		i++;
	if (i - p->pos >= sizeof(buf))
		return jfail(p, "number too long"), false;
	memcpy(buf, p->s + p->pos, i - p->pos);
	buf[i - p->pos] = 0;
	errno = 0;
	*out = strtod(buf, &end);
	if (*end || !isfinite(*out))
		return jfail(p, "bad number"), false;
	p->pos = i;
	return true;
}

static bool word(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
		return false;
	p->pos += n;
	return true;
}

static int add_kid(struct json *j, struct json *kid, char *key)
{
	if (j->n % 8 == 0) {
		struct json **nk = realloc(j->kids, (j->n + 8) * sizeof(*nk));
		char **nkeys;

		if (!nk)
			return -ENOMEM;
		j->kids = nk;
		if (j->type == JSON_OBJECT) {
			nkeys = realloc(j->keys, (j->n + 8) * sizeof(*nkeys));
			if (!nkeys)
				return -ENOMEM;
			j->keys = nkeys;
		}
	}
	j->kids[j->n] = kid;
	if (j->type == JSON_OBJECT)
		j->keys[j->n] = key;
	j->n++;
	return 0;
}

static struct json *parse_value(struct jp *p, int depth)
{
	struct json *j;

	skip_ws(p);
	if (p->pos >= p->len)
		return jfail(p, "unexpected end");
	if (depth > JSON_MAX_DEPTH)
		return jfail(p, "nested deeper than %d", JSON_MAX_DEPTH);
	j = calloc(1, sizeof(*j));
	if (!j)
		return jfail(p, "out of memory");
	switch (p->s[p->pos]) {
	case '{':
	case '[': {
		bool obj = p->s[p->pos] == '{';
		char close = obj ? '}' : ']';

		j->type = obj ? JSON_OBJECT : JSON_ARRAY;
		p->pos++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return j;
		}
		for (;;) {
			char *key = NULL;
			struct json *kid;

			skip_ws(p);
			if (obj) {
				if (p->pos >= p->len || p->s[p->pos] != '"')
					goto bad_key;
				key = parse_string(p);
				if (!key)
					goto fail;
				skip_ws(p);
				if (p->pos >= p->len || p->s[p->pos] != ':') {
					free(key);
					jfail(p, "expected ':'");
					goto fail;
				}
				p->pos++;
			}
			kid = parse_value(p, depth + 1);
			if (!kid || add_kid(j, kid, key)) {
				free(key);
				json_free(kid);
				jfail(p, "out of memory");
				goto fail;
			}
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == ',') {
				p->pos++;
				continue;
			}
			if (p->pos < p->len && p->s[p->pos] == close) {
				p->pos++;
				return j;
			}
			jfail(p, "expected ',' or '%c'", close);
			goto fail;
		}
	bad_key:
		jfail(p, "expected a string key");
		goto fail;
	}
	case '"':
		j->type = JSON_STRING;
		j->str = parse_string(p);
		if (!j->str)
			goto fail;
		return j;
	case 't':
	case 'f':
		j->type = JSON_BOOL;
		j->b = p->s[p->pos] == 't';
		if (!word(p, j->b ? "true" : "false"))
			break;
		return j;
	case 'n':
		if (!word(p, "null"))
			break;
		return j;
	default:
		j->type = JSON_NUMBER;
		if (!parse_number(p, &j->num))
			goto fail;
		return j;
	}
	jfail(p, "unexpected character");
fail:
	json_free(j);
	return NULL;
}

struct json *json_parse(const char *s, size_t len, char *err, size_t errlen)
{
	struct jp p = { .s = s, .len = len, .err = err, .errlen = errlen };
	struct json *j;

	if (errlen)
		err[0] = 0;
	if (!s)
		return jfail(&p, "no input");
	j = parse_value(&p, 0);
	if (!j)
		return NULL;
	skip_ws(&p);
	if (p.pos != len) {
		json_free(j);
		return jfail(&p, "trailing data");
	}
	return j;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		json_free(j->kids[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->kids);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct json *json_get(const struct json *obj, const char *key)
{
	const struct json *v = NULL;

	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			v = obj->kids[i];
	return v;
}
