// SPDX-License-Identifier: GPL-2.0
/*
 * The synthetic market-data generator (user/bench/tickgen.c): determinism,
 * the book and sequence invariants a reader checks, the arrival process's
 * rate and burstiness, the wire codec and the stream file.
 */
#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>

#include "tickgen.h"
#include "unit.h"

#define N_EVENTS	100000

/* FNV-1a over @len bytes, continuing from @h. */
static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

/*
 * The first N_EVENTS messages of seed 1 at the default rate, hashed.  The
 * generator uses integer arithmetic only, so this holds on every compiler
 * and CPU; a change to the model changes it on purpose (update it then,
 * from the value the failure prints).
 */
#define GOLDEN_SEED1	0x52aecf1d51925451ULL

static void tickgen_determinism(void)
{
	static uint8_t a[TICKGEN_WIRE_SIZE], b[TICKGEN_WIRE_SIZE];
	struct tickgen g1, g2, g3;
	struct md_tick t1, t2, t3;
	unsigned long same_bad = 0, differ = 0;
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	CHECK(tickgen_init(&g1, 1, 0, 1) == 0);
	CHECK(tickgen_init(&g2, 1, 0, 1) == 0);
	CHECK(tickgen_init(&g3, 2, 0, 1) == 0);
	for (i = 0; i < N_EVENTS; i++) {
		tickgen_next(&g1, &t1);
		tickgen_next(&g2, &t2);
		tickgen_next(&g3, &t3);
		md_encode(a, &t1);
		md_encode(b, &t2);
		if (memcmp(a, b, sizeof(a)))
			same_bad++;
		h = fnv1a(h, a, sizeof(a));
		md_encode(b, &t3);
		if (memcmp(a, b, sizeof(a)))
			differ++;
	}
	CHECK(same_bad == 0);
	/* another seed: a different stream, not a shifted copy */
	CHECK(differ > N_EVENTS * 9 / 10);
	if (h != GOLDEN_SEED1)
		fprintf(stderr, "  stream hash of seed 1: 0x%016" PRIx64 "\n", h);
	CHECK(h == GOLDEN_SEED1);
}

struct rbook {
	int64_t		bid, ask;
	uint64_t	volume, msgs;
};

static void tickgen_invariants(void)
{
	struct rbook bk[TICKGEN_NCONTRACTS + 1];
	unsigned long crossed = 0, bad_price = 0, bad_seq = 0, backwards = 0;
	unsigned long off_touch = 0, bad_vol = 0, bad_orders = 0, bad_chan = 0;
	unsigned long undecodable = 0, trades = 0, moves = 0, big_moves = 0;
	uint8_t buf[TICKGEN_WIRE_SIZE];
	uint64_t last_ns = TICKGEN_START_NS;
	struct md_tick t, d;
	struct tickgen g;
	int i;

	memset(bk, 0, sizeof(bk));
	CHECK(tickgen_init(&g, 7, 20000, 9) == 0);
	for (i = 0; i < N_EVENTS; i++) {
		const struct tickgen_contract *c;
		struct rbook *b;
		int64_t prev;

		tickgen_next(&g, &t);
		md_encode(buf, &t);
		if (md_decode(buf, sizeof(buf), &d)) {
			undecodable++;
			continue;
		}
		c = tickgen_contract(t.contract);
		b = &bk[t.contract];
		if ((uint64_t)t.seq != (uint64_t)i + 1)
			bad_seq++;
		if (t.exch_ns < last_ns)
			backwards++;
		last_ns = t.exch_ns;
		if (t.channel != 9)
			bad_chan++;
		/* positive, and within 5% of where the contract opened */
		if (t.price <= 0 || t.price < c->start * 95 / 100 ||
		    t.price > c->start * 105 / 100)
			bad_price++;
		if (!t.orders || t.orders > t.qty)
			bad_orders++;
		switch (t.type) {
		case MD_BID:
			prev = b->bid;
			b->bid = t.price;
			break;
		case MD_ASK:
			prev = b->ask;
			b->ask = t.price;
			break;
		default:
			prev = 0;
			trades++;
			b->volume += t.qty;
			if (t.price != (t.flags & MD_F_BUY ? b->ask : b->bid))
				off_touch++;
		}
		if (prev && prev != t.price) {
			moves++;
			if (t.price - prev > 2 || prev - t.price > 2)
				big_moves++;
		}
		if (t.volume != b->volume)
			bad_vol++;
		if (b->bid && b->ask && b->bid >= b->ask)
			crossed++;
		b->msgs++;
	}
	CHECK(undecodable == 0);
	CHECK(bad_seq == 0);
	CHECK(backwards == 0);
	CHECK(bad_chan == 0);
	CHECK(bad_price == 0);
	CHECK(bad_orders == 0);
	CHECK(crossed == 0);
	CHECK(off_touch == 0);
	CHECK(bad_vol == 0);
	/* the stream is a market: trades happen, prices move, mostly by a tick */
	CHECK(trades > N_EVENTS / 20);
	CHECK(moves > N_EVENTS / 50);
	CHECK(big_moves > 0 && big_moves < moves / 4);
	/* the contract mix follows the weights (30% ES, 7% 6E) */
	CHECK(bk[1].msgs > N_EVENTS * 27 / 100 && bk[1].msgs < N_EVENTS * 33 / 100);
	CHECK(bk[6].msgs > N_EVENTS * 5 / 100 && bk[6].msgs < N_EVENTS * 9 / 100);
}

