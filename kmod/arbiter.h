/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A/B line arbitration: one stream of sequence numbers from two or more
 * rails, the first copy of each number wins.
 *
 * Pure logic (KUnit runs it on UML); the glue that feeds it ticks from the
 * rails' receive paths and writes the verdicts into the arbitrated feed's
 * ring is arb_feed.c.
 *
 * The rules (ibtick(7), "Arbitrated feeds"):
 *  - A number above the highest delivered is delivered at once, even when
 *    numbers between are missing: nothing waits in a buffer.  The missing
 *    ones become holes.
 *  - A hole filled by any rail before its window ends is delivered then,
 *    late (IBT_ARB_LATE): out of order, but once.
 *  - A number below the session's first, arriving before that first
 *    number's window ends (window_ticks: no more than window_ticks below
 *    the highest number), is delivered late too: the session starts
 *    there, and the numbers between are holes with the first's window.
 *    (At the start the rails race: A's 2 may come before B's 1 when A
 *    lost 1.)  After a jump the numbers before it are gaps already.
 *  - A hole still empty when its window ends (window_ns after it opened, or
 *    window_ticks numbers later) is a gap: every rail missed it.  Runs of
 *    consecutive gap numbers are reported together through @gap_fn.  A copy
 *    that arrives after that is dropped and counted late.
 *  - A second copy of a delivered number is dropped and counted as the
 *    rail's duplicate, with its lag behind the first copy.
 *  - A number a rail sends below its own previous one, and at or below
 *    reset_at (or more than IBT_ARB_SPAN below it), restarts that rail's
 *    sequence.  The first rail to restart starts a new session: every open
 *    hole of the old one becomes a gap, and the tick is flagged
 *    IBT_ARB_RESET.  Ticks a rail sends from a session older than the
 *    arbiter's are stale and dropped.
 *  - With width 4, a number wraps past 2^32 to 0 and continues (compared
 *    with serial arithmetic) when the rail's last number was within
 *    IBT_ARB_SPAN of 2^32; otherwise one at or below reset_at restarts.
 *  - The numbers come from the network.  A rail's jump of more than
 *    IBT_ARB_SPAN, forward or back (but to reset_at or below), is taken
 *    only once the same rail confirms it with the next number: one stray
 *    or forged datagram cannot move the arbiter or strand the other rails
 *    in an old session.  The unconfirmed tick is dropped and counted as
 *    bad_seq, as is any number within 2 * IBT_ARB_SPAN of 2^64.
 *
 * Numbers are tracked in a window of IBT_ARB_SPAN behind the highest one.
 * Cost per tick: O(1) amortised, each number finalised once; a single
 * tick may finalise up to IBT_ARB_SPAN numbers (a jump) or open as many
 * holes.
 *
 * Context: the caller serialises every call on one arbiter (arb_feed.c
 * holds its spinlock).
 */
#ifndef _IBTICK_ARBITER_H
#define _IBTICK_ARBITER_H

#include <linux/types.h>

#define IBT_ARB_RAILS_MAX	4
#define IBT_ARB_SPAN		4096	/* numbers tracked; power of two */
#define IBT_ARB_LAG_BUCKETS	64	/* log2 of the lag in ns */

/* Where the sequence number is: width 0 is the ibtick publisher sequence. */
struct ibt_arb_cfg {
	u16	off;		/* bytes into the payload */
	u8	width;		/* 0, 4 or 8 */
	bool	big_endian;
	u64	window_ns;	/* 0: no time limit */
	u32	window_ticks;	/* 0: no count limit; <= IBT_ARB_SPAN */
	u64	reset_at;	/* the venue's first number (default 1) */
};

/* Counters of one rail; monotonic. */
struct ibt_arb_rail_stats {
	u64	won;		/* first copies delivered */
	u64	dup;		/* second copies dropped */
	u64	only;		/* numbers no other rail had within the window */
	u64	late;		/* copies after the number was declared a gap */
	u64	stale;		/* copies of an older session */
	u64	short_payload;	/* too short for the sequence field */
	u64	bad_seq;	/* an unconfirmed jump, or a number near 2^64 */
	u64	resets;		/* the rail restarted its sequence */
	u64	lag_n;
	u64	lag_sum_ns;
	u64	lag_max_ns;
	u64	lag_hist[IBT_ARB_LAG_BUCKETS];	/* [i]: lag < 2^i ns */
};

