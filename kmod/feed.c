// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds: one per (multicast group, feed port, device port), shared by every
 * local socket on it.  This file is the feed object: lookup and creation
 * (by a socket's bind/connect, or by an administrator), what it costs its
 * creator, who may use it, and its lifetime.  Its verbs resources are
 * feed_ib.c's, its multicast membership join.c's.
 *
 * Lifetime: allocated and listed under ibt_feeds_lock, marked creating;
 * its verbs side is built and its group joined without that lock (a fabric
 * round trip must not hold up the host's other binds, closes and dumps),
 * and whoever looks the feed up meanwhile waits for its creation to end.
 * Each socket (and an admin feed itself) holds a reference.  A feed is killed - live cleared,
 * its ring marked DEAD, its verbs torn down - by FEED_DEL, by the removal
 * of its device, or by its last put; the ring and the wait queue stay
 * until the last reference goes, so sockets read what was received and
 * learn that the feed is dead.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/notifier.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/netlink.h>
#include <rdma/ib_cache.h>

#include "addr.h"
#include "ibt.h"

DEFINE_MUTEX(ibt_feeds_lock);	/* protects ibt_feeds, feed setup/teardown */
LIST_HEAD(ibt_feeds);		/* sorted by id (ids only grow) */
u32 ibt_feeds_gen;		/* dump consistency; ibt_feeds_lock */
static unsigned int ibt_nauto;	/* auto feeds on ibt_feeds; ibt_feeds_lock */
static u32 ibt_feed_next_id = 1;	/* ibt_feeds_lock */

/*
 * With auto_feeds=0 only feeds an administrator created (IBTICK_CMD_FEED_NEW)
 * can be bound or published to: a bind to any other address is refused.
 */
static bool auto_feeds = true;
module_param(auto_feeds, bool, 0644);
MODULE_PARM_DESC(auto_feeds, "let bind()/connect() create feeds (default 1; 0: admin-created feeds only)");

/*
 * Any user may subscribe, so creating auto feeds (each one a QP, a ring of
 * up to IBTICK_RING_BYTES_MAX and a fabric join) is capped host-wide and
 * per user; an administrator's FEED_NEW is not held back by either.
 */
static unsigned int max_feeds = 256;
module_param(max_feeds, uint, 0644);
MODULE_PARM_DESC(max_feeds, "most auto feeds the host may have at once (ENOBUFS beyond)");

static unsigned int max_user_feeds = 32;
module_param(max_user_feeds, uint, 0644);
MODULE_PARM_DESC(max_user_feeds, "most auto feeds one user without CAP_NET_ADMIN may have created (ENOBUFS beyond)");

/*
 * Charge @bytes of @f's pinned memory to the calling user's locked memory,
 * as AF_XDP charges its umem: RLIMIT_MEMLOCK bounds what an unprivileged
 * user can pin; CAP_IPC_LOCK is exempt.  All of a feed's memory is
 * charged: the ring and the send buffers to its creator (IBT_ML_CREATE,
 * possibly in two steps), the receive buffers to whoever starts the
 * receive side (IBT_ML_RECEIVE, once).  Sockets that join a feed that
 * exists share it and pay nothing.  Returns 0 or -ENOBUFS.  Context:
 * process, the paying user's (creation; a first reader under the feed's
 * member_lock).
 */
int ibt_memlock_charge(struct ibt_feed *f, enum ibt_ml who, u64 bytes)
{
	unsigned long pages = PAGE_ALIGN(bytes) >> PAGE_SHIFT;
	struct ibt_memlock *ml = &f->memlock[who];
	unsigned long limit, old, new;
	struct user_struct *user;

	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	/* one user per charge: a second step of the creator's adds to it */
	user = ml->user ? ml->user : get_uid(current_user());
	do {
		old = atomic_long_read(&user->locked_vm);
		new = old + pages;
		if (new > limit) {
			if (!ml->user)
				free_uid(user);
			return -ENOBUFS;
		}
	} while (atomic_long_cmpxchg(&user->locked_vm, old, new) != old);
	ml->user = user;
	ml->pages += pages;
	return 0;
}

static void ibt_memlock_uncharge(struct ibt_feed *f)
{
	struct ibt_memlock *ml;

	for (ml = f->memlock; ml < f->memlock + IBT_ML_N; ml++) {
		if (!ml->user)
			continue;
		atomic_long_sub(ml->pages, &ml->user->locked_vm);
		free_uid(ml->user);
		ml->user = NULL;
		ml->pages = 0;
	}
}

static void ibt_feed_unlist(struct ibt_feed *f)
{
	lockdep_assert_held(&ibt_feeds_lock);
	if (!f->listed)
		return;
	list_del(&f->list);
	f->listed = false;
	if (!f->by_admin)
		ibt_nauto--;
	ibt_feeds_gen++;
}

/*
 * End a live feed: no receive poll after this, DEAD for its readers (only
 * now: DEAD promises that no tick follows it), its verbs resources gone.
 * With @drain, ticks still in the send queue go out first.  Once per feed.
 */
static void ibt_feed_kill(struct ibt_feed *f, bool drain)
{
	lockdep_assert_held(&ibt_feeds_lock);
	if (drain && !f->arb)
		ibt_tx_drain(f, IBT_TX_DRAIN_MS);
	WRITE_ONCE(f->live, false);
	ibt_feeds_gen++;
	if (f->announced)	/* not a failed arbitrated feed's creation */
		ibt_ev_feed(IBTICK_EV_FEED_DESTROYED, f, 0, 0, 0);
	/* an arbitrated feed's rails write its ring: they end first */
	if (f->arb)
		ibt_arb_stop_locked(f);
	/* no owner drains or re-arms the CQ after this (poll.c) */
	ibt_poll_seize(f);
	ibt_ring_set_dead(&f->ring);
	wake_up_interruptible_all(&f->wq);
	if (!f->arb)
		ibt_feed_ib_teardown(f);
}

static void ibt_feed_release(struct kref *ref)
{
	struct ibt_feed *f = container_of(ref, struct ibt_feed, ref);

	lockdep_assert_held(&ibt_feeds_lock);
	ibt_feed_unlist(f);
	if (f->live)
		ibt_feed_kill(f, true);
	if (f->dev)
		ibt_dev_put(f->dev);
	ibt_arb_free(f);
	ibt_memlock_uncharge(f);
	kvfree(f->src);
	vfree(f->ring_mem);
	kfree(f);
}

void ibt_feed_put(struct ibt_feed *f)
{
	mutex_lock(&ibt_feeds_lock);
	kref_put(&f->ref, ibt_feed_release);
	mutex_unlock(&ibt_feeds_lock);
}

/* ibt_feed_put() with ibt_feeds_lock held already. */
void ibt_feed_put_locked(struct ibt_feed *f)
{
	lockdep_assert_held(&ibt_feeds_lock);
	kref_put(&f->ref, ibt_feed_release);
}

/* Auto feeds the user @uid created that are still listed. */
static unsigned int ibt_user_feeds_locked(kuid_t uid)
{
	struct ibt_feed *f;
	unsigned int n = 0;

	list_for_each_entry(f, &ibt_feeds, list)
		n += !f->by_admin && uid_eq(f->creator, uid);
	return n;
}

/*
 * May the caller create an auto feed with @p's geometry?  The host-wide
 * and per-user caps, and the geometry rule: a ring with fewer slots or
 * smaller slots than the defaults would lap or truncate every later
 * reader of a well-known group, so only CAP_NET_ADMIN may impose one (or
 * an administrator, through FEED_NEW).  Returns 0, -ENOBUFS or -EPERM.
 */
static int ibt_feed_auto_allowed_locked(const struct ibt_feed_params *p)
{
	bool admin = ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);

	if (ibt_nauto >= READ_ONCE(max_feeds))
		return -ENOBUFS;
	if (admin)
		return 0;
	if (ibt_user_feeds_locked(current_fsuid()) >= READ_ONCE(max_user_feeds))
		return -ENOBUFS;
	if (p->nslots < IBTICK_SLOTS_DEFAULT ||
	    p->slot_size < IBTICK_SLOT_SIZE_DEFAULT)
		return -EPERM;
	return 0;
}

/*
 * What every feed has, device or not: the object, its locks, its ring
 * (charged), its ACL.  Not listed yet; no id.  ibt_feeds_lock held.
 */
static struct ibt_feed *ibt_feed_new_locked(const struct ibt_feed_params *p,
					    u64 ring_bytes, bool admin,
					    struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	int err;

	lockdep_assert_held(&ibt_feeds_lock);
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return ERR_PTR(-ENOMEM);
	kref_init(&f->ref);
	f->by_admin = admin;
	f->creator = current_fsuid();
	f->rq_size = IBT_RQ_SIZE;
	f->sq_size = IBT_SQ_SIZE;
	init_completion(&f->joined);
	init_completion(&f->created);
	spin_lock_init(&f->new_ah_lock);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->tx_lock);
	mutex_init(&f->member_lock);
	INIT_LIST_HEAD(&f->old_ahs);
	ibt_poll_init(f);
	if (p->has_prefer_defer)
		f->prefer_defer_us = p->prefer_defer_us;
	f->comp_vector = p->comp_vector;
	spin_lock_init(&f->acl_lock);
	f->acl = p->acl;
	f->loopback_policy = p->loopback_policy;
	ibt_pubtrack_init(&f->pubs);
	err = ibt_memlock_charge(f, IBT_ML_CREATE, ring_bytes);
	if (err) {
		NL_SET_ERR_MSG(extack, "ring exceeds RLIMIT_MEMLOCK");
		goto out_free;
	}
	/*
	 * The ring is charged to the creator's memory cgroup as well; over
	 * its limit the bind fails with ENOMEM rather than waking the OOM
	 * killer (RETRY_MAYFAIL).  Zeroed: it is mapped to user space.
	 */
	err = -ENOMEM;
	f->ring_mem = __vmalloc(PAGE_ALIGN(ring_bytes),
				IBT_GFP_CHARGED | __GFP_ZERO);
	if (!f->ring_mem)
		goto out_free;
	ibt_ring_init(&f->ring, f->ring_mem, p->nslots, p->slot_size, 0);
	return f;

out_free:
	ibt_memlock_uncharge(f);
	kfree(f);
	return ERR_PTR(err);
}

