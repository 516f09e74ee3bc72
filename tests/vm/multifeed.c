// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-feed sockets against the real module, in the bench guest: the
 * IBTICK_ADD_FEED / DROP_FEED / FEEDS / MEMBER_CURSOR error table, then one
 * socket reading three feeds (bind()'s and two added ones) from publishers
 * on the other port: every tick delivered or counted lost per feed (by
 * msg_name, IBTICK_CMSG_LOST and the publisher's sequence), epoll and poll
 * woken by an added feed, recvmmsg, the sender in IBTICK_CMSG_SOURCE, a
 * lapped member feed's loss reported with that feed's name, a member's
 * ring mapped at its own offset, a dropped feed that stops arriving, and
 * sockets read by non-blocking calls alone whose first blocking recv (on
 * an added feed, on bind()'s), first poll() and a feed added under a
 * sleeping recv are woken.
 *
 *   multifeed table SUB_IF PUB_IF
 *   multifeed io SUB_IF PUB_IF PUB_IPV4
 *   multifeed revoke IF          (as an unprivileged user) admin feed
 *                                 239.1.10.50:7390 and auto feed
 *                                 239.1.10.51:7391 on IF; the script
 *                                 publishes 5 to each, revokes the admin
 *                                 feed (SIGUSR1), publishes 5 to each,
 *                                 deletes it (SIGUSR1), publishes 1 to the
 *                                 auto feed: EACCES once, the other feed
 *                                 unharmed, no spinning in recv
 *   multifeed dead IF_A IF_B      a feed on each; the script removes
 *                                 IF_A's device (SIGUSR1), then IF_B's
 *                                 under a blocked recv: the socket lives
 *                                 on while one feed does, then ENODEV and
 *                                 POLLERR|POLLHUP
 *
 * Prints "ok"/"not ok" per check and "N passed, N failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vmcheck.h"

#define GROUP	"239.1.10.1"
#define NFEEDS	3
#define PORT0	7301

static int add(int fd, const struct sockaddr_ibtick *sa)
{
	return setsockopt(fd, SOL_IBTICK, IBTICK_ADD_FEED, sa, sizeof(*sa));
}

static int drop(int fd, const struct sockaddr_ibtick *sa)
{
	return setsockopt(fd, SOL_IBTICK, IBTICK_DROP_FEED, sa, sizeof(*sa));
}

/* The feeds @fd reads, into @m (room for @max); their number, or -1. */
static int feeds(int fd, struct ibtick_member *m, int max)
{
	socklen_t len = max * sizeof(*m);

	if (getsockopt(fd, SOL_IBTICK, IBTICK_FEEDS, m, &len) < 0)
		return -1;
	return len / sizeof(*m);
}

static void table(const char *sub_if)
{
	struct sockaddr_ibtick a = vm_addr(GROUP, sub_if, 7350);
	struct sockaddr_ibtick b = vm_addr(GROUP, sub_if, 7351);
	struct sockaddr_ibtick c = vm_addr(GROUP, sub_if, 7352), bad;
	struct ibtick_ring_geometry g = { .nslots = 64, .slot_size = 64 };
	struct ibtick_member m[IBTICK_FEEDS_PER_SOCKET + 1];
	struct ibtick_member_cursor mc = { 0 };
	struct ibtick_wait w;
	int s = sock(), t = sock(), i, n, one = 1, ok;
	socklen_t len;
	char buf[64];

	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &a, sizeof(a) - 1), EINVAL,
		   "ADD_FEED short -> EINVAL");
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &a, sizeof(a) + 4), EINVAL,
		   "ADD_FEED long -> EINVAL");
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, (void *)8, sizeof(a)), EFAULT,
		   "ADD_FEED bad pointer -> EFAULT");
	bad = a;
	bad.sibt_family = vm_fam + 1;
	EXPECT_ERR(add(s, &bad), EAFNOSUPPORT, "ADD_FEED wrong family -> EAFNOSUPPORT");
	bad = a;
	bad.sibt_group[0] = 10;
	EXPECT_ERR(add(s, &bad), EINVAL, "ADD_FEED unicast group -> EINVAL");
	bad = a;
	bad.sibt_ifindex = 999999;
	EXPECT_ERR(add(s, &bad), ENODEV, "ADD_FEED unknown ifindex -> ENODEV");
	check(feeds(s, m, 4) == 0, "IBTICK_FEEDS of a new socket: none", errno);
	EXPECT_ERR(recv(s, buf, sizeof(buf), MSG_DONTWAIT), ENOTCONN,
		   "recv, no feed at all -> ENOTCONN");
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_LOOK, 0), ENOTCONN, "IBTICK_SIOC_LOOK, no feed at all -> ENOTCONN");
	memset(&w, 0, sizeof(w));
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), ENOTCONN, "IBTICK_SIOC_WAIT, no feed at all -> ENOTCONN");

	EXPECT_OK(add(s, &a), "ADD_FEED a (unbound socket)");
	EXPECT_OK(ioctl(s, IBTICK_SIOC_LOOK, 0), "IBTICK_SIOC_LOOK of an added feed");
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_LOOK, 1), EINVAL, "IBTICK_SIOC_LOOK, argument 1 -> EINVAL");
	EXPECT_ERR(add(s, &a), EADDRINUSE, "ADD_FEED a again -> EADDRINUSE");
	EXPECT_ERR(bind(s, (void *)&a, sizeof(a)), EADDRINUSE, "bind to a feed it reads -> EADDRINUSE");
	EXPECT_OK(bind(s, (void *)&b, sizeof(b)), "bind b after ADD_FEED a");
	EXPECT_ERR(add(s, &b), EADDRINUSE, "ADD_FEED of bind()'s feed -> EADDRINUSE");
	EXPECT_ERR(drop(s, &b), EADDRNOTAVAIL, "DROP_FEED of bind()'s feed -> EADDRNOTAVAIL");
	EXPECT_ERR(drop(s, &c), EADDRNOTAVAIL, "DROP_FEED of a feed it does not read -> EADDRNOTAVAIL");
	EXPECT_ERR(recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "recv, nothing yet -> EAGAIN");

	len = sizeof(m[0]);
	EXPECT_ERR(getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, m, &len), ERANGE,
		   "IBTICK_FEEDS room for 1 of 2 -> ERANGE");
	check(len == 2 * sizeof(m[0]), "ERANGE says the bytes needed", 0);
	len = sizeof(m[0]) + 1;
	EXPECT_ERR(getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, m, &len), EINVAL,
		   "IBTICK_FEEDS length not a multiple -> EINVAL");
	n = feeds(s, m, 4);
	ok = n == 2;
	for (i = 0; ok && i < n; i++) {
		int bound = m[i].flags & IBTICK_MEMBER_BOUND;

		ok = m[i].addr.sibt_port == (bound ? 7351 : 7350) && m[i].feed_id &&
		     m[i].mmap_offset == IBTICK_MMAP_FEED(m[i].feed_id) && m[i].mmap_size &&
		     m[i].addr.sibt_ifindex == if_nametoindex(sub_if);
	}
	check(ok, "IBTICK_FEEDS: both, bind()'s flagged, ids and mmap offsets", 0);

	mc.feed_id = 0;
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc)), EADDRNOTAVAIL,
		   "MEMBER_CURSOR of a feed it does not read -> EADDRNOTAVAIL");
	mc.feed_id = m[0].feed_id;
	mc.cursor = 1ULL << 40;
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc)), EINVAL,
		   "MEMBER_CURSOR past the producer -> EINVAL");
	mc.cursor = 0;
	mc.reserved = 1;
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc)), EINVAL,
		   "MEMBER_CURSOR reserved != 0 -> EINVAL");
	mc.reserved = 0;
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc) - 1), EINVAL,
		   "MEMBER_CURSOR short -> EINVAL");
	EXPECT_OK(setsockopt(s, SOL_IBTICK, IBTICK_MEMBER_CURSOR, &mc, sizeof(mc)),
		  "MEMBER_CURSOR 0");

	/* IBTICK_SIOC_WAIT's refusals; its waits in waited() */
	memset(&w, 0, sizeof(w));
	w.n = IBTICK_WAIT_CURSORS + 1;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINVAL, "IBTICK_SIOC_WAIT n over the cap -> EINVAL");
	w.n = 0;
	w.flags = 1;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINVAL, "IBTICK_SIOC_WAIT flags != 0 -> EINVAL");
	w.flags = 0;
	w.n = 2;
	w.c[0].feed_id = m[0].feed_id;
	w.c[1].feed_id = 0;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EADDRNOTAVAIL,
		   "IBTICK_SIOC_WAIT of a feed it does not read -> EADDRNOTAVAIL");
	w.c[1] = w.c[0];
	w.c[1].cursor = 1ULL << 40;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINVAL, "IBTICK_SIOC_WAIT past the producer -> EINVAL");
	w.c[1].cursor = 0;
	w.c[1].reserved = 1;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINVAL, "IBTICK_SIOC_WAIT reserved != 0 -> EINVAL");
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, (void *)8), EFAULT, "IBTICK_SIOC_WAIT bad pointer -> EFAULT");
	EXPECT_OK(setsockopt(s, SOL_IBTICK, IBTICK_SOURCE_CMSG, &one, sizeof(one)),
		  "IBTICK_SOURCE_CMSG on");
	len = sizeof(i);
	i = 0;
	check(getsockopt(s, SOL_IBTICK, IBTICK_SOURCE_CMSG, &i, &len) == 0 && i == 1,
	      "IBTICK_SOURCE_CMSG reads back 1", errno);
	EXPECT_OK(drop(s, &a), "DROP_FEED a");
	EXPECT_ERR(drop(s, &a), EADDRNOTAVAIL, "DROP_FEED a again -> EADDRNOTAVAIL");
	check(feeds(s, m, 4) == 1 && (m[0].flags & IBTICK_MEMBER_BOUND), "IBTICK_FEEDS: bind()'s left", errno);
	EXPECT_OK(ioctl(s, IBTICK_SIOC_LOOK, 0), "IBTICK_SIOC_LOOK of bind()'s feed left");
	close(s);

	/*
	 * The cap: IBTICK_FEEDS_PER_SOCKET, small rings (root may), a group
	 * each (rxe attaches at most 56 QPs to one group: ENOMEM).
	 */
	EXPECT_OK(setsockopt(t, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), "small rings for the cap test");
	for (i = 0, ok = 1; ok && i < IBTICK_FEEDS_PER_SOCKET; i++) {
		char grp[32];
		struct sockaddr_ibtick x;

		snprintf(grp, sizeof(grp), "239.1.11.%d", i + 1);
		x = vm_addr(grp, sub_if, 7400);
		ok = add(t, &x) == 0;
	}
	check(ok, "ADD_FEED up to IBTICK_FEEDS_PER_SOCKET", errno);
	{
		struct sockaddr_ibtick x = vm_addr("239.1.11.200", sub_if, 7400);

		EXPECT_ERR(add(t, &x), ENOBUFS, "one more -> ENOBUFS");
		EXPECT_ERR(bind(t, (void *)&x, sizeof(x)), ENOBUFS, "bind one more -> ENOBUFS");
	}
	check(feeds(t, m, IBTICK_FEEDS_PER_SOCKET + 1) == IBTICK_FEEDS_PER_SOCKET,
	      "IBTICK_FEEDS lists them all", errno);
	close(t);
}

