/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ibtick: tick sockets over InfiniBand / RoCE UD multicast.
 *
 * This header is the contract between ibtick.ko and user space: the socket
 * address, the socket options and control messages, the layout of a feed's
 * receive ring with its memory-ordering rules, and the wire header every
 * tick carries.  All fields are fixed-width; structures only grow at their
 * end and the kernel accepts and returns them versioned by length.
 */
#ifndef _UAPI_LINUX_IBTICK_H
#define _UAPI_LINUX_IBTICK_H

#include <linux/types.h>

/*
 * Address family.  The number is the module parameter "family" (default
 * IBTICK_AF_DEFAULT, the unused AF_WANPIPE slot); read the one in use from
 * /sys/module/ibtick/parameters/family instead of hard-coding it.
 */
#define IBTICK_AF_DEFAULT	25

/* Socket option level for the options below (any value is private to us). */
#define SOL_IBTICK		300

/*
 * struct sockaddr_ibtick - a feed: multicast group, feed port, device port.
 * @sibt_family:	the AF_IBTICK number in use.
 * @sibt_port:		feed port, host byte order, 1..65535; several feeds
 *			may share one group.
 * @sibt_ifindex:	netdev that names the RDMA device and port: the IPoIB
 *			interface (IB) or the Ethernet interface (RoCE).  0 lets
 *			the kernel choose, which it does only when the host has
 *			exactly one active IB/RoCE port (else EADDRNOTAVAIL).
 * @sibt_flags:		IBTICK_ADDR_* flags; unknown bits are EINVAL.
 * @sibt_group_family:	AF_INET (2).  AF_INET6 is reserved: EAFNOSUPPORT.
 * @sibt_reserved:	must be 0.
 * @sibt_group:		AF_INET: the IPv4 group in network byte order in the
 *			first 4 bytes, the other 12 bytes zero.
 *
 * With IBTICK_ADDR_FEED_ID the address names a feed by its id (`ibtick feed
 * show`) instead: the only way to reach an arbitrated feed, which has no
 * group of its own.  Then @sibt_group_family is 0 (AF_UNSPEC), @sibt_port
 * and @sibt_ifindex are 0, and the id is the first 4 bytes of @sibt_group
 * (host byte order, not 0), the other 12 bytes zero.  getsockname() of a
 * socket bound this way returns the same form.
 */
#define IBTICK_ADDR_FEED_ID	(1U << 0)

struct sockaddr_ibtick {
	__u16	sibt_family;
	__u16	sibt_port;
	__u32	sibt_ifindex;
	__u32	sibt_flags;
	__u16	sibt_group_family;
	__u16	sibt_reserved;
	__u8	sibt_group[16];
};

/* ------------------------------------------------------------------------
 * The receive ring.
 *
 * One ring per feed, shared by every socket bound to it and written once per
 * tick by the feed's receive path.  It starts with struct ibtick_ring_hdr;
 * nslots slots of slot_size bytes follow at slots_off.  Geometry never
 * changes after creation.  Indices are u64 and never wrap in practice; slot
 * i lives at slots_off + (i & (nslots - 1)) * slot_size.
 *
 *   producer (kernel, one at a time)      reader (any number)
 *
 *   STORE slot->seq = i - 1               p = LOAD.acq hdr->producer   (C)
 *   smp_wmb()                     (A)     if i + nslots < p: lapped
 *   STORE descriptor, payload             s = LOAD.acq slot->seq       (D)
 *   STORE.rel slot->seq = i       (B)     if s != i: lapped
 *   STORE.rel hdr->producer = i+1 (E)     LOAD descriptor, payload
 *                                         smp_rmb()                    (F)
 *                                         if LOAD slot->seq != i: lapped
 *
 * (E) pairs with (C): a reader that sees producer > i sees slot i written.
 * (B) pairs with (D): a reader that sees seq == i sees tick i's contents.
 * (A) pairs with (F): if the producer started to overwrite the slot while the
 * reader copied it, the second load of seq sees i + nslots - 1 (the busy
 * mark: an index that never maps to this slot) or a later index, and the
 * copy is discarded.  A copy is intact only if both loads of seq read i.
 * Comparisons are on differences of indices (u64 arithmetic), so index
 * wrap-around at 2^64 is harmless.
 *
 * "Lapped" means tick i was overwritten before it was read: the reader counts
 * it lost, reloads the producer index and resumes at
 *	max(i + 1, producer - nslots)
 * counting every index it skips as lost.  So each index is either delivered
 * once, intact, or counted lost once: delivered + lost == produced.
 * Early in the ring producer - nslots underflows: compare with signed
 * differences, (__s64)(producer - nslots - (i + 1)) > 0, never with
 * unsigned ones.  The producer never waits for a reader.
 *
 * For an implementer in C11: (C) and (D) are
 * atomic_load_explicit(..., memory_order_acquire), (B) and (E)
 * atomic_store_explicit(..., memory_order_release), (F) is
 * atomic_thread_fence(memory_order_acquire) before the second load of seq
 * (which may be relaxed).  The copy between (D) and (F) may read a slot
 * the producer is rewriting: bound it by slot_size - sizeof(struct
 * ibtick_slot), never by the len it read (garbage in a torn copy), and
 * trust len only once the second load of seq said i.
 *
 * Counting a publisher's ticks (its pub_id): the feed flags, per tick, GAP
 * (slot->gap ticks of that publisher were skipped before it) and OLD (a
 * duplicate, or one that came after a later one); a publisher's first tick
 * starts its count at its pub_seq, with no GAP.  Over the ring, for the
 * sequence numbers 1..N a publisher sent,
 *	ticks - OLD + sum(gap) + (first pub_seq - 1) + (N - last pub_seq) == N
 * where ticks, OLD and gap are that publisher's in the ring: the first
 * pub_seq above 1 counts what was sent before the feed (or the reader)
 * started, N - last what has not arrived (yet).
 * ----------------------------------------------------------------------
 */

