// SPDX-License-Identifier: GPL-2.0
/*
 * Listener rules (see portrule.h).  Pure logic.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/ibtick_netlink.h>

#include "portrule.h"

bool ibt_port_range_valid(u32 lo, u32 hi)
{
	return lo >= 1 && lo <= hi && hi <= 65535;
}

bool ibt_port_rule_mode_valid(u32 mode)
{
	return !(mode & ~IBTICK_CONN_RULE_MODE_MASK);
}

/* The first rule whose end is at or past @port: where @port would go. */
static u32 ibt_port_rules_lower(const struct ibt_port_rules *t, u16 port)
{
	u32 lo = 0, hi = t->n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t->r[mid].hi < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ibt_port_rule *ibt_port_rules_find(const struct ibt_port_rules *t,
						u16 port)
{
	u32 i = ibt_port_rules_lower(t, port);

	if (i < t->n && t->r[i].lo <= port)
		return &t->r[i];
	return NULL;
}

int ibt_port_rules_add(struct ibt_port_rules *t, const struct ibt_port_rule *r,
		       u32 *clash)
{
	u32 i = ibt_port_rules_lower(t, r->lo);

	/* r[i] is the first rule ending at or past r->lo */
	if (i < t->n && t->r[i].lo <= r->hi) {
		*clash = i;
		return -EEXIST;
	}
	if (t->n == IBT_PORT_RULES_MAX)
		return -ENOSPC;
	memmove(&t->r[i + 1], &t->r[i], (t->n - i) * sizeof(t->r[0]));
	t->r[i] = *r;
	t->n++;
	return 0;
}

int ibt_port_rules_del(struct ibt_port_rules *t, u16 lo, u16 hi)
{
	u32 i = ibt_port_rules_lower(t, lo);

	if (i >= t->n || t->r[i].lo != lo || t->r[i].hi != hi)
		return -ENOENT;
	memmove(&t->r[i], &t->r[i + 1], (t->n - i - 1) * sizeof(t->r[0]));
	t->n--;
	return 0;
}

int ibt_port_listen_verdict(const struct ibt_port_rule *r, kuid_t uid,
			    bool in_group, bool admin, bool privileged,
			    bool bind_service)
{
	if (admin)
		return 0;
	if (r)
		return ibt_acl_permits(&r->acl, uid, in_group, IBT_ACL_LISTEN) ?
		       0 : -EACCES;
	return privileged && !bind_service ? -EACCES : 0;
}
