// SPDX-License-Identifier: GPL-2.0
/*
 * The "ibtick" generic netlink family: registration, policies, operations.
 *
 * Policies validate, handlers act: every attribute a command accepts is
 * listed in its policy with its type and range; the core rejects anything
 * else with an extended ACK before a handler runs.  Read-only commands are
 * open to every user; mutating commands carry GENL_ADMIN_PERM.
 */
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include <linux/ibtick_netlink.h>

#include "conn.h"
#include "ibt.h"

static const struct nla_policy ibt_dev_get_policy[IBTICK_A_DEV_NAME + 1] = {
	[IBTICK_A_DEV_INDEX]	= { .type = NLA_U32 },
	[IBTICK_A_DEV_NAME]	= { .type = NLA_NUL_STRING,
				    .len = IB_DEVICE_NAME_MAX - 1 },
};

/* FEED_GET and FEED_DEL: the key only */
static const struct nla_policy ibt_feed_key_policy[IBTICK_A_FEED_NAME + 1] = {
	[IBTICK_A_FEED_ID]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_NAME]	= { .type = NLA_NUL_STRING,
				    .len = IBTICK_FEED_NAME_MAX - 1 },
};

/* not const: struct nla_policy points at them without const in 6.1 */
static struct netlink_range_validation ibt_ifindex_range = {
	.max = INT_MAX,
};

static struct netlink_range_validation ibt_slots_range = {
	.min = IBTICK_SLOTS_MIN,
	.max = IBTICK_SLOTS_MAX,
};

static struct netlink_range_validation ibt_slot_size_range = {
	.min = IBTICK_SLOT_SIZE_MIN,
	.max = IBTICK_SLOT_SIZE_MAX,
};

static struct netlink_range_validation ibt_rail_ifindex_range = {
	.min = 1,
	.max = INT_MAX,
};

static struct netlink_range_validation ibt_window_us_range = {
	.max = 60 * USEC_PER_SEC,
};

/* A rail of FEED_NEW's IBTICK_A_FEED_ARB: its address, all of it. */
static const struct nla_policy ibt_rail_policy[IBTICK_A_RAIL_MAX + 1] = {
	[IBTICK_A_RAIL_GROUP]		= { .type = NLA_BE32 },
	[IBTICK_A_RAIL_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_RAIL_IFINDEX]		= NLA_POLICY_FULL_RANGE(NLA_U32,
						&ibt_rail_ifindex_range),
	[IBTICK_A_RAIL_PAD]		= { .type = NLA_REJECT },
	[IBTICK_A_RAIL_INDEX ... IBTICK_A_RAIL_MAX] = { .type = NLA_REJECT },
};

/* FEED_NEW's IBTICK_A_FEED_ARB: the rails, the sequence field, the window. */
static const struct nla_policy ibt_arb_policy[IBTICK_A_ARB_MAX + 1] = {
	[IBTICK_A_ARB_RAIL]		= NLA_POLICY_NESTED(ibt_rail_policy),
	[IBTICK_A_ARB_SEQ_OFF]		= { .type = NLA_U16 },
	[IBTICK_A_ARB_SEQ_WIDTH]	= NLA_POLICY_MAX(NLA_U8, 8),
	[IBTICK_A_ARB_SEQ_BE]		= NLA_POLICY_MAX(NLA_U8, 1),
	[IBTICK_A_ARB_WINDOW_US]	= NLA_POLICY_FULL_RANGE(NLA_U32,
						&ibt_window_us_range),
	[IBTICK_A_ARB_WINDOW_TICKS]	= NLA_POLICY_MAX(NLA_U32, IBT_ARB_SPAN),
	[IBTICK_A_ARB_RESET_AT]		= { .type = NLA_U64 },
	[IBTICK_A_ARB_PAD]		= { .type = NLA_REJECT },
	[IBTICK_A_ARB_DELIVERED ... IBTICK_A_ARB_MAX] = { .type = NLA_REJECT },
};

/*
 * FEED_NEW and FEED_SET: the key and every setting.  What a range cannot
 * say (powers of two, multicast groups, online CPUs, uids that map) the
 * handlers check, naming the attribute.  Reply-only attributes are
 * refused as unknown.
 */
