// SPDX-License-Identifier: GPL-2.0
/*
 * A feed's multicast membership, through the in-kernel rdma_cm: the cm id
 * that binds the feed to its device port, the join (an SA join on
 * InfiniBand, an IGMP membership of the netdev on RoCE), the upgrade from
 * a send-only to a full membership for the feed's first reader, and the rejoin
 * after a port comes back, the SM asks clients to reregister, or a group
 * is lost - with a doubling delay capped at IBT_REJOIN_MAX_S, as IPoIB.
 *
 * Rejoins run in one delayed work per device (ibt_dev.rejoin_work), which
 * walks that device's feeds under ibt_feeds_lock; it also ends the feeds a
 * fatal QP or CQ event broke (feed_ib.c), whose handlers take no lock.  The rdma_cm handler
 * takes no ibtick lock: teardown waits for it (rdma_destroy_id) while
 * holding ibt_feeds_lock, so what it learns is left for the rejoin work.
 */
#include <linux/delay.h>
#include <linux/inetdevice.h>
#include <linux/notifier.h>
#include <net/netlink.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm_ib.h>

#include "ibt.h"

/* The next delay of @d's rejoin: doubled, at least 1 s, capped. */
static unsigned int ibt_rejoin_backoff_next(struct ibt_dev *d)
{
	int old, new;

	do {
		old = atomic_read(&d->rejoin_backoff);
		new = clamp(old * 2, 1, IBT_REJOIN_MAX_S);
	} while (atomic_cmpxchg(&d->rejoin_backoff, old, new) != old);
	return new;
}

/*
 * Ask for the groups of port index @port_idx to be joined again in @delay_s
 * seconds.  Context: any (port events, the cm handler, the rejoin work).
 */
static void ibt_rejoin_port(struct ibt_dev *d, u32 port_idx,
			    unsigned int delay_s)
{
	if (port_idx >= BITS_PER_LONG)
		return;
	set_bit(port_idx, &d->rejoin_ports);
	mod_delayed_work(ibt_wq, &d->rejoin_work, delay_s * HZ);
}

/*
 * A rejoin came back.  The SA may have given the group a new MLID (or the
 * path a new SL) - after an SM failover, or when the group was recreated:
 * keep the new attributes for the rejoin work, which re-attaches the QP and
 * rebuilds the AH.  Context: rdma_cm handler.
 */
static void ibt_join_rejoined(struct ibt_feed *f,
			      const struct rdma_ah_attr *attr)
{
	struct rdma_ah_attr old = {};
	bool had_old;

	if (rdma_ah_get_dlid(attr) == READ_ONCE(f->mlid) &&
	    !memcmp(&rdma_ah_read_grh(attr)->dgid, &f->mgid, sizeof(f->mgid)) &&
	    rdma_ah_get_sl(attr) == rdma_ah_get_sl(&f->ah_attr))
		return;
	spin_lock(&f->new_ah_lock);
	had_old = f->have_new_ah_attr;
	if (had_old)
		old = f->new_ah_attr;
	rdma_copy_ah_attr(&f->new_ah_attr, attr);
	f->have_new_ah_attr = true;
	spin_unlock(&f->new_ah_lock);
	if (had_old)
		rdma_destroy_ah_attr(&old);
	mod_delayed_work(ibt_wq, &f->dev->rejoin_work, 0);
}

/* An address handle sends posted before @until may still use. */
struct ibt_old_ah {
	struct list_head	node;	/* ibt_feed.old_ahs; tx_lock */
	struct ib_ah		*ah;
	u64			until;	/* tx_head when it was replaced */
};

/*
 * Destroy the retired address handles no send uses any more: all of them
 * with @all (the QP is gone, its sends flushed), else those whose sends
 * have completed.  Context: process, the feed's tx_lock not held.
 */
