// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: the socket operations: socket, bind, connect, options,
 * sendmsg/recvmsg, poll and epoll, and the rest of the socket API.
 */
#include "sysfuzz.h"

/* ---- addresses and option values --------------------------------------- */

static uint32_t pick_ifindex(struct rng *r)
{
	unsigned int p = rn(r, 100);

	if (nif && p < 75)
		return ifidx[rn(r, (uint32_t)nif)];
	if (p < 85)
		return 0;
	if (p < 92)
		return 1;		/* lo: no RDMA port behind it */
	return (uint32_t)rnd(r);
}

static void pick_geometry(struct rng *r, uint32_t *ns, uint32_t *ss)
{
	static const uint32_t bad_ns[] = { 0, 1, 32, 63, 65, 3000, 1U << 21, UINT32_MAX };
	static const uint32_t bad_ss[] = { 0, 32, 48, 63, 100, 16384, UINT32_MAX };

	*ns = IBTICK_SLOTS_DEFAULT;
	*ss = IBTICK_SLOT_SIZE_DEFAULT;
	switch (rn(r, 10)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		*ns = 1U << (6 + rn(r, 9));		/* 64 .. 16384 */
		*ss = 1U << (6 + rn(r, 8));		/* 64 .. 8192 */
		while ((uint64_t)*ns * *ss > GEOM_CAP && *ns > IBTICK_SLOTS_MIN)
			*ns >>= 1;
		break;
	case 6:
		*ns = PICK(r, bad_ns);
		break;
	case 7:
		*ss = PICK(r, bad_ss);
		break;
	case 8:
		/* powers of two over IBTICK_RING_BYTES_MAX: EINVAL */
		if (pct(r, 50)) {
			*ns = 1U << 20;
			*ss = 8192;
		} else {
			*ns = 1U << 18;
			*ss = 1024;
		}
		break;
	default:
		*ns = (uint32_t)rnd(r);
		*ss = (uint32_t)rnd(r);
		break;
	}
}

static uint32_t pick_group(struct rng *r)
{
	static const char *const odd[] = {
		"224.0.0.1", "224.0.0.255", "224.0.1.1", "10.99.0.1",
		"255.255.255.255", "240.0.0.1", "239.255.255.255", "0.0.0.0",
	};
	struct in_addr in;

	if (pct(r, 88))
		return groups[rn(r, 4)];
	if (pct(r, 80) && inet_pton(AF_INET, PICK(r, odd), &in) == 1)
		return in.s_addr;
	return (uint32_t)rnd(r);
}

/* A sockaddr_ibtick, mostly valid, into addrbuf; returns the length to pass. */
static socklen_t build_ibt_addr(struct rng *r)
{
	static const uint16_t odd_fam[] = { 0, AF_INET, AF_INET6, AF_UNSPEC, 0xffff };
	struct sockaddr_ibtick sa;
	uint32_t g;

	memset(addrbuf, 0, sizeof(addrbuf));
	if (pct(r, 12)) {
		/* a connection's: the rig's unicast addresses, a few ports */
		static const char *const ips[] = { "10.99.0.1", "10.99.0.2", "0.0.0.0",
						   "127.0.0.1", "10.99.0.9", "239.1.2.3" };
		static const uint16_t ports[] = { 7301, 7302, 7303, 0 };

		memset(&sa, 0, sizeof(sa));
		sa.sibt_family = (uint16_t)fam;
		sa.sibt_port = PICK(r, ports);
		sa.sibt_group_family = AF_INET;
		inet_pton(AF_INET, PICK(r, ips), sa.sibt_group);
		if (pct(r, 5))
			sa.sibt_ifindex = pick_ifindex(r);
		memcpy(addrbuf, &sa, sizeof(sa));
		return pct(r, 95) ? sizeof(sa) : rn(r, 65);
	}
	if (pct(r, 85)) {
		memset(&sa, 0, sizeof(sa));
		sa.sibt_family = pct(r, 97) ? (uint16_t)fam : PICK(r, odd_fam);
		sa.sibt_port = pct(r, 96) ? PICK(r, feed_ports) : (pct(r, 50) ? 0 : (uint16_t)rnd(r));
		sa.sibt_ifindex = pick_ifindex(r);
		sa.sibt_flags = pct(r, 95) ? 0 : 1U << rn(r, 32);
		sa.sibt_group_family = pct(r, 94) ? AF_INET : PICK(r, odd_fam);
		sa.sibt_reserved = pct(r, 97) ? 0 : (uint16_t)rnd(r);
		g = pick_group(r);
		memcpy(sa.sibt_group, &g, 4);
		if (pct(r, 3))
			sa.sibt_group[4 + rn(r, 12)] = (unsigned char)(1 + rn(r, 255));
		if (pct(r, 4)) {
			/* a feed by id (IBTICK_ADDR_FEED_ID), mostly a small one */
			uint32_t id = pct(r, 90) ? 1 + rn(r, 64) : (uint32_t)rnd(r);

			memset(&sa, 0, sizeof(sa));
			sa.sibt_family = (uint16_t)fam;
			sa.sibt_flags = IBTICK_ADDR_FEED_ID;
			memcpy(sa.sibt_group, &id, 4);
			if (pct(r, 10))
				sa.sibt_port = PICK(r, feed_ports);
		}
		memcpy(addrbuf, &sa, sizeof(sa));
		if (pct(r, 10))
			fill(r, addrbuf + sizeof(sa), 64 - sizeof(sa));
	} else {
		fill(r, addrbuf, 64);
		if (pct(r, 50)) {
			sa.sibt_family = (uint16_t)fam;
			memcpy(addrbuf, &sa.sibt_family, 2);
		}
	}
	if (pct(r, 80))
		return sizeof(struct sockaddr_ibtick);
	if (pct(r, 95))
		return rn(r, 65);
	return pct(r, 50) ? 129 : (socklen_t)-1;
}

