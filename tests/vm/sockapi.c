// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_IBTICK socket API against the real module, in the bench guest:
 * every bad address, option and flag with its errno, then MSG_TRUNC,
 * poll/epoll wake-ups, timestamps, names and ring geometry on a live feed.
 *
 *   sockapi table   SUB_IF PUB_IF     run the table (publisher on PUB_IF,
 *                                     subscriber on SUB_IF)
 *   sockapi wait-dead IF              bind on IF, block in recvmsg; expect
 *                                     ENODEV and POLLERR|POLLHUP when the
 *                                     device goes (the script deletes it)
 *   sockapi hold                      keep one socket open until killed
 *   sockapi flap SUB_IF PUB_IF        a feed across a port flap: ticks flow,
 *                                     SIGUSR1 (port down) -> send ENETDOWN,
 *                                     SIGUSR1 (port up) -> ticks flow again
 *
 * Prints "ok"/"not ok" per check and "N passed, N failed".
 */
#include <errno.h>
#include <signal.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmcheck.h"

#define GROUP	"239.1.9.9"

/* A feed of this program's group. */
static struct sockaddr_ibtick addr(const char *ifname, int port)
{
	return vm_addr(GROUP, ifname, port);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void table_create(void)
{
	EXPECT_ERR(socket(vm_fam, SOCK_STREAM, 0), ESOCKTNOSUPPORT, "socket(SOCK_STREAM) -> ESOCKTNOSUPPORT");
	{
		int fd = socket(vm_fam, SOCK_SEQPACKET, 0);

		check(fd >= 0, "socket(SOCK_SEQPACKET) -> a connection socket", errno);
		if (fd >= 0)
			close(fd);
	}
	EXPECT_ERR(socket(vm_fam, SOCK_SEQPACKET, 6), EPROTONOSUPPORT, "socket(SOCK_SEQPACKET, protocol 6) -> EPROTONOSUPPORT");
	EXPECT_ERR(socket(vm_fam, SOCK_DGRAM, 17), EPROTONOSUPPORT, "socket(protocol 17) -> EPROTONOSUPPORT");
	{
		int fd = sock();

		EXPECT_ERR(listen(fd, 1), EOPNOTSUPP, "listen -> EOPNOTSUPP");
		EXPECT_ERR(accept(fd, NULL, NULL), EOPNOTSUPP, "accept -> EOPNOTSUPP");
		EXPECT_ERR(shutdown(fd, SHUT_RD), EOPNOTSUPP, "shutdown -> EOPNOTSUPP");
		errno = 0;
		check(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
		      errno == EINVAL, "mmap unbound -> EINVAL (ring.sh has the rest)",
		      errno);
		close(fd);
	}
}

static void table_bind(const char *sub_if)
{
	struct sockaddr_ibtick sa;
	int fd = sock(), fd2;

	sa = addr(sub_if, 7100);
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa) - 1), EINVAL, "bind: short sockaddr -> EINVAL");
	EXPECT_ERR(bind(fd, (void *)&sa, 2), EINVAL, "bind: 2-byte sockaddr -> EINVAL");
	EXPECT_ERR(bind(fd, (void *)0x10, sizeof(sa)), EFAULT, "bind: bad pointer -> EFAULT");
	sa.sibt_family = AF_INET;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EAFNOSUPPORT, "bind: wrong sibt_family -> EAFNOSUPPORT");
	sa = addr(sub_if, 7100);
	sa.sibt_group_family = AF_INET6;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EAFNOSUPPORT, "bind: AF_INET6 group (reserved) -> EAFNOSUPPORT");
	sa = addr(sub_if, 7100);
	sa.sibt_group[0] = 10;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: unicast group -> EINVAL");
	sa = addr(sub_if, 7100);
	sa.sibt_group[1] = 0; sa.sibt_group[0] = 224; sa.sibt_group[2] = 0;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: 224.0.0.x -> EINVAL");
	sa = addr(sub_if, 7100);
	sa.sibt_port = 0;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: feed port 0 -> EINVAL");
	sa = addr(sub_if, 7100);
	sa.sibt_flags = 4;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: unknown flag -> EINVAL");
	sa = addr(sub_if, 7100);
	sa.sibt_reserved = 1;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: reserved != 0 -> EINVAL");
	sa = addr(sub_if, 7100);
	sa.sibt_group[9] = 1;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: bytes after the IPv4 group -> EINVAL");
	sa = addr("lo", 7100);
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), ENODEV, "bind: netdev without RDMA (lo) -> ENODEV");
	sa = addr(sub_if, 7100);
	sa.sibt_ifindex = 999999;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), ENODEV, "bind: no such ifindex -> ENODEV");
	sa = addr(NULL, 7100);
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EADDRNOTAVAIL,
		   "bind: no netdev named, two active ports -> EADDRNOTAVAIL");
	sa = addr(sub_if, 7100);
	EXPECT_OK(bind(fd, (void *)&sa, sizeof(sa)), "bind: good address");
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: twice -> EINVAL");
	/* a second socket on the same feed shares it */
	fd2 = sock();
	EXPECT_OK(bind(fd2, (void *)&sa, sizeof(sa)), "bind: second socket, same feed");
	close(fd2);
	close(fd);
}

