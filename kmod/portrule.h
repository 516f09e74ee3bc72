/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listener rules: who may listen on a connection port.  Pure logic (KUnit:
 * tests/kunit/portrule_test.c); the table's lock, the netlink commands and
 * the check in listen() are conn_acl.c's.
 *
 * A rule covers the ports lo..hi (1 <= lo <= hi <= 65535) and has an
 * owner, a group and a mode, as a feed has (acl.h), in which only the w
 * bits mean something: w lets its class listen on the rule's ports
 * (IBTICK_CONN_RULE_MODE_MASK in <linux/ibtick_netlink.h>).  Rules never
 * overlap: a rule that would share a port with another is refused, so
 * every port has at most one rule and the order rules were added in does
 * not matter.  The table is kept sorted by port.
 *
 * The verdict of listen() on a port:
 *  - CAP_NET_ADMIN may listen anywhere;
 *  - a port a rule covers: the rule decides (ibt_acl_permits, want
 *    IBT_ACL_LISTEN);
 *  - a port no rule covers: open to all, except below the privileged-port
 *    bound (net.ipv4.ip_unprivileged_port_start, 1024 by default), which
 *    needs CAP_NET_BIND_SERVICE, as for TCP.
 * (rdma_cm's bind() asks CAP_NET_BIND_SERVICE below that bound already,
 * so a rule there can only narrow who may listen; the check here holds
 * for a socket whose process dropped the capability after bind().)
 */
#ifndef _IBTICK_PORTRULE_H
#define _IBTICK_PORTRULE_H

#include <linux/types.h>

#include "acl.h"

#define IBT_ACL_LISTEN		IBT_ACL_WRITE
#define IBT_PORT_RULES_MAX	256

struct ibt_port_rule {
	u16		lo;
	u16		hi;
	struct ibt_acl	acl;
};

struct ibt_port_rules {
	u32			n;
	struct ibt_port_rule	r[IBT_PORT_RULES_MAX];	/* sorted, disjoint */
};

/* 1 <= @lo <= @hi <= 65535 */
bool ibt_port_range_valid(u32 lo, u32 hi);

/* A mode holding nothing but w bits (IBTICK_CONN_RULE_MODE_MASK). */
bool ibt_port_rule_mode_valid(u32 mode);

/* The rule that covers @port, or NULL. */
const struct ibt_port_rule *ibt_port_rules_find(const struct ibt_port_rules *t,
						u16 port);

/*
 * Add @r (its range valid).  0; -EEXIST when it overlaps a rule, whose
 * index is then in *@clash; -ENOSPC when the table is full.
 */
int ibt_port_rules_add(struct ibt_port_rules *t, const struct ibt_port_rule *r,
		       u32 *clash);

/* Delete the rule of exactly @lo..@hi: 0 or -ENOENT. */
int ibt_port_rules_del(struct ibt_port_rules *t, u16 lo, u16 hi);

/*
 * May a caller listen on a port?  @r: the port's rule or NULL; @uid the
 * caller's filesystem uid, @in_group whether it is in @r's group; @admin:
 * CAP_NET_ADMIN; @privileged: the port is below the privileged-port bound;
 * @bind_service: CAP_NET_BIND_SERVICE.  0 or -EACCES.
 */
int ibt_port_listen_verdict(const struct ibt_port_rule *r, kuid_t uid,
			    bool in_group, bool admin, bool privileged,
			    bool bind_service);

#endif /* _IBTICK_PORTRULE_H */