/* A sockaddr_nl for the kernel (pid 0), never another process. */
static socklen_t build_nl_addr(struct rng *r, bool groups_ok)
{
	struct sockaddr_nl nl;

	memset(&nl, 0, sizeof(nl));
	memset(addrbuf, 0, sizeof(addrbuf));
	nl.nl_family = pct(r, 90) ? AF_NETLINK : AF_UNSPEC;
	if (groups_ok && pct(r, 30))
		nl.nl_groups = (uint32_t)rnd(r);
	memcpy(addrbuf, &nl, sizeof(nl));
	return pct(r, 85) ? sizeof(nl) : rn(r, 17);
}

static int pick_level(struct rng *r, int kind)
{
	static const int other[] = { 0, 6, 17, 41, 263, 299, 301, -1 };

	if (kind == FK_GENL) {
		unsigned int p = rn(r, 100);

		if (p < 50)
			return SOL_NETLINK;
		if (p < 85)
			return SOL_SOCKET;
		if (p < 95)
			return SOL_IBTICK;
		return PICK(r, other);
	}
	switch (rn(r, 20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
	case 6: case 7: case 8: case 9: case 10: case 11:
		return SOL_IBTICK;
	case 12: case 13: case 14: case 15: case 16: case 17:
		return SOL_SOCKET;
	case 18:
		return SOL_NETLINK;
	default:
		return pct(r, 70) ? PICK(r, other) : (int)rnd(r);
	}
}

static int pick_optname(struct rng *r, int level)
{
	static const int so[] = {
		SO_RCVTIMEO, SO_SNDTIMEO, SO_TIMESTAMPNS, SO_TIMESTAMPNS_NEW,
		SO_TIMESTAMP, SO_TIMESTAMPING, SO_BUSY_POLL, SO_PREFER_BUSY_POLL,
		SO_BUSY_POLL_BUDGET, SO_BINDTODEVICE, SO_ATTACH_FILTER,
		SO_DETACH_FILTER, SO_LOCK_FILTER, SO_MARK, SO_PRIORITY, SO_RCVBUF,
		SO_SNDBUF, SO_RCVBUFFORCE, SO_RCVLOWAT, SO_LINGER, SO_ZEROCOPY,
		SO_PEEK_OFF, SO_MEMINFO, SO_DOMAIN, SO_PROTOCOL, SO_TYPE, SO_ERROR,
		SO_COOKIE, SO_INCOMING_CPU, SO_PEERNAME, SO_PEERCRED, SO_TXTIME,
		SO_RXQ_OVFL, SO_WIFI_STATUS, SO_SELECT_ERR_QUEUE, SO_CNX_ADVICE,
	};

	if (level == SOL_IBTICK) {
		if (pct(r, 80))
			return 1 + (int)rn(r, IBTICK_CONN_INFO);
		return pct(r, 80) ? (int)rn(r, 21) : (int)rnd(r);
	}
	if (level == SOL_SOCKET) {
		if (pct(r, 65))
			return PICK(r, so);
		return pct(r, 80) ? (int)rn(r, 21) : (int)rn(r, 100);
	}
	if (level == SOL_NETLINK)
		return pct(r, 90) ? (int)rn(r, 14) : (int)rnd(r);
	return pct(r, 60) ? (int)rn(r, 21) : (int)rnd(r);
}

static int pick_int(struct rng *r)
{
	static const int v[] = { 0, 1, 1, -1, 2, 7, 64, 1000, INT_MAX, INT_MIN };

	return pct(r, 80) ? PICK(r, v) : (int)rnd(r);
}

static uint64_t sock_cursor(int fd, bool *ok)
{
	uint64_t cur = 0;
	socklen_t len = sizeof(cur);

	*ok = !getsockopt(fd, SOL_IBTICK, IBTICK_RING_CURSOR, &cur, &len) &&
	      len == sizeof(cur);
	return cur;
}

/* Fill optbuf for a setsockopt; returns the value's natural length. */
/* An int option value in optbuf; its length. */
static socklen_t opt_int(int v)
{
	memcpy(optbuf, &v, sizeof(v));
	return sizeof(v);
}

static socklen_t build_optval(struct rng *r, int fd, int level, int name)
{
	fill(r, optbuf, 512);
	if (level == SOL_IBTICK) {
		switch (name) {
		case IBTICK_RING_GEOMETRY: {
			struct ibtick_ring_geometry g;

			pick_geometry(r, &g.nslots, &g.slot_size);
			memcpy(optbuf, &g, sizeof(g));
			return sizeof(g);
		}
		case IBTICK_RING_CURSOR: {
			static const int64_t delta[] = { -100000, -5000, -4097, -64, -1, 0, 0, 1, 2, 1000 };
			uint64_t cur;
			bool ok;

			cur = sock_cursor(fd, &ok);
			if (ok && pct(r, 60))
				cur += (uint64_t)PICK(r, delta);
			else
				cur = pct(r, 50) ? rn(r, 100) : rnd(r);
			memcpy(optbuf, &cur, sizeof(cur));
			return sizeof(cur);
		}
		case IBTICK_POLL_MODE: {
			static const int32_t cpus[] = { -1, -1, 0, 1, 2, 63, 4096, -2, INT32_MIN };
			struct ibtick_poll_mode pm;
			unsigned int p = rn(r, 100);

			/* busy mode burns a CPU per feed: keep it rare */
			pm.mode = p < 42 ? IBTICK_POLL_IRQ : p < 50 ? IBTICK_POLL_BUSY :
				  p < 75 ? 2 + rn(r, 3) : (uint32_t)rnd(r);
			pm.cpu = pct(r, 85) ? PICK(r, cpus) : (int32_t)rnd(r);
			if (pm.cpu >= 0 && pm.cpu < 4096 && pct(r, 50))
				pm.cpu = (int32_t)rn(r, (uint32_t)ncpu);
			memcpy(optbuf, &pm, sizeof(pm));
			return sizeof(pm);
		}
		case IBTICK_COMP_VECTOR: {
			static const int cv[] = { 0, 0, 1, 2, 100, -1, INT_MAX };

			return opt_int(PICK(r, cv));
		}
		case IBTICK_ADD_FEED:
		case IBTICK_DROP_FEED: {
			socklen_t l = build_ibt_addr(r);

			memcpy(optbuf, addrbuf, sizeof(addrbuf));
			return l;
		}
		case IBTICK_MEMBER_CURSOR: {
			static const int64_t delta[] = { -5000, -64, -1, 0, 0, 1, 1000 };
			struct ibtick_member mem[4];
			struct ibtick_member_cursor mc = { 0 };
			socklen_t ml = sizeof(mem);

			/* one of the socket's feeds, near its cursor, mostly */
			if (getsockopt(fd, SOL_IBTICK, IBTICK_FEEDS, mem, &ml) == 0 &&
			    ml >= sizeof(mem[0]) && pct(r, 85)) {
				unsigned int i = rn(r, ml / sizeof(mem[0]));

				mc.feed_id = mem[i].feed_id;
				mc.cursor = mem[i].cursor + (uint64_t)PICK(r, delta);
			} else {
				mc.feed_id = pct(r, 50) ? rn(r, 64) : (uint32_t)rnd(r);
				mc.cursor = rnd(r);
			}
			if (pct(r, 3))
				mc.reserved = 1;
			memcpy(optbuf, &mc, sizeof(mc));
			return sizeof(mc);
		}
		default:
			return opt_int(pick_int(r));
		}
	}
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			static const long us[] = { 0, 1, 1000, 999999, 1000000, -1 };
			struct timeval tv;

			tv.tv_sec = pct(r, 80) ? (time_t)rn(r, 3) : (time_t)rnd(r);
			tv.tv_usec = pct(r, 80) ? PICK(r, us) : (long)rnd(r);
			memcpy(optbuf, &tv, sizeof(tv));
			return sizeof(tv);
		}
		case SO_BINDTODEVICE: {
			static const char *const names[] = { "lo", "", "veth1", "nosuchdev0" };
			const char *n = nif && pct(r, 40) ? ifnames[rn(r, (uint32_t)nif)] : PICK(r, names);

			memset(optbuf, 0, IFNAMSIZ);
			if (pct(r, 90))
				memcpy(optbuf, n, strlen(n));
			return pct(r, 50) ? (socklen_t)strlen((char *)optbuf) + 1 : IFNAMSIZ;
		}
		case SO_LINGER: {
			struct linger l = { (int)rn(r, 2), (int)rn(r, 3) };

			memcpy(optbuf, &l, sizeof(l));
			return sizeof(l);
		}
		case SO_ATTACH_FILTER: {
			struct sock_filter *ins = (void *)(optbuf + 64);
			struct sock_fprog fp;
			unsigned int i, n = rn(r, 5);

			for (i = 0; i < n; i++) {
				ins[i].code = pct(r, 60) ? BPF_RET | BPF_K : (uint16_t)rnd(r);
				ins[i].jt = 0;
				ins[i].jf = 0;
				ins[i].k = pct(r, 50) ? 0xffff : (uint32_t)rnd(r);
			}
			fp.len = (unsigned short)(pct(r, 85) ? n : rnd(r));
			fp.filter = pct(r, 85) ? ins : (struct sock_filter *)16;
			memcpy(optbuf, &fp, sizeof(fp));
			return sizeof(fp);
		}
		case SO_BUSY_POLL: {
			static const int bp[] = { 0, 1, 50, 200, 1000, -1 };

			return opt_int(pct(r, 90) ? PICK(r, bp) : (int)rnd(r));
		}
		default:
			return opt_int(pick_int(r));
		}
	}
	if (level == SOL_NETLINK)
		return opt_int(name == NETLINK_ADD_MEMBERSHIP ||
			       name == NETLINK_DROP_MEMBERSHIP ?
			       (pct(r, 80) ? (int)rn(r, 40) : (int)rnd(r)) :
			       (int)rn(r, 2));
	return 4;
}

