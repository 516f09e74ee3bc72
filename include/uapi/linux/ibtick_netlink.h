/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ibtick generic netlink interface.
 *
 * Family name IBTICK_GENL_NAME, version IBTICK_GENL_VERSION.  The family is
 * registered in init_net only (netnsok is off): RDMA devices and the feeds
 * built on them are host-wide objects in this version, and AF_IBTICK sockets
 * can be created in init_net only.  A process in another network namespace
 * sees neither the family nor the socket family.
 *
 * Permissions: every GET (doit and dump) is open to every user; FEED_NEW,
 * FEED_SET, FEED_DEL, CONN_RULE_NEW and CONN_RULE_DEL need CAP_NET_ADMIN
 * (GENL_ADMIN_PERM).  The "events"
 * multicast group is open to every user.
 *
 * Conventions, kept by every command:
 *  - attributes are validated strictly by per-command policies; an invalid,
 *    unknown or missing attribute is refused with an extended ACK that names
 *    it (enable NETLINK_EXT_ACK on the socket to read the message);
 *  - integers are host byte order; u64 values are aligned with *_PAD;
 *  - dumps set NLM_F_DUMP_INTR when the set of objects changed while the dump
 *    ran; user space restarts the dump.
 */
#ifndef _UAPI_LINUX_IBTICK_NETLINK_H
#define _UAPI_LINUX_IBTICK_NETLINK_H

#define IBTICK_GENL_NAME	"ibtick"
#define IBTICK_GENL_VERSION	1

enum {
	IBTICK_CMD_UNSPEC,
	IBTICK_CMD_DEV_GET,	/* doit: one device (DEV_INDEX or DEV_NAME);
				 * dumpit: every RDMA device ibtick sees
				 */
	IBTICK_CMD_FEED_GET,	/* doit: FEED_NAME or FEED_ID; dumpit: all */
	IBTICK_CMD_FEED_NEW,	/* admin: create a named feed (IBTICK_A_FEED_*) */
	IBTICK_CMD_FEED_SET,	/* admin: change a feed's live settings */
	IBTICK_CMD_FEED_DEL,	/* admin: tear a feed down (FEED_NAME/FEED_ID) */
	IBTICK_CMD_SOCK_GET,	/* dumpit: every AF_IBTICK socket (IBTICK_A_SOCK_*),
				 * filtered by SOCK_FEED_ID / SOCK_PID if given
				 */
	IBTICK_CMD_EVENT,	/* notification on the "events" group only */
	IBTICK_CMD_CONN_GET,	/* dumpit: every connection socket
				 * (SOCK_SEQPACKET; IBTICK_A_CONN_*),
				 * filtered by CONN_PID if given
				 */
	IBTICK_CMD_CONN_RULE_NEW, /* admin: add a listener rule (IBTICK_A_RULE_*) */
	IBTICK_CMD_CONN_RULE_DEL, /* admin: delete the rule of exactly
				   * RULE_PORT_LO..RULE_PORT_HI
				   */
	IBTICK_CMD_CONN_RULE_GET, /* dumpit: every listener rule, by port */

	/* add new commands above here */
	__IBTICK_CMD_CNT,
	IBTICK_CMD_MAX = __IBTICK_CMD_CNT - 1
};

/* Attributes of IBTICK_CMD_DEV_GET requests and replies. */
enum {
	IBTICK_A_DEV_UNSPEC,
	IBTICK_A_DEV_PAD,
	IBTICK_A_DEV_INDEX,		/* u32: ib_device index (rdma dev -d) */
	IBTICK_A_DEV_NAME,		/* string, e.g. "mlx5_0" */
	IBTICK_A_DEV_NODE_GUID,		/* u64 */
	IBTICK_A_DEV_SYS_IMAGE_GUID,	/* u64 */
	IBTICK_A_DEV_FW_VER,		/* string, may be empty */
	IBTICK_A_DEV_NODE_TYPE,		/* u8: enum ibtick_node_type */
	IBTICK_A_DEV_NUM_PORTS,		/* u32 */
	IBTICK_A_DEV_PORT,		/* nest: IBTICK_A_PORT_*, one per port */

	/* add new constants above here */
	__IBTICK_A_DEV_CNT,
	IBTICK_A_DEV_MAX = __IBTICK_A_DEV_CNT - 1
};

