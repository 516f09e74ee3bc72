// SPDX-License-Identifier: GPL-2.0
/*
 * IBTICK_CMD_CONN_RULE_NEW / _DEL / _GET: the listener rules (ibtick conn
 * rule), who may listen on which connection port.  The policies
 * (netlink.c) check types and ranges; what they cannot say (a range's
 * order, a mode's bits, uids that map, a rule in the way) is refused here
 * with an extended ACK naming the attribute.  The table: conn_acl.c.
 */
#include <linux/cred.h>
#include <linux/ibtick_netlink.h>
#include <net/genetlink.h>

#include "conn.h"
#include "ibt.h"
#include "portrule.h"

/* The range of a request: PORT_LO required, PORT_HI defaulting to it. */
static int ibt_nl_rule_range(struct genl_info *info, u16 *lo, u16 *hi)
{
	struct nlattr **tb = info->attrs;

	if (GENL_REQ_ATTR_CHECK(info, IBTICK_A_RULE_PORT_LO))
		return -EINVAL;
	*lo = nla_get_u16(tb[IBTICK_A_RULE_PORT_LO]);
	*hi = tb[IBTICK_A_RULE_PORT_HI] ?
	      nla_get_u16(tb[IBTICK_A_RULE_PORT_HI]) : *lo;
	if (!ibt_port_range_valid(*lo, *hi)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RULE_PORT_HI],
				    "the port range ends before it starts");
		return -EINVAL;
	}
	return 0;
}

/* Context: process; GENL_ADMIN_PERM checked. */
int ibt_nl_conn_rule_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct user_namespace *ns = current_user_ns();
	struct nlattr **tb = info->attrs;
	struct ibt_port_rule r = {
		.acl = {
			.owner = current_fsuid(),
			.group = current_fsgid(),
			.mode = IBTICK_CONN_RULE_MODE_DEFAULT,
		},
	}, clash;
	int err;

	err = ibt_nl_rule_range(info, &r.lo, &r.hi);
	if (err)
		return err;
	if (tb[IBTICK_A_RULE_OWNER]) {
		r.acl.owner = make_kuid(ns, nla_get_u32(tb[IBTICK_A_RULE_OWNER]));
		if (!uid_valid(r.acl.owner)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RULE_OWNER],
					    "uid has no mapping in this user namespace");
			return -EINVAL;
		}
	}
	if (tb[IBTICK_A_RULE_GROUP]) {
		r.acl.group = make_kgid(ns, nla_get_u32(tb[IBTICK_A_RULE_GROUP]));
		if (!gid_valid(r.acl.group)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RULE_GROUP],
					    "gid has no mapping in this user namespace");
			return -EINVAL;
		}
	}
	if (tb[IBTICK_A_RULE_MODE]) {
		r.acl.mode = nla_get_u16(tb[IBTICK_A_RULE_MODE]);
		if (!ibt_port_rule_mode_valid(r.acl.mode)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RULE_MODE],
					    "only the w bits (0222) mean something: w lets a class listen");
			return -EINVAL;
		}
	}
	err = ibt_conn_rule_add(&r, &clash);
	if (err == -EEXIST)	/* 6.1's extack takes no format: the CLI names it */
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RULE_PORT_LO],
				    "the ports overlap a rule's: delete it first, or choose others");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG(info->extack,
			       "the host has 256 listener rules, the most it may");
	return err;
}

/* Context: process; GENL_ADMIN_PERM checked. */
int ibt_nl_conn_rule_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	u16 lo, hi;
	int err;

	err = ibt_nl_rule_range(info, &lo, &hi);
	if (err)
		return err;
	err = ibt_conn_rule_del(lo, hi);
	if (err)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[IBTICK_A_RULE_PORT_LO],
				    "no rule has exactly this port range");
	return err;
}

static int ibt_fill_rule(struct sk_buff *skb, const struct ibt_port_rule *r,
			 struct user_namespace *ns)
{
	if (nla_put_u16(skb, IBTICK_A_RULE_PORT_LO, r->lo) ||
	    nla_put_u16(skb, IBTICK_A_RULE_PORT_HI, r->hi) ||
	    nla_put_u32(skb, IBTICK_A_RULE_OWNER,
			from_kuid_munged(ns, r->acl.owner)) ||
	    nla_put_u32(skb, IBTICK_A_RULE_GROUP,
			from_kgid_munged(ns, r->acl.group)) ||
	    nla_put_u16(skb, IBTICK_A_RULE_MODE, r->acl.mode))
		return -EMSGSIZE;
	return 0;
}

/*
 * Context: process; called until it returns 0.  Resumes at rule index
 * ctx->next; a rule added or deleted between two parts sets
 * NLM_F_DUMP_INTR (the table's generation).
 */
int ibt_nl_conn_rule_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct ibt_nl_dump_ctx *ctx = ibt_nl_dump_ctx(cb);
	struct user_namespace *ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct ibt_port_rule r;
	u32 gen;
	void *hdr;
	int err = 0;

	while (ibt_conn_rule_get(ctx->next, &r, &gen)) {
		cb->seq = gen;
		hdr = ibt_nl_dump_begin(skb, cb, IBTICK_CMD_CONN_RULE_GET);
		err = ibt_nl_dump_end(skb, hdr, hdr ? ibt_fill_rule(skb, &r, ns) : 0);
		if (err)
			break;
		ctx->next++;
	}
	return ibt_nl_dump_done(skb, err);
}
