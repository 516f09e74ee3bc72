// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's verbs: its protection domain, one CQ for both queues
 * (conn_poll.c drains it), the RC QP on its rdma_cm id, and buffers mapped
 * once; posting sends, and the completions.  The receive completion copies
 * a data message into the connection's ring and reposts the buffer at
 * once; the ring's free slots are the peer's credits (credit.h), so the
 * receive queue never runs dry.  No allocation or DMA mapping per message.
 *
 * Locking: conn.h.  The completions run in softirq, or in a caller with
 * BH off (conn_poll.c), and take dlock.
 */
#include <linux/dma-mapping.h>
#include <linux/capability.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "conn.h"
#include "ibt.h"

/*
 * Who pays for the connection's pinned memory: the caller (connect(),
 * listen()), or @like's payer (an accepted connection: the listener's).
 * CAP_IPC_LOCK pays nothing.  Context: process (or the cm handler, with
 * @like).
 */
void ibt_conn_memlock_owner(struct ibt_csock *cs, const struct ibt_csock *like)
{
	if (cs->ml_user)
		return;
	if (like) {
		cs->ml_user = like->ml_user ? get_uid(like->ml_user) : NULL;
		cs->ml_limit = like->ml_limit;
		return;
	}
	if (capable(CAP_IPC_LOCK))
		return;
	cs->ml_user = get_uid(current_user());
	cs->ml_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
}

/* Charge @bytes more; -ENOBUFS past RLIMIT_MEMLOCK. */
int ibt_conn_memlock_charge(struct ibt_csock *cs, u64 bytes)
{
	unsigned long pages = PAGE_ALIGN(bytes) >> PAGE_SHIFT, old, new;

	if (!cs->ml_user)
		return 0;
	do {
		old = atomic_long_read(&cs->ml_user->locked_vm);
		new = old + pages;
		if (new > cs->ml_limit)
			return -ENOBUFS;
	} while (atomic_long_cmpxchg(&cs->ml_user->locked_vm, old, new) != old);
	cs->ml_pages += pages;
	return 0;
}

/* At the socket's end (its destructor). */
void ibt_conn_memlock_release(struct ibt_csock *cs)
{
	if (!cs->ml_user)
		return;
	atomic_long_sub(cs->ml_pages, &cs->ml_user->locked_vm);
	free_uid(cs->ml_user);
	cs->ml_user = NULL;
	cs->ml_pages = 0;
}

int ibt_conn_ring_alloc(struct ibt_csock *cs)
{
	void *mem;
	u64 bytes;
	int err;

	err = ibt_ring_geometry(cs->nslots, cs->slot_size, &bytes);
	if (err)
		return err;
	/* the ring and the stage send() copies into */
	err = ibt_conn_memlock_charge(cs, bytes + IBTICK_SLOT_SIZE_MAX);
	if (err)
		return err;
	mem = vmalloc_user(bytes);
	if (!mem)
		return -ENOMEM;
	ibt_ring_init(&cs->ring, mem, cs->nslots, cs->slot_size, 0);
	smp_store_release(&cs->ring_mem, mem);	/* laid out, then seen */
	return 0;
}

/* Post receive buffer @rx; dlock held, or before the QP can receive. */
static int ibt_conn_post_rx(struct ibt_csock *cs, struct ibt_crx *rx)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = rx->dma;
	sge.length = cs->ib.buf_size;
	sge.lkey = cs->ib.pd->local_dma_lkey;
	wr.wr_cqe = &rx->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ib_post_recv(cs->ib.qp, &wr, NULL);
}

void ibt_conn_fail_locked(struct ibt_csock *cs, int err)
{
	if (cs->failed || cs->dead)
		return;
	cs->failed = true;
	cs->err = READ_ONCE(cs->cause) ?: err;	/* a removal's, over its flushes' */
	cs->st.tx_unacked = cs->data_posted - cs->data_acked;
	/* tell the peer: a disconnect, from process context */
	if (!cs->closing)
		schedule_work(&cs->fail_work);
}

