// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: receiving on a taken-over socket.
 *
 * A tick is taken from the feeds' mapped rings when they have one (ring.c);
 * otherwise, and to wait, one recvmsg() on the AF_IBTICK socket, into the
 * program's own buffers, with a control buffer of ours: IBTICK_CMSG_LOST is counted per
 * feed (and offered to the program as SO_RXQ_OVFL, the drop count a UDP
 * program can ask for), IBTICK_CMSG_SOURCE gives the sender's IPv4 address
 * for msg_name, SCM_TIMESTAMPNS becomes what the program asked for
 * (SO_TIMESTAMPNS or SO_TIMESTAMP), IP_PKTINFO names the group.  The
 * program's msg_name gets a sockaddr_in: the sender's address (the group
 * when it is not known) and the feed port.
 *
 * MSG_PEEK and FIONREAD read one tick ahead into the socket's stash, which
 * the next read returns first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "preload.h"

static int feed_index(struct psock *ps, uint32_t group, uint16_t port)
{
	int i = ps->last_feed;

	if (i >= 0 && i < ps->nfeed && ps->feed[i].group == group && ps->feed[i].port == port)
		return i;
	for (i = 0; i < ps->nfeed; i++) {
		if (ps->feed[i].group == group && ps->feed[i].port == port) {
			ps->last_feed = i;
			return i;
		}
	}
	return -1;
}

static int rx_kernel(struct psock *ps, int fd, struct iovec *iov, size_t iovlen, int kflags,
		     struct rxres *r)
{
	struct sockaddr_ibtick sa;
	union {
		char		buf[256];
		struct cmsghdr	align;
	} cb;
	struct msghdr km;

	pl_ring_sync(ps, fd);	/* the kernel reads from where the rings are */
	for (;;) {
		const struct ibtick_source *src = NULL;
		const struct ibtick_tick_info *ti = NULL;
		struct ibtick_source srcbuf;
		struct ibtick_tick_info tibuf;
		const char *p, *end;
		size_t clen = 0;
		uint64_t lost = 0;
		struct pfeed *f;
		uint32_t group, ip = 0;
		int fi;

		km = (struct msghdr){ .msg_name = &sa, .msg_namelen = sizeof(sa),
				      .msg_iov = iov, .msg_iovlen = iovlen,
				      .msg_control = cb.buf, .msg_controllen = sizeof(cb.buf) };
		/*
		 * Without the socket's read lock while the kernel reads or
		 * sleeps: a membership change or another reader goes on
		 * (in_kernel keeps the others off the rings meanwhile: the
		 * tick the kernel hands over must not also be read there)
		 */
		ps->in_kernel++;
		pl_rx_unlock(&ps->rxlock);
		r->n = real.recvmsg(fd, &km, kflags);
		pl_rx_lock(&ps->rxlock);	/* errno kept */
		ps->in_kernel--;
		if (r->n < 0) {
			int e = errno;

			pl_ring_kernel_tick(ps, -1, e, 0, NULL);
			errno = e;
			return -1;
		}
		r->have_ts = 0;
		/*
		 * The cmsgs, walked by hand (CMSG_NXTHDR re-checks what the
		 * kernel guarantees), up to msg_controllen: a last one cut
		 * short ends unaligned, and the step over it may pass the end.
		 * Every tick has TICK, most have SOURCE, few LOST
		 */
		for (p = cb.buf, end = cb.buf + km.msg_controllen;
		     p < end && (size_t)(end - p) >= sizeof(struct cmsghdr);
		     p += CMSG_ALIGN(clen)) {
			struct cmsghdr h;

			memcpy(&h, p, sizeof(h));
			clen = h.cmsg_len;
			if (clen < sizeof(h) || clen > (size_t)(end - p))
				break;
			if (h.cmsg_level != SOL_IBTICK) {
				if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_TIMESTAMPNS &&
				    clen >= CMSG_LEN(sizeof(r->ts))) {
					memcpy(&r->ts, p + CMSG_LEN(0), sizeof(r->ts));
					r->have_ts = 1;
				}
				continue;
			}
			if (h.cmsg_type == IBTICK_CMSG_TICK && clen >= CMSG_LEN(sizeof(tibuf))) {
				memcpy(&tibuf, p + CMSG_LEN(0), sizeof(tibuf));
				ti = &tibuf;
			} else if (h.cmsg_type == IBTICK_CMSG_SOURCE &&
				   clen >= CMSG_LEN(sizeof(srcbuf))) {
				memcpy(&srcbuf, p + CMSG_LEN(0), sizeof(srcbuf));
				src = &srcbuf;
			} else if (h.cmsg_type == IBTICK_CMSG_LOST && clen >= CMSG_LEN(sizeof(lost))) {
				memcpy(&lost, p + CMSG_LEN(0), sizeof(lost));
			}
		}
		memcpy(&group, sa.sibt_group, 4);
		fi = feed_index(ps, group, sa.sibt_port);
		f = fi >= 0 ? &ps->feed[fi] : NULL;
		pl_ring_kernel_tick(ps, fi, 0, lost, ti);
		if (lost) {
			ps->lost_total += lost;
			if (f)
				f->lost += lost;
		}
		if (src) {
			ip = pl_src_ipv4(src);
			/* for the rings' ticks */
			if (ti && pl_ring_usable(ps))
				pl_ring_learn(ps, ti->pub_id, ip);
		}
		if (f && f->nsrc && src && !pl_source_allowed(f, ip)) {
			f->filtered++;
			continue;
		}
		if (f)
			f->delivered++;
		r->trunc = km.msg_flags & MSG_TRUNC;
		r->wire = ti ? (ssize_t)ti->orig_len : -1;
		r->group = group;
		r->ifindex = sa.sibt_ifindex;
		memset(&r->from, 0, sizeof(r->from));
		r->from.sin_family = AF_INET;
		r->from.sin_port = htons(sa.sibt_port);
		r->from.sin_addr.s_addr = ip ? ip : group;
		return 0;
	}
}

