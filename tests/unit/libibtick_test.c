// SPDX-License-Identifier: GPL-2.0
/*
 * libibtick's reader against rings in ordinary memory.
 *
 * The rings are written by a test producer ("tp" below) that implements the
 * kernel's side of the ring contract in <linux/ibtick.h> the way
 * kmod/ring.c does (ibt_ring_init, ibt_ring_begin, ibt_ring_commit,
 * ibt_ring_set_dead), with C11 atomics in place of the kernel's barriers:
 *
 *	WRITE_ONCE(seq, i - 1); smp_wmb()   -> relaxed store; release fence (A)
 *	smp_store_release(seq, i)           -> release store                (B)
 *	smp_store_release(producer, i + 1)  -> release store                (E)
 *
 * Every ring sits at the very end of an anonymous mapping followed by an
 * inaccessible guard page, so that a reader running off the last slot
 * faults instead of silently reading neighbouring memory.
 *
 * Tick contents are derived from the index alone: pub_seq == idx and every
 * 8-byte payload word == idx ^ PAT_K, so any copy can be checked for being
 * intact without knowing anything else.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libibtick.h"
#include "unit.h"

#define PAT_K		0x9e3779b97f4a7c15ULL
#define HDR_SIZE	sizeof(struct ibtick_ring_hdr)
#define DESC_SIZE	sizeof(struct ibtick_slot)

/* C11 atomic access to the plain __u64/__u32 fields of the uapi structs. */
#define TP_STORE(p, v, mo)						\
	atomic_store_explicit((_Atomic __typeof__(*(p)) *)(p), (v),	\
			      memory_order_##mo)
#define TP_LOAD(p, mo)							\
	atomic_load_explicit((_Atomic __typeof__(*(p)) *)(p),		\
			     memory_order_##mo)

/* ---- the test producer ------------------------------------------------ */

struct tp {
	struct ibtick_ring_hdr	*hdr;
	uint8_t			*slots;
	uint32_t		nslots;
	uint32_t		mask;
	uint32_t		slot_size;
	uint32_t		payload_max;
	size_t			size;		/* header + slots */
	void			*map;
	size_t			map_len;
};

static struct ibtick_slot *tp_slot(const struct tp *p, uint64_t idx)
{
	return (struct ibtick_slot *)(p->slots +
				      (size_t)(idx & p->mask) * p->slot_size);
}

/* As ibt_ring_init(): the producer starts at @start. */
static void tp_init(struct tp *p, uint32_t nslots, uint32_t slot_size,
		    uint64_t start)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->size = HDR_SIZE + (size_t)nslots * slot_size;
	p->map_len = (p->size + pg - 1) / pg * pg + pg;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->map == MAP_FAILED ||
	    mprotect((uint8_t *)p->map + p->map_len - pg, pg, PROT_NONE)) {
		perror("tp_init");
		abort();
	}
	/* the last slot ends where the guard page begins */
	p->hdr = (void *)((uint8_t *)p->map + p->map_len - pg - p->size);
	p->slots = (uint8_t *)p->hdr + HDR_SIZE;
	p->nslots = nslots;
	p->mask = nslots - 1;
	p->slot_size = slot_size;
	p->payload_max = slot_size - DESC_SIZE;

	p->hdr->magic = IBTICK_RING_MAGIC;
	p->hdr->version = IBTICK_RING_VERSION;
	p->hdr->nslots = nslots;
	p->hdr->slot_size = slot_size;
	p->hdr->slots_off = HDR_SIZE;
	p->hdr->producer = start;
	/* no slot may look like it holds a tick at or after @start */
	for (i = 0; i < nslots; i++)
		tp_slot(p, start + i)->seq = start + i - nslots;
}

static void tp_free(struct tp *p)
{
	munmap(p->map, p->map_len);
	p->map = NULL;
}

/* Only the producer writes hdr->producer: its own load needs no ordering. */
static uint64_t tp_producer(const struct tp *p)
{
	return TP_LOAD(&p->hdr->producer, relaxed);
}

/* As ibt_ring_begin(): busy mark, then (A). */
static struct ibtick_slot *tp_begin(struct tp *p, uint64_t idx)
{
	struct ibtick_slot *s = tp_slot(p, idx);

	TP_STORE(&s->seq, idx - 1, relaxed);
	atomic_thread_fence(memory_order_release);		/* (A) */
	return s;
}

/* As ibt_ring_commit(): (B) then (E). */
static void tp_commit(struct tp *p, struct ibtick_slot *s, uint64_t idx)
{
	TP_STORE(&s->seq, idx, release);			/* (B) */
	TP_STORE(&p->hdr->producer, idx + 1, release);		/* (E) */
}

/* As ibt_ring_set_dead(). */
static void tp_set_dead(struct tp *p)
{
	TP_STORE(&p->hdr->flags, p->hdr->flags | IBTICK_RING_DEAD, release);
}

static uint64_t pat_word(uint64_t idx)
{
	return idx ^ PAT_K;
}

/* The descriptor and payload of tick @idx, @len bytes (<= payload_max). */
static void tp_fill(const struct tp *p, struct ibtick_slot *s, uint64_t idx,
		    uint32_t len)
{
	uint64_t *w = (uint64_t *)(s + 1);
	uint32_t i;

	s->pub_seq = idx;
	s->rx_ns = idx + 1;
	s->send_ns = idx + 2;
	s->pub_id = (uint32_t)idx * 2654435761u;
	s->len = (uint16_t)len;
	s->flags = 0;
	s->orig_len = len;
	s->gap = 0;
	/* whole words: payload_max is a multiple of 8 */
	for (i = 0; i < (len + 7) / 8 && i < p->payload_max / 8; i++)
		w[i] = pat_word(idx);
}

