// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic futures market data (see tickgen.h for the contracts).
 *
 * Everything that shapes the stream is integer arithmetic: the PRNG is
 * xoshiro256** seeded through splitmix64, exponential gaps come from a
 * fixed-point logarithm and heavy-tailed sizes from an integer square root,
 * so a seed means the same bytes whatever the compiler, libm or CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "tickgen.h"

typedef unsigned __int128 u128;

/* ------------------------------------------------------------------------
 * Errors and names
 * ----------------------------------------------------------------------
 */
static const char *const err_names[] = {
	[0]			= "success",
	[TICKGEN_E_SHORT]	= "message too short",
	[TICKGEN_E_MAGIC]	= "bad message magic",
	[TICKGEN_E_VERSION]	= "unsupported message version",
	[TICKGEN_E_TYPE]	= "unknown message type",
	[TICKGEN_E_CONTRACT]	= "unknown contract id",
	[TICKGEN_E_FLAGS]	= "bad flags for the message type",
	[TICKGEN_E_PRICE]	= "price not positive",
	[TICKGEN_E_QTY]		= "zero quantity",
	[TICKGEN_E_IO]		= "I/O error",
	[TICKGEN_E_TRUNC]	= "file truncated",
	[TICKGEN_E_FILE]	= "not a tick stream file (magic, version or sizes)",
	[TICKGEN_E_ARG]		= "invalid argument",
};

const char *tickgen_strerror(int err)
{
	unsigned int e = err < 0 ? -err : err;

	if (e < sizeof(err_names) / sizeof(err_names[0]) && err_names[e])
		return err_names[e];
	return "unknown error";
}

const char *md_type_name(unsigned int type)
{
	switch (type) {
	case MD_BID:	return "BID";
	case MD_ASK:	return "ASK";
	case MD_TRADE:	return "TRADE";
	}
	return "UNKNOWN";
}

/* ------------------------------------------------------------------------
 * Wire encoding
 * ----------------------------------------------------------------------
 */
static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The wire offsets, as documented in tickgen.h. */
enum {
	OFF_MAGIC	= 0,
	OFF_VERSION	= 1,
	OFF_TYPE	= 2,
	OFF_FLAGS	= 3,
	OFF_CONTRACT	= 4,
	OFF_CHANNEL	= 6,
	OFF_SEQ		= 8,
	OFF_EXCH_NS	= 16,
	OFF_SEND_NS	= 24,
	OFF_PRICE	= 32,
	OFF_QTY		= 40,
	OFF_ORDERS	= 44,
	OFF_VOLUME	= 48,
};

_Static_assert(OFF_VOLUME + 8 == TICKGEN_WIRE_SIZE, "wire layout");
_Static_assert(sizeof(struct md_tick) == TICKGEN_WIRE_SIZE, "md_tick padding");

size_t md_encode(void *buf, const struct md_tick *t)
{
	uint8_t *p = buf;

	p[OFF_MAGIC] = TICKGEN_MAGIC;
	p[OFF_VERSION] = TICKGEN_VERSION;
	p[OFF_TYPE] = t->type;
	p[OFF_FLAGS] = t->flags;
	put16(p + OFF_CONTRACT, t->contract);
	put16(p + OFF_CHANNEL, t->channel);
	put64(p + OFF_SEQ, t->seq);
	put64(p + OFF_EXCH_NS, t->exch_ns);
	put64(p + OFF_SEND_NS, t->send_ns);
	put64(p + OFF_PRICE, (uint64_t)t->price);
	put32(p + OFF_QTY, t->qty);
	put32(p + OFF_ORDERS, t->orders);
	put64(p + OFF_VOLUME, t->volume);
	return TICKGEN_WIRE_SIZE;
}

void md_wire_set_send_ns(void *buf, uint64_t send_ns)
{
	put64((uint8_t *)buf + OFF_SEND_NS, send_ns);
}

