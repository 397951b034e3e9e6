// SPDX-License-Identifier: GPL-2.0
/*
 * Control channel: generic netlink through libnl-genl-3.
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
#include "capture/modload.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

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

static struct nla_policy attr_policy[SKYPROF_A_MAX + 1] = {
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

static struct nla_policy stat_policy[SKYPROF_STAT_MAX + 1] = {
	[SKYPROF_STAT_CPU] = { .type = NLA_U32 },
	[SKYPROF_STAT_SAMPLES] = { .type = NLA_U64 },
	[SKYPROF_STAT_DROPS] = { .type = NLA_U64 },
	[SKYPROF_STAT_UNWIND_ERRORS] = { .type = NLA_U64 },
	[SKYPROF_STAT_HANDLER_NS] = { .type = NLA_U64 },
	[SKYPROF_STAT_HANDLER_MAX_NS] = { .type = NLA_U64 },
	[SKYPROF_STAT_THROTTLED] = { .type = NLA_U64 },
	[SKYPROF_STAT_FILTERED] = { .type = NLA_U64 },
	[SKYPROF_STAT_NESTED] = { .type = NLA_U64 },
	[SKYPROF_STAT_MISSED] = { .type = NLA_U64 },
	[SKYPROF_STAT_OFFCPU_SHORT] = { .type = NLA_U64 },
	[SKYPROF_STAT_OFFCPU_FULL] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_NOTED] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_FULL] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_REPORTS] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_RECORDS] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_LOST] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_WALK_NS] = { .type = NLA_U64 },
	[SKYPROF_STAT_SB_THROTTLED] = { .type = NLA_U64 },
	[SKYPROF_STAT_FOLLOW_ADDED] = { .type = NLA_U64 },
	[SKYPROF_STAT_FOLLOW_FULL] = { .type = NLA_U64 },
};

__attribute__((format(printf, 2, 3))) static void set_err(struct control *c, const char *fmt, ...)
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
	ret = genlmsg_parse(nlh, 0, tb, SKYPROF_A_MAX, attr_policy);
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

typedef int (*build_fn)(struct nl_msg *msg, const void *arg);

static int request(struct control *c, uint8_t cmd, const char *what, build_fn build,
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
		set_err(c, "%s: out of memory", what);
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, 0, cmd,
			 SKYPROF_GENL_VERSION) ||
	    (build && build(msg, barg) < 0)) {
		ret = -EMSGSIZE;
		set_err(c, "%s: request does not fit in a netlink message", what);
		goto out;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);

	ret = nl_send_auto(c->sk, msg); /* asks for an ACK: auto-ack is on */
	if (ret < 0) {
		set_err(c, "%s: cannot send to the module: %s", what, nl_geterror(ret));
		ret = -EIO;
		goto out;
	}
	while (!r->done) {
		ret = nl_recvmsgs(c->sk, cb);
		if (ret < 0 && !r->error) {
			set_err(c, "%s: no answer from the module: %s", what, nl_geterror(ret));
			ret = -EIO;
			goto out;
		}
		if (r->error)
			break;
	}
	ret = r->error;
	if (ret < 0) {
		if (r->extack[0])
			set_err(c, "%s: %s", what, r->extack);
		else
			set_err(c, "%s: %s", what, errno_text(cmd, -ret));
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

static uint32_t get_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static uint64_t get_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static int parse_info(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct control_info *info = r->arg;

	(void)nlh;
	if (!tb[SKYPROF_A_ABI_VERSION]) {
		snprintf(r->extack, sizeof(r->extack), "the module's reply lacks its ABI version");
		return -EPROTO;
	}
	if (tb[SKYPROF_A_MODULE_VERSION])
		nla_strlcpy(info->module_version, tb[SKYPROF_A_MODULE_VERSION],
			    sizeof(info->module_version));
	info->abi_version = get_u32(tb, SKYPROF_A_ABI_VERSION);
	info->caps = get_u32(tb, SKYPROF_A_CAPS);
	info->nr_cpu_ids = get_u32(tb, SKYPROF_A_NR_CPU_IDS);
	info->max_sessions = get_u32(tb, SKYPROF_A_MAX_SESSIONS);
	info->active_sessions = get_u32(tb, SKYPROF_A_ACTIVE_SESSIONS);
	info->freq_max = get_u32(tb, SKYPROF_A_FREQ_MAX);
	info->ring_pages_max = get_u32(tb, SKYPROF_A_RING_PAGES_MAX);
	info->page_size = get_u32(tb, SKYPROF_A_PAGE_SIZE);
	info->ring_bytes = get_u64(tb, SKYPROF_A_RING_BYTES);
	info->sideband_bytes = get_u64(tb, SKYPROF_A_SIDEBAND_BYTES);
	return 0;
}

int control_get_info(struct control *c, struct control_info *info)
{
	struct reply r = { .parse = parse_info, .arg = info };

	memset(info, 0, sizeof(*info));
	strcpy(info->module_version, "?");
	return request(c, SKYPROF_CMD_GET_INFO, "cannot query the module", NULL, NULL, &r);
}

int control_check_abi(struct control *c, const struct control_info *info)
{
	if (info->abi_version == SKYPROF_ABI_VERSION)
		return 0;
	set_err(c,
		"the skyprof module (version %s) speaks ABI %u, this skyprof %s speaks ABI %u: "
		"install matching versions of skyprof and skyprof-dkms",
		info->module_version, info->abi_version, SKYPROF_VERSION, SKYPROF_ABI_VERSION);
	return -EPROTO;
}

static int build_start(struct nl_msg *msg, const void *arg)
{
	const struct control_session_opts *o = arg;

	if (nla_put_u32(msg, SKYPROF_A_MODE, o->mode) < 0 ||
	    nla_put_u32(msg, SKYPROF_A_CLOCK, o->clock) < 0)
		return -EMSGSIZE;
	if (o->freq && nla_put_u32(msg, SKYPROF_A_FREQ, o->freq) < 0)
		return -EMSGSIZE;
	if (o->has_flags && nla_put_u32(msg, SKYPROF_A_FLAGS, o->flags) < 0)
		return -EMSGSIZE;
	if (o->max_depth && nla_put_u32(msg, SKYPROF_A_MAX_DEPTH, o->max_depth) < 0)
		return -EMSGSIZE;
	if (o->ustack_bytes && nla_put_u32(msg, SKYPROF_A_USTACK_BYTES, o->ustack_bytes) < 0)
		return -EMSGSIZE;
	if ((o->offcpu_min_ns || o->has_offcpu_min) &&
	    nla_put_u64(msg, SKYPROF_A_OFFCPU_MIN_NS, o->offcpu_min_ns) < 0)
		return -EMSGSIZE;
	if (o->ring_pages && nla_put_u32(msg, SKYPROF_A_RING_PAGES, o->ring_pages) < 0)
		return -EMSGSIZE;
	if (o->watermark_pct && nla_put_u32(msg, SKYPROF_A_WATERMARK_PCT, o->watermark_pct) < 0)
		return -EMSGSIZE;
	if (o->budget_pct && nla_put_u32(msg, SKYPROF_A_BUDGET_PCT, o->budget_pct) < 0)
		return -EMSGSIZE;
	if (o->nr_tgids && nla_put(msg, SKYPROF_A_TARGET_TGIDS,
				   (int)(o->nr_tgids * sizeof(uint32_t)), o->tgids) < 0)
		return -EMSGSIZE;
	if (o->cgroup && nla_put_string(msg, SKYPROF_A_TARGET_CGROUP, o->cgroup) < 0)
		return -EMSGSIZE;
	if (o->nr_tids &&
	    nla_put(msg, SKYPROF_A_TARGET_TIDS, (int)(o->nr_tids * sizeof(uint32_t)), o->tids) < 0)
		return -EMSGSIZE;
	if (o->cpus && nla_put(msg, SKYPROF_A_TARGET_CPUS,
			       (int)(o->nr_cpu_words * sizeof(uint32_t)), o->cpus) < 0)
		return -EMSGSIZE;
	return 0;
}

static int parse_start(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct control_session *s = r->arg;

	(void)nlh;
	if (!tb[SKYPROF_A_SESSION_ID] || !tb[SKYPROF_A_SESSION_TOKEN] ||
	    !tb[SKYPROF_A_RING_DATA_SIZE]) {
		snprintf(r->extack, sizeof(r->extack),
			 "the module's reply lacks the session id, token or ring size");
		return -EPROTO;
	}
	s->id = get_u32(tb, SKYPROF_A_SESSION_ID);
	s->token = get_u64(tb, SKYPROF_A_SESSION_TOKEN);
	s->clock_used = get_u32(tb, SKYPROF_A_CLOCK_USED);
	s->ring_data_size = get_u64(tb, SKYPROF_A_RING_DATA_SIZE);
	return 0;
}

int control_session_start(struct control *c, const struct control_session_opts *o,
			  struct control_session *s)
{
	struct reply r = { .parse = parse_start, .arg = s };
	int ret;

	memset(s, 0, sizeof(*s));
	ret = request(c, SKYPROF_CMD_SESSION_START, "cannot start profiling", build_start, o, &r);
	if (!ret && !s->id) {
		set_err(c, "cannot start profiling: the module returned session id 0");
		ret = -EPROTO;
	}
	return ret;
}

static int build_session_id(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, SKYPROF_A_SESSION_ID, *(const uint32_t *)arg);
}

