// SPDX-License-Identifier: GPL-2.0
/*
 * Names and formatters (see names.h).
 */
#include <stdio.h>

#include <linux/ibtick_netlink.h>

#include "names.h"

#define NAME(tbl, i) \
	((i) < sizeof(tbl) / sizeof((tbl)[0]) && (tbl)[i] ? (tbl)[i] : "UNKNOWN")

const char *port_state_name(unsigned int state)
{
	static const char *const n[] = {
		[IBTICK_PORT_NOP]		= "NOP",
		[IBTICK_PORT_DOWN]		= "DOWN",
		[IBTICK_PORT_INIT]		= "INIT",
		[IBTICK_PORT_ARMED]		= "ARMED",
		[IBTICK_PORT_ACTIVE]		= "ACTIVE",
		[IBTICK_PORT_ACTIVE_DEFER]	= "ACTIVE_DEFER",
	};

	return NAME(n, state);
}

const char *port_phys_state_name(unsigned int phys)
{
	static const char *const n[] = {
		[IBTICK_PHYS_NOP]		= "NOP",
		[IBTICK_PHYS_SLEEP]		= "SLEEP",
		[IBTICK_PHYS_POLLING]		= "POLLING",
		[IBTICK_PHYS_DISABLED]		= "DISABLED",
		[IBTICK_PHYS_TRAINING]		= "TRAINING",
		[IBTICK_PHYS_LINK_UP]		= "LINK_UP",
		[IBTICK_PHYS_ERROR_RECOVERY]	= "LINK_ERROR_RECOVERY",
		[IBTICK_PHYS_TEST]		= "PHY_TEST",
	};

	return NAME(n, phys);
}

const char *link_layer_name(unsigned int ll)
{
	static const char *const n[] = {
		[IBTICK_LINK_LAYER_UNSPEC]	= "Unspecified",
		[IBTICK_LINK_LAYER_INFINIBAND]	= "InfiniBand",
		[IBTICK_LINK_LAYER_ETHERNET]	= "Ethernet",
	};

	return NAME(n, ll);
}

const char *node_type_name(unsigned int type)
{
	static const char *const n[] = {
		[IBTICK_NODE_UNSPEC]		= "unspecified",
		[IBTICK_NODE_CA]		= "ca",
		[IBTICK_NODE_SWITCH]		= "switch",
		[IBTICK_NODE_ROUTER]		= "router",
		[IBTICK_NODE_RNIC]		= "rnic",
		[IBTICK_NODE_USNIC]		= "usnic",
		[IBTICK_NODE_USNIC_UDP]		= "usnic_udp",
		[IBTICK_NODE_UNSPECIFIED]	= "unspecified",
	};

	return NAME(n, type);
}

char *fmt_guid(char *buf, size_t len, uint64_t guid)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

char *fmt_gbps(char *buf, size_t len, uint32_t mbps)
{
	unsigned int whole = mbps / 1000, frac = mbps % 1000;

	if (!frac)
		snprintf(buf, len, "%u", whole);
	else if (!(frac % 100))
		snprintf(buf, len, "%u.%u", whole, frac / 100);
	else if (!(frac % 10))
		snprintf(buf, len, "%u.%02u", whole, frac / 10);
	else
		snprintf(buf, len, "%u.%03u", whole, frac);
	return buf;
}
