// SPDX-License-Identifier: GPL-2.0
/*
 * The receive path: drain the CQ in batches, write each tick once into the
 * feed's ring, repost the same buffers in one chained list, wake sleepers
 * once per drain.  No allocation, DMA mapping or lock per tick.  Who
 * drains and when (CQ event, busy-poll thread, a spinning caller) is
 * poll.c's business.
 *
 * Context: softirq or process, by the CQ's owner only (IBT_POLL_OWNED):
 * the feed's ring has exactly one producer.
 */
#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <rdma/ib_verbs.h>

#include "ibt.h"

/* Buffer @i's receive: its GRH slot, then its payload buffer. */
static void ibt_rx_sge(struct ibt_feed *f, u32 i, struct ib_recv_wr *wr,
		       struct ib_sge sge[2])
{
	dma_addr_t grh_dma;

	ibt_rx_grh(f, i, &grh_dma);
	sge[0].addr = grh_dma;
	sge[0].length = sizeof(struct ib_grh);
	sge[0].lkey = f->pd->local_dma_lkey;
	sge[1].addr = f->rx[i].dma;
	sge[1].length = f->rx_buf_size;
	sge[1].lkey = f->pd->local_dma_lkey;
	wr->wr_id = i;
	wr->sg_list = sge;
	wr->num_sge = 2;
	wr->next = NULL;
}

/*
 * Post every receive buffer once, when the feed starts receiving: those
 * not posted yet, should an earlier attempt have stopped part way.  Before
 * the QP is attached nothing completes, so f->rx_seq counts the buffers
 * posted.  Context: process, the feed's member_lock or its creation.
 */
int ibt_rx_post_all(struct ibt_feed *f)
{
	struct ib_recv_wr wr;
	struct ib_sge sge[2];
	u32 i;
	int err;

	for (i = f->rx_seq; i < f->rq_size; i++) {
		ibt_rx_sge(f, i, &wr, sge);
		f->rx[i].seq = f->rx_seq;
		err = ib_post_recv(f->qp, &wr, NULL);
		if (err)
			return err;	/* buffer i is posted by the next try */
		f->rx_seq++;
	}
	return 0;
}

/*
 * The network header of a RoCE completion from a driver that does not say
 * which it is: an IPv4 header (RoCEv2) sits in the last 20 bytes of the
 * 40-byte area, an IPv6 one (RoCEv2) or a GRH (RoCEv1) fills it.
 */
static enum rdma_network_type ibt_roce_net_type(const void *nethdr)
{
	const struct ib_grh *grh = nethdr;

	switch (ib_get_rdma_header_version(nethdr)) {
	case 4:
		return RDMA_NETWORK_IPV4;
	case 6:
		return grh->next_hdr == IPPROTO_UDP ? RDMA_NETWORK_IPV6 :
						      RDMA_NETWORK_ROCE_V1;
	default:
		return RDMA_NETWORK_ROCE_V1;
	}
}

/*
 * Sent by this feed's own QP?  QP numbers repeat across devices, so the
 * source GID of the network header must be the feed's own too.  Only
 * looked at when the QP number matches (rare but for loopback).
 */
static bool ibt_rx_from_self(struct ibt_feed *f, const struct ib_wc *wc,
			     const void *nethdr)
{
	enum rdma_network_type nt = RDMA_NETWORK_IB;
	union ib_gid sgid, dgid;

	if (wc->src_qp != f->qp->qp_num || !(wc->wc_flags & IB_WC_GRH))
		return false;
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		nt = wc->network_hdr_type;
	else if (rdma_protocol_roce(f->dev->ibdev, f->port_num))
		nt = ibt_roce_net_type(nethdr);
	if (ib_get_gids_from_rdma_hdr(nethdr, nt, &sgid, &dgid))
		return false;
	return !memcmp(&sgid, &f->sgid, sizeof(sgid));
}

/*
 * Record who sent tick @idx in the feed's source table (IBTICK_CMSG_SOURCE),
 * an entry with its own sequence: the table may be smaller than the ring.
 */
