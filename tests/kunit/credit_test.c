// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: connection flow control (kmod/credit.c), its rules one by one and
 * a two-sided model run under random schedules.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "credit.h"

static void credit_first_grant(struct kunit *test)
{
	struct ibt_credit c;
	u32 i;

	ibt_credit_init(&c, 64, 8);
	KUNIT_EXPECT_EQ(test, ibt_credit_peer(&c), 64U);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, ibt_credit_take(&c));
	KUNIT_EXPECT_FALSE(test, ibt_credit_take(&c));
	KUNIT_EXPECT_EQ(test, c.send, 0U);
}

static void credit_piggyback(struct kunit *test)
{
	struct ibt_credit c;

	ibt_credit_init(&c, 64, 64);
	KUNIT_EXPECT_EQ(test, ibt_credit_grants(&c), 0U);
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 0, true), 0);
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 0, true), 0);
	KUNIT_EXPECT_EQ(test, ibt_credit_peer(&c), 62U);
	ibt_credit_freed(&c, 1);
	ibt_credit_freed(&c, 1);
	KUNIT_EXPECT_EQ(test, ibt_credit_grants(&c), 2U);
	KUNIT_EXPECT_EQ(test, c.pending, 0U);
	KUNIT_EXPECT_EQ(test, ibt_credit_peer(&c), 64U);
}

static void credit_update_due(struct kunit *test)
{
	struct ibt_credit c;
	u32 i;

	ibt_credit_init(&c, 64, 64);	/* threshold 16 */
	for (i = 0; i < 20; i++)
		KUNIT_ASSERT_EQ(test, ibt_credit_received(&c, 0, true), 0);
	for (i = 0; i < 15; i++) {
		ibt_credit_freed(&c, 1);
		KUNIT_EXPECT_FALSE(test, ibt_credit_update_due(&c));
	}
	ibt_credit_freed(&c, 1);
	KUNIT_EXPECT_TRUE(test, ibt_credit_update_due(&c));
	KUNIT_EXPECT_EQ(test, ibt_credit_grants(&c), 16U);
	KUNIT_EXPECT_FALSE(test, ibt_credit_update_due(&c));

	/* a starving peer gets even one grant at once */
	ibt_credit_init(&c, 64, 64);
	for (i = 0; i < 64; i++)
		KUNIT_ASSERT_EQ(test, ibt_credit_received(&c, 0, true), 0);
	KUNIT_EXPECT_EQ(test, ibt_credit_peer(&c), 0U);
	KUNIT_EXPECT_FALSE(test, ibt_credit_update_due(&c));	/* nothing owed */
	ibt_credit_freed(&c, 1);
	KUNIT_EXPECT_TRUE(test, ibt_credit_update_due(&c));
}

static void credit_protocol_errors(struct kunit *test)
{
	struct ibt_credit c;
	u32 i;

	ibt_credit_init(&c, 4, 4);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 0, true), 0);
	/* a fifth data message was sent without a credit */
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 0, true), -EPROTO);
	KUNIT_EXPECT_EQ(test, c.rcvd, 4ULL);

	/* grants beyond what the peer's ring could have freed */
	ibt_credit_init(&c, 4, 4);
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 1, false), -EPROTO);
	KUNIT_EXPECT_TRUE(test, ibt_credit_take(&c));
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 2, false), -EPROTO);
	KUNIT_EXPECT_EQ(test, ibt_credit_received(&c, 1, false), 0);
	KUNIT_EXPECT_EQ(test, c.send, 4U);
}

static void credit_rq_extra(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ibt_credit_rq_extra(1), 5U);
	KUNIT_EXPECT_EQ(test, ibt_credit_rq_extra(3), 7U);
	KUNIT_EXPECT_EQ(test, ibt_credit_rq_extra(64), 8U);
	KUNIT_EXPECT_EQ(test, ibt_credit_rq_extra(4096), 8U);
	KUNIT_EXPECT_EQ(test, ibt_credit_rq_extra(65), 8U);	/* 65 / 16 */
}

