// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick dev: the RDMA devices and ports ibtick can build feeds on.
 *
 *   ibtick [-d] [-s] dev show [DEV]
 *
 * Plain output: what a device and its ports are and their state.  -d adds
 * what the kernel sends besides: the port count, the netdev's index, the
 * largest MTU, GID 0, the SM's LID and the LMC (IB), and the per-port
 * event counters (also shown by -s, with the sysfs counters).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "ibtick.h"
#include "names.h"
#include "nl.h"
#include "out.h"
#include "portctr.h"

static const char *const dev_attr_names[] = {
	[IBTICK_A_DEV_INDEX]	= "IBTICK_A_DEV_INDEX",
	[IBTICK_A_DEV_NAME]	= "IBTICK_A_DEV_NAME",
};

struct nla_policy dev_reply_policy[IBTICK_A_DEV_MAX + 1] = {
	[IBTICK_A_DEV_INDEX]		= { .type = NLA_U32 },
	[IBTICK_A_DEV_NAME]		= { .type = NLA_STRING },
	[IBTICK_A_DEV_NODE_GUID]	= { .type = NLA_U64 },
	[IBTICK_A_DEV_SYS_IMAGE_GUID]	= { .type = NLA_U64 },
	[IBTICK_A_DEV_FW_VER]		= { .type = NLA_STRING },
	[IBTICK_A_DEV_NODE_TYPE]	= { .type = NLA_U8 },
	[IBTICK_A_DEV_NUM_PORTS]	= { .type = NLA_U32 },
	[IBTICK_A_DEV_PORT]		= { .type = NLA_NESTED },
};

struct nla_policy dev_port_policy[IBTICK_A_PORT_MAX + 1] = {
	[IBTICK_A_PORT_NUM]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_STATE]		= { .type = NLA_U8 },
	[IBTICK_A_PORT_PHYS_STATE]	= { .type = NLA_U8 },
	[IBTICK_A_PORT_LINK_LAYER]	= { .type = NLA_U8 },
	[IBTICK_A_PORT_ACTIVE_MTU]	= { .type = NLA_U32 },
	[IBTICK_A_PORT_MAX_MTU]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_WIDTH]		= { .type = NLA_U8 },
	[IBTICK_A_PORT_SPEED]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_RATE]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_GID0]		= { .minlen = 16, .maxlen = 16 },
	[IBTICK_A_PORT_LID]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_SM_LID]		= { .type = NLA_U32 },
	[IBTICK_A_PORT_LMC]		= { .type = NLA_U8 },
	[IBTICK_A_PORT_NETDEV_IFINDEX]	= { .type = NLA_U32 },
	[IBTICK_A_PORT_NETDEV_NAME]	= { .type = NLA_STRING },
	[IBTICK_A_PORT_EVENTS]		= { .type = NLA_NESTED },
};

struct nla_policy dev_evcnt_policy[IBTICK_A_EVCNT_MAX + 1] = {
	[IBTICK_A_EVCNT_PORT_ACTIVE]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_PORT_ERR]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_LID_CHANGE]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_PKEY_CHANGE]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_SM_CHANGE]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_CLIENT_REREG]	= { .type = NLA_U64 },
	[IBTICK_A_EVCNT_GID_CHANGE]	= { .type = NLA_U64 },
};

const struct ibt_nl_obj dev_obj = {
	.maxattr	= IBTICK_A_DEV_MAX,
	.policy		= dev_reply_policy,
	.attr_names	= dev_attr_names,
	.n_names	= sizeof(dev_attr_names) / sizeof(dev_attr_names[0]),
};

const char *const dev_evcnt_keys[IBTICK_A_EVCNT_MAX + 1] = {
	[IBTICK_A_EVCNT_PORT_ACTIVE]	= "port_active",
	[IBTICK_A_EVCNT_PORT_ERR]	= "port_err",
	[IBTICK_A_EVCNT_LID_CHANGE]	= "lid_change",
	[IBTICK_A_EVCNT_PKEY_CHANGE]	= "pkey_change",
	[IBTICK_A_EVCNT_SM_CHANGE]	= "sm_change",
	[IBTICK_A_EVCNT_CLIENT_REREG]	= "client_reregister",
	[IBTICK_A_EVCNT_GID_CHANGE]	= "gid_change",
};

static void dev_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick dev show [ DEV ]\n"
		"       ibtick dev help\n");
}

