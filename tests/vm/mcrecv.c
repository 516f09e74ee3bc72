// SPDX-License-Identifier: GPL-2.0
/*
 * mcrecv: a plain UDP multicast receiver, AF_INET only (tests/vm/preload.sh).
 *
 *   mcrecv [-i IFADDR] [-m MODE] [-s SOCKS] [-n COUNT] [-t IDLE_MS] [-E]
 *          [-d USEC] [-F SOURCE] [-b IFNAME] [-X] [-C GROUP] [-T THREADS] [-f]
 *          GROUP:PORT...
 *
 * For each port, SOCKS sockets (default 1) bound to INADDR_ANY:port, each
 * joined to every group given with that port (IP_ADD_MEMBERSHIP on the
 * interface IFADDR), with SO_RXQ_OVFL (the socket's drop count) and
 * SO_TIMESTAMPNS.  MODE is how it reads: block (one socket, blocking
 * recvfrom), nonblock (MSG_DONTWAIT over every socket, 200 us of sleep
 * when none had anything), spin (the same, never sleeping), select, poll,
 * epoll, mmsg (recvmmsg after epoll), read (read() after poll), readv
 * (readv() into two pieces after poll), peek (after
 * poll: ioctl FIONREAD, recv MSG_PEEK, then recvmsg, which must return what
 * the peek saw; a mismatch is counted in "peekbad").  With -E,
 * epoll sockets are registered before they are bound and joined.  It stops
 * when every socket has delivered + dropped COUNT per group, or after
 * IDLE_MS (default 3000) without a datagram.  -d: a slow reader, USEC
 * microseconds of sleep after each datagram.  -F: source-specific
 * memberships (IP_ADD_SOURCE_MEMBERSHIP) of SOURCE instead.  -b: SO_BINDTODEVICE
 * IFNAME on every socket (and no interface in the memberships).  -X: each
 * socket leaves its last group (IP_DROP_MEMBERSHIP) right after joining;
 * a datagram of it that still arrives is counted in "stray".  -C: while
 * it reads, a second thread joins GROUP on the first socket and leaves it
 * again, every 500 us ("churn N": the cycles it made; a failed join or
 * leave is counted in "churnerr").  -T: THREADS (default 1, at most 8)
 * threads read the same sockets the same way at once (a tick two of them
 * got is a duplicate).  -f: once a quarter of the ticks came, a thread
 * forks while the readers read; the child closes every socket and exits
 * ("forked STATUS": its exit status, 0 when it closed them all; -2: it
 * was stuck 10 s and killed; -1: no fork, the readers ended first).
 *
 * Output, per socket and group: "sock K GROUP:PORT delivered D gaps G dups U
 * tail T from ADDR late L"; per socket "sock K drops N stamped S"; then
 * "total delivered D drops N gaps G tail T expected E".  Gaps and tail are
 * the sequence numbers it never saw, by its own count; drops are what the
 * socket reported.  Numbers 1..COUNT are told apart one by one: a number
 * seen twice is a duplicate (U); one that arrives after a higher one is
 * delivered and counted late (L: reordered on the way, e.g. two sends
 * processed on different CPUs), not a gap.  "ready" goes to stderr once
 * every socket has joined.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mctick.h"

#define MAXS 16
#define MAXG 16

struct grp {
	uint32_t	group;
	uint16_t	port;
	uint64_t	delivered, gaps, dups, late, last;
	uint32_t	from;
	uint8_t		*seen;	/* sequence numbers 1..count seen, a bit each */
};

struct sock {
	int		fd;
	uint16_t	port;
	int		ng;
	struct grp	g[MAXG];
	uint32_t	drops;
	uint64_t	stamped;
};

static struct sock s[MAXS];
static int ns;
/* take() under it: -T readers share the counts */
static pthread_mutex_t take_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *mode = "epoll";
static int ep = -1;
static long idle = 3000, last;
static unsigned long count = 1000;
static unsigned int delay_us;
static unsigned long peekbad, stray;

/* -C: memberships made and dropped beside the reads */
static struct ip_mreq churn_mr;
static volatile int churn_stop;
static unsigned long churn_n, churn_err;