static socklen_t odd_len(struct rng *r, socklen_t natural)
{
	static const socklen_t lens[] = { 0, 1, 2, 3, 4, 7, 8, 9, 12, 16, 24, 32, 48,
					  64, 72, 80, 96, 272, 280, 288, 300 };

	if (pct(r, 75))
		return natural;
	if (pct(r, 85))
		return pct(r, 60) ? PICK(r, lens) : rn(r, 301);
	return pct(r, 50) ? (socklen_t)-1 : (socklen_t)INT_MAX;
}

/* ---- the operations ----------------------------------------------------- */

void op_socket(struct op *o)
{
	static const int types[] = { SOCK_STREAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_RDM,
				     10 /* SOCK_PACKET */, 0, 11 };
	static const int protos[] = { 1, 6, 17, 255, -1, 0x10000 };
	struct rng *r = &o->r;
	int type = SOCK_DGRAM, proto = 0, flags = 0, fd, i;

	if (pct(r, 20))
		flags |= SOCK_NONBLOCK;
	if (pct(r, 20))
		flags |= SOCK_CLOEXEC;
	if (pct(r, 12)) {
		/* a connection socket, non-blocking (see FK_CONN) */
		type = SOCK_SEQPACKET | SOCK_NONBLOCK;
		flags = 0;
	} else if (!pct(r, 80)) {
		switch (rn(r, 4)) {
		case 0:
			type = PICK(r, types);
			break;
		case 1:
			proto = PICK(r, protos);
			break;
		case 2:
			type = (int)rnd(r);
			flags = 0;
			break;
		default:
			type = PICK(r, types);
			proto = PICK(r, protos);
			break;
		}
	}
	type |= flags;
	i = free_slot(r, -1);
	note("socket(%d, %#x, %d)", fam, (unsigned int)type, proto);
	errno = 0;
	fd = socket(fam, type, proto);
	rec(o, fd);
	if (fd < 0)
		return;
	/*
	 * A connection socket: kept non-blocking, so that no connect,
	 * accept or send waits on another worker (or on a timeout the
	 * fuzzer set to hours); the socket calls pick it as FK_CONN.
	 */
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_SEQPACKET && !proto) {
		if (!(type & SOCK_NONBLOCK) &&
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
			close(fd);
			return;
		}
		slots[i].fd = fd;
		slots[i].kind = FK_CONN;
		return;
	}
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_DGRAM || proto)
		anomaly("socket(AF_IBTICK, %#x, %d) succeeded (ESOCKTNOSUPPORT/EPROTONOSUPPORT expected)",
			(unsigned int)type, proto);
	slots[i].fd = fd;
	slots[i].kind = FK_IBT;
}

