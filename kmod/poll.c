// SPDX-License-Identifier: GPL-2.0
/*
 * Who drains a feed's receive CQ, and when: the poll modes.
 *
 * Exactly one context at a time may drain the CQ (the ring has one
 * producer).  That context owns the CQ: it holds the IBT_POLL_OWNED bit of
 * f->poll_state, taken with test_and_set_bit_lock() and dropped by
 * ibt_poll_unlock().  Three kinds of owner:
 *
 *  - the softirq poll (irq_poll, IRQ mode): scheduled by the CQ event,
 *    drains, re-arms with REPORT_MISSED_EVENTS.  When the driver calls the
 *    CQ event in softirq context (rxe), the event drains and re-arms
 *    itself, the same way, one softirq fewer per tick (ibt_rx_comp); the
 *    softirq poll then only takes what exceeds its budget, MISSED, and the
 *    busy caller's deferred re-arm;
 *  - the busy-poll thread (BUSY mode): owns the CQ while it spins, with the
 *    CQ event left disarmed, also while it yields to the scheduler; it
 *    hands the CQ back (re-armed) while the feed has no subscribed socket
 *    and when it stops;
 *  - a caller spinning with SO_BUSY_POLL in recvmsg (IRQ mode): owns it,
 *    with preemption off, for the length of its spin or until the
 *    scheduler wants the CPU (recvmsg then yields and takes it again).  With
 *    busy_poll_defer_us set, or SO_PREFER_BUSY_POLL on its socket (then
 *    the feed's prefer_defer_us, else IBT_BUSY_PREFER_US unless the
 *    parameter says otherwise), it leaves
 *    the CQ disarmed when it goes, as SO_PREFER_BUSY_POLL leaves a NAPI
 *    instance: the next busy call finds the ticks that came meanwhile
 *    without a CQ event, a softirq or a re-arm on the way.  Until that
 *    time (rearm_at) is over, neither the CQ event nor the softirq poll
 *    re-arms the CQ when it lets it go.  A timer (rearm_timer), started
 *    only when not queued, brings the softirq poll back at the end -
 *    drain, re-arm - if no caller came within that time, so sleeping
 *    readers of the feed wait at most that long more.  A caller about to
 *    sleep ends the defer time and re-arms at once (another context
 *    owning the CQ then: the softirq poll re-arms it).
 *
 * Arming an armed CQ is not free (rxe: its lock, with interrupts off), and
 * a program spinning on MSG_DONTWAIT lets the CQ go, wanting the event,
 * on every look.  IBT_POLL_ARMED says the event is armed or on its way:
 * set before the arming (the event it arms can only clear it after),
 * cleared first thing by the event (ibt_rx_comp), whatever it then does.
 * While it is set, an owner letting the CQ go skips the arming: every
 * completion since that arming raises the event, and those before it were
 * reported (REPORT_MISSED_EVENTS) to the softirq poll then.  Set wrongly
 * it would leave a sleeper waiting, so it errs the other way: a clear bit
 * only costs an arming more.
 *
 * A CQ event that finds the CQ owned must not be lost: the softirq poll
 * completes (so that it can be scheduled again), sets IBT_POLL_MISSED and
 * tries once more (a draining CQ event does the same, without the
 * completing); the owner, after dropping the bit, looks at MISSED and
 * reschedules the softirq poll.  The two sides are ordered by full
 * barriers (set, mb, test - as Dekker), so one of them always sees the
 * other.  The owner re-arms the CQ while it still owns it:
 * teardown (feed.c) takes the bit for good before destroying the CQ, so an
 * owner never touches a destroyed CQ.
 *
 * Locking: f->poll_lock serialises mode changes and the thread's start and
 * stop (it is taken under ibt_feeds_lock by teardown, under the socket lock
 * by setsockopt).  The thread itself takes no lock.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/version.h>

#include "ibt.h"

#define IBT_POLL_THREAD_BUDGET	64

/*
 * How long (µs) a CQ that an SO_BUSY_POLL caller drained stays disarmed
 * for the next busy call; 0 (the default) re-arms it as the caller goes.
 */