static void print_events(struct cli *c, struct nlattr *nest)
{
	struct nlattr *tb[IBTICK_A_EVCNT_MAX + 1];
	int i;

	if (nla_parse_nested(tb, IBTICK_A_EVCNT_MAX, nest, dev_evcnt_policy) < 0)
		return;
	if (!c->details && !c->stats)
		return;
	out_text("\n        events");
	out_obj_open("events");
	for (i = 1; i <= IBTICK_A_EVCNT_MAX; i++) {
		if (!tb[i] || !dev_evcnt_keys[i])
			continue;
		out_counter(dev_evcnt_keys[i], nla_get_u64(tb[i]));
	}
	out_obj_close();
}

static char cur_dev[64];	/* the device print_port's port belongs to */

struct sysfs_line {
	int	n;
};

static void print_one_ctr(const char *key, uint64_t v, void *arg)
{
	struct sysfs_line *l = arg;

	if (l->n++ % 4 == 0)
		out_text("\n          ");
	out_counter(key, v);
}

/* -s: the port's sysfs counters (InfiniBand PMA and driver hw counters) */
static void print_sysfs(const char *dev, unsigned int port, const char *sub)
{
	struct sysfs_line l = { 0 };

	out_text("\n        %s", sub);
	out_obj_open(sub);
	if (!sysfs_port_counters(dev, port, sub, print_one_ctr, &l))
		out_text(" none (software device or no PMA)");
	out_obj_close();
}

static int print_port(struct cli *c, struct nlattr *nest)
{
	struct nlattr *tb[IBTICK_A_PORT_MAX + 1];
	char buf[INET6_ADDRSTRLEN], rate[16], speed[16];
	uint8_t ll;

	if (nla_parse_nested(tb, IBTICK_A_PORT_MAX, nest, dev_port_policy) < 0 ||
	    !tb[IBTICK_A_PORT_NUM]) {
		fprintf(stderr, "ibtick: malformed port in the kernel's reply\n");
		return -1;
	}
	ll = tb[IBTICK_A_PORT_LINK_LAYER] ?
		nla_get_u8(tb[IBTICK_A_PORT_LINK_LAYER]) : 0;

	out_obj_open(NULL);
	out_u64("port", "    port %" PRIu64, nla_get_u32(tb[IBTICK_A_PORT_NUM]));
	if (tb[IBTICK_A_PORT_STATE])
		out_str("state", " state %s",
			port_state_name(nla_get_u8(tb[IBTICK_A_PORT_STATE])));
	if (tb[IBTICK_A_PORT_PHYS_STATE])
		out_str("physical_state", " physical_state %s",
			port_phys_state_name(nla_get_u8(tb[IBTICK_A_PORT_PHYS_STATE])));
	out_str("link_layer", " link_layer %s", link_layer_name(ll));
	if (tb[IBTICK_A_PORT_NETDEV_NAME])
		out_str("netdev", " netdev %s",
			nla_get_string(tb[IBTICK_A_PORT_NETDEV_NAME]));
	if (c->details && tb[IBTICK_A_PORT_NETDEV_IFINDEX])
		out_u64("netdev_index", " netdev_index %" PRIu64,
			nla_get_u32(tb[IBTICK_A_PORT_NETDEV_IFINDEX]));
	out_text("\n       ");
	if (tb[IBTICK_A_PORT_ACTIVE_MTU])
		out_u64("active_mtu", " mtu %" PRIu64,
			nla_get_u32(tb[IBTICK_A_PORT_ACTIVE_MTU]));
	if (c->details && tb[IBTICK_A_PORT_MAX_MTU])
		out_u64("max_mtu", " max_mtu %" PRIu64,
			nla_get_u32(tb[IBTICK_A_PORT_MAX_MTU]));
	if (tb[IBTICK_A_PORT_RATE] && tb[IBTICK_A_PORT_WIDTH] &&
	    tb[IBTICK_A_PORT_SPEED]) {
		uint32_t r = nla_get_u32(tb[IBTICK_A_PORT_RATE]);
		uint32_t s = nla_get_u32(tb[IBTICK_A_PORT_SPEED]);
		uint8_t w = nla_get_u8(tb[IBTICK_A_PORT_WIDTH]);

		out_text(" rate %s Gb/s (%ux %s Gb/s)",
			 fmt_gbps(rate, sizeof(rate), r), w,
			 fmt_gbps(speed, sizeof(speed), s));
		out_u64("rate_mbps", NULL, r);
		out_u64("width", NULL, w);
		out_u64("speed_mbps", NULL, s);
	}
	if (c->details && tb[IBTICK_A_PORT_GID0] &&
	    inet_ntop(AF_INET6, nla_data(tb[IBTICK_A_PORT_GID0]), buf, sizeof(buf)))
		out_str("gid0", " gid0 %s", buf);
	if (tb[IBTICK_A_PORT_LID]) {
		out_text("\n       ");
		out_u64("lid", " lid %" PRIu64, nla_get_u32(tb[IBTICK_A_PORT_LID]));
		if (c->details && tb[IBTICK_A_PORT_SM_LID])
			out_u64("sm_lid", " sm_lid %" PRIu64,
				nla_get_u32(tb[IBTICK_A_PORT_SM_LID]));
		if (c->details && tb[IBTICK_A_PORT_LMC])
			out_u64("lmc", " lmc %" PRIu64,
				nla_get_u8(tb[IBTICK_A_PORT_LMC]));
	}
	if (tb[IBTICK_A_PORT_EVENTS])
		print_events(c, tb[IBTICK_A_PORT_EVENTS]);
	if (c->stats) {
		unsigned int num = nla_get_u32(tb[IBTICK_A_PORT_NUM]);

		print_sysfs(cur_dev, num, "counters");
		print_sysfs(cur_dev, num, "hw_counters");
	}
	out_obj_close();
	out_nl();
	return 0;
}