/* Give @f its id and name and put it on the list, creating. */
static void ibt_feed_list_locked(struct ibt_feed *f,
				 const struct ibt_feed_params *p)
{
	f->id = ibt_feed_next_id++;
	if (!ibt_feed_next_id)		/* 0 names no feed (IBTICK_MMAP_FEED) */
		ibt_feed_next_id = 1;
	if (p->name)
		strscpy(f->name, p->name, sizeof(f->name));
	else
		snprintf(f->name, sizeof(f->name), "auto-%u", f->id);
	WRITE_ONCE(f->live, true);	/* the receive side may start in setup */
	f->creating = true;
	list_add_tail(&f->list, &ibt_feeds);
	f->listed = true;
	if (!f->by_admin)
		ibt_nauto++;
}

/*
 * A new feed for @a on device port (@d, @port): its memory, charged, and
 * its place on the list, marked creating; ibt_feed_create() builds the
 * rest.  Takes over the caller's reference on @d.  Context: process,
 * ibt_feeds_lock held.
 */
static struct ibt_feed *ibt_feed_alloc_locked(struct ibt_dev *d, u32 port,
					      const struct ibt_addr *a,
					      const struct ibt_feed_params *p,
					      u64 ring_bytes, bool admin,
					      struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	int err;

	lockdep_assert_held(&ibt_feeds_lock);
	err = admin ? 0 : ibt_feed_auto_allowed_locked(p);
	if (err)
		goto out_put_dev;
	f = ibt_feed_new_locked(p, ring_bytes, admin, extack);
	if (IS_ERR(f)) {
		err = PTR_ERR(f);
		goto out_put_dev;
	}
	f->dev = d;
	f->port_num = port;
	f->dport = &d->ports[port - rdma_start_port(d->ibdev)];
	ibt_dev_name(d, f->dev_name);
	f->group = a->group;
	f->port = a->port;
	f->ifindex = a->ifindex;
	if (!f->ifindex) {
		char name[IFNAMSIZ];
		union ib_gid gid;

		if (rdma_query_gid(d->ibdev, port, 0, &gid) ||
		    ibt_port_netdev(d->ibdev, port, &gid, &f->ifindex, name)) {
			err = -EADDRNOTAVAIL;
			NL_SET_ERR_MSG(extack, "the device port has no netdev");
			goto out_free;
		}
	}

	ibt_feed_list_locked(f, p);
	return f;

out_free:
	ibt_memlock_uncharge(f);
	vfree(f->ring_mem);
	kfree(f);
out_put_dev:
	ibt_dev_put(d);
	return ERR_PTR(err);
}

