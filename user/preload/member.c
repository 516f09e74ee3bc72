// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: setsockopt/getsockopt on a tracked socket.
 *
 * A membership of a configured group (IP_ADD_MEMBERSHIP, the source-specific
 * and protocol-independent forms) becomes IBTICK_ADD_FEED(group, the
 * socket's bound port, the rule's interface or the one the program named);
 * the first one takes the socket over.  Memberships made before bind() wait
 * for it (the port decides).  Options the ibtick socket understands are
 * given to it as well as recorded (replayed at takeover); the others stay
 * on the UDP socket (the shadow once taken over), which answers getsockopt.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include "preload.h"

static unsigned int ifindex_of_addr(struct in_addr a)
{
	struct ifaddrs *ifa, *i;
	unsigned int idx = 0;

	if (a.s_addr == htonl(INADDR_ANY) || getifaddrs(&ifa))
		return 0;
	for (i = ifa; i; i = i->ifa_next) {
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == a.s_addr) {
			idx = if_nametoindex(i->ifa_name);
			break;
		}
	}
	freeifaddrs(ifa);
	return idx;
}

/* The UDP socket behind @fd: @fd itself until the takeover, then the shadow. */
static int udp_fd(struct psock *ps, int fd)
{
	return ps->ibtick ? ps->shadow : fd;
}

static int group_configured(uint32_t group_be)
{
	uint32_t g = ntohl(group_be);
	int i;

	for (i = 0; i < pl_conf.n; i++) {
		const struct runconf_rule *r = &pl_conf.rule[i];

		if (!r->bad && (g & r->mask) == r->group)
			return 1;
	}
	return 0;
}

static struct pfeed *find_feed(struct psock *ps, uint32_t group, uint16_t port)
{
	int i;

	for (i = 0; i < ps->nfeed; i++)
		if (ps->feed[i].group == group && ps->feed[i].port == port)
			return &ps->feed[i];
	return NULL;
}

/* Subscribe ibtick socket @s to a feed: IBTICK_ADD_FEED, or bind() on a
 * module that has no multi-feed sockets (one feed then). */
static int add_feed_sock(struct psock *ps, int s, const struct sockaddr_ibtick *sa)
{
	if (!real.setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, sa, sizeof(*sa))) {
		ps->multi = 1;
		return 0;
	}
	if (errno != ENOPROTOOPT)
		return -1;
	if (ps->nfeed) {
		pl_log("fd %d: this ibtick module reads one feed per socket (no IBTICK_ADD_FEED)",
		       ps->fds[0]);
		errno = ENOBUFS;
		return -1;
	}
	return real.bind(s, (const struct sockaddr *)sa, sizeof(*sa));
}

static const char *feed_hint(int e)
{
	switch (e) {
	case ENODEV:
		return " (no InfiniBand or RoCE port behind that interface)";
	case EADDRNOTAVAIL:
		return " (no interface named and not exactly one active IB/RoCE port, or no admin feed with auto_feeds=0)";
	case EACCES:
	case EPERM:
		return " (see ibtick(7) ACCESS CONTROL)";
	case ENOBUFS:
		return " (feeds per socket, max_feeds or RLIMIT_MEMLOCK reached)";
	default:
		return "";
	}
}

/*
 * Read a configured feed on @ps (taking it over for the first one).
 * Returns 0; -1 with errno, the socket as it was; or -2 when the socket
 * could not be taken over (the reason printed): the caller joins on kernel
 * UDP instead, as without the library.
 */