/*
 * Mapping the ring.  mmap() of a bound (or connected, see "Connections")
 * socket at page offset
 * IBTICK_MMAP_RING (in bytes, the mmap offset argument) maps its feed's ring
 * read-only: the length must be ring_size rounded up to the page size
 * (struct ibtick_ring_info), the mapping MAP_SHARED with PROT_READ only.
 * The mapping is not inherited across fork(), cannot grow and cannot be
 * split (a partial munmap/mprotect fails with EINVAL).  It stays valid
 * until munmap(), even after close(), feed teardown or device removal, when
 * hdr->flags says IBTICK_RING_DEAD and the ticks already there stay readable.
 * (A reader can only harm itself: MADV_DONTNEED drops its view of the
 * pages, and later reads fault with SIGBUS; MADV_DOFORK lets a child
 * inherit the mapping after all.)
 *
 * A mapped reader keeps its own cursor; the mapping never moves the socket's
 * cursor (recvmsg's).  Before blocking in poll()/epoll on the socket, give
 * the kernel the mapped reader's position with IBTICK_RING_CURSOR: poll
 * reports EPOLLIN while the producer is past the socket's cursor.
 */
#define IBTICK_MMAP_RING	0ULL

#define IBTICK_RING_MAGIC	0x4b544249	/* "IBTK" little-endian */
#define IBTICK_RING_VERSION	1

/* hdr->flags */
#define IBTICK_RING_DEAD	(1U << 0)	/* the feed's device is gone */

struct ibtick_ring_hdr {
	__u32	magic;		/* IBTICK_RING_MAGIC */
	__u32	version;	/* IBTICK_RING_VERSION */
	__u32	nslots;		/* power of two */
	__u32	slot_size;	/* power of two, bytes, descriptor included */
	__u64	slots_off;	/* offset of slot 0 from the header */
	__u8	pad0[40];
	/* own cache line: written once per tick */
	__u64	producer;	/* index of the next tick to be written */
	__u8	pad1[56];
	/* own cache line: rarely written */
	__u32	flags;		/* IBTICK_RING_* */
	__u32	pad2;
	__u8	pad3[56];
};

/*
 * slot->flags:
 * GAP		ticks of this publisher are missing before this one (slot->gap)
 * TRUNCATED	the payload was longer than the slot and was cut to fit
 * OLD		sequence not above the last seen: a duplicate or reordered tick
 * LOCAL	sent from this feed's own QP (loopback, see IBTICK_LOOPBACK)
 *
 * In an arbitrated feed's ring (ibtick(7), "Arbitrated feeds") every slot
 * has ARB set, @pub_seq is the arbitrated sequence number (the field the
 * feed names, unwrapped to 64 bits), and bits 8..11 say which rail
 * delivered it (IBTICK_TICK_RAIL()).  Also:
 * LATE		delivered after a higher number: it filled a hole in time
 * NODATA	no tick: numbers pub_seq .. pub_seq + gap - 1 were missed by
 *		every rail (with GAP; len 0; rail bits 0)
 * RESET	the first number of a new session (the sequence restarted)
 */
#define IBTICK_TICK_GAP		(1U << 0)
#define IBTICK_TICK_TRUNCATED	(1U << 1)
#define IBTICK_TICK_OLD		(1U << 2)
#define IBTICK_TICK_LOCAL	(1U << 3)
#define IBTICK_TICK_ARB		(1U << 4)
#define IBTICK_TICK_LATE	(1U << 5)
#define IBTICK_TICK_NODATA	(1U << 6)
#define IBTICK_TICK_RESET	(1U << 7)
#define IBTICK_TICK_RAIL_SHIFT	8
#define IBTICK_TICK_RAIL(flags)	(((flags) >> IBTICK_TICK_RAIL_SHIFT) & 0xf)

/*
 * struct ibtick_slot - the descriptor at the start of every slot; the payload
 * follows it, up to slot_size - sizeof(struct ibtick_slot) bytes.
 * @seq:	index of the tick in the ring (see the contract above)
 * @pub_seq:	the publisher's sequence number (from the wire header)
 * @rx_ns:	receive time, CLOCK_REALTIME ns, taken once per drain of the
 *		CQ, when its first completions were polled (ticks drained
 *		together share it)
 * @send_ns:	the publisher's send time (its CLOCK_REALTIME)
 * @pub_id:	the publisher's id (from the wire header)
 * @len:	payload bytes stored in the slot
 * @orig_len:	payload bytes on the wire (> len when TRUNCATED)
 * @flags:	IBTICK_TICK_*
 * @gap:	with GAP: how many of this publisher's ticks were missing
 */
