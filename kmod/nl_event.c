// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the family's "events" multicast group (ibtick monitor).
 *
 * Every function here may be called in any context, with any ibtick lock
 * held: it allocates atomically, takes no lock of ours and does nothing
 * when nobody listens.  An event that cannot be allocated is lost to the
 * listeners only; the counters it reports stay exact and are read by
 * dumps.  Data-path events (lapped, gap, RQ empty) are rate limited by
 * their callers with ibt_ev_due().
 *
 * An event is built and sent inside one RCU read-side section, taken and
 * left in the same function (so that sparse can follow it), that first
 * checks ibt_nl_ready; ibt_nl_exit() clears it and waits for a grace period
 * before unregistering the family, so no event uses a family (or group
 * offset) that is gone.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <net/genetlink.h>

#include <linux/ibtick_netlink.h>

#include "conn.h"
#include "ibt.h"

/* the family is registered (and not being unregistered) */
static bool ibt_nl_ready;

void ibt_nl_set_ready(bool ready)
{
	WRITE_ONCE(ibt_nl_ready, ready);
}

bool ibt_ev_due(unsigned long *at)
{
	unsigned long now = jiffies;

	if (time_before(now, READ_ONCE(*at)))
		return false;
	WRITE_ONCE(*at, now + HZ / 10);
	return true;
}

/*
 * A new event of @type, or NULL (nobody listens, the family is going, no
 * memory).  Called in an RCU read-side section that lasts until the event
 * is sent (ibt_ev_finish): the family cannot be unregistered (ibt_nl_exit
 * waits for a grace period) before then.
 */
static struct sk_buff *ibt_ev_new(u8 type, enum ibt_mcgrp grp, void **hdr)
{
	struct sk_buff *skb;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "events are sent under RCU");
	if (!READ_ONCE(ibt_nl_ready) ||
	    !genl_has_listeners(&ibt_genl_family, &init_net, grp))
		return NULL;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &ibt_genl_family, 0, IBTICK_CMD_EVENT);
	if (*hdr &&
	    !nla_put_u8(skb, IBTICK_A_EV_TYPE, type) &&
	    !nla_put_u64_64bit(skb, IBTICK_A_EV_TIME_NS, ktime_get_real_ns(),
			       IBTICK_A_EV_PAD))
		return skb;
	nlmsg_free(skb);
	return NULL;
}

/* Send the event begun by ibt_ev_new(), or drop it when a put failed. */
static void ibt_ev_finish(struct sk_buff *skb, void *hdr, enum ibt_mcgrp grp,
			  int put_err)
{
	if (put_err) {
		nlmsg_free(skb);
	} else {
		genlmsg_end(skb, hdr);
		genlmsg_multicast(&ibt_genl_family, skb, 0, grp, GFP_ATOMIC);
	}
}

static int ibt_ev_put_counts(struct sk_buff *skb, u64 count, u64 total)
{
	return nla_put_u64_64bit(skb, IBTICK_A_EV_COUNT, count,
				 IBTICK_A_EV_PAD) ||
	       nla_put_u64_64bit(skb, IBTICK_A_EV_TOTAL, total,
				 IBTICK_A_EV_PAD);
}

/* Context: any; @d's ibdev valid (the caller is its add/remove/event path). */
void ibt_ev_dev(u8 type, struct ibt_dev *d, u32 port)
{
	char name[IB_DEVICE_NAME_MAX];
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = ibt_ev_new(type, IBT_MCGRP_EVENTS, &hdr);
	if (skb) {
		ibt_dev_name(d, name);
		ibt_ev_finish(skb, hdr, IBT_MCGRP_EVENTS,
			      nla_put_u32(skb, IBTICK_A_EV_DEV_INDEX, d->index) ||
			      nla_put_string(skb, IBTICK_A_EV_DEV_NAME, name) ||
			      (port && nla_put_u32(skb, IBTICK_A_EV_PORT, port)));
	}
	rcu_read_unlock();
}

/* A feed, and its device unless it has none (an arbitrated feed). */
static int ibt_ev_put_feed(struct sk_buff *skb, const struct ibt_feed *f)
{
	return nla_put_u32(skb, IBTICK_A_EV_FEED_ID, f->id) ||
	       nla_put_string(skb, IBTICK_A_EV_FEED_NAME, f->name) ||
	       (f->dev &&
		(nla_put_u32(skb, IBTICK_A_EV_DEV_INDEX, f->dev->index) ||
		 nla_put_string(skb, IBTICK_A_EV_DEV_NAME, f->dev_name) ||
		 nla_put_u32(skb, IBTICK_A_EV_PORT, f->port_num)));
}

/*
 * A feed's event: its errno when @err, the rail it is about unless @rail
 * is U32_MAX, the counts when either is set.  Context: any.  @f's name and
 * device are constant once it is listed.
 */