static unsigned int busy_poll_defer_us;
module_param(busy_poll_defer_us, uint, 0644);
MODULE_PARM_DESC(busy_poll_defer_us, "leave the receive CQ disarmed this long (us) after an SO_BUSY_POLL caller drained it (default 0: re-arm at once; a socket with SO_PREFER_BUSY_POLL: the feed's prefer-defer, else this, else 200 us)");

/* The defer time of a caller whose socket has SO_PREFER_BUSY_POLL. */
#define IBT_BUSY_PREFER_US	200

/*
 * Drain the receive CQ in the CQ event itself when the driver calls it in
 * softirq context (ibt_rx_comp); off, the event always schedules the
 * softirq poll.  At most IBT_RX_WEIGHT completions per event (the softirq
 * poll's weight), the rest in the softirq poll.
 */
static bool rx_comp_drain = true;
module_param(rx_comp_drain, bool, 0644);
MODULE_PARM_DESC(rx_comp_drain, "drain the receive CQ (a feed's, a connection's) in its completion event when the driver (rxe) calls it in softirq context, saving a softirq per tick (default on)");

/* Take the CQ without leaving a trace when it is owned. */
static bool ibt_poll_trylock(struct ibt_feed *f)
{
	return !test_and_set_bit_lock(IBT_POLL_OWNED, &f->poll_state);
}

/*
 * Let the CQ go.  With @rearm (the CQ event is wanted again), arm it first,
 * while the CQ is certainly alive, and reschedule the softirq poll for
 * completions that came before the arming or events that found us owning.
 * The reschedule runs with BH off so that, from process context, the poll
 * runs at local_bh_enable() rather than when ksoftirqd gets the CPU.
 */
static void ibt_poll_unlock(struct ibt_feed *f, bool rearm)
{
	bool again = false;
	int ret;

	if (rearm && ibt_feed_live(f) &&
	    !test_and_set_bit(IBT_POLL_ARMED, &f->poll_state)) {
		/* (a full barrier: ARMED set before the device is told) */
		ret = ib_req_notify_cq(f->rcq, IB_CQ_NEXT_COMP |
				       IB_CQ_REPORT_MISSED_EVENTS);
		if (ret < 0)
			clear_bit(IBT_POLL_ARMED, &f->poll_state);
		again = ret > 0;
	}
	clear_bit_unlock(IBT_POLL_OWNED, &f->poll_state);
	smp_mb__after_atomic();		/* OWNED before MISSED, vs ibt_rx_poll */
	if (test_and_clear_bit(IBT_POLL_MISSED, &f->poll_state))
		again = true;
	if (again) {
		local_bh_disable();
		irq_poll_sched(&f->iop);	/* a no-op once teardown disabled it */
		local_bh_enable();
	}
}

/*
 * While a busy caller's defer time runs (rearm_at, set as it lets the CQ
 * go), the CQ event stays off: the caller takes the ticks.  The timer is
 * kept queued to the end of that time, so that the softirq poll comes to
 * look again and re-arms once no caller came back.  Without this, an event
 * armed before the caller came (the last sleeper's) would fire after the
 * caller had drained its tick, find nothing, and arm again: the chain of
 * events the defer time is there to break.  The timer is started only when
 * it is not queued (not hrtimer_active(): true while its callback runs,
 * which may have decided on the softirq poll already; starting it again
 * then costs one more look).  Context: any.
 */
static void ibt_poll_keep_timer(struct ibt_feed *f, u64 left_ns)
{
	if (!hrtimer_is_queued(&f->rearm_timer))
		hrtimer_start(&f->rearm_timer, ns_to_ktime(left_ns),
			      HRTIMER_MODE_REL);
}

/*
 * Whether the CQ event is wanted as the softirq poll or the CQ event lets
 * the CQ go: not while a busy caller's defer time runs (the timer kept for
 * its end).  local_clock() may differ a little between CPUs: at worst
 * the CQ is armed a little early (an event more) or late (the timer
 * follows the skew), never a tick lost.
 */
