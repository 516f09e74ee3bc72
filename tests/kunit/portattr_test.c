// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: port attribute encodings (kmod/portattr.c).
 */
#include <kunit/test.h>

#include "portattr.h"

static void portattr_mtu(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(0), 0U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(1), 256U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(2), 512U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(3), 1024U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(4), 2048U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(5), 4096U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(6), 0U);
	KUNIT_EXPECT_EQ(test, ibt_mtu_bytes(~0U), 0U);
}

static void portattr_width(struct kunit *test)
{
	static const unsigned int code[] = { 1, 2, 4, 8, 16 };
	static const u8 lanes[] = { 1, 4, 8, 12, 2 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(code); i++)
		KUNIT_EXPECT_EQ(test, ibt_width_lanes(code[i]), lanes[i]);
	/* not a single bit, or an unassigned one */
	KUNIT_EXPECT_EQ(test, ibt_width_lanes(0), 0);
	KUNIT_EXPECT_EQ(test, ibt_width_lanes(3), 0);
	KUNIT_EXPECT_EQ(test, ibt_width_lanes(32), 0);
}

static void portattr_rate(struct kunit *test)
{
	/* 4x FDR is the classic 56 Gb/s, 4x EDR 100, 4x HDR 200, 1x SDR 2.5 */
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 16), 56000U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 32), 100000U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 64), 200000U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(1, 1), 2500U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(8, 4), 120000U);	/* 12x QDR */
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 8), 40000U);	/* 4x FDR10 */
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(16, 128), 200000U);	/* 2x NDR */
	/* an unknown half makes the whole rate unknown */
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 0), 0U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(0, 32), 0U);
	KUNIT_EXPECT_EQ(test, ibt_rate_mbps(2, 512), 0U);
}

static void portattr_ipoib_hwaddr(struct kunit *test)
{
	u8 gid[16], hw[20];
	unsigned int i;

	for (i = 0; i < 16; i++)
		gid[i] = 0xf0 + i;
	hw[0] = 0x80;			/* flags | QPN */
	hw[1] = 0x00;
	hw[2] = 0x04;
	hw[3] = 0x48;
	memcpy(hw + 4, gid, 16);

	KUNIT_EXPECT_TRUE(test, ibt_ipoib_hwaddr_has_gid(hw, 20, gid));
	/* an Ethernet-sized address never matches */
	KUNIT_EXPECT_FALSE(test, ibt_ipoib_hwaddr_has_gid(hw, 6, gid));
	KUNIT_EXPECT_FALSE(test, ibt_ipoib_hwaddr_has_gid(NULL, 20, gid));
	/* the QPN bytes do not take part, the last GID byte does */
	hw[3] = 0x49;
	KUNIT_EXPECT_TRUE(test, ibt_ipoib_hwaddr_has_gid(hw, 20, gid));
	hw[19] ^= 1;
	KUNIT_EXPECT_FALSE(test, ibt_ipoib_hwaddr_has_gid(hw, 20, gid));
}

static struct kunit_case portattr_cases[] = {
	KUNIT_CASE(portattr_mtu),
	KUNIT_CASE(portattr_width),
	KUNIT_CASE(portattr_rate),
	KUNIT_CASE(portattr_ipoib_hwaddr),
	{}
};

static struct kunit_suite portattr_suite = {
	.name = "ibtick_portattr",
	.test_cases = portattr_cases,
};

kunit_test_suite(portattr_suite);

MODULE_LICENSE("GPL");
