// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-feed sockets: the feeds a socket reads besides bind()'s, added and
 * dropped with IBTICK_ADD_FEED / IBTICK_DROP_FEED as a UDP socket joins
 * groups.  The contract is in <linux/ibtick.h> ("More feeds on one
 * socket"); recvmsg and poll over the members are sock.c's.
 *
 * A member is a cursor into its feed's ring, like bind()'s (which is the
 * embedded ibt_sock.sub): the feed is shared, nothing is queued per socket.
 * A socket that reads more than one feed sleeps on its own wait queue
 * (sk_sleep), and each member's entry on its feed's wait queue forwards the
 * feed's data and end wake-ups there (ibt_member_wake), so one sleeper
 * hears every feed.  The entries go on only once somebody may wait there
 * (ibt_member_watch(): a recvmsg about to sleep on several feeds, a
 * poll(), select() or epoll registration), and then stay: a socket read
 * only by non-blocking calls - a busy-polling UDP program under ibtick-run
 * spins so - leaves its feeds' queues empty, and a drain that fills their
 * rings wakes nobody on its behalf.  A recvmsg of a socket that reads one
 * feed (a UDP program under ibtick-run that joins one group per socket)
 * sleeps on that feed's queue instead, as a single-feed socket's does, one
 * wake-up per tick rather than two: a change of the socket's feeds
 * (@members_gen) wakes it there, and it looks again.
 *
 * Locking and lifetime: the socket's lock (taken by the sockopt callers)
 * serialises adds, drops and recvmsg.  The members are listed in an array
 * that is never changed in place: an add or a drop publishes a new one
 * (rcu_assign_pointer) and frees the old after a grace period, so poll(),
 * the sleeping recvmsg and mmap() read a consistent snapshot under
 * rcu_read_lock().  Forwarding (above) changes under the socket's
 * watch_lock, which also covers publishing a new array, so that poll() can
 * set it up without the socket lock (a send holds that across its user
 * copy); at release, when nothing else looks, without it.  A member is
 * reference counted: the array holds one reference, each mapping of its
 * ring one (mmap.c).  The last put frees it, and drops its feed, from a
 * work item after a grace period - never in vm_close, which holds the
 * mmap_lock (feed teardown must not nest in it).
 */
#include <linux/capability.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/vmalloc.h>
#include <net/sock.h>

#include "ibt.h"

/* The socket's member array; the socket lock held. */
static struct ibt_members *ibt_members_locked(struct ibt_sock *is)
{
	return rcu_dereference_protected(is->more, lockdep_is_held(&is->lock));
}

u32 ibt_member_count(struct ibt_sock *is)
{
	struct ibt_members *mm;
	u32 n;

	rcu_read_lock();
	mm = rcu_dereference(is->more);
	n = mm ? mm->n : 0;
	rcu_read_unlock();
	/* pairs with bind's release: a subscribed socket's sub is set */
	return n + smp_load_acquire(&is->subscribed);
}

/*
 * A wake-up of the member's feed: wake the socket's sleepers for data, the
 * feed's end or an ACL change (no key), not for a publisher's EPOLLOUT.
 * Context: the feed's wait queue lock held, any context.
 */
static int ibt_member_wake(struct wait_queue_entry *wqe, unsigned int mode,
			   int sync, void *key)
{
	struct ibt_member *m = container_of(wqe, struct ibt_member, wqe);
	struct sock *sk = &m->is->sk;

	if (key && !(key_to_poll(key) & (EPOLLIN | EPOLLERR | EPOLLHUP)))
		return 0;
	sk->sk_data_ready(sk);
	return 0;
}

/* Forward @m's feed's wake-ups to the socket (once).  watch_lock held. */
static void ibt_member_forward(struct ibt_member *m)
{
	if (m->forwarding)
		return;
	init_waitqueue_func_entry(&m->wqe, ibt_member_wake);
	add_wait_queue(&m->feed->wq, &m->wqe);
	m->forwarding = true;
}

/*
 * Feed @m of a multi-feed socket (or one about to be) wakes the socket's
 * queue if somebody may wait there.  watch_lock held.
 */
static void ibt_member_forward_watched(struct ibt_sock *is,
				       struct ibt_member *m)
{
	lockdep_assert_held(&is->watch_lock);
	if (is->watched)
		ibt_member_forward(m);
}

/*
 * The one feed a multi-feed socket (or one about to be) reads, given its
 * array @mm, or NULL when it reads none or several: a recvmsg may be asleep
 * on that feed's queue rather than the socket's (sock.c).  The socket lock
 * held.
 */
static struct ibt_member *ibt_members_one(struct ibt_sock *is,
					  struct ibt_members *mm)
{
	u32 n = mm ? mm->n : 0;

	if (n + is->subscribed != 1)
		return NULL;
	return n ? mm->m[0] : &is->sub;
}

/*
 * The socket's feeds just changed: a recvmsg that sleeps on the queue of
 * the one feed it read (@one, from ibt_members_one() before the change)
 * finds @members_gen moved.  watch_lock held; the caller wakes @one's feed
 * queue after it lets the lock go.
 */
static void ibt_members_changed(struct ibt_sock *is)
{
	lockdep_assert_held(&is->watch_lock);
	/* pairs with the sleeper's acquire: the feeds that go with it */
	smp_store_release(&is->members_gen, is->members_gen + 1);
}

/*
 * bind() of a multi-feed socket: its feed wakes the socket's queue too.
 * Whoever waits there already counts the feed (subscribed is set) and may
 * have looked before it was forwarded: it looks again; so does a reader
 * asleep on the queue of the one feed the socket read until now.  The
 * socket lock held.
 */
void ibt_member_bind_watched(struct ibt_sock *is)
{
	struct ibt_members *mm = ibt_members_locked(is);
	struct ibt_member *one = mm && mm->n == 1 ? mm->m[0] : NULL;

	spin_lock(&is->watch_lock);
	ibt_member_forward_watched(is, &is->sub);
	ibt_members_changed(is);
	spin_unlock(&is->watch_lock);
	if (one)
		wake_up_interruptible_all(&one->feed->wq);
	wake_up_interruptible_all(sk_sleep(&is->sk));
}

/*
 * Somebody may wait on the socket's own queue from now on: a recvmsg that
 * may sleep there, or a poll table registered on it.  Every feed the
 * socket reads forwards its wake-ups there while it is a multi-feed one
 * (a single-feed socket's sleepers and poll tables are on its feed's own
 * queue too); feeds added later forward at once.  For good: a poll table
 * may stay registered as long as the socket lives.  Called before the
 * waiter's entry goes on the queue and it looks at the rings, so that a
 * tick committed in between wakes it (add_wait_queue() here, the
 * waiter's barrier before it looks, the drain's wq_has_sleeper()); a
 * poll that skips the call finds @watched set only once every entry is on
 * (release/acquire).  Takes watch_lock; the callers (recvmsg about to
 * sleep, poll) hold no other lock.
 */
void ibt_member_watch(struct ibt_sock *is)
{
	struct ibt_members *mm;
	u32 i;

	spin_lock(&is->watch_lock);
	if (is->watched)
		goto out;
	mm = rcu_dereference_protected(is->more,
				       lockdep_is_held(&is->watch_lock));
	for (i = 0; mm && i < mm->n; i++)
		ibt_member_forward(mm->m[i]);
	/*
	 * bind() sets subscribed (its member ready: pairs with its release),
	 * then forwards under this lock, if we have been here
	 */
	if (mm && smp_load_acquire(&is->subscribed))
		ibt_member_forward(&is->sub);
	/*
	 * Last, and a release: a poll that finds it set (acquire) and skips
	 * the lock sees every entry on its feed's queue
	 */
	smp_store_release(&is->watched, true);
out:
	spin_unlock(&is->watch_lock);
}

/*
 * Sources for @f (IBTICK_SOURCE_CMSG): allocate its table on first use
 * (no lock: the first store wins) and count one more socket that wants
 * them, or one fewer.  The table has at most IBT_SRC_SLOTS entries, so a
 * feed's costs IBT_SRC_SLOTS * 32 bytes at most, whatever its ring.
 */
int ibt_member_sources(struct ibt_feed *f, bool on)
{
	u32 n = min_t(u32, f->ring.nslots, IBT_SRC_SLOTS);
	struct ibt_src *src;

	if (!on) {
		atomic_dec(&f->src_readers);
		return 0;
	}
	/* pairs with the cmpxchg_release below: an allocated table */
	if (!smp_load_acquire(&f->src)) {
		src = kvcalloc(n, sizeof(*src), IBT_GFP_CHARGED);
		if (!src)
			return -ENOMEM;
		/* the producer's acquire of f->src sees the zeroed entries */
		if (cmpxchg_release(&f->src, NULL, src))
			kvfree(src);
	}
	atomic_inc(&f->src_readers);
	return 0;
}

/* Apply IBTICK_SOURCE_CMSG to every feed the socket reads. */
int ibt_member_want_sources(struct ibt_sock *is, bool on)
{
	struct ibt_members *mm = ibt_members_locked(is);
	u32 i, done = 0;
	int err = 0;

	if (is->source_cmsg == on)
		return 0;
	if (is->subscribed) {
		err = ibt_member_sources(is->sub.feed, on);
		if (err)
			return err;
	}
	for (i = 0; mm && i < mm->n; i++, done++) {
		err = ibt_member_sources(mm->m[i]->feed, on);
		if (err)
			break;
	}
	if (err) {	/* only "on" fails: undo */
		while (done--)
			ibt_member_sources(mm->m[done]->feed, false);
		if (is->subscribed)
			ibt_member_sources(is->sub.feed, false);
		return err;
	}
	is->source_cmsg = on;
	return 0;
}

/* A reader of @f from now on, or no more. */
static void ibt_member_reader(struct ibt_sock *is, struct ibt_feed *f, bool on)
{
	if (on) {
		if (is->loopback)
			atomic_inc(&f->loopback_readers);
		atomic_inc(&f->nsocks);
		ibt_poll_reader_added(f);
		return;
	}
	if (is->loopback)
		atomic_dec(&f->loopback_readers);
	if (is->source_cmsg)
		ibt_member_sources(f, false);
	atomic_dec(&f->readers);
	atomic_dec(&f->nsocks);
}

static void ibt_member_free_work(struct work_struct *w)
{
	struct ibt_member *m = container_of(to_rcu_work(w), struct ibt_member,
					    free_work);

	ibt_feed_put(m->feed);
	kfree(m);
}

/*
 * Drop a reference to an added member.  The last one frees it after a
 * grace period, in process context (ibt_wq): any context may put.
 */
void ibt_member_put(struct ibt_member *m)
{
	if (!refcount_dec_and_test(&m->ref))
		return;
	INIT_RCU_WORK(&m->free_work, ibt_member_free_work);
	queue_rcu_work(ibt_wq, &m->free_work);
}

static int ibt_member_sa(struct sockaddr_ibtick *sa, sockptr_t optval,
			 unsigned int optlen, struct ibt_addr *a)
{
	if (optlen != sizeof(*sa))
		return -EINVAL;
	if (copy_from_sockptr(sa, optval, sizeof(*sa)))
		return -EFAULT;
	return ibt_addr_parse(sa, sizeof(*sa), ibt_family, a);
}

static bool ibt_member_reads(struct ibt_sock *is, struct ibt_members *mm,
			     struct ibt_feed *f);

bool ibt_member_reads_feed(struct ibt_sock *is, struct ibt_feed *f)
{
	return ibt_member_reads(is, ibt_members_locked(is), f);
}

static bool ibt_member_reads(struct ibt_sock *is, struct ibt_members *mm,
			     struct ibt_feed *f)
{
	u32 i;

	if (is->subscribed && is->sub.feed == f)
		return true;
	for (i = 0; mm && i < mm->n; i++)
		if (mm->m[i]->feed == f)
			return true;
	return false;
}

/* A new array: @mm's members without index @skip, and @add if set. */
static struct ibt_members *ibt_members_copy(struct ibt_members *mm, u32 skip,
					    struct ibt_member *add)
{
	u32 n = mm ? mm->n : 0, i, k = 0;
	struct ibt_members *nm;

	nm = kzalloc(struct_size(nm, m, n + !!add), GFP_KERNEL_ACCOUNT);
	if (!nm)
		return NULL;
	for (i = 0; i < n; i++)
		if (i != skip)
			nm->m[k++] = mm->m[i];
	if (add)
		nm->m[k++] = add;
	nm->n = k;
	return nm;
}

int ibt_member_add(struct ibt_sock *is, sockptr_t optval, unsigned int optlen)
{
	struct ibt_feed_params p = {
		.nslots = is->nslots,
		.slot_size = is->slot_size,
		.comp_vector = is->comp_vector,
		.receive = true,
	};
	struct ibt_members *mm = ibt_members_locked(is), *nm;
	struct ibt_member *m, *one = ibt_members_one(is, mm);
	struct sockaddr_ibtick sa;
	struct ibt_feed *f;
	struct ibt_addr a;
	int err;

	err = ibt_member_sa(&sa, optval, optlen, &a);
	if (err)
		return err;
	if ((mm ? mm->n : 0) + is->subscribed >= IBTICK_FEEDS_PER_SOCKET)
		return -ENOBUFS;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	nm = ibt_members_copy(mm, U32_MAX, m);
	if (!nm) {
		err = -ENOMEM;
		goto free;
	}
	f = ibt_feed_get(&a, &p, NULL);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
		goto free;
	}
	if (ibt_member_reads(is, mm, f)) {
		err = -EADDRINUSE;
		goto put;
	}
	err = ibt_feed_permission(f, IBT_ACL_READ, &m->sub_acl_gen);
	if (err)
		goto put;
	/* a feed its publishers created joins fully for its first reader */
	err = ibt_feed_ib_receive(f);
	if (err)
		goto put;
	if (is->source_cmsg) {
		err = ibt_member_sources(f, true);
		if (err)
			goto put;
	}
	m->feed = f;
	m->is = is;
	m->addr = a;
	m->addr.ifindex = f->ifindex;
	m->cursor = ibt_ring_producer(&f->ring);
	refcount_set(&m->ref, 1);	/* the array's */
	atomic_set(&m->mappings, 0);
	ibt_member_reader(is, f, true);
	spin_lock(&is->watch_lock);
	ibt_member_forward_watched(is, m);
	/* bind()'s feed, if any, now wakes the socket's own sleepers too */
	if (is->subscribed)
		ibt_member_forward_watched(is, &is->sub);
	rcu_assign_pointer(is->more, nm);
	ibt_members_changed(is);
	spin_unlock(&is->watch_lock);
	if (mm)
		kfree_rcu(mm, rcu);
	/*
	 * a reader asleep on the one feed the socket read (bind()'s alone,
	 * or one added) looks again, at all
	 */
	if (one)
		wake_up_interruptible_all(&one->feed->wq);
	/*
	 * and whoever waits on the socket's queue, at the new member too: a
	 * tick it took before it was listed and forwarded woke nobody there
	 */
	wake_up_interruptible_all(sk_sleep(&is->sk));
	return 0;
put:
	ibt_feed_put(f);
free:
	kfree(nm);
	kfree(m);
	return err;
}

