// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: A/B line arbitration (kmod/arbiter.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "arbiter.h"

#define MS	1000000ULL

/* The gaps the arbiter declared, in order. */
struct arb_t {
	struct ibt_arb	a;
	u64		first[64];
	u64		count[64];
	u32		ngaps;
};

static void arb_t_gap(struct ibt_arb *a, u64 first, u64 count, void *ctx)
{
	struct arb_t *t = ctx;

	if (t->ngaps < ARRAY_SIZE(t->first)) {
		t->first[t->ngaps] = first;
		t->count[t->ngaps] = count;
	}
	t->ngaps++;
}

static struct arb_t *arb_new(struct kunit *test, u8 width, u64 window_ns,
			     u32 window_ticks)
{
	struct ibt_arb_cfg c = {
		.width = width,
		.window_ns = window_ns,
		.window_ticks = window_ticks,
		.reset_at = 1,
	};
	struct arb_t *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ibt_arb_ent *e = kunit_kcalloc(test, IBT_ARB_SPAN, sizeof(*e),
					      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_EQ(test, ibt_arb_cfg_check(&c), 0);
	ibt_arb_init(&t->a, &c, 2, e, arb_t_gap, t);
	return t;
}

/* Arrival of @raw on rail @r at @now: the verdict; *@seq, *@flags set. */
static enum ibt_arb_verdict in(struct arb_t *t, u32 r, u64 raw, u64 now,
			       u64 *seq, u32 *flags)
{
	return ibt_arb_arrive(&t->a, r, raw, now, seq, flags);
}

static void arb_in_order(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s, now = 1000;
	u32 fl;
	int i;

	for (i = 1; i <= 100; i++) {
		KUNIT_EXPECT_EQ(test, in(t, 0, i, now, &s, &fl), IBT_ARB_DELIVER);
		KUNIT_EXPECT_EQ(test, s, (u64)i);
		KUNIT_EXPECT_EQ(test, fl, 0U);
		/* B a little behind: every copy of B is a duplicate, lag 300 */
		KUNIT_EXPECT_EQ(test, in(t, 1, i, now + 300, &s, &fl), IBT_ARB_DUP);
		now += 1000;
	}
	ibt_arb_flush(&t->a);
	KUNIT_EXPECT_EQ(test, t->a.st[0].won, 100ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].won, 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].dup, 100ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].lag_n, 100ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].lag_max_ns, 300ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].lag_sum_ns, 30000ULL);
	/* 300 ns is in the bucket below 2^9 */
	KUNIT_EXPECT_EQ(test, ibt_arb_lag_pct(&t->a.st[1], 50), 512ULL);
	KUNIT_EXPECT_EQ(test, ibt_arb_lag_pct(&t->a.st[0], 50), 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].only + t->a.st[1].only, 0ULL);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	KUNIT_EXPECT_EQ(test, t->a.delivered, 100ULL);
}

static void arb_hole_filled(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s;
	u32 fl;

	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 0, 2, 10, &s, &fl), IBT_ARB_DELIVER);
	/* A loses 3: 4 is delivered at once, nothing waits */
	KUNIT_EXPECT_EQ(test, in(t, 0, 4, 20, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, 4ULL);
	KUNIT_EXPECT_EQ(test, t->a.holes, 1ULL);
	KUNIT_EXPECT_EQ(test, in(t, 1, 1, 30, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 40, &s, &fl), IBT_ARB_DUP);
	/* B fills it within the window: delivered late */
	KUNIT_EXPECT_EQ(test, in(t, 1, 3, 50, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, 3ULL);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_LATE);
	KUNIT_EXPECT_EQ(test, in(t, 1, 4, 60, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, t->a.holes, 0ULL);
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, 10 * MS), 0ULL);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	/* 3 was B's alone */
	KUNIT_EXPECT_EQ(test, t->a.st[1].only, 1ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].only, 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].won + t->a.st[1].won, 4ULL);
}