struct feed_count {
	uint64_t delivered, lost, gap, first, last, bad;
};

/* Read every tick until @quiet_ms without one; count per feed port. */
static void drain(int s, struct feed_count *fc, int nfeeds, int quiet_ms,
		  struct ibtick_source *src, int *srcs)
{
	char buf[256], cbuf[512];
	struct sockaddr_ibtick from;
	struct pollfd p = { .fd = s, .events = POLLIN };

	for (;;) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
				    .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct ibtick_tick_info ti = { 0 };
		uint64_t lost = 0;
		int k, got_src = 0;
		ssize_t n;

		n = recvmsg(s, &m, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN) {
			if (poll(&p, 1, quiet_ms) <= 0)
				return;
			continue;
		}
		if (n < 0) {
			check(0, "recvmsg while draining", errno);
			return;
		}
		k = from.sibt_port - PORT0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_IBTICK)
				continue;
			if (c->cmsg_type == IBTICK_CMSG_LOST)
				memcpy(&lost, CMSG_DATA(c), sizeof(lost));
			else if (c->cmsg_type == IBTICK_CMSG_TICK)
				memcpy(&ti, CMSG_DATA(c), sizeof(ti));
			else if (c->cmsg_type == IBTICK_CMSG_SOURCE && src) {
				memcpy(src, CMSG_DATA(c), sizeof(*src));
				got_src = 1;
			}
		}
		if (k < 0 || k >= nfeeds) {
			check(0, "msg_name names one of the socket's feeds", 0);
			continue;
		}
		if (srcs)
			*srcs += got_src;
		fc[k].delivered++;
		fc[k].lost += lost;
		if (ti.flags & IBTICK_TICK_GAP)
			fc[k].gap += ti.gap;
		if (!fc[k].first)
			fc[k].first = ti.pub_seq;
		fc[k].last = ti.pub_seq;
		/* the payload says which feed it was sent to */
		if (n != 32 || buf[0] != 'A' + k)
			fc[k].bad++;
	}
}

