// SPDX-License-Identifier: GPL-2.0
/*
 * The preload library's ring reading (user/preload/ring.c) over a ring in
 * memory, written as the kernel's producer writes it: what it takes itself,
 * what it leaves to the kernel (a lap, a publisher not known yet, NODATA)
 * with the cursor where it was, the cursors it tells the kernel, and how it
 * follows a tick the kernel delivered.  The system calls it makes are this
 * file's fakes, which record them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "preload.h"
#include "unit.h"

/* ---- what ring.c calls besides libc: fakes ---- */
struct real_fns real;
int pl_busy_poll;

void pl_log(const char *fmt, ...) { (void)fmt; }
void pl_err(const char *fmt, ...) { (void)fmt; }

struct psock *pl_get(int fd)
{
	(void)fd;
	return NULL;
}

static struct ibtick_member_cursor told[16];
static int ntold, busy_us;

static int fake_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	(void)fd;
	if (level == SOL_IBTICK && name == IBTICK_MEMBER_CURSOR && len == sizeof(told[0]) &&
	    ntold < 16) {
		memcpy(&told[ntold++], val, sizeof(told[0]));
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

static int fake_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	(void)fd;
	if (level == SOL_SOCKET && name == SO_BUSY_POLL && *len >= sizeof(int)) {
		memcpy(val, &busy_us, sizeof(int));
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

/* ---- a ring of 8 slots of 128 bytes, and its producer ---- */
#define NSLOTS	8
#define SLOT	128

static union {
	struct ibtick_ring_hdr	h;
	unsigned char		b[sizeof(struct ibtick_ring_hdr) + NSLOTS * SLOT];
} ring;

static struct ibtick_slot *slot(uint64_t i)
{
	return (struct ibtick_slot *)(ring.b + sizeof(ring.h) + (i & (NSLOTS - 1)) * SLOT);
}

static void ring_init(void)
{
	memset(&ring, 0, sizeof(ring));
	ring.h.magic = IBTICK_RING_MAGIC;
	ring.h.version = IBTICK_RING_VERSION;
	ring.h.nslots = NSLOTS;
	ring.h.slot_size = SLOT;
	ring.h.slots_off = sizeof(ring.h);
}

/* tick ring.h.producer: @pub_id's @pub_seq, @len bytes of @c, on the wire @orig */
static void produce(uint32_t pub_id, uint64_t pub_seq, uint16_t flags, uint16_t len,
		    uint32_t orig, char c)
{
	uint64_t i = ring.h.producer;
	struct ibtick_slot *s = slot(i);

	s->seq = i - 1;
	s->pub_seq = pub_seq;
	s->rx_ns = 1500000000ull * 1000000000ull + i;
	s->send_ns = 1000 + pub_seq;
	s->pub_id = pub_id;
	s->len = len;
	s->flags = flags;
	s->orig_len = orig;
	s->gap = 0;
	memset(s + 1, c, len);
	__atomic_store_n(&s->seq, i, __ATOMIC_RELEASE);
	__atomic_store_n(&ring.h.producer, i + 1, __ATOMIC_RELEASE);
}

static struct psock ps;

static struct pfeed *setup(void)
{
	struct pfeed *f = &ps.feed[0];

	ring_init();
	memset(&ps, 0, sizeof(ps));
	ps.multi = 1;
	ps.nfeed = 1;
	ps.loop = 1;
	ps.source_cmsg = 1;
	ps.nb = -1;
	ps.busy = -1;
	pl_ndirty = 0;
	ntold = 0;
	busy_us = 0;
	real.setsockopt = fake_setsockopt;
	real.getsockopt = fake_getsockopt;
	f->group = inet_addr("239.1.1.1");
	f->port = 5000;
	f->feed_id = 42;
	f->kifindex = 3;
	CHECK(!ibtick_reader_init_mem(&f->rd, &ring, sizeof(ring), 0));
	f->cur_known = 1;
	return f;
}

static ssize_t take(char *buf, size_t len, int flags, struct rxres *r, int *rc)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	memset(r, 0, sizeof(*r));
	*rc = pl_ring_take(&ps, 9, &iov, 1, flags, r);
	return r->n;
}

static void test_take_and_sync(void)
{
	struct pfeed *f = setup();
	uint32_t pub_ip = inet_addr("10.0.0.2");
	struct rxres r;
	char buf[200];
	int rc;

	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 0);				/* empty */
	produce(7, 1, 0, 20, 20, 'a');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == -1);			/* publisher 7's address: the kernel's */
	CHECK(f->rd.cursor == 0 && ps.why[PL_WHY_SOURCE] == 1 && !f->dirty);
	pl_ring_learn(&ps, 7, pub_ip);
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && r.n == 20 && buf[0] == 'a' && buf[19] == 'a' && !r.trunc);
	CHECK(r.from.sin_addr.s_addr == pub_ip && ntohs(r.from.sin_port) == 5000);
	CHECK(r.group == f->group && r.ifindex == 3 && r.have_ts);
	CHECK(r.ts.tv_sec == 1500000000 && r.ts.tv_nsec == 0);
	CHECK(f->rd.cursor == 1 && f->dirty && ps.dirty_any && pl_ndirty == 1);
	CHECK(f->delivered == 1 && ps.ring_ticks == 1);
	/* the kernel is told once, then nothing more to tell */
	CHECK(!pl_ring_sync(&ps, 9));
	CHECK(ntold == 1 && told[0].feed_id == 42 && told[0].cursor == 1 && !told[0].reserved);
	CHECK(!f->dirty && !ps.dirty_any && pl_ndirty == 0);
	CHECK(!pl_ring_sync(&ps, 9) && ntold == 1);
	/* epoll_wait's sync: every socket on the list, and the list empties */
	produce(7, 2, 0, 4, 4, 'e');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && pl_ndirty == 1 && ps.listed);
	ps.fds[0] = 9;
	pl_sync_all();
	CHECK(ntold == 2 && told[1].cursor == 2 && pl_ndirty == 0 && !ps.listed && !ps.dirty_any);
	/* a short buffer: MSG_TRUNC, and with the flag the tick's length */
	produce(7, 3, IBTICK_TICK_TRUNCATED, SLOT - sizeof(struct ibtick_slot), 300, 'b');
	CHECK(take(buf, 10, MSG_TRUNC, &r, &rc) == 300 && rc == 1 && r.trunc);
}