void op_genl_socket(struct op *o)
{
	struct rng *r = &o->r;
	int i, fd, v = 1, type = pct(r, 85) ? SOCK_RAW : SOCK_DGRAM;

	if (pct(r, 30))
		type |= SOCK_NONBLOCK;
	i = free_slot(r, -1);
	note("socket(AF_NETLINK, %#x, NETLINK_GENERIC)", (unsigned int)type);
	errno = 0;
	fd = socket(AF_NETLINK, type | SOCK_CLOEXEC, NETLINK_GENERIC);
	rec_as(o, K_GENL_SOCKET, fd, errno);
	if (fd < 0)
		return;
	if (pct(r, 50))
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, sizeof(v));
	if (pct(r, 30))
		setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &v, sizeof(v));
	if (pct(r, 20))
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &v, sizeof(v));
	slots[i].fd = fd;
	slots[i].kind = FK_GENL;
}

void op_epoll_create(struct op *o)
{
	struct rng *r = &o->r;
	int i, fd, flags = pct(r, 90) ? (pct(r, 50) ? EPOLL_CLOEXEC : 0) : (int)rnd(r);

	i = free_slot(r, -1);
	note("epoll_create1(%#x)", (unsigned int)flags);
	errno = 0;
	fd = epoll_create1(flags);
	rec(o, fd);
	if (fd < 0)
		return;
	slots[i].fd = fd;
	slots[i].kind = FK_EPOLL;
}

void op_close(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_NONE), fd;

	if (i < 0 || pct(r, 4)) {
		fd = pct(r, 50) ? -1 : 1023;
		note("close(%d)", fd);
		errno = 0;
		rec(o, close(fd));
		return;
	}
	note("close(%d) kind %d", slots[i].fd, slots[i].kind);
	errno = 0;
	rec(o, close(slots[i].fd));
	slots[i].fd = -1;
	slots[i].kind = FK_NONE;
}

void op_dup(struct op *o)
{
	struct rng *r = &o->r;
	int s = pick_slot(r, FK_NONE), d, fd;

	if (s < 0) {
		skip(o);
		return;
	}
	switch (rn(r, 5)) {
	case 0:
	case 1:
		d = free_slot(r, s);
		note("dup(%d)", slots[s].fd);
		errno = 0;
		fd = pct(r, 70) ? dup(slots[s].fd) :
		     fcntl(slots[s].fd, F_DUPFD_CLOEXEC, 100 + (int)rn(r, 50));
		rec(o, fd);
		if (fd >= 0) {
			slots[d].fd = fd;
			slots[d].kind = slots[s].kind;
		}
		break;
	case 2:
	case 3:
		d = pick_slot(r, FK_NONE);
		note("dup2/3(%d, %d)", slots[s].fd, slots[d].fd);
		errno = 0;
		fd = pct(r, 60) ? dup2(slots[s].fd, slots[d].fd) :
		     dup3(slots[s].fd, slots[d].fd, pct(r, 80) ? O_CLOEXEC : (int)rnd(r));
		rec(o, fd);
		if (fd >= 0)
			slots[d].kind = slots[s].kind;
		break;
	default:
		note("dup2(%d, -1)", slots[s].fd);
		errno = 0;
		rec(o, dup2(slots[s].fd, -1));
		break;
	}
}

void op_bind_connect(struct op *o, bool is_connect)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	socklen_t len;
	void *ptr;

	if (p.kind == FK_GENL)
		len = build_nl_addr(r, !is_connect);
	else
		len = build_ibt_addr(r);
	if (p.kind == FK_GENL)
		/* never a netlink address read out of other bytes: pid 0 only */
		ptr = pct(r, 90) ? (void *)addrbuf : pct(r, 50) ? NULL : (void *)hole;
	else
		ptr = in_ptr(r, addrbuf, len > sizeof(addrbuf) ? sizeof(addrbuf) : len);
	{
		const struct sockaddr_ibtick *sa = (const void *)addrbuf;
		uint32_t g;

		memcpy(&g, sa->sibt_group, 4);
		note("%s(fd %d kind %d, len %u, fam %u port %u if %u flags %#x gfam %u grp %08x)",
		     is_connect ? "connect" : "bind", p.fd, p.kind, len,
		     sa->sibt_family, sa->sibt_port, sa->sibt_ifindex, sa->sibt_flags,
		     sa->sibt_group_family, ntohl(g));
	}
	errno = 0;
	if (is_connect)
		rec(o, connect(p.fd, ptr, len));
	else
		rec(o, bind(p.fd, ptr, len));
}

