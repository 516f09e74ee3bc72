// SPDX-License-Identifier: GPL-2.0
/*
 * Connections and rdma_cm: the client's address and route resolution and
 * handshake, a listener's connection requests (each a child socket that
 * accept() hands out once established), disconnects and device removal.
 *
 * The handler runs in process context, one event at a time per id, and
 * may sleep.  It must never destroy its own id: for device removal it
 * tears the verbs resources down and returns non-zero, which makes rdma_cm
 * destroy the id (the device cannot go before).  Locking: conn.h.
 *
 * Events (ibtick monitor): every failure goes through ibt_conn_fail(), in
 * process context under the socket's lock, which says it once per socket
 * (IBTICK_EV_CONN_FAILED; @reported).  A failure seen in softirq (a
 * completion, the watchdog) gets there through fail_work; one whose
 * fail_work a close() cancelled is said by release (ibt_conn_report()).
 * An orderly end from the peer is IBTICK_EV_CONN_PEER_CLOSED, from the
 * DISCONNECTED handler.
 */
#include <linux/slab.h>

#include "conn.h"
#include "ibt.h"

DEFINE_MUTEX(ibt_conn_accept_lock);

/*
 * Say that @cs failed (IBTICK_EV_CONN_FAILED), once: a connection, a
 * connecting socket or a listener, not a socket that never was one.  @err
 * 0: only if a completion or the watchdog failed it (release, which
 * cancelled the fail_work that would have said it).  Caller: lock.
 */
void ibt_conn_report(struct ibt_csock *cs, int err)
{
	u64 unacked;

	if (cs->reported || cs->state == IBTICK_CONN_NEW ||
	    cs->state == IBTICK_CONN_CLOSED)
		return;
	spin_lock_bh(&cs->dlock);
	if (cs->failed)
		err = cs->err ?: err;
	unacked = cs->failed ? cs->st.tx_unacked : 0;
	spin_unlock_bh(&cs->dlock);
	if (!err)
		return;
	cs->reported = true;
	ibt_ev_conn(IBTICK_EV_CONN_FAILED, cs, err, unacked);
}

/*
 * Fail the connection from process context: state, ring, sleepers.  It
 * may come twice (a completion's fail_work after the handler's failure):
 * SO_ERROR gets the cause once (@err_raised), so that a program that read
 * it does not find it again.
 */
void ibt_conn_fail(struct ibt_csock *cs, int err)
{
	err = READ_ONCE(cs->cause) ?: err;
	spin_lock_bh(&cs->dlock);
	ibt_conn_fail_locked(cs, err);
	spin_unlock_bh(&cs->dlock);
	ibt_conn_report(cs, err);
	if (cs->state == IBTICK_CONN_LISTEN ||
	    cs->state == IBTICK_CONN_CONNECTING ||
	    cs->state == IBTICK_CONN_ESTABLISHED ||
	    cs->state == IBTICK_CONN_PEER_CLOSED)
		cs->state = IBTICK_CONN_FAILED;
	if (!cs->err_raised && !cs->sk.sk_err) {
		cs->err_raised = true;
		cs->sk.sk_err = err;
		sk_error_report(&cs->sk);
	}
	ibt_conn_wake(cs, EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP);
}

/*
 * A completion failed the connection (retries exhausted, a flush, a
 * protocol error): make it visible (state, SO_ERROR) and disconnect, so
 * that the peer learns of it too.
 */
void ibt_conn_fail_work(struct work_struct *w)
{
	struct ibt_csock *cs = container_of(w, struct ibt_csock, fail_work);

	mutex_lock(&cs->lock);
	if (READ_ONCE(cs->async_err)) {	/* an async event (any context) */
		spin_lock_bh(&cs->dlock);
		ibt_conn_fail_locked(cs, READ_ONCE(cs->async_err));
		spin_unlock_bh(&cs->dlock);
	}
	if (READ_ONCE(cs->failed)) {
		ibt_conn_fail(cs, READ_ONCE(cs->err) ?: ECONNRESET);
		/* the QP goes to error: its receives flush (DEAD, conn_ib.c) */
		if (cs->cm_id)
			rdma_disconnect(cs->cm_id);
	}
	mutex_unlock(&cs->lock);
}

