// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libibtick's ring reader (ibtick_reader_init_mem,
 * ibtick_next, ibtick_done, ibtick_read, ibtick_backlog, ibtick_ended)
 * against a hostile ring: the header, the slots and the producer index are
 * all chosen by the input, and keep changing between the reader's calls the
 * way a buggy or malicious producer could change them.
 *
 * Input layout (all little-endian):
 *
 *	[0..7]	the reader's starting cursor
 *	[8..9]	L, the length of the ring image
 *	[10..]	L bytes of ring image (struct ibtick_ring_hdr, then the slots),
 *		then a script: one opcode byte per step and its operands
 *
 * The image is copied into a buffer of exactly L bytes (malloc under ASan,
 * which poisons the bytes after it; otherwise the end of an mmap followed by
 * a PROT_NONE guard page), so that any read past the ring is reported.
 *
 * Invariants checked after every step (abort on violation):
 *  - init_mem accepts only a geometry that fits in L bytes; the reader's
 *    geometry never changes afterwards, whatever the header says then;
 *  - a tick from ibtick_next: t.len <= payload_max, t.len is the slot's len
 *    clamped, t.slot/t.data/t.data + t.len inside the ring, t.idx is the
 *    cursor and below the producer; its payload is read in full (so ASan
 *    sees every byte the caller may touch);
 *  - the cursor never moves backwards (signed u64 difference) and
 *    delivered + lost == cursor - start (mod 2^64), always; t.lost and
 *    ibtick_read's *lost grow exactly as r.lost does;
 *  - ibtick_done succeeds only while the slot still holds the tick, and
 *    after a failed done the cursor has moved (no livelock); a second done
 *    of the same tick fails and changes nothing;
 *  - ibtick_read returns -1/EAGAIN (nothing delivered) or at most the
 *    buffer's length (the buffer is exactly that long: ASan catches a write
 *    past it); its descriptor's len is the clamped length;
 *  - backlog <= nslots; ended implies dead;
 *  - with the producer standing still, the reader drains the ring in at
 *    most nslots + 1 steps.
 *
 * FUZZ_SEED_DIR=DIR ./fuzz_ring -runs=0 writes a few seed inputs to DIR.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libibtick.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif

#define HDR_SIZE	sizeof(struct ibtick_ring_hdr)
#define DESC_SIZE	sizeof(struct ibtick_slot)
#define PREFIX		10
#define CANARY		16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz_ring: invariant violated: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

/* ---- the input ---------------------------------------------------------- */

struct in {
	const uint8_t	*p;
	size_t		n;
};

static uint64_t take(struct in *in, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes && in->n; i++, in->n--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

/* ---- the ring memory ---------------------------------------------------- */

struct ring {
	uint8_t		*mem;
	size_t		len;
	void		*map;		/* without ASan: the mapping */
	size_t		map_len;
	struct ibtick_ring_hdr h0;	/* the header as init_mem saw it */
	uint64_t	mask;
	uint32_t	payload_max;
};

static uint8_t *ring_alloc(struct ring *g, size_t len)
{
#ifdef FUZZ_ASAN
	/* ASan: the redzone starts at mem + len exactly */
	g->mem = malloc(len ? len : 1);
	g->map = NULL;
#else
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t room = (len + 7) & ~(size_t)7;	/* slots stay 8-aligned */

	g->map_len = (room + pg - 1) / pg * pg + pg;
	g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED ||
	    mprotect((uint8_t *)g->map + g->map_len - pg, pg, PROT_NONE))
		abort();
	g->mem = (uint8_t *)g->map + g->map_len - pg - room;
#endif
	g->len = len;
	if (!g->mem)
		abort();
	return g->mem;
}

static void ring_free(struct ring *g)
{
#ifdef FUZZ_ASAN
	free(g->mem);
#else
	munmap(g->map, g->map_len);
#endif
	g->mem = NULL;
}

/* Write @n bytes of @v at @off if they fit in the ring (the hostile kernel). */
static void poke(struct ring *g, uint64_t off, uint64_t v, unsigned int n)
{
	if (off <= g->len && n <= g->len - off)
		memcpy(g->mem + off, &v, n);
}

static uint64_t peek64(const struct ring *g, uint64_t off)
{
	uint64_t v = 0;

	if (off <= g->len && 8 <= g->len - off)
		memcpy(&v, g->mem + off, 8);
	return v;
}

