// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_IBTICK socket family: proto_ops over feeds.
 *
 * bind() subscribes the socket to a feed and starts its cursor at the feed's
 * producer index; recvmsg() reads the feed's ring from that cursor (one tick
 * per call); connect() (or sendto()) makes the socket a publisher on a feed.
 * Receiving costs the same whatever the number of sockets on a feed: there
 * is no per-socket queue, only a per-socket cursor into the shared ring.
 *
 * Locking: ibt_sock.lock serialises bind/connect/setsockopt and every
 * recvmsg/sendmsg of one socket (the cursor and the socket's counters).
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <net/sock.h>

#include "addr.h"
#include "conn.h"
#include "ibt.h"

int ibt_family = IBTICK_AF_DEFAULT;
module_param_named(family, ibt_family, int, 0444);
MODULE_PARM_DESC(family, "address family number of AF_IBTICK (default 25)");

static struct proto ibt_proto = {
	.name		= "IBTICK",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct ibt_sock),
};

static int ibt_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct ibt_sock *is;

	if (!sk)
		return 0;
	is = ibt_sk(sk);
	ibt_sock_list_del(is);	/* dumps see no socket without its feed */
	put_pid(is->tgid);	/* nothing reads it after the list */
	is->tgid = NULL;
	ibt_member_release(is);	/* bind()'s forwarding and sources too */
	if (is->feed) {
		if (is->subscribed && is->loopback)
			atomic_dec(&is->feed->loopback_readers);
		if (is->subscribed)
			atomic_dec(&is->feed->readers);
		if (is->publisher)
			atomic_dec(&is->feed->publishers);
		atomic_dec(&is->feed->nsocks);
		ibt_feed_put(is->feed);
		is->feed = NULL;
	}
	kfree(is->tx_stage);
	is->tx_stage = NULL;
	sock_orphan(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/*
 * Attach the socket to the feed of @uaddr (bind or connect) if the caller
 * may @want (IBT_ACL_READ: subscribe, IBT_ACL_WRITE: publish) there.
 * Lock held.
 */
static int ibt_attach(struct ibt_sock *is, struct sockaddr *uaddr, int len,
		      unsigned int want)
{
	struct ibt_feed_params p = {
		.nslots = is->nslots,
		.slot_size = is->slot_size,
		.comp_vector = is->comp_vector,
		.receive = want == IBT_ACL_READ,
	};
	struct ibt_addr a;
	struct ibt_feed *f;
	int err;

	err = ibt_addr_parse(uaddr, len, ibt_family, &a);
	if (err)
		return err;
	if (is->feed) {
		/* a socket may subscribe and publish, on one feed only */
		if (!ibt_addr_same(&a, &is->addr))
			return -EISCONN;
		/* an arbitrated feed is published on its rails' groups */
		if (want == IBT_ACL_WRITE && is->feed->arb)
			return -EOPNOTSUPP;
		/* sendto() on a publisher: asked already, unless the ACL moved */
		if (want == IBT_ACL_WRITE && is->publisher &&
		    READ_ONCE(is->feed->acl_gen) == is->pub_acl_gen)
			return 0;
		return ibt_feed_permission(is->feed, want,
					   want == IBT_ACL_WRITE ?
					   &is->pub_acl_gen : &is->sub.sub_acl_gen);
	}
	f = ibt_feed_get(&a, &p, NULL);
	if (IS_ERR(f))
		return PTR_ERR(f);
	err = ibt_feed_permission(f, want, want == IBT_ACL_WRITE ?
				  &is->pub_acl_gen : &is->sub.sub_acl_gen);
	if (err) {
		ibt_feed_put(f);
		return err;
	}
	atomic_inc(&f->nsocks);
	a.ifindex = f->ifindex;
	is->addr = a;
	smp_store_release(&is->feed, f);	/* for poll, which takes no lock */
	return 0;
}

/*
 * bind() on a socket that reads feeds already (IBTICK_ADD_FEED): not one
 * of them again, and not one too many.
 */
static int ibt_bind_check(struct ibt_sock *is, struct sockaddr *uaddr,
			  int len)
{
	struct ibt_members *mm = rcu_dereference_protected(is->more,
						lockdep_is_held(&is->lock));
	struct ibt_addr a;
	u32 i;
	int err;

	if (!mm)
		return 0;
	err = ibt_addr_parse(uaddr, len, ibt_family, &a);
	if (err)
		return err;
	if (mm->n >= IBTICK_FEEDS_PER_SOCKET)
		return -ENOBUFS;
	for (i = 0; i < mm->n; i++)
		if (ibt_addr_same(&a, &mm->m[i]->addr))
			return -EADDRINUSE;
	return 0;
}

static int ibt_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	int err;

	mutex_lock(&is->lock);
	if (is->subscribed) {
		err = -EINVAL;
		goto out;
	}
	err = ibt_bind_check(is, uaddr, len);
	if (err)
		goto out;
	err = ibt_attach(is, uaddr, len, IBT_ACL_READ);
	if (err)
		goto out;
	/* added already under its other name (by id, or by group) */
	if (ibt_member_reads_feed(is, is->feed)) {
		err = -EADDRINUSE;
		goto out;
	}
	/* a feed its publishers created joins fully for its first reader */
	err = ibt_feed_ib_receive(is->feed);
	if (err)
		goto out;
	if (is->source_cmsg) {
		err = ibt_member_sources(is->feed, true);	/* this one too */
		if (err)
			goto out;
	}
	is->sub.feed = is->feed;
	is->sub.is = is;
	is->sub.addr = is->addr;
	is->sub.cursor = ibt_ring_producer(&is->feed->ring);
	atomic_set(&is->sub.mappings, 0);
	smp_store_release(&is->subscribed, true);	/* cursor first, for poll */
	/*
	 * a multi-feed socket's sleepers: on its own queue, or on the one
	 * feed it read until now; they look again (member.c)
	 */
	if (rcu_access_pointer(is->more))
		ibt_member_bind_watched(is);
	if (is->loopback)
		atomic_inc(&is->feed->loopback_readers);
	ibt_poll_reader_added(is->feed);
out:
	mutex_unlock(&is->lock);
	return err;
}