static const struct nla_policy ibt_feed_cfg_policy[IBTICK_A_FEED_MAX + 1] = {
	[IBTICK_A_FEED_ID]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_NAME]		= { .type = NLA_NUL_STRING,
					    .len = IBTICK_FEED_NAME_MAX - 1 },
	[IBTICK_A_FEED_GROUP]		= { .type = NLA_BE32 },
	[IBTICK_A_FEED_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_FEED_IFINDEX]		= NLA_POLICY_FULL_RANGE(NLA_U32,
						&ibt_ifindex_range),
	[IBTICK_A_FEED_SLOTS]		= NLA_POLICY_FULL_RANGE(NLA_U32,
						&ibt_slots_range),
	[IBTICK_A_FEED_SLOT_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32,
						&ibt_slot_size_range),
	[IBTICK_A_FEED_POLL_MODE]	= NLA_POLICY_MAX(NLA_U8, IBTICK_POLL_BUSY),
	[IBTICK_A_FEED_POLL_CPU]	= NLA_POLICY_RANGE(NLA_S32, -1,
							   S16_MAX),
	[IBTICK_A_FEED_COMP_VECTOR]	= NLA_POLICY_MAX(NLA_U32, 1023),
	[IBTICK_A_FEED_LOOPBACK]	= NLA_POLICY_MAX(NLA_U8,
						IBTICK_FEED_LOOPBACK_DENY),
	[IBTICK_A_FEED_OWNER]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_OWNER_GROUP]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_MODE]		= NLA_POLICY_MASK(NLA_U16,
						IBTICK_FEED_MODE_MASK),
	[IBTICK_A_FEED_PAD]		= { .type = NLA_REJECT },
	[IBTICK_A_FEED_ADMIN ... IBTICK_A_FEED_STATS] = { .type = NLA_REJECT },
	[IBTICK_A_FEED_MEMBERSHIP]	= NLA_POLICY_RANGE(NLA_U8,
						IBTICK_FEED_MEMBER_SEND_ONLY,
						IBTICK_FEED_MEMBER_FULL),
	[IBTICK_A_FEED_ARB]		= NLA_POLICY_NESTED(ibt_arb_policy),
	[IBTICK_A_FEED_RAIL_OF]		= { .type = NLA_REJECT },
	/* 0..IBTICK_PREFER_DEFER_MAX or DEFAULT: nl_feed.c */
	[IBTICK_A_FEED_PREFER_DEFER]	= { .type = NLA_U32 },
};

/* SOCK_GET dump filters */
static const struct nla_policy ibt_sock_get_policy[IBTICK_A_SOCK_FEED_ID + 1] = {
	[IBTICK_A_SOCK_PID]	= { .type = NLA_U32 },
	[IBTICK_A_SOCK_FEED_ID]	= { .type = NLA_U32 },
};

/* CONN_GET dump filter */
static const struct nla_policy ibt_conn_get_policy[IBTICK_A_CONN_PID + 1] = {
	[IBTICK_A_CONN_PID]	= { .type = NLA_U32 },
};

/*
 * CONN_RULE_NEW: a range and its ACL; CONN_RULE_DEL takes the range only
 * (the handlers check the order and the mode's bits).
 */
static const struct nla_policy ibt_rule_new_policy[IBTICK_A_RULE_MAX + 1] = {
	[IBTICK_A_RULE_PORT_LO]	= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_RULE_PORT_HI]	= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_RULE_OWNER]	= { .type = NLA_U32 },
	[IBTICK_A_RULE_GROUP]	= { .type = NLA_U32 },
	[IBTICK_A_RULE_MODE]	= { .type = NLA_U16 },
	[IBTICK_A_RULE_PAD]	= { .type = NLA_REJECT },
};

