// SPDX-License-Identifier: GPL-2.0
/*
 * IBTICK_CMD_FEED_*: show, create, change and delete feeds (ibtick feed).
 *
 * Policies (netlink.c) have checked types and ranges; the handlers check
 * what a policy cannot (a multicast group, a name's characters, a uid that
 * maps, a CPU that is online) and name the attribute in the extended ACK.
 * The family is parallel (no genl_mutex): FEED_GET, SET and DEL do all
 * their work under ibt_feeds_lock, against one another, binds and device
 * removal; FEED_NEW builds its feed without it (the join is a fabric round
 * trip) and holds a reference to it for its last step.
 */
#include <linux/cred.h>
#include <linux/inetdevice.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include <linux/ibtick_netlink.h>

#include "ibt.h"

static int ibt_fill_fstats(struct sk_buff *skb, const struct ibt_feed *f)
{
	const u64 v[] = {
#define IBT_FSTAT_VALUE(name, attr, key, kind, so) \
		[IBTICK_A_FSTAT_##attr - IBTICK_A_FSTAT_RX_TICKS] = \
			IBT_FSTAT_READ(kind, &f->st.name),
		IBTICK_FEED_COUNTERS(IBT_FSTAT_VALUE)
#undef IBT_FSTAT_VALUE
	};
#define IBT_FSTAT_ONE(name, attr, key, kind, so) + 1
	enum { nstats = 0 IBTICK_FEED_COUNTERS(IBT_FSTAT_ONE) };
#undef IBT_FSTAT_ONE

	/* every attribute from RX_TICKS to MAX, each once */
	BUILD_BUG_ON(ARRAY_SIZE(v) != IBTICK_A_FSTAT_MAX - IBTICK_A_FSTAT_RX_TICKS + 1);
	BUILD_BUG_ON(nstats != ARRAY_SIZE(v));
	return ibt_nl_put_counters(skb, IBTICK_A_FEED_STATS,
				   IBTICK_A_FSTAT_RX_TICKS, v, ARRAY_SIZE(v),
				   IBTICK_A_FSTAT_PAD);
}

/* Context: process, ibt_feeds_lock held (the verbs side, the ACL). */
static int ibt_fill_feed(struct sk_buff *skb, struct ibt_feed *f)
{
	struct user_namespace *ns = current_user_ns();
	struct net_device *nd;
	bool live = f->live;
	int err = 0;

	if (nla_put_u32(skb, IBTICK_A_FEED_ID, f->id) ||
	    nla_put_string(skb, IBTICK_A_FEED_NAME, f->name) ||
	    nla_put_u32(skb, IBTICK_A_FEED_SLOTS, f->ring.nslots) ||
	    nla_put_u32(skb, IBTICK_A_FEED_SLOT_SIZE, f->ring.slot_size) ||
	    nla_put_u8(skb, IBTICK_A_FEED_POLL_MODE, READ_ONCE(f->poll_mode)) ||
	    nla_put_s32(skb, IBTICK_A_FEED_POLL_CPU, READ_ONCE(f->poll_cpu)) ||
	    nla_put_u32(skb, IBTICK_A_FEED_COMP_VECTOR, f->comp_vector) ||
	    nla_put_u8(skb, IBTICK_A_FEED_LOOPBACK, f->loopback_policy) ||
	    nla_put_u8(skb, IBTICK_A_FEED_MEMBERSHIP, READ_ONCE(f->member)) ||
	    nla_put_u8(skb, IBTICK_A_FEED_ADMIN, f->admin) ||
	    nla_put_u8(skb, IBTICK_A_FEED_LIVE, live) ||
	    nla_put_u32(skb, IBTICK_A_FEED_READERS, atomic_read(&f->readers)) ||
	    nla_put_u32(skb, IBTICK_A_FEED_PUBLISHERS,
			atomic_read(&f->publishers)) ||
	    nla_put_u32(skb, IBTICK_A_FEED_SOCKETS, atomic_read(&f->nsocks)) ||
	    nla_put_u64_64bit(skb, IBTICK_A_FEED_PRODUCER,
			      ibt_ring_producer(&f->ring), IBTICK_A_FEED_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_FEED_RING_BYTES, f->ring.size,
			      IBTICK_A_FEED_PAD))
		return -EMSGSIZE;
	if (f->admin &&
	    (nla_put_u32(skb, IBTICK_A_FEED_OWNER,
			 from_kuid_munged(ns, f->acl.owner)) ||
	     nla_put_u32(skb, IBTICK_A_FEED_OWNER_GROUP,
			 from_kgid_munged(ns, f->acl.group)) ||
	     nla_put_u16(skb, IBTICK_A_FEED_MODE, f->acl.mode)))
		return -EMSGSIZE;
	/* an arbitrated feed has its rails' addresses and devices, not its own */
	if (f->arb)
		return ibt_arb_fill(skb, f) ?: ibt_fill_fstats(skb, f);
	if (nla_put_be32(skb, IBTICK_A_FEED_GROUP, f->group) ||
	    nla_put_u16(skb, IBTICK_A_FEED_PORT, f->port) ||
	    nla_put_u32(skb, IBTICK_A_FEED_IFINDEX, f->ifindex) ||
	    nla_put_u32(skb, IBTICK_A_FEED_DEV_INDEX, f->dev->index) ||
	    nla_put_string(skb, IBTICK_A_FEED_DEV_NAME, f->dev_name) ||
	    nla_put_u32(skb, IBTICK_A_FEED_DEV_PORT, f->port_num) ||
	    nla_put_u32(skb, IBTICK_A_FEED_WIRE_MAX, f->wire_max) ||
	    (!f->rail_of &&	/* a rail's CQ is its arbitrated feed's event's */
	     nla_put_u32(skb, IBTICK_A_FEED_PREFER_DEFER,
			 READ_ONCE(f->prefer_defer_us))) ||
	    (f->rail_of &&
	     nla_put_u32(skb, IBTICK_A_FEED_RAIL_OF, f->rail_of->id)))
		return -EMSGSIZE;
	if (live && f->qp &&
	    (nla_put_u32(skb, IBTICK_A_FEED_QPN, f->qp->qp_num) ||
	     nla_put_u32(skb, IBTICK_A_FEED_QKEY, f->qkey) ||
	     nla_put(skb, IBTICK_A_FEED_MGID, sizeof(f->mgid.raw),
		     f->mgid.raw) ||
	     (f->mlid && nla_put_u32(skb, IBTICK_A_FEED_MLID, f->mlid))))
		return -EMSGSIZE;
	rcu_read_lock();
	nd = dev_get_by_index_rcu(&init_net, f->ifindex);
	if (nd)
		err = nla_put_string(skb, IBTICK_A_FEED_NETDEV_NAME, nd->name);
	rcu_read_unlock();
	if (err)
		return -EMSGSIZE;
	return ibt_fill_fstats(skb, f);
}

/* The feed named by FEED_NAME or FEED_ID.  ibt_feeds_lock held. */
static struct ibt_feed *ibt_nl_feed_key(struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *key = tb[IBTICK_A_FEED_NAME] ?: tb[IBTICK_A_FEED_ID];
	struct ibt_feed *f;

	if (!key) {
		NL_SET_ERR_MSG(info->extack, "feed name or id required");
		return ERR_PTR(-EINVAL);
	}
	f = tb[IBTICK_A_FEED_NAME] ?
		ibt_feed_find_locked(0, nla_data(key)) :
		ibt_feed_find_locked(nla_get_u32(key), NULL);
	if (!f) {
		NL_SET_ERR_MSG_ATTR(info->extack, key, "no such feed");
		return ERR_PTR(-ENOENT);
	}
	return f;
}

/* Context: process. */
int ibt_nl_feed_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ibt_feed *f;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = ibt_nl_reply_begin(info, IBTICK_CMD_FEED_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&ibt_feeds_lock);
	f = ibt_nl_feed_key(info);
	err = IS_ERR(f) ? PTR_ERR(f) : ibt_fill_feed(msg, f);
	mutex_unlock(&ibt_feeds_lock);
	return ibt_nl_reply_end(info, msg, hdr, err);
}

