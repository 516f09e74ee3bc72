// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick: market-data tick sockets over InfiniBand / RoCE UD multicast.
 *
 * Module init and exit.  Bring-up order: the feed layer's listener to the
 * device table, the ib_client (device table), then the netlink family that
 * reports it, then the socket family that builds feeds on it; torn down in
 * reverse.  Sockets hold a module
 * reference, so the module cannot be unloaded while any exists.
 */
#include <linux/module.h>

#include <linux/ibtick_netlink.h>

#include "ibt.h"

struct workqueue_struct *ibt_wq;

static int __init ibt_init(void)
{
	int err;

	ibt_wq = alloc_workqueue(IBT_DRV_NAME, WQ_UNBOUND, 0);
	if (!ibt_wq)
		return -ENOMEM;
	err = ibt_feeds_init();
	if (err)
		goto out;
	err = ibt_ib_init();
	if (err) {
		pr_err(IBT_DRV_NAME ": ib_client registration failed: %d\n", err);
		goto out_feeds;
	}
	err = ibt_nl_init();
	if (err) {
		pr_err(IBT_DRV_NAME ": genl family " IBTICK_GENL_NAME
		       " not registered: %d\n", err);
		goto out_ib;
	}
	err = ibt_sock_init();
	if (err)
		goto out_nl;
	ibt_debugfs_init();
	pr_info(IBT_DRV_NAME ": version " IBTICK_VERSION " loaded, AF_IBTICK is %d\n",
		ibt_family);
	return 0;

out_nl:
	ibt_nl_exit();
	ibt_feeds_exit();	/* admin feeds made in the meantime */
out_ib:
	ibt_ib_exit();
out_feeds:
	ibt_feeds_unregister();
out:
	destroy_workqueue(ibt_wq);
	return err;
}

static void __exit ibt_exit(void)
{
	ibt_debugfs_exit();
	ibt_sock_exit();
	/* members freed after a grace period hold feeds: let them go first */
	rcu_barrier();
	flush_workqueue(ibt_wq);
	ibt_nl_exit();
	ibt_feeds_exit();	/* admin feeds: no socket is left */
	ibt_ib_exit();
	ibt_feeds_unregister();
	destroy_workqueue(ibt_wq);
	pr_info(IBT_DRV_NAME ": unloaded\n");
}

module_init(ibt_init);
module_exit(ibt_exit);

MODULE_DESCRIPTION("ibtick: tick sockets over InfiniBand/RoCE UD multicast");
MODULE_AUTHOR("The ibtick developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(IBTICK_VERSION);
