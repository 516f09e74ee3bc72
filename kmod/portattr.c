// SPDX-License-Identifier: GPL-2.0
/*
 * Port attribute encodings (see portattr.h).  Pure logic.
 */
#include <linux/string.h>

#include "portattr.h"

u32 ibt_mtu_bytes(unsigned int mtu_code)
{
	/* IB_MTU_256 = 1 ... IB_MTU_4096 = 5 */
	if (mtu_code < 1 || mtu_code > 5)
		return 0;
	return 128U << mtu_code;
}

u8 ibt_width_lanes(unsigned int width_code)
{
	switch (width_code) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

u32 ibt_speed_mbps(unsigned int speed_code)
{
	/*
	 * Effective per-lane data rates, as ibstat and ibv_devinfo print them:
	 * FDR10 signals at 10.3125 Gb/s with 64b/66b and carries 10 Gb/s.
	 */
	switch (speed_code) {
	case 1:			/* SDR */
		return 2500;
	case 2:			/* DDR */
		return 5000;
	case 4:			/* QDR */
	case 8:			/* FDR10 */
		return 10000;
	case 16:		/* FDR */
		return 14000;
	case 32:		/* EDR */
		return 25000;
	case 64:		/* HDR */
		return 50000;
	case 128:		/* NDR */
		return 100000;
	case 256:		/* XDR */
		return 200000;
	default:
		return 0;
	}
}

u32 ibt_rate_mbps(unsigned int width_code, unsigned int speed_code)
{
	return ibt_width_lanes(width_code) * ibt_speed_mbps(speed_code);
}

bool ibt_ipoib_hwaddr_has_gid(const u8 *hwaddr, unsigned int len,
			      const u8 gid[16])
{
	if (!hwaddr || len != 20)
		return false;
	return !memcmp(hwaddr + 4, gid, 16);
}