/*
 * Build the verbs side of @f, which ibt_feed_alloc_locked() listed as
 * creating, and end its creation: announced, or unlisted and put.  Returns
 * @f (the creator's reference) or an error.  Context: process, no ibtick
 * lock held; sleeps for the multicast join (IBT_JOIN_TIMEOUT_MS at most).
 */
static struct ibt_feed *ibt_feed_create(struct ibt_feed *f, bool receive,
					bool admin,
					struct netlink_ext_ack *extack)
{
	int err;

	err = ibt_feed_ib_setup(f, receive, extack);
	mutex_lock(&ibt_feeds_lock);
	f->creating = false;
	f->create_err = err;
	if (err) {
		WRITE_ONCE(f->live, false);	/* nothing to tear down */
		ibt_feed_unlist(f);
	} else {
		if (admin) {
			/* the creation's reference is its own, one more the caller's */
			WRITE_ONCE(f->admin, true);
			kref_get(&f->ref);
		}
		/* broken while created: the device work passed it by */
		if (READ_ONCE(f->broken))
			ibt_dev_work_soon(f->dev, 0);
		ibt_feeds_gen++;
		WRITE_ONCE(f->announced, true);
		ibt_ev_feed(IBTICK_EV_FEED_CREATED, f, 0, 0, 0);
		ibt_ev_feed(IBTICK_EV_JOIN_DONE, f, 0, 0, 0);
	}
	complete_all(&f->created);
	if (err)
		kref_put(&f->ref, ibt_feed_release);
	mutex_unlock(&ibt_feeds_lock);
	return err ? ERR_PTR(err) : f;
}

