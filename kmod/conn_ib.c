// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's verbs: its protection domain, one CQ for both queues
 * (polled in softirq), the RC QP on its rdma_cm id, and buffers mapped
 * once; posting sends, and the completions.  The receive completion copies
 * a data message into the connection's ring and reposts the buffer at
 * once; the ring's free slots are the peer's credits (credit.h), so the
 * receive queue never runs dry.  No allocation or DMA mapping per message.
 *
 * Locking: conn.h.  The completions run in softirq and take dlock.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "conn.h"
#include "ibt.h"

int ibt_conn_ring_alloc(struct ibt_csock *cs)
{
	u64 bytes;
	int err;

	err = ibt_ring_geometry(cs->nslots, cs->slot_size, &bytes);
	if (err)
		return err;
	cs->ring_mem = vmalloc_user(bytes);
	if (!cs->ring_mem)
		return -ENOMEM;
	ibt_ring_init(&cs->ring, cs->ring_mem, cs->nslots, cs->slot_size, 0);
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
	cs->err = err;
	cs->st.tx_unacked = cs->data_posted - cs->data_acked;
	ibt_ring_set_dead(&cs->ring);
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
	if (!cs->sq_free) {
		if (type == IBT_IMM_FIN)
			cs->fin_sent = false;	/* retried by tx completion */
		cs->ctl_wanted = true;
		return;
	}
	g = ibt_credit_grants(&cs->cr);
	wr.wr_cqe = &cs->ib.ctl_cqe;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.imm_data = cpu_to_be32(IBT_IMM(type, g));
	if (ib_post_send(cs->ib.qp, &wr, NULL)) {
		/* the grants are lost with the connection */
		ibt_conn_fail_locked(cs, ECONNRESET);
		return;
	}
	cs->sq_free--;
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
	return cs->peer_known && cs->cr.send && cs->sq_free > 1 &&
	       cs->tx_head - cs->tx_tail < IBT_CONN_SQ_DATA;
}

/*
 * Send the message staged in send buffer tx_head (@len bytes).  Caller:
 * slock, dlock, ibt_conn_can_send_locked() true, not dead or failed.  One
 * send queue entry stays for credit-only messages.
 */
int ibt_conn_post_data(struct ibt_csock *cs, u32 len)
{
	u32 i = cs->tx_head % IBT_CONN_SQ_DATA;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	int err;

	if (!ibt_credit_take(&cs->cr))
		return -EAGAIN;
	sge.length = len;
	sge.lkey = cs->ib.pd->local_dma_lkey;
	wr.send_flags = IB_SEND_SIGNALED;
	if (len <= cs->ib.inline_max) {
		sge.addr = (uintptr_t)cs->ib.tx[i];
		wr.send_flags |= IB_SEND_INLINE;
	} else {
		sge.addr = cs->ib.tx_dma[i];
		ib_dma_sync_single_for_device(cs->ib.dev, sge.addr, len,
					      DMA_TO_DEVICE);
	}
	wr.wr_cqe = &cs->ib.tx_cqe;
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
	cs->tx_head++;
	cs->sq_free--;
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
	int err;

	if (wc->status != IB_WC_SUCCESS) {
		ibt_conn_wc_error(cs, wc);
		return;
	}
	imm = wc->wc_flags & IB_WC_WITH_IMM ? be32_to_cpu(wc->ex.imm_data) :
					      U32_MAX;
	type = IBT_IMM_TYPE(imm);
	grants = IBT_IMM_GRANTS(imm);

	spin_lock(&cs->dlock);
	if (cs->dead || cs->failed)
		goto out;
	if (type > IBT_IMM_FIN || (type != IBT_IMM_DATA && wc->byte_len) ||
	    (type == IBT_IMM_DATA && !wc->byte_len) ||
	    wc->byte_len > cs->ring.payload_max) {
		err = -EPROTO;
	} else {
		err = ibt_credit_received(&cs->cr, grants,
					  type == IBT_IMM_DATA);
	}
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
			wake |= EPOLLIN | EPOLLRDHUP;
		}
	}
	if (grants)
		wake |= EPOLLOUT | EPOLLWRNORM;
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
	bool data = wc->wr_cqe == &cs->ib.tx_cqe;

	if (wc->status != IB_WC_SUCCESS) {
		ibt_conn_wc_error(cs, wc);
		return;
	}
	spin_lock(&cs->dlock);
	cs->sq_free++;
	if (data) {
		cs->tx_tail++;
		cs->data_acked++;
	}
	if (cs->ctl_wanted) {
		cs->ctl_wanted = false;
		if (cs->wr_shut && !cs->fin_sent) {
			cs->fin_sent = true;
			ibt_conn_post_ctl_locked(cs, IBT_IMM_FIN);
		} else {
			ibt_conn_post_ctl_locked(cs, IBT_IMM_CREDIT);
		}
	}
	spin_unlock(&cs->dlock);
	ibt_conn_wake(cs, EPOLLOUT | EPOLLWRNORM);
}