static void table_sockopt(const char *sub_if)
{
	struct ibtick_ring_geometry g = { 100, 256 };
	struct sockaddr_ibtick sa = addr(sub_if, 7101);
	struct ibtick_ring_info ri;
	struct ibtick_stats st;
	socklen_t len;
	int fd = sock(), v = 1;

	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), EINVAL,
		   "RING_GEOMETRY: 100 slots -> EINVAL");
	g.nslots = 4096; g.slot_size = 200;
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), EINVAL,
		   "RING_GEOMETRY: slot size 200 -> EINVAL");
	g.nslots = 1U << 20; g.slot_size = 8192;
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), EINVAL,
		   "RING_GEOMETRY: 8 GiB ring -> EINVAL");
	g.nslots = 128; g.slot_size = 128;
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g) - 1), EINVAL,
		   "RING_GEOMETRY: short optlen -> EINVAL");
	{
		/* a newer, longer struct: taken if the part we do not know is zero */
		unsigned char longer[sizeof(g) + 8] = { 0 };

		memcpy(longer, &g, sizeof(g));
		EXPECT_OK(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, longer, sizeof(longer)),
			  "RING_GEOMETRY: longer, zero-padded -> taken");
		longer[sizeof(g) + 3] = 1;
		EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, longer, sizeof(longer)), E2BIG,
			   "RING_GEOMETRY: longer, not zero past the struct -> E2BIG");
		EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, longer, 8192), EINVAL,
			   "RING_GEOMETRY: longer than a page -> EINVAL");
	}
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, NULL, sizeof(g)), EFAULT,
		   "RING_GEOMETRY: NULL optval -> EFAULT");
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, 99, &v, sizeof(v)), ENOPROTOOPT,
		   "setsockopt: unknown option -> ENOPROTOOPT");
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK + 1, IBTICK_LOOPBACK, &v, sizeof(v)), ENOPROTOOPT,
		   "setsockopt: unknown level -> ENOPROTOOPT");
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_LOOPBACK, &v, 2), EINVAL,
		   "LOOPBACK: 2-byte optlen -> EINVAL");
	len = sizeof(ri);
	EXPECT_ERR(getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len), ENOTCONN,
		   "RING_INFO unbound -> ENOTCONN");
	len = (socklen_t)-1;
	EXPECT_ERR(getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &len), EINVAL,
		   "STATISTICS: negative optlen -> EINVAL");
	len = 4;
	EXPECT_ERR(getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &len), EINVAL,
		   "STATISTICS: 4 bytes -> EINVAL");
	len = 8;
	EXPECT_OK(getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &len), "STATISTICS: 8 bytes (old binary)");
	check(len == 8, "STATISTICS: 8 bytes returned", 0);
	len = sizeof(st) + 64;
	EXPECT_OK(getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &len), "STATISTICS: longer buffer");
	check(len == sizeof(st), "STATISTICS: truncated to the kernel's size", 0);
	len = sizeof(st);
	EXPECT_ERR(getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, (void *)0x10, &len), EFAULT,
		   "STATISTICS: bad pointer -> EFAULT");

	g.nslots = 128; g.slot_size = 128;
	EXPECT_OK(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), "RING_GEOMETRY: 128 x 128");
	EXPECT_OK(bind(fd, (void *)&sa, sizeof(sa)), "bind with geometry");
	EXPECT_ERR(setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), EISCONN,
		   "RING_GEOMETRY after bind -> EISCONN");
	memset(&ri, 0, sizeof(ri));
	len = sizeof(ri);
	EXPECT_OK(getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len), "RING_INFO bound");
	check(ri.version == IBTICK_RING_VERSION && ri.nslots == 128 && ri.slot_size == 128 &&
	      ri.producer_off == 64 && ri.flags_off == 128 && ri.slots_off == 192 &&
	      ri.ring_size == 192 + 128 * 128 && ri.flags == 0,
	      "RING_INFO: geometry and offsets as set", 0);
	close(fd);
}