int ibt_member_drop(struct ibt_sock *is, sockptr_t optval,
		    unsigned int optlen)
{
	struct ibt_members *mm = ibt_members_locked(is), *nm;
	struct sockaddr_ibtick sa;
	struct ibt_member *m = NULL;
	struct ibt_addr a;
	u32 i, at = 0, hits = 0;
	bool only;
	int err;

	err = ibt_member_sa(&sa, optval, optlen, &a);
	if (err)
		return err;
	for (i = 0; mm && i < mm->n; i++) {
		struct ibt_member *c = mm->m[i];

		if (!ibt_addr_same(&a, &c->addr))
			continue;
		m = c;
		at = i;
		hits++;
	}
	if (hits != 1)
		return -EADDRNOTAVAIL;	/* none, or ifindex 0 and several */
	nm = ibt_members_copy(mm, at, NULL);
	if (!nm)
		return -ENOMEM;
	only = ibt_members_one(is, mm) == m;
	spin_lock(&is->watch_lock);
	rcu_assign_pointer(is->more, nm);
	ibt_members_changed(is);
	if (m->forwarding)
		remove_wait_queue(&m->feed->wq, &m->wqe);
	spin_unlock(&is->watch_lock);
	kfree_rcu(mm, rcu);
	/* a reader asleep on this feed alone looks again: it reads none */
	if (only)
		wake_up_interruptible_all(&m->feed->wq);
	ibt_member_reader(is, m->feed, false);
	/* freed after a grace period, or at the last munmap of its ring */
	ibt_member_put(m);
	return 0;
}

