/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibtick internal interfaces, grouped by the file that implements them.
 *
 * Lock order (outermost first):
 *   genl_mutex (held by the genetlink core around every doit/dumpit)
 *     ibt_devs_lock
 *       ib_core internals (ib_query_port, GID table locks)
 * ib_core calls the ib_client add/remove callbacks with its own client locks
 * held; they take ibt_devs_lock.  The port event handler runs under the
 * device's event_handler_rwsem (read) and takes no ibtick lock, so that
 * ib_unregister_event_handler() can be called with ibt_devs_lock released.
 */
#ifndef _IBTICK_IBT_H
#define _IBTICK_IBT_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>

#define IBT_DRV_NAME	"ibtick"

/* Port event counters, indices into ibt_port.evcnt[]. */
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
	atomic64_t	evcnt[IBT_EV_CNT];	/* monotonic, lock-free */
};

/*
 * One per RDMA device that has at least one IB or RoCE port.
 *
 * Lifetime: created by the ib_client add callback, put on ibt_devs and
 * referenced by the list.  The remove callback unlinks it, stops its event
 * handler, waits for RCU readers and drops the list reference.  @ibdev may
 * be dereferenced only while the entry is on the list: under ibt_devs_lock,
 * or under rcu_read_lock() while !@dead.
 */
struct ibt_dev {
	struct list_head	list;	/* ibt_devs; RCU, writers hold ibt_devs_lock */
	struct ib_device	*ibdev;
	struct ib_event_handler	ev_handler;
	struct kref		ref;
	bool			dead;	/* set under ibt_devs_lock at unlink */
	u32			index;	/* ibdev->index, cached for the cursor */
	u32			nports;
	struct ibt_port		ports[];	/* ports[i].num = start port + i */
};

/* ibdev.c */
extern struct mutex ibt_devs_lock;
extern struct list_head ibt_devs;	/* sorted by index */
extern u32 ibt_devs_gen;		/* bumped on every add/remove/rename */

int ibt_ib_init(void);
void ibt_ib_exit(void);
void ibt_dev_put(struct ibt_dev *d);
struct ibt_dev *ibt_dev_find_locked(u32 index, const char *name);
int ibt_port_netdev(struct ib_device *ibdev, u32 port, const union ib_gid *gid0,
		    int *ifindex, char *name);

/* netlink.c */
extern struct genl_family ibt_genl_family;
int ibt_nl_init(void);
void ibt_nl_exit(void);

/* nl_dev.c */
struct genl_info;
struct netlink_callback;
int ibt_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int ibt_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _IBTICK_IBT_H */