static void arb_gap_by_time(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s;
	u32 fl;

	in(t, 0, 1, 0, &s, &fl);
	in(t, 0, 4, 100, &s, &fl);		/* holes 2, 3 open at 100 */
	/* a timer for the oldest number not final yet (1, at 0) */
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, 200), MS);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, 100 + MS), 0ULL);
	KUNIT_ASSERT_EQ(test, t->ngaps, 1U);
	KUNIT_EXPECT_EQ(test, t->first[0], 2ULL);
	KUNIT_EXPECT_EQ(test, t->count[0], 2ULL);
	KUNIT_EXPECT_EQ(test, t->a.gap_numbers, 2ULL);
	/* B's copy after the verdict: dropped, counted late */
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 2 * MS, &s, &fl), IBT_ARB_DROP_LATE);
	KUNIT_EXPECT_EQ(test, t->a.st[1].late, 1ULL);
	KUNIT_EXPECT_EQ(test, in(t, 1, 4, 2 * MS, &s, &fl), IBT_ARB_DUP);
}

static void arb_gap_by_ticks(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, 0, 3);
	u64 s;
	u32 fl;

	in(t, 0, 1, 0, &s, &fl);
	in(t, 0, 3, 0, &s, &fl);		/* 2 open */
	in(t, 0, 4, 0, &s, &fl);
	/* no time window: no timer, and time alone declares nothing */
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, 1000 * MS), 0ULL);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	in(t, 0, 5, 0, &s, &fl);		/* three numbers above 2 */
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	in(t, 0, 6, 0, &s, &fl);		/* declared as 6 arrives */
	KUNIT_ASSERT_EQ(test, t->ngaps, 1U);
	KUNIT_EXPECT_EQ(test, t->first[0], 2ULL);
	KUNIT_EXPECT_EQ(test, t->count[0], 1ULL);
}

/* Runs broken by a delivered number are two gaps; overlapping loss only. */
static void arb_two_runs(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s;
	u32 fl;
	int i;

	/* A has 1..10 but 3, 4, 7; B has 1..10 but 3, 5, 7, 8 */
	for (i = 1; i <= 10; i++) {
		if (i != 3 && i != 4 && i != 7)
			in(t, 0, i, i, &s, &fl);
		if (i != 3 && i != 5 && i != 7 && i != 8)
			in(t, 1, i, i + 1, &s, &fl);
	}
	ibt_arb_expire(&t->a, 100 * MS);
	KUNIT_ASSERT_EQ(test, t->ngaps, 2U);
	KUNIT_EXPECT_EQ(test, t->first[0], 3ULL);
	KUNIT_EXPECT_EQ(test, t->count[0], 1ULL);
	KUNIT_EXPECT_EQ(test, t->first[1], 7ULL);
	KUNIT_EXPECT_EQ(test, t->count[1], 1ULL);
	KUNIT_EXPECT_EQ(test, t->a.delivered, 8ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].only, 2ULL);	/* 5, 8 */
	KUNIT_EXPECT_EQ(test, t->a.st[1].only, 1ULL);	/* 4 */
	/* every copy is a delivery or a duplicate */
	KUNIT_EXPECT_EQ(test, t->a.st[0].won + t->a.st[1].won, 8ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].dup + t->a.st[1].dup, 7ULL + 6 - 8);
}

