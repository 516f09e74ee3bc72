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

/* A validated connection address (SOCK_SEQPACKET). */
struct ibt_uaddr {
	__be32	addr;		/* IPv4 unicast, or INADDR_ANY (bind) */
	u16	port;		/* 0 only for bind: rdma_cm picks one */
	u32	ifindex;
};

/*
 * Check a connection's struct sockaddr_ibtick (@len bytes at @sa, copied
 * already): AF_INET, a unicast IPv4 address in the first 4 bytes of the
 * group and zeros after, no flags, reserved 0.  @any (bind) allows
 * INADDR_ANY and port 0.  Returns 0 and fills @out, or:
 *   -EINVAL        short, flags or reserved set, bytes after the address,
 *                  port 0 or INADDR_ANY where not allowed, a multicast,
 *                  broadcast or 0.0.0.0/8 address
 *   -EAFNOSUPPORT  wrong sibt_family, or AF_INET6 (reserved)
 */
int ibt_addr_parse_unicast(const void *sa, int len, u16 family, bool any,
			   struct ibt_uaddr *out);

/* The sockaddr_ibtick of @a, for family number @family. */
void ibt_addr_fill(const struct ibt_addr *a, u16 family,
		   struct sockaddr_ibtick *sa);

#endif /* _IBTICK_ADDR_H */
