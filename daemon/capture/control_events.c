// SPDX-License-Identifier: GPL-2.0
/*
 * The module's events (session ended, ring over its watermark, CPU
 * throttled): a second socket in the multicast group, read without
 * blocking, so that an event is never taken for a reply on the request
 * socket (control.c).
 */
#include <errno.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include <skyprof.h>

#include "capture/control.h"
#include "capture/control_internal.h"

int control_subscribe_events(struct control *c)
{
	int grp, ret;

	if (c->ev)
		return 0;
	grp = genl_ctrl_resolve_grp(c->sk, SKYPROF_GENL_NAME, SKYPROF_MCGRP_EVENTS);
	if (grp < 0) {
		control_set_err(c, "cannot find the module's event group: %s", nl_geterror(grp));
		return -ENOENT;
	}
	c->ev = nl_socket_alloc();
	if (!c->ev) {
		control_set_err(c, "out of memory");
		return -ENOMEM;
	}
	nl_socket_disable_seq_check(c->ev);
	ret = genl_connect(c->ev);
	if (ret >= 0)
		ret = nl_socket_add_membership(c->ev, grp);
	if (ret >= 0)
		ret = nl_socket_set_nonblocking(c->ev);
	if (ret < 0) {
		control_set_err(c, "cannot subscribe to the module's events: %s", nl_geterror(ret));
		nl_socket_free(c->ev);
		c->ev = NULL;
		return -EIO;
	}
	return 0;
}

int control_event_fd(const struct control *c)
{
	return c->ev ? nl_socket_get_fd(c->ev) : -1;
}

struct event_ctx {
	void (*fn)(void *arg, const struct control_event *e);
	void *arg;
	int family;
};

static int on_event(struct nl_msg *msg, void *arg)
{
	struct event_ctx *ctx = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[SKYPROF_A_MAX + 1];
	struct control_event e = { 0 };
	struct genlmsghdr *g;

	if (nlh->nlmsg_type != ctx->family || !genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	g = nlmsg_data(nlh);
	if (g->cmd != SKYPROF_CMD_EVENT)
		return NL_SKIP;
	if (genlmsg_parse(nlh, 0, tb, SKYPROF_A_MAX, control_attr_policy) < 0)
		return NL_SKIP;
	e.event = get_u32(tb, SKYPROF_A_EVENT);
	e.session_id = get_u32(tb, SKYPROF_A_SESSION_ID);
	e.end_reason = get_u32(tb, SKYPROF_A_END_REASON);
	e.cpu = get_u32(tb, SKYPROF_A_CPU);
	ctx->fn(ctx->arg, &e);
	return NL_OK;
}

int control_read_events(struct control *c, void (*fn)(void *arg, const struct control_event *e),
			void *arg)
{
	struct event_ctx ctx = { .fn = fn, .arg = arg, .family = c->family };
	struct nl_cb *cb;
	int ret;

	if (!c->ev)
		return 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &ctx);
	for (;;) {
		ret = nl_recvmsgs(c->ev, cb);
		if (ret == -NLE_AGAIN) {
			ret = 0;
			break;
		}
		if (ret < 0) {
			control_set_err(c, "cannot read the module's events: %s", nl_geterror(ret));
			ret = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return ret;
}