/*
 * The next tick: from a ring when one has it (for a busy reader, also once
 * the kernel drained the CQs into them), else from the kernel, which first
 * learns where the rings' cursors are (ring.c).  A blocking read that
 * finds them empty waits in the kernel and takes from the rings.  0: the
 * tick is in @r; -1: errno; 1: another thread's MSG_PEEK or FIONREAD
 * filled the stash while this one waited, and that tick comes first.
 */
static int rx_next(struct psock *ps, int fd, struct iovec *iov, size_t iovlen, int kflags,
		   struct rxres *r)
{
	if (pl_ring_usable(ps)) {
		int rc = pl_ring_take(ps, fd, iov, iovlen, kflags, r);

		/* SO_BUSY_POLL: this call drains the CQs (the kernel's look), then looks again */
		if (!rc && pl_busy(ps, fd) && pl_nonblocking(ps, fd, kflags))
			rc = pl_ring_look(ps, fd) ? -1 : pl_ring_take(ps, fd, iov, iovlen, kflags, r);
		if (rc > 0)
			return 0;
		if (!rc && pl_ring_empty_ok(ps, fd, kflags)) {
			errno = EAGAIN;
			return -1;
		}
		/*
		 * A blocking read waits in the kernel, then takes from the
		 * rings; what they do not give after a wake-up (the socket's
		 * own tick, a filtered one, another thread's) the kernel's
		 * recvmsg reads, or waits for
		 */
		if (!rc && !pl_nonblocking(ps, fd, kflags)) {
			int w = pl_ring_wait(ps, fd);

			/*
			 * Another thread's MSG_PEEK or FIONREAD read a tick
			 * into the stash meanwhile: it is next, whatever the
			 * wait returned
			 */
			if (ps->stash.full)
				return 1;
			if (w)
				return errno == ENOSYS ? rx_kernel(ps, fd, iov, iovlen, kflags, r) : -1;
			if (pl_ring_take(ps, fd, iov, iovlen, kflags, r) > 0)
				return 0;
		}
	}
	return rx_kernel(ps, fd, iov, iovlen, kflags, r);
}

struct ctl {
	char	*p;
	size_t	cap, used;
	int	trunc;
};

