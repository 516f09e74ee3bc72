/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The feed counters, listed once.  Internal to the build (not installed):
 * the kernel declares its counters, fills IBTICK_A_FEED_STATS and copies
 * the feed part of struct ibtick_stats from this list, and the CLI names
 * the attributes from it.  The ABI itself (the IBTICK_A_FSTAT_* enum in
 * ibtick_netlink.h, the feed_* fields of struct ibtick_stats in ibtick.h)
 * stays written out in the uapi headers, where users read it.
 *
 * A new counter: one X() line here, its IBTICK_A_FSTAT_* constant appended
 * to the uapi enum and, when sockets should see it, a feed_<name> field
 * appended to struct ibtick_stats (then SO is Y).
 *
 *   X(name, ATTR, "cli key", KIND, SO)
 *     name   member of struct ibt_feed_stats; feed_<name> in ibtick_stats
 *     ATTR   IBTICK_A_FSTAT_<ATTR>
 *     key    the CLI's text and JSON key
 *     KIND   u: a u64 with one writer at a time (see its group below),
 *               read with READ_ONCE;
 *            a: an atomic64_t, written from several contexts
 *     SO     Y: copied into struct ibtick_stats (IBTICK_STATISTICS), N: not
 *
 * The order is the uapi enum's; the kernel checks the count at build time.
 */
#ifndef _IBTICK_COUNTERS_H
#define _IBTICK_COUNTERS_H

#define IBTICK_FEED_COUNTERS(X)						\
	/* the receive drain: the receive CQ's owner (poll.c) */	\
	X(rx_ticks,	RX_TICKS,	"rx_ticks",		u, Y)	\
	X(rx_bytes,	RX_BYTES,	"rx_bytes",		u, Y)	\
	X(gaps,		GAPS,		"gaps",			u, Y)	\
	X(gap_ticks,	GAP_TICKS,	"gap_ticks",		u, Y)	\
	X(old,		OLD,		"old",			u, Y)	\
	X(bad_hdr,	BAD_HDR,	"bad_hdr",		u, Y)	\
	X(other_port,	OTHER_PORT,	"other_port",		u, Y)	\
	X(truncated,	TRUNCATED,	"truncated",		u, Y)	\
	X(rq_empty,	RQ_EMPTY,	"rq_empty",		u, Y)	\
	X(rx_errors,	RX_ERRORS,	"rx_errors",		u, Y)	\
	X(loopback,	LOOPBACK,	"loopback_dropped",	u, Y)	\
	/* the send path: the feed's tx_lock */			\
	X(tx_ticks,	TX_TICKS,	"tx_ticks",		u, N)	\
	X(tx_errors,	TX_ERRORS,	"tx_errors",		u, Y)	\
	/* joins: the rejoin work (ibt_feeds_lock) and the cm handler */ \
	X(rejoins,	REJOINS,	"rejoins",		u, Y)	\
	X(join_errors,	JOIN_ERRORS,	"join_errors",		a, Y)	\
	/* CQ events: the completion handler */			\
	X(cq_events,	CQ_EVENTS,	"cq_events",		a, Y)	\
	/* completions by drainer, and the busy-poll thread: the CQ's owner */ \
	X(cqe_irq,	CQE_IRQ,	"cqe_irq",		u, Y)	\
	X(cqe_thread,	CQE_THREAD,	"cqe_thread",		u, Y)	\
	X(cqe_caller,	CQE_CALLER,	"cqe_caller",		u, Y)	\
	X(poll_loops,	POLL_LOOPS,	"poll_loops",		u, Y)	\
	X(poll_empty,	POLL_EMPTY,	"poll_empty",		u, Y)	\
	X(poll_busy_ns,	POLL_BUSY_NS,	"poll_busy_ns",		u, Y)	\
	X(poll_yields,	POLL_YIELDS,	"poll_yields",		u, Y)	\
	X(rx_drain_ns,	RX_DRAIN_NS,	"rx_drain_ns",		u, Y)	\
	X(rx_wake_ns,	RX_WAKE_NS,	"rx_wake_ns",		u, Y)	\
	/* what the feed's sockets lost to lapping: their recvmsg */	\
	X(readers_lost,	READERS_LOST,	"readers_lost",		a, N)	\
	X(laps,		LAPS,		"laps",			a, N)	\
	/* the device's asynchronous events: their handlers (feed_ib.c) */ \
	X(async_errors,	ASYNC_ERRORS,	"async_errors",		a, N)

#endif /* _IBTICK_COUNTERS_H */