static bool ibt_poll_event_wanted(struct ibt_feed *f)
{
	u64 at = READ_ONCE(f->rearm_at);
	s64 left;

	if (!at)
		return true;
	left = (s64)(at - local_clock());
	if (left <= 0)
		return true;
	ibt_poll_keep_timer(f, left);
	return false;
}

/* The softirq poll (IRQ mode), scheduled by the CQ event. */
int ibt_rx_poll(struct irq_poll *iop, int budget)
{
	struct ibt_feed *f = container_of(iop, struct ibt_feed, iop);
	int done;

	if (!ibt_poll_trylock(f)) {
		/*
		 * Owned: leave MISSED for the owner, whose unlock reschedules
		 * us.  Complete first, so that its irq_poll_sched() finds
		 * SCHED clear; then MISSED; then try once more, in case the
		 * owner let go before it could see MISSED (set, mb, test on
		 * both sides, as Dekker).  If we get it now, our own unlock
		 * sees our MISSED and reschedules the poll.
		 */
		irq_poll_complete(iop);
		smp_mb__after_atomic();	/* SCHED clear before MISSED set */
		set_bit(IBT_POLL_MISSED, &f->poll_state);
		smp_mb__after_atomic();	/* MISSED before OWNED, vs unlock */
		if (ibt_poll_trylock(f))
			ibt_poll_unlock(f, ibt_poll_event_wanted(f));
		return 0;
	}
	done = ibt_rx_drain(f, budget, IBT_RX_IRQ);
	if (done >= budget) {
		/* irq_poll calls again; let a spinning caller in meanwhile */
		ibt_poll_unlock(f, false);
		return done;
	}
	irq_poll_complete(iop);
	/*
	 * SCHED clear before rearm_at is read: a sleeping caller that ended
	 * the deferral without owning the CQ (ibt_poll_caller) writes
	 * rearm_at, then schedules us; either it finds SCHED clear and we
	 * run again, or we read its rearm_at here
	 */
	smp_mb__after_atomic();
	ibt_poll_unlock(f, ibt_poll_event_wanted(f));
	return done;
}

/*
 * A busy caller left the CQ disarmed.  If a caller came back since
 * (rearm_at moved on), follow it: start again for the end of its time,
 * here, in the hard interrupt, without a softirq (hrtimer_start(), not
 * RESTART with new expiry: an owner may start the timer on another CPU
 * meanwhile, and only hrtimer_start() takes the base's lock).  If none
 * did, let the softirq poll drain and re-arm the CQ, or start the timer
 * again if a caller comes back before it runs (ibt_poll_event_wanted());
 * should a caller own the CQ right now, it leaves MISSED for it.
 * Context: hard interrupt (hrtimer; a softirq on PREEMPT_RT).
 */
static enum hrtimer_restart ibt_poll_rearm_timer(struct hrtimer *t)
{
	struct ibt_feed *f = container_of(t, struct ibt_feed, rearm_timer);
	s64 left = (s64)(READ_ONCE(f->rearm_at) - local_clock());

	if (left > 0 && !test_bit(IBT_POLL_SEIZED, &f->poll_state)) {
		hrtimer_start(t, ns_to_ktime(left), HRTIMER_MODE_REL);
		return HRTIMER_NORESTART;
	}
	irq_poll_sched(&f->iop);	/* a no-op once teardown disabled it */
	return HRTIMER_NORESTART;
}

/*
 * A busy caller lets the CQ go.  Without a defer time, as any owner: armed.
 * With one: disarmed, the timer set.  What MISSED said until now can be
 * forgotten (the event fired, so the CQ is disarmed, and the timer drains
 * what it announced); what sets it from here on - an event, or the timer
 * itself firing while we still own the CQ - is looked at after OWNED is
 * dropped, as in ibt_poll_unlock(), so that nothing is left waiting.
 */
