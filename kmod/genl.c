// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "skyprof": the whole control contract of
 * include/uapi/skyprof.h. The policy pins every attribute's type and length
 * (strict validation: wrong length, unknown or reply-only attribute ->
 * -EINVAL with an extack message); ranges and cross-attribute rules are
 * checked below, also -EINVAL with a message naming the attribute, before
 * anything is allocated, so nothing is ever half-applied.
 *
 * Privilege (CAP_PERFMON or CAP_SYS_ADMIN in init_user_ns, of the sending
 * socket) is checked first in every command.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "skyprof_kmod.h"

static struct genl_family skyprof_genl_family;

static const struct nla_policy skyprof_policy[SKYPROF_A_MAX + 1] = {
	/* Reply-only attributes are refused in requests. */
	[SKYPROF_A_MODULE_VERSION]	= { .type = NLA_REJECT },
	[SKYPROF_A_ABI_VERSION]		= { .type = NLA_REJECT },
	[SKYPROF_A_CAPS]		= { .type = NLA_REJECT },
	[SKYPROF_A_NR_CPU_IDS]		= { .type = NLA_REJECT },
	[SKYPROF_A_MAX_SESSIONS]	= { .type = NLA_REJECT },
	[SKYPROF_A_ACTIVE_SESSIONS]	= { .type = NLA_REJECT },
	[SKYPROF_A_FREQ_MAX]		= { .type = NLA_REJECT },
	[SKYPROF_A_RING_PAGES_MAX]	= { .type = NLA_REJECT },
	[SKYPROF_A_PAGE_SIZE]		= { .type = NLA_REJECT },
	[SKYPROF_A_MODE]		= { .type = NLA_U32 },
	[SKYPROF_A_CLOCK]		= { .type = NLA_U32 },
	[SKYPROF_A_FREQ]		= { .type = NLA_U32 },
	[SKYPROF_A_FLAGS]		= { .type = NLA_U32 },
	[SKYPROF_A_MAX_DEPTH]		= { .type = NLA_U32 },
	[SKYPROF_A_USTACK_BYTES]	= { .type = NLA_U32 },
	[SKYPROF_A_OFFCPU_MIN_NS]	= { .type = NLA_U64 },
	[SKYPROF_A_RING_PAGES]		= { .type = NLA_U32 },
	[SKYPROF_A_WATERMARK_PCT]	= { .type = NLA_U32 },
	[SKYPROF_A_BUDGET_PCT]		= { .type = NLA_U32 },
	/* Lengths checked in skyprof_parse_targets(): -EINVAL, not -ERANGE. */
	[SKYPROF_A_TARGET_TGIDS]	= { .type = NLA_BINARY },
	[SKYPROF_A_TARGET_CGROUP]	= { .type = NLA_NUL_STRING },
	[SKYPROF_A_SESSION_ID]		= { .type = NLA_U32 },
	[SKYPROF_A_SESSION_TOKEN]	= { .type = NLA_REJECT },
	[SKYPROF_A_CLOCK_USED]		= { .type = NLA_REJECT },
	[SKYPROF_A_RING_DATA_SIZE]	= { .type = NLA_REJECT },
	[SKYPROF_A_CPU_STATS]		= { .type = NLA_REJECT },
	[SKYPROF_A_EVENT]		= { .type = NLA_REJECT },
	[SKYPROF_A_END_REASON]		= { .type = NLA_REJECT },
	[SKYPROF_A_CPU]			= { .type = NLA_REJECT },
	[SKYPROF_A_RING_BYTES]		= { .type = NLA_REJECT },
	[SKYPROF_A_OFFCPU_ENTRIES]	= { .type = NLA_U32 },
	[SKYPROF_A_OFFCPU_USED]		= { .type = NLA_REJECT },
	[SKYPROF_A_OFFCPU_EXITED]	= { .type = NLA_REJECT },
	[SKYPROF_A_OFFCPU_BYTES]	= { .type = NLA_REJECT },
	/* Lengths checked in skyprof_parse_targets(), as TARGET_TGIDS. */
	[SKYPROF_A_TARGET_TIDS]		= { .type = NLA_BINARY },
	[SKYPROF_A_TARGET_CPUS]		= { .type = NLA_BINARY },
	[SKYPROF_A_SESSION_INFO]	= { .type = NLA_REJECT },
	[SKYPROF_A_OWNER_PID]		= { .type = NLA_REJECT },
	[SKYPROF_A_SAMPLES]		= { .type = NLA_REJECT },
	[SKYPROF_A_LOST]		= { .type = NLA_REJECT },
	[SKYPROF_A_SIDEBAND_ENTRIES]	= { .type = NLA_U32 },
	[SKYPROF_A_FOLLOW_ENTRIES]	= { .type = NLA_U32 },
	[SKYPROF_A_SIDEBAND_USED]	= { .type = NLA_REJECT },
	[SKYPROF_A_SIDEBAND_PINNED]	= { .type = NLA_REJECT },
	[SKYPROF_A_FOLLOW_USED]		= { .type = NLA_REJECT },
	[SKYPROF_A_SIDEBAND_BYTES]	= { .type = NLA_REJECT },
};

