// SPDX-License-Identifier: GPL-2.0
/*
 * SOCK_SEQPACKET sockets of AF_IBTICK: the proto_ops of a connection (the
 * contract is in <linux/ibtick.h>, the design in conn.h).
 *
 * send() stages the message in the next send buffer (outside every lock
 * but slock, so a slow user page holds up no one else), then takes a
 * credit and posts it under dlock.  recv() copies the next message out of
 * the connection's ring and gives its slot back as a credit.
 */
#include <linux/capability.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/inetdevice.h>
#include <net/sock.h>

#include "conn.h"
#include "ibt.h"

static struct proto ibt_conn_proto = {
	.name		= "IBTICK_CONN",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct ibt_csock),
};

static struct proto_ops ibt_conn_ops __ro_after_init;

void ibt_conn_wake(struct ibt_csock *cs, __poll_t mask)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(cs->sk.sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, mask);
	rcu_read_unlock();
}

static void ibt_conn_destruct(struct sock *sk)
{
	del_timer_sync(&ibt_csk(sk)->wd);	/* none runs by now: a belt */
	hrtimer_cancel(&ibt_csk(sk)->ib.rearm);
	vfree(ibt_csk(sk)->ring_mem);
	kfree(ibt_csk(sk)->stage);
	ibt_conn_memlock_release(ibt_csk(sk));
	ibt_conn_user_release(ibt_csk(sk));	/* max_user_conns */
	put_pid(ibt_csk(sk)->tgid);	/* here: a request may copy it late */
}

/*
 * A connection socket: for socket() @sock (@like NULL), or a listener
 * @like's child (its geometry; @sock NULL until accept()).
 */
struct ibt_csock *ibt_conn_alloc(struct net *net, int kern,
				 const struct ibt_csock *like,
				 struct socket *sock)
{
	struct ibt_csock *cs;
	struct sock *sk;

	sk = sk_alloc(net, ibt_family, GFP_KERNEL, &ibt_conn_proto, kern);
	if (!sk)
		return NULL;
	sock_init_data(sock, sk);
	sk->sk_type = SOCK_SEQPACKET;
	sk->sk_destruct = ibt_conn_destruct;
	cs = ibt_csk(sk);
	mutex_init(&cs->lock);
	mutex_init(&cs->rlock);
	mutex_init(&cs->slock);
	spin_lock_init(&cs->dlock);
	ibt_conn_poll_init(cs);		/* no CQ yet */
	INIT_LIST_HEAD(&cs->children);
	INIT_LIST_HEAD(&cs->child_node);
	INIT_LIST_HEAD(&cs->node);
	INIT_WORK(&cs->fail_work, ibt_conn_fail_work);
	timer_setup(&cs->wd, ibt_conn_watchdog, 0);
	cs->state = IBTICK_CONN_NEW;
	cs->nslots = like ? like->nslots : IBT_CONN_SLOTS_DEFAULT;
	cs->slot_size = like ? like->slot_size : IBTICK_SLOT_SIZE_DEFAULT;
	if (like) {
		cs->passive = true;
		cs->ifindex = like->ifindex;
		sk->sk_uid = like->sk.sk_uid;
		ibt_conn_memlock_owner(cs, like);	/* the listener pays */
	}
	ibt_conn_list_add(cs, like ? like->tgid : task_tgid(current));
	return cs;
}

/* The socket's address (or its peer's) as a struct sockaddr_ibtick. */
static int ibt_conn_getname(struct socket *sock, struct sockaddr *uaddr,
			    int peer)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	struct sockaddr_ibtick *sa = (struct sockaddr_ibtick *)uaddr;
	const struct sockaddr_in *in;

	mutex_lock(&cs->lock);
	in = peer ? &cs->peer : &cs->local;
	if (peer && cs->state != IBTICK_CONN_ESTABLISHED &&
	    cs->state != IBTICK_CONN_PEER_CLOSED) {
		mutex_unlock(&cs->lock);
		return -ENOTCONN;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = ibt_family;
	sa->sibt_port = ntohs(in->sin_port);
	sa->sibt_ifindex = cs->ifindex;
	sa->sibt_group_family = AF_INET;
	memcpy(sa->sibt_group, &in->sin_addr.s_addr, 4);
	mutex_unlock(&cs->lock);
	return sizeof(*sa);
}