int control_session_stop(struct control *c, uint32_t session_id)
{
	struct reply r = { 0 };

	return request(c, SKYPROF_CMD_SESSION_STOP, "cannot stop the session", build_session_id,
		       &session_id, &r);
}

struct stats_acc {
	struct control_cpu_stats *v;
	size_t n, cap;
};

static void parse_sideband_stats(struct control_cpu_stats *st, struct nlattr **tb)
{
	st->sb_noted = get_u64(tb, SKYPROF_STAT_SB_NOTED);
	st->sb_full = get_u64(tb, SKYPROF_STAT_SB_FULL);
	st->sb_reports = get_u64(tb, SKYPROF_STAT_SB_REPORTS);
	st->sb_records = get_u64(tb, SKYPROF_STAT_SB_RECORDS);
	st->sb_lost = get_u64(tb, SKYPROF_STAT_SB_LOST);
	st->sb_walk_ns = get_u64(tb, SKYPROF_STAT_SB_WALK_NS);
	st->sb_throttled = get_u64(tb, SKYPROF_STAT_SB_THROTTLED);
	st->follow_added = get_u64(tb, SKYPROF_STAT_FOLLOW_ADDED);
	st->follow_full = get_u64(tb, SKYPROF_STAT_FOLLOW_FULL);
}

