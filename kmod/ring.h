/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The feed receive ring: geometry, the producer, and the reader protocol.
 *
 * The contract (layout, barriers (A)..(F), the lap rule) is written in
 * <linux/ibtick.h>; the functions here implement both of its sides for the
 * kernel.  Pure logic: no rdma/ or net/ includes, so KUnit runs it on UML.
 *
 * Concurrency: exactly one producer at a time per ring (the feed's receive
 * poll, serialised by the CQ's poll context); any number of readers, each
 * with its own cursor, none of which the producer ever waits for.
 */
#ifndef _IBTICK_RING_H
#define _IBTICK_RING_H

#include <linux/types.h>
#include <asm/barrier.h>
#include <linux/ibtick.h>

struct ibt_ring {
	struct ibtick_ring_hdr	*hdr;	/* start of the ring memory */
	u8			*slots;	/* hdr + slots_off */
	u32			nslots;
	u32			mask;	/* nslots - 1 */
	u32			slot_size;
	u32			payload_max;	/* slot_size - descriptor */
	u64			size;	/* bytes: header + slots */
};

/*
 * Check a requested geometry and compute the ring's size in bytes.
 * Returns 0, or -EINVAL when a count is not a power of two, outside
 * IBTICK_SLOTS_* / IBTICK_SLOT_SIZE_*, or the ring would exceed
 * IBTICK_RING_BYTES_MAX.  All arithmetic is u64.
 */
int ibt_ring_geometry(u32 nslots, u32 slot_size, u64 *size);

/*
 * Lay a ring out in @mem (zeroed, at least ibt_ring_geometry()'s size),
 * with the producer index starting at @start (0 except in tests).
 */
void ibt_ring_init(struct ibt_ring *r, void *mem, u32 nslots, u32 slot_size,
		   u64 start);

static inline struct ibtick_slot *ibt_ring_slot(const struct ibt_ring *r,
						u64 idx)
{
	return (struct ibtick_slot *)(r->slots +
				      (size_t)(idx & r->mask) * r->slot_size);
}

/*
 * The index the next tick gets.  The producer reads its own store; others
 * (bind, IBTICK_RING_CURSOR) get a value that may be old by the time they
 * use it, which the lap rule tolerates.
 */
static inline u64 ibt_ring_producer(const struct ibt_ring *r)
{
	return READ_ONCE(r->hdr->producer);
}

/*
 * Producer: claim the slot of tick @idx (== ibt_ring_producer()), marking it
 * busy (A); fill the descriptor and payload, then ibt_ring_commit().
 */
struct ibtick_slot *ibt_ring_begin(struct ibt_ring *r, u64 idx);
/* Producer: publish tick @idx, (B) then (E). */
void ibt_ring_commit(struct ibt_ring *r, struct ibtick_slot *s, u64 idx);

/*
 * Reader: the slot of the next tick at or after *@cursor, or NULL when the
 * reader has caught up.  Ticks that were overwritten are skipped: *@cursor
 * moves past them and *@lost grows by their number.  A returned slot held
 * tick *@cursor when looked at; copy it, then check ibt_ring_still_valid().
 */
const struct ibtick_slot *ibt_ring_peek(const struct ibt_ring *r, u64 *cursor,
					u64 *lost);

/* Reader: after copying slot @s of tick @idx, true if the copy is intact (F). */
bool ibt_ring_still_valid(const struct ibt_ring *r,
			  const struct ibtick_slot *s, u64 idx);

/*
 * Reader: tick *@cursor was overwritten while being copied: count it and any
 * others the producer has since overwritten as lost, and move on.
 */
void ibt_ring_skip_lapped(const struct ibt_ring *r, u64 *cursor, u64 *lost);

/*
 * Producer side, after the last tick: flag the ring DEAD for readers (who
 * still read what is there; the release orders it after every commit).
 */
void ibt_ring_set_dead(struct ibt_ring *r);

/* Reader: the ring's flags (IBTICK_RING_*). */
static inline u32 ibt_ring_flags(const struct ibt_ring *r)
{
	return smp_load_acquire(&r->hdr->flags);	/* pairs with set_dead */
}

/* Ticks available to a reader at @cursor (capped at nslots). */
u64 ibt_ring_backlog(const struct ibt_ring *r, u64 cursor);

#endif /* _IBTICK_RING_H */