struct ibtick_slot {
	__u64	seq;
	__u64	pub_seq;
	__u64	rx_ns;
	__u64	send_ns;
	__u32	pub_id;
	__u16	len;
	__u16	flags;
	__u32	orig_len;
	__u32	gap;
};

/* Ring geometry limits (create time; EINVAL outside). */
#define IBTICK_SLOTS_MIN	64
#define IBTICK_SLOTS_MAX	(1U << 20)
#define IBTICK_SLOTS_DEFAULT	4096
#define IBTICK_SLOT_SIZE_MIN	64
#define IBTICK_SLOT_SIZE_MAX	8192
#define IBTICK_SLOT_SIZE_DEFAULT 256
#define IBTICK_RING_BYTES_MAX	(256ULL << 20)

/* ------------------------------------------------------------------------
 * The wire: every tick is one UD datagram, this header then the payload.
 * All fields big-endian.
 * ----------------------------------------------------------------------
 */
#define IBTICK_WIRE_MAGIC	0x4954	/* "IT" */
#define IBTICK_WIRE_VERSION	1

struct ibtick_wire_hdr {
	__be16	magic;		/* IBTICK_WIRE_MAGIC */
	__u8	version;	/* IBTICK_WIRE_VERSION */
	__u8	hdr_len;	/* header bytes; later versions may add more */
	__be16	feed_port;	/* sibt_port of the destination feed */
	__be16	len;		/* payload bytes that follow */
	__be32	pub_id;		/* publisher id, random per publishing socket */
	__be32	reserved;	/* 0 */
	__be64	pub_seq;	/* 1, 2, 3, ... per publisher */
	__be64	send_ns;	/* CLOCK_REALTIME at sendmsg */
};

/* ------------------------------------------------------------------------
 * Socket options, level SOL_IBTICK.
 * ----------------------------------------------------------------------
 */
enum {
	/* set, before bind: struct ibtick_ring_geometry of a feed it creates */
	IBTICK_RING_GEOMETRY = 1,
	/* get: struct ibtick_ring_info (bound or connected socket) */
	IBTICK_RING_INFO,
	/* get: struct ibtick_stats */
	IBTICK_STATISTICS,
	/* set/get int: receive ticks sent by this feed's own port (default 0) */
	IBTICK_LOOPBACK,
	/* set/get int: IBTICK_CMSG_LOST on recvmsg (default 1) */
	IBTICK_LOST_CMSG,
	/*
	 * set/get __u64: the socket's cursor (the next index recvmsg and poll
	 * look at).  A mapped reader sets it before blocking in poll/epoll.
	 * EINVAL when past the producer index; an index more than nslots
	 * behind counts as lapped at the next recvmsg.  On a connection it
	 * also gives the slots behind it back to the peer (forward only).
	 */
	IBTICK_RING_CURSOR,
	/*
	 * set/get struct ibtick_poll_mode: how the socket's feed drains its
	 * receive CQ.  Setting needs CAP_NET_ADMIN and a bound or connected
	 * socket; it applies to the whole feed while the feed lives.
	 */
	IBTICK_POLL_MODE,
	/*
	 * set/get int, before bind/connect: the completion vector of the
	 * receive CQ of a feed this socket creates (its interrupt, so its
	 * CPU, in interrupt mode).  EINVAL at bind when the device has fewer.
	 */
	IBTICK_COMP_VECTOR,
	/*
	 * Multi-feed sockets (see "More feeds on one socket" below).
	 * set struct sockaddr_ibtick: read one more feed, as bind() does.
	 */
	IBTICK_ADD_FEED,
	/* set struct sockaddr_ibtick: stop reading a feed IBTICK_ADD_FEED added */
	IBTICK_DROP_FEED,
	/* get struct ibtick_member[]: the feeds the socket reads */
	IBTICK_FEEDS,
	/* set struct ibtick_member_cursor: a member feed's cursor */
	IBTICK_MEMBER_CURSOR,
	/* set/get int: IBTICK_CMSG_SOURCE on recvmsg (default 0) */
	IBTICK_SOURCE_CMSG,
	/*
	 * get struct ibtick_arb_stats: the arbitration counters of an
	 * arbitrated feed the socket reads, and its rails' (see below)
	 */
	IBTICK_ARB_STATISTICS,
	/* get struct ibtick_conn_info: a SOCK_SEQPACKET socket's connection */
	IBTICK_CONN_INFO,
};