/* A blocking recv on @fd that must fail with EAGAIN; how long it took, ms. */
static uint64_t recv_eagain_ms(int fd, void *buf, size_t len, const char *what)
{
	uint64_t t0 = now_ns(), ms;

	EXPECT_ERR(recv(fd, buf, len, 0), EAGAIN, what);
	ms = (now_ns() - t0) / 1000000;
	printf("# recv took %llu ms\n", (unsigned long long)ms);
	return ms;
}

static void table_io(const char *sub_if, const char *pub_if)
{
	struct sockaddr_ibtick sa = addr(sub_if, 7102), pa = addr(pub_if, 7102), ga;
	char buf[2048], big[70000], cbuf[256];
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct timeval tv = { .tv_usec = 200000 };
	struct pollfd p;
	struct iovec iov;
	struct msghdr m;
	socklen_t len;
	uint64_t t0, t1, rx = 0;
	int sub = sock(), pub = sock(), ep, one = 1;
	ssize_t n;

	EXPECT_ERR(recv(sub, buf, sizeof(buf), MSG_DONTWAIT), ENOTCONN, "recv unbound -> ENOTCONN");
	EXPECT_ERR(ioctl(sub, IBTICK_SIOC_LOOK, 0), ENOTCONN, "IBTICK_SIOC_LOOK unbound -> ENOTCONN");
	EXPECT_ERR(send(pub, buf, 10, 0), EDESTADDRREQ, "send unconnected -> EDESTADDRREQ");
	EXPECT_OK(bind(sub, (void *)&sa, sizeof(sa)), "bind subscriber");
	EXPECT_ERR(recv(sub, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "recv empty, MSG_DONTWAIT -> EAGAIN");
	EXPECT_OK(ioctl(sub, IBTICK_SIOC_LOOK, 0), "IBTICK_SIOC_LOOK of a bound socket");
	EXPECT_ERR(ioctl(sub, IBTICK_SIOC_LOOK, 8), EINVAL, "IBTICK_SIOC_LOOK, argument 8 -> EINVAL");
	{
		struct ibtick_wait w = { 0 };

		EXPECT_ERR(ioctl(sub, IBTICK_SIOC_WAIT, &w), EOPNOTSUPP,
			   "IBTICK_SIOC_WAIT of a socket that reads only bind()'s feed -> EOPNOTSUPP");
	}
	EXPECT_ERR(recv(sub, buf, sizeof(buf), MSG_PEEK), EOPNOTSUPP, "recv MSG_PEEK -> EOPNOTSUPP");
	EXPECT_ERR(recv(sub, buf, sizeof(buf), MSG_OOB), EOPNOTSUPP, "recv MSG_OOB -> EOPNOTSUPP");
	setsockopt(sub, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = now_ns();
	EXPECT_ERR(recv(sub, buf, sizeof(buf), 0), EAGAIN, "recv blocking, SO_RCVTIMEO 200 ms -> EAGAIN");
	t1 = now_ns();
	check(t1 - t0 >= 190000000ULL, "SO_RCVTIMEO waited its 200 ms", 0);
	{
		/*
		 * SO_BUSY_POLL 150 ms on top: the spin is part of the 200 ms,
		 * not 150 ms before them (up to 350 ms when the spin runs its
		 * whole time; 100 ms of slack for the emulator)
		 */
		int us = 150000, zero = 0;
		uint64_t ms;

		EXPECT_OK(setsockopt(sub, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)),
			  "SO_BUSY_POLL 150 ms");
		ms = recv_eagain_ms(sub, buf, sizeof(buf),
				    "recv blocking, SO_RCVTIMEO 200 ms, SO_BUSY_POLL 150 ms -> EAGAIN");
		check(ms >= 190 && ms < 300, "the busy spin counts against SO_RCVTIMEO", 0);
		setsockopt(sub, SOL_SOCKET, SO_BUSY_POLL, &zero, sizeof(zero));
	}
	p = (struct pollfd){ .fd = sub, .events = POLLIN };
	check(poll(&p, 1, 0) == 0, "poll: no POLLIN on an empty feed", errno);

	EXPECT_OK(connect(pub, (void *)&pa, sizeof(pa)), "connect publisher");
	EXPECT_ERR(send(pub, buf, 10, MSG_OOB), EOPNOTSUPP, "send MSG_OOB -> EOPNOTSUPP");
	EXPECT_ERR(send(pub, big, sizeof(big), 0), EMSGSIZE, "send 70000 bytes -> EMSGSIZE");
	EXPECT_ERR(send(pub, big, 4096, 0), EMSGSIZE, "send above the path MTU -> EMSGSIZE");
	p = (struct pollfd){ .fd = pub, .events = POLLOUT };
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLOUT), "poll: publisher POLLOUT", errno);

	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, sub, &ev);
	check(epoll_wait(ep, &out, 1, 0) == 0, "epoll: nothing yet", errno);
	memset(buf, 'x', 100);
	t0 = now_ns();
	EXPECT_OK(send(pub, buf, 100, 0), "send 100 bytes");
	check(epoll_wait(ep, &out, 1, 3000) == 1 && (out.events & EPOLLIN), "epoll: EPOLLIN after a send", errno);
	p = (struct pollfd){ .fd = sub, .events = POLLIN };
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "poll: POLLIN after a send", errno);

	setsockopt(sub, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	iov = (struct iovec){ buf, 10 };
	m = (struct msghdr){ .msg_name = &ga, .msg_namelen = sizeof(ga), .msg_iov = &iov,
			     .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	n = recvmsg(sub, &m, 0);
	t1 = now_ns();
	check(n == 10 && (m.msg_flags & MSG_TRUNC), "recvmsg 10-byte buffer: 10 and MSG_TRUNC", errno);
	check(m.msg_namelen == sizeof(ga) && ga.sibt_port == 7102 && ga.sibt_family == vm_fam,
	      "recvmsg: msg_name is the feed", 0);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			rx = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		}
	check(rx >= t0 && rx <= t1, "SO_TIMESTAMPNS: RX time between send and receive", 0);

	EXPECT_OK(send(pub, buf, 100, 0), "send again");
	n = recv(sub, buf, 10, MSG_TRUNC);
	check(n == 100, "recv MSG_TRUNC: the real length (100)", errno);
	EXPECT_OK(send(pub, buf, 100, 0), "send a third");
	iov = (struct iovec){ buf, sizeof(buf) };
	m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	n = recvmsg(sub, &m, 0);
	check(n == 100 && !(m.msg_flags & MSG_CTRUNC),
	      "recvmsg without a control buffer: no MSG_CTRUNC", errno);
	{
		/* a tick longer than its feed's slots: the slot keeps what fits */
		struct ibtick_ring_geometry g = { .nslots = 64, .slot_size = 64 };
		struct sockaddr_ibtick sa2 = addr(sub_if, 7104), pa2 = addr(pub_if, 7104);
		int sub2 = sock(), pub2 = sock();
		long kept = 64 - (long)sizeof(struct ibtick_slot);

		EXPECT_OK(setsockopt(sub2, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)),
			  "64 slots of 64 bytes");
		EXPECT_OK(bind(sub2, (void *)&sa2, sizeof(sa2)), "bind the small-slot feed");
		EXPECT_OK(connect(pub2, (void *)&pa2, sizeof(pa2)), "connect to it");
		EXPECT_OK(send(pub2, buf, 100, 0), "send 100 bytes to 64-byte slots");
		p = (struct pollfd){ .fd = sub2, .events = POLLIN };
		poll(&p, 1, 3000);
		iov = (struct iovec){ buf, sizeof(buf) };
		m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
		n = recvmsg(sub2, &m, 0);
		check(n == kept && (m.msg_flags & MSG_TRUNC),
		      "a tick cut by its slot: the bytes kept and MSG_TRUNC", errno);
		EXPECT_OK(send(pub2, buf, 100, 0), "send 100 bytes again");
		poll(&p, 1, 3000);
		n = recv(sub2, buf, sizeof(buf), MSG_TRUNC);
		check(n == 100, "recv MSG_TRUNC on a cut tick: its wire length (100)", errno);
		close(sub2);
		close(pub2);
	}
	len = sizeof(ga);
	EXPECT_OK(getsockname(sub, (void *)&ga, &len), "getsockname");
	check(ga.sibt_ifindex == if_nametoindex(sub_if) && ga.sibt_port == 7102,
	      "getsockname: the feed with its ifindex", 0);
	len = sizeof(ga);
	EXPECT_ERR(getpeername(sub, (void *)&ga, &len), ENOTCONN, "getpeername on a subscriber -> ENOTCONN");
	close(ep);
	close(sub);
	close(pub);
}