static uint64_t slot_off(const struct ring *g, uint64_t idx)
{
	return g->h0.slots_off + (idx & g->mask) * g->h0.slot_size;
}

#define PRODUCER_OFF	offsetof(struct ibtick_ring_hdr, producer)
#define FLAGS_OFF	offsetof(struct ibtick_ring_hdr, flags)
#define SEQ_OFF		offsetof(struct ibtick_slot, seq)
#define LEN_OFF		offsetof(struct ibtick_slot, len)

static uint64_t producer(const struct ring *g)
{
	return peek64(g, PRODUCER_OFF);
}

/* ---- the reader's invariants -------------------------------------------- */

struct track {
	uint64_t	start;		/* cursor at init */
	uint64_t	last;		/* cursor after the previous step */
};

static void check_reader(const struct ring *g, const struct ibtick_reader *r,
			 struct track *tr, const char *step)
{
	CHECK((const void *)r->hdr == g->mem && r->slots == g->mem + g->h0.slots_off &&
	      r->nslots == g->h0.nslots && r->mask == g->mask &&
	      r->slot_size == g->h0.slot_size && r->payload_max == g->payload_max,
	      "%s: the reader's geometry changed", step);
	CHECK((int64_t)(r->cursor - tr->last) >= 0,
	      "%s: cursor moved backwards: %#llx -> %#llx", step,
	      (unsigned long long)tr->last, (unsigned long long)r->cursor);
	CHECK(r->delivered + r->lost == r->cursor - tr->start,
	      "%s: delivered %llu + lost %llu != cursor advance %llu", step,
	      (unsigned long long)r->delivered, (unsigned long long)r->lost,
	      (unsigned long long)(r->cursor - tr->start));
	CHECK(ibtick_backlog(r) <= r->nslots, "%s: backlog %llu > nslots %u",
	      step, (unsigned long long)ibtick_backlog(r), r->nslots);
	CHECK(!ibtick_ended(r) || ibtick_dead(r), "%s: ended but not dead", step);
	tr->last = r->cursor;
}

static volatile uint8_t sink;

/* A tick just handed out by ibtick_next(). */
static void check_tick(const struct ring *g, const struct ibtick_reader *r,
		       const struct ibtick_tick *t)
{
	const uint8_t *slot = (const uint8_t *)t->slot;
	const uint8_t *data = t->data;
	const uint8_t *end = g->mem + g->len;
	uint16_t slen;
	uint8_t acc = 0;
	uint32_t i;

	CHECK(t->len <= r->payload_max, "t.len %u > payload_max %u", t->len,
	      r->payload_max);
	CHECK(t->idx == r->cursor, "t.idx %#llx is not the cursor %#llx",
	      (unsigned long long)t->idx, (unsigned long long)r->cursor);
	CHECK((int64_t)(producer(g) - t->idx) > 0,
	      "tick %#llx handed out at or past the producer %#llx",
	      (unsigned long long)t->idx, (unsigned long long)producer(g));
	CHECK(slot == g->mem + slot_off(g, t->idx), "t.slot is not slot %#llx",
	      (unsigned long long)t->idx);
	CHECK(slot >= g->mem + g->h0.slots_off && slot <= end &&
	      (size_t)(end - slot) >= DESC_SIZE, "t.slot outside the ring");
	CHECK(data == slot + DESC_SIZE, "t.data does not follow t.slot");
	CHECK(data <= end && t->len <= (size_t)(end - data),
	      "t.data + t.len (%u) past the end of the ring", t->len);
	CHECK(t->slot->seq == t->idx, "handed out a slot whose seq is not t.idx");
	memcpy(&slen, slot + LEN_OFF, sizeof(slen));
	CHECK(t->len == (slen < r->payload_max ? slen : r->payload_max),
	      "t.len %u is not the slot's len %u clamped to %u", t->len, slen,
	      r->payload_max);
	/* read what a caller may read: the whole descriptor and payload */
	for (i = 0; i < DESC_SIZE; i++)
		acc ^= slot[i];
	for (i = 0; i < t->len; i++)
		acc ^= data[i];
	sink = acc;
}

/* ---- the steps ---------------------------------------------------------- */

