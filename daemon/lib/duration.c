// SPDX-License-Identifier: GPL-2.0
#include "lib/duration.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	double ns;
	unsigned int form;
} units[] = {
	{ "ns", 1, DURATION_NS },
	{ "us", 1e3, DURATION_US },
	{ "\xc2\xb5s", 1e3, DURATION_MICRO_SIGN },
	{ "ms", 1e6, DURATION_MS },
	{ "s", 1e9, DURATION_S },
	{ "m", 60e9, DURATION_M },
	{ "h", 3600e9, DURATION_H },
};

/* The longest accepted unit that p starts with, so that "ms" is not read as "m". */
static int unit_at(const char *p, unsigned int forms, size_t *len)
{
	int u = -1;

	*len = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t l = strlen(units[i].name);

		if ((forms & units[i].form) && !strncmp(p, units[i].name, l) && l > *len) {
			*len = l;
			u = (int)i;
		}
	}
	return u;
}

int duration_parse(const char *s, unsigned int forms, double *ns, bool *bare)
{
	double total = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	do {
		char *end;
		double v;
		size_t len;
		int u;

		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			return -EINVAL;
		v = strtod(p, &end);
		if (errno || end == p || !isfinite(v))
			return -EINVAL;
		if (!*end && p == s) {
			*ns = v * 1e9;
			if (bare)
				*bare = true;
			return 0;
		}
		u = unit_at(end, forms, &len);
		if (u < 0)
			return -EINVAL;
		total += v * units[u].ns;
		p = end + len;
	} while (*p && (forms & DURATION_SUM));
	if (*p)
		return -EINVAL;
	*ns = total;
	if (bare)
		*bare = false;
	return 0;
}
