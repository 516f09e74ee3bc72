// SPDX-License-Identifier: GPL-2.0
/*
 * The send path: one UD send to the feed's group per tick, from send
 * buffers mapped once at feed creation, inline when the device allows it.
 * Every send is signalled: completions are reaped by the senders themselves
 * and by ibt_tx_drain() before a feed's QP is destroyed, so a publisher
 * that closes right after its last send loses nothing in the send queue
 * (with selective signalling the last unsignalled sends could not be
 * waited for).  A full send queue is -EAGAIN, never a wait.
 *
 * Context: process (sendmsg), under the feed's tx_lock; the payload was
 * copied from user space before (sock.c), never under this lock.
 */
#include <linux/bottom_half.h>
#include <linux/ktime.h>
#include <rdma/ib_verbs.h>

#include "ibt.h"

static void ibt_tx_reap(struct ibt_feed *f)
{
	struct ib_wc wc[IBT_TX_REAP_BATCH];
	int n, i;

	lockdep_assert_held(&f->tx_lock);
	while ((n = ib_poll_cq(f->scq, ARRAY_SIZE(wc), wc)) > 0)
		for (i = 0; i < n; i++) {
			/* in order: all before it are done */
			WRITE_ONCE(f->tx_tail, wc[i].wr_id + 1);
			if (wc[i].status != IB_WC_SUCCESS &&
			    wc[i].status != IB_WC_WR_FLUSH_ERR) {
				f->st.tx_errors++;
				ibdev_warn_ratelimited(f->dev->ibdev,
						       "ibtick: send completion %s\n",
						       ib_wc_status_msg(wc[i].status));
			}
		}
}

/*
 * No slot left in the send queue?  One is kept free.  Exact under tx_lock;
 * a racy read elsewhere (poll), which send checks again.
 */
static bool ibt_tx_full(struct ibt_feed *f)
{
	return READ_ONCE(f->tx_head) - READ_ONCE(f->tx_tail) >= f->sq_size - 1;
}

/*
 * For poll(): is there room in the send queue?  When there seems to be
 * none, reap what completed, and if the queue is still full arm the send
 * CQ so that its next completion wakes POLLOUT waiters (ibt_tx_comp), then
 * reap once more for completions that raced the arming.  Context: process.
 */
bool ibt_tx_writable(struct ibt_feed *f)
{
	if (!ibt_tx_full(f))
		return true;
	if (!mutex_trylock(&f->tx_lock))
		return false;	/* a sender is reaping right now */
	if (f->qp) {
		ibt_tx_reap(f);
		if (ibt_tx_full(f)) {
			ib_req_notify_cq(f->scq, IB_CQ_NEXT_COMP |
					 IB_CQ_REPORT_MISSED_EVENTS);
			ibt_tx_reap(f);
		}
	}
	mutex_unlock(&f->tx_lock);
	return !ibt_tx_full(f);
}

/*
 * Send CQ event, armed only by a sender that found the queue full.
 * Context: the device's completion interrupt.
 */
void ibt_tx_comp(struct ib_cq *cq, void *ctx)
{
	struct ibt_feed *f = ctx;

	wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM);
}

/*
 * Send one tick of @len bytes at @payload (kernel memory: nothing here
 * can fault or sleep on user space while tx_lock is held).
 */
int ibt_tx_send(struct ibt_feed *f, const void *payload, size_t len,
		u32 pub_id, u64 pub_seq)
{
	struct ib_device *ibdev;
	struct ibtick_wire_hdr *h;
	struct ib_ud_wr wr = {};
	struct ib_sge sge;
	size_t total = sizeof(*h) + len;
	struct ibt_buf *b;
	int err = 0;

	if (total > f->wire_max)
		return -EMSGSIZE;
	mutex_lock(&f->tx_lock);
	if (!f->qp) {
		err = -ENETDOWN;
		goto out;
	}
	ibdev = f->dev->ibdev;
	/* a CQ poll per tick is wasted while the queue has room to spare */
	if (f->tx_head - f->tx_tail >= f->sq_size / 2)
		ibt_tx_reap(f);
	if (ibt_tx_full(f)) {
		/* wake POLLOUT waiters from the next send completion */
		if (ib_req_notify_cq(f->scq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			ibt_tx_reap(f);
		if (ibt_tx_full(f)) {
			err = -EAGAIN;
			goto out;
		}
	}
	b = &f->tx[f->tx_head & (f->sq_size - 1)];
	h = b->va;
	h->magic = cpu_to_be16(IBTICK_WIRE_MAGIC);
	h->version = IBTICK_WIRE_VERSION;
	h->hdr_len = sizeof(*h);
	h->feed_port = cpu_to_be16(f->port);
	h->len = cpu_to_be16(len);
	h->pub_id = cpu_to_be32(pub_id);
	h->reserved = 0;
	h->pub_seq = cpu_to_be64(pub_seq);
	memcpy((u8 *)b->va + sizeof(*h), payload, len);
	h->send_ns = cpu_to_be64(ktime_get_real_ns());
	ib_dma_sync_single_for_device(ibdev, b->dma, total, DMA_TO_DEVICE);

	/* inline data is copied by the driver from a kernel address */
	sge.addr = total <= f->max_inline ? (uintptr_t)b->va : b->dma;
	sge.length = total;
	sge.lkey = f->pd->local_dma_lkey;
	wr.wr.wr_id = f->tx_head;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	if (total <= f->max_inline)
		wr.wr.send_flags |= IB_SEND_INLINE;
	wr.ah = f->ah;
	wr.remote_qpn = IB_MULTICAST_QPN;
	wr.remote_qkey = f->qkey;
	/*
	 * With BH off: a driver that hands kernel-QP sends to a softirq
	 * (rxe schedules a tasklet) has it run when BH comes back on,
	 * here, rather than whenever ksoftirqd gets the CPU - as the network
	 * stack transmits.  Costs nothing to a driver that rings a doorbell.
	 */
	local_bh_disable();
	err = ib_post_send(f->qp, &wr.wr, NULL);
	local_bh_enable();
	if (!err) {
		WRITE_ONCE(f->tx_head, f->tx_head + 1);
		WRITE_ONCE(f->st.tx_ticks, f->st.tx_ticks + 1);
	}
out:
	mutex_unlock(&f->tx_lock);
	return err;
}

/*
 * Wait (up to @ms) until every posted send has completed.  Context:
 * process, before the feed's QP is moved to the error state.
 */
void ibt_tx_drain(struct ibt_feed *f, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	mutex_lock(&f->tx_lock);
	while (f->qp) {
		ibt_tx_reap(f);
		if (f->tx_tail == f->tx_head || time_after(jiffies, end))
			break;
		mutex_unlock(&f->tx_lock);
		usleep_range(50, 200);
		mutex_lock(&f->tx_lock);
	}
	mutex_unlock(&f->tx_lock);
}
