// SPDX-License-Identifier: GPL-2.0
/* What a process is to the attach mechanism (jvm_probe.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/path.h"
#include "proc/jvm_probe.h"
#include "proc/maps.h"

/* A JVM's command line and environment are read this far. */
#define ARGS_MAX (256u << 10)

/* The launcher's options that take the next argument as their value. */
static const char *const value_opts[] = {
	"-cp",
	"-classpath",
	"--class-path",
	"-p",
	"--module-path",
	"--upgrade-module-path",
	"--add-modules",
	"--limit-modules",
	"--add-exports",
	"--add-opens",
	"--add-reads",
	"--patch-module",
	"--source",
	"--enable-native-access",
	NULL,
};

static bool takes_value(const char *a)
{
	for (size_t i = 0; value_opts[i]; i++)
		if (!strcmp(a, value_opts[i]))
			return true;
	return false;
}

/* One option (len bytes at a): sets *v when it is -XX:+flag or -XX:-flag. */
static void take_option(const char *a, size_t len, const char *flag, enum jvm_flag *v)
{
	size_t fl = strlen(flag);

	if (len == fl + 5 && !memcmp(a, "-XX:", 4) && (a[4] == '+' || a[4] == '-') &&
	    !memcmp(a + 5, flag, fl))
		*v = a[4] == '+' ? JVM_FLAG_ON : JVM_FLAG_OFF;
}

/* The options in an environment variable's value, blank-separated. */
static void take_words(const char *s, size_t len, const char *flag, enum jvm_flag *v)
{
	size_t i = 0;

	while (i < len) {
		size_t j;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
			i++;
		for (j = i; j < len && s[j] != ' ' && s[j] != '\t' && s[j] != '\n'; j++)
			;
		if (j > i)
			take_option(s + i, j - i, flag, v);
		i = j;
	}
}

static void take_env(const char *env, size_t len, const char *name, const char *flag,
		     enum jvm_flag *v)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		const char *e = env + i;
		const char *nul = memchr(e, '\0', len - i);
		size_t el = nul ? (size_t)(nul - e) : len - i;

		if (el > nl && !memcmp(e, name, nl) && e[nl] == '=')
			take_words(e + nl + 1, el - nl - 1, flag, v);
		i += el + 1;
	}
}

static void take_cmdline(const char *cmd, size_t len, const char *flag, enum jvm_flag *v)
{
	char arg[256];
	bool first = true, skip = false;

	for (size_t i = 0; i < len;) {
		const char *a = cmd + i;
		const char *nul = memchr(a, '\0', len - i);
		size_t al = nul ? (size_t)(nul - a) : len - i;

		i += al + 1;
		if (first || skip) {
			first = skip = false;
			continue;
		}
		if (!al || a[0] != '-')
			return; /* the main class: what follows is the program's */
		if (al < sizeof(arg)) {
			memcpy(arg, a, al);
			arg[al] = '\0';
			if (!strcmp(arg, "-jar") || !strcmp(arg, "-m") || !strcmp(arg, "--module"))
				return;
			skip = takes_value(arg);
		}
		take_option(a, al, flag, v);
	}
}

enum jvm_flag jvm_probe_flag(const char *cmdline, size_t cmd_len, const char *env, size_t env_len,
			     const char *flag)
{
	enum jvm_flag v = JVM_FLAG_UNSET;

	if (env)
		take_env(env, env_len, "JAVA_TOOL_OPTIONS", flag, &v);
	if (env)
		take_env(env, env_len, "JDK_JAVA_OPTIONS", flag, &v);
	if (cmdline)
		take_cmdline(cmdline, cmd_len, flag, &v);
	if (env)
		take_env(env, env_len, "_JAVA_OPTIONS", flag, &v);
	return v;
}

int jvm_probe_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "libj9vm", 7))
		return -1;
	if (!strcmp(base, "libjli.so"))
		return 2;
	return !strcmp(base, "libjvm.so");
}

/* The value of "Key:\t..." lines, as the rest of the line. */
static const char *field(const char *text, size_t len, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < len;) {
		const char *l = text + i;
		const char *nl = memchr(l, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - l) : len - i;

		if (ll > kl && !memcmp(l, key, kl)) {
			*vlen = ll - kl;
			return l + kl;
		}
		i += ll + 1;
	}
	return NULL;
}

/* The n-th (from 0; -1: last) decimal number of a field's value. */
static bool nth_number(const char *v, size_t len, int n, unsigned long long *out)
{
	bool got = false;
	int k = 0;

	for (size_t i = 0; i < len;) {
		unsigned long long x = 0;
		size_t j = i, digits = 0;

		while (j < len && v[j] >= '0' && v[j] <= '9' && digits < 20) {
			x = x * 10 + (unsigned long long)(v[j++] - '0');
			digits++;
		}
		if (digits) {
			if (n < 0 || k == n) {
				*out = x;
				got = true;
				if (n >= 0)
					return true;
			}
			k++;
			i = j;
		} else {
			i++;
		}
	}
	return got;
}

static bool hex_field(const char *text, size_t len, const char *key, unsigned long long *out)
{
	size_t vl;
	const char *v = field(text, len, key, &vl);
	unsigned long long x = 0;
	int digits = 0;

	if (!v)
		return false;
	for (size_t i = 0; i < vl; i++) {
		char c = v[i];
		int d;

		if (c == '\t' || c == ' ')
			continue;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		if (++digits > 16)
			return false;
		x = x << 4 | (unsigned long long)d;
	}
	*out = x;
	return digits > 0;
}