static void arb_jump(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s;
	u32 fl;

	in(t, 0, 1, 0, &s, &fl);
	in(t, 0, 3, 0, &s, &fl);		/* 2 open */
	/* a jump beyond the span waits for the rail's next number */
	KUNIT_EXPECT_EQ(test, in(t, 0, 10 + IBT_ARB_SPAN, 0, &s, &fl),
			IBT_ARB_DROP_BAD);
	KUNIT_EXPECT_EQ(test, t->a.st[0].bad_seq, 1ULL);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	KUNIT_EXPECT_EQ(test, in(t, 0, 11 + IBT_ARB_SPAN, 0, &s, &fl),
			IBT_ARB_DELIVER);
	KUNIT_ASSERT_EQ(test, t->ngaps, 2U);
	KUNIT_EXPECT_EQ(test, t->first[0], 2ULL);
	KUNIT_EXPECT_EQ(test, t->count[0], 1ULL);
	KUNIT_EXPECT_EQ(test, t->first[1], 4ULL);
	KUNIT_EXPECT_EQ(test, t->count[1], 7ULL + IBT_ARB_SPAN);
	KUNIT_EXPECT_EQ(test, t->a.holes, 0ULL);
	/* a copy of a number in the jumped-over run: late */
	KUNIT_EXPECT_EQ(test, in(t, 1, 3000, 0, &s, &fl), IBT_ARB_DROP_LATE);
	/* the span moves on: what leaves it is final */
	in(t, 0, 12 + 2 * IBT_ARB_SPAN, 0, &s, &fl);
	KUNIT_EXPECT_EQ(test, in(t, 0, 13 + 2 * IBT_ARB_SPAN, 0, &s, &fl),
			IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, t->ngaps, 3U);
}

static void arb_wrap_u32(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 4, MS, 0);
	const u64 raw[] = { 0xfffffffeULL, 0xffffffffULL, 0, 1, 2 };
	u64 s;
	u32 fl;
	int i;

	for (i = 0; i < ARRAY_SIZE(raw); i++) {
		KUNIT_EXPECT_EQ(test, in(t, 0, raw[i], i, &s, &fl),
				IBT_ARB_DELIVER);
		KUNIT_EXPECT_EQ(test, s, 0xfffffffeULL + i);
		KUNIT_EXPECT_EQ(test, fl, 0U);
		KUNIT_EXPECT_EQ(test, in(t, 1, raw[i], i, &s, &fl), IBT_ARB_DUP);
	}
	KUNIT_EXPECT_EQ(test, t->a.resets, 0ULL);
	ibt_arb_flush(&t->a);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
}

static void arb_reset(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 8, MS, 0);
	u64 s;
	u32 fl;
	int i;

	for (i = 1; i <= 10; i++) {
		in(t, 0, i, i, &s, &fl);
		if (i <= 8)
			in(t, 1, i, i, &s, &fl);
	}
	in(t, 0, 12, 11, &s, &fl);		/* 11 open */
	/* A restarts at 1: a new session; 11 is a gap of the old one */
	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 20, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, 1ULL);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_RESET);
	KUNIT_EXPECT_EQ(test, t->a.resets, 1ULL);
	KUNIT_ASSERT_EQ(test, t->ngaps, 1U);
	KUNIT_EXPECT_EQ(test, t->first[0], 11ULL);
	KUNIT_EXPECT_EQ(test, in(t, 0, 2, 21, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, 0U);
	/* B, behind, still sends the old session: stale */
	KUNIT_EXPECT_EQ(test, in(t, 1, 9, 22, &s, &fl), IBT_ARB_DROP_STALE);
	KUNIT_EXPECT_EQ(test, in(t, 1, 10, 22, &s, &fl), IBT_ARB_DROP_STALE);
	KUNIT_EXPECT_EQ(test, t->a.st[1].stale, 2ULL);
	/* then restarts too: it joins A's session, no second reset */
	KUNIT_EXPECT_EQ(test, in(t, 1, 1, 23, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 23, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 3, 24, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, 0U);
	KUNIT_EXPECT_EQ(test, t->a.resets, 1ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].resets, 1ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].resets, 1ULL);
}