static int feed_add(struct psock *ps, int fd, uint32_t group, uint16_t port,
		    unsigned int ifindex, uint32_t src)
{
	struct sockaddr_ibtick sa;
	struct pfeed *f = find_feed(ps, group, port);
	char ip[16], sip[16];
	int s;

	if (f) {
		if (!src || f->nsrc == PL_MAX_SRC || !f->nsrc) {
			errno = !src || !f->nsrc ? EADDRINUSE : ENOBUFS;
			return -1;
		}
		pl_rx_lock(&ps->rxlock);
		f->src[f->nsrc++] = src;
		pl_rx_unlock(&ps->rxlock);
		pl_log("fd %d: %s:%u: also from source %s", fd, pl_ip(group, ip), port,
		       pl_ip(src, sip));
		return 0;
	}
	if (ps->nfeed == IBTICK_FEEDS_PER_SOCKET) {
		errno = ENOBUFS;
		return -1;
	}
	pl_feedaddr(&sa, group, port, ifindex);
	if (!ps->ibtick) {
		s = pl_new_ibtick(ps);
		if (s < 0)
			return -2;	/* module not loaded: kernel UDP, already told */
		if (add_feed_sock(ps, s, &sa) || pl_install(ps, s)) {
			int e = errno;

			real.close(s);
			pl_err("fd %d: %s:%u ifindex %u: cannot read it over ibtick: %s%s; kernel UDP instead",
			       fd, pl_ip(group, ip), port, ifindex, strerror(e), feed_hint(e));
			errno = e;
			return -2;
		}
		pl_log("fd %d: taken over: reads %s:%u ifindex %u over ibtick%s", fd,
		       pl_ip(group, ip), port, ifindex, ps->multi ? "" : " (bind: one feed)");
	} else if (add_feed_sock(ps, fd, &sa)) {
		int e = errno;

		pl_err("fd %d: %s:%u ifindex %u: cannot read it over ibtick: %s%s",
		       fd, pl_ip(group, ip), port, ifindex, strerror(e), feed_hint(e));
		errno = e;
		return -1;
	} else {
		pl_log("fd %d: reads %s:%u ifindex %u over ibtick too", fd, pl_ip(group, ip),
		       port, ifindex);
	}
	/* the socket's readers see the list change whole (rx.c: rxlock) */
	pl_rx_lock(&ps->rxlock);
	f = &ps->feed[ps->nfeed];
	memset(f, 0, sizeof(*f));
	f->group = group;
	f->port = port;
	f->ifindex = ifindex;
	if (src) {
		f->src[0] = src;
		f->nsrc = 1;
	}
	pl_ring_map(ps, fd, f);
	ps->nfeed++;
	pl_rx_unlock(&ps->rxlock);
	if (src && !ps->source_cmsg && !ps->warned_srcfilter++)
		pl_err("fd %d: %s:%u: source filter %s cannot be applied (no IBTICK_CMSG_SOURCE): every source is delivered",
		       fd, pl_ip(group, ip), port, pl_ip(src, sip));
	return 0;
}

static int feed_drop(struct psock *ps, int fd, uint32_t group, uint16_t port, uint32_t src)
{
	struct sockaddr_ibtick sa;
	struct pfeed *f = find_feed(ps, group, port);
	char ip[16];
	int i;

	if (!f) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	if (src) {
		for (i = 0; i < f->nsrc && f->src[i] != src; i++)
			;
		if (i == f->nsrc) {
			errno = EADDRNOTAVAIL;
			return -1;
		}
		f->src[i] = f->src[--f->nsrc];
		if (f->nsrc)
			return 0;
	}
	if (!ps->multi) {
		pl_log("fd %d: %s:%u: this module cannot drop bind()'s feed: its ticks keep coming until close",
		       fd, pl_ip(group, ip), port);
		return 0;
	}
	pl_feedaddr(&sa, group, port, f->ifindex);
	if (real.setsockopt(fd, SOL_IBTICK, IBTICK_DROP_FEED, &sa, sizeof(sa)))
		return -1;
	pl_log("fd %d: dropped %s:%u: delivered %llu, lost %llu", fd, pl_ip(group, ip), port,
	       (unsigned long long)f->delivered, (unsigned long long)f->lost);
	pl_rx_lock(&ps->rxlock);
	pl_ring_unmap(f);
	*f = ps->feed[--ps->nfeed];
	ps->last_feed = -1;
	ps->stash.full = 0;
	pl_rx_unlock(&ps->rxlock);
	return 0;
}

/* A membership request, whatever its form. */
struct mreq {
	int		add;
	int		source;	/* source-specific form */
	uint32_t	group;	/* network order */
	uint32_t	src;
	unsigned int	ifindex;
};