/* Mean rate and gap statistics of N_EVENTS messages. */
static void measure(uint64_t seed, uint64_t rate, double *mean_rate,
		    double *cv2, double *burst_frac)
{
	double sum = 0, sq = 0, mean;
	uint64_t first = 0, last = 0, bursty = 0;
	struct tickgen g;
	struct md_tick t;
	int i;

	CHECK(tickgen_init(&g, seed, rate, 1) == 0);
	for (i = 0; i < N_EVENTS; i++) {
		tickgen_next(&g, &t);
		if (i) {
			double gap = t.exch_ns - last;

			sum += gap;
			sq += gap * gap;
		} else {
			first = t.exch_ns;
		}
		last = t.exch_ns;
		if (t.flags & MD_F_BURST)
			bursty++;
	}
	*mean_rate = (N_EVENTS - 1) / ((last - first) / 1e9);
	mean = sum / (N_EVENTS - 1);
	/* the squared coefficient of variation: E[g^2] / mean^2 - 1 */
	*cv2 = sq / (N_EVENTS - 1) / (mean * mean) - 1;
	*burst_frac = (double)bursty / N_EVENTS;
}

static void tickgen_rate(void)
{
	static const uint64_t rates[] = { 20000, 1000, 2000000 };
	double r, cv2, bf;
	unsigned int i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		measure(3 + i, rates[i], &r, &cv2, &bf);
		if (r < rates[i] * 0.9 || r > rates[i] * 1.1)
			fprintf(stderr, "  rate %" PRIu64 ": measured %.0f\n",
				rates[i], r);
		CHECK(r >= rates[i] * 0.9 && r <= rates[i] * 1.1);
	}
}

static void tickgen_bursts(void)
{
	double r, cv2, bf;

	measure(11, 20000, &r, &cv2, &bf);
	if (cv2 <= 1.5 * 1.5)
		fprintf(stderr, "  gap cv^2 %.3f\n", cv2);
	/* a Poisson stream has cv 1; bursts and quiet spells push it up */
	CHECK(cv2 > 1.5 * 1.5);
	/* most messages come in bursts, though bursts are a few % of the time */
	CHECK(bf > 0.6 && bf < 0.9);
}