static void arb_before_start(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, MS, 0);
	u64 s;
	u32 fl;

	KUNIT_EXPECT_EQ(test, in(t, 0, 100, 0, &s, &fl), IBT_ARB_DELIVER);
	/*
	 * B's 98, before the first number heard but within its window: A
	 * lost it, B was slower.  The session starts there; 99 is a hole.
	 */
	KUNIT_EXPECT_EQ(test, in(t, 1, 98, 1, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, 98ULL);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_LATE);
	KUNIT_EXPECT_EQ(test, t->a.holes, 1ULL);
	KUNIT_EXPECT_EQ(test, in(t, 1, 100, 2, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 0, 101, 3, &s, &fl), IBT_ARB_DELIVER);
	/* 99 and 100's window is 100's: due at MS, not at 1 + MS */
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, 4), MS);
	KUNIT_EXPECT_EQ(test, ibt_arb_expire(&t->a, MS), 0ULL);
	KUNIT_ASSERT_EQ(test, t->ngaps, 1U);
	KUNIT_EXPECT_EQ(test, t->first[0], 99ULL);
	KUNIT_EXPECT_EQ(test, t->count[0], 1ULL);
	KUNIT_EXPECT_EQ(test, t->a.holes, 0ULL);
	/* once the first number's window is over, earlier ones are late */
	KUNIT_EXPECT_EQ(test, in(t, 1, 97, MS + 1, &s, &fl), IBT_ARB_DROP_LATE);
	KUNIT_EXPECT_EQ(test, in(t, 0, 99, MS + 1, &s, &fl), IBT_ARB_DROP_LATE);
	KUNIT_EXPECT_EQ(test, t->a.st[0].late + t->a.st[1].late, 2ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].won + t->a.st[1].won, 3ULL);

	/* with a window in ticks: as far back as the window reaches */
	t = arb_new(test, 0, 0, 3);
	KUNIT_EXPECT_EQ(test, in(t, 0, 10, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 1, 6, 0, &s, &fl), IBT_ARB_DROP_LATE);
	KUNIT_EXPECT_EQ(test, in(t, 1, 8, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_LATE);
	/* 7 is 4 numbers behind the highest: past the window */
	KUNIT_EXPECT_EQ(test, in(t, 1, 7, 0, &s, &fl), IBT_ARB_DROP_LATE);
	KUNIT_EXPECT_EQ(test, t->a.holes, 1ULL);	/* 9 */
	KUNIT_EXPECT_EQ(test, t->a.delivered, 2ULL);
}

/*
 * Two datagrams swapped on the way (a veth's receive on two CPUs does it):
 * a step back to a number at or below reset_at that the rail never had is
 * no restart.
 */
