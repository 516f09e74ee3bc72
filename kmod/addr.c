// SPDX-License-Identifier: GPL-2.0
/*
 * struct sockaddr_ibtick validation (see addr.h).  Pure logic.
 */
#include <linux/errno.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "addr.h"

int ibt_addr_parse(const void *sa, int len, u16 family, struct ibt_addr *out)
{
	static const u8 zero[12];
	struct sockaddr_ibtick a;
	u32 group;

	if (len < (int)sizeof(a))
		return -EINVAL;
	memcpy(&a, sa, sizeof(a));
	if (a.sibt_family != family)
		return -EAFNOSUPPORT;
	if (a.sibt_flags == IBTICK_ADDR_FEED_ID) {
		memcpy(&out->feed_id, a.sibt_group, 4);
		if (a.sibt_group_family != AF_UNSPEC || a.sibt_reserved ||
		    a.sibt_port || a.sibt_ifindex || !out->feed_id ||
		    memcmp(a.sibt_group + 4, zero, sizeof(zero)))
			return -EINVAL;
		out->group = 0;
		out->port = 0;
		out->ifindex = 0;
		return 0;
	}
	if (a.sibt_group_family == AF_INET6)
		return -EAFNOSUPPORT;
	if (a.sibt_group_family != AF_INET || a.sibt_reserved || a.sibt_flags)
		return -EINVAL;
	if (memcmp(a.sibt_group + 4, zero, sizeof(zero)))
		return -EINVAL;
	if (!a.sibt_port)
		return -EINVAL;
	memcpy(&group, a.sibt_group, 4);
	group = be32_to_cpu((__force __be32)group);
	/* 224.0.0.0/4, minus the link-local control block 224.0.0.0/24 */
	if ((group & 0xf0000000) != 0xe0000000 || (group & 0xffffff00) == 0xe0000000)
		return -EINVAL;
	out->group = cpu_to_be32(group);
	out->port = a.sibt_port;
	out->ifindex = a.sibt_ifindex;
	out->feed_id = 0;
	return 0;
}

int ibt_addr_parse_unicast(const void *sa, int len, u16 family, bool any,
			   struct ibt_uaddr *out)
{
	static const u8 zero[12];
	struct sockaddr_ibtick a;
	u32 ip;

	if (len < (int)sizeof(a))
		return -EINVAL;
	memcpy(&a, sa, sizeof(a));
	if (a.sibt_family != family)
		return -EAFNOSUPPORT;
	if (a.sibt_group_family == AF_INET6)
		return -EAFNOSUPPORT;
	if (a.sibt_group_family != AF_INET || a.sibt_reserved || a.sibt_flags ||
	    memcmp(a.sibt_group + 4, zero, sizeof(zero)))
		return -EINVAL;
	memcpy(&ip, a.sibt_group, 4);
	ip = be32_to_cpu((__force __be32)ip);
	if (!ip || !a.sibt_port) {
		if (!any)
			return -EINVAL;
	}
	/* multicast, class E, broadcast, and 0.0.0.0/8 but 0.0.0.0 itself */
	if (ip >= 0xe0000000 || (ip && !(ip >> 24)))
		return -EINVAL;
	out->addr = cpu_to_be32(ip);
	out->port = a.sibt_port;
	out->ifindex = a.sibt_ifindex;
	return 0;
}

bool ibt_addr_same(const struct ibt_addr *want, const struct ibt_addr *have)
{
	return want->feed_id == have->feed_id && want->group == have->group &&
	       want->port == have->port &&
	       (!want->ifindex || want->ifindex == have->ifindex);
}

void ibt_addr_fill(const struct ibt_addr *a, u16 family,
		   struct sockaddr_ibtick *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = family;
	if (a->feed_id) {
		sa->sibt_flags = IBTICK_ADDR_FEED_ID;
		memcpy(sa->sibt_group, &a->feed_id, 4);
		return;
	}
	sa->sibt_port = a->port;
	sa->sibt_ifindex = a->ifindex;
	sa->sibt_group_family = AF_INET;
	memcpy(sa->sibt_group, &a->group, 4);
}