static int parse_mreq(int name, const void *val, socklen_t len, struct mreq *m)
{
	memset(m, 0, sizeof(*m));
	switch (name) {
	case IP_ADD_MEMBERSHIP:
	case IP_DROP_MEMBERSHIP:
		if (len < sizeof(struct ip_mreq))
			return -1;
		m->add = name == IP_ADD_MEMBERSHIP;
		m->group = ((const struct ip_mreq *)val)->imr_multiaddr.s_addr;
		if (len >= sizeof(struct ip_mreqn) && ((const struct ip_mreqn *)val)->imr_ifindex)
			m->ifindex = (unsigned int)((const struct ip_mreqn *)val)->imr_ifindex;
		else
			m->ifindex = ifindex_of_addr(((const struct ip_mreq *)val)->imr_interface);
		return 0;
	case IP_ADD_SOURCE_MEMBERSHIP:
	case IP_DROP_SOURCE_MEMBERSHIP: {
		const struct ip_mreq_source *r = val;

		if (len < sizeof(*r))
			return -1;
		m->add = name == IP_ADD_SOURCE_MEMBERSHIP;
		m->source = 1;
		m->group = r->imr_multiaddr.s_addr;
		m->src = r->imr_sourceaddr.s_addr;
		m->ifindex = ifindex_of_addr(r->imr_interface);
		return 0;
	}
	case MCAST_JOIN_GROUP:
	case MCAST_LEAVE_GROUP: {
		const struct group_req *r = val;

		if (len < sizeof(*r) || r->gr_group.ss_family != AF_INET)
			return -1;
		m->add = name == MCAST_JOIN_GROUP;
		m->group = ((const struct sockaddr_in *)&r->gr_group)->sin_addr.s_addr;
		m->ifindex = r->gr_interface;
		return 0;
	}
	case MCAST_JOIN_SOURCE_GROUP:
	case MCAST_LEAVE_SOURCE_GROUP: {
		const struct group_source_req *r = val;

		if (len < sizeof(*r) || r->gsr_group.ss_family != AF_INET ||
		    r->gsr_source.ss_family != AF_INET)
			return -1;
		m->add = name == MCAST_JOIN_SOURCE_GROUP;
		m->source = 1;
		m->group = ((const struct sockaddr_in *)&r->gsr_group)->sin_addr.s_addr;
		m->src = ((const struct sockaddr_in *)&r->gsr_source)->sin_addr.s_addr;
		m->ifindex = r->gsr_interface;
		return 0;
	}
	}
	return -1;
}

/* Join or leave on kernel UDP, as the program asked, on @ufd. */
static int udp_member(int ufd, const struct mreq *m)
{
	if (m->source) {
		struct group_source_req r = { .gsr_interface = m->ifindex };

		((struct sockaddr_in *)&r.gsr_group)->sin_family = AF_INET;
		((struct sockaddr_in *)&r.gsr_group)->sin_addr.s_addr = m->group;
		((struct sockaddr_in *)&r.gsr_source)->sin_family = AF_INET;
		((struct sockaddr_in *)&r.gsr_source)->sin_addr.s_addr = m->src;
		return real.setsockopt(ufd, IPPROTO_IP, m->add ? MCAST_JOIN_SOURCE_GROUP :
				       MCAST_LEAVE_SOURCE_GROUP, &r, sizeof(r));
	} else {
		struct ip_mreqn r = { .imr_multiaddr.s_addr = m->group,
				      .imr_ifindex = (int)m->ifindex };

		return real.setsockopt(ufd, IPPROTO_IP, m->add ? IP_ADD_MEMBERSHIP :
				       IP_DROP_MEMBERSHIP, &r, sizeof(r));
	}
}

