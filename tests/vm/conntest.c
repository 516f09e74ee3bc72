// SPDX-License-Identifier: GPL-2.0
/*
 * Connected ibtick sockets (SOCK_SEQPACKET over RC, the "order channel")
 * against the real module, in the bench guest.  Each mode runs both ends
 * itself (threads, or a forked child where a process must die), checks
 * against the contract in include/uapi/linux/ibtick.h ("Connections"),
 * prints "ok"/"not ok" per check and ends with "N passed, N failed".
 * SRV is the listener's address (rxe0's), CLI the client's (rxe1's); the
 * client binds to CLI (port 0) before connect.
 *
 *   conntest table SRV CLI PORT      the errno table: addresses, listen and
 *                                    accept misuse, sizes, MSG_TRUNC,
 *                                    IBTICK_CONN_INFO, connect to nothing
 *   conntest stream SRV CLI PORT N [hold]
 *                                    N messages each way at once, sizes
 *                                    1..msg_max, every one checked (order,
 *                                    loss, duplicates, contents); both
 *                                    sides' IBTICK_CONN_INFO add up.  With
 *                                    "hold": prints "holding CQPN SQPN"
 *                                    and keeps the connection until
 *                                    SIGUSR1 (30 s at most)
 *   conntest flow SRV CLI PORT       credits: a receiver that does not read
 *                                    stops a sender after nslots messages
 *                                    (EAGAIN, no POLLOUT, SO_SNDTIMEO);
 *                                    then it reads and nothing is lost
 *   conntest mapped SRV CLI PORT N   the ring mapped (libibtick): the errno
 *                                    table of mmap and IBTICK_RING_CURSOR;
 *                                    unreported slots stop the sender, the
 *                                    cursor gives them back; N messages read
 *                                    with no call per message; DEAD at the
 *                                    peer's close, then recv() 0
 *   conntest prefer SRV CLI PORT N   SO_PREFER_BUSY_POLL: N round trips to a
 *                                    spinning echo; then the spinner blocks,
 *                                    then reads the mapped ring with no
 *                                    call: each message still arrives
 *   conntest many SRV CLI PORT NCLI K
 *                                    NCLI clients connect at once while 4
 *                                    connections stream; each echoes K
 *   conntest close SRV CLI PORT K    close() and shutdown(SHUT_WR): the
 *                                    messages, then 0 and POLLIN|POLLRDHUP;
 *                                    EPIPE and SIGPIPE after
 *   conntest kill-reader SRV CLI PORT
 *                                    a reader holding unread messages is
 *                                    SIGKILLed: the blocked sender wakes
 *                                    with EPIPE
 *   conntest kill-sender SRV CLI PORT
 *                                    a sender SIGKILLed mid-stream: the
 *                                    reader gets every message it sent,
 *                                    then 0 or ECONNRESET
 *   conntest break SRV CLI PORT SECONDS
 *                                    streams both ways; prints "streaming";
 *                                    SIGUSR1 says a fault comes now (the
 *                                    script deletes a device or takes a
 *                                    port down): within SECONDS every
 *                                    thread of both ends must have woken
 *                                    with ECONNRESET (recv) / EPIPE (send),
 *                                    with what arrived intact and in order
 *   conntest churn SRV CLI PORT K   K clients connect and close at once
 *                                    while the listener (backlog 4) never
 *                                    accepts: each connect succeeds (a
 *                                    refused one is tried again for 10 s:
 *                                    the ended ones give their places
 *                                    back); then one client sends a
 *                                    message and closes, two stay; prints
 *                                    "holding", waits for SIGUSR1 (60 s
 *                                    at most); then accept() returns
 *                                    exactly those three: the two live
 *                                    (ESTABLISHED, a message reaches each)
 *                                    and the closed one with its message,
 *                                    then 0; then EAGAIN
 *   conntest listen SRV CLI PORT ok|EACCES
 *                                    bind SRV:PORT and listen() as the
 *                                    calling user: allowed (and a
 *                                    connection accepted) or EACCES
 *                                    (listener rules; below port 1024
 *                                    bind() itself is EACCES without
 *                                    CAP_NET_BIND_SERVICE)
 *   conntest limit SRV CLI PORT MAX  max_user_conns, which the script set
 *                                    to MAX: uid 65534 connects MAX times
 *                                    to a listener of uid 0, the next is
 *                                    ENOBUFS; one closed, one more works;
 *                                    uid 65533's request is refused (uid
 *                                    0's children are at MAX); prints
 *                                    "holding" and waits for SIGUSR1;
 *                                    every charge (debugfs conn_users)
 *                                    back to 0 at the end
 *
 * Every wait is bounded: socket timeouts, poll timeouts, timed joins.
 *
 * Where the header leaves a behaviour open, this program assumes what TCP
 * (or the feeds' sockets) do; each such check says so in its text:
 *  - a client may bind() (address, port 0) before connect(); accept()'s
 *    address is the client's address and port, getpeername() the
 *    listener's, getsockname() after bind(port 0) a real port;
 *  - bind() to a port held on another address as INADDR_ANY: EADDRINUSE,
 *    as the header says of a held port (rdma_cm itself says EADDRNOTAVAIL
 *    there); a multicast address in bind() or connect(): EINVAL;
 *  - send()/recv() unconnected: ENOTCONN; MSG_OOB: EOPNOTSUPP; listen()
 *    on a connected socket: EINVAL; IBTICK_RING_GEOMETRY once connected:
 *    EISCONN; IBTICK_CONN_INFO on SOCK_DGRAM: ENOPROTOOPT or EOPNOTSUPP,
 *    on a new socket state NEW, on a listener LISTEN;
 *  - a blocking send() without a credit honours SO_SNDTIMEO (EAGAIN);
 *    tx_credit_waits counts the EAGAIN and the timed-out wait (>= 2);
 *  - the initial credits (nslots of the peer) are there when connect()
 *    and accept() return; a ring of N slots takes exactly N messages;
 *  - after shutdown(SHUT_WR) the socket still receives (a half close) and
 *    its own send() is EPIPE; the peer's send() after our close() is EPIPE
 *    within 5 s (once the disconnect follows the end-of-stream mark);
 *  - a failed connection: every send() EPIPE (even the first, which TCP
 *    would answer ECONNRESET), every recv() ECONNRESET after the data,
 *    poll POLLERR|POLLHUP, IBTICK_CONN_INFO still works
 *    (state FAILED); veth1 down for 3 s fails the connection (ibtick(7):
 *    a link down for longer than the retries, about half a second);
 *  - what a killed process's close() does with unread or unsent data is
 *    open: orderly (0) or reset (ECONNRESET) are both taken, with the
 *    counts each implies; messages in the killed reader's ring were
 *    acknowledged (tx_unacked 0).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libibtick.h"
#include "vmcheck.h"

/*
 * The connection ring's slot descriptor, struct ibtick_slot as in a feed's
 * ring: msg_max is slot_size minus it, 208 bytes for 256-byte slots.  A
 * connection's ring has 256 slots unless IBTICK_RING_GEOMETRY says
 * otherwise (ibtick(7), "Connections").
 */
#define CONN_SLOT_DESC	((unsigned int)sizeof(struct ibtick_slot))
#define CONN_SLOTS_DEFAULT 256
#define MAXMSG		(IBTICK_SLOT_SIZE_MAX)

static const char *srv_ip, *cli_ip;
static int base_port;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A connection address: unicast IPv4 @ip (NULL: INADDR_ANY), @port. */
static struct sockaddr_ibtick caddr(const char *ip, int port)
{
	struct sockaddr_ibtick sa;

	memset(&sa, 0, sizeof(sa));
	sa.sibt_family = vm_fam;
	sa.sibt_group_family = AF_INET;
	sa.sibt_port = port;
	if (ip && inet_pton(AF_INET, ip, sa.sibt_group) != 1) {
		fprintf(stderr, "conntest: bad address %s\n", ip);
		exit(2);
	}
	return sa;
}

static int csock(void)
{
	int fd = socket(vm_fam, SOCK_SEQPACKET, 0);

	if (fd < 0) {
		perror("socket(SOCK_SEQPACKET)");
		exit(2);
	}
	return fd;
}

static void set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

static int set_geom(int fd, unsigned int nslots, unsigned int slot_size)
{
	struct ibtick_ring_geometry g = { nslots, slot_size };

	return setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g));
}

static int conn_info(int fd, struct ibtick_conn_info *ci)
{
	socklen_t len = sizeof(*ci);

	memset(ci, 0, sizeof(*ci));
	return getsockopt(fd, SOL_IBTICK, IBTICK_CONN_INFO, ci, &len);
}

static void print_info(const char *who, const struct ibtick_conn_info *c)
{
	printf("# %s: state %u msg_max %u local_msg_max %u nslots %u credits %u peer_credits %u "
	       "pending_grants %u inline_max %u tx %llu/%llu rx %llu/%llu read %llu "
	       "credit_waits %llu ctl %llu/%llu unacked %llu cq_errors %llu qp %u peer_qp %u\n",
	       who, c->state, c->msg_max, c->local_msg_max, c->nslots, c->credits,
	       c->peer_credits, c->pending_grants, c->inline_max,
	       (unsigned long long)c->tx_msgs, (unsigned long long)c->tx_bytes,
	       (unsigned long long)c->rx_msgs, (unsigned long long)c->rx_bytes,
	       (unsigned long long)c->rx_read, (unsigned long long)c->tx_credit_waits,
	       (unsigned long long)c->ctl_tx, (unsigned long long)c->ctl_rx,
	       (unsigned long long)c->tx_unacked, (unsigned long long)c->cq_errors,
	       c->qp_num, c->peer_qp_num);
	fflush(stdout);
}

/* A listener on @ip:@port, geometry @nslots x @slot_size (0: default). */
static int listener(const char *ip, int port, int backlog, unsigned int nslots,
		    unsigned int slot_size)
{
	struct sockaddr_ibtick sa = caddr(ip, port);
	int fd = csock();

	if (nslots && set_geom(fd, nslots, slot_size)) {
		perror("listener: IBTICK_RING_GEOMETRY");
		exit(2);
	}
	if (bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, backlog)) {
		fprintf(stderr, "listener %s:%d: %s\n", ip, port, strerror(errno));
		exit(2);
	}
	return fd;
}

/* accept() once poll says a connection is there (@ms at most); -1 else. */
static int accept_within(int lfd, int ms, struct sockaddr_ibtick *peer)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	socklen_t len = sizeof(*peer);
	struct sockaddr_ibtick dummy;

	if (poll(&p, 1, ms) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	return accept(lfd, (void *)(peer ? peer : &dummy), &len);
}

/*
 * A client bound to @local (port 0) and connected to @ip:@port, geometry
 * @nslots x @slot_size (0: default); -1 with errno when connect fails.
 */