static int parse_one_cpu(struct stats_acc *acc, struct nlattr *nest)
{
	struct nlattr *tb[SKYPROF_STAT_MAX + 1];
	struct control_cpu_stats *st;

	if (nla_parse_nested(tb, SKYPROF_STAT_MAX, nest, stat_policy) < 0)
		return -EPROTO;
	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? acc->cap * 2 : 16;
		void *p = realloc(acc->v, cap * sizeof(*acc->v));

		if (!p)
			return -ENOMEM;
		acc->v = p;
		acc->cap = cap;
	}
	st = &acc->v[acc->n++];
	st->cpu = get_u32(tb, SKYPROF_STAT_CPU);
	st->samples = get_u64(tb, SKYPROF_STAT_SAMPLES);
	st->drops = get_u64(tb, SKYPROF_STAT_DROPS);
	st->unwind_errors = get_u64(tb, SKYPROF_STAT_UNWIND_ERRORS);
	st->handler_ns = get_u64(tb, SKYPROF_STAT_HANDLER_NS);
	st->handler_max_ns = get_u64(tb, SKYPROF_STAT_HANDLER_MAX_NS);
	st->throttled = get_u64(tb, SKYPROF_STAT_THROTTLED);
	st->filtered = get_u64(tb, SKYPROF_STAT_FILTERED);
	st->nested = get_u64(tb, SKYPROF_STAT_NESTED);
	st->missed = get_u64(tb, SKYPROF_STAT_MISSED);
	st->offcpu_short = get_u64(tb, SKYPROF_STAT_OFFCPU_SHORT);
	st->offcpu_full = get_u64(tb, SKYPROF_STAT_OFFCPU_FULL);
	parse_sideband_stats(st, tb);
	return 0;
}

/* CPU_STATS repeats, so walk the attributes rather than the parsed table. */
static int parse_stats(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct stats_acc *acc = r->arg;
	struct nlattr *a;
	int rem, ret;

	(void)tb;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != SKYPROF_A_CPU_STATS)
			continue;
		ret = parse_one_cpu(acc, a);
		if (ret < 0) {
			snprintf(r->extack, sizeof(r->extack), "%s",
				 ret == -ENOMEM ? "out of memory"
						: "malformed per-CPU statistics from the module");
			return ret;
		}
	}
	return 0;
}

int control_get_stats(struct control *c, uint32_t session_id, struct control_cpu_stats **out,
		      size_t *n)
{
	struct stats_acc acc = { 0 };
	struct reply r = { .parse = parse_stats, .arg = &acc };
	int ret;

	*out = NULL;
	*n = 0;
	ret = request(c, SKYPROF_CMD_GET_STATS, "cannot read the session's statistics",
		      build_session_id, &session_id, &r);
	if (ret < 0) {
		free(acc.v);
		return ret;
	}
	*out = acc.v;
	*n = acc.n;
	return 0;
}

