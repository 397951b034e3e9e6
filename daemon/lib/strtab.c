// SPDX-License-Identifier: GPL-2.0
/* Interning string table; see strtab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strtab.h"

/* FNV-1a: strings are short and hashed once each, speed is not the point. */
uint64_t strtab_hash(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int grow_slots(struct strtab *t)
{
	uint32_t n = t->nr_slots ? t->nr_slots * 2 : 64;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nr; i++) {
		uint32_t h = (uint32_t)strtab_hash(t->strs[i], t->lens[i]) & (n - 1);

		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nr_slots = n;
	return 0;
}

int strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	return strtab_intern(t, "") == 0 ? 0 : -ENOMEM;
}

void strtab_free(struct strtab *t)
{
	for (uint32_t i = 0; i < t->nr; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int64_t lookup(const struct strtab *t, const char *s, size_t len, uint32_t *slot)
{
	uint32_t h;

	if (!t->nr_slots)
		return -1;
	h = (uint32_t)strtab_hash(s, len) & (t->nr_slots - 1);
	while (t->slots[h]) {
		uint32_t i = t->slots[h] - 1;

		if (t->lens[i] == len && !memcmp(t->strs[i], s, len))
			return i;
		h = (h + 1) & (t->nr_slots - 1);
	}
	if (slot)
		*slot = h;
	return -1;
}

int64_t strtab_intern_len(struct strtab *t, const char *s, size_t len)
{
	uint32_t slot = 0;
	int64_t i;
	char *copy;

	if (len > UINT32_MAX - 1)
		return -EINVAL;
	i = lookup(t, s, len, &slot);
	if (i >= 0)
		return i;
	/* Keep the load factor under 1/2 so probes stay short. */
	if ((t->nr + 1) * 2 > t->nr_slots) {
		if (grow_slots(t))
			return -ENOMEM;
		lookup(t, s, len, &slot);
	}
	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		char **strs = realloc(t->strs, cap * sizeof(*strs));

		if (!strs)
			return -ENOMEM;
		t->strs = strs;
		uint32_t *lens = realloc(t->lens, cap * sizeof(*lens));

		if (!lens)
			return -ENOMEM;
		t->lens = lens;
		t->cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->strs[t->nr] = copy;
	t->lens[t->nr] = (uint32_t)len;
	t->slots[slot] = t->nr + 1;
	return t->nr++;
}

int64_t strtab_intern(struct strtab *t, const char *s)
{
	return strtab_intern_len(t, s, strlen(s));
}

int64_t strtab_find(const struct strtab *t, const char *s)
{
	return lookup(t, s, strlen(s), NULL);
}
