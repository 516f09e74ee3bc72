// SPDX-License-Identifier: GPL-2.0
/*
 * The preload library's ring reading (user/preload/ring.c) over a ring in
 * memory, written as the kernel's producer writes it: what it takes itself,
 * what it leaves to the kernel (a lap, a publisher not known yet, NODATA)
 * with the cursor where it was, the cursors it tells the kernel, and how it
 * follows a tick the kernel delivered; and rx.c's stash (MSG_PEEK,
 * FIONREAD) over both.  The system calls they make are this file's fakes,
 * which record them (recvmsg answers as the kernel's multi-feed socket).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
static int ntold, busy_us, nlooks, look_errno;
/* IBTICK_SIOC_WAIT: what it was told, its answer; wait_meanwhile() runs during it */
static struct ibtick_wait waited;
static int nwaits, wait_errno;
static void (*wait_meanwhile)(void);

static int fake_ioctl(int fd, unsigned long req, ...)
{
	(void)fd;
	if (req == IBTICK_SIOC_WAIT) {
		va_list ap;

		va_start(ap, req);
		memcpy(&waited, va_arg(ap, struct ibtick_wait *), sizeof(waited));
		va_end(ap);
		nwaits++;
		if (wait_meanwhile)
			wait_meanwhile();
		if (wait_errno) {
			errno = wait_errno;
			return -1;
		}
		return 0;
	}
	if (req != IBTICK_SIOC_LOOK) {
		errno = ENOTTY;
		return -1;
	}
	nlooks++;
	if (look_errno) {
		errno = look_errno;
		return -1;
	}
	return 0;
}

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
	nlooks = 0;
	look_errno = 0;
	nwaits = 0;
	wait_errno = 0;
	wait_meanwhile = NULL;
	real.setsockopt = fake_setsockopt;
	real.ioctl = fake_ioctl;
	real.getsockopt = fake_getsockopt;
	f->group = inet_addr("239.1.1.1");
	f->port = 5000;
	f->feed_id = 42;
	f->kifindex = 3;
	CHECK(!ibtick_reader_init_mem(&f->rd, &ring, sizeof(ring), 0));
	f->cur_known = 1;
	return f;
}

/* a read's look at the rings, as rx.c's: only a socket that reads them */
static ssize_t take(char *buf, size_t len, int flags, struct rxres *r, int *rc)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	memset(r, 0, sizeof(*r));
	*rc = pl_ring_usable(&ps) ? pl_ring_take(&ps, 9, &iov, 1, flags, r) : -1;
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
	/* clean, and still listed: the next take needs no lock of the list */
	CHECK(!f->dirty && !ps.dirty_any && pl_ndirty == 1 && ps.listed);
	CHECK(!pl_ring_sync(&ps, 9) && ntold == 1);
	/* epoll_wait's sync: every socket on the list, and the clean ones leave it */
	produce(7, 2, 0, 4, 4, 'e');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && pl_ndirty == 1 && ps.listed && ps.dirty_any);
	ps.fds[0] = 9;
	pl_sync_all();
	CHECK(ntold == 2 && told[1].cursor == 2 && pl_ndirty == 0 && !ps.listed && !ps.dirty_any);
	pl_sync_all();
	CHECK(ntold == 2);
	/* a socket that goes leaves the list, clean or not */
	produce(7, 3, 0, 4, 4, 'f');
	take(buf, sizeof(buf), 0, &r, &rc);
	CHECK(rc == 1 && pl_ndirty == 1 && !pl_ring_sync(&ps, 9) && ntold == 3);
	CHECK(ps.listed && !ps.dirty_any);
	pl_ring_forget(&ps);
	CHECK(pl_ndirty == 0 && !ps.listed);
	CHECK(!ibtick_reader_init_mem(&f->rd, &ring, sizeof(ring), 3));
	f->cur_known = 1;
	/* a short buffer: MSG_TRUNC, and with the flag the tick's length */
	produce(7, 4, IBTICK_TICK_TRUNCATED, SLOT - sizeof(struct ibtick_slot), 300, 'b');
	CHECK(take(buf, 10, MSG_TRUNC, &r, &rc) == 300 && rc == 1 && r.trunc);
}

