/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libibtick: read ticks from an ibtick feed's ring with no system call per
 * tick, and publish them.
 *
 *	struct ibtick_reader r;
 *	struct ibtick_tick t;
 *
 *	ibtick_reader_open(&r, "239.1.1.1", 5000, "ib0", NULL);
 *	for (;;) {
 *		if (!ibtick_next(&r, &t)) {		// caught up
 *			if (ibtick_ended(&r))		// dead and drained
 *				break;
 *			continue;			// spin, or ibtick_wait()
 *		}
 *		handle(t.data, t.len, t.slot);		// read-only, in the ring
 *		if (!ibtick_done(&r, &t))
 *			undo();				// overwritten meanwhile
 *	}
 *
 * The ring protocol is the one written in <linux/ibtick.h>, whose labels
 * (A)..(F) the inline functions below quote; they use C11 atomics
 * (<stdatomic.h>) for the reader's side: (C) and (D) are acquire loads,
 * (F) an acquire fence followed by a relaxed load, as a seqlock reader.
 *
 * A tick handed out by ibtick_next() lives in memory the kernel may
 * overwrite at any moment (the producer never waits for readers).  What
 * the caller read from it is valid only if ibtick_done() then returns
 * true; if it returns false the tick is counted lost and the caller must
 * forget what it read.  Every index is either delivered (done() true)
 * once, or counted in r->lost once: delivered + lost == produced.
 *
 * Thread safety: one reader per struct ibtick_reader; any number of
 * readers (threads or processes) per feed, each with its own cursor.
 */
#ifndef LIBIBTICK_H
#define LIBIBTICK_H

#ifndef __cplusplus
#include <stdatomic.h>
#include <stdbool.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/ibtick.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBIBTICK_VERSION	"0.4.0"

struct ibtick_reader {
	int				fd;	/* the bound socket, or -1 */
	const struct ibtick_ring_hdr	*hdr;	/* the mapped ring */
	const uint8_t			*slots;
	uint32_t			nslots;
	uint32_t			mask;
	uint32_t			slot_size;
	uint32_t			payload_max;
	uint64_t			cursor;		/* next index to read */
	uint64_t			lost;		/* total, this reader */
	uint64_t			delivered;	/* total, this reader */
	void				*map;		/* munmap()ed at close */
	size_t				map_len;
	bool				own_fd;		/* closed at close */
};

/* One tick, as ibtick_next() hands it out (pointers into the ring). */
struct ibtick_tick {
	const struct ibtick_slot	*slot;	/* descriptor: pub_seq, rx_ns... */
	const void			*data;	/* payload */
	uint32_t			len;	/* payload bytes (<= payload_max) */
	uint64_t			idx;	/* ring index */
	uint64_t			lost;	/* lost just before this tick */
};

/* Options of ibtick_reader_open(); zero fields take the defaults. */
struct ibtick_reader_opts {
	uint32_t	nslots;		/* ring geometry, if this creates the feed */
	uint32_t	slot_size;
	int		loopback;	/* 1: also ticks sent from this port */
	int		comp_vector;	/* of the receive CQ, if this creates it */
	bool		start_oldest;	/* start at the oldest tick in the ring
					 * rather than the next one */
};

/* The AF_IBTICK number of the loaded module; -1 with errno if not loaded. */
int ibtick_family(void);

/*
 * Fill @sa for an IPv4 @group, feed @port and @ifname (the IPoIB or RoCE
 * netdev; NULL or "" lets the kernel choose the only active port).
 * Returns 0, or -1 with errno EINVAL (bad group/port) or ENODEV (no netdev)
 * or what ibtick_family() set.
 */
int ibtick_make_addr(struct sockaddr_ibtick *sa, const char *group,
		     unsigned int port, const char *ifname);

/*
 * Open a socket, bind it to the feed and map its ring.  Returns 0, or -1
 * with errno from socket/setsockopt/bind/mmap (see ibtick(7)).
 */
int ibtick_reader_open(struct ibtick_reader *r, const char *group,
		       unsigned int port, const char *ifname,
		       const struct ibtick_reader_opts *opts);