/* Attributes nested in IBTICK_A_DEV_PORT. */
enum {
	IBTICK_A_PORT_UNSPEC,
	IBTICK_A_PORT_PAD,
	IBTICK_A_PORT_NUM,		/* u32: 1-based port number */
	IBTICK_A_PORT_STATE,		/* u8: enum ibtick_port_state */
	IBTICK_A_PORT_PHYS_STATE,	/* u8: enum ibtick_port_phys_state */
	IBTICK_A_PORT_LINK_LAYER,	/* u8: enum ibtick_link_layer */
	IBTICK_A_PORT_ACTIVE_MTU,	/* u32: bytes (256..4096) */
	IBTICK_A_PORT_MAX_MTU,		/* u32: bytes */
	IBTICK_A_PORT_WIDTH,		/* u8: lanes (1, 2, 4, 8, 12) */
	IBTICK_A_PORT_SPEED,		/* u32: per-lane signalling, Mb/s */
	IBTICK_A_PORT_RATE,		/* u32: width x speed, Mb/s */
	IBTICK_A_PORT_GID0,		/* binary[16]: GID table entry 0 */
	IBTICK_A_PORT_LID,		/* u32: IB only */
	IBTICK_A_PORT_SM_LID,		/* u32: IB only */
	IBTICK_A_PORT_LMC,		/* u8: IB only */
	IBTICK_A_PORT_NETDEV_IFINDEX,	/* u32: IPoIB (IB) / Ethernet (RoCE) */
	IBTICK_A_PORT_NETDEV_NAME,	/* string */
	IBTICK_A_PORT_EVENTS,		/* nest: IBTICK_A_EVCNT_* */

	/* add new constants above here */
	__IBTICK_A_PORT_CNT,
	IBTICK_A_PORT_MAX = __IBTICK_A_PORT_CNT - 1
};

/*
 * Port events counted since ibtick first saw the device (monotonic, never
 * reset; nested in IBTICK_A_PORT_EVENTS).
 */
enum {
	IBTICK_A_EVCNT_UNSPEC,
	IBTICK_A_EVCNT_PAD,
	IBTICK_A_EVCNT_PORT_ACTIVE,	/* u64 */
	IBTICK_A_EVCNT_PORT_ERR,	/* u64 */
	IBTICK_A_EVCNT_LID_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_PKEY_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_SM_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_CLIENT_REREG,	/* u64 */
	IBTICK_A_EVCNT_GID_CHANGE,	/* u64 */

	/* add new constants above here */
	__IBTICK_A_EVCNT_CNT,
	IBTICK_A_EVCNT_MAX = __IBTICK_A_EVCNT_CNT - 1
};

/* ------------------------------------------------------------------------
 * Feeds.  A feed is one (multicast group, feed port, device port).  Feeds
 * created by IBTICK_CMD_FEED_NEW are "admin" feeds: they persist, with no
 * socket on them, until FEED_DEL or module unload; their access control
 * (owner, group, mode) decides who may subscribe and publish.  Feeds created
 * by a plain bind()/connect() are "auto" feeds named "auto-<id>" that go away
 * with their last socket.  A feed whose device went away stays listed (not
 * live) while anything references it; an admin feed stays until FEED_DEL.
 * ----------------------------------------------------------------------
 */
#define IBTICK_FEED_NAME_MAX	32	/* bytes, with the terminating NUL */