static int ibt_publish_attach(struct ibt_sock *is, struct sockaddr *uaddr,
			      int len)
{
	int err;

	/* auto feeds want CAP_NET_RAW, admin feeds their ACL (feed.c) */
	err = ibt_attach(is, uaddr, len, IBT_ACL_WRITE);
	if (err)
		return err;
	if (!is->publisher) {
		/*
		 * The payload is copied from user space here, under the socket
		 * lock alone, and only then, from kernel memory, into the send
		 * buffer under the feed's tx_lock: a buffer that faults slowly
		 * (userfaultfd, FUSE, NFS) stalls its own socket, never the
		 * feed's teardown or anybody else.  Sized for the largest
		 * datagram once, so the send path allocates nothing.
		 */
		is->tx_stage = kmalloc(is->feed->wire_max, GFP_KERNEL_ACCOUNT);
		if (!is->tx_stage)
			return -ENOMEM;
		is->publisher = true;
		atomic_inc(&is->feed->publishers);
		is->pub_id = get_random_u32();
		is->pub_seq = 0;
	}
	return 0;
}

static int ibt_connect(struct socket *sock, struct sockaddr *uaddr, int len,
		       int flags)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	int err;

	mutex_lock(&is->lock);
	err = ibt_publish_attach(is, uaddr, len);
	mutex_unlock(&is->lock);
	return err;
}

static int ibt_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	int err = sizeof(struct sockaddr_ibtick);

	mutex_lock(&is->lock);
	if (!is->feed || (peer && !is->publisher) || (!peer && !is->subscribed))
		err = -ENOTCONN;
	else
		ibt_addr_fill(&is->addr, ibt_family,
			      (struct sockaddr_ibtick *)uaddr);
	mutex_unlock(&is->lock);
	return err;
}

static int ibt_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	int err;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_CMSG_COMPAT |
			       MSG_BATCH | MSG_EOR))
		return -EOPNOTSUPP;
	if (len > U16_MAX)
		return -EMSGSIZE;
	mutex_lock(&is->lock);
	if (msg->msg_name) {
		err = ibt_publish_attach(is, msg->msg_name, msg->msg_namelen);
		if (err)
			goto out;
	} else if (!is->publisher) {
		err = -EDESTADDRREQ;
		goto out;
	} else if (unlikely(READ_ONCE(is->feed->acl_gen) != is->pub_acl_gen)) {
		/* FEED_SET changed who may publish: ask again (until allowed) */
		err = ibt_feed_permission(is->feed, IBT_ACL_WRITE,
					  &is->pub_acl_gen);
		if (err)
			goto out;
	}
	if (!ibt_feed_live(is->feed)) {
		err = -ENODEV;
		goto out;
	}
	if (!READ_ONCE(is->feed->dport->active)) {
		err = -ENETDOWN;	/* the feed resumes when the port does */
		goto out;
	}
	if (sizeof(struct ibtick_wire_hdr) + len > is->feed->wire_max) {
		err = -EMSGSIZE;
		goto out;
	}
	if (copy_from_iter(is->tx_stage, len, &msg->msg_iter) != len)
		err = -EFAULT;
	else
		err = ibt_tx_send(is->feed, is->tx_stage, len, is->pub_id,
				  is->pub_seq + 1);
	if (!err) {
		is->pub_seq++;
		is->st.tx_ticks++;
		is->st.tx_bytes += len;
		err = len;
	} else if (err == -EAGAIN) {
		is->st.tx_eagain++;
	} else {
		is->st.tx_errors++;
	}
out:
	mutex_unlock(&is->lock);
	return err;
}

/* A tick taken from a feed's ring, on its way to the caller. */
struct ibt_tick {
	struct ibtick_slot	d;	/* the descriptor, len capped */
	struct ibt_src		src;
	bool			have_src;
	size_t			copy;	/* payload bytes copied */
};

static int ibt_put_cmsgs(struct ibt_sock *is, struct ibt_member *m,
			 struct msghdr *msg, const struct ibt_tick *t)
{
	const struct ibtick_slot *d = &t->d;
	struct ibtick_tick_info ti = {
		.pub_seq = d->pub_seq,
		.send_ns = d->send_ns,
		.pub_id = d->pub_id,
		.flags = d->flags,
		.gap = d->gap,
		.orig_len = d->orig_len,
	};
	struct sock *sk = &is->sk;
	bool lost_sent = false;
	int err = 0;

	/*
	 * No control buffer: the caller wants no cmsg, and is not told they
	 * were cut (MSG_CTRUNC) - as UDP.  A pending loss stays pending for
	 * the next call that has room; IBTICK_STATISTICS counts it anyway.
	 */
	if (!msg->msg_control)
		return 0;
	if (m->lost_pending && is->lost_cmsg) {
		bool ctrunc = msg->msg_flags & MSG_CTRUNC;

		err = put_cmsg(msg, SOL_IBTICK, IBTICK_CMSG_LOST,
			       sizeof(m->lost_pending), &m->lost_pending);
		/* reported only if it really reached the caller */
		lost_sent = !err && (ctrunc || !(msg->msg_flags & MSG_CTRUNC));
	}
	if (!err)
		err = put_cmsg(msg, SOL_IBTICK, IBTICK_CMSG_TICK, sizeof(ti), &ti);
	if (!err && t->have_src) {
		struct ibtick_source so = {
			.qpn = t->src.qpn,
			.flags = t->src.flags,
		};

		memcpy(so.gid, t->src.gid, sizeof(so.gid));
		err = put_cmsg(msg, SOL_IBTICK, IBTICK_CMSG_SOURCE, sizeof(so),
			       &so);
	}
	if (!err && sock_flag(sk, SOCK_RCVTSTAMPNS)) {
		if (sock_flag(sk, SOCK_TSTAMP_NEW)) {
			struct __kernel_timespec ts = {
				.tv_sec = d->rx_ns / NSEC_PER_SEC,
				.tv_nsec = d->rx_ns % NSEC_PER_SEC,
			};

			err = put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_NEW,
				       sizeof(ts), &ts);
		} else {
			struct __kernel_old_timespec ts = {
				.tv_sec = d->rx_ns / NSEC_PER_SEC,
				.tv_nsec = d->rx_ns % NSEC_PER_SEC,
			};

			err = put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_OLD,
				       sizeof(ts), &ts);
		}
	}
	if (!err && lost_sent)
		m->lost_pending = 0;	/* only once the whole call succeeds */
	return err;
}

/*
 * SO_BUSY_POLL: spin for up to sk_ll_usec before sleeping, draining the
 * CQ from here when nobody else does (poll.c), so a latency-bound reader
 * skips the CQ event, the softirq, the wake-up and the context switch.
 * A non-blocking call (@timeo 0) looks once, draining the CQ as it does:
 * a program that spins on MSG_DONTWAIT or O_NONBLOCK thus polls the CQ
 * with every call, as with a UDP socket.  Finding nothing, that look
 * leaves the CQ event deferred (SO_PREFER_BUSY_POLL) only while nobody
 * waits on the feed's queue: an epoll registration or a sleeping reader
 * there relies on the event, so then it goes back on at once.  True when
 * a tick arrived.
 */