#ifndef SKYPROF_GENL_STRICT
/* An attribute as the policy's type wants it (exact integer sizes). */
static bool skyprof_attr_ok(const struct nlattr *a)
{
	switch (skyprof_policy[nla_type(a)].type) {
	case NLA_U32:
		return nla_len(a) == sizeof(u32);
	case NLA_U64:
		return nla_len(a) == sizeof(u64);
	case NLA_NUL_STRING:
		return memchr(nla_data(a), '\0', nla_len(a));
	case NLA_BINARY:
		return true;
	default:
		/* NLA_REJECT, the pad attributes, anything unlisted. */
		return false;
	}
}
#endif

/*
 * Kernels without a family policy (before 5.2) get no policy from us at
 * all: their parser would refuse some malformed attributes with other
 * errnos and ignore others. Every attribute is checked here instead, as
 * strict validation does: known to the policy, not rejected, of its size.
 */
static int skyprof_check_strict(struct genl_info *info)
{
#ifndef SKYPROF_GENL_STRICT
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	const struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr), genlmsg_len(info->genlhdr), rem) {
		if (!nla_type(a) || nla_type(a) > SKYPROF_A_MAX) {
			NL_SET_ERR_MSG_MOD(extack, "unknown attribute");
			return -EINVAL;
		}
		if (!skyprof_attr_ok(a)) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "attribute not valid in a request or of the wrong size");
			return -EINVAL;
		}
	}
	if (rem) {
		NL_SET_ERR_MSG_MOD(extack, "trailing bytes after the attributes");
		return -EINVAL;
	}
#endif
	return 0;
}

static int skyprof_check_perm(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);

	if (!skyprof_netlink_capable(skb)) {
		NL_SET_ERR_MSG_MOD(extack, "needs CAP_PERFMON or CAP_SYS_ADMIN");
		return -EPERM;
	}
	return skyprof_check_strict(info);
}

/* Refuses request attributes that the command does not take. */
static int skyprof_check_allowed(struct genl_info *info, const u8 *allowed, unsigned int n)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	unsigned int a, i;

	for (a = 1; a <= SKYPROF_A_MAX; a++) {
		if (!info->attrs[a])
			continue;
		for (i = 0; i < n && allowed[i] != a; i++)
			;
		if (i == n) {
			NL_SET_ERR_MSG_ATTR(extack, info->attrs[a],
					    "attribute not valid for this command");
			return -EINVAL;
		}
	}
	return 0;
}

/* *dst = attribute or default; false (and *dst unset) outside [lo, hi]. */
static bool skyprof_get_u32(struct genl_info *info, int attr, u32 lo, u32 hi, u32 def, u32 *dst)
{
	struct nlattr *a = info->attrs[attr];
	u32 v = a ? nla_get_u32(a) : def;

	if (v < lo || v > hi)
		return false;
	*dst = v;
	return true;
}

static int skyprof_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * A sorted, unique copy of an id list attribute: 1..max ids in
 * 1..PID_MAX_LIMIT, else -EINVAL (the caller names the attribute).
 */
static int skyprof_parse_ids(struct nlattr *t, u32 max, u32 **ids, u32 *nr)
{
	u32 i, n, out;

	if (nla_len(t) % sizeof(u32) || !nla_len(t) || nla_len(t) > max * sizeof(u32))
		return -EINVAL;
	n = nla_len(t) / sizeof(u32);
	*ids = kmemdup(nla_data(t), n * sizeof(u32), GFP_KERNEL);
	if (!*ids)
		return -ENOMEM;
	sort(*ids, n, sizeof(u32), skyprof_cmp_u32, NULL);
	if (!(*ids)[0] || (*ids)[n - 1] > PID_MAX_LIMIT)
		return -EINVAL;
	for (i = 1, out = 1; i < n; i++)
		if ((*ids)[i] != (*ids)[out - 1])
			(*ids)[out++] = (*ids)[i];
	*nr = out;
	return 0;
}

