// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the feed ring (kmod/ring.c) - geometry, the producer, the reader
 * protocol with laps, validation after read, and index wrap-around.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ring.h"

static void ring_geometry(struct kunit *test)
{
	static const struct {
		u32 nslots, slot_size;
		int err;
		u64 size;
	} cases[] = {
		{ 4096, 256, 0, 4096ULL * 256 + sizeof(struct ibtick_ring_hdr) },
		{ 64, 64, 0, 64 * 64 + sizeof(struct ibtick_ring_hdr) },
		{ 0, 256, -EINVAL, 0 },
		{ 32, 256, -EINVAL, 0 },		/* below the minimum */
		{ 100, 256, -EINVAL, 0 },		/* not a power of two */
		{ 4096, 0, -EINVAL, 0 },
		{ 4096, 48, -EINVAL, 0 },		/* smaller than 64 */
		{ 4096, 384, -EINVAL, 0 },		/* not a power of two */
		{ 4096, 16384, -EINVAL, 0 },		/* above the maximum */
		{ 1U << 21, 64, -EINVAL, 0 },		/* too many slots */
		/* each within its own limit, 8 GiB together: u64 math refuses */
		{ 1U << 20, 8192, -EINVAL, 0 },
		{ 0x80000000U, 0x80000000U, -EINVAL, 0 },
		{ ~0U, ~0U, -EINVAL, 0 },
	};
	unsigned int i;
	u64 size;
	int err;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size = 0;
		err = ibt_ring_geometry(cases[i].nslots, cases[i].slot_size, &size);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "case %u", i);
		if (!err)
			KUNIT_EXPECT_EQ_MSG(test, size, cases[i].size, "case %u", i);
	}
	/* 2^15 x 8 KiB = 256 MiB of slots, plus the header: over the cap */
	KUNIT_EXPECT_EQ(test, ibt_ring_geometry(1 << 15, 8192, &size), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_ring_geometry(1 << 14, 8192, &size), 0);
	KUNIT_EXPECT_EQ(test, size, (1ULL << 27) + sizeof(struct ibtick_ring_hdr));
}

struct ring_fixture {
	struct ibt_ring r;
	void *mem;
};

static struct ibt_ring *ring_new(struct kunit *test, u32 nslots, u32 slot_size,
				 u64 start)
{
	struct ring_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	u64 size;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, ibt_ring_geometry(nslots, slot_size, &size), 0);
	f->mem = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->mem);
	ibt_ring_init(&f->r, f->mem, nslots, slot_size, start);
	return &f->r;
}

/* Tick @idx carries its own index in pub_seq and in its payload. */
static void produce(struct ibt_ring *r, u64 n)
{
	while (n--) {
		u64 idx = ibt_ring_producer(r);
		struct ibtick_slot *s = ibt_ring_begin(r, idx);

		s->pub_seq = idx;
		s->len = sizeof(u64);
		memcpy(s + 1, &idx, sizeof(idx));
		ibt_ring_commit(r, s, idx);
	}
}

/*
 * Read everything available; check order and contents.  Returns the number
 * delivered; *lost accumulates.
 */
static u64 drain(struct kunit *test, struct ibt_ring *r, u64 *cursor, u64 *lost)
{
	const struct ibtick_slot *s;
	u64 n = 0, payload, last = *cursor - 1;

	while ((s = ibt_ring_peek(r, cursor, lost))) {
		memcpy(&payload, s + 1, sizeof(payload));
		KUNIT_EXPECT_TRUE(test, ibt_ring_still_valid(r, s, *cursor));
		KUNIT_EXPECT_EQ(test, payload, *cursor);
		KUNIT_EXPECT_EQ(test, s->pub_seq, *cursor);
		KUNIT_EXPECT_TRUE(test, (s64)(*cursor - last) > 0);
		last = *cursor;
		(*cursor)++;
		n++;
	}
	return n;
}

