// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds: one per (multicast group, feed port, device port), shared by every
 * local socket on it.  Creation joins the group through the in-kernel
 * rdma_cm (SA join on InfiniBand, IGMP on RoCE), builds the UD QP and its
 * CQs, maps the receive and send buffers once and posts the receives; the
 * data path then never allocates or maps anything.
 */
#include <linux/cred.h>
#include <linux/inetdevice.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/netlink.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "addr.h"
#include "ibt.h"

DEFINE_MUTEX(ibt_feeds_lock);	/* protects ibt_feeds, feed setup/teardown */
LIST_HEAD(ibt_feeds);		/* sorted by id (ids only grow) */
u32 ibt_feeds_gen;		/* dump consistency; ibt_feeds_lock */
static unsigned int ibt_nfeeds;	/* on ibt_feeds; ibt_feeds_lock */
static u32 ibt_feed_next_id = 1;	/* ibt_feeds_lock */

/*
 * With auto_feeds=0 only feeds an administrator created (IBTICK_CMD_FEED_NEW)
 * can be bound or published to: a bind to any other address is refused.
 */
static bool auto_feeds = true;
module_param(auto_feeds, bool, 0644);
MODULE_PARM_DESC(auto_feeds, "let bind()/connect() create feeds (default 1; 0: admin-created feeds only)");

/*
 * Any user may subscribe, so creating feeds (each one a QP, a ring of up to
 * IBTICK_RING_BYTES_MAX and a fabric join) is capped host-wide.
 */
static unsigned int max_feeds = 256;
module_param(max_feeds, uint, 0644);
MODULE_PARM_DESC(max_feeds, "most feeds the host may have at once (ENOBUFS beyond)");

/*
 * A rejoin came back.  The SA may have given the group a new MLID (or the
 * path a new SL) - after an SM failover, or when the group was recreated:
 * keep the new attributes for the rejoin work, which re-attaches the QP and
 * rebuilds the AH (neither may be done here: teardown waits for this
 * handler while holding ibt_feeds_lock).  Context: rdma_cm handler.
 */
static void ibt_feed_rejoined(struct ibt_feed *f,
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

/*
 * Apply attributes a rejoin brought (see ibt_feed_rejoined): move the QP's
 * attachment to the new MLID and send through a new AH.  Sends that used
 * the old AH complete first.  Context: the rejoin work, ibt_feeds_lock held.
 */
static void ibt_feed_apply_rejoin(struct ibt_feed *f)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah, *old_ah;
	union ib_gid mgid;
	u16 mlid;

	lockdep_assert_held(&ibt_feeds_lock);
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
	if (IS_ERR(ah)) {
		atomic64_inc(&f->st.join_errors);
		rdma_destroy_ah_attr(&attr);
		return;
	}
	ibt_tx_drain(f, 100);
	mutex_lock(&f->tx_lock);
	if (f->attached)
		ib_detach_mcast(f->qp, &f->mgid, f->mlid);
	f->attached = !ib_attach_mcast(f->qp, &mgid, mlid);
	if (!f->attached)
		atomic64_inc(&f->st.join_errors);
	old_ah = f->ah;
	f->ah = ah;
	WRITE_ONCE(f->mlid, mlid);
	f->mgid = mgid;
	mutex_unlock(&f->tx_lock);
	ibt_tx_drain(f, 100);	/* nothing may still use the old AH */
	rdma_destroy_ah(old_ah, RDMA_DESTROY_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&f->ah_attr);
	f->ah_attr = attr;
}

/*
 * rdma_cm events for a feed's id.  Context: rdma_cm's work queue.  Only the
 * join result matters here; the id is destroyed by the feed's teardown,
 * never by returning non-zero.
 */