enum {
	IBTICK_A_FEED_UNSPEC,
	IBTICK_A_FEED_PAD,
	IBTICK_A_FEED_ID,		/* u32: unique while the module lives */
	IBTICK_A_FEED_NAME,		/* string: [A-Za-z0-9_.:-], 1..31 bytes */
	IBTICK_A_FEED_GROUP,		/* be32: IPv4 multicast group */
	IBTICK_A_FEED_PORT,		/* u16: feed port, 1..65535 */
	IBTICK_A_FEED_IFINDEX,		/* u32: IPoIB/RoCE netdev; 0: the only port */
	IBTICK_A_FEED_SLOTS,		/* u32: ring slots, power of two */
	IBTICK_A_FEED_SLOT_SIZE,	/* u32: bytes, power of two, 64..8192 */
	IBTICK_A_FEED_POLL_MODE,	/* u8: IBTICK_POLL_IRQ or IBTICK_POLL_BUSY */
	IBTICK_A_FEED_POLL_CPU,		/* s32: busy-poll thread's CPU, -1: any */
	IBTICK_A_FEED_COMP_VECTOR,	/* u32: completion vector of the receive CQ */
	IBTICK_A_FEED_LOOPBACK,		/* u8: enum ibtick_feed_loopback */
	IBTICK_A_FEED_OWNER,		/* u32: uid (in the caller's user namespace) */
	IBTICK_A_FEED_OWNER_GROUP,	/* u32: gid */
	IBTICK_A_FEED_MODE,		/* u16: permission bits, mask 0666 (below) */
	/* replies only */
	IBTICK_A_FEED_ADMIN,		/* u8: 1 admin feed, 0 auto feed */
	IBTICK_A_FEED_LIVE,		/* u8: 0 when its device went away / deleted */
	IBTICK_A_FEED_DEV_INDEX,	/* u32 */
	IBTICK_A_FEED_DEV_NAME,		/* string */
	IBTICK_A_FEED_DEV_PORT,		/* u32 */
	IBTICK_A_FEED_NETDEV_NAME,	/* string, when the netdev still exists */
	IBTICK_A_FEED_READERS,		/* u32: subscribed sockets */
	IBTICK_A_FEED_PUBLISHERS,	/* u32: publishing sockets */
	IBTICK_A_FEED_SOCKETS,		/* u32: every socket holding the feed */
	IBTICK_A_FEED_PRODUCER,		/* u64: ring producer index (ticks ever) */
	IBTICK_A_FEED_WIRE_MAX,		/* u32: largest datagram (path MTU) */
	IBTICK_A_FEED_QPN,		/* u32 */
	IBTICK_A_FEED_QKEY,		/* u32 */
	IBTICK_A_FEED_MLID,		/* u32: IB only */
	IBTICK_A_FEED_MGID,		/* binary[16] */
	IBTICK_A_FEED_RING_BYTES,	/* u64: header + slots */
	IBTICK_A_FEED_STATS,		/* nest: IBTICK_A_FSTAT_* */
	IBTICK_A_FEED_MEMBERSHIP,	/* u8: enum ibtick_feed_membership */
	IBTICK_A_FEED_ARB,		/* nest: IBTICK_A_ARB_*: an arbitrated feed */
	IBTICK_A_FEED_RAIL_OF,		/* u32: a rail of this arbitrated feed */
	IBTICK_A_FEED_PREFER_DEFER,	/* u32: us an SO_PREFER_BUSY_POLL caller
					 * leaves the receive CQ disarmed, 0..
					 * IBTICK_PREFER_DEFER_MAX, or
					 * IBTICK_PREFER_DEFER_DEFAULT
					 */

	/* add new constants above here */
	__IBTICK_A_FEED_CNT,
	IBTICK_A_FEED_MAX = __IBTICK_A_FEED_CNT - 1
};

/*
 * IBTICK_A_FEED_PREFER_DEFER: after an SO_PREFER_BUSY_POLL caller drained
 * the feed's receive CQ, the CQ event stays off this long (us) so that the
 * caller's next call finds the ticks without an event - in the spirit of
 * a NAPI instance's gro_flush_timeout.  Sleeping readers of the feed on
 * other sockets wait up to this long more.  DEFAULT (the feed's initial
 * value): the module parameter busy_poll_defer_us, or 200 us when that is
 * 0.  Plain SO_BUSY_POLL callers keep the module parameter's rule.
 */
#define IBTICK_PREFER_DEFER_DEFAULT	0xffffffffU
#define IBTICK_PREFER_DEFER_MAX		100000U

/*
 * Feed access control, checked with the caller's credentials at bind()
 * (subscribe: READ), at connect()/sendto() and at the first send after a
 * FEED_SET changed it (publish: WRITE).  CAP_NET_ADMIN passes every check.
 * Auto feeds have no ACL: anyone may subscribe, CAP_NET_RAW may publish.
 */
#define IBTICK_FEED_MODE_MASK	0666
#define IBTICK_FEED_MODE_DEFAULT 0644	/* all subscribe, owner publishes */

enum ibtick_feed_loopback {
	IBTICK_FEED_LOOPBACK_SOCKET,	/* each socket's IBTICK_LOOPBACK decides */
	IBTICK_FEED_LOOPBACK_DENY,	/* own host's ticks are never delivered */
};

/*
 * How the feed's device port belongs to the group.  A feed sends as a
 * send-only member (InfiniBand: SendOnlyFullMember; RoCE: no IGMP
 * membership of the netdev) and receives nothing - no QP attached, no
 * receive buffers - until its first reader binds; from then on it is a
 * full member until it is destroyed.
 */