/* An async event's failure: fail_work does it (any context). */
void ibt_conn_async_error(struct ibt_csock *cs)
{
	WRITE_ONCE(cs->async_err, ECONNRESET);
	schedule_work(&cs->fail_work);
}

/*
 * Post a credit-only or FIN message (no credit, no buffer), carrying every
 * grant owed; if the send queue is full, the next send completion does it.
 */
void ibt_conn_post_ctl_locked(struct ibt_csock *cs, u32 type)
{
	struct ib_send_wr wr = {};
	u32 g;

	if (cs->dead || cs->failed)
		return;
	if (!ibt_conn_sq_free(cs)) {
		if (type == IBT_IMM_FIN)
			cs->fin_sent = false;	/* retried by tx completion */
		cs->ctl_wanted = true;
		return;
	}
	g = ibt_credit_grants(&cs->cr);
	wr.wr_cqe = &cs->ib.sq_cqe[cs->sq_head % IBT_CONN_SQ];
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.imm_data = cpu_to_be32(IBT_IMM(type, g));
	if (ib_post_send(cs->ib.qp, &wr, NULL)) {
		/* the grants are lost with the connection */
		ibt_conn_fail_locked(cs, ECONNRESET);
		return;
	}
	if (cs->sq_head == cs->sq_tail)
		cs->last_comp = jiffies;	/* the watchdog counts from here */
	cs->ib.sq_data[cs->sq_head % IBT_CONN_SQ] = false;
	cs->sq_head++;
	cs->sig_pending++;
	cs->unsignaled = 0;	/* its completion covers the sends before */
	cs->st.ctl_tx++;
}

void ibt_conn_maybe_update_locked(struct ibt_csock *cs)
{
	if (cs->peer_known && ibt_credit_update_due(&cs->cr))
		ibt_conn_post_ctl_locked(cs, IBT_IMM_CREDIT);
}

/* A credit, a send queue entry and a send buffer are free. */
bool ibt_conn_can_send_locked(struct ibt_csock *cs)
{
	return cs->peer_known && cs->cr.send && ibt_conn_sq_free(cs) > 1 &&
	       cs->tx_head - cs->tx_tail < IBT_CONN_SQ_DATA;
}

/*
 * Send the message in @cs->stage (@len bytes): inline, or from send buffer
 * tx_head.  Caller: slock, dlock, ibt_conn_can_send_locked() true, not
 * dead or failed.  One send queue entry stays for credit-only messages.
 */
int ibt_conn_post_data(struct ibt_csock *cs, u32 len)
{
	u32 i = cs->tx_head % IBT_CONN_SQ_DATA;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	int err;

	if (WARN_ON_ONCE(len > cs->ib.tx_size))
		return -EMSGSIZE;	/* send() checks it against msg_max */
	if (!ibt_credit_take(&cs->cr))
		return -EAGAIN;
	sge.length = len;
	sge.lkey = cs->ib.pd->local_dma_lkey;
	if (++cs->unsignaled >= IBT_CONN_SIGNAL_EVERY ||
	    ibt_conn_sq_free(cs) <= IBT_CONN_SQ_CTL) {
		wr.send_flags = IB_SEND_SIGNALED;
		cs->unsignaled = 0;
	}
	if (len <= cs->ib.inline_max) {
		/* the device copies it now: straight from the stage */
		sge.addr = (uintptr_t)cs->stage;
		wr.send_flags |= IB_SEND_INLINE;
	} else {
		memcpy(cs->ib.tx[i], cs->stage, len);
		sge.addr = cs->ib.tx_dma[i];
		ib_dma_sync_single_for_device(cs->ib.dev, sge.addr, len,
					      DMA_TO_DEVICE);
	}
	wr.wr_cqe = &cs->ib.sq_cqe[cs->sq_head % IBT_CONN_SQ];
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.ex.imm_data = cpu_to_be32(IBT_IMM(IBT_IMM_DATA,
					     ibt_credit_grants(&cs->cr)));
	err = ib_post_send(cs->ib.qp, &wr, NULL);
	if (err) {
		ibt_conn_fail_locked(cs, ECONNRESET);
		return -EPIPE;
	}
	if (cs->sq_head == cs->sq_tail)
		cs->last_comp = jiffies;	/* the watchdog counts from here */
	if (wr.send_flags & IB_SEND_SIGNALED)
		cs->sig_pending++;
	cs->ib.sq_data[cs->sq_head % IBT_CONN_SQ] = true;
	cs->sq_head++;
	cs->tx_head++;
	cs->data_posted++;
	cs->st.tx_msgs++;
	cs->st.tx_bytes += len;
	return 0;
}