/* The CPU bitmap of TARGET_CPUS: only possible CPUs, at least one. */
static int skyprof_parse_cpus(struct genl_info *info, struct nlattr *m,
			      struct skyprof_config *cfg)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	u32 words = DIV_ROUND_UP(nr_cpu_ids, 32), n, i, b;
	const u8 *data = nla_data(m);
	bool any = false;

	if (nla_len(m) % sizeof(u32) || !nla_len(m) || nla_len(m) > words * sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, m,
				    "TARGET_CPUS: 1..DIV_ROUND_UP(NR_CPU_IDS, 32) u32 words");
		return -EINVAL;
	}
	cfg->cpus = kcalloc(BITS_TO_LONGS(nr_cpu_ids), sizeof(long), GFP_KERNEL);
	if (!cfg->cpus)
		return -ENOMEM;
	n = nla_len(m) / sizeof(u32);
	for (i = 0; i < n; i++) {
		u32 w;

		/* Attribute data is only 4-byte aligned; copy each word out. */
		memcpy(&w, data + i * sizeof(u32), sizeof(w));
		for (b = 0; b < 32; b++) {
			unsigned int cpu = i * 32 + b;

			if (!(w & (1U << b)))
				continue;
			if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
				NL_SET_ERR_MSG_ATTR(extack, m,
						    "TARGET_CPUS: a CPU that is not possible here");
				return -EINVAL;
			}
			set_bit(cpu, cfg->cpus);
			any = true;
		}
	}
	if (!any) {
		NL_SET_ERR_MSG_ATTR(extack, m, "TARGET_CPUS: no CPU");
		return -EINVAL;
	}
	return 0;
}