static void ibt_rx_source(struct ibt_feed *f, struct ibt_src *src,
			  const struct ib_wc *wc, const void *nethdr, u64 idx)
{
	struct ibt_src *e = &src[idx & (min_t(u32, f->ring.nslots,
					       IBT_SRC_SLOTS) - 1)];
	enum rdma_network_type nt = RDMA_NETWORK_IB;
	union ib_gid sgid, dgid;

	/* the entry's own sequence: 0 while written (see struct ibt_src) */
	WRITE_ONCE(e->idx, 0);
	smp_wmb();	/* pairs with the reader's smp_rmb() (sock.c) */
	e->qpn = wc->src_qp;
	e->flags = 0;
	memset(e->gid, 0, sizeof(e->gid));
	if (wc->wc_flags & IB_WC_GRH) {
		if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
			nt = wc->network_hdr_type;
		else if (rdma_protocol_roce(f->dev->ibdev, f->port_num))
			nt = ibt_roce_net_type(nethdr);
		if (!ib_get_gids_from_rdma_hdr(nethdr, nt, &sgid, &dgid)) {
			memcpy(e->gid, sgid.raw, sizeof(e->gid));
			if (nt == RDMA_NETWORK_IPV4)
				e->flags = IBTICK_SOURCE_IPV4;
		}
	}
	/* pairs with the reader's first smp_load_acquire() */
	smp_store_release(&e->idx, idx + 1);
}

/* Check one datagram and write it into the ring. */
static void ibt_rx_one(struct ibt_feed *f, const struct ib_wc *wc, u64 now,
		       u64 mono)
{
	struct ib_device *ibdev = f->dev->ibdev;
	const struct ibtick_wire_hdr *h;
	struct ibt_pub_verdict v;
	struct ibtick_slot *s;
	struct ibt_src *src;
	dma_addr_t grh_dma;
	const struct ib_grh *grh = ibt_rx_grh(f, wc->wr_id, &grh_dma);
	/* the payload the device wrote (byte_len counts the GRH too) */
	u32 len = wc->byte_len > sizeof(struct ib_grh) ?
		  min_t(u32, wc->byte_len - sizeof(struct ib_grh),
			f->rx_buf_size) : 0;
	u32 plen, hlen;
	u16 flags = 0;
	u64 idx;
	void *va;

	ib_dma_sync_single_for_cpu(ibdev, grh_dma, sizeof(*grh),
				   DMA_FROM_DEVICE);
	ib_dma_sync_single_for_cpu(ibdev, f->rx[wc->wr_id].dma, len,
				   DMA_FROM_DEVICE);
	va = f->rx[wc->wr_id].va;
	h = va;
	if (len < sizeof(*h) || be16_to_cpu(h->magic) != IBTICK_WIRE_MAGIC ||
	    h->version != IBTICK_WIRE_VERSION || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > len || be16_to_cpu(h->len) > len - h->hdr_len) {
		f->st.bad_hdr++;
		goto out;
	}
	if (be16_to_cpu(h->feed_port) != f->port) {
		f->st.other_port++;
		goto out;
	}
	hlen = h->hdr_len;
	plen = be16_to_cpu(h->len);
	if (f->rail_of) {
		/* a rail: the arbitrated feed decides, and writes its ring */
		ibt_arb_rx(f, h, (const u8 *)va + hlen, plen, now, mono);
		goto out;
	}
	/* observed even when dropped below: a later reader sees no false gap */
	v = ibt_pubtrack_observe(&f->pubs, be32_to_cpu(h->pub_id),
				 be64_to_cpu(h->pub_seq));
	if (ibt_rx_from_self(f, wc, grh)) {
		if (!atomic_read(&f->loopback_readers) ||
		    READ_ONCE(f->loopback_policy) == IBTICK_FEED_LOOPBACK_DENY) {
			f->st.loopback++;
			goto out;
		}
		flags |= IBTICK_TICK_LOCAL;
	}
	flags |= v.flags;
	if (v.flags & IBTICK_TICK_GAP) {
		f->st.gaps++;
		f->st.gap_ticks += v.gap_ticks;
		if (ibt_ev_due(&f->ev_gap_at))	/* rate limited, totals kept */
			ibt_ev_feed(IBTICK_EV_SEQ_GAP, f, 0, v.gap_ticks,
				    f->st.gap_ticks);
	}
	if (v.flags & IBTICK_TICK_OLD)
		f->st.old++;
	s = ibt_rx_fill(f, &idx, h, (const u8 *)va + hlen, plen,
			be64_to_cpu(h->pub_seq), flags, v.gap, now);
	/* pairs with the release that published the table (member.c) */
	src = smp_load_acquire(&f->src);
	if (unlikely(src) && atomic_read(&f->src_readers))
		ibt_rx_source(f, src, wc, grh, idx);
	ibt_rx_commit(f, s, idx, plen);
out:
	ib_dma_sync_single_for_device(ibdev, grh_dma, sizeof(*grh),
				      DMA_FROM_DEVICE);
	ib_dma_sync_single_for_device(ibdev, f->rx[wc->wr_id].dma, len,
				      DMA_FROM_DEVICE);
}