static void ring_header(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 128, 0);

	KUNIT_EXPECT_EQ(test, r->hdr->magic, (u32)IBTICK_RING_MAGIC);
	KUNIT_EXPECT_EQ(test, r->hdr->version, (u32)IBTICK_RING_VERSION);
	KUNIT_EXPECT_EQ(test, r->hdr->nslots, 64U);
	KUNIT_EXPECT_EQ(test, r->hdr->slot_size, 128U);
	KUNIT_EXPECT_EQ(test, r->hdr->slots_off, (u64)sizeof(struct ibtick_ring_hdr));
	KUNIT_EXPECT_EQ(test, r->payload_max, 128U - (u32)sizeof(struct ibtick_slot));
	KUNIT_EXPECT_EQ(test, r->hdr->producer, 0ULL);
	/* the ABI's cache-line layout */
	KUNIT_EXPECT_EQ(test, offsetof(struct ibtick_ring_hdr, producer), (size_t)64);
	KUNIT_EXPECT_EQ(test, offsetof(struct ibtick_ring_hdr, flags), (size_t)128);
	KUNIT_EXPECT_EQ(test, sizeof(struct ibtick_ring_hdr), (size_t)192);
}

static void ring_in_order(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 64, 0);
	u64 cursor = 0, lost = 0;

	KUNIT_EXPECT_NULL(test, ibt_ring_peek(r, &cursor, &lost));
	produce(r, 10);
	KUNIT_EXPECT_EQ(test, ibt_ring_backlog(r, cursor), 10ULL);
	KUNIT_EXPECT_EQ(test, drain(test, r, &cursor, &lost), 10ULL);
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
	KUNIT_EXPECT_EQ(test, cursor, 10ULL);
	KUNIT_EXPECT_EQ(test, ibt_ring_backlog(r, cursor), 0ULL);
	/* a full ring, exactly: nothing lost */
	produce(r, 64);
	KUNIT_EXPECT_EQ(test, ibt_ring_backlog(r, cursor), 64ULL);
	KUNIT_EXPECT_EQ(test, drain(test, r, &cursor, &lost), 64ULL);
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
}

static void ring_lapped(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 64, 0);
	u64 cursor = 0, lost = 0, got;

	produce(r, 200);
	KUNIT_EXPECT_EQ(test, ibt_ring_backlog(r, cursor), 64ULL);
	got = drain(test, r, &cursor, &lost);
	/* the 64 newest survive; the 136 before them are counted */
	KUNIT_EXPECT_EQ(test, got, 64ULL);
	KUNIT_EXPECT_EQ(test, lost, 136ULL);
	KUNIT_EXPECT_EQ(test, got + lost, 200ULL);
	/* one more than a ring: exactly one lost */
	lost = 0;
	produce(r, 65);
	got = drain(test, r, &cursor, &lost);
	KUNIT_EXPECT_EQ(test, got, 64ULL);
	KUNIT_EXPECT_EQ(test, lost, 1ULL);
}

/* Overwritten while being copied: the copy is refused and counted. */
static void ring_torn_copy(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 64, 0);
	const struct ibtick_slot *s;
	u64 cursor = 0, lost = 0;
	struct ibtick_slot *w;

	produce(r, 5);
	s = ibt_ring_peek(r, &cursor, &lost);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, cursor, 0ULL);
	/* the producer laps the reader mid-copy: 60 more reuse slot 0 */
	produce(r, 60);
	KUNIT_EXPECT_FALSE(test, ibt_ring_still_valid(r, s, cursor));
	ibt_ring_skip_lapped(r, &cursor, &lost);
	/* producer at 65: only tick 0 was overwritten; 1 is next */
	KUNIT_EXPECT_EQ(test, cursor, 1ULL);
	KUNIT_EXPECT_EQ(test, lost, 1ULL);
	KUNIT_EXPECT_EQ(test, drain(test, r, &cursor, &lost) + lost, 65ULL);

	/* a write in progress (begun, not committed) is never returned */
	cursor = ibt_ring_producer(r) - 64;
	lost = 0;
	w = ibt_ring_begin(r, ibt_ring_producer(r));
	s = ibt_ring_peek(r, &cursor, &lost);
	/* the slot of the oldest tick is the one being rewritten: skipped */
	KUNIT_EXPECT_EQ(test, lost, 1ULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_PTR_NE(test, (const void *)s, (const void *)w);
	ibt_ring_commit(r, w, ibt_ring_producer(r));
}