static int dial(const char *local, const char *ip, int port, unsigned int nslots,
		unsigned int slot_size)
{
	struct sockaddr_ibtick la = caddr(local, 0), ra = caddr(ip, port);
	int fd = csock(), e;

	if (nslots && set_geom(fd, nslots, slot_size)) {
		perror("dial: IBTICK_RING_GEOMETRY");
		exit(2);
	}
	if (local && bind(fd, (void *)&la, sizeof(la))) {
		fprintf(stderr, "dial: bind %s:0: %s\n", local, strerror(errno));
		exit(2);
	}
	if (connect(fd, (void *)&ra, sizeof(ra))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A connected pair: *cfd the client, *sfd the accepted end; 0 or -1. */
static int pair(int lfd, int port, int *cfd, int *sfd, unsigned int nslots, unsigned int slot_size)
{
	*cfd = dial(cli_ip, srv_ip, port, nslots, slot_size);
	if (*cfd < 0) {
		printf("# connect %s -> %s:%d: %s\n", cli_ip, srv_ip, port, strerror(errno));
		return -1;
	}
	*sfd = accept_within(lfd, 10000, NULL);
	if (*sfd < 0) {
		printf("# accept: %s\n", strerror(errno));
		close(*cfd);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Messages.  Message @i of stream @tag has a length and contents that
 * depend on both (the first is 1 byte, the second msg_max), the sequence
 * number in its first 8 bytes when it has 8: a lost, repeated, reordered
 * or damaged message does not match the one expected next.
 */
static uint32_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static size_t msg_len(uint64_t i, uint32_t tag, size_t max)
{
	/* never past the buffers, whatever msg_max the kernel said */
	if (max > MAXMSG)
		max = MAXMSG;
	if (max < 1)
		max = 1;
	if (i == 0)
		return 1;
	if (i == 1)
		return max;
	return 1 + mix(i ^ ((uint64_t)tag << 40)) % max;
}

static void msg_fill(unsigned char *b, size_t len, uint64_t i, uint32_t tag)
{
	uint32_t h = mix((i << 16) ^ tag ^ 0x5eed);
	size_t k;

	for (k = 0; k < len; k++)
		b[k] = (unsigned char)((h >> ((k & 3) * 8)) + k * 7);
	if (len >= 8)
		memcpy(b, &i, 8);
}

/* 0 when @b (@n bytes) is message @i of @tag; else says what it is. */
static int msg_check(const unsigned char *b, ssize_t n, uint64_t i, uint32_t tag, size_t max,
		     char *why, size_t whylen)
{
	unsigned char want[MAXMSG];
	size_t len = msg_len(i, tag, max);
	uint64_t seq;

	if ((size_t)n != len) {
		if (n >= 8) {
			memcpy(&seq, b, 8);
			snprintf(why, whylen, "message %llu: %zd bytes, not %zu (it says it is %llu)",
				 (unsigned long long)i, n, len, (unsigned long long)seq);
		} else {
			snprintf(why, whylen, "message %llu: %zd bytes, not %zu",
				 (unsigned long long)i, n, len);
		}
		return -1;
	}
	msg_fill(want, len, i, tag);
	if (memcmp(b, want, len)) {
		snprintf(why, whylen, "message %llu: contents differ", (unsigned long long)i);
		return -1;
	}
	return 0;
}

static size_t msg_bytes(uint64_t n, uint32_t tag, size_t max)
{
	size_t sum = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		sum += msg_len(i, tag, max);
	return sum;
}

/* ---------------------------------------------------------------------
 * One direction of a stream: a sender thread and a receiver thread.
 */
struct leg {
	const char *name;	/* "client->server" */
	int tx_fd, rx_fd;
	uint32_t tag;
	size_t max;		/* the sender's msg_max */
	uint64_t n;		/* UINT64_MAX: until an error */
	int tx_timeo_ms, rx_timeo_ms;
	/* results */
	uint64_t sent, got;	/* updated as they go (atomic) */
	int tx_err, rx_err;	/* errno that ended them; 0 if they finished */
	int rx_eof, rx_bad;	/* recv returned 0; a message did not match */
	char why[160];
	double tx_end, rx_end;
	int tx_done, rx_done;	/* set (atomic) when the thread returns */
};

static void *leg_tx(void *arg)
{
	struct leg *l = arg;
	unsigned char buf[MAXMSG];
	uint64_t i;

	set_timeo(l->tx_fd, SO_SNDTIMEO, l->tx_timeo_ms);
	for (i = 0; i < l->n; i++) {
		size_t len = msg_len(i, l->tag, l->max);

		msg_fill(buf, len, i, l->tag);
		if (send(l->tx_fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
			l->tx_err = errno ? errno : EIO;
			break;
		}
		__atomic_store_n(&l->sent, i + 1, __ATOMIC_RELEASE);
	}
	l->tx_end = now();
	__atomic_store_n(&l->tx_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *leg_rx(void *arg)
{
	struct leg *l = arg;
	unsigned char buf[MAXMSG + 64];
	uint64_t i;
	ssize_t n;

	set_timeo(l->rx_fd, SO_RCVTIMEO, l->rx_timeo_ms);
	for (i = 0; i < l->n; i++) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

		n = recvmsg(l->rx_fd, &m, 0);
		if (n == 0) {
			l->rx_eof = 1;
			break;
		}
		if (n < 0) {
			l->rx_err = errno;
			break;
		}
		if ((m.msg_flags & MSG_TRUNC) ||
		    msg_check(buf, n, i, l->tag, l->max, l->why, sizeof(l->why))) {
			if (m.msg_flags & MSG_TRUNC)
				snprintf(l->why, sizeof(l->why), "message %llu: MSG_TRUNC",
					 (unsigned long long)i);
			l->rx_bad = 1;
			break;
		}
		__atomic_store_n(&l->got, i + 1, __ATOMIC_RELEASE);
	}
	l->rx_end = now();
	__atomic_store_n(&l->rx_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Join @t within @deadline (CLOCK_REALTIME seconds from now); 0 if joined. */
static int join_within(pthread_t t, double secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs;
	ts.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(t, NULL, &ts);
}

static void leg_init(struct leg *l, const char *name, int tx_fd, int rx_fd, uint32_t tag,
		     size_t max, uint64_t n, int timeo_ms)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->tx_fd = tx_fd;
	l->rx_fd = rx_fd;
	l->tag = tag;
	l->max = max;
	l->n = n;
	l->tx_timeo_ms = timeo_ms;
	l->rx_timeo_ms = timeo_ms;
}

/* SIGUSR1 is blocked in every thread and taken with sigtimedwait(). */
static int wait_usr1(int secs)
{
	struct timespec ts = { secs, 0 };
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	return sigtimedwait(&s, NULL, &ts) == SIGUSR1 ? 0 : -1;
}

/*
 * Until the counters of a quiet connection agree (5 s at most): what one
 * side sent of control messages the other took, and every slot of each
 * ring is either a credit at the sender or a grant pending at the
 * receiver.
 */
static void settle(int cfd, int sfd, struct ibtick_conn_info *c, struct ibtick_conn_info *s)
{
	double end = now() + 5;

	do {
		conn_info(cfd, c);
		conn_info(sfd, s);
		if (c->ctl_tx == s->ctl_rx && s->ctl_tx == c->ctl_rx &&
		    c->credits + s->pending_grants == s->nslots &&
		    s->credits + c->pending_grants == c->nslots &&
		    c->peer_credits == s->credits && s->peer_credits == c->credits)
			return;
		msleep(50);
	} while (now() < end);
}

/* ---------------------------------------------------------------------
 * stream
 */
static int mode_stream(uint64_t n, int hold)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), cfd, sfd;
	struct ibtick_conn_info c, s;
	struct leg up, down;
	pthread_t t[4];
	double t0, t1;
	char what[400];
	int i;

	if (pair(lfd, base_port, &cfd, &sfd, 0, 0)) {
		check(0, "stream: connect and accept", errno);
		return 1;
	}
	check(1, "stream: connect and accept", 0);
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	print_info("client at start", &c);
	print_info("server at start", &s);
	check(c.state == IBTICK_CONN_ESTABLISHED && s.state == IBTICK_CONN_ESTABLISHED,
	      "stream: both ends ESTABLISHED", 0);
	check(c.msg_max == IBTICK_SLOT_SIZE_DEFAULT - CONN_SLOT_DESC &&
	      s.msg_max == IBTICK_SLOT_SIZE_DEFAULT - CONN_SLOT_DESC,
	      "stream: msg_max is the default slot's payload (208)", 0);
	check(c.msg_max == s.local_msg_max && s.msg_max == c.local_msg_max,
	      "stream: msg_max is the peer's local_msg_max", 0);
	check(c.nslots == CONN_SLOTS_DEFAULT && s.nslots == CONN_SLOTS_DEFAULT,
	      "stream: default geometry: 256 slots each", 0);
	check(c.qp_num && s.qp_num && c.peer_qp_num == s.qp_num && s.peer_qp_num == c.qp_num,
	      "stream: QP numbers: each end's peer_qp_num is the other's qp_num", 0);
	if (c.msg_max < 1 || c.msg_max > MAXMSG || s.msg_max < 1 || s.msg_max > MAXMSG)
		return 1;

	leg_init(&up, "client->server", cfd, sfd, 1, c.msg_max, n, 30000);
	leg_init(&down, "server->client", sfd, cfd, 2, s.msg_max, n, 30000);
	t0 = now();
	pthread_create(&t[0], NULL, leg_tx, &up);
	pthread_create(&t[1], NULL, leg_rx, &up);
	pthread_create(&t[2], NULL, leg_tx, &down);
	pthread_create(&t[3], NULL, leg_rx, &down);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	t1 = now();
	printf("# %llu messages each way in %.1f s (%.0f/s each way)\n",
	       (unsigned long long)n, t1 - t0, n / (t1 - t0));
	for (i = 0; i < 2; i++) {
		struct leg *l = i ? &down : &up;

		snprintf(what, sizeof(what), "stream %s: %llu sent, %llu read in order and intact%s%s",
			 l->name, (unsigned long long)l->sent, (unsigned long long)l->got,
			 l->rx_bad ? ": " : "", l->rx_bad ? l->why : "");
		check(l->sent == n && l->got == n && !l->tx_err && !l->rx_err && !l->rx_eof &&
		      !l->rx_bad, what, l->tx_err ? l->tx_err : l->rx_err);
	}
	settle(cfd, sfd, &c, &s);
	print_info("client", &c);
	print_info("server", &s);
	check(c.tx_msgs == n && s.rx_msgs == n && s.rx_read == n,
	      "stream counters: client tx_msgs == server rx_msgs == server rx_read == N", 0);
	check(s.tx_msgs == n && c.rx_msgs == n && c.rx_read == n,
	      "stream counters: server tx_msgs == client rx_msgs == client rx_read == N", 0);
	check(c.tx_bytes == msg_bytes(n, 1, c.msg_max) && s.rx_bytes == c.tx_bytes,
	      "stream counters: client tx_bytes == server rx_bytes == bytes sent", 0);
	check(s.tx_bytes == msg_bytes(n, 2, s.msg_max) && c.rx_bytes == s.tx_bytes,
	      "stream counters: server tx_bytes == client rx_bytes == bytes sent", 0);
	check(!c.tx_unacked && !s.tx_unacked && !c.cq_errors && !s.cq_errors,
	      "stream counters: tx_unacked == 0, cq_errors == 0 on both ends", 0);
	check(c.ctl_tx == s.ctl_rx && s.ctl_tx == c.ctl_rx,
	      "stream counters: control messages sent == taken, each way", 0);
	check(c.credits + s.pending_grants == s.nslots && s.credits + c.pending_grants == c.nslots,
	      "stream counters: quiet: sender's credits + receiver's pending grants == receiver's nslots",
	      0);
	check(c.peer_credits == s.credits && s.peer_credits == c.credits,
	      "stream counters: quiet: peer_credits == the peer's credits", 0);
	check(c.state == IBTICK_CONN_ESTABLISHED && s.state == IBTICK_CONN_ESTABLISHED,
	      "stream: still ESTABLISHED after the stream", 0);
	if (hold) {
		printf("holding %u %u\n", c.qp_num, s.qp_num);
		fflush(stdout);
		check(wait_usr1(30) == 0, "stream: held until the script's SIGUSR1", 0);
	}
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * flow: credits
 */
struct reader {
	int fd;
	uint64_t from, n;
	uint32_t tag;
	size_t max;
	uint64_t got;
	int bad, err;
	char why[160];
};

static void *read_n(void *arg)
{
	struct reader *r = arg;
	unsigned char buf[MAXMSG + 64];
	uint64_t i;
	ssize_t n;

	set_timeo(r->fd, SO_RCVTIMEO, 20000);
	for (i = r->from; i < r->from + r->n; i++) {
		n = recv(r->fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			r->err = n < 0 ? errno : 0;
			snprintf(r->why, sizeof(r->why), "message %llu: recv %zd",
				 (unsigned long long)i, n);
			r->bad = 1;
			return NULL;
		}
		if (msg_check(buf, n, i, r->tag, r->max, r->why, sizeof(r->why))) {
			r->bad = 1;
			return NULL;
		}
		r->got++;
	}
	return NULL;
}

static int mode_flow(void)
{
	const unsigned int nslots = 64, slot_size = 128;
	const size_t want_max = slot_size - CONN_SLOT_DESC;
	size_t mmax;
	int lfd = listener(srv_ip, base_port, 8, nslots, slot_size), cfd, sfd, r, e;
	struct ibtick_conn_info c, s;
	unsigned char buf[MAXMSG];
	struct pollfd p;
	struct reader rd;
	pthread_t t;
	uint64_t i, sent = 0, total;
	double t0, dt;
	char what[400];

	/* the client's own ring: 128 slots of 256 (the server sends nothing) */
	if (pair(lfd, base_port, &cfd, &sfd, 128, 256)) {
		check(0, "flow: connect and accept", errno);
		return 1;
	}
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	print_info("client (sender)", &c);
	print_info("server (receiver)", &s);
	check(s.nslots == nslots && c.nslots == 128,
	      "flow: IBTICK_RING_GEOMETRY applies: listener's to the accepted socket, client's own", 0);
	check(c.msg_max == want_max && s.local_msg_max == want_max && s.msg_max == 256 - CONN_SLOT_DESC,
	      "flow: msg_max follows the receiver's slot size", 0);
	EXPECT_ERR(set_geom(cfd, 64, 64), EISCONN, "flow: IBTICK_RING_GEOMETRY once connected -> EISCONN");
	/* the credits: one per slot of the receiver's ring, there once connected */
	p = (struct pollfd){ .fd = cfd, .events = POLLOUT };
	check(poll(&p, 1, 5000) == 1 && (p.revents & POLLOUT), "flow: POLLOUT before any send", errno);
	conn_info(cfd, &c);
	check(c.credits == nslots, "flow: the sender starts with nslots credits", 0);
	/* the messages follow the kernel's msg_max, checked above */
	mmax = c.msg_max;
	if (mmax < 1 || mmax > MAXMSG)
		return 1;

	/* a receiver that does not read: exactly nslots messages go */
	e = 0;
	for (i = 0; i < 10 * nslots; i++) {
		size_t len = msg_len(i, 7, mmax);

		msg_fill(buf, len, i, 7);
		if (send(cfd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len) {
			e = errno;
			break;
		}
		sent++;
	}
	snprintf(what, sizeof(what), "flow: non-blocking sender: %llu messages, then EAGAIN (want %u)",
		 (unsigned long long)sent, nslots);
	check(sent == nslots && e == EAGAIN, what, e);
	p = (struct pollfd){ .fd = cfd, .events = POLLOUT };
	r = poll(&p, 1, 500);
	check(r == 0 && !(p.revents & POLLOUT), "flow: no POLLOUT without credits (500 ms)", errno);
	set_timeo(cfd, SO_SNDTIMEO, 300);
	msg_fill(buf, msg_len(sent, 7, mmax), sent, 7);
	t0 = now();
	EXPECT_ERR(send(cfd, buf, msg_len(sent, 7, mmax), MSG_NOSIGNAL), EAGAIN,
		   "flow: blocking send without credits, SO_SNDTIMEO 300 ms -> EAGAIN");
	dt = now() - t0;
	check(dt >= 0.29 && dt < 5, "flow: ... after its 300 ms", 0);
	msleep(200);	/* the messages in flight reach the ring */
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	print_info("client, stopped", &c);
	print_info("server, stopped", &s);
	check(c.credits == 0 && c.tx_msgs == nslots && c.tx_credit_waits >= 2,
	      "flow: sender: 0 credits, nslots sent, its waits counted", 0);
	check(s.rx_msgs == nslots && s.rx_read == 0 && s.peer_credits == 0,
	      "flow: receiver: nslots in its ring, none read, the peer has no credit", 0);
	check(c.state == IBTICK_CONN_ESTABLISHED && s.state == IBTICK_CONN_ESTABLISHED,
	      "flow: a full ring is no failure: both ESTABLISHED", 0);

	/* now it reads everything while the sender goes on, waiting in poll */
	total = 10 * nslots + 7;
	rd = (struct reader){ .fd = sfd, .from = 0, .n = total, .tag = 7, .max = mmax };
	pthread_create(&t, NULL, read_n, &rd);
	while (sent < total) {
		size_t len = msg_len(sent, 7, mmax);

		p = (struct pollfd){ .fd = cfd, .events = POLLOUT };
		if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLOUT))
			break;
		msg_fill(buf, len, sent, 7);
		if (send(cfd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len)
			sent++;
		else if (errno != EAGAIN)
			break;
	}
	snprintf(what, sizeof(what), "flow: poll(POLLOUT) sender finished: %llu of %llu sent",
		 (unsigned long long)sent, (unsigned long long)total);
	check(sent == total, what, errno);
	if (join_within(t, 30)) {
		check(0, "flow: the reader finished within 30 s", 0);
		return 1;
	}
	snprintf(what, sizeof(what), "flow: the receiver read all %llu in order and intact%s%s",
		 (unsigned long long)total, rd.bad ? ": " : "", rd.bad ? rd.why : "");
	check(rd.got == total && !rd.bad, what, rd.err);
	settle(cfd, sfd, &c, &s);
	print_info("client, end", &c);
	print_info("server, end", &s);
	check(c.tx_msgs == total && s.rx_msgs == total && s.rx_read == total &&
	      c.tx_bytes == msg_bytes(total, 7, mmax) && s.rx_bytes == c.tx_bytes,
	      "flow: counters: tx_msgs == rx_msgs == rx_read, bytes too", 0);
	check(!c.tx_unacked && !c.cq_errors && !s.cq_errors, "flow: no unacked send, no CQ error", 0);
	check(c.credits + s.pending_grants == nslots, "flow: quiet: credits + pending grants == nslots", 0);
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * many: clients connecting at once while others stream
 */
struct mconn {
	int id, port;
	uint64_t k;		/* messages; for a streamer, at least */
	int streamer;		/* keep going until @stop */
	volatile int *stop;
	pthread_barrier_t *start;
	/* results */
	int connected, err, bad;
	uint64_t echoed;
	char why[160];
};

/* The server's side of one connection: echo every message until EOF. */
static void *echo(void *arg)
{
	int fd = (int)(intptr_t)arg;
	unsigned char buf[MAXMSG + 64];
	ssize_t n;

	set_timeo(fd, SO_RCVTIMEO, 60000);
	set_timeo(fd, SO_SNDTIMEO, 60000);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (send(fd, buf, n, MSG_NOSIGNAL) != n)
			break;
	close(fd);
	return NULL;
}

struct acceptor {
	int lfd, want;
	int got, bad_peer;
	pthread_t echo[64];
};

static void *acceptor(void *arg)
{
	struct acceptor *a = arg;
	struct sockaddr_ibtick peer, cli = caddr(cli_ip, 0);

	while (a->got < a->want) {
		int fd = accept_within(a->lfd, 30000, &peer);

		if (fd < 0)
			break;
		if (peer.sibt_family != vm_fam || peer.sibt_group_family != AF_INET ||
		    memcmp(peer.sibt_group, cli.sibt_group, 4) || !peer.sibt_port)
			a->bad_peer++;
		pthread_create(&a->echo[a->got], NULL, echo, (void *)(intptr_t)fd);
		a->got++;
	}
	return NULL;
}

/* One client: connect, then send and read the echoes with 16 in flight. */
static void *mclient(void *arg)
{
	struct mconn *m = arg;
	unsigned char buf[MAXMSG + 64];
	struct ibtick_conn_info ci;
	uint32_t tag = 100 + m->id;
	uint64_t sent = 0;
	size_t max;
	int fd;

	if (m->start)
		pthread_barrier_wait(m->start);
	fd = dial(cli_ip, srv_ip, m->port, 0, 0);
	if (fd < 0) {
		m->err = errno;
		snprintf(m->why, sizeof(m->why), "connect: %s", strerror(errno));
		return NULL;
	}
	m->connected = 1;
	conn_info(fd, &ci);
	max = ci.msg_max ? ci.msg_max : 1;
	if (max > MAXMSG)
		max = MAXMSG;
	set_timeo(fd, SO_RCVTIMEO, 30000);
	set_timeo(fd, SO_SNDTIMEO, 30000);
	for (;;) {
		int more = m->streamer ? !*m->stop || sent < m->k : sent < m->k;

		if (more && sent - m->echoed < 16) {
			size_t len = msg_len(sent, tag, max);

			msg_fill(buf, len, sent, tag);
			if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
				m->err = errno;
				snprintf(m->why, sizeof(m->why), "send %llu: %s",
					 (unsigned long long)sent, strerror(errno));
				break;
			}
			sent++;
			continue;
		}
		if (m->echoed == sent)
			break;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0) {
			m->err = n < 0 ? errno : 0;
			snprintf(m->why, sizeof(m->why), "echo %llu: recv %zd (%s)",
				 (unsigned long long)m->echoed, n, n < 0 ? strerror(errno) : "EOF");
			m->bad = 1;
			break;
		}
		if (msg_check(buf, n, m->echoed, tag, max, m->why, sizeof(m->why))) {
			m->bad = 1;
			break;
		}
		__atomic_store_n(&m->echoed, m->echoed + 1, __ATOMIC_RELEASE);
	}
	m->k = sent;
	close(fd);
	return NULL;
}

static int mode_many(int ncli, uint64_t k)
{
	const int nstream = 4;
	int lfd = listener(srv_ip, base_port, 64, 0, 0), i, ok;
	struct mconn sc[4], mc[64];
	struct acceptor acc = { .lfd = lfd, .want = nstream + ncli };
	pthread_t ts[4], tm[64], ta;
	pthread_barrier_t bar;
	volatile int stop = 0;
	char what[400];
	double end;

	if (ncli < 1 || ncli > 60)
		ncli = 16;
	pthread_create(&ta, NULL, acceptor, &acc);
	for (i = 0; i < nstream; i++) {
		sc[i] = (struct mconn){ .id = i, .port = base_port, .k = 200, .streamer = 1,
					.stop = &stop };
		pthread_create(&ts[i], NULL, mclient, &sc[i]);
	}
	/* the streamers are accepted and their echoes flowing */
	end = now() + 30;
	for (;;) {
		ok = 1;
		for (i = 0; i < nstream; i++)
			ok &= __atomic_load_n(&sc[i].echoed, __ATOMIC_RELAXED) >= 50;
		if (ok || now() > end)
			break;
		msleep(20);
	}
	check(ok, "many: 4 connections streaming before the burst", 0);
	pthread_barrier_init(&bar, NULL, ncli);
	for (i = 0; i < ncli; i++) {
		mc[i] = (struct mconn){ .id = 10 + i, .port = base_port, .k = k, .start = &bar };
		pthread_create(&tm[i], NULL, mclient, &mc[i]);
	}
	ok = 1;
	for (i = 0; i < ncli; i++) {
		if (join_within(tm[i], 120)) {
			printf("# client %d did not finish in 120 s\n", i);
			fflush(stdout);
			check(0, "many: every client finished", 0);
			_exit(1);
		}
		if (!mc[i].connected || mc[i].bad || mc[i].echoed != k) {
			printf("# client %d: connected %d echoed %llu of %llu: %s\n", i,
			       mc[i].connected, (unsigned long long)mc[i].echoed,
			       (unsigned long long)k, mc[i].why);
			ok = 0;
		}
	}
	snprintf(what, sizeof(what), "many: %d clients connected at once, each got its %llu echoes intact",
		 ncli, (unsigned long long)k);
	check(ok, what, 0);
	stop = 1;
	ok = 1;
	for (i = 0; i < nstream; i++) {
		if (join_within(ts[i], 60)) {
			check(0, "many: the streamers finished", 0);
			_exit(1);
		}
		printf("# streamer %d: %llu echoed%s%s\n", i, (unsigned long long)sc[i].echoed,
		       sc[i].why[0] ? ": " : "", sc[i].why);
		ok &= sc[i].connected && !sc[i].bad && sc[i].echoed == sc[i].k && sc[i].k >= 200;
	}
	check(ok, "many: the 4 streamers' echoes all intact, across the burst", 0);
	if (join_within(ta, 5))
		check(0, "many: the acceptor finished", 0);
	snprintf(what, sizeof(what), "many: accepted %d of %d, every peer address the client's",
		 acc.got, nstream + ncli);
	check(acc.got == nstream + ncli && !acc.bad_peer, what, 0);
	for (i = 0; i < acc.got; i++)
		join_within(acc.echo[i], 10);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * close: orderly ends
 */
static volatile sig_atomic_t sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

/* Read @k messages of @tag then expect recv() == 0; returns 1 if so. */
static int read_then_eof(int fd, uint64_t k, uint32_t tag, size_t max, const char *who)
{
	struct reader rd = { .fd = fd, .from = 0, .n = k, .tag = tag, .max = max };
	char buf[64], what[240];
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	ssize_t n;

	read_n(&rd);
	snprintf(what, sizeof(what), "close: %s: the %llu messages sent before it, intact%s%s", who,
		 (unsigned long long)k, rd.bad ? ": " : "", rd.bad ? rd.why : "");
	check(rd.got == k && !rd.bad, what, rd.err);
	set_timeo(fd, SO_RCVTIMEO, 10000);
	n = recv(fd, buf, sizeof(buf), 0);
	snprintf(what, sizeof(what), "close: %s: then recv returns 0", who);
	check(n == 0, what, errno);
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	snprintf(what, sizeof(what), "close: %s: and 0 again", who);
	check(n == 0, what, errno);
	snprintf(what, sizeof(what), "close: %s: poll says POLLIN|POLLRDHUP", who);
	check(poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLRDHUP)) == (POLLIN | POLLRDHUP),
	      what, errno);
	return rd.got == k;
}

static int send_k(int fd, uint64_t k, uint32_t tag, size_t max)
{
	unsigned char buf[MAXMSG];
	uint64_t i;

	set_timeo(fd, SO_SNDTIMEO, 10000);
	for (i = 0; i < k; i++) {
		size_t len = msg_len(i, tag, max);

		msg_fill(buf, len, i, tag);
		if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
			return -1;
	}
	return 0;
}

static int mode_close(uint64_t k)
{
	/* K messages wait unread: rings of 1024 slots each way */
	int lfd = listener(srv_ip, base_port, 8, 1024, 256), cfd, sfd;
	struct ibtick_conn_info c, s;
	char buf[64] = "x";
	ssize_t r;
	double end;
	int e;

	signal(SIGPIPE, on_sigpipe);
	if (k < 1 || k > 1000)
		k = 1000;

	/* close(): K messages, then 0, then EPIPE for the other end */
	if (pair(lfd, base_port, &cfd, &sfd, 1024, 256)) {
		check(0, "close: connect and accept", errno);
		return 1;
	}
	conn_info(cfd, &c);
	check(send_k(cfd, k, 21, c.msg_max) == 0, "close: client sends K messages", errno);
	close(cfd);
	read_then_eof(sfd, k, 21, c.msg_max, "after close()");
	conn_info(sfd, &s);
	print_info("server after the peer's close", &s);
	check(s.state == IBTICK_CONN_PEER_CLOSED, "close: state PEER_CLOSED", 0);
	check(s.rx_read == k && s.rx_msgs == k, "close: rx_msgs == rx_read == K", 0);
	/* the peer is gone: sends fail, at once or once its close is known */
	/*
	 * The end-of-stream mark alone may be a shutdown(SHUT_WR): sends go on
	 * until the peer's disconnect says it closed (5 s at most)
	 */
	end = now() + 5;
	while ((r = send(sfd, buf, 1, MSG_NOSIGNAL | MSG_DONTWAIT)) == 1 && now() < end)
		msleep(10);
	e = errno;
	check(r < 0 && e == EPIPE, "close: send to a closed peer -> EPIPE (MSG_NOSIGNAL) within 5 s", e);
	check(sigpipes == 0, "close: no SIGPIPE with MSG_NOSIGNAL", 0);
	EXPECT_ERR(send(sfd, buf, 1, MSG_DONTWAIT), EPIPE, "close: send without MSG_NOSIGNAL -> EPIPE");
	check(sigpipes == 1, "close: ... and SIGPIPE", 0);
	close(sfd);

	/* shutdown(SHUT_WR): a half close */
	if (pair(lfd, base_port, &cfd, &sfd, 1024, 256)) {
		check(0, "shutdown: connect and accept", errno);
		return 1;
	}
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	check(send_k(cfd, k, 22, c.msg_max) == 0, "shutdown: client sends K messages", errno);
	EXPECT_OK(shutdown(cfd, SHUT_WR), "shutdown: SHUT_WR");
	EXPECT_ERR(send(cfd, buf, 1, MSG_NOSIGNAL), EPIPE, "shutdown: send after SHUT_WR -> EPIPE");
	read_then_eof(sfd, k, 22, c.msg_max, "after shutdown(SHUT_WR)");
	conn_info(sfd, &s);
	check(s.state == IBTICK_CONN_PEER_CLOSED, "shutdown: state PEER_CLOSED", 0);
	/* the other way still works until the server closes too */
	check(send_k(sfd, k, 23, s.msg_max) == 0, "shutdown: the server still sends K messages", errno);
	close(sfd);
	read_then_eof(cfd, k, 23, s.msg_max, "the half-closed client, after the server's close()");
	conn_info(cfd, &c);
	print_info("client at the end", &c);
	check(c.ctl_tx >= 1 && c.rx_read == k && !c.cq_errors,
	      "shutdown: client counted its close message, read K, no CQ error", 0);
	close(cfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * kill: a process that holds one end is SIGKILLed
 */

/* A child that connects and then does @what; it says "1" on @fd once
 * connected.  what 0: never read; 1: send forever, counting in @count. */
static pid_t child(int what, int port, volatile uint64_t *count, int *pfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		exit(2);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (pid == 0) {
		unsigned char buf[MAXMSG];
		struct ibtick_conn_info ci;
		uint64_t i;
		int fd;

		close(p[0]);
		fd = dial(cli_ip, srv_ip, port, 64, 256);
		if (fd < 0) {
			perror("child: connect");
			_exit(1);
		}
		conn_info(fd, &ci);
		if (write(p[1], "1", 1) != 1)
			_exit(1);
		if (what == 0) {
			for (;;)
				pause();
		}
		for (i = 0;; i++) {
			size_t len = msg_len(i, 31, ci.msg_max);

			msg_fill(buf, len, i, 31);
			if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
				_exit(1);
			*count = i + 1;
		}
	}
	close(p[1]);
	*pfd = p[0];
	return pid;
}

static int ready(int pfd, int ms)
{
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	char c;

	return poll(&p, 1, ms) == 1 && read(pfd, &c, 1) == 1;
}

struct blocked_send {
	int fd, err;
	ssize_t r;
	double end;
};

static void *blocked_send(void *arg)
{
	struct blocked_send *b = arg;
	char buf[16] = "blocked";

	set_timeo(b->fd, SO_SNDTIMEO, 20000);
	b->r = send(b->fd, buf, sizeof(buf), MSG_NOSIGNAL);
	b->err = errno;
	b->end = now();
	return NULL;
}

static int mode_kill_reader(void)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), sfd, pfd, st, e = 0;
	struct ibtick_conn_info s;
	struct blocked_send b;
	unsigned char buf[MAXMSG];
	struct pollfd p;
	uint64_t sent = 0;
	pthread_t t;
	pid_t pid;
	double t0;
	char what[400];
	ssize_t n;

	pid = child(0, base_port, NULL, &pfd);
	sfd = accept_within(lfd, 10000, NULL);
	if (sfd < 0 || !ready(pfd, 10000)) {
		check(0, "kill-reader: connect and accept", errno);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	conn_info(sfd, &s);
	while (sent < 1000) {
		size_t len = msg_len(sent, 32, s.msg_max);

		msg_fill(buf, len, sent, 32);
		if (send(sfd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len) {
			e = errno;
			break;
		}
		sent++;
	}
	snprintf(what, sizeof(what), "kill-reader: the reader's 64 slots filled (%llu sent, then %s)",
		 (unsigned long long)sent, strerror(e));
	check(sent == 64 && e == EAGAIN, what, e);
	b = (struct blocked_send){ .fd = sfd };
	pthread_create(&t, NULL, blocked_send, &b);
	msleep(500);	/* the sender blocks, the acks are in */
	conn_info(sfd, &s);
	print_info("server before the kill", &s);
	t0 = now();
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (join_within(t, 10)) {
		check(0, "kill-reader: the blocked send woke within 10 s", 0);
		_exit(1);
	}
	snprintf(what, sizeof(what), "kill-reader: the blocked send woke with EPIPE (after %.2f s)",
		 b.end - t0);
	check(b.r < 0 && b.err == EPIPE && b.end - t0 < 5, what, b.err);
	EXPECT_ERR(send(sfd, buf, 1, MSG_NOSIGNAL | MSG_DONTWAIT), EPIPE, "kill-reader: send -> EPIPE");
	n = recv(sfd, buf, sizeof(buf), MSG_DONTWAIT);
	snprintf(what, sizeof(what), "kill-reader: recv -> 0 or ECONNRESET (%zd, %s)", n,
		 n < 0 ? strerror(errno) : "");
	check(n == 0 || (n < 0 && errno == ECONNRESET), what, errno);
	p = (struct pollfd){ .fd = sfd, .events = POLLIN | POLLOUT | POLLRDHUP };
	poll(&p, 1, 0);
	printf("# kill-reader: poll revents 0x%x\n", p.revents);
	check(p.revents & (POLLHUP | POLLRDHUP), "kill-reader: poll: POLLHUP or POLLRDHUP", 0);
	conn_info(sfd, &s);
	print_info("server after the kill", &s);
	check(s.tx_msgs == 64 && s.tx_unacked == 0,
	      "kill-reader: 64 sent, all acknowledged (they were in the reader's ring)", 0);
	check(s.state == IBTICK_CONN_FAILED || s.state == IBTICK_CONN_PEER_CLOSED,
	      "kill-reader: state FAILED or PEER_CLOSED", 0);
	close(pfd);
	close(sfd);
	close(lfd);
	return 0;
}

static int mode_kill_sender(void)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), sfd, pfd, st;
	volatile uint64_t *count;
	struct ibtick_conn_info s;
	unsigned char buf[MAXMSG + 64];
	uint64_t got = 0, done;
	char what[400], why[160] = "";
	int end_err = 0, bad = 0, eof = 0;
	pid_t pid;
	ssize_t n;

	count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED)
		return 2;
	*count = 0;
	pid = child(1, base_port, count, &pfd);
	sfd = accept_within(lfd, 10000, NULL);
	if (sfd < 0 || !ready(pfd, 10000)) {
		check(0, "kill-sender: connect and accept", errno);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	conn_info(sfd, &s);
	set_timeo(sfd, SO_RCVTIMEO, 10000);
	for (;;) {
		if (got == 2000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
		n = recv(sfd, buf, sizeof(buf), 0);
		if (n == 0) {
			eof = 1;
			break;
		}
		if (n < 0) {
			end_err = errno;
			break;
		}
		if (msg_check(buf, n, got, 31, s.local_msg_max, why, sizeof(why))) {
			bad = 1;
			break;
		}
		got++;
	}
	done = *count;
	snprintf(what, sizeof(what),
		 "kill-sender: %llu read in order and intact, the sender's send() returned %llu, then %s%s%s",
		 (unsigned long long)got, (unsigned long long)done,
		 eof ? "0" : strerror(end_err), bad ? ": " : "", why);
	check(!bad && got > 2000 && (eof || end_err == ECONNRESET), what, end_err);
	/*
	 * An orderly end (0) came after every message the sender posted;
	 * a reset may have lost those not yet acknowledged.  The child may
	 * have been killed between a send and its count: one more.
	 */
	if (eof)
		check(got >= done && got <= done + 1,
		      "kill-sender: ended by 0: every message send() took arrived", 0);
	else
		check(got <= done + 1, "kill-sender: ended by ECONNRESET: no more than were sent", 0);
	conn_info(sfd, &s);
	print_info("server after the kill", &s);
	check(s.rx_read == got && s.rx_msgs == got, "kill-sender: rx_msgs == rx_read == read", 0);
	close(pfd);
	close(sfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * break: a fault under a stream both ways
 */
static int mode_break(int secs)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), cfd, sfd, i, ok;
	struct ibtick_conn_info c, s, c2, s2;
	struct leg up, down, *legs[2] = { &up, &down };
	struct pollfd p;
	pthread_t t[4];
	double t_fault, end;
	char what[400];
	int so_err;
	socklen_t len;

	if (pair(lfd, base_port, &cfd, &sfd, 0, 0)) {
		check(0, "break: connect and accept", errno);
		return 1;
	}
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	/* timeouts longer than the bound: a thread not woken shows */
	leg_init(&up, "client->server", cfd, sfd, 41, c.msg_max, UINT64_MAX, (secs + 30) * 1000);
	leg_init(&down, "server->client", sfd, cfd, 42, s.msg_max, UINT64_MAX, (secs + 30) * 1000);
	pthread_create(&t[0], NULL, leg_tx, &up);
	pthread_create(&t[1], NULL, leg_rx, &up);
	pthread_create(&t[2], NULL, leg_tx, &down);
	pthread_create(&t[3], NULL, leg_rx, &down);
	end = now() + 30;
	while ((__atomic_load_n(&up.got, __ATOMIC_ACQUIRE) < 1000 ||
		__atomic_load_n(&down.got, __ATOMIC_ACQUIRE) < 1000) && now() < end)
		msleep(10);
	check(up.got >= 1000 && down.got >= 1000, "break: streaming both ways", 0);
	printf("streaming\n");
	fflush(stdout);
	if (wait_usr1(60)) {
		check(0, "break: the script's SIGUSR1 within 60 s", 0);
		_exit(1);
	}
	t_fault = now();
	ok = !up.tx_done && !up.rx_done && !down.tx_done && !down.rx_done;
	check(ok, "break: every thread still streaming when the fault came", 0);
	for (i = 0; i < 4; i++) {
		if (join_within(t[i], secs - (now() - t_fault) > 0 ? secs - (now() - t_fault) : 0)) {
			printf("# thread %d (%s %s) still blocked %d s after the fault\n", i,
			       legs[i / 2]->name, i % 2 ? "reader" : "sender", secs);
			for (ok = 0; ok < 2; ok++)
				printf("# %s: sent %llu (%s, %s), read %llu (%s, %s)\n", legs[ok]->name,
				       (unsigned long long)legs[ok]->sent,
				       legs[ok]->tx_done ? "ended" : "running",
				       strerror(legs[ok]->tx_err),
				       (unsigned long long)legs[ok]->got,
				       legs[ok]->rx_done ? "ended" : "running",
				       legs[ok]->rx_eof ? "EOF" : strerror(legs[ok]->rx_err));
			conn_info(cfd, &c);
			conn_info(sfd, &s);
			print_info("client", &c);
			print_info("server", &s);
			check(0, "break: both ends woke within the bound", 0);
			fflush(stdout);
			_exit(1);
		}
	}
	for (i = 0; i < 2; i++) {
		struct leg *l = legs[i];

		snprintf(what, sizeof(what),
			 "break %s: sender woke with EPIPE (%s, %.1f s), reader with ECONNRESET (%s%s, %.1f s)",
			 l->name, strerror(l->tx_err), l->tx_end - t_fault,
			 l->rx_eof ? "EOF" : strerror(l->rx_err), l->rx_bad ? ", bad message" : "",
			 l->rx_end - t_fault);
		check(l->tx_err == EPIPE && l->rx_err == ECONNRESET && !l->rx_eof && !l->rx_bad &&
		      l->tx_end - t_fault <= secs && l->rx_end - t_fault <= secs, what, 0);
		if (l->rx_bad)
			printf("# %s: %s\n", l->name, l->why);
	}
	p = (struct pollfd){ .fd = cfd, .events = POLLIN | POLLOUT };
	poll(&p, 1, 0);
	check((p.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP),
	      "break: client poll: POLLERR|POLLHUP", 0);
	p = (struct pollfd){ .fd = sfd, .events = POLLIN | POLLOUT };
	poll(&p, 1, 0);
	check((p.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP),
	      "break: server poll: POLLERR|POLLHUP", 0);
	/* SO_ERROR was taken by the failing calls or holds the cause once */
	len = sizeof(so_err);
	getsockopt(cfd, SOL_SOCKET, SO_ERROR, &so_err, &len);
	len = sizeof(so_err);
	check(getsockopt(cfd, SOL_SOCKET, SO_ERROR, &so_err, &len) == 0 && so_err == 0,
	      "break: SO_ERROR reads 0 the second time", so_err);
	/* the senders' accounting settles once the flushed sends are in */
	end = now() + 5;
	do {
		conn_info(cfd, &c);
		conn_info(sfd, &s);
		msleep(200);
		conn_info(cfd, &c2);
		conn_info(sfd, &s2);
	} while ((memcmp(&c, &c2, sizeof(c)) || memcmp(&s, &s2, sizeof(s))) && now() < end);
	print_info("client after the fault", &c);
	print_info("server after the fault", &s);
	check(c.state == IBTICK_CONN_FAILED && s.state == IBTICK_CONN_FAILED, "break: both FAILED", 0);
	check(c.tx_msgs == up.sent && s.tx_msgs == down.sent, "break: tx_msgs == sends that returned", 0);
	check(s.rx_read == up.got && c.rx_read == down.got, "break: rx_read == messages read", 0);
	check(s.rx_msgs == s.rx_read && c.rx_msgs == c.rx_read,
	      "break: recv returned everything that had arrived before ECONNRESET", 0);
	snprintf(what, sizeof(what),
		 "break: acknowledged sends arrived: client %llu - %llu unacked <= %llu read <= %llu",
		 (unsigned long long)c.tx_msgs, (unsigned long long)c.tx_unacked,
		 (unsigned long long)s.rx_read, (unsigned long long)c.tx_msgs);
	check(c.tx_msgs - c.tx_unacked <= s.rx_read && s.rx_read <= c.tx_msgs, what, 0);
	snprintf(what, sizeof(what),
		 "break: acknowledged sends arrived: server %llu - %llu unacked <= %llu read <= %llu",
		 (unsigned long long)s.tx_msgs, (unsigned long long)s.tx_unacked,
		 (unsigned long long)c.rx_read, (unsigned long long)s.tx_msgs);
	check(s.tx_msgs - s.tx_unacked <= c.rx_read && c.rx_read <= s.tx_msgs, what, 0);
	/* a mapped reader learns the end from the ring: DEAD on both ends */
	{
		struct ibtick_ring_info rc, rs;
		socklen_t l1 = sizeof(rc), l2 = sizeof(rs);
		double until = now() + 5;

		do {
			memset(&rc, 0, sizeof(rc));
			memset(&rs, 0, sizeof(rs));
			getsockopt(cfd, SOL_IBTICK, IBTICK_RING_INFO, &rc, &l1);
			getsockopt(sfd, SOL_IBTICK, IBTICK_RING_INFO, &rs, &l2);
			if ((rc.flags & rs.flags) & IBTICK_RING_DEAD)
				break;
			msleep(20);
		} while (now() < until);
		check((rc.flags & rs.flags) & IBTICK_RING_DEAD,
		      "break: both rings DEAD within 5 s of the failure (before close)", 0);
	}
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * table: the errno table
 */
static void table_addresses(void)
{
	struct sockaddr_ibtick sa, got;
	socklen_t len;
	int fd = csock(), fd2;

	EXPECT_ERR(socket(vm_fam, SOCK_SEQPACKET, 17), EPROTONOSUPPORT,
		   "socket(SOCK_SEQPACKET, protocol 17) -> EPROTONOSUPPORT");
	EXPECT_ERR(socket(vm_fam, SOCK_STREAM, 0), ESOCKTNOSUPPORT,
		   "socket(SOCK_STREAM) -> ESOCKTNOSUPPORT");
	EXPECT_ERR(listen(fd, 4), EDESTADDRREQ, "listen before bind -> EDESTADDRREQ");
	EXPECT_ERR(accept(fd, NULL, NULL), EINVAL, "accept on a new socket -> EINVAL");

	sa = caddr(srv_ip, base_port);
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa) - 1), EINVAL, "bind: short sockaddr -> EINVAL");
	EXPECT_ERR(bind(fd, (void *)&sa, 2), EINVAL, "bind: 2-byte sockaddr -> EINVAL");
	sa.sibt_family = AF_INET;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EAFNOSUPPORT, "bind: wrong sibt_family -> EAFNOSUPPORT");
	sa = caddr(srv_ip, base_port);
	sa.sibt_group_family = AF_INET6;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EAFNOSUPPORT, "bind: AF_INET6 address -> EAFNOSUPPORT");
	sa = caddr(srv_ip, base_port);
	sa.sibt_flags = 1;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: sibt_flags != 0 -> EINVAL");
	sa = caddr(srv_ip, base_port);
	sa.sibt_reserved = 1;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: sibt_reserved != 0 -> EINVAL");
	sa = caddr(srv_ip, base_port);
	sa.sibt_group[9] = 1;
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: bytes after the IPv4 address -> EINVAL");
	sa = caddr("239.1.2.3", base_port);
	EXPECT_ERR(bind(fd, (void *)&sa, sizeof(sa)), EINVAL, "bind: a multicast address -> EINVAL");

	/* a listener, then the same address again */
	sa = caddr(srv_ip, base_port);
	EXPECT_OK(bind(fd, (void *)&sa, sizeof(sa)), "bind the listener");
	EXPECT_ERR(accept(fd, NULL, NULL), EINVAL, "accept on a bound socket not listening -> EINVAL");
	EXPECT_OK(listen(fd, 8), "listen");
	fd2 = csock();
	EXPECT_ERR(bind(fd2, (void *)&sa, sizeof(sa)), EADDRINUSE, "bind: address and port in use -> EADDRINUSE");
	close(fd2);
	fd2 = csock();
	sa = caddr(NULL, base_port);
	EXPECT_ERR(bind(fd2, (void *)&sa, sizeof(sa)), EADDRINUSE,
		   "bind: INADDR_ANY on a port held on one address -> EADDRINUSE");
	close(fd2);
	fd2 = csock();
	sa = caddr(NULL, 0);
	EXPECT_OK(bind(fd2, (void *)&sa, sizeof(sa)), "bind: INADDR_ANY, port 0");
	len = sizeof(got);
	memset(&got, 0, sizeof(got));
	EXPECT_OK(getsockname(fd2, (void *)&got, &len), "getsockname after port 0");
	check(got.sibt_port != 0 && got.sibt_family == vm_fam, "bind: port 0 picks one", 0);
	close(fd2);
	close(fd);
}

static void table_connect(void)
{
	struct sockaddr_ibtick sa, got, la;
	struct timeval t0, t1;
	int fd = csock(), lfd;
	double dt;
	char what[400];

	sa = caddr(srv_ip, base_port + 1);
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa) - 1), EINVAL, "connect: short sockaddr -> EINVAL");
	sa.sibt_family = vm_fam + 1;
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EAFNOSUPPORT, "connect: wrong sibt_family -> EAFNOSUPPORT");
	sa = caddr(srv_ip, base_port + 1);
	sa.sibt_flags = 2;
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINVAL, "connect: sibt_flags != 0 -> EINVAL");
	sa = caddr(srv_ip, base_port + 1);
	sa.sibt_reserved = 7;
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINVAL, "connect: sibt_reserved != 0 -> EINVAL");
	sa = caddr("239.1.2.3", base_port + 1);
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINVAL, "connect: a multicast address -> EINVAL");
	sa = caddr(NULL, base_port + 1);
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINVAL, "connect: INADDR_ANY -> EINVAL");
	sa = caddr(srv_ip, 0);
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINVAL, "connect: port 0 -> EINVAL");
	close(fd);

	/* nobody there */
	fd = csock();
	la = caddr(cli_ip, 0);
	EXPECT_OK(bind(fd, (void *)&la, sizeof(la)), "bind a client to its address, port 0");
	sa = caddr(srv_ip, base_port + 50);
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), ECONNREFUSED,
		   "connect: nobody listens on the port -> ECONNREFUSED");
	close(fd);
	fd = csock();
	sa = caddr("192.0.2.1", base_port);	/* TEST-NET-1: no route in the guest */
	errno = 0;
	check(connect(fd, (void *)&sa, sizeof(sa)) < 0 &&
	      (errno == ENETUNREACH || errno == EHOSTUNREACH),
	      "connect: an address with no route -> ENETUNREACH or EHOSTUNREACH", errno);
	close(fd);
	fd = csock();
	EXPECT_OK(bind(fd, (void *)&la, sizeof(la)), "bind another client");
	sa = caddr("10.99.0.77", base_port);	/* on the link, nobody answers ARP */
	gettimeofday(&t0, NULL);
	errno = 0;
	int r = connect(fd, (void *)&sa, sizeof(sa));
	int e = errno;

	gettimeofday(&t1, NULL);
	dt = (t1.tv_sec - t0.tv_sec) + (t1.tv_usec - t0.tv_usec) / 1e6;
	snprintf(what, sizeof(what),
		 "connect: an on-link address nobody answers -> ETIMEDOUT or EHOSTUNREACH (%s after %.1f s)",
		 strerror(e), dt);
	check(r < 0 && (e == ETIMEDOUT || e == EHOSTUNREACH) && dt < 60, what, e);
	close(fd);

	/* a real connection: names, twice, non-blocking */
	lfd = listener(srv_ip, base_port, 8, 0, 0);
	fd = csock();
	EXPECT_OK(bind(fd, (void *)&la, sizeof(la)), "bind a client once more");
	sa = caddr(srv_ip, base_port);
	EXPECT_OK(connect(fd, (void *)&sa, sizeof(sa)), "connect to the listener");
	EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EISCONN, "connect twice -> EISCONN");
	{
		socklen_t len = sizeof(got);
		struct sockaddr_ibtick peer;
		int afd = accept_within(lfd, 10000, &peer), lport;

		check(afd >= 0, "accept", errno);
		memset(&got, 0, sizeof(got));
		getsockname(fd, (void *)&got, &len);
		lport = got.sibt_port;
		check(got.sibt_port && !memcmp(got.sibt_group, la.sibt_group, 4),
		      "getsockname of the client: its address, a port", 0);
		check(peer.sibt_family == vm_fam && peer.sibt_group_family == AF_INET &&
		      !memcmp(peer.sibt_group, la.sibt_group, 4) && peer.sibt_port == lport,
		      "accept's address: the client's address and port", 0);
		len = sizeof(got);
		memset(&got, 0, sizeof(got));
		EXPECT_OK(getpeername(fd, (void *)&got, &len), "getpeername of the client");
		check(!memcmp(got.sibt_group, sa.sibt_group, 4) && got.sibt_port == base_port,
		      "getpeername: the listener's address and port", 0);
		if (afd >= 0)
			close(afd);
	}
	close(fd);

	/* non-blocking connect */
	fd = csock();
	EXPECT_OK(bind(fd, (void *)&la, sizeof(la)), "bind a non-blocking client");
	{
		struct pollfd p = { .events = POLLOUT };
		int err = -1, afd;
		socklen_t len = sizeof(err);

		EXPECT_OK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), "O_NONBLOCK");
		EXPECT_ERR(connect(fd, (void *)&sa, sizeof(sa)), EINPROGRESS,
			   "non-blocking connect -> EINPROGRESS");
		errno = 0;
		r = connect(fd, (void *)&sa, sizeof(sa));
		e = errno;
		check(r < 0 && (e == EALREADY || e == EISCONN),
		      "connect again while it goes -> EALREADY (EISCONN if done)", e);
		p.fd = fd;
		check(poll(&p, 1, 10000) == 1 && (p.revents & POLLOUT), "poll: POLLOUT once connected", errno);
		check(!getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) && err == 0, "SO_ERROR 0", err);
		afd = accept_within(lfd, 10000, NULL);
		check(afd >= 0, "accept the non-blocking client", errno);
		if (afd >= 0)
			close(afd);
	}
	close(fd);
	close(lfd);
}

