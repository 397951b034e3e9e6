// SPDX-License-Identifier: GPL-2.0
/* Host process discovery; see procs.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/procs.h"
#include "agent/template.h"
#include "agent/config.h"

void procs_init(struct agent_procs *t, const char *proc_root)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->self = (uint32_t)getpid();
	t->proc_root = proc_root ? proc_root : "/proc";
}

static void proc_free(struct agent_proc *p)
{
	free(p->exe_path);
	free(p->exe_name);
	free(p->cmdline);
	free(p->layer);
	free(p->service);
	free(p->instance);
	free(p->process);
	for (size_t i = 0; i < p->nr_labels; i++)
		free(p->labels[i]);
	free(p->labels);
	memset(p, 0, sizeof(*p));
}

void procs_free(struct agent_procs *t)
{
	for (size_t i = 0; i < t->n; i++)
		proc_free(&t->v[i]);
	free(t->v);
	pthread_mutex_destroy(&t->lock);
	memset(t, 0, sizeof(*t));
}

char *procs_cmdline_from(const char *buf, size_t len)
{
	char *s;

	while (len && buf[len - 1] == 0)
		len--;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++)
		s[i] = buf[i] ? buf[i] : ' ';
	s[len] = 0;
	return s;
}

bool procs_exe_name_supported(const char *exe_name)
{
	/*
	 * Rover's list of runtimes whose frames are not in the ELF symbols,
	 * less the JVM, node and CPython: skyprof names their JIT frames from
	 * the perf maps they write and walks them by frame pointer, and the
	 * OAP hands tasks only to processes reported as supported.
	 */
	static const char *const interpreters[] = { "bash", "ruby", "ssh" };

	for (size_t i = 0; i < sizeof(interpreters) / sizeof(interpreters[0]); i++)
		if (!strncmp(exe_name, interpreters[i], strlen(interpreters[i])))
			return false;
	return true;
}

static bool elf_has_symbols(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found = false;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) &&
			    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_size &&
			    sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1)
				found = true;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

static ssize_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len && (n = read(fd, buf + total, len - (size_t)total)) > 0)
		total += n;
	close(fd);
	return total;
}

uint64_t procs_start_time_from(const char *buf)
{
	/* comm may hold spaces and parentheses: fields start after the last ')' */
	const char *p = strrchr(buf, ')');
	unsigned long long st = 0;

	/* p moves to the space before field 3, 4, ... 22 */
	for (int field = 3; p && field <= 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p, " %llu", &st);
	return st;
}

