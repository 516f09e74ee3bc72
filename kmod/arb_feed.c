// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrated feeds: one ring from two to four rails (A/B line
 * arbitration), first copy wins.  The decisions are arbiter.c's; this file
 * is the glue: the rails' lives, their ticks into the ring, the window
 * timer, the counters for netlink.
 *
 * Shape.  An arbitrated feed is an ibt_feed with @arb and no device, QP or
 * group of its own; sockets reach it by id (IBTICK_ADDR_FEED_ID) and read
 * its ring as any other.  Each rail is an ordinary feed on its (group,
 * port, netdev) with @rail_of set, receiving from its creation; its
 * receive path (rx.c) hands every valid tick to ibt_arb_rx() instead of
 * its own ring.  The arbitrated feed holds a reference on each rail; a
 * rail never holds its parent, which ends its rails before its ring turns
 * DEAD (ibt_arb_stop_locked()).
 *
 * A rail's loss is not the feed's.  Device removal kills the rail's feed
 * as any other; port down leaves it waiting for its rejoin.  The watch
 * work notices both (every IBT_ARB_WATCH), reports rail_down / rail_up,
 * and rebuilds a rail whose feed died as soon as its netdev has an RDMA
 * port again, with a backoff.  Readers see nothing of it but the rail
 * bits of the slots.
 *
 * Locking.  af->lock (a spinlock, taken with BH off) is the ring's one
 * producer: the rails' drains (the softirq poll of each rail's CQ; rails
 * stay in poll mode irq) and the window timer (a soft hrtimer on
 * CLOCK_MONOTONIC) take it around each decision and slot.  The rails
 * array changes under ibt_feeds_lock only (creation, the watch work, the
 * end).  The watch work holds a reference on the feed while it is queued,
 * so the feed's end need not wait for it under ibt_feeds_lock, which it
 * takes; module unload does wait for it (ibt_arb_quiesce_all()).
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "ibt.h"

#define IBT_ARB_WATCH		(HZ / 5)
#define IBT_ARB_RETRY_MAX	(5 * HZ)

/* Numbers @first.. every rail missed: a NODATA slot says so. */
static void ibt_arb_gap(struct ibt_arb *a, u64 first, u64 count, void *ctx)
{
	struct ibt_feed *f = ctx;
	struct ibtick_slot *s;
	u64 idx;

	idx = ibt_ring_producer(&f->ring);
	s = ibt_ring_begin(&f->ring, idx);
	s->pub_seq = first;
	s->rx_ns = ktime_get_real_ns();	/* gaps are rare: a clock read each */
	s->send_ns = 0;
	s->pub_id = 0;
	s->len = 0;
	s->flags = IBTICK_TICK_ARB | IBTICK_TICK_GAP | IBTICK_TICK_NODATA;
	s->orig_len = 0;
	s->gap = min_t(u64, count, U32_MAX);
	ibt_ring_commit(&f->ring, s, idx);
	f->st.gaps++;
	f->st.gap_ticks += count;
	if (ibt_ev_due(&f->arb->ev_gap_at))	/* rate limited, totals kept */
		ibt_ev_rail(IBTICK_EV_ARB_GAP, f, U32_MAX, count,
			    a->gap_numbers);
}