static int publisher(const char *pub_if, int port)
{
	struct sockaddr_ibtick pa = vm_addr(GROUP, pub_if, port);
	int p = sock();

	if (connect(p, (void *)&pa, sizeof(pa)) < 0) {
		perror("connect");
		exit(2);
	}
	return p;
}

static void send_n(int p, int k, int n)
{
	char buf[32];
	int i;

	memset(buf, 'A' + k, sizeof(buf));
	for (i = 0; i < n; i++) {
		while (send(p, buf, sizeof(buf), 0) < 0) {
			if (errno != EAGAIN) {
				check(0, "send", errno);
				return;
			}
			usleep(100);
		}
		if (i % 16 == 15)
			usleep(2000);	/* rxe drops bursts: pace a little */
	}
}

/*
 * Wait until thread @tid of this process sleeps (state S in its stat), 5 s
 * at most: a tick sent before its waiter sleeps would test nothing.
 */
static void wait_asleep(pid_t tid)
{
	char path[64], buf[256], *st;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		st = strrchr(buf, ')');
		if (st && st[1] == ' ' && st[2] == 'S')
			return;
		usleep(10000);
	}
}

/* One tick of feed @k on publisher @p once thread @tid sleeps (a thread). */
struct later {
	pthread_t	t;
	int		p, k;
	pid_t		tid;
};

static void *later_send(void *arg)
{
	struct later *l = arg;

	wait_asleep(l->tid);
	send_n(l->p, l->k, 1);
	return NULL;
}

static void later(struct later *l, int p, int k)
{
	*l = (struct later){ .p = p, .k = k, .tid = gettid() };
	if (pthread_create(&l->t, NULL, later_send, l)) {
		perror("pthread_create");
		exit(2);
	}
}

/* Milliseconds on CLOCK_MONOTONIC. */
static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/*
 * Woken in time: well before the 5 s a recv or poll waits at most.  At
 * its end either still looks once, and would take a tick that woke
 * nobody: so the time tells a wake-up from a timeout.
 */
#define WOKEN_MS	3000

/* A blocking recv on @s, its SO_RCVTIMEO 5 s: the feed port, or -1. */
struct sleeper {
	pthread_t	t;
	int		s, port;
	pid_t		tid;
};

static void *sleeper_recv(void *arg)
{
	struct sleeper *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELEASE);
	struct sockaddr_ibtick from;
	socklen_t fl = sizeof(from);
	char buf[64];

	w->port = recvfrom(w->s, buf, sizeof(buf), 0, (void *)&from, &fl) == 32 ?
		  from.sibt_port : -1;
	return NULL;
}

/*
 * One tick of feed @k on publisher @p: sleeper @w must take it, from the
 * feed of port @port, woken in time.
 */
static void woken_by(struct sleeper *w, int p, int k, int port, const char *what)
{
	long long t0 = mono_ms();

	send_n(p, k, 1);
	pthread_join(w->t, NULL);
	check(w->port == port && mono_ms() - t0 < WOKEN_MS, what, 0);
}