static int wait_dead(const char *ifname)
{
	struct sockaddr_ibtick sa = addr(ifname, 7103);
	int fd = sock();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[64];
	ssize_t n;

	if (bind(fd, (void *)&sa, sizeof(sa))) {
		perror("bind");
		return 1;
	}
	printf("bound\n");
	fflush(stdout);
	n = recv(fd, buf, sizeof(buf), 0);
	check(n < 0 && errno == ENODEV, "blocked recv returns ENODEV when the device goes", errno);
	check(poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP),
	      "poll: POLLERR|POLLHUP on a dead feed", errno);
	EXPECT_ERR(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), ENODEV, "recv on a dead feed -> ENODEV");
	{
		struct ibtick_ring_info ri;
		socklen_t len = sizeof(ri);

		check(!getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len) &&
		      (ri.flags & IBTICK_RING_DEAD), "RING_INFO: DEAD flag set", errno);
	}
	close(fd);
	return 0;
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void wait_usr1(int n)
{
	while (usr1 < n)
		pause();
}

/* Send @n ticks and read them back on @sub; true if all arrived. */
static int exchange(int pub, int sub, int n)
{
	char buf[64] = "flap";
	int i, got = 0;

	for (i = 0; i < n; i++)
		if (send(pub, buf, sizeof(buf), 0) < 0)
			return 0;
	for (i = 0; i < n; i++)
		got += recv(sub, buf, sizeof(buf), 0) > 0;
	return got == n;
}

