/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tickgen: a deterministic synthetic futures market-data stream, the payload
 * the demo and the benchmarks carry over ibtick feeds.
 *
 * Three parts, each with its own contract below:
 *
 *   the wire message	struct md_tick, one market-data event, the payload of
 *			one ibtick tick: TICKGEN_WIRE_SIZE bytes, little-endian
 *   the generator	struct tickgen: a seed and a mean rate in, a stream of
 *			md_ticks out; the same seed and rate give the same
 *			stream, byte for byte, on any machine (integer
 *			arithmetic only, no libm, no rand())
 *   the stream file	a header and the encoded messages, what ibtick-gen
 *			writes and a publisher replays
 *
 * Functions that can fail return 0 (or a count) on success and a negative
 * TICKGEN_E* on failure; tickgen_strerror() names it.
 */
#ifndef IBTICK_TICKGEN_H
#define IBTICK_TICKGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------------
 * The wire message.
 *
 * Every field little-endian, no padding, TICKGEN_WIRE_SIZE (56) bytes:
 *
 *   off size field	meaning
 *    0   1  magic	TICKGEN_MAGIC (0x6d, 'm')
 *    1   1  version	TICKGEN_VERSION (1)
 *    2   1  type	enum md_type: BID, ASK, TRADE
 *    3   1  flags	MD_F_*
 *    4   2  contract	contract id, 1..TICKGEN_NCONTRACTS (tickgen_contract())
 *    6   2  channel	market-data channel the sequence number counts on
 *    8   8  seq	exchange sequence number: 1, 2, 3, ... per channel,
 *			no gaps (a reader seeing a jump lost messages)
 *   16   8  exch_ns	exchange time, ns since the Unix epoch (synthetic
 *			clock); never decreases along the stream, messages
 *			of one exchange event share it
 *   24   8  send_ns	publisher's send time, ns (its CLOCK_REALTIME); 0 in
 *			a stream file, set with tickgen_wire_set_send_ns()
 *   32   8  price	signed, in the contract's ticks: the price is
 *			price * tick size, i.e. price * tick_e9 / 10^9
 *			(ES 20001 -> 5000.25); always > 0
 *   40   4  qty	BID/ASK: contracts resting at the level after the
 *			update; TRADE: contracts traded.  Always > 0
 *   44   4  orders	BID/ASK: orders resting at the level; TRADE: resting
 *			orders the trade filled.  1..qty
 *   48   8  volume	the contract's cumulative traded volume since the
 *			start of the stream, this message included
 *
 * Book semantics: BID and ASK replace the contract's best bid or best ask
 * (price and size).  The generator orders messages so that a reader applying
 * them one by one always sees bid < ask once both sides are known, and a
 * TRADE is at the best ask as that reader sees it (MD_F_BUY: the buyer took
 * the offer) or at the best bid (MD_F_SELL); the book messages that follow a
 * trade, with the same exch_ns, show its effect.
 *
 * Later versions may append fields: a decoder takes len >= TICKGEN_WIRE_SIZE
 * and ignores the rest.  A different version byte is rejected.
 * ----------------------------------------------------------------------
 */
#define TICKGEN_MAGIC		0x6d
#define TICKGEN_VERSION		1
#define TICKGEN_WIRE_SIZE	56

enum md_type {
	MD_BID		= 1,
	MD_ASK		= 2,
	MD_TRADE	= 3,
};

/* TRADE: exactly one of BUY (aggressor bought, at the ask) or SELL. */
#define MD_F_BUY	(1U << 0)
#define MD_F_SELL	(1U << 1)
/* Generated while the arrival process was in its burst state. */
#define MD_F_BURST	(1U << 2)
#define MD_F_ALL	(MD_F_BUY | MD_F_SELL | MD_F_BURST)

/*
 * The decoded message.  Its layout matches the wire on a little-endian host,
 * but encode/decode do not rely on that.
 */
struct md_tick {
	uint8_t		magic;
	uint8_t		version;
	uint8_t		type;
	uint8_t		flags;
	uint16_t	contract;
	uint16_t	channel;
	uint64_t	seq;
	uint64_t	exch_ns;
	uint64_t	send_ns;
	int64_t		price;
	uint32_t	qty;
	uint32_t	orders;
	uint64_t	volume;
};

