// SPDX-License-Identifier: GPL-2.0
/*
 * What linking glibc statically costs, and how build/skyprof-static pays it
 * (linked into that program only; the dynamic one uses the system's NSS).
 *
 * A static glibc still loads shared objects on demand: NSS services named
 * in /etc/nsswitch.conf other than "files" and "dns" (sss, myhostname,
 * resolve, nis, ...) are libnss_*.so.2 of the host, and libdwfl dlopens
 * libdebuginfod.so.1 when a binary has no local debug info. Those objects
 * belong to the host's glibc (2.17 on RHEL 7), and mixing them with the
 * glibc linked in here breaks at best with a failed dlopen and at worst
 * with two libcs in one process. So:
 *  - host names (the OAP address) go through "files dns" only, whatever
 *    nsswitch.conf says: glibc has both built in since 2.34, so /etc/hosts
 *    and the resolvers of /etc/resolv.conf answer without any loading; a
 *    numeric address never reaches NSS at all. Protocol and service names
 *    (libnl, port numbers) come from the files only. The program looks up
 *    no user or group names, so passwd/group need nothing.
 *  - every dlopen fails as if the library were absent (the link wraps it):
 *    no debuginfod downloads, no OpenSSL engines, in the static program.
 */
#include <nss.h>
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);

void *__wrap_dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	return NULL;
}

__attribute__((constructor)) static void static_nss_builtin_only(void)
{
	__nss_configure_lookup("hosts", "files dns");
	__nss_configure_lookup("protocols", "files");
	__nss_configure_lookup("services", "files");
}
