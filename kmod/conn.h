/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Connections: SOCK_SEQPACKET sockets over one RC queue pair each (the
 * order channel).  The user contract is in <linux/ibtick.h>; this header
 * holds the wire, the socket, and who may touch what.
 *
 *   conn_sock.c   the proto_ops: bind, listen, accept, connect, send,
 *                 recv, poll, shutdown, release, options
 *   conn_cm.c     rdma_cm: address and route, handshake, listener
 *                 children, disconnects, device removal
 *   conn_ib.c     verbs: the QP, CQ and buffers of a connection; posting
 *                 and completions (the receive path into the ring)
 *   conn_poll.c   who drains the CQ: the softirq poll, or a spinning caller
 *   conn_opt.c    options: geometry, ring info, the reader's cursor
 *   credit.c      flow control (pure logic, KUnit)
 *   nl_conn.c     the connection list, IBTICK_CMD_CONN_GET (ibtick conn)
 *   conn_acl.c    who may listen on a port: the listener rules (their
 *                 logic: portrule.c, KUnit; their commands: nl_rule.c)
 *   conn_limit.c  connections per user (max_user_conns)
 *
 * The wire.  Every message is one RC SEND with immediate data, the payload
 * exactly the user's message (no header).  The immediate (big-endian on the
 * wire) is IBT_IMM_TYPE << 24 | grants: a DATA message goes to the ring,
 * CREDIT only returns credits, FIN is the orderly end (after the last data
 * message, in order: RC keeps it).  The handshake's private data, both in
 * the request and the reply, is struct ibt_conn_hello: each side says how
 * many slots its ring has (the credits it grants first) and the largest
 * message its slots hold.
 *
 * Locking.
 *  - ibt_csock.lock (mutex): the connection's state, its cm_id and its
 *    verbs resources' life; taken by the socket calls and by the rdma_cm
 *    handler.  Never held across rdma_destroy_id() (which waits for the
 *    handler).  Whoever clears @cm_id under it owns destroying it and
 *    tearing the verbs resources down.
 *  - ibt_csock.dlock (spinlock, BH): the data path: credits, the send
 *    queue's free entries, the send buffers' indices, @dead, the flags the
 *    receive completion sets, the counters.  Every ib_post_send() and
 *    ib_post_recv() happens under it after checking @dead, so teardown,
 *    which sets @dead under it first, races with no post.
 *  - ibt_csock.rlock / slock (mutexes): one reader and one sender at a
 *    time (the ring's cursor; the send buffers' order).
 *  - ibt_conn_accept_lock: every listener's children list and each
 *    child's @parent.
 * Order: rlock or slock, then lock, then dlock; ibt_conn_accept_lock alone
 * or inside lock.  The ring has one producer: the receive completion (the
 * CQ polls in softirq, one at a time).
 */
#ifndef _IBTICK_CONN_H
#define _IBTICK_CONN_H

#include <linux/hrtimer.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/irq_poll.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "credit.h"
#include "ring.h"

#define IBT_CONN_MAGIC		0x49425443	/* "IBTC" */
#define IBT_CONN_VERSION	1

struct ibt_conn_hello {
	__be32	magic;
	u8	version;
	u8	flags;		/* 0 */
	__be16	reserved;	/* 0 */
	__be32	nslots;		/* the sender's ring: first credits */
	__be32	msg_max;	/* the sender's slot payload */
};

enum {
	IBT_IMM_DATA = 0,
	IBT_IMM_CREDIT = 1,
	IBT_IMM_FIN = 2,
};

#define IBT_IMM(type, grants)	((u32)(type) << 24 | (grants))
#define IBT_IMM_TYPE(imm)	((imm) >> 24)
#define IBT_IMM_GRANTS(imm)	((imm) & IBT_CREDIT_GRANT_MAX)

/* Geometry of a connection's ring (IBTICK_RING_GEOMETRY may change it). */
#define IBT_CONN_SLOTS_DEFAULT	256
#define IBT_CONN_SLOTS_MAX	4096
/* data sends in flight on the send queue, and the credit-only ones */
#define IBT_CONN_SQ_DATA	64
#define IBT_CONN_SQ_CTL		8
#define IBT_CONN_SQ		(IBT_CONN_SQ_DATA + IBT_CONN_SQ_CTL)
/*
 * Data sends ask for a completion one in IBT_CONN_SIGNAL_EVERY (RC
 * completes in order: one completion frees every send before it);
 * credit-only and FIN messages always do.
 */