/* A rail's own view of its sequence. */
struct ibt_arb_rail {
	u64	last;		/* highest number (unwrapped) */
	u64	first;		/* its first number in its session */
	u64	epoch;		/* its session */
	u64	jump;		/* an unconfirmed jump's number, + 1; 0: none */
	bool	started;
};

/* One tracked number. */
struct ibt_arb_ent {
	u64	t;		/* first copy, or when the hole opened: the window */
	u64	t_first;	/* when its first copy came: the lag */
	u8	mask;		/* rails that delivered it */
	u8	gap;		/* declared a gap */
};

struct ibt_arb;
/* Numbers @first .. @first + @count - 1 are a gap (every rail missed them). */
typedef void (*ibt_arb_gap_fn)(struct ibt_arb *a, u64 first, u64 count,
			       void *ctx);

struct ibt_arb {
	struct ibt_arb_cfg	cfg;
	u32			nrails;
	bool			started;
	u64			epoch;	/* the session being delivered */
	u64			base;	/* the session's (or last jump's) first */
	bool			opening; /* base is the session's first, not a jump's */
	u64			next;	/* one past the highest delivered */
	u64			scan;	/* numbers below are final */
	u64			holes;	/* numbers in [scan, next) nobody sent */
	u64			delivered;
	u64			gaps;		/* runs */
	u64			gap_numbers;	/* numbers in them */
	u64			resets;
	ibt_arb_gap_fn		gap_fn;
	void			*ctx;
	struct ibt_arb_ent	*e;	/* IBT_ARB_SPAN, by number & (SPAN - 1) */
	struct ibt_arb_rail	rail[IBT_ARB_RAILS_MAX];
	struct ibt_arb_rail_stats st[IBT_ARB_RAILS_MAX];
};

/* What to do with a tick. */
enum ibt_arb_verdict {
	IBT_ARB_DELIVER,	/* write it, number in *seq, flags in *flags */
	IBT_ARB_DUP,		/* another copy was delivered */
	IBT_ARB_DROP_LATE,	/* its number was declared a gap */
	IBT_ARB_DROP_STALE,	/* an older session */
	IBT_ARB_DROP_BAD,	/* an unconfirmed jump, or a number near 2^64 */
};

/* *flags of a delivered tick */
#define IBT_ARB_LATE	(1U << 0)	/* fills a hole: below a delivered number */
#define IBT_ARB_RESET	(1U << 1)	/* the first of a new session */

/*
 * Check a configuration: -EINVAL unless width is 0, 4 or 8, the field ends
 * within 65535 bytes, window_ticks <= IBT_ARB_SPAN, and a window is set.
 */
int ibt_arb_cfg_check(const struct ibt_arb_cfg *c);

/* Start an arbiter; @e is zeroed memory for IBT_ARB_SPAN entries. */
void ibt_arb_init(struct ibt_arb *a, const struct ibt_arb_cfg *c, u32 nrails,
		  struct ibt_arb_ent *e, ibt_arb_gap_fn gap_fn, void *ctx);

/* Rail @r was (re)created: it starts afresh in the current session. */
void ibt_arb_rail_restart(struct ibt_arb *a, u32 r);

/*
 * The sequence field of a payload; -EMSGSIZE (counted as the rail's
 * short_payload by ibt_arb_arrive's caller) when the payload ends first.
 * Width 0 takes @pub_seq.
 */
int ibt_arb_field(const struct ibt_arb_cfg *c, const void *payload, u32 len,
		  u64 pub_seq, u64 *raw);

/*
 * Rail @r delivered number @raw at @now (ns, any clock that the caller
 * uses for every call).  Declares expired holes first (@gap_fn), then
 * decides.  For IBT_ARB_DELIVER, *@seq is the number (unwrapped) and
 * *@flags says IBT_ARB_LATE / IBT_ARB_RESET.
 */
enum ibt_arb_verdict ibt_arb_arrive(struct ibt_arb *a, u32 r, u64 raw,
				    u64 now, u64 *seq, u32 *flags);

/*
 * Declare the holes whose window is over at @now.  Returns a time after
 * @now to look again (the window's end of the oldest number not final,
 * which is no later than the oldest hole's), or 0 when no hole is open or
 * only window_ticks can end it.
 */
u64 ibt_arb_expire(struct ibt_arb *a, u64 now);

/* Declare every open hole now (the arbitrated feed ends). */
void ibt_arb_flush(struct ibt_arb *a);

/* The lag below which @pct percent of rail @r's duplicates came (ns). */
u64 ibt_arb_lag_pct(const struct ibt_arb_rail_stats *s, u32 pct);

#endif /* _IBTICK_ARBITER_H */