/*
 * The member reading feed @id, bind()'s included, or NULL.  Context:
 * rcu_read_lock() (the member stays while it lasts) or the socket lock.
 */
struct ibt_member *ibt_member_find_rcu(struct ibt_sock *is, u32 id)
{
	struct ibt_members *mm = rcu_dereference_check(is->more,
						       lockdep_is_held(&is->lock));
	u32 i;

	/* pairs with bind's release: a subscribed socket's sub is set */
	if (smp_load_acquire(&is->subscribed) && is->sub.feed->id == id)
		return &is->sub;
	for (i = 0; mm && i < mm->n; i++)
		if (mm->m[i]->feed->id == id)
			return mm->m[i];
	return NULL;
}

int ibt_member_set_cursor(struct ibt_sock *is, sockptr_t optval,
			  unsigned int optlen)
{
	struct ibtick_member_cursor mc;
	struct ibt_member *m;

	if (optlen != sizeof(mc))
		return -EINVAL;
	if (copy_from_sockptr(&mc, optval, sizeof(mc)))
		return -EFAULT;
	if (mc.reserved)
		return -EINVAL;
	m = ibt_member_find_rcu(is, mc.feed_id);	/* socket lock held */
	if (!m)
		return -EADDRNOTAVAIL;
	/* as IBTICK_RING_CURSOR: not past the producer; behind is lapped */
	if (mc.cursor > ibt_ring_producer(&m->feed->ring))
		return -EINVAL;
	WRITE_ONCE(m->cursor, mc.cursor);
	return 0;
}