#define IBT_CONN_SIGNAL_EVERY	16
#define IBT_CONN_INLINE_WANT	256
/* rdma_cm: resolution timeouts, ACK timeout 4.096 us * 2^14 = 67 ms */
#define IBT_CONN_RESOLVE_MS	2000
#define IBT_CONN_ACK_TIMEOUT	14
#define IBT_CONN_RETRY		6	/* rxe takes 7 as for ever */
#define IBT_CONN_RNR_RETRY	3
/*
 * The send watchdog: sends outstanding and no send completion for this
 * long fail the connection (ETIMEDOUT), whatever the QP says: rxe in 6.1
 * can stall a QP for good after a link flap, with no error.  It looks once
 * a second; a QP with only sends that asked for no completion gets a probe
 * (a credit-only message, which always asks) first.
 */
#define IBT_CONN_STALL_MS	5000
/* close(): how long the last messages may take to be acknowledged */
#define IBT_CONN_LINGER_MS	2000

/* One receive buffer. */
struct ibt_crx {
	struct ib_cqe	cqe;
	void		*buf;
	dma_addr_t	dma;
};

/* A connection's verbs resources (conn_ib.c). */
struct ibt_conn_ib {
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	u32			rq_size;
	u32			buf_size;	/* receive and send buffers */
	u32			inline_max;
	struct ibt_crx		*rx;		/* rq_size */
	void			**tx;		/* IBT_CONN_SQ_DATA buffers */
	dma_addr_t		*tx_dma;
	u32			tx_size;	/* each: the peer's msg_max */
	/* who drains the CQ (conn_poll.c) */
	struct irq_poll		iop;
	spinlock_t		poll_lock;
	bool			poll_off;	/* poll_lock: torn down */
	bool			disarmed;	/* poll_lock: left so for a spinner */
	u64			spin_ns;	/* a preferring spinner drained */
	struct hrtimer		rearm;		/* hands a disarmed CQ back */
	/* counters (struct ibtick_conn_info): poll_lock, read with READ_ONCE */
	u64			cqe_irq;	/* drained in softirq context */
	u64			cqe_caller;	/* drained by callers */
	u64			irq_polls;	/* softirq poll runs */
	atomic64_t		cq_events;	/* any context */
	/* one per send queue entry, in posting order (index % IBT_CONN_SQ) */
	struct ib_cqe		sq_cqe[IBT_CONN_SQ];
	bool			sq_data[IBT_CONN_SQ];	/* a data send */
};

struct ibt_csock {
	struct sock		sk;		/* first */
	struct mutex		lock;
	struct mutex		rlock;
	struct mutex		slock;
	int			state;		/* IBTICK_CONN_*: lock */
	struct rdma_cm_id	*cm_id;		/* owned: lock */
	bool			bound;
	struct sockaddr_in	local;
	struct sockaddr_in	peer;
	u32			ifindex;
	u32			nslots;		/* ring geometry */
	u32			slot_size;
	u32			qp_num;
	u32			peer_qp_num;

	/* listener: ibt_conn_accept_lock */
	struct list_head	children;	/* handshaking and ready */
	u32			nchildren;
	u32			backlog;
	u64			refused_user_max; /* requests over max_user_conns */
	/* child of a listener until accepted: ibt_conn_accept_lock */
	struct list_head	child_node;
	struct ibt_csock	*parent;
	bool			ready;		/* established, acceptable */
	bool			passive;	/* a listener's child */
	bool			listening;	/* listen() succeeded: lock */

