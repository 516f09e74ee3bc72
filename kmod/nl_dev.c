// SPDX-License-Identifier: GPL-2.0
/*
 * IBTICK_CMD_DEV_GET: RDMA devices and their ports, as ibtick sees them.
 */
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include <linux/ibtick_netlink.h>

#include "ibt.h"
#include "portattr.h"

static u8 ibt_link_layer(struct ib_device *ibdev, u32 port)
{
	switch (rdma_port_get_link_layer(ibdev, port)) {
	case IB_LINK_LAYER_INFINIBAND:
		return IBTICK_LINK_LAYER_INFINIBAND;
	case IB_LINK_LAYER_ETHERNET:
		return IBTICK_LINK_LAYER_ETHERNET;
	default:
		return IBTICK_LINK_LAYER_UNSPEC;
	}
}

/* The port's event counters, in IBT_EV_* order (the uapi's EVCNT order). */
static int ibt_fill_evcnt(struct sk_buff *skb, const struct ibt_port *p)
{
	u64 v[IBT_EV_CNT];
	int i;

	BUILD_BUG_ON(IBT_EV_CNT !=
		     IBTICK_A_EVCNT_MAX - IBTICK_A_EVCNT_PORT_ACTIVE + 1);
	BUILD_BUG_ON(IBTICK_A_EVCNT_GID_CHANGE - IBTICK_A_EVCNT_PORT_ACTIVE !=
		     IBT_EV_GID_CHANGE);
	for (i = 0; i < IBT_EV_CNT; i++)
		v[i] = atomic64_read(&p->evcnt[i]);
	return ibt_nl_put_counters(skb, IBTICK_A_PORT_EVENTS,
				   IBTICK_A_EVCNT_PORT_ACTIVE, v, IBT_EV_CNT,
				   IBTICK_A_EVCNT_PAD);
}

/* Context: process, ibt_devs_lock held (keeps d->ibdev alive). */
static int ibt_fill_port(struct sk_buff *skb, struct ibt_dev *d,
			 const struct ibt_port *p)
{
	struct ib_device *ibdev = d->ibdev;
	char ndname[IFNAMSIZ];
	struct ib_port_attr pa;
	struct nlattr *nest;
	union ib_gid gid;
	bool have_gid;
	int ifindex;
	int err;

	err = ib_query_port(ibdev, p->num, &pa);
	if (err)
		return err;
	have_gid = !rdma_query_gid(ibdev, p->num, 0, &gid);

	nest = nla_nest_start(skb, IBTICK_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, IBTICK_A_PORT_NUM, p->num) ||
	    nla_put_u8(skb, IBTICK_A_PORT_STATE, pa.state) ||
	    nla_put_u8(skb, IBTICK_A_PORT_PHYS_STATE, pa.phys_state) ||
	    nla_put_u8(skb, IBTICK_A_PORT_LINK_LAYER,
		       ibt_link_layer(ibdev, p->num)) ||
	    nla_put_u32(skb, IBTICK_A_PORT_ACTIVE_MTU,
			ibt_mtu_bytes(pa.active_mtu)) ||
	    nla_put_u32(skb, IBTICK_A_PORT_MAX_MTU, ibt_mtu_bytes(pa.max_mtu)) ||
	    nla_put_u8(skb, IBTICK_A_PORT_WIDTH,
		       ibt_width_lanes(pa.active_width)) ||
	    nla_put_u32(skb, IBTICK_A_PORT_SPEED,
			ibt_speed_mbps(pa.active_speed)) ||
	    nla_put_u32(skb, IBTICK_A_PORT_RATE,
			ibt_rate_mbps(pa.active_width, pa.active_speed)))
		goto cancel;
	if (have_gid &&
	    nla_put(skb, IBTICK_A_PORT_GID0, sizeof(gid.raw), gid.raw))
		goto cancel;
	if (rdma_protocol_ib(ibdev, p->num) &&
	    (nla_put_u32(skb, IBTICK_A_PORT_LID, pa.lid) ||
	     nla_put_u32(skb, IBTICK_A_PORT_SM_LID, pa.sm_lid) ||
	     nla_put_u8(skb, IBTICK_A_PORT_LMC, pa.lmc)))
		goto cancel;
	if (!ibt_port_netdev(ibdev, p->num, have_gid ? &gid : NULL,
			     &ifindex, ndname) &&
	    (nla_put_u32(skb, IBTICK_A_PORT_NETDEV_IFINDEX, ifindex) ||
	     nla_put_string(skb, IBTICK_A_PORT_NETDEV_NAME, ndname)))
		goto cancel;
	if (ibt_fill_evcnt(skb, p))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int ibt_fill_dev(struct sk_buff *skb, struct ibt_dev *d)
{
	struct ib_device *ibdev = d->ibdev;
	char fw[IB_FW_VERSION_NAME_MAX];
	u32 i;
	int err;

	ib_get_device_fw_str(ibdev, fw);
	if (!fw[0])	/* no driver string: the numeric one, as ibv_devinfo */
		snprintf(fw, sizeof(fw), "%u.%u.%u",
			 (u32)(ibdev->attrs.fw_ver >> 32) & 0xffff,
			 (u32)(ibdev->attrs.fw_ver >> 16) & 0xffff,
			 (u32)ibdev->attrs.fw_ver & 0xffff);
	if (nla_put_u32(skb, IBTICK_A_DEV_INDEX, d->index) ||
	    nla_put_string(skb, IBTICK_A_DEV_NAME, d->name) ||
	    nla_put_u64_64bit(skb, IBTICK_A_DEV_NODE_GUID,
			      be64_to_cpu(ibdev->node_guid), IBTICK_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, IBTICK_A_DEV_SYS_IMAGE_GUID,
			      be64_to_cpu(ibdev->attrs.sys_image_guid),
			      IBTICK_A_DEV_PAD) ||
	    nla_put_string(skb, IBTICK_A_DEV_FW_VER, fw) ||
	    nla_put_u8(skb, IBTICK_A_DEV_NODE_TYPE, ibdev->node_type) ||
	    nla_put_u32(skb, IBTICK_A_DEV_NUM_PORTS, d->nports))
		return -EMSGSIZE;
	for (i = 0; i < d->nports; i++) {
		err = ibt_fill_port(skb, d, &d->ports[i]);
		if (err)
			return err;
	}
	return 0;
}