/* One whole tick of @len bytes; returns its index. */
static uint64_t tp_produce(struct tp *p, uint32_t len)
{
	uint64_t idx = tp_producer(p);
	struct ibtick_slot *s = tp_begin(p, idx);

	tp_fill(p, s, idx, len);
	tp_commit(p, s, idx);
	return idx;
}

static void tp_produce_n(struct tp *p, unsigned int n, uint32_t len)
{
	while (n--)
		tp_produce(p, len);
}

/* ---- checking what a reader got ------------------------------------- */

static bool payload_ok(const void *data, uint64_t idx, uint32_t len)
{
	uint8_t want[IBTICK_SLOT_SIZE_MAX];
	uint64_t w = pat_word(idx);
	uint32_t i;

	for (i = 0; i < len; i += 8)
		memcpy(want + i, &w, 8);
	return !memcmp(data, want, len);
}

/* @t (from ibtick_next) is tick @idx of @len bytes, untouched since. */
static bool tick_ok(const struct ibtick_tick *t, uint64_t idx, uint32_t len)
{
	return t->idx == idx && t->len == len && t->slot &&
	       t->data == (const void *)(t->slot + 1) &&
	       t->slot->seq == idx && t->slot->pub_seq == idx &&
	       t->slot->orig_len == len && payload_ok(t->data, idx, len);
}

/* Every index seen by @r so far was either delivered or counted lost. */
static bool accounted(const struct ibtick_reader *r, uint64_t start)
{
	return r->cursor - start == r->delivered + r->lost;
}

/* Reads everything there is with next/done; returns how many were delivered. */
static uint64_t drain(struct ibtick_reader *r, uint32_t len, bool *ok)
{
	struct ibtick_tick t = { 0 };
	uint64_t n = 0;

	while (ibtick_next(r, &t)) {
		if (!tick_ok(&t, r->cursor, len) || t.lost)
			*ok = false;
		if (!ibtick_done(r, &t))
			*ok = false;
		n++;
	}
	if (t.lost)
		*ok = false;
	return n;
}

static int reader_on(struct ibtick_reader *r, const struct tp *p,
		     uint64_t cursor)
{
	return ibtick_reader_init_mem(r, p->hdr, p->size, cursor);
}

/* ---- cases -------------------------------------------------------------- */

static void lib_basic_delivery(void)
{
	static const uint32_t lens[] = { 0, 1, 7, 8, 128 - DESC_SIZE };
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 };
	struct tp p;
	uint64_t k;
	bool ok = true;

	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	CHECK(r.fd == -1 && r.hdr == p.hdr);
	CHECK(r.slots == p.slots);
	CHECK(r.nslots == 16 && r.mask == 15 && r.slot_size == 128);
	CHECK(r.payload_max == 128 - DESC_SIZE);
	CHECK(r.cursor == 0 && r.lost == 0 && r.delivered == 0);

	/* an empty ring */
	t.lost = 99;
	CHECK(ibtick_next(&r, &t) == 0);
	CHECK(t.lost == 0);
	CHECK(ibtick_backlog(&r) == 0);

	for (k = 0; k < 5; k++)
		tp_produce(&p, lens[k]);
	CHECK(ibtick_backlog(&r) == 5);
	for (k = 0; k < 5; k++) {
		CHECK(ibtick_next(&r, &t) == 1);
		CHECK(tick_ok(&t, k, lens[k]));
		CHECK(t.lost == 0);
		CHECK(t.slot->rx_ns == k + 1 && t.slot->send_ns == k + 2);
		CHECK(ibtick_done(&r, &t));
		CHECK(r.cursor == k + 1);
		CHECK(ibtick_backlog(&r) == 4 - k);
	}
	CHECK(ibtick_next(&r, &t) == 0);
	CHECK(t.lost == 0);
	CHECK(r.delivered == 5 && r.lost == 0 && r.cursor == 5);

	/* next() twice hands out the same tick; done() twice counts it once */
	tp_produce(&p, 16);
	CHECK(ibtick_next(&r, &t) == 1 && t.idx == 5);
	CHECK(ibtick_next(&r, &t) == 1 && t.idx == 5);
	CHECK(tick_ok(&t, 5, 16));
	CHECK(ibtick_done(&r, &t));
	CHECK(!ibtick_done(&r, &t));
	CHECK(r.delivered == 6 && r.lost == 0 && r.cursor == 6);
	CHECK(ibtick_next(&r, &t) == 0);

	/* the backlog is capped at nslots */
	tp_produce_n(&p, 40, 16);
	CHECK(ibtick_backlog(&r) == 16);

	/* a reader that starts in the middle */
	CHECK(reader_on(&r, &p, 40) == 0);
	CHECK(ibtick_backlog(&r) == 6);
	CHECK(drain(&r, 16, &ok) == 6 && ok);
	CHECK(r.delivered == 6 && r.lost == 0 && r.cursor == 46);

	/* a cursor ahead of the producer: nothing yet, nothing lost */
	CHECK(reader_on(&r, &p, 50) == 0);
	CHECK(ibtick_next(&r, &t) == 0);
	CHECK(t.lost == 0 && r.lost == 0 && r.cursor == 50);
	CHECK(ibtick_backlog(&r) == 0);
	tp_produce_n(&p, 4, 16);			/* 46..49 */
	CHECK(ibtick_next(&r, &t) == 0);
	tp_produce(&p, 24);				/* 50 */
	CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, 50, 24));
	CHECK(ibtick_done(&r, &t));
	tp_free(&p);
}