static int skyprof_parse_targets(struct genl_info *info, struct skyprof_config *cfg)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	struct nlattr *t = info->attrs[SKYPROF_A_TARGET_TGIDS];
	struct nlattr *th = info->attrs[SKYPROF_A_TARGET_TIDS];
	struct nlattr *m = info->attrs[SKYPROF_A_TARGET_CPUS];
	struct nlattr *c = info->attrs[SKYPROF_A_TARGET_CGROUP];
	int ret;

	if ((t || th) && c) {
		NL_SET_ERR_MSG_ATTR(extack, c, "tgid/tid and cgroup targets are exclusive");
		return -EINVAL;
	}
	if (t) {
		ret = skyprof_parse_ids(t, SKYPROF_MAX_TGIDS, &cfg->tgids, &cfg->nr_tgids);
		if (ret == -EINVAL)
			NL_SET_ERR_MSG_ATTR(extack, t,
					    "TARGET_TGIDS: 1..SKYPROF_MAX_TGIDS u32 tgids in 1..PID_MAX_LIMIT");
		if (ret)
			return ret;
	}
	if (th) {
		ret = skyprof_parse_ids(th, SKYPROF_MAX_TIDS, &cfg->tids, &cfg->nr_tids);
		if (ret == -EINVAL)
			NL_SET_ERR_MSG_ATTR(extack, th,
					    "TARGET_TIDS: 1..SKYPROF_MAX_TIDS u32 tids in 1..PID_MAX_LIMIT");
		if (ret)
			return ret;
	}
	if (m) {
		ret = skyprof_parse_cpus(info, m, cfg);
		if (ret)
			return ret;
	}
	if (c) {
		/* NLA_NUL_STRING: the policy guaranteed a NUL inside. */
		size_t len = strnlen(nla_data(c), nla_len(c));

		if (!len || len >= SKYPROF_CGROUP_PATH_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, c,
					    "TARGET_CGROUP: empty or longer than SKYPROF_CGROUP_PATH_MAX");
			return -EINVAL;
		}
		cfg->cgroup_path = kstrndup(nla_data(c), nla_len(c), GFP_KERNEL);
		if (!cfg->cgroup_path)
			return -ENOMEM;
		if (!skyprof_filter_cgroup_supported()) {
			NL_SET_ERR_MSG_ATTR(extack, c, "cgroup targets not supported here");
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

static int skyprof_parse_config(struct genl_info *info, struct skyprof_config *cfg)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	struct nlattr *a;
	int ret;

	if (!skyprof_get_u32(info, SKYPROF_A_MODE, 0, __SKYPROF_MODE_MAX - 1, SKYPROF_MODE_ONCPU,
			     &cfg->mode)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_MODE],
				    "MODE: unknown mode");
		return -EINVAL;
	}
	if (cfg->mode == SKYPROF_MODE_OFFCPU && !skyprof_offcpu_available()) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_MODE],
				    "MODE: no off-CPU mode on this kernel (sched tracepoints)");
		return -EOPNOTSUPP;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_CLOCK, 0, __SKYPROF_CLOCK_MAX - 1, SKYPROF_CLOCK_AUTO,
			     &cfg->clock)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_CLOCK],
				    "CLOCK: unknown clock");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_FREQ, SKYPROF_FREQ_MIN, SKYPROF_FREQ_MAX,
			     SKYPROF_FREQ_DEFAULT, &cfg->freq)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FREQ],
				    "FREQ: outside 1..100000 Hz");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_FLAGS, 0, SKYPROF_F_ALL,
			     SKYPROF_F_KERNEL_STACK | SKYPROF_F_USER_STACK, &cfg->flags)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FLAGS],
				    "FLAGS: unknown flag");
		return -EINVAL;
	}
	if (cfg->flags & ~SKYPROF_F_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FLAGS],
				    "FLAGS: unknown flag");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_MAX_DEPTH, 1, SKYPROF_MAX_DEPTH,
			     SKYPROF_MAX_DEPTH_DEFAULT, &cfg->max_depth)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_MAX_DEPTH],
				    "MAX_DEPTH: outside 1..256");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_USTACK_BYTES, 0, SKYPROF_USTACK_MAX, 0,
			     &cfg->ustack_bytes)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_USTACK_BYTES],
				    "USTACK_BYTES: above SKYPROF_USTACK_MAX");
		return -EINVAL;
	}
	if (cfg->ustack_bytes % 8) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_USTACK_BYTES],
				    "USTACK_BYTES: not a multiple of 8");
		return -EINVAL;
	}
	if (cfg->ustack_bytes && cfg->mode == SKYPROF_MODE_OFFCPU) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_USTACK_BYTES],
				    "USTACK_BYTES: no raw user stacks in off-CPU mode");
		return -EINVAL;
	}
	a = info->attrs[SKYPROF_A_OFFCPU_MIN_NS];
	cfg->offcpu_min_ns = a ? nla_get_u64(a) : SKYPROF_OFFCPU_MIN_NS_DEFAULT;
	if (!skyprof_get_u32(info, SKYPROF_A_OFFCPU_ENTRIES, SKYPROF_OFFCPU_ENTRIES_MIN,
			     SKYPROF_OFFCPU_ENTRIES_MAX, SKYPROF_OFFCPU_ENTRIES_DEFAULT,
			     &cfg->offcpu_entries)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_OFFCPU_ENTRIES],
				    "OFFCPU_ENTRIES: outside SKYPROF_OFFCPU_ENTRIES_MIN..MAX");
		return -EINVAL;
	}
	if (!is_power_of_2(cfg->offcpu_entries)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_OFFCPU_ENTRIES],
				    "OFFCPU_ENTRIES: not a power of two");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_SIDEBAND_ENTRIES, SKYPROF_SIDEBAND_ENTRIES_MIN,
			     SKYPROF_SIDEBAND_ENTRIES_MAX, SKYPROF_SIDEBAND_ENTRIES_DEFAULT,
			     &cfg->sideband_entries) || !is_power_of_2(cfg->sideband_entries)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_SIDEBAND_ENTRIES],
				    "SIDEBAND_ENTRIES: not a power of two in SKYPROF_SIDEBAND_ENTRIES_MIN..MAX");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_FOLLOW_ENTRIES, SKYPROF_FOLLOW_ENTRIES_MIN,
			     SKYPROF_FOLLOW_ENTRIES_MAX, SKYPROF_FOLLOW_ENTRIES_DEFAULT,
			     &cfg->follow_entries) || !is_power_of_2(cfg->follow_entries)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FOLLOW_ENTRIES],
				    "FOLLOW_ENTRIES: not a power of two in SKYPROF_FOLLOW_ENTRIES_MIN..MAX");
		return -EINVAL;
	}
	if ((cfg->flags & SKYPROF_F_FOLLOW_FORKS) && !skyprof_follow_available()) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FLAGS],
				    "FLAGS: cannot follow forks on this kernel (sched tracepoints)");
		return -EOPNOTSUPP;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_RING_PAGES,
			     SKYPROF_RING_PAGES_MIN, SKYPROF_RING_PAGES_MAX,
			     SKYPROF_RING_PAGES_DEFAULT, &cfg->ring_pages)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_RING_PAGES],
				    "RING_PAGES: outside SKYPROF_RING_PAGES_MIN..MAX");
		return -EINVAL;
	}
	if (!is_power_of_2(cfg->ring_pages)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_RING_PAGES],
				    "RING_PAGES: not a power of two");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_WATERMARK_PCT, 1, 100,
			     SKYPROF_WATERMARK_PCT_DEFAULT, &cfg->watermark_pct)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_WATERMARK_PCT],
				    "WATERMARK_PCT: outside 1..100");
		return -EINVAL;
	}
	if (!skyprof_get_u32(info, SKYPROF_A_BUDGET_PCT, 1, 100, SKYPROF_BUDGET_PCT_DEFAULT,
			     &cfg->budget_pct)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_BUDGET_PCT],
				    "BUDGET_PCT: outside 1..100");
		return -EINVAL;
	}
	/* A worst-case record must fit twice: the reader always makes progress. */
	if (2ULL * skyprof_record_max(cfg) > ((u64)cfg->ring_pages << PAGE_SHIFT)) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_RING_PAGES],
				    "RING_PAGES: too small for MAX_DEPTH and USTACK_BYTES");
		return -EINVAL;
	}
	ret = skyprof_parse_targets(info, cfg);
	if (!ret && (cfg->flags & SKYPROF_F_FOLLOW_FORKS) && !cfg->nr_tgids) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FLAGS],
				    "FLAGS: FOLLOW_FORKS needs TARGET_TGIDS");
		ret = -EINVAL;
	}
	return ret;
}