int md_decode(const void *buf, size_t len, struct md_tick *t)
{
	const uint8_t *p = buf;
	unsigned int side;

	memset(t, 0, sizeof(*t));
	if (len < TICKGEN_WIRE_SIZE)
		return -TICKGEN_E_SHORT;
	t->magic = p[OFF_MAGIC];
	t->version = p[OFF_VERSION];
	t->type = p[OFF_TYPE];
	t->flags = p[OFF_FLAGS];
	t->contract = get16(p + OFF_CONTRACT);
	t->channel = get16(p + OFF_CHANNEL);
	t->seq = get64(p + OFF_SEQ);
	t->exch_ns = get64(p + OFF_EXCH_NS);
	t->send_ns = get64(p + OFF_SEND_NS);
	t->price = (int64_t)get64(p + OFF_PRICE);
	t->qty = get32(p + OFF_QTY);
	t->orders = get32(p + OFF_ORDERS);
	t->volume = get64(p + OFF_VOLUME);

	if (t->magic != TICKGEN_MAGIC)
		return -TICKGEN_E_MAGIC;
	if (t->version != TICKGEN_VERSION)
		return -TICKGEN_E_VERSION;
	if (t->type < MD_BID || t->type > MD_TRADE)
		return -TICKGEN_E_TYPE;
	if (!tickgen_contract(t->contract))
		return -TICKGEN_E_CONTRACT;
	side = t->flags & (MD_F_BUY | MD_F_SELL);
	if (t->flags & ~MD_F_ALL ||
	    (t->type == MD_TRADE ? side != MD_F_BUY && side != MD_F_SELL : side))
		return -TICKGEN_E_FLAGS;
	if (t->price <= 0)
		return -TICKGEN_E_PRICE;
	if (!t->qty)
		return -TICKGEN_E_QTY;
	return 0;
}

/* ------------------------------------------------------------------------
 * Contracts
 * ----------------------------------------------------------------------
 */
static const struct tickgen_contract contracts[TICKGEN_NCONTRACTS] = {
	{ 1, "ES", "E-mini S&P 500",	250000000, 2, 20600, 30, 120, 2 },
	{ 2, "NQ", "E-mini Nasdaq-100",	250000000, 2, 72000, 22,   8, 1 },
	{ 3, "CL", "Crude Oil",		 10000000, 2,  8100, 18,  12, 1 },
	{ 4, "ZN", "10-Year T-Note",	 15625000, 6,  7072, 14, 600, 6 },
	{ 5, "GC", "Gold",		100000000, 1, 21600,  9,   5, 1 },
	{ 6, "6E", "Euro FX",		    50000, 5, 21790,  7,  25, 1 },
};

const struct tickgen_contract *tickgen_contract(unsigned int id)
{
	if (id < 1 || id > TICKGEN_NCONTRACTS)
		return NULL;
	return &contracts[id - 1];
}

char *tickgen_fmt_price(char *buf, size_t len,
			const struct tickgen_contract *c, int64_t ticks)
{
	u128 v = (u128)(ticks < 0 ? -(uint64_t)ticks : (uint64_t)ticks) *
		 c->tick_e9;
	uint64_t frac = v % 1000000000, ip_hi, ip_lo;
	u128 ip = v / 1000000000;
	char fbuf[16];

	/* the integer part can pass 2^64 only for absurd tick counts */
	ip_hi = ip / 10000000000000000000ULL;
	ip_lo = ip % 10000000000000000000ULL;
	snprintf(fbuf, sizeof(fbuf), "%09" PRIu64, frac);
	fbuf[c->decimals < 9 ? c->decimals : 9] = '\0';
	if (ip_hi)
		snprintf(buf, len, "%s%" PRIu64 "%019" PRIu64 "%s%s",
			 ticks < 0 ? "-" : "", ip_hi, ip_lo,
			 c->decimals ? "." : "", fbuf);
	else
		snprintf(buf, len, "%s%" PRIu64 "%s%s", ticks < 0 ? "-" : "",
			 ip_lo, c->decimals ? "." : "", fbuf);
	return buf;
}