static void lib_lap(void)
{
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 };
	struct tp p;
	bool ok = true;

	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce_n(&p, 53, 32);			/* 0..52 */
	CHECK(ibtick_backlog(&r) == 16);

	/* 53 - 16 = 37 overwritten: resume at producer - nslots */
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.lost == 37 && r.lost == 37);
	CHECK(tick_ok(&t, 37, 32));
	CHECK(ibtick_done(&r, &t));
	CHECK(t.lost == 37);
	CHECK(drain(&r, 32, &ok) == 15 && ok);
	CHECK(r.delivered == 16 && r.lost == 37 && r.cursor == 53);
	CHECK(r.delivered + r.lost == 53);

	/* exactly nslots behind: nothing lost */
	tp_produce_n(&p, 16, 32);			/* 53..68 */
	CHECK(ibtick_backlog(&r) == 16);
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.lost == 0 && tick_ok(&t, 53, 32));
	CHECK(ibtick_done(&r, &t));

	/* one more than nslots behind: exactly one lost */
	tp_produce_n(&p, 2, 32);			/* 69, 70: 54 overwritten */
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.lost == 1 && tick_ok(&t, 55, 32));
	CHECK(ibtick_done(&r, &t));
	CHECK(r.lost == 38);

	/* a second lap */
	tp_produce_n(&p, 40, 32);			/* 71..110 */
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.lost == 95 - 56 && tick_ok(&t, 95, 32));
	CHECK(ibtick_done(&r, &t));
	CHECK(drain(&r, 32, &ok) == 15 && ok);
	CHECK(r.lost == 38 + 39 && r.delivered == 16 + 2 + 16);
	CHECK(r.cursor == 111 && accounted(&r, 0));
	CHECK(r.delivered + r.lost == tp_producer(&p));
	tp_free(&p);
}

static void lib_validate_after_read(void)
{
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 }, t2 = { 0 };
	struct ibtick_slot *s;
	struct tp p;
	bool ok = true;

	/* tick 0 is overwritten (by 16) between next() and done() */
	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce(&p, 8);
	CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, 0, 8));
	tp_produce_n(&p, 16, 8);			/* 1..16 */
	CHECK(!ibtick_done(&r, &t));
	CHECK(t.lost == 1);
	CHECK(r.lost == 1 && r.delivered == 0 && r.cursor == 1);
	/* counted once, however often the caller asks */
	CHECK(!ibtick_done(&r, &t));
	CHECK(r.lost == 1 && r.cursor == 1);
	CHECK(ibtick_next(&r, &t) == 1 && t.lost == 0 && tick_ok(&t, 1, 8));
	CHECK(ibtick_done(&r, &t));
	CHECK(drain(&r, 8, &ok) == 15 && ok);
	CHECK(r.delivered == 16 && r.lost == 1 && r.cursor == 17);
	tp_free(&p);

	/* overwritten meanwhile, and so were the ones after it */
	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce_n(&p, 3, 8);				/* 0..2 */
	CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, 0, 8));
	tp_produce_n(&p, 16, 8);			/* 3..18 */
	CHECK(!ibtick_done(&r, &t));
	CHECK(t.lost == 3 && r.lost == 3 && r.cursor == 3);
	CHECK(ibtick_next(&r, &t) == 1 && t.lost == 0 && tick_ok(&t, 3, 8));
	CHECK(ibtick_done(&r, &t));
	CHECK(drain(&r, 8, &ok) == 15 && ok);
	CHECK(r.delivered + r.lost == 19 && r.lost == 3);
	tp_free(&p);

	/*
	 * The busy mark: the producer has begun overwriting slot 0 (tick 16)
	 * while the reader holds tick 0, and scribbled half of it.
	 */
	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce_n(&p, 16, 64);			/* 0..15 */
	CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, 0, 64));
	s = tp_begin(&p, 16);
	CHECK(s == t.slot && s->seq == 15);
	memset(s + 1, 0xa5, 32);
	s->pub_seq = 0xdead;
	CHECK(!ibtick_done(&r, &t));
	CHECK(t.lost == 1 && r.lost == 1 && r.cursor == 1);
	CHECK(ibtick_next(&r, &t2) == 1 && t2.lost == 0 &&
	      tick_ok(&t2, 1, 64));
	CHECK(ibtick_done(&r, &t2));
	tp_fill(&p, s, 16, 64);
	tp_commit(&p, s, 16);
	CHECK(drain(&r, 64, &ok) == 15 && ok);		/* 2..16 */
	CHECK(r.delivered == 16 && r.lost == 1 && r.cursor == 17);
	tp_free(&p);

	/* busy mark seen by next(): the half-written tick is never handed out */
	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce_n(&p, 16, 64);			/* 0..15 */
	s = tp_begin(&p, 16);
	memset(s + 1, 0x5a, 64);
	CHECK(ibtick_backlog(&r) == 16);
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.idx == 1 && t.lost == 1 && tick_ok(&t, 1, 64));
	CHECK(ibtick_done(&r, &t));
	tp_fill(&p, s, 16, 64);
	tp_commit(&p, s, 16);
	CHECK(drain(&r, 64, &ok) == 15 && ok);
	CHECK(r.delivered == 16 && r.lost == 1 && accounted(&r, 0));
	tp_free(&p);

	/* busy mark on the next tick of a caught-up reader: not there yet */
	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce_n(&p, 4, 64);
	CHECK(drain(&r, 64, &ok) == 4 && ok);
	s = tp_begin(&p, 4);
	memset(s + 1, 0x3c, 64);
	CHECK(ibtick_next(&r, &t) == 0 && t.lost == 0);
	CHECK(ibtick_backlog(&r) == 0);
	tp_fill(&p, s, 4, 64);
	tp_commit(&p, s, 4);
	CHECK(ibtick_next(&r, &t) == 1 && t.lost == 0 && tick_ok(&t, 4, 64));
	CHECK(ibtick_done(&r, &t));
	CHECK(r.delivered == 5 && r.lost == 0);
	tp_free(&p);
}