/* Context: process; called until it returns 0 (done). */
int ibt_nl_feed_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ibt_nl_dump_ctx *ctx = ibt_nl_dump_ctx(cb);
	struct ibt_feed *f;
	void *hdr;
	int err = 0;

	mutex_lock(&ibt_feeds_lock);
	cb->seq = ibt_feeds_gen;
	list_for_each_entry(f, &ibt_feeds, list) {
		if (f->id < ctx->next || f->creating)
			continue;
		hdr = ibt_nl_dump_begin(skb, cb, IBTICK_CMD_FEED_GET);
		err = ibt_nl_dump_end(skb, hdr, hdr ? ibt_fill_feed(skb, f) : 0);
		if (err)
			break;
		ctx->next = f->id + 1;
	}
	mutex_unlock(&ibt_feeds_lock);
	return ibt_nl_dump_done(skb, err);
}

/*
 * The ACL attributes of a FEED_NEW/FEED_SET request applied to @acl.
 * Returns 0 or -EINVAL with the attribute named.
 */
static int ibt_nl_parse_acl(struct genl_info *info, struct ibt_acl *acl)
{
	struct user_namespace *ns = current_user_ns();
	struct nlattr **tb = info->attrs;
	kuid_t uid;
	kgid_t gid;

	if (tb[IBTICK_A_FEED_OWNER]) {
		uid = make_kuid(ns, nla_get_u32(tb[IBTICK_A_FEED_OWNER]));
		if (!uid_valid(uid)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_OWNER],
					    "uid has no mapping in this user namespace");
			return -EINVAL;
		}
		acl->owner = uid;
	}
	if (tb[IBTICK_A_FEED_OWNER_GROUP]) {
		gid = make_kgid(ns, nla_get_u32(tb[IBTICK_A_FEED_OWNER_GROUP]));
		if (!gid_valid(gid)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[IBTICK_A_FEED_OWNER_GROUP],
					    "gid has no mapping in this user namespace");
			return -EINVAL;
		}
		acl->group = gid;
	}
	if (tb[IBTICK_A_FEED_MODE])
		acl->mode = nla_get_u16(tb[IBTICK_A_FEED_MODE]);
	return 0;
}