/* Arm the window timer for the oldest open hole, if any.  af->lock held. */
static void ibt_arb_timer_arm(struct ibt_arb_feed *af, u64 now)
{
	u64 at;

	if (af->timer_armed || !af->arb.holes)
		return;
	at = ibt_arb_expire(&af->arb, now);
	if (!at)
		return;
	af->timer_armed = true;
	hrtimer_start(&af->timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
}

/*
 * Rail @rail's tick @h (payload @payload, @plen bytes) received at @now
 * (CLOCK_REALTIME, for the slot) and @mono (CLOCK_MONOTONIC, for the
 * arbiter's windows and lags): read once per drain.  Context: the rail's
 * CQ owner, BH off or softirq.  The caller wakes the feed's readers when
 * its ring moved.
 */
void ibt_arb_rx(struct ibt_feed *rail, const struct ibtick_wire_hdr *h,
		const void *payload, u32 plen, u64 now, u64 mono)
{
	struct ibt_feed *f = rail->rail_of;
	struct ibt_arb_feed *af = f->arb;
	u32 r = rail->rail_idx, aflags;
	enum ibt_arb_verdict v;
	struct ibtick_slot *s;
	u64 raw, seq, idx;
	u16 flags;

	spin_lock_bh(&af->lock);
	if (af->stopped) {
		spin_unlock_bh(&af->lock);
		return;
	}
	af->rail[r].rx++;
	if (ibt_arb_field(&af->arb.cfg, payload, plen,
			  be64_to_cpu(h->pub_seq), &raw)) {
		af->arb.st[r].short_payload++;
		goto out;
	}
	v = ibt_arb_arrive(&af->arb, r, raw, mono, &seq, &aflags);
	if ((aflags & IBT_ARB_RESET) && ibt_ev_due(&af->ev_reset_at))
		ibt_ev_rail(IBTICK_EV_SEQ_RESET, f, r, 1, af->arb.resets);
	if (v != IBT_ARB_DELIVER)
		goto out;
	flags = IBTICK_TICK_ARB | r << IBTICK_TICK_RAIL_SHIFT;
	if (aflags & IBT_ARB_LATE)
		flags |= IBTICK_TICK_LATE;
	if (aflags & IBT_ARB_RESET)
		flags |= IBTICK_TICK_RESET;
	s = ibt_rx_fill(f, &idx, h, payload, plen, seq, flags, 0, now);
	ibt_rx_commit(f, s, idx, plen);
out:
	ibt_arb_timer_arm(af, mono);
	spin_unlock_bh(&af->lock);
}

/* The oldest hole's window ended with no tick to notice it.  Softirq. */
static enum hrtimer_restart ibt_arb_timer(struct hrtimer *t)
{
	struct ibt_arb_feed *af = container_of(t, struct ibt_arb_feed, timer);
	struct ibt_feed *f = af->feed;
	u64 before, at = 0;

	spin_lock_bh(&af->lock);
	before = ibt_ring_producer(&f->ring);
	if (!af->stopped)
		at = ibt_arb_expire(&af->arb, ktime_get_ns());
	if (at)
		hrtimer_set_expires(t, ns_to_ktime(at));
	else
		af->timer_armed = false;
	if (ibt_ring_producer(&f->ring) != before)
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	spin_unlock_bh(&af->lock);
	return at ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/* Is rail @rl receiving?  ibt_feeds_lock held. */
static bool ibt_arb_rail_ok(const struct ibt_rail *rl)
{
	const struct ibt_feed *rf = rl->feed;

	return rf && ibt_feed_live(rf) && READ_ONCE(rf->dport->active);
}

/*
 * Look at the rails: report what went down or came back, and give up
 * the feed of a rail whose feed died (its device went away, or broke).
 * Returns the rails to rebuild; puts those feeds in @dead.  ibt_feeds_lock
 * held.
 */
static unsigned long ibt_arb_watch_locked(struct ibt_feed *f,
					  struct ibt_feed **dead)
{
	struct ibt_arb_feed *af = f->arb;
	unsigned long rebuild = 0;
	u64 now = ktime_get_ns();
	struct ibt_rail *rl;
	bool ok;
	u32 r;

	for (r = 0; r < af->nrails; r++) {
		rl = &af->rail[r];
		ok = ibt_arb_rail_ok(rl);
		if (rl->up && !ok) {
			WRITE_ONCE(rl->up, false);
			rl->downs++;
			rl->down_since = now;
			ibt_ev_rail(IBTICK_EV_RAIL_DOWN, f, r, 0, 0);
		} else if (!rl->up && ok) {
			WRITE_ONCE(rl->up, true);
			rl->down_ns += now - rl->down_since;
			ibt_ev_rail(IBTICK_EV_RAIL_UP, f, r, 0, 0);
		}
		if (rl->feed && !ibt_feed_live(rl->feed)) {
			/* its arrivals have stopped (seized): start it afresh */
			dead[r] = rl->feed;
			rl->feed = NULL;
			spin_lock_bh(&af->lock);
			ibt_arb_rail_restart(&af->arb, r);
			spin_unlock_bh(&af->lock);
		}
		if (!rl->feed && time_after_eq(jiffies, af->retry_at[r]))
			rebuild |= BIT(r);
	}
	return rebuild;
}

static void ibt_arb_watch(struct work_struct *w)
{
	struct ibt_arb_feed *af = container_of(to_delayed_work(w),
					       struct ibt_arb_feed, watch);
	struct ibt_feed *dead[IBT_ARB_RAILS_MAX] = {};
	struct ibt_feed *f = af->feed, *rf;
	unsigned long rebuild = 0;
	bool again = false;
	u32 r;

	mutex_lock(&ibt_feeds_lock);
	if (!af->dying)
		rebuild = ibt_arb_watch_locked(f, dead);
	mutex_unlock(&ibt_feeds_lock);
	for (r = 0; r < af->nrails; r++)
		if (dead[r])
			ibt_feed_put(dead[r]);

	for_each_set_bit(r, &rebuild, af->nrails) {
		/* the join is a fabric round trip: without ibt_feeds_lock */
		rf = ibt_feed_rail_create(f, r, &af->rail[r].addr, NULL);
		mutex_lock(&ibt_feeds_lock);
		if (IS_ERR(rf)) {
			af->retry_wait[r] = min_t(unsigned long, IBT_ARB_RETRY_MAX,
						  max_t(unsigned long, IBT_ARB_WATCH,
							2 * af->retry_wait[r]));
			af->retry_at[r] = jiffies + af->retry_wait[r];
			rf = NULL;
		} else if (af->dying) {
			ibt_feed_del_locked(rf);	/* ended meanwhile */
		} else {
			af->rail[r].feed = rf;
			af->retry_wait[r] = 0;
			rf = NULL;
		}
		mutex_unlock(&ibt_feeds_lock);
		if (rf)
			ibt_feed_put(rf);
	}

	mutex_lock(&ibt_feeds_lock);
	if (!af->dying)
		again = queue_delayed_work(ibt_wq, &af->watch, IBT_ARB_WATCH);
	mutex_unlock(&ibt_feeds_lock);
	if (!again)
		ibt_feed_put(f);	/* the reference the queued work held */
}

/*
 * IBTICK_CMD_FEED_NEW with IBTICK_A_FEED_ARB: the feed, then its rails,
 * each joined before the request returns; any rail that cannot be built
 * now fails the request (extack says why).  Returns the feed with a
 * reference for the caller.  Context: process, no ibtick lock held.
 */
struct ibt_feed *ibt_arb_feed_add(const struct ibt_feed_params *p,
				  const struct ibt_arb_req *req,
				  struct netlink_ext_ack *extack)
{
	struct ibt_arb_feed *af;
	struct ibt_arb_ent *e;
	struct ibt_feed *f, *rf;
	int err = 0;
	u32 r;

	af = kzalloc(sizeof(*af), GFP_KERNEL_ACCOUNT);
	e = kvcalloc(IBT_ARB_SPAN, sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!af || !e) {
		kvfree(e);
		kfree(af);
		return ERR_PTR(-ENOMEM);
	}
	f = ibt_feed_arb_new(p, extack);
	if (IS_ERR(f)) {
		kvfree(e);
		kfree(af);
		return f;
	}
	spin_lock_init(&af->lock);
	hrtimer_init(&af->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	af->timer.function = ibt_arb_timer;
	INIT_DELAYED_WORK(&af->watch, ibt_arb_watch);
	af->feed = f;
	af->nrails = req->nrails;
	for (r = 0; r < req->nrails; r++)
		af->rail[r].addr = req->rail[r];
	ibt_arb_init(&af->arb, &req->cfg, req->nrails, e, ibt_arb_gap, f);
	f->arb = af;		/* before any rail can deliver */

	for (r = 0; r < req->nrails && !err; r++) {
		rf = ibt_feed_rail_create(f, r, &req->rail[r], extack);
		if (IS_ERR(rf)) {
			err = PTR_ERR(rf);
			break;
		}
		mutex_lock(&ibt_feeds_lock);
		af->rail[r].feed = rf;
		af->rail[r].up = true;
		mutex_unlock(&ibt_feeds_lock);
	}
	f = ibt_feed_arb_created(f, err);
	if (IS_ERR(f))
		return f;
	/* the watch work's reference, kept while it is queued */
	kref_get(&f->ref);
	queue_delayed_work(ibt_wq, &af->watch, IBT_ARB_WATCH);
	return f;
}

/*
 * The feed ends (FEED_DEL, module unload, a failed creation): its rails
 * first, so that nothing writes the ring after it turns DEAD, and the
 * holes still open become gaps the readers see.  Context: process,
 * ibt_feeds_lock held; from ibt_feed_kill(), once.
 */
void ibt_arb_stop_locked(struct ibt_feed *f)
{
	struct ibt_arb_feed *af = f->arb;
	struct ibt_feed *rf;
	u32 r;

	lockdep_assert_held(&ibt_feeds_lock);
	af->dying = true;
	/*
	 * A watch still waiting for its timer would outlive the module: take
	 * it back, and its reference (never the last: FEED_DEL's admin
	 * reference is dropped after this).  One that runs now sees @dying
	 * and drops its own.
	 */
	if (cancel_delayed_work(&af->watch))
		ibt_feed_put_locked(f);
	for (r = 0; r < af->nrails; r++) {
		rf = af->rail[r].feed;
		if (!rf)
			continue;
		af->rail[r].feed = NULL;
		ibt_feed_del_locked(rf);	/* its CQ seized: no more ticks */
		ibt_feed_put_locked(rf);
	}
	spin_lock_bh(&af->lock);
	af->stopped = true;
	ibt_arb_flush(&af->arb);
	spin_unlock_bh(&af->lock);
	hrtimer_cancel(&af->timer);
}

/*
 * Module unload, before the feeds end: no watch work may run after it.
 * Each arbitrated feed is marked dying, so that its watch does not queue
 * itself again, then its watch is cancelled or waited for (it may be
 * building a rail, without ibt_feeds_lock).  Context: process, no ibtick
 * lock held.
 */
void ibt_arb_quiesce_all(void)
{
	struct ibt_feed *f, *found;

	for (;;) {
		found = NULL;
		mutex_lock(&ibt_feeds_lock);
		list_for_each_entry(f, &ibt_feeds, list) {
			if (f->arb && !f->arb->dying) {
				f->arb->dying = true;
				kref_get(&f->ref);
				found = f;
				break;
			}
		}
		mutex_unlock(&ibt_feeds_lock);
		if (!found)
			return;
		if (cancel_delayed_work_sync(&found->arb->watch))
			ibt_feed_put(found);	/* the queued work's */
		ibt_feed_put(found);
	}
}

/* The feed's memory goes (its last put).  ibt_feeds_lock held. */
void ibt_arb_free(struct ibt_feed *f)
{
	struct ibt_arb_feed *af = f->arb;

	if (!af)
		return;
	kvfree(af->arb.e);
	kfree(af);
	f->arb = NULL;
}

/* One rail's counters, read under the arbiter's lock. */
static void ibt_arb_snap(struct ibt_arb_feed *af, u32 r,
			 struct ibtick_rail_stats *o)
{
	const struct ibt_arb_rail_stats *st = &af->arb.st[r];

	o->rx = af->rail[r].rx;
	o->won = st->won;
	o->dup = st->dup;
	o->only = st->only;
	o->late = st->late;
	o->stale = st->stale;
	o->short_payload = st->short_payload;
	o->bad_seq = st->bad_seq;
	o->resets = st->resets;
	o->lag_n = st->lag_n;
	o->lag_mean_ns = st->lag_n ? div64_u64(st->lag_sum_ns, st->lag_n) : 0;
	o->lag_p50_ns = ibt_arb_lag_pct(st, 50);
	o->lag_p99_ns = ibt_arb_lag_pct(st, 99);
	o->lag_max_ns = st->lag_max_ns;
}

/*
 * The counters of arbitrated feed @f and of its rails, for FEED_GET and
 * IBTICK_ARB_STATISTICS (@o->feed_id and the rails' up and down times
 * too).  Context: process, ibt_feeds_lock held (the rails' state).
 */
void ibt_arb_stats(struct ibt_feed *f, struct ibtick_arb_stats *o)
{
	struct ibt_arb_feed *af = f->arb;
	u64 now = ktime_get_ns();
	u32 r;

	BUILD_BUG_ON(IBTICK_ARB_RAILS != IBT_ARB_RAILS_MAX ||
		     IBTICK_ARB_RAILS_MAX != IBT_ARB_RAILS_MAX);
	lockdep_assert_held(&ibt_feeds_lock);
	memset(o, 0, sizeof(*o));
	o->feed_id = f->id;
	o->nrails = af->nrails;
	spin_lock_bh(&af->lock);
	o->delivered = af->arb.delivered;
	o->gaps = af->arb.gaps;
	o->gap_numbers = af->arb.gap_numbers;
	o->resets = af->arb.resets;
	o->holes = af->arb.holes;
	for (r = 0; r < af->nrails; r++)
		ibt_arb_snap(af, r, &o->rail[r]);
	spin_unlock_bh(&af->lock);
	for (r = 0; r < af->nrails; r++) {
		const struct ibt_rail *rl = &af->rail[r];

		o->rail[r].index = r;
		o->rail[r].up = rl->up;
		o->rail[r].downs = rl->downs;
		o->rail[r].down_ns = rl->down_ns;
		if (!rl->up)
			o->rail[r].down_ns += now - rl->down_since;
	}
}

static int ibt_arb_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, IBTICK_A_RAIL_PAD);
}

static int ibt_arb_fill_rail(struct sk_buff *skb, struct ibt_arb_feed *af,
			     const struct ibtick_rail_stats *o)
{
	const struct ibt_rail *rl = &af->rail[o->index];
	struct net_device *nd;
	struct nlattr *nest;
	int err = 0;

	nest = nla_nest_start(skb, IBTICK_A_ARB_RAIL);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, IBTICK_A_RAIL_INDEX, o->index) ||
	    nla_put_be32(skb, IBTICK_A_RAIL_GROUP, rl->addr.group) ||
	    nla_put_u16(skb, IBTICK_A_RAIL_PORT, rl->addr.port) ||
	    nla_put_u32(skb, IBTICK_A_RAIL_IFINDEX, rl->addr.ifindex) ||
	    (rl->feed &&
	     nla_put_u32(skb, IBTICK_A_RAIL_FEED_ID, rl->feed->id)) ||
	    nla_put_u8(skb, IBTICK_A_RAIL_UP, o->up) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_RX, o->rx) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_WON, o->won) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_DUP, o->dup) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_ONLY, o->only) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LATE, o->late) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_STALE, o->stale) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_SHORT, o->short_payload) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_BAD_SEQ, o->bad_seq) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_RESETS, o->resets) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LAG_N, o->lag_n) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LAG_MEAN_NS, o->lag_mean_ns) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LAG_P50_NS, o->lag_p50_ns) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LAG_P99_NS, o->lag_p99_ns) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_LAG_MAX_NS, o->lag_max_ns) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_DOWNS, o->downs) ||
	    ibt_arb_put_u64(skb, IBTICK_A_RAIL_DOWN_NS, o->down_ns))
		return -EMSGSIZE;
	rcu_read_lock();
	nd = dev_get_by_index_rcu(&init_net, rl->addr.ifindex);
	if (nd)
		err = nla_put_string(skb, IBTICK_A_RAIL_NETDEV_NAME, nd->name);
	rcu_read_unlock();
	if (err)
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * IBTICK_A_FEED_ARB of FEED_GET: the configuration, the feed's counters,
 * a nest per rail.  Context: process, ibt_feeds_lock held (the rails).
 */