/* Context: process. */
int ibt_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *key;
	struct sk_buff *msg;
	struct ibt_dev *d;
	void *hdr;
	int err;

	key = tb[IBTICK_A_DEV_NAME] ?: tb[IBTICK_A_DEV_INDEX];
	if (!key) {
		NL_SET_ERR_MSG(info->extack,
			       "device index or name required (or use a dump)");
		return -EINVAL;
	}

	msg = ibt_nl_reply_begin(info, IBTICK_CMD_DEV_GET, &hdr);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&ibt_devs_lock);
	d = ibt_dev_find_locked(tb[IBTICK_A_DEV_NAME] ? 0 : nla_get_u32(key),
				tb[IBTICK_A_DEV_NAME] ? nla_data(key) : NULL);
	if (d) {
		err = ibt_fill_dev(msg, d);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, key,
				    "no such RDMA device (or not IB/RoCE)");
		err = -ENODEV;
	}
	mutex_unlock(&ibt_devs_lock);
	return ibt_nl_reply_end(info, msg, hdr, err);
}

/* Context: process; called until it returns 0 (done). */
int ibt_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ibt_nl_dump_ctx *ctx = ibt_nl_dump_ctx(cb);
	struct ibt_dev *d;
	void *hdr;
	int err = 0;

	mutex_lock(&ibt_devs_lock);
	cb->seq = ibt_devs_gen;
	list_for_each_entry(d, &ibt_devs, list) {
		if (d->index < ctx->next)
			continue;
		hdr = ibt_nl_dump_begin(skb, cb, IBTICK_CMD_DEV_GET);
		err = ibt_nl_dump_end(skb, hdr, hdr ? ibt_fill_dev(skb, d) : 0);
		if (err)
			break;
		ctx->next = d->index + 1;
	}
	mutex_unlock(&ibt_devs_lock);
	return ibt_nl_dump_done(skb, err);
}