void op_setsockopt(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	int level = pick_level(r, p.kind), name = pick_optname(r, level);
	socklen_t natural, len;
	void *ptr;

	natural = build_optval(r, p.fd, level, name);
	len = odd_len(r, natural);
	ptr = in_ptr(r, optbuf, len < sizeof(optbuf) ? len : sizeof(optbuf));
	note("setsockopt(fd %d kind %d, level %d, opt %d, len %u)", p.fd, p.kind,
	     level, name, len);
	errno = 0;
	rec(o, setsockopt(p.fd, level, name, ptr, len));
}

static socklen_t natural_get_len(int level, int name)
{
	if (level == SOL_IBTICK) {
		switch (name) {
		case IBTICK_RING_INFO:
			return sizeof(struct ibtick_ring_info);
		case IBTICK_STATISTICS:
			return sizeof(struct ibtick_stats);
		case IBTICK_RING_CURSOR:
		case IBTICK_POLL_MODE:
		case IBTICK_RING_GEOMETRY:
			return 8;
		case IBTICK_FEEDS:
			return 3 * sizeof(struct ibtick_member);
		case IBTICK_ARB_STATISTICS:
			return sizeof(struct ibtick_arb_stats);
		case IBTICK_CONN_INFO:
			return sizeof(struct ibtick_conn_info);
		default:
			return 4;
		}
	}
	if (level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO))
		return sizeof(struct timeval);
	if (level == SOL_SOCKET && name == SO_BINDTODEVICE)
		return IFNAMSIZ;
	return 4;
}

void op_getsockopt(struct op *o)
{
	static const int negs[] = { -1, -100, INT_MIN };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	int level = pick_level(r, p.kind), name = pick_optname(r, level);
	static int optlen;
	void *val, *lenp = &optlen;
	unsigned int q;

	optlen = (int)odd_len(r, natural_get_len(level, name));
	if (optlen < 0 || optlen > 1024)
		optlen = pct(r, 50) ? PICK(r, negs) : (int)rn(r, 1025);
	val = out_ptr(r, optbuf, (size_t)(optlen > 0 ? optlen : 1));
	/* IBTICK_ARB_STATISTICS reads a feed id first: often bind()'s (0) */
	if (level == SOL_IBTICK && name == IBTICK_ARB_STATISTICS &&
	    val == (void *)optbuf && pct(r, 50))
		memset(optbuf, 0, 4);
	if (!pct(r, 88)) {
		q = rn(r, 4);
		lenp = q == 0 ? NULL : q == 1 ? (void *)hole : q == 2 ? (void *)ro_page :
		       (void *)(~(uintptr_t)0 - 4095);
	}
	note("getsockopt(fd %d kind %d, level %d, opt %d, len %d)", p.fd, p.kind,
	     level, name, optlen);
	errno = 0;
	rec(o, getsockopt(p.fd, level, name, val, lenp));
}

/* Payload buffer kinds for the kernel to read from. */
static void *send_base(struct rng *r, size_t len)
{
	if (pct(r, 88))
		return sbuf + rn(r, 64);
	return in_ptr(r, sbuf, len < sizeof(sbuf) ? len : 1);
}

static size_t payload_len(struct rng *r)
{
	static const size_t lens[] = { 0, 1, 32, 900, 992, 993, 1000, 1500, 4096,
				       8192, 65535, 65536, 69000 };

	return pct(r, 70) ? rn(r, 993) : PICK(r, lens);
}

static int send_flags(struct rng *r)
{
	static const int extra[] = { MSG_NOSIGNAL, MSG_EOR, MSG_MORE, MSG_OOB,
				     MSG_CONFIRM, MSG_ZEROCOPY, MSG_FASTOPEN, MSG_PROBE_,
				     MSG_TRUNC, MSG_CMSG_CLOEXEC, MSG_ERRQUEUE };
	int f = MSG_DONTWAIT;
	unsigned int k;

	for (k = 0; k < 2; k++)
		if (pct(r, 15))
			f |= PICK(r, extra);
	if (pct(r, 3))
		f |= (int)(1U << rn(r, 31));
	return f | MSG_DONTWAIT;
}

