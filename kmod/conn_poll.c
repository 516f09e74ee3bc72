// SPDX-License-Identifier: GPL-2.0
/*
 * Who drains a connection's CQ, and when.
 *
 *  - the softirq poll (irq_poll), scheduled by the CQ event: drains a
 *    budget, re-arms the CQ and looks again for what came meanwhile;
 *  - the CQ event itself, where the driver calls it in softirq context
 *    (rxe): the same, in place, one softirq fewer;
 *  - a caller that would rather spin than sleep (recv with MSG_DONTWAIT,
 *    SO_BUSY_POLL, poll() with SO_BUSY_POLL, a send short of room):
 *    drains it directly, skipping the softirq hop.
 *
 * A spinner that set SO_PREFER_BUSY_POLL may have the CQ event left off:
 * when the event's poll finds that such a caller drained the CQ within
 * the last IBT_CONN_DEFER_US, it does not re-arm the CQ ("disarmed") but
 * starts @rearm, so that arriving messages cost no CQ event (on rxe: no
 * completion tasklet) while the caller keeps finding them itself.  The
 * timer follows the caller: while it keeps draining, the timer only moves
 * itself to IBT_CONN_DEFER_US after the last drain (a hard interrupt, no
 * softirq, no look at the CQ), as a feed's does (poll.c).  Once no such
 * caller has drained for that long, it hands the CQ back to the softirq
 * poll, which re-arms it; every path that may sleep
 * (ibt_conn_poll_sleep(): a waiting send or recv, poll() without both
 * EPOLLIN and EPOLLOUT) re-arms it at once (or, racing with a disarm,
 * the timer does).  So a reader that stops spinning without sleeping here
 * (a mapped reader, an edge-triggered epoll waiter) waits at most
 * IBT_CONN_DEFER_US more for the next message.
 *
 * Both run the completions' handlers (conn_ib.c), which write the ring:
 * poll_lock lets one of them drain at a time, so the ring keeps one
 * producer.  The softirq poll waits for it (a caller holds it for one
 * batch, BH off); a caller only tries.  Callers never arm the CQ: the
 * softirq poll (or the CQ event) does, or leaves it to @rearm, so nothing
 * a caller leaves is stranded.
 * @poll_off is true from the socket's creation until the CQ exists, and
 * again from teardown on (irq_poll_disable(), then @poll_off under the
 * lock): a caller on a socket still connecting, or failed, drains nothing.
 */
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/irq_poll.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <net/busy_poll.h>

#include "conn.h"
#include "ibt.h"

#define IBT_CONN_POLL_BATCH	16
/* how long a preferring spinner keeps the CQ event off after it drained */
#define IBT_CONN_DEFER_US	200

/*
 * Drain up to @budget completions; poll_lock held, BH off.  @count: the
 * drainer's counter (cqe_irq or cqe_caller), or NULL at teardown.
 */