/*
 * Drain up to @budget completions from the receive CQ: write each tick into
 * the ring (a rail's: its arbitrated feed's, through the arbiter), repost
 * the buffers in one chain per batch, wake sleepers once.
 * Returns the number of completions drained.  The caller owns the CQ
 * (poll.c); @ctx only says which counter the completions go to.
 */
int ibt_rx_drain(struct ibt_feed *f, int budget, enum ibt_rx_ctx ctx)
{
	struct ib_recv_wr *wr = f->rx_wr;	/* one owner at a time */
	struct ib_sge (*sge)[2] = f->rx_sge;
	struct ib_wc *wc = f->rx_wc;
	/* whose ring the ticks go to: a rail's go to its arbitrated feed's */
	struct ibt_feed *to = f->rail_of ?: f;
	u64 before = ibt_ring_producer(&to->ring);
	int done = 0, n, i, nr;
	u64 now = 0, mono = 0, newest, t0 = 0;

	while (done < budget) {
		n = ib_poll_cq(f->rcq, min(IBT_RX_BATCH, budget - done), wc);
		if (n <= 0)
			break;
		/*
		 * Two clock reads per drain, none per tick: local_clock()
		 * (the CPU's own counter) for the drain's cost, and the real
		 * time every tick of the drain is stamped with - the
		 * clocksource may be a slow device (HPET in a guest).
		 */
		if (!t0) {
			t0 = local_clock();
			now = ktime_get_real_ns();
			/* a rail's arbiter: windows that no clock step moves */
			if (f->rail_of)
				mono = ktime_get_ns();
		}
		newest = f->rx_seq - 1;	/* this batch reposts after the loop */
		for (i = 0, nr = 0; i < n; i++) {
			if (wc[i].status == IB_WC_WR_FLUSH_ERR)
				continue;	/* flushed: the feed is going */
			/*
			 * The RQ is a FIFO: the completion of the newest buffer
			 * posted means that, at that moment, none was left -
			 * and UD drops what arrives then, silently.
			 */
			if (f->rx[wc[i].wr_id].seq == newest) {
				f->st.rq_empty++;
				if (ibt_ev_due(&f->ev_rqe_at))
					ibt_ev_feed(IBTICK_EV_RQ_EMPTY, f, 0, 1,
						    f->st.rq_empty);
			}
			if (wc[i].status != IB_WC_SUCCESS)
				f->st.rx_errors++;	/* e.g. too long: repost */
			else
				ibt_rx_one(f, &wc[i], now, mono);
			ibt_rx_sge(f, wc[i].wr_id, &wr[nr], sge[nr]);
			f->rx[wc[i].wr_id].seq = f->rx_seq++;
			if (nr)
				wr[nr - 1].next = &wr[nr];
			nr++;
		}
		if (nr && ib_post_recv(f->qp, wr, NULL))
			f->st.rx_errors++;	/* QP in error: going */
		done += n;
	}
	switch (done ? ctx : -1) {
	case IBT_RX_IRQ:
		WRITE_ONCE(f->st.cqe_irq, f->st.cqe_irq + done);
		break;
	case IBT_RX_THREAD:
		WRITE_ONCE(f->st.cqe_thread, f->st.cqe_thread + done);
		break;
	case IBT_RX_CALLER:
		WRITE_ONCE(f->st.cqe_caller, f->st.cqe_caller + done);
		break;
	}
	/*
	 * The kernel's cost of the ticks: ring writes, reposts, wake-ups;
	 * the wake-ups apart too (a third clock read, only with sleepers),
	 * as they grow with the readers asleep and the rest does not.
	 */
	if (ibt_ring_producer(&to->ring) != before && wq_has_sleeper(&to->wq)) {
		u64 w0 = local_clock(), w1;

		wake_up_interruptible_poll(&to->wq, EPOLLIN | EPOLLRDNORM);
		w1 = local_clock();
		WRITE_ONCE(f->st.rx_wake_ns, f->st.rx_wake_ns + w1 - w0);
		if (t0)
			WRITE_ONCE(f->st.rx_drain_ns,
				   f->st.rx_drain_ns + w1 - t0);
	} else if (t0) {
		WRITE_ONCE(f->st.rx_drain_ns,
			   f->st.rx_drain_ns + local_clock() - t0);
	}
	return done;
}