static void *churn(void *arg)
{
	int fd = *(int *)arg;

	while (!churn_stop) {
		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &churn_mr, sizeof(churn_mr)) ||
		    setsockopt(fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &churn_mr, sizeof(churn_mr)))
			churn_err++;
		else
			churn_n++;
		usleep(500);
	}
	return NULL;
}

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void take_locked(struct sock *k, const struct mctick *t, const struct sockaddr_in *from);

static void take(struct sock *k, const void *buf, ssize_t n, const struct sockaddr_in *from,
		 struct msghdr *m)
{
	const struct mctick *t = buf;
	struct cmsghdr *c;

	if (m) {
		pthread_mutex_lock(&take_lock);
		for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
			uint32_t d;

			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
				/* the socket's count: threads may see it out of order */
				memcpy(&d, CMSG_DATA(c), sizeof(d));
				if (d > k->drops)
					k->drops = d;
			}
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
				k->stamped++;
		}
		pthread_mutex_unlock(&take_lock);
	}
	if (delay_us)
		usleep(delay_us);
	if (n != (ssize_t)sizeof(*t) || t->magic != MCTICK_MAGIC)
		return;
	pthread_mutex_lock(&take_lock);
	take_locked(k, t, from);
	pthread_mutex_unlock(&take_lock);
}

static void take_locked(struct sock *k, const struct mctick *t, const struct sockaddr_in *from)
{
	int i;

	for (i = 0; i < k->ng; i++) {
		struct grp *g = &k->g[i];

		if (g->group != t->group || g->port != t->port)
			continue;
		if (t->seq >= 1 && t->seq <= count) {
			uint64_t b = t->seq - 1;

			if (!g->seen) {
				g->seen = calloc(count / 8 + 1, 1);
				if (!g->seen) {
					perror("calloc");
					exit(1);
				}
			}
			if (g->seen[b / 8] & (1U << (b % 8))) {
				g->dups++;	/* this very number again */
				return;
			}
			g->seen[b / 8] |= (uint8_t)(1U << (b % 8));
		} else if (t->seq <= g->last) {
			g->dups++;	/* beyond the bitmap: as before */
			return;
		}
		if (t->seq < g->last) {
			/* after a higher one: counted as a gap then */
			g->late++;
			g->gaps--;
		} else {
			g->gaps += t->seq - g->last - 1;
			g->last = t->seq;
		}
		g->delivered++;
		if (from)
			g->from = from->sin_addr.s_addr;
		return;
	}
	stray++;
}

static void rx_take_plain(struct sock *k, const void *buf, ssize_t n)
{
	take(k, buf, n, NULL, NULL);
}

/* One datagram from socket @k, with recvmsg (so with its control messages). */
static int rx(struct sock *k, int flags)
{
	char buf[256];
	union {
		char b[256];
		struct cmsghdr a;
	} cb;
	struct sockaddr_in from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof(cb) };
	ssize_t n = recvmsg(k->fd, &m, flags);

	if (n < 0)
		return -1;
	take(k, buf, n, &from, &m);
	return 0;
}

static int done(void)
{
	int i, j, r = 1;

	pthread_mutex_lock(&take_lock);
	for (i = 0; i < ns && r; i++) {
		uint64_t d = 0;

		for (j = 0; j < s[i].ng; j++)
			d += s[i].g[j].delivered;
		if (d + s[i].drops < count * (uint64_t)s[i].ng)
			r = 0;
	}
	pthread_mutex_unlock(&take_lock);
	return r;
}

static int parse_dest(const char *str, uint32_t *group, uint16_t *port)
{
	char buf[64], *colon;
	struct in_addr a;

	snprintf(buf, sizeof(buf), "%s", str);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	*port = (uint16_t)atoi(colon + 1);
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -1;
	*group = a.s_addr;
	return 0;
}