static bool ibt_busy_wait(struct ibt_sock *is, long timeo)
{
	unsigned int usec = READ_ONCE(is->sk.sk_ll_usec);
	bool prefer = READ_ONCE(is->sk.sk_prefer_busy_poll);
	struct ibt_feed *f = is->feed;
	u64 end;

	if (!usec)
		return false;
	if (!timeo)	/* 0: the caller is back soon; 1: re-arm if nothing */
		return ibt_poll_caller(f, READ_ONCE(is->sub.cursor),
				       wq_has_sleeper(&f->wq), prefer, false);
	/* never longer than the receive timeout */
	end = local_clock() + min_t(u64, (u64)usec * NSEC_PER_USEC,
				    (u64)jiffies_to_nsecs(timeo));
	/*
	 * The whole time, as napi_busy_loop() spins: when the scheduler wants
	 * the CPU, ibt_poll_caller() lets the CQ go and returns; yield, then
	 * spin on.  On a CPU shared with ksoftirqd or a kworker, stopping
	 * there would make the reader sleep for most ticks it meant to take
	 * from the CQ.  The CQ is let go as after a tick (@back): armed, or
	 * with SO_PREFER_BUSY_POLL left off for the defer time, its timer
	 * bringing the softirq poll should the yield last that long (armed
	 * all the same while others sleep on the feed's queue).  A
	 * signal, the feed's end and a change of who may read end it early;
	 * the wait that follows looks at them.
	 */
	for (;;) {
		if (ibt_poll_caller(f, READ_ONCE(is->sub.cursor), end, prefer,
				    true))
			return true;
		if (local_clock() >= end || signal_pending(current) ||
		    !ibt_feed_live(f) ||
		    READ_ONCE(f->acl_gen) != READ_ONCE(is->sub.sub_acl_gen) ||
		    rcu_access_pointer(is->more))
			break;
		cond_resched();
	}
	/* about to sleep: a last look, which wants the CQ event back */
	return ibt_poll_caller(f, READ_ONCE(is->sub.cursor), 1, prefer, false);
}

/* The ring is flagged DEAD: no tick will follow those in it. */
static bool ibt_feed_dead(struct ibt_feed *f)
{
	return ibt_ring_flags(&f->ring) & IBTICK_RING_DEAD;
}

/*
 * Wait until the feed has something past the socket's cursor, dies, or its
 * ACL changes (recvmsg asks again).  Called without the socket lock; the
 * cursor read here may be stale, which only costs a spurious wake-up.  A
 * non-blocking call gets one busy look (*@looked), so that ticks it skips
 * (its own, without loopback) cannot keep it from returning.
 */
static int ibt_wait(struct ibt_sock *is, long *timeo, bool *looked)
{
	struct ibt_member *m = &is->sub;
	struct ibt_feed *f = is->feed;
	long left;
	bool got;
	unsigned long j0;

	if (!*timeo) {
		if (*looked)
			return -EAGAIN;
		*looked = true;
		return ibt_busy_wait(is, 0) ? 0 : -EAGAIN;
	}
	j0 = jiffies;
	got = ibt_busy_wait(is, *timeo);
	/* a tick the caller then skips (its own) must not restart the time */
	ibt_timeo_spent(timeo, j0);
	if (got)
		return 0;
	left = wait_event_interruptible_timeout(f->wq,
						ibt_ring_backlog(&f->ring, READ_ONCE(m->cursor)) ||
						ibt_feed_dead(f) ||
						READ_ONCE(f->acl_gen) !=
						READ_ONCE(m->sub_acl_gen) ||
						rcu_access_pointer(is->more),
						*timeo);
	if (left < 0)
		return sock_intr_errno(*timeo);
	if (!left)
		return -EAGAIN;
	*timeo = left;
	return 0;
}

/*
 * Count @lost ticks of member @m the socket was lapped by (overwritten
 * before it read them), in the socket, the member, its feed and, rate
 * limited, as an event.  Lock held.
 */
static void ibt_sock_lapped(struct ibt_sock *is, struct ibt_member *m,
			    u64 lost)
{
	struct ibt_feed *f = m->feed;

	if (!lost)
		return;
	is->st.rx_lost += lost;
	m->lost += lost;
	m->lost_pending += lost;
	WRITE_ONCE(is->laps, is->laps + 1);
	atomic64_add(lost, &f->st.readers_lost);
	atomic64_inc(&f->st.laps);
	if (ibt_ev_due(&m->ev_lap_at))
		ibt_ev_sock(IBTICK_EV_READER_LAPPED, f, is, lost,
			    is->st.rx_lost);
}

/*
 * The sender of tick @idx, if the table still has it: its entry's own
 * sequence (struct ibt_src) read the tick's before and after the copy.
 */
static bool ibt_src_read(struct ibt_feed *f, const struct ibt_src *src,
			 u64 idx, struct ibt_src *out)
{
	const struct ibt_src *e = &src[idx & (min_t(u32, f->ring.nslots,
						     IBT_SRC_SLOTS) - 1)];

	/* pairs with the producer's smp_store_release() of e->idx */
	if (smp_load_acquire(&e->idx) != idx + 1)
		return false;
	memcpy(out, e, sizeof(*out));
	smp_rmb();	/* the copy before the second look (rx.c's smp_wmb) */
	return READ_ONCE(e->idx) == idx + 1;
}

/*
 * Take member @m's next tick into @msg: 1 when taken (@t says what), 0 when
 * the socket has read all there is, or the error of a copy that failed
 * (that tick is consumed, and counted lost).  Ticks overwritten on the way
 * add to *@lost.  Lock held.
 */