/*
 * A peer whose slots are larger than ours: send() takes the peer's
 * msg_max, so the sender's buffers must be the peer's size, not its own
 * (they were its own once: an 8 KiB send overran a 256-byte buffer).
 */
static void table_big_peer(void)
{
	static unsigned char out[MAXMSG], in[MAXMSG + 64];
	int lfd = listener(srv_ip, base_port + 3, 8, 64, IBTICK_SLOT_SIZE_MAX);
	struct ibtick_conn_info c, sv;
	int cfd, sfd, i, ok = 1;
	ssize_t n;

	if (pair(lfd, base_port + 3, &cfd, &sfd, 0, 0)) {
		check(0, "big peer: connect and accept", errno);
		close(lfd);
		return;
	}
	conn_info(cfd, &c);
	conn_info(sfd, &sv);
	check(c.msg_max == IBTICK_SLOT_SIZE_MAX - CONN_SLOT_DESC &&
	      c.local_msg_max == IBTICK_SLOT_SIZE_DEFAULT - CONN_SLOT_DESC &&
	      sv.msg_max == c.local_msg_max,
	      "big peer: the client sends up to the server's 8144, the server up to the client's 208", 0);
	for (i = 0; i < 3; i++) {
		size_t len = c.msg_max - (size_t)i * 1000;

		memset(out, 'a' + i, len);
		out[0] = (unsigned char)i;
		ok &= send(cfd, out, len, MSG_NOSIGNAL) == (ssize_t)len;
		n = recv(sfd, in, sizeof(in), 0);
		ok &= n == (ssize_t)len && !memcmp(in, out, len);
	}
	check(ok, "big peer: 8144, 7144 and 6144 bytes each arrive whole and intact", errno);
	EXPECT_ERR(send(sfd, out, sv.msg_max + 1, MSG_NOSIGNAL), EMSGSIZE,
		   "big peer: the server's send of 209 bytes -> EMSGSIZE");
	close(cfd);
	close(sfd);
	close(lfd);
}