static uint64_t start_time_of(const char *root, uint32_t pid)
{
	char path[PATH_MAX], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/stat", root, pid);
	n = read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return procs_start_time_from(buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool same_entity(const struct agent_proc *a, const struct agent_proc *b)
{
	return !strcmp(a->layer, b->layer) && !strcmp(a->service, b->service) &&
	       !strcmp(a->instance, b->instance) && !strcmp(a->process, b->process);
}

static char *expand(const char *t, const struct template_process *tp, const struct template_host *h,
		    const char *what, uint32_t pid)
{
	char out[512], err[256];

	if (template_expand(t, tp, h, out, sizeof(out), err, sizeof(err))) {
		log_warn("discovery: pid %u: %s template: %s", pid, what, err);
		return NULL;
	}
	return strdup(out);
}

/* Build the entity for pid from finder f; 0, or -errno (entry freed). */
static int build(struct agent_proc *p, const struct agent_finder *f, const struct template_host *h,
		 const char *root)
{
	char path[PATH_MAX], exe[PATH_MAX], cwd[PATH_MAX];
	struct template_process tp;
	ssize_t n;
	const char *base;

	snprintf(path, sizeof(path), "%s/%u/exe", root, p->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "%s/%u/cwd", root, p->pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	cwd[n > 0 ? n : 0] = 0;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	p->exe_path = strdup(exe);
	p->exe_name = strdup(base);
	if (!p->exe_path || !p->exe_name)
		return -ENOMEM;
	tp = (struct template_process){ .pid = p->pid,
					.exe_path = p->exe_path,
					.exe_name = p->exe_name,
					.cmdline = p->cmdline,
					.workdir = cwd };
	p->layer = expand(f->layer, &tp, h, "layer", p->pid);
	p->service = expand(f->service_name, &tp, h, "service_name", p->pid);
	p->instance = expand(f->instance_name, &tp, h, "instance_name", p->pid);
	p->process = expand(f->process_name, &tp, h, "process_name", p->pid);
	if (!p->layer || !p->service || !p->instance || !p->process)
		return -EINVAL;
	if (f->nr_labels) {
		p->labels = calloc(f->nr_labels, sizeof(*p->labels));
		if (!p->labels)
			return -ENOMEM;
		for (size_t i = 0; i < f->nr_labels; i++) {
			p->labels[i] = strdup(f->labels[i]);
			if (!p->labels[i])
				return -ENOMEM;
			p->nr_labels++;
		}
		qsort(p->labels, p->nr_labels, sizeof(*p->labels), cmp_str);
	}
	snprintf(path, sizeof(path), "%s/%u/exe", root, p->pid);
	p->support_profiling = procs_exe_name_supported(p->exe_name) && elf_has_symbols(path);
	entity_process_id(p->service, p->instance, p->process, p->expected_id);
	return 0;
}

struct known {
	uint32_t pid;
	uint64_t start_time;
	bool seen;
};

static int cmp_known(const void *a, const void *b)
{
	const struct known *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_time < y->start_time ? -1 : x->start_time > y->start_time;
}

/* The known processes' (pid, start time), sorted: 0 or -ENOMEM. */
static int known_snapshot(struct agent_procs *t, struct known **kn, size_t *nk)
{
	*kn = NULL;
	*nk = 0;
	pthread_mutex_lock(&t->lock);
	if (t->n) {
		*kn = malloc(t->n * sizeof(**kn));
		if (!*kn) {
			pthread_mutex_unlock(&t->lock);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < t->n; i++)
		(*kn)[(*nk)++] =
			(struct known){ .pid = t->v[i].pid, .start_time = t->v[i].start_time };
	pthread_mutex_unlock(&t->lock);
	if (*nk)
		qsort(*kn, *nk, sizeof(**kn), cmp_known);
	return 0;
}

static struct known *known_find(struct known *kn, size_t nk, uint32_t pid, uint64_t start_time)
{
	struct known key = { .pid = pid, .start_time = start_time };

	return nk ? bsearch(&key, kn, nk, sizeof(*kn), cmp_known) : NULL;
}

/* A process not known yet: into *np when a finder matches its command line (0). */
static int examine(const struct agent_procs *t, const struct agent_config *c,
		   const struct template_host *h, uint32_t pid, uint64_t start_time,
		   struct agent_proc *np)
{
	char path[PATH_MAX], buf[8192];
	const struct agent_finder *f = NULL;
	ssize_t n;

	memset(np, 0, sizeof(*np));
	snprintf(path, sizeof(path), "%s/%u/cmdline", t->proc_root, pid);
	n = read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return -1; /* a kernel thread, or gone */
	np->cmdline = procs_cmdline_from(buf, (size_t)n);
	if (!np->cmdline)
		return -1;
	for (size_t i = 0; i < c->nr_finders && !f; i++)
		if (c->finders[i].re_ok && regexec(&c->finders[i].re, np->cmdline, 0, NULL, 0) == 0)
			f = &c->finders[i];
	if (!f) {
		free(np->cmdline);
		return -1;
	}
	np->pid = pid;
	np->start_time = start_time;
	np->seen = true;
	if (build(np, f, h, t->proc_root)) {
		proc_free(np);
		return -1;
	}
	return 0;
}

/* The processes of /proc not in kn (those in it are marked seen), into *nv. */
static void collect_new(struct agent_procs *t, const struct agent_config *c,
			const struct template_host *h, DIR *d, struct known *kn, size_t nk,
			struct agent_proc **nv, size_t *nn)
{
	size_t cap_n = 0;
	struct dirent *de;

	while ((de = readdir(d))) {
		struct agent_proc np;
		struct known *hit;
		uint64_t start_time;
		uint32_t pid;
		char *end;

		pid = (uint32_t)strtoul(de->d_name, &end, 10);
		if (*end || !pid || pid == t->self)
			continue;
		start_time = start_time_of(t->proc_root, pid);
		hit = known_find(kn, nk, pid, start_time);
		if (hit) {
			hit->seen = true;
			continue;
		}
		if (examine(t, c, h, pid, start_time, &np))
			continue;
		if (*nn == cap_n) {
			size_t cap = cap_n ? cap_n * 2 : 8;
			struct agent_proc *v = realloc(*nv, cap * sizeof(*v));

			if (!v) {
				proc_free(&np);
				continue;
			}
			*nv = v;
			cap_n = cap;
		}
		(*nv)[(*nn)++] = np;
	}
}

/* Under the lock: the known processes the scan did not see have exited. */
static void drop_exited(struct agent_procs *t, struct known *kn, size_t nk)
{
	for (size_t i = 0; i < t->n;) {
		struct known *hit = known_find(kn, nk, t->v[i].pid, t->v[i].start_time);

		if (hit && hit->seen) {
			t->v[i].seen = true;
			i++;
			continue;
		}
		log_info("discovery: pid %u (%s) exited", t->v[i].pid, t->v[i].process);
		proc_free(&t->v[i]);
		t->v[i] = t->v[--t->n];
	}
}

/* Under the lock: the new processes into the table (taken or freed); how many were added. */
static int add_new(struct agent_procs *t, struct agent_proc *nv, size_t nn)
{
	int added = 0;

	for (size_t k = 0; k < nn; k++) {
		struct agent_proc *np = &nv[k];
		bool dup = false;

		for (size_t i = 0; i < t->n && !dup; i++)
			dup = same_entity(&t->v[i], np);
		if (dup) {
			/* rover collapses duplicates: the first pid keeps the entity */
			log_debug("discovery: pid %u has the same entity as a known process; "
				  "not registered",
				  np->pid);
			proc_free(np);
			continue;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct agent_proc *v = realloc(t->v, cap * sizeof(*v));

			if (!v) {
				proc_free(np);
				continue;
			}
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n++] = *np;
		added++;
		log_info("discovery: pid %u %s: layer %s service '%s' instance '%s' process '%s'%s",
			 np->pid, np->exe_path, np->layer, np->service, np->instance, np->process,
			 np->support_profiling ? ""
					       : " (no ELF symbols, or bash, ruby or ssh: "
						 "reported as not profilable)");
	}
	return added;
}

/*
 * The scan reads /proc without the lock (slow under load, and the main
 * thread's task starts and continuous checks take the lock too): the known
 * processes are copied first, the new ones built aside, and both merged
 * under the lock at the end. Only scans change which processes the table
 * holds, so the copy stays right meanwhile.
 */
int procs_scan(struct agent_procs *t, const struct agent_config *c, const struct template_host *h)
{
	DIR *d = opendir(t->proc_root);
	struct known *kn;
	struct agent_proc *nv = NULL;
	size_t nk, nn = 0;
	int added;

	if (!d)
		return -errno;
	if (known_snapshot(t, &kn, &nk)) {
		closedir(d);
		return -ENOMEM;
	}
	collect_new(t, c, h, d, kn, nk, &nv, &nn);
	closedir(d);
	pthread_mutex_lock(&t->lock);
	drop_exited(t, kn, nk);
	added = add_new(t, nv, nn);
	pthread_mutex_unlock(&t->lock);
	free(nv);
	free(kn);
	return added;
}

uint32_t procs_pid_of(struct agent_procs *t, const char *process_id)
{
	uint32_t pid = 0;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n && !pid; i++)
		if (t->v[i].process_id[0] && !strcmp(t->v[i].process_id, process_id))
			pid = t->v[i].pid;
	pthread_mutex_unlock(&t->lock);
	return pid;
}

void procs_mark_all_new(struct agent_procs *t)
{
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].state == PROC_REPORTED)
			t->v[i].state = PROC_NEW;
	pthread_mutex_unlock(&t->lock);
}