static void ring_wrap(struct kunit *test)
{
	static const u64 starts[] = {
		0xffffffffULL - 20,		/* 2^32 */
		0ULL - 20,			/* 2^64 */
		0ULL - 1,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		struct ibt_ring *r = ring_new(test, 64, 64, starts[i]);
		u64 cursor = starts[i], lost = 0, got;

		KUNIT_EXPECT_NULL(test, ibt_ring_peek(r, &cursor, &lost));
		produce(r, 50);
		got = drain(test, r, &cursor, &lost);
		KUNIT_EXPECT_EQ(test, got, 50ULL);
		KUNIT_EXPECT_EQ(test, lost, 0ULL);
		KUNIT_EXPECT_EQ(test, cursor, starts[i] + 50);
		/* lapped across the boundary */
		produce(r, 100);
		got = drain(test, r, &cursor, &lost);
		KUNIT_EXPECT_EQ(test, got, 64ULL);
		KUNIT_EXPECT_EQ(test, lost, 36ULL);
		KUNIT_EXPECT_EQ(test, cursor, starts[i] + 150);
	}
}

/*
 * Conservation under a random interleaving: the producer advances by random
 * bursts, sometimes between a reader's peek and its validation.  Every index
 * is delivered once, in order, or counted lost once.
 */
static void ring_conservation(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 64, 0xfffffffffffff000ULL);
	u64 cursor = ibt_ring_producer(r), start = cursor;
	u64 lost = 0, got = 0, last = cursor - 1, payload;
	const struct ibtick_slot *s;
	u32 seed = 12345;
	int step;

	for (step = 0; step < 20000; step++) {
		seed = seed * 1103515245 + 12345;
		produce(r, (seed >> 16) % 40);
		s = ibt_ring_peek(r, &cursor, &lost);
		if (!s)
			continue;
		memcpy(&payload, s + 1, sizeof(payload));
		if ((seed >> 8) % 4 == 0)
			produce(r, (seed >> 20) % 70);	/* mid-copy */
		if (!ibt_ring_still_valid(r, s, cursor)) {
			ibt_ring_skip_lapped(r, &cursor, &lost);
			continue;
		}
		KUNIT_ASSERT_EQ(test, payload, cursor);
		KUNIT_ASSERT_TRUE(test, (s64)(cursor - last) > 0);
		last = cursor++;
		got++;
	}
	got += drain(test, r, &cursor, &lost);
	KUNIT_EXPECT_EQ(test, got + lost, ibt_ring_producer(r) - start);
	KUNIT_EXPECT_GT(test, got, 0ULL);
	KUNIT_EXPECT_GT(test, lost, 0ULL);
}

/*
 * DEAD: set after the last tick; readers see it (acquire) and still read
 * every tick that was committed before it, and nothing after.
 */
static void ring_dead(struct kunit *test)
{
	struct ibt_ring *r = ring_new(test, 64, 64, 1000);
	u64 cursor = 1000, lost = 0;

	produce(r, 5);
	KUNIT_EXPECT_EQ(test, ibt_ring_flags(r) & IBTICK_RING_DEAD, 0U);
	ibt_ring_set_dead(r);
	KUNIT_EXPECT_EQ(test, ibt_ring_flags(r) & IBTICK_RING_DEAD,
			(u32)IBTICK_RING_DEAD);
	/* the flag is its own cache line: the producer index is untouched */
	KUNIT_EXPECT_EQ(test, ibt_ring_producer(r), 1005ULL);
	KUNIT_EXPECT_EQ(test, drain(test, r, &cursor, &lost), 5ULL);
	KUNIT_EXPECT_EQ(test, lost, 0ULL);
	KUNIT_EXPECT_NULL(test, ibt_ring_peek(r, &cursor, &lost));
	/* setting it twice keeps it, and keeps other bits */
	r->hdr->flags |= 1U << 7;
	ibt_ring_set_dead(r);
	KUNIT_EXPECT_EQ(test, ibt_ring_flags(r), IBTICK_RING_DEAD | (1U << 7));
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_geometry),
	KUNIT_CASE(ring_header),
	KUNIT_CASE(ring_in_order),
	KUNIT_CASE(ring_lapped),
	KUNIT_CASE(ring_torn_copy),
	KUNIT_CASE(ring_wrap),
	KUNIT_CASE(ring_conservation),
	KUNIT_CASE(ring_dead),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "ibtick_ring",
	.test_cases = ring_cases,
};

kunit_test_suite(ring_suite);