/* The same scenarios around the index boundary @b (the first index past it). */
static void wrap_at(uint64_t b)
{
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 };
	struct tp p;
	uint64_t start = b - 20, k;
	bool ok = true;

	/* straight through the boundary */
	tp_init(&p, 16, 128, start);
	CHECK(reader_on(&r, &p, start) == 0);
	CHECK(ibtick_next(&r, &t) == 0 && t.lost == 0);
	tp_produce_n(&p, 15, 24);			/* b-20 .. b-6 */
	for (k = 0; k < 12; k++) {
		CHECK(ibtick_next(&r, &t) == 1);
		CHECK(t.lost == 0 && tick_ok(&t, start + k, 24));
		CHECK(ibtick_done(&r, &t));
	}
	tp_produce_n(&p, 13, 24);			/* b-5 .. b+7 */
	CHECK(ibtick_backlog(&r) == 16);
	CHECK(drain(&r, 24, &ok) == 16 && ok);
	CHECK(r.cursor == b + 8 && r.delivered == 28 && r.lost == 0);
	CHECK(ibtick_next(&r, &t) == 0 && t.lost == 0);
	tp_free(&p);

	/* a lap across the boundary */
	tp_init(&p, 16, 128, start);
	CHECK(reader_on(&r, &p, start) == 0);
	tp_produce_n(&p, 10, 24);			/* b-20 .. b-11 */
	for (k = 0; k < 3; k++) {
		CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, start + k, 24));
		CHECK(ibtick_done(&r, &t));
	}
	tp_produce_n(&p, 40, 24);			/* .. b+29 */
	CHECK(tp_producer(&p) == b + 30);
	CHECK(ibtick_backlog(&r) == 16);
	CHECK(ibtick_next(&r, &t) == 1);
	CHECK(t.lost == 31 && tick_ok(&t, b + 14, 24));
	CHECK(ibtick_done(&r, &t));
	CHECK(drain(&r, 24, &ok) == 15 && ok);
	CHECK(r.delivered == 19 && r.lost == 31 && r.cursor == b + 30);
	CHECK(accounted(&r, start));
	tp_free(&p);

	/* overwritten between next() and done(), just before the boundary */
	tp_init(&p, 16, 128, b - 2);
	CHECK(reader_on(&r, &p, b - 2) == 0);
	tp_produce(&p, 24);				/* b-2 */
	CHECK(ibtick_next(&r, &t) == 1 && tick_ok(&t, b - 2, 24));
	tp_produce_n(&p, 17, 24);			/* b-1 .. b+15 */
	CHECK(!ibtick_done(&r, &t));
	CHECK(t.lost == 2 && r.lost == 2 && r.cursor == b);
	CHECK(ibtick_next(&r, &t) == 1 && t.lost == 0 && tick_ok(&t, b, 24));
	CHECK(ibtick_done(&r, &t));
	CHECK(drain(&r, 24, &ok) == 15 && ok);
	CHECK(r.delivered == 16 && r.lost == 2 && r.cursor == b + 16);

	/* ibtick_read() and the backlog across it too */
	CHECK(reader_on(&r, &p, b - 3) == 0);		/* lapped: b-3 .. b-1 */
	CHECK(ibtick_backlog(&r) == 16);
	{
		uint8_t buf[128];
		struct ibtick_slot d;
		uint64_t lost = 0;

		CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == 24);
		CHECK(lost == 3 && d.seq == b && d.pub_seq == b);
		CHECK(payload_ok(buf, b, 24));
	}
	tp_free(&p);
}

static void lib_wrap(void)
{
	wrap_at(1ULL << 32);
	wrap_at(0);			/* 2^64 */
	wrap_at(1ULL << 63);		/* where the signed difference flips */
}

static void lib_dead(void)
{
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 };
	struct tp p;
	bool ok = true;

	tp_init(&p, 16, 128, 7);
	CHECK(reader_on(&r, &p, 7) == 0);
	CHECK(!ibtick_dead(&r));
	/* no socket: wait cannot block, arm has nothing to tell */
	errno = 0;
	CHECK(ibtick_wait(&r, 0) == -1 && errno == ENOTSOCK);
	errno = 0;
	CHECK(ibtick_arm(&r) == -1 && errno == ENOTSOCK);

	tp_produce_n(&p, 3, 16);
	CHECK(ibtick_wait(&r, -1) == 1);		/* backlog */
	p.hdr->flags = 1U << 5;				/* some other flag */
	CHECK(!ibtick_dead(&r));
	tp_set_dead(&p);
	CHECK(ibtick_dead(&r));
	CHECK(p.hdr->flags == (IBTICK_RING_DEAD | 1U << 5));
	/* what is in the ring stays readable */
	CHECK(drain(&r, 16, &ok) == 3 && ok);
	CHECK(r.delivered == 3 && r.lost == 0 && r.cursor == 10);
	CHECK(ibtick_next(&r, &t) == 0);
	CHECK(ibtick_wait(&r, -1) == 1);		/* dead: never blocks */
	CHECK(ibtick_dead(&r));

	/* close of a reader on memory: forgets the ring, frees nothing */
	ibtick_reader_close(&r);
	CHECK(r.hdr == NULL && r.fd == -1 && r.map == NULL);
	CHECK(p.hdr->magic == IBTICK_RING_MAGIC);
	tp_free(&p);
}

