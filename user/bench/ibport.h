/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perftest's way of naming the local side - an RDMA device (-d), its port
 * (-i) and a GID index (-x) - turned into the netdev an ibtick feed is
 * bound to, from sysfs.
 */
#ifndef IBTICK_IBPORT_H
#define IBTICK_IBPORT_H

#include <stddef.h>

/*
 * The netdev of port @port of RDMA device @dev, GID index @gid, read under
 * @sysfs (normally "/sys"):
 *   RoCE (link_layer Ethernet): the netdev of that GID table entry
 *     (ports/PORT/gid_attrs/ndevs/GID), so that -x picks a VLAN's;
 *   InfiniBand: the IPoIB netdev of that device and port (class/net/IF
 *     whose device/infiniband/ holds @dev and whose dev_port is @port - 1;
 *     the first by name, so ib0 rather than its P_Key children); @gid must
 *     be 0 there: GID entries have no netdev on InfiniBand.
 * Returns 0 with the name in @ifname, or -1 with the reason in @why.
 */
int ibport_netdev(const char *sysfs, const char *dev, unsigned int port,
		  unsigned int gid, char *ifname, size_t len, char *why,
		  size_t wlen);

#endif