/*
 * The model: two sides, each a credit state, a ring (messages unread), and
 * a FIFO wire towards the other side (RC: in order, nothing lost).  A
 * message on the wire holds one of the receiver's receive queue entries
 * until the receive completion sees it, so the wire's length must never
 * pass nslots + ibt_credit_rq_extra(nslots).
 */
#define WIRE_MAX	4096

struct side {
	struct ibt_credit c;
	u32	nslots;
	u32	ring;		/* messages in the ring, unread */
	u32	to_send;	/* data messages the application has */
	u32	read;		/* data messages the reader took */
	u32	ctl_sent;
	u32	wire_len;	/* towards the peer */
	u32	wire_head;
	u32	wire_grants[WIRE_MAX];
	bool	wire_data[WIRE_MAX];
	u32	wire_max;
	u32	batch;		/* 0: one read at a time; else up to this many */
	struct rnd_state *rnd;
};

static void side_put(struct kunit *test, struct side *s, bool data, u32 g)
{
	u32 at = (s->wire_head + s->wire_len) % WIRE_MAX;

	KUNIT_ASSERT_LT(test, s->wire_len, (u32)WIRE_MAX);
	s->wire_grants[at] = g;
	s->wire_data[at] = data;
	s->wire_len++;
	s->wire_max = max(s->wire_max, s->wire_len);
}

static void side_maybe_update(struct kunit *test, struct side *s)
{
	u32 g;

	if (ibt_credit_update_due(&s->c)) {
		g = ibt_credit_grants(&s->c);
		KUNIT_EXPECT_GE(test, g, 1U);	/* never a message for nothing */
		side_put(test, s, false, g);
		s->ctl_sent++;
	}
}

static bool side_send(struct kunit *test, struct side *s)
{
	if (!s->to_send || !ibt_credit_take(&s->c))
		return false;
	s->to_send--;
	side_put(test, s, true, ibt_credit_grants(&s->c));
	return true;
}

/* the receive completion of @from's oldest message, at @to */
static bool side_deliver(struct kunit *test, struct side *from, struct side *to)
{
	u32 g;
	bool data;

	if (!from->wire_len)
		return false;
	g = from->wire_grants[from->wire_head];
	data = from->wire_data[from->wire_head];
	from->wire_head = (from->wire_head + 1) % WIRE_MAX;
	from->wire_len--;
	KUNIT_ASSERT_EQ(test, ibt_credit_received(&to->c, g, data), 0);
	if (data) {
		to->ring++;
		KUNIT_ASSERT_LE(test, to->ring, to->nslots);
		side_maybe_update(test, to);
	}
	return true;
}

/* the reader: recv() takes one message, a mapped reader a batch */
static bool side_read(struct kunit *test, struct side *s)
{
	u32 n = 1;

	if (!s->ring)
		return false;
	if (s->batch)
		n = min(s->ring, 1 + prandom_u32_state(s->rnd) % s->batch);
	s->ring -= n;
	s->read += n;
	ibt_credit_freed(&s->c, n);
	side_maybe_update(test, s);
	return true;
}

/* how far past the ring's slots the receive queue had to go, all runs */
static u32 credit_model_over;