void op_sendmsg(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	struct msghdr mh;
	struct mmsghdr mm[2];
	unsigned int i, n, cnt;
	long ret;
	size_t len;

	if (p.kind == FK_GENL) {
		/* nothing random goes to netlink: only requests for our family */
		genl_send(o, p.fd, o->kind);
		return;
	}
	fill(r, sbuf, 2048);
	if (pct(r, 35)) {
		/* a burst of ticks: the data path and a full send queue */
		n = 1 + rn(r, 32);
		note("send burst of %u on fd %d kind %d", n, p.fd, p.kind);
		for (i = 0; i < n; i++) {
			len = pct(r, 90) ? rn(r, 993) : payload_len(r);
			errno = 0;
			ret = send(p.fd, sbuf, len, MSG_DONTWAIT | (pct(r, 20) ? MSG_NOSIGNAL : 0));
			if (i == 0 && ret < 0 && errno == EDESTADDRREQ && pct(r, 40)) {
				socklen_t al = build_ibt_addr(r);

				errno = 0;
				ret = sendto(p.fd, sbuf, len, MSG_DONTWAIT, (void *)addrbuf, al);
			}
			rec(o, ret);
			if (ret < 0 && errno != EAGAIN)
				break;
		}
		return;
	}
	memset(&mh, 0, sizeof(mh));
	switch (rn(r, 10)) {
	case 0: case 1:
		mh.msg_namelen = build_ibt_addr(r);
		mh.msg_name = in_ptr(r, addrbuf, mh.msg_namelen < 64 ? mh.msg_namelen : 64);
		break;
	case 2:
		fill(r, addrbuf, 128);
		mh.msg_name = addrbuf;
		mh.msg_namelen = rn(r, 129);
		break;
	default:
		break;
	}
	cnt = pct(r, 65) ? 1 : pct(r, 90) ? rn(r, 5) : (pct(r, 50) ? 1025 : 0x10000);
	for (i = 0; i < cnt && i < 8; i++) {
		len = pct(r, 97) ? payload_len(r) : (size_t)SSIZE_MAX;
		iovs[i].iov_len = len;
		iovs[i].iov_base = send_base(r, len);
	}
	mh.msg_iov = pct(r, 97) ? iovs : (struct iovec *)hole;
	mh.msg_iovlen = cnt;
	if (pct(r, 20)) {
		fill(r, ctlbuf, 512);
		mh.msg_controllen = pct(r, 80) ? rn(r, 512) : (size_t)INT_MAX + 1;
		mh.msg_control = in_ptr(r, ctlbuf, mh.msg_controllen < 512 ? mh.msg_controllen : 512);
	}
	note("sendmsg(fd %d kind %d, name %p/%u, iov %u, ctl %zu)", p.fd, p.kind,
	     mh.msg_name, mh.msg_namelen, cnt, (size_t)mh.msg_controllen);
	errno = 0;
	if (pct(r, 10)) {
		mm[0].msg_hdr = mh;
		mm[1].msg_hdr = mh;
		mm[0].msg_len = mm[1].msg_len = 0;
		rec(o, sendmmsg(p.fd, mm, 2, (unsigned int)send_flags(r)));
	} else {
		rec(o, sendmsg(p.fd, &mh, send_flags(r)));
	}
	for (i = 0; i < NIOV && i < 8; i++)
		iovs[i].iov_base = NULL, iovs[i].iov_len = 0;
}

/* Receive iovecs: every base in the first 64 KiB of rbuf (256 KiB), so that
 * whatever length they claim, the at most 64 KiB a datagram brings stays in it.
 */
static unsigned int recv_iov(struct rng *r)
{
	static const size_t lens[] = { 0, 1, 8, 47, 48, 200, 992, 4096, 8144, 65536,
				       1UL << 20, (size_t)SSIZE_MAX };
	unsigned int cnt = pct(r, 65) ? 1 : pct(r, 90) ? rn(r, 5) : 1025, i;

	for (i = 0; i < cnt && i < 8; i++) {
		iovs[i].iov_len = pct(r, 60) ? 65536 : PICK(r, lens);
		iovs[i].iov_base = pct(r, 92) ? rbuf + rn(r, RBASE_MAX) :
				   out_ptr(r, rbuf, iovs[i].iov_len < 4096 ? iovs[i].iov_len : 4096);
	}
	return cnt;
}

static void recv_ctl(struct rng *r, struct msghdr *mh)
{
	static const size_t sizes[] = { 1, 8, 15, 16, 24, 31 };
	size_t n;

	switch (rn(r, 10)) {
	case 0: case 1: case 2: case 3:
		return;
	case 4:
		n = PICK(r, sizes);			/* too small for anything */
		break;
	case 5:
		n = CMSG_SPACE(sizeof(uint64_t));	/* just one cmsg */
		break;
	case 6:
		n = CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(struct ibtick_tick_info)) +
		    CMSG_SPACE(16);
		break;
	case 7:
		n = 4096;
		break;
	default:
		n = 64 + rn(r, 256);
		mh->msg_control = out_ptr(r, ctlbuf, n);
		mh->msg_controllen = n;
		return;
	}
	mh->msg_control = ctlbuf;
	mh->msg_controllen = n;
}

static int recv_flags(struct rng *r)
{
	static const int extra[] = { MSG_TRUNC, MSG_TRUNC, MSG_CMSG_CLOEXEC, MSG_PEEK,
				     MSG_WAITALL, MSG_ERRQUEUE, MSG_OOB, MSG_NOSIGNAL };
	int f = MSG_DONTWAIT;

	if (pct(r, 30))
		f |= PICK(r, extra);
	if (pct(r, 3))
		f |= (int)(1U << rn(r, 31));
	return f | MSG_DONTWAIT;	/* never block */
}

void op_recvmsg(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	static const socklen_t nlens[] = { 32, 32, 0, 8, 31, 128, 200, (socklen_t)-1 };
	struct msghdr mh;
	struct mmsghdr mm[3];
	struct timespec zero = { 0, 0 };
	unsigned int i, vlen;
	int flags;

	memset(&mh, 0, sizeof(mh));
	if (pct(r, 50)) {
		mh.msg_namelen = PICK(r, nlens);
		mh.msg_name = out_ptr(r, addrbuf, 32);
	}
	mh.msg_iovlen = recv_iov(r);
	mh.msg_iov = pct(r, 97) ? iovs : (struct iovec *)hole;
	recv_ctl(r, &mh);
	flags = recv_flags(r);
	note("recvmsg(fd %d kind %d, name %p/%d, iov %zu, ctl %p/%zu, flags %#x)",
	     p.fd, p.kind, mh.msg_name, (int)mh.msg_namelen, (size_t)mh.msg_iovlen,
	     mh.msg_control, (size_t)mh.msg_controllen, (unsigned int)flags);
	errno = 0;
	if (pct(r, 8)) {
		vlen = 1 + rn(r, 3);
		for (i = 0; i < vlen; i++) {
			mm[i].msg_hdr = mh;
			mm[i].msg_len = 0;
		}
		if (pct(r, 30))
			flags |= MSG_WAITFORONE;
		rec(o, recvmmsg(p.fd, mm, vlen, flags, pct(r, 50) ? &zero : NULL));
	} else {
		rec(o, recvmsg(p.fd, &mh, flags));
	}
	for (i = 0; i < 8; i++)
		iovs[i].iov_base = NULL, iovs[i].iov_len = 0;
}