enum ibtick_feed_membership {
	IBTICK_FEED_MEMBER_NONE,	/* not joined: the feed is dead */
	IBTICK_FEED_MEMBER_SEND_ONLY,
	IBTICK_FEED_MEMBER_FULL,
};

/*
 * An arbitrated feed (FEED_NEW with IBTICK_A_FEED_ARB, no GROUP/PORT of its
 * own): two to four rails, the sequence field, the window.  FEED_GET adds
 * the read-only counters.  ibtick(7), "Arbitrated feeds", has the rules.
 */
#define IBTICK_ARB_RAILS_MIN	2
#define IBTICK_ARB_RAILS_MAX	4
#define IBTICK_ARB_WINDOW_US_DEFAULT 1000	/* when neither window is given */

enum {
	IBTICK_A_ARB_UNSPEC,
	IBTICK_A_ARB_PAD,
	IBTICK_A_ARB_RAIL,		/* nest, one per rail: IBTICK_A_RAIL_* */
	IBTICK_A_ARB_SEQ_OFF,		/* u16: field offset in the payload */
	IBTICK_A_ARB_SEQ_WIDTH,		/* u8: 4 or 8; 0 (default): the
					 * ibtick publisher sequence */
	IBTICK_A_ARB_SEQ_BE,		/* u8: 1 big-endian, 0 little (default) */
	IBTICK_A_ARB_WINDOW_US,		/* u32: a hole's time to be filled */
	IBTICK_A_ARB_WINDOW_TICKS,	/* u32: ... or numbers above it, <= 4096 */
	IBTICK_A_ARB_RESET_AT,		/* u64: the venue's first number (1) */
	/* read-only */
	IBTICK_A_ARB_DELIVERED,		/* u64: numbers written into the ring */
	IBTICK_A_ARB_GAPS,		/* u64: runs every rail missed */
	IBTICK_A_ARB_GAP_NUMBERS,	/* u64: numbers in them */
	IBTICK_A_ARB_RESETS,		/* u64: new sessions */
	IBTICK_A_ARB_HOLES,		/* u64: open now */

	/* add new constants above here */
	__IBTICK_A_ARB_CNT,
	IBTICK_A_ARB_MAX = __IBTICK_A_ARB_CNT - 1
};

/* One rail of an arbitrated feed. */
enum {
	IBTICK_A_RAIL_UNSPEC,
	IBTICK_A_RAIL_PAD,
	IBTICK_A_RAIL_GROUP,		/* be32 */
	IBTICK_A_RAIL_PORT,		/* u16 */
	IBTICK_A_RAIL_IFINDEX,		/* u32, required */
	/* read-only */
	IBTICK_A_RAIL_INDEX,		/* u32: 0 is A, 1 is B, ... */
	IBTICK_A_RAIL_FEED_ID,		/* u32: its own feed, while up */
	IBTICK_A_RAIL_UP,		/* u8 */
	IBTICK_A_RAIL_NETDEV_NAME,	/* string, when the netdev exists */
	IBTICK_A_RAIL_RX,		/* u64: ticks the rail received */
	IBTICK_A_RAIL_WON,		/* u64: first copies delivered */
	IBTICK_A_RAIL_DUP,		/* u64: second copies dropped */
	IBTICK_A_RAIL_ONLY,		/* u64: numbers no other rail had */
	IBTICK_A_RAIL_LATE,		/* u64: after the number was a gap */
	IBTICK_A_RAIL_STALE,		/* u64: of an older session */
	IBTICK_A_RAIL_SHORT,		/* u64: payload shorter than the field */
	IBTICK_A_RAIL_RESETS,		/* u64: the rail restarted its sequence */
	IBTICK_A_RAIL_LAG_N,		/* u64: duplicates timed */
	IBTICK_A_RAIL_LAG_MEAN_NS,	/* u64: behind the first copy */
	IBTICK_A_RAIL_LAG_P50_NS,	/* u64: power-of-two bucket bound */
	IBTICK_A_RAIL_LAG_P99_NS,	/* u64: power-of-two bucket bound */
	IBTICK_A_RAIL_LAG_MAX_NS,	/* u64 */
	IBTICK_A_RAIL_DOWNS,		/* u64: times it went down */
	IBTICK_A_RAIL_DOWN_NS,		/* u64: time down, in total */
	IBTICK_A_RAIL_BAD_SEQ,		/* u64: an unconfirmed jump, or a number
					 * within 8192 of 2^64: dropped */