/* Start a blocking recv on @s in a thread of its own; back once it sleeps. */
static void sleeper(struct sleeper *w, int s)
{
	*w = (struct sleeper){ .s = s };
	if (pthread_create(&w->t, NULL, sleeper_recv, w)) {
		perror("pthread_create");
		exit(2);
	}
	while (!__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	wait_asleep(w->tid);
}

/*
 * A recv of a multi-feed socket that reads one feed sleeps on that feed's
 * queue (sock.c, ibt_wait_member()): bind() and IBTICK_DROP_FEED under it
 * must wake it there, for it to hear a feed it did not read when it went
 * to sleep.  Feeds PORT0 + 46..48.
 */
static void resleep(const char *sub_if, const char *pub_if)
{
	struct timeval tv = { .tv_sec = 5 };
	struct sockaddr_ibtick fa[3];
	struct sleeper w;
	int s[2], p[3], k;

	for (k = 0; k < 3; k++)
		fa[k] = vm_addr(GROUP, sub_if, PORT0 + 46 + k);
	for (k = 0; k < 2; k++) {
		s[k] = sock();
		EXPECT_OK(add(s[k], &fa[k]), "resleep: ADD_FEED");
		setsockopt(s[k], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	for (k = 0; k < 3; k++)
		p[k] = publisher(pub_if, PORT0 + 46 + k);
	usleep(300000);		/* the publishers' joins */

	/* bind() under a recv asleep on the socket's one added feed */
	sleeper(&w, s[0]);
	EXPECT_OK(bind(s[0], (void *)&fa[2], sizeof(fa[2])), "resleep: bind under a sleeping recv");
	woken_by(&w, p[2], 2, PORT0 + 48, "resleep: the sleeping recv is woken by bind()'s feed's tick");

	/* its one feed dropped under a sleeping recv, another added */
	sleeper(&w, s[1]);
	EXPECT_OK(drop(s[1], &fa[1]), "resleep: DROP_FEED of the one feed under a sleeping recv");
	EXPECT_OK(add(s[1], &fa[0]), "resleep: ADD_FEED of another");
	usleep(300000);		/* the join */
	woken_by(&w, p[0], 0, PORT0 + 46, "resleep: the sleeping recv is woken by the added feed's tick");
	for (k = 0; k < 3; k++)
		close(p[k]);
	for (k = 0; k < 2; k++)
		close(s[k]);
}

/*
 * A multi-feed socket's feeds wake its own queue only once somebody may
 * wait there (member.c): a socket read by non-blocking calls alone leaves
 * them quiet.  The first call that may wait must still be woken - a
 * blocking recv, a poll() - and so must a recv asleep while a feed is
 * added, by that feed's tick; bind()'s feed of a multi-feed socket too.
 * Each socket reads feeds of its own (PORT0 + 40..45), so that no tick is
 * left over for another.
 */
static void watch(const char *sub_if, const char *pub_if)
{
	struct timeval tv = { .tv_sec = 5 };
	struct sockaddr_ibtick fa[6];
	int s[4], p[6], k, got = 0;
	struct sleeper w;
	struct later l;
	struct pollfd pf;
	long long t0;
	char buf[64];

	for (k = 0; k < 6; k++)
		fa[k] = vm_addr(GROUP, sub_if, PORT0 + 40 + k);
	for (k = 0; k < 4; k++) {
		s[k] = sock();
		/* the last: bind()'s feed (fa[4]) and an added one (fa[5]) */
		if (k == 3)
			EXPECT_OK(bind(s[k], (void *)&fa[4], sizeof(fa[4])), "watch: bind");
		EXPECT_OK(add(s[k], &fa[k < 3 ? k : 5]), "watch: ADD_FEED, nobody waits yet");
		setsockopt(s[k], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	for (k = 0; k < 6; k++)
		p[k] = publisher(pub_if, PORT0 + 40 + k);
	usleep(300000);		/* the publishers' joins */

	/* non-blocking reads alone, then a blocking one */
	send_n(p[0], 0, 1);
	for (k = 0; k < 300 && !got; k++) {
		got = recv(s[0], buf, sizeof(buf), MSG_DONTWAIT) == 32;
		if (!got)
			usleep(10000);
	}
	check(got, "watch: non-blocking reads take a tick", errno);
	later(&l, p[0], 0);
	t0 = mono_ms();
	check(recv(s[0], buf, sizeof(buf), 0) == 32 && mono_ms() - t0 < WOKEN_MS,
	      "watch: the first blocking recv is woken by the next tick", errno);
	pthread_join(l.t, NULL);

	/* the first poll() */
	later(&l, p[1], 1);
	pf = (struct pollfd){ .fd = s[1], .events = POLLIN };
	t0 = mono_ms();
	check(poll(&pf, 1, 5000) == 1 && (pf.revents & POLLIN) && mono_ms() - t0 < WOKEN_MS,
	      "watch: the first poll() is woken by a tick", errno);
	pthread_join(l.t, NULL);
	check(recv(s[1], buf, sizeof(buf), MSG_DONTWAIT) == 32, "... which recv takes", errno);

	/* a feed added under a sleeping recv */
	sleeper(&w, s[2]);
	EXPECT_OK(add(s[2], &fa[3]), "watch: ADD_FEED under a sleeping recv");
	usleep(300000);		/* the join */
	woken_by(&w, p[3], 3, PORT0 + 43, "watch: the sleeping recv is woken by the added feed's tick");

	/* bind()'s feed of a multi-feed socket wakes its first blocking recv */
	later(&l, p[4], 4);
	t0 = mono_ms();
	check(recv(s[3], buf, sizeof(buf), 0) == 32 && mono_ms() - t0 < WOKEN_MS,
	      "watch: bind()'s feed wakes a multi-feed socket's first blocking recv", errno);
	pthread_join(l.t, NULL);
	for (k = 0; k < 6; k++)
		close(p[k]);
	for (k = 0; k < 4; k++)
		close(s[k]);
}

static void io(const char *sub_if, const char *pub_if, const char *pub_ip)
{
	struct sockaddr_ibtick fa[NFEEDS];
	struct feed_count fc[NFEEDS] = { 0 };
	struct ibtick_member mem[NFEEDS];
	struct ibtick_source src = { 0 };
	struct ibtick_stats st;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct pollfd pf;
	int s = sock(), pub[NFEEDS], k, n, ep, one = 1, srcs = 0, ok;
	const int N = 300;
	socklen_t len;
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };

	for (k = 0; k < NFEEDS; k++)
		fa[k] = vm_addr(GROUP, sub_if, PORT0 + k);
	/* sources asked before bind: bind()'s feed records them too */
	EXPECT_OK(setsockopt(s, SOL_IBTICK, IBTICK_SOURCE_CMSG, &one, sizeof(one)),
		  "IBTICK_SOURCE_CMSG on, before bind");
	EXPECT_OK(bind(s, (void *)&fa[0], sizeof(fa[0])), "bind feed 0");
	EXPECT_OK(add(s, &fa[1]), "ADD_FEED feed 1");
	EXPECT_OK(add(s, &fa[2]), "ADD_FEED feed 2");
	for (k = 0; k < NFEEDS; k++)
		pub[k] = publisher(pub_if, PORT0 + k);
	usleep(300000);		/* the publishers' joins */

	/* a tick on an added feed wakes epoll and poll */
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
	check(epoll_wait(ep, &out, 1, 0) == 0, "epoll: nothing yet", errno);
	send_n(pub[2], 2, 1);
	check(epoll_wait(ep, &out, 1, 3000) == 1 && (out.events & EPOLLIN),
	      "epoll: EPOLLIN for a tick of an added feed", errno);
	pf = (struct pollfd){ .fd = s, .events = POLLIN };
	check(poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN), "poll: POLLIN for it", errno);

	/* N - 1 more to feed 2, N to the others, interleaved */
	for (n = 0; n < N; n += 20)
		for (k = 0; k < NFEEDS; k++)
			send_n(pub[k], k, k == 2 && n + 20 >= N ? 19 : 20);
	drain(s, fc, NFEEDS, 1500, &src, &srcs);
	for (k = 0, ok = 1; k < NFEEDS; k++) {
		/* delivered + lost + gaps + before the first + after the last */
		uint64_t sum = fc[k].delivered + fc[k].lost + fc[k].gap +
			       (fc[k].first ? fc[k].first - 1 : 0) + (N - fc[k].last);

		printf("  feed %d: delivered %llu lost %llu gap %llu first %llu last %llu bad %llu\n",
		       k, (unsigned long long)fc[k].delivered, (unsigned long long)fc[k].lost,
		       (unsigned long long)fc[k].gap, (unsigned long long)fc[k].first,
		       (unsigned long long)fc[k].last, (unsigned long long)fc[k].bad);
		ok &= sum == (uint64_t)N && !fc[k].bad && fc[k].delivered >= N * 9 / 10;
	}
	check(ok, "3 feeds on one socket: per feed, delivered + lost + missing == published, payloads intact", 0);
	check(srcs == (int)(fc[0].delivered + fc[1].delivered + fc[2].delivered) &&
	      (src.flags & IBTICK_SOURCE_IPV4) && src.qpn &&
	      inet_pton(AF_INET, pub_ip, want + 12) == 1 && !memcmp(src.gid, want, 16),
	      "IBTICK_CMSG_SOURCE with every tick: the publisher's IPv4 as a GID, its QPN", 0);

	/* recvmmsg takes several, from several feeds */
	{
		struct mmsghdr mm[8];
		struct iovec iov[8];
		char bufs[8][64];
		struct sockaddr_ibtick names[8];
		int i, r, ports = 0;

		for (k = 0; k < NFEEDS; k++)
			send_n(pub[k], k, 2);
		usleep(300000);
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < 8; i++) {
			iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
			mm[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1,
							 .msg_name = &names[i],
							 .msg_namelen = sizeof(names[i]) };
		}
		r = recvmmsg(s, mm, 8, MSG_DONTWAIT, NULL);
		for (i = 0; i < r; i++)
			ports |= 1 << (names[i].sibt_port - PORT0);
		check(r == 6 && ports == 7, "recvmmsg: 6 ticks from the 3 feeds", errno);
	}

	/* a member ring mapped at its own offset */
	len = sizeof(mem);
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, mem, &len), "IBTICK_FEEDS");
	for (k = 0, ok = 0; k < (int)(len / sizeof(mem[0])); k++) {
		const struct ibtick_ring_hdr *h;
		void *r;

		if (mem[k].addr.sibt_port != PORT0 + 2)
			continue;
		r = mmap(NULL, mem[k].mmap_size, PROT_READ, MAP_SHARED, s, mem[k].mmap_offset);
		if (r == MAP_FAILED)
			break;
		h = r;
		ok = h->magic == IBTICK_RING_MAGIC &&
		     __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE) == mem[k].cursor &&
		     mem[k].cursor >= fc[2].delivered;
		check(munmap(r, mem[k].mmap_size) == 0, "munmap the member ring", errno);
		r = mmap(NULL, mem[k].mmap_size, PROT_READ, MAP_SHARED, s,
			 mem[k].mmap_offset + 4096);
		check(r == MAP_FAILED && errno == EINVAL, "mmap at a member's offset + a page -> EINVAL", errno);
	}
	check(ok, "a member feed's ring mapped at IBTICK_MMAP_FEED(id): its producer is the socket's cursor", errno);

	/* a feed dropped while its ring is mapped: the mapping stays good */
	{
		struct ibtick_member one_m[NFEEDS];
		const struct ibtick_ring_hdr *h = MAP_FAILED;
		uint64_t before = 0;
		socklen_t l = sizeof(one_m);

		if (!getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, one_m, &l))
			for (k = 0; k < (int)(l / sizeof(one_m[0])); k++)
				if (one_m[k].addr.sibt_port == PORT0 + 1) {
					h = mmap(NULL, one_m[k].mmap_size, PROT_READ, MAP_SHARED, s,
						 one_m[k].mmap_offset);
					before = one_m[k].cursor;
					len = one_m[k].mmap_size;
				}
		check(h != MAP_FAILED, "map feed 1's ring", errno);
		EXPECT_OK(drop(s, &fa[1]), "DROP_FEED feed 1 while mapped");
		if (h != MAP_FAILED) {
			check(h->magic == IBTICK_RING_MAGIC &&
			      __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE) >= before,
			      "the dropped feed's mapping still reads its ring", 0);
			check(munmap((void *)h, len) == 0, "munmap it after the drop", errno);
		}
	}

	/* a dropped feed stops arriving; the others go on */
	memset(fc, 0, sizeof(fc));
	for (k = 0; k < NFEEDS; k++)
		send_n(pub[k], k, 10);
	drain(s, fc, NFEEDS, 1000, NULL, NULL);
	check(fc[1].delivered == 0 && fc[0].delivered + fc[2].delivered > 0,
	      "after DROP_FEED: nothing from it, the others still arrive", 0);

	/* a 1-byte tick to a socket that only bind()s (recvmsg returns 1) */
	{
		struct sockaddr_ibtick sa = vm_addr(GROUP, sub_if, PORT0 + 30);
		int b = sock(), pb;
		char c = 'z', got[8];
		struct pollfd bp = { .fd = b, .events = POLLIN };

		EXPECT_OK(bind(b, (void *)&sa, sizeof(sa)), "bind a single-feed socket");
		pb = publisher(pub_if, PORT0 + 30);
		usleep(300000);
		EXPECT_OK(send(pb, &c, 1, 0), "send a 1-byte tick");
		poll(&bp, 1, 3000);
		check(recv(b, got, sizeof(got), 0) == 1 && got[0] == 'z',
		      "single-feed socket: a 1-byte tick is 1 byte, nothing more", errno);
		EXPECT_OK(send(pb, &c, 1, 0), "send another");
		poll(&bp, 1, 3000);
		check(recv(b, got, 1, 0) == 1, "... read into a 1-byte buffer", errno);
		close(pb);
		close(b);
	}

	/* the socket's statistics sum its feeds */
	len = sizeof(st);
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_STATISTICS, &st, &len), "IBTICK_STATISTICS");
	close(ep);
	close(s);
	for (k = 0; k < NFEEDS; k++)
		close(pub[k]);
	watch(sub_if, pub_if);
	resleep(sub_if, pub_if);
}