static int ibt_take(struct ibt_sock *is, struct ibt_member *m,
		    struct msghdr *msg, size_t len, struct ibt_tick *t,
		    u64 *lost)
{
	struct ibt_feed *f = m->feed;
	/* pairs with the release that published the table (member.c) */
	struct ibt_src *src = is->source_cmsg ? smp_load_acquire(&f->src) :
			      NULL;
	const struct ibtick_slot *s;
	size_t copied;
	int err;

	for (;;) {
		s = ibt_ring_peek(&f->ring, &m->cursor, lost);
		if (!s)
			return 0;
		memcpy(&t->d, s, sizeof(t->d));
		t->d.len = min_t(u32, t->d.len, f->ring.payload_max);
		t->copy = min_t(size_t, t->d.len, len);
		copied = copy_to_iter(s + 1, t->copy, &msg->msg_iter);
		err = copied == t->copy ? 0 : -EFAULT;
		t->have_src = src && ibt_src_read(f, src, m->cursor, &t->src);
		if (!ibt_ring_still_valid(&f->ring, s, m->cursor)) {
			/* overwritten while we copied: counted, never shown */
			ibt_ring_skip_lapped(&f->ring, &m->cursor, lost);
			iov_iter_revert(&msg->msg_iter, copied);
			continue;
		}
		WRITE_ONCE(m->cursor, m->cursor + 1);
		if (err) {
			/* consumed but not delivered: counted, never silent */
			(*lost)++;
			return err;
		}
		if ((t->d.flags & IBTICK_TICK_LOCAL) && !is->loopback) {
			iov_iter_revert(&msg->msg_iter, copied);
			is->st.rx_skipped_local++;
			continue;
		}
		return 1;
	}
}

/* Hand tick @t of member @m over: its feed's name, the cmsgs, the length. */
static int ibt_deliver(struct ibt_sock *is, struct ibt_member *m,
		       struct msghdr *msg, int flags, const struct ibt_tick *t)
{
	int err;

	if (msg->msg_name) {
		ibt_addr_fill(&m->addr, ibt_family, msg->msg_name);
		msg->msg_namelen = sizeof(struct sockaddr_ibtick);
	}
	err = ibt_put_cmsgs(is, m, msg, t);
	if (err) {
		/* consumed but not delivered: counted, never silent */
		is->st.rx_lost++;
		m->lost++;
		m->lost_pending++;
		return err;
	}
	is->st.rx_ticks++;
	is->st.rx_bytes += t->d.len;
	err = t->copy;
	/*
	 * The tick's length is the one it had on the wire (orig_len), as
	 * UDP's datagram: MSG_TRUNC when less reached the caller - a short
	 * buffer, or a slot too small for it (IBTICK_TICK_TRUNCATED) - and
	 * with the MSG_TRUNC flag that length is the answer.
	 */
	if (t->copy < t->d.len)
		is->st.rx_truncated++;
	if (t->copy < t->d.orig_len) {
		msg->msg_flags |= MSG_TRUNC;
		if (flags & MSG_TRUNC)
			err = t->d.orig_len;
	}
	return err;
}

/*
 * recvmsg of a socket that reads bind()'s feed alone: it sleeps on the
 * feed's wait queue.  *@multi: the socket became a multi-feed one while
 * it slept (the caller goes on with ibt_recv_multi()).  Lock held.
 */
static int ibt_recv_one(struct ibt_sock *is, struct msghdr *msg, size_t len,
			int flags, long *timeo, bool *multi)
{
	struct ibt_member *m = &is->sub;
	struct ibt_feed *f = m->feed;
	struct ibt_tick t;
	bool looked = false;
	u64 lost = 0;
	int err;

	for (;;) {
		/* FEED_SET changed who may read: ask again (revocation) */
		if (unlikely(READ_ONCE(f->acl_gen) != m->sub_acl_gen)) {
			err = ibt_feed_permission(f, IBT_ACL_READ,
						  &m->sub_acl_gen);
			if (err)
				goto out;
		}
		err = ibt_take(is, m, msg, len, &t, &lost);
		if (err > 0)
			break;
		if (err < 0)
			goto out;
		/*
		 * End of stream only once the ring says DEAD: it is set after
		 * the last commit, so a second look then sees every tick the
		 * feed took (!live comes earlier, while the producer may
		 * still be finishing a batch).
		 */
		if (ibt_feed_dead(f)) {
			if (ibt_ring_backlog(&f->ring, m->cursor))
				continue;
			err = -ENODEV;
			goto out;
		}
		/* sleep without the lock: sends, sockopts go on */
		ibt_sock_lapped(is, m, lost);
		lost = 0;
		mutex_unlock(&is->lock);
		err = ibt_wait(is, timeo, &looked);
		mutex_lock(&is->lock);
		if (err)
			goto out;
		if (rcu_access_pointer(is->more)) {
			*multi = true;
			goto out;
		}
	}
	/* losses are counted once, when learnt, also if the call fails */
	ibt_sock_lapped(is, m, lost);
	lost = 0;
	err = ibt_deliver(is, m, msg, flags, &t);
out:
	ibt_sock_lapped(is, m, lost);
	return err;
}

/* The socket's @i-th feed: @mm's, then bind()'s. */
static struct ibt_member *ibt_nth(struct ibt_sock *is, struct ibt_members *mm,
				  u32 i)
{
	return i < mm->n ? mm->m[i] : &is->sub;
}

/*
 * A member that will give the reader nothing more: its feed is dead and
 * its ring read (or the reader may not read it).  Context: RCU or the lock.
 */
static bool ibt_member_over(struct ibt_member *m)
{
	return ibt_feed_dead(m->feed) &&
	       (READ_ONCE(m->revoked) ||
		!ibt_ring_backlog(&m->feed->ring, READ_ONCE(m->cursor)));
}

/*
 * A member with a tick for the reader or, with @acl, whose ACL moved
 * (recvmsg asks again; poll leaves that to recvmsg).  *@over counts those
 * that are over.  Context: RCU or the socket lock.
 */
static bool ibt_member_ready(struct ibt_member *m, bool acl, u32 *over)
{
	struct ibt_feed *f = m->feed;

	if (ibt_member_over(m)) {
		(*over)++;
		return false;
	}
	if (acl && READ_ONCE(f->acl_gen) != READ_ONCE(m->sub_acl_gen))
		return true;
	return !READ_ONCE(m->revoked) &&
	       ibt_ring_backlog(&f->ring, READ_ONCE(m->cursor));
}

/*
 * Anything for a multi-feed socket's reader: a tick, an ACL change, or the
 * end of every feed it reads.  @acl: count ACL changes (recvmsg), or not
 * (poll).  *@all_over: every feed is over.  Context: any, without the lock.
 */
static bool ibt_multi_ready(struct ibt_sock *is, bool acl, bool *all_over)
{
	struct ibt_members *mm;
	u32 i, over = 0, total;
	bool ready = false;

	rcu_read_lock();
	mm = rcu_dereference(is->more);
	/* pairs with bind's release: a subscribed socket's sub is set */
	total = mm->n + smp_load_acquire(&is->subscribed);
	for (i = 0; i < total; i++)
		ready |= ibt_member_ready(ibt_nth(is, mm, i), acl, &over);
	rcu_read_unlock();
	*all_over = total && over == total;
	return ready || *all_over;
}