/*
 * The live (or creating) feed of (@d, @port, @a), referenced, or NULL.
 * ibt_feeds_lock held.
 */
static struct ibt_feed *ibt_feed_lookup_locked(struct ibt_dev *d, u32 port,
					       const struct ibt_addr *a)
{
	struct ibt_feed *f;

	list_for_each_entry(f, &ibt_feeds, list) {
		if ((f->live || f->creating) && f->dev == d && !f->rail_of &&
		    f->port_num == port &&
		    f->group == a->group && f->port == a->port) {
			kref_get(&f->ref);
			return f;
		}
	}
	return NULL;
}

/* Does a listed feed, created or being created, have the name @name? */
static bool ibt_feed_name_taken_locked(const char *name)
{
	struct ibt_feed *f;

	list_for_each_entry(f, &ibt_feeds, list)
		if (!strcmp(f->name, name))
			return true;
	return false;
}

/* May the caller @want on a feed with @f's ACL?  0 or -EACCES. */
static int ibt_feed_acl_check(struct ibt_feed *f, unsigned int want)
{
	struct ibt_acl acl;

	spin_lock(&f->acl_lock);
	acl = f->acl;
	spin_unlock(&f->acl_lock);
	if (ibt_acl_permits(&acl, current_fsuid(), in_group_p(acl.group),
			    want) ||
	    ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN))
		return 0;
	return -EACCES;
}

/*
 * An admin feed's ACL owns its group and feed port on every local port,
 * an arbitrated feed's its rails': may the caller @want on an auto feed
 * for @a, on another port (to create it, or to share one there)?  Asked of the first admin feed, made
 * or being made, with that group and feed port; 0, or its refusal
 * (-EACCES).  ibt_feeds_lock held.
 */
static int ibt_feed_admin_claim_locked(const struct ibt_addr *a,
				       unsigned int want)
{
	struct ibt_feed *f;

	/* a rail's group is its arbitrated feed's: that ACL decides */
	list_for_each_entry(f, &ibt_feeds, list)
		if (f->by_admin && f->group == a->group && f->port == a->port)
			return ibt_feed_acl_check(f->rail_of ?: f, want);
	return 0;
}