static u32 skyprof_caps(void)
{
	u32 caps = SKYPROF_CAP_HRTIMER | SKYPROF_CAP_USTACK_COPY;

	if (skyprof_perf_hw_available())
		caps |= SKYPROF_CAP_PERF_HW;
	if (skyprof_perf_sw_available())
		caps |= SKYPROF_CAP_PERF_SW;
	if (skyprof_filter_cgroup_supported())
		caps |= SKYPROF_CAP_CGROUP;
	if (skyprof_offcpu_available())
		caps |= SKYPROF_CAP_OFFCPU;
	caps |= SKYPROF_CAP_SIDEBAND;
	if (skyprof_follow_available())
		caps |= SKYPROF_CAP_FOLLOW;
	return caps;
}

static int skyprof_cmd_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = skyprof_check_perm(skb, info);
	if (ret)
		return ret;
	ret = skyprof_check_allowed(info, NULL, 0);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &skyprof_genl_family, 0, SKYPROF_CMD_GET_INFO);
	if (!hdr)
		goto err_size;
	if (nla_put_string(msg, SKYPROF_A_MODULE_VERSION, SKYPROF_VERSION) ||
	    nla_put_u32(msg, SKYPROF_A_ABI_VERSION, SKYPROF_ABI_VERSION) ||
	    nla_put_u32(msg, SKYPROF_A_CAPS, skyprof_caps()) ||
	    nla_put_u32(msg, SKYPROF_A_NR_CPU_IDS, nr_cpu_ids) ||
	    nla_put_u32(msg, SKYPROF_A_MAX_SESSIONS, SKYPROF_MAX_SESSIONS) ||
	    nla_put_u32(msg, SKYPROF_A_ACTIVE_SESSIONS, skyprof_sessions_active()) ||
	    nla_put_u32(msg, SKYPROF_A_FREQ_MAX, SKYPROF_FREQ_MAX) ||
	    nla_put_u32(msg, SKYPROF_A_RING_PAGES_MAX, SKYPROF_RING_PAGES_MAX) ||
	    nla_put_u32(msg, SKYPROF_A_PAGE_SIZE, PAGE_SIZE) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_RING_BYTES, skyprof_ring_bytes(), SKYPROF_A_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_OFFCPU_BYTES, skyprof_offcpu_bytes(), SKYPROF_A_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_SIDEBAND_BYTES,
			      skyprof_sideband_bytes() + skyprof_follow_bytes(), SKYPROF_A_PAD))
		goto err_size;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_size:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const u8 skyprof_start_attrs[] = {
	SKYPROF_A_MODE, SKYPROF_A_CLOCK, SKYPROF_A_FREQ, SKYPROF_A_FLAGS,
	SKYPROF_A_MAX_DEPTH, SKYPROF_A_USTACK_BYTES, SKYPROF_A_OFFCPU_MIN_NS,
	SKYPROF_A_RING_PAGES, SKYPROF_A_WATERMARK_PCT, SKYPROF_A_BUDGET_PCT,
	SKYPROF_A_TARGET_TGIDS, SKYPROF_A_TARGET_CGROUP, SKYPROF_A_OFFCPU_ENTRIES,
	SKYPROF_A_TARGET_TIDS, SKYPROF_A_TARGET_CPUS, SKYPROF_A_SIDEBAND_ENTRIES,
	SKYPROF_A_FOLLOW_ENTRIES,
};