/* Up to three of @bits or'ed together; now and then any value at all. */
static uint32_t pick_bits(struct rng *r, const uint32_t *bits, uint32_t n)
{
	uint32_t e = 0;
	unsigned int k;

	for (k = 0; k < 3; k++)
		if (pct(r, 50))
			e |= bits[rn(r, n)];
	return pct(r, 95) ? e : (uint32_t)rnd(r);
}

static short poll_events(struct rng *r)
{
	static const uint32_t ev[] = { POLLIN, POLLOUT, POLLPRI, POLLERR, POLLHUP,
				       POLLRDNORM, POLLWRNORM, POLLRDHUP, POLLNVAL };

	return (short)pick_bits(r, ev, sizeof(ev) / sizeof(ev[0]));
}

void op_poll(struct op *o)
{
	struct rng *r = &o->r;
	struct timespec zero = { 0, 0 };
	unsigned int n = 1 + rn(r, 8), i;
	nfds_t nfds = n;

	for (i = 0; i < n; i++) {
		pfds[i].fd = pick_fd(r, FK_IBT).fd;
		pfds[i].events = poll_events(r);
		pfds[i].revents = 0;
	}
	if (pct(r, 3))
		nfds = pct(r, 50) ? NPOLL : (nfds_t)-1;	/* all ours, or EINVAL */
	note("poll(%lu fds, timeout 0)", (unsigned long)nfds);
	errno = 0;
	switch (rn(r, 10)) {
	case 0:
		rec(o, poll((struct pollfd *)hole, n, 0));
		break;
	case 1: case 2:
		rec(o, ppoll(pfds, nfds, &zero, NULL));
		break;
	default:
		rec(o, poll(pfds, nfds, 0));
		break;
	}
}

static uint32_t ep_events(struct rng *r)
{
	static const uint32_t ev[] = { EPOLLIN, EPOLLOUT, EPOLLPRI, EPOLLERR, EPOLLHUP,
				       EPOLLRDHUP, EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE,
				       EPOLLWAKEUP, EPOLLRDNORM, EPOLLWRNORM };

	return pick_bits(r, ev, sizeof(ev) / sizeof(ev[0]));
}

void op_epoll_ctl(struct op *o)
{
	static const int ops[] = { EPOLL_CTL_ADD, EPOLL_CTL_ADD, EPOLL_CTL_MOD,
				   EPOLL_CTL_DEL, 0, 4 };
	struct rng *r = &o->r;
	struct pick ep = pick_fd(r, FK_EPOLL), t = pick_fd(r, FK_IBT);
	struct epoll_event ev;
	int op = PICK(r, ops);
	void *evp = &ev;

	ev.events = ep_events(r);
	ev.data.u64 = rnd(r);
	if (!pct(r, 92))
		evp = pct(r, 50) ? NULL : (void *)hole;
	note("epoll_ctl(%d kind %d, %d, %d kind %d, %#x)", ep.fd, ep.kind, op, t.fd,
	     t.kind, ev.events);
	errno = 0;
	rec(o, epoll_ctl(ep.fd, op, t.fd, evp));
}

void op_epoll_wait(struct op *o)
{
	static const int maxev[] = { 1, 8, NEPEV, 0, -1, INT_MAX };
	struct rng *r = &o->r;
	struct pick ep = pick_fd(r, FK_EPOLL);
	int max = pct(r, 70) ? 1 + (int)rn(r, 64) : PICK(r, maxev);
	void *evs = pct(r, 92) ? (void *)epev : pct(r, 50) ? (void *)ro_page : (void *)hole;

	note("epoll_wait(%d kind %d, max %d, timeout 0)", ep.fd, ep.kind, max);
	errno = 0;
	if (pct(r, 20))
		rec(o, epoll_pwait(ep.fd, evs, max, 0, NULL));
	else
		rec(o, epoll_wait(ep.fd, evs, max, 0));
}

/* ---- the rest of the socket API ---------------------------------------- */