static void ibt_poll_unlock_caller(struct ibt_feed *f, bool prefer)
{
	unsigned int defer = READ_ONCE(busy_poll_defer_us);
	u32 own = READ_ONCE(f->prefer_defer_us);

	if (prefer && own != IBTICK_PREFER_DEFER_DEFAULT)
		defer = own;	/* the feed's own, 0 included */
	else if (!defer && prefer)
		defer = IBT_BUSY_PREFER_US;

	if (!defer || !ibt_feed_live(f)) {
		WRITE_ONCE(f->rearm_at, 0);
		ibt_poll_unlock(f, true);
		return;
	}
	clear_bit(IBT_POLL_MISSED, &f->poll_state);
	/*
	 * One clock read per call; the timer is reprogrammed only when it is
	 * not already queued (it fires at the old end and starts itself
	 * again for the new one).  A queued timer keeps its end when the
	 * parameter is lowered: the CQ stays off at most the old time.
	 */
	WRITE_ONCE(f->rearm_at, local_clock() + (u64)defer * NSEC_PER_USEC);
	ibt_poll_keep_timer(f, (u64)defer * NSEC_PER_USEC);
	ibt_poll_unlock(f, false);
}

/*
 * Whether the CQ event may drain the CQ itself rather than schedule the
 * softirq poll.  Only where that adds nothing the softirq poll would not
 * do: in softirq context (not a hard interrupt, where real HCAs such as
 * mlx5 call the handler: those keep the softirq poll), and from a driver
 * known to call the handler there holding none of its own locks, so that
 * polling, reposting and re-arming from inside it cannot deadlock.  That is
 * rxe as 6.1 has it: rxe_cq_post() schedules the CQ's own tasklet
 * (comp_task), which calls the handler with nothing held.  Later rxe calls
 * the handler straight from rxe_cq_post(), from its tasks, which may run in
 * process context; that has not been checked here, so those kernels keep
 * the softirq poll until it is.
 */
bool ibt_comp_direct_ok(const struct ib_device *dev)
{
	if (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0))
		return false;
	return READ_ONCE(rx_comp_drain) && in_serving_softirq() &&
	       !in_hardirq() && !in_nmi() &&
	       dev->ops.driver_id == RDMA_DRIVER_RXE;
}

static bool ibt_rx_comp_direct_ok(const struct ibt_feed *f)
{
	return ibt_comp_direct_ok(f->dev->ibdev);
}

/*
 * CQ event.  Context: the device's completion interrupt, or a softirq
 * (rxe: its CQ tasklet).
 *
 * In a hard interrupt, or from a driver not known to be safe, it only
 * schedules the softirq poll, as ib_core's IB_POLL_SOFTIRQ does.  In
 * softirq context from rxe it drains at once (ibt_rx_comp_direct_ok): the
 * softirq poll would only run one hop later in the same softirq pass (or
 * in ksoftirqd), one more softirq per tick for nothing.  The direct drain
 * is the softirq poll's, by the same protocol: it owns the CQ while it
 * drains (IBT_POLL_OWNED); finding it owned it leaves MISSED for the owner
 * and tries once more (Dekker, as ibt_rx_poll()); its budget is the softirq
 * poll's weight, and what exceeds it is left to the softirq poll, the CQ
 * still disarmed.  Teardown holds OWNED for good (SEIZED), so after
 * ibt_poll_seize() this drains nothing and re-arms nothing; a handler still
 * running is waited for by the quiesce's synchronize_rcu() (a softirq is
 * an RCU read-side section).  Its completions count as cqe_irq: drained in
 * softirq context by the event's side.
 */
void ibt_rx_comp(struct ib_cq *cq, void *ctx)
{
	struct ibt_feed *f = ctx;
	int done;

	atomic64_inc(&f->st.cq_events);
	/*
	 * The arming is used up: whoever lets the CQ go next arms again.  The
	 * driver's own record of the event (mlx5: arm_sn, written before it
	 * calls us) must be seen before the bit is: an owner that finds ARMED
	 * clear arms with what the driver knows then.
	 */
	smp_mb__before_atomic();
	clear_bit(IBT_POLL_ARMED, &f->poll_state);
	if (!ibt_rx_comp_direct_ok(f)) {
		irq_poll_sched(&f->iop);
		return;
	}
	if (!ibt_poll_trylock(f)) {
		/*
		 * Owned (by a caller, the thread, the softirq poll or
		 * teardown): MISSED for the owner, whose unlock reschedules the
		 * softirq poll; then try once more in case it let go before it
		 * could see MISSED.  Getting it now, our unlock sees our MISSED
		 * and schedules the softirq poll, which drains.
		 */
		set_bit(IBT_POLL_MISSED, &f->poll_state);
		smp_mb__after_atomic();	/* MISSED before OWNED, vs unlock */
		if (ibt_poll_trylock(f))
			ibt_poll_unlock(f, ibt_poll_event_wanted(f));
		return;
	}
	done = ibt_rx_drain(f, IBT_RX_WEIGHT, IBT_RX_IRQ);
	if (done >= IBT_RX_WEIGHT) {
		/* more: the softirq poll goes on (it re-arms when done) */
		ibt_poll_unlock(f, false);
		irq_poll_sched(&f->iop);
		return;
	}
	ibt_poll_unlock(f, ibt_poll_event_wanted(f));
}