/*
 * Overwriting a tick while ibtick_read() copies it, with no second thread:
 * the destination buffer starts read-only, and the fault taken by the
 * library's copy runs the producer (a lap's worth of ticks over the one being
 * copied) before the buffer is made writable and the copy resumes.
 */
static struct {
	struct tp	*p;
	uint8_t		*page;
	size_t		pg;
	unsigned int	ticks;		/* to produce at the fault */
	uint32_t	len;
	int		faults;
} lap_in_copy;

static void lap_in_copy_fault(int sig, siginfo_t *si, void *uc)
{
	uint8_t *a = si->si_addr;

	(void)uc;
	if (a < lap_in_copy.page || a >= lap_in_copy.page + lap_in_copy.pg ||
	    lap_in_copy.faults++) {
		signal(sig, SIG_DFL);		/* not ours: crash for real */
		return;
	}
	tp_produce_n(lap_in_copy.p, lap_in_copy.ticks, lap_in_copy.len);
	mprotect(lap_in_copy.page, lap_in_copy.pg, PROT_READ | PROT_WRITE);
}

static void read_lapped_in_copy(void)
{
	struct sigaction sa, old;
	struct ibtick_reader r;
	struct ibtick_slot d;
	struct tp p;
	uint64_t lost = 0;
	ssize_t n;

	tp_init(&p, 16, 128, 0);
	tp_produce_n(&p, 4, 64);			/* 0..3 */
	CHECK(reader_on(&r, &p, 0) == 0);
	lap_in_copy.p = &p;
	lap_in_copy.pg = (size_t)sysconf(_SC_PAGESIZE);
	lap_in_copy.page = mmap(NULL, lap_in_copy.pg, PROT_READ,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(lap_in_copy.page != MAP_FAILED);
	if (lap_in_copy.page == MAP_FAILED)
		return;
	lap_in_copy.ticks = 16;				/* 4..19: 0..3 gone */
	lap_in_copy.len = 64;
	lap_in_copy.faults = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = lap_in_copy_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);

	memset(&d, 0, sizeof(d));
	n = ibtick_read(&r, lap_in_copy.page, 128, &d, &lost);

	sigaction(SIGSEGV, &old, NULL);
	CHECK(lap_in_copy.faults == 1);
	/* tick 0 was read but overwritten: dropped, with 1..3; 4 instead */
	CHECK(n == 64 && d.seq == 4 && d.pub_seq == 4 && d.len == 64);
	CHECK(payload_ok(lap_in_copy.page, 4, 64));
	CHECK(lost == 4 && r.lost == 4 && r.delivered == 1 && r.cursor == 5);
	munmap(lap_in_copy.page, lap_in_copy.pg);
	tp_free(&p);
}

static void lib_read(void)
{
	struct ibtick_reader r;
	struct ibtick_slot d;
	uint8_t buf[256];
	struct tp p;
	uint64_t lost = 7, k;
	ssize_t n;

	tp_init(&p, 16, 128, 0);
	CHECK(reader_on(&r, &p, 0) == 0);
	tp_produce(&p, 10);
	tp_produce(&p, 24);
	tp_produce(&p, 80);

	memset(buf, 0xee, sizeof(buf));
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == 10);
	CHECK(payload_ok(buf, 0, 10) && buf[10] == 0xee);
	CHECK(d.seq == 0 && d.pub_seq == 0 && d.len == 10 && d.orig_len == 10);
	CHECK(lost == 7);				/* added to, not set */
	CHECK(r.delivered == 1 && r.cursor == 1);

	/* a short buffer: cut to it; desc.len still says what the slot held */
	memset(buf, 0xee, sizeof(buf));
	CHECK(ibtick_read(&r, buf, 5, &d, &lost) == 5);
	CHECK(payload_ok(buf, 1, 5) && buf[5] == 0xee);
	CHECK(d.pub_seq == 1 && d.len == 24);
	CHECK(lost == 7 && r.delivered == 2);

	/* no descriptor, no loss counter */
	CHECK(ibtick_read(&r, buf, sizeof(buf), NULL, NULL) == 80);
	CHECK(payload_ok(buf, 2, 80));

	/* caught up: -1/EAGAIN, and nothing else touched */
	memset(&d, 0x5c, sizeof(d));
	errno = 0;
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == -1 && errno == EAGAIN);
	CHECK(lost == 7 && d.seq == 0x5c5c5c5c5c5c5c5cULL);
	errno = 0;
	CHECK(ibtick_read(&r, buf, sizeof(buf), NULL, NULL) == -1 && errno == EAGAIN);
	CHECK(r.delivered == 3 && r.lost == 0 && r.cursor == 3);

	/* lapped: 43 - 16 = 27 is the oldest left; 3..26 are lost */
	tp_produce_n(&p, 40, 40);			/* 3..42 */
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == 40);
	CHECK(lost == 7 + 24 && r.lost == 24);
	CHECK(d.seq == 27 && d.pub_seq == 27 && payload_ok(buf, 27, 40));
	for (k = 28; k < 43; k++) {
		n = ibtick_read(&r, buf, sizeof(buf), &d, &lost);
		CHECK(n == 40 && d.pub_seq == k && payload_ok(buf, k, 40));
	}
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == -1);
	CHECK(lost == 7 + 24 && r.delivered == 19 && r.lost == 24);
	CHECK(r.delivered + r.lost == tp_producer(&p));

	/* the tick to read is being overwritten: the next one instead */
	{
		struct ibtick_slot *s;

		CHECK(reader_on(&r, &p, 27) == 0);
		s = tp_begin(&p, 43);			/* slot of 27 busy */
		lost = 0;
		CHECK(ibtick_read(&r, buf, sizeof(buf), &d, &lost) == 40);
		CHECK(lost == 1 && d.pub_seq == 28 && payload_ok(buf, 28, 40));
		tp_fill(&p, s, 43, 40);
		tp_commit(&p, s, 43);
	}

	/*
	 * An empty tick is delivered like any other (the cursor moves past
	 * it): 0 bytes, distinct from -1/EAGAIN for "caught up".
	 */
	CHECK(reader_on(&r, &p, 44) == 0);
	tp_produce(&p, 0);				/* 44 */
	tp_produce(&p, 4);				/* 45 */
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, NULL) == 0);
	CHECK(r.cursor == 45 && r.delivered == 1 && d.pub_seq == 44);
	CHECK(ibtick_read(&r, buf, sizeof(buf), &d, NULL) == 4);
	CHECK(d.pub_seq == 45 && r.delivered == 2 && r.lost == 0);
	tp_free(&p);

	read_lapped_in_copy();
}