	/* add new constants above here */
	__IBTICK_A_RAIL_CNT,
	IBTICK_A_RAIL_MAX = __IBTICK_A_RAIL_CNT - 1
};

/* Feed counters (monotonic, never reset), nested in IBTICK_A_FEED_STATS. */
enum {
	IBTICK_A_FSTAT_UNSPEC,
	IBTICK_A_FSTAT_PAD,
	IBTICK_A_FSTAT_RX_TICKS,	/* u64: written into the ring */
	IBTICK_A_FSTAT_RX_BYTES,
	IBTICK_A_FSTAT_GAPS,		/* publisher sequence gaps */
	IBTICK_A_FSTAT_GAP_TICKS,	/* ticks missing in them */
	IBTICK_A_FSTAT_OLD,
	IBTICK_A_FSTAT_BAD_HDR,
	IBTICK_A_FSTAT_OTHER_PORT,
	IBTICK_A_FSTAT_TRUNCATED,
	IBTICK_A_FSTAT_RQ_EMPTY,	/* the receive queue ran dry */
	IBTICK_A_FSTAT_RX_ERRORS,
	IBTICK_A_FSTAT_LOOPBACK,
	IBTICK_A_FSTAT_TX_TICKS,	/* sent by the feed's publishers */
	IBTICK_A_FSTAT_TX_ERRORS,
	IBTICK_A_FSTAT_REJOINS,
	IBTICK_A_FSTAT_JOIN_ERRORS,
	IBTICK_A_FSTAT_CQ_EVENTS,
	IBTICK_A_FSTAT_CQE_IRQ,
	IBTICK_A_FSTAT_CQE_THREAD,
	IBTICK_A_FSTAT_CQE_CALLER,
	IBTICK_A_FSTAT_POLL_LOOPS,
	IBTICK_A_FSTAT_POLL_EMPTY,
	IBTICK_A_FSTAT_POLL_BUSY_NS,
	IBTICK_A_FSTAT_POLL_YIELDS,
	IBTICK_A_FSTAT_RX_DRAIN_NS,
	IBTICK_A_FSTAT_READERS_LOST,	/* lapped ticks counted by its sockets */
	IBTICK_A_FSTAT_LAPS,		/* times a socket found itself lapped */
	IBTICK_A_FSTAT_ASYNC_ERRORS,	/* fatal QP/CQ events from the device */
	IBTICK_A_FSTAT_RX_WAKE_NS,	/* the part of RX_DRAIN_NS waking readers */

	/* add new constants above here */
	__IBTICK_A_FSTAT_CNT,
	IBTICK_A_FSTAT_MAX = __IBTICK_A_FSTAT_CNT - 1
};

/* ------------------------------------------------------------------------
 * Sockets (IBTICK_CMD_SOCK_GET dump).  Counters are those of struct
 * ibtick_stats (socket part).  A mapped reader advances its cursor in user
 * space: the kernel knows it only when the reader sets IBTICK_RING_CURSOR.
 * CAP_NET_ADMIN sees every socket, anybody else the sockets of their own
 * uid only.  PIDs are those of the requester's PID namespace (0: not
 * visible there), UIDs mapped into its netlink socket's user namespace.
 * ----------------------------------------------------------------------
 */
#define IBTICK_SOCK_SUBSCRIBED	(1U << 0)	/* bind() */
#define IBTICK_SOCK_PUBLISHER	(1U << 1)	/* connect() / sendto() */
#define IBTICK_SOCK_MAPPED	(1U << 2)	/* has a live mmap of the ring */

enum {
	IBTICK_A_SOCK_UNSPEC,
	IBTICK_A_SOCK_PAD,
	IBTICK_A_SOCK_ID,		/* u64: unique while the module lives */
	IBTICK_A_SOCK_INODE,		/* u64: as ss(8) and /proc/PID/fd show */
	IBTICK_A_SOCK_PID,		/* u32: creator's thread group, in the
					 * requester's PID namespace
					 * (request: filter) */
	IBTICK_A_SOCK_UID,		/* u32 */
	IBTICK_A_SOCK_FEED_ID,		/* u32 (request: filter) */
	IBTICK_A_SOCK_FEED_NAME,	/* string */
	IBTICK_A_SOCK_FLAGS,		/* u32: IBTICK_SOCK_* */
	IBTICK_A_SOCK_MAPPINGS,		/* u32 */
	IBTICK_A_SOCK_CURSOR,		/* u64: subscribed only */
	IBTICK_A_SOCK_LAG,		/* u64: producer - cursor */
	IBTICK_A_SOCK_RX_TICKS,		/* u64 */
	IBTICK_A_SOCK_RX_BYTES,
	IBTICK_A_SOCK_RX_LOST,		/* lapped */
	IBTICK_A_SOCK_RX_TRUNCATED,
	IBTICK_A_SOCK_RX_SKIPPED_LOCAL,
	IBTICK_A_SOCK_TX_TICKS,
	IBTICK_A_SOCK_TX_BYTES,
	IBTICK_A_SOCK_TX_EAGAIN,
	IBTICK_A_SOCK_TX_ERRORS,
	IBTICK_A_SOCK_LOOPBACK,		/* u8 */
	IBTICK_A_SOCK_LAPS,		/* u64: times it found itself lapped */
	IBTICK_A_SOCK_FEEDS,		/* u32: feeds it reads (bind()'s and
					 * IBTICK_ADD_FEED's) */