/* Check a connection address: @any allows INADDR_ANY and port 0 (bind). */
static int ibt_conn_addr(struct ibt_csock *cs, struct sockaddr *uaddr,
			 int len, bool any, struct sockaddr_in *out)
{
	struct ibt_uaddr ua;
	int err;

	err = ibt_addr_parse_unicast(uaddr, len, ibt_family, any, &ua);
	if (err)
		return err;
	if (ua.ifindex) {
		struct net_device *nd = dev_get_by_index(&init_net, ua.ifindex);

		if (!nd)
			return -ENODEV;
		dev_put(nd);
	}
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	out->sin_port = htons(ua.port);
	out->sin_addr.s_addr = ua.addr;
	cs->ifindex = ua.ifindex;
	return 0;
}

static int ibt_conn_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	int err;

	mutex_lock(&cs->lock);
	err = -EINVAL;
	if (cs->bound || cs->state != IBTICK_CONN_NEW)
		goto out;
	err = ibt_conn_addr(cs, uaddr, len, true, &sin);
	if (err)
		goto out;
	if (sin.sin_addr.s_addr) {
		struct net_device *nd = ip_dev_find(&init_net,
						    sin.sin_addr.s_addr);

		err = -EADDRNOTAVAIL;	/* not an address of this host */
		if (!nd)
			goto out;
		dev_put(nd);
	}
	id = ibt_conn_new_id(cs);
	if (IS_ERR(id)) {
		err = PTR_ERR(id);
		goto out;
	}
	err = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (err) {
		/* no handler runs for an id that was never bound */
		rdma_destroy_id(id);
		/* the address is ours (above): the port is what is taken */
		if (err == -EADDRNOTAVAIL)
			err = -EADDRINUSE;
		else if (err == -ENODEV || err == -EINVAL)
			err = -EADDRNOTAVAIL;
		goto out;
	}
	cs->cm_id = id;
	cs->bound = true;
	memcpy(&cs->local, &id->route.addr.src_addr, sizeof(cs->local));
out:
	mutex_unlock(&cs->lock);
	return err;
}

static int ibt_conn_listen(struct socket *sock, int backlog)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	int err;

	mutex_lock(&cs->lock);
	if (cs->state == IBTICK_CONN_LISTEN) {
		mutex_lock(&ibt_conn_accept_lock);
		cs->backlog = clamp(backlog, 1, SOMAXCONN);
		mutex_unlock(&ibt_conn_accept_lock);
		err = 0;
		goto out;
	}
	err = -EINVAL;
	if (cs->state != IBTICK_CONN_NEW)
		goto out;
	err = -EDESTADDRREQ;
	if (!cs->bound)
		goto out;
	if (!cs->cm_id) {	/* its device went away since bind() */
		err = sock_error(&cs->sk) ?: -ENODEV;
		goto out;
	}
	err = ibt_conn_listen_allowed(ntohs(cs->local.sin_port));
	if (err)
		goto out;
	cs->cn_uid = current_fsuid();	/* its children count against it */
	cs->backlog = clamp(backlog, 1, SOMAXCONN);
	ibt_conn_memlock_owner(cs, NULL);	/* pays for its children */
	err = rdma_listen(cs->cm_id, cs->backlog);
	if (err)
		goto out;
	cs->state = IBTICK_CONN_LISTEN;
	cs->listening = true;	/* for good: a failure keeps its children */
out:
	mutex_unlock(&cs->lock);
	return err;
}

static struct ibt_csock *ibt_conn_take_ready(struct ibt_csock *ls)
{
	struct ibt_csock *cs;

	mutex_lock(&ibt_conn_accept_lock);
	list_for_each_entry(cs, &ls->children, child_node) {
		if (cs->ready) {
			list_del_init(&cs->child_node);
			cs->parent = NULL;
			ls->nchildren--;
			mutex_unlock(&ibt_conn_accept_lock);
			return cs;
		}
	}
	mutex_unlock(&ibt_conn_accept_lock);
	return NULL;
}

static bool ibt_conn_has_ready(struct ibt_csock *ls)
{
	struct ibt_csock *cs;
	bool ready = false;

	mutex_lock(&ibt_conn_accept_lock);
	list_for_each_entry(cs, &ls->children, child_node)
		ready |= cs->ready;
	mutex_unlock(&ibt_conn_accept_lock);
	return ready;
}