/*
 * Map the ring of an already bound socket @fd (not closed by
 * ibtick_reader_close()).  The reader starts at the socket's cursor.
 */
int ibtick_reader_attach(struct ibtick_reader *r, int fd);

/*
 * Use a ring in ordinary memory (tests, replay): @len bytes at @mem holding
 * a ring header and its slots.  No socket: ibtick_wait() fails with ENOTSOCK.
 * The header is checked; a corrupted one is EPROTO (magic, version,
 * geometry) or EINVAL (@len too small).
 */
int ibtick_reader_init_mem(struct ibtick_reader *r, const void *mem,
			   size_t len, uint64_t cursor);

void ibtick_reader_close(struct ibtick_reader *r);

/*
 * Tell the kernel where the reader is (IBTICK_RING_CURSOR), so that poll()
 * or epoll on r->fd reports EPOLLIN exactly when a tick past it arrives.
 * Call it before every blocking poll/epoll_wait.  Returns 0 or -1/errno.
 */
int ibtick_arm(struct ibtick_reader *r);

/*
 * Block until a tick past the reader's cursor is in the ring, the feed
 * dies, or @timeout_ms passes (-1: forever).  Returns 1, 0 on timeout,
 * -1 with errno (EINTR, ...).
 */
int ibtick_wait(struct ibtick_reader *r, int timeout_ms);

/*
 * Copy the next intact tick into @buf (@len bytes; a longer payload is cut,
 * and then desc->len, which keeps the tick's length, is larger than the
 * return value), its descriptor into @desc (may be NULL).  Returns the
 * bytes copied (0 for an empty tick), or -1 with errno EAGAIN when caught
 * up; adds the ticks lost on the way to *@lost (may be NULL).  Never
 * returns a torn copy.
 */
ssize_t ibtick_read(struct ibtick_reader *r, void *buf, size_t len,
		    struct ibtick_slot *desc, uint64_t *lost);

/*
 * Open a publishing socket connected to the feed (needs CAP_NET_RAW).
 * Returns the fd, or -1 with errno.  Publish with ibtick_publish(),
 * send(2) or sendmsg(2): one tick per call.
 */
int ibtick_publisher_open(const char *group, unsigned int port,
			  const char *ifname);
ssize_t ibtick_publish(int fd, const void *buf, size_t len, bool dontwait);

/* ---- the fast path: inline, no system call ---------------------------- */

static inline const struct ibtick_slot *
ibtick__slot(const struct ibtick_reader *r, uint64_t idx)
{
	return (const struct ibtick_slot *)(r->slots +
					    (size_t)(idx & r->mask) * r->slot_size);
}

/*
 * C11 atomics in C; the same operations through the GCC/Clang builtins in
 * C++ (where <stdatomic.h> arrives only with C++23).
 */
#ifndef __cplusplus
#define IBTICK__LOAD(p, mo)	atomic_load_explicit((const _Atomic __typeof__(*(p)) *)(p), \
						     memory_order_##mo)
#define IBTICK__FENCE_ACQUIRE()	atomic_thread_fence(memory_order_acquire)
#else
#define IBTICK__LOAD(p, mo)	__atomic_load_n((p), __ATOMIC_##mo##_)
#define __ATOMIC_acquire_	__ATOMIC_ACQUIRE
#define __ATOMIC_relaxed_	__ATOMIC_RELAXED
#define IBTICK__FENCE_ACQUIRE()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

static inline uint64_t ibtick__load_acquire(const __u64 *p)
{
	return IBTICK__LOAD(p, acquire);
}

/*
 * Tick @r->cursor was overwritten: count it and every other tick the
 * producer has since overwritten as lost, and move on (the lap rule:
 * resume at max(i + 1, producer - nslots)).
 */
static inline uint64_t ibtick__skip_lapped(struct ibtick_reader *r)
{
	uint64_t prod = ibtick__load_acquire(&r->hdr->producer);	/* (C) */
	uint64_t next = prod - r->nslots;
	uint64_t n;

	if ((int64_t)(next - (r->cursor + 1)) < 0)
		next = r->cursor + 1;
	n = next - r->cursor;
	r->lost += n;
	r->cursor = next;
	return n;
}

