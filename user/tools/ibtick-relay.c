// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-relay: bridge kernel UDP multicast and an ibtick feed.
 *
 *   ibtick-relay udp-to-feed --from GROUP:PORT@IFNAME --to GROUP:PORT@IFNAME
 *   ibtick-relay feed-to-udp --from GROUP:PORT@IFNAME --to GROUP:PORT@IFNAME
 *                [--stats-interval S] [-j] [options]   (ibtick-relay(8))
 *
 * One datagram in is one datagram out, payload unchanged.  Every datagram
 * is received and forwarded, or counted where it was lost: before the
 * relay (the UDP socket's receive queue: SO_RXQ_OVFL and SO_MEMINFO; the
 * feed: IBTICK_CMSG_LOST for laps, the publisher-sequence gaps of
 * IBTICK_CMSG_TICK) or by it (send errors, oversized or truncated
 * datagrams).  A full send queue is waited out with poll(POLLOUT), never a
 * drop: meanwhile the input queues up in its socket, where an overflow is
 * counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "addrarg.h"
#include "out.h"
#include "relayarg.h"

#define PROG "ibtick-relay"
#define BATCH 256	/* datagrams per wake-up before looking at signals */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " udp-to-feed --from GROUP:PORT@IFNAME --to GROUP:PORT[@IFNAME]\n"
		"                    [--rcvbuf BYTES] [--stats-interval S] [-j]\n"
		"       " PROG " feed-to-udp --from GROUP:PORT[@IFNAME] --to GROUP:PORT@IFNAME\n"
		"                    [--slots N] [--slot-size BYTES] [--loopback]\n"
		"                    [--ttl N] [--multicast-loop] [--stats-interval S] [-j]\n"
		"  --from: where datagrams come from (UDP group or feed), --to: where they go.\n"
		"  SIGUSR1 prints the counters, SIGINT/SIGTERM print them and exit.\n");
}

/* The counters (ibtick-relay(8), COUNTERS). */
struct counters {
	uint64_t received;	/* datagrams read from the input */
	uint64_t forwarded;	/* sent on the output */
	uint64_t bytes_in, bytes_out;
	/* lost before the relay read them */
	uint64_t in_dropped;	/* udp: socket receive queue overflow; feed: lapped */
	uint64_t in_gap;	/* feed: publisher ticks missing (GAP) */
	uint64_t in_gap_events;
	uint64_t in_old;	/* feed: reordered or duplicate (OLD), forwarded */
	/* read but not forwarded */
	uint64_t in_truncated;	/* truncated on input: not forwarded */
	uint64_t out_too_big;	/* EMSGSIZE */
	uint64_t out_errors;	/* other send errors (ENOBUFS, ENETDOWN, ...) */
	uint64_t out_eagain;	/* send queue full: waited, not dropped */
	uint64_t pending;	/* 1 while a datagram waits for room */
};

struct relay {
	struct relay_opts o;
	int in_fd, out_fd;
	struct counters c;
	/* the input's kernel counters (read when printing) */
	uint64_t k_feed_rq_empty, k_feed_rx_errors, k_feed_tx_errors;
	char buf[65536];
	size_t len;		/* of the pending datagram */
	int fatal;		/* errno of the error that ended the relay */
	const char *fatal_what;
};

static uint64_t lost_in(const struct counters *c)
{
	return c->in_dropped + c->in_gap;
}

static uint64_t lost_out(const struct counters *c)
{
	return c->in_truncated + c->out_too_big + c->out_errors;
}

/* The UDP socket's drop count now (sk_drops), to see drops after the last
 * datagram that SO_RXQ_OVFL could not report yet. */
static void udp_drops_now(struct relay *r)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mi);

	if (r->o.mode != RELAY_UDP_TO_FEED)
		return;
	memset(mi, 0, sizeof(mi));
	if (!getsockopt(r->in_fd, SOL_SOCKET, SO_MEMINFO, mi, &l) &&
	    l > SK_MEMINFO_DROPS * sizeof(uint32_t) &&
	    mi[SK_MEMINFO_DROPS] > r->c.in_dropped)
		r->c.in_dropped = mi[SK_MEMINFO_DROPS];
}

static void feed_stats_now(struct relay *r)
{
	struct ibtick_stats st;
	socklen_t l = sizeof(st);
	int fd = r->o.mode == RELAY_FEED_TO_UDP ? r->in_fd : r->out_fd;

	memset(&st, 0, sizeof(st));
	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &l))
		return;
	r->k_feed_rq_empty = st.feed_rq_empty;
	r->k_feed_rx_errors = st.feed_rx_errors;
	r->k_feed_tx_errors = st.feed_tx_errors;
}

