// SPDX-License-Identifier: GPL-2.0
/* host:port checks; see net_addr.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "lib/net_addr.h"

static int bad(char *why, size_t len, const char *fmt, const char *arg)
{
	snprintf(why, len, fmt, arg);
	return -EINVAL;
}

/* A DNS name or a dotted IPv4 address: labels of [A-Za-z0-9_-], not empty. */
static int check_name(const char *h, char *why, size_t len)
{
	size_t label = 0;

	for (const char *p = h; *p; p++) {
		if (*p == '.') {
			if (!label)
				return bad(why, len, "'%s' is not a host name (an empty label)", h);
			label = 0;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			return bad(why, len,
				   *p == ':'
					   ? "'%s': an IPv6 address goes in brackets ([::1]:11800)"
					   : "'%s' is not a host name",
				   h);
		label++;
	}
	/* a trailing dot (the root) is fine, a name ending in "..": not */
	return 0;
}

int net_addr_split(const char *addr, const char *default_port, char host[NET_ADDR_HOST_MAX],
		   char port[NET_ADDR_PORT_MAX], char *why, size_t whylen)
{
	const char *colon, *p;
	unsigned long v = 0;
	size_t hl;

	if (!addr || !*addr)
		return bad(why, whylen, "%sno address", "");
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		struct in6_addr a6;

		if (!end)
			return bad(why, whylen, "'%s': no ']' after the IPv6 address", addr);
		hl = (size_t)(end - addr - 1);
		if (hl == 0 || hl >= NET_ADDR_HOST_MAX)
			return bad(why, whylen, "'%s': no IPv6 address in the brackets", addr);
		memcpy(host, addr + 1, hl);
		host[hl] = 0;
		if (inet_pton(AF_INET6, host, &a6) != 1)
			return bad(why, whylen, "'%s' is not an IPv6 address", host);
		if (end[1] && end[1] != ':')
			return bad(why, whylen, "'%s': only ':PORT' may follow the ']'", addr);
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strchr(addr, ':');
		if (colon && strchr(colon + 1, ':'))
			return bad(why, whylen,
				   "'%s': an IPv6 address goes in brackets ([::1]:11800)", addr);
		hl = colon ? (size_t)(colon - addr) : strlen(addr);
		if (hl == 0)
			return bad(why, whylen, "'%s': no host before the port", addr);
		if (hl >= NET_ADDR_HOST_MAX)
			return bad(why, whylen, "%sthe host name is longer than 255 bytes", "");
		memcpy(host, addr, hl);
		host[hl] = 0;
		if (check_name(host, why, whylen))
			return -EINVAL;
	}
	if (!colon) {
		snprintf(port, NET_ADDR_PORT_MAX, "%s", default_port);
		return 0;
	}
	for (p = colon + 1; *p >= '0' && *p <= '9' && v <= 65535; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (p == colon + 1 || *p || v < 1 || v > 65535)
		return bad(why, whylen, "the port '%s' is not a number in 1..65535", colon + 1);
	snprintf(port, NET_ADDR_PORT_MAX, "%lu", v);
	return 0;
}