/*
 * Is @a the address of an admin feed whose device went away?  It keeps the
 * address (and its ACL) until FEED_DEL: no auto feed may take it meanwhile.
 */
static bool ibt_feed_dead_admin_locked(const struct ibt_addr *a)
{
	struct ibt_feed *f;

	list_for_each_entry(f, &ibt_feeds, list)
		if (f->admin && !f->live && f->group == a->group &&
		    f->port == a->port &&
		    (!a->ifindex || f->ifindex == a->ifindex))
			return true;
	return false;
}

/*
 * The live feed whose id @a names (IBTICK_ADDR_FEED_ID), referenced: any
 * listed feed but a rail; an arbitrated one only to read (its ticks are
 * published on its rails' groups).  Nothing is created.
 */
static struct ibt_feed *ibt_feed_by_id(const struct ibt_addr *a, bool receive)
{
	struct ibt_addr key = {};
	struct ibt_feed *f;
	int err = 0;

	mutex_lock(&ibt_feeds_lock);
	f = ibt_feed_find_locked(a->feed_id, NULL);
	if (!f || f->rail_of || !f->live) {
		err = -EADDRNOTAVAIL;
	} else if (f->arb && !receive) {
		err = -EOPNOTSUPP;
	} else if (!f->by_admin) {
		/* an auto feed: its group's admin ACL decides, as by address */
		key.group = f->group;
		key.port = f->port;
		err = ibt_feed_admin_claim_locked(&key, receive ? IBT_ACL_READ :
								  IBT_ACL_WRITE);
	}
	if (!err)
		kref_get(&f->ref);
	mutex_unlock(&ibt_feeds_lock);
	return err ? ERR_PTR(err) : f;
}

/*
 * Find or build the feed for @a.  A socket (@admin false) shares an
 * existing feed and creates one only as an auto feed; an administrator
 * (@admin true) creates a named feed and finds nothing to share: a feed
 * already serving the address, or the name, is EEXIST.
 */
static struct ibt_feed *ibt_feed_obtain(const struct ibt_addr *a,
					const struct ibt_feed_params *p,
					bool admin,
					struct netlink_ext_ack *extack)
{
	unsigned int want;
	struct ibt_feed *f;
	struct ibt_dev *d;
	u64 ring_bytes;
	u32 port;
	int err;

	if (a->feed_id)
		return admin ? ERR_PTR(-EINVAL) : ibt_feed_by_id(a, p->receive);
	err = ibt_ring_geometry(p->nslots, p->slot_size, &ring_bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "slots x slot size exceeds the ring size limit");
		return ERR_PTR(err);
	}
again:
	mutex_lock(&ibt_feeds_lock);
	if (admin && ibt_feed_name_taken_locked(p->name)) {
		NL_SET_ERR_MSG(extack, "a feed of that name exists");
		f = ERR_PTR(-EEXIST);
		goto out_unlock;
	}
	d = ibt_dev_get_by_netdev(a->ifindex, &port);
	if (IS_ERR(d)) {
		NL_SET_ERR_MSG(extack,
			       "no IB/RoCE port behind that netdev (or several: name one)");
		f = ERR_CAST(d);
		goto out_unlock;
	}
	f = ibt_feed_lookup_locked(d, port, a);
	want = p->receive ? IBT_ACL_READ : IBT_ACL_WRITE;
	if (f && admin) {
		NL_SET_ERR_MSG(extack, "another feed serves that group and port");
		kref_put(&f->ref, ibt_feed_release);
		f = ERR_PTR(-EEXIST);
	} else if (!f && !admin &&
		   (!READ_ONCE(auto_feeds) || ibt_feed_dead_admin_locked(a))) {
		f = ERR_PTR(-EADDRNOTAVAIL);	/* no admin feed there */
	} else if (!admin && (!f || !f->by_admin)) {
		/* an auto feed, new or shared: the group's admin ACL decides */
		err = ibt_feed_admin_claim_locked(a, want);
		if (err) {
			if (f)
				kref_put(&f->ref, ibt_feed_release);
			f = ERR_PTR(err);
		}
	}
	if (f) {
		ibt_dev_put(d);
		if (IS_ERR(f) || !f->creating)
			goto out_unlock;
		/* somebody is building it: wait for the end, without the lock */
		mutex_unlock(&ibt_feeds_lock);
		err = wait_for_completion_killable(&f->created);
		if (!err && !f->create_err && ibt_feed_live(f))
			return f;
		ibt_feed_put(f);
		if (err)
			return ERR_PTR(err);
		goto again;	/* failed for its creator, or gone since: anew */
	}
	f = ibt_feed_alloc_locked(d, port, a, p, ring_bytes, admin, extack);
	mutex_unlock(&ibt_feeds_lock);
	if (IS_ERR(f))
		return f;
	return ibt_feed_create(f, p->receive, admin, extack);