/*
 * POLL_MODE/POLL_CPU of a request: the CPU only with busy polling, and
 * online.  @mode and @cpu hold the current values on entry.
 */
static int ibt_nl_parse_poll(struct genl_info *info, u32 *mode, s32 *cpu)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *a = tb[IBTICK_A_FEED_POLL_CPU];

	if (tb[IBTICK_A_FEED_POLL_MODE]) {
		*mode = nla_get_u8(tb[IBTICK_A_FEED_POLL_MODE]);
		if (*mode == IBTICK_POLL_IRQ)
			*cpu = -1;
	}
	if (!a)
		return 0;
	if (*mode != IBTICK_POLL_BUSY) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "a poll CPU needs busy poll mode");
		return -EINVAL;
	}
	*cpu = nla_get_s32(a);
	if (*cpu >= 0 && (*cpu >= nr_cpu_ids || !cpu_online(*cpu))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "CPU is not online");
		return -EINVAL;
	}
	return 0;
}

/*
 * PREFER_DEFER of a request, when given, into @us: up to
 * IBTICK_PREFER_DEFER_MAX, or DEFAULT.  -EINVAL with the attribute named.
 */
static int ibt_nl_parse_defer(struct genl_info *info, u32 *us)
{
	struct nlattr *a = info->attrs[IBTICK_A_FEED_PREFER_DEFER];
	u32 v;

	if (!a)
		return 0;
	v = nla_get_u32(a);
	if (v > IBTICK_PREFER_DEFER_MAX && v != IBTICK_PREFER_DEFER_DEFAULT) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "prefer-defer is at most 100000 us (or the default)");
		return -EINVAL;
	}
	*us = v;
	return 0;
}

/* A rail's address; -EINVAL with the attribute named. */
static int ibt_nl_parse_rail(struct genl_info *info, const struct nlattr *nest,
			     struct ibt_addr *a)
{
	struct nlattr *tb[IBTICK_A_RAIL_MAX + 1];
	int err;