void control_stats_sum(const struct control_cpu_stats *st, size_t n, struct control_cpu_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < n; i++) {
		const struct control_cpu_stats *s = &st[i];

		sum->samples += s->samples;
		sum->drops += s->drops;
		sum->unwind_errors += s->unwind_errors;
		sum->handler_ns += s->handler_ns;
		if (s->handler_max_ns > sum->handler_max_ns)
			sum->handler_max_ns = s->handler_max_ns;
		sum->throttled += s->throttled;
		sum->filtered += s->filtered;
		sum->nested += s->nested;
		sum->missed += s->missed;
		sum->offcpu_short += s->offcpu_short;
		sum->offcpu_full += s->offcpu_full;
		sum->sb_noted += s->sb_noted;
		sum->sb_full += s->sb_full;
		sum->sb_reports += s->sb_reports;
		sum->sb_records += s->sb_records;
		sum->sb_lost += s->sb_lost;
		sum->sb_walk_ns += s->sb_walk_ns;
		sum->sb_throttled += s->sb_throttled;
		sum->follow_added += s->follow_added;
		sum->follow_full += s->follow_full;
	}
}

static int parse_session_counters(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct control_session_counters *sc = r->arg;

	(void)nlh;
	sc->sideband_used = get_u32(tb, SKYPROF_A_SIDEBAND_USED);
	sc->sideband_pinned = get_u32(tb, SKYPROF_A_SIDEBAND_PINNED);
	sc->follow_used = get_u32(tb, SKYPROF_A_FOLLOW_USED);
	return 0;
}

/* A GET_STATS of its own: the per-CPU reply's parser stays as it is. */
int control_get_session_counters(struct control *c, uint32_t session_id,
				 struct control_session_counters *out)
{
	struct reply r = { .parse = parse_session_counters, .arg = out };

	memset(out, 0, sizeof(*out));
	return request(c, SKYPROF_CMD_GET_STATS, "cannot read the session's statistics",
		       build_session_id, &session_id, &r);
}

int control_subscribe_events(struct control *c)
{
	int grp, ret;

	if (c->ev)
		return 0;
	grp = genl_ctrl_resolve_grp(c->sk, SKYPROF_GENL_NAME, SKYPROF_MCGRP_EVENTS);
	if (grp < 0) {
		set_err(c, "cannot find the module's event group: %s", nl_geterror(grp));
		return -ENOENT;
	}
	c->ev = nl_socket_alloc();
	if (!c->ev) {
		set_err(c, "out of memory");
		return -ENOMEM;
	}
	nl_socket_disable_seq_check(c->ev);
	ret = genl_connect(c->ev);
	if (ret >= 0)
		ret = nl_socket_add_membership(c->ev, grp);
	if (ret >= 0)
		ret = nl_socket_set_nonblocking(c->ev);
	if (ret < 0) {
		set_err(c, "cannot subscribe to the module's events: %s", nl_geterror(ret));
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
	if (genlmsg_parse(nlh, 0, tb, SKYPROF_A_MAX, attr_policy) < 0)
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
			set_err(c, "cannot read the module's events: %s", nl_geterror(ret));
			ret = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return ret;
}

const char *control_clock_name(uint32_t clock)
{
	switch (clock) {
	case SKYPROF_CLOCK_AUTO:
		return "auto";
	case SKYPROF_CLOCK_PERF_HW:
		return "perf-hw";
	case SKYPROF_CLOCK_PERF_SW:
		return "perf-sw";
	case SKYPROF_CLOCK_HRTIMER:
		return "hrtimer";
	}
	return "?";
}

const char *control_end_reason_name(uint32_t reason)
{
	switch (reason) {
	case SKYPROF_END_STOPPED:
		return "stopped";
	case SKYPROF_END_OWNER_CLOSED:
		return "owner closed";
	case SKYPROF_END_UNLOAD:
		return "module unloading";
	case SKYPROF_END_ERROR:
		return "error";
	}
	return "?";
}

const char *control_caps_string(uint32_t caps, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ SKYPROF_CAP_PERF_HW, "perf-hw" },	    { SKYPROF_CAP_PERF_SW, "perf-sw" },
		{ SKYPROF_CAP_HRTIMER, "hrtimer" },	    { SKYPROF_CAP_OFFCPU, "offcpu" },
		{ SKYPROF_CAP_USTACK_COPY, "ustack-copy" }, { SKYPROF_CAP_CGROUP, "cgroup" },
		{ SKYPROF_CAP_SIDEBAND, "sideband" },	    { SKYPROF_CAP_FOLLOW, "follow" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(caps & names[i].bit))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[i].name);

		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0'; /* whole names only */
			break;
		}
		used += (size_t)n;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