static void put(struct ctl *c, int level, int type, const void *data, size_t len)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(len), .cmsg_level = level, .cmsg_type = type };
	size_t space = CMSG_SPACE(len);

	if (c->used + CMSG_LEN(len) > c->cap) {
		c->trunc = 1;
		return;
	}
	memcpy(c->p + c->used, &h, sizeof(h));
	memcpy(c->p + c->used + CMSG_LEN(0), data, len);
	c->used += space < c->cap - c->used ? space : c->cap - c->used;
}

static void to_app(struct psock *ps, struct msghdr *m, const struct rxres *r)
{
	struct ctl c = { .p = m->msg_control, .cap = m->msg_control ? m->msg_controllen : 0 };

	if (m->msg_name && m->msg_namelen >= sizeof(r->from)) {
		memcpy(m->msg_name, &r->from, sizeof(r->from));
		m->msg_namelen = sizeof(r->from);
	} else if (m->msg_name && m->msg_namelen) {
		memcpy(m->msg_name, &r->from, m->msg_namelen);
		m->msg_namelen = sizeof(r->from);
	} else {
		m->msg_namelen = 0;
	}
	if (r->have_ts && ps->ts_ns)
		put(&c, SOL_SOCKET, SCM_TIMESTAMPNS, &r->ts, sizeof(r->ts));
	if (r->have_ts && ps->ts_us) {
		struct timeval tv = { .tv_sec = r->ts.tv_sec, .tv_usec = r->ts.tv_nsec / 1000 };

		put(&c, SOL_SOCKET, SCM_TIMESTAMP, &tv, sizeof(tv));
	}
	if (ps->rxq_ovfl && ps->lost_total) {
		uint32_t d = (uint32_t)ps->lost_total;

		put(&c, SOL_SOCKET, SO_RXQ_OVFL, &d, sizeof(d));
	}
	if (ps->pktinfo) {
		struct in_pktinfo pi = { .ipi_ifindex = (int)r->ifindex,
					 .ipi_addr.s_addr = r->group };

		put(&c, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	}
	m->msg_controllen = c.used;
	m->msg_flags = (r->trunc ? MSG_TRUNC : 0) | (c.trunc ? MSG_CTRUNC : 0);
}

/* Read one tick into the stash: fill_stash() with stashlock held. */
static int fill_stash_locked(struct psock *ps, int fd, int kflags, struct rxres *r)
{
	struct pstash *s = &ps->stash;
	struct iovec iov;
	int rc;

	if (!s->buf) {
		s->buf = malloc(PL_STASH_MAX);
		if (!s->buf) {
			errno = ENOMEM;
			return -1;
		}
	}
	iov.iov_base = s->buf;
	iov.iov_len = PL_STASH_MAX;
	/*
	 * Without MSG_TRUNC, so that n is what was copied: a tick cut to its
	 * slot (IBTICK_TICK_TRUNCATED) has fewer bytes than its length
	 */
	rc = rx_next(ps, fd, &iov, 1, kflags & ~MSG_TRUNC, r);
	if (rc)		/* (never 1 here: the stash is filled by stashlock's holder alone) */
		return rc < 0 ? -1 : 0;
	s->len = r->n;
	s->wire_len = r->wire >= r->n ? r->wire : r->n;
	s->from = r->from;
	s->group = r->group;
	s->ifindex = r->ifindex;
	s->have_ts = r->have_ts;
	s->ts = r->ts;
	s->full = 1;
	return 0;
}

/*
 * Read one tick into the empty stash.  The kernel fills it without rxlock
 * (rx_kernel()), so a second thread that peeks meanwhile must wait for
 * that tick, not read another over it: one filler at a time (stashlock,
 * taken before rxlock; a caller holding rxlock lets it go to wait).  A
 * call that must not wait gets EAGAIN instead (the other thread's tick is
 * not there yet): the filler may be a blocking read.  rxlock held.
 */
static int fill_stash(struct psock *ps, int fd, int kflags, struct rxres *r)
{
	struct pstash *s = &ps->stash;
	int rc = 0;

	if (pthread_mutex_trylock(&ps->stashlock)) {
		if (pl_nonblocking(ps, fd, kflags)) {
			errno = EAGAIN;
			return -1;
		}
		pl_rx_unlock(&ps->rxlock);
		pthread_mutex_lock(&ps->stashlock);
		pl_rx_lock(&ps->rxlock);
	}
	if (!s->full)
		rc = fill_stash_locked(ps, fd, kflags, r);
	pthread_mutex_unlock(&ps->stashlock);
	return rc;
}

/* The stash's tick (filled here for MSG_PEEK when empty) into @m's buffers. */
static int from_stash(struct psock *ps, int fd, struct msghdr *m, int flags, int kflags,
		      struct rxres *r)
{
	struct pstash *s = &ps->stash;
	size_t off = 0, i;
	ssize_t left;

	if (!s->full && fill_stash(ps, fd, kflags & ~MSG_TRUNC, r))
		return -1;
	r->from = s->from;
	r->group = s->group;
	r->ifindex = s->ifindex;
	r->have_ts = s->have_ts;
	r->ts = s->ts;
	left = s->len;
	for (i = 0; i < m->msg_iovlen && left > 0; i++) {
		size_t k = m->msg_iov[i].iov_len < (size_t)left ? m->msg_iov[i].iov_len
								 : (size_t)left;

		memcpy(m->msg_iov[i].iov_base, s->buf + off, k);
		off += k;
		left -= (ssize_t)k;
	}
	r->trunc = (ssize_t)off < s->wire_len;
	r->n = (flags & MSG_TRUNC) ? s->wire_len : (ssize_t)off;
	if (!(flags & MSG_PEEK))
		s->full = 0;
	return 0;
}

static ssize_t recvmsg_locked(struct psock *ps, int fd, struct msghdr *m, int flags)
{
	struct rxres r;
	int kflags, rc = 1;

	if (flags & MSG_ERRQUEUE) {	/* nothing is ever queued there */
		errno = EAGAIN;
		return -1;
	}
	if (!ps->nfeed && !ps->stash.full)	/* a publisher only: kernel UDP replies */
		return real.recvmsg(ps->shadow, m, flags);
	if (flags & MSG_OOB) {
		errno = EOPNOTSUPP;
		return -1;
	}
	kflags = flags & (MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (!(flags & MSG_PEEK) && !ps->stash.full)
		rc = rx_next(ps, fd, m->msg_iov, m->msg_iovlen, kflags, &r);
	/* 1: the stash's tick (also when it was filled while rx_next() waited) */
	if (rc > 0)
		rc = from_stash(ps, fd, m, flags, kflags, &r);
	if (rc < 0)
		return -1;
	to_app(ps, m, &r);
	return r.n;
}

/*
 * The socket's read lock (ps->rxlock) covers the rings' cursors, the feeds'
 * list, the stash and the counters; it is never held while the kernel
 * reads or sleeps (rx_kernel), so it is only ever held briefly.
 */
ssize_t pl_recvmsg(struct psock *ps, int fd, struct msghdr *m, int flags)
{
	ssize_t n;

	if (!ps->nfeed && !ps->stash.full && !(flags & MSG_ERRQUEUE))
		return real.recvmsg(ps->shadow, m, flags);	/* a publisher only: kernel UDP replies */
	pl_rx_lock(&ps->rxlock);
	n = recvmsg_locked(ps, fd, m, flags);
	pl_rx_unlock(&ps->rxlock);	/* errno kept */
	return n;
}

int pl_fionread(struct psock *ps, int fd, int *avail)
{
	if (!ps->nfeed && !ps->stash.full)
		return real.ioctl(ps->shadow, FIONREAD, avail);
	struct rxres r;
	int rc = 0, e;

	pl_rx_lock(&ps->rxlock);
	if (!ps->stash.full && fill_stash(ps, fd, MSG_DONTWAIT, &r)) {
		if (errno != EAGAIN)
			rc = -1;
		else
			*avail = 0;
	} else {
		*avail = (int)ps->stash.wire_len;
	}
	e = errno;
	pl_rx_unlock(&ps->rxlock);
	errno = e;
	return rc;
}