/*
 * A member feed lapped: its 64-slot ring takes 300 ticks before the
 * reader looks; the loss comes in IBTICK_CMSG_LOST with a tick named by
 * that feed, and delivered + lost == what the feed took.
 */
static void lapped(const char *sub_if, const char *pub_if)
{
	struct ibtick_ring_geometry g = { .nslots = 64, .slot_size = 128 };
	struct sockaddr_ibtick big = vm_addr(GROUP, sub_if, PORT0 + 0 + 60);
	struct sockaddr_ibtick small = vm_addr(GROUP, sub_if, PORT0 + 1 + 60);
	struct feed_count fc[2] = { 0 };
	struct ibtick_member mem[2];
	int s = sock(), geo = sock(), p0, p1, k;
	socklen_t len;
	uint64_t took = 0;

	EXPECT_OK(bind(s, (void *)&big, sizeof(big)), "bind a default feed");
	/* the small ring is created by another socket with its geometry */
	EXPECT_OK(setsockopt(geo, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)), "64-slot geometry");
	EXPECT_OK(add(geo, &small), "create the 64-slot feed");
	EXPECT_OK(add(s, &small), "ADD_FEED the 64-slot feed");
	p0 = publisher(pub_if, PORT0 + 60);
	p1 = publisher(pub_if, PORT0 + 61);
	usleep(300000);
	send_n(p1, 1, 300);
	send_n(p0, 0, 5);
	usleep(500000);
	{
		/* drain() counts by port - PORT0: shift the ports by 60 */
		char buf[256], cbuf[512];
		struct sockaddr_ibtick from;

		for (;;) {
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
					    .msg_iov = &iov, .msg_iovlen = 1,
					    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
			uint64_t lost = 0;

			if (recvmsg(s, &m, MSG_DONTWAIT) < 0)
				break;
			k = from.sibt_port - PORT0 - 60;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
				if (c->cmsg_level == SOL_IBTICK && c->cmsg_type == IBTICK_CMSG_LOST)
					memcpy(&lost, CMSG_DATA(c), sizeof(lost));
			if (k == 0 || k == 1) {
				fc[k].delivered++;
				fc[k].lost += lost;
			}
		}
	}
	len = sizeof(mem);
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, mem, &len), "IBTICK_FEEDS");
	for (k = 0; k < (int)(len / sizeof(mem[0])); k++)
		if (mem[k].addr.sibt_port == PORT0 + 61)
			took = mem[k].cursor;
	printf("  small feed: took %llu, delivered %llu, lost %llu; default feed: delivered %llu lost %llu\n",
	       (unsigned long long)took, (unsigned long long)fc[1].delivered,
	       (unsigned long long)fc[1].lost, (unsigned long long)fc[0].delivered,
	       (unsigned long long)fc[0].lost);
	check(fc[1].lost > 0 && fc[1].delivered <= 64 && fc[1].delivered + fc[1].lost == took &&
	      fc[0].lost == 0 && fc[0].delivered == 5,
	      "lapped member feed: its IBTICK_CMSG_LOST under its name, delivered + lost == taken, the other whole", 0);
	for (k = 0; k < (int)(len / sizeof(mem[0])); k++)
		if (mem[k].addr.sibt_port == PORT0 + 61)
			check(mem[k].lost == fc[1].lost, "IBTICK_FEEDS: the member's lost count agrees", 0);
	close(s);
	close(geo);
	close(p0);
	close(p1);
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