static void ibt_member_info(const struct ibt_member *m, u32 flags,
			    struct ibtick_member *out)
{
	memset(out, 0, sizeof(*out));
	ibt_addr_fill(&m->addr, ibt_family, &out->addr);
	out->feed_id = m->feed->id;
	out->flags = flags;
	out->cursor = m->cursor;
	out->lost = m->lost;
	out->mmap_offset = IBTICK_MMAP_FEED(m->feed->id);
	out->mmap_size = ibt_mmap_size(&m->feed->ring);
}

/*
 * IBTICK_FEEDS: as many entries as @len holds (a multiple of the size,
 * else EINVAL), their bytes in *@optlen; ERANGE with the bytes needed
 * when they do not all fit (as SO_PEERGROUPS).  The socket lock held.
 */
int ibt_member_list(struct ibt_sock *is, char __user *optval,
		    int __user *optlen, int len)
{
	struct ibt_members *mm = ibt_members_locked(is);
	struct ibtick_member e;
	u32 n = (mm ? mm->n : 0) + is->subscribed, i, k = 0;
	size_t need = (size_t)n * sizeof(e);

	if (len % sizeof(e))
		return -EINVAL;
	if (need > (size_t)len) {
		if (put_user((int)need, optlen))
			return -EFAULT;
		return -ERANGE;
	}
	if (is->subscribed) {
		ibt_member_info(&is->sub, IBTICK_MEMBER_BOUND, &e);
		if (copy_to_user(optval, &e, sizeof(e)))
			return -EFAULT;
		k++;
	}
	for (i = 0; mm && i < mm->n; i++, k++) {
		ibt_member_info(mm->m[i], 0, &e);
		if (copy_to_user(optval + k * sizeof(e), &e, sizeof(e)))
			return -EFAULT;
	}
	if (put_user((int)need, optlen))
		return -EFAULT;
	return 0;
}

/*
 * The socket is going (its last mapping is gone: mappings hold its file):
 * nothing else looks at its members any more.
 */
void ibt_member_release(struct ibt_sock *is)
{
	struct ibt_members *mm = rcu_dereference_protected(is->more, true);
	u32 i;

	if (is->subscribed && is->sub.forwarding)
		remove_wait_queue(&is->sub.feed->wq, &is->sub.wqe);
	if (is->subscribed && is->source_cmsg)
		ibt_member_sources(is->sub.feed, false);
	if (!mm)
		return;
	for (i = 0; i < mm->n; i++) {
		if (mm->m[i]->forwarding)
			remove_wait_queue(&mm->m[i]->feed->wq, &mm->m[i]->wqe);
		ibt_member_reader(is, mm->m[i]->feed, false);
		ibt_member_put(mm->m[i]);
	}
	RCU_INIT_POINTER(is->more, NULL);
	kfree(mm);
}
