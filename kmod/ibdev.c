// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_client: ibtick's table of RDMA devices and their ports.
 *
 * Devices come and go with ib_core's add/remove callbacks (hot plug,
 * `rdma link add/delete`, driver unload); ports report events through an
 * ib_event_handler.  The table is walked under ibt_devs_lock (all of its
 * users may sleep); an entry outlives the lock only with a reference.
 *
 * The layers above (feeds, their joins) learn of devices and port events
 * through the ibt_dev notifier chain: this file calls nothing of theirs.
 */
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "ibt.h"
#include "portattr.h"

DEFINE_MUTEX(ibt_devs_lock);	/* protects ibt_devs and ibt_devs_gen */
LIST_HEAD(ibt_devs);		/* protected by ibt_devs_lock */
u32 ibt_devs_gen;		/* protected by ibt_devs_lock */

/* IBT_DEV_* notifications; listeners may sleep and take ibt_feeds_lock. */
static BLOCKING_NOTIFIER_HEAD(ibt_dev_chain);

int ibt_dev_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&ibt_dev_chain, nb);
}

void ibt_dev_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&ibt_dev_chain, nb);
}

static void ibt_dev_notify(unsigned long what, void *data)
{
	blocking_notifier_call_chain(&ibt_dev_chain, what, data);
}

static struct ib_client ibt_client;

static void ibt_dev_release(struct kref *ref)
{
	kfree(container_of(ref, struct ibt_dev, ref));
}

void ibt_dev_put(struct ibt_dev *d)
{
	kref_put(&d->ref, ibt_dev_release);
}

/*
 * Find a device by index (when @name is NULL) or by name.
 * Context: process; caller holds ibt_devs_lock.  No reference is taken:
 * the entry stays valid until the lock is dropped.
 */
struct ibt_dev *ibt_dev_find_locked(u32 index, const char *name)
{
	struct ibt_dev *d;

	lockdep_assert_held(&ibt_devs_lock);
	list_for_each_entry(d, &ibt_devs, list) {
		if (!name ? d->index == index :
		    !strncmp(d->name, name, sizeof(d->name)))
			return d;	/* rename writes d->name under this lock */
	}
	return NULL;
}

/*
 * The netdev behind a port: on RoCE the one GID entry 0 is bound to, on
 * InfiniBand the IPoIB interface whose hardware address carries the port GID
 * (the parent interface comes first in init_net's list; P_Key children share
 * the GID and are not chosen).  Returns -ENODEV when there is none.
 * Context: process (rdma_get_gid_attr may sleep).
 */
int ibt_port_netdev(struct ib_device *ibdev, u32 port, const union ib_gid *gid0,
		    int *ifindex, char *name)
{
	const struct ib_gid_attr *attr;
	struct net_device *nd;
	int err = -ENODEV;

	if (rdma_protocol_roce(ibdev, port)) {
		attr = rdma_get_gid_attr(ibdev, port, 0);
		if (IS_ERR(attr))
			return PTR_ERR(attr);
		rcu_read_lock();
		nd = rdma_read_gid_attr_ndev_rcu(attr);
		if (!IS_ERR(nd)) {
			*ifindex = nd->ifindex;
			strscpy(name, nd->name, IFNAMSIZ);
			err = 0;
		}
		rcu_read_unlock();
		rdma_put_gid_attr(attr);
		return err;
	}

	if (!rdma_protocol_ib(ibdev, port) || !gid0)
		return -ENODEV;
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, nd) {
		if (nd->type != ARPHRD_INFINIBAND ||
		    !ibt_ipoib_hwaddr_has_gid(nd->dev_addr, nd->addr_len,
					      gid0->raw))
			continue;
		*ifindex = nd->ifindex;
		strscpy(name, nd->name, IFNAMSIZ);
		err = 0;
		break;
	}
	rcu_read_unlock();
	return err;
}

static int ibt_event_counter(enum ib_event_type ev)
{
	switch (ev) {
	case IB_EVENT_PORT_ACTIVE:
		return IBT_EV_PORT_ACTIVE;
	case IB_EVENT_PORT_ERR:
		return IBT_EV_PORT_ERR;
	case IB_EVENT_LID_CHANGE:
		return IBT_EV_LID_CHANGE;
	case IB_EVENT_PKEY_CHANGE:
		return IBT_EV_PKEY_CHANGE;
	case IB_EVENT_SM_CHANGE:
		return IBT_EV_SM_CHANGE;
	case IB_EVENT_CLIENT_REREGISTER:
		return IBT_EV_CLIENT_REREG;
	case IB_EVENT_GID_CHANGE:
		return IBT_EV_GID_CHANGE;
	default:
		return -1;
	}
}