/*
 * More feeds on one socket, as a UDP socket joins several groups.
 *
 * IBTICK_ADD_FEED subscribes the socket to the feed its struct
 * sockaddr_ibtick names (exactly sizeof, the rules and errors of bind(),
 * the feed created with the socket's geometry if it does not exist), on a
 * bound socket or an unbound one.  recvmsg() then returns the ticks of
 * every feed the socket reads, bind()'s included: one tick per call, taken
 * from the member feeds in turn (round robin; no order across feeds), with
 * msg_name naming the feed it came from.  Each member feed has its own
 * cursor, starting at its producer index when added, and its own loss
 * count: IBTICK_CMSG_LOST comes with a tick of the feed whose ticks were
 * lost, so losses are exact per feed (msg_name names it).  poll()/epoll
 * report EPOLLIN while any member feed has a tick past its cursor, and
 * EPOLLERR | EPOLLHUP only when every feed the socket reads is dead.
 *
 * Errors: EADDRINUSE the feed is read by the socket already; ENOBUFS the
 * socket reads IBTICK_FEEDS_PER_SOCKET feeds; IBTICK_DROP_FEED of a feed
 * not added by IBTICK_ADD_FEED is EADDRNOTAVAIL (bind()'s feed stays until
 * close()).  A sibt_ifindex of 0 in IBTICK_DROP_FEED matches the member
 * feed of that group and port, if there is exactly one.
 *
 * A mapped reader maps each member feed's ring at its own offset,
 * IBTICK_MMAP_FEED(feed_id) (bind()'s is also at IBTICK_MMAP_RING), and
 * finds both, with the length, in IBTICK_FEEDS; before sleeping in poll it
 * gives each feed's position with IBTICK_MEMBER_CURSOR.  The mapping of a
 * dropped feed keeps that feed and its ring until munmap().
 */
#define IBTICK_FEEDS_PER_SOCKET	64	/* bind()'s feed included */

/*
 * ioctl(fd, IBTICK_SIOC_LOOK, 0): one look at the completion queue of every
 * feed the socket reads, as a non-blocking recvmsg() with SO_BUSY_POLL makes
 * (and with SO_PREFER_BUSY_POLL leaving the CQ event deferred as it would),
 * but taking no tick: what the CQ held goes to the feeds' rings.  For a
 * mapped reader that spins on its rings and wants its own calls to drain
 * the CQ, without the copy, the control messages and the cursor of a
 * recvmsg().  Without SO_BUSY_POLL it does nothing, as that recvmsg()
 * drains nothing; a feed the socket was refused is skipped.  0; ENOTCONN:
 * the socket reads no feed; EINVAL: an argument other than 0.
 */
#define IBTICK_SIOC_LOOK	0x89E0	/* SIOCPROTOPRIVATE */

/*
 * a ring is at most IBTICK_RING_BYTES_MAX (2^28) bytes: one id per 2^28.
 * A 32-bit program: from feed id 8 the offset is past 2 GiB, which needs
 * a 64-bit off_t (_FILE_OFFSET_BITS=64; a 32-bit one does not hold it,
 * and from feed id 16 wraps to another feed's offset); mmap2's page
 * offset then reaches feed ids up to 65535, not beyond.
 */
#define IBTICK_MMAP_FEED_SHIFT	28
#define IBTICK_MMAP_FEED(feed_id)	((__u64)(feed_id) << IBTICK_MMAP_FEED_SHIFT)

/* ibtick_member.flags */
#define IBTICK_MEMBER_BOUND	(1U << 0)	/* the feed of bind() */

/*
 * struct ibtick_member - one feed a socket reads (IBTICK_FEEDS).  The
 * getsockopt fills as many as fit in optlen (a multiple of the size) and
 * returns their bytes; ERANGE, with the bytes needed in optlen, when they
 * do not all fit.
 */
struct ibtick_member {
	struct sockaddr_ibtick addr;	/* sibt_ifindex resolved */
	__u32	feed_id;	/* as in "ibtick feed show" */
	__u32	flags;		/* IBTICK_MEMBER_* */
	__u64	cursor;		/* the socket's next index in the feed */
	__u64	lost;		/* ticks of the feed the socket was lapped by */
	__u64	mmap_offset;	/* IBTICK_MMAP_FEED(feed_id) */
	__u64	mmap_size;	/* the ring rounded up to the page size */
};

/*
 * IBTICK_ARB_STATISTICS - what an arbitrated feed did with its rails'
 * copies (ibtick(7), "Arbitrated feeds"); the same numbers as
 * "ibtick feed show -s NAME".  Set @feed_id before the call to ask for a
 * feed the socket reads by IBTICK_ADD_FEED; 0 asks for bind()'s feed.
 * getsockopt copies min(optlen, sizeof) bytes (at least the first 8) and
 * returns that length.  Errors: ENOTCONN no feed bound (and @feed_id 0);
 * EADDRNOTAVAIL the socket does not read feed @feed_id; EOPNOTSUPP the
 * feed does not arbitrate.
 *
 * Per feed, since it started: @delivered numbers written into the ring
 * (one copy each), @gaps NODATA slots written for @gap_numbers numbers
 * every rail missed, @resets sessions started by a sequence reset, @holes
 * numbers open now (skipped by a delivery, their window still running).
 * Each rail's copies add up: rx == won + dup + late + stale + short_payload
 * + bad_seq, and the rails' won add up to delivered.
 */