struct sessions_acc {
	struct control_session_info *v;
	size_t n, cap;
};

void control_sessions_free(struct control_session_info *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].tgids);
		free(v[i].tids);
		free(v[i].cpus);
		free(v[i].cgroup);
	}
	free(v);
}

/* A copy of a __u32[] attribute; 0 when absent, -EPROTO when malformed. */
static int copy_u32s(struct nlattr *a, uint32_t **out, uint32_t *n)
{
	int len;

	if (!a)
		return 0;
	len = nla_len(a);
	if (len <= 0 || len % 4)
		return -EPROTO;
	*out = malloc((size_t)len);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, nla_data(a), (size_t)len);
	*n = (uint32_t)len / 4;
	return 0;
}

static int parse_one_session(struct sessions_acc *acc, struct nlattr *nest)
{
	struct nlattr *tb[SKYPROF_A_MAX + 1];
	struct control_session_info *si;
	int ret;

	if (nla_parse_nested(tb, SKYPROF_A_MAX, nest, attr_policy) < 0 || !tb[SKYPROF_A_SESSION_ID])
		return -EPROTO;
	if (acc->n == acc->cap) {
		size_t cap = acc->cap ? acc->cap * 2 : 8;
		void *p = realloc(acc->v, cap * sizeof(*acc->v));

		if (!p)
			return -ENOMEM;
		acc->v = p;
		acc->cap = cap;
	}
	si = &acc->v[acc->n++];
	memset(si, 0, sizeof(*si));
	si->id = get_u32(tb, SKYPROF_A_SESSION_ID);
	si->owner_pid = get_u32(tb, SKYPROF_A_OWNER_PID);
	si->mode = get_u32(tb, SKYPROF_A_MODE);
	si->clock_used = get_u32(tb, SKYPROF_A_CLOCK_USED);
	si->freq = get_u32(tb, SKYPROF_A_FREQ);
	si->flags = get_u32(tb, SKYPROF_A_FLAGS);
	si->samples = get_u64(tb, SKYPROF_A_SAMPLES);
	si->lost = get_u64(tb, SKYPROF_A_LOST);
	ret = copy_u32s(tb[SKYPROF_A_TARGET_TGIDS], &si->tgids, &si->nr_tgids);
	if (!ret)
		ret = copy_u32s(tb[SKYPROF_A_TARGET_TIDS], &si->tids, &si->nr_tids);
	if (!ret)
		ret = copy_u32s(tb[SKYPROF_A_TARGET_CPUS], &si->cpus, &si->nr_cpu_words);
	if (!ret && tb[SKYPROF_A_TARGET_CGROUP]) {
		si->cgroup = strndup(nla_data(tb[SKYPROF_A_TARGET_CGROUP]),
				     (size_t)nla_len(tb[SKYPROF_A_TARGET_CGROUP]));
		if (!si->cgroup)
			ret = -ENOMEM;
	}
	return ret;
}

/* SESSION_INFO repeats, so walk the attributes rather than the parsed table. */
static int parse_sessions(struct reply *r, struct nlattr **tb, struct nlmsghdr *nlh)
{
	struct sessions_acc *acc = r->arg;
	struct nlattr *a;
	int rem, ret;

	(void)tb;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != SKYPROF_A_SESSION_INFO)
			continue;
		ret = parse_one_session(acc, a);
		if (ret < 0) {
			snprintf(r->extack, sizeof(r->extack), "%s",
				 ret == -ENOMEM ? "out of memory"
						: "malformed session list from the module");
			return ret;
		}
	}
	return 0;
}

int control_list_sessions(struct control *c, struct control_session_info **out, size_t *n)
{
	struct sessions_acc acc = { 0 };
	struct reply r = { .parse = parse_sessions, .arg = &acc };
	int ret;

	*out = NULL;
	*n = 0;
	ret = request(c, SKYPROF_CMD_LIST_SESSIONS, "cannot list the sessions", NULL, NULL, &r);
	if (ret < 0) {
		control_sessions_free(acc.v, acc.n);
		return ret;
	}
	*out = acc.v;
	*n = acc.n;
	return 0;
}