	/* the data path: dlock */
	spinlock_t		dlock;
	bool			have_ib;	/* @ib set up (lock to change) */
	bool			dead;		/* no more posting */
	bool			peer_known;	/* the peer's hello is in */
	bool			peer_fin;	/* its FIN arrived */
	bool			fin_sent;
	bool			wr_shut;	/* shutdown(SHUT_WR) or close */
	bool			rd_shut;
	bool			failed;		/* see @err */
	bool			ctl_wanted;	/* an update waits for the SQ */
	bool			want_tx;	/* a sender waits: wake it on room */
	bool			closing;	/* release: no more fail_work */
	int			err;		/* the failure's cause */
	int			cause;		/* set before a failure we start */
	struct ibt_credit	cr;
	u64			sq_head;	/* send queue entries posted */
	u64			sq_tail;	/* ... and completed */
	u32			unsignaled;	/* data sends since a signaled one */
	u32			sig_pending;	/* sends that asked for a completion */
	/* jiffies: a send completed, or the send queue left empty */
	unsigned long		last_comp;
	bool			probe_out;	/* the watchdog's probe is out */
	struct timer_list	wd;		/* the send watchdog */
	u64			tx_head;	/* send buffers: slock posts */
	u64			tx_tail;	/* ... completions free */
	u32			peer_msg_max;
	u64			data_posted;
	u64			data_acked;
	struct ibtick_conn_info	st;		/* counters */
	struct ibt_conn_ib	ib;

	/* the connection list (nl_conn.c): ibt_conns_lock */
	struct list_head	node;
	u64			id;
	struct pid		*tgid;		/* shown as its process; referenced */
	char			dev_name[IB_DEVICE_NAME_MAX]; /* lock */

	/*
	 * Pinned memory (ring, buffers, stage) charged to a user's locked
	 * memory, as feeds are: the connecting user's, or for an accepted
	 * connection the listener's (set at connect() / listen(): lock)
	 */
	struct user_struct	*ml_user;	/* NULL: CAP_IPC_LOCK, or none yet */
	unsigned long		ml_limit;	/* pages: RLIMIT_MEMLOCK then */
	unsigned long		ml_pages;	/* charged */
	/*
	 * max_user_conns (conn_limit.c): the uid charged (a listener's: the
	 * one its children are charged to, set at listen()), and whether the
	 * socket holds a charge, given back by its destructor (lock, or
	 * before the socket is shared)
	 */
	kuid_t			cn_uid;
	bool			cn_charged;

	/* a failure seen in a completion disconnects from here (lock) */
	struct work_struct	fail_work;
	bool			reported;	/* lock: its failure's event */
	bool			err_raised;	/* lock: SO_ERROR given its cause */
	int			async_err;	/* an async event's, for fail_work */
	/* send(): the message, copied from the user with slock only */
	void			*stage;

	/* the ring: written by the receive completion only */
	void			*ring_mem;
	struct ibt_ring		ring;
	u64			cursor;		/* rlock */
};

/* The ring once it is laid out (connect() or a request), or NULL. */
static inline void *ibt_conn_ring(const struct ibt_csock *cs)
{
	return smp_load_acquire(&cs->ring_mem);	/* pairs: ring_alloc */
}

static inline struct ibt_csock *ibt_csk(struct sock *sk)
{
	return container_of(sk, struct ibt_csock, sk);
}

extern struct mutex ibt_conn_accept_lock;

/* conn_sock.c */
int ibt_conn_create(struct net *net, struct socket *sock, int kern);
struct ibt_csock *ibt_conn_alloc(struct net *net, int kern,
				 const struct ibt_csock *like,
				 struct socket *sock);
int ibt_conn_init(void);
void ibt_conn_exit(void);
void ibt_conn_wake(struct ibt_csock *cs, __poll_t mask);

/* conn_cm.c */
int ibt_conn_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
struct rdma_cm_id *ibt_conn_new_id(struct ibt_csock *cs);
void ibt_conn_fail(struct ibt_csock *cs, int err);
void ibt_conn_report(struct ibt_csock *cs, int err);
void ibt_conn_fail_work(struct work_struct *w);
void ibt_conn_stop_work(struct ibt_csock *cs);
void ibt_conn_shutdown_id(struct ibt_csock *cs, bool graceful);
void ibt_conn_listener_close(struct ibt_csock *cs);

/* nl_event.c: a connection's event (ibtick monitor); any context, lock */
void ibt_ev_conn(u8 type, const struct ibt_csock *cs, int err, u64 unacked);

