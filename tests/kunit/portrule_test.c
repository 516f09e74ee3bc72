// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: listener rules (kmod/portrule.c): ranges, modes, the sorted and
 * disjoint table, and the verdict listen() gets.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/ibtick_netlink.h>

#include "portrule.h"

static struct ibt_port_rule rule(u16 lo, u16 hi, u32 uid, u32 gid, u16 mode)
{
	struct ibt_port_rule r = {
		.lo = lo, .hi = hi,
		.acl = { KUIDT_INIT(uid), KGIDT_INIT(gid), mode },
	};

	return r;
}

static struct ibt_port_rules *table(struct kunit *test)
{
	struct ibt_port_rules *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

static void portrule_ranges_and_modes(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ibt_port_range_valid(1, 1));
	KUNIT_EXPECT_TRUE(test, ibt_port_range_valid(1, 65535));
	KUNIT_EXPECT_TRUE(test, ibt_port_range_valid(5000, 5099));
	KUNIT_EXPECT_FALSE(test, ibt_port_range_valid(0, 10));
	KUNIT_EXPECT_FALSE(test, ibt_port_range_valid(10, 9));
	KUNIT_EXPECT_FALSE(test, ibt_port_range_valid(1, 65536));

	KUNIT_EXPECT_TRUE(test, ibt_port_rule_mode_valid(0));
	KUNIT_EXPECT_TRUE(test, ibt_port_rule_mode_valid(0200));
	KUNIT_EXPECT_TRUE(test, ibt_port_rule_mode_valid(0222));
	KUNIT_EXPECT_FALSE(test, ibt_port_rule_mode_valid(0600));
	KUNIT_EXPECT_FALSE(test, ibt_port_rule_mode_valid(0644));
	KUNIT_EXPECT_FALSE(test, ibt_port_rule_mode_valid(01200));
}

static void portrule_add_sorted_disjoint(struct kunit *test)
{
	struct ibt_port_rules *t = table(test);
	struct ibt_port_rule r;
	u32 clash = 99;

	r = rule(5000, 5099, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(100, 100, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(6000, 6000, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(5100, 5999, 0, 0, 0200);	/* touching both: no overlap */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	KUNIT_ASSERT_EQ(test, t->n, 4U);
	KUNIT_EXPECT_EQ(test, t->r[0].lo, 100);
	KUNIT_EXPECT_EQ(test, t->r[1].lo, 5000);
	KUNIT_EXPECT_EQ(test, t->r[2].lo, 5100);
	KUNIT_EXPECT_EQ(test, t->r[3].lo, 6000);

	/* every kind of overlap is refused, naming the rule in the way */
	r = rule(5099, 5099, 0, 0, 0200);	/* a rule's last port */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	KUNIT_EXPECT_EQ(test, clash, 1U);
	r = rule(4000, 5000, 0, 0, 0200);	/* its first */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	KUNIT_EXPECT_EQ(test, clash, 1U);
	r = rule(1, 65535, 0, 0, 0200);		/* around all */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	KUNIT_EXPECT_EQ(test, clash, 0U);
	r = rule(5500, 5501, 0, 0, 0200);	/* inside one */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	KUNIT_EXPECT_EQ(test, clash, 2U);
	r = rule(6000, 7000, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	KUNIT_EXPECT_EQ(test, clash, 3U);
	KUNIT_EXPECT_EQ(test, t->n, 4U);
	/* the gaps are free */
	r = rule(101, 4999, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(6001, 65535, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	KUNIT_EXPECT_EQ(test, t->n, 6U);
}

static void portrule_find(struct kunit *test)
{
	struct ibt_port_rules *t = table(test);
	struct ibt_port_rule r;
	u32 clash;

	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 5000));
	r = rule(5000, 5099, 1000, 100, 0220);
	KUNIT_ASSERT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(7000, 7000, 2000, 200, 0200);
	KUNIT_ASSERT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 4999));
	KUNIT_EXPECT_EQ(test, ibt_port_rules_find(t, 5000)->lo, 5000);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_find(t, 5099)->lo, 5000);
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 5100));
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 6999));
	KUNIT_EXPECT_EQ(test, ibt_port_rules_find(t, 7000)->hi, 7000);
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 7001));
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 65535));
}