void ibt_join_old_ahs_put(struct ibt_feed *f, bool all)
{
	struct ibt_old_ah *o, *tmp;
	LIST_HEAD(done);

	mutex_lock(&f->tx_lock);
	list_for_each_entry_safe(o, tmp, &f->old_ahs, node)
		if (all || (s64)(f->tx_tail - o->until) >= 0)
			list_move(&o->node, &done);
	mutex_unlock(&f->tx_lock);
	list_for_each_entry_safe(o, tmp, &done, node) {
		rdma_destroy_ah(o->ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(o);
	}
}

/*
 * Apply attributes a rejoin brought (see ibt_join_rejoined): move the QP's
 * attachment to the new MLID and send through a new AH.  The old AH is
 * destroyed once every send posted before the switch has completed: at
 * once when the send queue drains within 100 ms, else later (the next
 * rejoin, or the teardown after the QP is gone).  Context: the
 * rejoin work, ibt_feeds_lock held.
 */
static void ibt_join_apply(struct ibt_feed *f)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah, *old_ah;
	struct ibt_old_ah *o;
	union ib_gid mgid;
	u64 until;
	u16 mlid;

	lockdep_assert_held(&ibt_feeds_lock);
	ibt_join_old_ahs_put(f, false);
	spin_lock(&f->new_ah_lock);
	if (!f->have_new_ah_attr) {
		spin_unlock(&f->new_ah_lock);
		return;
	}
	attr = f->new_ah_attr;		/* the GID reference moves with it */
	f->have_new_ah_attr = false;
	spin_unlock(&f->new_ah_lock);

	mgid = rdma_ah_read_grh(&attr)->dgid;
	mlid = rdma_ah_get_dlid(&attr);
	ah = rdma_create_ah(f->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	if (IS_ERR(ah) || !o) {
		atomic64_inc(&f->st.join_errors);
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(o);
		rdma_destroy_ah_attr(&attr);
		return;
	}
	mutex_lock(&f->tx_lock);
	if (f->attached) {	/* a send-only feed has nothing to move */
		ib_detach_mcast(f->qp, &f->mgid, f->mlid);
		f->attached = !ib_attach_mcast(f->qp, &mgid, mlid);
		if (!f->attached)
			atomic64_inc(&f->st.join_errors);
	}
	old_ah = f->ah;
	f->ah = ah;
	WRITE_ONCE(f->mlid, mlid);
	f->mgid = mgid;
	until = f->tx_head;	/* sends before it may use old_ah */
	o->ah = old_ah;
	o->until = until;
	list_add_tail(&o->node, &f->old_ahs);
	mutex_unlock(&f->tx_lock);
	ibt_tx_drain(f, 100);	/* briefly: ibt_feeds_lock is held */
	ibt_join_old_ahs_put(f, false);
	rdma_destroy_ah_attr(&f->ah_attr);
	f->ah_attr = attr;
}

/*
 * The answer to an upgrade's full join (ibt_join_upgrade, which waits for
 * it): a new MLID is left for the rejoin work like a rejoin's.  Context:
 * rdma_cm handler.
 */
static void ibt_join_upgraded(struct ibt_feed *f, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN) {
		f->upgrade_err = 0;
		ibt_join_rejoined(f, &ev->param.ud.ah_attr);
	} else {
		f->upgrade_err = ev->status ?: -ENETUNREACH;
		atomic64_inc(&f->st.join_errors);
		if (READ_ONCE(f->announced))
			ibt_ev_feed(IBTICK_EV_JOIN_FAILED, f, -f->upgrade_err,
				    0, atomic64_read(&f->st.join_errors));
	}
	WRITE_ONCE(f->upgrading, false);
	/* upgrade_err first: the waiter reads it once this is false */
	smp_store_release(&f->join_pending, false);
	wake_up_all(&f->wq);
}

/*
 * rdma_cm events for a feed's id.  Context: rdma_cm's work queue.  Only the
 * join result matters here; the id is destroyed by the feed's teardown,
 * never by returning non-zero.
 */
static int ibt_join_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibt_feed *f = id->context;

	if ((ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
	     ev->event == RDMA_CM_EVENT_MULTICAST_ERROR) &&
	    READ_ONCE(f->upgrading)) {
		ibt_join_upgraded(f, ev);
		return 0;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_MULTICAST_JOIN:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		WRITE_ONCE(f->join_pending, false);
		wake_up_all(&f->wq);
		break;
	default:
		break;
	}

	switch (ev->event) {
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		if (completion_done(&f->joined)) {
			atomic_set(&f->dev->rejoin_backoff, 0);
			ibt_ev_feed(IBTICK_EV_JOIN_DONE, f, 0, 0, 0);
			ibt_join_rejoined(f, &ev->param.ud.ah_attr);
			break;
		}
		/* the event's ah_attr (and its GID reference) dies on return */
		rdma_copy_ah_attr(&f->ah_attr, &ev->param.ud.ah_attr);
		f->have_ah_attr = true;
		f->qkey = ev->param.ud.qkey;
		f->join_err = 0;
		complete(&f->joined);
		break;
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		atomic64_inc(&f->st.join_errors);
		if (READ_ONCE(f->announced))
			ibt_ev_feed(IBTICK_EV_JOIN_FAILED, f,
				    ev->status < 0 ? -ev->status : ENETUNREACH,
				    0, atomic64_read(&f->st.join_errors));
		if (completion_done(&f->joined)) {
			/* lost the group after joining: try again, backing off */
			ibt_rejoin_port(f->dev, f->dport - f->dev->ports,
					ibt_rejoin_backoff_next(f->dev));
			break;
		}
		f->join_err = ev->status ?: -ENETUNREACH;
		complete(&f->joined);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * The netdev's first IPv4 address: rdma_cm binds the id (and so picks the
 * device port) by source address.  The list head is loaded once.
 */