	/* the policy has validated it with the request */
	err = nla_parse_nested(tb, IBTICK_A_RAIL_MAX, nest, NULL, info->extack);
	if (err)
		return err;
	if (!tb[IBTICK_A_RAIL_GROUP] || !tb[IBTICK_A_RAIL_PORT] ||
	    !tb[IBTICK_A_RAIL_IFINDEX]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "a rail needs a group, a port and a netdev");
		return -EINVAL;
	}
	a->group = nla_get_be32(tb[IBTICK_A_RAIL_GROUP]);
	if (!ipv4_is_multicast(a->group) || ipv4_is_local_multicast(a->group)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_RAIL_GROUP],
				    "not an IPv4 multicast group outside 224.0.0.0/24");
		return -EINVAL;
	}
	a->port = nla_get_u16(tb[IBTICK_A_RAIL_PORT]);
	a->ifindex = nla_get_u32(tb[IBTICK_A_RAIL_IFINDEX]);
	return 0;
}

/*
 * FEED_NEW of an arbitrated feed (IBTICK_A_FEED_ARB): its rails and
 * sequence field; of the rest, the ring geometry and completion vector
 * (in @p already) and the ACL.
 */
static int ibt_nl_arb_new(struct genl_info *info, struct ibt_feed_params *p)
{
	static const int not_here[] = {
		IBTICK_A_FEED_GROUP, IBTICK_A_FEED_PORT, IBTICK_A_FEED_IFINDEX,
		IBTICK_A_FEED_POLL_MODE, IBTICK_A_FEED_POLL_CPU,
		IBTICK_A_FEED_LOOPBACK, IBTICK_A_FEED_MEMBERSHIP,
		IBTICK_A_FEED_PREFER_DEFER,
	};
	struct nlattr **tb = info->attrs, *at[IBTICK_A_ARB_MAX + 1], *rail;
	struct ibt_arb_req req = {
		.cfg = { .reset_at = 1 },
	};
	struct ibt_feed *f;
	int err, rem, i, j;

	for (i = 0; i < ARRAY_SIZE(not_here); i++) {
		if (tb[not_here[i]]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[not_here[i]],
					    "an arbitrated feed has no address, poll mode, prefer-defer or membership of its own: its rails do");
			return -EINVAL;
		}
	}
	err = nla_parse_nested(at, IBTICK_A_ARB_MAX, tb[IBTICK_A_FEED_ARB],
			       NULL, info->extack);
	if (err)
		return err;
	nla_for_each_nested(rail, tb[IBTICK_A_FEED_ARB], rem) {
		if (nla_type(rail) != IBTICK_A_ARB_RAIL)
			continue;
		if (req.nrails == IBTICK_ARB_RAILS_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, rail,
					    "an arbitrated feed has at most 4 rails");
			return -E2BIG;
		}
		err = ibt_nl_parse_rail(info, rail, &req.rail[req.nrails]);
		if (err)
			return err;
		for (j = 0; j < req.nrails; j++) {
			if (ibt_addr_same(&req.rail[j], &req.rail[req.nrails])) {
				NL_SET_ERR_MSG_ATTR(info->extack, rail,
						    "two rails with one address");
				return -EINVAL;
			}
		}
		req.nrails++;
	}
	if (req.nrails < IBTICK_ARB_RAILS_MIN) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_ARB],
				    "an arbitrated feed needs 2 to 4 rails");
		return -EINVAL;
	}
	if (at[IBTICK_A_ARB_SEQ_OFF])
		req.cfg.off = nla_get_u16(at[IBTICK_A_ARB_SEQ_OFF]);
	if (at[IBTICK_A_ARB_SEQ_WIDTH])
		req.cfg.width = nla_get_u8(at[IBTICK_A_ARB_SEQ_WIDTH]);
	if (at[IBTICK_A_ARB_SEQ_BE])
		req.cfg.big_endian = nla_get_u8(at[IBTICK_A_ARB_SEQ_BE]);
	if (at[IBTICK_A_ARB_WINDOW_US])
		req.cfg.window_ns = (u64)nla_get_u32(at[IBTICK_A_ARB_WINDOW_US]) *
				    NSEC_PER_USEC;
	if (at[IBTICK_A_ARB_WINDOW_TICKS])
		req.cfg.window_ticks = nla_get_u32(at[IBTICK_A_ARB_WINDOW_TICKS]);
	if (!at[IBTICK_A_ARB_WINDOW_US] && !at[IBTICK_A_ARB_WINDOW_TICKS])
		req.cfg.window_ns = IBTICK_ARB_WINDOW_US_DEFAULT * NSEC_PER_USEC;
	if (at[IBTICK_A_ARB_RESET_AT])
		req.cfg.reset_at = nla_get_u64(at[IBTICK_A_ARB_RESET_AT]);
	if (req.cfg.width != 0 && req.cfg.width != 4 && req.cfg.width != 8) {
		NL_SET_ERR_MSG_ATTR(info->extack, at[IBTICK_A_ARB_SEQ_WIDTH],
				    "the sequence field is 4 or 8 bytes (0: the publisher sequence)");
		return -EINVAL;
	}
	if (!req.cfg.width && (req.cfg.off || at[IBTICK_A_ARB_SEQ_BE])) {
		NL_SET_ERR_MSG_ATTR(info->extack, at[IBTICK_A_ARB_SEQ_OFF] ?:
				    at[IBTICK_A_ARB_SEQ_BE],
				    "an offset or byte order needs a field width");
		return -EINVAL;
	}
	if ((u32)req.cfg.off + req.cfg.width > U16_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, at[IBTICK_A_ARB_SEQ_OFF],
				    "the sequence field ends past the largest payload");
		return -EINVAL;
	}
	if (!req.cfg.window_ns && !req.cfg.window_ticks) {
		NL_SET_ERR_MSG_ATTR(info->extack, at[IBTICK_A_ARB_WINDOW_US] ?:
				    at[IBTICK_A_ARB_WINDOW_TICKS],
				    "the window needs a time or a tick count");
		return -EINVAL;
	}
	if (WARN_ON_ONCE(ibt_arb_cfg_check(&req.cfg)))
		return -EINVAL;	/* the checks above are the same */
	err = ibt_nl_parse_acl(info, &p->acl);
	if (err)
		return err;
	f = ibt_arb_feed_add(p, &req, info->extack);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ibt_feed_put(f);
	return 0;
}

