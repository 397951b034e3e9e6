/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why skyprof.ko is not loaded, as far as the system can tell: module
 * signature enforcement (module.sig_enforce=1, lockdown under Secure Boot)
 * and what to do about it (sign with the DKMS MOK key, enrol it with
 * mokutil), and what to install when no module is there at all. Used by the error paths of `skyprof
 * status` and `record` on top of control_open's one-line message.
 */
#ifndef SKYPROF_CAPTURE_MODLOAD_H
#define SKYPROF_CAPTURE_MODLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct modload_state {
	bool sig_enforce;      /* /sys/module/module/parameters/sig_enforce is Y */
	bool lockdown;	       /* lockdown integrity or confidentiality is active */
	bool secure_boot;      /* the EFI SecureBoot variable says enabled */
	int module_signed;     /* installed skyprof.ko: 1 signed, 0 unsigned, -1 unknown/none */
	char module_path[256]; /* the installed skyprof.ko found, or "" */
	char refusal[256];     /* the kernel's log line refusing a module, or "" */
};

/* Reads the state from /sys, /proc and /dev/kmsg; root paths for tests. */
void modload_state_read(struct modload_state *s, const char *sysroot);

/* True when the kernel only loads signed modules. */
bool modload_enforced(const struct modload_state *s);

/*
 * Writes the multi-line signing explanation (every line ends in
 * a newline) when the kernel enforces signatures;
 * returns whether it wrote anything.
 */
bool modload_hint_signing(FILE *f, const struct modload_state *s);

/* One short clause for one-line messages (record), or "" when not enforced. */
const char *modload_hint_short(const struct modload_state *s);

/*
 * For a version mismatch: the loaded module's version from
 * /sys/module/skyprof/version into buf ("?" when unreadable).
 */
void modload_loaded_version(char *buf, size_t len, const char *sysroot);

/* The package manager of the system under sysroot, for install hints. */
enum modload_pkg {
	MODLOAD_PKG_NONE,
	MODLOAD_PKG_APT,    /* dpkg: Debian, Ubuntu */
	MODLOAD_PKG_YUM,    /* yum, dnf or only rpm: RHEL, CentOS (dkms from EPEL) */
	MODLOAD_PKG_ZYPPER, /* SLES, openSUSE */
};
enum modload_pkg modload_package_manager(const char *sysroot);

/*
 * The one-line message for a missing netlink family: the next step on this
 * host (load the installed module; the package command of the package
 * manager found, with the kernel's headers; the headers when skyprof-dkms
 * is installed but built nothing; or that the kernel cannot load modules).
 */
void modload_explain_missing(char *err, size_t len, const char *sysroot);

#endif