/*
 * Context: process, ib_core's event work, under the device's
 * event_handler_rwsem held for reading.  Takes no ibtick lock itself (see
 * ibt.h); the IBT_DEV_PORT_EVENT listeners take none either.
 */
static void ibt_event_handler(struct ib_event_handler *h, struct ib_event *ev)
{
	struct ibt_dev *d = container_of(h, struct ibt_dev, ev_handler);
	u32 first = rdma_start_port(d->ibdev);
	int idx = ibt_event_counter(ev->event);
	u32 port = ev->element.port_num;
	struct ibt_dev_port_event pe = { .dev = d, .event = ev->event };

	if (idx < 0 || port < first || port - first >= d->nports)
		return;
	atomic64_inc(&d->ports[port - first].evcnt[idx]);
	if (ev->event == IB_EVENT_PORT_ACTIVE) {
		WRITE_ONCE(d->ports[port - first].active, true);
		ibt_ev_dev(IBTICK_EV_PORT_UP, d, port);
	} else if (ev->event == IB_EVENT_PORT_ERR) {
		WRITE_ONCE(d->ports[port - first].active, false);
		ibt_ev_dev(IBTICK_EV_PORT_DOWN, d, port);
	}
	pe.port_idx = port - first;
	ibt_dev_notify(IBT_DEV_PORT_EVENT, &pe);
	if (ev->event == IB_EVENT_PORT_ACTIVE || ev->event == IB_EVENT_PORT_ERR ||
	    ev->event == IB_EVENT_CLIENT_REREGISTER)
		ibdev_info_ratelimited(d->ibdev, "port %u: %s\n", port,
				       ib_event_msg(ev->event));
}

static bool ibt_dev_supported(struct ib_device *ibdev)
{
	u32 p;

	/* UD multicast needs an IB or RoCE port; iWARP has neither. */
	rdma_for_each_port(ibdev, p)
		if (rdma_protocol_ib(ibdev, p) || rdma_protocol_roce(ibdev, p))
			return true;
	return false;
}

/* Context: process, from ib_core with its client locks held. */
static int ibt_add_one(struct ib_device *ibdev)
{
	u32 first = rdma_start_port(ibdev);
	u32 nports = rdma_end_port(ibdev) - first + 1;
	struct ibt_dev *d, *pos;
	struct list_head *at;
	u32 i;

	if (!ibt_dev_supported(ibdev))
		return -EOPNOTSUPP;

	d = kzalloc(struct_size(d, ports, nports), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	d->index = ibdev->index;
	spin_lock_init(&d->name_lock);
	strscpy(d->name, ibdev->name, sizeof(d->name));
	d->nports = nports;
	kref_init(&d->ref);
	for (i = 0; i < nports; i++)
		d->ports[i].num = first + i;
	ibt_dev_notify(IBT_DEV_ADDED, d);

	/* events first, then the state: a PORT_ACTIVE in between is not lost */
	INIT_IB_EVENT_HANDLER(&d->ev_handler, ibdev, ibt_event_handler);
	ib_register_event_handler(&d->ev_handler);
	for (i = 0; i < nports; i++) {
		struct ib_port_attr pa;

		if (!ib_query_port(ibdev, first + i, &pa))
			WRITE_ONCE(d->ports[i].active,
				   pa.state == IB_PORT_ACTIVE);
	}
	ib_set_client_data(ibdev, &ibt_client, d);

	mutex_lock(&ibt_devs_lock);
	at = &ibt_devs;			/* keep the list sorted by index */
	list_for_each_entry(pos, &ibt_devs, list) {
		if (pos->index > d->index)
			break;
		at = &pos->list;
	}
	list_add(&d->list, at);
	ibt_devs_gen++;
	mutex_unlock(&ibt_devs_lock);
	ibt_ev_dev(IBTICK_EV_DEV_ADDED, d, 0);
	return 0;
}

/*
 * Context: process, from ib_core.  Synchronous: when this returns nothing in
 * ibtick touches @ibdev any more.
 */
static void ibt_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct ibt_dev *d = client_data;

	ibt_ev_dev(IBTICK_EV_DEV_REMOVED, d, 0);
	mutex_lock(&ibt_devs_lock);
	d->removing = true;	/* no new feed finds it */
	mutex_unlock(&ibt_devs_lock);
	/* every feed on the device releases its verbs resources now */
	ibt_dev_notify(IBT_DEV_REMOVING, d);

	mutex_lock(&ibt_devs_lock);
	list_del(&d->list);
	ibt_devs_gen++;
	mutex_unlock(&ibt_devs_lock);

	/* waits for a handler that is running now */
	ib_unregister_event_handler(&d->ev_handler);
	/* no feed, port event or cm id is left: the listeners' last word */
	ibt_dev_notify(IBT_DEV_REMOVED, d);
	ibt_dev_put(d);
}

