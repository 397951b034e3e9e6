/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "host:port" addresses of the agent's config, checked once for --check and
 * for the connection alike, so that what --check accepts connects.
 */
#ifndef SKYPROF_LIB_NET_ADDR_H
#define SKYPROF_LIB_NET_ADDR_H

#include <stddef.h>

#define NET_ADDR_HOST_MAX 256
#define NET_ADDR_PORT_MAX 8

/*
 * "host:port", "[v6]:port", "host" or "[v6]" (then default_port). host: a
 * DNS name (letters, digits, '-', '_', dots between labels) or an IPv4
 * address; an IPv6 address goes in brackets (unbracketed, its colons would
 * read as the port's). port: 1..65535 in decimal. Fills host (without the
 * brackets) and port; returns 0, or -EINVAL with why set to a phrase
 * ("the port 99999 is not in 1..65535").
 */
int net_addr_split(const char *addr, const char *default_port, char host[NET_ADDR_HOST_MAX],
		   char port[NET_ADDR_PORT_MAX], char *why, size_t whylen);

#endif