/*
 * SO_BUSY_POLL from recvmsg: spin until a tick past @cursor is in the
 * ring, the feed dies, the scheduler or a signal wants the CPU, or
 * local_clock() passes @end_ns.  When nobody else owns the CQ, drain it
 * from here (no CQ event, no softirq, no wake-up on the way); otherwise
 * just watch the ring.  True when a tick arrived.
 *
 * @end_ns 0: one look, for a non-blocking call (or one pass of a spin over
 * several feeds) that will be back whatever it finds: the CQ is let go as
 * after a tick, so that with @prefer its event stays off between the
 * looks of a program that spins on MSG_DONTWAIT, as the networking core
 * does for a non-blocking busy-polling UDP socket.  Any @end_ns already
 * past: one look by a caller about to sleep, which wants the event back.
 * Context: process, no lock held (an RCU read-side section is fine: it
 * never sleeps).
 */
bool ibt_poll_caller(struct ibt_feed *f, u64 cursor, u64 end_ns, bool prefer,
		     bool back)
{
	bool owned = false, got = false, yields = false;

	do {
		/* an arbitrated feed has no CQ: its rails' events fill it */
		if (!owned && !f->arb &&
		    READ_ONCE(f->poll_mode) == IBTICK_POLL_IRQ) {
			/* not preempted while the whole feed waits on us */
			preempt_disable();
			owned = ibt_poll_trylock(f);
			if (!owned)
				preempt_enable();
			else if (!ibt_feed_live(f))
				break;
		}
		if (owned) {
			local_bh_disable();
			ibt_rx_drain(f, IBT_RX_BATCH, IBT_RX_CALLER);
			local_bh_enable();
		}
		if (ibt_ring_backlog(&f->ring, cursor)) {
			got = true;
			break;
		}
		if (!ibt_feed_live(f))
			break;	/* let teardown seize the CQ; DEAD wakes us */
		/*
		 * Not cond_resched() and spin on here: from poll() the spin's
		 * time is the socket's SO_BUSY_POLL (whatever an admin set, up
		 * to INT_MAX us, and not bounded by poll()'s timeout), so a
		 * spin that yields and goes on would keep its CPU and its
		 * caller that long (the syscall fuzzer found it).  recvmsg
		 * yields and calls again (ibt_busy_wait()), for its
		 * SO_BUSY_POLL time or its receive timeout, the shorter, as
		 * napi_busy_loop() does: a reader with no SO_RCVTIMEO and an
		 * admin's huge SO_BUSY_POLL stays runnable that long, until a
		 * signal.
		 */
		if (signal_pending(current))
			break;
		if (need_resched()) {
			/* others asleep on the feed want the event (ibt_wait) */
			yields = back && !wq_has_sleeper(&f->wq);
			break;
		}
		cpu_relax();
	} while (local_clock() < end_ns);
	if (owned) {
		/*
		 * With a tick the caller will be back: the deferred re-arm.
		 * So too when it yields to the scheduler and spins on, as
		 * napi_busy_loop() leaves a preferred NAPI instance deferred
		 * when it stops for need_resched(): should it stay away, the
		 * timer brings the softirq poll at the defer time's end.
		 * Without either it is about to sleep: the event is wanted
		 * now, and the defer time is over.
		 */
		if (got || !end_ns || yields) {
			ibt_poll_unlock_caller(f, prefer);
		} else {
			WRITE_ONCE(f->rearm_at, 0);
			ibt_poll_unlock(f, true);
		}
		preempt_enable();
	} else if (!got && end_ns && !yields && READ_ONCE(f->rearm_at)) {
		/*
		 * About to sleep, the CQ owned by another context all along
		 * (the softirq poll, the CQ event's drain): the deferral an
		 * earlier call left must end now, as when we let the CQ go,
		 * or the owner may let it go disarmed and this sleeper wait
		 * for the timer.  The softirq poll re-arms it (the event is
		 * wanted from here), or, the CQ still owned, sets MISSED for
		 * the owner to bring it back.  Should that owner be another
		 * busy caller, it defers again as it goes (its own call), and
		 * this sleeper is woken by that caller's drains instead: any
		 * drain that fills the ring wakes the feed's queue.
		 */
		WRITE_ONCE(f->rearm_at, 0);
		local_bh_disable();
		irq_poll_sched(&f->iop);	/* a no-op once teardown disabled it */
		local_bh_enable();
	}
	return got;
}