/* The reading loop of every -T thread, until done() or IDLE_MS of nothing. */
static void *reader(void *arg)
{
	int i, j;

	(void)arg;
	while (!done() && now_ms() - __atomic_load_n(&last, __ATOMIC_RELAXED) < idle) {
		int got = 0;

		if (!strcmp(mode, "block")) {
			char buf[256];
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(s[0].fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

			if (n >= 0) {
				take(&s[0], buf, n, &from, NULL);
				got = 1;
			}
		} else if (!strcmp(mode, "nonblock") || !strcmp(mode, "spin")) {
			for (i = 0; i < ns; i++)
				while (!rx(&s[i], MSG_DONTWAIT))
					got = 1;
			if (!got && mode[0] == 'n')
				usleep(200);
		} else if (!strcmp(mode, "select")) {
			fd_set r;
			int maxfd = 0;
			struct timeval tv = { 0, 100000 };

			FD_ZERO(&r);
			for (i = 0; i < ns; i++) {
				FD_SET(s[i].fd, &r);
				if (s[i].fd > maxfd)
					maxfd = s[i].fd;
			}
			if (select(maxfd + 1, &r, NULL, NULL, &tv) > 0)
				for (i = 0; i < ns; i++)
					if (FD_ISSET(s[i].fd, &r))
						while (!rx(&s[i], 0))
							got = 1;
		} else if (!strcmp(mode, "peek")) {
			struct pollfd p = { .fd = s[0].fd, .events = POLLIN };

			if (poll(&p, 1, 100) > 0) {
				char pk[256], buf[256];
				int avail = -1;
				ssize_t a, b;

				if (ioctl(s[0].fd, FIONREAD, &avail) || avail <= 0)
					__atomic_fetch_add(&peekbad, 1, __ATOMIC_RELAXED);
				a = recv(s[0].fd, pk, sizeof(pk), MSG_PEEK);
				b = recv(s[0].fd, buf, sizeof(buf), 0);
				if (a != b || a != avail || (a > 0 && memcmp(pk, buf, (size_t)a)))
					__atomic_fetch_add(&peekbad, 1, __ATOMIC_RELAXED);
				if (b >= 0) {
					rx_take_plain(&s[0], buf, b);
					got = 1;
				}
			}
		} else if (!strcmp(mode, "poll") || !strcmp(mode, "read") ||
			   !strcmp(mode, "readv")) {
			struct pollfd p[MAXS];

			for (i = 0; i < ns; i++)
				p[i] = (struct pollfd){ .fd = s[i].fd, .events = POLLIN };
			if (poll(p, (nfds_t)ns, 100) > 0) {
				for (i = 0; i < ns; i++) {
					char buf[256];
					ssize_t n;

					if (!(p[i].revents & POLLIN))
						continue;
					if (mode[0] == 'p') {
						while (!rx(&s[i], 0))
							got = 1;
						continue;
					}
					for (;;) {
						/* readv: the first 8 bytes apart */
						struct iovec iov[2] = {
							{ buf, 8 },
							{ buf + 8, sizeof(buf) - 8 },
						};

						n = mode[4] == 'v' ? readv(s[i].fd, iov, 2) :
							read(s[i].fd, buf, sizeof(buf));
						if (n < 0)
							break;
						take(&s[i], buf, n, NULL, NULL);
						got = 1;
					}
				}
			}
		} else if (ep >= 0) {
			struct epoll_event ev[MAXS];
			int n = epoll_wait(ep, ev, MAXS, 100);

			for (j = 0; j < n; j++) {
				struct sock *k = &s[ev[j].data.u32];

				if (mode[0] == 'e') {
					while (!rx(k, 0))
						got = 1;
					continue;
				}
				for (;;) {
					struct mmsghdr mm[8];
					char bufs[8][256];
					union {
						char b[128];
						struct cmsghdr a;
					} cbs[8];
					struct iovec iov[8];
					struct sockaddr_in from[8];
					int r, q;

					for (q = 0; q < 8; q++) {
						iov[q] = (struct iovec){ bufs[q], sizeof(bufs[q]) };
						mm[q].msg_hdr = (struct msghdr){ .msg_name = &from[q],
							.msg_namelen = sizeof(from[q]), .msg_iov = &iov[q],
							.msg_iovlen = 1, .msg_control = cbs[q].b,
							.msg_controllen = sizeof(cbs[q]) };
					}
					r = recvmmsg(k->fd, mm, 8, MSG_WAITFORONE, NULL);
					if (r <= 0)
						break;
					for (q = 0; q < r; q++)
						take(k, bufs[q], mm[q].msg_len, &from[q], &mm[q].msg_hdr);
					got = 1;
				}
			}
		} else {
			fprintf(stderr, "mcrecv: unknown mode %s\n", mode);
			exit(2);
		}
		if (got)
			__atomic_store_n(&last, now_ms(), __ATOMIC_RELAXED);
	}
	return NULL;
}

/* -f: a fork while the readers read; the child closes every socket */
static int fork_status = -1, readers_done;

static void *forker(void *arg)
{
	uint64_t d;
	pid_t pid;
	int i, j, st;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&take_lock);
		for (d = 0, i = 0; i < ns; i++)
			for (j = 0; j < s[i].ng; j++)
				d += s[i].g[j].delivered;
		pthread_mutex_unlock(&take_lock);
		if (d >= count / 4 || __atomic_load_n(&readers_done, __ATOMIC_ACQUIRE))
			break;
		usleep(1000);
	}
	if (d < count / 4)
		return NULL;	/* the readers ended first: "forked -1" */
	pid = fork();
	if (pid < 0)
		return NULL;
	if (!pid) {
		for (i = 0; i < ns; i++)
			if (close(s[i].fd))
				_exit(1);
		_exit(0);
	}
	/* a child stuck (on a lock a parent's thread held) is killed: -2 */
	for (i = 0; i < 10000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			fork_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			return NULL;
		}
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fork_status = -2;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *ifaddr = NULL, *source = NULL, *bindif = NULL;
	const char *churn_group = NULL;
	pthread_t churn_thread, readers[8], fork_thread;
	int leave = 0, nthreads = 1, forks = 0;
	int c, i, j, per = 1, early = 0, one = 1;
	struct in_addr ifa = { .s_addr = htonl(INADDR_ANY) };
	uint64_t td = 0, tg = 0, tt = 0, tdrops = 0, texp = 0;

	while ((c = getopt(argc, argv, "i:m:s:n:t:Ed:F:b:XC:T:f")) != -1) {
		switch (c) {
		case 'i': ifaddr = optarg; break;
		case 'm': mode = optarg; break;
		case 's': per = atoi(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 't': idle = atol(optarg); break;
		case 'E': early = 1; break;
		case 'd': delay_us = (unsigned int)atoi(optarg); break;
		case 'F': source = optarg; break;
		case 'b': bindif = optarg; break;
		case 'X': leave = 1; break;
		case 'C': churn_group = optarg; break;
		case 'T': nthreads = atoi(optarg); break;
		case 'f': forks = 1; break;
		default: return 2;
		}
	}
	if (ifaddr && inet_pton(AF_INET, ifaddr, &ifa) != 1)
		return 2;
	if (!strcmp(mode, "epoll") || !strcmp(mode, "mmsg"))
		ep = epoll_create1(EPOLL_CLOEXEC);
	for (; optind < argc; optind++) {
		uint32_t group;
		uint16_t port;
		int first = -1;

		if (parse_dest(argv[optind], &group, &port)) {
			fprintf(stderr, "mcrecv: bad GROUP:PORT %s\n", argv[optind]);
			return 2;
		}
		for (i = 0; i < ns; i++)
			if (s[i].port == port) {
				first = i;
				break;
			}
		if (first < 0) {
			first = ns;
			for (j = 0; j < per && ns < MAXS; j++) {
				struct sock *k = &s[ns++];

				k->port = port;
				k->fd = socket(AF_INET, SOCK_DGRAM, 0);
				if (k->fd < 0) {
					perror("socket");
					return 1;
				}
				if (ep >= 0 && early) {
					struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)(k - s) };

					epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
				}
			}
		}
		for (i = first; i < ns && s[i].port == port; i++) {
			if (s[i].ng == MAXG)
				return 2;
			s[i].g[s[i].ng].group = group;
			s[i].g[s[i].ng++].port = port;
		}
	}
	if (!ns || ((!strcmp(mode, "block") || !strcmp(mode, "peek")) && ns != 1) ||
	    nthreads < 1 || nthreads > 8) {
		fprintf(stderr, "usage: mcrecv [-i IFADDR] [-m block|nonblock|spin|select|poll|epoll|mmsg|read|peek] [-s SOCKS] [-n COUNT] [-t IDLE_MS] [-E] [-T THREADS] [-f] GROUP:PORT...\n");
		return 2;
	}
	for (i = 0; i < ns; i++) {
		struct sock *k = &s[i];
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(k->port) };

		if (bindif && setsockopt(k->fd, SOL_SOCKET, SO_BINDTODEVICE, bindif,
					 (socklen_t)strlen(bindif))) {
			perror("SO_BINDTODEVICE");
			return 1;
		}
		setsockopt(k->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(k->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
		setsockopt(k->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
		if (bind(k->fd, (struct sockaddr *)&a, sizeof(a))) {
			perror("bind");
			return 1;
		}
		for (j = 0; j < k->ng; j++) {
			struct ip_mreq mr = { .imr_multiaddr.s_addr = k->g[j].group, .imr_interface = ifa };
			struct ip_mreq_source ms = { .imr_multiaddr.s_addr = k->g[j].group,
						     .imr_interface = ifa };

			if (source) {
				inet_pton(AF_INET, source, &ms.imr_sourceaddr);
				if (setsockopt(k->fd, IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP, &ms, sizeof(ms))) {
					perror("IP_ADD_SOURCE_MEMBERSHIP");
					return 1;
				}
				continue;
			}
			if (setsockopt(k->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr))) {
				perror("IP_ADD_MEMBERSHIP");
				return 1;
			}
		}
		if (leave && k->ng > 1) {
			struct ip_mreq mr = { .imr_multiaddr.s_addr = k->g[k->ng - 1].group,
					      .imr_interface = ifa };

			if (setsockopt(k->fd, IPPROTO_IP, IP_DROP_MEMBERSHIP, &mr, sizeof(mr))) {
				perror("IP_DROP_MEMBERSHIP");
				return 1;
			}
			k->ng--;
		}
		if (strcmp(mode, "block"))
			fcntl(k->fd, F_SETFL, fcntl(k->fd, F_GETFL) | O_NONBLOCK);
		else {
			struct timeval tv = { idle / 1000, (idle % 1000) * 1000 };

			setsockopt(k->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		if (ep >= 0 && !early) {
			struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };

			epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
		}
	}
	if (churn_group) {
		if (inet_pton(AF_INET, churn_group, &churn_mr.imr_multiaddr) != 1)
			return 2;
		churn_mr.imr_interface = ifa;
		if (pthread_create(&churn_thread, NULL, churn, &s[0].fd)) {
			fprintf(stderr, "mcrecv: pthread_create failed\n");
			return 1;
		}
	}
	fprintf(stderr, "ready\n");
	last = now_ms();
	for (i = 1; i < nthreads; i++)
		if (pthread_create(&readers[i], NULL, reader, NULL)) {
			fprintf(stderr, "mcrecv: pthread_create failed\n");
			return 1;
		}
	if (forks && pthread_create(&fork_thread, NULL, forker, NULL)) {
		fprintf(stderr, "mcrecv: pthread_create failed\n");
		return 1;
	}
	reader(NULL);
	for (i = 1; i < nthreads; i++)
		pthread_join(readers[i], NULL);
	__atomic_store_n(&readers_done, 1, __ATOMIC_RELEASE);
	if (forks) {
		pthread_join(fork_thread, NULL);
		printf("forked %d\n", fork_status);
	}
	if (churn_group) {
		churn_stop = 1;
		pthread_join(churn_thread, NULL);
		printf("churn %lu churnerr %lu\n", churn_n, churn_err);
	}
	for (i = 0; i < ns; i++) {
		for (j = 0; j < s[i].ng; j++) {
			struct grp *g = &s[i].g[j];
			char ip[16], from[16];
			uint64_t tail = g->last < count ? count - g->last : 0;

			inet_ntop(AF_INET, &g->group, ip, sizeof(ip));
			inet_ntop(AF_INET, &g->from, from, sizeof(from));
			printf("sock %d %s:%u delivered %llu gaps %llu dups %llu tail %llu from %s late %llu\n",
			       i, ip, g->port, (unsigned long long)g->delivered,
			       (unsigned long long)g->gaps, (unsigned long long)g->dups,
			       (unsigned long long)tail, from, (unsigned long long)g->late);
			td += g->delivered;
			tg += g->gaps;
			tt += tail;
		}
		printf("sock %d drops %u stamped %llu\n", i, s[i].drops,
		       (unsigned long long)s[i].stamped);
		tdrops += s[i].drops;
		texp += count * (uint64_t)s[i].ng;
	}
	if (!strcmp(mode, "peek"))
		printf("peekbad %lu\n", peekbad);
	printf("stray %lu\n", stray);
	printf("total delivered %llu drops %llu gaps %llu tail %llu expected %llu\n",
	       (unsigned long long)td, (unsigned long long)tdrops, (unsigned long long)tg,
	       (unsigned long long)tt, (unsigned long long)texp);
	return 0;
}