static void tickgen_neg_ln(void)
{
	/* U = x / 2^53 with x = (r >> 11) + 1 */
	static const struct {
		uint64_t r;
		double want;
	} v[] = {
		{ ((1ULL << 52) - 1) << 11, 0.69314718055994531 },	/* U = 1/2 */
		{ ((3ULL << 51) - 1) << 11, 0.28768207245178093 },	/* 3/4 */
		{ ~0ULL, 0 },						/* U = 1 */
		{ 0, 36.736800569677101 },				/* 2^-53 */
		{ ((1ULL << 33) - 1) << 11, 13.862943611198906 },	/* 2^-20 */
	};
	double sum = 0;
	struct tickgen g;
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		double got = tickgen_neg_ln_q32(v[i].r) / 4294967296.0;

		if (got - v[i].want > 1e-7 || v[i].want - got > 1e-7)
			fprintf(stderr, "  -ln: got %.9f want %.9f\n", got,
				v[i].want);
		CHECK(got - v[i].want <= 1e-7 && v[i].want - got <= 1e-7);
	}
	/* Exp(1) has mean 1 */
	CHECK(tickgen_init(&g, 5, 0, 1) == 0);
	for (i = 0; i < 100000; i++)
		sum += tickgen_neg_ln_q32(tickgen_rand(&g)) / 4294967296.0;
	CHECK(sum / 100000 > 0.98 && sum / 100000 < 1.02);
}

static void tickgen_codec(void)
{
	struct md_tick t = {
		.type = MD_TRADE, .flags = MD_F_SELL | MD_F_BURST,
		.contract = 4, .channel = 0xbeef,
		.seq = 0x0102030405060708ULL, .exch_ns = TICKGEN_START_NS + 17,
		.send_ns = 0, .price = 0x123456789aLL, .qty = 0xfffffffe,
		.orders = 3, .volume = 0xfedcba9876543210ULL,
	}, d;
	uint8_t buf[TICKGEN_WIRE_SIZE + 8];
	struct tickgen g;
	int i, bad = 0;

	memset(buf, 0xaa, sizeof(buf));
	CHECK(md_encode(buf, &t) == TICKGEN_WIRE_SIZE);
	/* the documented little-endian layout */
	CHECK(buf[0] == TICKGEN_MAGIC && buf[1] == TICKGEN_VERSION);
	CHECK(buf[2] == MD_TRADE && buf[3] == (MD_F_SELL | MD_F_BURST));
	CHECK(buf[4] == 4 && buf[5] == 0);
	CHECK(buf[6] == 0xef && buf[7] == 0xbe);
	CHECK(buf[8] == 0x08 && buf[15] == 0x01);
	CHECK(buf[32] == 0x9a && buf[36] == 0x12 && buf[39] == 0);
	CHECK(buf[40] == 0xfe && buf[43] == 0xff && buf[44] == 3);
	CHECK(buf[48] == 0x10 && buf[55] == 0xfe);
	CHECK(buf[56] == 0xaa);		/* nothing written past the message */

	t.magic = TICKGEN_MAGIC;
	t.version = TICKGEN_VERSION;
	CHECK(md_decode(buf, sizeof(buf), &d) == 0);
	CHECK(!memcmp(&t, &d, sizeof(t)));
	md_wire_set_send_ns(buf, 0x1122334455667788ULL);
	CHECK(md_decode(buf, TICKGEN_WIRE_SIZE, &d) == 0);
	CHECK(d.send_ns == 0x1122334455667788ULL && d.seq == t.seq);

	/* every generated message survives the trip */
	CHECK(tickgen_init(&g, 99, 0, 1) == 0);
	for (i = 0; i < 10000; i++) {
		tickgen_next(&g, &t);
		md_encode(buf, &t);
		if (md_decode(buf, TICKGEN_WIRE_SIZE, &d) ||
		    memcmp(&t, &d, sizeof(t)))
			bad++;
	}
	CHECK(bad == 0);
}

