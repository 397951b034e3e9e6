// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbolization from /proc/kallsyms.
 *
 * kallsyms has no sizes, so a symbol is taken to extend to the next one; the
 * table is sorted once and searched by bisection. Only text symbols (t, T, w,
 * W) are kept: data symbols interleaved with text would otherwise steal
 * addresses from the functions around them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym/kernel.h"

struct ksym {
	uint64_t addr;
	size_t name; /* offset in sym_kernel.names */
};

/* The names are packed in one buffer: a kernel has 100k+ text symbols, and
 * one allocation each would cost as much again in malloc headers. */
struct sym_kernel {
	struct ksym *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
	bool restricted;
};

static int add_name(struct sym_kernel *k, const char *name, const char *mod, size_t *off)
{
	size_t len = strlen(name) + (mod ? strlen(mod) + 1 : 0) + 1;

	if (k->names_cap - k->names_len < len) {
		size_t cap = k->names_cap ? k->names_cap * 2 : 1 << 20;
		char *n;

		while (cap - k->names_len < len)
			cap *= 2;
		n = realloc(k->names, cap);
		if (!n)
			return -ENOMEM;
		k->names = n;
		k->names_cap = cap;
	}
	*off = k->names_len;
	/* mod already carries its brackets: "[ext4]". */
	if (mod)
		snprintf(k->names + k->names_len, len, "%s %s", name, mod);
	else
		memcpy(k->names + k->names_len, name, len);
	k->names_len += len;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[ext4]" */
static int parse_line(struct sym_kernel *k, char *line, bool *nonzero)
{
	char *end, *name, *mod;
	uint64_t addr = strtoull(line, &end, 16);
	char type;

	if (end == line || *end != ' ')
		return 0;
	type = end[1];
	if (!type || end[2] != ' ')
		return 0;
	if (addr)
		*nonzero = true;
	if (!is_text(type))
		return 0;
	name = end + 3;
	name[strcspn(name, "\n")] = '\0';
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		mod += strspn(mod, " \t");
	}
	if (!*name)
		return 0;
	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 65536;
		struct ksym *s = realloc(k->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		k->syms = s;
		k->cap = cap;
	}
	k->syms[k->nr].addr = addr;
	if (add_name(k, name, mod && *mod ? mod : NULL, &k->syms[k->nr].name))
		return -ENOMEM;
	k->nr++;
	return 0;
}

struct sym_kernel *sym_kernel_load(const char *path, bool quiet)
{
	struct sym_kernel *k = calloc(1, sizeof(*k));
	bool nonzero = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (!k)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		if (!quiet)
			fprintf(stderr,
				"skyprof: cannot read %s: %s; kernel frames print as [unknown] "
				"[k]\n",
				path, strerror(errno));
		k->restricted = true;
		return k;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (getline(&line, &cap, f) > 0) {
		if (parse_line(k, line, &nonzero)) {
			free(line);
			fclose(f);
			sym_kernel_free(k);
			return NULL;
		}
	}
	free(line);
	fclose(f);
	if (!nonzero && k->nr) {
		if (!quiet)
			fprintf(stderr,
				"skyprof: %s shows only zero addresses (kernel.kptr_restrict?); "
				"kernel frames print as [unknown] [k]. Run as root or set "
				"kernel.kptr_restrict=0.\n",
				path);
		k->restricted = true;
	}
	if (k->nr)
		qsort(k->syms, k->nr, sizeof(*k->syms), cmp_ksym);
	/* Give back what the doubling left over (the table lives as long as
	 * the daemon); a failed shrink keeps the larger block. */
	if (k->nr) {
		struct ksym *s = realloc(k->syms, k->nr * sizeof(*s));
		char *n = realloc(k->names, k->names_len);

		if (s) {
			k->syms = s;
			k->cap = k->nr;
		}
		if (n) {
			k->names = n;
			k->names_cap = k->names_len;
		}
	}
	return k;
}

void sym_kernel_free(struct sym_kernel *k)
{
	if (!k)
		return;
	free(k->names);
	free(k->syms);
	free(k);
}

size_t sym_kernel_count(const struct sym_kernel *k)
{
	return k ? k->nr : 0;
}

const char *sym_kernel_lookup(const struct sym_kernel *k, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!k || k->restricted || !k->nr)
		return NULL;
	hi = k->nr;
	/* Find the last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* The last symbol has no successor to end it: beyond a page past it
	 * the address is more likely unmapped module space than its code. */
	if (lo == k->nr && addr - k->syms[lo - 1].addr > 4096)
		return NULL;
	return k->names + k->syms[lo - 1].name;
}