static void ibt_ev_feed_put(u8 type, const struct ibt_feed *f, int err,
			    u32 rail, u64 count, u64 total)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = ibt_ev_new(type, IBT_MCGRP_EVENTS, &hdr);
	if (skb)
		ibt_ev_finish(skb, hdr, IBT_MCGRP_EVENTS,
			      ibt_ev_put_feed(skb, f) ||
			      (err && nla_put_s32(skb, IBTICK_A_EV_ERRNO, err)) ||
			      (rail != U32_MAX &&
			       nla_put_u32(skb, IBTICK_A_EV_RAIL, rail)) ||
			      ((count || total) &&
			       ibt_ev_put_counts(skb, count, total)));
	rcu_read_unlock();
}

void ibt_ev_feed(u8 type, const struct ibt_feed *f, int err, u64 count,
		 u64 total)
{
	ibt_ev_feed_put(type, f, err, U32_MAX, count, total);
}

/* An arbitrated feed's event about rail @rail (U32_MAX: none). */
void ibt_ev_rail(u8 type, const struct ibt_feed *f, u32 rail, u64 count,
		 u64 total)
{
	ibt_ev_feed_put(type, f, 0, rail, count, total);
}

/* Context: any (the device's asynchronous event handlers). */
void ibt_ev_feed_error(const struct ibt_feed *f, enum ib_event_type what)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = ibt_ev_new(IBTICK_EV_FEED_ERROR, IBT_MCGRP_EVENTS, &hdr);
	if (skb)
		ibt_ev_finish(skb, hdr, IBT_MCGRP_EVENTS,
			      ibt_ev_put_feed(skb, f) ||
			      nla_put_s32(skb, IBTICK_A_EV_ERRNO, EIO) ||
			      nla_put_u32(skb, IBTICK_A_EV_IB_EVENT, what) ||
			      ibt_ev_put_counts(skb, 1,
						atomic64_read(&f->st.async_errors)));
	rcu_read_unlock();
}

/* Context: process (the socket's recvmsg). */
void ibt_ev_sock(u8 type, const struct ibt_feed *f, const struct ibt_sock *is,
		 u64 count, u64 total)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = ibt_ev_new(type, IBT_MCGRP_SOCK_EVENTS, &hdr);
	if (skb)
		ibt_ev_finish(skb, hdr, IBT_MCGRP_SOCK_EVENTS,
			      ibt_ev_put_feed(skb, f) ||
			      nla_put_u64_64bit(skb, IBTICK_A_EV_SOCK_ID, is->id,
						IBTICK_A_EV_PAD) ||
			      nla_put_u32(skb, IBTICK_A_EV_PID, pid_nr(is->tgid)) ||
			      ibt_ev_put_counts(skb, count, total));
	rcu_read_unlock();
}

/*
 * A connection's event (IBTICK_EV_CONN_*), on the administrators' group:
 * it names a process and both ends, which a dump shows a user only for
 * their own connections.  @err: the failure's errno, 0 for none; @unacked:
 * its sends never acknowledged.  Context: any; the caller keeps @cs's
 * addresses and device name still (its lock).
 */
void ibt_ev_conn(u8 type, const struct ibt_csock *cs, int err, u64 unacked)
{
	struct sk_buff *skb;
	void *hdr;

	rcu_read_lock();
	skb = ibt_ev_new(type, IBT_MCGRP_SOCK_EVENTS, &hdr);
	if (skb)
		ibt_ev_finish(skb, hdr, IBT_MCGRP_SOCK_EVENTS,
			      nla_put_u64_64bit(skb, IBTICK_A_EV_CONN_ID, cs->id,
						IBTICK_A_EV_PAD) ||
			      nla_put_u32(skb, IBTICK_A_EV_PID, pid_nr(cs->tgid)) ||
			      nla_put_in_addr(skb, IBTICK_A_EV_LOCAL_ADDR,
					      cs->local.sin_addr.s_addr) ||
			      nla_put_u16(skb, IBTICK_A_EV_LOCAL_PORT,
					  ntohs(cs->local.sin_port)) ||
			      (cs->peer.sin_addr.s_addr &&
			       (nla_put_in_addr(skb, IBTICK_A_EV_PEER_ADDR,
						cs->peer.sin_addr.s_addr) ||
				nla_put_u16(skb, IBTICK_A_EV_PEER_PORT,
					    ntohs(cs->peer.sin_port)))) ||
			      (cs->dev_name[0] &&
			       nla_put_string(skb, IBTICK_A_EV_DEV_NAME,
					      cs->dev_name)) ||
			      (err && nla_put_s32(skb, IBTICK_A_EV_ERRNO, err)) ||
			      (err && nla_put_u64_64bit(skb, IBTICK_A_EV_UNACKED,
							unacked, IBTICK_A_EV_PAD)));
	rcu_read_unlock();
}
