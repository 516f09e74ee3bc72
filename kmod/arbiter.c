// SPDX-License-Identifier: GPL-2.0
/*
 * A/B line arbitration, the pure logic: see arbiter.h for the rules.
 *
 * The tracked numbers are [max(base, next - IBT_ARB_SPAN), next), each in
 * e[number & (IBT_ARB_SPAN - 1)].  Those below @scan are final: delivered
 * (mask != 0) or declared a gap.  Those in [scan, next) are delivered or
 * open holes, and become final in order as their window ends: numbers
 * open in increasing order (a hole opens when a higher number arrives), so
 * the walk stops at the first that is not due.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "arbiter.h"

#define IBT_ARB_WINDOW_NS_MAX	(60ULL * 1000 * 1000 * 1000)

/* A run of consecutive gap numbers being collected for gap_fn. */
struct ibt_arb_run {
	u64	first;
	u64	count;
};

int ibt_arb_cfg_check(const struct ibt_arb_cfg *c)
{
	if (c->width != 0 && c->width != 4 && c->width != 8)
		return -EINVAL;
	if (!c->width && c->off)
		return -EINVAL;
	if ((u32)c->off + c->width > U16_MAX)
		return -EINVAL;
	if (c->window_ticks > IBT_ARB_SPAN ||
	    c->window_ns > IBT_ARB_WINDOW_NS_MAX)
		return -EINVAL;
	if (!c->window_ns && !c->window_ticks)
		return -EINVAL;
	return 0;
}

void ibt_arb_init(struct ibt_arb *a, const struct ibt_arb_cfg *c, u32 nrails,
		  struct ibt_arb_ent *e, ibt_arb_gap_fn gap_fn, void *ctx)
{
	memset(a, 0, sizeof(*a));
	a->cfg = *c;
	a->nrails = nrails;
	a->e = e;
	a->gap_fn = gap_fn;
	a->ctx = ctx;
}

void ibt_arb_rail_restart(struct ibt_arb *a, u32 r)
{
	a->rail[r].started = false;
	a->rail[r].last = 0;
	a->rail[r].jump = 0;
	a->rail[r].epoch = a->epoch;
}

int ibt_arb_field(const struct ibt_arb_cfg *c, const void *payload, u32 len,
		  u64 pub_seq, u64 *raw)
{
	const u8 *p = (const u8 *)payload + c->off;

	if (!c->width) {
		*raw = pub_seq;
		return 0;
	}
	if ((u32)c->off + c->width > len)
		return -EMSGSIZE;
	if (c->width == 4)
		*raw = c->big_endian ? get_unaligned_be32(p) :
				       get_unaligned_le32(p);
	else
		*raw = c->big_endian ? get_unaligned_be64(p) :
				       get_unaligned_le64(p);
	return 0;
}

static struct ibt_arb_ent *ibt_arb_ent(struct ibt_arb *a, u64 n)
{
	return &a->e[n & (IBT_ARB_SPAN - 1)];
}

/*
 * @raw as a number near @ref: a 4-byte field is compared in serial
 * arithmetic, so that 2^32 - 1 is followed by 2^32 (read as 0).
 */
static u64 ibt_arb_unwrap(const struct ibt_arb *a, u64 ref, u64 raw)
{
	s32 d;

	if (a->cfg.width != 4)
		return raw;
	d = (s32)((u32)raw - (u32)ref);
	if (d < 0 && (u64)-(s64)d > ref)
		return raw;	/* below 0: not a wrap */
	return ref + d;
}

static void ibt_arb_run_flush(struct ibt_arb *a, struct ibt_arb_run *run)
{
	if (!run->count)
		return;
	a->gaps++;
	a->gap_numbers += run->count;
	if (a->gap_fn)
		a->gap_fn(a, run->first, run->count, a->ctx);
	run->count = 0;
}

static void ibt_arb_run_add(struct ibt_arb *a, struct ibt_arb_run *run,
			    u64 first, u64 count)
{
	if (run->count && run->first + run->count != first)
		ibt_arb_run_flush(a, run);
	if (!run->count)
		run->first = first;
	run->count += count;
}

/* Number @a->scan's window is over: a gap, or a delivered number. */
static void ibt_arb_final(struct ibt_arb *a, struct ibt_arb_run *run)
{
	struct ibt_arb_ent *e = ibt_arb_ent(a, a->scan);

	if (!e->mask) {
		if (!e->gap) {
			e->gap = 1;
			a->holes--;
			ibt_arb_run_add(a, run, a->scan, 1);
		}
	} else if (hweight8(e->mask) == 1) {
		a->st[__ffs(e->mask)].only++;
	}
	a->scan++;
}

static bool ibt_arb_due(const struct ibt_arb *a, const struct ibt_arb_ent *e,
			u64 n, u64 now)
{
	if (a->cfg.window_ns && (s64)(now - e->t) >= (s64)a->cfg.window_ns)
		return true;
	return a->cfg.window_ticks && a->next - n > a->cfg.window_ticks;
}