/* The completions of a failing or closing QP. */
static void ibt_conn_wc_error(struct ibt_csock *cs, struct ib_wc *wc)
{
	spin_lock(&cs->dlock);
	if (!cs->dead && !cs->failed) {
		cs->st.cq_errors++;
		ibt_conn_fail_locked(cs, wc->status == IB_WC_RETRY_EXC_ERR ?
					 ETIMEDOUT : ECONNRESET);
	}
	spin_unlock(&cs->dlock);
	ibt_conn_wake(cs, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
}

static void ibt_conn_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibt_csock *cs = cq->cq_context;
	struct ibt_crx *rx = container_of(wc->wr_cqe, struct ibt_crx, cqe);
	__poll_t wake = 0;
	u32 imm, type, grants;
	bool late;
	int err;

	if (wc->status != IB_WC_SUCCESS) {
		ibt_conn_wc_error(cs, wc);
		/*
		 * Receives complete in order, and after one in error (a
		 * flush) none succeeds: the ring has its last message.
		 */
		spin_lock(&cs->dlock);
		ibt_ring_set_dead(&cs->ring);
		spin_unlock(&cs->dlock);
		return;
	}
	imm = wc->wc_flags & IB_WC_WITH_IMM ? be32_to_cpu(wc->ex.imm_data) :
					      U32_MAX;
	type = IBT_IMM_TYPE(imm);
	grants = IBT_IMM_GRANTS(imm);

	spin_lock(&cs->dlock);
	if (cs->dead)
		goto out;
	/*
	 * After a failure, what completed before it still goes to the
	 * ring: the peer had it acknowledged.  No credits, no repost.
	 */
	late = cs->failed;
	if (type > IBT_IMM_FIN || (type != IBT_IMM_DATA && wc->byte_len) ||
	    (type == IBT_IMM_DATA && !wc->byte_len) ||
	    wc->byte_len > cs->ring.payload_max)
		err = -EPROTO;
	else if (late)
		err = ibt_ring_backlog(&cs->ring, cs->cursor) < cs->nslots ?
		      0 : -EPROTO;
	else
		err = ibt_credit_received(&cs->cr, grants,
					  type == IBT_IMM_DATA);
	if (err) {
		cs->st.cq_errors++;
		ibt_conn_fail_locked(cs, EPROTO);
		wake = EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP;
		goto out;
	}
	if (type == IBT_IMM_DATA) {
		u64 idx = ibt_ring_producer(&cs->ring);
		struct ibtick_slot *s = ibt_ring_begin(&cs->ring, idx);

		ib_dma_sync_single_for_cpu(cs->ib.dev, rx->dma, wc->byte_len,
					   DMA_FROM_DEVICE);
		s->pub_seq = cs->st.rx_msgs;
		s->len = wc->byte_len;
		s->orig_len = wc->byte_len;
		s->flags = 0;
		s->gap = 0;
		s->pub_id = 0;
		s->rx_ns = 0;
		s->send_ns = 0;
		memcpy(s + 1, rx->buf, wc->byte_len);
		ibt_ring_commit(&cs->ring, s, idx);
		cs->st.rx_msgs++;
		cs->st.rx_bytes += wc->byte_len;
		wake |= EPOLLIN | EPOLLRDNORM;
	} else {
		cs->st.ctl_rx++;
		if (type == IBT_IMM_FIN) {
			cs->peer_fin = true;
			/* no message follows it on RC: the ring is complete */
			ibt_ring_set_dead(&cs->ring);
			wake |= EPOLLIN | EPOLLRDHUP;
		}
	}
	if (late)
		goto out;
	if (grants && cs->want_tx) {
		cs->want_tx = false;
		wake |= EPOLLOUT | EPOLLWRNORM;
	}
	if (ibt_conn_post_rx(cs, rx))
		ibt_conn_fail_locked(cs, ECONNRESET);
	else
		ibt_conn_maybe_update_locked(cs);
out:
	spin_unlock(&cs->dlock);
	if (wake)
		ibt_conn_wake(cs, wake);
}