/* Context: process; GENL_ADMIN_PERM checked. */
int ibt_nl_feed_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct ibt_feed_params p = {
		.nslots = IBTICK_SLOTS_DEFAULT,
		.slot_size = IBTICK_SLOT_SIZE_DEFAULT,
		.acl = {
			.owner = current_fsuid(),
			.group = current_fsgid(),
			.mode = IBTICK_FEED_MODE_DEFAULT,
		},
	};
	struct ibt_addr a = {};
	u32 mode = IBTICK_POLL_IRQ;
	struct ibt_feed *f;
	s32 cpu = -1;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, IBTICK_A_FEED_NAME))
		return -EINVAL;
	p.name = nla_data(tb[IBTICK_A_FEED_NAME]);
	if (!ibt_feed_name_valid(p.name, strlen(p.name))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_NAME],
				    "feed names are [A-Za-z0-9_.:-], not starting with '-', \"auto-\" or \"arb-\", not ending in \".rN\" (rails)");
		return -EINVAL;
	}
	if (tb[IBTICK_A_FEED_SLOTS])
		p.nslots = nla_get_u32(tb[IBTICK_A_FEED_SLOTS]);
	if (!is_power_of_2(p.nslots)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_SLOTS],
				    "slots must be a power of two");
		return -EINVAL;
	}
	if (tb[IBTICK_A_FEED_SLOT_SIZE])
		p.slot_size = nla_get_u32(tb[IBTICK_A_FEED_SLOT_SIZE]);
	if (!is_power_of_2(p.slot_size)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_SLOT_SIZE],
				    "the slot size must be a power of two");
		return -EINVAL;
	}
	if (tb[IBTICK_A_FEED_COMP_VECTOR])
		p.comp_vector = nla_get_u32(tb[IBTICK_A_FEED_COMP_VECTOR]);
	if (tb[IBTICK_A_FEED_ARB])
		return ibt_nl_arb_new(info, &p);
	if (GENL_REQ_ATTR_CHECK(info, IBTICK_A_FEED_GROUP) ||
	    GENL_REQ_ATTR_CHECK(info, IBTICK_A_FEED_PORT))
		return -EINVAL;
	a.group = nla_get_be32(tb[IBTICK_A_FEED_GROUP]);
	if (!ipv4_is_multicast(a.group) || ipv4_is_local_multicast(a.group)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_GROUP],
				    "not an IPv4 multicast group outside 224.0.0.0/24");
		return -EINVAL;
	}
	a.port = nla_get_u16(tb[IBTICK_A_FEED_PORT]);
	if (tb[IBTICK_A_FEED_IFINDEX])
		a.ifindex = nla_get_u32(tb[IBTICK_A_FEED_IFINDEX]);
	if (tb[IBTICK_A_FEED_LOOPBACK])
		p.loopback_policy = nla_get_u8(tb[IBTICK_A_FEED_LOOPBACK]);
	/* full: receive (and count) before any reader binds */
	if (tb[IBTICK_A_FEED_MEMBERSHIP])
		p.receive = nla_get_u8(tb[IBTICK_A_FEED_MEMBERSHIP]) ==
			    IBTICK_FEED_MEMBER_FULL;
	err = ibt_nl_parse_acl(info, &p.acl);
	if (!err)
		err = ibt_nl_parse_poll(info, &mode, &cpu);
	if (!err)
		err = ibt_nl_parse_defer(info, &p.prefer_defer_us);
	if (err)
		return err;
	p.has_prefer_defer = !!tb[IBTICK_A_FEED_PREFER_DEFER];

	f = ibt_feed_add_admin(&a, &p, info->extack);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = 0;
	if (mode == IBTICK_POLL_BUSY) {
		/* the reference keeps f; a FEED_DEL meanwhile makes it ENODEV */
		err = ibt_poll_set_mode(f, mode, cpu);
		if (err) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[IBTICK_A_FEED_POLL_MODE],
					    "busy-poll thread did not start");
			mutex_lock(&ibt_feeds_lock);
			if (READ_ONCE(f->admin))	/* not deleted meanwhile */
				ibt_feed_del_locked(f);
			mutex_unlock(&ibt_feeds_lock);
		}
	}
	ibt_feed_put(f);
	return err;
}

