// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: reading a taken-over socket's feeds from their rings,
 * without a system call per tick, as libibtick's mapped reader does.
 *
 * Each feed the socket reads has its ring mapped (IBTICK_MMAP_FEED, found
 * with IBTICK_FEEDS) and a cursor here.  A read takes the next tick of the
 * first feed, in turn, that has one, with the ring protocol of
 * <linux/ibtick.h> (libibtick.h's ibtick_next()/ibtick_done()).  The kernel
 * is entered only to wait, and for what only it can do right:
 *
 * - a feed that lapped this reader, or a copy the producer overwrote: the
 *   kernel counts the loss (the socket's, the feed's, the admin's
 *   counters and event) and reports it with IBTICK_CMSG_LOST, so losses
 *   are counted once, where they always are;
 * - a tick from a publisher whose address is not known yet (the kernel's
 *   IBTICK_CMSG_SOURCE teaches it: pub_id -> IPv4 address, kept here);
 * - an arbitrated feed's NODATA slot.
 *
 * The cursors.  Before the kernel reads or waits, it is told where every
 * feed's cursor is (IBTICK_MEMBER_CURSOR, for those that moved: "sync"):
 * before its recvmsg, and before poll, select and epoll_wait (wait.c), which
 * look at the kernel's cursors; a blocking read's wait carries them itself
 * (IBTICK_SIOC_WAIT, below).  A read that finds every ring empty syncs
 * too (a busy socket's: one in PL_KERNEL_LOOK, below), for programs that
 * wait some other way: for them a tick already read may make the socket
 * look ready until they read to EAGAIN (a spurious wake-up, never a lost
 * one: the kernel's cursor is never ahead of ours).
 *
 * After the kernel delivered tick i of a feed whose cursor was c,
 * with L reported lost, i is c + L: the slot there is compared with the
 * tick's IBTICK_CMSG_TICK (publisher, sequence, send time) and the cursor
 * goes to i + 1.  Where that does not hold (the kernel skipped the
 * socket's own ticks, a revocation moved it) the cursor is "unknown" and
 * is read back with IBTICK_FEEDS before the ring is read again.
 *
 * A non-blocking read that finds every ring empty returns EAGAIN without a
 * system call, except one look in PL_KERNEL_LOOK, which also lets the
 * kernel say what the rings cannot: an error, the feed's end, a
 * revocation.  The CQ is then drained by its event (or by the feed's poll
 * thread), as for a mapped reader.  A socket with SO_BUSY_POLL (ibtick-run
 * -b, or the program's own) asked for its calls to drain the CQ: a
 * non-blocking read that finds the rings empty has the kernel look at the
 * CQs once (IBTICK_SIOC_LOOK, which takes no tick and no cursor of ours),
 * then looks at the rings again; its cursors reach the kernel at its waits
 * and at every PL_KERNEL_LOOK-th empty look, not at each of them, since the
 * reader is back at once.
 *
 * A blocking read that finds the rings empty waits in the kernel with
 * IBTICK_SIOC_WAIT: the moved cursors go with it (no sync of their own),
 * it waits as the socket's recvmsg would (SO_RCVTIMEO, the SO_BUSY_POLL
 * spin, signals), takes nothing, and the read takes the tick from the
 * rings: one system call a tick, without the copy, control messages and
 * address of a recvmsg.  The kernel's cursors only go forward there: a
 * wait built before another thread read on cannot set them back.  With a
 * module without the ioctl, the kernel's recvmsg waits instead.
 *
 * Locking: ps->rxlock, taken by rx.c around a whole read: one reader of a
 * socket at a time, as the kernel's socket lock would serialise them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

int pl_ring_on = 1;

/*
 * The sockets with a cursor the kernel was not told, for epoll_wait (which
 * does not say which sockets it waits on), and sockets that had one: a
 * socket joins the list at a take from a ring while it is not on it, and
 * stays while its cursors are told and moved again, so that a blocking
 * reader's take and wait, once a tick each, take no lock of the list.
 * pl_sync_all() tells the cursors and drops the sockets it finds clean; a
 * socket that finds the list full drops those first.  dirty_lock is taken
 * inside a socket's rxlock, and takes a socket's rxlock only with a
 * trylock.  A socket the list has no room for even then (all of them
 * dirty) tries again at its first take after its cursors are told; until
 * then epoll_wait does not tell them (poll and select do, and so does its
 * own next wait in the kernel).
 */
/* recursive: pl_sync_all() holds it while a sync takes a socket off the list */
static pthread_mutex_t dirty_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct psock *dirty[PL_MAX_DIRTY];
int pl_ndirty;	/* entries in dirty[]: read without the lock as a hint */

/* dirty_lock held: entry @i leaves (the last takes its place) */
static void drop_at(int i)
{
	dirty[i]->listed = 0;
	dirty[i] = dirty[pl_ndirty - 1];
	__atomic_store_n(&pl_ndirty, pl_ndirty - 1, __ATOMIC_RELAXED);
}

/* dirty_lock held: the clean sockets leave, of those whose rxlock is free */
static void prune_locked(void)
{
	int i = 0;

	while (i < pl_ndirty) {
		struct psock *o = dirty[i];

		if (pl_rx_trylock(&o->rxlock)) {
			i++;
			continue;
		}
		if (!o->dirty_any) {
			drop_at(i);
			pl_rx_unlock(&o->rxlock);
			continue;
		}
		pl_rx_unlock(&o->rxlock);
		i++;
	}
}

/* rxlock held */
static void set_dirty(struct psock *ps, struct pfeed *f)
{
	f->dirty = 1;
	if (ps->dirty_any)	/* listed, or no room at its first take since told */
		return;
	ps->dirty_any = 1;
	if (ps->listed)
		return;
	pthread_mutex_lock(&dirty_lock);
	if (pl_ndirty == PL_MAX_DIRTY)
		prune_locked();
	if (pl_ndirty < PL_MAX_DIRTY) {
		dirty[pl_ndirty] = ps;
		__atomic_store_n(&pl_ndirty, pl_ndirty + 1, __ATOMIC_RELAXED);
		ps->listed = 1;
	}
	pthread_mutex_unlock(&dirty_lock);
}

/* rxlock held: every cursor told (the socket stays listed) */
static void clear_dirty(struct psock *ps)
{
	ps->dirty_any = 0;
}

/* rxlock held, or the socket is going */
static void unlist(struct psock *ps)
{
	int i;

	pthread_mutex_lock(&dirty_lock);
	for (i = 0; i < pl_ndirty; i++) {
		if (dirty[i] == ps) {
			drop_at(i);
			break;
		}
	}
	ps->listed = 0;
	pthread_mutex_unlock(&dirty_lock);
}

/* pl_busy() (preload.h), the first time (or after a setsockopt): ask the socket. */
__attribute__((noinline)) int pl_busy_ask(struct psock *ps, int fd)
{
	int us = 0;
	socklen_t len = sizeof(us);

	if (real.getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &us, &len))
		us = 0;
	ps->busy = us > 0;
	return ps->busy;
}

/* Read every cursor the library does not know back from the kernel. */
static int resolve(struct psock *ps, int fd)
{
	struct ibtick_member e[IBTICK_FEEDS_PER_SOCKET];
	socklen_t len = sizeof(e);
	int i, k, n;

	if (real.getsockopt(fd, SOL_IBTICK, IBTICK_FEEDS, e, &len))
		return -1;
	n = (int)(len / sizeof(e[0]));
	for (i = 0; i < ps->nfeed; i++) {
		struct pfeed *f = &ps->feed[i];

		for (k = 0; k < n && !f->cur_known; k++) {
			if (e[k].feed_id != f->feed_id)
				continue;
			f->rd.cursor = e[k].cursor;
			f->cur_known = 1;
			f->dirty = 0;
		}
	}
	ps->resolves++;
	return 0;
}

static void ring_off(struct psock *ps, const char *why, int err)
{
	if (!ps->ring_off)
		pl_log("fd %d: %s: %s: its feeds are read through the kernel", ps->fds[0], why,
		       strerror(err));
	ps->ring_off = 1;
}

void pl_ring_map(struct psock *ps, int fd, struct pfeed *f)
{
	struct ibtick_member e[IBTICK_FEEDS_PER_SOCKET];
	socklen_t len = sizeof(e);
	uint32_t group;
	void *p;
	int k, n;

	if (!pl_ring_on || !ps->multi || ps->ring_off)
		return;
	if (real.getsockopt(fd, SOL_IBTICK, IBTICK_FEEDS, e, &len)) {
		ring_off(ps, "IBTICK_FEEDS", errno);
		return;
	}
	n = (int)(len / sizeof(e[0]));
	for (k = 0; k < n; k++) {
		memcpy(&group, e[k].addr.sibt_group, 4);
		if (group == f->group && e[k].addr.sibt_port == f->port)
			break;
	}
	if (k == n) {
		ring_off(ps, "feed not listed by IBTICK_FEEDS", ENOENT);
		return;
	}
	p = mmap(NULL, e[k].mmap_size, PROT_READ, MAP_SHARED, fd, (off_t)e[k].mmap_offset);
	if (p == MAP_FAILED) {
		ring_off(ps, "mmap of a feed's ring", errno);
		return;
	}
	if (ibtick_reader_init_mem(&f->rd, p, e[k].mmap_size, e[k].cursor)) {
		int err = errno;

		munmap(p, e[k].mmap_size);
		memset(&f->rd, 0, sizeof(f->rd));
		ring_off(ps, "a feed's ring header", err);
		return;
	}
	f->rd.map = p;
	f->rd.map_len = e[k].mmap_size;
	f->feed_id = e[k].feed_id;
	f->kifindex = e[k].addr.sibt_ifindex;
	f->cur_known = 1;
	f->dirty = 0;
}

void pl_ring_unmap(struct pfeed *f)
{
	/* (a socket's last dirty feed going leaves dirty_any: one sync for nothing) */
	if (f->rd.map)
		munmap(f->rd.map, f->rd.map_len);
	memset(&f->rd, 0, sizeof(f->rd));
	f->cur_known = 0;
	f->dirty = 0;
}

/* the socket is going: its mappings (which hold it) and its place in the list */
void pl_ring_forget(struct psock *ps)
{
	int i;

	/*
	 * Under the list's lock whether listed or not: pl_sync_all() holds it
	 * while it syncs a socket, which it may have just taken off the list
	 */
	ps->dirty_any = 0;
	unlist(ps);
	for (i = 0; i < ps->nfeed; i++)
		pl_ring_unmap(&ps->feed[i]);
}

/* Before a fork: the kernel learns every cursor, for a child that reads through it. */
void pl_ring_prefork(void)
{
	pl_sync_all();
}

void pl_ring_forked_child(void)
{
	pthread_mutexattr_t a;

	/* the list's lock may have been held by a parent's thread */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&dirty_lock, &a);
	pthread_mutexattr_destroy(&a);
	pl_ndirty = 0;
}

void pl_ring_forked(struct psock *ps)
{
	int i;

	/* the child has no mapping (the kernel does not copy it): the kernel reads */
	for (i = 0; i < ps->nfeed; i++) {
		memset(&ps->feed[i].rd, 0, sizeof(ps->feed[i].rd));
		ps->feed[i].cur_known = 0;
		ps->feed[i].dirty = 0;
	}
	ps->ring_off = 1;
	/* a parent's thread may have held it: this child has that thread no more */
	pl_rx_init(&ps->rxlock);
	pthread_mutex_init(&ps->stashlock, NULL);
	ps->dirty_any = 0;
	ps->listed = 0;
	ps->in_kernel = 0;
}

int pl_ring_sync_dirty(struct psock *ps, int fd)
{
	int i, rc = 0;

	clear_dirty(ps);
	for (i = 0; i < ps->nfeed; i++) {
		struct pfeed *f = &ps->feed[i];
		struct ibtick_member_cursor mc = { .feed_id = f->feed_id };

		if (!f->dirty)
			continue;
		mc.cursor = f->rd.cursor;
		f->dirty = 0;
		ps->syncs++;
		if (real.setsockopt(fd, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc))) {
			/* the kernel reads on from where it was: ticks come twice, none is lost */
			pl_err("fd %d: IBTICK_MEMBER_CURSOR feed %u: %s", fd, f->feed_id,
			       strerror(errno));
			f->cur_known = 0;
			ring_off(ps, "IBTICK_MEMBER_CURSOR", errno);
			rc = -1;
		}
	}
	return rc;
}

/* ---- the senders' addresses, learnt from the kernel's IBTICK_CMSG_SOURCE ---- */

/* Two places per publisher's hash: two publishers that share one both fit. */
static struct psrc *src_slot(struct psock *ps, uint32_t pub_id)
{
	return &ps->src[((pub_id * 2654435761u) >> (32 - PL_SRC_BITS)) & ~1u];
}

/*
 * A publisher's address, or NULL: not learnt yet, or not known when learnt
 * (InfiniBand, no IPoIB neighbour entry yet) a second ago or more - the
 * kernel's next tick of it looks again, as srcaddr.c does.
 */
static const struct psrc *src_find(struct psock *ps, uint32_t pub_id)
{
	struct psrc *e = src_slot(ps, pub_id);

	if (!e[0].valid || e[0].pub_id != pub_id)
		e++;
	if (!e->valid || e->pub_id != pub_id)
		return NULL;
	if (!e->ip && time(NULL) != e->when)
		return NULL;
	return e;
}

void pl_ring_learn(struct psock *ps, uint32_t pub_id, uint32_t ip)
{
	struct psrc *e = src_slot(ps, pub_id);

	if (e[0].valid && e[0].pub_id != pub_id)
		e++;	/* the second place, whoever had it */
	e->pub_id = pub_id;
	e->ip = ip;
	e->when = ip ? 0 : time(NULL);
	e->valid = 1;
}

/* ---- reading ---- */

int pl_source_allowed(const struct pfeed *f, uint32_t ip)
{
	int i;

	for (i = 0; i < f->nsrc; i++)
		if (f->src[i] == ip)
			return 1;
	return 0;
}

static size_t to_iov(const struct iovec *iov, size_t iovlen, const void *data, size_t len)
{
	size_t off = 0, i;

	for (i = 0; i < iovlen && off < len; i++) {
		size_t k = iov[i].iov_len < len - off ? iov[i].iov_len : len - off;

		memcpy(iov[i].iov_base, (const char *)data + off, k);
		off += k;
	}
	return off;
}

/*
 * The next tick of feed @f into @iov: 1 taken (@r filled), 0 none, -1 the
 * kernel must read this one (the cursor is left where it was).
 */
static int take_feed(struct psock *ps, struct pfeed *f, const struct iovec *iov, size_t iovlen,
		     int flags, struct rxres *r)
{
	for (;;) {
		uint64_t c0 = f->rd.cursor, l0 = f->rd.lost;
		struct ibtick_tick t;
		struct ibtick_slot d;
		uint32_t ip = 0;
		size_t n;

		if (!ibtick_next(&f->rd, &t) && !t.lost)
			return 0;
		if (t.lost) {
			ps->why[PL_WHY_LAPPED]++;
			goto kernel;
		}
		memcpy(&d, t.slot, sizeof(d));
		if (d.flags & IBTICK_TICK_NODATA) {
			ps->why[PL_WHY_NODATA]++;
			goto kernel;
		}
		if (ps->source_cmsg) {
			const struct psrc *e = src_find(ps, d.pub_id);

			if (!e) {
				ps->why[PL_WHY_SOURCE]++;
				goto kernel;
			}
			ip = e->ip;
		}
		n = to_iov(iov, iovlen, t.data, t.len);
		if (!ibtick_done(&f->rd, &t)) {
			ps->why[PL_WHY_LAPPED]++;	/* overwritten while we copied */
			goto kernel;
		}
		set_dirty(ps, f);
		if ((d.flags & IBTICK_TICK_LOCAL) && !ps->loop)
			continue;	/* our own, as the kernel skips it */
		ps->ring_ticks++;	/* (as kernel_ticks: filtered ones too) */
		if (f->nsrc && ps->source_cmsg && !pl_source_allowed(f, ip)) {
			f->filtered++;
			continue;
		}
		f->delivered++;
		r->n = (flags & MSG_TRUNC) ? (ssize_t)d.orig_len : (ssize_t)n;
		r->trunc = n < d.orig_len;
		r->wire = d.orig_len;
		r->group = f->group;
		r->ifindex = f->kifindex;
		memset(&r->from, 0, sizeof(r->from));
		r->from.sin_family = AF_INET;
		r->from.sin_port = htons(f->port);
		r->from.sin_addr.s_addr = ip ? ip : f->group;
		r->have_ts = 1;
		r->ts.tv_sec = (time_t)(d.rx_ns / 1000000000u);
		r->ts.tv_nsec = (long)(d.rx_ns % 1000000000u);
		return 1;
kernel:
		f->rd.cursor = c0;
		f->rd.lost = l0;
		return -1;
	}
}

int pl_ring_take(struct psock *ps, int fd, const struct iovec *iov, size_t iovlen, int flags,
		 struct rxres *r)
{
	int k, rc;

	/* another reader is in the kernel, whose tick must not come from a ring too */
	if (ps->in_kernel)
		return -1;
	for (k = 0; k < ps->nfeed; k++) {
		int i = (int)((ps->rr + (unsigned int)k) % (unsigned int)ps->nfeed);
		struct pfeed *f = &ps->feed[i];

		if (!f->rd.hdr)
			return -1;
		if (!f->cur_known && resolve(ps, fd))
			return -1;
		if (!f->cur_known)
			return -1;
		rc = take_feed(ps, f, iov, iovlen, flags, r);
		if (rc) {
			if (rc > 0)
				ps->rr = (unsigned int)i + 1;
			return rc;
		}
	}
	return 0;
}

/* every feed's ring is dead: the kernel has the end of the stream to tell */
static int pl_ring_dead(const struct psock *ps)
{
	int i;

	for (i = 0; i < ps->nfeed; i++)
		if (!ps->feed[i].rd.hdr || !ibtick_dead(&ps->feed[i].rd))
			return 0;
	return 1;
}

int pl_nonblocking(struct psock *ps, int fd, int kflags)
{
	if (kflags & MSG_DONTWAIT)
		return 1;
	if (ps->nb < 0) {
		int fl = real.fcntl(fd, F_GETFL);

		if (fl < 0)
			return 0;
		ps->nb = !!(fl & O_NONBLOCK);
	}
	return ps->nb;
}

int pl_ring_empty_ok(struct psock *ps, int fd, int kflags)
{
	if (!pl_ring_usable(ps))
		return 0;
	if (!pl_nonblocking(ps, fd, kflags))
		return 0;
	if (!(++ps->empty % PL_KERNEL_LOOK) || pl_ring_dead(ps)) {
		ps->why[PL_WHY_LOOK]++;
		return 0;	/* the kernel reads: the caller syncs first */
	}
	/* a busy reader is back at once: its waits sync, and every look above */
	if (!pl_busy(ps, fd))
		pl_ring_sync(ps, fd);
	return 1;
}

int pl_ring_look(struct psock *ps, int fd)
{
	if (ps->no_look)
		return -1;
	ps->looks++;
	if (!real.ioctl(fd, IBTICK_SIOC_LOOK, 0))
		return 0;
	/*
	 * A module without it: ENOTTY, or EFAULT (the socket layer tries an
	 * unknown SIOC* command on the netdevs, with our argument, 0, as
	 * their request); recvmsg drains the CQs, as before it
	 */
	if (errno == ENOTTY || errno == EFAULT || errno == EINVAL) {
		pl_log("fd %d: IBTICK_SIOC_LOOK: %s: busy reads go through the kernel",
		       ps->fds[0], strerror(errno));
		ps->no_look = 1;
	}
	return -1;
}

int pl_ring_wait(struct psock *ps, int fd)
{
	int i, rc, e, sent[IBTICK_WAIT_CURSORS], still = 0;
	struct ibtick_wait w;

	if (ps->no_wait) {
		errno = ENOSYS;
		return -1;
	}
	memset(&w, 0, sizeof(w));
	for (i = 0; i < ps->nfeed && ps->dirty_any; i++) {
		struct pfeed *f = &ps->feed[i];

		if (!f->dirty)
			continue;
		if (w.n == IBTICK_WAIT_CURSORS) {	/* more moved: told one by one */
			w.n = 0;
			break;
		}
		sent[w.n] = i;
		w.c[w.n].feed_id = f->feed_id;
		w.c[w.n++].cursor = f->rd.cursor;
	}
	if (ps->dirty_any && !w.n && pl_ring_sync_dirty(ps, fd)) {
		errno = ENOSYS;		/* the rings are off now */
		return -1;
	}
	ps->waits++;
	/* others may read the rings meanwhile: the kernel takes nothing */
	pl_rx_unlock(&ps->rxlock);
	rc = real.ioctl(fd, IBTICK_SIOC_WAIT, &w);
	pl_rx_lock(&ps->rxlock);	/* errno kept */
	e = errno;
	if (!rc || e == EAGAIN || e == EINTR || e == EACCES || e == ENODEV) {
		/*
		 * The cursors were told: clean, unless another thread read on
		 * meanwhile (the feeds stay as they were, and the kernel's
		 * cursors only go forward: a later one told is kept)
		 */
		for (i = 0; i < (int)w.n; i++) {
			struct pfeed *f = &ps->feed[sent[i]];

			if (sent[i] < ps->nfeed && f->feed_id == w.c[i].feed_id &&
			    f->rd.cursor == w.c[i].cursor)
				f->dirty = 0;
		}
		for (i = 0; i < ps->nfeed; i++)
			still |= ps->feed[i].dirty;
		if (w.n && !still)
			clear_dirty(ps);
		ps->empty = 0;
		if (rc)
			pl_ring_kernel_tick(ps, -1, e, 0, NULL);
		errno = e;
		return rc;
	}
	/*
	 * A module without it: ENOTTY, or EFAULT (as for IBTICK_SIOC_LOOK);
	 * a socket that reads only bind()'s feed: EOPNOTSUPP.  From now on
	 * the kernel's recvmsg waits.  A cursor refused (EINVAL, or
	 * EADDRNOTAVAIL: a feed dropped meanwhile): none was taken, they are
	 * still to tell, and this time the recvmsg's sync tells them (a
	 * refusal there turns the rings off, as for any sync).
	 */
	if (e == ENOTTY || e == EFAULT || e == EOPNOTSUPP) {
		pl_log("fd %d: IBTICK_SIOC_WAIT: %s: blocking reads wait in recvmsg",
		       ps->fds[0], strerror(e));
		ps->no_wait = 1;
	}
	errno = ENOSYS;
	return -1;
}

void pl_ring_follow(struct psock *ps, struct pfeed *f, int err, uint64_t lost,
		    const struct ibtick_tick_info *ti)
{
	int i, ok = 0;

	/*
	 * A revoked feed: the kernel withholds its ticks, the ring would not;
	 * the kernel reads every tick from now on.
	 */
	if (err == EACCES && !ps->ring_off)
		ring_off(ps, "a feed's read access revoked", err);
	/*
	 * Tick i is cursor + lost when nothing else moved the kernel's cursor;
	 * the slot there must be the tick (a network duplicate looks the same,
	 * so after a loss the cursor is looked up instead).
	 */
	if (f && f->rd.hdr && f->cur_known && ti && !lost) {
		uint64_t g = f->rd.cursor;
		const struct ibtick_slot *s = ibtick__slot(&f->rd, g);

		if (ibtick__load_acquire(&s->seq) == g && s->pub_id == ti->pub_id &&
		    s->pub_seq == ti->pub_seq && s->send_ns == ti->send_ns) {
			IBTICK__FENCE_ACQUIRE();
			if (IBTICK__LOAD(&s->seq, relaxed) == g) {
				f->rd.cursor = g + 1;
				ok = 1;
			}
		}
	}
	/*
	 * What else may have moved the kernel's cursors: an error part way
	 * (a copy that failed consumed its tick, a revocation).  Its skipping
	 * the socket's own ticks (no loopback) leaves ours behind, on ticks
	 * that ring.c skips too: no harm.  The usual case, the tick found and
	 * no error, moves nothing else.
	 */
	if (ok && !err) {
		f->dirty = 0;
		return;
	}
	for (i = 0; i < ps->nfeed; i++) {
		struct pfeed *o = &ps->feed[i];

		if (o == f ? !ok : err && err != EAGAIN && err != EINTR)
			o->cur_known = 0;
		if (o == f)
			o->dirty = 0;
	}
}

/* ---- the read lock's slow paths (preload.h) ---- */

/*
 * Taken by another thread: say so (2) and sleep until it lets go, then
 * take it, still saying 2 (a waiter may remain; its unlock wakes one).
 * errno is the caller's still.
 */
void pl_rx_wait(struct pl_rxlock *l)
{
	int e = errno;

	while (__atomic_exchange_n(&l->v, 2, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &l->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
	errno = e;
}

void pl_rx_wake(struct pl_rxlock *l)
{
	int e = errno;

	syscall(SYS_futex, &l->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	errno = e;
}

/* ---- before the program waits (wait.c) ---- */

/* @prune: a socket found clean leaves the list (until its next take) */
static void sync_ps(struct psock *ps, int fd, int prune)
{
	/* a reader inside syncs before it waits in the kernel itself */
	if (pl_rx_trylock(&ps->rxlock))
		return;
	pl_ring_sync(ps, fd);
	if (prune && ps->listed && !ps->dirty_any)
		unlist(ps);
	pl_rx_unlock(&ps->rxlock);
}

void pl_sync_fd(int fd)
{
	struct psock *ps = pl_get(fd);

	if (ps && ps->dirty_any && __atomic_load_n(&ps->ibtick, __ATOMIC_ACQUIRE))
		sync_ps(ps, fd, 0);
}

void pl_sync_all(void)
{
	struct psock *snap[PL_MAX_DIRTY];
	int i, n;

	if (!__atomic_load_n(&pl_ndirty, __ATOMIC_RELAXED))
		return;
	/* held throughout: a socket leaves the list, under it, before it is freed */
	pthread_mutex_lock(&dirty_lock);
	n = pl_ndirty;
	memcpy(snap, dirty, (size_t)n * sizeof(snap[0]));
	for (i = 0; i < n; i++)
		sync_ps(snap[i], snap[i]->fds[0], 1);
	pthread_mutex_unlock(&dirty_lock);
}
