/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the control channel share (control.h is its users'
 * view): the handle, one request's round trip (control.c) and the helpers
 * of the reply parsers in control_commands.c and control_events.c.
 */
#ifndef SKYPROF_CAPTURE_CONTROL_INTERNAL_H
#define SKYPROF_CAPTURE_CONTROL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <skyprof.h>

/* The handle: the request socket, the event socket once subscribed, the family. */
struct control {
	struct nl_sock *sk;
	struct nl_sock *ev;
	int family;
	char err[512];
};

/* What one request collected from its replies. */
struct reply {
	struct control *c;
	int (*parse)(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh);
	void *arg;
	int error;	  /* -errno from the kernel's NLMSG_ERROR, or a parse error */
	char extack[256]; /* the kernel's message, if any */
	bool done;
};

/* The type of each attribute a reply or an event may carry, as libnl checks it. */
extern struct nla_policy control_attr_policy[SKYPROF_A_MAX + 1];

/* printf into c->err, the message control_error() returns. */
void control_set_err(struct control *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds a request's attributes to msg: < 0 when they do not fit. */
typedef int (*build_fn)(struct nl_msg *msg, const void *arg);

/*
 * Send command cmd (build adds its attributes) and collect the answer into
 * r (r->parse sees each reply message): 0, or -errno with the message in
 * c->err, prefixed by what.
 */
int control_request(struct control *c, uint8_t cmd, const char *what, build_fn build,
		    const void *barg, struct reply *r);

/* An attribute's value, 0 when it is absent. */
static inline uint32_t get_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static inline uint64_t get_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

#endif
