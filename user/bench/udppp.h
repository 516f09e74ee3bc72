/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udppp: a UDP multicast ping-pong written against AF_INET alone, both
 * ends, laid out as sockperf's: one group and port both ways, the
 * multicast loop off.  ibtick-perf runs it on kernel UDP and under
 * ibtick-run (where libibtick-preload.so puts each end on an ibtick
 * feed), so that the two can be held against ibtick's own socket paths
 * with the same loop: what the preload library adds, and nothing of
 * another program's own work.
 *
 * Each datagram starts with a header that says ping or pong (udppp.c),
 * and each end ignores its own kind.
 */
#ifndef IBTICK_UDPPP_H
#define IBTICK_UDPPP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct udppp_opts {
	const char	*local_ip;	/* this end's netdev's IPv4 address */
	const char	*group;		/* IPv4 multicast group */
	unsigned int	port;
	size_t		size;		/* bytes per datagram, >= the header */
	bool		spin;		/* O_NONBLOCK, recvfrom() in a loop (as
					 * sockperf --nonblocked); else blocking */
	long		n, warm;	/* ping: samples kept, after warm-up ones */
	int		timeout_ms;	/* ping: resend after this long unanswered
					 * (a warm-up ping after 200 ms at most) */
};

/* Echo every ping back to the group until SIGTERM.  Returns 0, or -1. */
int udppp_echo(const struct udppp_opts *uo);

/*
 * Ping warm + n times; print each kept sample (half the round trip, ns),
 * one a line, then "# round_trips N" (every round trip tried, the resent
 * too) on @out.  Returns 0, or -1 (errno; "no answer" is ETIMEDOUT).
 */
int udppp_ping(const struct udppp_opts *uo, FILE *out);

#endif