/*
 * A copy of @d's name.  Context: any (a spinlock): events name devices from
 * atomic context.
 */
void ibt_dev_name(struct ibt_dev *d, char name[IB_DEVICE_NAME_MAX])
{
	unsigned long flags;

	spin_lock_irqsave(&d->name_lock, flags);
	strscpy(name, d->name, IB_DEVICE_NAME_MAX);
	spin_unlock_irqrestore(&d->name_lock, flags);
}

/*
 * ib_core calls this after a rename, with the new name in place (its
 * devices_rwsem held for reading keeps it there while we copy it).
 */
static void ibt_rename_one(struct ib_device *ibdev, void *client_data)
{
	struct ibt_dev *d = client_data;

	/* both locks: readers take either one */
	mutex_lock(&ibt_devs_lock);
	spin_lock_irq(&d->name_lock);
	strscpy(d->name, ibdev->name, sizeof(d->name));
	spin_unlock_irq(&d->name_lock);
	ibt_devs_gen++;		/* running dumps restart */
	mutex_unlock(&ibt_devs_lock);
}

static struct ib_client ibt_client = {
	.name	= IBT_DRV_NAME,
	.add	= ibt_add_one,
	.remove	= ibt_remove_one,
	.rename	= ibt_rename_one,
};

int ibt_ib_init(void)
{
	return ib_register_client(&ibt_client);
}

void ibt_ib_exit(void)
{
	/* calls ibt_remove_one() for every device still present */
	ib_unregister_client(&ibt_client);
	WARN_ON(!list_empty(&ibt_devs));
}

/*
 * The device and port behind netdev @ifindex, referenced; with @ifindex 0
 * the only ACTIVE IB/RoCE port of the host.  ERR_PTR(-ENODEV) when no
 * RDMA port is behind that netdev, -EADDRNOTAVAIL when ifindex is 0 and the
 * host has no or several active ports (ibtick never guesses the fabric).
 * Context: process; caller holds ibt_feeds_lock, so a device found here
 * cannot finish IBT_DEV_REMOVING (which takes that lock) before the caller
 * has listed its feed: the removal then tears that feed down too.
 */
struct ibt_dev *ibt_dev_get_by_netdev(int ifindex, u32 *port)
{
	struct ibt_dev *d, *found = NULL;
	struct ib_port_attr pa;
	char name[IFNAMSIZ];
	union ib_gid gid;
	int nd, active = 0;
	u32 i;

	lockdep_assert_held(&ibt_feeds_lock);
	mutex_lock(&ibt_devs_lock);
	list_for_each_entry(d, &ibt_devs, list) {
		if (d->removing)
			continue;
		for (i = 0; i < d->nports; i++) {
			u32 p = d->ports[i].num;

			if (!rdma_protocol_ib(d->ibdev, p) &&
			    !rdma_protocol_roce(d->ibdev, p))
				continue;
			if (!ifindex) {
				if (ib_query_port(d->ibdev, p, &pa) ||
				    pa.state != IB_PORT_ACTIVE)
					continue;
				active++;
				found = d;
				*port = p;
				continue;
			}
			if (rdma_query_gid(d->ibdev, p, 0, &gid) ||
			    ibt_port_netdev(d->ibdev, p, &gid, &nd, name) ||
			    nd != ifindex)
				continue;
			found = d;
			*port = p;
			goto out;
		}
	}
out:
	if (found && !ifindex && active != 1)
		found = NULL;
	if (found)
		kref_get(&found->ref);
	mutex_unlock(&ibt_devs_lock);
	if (!found)
		return ERR_PTR(ifindex ? -ENODEV : -EADDRNOTAVAIL);
	return found;
}
