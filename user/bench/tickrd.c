// SPDX-License-Identifier: GPL-2.0
/*
 * tickrd: the four ways of reading a feed behind one call (see tickrd.h).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tickrd.h"

const char *const tickrd_kind_names[TICKRD_NKINDS] = {
	"mapped", "epoll", "recvmsg", "busy",
};

int tickrd_kind_parse(const char *name)
{
	int k;

	for (k = 0; k < TICKRD_NKINDS; k++)
		if (!strcmp(name, tickrd_kind_names[k]))
			return k;
	return -1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int fail(struct tickrd *d, const char *what)
{
	int e = errno;

	d->failed = what;
	tickrd_close(d);
	errno = e;
	return -1;
}

static int setup(struct tickrd *d, const struct tickrd_opts *opts);

int tickrd_open(struct tickrd *d, enum tickrd_kind kind, const char *group,
		unsigned int port, const char *ifname,
		const struct tickrd_opts *opts)
{
	struct ibtick_reader_opts ro = { .slot_size = opts->slot_size,
					 .nslots = opts->nslots };

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->fd = -1;
	d->ep = -1;
	if (kind < 0 || kind >= TICKRD_NKINDS) {
		errno = EINVAL;
		d->failed = "reader kind";
		return -1;
	}
	if (ibtick_reader_open(&d->r, group, port, ifname, &ro)) {
		d->failed = "socket/bind/mmap";
		return -1;
	}
	return setup(d, opts);
}

int tickrd_open_id(struct tickrd *d, enum tickrd_kind kind, uint32_t feed_id,
		   const struct tickrd_opts *opts)
{
	struct sockaddr_ibtick sa;
	int fd, e, fam = ibtick_family();

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->fd = -1;
	d->ep = -1;
	if (kind < 0 || kind >= TICKRD_NKINDS || fam < 0) {
		if (fam >= 0)
			errno = EINVAL;
		d->failed = fam < 0 ? "ibtick family" : "reader kind";
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sibt_family = (uint16_t)fam;
	sa.sibt_flags = IBTICK_ADDR_FEED_ID;
	memcpy(sa.sibt_group, &feed_id, sizeof(feed_id));
	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		d->failed = "socket";
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    ibtick_reader_attach(&d->r, fd)) {
		e = errno;
		close(fd);
		errno = e;
		d->failed = "bind by feed id/mmap";
		return -1;
	}
	d->r.own_fd = true;
	return setup(d, opts);
}

/* What every kind wants once the socket is bound and its ring mapped. */
static int setup(struct tickrd *d, const struct tickrd_opts *opts)
{
	enum tickrd_kind kind = d->kind;

	d->fd = d->r.fd;
	if (opts->busy_cpu >= -1) {
		struct ibtick_poll_mode pm = { IBTICK_POLL_BUSY, opts->busy_cpu };

		if (setsockopt(d->fd, SOL_IBTICK, IBTICK_POLL_MODE, &pm, sizeof(pm)))
			return fail(d, "IBTICK_POLL_MODE (needs CAP_NET_ADMIN)");
	}
	if (kind == TICKRD_BUSY) {
		int us = opts->busy_poll_us < 0 ? 0 : opts->busy_poll_us ? opts->busy_poll_us : 200;

		int one = 1;

		if (setsockopt(d->fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)))
			return fail(d, "SO_BUSY_POLL");
		if (opts->prefer_busy_poll &&
		    setsockopt(d->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)))
			return fail(d, "SO_PREFER_BUSY_POLL (needs CAP_NET_ADMIN)");
	}
	d->rflags = kind == TICKRD_BUSY && opts->nonblock ? MSG_DONTWAIT : 0;
	if (kind == TICKRD_RECVMSG || kind == TICKRD_BUSY) {
		/* short, so that tickrd_get() can keep its own timeout */
		struct timeval tv = { .tv_usec = 100000 };

		if (setsockopt(d->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			return fail(d, "SO_RCVTIMEO");
	}
	if (kind == TICKRD_EPOLL) {
		struct epoll_event ev = { .events = EPOLLIN };

		d->ep = epoll_create1(EPOLL_CLOEXEC);
		if (d->ep < 0 || epoll_ctl(d->ep, EPOLL_CTL_ADD, d->fd, &ev))
			return fail(d, "epoll");
	}
	return 0;
}

void tickrd_close(struct tickrd *d)
{
	if (d->ep >= 0)
		close(d->ep);
	d->ep = -1;
	ibtick_reader_close(&d->r);
	d->fd = -1;
}

static ssize_t get_recvmsg(struct tickrd *d, void *buf, size_t len,
			   uint64_t ts[2], int timeout_ms)
{
	union {		/* aligned for struct cmsghdr */
		char buf[CMSG_SPACE(sizeof(struct ibtick_tick_info)) +
			 CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { buf, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf,
	};
	uint64_t deadline = 0;
	unsigned int tries = 0;
	struct cmsghdr *c;
	ssize_t got;

	for (;;) {
		mh.msg_controllen = sizeof(cbuf.buf);
		got = recvmsg(d->fd, &mh, d->rflags);
		if (got >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		/* spinning (MSG_DONTWAIT): the clock once in 256 empty calls */
		if (d->rflags && (++tries & 0xff))
			continue;
		if (!deadline)
			deadline = mono_ns() + (uint64_t)timeout_ms * 1000000;
		else if (mono_ns() > deadline)
			return 0;
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		/* a loss report could have been cut: never lose one silently */
		errno = EMSGSIZE;
		return -1;
	}
	ts[0] = 0;
	ts[1] = 0;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_IBTICK)
			continue;
		if (c->cmsg_type == IBTICK_CMSG_LOST) {
			uint64_t l;

			memcpy(&l, CMSG_DATA(c), sizeof(l));
			d->lost += l;
		} else if (c->cmsg_type == IBTICK_CMSG_TICK) {
			struct ibtick_tick_info ti;

			memcpy(&ti, CMSG_DATA(c), sizeof(ti));
			ts[0] = ti.send_ns;
		}
	}
	return got;
}

ssize_t tickrd_get(struct tickrd *d, void *buf, size_t len, uint64_t ts[2],
		   int timeout_ms)
{
	uint64_t deadline = 0;
	unsigned int spins = 0;

	if (d->kind == TICKRD_RECVMSG || d->kind == TICKRD_BUSY)
		return get_recvmsg(d, buf, len, ts, timeout_ms);
	for (;;) {
		struct ibtick_tick t;

		if (ibtick_next(&d->r, &t)) {
			size_t n = t.len < len ? t.len : len;
			uint64_t sn = t.slot->send_ns, rn = t.slot->rx_ns;

			memcpy(buf, t.data, n);
			if (!ibtick_done(&d->r, &t)) {
				d->lost = d->r.lost;	/* overwritten while copied */
				continue;
			}
			d->lost = d->r.lost;	/* the library's total, counted once */
			ts[0] = sn;
			ts[1] = rn;
			return (ssize_t)n;
		}
		d->lost = d->r.lost;	/* lapped on the way to catching up */
		if (ibtick_ended(&d->r)) {
			errno = ENODEV;
			return -1;
		}
		if (d->kind == TICKRD_EPOLL) {
			struct epoll_event ev;
			int n;

			if (ibtick_arm(&d->r))
				return -1;
			n = epoll_wait(d->ep, &ev, 1, timeout_ms);
			if (n == 0)
				return 0;
			if (n < 0 && errno != EINTR)
				return -1;
			continue;
		}
		/* spinning: look at the clock once in 4096 empty polls */
		if (++spins & 0xfff)
			continue;
		if (!deadline)
			deadline = mono_ns() + (uint64_t)timeout_ms * 1000000;
		else if (mono_ns() > deadline)
			return 0;
	}
}

int tickrd_stats(const struct tickrd *d, struct ibtick_stats *st)
{
	socklen_t sl = sizeof(*st);

	memset(st, 0, sizeof(*st));
	return getsockopt(d->fd, SOL_IBTICK, IBTICK_STATISTICS, st, &sl);
}

int tickrd_send(int fd, const void *buf, size_t len, uint64_t *eagain)
{
	while (send(fd, buf, len, MSG_DONTWAIT) < 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		if (errno != EAGAIN)
			return -1;
		if (eagain)
			(*eagain)++;
		poll(&p, 1, 1);
	}
	return 0;
}