u64 ibt_arb_expire(struct ibt_arb *a, u64 now)
{
	struct ibt_arb_run run = {};
	u64 at;

	while (a->scan < a->next &&
	       ibt_arb_due(a, ibt_arb_ent(a, a->scan), a->scan, now))
		ibt_arb_final(a, &run);
	ibt_arb_run_flush(a, &run);
	if (!a->holes || !a->cfg.window_ns || a->scan >= a->next)
		return 0;
	at = ibt_arb_ent(a, a->scan)->t + a->cfg.window_ns;
	/* never in the past: a timer set there would spin */
	return (s64)(at - now) > 0 ? at : now + 1;
}

void ibt_arb_flush(struct ibt_arb *a)
{
	struct ibt_arb_run run = {};

	while (a->scan < a->next)
		ibt_arb_final(a, &run);
	ibt_arb_run_flush(a, &run);
}

/* Numbers @from .. @to - 1 are open holes, their window started at @t. */
static void ibt_arb_holes(struct ibt_arb *a, u64 from, u64 to, u64 t)
{
	struct ibt_arb_ent *e;
	u64 n;

	for (n = from; n < to; n++) {
		e = ibt_arb_ent(a, n);
		e->t = t;
		e->t_first = 0;
		e->mask = 0;
		e->gap = 0;
		a->holes++;
	}
}

/* Number @s (>= next) arrived first: holes for what it skipped. */
static void ibt_arb_advance(struct ibt_arb *a, u64 s, u64 now)
{
	struct ibt_arb_run run = {};

	if (s - a->next >= IBT_ARB_SPAN) {
		/* more than can be tracked: what is open ends, the rest is one gap */
		while (a->scan < a->next)
			ibt_arb_final(a, &run);
		ibt_arb_run_add(a, &run, a->next, s - a->next);
		a->scan = s;
		a->base = s;
		a->opening = false;
	} else {
		/* room for [next, s]: what leaves the span is final */
		while (s - a->scan >= IBT_ARB_SPAN)
			ibt_arb_final(a, &run);
		ibt_arb_holes(a, a->next, s, now);
	}
	ibt_arb_run_flush(a, &run);
	a->next = s;
}

/*
 * Number @s, below the session's first, came while that first number's
 * window runs: the session starts at @s instead.  It is delivered late,
 * and the numbers between become holes that end with the first's window
 * (the order the expiry walk needs).  A rail's copy that the other rails
 * overtook at the start (A lost 1, B's 1 was slower than A's 2) is not
 * lost.
 */
static bool ibt_arb_extend(struct ibt_arb *a, u64 s, u64 now)
{
	u64 t = ibt_arb_ent(a, a->base)->t;

	if (!a->opening || a->scan != a->base || a->next - s > IBT_ARB_SPAN)
		return false;
	if (a->cfg.window_ticks && a->next - s > a->cfg.window_ticks)
		return false;
	if (a->cfg.window_ns && (s64)(now - t) >= (s64)a->cfg.window_ns)
		return false;
	ibt_arb_holes(a, s, a->base, t);
	a->base = s;
	a->scan = s;
	return true;
}

static void ibt_arb_lag(struct ibt_arb_rail_stats *st, u64 lag)
{
	st->lag_n++;
	st->lag_sum_ns += lag;
	if (lag > st->lag_max_ns)
		st->lag_max_ns = lag;
	st->lag_hist[min_t(u32, fls64(lag), IBT_ARB_LAG_BUCKETS - 1)]++;
}

/*
 * Rail @r restarts its sequence at @raw: it joins the session another
 * rail started, or starts one.
 */
static u64 ibt_arb_rail_reset(struct ibt_arb *a, u32 r, u64 raw)
{
	struct ibt_arb_rail *rl = &a->rail[r];

	rl->epoch = rl->epoch < a->epoch ? a->epoch : a->epoch + 1;
	a->st[r].resets++;
	rl->last = raw;
	rl->first = raw;
	return raw;
}

/*
 * Did rail @r have number @s of its session already?  A restarting rail
 * repeats numbers it sent; a step back to a number it never had is two
 * datagrams swapped on the way (a fill, or before the session's first),
 * not a restart.  What the arbiter no longer remembers counts as had.
 */
static bool ibt_arb_rail_had(struct ibt_arb *a, u32 r, u64 s)
{
	const struct ibt_arb_rail *rl = &a->rail[r];

	if (s < rl->first)
		return false;
	if (rl->epoch != a->epoch || !a->started || s < a->base ||
	    s >= a->next || a->next - s > IBT_ARB_SPAN)
		return true;
	return ibt_arb_ent(a, s)->mask & BIT(r);
}

/*
 * A jump of rail @r's to @s: taken when it confirms the last one (@s is
 * the number after it), else remembered and refused.
 */
static bool ibt_arb_jump_ok(struct ibt_arb_rail *rl, u64 s)
{
	if (rl->jump && s == rl->jump)
		return true;
	rl->jump = s + 1;
	return false;
}

/*
 * The rail's number, with its restarts.  Sets *@why to IBT_ARB_DROP_STALE
 * (an older session) or IBT_ARB_DROP_BAD (an unconfirmed jump), else
 * IBT_ARB_DELIVER.
 */