/* ibtick_reader_init_mem() on a copy of a good ring, its header mutated. */
struct hdr_case {
	const char	*what;
	void		(*mutate)(struct ibtick_ring_hdr *h);
	size_t		len_delta;	/* bytes less than the full ring */
	int		err;		/* 0: accepted */
};

static void m_none(struct ibtick_ring_hdr *h) { (void)h; }
static void m_magic(struct ibtick_ring_hdr *h) { h->magic ^= 1; }
static void m_version0(struct ibtick_ring_hdr *h) { h->version = 0; }
static void m_version2(struct ibtick_ring_hdr *h) { h->version = 2; }
static void m_nslots0(struct ibtick_ring_hdr *h) { h->nslots = 0; }
static void m_nslots1(struct ibtick_ring_hdr *h) { h->nslots = 1; }
static void m_nslots12(struct ibtick_ring_hdr *h) { h->nslots = 12; }
static void m_nslots8(struct ibtick_ring_hdr *h) { h->nslots = 8; }
static void m_nslots_huge(struct ibtick_ring_hdr *h)
{
	h->nslots = 1U << 31;
	h->slot_size = 1U << 31;
}
static void m_ss0(struct ibtick_ring_hdr *h) { h->slot_size = 0; }
static void m_ss32(struct ibtick_ring_hdr *h) { h->slot_size = 32; }
static void m_ss40(struct ibtick_ring_hdr *h) { h->slot_size = DESC_SIZE; }
static void m_ss96(struct ibtick_ring_hdr *h) { h->slot_size = 96; }
static void m_ss64(struct ibtick_ring_hdr *h) { h->slot_size = 64; }
static void m_ss256(struct ibtick_ring_hdr *h) { h->slot_size = 256; }
static void m_off_past(struct ibtick_ring_hdr *h)
{
	h->slots_off = HDR_SIZE + 16 * 128 + 8;
}
static void m_off_max(struct ibtick_ring_hdr *h) { h->slots_off = UINT64_MAX; }
static void m_off_small(struct ibtick_ring_hdr *h) { h->slots_off = 64; }
static void m_off_odd(struct ibtick_ring_hdr *h) { h->slots_off = HDR_SIZE + 4; }
static void m_off_more(struct ibtick_ring_hdr *h) { h->slots_off = HDR_SIZE + 8; }

static void lib_bad_headers(void)
{
	static const struct hdr_case cases[] = {
		{ "good",		m_none,		0, 0 },
		{ "good, fewer slots",	m_nslots8,	0, 0 },
		{ "good, smaller slots", m_ss64,	0, 0 },
		{ "bad magic",		m_magic,	0, EPROTO },
		{ "version 0",		m_version0,	0, EPROTO },
		{ "version 2",		m_version2,	0, EPROTO },
		{ "nslots 0",		m_nslots0,	0, EPROTO },
		{ "nslots 1",		m_nslots1,	0, EPROTO },
		{ "nslots 12",		m_nslots12,	0, EPROTO },
		{ "2^31 x 2^31",	m_nslots_huge,	0, EINVAL },
		{ "slot_size 0",	m_ss0,		0, EPROTO },
		{ "slot_size 32",	m_ss32,		0, EPROTO },
		{ "slot_size 40",	m_ss40,		0, EPROTO },
		{ "slot_size 96",	m_ss96,		0, EPROTO },
		{ "slot_size 256",	m_ss256,	0, EINVAL },
		{ "slots_off past len",	m_off_past,	0, EPROTO },
		{ "slots_off 2^64-1",	m_off_max,	0, EPROTO },
		{ "slots_off in hdr",	m_off_small,	0, EPROTO },
		{ "slots_off odd",	m_off_odd,	0, EPROTO },
		{ "slots_off + slots > len", m_off_more, 0, EINVAL },
		{ "len short by 1",	m_none,		1, EINVAL },
		{ "len header only",	m_none,		16 * 128, EINVAL },
		{ "len < header",	m_none,		16 * 128 + 1, EINVAL },
		{ "len 0",		m_none,		HDR_SIZE + 16 * 128,
		  EINVAL },
	};
	struct ibtick_reader r;
	struct tp p, q;
	size_t i;
	int rc;

	tp_init(&p, 16, 128, 0);
	tp_init(&q, 16, 128, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hdr_case *c = &cases[i];

		memcpy(q.hdr, p.hdr, p.size);
		c->mutate(q.hdr);
		memset(&r, 0x6b, sizeof(r));
		errno = 0;
		rc = ibtick_reader_init_mem(&r, q.hdr, q.size - c->len_delta,
					    3);
		if (c->err) {
			if (rc != -1 || errno != c->err)
				fprintf(stderr, "  header case \"%s\": rc %d "
					"errno %d, want -1 errno %d\n",
					c->what, rc, errno, c->err);
			CHECK(rc == -1 && errno == c->err);
			CHECK(r.hdr == NULL && r.fd == -1 && r.map == NULL);
		} else {
			if (rc)
				fprintf(stderr, "  header case \"%s\": rc %d "
					"errno %d, want 0\n", c->what, rc,
					errno);
			CHECK(rc == 0);
			CHECK(r.hdr == q.hdr && r.cursor == 3);
			CHECK(r.nslots == q.hdr->nslots);
			CHECK(r.slot_size == q.hdr->slot_size);
			CHECK(r.payload_max == q.hdr->slot_size - DESC_SIZE);
			CHECK(r.lost == 0 && r.delivered == 0 && r.fd == -1);
		}
	}

	/* slots further on, the length grown to match */
	memcpy(q.hdr, p.hdr, p.size);
	q.hdr->slots_off = HDR_SIZE + 8;
	q.hdr->nslots = 8;
	CHECK(ibtick_reader_init_mem(&r, q.hdr, HDR_SIZE + 8 + 8 * 128, 0) ==
	      0);
	CHECK(r.slots == (const uint8_t *)q.hdr + HDR_SIZE + 8);
	tp_free(&q);
	tp_free(&p);
}