/*
 * What a feed keeps for life: its address (a FEED_SET naming the feed by
 * id or name may repeat it, not move the feed elsewhere) and what was
 * built for it (ring geometry, completion vector).  A request that gives
 * one with another value is refused with EBUSY and the attribute named.
 */
static int ibt_nl_feed_fixed(struct genl_info *info, const struct ibt_feed *f)
{
	enum { WHY_ADDR, WHY_RING, WHY_CQ, WHY_MEMBER };
	const struct {
		int		attr;
		u32		value;
		int		why;
	} fixed[] = {
		{ IBTICK_A_FEED_GROUP, (__force u32)f->group, WHY_ADDR },
		{ IBTICK_A_FEED_PORT, f->port, WHY_ADDR },
		{ IBTICK_A_FEED_IFINDEX, f->ifindex, WHY_ADDR },
		{ IBTICK_A_FEED_SLOTS, f->ring.nslots, WHY_RING },
		{ IBTICK_A_FEED_SLOT_SIZE, f->ring.slot_size, WHY_RING },
		{ IBTICK_A_FEED_COMP_VECTOR, f->comp_vector, WHY_CQ },
		{ IBTICK_A_FEED_MEMBERSHIP, READ_ONCE(f->member), WHY_MEMBER },
	};
	const struct nlattr *a;
	u32 v;
	int i;

	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		a = info->attrs[fixed[i].attr];
		if (!a)
			continue;
		/* the policy fixed each one's length: PORT u16, MEMBERSHIP u8 */
		v = fixed[i].attr == IBTICK_A_FEED_PORT ? nla_get_u16(a) :
		    fixed[i].attr == IBTICK_A_FEED_MEMBERSHIP ? nla_get_u8(a) :
							  nla_get_u32(a);
		if (v == fixed[i].value)
			continue;
		if (fixed[i].why == WHY_ADDR)
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "a feed's address is fixed: delete it and add another");
		else if (fixed[i].why == WHY_RING)
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "ring geometry is fixed once the ring exists");
		else if (fixed[i].why == WHY_CQ)
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "the completion vector is fixed once the CQ exists");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "membership is chosen at feed add; readers make a feed full");
		return -EBUSY;
	}
	return 0;
}

