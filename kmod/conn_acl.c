// SPDX-License-Identifier: GPL-2.0
/*
 * Who may listen on a connection port: the host's listener rules (the
 * logic is portrule.c's; the netlink commands nl_rule.c's) and the check
 * listen() makes (the contract: <linux/ibtick.h>, "Connections").
 *
 * Locking: ibt_conn_rules_lock (a mutex) protects the table; it is taken
 * alone, or inside an ibt_csock's lock (listen()), never around either.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mutex.h>
#include <net/ip.h>

#include "conn.h"
#include "portrule.h"

static DEFINE_MUTEX(ibt_conn_rules_lock);
static struct ibt_port_rules ibt_conn_rules;	/* ibt_conn_rules_lock */
static u32 ibt_conn_rules_gen;			/* ibt_conn_rules_lock */

int ibt_conn_listen_allowed(u16 port)
{
	const struct ibt_port_rule *r;
	bool priv, in_group = false;
	int err;

	priv = inet_port_requires_bind_service(&init_net, port);
	mutex_lock(&ibt_conn_rules_lock);
	r = ibt_port_rules_find(&ibt_conn_rules, port);
	if (r)
		in_group = in_group_p(r->acl.group);
	err = ibt_port_listen_verdict(r, current_fsuid(), in_group, false, priv,
				      priv && ns_capable_noaudit(&init_user_ns,
						CAP_NET_BIND_SERVICE));
	mutex_unlock(&ibt_conn_rules_lock);
	/* the rules first, then the override, as the feeds' ACL does */
	if (err && ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN))
		err = 0;
	return err;
}

int ibt_conn_rule_add(const struct ibt_port_rule *r, struct ibt_port_rule *clash)
{
	u32 i;
	int err;

	mutex_lock(&ibt_conn_rules_lock);
	err = ibt_port_rules_add(&ibt_conn_rules, r, &i);
	if (err == -EEXIST)
		*clash = ibt_conn_rules.r[i];
	if (!err)
		ibt_conn_rules_gen++;
	mutex_unlock(&ibt_conn_rules_lock);
	return err;
}

int ibt_conn_rule_del(u16 lo, u16 hi)
{
	int err;

	mutex_lock(&ibt_conn_rules_lock);
	err = ibt_port_rules_del(&ibt_conn_rules, lo, hi);
	if (!err)
		ibt_conn_rules_gen++;
	mutex_unlock(&ibt_conn_rules_lock);
	return err;
}

bool ibt_conn_rule_get(u32 i, struct ibt_port_rule *r, u32 *gen)
{
	bool ok;

	mutex_lock(&ibt_conn_rules_lock);
	ok = i < ibt_conn_rules.n;
	if (ok)
		*r = ibt_conn_rules.r[i];
	*gen = ibt_conn_rules_gen;
	mutex_unlock(&ibt_conn_rules_lock);
	return ok;
}
