// SPDX-License-Identifier: GPL-2.0
/* Explanations of a module that is not loaded: see modload.h. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/modload.h"

#define SIG_MAGIC      "~Module signature appended~\n"
#define EFI_SECUREBOOT "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0a9e46fb13a"

static int read_small(const char *sysroot, const char *path, char *buf, size_t len)
{
	char full[512];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), "%s%s", sysroot ? sysroot : "", path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

/* 1: the file ends with the module signature marker, 0: it does not, -1: unreadable. */
static int ko_signed(const char *path)
{
	char tail[sizeof(SIG_MAGIC)];
	size_t m = sizeof(SIG_MAGIC) - 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;
	int ret = -1;

	if (fd < 0)
		return -1;
	end = lseek(fd, 0, SEEK_END);
	if (end > (off_t)m && pread(fd, tail, m, end - (off_t)m) == (ssize_t)m)
		ret = memcmp(tail, SIG_MAGIC, m) == 0;
	close(fd);
	return ret;
}

static void find_module(struct modload_state *s, const char *sysroot)
{
	static const char *const where[] = { "updates/dkms", "extra", "updates", "kernel/extra" };
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };
	struct utsname u;

	if (uname(&u) != 0)
		return;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		for (size_t j = 0; j < sizeof(ext) / sizeof(ext[0]); j++) {
			snprintf(s->module_path, sizeof(s->module_path),
				 "%s/lib/modules/%s/%s/skyprof.ko%s", sysroot ? sysroot : "",
				 u.release, where[i], ext[j]);
			if (access(s->module_path, R_OK) == 0) {
				/* A compressed module's signature is inside: unknown. */
				s->module_signed = j == 0 ? ko_signed(s->module_path) : -1;
				return;
			}
		}
	s->module_path[0] = 0;
}

/* The last kernel line refusing a module load (needs CAP_SYSLOG; best effort). */
static void find_refusal(struct modload_state *s, const char *sysroot)
{
	char path[512], rec[1024];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/kmsg", sysroot ? sysroot : "");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	/* One record per read; EAGAIN at the end of the buffer, EPIPE on overrun. */
	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		char *msg, *nl;

		if (n < 0) {
			if (errno == EPIPE)
				continue;
			break;
		}
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		if ((strstr(msg, "Loading of ") && strstr(msg, " is rejected")) ||
		    strstr(msg, "unsigned module loading is restricted") ||
		    strstr(msg, "Key was rejected") || strstr(msg, "Required key not available"))
			snprintf(s->refusal, sizeof(s->refusal), "%s", msg);
	}
	close(fd);
}

