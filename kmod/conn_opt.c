// SPDX-License-Identifier: GPL-2.0
/*
 * Options of a connection socket (SOL_IBTICK on SOCK_SEQPACKET): the
 * ring's geometry before there is a connection; once there is one, the
 * ring's layout (IBTICK_RING_INFO), the reader's cursor
 * (IBTICK_RING_CURSOR) and the connection's state and counters
 * (IBTICK_CONN_INFO).  The contract is in <linux/ibtick.h>.
 *
 * The cursor is how a mapped reader hands slots back.  Moving it forward
 * frees every slot behind it, and their credits go back to the peer as
 * recv()'s do (credit.h): one call per batch, not per message.  It never
 * moves back (those slots may already be the peer's again) nor past what
 * arrived.
 *
 * Locking: rlock for the cursor (one reader at a time, as recv()), lock
 * for the geometry, dlock for the credits and counters (conn.h).
 */
#include <linux/sockptr.h>
#include <net/sock.h>

#include "conn.h"
#include "ibt.h"

static int ibt_conn_set_geometry(struct ibt_csock *cs, sockptr_t optval,
				 unsigned int optlen)
{
	struct ibtick_ring_geometry g;
	u64 bytes;
	int err;

	err = ibt_opt_get(&g, sizeof(g), optval, optlen, IBT_OPT_AT_LEAST);
	if (err)
		return err;
	if (g.nslots > IBT_CONN_SLOTS_MAX)
		return -EINVAL;
	err = ibt_ring_geometry(g.nslots, g.slot_size, &bytes);
	if (err)
		return err;
	mutex_lock(&cs->lock);
	if (cs->state != IBTICK_CONN_NEW || cs->ring_mem) {
		err = -EISCONN;
	} else {
		cs->nslots = g.nslots;
		cs->slot_size = g.slot_size;
	}
	mutex_unlock(&cs->lock);
	return err;
}

/* A ring to read: a connection's (a listener has none). */
static bool ibt_conn_has_ring(struct ibt_csock *cs)
{
	return ibt_conn_ring(cs) && !READ_ONCE(cs->listening);
}

/* IBTICK_RING_CURSOR: the reader read up to @cur; free and grant. */
static int ibt_conn_set_cursor(struct ibt_csock *cs, sockptr_t optval,
			       unsigned int optlen)
{
	u64 cur, n;
	int err;

	err = ibt_opt_get(&cur, sizeof(cur), optval, optlen, IBT_OPT_EXACT);
	if (err)
		return err;
	if (!ibt_conn_has_ring(cs))
		return -ENOTCONN;
	mutex_lock(&cs->rlock);
	n = cur - cs->cursor;
	/*
	 * Forward only, not past the producer; the credits keep the producer
	 * within nslots of the cursor, so n fits the ring.
	 */
	if ((s64)n < 0 || (s64)(ibt_ring_producer(&cs->ring) - cur) < 0 ||
	    n > cs->ring.nslots) {
		err = -EINVAL;
		goto out;
	}
	if (!n)
		goto out;
	WRITE_ONCE(cs->cursor, cur);
	spin_lock_bh(&cs->dlock);
	cs->st.rx_read += n;
	if (!cs->dead && !cs->failed) {
		ibt_credit_freed(&cs->cr, n);
		ibt_conn_maybe_update_locked(cs);
	}
	spin_unlock_bh(&cs->dlock);
out:
	mutex_unlock(&cs->rlock);
	return err;
}

int ibt_conn_setsockopt(struct socket *sock, int level, int optname,
			sockptr_t optval, unsigned int optlen)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);

	if (level != SOL_IBTICK)
		return -ENOPROTOOPT;
	switch (optname) {
	case IBTICK_RING_GEOMETRY:
		return ibt_conn_set_geometry(cs, optval, optlen);
	case IBTICK_RING_CURSOR:
		return ibt_conn_set_cursor(cs, optval, optlen);
	default:
		return -ENOPROTOOPT;
	}
}

int ibt_conn_getsockopt(struct socket *sock, int level, int optname,
			char __user *optval, int __user *optlen)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	struct ibtick_conn_info ci;
	struct ibtick_ring_info ri;
	u64 cur;
	int len;

	if (level != SOL_IBTICK)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	switch (optname) {
	case IBTICK_CONN_INFO:
		ibt_conn_info(cs, &ci);
		return ibt_put_versioned(optval, optlen, len, &ci, sizeof(ci),
					 8);
	case IBTICK_RING_INFO:
		if (!ibt_conn_has_ring(cs))
			return -ENOTCONN;
		ibt_ring_info(&cs->ring, &ri);
		return ibt_put_versioned(optval, optlen, len, &ri, sizeof(ri),
					 offsetof(struct ibtick_ring_info,
						  hdr_size));
	case IBTICK_RING_CURSOR:
		if (!ibt_conn_has_ring(cs))
			return -ENOTCONN;
		cur = READ_ONCE(cs->cursor);
		return ibt_put_versioned(optval, optlen, len, &cur,
					 sizeof(cur), sizeof(cur));
	default:
		return -ENOPROTOOPT;
	}
}