out_unlock:
	mutex_unlock(&ibt_feeds_lock);
	return f;
}

/*
 * The live feed for @a, referenced: an existing one, or one created with
 * @p's geometry unless auto_feeds is off or a dead admin feed keeps the
 * address.  Context: process, may sleep for the multicast join (bounded by
 * IBT_JOIN_TIMEOUT_MS).
 */
struct ibt_feed *ibt_feed_get(const struct ibt_addr *a,
			      const struct ibt_feed_params *p,
			      struct netlink_ext_ack *extack)
{
	return ibt_feed_obtain(a, p, false, extack);
}

/*
 * IBTICK_CMD_FEED_NEW: a named feed that holds a reference of its own, so it
 * lives with no socket on it until ibt_feed_del_locked().  Returned with a
 * reference for the caller (a concurrent FEED_DEL may end the feed before
 * the caller is done with it); put it with ibt_feed_put().  Context:
 * process, no ibtick lock held.
 */
struct ibt_feed *ibt_feed_add_admin(const struct ibt_addr *a,
				    const struct ibt_feed_params *p,
				    struct netlink_ext_ack *extack)
{
	return ibt_feed_obtain(a, p, true, extack);
}

/*
 * Rail @idx of the arbitrated feed @parent, on @a: a feed of its own,
 * receiving from the start, listed (dumps, device removal) but never
 * shared - lookups by address pass rails by, and binding one by id is
 * refused.  Its ring is the smallest: its ticks go to @parent's
 * (rx.c, arb_feed.c), which must be ready for them.  Returns it with a
 * reference for @parent.  Context: process, no ibtick lock held; sleeps
 * for the join.
 */
struct ibt_feed *ibt_feed_rail_create(struct ibt_feed *parent, u32 idx,
				      const struct ibt_addr *a,
				      struct netlink_ext_ack *extack)
{
	struct ibt_feed_params p = {
		.nslots = IBTICK_SLOTS_MIN,
		.slot_size = IBTICK_SLOT_SIZE_MIN,
		.comp_vector = parent->comp_vector,
		.receive = true,
	};
	char name[IBTICK_FEED_NAME_MAX];
	struct ibt_feed *f;
	struct ibt_dev *d;
	u64 ring_bytes;
	u32 port;

	if (ibt_ring_geometry(p.nslots, p.slot_size, &ring_bytes))
		return ERR_PTR(-EINVAL);
	/* "NAME.r0", or by the feed's id when the name is too long for it */
	if (snprintf(name, sizeof(name), "%s.r%u", parent->name, idx) >=
	    sizeof(name))
		snprintf(name, sizeof(name), "arb-%u.r%u", parent->id, idx);
	p.name = name;
	mutex_lock(&ibt_feeds_lock);
	if (ibt_feed_name_taken_locked(name)) {
		NL_SET_ERR_MSG(extack, "a feed has the rail's name (NAME.rN)");
		f = ERR_PTR(-EEXIST);
		goto out_unlock;
	}
	d = ibt_dev_get_by_netdev(a->ifindex, &port);
	if (IS_ERR(d)) {
		NL_SET_ERR_MSG(extack, "no IB/RoCE port behind a rail's netdev");
		f = ERR_CAST(d);
		goto out_unlock;
	}
	f = ibt_feed_alloc_locked(d, port, a, &p, ring_bytes, true, extack);
	if (!IS_ERR(f)) {
		f->rail_of = parent;
		f->rail_idx = idx;
	}
out_unlock:
	mutex_unlock(&ibt_feeds_lock);
	if (IS_ERR(f))
		return f;
	return ibt_feed_create(f, true, false, extack);
}

