// SPDX-License-Identifier: GPL-2.0
/*
 * Control channel: generic netlink through libnl-genl-3. This file is the
 * channel itself: the socket, a request and its answer, the errors; each
 * command's request and reply are in control_commands.c, the events in
 * control_events.c, the names of the contract's values in control_names.c.
 *
 * One socket carries requests and owns the sessions it starts; events come
 * on a second socket, so a multicast message can never be mistaken for the
 * reply to a request. The kernel's extended ACK is switched on so that the
 * module's policy messages ("frequency above maximum") reach the user as
 * they were written, instead of a bare "Invalid argument".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include <skyprof.h>

#include "capture/control.h"
#include "capture/control_internal.h"
#include "capture/modload.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nla_policy control_attr_policy[SKYPROF_A_MAX + 1] = {
	[SKYPROF_A_MODULE_VERSION] = { .type = NLA_STRING },
	[SKYPROF_A_ABI_VERSION] = { .type = NLA_U32 },
	[SKYPROF_A_CAPS] = { .type = NLA_U32 },
	[SKYPROF_A_NR_CPU_IDS] = { .type = NLA_U32 },
	[SKYPROF_A_MAX_SESSIONS] = { .type = NLA_U32 },
	[SKYPROF_A_ACTIVE_SESSIONS] = { .type = NLA_U32 },
	[SKYPROF_A_FREQ_MAX] = { .type = NLA_U32 },
	[SKYPROF_A_RING_PAGES_MAX] = { .type = NLA_U32 },
	[SKYPROF_A_PAGE_SIZE] = { .type = NLA_U32 },
	[SKYPROF_A_SESSION_ID] = { .type = NLA_U32 },
	[SKYPROF_A_SESSION_TOKEN] = { .type = NLA_U64 },
	[SKYPROF_A_CLOCK_USED] = { .type = NLA_U32 },
	[SKYPROF_A_RING_DATA_SIZE] = { .type = NLA_U64 },
	[SKYPROF_A_CPU_STATS] = { .type = NLA_NESTED },
	[SKYPROF_A_EVENT] = { .type = NLA_U32 },
	[SKYPROF_A_END_REASON] = { .type = NLA_U32 },
	[SKYPROF_A_CPU] = { .type = NLA_U32 },
	[SKYPROF_A_RING_BYTES] = { .type = NLA_U64 },
	[SKYPROF_A_MODE] = { .type = NLA_U32 },
	[SKYPROF_A_FREQ] = { .type = NLA_U32 },
	[SKYPROF_A_FLAGS] = { .type = NLA_U32 },
	[SKYPROF_A_TARGET_CGROUP] = { .type = NLA_STRING },
	[SKYPROF_A_SESSION_INFO] = { .type = NLA_NESTED },
	[SKYPROF_A_OWNER_PID] = { .type = NLA_U32 },
	[SKYPROF_A_SAMPLES] = { .type = NLA_U64 },
	[SKYPROF_A_LOST] = { .type = NLA_U64 },
	[SKYPROF_A_SIDEBAND_USED] = { .type = NLA_U32 },
	[SKYPROF_A_SIDEBAND_PINNED] = { .type = NLA_U32 },
	[SKYPROF_A_FOLLOW_USED] = { .type = NLA_U32 },
	[SKYPROF_A_SIDEBAND_BYTES] = { .type = NLA_U64 },
};

void control_set_err(struct control *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

const char *control_error(const struct control *c)
{
	return c->err;
}

int control_open(struct control **out, enum control_open_failure *why, char *err, size_t errlen)
{
	struct nl_cache *cache = NULL;
	struct genl_family *fam;
	struct control *c;
	int one = 1, ret;
	uint8_t version;

	*out = NULL;
	*why = CONTROL_NO_NETLINK;
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	ret = genl_connect(c->sk);
	if (ret < 0) {
		snprintf(err, errlen, "cannot open a generic netlink socket: %s", nl_geterror(ret));
		ret = -EIO;
		goto fail;
	}
	/* Best effort: old kernels without extended ACK still work, just less wordy. */
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	ret = genl_ctrl_alloc_cache(c->sk, &cache);
	if (ret < 0) {
		snprintf(err, errlen, "cannot list generic netlink families: %s", nl_geterror(ret));
		ret = -EIO;
		goto fail;
	}
	fam = genl_ctrl_search_by_name(cache, SKYPROF_GENL_NAME);
	if (!fam) {
		*why = CONTROL_NO_MODULE;
		modload_explain_missing(err, errlen, NULL);
		ret = -ENOENT;
		goto fail;
	}
	c->family = genl_family_get_id(fam);
	version = genl_family_get_version(fam);
	genl_family_put(fam);
	nl_cache_free(cache);
	cache = NULL;
	if (version < SKYPROF_GENL_VERSION) {
		*why = CONTROL_BAD_VERSION;
		snprintf(err, errlen,
			 "the loaded skyprof module is too old: netlink version %u, this skyprof "
			 "needs %d (upgrade skyprof-dkms, then `rmmod skyprof; modprobe skyprof`)",
			 version, SKYPROF_GENL_VERSION);
		ret = -EPROTO;
		goto fail;
	}
	*why = CONTROL_OK;
	*out = c;
	return 0;