static void credit_model_run(struct kunit *test, u32 na, u32 nb, u32 msgs,
			     u32 seed, u32 batch)
{
	struct side *s = kunit_kzalloc(test, 2 * sizeof(*s), GFP_KERNEL);
	struct rnd_state rnd;
	u32 steps = 0, i, readers_paused;

	KUNIT_ASSERT_NOT_NULL(test, s);
	prandom_seed_state(&rnd, seed);
	s[0].nslots = na;
	s[1].nslots = nb;
	ibt_credit_init(&s[0].c, na, nb);
	ibt_credit_init(&s[1].c, nb, na);
	s[0].to_send = msgs;
	s[1].to_send = msgs;
	for (i = 0; i < 2; i++) {
		s[i].batch = batch;
		s[i].rnd = &rnd;
	}
	/*
	 * Random schedule; now and then a reader stops for a while, so
	 * that senders run out of credits and starve.
	 */
	readers_paused = 0;
	while (steps++ < 50 * msgs) {
		u32 r = prandom_u32_state(&rnd);
		u32 who = r & 1, act = (r >> 1) % 8;
		struct side *me = &s[who], *peer = &s[!who];

		if (!(r >> 28))
			readers_paused ^= 1U << who;
		switch (act) {
		case 0: case 1: case 2:
			side_send(test, me);
			break;
		case 3: case 4: case 5:
			side_deliver(test, me, peer);
			break;
		default:
			if (!(readers_paused & (1U << who)))
				side_read(test, me);
			break;
		}
		for (i = 0; i < 2; i++)
			KUNIT_ASSERT_LE(test, s[i].wire_len,
					s[!i].nslots +
					ibt_credit_rq_extra(s[!i].nslots));
	}
	/*
	 * Then everyone works until nothing moves: everything must arrive,
	 * and credit-only messages must not bounce back and forth for ever.
	 */
	for (steps = 0; ; steps++) {
		bool moved = false;

		KUNIT_ASSERT_LT(test, steps, 20 * msgs);

		for (i = 0; i < 2; i++) {
			moved |= side_send(test, &s[i]);
			moved |= side_deliver(test, &s[i], &s[!i]);
			moved |= side_read(test, &s[i]);
			KUNIT_ASSERT_LE(test, s[i].wire_len,
					s[!i].nslots +
					ibt_credit_rq_extra(s[!i].nslots));
		}
		if (!moved)
			break;
	}
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, s[i].to_send, 0U);
		KUNIT_EXPECT_EQ(test, s[i].read, msgs);
		KUNIT_EXPECT_EQ(test, s[i].wire_len, 0U);
		/* each carried a grant, and no more grants than reads */
		KUNIT_EXPECT_LE(test, s[i].ctl_sent, s[i].read);
		/* at rest every credit is back with its owner */
		KUNIT_EXPECT_EQ(test, s[i].c.send + s[!i].c.pending,
				s[!i].nslots);
		if (s[i].wire_max > s[!i].nslots)
			credit_model_over = max(credit_model_over,
						s[i].wire_max - s[!i].nslots);
	}
}

static void credit_model(struct kunit *test)
{
	static const u32 geo[][2] = {
		{ 1, 1 }, { 1, 64 }, { 2, 3 }, { 4, 4 }, { 16, 64 },
		{ 64, 64 }, { 256, 4 }, { 1024, 1024 },
	};
	u32 g, seed;

	for (g = 0; g < ARRAY_SIZE(geo); g++)
		for (seed = 1; seed <= 20; seed++)
			credit_model_run(test, geo[g][0], geo[g][1], 3000,
					 seed * 7919 + g, 0);
	/* the entries beyond the slots were needed: the bound is not idle */
	kunit_info(test, "receive queue use past the slots: %u\n",
		   credit_model_over);
	KUNIT_EXPECT_GT(test, credit_model_over, 0U);
}

/*
 * Mapped readers: the cursor moves by a batch (IBTICK_RING_CURSOR), so the
 * slots come back many at a time; the same invariants hold, and the
 * grants owed never exceed what was read.
 */
static void credit_model_batch(struct kunit *test)
{
	static const u32 geo[][3] = {
		{ 1, 1, 1 }, { 4, 4, 4 }, { 16, 64, 16 }, { 64, 64, 17 },
		{ 256, 4, 300 }, { 1024, 1024, 256 },
	};
	u32 g, seed;

	for (g = 0; g < ARRAY_SIZE(geo); g++)
		for (seed = 1; seed <= 10; seed++)
			credit_model_run(test, geo[g][0], geo[g][1], 3000,
					 seed * 104729 + g, geo[g][2]);
}

static struct kunit_case credit_cases[] = {
	KUNIT_CASE(credit_first_grant),
	KUNIT_CASE(credit_piggyback),
	KUNIT_CASE(credit_update_due),
	KUNIT_CASE(credit_protocol_errors),
	KUNIT_CASE(credit_rq_extra),
	KUNIT_CASE(credit_model),
	KUNIT_CASE(credit_model_batch),
	{}
};

static struct kunit_suite credit_suite = {
	.name = "ibtick_credit",
	.test_cases = credit_cases,
};
kunit_test_suite(credit_suite);