/*
 * The busy-poll thread.  Owns the CQ while the feed has subscribers; gives
 * it back, re-armed, while there are none and when stopped.
 */
static int ibt_poll_thread(void *arg)
{
	struct ibt_feed *f = arg;
	bool owned = false;
	u64 t0 = 0, now;
	int n;

	while (!kthread_should_stop()) {
		if (!atomic_read(&f->readers) || !ibt_feed_live(f)) {
			if (owned) {
				WRITE_ONCE(f->st.poll_busy_ns, f->st.poll_busy_ns +
					   local_clock() - t0);
				ibt_poll_unlock(f, true);
				owned = false;
			}
			wait_event_interruptible(f->poll_wq,
						 (atomic_read(&f->readers) &&
						  ibt_feed_live(f)) ||
						 kthread_should_stop());
			continue;
		}
		if (!owned) {
			if (!ibt_poll_trylock(f)) {
				cond_resched_tasks_rcu_qs(); /* a poll is finishing */
				continue;
			}
			owned = true;
			t0 = local_clock();
		}
		n = ibt_rx_drain(f, IBT_POLL_THREAD_BUDGET, IBT_RX_THREAD);
		WRITE_ONCE(f->st.poll_loops, f->st.poll_loops + 1);
		if (!n)
			WRITE_ONCE(f->st.poll_empty, f->st.poll_empty + 1);
		if (need_resched()) {
			/*
			 * Yield, keeping the CQ (as threaded NAPI does): the
			 * admin gave us this CPU; ticks wait in the CQ and the
			 * 1024-deep RQ meanwhile, and if it runs dry that is
			 * counted (feed_rq_empty).  Time off CPU is not busy.
			 */
			now = local_clock();
			WRITE_ONCE(f->st.poll_busy_ns,
				   f->st.poll_busy_ns + now - t0);
			WRITE_ONCE(f->st.poll_yields, f->st.poll_yields + 1);
			cond_resched_tasks_rcu_qs();
			t0 = local_clock();
			continue;
		}
		/*
		 * A task that never sleeps voluntarily holds up RCU-Tasks
		 * (ftrace, BPF trampolines, livepatch): report a quiescent
		 * state now and then, as threaded NAPI does.
		 */
		if (!(f->st.poll_loops & 1023))
			cond_resched_tasks_rcu_qs();
		cpu_relax();
	}
	if (owned) {
		WRITE_ONCE(f->st.poll_busy_ns,
			   f->st.poll_busy_ns + local_clock() - t0);
		ibt_poll_unlock(f, true);
	}
	return 0;
}

