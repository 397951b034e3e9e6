// SPDX-License-Identifier: GPL-2.0
/* A policy per genl op (up to 5.1, again from 5.10). */
#include <net/genetlink.h>

const struct nla_policy *skyprof_probe(const struct genl_ops *op);
const struct nla_policy *skyprof_probe(const struct genl_ops *op)
{
	return op->policy;
}