int jvm_probe_status(const char *text, size_t len, struct jvm_probe *out)
{
	unsigned long long uid, gid, ns, cgt, ign;
	unsigned long long quit = 1ull << (SIGQUIT - 1);
	const char *v;
	size_t vl;

	v = field(text, len, "Uid:", &vl);
	if (!v || !nth_number(v, vl, 1, &uid))
		return -EINVAL;
	v = field(text, len, "Gid:", &vl);
	if (!v || !nth_number(v, vl, 1, &gid))
		return -EINVAL;
	out->uid = (uint32_t)uid;
	out->gid = (uint32_t)gid;
	v = field(text, len, "NSpid:", &vl);
	if (v && nth_number(v, vl, -1, &ns))
		out->nspid = (uint32_t)ns;
	out->quit_caught = hex_field(text, len, "SigCgt:", &cgt) &&
			   hex_field(text, len, "SigIgn:", &ign) && (cgt & quit) && !(ign & quit);
	return 0;
}

/* Up to max bytes of a /proc file, NUL-terminated; NULL if unreadable. */
static char *slurp(const char *root, uint32_t pid, const char *leaf, size_t max, size_t *len)
{
	char path[PATH_MAX];
	char *buf;
	size_t n = 0;
	int fd;

	if (!path_fmt(path, sizeof(path), "%s/%u/%s", root, pid, leaf))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	while (buf && n < max) {
		ssize_t r = read(fd, buf + n, max - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* Is the process's executable called java? */
static bool exe_is_java(const char *root, uint32_t pid)
{
	char path[PATH_MAX], exe[PATH_MAX];
	const char *base;
	ssize_t n;

	if (!path_fmt(path, sizeof(path), "%s/%u/exe", root, pid))
		return false;
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	return !strcmp(base ? base + 1 : exe, "java");
}

/*
 * HotSpot mapped (true), or *launcher when only the java launcher is: its
 * libjli.so, or, right after the exec, before the dynamic loader has mapped
 * that, an executable called java.
 */
static bool maps_hotspot(const char *root, uint32_t pid, bool *launcher)
{
	char path[PATH_MAX], line[PATH_MAX + 128];
	bool jvm = false, j9 = false;
	FILE *f;

	*launcher = false;
	if (!path_fmt(path, sizeof(path), "%s/%u/maps", root, pid))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		struct maps_line m;
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!maps_parse_line(line, &m) || !m.inode)
			continue;
		switch (jvm_probe_library(m.path)) {
		case 1:
			jvm = true;
			break;
		case -1:
			j9 = true;
			break;
		case 2:
			*launcher = true;
			break;
		}
	}
	fclose(f);
	*launcher = (*launcher || exe_is_java(root, pid)) && !jvm && !j9;
	return jvm && !j9;
}

static bool same_ns(const char *root, uint32_t pid, const char *ns)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct stat x, y;

	return path_fmt(a, sizeof(a), "%s/self/ns/%s", root, ns) &&
	       path_fmt(b, sizeof(b), "%s/%u/ns/%s", root, pid, ns) && !stat(a, &x) &&
	       !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Does a descriptor of the process name its perf map? */
static bool holds_map(const char *root, uint32_t pid, uint32_t nspid)
{
	char dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX], want[40];
	size_t wl;
	bool found = false;
	struct dirent *d;
	DIR *dp;

	snprintf(want, sizeof(want), "/perf-%u.map", nspid);
	wl = strlen(want);
	if (!path_fmt(dir, sizeof(dir), "%s/%u/fd", root, pid) || !(dp = opendir(dir)))
		return false;
	while (!found && (d = readdir(dp))) {
		ssize_t n;

		if (d->d_name[0] == '.' || !path_fmt(link, sizeof(link), "%s/%s", dir, d->d_name))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = (size_t)n >= wl && !strcmp(target + n - wl, want);
	}
	closedir(dp);
	return found;
}

int jvm_probe_read(const char *proc_root, uint32_t pid, struct jvm_probe *out)
{
	size_t len = 0, cl = 0, el = 0;
	char *status, *cmd, *env;
	int r;

	if (!proc_root)
		proc_root = "/proc";
	memset(out, 0, sizeof(*out));
	r = ident_read(proc_root, pid, &out->ident);
	if (r)
		return r;
	status = slurp(proc_root, pid, "status", 16384, &len);
	if (!status)
		return -ESRCH;
	r = jvm_probe_status(status, len, out);
	free(status);
	if (r)
		return r;
	if (!out->nspid)
		out->nspid = pid;
	out->hotspot = maps_hotspot(proc_root, pid, &out->launcher);
	if (!out->hotspot)
		return 0;
	cmd = slurp(proc_root, pid, "cmdline", ARGS_MAX, &cl);
	env = slurp(proc_root, pid, "environ", ARGS_MAX, &el);
	out->disable_attach = jvm_probe_flag(cmd, cl, env, el, "DisableAttachMechanism");
	out->preserve_fp = jvm_probe_flag(cmd, cl, env, el, "PreserveFramePointer");
	free(cmd);
	free(env);
	cmd = slurp(proc_root, pid, "comm", sizeof(out->comm) - 1, &cl);
	if (cmd) {
		cmd[strcspn(cmd, "\n")] = '\0';
		snprintf(out->comm, sizeof(out->comm), "%s", cmd);
		free(cmd);
	}
	out->own_mntns = same_ns(proc_root, pid, "mnt");
	out->map_open = holds_map(proc_root, pid, out->nspid);
	return 0;
}