static void arb_reorder_not_reset(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 8, MS, 0);
	u64 s;
	u32 fl;

	KUNIT_EXPECT_EQ(test, in(t, 0, 2, 0, &s, &fl), IBT_ARB_DELIVER);
	/* A's 1 after its 2: the session starts at 1, no restart */
	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 1, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_LATE);
	KUNIT_EXPECT_EQ(test, t->a.rail[0].first, 1ULL);	/* it had 1 */
	KUNIT_EXPECT_EQ(test, in(t, 1, 1, 2, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 2, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 0, 3, 3, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 1, 3, 3, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, t->a.resets, 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[0].resets, 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].stale, 0ULL);
	/* A later back at 1, which it had (late): a restart, not a copy */
	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 4, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_RESET);
	KUNIT_EXPECT_EQ(test, t->a.resets, 1ULL);

	/* B starts the session at 1; A's first is 2, its 1 comes after */
	t = arb_new(test, 4, MS, 0);
	KUNIT_EXPECT_EQ(test, in(t, 1, 1, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 0, 2, 1, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 2, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 3, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, t->a.resets, 0ULL);
	/* a real restart repeats a number the rail had: A back at 1 */
	KUNIT_EXPECT_EQ(test, in(t, 0, 3, 4, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, in(t, 1, 3, 4, &s, &fl), IBT_ARB_DUP);
	KUNIT_EXPECT_EQ(test, in(t, 1, 1, 5, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_RESET);
	KUNIT_EXPECT_EQ(test, t->a.resets, 1ULL);
}

/* A rail that comes back starts afresh in the current session. */
static void arb_rail_restart(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 4, MS, 0);
	u64 s;
	u32 fl;

	in(t, 0, 0xfffffff0ULL, 0, &s, &fl);
	in(t, 1, 0xfffffff0ULL, 0, &s, &fl);
	in(t, 0, 0xfffffff1ULL, 0, &s, &fl);
	in(t, 0, 5, 0, &s, &fl);		/* wrapped: unwrapped 2^32 + 5 */
	KUNIT_EXPECT_EQ(test, s, (1ULL << 32) + 5);
	ibt_arb_rail_restart(&t->a, 1);
	/* B's first number after coming back is read near the arbiter's */
	KUNIT_EXPECT_EQ(test, in(t, 1, 6, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, (1ULL << 32) + 6);
	KUNIT_EXPECT_EQ(test, t->a.resets, 0ULL);
}

/* A stray number far ahead, then the stream goes on: nothing moves. */
static void arb_stray(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 8, MS, 0);
	u64 s;
	u32 fl;
	int i;

	for (i = 100000; i < 100005; i++) {
		in(t, 0, i, i, &s, &fl);
		in(t, 1, i, i, &s, &fl);
	}
	KUNIT_EXPECT_EQ(test, in(t, 0, 1ULL << 40, 2000, &s, &fl),
			IBT_ARB_DROP_BAD);
	KUNIT_EXPECT_EQ(test, in(t, 1, 1ULL << 40, 2000, &s, &fl),
			IBT_ARB_DROP_BAD);
	/* and one far behind (not a venue reset: above reset_at) */
	KUNIT_EXPECT_EQ(test, in(t, 0, 7, 2000, &s, &fl), IBT_ARB_DROP_BAD);
	for (i = 100005; i < 100010; i++) {
		KUNIT_EXPECT_EQ(test, in(t, 0, i, i, &s, &fl), IBT_ARB_DELIVER);
		KUNIT_EXPECT_EQ(test, in(t, 1, i, i, &s, &fl), IBT_ARB_DUP);
	}
	KUNIT_EXPECT_EQ(test, t->a.resets, 0ULL);
	KUNIT_EXPECT_EQ(test, t->a.st[1].stale, 0ULL);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
	/* numbers near 2^64 could wrap next: never taken */
	KUNIT_EXPECT_EQ(test, in(t, 0, U64_MAX, 3000, &s, &fl), IBT_ARB_DROP_BAD);
	KUNIT_EXPECT_EQ(test, in(t, 0, U64_MAX - 1, 3000, &s, &fl),
			IBT_ARB_DROP_BAD);
	KUNIT_EXPECT_EQ(test, t->a.st[0].bad_seq, 4ULL);
	KUNIT_EXPECT_EQ(test, in(t, 0, 100010, 3000, &s, &fl), IBT_ARB_DELIVER);
}

/* A 4-byte sequence far from 2^32 restarting at 1 is a reset, not a wrap. */
static void arb_reset_u32(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 4, MS, 0);
	u64 s;
	u32 fl;

	in(t, 0, 3000000000ULL, 0, &s, &fl);
	in(t, 0, 3000000001ULL, 0, &s, &fl);
	KUNIT_EXPECT_EQ(test, in(t, 0, 1, 0, &s, &fl), IBT_ARB_DELIVER);
	KUNIT_EXPECT_EQ(test, s, 1ULL);
	KUNIT_EXPECT_EQ(test, fl, (u32)IBT_ARB_RESET);
	KUNIT_EXPECT_EQ(test, t->ngaps, 0U);
}

/* A filled hole does not hold back the window of the holes after it. */
static void arb_fill_keeps_window(struct kunit *test)
{
	struct arb_t *t = arb_new(test, 0, 1000, 0);
	u64 s;
	u32 fl;

	in(t, 0, 1, 0, &s, &fl);
	in(t, 0, 4, 0, &s, &fl);		/* 2 and 3 open at 0 */
	KUNIT_EXPECT_EQ(test, in(t, 1, 2, 900, &s, &fl), IBT_ARB_DELIVER);
	/* B's copy of 4 lags A's by 950, not by 50 */
	in(t, 1, 4, 950, &s, &fl);
	KUNIT_EXPECT_EQ(test, t->a.st[1].lag_max_ns, 950ULL);
	ibt_arb_expire(&t->a, 1000);
	KUNIT_ASSERT_EQ(test, t->ngaps, 1U);
	KUNIT_EXPECT_EQ(test, t->first[0], 3ULL);
}