static void ibt_conn_qp_event(struct ib_event *ev, void *ctx)
{
	struct ibt_csock *cs = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		spin_lock_bh(&cs->dlock);
		ibt_conn_fail_locked(cs, ECONNRESET);
		spin_unlock_bh(&cs->dlock);
		ibt_conn_wake(cs, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
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
			if (ib->tx_dma[i])
				ib_dma_unmap_single(ib->dev, ib->tx_dma[i],
						    ib->buf_size,
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
	ib->tx = kcalloc(IBT_CONN_SQ_DATA, sizeof(*ib->tx), GFP_KERNEL);
	ib->tx_dma = kcalloc(IBT_CONN_SQ_DATA, sizeof(*ib->tx_dma), GFP_KERNEL);
	if (!ib->rx || !ib->tx || !ib->tx_dma)
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
	for (i = 0; i < IBT_CONN_SQ_DATA; i++) {
		ib->tx[i] = kmalloc(ib->buf_size, GFP_KERNEL);
		if (!ib->tx[i])
			return -ENOMEM;
		dma = ib_dma_map_single(ib->dev, ib->tx[i], ib->buf_size,
					DMA_TO_DEVICE);
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
	sq = IBT_CONN_SQ_DATA + IBT_CONN_SQ_CTL;
	ib->tx_cqe.done = ibt_conn_tx_done;
	ib->ctl_cqe.done = ibt_conn_tx_done;

	ib->pd = ib_alloc_pd(ib->dev, 0);
	if (IS_ERR(ib->pd)) {
		err = PTR_ERR(ib->pd);
		ib->pd = NULL;
		return err;
	}
	ib->cq = ib_alloc_cq(ib->dev, cs, ib->rq_size + sq, 0,
			     IB_POLL_SOFTIRQ);
	if (IS_ERR(ib->cq)) {
		err = PTR_ERR(ib->cq);
		ib->cq = NULL;
		goto err_pd;
	}
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
	qa.sq_sig_type = IB_SIGNAL_ALL_WR;
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
	for (i = 0; i < ib->rq_size; i++) {
		err = ibt_conn_post_rx(cs, &ib->rx[i]);
		if (err)
			goto err_qp;
	}
	ibt_credit_init(&cs->cr, cs->nslots, 0);
	cs->sq_free = sq;
	cs->qp_num = ib->qp->qp_num;
	spin_lock_bh(&cs->dlock);
	cs->have_ib = true;
	spin_unlock_bh(&cs->dlock);
	return 0;

err_qp:
	rdma_destroy_qp(id);
	ib->qp = NULL;
err_bufs:
	ibt_conn_bufs_free(cs);
	ib_free_cq(ib->cq);
	ib->cq = NULL;
err_pd:
	ib_dealloc_pd(ib->pd);
	ib->pd = NULL;
	return err;
}

/*
 * Stop posting, destroy the QP (no DMA after it), stop the CQ, free the
 * buffers.  The ring and the counters stay for the reader.  Caller: lock,
 * and owns @id (or the handler of @id, which then destroys it).
 */
void ibt_conn_ib_teardown(struct ibt_csock *cs, struct rdma_cm_id *id)
{
	struct ibt_conn_ib *ib = &cs->ib;
	bool had;

	spin_lock_bh(&cs->dlock);
	if (!cs->failed)
		cs->st.tx_unacked = cs->data_posted - cs->data_acked;
	cs->dead = true;
	had = cs->have_ib;
	cs->have_ib = false;
	ibt_ring_set_dead(&cs->ring);
	spin_unlock_bh(&cs->dlock);
	if (!had)
		return;
	if (ib->qp) {
		rdma_destroy_qp(id);
		ib->qp = NULL;
	}
	ib_free_cq(ib->cq);	/* waits for the softirq poll */
	ib->cq = NULL;
	ibt_conn_bufs_free(cs);
	ib_dealloc_pd(ib->pd);
	ib->pd = NULL;
}