static void table_io(void)
{
	int lfd = listener(srv_ip, base_port + 2, 8, 0, 0), cfd, sfd, dfd, ufd;
	unsigned char buf[MAXMSG + 64], small[10];
	struct ibtick_conn_info ci;
	struct iovec iov;
	struct msghdr m;
	socklen_t len;
	ssize_t n;

	/* IBTICK_CONN_INFO before any connection */
	ufd = csock();
	len = 4;
	EXPECT_ERR(getsockopt(ufd, SOL_IBTICK, IBTICK_CONN_INFO, &ci, &len), EINVAL,
		   "IBTICK_CONN_INFO: optlen 4 -> EINVAL");
	len = sizeof(ci);
	EXPECT_OK(getsockopt(ufd, SOL_IBTICK, IBTICK_CONN_INFO, &ci, &len), "IBTICK_CONN_INFO of a new socket");
	check(ci.state == IBTICK_CONN_NEW, "IBTICK_CONN_INFO: a new socket is NEW", 0);
	len = sizeof(ci);
	EXPECT_OK(getsockopt(lfd, SOL_IBTICK, IBTICK_CONN_INFO, &ci, &len), "IBTICK_CONN_INFO of a listener");
	check(ci.state == IBTICK_CONN_LISTEN, "IBTICK_CONN_INFO: a listener is LISTEN", 0);
	EXPECT_ERR(send(ufd, "x", 1, MSG_NOSIGNAL), ENOTCONN, "send unconnected -> ENOTCONN");
	EXPECT_ERR(recv(ufd, buf, 1, MSG_DONTWAIT), ENOTCONN, "recv unconnected -> ENOTCONN");
	EXPECT_ERR(set_geom(ufd, 100, 256), EINVAL, "IBTICK_RING_GEOMETRY: 100 slots -> EINVAL");
	close(ufd);
	dfd = socket(vm_fam, SOCK_DGRAM, 0);
	len = sizeof(ci);
	errno = 0;
	check(getsockopt(dfd, SOL_IBTICK, IBTICK_CONN_INFO, &ci, &len) < 0 &&
	      (errno == ENOPROTOOPT || errno == EOPNOTSUPP),
	      "IBTICK_CONN_INFO on a SOCK_DGRAM socket -> ENOPROTOOPT (or EOPNOTSUPP)", errno);
	close(dfd);

	if (pair(lfd, base_port + 2, &cfd, &sfd, 0, 0)) {
		check(0, "table: connect and accept", errno);
		close(lfd);
		return;
	}
	conn_info(cfd, &ci);
	len = 8;
	EXPECT_OK(getsockopt(cfd, SOL_IBTICK, IBTICK_CONN_INFO, &ci, &len), "IBTICK_CONN_INFO: 8 bytes");
	check(len == 8 && ci.state == IBTICK_CONN_ESTABLISHED && ci.msg_max,
	      "IBTICK_CONN_INFO: 8 bytes: state and msg_max, length 8", 0);
	{
		unsigned char longer[sizeof(ci) + 16];

		len = sizeof(longer);
		EXPECT_OK(getsockopt(cfd, SOL_IBTICK, IBTICK_CONN_INFO, longer, &len),
			  "IBTICK_CONN_INFO: a longer buffer");
		check(len == sizeof(ci), "IBTICK_CONN_INFO: cut to the kernel's size", 0);
	}
	conn_info(cfd, &ci);
	if (ci.msg_max > MAXMSG) {
		check(0, "table: msg_max within IBTICK_SLOT_SIZE_MAX", 0);
		return;
	}
	memset(buf, 'm', sizeof(buf));
	EXPECT_ERR(send(cfd, buf, ci.msg_max + 1, MSG_NOSIGNAL), EMSGSIZE, "send msg_max + 1 -> EMSGSIZE");
	EXPECT_ERR(send(cfd, buf, 0, MSG_NOSIGNAL), EINVAL, "send 0 bytes -> EINVAL");
	EXPECT_ERR(send(cfd, buf, 1, MSG_NOSIGNAL | MSG_OOB), EOPNOTSUPP, "send MSG_OOB -> EOPNOTSUPP");
	EXPECT_OK(send(cfd, buf, ci.msg_max, MSG_NOSIGNAL), "send msg_max bytes");
	EXPECT_OK(send(cfd, buf, 100, MSG_NOSIGNAL), "send 100 bytes");
	EXPECT_OK(send(cfd, buf, 7, MSG_NOSIGNAL), "send 7 bytes");
	EXPECT_OK(send(cfd, buf, 1, MSG_NOSIGNAL), "send 1 byte");
	set_timeo(sfd, SO_RCVTIMEO, 5000);
	n = recv(sfd, buf, sizeof(buf), 0);
	check(n == (ssize_t)ci.msg_max, "recv: the msg_max message whole", errno);
	iov = (struct iovec){ small, sizeof(small) };
	m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	n = recvmsg(sfd, &m, 0);
	check(n == sizeof(small) && (m.msg_flags & MSG_TRUNC),
	      "recvmsg, 10-byte buffer, 100-byte message: 10 and MSG_TRUNC", errno);
	iov = (struct iovec){ buf, sizeof(buf) };
	m = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
	n = recvmsg(sfd, &m, 0);
	check(n == 7 && !(m.msg_flags & MSG_TRUNC),
	      "recvmsg: the next message alone (7 bytes, boundaries kept), no MSG_TRUNC", errno);
	n = recv(sfd, buf, sizeof(buf), 0);
	check(n == 1, "recv: the 1-byte message", errno);
	EXPECT_ERR(recv(sfd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "recv, nothing left, MSG_DONTWAIT -> EAGAIN");
	{
		/*
		 * SO_BUSY_POLL 150 ms and SO_RCVTIMEO 200 ms: the spin is part
		 * of the 200 ms (up to 350 ms if it were added to them; 100 ms
		 * of slack for the emulator)
		 */
		int us = 150000, zero = 0;
		double t0;

		set_timeo(sfd, SO_RCVTIMEO, 200);
		EXPECT_OK(setsockopt(sfd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)),
			  "SO_BUSY_POLL 150 ms");
		t0 = now();
		EXPECT_ERR(recv(sfd, buf, sizeof(buf), 0), EAGAIN,
			   "recv, nothing left, SO_RCVTIMEO 200 ms, SO_BUSY_POLL 150 ms -> EAGAIN");
		t0 = now() - t0;
		printf("# recv took %.0f ms\n", t0 * 1000);
		check(t0 >= 0.19 && t0 < 0.3, "recv: the busy spin counts against SO_RCVTIMEO", 0);
		setsockopt(sfd, SOL_SOCKET, SO_BUSY_POLL, &zero, sizeof(zero));
	}
	conn_info(sfd, &ci);
	check(ci.rx_msgs == 4 && ci.rx_read == 4 && ci.rx_bytes == ci.local_msg_max + 108,
	      "IBTICK_CONN_INFO: 4 messages, their bytes (the full 100 of the cut one)", 0);
	EXPECT_ERR(listen(cfd, 4), EINVAL, "listen on a connected socket -> EINVAL");
	EXPECT_ERR(accept(cfd, NULL, NULL), EINVAL, "accept on a connected socket -> EINVAL");
	{
		/* the peer closes under a busy-polling blocking recv: 0 at once */
		int us = 150000;
		double t0;

		set_timeo(sfd, SO_RCVTIMEO, 20000);
		EXPECT_OK(setsockopt(sfd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)),
			  "SO_BUSY_POLL 150 ms");
		close(cfd);
		t0 = now();
		n = recv(sfd, buf, sizeof(buf), 0);
		t0 = now() - t0;
		check(n == 0 && t0 < 10, "recv with SO_BUSY_POLL after the peer closed: 0 (the end), not a spin", errno);
	}
	close(sfd);
	close(lfd);
	table_big_peer();
}