static int ibt_conn_accept(struct socket *sock, struct socket *newsock,
			   int flags, bool kern)
{
	struct ibt_csock *ls = ibt_csk(sock->sk), *cs;
	long timeo = sock_rcvtimeo(sock->sk, flags & O_NONBLOCK);
	int err;

	if (!READ_ONCE(ls->listening))
		return -EINVAL;
	for (;;) {
		if (READ_ONCE(ls->state) != IBTICK_CONN_LISTEN)
			return sock_error(&ls->sk) ?: -EINVAL;
		cs = ibt_conn_take_ready(ls);
		if (cs)
			break;
		if (!timeo)
			return -EAGAIN;
		timeo = wait_event_interruptible_timeout(*sk_sleep(sock->sk),
				ibt_conn_has_ready(ls) ||
				READ_ONCE(ls->state) != IBTICK_CONN_LISTEN,
				timeo);
		if (timeo < 0)
			return timeo;	/* -ERESTARTSYS */
		if (!timeo)
			return -EAGAIN;
	}
	err = 0;
	sock_graft(&cs->sk, newsock);
	newsock->ops = &ibt_conn_ops;
	newsock->state = SS_CONNECTED;
	return err;
}

static int ibt_conn_connect(struct socket *sock, struct sockaddr *uaddr,
			    int len, int flags)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	struct sockaddr_in sin;
	struct rdma_cm_id *id;
	long timeo;
	int err;

	mutex_lock(&cs->lock);
	switch (cs->state) {
	case IBTICK_CONN_NEW:
		break;
	case IBTICK_CONN_CONNECTING:
		err = -EALREADY;
		goto out;
	case IBTICK_CONN_LISTEN:
		err = -EINVAL;
		goto out;
	case IBTICK_CONN_FAILED:
		err = -ECONNABORTED;	/* close it, open another */
		goto out;
	default:
		err = -EISCONN;
		goto out;
	}
	err = ibt_conn_addr(cs, uaddr, len, false, &sin);
	if (err)
		goto out;
	if (!cs->cn_charged) {		/* max_user_conns */
		err = ibt_conn_user_charge(current_fsuid());
		if (err)
			goto out;
		cs->cn_uid = current_fsuid();
		cs->cn_charged = true;
	}
	ibt_conn_memlock_owner(cs, NULL);
	if (!cs->ring_mem) {
		err = ibt_conn_ring_alloc(cs);
		if (err)
			goto out;
	}
	id = cs->cm_id;
	if (!id) {
		id = ibt_conn_new_id(cs);
		if (IS_ERR(id)) {
			err = PTR_ERR(id);
			goto out;
		}
		cs->cm_id = id;
	}
	cs->peer = sin;
	cs->state = IBTICK_CONN_CONNECTING;
	err = rdma_resolve_addr(id, cs->bound ?
				(struct sockaddr *)&cs->local : NULL,
				(struct sockaddr *)&sin, IBT_CONN_RESOLVE_MS);
	if (err) {
		cs->state = IBTICK_CONN_NEW;
		if (err == -ENODEV || err == -ENETUNREACH || err == -EINVAL)
			err = -ENETUNREACH;
		goto out;
	}
	sock->state = SS_CONNECTING;
out:
	if (err && cs->state == IBTICK_CONN_NEW)
		ibt_conn_user_release(cs);	/* not connecting after all */
	mutex_unlock(&cs->lock);
	if (err)
		return err;
	timeo = sock_sndtimeo(sock->sk, flags & O_NONBLOCK);
	if (!timeo)
		return -EINPROGRESS;
	timeo = wait_event_interruptible_timeout(*sk_sleep(sock->sk),
			READ_ONCE(cs->state) != IBTICK_CONN_CONNECTING, timeo);
	if (timeo < 0)
		return timeo;
	if (!timeo)
		return -EINPROGRESS;
	switch (READ_ONCE(cs->state)) {
	case IBTICK_CONN_ESTABLISHED:
		sock->state = SS_CONNECTED;
		return 0;
	default:
		return sock_error(sock->sk) ?: -ECONNRESET;
	}
}