/*
 * No fail_work runs or comes from completions once this returns; an async
 * event may still queue it until the QP and CQ are gone, so release
 * cancels it once more after the teardown.  Caller: not lock.
 */
void ibt_conn_stop_work(struct ibt_csock *cs)
{
	spin_lock_bh(&cs->dlock);
	cs->closing = true;
	spin_unlock_bh(&cs->dlock);
	cancel_work_sync(&cs->fail_work);
}

struct rdma_cm_id *ibt_conn_new_id(struct ibt_csock *cs)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, ibt_conn_cm_handler, cs, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	rdma_set_ack_timeout(id, IBT_CONN_ACK_TIMEOUT);
	return id;
}

static void ibt_conn_hello_fill(struct ibt_csock *cs, struct ibt_conn_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_be32(IBT_CONN_MAGIC);
	h->version = IBT_CONN_VERSION;
	h->nslots = cpu_to_be32(cs->nslots);
	h->msg_max = cpu_to_be32(cs->ring.payload_max);
}

/*
 * The peer's hello: its ring's slots (our first credits) and payload (what
 * send() takes, and the size of our send buffers).  0, -EPROTO when it is
 * not an ibtick peer, or the send buffers' -ENOMEM / -ENOBUFS.  Caller:
 * lock, the verbs resources set up.
 */
static int ibt_conn_hello_take(struct ibt_csock *cs, const void *pd, u8 len)
{
	struct ibt_conn_hello h;
	u32 nslots, msg_max;
	int err;

	if (!pd || len < sizeof(h))
		return -EPROTO;
	memcpy(&h, pd, sizeof(h));
	nslots = be32_to_cpu(h.nslots);
	msg_max = be32_to_cpu(h.msg_max);
	if (be32_to_cpu(h.magic) != IBT_CONN_MAGIC ||
	    h.version != IBT_CONN_VERSION || !nslots ||
	    nslots > IBT_CONN_SLOTS_MAX || !msg_max ||
	    msg_max > IBTICK_SLOT_SIZE_MAX)
		return -EPROTO;
	if (msg_max > IBTICK_SLOT_SIZE_MAX - sizeof(struct ibtick_slot))
		return -EPROTO;
	err = ibt_conn_tx_alloc(cs, msg_max);	/* send() takes msg_max */
	if (err)
		return err;
	spin_lock_bh(&cs->dlock);
	cs->cr.peer_nslots = nslots;
	cs->cr.send = nslots;
	cs->peer_msg_max = msg_max;
	cs->peer_known = true;
	spin_unlock_bh(&cs->dlock);
	return 0;
}

static void ibt_conn_param(struct rdma_conn_param *p, struct ibt_conn_hello *h)
{
	memset(p, 0, sizeof(*p));
	p->private_data = h;
	p->private_data_len = sizeof(*h);
	p->flow_control = 1;
	p->retry_count = IBT_CONN_RETRY;
	p->rnr_retry_count = IBT_CONN_RNR_RETRY;
}

static void ibt_conn_addrs(struct ibt_csock *cs, struct rdma_cm_id *id)
{
	memcpy(&cs->local, &id->route.addr.src_addr, sizeof(cs->local));
	memcpy(&cs->peer, &id->route.addr.dst_addr, sizeof(cs->peer));
}

/* Client: route resolved: build the QP and send the request. */
static int ibt_conn_route_resolved(struct ibt_csock *cs, struct rdma_cm_id *id)
{
	struct rdma_conn_param p;
	struct ibt_conn_hello h;
	int err;

	err = ibt_conn_ib_setup(cs, id);
	if (err)
		return err;
	ibt_conn_hello_fill(cs, &h);
	ibt_conn_param(&p, &h);
	return rdma_connect_locked(id, &p);
}