static int membership(struct psock *ps, int fd, const struct mreq *m, int level, int name,
		      const void *val, socklen_t len)
{
	const struct runconf_rule *r;
	unsigned int hint = m->ifindex ? m->ifindex : ps->bind_ifindex;
	char ip[16];
	int i, rc;

	if (!ps->port) {
		/* the port decides: wait for bind() if a rule might want it */
		if (!group_configured(m->group))
			return real.setsockopt(udp_fd(ps, fd), level, name, val, len);
		for (i = 0; i < ps->npend; i++)
			if (ps->pend[i].group == m->group && ps->pend[i].src == m->src)
				break;
		if (m->add) {
			if (i < ps->npend) {
				errno = EADDRINUSE;
				return -1;
			}
			if (ps->npend == PL_MAX_PEND) {
				errno = ENOBUFS;
				return -1;
			}
			ps->pend[ps->npend++] = (struct pend){ m->group, hint, m->src };
			pl_log("fd %d: %s: membership kept until bind() gives the port", fd,
			       pl_ip(m->group, ip));
			return 0;
		}
		if (i == ps->npend) {
			errno = EADDRNOTAVAIL;
			return -1;
		}
		ps->pend[i] = ps->pend[--ps->npend];
		return 0;
	}
	r = runconf_match(&pl_conf, ntohl(m->group), ps->port, hint);
	if (!r) {
		if (ps->ibtick && m->add && !ps->warned_mixed++)
			pl_err("fd %d: %s:%u is not configured: joined on kernel UDP, but this socket reads ibtick only: those datagrams are counted at close, not delivered",
			       fd, pl_ip(m->group, ip), ps->port);
		if (ps->ibtick && m->add)
			ps->kudp_joined++;
		if (!ps->ibtick && m->add)
			pl_log("fd %d: %s:%u not configured: kernel UDP", fd, pl_ip(m->group, ip),
			       ps->port);
		return real.setsockopt(udp_fd(ps, fd), level, name, val, len);
	}
	if (!m->add)
		return feed_drop(ps, fd, m->group, ps->port, m->src);
	rc = feed_add(ps, fd, m->group, ps->port, pl_rule_ifindex(r, hint), m->src);
	if (rc == -2)	/* not over ibtick after all: what UDP does */
		return real.setsockopt(fd, level, name, val, len);
	return rc;
}

void pl_bound(struct psock *ps, int fd)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int i, n = ps->npend;
	struct pend pend[PL_MAX_PEND];

	if (real.getsockname(udp_fd(ps, fd), (struct sockaddr *)&a, &al) || a.sin_family != AF_INET)
		return;
	ps->port = ntohs(a.sin_port);
	memcpy(pend, ps->pend, sizeof(pend));
	ps->npend = 0;
	for (i = 0; i < n; i++) {
		struct mreq m = { .add = 1, .source = pend[i].src != 0, .group = pend[i].group,
				  .src = pend[i].src, .ifindex = pend[i].ifindex };
		const struct runconf_rule *r = runconf_match(&pl_conf, ntohl(m.group), ps->port,
							     m.ifindex);
		int rc = -2;

		if (r)
			rc = feed_add(ps, fd, m.group, ps->port, pl_rule_ifindex(r, m.ifindex),
				      m.src);
		if (rc == -2 && udp_member(udp_fd(ps, fd), &m))
			pl_err("fd %d: a membership made before bind() failed on kernel UDP: %s",
			       fd, strerror(errno));
	}
}

void pl_pending_to_feed(struct psock *ps, int fd, uint32_t group, uint16_t port,
			unsigned int ifindex)
{
	char ip[16];
	int i;

	if (ps->port)
		return;
	for (i = 0; i < ps->npend; i++) {
		struct pend p = ps->pend[i];

		if (p.group != group)
			continue;
		ps->pend[i--] = ps->pend[--ps->npend];
		pl_log("fd %d: unbound, publishes to %s:%u: its membership reads that feed",
		       fd, pl_ip(group, ip), port);
		if (feed_add(ps, fd, group, port, ifindex, p.src) == -1)
			pl_err("fd %d: %s:%u: cannot read the feed it publishes to: %s",
			       fd, pl_ip(group, ip), port, strerror(errno));
	}
}

static void record_opt(struct psock *ps, int name, const void *val, socklen_t len)
{
	int i;

	if (len > sizeof(ps->opt[0].val))
		return;
	for (i = 0; i < ps->nopt && ps->opt[i].name != name; i++)
		;
	if (i == PL_MAX_OPTS)
		return;
	if (i == ps->nopt)
		ps->nopt++;
	ps->opt[i].name = name;
	ps->opt[i].len = len;
	memcpy(ps->opt[i].val, val, len);
}

static int int_val(const void *val, socklen_t len)
{
	if (len >= sizeof(int))
		return *(const int *)val;
	if (len >= 1)
		return *(const unsigned char *)val;
	return 0;
}