static void portrule_del_exact(struct kunit *test)
{
	struct ibt_port_rules *t = table(test);
	struct ibt_port_rule r;
	u32 clash;

	r = rule(5000, 5099, 0, 0, 0200);
	KUNIT_ASSERT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	r = rule(6000, 6000, 0, 0, 0200);
	KUNIT_ASSERT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	/* only the exact range deletes */
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 5000, 5000), -ENOENT);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 5001, 5099), -ENOENT);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 5000, 6000), -ENOENT);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 1, 2), -ENOENT);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 60000, 60001), -ENOENT);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 5000, 5099), 0);
	KUNIT_EXPECT_EQ(test, t->n, 1U);
	KUNIT_EXPECT_EQ(test, t->r[0].lo, 6000);
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 5050));
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 6000, 6000), 0);
	KUNIT_EXPECT_EQ(test, t->n, 0U);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_del(t, 6000, 6000), -ENOENT);
}

static void portrule_full(struct kunit *test)
{
	struct ibt_port_rules *t = table(test);
	struct ibt_port_rule r;
	u32 i, clash;

	for (i = 0; i < IBT_PORT_RULES_MAX; i++) {
		r = rule(1000 + 2 * i, 1000 + 2 * i, 0, 0, 0200);
		KUNIT_ASSERT_EQ(test, ibt_port_rules_add(t, &r, &clash), 0);
	}
	r = rule(1, 1, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -ENOSPC);
	/* an overlap says so even when full */
	r = rule(1000, 1000, 0, 0, 0200);
	KUNIT_EXPECT_EQ(test, ibt_port_rules_add(t, &r, &clash), -EEXIST);
	for (i = 0; i < IBT_PORT_RULES_MAX; i++)
		KUNIT_EXPECT_EQ(test, ibt_port_rules_find(t, 1000 + 2 * i)->lo,
				1000 + 2 * i);
	KUNIT_EXPECT_NULL(test, ibt_port_rules_find(t, 1001));
}

static void portrule_verdict(struct kunit *test)
{
	struct ibt_port_rule r = rule(5000, 5099, 1000, 100, 0220);
	struct ibt_port_rule o = rule(5000, 5099, 1000, 100, 0002);
	kuid_t owner = KUIDT_INIT(1000), other = KUIDT_INIT(2000);

	/* a rule: its classes, the first that matches deciding */
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&r, owner, false, false, false, false), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&r, other, true, false, false, false), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&r, other, false, false, false, false), -EACCES);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&o, other, false, false, false, false), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&o, owner, false, false, false, false), -EACCES);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&o, other, true, false, false, false), -EACCES);
	/* CAP_NET_ADMIN passes every rule */
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&o, owner, false, true, false, false), 0);
	/* a rule decides a privileged port too: no CAP_NET_BIND_SERVICE asked */
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&r, owner, false, false, true, false), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(&r, other, false, false, true, true), -EACCES);
	/* no rule: open, but a privileged port needs CAP_NET_BIND_SERVICE */
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(NULL, other, false, false, false, false), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(NULL, other, false, false, true, false), -EACCES);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(NULL, other, false, false, true, true), 0);
	KUNIT_EXPECT_EQ(test, ibt_port_listen_verdict(NULL, other, false, true, true, false), 0);
}

static struct kunit_case portrule_cases[] = {
	KUNIT_CASE(portrule_ranges_and_modes),
	KUNIT_CASE(portrule_add_sorted_disjoint),
	KUNIT_CASE(portrule_find),
	KUNIT_CASE(portrule_del_exact),
	KUNIT_CASE(portrule_full),
	KUNIT_CASE(portrule_verdict),
	{}
};

static struct kunit_suite portrule_suite = {
	.name = "ibtick_portrule",
	.test_cases = portrule_cases,
};

kunit_test_suite(portrule_suite);
