/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-publisher sequence tracking for a feed: gaps, duplicates, reordering.
 *
 * Pure logic.  Each feed keeps a small open-addressed table of the
 * publishers it hears; each tick's (publisher id, sequence) is checked
 * against the last sequence seen from that publisher.  Cost per tick is O(1)
 * (bounded probing), independent of the number of readers.
 *
 * Context: the feed's receive poll, one at a time (no locking here).
 */
#ifndef _IBTICK_PUBTRACK_H
#define _IBTICK_PUBTRACK_H

#include <linux/types.h>
#include <linux/ibtick.h>

#define IBT_PUBTRACK_SLOTS	64	/* power of two */
#define IBT_PUBTRACK_PROBE	8	/* entries probed before evicting */

struct ibt_pub {
	u64	last_seq;	/* highest sequence seen */
	u64	last_use;	/* pubtrack clock at the last tick */
	u32	id;
	bool	used;
};

struct ibt_pubtrack {
	struct ibt_pub	pub[IBT_PUBTRACK_SLOTS];
	u64		clock;		/* ticks observed */
};

struct ibt_pub_verdict {
	u16	flags;		/* IBTICK_TICK_GAP / IBTICK_TICK_OLD */
	u32	gap;		/* with GAP: ticks missing (capped at U32_MAX) */
	u64	gap_ticks;	/* with GAP: the uncapped count */
};

void ibt_pubtrack_init(struct ibt_pubtrack *t);

/*
 * Record tick @seq of publisher @id.  The first tick from a publisher (or
 * from one forgotten since) sets no flag: a reader that joins mid-stream has
 * lost nothing.  A sequence above last + 1 is a GAP of the difference; one
 * at or below the last is OLD (duplicate or reordered) and does not move it.
 */
struct ibt_pub_verdict ibt_pubtrack_observe(struct ibt_pubtrack *t, u32 id,
					    u64 seq);

#endif /* _IBTICK_PUBTRACK_H */