/* nl_conn.c */
void ibt_conn_list_add(struct ibt_csock *cs, struct pid *tgid);
void ibt_conn_list_del(struct ibt_csock *cs);
struct netlink_callback;
int ibt_nl_conn_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* conn_sock.c: a snapshot of the connection's state and counters */
void ibt_conn_info(struct ibt_csock *cs, struct ibtick_conn_info *ci);

/* conn_opt.c: SOL_IBTICK options of a connection socket */
int ibt_conn_setsockopt(struct socket *sock, int level, int optname,
			sockptr_t optval, unsigned int optlen);
int ibt_conn_getsockopt(struct socket *sock, int level, int optname,
			char __user *optval, int __user *optlen);

/* mmap.c: the ring, read-only, for readers that make no call per message */
int ibt_conn_mmap(struct file *file, struct socket *sock,
		  struct vm_area_struct *vma);

/* conn_acl.c: 0, or -EACCES when the caller may not listen on @port */
int ibt_conn_listen_allowed(u16 port);
struct ibt_port_rule;
/* 0, -EEXIST (*@clash: the rule in the way) or -ENOSPC */
int ibt_conn_rule_add(const struct ibt_port_rule *r, struct ibt_port_rule *clash);
int ibt_conn_rule_del(u16 lo, u16 hi);	/* 0 or -ENOENT */
/* Rule @i (by port) into *@r, false past the last; *@gen: the table's. */
bool ibt_conn_rule_get(u32 i, struct ibt_port_rule *r, u32 *gen);

/* nl_rule.c */
struct genl_info;
int ibt_nl_conn_rule_new_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_conn_rule_del_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_conn_rule_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);

/*
 * conn_limit.c: one connection more for @uid: 0, or -ENOBUFS at
 * max_user_conns (-ENOMEM); uncharge gives one back.  Process context.
 */
int ibt_conn_user_charge(kuid_t uid);
void ibt_conn_user_uncharge(kuid_t uid);
void ibt_conn_user_release(struct ibt_csock *cs);	/* its charge, if any */
struct dentry;
void ibt_conn_users_debugfs(struct dentry *dir);
void ibt_conn_users_exit(void);

/* conn_poll.c */
void ibt_conn_poll_init(struct ibt_csock *cs);
void ibt_conn_poll_sleep(struct ibt_csock *cs);
int ibt_conn_cq_create(struct ibt_csock *cs, u32 entries);
void ibt_conn_cq_stop(struct ibt_csock *cs);
void ibt_conn_cq_destroy(struct ibt_csock *cs);
bool ibt_conn_poll_direct(struct ibt_csock *cs);
void ibt_conn_drain_now(struct ibt_csock *cs);
bool ibt_conn_busy_wait(struct ibt_csock *cs, long timeo,
			bool (*ready)(struct ibt_csock *cs));

/* conn_ib.c */
int ibt_conn_ib_setup(struct ibt_csock *cs, struct rdma_cm_id *id);
void ibt_conn_ib_teardown(struct ibt_csock *cs, struct rdma_cm_id *id);
int ibt_conn_ring_alloc(struct ibt_csock *cs);
void ibt_conn_memlock_owner(struct ibt_csock *cs, const struct ibt_csock *like);
int ibt_conn_memlock_charge(struct ibt_csock *cs, u64 bytes);
void ibt_conn_memlock_release(struct ibt_csock *cs);
int ibt_conn_post_data(struct ibt_csock *cs, u32 len);
void ibt_conn_post_ctl_locked(struct ibt_csock *cs, u32 type);
void ibt_conn_maybe_update_locked(struct ibt_csock *cs);
bool ibt_conn_can_send_locked(struct ibt_csock *cs);

/* Free send queue entries: dlock. */
static inline u32 ibt_conn_sq_free(const struct ibt_csock *cs)
{
	return IBT_CONN_SQ - (u32)(cs->sq_head - cs->sq_tail);
}
void ibt_conn_fail_locked(struct ibt_csock *cs, int err);
void ibt_conn_async_error(struct ibt_csock *cs);
int ibt_conn_tx_alloc(struct ibt_csock *cs, u32 size);
void ibt_conn_watchdog(struct timer_list *t);

#endif /* _IBTICK_CONN_H */
