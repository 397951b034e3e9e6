/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entity name templates, in the subset of Go's text/template syntax that
 * rover's scanner configs use: literal text with {{ .Field }} actions.
 *
 *   {{.Process.ExeName}}  {{.Process.ExeFilePath}}  {{.Process.Pid}}
 *   {{.Process.Command}} (also {{.Process.CommandLine}})  {{.Process.WorkDir}}
 *   {{.Rover.HostIPV4 "iface"}}  {{.Rover.HostIPV6 "iface"}}  {{.Rover.HostName}}
 *   {{.Rover.InstanceID}}
 *
 * HostIPV4 falls back to the first non-loopback IPv4 address when the
 * interface does not exist (rover's default names "en0", which Linux hosts
 * rarely have), then to 127.0.0.1.
 */
#ifndef SKYPROF_AGENT_TEMPLATE_H
#define SKYPROF_AGENT_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

struct template_process {
	uint32_t pid;
	const char *exe_path;
	const char *exe_name;
	const char *cmdline; /* arguments joined by spaces */
	const char *workdir;
};

struct template_host {
	const char *hostname;
	const char *instance_id;
	/* Address of iface (or the fallback) into out; tests replace it. */
	void (*ip)(void *arg, int family, const char *iface, char *out, size_t outlen);
	void *arg;
};

/* Syntax and field names only. 0, or -EINVAL with the reason in err. */
int template_check(const char *t, char *err, size_t errlen);

/*
 * Expand t into out (truncated to outlen - 1). p may be NULL when the
 * template uses no .Process field. 0 or -EINVAL with err.
 */
int template_expand(const char *t, const struct template_process *p, const struct template_host *h,
		    char *out, size_t outlen, char *err, size_t errlen);

/* The real lookup over getifaddrs(), for template_host.ip. */
void template_host_ip(void *arg, int family, const char *iface, char *out, size_t outlen);

#endif
