// SPDX-License-Identifier: GPL-2.0
/*
 * The module's commands (SKYPROF_CMD_*), one after the other: what each
 * request carries (its builder) and what its reply says (its parser), over
 * the channel of control.c. A reply is believed only once checked: each
 * attribute's type by the policies, the attributes it cannot do without
 * by its parser, each repeated nest (per-CPU statistics, sessions) alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

#include <skyprof.h>

#include "capture/control.h"
#include "capture/control_internal.h"

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
	return control_request(c, SKYPROF_CMD_GET_INFO, "cannot query the module", NULL, NULL, &r);
}

int control_check_abi(struct control *c, const struct control_info *info)
{
	if (info->abi_version == SKYPROF_ABI_VERSION)
		return 0;
	control_set_err(
		c,
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
	ret = control_request(c, SKYPROF_CMD_SESSION_START, "cannot start profiling", build_start,
			      o, &r);
	if (!ret && !s->id) {
		control_set_err(c, "cannot start profiling: the module returned session id 0");
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

	return control_request(c, SKYPROF_CMD_SESSION_STOP, "cannot stop the session",
			       build_session_id, &session_id, &r);
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
	ret = control_request(c, SKYPROF_CMD_GET_STATS, "cannot read the session's statistics",
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
	return control_request(c, SKYPROF_CMD_GET_STATS, "cannot read the session's statistics",
			       build_session_id, &session_id, &r);
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

	if (nla_parse_nested(tb, SKYPROF_A_MAX, nest, control_attr_policy) < 0 ||
	    !tb[SKYPROF_A_SESSION_ID])
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
	ret = control_request(c, SKYPROF_CMD_LIST_SESSIONS, "cannot list the sessions", NULL, NULL,
			      &r);
	if (ret < 0) {
		control_sessions_free(acc.v, acc.n);
		return ret;
	}
	*out = acc.v;
	*n = acc.n;
	return 0;
}