static int ibt_netdev_addr(int ifindex, struct sockaddr_in *sin)
{
	const struct in_ifaddr *ifa = NULL;
	struct net_device *nd;
	struct in_device *in;
	int err = -EADDRNOTAVAIL;

	rcu_read_lock();
	nd = dev_get_by_index_rcu(&init_net, ifindex);
	in = nd ? __in_dev_get_rcu(nd) : NULL;
	if (in)
		ifa = rcu_dereference(in->ifa_list);
	if (ifa) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = ifa->ifa_local;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

/*
 * Create the feed's cm id and bind it to the feed's netdev address, which
 * must lead to the feed's device port.  On failure nothing is left.
 * Context: process.
 */
int ibt_join_bind(struct ibt_feed *f, struct netlink_ext_ack *extack)
{
	struct sockaddr_in src;
	int err;

	err = ibt_netdev_addr(f->ifindex, &src);
	if (err) {
		NL_SET_ERR_MSG(extack, "the feed's netdev has no IPv4 address");
		return err;
	}
	f->cm_id = rdma_create_id(&init_net, ibt_join_cm_handler, f,
				  RDMA_PS_UDP, IB_QPT_UD);
	if (IS_ERR(f->cm_id)) {
		err = PTR_ERR(f->cm_id);
		goto out_null;
	}
	err = rdma_bind_addr(f->cm_id, (struct sockaddr *)&src);
	if (err)
		goto out_destroy;
	if (f->cm_id->device != f->dev->ibdev ||
	    f->cm_id->port_num != f->port_num) {
		NL_SET_ERR_MSG(extack, "rdma_cm bound another device port");
		err = -EADDRNOTAVAIL;
		goto out_destroy;
	}
	return 0;

out_destroy:
	rdma_destroy_id(f->cm_id);
out_null:
	f->cm_id = NULL;
	return err;
}

/* Leave the feed's group: its one membership, whatever state. */
static void ibt_join_leave(struct ibt_feed *f)
{
	struct sockaddr_in grp = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = f->group,
	};

	rdma_leave_multicast(f->cm_id, (struct sockaddr *)&grp);
}

static int ibt_join_request(struct ibt_feed *f)
{
	struct sockaddr_in grp = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = f->group,
	};
	int err;

	WRITE_ONCE(f->join_pending, true);
	err = rdma_join_multicast(f->cm_id, (struct sockaddr *)&grp,
				  READ_ONCE(f->member) == IBTICK_FEED_MEMBER_FULL ?
				  BIT(FULLMEMBER_JOIN) :
				  BIT(SENDONLY_FULLMEMBER_JOIN), f);
	if (err)
		WRITE_ONCE(f->join_pending, false);
	return err;
}

/*
 * On InfiniBand the subnet manager may have created the group with an MTU
 * below the port's: datagrams above it would be dropped by the fabric,
 * unseen.  The SA's member record says which (rdma_cm's join event does
 * not): bound the feed's datagrams by it, so that sendmsg refuses a larger
 * tick with EMSGSIZE.  The buffers, sized for the port, stay.  RoCE groups
 * have the netdev's MTU, which the port's active MTU already follows.
 * Context: process, after a join.
 */
static void ibt_join_group_mtu(struct ibt_feed *f)
{
	struct ib_sa_mcmember_rec rec;
	int mtu;

	if (!rdma_cap_ib_mcast(f->dev->ibdev, f->port_num) ||
	    ib_sa_get_mcmember_rec(f->dev->ibdev, f->port_num, &f->mgid, &rec))
		return;
	mtu = ib_mtu_enum_to_int(rec.mtu);
	if (mtu > 0 && mtu < f->wire_max) {
		ibdev_info(f->dev->ibdev,
			   "ibtick: group %pI4 has MTU %d, below the port's %u\n",
			   &f->group, mtu, f->wire_max);
		f->wire_max = mtu;
	}
}