/* ---------------------------------------------------------------------
 * devgone: a listener and a bound socket on the client's address (its
 * device) when the script removes that device (SIGUSR1 after "ready"):
 * poll on the listener says EPOLLERR, accept and listen fail, nothing
 * crashes, and both close.
 */
static int mode_devgone(void)
{
	struct sockaddr_ibtick a = caddr(cli_ip, base_port), b = caddr(cli_ip, base_port + 1);
	int lfd = csock(), bfd = csock(), fd;
	struct pollfd p;

	if (bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 4) ||
	    bind(bfd, (void *)&b, sizeof(b))) {
		check(0, "devgone: a listener and a bound socket on the client's address", errno);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (wait_usr1(60)) {
		check(0, "devgone: the script's SIGUSR1 (device removed)", 0);
		return 1;
	}
	p.fd = lfd;
	p.events = POLLIN;
	p.revents = 0;
	check(poll(&p, 1, 5000) == 1 && (p.revents & POLLERR),
	      "devgone: poll on the listener of a removed device -> POLLERR", errno);
	fd = accept(lfd, NULL, NULL);
	check(fd < 0 && errno != EAGAIN, "devgone: accept on it fails (not EAGAIN)", errno);
	if (fd >= 0)
		close(fd);
	EXPECT_ERR(listen(bfd, 4), ENODEV, "devgone: listen on a socket bound to the removed device -> ENODEV");
	check(close(lfd) == 0 && close(bfd) == 0, "devgone: both close", errno);
	return 0;
}

