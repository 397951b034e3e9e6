// SPDX-License-Identifier: GPL-2.0
/*
 * Entity name templates; see template.h. The grammar is small on
 * purpose: an action is one field, optionally with one quoted argument, so
 * a config that uses anything else fails at load time with the reason
 * rather than producing odd names later.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "agent/template.h"

enum field {
	F_EXE_NAME,
	F_EXE_PATH,
	F_PID,
	F_COMMAND,
	F_WORKDIR,
	F_HOST_IPV4,
	F_HOST_IPV6,
	F_HOST_NAME,
	F_INSTANCE_ID,
};

static const struct {
	const char *name;
	enum field field;
	bool takes_arg;
	bool process;
} fields[] = {
	{ ".Process.ExeName", F_EXE_NAME, false, true },
	{ ".Process.ExeFilePath", F_EXE_PATH, false, true },
	{ ".Process.Pid", F_PID, false, true },
	{ ".Process.Command", F_COMMAND, false, true },
	{ ".Process.CommandLine", F_COMMAND, false, true },
	{ ".Process.WorkDir", F_WORKDIR, false, true },
	{ ".Rover.HostIPV4", F_HOST_IPV4, true, false },
	{ ".Rover.HostIPV6", F_HOST_IPV6, true, false },
	{ ".Rover.HostName", F_HOST_NAME, false, false },
	{ ".Rover.InstanceID", F_INSTANCE_ID, false, false },
};

struct action {
	int field; /* index into fields[] */
	char arg[IFNAMSIZ + 16];
};

/* Parse the text between {{ and }}. */
static int parse_action(const char *s, size_t len, struct action *a, char *err, size_t errlen)
{
	size_t i = 0, n;

	while (i < len && isspace((unsigned char)s[i]))
		i++;
	while (len > i && isspace((unsigned char)s[len - 1]))
		len--;
	n = i;
	while (n < len && !isspace((unsigned char)s[n]))
		n++;
	a->field = -1;
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		if (strlen(fields[f].name) == n - i && !memcmp(s + i, fields[f].name, n - i))
			a->field = (int)f;
	if (a->field < 0) {
		snprintf(err, errlen, "unknown template field '%.*s'", (int)(n - i), s + i);
		return -EINVAL;
	}
	while (n < len && isspace((unsigned char)s[n]))
		n++;
	a->arg[0] = 0;
	if (fields[a->field].takes_arg) {
		size_t q;

		if (n >= len || s[n] != '"') {
			snprintf(err, errlen, "%s needs a quoted interface name",
				 fields[a->field].name);
			return -EINVAL;
		}
		q = n + 1;
		while (q < len && s[q] != '"')
			q++;
		if (q >= len || q + 1 != len || q - n - 1 >= sizeof(a->arg)) {
			snprintf(err, errlen, "%s: bad argument '%.*s'", fields[a->field].name,
				 (int)(len - n), s + n);
			return -EINVAL;
		}
		memcpy(a->arg, s + n + 1, q - n - 1);
		a->arg[q - n - 1] = 0;
	} else if (n != len) {
		snprintf(err, errlen, "%s takes no argument", fields[a->field].name);
		return -EINVAL;
	}
	return 0;
}

struct out {
	char *buf;
	size_t len, cap;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (!o || o->len + 1 >= o->cap)
		return;
	if (n > o->cap - 1 - o->len)
		n = o->cap - 1 - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

static int walk(const char *t, const struct template_process *p, const struct template_host *h,
		struct out *o, char *err, size_t errlen)
{
	while (*t) {
		const char *open = strstr(t, "{{"), *close;
		struct action a;
		char buf[256];
		const char *v = "";

		if (!open) {
			put(o, t, strlen(t));
			break;
		}
		put(o, t, (size_t)(open - t));
		close = strstr(open + 2, "}}");
		if (!close) {
			snprintf(err, errlen, "'{{' without '}}'");
			return -EINVAL;
		}
		if (parse_action(open + 2, (size_t)(close - open - 2), &a, err, errlen))
			return -EINVAL;
		t = close + 2;
		if (!o)
			continue;
		if (fields[a.field].process && !p) {
			snprintf(err, errlen, "%s used where there is no process",
				 fields[a.field].name);
			return -EINVAL;
		}
		switch (fields[a.field].field) {
		case F_EXE_NAME:
			v = p->exe_name;
			break;
		case F_EXE_PATH:
			v = p->exe_path;
			break;
		case F_PID:
			snprintf(buf, sizeof(buf), "%u", p->pid);
			v = buf;
			break;
		case F_COMMAND:
			v = p->cmdline;
			break;
		case F_WORKDIR:
			v = p->workdir;
			break;
		case F_HOST_IPV4:
		case F_HOST_IPV6:
			buf[0] = 0;
			if (h && h->ip)
				h->ip(h->arg,
				      fields[a.field].field == F_HOST_IPV4 ? AF_INET : AF_INET6,
				      a.arg, buf, sizeof(buf));
			v = buf;
			break;
		case F_HOST_NAME:
			v = h ? h->hostname : "";
			break;
		case F_INSTANCE_ID:
			v = h ? h->instance_id : "";
			break;
		}
		if (v)
			put(o, v, strlen(v));
	}
	return 0;
}

int template_check(const char *t, char *err, size_t errlen)
{
	return walk(t, NULL, NULL, NULL, err, errlen);
}

int template_expand(const char *t, const struct template_process *p, const struct template_host *h,
		    char *out, size_t outlen, char *err, size_t errlen)
{
	struct out o = { .buf = out, .cap = outlen };

	if (!outlen)
		return -EINVAL;
	out[0] = 0;
	return walk(t, p, h, &o, err, errlen);
}

void template_host_ip(void *arg, int family, const char *iface, char *out, size_t outlen)
{
	struct ifaddrs *ifs, *i;
	const char *pick = NULL;
	char buf[INET6_ADDRSTRLEN];

	(void)arg;
	snprintf(out, outlen, "%s", family == AF_INET ? "127.0.0.1" : "::1");
	if (getifaddrs(&ifs))
		return;
	/* First pass: the named interface; second: any up, non-loopback one. */
	for (int pass = 0; pass < 2 && !pick; pass++) {
		for (i = ifs; i; i = i->ifa_next) {
			const void *a;

			if (!i->ifa_addr || i->ifa_addr->sa_family != family)
				continue;
			if (pass == 0 && strcmp(i->ifa_name, iface))
				continue;
			if (pass == 1 &&
			    ((i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)))
				continue;
			a = family == AF_INET
				    ? (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr
				    : (const void *)&((struct sockaddr_in6 *)i->ifa_addr)
					      ->sin6_addr;
			if (inet_ntop(family, a, buf, sizeof(buf))) {
				pick = buf;
				break;
			}
		}
	}
	if (pick)
		snprintf(out, outlen, "%s", pick);
	freeifaddrs(ifs);
}
