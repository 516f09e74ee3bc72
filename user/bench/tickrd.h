/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tickrd: one tick reader interface over the four ways an application can
 * read an ibtick feed, for the tools that compare them (ibtick-perf,
 * ibtick-md):
 *
 *   TICKRD_MAPPED	the mapped ring, spinning on ibtick_next(): no
 *			system call per tick
 *   TICKRD_EPOLL	the mapped ring; when caught up, ibtick_arm() and
 *			epoll_wait() until the next tick
 *   TICKRD_RECVMSG	recvmsg(2), blocking
 *   TICKRD_BUSY	recvmsg(2) with SO_BUSY_POLL: the caller drains the
 *			receive completion queue itself
 *
 * Every kind counts what it lost (lapped in the ring) in d->lost, from the
 * ring's indices or from the IBTICK_CMSG_LOST control messages.  Functions
 * return -1 with errno on failure, like the system calls they make.
 */
#ifndef IBTICK_TICKRD_H
#define IBTICK_TICKRD_H

#include <stdint.h>
#include <sys/types.h>

#include "libibtick.h"

enum tickrd_kind {
	TICKRD_MAPPED,
	TICKRD_EPOLL,
	TICKRD_RECVMSG,
	TICKRD_BUSY,
	TICKRD_NKINDS,
};

/* "mapped", "epoll", "recvmsg", "busy" */
extern const char *const tickrd_kind_names[TICKRD_NKINDS];
/* The kind named @name, or -1. */
int tickrd_kind_parse(const char *name);

struct tickrd_opts {
	uint32_t	slot_size;	/* ring geometry if this creates the feed; 0: default */
	uint32_t	nslots;
	int		busy_cpu;	/* >= -1: feed in busy-poll mode on that CPU
					 * (-1 any; CAP_NET_ADMIN); else interrupt */
	int		busy_poll_us;	/* TICKRD_BUSY: SO_BUSY_POLL (0: 200; < 0: none) */
	int		prefer_busy_poll; /* TICKRD_BUSY: SO_PREFER_BUSY_POLL too
					   * (CAP_NET_ADMIN) */
	int		nonblock;	/* TICKRD_BUSY: recvmsg(MSG_DONTWAIT) in a
					 * loop, each call one busy poll, as a
					 * UDP program spins (sockperf
					 * --nonblocked) */
};

struct tickrd {
	enum tickrd_kind	kind;
	int			fd;	/* the bound socket */
	int			ep;	/* TICKRD_EPOLL: the epoll instance */
	struct ibtick_reader	r;	/* mapped (every kind maps it) */
	uint64_t		lost;	/* lapped ticks, this reader */
	int			rflags;	/* recvmsg's flags (MSG_DONTWAIT: nonblock) */
	const char		*failed; /* what failed, after -1 */
};

/* Bind to the feed @group/@port on @ifname and get ready to read. */
int tickrd_open(struct tickrd *d, enum tickrd_kind kind, const char *group,
		unsigned int port, const char *ifname,
		const struct tickrd_opts *opts);
/*
 * Bind to the feed with id @feed_id (IBTICK_ADDR_FEED_ID: an arbitrated
 * feed, say; `ibtick feed show` gives the id) and get ready to read.
 */
int tickrd_open_id(struct tickrd *d, enum tickrd_kind kind, uint32_t feed_id,
		   const struct tickrd_opts *opts);
void tickrd_close(struct tickrd *d);

/*
 * The next tick into @buf (cut to @len): returns its length, 0 when none
 * came for @timeout_ms, -1 with errno ENODEV when the feed is gone (its
 * device went away), or -1 with another errno.  @ts[0] is the publisher's
 * send time as its kernel stamped it; @ts[1] the receive time this kernel
 * stamped (mapped kinds; 0 for recvmsg); both CLOCK_REALTIME ns.
 */
ssize_t tickrd_get(struct tickrd *d, void *buf, size_t len, uint64_t ts[2],
		   int timeout_ms);

/* IBTICK_STATISTICS of the reader's socket. */
int tickrd_stats(const struct tickrd *d, struct ibtick_stats *st);

/* send(2) one tick on a publisher socket, waiting out a full send queue. */
int tickrd_send(int fd, const void *buf, size_t len, uint64_t *eagain);

#endif