/* ---------------------------------------------------------------------
 * mapped: the connection's ring read through mmap (libibtick), the slots
 * handed back with IBTICK_RING_CURSOR
 */
static int set_cursor(int fd, uint64_t cur)
{
	return setsockopt(fd, SOL_IBTICK, IBTICK_RING_CURSOR, &cur, sizeof(cur));
}

/* Can @fd send within @ms (POLLOUT)? */
static int writable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLOUT);
}

static int mode_mapped(uint64_t n)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), cfd, sfd, fd, e;
	struct ibtick_conn_info c, s;
	struct ibtick_ring_info ri;
	struct ibtick_reader r, r2;
	struct ibtick_tick t;
	unsigned char buf[MAXMSG];
	socklen_t len;
	struct leg up;
	pthread_t th;
	uint64_t i, sent, bad = 0, syscalls = 0, total;
	double end;
	char what[400];
	void *m;

	/* no ring to map: a new socket, a listener */
	fd = csock();
	len = sizeof(ri);
	EXPECT_ERR(getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len), ENOTCONN,
		   "mapped: IBTICK_RING_INFO on a new socket -> ENOTCONN");
	EXPECT_ERR(set_cursor(fd, 0), ENOTCONN, "mapped: IBTICK_RING_CURSOR on a new socket -> ENOTCONN");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	check(m == MAP_FAILED && errno == EINVAL, "mapped: mmap of a new socket -> EINVAL", errno);
	close(fd);
	len = sizeof(ri);
	EXPECT_ERR(getsockopt(lfd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len), ENOTCONN,
		   "mapped: IBTICK_RING_INFO on a listener -> ENOTCONN");
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, lfd, 0);
	check(m == MAP_FAILED && errno == EINVAL, "mapped: mmap of a listener -> EINVAL", errno);

	if (pair(lfd, base_port, &cfd, &sfd, 0, 0)) {
		check(0, "mapped: connect and accept", errno);
		return 1;
	}
	conn_info(cfd, &c);
	conn_info(sfd, &s);
	if (c.msg_max < 1 || c.msg_max > MAXMSG)
		return 1;
	len = sizeof(ri);
	memset(&ri, 0, sizeof(ri));
	EXPECT_OK(getsockopt(sfd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len),
		  "mapped: IBTICK_RING_INFO on the accepted socket");
	check(len == sizeof(ri) && ri.nslots == s.nslots && ri.slot_size - CONN_SLOT_DESC == s.local_msg_max &&
	      ri.mmap_offset == IBTICK_MMAP_RING && ri.mmap_size >= ri.ring_size && !ri.flags,
	      "mapped: the ring info matches IBTICK_CONN_INFO (nslots, msg_max), not DEAD", 0);
	/* the mapping's rules, as for a feed */
	m = mmap(NULL, ri.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	check(m == MAP_FAILED && errno == EACCES, "mapped: PROT_WRITE -> EACCES", errno);
	m = mmap(NULL, ri.mmap_size, PROT_READ, MAP_PRIVATE, sfd, 0);
	check(m == MAP_FAILED && errno == EINVAL, "mapped: MAP_PRIVATE -> EINVAL", errno);
	m = mmap(NULL, ri.mmap_size + 4096, PROT_READ, MAP_SHARED, sfd, 0);
	check(m == MAP_FAILED && errno == EINVAL, "mapped: a longer mapping -> EINVAL", errno);
	m = mmap(NULL, ri.mmap_size, PROT_READ, MAP_SHARED, sfd, 4096);
	check(m == MAP_FAILED && errno == EINVAL, "mapped: another offset -> EINVAL", errno);
	if (ibtick_reader_attach(&r, sfd)) {
		check(0, "mapped: ibtick_reader_attach() of the accepted socket", errno);
		return 1;
	}
	check(r.nslots == s.nslots && r.cursor == 0, "mapped: attached at cursor 0, nslots as the connection's", 0);
	EXPECT_ERR(set_cursor(sfd, 1), EINVAL, "mapped: a cursor past the producer -> EINVAL");
	i = 0;
	EXPECT_ERR(setsockopt(sfd, SOL_IBTICK, IBTICK_RING_CURSOR, &i, 4), EINVAL,
		   "mapped: IBTICK_RING_CURSOR of 4 bytes -> EINVAL");

	/* credits: a mapped reader that does not report its cursor stops the peer */
	for (sent = 0; sent < 4 * (uint64_t)s.nslots; sent++) {
		size_t l = msg_len(sent, 5, c.msg_max);

		msg_fill(buf, l, sent, 5);
		if (send(cfd, buf, l, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)l)
			break;
	}
	e = errno;
	check(sent == s.nslots && e == EAGAIN, "mapped: the sender stops after nslots messages (EAGAIN)", e);
	/* wait without ibtick_wait(), which would report the cursor */
	for (end = now() + 10; ibtick_backlog(&r) < sent && now() < end; )
		msleep(5);
	for (i = 0; i < sent && ibtick_next(&r, &t); i++) {
		if (t.idx != i || t.slot->pub_seq != i ||
		    msg_check(t.data, t.len, i, 5, c.msg_max, what, sizeof(what)) || !ibtick_done(&r, &t))
			bad++;
	}
	check(i == sent && !bad && !r.lost, "mapped: every message read from the ring, intact and in order", 0);
	/* read, but not handed back: still no credit */
	check(!writable_within(cfd, 300), "mapped: no POLLOUT while the reader keeps its slots", 0);
	conn_info(sfd, &s);
	check(s.rx_read == 0 && s.rx_msgs == sent, "mapped: rx_read 0 until the cursor is reported", 0);
	EXPECT_OK(ibtick_arm(&r), "mapped: IBTICK_RING_CURSOR hands the slots back");
	check(writable_within(cfd, 5000), "mapped: the sender may send again (POLLOUT)", errno);
	conn_info(sfd, &s);
	check(s.rx_read == sent, "mapped: rx_read counts what the cursor passed", 0);
	EXPECT_ERR(set_cursor(sfd, r.cursor - 1), EINVAL, "mapped: a cursor moved back -> EINVAL");
	EXPECT_ERR(set_cursor(sfd, r.cursor + 1), EINVAL, "mapped: a cursor past the producer -> EINVAL");
	EXPECT_OK(set_cursor(sfd, r.cursor), "mapped: the same cursor again is a no-op");

	/* a stream read with no system call per message */
	leg_init(&up, "client->server", cfd, -1, 6, c.msg_max, n, 30000);
	pthread_create(&th, NULL, leg_tx, &up);
	end = now() + 120;
	for (i = 0; i < n && now() < end; ) {
		if (!ibtick_next(&r, &t)) {
			syscalls++;
			if (ibtick_wait(&r, 1000) < 0)
				break;
			continue;
		}
		if (t.slot->pub_seq != sent + i ||
		    msg_check(t.data, t.len, i, 6, c.msg_max, what, sizeof(what)) || !ibtick_done(&r, &t)) {
			if (!bad++)
				printf("# mapped: %s (pub_seq %llu)\n", what,
				       (unsigned long long)t.slot->pub_seq);
		}
		i++;
		if (ibtick_conn_release(&r)) {
			check(0, "mapped: ibtick_conn_release", errno);
			break;
		}
	}
	join_within(th, 30);
	total = sent + i;
	snprintf(what, sizeof(what),
		 "mapped: %llu messages through the mapped ring, %llu sent, intact and in order (%llu waits)",
		 (unsigned long long)i, (unsigned long long)up.sent, (unsigned long long)syscalls);
	check(i == n && up.sent == n && !up.tx_err && !bad && !r.lost, what, up.tx_err);
	EXPECT_OK(ibtick_arm(&r), "mapped: the last slots handed back");
	settle(cfd, sfd, &c, &s);
	print_info("client", &c);
	print_info("server", &s);
	check(c.tx_msgs == total && s.rx_msgs == total && s.rx_read == total,
	      "mapped counters: client tx_msgs == server rx_msgs == server rx_read", 0);
	check(c.credits + s.pending_grants == s.nslots && s.pending_grants < s.nslots / 4,
	      "mapped counters: quiet: sender's credits + grants pending (under a quarter) == nslots", 0);

	/* 3 more, read but not handed back; then the peer's half close */
	for (i = 0; i < 3; i++) {
		msg_fill(buf, msg_len(total + i, 5, c.msg_max), total + i, 5);
		send(cfd, buf, msg_len(total + i, 5, c.msg_max), MSG_NOSIGNAL);
	}
	for (i = 0, end = now() + 10; i < 3 && now() < end; )
		if (ibtick_next(&r, &t))
			i += !msg_check(t.data, t.len, total + i, 5, c.msg_max, what, sizeof(what)) &&
			     ibtick_done(&r, &t);
	check(i == 3, "mapped: 3 more read from the ring, not handed back", 0);
	EXPECT_OK(shutdown(cfd, SHUT_WR), "mapped: the peer's shutdown(SHUT_WR)");
	for (end = now() + 10; !ibtick_ended(&r) && now() < end; )
		msleep(10);
	check(ibtick_ended(&r), "mapped: at the peer's end-of-stream mark the ring turns DEAD, nothing left", 0);
	len = sizeof(ri);
	getsockopt(sfd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len);
	check(ri.flags & IBTICK_RING_DEAD, "mapped: IBTICK_RING_INFO says DEAD", 0);
	set_timeo(cfd, SO_RCVTIMEO, 5000);
	check(send(sfd, "ack", 3, MSG_NOSIGNAL) == 3 && recv(cfd, buf, sizeof(buf), 0) == 3,
	      "mapped: the other way still carries a message after the half close", errno);
	/* a second mapping, then the reader hands its slots back as it goes */
	if (ibtick_reader_attach(&r2, sfd)) {
		check(0, "mapped: a second ibtick_reader_attach", errno);
		return 1;
	}
	ibtick_reader_close(&r);
	set_timeo(sfd, SO_RCVTIMEO, 5000);
	check(recv(sfd, buf, sizeof(buf), 0) == 0,
	      "mapped: after ibtick_reader_close() (it reports the cursor) recv() returns 0: the peer closed", errno);
	/* the mapping outlives close(); the connection ends at munmap(), in order */
	close(sfd);
	check(r2.hdr->magic == IBTICK_RING_MAGIC && ibtick_dead(&r2),
	      "mapped: the second mapping stays readable after close()", 0);
	ibtick_reader_close(&r2);
	set_timeo(cfd, SO_RCVTIMEO, 5000);
	check(recv(cfd, buf, sizeof(buf), 0) == 0,
	      "mapped: close() and munmap() of a reader that handed everything back: the peer reads 0, no reset",
	      errno);
	close(cfd);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * prefer: SO_PREFER_BUSY_POLL keeps the CQ event off while a caller
 * spins; whatever the reader does next, messages still reach it
 */
struct spinner {
	int fd;
	uint64_t n;
	size_t max;
	uint64_t got;
	int bad, err;
	char why[160];
};

/* Echo @n messages, spinning on recv(MSG_DONTWAIT) (10 s per message). */
static void *spin_echo(void *arg)
{
	struct spinner *sp = arg;
	unsigned char buf[MAXMSG + 64];
	uint64_t i;
	ssize_t r;
	double end;

	for (i = 0; i < sp->n; i++) {
		end = now() + 10;
		do
			r = recv(sp->fd, buf, sizeof(buf), MSG_DONTWAIT);
		while (r < 0 && errno == EAGAIN && now() < end);
		if (r <= 0) {
			sp->err = r < 0 ? errno : 0;
			snprintf(sp->why, sizeof(sp->why), "message %llu: recv %zd",
				 (unsigned long long)i, r);
			sp->bad = 1;
			return NULL;
		}
		if (msg_check(buf, r, i, 8, sp->max, sp->why, sizeof(sp->why)) ||
		    send(sp->fd, buf, (size_t)r, MSG_NOSIGNAL) != r) {
			sp->bad = 1;
			return NULL;
		}
		sp->got++;
	}
	return NULL;
}

/* Send message @i of tag 8 and take its echo (blocking, 10 s at most). */
static int ping(int fd, uint64_t i, size_t max, char *why, size_t wl)
{
	unsigned char buf[MAXMSG + 64];
	size_t len = msg_len(i, 8, max);
	ssize_t r;

	msg_fill(buf, len, i, 8);
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
		snprintf(why, wl, "message %llu: send: %s", (unsigned long long)i, strerror(errno));
		return -1;
	}
	r = recv(fd, buf, sizeof(buf), 0);
	if (r <= 0) {
		snprintf(why, wl, "message %llu: echo: recv %zd %s", (unsigned long long)i, r,
			 r < 0 ? strerror(errno) : "");
		return -1;
	}
	return msg_check(buf, r, i, 8, max, why, wl);
}

