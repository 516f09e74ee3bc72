// SPDX-License-Identifier: GPL-2.0
/*
 * Names and formatters against the spellings of rdma(8) and ibv_devinfo(1).
 */
#include <linux/ibtick_netlink.h>

#include "names.h"
#include "unit.h"

static void names_states(void)
{
	CHECK_STR(port_state_name(IBTICK_PORT_ACTIVE), "ACTIVE");
	CHECK_STR(port_state_name(IBTICK_PORT_DOWN), "DOWN");
	CHECK_STR(port_state_name(99), "UNKNOWN");
	CHECK_STR(port_phys_state_name(IBTICK_PHYS_LINK_UP), "LINK_UP");
	CHECK_STR(port_phys_state_name(IBTICK_PHYS_DISABLED), "DISABLED");
	CHECK_STR(port_phys_state_name(8), "UNKNOWN");
	CHECK_STR(link_layer_name(IBTICK_LINK_LAYER_ETHERNET), "Ethernet");
	CHECK_STR(link_layer_name(IBTICK_LINK_LAYER_INFINIBAND), "InfiniBand");
	CHECK_STR(link_layer_name(3), "UNKNOWN");
	CHECK_STR(node_type_name(IBTICK_NODE_CA), "ca");
	CHECK_STR(node_type_name(255), "UNKNOWN");
}

static void names_guid(void)
{
	char b[24];

	CHECK_STR(fmt_guid(b, sizeof(b), 0x505400fffe123456ULL),
		  "5054:00ff:fe12:3456");
	CHECK_STR(fmt_guid(b, sizeof(b), 0), "0000:0000:0000:0000");
	CHECK_STR(fmt_guid(b, sizeof(b), ~0ULL), "ffff:ffff:ffff:ffff");
}

static void names_gbps(void)
{
	char b[16];

	CHECK_STR(fmt_gbps(b, sizeof(b), 2500), "2.5");
	CHECK_STR(fmt_gbps(b, sizeof(b), 56000), "56");
	CHECK_STR(fmt_gbps(b, sizeof(b), 10312), "10.312");
	CHECK_STR(fmt_gbps(b, sizeof(b), 10250), "10.25");
	CHECK_STR(fmt_gbps(b, sizeof(b), 0), "0");
	CHECK_STR(fmt_gbps(b, sizeof(b), 400000), "400");
}

const struct unit_case names_cases[] = {
	{ "names: port states and layers", names_states },
	{ "names: guid format", names_guid },
	{ "names: rate format", names_gbps },
	{ NULL }
};
