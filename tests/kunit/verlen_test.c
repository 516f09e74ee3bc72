// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: lengths of structures versioned by size (kmod/verlen.c), with the
 * real uapi structures: an old binary, this one, a newer one.
 */
#include <kunit/test.h>
#include <linux/ibtick.h>
#include <linux/limits.h>

#include "verlen.h"

static void verlen_stats(struct kunit *test)
{
	const size_t sz = sizeof(struct ibtick_stats), v1 = sizeof(__u64);

	/* the ABI only grows at the end: 0.1's 23 counters keep their place */
	KUNIT_EXPECT_EQ(test, offsetof(struct ibtick_stats, feed_join_errors),
			(size_t)22 * 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct ibtick_stats, feed_cq_events),
			(size_t)23 * 8);
	KUNIT_EXPECT_EQ(test, sz % 8, (size_t)0);

	KUNIT_EXPECT_EQ(test, ibt_versioned_len(sz, sz, v1), (int)sz);
	/* an older binary knew fewer counters: it gets exactly those */
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(8, sz, v1), 8);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(64, sz, v1), 64);
	/* a newer binary offers more: it learns this kernel's size */
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(sz + 64, sz, v1), (int)sz);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(INT_MAX, sz, v1), (int)sz);
	/* shorter than the first version, or negative: refused */
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(4, sz, v1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(0, sz, v1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(-1, sz, v1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(INT_MIN, sz, v1), -EINVAL);
}

static void verlen_ring_info(struct kunit *test)
{
	const size_t sz = sizeof(struct ibtick_ring_info);
	const size_t v1 = offsetof(struct ibtick_ring_info, hdr_size);

	/* 0.1 ended at ring_size (56 bytes); 0.2 appended the mmap arguments */
	KUNIT_EXPECT_EQ(test, offsetof(struct ibtick_ring_info, mmap_offset),
			(size_t)56);
	KUNIT_EXPECT_EQ(test, sz, (size_t)72);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(56, sz, v1), 56);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(v1, sz, v1), (int)v1);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(v1 - 1, sz, v1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_versioned_len(1000, sz, v1), (int)sz);
}

static struct kunit_case verlen_cases[] = {
	KUNIT_CASE(verlen_stats),
	KUNIT_CASE(verlen_ring_info),
	{}
};

static struct kunit_suite verlen_suite = {
	.name = "ibtick_verlen",
	.test_cases = verlen_cases,
};

kunit_test_suite(verlen_suite);