static u64 ibt_arb_rail_seq(struct ibt_arb *a, u32 r, u64 raw,
			    enum ibt_arb_verdict *why)
{
	struct ibt_arb_rail *rl = &a->rail[r];
	u64 s;
	s64 d;

	*why = IBT_ARB_DELIVER;
	if (!rl->started) {
		s = a->started && rl->epoch == a->epoch ?
			ibt_arb_unwrap(a, a->next, raw) : raw;
		rl->started = true;
		rl->last = s;
		rl->first = s;
	} else if (a->cfg.width == 4 && raw <= a->cfg.reset_at &&
		   (u32)raw < (u32)rl->last &&
		   (u32)rl->last < U32_MAX - IBT_ARB_SPAN &&
		   ibt_arb_rail_had(a, r, ibt_arb_unwrap(a, rl->last, raw))) {
		/* a 4-byte restart, not a wrap: the last was far from 2^32 */
		s = ibt_arb_rail_reset(a, r, raw);
	} else {
		s = ibt_arb_unwrap(a, rl->last, raw);
		d = s - rl->last;
		if (d < 0 && raw <= a->cfg.reset_at &&
		    ibt_arb_rail_had(a, r, s)) {
			s = ibt_arb_rail_reset(a, r, raw);
		} else if (d < -IBT_ARB_SPAN || d > IBT_ARB_SPAN) {
			if (!ibt_arb_jump_ok(rl, s)) {
				*why = IBT_ARB_DROP_BAD;
				return s;
			}
			rl->jump = 0;
			if (d < 0)
				s = ibt_arb_rail_reset(a, r, s);
			else
				rl->last = s;
		} else if (d > 0) {
			rl->last = s;
		}
	}
	if (rl->epoch < a->epoch)
		*why = IBT_ARB_DROP_STALE;
	return s;
}

enum ibt_arb_verdict ibt_arb_arrive(struct ibt_arb *a, u32 r, u64 raw,
				    u64 now, u64 *seq, u32 *flags)
{
	struct ibt_arb_rail_stats *st = &a->st[r];
	enum ibt_arb_verdict why;
	u8 bit = BIT(r);
	struct ibt_arb_ent *e;
	u64 s;

	*flags = 0;
	ibt_arb_expire(a, now);
	/* next + 1 must not wrap, nor the span beyond it */
	if (raw > U64_MAX - 2 * IBT_ARB_SPAN) {
		st->bad_seq++;
		return IBT_ARB_DROP_BAD;
	}
	s = ibt_arb_rail_seq(a, r, raw, &why);
	if (why == IBT_ARB_DROP_STALE) {
		st->stale++;
		return why;
	}
	if (why == IBT_ARB_DROP_BAD) {
		st->bad_seq++;
		return why;
	}
	/* a rail's first is the lowest it had (ibt_arb_rail_had()) */
	if (s < a->rail[r].first)
		a->rail[r].first = s;
	if (a->rail[r].epoch != a->epoch) {
		/* a new session: the old one's holes are gaps now */
		ibt_arb_flush(a);
		a->epoch = a->rail[r].epoch;
		a->started = false;
		a->resets++;
		*flags |= IBT_ARB_RESET;
	}
	if (!a->started) {
		a->started = true;
		a->base = s;
		a->scan = s;
		a->next = s;
		a->holes = 0;
		a->opening = true;
	} else if (s < a->next) {
		e = ibt_arb_ent(a, s);
		if ((s < a->base && !ibt_arb_extend(a, s, now)) ||
		    a->next - s > IBT_ARB_SPAN ||
		    (s < a->scan && (e->gap || !e->mask))) {
			/* declared a gap, or before the arbiter's memory */
			st->late++;
			return IBT_ARB_DROP_LATE;
		}
		if (e->mask) {
			if (!(e->mask & bit)) {
				ibt_arb_lag(st, now > e->t_first ?
					    now - e->t_first : 0);
				e->mask |= bit;
			}
			st->dup++;
			return IBT_ARB_DUP;
		}
		/* an open hole, filled in time; its window stays its own */
		e->mask = bit;
		e->t_first = now;
		a->holes--;
		st->won++;
		a->delivered++;
		*flags |= IBT_ARB_LATE;
		*seq = s;
		return IBT_ARB_DELIVER;
	}
	ibt_arb_advance(a, s, now);
	e = ibt_arb_ent(a, s);
	e->t = now;
	e->t_first = now;
	e->mask = bit;
	e->gap = 0;
	a->next = s + 1;
	st->won++;
	a->delivered++;
	*seq = s;
	return IBT_ARB_DELIVER;
}

u64 ibt_arb_lag_pct(const struct ibt_arb_rail_stats *s, u32 pct)
{
	u64 want, sum = 0;
	u32 i;

	if (!s->lag_n)
		return 0;
	want = div_u64(s->lag_n * pct + 99, 100);
	for (i = 0; i < IBT_ARB_LAG_BUCKETS; i++) {
		sum += s->lag_hist[i];
		if (sum >= want)
			return i >= 63 ? U64_MAX : 1ULL << i;
	}
	return U64_MAX;
}
