// SPDX-License-Identifier: GPL-2.0
/* nla_put_u64_64bit(): a u64 attribute aligned with a pad attribute (4.7+). */
#include <net/netlink.h>

int skyprof_probe(struct sk_buff *skb);
int skyprof_probe(struct sk_buff *skb)
{
	return nla_put_u64_64bit(skb, 1, 0, 2);
}