#define IBTICK_ARB_RAILS	4	/* rails of an arbitrated feed, at most */

struct ibtick_rail_stats {
	__u32	index;		/* 0 for rail A, 1 for B, ... */
	__u32	up;		/* receiving now: its feed live, its port active */
	__u64	rx;		/* copies received */
	__u64	won;		/* first copies: delivered from this rail */
	__u64	dup;		/* second copies, dropped */
	__u64	only;		/* numbers no other rail had within the window */
	__u64	late;		/* copies of a number already declared a gap */
	__u64	stale;		/* copies from before a sequence reset */
	__u64	short_payload;	/* too short for the sequence field */
	__u64	bad_seq;	/* an unconfirmed jump, or a number near 2^64 */
	__u64	resets;		/* sequence restarts this rail saw */
	/* how far behind the winner its duplicates came (ns) */
	__u64	lag_n;
	__u64	lag_mean_ns;
	__u64	lag_p50_ns;	/* upper bounds of power-of-two buckets */
	__u64	lag_p99_ns;
	__u64	lag_max_ns;
	__u64	downs;		/* times it went down */
	__u64	down_ns;	/* time spent down, the current spell included */
};

struct ibtick_arb_stats {
	__u32	feed_id;	/* in: 0 or a member feed; out: the feed */
	__u32	nrails;		/* rail[0 .. nrails - 1] are filled */
	__u64	delivered;
	__u64	gaps;
	__u64	gap_numbers;
	__u64	resets;
	__u64	holes;
	struct ibtick_rail_stats rail[IBTICK_ARB_RAILS];
};

struct ibtick_member_cursor {
	__u32	feed_id;
	__u32	reserved;	/* 0 */
	__u64	cursor;		/* as IBTICK_RING_CURSOR */
};

/*
 * ioctl(fd, IBTICK_SIOC_WAIT, &w): the wait of a reader that takes its
 * ticks from the mapped rings of a socket's member feeds (IBTICK_ADD_FEED).
 * First, as IBTICK_MEMBER_CURSOR for each of w.c[0..n-1], the kernel
 * learns where the reader is (all of them checked before any is set), but
 * a cursor only moves forward: of two threads' waits, the one told later
 * may carry the older cursor, and must not hand a tick out again.  Then
 * the call waits, as a recvmsg() of the socket would (its SO_RCVTIMEO, its
 * SO_BUSY_POLL spin, O_NONBLOCK: one look), until a member feed has a tick
 * past its cursor, and returns 0 taking nothing: the reader takes it from
 * the ring.  A wait is a recvmsg() without the copy, the control messages
 * and the address.  Errors as that recvmsg()'s: EAGAIN (timeout, or
 * nothing for a non-blocking socket), EINTR, EACCES (a feed's read access
 * revoked, once), ENODEV (every feed it reads is over), ENOTCONN (it reads
 * no feed), each with the cursors taken; and, with none taken, EINVAL: n
 * over IBTICK_WAIT_CURSORS, flags or the reserved field of a cursor in use
 * not 0 (entries past n are not read), a cursor past its feed's producer;
 * EADDRNOTAVAIL: a feed_id the socket does not read; EOPNOTSUPP: a socket
 * that reads only its bind()'s feed (it waits in poll() after
 * IBTICK_RING_CURSOR); EFAULT.
 */
#define IBTICK_WAIT_CURSORS	4
struct ibtick_wait {
	__u32	n;		/* cursors in c[] */
	__u32	flags;		/* 0 */
	struct ibtick_member_cursor c[IBTICK_WAIT_CURSORS];
};
#define IBTICK_SIOC_WAIT	0x89E1	/* SIOCPROTOPRIVATE + 1 */

/*
 * Poll modes:
 * IRQ	the CQ's completion event schedules a softirq poll that drains it
 *	and re-arms it (default); where the driver raises the event in
 *	softirq context (rxe), the event does so itself.  Callers with
 *	SO_BUSY_POLL also drain it from recvmsg while they spin.
 * BUSY	a kernel thread ("ibtick-poll") spins on the CQ with the event
 *	disarmed, on @cpu when >= 0; it yields when the scheduler asks,
 *	falls back to IRQ mode while the feed has no subscribed socket, and
 *	its CPU time is counted in struct ibtick_stats (feed_poll_*).
 */
#define IBTICK_POLL_IRQ		0
#define IBTICK_POLL_BUSY	1

struct ibtick_poll_mode {
	__u32	mode;		/* IBTICK_POLL_* */
	__s32	cpu;		/* BUSY: the thread's CPU, -1 for any */
};

struct ibtick_ring_geometry {
	__u32	nslots;
	__u32	slot_size;
};

struct ibtick_ring_info {
	__u32	version;	/* IBTICK_RING_VERSION */
	__u32	nslots;
	__u32	slot_size;
	__u32	flags;		/* IBTICK_RING_* at the time of the call */
	__u64	hdr_size;	/* sizeof(struct ibtick_ring_hdr) */
	__u64	producer_off;	/* offsets from the start of the ring */
	__u64	flags_off;
	__u64	slots_off;
	__u64	ring_size;	/* bytes: header + slots */
	/* appended in 0.2: the mmap() arguments for the ring */
	__u64	mmap_offset;	/* IBTICK_MMAP_RING */
	__u64	mmap_size;	/* ring_size rounded up to the page size */
};

