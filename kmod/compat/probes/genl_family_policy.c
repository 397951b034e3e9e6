// SPDX-License-Identifier: GPL-2.0
/* One policy for the whole genl family (5.2+, RHEL 8.2+), strict validation. */
#include <net/genetlink.h>

const struct nla_policy *skyprof_probe(const struct genl_family *f);
const struct nla_policy *skyprof_probe(const struct genl_family *f)
{
	return f->policy;
}