static void ibt_conn_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibt_csock *cs = cq->cq_context;
	u32 slot = wc->wr_cqe - cs->ib.sq_cqe;
	bool wake;
	u64 last;

	if (wc->status != IB_WC_SUCCESS) {
		ibt_conn_wc_error(cs, wc);
		return;
	}
	spin_lock(&cs->dlock);
	/* this entry and every unsignaled one before it are done */
	last = cs->sq_tail + (slot - cs->sq_tail % IBT_CONN_SQ + IBT_CONN_SQ) %
			     IBT_CONN_SQ;
	for (; cs->sq_tail <= last; cs->sq_tail++) {
		if (cs->ib.sq_data[cs->sq_tail % IBT_CONN_SQ]) {
			cs->tx_tail++;
			cs->data_acked++;
		}
	}
	cs->sig_pending--;
	cs->last_comp = jiffies;
	cs->probe_out = false;
	if (cs->ctl_wanted) {
		cs->ctl_wanted = false;
		if (cs->wr_shut && !cs->fin_sent) {
			cs->fin_sent = true;
			ibt_conn_post_ctl_locked(cs, IBT_IMM_FIN);
		} else {
			ibt_conn_post_ctl_locked(cs, IBT_IMM_CREDIT);
		}
	}
	wake = cs->want_tx;
	cs->want_tx = false;
	spin_unlock(&cs->dlock);
	if (wake)
		ibt_conn_wake(cs, EPOLLOUT | EPOLLWRNORM);
}

/*
 * The send watchdog (conn.h), once a second from the connection's
 * establishment until its teardown.  Context: softirq (timer).
 */
void ibt_conn_watchdog(struct timer_list *t)
{
	struct ibt_csock *cs = from_timer(cs, t, wd);
	bool stalled = false, again;

	spin_lock(&cs->dlock);
	again = !cs->dead && !cs->failed;
	if (again && cs->sq_head != cs->sq_tail) {
		if (!cs->sig_pending && !cs->probe_out) {
			/* only silent sends out: ask for a completion */
			cs->probe_out = true;
			ibt_conn_post_ctl_locked(cs, IBT_IMM_CREDIT);
		} else if (time_after(jiffies, cs->last_comp +
				      msecs_to_jiffies(IBT_CONN_STALL_MS))) {
			cs->st.cq_errors++;
			ibt_conn_fail_locked(cs, ETIMEDOUT);
			stalled = true;
			again = false;
		}
	}
	spin_unlock(&cs->dlock);
	if (stalled)
		ibt_conn_wake(cs, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
	if (again)
		mod_timer(&cs->wd, jiffies + HZ);
}

/*
 * An asynchronous QP error.  Context: any, hard interrupt included (mlx5
 * calls it from its event queue's interrupt): no dlock here, the work item
 * fails the connection.
 */
static void ibt_conn_qp_event(struct ib_event *ev, void *ctx)
{
	struct ibt_csock *cs = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		ibt_conn_async_error(cs);
		break;
	default:
		break;
	}
}

