// SPDX-License-Identifier: GPL-2.0
/*
 * The "ibtick" generic netlink family: registration, policies, operations.
 *
 * Policies validate, handlers act: every attribute a command accepts is
 * listed in its policy with its type and range; the core rejects anything
 * else with an extended ACK before a handler runs.  Read-only commands are
 * open to every user; mutating commands (later) carry GENL_ADMIN_PERM.
 */
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include <linux/ibtick_netlink.h>

#include "ibt.h"

static const struct nla_policy ibt_dev_get_policy[IBTICK_A_DEV_NAME + 1] = {
	[IBTICK_A_DEV_INDEX]	= { .type = NLA_U32 },
	[IBTICK_A_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = IB_DEVICE_NAME_MAX - 1 },
};

static const struct genl_ops ibt_genl_ops[] = {
	{
		.cmd		= IBTICK_CMD_DEV_GET,
		.doit		= ibt_nl_dev_get_doit,
		.dumpit		= ibt_nl_dev_get_dumpit,
		.policy		= ibt_dev_get_policy,
		.maxattr	= ARRAY_SIZE(ibt_dev_get_policy) - 1,
		/* unprivileged: a read-only view of the host's devices */
	},
};

struct genl_family ibt_genl_family __ro_after_init = {
	.name		= IBTICK_GENL_NAME,
	.version	= IBTICK_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= ibt_genl_ops,
	.n_ops		= ARRAY_SIZE(ibt_genl_ops),
	.resv_start_op	= 0,	/* strict header and policy checks everywhere */
	.netnsok	= false,	/* init_net only, see ibtick_netlink.h */
};

int ibt_nl_init(void)
{
	return genl_register_family(&ibt_genl_family);
}

void ibt_nl_exit(void)
{
	genl_unregister_family(&ibt_genl_family);
}