/*
 * Join the feed's group and wait for the answer (IBT_JOIN_TIMEOUT_MS, or a
 * fatal signal).  On success the group's MGID, MLID and the AH attributes
 * to send with are the feed's.  Context: process.
 */
int ibt_join(struct ibt_feed *f, struct netlink_ext_ack *extack)
{
	u32 slow = READ_ONCE(ibt_debug.slow_join_ms);
	const struct ib_global_route *grh;
	long left;
	int err;

	/* a test knob (debugfs.c): a slow subnet manager for one group */
	if (slow &&
	    (__force u32)f->group == READ_ONCE(ibt_debug.slow_join_group))
		msleep_interruptible(slow);
	err = ibt_join_request(f);
	if (err) {
		NL_SET_ERR_MSG(extack, "rdma_join_multicast failed");
		return err;
	}
	left = wait_for_completion_killable_timeout(&f->joined,
						    msecs_to_jiffies(IBT_JOIN_TIMEOUT_MS));
	if (left <= 0) {
		NL_SET_ERR_MSG(extack, "multicast join did not complete");
		return left ? (int)left : -ETIMEDOUT;
	}
	if (f->join_err && f->member == IBTICK_FEED_MEMBER_SEND_ONLY &&
	    rdma_cap_ib_mcast(f->dev->ibdev, f->port_num)) {
		/* a subnet manager without send-only full members: join fully */
		ibt_join_leave(f);
		f->member = IBTICK_FEED_MEMBER_FULL;
		reinit_completion(&f->joined);
		return ibt_join(f, extack);
	}
	if (f->join_err) {
		NL_SET_ERR_MSG(extack, "multicast join failed");
		return f->join_err;
	}
	grh = rdma_ah_read_grh(&f->ah_attr);
	f->mgid = grh->dgid;
	f->mlid = rdma_ah_get_dlid(&f->ah_attr);
	if (grh->sgid_attr)
		f->sgid = grh->sgid_attr->gid;
	ibt_join_group_mtu(f);
	return 0;
}

/*
 * Become a full member for the feed's first reader: leave the send-only
 * membership, join as a full member, wait for the answer.  Senders keep
 * their address handle meanwhile (a multicast LID routes to the group's
 * members whether or not the sender is one; a RoCE sender needs no
 * membership).  On failure the send-only membership is asked for again,
 * and the rejoin work takes its answer.  A feed that is a full member
 * already (see ibt_join) returns at once.  Context: process, member_lock
 * held, no other ibtick lock.
 */
int ibt_join_upgrade(struct ibt_feed *f)
{
	unsigned long tmo = msecs_to_jiffies(IBT_JOIN_TIMEOUT_MS);
	long left;
	int err;

	lockdep_assert_held(&f->member_lock);
	if (f->member == IBTICK_FEED_MEMBER_FULL)
		return 0;
	/* a rejoin in flight answers first */
	left = wait_event_interruptible_timeout(f->wq,
			!READ_ONCE(f->join_pending) || !ibt_feed_live(f), tmo);
	if (!ibt_feed_live(f))
		return -ENODEV;
	if (left <= 0)
		return left ? (int)left : -ETIMEDOUT;
	ibt_join_leave(f);
	WRITE_ONCE(f->member, IBTICK_FEED_MEMBER_FULL);
	WRITE_ONCE(f->upgrading, true);
	err = ibt_join_request(f);
	if (err)
		goto revert;
	left = wait_event_interruptible_timeout(f->wq,
			!READ_ONCE(f->join_pending) || !ibt_feed_live(f), tmo);
	if (!ibt_feed_live(f))
		return -ENODEV;	/* the teardown ends the join */
	if (smp_load_acquire(&f->join_pending)) {
		/* no answer: call the join off (no handler runs after) */
		ibt_join_leave(f);
		WRITE_ONCE(f->join_pending, false);
		err = left ? (int)left : -ETIMEDOUT;
		goto revert;
	}
	err = f->upgrade_err;
	if (!err)
		return 0;
revert:
	WRITE_ONCE(f->upgrading, false);
	ibt_join_leave(f);	/* a failed join stays listed until left */
	WRITE_ONCE(f->member, IBTICK_FEED_MEMBER_SEND_ONLY);
	if (ibt_join_request(f))
		atomic64_inc(&f->st.join_errors);
	return err;
}