	/* add new constants above here */
	__IBTICK_A_SOCK_CNT,
	IBTICK_A_SOCK_MAX = __IBTICK_A_SOCK_CNT - 1
};

/* ------------------------------------------------------------------------
 * Connections (IBTICK_CMD_CONN_GET dump): every SOCK_SEQPACKET socket,
 * listeners and the connections they have not handed to accept() yet
 * included.  Counters are those of struct ibtick_conn_info.  Who sees
 * what, as for sockets: an administrator every connection, anybody else
 * their own uid's.
 * ----------------------------------------------------------------------
 */
enum {
	IBTICK_A_CONN_UNSPEC,
	IBTICK_A_CONN_PAD,
	IBTICK_A_CONN_ID,		/* u64: unique while the module lives */
	IBTICK_A_CONN_INODE,		/* u64: 0 until accept() */
	IBTICK_A_CONN_PID,		/* u32 (request: filter): the creator's
					 * thread group (the listener's for an
					 * accepted connection)
					 */
	IBTICK_A_CONN_UID,		/* u32 */
	IBTICK_A_CONN_STATE,		/* u32: IBTICK_CONN_* (<linux/ibtick.h>) */
	IBTICK_A_CONN_ERROR,		/* u32: the failure's errno, 0 */
	IBTICK_A_CONN_LOCAL_ADDR,	/* u32: IPv4, network byte order */
	IBTICK_A_CONN_LOCAL_PORT,	/* u16 */
	IBTICK_A_CONN_PEER_ADDR,	/* u32: IPv4, network byte order */
	IBTICK_A_CONN_PEER_PORT,	/* u16 */
	IBTICK_A_CONN_DEV_NAME,		/* string: the RDMA device */
	IBTICK_A_CONN_QPN,		/* u32 */
	IBTICK_A_CONN_PEER_QPN,		/* u32 */
	IBTICK_A_CONN_BACKLOG,		/* u32: listener */
	IBTICK_A_CONN_PENDING_ACCEPT,	/* u32: listener: not accepted yet */
	IBTICK_A_CONN_NSLOTS,		/* u32 */
	IBTICK_A_CONN_MSG_MAX,		/* u32: what send() takes */
	IBTICK_A_CONN_LOCAL_MSG_MAX,	/* u32 */
	IBTICK_A_CONN_CREDITS,		/* u32 */
	IBTICK_A_CONN_PEER_CREDITS,	/* u32 */
	IBTICK_A_CONN_PENDING_GRANTS,	/* u32 */
	IBTICK_A_CONN_INLINE_MAX,	/* u32 */
	IBTICK_A_CONN_TX_MSGS,		/* u64 */
	IBTICK_A_CONN_TX_BYTES,
	IBTICK_A_CONN_RX_MSGS,
	IBTICK_A_CONN_RX_BYTES,
	IBTICK_A_CONN_RX_READ,
	IBTICK_A_CONN_TX_CREDIT_WAITS,
	IBTICK_A_CONN_CTL_TX,
	IBTICK_A_CONN_CTL_RX,
	IBTICK_A_CONN_TX_UNACKED,
	IBTICK_A_CONN_CQ_ERRORS,
	IBTICK_A_CONN_REFUSED_USER_MAX,	/* u64: listener: requests refused,
					 * its user at max_user_conns
					 */
	IBTICK_A_CONN_CQ_EVENTS,	/* u64: as struct ibtick_conn_info */
	IBTICK_A_CONN_CQE_IRQ,
	IBTICK_A_CONN_CQE_CALLER,
	IBTICK_A_CONN_IRQ_POLLS,