static void tickgen_decode_errors(void)
{
	struct md_tick t = {
		.type = MD_BID, .contract = 1, .channel = 1, .seq = 1,
		.exch_ns = TICKGEN_START_NS, .price = 20600, .qty = 10,
		.orders = 2,
	}, d;
	uint8_t good[TICKGEN_WIRE_SIZE], b[TICKGEN_WIRE_SIZE];

	md_encode(good, &t);
	CHECK(md_decode(good, sizeof(good), &d) == 0);
	CHECK(md_decode(good, sizeof(good) - 1, &d) == -TICKGEN_E_SHORT);

#define CORRUPT(off, val, err) do {					\
	memcpy(b, good, sizeof(b));					\
	b[off] = (val);							\
	CHECK(md_decode(b, sizeof(b), &d) == -(err));			\
} while (0)
	CORRUPT(0, 0x6c, TICKGEN_E_MAGIC);
	CORRUPT(0, 0, TICKGEN_E_MAGIC);
	CORRUPT(1, 2, TICKGEN_E_VERSION);
	CORRUPT(2, 0, TICKGEN_E_TYPE);
	CORRUPT(2, 4, TICKGEN_E_TYPE);
	CORRUPT(4, 0, TICKGEN_E_CONTRACT);
	CORRUPT(4, TICKGEN_NCONTRACTS + 1, TICKGEN_E_CONTRACT);
	CORRUPT(5, 1, TICKGEN_E_CONTRACT);		/* id 257 */
	CORRUPT(3, MD_F_BUY, TICKGEN_E_FLAGS);		/* BID with a side */
	CORRUPT(3, 0x80, TICKGEN_E_FLAGS);		/* unknown flag */
	CORRUPT(39, 0x80, TICKGEN_E_PRICE);		/* negative */
	CORRUPT(40, 0, TICKGEN_E_QTY);
	/* a TRADE needs exactly one side */
	CORRUPT(2, MD_TRADE, TICKGEN_E_FLAGS);
	b[3] = MD_F_BUY | MD_F_SELL;
	CHECK(md_decode(b, sizeof(b), &d) == -TICKGEN_E_FLAGS);
	b[3] = MD_F_BUY;
	CHECK(md_decode(b, sizeof(b), &d) == 0);
	t.price = 0;
	md_encode(b, &t);
	CHECK(md_decode(b, sizeof(b), &d) == -TICKGEN_E_PRICE);
#undef CORRUPT

	CHECK_STR(tickgen_strerror(-TICKGEN_E_MAGIC), "bad message magic");
	CHECK_STR(tickgen_strerror(-999), "unknown error");
	CHECK_STR(md_type_name(MD_TRADE), "TRADE");
}

static void tickgen_prices(void)
{
	char b[32];

	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(1), 20601), "5150.25");
	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(3), 8100), "81.00");
	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(4), 7073), "110.515625");
	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(5), 21601), "2160.1");
	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(6), 21791), "1.08955");
	CHECK_STR(tickgen_fmt_price(b, sizeof(b), tickgen_contract(1), -1), "-0.25");
	CHECK(tickgen_contract(0) == NULL);
	CHECK(tickgen_contract(TICKGEN_NCONTRACTS + 1) == NULL);
	CHECK_STR(tickgen_contract(TICKGEN_NCONTRACTS)->symbol, "6E");
}

static void tickgen_args(void)
{
	struct tickgen g;

	CHECK(tickgen_init(&g, 1, TICKGEN_RATE_MAX + 1, 1) == -TICKGEN_E_ARG);
	CHECK(tickgen_init(&g, 1, 0, 1) == 0 && g.rate == TICKGEN_RATE_DEFAULT);
	CHECK(tickgen_init(&g, 1, TICKGEN_RATE_MAX, 1) == 0);
}