static int skyprof_cmd_session_start(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	struct skyprof_config cfg = {};
	struct skyprof_start_reply reply;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = skyprof_check_perm(skb, info);
	if (ret)
		return ret;
	ret = skyprof_check_allowed(info, skyprof_start_attrs, ARRAY_SIZE(skyprof_start_attrs));
	if (ret)
		return ret;
	ret = skyprof_parse_config(info, &cfg);
	/*
	 * Kernel stacks are kernel addresses: only for a sender that could read
	 * them from /proc/kallsyms under any kptr_restrict (CAP_SYSLOG). Others
	 * get user stacks by default and -EPERM if they ask for kernel stacks.
	 */
	if (!ret && (cfg.flags & SKYPROF_F_KERNEL_STACK) && !netlink_capable(skb, CAP_SYSLOG)) {
		if (info->attrs[SKYPROF_A_FLAGS]) {
			NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_FLAGS],
					    "FLAGS: kernel stacks need CAP_SYSLOG");
			ret = -EPERM;
		} else {
			cfg.flags &= ~SKYPROF_F_KERNEL_STACK;
		}
	}
	if (ret) {
		skyprof_config_free(&cfg);
		return ret;
	}
	/* Allocated before the start so that the reply cannot fail after it. */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		skyprof_config_free(&cfg);
		return -ENOMEM;
	}
	ret = skyprof_session_start(&cfg, info->snd_portid, extack, &reply);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	hdr = genlmsg_put_reply(msg, info, &skyprof_genl_family, 0, SKYPROF_CMD_SESSION_START);
	if (!hdr ||
	    nla_put_u32(msg, SKYPROF_A_SESSION_ID, reply.id) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_SESSION_TOKEN, reply.token, SKYPROF_A_PAD) ||
	    nla_put_u32(msg, SKYPROF_A_CLOCK_USED, reply.clock_used) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_RING_DATA_SIZE, reply.data_size, SKYPROF_A_PAD) ||
	    nla_put_u32(msg, SKYPROF_A_NR_CPU_IDS, nr_cpu_ids) ||
	    nla_put_u32(msg, SKYPROF_A_PAGE_SIZE, PAGE_SIZE)) {
		/* Cannot happen with NLMSG_DEFAULT_SIZE; do not leak the session. */
		nlmsg_free(msg);
		skyprof_session_stop(reply.id, info->snd_portid, NULL);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const u8 skyprof_id_attrs[] = { SKYPROF_A_SESSION_ID };

static int skyprof_get_id(struct genl_info *info, u32 *id)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	int ret = skyprof_check_allowed(info, skyprof_id_attrs, ARRAY_SIZE(skyprof_id_attrs));

	if (ret)
		return ret;
	if (!info->attrs[SKYPROF_A_SESSION_ID]) {
		NL_SET_ERR_MSG_MOD(extack, "SESSION_ID missing");
		return -EINVAL;
	}
	*id = nla_get_u32(info->attrs[SKYPROF_A_SESSION_ID]);
	if (!*id) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SKYPROF_A_SESSION_ID],
				    "SESSION_ID: 0 is never a session");
		return -EINVAL;
	}
	return 0;
}

static int skyprof_cmd_session_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	u32 id;
	int ret;

	ret = skyprof_check_perm(skb, info);
	if (ret)
		return ret;
	ret = skyprof_get_id(info, &id);
	if (ret)
		return ret;
	return skyprof_session_stop(id, info->snd_portid, extack);
}