/*
 * Statistics of the socket and of its feed.  Monotonic, never cleared.
 * getsockopt copies min(optlen, sizeof) bytes and returns that length: old
 * binaries keep working when fields are appended.
 */
struct ibtick_stats {
	/* this socket */
	__u64	rx_ticks;	/* delivered by recvmsg */
	__u64	rx_bytes;
	__u64	rx_lost;	/* lapped: overwritten before this socket read them */
	__u64	rx_truncated;	/* MSG_TRUNC deliveries */
	__u64	tx_ticks;
	__u64	tx_bytes;
	__u64	tx_eagain;	/* sendmsg found the send queue full */
	__u64	tx_errors;
	__u64	rx_skipped_local; /* LOCAL ticks skipped: loopback off here */
	/* the feed (shared by every socket bound to it) */
	__u64	feed_rx_ticks;	/* written into the ring */
	__u64	feed_rx_bytes;
	__u64	feed_gaps;	/* gap events (GAP flags set) */
	__u64	feed_gap_ticks;	/* publisher ticks missing in those gaps */
	__u64	feed_old;	/* duplicates / reordered (OLD flag) */
	__u64	feed_bad_hdr;	/* dropped: bad magic, version, length */
	__u64	feed_other_port;/* dropped: for another feed on the group */
	__u64	feed_truncated;	/* payload cut to the slot */
	__u64	feed_rq_empty;	/* receive queue ran dry (UD drops silently) */
	__u64	feed_rx_errors;	/* completions with an error status */
	__u64	feed_loopback;	/* own host's ticks dropped by the loopback policy */
	__u64	feed_tx_errors;	/* send completions in error */
	__u64	feed_rejoins;	/* groups joined again (port up, SM reregister) */
	__u64	feed_join_errors; /* failed joins and lost memberships */
	/* appended in 0.2 */
	__u64	feed_cq_events;	/* receive CQ completion events (interrupts) */
	__u64	feed_cqe_irq;	/* completions drained in softirq context */
	__u64	feed_cqe_thread; /* ... by the busy-poll thread */
	__u64	feed_cqe_caller; /* ... by SO_BUSY_POLL callers */
	__u64	feed_poll_loops; /* busy-poll thread: polls of the CQ */
	__u64	feed_poll_empty; /* ... that found nothing */
	__u64	feed_poll_busy_ns; /* ... CPU time spent polling, ns */
	__u64	feed_poll_yields; /* ... times it gave the CPU back */
	__u64	mappings;	/* this socket: live mmaps of the ring */
	/*
	 * the feed's receive work in ns, from the first completion of a
	 * drain to its end (ring writes, reposts, wake-ups): divided by
	 * feed_rx_ticks, the kernel's cost per tick
	 */
	__u64	feed_rx_drain_ns;
	/*
	 * appended after 0.4.0: the part of feed_rx_drain_ns spent waking the
	 * feed's sleeping readers (and epoll), which grows with them
	 */
	__u64	feed_rx_wake_ns;
};

/* Control messages on recvmsg, level SOL_IBTICK. */
enum {
	/* __u64: ticks lost (lapped) since the last report; only when > 0 */
	IBTICK_CMSG_LOST = 1,
	/* struct ibtick_tick_info, with every tick */
	IBTICK_CMSG_TICK,
	/*
	 * struct ibtick_source: who sent the tick, when IBTICK_SOURCE_CMSG is
	 * on.  The feed records the sources of its last 4096 ticks from the
	 * moment the first of its sockets turns the option on; a tick that
	 * arrived before, or is read more than 4096 ticks late, has none.
	 */
	IBTICK_CMSG_SOURCE,
};

/* ibtick_source.flags */
#define IBTICK_SOURCE_IPV4	(1U << 0)	/* gid is ::ffff:a.b.c.d (RoCEv2 over IPv4) */

/*
 * struct ibtick_source - the sender of a tick, from its network header.
 * @gid:	the source GID (IB: the sender's port GID; RoCE: its IP
 *		address as a GID, IPv4-mapped for IPv4)
 * @qpn:	the sender's QP number
 * @flags:	IBTICK_SOURCE_*
 */
struct ibtick_source {
	__u8	gid[16];
	__u32	qpn;
	__u32	flags;
};

struct ibtick_tick_info {
	__u64	pub_seq;
	__u64	send_ns;
	__u32	pub_id;
	__u16	flags;		/* IBTICK_TICK_* */
	__u16	reserved;
	__u32	gap;
	__u32	orig_len;
};