/* a take from the ring by socket @o (a copy of ps, its own cursor) */
static int take_on(struct psock *o)
{
	struct iovec iov;
	struct rxres r;
	char buf[16];

	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	memset(&r, 0, sizeof(r));
	return pl_ring_usable(o) ? pl_ring_take(o, 9, &iov, 1, 0, &r) : -1;
}

/*
 * The list full (PL_MAX_DIRTY, 4 in this build): a socket that finds it so
 * drops the clean sockets whose read lock is free, and takes a place; one
 * that finds every place dirty is not listed, and tries again at its first
 * take after its cursors are told.  epoll's sync then empties it.
 */
static void test_dirty_list_full(void)
{
	static struct psock o[PL_MAX_DIRTY + 1];
	int i;

	setup();
	ps.fds[0] = 9;
	pl_ring_learn(&ps, 7, inet_addr("10.0.0.2"));
	produce(7, 1, 0, 4, 4, 'l');
	for (i = 0; i <= PL_MAX_DIRTY; i++) {
		o[i] = ps;
		pl_rx_init(&o[i].rxlock);
		CHECK(take_on(&o[i]) == 1 && o[i].dirty_any);
	}
	CHECK(pl_ndirty == PL_MAX_DIRTY && !o[PL_MAX_DIRTY].listed);
	/* o[0] clean; o[1] clean but another reader holds its lock */
	CHECK(!pl_ring_sync(&o[0], 9) && !pl_ring_sync(&o[1], 9) && o[0].listed && o[1].listed);
	CHECK(!pl_rx_trylock(&o[1].rxlock));
	/* the unlisted one: told by its own sync, then its next take finds a place */
	CHECK(!pl_ring_sync(&o[PL_MAX_DIRTY], 9) && !o[PL_MAX_DIRTY].dirty_any);
	produce(7, 2, 0, 4, 4, 'm');
	CHECK(take_on(&o[PL_MAX_DIRTY]) == 1 && o[PL_MAX_DIRTY].listed);
	CHECK(!o[0].listed && o[1].listed && o[2].listed && pl_ndirty == PL_MAX_DIRTY);
	pl_rx_unlock(&o[1].rxlock);
	ntold = 0;
	pl_sync_all();
	CHECK(pl_ndirty == 0 && ntold == PL_MAX_DIRTY - 1);	/* o[2], o[3], o[4] */
	for (i = 0; i <= PL_MAX_DIRTY; i++)
		CHECK(!o[i].listed && !o[i].dirty_any);
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
	/*
	 * With SO_BUSY_POLL the rings are read too, the kernel's look drains
	 * the CQs between two looks at them (rx.c), and an empty look does not
	 * sync: only every PL_KERNEL_LOOK-th, which the kernel reads
	 */
	setup();
	busy_us = 50;
	ps.feed[0].dirty = 1;
	ps.dirty_any = 1;
	for (i = 0, here = 0; i < PL_KERNEL_LOOK; i++)
		here += pl_ring_empty_ok(&ps, 9, MSG_DONTWAIT);
	CHECK(ps.busy == 1 && here == PL_KERNEL_LOOK - 1 && ps.why[PL_WHY_LOOK] == 1);
	CHECK(ntold == 0 && ps.dirty_any);	/* the caller syncs before the kernel reads */
	CHECK(!pl_ring_look(&ps, 9) && nlooks == 1 && ps.looks == 1);
	produce(7, 1, 0, 4, 4, 'b');
	pl_ring_learn(&ps, 7, 1);
	{
		struct ibtick_tick_info ti = { .pub_id = 7, .pub_seq = 2, .send_ns = 1000 + 2 };
		struct rxres r;
		char buf[16];
		int rc;

		take(buf, sizeof(buf), 0, &r, &rc);
		CHECK(rc == 1 && buf[0] == 'b' && ps.feed[0].rd.cursor == 1);
		/* a tick the kernel read (a blocking busy read): the cursor follows */
		produce(7, 2, 0, 4, 4, 'c');
		pl_ring_kernel_tick(&ps, 0, 0, 0, &ti);
		CHECK(ps.feed[0].cur_known && ps.feed[0].rd.cursor == 2 && ps.kernel_ticks == 1);
	}
	/* a module without the look (the socket layer's EFAULT): said once, then the kernel reads */
	look_errno = EFAULT;
	CHECK(pl_ring_look(&ps, 9) == -1 && ps.no_look && nlooks == 2);
	CHECK(pl_ring_look(&ps, 9) == -1 && nlooks == 2);
	/* another error: the kernel reads this time, and the look stays */
	setup();
	look_errno = EINTR;
	CHECK(pl_ring_look(&ps, 9) == -1 && !ps.no_look && nlooks == 1);
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

/* another thread's read while this one waits: the ring's next tick taken */
static void read_meanwhile(void)
{
	ps.feed[0].rd.cursor++;
	ps.feed[0].dirty = 1;
}

static void test_waits(void)
{
	struct pfeed *f = setup();
	int i;

	/* the moved cursor goes with the wait, and is clean after it */
	produce(7, 1, 0, 4, 4, 'a');
	f->rd.cursor = 1;
	f->dirty = 1;
	ps.dirty_any = 1;
	CHECK(!pl_ring_wait(&ps, 9) && nwaits == 1 && ps.waits == 1 && ntold == 0);
	CHECK(waited.n == 1 && !waited.flags && waited.c[0].feed_id == 42 &&
	      waited.c[0].cursor == 1 && !waited.c[0].reserved);
	CHECK(!f->dirty && !ps.dirty_any);
	/* nothing moved: no cursor */
	CHECK(!pl_ring_wait(&ps, 9) && waited.n == 0);
	/* a timeout: its errno; the cursor was told all the same */
	f->dirty = 1;
	ps.dirty_any = 1;
	wait_errno = EAGAIN;
	CHECK(pl_ring_wait(&ps, 9) == -1 && errno == EAGAIN && !f->dirty && !ps.dirty_any);
	/* another thread read on meanwhile: its cursor is not the one told, still to tell */
	wait_errno = 0;
	f->dirty = 1;
	ps.dirty_any = 1;
	wait_meanwhile = read_meanwhile;
	CHECK(!pl_ring_wait(&ps, 9) && waited.c[0].cursor == 1 && f->rd.cursor == 2);
	CHECK(f->dirty && ps.dirty_any);
	wait_meanwhile = NULL;
	/* a signal: the kernel took the cursors before it waited */
	wait_errno = EINTR;
	CHECK(pl_ring_wait(&ps, 9) == -1 && errno == EINTR && waited.c[0].cursor == 2);
	CHECK(!f->dirty && !ps.dirty_any);
	/* a cursor refused: none taken, still to tell; the kernel reads this time (ENOSYS) */
	f->rd.cursor = 3;
	f->dirty = 1;
	ps.dirty_any = 1;
	wait_errno = EINVAL;
	CHECK(pl_ring_wait(&ps, 9) == -1 && errno == ENOSYS && f->dirty && ps.dirty_any);
	CHECK(!ps.no_wait && f->cur_known);
	/* a module without it (ENOTTY, or the socket layer's EFAULT): said once, no more waits */
	setup();
	wait_errno = EFAULT;
	CHECK(pl_ring_wait(&ps, 9) == -1 && errno == ENOSYS && ps.no_wait && nwaits == 1);
	CHECK(pl_ring_wait(&ps, 9) == -1 && errno == ENOSYS && nwaits == 1);
	/* more moved than a wait carries: told one by one first, the wait carries none */
	setup();
	ps.nfeed = IBTICK_WAIT_CURSORS + 1;
	for (i = 0; i < ps.nfeed; i++) {
		ps.feed[i].feed_id = 100 + i;
		ps.feed[i].dirty = 1;
	}
	ps.dirty_any = 1;
	CHECK(!pl_ring_wait(&ps, 9) && ntold == IBTICK_WAIT_CURSORS + 1 && waited.n == 0);
	CHECK(!ps.dirty_any);
}

/* ---- rx.c's stash, over the ring and the kernel ---- */

/*
 * The kernel's recvmsg of a multi-feed socket, reading feed 0: one tick of
 * kr_len bytes of 'k', kr_orig on the wire, publisher 7; the name and
 * IBTICK_CMSG_TICK as the kernel puts them.  With kr_gate, each call waits
 * until it opens.
 */
static int kr_calls, kr_len, kr_orig, kr_gate, kr_tail;
static pthread_mutex_t kr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kr_cond = PTHREAD_COND_INITIALIZER;

static ssize_t fake_recvmsg(int fd, struct msghdr *m, int flags)
{
	struct ibtick_tick_info ti = { .pub_seq = 1, .pub_id = 7, .orig_len = (uint32_t)kr_orig };
	struct sockaddr_ibtick *sa = m->msg_name;
	struct cmsghdr *c = CMSG_FIRSTHDR(m);
	size_t copy;

	(void)fd;
	pthread_mutex_lock(&kr_lock);
	__atomic_add_fetch(&kr_calls, 1, __ATOMIC_RELEASE);
	while (kr_gate)
		pthread_cond_wait(&kr_cond, &kr_lock);
	pthread_mutex_unlock(&kr_lock);
	copy = m->msg_iov[0].iov_len < (size_t)kr_len ? m->msg_iov[0].iov_len : (size_t)kr_len;
	memset(m->msg_iov[0].iov_base, 'k', copy);
	memset(sa, 0, sizeof(*sa));
	sa->sibt_port = ps.feed[0].port;
	memcpy(sa->sibt_group, &ps.feed[0].group, 4);
	m->msg_namelen = sizeof(*sa);
	c->cmsg_level = SOL_IBTICK;
	c->cmsg_type = IBTICK_CMSG_TICK;
	c->cmsg_len = CMSG_LEN(sizeof(ti));
	memcpy(CMSG_DATA(c), &ti, sizeof(ti));
	m->msg_controllen = CMSG_SPACE(sizeof(ti));
	if (kr_tail) {
		/*
		 * A last cmsg cut short (2 bytes: its end is not aligned, as
		 * after MSG_CTRUNC), and past the end, where a walk that steps
		 * over it would land, a LOST that is not there
		 */
		struct cmsghdr *t = (struct cmsghdr *)((char *)c + CMSG_SPACE(sizeof(ti)));
		struct cmsghdr *ghost = (struct cmsghdr *)((char *)t + CMSG_ALIGN(CMSG_LEN(2)));
		uint64_t five = 5;

		t->cmsg_level = SOL_SOCKET;
		t->cmsg_type = 99;
		t->cmsg_len = CMSG_LEN(2);
		ghost->cmsg_level = SOL_IBTICK;
		ghost->cmsg_type = IBTICK_CMSG_LOST;
		ghost->cmsg_len = CMSG_LEN(sizeof(five));
		memcpy(CMSG_DATA(ghost), &five, sizeof(five));
		m->msg_controllen += CMSG_LEN(2);
	}
	m->msg_flags = copy < (size_t)kr_orig ? MSG_TRUNC : 0;
	return (flags & MSG_TRUNC) ? kr_orig : (ssize_t)copy;
}

static void rx_setup(void)
{
	setup();
	pl_rx_init(&ps.rxlock);
	pthread_mutex_init(&ps.stashlock, NULL);
	real.recvmsg = fake_recvmsg;
	kr_calls = 0;
	kr_gate = 0;
	kr_tail = 0;
}

static ssize_t rx(char *buf, size_t len, int flags, int *mflags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	memset(buf, 0, len);
	n = pl_recvmsg(&ps, 9, &m, flags);
	*mflags = m.msg_flags;
	return n;
}

/*
 * A tick cut to its slot (TRUNCATED: 20 of 300 bytes), peeked: the stash
 * holds the 20 bytes that came, says 300 to FIONREAD and MSG_TRUNC, and
 * hands no byte that did not come.  From the ring, then from the kernel.
 */
static void test_stash_truncated(void)
{
	char buf[200];
	int fl, avail = -1;

	rx_setup();
	ps.nb = 1;
	pl_ring_learn(&ps, 7, inet_addr("10.0.0.2"));
	produce(7, 1, IBTICK_TICK_TRUNCATED, 20, 300, 't');
	CHECK(rx(buf, sizeof(buf), MSG_PEEK, &fl) == 20 && (fl & MSG_TRUNC));
	CHECK(buf[19] == 't' && buf[20] == 0 && ps.stash.full);
	CHECK(!pl_fionread(&ps, 9, &avail) && avail == 300);
	CHECK(rx(buf, sizeof(buf), MSG_TRUNC, &fl) == 300 && (fl & MSG_TRUNC) && buf[19] == 't');
	CHECK(!ps.stash.full && ps.ring_ticks == 1 && kr_calls == 0);
	/* the kernel's tick: the same (it returns 300 for MSG_TRUNC) */
	rx_setup();
	ps.nb = 0;
	ps.feed[0].cur_known = 0;	/* (the ring is not read) */
	pl_ring_on = 0;
	kr_len = 20;
	kr_orig = 300;
	CHECK(rx(buf, sizeof(buf), MSG_PEEK, &fl) == 20 && (fl & MSG_TRUNC));
	CHECK(buf[19] == 'k' && buf[20] == 0 && kr_calls == 1);
	CHECK(!pl_fionread(&ps, 9, &avail) && avail == 300);
	CHECK(rx(buf, sizeof(buf), 0, &fl) == 20 && (fl & MSG_TRUNC) && kr_calls == 1);
	pl_ring_on = 1;
}

/* The kernel's cmsgs are read up to msg_controllen, not a byte past it. */
static void test_cmsg_end(void)
{
	char buf[64];
	int fl;

	rx_setup();
	ps.nb = 0;
	pl_ring_on = 0;
	kr_len = 8;
	kr_orig = 8;
	kr_tail = 1;
	CHECK(rx(buf, sizeof(buf), 0, &fl) == 8 && kr_calls == 1);
	CHECK(ps.lost_total == 0 && ps.feed[0].lost == 0 && ps.feed[0].delivered == 1);
	pl_ring_on = 1;
}

/* another thread's MSG_PEEK while this one waits: it reads the tick that woke it */
static void peek_meanwhile(void)
{
	struct pstash *st = &ps.stash;

	produce(7, 1, 0, 6, 6, 'p');
	if (!st->buf)
		st->buf = malloc(PL_STASH_MAX);
	memcpy(st->buf, "peeked", 6);
	st->len = 6;
	st->wire_len = 6;
	st->from.sin_family = AF_INET;
	st->full = 1;
	ps.feed[0].rd.cursor = 1;
	ps.feed[0].dirty = 1;
}

/*
 * A blocking read that waited while another thread peeked hands the
 * stash's tick, not the kernel's next one (that would come later, and
 * before the older tick).
 */
static void test_wait_then_stash(void)
{
	char buf[64];
	int fl;

	rx_setup();
	ps.nb = 0;
	pl_ring_learn(&ps, 7, inet_addr("10.0.0.2"));
	kr_len = 8;
	kr_orig = 8;
	wait_meanwhile = peek_meanwhile;
	CHECK(rx(buf, sizeof(buf), 0, &fl) == 6 && !memcmp(buf, "peeked", 6));
	CHECK(nwaits == 1 && kr_calls == 0 && !ps.stash.full && ps.feed[0].rd.cursor == 1);
	wait_meanwhile = NULL;
	free(ps.stash.buf);
	ps.stash.buf = NULL;
}

static void *peeker(void *arg)
{
	char buf[64];
	int fl;

	*(ssize_t *)arg = rx(buf, sizeof(buf), MSG_PEEK, &fl);
	return NULL;
}

/*
 * Two threads peek at once while the kernel reads for the first (without
 * rxlock): the second waits for that tick instead of reading another over
 * it in the stash - one kernel read, both see the tick, which a read then
 * takes.  (Without the filler lock the second read a second tick, and one
 * was lost.)  A non-blocking peek or FIONREAD meanwhile does not wait.
 */
static void test_stash_two_peekers(void)
{
	pthread_t a, b;
	ssize_t na = 0, nb = 0;
	char buf[64];
	int fl, i;

	rx_setup();
	ps.nb = 0;
	pl_ring_on = 0;
	kr_len = 8;
	kr_orig = 8;
	kr_gate = 1;
	CHECK(!pthread_create(&a, NULL, peeker, &na));
	while (!__atomic_load_n(&kr_calls, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* meanwhile a call that must not wait does not: FIONREAD, MSG_DONTWAIT */
	{
		int avail = -1;

		CHECK(!pl_fionread(&ps, 9, &avail) && avail == 0);
		CHECK(rx(buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT, &fl) == -1 && errno == EAGAIN);
		CHECK(kr_calls == 1);
	}
	CHECK(!pthread_create(&b, NULL, peeker, &nb));
	/* b waits for a's tick; were it wrong, it would read another at once */
	for (i = 0; i < 200 && __atomic_load_n(&kr_calls, __ATOMIC_ACQUIRE) < 2; i++)
		usleep(1000);
	pthread_mutex_lock(&kr_lock);
	kr_gate = 0;
	pthread_cond_broadcast(&kr_cond);
	pthread_mutex_unlock(&kr_lock);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	CHECK(na == 8 && nb == 8 && kr_calls == 1 && ps.stash.full);
	CHECK(rx(buf, sizeof(buf), 0, &fl) == 8 && buf[7] == 'k' && !ps.stash.full && kr_calls == 1);
	pl_ring_on = 1;
}

/* The read lock (preload.h): what it guards is never torn, waiters all get in. */
static struct pl_rxlock lk;
static unsigned long lk_count;

static void *locker(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++) {
		pl_rx_lock(&lk);
		/* a plain read-modify-write: lost updates if two got in */
		lk_count = lk_count + 1;
		if (!(i & 255))
			sched_yield();	/* let a waiter queue behind us */
		pl_rx_unlock(&lk);
	}
	return NULL;
}

static void test_rxlock(void)
{
	enum { THREADS = 4, EACH = 100000 };
	pthread_t t[THREADS];
	int i;

	pl_rx_init(&lk);
	CHECK(!pl_rx_trylock(&lk) && lk.v == 1);
	CHECK(pl_rx_trylock(&lk));		/* held: not taken twice */
	pl_rx_unlock(&lk);
	CHECK(lk.v == 0 && !pl_rx_trylock(&lk));
	pl_rx_unlock(&lk);
	errno = EDOM;
	for (i = 0; i < THREADS; i++)
		CHECK(!pthread_create(&t[i], NULL, locker, (void *)(long)EACH));
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(lk_count == (unsigned long)THREADS * EACH && lk.v == 0);
	CHECK(errno == EDOM);			/* the main thread's, untouched */
}

const struct unit_case ring_cases[] = {
	{ "preload ring: a tick taken, its publisher learnt first, the cursor told once", test_take_and_sync },
	{ "preload ring: the dirty list full: clean sockets make room, a dirty one waits its turn", test_dirty_list_full },
	{ "preload ring: a lap is the kernel's; its tick followed by cursor + lost", test_lapped_left_to_kernel },
	{ "preload ring: own ticks skipped without loopback, source filter, NODATA", test_skips_and_filters },
	{ "preload ring: two publishers on one hash place", test_source_collision },
	{ "preload ring: empty non-blocking looks; SO_BUSY_POLL: the rings, looks, no sync; blocking; -K", test_empty_looks },
	{ "preload ring: a blocking read's wait carries the moved cursors, only those told are clean; fallbacks", test_waits },
	{ "preload rx: a truncated tick peeked: the bytes that came, its length to FIONREAD", test_stash_truncated },
	{ "preload rx: the kernel's cmsgs are read up to msg_controllen, no further", test_cmsg_end },
	{ "preload rx: two threads peek at once: one tick read, both see it", test_stash_two_peekers },
	{ "preload rx: a blocking read that waited while another thread peeked hands the stash's tick", test_wait_then_stash },
	{ "preload: the read lock: 4 threads x 100000 increments under it, none lost", test_rxlock },
	{ NULL, NULL },
};