/*
 * Who calls ibt_multi_drain(): a spin that goes on, a non-blocking call's
 * one look, or the last look before a sleep.
 */
enum ibt_drain {
	IBT_DRAIN_SPIN,
	IBT_DRAIN_LOOK,
	IBT_DRAIN_LAST,
	IBT_DRAIN_IOCTL,	/* IBTICK_SIOC_LOOK: a look, by a mapped reader */
};

/*
 * One look at the completion queue of each feed a busy-polling multi-feed
 * socket reads, draining it from here when nobody else owns it, as a
 * single-feed socket's spin does (poll.c).  A spin that goes on leaves the
 * CQ events deferred with SO_PREFER_BUSY_POLL, and so does a non-blocking
 * call while nobody of the socket's sleeps: on its own queue (epoll, a
 * recvmsg on several feeds) or on the one feed's it reads (a recvmsg
 * there: ibt_wait_member()).  The last look before a sleep wants them
 * on.  Up to
 * IBT_MULTI_POLL_MAX feeds: past that, one look at every CQ per pass costs
 * more than it saves, and the feeds' own polling drains them (the spin
 * watches the rings only).  True when a tick came.  Context: process, no
 * lock held.
 */
static bool ibt_multi_drain(struct ibt_sock *is, enum ibt_drain how)
{
	bool prefer = READ_ONCE(is->sk.sk_prefer_busy_poll), got = false;
	bool again = how == IBT_DRAIN_SPIN;
	struct ibt_members *mm;
	struct ibt_member *m;
	u32 i, total;

	rcu_read_lock();	/* members and their feeds stay while it lasts */
	mm = rcu_dereference(is->more);
	/* pairs with bind's release: a subscribed socket's sub is set */
	total = mm->n + smp_load_acquire(&is->subscribed);
	/* a heuristic: a sleeper that comes meanwhile has its own last look */
	if (how == IBT_DRAIN_LOOK || how == IBT_DRAIN_IOCTL)
		again = !atomic_read(&is->member_sleepers) &&
			!wq_has_sleeper(sk_sleep(&is->sk));
	for (i = 0; total <= IBT_MULTI_POLL_MAX && i < total; i++) {
		m = ibt_nth(is, mm, i);
		if (READ_ONCE(m->revoked) || ibt_member_over(m))
			continue;
		/*
		 * A mapped reader's cursor is its own, not m->cursor: what
		 * counts as come is what came in this look
		 */
		got |= ibt_poll_caller(m->feed, how == IBT_DRAIN_IOCTL ?
				       ibt_ring_producer(&m->feed->ring) :
				       READ_ONCE(m->cursor),
				       again ? 0 : 1, prefer, false);
	}
	rcu_read_unlock();
	return got;
}

/*
 * The spin of a multi-feed socket that reads one feed: on that feed as a
 * single-feed socket's is (ibt_busy_wait()), owning its CQ for the whole
 * spin rather than taking it and letting it go at every look as
 * ibt_multi_drain() must for several.  A library that turns each
 * IP_ADD_MEMBERSHIP into IBTICK_ADD_FEED makes such sockets of most UDP
 * programs.  Until a tick, an ACL change or the feed's end
 * (ibt_multi_ready()), @end, or a signal; yields when asked, as
 * ibt_busy_wait(): a yield lets the CQ go armed if others sleep on the
 * feed's queue (on a watched socket the member's own entry there counts:
 * member.c).  An added member is held by a reference of its own while it
 * spins, not by RCU: a spin may last the whole SO_BUSY_POLL time, and
 * preemptible RCU would have every grace period wait for it.  1: something for recvmsg;
 * 0: nothing by @end; -1: the socket does not read exactly one feed (now),
 * the caller spins over its members.  Context: process, no lock held.
 */
static int ibt_multi_spin_one(struct ibt_sock *is, u64 end)
{
	bool prefer = READ_ONCE(is->sk.sk_prefer_busy_poll), got, over;
	struct ibt_members *mm;
	struct ibt_member *m;
	bool added;

	for (;;) {
		rcu_read_lock();
		mm = rcu_dereference(is->more);
		/* pairs with bind's release: a subscribed socket's sub is set */
		if (mm->n + smp_load_acquire(&is->subscribed) != 1) {
			rcu_read_unlock();
			return -1;
		}
		m = ibt_nth(is, mm, 0);
		/* bind()'s member lives as long as the socket */
		added = m != &is->sub;
		if (READ_ONCE(m->revoked) ||
		    (added && !refcount_inc_not_zero(&m->ref))) {
			rcu_read_unlock();
			return -1;
		}
		rcu_read_unlock();
		got = ibt_poll_caller(m->feed, READ_ONCE(m->cursor), end,
				      prefer, true);
		if (added)
			ibt_member_put(m);
		if (got || ibt_multi_ready(is, true, &over))
			return 1;
		if (local_clock() >= end || signal_pending(current))
			return 0;
		cond_resched();
	}
}

/* Something for recvmsg from member @m, or the socket's feeds changed. */
static bool ibt_member_woken(struct ibt_sock *is, struct ibt_member *m,
			     u32 gen)
{
	u32 over = 0;

	return ibt_member_ready(m, true, &over) || over ||
	       READ_ONCE(is->members_gen) != gen;
}

/*
 * The sleep of a multi-feed socket that reads one feed: on that feed's
 * queue, as a single-feed socket's (ibt_wait()), not on the socket's own,
 * which the feed's wake-up would reach through the member's entry there
 * (member.c): one wake-up per tick, not two, and no look at a member
 * array.  Until something for recvmsg (as ibt_multi_ready() for one
 * member) or a change of the socket's feeds, which bumps @members_gen and
 * wakes this queue (member.c).  An added member is held by a reference of
 * its own while it sleeps (as ibt_multi_spin_one()).  -ENOENT: the socket
 * does not read exactly one feed (now); the caller sleeps on the socket's
 * queue.  Context: process, no lock held.
 */