/* A hostile descriptor length never takes a reader past the slot. */
static void lib_hostile_len(void)
{
	static const uint16_t bad[] = { 0xffff, 81, 80 };
	struct ibtick_reader r;
	struct ibtick_tick t = { 0 };
	struct ibtick_slot d;
	static uint8_t buf[0x10000];
	struct ibtick_slot *s;
	struct tp p;
	size_t i;
	bool clamped = true;

	tp_init(&p, 16, 128, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* the last slot of the ring: right before the guard page */
		tp_produce_n(&p, (uint32_t)(15 - (tp_producer(&p) & 15)), 8);
		s = tp_begin(&p, tp_producer(&p));
		CHECK((uint8_t *)(s + 1) + p.payload_max ==
		      (uint8_t *)p.hdr + p.size);
		tp_fill(&p, s, tp_producer(&p), 80);
		s->len = bad[i];
		tp_commit(&p, s, tp_producer(&p));

		CHECK(reader_on(&r, &p, tp_producer(&p) - 1) == 0);
		CHECK(ibtick_next(&r, &t) == 1);
		CHECK(t.len == 80 && t.slot == s);
		if (t.len != 80)
			clamped = false;
		CHECK(ibtick_done(&r, &t));

		/* ibtick_read() would fault on the guard page if unclamped */
		if (!clamped)
			continue;
		CHECK(reader_on(&r, &p, tp_producer(&p) - 1) == 0);
		CHECK(ibtick_read(&r, buf, sizeof(buf), &d, NULL) == 80);
		CHECK(d.len == 80 && payload_ok(buf, d.pub_seq, 80));
	}
	tp_free(&p);
}

/* ---- many threads -------------------------------------------------------- */

#define STRESS_NSLOTS	64
#define STRESS_SLOT	128
#define STRESS_TICKS	50000000
#define STRESS_NS	500000000LL	/* the producer stops after 0.5 s */
#define STRESS_START	(UINT64_MAX - 100000)	/* crosses 2^64 early on */

enum { RD_FAST, RD_SLOW, RD_READ };

struct stress_rd {
	const struct tp		*p;
	int			mode;
	struct ibtick_reader	r;
	uint64_t		lost_seen;	/* sum of what the API reported */
	uint64_t		done_false;
	uint64_t		torn;		/* accepted but inconsistent */
	uint64_t		disorder;	/* index not past the last one */
	uint64_t		unaccounted;	/* cursor != delivered + lost */
	uint64_t		drained_at;	/* producer index when done */
};

struct stress_pr {
	struct tp	*p;
	uint64_t	produced;
};