fail:
	if (cache)
		nl_cache_free(cache);
	control_close(c);
	return ret;
}

void control_close(struct control *c)
{
	if (!c)
		return;
	if (c->ev)
		nl_socket_free(c->ev);
	if (c->sk)
		nl_socket_free(c->sk);
	free(c);
}

void control_extack_message(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlmsgerr *e = (const struct nlmsgerr *)NLMSG_DATA(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t ack_len = sizeof(*e), total;

	buf[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	total = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		ack_len += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	ack_len = NLMSG_ALIGN(ack_len);
	if (ack_len >= total)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(void *)((const char *)e + ack_len),
		      (int)(total - ack_len), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG]) {
		const char *m = nla_data(tb[NLMSGERR_ATTR_MSG]);
		size_t n = strnlen(m, (size_t)nla_len(tb[NLMSGERR_ATTR_MSG]));

		if (n >= len)
			n = len - 1;
		memcpy(buf, m, n);
		buf[n] = '\0';
	}
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct reply *r = arg;

	(void)nla;
	r->error = e->error ? e->error : -EIO;
	/* libnl hands us the payload of a message it checked is whole. */
	control_extack_message(
		(const struct nlmsghdr *)(const void *)((const char *)e - NLMSG_HDRLEN), r->extack,
		sizeof(r->extack));
	r->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;

	(void)msg;
	r->done = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[SKYPROF_A_MAX + 1];
	int ret;

	if (!r->parse || r->error)
		return NL_OK;
	ret = genlmsg_parse(nlh, 0, tb, SKYPROF_A_MAX, control_attr_policy);
	if (ret < 0) {
		r->error = -EPROTO;
		snprintf(r->extack, sizeof(r->extack), "malformed reply from the module (%s)",
			 nl_geterror(ret));
		return NL_SKIP;
	}
	ret = r->parse(r, tb, nlh);
	if (ret < 0 && !r->error)
		r->error = ret;
	return NL_OK;
}

/* Explain an errno in terms of the request that got it. */
static const char *errno_text(int cmd, int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return "permission denied: skyprof needs CAP_PERFMON or CAP_SYS_ADMIN (run it as "
		       "root)";
	case EBUSY:
		return "the module is busy: every session slot is in use (see `skyprof status`)";
	case ESRCH:
		return "no such process";
	case ENOENT:
		return cmd == SKYPROF_CMD_SESSION_START ? "no such target (process or cgroup)"
							: "no such session";
	case EOPNOTSUPP:
		return "not supported by this kernel or module (see `skyprof status` for its "
		       "capabilities)";
	case EINVAL:
		return "the module rejected the request as invalid";
	case ENOMEM:
		return "the module is out of memory (try fewer ring pages)";
	default:
		return strerror(e);
	}
}

int control_request(struct control *c, uint8_t cmd, const char *what, build_fn build,
		    const void *barg, struct reply *r)
{
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret;

	r->c = c;
	r->error = 0;
	r->extack[0] = '\0';
	r->done = false;

	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb) {
		ret = -ENOMEM;
		control_set_err(c, "%s: out of memory", what);
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, 0, cmd,
			 SKYPROF_GENL_VERSION) ||
	    (build && build(msg, barg) < 0)) {
		ret = -EMSGSIZE;
		control_set_err(c, "%s: request does not fit in a netlink message", what);
		goto out;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);

	ret = nl_send_auto(c->sk, msg); /* asks for an ACK: auto-ack is on */
	if (ret < 0) {
		control_set_err(c, "%s: cannot send to the module: %s", what, nl_geterror(ret));
		ret = -EIO;
		goto out;
	}
	while (!r->done) {
		ret = nl_recvmsgs(c->sk, cb);
		if (ret < 0 && !r->error) {
			control_set_err(c, "%s: no answer from the module: %s", what,
					nl_geterror(ret));
			ret = -EIO;
			goto out;
		}
		if (r->error)
			break;
	}
	ret = r->error;
	if (ret < 0) {
		if (r->extack[0])
			control_set_err(c, "%s: %s", what, r->extack);
		else
			control_set_err(c, "%s: %s", what, errno_text(cmd, -ret));
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}