static int ibt_conn_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct ibt_csock *cs;
	bool graceful;

	if (!sk)
		return 0;
	cs = ibt_csk(sk);
	ibt_conn_list_del(cs);	/* dumps see no socket being torn down */
	ibt_conn_stop_work(cs);
	mutex_lock(&cs->lock);
	ibt_conn_report(cs, 0);	/* a failure the cancelled fail_work owed */
	if (cs->listening) {	/* a failed one too: its children */
		cs->state = IBTICK_CONN_CLOSED;
		ibt_conn_listener_close(cs);
	} else {
		/* unread messages: reset, as TCP does */
		graceful = !ibt_conn_ring(cs) ||
			   !ibt_ring_backlog(&cs->ring, READ_ONCE(cs->cursor));
		ibt_conn_shutdown_id(cs, graceful);
		cs->state = IBTICK_CONN_CLOSED;
	}
	mutex_unlock(&cs->lock);
	cancel_work_sync(&cs->fail_work);	/* an async event's, till teardown */
	sock_orphan(sk);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int ibt_conn_wait(struct ibt_csock *cs, long *timeo, bool send)
{
	long t;

	if (!*timeo)
		return -EAGAIN;
	ibt_conn_poll_sleep(cs);	/* the CQ event wakes us: armed */
	t = wait_event_interruptible_timeout(*sk_sleep(&cs->sk), ({
		bool go;

		spin_lock_bh(&cs->dlock);
		if (send)
			cs->want_tx = true;
		go = cs->dead || cs->failed ||
		     (send ? cs->wr_shut || ibt_conn_can_send_locked(cs) :
			     cs->peer_fin || cs->rd_shut ||
			     ibt_ring_backlog(&cs->ring, cs->cursor));
		spin_unlock_bh(&cs->dlock);
		go; }), *timeo);
	if (t < 0)
		return sock_intr_errno(*timeo);
	if (!t)
		return -EAGAIN;
	*timeo = t;
	return 0;
}

/* Something for recv: a message, the end, or an error. */
static bool ibt_conn_rx_ready(struct ibt_csock *cs)
{
	return ibt_ring_backlog(&cs->ring, READ_ONCE(cs->cursor)) ||
	       READ_ONCE(cs->peer_fin) || READ_ONCE(cs->failed) ||
	       READ_ONCE(cs->dead);
}

static int ibt_conn_sendmsg(struct socket *sock, struct msghdr *msg,
			    size_t len)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	long timeo = sock_sndtimeo(sock->sk, msg->msg_flags & MSG_DONTWAIT);
	bool waited = false;
	int err;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR))
		return -EOPNOTSUPP;
	if (msg->msg_name)
		return -EISCONN;
	if (!len)
		return -EINVAL;
	if (READ_ONCE(cs->state) == IBTICK_CONN_NEW ||
	    READ_ONCE(cs->state) == IBTICK_CONN_LISTEN ||
	    READ_ONCE(cs->state) == IBTICK_CONN_CONNECTING)
		return -ENOTCONN;
	if (len > READ_ONCE(cs->peer_msg_max))
		return -EMSGSIZE;
	mutex_lock(&cs->slock);
	for (;;) {
		spin_lock_bh(&cs->dlock);
		if (cs->dead || cs->failed || cs->wr_shut) {
			spin_unlock_bh(&cs->dlock);
			err = -EPIPE;
			goto out;
		}
		if (ibt_conn_can_send_locked(cs)) {
			spin_unlock_bh(&cs->dlock);
			break;
		}
		if (!waited)
			cs->st.tx_credit_waits++;
		spin_unlock_bh(&cs->dlock);
		/* completions or grants may be waiting in the CQ */
		if (!waited && ibt_conn_poll_direct(cs)) {
			waited = true;
			continue;
		}
		waited = true;
		err = ibt_conn_wait(cs, &timeo, true);
		if (err)
			goto out;
	}
	/* the stage is the socket's; a device going away leaves it */
	if (!cs->stage) {
		cs->stage = kmalloc(IBTICK_SLOT_SIZE_MAX, GFP_KERNEL);
		if (!cs->stage) {
			err = -ENOBUFS;
			goto out;
		}
	}
	if (copy_from_iter(cs->stage, len, &msg->msg_iter) != len) {
		err = -EFAULT;
		goto out;
	}
	spin_lock_bh(&cs->dlock);
	if (cs->dead || cs->failed || cs->wr_shut)
		err = -EPIPE;	/* never a message after the FIN */
	else
		err = ibt_conn_post_data(cs, len);
	spin_unlock_bh(&cs->dlock);
out:
	mutex_unlock(&cs->slock);
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err ?: len;
}