static void test_lapped_left_to_kernel(void)
{
	struct pfeed *f = setup();
	struct ibtick_tick_info ti;
	struct rxres r;
	char buf[200];
	int i, rc;

	pl_ring_learn(&ps, 7, inet_addr("10.0.0.2"));
	for (i = 1; i <= 11; i++)	/* 11 ticks into 8 slots: 0..2 overwritten */
		produce(7, (uint64_t)i, 0, 8, 8, 'c');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == -1 && ps.why[PL_WHY_LAPPED] == 1);
	CHECK(f->rd.cursor == 0 && f->rd.lost == 0 && !f->dirty);	/* as it was */
	/*
	 * The kernel, told cursor 0, counts 3 lost and delivers tick 3: after
	 * a loss the cursor is looked up (a duplicate could pass for tick 3)
	 */
	memset(&ti, 0, sizeof(ti));
	ti.pub_id = 7;
	ti.pub_seq = 4;
	ti.send_ns = 1000 + 4;
	pl_ring_kernel_tick(&ps, 0, 0, 3, &ti);
	CHECK(!f->cur_known && ps.kernel_ticks == 1);
	/* (as IBTICK_FEEDS would say) then tick 4 from the kernel, no loss */
	f->rd.cursor = 4;
	f->cur_known = 1;
	ti.pub_seq = 5;
	ti.send_ns = 1000 + 5;
	pl_ring_kernel_tick(&ps, 0, 0, 0, &ti);
	CHECK(f->cur_known && f->rd.cursor == 5 && ps.kernel_ticks == 2);
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && f->rd.cursor == 6 && buf[0] == 'c');
	/* a tick that is not the one at the cursor: the cursor is unknown */
	ti.pub_seq = 99;
	pl_ring_kernel_tick(&ps, 0, 0, 0, &ti);
	CHECK(!f->cur_known);
	/* a revocation (EACCES): the kernel reads every tick from then on */
	f->cur_known = 1;
	pl_ring_kernel_tick(&ps, -1, EACCES, 0, NULL);
	CHECK(ps.ring_off);
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == -1);
}

