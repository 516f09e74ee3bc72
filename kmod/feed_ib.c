// SPDX-License-Identifier: GPL-2.0
/*
 * A feed's verbs resources: its cm id and join (join.c), the send buffers
 * (DMA-mapped once), the PD, the receive and send CQs, the UD QP and the
 * address handle it sends with.  Built as one ladder, unwound in reverse on
 * failure; torn down in the same order by ibt_feed_ib_teardown().
 *
 * The receive side - the receive buffers, posted, and the QP's attachment
 * to the group - is built for the feed's first reader, by the creation when
 * a reader creates the feed, or later by ibt_feed_ib_receive().  Until then
 * the feed is a send-only member: the group's traffic is not delivered to
 * its QP, and it holds no receive memory.  The data path never allocates or
 * maps anything.
 *
 * Context: process.  Setup runs for the feed's creator, with the feed
 * listed as creating and no ibtick lock held (feed.c); teardown with
 * ibt_feeds_lock held; ibt_feed_ib_receive() with the feed's member_lock.
 */
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "ibt.h"

static void ibt_bufs_free(struct ib_device *ibdev, struct ibt_buf *b, u32 n,
			  u32 size, enum dma_data_direction dir)
{
	u32 i;

	if (!b)
		return;
	for (i = 0; i < n && b[i].va; i++) {
		ib_dma_unmap_single(ibdev, b[i].dma, size, dir);
		kfree(b[i].va);
	}
	kvfree(b);
}

/* The receive GRH array, if any; after the QP (its receives) is gone. */
static void ibt_rx_grh_free(struct ibt_feed *f)
{
	struct ibt_grh_chunk *c;
	u32 i;

	if (!f->rx_grh)
		return;
	for (i = 0; i < f->rx_grh_chunks; i++) {
		c = &f->rx_grh[i];
		if (!c->grh)
			continue;
		ib_dma_unmap_single(f->dev->ibdev, c->dma, PAGE_SIZE,
				    DMA_FROM_DEVICE);
		free_page((unsigned long)c->grh);
	}
	kfree(f->rx_grh);
	f->rx_grh = NULL;
	f->rx_grh_chunks = 0;
}

/* The receive GRH array: a page per IBT_GRH_PER_CHUNK slots, mapped. */
static int ibt_rx_grh_alloc(struct ibt_feed *f)
{
	struct ib_device *ibdev = f->dev->ibdev;
	u32 i, n = DIV_ROUND_UP(f->rq_size, IBT_GRH_PER_CHUNK);
	struct ibt_grh_chunk *c;
	struct page *pg;

	f->rx_grh = kcalloc_node(n, sizeof(*f->rx_grh), IBT_GFP_CHARGED,
				 ibdev_to_node(ibdev));
	if (!f->rx_grh)
		return -ENOMEM;
	f->rx_grh_chunks = n;
	for (i = 0; i < n; i++) {
		c = &f->rx_grh[i];
		pg = alloc_pages_node(ibdev_to_node(ibdev),
				      IBT_GFP_CHARGED | __GFP_ZERO, 0);
		if (!pg)
			goto fail;
		c->grh = page_address(pg);
		c->dma = ib_dma_map_single(ibdev, c->grh, PAGE_SIZE,
					   DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, c->dma)) {
			free_page((unsigned long)c->grh);
			c->grh = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	ibt_rx_grh_free(f);
	return -ENOMEM;
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
	ibt_bufs_free(ibdev, b, n, size, dir);	/* stops at the first hole */
	return NULL;
}

/*
 * A fatal asynchronous error on the feed's QP or a CQ: the QP is in the
 * error state (or its CQ is gone bad), flushed receives are not reposted,
 * sends fail - the feed can do nothing more.  Count it, say so on the
 * event group, flag the feed and let the device work (join.c) end it under
 * ibt_feeds_lock: its readers then see it dead, as after a device removal.
 * Context: the driver's event context (may be atomic); no ibtick lock.
 */
static void ibt_feed_async_error(struct ibt_feed *f, enum ib_event_type what)
{
	atomic64_inc(&f->st.async_errors);
	ibt_ev_feed_error(f, what);
	WRITE_ONCE(f->broken, true);
	ibt_dev_work_soon(f->dev, 0);
}

static void ibt_qp_event(struct ib_event *ev, void *ctx)
{
	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		ibt_feed_async_error(ctx, ev->event);
		break;
	default:	/* path migration, SQ drained, last WQE: not ours */
		break;
	}
}

