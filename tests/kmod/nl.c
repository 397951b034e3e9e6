// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int ktest_nl_open(struct ktest_nl *nl)
{
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	ret = genl_connect(nl->sk);
	if (ret < 0)
		goto err;
	/* Refused (ENOPROTOOPT) by kernels without extended acks (< 4.12). */
	nl->ext_ack = !setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
				  sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, SKYPROF_GENL_NAME);
	if (nl->family < 0) {
		ret = nl->family;
		goto err;
	}
	nl->mcgrp = genl_ctrl_resolve_grp(nl->sk, SKYPROF_GENL_NAME, SKYPROF_MCGRP_EVENTS);
	return 0;
err:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return ret;
}

void ktest_nl_close(struct ktest_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

int ktest_nl_subscribe(struct ktest_nl *nl)
{
	if (nl->mcgrp < 0)
		return nl->mcgrp;
	nl_socket_disable_seq_check(nl->sk);
	return nl_socket_add_membership(nl->sk, nl->mcgrp);
}

struct nl_msg *ktest_nl_msg(struct ktest_nl *nl, uint8_t cmd)
{
	/* Room for the oversized attributes of the bad-input tests. */
	struct nl_msg *msg = nlmsg_alloc_size(65536);

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0, cmd,
				SKYPROF_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

struct ktest_state {
	struct ktest_reply *rep;
	bool done;
};

static int ktest_valid_cb(struct nl_msg *msg, void *arg)
{
	struct ktest_state *st = arg;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	if (st->rep->msg)
		nlmsg_free(st->rep->msg);
	nlmsg_get(msg);
	st->rep->msg = msg;
	nla_parse(st->rep->tb, SKYPROF_A_MAX, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0),
		  NULL);
	return NL_OK;
}

static int ktest_ack_cb(struct nl_msg *msg, void *arg)
{
	struct ktest_state *st = arg;

	(void)msg;
	st->done = true;
	return NL_STOP;
}

/* The extack TLVs follow the (possibly capped) copy of the request. */
static void ktest_parse_extack(struct nlmsgerr *err, struct ktest_reply *rep)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*err);
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)err + off), len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(rep->ext, sizeof(rep->ext), "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
}

static int ktest_err_cb(struct sockaddr_nl *sa, struct nlmsgerr *err, void *arg)
{
	struct ktest_state *st = arg;

	(void)sa;
	st->rep->err = err->error;
	ktest_parse_extack(err, st->rep);
	st->done = true;
	return NL_STOP;
}

int ktest_nl_request(struct ktest_nl *nl, struct nl_msg *msg, struct ktest_reply *rep)
{
	struct ktest_state st = { .rep = rep };
	struct nl_cb *cb;
	int ret;

	memset(rep, 0, sizeof(*rep));
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return rep->err = -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, ktest_valid_cb, &st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ktest_ack_cb, &st);
	nl_cb_err(cb, NL_CB_CUSTOM, ktest_err_cb, &st);
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		rep->err = -EIO;
		goto out;
	}
	while (!st.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !st.done) {
			rep->err = -EIO;
			break;
		}
	}
out:
	nl_cb_put(cb);
	return rep->err;
}

void ktest_reply_free(struct ktest_reply *rep)
{
	if (rep->msg)
		nlmsg_free(rep->msg);
	rep->msg = NULL;
}

int ktest_get_stats(struct ktest_nl *nl, uint32_t id, struct ktest_cpu_stats *sum,
		    struct ktest_cpu_stats *per_cpu, int max_cpus)
{
	struct nlattr *stb[SKYPROF_STAT_MAX + 1];
	struct ktest_reply rep;
	struct nl_msg *msg = ktest_nl_msg(nl, SKYPROF_CMD_GET_STATS);
	struct genlmsghdr *gh;
	struct nlattr *a;
	int rem, i;

	memset(sum, 0, sizeof(*sum));
	nla_put_u32(msg, SKYPROF_A_SESSION_ID, id);
	if (ktest_nl_request(nl, msg, &rep))
		return rep.err;
	if (!rep.msg)
		return -EIO;
	gh = nlmsg_data(nlmsg_hdr(rep.msg));
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		switch (nla_type(a)) {
		case SKYPROF_A_OFFCPU_ENTRIES:
			sum->has_offcpu = true;
			sum->off_entries = nla_get_u32(a);
			continue;
		case SKYPROF_A_OFFCPU_USED:
			sum->off_used = nla_get_u32(a);
			continue;
		case SKYPROF_A_OFFCPU_EXITED:
			sum->off_exited = nla_get_u64(a);
			continue;
		}
		if (nla_type(a) != SKYPROF_A_CPU_STATS)
			continue;
		if (nla_parse_nested(stb, SKYPROF_STAT_MAX, a, NULL))
			continue;
		for (i = SKYPROF_STAT_SAMPLES; i <= SKYPROF_STAT_MAX; i++) {
			uint64_t v = stb[i] ? nla_get_u64(stb[i]) : 0;

			if (i == SKYPROF_STAT_HANDLER_MAX_NS)
				sum->v[i] = v > sum->v[i] ? v : sum->v[i];
			else
				sum->v[i] += v;
			if (per_cpu && stb[SKYPROF_STAT_CPU] &&
			    (int)nla_get_u32(stb[SKYPROF_STAT_CPU]) < max_cpus)
				per_cpu[nla_get_u32(stb[SKYPROF_STAT_CPU])].v[i] = v;
		}
	}
	ktest_reply_free(&rep);
	return 0;
}

struct ktest_event {
	bool got;
	uint32_t event, id, reason, cpu;
};

static int ktest_event_cb(struct nl_msg *msg, void *arg)
{
	struct ktest_event *ev = arg;
	struct nlattr *tb[SKYPROF_A_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	if (gh->cmd != SKYPROF_CMD_EVENT)
		return NL_OK;
	if (nla_parse(tb, SKYPROF_A_MAX, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), NULL))
		return NL_OK;
	ev->got = true;
	ev->event = tb[SKYPROF_A_EVENT] ? nla_get_u32(tb[SKYPROF_A_EVENT]) : 0;
	ev->id = tb[SKYPROF_A_SESSION_ID] ? nla_get_u32(tb[SKYPROF_A_SESSION_ID]) : 0;
	ev->reason = tb[SKYPROF_A_END_REASON] ? nla_get_u32(tb[SKYPROF_A_END_REASON]) : ~0u;
	ev->cpu = tb[SKYPROF_A_CPU] ? nla_get_u32(tb[SKYPROF_A_CPU]) : ~0u;
	return NL_STOP;
}

static int ktest_no_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int ktest_nl_wait_event(struct ktest_nl *nl, int timeout_ms, uint32_t *event, uint32_t *id,
			uint32_t *reason, uint32_t *cpu)
{
	struct ktest_event ev = { 0 };
	struct pollfd pfd = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret = 0;

	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, ktest_event_cb, &ev);
	/* Multicasts carry no sequence number of ours. */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, ktest_no_seq_check, NULL);
	while (!ev.got) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret <= 0)
			break;
		if (nl_recvmsgs(nl->sk, cb) < 0 && !ev.got) {
			ret = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	if (!ev.got)
		return ret < 0 ? ret : 0;
	*event = ev.event;
	*id = ev.id;
	*reason = ev.reason;
	*cpu = ev.cpu;
	return 1;
}