/*
 * A new arbitrated feed: no device and no verbs of its own, listed as
 * creating while its caller (arb_feed.c) builds its rails; ended with
 * ibt_feed_arb_created().  Returned with the creator's reference.
 * Context: process, no ibtick lock held.
 */
struct ibt_feed *ibt_feed_arb_new(const struct ibt_feed_params *p,
				  struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	u64 ring_bytes;
	int err;

	err = ibt_ring_geometry(p->nslots, p->slot_size, &ring_bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "slots x slot size exceeds the ring size limit");
		return ERR_PTR(err);
	}
	mutex_lock(&ibt_feeds_lock);
	if (ibt_feed_name_taken_locked(p->name)) {
		NL_SET_ERR_MSG(extack, "a feed of that name exists");
		f = ERR_PTR(-EEXIST);
	} else {
		f = ibt_feed_new_locked(p, ring_bytes, true, extack);
		if (!IS_ERR(f))
			ibt_feed_list_locked(f, p);
	}
	mutex_unlock(&ibt_feeds_lock);
	return f;
}

/*
 * The end of an arbitrated feed's creation: announced, with its own
 * reference (an admin feed), or, after @err, unlisted and put.  Returns
 * @f with the creator's reference, or the error.
 */
struct ibt_feed *ibt_feed_arb_created(struct ibt_feed *f, int err)
{
	mutex_lock(&ibt_feeds_lock);
	f->creating = false;
	f->create_err = err;
	if (err) {
		ibt_feed_unlist(f);
		ibt_feed_kill(f, false);
	} else {
		WRITE_ONCE(f->admin, true);
		kref_get(&f->ref);
		ibt_feeds_gen++;
		WRITE_ONCE(f->announced, true);
		ibt_ev_feed(IBTICK_EV_FEED_CREATED, f, 0, 0, 0);
	}
	complete_all(&f->created);
	if (err)
		kref_put(&f->ref, ibt_feed_release);
	mutex_unlock(&ibt_feeds_lock);
	return err ? ERR_PTR(err) : f;
}

/*
 * The listed feed with @id, or with @name when @name; not referenced.  A
 * feed still being created is not there yet.
 */
struct ibt_feed *ibt_feed_find_locked(u32 id, const char *name)
{
	struct ibt_feed *f;

	lockdep_assert_held(&ibt_feeds_lock);
	list_for_each_entry(f, &ibt_feeds, list)
		if (!f->creating && (name ? !strcmp(f->name, name) : f->id == id))
			return f;
	return NULL;
}

/*
 * IBTICK_CMD_FEED_DEL: unlist @f and tear it down now, as a device removal
 * would (its sockets see a dead feed and keep the ring until they close),
 * then drop an admin feed's own reference.  Context: ibt_feeds_lock held.
 */
void ibt_feed_del_locked(struct ibt_feed *f)
{
	lockdep_assert_held(&ibt_feeds_lock);
	ibt_feed_unlist(f);
	if (f->live)
		ibt_feed_kill(f, true);
	if (f->admin) {
		WRITE_ONCE(f->admin, false);
		kref_put(&f->ref, ibt_feed_release);
	}
}

/*
 * Module unload: no socket is left (each holds the module), so what remains
 * on the list are admin feeds.  Context: process, before the ib_client goes.
 */
void ibt_feeds_exit(void)
{
	struct ibt_feed *f;

	ibt_arb_quiesce_all();
	mutex_lock(&ibt_feeds_lock);
	/* one at a time: an arbitrated feed takes its rails with it */
	while ((f = list_first_entry_or_null(&ibt_feeds, struct ibt_feed,
					     list)))
		ibt_feed_del_locked(f);
	mutex_unlock(&ibt_feeds_lock);
}