static void print_ep(const char *key, const char *fmt, const struct relay_ep *ep)
{
	char s[64];

	snprintf(s, sizeof(s), "%s:%u%s%s", ep->group_s, ep->port,
		 *ep->ifname ? "@" : "", ep->ifname);
	out_str(key, fmt, s);
}

static void print_counters(struct relay *r, const char *event)
{
	const struct counters *c = &r->c;
	bool feed_in = r->o.mode == RELAY_FEED_TO_UDP;

	udp_drops_now(r);
	feed_stats_now(r);
	out_init(stdout, r->o.json ? OUT_JSON : OUT_TEXT);
	out_obj_open(NULL);
	out_text(PROG);
	out_str("event", " %s", event);
	out_str("mode", " %s", relay_mode_name(r->o.mode));
	print_ep("from", " %s", &r->o.from);
	print_ep("to", " -> %s", &r->o.to);
	out_text(":");
	out_counter("received", c->received);
	out_counter("forwarded", c->forwarded);
	out_counter("lost", lost_in(c) + lost_out(c));
	out_counter("lost_in", lost_in(c));
	out_counter("lost_out", lost_out(c));
	out_counter("pending", c->pending);
	if (feed_in) {
		out_counter("feed_lapped", c->in_dropped);
		out_counter("feed_gap", c->in_gap);
		out_counter("feed_gap_events", c->in_gap_events);
		out_counter("feed_old", c->in_old);
		out_counter("feed_truncated", c->in_truncated);
		out_counter("udp_tx_too_big", c->out_too_big);
		out_counter("udp_tx_errors", c->out_errors);
		out_counter("udp_tx_eagain", c->out_eagain);
		out_counter("kernel_feed_rq_empty", r->k_feed_rq_empty);
		out_counter("kernel_feed_rx_errors", r->k_feed_rx_errors);
	} else {
		out_counter("udp_rx_dropped", c->in_dropped);
		out_counter("udp_truncated", c->in_truncated);
		out_counter("feed_tx_too_big", c->out_too_big);
		out_counter("feed_tx_errors", c->out_errors);
		out_counter("feed_tx_eagain", c->out_eagain);
		out_counter("kernel_feed_tx_errors", r->k_feed_tx_errors);
	}
	out_counter("bytes_in", c->bytes_in);
	out_counter("bytes_out", c->bytes_out);
	out_obj_close();
	out_nl();
	out_finish();
	fflush(stdout);
}

/* Fatal setup errors: a message, exit status 1. */
static int fail(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	return 1;
}

/* A netdev name to its index; 0 for "" (the kernel's choice). */
static int ifindex_of(const char *ifname, unsigned int *idx)
{
	*idx = 0;
	if (!*ifname)
		return 0;
	*idx = if_nametoindex(ifname);
	if (!*idx) {
		fprintf(stderr, PROG ": no netdev \"%s\"\n", ifname);
		return 2;
	}
	return 0;
}

static int udp_in_open(struct relay *r)
{
	const struct relay_ep *ep = &r->o.from;
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(ep->port), .sin_addr = ep->group,
	};
	struct ip_mreqn mr = { .imr_multiaddr = ep->group };
	unsigned int idx;
	int one = 1, zero = 0, fd, ret;

	ret = ifindex_of(ep->ifname, &idx);
	if (ret)
		return -ret;
	mr.imr_ifindex = (int)idx;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -fail("UDP socket");
	/* several relays (or a local reader) may take the same group */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) ||
	    /* only the group joined here, on this netdev */
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof(zero)))
		return -fail("UDP socket options");
	if (r->o.rcvbuf &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &r->o.rcvbuf, sizeof(r->o.rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &r->o.rcvbuf, sizeof(r->o.rcvbuf)))
		return -fail("SO_RCVBUF");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -fail("bind to the UDP group");
	if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)))
		return -fail("IP_ADD_MEMBERSHIP");
	return fd;
}

static int udp_out_open(struct relay *r)
{
	const struct relay_ep *ep = &r->o.to;
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(ep->port), .sin_addr = ep->group,
	};
	struct ip_mreqn mr = { .imr_multiaddr = ep->group };
	int loop = r->o.mc_loop, fd, ret;
	unsigned int idx;

	ret = ifindex_of(ep->ifname, &idx);
	if (ret)
		return -ret;
	mr.imr_ifindex = (int)idx;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -fail("UDP socket");
	if (idx && setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)))
		return -fail("IP_MULTICAST_IF");
	if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &r->o.ttl, sizeof(r->o.ttl)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop)))
		return -fail("UDP socket options");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -fail("connect to the UDP group");
	return fd;
}

static int feed_addr(const struct relay_ep *ep, struct sockaddr_ibtick *sa)
{
	char port[8];

	snprintf(port, sizeof(port), "%u", ep->port);
	return tool_addr(PROG, sa, ep->group_s, port, ep->ifname);
}