static int skyprof_put_cpu_stats(struct sk_buff *msg, unsigned int cpu,
				 const struct skyprof_cpu_stats *st)
{
	struct nlattr *nest = nla_nest_start(msg, SKYPROF_A_CPU_STATS);

	if (!nest ||
	    nla_put_u32(msg, SKYPROF_STAT_CPU, cpu) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SAMPLES, st->samples, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_DROPS, st->drops, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_UNWIND_ERRORS, st->unwind_errors,
			      SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_HANDLER_NS, st->handler_ns, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_HANDLER_MAX_NS, st->handler_max_ns,
			      SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_THROTTLED, st->throttled, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_FILTERED, st->filtered, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_NESTED, st->nested, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_MISSED, st->missed, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_OFFCPU_SHORT, st->offcpu_short,
			      SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_OFFCPU_FULL, st->offcpu_full, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_NOTED, st->sb_noted, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_FULL, st->sb_full, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_REPORTS, st->sb_reports, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_RECORDS, st->sb_records, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_LOST, st->sb_lost, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_WALK_NS, st->sb_walk_ns, SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_SB_THROTTLED, st->sb_throttled,
			      SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_FOLLOW_ADDED, st->follow_added,
			      SKYPROF_STAT_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_STAT_FOLLOW_FULL, st->follow_full, SKYPROF_STAT_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int skyprof_cmd_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = skyprof_genl_extack(info);
	struct skyprof_cpu_stats st;
	struct skyprof_session *s;
	struct sk_buff *msg;
	unsigned int cpu;
	void *hdr;
	u32 id;
	int ret;

	ret = skyprof_check_perm(skb, info);
	if (ret)
		return ret;
	ret = skyprof_get_id(info, &id);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE + nr_cpu_ids * 400, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &skyprof_genl_family, 0, SKYPROF_CMD_GET_STATS);
	if (!hdr)
		goto err_size;
	mutex_lock(&skyprof_sessions_mutex);
	s = skyprof_session_find(id);
	if (!s) {
		mutex_unlock(&skyprof_sessions_mutex);
		nlmsg_free(msg);
		NL_SET_ERR_MSG_MOD(extack, "no such session");
		return -ENOENT;
	}
	ret = nla_put_u32(msg, SKYPROF_A_SESSION_ID, id);
	if (!ret && s->cfg.mode == SKYPROF_MODE_OFFCPU) {
		struct skyprof_offcpu_stats ost;

		skyprof_offcpu_read_stats(s, &ost);
		ret = nla_put_u32(msg, SKYPROF_A_OFFCPU_ENTRIES, ost.entries) ||
		      nla_put_u32(msg, SKYPROF_A_OFFCPU_USED, ost.used) ||
		      nla_put_u64_64bit(msg, SKYPROF_A_OFFCPU_EXITED, ost.exited, SKYPROF_A_PAD);
	}
	if (!ret && s->sb) {
		struct skyprof_sideband_stats sst;

		skyprof_sideband_read_stats(s, &sst);
		ret = nla_put_u32(msg, SKYPROF_A_SIDEBAND_ENTRIES, sst.entries) ||
		      nla_put_u32(msg, SKYPROF_A_SIDEBAND_USED, sst.used) ||
		      nla_put_u32(msg, SKYPROF_A_SIDEBAND_PINNED, sst.pinned);
	}
	if (!ret && s->follow)
		ret = nla_put_u32(msg, SKYPROF_A_FOLLOW_ENTRIES, s->cfg.follow_entries) ||
		      nla_put_u32(msg, SKYPROF_A_FOLLOW_USED, skyprof_follow_used(s));
	for_each_possible_cpu(cpu) {
		if (ret)
			break;
		skyprof_session_read_stats(s, cpu, &st);
		ret = skyprof_put_cpu_stats(msg, cpu, &st);
	}
	mutex_unlock(&skyprof_sessions_mutex);
	if (ret)
		goto err_size;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_size:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* The reply space one session's SESSION_INFO takes (see skyprof_put_session). */
static int skyprof_session_size(struct skyprof_session *s, void *arg)
{
	size_t *size = arg;

	*size += nla_total_size(0) + 6 * nla_total_size(sizeof(u32)) +
		 2 * (nla_total_size(sizeof(u64)) + nla_total_size(0)) +
		 nla_total_size(s->cfg.nr_tgids * sizeof(u32)) +
		 nla_total_size(s->cfg.nr_tids * sizeof(u32)) +
		 nla_total_size(DIV_ROUND_UP(nr_cpu_ids, 32) * sizeof(u32)) +
		 (s->cfg.cgroup_path ? nla_total_size(strlen(s->cfg.cgroup_path) + 1) : 0);
	return 0;
}

static int skyprof_put_cpus(struct sk_buff *msg, const unsigned long *cpus)
{
	u32 words = DIV_ROUND_UP(nr_cpu_ids, 32);
	struct nlattr *a = nla_reserve(msg, SKYPROF_A_TARGET_CPUS, words * sizeof(u32));
	u8 *data;
	unsigned int cpu;

	if (!a)
		return -EMSGSIZE;
	data = nla_data(a);
	memset(data, 0, words * sizeof(u32));
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		u32 w;

		if (!test_bit(cpu, cpus))
			continue;
		memcpy(&w, data + cpu / 32 * sizeof(u32), sizeof(w));
		w |= 1U << (cpu % 32);
		memcpy(data + cpu / 32 * sizeof(u32), &w, sizeof(w));
	}
	return 0;
}

