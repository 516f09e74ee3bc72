// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-publisher gap / duplicate / reorder detection (kmod/pubtrack.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "pubtrack.h"

static struct ibt_pubtrack *pt_new(struct kunit *test)
{
	struct ibt_pubtrack *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	ibt_pubtrack_init(t);
	return t;
}

static void pt_in_order(struct kunit *test)
{
	struct ibt_pubtrack *t = pt_new(test);
	struct ibt_pub_verdict v;
	u64 s;

	for (s = 1; s <= 1000; s++) {
		v = ibt_pubtrack_observe(t, 7, s);
		KUNIT_EXPECT_EQ(test, v.flags, 0);
	}
}

static void pt_gap(struct kunit *test)
{
	struct ibt_pubtrack *t = pt_new(test);
	struct ibt_pub_verdict v;

	/* joining mid-stream is not a gap */
	v = ibt_pubtrack_observe(t, 1, 5000);
	KUNIT_EXPECT_EQ(test, v.flags, 0);
	v = ibt_pubtrack_observe(t, 1, 5001);
	KUNIT_EXPECT_EQ(test, v.flags, 0);
	v = ibt_pubtrack_observe(t, 1, 5005);	/* 5002..5004 missing */
	KUNIT_EXPECT_EQ(test, v.flags, (u16)IBTICK_TICK_GAP);
	KUNIT_EXPECT_EQ(test, v.gap, 3U);
	KUNIT_EXPECT_EQ(test, v.gap_ticks, 3ULL);
	v = ibt_pubtrack_observe(t, 1, 5006);
	KUNIT_EXPECT_EQ(test, v.flags, 0);
	/* a huge jump: the flag's count saturates, the full count stays */
	v = ibt_pubtrack_observe(t, 1, 5006 + (1ULL << 40));
	KUNIT_EXPECT_EQ(test, v.gap, U32_MAX);
	KUNIT_EXPECT_EQ(test, v.gap_ticks, (1ULL << 40) - 1);
}

static void pt_dup_and_reorder(struct kunit *test)
{
	struct ibt_pubtrack *t = pt_new(test);
	struct ibt_pub_verdict v;

	ibt_pubtrack_observe(t, 9, 1);
	ibt_pubtrack_observe(t, 9, 2);
	v = ibt_pubtrack_observe(t, 9, 2);		/* duplicate */
	KUNIT_EXPECT_EQ(test, v.flags, (u16)IBTICK_TICK_OLD);
	v = ibt_pubtrack_observe(t, 9, 4);		/* 3 overtaken by 4 */
	KUNIT_EXPECT_EQ(test, v.flags, (u16)IBTICK_TICK_GAP);
	KUNIT_EXPECT_EQ(test, v.gap, 1U);
	v = ibt_pubtrack_observe(t, 9, 3);		/* 3 arrives late */
	KUNIT_EXPECT_EQ(test, v.flags, (u16)IBTICK_TICK_OLD);
	v = ibt_pubtrack_observe(t, 9, 5);		/* the late one did not move last */
	KUNIT_EXPECT_EQ(test, v.flags, 0);
}

static void pt_publishers_independent(struct kunit *test)
{
	struct ibt_pubtrack *t = pt_new(test);
	struct ibt_pub_verdict v;
	u32 id;
	u64 s;

	/* 40 publishers interleaved, each in order: no flag at all */
	for (s = 1; s <= 50; s++) {
		for (id = 100; id < 140; id++) {
			v = ibt_pubtrack_observe(t, id, s);
			KUNIT_EXPECT_EQ(test, v.flags, 0);
		}
	}
	/* one of them skips: only it is flagged */
	v = ibt_pubtrack_observe(t, 120, 60);
	KUNIT_EXPECT_EQ(test, v.gap, 9U);
	v = ibt_pubtrack_observe(t, 121, 51);
	KUNIT_EXPECT_EQ(test, v.flags, 0);
}

static void pt_eviction(struct kunit *test)
{
	struct ibt_pubtrack *t = pt_new(test);
	struct ibt_pub_verdict v;
	u32 id;

	/* far more publishers than slots: table stays bounded, no false flags */
	for (id = 1; id <= 1000; id++) {
		v = ibt_pubtrack_observe(t, id, 10);
		KUNIT_EXPECT_EQ(test, v.flags, 0);
	}
	/* the first was forgotten: its next tick, 2 ahead, is not a gap */
	v = ibt_pubtrack_observe(t, 1, 12);
	KUNIT_EXPECT_EQ(test, v.flags, 0);
	/* the most recent one is still tracked */
	v = ibt_pubtrack_observe(t, 1000, 12);
	KUNIT_EXPECT_EQ(test, v.flags, (u16)IBTICK_TICK_GAP);
}

static struct kunit_case pubtrack_cases[] = {
	KUNIT_CASE(pt_in_order),
	KUNIT_CASE(pt_gap),
	KUNIT_CASE(pt_dup_and_reorder),
	KUNIT_CASE(pt_publishers_independent),
	KUNIT_CASE(pt_eviction),
	{}
};

static struct kunit_suite pubtrack_suite = {
	.name = "ibtick_pubtrack",
	.test_cases = pubtrack_cases,
};

kunit_test_suite(pubtrack_suite);