void op_misc(struct op *o)
{
	static const unsigned long ioctls[] = { FIONREAD, TIOCOUTQ, SIOCGSTAMP_OLD_,
						SIOCGSTAMPNS_OLD_, SIOCPROTOPRIVATE_,
						SIOCPROTOPRIVATE_ + 15 };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	static socklen_t alen;
	int sv[2], fd, v, which = (int)rn(r, 12);
	unsigned long cmd;
	struct stat st;
	void *lenp = &alen;

	alen = PICK(r, ((const socklen_t[]){ 32, 32, 0, 8, 128, (socklen_t)-1 }));
	if (!pct(r, 90))
		lenp = pct(r, 50) ? NULL : (void *)ro_page;
	errno = 0;
	switch (which) {
	case 0:
		note("getsockname(fd %d kind %d, len %d)", p.fd, p.kind, (int)alen);
		rec(o, getsockname(p.fd, out_ptr(r, addrbuf, 32), lenp));
		break;
	case 1:
		note("getpeername(fd %d kind %d, len %d)", p.fd, p.kind, (int)alen);
		rec(o, getpeername(p.fd, out_ptr(r, addrbuf, 32), lenp));
		break;
	case 2:
		note("listen(fd %d kind %d)", p.fd, p.kind);
		rec(o, listen(p.fd, (int)rn(r, 10)));
		break;
	case 3:
		note("accept4(fd %d kind %d)", p.fd, p.kind);
		fd = accept4(p.fd, pct(r, 50) ? (struct sockaddr *)addrbuf : NULL,
			     pct(r, 50) ? lenp : NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		rec(o, fd);
		if (fd >= 0) {
			if (p.kind == FK_IBT)
				anomaly("accept on an AF_IBTICK socket succeeded (EOPNOTSUPP expected)");
			close(fd);
		}
		break;
	case 4:
		note("shutdown(fd %d kind %d)", p.fd, p.kind);
		rec(o, shutdown(p.fd, pct(r, 90) ? (int)rn(r, 3) : (int)rnd(r)));
		break;
	case 5:
		note("socketpair(%d, SOCK_DGRAM, 0)", fam);
		v = socketpair(fam, SOCK_DGRAM, 0, sv);
		rec(o, v);
		if (!v) {
			anomaly("socketpair(AF_IBTICK) succeeded (EOPNOTSUPP expected)");
			close(sv[0]);
			close(sv[1]);
		}
		break;
	case 6:
	case 7:
		/* only ioctls that read or fail: never an interface change */
		cmd = pct(r, 80) ? PICK(r, ioctls) :
		      (0xEEUL << 8) | rn(r, 256) | ((unsigned long)rn(r, 4) << 30) |
		      ((unsigned long)rn(r, 64) << 16);
		note("ioctl(fd %d kind %d, %#lx)", p.fd, p.kind, cmd);
		rec(o, ioctl(p.fd, cmd, out_ptr(r, optbuf, 64)));
		break;
	case 8:
		note("fcntl(fd %d, F_GETFL)", p.fd);
		rec(o, fcntl(p.fd, F_GETFL));
		break;
	case 9:
		v = fcntl(p.fd, F_GETFL);
		if (p.kind == FK_CONN) {
			/* connection sockets stay non-blocking (op_socket) */
			note("fcntl(fd %d): a connection socket stays non-blocking", p.fd);
			rec(o, fcntl(p.fd, F_GETFL));
			break;
		}
		note("fcntl(fd %d, F_SETFL, %#x ^ O_NONBLOCK)", p.fd, (unsigned int)v);
		rec(o, v < 0 ? v : fcntl(p.fd, F_SETFL, v ^ O_NONBLOCK));
		break;
	case 10:
		note("fstat(fd %d)", p.fd);
		rec(o, fstat(p.fd, &st));
		break;
	default:
		alen = sizeof(v);
		note("getsockopt(fd %d, SO_DOMAIN)", p.fd);
		rec(o, getsockopt(p.fd, SOL_SOCKET, SO_DOMAIN, &v, &alen));
		break;
	}
}

/*
 * Waits, each bounded by this operation itself (1..5 ms): recvmsg without
 * MSG_DONTWAIT after SO_RCVTIMEO and SO_BUSY_POLL were set and read back
 * here (ibt_wait, the SO_BUSY_POLL caller drain), poll and epoll_wait with
 * a timeout.  Off with -D.
 */
void op_timed_wait(struct op *o)
{
	struct rng *r = &o->r;
	int i, bp = (int)rn(r, 200), ms = 1 + (int)rn(r, 5), got_bp = -1;
	struct timeval tv = { 0, 1000 * ms }, tvr = { 0, 0 };
	socklen_t l;
	struct msghdr mh;
	struct pick p;
	unsigned int n, k;

	switch (rn(r, 3)) {
	case 0:
		i = pick_slot(r, FK_IBT);
		if (i < 0 || slots[i].kind != FK_IBT) {
			skip(o);
			return;
		}
		l = sizeof(tvr);
		if (setsockopt(slots[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
		    getsockopt(slots[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tvr, &l) ||
		    tvr.tv_sec || tvr.tv_usec <= 0 || tvr.tv_usec > 10000) {
			skip(o);
			return;
		}
		setsockopt(slots[i].fd, SOL_SOCKET, SO_BUSY_POLL, &bp, sizeof(bp));
		l = sizeof(got_bp);
		if (getsockopt(slots[i].fd, SOL_SOCKET, SO_BUSY_POLL, &got_bp, &l) ||
		    got_bp < 0 || got_bp > 1000) {
			skip(o);
			return;
		}
		memset(&mh, 0, sizeof(mh));
		iovs[0].iov_base = rbuf;
		iovs[0].iov_len = pct(r, 80) ? 65536 : rn(r, 64);
		mh.msg_iov = iovs;
		mh.msg_iovlen = 1;
		mh.msg_control = ctlbuf;
		mh.msg_controllen = pct(r, 70) ? 256 : rn(r, 32);
		note("recvmsg(fd %d) blocking: SO_RCVTIMEO %ld us, SO_BUSY_POLL %d us",
		     slots[i].fd, (long)tvr.tv_usec, got_bp);
		errno = 0;
		rec(o, recvmsg(slots[i].fd, &mh, pct(r, 30) ? MSG_TRUNC : 0));
		break;
	case 1:
		n = 1 + rn(r, 4);
		for (k = 0; k < n; k++) {
			p = pick_fd(r, FK_IBT);
			pfds[k].fd = p.fd;
			pfds[k].events = POLLIN | POLLOUT;
			pfds[k].revents = 0;
		}
		note("poll(%u fds, %d ms)", n, ms);
		errno = 0;
		rec(o, poll(pfds, n, ms));
		break;
	default:
		p = pick_fd(r, FK_EPOLL);
		note("epoll_wait(%d kind %d, %d ms)", p.fd, p.kind, ms);
		errno = 0;
		rec(o, epoll_wait(p.fd, epev, NEPEV, ms));
		break;
	}
}