static void ibt_cq_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_CQ_ERR)
		ibt_feed_async_error(ctx, ev->event);
}

/*
 * A test's injection point (debugfs.c): deliver @what to @f's handlers as
 * the device would.  Context: process, ibt_feeds_lock held, @f live.
 */
void ibt_feed_ib_inject(struct ibt_feed *f, enum ib_event_type what)
{
	struct ib_event ev = { .event = what };

	if (what == IB_EVENT_CQ_ERR) {
		ev.device = f->rcq->device;
		ev.element.cq = f->rcq;
		ibt_cq_event(&ev, f);
	} else {
		ev.device = f->qp->device;
		ev.element.qp = f->qp;
		ibt_qp_event(&ev, f);
	}
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

static struct ib_qp *ibt_qp_create(struct ibt_feed *f)
{
	struct ib_qp_init_attr qpa = {
		.qp_type	= IB_QPT_UD,
		.event_handler	= ibt_qp_event,
		.qp_context	= f,
		.send_cq	= f->scq,
		.recv_cq	= f->rcq,
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr	= f->sq_size,
			.max_recv_wr	= f->rq_size,
			.max_send_sge	= 1,
			.max_recv_sge	= 2,	/* GRH, payload */
			.max_inline_data = 128,
		},
	};
	struct ib_qp *qp;

	qp = ib_create_qp(f->pd, &qpa);
	if (IS_ERR(qp)) {	/* a device without inline sends */
		qpa.cap.max_inline_data = 0;
		qp = ib_create_qp(f->pd, &qpa);
	}
	if (!IS_ERR(qp))
		f->max_inline = qpa.cap.max_inline_data;
	return qp;
}

/*
 * Stop the receive side before the QP goes: the QP to the error state (its
 * receives flush), no softirq poll left running or scheduled, and a CQ
 * event handler still on its way out finished.  The CQ's owner has been
 * seized (ibt_poll_seize), so nothing re-arms the CQ.
 */
static void ibt_feed_ib_quiesce(struct ibt_feed *f)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(f->qp, &attr, IB_QP_STATE);
	irq_poll_disable(&f->iop);
	synchronize_rcu();
}

/*
 * The receive side, once per feed: the receive buffers, DMA-mapped and
 * posted, then the QP attached to the group.  A failure leaves what was
 * built to the teardown (buffers posted to a live QP cannot be taken back)
 * and the next reader carries on from there.  Context: process; the feed's
 * member_lock, or its creation.
 */
static int ibt_feed_rx_start(struct ibt_feed *f)
{
	struct ib_device *ibdev = f->dev->ibdev;
	int err = 0;

	/* the receive side's pinned memory, paid by who starts it, once */
	if (!f->memlock[IBT_ML_RECEIVE].charged) {
		err = ibt_memlock_charge(f, IBT_ML_RECEIVE,
					 (u64)f->rq_size * f->rx_buf_size +
					 (u64)DIV_ROUND_UP(f->rq_size,
							   IBT_GRH_PER_CHUNK) *
					 PAGE_SIZE);
		if (err)
			return err;
		f->memlock[IBT_ML_RECEIVE].charged = true;
	}
	if (!f->rx_grh) {
		err = ibt_rx_grh_alloc(f);
		if (err)
			return err;
	}
	if (!f->rx) {
		f->rx = ibt_bufs_alloc(ibdev, f->rq_size, f->rx_buf_size,
				       DMA_FROM_DEVICE);
		if (!f->rx)
			return -ENOMEM;
	}
	err = ibt_rx_post_all(f);	/* those not posted yet */
	if (err)
		return err;
	mutex_lock(&f->tx_lock);	/* f->attached, f->mgid: ibt_join_apply */
	if (!f->attached) {
		err = ib_attach_mcast(f->qp, &f->mgid, f->mlid);
		f->attached = !err;
	}
	mutex_unlock(&f->tx_lock);
	if (!err)	/* pairs with ibt_feed_ib_receive()'s unlocked look */
		smp_store_release(&f->receiving, true);
	return err;
}

