/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for tests that symbolize real processes: build the fixtures in
 * symfixtures/ into a temporary directory (at test time, with the host's
 * toolchain), start one with a pipe on its stdin and stdout, read the
 * "name 0xADDR" lines it prints up to "ready", and end it by closing stdin.
 */
#ifndef SKYPROF_TEST_FIXTURE_PROC_H
#define SKYPROF_TEST_FIXTURE_PROC_H

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FX_MAX_ADDRS 8
#define FX_MAX_LIVE  16

/* Children still running, killed by fx_cleanup if a failed assertion
 * skipped their fx_stop. */
static pid_t fx_live[FX_MAX_LIVE];

struct fx_proc {
	pid_t pid;
	int in_fd; /* the child's stdin: close to end it */
	FILE *out;
	int nr;
	char names[FX_MAX_ADDRS][32];
	uint64_t addrs[FX_MAX_ADDRS];
};

/* The source tree's tests/unit, from this file's compile-time path. */
static inline const char *fx_src_dir(void)
{
	static char dir[PATH_MAX];
	char *slash;

	if (dir[0])
		return dir;
	if (getenv("SKYPROF_TEST_SRC"))
		snprintf(dir, sizeof(dir), "%s", getenv("SKYPROF_TEST_SRC"));
	else if (!realpath(__FILE__, dir))
		snprintf(dir, sizeof(dir), "tests/unit/fixture_proc.h");
	slash = strrchr(dir, '/');
	if (slash && !getenv("SKYPROF_TEST_SRC"))
		*slash = '\0';
	return dir;
}

/* Builds the fixtures once per test binary; returns their directory. */
static inline const char *fx_build(void)
{
	static char out[PATH_MAX];
	char cmd[PATH_MAX * 2 + 64];

	if (out[0])
		return out;
	snprintf(out, sizeof(out), "/tmp/skyprof-fx-XXXXXX");
	if (!mkdtemp(out)) {
		out[0] = '\0';
		return NULL;
	}
	snprintf(cmd, sizeof(cmd), "sh %s/symfixtures/build.sh %s 2>&1 | grep -v Wpmf >&2",
		 fx_src_dir(), out);
	if (system(cmd) != 0) {
		char check[PATH_MAX + 16];

		snprintf(check, sizeof(check), "%s/fx_cpp", out);
		if (access(check, X_OK))
			return NULL;
	}
	return out;
}

static inline void fx_cleanup(void)
{
	const char *d = fx_build();
	char cmd[PATH_MAX + 16];
	int st;

	for (int i = 0; i < FX_MAX_LIVE; i++)
		if (fx_live[i] > 0) {
			kill(fx_live[i], SIGKILL);
			waitpid(fx_live[i], &st, 0);
			fx_live[i] = 0;
		}

	if (d && !strncmp(d, "/tmp/skyprof-fx-", 16)) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", d);
		if (system(cmd)) {
			/* best effort */
		}
	}
}

/* Starts argv[0] (a path) with pipes on stdin and stdout; reads its
 * "name 0xADDR" lines up to "ready". */
static inline int fx_spawn(struct fx_proc *p, char *const argv[])
{
	int in[2], outp[2];
	char line[256];

	memset(p, 0, sizeof(*p));
	/* CLOEXEC: a later child must not inherit an earlier child's stdin,
	 * or closing it would never reach that child as EOF. */
	if (pipe2(in, O_CLOEXEC) || pipe2(outp, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	for (int i = 0; i < FX_MAX_LIVE; i++)
		if (!fx_live[i]) {
			fx_live[i] = p->pid;
			break;
		}
	p->in_fd = in[1];
	p->out = fdopen(outp[0], "r");
	while (p->out && fgets(line, sizeof(line), p->out)) {
		unsigned long long a;
		char name[32];

		if (!strncmp(line, "ready", 5))
			return 0;
		if (sscanf(line, "%31s %llx", name, &a) == 2 && p->nr < FX_MAX_ADDRS) {
			snprintf(p->names[p->nr], sizeof(p->names[0]), "%s", name);
			p->addrs[p->nr++] = a;
		}
	}
	return -1;
}

/* Starts fixture prog from the build directory with up to two arguments. */
static inline int fx_start(struct fx_proc *p, const char *prog, const char *arg1, const char *arg2)
{
	char path[PATH_MAX];
	char *argv[4] = { path, (char *)arg1, arg1 ? (char *)arg2 : NULL, NULL };

	snprintf(path, sizeof(path), "%s/%s", fx_build(), prog);
	return fx_spawn(p, argv);
}

static inline uint64_t fx_addr(const struct fx_proc *p, const char *name)
{
	for (int i = 0; i < p->nr; i++)
		if (!strcmp(p->names[i], name))
			return p->addrs[i];
	return 0;
}

/* Ends the child (closing its stdin) and reaps it. */
static inline void fx_stop(struct fx_proc *p)
{
	int st;

	if (p->in_fd > 0)
		close(p->in_fd);
	p->in_fd = -1;
	if (p->out)
		fclose(p->out);
	p->out = NULL;
	if (p->pid > 0)
		waitpid(p->pid, &st, 0);
	for (int i = 0; i < FX_MAX_LIVE; i++)
		if (fx_live[i] == p->pid)
			fx_live[i] = 0;
	p->pid = 0;
}

/* The address nm gives sym in bin (link-time). */
static inline uint64_t fx_nm_addr(const char *bin, const char *sym)
{
	char cmd[PATH_MAX + 64], line[512], name[256];
	unsigned long long a = 0, v;
	char t;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm --defined-only %s", bin);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &v, &t, name) == 3 && !strcmp(name, sym))
			a = v;
	pclose(f);
	return a;
}

/* path made to hold text; false when it cannot be written. */
static inline bool fx_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f);
}

#endif
