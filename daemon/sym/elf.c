// SPDX-License-Identifier: GPL-2.0
/*
 * ELF/DWARF symbolization (see elf.h).
 *
 * Each file gets its own offline Dwfl session, created on the first lookup:
 * noting a pid only opens its files (cheap, and keeps them readable after the
 * process exits), while DWARF is parsed only for files that samples hit.
 * Addresses are handled as file offsets, which are the same in every process
 * whatever the load base, and turned into link-time addresses through the
 * PT_LOAD headers.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/demangle.h"
#include "sym/elf.h"

struct seg {
	uint64_t offset, filesz, vaddr;
};

struct sym_elf {
	struct sym_elf *next;
	char *key;   /* build id hex, or dev:ino:size:mtime */
	char *ident; /* dev:ino:size:mtime of the file it was read from, or NULL */
	char *build_id;
	int fd;
	char *path, *fallback_path;
	struct seg *segs;
	size_t nr_segs;
	char *image; /* an in-memory ELF (vDSO), or NULL */
	size_t image_len;
	bool dwfl_tried;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias; /* module address - link-time address */
	struct sym_elf_cache *cache;
};

struct sym_elf_cache {
	struct sym_elf *files; /* a list: a process maps tens of files */
	size_t nr;
	char *debug_path;
	struct strtab *names;
	Dwfl_Callbacks cb;
};

struct sym_elf_cache *sym_elf_cache_new(const char *debug_path, struct strtab *names)
{
	struct sym_elf_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	elf_version(EV_CURRENT);
	c->debug_path = strdup(debug_path ? debug_path : ":.debug:/usr/lib/debug");
	if (!c->debug_path) {
		free(c);
		return NULL;
	}
	c->names = names;
	c->cb.find_elf = dwfl_build_id_find_elf;
	c->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	c->cb.section_address = dwfl_offline_section_address;
	c->cb.debuginfo_path = &c->debug_path;
	return c;
}

static void elf_free(struct sym_elf *e)
{
	if (e->dwfl)
		dwfl_end(e->dwfl);
	if (e->fd >= 0)
		close(e->fd);
	free(e->key);
	free(e->ident);
	free(e->build_id);
	free(e->path);
	free(e->fallback_path);
	free(e->segs);
	free(e->image);
	free(e);
}

void sym_elf_cache_free(struct sym_elf_cache *c)
{
	if (!c)
		return;
	while (c->files) {
		struct sym_elf *n = c->files->next;

		elf_free(c->files);
		c->files = n;
	}
	free(c->debug_path);
	free(c);
}

size_t sym_elf_cache_files(const struct sym_elf_cache *c)
{
	return c->nr;
}

const char *sym_elf_build_id(const struct sym_elf *e)
{
	return e->build_id ? e->build_id : "";
}

static char *hex(const unsigned char *p, size_t n)
{
	char *s = malloc(n * 2 + 1);

	if (!s)
		return NULL;
	/* By hand: an snprintf per byte was 20 calls for every file read. */
	for (size_t i = 0; i < n; i++) {
		s[i * 2] = "0123456789abcdef"[p[i] >> 4];
		s[i * 2 + 1] = "0123456789abcdef"[p[i] & 15];
	}
	s[n * 2] = '\0';
	return s;
}

static int read_segments(struct sym_elf *e, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	e->segs = calloc(n ? n : 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nr_segs].offset = ph.p_offset;
		e->segs[e->nr_segs].filesz = ph.p_filesz;
		e->segs[e->nr_segs].vaddr = ph.p_vaddr;
		e->nr_segs++;
	}
	return 0;
}

/*
 * The cached file for an opened Elf: found by build-id (or, without one,
 * by identity), else added. Takes ownership of fd and image either way.
 */