static int ibt_wait_member(struct ibt_sock *is, long *timeo)
{
	struct ibt_members *mm;
	struct ibt_member *m;
	bool added;
	long left;
	u32 gen;

	/* pairs with member.c's release: the feeds that go with it */
	gen = smp_load_acquire(&is->members_gen);
	rcu_read_lock();
	mm = rcu_dereference(is->more);
	/* pairs with bind's release: a subscribed socket's sub is set */
	if (mm->n + smp_load_acquire(&is->subscribed) != 1) {
		rcu_read_unlock();
		return -ENOENT;
	}
	m = ibt_nth(is, mm, 0);
	/* bind()'s member lives as long as the socket */
	added = m != &is->sub;
	if (added && !refcount_inc_not_zero(&m->ref)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	rcu_read_unlock();
	atomic_inc(&is->member_sleepers);	/* for ibt_multi_drain() */
	left = wait_event_interruptible_timeout(m->feed->wq,
						ibt_member_woken(is, m, gen),
						*timeo);
	atomic_dec(&is->member_sleepers);
	if (added)
		ibt_member_put(m);
	if (left < 0)
		return sock_intr_errno(*timeo);
	if (!left)
		return -EAGAIN;
	*timeo = left;
	return 0;
}

/*
 * A multi-feed socket's wait: on the queue of the one feed it reads
 * (ibt_wait_member()), else on its own, which every member feed wakes once
 * watched (member.c).  SO_BUSY_POLL spins over the members first, draining
 * their CQs (ibt_multi_drain); a non-blocking call looks once (*@looked,
 * as ibt_wait()), leaving the events deferred only while nobody waits
 * for them (ibt_multi_drain()).
 */
static int ibt_wait_multi(struct ibt_sock *is, long *timeo, bool *looked)
{
	unsigned int usec = READ_ONCE(is->sk.sk_ll_usec);
	bool over, got = false;
	unsigned long j0;
	u64 end, t0;
	long left;
	int spun, err;

	if (!*timeo) {
		if (!usec || *looked)
			return -EAGAIN;
		*looked = true;
		return ibt_multi_drain(is, IBT_DRAIN_LOOK) ?
		       0 : -EAGAIN;
	}
	if (usec) {
		j0 = jiffies;
		t0 = local_clock();
		end = t0 + min_t(u64, (u64)usec * NSEC_PER_USEC,
				 (u64)jiffies_to_nsecs(*timeo));
		spun = ibt_multi_spin_one(is, end);
		got = spun > 0;
		/* the whole time, yielding when asked (as ibt_busy_wait()) */
		while (spun < 0) {
			got = ibt_multi_drain(is, IBT_DRAIN_SPIN) ||
			      ibt_multi_ready(is, true, &over);
			if (got || signal_pending(current))
				break;
			if (need_resched())
				cond_resched();
			else
				cpu_relax();
			if (local_clock() >= end)
				break;
		}
		/* about to sleep: the events back on (a last look) */
		if (!got)
			got = ibt_multi_drain(is, IBT_DRAIN_LAST);
		ibt_timeo_spent(timeo, j0);
		if (got)
			return 0;
	}
	err = ibt_wait_member(is, timeo);
	if (err != -ENOENT)
		return err;
	/* several feeds (or none): they wake the socket's queue */
	if (!smp_load_acquire(&is->watched))
		ibt_member_watch(is);
	left = wait_event_interruptible_timeout(*sk_sleep(&is->sk),
						ibt_multi_ready(is, true, &over),
						*timeo);
	if (left < 0)
		return sock_intr_errno(*timeo);
	if (!left)
		return -EAGAIN;
	*timeo = left;
	return 0;
}

/*
 * A multi-feed socket's member @m whose feed's ACL changed: ask again.
 * A refusal is told once (EACCES) and the member skipped until the ACL
 * changes again; a re-grant resumes at the producer (what came meanwhile
 * was not for this reader, and counts nowhere for it).
 */
static int ibt_member_recheck(struct ibt_member *m)
{
	struct ibt_feed *f = m->feed;
	u32 gen = READ_ONCE(f->acl_gen);	/* at or before the answer's */
	int err;

	err = ibt_feed_permission(f, IBT_ACL_READ, &m->sub_acl_gen);
	if (err) {
		WRITE_ONCE(m->sub_acl_gen, gen);
		if (READ_ONCE(m->revoked))
			return 0;	/* told already */
		WRITE_ONCE(m->revoked, true);
		return err;
	}
	if (READ_ONCE(m->revoked)) {
		WRITE_ONCE(m->cursor, ibt_ring_producer(&f->ring));
		WRITE_ONCE(m->revoked, false);
	}
	return 0;
}

/*
 * recvmsg of a multi-feed socket: one tick from the first member, in turn
 * after the last one served, that has one.  ENODEV once every feed it
 * reads is over.  Lock held.
 */
static int ibt_recv_multi(struct ibt_sock *is, struct msghdr *msg,
			  size_t len, int flags, long *timeo)
{
	struct ibt_members *mm;
	struct ibt_member *m;
	struct ibt_tick t;
	u32 k, i, total, over;
	bool looked = false;
	u64 lost;
	int err;

	for (;;) {
		mm = rcu_dereference_protected(is->more,
					       lockdep_is_held(&is->lock));
		total = mm->n + is->subscribed;
		over = 0;
		for (k = 0; k < total; k++) {
			i = (is->rr + k) % total;
			m = ibt_nth(is, mm, i);
			if (unlikely(READ_ONCE(m->feed->acl_gen) !=
				     m->sub_acl_gen)) {
				err = ibt_member_recheck(m);
				if (err)
					return err;
			}
			if (ibt_member_over(m)) {
				over++;
				continue;
			}
			if (m->revoked)
				continue;
			lost = 0;
			err = ibt_take(is, m, msg, len, &t, &lost);
			/* losses are counted once, when learnt */
			ibt_sock_lapped(is, m, lost);
			if (err < 0)
				return err;
			if (err > 0) {
				is->rr = (i + 1) % total;
				return ibt_deliver(is, m, msg, flags, &t);
			}
		}
		if (total && over == total)
			return -ENODEV;
		mutex_unlock(&is->lock);
		err = ibt_wait_multi(is, timeo, &looked);
		mutex_lock(&is->lock);
		if (err)
			return err;
	}
}

static int ibt_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	bool multi;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_COMPAT |
		      MSG_CMSG_CLOEXEC))
		return -EOPNOTSUPP;
	timeo = sock_rcvtimeo(&is->sk, flags & MSG_DONTWAIT);
	if (mutex_lock_interruptible(&is->lock))
		return sock_intr_errno(timeo);
	multi = rcu_access_pointer(is->more);
	if (!multi && !is->subscribed) {
		err = -ENOTCONN;
	} else {
		if (!multi)
			err = ibt_recv_one(is, msg, len, flags, &timeo, &multi);
		if (multi)	/* a multi-feed socket, or one now */
			err = ibt_recv_multi(is, msg, len, flags, &timeo);
	}
	mutex_unlock(&is->lock);
	return err;
}