static int flap(const char *sub_if, const char *pub_if)
{
	struct sockaddr_ibtick sa = addr(sub_if, 7104), pa = addr(pub_if, 7104);
	struct timeval tv = { .tv_sec = 3 };
	struct ibtick_stats st;
	socklen_t len = sizeof(st);
	int sub = sock(), pub = sock(), i, ok = 0;
	char buf[64] = "down";

	signal(SIGUSR1, on_usr1);
	setsockopt(sub, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(sub, (void *)&sa, sizeof(sa)) || connect(pub, (void *)&pa, sizeof(pa))) {
		perror("flap: bind/connect");
		return 1;
	}
	check(exchange(pub, sub, 10), "flap: 10 ticks before the flap", errno);
	printf("phase1\n");
	fflush(stdout);
	wait_usr1(1);			/* the port is down now */
	EXPECT_ERR(send(pub, buf, sizeof(buf), 0), ENETDOWN, "flap: send while the port is down -> ENETDOWN");
	printf("phase2\n");
	fflush(stdout);
	wait_usr1(2);			/* the port is up again */
	for (i = 0; i < 50 && !ok; i++) {	/* rejoin is asynchronous */
		ok = exchange(pub, sub, 10);
		if (!ok)
			usleep(100000);
	}
	check(ok, "flap: ticks flow again after the port came back", errno);
	/* an IB port rejoins a second after PORT_ACTIVE; RoCE keeps IGMP */
	for (i = 0; i < 20; i++) {
		memset(&st, 0, sizeof(st));
		len = sizeof(st);
		getsockopt(sub, SOL_IBTICK, IBTICK_STATISTICS, &st, &len);
		if (st.feed_rejoins)
			break;
		usleep(100000);
	}
	check(exchange(pub, sub, 10), "flap: ticks flow after the rejoin", errno);
	printf("# rejoins %llu join_errors %llu\n", (unsigned long long)st.feed_rejoins,
	       (unsigned long long)st.feed_join_errors);
	check(st.feed_join_errors == 0, "flap: no join errors", 0);
	close(sub);
	close(pub);
	return 0;
}