static uint32_t stress_len(uint64_t idx)
{
	return 8 * (1 + (uint32_t)(idx % 10));		/* 8..80 */
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *stress_producer(void *arg)
{
	struct stress_pr *pr = arg;
	struct tp *p = pr->p;
	int64_t end = now_ns() + STRESS_NS;
	volatile unsigned int spin;
	uint64_t n;

	/*
	 * Alternately flat out (readers are lapped, mostly mid-copy) and
	 * slower (readers catch up and read right behind the producer).
	 */
	for (n = 0; n < STRESS_TICKS; n++) {
		tp_produce(p, stress_len(tp_producer(p)));
		if (n & 4096)
			for (spin = 0; spin < 100; spin++)
				;
		if (!(n & 1023) && now_ns() > end)
			break;
	}
	pr->produced = tp_producer(p) - STRESS_START;
	tp_set_dead(p);		/* release: after the last commit */
	return NULL;
}

static bool stress_consistent(const struct ibtick_slot *d, const void *data,
			      uint32_t len, uint64_t idx)
{
	return d->seq == idx && d->pub_seq == idx && len == stress_len(idx) &&
	       d->len == len && d->orig_len == len &&
	       d->pub_id == (uint32_t)idx * 2654435761u &&
	       d->rx_ns == idx + 1 && payload_ok(data, idx, len);
}

static void *stress_reader(void *arg)
{
	struct stress_rd *sr = arg;
	struct ibtick_reader *r = &sr->r;
	uint64_t last = 0, buf[STRESS_SLOT / 8];
	bool any = false, dead = false;
	struct ibtick_tick t = { 0 };
	struct ibtick_slot d;
	volatile unsigned int spin;
	ssize_t n;

	for (;;) {
		if (sr->mode == RD_READ) {
			uint64_t lost = 0;

			n = ibtick_read(r, buf, sizeof(buf), &d, &lost);
			sr->lost_seen += lost;
			if (n >= 0) {
				if (!stress_consistent(&d, buf, (uint32_t)n,
						       d.seq))
					sr->torn++;
				if (any && (int64_t)(d.seq - last) <= 0)
					sr->disorder++;
				last = d.seq;
				any = true;
			}
		} else {
			n = ibtick_next(r, &t);
			if (n) {
				/*
				 * Dawdle between next() and the copy: let the
				 * producer run (here, or on the other CPU), so
				 * that the copy is of a newer tick, or torn.
				 */
				if (sr->mode == RD_SLOW && !(t.idx & 15)) {
					sched_yield();
					for (spin = 0; spin < 1000; spin++)
						;
				}
				memcpy(&d, t.slot, sizeof(d));
				memcpy(buf, t.data, t.len);
				if (ibtick_done(r, &t)) {
					if (!stress_consistent(&d, buf, t.len,
							       t.idx))
						sr->torn++;
					if (any &&
					    (int64_t)(t.idx - last) <= 0)
						sr->disorder++;
					last = t.idx;
					any = true;
				} else {
					sr->done_false++;
				}
			}
			sr->lost_seen += t.lost;
		}
		if (!accounted(r, STRESS_START))
			sr->unaccounted++;
		if (sr->mode == RD_READ ? n >= 0 : n > 0)
			continue;
		if (dead)
			break;		/* caught up after the last tick */
		if (ibtick_dead(r))
			dead = true;	/* one more look: it may still drain */
		else
			sched_yield();
	}
	sr->drained_at = TP_LOAD(&sr->p->hdr->producer, acquire);
	return NULL;
}

static void lib_stress_threads(void)
{
	struct stress_rd rd[3];
	struct stress_pr pr;
	pthread_t th[4];
	struct tp p;
	int i;

	tp_init(&p, STRESS_NSLOTS, STRESS_SLOT, STRESS_START);
	pr.p = &p;
	pr.produced = 0;
	for (i = 0; i < 3; i++) {
		memset(&rd[i], 0, sizeof(rd[i]));
		rd[i].p = &p;
		rd[i].mode = i;
		CHECK(reader_on(&rd[i].r, &p, STRESS_START) == 0);
		CHECK(pthread_create(&th[i], NULL, stress_reader,
				     &rd[i]) == 0);
	}
	CHECK(pthread_create(&th[3], NULL, stress_producer, &pr) == 0);
	for (i = 3; i >= 0; i--)
		pthread_join(th[i], NULL);

	CHECK(pr.produced > 0);
	for (i = 0; i < 3; i++) {
		const struct stress_rd *sr = &rd[i];

		printf("# stress reader %d (%s): produced %llu, delivered "
		       "%llu, lost %llu", i, i == RD_FAST ? "next/done" :
		       i == RD_SLOW ? "next/done, slow" : "ibtick_read",
		       (unsigned long long)pr.produced,
		       (unsigned long long)sr->r.delivered,
		       (unsigned long long)sr->r.lost);
		if (sr->mode != RD_READ)
			printf(", done() false %llu",
			       (unsigned long long)sr->done_false);
		printf("\n");
		CHECK(sr->torn == 0);
		CHECK(sr->disorder == 0);
		CHECK(sr->unaccounted == 0);
		CHECK(sr->lost_seen == sr->r.lost);
		CHECK(sr->drained_at == STRESS_START + pr.produced);
		CHECK(sr->r.cursor == STRESS_START + pr.produced);
		CHECK(sr->r.delivered + sr->r.lost == pr.produced);
		CHECK(sr->r.delivered > 0);
	}
	tp_free(&p);
}

/*
 * A broken reader can loop for ever (a cursor that stops moving): each case
 * runs under a watchdog that kills the whole binary, loudly, after 20 s.
 */
#define GUARDED(fn)							\
static void fn##_guarded(void)						\
{									\
	alarm(20);							\
	fn();								\
	alarm(0);							\
}
GUARDED(lib_basic_delivery)
GUARDED(lib_lap)
GUARDED(lib_validate_after_read)
GUARDED(lib_wrap)
GUARDED(lib_dead)
GUARDED(lib_read)
GUARDED(lib_bad_headers)
GUARDED(lib_hostile_len)
GUARDED(lib_stress_threads)

const struct unit_case libibtick_cases[] = {
	{ "libibtick basic delivery", lib_basic_delivery_guarded },
	{ "libibtick lap", lib_lap_guarded },
	{ "libibtick validation after read", lib_validate_after_read_guarded },
	{ "libibtick index wrap 2^32 2^63 2^64", lib_wrap_guarded },
	{ "libibtick dead ring", lib_dead_guarded },
	{ "libibtick ibtick_read", lib_read_guarded },
	{ "libibtick corrupted headers", lib_bad_headers_guarded },
	{ "libibtick hostile slot length", lib_hostile_len_guarded },
	{ "libibtick threads: 1 producer, 3 readers",
	  lib_stress_threads_guarded },
	{ NULL, NULL },
};
