/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Port attribute encodings: InfiniBand PortInfo codes to plain numbers.
 *
 * Pure logic: no rdma/ or net/ includes, so KUnit runs it on UML.
 * The codes are the ones ib_core stores in struct ib_port_attr (IBA vol 1,
 * PortInfo: LinkWidthActive, LinkSpeedActive and extended speeds, NeighborMTU).
 */
#ifndef _IBTICK_PORTATTR_H
#define _IBTICK_PORTATTR_H

#include <linux/types.h>

/* IB MTU code (1..5) to bytes (256..4096); 0 for an unknown code. */
u32 ibt_mtu_bytes(unsigned int mtu_code);

/* LinkWidthActive bit to lanes (1x, 2x, 4x, 8x, 12x); 0 when unknown. */
u8 ibt_width_lanes(unsigned int width_code);

/* LinkSpeedActive bit to the per-lane data rate in Mb/s; 0 when unknown. */
u32 ibt_speed_mbps(unsigned int speed_code);

/* lanes x per-lane rate in Mb/s; 0 when either code is unknown. */
u32 ibt_rate_mbps(unsigned int width_code, unsigned int speed_code);

/*
 * An IPoIB hardware address is 20 bytes: 4 bytes of flags and QPN, then the
 * port GID.  True when @hwaddr (of @len bytes) carries @gid.
 */
bool ibt_ipoib_hwaddr_has_gid(const u8 *hwaddr, unsigned int len,
			      const u8 gid[16]);

#endif /* _IBTICK_PORTATTR_H */