/*
 * poll(2) and select(2) that are about to sleep - the first look of a call
 * with a timeout - on a socket with SO_BUSY_POLL spin first, as recvmsg
 * does: up to sk_ll_usec, draining the CQ from here when nobody else does.
 * A mapped reader waiting in ibtick_wait() (after IBTICK_RING_CURSOR says
 * where it is) thus takes its ticks without a CQ event, softirq or wake-up
 * on the way.  epoll's later looks pass no table (poll_does_not_wait), so
 * epoll_wait() never spins here.  True when a tick past @cursor arrived.
 */
static bool ibt_poll_busy(struct ibt_sock *is, struct ibt_feed *f, u64 cursor,
			  poll_table *wait)
{
	unsigned int usec = READ_ONCE(is->sk.sk_ll_usec);

	if (!usec || poll_does_not_wait(wait) || ibt_feed_dead(f))
		return false;
	return ibt_poll_caller(f, cursor,
			       local_clock() + (u64)usec * NSEC_PER_USEC,
			       READ_ONCE(is->sk.sk_prefer_busy_poll), false);
}

/*
 * poll of a multi-feed socket: on its own queue, which every member feed
 * wakes; EPOLLIN while any member has a tick past its cursor, EPOLLERR and
 * EPOLLHUP once every feed it reads is over.  No busy polling here.
 */
static __poll_t ibt_poll_multi(struct file *file, struct socket *sock,
			       poll_table *wait)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	__poll_t mask = 0;
	bool over;

	sock_poll_wait(file, sock, wait);
	if (ibt_multi_ready(is, false, &over))
		mask |= over ? EPOLLERR | EPOLLHUP : EPOLLIN | EPOLLRDNORM;
	return mask;
}

static __poll_t ibt_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	/* pairs with the release in ibt_attach(): a set feed is initialised */
	struct ibt_feed *f = smp_load_acquire(&is->feed);
	__poll_t mask = 0;
	u64 cursor;

	/*
	 * A poll table about to go on the socket's queue: a multi-feed
	 * socket's feeds must wake it (once for the socket's life; member.c)
	 */
	/* pairs with ibt_member_watch()'s release: every feed forwards */
	if (unlikely(!smp_load_acquire(&is->watched)) &&
	    !poll_does_not_wait(wait))
		ibt_member_watch(is);
	if (rcu_access_pointer(is->more)) {
		mask = ibt_poll_multi(file, sock, wait);
		/* what it publishes on, if anything, wakes its own queue */
		if (f && READ_ONCE(is->publisher)) {
			poll_wait(file, &f->wq, wait);
			if (ibt_feed_dead(f)) {
				if (!ibt_member_count(is))
					mask |= EPOLLERR | EPOLLHUP;
			} else if (ibt_tx_writable(f)) {
				mask |= EPOLLOUT | EPOLLWRNORM;
			}
		}
		return mask;
	}
	if (!f) {
		sock_poll_wait(file, sock, wait);
		return 0;
	}
	poll_wait(file, &f->wq, wait);
	/*
	 * The socket's own queue too: IBTICK_ADD_FEED may make it a
	 * multi-feed socket, whose feeds wake that one, under an epoll that
	 * registered it as it is now.
	 */
	sock_poll_wait(file, sock, wait);
	/* pairs with the release in ibt_bind(): the cursor is set */
	if (smp_load_acquire(&is->subscribed)) {
		cursor = READ_ONCE(is->sub.cursor);
		if (ibt_ring_backlog(&f->ring, cursor) ||
		    ibt_poll_busy(is, f, cursor, wait))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	if (ibt_feed_dead(f))
		mask |= EPOLLERR | EPOLLHUP;
	else if (READ_ONCE(is->publisher) && ibt_tx_writable(f))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/*
 * IBTICK_SIOC_LOOK: one busy look at the CQ of each feed the socket reads,
 * as a non-blocking recvmsg with SO_BUSY_POLL makes (ibt_busy_wait(),
 * ibt_multi_drain()), taking no tick; without SO_BUSY_POLL none, as that
 * recvmsg makes none (raising it needs CAP_NET_ADMIN; the look keeps a
 * shared CQ's event deferred as the recvmsg would).  Whether a tick came
 * is judged from the producer before the look, not from the socket's
 * cursor: a mapped reader tells it only before it waits.  A single-feed
 * socket's feed whose ACL changed since its last read is left alone, as a
 * revoked member is: recvmsg asks again.  Context: process, no lock held,
 * as those looks.
 */
static int ibt_sock_look(struct ibt_sock *is)
{
	struct ibt_feed *f;

	if (rcu_access_pointer(is->more)) {	/* never unset once set */
		if (!ibt_member_count(is))
			return -ENOTCONN;
		if (READ_ONCE(is->sk.sk_ll_usec))
			ibt_multi_drain(is, IBT_DRAIN_IOCTL);
		return 0;
	}
	/* pairs with the release in ibt_bind(): feed and cursor are set */
	if (!smp_load_acquire(&is->subscribed))
		return -ENOTCONN;
	f = is->feed;
	if (READ_ONCE(is->sk.sk_ll_usec) &&
	    READ_ONCE(f->acl_gen) == READ_ONCE(is->sub.sub_acl_gen))
		ibt_poll_caller(f, ibt_ring_producer(&f->ring),
				wq_has_sleeper(&f->wq),
				READ_ONCE(is->sk.sk_prefer_busy_poll), false);
	return 0;
}

/*
 * IBTICK_SIOC_WAIT's cursors: every one checked (a feed the socket reads,
 * not past its producer), then all set, as IBTICK_MEMBER_CURSOR sets one,
 * but only forward.  A reader's threads tell theirs out of order: one that
 * read a tick from the ring may have told the kernel (its own wait, its
 * recvmsg) before another's wait, built earlier, comes in with the cursor
 * before it; set back, the kernel would hand that tick out again.  Lock
 * held.
 */
static int ibt_wait_cursors(struct ibt_sock *is, const struct ibtick_wait *w)
{
	struct ibt_member *m[IBTICK_WAIT_CURSORS];
	u32 i;

	for (i = 0; i < w->n; i++) {
		if (w->c[i].reserved)
			return -EINVAL;
		m[i] = ibt_member_find_rcu(is, w->c[i].feed_id);
		if (!m[i])
			return -EADDRNOTAVAIL;
		if (w->c[i].cursor > ibt_ring_producer(&m[i]->feed->ring))
			return -EINVAL;
	}
	for (i = 0; i < w->n; i++)
		if (w->c[i].cursor > m[i]->cursor)
			WRITE_ONCE(m[i]->cursor, w->c[i].cursor);
	return 0;
}

/*
 * IBTICK_SIOC_WAIT (uapi): ibt_recv_multi() without the take.  A member
 * whose ACL changed is asked again first, as there, so that a refusal is
 * told once and a wait does not return at once for ever.  @nonblock: the
 * file's O_NONBLOCK (an ioctl has no MSG_DONTWAIT).  Context: process, no
 * lock held.
 */
static int ibt_sock_wait(struct ibt_sock *is, void __user *uarg, bool nonblock)
{
	long timeo = sock_rcvtimeo(&is->sk, nonblock);
	struct ibt_members *mm;
	struct ibt_member *m;
	struct ibtick_wait w;
	bool looked = false;
	u32 k, total, over;
	int err;

	/* one layout for 32- and 64-bit callers (ibt_compat_ioctl()) */
	BUILD_BUG_ON(sizeof(w) != 8 + IBTICK_WAIT_CURSORS * 16 ||
		     offsetof(struct ibtick_wait, c[1]) != 24);
	if (copy_from_user(&w, uarg, sizeof(w)))
		return -EFAULT;
	if (w.flags || w.n > IBTICK_WAIT_CURSORS)
		return -EINVAL;
	/*
	 * Killable, not interruptible: past its checks the call takes the
	 * cursors whatever it then returns (EINTR from the wait included),
	 * and the reader counts on that.  A holder may keep the lock for a
	 * feed's join (IBTICK_ADD_FEED); a fatal signal still ends the wait
	 * for it, and then nobody is left to count on the cursors.
	 */
	if (mutex_lock_killable(&is->lock))
		return -EINTR;
	if (!rcu_access_pointer(is->more)) {	/* never unset once set */
		err = is->subscribed ? -EOPNOTSUPP : -ENOTCONN;
		goto out;
	}
	if (!ibt_member_count(is)) {
		err = -ENOTCONN;
		goto out;
	}
	err = ibt_wait_cursors(is, &w);
	while (!err) {
		mm = rcu_dereference_protected(is->more,
					       lockdep_is_held(&is->lock));
		total = mm->n + is->subscribed;
		over = 0;
		for (k = 0; k < total; k++) {
			m = ibt_nth(is, mm, k);
			if (unlikely(READ_ONCE(m->feed->acl_gen) !=
				     m->sub_acl_gen)) {
				err = ibt_member_recheck(m);
				if (err)
					goto out;
			}
			if (ibt_member_ready(m, false, &over))
				goto out;
		}
		if (total && over == total) {
			err = -ENODEV;
			break;
		}
		mutex_unlock(&is->lock);
		err = ibt_wait_multi(is, &timeo, &looked);
		mutex_lock(&is->lock);
	}
out:
	mutex_unlock(&is->lock);
	return err;
}

static int ibt_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case IBTICK_SIOC_LOOK:
		return arg ? -EINVAL : ibt_sock_look(ibt_sk(sock->sk));
	case IBTICK_SIOC_WAIT:
		return ibt_sock_wait(ibt_sk(sock->sk), (void __user *)arg,
				     sock->file->f_flags & O_NONBLOCK);
	}
	return -ENOIOCTLCMD;
}