static int print_dev(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct cli *c = arg;
	struct nlattr *a;
	char guid[24];
	int rem;

	if (!tb[IBTICK_A_DEV_INDEX] || !tb[IBTICK_A_DEV_NAME]) {
		fprintf(stderr, "ibtick: malformed device in the kernel's reply\n");
		return -1;
	}
	out_obj_open(NULL);
	out_u64("ifindex", "%" PRIu64 ": ", nla_get_u32(tb[IBTICK_A_DEV_INDEX]));
	out_str("ifname", "%s:", nla_get_string(tb[IBTICK_A_DEV_NAME]));
	if (tb[IBTICK_A_DEV_NODE_TYPE])
		out_str("node_type", " node_type %s",
			node_type_name(nla_get_u8(tb[IBTICK_A_DEV_NODE_TYPE])));
	if (tb[IBTICK_A_DEV_FW_VER])
		out_str("fw", " fw %s", nla_get_string(tb[IBTICK_A_DEV_FW_VER]));
	if (tb[IBTICK_A_DEV_NODE_GUID])
		out_str("node_guid", " node_guid %s",
			fmt_guid(guid, sizeof(guid),
				 nla_get_u64(tb[IBTICK_A_DEV_NODE_GUID])));
	if (tb[IBTICK_A_DEV_SYS_IMAGE_GUID])
		out_str("sys_image_guid", " sys_image_guid %s",
			fmt_guid(guid, sizeof(guid),
				 nla_get_u64(tb[IBTICK_A_DEV_SYS_IMAGE_GUID])));
	if (c->details && tb[IBTICK_A_DEV_NUM_PORTS])
		out_u64("num_ports", " num_ports %" PRIu64,
			nla_get_u32(tb[IBTICK_A_DEV_NUM_PORTS]));
	out_nl();
	snprintf(cur_dev, sizeof(cur_dev), "%s", nla_get_string(tb[IBTICK_A_DEV_NAME]));
	out_arr_open("ports");
	/* repeated IBTICK_A_DEV_PORT nests: walk the whole payload */
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(a) == IBTICK_A_DEV_PORT && print_port(c, a)) {
			out_arr_close();	/* JSON stays well formed */
			out_obj_close();
			return -1;
		}
	}
	out_arr_close();
	out_obj_close();
	return 0;
}

static int dev_show(struct cli *c)
{
	struct ibt_nl_req req = {
		.obj = &dev_obj, .cmd = IBTICK_CMD_DEV_GET, .flags = NLM_F_DUMP,
		.name_attr = IBTICK_A_DEV_NAME, .cb = print_dev, .arg = c,
		.array = true,
	};

	req.name = cli_next(c);
	if (cli_end(c, dev_usage))
		return EXIT_USAGE;
	if (req.name)
		req.flags = 0;
	return ibt_nl_request(&req);
}

static const struct cli_cmd dev_cmds[] = {
	{ "show",	dev_show },
	{ "list",	dev_show },
	{ NULL }
};

int cmd_dev(struct cli *c)
{
	return cli_dispatch(c, dev_cmds, "dev", dev_usage);
}