/*
 * A blocking recv with SO_BUSY_POLL on a feed that gets a tick every
 * millisecond from its own port (into the ring, as another reader asked
 * for loopback), which this reader skips (IBTICK_LOOPBACK 0): each spin
 * ends on one of them well inside a jiffy, and the spins together still
 * count against SO_RCVTIMEO - the call ends in its 200 ms, not when the
 * ticks stop 2 s later.
 */
static void table_timeo_own(const char *sub_if)
{
	struct sockaddr_ibtick sa = addr(sub_if, 7109);
	struct timeval tv = { .tv_usec = 200000 };
	int sub = sock(), lo = sock(), us = 150000, st = 0, one = 1;
	uint64_t ms, until;
	char buf[64] = "own";
	pid_t pid;

	EXPECT_OK(setsockopt(lo, SOL_IBTICK, IBTICK_LOOPBACK, &one, sizeof(one)),
		  "IBTICK_LOOPBACK 1 on another reader");
	EXPECT_OK(bind(lo, (void *)&sa, sizeof(sa)), "bind the loopback reader");
	EXPECT_OK(bind(sub, (void *)&sa, sizeof(sa)), "bind subscriber (own ticks)");
	setsockopt(sub, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	EXPECT_OK(setsockopt(sub, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)),
		  "SO_BUSY_POLL 150 ms");
	pid = fork();
	if (pid == 0) {
		int own = sock();

		if (connect(own, (void *)&sa, sizeof(sa)))
			_exit(1);
		until = now_ns() + 2000000000ULL;
		while (now_ns() < until) {
			if (send(own, buf, sizeof(buf), 0) < 0)
				_exit(1);
			usleep(1000);
		}
		_exit(0);
	}
	check(pid > 0, "fork the publisher on the reader's own port", errno);
	if (pid < 0)
		goto out;
	/* the ticks flow: the loopback reader has the first */
	tv.tv_sec = 10;
	tv.tv_usec = 0;
	setsockopt(lo, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	check(recv(lo, buf, sizeof(buf), 0) == sizeof(buf),
	      "the loopback reader gets the own port's ticks", errno);
	ms = recv_eagain_ms(sub, buf, sizeof(buf),
			    "recv blocking, own ticks every ms, SO_RCVTIMEO 200 ms, SO_BUSY_POLL 150 ms -> EAGAIN");
	check(ms >= 190 && ms < 1000, "spins ended by skipped ticks count against SO_RCVTIMEO", 0);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the own-port publisher sent until its end", 0);
out:
	close(sub);
	close(lo);
}

int main(int argc, char **argv)
{
	vm_fam = ibtick_family();
	if (vm_fam < 0 || argc < 2) {
		fprintf(stderr, "usage: sockapi table SUB_IF PUB_IF | wait-dead IF | hold (module loaded)\n");
		return 2;
	}
	if (!strcmp(argv[1], "hold")) {
		int fd = sock();

		printf("holding\n");
		fflush(stdout);
		pause();
		close(fd);
		return 0;
	}
	if (!strcmp(argv[1], "wait-dead") && argc == 3)
		wait_dead(argv[2]);
	else if (!strcmp(argv[1], "flap") && argc == 4)
		flap(argv[2], argv[3]);
	else if (!strcmp(argv[1], "table") && argc == 4) {
		table_create();
		table_bind(argv[2]);
		table_sockopt(argv[2]);
		table_io(argv[2], argv[3]);
		table_timeo_own(argv[2]);
	} else {
		fprintf(stderr, "sockapi: bad arguments\n");
		return 2;
	}
	printf("%d passed, %d failed\n", vm_pass, vm_fail);
	return vm_fail ? 1 : 0;
}
