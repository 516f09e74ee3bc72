// SPDX-License-Identifier: GPL-2.0
/*
 * Connections per user: max_user_conns caps the connection sockets a uid
 * holds: those that connect()ed (from connect() until they are freed) and
 * a listener's children (from the request until they are freed), which
 * count against the listener's user.  Listeners themselves hold no QP and
 * do not count.  It holds for every user, CAP_IPC_LOCK (whose connections'
 * pinned memory no RLIMIT_MEMLOCK bounds) and root included; 0 lifts it.
 *
 * A socket's charge is taken once (ibt_conn_user_charge) and given back
 * once: by the caller that failed before handing it to the socket, or by
 * the socket's destructor (ibt_conn_user_release), which every socket
 * reaches once, whatever ended it: close(), a rejected or reaped child, a
 * listener's close, device removal.
 *
 * Locking: ibt_conn_users_lock (a spinlock, BH: the last sock_put() may
 * come from anywhere) protects the table; it is a leaf.
 */
#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include "conn.h"

static unsigned int max_user_conns = 1024;
module_param(max_user_conns, uint, 0644);
MODULE_PARM_DESC(max_user_conns, "most connections (connecting, established, a listener's children) one uid may hold, root included (default 1024; 0: no limit); connect() fails ENOBUFS beyond, a listener's requests are refused");

struct ibt_conn_user {
	struct hlist_node	node;
	kuid_t			uid;
	u32			n;
};

static DEFINE_SPINLOCK(ibt_conn_users_lock);
static DEFINE_HASHTABLE(ibt_conn_users, 6);	/* ibt_conn_users_lock */
static u64 ibt_conn_users_total;		/* ibt_conn_users_lock */

static struct ibt_conn_user *ibt_conn_user_find_locked(kuid_t uid)
{
	struct ibt_conn_user *u;

	hash_for_each_possible(ibt_conn_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

int ibt_conn_user_charge(kuid_t uid)
{
	struct ibt_conn_user *u, *fresh;
	unsigned int max = READ_ONCE(max_user_conns);
	int err = 0;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);	/* maybe not needed */
	if (!fresh)
		return -ENOMEM;
	spin_lock_bh(&ibt_conn_users_lock);
	u = ibt_conn_user_find_locked(uid);
	if (!u) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		hash_add(ibt_conn_users, &u->node, __kuid_val(uid));
	}
	if (max && u->n >= max) {
		err = -ENOBUFS;
	} else {
		u->n++;
		ibt_conn_users_total++;
	}
	if (!u->n) {	/* the fresh entry of a refused first charge */
		hash_del(&u->node);
		fresh = u;
	}
	spin_unlock_bh(&ibt_conn_users_lock);
	kfree(fresh);
	return err;
}

void ibt_conn_user_uncharge(kuid_t uid)
{
	struct ibt_conn_user *u;

	spin_lock_bh(&ibt_conn_users_lock);
	u = ibt_conn_user_find_locked(uid);
	if (WARN_ON_ONCE(!u || !u->n)) {
		spin_unlock_bh(&ibt_conn_users_lock);
		return;
	}
	ibt_conn_users_total--;
	if (!--u->n)
		hash_del(&u->node);
	else
		u = NULL;	/* still held */
	spin_unlock_bh(&ibt_conn_users_lock);
	kfree(u);
}

void ibt_conn_user_release(struct ibt_csock *cs)
{
	if (!cs->cn_charged)
		return;
	cs->cn_charged = false;
	ibt_conn_user_uncharge(cs->cn_uid);
}

/* debugfs conn_users: "total N", then "UID N" per user holding any. */
static int ibt_conn_users_show(struct seq_file *m, void *v)
{
	struct ibt_conn_user *u;
	unsigned int bkt;

	spin_lock_bh(&ibt_conn_users_lock);
	seq_printf(m, "total %llu\n", ibt_conn_users_total);
	hash_for_each(ibt_conn_users, bkt, u, node)
		seq_printf(m, "%u %u\n", from_kuid_munged(&init_user_ns, u->uid),
			   u->n);
	spin_unlock_bh(&ibt_conn_users_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ibt_conn_users);

void ibt_conn_users_debugfs(struct dentry *dir)
{
	debugfs_create_file("conn_users", 0400, dir, NULL, &ibt_conn_users_fops);
}

/* Module unload: every socket is gone, so is every charge. */
void ibt_conn_users_exit(void)
{
	WARN_ON_ONCE(ibt_conn_users_total);
}