/*
 * SIGUSR1 to thread @target (@tid) once it sleeps; after its handler ran,
 * one tick of feed @k on publisher @p once it sleeps again (a thread),
 * @sending set just before.
 */
struct poke {
	pthread_t	t, target;
	pid_t		tid;
	int		p, k, sending;
};

static void *poke_run(void *arg)
{
	struct poke *pk = arg;
	sig_atomic_t before = usr1;
	int i;

	wait_asleep(pk->tid);
	pthread_kill(pk->target, SIGUSR1);
	for (i = 0; i < 500 && usr1 == before; i++)
		usleep(10000);
	wait_asleep(pk->tid);
	/* before the send: its tick may wake the waiter before send() returns */
	__atomic_store_n(&pk->sending, 1, __ATOMIC_RELEASE);
	send_n(pk->p, pk->k, 1);
	return NULL;
}

static void poke(struct poke *pk, int p, int k, int restart)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = restart ? SA_RESTART : 0 };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	*pk = (struct poke){ .target = pthread_self(), .tid = gettid(), .p = p, .k = k };
	if (pthread_create(&pk->t, NULL, poke_run, pk)) {
		perror("pthread_create");
		exit(2);
	}
}

/*
 * IBTICK_SIOC_WAIT, the wait of a reader that takes from the rings: it
 * returns when a tick is there and takes none; the cursors it carries are
 * the kernel's after it (a recv then finds nothing); a waiter asleep is
 * woken by a tick of either feed; SO_RCVTIMEO ends a wait for nothing.
 * A signal ends it as it ends a recvmsg.  Feeds PORT0 + 70, 71.
 */