static int sol_socket(struct psock *ps, int fd, int name, const void *val, socklen_t len)
{
	int ufd = udp_fd(ps, fd), rc, one;

	rc = real.setsockopt(ufd, SOL_SOCKET, name, val, len);
	if (rc)
		return rc;
	switch (name) {
	case SO_TIMESTAMP:
	case SO_TIMESTAMPNS:
		*(name == SO_TIMESTAMP ? &ps->ts_us : &ps->ts_ns) = int_val(val, len) != 0;
		one = ps->ts_us || ps->ts_ns;
		if (ps->ibtick)
			rc = real.setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
		return rc;
	case SO_RXQ_OVFL:
		ps->rxq_ovfl = int_val(val, len) != 0;
		return 0;
	case SO_BINDTODEVICE: {
		char name_[IF_NAMESIZE] = "";

		memcpy(name_, val, len < IF_NAMESIZE - 1 ? len : IF_NAMESIZE - 1);
		ps->bind_ifindex = name_[0] ? if_nametoindex(name_) : 0;
		return 0;
	}
	case SO_RCVBUF:
	case SO_RCVBUFFORCE:
		if (ps->ibtick || pl_verbose)
			pl_log("fd %d: SO_RCVBUF: kept by kernel UDP; over ibtick the feed's ring is the buffer (ibtick feed add ... slots N)",
			       fd);
		return 0;
	case SO_BUSY_POLL:
	case SO_PREFER_BUSY_POLL:
	case SO_RCVTIMEO:
	case SO_SNDTIMEO:
	case SO_PRIORITY:
		if (name == SO_BUSY_POLL)
			ps->busy = -1;	/* ring.c asks the socket again */
		record_opt(ps, name, val, len);
		if (ps->ibtick)
			rc = real.setsockopt(fd, SOL_SOCKET, name, val, len);
		return rc;
	}
	return 0;
}

static int ipproto_ip(struct psock *ps, int fd, int name, const void *val, socklen_t len)
{
	int ufd = udp_fd(ps, fd), rc;
	struct mreq m;

	if (!parse_mreq(name, val, len, &m))
		return membership(ps, fd, &m, IPPROTO_IP, name, val, len);
	rc = real.setsockopt(ufd, IPPROTO_IP, name, val, len);
	if (rc)
		return rc;
	switch (name) {
	case IP_MULTICAST_LOOP:
		ps->loop = int_val(val, len) != 0;
		if (ps->ibtick &&
		    real.setsockopt(fd, SOL_IBTICK, IBTICK_LOOPBACK, &ps->loop, sizeof(ps->loop)))
			pl_log("fd %d: IBTICK_LOOPBACK: %s", fd, strerror(errno));
		break;
	case IP_MULTICAST_IF:
		if (len >= sizeof(struct ip_mreqn) && ((const struct ip_mreqn *)val)->imr_ifindex)
			ps->mc_ifindex = (unsigned int)((const struct ip_mreqn *)val)->imr_ifindex;
		else if (len >= sizeof(struct ip_mreq))
			ps->mc_ifindex = ifindex_of_addr(((const struct ip_mreqn *)val)->imr_address);
		else if (len >= sizeof(struct in_addr))
			ps->mc_ifindex = ifindex_of_addr(*(const struct in_addr *)val);
		break;
	case IP_MULTICAST_TTL:
		pl_log("fd %d: IP_MULTICAST_TTL %d: kept by kernel UDP; ibtick stays in its subnet",
		       fd, int_val(val, len));
		break;
	case IP_PKTINFO:
		ps->pktinfo = int_val(val, len) != 0;
		break;
	}
	return 0;
}

int pl_setsockopt(struct psock *ps, int fd, int level, int name,
		  const void *val, socklen_t len)
{
	int rc;

	pthread_mutex_lock(&pl_lock);
	if (level == SOL_SOCKET)
		rc = sol_socket(ps, fd, name, val, len);
	else if (level == IPPROTO_IP)
		rc = ipproto_ip(ps, fd, name, val, len);
	else
		rc = real.setsockopt(udp_fd(ps, fd), level, name, val, len);
	pthread_mutex_unlock(&pl_lock);
	return rc;
}

int pl_getsockopt(struct psock *ps, int fd, int level, int name,
		  void *val, socklen_t *len)
{
	if (!ps->ibtick || (level == SOL_SOCKET && name == SO_ERROR))
		return real.getsockopt(fd, level, name, val, len);
	return real.getsockopt(ps->shadow, level, name, val, len);
}