static int ibt_conn_recvmsg(struct socket *sock, struct msghdr *msg,
			    size_t len, int flags)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	long timeo = sock_rcvtimeo(sock->sk, flags & MSG_DONTWAIT);
	const struct ibtick_slot *s;
	unsigned long j0;
	u64 lost = 0, idx;
	bool eof, spun;
	u32 mlen;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL |
		      MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	if (!ibt_conn_ring(cs) || READ_ONCE(cs->listening))
		return -ENOTCONN;
	mutex_lock(&cs->rlock);
	for (;;) {
		idx = cs->cursor;
		s = ibt_ring_peek(&cs->ring, &idx, &lost);
		/* credits keep the producer off unread slots */
		if (WARN_ON_ONCE(lost || (s && idx != cs->cursor))) {
			err = -EIO;
			goto out;
		}
		if (s)
			break;
		/* spinning callers drain the CQ themselves */
		if (!timeo && ibt_conn_poll_direct(cs))
			continue;
		if (timeo) {
			j0 = jiffies;
			spun = ibt_conn_busy_wait(cs, timeo, ibt_conn_rx_ready);
			ibt_timeo_spent(&timeo, j0);
			/* a message; else the end or an error, told below */
			if (spun && ibt_ring_backlog(&cs->ring, cs->cursor))
				continue;
		}
		spin_lock_bh(&cs->dlock);
		err = cs->failed ? -ECONNRESET : 0;
		eof = !err && (cs->peer_fin || cs->rd_shut || cs->dead);
		spin_unlock_bh(&cs->dlock);
		if (err || eof)
			goto out;	/* error, or 0: end of stream */
		err = ibt_conn_wait(cs, &timeo, false);
		if (err)
			goto out;
	}
	mlen = READ_ONCE(s->len);
	if (mlen > len)
		msg->msg_flags |= MSG_TRUNC;
	if (copy_to_iter(s + 1, min_t(size_t, mlen, len), &msg->msg_iter) !=
	    min_t(size_t, mlen, len)) {
		err = -EFAULT;
		goto out;
	}
	msg->msg_flags |= MSG_EOR;
	msg->msg_namelen = 0;
	err = (flags & MSG_TRUNC) ? mlen : min_t(size_t, mlen, len);
	if (flags & MSG_PEEK)
		goto out;
	WRITE_ONCE(cs->cursor, cs->cursor + 1);
	spin_lock_bh(&cs->dlock);
	cs->st.rx_read++;
	if (!cs->dead && !cs->failed) {
		ibt_credit_freed(&cs->cr, 1);
		ibt_conn_maybe_update_locked(cs);
	}
	spin_unlock_bh(&cs->dlock);
out:
	mutex_unlock(&cs->rlock);
	return err;
}

static __poll_t ibt_conn_poll(struct file *file, struct socket *sock,
			      poll_table *wait)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	__poll_t mask = 0;
	int state;

	sock_poll_wait(file, sock, wait);
	state = READ_ONCE(cs->state);
	if (READ_ONCE(cs->listening)) {
		if (ibt_conn_has_ready(cs))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (READ_ONCE(sock->sk->sk_err) || state != IBTICK_CONN_LISTEN)
			mask |= EPOLLERR;
		return mask;
	}
	if (state == IBTICK_CONN_NEW || state == IBTICK_CONN_CONNECTING)
		return 0;
	if (!ibt_conn_ring(cs))	/* failed before it had one */
		return EPOLLERR | EPOLLHUP;
	if (READ_ONCE(sock->sk->sk_ll_usec) && !ibt_conn_rx_ready(cs))
		ibt_conn_poll_direct(cs);	/* SO_BUSY_POLL: one look */
	if (READ_ONCE(sock->sk->sk_err))
		mask |= EPOLLERR;
	spin_lock_bh(&cs->dlock);
	if (ibt_ring_backlog(&cs->ring, READ_ONCE(cs->cursor)))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (cs->failed)
		mask |= EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP;
	else if (cs->peer_fin)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (cs->rd_shut)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (cs->dead || cs->wr_shut)
		mask |= EPOLLOUT;	/* send fails at once */
	else if (!cs->failed && ibt_conn_can_send_locked(cs))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else
		cs->want_tx = true;	/* wake poll when there is room */
	if (cs->peer_fin && (cs->wr_shut || cs->dead))
		mask |= EPOLLHUP;
	spin_unlock_bh(&cs->dlock);
	/* poll may sleep waiting for either: the CQ event must come */
	if ((mask & (EPOLLIN | EPOLLOUT)) != (EPOLLIN | EPOLLOUT))
		ibt_conn_poll_sleep(cs);
	return mask;
}

