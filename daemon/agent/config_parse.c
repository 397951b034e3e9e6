// SPDX-License-Identifier: GPL-2.0
/*
 * The config file's value parsers and the helpers every key's parser uses,
 * apart from its schema (config.c) and its structured keys
 * (config_finders.c, config_policies.c); see config_parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "agent/config_parse.h"

int config_parse_env(const char *in, char **out)
{
	size_t cap = strlen(in) + 1, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
#define APPEND(p, n)                                                                               \
	do {                                                                                       \
		size_t n_ = (n);                                                                   \
		if (len + n_ + 1 > cap) {                                                          \
			char *nb;                                                                  \
			cap = (len + n_ + 1) * 2;                                                  \
			nb = realloc(buf, cap);                                                    \
			if (!nb) {                                                                 \
				free(buf);                                                         \
				return -ENOMEM;                                                    \
			}                                                                          \
			buf = nb;                                                                  \
		}                                                                                  \
		memcpy(buf + len, (p), n_);                                                        \
		len += n_;                                                                         \
	} while (0)
	while (*in) {
		const char *start = strstr(in, "${"), *name, *colon = NULL, *end;
		int depth = 0;

		if (!start) {
			APPEND(in, strlen(in));
			break;
		}
		APPEND(in, (size_t)(start - in));
		name = start + 2;
		/* The default may itself hold braces ({{.Rover.HostIPV4 "en0"}}):
		 * the reference ends at the '}' that balances its '{'. */
		for (end = name; *end; end++) {
			if (*end == ':' && !colon && !depth)
				colon = end;
			else if (*end == '{')
				depth++;
			else if (*end == '}' && depth-- == 0)
				break;
		}
		if (!*end) {
			free(buf);
			return -EINVAL;
		}
		{
			size_t nl = (size_t)((colon ? colon : end) - name);
			char var[256];
			const char *val;

			if (!nl || nl >= sizeof(var)) {
				free(buf);
				return -EINVAL;
			}
			memcpy(var, name, nl);
			var[nl] = 0;
			for (size_t i = 0; i < nl; i++)
				if (!(isalnum((unsigned char)var[i]) || var[i] == '_')) {
					free(buf);
					return -EINVAL;
				}
			val = getenv(var);
			if (val && *val) {
				APPEND(val, strlen(val));
			} else if (colon) {
				const char *d = colon + 1;
				size_t dl = (size_t)(end - d);

				if (dl >= 2 && d[0] == '"' && d[dl - 1] == '"') {
					d++;
					dl -= 2;
				}
				APPEND(d, dl);
			}
		}
		in = end + 1;
	}
#undef APPEND
	buf[len] = 0;
	*out = buf;
	return 0;
}

int config_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1 << 10 },
		{ "kb", 1000 },
		{ "kib", 1 << 10 },
		{ "m", 1 << 20 },
		{ "mb", 1000000 },
		{ "mib", 1 << 20 },
		{ "g", 1ull << 30 },
		{ "gb", 1000000000 },
		{ "gib", 1ull << 30 },
	};
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -EINVAL;
		*bytes = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int config_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Reading the document ---------------------------------------------------------- */

int config_parse_fail(struct config_ctx *x, yaml_node_t *n, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(x->err, x->errlen, "%s (line %zu): %s", path, n ? n->start_mark.line + 1 : 0, msg);
	return -EINVAL;
}

void config_parse_join(char *out, size_t outlen, const char *a, const char *sep, const char *b)
{
	if (snprintf(out, outlen, "%s%s%s", a, sep, b) >= (int)outlen)
		out[outlen - 1] = 0;
}

int config_parse_scalar(struct config_ctx *x, yaml_node_t *n, const char *path, char **out)
{
	char *raw;
	int r;

	if (n->type != YAML_SCALAR_NODE)
		return config_parse_fail(x, n, path, "expected a single value");
	raw = strndup((const char *)n->data.scalar.value, n->data.scalar.length);
	if (!raw)
		return -ENOMEM;
	r = config_parse_env(raw, out);
	free(raw);
	if (r == -EINVAL)
		return config_parse_fail(x, n, path, "unterminated or malformed ${ENV:default}");
	return r;
}

void config_parse_set_str(char **dst, char *v)
{
	free(*dst);
	/* An empty value means unset, as rover's `${X:}` defaults. */
	if (v && !*v) {
		free(v);
		v = NULL;
	}
	*dst = v;
}