static void test_skips_and_filters(void)
{
	struct pfeed *f = setup();
	uint32_t a = inet_addr("10.0.0.2"), b = inet_addr("10.0.0.3");
	struct rxres r;
	char buf[200];
	int rc;

	pl_ring_learn(&ps, 7, a);
	pl_ring_learn(&ps, 8, b);
	/* without loopback, the socket's own ticks are skipped, as the kernel does */
	ps.loop = 0;
	produce(7, 1, IBTICK_TICK_LOCAL, 8, 8, 'l');
	produce(7, 2, 0, 8, 8, 'm');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && buf[0] == 'm' && f->rd.cursor == 2 && f->delivered == 1);
	/* a source filter: 8's tick filtered and counted, 7's delivered */
	f->nsrc = 1;
	f->src[0] = a;
	produce(8, 1, 0, 8, 8, 'x');
	produce(7, 3, 0, 8, 8, 'y');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && buf[0] == 'y' && f->filtered == 1 && f->delivered == 2);
	/* an arbitrated feed's NODATA slot is the kernel's to deliver */
	produce(0, 9, IBTICK_TICK_ARB | IBTICK_TICK_NODATA | IBTICK_TICK_GAP, 0, 0, 0);
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == -1 && ps.why[PL_WHY_NODATA] == 1 && f->rd.cursor == 4);
}

/* Two publishers whose ids hash to the same place are both remembered. */
static void test_source_collision(void)
{
	uint32_t ids[3], id, n = 0, want = 0;
	struct rxres r;
	char buf[64];
	int rc;

	setup();
	for (id = 1; n < 3; id++) {
		uint32_t h = ((id * 2654435761u) >> (32 - PL_SRC_BITS)) & ~1u;

		if (!n)
			want = h;
		if (h == want)
			ids[n++] = id;
	}
	pl_ring_learn(&ps, ids[0], 1);
	pl_ring_learn(&ps, ids[1], 2);
	produce(ids[0], 1, 0, 4, 4, 'p');
	produce(ids[1], 1, 0, 4, 4, 'q');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && r.from.sin_addr.s_addr == 1);
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && r.from.sin_addr.s_addr == 2);
	/* a third takes the second place; the first stays */
	pl_ring_learn(&ps, ids[2], 3);
	produce(ids[1], 2, 0, 4, 4, 'q');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == -1 && ps.why[PL_WHY_SOURCE] == 1);
	ps.feed[0].rd.cursor++;		/* (as if the kernel had read it) */
	produce(ids[0], 2, 0, 4, 4, 'p');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && r.from.sin_addr.s_addr == 1);
}

/* A non-blocking read on empty rings: EAGAIN here, the kernel once in 256. */
static void test_empty_looks(void)
{
	struct pfeed *f = setup();
	int i, here = 0;

	f->dirty = 1;
	ps.dirty_any = 1;	/* (not on the list: a socket that found it full) */
	for (i = 0; i < PL_KERNEL_LOOK; i++)
		here += pl_ring_empty_ok(&ps, 9, MSG_DONTWAIT);
	CHECK(here == PL_KERNEL_LOOK - 1 && ps.why[PL_WHY_LOOK] == 1);
	CHECK(ntold == 1 && told[0].cursor == 0 && !ps.dirty_any);	/* synced once */
	/* with SO_BUSY_POLL every look is the kernel's, which drains the CQ */
	setup();
	busy_us = 50;
	CHECK(!pl_ring_empty_ok(&ps, 9, MSG_DONTWAIT) && ps.busy == 1);
	produce(7, 1, 0, 4, 4, 'b');
	pl_ring_learn(&ps, 7, 1);
	{
		struct rxres r;
		char buf[16];
		int rc;

		take(buf, sizeof(buf), 0, &r, &rc);
		CHECK(rc == -1 && ps.feed[0].rd.cursor == 0);	/* every read the kernel's */
	}
	/* a blocking socket sleeps in the kernel */
	setup();
	ps.nb = 0;
	CHECK(!pl_ring_empty_ok(&ps, 9, 0));
	/* -K (IBTICK_RING=0): nothing from the rings */
	setup();
	pl_ring_on = 0;
	produce(7, 1, 0, 4, 4, 'k');
	{
		struct rxres r;
		char buf[16];
		int rc;

		take(buf, sizeof(buf), 0, &r, &rc);
		CHECK(rc == -1);
	}
	pl_ring_on = 1;
}

const struct unit_case ring_cases[] = {
	{ "preload ring: a tick taken, its publisher learnt first, the cursor told once", test_take_and_sync },
	{ "preload ring: a lap is the kernel's; its tick followed by cursor + lost", test_lapped_left_to_kernel },
	{ "preload ring: own ticks skipped without loopback, source filter, NODATA", test_skips_and_filters },
	{ "preload ring: two publishers on one hash place", test_source_collision },
	{ "preload ring: empty non-blocking looks; SO_BUSY_POLL reads the kernel; blocking; -K", test_empty_looks },
	{ NULL, NULL },
};