static void ibt_conn_bufs_free(struct ibt_csock *cs)
{
	struct ibt_conn_ib *ib = &cs->ib;
	u32 i;

	if (ib->rx) {
		for (i = 0; i < ib->rq_size; i++) {
			if (!ib->rx[i].buf)
				continue;
			if (ib->rx[i].dma)
				ib_dma_unmap_single(ib->dev, ib->rx[i].dma,
						    ib->buf_size,
						    DMA_FROM_DEVICE);
			kfree(ib->rx[i].buf);
		}
		kvfree(ib->rx);
		ib->rx = NULL;
	}
	if (ib->tx) {
		for (i = 0; i < IBT_CONN_SQ_DATA; i++) {
			if (!ib->tx[i])
				continue;
			if (ib->tx_dma && ib->tx_dma[i])
				ib_dma_unmap_single(ib->dev, ib->tx_dma[i],
						    ib->tx_size,
						    DMA_TO_DEVICE);
			kfree(ib->tx[i]);
		}
		kfree(ib->tx);
		kfree(ib->tx_dma);
		ib->tx = NULL;
		ib->tx_dma = NULL;
	}
}

static int ibt_conn_bufs_alloc(struct ibt_csock *cs)
{
	struct ibt_conn_ib *ib = &cs->ib;
	dma_addr_t dma;
	u32 i;

	ib->rx = kvcalloc(ib->rq_size, sizeof(*ib->rx), GFP_KERNEL);
	if (!ib->rx)
		return -ENOMEM;
	for (i = 0; i < ib->rq_size; i++) {
		ib->rx[i].cqe.done = ibt_conn_rx_done;
		ib->rx[i].buf = kmalloc(ib->buf_size, GFP_KERNEL);
		if (!ib->rx[i].buf)
			return -ENOMEM;
		dma = ib_dma_map_single(ib->dev, ib->rx[i].buf, ib->buf_size,
					DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib->dev, dma))
			return -ENOMEM;
		ib->rx[i].dma = dma;
	}
	return 0;
}

/*
 * The send buffers, sized to the peer's slot payload (@size, what send()
 * takes), once its hello is in: a peer's ring may hold larger messages
 * than ours.  Caller: lock, the verbs resources set up, before peer_known.
 */
int ibt_conn_tx_alloc(struct ibt_csock *cs, u32 size)
{
	struct ibt_conn_ib *ib = &cs->ib;
	dma_addr_t dma;
	u32 i;
	int err;

	if (ib->tx)
		return -EPROTO;	/* a second hello */
	err = ibt_conn_memlock_charge(cs, (u64)IBT_CONN_SQ_DATA *
					  kmalloc_size_roundup(size));
	if (err)
		return err;
	ib->tx = kcalloc(IBT_CONN_SQ_DATA, sizeof(*ib->tx), GFP_KERNEL);
	ib->tx_dma = kcalloc(IBT_CONN_SQ_DATA, sizeof(*ib->tx_dma), GFP_KERNEL);
	if (!ib->tx || !ib->tx_dma)
		return -ENOMEM;	/* bufs_free takes what there is */
	ib->tx_size = size;
	for (i = 0; i < IBT_CONN_SQ_DATA; i++) {
		ib->tx[i] = kmalloc(size, GFP_KERNEL);
		if (!ib->tx[i])
			return -ENOMEM;
		dma = ib_dma_map_single(ib->dev, ib->tx[i], size, DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ib->dev, dma))
			return -ENOMEM;
		ib->tx_dma[i] = dma;
	}
	return 0;
}

/*
 * Build the QP and its resources on @id (its device known: route resolved,
 * or a connection request), post every receive buffer, and start the
 * credits of our side.  Caller: lock; the handler of @id.
 */