/*
 * Build the verbs side of @f and join its group: a full member that
 * receives when @receive (a reader creates the feed), else a send-only
 * member.  Returns 0 with everything in place, or an error with nothing
 * left (f->live cleared when the receive side had started).
 */
int ibt_feed_ib_setup(struct ibt_feed *f, bool receive,
		      struct netlink_ext_ack *extack)
{
	struct ib_cq_init_attr cqa = { .comp_vector = f->comp_vector };
	struct ib_device *ibdev = f->dev->ibdev;
	struct ib_port_attr pa;
	int err;

	f->member = receive ? IBTICK_FEED_MEMBER_FULL :
			      IBTICK_FEED_MEMBER_SEND_ONLY;
	err = ibt_join_bind(f, extack);
	if (err)
		return err;
	err = -EINVAL;
	if (f->comp_vector >= ibdev->num_comp_vectors) {
		NL_SET_ERR_MSG(extack, "completion vector out of range");
		goto out_id;
	}
	/* the port's active MTU bounds every datagram of the feed */
	err = ib_query_port(ibdev, f->port_num, &pa);
	if (err)
		goto out_id;
	f->wire_max = ib_mtu_enum_to_int(pa.active_mtu);
	f->tx_buf_size = f->wire_max;	/* the group's MTU may lower wire_max */
	f->rx_buf_size = f->wire_max;

	/* the send buffers are pinned too: the creator's, as the ring */
	err = ibt_memlock_charge(f, IBT_ML_CREATE,
				 (u64)f->sq_size * f->tx_buf_size);
	if (err) {
		NL_SET_ERR_MSG(extack, "the feed's buffers exceed RLIMIT_MEMLOCK");
		goto out_id;
	}
	err = -ENOMEM;
	f->tx = ibt_bufs_alloc(ibdev, f->sq_size, f->tx_buf_size, DMA_TO_DEVICE);
	if (!f->tx)
		goto out_id;
	f->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(f->pd)) {
		err = PTR_ERR(f->pd);
		goto out_tx;
	}
	cqa.cqe = f->rq_size;
	f->rcq = ib_create_cq(ibdev, ibt_rx_comp, ibt_cq_event, f, &cqa);
	if (IS_ERR(f->rcq)) {
		err = PTR_ERR(f->rcq);
		goto out_pd;
	}
	irq_poll_init(&f->iop, IBT_RX_WEIGHT, ibt_rx_poll);
	cqa.cqe = f->sq_size;
	f->scq = ib_create_cq(ibdev, ibt_tx_comp, ibt_cq_event, f, &cqa);
	if (IS_ERR(f->scq)) {
		err = PTR_ERR(f->scq);
		goto out_rcq;
	}
	f->qp = ibt_qp_create(f);
	if (IS_ERR(f->qp)) {
		err = PTR_ERR(f->qp);
		goto out_scq;
	}
	err = ibt_qp_to_rts(f);
	if (err)
		goto out_qp;
	/* armed as any owner arms it (poll.c): the bit first */
	set_bit(IBT_POLL_ARMED, &f->poll_state);
	if (ib_req_notify_cq(f->rcq, IB_CQ_NEXT_COMP) < 0)
		clear_bit(IBT_POLL_ARMED, &f->poll_state);

	/* from here a CQ event may schedule the receive poll */
	err = ibt_join(f, extack);
	if (err)
		goto out_stop;
	f->ah = rdma_create_ah(f->pd, &f->ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(f->ah)) {
		err = PTR_ERR(f->ah);
		f->ah = NULL;
		goto out_stop;
	}
	if (receive) {
		err = ibt_feed_rx_start(f);
		if (err) {
			NL_SET_ERR_MSG(extack, "could not start receiving");
			goto out_ah;
		}
	}
	return 0;

out_ah:
	rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
	f->ah = NULL;