void modload_state_read(struct modload_state *s, const char *sysroot)
{
	char buf[256];
	int n;

	memset(s, 0, sizeof(*s));
	s->module_signed = -1;
	if (read_small(sysroot, "/sys/module/module/parameters/sig_enforce", buf, sizeof(buf)) > 0)
		s->sig_enforce = buf[0] == 'Y' || buf[0] == '1';
	/* "none [integrity] confidentiality": the bracketed word is the mode. */
	if (read_small(sysroot, "/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0)
		s->lockdown = !strstr(buf, "[none]") && strchr(buf, '[');
	/* efivarfs: 4 bytes of attributes, then the value. */
	n = read_small(sysroot, EFI_SECUREBOOT, buf, sizeof(buf));
	s->secure_boot = n >= 5 && buf[4] == 1;
	find_module(s, sysroot);
	find_refusal(s, sysroot);
}

bool modload_enforced(const struct modload_state *s)
{
	return s->sig_enforce || s->lockdown;
}

const char *modload_hint_short(const struct modload_state *s)
{
	if (!modload_enforced(s))
		return "";
	return " (this kernel loads only signed modules: `skyprof status` explains how to sign "
	       "skyprof.ko)";
}

bool modload_hint_signing(FILE *f, const struct modload_state *s)
{
	struct utsname u;
	const char *rel = uname(&u) == 0 ? u.release : "$(uname -r)";

	if (!modload_enforced(s))
		return false;
	fprintf(f,
		"skyprof: this kernel loads only modules signed with a key it trusts (%s%s%s).\n",
		s->sig_enforce ? "module.sig_enforce=1" : "",
		s->sig_enforce && s->lockdown ? ", " : "",
		s->lockdown ? (s->secure_boot ? "lockdown under Secure Boot" : "lockdown") : "");
	if (s->refusal[0])
		fprintf(f, "  The kernel refused a module: \"%s\".\n", s->refusal);
	if (s->module_path[0])
		fprintf(f, "  Installed module: %s (%s).\n", s->module_path,
			s->module_signed == 1	? "signed, but apparently not with a trusted key"
			: s->module_signed == 0 ? "not signed"
						: "signature unknown");
	fprintf(f,
		"  DKMS (3.x) signs the modules it builds with /var/lib/dkms/mok.key and its\n"
		"  certificate /var/lib/dkms/mok.pub (created by the first build). To use them:\n"
		"   1. enrol the certificate, once: mokutil --import /var/lib/dkms/mok.pub\n"
		"      (choose a one-time password, reboot, confirm \"Enroll MOK\" in the MOK "
		"manager;\n"
		"      mokutil --test-key /var/lib/dkms/mok.pub says whether it is enrolled);\n"
		"   2. rebuild and install the module signed: dkms install --force "
		"skyprof/VERSION\n"
		"      -k %s, or sign a module built by hand with the kernel's sign-file:\n"
		"      /lib/modules/%s/build/scripts/sign-file sha256 /var/lib/dkms/mok.key \\\n"
		"          /var/lib/dkms/mok.pub skyprof.ko\n"
		"   3. modprobe skyprof\n"
		"  Without Secure Boot, module.sig_enforce=1 accepts only keys built into the "
		"kernel\n"
		"  or in its platform keyring: a MOK is trusted only when the shim loaded the "
		"kernel.\n",
		rel, rel);
	return true;
}

void modload_loaded_version(char *buf, size_t len, const char *sysroot)
{
	char v[64];
	char *nl;

	if (read_small(sysroot, "/sys/module/skyprof/version", v, sizeof(v)) <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	nl = strchr(v, '\n');
	if (nl)
		*nl = 0;
	snprintf(buf, len, "%s", v);
}

static bool exists(const char *sysroot, const char *path)
{
	char full[512];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", sysroot ? sysroot : "", path);
	return stat(full, &st) == 0;
}

/* Any of the paths (each tried under /usr/bin and /bin: merged /usr or not). */
static bool has_tool(const char *sysroot, const char *const *names)
{
	char p[128];

	for (; *names; names++) {
		snprintf(p, sizeof(p), "/usr/bin/%s", *names);
		if (exists(sysroot, p))
			return true;
		snprintf(p, sizeof(p), "/bin/%s", *names);
		if (exists(sysroot, p))
			return true;
	}
	return false;
}

enum modload_pkg modload_package_manager(const char *sysroot)
{
	static const char *const apt[] = { "apt-get", "apt", "dpkg", NULL };
	static const char *const zypper[] = { "zypper", NULL };
	static const char *const yum[] = { "yum", "dnf", "rpm", NULL };

	/*
	 * dpkg first: Debian ships rpm (for building rpms), never the other
	 * way round; zypper before yum because SUSE has rpm too.
	 */
	if (has_tool(sysroot, apt))
		return MODLOAD_PKG_APT;
	if (has_tool(sysroot, zypper))
		return MODLOAD_PKG_ZYPPER;
	if (has_tool(sysroot, yum))
		return MODLOAD_PKG_YUM;
	return MODLOAD_PKG_NONE;
}

/* Sources of some skyprof version under /usr/src: skyprof-dkms is installed. */
static bool dkms_sources(const char *sysroot)
{
	char pat[512];
	glob_t g;
	bool found;

	snprintf(pat, sizeof(pat), "%s/usr/src/skyprof-*/dkms.conf", sysroot ? sysroot : "");
	found = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

void modload_explain_missing(char *err, size_t len, const char *sysroot)
{
	struct modload_state s;
	struct utsname u;
	const char *rel = uname(&u) == 0 ? u.release : "$(uname -r)";
	enum modload_pkg pm;

	if (exists(sysroot, "/sys/module/skyprof")) {
		snprintf(err, len,
			 "the skyprof module is loaded but its netlink family is missing: "
			 "check `dmesg` for its load errors, then `rmmod skyprof; modprobe "
			 "skyprof`");
		return;
	}
	/* CONFIG_MODULES=n: no package or command can help on this kernel. */
	if (!exists(sysroot, "/proc/modules")) {
		snprintf(err, len,
			 "the skyprof kernel module is not loaded, and this kernel cannot load "
			 "modules (no /proc/modules: built without CONFIG_MODULES); skyprof needs "
			 "a kernel with module support");
		return;
	}
	memset(&s, 0, sizeof(s));
	find_module(&s, sysroot);
	if (s.module_path[0]) {
		snprintf(err, len,
			 "the skyprof kernel module is not loaded: load it with `modprobe skyprof` "
			 "(as root)");
		return;
	}
	pm = modload_package_manager(sysroot);
	/* The package is there but DKMS built nothing: the headers are what is missing. */
	if (dkms_sources(sysroot)) {
		snprintf(err, len,
			 "skyprof-dkms is installed but no module was built for kernel %s: "
			 "install its headers (%s%s), then `dkms autoinstall -k %s` and "
			 "`modprobe skyprof`",
			 rel,
			 pm == MODLOAD_PKG_APT	    ? "linux-headers-"
			 : pm == MODLOAD_PKG_YUM    ? "kernel-devel-"
			 : pm == MODLOAD_PKG_ZYPPER ? "kernel-default-devel, "
						    : "the kernel's build directory, ",
			 rel, rel);
		return;
	}
	switch (pm) {
	case MODLOAD_PKG_APT:
		snprintf(err, len,
			 "the skyprof kernel module is not installed for kernel %s: `apt install "
			 "skyprof-dkms linux-headers-%s` builds it, then `modprobe skyprof`",
			 rel, rel);
		break;
	case MODLOAD_PKG_YUM:
		snprintf(err, len,
			 "the skyprof kernel module is not installed for kernel %s: `yum install "
			 "skyprof-dkms kernel-devel-%s` builds it (dkms is EPEL's: `yum install "
			 "epel-release` first), then `modprobe skyprof`",
			 rel, rel);
		break;
	case MODLOAD_PKG_ZYPPER:
		snprintf(
			err, len,
			"the skyprof kernel module is not installed for kernel %s: `zypper install "
			"skyprof-dkms kernel-default-devel` builds it, then `modprobe skyprof`",
			rel);
		break;
	default:
		snprintf(err, len,
			 "the skyprof kernel module is not installed for kernel %s and no package "
			 "manager was found: build it from the sources (`make dkms-install`, then "
			 "`dkms install skyprof/VERSION`, docs/install.md) and `modprobe skyprof`",
			 rel);
	}
}