static int mode_prefer(uint64_t n)
{
	int lfd = listener(srv_ip, base_port, 8, 0, 0), cfd, sfd, one = 1;
	unsigned char buf[MAXMSG + 64];
	struct ibtick_conn_info c0, c1;
	struct spinner sp;
	struct ibtick_reader r;
	struct ibtick_tick t;
	char why[200] = "";
	pthread_t th;
	uint64_t i, fails = 0;
	size_t max;
	ssize_t got;
	double t0, dt;

	if (pair(lfd, base_port, &cfd, &sfd, 0, 0)) {
		check(0, "prefer: connect and accept", errno);
		return 1;
	}
	EXPECT_OK(setsockopt(sfd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)),
		  "prefer: SO_PREFER_BUSY_POLL on the accepted socket (root)");
	EXPECT_OK(setsockopt(cfd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)),
		  "prefer: SO_PREFER_BUSY_POLL on the client (it blocks: armed all the same)");
	set_timeo(cfd, SO_RCVTIMEO, 10000);
	set_timeo(sfd, SO_RCVTIMEO, 10000);
	{
		struct ibtick_conn_info c;

		conn_info(cfd, &c);
		max = c.msg_max;
	}
	if (max < 1 || max > MAXMSG)
		return 1;

	/* 1: the server spins on recv(MSG_DONTWAIT) and echoes */
	{
		socklen_t len = sizeof(c0);

		memset(&c0, 0, sizeof(c0));
		check(!getsockopt(sfd, SOL_IBTICK, IBTICK_CONN_INFO, &c0, &len) &&
		      len == sizeof(c0),
		      "prefer: IBTICK_CONN_INFO has the drain counters (cq_events .. irq_polls)",
		      errno);
	}
	memset(&sp, 0, sizeof(sp));
	sp.fd = sfd;
	sp.n = n;
	sp.max = max;
	t0 = now();
	pthread_create(&th, NULL, spin_echo, &sp);
	for (i = 0; i < n && !fails; i++)
		fails += !!ping(cfd, i, max, why, sizeof(why));
	join_within(th, 30);
	dt = now() - t0;
	snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", sp.bad ? " / server: " : "",
		 sp.bad ? sp.why : "");
	check(!fails && !sp.bad && sp.got == n,
	      "prefer: N round trips to a spinning echo, each intact and in order", 0);
	if (fails || sp.bad)
		printf("# %s\n", why);
	/*
	 * While it spins, the spinner drains: no CQ event, and the softirq
	 * poll does not run either (the timer follows the spinner in the hard
	 * interrupt).  Some of both come with the spinner's time off its CPU
	 * (over 200 us, the CQ goes back to events until it next drains), as
	 * the scheduler decides: allowed, up to one CQ event per 5 messages
	 * and one softirq poll per 4 timer periods (200 us) of the phase.  A
	 * timer that handed the CQ to the softirq poll at every period all
	 * along makes about one poll per period.
	 */
	conn_info(sfd, &c1);
	{
		unsigned long long ev = c1.cq_events - c0.cq_events;
		unsigned long long polls = c1.irq_polls - c0.irq_polls;
		unsigned long long irq = c1.cqe_irq - c0.cqe_irq;
		unsigned long long caller = c1.cqe_caller - c0.cqe_caller;
		unsigned long long rx = c1.rx_msgs - c0.rx_msgs;

		double periods = dt / 200e-6;

		printf("# spinning echo, %llu messages in %.3f s (%.0f periods of 200 us): cq_events %llu irq_polls %llu cqe_irq %llu cqe_caller %llu\n",
		       (unsigned long long)n, dt, periods, ev, polls, irq, caller);
		check(rx == n && irq + caller >= rx && caller * 10 >= rx * 9,
		      "prefer: the spinner drained >= 90 % of the completions itself (cqe_irq + cqe_caller >= rx_msgs)",
		      0);
		check(ev * 5 <= n && polls * 4 <= periods,
		      "prefer: while it spins, cq_events <= 1 per 5 messages, irq_polls <= 1 per 4 timer periods",
		      0);
	}

	/* 2: the spinner stops and blocks: its sleep arms the CQ event */
	for (i = n; i < n + 20; i++) {
		msg_fill(buf, msg_len(i, 8, max), i, 8);
		if (send(cfd, buf, msg_len(i, 8, max), MSG_NOSIGNAL) < 0)
			break;
		t0 = now();
		got = recv(sfd, buf, sizeof(buf), 0);
		dt = now() - t0;
		if (got <= 0 || msg_check(buf, got, i, 8, max, why, sizeof(why)) || dt > 1)
			break;
	}
	check(i == n + 20, "prefer: then a blocking recv() gets each of 20 messages within 1 s", errno);

	/* 3: a spin, then the mapped ring with no call at all: the timer re-arms */
	msg_fill(buf, msg_len(i, 8, max), i, 8);
	send(cfd, buf, msg_len(i, 8, max), MSG_NOSIGNAL);
	t0 = now();
	do
		got = recv(sfd, buf, sizeof(buf), MSG_DONTWAIT);
	while (got < 0 && errno == EAGAIN && now() < t0 + 10);
	check(got > 0 && !msg_check(buf, got, i, 8, max, why, sizeof(why)),
	      "prefer: a spinning recv(MSG_DONTWAIT) gets the next", errno);
	if (ibtick_reader_attach(&r, sfd)) {
		check(0, "prefer: ibtick_reader_attach", errno);
		return 1;
	}
	memset(&t, 0, sizeof(t));
	i++;
	msg_fill(buf, msg_len(i, 8, max), i, 8);
	send(cfd, buf, msg_len(i, 8, max), MSG_NOSIGNAL);
	t0 = now();
	while (!(one = ibtick_next(&r, &t)) && now() < t0 + 5)
		;
	dt = now() - t0;
	printf("# the message after the spin reached the mapped ring in %.3f ms\n", dt * 1e3);
	check(one && dt < 1 && t.len == msg_len(i, 8, max) &&
	      !msg_check(t.data, t.len, i, 8, max, why, sizeof(why)),
	      "prefer: then a mapped reader making no call gets the next within 1 s", 0);
	ibtick_reader_close(&r);
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

/*
 * A client that connects to the listener on base_port, retrying a refusal
 * (its backlog full of connections that ended and are on their way out)
 * for 10 s; -1 with errno else.  *@refused counts the refusals.
 */
static int dial_again(int *refused)
{
	double end = now() + 10;
	int fd;

	for (;;) {
		fd = dial(cli_ip, srv_ip, base_port, 0, 0);
		if (fd >= 0 || errno != ECONNREFUSED || now() > end)
			return fd;
		(*refused)++;
		msleep(20);
	}
}