out_stop:
	WRITE_ONCE(f->live, false);
	ibt_poll_seize(f);
	ibt_feed_ib_quiesce(f);
	if (f->attached)
		ib_detach_mcast(f->qp, &f->mgid, f->mlid);
	f->attached = false;
	f->receiving = false;
out_qp:
	ib_destroy_qp(f->qp);
	f->qp = NULL;
	/* posted receive buffers are free once the QP is gone */
	ibt_bufs_free(ibdev, f->rx, f->rq_size, f->rx_buf_size,
		      DMA_FROM_DEVICE);
	ibt_rx_grh_free(f);
out_scq:
	ib_destroy_cq(f->scq);
out_rcq:
	ib_destroy_cq(f->rcq);
out_pd:
	ib_dealloc_pd(f->pd);
out_tx:
	ibt_bufs_free(ibdev, f->tx, f->sq_size, f->tx_buf_size, DMA_TO_DEVICE);
out_id:
	ibt_join_destroy(f);
	f->member = IBTICK_FEED_MEMBER_NONE;
	f->rcq = NULL;
	f->scq = NULL;
	f->pd = NULL;
	f->rx = NULL;
	f->tx = NULL;
	return err;
}

/*
 * Make @f receive, for a reader: a full member of the group, its receive
 * buffers posted, its QP attached.  Done once; later callers return at
 * once, concurrent ones wait for the first.  The global ibt_feeds_lock is
 * not held: the join is a fabric round trip (IBT_JOIN_TIMEOUT_MS at most),
 * and only this feed's member_lock waits for it.  Context: process.
 */
int ibt_feed_ib_receive(struct ibt_feed *f)
{
	int err = 0;

	/* an arbitrated feed's rails receive from their creation */
	if (f->arb)
		return ibt_feed_live(f) ? 0 : -ENODEV;
	/* pairs with ibt_feed_rx_start(): receiving, then all it built */
	if (smp_load_acquire(&f->receiving))
		return 0;
	/* another reader's upgrade may take a join's time: killable */
	if (mutex_lock_killable(&f->member_lock))
		return -EINTR;
	if (f->receiving)
		goto out;
	if (!ibt_feed_live(f)) {
		err = -ENODEV;
		goto out;
	}
	err = ibt_join_upgrade(f);
	if (!err)
		err = ibt_feed_rx_start(f);
out:
	mutex_unlock(&f->member_lock);
	return err;
}

/*
 * Release everything ibt_feed_ib_setup() built, once, in its reverse
 * order.  The caller has stopped the receive poll (ibt_poll_seize) and
 * cleared f->live.
 */
void ibt_feed_ib_teardown(struct ibt_feed *f)
{
	struct ib_device *ibdev = f->dev->ibdev;

	lockdep_assert_held(&ibt_feeds_lock);
	/* a reader's upgrade waiting for its join gives up (!live) */
	wake_up_all(&f->wq);
	mutex_lock(&f->member_lock);
	ibt_feed_ib_quiesce(f);
	if (f->attached)
		ib_detach_mcast(f->qp, &f->mgid, f->mlid);
	f->attached = false;
	f->receiving = false;
	/* serialise with a sender between its live check and its post */
	mutex_lock(&f->tx_lock);
	ib_destroy_qp(f->qp);	/* before the AH its flushed sends used */
	f->qp = NULL;
	rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
	f->ah = NULL;
	mutex_unlock(&f->tx_lock);
	ibt_join_old_ahs_put(f, true);	/* those a rejoin retired */
	ib_destroy_cq(f->scq);
	ib_destroy_cq(f->rcq);
	ib_dealloc_pd(f->pd);
	ibt_bufs_free(ibdev, f->tx, f->sq_size, f->tx_buf_size, DMA_TO_DEVICE);
	ibt_bufs_free(ibdev, f->rx, f->rq_size, f->rx_buf_size,
		      DMA_FROM_DEVICE);
	ibt_rx_grh_free(f);
	ibt_join_destroy(f);	/* leaves the group; no handler runs after */
	WRITE_ONCE(f->member, IBTICK_FEED_MEMBER_NONE);
	mutex_unlock(&f->member_lock);
	f->rcq = NULL;
	f->scq = NULL;
	f->pd = NULL;
	f->rx = NULL;
	f->tx = NULL;
}
