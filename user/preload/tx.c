// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: sending.
 *
 * A datagram to a configured group:port is one tick on that feed: the
 * first destination is published from the socket itself (connect() on the
 * AF_IBTICK socket, which takes the socket over if it was not), each
 * further one from a hidden AF_IBTICK socket of its own (a socket publishes
 * on one feed).  Every other destination is sent by the UDP socket (the
 * shadow once taken over), so unicast replies keep their source port.  A
 * refused publisher (CAP_NET_RAW, an admin feed's mode) fails the send
 * with the kernel's errno and says why on stderr, once per destination;
 * nothing is dropped silently.  ibtick never blocks a sender (a full send
 * queue is EAGAIN): on a blocking socket the library waits for POLLOUT and
 * sends again, as a blocking UDP socket would have waited.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>

#include "preload.h"

const struct runconf_rule *pl_dest_rule(struct psock *ps, const struct sockaddr_in *d,
					unsigned int *ifindex)
{
	const struct runconf_rule *r;
	unsigned int hint = ps->mc_ifindex ? ps->mc_ifindex : ps->bind_ifindex;

	if (d->sin_family != AF_INET || !IN_MULTICAST(ntohl(d->sin_addr.s_addr)))
		return NULL;
	r = runconf_match(&pl_conf, ntohl(d->sin_addr.s_addr), ntohs(d->sin_port), hint);
	if (r)
		*ifindex = pl_rule_ifindex(r, hint);
	return r;
}

static const char *pub_hint(int e)
{
	switch (e) {
	case EPERM:
		return ": publishing on an auto feed needs CAP_NET_RAW (ibtick(7), ACCESS CONTROL)";
	case EACCES:
		return ": the admin feed's mode does not let this user publish (ibtick feed show)";
	case EADDRNOTAVAIL:
		return ": no such feed (auto_feeds=0 needs an admin feed), or no interface named and not exactly one active port";
	case ENODEV:
		return ": no InfiniBand or RoCE port behind that interface";
	default:
		return "";
	}
}

/* Tell why publishing to @group:@port was refused, once per destination. */
static void refused(int fd, uint32_t group, uint16_t port, unsigned int ifindex, int e)
{
	static struct {
		uint32_t group;
		uint16_t port;
	} told[32];
	static int ntold;
	char ip[16];
	int i;

	for (i = 0; i < ntold; i++)
		if (told[i].group == group && told[i].port == port)
			return;
	if (ntold < 32) {
		told[ntold].group = group;
		told[ntold++].port = port;
	}
	pl_err("fd %d: publishing to %s:%u (ifindex %u) over ibtick refused: %s%s; the send fails with that error",
	       fd, pl_ip(group, ip), port, ifindex, strerror(e), pub_hint(e));
}

/*
 * The publisher made for @group:@port, if any.  Publishers are only ever
 * added (released with npub), and only for a destination a rule took, and
 * the rules do not change while the program runs: a destination found here
 * is one the rules take, whatever the socket's interface hints say now.
 */
static struct ppub *pub_of(struct psock *ps, uint32_t group, uint16_t port)
{
	int i, n = __atomic_load_n(&ps->npub, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (ps->pub[i].group == group && ps->pub[i].port == port)
			return &ps->pub[i];
	return NULL;
}

/* The publisher for a configured destination; locks pl_lock itself. */
static struct ppub *publisher(struct psock *ps, int fd, uint32_t group, uint16_t port,
			      unsigned int ifindex)
{
	struct sockaddr_ibtick sa;
	struct ppub *p = pub_of(ps, group, port);
	char ip[16];
	int i, s = -1, own = 0, e;

	if (p)
		return p;
	pthread_mutex_lock(&pl_lock);
	for (i = 0; i < ps->npub; i++)
		if (ps->pub[i].group == group && ps->pub[i].port == port) {
			p = &ps->pub[i];
			goto out;
		}
	if (ps->npub == PL_MAX_PUB) {
		errno = ENOBUFS;
		goto out;
	}
	pl_feedaddr(&sa, group, port, ifindex);
	if (!ps->ibtick) {
		s = pl_new_ibtick(ps);
		if (s < 0)
			goto out;
		if (real.connect(s, (struct sockaddr *)&sa, sizeof(sa)) || pl_install(ps, s)) {
			e = errno;
			real.close(s);
			refused(fd, group, port, ifindex, e);
			errno = e;
			goto out;
		}
		pl_log("fd %d: taken over: publishes to %s:%u ifindex %u over ibtick", fd,
		       pl_ip(group, ip), port, ifindex);
		s = -1;
	} else if (!ps->npub && !real.connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		pl_log("fd %d: publishes to %s:%u ifindex %u over ibtick", fd, pl_ip(group, ip),
		       port, ifindex);
		s = -1;
	} else {
		/* the socket publishes elsewhere already (or reads bind()'s feed) */
		s = pl_new_ibtick(ps);
		if (s < 0)
			goto out;
		own = 1;
		if (real.connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
			e = errno;
			real.close(s);
			refused(fd, group, port, ifindex, e);
			errno = e;
			goto out;
		}
		pl_log("fd %d: publishes to %s:%u ifindex %u from a socket of its own (hidden fd %d)",
		       fd, pl_ip(group, ip), port, ifindex, s);
	}
	p = &ps->pub[ps->npub];
	memset(p, 0, sizeof(*p));
	p->group = group;
	p->port = port;
	p->ifindex = ifindex;
	p->fd = own ? s : -1;
	__atomic_store_n(&ps->npub, ps->npub + 1, __ATOMIC_RELEASE);
	pl_pending_to_feed(ps, fd, group, port, ifindex);
out:
	pthread_mutex_unlock(&pl_lock);
	return p;
}

static size_t iov_len(const struct msghdr *m)
{
	size_t n = 0, i;

	for (i = 0; i < m->msg_iovlen; i++)
		n += m->msg_iov[i].iov_len;
	return n;
}

static ssize_t publish(struct psock *ps, int fd, struct ppub *p, const struct msghdr *m,
		       int flags)
{
	struct msghdr km = { .msg_iov = m->msg_iov, .msg_iovlen = m->msg_iovlen };
	int pfd = p->fd >= 0 ? p->fd : fd;
	ssize_t n;

	for (;;) {
		struct pollfd pf = { .fd = pfd, .events = POLLOUT };
		int fl;

		/* one buffer: send(), as a native publisher (the kernel copies no msghdr) */
		if (m->msg_iovlen == 1)
			n = real.send(pfd, m->msg_iov[0].iov_base, m->msg_iov[0].iov_len,
				      flags & (MSG_DONTWAIT | MSG_NOSIGNAL));
		else
			n = real.sendmsg(pfd, &km, flags & (MSG_DONTWAIT | MSG_NOSIGNAL));
		if (n >= 0) {
			p->sent++;
			return n;
		}
		if (errno == EMSGSIZE) {
			/* longer than the feed's datagrams: kernel UDP, as before */
			static int told;
			char ip[16];

			if (!told++)
				pl_err("fd %d: a datagram of %zu bytes to %s:%u is too long for ibtick: sent as kernel UDP (ibtick readers do not get it; counted at close)",
				       fd, iov_len(m), pl_ip(p->group, ip), p->port);
			p->oversize++;
			return real.sendmsg(ps->shadow, m, flags);
		}
		if (errno == EACCES || errno == EPERM)
			refused(fd, p->group, p->port, p->ifindex, errno);
		if (errno != EAGAIN || (flags & MSG_DONTWAIT))
			return -1;
		fl = real.fcntl(fd, F_GETFL);
		if (fl < 0 || (fl & O_NONBLOCK))
			return -1;
		p->waits++;
		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

ssize_t pl_sendmsg(struct psock *ps, int fd, const struct msghdr *m, int flags)
{
	const struct sockaddr_in *d = NULL;
	unsigned int ifindex = 0;
	struct ppub *p;

	if (m->msg_name && m->msg_namelen >= sizeof(struct sockaddr_in))
		d = m->msg_name;
	else if (!m->msg_name && ps->connected)
		d = &ps->peer;
	/* a destination published to before: no rule to match again */
	if (d && d->sin_family == AF_INET &&
	    (p = pub_of(ps, d->sin_addr.s_addr, ntohs(d->sin_port))))
		return publish(ps, fd, p, m, flags);
	if (d && pl_dest_rule(ps, d, &ifindex)) {
		p = publisher(ps, fd, d->sin_addr.s_addr, ntohs(d->sin_port), ifindex);
		if (!p)
			return -1;
		return publish(ps, fd, p, m, flags);
	}
	return real.sendmsg(ps->ibtick ? ps->shadow : fd, m, flags);
}

int pl_connect(struct psock *ps, int fd, const struct sockaddr *sa, socklen_t len)
{
	const struct sockaddr_in *d = (const struct sockaddr_in *)sa;
	unsigned int ifindex = 0;
	int rc = real.connect(ps->ibtick ? ps->shadow : fd, sa, len);

	if (rc)
		return rc;
	if (!sa || len < sizeof(*d) || d->sin_family != AF_INET) {
		ps->connected = 0;	/* AF_UNSPEC: dissolved */
		return 0;
	}
	ps->connected = 1;
	ps->peer = *d;
	if (!ps->port) {
		struct sockaddr_in a;
		socklen_t al = sizeof(a);

		if (!real.getsockname(ps->ibtick ? ps->shadow : fd, (struct sockaddr *)&a, &al))
			ps->port = ntohs(a.sin_port);
	}
	if (pl_dest_rule(ps, d, &ifindex) &&
	    !publisher(ps, fd, d->sin_addr.s_addr, ntohs(d->sin_port), ifindex))
		return -1;
	return 0;
}