enum tickgen_err {
	TICKGEN_E_SHORT = 1,	/* buffer shorter than TICKGEN_WIRE_SIZE */
	TICKGEN_E_MAGIC,	/* magic byte is not TICKGEN_MAGIC */
	TICKGEN_E_VERSION,	/* version byte is not TICKGEN_VERSION */
	TICKGEN_E_TYPE,		/* type not BID, ASK or TRADE */
	TICKGEN_E_CONTRACT,	/* contract id not in the table */
	TICKGEN_E_FLAGS,	/* unknown flag, or BUY/SELL wrong for the type */
	TICKGEN_E_PRICE,	/* price <= 0 */
	TICKGEN_E_QTY,		/* qty == 0 */
	TICKGEN_E_IO,		/* read or write failed (errno has more) */
	TICKGEN_E_TRUNC,	/* file ended inside a header or record */
	TICKGEN_E_FILE,		/* file header magic, version or sizes wrong */
	TICKGEN_E_ARG,		/* bad argument (rate out of range, ...) */
};

const char *tickgen_strerror(int err);
const char *md_type_name(unsigned int type);

/*
 * Encode @t into @buf (at least TICKGEN_WIRE_SIZE bytes); @t's magic and
 * version are ignored, the current ones are written.  Returns the size.
 */
size_t md_encode(void *buf, const struct md_tick *t);
/*
 * Decode and validate @len bytes at @buf.  Returns 0, or -TICKGEN_E_* for
 * the first problem found (checked in the order of enum tickgen_err); on
 * failure @t holds whatever was decoded.
 */
int md_decode(const void *buf, size_t len, struct md_tick *t);
/* Patch send_ns in an encoded message (a publisher, just before send()). */
void md_wire_set_send_ns(void *buf, uint64_t send_ns);

/* ------------------------------------------------------------------------
 * The contracts: a fixed table, CME-like, ids 1..TICKGEN_NCONTRACTS.
 * ----------------------------------------------------------------------
 */
#define TICKGEN_NCONTRACTS	6

/*
 * @tick_e9:	tick size in 10^-9 price units (exact for every contract)
 * @decimals:	digits after the point that show every tick
 * @start:	opening mid-ish price: the first bid, in ticks
 * @weight:	share of the messages, out of the table's sum (100)
 * @level_qty:	scale of a resting level's size (heavy-tailed around it)
 * @trade_qty:	scale of a trade's size (most trades are 1..a few lots)
 */
struct tickgen_contract {
	uint16_t	id;
	const char	*symbol;
	const char	*name;
	uint64_t	tick_e9;
	unsigned int	decimals;
	int64_t		start;
	uint32_t	weight;
	uint32_t	level_qty;
	uint32_t	trade_qty;
};

/* The contract with id @id, or NULL. */
const struct tickgen_contract *tickgen_contract(unsigned int id);
/*
 * Format @ticks of contract @c as a decimal price ("5000.25"); returns @buf.
 * @len of 32 always suffices.
 */
char *tickgen_fmt_price(char *buf, size_t len,
			const struct tickgen_contract *c, int64_t ticks);

/* ------------------------------------------------------------------------
 * The generator.
 *
 * Arrivals: a two-state Markov-modulated Poisson process.  With R the mean
 * rate (messages per second), the quiet state emits at 0.25 R and turns to
 * burst at 0.016 R; the burst state emits at 19.75 R and calms down at 0.4 R.
 * So 3.8% of the time is burst, holding 76% of the messages (~49 per burst,
 * mean gap 1/(19.75 R): 2.5 us at R = 20000), and the long-run rate is
 * exactly R.  The exchange clock starts at TICKGEN_START_NS and advances by
 * the arrival gaps.  On entering a burst a "hot" contract is drawn by weight
 * and gets 60% of the burst's events (the mix over time stays by weight).
 *
 * Events: every message of an exchange event takes one arrival from the
 * process, and all of them carry the time of the event's last arrival (so
 * the gaps inside an event are 0 and the mean rate is still R).  Per event,
 * for one contract drawn by weight (in a burst, 60%: the hot one):
 *   size change (70%)	one side's size changes (orders join or cancel):
 *			one BID or ASK
 *   trade (20%)	a heavy-tailed size at the bid or the ask (buys more
 *			likely after an up move): TRADE, then the level's new
 *			size; a trade that empties the level moves that side a
 *			tick away and the other side usually follows (the mid
 *			moves a tick): TRADE, ASK, BID or TRADE, BID, ASK
 *   move (7%)		the book shifts by 1 tick (85%), 2 (12%) or 3..5 (3%),
 *			up or down with a slight pull back towards the start
 *			price: the two sides in the order that keeps bid < ask
 *   spread (3%)	a 1-tick spread widens by a tick (one side backs
 *			off); a wide one narrows (one side improves)
 * Sizes are 1 + Lomax(alpha 2) scaled by the contract's level_qty or
 * trade_qty: mostly small, occasionally very large (capped).
 * ----------------------------------------------------------------------
 */