/*
 * A connection request on listener @ls's port: a child socket with its
 * QP, accepted at once; accept() takes it when established.  Non-zero
 * rejects the request and has rdma_cm destroy @id.
 */
static int ibt_conn_request(struct ibt_csock *ls, struct rdma_cm_id *id,
			    struct rdma_cm_event *ev)
{
	struct ibt_csock *cs;
	struct rdma_conn_param p;
	struct ibt_conn_hello h;
	int err;

	mutex_lock(&ibt_conn_accept_lock);
	err = ls->nchildren >= ls->backlog ? -ECONNREFUSED : 0;
	if (!err)
		ls->nchildren++;	/* held for the child below */
	mutex_unlock(&ibt_conn_accept_lock);
	if (err)
		return err;
	/* the listener's user pays: max_user_conns (conn_limit.c) */
	err = ibt_conn_user_charge(ls->cn_uid);
	if (err) {
		mutex_lock(&ibt_conn_accept_lock);
		ls->refused_user_max += err == -ENOBUFS;
		mutex_unlock(&ibt_conn_accept_lock);
		goto err_count;
	}
	cs = ibt_conn_alloc(sock_net(&ls->sk), 0, ls, NULL);
	if (!cs) {
		ibt_conn_user_uncharge(ls->cn_uid);
		err = -ENOMEM;
		goto err_count;
	}
	cs->cn_uid = ls->cn_uid;	/* the destructor gives it back */
	cs->cn_charged = true;
	mutex_lock(&cs->lock);
	err = ibt_conn_ring_alloc(cs);
	if (err)
		goto err_sock;
	err = ibt_conn_ib_setup(cs, id);
	if (err)
		goto err_sock;
	err = ibt_conn_hello_take(cs, ev->param.conn.private_data,
				  ev->param.conn.private_data_len);
	if (err)
		goto err_ib;
	cs->state = IBTICK_CONN_CONNECTING;
	cs->peer_qp_num = ev->param.conn.qp_num;
	cs->cm_id = id;
	id->context = cs;
	ibt_conn_addrs(cs, id);
	ibt_conn_hello_fill(cs, &h);
	ibt_conn_param(&p, &h);
	err = rdma_accept(id, &p);
	if (err)
		goto err_ib;
	mutex_lock(&ibt_conn_accept_lock);
	cs->parent = ls;
	list_add_tail(&cs->child_node, &ls->children);
	mutex_unlock(&ibt_conn_accept_lock);
	mutex_unlock(&cs->lock);
	return 0;

err_ib:
	cs->cm_id = NULL;
	id->context = ls;
	ibt_conn_ib_teardown(cs, id);
err_sock:
	mutex_unlock(&cs->lock);
	ibt_conn_list_del(cs);
	ibt_conn_stop_work(cs);
	sock_put(&cs->sk);
err_count:
	mutex_lock(&ibt_conn_accept_lock);
	ls->nchildren--;
	mutex_unlock(&ibt_conn_accept_lock);
	return err;
}

/* Messages in @cs's ring nobody has read.  Caller: lock (a child's). */
static bool ibt_conn_unread(struct ibt_csock *cs)
{
	return ibt_conn_ring(cs) &&
	       ibt_ring_backlog(&cs->ring, READ_ONCE(cs->cursor));
}

static int ibt_conn_event_errno(enum rdma_cm_event_type e)
{
	switch (e) {
	case RDMA_CM_EVENT_ADDR_ERROR:
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return -ENETUNREACH;
	case RDMA_CM_EVENT_UNREACHABLE:
		return -ETIMEDOUT;
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ENODEV;
	default:
		return -ECONNRESET;
	}
}