static void arb_field(struct kunit *test)
{
	struct ibt_arb_cfg c = { .window_ns = MS, .reset_at = 1 };
	const u8 p[12] = { 0xaa, 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	u64 raw = 0;

	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, 0, 77, &raw), 0);
	KUNIT_EXPECT_EQ(test, raw, 77ULL);
	c.off = 2;
	c.width = 4;
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, sizeof(p), 0, &raw), 0);
	KUNIT_EXPECT_EQ(test, raw, 0x04030201ULL);
	c.big_endian = true;
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, sizeof(p), 0, &raw), 0);
	KUNIT_EXPECT_EQ(test, raw, 0x01020304ULL);
	c.width = 8;
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, sizeof(p), 0, &raw), 0);
	KUNIT_EXPECT_EQ(test, raw, 0x0102030405060708ULL);
	c.big_endian = false;
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, sizeof(p), 0, &raw), 0);
	KUNIT_EXPECT_EQ(test, raw, 0x0807060504030201ULL);
	/* the field must end within the payload */
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, 10, 0, &raw), 0);
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, 9, 0, &raw), -EMSGSIZE);
	c.off = 0xfff0;
	KUNIT_EXPECT_EQ(test, ibt_arb_field(&c, p, 0xfff7, 0, &raw), -EMSGSIZE);
}

static void arb_cfg(struct kunit *test)
{
	const struct {
		struct ibt_arb_cfg c;
		int err;
	} rows[] = {
		{ { .window_ns = MS }, 0 },
		{ { .window_ticks = 16 }, 0 },
		{ { .width = 4, .off = 10, .window_ns = MS }, 0 },
		{ { .width = 8, .off = 65527, .window_ns = MS }, 0 },
		{ { .width = 8, .off = 65528, .window_ns = MS }, -EINVAL },
		{ { .width = 3, .window_ns = MS }, -EINVAL },
		{ { .width = 0, .off = 4, .window_ns = MS }, -EINVAL },
		{ { .width = 4 }, -EINVAL },
		{ { .window_ticks = IBT_ARB_SPAN }, 0 },
		{ { .window_ticks = IBT_ARB_SPAN + 1 }, -EINVAL },
		{ { .window_ns = 61ULL * 1000 * MS }, -EINVAL },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		KUNIT_EXPECT_EQ_MSG(test, ibt_arb_cfg_check(&rows[i].c),
				    rows[i].err, "row %d", i);
}

static struct kunit_case arb_cases[] = {
	KUNIT_CASE(arb_in_order),
	KUNIT_CASE(arb_hole_filled),
	KUNIT_CASE(arb_gap_by_time),
	KUNIT_CASE(arb_gap_by_ticks),
	KUNIT_CASE(arb_two_runs),
	KUNIT_CASE(arb_jump),
	KUNIT_CASE(arb_wrap_u32),
	KUNIT_CASE(arb_reset),
	KUNIT_CASE(arb_before_start),
	KUNIT_CASE(arb_reorder_not_reset),
	KUNIT_CASE(arb_rail_restart),
	KUNIT_CASE(arb_stray),
	KUNIT_CASE(arb_reset_u32),
	KUNIT_CASE(arb_fill_keeps_window),
	KUNIT_CASE(arb_field),
	KUNIT_CASE(arb_cfg),
	{}
};

static struct kunit_suite arb_suite = {
	.name = "ibtick_arbiter",
	.test_cases = arb_cases,
};
kunit_test_suite(arb_suite);
