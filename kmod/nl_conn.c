// SPDX-License-Identifier: GPL-2.0
/*
 * The connection list and IBTICK_CMD_CONN_GET: every SOCK_SEQPACKET
 * socket, its addresses, queue pairs, credits and counters (ibtick conn
 * show), as SOCK_GET lists the datagram sockets (nl_sock.c), with the same
 * rule of who sees what: an administrator all, anybody else their uid's.
 *
 * Locking: ibt_conns_lock protects the list and is taken alone, or inside
 * an ibt_csock's lock (never the other way).  A connection leaves the list
 * first thing in release (or, not accepted yet, in its listener's close),
 * so a dump holding the lock reads a live socket; its data-path fields
 * under its dlock (ibt_conn_info()).
 */
#include <linux/ibtick_netlink.h>
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "conn.h"
#include "ibt.h"

static DEFINE_MUTEX(ibt_conns_lock);
static LIST_HEAD(ibt_conns);		/* sorted by id (ids only grow) */
static u64 ibt_conn_next_id = 1;	/* ibt_conns_lock */
static u32 ibt_conns_gen;		/* ibt_conns_lock */

/* @tgid: the process it is shown under (referenced until destruct). */
void ibt_conn_list_add(struct ibt_csock *cs, struct pid *tgid)
{
	cs->tgid = get_pid(tgid);
	mutex_lock(&ibt_conns_lock);
	cs->id = ibt_conn_next_id++;
	list_add_tail(&cs->node, &ibt_conns);
	ibt_conns_gen++;
	mutex_unlock(&ibt_conns_lock);
}

void ibt_conn_list_del(struct ibt_csock *cs)
{
	mutex_lock(&ibt_conns_lock);
	if (!list_empty(&cs->node)) {
		list_del_init(&cs->node);
		ibt_conns_gen++;
	}
	mutex_unlock(&ibt_conns_lock);
	/* the pid goes with the socket (destruct): a request copies it */
}

static int ibt_conn_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, IBTICK_A_CONN_PAD);
}

/* Context: ibt_conns_lock held (keeps @cs). */
static int ibt_fill_conn(struct sk_buff *skb, struct ibt_csock *cs,
			 struct pid_namespace *pidns,
			 struct user_namespace *userns)
{
	struct ibtick_conn_info ci;
	u32 backlog, pending;
	u64 refused;

	ibt_conn_info(cs, &ci);
	mutex_lock(&ibt_conn_accept_lock);
	backlog = cs->backlog;
	pending = cs->nchildren;
	refused = cs->refused_user_max;
	mutex_unlock(&ibt_conn_accept_lock);
	if (ibt_conn_put_u64(skb, IBTICK_A_CONN_ID, cs->id) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_INODE, sock_i_ino(&cs->sk)) ||
	    nla_put_u32(skb, IBTICK_A_CONN_PID, pid_nr_ns(cs->tgid, pidns)) ||
	    nla_put_u32(skb, IBTICK_A_CONN_UID,
			from_kuid_munged(userns, sock_i_uid(&cs->sk))) ||
	    nla_put_u32(skb, IBTICK_A_CONN_STATE, ci.state) ||
	    nla_put_u32(skb, IBTICK_A_CONN_ERROR, READ_ONCE(cs->err)) ||
	    nla_put_in_addr(skb, IBTICK_A_CONN_LOCAL_ADDR,
			    READ_ONCE(cs->local.sin_addr.s_addr)) ||
	    nla_put_u16(skb, IBTICK_A_CONN_LOCAL_PORT,
			ntohs(READ_ONCE(cs->local.sin_port))) ||
	    nla_put_in_addr(skb, IBTICK_A_CONN_PEER_ADDR,
			    READ_ONCE(cs->peer.sin_addr.s_addr)) ||
	    nla_put_u16(skb, IBTICK_A_CONN_PEER_PORT,
			ntohs(READ_ONCE(cs->peer.sin_port))) ||
	    (cs->dev_name[0] &&
	     nla_put_string(skb, IBTICK_A_CONN_DEV_NAME, cs->dev_name)) ||
	    nla_put_u32(skb, IBTICK_A_CONN_QPN, ci.qp_num) ||
	    nla_put_u32(skb, IBTICK_A_CONN_PEER_QPN, ci.peer_qp_num) ||
	    nla_put_u32(skb, IBTICK_A_CONN_NSLOTS, ci.nslots) ||
	    nla_put_u32(skb, IBTICK_A_CONN_MSG_MAX, ci.msg_max) ||
	    nla_put_u32(skb, IBTICK_A_CONN_LOCAL_MSG_MAX, ci.local_msg_max) ||
	    nla_put_u32(skb, IBTICK_A_CONN_CREDITS, ci.credits) ||
	    nla_put_u32(skb, IBTICK_A_CONN_PEER_CREDITS, ci.peer_credits) ||
	    nla_put_u32(skb, IBTICK_A_CONN_PENDING_GRANTS, ci.pending_grants) ||
	    nla_put_u32(skb, IBTICK_A_CONN_INLINE_MAX, ci.inline_max) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_TX_MSGS, ci.tx_msgs) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_TX_BYTES, ci.tx_bytes) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_RX_MSGS, ci.rx_msgs) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_RX_BYTES, ci.rx_bytes) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_RX_READ, ci.rx_read) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_TX_CREDIT_WAITS,
			     ci.tx_credit_waits) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CTL_TX, ci.ctl_tx) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CTL_RX, ci.ctl_rx) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_TX_UNACKED, ci.tx_unacked) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CQ_ERRORS, ci.cq_errors) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CQ_EVENTS, ci.cq_events) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CQE_IRQ, ci.cqe_irq) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_CQE_CALLER, ci.cqe_caller) ||
	    ibt_conn_put_u64(skb, IBTICK_A_CONN_IRQ_POLLS, ci.irq_polls))
		return -EMSGSIZE;
	if (ci.state == IBTICK_CONN_LISTEN &&
	    (nla_put_u32(skb, IBTICK_A_CONN_BACKLOG, backlog) ||
	     nla_put_u32(skb, IBTICK_A_CONN_PENDING_ACCEPT, pending) ||
	     ibt_conn_put_u64(skb, IBTICK_A_CONN_REFUSED_USER_MAX, refused)))
		return -EMSGSIZE;
	return 0;
}

/* Context: process; called until it returns 0 (done). */
int ibt_nl_conn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ibt_nl_dump_ctx *ctx = ibt_nl_dump_ctx(cb);
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	struct pid_namespace *pidns = task_active_pid_ns(current);
	struct user_namespace *userns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	kuid_t uid = NETLINK_CB(cb->skb).creds.uid;
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	struct ibt_csock *cs;
	void *hdr;
	int err = 0;

	mutex_lock(&ibt_conns_lock);
	cb->seq = ibt_conns_gen;
	list_for_each_entry(cs, &ibt_conns, node) {
		if (cs->id < ctx->next)
			continue;
		if (!admin && !uid_eq(sock_i_uid(&cs->sk), uid))
			continue;
		if (tb[IBTICK_A_CONN_PID] &&
		    pid_nr_ns(cs->tgid, pidns) != nla_get_u32(tb[IBTICK_A_CONN_PID]))
			continue;
		hdr = ibt_nl_dump_begin(skb, cb, IBTICK_CMD_CONN_GET);
		err = ibt_nl_dump_end(skb, hdr, hdr ?
				      ibt_fill_conn(skb, cs, pidns, userns) : 0);
		if (err)
			break;
		ctx->next = cs->id + 1;
	}
	mutex_unlock(&ibt_conns_lock);
	return ibt_nl_dump_done(skb, err);
}