enum {
	OP_NEXT_DONE,		/* next, done */
	OP_NEXT_OVERWRITE,	/* next, the producer rewrites the slot, done */
	OP_READ,		/* ibtick_read into an exact-size buffer */
	OP_PRODUCER_NEAR,	/* producer = cursor + small signed delta */
	OP_PRODUCER_ANY,	/* producer = any 64-bit value */
	OP_SEQ,			/* a slot's seq = its index + small delta */
	OP_LEN,			/* a slot's len = any 16-bit value */
	OP_DEAD,		/* toggle IBTICK_RING_DEAD */
	OP_HEADER,		/* scribble on the header's geometry */
	OP_PRODUCE,		/* produce ticks by the rules, any len */
	OP_POKE,		/* write 8 bytes anywhere in the ring */
	OP_DONE_TWICE,		/* next, done, done again */
	OP_COUNT
};

static void op_next_done(struct ring *g, struct ibtick_reader *r,
			 struct track *tr, struct in *in, int how)
{
	struct ibtick_tick t;
	uint64_t lost0 = r->lost, lost1, deliv0, cur0;
	uint64_t seq;
	bool ok;

	memset(&t, 0xa5, sizeof(t));
	if (!ibtick_next(r, &t)) {
		CHECK(t.lost == r->lost - lost0, "next()=0: t.lost %llu != %llu",
		      (unsigned long long)t.lost,
		      (unsigned long long)(r->lost - lost0));
		CHECK(ibtick_backlog(r) == 0, "next()=0 with a backlog of %llu",
		      (unsigned long long)ibtick_backlog(r));
		check_reader(g, r, tr, "next()=0");
		return;
	}
	CHECK(t.lost == r->lost - lost0, "next()=1: t.lost %llu != %llu",
	      (unsigned long long)t.lost, (unsigned long long)(r->lost - lost0));
	CHECK(ibtick_backlog(r) >= 1, "next()=1 with no backlog");
	check_tick(g, r, &t);
	check_reader(g, r, tr, "next()=1");

	if (how == OP_NEXT_OVERWRITE) {
		/* the kernel reuses the slot while the caller reads it */
		int8_t d = (int8_t)take(in, 1);
		uint64_t v;

		switch (take(in, 1) & 3) {
		case 0: v = t.idx + r->nslots - 1; break;	/* busy mark */
		case 1: v = t.idx + r->nslots; break;		/* next lap */
		case 2: v = t.idx + (uint64_t)(int64_t)d; break;
		default: v = take(in, 8); break;
		}
		poke(g, slot_off(g, t.idx) + SEQ_OFF, v, 8);
		if (d & 1)
			poke(g, PRODUCER_OFF, producer(g) + (uint8_t)d, 8);
		if (d & 2)
			poke(g, slot_off(g, t.idx) + LEN_OFF, take(in, 2), 2);
	}
	seq = peek64(g, slot_off(g, t.idx) + SEQ_OFF);
	lost1 = r->lost;
	deliv0 = r->delivered;
	cur0 = r->cursor;
	ok = ibtick_done(r, &t);
	if (ok) {
		CHECK(seq == t.idx, "done() accepted a slot overwritten (seq %#llx, tick %#llx)",
		      (unsigned long long)seq, (unsigned long long)t.idx);
		CHECK(r->cursor == t.idx + 1 && r->delivered == deliv0 + 1 &&
		      r->lost == lost1, "done()=true: wrong bookkeeping");
	} else {
		CHECK(seq != t.idx, "done() refused an intact tick");
		CHECK(r->cursor != cur0, "done()=false left the cursor at the tick");
		CHECK(r->delivered == deliv0, "done()=false delivered");
		CHECK(t.lost - (lost1 - lost0) == r->lost - lost1,
		      "done()=false: t.lost out of step with r.lost");
	}
	check_reader(g, r, tr, ok ? "done()=true" : "done()=false");

	if (how == OP_DONE_TWICE) {
		struct ibtick_reader before = *r;

		CHECK(!ibtick_done(r, &t), "a second done() of a tick succeeded");
		CHECK(!memcmp(&before, r, sizeof(before)),
		      "a second done() changed the reader");
	}
}