#ifdef CONFIG_COMPAT
/* struct ibtick_wait has one layout for both: only the pointer to widen */
static int ibt_compat_ioctl(struct socket *sock, unsigned int cmd,
			    unsigned long arg)
{
	if (cmd == IBTICK_SIOC_WAIT)
		arg = (unsigned long)compat_ptr(arg);
	return ibt_ioctl(sock, cmd, arg);
}
#endif

/* not const: .family is the module parameter, set once at init */
static struct proto_ops ibt_proto_ops __ro_after_init = {
	.family		= IBTICK_AF_DEFAULT,	/* set to ibt_family at init */
	.owner		= THIS_MODULE,
	.release	= ibt_release,
	.bind		= ibt_bind,
	.connect	= ibt_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= ibt_getname,
	.poll		= ibt_poll,
	.ioctl		= ibt_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= ibt_compat_ioctl,
#endif
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= ibt_setsockopt,
	.getsockopt	= ibt_getsockopt,
	.sendmsg	= ibt_sendmsg,
	.recvmsg	= ibt_recvmsg,
	.mmap		= ibt_mmap,
};

static int ibt_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct ibt_sock *is;
	struct sock *sk;

	if (!net_eq(net, &init_net))
		return -EAFNOSUPPORT;	/* feeds live in init_net (see ibtick.7) */
	if (sock->type != SOCK_DGRAM && sock->type != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	if (protocol)
		return -EPROTONOSUPPORT;
	if (sock->type == SOCK_SEQPACKET)
		return ibt_conn_create(net, sock, kern);	/* conn_sock.c */
	sk = sk_alloc(net, ibt_family, GFP_KERNEL, &ibt_proto, kern);
	if (!sk)
		return -ENOMEM;
	sock->ops = &ibt_proto_ops;
	sock_init_data(sock, sk);
	is = ibt_sk(sk);
	mutex_init(&is->lock);
	spin_lock_init(&is->watch_lock);
	atomic_set(&is->member_sleepers, 0);
	is->nslots = IBTICK_SLOTS_DEFAULT;
	is->slot_size = IBTICK_SLOT_SIZE_DEFAULT;
	is->lost_cmsg = true;
	is->tgid = get_pid(task_tgid(current));
	ibt_sock_list_add(is);
	return 0;
}

static struct net_proto_family ibt_family_ops = {
	.create	= ibt_create,
	.owner	= THIS_MODULE,
};

int ibt_sock_init(void)
{
	int err;

	if (ibt_family <= 0 || ibt_family >= NPROTO) {
		pr_err(IBT_DRV_NAME ": family=%d out of range 1..%d\n",
		       ibt_family, NPROTO - 1);
		return -EINVAL;
	}
	err = proto_register(&ibt_proto, 0);
	if (err)
		return err;
	err = ibt_conn_init();
	if (err) {
		proto_unregister(&ibt_proto);
		return err;
	}
	ibt_family_ops.family = ibt_family;
	ibt_proto_ops.family = ibt_family;
	err = sock_register(&ibt_family_ops);
	if (err) {
		pr_err(IBT_DRV_NAME ": address family %d is taken (%d); load with family=N for a free one\n",
		       ibt_family, err);
		ibt_conn_exit();
		proto_unregister(&ibt_proto);
		return err;
	}
	return 0;
}

void ibt_sock_exit(void)
{
	sock_unregister(ibt_family);
	ibt_conn_exit();
	proto_unregister(&ibt_proto);
}