void ibt_poll_init(struct ibt_feed *f)
{
	mutex_init(&f->poll_lock);
	init_waitqueue_head(&f->poll_wq);
	f->poll_mode = IBTICK_POLL_IRQ;
	f->poll_cpu = -1;
	f->prefer_defer_us = IBTICK_PREFER_DEFER_DEFAULT;
	hrtimer_init(&f->rearm_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	f->rearm_timer.function = ibt_poll_rearm_timer;
}

/* Stop the busy-poll thread, if any.  poll_lock held. */
static void ibt_poll_stop_locked(struct ibt_feed *f)
{
	lockdep_assert_held(&f->poll_lock);
	if (f->poll_thread) {
		kthread_stop(f->poll_thread);	/* gives the CQ back */
		put_task_struct(f->poll_thread);
		f->poll_thread = NULL;
	}
	WRITE_ONCE(f->poll_mode, IBTICK_POLL_IRQ);
	f->poll_cpu = -1;
}

/*
 * Switch the feed to @mode (IBTICK_POLL_*), with the busy-poll thread on
 * @cpu (-1: any).  Returns -EINVAL for an unknown mode or a CPU that is
 * not online, -ENODEV for a dead feed.  Context: process.
 */
int ibt_poll_set_mode(struct ibt_feed *f, u32 mode, s32 cpu)
{
	struct task_struct *t;
	int err = 0;

	if (mode != IBTICK_POLL_IRQ && mode != IBTICK_POLL_BUSY)
		return -EINVAL;
	/* an arbitrated feed has no CQ to poll; its rails stay on events */
	if (f->arb || f->rail_of)
		return -EOPNOTSUPP;
	if (mode == IBTICK_POLL_IRQ)
		cpu = -1;
	else if (cpu < -1 || (cpu >= 0 && (cpu >= nr_cpu_ids ||
					   !cpu_online(cpu))))
		return -EINVAL;

	mutex_lock(&f->poll_lock);
	if (!ibt_feed_live(f)) {
		err = -ENODEV;
		goto out;
	}
	if (f->poll_mode == mode && f->poll_cpu == cpu && mode == IBTICK_POLL_IRQ)
		goto out;	/* BUSY again restarts the thread: re-pins it */
	ibt_poll_stop_locked(f);
	if (mode == IBTICK_POLL_IRQ)
		goto out;
	t = kthread_create(ibt_poll_thread, f, "ibtick-poll/%u", f->port);
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto out;
	}
	/*
	 * Bound while the CPU is online.  If it goes offline later the
	 * scheduler moves the thread elsewhere (and it stays unpinned until
	 * the mode is set again); poll_cpu says what was asked.
	 */
	cpus_read_lock();
	if (cpu >= 0 && !cpu_online(cpu)) {
		cpus_read_unlock();
		kthread_stop(t);
		err = -EINVAL;
		goto out;
	}
	if (cpu >= 0)
		kthread_bind(t, cpu);
	get_task_struct(t);
	f->poll_thread = t;
	WRITE_ONCE(f->poll_mode, mode);
	f->poll_cpu = cpu;
	wake_up_process(t);
	cpus_read_unlock();
out:
	mutex_unlock(&f->poll_lock);
	return err;
}

/* Back to IRQ mode for good: the feed is being torn down. */
void ibt_poll_stop(struct ibt_feed *f)
{
	mutex_lock(&f->poll_lock);
	ibt_poll_stop_locked(f);
	mutex_unlock(&f->poll_lock);
}

/*
 * Teardown: stop the thread and take the CQ for good, waiting for a
 * spinning caller or a softirq poll to let go (they see !live and do so
 * within one batch).  Called after f->live was cleared.  Context: process.
 */
void ibt_poll_seize(struct ibt_feed *f)
{
	ibt_poll_stop(f);
	if (test_bit(IBT_POLL_SEIZED, &f->poll_state))
		return;		/* defensive: teardown runs once per feed */
	while (!ibt_poll_trylock(f))
		usleep_range(50, 200);
	set_bit(IBT_POLL_SEIZED, &f->poll_state);
	/*
	 * Only an owner starts it (none will again), and the callback itself,
	 * which does not once SEIZED is set; hrtimer_cancel() waits for a
	 * callback running and removes what it queued.
	 */
	hrtimer_cancel(&f->rearm_timer);
}

/* A socket subscribed: a waiting busy-poll thread goes back to work. */
void ibt_poll_reader_added(struct ibt_feed *f)
{
	if (atomic_inc_return(&f->readers) == 1)
		wake_up_interruptible(&f->poll_wq);
}