#define TICKGEN_RATE_DEFAULT	20000ULL
#define TICKGEN_RATE_MAX	1000000000ULL
#define TICKGEN_CHANNEL_DEFAULT	1
/* 2024-03-15 13:30:00 UTC, a US equity open */
#define TICKGEN_START_NS	1710509400000000000ULL

struct tickgen_book {
	int64_t		bid, ask;	/* ticks */
	uint32_t	bid_qty, ask_qty;
	uint32_t	bid_orders, ask_orders;
	uint64_t	volume;
	int		last_move;	/* -1, 0, +1: sign of the last mid move */
};

#define TICKGEN_PENDING_MAX	4

struct tickgen {
	uint64_t	s[4];		/* xoshiro256** state */
	uint64_t	seed;
	uint64_t	rate;		/* messages per second */
	uint16_t	channel;
	uint64_t	seq;		/* of the last message returned */
	uint64_t	now_ns;		/* exchange clock */
	uint32_t	now_frac;	/* and its fraction of a ns, Q16 */
	bool		burst;		/* arrival process state */
	uint16_t	hot;		/* the burst's hot contract */
	struct tickgen_book book[TICKGEN_NCONTRACTS];
	struct md_tick	pending[TICKGEN_PENDING_MAX];
	unsigned int	npending, next_pending;
	bool		started;	/* initial book messages sent */
	unsigned int	init_sent;
};

/*
 * Set up @g: @seed any value, @rate 1..TICKGEN_RATE_MAX messages per second
 * (0: TICKGEN_RATE_DEFAULT), @channel the channel id to stamp.  Returns 0 or
 * -TICKGEN_E_ARG.
 *
 * The stream opens with each contract's book (a BID and an ASK per contract,
 * in id order, at TICKGEN_START_NS), then the events.
 */
int tickgen_init(struct tickgen *g, uint64_t seed, uint64_t rate,
		 uint16_t channel);
/* Fill @t with the next message (send_ns 0). */
void tickgen_next(struct tickgen *g, struct md_tick *t);

/* The raw PRNG (xoshiro256**), exposed for tests: next 64 bits. */
uint64_t tickgen_rand(struct tickgen *g);
/* -ln(U), U uniform on (0,1) from @r, in Q32 fixed point (exposed for tests). */
uint64_t tickgen_neg_ln_q32(uint64_t r);

/* ------------------------------------------------------------------------
 * The stream file: a TICKGEN_FILE_HDR_SIZE-byte header then @count records,
 * each an encoded message (TICKGEN_WIRE_SIZE bytes, send_ns 0), in stream
 * order.  Little-endian:
 *
 *   off size field
 *    0   8  magic		"IBTTICKS"
 *    8   4  version	TICKGEN_FILE_VERSION (1)
 *   12   2  hdr_size	TICKGEN_FILE_HDR_SIZE (64)
 *   14   2  rec_size	TICKGEN_WIRE_SIZE (56)
 *   16   8  count		records that follow
 *   24   8  seed		the generator's seed
 *   32   8  rate		its mean rate, messages per second
 *   40   8  start_ns	exchange clock origin (TICKGEN_START_NS)
 *   48   2  channel
 *   50   2  ncontracts	TICKGEN_NCONTRACTS
 *   52  12  reserved	0
 *
 * The gap before a record is its exch_ns minus the previous one's.
 * ----------------------------------------------------------------------
 */
#define TICKGEN_FILE_MAGIC	"IBTTICKS"
#define TICKGEN_FILE_VERSION	1
#define TICKGEN_FILE_HDR_SIZE	64

struct tickgen_file_hdr {
	uint32_t	version;
	uint64_t	count;
	uint64_t	seed;
	uint64_t	rate;
	uint64_t	start_ns;
	uint16_t	channel;
	uint16_t	ncontracts;
};

int tickgen_file_write_hdr(FILE *f, const struct tickgen_file_hdr *h);
/* Read and check a header; -TICKGEN_E_FILE for a wrong magic or sizes. */
int tickgen_file_read_hdr(FILE *f, struct tickgen_file_hdr *h);
int tickgen_file_write_tick(FILE *f, const struct md_tick *t);
/*
 * Read and decode one record: 1, 0 at a clean end of file, or -TICKGEN_E_*
 * (TRUNC inside a record, a decode error for a bad one).
 */
int tickgen_file_read_tick(FILE *f, struct md_tick *t);
/* Generate @count messages of (@seed, @rate, @channel) into @f, header first. */
int tickgen_file_write_stream(FILE *f, uint64_t seed, uint64_t rate,
			      uint16_t channel, uint64_t count);

#endif