static int mode_churn(int k)
{
	static const char words[] = "last words";
	int lfd = listener(srv_ip, base_port, 4, 0, 0);
	int live[2], got[3], i, fd, n = 0, ok = 0, refused = 0, said = 0;
	struct ibtick_conn_info ci;
	char buf[64];
	ssize_t r;

	for (i = 0; i < k; i++) {
		fd = dial_again(&refused);
		if (fd < 0)
			break;
		close(fd);
	}
	printf("# %d connections made and closed, %d refusals on the way\n", i, refused);
	check(i == k, "churn: K connect-and-close clients, never accepted, each connect succeeds within 10 s (ended connections leave the backlog of 4)", errno);
	fd = dial_again(&refused);
	check(fd >= 0 && send(fd, words, sizeof(words), 0) == sizeof(words) && close(fd) == 0,
	      "churn: a client sends a message and closes", errno);
	live[0] = dial_again(&refused);
	live[1] = dial_again(&refused);
	check(live[0] >= 0 && live[1] >= 0, "churn: two clients connect and stay", errno);
	if (live[0] < 0 || live[1] < 0)
		return 1;
	printf("holding\n");
	fflush(stdout);
	if (wait_usr1(60)) {
		check(0, "churn: the script's SIGUSR1 (ibtick conn show checked)", 0);
		return 1;
	}
	while (n < 3 && (fd = accept_within(lfd, 2000, NULL)) >= 0)
		got[n++] = fd;
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	EXPECT_ERR(accept(lfd, NULL, NULL), EAGAIN, "churn: accept() returns three connections, then EAGAIN");
	check(n == 3, "churn: accept() returns the two live and the one holding a message", 0);
	for (i = 0; i < n; i++) {
		set_timeo(got[i], SO_RCVTIMEO, 5000);
		if (conn_info(got[i], &ci))
			continue;
		if (ci.state == IBTICK_CONN_ESTABLISHED) {
			ok += send(got[i], "ping", 5, 0) == 5;
			continue;
		}
		r = recv(got[i], buf, sizeof(buf), 0);
		said += ci.state == IBTICK_CONN_PEER_CLOSED && r == sizeof(words) &&
			!memcmp(buf, words, sizeof(words)) && recv(got[i], buf, sizeof(buf), 0) == 0;
	}
	check(said == 1, "churn: the closed one: PEER_CLOSED, its message, then 0", errno);
	for (i = 0; i < 2; i++) {
		set_timeo(live[i], SO_RCVTIMEO, 5000);
		ok += recv(live[i], buf, sizeof(buf), 0) == 5 && !strcmp(buf, "ping");
	}
	check(ok == 4, "churn: the two live ones: ESTABLISHED, a message reaches each client", errno);
	for (i = 0; i < n; i++)
		close(got[i]);
	close(live[0]);
	close(live[1]);
	close(lfd);
	return 0;
}

/* ---------------------------------------------------------------------
 * listen: who may listen (listener rules), as the calling user
 */
static int mode_listen(const char *want)
{
	struct sockaddr_ibtick sa = caddr(srv_ip, base_port);
	int fd = csock(), cfd, sfd, r, e;
	char what[200];

	if (bind(fd, (void *)&sa, sizeof(sa))) {
		/* a privileged port: rdma_cm's bind asks CAP_NET_BIND_SERVICE */
		e = errno;
		snprintf(what, sizeof(what), "bind: uid %u on port %d -> %s",
			 (unsigned int)getuid(), base_port, want);
		check(!strcmp(want, "EACCES") && e == EACCES && base_port < 1024, what, e);
		close(fd);
		return 0;
	}
	errno = 0;
	r = listen(fd, 4);
	e = errno;
	if (!strcmp(want, "EACCES")) {
		snprintf(what, sizeof(what), "listen: uid %u on port %d -> EACCES",
			 (unsigned int)getuid(), base_port);
		check(r < 0 && e == EACCES, what, e);
		/* refused, still bound: it may not listen on a second try either */
		EXPECT_ERR(listen(fd, 4), EACCES, "listen: again -> EACCES (still bound, not listening)");
		EXPECT_ERR(accept(fd, NULL, NULL), EINVAL, "accept: after the refused listen -> EINVAL");
	} else {
		snprintf(what, sizeof(what), "listen: uid %u on port %d allowed",
			 (unsigned int)getuid(), base_port);
		check(r == 0, what, e);
		if (r == 0) {
			check(pair(fd, base_port, &cfd, &sfd, 0, 0) == 0,
			      "listen: a connection to it is accepted", errno);
			if (cfd >= 0 && sfd >= 0) {
				close(cfd);
				close(sfd);
			}
		}
	}
	close(fd);
	return 0;
}

/* ---------------------------------------------------------------------
 * limit: max_user_conns (the script sets it to MAX first)
 */
#define CONN_USERS	"/sys/kernel/debug/ibtick/conn_users"

/* The connections charged to @uid (-1: the total), from debugfs; -1 on error. */
static long charged(long uid)
{
	FILE *f = fopen(CONN_USERS, "r");
	char line[64];
	long u, n, got = uid < 0 ? -1 : 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (uid < 0 && sscanf(line, "total %ld", &n) == 1)
			got = n;
		else if (uid >= 0 && sscanf(line, "%ld %ld", &u, &n) == 2 && u == uid)
			got = n;
	}
	fclose(f);
	return got;
}

/* Until @uid's charge is @want (a socket's destructor may trail close()). */
static int charged_is(long uid, long want, const char *what)
{
	long got = -1;
	int i;

	for (i = 0; i < 50; i++) {
		got = charged(uid);
		if (got == want)
			break;
		msleep(100);
	}
	if (got != want)
		printf("# %s: uid %ld charged %ld, want %ld\n", what, uid, got, want);
	check(got == want, what, 0);
	return got == want ? 0 : -1;
}

/* In a child: become @uid (its own group, no others). */
static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		perror("become");
		_exit(2);
	}
}

static void tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(2);
}

static int hear(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, 60000) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return 0;
}

/* Child 1 (uid 65534): MAX connections, the next ENOBUFS; one closed, one more. */
static int limit_client(int max, int to_parent, int from_parent)
{
	int fds[64], fd, i;
	char what[160];

	become(65534);
	for (i = 0; i < max; i++) {
		fds[i] = dial(cli_ip, srv_ip, base_port, 0, 0);
		snprintf(what, sizeof(what), "limit: uid 65534's connection %d of %d", i + 1, max);
		check(fds[i] >= 0, what, errno);
	}
	fd = dial(cli_ip, srv_ip, base_port, 0, 0);
	snprintf(what, sizeof(what), "limit: uid 65534's connection %d -> ENOBUFS", max + 1);
	check(fd < 0 && errno == ENOBUFS, what, errno);
	if (fd >= 0)
		close(fd);
	tell(to_parent);			/* 1: MAX held */
	if (hear(from_parent))
		_exit(2);
	close(fds[0]);
	tell(to_parent);			/* 2: one closed */
	if (hear(from_parent))
		_exit(2);
	fds[0] = dial(cli_ip, srv_ip, base_port, 0, 0);
	check(fds[0] >= 0, "limit: after a close, uid 65534 connects again", errno);
	tell(to_parent);			/* 3: MAX held again */
	if (hear(from_parent))		/* the end */
		_exit(2);
	for (i = 0; i < max; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	_exit(vm_fail ? 1 : 0);
}

/* Child 2 (uid 65533): the listener's user is full: refused. */
static int limit_refused(void)
{
	int fd;

	become(65533);
	fd = dial(cli_ip, srv_ip, base_port, 0, 0);
	check(fd < 0 && errno == ECONNREFUSED,
	      "limit: the listener's uid (0) at its max: a request is refused -> ECONNREFUSED",
	      errno);
	if (fd >= 0)
		close(fd);
	_exit(vm_fail ? 1 : 0);
}

static int wait_child(pid_t pid, const char *what)
{
	int st = 0;

	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), what, 0);
	return 0;
}

static int mode_limit(int max)
{
	int up[2], down[2], lfd, sfd[64], i, n = 0;
	struct rlimit unl = { RLIM_INFINITY, RLIM_INFINITY };
	struct pollfd p[64];
	pid_t c1, c2;

	if (max < 1 || max > 32) {
		fprintf(stderr, "conntest: limit MAX is 1..32\n");
		return 1;
	}
	if (charged(-1) < 0) {
		printf("# no %s\n", CONN_USERS);
		check(0, "limit: debugfs conn_users readable", errno);
		return 1;
	}
	charged_is(-1, 0, "limit: nothing charged before");
	/* the children's rings are charged to their RLIMIT_MEMLOCK */
	setrlimit(RLIMIT_MEMLOCK, &unl);
	lfd = listener(srv_ip, base_port, 64, 0, 0);	/* uid 0's */
	if (pipe(up) || pipe(down))
		return 1;
	fflush(stdout);
	c1 = fork();
	if (c1 == 0)
		limit_client(max, up[1], down[0]);
	check(hear(up[0]) == 0, "limit: uid 65534 made its connections", 0);
	charged_is(65534, max, "limit: uid 65534 holds MAX connections");
	charged_is(0, max, "limit: the listener's uid 0 holds MAX (its children, not accepted)");
	for (i = 0; i < max; i++) {
		sfd[n] = accept_within(lfd, 10000, NULL);
		if (sfd[n] >= 0)
			n++;
	}
	check(n == max, "limit: the listener accepts MAX", errno);
	charged_is(0, max, "limit: accepting changes no count");
	tell(down[1]);
	check(hear(up[0]) == 0, "limit: uid 65534 closed one", 0);
	charged_is(65534, max - 1, "limit: its close gave one back");
	/* close the accepted end whose peer closed */
	for (i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = sfd[i], .events = POLLIN | POLLRDHUP };
	if (poll(p, n, 10000) > 0) {
		for (i = 0; i < n; i++) {
			if (p[i].revents) {
				close(sfd[i]);
				sfd[i] = sfd[--n];
				break;
			}
		}
	}
	check(n == max - 1, "limit: the accepted end of the closed one sees it", 0);
	charged_is(0, max - 1, "limit: closing the accepted end gave one back");
	tell(down[1]);
	check(hear(up[0]) == 0, "limit: uid 65534 connected again", 0);
	charged_is(65534, max, "limit: uid 65534 holds MAX again");
	charged_is(0, max, "limit: so does the listener's uid");
	fflush(stdout);
	c2 = fork();
	if (c2 == 0)
		limit_refused();
	wait_child(c2, "limit: uid 65533's checks");
	charged_is(65533, 0, "limit: uid 65533's refused connection is not charged once closed");
	printf("holding\n");
	fflush(stdout);
	check(wait_usr1(30) == 0, "limit: held until the script's SIGUSR1", 0);
	tell(down[1]);
	wait_child(c1, "limit: uid 65534's checks");
	for (i = 0; i < n; i++)
		close(sfd[i]);
	close(lfd);
	/* the one not accepted yet goes with the listener */
	charged_is(-1, 0, "limit: every charge given back at the end");
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t usr1;
	int rc;

	vm_fam = ibtick_family();
	if (vm_fam < 0 || argc < 5) {
		fprintf(stderr, "usage: conntest MODE SRV_IP CLI_IP PORT [ARGS] (module loaded)\n");
		return 2;
	}
	srv_ip = argv[2];
	cli_ip = argv[3];
	base_port = atoi(argv[4]);
	/* SIGUSR1 only through sigtimedwait, in every thread */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(argv[1], "table") && argc == 5) {
		table_addresses();
		table_connect();
		table_io();
		rc = 0;
	} else if (!strcmp(argv[1], "stream") && (argc == 6 || argc == 7)) {
		rc = mode_stream(strtoull(argv[5], NULL, 0), argc == 7 && !strcmp(argv[6], "hold"));
	} else if (!strcmp(argv[1], "flow") && argc == 5) {
		rc = mode_flow();
	} else if (!strcmp(argv[1], "prefer") && argc == 6) {
		rc = mode_prefer(strtoull(argv[5], NULL, 0));
	} else if (!strcmp(argv[1], "mapped") && argc == 6) {
		rc = mode_mapped(strtoull(argv[5], NULL, 0));
	} else if (!strcmp(argv[1], "many") && argc == 7) {
		rc = mode_many(atoi(argv[5]), strtoull(argv[6], NULL, 0));
	} else if (!strcmp(argv[1], "close") && argc == 6) {
		rc = mode_close(strtoull(argv[5], NULL, 0));
	} else if (!strcmp(argv[1], "kill-reader") && argc == 5) {
		rc = mode_kill_reader();
	} else if (!strcmp(argv[1], "kill-sender") && argc == 5) {
		rc = mode_kill_sender();
	} else if (!strcmp(argv[1], "devgone") && argc == 5) {
		rc = mode_devgone();
	} else if (!strcmp(argv[1], "churn") && argc == 6) {
		rc = mode_churn(atoi(argv[5]));
	} else if (!strcmp(argv[1], "break") && argc == 6) {
		rc = mode_break(atoi(argv[5]));
	} else if (!strcmp(argv[1], "listen") && argc == 6) {
		rc = mode_listen(argv[5]);
	} else if (!strcmp(argv[1], "limit") && argc == 6) {
		rc = mode_limit(atoi(argv[5]));
	} else {
		fprintf(stderr, "conntest: bad arguments (see the comment at the top of conntest.c)\n");
		return 2;
	}
	if (rc)
		vm_fail += !vm_fail;
	printf("%d passed, %d failed\n", vm_pass, vm_fail);
	return vm_fail ? 1 : 0;
}
