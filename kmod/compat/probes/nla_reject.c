// SPDX-License-Identifier: GPL-2.0
/* NLA_REJECT (4.20+). */
#include <net/netlink.h>

static const struct nla_policy skyprof_probe_policy[2] = {
	[1] = { .type = NLA_REJECT },
};

const struct nla_policy *skyprof_probe(void);
const struct nla_policy *skyprof_probe(void)
{
	return skyprof_probe_policy;
}
