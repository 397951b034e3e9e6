// SPDX-License-Identifier: GPL-2.0
/* genl_info->extack and the NL_SET_ERR_MSG* helpers (4.12+). */
#include <net/genetlink.h>

void skyprof_probe(struct genl_info *info);
void skyprof_probe(struct genl_info *info)
{
	NL_SET_ERR_MSG_MOD(info->extack, "probe");
	NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[1], "probe");
}