static void op_read(struct ring *g, struct ibtick_reader *r, struct track *tr,
		    struct in *in)
{
	uint8_t how = (uint8_t)take(in, 1);
	size_t blen = how & 1 ? take(in, 2) % 9000 : take(in, 1);
	struct ibtick_slot desc;
	uint64_t lost = take(in, 1) << 56, lost_in = lost;
	uint64_t lost0 = r->lost, deliv0 = r->delivered;
	uint8_t *buf = malloc(blen + CANARY);
	ssize_t n;
	size_t i;

	if (!buf)
		abort();
	/* ASan's redzone follows the canary; the canary catches a short overrun */
	memset(buf + blen, 0xc3, CANARY);
	memset(&desc, 0x5a, sizeof(desc));
	errno = 0;
	n = ibtick_read(r, buf, blen, how & 2 ? &desc : NULL,
			how & 4 ? &lost : NULL);
	for (i = blen; i < blen + CANARY; i++)
		CHECK(buf[i] == 0xc3, "read() wrote past its buffer of %zu bytes", blen);
	if (n < 0) {
		CHECK(n == -1 && errno == EAGAIN, "read() = %zd, errno %d", n, errno);
		CHECK(r->delivered == deliv0, "read() = -1 delivered a tick");
		CHECK(ibtick_backlog(r) == 0, "read() = -1 with a backlog");
	} else {
		CHECK((size_t)n <= blen, "read() = %zd > buffer length %zu", n, blen);
		CHECK((uint32_t)n <= r->payload_max, "read() = %zd > payload_max", n);
		CHECK(r->delivered == deliv0 + 1, "read() >= 0 without delivering");
		if (how & 2) {
			CHECK(desc.len <= r->payload_max,
			      "read(): desc.len %u > payload_max", desc.len);
			CHECK((size_t)n == (desc.len < blen ? desc.len : blen),
			      "read() = %zd, desc.len %u, buffer %zu", n,
			      desc.len, blen);
			CHECK(desc.seq == r->cursor - 1, "read(): desc.seq is not the tick's index");
		}
	}
	if (how & 4)
		CHECK(lost - lost_in == r->lost - lost0,
		      "read(): *lost grew by %llu, r.lost by %llu",
		      (unsigned long long)(lost - lost_in),
		      (unsigned long long)(r->lost - lost0));
	free(buf);
	check_reader(g, r, tr, n < 0 ? "read()=-1" : "read()>=0");
}

/* The kernel's way (ibt_ring_begin/commit), with a len of the input's choice. */
static void op_produce(struct ring *g, struct in *in)
{
	unsigned int n = 1 + (unsigned int)(take(in, 1) % 8), k;

	for (k = 0; k < n; k++) {
		uint64_t i = producer(g);
		uint64_t s = slot_off(g, i);
		uint16_t len = (uint16_t)take(in, 2);
		uint32_t j, fill = len < g->payload_max ? len : g->payload_max;

		poke(g, s + SEQ_OFF, i - 1, 8);
		poke(g, s + LEN_OFF, len, 2);
		for (j = 0; j < fill; j++)
			poke(g, s + DESC_SIZE + j, (uint8_t)(i + j), 1);
		poke(g, s + SEQ_OFF, i, 8);
		poke(g, PRODUCER_OFF, i + 1, 8);
	}
}

static void step(struct ring *g, struct ibtick_reader *r, struct track *tr,
		 struct in *in, uint8_t op)
{
	switch (op % OP_COUNT) {
	case OP_NEXT_DONE:
	case OP_NEXT_OVERWRITE:
	case OP_DONE_TWICE:
		op_next_done(g, r, tr, in, op % OP_COUNT);
		return;
	case OP_READ:
		op_read(g, r, tr, in);
		return;
	case OP_PRODUCER_NEAR:
		poke(g, PRODUCER_OFF, r->cursor + (uint64_t)(int64_t)(int16_t)take(in, 2), 8);
		break;
	case OP_PRODUCER_ANY:
		poke(g, PRODUCER_OFF, take(in, 8), 8);
		break;
	case OP_SEQ: {
		uint64_t idx = r->cursor + take(in, 1);

		poke(g, slot_off(g, idx) + SEQ_OFF,
		     idx + (uint64_t)(int64_t)(int8_t)take(in, 1), 8);
		break;
	}
	case OP_LEN:
		poke(g, slot_off(g, r->cursor + take(in, 1)) + LEN_OFF, take(in, 2), 2);
		break;
	case OP_DEAD:
		poke(g, FLAGS_OFF, peek64(g, FLAGS_OFF) ^ IBTICK_RING_DEAD, 4);
		break;
	case OP_HEADER:
		poke(g, take(in, 1) % 24, take(in, 8), 8);	/* magic..slots_off */
		break;
	case OP_PRODUCE:
		op_produce(g, in);
		break;
	case OP_POKE:
		poke(g, take(in, 2), take(in, 8), 8);
		break;
	}
	check_reader(g, r, tr, "ring changed");
}

