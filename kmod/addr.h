/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct sockaddr_ibtick validation.  Pure logic.
 */
#ifndef _IBTICK_ADDR_H
#define _IBTICK_ADDR_H

#include <linux/types.h>
#include <linux/ibtick.h>

/*
 * A validated feed address (the key of a feed, with the device port), or
 * a feed named by its id (IBTICK_ADDR_FEED_ID: @feed_id set, the rest 0).
 */
struct ibt_addr {
	__be32	group;		/* IPv4 multicast group */
	u16	port;		/* feed port */
	u32	ifindex;	/* 0: the only active IB/RoCE port */
	u32	feed_id;	/* 0: by group and port */
};

/*
 * Check @len bytes at @sa (already copied from user space) against the
 * rules of struct sockaddr_ibtick, for address family number @family.
 * Returns 0 and fills @out, or:
 *   -EINVAL        short length, nonzero reserved bytes or unknown flags,
 *                  feed port 0, a group that is not IPv4 multicast, or one in
 *                  224.0.0.0/24 (link-local control, never a feed)
 *   -EAFNOSUPPORT  wrong sibt_family, or an AF_INET6 group (reserved)
 * With IBTICK_ADDR_FEED_ID: -EINVAL unless the group family, port,
 * ifindex and the group's last 12 bytes are 0 and the id is not.
 */
int ibt_addr_parse(const void *sa, int len, u16 family, struct ibt_addr *out);

/*
 * Does the address @want (as given) name the feed a socket reached through
 * @have (ifindex resolved)?  An unset ifindex matches any.
 */
bool ibt_addr_same(const struct ibt_addr *want, const struct ibt_addr *have);

/* The sockaddr_ibtick of @a, for family number @family. */
void ibt_addr_fill(const struct ibt_addr *a, u16 family,
		   struct sockaddr_ibtick *sa);

#endif /* _IBTICK_ADDR_H */
