// SPDX-License-Identifier: GPL-2.0
/*
 * The socket list and IBTICK_CMD_SOCK_GET: every AF_IBTICK socket, its
 * feed, role, cursor and counters (ibtick sock show), sock_diag-style.
 *
 * Who sees what: an administrator (CAP_NET_ADMIN) every socket; anybody
 * else the sockets of their own uid only.  PIDs are numbered in the
 * requester's PID namespace (0 where the creator is not visible there),
 * UIDs mapped into the user namespace of the requester's netlink socket -
 * not of whichever process happens to continue the dump.
 *
 * Locking: ibt_socks_lock protects the list; it is taken alone (see ibt.h).
 * A socket leaves the list first thing in release, before it drops its
 * feed, so a dump holding the lock may follow is->feed.  The socket's
 * counters are read without its lock: each is one word written under it.
 */
#include <linux/ibtick_netlink.h>
#include <linux/mutex.h>
#include <linux/pid_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "ibt.h"

static DEFINE_MUTEX(ibt_socks_lock);
static LIST_HEAD(ibt_socks);		/* sorted by id (ids only grow) */
static u64 ibt_sock_next_id = 1;	/* ibt_socks_lock */
static u32 ibt_socks_gen;		/* ibt_socks_lock */

void ibt_sock_list_add(struct ibt_sock *is)
{
	mutex_lock(&ibt_socks_lock);
	is->id = ibt_sock_next_id++;
	list_add_tail(&is->node, &ibt_socks);
	ibt_socks_gen++;
	mutex_unlock(&ibt_socks_lock);
}

void ibt_sock_list_del(struct ibt_sock *is)
{
	mutex_lock(&ibt_socks_lock);
	list_del(&is->node);
	ibt_socks_gen++;
	mutex_unlock(&ibt_socks_lock);
}

static int ibt_put_u64(struct sk_buff *skb, int type, u64 v)
{
	return nla_put_u64_64bit(skb, type, v, IBTICK_A_SOCK_PAD);
}

/* The requester of a SOCK_GET dump, as the dump's every part sees it. */
struct ibt_sock_viewer {
	struct pid_namespace	*pidns;
	struct user_namespace	*userns;
	kuid_t			uid;
	bool			admin;
};

/* Context: ibt_socks_lock held (keeps @is and its feed). */
static int ibt_fill_sock(struct sk_buff *skb, struct ibt_sock *is,
			 struct ibt_feed *f, const struct ibt_sock_viewer *v)
{
	/* pairs with bind's release: a subscribed socket's cursor is set */
	bool subscribed = smp_load_acquire(&is->subscribed);
	u32 mappings = atomic_read(&is->mappings);
	u32 flags = 0;