static const struct nla_policy ibt_rule_del_policy[IBTICK_A_RULE_PORT_HI + 1] = {
	[IBTICK_A_RULE_PORT_LO]	= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_RULE_PORT_HI]	= NLA_POLICY_MIN(NLA_U16, 1),
	[IBTICK_A_RULE_PAD]	= { .type = NLA_REJECT },
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
	{
		.cmd		= IBTICK_CMD_FEED_GET,
		.doit		= ibt_nl_feed_get_doit,
		.dumpit		= ibt_nl_feed_get_dumpit,
		.policy		= ibt_feed_key_policy,
		.maxattr	= ARRAY_SIZE(ibt_feed_key_policy) - 1,
	},
	{
		.cmd		= IBTICK_CMD_FEED_NEW,
		.doit		= ibt_nl_feed_new_doit,
		.policy		= ibt_feed_cfg_policy,
		.maxattr	= ARRAY_SIZE(ibt_feed_cfg_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= IBTICK_CMD_FEED_SET,
		.doit		= ibt_nl_feed_set_doit,
		.policy		= ibt_feed_cfg_policy,
		.maxattr	= ARRAY_SIZE(ibt_feed_cfg_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= IBTICK_CMD_FEED_DEL,
		.doit		= ibt_nl_feed_del_doit,
		.policy		= ibt_feed_key_policy,
		.maxattr	= ARRAY_SIZE(ibt_feed_key_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= IBTICK_CMD_SOCK_GET,
		.dumpit		= ibt_nl_sock_get_dumpit,
		.policy		= ibt_sock_get_policy,
		.maxattr	= ARRAY_SIZE(ibt_sock_get_policy) - 1,
	},
	{
		.cmd		= IBTICK_CMD_CONN_GET,
		.dumpit		= ibt_nl_conn_get_dumpit,	/* nl_conn.c */
		.policy		= ibt_conn_get_policy,
		.maxattr	= ARRAY_SIZE(ibt_conn_get_policy) - 1,
	},
	{
		.cmd		= IBTICK_CMD_CONN_RULE_NEW,
		.doit		= ibt_nl_conn_rule_new_doit,	/* nl_rule.c */
		.policy		= ibt_rule_new_policy,
		.maxattr	= ARRAY_SIZE(ibt_rule_new_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= IBTICK_CMD_CONN_RULE_DEL,
		.doit		= ibt_nl_conn_rule_del_doit,
		.policy		= ibt_rule_del_policy,
		.maxattr	= ARRAY_SIZE(ibt_rule_del_policy) - 1,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= IBTICK_CMD_CONN_RULE_GET,
		.dumpit		= ibt_nl_conn_rule_get_dumpit,
		/* no attributes; open to all, as every GET */
	},
};

/* indices: enum ibt_mcgrp (ibt.h); ibt_ev_*() send on them (nl_event.c) */
static const struct genl_multicast_group ibt_genl_mcgrps[] = {
	[IBT_MCGRP_EVENTS]	= { .name = IBTICK_MCGRP_EVENTS },
	/* they name other users' sockets and processes */
	[IBT_MCGRP_SOCK_EVENTS]	= { .name = IBTICK_MCGRP_SOCK_EVENTS,
				    .flags = GENL_MCAST_CAP_NET_ADMIN },
};

struct genl_family ibt_genl_family __ro_after_init = {
	.name		= IBTICK_GENL_NAME,
	.version	= IBTICK_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= ibt_genl_ops,
	.n_ops		= ARRAY_SIZE(ibt_genl_ops),
	.mcgrps		= ibt_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ibt_genl_mcgrps),
	.resv_start_op	= 0,	/* strict header and policy checks everywhere */
	.netnsok	= false,	/* init_net only, see ibtick_netlink.h */
	/*
	 * No genl_mutex around our commands: each takes the ibtick locks it
	 * needs, so a FEED_NEW waiting for its fabric join (up to
	 * IBT_JOIN_TIMEOUT_MS) holds up neither our other commands nor every
	 * other generic netlink family.
	 */
	.parallel_ops	= true,
};

/*
 * The one dump path.  Every dump (devices, feeds, sockets) walks a list
 * sorted by an id that only grows, under that list's lock, and resumes from
 * the cursor in cb->ctx; NLM_F_DUMP_INTR is set when the list's generation
 * (cb->seq, set by the caller) moved between two parts.  Per object:
 *
 *	hdr = ibt_nl_dump_begin(skb, cb, cmd);
 *	err = ibt_nl_dump_end(skb, hdr, hdr ? fill(skb, obj) : 0);
 *	if (err)
 *		break;
 *	ctx->next = id + 1;
 *
 * and after the walk, with the lock released, return ibt_nl_dump_done().
 */
struct ibt_nl_dump_ctx *ibt_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ibt_nl_dump_ctx) > sizeof(cb->ctx));
	return (struct ibt_nl_dump_ctx *)cb->ctx;
}

void *ibt_nl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ibt_genl_family, NLM_F_MULTI, cmd);
	if (hdr)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/* Close (@err 0) or cancel the message begun at @hdr; NULL: no room. */
int ibt_nl_dump_end(struct sk_buff *skb, void *hdr, int err)
{
	if (!hdr)
		return -EMSGSIZE;
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* An object too big for an empty skb is an error, not a short dump. */
int ibt_nl_dump_done(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/*
 * A nest @type of u64 counters: @v[i] as attribute @first + i, for i below
 * @n, padded with @pad.  Cancelled whole when the message is full.
 */
int ibt_nl_put_counters(struct sk_buff *skb, int type, int first,
			const u64 *v, int n, int pad)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u64_64bit(skb, first + i, v[i], pad)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A GET doit's reply to @info: a message with its header put, or NULL (no
 * memory).  Finished by ibt_nl_reply_end(), which sends it, or frees it
 * when filling it failed with @err.
 */
struct sk_buff *ibt_nl_reply_begin(struct genl_info *info, u8 cmd, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &ibt_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int ibt_nl_reply_end(struct genl_info *info, struct sk_buff *msg, void *hdr,
		     int err)
{
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

int ibt_nl_init(void)
{
	int err = genl_register_family(&ibt_genl_family);

	if (!err)
		ibt_nl_set_ready(true);
	return err;
}

void ibt_nl_exit(void)
{
	ibt_nl_set_ready(false);
	synchronize_rcu();	/* no event is being sent (nl_event.c) */
	genl_unregister_family(&ibt_genl_family);
}