	/* add new attributes above here */
	__IBTICK_A_CONN_CNT,
	IBTICK_A_CONN_MAX = __IBTICK_A_CONN_CNT - 1
};

/* ------------------------------------------------------------------------
 * Listener rules (CONN_RULE_NEW, CONN_RULE_DEL, CONN_RULE_GET): who may
 * listen() on a connection port.  A rule covers the ports PORT_LO..PORT_HI
 * and has an owner, a group and a mode as a file has, whose w bits are the
 * only ones that mean something: w lets its class (owner, group, others;
 * the first that matches decides) listen on those ports.  Rules never
 * overlap: CONN_RULE_NEW of a range that shares a port with a rule is
 * EEXIST, the extended ACK naming that rule; at most 256 rules (ENOSPC).
 * CONN_RULE_NEW's defaults: PORT_HI = PORT_LO, OWNER and GROUP the
 * caller's, MODE IBTICK_CONN_RULE_MODE_DEFAULT (the owner only).
 * CONN_RULE_DEL takes PORT_LO and PORT_HI of the rule exactly (ENOENT).
 * What listen() does with them: <linux/ibtick.h>, "Connections".
 * ----------------------------------------------------------------------
 */
#define IBTICK_CONN_RULE_MODE_MASK	0222
#define IBTICK_CONN_RULE_MODE_DEFAULT	0200

enum {
	IBTICK_A_RULE_UNSPEC,
	IBTICK_A_RULE_PAD,
	IBTICK_A_RULE_PORT_LO,		/* u16: 1..65535 */
	IBTICK_A_RULE_PORT_HI,		/* u16: PORT_LO..65535 */
	IBTICK_A_RULE_OWNER,		/* u32: uid (the caller's user namespace) */
	IBTICK_A_RULE_GROUP,		/* u32: gid */
	IBTICK_A_RULE_MODE,		/* u16: IBTICK_CONN_RULE_MODE_MASK bits */

	/* add new constants above here */
	__IBTICK_A_RULE_CNT,
	IBTICK_A_RULE_MAX = __IBTICK_A_RULE_CNT - 1
};

/* ------------------------------------------------------------------------
 * Events, multicast as IBTICK_CMD_EVENT: device, port and feed events on
 * the IBTICK_MCGRP_EVENTS group, open to every user; socket events (they
 * name a socket and its process: IBTICK_EV_READER_LAPPED) on the
 * IBTICK_MCGRP_SOCK_EVENTS group, which only CAP_NET_ADMIN may join.
 * Connection events (IBTICK_EV_CONN_*) go on IBTICK_MCGRP_SOCK_EVENTS too:
 * they name a process and both ends' addresses, which IBTICK_CMD_CONN_GET
 * shows a user only for their own uid's connections, and a multicast
 * group cannot filter per listener; an administrator sees them all.
 * Reader-lapped, sequence-gap and RQ-empty events are rate limited (at most
 * ten a second per feed or socket); each carries the running total, so a
 * listener that saw any of them knows the whole count.
 * ----------------------------------------------------------------------
 */
#define IBTICK_MCGRP_EVENTS	"events"
#define IBTICK_MCGRP_SOCK_EVENTS "sock-events"

enum ibtick_event {
	IBTICK_EV_UNSPEC,
	IBTICK_EV_DEV_ADDED,
	IBTICK_EV_DEV_REMOVED,
	IBTICK_EV_PORT_UP,		/* PORT_ACTIVE */
	IBTICK_EV_PORT_DOWN,		/* PORT_ERR */
	IBTICK_EV_JOIN_DONE,		/* a feed joined (or rejoined) its group */
	IBTICK_EV_JOIN_FAILED,		/* ERRNO: why */
	IBTICK_EV_FEED_CREATED,
	IBTICK_EV_FEED_DESTROYED,	/* torn down: deleted, last socket, device */
	IBTICK_EV_FEED_CHANGED,		/* FEED_SET */
	IBTICK_EV_READER_LAPPED,	/* COUNT: ticks just lost; TOTAL: the socket's */
	IBTICK_EV_SEQ_GAP,		/* COUNT: ticks missing; TOTAL: the feed's */
	IBTICK_EV_RQ_EMPTY,		/* TOTAL: the feed's rq_empty count */
	IBTICK_EV_FEED_ERROR,		/* the device reported a fatal error on
					 * the feed's QP or CQ (IB_EVENT: which;
					 * ERRNO: EIO); the feed is torn down
					 * and its readers see it dead */
	IBTICK_EV_RAIL_DOWN,		/* RAIL: which; the feed goes on */
	IBTICK_EV_RAIL_UP,		/* RAIL: which; receiving again */
	IBTICK_EV_ARB_GAP,		/* COUNT: numbers every rail missed;
					 * TOTAL: the feed's */
	IBTICK_EV_SEQ_RESET,		/* RAIL: whose number restarted it;
					 * TOTAL: the feed's resets */
	IBTICK_EV_CONN_FAILED,		/* a connection or a listener failed
					 * (IBTICK_CONN_FAILED): peer gone,
					 * retries exhausted, port down, device
					 * removed, send watchdog; ERRNO: the
					 * cause, as SO_ERROR says it; UNACKED.
					 * One per connection, none once its
					 * owner has begun to close it */
	IBTICK_EV_CONN_PEER_CLOSED,	/* the peer ended the connection in
					 * order (IBTICK_CONN_PEER_CLOSED) */
};