/* Geometry init_mem may accept: what the reader's arithmetic relies on. */
static void check_accepted(const struct ring *g)
{
	const struct ibtick_ring_hdr *h = &g->h0;

	CHECK(g->len >= HDR_SIZE, "accepted a ring of %zu bytes", g->len);
	CHECK(h->nslots >= 1 && !(h->nslots & (h->nslots - 1)),
	      "accepted nslots %u", h->nslots);
	CHECK(h->slot_size > DESC_SIZE && !(h->slot_size & 7),
	      "accepted slot_size %u", h->slot_size);
	CHECK(h->slots_off >= HDR_SIZE && !(h->slots_off & 7),
	      "accepted slots_off %llu", (unsigned long long)h->slots_off);
	CHECK(h->slots_off <= g->len &&
	      (uint64_t)h->nslots * h->slot_size <= g->len - h->slots_off,
	      "accepted %u slots of %u bytes at %llu in a ring of %zu bytes",
	      h->nslots, h->slot_size, (unsigned long long)h->slots_off, g->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct ibtick_reader r;
	struct track tr;
	struct ring g;
	uint64_t cursor, cap, ops, i;
	size_t len;

	cursor = take(&in, 8);
	len = (size_t)take(&in, 2);
	if (len > in.n)
		len = in.n;
	ring_alloc(&g, len);
	memcpy(g.mem, in.p, len);
	in.p += len;
	in.n -= len;

	errno = 0;
	if (ibtick_reader_init_mem(&r, g.mem, len, cursor)) {
		CHECK(errno == EINVAL || errno == EPROTO,
		      "init_mem failed with errno %d", errno);
		CHECK(r.fd == -1, "failed init_mem left fd %d", r.fd);
		ring_free(&g);
		return 0;
	}
	memcpy(&g.h0, g.mem, HDR_SIZE);
	check_accepted(&g);
	g.mask = g.h0.nslots - 1;
	g.payload_max = g.h0.slot_size - (uint32_t)DESC_SIZE;
	CHECK(r.fd == -1 && r.cursor == cursor && !r.lost && !r.delivered,
	      "init_mem: wrong initial state");
	tr.start = tr.last = cursor;
	check_reader(&g, &r, &tr, "init_mem");

	/* a bounded number of steps, whatever the ring does */
	cap = 4 * (uint64_t)r.nslots + 16;
	if (cap < 256)
		cap = 256;
	for (ops = 0; in.n && ops < cap; ops++)
		step(&g, &r, &tr, &in, (uint8_t)take(&in, 1));

	/*
	 * With the producer standing still the reader catches up: every
	 * next() either hands out the cursor's tick (and done() moves past it)
	 * or skips; so at most nslots ticks, then next() returns 0.
	 */
	for (i = 0;; i++) {
		struct ibtick_tick t, again;
		uint64_t lost0 = r.lost;

		CHECK(i <= (uint64_t)r.nslots + 1,
		      "still not caught up after %llu ticks (nslots %u)",
		      (unsigned long long)i, r.nslots);
		if (!ibtick_next(&r, &t))
			break;
		CHECK(t.lost == r.lost - lost0, "drain: t.lost out of step");
		check_tick(&g, &r, &t);
		CHECK(ibtick_next(&r, &again) == 1 && again.idx == t.idx &&
		      !again.lost, "next() without done() is not repeatable");
		CHECK(ibtick_done(&r, &t), "done() failed on a still ring");
		check_reader(&g, &r, &tr, "drain");
	}
	check_reader(&g, &r, &tr, "drained");
	CHECK(ibtick_backlog(&r) == 0, "drained with a backlog");
	CHECK(ibtick_ended(&r) == ibtick_dead(&r), "drained: ended != dead");
	ring_free(&g);
	return 0;
}

/* ---- seeds -------------------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n--) {
		*p++ = (uint8_t)v;
		v >>= 8;
	}
}

/*
 * A valid ring of @nslots x @slot_size with @ticks ticks written from
 * index @start, a cursor, then @script.
 */
static void write_seed(const char *dir, const char *name, uint32_t nslots,
		       uint32_t slot_size, uint64_t start, unsigned int ticks,
		       uint64_t cursor, const uint8_t *script, size_t slen)
{
	size_t len = HDR_SIZE + (size_t)nslots * slot_size;
	uint8_t *buf = calloc(1, PREFIX + len + slen);
	uint8_t *ring = calloc(1, len);		/* aligned, for the structs */
	struct ibtick_ring_hdr *h = (struct ibtick_ring_hdr *)ring;
	uint8_t *slots = ring + HDR_SIZE;
	char path[4096];
	uint64_t i;
	FILE *f;

	if (!buf || !ring)
		abort();
	put_le(buf, cursor, 8);
	put_le(buf + 8, len, 2);
	h->magic = IBTICK_RING_MAGIC;
	h->version = IBTICK_RING_VERSION;
	h->nslots = nslots;
	h->slot_size = slot_size;
	h->slots_off = HDR_SIZE;
	h->producer = start + ticks;
	for (i = 0; i < nslots; i++)	/* nothing at or after start yet */
		put_le(slots + ((start + i) & (nslots - 1)) * slot_size,
		       start + i - nslots, 8);
	for (i = start; i != start + ticks; i++) {
		uint8_t *s = slots + (i & (nslots - 1)) * slot_size;
		uint16_t l = (uint16_t)(i * 7 % (slot_size - DESC_SIZE + 1));

		put_le(s + SEQ_OFF, i, 8);
		put_le(s + offsetof(struct ibtick_slot, pub_seq), i + 1, 8);
		put_le(s + LEN_OFF, l, 2);
		memset(s + DESC_SIZE, (int)i, l);
	}
	memcpy(buf + PREFIX, ring, len);
	free(ring);
	if (slen)
		memcpy(buf + PREFIX + len, script, slen);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, PREFIX + len + slen, f) != PREFIX + len + slen ||
	    fclose(f)) {
		perror(path);
		exit(1);
	}
	free(buf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const uint8_t drain[] = { OP_NEXT_DONE, OP_NEXT_DONE, OP_READ, 2, 0 };
	static const uint8_t mixed[] = {
		OP_NEXT_DONE, OP_NEXT_OVERWRITE, 3, 0, OP_READ, 7, 16,
		OP_PRODUCE, 3, 10, 0, 200, 0, 9, 0, OP_PRODUCER_NEAR, 0x40, 0,
		OP_NEXT_DONE, OP_SEQ, 1, 0xff, OP_LEN, 0, 0xff, 0xff,
		OP_DONE_TWICE, OP_DEAD, OP_READ, 4, 0, OP_HEADER, 8, 0, 0, 0,
		0, 0, 0, 0, 1, OP_NEXT_DONE, OP_PRODUCER_ANY, 0, 0, 0, 0, 0,
		0, 0, 0x80, OP_READ, 1, 0, 1, 0, OP_POKE, 0xd0, 0, 1, 2, 3, 4,
		5, 6, 7, 8, OP_NEXT_DONE,
	};
	static const uint8_t lap[] = {
		OP_PRODUCE, 7, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0,
		OP_PRODUCE, 7, OP_NEXT_OVERWRITE, 0, 1, OP_NEXT_DONE, OP_READ,
		0, 64,
	};
	const char *dir = getenv("FUZZ_SEED_DIR");

	(void)argc;
	(void)argv;
	if (!dir)
		return 0;
	write_seed(dir, "small-drain", 4, 64, 0, 3, 0, drain, sizeof(drain));
	write_seed(dir, "small-mixed", 8, 64, 100, 8, 96, mixed, sizeof(mixed));
	write_seed(dir, "lapped", 8, 128, 1000, 8, 990, lap, sizeof(lap));
	write_seed(dir, "wrap", 16, 64, UINT64_MAX - 5, 9, UINT64_MAX - 8,
		   mixed, sizeof(mixed));
	write_seed(dir, "empty", 2, 64, 0, 0, 0, NULL, 0);
	exit(0);
}