static void tickgen_file(void)
{
	struct tickgen_file_hdr h;
	unsigned long bad = 0;
	struct md_tick t, w;
	struct tickgen g;
	uint8_t rec[TICKGEN_WIRE_SIZE];
	FILE *f = tmpfile(), *cut;
	int i, rc;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(tickgen_file_write_stream(f, 5, 12345, 3, 1000) == 0);
	CHECK(ftell(f) == TICKGEN_FILE_HDR_SIZE + 1000 * TICKGEN_WIRE_SIZE);
	rewind(f);
	CHECK(tickgen_file_read_hdr(f, &h) == 0);
	CHECK(h.version == TICKGEN_FILE_VERSION && h.count == 1000);
	CHECK(h.seed == 5 && h.rate == 12345 && h.channel == 3);
	CHECK(h.start_ns == TICKGEN_START_NS);
	CHECK(h.ncontracts == TICKGEN_NCONTRACTS);
	CHECK(tickgen_init(&g, 5, 12345, 3) == 0);
	for (i = 0; i < 1000; i++) {
		tickgen_next(&g, &w);
		rc = tickgen_file_read_tick(f, &t);
		if (rc != 1 || memcmp(&t, &w, sizeof(t)))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(tickgen_file_read_tick(f, &t) == 0);

	/* the first record, as bytes; then a file ending inside the second */
	rewind(f);
	CHECK(tickgen_file_read_hdr(f, &h) == 0);
	CHECK(fread(rec, sizeof(rec), 1, f) == 1);
	md_decode(rec, sizeof(rec), &t);
	CHECK(t.seq == 1 && t.type == MD_BID && t.contract == 1);
	cut = tmpfile();
	CHECK(cut != NULL);
	if (cut) {
		CHECK(tickgen_file_write_hdr(cut, &h) == 0);
		CHECK(fwrite(rec, sizeof(rec), 1, cut) == 1);
		CHECK(fwrite(rec, 10, 1, cut) == 1);
		rewind(cut);
		CHECK(tickgen_file_read_hdr(cut, &h) == 0);
		CHECK(tickgen_file_read_tick(cut, &t) == 1);
		CHECK(tickgen_file_read_tick(cut, &t) == -TICKGEN_E_TRUNC);
		fclose(cut);
	}
	/* and one ending inside the header (cut before anything is read) */
	cut = tmpfile();
	CHECK(cut != NULL);
	if (cut) {
		CHECK(tickgen_file_write_hdr(cut, &h) == 0);
		CHECK(fflush(cut) == 0);
		CHECK(ftruncate(fileno(cut), 20) == 0);
		rewind(cut);
		CHECK(tickgen_file_read_hdr(cut, &h) == -TICKGEN_E_TRUNC);
		fclose(cut);
	}

	/* a corrupted record: its decode error */
	rewind(f);
	CHECK(fseek(f, TICKGEN_FILE_HDR_SIZE + 2, SEEK_SET) == 0);
	fputc(9, f);
	CHECK(fseek(f, TICKGEN_FILE_HDR_SIZE, SEEK_SET) == 0);
	CHECK(tickgen_file_read_tick(f, &t) == -TICKGEN_E_TYPE);

	/* a header with a wrong magic, version or record size */
	rewind(f);
	fputc('X', f);
	rewind(f);
	CHECK(tickgen_file_read_hdr(f, &h) == -TICKGEN_E_FILE);
	rewind(f);
	CHECK(tickgen_file_write_stream(f, 5, 12345, 3, 0) == 0);
	CHECK(fseek(f, 14, SEEK_SET) == 0);
	fputc(TICKGEN_WIRE_SIZE + 1, f);
	rewind(f);
	CHECK(tickgen_file_read_hdr(f, &h) == -TICKGEN_E_FILE);
	rewind(f);
	CHECK(tickgen_file_write_stream(f, 5, 12345, 3, 0) == 0);
	CHECK(fseek(f, 8, SEEK_SET) == 0);
	fputc(TICKGEN_FILE_VERSION + 1, f);
	rewind(f);
	CHECK(tickgen_file_read_hdr(f, &h) == -TICKGEN_E_FILE);

	fclose(f);
}

const struct unit_case tickgen_cases[] = {
	{ "tickgen: same seed same bytes, other seed other stream", tickgen_determinism },
	{ "tickgen: books, sequence, clock, trades, volumes", tickgen_invariants },
	{ "tickgen: mean rate within 10%", tickgen_rate },
	{ "tickgen: bursty arrivals", tickgen_bursts },
	{ "tickgen: fixed-point -ln", tickgen_neg_ln },
	{ "tickgen: wire encode/decode", tickgen_codec },
	{ "tickgen: decode rejects bad messages", tickgen_decode_errors },
	{ "tickgen: prices and contracts", tickgen_prices },
	{ "tickgen: init arguments", tickgen_args },
	{ "tickgen: stream file round trip", tickgen_file },
	{ NULL }
};