enum {
	IBTICK_A_EV_UNSPEC,
	IBTICK_A_EV_PAD,
	IBTICK_A_EV_TYPE,		/* u8: enum ibtick_event */
	IBTICK_A_EV_TIME_NS,		/* u64: CLOCK_REALTIME */
	IBTICK_A_EV_DEV_INDEX,		/* u32 */
	IBTICK_A_EV_DEV_NAME,		/* string */
	IBTICK_A_EV_PORT,		/* u32: device port */
	IBTICK_A_EV_FEED_ID,		/* u32 */
	IBTICK_A_EV_FEED_NAME,		/* string */
	IBTICK_A_EV_SOCK_ID,		/* u64 */
	IBTICK_A_EV_PID,		/* u32 */
	IBTICK_A_EV_ERRNO,		/* s32: positive errno */
	IBTICK_A_EV_COUNT,		/* u64 */
	IBTICK_A_EV_TOTAL,		/* u64 */
	IBTICK_A_EV_IB_EVENT,		/* u32: enum ib_event_type of ib_verbs.h */
	IBTICK_A_EV_RAIL,		/* u32: rail index (0 is A) */
	IBTICK_A_EV_CONN_ID,		/* u64: as IBTICK_A_CONN_ID */
	IBTICK_A_EV_LOCAL_ADDR,		/* u32: IPv4, network byte order */
	IBTICK_A_EV_LOCAL_PORT,		/* u16 */
	IBTICK_A_EV_PEER_ADDR,		/* u32: IPv4, network byte order */
	IBTICK_A_EV_PEER_PORT,		/* u16 */
	IBTICK_A_EV_UNACKED,		/* u64: messages sent that the peer
					 * never acknowledged (tx_unacked) */

	/* add new constants above here */
	__IBTICK_A_EV_CNT,
	IBTICK_A_EV_MAX = __IBTICK_A_EV_CNT - 1
};

/* Values follow the InfiniBand PortInfo encodings. */
enum ibtick_port_state {
	IBTICK_PORT_NOP,
	IBTICK_PORT_DOWN,
	IBTICK_PORT_INIT,
	IBTICK_PORT_ARMED,
	IBTICK_PORT_ACTIVE,
	IBTICK_PORT_ACTIVE_DEFER,
};

enum ibtick_port_phys_state {
	IBTICK_PHYS_NOP,
	IBTICK_PHYS_SLEEP,
	IBTICK_PHYS_POLLING,
	IBTICK_PHYS_DISABLED,
	IBTICK_PHYS_TRAINING,
	IBTICK_PHYS_LINK_UP,
	IBTICK_PHYS_ERROR_RECOVERY,
	IBTICK_PHYS_TEST,
};

enum ibtick_link_layer {
	IBTICK_LINK_LAYER_UNSPEC,
	IBTICK_LINK_LAYER_INFINIBAND,
	IBTICK_LINK_LAYER_ETHERNET,
};

enum ibtick_node_type {
	IBTICK_NODE_UNSPEC,
	IBTICK_NODE_CA,
	IBTICK_NODE_SWITCH,
	IBTICK_NODE_ROUTER,
	IBTICK_NODE_RNIC,
	IBTICK_NODE_USNIC,
	IBTICK_NODE_USNIC_UDP,
	IBTICK_NODE_UNSPECIFIED,
};

#endif /* _UAPI_LINUX_IBTICK_NETLINK_H */