/*
 * May the caller subscribe (IBT_ACL_READ) or publish (IBT_ACL_WRITE) on @f?
 * Admin feeds decide by their ACL, auto feeds let anyone subscribe and
 * CAP_NET_RAW publish; CAP_NET_ADMIN passes.  Returns 0, -EACCES (the ACL
 * said no) or -EPERM (no capability).  Context: process (the caller's
 * credentials).  On success *@gen (if not NULL) is set to the generation of
 * the ACL that allowed it.  Takes only the feed's acl_lock: binds and sends
 * never wait for a feed being created or torn down elsewhere.
 *
 * The ACL is asked before any capability, and the CAP_NET_ADMIN override
 * is looked up without an audit record: an ordinary user's bind or send is
 * no capability denial for audit or the LSMs to log.  Only the capability
 * that decides (CAP_NET_RAW on an auto feed) is checked audibly.
 */
int ibt_feed_permission(struct ibt_feed *f, unsigned int want, u32 *gen)
{
	struct ibt_acl acl;
	bool allowed;
	int err = 0;
	u32 g;

	spin_lock(&f->acl_lock);
	acl = f->acl;
	g = f->acl_gen;		/* the ACL this answer is for */
	spin_unlock(&f->acl_lock);
	if (READ_ONCE(f->admin)) {
		allowed = ibt_acl_permits(&acl, current_fsuid(),
					  in_group_p(acl.group), want) ||
			  ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
		err = allowed ? 0 : -EACCES;
	} else if (want & IBT_ACL_WRITE) {
		allowed = ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN) ||
			  capable(CAP_NET_RAW);
		err = allowed ? 0 : -EPERM;
	}
	/* a refusal must not let the next send skip the question */
	if (!err && gen)
		*gen = g;
	return err;
}

/*
 * Device @d is being removed: tear down every feed on it now (sockets keep
 * the dead feeds until they close) and let no new one be built.
 * Context: process, from the ib_client remove callback.
 */
static void ibt_feeds_dev_gone(struct ibt_dev *d)
{
	struct ibt_feed *f, *tmp;

again:
	mutex_lock(&ibt_feeds_lock);
	/* a feed being built on @d: let its creation end first */
	list_for_each_entry(f, &ibt_feeds, list) {
		if (f->dev == d && f->creating) {
			kref_get(&f->ref);
			mutex_unlock(&ibt_feeds_lock);
			wait_for_completion(&f->created);
			ibt_feed_put(f);
			goto again;
		}
	}
	list_for_each_entry_safe(f, tmp, &ibt_feeds, list)
		if (f->dev == d)
			ibt_feed_fail_locked(f);
	mutex_unlock(&ibt_feeds_lock);
}

/*
 * End @f for good, its device gone or broken (a fatal QP/CQ event): an auto
 * feed leaves the list, an admin feed stays on it, dead, until FEED_DEL;
 * sockets keep a dead feed until they close.  Context: process,
 * ibt_feeds_lock held.
 */
void ibt_feed_fail_locked(struct ibt_feed *f)
{
	lockdep_assert_held(&ibt_feeds_lock);
	if (!f->live || f->creating)
		return;
	if (!f->admin)
		ibt_feed_unlist(f);
	ibt_feed_kill(f, false);
}

/* The device layer's notifications (ibdev.c), for feeds and their joins. */
static int ibt_feeds_dev_event(struct notifier_block *nb, unsigned long what,
			       void *data)
{
	const struct ibt_dev_port_event *pe = NULL;
	struct ibt_dev *d = data;

	if (what == IBT_DEV_PORT_EVENT) {
		pe = data;
		d = pe->dev;
	}
	if (what == IBT_DEV_REMOVING)
		ibt_feeds_dev_gone(d);
	ibt_join_dev_event(what, d, pe);
	return NOTIFY_DONE;
}

static struct notifier_block ibt_feeds_dev_nb = {
	.notifier_call = ibt_feeds_dev_event,
};

/* Before the ib_client is registered: its first devices are announced. */
int ibt_feeds_init(void)
{
	return ibt_dev_register_notifier(&ibt_feeds_dev_nb);
}

/* After the ib_client is gone: its last devices were removed. */
void ibt_feeds_unregister(void)
{
	ibt_dev_unregister_notifier(&ibt_feeds_dev_nb);
}