static int skyprof_put_session(struct skyprof_session *s, void *arg)
{
	struct sk_buff *msg = arg;
	struct skyprof_cpu_stats st;
	struct nlattr *nest;
	u64 samples = 0, lost = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		skyprof_session_read_stats(s, cpu, &st);
		samples += st.samples;
		lost += st.drops;
	}
	nest = nla_nest_start(msg, SKYPROF_A_SESSION_INFO);
	if (!nest ||
	    nla_put_u32(msg, SKYPROF_A_SESSION_ID, s->id) ||
	    nla_put_u32(msg, SKYPROF_A_OWNER_PID, s->owner_pid) ||
	    nla_put_u32(msg, SKYPROF_A_MODE, s->cfg.mode) ||
	    nla_put_u32(msg, SKYPROF_A_CLOCK_USED, s->clock_used) ||
	    nla_put_u32(msg, SKYPROF_A_FREQ, s->cfg.freq) ||
	    nla_put_u32(msg, SKYPROF_A_FLAGS, s->cfg.flags) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_SAMPLES, samples, SKYPROF_A_PAD) ||
	    nla_put_u64_64bit(msg, SKYPROF_A_LOST, lost, SKYPROF_A_PAD) ||
	    (s->cfg.nr_tgids &&
	     nla_put(msg, SKYPROF_A_TARGET_TGIDS, s->cfg.nr_tgids * sizeof(u32), s->cfg.tgids)) ||
	    (s->cfg.nr_tids &&
	     nla_put(msg, SKYPROF_A_TARGET_TIDS, s->cfg.nr_tids * sizeof(u32), s->cfg.tids)) ||
	    (s->cfg.cgroup_path &&
	     nla_put_string(msg, SKYPROF_A_TARGET_CGROUP, s->cfg.cgroup_path)) ||
	    (s->cfg.cpus && skyprof_put_cpus(msg, s->cfg.cpus)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int skyprof_cmd_list_sessions(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	size_t size = 0;
	void *hdr;
	int ret;

	ret = skyprof_check_perm(skb, info);
	if (ret)
		return ret;
	ret = skyprof_check_allowed(info, NULL, 0);
	if (ret)
		return ret;
	/* Sized and filled under the mutex: the sessions cannot change between. */
	mutex_lock(&skyprof_sessions_mutex);
	skyprof_sessions_for_each(skyprof_session_size, &size);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE + size, GFP_KERNEL);
	if (!msg) {
		mutex_unlock(&skyprof_sessions_mutex);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &skyprof_genl_family, 0, SKYPROF_CMD_LIST_SESSIONS);
	ret = hdr ? skyprof_sessions_for_each(skyprof_put_session, msg) : -EMSGSIZE;
	mutex_unlock(&skyprof_sessions_mutex);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The sessions' events (skyprof_sessions_set_announce()), multicast to the
 * events group; process context. No listener is fine.
 */
static void skyprof_genl_event(u32 event, u32 session_id, u32 reason, int cpu)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &skyprof_genl_family, 0, SKYPROF_CMD_EVENT);
	if (!hdr ||
	    nla_put_u32(msg, SKYPROF_A_EVENT, event) ||
	    nla_put_u32(msg, SKYPROF_A_SESSION_ID, session_id) ||
	    (event == SKYPROF_EVENT_SESSION_ENDED &&
	     nla_put_u32(msg, SKYPROF_A_END_REASON, reason)) ||
	    (cpu >= 0 && nla_put_u32(msg, SKYPROF_A_CPU, cpu))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&skyprof_genl_family, msg, 0, 0, GFP_KERNEL);
}

static const struct genl_ops skyprof_genl_ops[] = {
	{
		.cmd = SKYPROF_CMD_GET_INFO,
		.doit = skyprof_cmd_get_info,
	},
	{
		.cmd = SKYPROF_CMD_SESSION_START,
		.doit = skyprof_cmd_session_start,
	},
	{
		.cmd = SKYPROF_CMD_SESSION_STOP,
		.doit = skyprof_cmd_session_stop,
	},
	{
		.cmd = SKYPROF_CMD_GET_STATS,
		.doit = skyprof_cmd_get_stats,
	},
	{
		.cmd = SKYPROF_CMD_LIST_SESSIONS,
		.doit = skyprof_cmd_list_sessions,
	},
};

static const struct genl_multicast_group skyprof_mcgrps[] = {
	{
		.name = SKYPROF_MCGRP_EVENTS,
	},
};

static struct genl_family skyprof_genl_family __ro_after_init = {
	.name = SKYPROF_GENL_NAME,
	.version = SKYPROF_GENL_VERSION,
	.maxattr = SKYPROF_A_MAX,
#ifdef SKYPROF_GENL_STRICT
	.policy = skyprof_policy,
#endif
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = skyprof_genl_ops,
	.n_ops = ARRAY_SIZE(skyprof_genl_ops),
	.mcgrps = skyprof_mcgrps,
	.n_mcgrps = ARRAY_SIZE(skyprof_mcgrps),
};

int skyprof_genl_init(void)
{
	int ret;

	/* Before the family: no session can start until it is registered. */
	skyprof_sessions_set_announce(skyprof_genl_event);
	ret = genl_register_family(&skyprof_genl_family);
	if (ret)
		skyprof_sessions_set_announce(NULL);
	return ret;
}

/* After skyprof_sessions_end_all(): no session is left to announce. */
void skyprof_genl_exit(void)
{
	genl_unregister_family(&skyprof_genl_family);
	skyprof_sessions_set_announce(NULL);
}