int ibt_conn_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ibt_csock *cs = id->context;
	bool reap = false;
	int err = 0, ret = 0;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ibt_conn_request(cs, id, ev);

	mutex_lock(&cs->lock);
	if (cs->cm_id != id)
		goto out;	/* being closed: release destroys @id */
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (cs->ifindex &&
		    id->route.addr.dev_addr.bound_dev_if != cs->ifindex)
			err = -ENETUNREACH;
		else
			err = rdma_resolve_route(id, IBT_CONN_RESOLVE_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		err = ibt_conn_route_resolved(cs, id);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!cs->passive) {	/* the client: the reply's hello */
			err = ibt_conn_hello_take(cs, ev->param.conn.private_data,
						  ev->param.conn.private_data_len);
			if (err)
				break;
		}
		ibt_conn_addrs(cs, id);
		if (!cs->passive)
			cs->peer_qp_num = ev->param.conn.qp_num;
		cs->state = IBTICK_CONN_ESTABLISHED;
		mutex_lock(&ibt_conn_accept_lock);
		if (cs->parent) {
			cs->ready = true;
			/* locked: accept() may take us, the listener go */
			ibt_conn_wake(cs->parent, EPOLLIN | EPOLLRDNORM);
		}
		mutex_unlock(&ibt_conn_accept_lock);
		ibt_conn_wake(cs, EPOLLOUT | EPOLLWRNORM);
		mod_timer(&cs->wd, jiffies + HZ);	/* the send watchdog */
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* a FIN may still be in the CQ: judge by what arrived */
		ibt_conn_drain_now(cs);
		spin_lock_bh(&cs->dlock);
		if (cs->peer_fin) {
			/* orderly: the ring keeps what came; sends get EPIPE */
			cs->dead = true;
			if (cs->ring_mem)
				ibt_ring_set_dead(&cs->ring);
		}
		spin_unlock_bh(&cs->dlock);
		if (cs->dead) {
			if (cs->state == IBTICK_CONN_ESTABLISHED) {
				cs->state = IBTICK_CONN_PEER_CLOSED;
				ibt_ev_conn(IBTICK_EV_CONN_PEER_CLOSED, cs, 0, 0);
			}
			ibt_conn_wake(cs, EPOLLIN | EPOLLRDHUP | EPOLLOUT);
		} else {
			ibt_conn_fail(cs, ECONNRESET);
		}
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The QP stops (error state), what it received before goes
		 * to the ring, and only then do readers see the failure:
		 * a reader never stops short of a message the peer saw
		 * acknowledged.  The cause is ENODEV, not the flushes'.
		 */
		WRITE_ONCE(cs->cause, ENODEV);
		if (cs->have_ib)
			rdma_disconnect(id);
		ibt_conn_drain_now(cs);
		ibt_conn_fail(cs, ENODEV);
		/* the device waits for this id: let rdma_cm destroy it */
		ibt_conn_ib_teardown(cs, id);
		cs->cm_id = NULL;
		ret = 1;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		err = ibt_conn_event_errno(ev->event);
		break;
	default:
		break;	/* TIMEWAIT_EXIT and the like */
	}
	if (err)
		ibt_conn_fail(cs, -err);
	/*
	 * A listener's child that ends before accept() took it (it failed,
	 * its device went, or it was disconnected, in order or not) with
	 * an empty ring is nobody's: there is nothing for accept() to hand
	 * out, and one not established yet never will be.  It leaves the
	 * listener (its backlog slot and the pinned memory it charged with
	 * it) and goes, letting rdma_cm destroy the id.  One that holds
	 * messages, which its peer saw acknowledged, stays for accept(),
	 * even one whose ESTABLISHED never came (the RC QP receives before
	 * it).  One the listener's close has taken already is that close's
	 * to end; one accept() took is its socket's.
	 */
	if (cs->passive &&
	    (err || ret || ev->event == RDMA_CM_EVENT_DISCONNECTED)) {
		mutex_lock(&ibt_conn_accept_lock);
		if (cs->parent && !ibt_conn_unread(cs)) {
			list_del_init(&cs->child_node);
			cs->parent->nchildren--;
			cs->parent = NULL;
			reap = true;
		} else if (cs->parent && !cs->ready) {
			if (cs->state == IBTICK_CONN_CONNECTING)
				cs->state = IBTICK_CONN_PEER_CLOSED; /* in order */
			cs->ready = true;
			ibt_conn_wake(cs->parent, EPOLLIN | EPOLLRDNORM);
		}
		mutex_unlock(&ibt_conn_accept_lock);
	}
	if (reap) {
		if (cs->cm_id) {
			ibt_conn_ib_teardown(cs, id);
			cs->cm_id = NULL;
		}
		mutex_unlock(&cs->lock);
		ibt_conn_list_del(cs);
		ibt_conn_stop_work(cs);	/* QP and CQ gone: nothing queues it */
		sock_put(&cs->sk);
		return 1;
	}
