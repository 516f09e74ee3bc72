// SPDX-License-Identifier: GPL-2.0
/*
 * Test knobs under /sys/kernel/debug/ibtick/, for the VM suites: root
 * only, not an interface, and nothing reads them on the data path.
 *
 *   slow_join_group  an IPv4 multicast group, its network-order bytes read
 *                    as a native u32 (0: none) ...
 *   slow_join_ms     ... whose feeds' first join waits this long before it
 *                    is asked for, as behind a slow subnet manager.
 *   inject_async_event  write "FEED_ID EVENT": the feed's QP or CQ handler
 *                    gets asynchronous event EVENT (enum ib_event_type) as
 *                    if the device had reported it.
 *   conn_users       read: the connections charged to max_user_conns,
 *                    "total N" then "UID N" per user (conn_limit.c).
 */
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "conn.h"
#include "ibt.h"

struct ibt_debug ibt_debug;
static struct dentry *ibt_debug_dir;

static ssize_t ibt_debug_inject_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct ibt_feed *f;
	char buf[32];
	u32 id, what;
	int err = 0;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %u", &id, &what) != 2 || what > IB_EVENT_WQ_FATAL)
		return -EINVAL;
	mutex_lock(&ibt_feeds_lock);
	f = ibt_feed_find_locked(id, NULL);
	if (f && f->live && !f->arb)	/* an arbitrated feed has no QP */
		ibt_feed_ib_inject(f, what);
	else
		err = -ENOENT;
	mutex_unlock(&ibt_feeds_lock);
	return err ?: len;
}

static const struct file_operations ibt_debug_inject_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ibt_debug_inject_write,
	.llseek	= no_llseek,
};

void ibt_debugfs_init(void)
{
	ibt_debug_dir = debugfs_create_dir(IBT_DRV_NAME, NULL);
	debugfs_create_u32("slow_join_group", 0600, ibt_debug_dir,
			   &ibt_debug.slow_join_group);
	debugfs_create_u32("slow_join_ms", 0600, ibt_debug_dir,
			   &ibt_debug.slow_join_ms);
	debugfs_create_file("inject_async_event", 0200, ibt_debug_dir, NULL,
			    &ibt_debug_inject_fops);
	ibt_conn_users_debugfs(ibt_debug_dir);
}

void ibt_debugfs_exit(void)
{
	debugfs_remove(ibt_debug_dir);
}
