// SPDX-License-Identifier: GPL-2.0
/*
 * AF_IBTICK socket options (SOL_IBTICK): what a socket asks of its feed
 * before and after bind, and what it reads back.
 *
 * Set: every option's length is checked before anything is copied
 * (ibt_opt_get); structures are versioned as copy_struct_from_user() has
 * them: a longer value from a newer header is taken if what this module
 * does not know is zero (E2BIG otherwise), a shorter one is EINVAL; int
 * options take at least an int, u64 ones exactly a u64.  Get: structures
 * are versioned by length (verlen.h): a caller gets min(optlen, size)
 * bytes and the length back.
 *
 * Locking: the socket's lock, as every other socket call (sock.c).
 */
#include <linux/capability.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#include "ibt.h"
#include "verlen.h"

/* Copy an option's value from user space after checking its length. */
int ibt_opt_get(void *dst, size_t size, sockptr_t optval,
		unsigned int optlen, enum ibt_opt_len rule)
{
	int zero;

	if (rule == IBT_OPT_EXACT ? optlen != size : optlen < size)
		return -EINVAL;
	if (rule == IBT_OPT_STRUCT && optlen > size) {
		if (optlen > PAGE_SIZE)
			return -EINVAL;
		zero = check_zeroed_sockptr(optval, size, optlen - size);
		if (zero <= 0)
			return zero ?: -E2BIG;
	}
	if (copy_from_sockptr(dst, optval, size))
		return -EFAULT;
	return 0;
}

/* IBTICK_LOOPBACK changed: count the socket in every feed it reads. */
static void ibt_sock_loopback(struct ibt_sock *is, bool on)
{
	struct ibt_members *mm = rcu_dereference_protected(is->more,
						lockdep_is_held(&is->lock));
	u32 i, n = (mm ? mm->n : 0) + is->subscribed;

	for (i = 0; i < n; i++) {
		struct ibt_feed *f = mm && i < mm->n ? mm->m[i]->feed :
						       is->sub.feed;

		if (on)
			atomic_inc(&f->loopback_readers);
		else
			atomic_dec(&f->loopback_readers);
	}
}

int ibt_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	struct ibtick_ring_geometry g;
	struct ibtick_poll_mode pm;
	u64 bytes, cur;
	int val, err = 0;

	if (level != SOL_IBTICK)
		return -ENOPROTOOPT;
	mutex_lock(&is->lock);
	switch (optname) {
	case IBTICK_RING_CURSOR:
		err = ibt_opt_get(&cur, sizeof(cur), optval, optlen,
				  IBT_OPT_EXACT);
		if (err)
			break;
		if (!is->subscribed) {
			err = -ENOTCONN;
			break;
		}
		/*
		 * Not past the producer (indices start at 0, so unsigned);
		 * far behind is lapped, counted at the next recvmsg.
		 */
		if (cur > ibt_ring_producer(&is->feed->ring)) {
			err = -EINVAL;
			break;
		}
		WRITE_ONCE(is->sub.cursor, cur);
		break;
	case IBTICK_POLL_MODE:
		err = ibt_opt_get(&pm, sizeof(pm), optval, optlen,
				  IBT_OPT_STRUCT);
		if (err)
			break;
		if (!capable(CAP_NET_ADMIN)) {
			err = -EPERM;	/* it burns a CPU for every user */
			break;
		}
		if (!is->feed) {
			err = -ENOTCONN;
			break;
		}
		err = ibt_poll_set_mode(is->feed, pm.mode, pm.cpu);
		break;
	case IBTICK_COMP_VECTOR:
		err = ibt_opt_get(&val, sizeof(val), optval, optlen,
				  IBT_OPT_EXACT);
		if (err)
			break;
		if (is->feed) {
			err = -EISCONN;	/* a property of the feed's creation */
			break;
		}
		if (val < 0) {
			err = -EINVAL;
			break;
		}
		is->comp_vector = val;
		break;
	case IBTICK_RING_GEOMETRY:
		err = ibt_opt_get(&g, sizeof(g), optval, optlen,
				  IBT_OPT_STRUCT);
		if (err)
			break;
		if (is->feed) {
			err = -EISCONN;	/* geometry is frozen at creation */
			break;
		}
		err = ibt_ring_geometry(g.nslots, g.slot_size, &bytes);
		if (!err) {
			is->nslots = g.nslots;
			is->slot_size = g.slot_size;
		}
		break;
	case IBTICK_LOOPBACK:
	case IBTICK_LOST_CMSG:
		err = ibt_opt_get(&val, sizeof(val), optval, optlen,
				  IBT_OPT_AT_LEAST);
		if (err)
			break;
		if (optname == IBTICK_LOST_CMSG) {
			is->lost_cmsg = !!val;
			break;
		}
		if (is->loopback != !!val)
			ibt_sock_loopback(is, !!val);
		is->loopback = !!val;
		break;
	case IBTICK_SOURCE_CMSG:
		err = ibt_opt_get(&val, sizeof(val), optval, optlen,
				  IBT_OPT_AT_LEAST);
		if (!err)
			err = ibt_member_want_sources(is, !!val);
		break;
	case IBTICK_ADD_FEED:
		err = ibt_member_add(is, optval, optlen);
		break;
	case IBTICK_DROP_FEED:
		err = ibt_member_drop(is, optval, optlen);
		break;
	case IBTICK_MEMBER_CURSOR:
		err = ibt_member_set_cursor(is, optval, optlen);
		break;
	default:
		err = -ENOPROTOOPT;
	}
	mutex_unlock(&is->lock);
	return err;
}