static void waited(const char *sub_if, const char *pub_if)
{
	struct sockaddr_ibtick fa[2] = { vm_addr(GROUP, sub_if, PORT0 + 70),
					 vm_addr(GROUP, sub_if, PORT0 + 71) };
	struct timeval tv = { .tv_sec = 5 };
	struct ibtick_member mem[2], again[2];
	int s = sock(), p[2], k, n, k71;
	struct ibtick_wait w;
	struct later l;
	long long t0;
	char buf[64];

	for (k = 0; k < 2; k++) {
		EXPECT_OK(add(s, &fa[k]), "ADD_FEED for the waits");
		p[k] = publisher(pub_if, PORT0 + 70 + k);
	}
	usleep(300000);		/* the publishers' joins */
	EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO 5 s");
	memset(&w, 0, sizeof(w));
	check(fcntl(s, F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK", errno);
	t0 = mono_ms();
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EAGAIN, "a wait for nothing, O_NONBLOCK -> EAGAIN");
	check(mono_ms() - t0 < WOKEN_MS, "at once, not after SO_RCVTIMEO", 0);
	check(fcntl(s, F_SETFL, 0) == 0, "O_NONBLOCK off", errno);
	send_n(p[1], 1, 1);
	t0 = mono_ms();
	EXPECT_OK(ioctl(s, IBTICK_SIOC_WAIT, &w), "a wait with a tick there");
	EXPECT_OK(ioctl(s, IBTICK_SIOC_WAIT, &w), "a wait again: it took nothing");
	check(mono_ms() - t0 < WOKEN_MS, "both at once", 0);
	n = feeds(s, mem, 2);
	check(n == 2, "IBTICK_FEEDS: both", errno);
	/* every cursor checked before any is set: feed 71's good one, feed 70's past its producer */
	k71 = mem[0].addr.sibt_port == PORT0 + 71 ? 0 : 1;
	w.n = 2;
	w.c[0] = (struct ibtick_member_cursor){ .feed_id = mem[k71].feed_id,
						.cursor = mem[k71].cursor + 1 };
	w.c[1] = (struct ibtick_member_cursor){ .feed_id = mem[!k71].feed_id, .cursor = 1ULL << 40 };
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINVAL, "a good cursor and one past its producer -> EINVAL");
	check(feeds(s, again, 2) == 2 && again[k71].cursor == mem[k71].cursor,
	      "... and the good one was not taken either", errno);
	for (k = 0; k < n; k++) {
		w.c[k].feed_id = mem[k].feed_id;
		w.c[k].cursor = mem[k].cursor + (mem[k].addr.sibt_port == PORT0 + 71);
	}
	w.n = n;
	tv.tv_sec = 0;
	tv.tv_usec = 200000;
	EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO 200 ms");
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EAGAIN,
		   "a wait past the tick: nothing within SO_RCVTIMEO -> EAGAIN");
	EXPECT_ERR(recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		   "recv after it: the cursors it carried are the kernel's");
	for (k = 0; k < n; k++)
		w.c[k].cursor = mem[k].cursor;
	EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EAGAIN,
		   "a wait with the cursors before the tick: not set back, nothing -> EAGAIN");
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO 5 s");
	w.n = 0;
	for (k = 0; k < 2; k++) {
		later(&l, p[k], k);
		t0 = mono_ms();
		EXPECT_OK(ioctl(s, IBTICK_SIOC_WAIT, &w), "a waiter asleep, woken by a tick");
		check(mono_ms() - t0 < WOKEN_MS, k ? "woken by feed 71" : "woken by feed 70", 0);
		pthread_join(l.t, NULL);
		check(recv(s, buf, sizeof(buf), MSG_DONTWAIT) == 32 && buf[0] == 'A' + k,
		      "its tick, left for recv", errno);
	}
	/*
	 * A signal: with SA_RESTART and no SO_RCVTIMEO the wait goes on (to
	 * the tick sent after the handler ran); without SA_RESTART, or with
	 * an SO_RCVTIMEO, EINTR
	 */
	for (k = 0; k < 3; k++) {
		struct timeval none = { 0 };
		sig_atomic_t n0 = usr1;
		struct poke pk;
		int f = k & 1;

		EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, k == 2 ? &tv : &none, sizeof(tv)),
			  k == 2 ? "SO_RCVTIMEO 5 s" : "SO_RCVTIMEO none");
		poke(&pk, p[f], f, k != 1);
		if (!k) {
			EXPECT_OK(ioctl(s, IBTICK_SIOC_WAIT, &w),
				  "a wait signalled, SA_RESTART: restarted");
			check(__atomic_load_n(&pk.sending, __ATOMIC_ACQUIRE),
			      "... and woken by the tick sent after the handler ran", 0);
		} else {
			EXPECT_ERR(ioctl(s, IBTICK_SIOC_WAIT, &w), EINTR,
				   k == 1 ? "a wait signalled without SA_RESTART -> EINTR"
					  : "a wait signalled, SA_RESTART, SO_RCVTIMEO -> EINTR");
		}
		pthread_join(pk.t, NULL);
		check(usr1 == n0 + 1, "... its handler ran once", 0);
		EXPECT_OK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO 5 s");
		check(recv(s, buf, sizeof(buf), 0) == 32 && buf[0] == 'A' + f,
		      "... the tick sent after it, left for recv", errno);
	}
	signal(SIGUSR1, SIG_DFL);
	close(s);
	close(p[0]);
	close(p[1]);
}