/* ------------------------------------------------------------------------
 * Connections: socket(AF_IBTICK, SOCK_SEQPACKET, 0), one RC queue pair.
 *
 * The order channel: reliable, connected, message-preserving.  The
 * struct sockaddr_ibtick of bind(), connect() and accept() holds a unicast
 * IPv4 address (sibt_group_family AF_INET, the address in the first 4
 * bytes of sibt_group, the other 12 zero; INADDR_ANY only for bind) and a
 * port (sibt_port, 1..65535, host byte order; 0 in bind() picks one).
 * sibt_ifindex is 0 or the IB/RoCE netdev the address is on; sibt_flags
 * and sibt_reserved are 0.  rdma_cm resolves the address; the ports are
 * its TCP port space (RDMA_PS_TCP), shared with every other rdma_cm user
 * of the host (NVMe-oF, iSER, rping): a port one of them holds is
 * EADDRINUSE.
 *
 *   server: socket, [setsockopt], bind, listen, accept ...
 *   client: socket, [setsockopt], connect ...
 *
 * Messages.  send*() sends one message of 1..msg_max bytes (EMSGSIZE
 * above; a zero-length send is EINVAL, so that recv() returning 0 always
 * means the peer closed); recv*() returns one message per call, cut to the
 * buffer with MSG_TRUNC set in msg_flags when the buffer is smaller.
 * msg_max is the peer's: its ring's slot payload (IBTICK_RING_GEOMETRY's
 * slot_size minus the 48-byte slot descriptor, 208 bytes by default), read with
 * IBTICK_CONN_INFO.  Each message arrives once, intact and in order, or
 * the connection fails.
 *
 * Flow control is by credits: a peer grants one credit per free slot of
 * its ring, so a message is only ever sent into a slot that is free, and
 * the receive queue never runs dry (no RNR retry in steady state).  A
 * send without a credit waits, or fails EAGAIN on a non-blocking socket
 * or with MSG_DONTWAIT; poll() says EPOLLOUT when a credit is there.  The
 * ring geometry (IBTICK_RING_GEOMETRY, before connect() or listen(), for
 * accepted sockets too) sets how many messages may be in flight.
 *
 * Failure.  An orderly close() or shutdown(SHUT_WR) of the peer reaches
 * the reader after every message sent before it: recv() then returns 0
 * and poll() says EPOLLIN | EPOLLRDHUP.  A peer that vanishes (killed host,
 * port down, device removed, retries exhausted, or no send completion for
 * 5 s while sends are outstanding) ends the connection:
 * recv() returns what had arrived, then ECONNRESET; send() fails EPIPE
 * (with SIGPIPE unless MSG_NOSIGNAL); poll() says EPOLLERR | EPOLLHUP;
 * SO_ERROR holds the cause once.  What a sender knows after a failure:
 * every message whose send completed before the failure reached the
 * peer's ring (RC acknowledged it); tx_unacked in struct ibtick_conn_info
 * counts those sent but not known to be acknowledged (a completion is
 * asked for one send in 16), which may or may not have arrived.
 * Each failure is also an IBTICK_EV_CONN_FAILED event (ibtick monitor),
 * and an orderly close from the peer IBTICK_EV_CONN_PEER_CLOSED.
 *
 * A connection that ends before accept() takes it (it fails, or its
 * client closes or disconnects, in order or not) is dropped when its ring
 * holds no message: accept() never returns it and it gives its place in
 * the backlog back at once.  One that holds messages (acknowledged to
 * the client, so owed) stays for accept(), which returns it with them,
 * then 0 or ECONNRESET.
 *
 * Reading without a system call per message: mmap() maps the
 * connection's ring read-only at IBTICK_MMAP_RING, as for a feed (see
 * "Mapping the ring"; IBTICK_RING_INFO gives the geometry), once the
 * socket has called connect() (the ring exists from then on) or was
 * accepted.  Message i is slot i (the slot's len
 * is the message's length, pub_seq is i; other fields are 0), indices
 * start at 0, and the ring is never lapped: the peer sends only into
 * slots the reader gave back.  The reader gives slots back by setting
 * IBTICK_RING_CURSOR to the index of the next message it will read
 * (forward only, not past the producer index: EINVAL), which returns
 * their credits to the peer; a reader that never does stops its peer
 * after nslots messages.  Setting it once per batch (libibtick: every
 * nslots / 4 messages, and before sleeping in poll()) is enough.  recv()
 * reads from the same cursor (so do not mix the two at once).  hdr->flags
 * gets IBTICK_RING_DEAD after the last message: with the peer's
 * end-of-stream mark, or when a failed connection's receives are flushed,
 * or at the latest at teardown: read up to the producer index, set the
 * cursor, then recv() says how it ended (0: the peer closed; ECONNRESET:
 * it failed).  Set the cursor before close(), too (ibtick_reader_close()
 * does): slots not handed back count as unread, and close() resets a
 * connection with unread messages.  The mapping holds the socket: the
 * connection closes at the last of close() and munmap().
 *
 * Spinning: recv() with MSG_DONTWAIT (or non-blocking) drains the
 * connection's CQ itself before EAGAIN; with SO_BUSY_POLL a blocking recv()
 * does so for up to that many microseconds before sleeping.  With
 * SO_PREFER_BUSY_POLL too (CAP_NET_ADMIN), the CQ's event stays off for
 * 200 us after such a drain; a call that may sleep turns it back on (at
 * the latest 200 us later).
 *
 * connect() errors: ECONNREFUSED (nobody listens on that port, or the
 * listener's backlog is full), EHOSTUNREACH / ENETUNREACH (no route or
 * no RDMA device for the address), ETIMEDOUT (address or route
 * resolution, or the handshake, timed out), EINPROGRESS on a
 * non-blocking socket (then poll for EPOLLOUT and read SO_ERROR),
 * EISCONN / EALREADY as for TCP, ENOBUFS when the connection's memory
 * would pass the caller's RLIMIT_MEMLOCK (an accepted connection is
 * charged to the listener's user; over it, the request is refused) or
 * the caller's uid holds max_user_conns connections already (below).
 * listen() before bind() is EDESTADDRREQ, on a port the caller may not
 * listen on EACCES (below); accept() on a socket not listening is EINVAL.
 *
 * Who may listen.  listen() checks the port the socket is bound to
 * (bind() checks nothing of the kind, so a client may bind any port
 * before connect()):
 *  - a port one of the administrator's listener rules covers (ibtick conn
 *    rule; <linux/ibtick_netlink.h>, "Listener rules"): the rule decides,
 *    by the caller's filesystem uid and groups and the rule's w bits, as
 *    for a file;
 *  - a port no rule covers: open to every user (as before rules existed);
 *  - CAP_NET_ADMIN may listen on any port.
 * Below net.ipv4.ip_unprivileged_port_start (1024 by default) bind()
 * itself needs CAP_NET_BIND_SERVICE (rdma_cm asks it: EACCES), for
 * listeners and clients alike, as TCP's bind() does, and listen() on an
 * unruled such port asks it again; a rule cannot lift that, only narrow
 * who may listen.
 * A refusal is EACCES and leaves the socket bound.  Rules apply to the
 * listen() calls after they change: a socket already listening goes on.
 *
 * Connections per user.  The module parameter max_user_conns (default
 * 1024; 0: no limit) caps the connections one uid holds: a socket counts
 * from its connect() (one that fails at once does not) until it is
 * closed, and a listener's connections count against the uid that called
 * listen(), from their request until they are closed, accepted or not.
 * Listeners themselves do not count.  It holds for every user, root and
 * CAP_IPC_LOCK (whose pinned memory no RLIMIT_MEMLOCK bounds) included.
 * connect() past it fails ENOBUFS; a request past it is refused (the
 * client's connect() fails ECONNREFUSED) and counted in the listener's
 * refused_user_max (IBTICK_A_CONN_REFUSED_USER_MAX, ibtick -s conn show).
 * ----------------------------------------------------------------------
 */

