/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ibtick generic netlink interface.
 *
 * Family name IBTICK_GENL_NAME, version IBTICK_GENL_VERSION.  The family is
 * registered in init_net only (netnsok is off): RDMA devices and the feeds
 * built on them are host-wide objects in this version.
 *
 * Conventions, kept by every command:
 *  - attributes are validated strictly by per-command policies; an invalid,
 *    unknown or missing attribute is refused with an extended ACK that names
 *    it (enable NETLINK_EXT_ACK on the socket to read the message);
 *  - integers are host byte order; u64 values are aligned with *_PAD;
 *  - dumps set NLM_F_DUMP_INTR when the set of objects changed while the dump
 *    ran; user space restarts the dump.
 */
#ifndef _UAPI_LINUX_IBTICK_NETLINK_H
#define _UAPI_LINUX_IBTICK_NETLINK_H

#define IBTICK_GENL_NAME	"ibtick"
#define IBTICK_GENL_VERSION	1

enum {
	IBTICK_CMD_UNSPEC,
	IBTICK_CMD_DEV_GET,	/* doit: one device (DEV_INDEX or DEV_NAME);
				 * dumpit: every RDMA device ibtick sees
				 */

	/* add new commands above here */
	__IBTICK_CMD_CNT,
	IBTICK_CMD_MAX = __IBTICK_CMD_CNT - 1
};

/* Attributes of IBTICK_CMD_DEV_GET requests and replies. */
enum {
	IBTICK_A_DEV_UNSPEC,
	IBTICK_A_DEV_PAD,
	IBTICK_A_DEV_INDEX,		/* u32: ib_device index (rdma dev -d) */
	IBTICK_A_DEV_NAME,		/* string, e.g. "mlx5_0" */
	IBTICK_A_DEV_NODE_GUID,		/* u64 */
	IBTICK_A_DEV_SYS_IMAGE_GUID,	/* u64 */
	IBTICK_A_DEV_FW_VER,		/* string, may be empty */
	IBTICK_A_DEV_NODE_TYPE,		/* u8: enum ibtick_node_type */
	IBTICK_A_DEV_NUM_PORTS,		/* u32 */
	IBTICK_A_DEV_PORT,		/* nest: IBTICK_A_PORT_*, one per port */

	/* add new constants above here */
	__IBTICK_A_DEV_CNT,
	IBTICK_A_DEV_MAX = __IBTICK_A_DEV_CNT - 1
};

/* Attributes nested in IBTICK_A_DEV_PORT. */
enum {
	IBTICK_A_PORT_UNSPEC,
	IBTICK_A_PORT_PAD,
	IBTICK_A_PORT_NUM,		/* u32: 1-based port number */
	IBTICK_A_PORT_STATE,		/* u8: enum ibtick_port_state */
	IBTICK_A_PORT_PHYS_STATE,	/* u8: enum ibtick_port_phys_state */
	IBTICK_A_PORT_LINK_LAYER,	/* u8: enum ibtick_link_layer */
	IBTICK_A_PORT_ACTIVE_MTU,	/* u32: bytes (256..4096) */
	IBTICK_A_PORT_MAX_MTU,		/* u32: bytes */
	IBTICK_A_PORT_WIDTH,		/* u8: lanes (1, 2, 4, 8, 12) */
	IBTICK_A_PORT_SPEED,		/* u32: per-lane signalling, Mb/s */
	IBTICK_A_PORT_RATE,		/* u32: width x speed, Mb/s */
	IBTICK_A_PORT_GID0,		/* binary[16]: GID table entry 0 */
	IBTICK_A_PORT_LID,		/* u32: IB only */
	IBTICK_A_PORT_SM_LID,		/* u32: IB only */
	IBTICK_A_PORT_LMC,		/* u8: IB only */
	IBTICK_A_PORT_NETDEV_IFINDEX,	/* u32: IPoIB (IB) / Ethernet (RoCE) */
	IBTICK_A_PORT_NETDEV_NAME,	/* string */
	IBTICK_A_PORT_EVENTS,		/* nest: IBTICK_A_EVCNT_* */

	/* add new constants above here */
	__IBTICK_A_PORT_CNT,
	IBTICK_A_PORT_MAX = __IBTICK_A_PORT_CNT - 1
};

/*
 * Port events counted since ibtick first saw the device (monotonic, never
 * reset; nested in IBTICK_A_PORT_EVENTS).
 */
enum {
	IBTICK_A_EVCNT_UNSPEC,
	IBTICK_A_EVCNT_PAD,
	IBTICK_A_EVCNT_PORT_ACTIVE,	/* u64 */
	IBTICK_A_EVCNT_PORT_ERR,	/* u64 */
	IBTICK_A_EVCNT_LID_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_PKEY_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_SM_CHANGE,	/* u64 */
	IBTICK_A_EVCNT_CLIENT_REREG,	/* u64 */
	IBTICK_A_EVCNT_GID_CHANGE,	/* u64 */

	/* add new constants above here */
	__IBTICK_A_EVCNT_CNT,
	IBTICK_A_EVCNT_MAX = __IBTICK_A_EVCNT_CNT - 1
};

/* Values follow the InfiniBand PortInfo encodings. */
enum ibtick_port_state {
	IBTICK_PORT_NOP,
	IBTICK_PORT_DOWN,
	IBTICK_PORT_INIT,
	IBTICK_PORT_ARMED,
	IBTICK_PORT_ACTIVE,
	IBTICK_PORT_ACTIVE_DEFER,
};

enum ibtick_port_phys_state {
	IBTICK_PHYS_NOP,
	IBTICK_PHYS_SLEEP,
	IBTICK_PHYS_POLLING,
	IBTICK_PHYS_DISABLED,
	IBTICK_PHYS_TRAINING,
	IBTICK_PHYS_LINK_UP,
	IBTICK_PHYS_ERROR_RECOVERY,
	IBTICK_PHYS_TEST,
};

enum ibtick_link_layer {
	IBTICK_LINK_LAYER_UNSPEC,
	IBTICK_LINK_LAYER_INFINIBAND,
	IBTICK_LINK_LAYER_ETHERNET,
};

enum ibtick_node_type {
	IBTICK_NODE_UNSPEC,
	IBTICK_NODE_CA,
	IBTICK_NODE_SWITCH,
	IBTICK_NODE_ROUTER,
	IBTICK_NODE_RNIC,
	IBTICK_NODE_USNIC,
	IBTICK_NODE_USNIC_UDP,
	IBTICK_NODE_UNSPECIFIED,
};

#endif /* _UAPI_LINUX_IBTICK_NETLINK_H */