/* Copy a versioned structure: min(len, size) bytes, the length returned. */
int ibt_put_versioned(char __user *optval, int __user *optlen, int len,
		      const void *val, size_t size, size_t min)
{
	len = ibt_versioned_len(len, size, min);
	if (len < 0)
		return len;
	if (copy_to_user(optval, val, len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}

/*
 * IBTICK_ARB_STATISTICS: the arbitrated feed @feed_id names (0: bind()'s).
 * The socket lock held; takes ibt_feeds_lock for the rails' state.
 */
static int ibt_arb_sockopt(struct ibt_sock *is, char __user *optval,
			   int __user *optlen, int len)
{
	struct ibtick_arb_stats st;
	struct ibt_member *m;
	struct ibt_feed *f;
	u32 id = 0;

	if (len >= sizeof(id) && get_user(id, (u32 __user *)optval))
		return -EFAULT;
	if (!id) {
		f = is->feed;
		if (!f)
			return -ENOTCONN;
	} else {
		m = ibt_member_find_rcu(is, id);	/* socket lock held */
		if (!m)
			return -EADDRNOTAVAIL;
		f = m->feed;
	}
	if (!f->arb)
		return -EOPNOTSUPP;
	mutex_lock(&ibt_feeds_lock);
	/* a dead feed's rails are gone, its counters are not (ibt_arb_free) */
	ibt_arb_stats(f, &st);
	mutex_unlock(&ibt_feeds_lock);
	return ibt_put_versioned(optval, optlen, len, &st, sizeof(st),
				 offsetofend(struct ibtick_arb_stats, nrails));
}

int ibt_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	struct ibtick_poll_mode pm = {};
	struct ibtick_ring_info ri;
	struct ibtick_stats st;
	struct ibt_feed *f;
	int len, val, err = 0;

	if (level != SOL_IBTICK)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	mutex_lock(&is->lock);
	f = is->feed;
	switch (optname) {
	case IBTICK_RING_INFO:
		if (!f) {
			err = -ENOTCONN;
			break;
		}
		ibt_ring_info(&f->ring, &ri);
		err = ibt_put_versioned(optval, optlen, len, &ri, sizeof(ri),
					offsetof(struct ibtick_ring_info, hdr_size));
		break;
	case IBTICK_STATISTICS:
		st = is->st;
		if (f) {
#define IBT_FSTAT_SO_Y(name, val)	st.feed_##name = (val);
#define IBT_FSTAT_SO_N(name, val)
#define IBT_FSTAT_COPY(name, attr, key, kind, so) \
			IBT_FSTAT_SO_##so(name, IBT_FSTAT_READ(kind, &f->st.name))
			IBTICK_FEED_COUNTERS(IBT_FSTAT_COPY)
#undef IBT_FSTAT_COPY
#undef IBT_FSTAT_SO_N
#undef IBT_FSTAT_SO_Y
		}
		st.mappings = atomic_read(&is->mappings);
		err = ibt_put_versioned(optval, optlen, len, &st, sizeof(st),
					sizeof(u64));
		break;
	case IBTICK_LOOPBACK:
	case IBTICK_LOST_CMSG:
	case IBTICK_SOURCE_CMSG:
		val = optname == IBTICK_LOOPBACK ? is->loopback :
		      optname == IBTICK_LOST_CMSG ? is->lost_cmsg :
		      is->source_cmsg;
		err = ibt_put_versioned(optval, optlen, len, &val, sizeof(val),
					sizeof(val));
		break;
	case IBTICK_FEEDS:
		err = ibt_member_list(is, optval, optlen, len);
		break;
	case IBTICK_ARB_STATISTICS:
		err = ibt_arb_sockopt(is, optval, optlen, len);
		break;
	case IBTICK_COMP_VECTOR:
		val = f ? f->comp_vector : is->comp_vector;
		err = ibt_put_versioned(optval, optlen, len, &val, sizeof(val),
					sizeof(val));
		break;
	case IBTICK_RING_CURSOR:
		if (!is->subscribed) {
			err = -ENOTCONN;
			break;
		}
		err = ibt_put_versioned(optval, optlen, len, &is->sub.cursor,
					sizeof(is->sub.cursor),
					sizeof(is->sub.cursor));
		break;
	case IBTICK_POLL_MODE:
		if (!f) {
			err = -ENOTCONN;
			break;
		}
		mutex_lock(&f->poll_lock);
		pm.mode = f->poll_mode;
		pm.cpu = f->poll_cpu;
		mutex_unlock(&f->poll_lock);
		err = ibt_put_versioned(optval, optlen, len, &pm, sizeof(pm),
					sizeof(pm));
		break;
	default:
		err = -ENOPROTOOPT;
	}
	mutex_unlock(&is->lock);
	return err;
}