static int feed_in_open(struct relay *r)
{
	struct sockaddr_ibtick sa;
	int one = 1, fd, ret;

	ret = feed_addr(&r->o.from, &sa);
	if (ret)
		return -ret;
	fd = socket(sa.sibt_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -fail("ibtick socket");
	if (r->o.slots || r->o.slot_size) {
		struct ibtick_ring_geometry g = {
			.nslots = r->o.slots ?: IBTICK_SLOTS_DEFAULT,
			.slot_size = r->o.slot_size ?: IBTICK_SLOT_SIZE_DEFAULT,
		};

		if (setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)))
			return -fail("IBTICK_RING_GEOMETRY");
	}
	if (r->o.loopback &&
	    setsockopt(fd, SOL_IBTICK, IBTICK_LOOPBACK, &one, sizeof(one)))
		return -fail("IBTICK_LOOPBACK");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -fail("bind to the feed");
	return fd;
}

static int feed_out_open(struct relay *r)
{
	struct sockaddr_ibtick sa;
	int fd, ret;

	ret = feed_addr(&r->o.to, &sa);
	if (ret)
		return -ret;
	fd = socket(sa.sibt_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -fail("ibtick socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -fail("connect to the feed (publishing needs CAP_NET_RAW)");
	return fd;
}

/*
 * Send the pending datagram.  Returns 1 when it is done with (sent, or
 * counted as dropped), 0 when the send queue is full (wait for POLLOUT),
 * -1 on an error that ends the relay (r->fatal).
 */
static int send_pending(struct relay *r)
{
	bool to_feed = r->o.mode == RELAY_UDP_TO_FEED;
	ssize_t n;

	for (;;) {
		n = send(r->out_fd, r->buf, r->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0) {
			r->c.forwarded++;
			r->c.bytes_out += (uint64_t)n;
			break;
		}
		switch (errno) {
		case EINTR:
			continue;
		case EAGAIN:
			r->c.out_eagain++;
			r->c.pending = 1;
			return 0;
		case EMSGSIZE:
			r->c.out_too_big++;
			break;
		case ENETDOWN:		/* port down: ibtick's, or the netdev's */
		case ENOBUFS:		/* UDP: the device's queue, qdisc */
		case ENETUNREACH:
		case EHOSTUNREACH:
		case ECONNREFUSED:	/* UDP: an ICMP error reported late */
			r->c.out_errors++;
			break;
		case EPERM:		/* UDP: netfilter; ibtick: the feed's ACL */
			if (!to_feed) {
				r->c.out_errors++;
				break;
			}
			/* fall through */
		default:
			r->c.out_errors++;
			r->fatal = errno;
			r->fatal_what = to_feed ? "send to the feed" : "send to UDP";
			r->c.pending = 0;
			return -1;
		}
		break;
	}
	r->c.pending = 0;
	return 1;
}

/* Read one datagram into r->buf.  Returns 1 with one to send, 0 when there
 * is none now (or it was not to be forwarded), -1 on an error that ends the
 * relay. */
static int recv_one(struct relay *r, bool *empty)
{
	bool feed_in = r->o.mode == RELAY_FEED_TO_UDP;
	char cbuf[CMSG_SPACE(sizeof(struct ibtick_tick_info)) +
		  CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(uint32_t)) + 64];
	struct iovec iov = { r->buf, sizeof(r->buf) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct ibtick_tick_info ti;
	bool have_ti = false;
	struct cmsghdr *cm;
	ssize_t n;

	*empty = false;
	n = recvmsg(r->in_fd, &m, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR) {
			*empty = true;
			return 0;
		}
		r->fatal = errno;
		r->fatal_what = feed_in ? "receive from the feed" : "receive from UDP";
		return -1;
	}
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL) {
			uint32_t d;

			/* the socket's drop count so far, with every datagram */
			memcpy(&d, CMSG_DATA(cm), sizeof(d));
			if (d > r->c.in_dropped)
				r->c.in_dropped = d;
		} else if (cm->cmsg_level == SOL_IBTICK && cm->cmsg_type == IBTICK_CMSG_LOST) {
			uint64_t l;

			memcpy(&l, CMSG_DATA(cm), sizeof(l));
			r->c.in_dropped += l;
		} else if (cm->cmsg_level == SOL_IBTICK && cm->cmsg_type == IBTICK_CMSG_TICK) {
			memcpy(&ti, CMSG_DATA(cm), sizeof(ti));
			have_ti = true;
		}
	}
	if (m.msg_flags & MSG_CTRUNC) {
		/* a loss report may have been cut: say so, never silently */
		static bool told;

		if (!told)
			fprintf(stderr, PROG ": control messages truncated: counts may be low\n");
		told = true;
	}
	r->c.received++;
	r->c.bytes_in += (uint64_t)n;
	if (have_ti) {
		if (ti.flags & IBTICK_TICK_GAP) {
			r->c.in_gap += ti.gap;
			r->c.in_gap_events++;
		}
		if (ti.flags & IBTICK_TICK_OLD)
			r->c.in_old++;
	}
	if ((m.msg_flags & MSG_TRUNC) ||
	    (have_ti && (ti.flags & IBTICK_TICK_TRUNCATED))) {
		r->c.in_truncated++;	/* a cut datagram is not forwarded */
		return 0;
	}
	r->len = (size_t)n;
	return 1;
}