static int ibt_conn_shutdown(struct socket *sock, int how)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	int err = 0;

	how++;	/* SHUT_RD 0 -> 1, SHUT_WR 1 -> 2, SHUT_RDWR 2 -> 3 */
	if (how < 1 || how > 3)
		return -EINVAL;
	mutex_lock(&cs->lock);
	if (cs->state != IBTICK_CONN_ESTABLISHED &&
	    cs->state != IBTICK_CONN_PEER_CLOSED &&
	    cs->state != IBTICK_CONN_FAILED) {
		err = -ENOTCONN;
		goto out;
	}
	spin_lock_bh(&cs->dlock);
	if (how & 1)
		cs->rd_shut = true;
	if ((how & 2) && !cs->wr_shut) {
		cs->wr_shut = true;
		if (!cs->fin_sent && !cs->dead && !cs->failed) {
			cs->fin_sent = true;
			ibt_conn_post_ctl_locked(cs, IBT_IMM_FIN);
		}
	}
	spin_unlock_bh(&cs->dlock);
	ibt_conn_wake(cs, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
out:
	mutex_unlock(&cs->lock);
	return err;
}

void ibt_conn_info(struct ibt_csock *cs, struct ibtick_conn_info *ci)
{
	spin_lock_bh(&cs->dlock);
	*ci = cs->st;
	ci->state = READ_ONCE(cs->state);
	if (ci->state == IBTICK_CONN_ESTABLISHED && cs->failed)
		ci->state = IBTICK_CONN_FAILED;
	else if (ci->state == IBTICK_CONN_ESTABLISHED && cs->peer_fin)
		ci->state = IBTICK_CONN_PEER_CLOSED;
	ci->msg_max = cs->peer_msg_max;
	ci->local_msg_max = ibt_conn_ring(cs) ? cs->ring.payload_max : 0;
	ci->nslots = cs->nslots;
	ci->credits = cs->cr.send;
	ci->peer_credits = ibt_conn_ring(cs) ? ibt_credit_peer(&cs->cr) : 0;
	ci->pending_grants = cs->cr.pending;
	ci->inline_max = cs->ib.inline_max;
	if (!cs->failed && !cs->dead)
		ci->tx_unacked = 0;
	ci->qp_num = cs->qp_num;
	ci->peer_qp_num = cs->peer_qp_num;
	spin_unlock_bh(&cs->dlock);
	/* the drainers' (poll_lock): each read whole, not all at one instant */
	ci->cq_events = atomic64_read(&cs->ib.cq_events);
	ci->cqe_irq = READ_ONCE(cs->ib.cqe_irq);
	ci->cqe_caller = READ_ONCE(cs->ib.cqe_caller);
	ci->irq_polls = READ_ONCE(cs->ib.irq_polls);
}

static int ibt_conn_ioctl(struct socket *sock, unsigned int cmd,
			  unsigned long arg)
{
	return -ENOIOCTLCMD;
}

static struct proto_ops ibt_conn_ops __ro_after_init = {
	.family		= IBTICK_AF_DEFAULT,	/* set to ibt_family at init */
	.owner		= THIS_MODULE,
	.release	= ibt_conn_release,
	.bind		= ibt_conn_bind,
	.connect	= ibt_conn_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= ibt_conn_accept,
	.getname	= ibt_conn_getname,
	.poll		= ibt_conn_poll,
	.ioctl		= ibt_conn_ioctl,
	.listen		= ibt_conn_listen,
	.shutdown	= ibt_conn_shutdown,
	.setsockopt	= ibt_conn_setsockopt,
	.getsockopt	= ibt_conn_getsockopt,
	.sendmsg	= ibt_conn_sendmsg,
	.recvmsg	= ibt_conn_recvmsg,
	.mmap		= ibt_conn_mmap,
};

int ibt_conn_create(struct net *net, struct socket *sock, int kern)
{
	struct ibt_csock *cs;

	sock->ops = &ibt_conn_ops;
	cs = ibt_conn_alloc(net, kern, NULL, sock);
	return cs ? 0 : -ENOMEM;
}

int ibt_conn_init(void)
{
	ibt_conn_ops.family = ibt_family;
	return proto_register(&ibt_conn_proto, 0);
}

void ibt_conn_exit(void)
{
	ibt_conn_users_exit();
	proto_unregister(&ibt_conn_proto);
}