out:
	mutex_unlock(&cs->lock);
	return ret;
}

/*
 * Release's end of a connection (lock held on entry, dropped around the
 * waits): say FIN if @graceful and wait for the last messages to be
 * acknowledged (IBT_CONN_LINGER_MS at most), disconnect, destroy the QP and
 * the id.  After it no handler or completion runs for @cs.
 */
void ibt_conn_shutdown_id(struct ibt_csock *cs, bool graceful)
{
	struct rdma_cm_id *id = cs->cm_id;
	bool fin = false;

	if (!id)
		return;
	spin_lock_bh(&cs->dlock);
	if (graceful && cs->have_ib && !cs->dead && !cs->failed &&
	    cs->peer_known) {
		cs->wr_shut = true;
		if (!cs->fin_sent) {
			cs->fin_sent = true;
			ibt_conn_post_ctl_locked(cs, IBT_IMM_FIN);
		}
		fin = true;
	}
	spin_unlock_bh(&cs->dlock);
	cs->cm_id = NULL;	/* the handler leaves @id alone from now */
	mutex_unlock(&cs->lock);
	if (fin)	/* every send completed: the peer has them */
		wait_event_timeout(*sk_sleep(&cs->sk), ({
			bool done;

			spin_lock_bh(&cs->dlock);
			cs->want_tx = true;
			done = cs->sq_head == cs->sq_tail || cs->failed;
			spin_unlock_bh(&cs->dlock);
			done; }), msecs_to_jiffies(IBT_CONN_LINGER_MS));
	rdma_disconnect(id);
	mutex_lock(&cs->lock);
	ibt_conn_ib_teardown(cs, id);
	mutex_unlock(&cs->lock);
	rdma_destroy_id(id);	/* waits for a running handler */
	mutex_lock(&cs->lock);
}

/*
 * Close a listener (lock held, state no longer LISTEN): destroy its id,
 * after which no request comes, then every child not accepted.
 */
void ibt_conn_listener_close(struct ibt_csock *ls)
{
	struct rdma_cm_id *id = ls->cm_id;
	struct ibt_csock *cs, *tmp;
	LIST_HEAD(orphans);

	ls->cm_id = NULL;
	mutex_unlock(&ls->lock);
	if (id)
		rdma_destroy_id(id);
	mutex_lock(&ibt_conn_accept_lock);
	list_splice_init(&ls->children, &orphans);
	list_for_each_entry(cs, &orphans, child_node)
		cs->parent = NULL;
	ls->nchildren = 0;
	mutex_unlock(&ibt_conn_accept_lock);
	list_for_each_entry_safe(cs, tmp, &orphans, child_node) {
		list_del_init(&cs->child_node);
		ibt_conn_list_del(cs);
		ibt_conn_stop_work(cs);
		mutex_lock(&cs->lock);
		ibt_conn_report(cs, 0);	/* a failure its fail_work missed */
		ibt_conn_shutdown_id(cs, false);
		cs->state = IBTICK_CONN_CLOSED;
		mutex_unlock(&cs->lock);
		cancel_work_sync(&cs->fail_work);	/* an async event's */
		sock_put(&cs->sk);
	}
	mutex_lock(&ls->lock);
}