static int ibt_conn_drain(struct ibt_csock *cs, int budget, u64 *count)
{
	struct ib_wc wc[IBT_CONN_POLL_BATCH];
	int done = 0, n, i;

	while (done < budget) {
		n = ib_poll_cq(cs->ib.cq, min(budget - done,
					      IBT_CONN_POLL_BATCH), wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			wc[i].wr_cqe->done(cs->ib.cq, &wc[i]);
		done += n;
		if (n < IBT_CONN_POLL_BATCH)
			break;
	}
	if (count && done)
		WRITE_ONCE(*count, *count + done);
	return done;
}

/*
 * How long a preferring spinner's last drain still keeps the CQ event off,
 * in ns; 0 when it no longer does (none, too long ago, or the socket gave
 * up SO_PREFER_BUSY_POLL).  local_clock() may differ a little between
 * CPUs: at worst the CQ is armed a little early (an event more) or late
 * (the timer follows the skew), never a completion stranded.  Context: any.
 */
static u64 ibt_conn_defer_left(struct ibt_csock *cs)
{
	u64 spun = READ_ONCE(cs->ib.spin_ns);
	s64 left;

	if (!spun || !READ_ONCE(cs->sk.sk_prefer_busy_poll))
		return 0;
	left = (s64)(spun + IBT_CONN_DEFER_US * NSEC_PER_USEC - local_clock());
	return left > 0 ? left : 0;
}

/*
 * After a drain that emptied the CQ: arm it for the next event, or, while
 * a preferring spinner is at it, leave it off until @rearm.  True when
 * completions came before the arm (poll again).  poll_lock held.
 */
static bool ibt_conn_arm(struct ibt_csock *cs)
{
	u64 left;

	if (cs->ib.poll_off)
		return false;
	left = ibt_conn_defer_left(cs);
	if (left) {
		WRITE_ONCE(cs->ib.disarmed, true);
		/* not hrtimer_active(): true while its callback runs */
		if (!hrtimer_is_queued(&cs->ib.rearm))
			hrtimer_start(&cs->ib.rearm, ns_to_ktime(left),
				      HRTIMER_MODE_REL);
		return false;
	}
	WRITE_ONCE(cs->ib.disarmed, false);
	return ib_req_notify_cq(cs->ib.cq, IB_CQ_NEXT_COMP |
				IB_CQ_REPORT_MISSED_EVENTS) > 0;
}

static int ibt_conn_irq_poll(struct irq_poll *iop, int budget)
{
	struct ibt_csock *cs = container_of(iop, struct ibt_csock, ib.iop);
	int done;

	spin_lock(&cs->ib.poll_lock);
	WRITE_ONCE(cs->ib.irq_polls, cs->ib.irq_polls + 1);
	done = cs->ib.poll_off ? 0 :
	       ibt_conn_drain(cs, budget, &cs->ib.cqe_irq);
	if (done < budget) {
		irq_poll_complete(iop);
		if (ibt_conn_arm(cs))
			irq_poll_sched(iop);	/* came before the arm */
	}
	spin_unlock(&cs->ib.poll_lock);
	return done;
}

/*
 * @rearm.  While the spinner keeps draining, follow it: start again for
 * the end of its time, here, with no softirq (hrtimer_start(), not RESTART
 * with a new expiry: ibt_conn_arm() may start the timer on another CPU
 * meanwhile, and only hrtimer_start() takes the base's lock).  Else the
 * softirq poll decides whether to arm the CQ now.  ibt_conn_cq_stop()'s
 * hrtimer_cancel() waits for this and takes off what it started.
 * It does not skip its work when @disarmed reads false (the CQ armed
 * since): ibt_conn_arm() sets @disarmed and then finds the timer still
 * queued, with no barrier between, so this may read the old false while
 * the CQ is left off; the softirq poll's look settles it either way.
 * Context: hard interrupt (a softirq on PREEMPT_RT).
 */
static enum hrtimer_restart ibt_conn_rearm(struct hrtimer *t)
{
	struct ibt_csock *cs = container_of(t, struct ibt_csock, ib.rearm);
	u64 left = ibt_conn_defer_left(cs);

	if (left && !READ_ONCE(cs->ib.poll_off)) {
		hrtimer_start(t, ns_to_ktime(left), HRTIMER_MODE_REL);
		return HRTIMER_NORESTART;
	}
	irq_poll_sched(&cs->ib.iop);	/* a no-op once teardown disabled it */
	return HRTIMER_NORESTART;
}

void ibt_conn_poll_init(struct ibt_csock *cs)
{
	spin_lock_init(&cs->ib.poll_lock);
	cs->ib.poll_off = true;		/* until the CQ exists */
	atomic64_set(&cs->ib.cq_events, 0);
	hrtimer_init(&cs->ib.rearm, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cs->ib.rearm.function = ibt_conn_rearm;
}

/*
 * A caller may sleep waiting for the CQ event: a CQ left disarmed for a
 * spinner (maybe this caller, a moment ago) is armed now, by the softirq
 * poll, which runs at local_bh_enable() here.  Context: process.
 */
void ibt_conn_poll_sleep(struct ibt_csock *cs)
{
	if (!READ_ONCE(cs->ib.disarmed))
		return;
	WRITE_ONCE(cs->ib.spin_ns, 0);
	local_bh_disable();
	irq_poll_sched(&cs->ib.iop);
	local_bh_enable();
}

/*
 * CQ event.  Where the driver calls it in softirq context with nothing of
 * its own held (rxe: ibt_comp_direct_ok(), poll.c), drain and re-arm here,
 * a softirq fewer per message; elsewhere, and when a caller is draining
 * (it never arms), the softirq poll does it.
 */
static void ibt_conn_cq_comp(struct ib_cq *cq, void *ctx)
{
	struct ibt_csock *cs = ctx;
	bool again = true;

	atomic64_inc(&cs->ib.cq_events);
	if (ibt_comp_direct_ok(cs->ib.dev) &&
	    spin_trylock(&cs->ib.poll_lock)) {
		again = false;
		if (!cs->ib.poll_off &&
		    (ibt_conn_drain(cs, IBT_CONN_POLL_BATCH,
				    &cs->ib.cqe_irq) >=
		     IBT_CONN_POLL_BATCH || ibt_conn_arm(cs)))
			again = true;	/* more, or came before the arm */
		spin_unlock(&cs->ib.poll_lock);
	}
	if (again)
		irq_poll_sched(&cs->ib.iop); /* a no-op once teardown disabled it */
}

static void ibt_conn_cq_event(struct ib_event *ev, void *ctx)
{
	struct ibt_csock *cs = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		ibt_conn_async_error(cs);	/* any context: no dlock */
}

int ibt_conn_cq_create(struct ibt_csock *cs, u32 entries)
{
	struct ib_cq_init_attr cqa = { .cqe = entries };
	struct ib_cq *cq;

	cq = ib_create_cq(cs->ib.dev, ibt_conn_cq_comp, ibt_conn_cq_event, cs,
			  &cqa);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	cs->ib.cq = cq;
	irq_poll_init(&cs->ib.iop, IBT_CONN_POLL_BATCH, ibt_conn_irq_poll);
	spin_lock_bh(&cs->ib.poll_lock);
	WRITE_ONCE(cs->ib.poll_off, false);	/* callers may drain it now */
	spin_unlock_bh(&cs->ib.poll_lock);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return 0;
}

/*
 * Stop every poller, after draining what the CQ holds (receives the peer
 * saw acknowledged go to the ring, even on a failed connection).
 */
void ibt_conn_cq_stop(struct ibt_csock *cs)
{
	irq_poll_disable(&cs->ib.iop);	/* waits for a running poll */
	spin_lock_bh(&cs->ib.poll_lock);
	/* bounded: a peer may keep sending what needs no credit */
	if (!cs->ib.poll_off)
		ibt_conn_drain(cs, cs->ib.rq_size + IBT_CONN_SQ, NULL);
	WRITE_ONCE(cs->ib.poll_off, true);	/* callers: the lock orders it */
	spin_unlock_bh(&cs->ib.poll_lock);
	/*
	 * started under poll_lock only while !poll_off, or by @rearm itself,
	 * which hrtimer_cancel() waits for and then dequeues: none from here
	 */
	hrtimer_cancel(&cs->ib.rearm);
}

void ibt_conn_cq_destroy(struct ibt_csock *cs)
{
	ib_destroy_cq(cs->ib.cq);
	cs->ib.cq = NULL;
}

/*
 * Drain what the CQ holds now, waiting for a poller at it (the cm handler,
 * before it judges a disconnect by what arrived).  Context: process.
 */
void ibt_conn_drain_now(struct ibt_csock *cs)
{
	spin_lock_bh(&cs->ib.poll_lock);
	if (!cs->ib.poll_off)
		ibt_conn_drain(cs, cs->ib.rq_size + IBT_CONN_SQ,
			       &cs->ib.cqe_caller);
	spin_unlock_bh(&cs->ib.poll_lock);
}

/*
 * A caller drains the CQ once, if nobody else is at it.  Context: process,
 * with rlock or slock (so the connection's verbs resources are there: they
 * go under lock, after ibt_conn_cq_stop()).  True when it drained any.
 */
bool ibt_conn_poll_direct(struct ibt_csock *cs)
{
	int done = 0;

	if (!spin_trylock_bh(&cs->ib.poll_lock))
		return false;	/* someone drains it now */
	if (!cs->ib.poll_off) {
		done = ibt_conn_drain(cs, IBT_CONN_POLL_BATCH,
				      &cs->ib.cqe_caller);
		if (READ_ONCE(cs->sk.sk_prefer_busy_poll))
			WRITE_ONCE(cs->ib.spin_ns, local_clock());
	}
	spin_unlock_bh(&cs->ib.poll_lock);
	return done > 0;
}

/*
 * SO_BUSY_POLL: drain from here for up to sk_ll_usec (never longer than
 * @timeo) until @ready says so.  True when @ready became true.
 */
bool ibt_conn_busy_wait(struct ibt_csock *cs, long timeo,
			bool (*ready)(struct ibt_csock *cs))
{
	unsigned int usec = READ_ONCE(cs->sk.sk_ll_usec);
	u64 end;

	if (!usec)
		return false;
	end = local_clock() + min_t(u64, (u64)usec * NSEC_PER_USEC,
				    (u64)jiffies_to_nsecs(timeo));
	do {
		ibt_conn_poll_direct(cs);
		if (ready(cs))
			return true;
		cpu_relax();
	} while (local_clock() < end && !signal_pending(current) &&
		 !need_resched());
	return false;
}