/* ------------------------------------------------------------------------
 * Random numbers, integer only
 * ----------------------------------------------------------------------
 */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t tickgen_rand(struct tickgen *g)
{
	uint64_t *s = g->s;
	uint64_t r = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform on 0..n-1 (n <= 2^32), from the top 32 bits: no modulo bias worth
 * the name at these n.
 */
static uint32_t below(struct tickgen *g, uint32_t n)
{
	return ((tickgen_rand(g) >> 32) * n) >> 32;
}

/* True with probability pm/1000. */
static bool chance(struct tickgen *g, uint32_t pm)
{
	return below(g, 1000) < pm;
}

#define LN2_Q62		3196577161300663915ULL	/* ln 2 * 2^62, rounded */

/*
 * -ln(U) in Q32 for U = x / 2^53, x = (r >> 11) + 1 in 1..2^53: so U is in
 * (0, 1] and the result in [0, 53 ln 2].  log2(x) by the bit-by-bit squaring
 * method on a Q63 mantissa, 32 fraction bits.
 */
uint64_t tickgen_neg_ln_q32(uint64_t r)
{
	uint64_t x = (r >> 11) + 1, y, frac = 0, log2x, neg;
	int msb = 63 - __builtin_clzll(x), i;

	y = x << (63 - msb);		/* [1, 2) in Q63 */
	for (i = 0; i < 32; i++) {
		u128 sq = (u128)y * y;	/* [1, 4) in Q126 */

		frac <<= 1;
		if (sq >> 127) {
			frac |= 1;
			y = sq >> 64;
		} else {
			y = sq >> 63;
		}
	}
	log2x = (uint64_t)msb << 32 | frac;
	neg = (53ULL << 32) - log2x;
	return ((u128)neg * LN2_Q62) >> 62;
}

static uint64_t isqrt64(uint64_t v)
{
	uint64_t res = 0, bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= res + bit) {
			v -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return res;
}

/*
 * 1 + floor(Lomax(alpha 2, @scale)), at most @cap: P(size > 1 + x) =
 * (1 + x / scale)^-2, mean about 1 + scale, a long tail.  X = scale *
 * (U^-1/2 - 1) with U = x / 2^32, x in 1..2^32.
 */
static uint32_t heavy(struct tickgen *g, uint32_t scale, uint32_t cap)
{
	uint64_t x = (tickgen_rand(g) >> 32) + 1;
	uint64_t s = isqrt64(x << 30) << 1;	/* ~ sqrt(x) * 2^16 */
	uint64_t inv_q16, v;

	if (s < (1ULL << 16))
		s = 1ULL << 16;
	inv_q16 = (1ULL << 48) / s;		/* U^-1/2 in Q16, >= 1 */
	v = 1 + ((scale * (inv_q16 - (1ULL << 16))) >> 16);
	return v > cap ? cap : v;
}

/* ------------------------------------------------------------------------
 * Arrivals: the two-state MMPP.  Rates in thousandths of the mean rate R.
 * ----------------------------------------------------------------------
 */
#define QUIET_EMIT	250	/* 0.25 R */
#define QUIET_LEAVE	16	/* 0.016 R: quiet periods of 62.5 / R s */
#define BURST_EMIT	19750	/* 19.75 R */
#define BURST_LEAVE	400	/* 0.4 R: ~49 messages per burst */
/* (16 * 19750 + 400 * 250) / (16 + 400) = 1000: the mean rate is R. */
_Static_assert((QUIET_LEAVE * BURST_EMIT + BURST_LEAVE * QUIET_EMIT) ==
	       1000 * (QUIET_LEAVE + BURST_LEAVE), "MMPP mean rate");

#define HOT_PM		600	/* a burst's events on its hot contract */

static uint16_t pick_contract(struct tickgen *g)
{
	uint32_t w = below(g, 100), i;

	for (i = 0; i < TICKGEN_NCONTRACTS - 1; i++) {
		if (w < contracts[i].weight)
			break;
		w -= contracts[i].weight;
	}
	return i + 1;
}

/* Advance the exchange clock to the next arrival. */
static void next_arrival(struct tickgen *g)
{
	for (;;) {
		uint64_t out = g->burst ? BURST_EMIT : QUIET_EMIT;
		uint64_t total = out + (g->burst ? BURST_LEAVE : QUIET_LEAVE);
		u128 e = tickgen_neg_ln_q32(tickgen_rand(g));
		/* e / total / (R / 1000) seconds, in Q16 ns */
		uint64_t dt_q16 = (e * 1000000000000ULL) /
				  ((u128)g->rate * total << 16);
		uint64_t t = g->now_frac + dt_q16;

		g->now_ns += t >> 16;
		g->now_frac = t & 0xffff;
		if (below(g, total) < out)
			return;
		g->burst = !g->burst;
		if (g->burst)
			g->hot = pick_contract(g);
	}
}

/* ------------------------------------------------------------------------
 * The book and its events
 * ----------------------------------------------------------------------
 */
static uint32_t orders_for(const struct tickgen_contract *c, uint32_t qty)
{
	return 1 + (qty - 1) / (2 * c->trade_qty + 2);
}

static uint32_t level_size(struct tickgen *g, const struct tickgen_contract *c)
{
	return heavy(g, c->level_qty, 20 * c->level_qty);
}

static void set_bid(struct tickgen_book *b, const struct tickgen_contract *c,
		    int64_t px, uint32_t qty)
{
	b->bid = px;
	b->bid_qty = qty;
	b->bid_orders = orders_for(c, qty);
}

static void set_ask(struct tickgen_book *b, const struct tickgen_contract *c,
		    int64_t px, uint32_t qty)
{
	b->ask = px;
	b->ask_qty = qty;
	b->ask_orders = orders_for(c, qty);
}

/* Queue one message of contract @id with the book's current state. */
static void emit(struct tickgen *g, uint16_t id, unsigned int type,
		 unsigned int flags, int64_t price, uint32_t qty,
		 uint32_t orders)
{
	struct md_tick *t = &g->pending[g->npending++];
	struct tickgen_book *b = &g->book[id - 1];

	memset(t, 0, sizeof(*t));
	t->magic = TICKGEN_MAGIC;
	t->version = TICKGEN_VERSION;
	t->type = type;
	t->flags = flags;
	t->contract = id;
	t->channel = g->channel;
	t->price = price;
	t->qty = qty;
	t->orders = orders;
	t->volume = b->volume;
}

static void emit_bid(struct tickgen *g, uint16_t id)
{
	struct tickgen_book *b = &g->book[id - 1];

	emit(g, id, MD_BID, 0, b->bid, b->bid_qty, b->bid_orders);
}

static void emit_ask(struct tickgen *g, uint16_t id)
{
	struct tickgen_book *b = &g->book[id - 1];

	emit(g, id, MD_ASK, 0, b->ask, b->ask_qty, b->ask_orders);
}

/* Orders join (half the time) or cancel at one side. */
static void ev_size(struct tickgen *g, uint16_t id)
{
	const struct tickgen_contract *c = &contracts[id - 1];
	struct tickgen_book *b = &g->book[id - 1];
	bool bid = chance(g, 500), join = chance(g, 500);
	uint32_t *q = bid ? &b->bid_qty : &b->ask_qty;
	uint32_t d = heavy(g, 2 * c->trade_qty, 50 * c->level_qty);
	uint32_t cap = 40 * c->level_qty;

	if (join)
		*q = *q + d > cap ? cap : *q + d;
	else
		*q = *q > d ? *q - d : 1;
	if (bid) {
		b->bid_orders = orders_for(c, *q);
		emit_bid(g, id);
	} else {
		b->ask_orders = orders_for(c, *q);
		emit_ask(g, id);
	}
}

static void ev_trade(struct tickgen *g, uint16_t id)
{
	const struct tickgen_contract *c = &contracts[id - 1];
	struct tickgen_book *b = &g->book[id - 1];
	bool buy = chance(g, 500 + 100 * b->last_move);
	uint32_t want = heavy(g, c->trade_qty, 200 * c->trade_qty);
	uint32_t level = buy ? b->ask_qty : b->bid_qty;
	uint32_t lorders = buy ? b->ask_orders : b->bid_orders;
	uint32_t qty = want < level ? want : level, filled;
	bool follow;

	filled = orders_for(c, qty);
	if (filled > lorders)
		filled = lorders;
	b->volume += qty;
	emit(g, id, MD_TRADE, buy ? MD_F_BUY : MD_F_SELL,
	     buy ? b->ask : b->bid, qty, filled);

	if (qty < level) {		/* the level stands, smaller */
		if (buy) {
			set_ask(b, c, b->ask, level - qty);
			emit_ask(g, id);
		} else {
			set_bid(b, c, b->bid, level - qty);
			emit_bid(g, id);
		}
		return;
	}
	/* the level is gone: that side backs off a tick, the other follows */
	follow = b->ask - b->bid > 1 || chance(g, 700);
	if (buy) {
		set_ask(b, c, b->ask + 1, level_size(g, c));
		emit_ask(g, id);
		if (follow) {
			set_bid(b, c, b->ask - 1, level_size(g, c));
			emit_bid(g, id);
		}
		b->last_move = 1;
	} else if (b->bid > 1) {
		set_bid(b, c, b->bid - 1, level_size(g, c));
		emit_bid(g, id);
		if (follow) {
			set_ask(b, c, b->bid + 1, level_size(g, c));
			emit_ask(g, id);
		}
		b->last_move = -1;
	} else {			/* at the floor: the level refills */
		set_bid(b, c, b->bid, level_size(g, c));
		emit_bid(g, id);
	}
}

/* The whole book shifts by a few ticks. */
static void ev_move(struct tickgen *g, uint16_t id)
{
	const struct tickgen_contract *c = &contracts[id - 1];
	struct tickgen_book *b = &g->book[id - 1];
	int64_t dev_bp = (b->bid - c->start) * 10000 / c->start;
	int64_t pull = dev_bp * 5, step;
	uint32_t r = below(g, 1000);

	if (pull > 250)
		pull = 250;
	if (pull < -250)
		pull = -250;
	step = r < 850 ? 1 : r < 970 ? 2 : 3 + below(g, 3);
	if (!chance(g, 500 - pull))
		step = -step;
	if (b->bid + step < 1)
		step = -step;
	if (step > 0) {			/* ask first: bid < ask throughout */
		set_ask(b, c, b->ask + step, level_size(g, c));
		emit_ask(g, id);
		set_bid(b, c, b->bid + step, level_size(g, c));
		emit_bid(g, id);
		b->last_move = 1;
	} else {
		set_bid(b, c, b->bid + step, level_size(g, c));
		emit_bid(g, id);
		set_ask(b, c, b->ask + step, level_size(g, c));
		emit_ask(g, id);
		b->last_move = -1;
	}
}

static void ev_spread(struct tickgen *g, uint16_t id)
{
	const struct tickgen_contract *c = &contracts[id - 1];
	struct tickgen_book *b = &g->book[id - 1];
	bool bid = chance(g, 500);

	if (b->ask - b->bid > 1) {	/* narrow: one side improves */
		if (bid) {
			set_bid(b, c, b->bid + 1, level_size(g, c));
			emit_bid(g, id);
		} else {
			set_ask(b, c, b->ask - 1, level_size(g, c));
			emit_ask(g, id);
		}
	} else if (bid && b->bid > 1) {	/* widen: one side backs off */
		set_bid(b, c, b->bid - 1, level_size(g, c));
		emit_bid(g, id);
	} else {
		set_ask(b, c, b->ask + 1, level_size(g, c));
		emit_ask(g, id);
	}
}

/* One exchange event into g->pending, stamped with its last arrival. */
static void gen_event(struct tickgen *g)
{
	unsigned int i, flags;
	uint32_t r;
	uint16_t id;

	next_arrival(g);
	flags = g->burst ? MD_F_BURST : 0;
	if (g->burst && chance(g, HOT_PM))
		id = g->hot;
	else
		id = pick_contract(g);

	g->npending = 0;
	g->next_pending = 0;
	r = below(g, 100);
	if (r < 70)
		ev_size(g, id);
	else if (r < 90)
		ev_trade(g, id);
	else if (r < 97)
		ev_move(g, id);
	else
		ev_spread(g, id);

	for (i = 1; i < g->npending; i++)
		next_arrival(g);
	for (i = 0; i < g->npending; i++) {
		g->pending[i].exch_ns = g->now_ns;
		g->pending[i].flags |= flags;
	}
}

int tickgen_init(struct tickgen *g, uint64_t seed, uint64_t rate,
		 uint16_t channel)
{
	uint64_t x = seed;
	unsigned int i;

	if (!rate)
		rate = TICKGEN_RATE_DEFAULT;
	if (rate > TICKGEN_RATE_MAX)
		return -TICKGEN_E_ARG;
	memset(g, 0, sizeof(*g));
	for (i = 0; i < 4; i++)
		g->s[i] = splitmix64(&x);
	g->seed = seed;
	g->rate = rate;
	g->channel = channel;
	g->now_ns = TICKGEN_START_NS;
	for (i = 0; i < TICKGEN_NCONTRACTS; i++) {
		const struct tickgen_contract *c = &contracts[i];
		struct tickgen_book *b = &g->book[i];

		set_bid(b, c, c->start, level_size(g, c));
		set_ask(b, c, c->start + 1, level_size(g, c));
	}
	return 0;
}

void tickgen_next(struct tickgen *g, struct md_tick *t)
{
	if (!g->started) {
		/* the opening book: BID then ASK of each contract */
		uint16_t id = g->init_sent / 2 + 1;

		g->npending = 0;
		if (g->init_sent % 2)
			emit_ask(g, id);
		else
			emit_bid(g, id);
		g->pending[0].exch_ns = g->now_ns;
		*t = g->pending[0];
		g->npending = 0;
		if (++g->init_sent == 2 * TICKGEN_NCONTRACTS)
			g->started = true;
	} else {
		if (g->next_pending >= g->npending)
			gen_event(g);
		*t = g->pending[g->next_pending++];
	}
	t->seq = ++g->seq;
}

/* ------------------------------------------------------------------------
 * The stream file
 * ----------------------------------------------------------------------
 */
int tickgen_file_write_hdr(FILE *f, const struct tickgen_file_hdr *h)
{
	uint8_t p[TICKGEN_FILE_HDR_SIZE];

	memset(p, 0, sizeof(p));
	memcpy(p, TICKGEN_FILE_MAGIC, 8);
	put32(p + 8, TICKGEN_FILE_VERSION);
	put16(p + 12, TICKGEN_FILE_HDR_SIZE);
	put16(p + 14, TICKGEN_WIRE_SIZE);
	put64(p + 16, h->count);
	put64(p + 24, h->seed);
	put64(p + 32, h->rate);
	put64(p + 40, h->start_ns);
	put16(p + 48, h->channel);
	put16(p + 50, h->ncontracts);
	if (fwrite(p, sizeof(p), 1, f) != 1)
		return -TICKGEN_E_IO;
	return 0;
}

int tickgen_file_read_hdr(FILE *f, struct tickgen_file_hdr *h)
{
	uint8_t p[TICKGEN_FILE_HDR_SIZE];

	memset(h, 0, sizeof(*h));
	if (fread(p, sizeof(p), 1, f) != 1)
		return ferror(f) ? -TICKGEN_E_IO : -TICKGEN_E_TRUNC;
	if (memcmp(p, TICKGEN_FILE_MAGIC, 8))
		return -TICKGEN_E_FILE;
	h->version = get32(p + 8);
	h->count = get64(p + 16);
	h->seed = get64(p + 24);
	h->rate = get64(p + 32);
	h->start_ns = get64(p + 40);
	h->channel = get16(p + 48);
	h->ncontracts = get16(p + 50);
	if (h->version != TICKGEN_FILE_VERSION ||
	    get16(p + 12) != TICKGEN_FILE_HDR_SIZE ||
	    get16(p + 14) != TICKGEN_WIRE_SIZE ||
	    h->ncontracts != TICKGEN_NCONTRACTS)
		return -TICKGEN_E_FILE;
	return 0;
}

int tickgen_file_write_tick(FILE *f, const struct md_tick *t)
{
	uint8_t p[TICKGEN_WIRE_SIZE];

	md_encode(p, t);
	if (fwrite(p, sizeof(p), 1, f) != 1)
		return -TICKGEN_E_IO;
	return 0;
}

int tickgen_file_read_tick(FILE *f, struct md_tick *t)
{
	uint8_t p[TICKGEN_WIRE_SIZE];
	size_t n = fread(p, 1, sizeof(p), f);
	int err;

	if (n != sizeof(p)) {
		memset(t, 0, sizeof(*t));
		if (ferror(f))
			return -TICKGEN_E_IO;
		return n ? -TICKGEN_E_TRUNC : 0;
	}
	err = md_decode(p, sizeof(p), t);
	return err ? err : 1;
}

int tickgen_file_write_stream(FILE *f, uint64_t seed, uint64_t rate,
			      uint16_t channel, uint64_t count)
{
	struct tickgen_file_hdr h;
	struct tickgen g;
	struct md_tick t;
	uint64_t i;
	int err;

	err = tickgen_init(&g, seed, rate, channel);
	if (err)
		return err;
	memset(&h, 0, sizeof(h));
	h.version = TICKGEN_FILE_VERSION;
	h.count = count;
	h.seed = seed;
	h.rate = g.rate;
	h.start_ns = TICKGEN_START_NS;
	h.channel = channel;
	h.ncontracts = TICKGEN_NCONTRACTS;
	err = tickgen_file_write_hdr(f, &h);
	for (i = 0; !err && i < count; i++) {
		tickgen_next(&g, &t);
		err = tickgen_file_write_tick(f, &t);
	}
	if (!err && fflush(f))
		err = -TICKGEN_E_IO;
	return err;
}