/* struct ibtick_conn_info.state */
enum {
	IBTICK_CONN_NEW = 0,	/* socket(), maybe bind() */
	IBTICK_CONN_LISTEN,
	IBTICK_CONN_CONNECTING,
	IBTICK_CONN_ESTABLISHED,
	IBTICK_CONN_PEER_CLOSED, /* orderly close seen; the ring may hold more */
	IBTICK_CONN_FAILED,	/* reset, device gone, ...: see SO_ERROR */
	IBTICK_CONN_CLOSED,	/* shut down here */
};

/*
 * struct ibtick_conn_info - IBTICK_CONN_INFO, versioned by length (at
 * least 8 bytes; min(optlen, sizeof) bytes copied).
 */
struct ibtick_conn_info {
	__u32	state;		/* IBTICK_CONN_* */
	__u32	msg_max;	/* largest message send() takes (the peer's) */
	__u32	local_msg_max;	/* largest message this side receives */
	__u32	nslots;		/* this side's ring: messages in flight to us */
	__u32	credits;	/* messages we may send now */
	__u32	peer_credits;	/* messages the peer may send now, as we know */
	__u32	pending_grants;	/* slots read here, not yet granted */
	__u32	inline_max;	/* sends up to this size go inline */
	__u64	tx_msgs;	/* messages sent (posted) */
	__u64	tx_bytes;
	__u64	rx_msgs;	/* messages received into the ring */
	__u64	rx_bytes;
	__u64	rx_read;	/* read by recv() or the cursor */
	__u64	tx_credit_waits; /* sends that found no credit (waited or EAGAIN) */
	__u64	ctl_tx;		/* credit-only and close messages sent */
	__u64	ctl_rx;
	__u64	tx_unacked;	/* at a failure: sent, not known acknowledged */
	__u64	cq_errors;	/* completions in error (the failure's) */
	__u32	qp_num;		/* ours, as in `rdma res show qp` */
	__u32	peer_qp_num;
	/* appended after 0.4.0: who drained the CQ (send completions too) */
	__u64	cq_events;	/* completion events (the CQ was armed) */
	__u64	cqe_irq;	/* completions drained in softirq context */
	__u64	cqe_caller;	/* ... by callers spinning (MSG_DONTWAIT, busy) */
	__u64	irq_polls;	/* runs of the softirq poll, empty ones too */
};

#endif /* _UAPI_LINUX_IBTICK_H */