static struct sym_elf *get_elf(struct sym_elf_cache *c, Elf *elf, int fd, char *image,
			       size_t image_len, const char *path, const char *fallback_path,
			       const char *key_fallback)
{
	const void *bid = NULL;
	struct sym_elf *e;
	char *key = NULL, *bidhex = NULL;
	ssize_t bidlen = dwelf_elf_gnu_build_id(elf, &bid);

	if (bidlen > 0) {
		bidhex = hex(bid, (size_t)bidlen);
		key = bidhex ? strdup(bidhex) : NULL;
	} else {
		key = strdup(key_fallback);
	}
	if (!key)
		goto fail;
	for (e = c->files; e; e = e->next) {
		if (!strcmp(e->key, key)) {
			free(key);
			free(bidhex);
			goto found;
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		goto fail;
	e->fd = fd;
	e->image = image;
	e->image_len = image_len;
	e->key = key;
	e->ident = fd >= 0 ? strdup(key_fallback) : NULL;
	e->build_id = bidhex;
	e->cache = c;
	e->path = strdup(path);
	e->fallback_path = fallback_path ? strdup(fallback_path) : NULL;
	if (!e->path || read_segments(e, elf)) {
		elf_end(elf);
		elf_free(e);
		return NULL;
	}
	elf_end(elf);
	e->next = c->files;
	c->files = e;
	c->nr++;
	return e;
fail:
	free(key);
	free(bidhex);
	e = NULL;
found:
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	free(image);
	return e;
}

/* A file's identity as the cache keys it: dev:ino:size:mtime. */
static void ident_of(const struct stat *st, char *buf, size_t len)
{
	snprintf(buf, len, "%llx:%llx:%llx:%llx", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
		 (unsigned long long)st->st_mtime);
}

static struct sym_elf *find_ident(struct sym_elf_cache *c, const char *ident)
{
	for (struct sym_elf *e = c->files; e; e = e->next)
		if (e->ident && !strcmp(e->ident, ident))
			return e;
	return NULL;
}

struct sym_elf *sym_elf_find_stat(struct sym_elf_cache *c, const struct stat *st)
{
	char ident[128];

	ident_of(st, ident, sizeof(ident));
	return find_ident(c, ident);
}

struct sym_elf *sym_elf_get(struct sym_elf_cache *c, int fd, const char *path,
			    const char *fallback_path)
{
	char ident[128];
	struct sym_elf *e;
	struct stat st;
	Elf *elf;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	ident_of(&st, ident, sizeof(ident));
	/* A file already read (every new process maps libc again): no need to
	 * map it and look for its build id to find it in the cache. */
	e = find_ident(c, ident);
	if (e) {
		close(fd);
		return e;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	return get_elf(c, elf, fd, NULL, 0, path, fallback_path, ident);
}

struct sym_elf *sym_elf_get_memory(struct sym_elf_cache *c, const void *image, size_t len,
				   const char *name)
{
	char *copy = malloc(len ? len : 1);
	Elf *elf;

	if (!copy)
		return NULL;
	memcpy(copy, image, len);
	elf = elf_memory(copy, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		free(copy);
		return NULL;
	}
	return get_elf(c, elf, -1, copy, len, name, NULL, name);
}

static void open_dwfl(struct sym_elf *e)
{
	const char *path = e->path;
	int fd;

	e->dwfl_tried = true;
	if (e->image) {
		e->dwfl = dwfl_begin(&e->cache->cb);
		if (!e->dwfl)
			return;
		/* The image stays ours (freed with e); libdwfl only reads it. */
		e->mod = dwfl_report_offline_memory(e->dwfl, path, path, e->image, e->image_len);
		dwfl_report_end(e->dwfl, NULL, NULL);
		if (!e->mod || !dwfl_module_getelf(e->mod, &e->bias)) {
			dwfl_end(e->dwfl);
			e->dwfl = NULL;
			e->mod = NULL;
		}
		return;
	}
	/* The debuglink is looked up beside the file: use a path that still
	 * exists, since /proc/PID/root vanishes with the process. */
	if (access(path, F_OK) && e->fallback_path)
		path = e->fallback_path;
	fd = dup(e->fd);
	if (fd < 0)
		return;
	e->dwfl = dwfl_begin(&e->cache->cb);
	if (!e->dwfl) {
		close(fd);
		return;
	}
	/* libdwfl owns fd from here on, whatever the outcome. */
	e->mod = dwfl_report_offline(e->dwfl, path, path, fd);
	dwfl_report_end(e->dwfl, NULL, NULL);
	if (!e->mod || !dwfl_module_getelf(e->mod, &e->bias)) {
		dwfl_end(e->dwfl);
		e->dwfl = NULL;
		e->mod = NULL;
		return;
	}
	/* Ours stays open beside libdwfl's: sym_elf_cache_trim ends the Dwfl
	 * (closing its descriptor) and the next lookup reopens from ours, which
	 * still names the file after the process, its /proc/PID/root and even
	 * the path itself are gone. */
}

void sym_elf_cache_trim(struct sym_elf_cache *c)
{
	for (struct sym_elf *e = c->files; e; e = e->next) {
		if (e->dwfl)
			dwfl_end(e->dwfl);
		e->dwfl = NULL;
		e->mod = NULL;
		e->bias = 0;
		/* A file whose Dwfl failed to open is not tried again: nothing
		 * was held for it. */
		if (e->fd >= 0 || e->image)
			e->dwfl_tried = false;
	}
}

static uint64_t offset_to_vaddr(const struct sym_elf *e, uint64_t off)
{
	const struct seg *best = NULL;

	for (size_t i = 0; i < e->nr_segs; i++) {
		const struct seg *s = &e->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz)
			return off - s->offset + s->vaddr;
		if (off >= s->offset && (!best || s->offset > best->offset))
			best = s;
	}
	return best ? off - best->offset + best->vaddr : off;
}

/* Interns a symbol name; the frame shows it demangled. */
static void set_name(struct sym_elf *e, struct sym_frame *f, const char *sys)
{
	struct strtab *t = e->cache->names;
	char *dem = sym_demangle(sys);
	int64_t n = strtab_intern(t, dem ? dem : sys);
	int64_t s = dem ? strtab_intern(t, sys) : n;

	free(dem);
	f->name = n > 0 ? strtab_get(t, (uint32_t)n) : "[unknown]";
	f->system_name = s >= 0 ? strtab_get(t, (uint32_t)s) : "";
}

static const char *intern(struct sym_elf *e, const char *s)
{
	int64_t i = s ? strtab_intern(e->cache->names, s) : 0;

	return strtab_get(e->cache->names, i > 0 ? (uint32_t)i : 0);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	/* The linkage name demangles to the qualified name with template
	 * arguments; DW_AT_name is the bare identifier. */
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s;
}

/*
 * Inline expansion. dwarf_getscopes lists the scopes at pc innermost first,
 * but past an inlined_subroutine it continues in the *abstract* tree of the
 * inlined function's definition; the caller is found by asking for the
 * concrete parents of that inlined_subroutine DIE (dwarf_getscopes_die).
 * The innermost function's position is the line-table row for pc; each
 * inlined_subroutine's DW_AT_call_file/line is where its caller stood.
 */
static unsigned int inline_frames(struct sym_elf *e, Dwarf_Addr a, const char *symname,
				  struct sym_frame *frames, unsigned int max, bool *has_lines,
				  bool *has_inline)
{
	Dwarf_Addr cubias;
	Dwarf_Die *cu = dwfl_module_addrdie(e->mod, a, &cubias);
	Dwfl_Line *line = dwfl_module_getsrc(e->mod, a);
	const char *file = NULL;
	int lineno = 0;
	Dwarf_Die *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	unsigned int n = 0;
	bool outer = false;
	int ns, i = 0;

	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!cu)
		return 0;
	ns = dwarf_getscopes(cu, a - cubias, &scopes);
	if (ns <= 0)
		return 0;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	while (n < max) {
		Dwarf_Attribute at;
		Dwarf_Word w;
		Dwarf_Die d;
		int tag = 0;

		for (; i < ns; i++) {
			tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
				break;
		}
		if (i >= ns)
			break;
		d = scopes[i];
		/* The outermost function: the ELF symbol is authoritative
		 * (and present even for functions without DW_AT_name). */
		if (tag == DW_TAG_subprogram && symname)
			set_name(e, &frames[n], symname);
		else if (die_name(&d))
			set_name(e, &frames[n], die_name(&d));
		else
			set_name(e, &frames[n], "[unknown]");
		frames[n].file = intern(e, file);
		frames[n].line = lineno > 0 ? (uint32_t)lineno : 0;
		if (file)
			*has_lines = true;
		n++;
		if (tag == DW_TAG_subprogram) {
			outer = true;
			break;
		}
		*has_inline = true;
		file = NULL;
		lineno = 0;
		if (dwarf_attr(&d, DW_AT_call_file, &at) && !dwarf_formudata(&at, &w) && files &&
		    w < nfiles)
			file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_attr(&d, DW_AT_call_line, &at) && !dwarf_formudata(&at, &w))
			lineno = (int)w;
		free(scopes);
		scopes = NULL;
		ns = dwarf_getscopes_die(&d, &scopes);
		i = 1; /* scopes[0] is d itself */
		if (ns <= 0)
			break;
	}
	/* Inline frames without the function they sit in: name the outer
	 * one from the symbol table rather than stop at an inlinee. */
	if (n && n < max && symname && !outer && strcmp(frames[n - 1].system_name, symname) != 0 &&
	    strcmp(frames[n - 1].name, symname) != 0) {
		set_name(e, &frames[n], symname);
		frames[n].file = intern(e, file);
		frames[n].line = lineno > 0 ? (uint32_t)lineno : 0;
		n++;
	}
	free(scopes);
	return n;
}

unsigned int sym_elf_resolve(struct sym_elf *e, uint64_t off, struct sym_frame *frames,
			     unsigned int max, bool *has_lines, bool *has_inline)
{
	GElf_Off symoff;
	GElf_Sym sym;
	const char *symname;
	Dwarf_Addr a;
	unsigned int n;

	if (!max)
		return 0;
	if (!e->dwfl_tried)
		open_dwfl(e);
	if (!e->mod)
		return 0;
	a = offset_to_vaddr(e, off) + e->bias;
	symname = dwfl_module_addrinfo(e->mod, a, &symoff, &sym, NULL, NULL, NULL);
	if (symname && !*symname)
		symname = NULL;
	n = inline_frames(e, a, symname, frames, max, has_lines, has_inline);
	if (n)
		return n;
	if (!symname)
		return 0;
	set_name(e, &frames[0], symname);
	frames[0].file = "";
	frames[0].line = 0;
	return 1;
}
