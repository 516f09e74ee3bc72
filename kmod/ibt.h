/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibtick internal interfaces, grouped by the file that implements them.
 *
 * Lock order (outermost first; the genetlink family is parallel_ops, so
 * genl_mutex is not held around its commands):
 *   ibt_sock.lock (bind/connect/sendmsg/sockopts; recvmsg drops it to sleep)
 *     ibt_feeds_lock (feed creation and teardown, rejoin work, removal)
 *       ibt_devs_lock
 *         ib_core internals (ib_query_port, GID table locks, and rtnl via
 *         rdma_cm's IGMP joins and rxe's port queries)
 *       ibt_feed.tx_lock (sendmsg, the drain before teardown)
 *         ibt_feed.new_ah_lock (spinlock: a rejoin's attributes)
 *       ibt_feed.poll_lock (poll mode changes, the busy-poll thread's life)
 * ibt_arb_feed.lock (spinlock, BH off; arb_feed.c) is taken by a rail's CQ
 * owner and the window timer, and under ibt_feeds_lock by the watch work
 * and a feed's end; nothing is taken under it but the feed's wait queue
 * lock (wake-ups) and the event path.
 * ibt_feed.acl_lock (spinlock, a leaf) guards a feed's ACL and generation.
 * ibt_feed.wq's lock is taken before the socket's wait queue lock: a
 * multi-feed socket's entry on each feed's queue wakes the socket's
 * (member.c), from any context.
 * ibt_socks_lock (nl_sock.c: the socket list) is taken alone, never with
 * another ibtick lock; a dump holding it reads the listed sockets without
 * their locks (counters are single words, read with READ_ONCE).
 * Events (nl_event.c) take no ibtick lock and may be sent under any.
 * The receive CQ has no lock but an owner: the IBT_POLL_OWNED bit of
 * ibt_feed.poll_state (see poll.c), which whoever drains the CQ holds.
 * The mmap'd ring takes no lock: mappings hold the socket's file, so the
 * socket (and through it the feed and its ring) outlives them (mmap.c).
 * ib_core calls the ib_client add/remove callbacks with its own client locks
 * held; they take ibt_devs_lock, and removal takes ibt_feeds_lock through
 * the IBT_DEV_REMOVING notification (never with ibt_devs_lock held).  The
 * port event handler runs under the device's event_handler_rwsem (read)
 * and neither it nor its IBT_DEV_PORT_EVENT listeners take an ibtick lock,
 * so ib_unregister_event_handler() may be called with none held.
 * The rdma_cm handler (join.c) takes no ibtick lock either: teardown waits
 * for it in rdma_destroy_id() under ibt_feeds_lock.
 */
#ifndef _IBTICK_IBT_H
#define _IBTICK_IBT_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_poll.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sockptr.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <linux/ibtick_netlink.h>
#include <ibtick_counters.h>

#include "acl.h"
#include "addr.h"
#include "arbiter.h"
#include "pubtrack.h"
#include "ring.h"

#define IBT_DRV_NAME	"ibtick"

/* Port event counters, indices into ibt_port.evcnt[], in IBTICK_A_EVCNT_* order. */
enum ibt_evcnt {
	IBT_EV_PORT_ACTIVE,
	IBT_EV_PORT_ERR,
	IBT_EV_LID_CHANGE,
	IBT_EV_PKEY_CHANGE,
	IBT_EV_SM_CHANGE,
	IBT_EV_CLIENT_REREG,
	IBT_EV_GID_CHANGE,
	IBT_EV_CNT
};

struct ibt_port {
	u32		num;			/* 1-based, as ib_core numbers */
	bool		active;			/* PORT_ACTIVE seen last; READ_ONCE */
	atomic64_t	evcnt[IBT_EV_CNT];	/* monotonic, lock-free */
};

/*
 * One per RDMA device that has at least one IB or RoCE port.
 *
 * Lifetime: created by the ib_client add callback, put on ibt_devs and
 * referenced by the list.  The remove callback marks it removing, has the
 * feeds on it torn down (IBT_DEV_REMOVING), unlinks it, stops its event
 * handler and drops the list reference.  @ibdev may be dereferenced while
 * the entry is on the list (under ibt_devs_lock) or by a feed of the
 * device while the feed is live (teardown precedes the unlink).
 */
struct ibt_dev {
	struct list_head	list;	/* ibt_devs; ibt_devs_lock */
	struct ib_device	*ibdev;
	struct ib_event_handler	ev_handler;
	struct kref		ref;
	bool			removing; /* ibt_devs_lock: no new feeds */
	/*
	 * multicast rejoin after PORT_ACTIVE / CLIENT_REREGISTER / a lost
	 * group: join.c's, set up on IBT_DEV_ADDED, stopped on IBT_DEV_REMOVED
	 */
	struct delayed_work	rejoin_work;
	unsigned long		rejoin_ports;	/* bit i: ports[i]; atomic bitops */
	/* seconds, capped; written by the work and by the cm handler */
	atomic_t		rejoin_backoff;
	u32			index;	/* ibdev->index, cached for the cursor */
	/*
	 * The device's name, copied at add and by the rename callback:
	 * dev_name() may be freed by a concurrent "rdma dev set name".
	 * Read it with ibt_dev_name().
	 */
	spinlock_t		name_lock;
	char			name[IB_DEVICE_NAME_MAX];
	u32			nports;
	struct ibt_port		ports[];	/* ports[i].num = start port + i */
};

#define IBT_RQ_SIZE		1024
#define IBT_SQ_SIZE		256
#define IBT_TX_DRAIN_MS		1000
#define IBT_RX_BATCH		16	/* receive completions per poll */
/* a busy-polling multi-feed socket drains the CQs of up to this many feeds */
#define IBT_MULTI_POLL_MAX	4
#define IBT_RX_WEIGHT		(IBT_RX_BATCH * 4) /* per softirq poll or CQ event */
#define IBT_TX_REAP_BATCH	16	/* send completions per poll */
#define IBT_JOIN_TIMEOUT_MS	10000
#define IBT_REJOIN_MAX_S	16	/* backoff cap, as IPoIB */

/*
 * A feed's big allocations (ring, receive and send buffers) are charged to
 * the memory cgroup of the process that creates the feed; over its limit
 * they fail (bind gets ENOMEM) instead of invoking the OOM killer.
 */
#define IBT_GFP_CHARGED	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* Who pays a feed's pinned memory (RLIMIT_MEMLOCK), and how much. */
enum ibt_ml {
	IBT_ML_CREATE,		/* the ring and the send buffers: the creator */
	IBT_ML_RECEIVE,		/* the receive buffers: the first reader */
	IBT_ML_N
};

struct ibt_memlock {
	struct user_struct	*user;	/* NULL: none taken (or CAP_IPC_LOCK) */
	unsigned long		pages;
	bool			charged;
};

/*
 * The receive GRH array in page-sized chunks, each DMA-mapped on its own:
 * rq_size slots of 40 bytes would otherwise be one order-4 allocation.
 * Slot i is chunk i / IBT_GRH_PER_CHUNK, entry i % IBT_GRH_PER_CHUNK.
 */
#define IBT_GRH_PER_CHUNK	((u32)(PAGE_SIZE / sizeof(struct ib_grh)))
struct ibt_grh_chunk {
	struct ib_grh	*grh;
	dma_addr_t	dma;
};

/* A DMA-mapped buffer, mapped once when its feed is created. */
struct ibt_buf {
	void	*va;
	u64	dma;
	u64	seq;	/* receive: ibt_feed.rx_seq when it was last posted */
};

/*
 * Feed counters, declared from the list in ibtick_counters.h (which says
 * who writes each): u64 where one context writes at a time, atomic64_t
 * where several do.  Read them with IBT_FSTAT_READ().
 */
#define IBT_FSTAT_TYPE_u	u64
#define IBT_FSTAT_TYPE_a	atomic64_t
#define IBT_FSTAT_READ_u(p)	READ_ONCE(*(p))
#define IBT_FSTAT_READ_a(p)	atomic64_read(p)
#define IBT_FSTAT_READ(kind, p)	IBT_FSTAT_READ_##kind(p)

struct ibt_feed_stats {
#define IBT_FSTAT_MEMBER(name, attr, key, kind, so) IBT_FSTAT_TYPE_##kind name;
	IBTICK_FEED_COUNTERS(IBT_FSTAT_MEMBER)
#undef IBT_FSTAT_MEMBER
};

/* ibt_feed.poll_state bits */
enum {
	IBT_POLL_OWNED,		/* somebody drains the receive CQ */
	IBT_POLL_MISSED,	/* a CQ event found it owned: re-check at release */
	IBT_POLL_SEIZED,	/* teardown owns it for good */
	IBT_POLL_ARMED,		/* CQ event armed or on its way (poll.c) */
};

/*
 * A feed: one (group, feed port, device port), its UD QP, its ring, shared
 * by every local socket bound or connected to it.
 *
 * Lifetime (feed.c): created by the first bind/connect, or FEED_NEW, under
 * ibt_feeds_lock and put on ibt_feeds; each socket holds a reference.  The
 * verbs resources (feed_ib.c) live exactly while @live: FEED_DEL, device
 * removal or the last put tear them down once, under ibt_feeds_lock, with
 * the receive poll stopped first.  The ring memory and the wait queue
 * outlive them until the last reference goes, so sockets can still read
 * what was received and learn that the feed is dead.
 */
struct ibt_feed {
	struct list_head	list;	/* ibt_feeds; ibt_feeds_lock */
	struct kref		ref;
	/* identity and control: ibt_feeds_lock (constant once listed) */
	u32			id;
	bool			admin;	/* FEED_NEW: holds a reference; READ_ONCE */
	bool			by_admin; /* made by FEED_NEW (constant) */
	kuid_t			creator;	/* fsuid of its creator (constant) */
	bool			announced; /* FEED_CREATED sent; READ_ONCE */
	char			name[IBTICK_FEED_NAME_MAX];
	char			dev_name[IB_DEVICE_NAME_MAX];	/* at creation */
	spinlock_t		acl_lock;	/* acl, acl_gen (bind, send) */
	struct ibt_acl		acl;	/* admin feeds */
	u32			acl_gen;	/* bumped by FEED_SET; READ_ONCE */
	u8			loopback_policy; /* IBTICK_FEED_LOOPBACK_*; READ_ONCE */
	atomic_t		publishers;
	atomic_t		nsocks;		/* sockets holding the feed */
	/* event rate limits (jiffies): the receive CQ's owner */
	unsigned long		ev_gap_at;
	unsigned long		ev_rqe_at;
	/* the key, constant */
	__be32			group;
	u16			port;
	int			ifindex;
	struct ibt_dev		*dev;	/* referenced */
	u32			port_num;
	struct ibt_port		*dport;	/* in dev->ports[] */
	/* verbs (feed_ib.c), valid while live; ibt_feeds_lock */
	bool			live;	/* READ_ONCE outside ibt_feeds_lock */
	bool			listed;
	/*
	 * Listed and live while its creator builds the verbs side without
	 * ibt_feeds_lock (the join is a fabric round trip): lookups wait on
	 * @created, dumps, FEED_DEL and the rejoin work pass it by.
	 */
	bool			creating;	/* ibt_feeds_lock */
	/* a fatal QP/CQ event came: the device work ends the feed */
	bool			broken;		/* READ_ONCE */
	struct completion	created;
	int			create_err;
	struct rdma_cm_id	*cm_id;
	struct ib_pd		*pd;
	struct ib_cq		*rcq;
	struct ib_cq		*scq;
	struct ib_qp		*qp;
	struct ib_ah		*ah;
	bool			attached;	/* to the group; tx_lock to change */
	union ib_gid		mgid;
	union ib_gid		sgid;	/* what the feed sends from */
	u16			mlid;
	u32			qkey;
	u32			wire_max;	/* largest datagram: port or group MTU */
	u32			tx_buf_size;	/* the send buffers': port MTU */
	u32			max_inline;
	struct completion	joined;
	bool			join_pending;	/* until the cm handler reports */
	int			join_err;
	/*
	 * Membership (join.c): send-only until the first reader, then full.
	 * member_lock serialises the upgrade with the rejoin work and the
	 * teardown; it is taken after ibt_feeds_lock, never before it.
	 */
	struct mutex		member_lock;
	u8			member;	/* IBTICK_FEED_MEMBER_*; READ_ONCE */
	bool			receiving; /* attached, buffers posted; member_lock */
	bool			upgrading; /* the join in flight is the upgrade */
	int			upgrade_err;
	struct rdma_ah_attr	ah_attr;	/* from the join; ref held */
	bool			have_ah_attr;
	/* a rejoin's new attributes, for the rejoin work; new_ah_lock */
	spinlock_t		new_ah_lock;
	struct rdma_ah_attr	new_ah_attr;
	bool			have_new_ah_attr;
	/* receive: the CQ's owner only (poll.c) */
	unsigned long		poll_state;	/* IBT_POLL_* bits */
	struct irq_poll		iop;
	/*
	 * A busy caller left the CQ disarmed: re-arm when it stays idle.
	 * rearm_at: local_clock() ns until which the last such caller keeps
	 * it off; the timer, started once, follows it (poll.c).
	 */
	struct hrtimer		rearm_timer;
	u64			rearm_at;
	/* IBTICK_A_FEED_PREFER_DEFER; set under ibt_feeds_lock, read lockless */
	u32			prefer_defer_us;
	u32			rq_size;
	u32			rx_buf_size;	/* a payload buffer: port MTU */
	/*
	 * The 40 bytes in front of every datagram (GRH, or RoCEv2's IP
	 * header) land in their own array, so that a payload buffer is the
	 * MTU's size (kmalloc-4k for 4096, not kmalloc-8k): two SGEs.
	 */
	struct ibt_grh_chunk	*rx_grh;	/* rq_size slots, in pages */
	u32			rx_grh_chunks;
	struct ibt_buf		*rx;
	u64			rx_seq;		/* receive buffers posted, ever */
	struct ib_wc		rx_wc[IBT_RX_BATCH];	/* poll scratch */
	struct ib_recv_wr	rx_wr[IBT_RX_BATCH];
	struct ib_sge		rx_sge[IBT_RX_BATCH][2];
	/*
	 * Read by every reader at every recvmsg and poll, written once at
	 * creation: a cache line of its own, apart from the producer's
	 * scratch above and its counters below (checked with pahole).
	 */
	struct ibt_ring		ring ____cacheline_aligned_in_smp;
	void			*ring_mem;	/* vmalloc, memcg-charged */
	/*
	 * RLIMIT_MEMLOCK charges (feed.c): the creator's for the ring and
	 * the send buffers, whoever started the receive side's for the
	 * receive buffers; each taken once, returned at the last put.
	 */
	struct ibt_memlock	memlock[IBT_ML_N] ____cacheline_aligned_in_smp;
	struct ibt_pubtrack	pubs;
	struct ibt_feed_stats	st;
	wait_queue_head_t	wq;	/* readers, publishers waiting for room */
	atomic_t		loopback_readers;
	atomic_t		readers;	/* subscribed sockets */
	u32			comp_vector;	/* of the receive CQ, constant */
	/* poll mode: poll_lock */
	struct mutex		poll_lock;
	u32			poll_mode;	/* IBTICK_POLL_*; READ_ONCE */
	s32			poll_cpu;	/* -1: not pinned */
	struct task_struct	*poll_thread;
	wait_queue_head_t	poll_wq;	/* the thread, waiting for readers */
	/* send: tx_lock */
	struct mutex		tx_lock;
	u32			sq_size;
	struct ibt_buf		*tx;
	u64			tx_head;	/* sends posted */
	u64			tx_tail;	/* sends known complete */
	struct list_head	old_ahs;	/* rejoin: AHs sends may use (join.c) */
	/*
	 * Who sent each tick (IBTICK_CMSG_SOURCE): nslots entries beside the
	 * ring, allocated when a socket first asks (member.c) and freed with
	 * the ring; written by the producer between ibt_ring_begin() and
	 * ibt_ring_commit(), so the ring's protocol covers them too.
	 */
	struct ibt_src		*src;		/* set once, release/acquire */
	atomic_t		src_readers;	/* sockets that want sources */
	/*
	 * An arbitrated feed (arb_feed.c) has no device and no verbs of its
	 * own: @arb, and rails, feeds of their own whose receive path writes
	 * this feed's ring.  A rail has @rail_of (constant; the arbitrated
	 * feed holds the rail, never the reverse).
	 */
	struct ibt_arb_feed	*arb;
	struct ibt_feed		*rail_of;
	u32			rail_idx;
};

/* One rail of an arbitrated feed. */
struct ibt_rail {
	struct ibt_addr		addr;	/* group, port, ifindex: constant */
	/* its feed, referenced; NULL while down and not rebuilt: ibt_feeds_lock */
	struct ibt_feed		*feed;
	bool			up;	/* ibt_feeds_lock; READ_ONCE */
	u64			rx;	/* ticks received: the arbiter's lock */
	u64			downs;	/* ibt_feeds_lock */
	u64			down_ns;	/* in total, before down_since */
	u64			down_since;	/* ktime_get_ns() while down */
};

/*
 * An arbitrated feed's arbitration (arb_feed.c).  @lock serialises the
 * rails' receive paths (each drains its own CQ, maybe at once on two
 * CPUs) and the window timer: it is the ring's one producer.  The rails
 * themselves change under ibt_feeds_lock, by creation, the watch work and
 * the feed's end.
 */
struct ibt_arb_feed {
	struct ibt_feed		*feed;	/* the arbitrated feed (not held) */
	spinlock_t		lock;	/* _bh: softirq, thread, timer */
	struct ibt_arb		arb;
	bool			stopped;	/* lock: no tick after this */
	struct hrtimer		timer;	/* the oldest open hole's window */
	bool			timer_armed;	/* lock */
	unsigned long		ev_gap_at;	/* rate limits; lock */
	unsigned long		ev_reset_at;
	struct delayed_work	watch;	/* rails going down, coming back */
	bool			dying;	/* ibt_feeds_lock: no watch after */
	u32			nrails;
	struct ibt_rail		rail[IBT_ARB_RAILS_MAX];
	/* rebuilding a rail: the next try, the backoff (the watch work) */
	unsigned long		retry_at[IBT_ARB_RAILS_MAX];
	unsigned long		retry_wait[IBT_ARB_RAILS_MAX];
};

/*
 * One tick's sender, kept in the source table at index & (size - 1) (rx.c
 * writes, sock.c reads).  The table may be smaller than the ring, so an
 * entry has its own sequence: @idx is 0 while it is written, else the
 * tick's index + 1; a reader's copy is good if @idx read the same, its
 * tick's, before and after it.
 */
struct ibt_src {
	u64	idx;
	u8	gid[16];
	u32	qpn;
	u32	flags;		/* IBTICK_SOURCE_* */
};

/*
 * One feed a socket reads (member.c).  bind()'s is embedded in the socket
 * (ibt_sock.sub); IBTICK_ADD_FEED's are allocated, listed in
 * ibt_sock.more and freed after an RCU grace period, because poll() and
 * the sleeping recvmsg() look at them without the socket lock.
 */
struct ibt_member {
	struct ibt_feed		*feed;	/* referenced; constant */
	struct ibt_sock		*is;
	struct ibt_addr		addr;	/* ifindex resolved; constant */
	u64			cursor;	/* socket lock; READ_ONCE outside */
	u64			lost;	/* lapped, in total */
	u64			lost_pending;	/* for IBTICK_CMSG_LOST */
	u32			sub_acl_gen;	/* the ACL generation reading was allowed by */
	bool			revoked;	/* EACCES told; skipped until allowed */
	bool			forwarding;	/* @wqe is on the feed's wait queue */
	unsigned long		ev_lap_at;	/* lapped event rate limit */
	atomic_t		mappings;	/* live mmaps of its ring */
	/* on the feed's wait queue: a multi-feed socket's sleepers wake */
	struct wait_queue_entry	wqe;
	/* added members: the array's reference and one per mapping */
	refcount_t		ref;
	struct rcu_work		free_work;
};

/*
 * The feeds IBTICK_ADD_FEED added: never changed in place; an add or a
 * drop publishes a new array and frees the old after a grace period.
 */
struct ibt_members {
	struct rcu_head		rcu;
	u32			n;
	struct ibt_member	*m[];
};

/* Sources kept per feed (IBTICK_CMSG_SOURCE): the last this many ticks. */
#define IBT_SRC_SLOTS	4096

/*
 * An AF_IBTICK socket.  ibt_sock.lock serialises bind/connect/sockopts and
 * the cursor and counters of recvmsg/sendmsg; @feed is set once (release
 * store, for poll and mmap which take no lock) and kept until release.
 * The feeds it reads besides bind()'s (@more) are read under RCU by poll,
 * the sleeping recvmsg and mmap (member.c).
 */
struct ibt_sock {
	struct sock		sk;	/* first */
	struct mutex		lock;
	struct ibt_feed		*feed;	/* referenced; set once */
	struct ibt_addr		addr;
	bool			subscribed;	/* bind() */
	bool			publisher;	/* connect() / sendto() */
	bool			loopback;
	bool			lost_cmsg;
	bool			source_cmsg;
	/*
	 * Somebody may wait on sk_sleep (member.c): @watched, the members'
	 * forwarding and the publishing of @more change under @watch_lock
	 * (inside @lock when both are held; poll and a recvmsg about to
	 * sleep take it alone, never waiting on a send's user copy); outside
	 * it @watched is read with acquire (set last, with release, once
	 * every feed forwards)
	 */
	spinlock_t		watch_lock;
	bool			watched;
	/* recvmsg calls asleep on the queue of the one feed read (sock.c) */
	atomic_t		member_sleepers;
	/* bind()'s subscription to @feed: valid while @subscribed */
	struct ibt_member	sub;
	/*
	 * IBTICK_ADD_FEED's (member.c): RCU; non-NULL once the socket
	 * added a feed, which makes it a multi-feed socket for good
	 */
	struct ibt_members __rcu *more;
	/*
	 * Bumped, with release, by every change of the feeds a multi-feed
	 * socket reads (an add, a drop, bind()) under @watch_lock: a
	 * recvmsg asleep on its one feed's queue looks again (sock.c)
	 */
	u32			members_gen;
	u32			rr;	/* recvmsg's next member: lock */
	u32			nslots;		/* geometry for a new feed */
	u32			slot_size;
	u32			comp_vector;	/* for a new feed */
	u32			pub_acl_gen;	/* ACL generation publishing was allowed by */
	atomic_t		mappings;	/* live mmaps of the ring */
	/* the socket list (nl_sock.c): ibt_socks_lock; constant after create */
	struct list_head	node;
	u64			id;
	struct pid		*tgid;		/* creator's thread group; referenced */
	u64			laps;		/* times it found itself lapped */
	u32			pub_id;
	u64			pub_seq;
	void			*tx_stage;	/* publisher: a payload, wire_max */
	struct ibtick_stats	st;	/* socket part; lock */
};

/*
 * A busy spin that began at jiffy @j0 counts against a receive timeout
 * (feeds' recvmsg, connections' recv) by the jiffies that passed during
 * it.  A run of short spins, each well under a jiffy (each ended by a tick
 * the caller then skips), still counts down, where rounding each spin's
 * own length down to whole jiffies would never end the call; the call may
 * end up to a jiffy early, as wait_event's own timeouts may.
 */
static inline void ibt_timeo_spent(long *timeo, unsigned long j0)
{
	if (*timeo != MAX_SCHEDULE_TIMEOUT)
		*timeo -= min_t(long, *timeo, (long)(jiffies - j0));
}

static inline struct ibt_sock *ibt_sk(struct sock *sk)
{
	return container_of(sk, struct ibt_sock, sk);
}

/* ibdev.c */
extern struct mutex ibt_devs_lock;
extern struct list_head ibt_devs;	/* sorted by index */
extern u32 ibt_devs_gen;		/* bumped on every add/remove/rename */

int ibt_ib_init(void);
void ibt_ib_exit(void);
void ibt_dev_put(struct ibt_dev *d);
void ibt_dev_name(struct ibt_dev *d, char name[IB_DEVICE_NAME_MAX]);
struct ibt_dev *ibt_dev_find_locked(u32 index, const char *name);
int ibt_port_netdev(struct ib_device *ibdev, u32 port, const union ib_gid *gid0,
		    int *ifindex, char *name);

struct ibt_dev *ibt_dev_get_by_netdev(int ifindex, u32 *port);

/*
 * Notifications of ibdev.c (process context, may sleep; data: the
 * struct ibt_dev, or a struct ibt_dev_port_event):
 *   IBT_DEV_ADDED       before the device is listed or sends events
 *   IBT_DEV_PORT_EVENT  a port event (ib_core's event work)
 *   IBT_DEV_REMOVING    being removed: tear down what uses it, now
 *   IBT_DEV_REMOVED     unlisted, no event follows: the last word
 */
enum ibt_dev_notification {
	IBT_DEV_ADDED,
	IBT_DEV_PORT_EVENT,
	IBT_DEV_REMOVING,
	IBT_DEV_REMOVED,
};

struct ibt_dev_port_event {
	struct ibt_dev		*dev;
	u32			port_idx;	/* into dev->ports[] */
	enum ib_event_type	event;
};

int ibt_dev_register_notifier(struct notifier_block *nb);
void ibt_dev_unregister_notifier(struct notifier_block *nb);

/* feed.c */
extern struct mutex ibt_feeds_lock;
extern struct list_head ibt_feeds;	/* sorted by id; ibt_feeds_lock */
extern u32 ibt_feeds_gen;		/* bumped on every change of the list */
struct ibt_feed_params {
	u32	nslots;
	u32	slot_size;
	u32	comp_vector;
	/* admin feeds (FEED_NEW) only */
	const char	*name;
	struct ibt_acl	acl;
	u8	loopback_policy;
	bool	has_prefer_defer;	/* else IBTICK_PREFER_DEFER_DEFAULT */
	u32	prefer_defer_us;
	/* the creator reads: a full member at once (else send-only) */
	bool	receive;
};

struct ibt_feed *ibt_feed_get(const struct ibt_addr *a,
			      const struct ibt_feed_params *p,
			      struct netlink_ext_ack *extack);
struct ibt_feed *ibt_feed_add_admin(const struct ibt_addr *a,
				    const struct ibt_feed_params *p,
				    struct netlink_ext_ack *extack);
struct ibt_feed *ibt_feed_find_locked(u32 id, const char *name);
void ibt_feed_del_locked(struct ibt_feed *f);
int ibt_feeds_init(void);
void ibt_feeds_exit(void);
void ibt_feeds_unregister(void);
int ibt_feed_permission(struct ibt_feed *f, unsigned int want, u32 *gen);
struct ibt_feed *ibt_feed_rail_create(struct ibt_feed *parent, u32 idx,
				      const struct ibt_addr *a,
				      struct netlink_ext_ack *extack);
struct ibt_feed *ibt_feed_arb_new(const struct ibt_feed_params *p,
				  struct netlink_ext_ack *extack);
struct ibt_feed *ibt_feed_arb_created(struct ibt_feed *f, int err);
int ibt_memlock_charge(struct ibt_feed *f, enum ibt_ml who, u64 bytes);
void ibt_feed_put(struct ibt_feed *f);
void ibt_feed_put_locked(struct ibt_feed *f);
void ibt_feed_fail_locked(struct ibt_feed *f);
extern struct workqueue_struct *ibt_wq;	/* main.c */
static inline bool ibt_feed_live(const struct ibt_feed *f)
{
	return READ_ONCE(f->live);
}

/* debugfs.c: test knobs (see there) */
struct ibt_debug {
	u32	slow_join_group;
	u32	slow_join_ms;
};
extern struct ibt_debug ibt_debug;
void ibt_debugfs_init(void);
void ibt_debugfs_exit(void);

/* feed_ib.c: setup by the creator, teardown under ibt_feeds_lock */
int ibt_feed_ib_setup(struct ibt_feed *f, bool receive,
		      struct netlink_ext_ack *extack);
void ibt_feed_ib_teardown(struct ibt_feed *f);
int ibt_feed_ib_receive(struct ibt_feed *f);
void ibt_feed_ib_inject(struct ibt_feed *f, enum ib_event_type what);

/* join.c */
int ibt_join_bind(struct ibt_feed *f, struct netlink_ext_ack *extack);
int ibt_join(struct ibt_feed *f, struct netlink_ext_ack *extack);
int ibt_join_upgrade(struct ibt_feed *f);
void ibt_dev_work_soon(struct ibt_dev *d, unsigned long delay);
void ibt_join_old_ahs_put(struct ibt_feed *f, bool all);
void ibt_join_destroy(struct ibt_feed *f);
void ibt_join_dev_event(unsigned long what, struct ibt_dev *d,
			const struct ibt_dev_port_event *pe);

/* rx.c */
enum ibt_rx_ctx { IBT_RX_IRQ, IBT_RX_THREAD, IBT_RX_CALLER };

/*
 * The ring's producer (a CQ's owner; an arbitrated feed's lock holder):
 * tick @h, its @plen payload bytes at @payload, into @f's next slot as
 * number @seq with @flags (TRUNCATED added when it does not fit the slot)
 * and @gap.  Returns the slot, filled but not yet published, its index
 * in *@idx; ibt_rx_commit() publishes it.
 */
static inline struct ibtick_slot *
ibt_rx_fill(struct ibt_feed *f, u64 *idx, const struct ibtick_wire_hdr *h,
	    const void *payload, u32 plen, u64 seq, u16 flags, u32 gap, u64 now)
{
	struct ibtick_slot *s;
	u32 copy = plen;

	if (copy > f->ring.payload_max) {
		copy = f->ring.payload_max;
		flags |= IBTICK_TICK_TRUNCATED;
		f->st.truncated++;
	}
	*idx = ibt_ring_producer(&f->ring);
	s = ibt_ring_begin(&f->ring, *idx);
	s->pub_seq = seq;
	s->rx_ns = now;
	s->send_ns = be64_to_cpu(h->send_ns);
	s->pub_id = be32_to_cpu(h->pub_id);
	s->len = copy;
	s->flags = flags;
	s->orig_len = plen;
	s->gap = gap;
	memcpy(s + 1, payload, copy);
	return s;
}

static inline void ibt_rx_commit(struct ibt_feed *f, struct ibtick_slot *s,
				 u64 idx, u32 plen)
{
	ibt_ring_commit(&f->ring, s, idx);
	f->st.rx_ticks++;
	f->st.rx_bytes += plen;
}

/* Receive buffer @i's GRH slot and its DMA address. */
static inline struct ib_grh *ibt_rx_grh(const struct ibt_feed *f, u32 i,
					dma_addr_t *dma)
{
	const struct ibt_grh_chunk *c = &f->rx_grh[i / IBT_GRH_PER_CHUNK];
	u32 o = i % IBT_GRH_PER_CHUNK;

	*dma = c->dma + o * sizeof(struct ib_grh);
	return c->grh + o;
}

int ibt_rx_post_all(struct ibt_feed *f);
int ibt_rx_drain(struct ibt_feed *f, int budget, enum ibt_rx_ctx ctx);

/* arb_feed.c: arbitrated feeds */
struct ibt_arb_req {
	struct ibt_arb_cfg	cfg;
	u32			nrails;
	struct ibt_addr		rail[IBT_ARB_RAILS_MAX];
};
struct ibt_feed *ibt_arb_feed_add(const struct ibt_feed_params *p,
				  const struct ibt_arb_req *req,
				  struct netlink_ext_ack *extack);
/* a rail's tick (rx.c), with the drain's real and monotonic times */
void ibt_arb_rx(struct ibt_feed *rail, const struct ibtick_wire_hdr *h,
		const void *payload, u32 plen, u64 now, u64 mono);
void ibt_arb_quiesce_all(void);
void ibt_arb_stop_locked(struct ibt_feed *f);
void ibt_arb_free(struct ibt_feed *f);
void ibt_arb_stats(struct ibt_feed *f, struct ibtick_arb_stats *o);
int ibt_arb_fill(struct sk_buff *skb, struct ibt_feed *f);

/* poll.c */
void ibt_poll_init(struct ibt_feed *f);
int ibt_rx_poll(struct irq_poll *iop, int budget);
void ibt_rx_comp(struct ib_cq *cq, void *ctx);
/*
 * @prefer: the caller's socket has SO_PREFER_BUSY_POLL; @end_ns 0: one
 * look by a caller that comes back (the CQ event stays deferred); @back:
 * a caller that, stopped by the scheduler before @end_ns, yields and
 * calls again (recvmsg's spin), the CQ event deferred meanwhile as well
 */
bool ibt_poll_caller(struct ibt_feed *f, u64 cursor, u64 end_ns, bool prefer,
		     bool back);
int ibt_poll_set_mode(struct ibt_feed *f, u32 mode, s32 cpu);
void ibt_poll_stop(struct ibt_feed *f);
void ibt_poll_seize(struct ibt_feed *f);
void ibt_poll_reader_added(struct ibt_feed *f);
/* may a CQ event of @dev drain its CQ in place (rxe, in softirq)? */
bool ibt_comp_direct_ok(const struct ib_device *dev);

/* member.c: the feeds of a multi-feed socket; the socket lock held */
int ibt_member_add(struct ibt_sock *is, sockptr_t optval, unsigned int optlen);
int ibt_member_drop(struct ibt_sock *is, sockptr_t optval,
		    unsigned int optlen);
int ibt_member_set_cursor(struct ibt_sock *is, sockptr_t optval,
			  unsigned int optlen);
int ibt_member_list(struct ibt_sock *is, char __user *optval,
		    int __user *optlen, int len);
int ibt_member_want_sources(struct ibt_sock *is, bool on);
int ibt_member_sources(struct ibt_feed *f, bool on);
void ibt_member_bind_watched(struct ibt_sock *is);
void ibt_member_watch(struct ibt_sock *is);
void ibt_member_put(struct ibt_member *m);
void ibt_member_release(struct ibt_sock *is);
/* the number of feeds the socket reads (bind()'s included); any context */
u32 ibt_member_count(struct ibt_sock *is);
/* does the socket read @f already (bind()'s or added)?  socket lock held */
bool ibt_member_reads_feed(struct ibt_sock *is, struct ibt_feed *f);
/* under rcu_read_lock(): the member reading feed @id, or NULL */
struct ibt_member *ibt_member_find_rcu(struct ibt_sock *is, u32 id);

/* mmap.c */
int ibt_mmap(struct file *file, struct socket *sock,
	     struct vm_area_struct *vma);
/* the length of a ring's mapping: its size rounded up to pages */
u64 ibt_mmap_size(const struct ibt_ring *r);
/* IBTICK_RING_INFO of a ring mapped at IBTICK_MMAP_RING */
void ibt_ring_info(const struct ibt_ring *r, struct ibtick_ring_info *ri);

/* tx.c */
int ibt_tx_send(struct ibt_feed *f, const void *payload, size_t len,
		u32 pub_id, u64 pub_seq);
bool ibt_tx_writable(struct ibt_feed *f);
void ibt_tx_drain(struct ibt_feed *f, unsigned int ms);
void ibt_tx_comp(struct ib_cq *cq, void *ctx);

/* sock.c */
extern int ibt_family;
int ibt_sock_init(void);
void ibt_sock_exit(void);

struct genl_info;
struct netlink_callback;

/* sockopt.c: SOL_IBTICK options; the socket's lock is taken inside */
int ibt_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int ibt_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);
/* how an option's length is checked before its value is copied */
enum ibt_opt_len {
	IBT_OPT_EXACT,		/* optlen == size */
	IBT_OPT_AT_LEAST,	/* optlen >= size; the first size bytes count */
	IBT_OPT_STRUCT,		/* optlen >= size, the rest zero, <= a page */
};
int ibt_opt_get(void *dst, size_t size, sockptr_t optval,
		unsigned int optlen, enum ibt_opt_len rule);
/* a structure versioned by length: min(len, size) bytes, the length back */
int ibt_put_versioned(char __user *optval, int __user *optlen, int len,
		      const void *val, size_t size, size_t min);

/* netlink.c */
extern struct genl_family ibt_genl_family;
int ibt_nl_init(void);
void ibt_nl_exit(void);
/* a dump's cursor in cb->ctx: objects with an id below @next are done */
struct ibt_nl_dump_ctx {
	u64	next;
};
struct ibt_nl_dump_ctx *ibt_nl_dump_ctx(struct netlink_callback *cb);
void *ibt_nl_dump_begin(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);
int ibt_nl_dump_end(struct sk_buff *skb, void *hdr, int err);
int ibt_nl_dump_done(struct sk_buff *skb, int err);
int ibt_nl_put_counters(struct sk_buff *skb, int type, int first,
			const u64 *v, int n, int pad);
struct sk_buff *ibt_nl_reply_begin(struct genl_info *info, u8 cmd, void **hdr);
int ibt_nl_reply_end(struct genl_info *info, struct sk_buff *msg, void *hdr,
		     int err);

/* nl_event.c: notifications on the event groups; any context */
enum ibt_mcgrp {
	IBT_MCGRP_EVENTS,	/* devices, ports, feeds: every user */
	IBT_MCGRP_SOCK_EVENTS,	/* sockets: CAP_NET_ADMIN */
};
void ibt_ev_dev(u8 type, struct ibt_dev *d, u32 port);
void ibt_ev_feed_error(const struct ibt_feed *f, enum ib_event_type what);
void ibt_ev_feed(u8 type, const struct ibt_feed *f, int err, u64 count,
		 u64 total);
void ibt_ev_rail(u8 type, const struct ibt_feed *f, u32 rail, u64 count,
		 u64 total);
void ibt_ev_sock(u8 type, const struct ibt_feed *f, const struct ibt_sock *is,
		 u64 count, u64 total);
/* rate limit of the data-path events: true at most every HZ/10 per @at */
bool ibt_ev_due(unsigned long *at);
void ibt_nl_set_ready(bool ready);

/* nl_feed.c */
int ibt_nl_feed_get_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_feed_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ibt_nl_feed_new_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_feed_set_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_feed_del_doit(struct sk_buff *skb, struct genl_info *info);

/* nl_sock.c */
void ibt_sock_list_add(struct ibt_sock *is);
void ibt_sock_list_del(struct ibt_sock *is);
int ibt_nl_sock_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* nl_dev.c */
int ibt_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _IBTICK_IBT_H */