int ibt_arb_fill(struct sk_buff *skb, struct ibt_feed *f)
{
	struct ibt_arb_feed *af = f->arb;
	const struct ibt_arb_cfg *c = &af->arb.cfg;
	struct ibtick_arb_stats st, *o = &st;
	struct nlattr *nest;
	u32 r;

	ibt_arb_stats(f, o);
	nest = nla_nest_start(skb, IBTICK_A_FEED_ARB);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(skb, IBTICK_A_ARB_SEQ_OFF, c->off) ||
	    nla_put_u8(skb, IBTICK_A_ARB_SEQ_WIDTH, c->width) ||
	    nla_put_u8(skb, IBTICK_A_ARB_SEQ_BE, c->big_endian) ||
	    nla_put_u32(skb, IBTICK_A_ARB_WINDOW_US,
			div_u64(c->window_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, IBTICK_A_ARB_WINDOW_TICKS, c->window_ticks) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_RESET_AT, c->reset_at,
			      IBTICK_A_ARB_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_DELIVERED, o->delivered,
			      IBTICK_A_ARB_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_GAPS, o->gaps,
			      IBTICK_A_ARB_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_GAP_NUMBERS, o->gap_numbers,
			      IBTICK_A_ARB_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_RESETS, o->resets,
			      IBTICK_A_ARB_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_ARB_HOLES, o->holes,
			      IBTICK_A_ARB_PAD))
		return -EMSGSIZE;
	for (r = 0; r < o->nrails; r++)
		if (ibt_arb_fill_rail(skb, af, &o->rail[r]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}