static int setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int setup_timer(unsigned int secs)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = secs }, .it_value = { .tv_sec = secs },
	};
	int fd;

	if (!secs)
		return -1;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The relay's loop: returns the exit status. */
static int run(struct relay *r, int sig_fd, int tmr_fd)
{
	struct pollfd p[4] = {
		{ .fd = r->in_fd }, { .fd = r->out_fd },
		{ .fd = sig_fd, .events = POLLIN }, { .fd = tmr_fd, .events = POLLIN },
	};
	int i;

	for (;;) {
		p[0].events = r->c.pending ? 0 : POLLIN;
		p[1].events = r->c.pending ? POLLOUT : 0;
		if (poll(p, tmr_fd >= 0 ? 4 : 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			r->fatal = errno;
			r->fatal_what = "poll";
			break;
		}
		if (p[2].revents & POLLIN) {
			struct signalfd_siginfo si;
			bool stop = false;

			while (read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1)
					print_counters(r, "signal");
				else
					stop = true;
			}
			if (stop)
				break;
		}
		if (tmr_fd >= 0 && (p[3].revents & POLLIN)) {
			uint64_t ticks;

			if (read(tmr_fd, &ticks, sizeof(ticks)) == sizeof(ticks))
				print_counters(r, "interval");
		}
		if (r->c.pending && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			if (send_pending(r) < 0)
				break;
		}
		if (r->c.pending || !(p[0].revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		for (i = 0; i < BATCH; i++) {
			bool empty;
			int ret = recv_one(r, &empty);

			if (ret < 0 || empty)
				break;
			if (!ret)
				continue;
			ret = send_pending(r);
			if (ret <= 0)
				break;	/* full (pending) or fatal */
		}
		if (r->fatal)
			break;
	}
	print_counters(r, r->fatal ? "error" : "exit");
	if (r->fatal) {
		fprintf(stderr, PROG ": %s: %s\n", r->fatal_what, strerror(r->fatal));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct relay r;
	int sig_fd, tmr_fd, fd;
	bool to_feed;
	char err[160];

	if (relay_parse_args(argc, argv, &r.o, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		usage(stderr);
		return 2;
	}
	if (r.o.help) {
		usage(stdout);
		return 0;
	}
	r.in_fd = r.out_fd = -1;
	/* the module, then both netdevs, before any socket is made */
	if (ibtick_family() < 0) {
		fprintf(stderr, PROG ": ibtick module not loaded (modprobe ibtick)\n");
		return 1;
	}
	{
		unsigned int idx;

		if (ifindex_of(r.o.from.ifname, &idx) || ifindex_of(r.o.to.ifname, &idx))
			return 2;
	}
	/* the feed side first: "module not loaded" before any UDP error */
	to_feed = r.o.mode == RELAY_UDP_TO_FEED;
	fd = to_feed ? feed_out_open(&r) : feed_in_open(&r);
	if (fd < 0)
		return -fd;
	*(to_feed ? &r.out_fd : &r.in_fd) = fd;
	fd = to_feed ? udp_in_open(&r) : udp_out_open(&r);
	if (fd < 0)
		return -fd;
	*(to_feed ? &r.in_fd : &r.out_fd) = fd;
	sig_fd = setup_signals();
	if (sig_fd < 0)
		return fail("signals");
	tmr_fd = setup_timer(r.o.stats_interval);
	if (r.o.stats_interval && tmr_fd < 0)
		return fail("timerfd");
	/* tell a waiting script (or the journal) that the relay is in place */
	if (r.o.json)
		fprintf(stderr, "{\"bound\":true}\n");
	else
		fprintf(stderr, PROG ": bound, %s %s:%u%s%s -> %s:%u%s%s\n",
			relay_mode_name(r.o.mode), r.o.from.group_s, r.o.from.port,
			*r.o.from.ifname ? "@" : "", r.o.from.ifname,
			r.o.to.group_s, r.o.to.port, *r.o.to.ifname ? "@" : "",
			r.o.to.ifname);
	return run(&r, sig_fd, tmr_fd);
}
