// SPDX-License-Identifier: GPL-2.0
/*
 * Per-publisher sequence tracking (see pubtrack.h).  Pure logic.
 */
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/ibtick.h>

#include "pubtrack.h"

void ibt_pubtrack_init(struct ibt_pubtrack *t)
{
	memset(t, 0, sizeof(*t));
}

/* The entry for @id, a free one, or the least recently used one probed. */
static struct ibt_pub *ibt_pub_slot(struct ibt_pubtrack *t, u32 id, bool *known)
{
	u32 h = hash_32(id, ilog2(IBT_PUBTRACK_SLOTS));
	struct ibt_pub *p, *victim = NULL;
	u32 i;

	for (i = 0; i < IBT_PUBTRACK_PROBE; i++) {
		p = &t->pub[(h + i) & (IBT_PUBTRACK_SLOTS - 1)];
		if (p->used && p->id == id) {
			*known = true;
			return p;
		}
		if (!p->used) {
			*known = false;
			return p;
		}
		if (!victim || p->last_use < victim->last_use)
			victim = p;
	}
	*known = false;
	return victim;
}

struct ibt_pub_verdict ibt_pubtrack_observe(struct ibt_pubtrack *t, u32 id,
					    u64 seq)
{
	struct ibt_pub_verdict v = { 0 };
	struct ibt_pub *p;
	bool known;

	t->clock++;
	p = ibt_pub_slot(t, id, &known);
	if (!known) {
		p->used = true;
		p->id = id;
		p->last_seq = seq;
	} else if (seq > p->last_seq + 1) {
		v.flags = IBTICK_TICK_GAP;
		v.gap_ticks = seq - p->last_seq - 1;
		v.gap = v.gap_ticks > U32_MAX ? U32_MAX : (u32)v.gap_ticks;
		p->last_seq = seq;
	} else if (seq <= p->last_seq) {
		v.flags = IBTICK_TICK_OLD;
	} else {
		p->last_seq = seq;
	}
	p->last_use = t->clock;
	return v;
}