/* Read until EAGAIN (1.5 s quiet); count ticks per port; first error. */
static int read_all(int s, int *n50, int *n51)
{
	struct sockaddr_ibtick from;
	struct pollfd p = { .fd = s, .events = POLLIN };
	char buf[64];

	for (;;) {
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, (void *)&from, &fl);

		if (n < 0 && errno == EAGAIN) {
			if (poll(&p, 1, 1500) <= 0)
				return 0;
			continue;
		}
		if (n < 0)
			return errno;
		if (from.sibt_port == 7390)
			(*n50)++;
		else
			(*n51)++;
	}
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void revoked(const char *ifname)
{
	struct sockaddr_ibtick x = vm_addr("239.1.10.50", ifname, 7390);
	struct sockaddr_ibtick y = vm_addr("239.1.10.51", ifname, 7391);
	struct timeval tv = { .tv_sec = 1 };
	int s = sock(), a = 0, b = 0, err;
	double c0, c1;
	char buf[64];
	ssize_t n;

	signal(SIGUSR1, on_usr1);
	EXPECT_OK(add(s, &x), "ADD_FEED the admin feed (readable)");
	EXPECT_OK(add(s, &y), "ADD_FEED an auto feed");
	printf("bound\n");
	fflush(stdout);
	while (usr1 < 1)
		pause();
	err = read_all(s, &a, &b);
	check(!err && a == 5 && b == 5, "5 ticks from each feed before the revocation", err);
	printf("  read %d + %d\n", a, b);
	printf("read1\n");
	fflush(stdout);
	while (usr1 < 2)
		pause();
	a = b = 0;
	err = read_all(s, &a, &b);
	check(err == EACCES, "revoked member: recvmsg fails with EACCES", err);
	err = read_all(s, &a, &b);
	check(!err && a == 0 && b == 5, "then the other feed's 5, none of the revoked one's", err);
	printf("  read %d + %d\n", a, b);
	printf("read2\n");
	fflush(stdout);
	while (usr1 < 3)
		pause();
	/* the revoked feed is gone: a blocking recv sleeps its timeout */
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	c0 = cpu_s();
	n = recv(s, buf, sizeof(buf), 0);
	c1 = cpu_s();
	check(n < 0 && errno == EAGAIN && c1 - c0 < 0.5,
	      "revoked feed deleted: a blocking recv sleeps its 1 s timeout (no spinning)", errno);
	printf("  cpu in that recv: %.3f s\n", c1 - c0);
	printf("read3\n");
	fflush(stdout);
	a = b = 0;
	n = recv(s, buf, sizeof(buf), 0);
	check(n > 0, "the other feed's next tick still arrives", errno);
	close(s);
}

static void dead(const char *if_a, const char *if_b)
{
	struct sockaddr_ibtick a = vm_addr(GROUP, if_a, 7380), b = vm_addr(GROUP, if_b, 7381);
	struct pollfd p;
	char buf[64];
	int s = sock();
	ssize_t n;

	signal(SIGUSR1, on_usr1);
	EXPECT_OK(add(s, &a), "ADD_FEED on the first device");
	EXPECT_OK(add(s, &b), "ADD_FEED on the second device");
	printf("bound\n");
	fflush(stdout);
	while (!usr1)
		pause();
	/* the first device is gone: its feed is dead, the other is not */
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	check(poll(&p, 1, 0) == 0, "one member's device gone: no POLLERR/POLLHUP, no POLLIN", errno);
	EXPECT_ERR(recv(s, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		   "one member's device gone: recv -> EAGAIN, not ENODEV");
	printf("half\n");
	fflush(stdout);
	/* blocks until the second device goes too */
	n = recv(s, buf, sizeof(buf), 0);
	check(n < 0 && errno == ENODEV, "blocked recv returns ENODEV when the last member's device goes", errno);
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	check(poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP),
	      "every member dead: POLLERR|POLLHUP", errno);
	close(s);
}

int main(int argc, char **argv)
{
	vm_fam = ibtick_family();
	if (vm_fam < 0 || argc < 2) {
		fprintf(stderr, "usage: multifeed table SUB_IF PUB_IF | io SUB_IF PUB_IF PUB_IPV4\n");
		return 2;
	}
	if (!strcmp(argv[1], "table") && argc == 4) {
		table(argv[2]);
	} else if (!strcmp(argv[1], "revoke") && argc == 3) {
		revoked(argv[2]);
	} else if (!strcmp(argv[1], "dead") && argc == 4) {
		dead(argv[2], argv[3]);
	} else if (!strcmp(argv[1], "io") && argc == 5) {
		io(argv[2], argv[3], argv[4]);
		lapped(argv[2], argv[3]);
		waited(argv[2], argv[3]);
	} else {
		fprintf(stderr, "multifeed: bad arguments\n");
		return 2;
	}
	printf("%d passed, %d failed\n", vm_pass, vm_fail);
	return vm_fail ? 1 : 0;
}