static int ibt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibt_feed *f = id->context;

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
			f->dev->rejoin_backoff = 0;
			ibt_ev_feed(IBTICK_EV_JOIN_DONE, f, 0, 0, 0);
			ibt_feed_rejoined(f, &ev->param.ud.ah_attr);
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
		if (f->announced)
			ibt_ev_feed(IBTICK_EV_JOIN_FAILED, f,
				    ev->status < 0 ? -ev->status : ENETUNREACH,
				    0, atomic64_read(&f->st.join_errors));
		if (completion_done(&f->joined)) {
			/* lost the group after joining: try again, backing off */
			f->dev->rejoin_backoff =
				clamp(f->dev->rejoin_backoff * 2, 1U,
				      (unsigned int)IBT_REJOIN_MAX_S);
			ibt_dev_rejoin(f->dev, f->dport - f->dev->ports,
				       f->dev->rejoin_backoff);
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
 * Charge the ring to the creating user's locked memory, as AF_XDP charges
 * its umem: RLIMIT_MEMLOCK bounds what an unprivileged subscriber can pin;
 * CAP_IPC_LOCK is exempt.  Sockets that join an existing feed share it and
 * pay nothing.  Context: process (bind/connect).
 */
static int ibt_memlock_charge(struct ibt_feed *f, u64 bytes)
{
	unsigned long pages = PAGE_ALIGN(bytes) >> PAGE_SHIFT;
	unsigned long limit, old, new;
	struct user_struct *user;

	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	user = get_uid(current_user());
	do {
		old = atomic_long_read(&user->locked_vm);
		new = old + pages;
		if (new > limit) {
			free_uid(user);
			return -ENOBUFS;
		}
	} while (atomic_long_cmpxchg(&user->locked_vm, old, new) != old);
	f->memlock_user = user;
	f->memlock_pages = pages;
	return 0;
}

static void ibt_memlock_uncharge(struct ibt_feed *f)
{
	if (!f->memlock_user)
		return;
	atomic_long_sub(f->memlock_pages, &f->memlock_user->locked_vm);
	free_uid(f->memlock_user);
	f->memlock_user = NULL;
}

static void ibt_bufs_free(struct ib_device *ibdev, struct ibt_buf *b, u32 n,
			  u32 size, enum dma_data_direction dir)
{
	u32 i;

	if (!b)
		return;
	for (i = 0; i < n; i++) {
		if (!b[i].va)
			continue;
		ib_dma_unmap_single(ibdev, b[i].dma, size, dir);
		kfree(b[i].va);
	}
	kvfree(b);
}

static struct ibt_buf *ibt_bufs_alloc(struct ib_device *ibdev, u32 n, u32 size,
				      enum dma_data_direction dir)
{
	struct ibt_buf *b;
	u32 i;

	/* charged like the ring: over the cgroup's limit, ENOMEM, no OOM kill */
	b = kvcalloc(n, sizeof(*b), IBT_GFP_CHARGED);
	if (!b)
		return NULL;
	for (i = 0; i < n; i++) {
		b[i].va = kmalloc_node(size, IBT_GFP_CHARGED,
				       ibdev_to_node(ibdev));
		if (!b[i].va)
			goto fail;
		b[i].dma = ib_dma_map_single(ibdev, b[i].va, size, dir);
		if (ib_dma_mapping_error(ibdev, b[i].dma)) {
			kfree(b[i].va);
			b[i].va = NULL;
			goto fail;
		}
	}
	return b;
fail:
	ibt_bufs_free(ibdev, b, n, size, dir);
	return NULL;
}

/* The netdev's first IPv4 address: rdma_cm binds the id (and so picks the
 * device port) by source address.
 */
static int ibt_netdev_addr(int ifindex, struct sockaddr_in *sin)
{
	struct net_device *nd;
	struct in_device *in;
	int err = -EADDRNOTAVAIL;

	rcu_read_lock();
	nd = dev_get_by_index_rcu(&init_net, ifindex);
	in = nd ? __in_dev_get_rcu(nd) : NULL;
	if (in && in->ifa_list) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = rcu_dereference(in->ifa_list)->ifa_local;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

static int ibt_qp_to_rts(struct ibt_feed *f)
{
	struct ib_qp_attr attr;
	int mask, err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	err = rdma_init_qp_attr(f->cm_id, &attr, &mask);
	if (err)
		return err;
	f->qkey = attr.qkey;
	err = ib_modify_qp(f->qp, &attr, mask);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(f->qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(f->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/*
 * Release the verbs side of a live feed.  The receive poll is stopped
 * before the QP and CQs go.  Context: process, ibt_feeds_lock held.
 */
static void ibt_feed_teardown(struct ibt_feed *f)
{
	struct ib_device *ibdev = f->dev->ibdev;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	lockdep_assert_held(&ibt_feeds_lock);
	WRITE_ONCE(f->live, false);
	if (f->announced)	/* once: teardown may run twice */
		ibt_ev_feed(IBTICK_EV_FEED_DESTROYED, f, 0, 0, 0);
	f->announced = false;
	ibt_feeds_gen++;
	/* no owner drains or re-arms the CQ after this (poll.c) */
	ibt_poll_seize(f);
	/* only now: DEAD promises readers that no tick follows it */
	ibt_ring_set_dead(&f->ring);
	wake_up_interruptible_all(&f->wq);
	if (f->qp)
		ib_modify_qp(f->qp, &attr, IB_QP_STATE);
	if (f->rcq) {
		irq_poll_disable(&f->iop);
		/* a CQ event handler may still be on its way out */
		synchronize_rcu();
	}
	if (f->attached)
		ib_detach_mcast(f->qp, &f->mgid, f->mlid);
	/* serialise with a sender between its live check and its post */
	mutex_lock(&f->tx_lock);
	if (f->qp)
		ib_destroy_qp(f->qp);	/* before the AH its flushed sends used */
	f->qp = NULL;
	if (f->ah)
		rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
	f->ah = NULL;
	mutex_unlock(&f->tx_lock);
	if (f->rcq)
		ib_destroy_cq(f->rcq);
	if (f->scq)
		ib_destroy_cq(f->scq);
	f->rcq = NULL;
	f->scq = NULL;
	ibt_bufs_free(ibdev, f->rx, f->rq_size, f->rx_buf_size, DMA_FROM_DEVICE);
	ibt_bufs_free(ibdev, f->tx, f->sq_size, f->wire_max, DMA_TO_DEVICE);
	f->rx = NULL;
	f->tx = NULL;
	if (f->pd)
		ib_dealloc_pd(f->pd);
	f->pd = NULL;
	/* leaves the group; no handler runs after this */
	if (f->cm_id) {
		/* let a join in flight report first, briefly */
		wait_event_timeout(f->wq, !READ_ONCE(f->join_pending),
				   msecs_to_jiffies(1000));
		rdma_destroy_id(f->cm_id);
	}
	f->cm_id = NULL;
	if (f->have_ah_attr)
		rdma_destroy_ah_attr(&f->ah_attr);
	f->have_ah_attr = false;
	if (f->have_new_ah_attr)	/* no handler runs any more */
		rdma_destroy_ah_attr(&f->new_ah_attr);
	f->have_new_ah_attr = false;
}

/* Build the verbs side and join.  Context: process, ibt_feeds_lock held. */
static int ibt_feed_setup(struct ibt_feed *f, struct netlink_ext_ack *extack)
{
	struct ib_cq_init_attr cqa = {};
	struct ib_qp_init_attr qpa = {};
	struct sockaddr_in src, grp;
	struct ib_device *ibdev;
	struct ib_port_attr pa;
	long left;
	int err;

	err = ibt_netdev_addr(f->ifindex, &src);
	if (err) {
		NL_SET_ERR_MSG(extack, "the feed's netdev has no IPv4 address");
		return err;
	}
	f->cm_id = rdma_create_id(&init_net, ibt_cm_handler, f, RDMA_PS_UDP,
				  IB_QPT_UD);
	if (IS_ERR(f->cm_id)) {
		err = PTR_ERR(f->cm_id);
		f->cm_id = NULL;
		return err;
	}
	err = rdma_bind_addr(f->cm_id, (struct sockaddr *)&src);
	if (err)
		return err;
	ibdev = f->cm_id->device;
	if (ibdev != f->dev->ibdev || f->cm_id->port_num != f->port_num) {
		NL_SET_ERR_MSG(extack, "rdma_cm bound another device port");
		return -EADDRNOTAVAIL;
	}

	f->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(f->pd)) {
		err = PTR_ERR(f->pd);
		f->pd = NULL;
		return err;
	}
	if (f->comp_vector >= ibdev->num_comp_vectors) {
		NL_SET_ERR_MSG(extack, "completion vector out of range");
		return -EINVAL;
	}
	cqa.cqe = f->rq_size;
	cqa.comp_vector = f->comp_vector;
	f->rcq = ib_create_cq(ibdev, ibt_rx_comp, NULL, f, &cqa);
	if (IS_ERR(f->rcq)) {
		err = PTR_ERR(f->rcq);
		f->rcq = NULL;
		return err;
	}
	irq_poll_init(&f->iop, IBT_RX_BATCH * 4, ibt_rx_poll);
	cqa.cqe = f->sq_size;
	f->scq = ib_create_cq(ibdev, ibt_tx_comp, NULL, f, &cqa);
	if (IS_ERR(f->scq)) {
		err = PTR_ERR(f->scq);
		f->scq = NULL;
		return err;
	}

	qpa.qp_type = IB_QPT_UD;
	qpa.send_cq = f->scq;
	qpa.recv_cq = f->rcq;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.cap.max_send_wr = f->sq_size;
	qpa.cap.max_recv_wr = f->rq_size;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.cap.max_inline_data = 128;
	f->qp = ib_create_qp(f->pd, &qpa);
	if (IS_ERR(f->qp)) {
		qpa.cap.max_inline_data = 0;
		f->qp = ib_create_qp(f->pd, &qpa);
	}
	if (IS_ERR(f->qp)) {
		err = PTR_ERR(f->qp);
		f->qp = NULL;
		return err;
	}
	f->max_inline = qpa.cap.max_inline_data;
	err = ibt_qp_to_rts(f);
	if (err)
		return err;

	/* the port's active MTU bounds every datagram of the feed */
	err = ib_query_port(ibdev, f->port_num, &pa);
	if (err)
		return err;
	f->wire_max = ib_mtu_enum_to_int(pa.active_mtu);
	f->rx_buf_size = sizeof(struct ib_grh) + f->wire_max;
	f->rx = ibt_bufs_alloc(ibdev, f->rq_size, f->rx_buf_size,
			       DMA_FROM_DEVICE);
	f->tx = ibt_bufs_alloc(ibdev, f->sq_size, f->wire_max, DMA_TO_DEVICE);
	if (!f->rx || !f->tx)
		return -ENOMEM;
	err = ibt_rx_post_all(f);
	if (err)
		return err;
	ib_req_notify_cq(f->rcq, IB_CQ_NEXT_COMP);

	memset(&grp, 0, sizeof(grp));
	grp.sin_family = AF_INET;
	grp.sin_addr.s_addr = f->group;
	WRITE_ONCE(f->join_pending, true);
	err = rdma_join_multicast(f->cm_id, (struct sockaddr *)&grp,
				  BIT(FULLMEMBER_JOIN), f);
	if (err) {
		WRITE_ONCE(f->join_pending, false);
		NL_SET_ERR_MSG(extack, "rdma_join_multicast failed");
		return err;
	}
	left = wait_for_completion_killable_timeout(&f->joined,
						    msecs_to_jiffies(IBT_JOIN_TIMEOUT_MS));
	if (left <= 0) {
		NL_SET_ERR_MSG(extack, "multicast join did not complete");
		return left ? (int)left : -ETIMEDOUT;
	}
	if (f->join_err) {
		NL_SET_ERR_MSG(extack, "multicast join failed");
		return f->join_err;
	}
	f->mgid = rdma_ah_read_grh(&f->ah_attr)->dgid;
	f->mlid = rdma_ah_get_dlid(&f->ah_attr);
	if (rdma_ah_read_grh(&f->ah_attr)->sgid_attr)
		f->sgid = rdma_ah_read_grh(&f->ah_attr)->sgid_attr->gid;
	err = ib_attach_mcast(f->qp, &f->mgid, f->mlid);
	if (err)
		return err;
	f->attached = true;
	f->ah = rdma_create_ah(f->pd, &f->ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(f->ah)) {
		err = PTR_ERR(f->ah);
		f->ah = NULL;
		return err;
	}
	return 0;
}

static void ibt_feed_release(struct kref *ref)
{
	struct ibt_feed *f = container_of(ref, struct ibt_feed, ref);

	lockdep_assert_held(&ibt_feeds_lock);
	if (f->listed) {
		list_del(&f->list);
		ibt_nfeeds--;
		ibt_feeds_gen++;
	}
	if (f->live)	/* ticks still in the send queue go out first */
		ibt_tx_drain(f, IBT_TX_DRAIN_MS);
	if (f->live || f->cm_id)
		ibt_feed_teardown(f);
	ibt_dev_put(f->dev);
	ibt_memlock_uncharge(f);
	vfree(f->ring_mem);
	kfree(f);
}

void ibt_feed_put(struct ibt_feed *f)
{
	mutex_lock(&ibt_feeds_lock);
	kref_put(&f->ref, ibt_feed_release);
	mutex_unlock(&ibt_feeds_lock);
}

/*
 * Build a new feed for @a on device port (@d, @port) and list it.  Takes
 * over the caller's reference on @d.  Context: process, ibt_feeds_lock held;
 * may sleep for the multicast join (bounded by IBT_JOIN_TIMEOUT_MS).
 */
static struct ibt_feed *ibt_feed_create_locked(struct ibt_dev *d, u32 port,
					       const struct ibt_addr *a,
					       const struct ibt_feed_params *p,
					       u64 ring_bytes,
					       struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	int err;

	lockdep_assert_held(&ibt_feeds_lock);
	err = -ENOBUFS;
	if (ibt_nfeeds >= READ_ONCE(max_feeds)) {
		NL_SET_ERR_MSG(extack, "the host has max_feeds feeds already");
		goto out_put_dev;
	}
	err = -ENOMEM;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		goto out_put_dev;
	kref_init(&f->ref);
	f->dev = d;
	f->port_num = port;
	f->dport = &d->ports[port - rdma_start_port(d->ibdev)];
	strscpy(f->dev_name, dev_name(&d->ibdev->dev), sizeof(f->dev_name));
	f->group = a->group;
	f->port = a->port;
	f->rq_size = IBT_RQ_SIZE;
	f->sq_size = IBT_SQ_SIZE;
	init_completion(&f->joined);
	spin_lock_init(&f->new_ah_lock);
	init_waitqueue_head(&f->wq);
	mutex_init(&f->tx_lock);
	ibt_poll_init(f);
	f->comp_vector = p->comp_vector;
	spin_lock_init(&f->acl_lock);
	f->acl = p->acl;
	f->loopback_policy = p->loopback_policy;
	ibt_pubtrack_init(&f->pubs);
	err = ibt_memlock_charge(f, ring_bytes);
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

	WRITE_ONCE(f->live, true);
	err = ibt_feed_setup(f, extack);
	if (err) {
		ibt_feed_teardown(f);
		goto out_free;
	}
	f->id = ibt_feed_next_id++;
	if (p->name)
		strscpy(f->name, p->name, sizeof(f->name));
	else
		snprintf(f->name, sizeof(f->name), "auto-%u", f->id);
	list_add_tail(&f->list, &ibt_feeds);
	f->listed = true;
	ibt_nfeeds++;
	ibt_feeds_gen++;
	f->announced = true;
	ibt_ev_feed(IBTICK_EV_FEED_CREATED, f, 0, 0, 0);
	ibt_ev_feed(IBTICK_EV_JOIN_DONE, f, 0, 0, 0);
	return f;

out_free:
	ibt_memlock_uncharge(f);
	vfree(f->ring_mem);
	kfree(f);
out_put_dev:
	ibt_dev_put(d);
	return ERR_PTR(err);
}

/* The live feed of (@d, @port, @a), referenced, or NULL.  ibt_feeds_lock. */
static struct ibt_feed *ibt_feed_lookup_locked(struct ibt_dev *d, u32 port,
					       const struct ibt_addr *a)
{
	struct ibt_feed *f;

	list_for_each_entry(f, &ibt_feeds, list) {
		if (f->live && f->dev == d && f->port_num == port &&
		    f->group == a->group && f->port == a->port) {
			kref_get(&f->ref);
			return f;
		}
	}
	return NULL;
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
 * The live feed for @a, created when needed (with ring geometry @nslots x
 * @slot_size, already validated) unless auto_feeds is off, referenced.
 * Context: process, may sleep for the multicast join (bounded by
 * IBT_JOIN_TIMEOUT_MS).
 */
struct ibt_feed *ibt_feed_get(const struct ibt_addr *a,
			      const struct ibt_feed_params *p,
			      struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	struct ibt_dev *d;
	u64 ring_bytes;
	u32 port;
	int err;

	err = ibt_ring_geometry(p->nslots, p->slot_size, &ring_bytes);
	if (err)
		return ERR_PTR(err);

	mutex_lock(&ibt_feeds_lock);
	d = ibt_dev_get_by_netdev(a->ifindex, &port);
	if (IS_ERR(d)) {
		f = ERR_CAST(d);
		goto out_unlock;
	}
	f = ibt_feed_lookup_locked(d, port, a);
	if (f) {
		ibt_dev_put(d);
	} else if (!READ_ONCE(auto_feeds) || ibt_feed_dead_admin_locked(a)) {
		ibt_dev_put(d);
		f = ERR_PTR(-EADDRNOTAVAIL);	/* no admin feed there */
	} else {
		f = ibt_feed_create_locked(d, port, a, p, ring_bytes, extack);
	}
out_unlock:
	mutex_unlock(&ibt_feeds_lock);
	return f;
}

/*
 * IBTICK_CMD_FEED_NEW: a named feed that holds a reference of its own, so it
 * lives with no socket on it until ibt_feed_del_locked().  Returned without
 * an extra reference.  Context: process, genl_mutex held.
 */
struct ibt_feed *ibt_feed_add_admin(const struct ibt_addr *a,
				    const struct ibt_feed_params *p,
				    struct netlink_ext_ack *extack)
{
	struct ibt_feed *f;
	struct ibt_dev *d;
	u64 ring_bytes;
	u32 port;
	int err;

	err = ibt_ring_geometry(p->nslots, p->slot_size, &ring_bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "slots x slot size exceeds the ring size limit");
		return ERR_PTR(err);
	}
	mutex_lock(&ibt_feeds_lock);
	if (ibt_feed_find_locked(0, p->name)) {
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
	if (f) {
		NL_SET_ERR_MSG(extack, "another feed serves that group and port");
		kref_put(&f->ref, ibt_feed_release);
		ibt_dev_put(d);
		f = ERR_PTR(-EEXIST);
		goto out_unlock;
	}
	f = ibt_feed_create_locked(d, port, a, p, ring_bytes, extack);
	if (!IS_ERR(f))		/* the creation's reference is its own */
		WRITE_ONCE(f->admin, true);
out_unlock:
	mutex_unlock(&ibt_feeds_lock);
	return f;
}

/* The listed feed with @id, or with @name when @name; not referenced. */
struct ibt_feed *ibt_feed_find_locked(u32 id, const char *name)
{
	struct ibt_feed *f;

	lockdep_assert_held(&ibt_feeds_lock);
	list_for_each_entry(f, &ibt_feeds, list)
		if (name ? !strcmp(f->name, name) : f->id == id)
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
	if (f->listed) {
		list_del(&f->list);
		f->listed = false;
		ibt_nfeeds--;
		ibt_feeds_gen++;
	}
	if (f->live) {
		ibt_tx_drain(f, IBT_TX_DRAIN_MS);
		ibt_feed_teardown(f);
	}
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
	struct ibt_feed *f, *tmp;

	mutex_lock(&ibt_feeds_lock);
	list_for_each_entry_safe(f, tmp, &ibt_feeds, list)
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
 */
int ibt_feed_permission(struct ibt_feed *f, unsigned int want, u32 *gen)
{
	struct ibt_acl acl;
	bool admin;

	int err = 0;
	u32 g;

	spin_lock(&f->acl_lock);
	acl = f->acl;
	g = f->acl_gen;		/* the ACL this answer is for */
	spin_unlock(&f->acl_lock);
	admin = READ_ONCE(f->admin);
	if (!capable(CAP_NET_ADMIN)) {
		if (!admin)
			err = (want & IBT_ACL_WRITE) && !capable(CAP_NET_RAW) ?
			      -EPERM : 0;
		else if (!ibt_acl_permits(&acl, current_fsuid(),
					  in_group_p(acl.group), want))
			err = -EACCES;
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
void ibt_feeds_dev_gone(struct ibt_dev *d)
{
	struct ibt_feed *f, *tmp;

	mutex_lock(&ibt_feeds_lock);
	d->removing = true;
	list_for_each_entry_safe(f, tmp, &ibt_feeds, list) {
		if (f->dev != d || !f->live)
			continue;
		/* an admin feed stays listed, dead, until FEED_DEL */
		if (!f->admin) {
			list_del(&f->list);
			f->listed = false;
			ibt_nfeeds--;
		}
		ibt_feed_teardown(f);
	}
	mutex_unlock(&ibt_feeds_lock);
}

/*
 * Join again every group of the ports flagged in d->rejoin_ports: after
 * PORT_ACTIVE, CLIENT_REREGISTER (the SM forgot the fabric's groups) or a
 * join error.  A failure retries with a doubling delay capped at
 * IBT_REJOIN_MAX_S.  Context: ibt_wq.
 */
void ibt_feeds_rejoin_work(struct work_struct *work)
{
	struct ibt_dev *d = container_of(to_delayed_work(work), struct ibt_dev,
					 rejoin_work);
	struct sockaddr_in grp = { .sin_family = AF_INET };
	unsigned long ports = xchg(&d->rejoin_ports, 0);
	struct ibt_feed *f;
	bool failed = false;
	u32 idx;

	mutex_lock(&ibt_feeds_lock);
	list_for_each_entry(f, &ibt_feeds, list) {
		if (f->dev != d || !f->live)
			continue;
		ibt_feed_apply_rejoin(f);
		idx = f->dport - d->ports;
		if (!(ports & BIT(idx)))
			continue;
		/* a join still in flight is fresh enough: try again later */
		if (READ_ONCE(f->join_pending)) {
			set_bit(idx, &d->rejoin_ports);	/* look again later */
			failed = true;
			continue;
		}
		/* a port that is down rejoins on its PORT_ACTIVE */
		if (!READ_ONCE(f->dport->active))
			continue;
		grp.sin_addr.s_addr = f->group;
		rdma_leave_multicast(f->cm_id, (struct sockaddr *)&grp);
		WRITE_ONCE(f->join_pending, true);
		if (rdma_join_multicast(f->cm_id, (struct sockaddr *)&grp,
					BIT(FULLMEMBER_JOIN), f)) {
			WRITE_ONCE(f->join_pending, false);
			atomic64_inc(&f->st.join_errors);
			set_bit(idx, &d->rejoin_ports);
			failed = true;
			continue;
		}
		f->st.rejoins++;
	}
	mutex_unlock(&ibt_feeds_lock);

	/* reset only by a join that succeeded (the cm handler) */
	if (failed) {
		d->rejoin_backoff = clamp(d->rejoin_backoff * 2, 1U,
					  (unsigned int)IBT_REJOIN_MAX_S);
		mod_delayed_work(ibt_wq, &d->rejoin_work, d->rejoin_backoff * HZ);
	}
}