int ibt_conn_ib_setup(struct ibt_csock *cs, struct rdma_cm_id *id)
{
	struct ibt_conn_ib *ib = &cs->ib;
	struct ib_qp_init_attr qa = {};
	u32 i, sq;
	int err;

	ib->dev = id->device;
	ib->buf_size = cs->ring.payload_max;
	ib->rq_size = cs->nslots + ibt_credit_rq_extra(cs->nslots);
	/* the receive buffers, as kmalloc rounds them (send: tx_alloc) */
	err = ibt_conn_memlock_charge(cs, (u64)ib->rq_size *
					  kmalloc_size_roundup(ib->buf_size));
	if (err)
		return err;
	sq = IBT_CONN_SQ;
	for (i = 0; i < IBT_CONN_SQ; i++)
		ib->sq_cqe[i].done = ibt_conn_tx_done;

	ib->pd = ib_alloc_pd(ib->dev, 0);
	if (IS_ERR(ib->pd)) {
		err = PTR_ERR(ib->pd);
		ib->pd = NULL;
		return err;
	}
	err = ibt_conn_cq_create(cs, ib->rq_size + sq);
	if (err)
		goto err_pd;
	err = ibt_conn_bufs_alloc(cs);
	if (err)
		goto err_bufs;
	qa.event_handler = ibt_conn_qp_event;
	qa.qp_context = cs;
	qa.send_cq = ib->cq;
	qa.recv_cq = ib->cq;
	qa.cap.max_send_wr = sq;
	qa.cap.max_recv_wr = ib->rq_size;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = min(IBT_CONN_INLINE_WANT, ib->buf_size);
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;	/* one data send in 16 asks */
	qa.qp_type = IB_QPT_RC;
	err = rdma_create_qp(id, ib->pd, &qa);
	if (err && qa.cap.max_inline_data) {
		qa.cap.max_inline_data = 0;	/* a device without inline */
		err = rdma_create_qp(id, ib->pd, &qa);
	}
	if (err)
		goto err_bufs;
	ib->qp = id->qp;
	ib->inline_max = qa.cap.max_inline_data;
	strscpy(cs->dev_name, dev_name(&ib->dev->dev), sizeof(cs->dev_name));
	for (i = 0; i < ib->rq_size; i++) {
		err = ibt_conn_post_rx(cs, &ib->rx[i]);
		if (err)
			goto err_qp;
	}
	ibt_credit_init(&cs->cr, cs->nslots, 0);
	cs->qp_num = ib->qp->qp_num;
	spin_lock_bh(&cs->dlock);
	cs->have_ib = true;
	spin_unlock_bh(&cs->dlock);
	return 0;

err_qp:
	ibt_conn_cq_stop(cs);	/* once: irq_poll_disable() is not idempotent */
	rdma_destroy_qp(id);
	ib->qp = NULL;
	goto err_free;
err_bufs:
	ibt_conn_cq_stop(cs);
err_free:
	ibt_conn_bufs_free(cs);
	ibt_conn_cq_destroy(cs);
err_pd:
	ib_dealloc_pd(ib->pd);
	ib->pd = NULL;
	return err;
}

/*
 * Drain the CQ one last time and stop its pollers, stop posting, destroy
 * the QP (no DMA after it) and the CQ, free the buffers.  The ring, the
 * stage and the counters stay for the reader and the sender (a sender may
 * be copying into the stage right now: it finds @dead under dlock).  Caller: lock,
 * and owns @id (or the handler of @id, which then destroys it).
 */
void ibt_conn_ib_teardown(struct ibt_csock *cs, struct rdma_cm_id *id)
{
	struct ibt_conn_ib *ib = &cs->ib;
	bool had;

	spin_lock_bh(&cs->dlock);
	had = cs->have_ib;
	spin_unlock_bh(&cs->dlock);
	/* the last completions first: what was acknowledged reaches the ring */
	if (had)
		ibt_conn_cq_stop(cs);
	spin_lock_bh(&cs->dlock);
	if (!cs->failed)
		cs->st.tx_unacked = cs->data_posted - cs->data_acked;
	cs->dead = true;
	cs->have_ib = false;
	if (cs->ring_mem)
		ibt_ring_set_dead(&cs->ring);
	spin_unlock_bh(&cs->dlock);
	del_timer_sync(&cs->wd);	/* it sees @dead: no re-arm */
	if (!had)
		return;
	if (ib->qp) {
		rdma_destroy_qp(id);
		ib->qp = NULL;
	}
	ibt_conn_cq_destroy(cs);
	ibt_conn_bufs_free(cs);
	ib_dealloc_pd(ib->pd);
	ib->pd = NULL;
}