	if (subscribed)
		flags |= IBTICK_SOCK_SUBSCRIBED;
	if (READ_ONCE(is->publisher))
		flags |= IBTICK_SOCK_PUBLISHER;
	if (mappings)
		flags |= IBTICK_SOCK_MAPPED;
	if (ibt_put_u64(skb, IBTICK_A_SOCK_ID, is->id) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_INODE, sock_i_ino(&is->sk)) ||
	    nla_put_u32(skb, IBTICK_A_SOCK_PID, pid_nr_ns(is->tgid, v->pidns)) ||
	    nla_put_u32(skb, IBTICK_A_SOCK_UID,
			from_kuid_munged(v->userns, sock_i_uid(&is->sk))) ||
	    nla_put_u32(skb, IBTICK_A_SOCK_FLAGS, flags) ||
	    nla_put_u32(skb, IBTICK_A_SOCK_MAPPINGS, mappings) ||
	    nla_put_u8(skb, IBTICK_A_SOCK_LOOPBACK, READ_ONCE(is->loopback)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_RX_TICKS, READ_ONCE(is->st.rx_ticks)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_RX_BYTES, READ_ONCE(is->st.rx_bytes)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_RX_LOST, READ_ONCE(is->st.rx_lost)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_RX_TRUNCATED,
			READ_ONCE(is->st.rx_truncated)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_RX_SKIPPED_LOCAL,
			READ_ONCE(is->st.rx_skipped_local)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_TX_TICKS, READ_ONCE(is->st.tx_ticks)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_TX_BYTES, READ_ONCE(is->st.tx_bytes)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_TX_EAGAIN,
			READ_ONCE(is->st.tx_eagain)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_TX_ERRORS,
			READ_ONCE(is->st.tx_errors)) ||
	    ibt_put_u64(skb, IBTICK_A_SOCK_LAPS, READ_ONCE(is->laps)) ||
	    nla_put_u32(skb, IBTICK_A_SOCK_FEEDS, ibt_member_count(is)))
		return -EMSGSIZE;
	if (!f)
		return 0;
	if (nla_put_u32(skb, IBTICK_A_SOCK_FEED_ID, f->id) ||
	    nla_put_string(skb, IBTICK_A_SOCK_FEED_NAME, f->name))
		return -EMSGSIZE;
	if (subscribed) {
		u64 cursor = READ_ONCE(is->sub.cursor);
		u64 prod = ibt_ring_producer(&f->ring);

		if (ibt_put_u64(skb, IBTICK_A_SOCK_CURSOR, cursor) ||
		    ibt_put_u64(skb, IBTICK_A_SOCK_LAG,
				prod > cursor ? prod - cursor : 0))
			return -EMSGSIZE;
	}
	return 0;
}

/* Does @is publish on, or read, feed @id (a multi-feed socket's too)? */
static bool ibt_sock_on_feed(struct ibt_sock *is, struct ibt_feed *f, u32 id)
{
	bool on;

	if (f && f->id == id)
		return true;
	rcu_read_lock();
	on = ibt_member_find_rcu(is, id);
	rcu_read_unlock();
	return on;
}

/*
 * Context: process; called until it returns 0 (done).
 * SOCK_PID and SOCK_FEED_ID in the request filter the dump.
 */
int ibt_nl_sock_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ibt_nl_dump_ctx *ctx = ibt_nl_dump_ctx(cb);
	struct nlattr **tb = genl_dumpit_info(cb)->attrs;
	const struct ibt_sock_viewer v = {
		.pidns	= task_active_pid_ns(current),
		.userns	= sk_user_ns(NETLINK_CB(cb->skb).sk),
		.uid	= NETLINK_CB(cb->skb).creds.uid,
		.admin	= netlink_capable(cb->skb, CAP_NET_ADMIN),
	};
	struct ibt_sock *is;
	struct ibt_feed *f;
	void *hdr;
	int err = 0;

	mutex_lock(&ibt_socks_lock);
	cb->seq = ibt_socks_gen;
	list_for_each_entry(is, &ibt_socks, node) {
		if (is->id < ctx->next)
			continue;
		/* pairs with the release store in ibt_attach() */
		f = smp_load_acquire(&is->feed);
		if (!v.admin && !uid_eq(sock_i_uid(&is->sk), v.uid))
			continue;
		if (tb[IBTICK_A_SOCK_PID] &&
		    pid_nr_ns(is->tgid, v.pidns) !=
		    nla_get_u32(tb[IBTICK_A_SOCK_PID]))
			continue;
		if (tb[IBTICK_A_SOCK_FEED_ID] &&
		    !ibt_sock_on_feed(is, f,
				      nla_get_u32(tb[IBTICK_A_SOCK_FEED_ID])))
			continue;
		hdr = ibt_nl_dump_begin(skb, cb, IBTICK_CMD_SOCK_GET);
		err = ibt_nl_dump_end(skb, hdr,
				      hdr ? ibt_fill_sock(skb, is, f, &v) : 0);
		if (err)
			break;
		ctx->next = is->id + 1;
	}
	mutex_unlock(&ibt_socks_lock);
	return ibt_nl_dump_done(skb, err);
}