/* Context: process; GENL_ADMIN_PERM checked. */
int ibt_nl_feed_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	bool acl_given = tb[IBTICK_A_FEED_OWNER] ||
			 tb[IBTICK_A_FEED_OWNER_GROUP] || tb[IBTICK_A_FEED_MODE];
	struct ibt_feed *f;
	struct ibt_acl acl;
	u32 mode, defer;
	s32 cpu;
	int err;

	mutex_lock(&ibt_feeds_lock);
	f = ibt_nl_feed_key(info);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
		goto out_unlock;
	}
	/* check everything first: a refused request changes nothing */
	if (f->rail_of) {
		NL_SET_ERR_MSG(info->extack,
			       "a rail belongs to its arbitrated feed: change that");
		err = -EBUSY;
		goto out_unlock;
	}
	if (f->arb && (tb[IBTICK_A_FEED_ARB] || tb[IBTICK_A_FEED_POLL_MODE] ||
		       tb[IBTICK_A_FEED_POLL_CPU] || tb[IBTICK_A_FEED_LOOPBACK])) {
		NL_SET_ERR_MSG(info->extack,
			       "an arbitrated feed's rails and poll mode are fixed: delete it and add another");
		err = -EBUSY;
		goto out_unlock;
	}
	if (tb[IBTICK_A_FEED_ARB]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_ARB],
				    "a feed becomes arbitrated only at feed add");
		err = -EBUSY;
		goto out_unlock;
	}
	if (f->arb && tb[IBTICK_A_FEED_PREFER_DEFER]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[IBTICK_A_FEED_PREFER_DEFER],
				    "an arbitrated feed has no CQ of its own to defer: its rails' events fill it");
		err = -EINVAL;
		goto out_unlock;
	}
	defer = READ_ONCE(f->prefer_defer_us);
	err = ibt_nl_parse_defer(info, &defer);
	if (err)
		goto out_unlock;
	err = ibt_nl_feed_fixed(info, f);
	if (err)
		goto out_unlock;
	if (acl_given && !f->admin) {
		NL_SET_ERR_MSG(info->extack,
			       "auto feeds have no access control: create the feed with FEED_NEW");
		err = -EINVAL;
		goto out_unlock;
	}
	acl = f->acl;
	err = ibt_nl_parse_acl(info, &acl);
	if (err)
		goto out_unlock;
	mode = READ_ONCE(f->poll_mode);
	cpu = READ_ONCE(f->poll_cpu);
	err = ibt_nl_parse_poll(info, &mode, &cpu);
	if (err)
		goto out_unlock;
	if (!f->live && (tb[IBTICK_A_FEED_POLL_MODE] || tb[IBTICK_A_FEED_POLL_CPU])) {
		NL_SET_ERR_MSG(info->extack, "the feed is not live (device gone)");
		err = -ENODEV;
		goto out_unlock;
	}

	if (tb[IBTICK_A_FEED_POLL_MODE] || tb[IBTICK_A_FEED_POLL_CPU]) {
		err = ibt_poll_set_mode(f, mode, cpu);
		if (err) {
			NL_SET_ERR_MSG(info->extack, "poll mode not changed");
			goto out_unlock;
		}
	}
	if (tb[IBTICK_A_FEED_LOOPBACK])
		WRITE_ONCE(f->loopback_policy,
			   nla_get_u8(tb[IBTICK_A_FEED_LOOPBACK]));
	/* a deferral running keeps its end; the next caller gets the new time */
	WRITE_ONCE(f->prefer_defer_us, defer);
	if (acl_given) {
		spin_lock(&f->acl_lock);
		f->acl = acl;
		/*
		 * publishers ask again at their next send, readers at their
		 * next recvmsg: wake the sleeping ones to do so
		 */
		WRITE_ONCE(f->acl_gen, f->acl_gen + 1);
		spin_unlock(&f->acl_lock);
		wake_up_interruptible_all(&f->wq);
	}
	ibt_feeds_gen++;
	ibt_ev_feed(IBTICK_EV_FEED_CHANGED, f, 0, 0, 0);
out_unlock:
	mutex_unlock(&ibt_feeds_lock);
	return err;
}

/* Context: process; GENL_ADMIN_PERM checked. */
int ibt_nl_feed_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ibt_feed *f;
	int err = 0;

	mutex_lock(&ibt_feeds_lock);
	f = ibt_nl_feed_key(info);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
	} else if (f->rail_of) {
		NL_SET_ERR_MSG(info->extack,
			       "a rail goes with its arbitrated feed: delete that");
		err = -EBUSY;
	} else {
		ibt_feed_del_locked(f);
	}
	mutex_unlock(&ibt_feeds_lock);
	return err;
}
