// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: feed access control decisions and feed names (kmod/acl.c).
 */
#include <kunit/test.h>
#include <linux/ibtick_netlink.h>

#include "acl.h"

static const struct ibt_acl acl_0640 = {
	.owner = KUIDT_INIT(1000), .group = KGIDT_INIT(100), .mode = 0640,
};

static void acl_classes(struct kunit *test)
{
	kuid_t owner = KUIDT_INIT(1000), other = KUIDT_INIT(2000);
	const int r = IBT_ACL_READ, w = IBT_ACL_WRITE;

	/* owner: rw */
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&acl_0640, owner, false, r));
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&acl_0640, owner, false, w));
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&acl_0640, owner, true, r | w));
	/* group member: read only */
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&acl_0640, other, true, r));
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&acl_0640, other, true, w));
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&acl_0640, other, true, r | w));
	/* everyone else: nothing */
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&acl_0640, other, false, r));
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&acl_0640, other, false, w));
}

static void acl_first_class_decides(struct kunit *test)
{
	/* 0066: the owner is refused what group and others may do */
	struct ibt_acl a = { KUIDT_INIT(7), KGIDT_INIT(7), 0066 };

	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&a, KUIDT_INIT(7), true,
						 IBT_ACL_READ));
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&a, KUIDT_INIT(8), true,
						IBT_ACL_READ | IBT_ACL_WRITE));
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&a, KUIDT_INIT(8), false,
						IBT_ACL_WRITE));
	/* execute and special bits mean nothing: masked off */
	a.mode = 07111;
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&a, KUIDT_INIT(7), true,
						 IBT_ACL_READ));
	/* the default: all subscribe, only the owner publishes */
	a.mode = IBTICK_FEED_MODE_DEFAULT;
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&a, KUIDT_INIT(9), false,
						IBT_ACL_READ));
	KUNIT_EXPECT_FALSE(test, ibt_acl_permits(&a, KUIDT_INIT(9), true,
						 IBT_ACL_WRITE));
	KUNIT_EXPECT_TRUE(test, ibt_acl_permits(&a, KUIDT_INIT(7), false,
						IBT_ACL_WRITE));
}

static void acl_names(struct kunit *test)
{
	static const char max[IBTICK_FEED_NAME_MAX] =
		"abcdefghijabcdefghijabcdefghij1";

	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("cme.es", 6));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("A_b-9:x", 7));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("x", 1));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid(max, sizeof(max) - 1));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("auto", 4));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("", 0));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid(max, sizeof(max)));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("-x", 2));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("auto-3", 6));
	/* the rails' names: NAME.rN, arb-ID.rN */
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("cme.r0", 6));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("cme.310.r12", 11));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("arb-7", 5));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("cme.r", 5));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("cme.r2d2", 8));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid("cmer0", 5));
	KUNIT_EXPECT_TRUE(test, ibt_feed_name_valid(".r", 2));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("a b", 3));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("a/b", 3));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("a\nb", 3));
	KUNIT_EXPECT_FALSE(test, ibt_feed_name_valid("\xc3\xa9", 2));
}

static struct kunit_case acl_cases[] = {
	KUNIT_CASE(acl_classes),
	KUNIT_CASE(acl_first_class_decides),
	KUNIT_CASE(acl_names),
	{}
};

static struct kunit_suite acl_suite = {
	.name = "ibtick_acl",
	.test_cases = acl_cases,
};

kunit_test_suite(acl_suite);