/*
 * The next tick, without copying it.  Returns 1 and fills @t, or 0 when
 * the reader has caught up with the producer.  Ticks overwritten before
 * they could be looked at are skipped: t->lost says how many (also when
 * 0 is returned, then in t->lost alone) and r->lost grows by them.
 */
static inline int ibtick_next(struct ibtick_reader *r, struct ibtick_tick *t)
{
	const struct ibtick_slot *s;
	uint64_t prod, behind;

	t->lost = 0;
	for (;;) {
		prod = ibtick__load_acquire(&r->hdr->producer);		/* (C) */
		behind = prod - r->cursor;
		if ((int64_t)behind <= 0)
			return 0;
		if (behind > r->nslots) {	/* lapped while away */
			t->lost += behind - r->nslots;
			r->lost += behind - r->nslots;
			r->cursor = prod - r->nslots;
		}
		s = ibtick__slot(r, r->cursor);
		if (ibtick__load_acquire(&s->seq) == r->cursor) {	/* (D) */
			uint32_t len = s->len;

			t->slot = s;
			t->data = s + 1;
			/* a corrupt length can never read past the slot */
			t->len = len < r->payload_max ? len : r->payload_max;
			t->idx = r->cursor;
			return 1;
		}
		t->lost += ibtick__skip_lapped(r);
	}
}

/*
 * After reading tick @t: true if what was read is intact (the cursor moves
 * past it); false if the producer overwrote it meanwhile - it is counted
 * lost (r->lost, and t->lost grows too) and the caller discards its copy.
 */
static inline bool ibtick_done(struct ibtick_reader *r, struct ibtick_tick *t)
{
	uint64_t seq;

	IBTICK__FENCE_ACQUIRE();					/* (F) */
	seq = IBTICK__LOAD(&t->slot->seq, relaxed);
	if (seq == t->idx && r->cursor == t->idx) {
		r->cursor = t->idx + 1;
		r->delivered++;
		return true;
	}
	if (r->cursor == t->idx)
		t->lost += ibtick__skip_lapped(r);
	return false;
}

/* Ticks waiting for this reader (capped at nslots). */
static inline uint64_t ibtick_backlog(const struct ibtick_reader *r)
{
	uint64_t behind = ibtick__load_acquire(&r->hdr->producer) - r->cursor;

	if ((int64_t)behind <= 0)
		return 0;
	return behind < r->nslots ? behind : r->nslots;
}

/*
 * The feed's device is gone: what is in the ring is all there will be.
 * Ticks may still be waiting for this reader: see ibtick_ended().
 */
static inline bool ibtick_dead(const struct ibtick_reader *r)
{
	return IBTICK__LOAD(&r->hdr->flags, acquire) & IBTICK_RING_DEAD;
}

/*
 * The feed is dead and this reader has taken (or counted lost) every tick
 * it produced: the end of the stream.  DEAD is loaded first (acquire, set
 * after the last commit), then the producer index, so no tick committed
 * before the death is missed - unlike "next() returned 0, then dead()".
 */
static inline bool ibtick_ended(const struct ibtick_reader *r)
{
	return ibtick_dead(r) && !ibtick_backlog(r);
}

/*
 * Connections (SOCK_SEQPACKET, the order channel).  ibtick_reader_attach()
 * maps a connected or accepted socket's ring as it maps a feed's; message
 * i is tick i, and the ring is never lapped (ibtick_done() is always true).
 * The reader must give the slots it read back to the peer, or the peer
 * stops after nslots messages: call this after each ibtick_done().  It
 * reports the cursor (ibtick_arm(), one system call) once per nslots / 4
 * messages, when the peer's credits come back in one grant; ibtick_wait()
 * reports it before sleeping.  Returns 0, or -1 with errno.
 */
static inline int ibtick_conn_release(struct ibtick_reader *r)
{
	uint64_t quarter = r->nslots >= 4 ? r->nslots / 4 : 1;

	if (r->cursor & (quarter - 1))
		return 0;
	return ibtick_arm(r);
}

#ifdef __cplusplus
}
#endif

#endif /* LIBIBTICK_H */