/*
 * Leave the group and destroy the cm id: no handler runs after this.
 * Context: process, after the QP is gone.
 */
void ibt_join_destroy(struct ibt_feed *f)
{
	/* let a join in flight report first, briefly */
	wait_event_timeout(f->wq, !READ_ONCE(f->join_pending),
			   msecs_to_jiffies(1000));
	rdma_destroy_id(f->cm_id);
	f->cm_id = NULL;
	if (f->have_ah_attr)
		rdma_destroy_ah_attr(&f->ah_attr);
	f->have_ah_attr = false;
	if (f->have_new_ah_attr)	/* no handler runs any more */
		rdma_destroy_ah_attr(&f->new_ah_attr);
	f->have_new_ah_attr = false;
}

/*
 * Join again every group of the ports flagged in d->rejoin_ports: after
 * PORT_ACTIVE, CLIENT_REREGISTER (the SM forgot the fabric's groups) or a
 * join error; apply what rejoins brought back.  A failure retries with a
 * doubling delay.  Context: ibt_wq.
 */
static void ibt_rejoin_work(struct work_struct *work)
{
	struct ibt_dev *d = container_of(to_delayed_work(work), struct ibt_dev,
					 rejoin_work);
	unsigned long ports = xchg(&d->rejoin_ports, 0);
	struct ibt_feed *f, *tmp;
	bool failed = false;
	u32 idx;
	int err;

	mutex_lock(&ibt_feeds_lock);
	list_for_each_entry_safe(f, tmp, &ibt_feeds, list) {
		/* a feed being created has a fresh join (or none yet) */
		if (f->dev != d || !f->live || f->creating)
			continue;
		if (READ_ONCE(f->broken)) {	/* feed_ib.c */
			ibt_feed_fail_locked(f);
			continue;
		}
		ibt_join_apply(f);
		idx = f->dport - d->ports;
		if (!(ports & BIT(idx)))
			continue;
		/* a join still in flight is fresh enough: try again later */
		if (READ_ONCE(f->join_pending)) {
			set_bit(idx, &d->rejoin_ports);
			failed = true;
			continue;
		}
		/* a port that is down rejoins on its PORT_ACTIVE */
		if (!READ_ONCE(f->dport->active))
			continue;
		/* a reader's upgrade is joining: its answer is as fresh */
		if (!mutex_trylock(&f->member_lock)) {
			set_bit(idx, &d->rejoin_ports);
			failed = true;
			continue;
		}
		ibt_join_leave(f);
		err = ibt_join_request(f);
		mutex_unlock(&f->member_lock);
		if (err) {
			atomic64_inc(&f->st.join_errors);
			set_bit(idx, &d->rejoin_ports);
			failed = true;
			continue;
		}
		f->st.rejoins++;	/* ibt_feeds_lock */
	}
	mutex_unlock(&ibt_feeds_lock);

	/* the backoff is reset only by a join that succeeded (cm handler) */
	if (failed)
		mod_delayed_work(ibt_wq, &d->rejoin_work,
				 ibt_rejoin_backoff_next(d) * HZ);
}

/*
 * The device layer's notifications, for the joins.  On InfiniBand the SA
 * forgets our groups when the SM restarts (CLIENT_REREGISTER) and a port
 * may come back into a new fabric: join again, a second later.  RoCE needs
 * nothing: its "join" is an IGMP membership of the netdev, which the IP
 * stack keeps and announces again across a link flap - and a leave + join
 * there after a flap leaked a GID reference inside the 6.1 ib_core (seen
 * as "GID entry ref leak" when the device was removed).
 */
void ibt_join_dev_event(unsigned long what, struct ibt_dev *d,
			const struct ibt_dev_port_event *pe)
{
	switch (what) {
	case IBT_DEV_ADDED:
		INIT_DELAYED_WORK(&d->rejoin_work, ibt_rejoin_work);
		break;
	case IBT_DEV_PORT_EVENT:
		if ((pe->event == IB_EVENT_PORT_ACTIVE ||
		     pe->event == IB_EVENT_CLIENT_REREGISTER) &&
		    rdma_cap_ib_mcast(d->ibdev, d->ports[pe->port_idx].num))
			ibt_rejoin_port(d, pe->port_idx, 1);
		break;
	case IBT_DEV_REMOVED:
		/* no feed, port event or cm id is left to queue it again */
		cancel_delayed_work_sync(&d->rejoin_work);
		break;
	}
}
