// SPDX-License-Identifier: GPL-2.0
/*
 * The feed receive ring (see ring.h and <linux/ibtick.h>).  Pure logic.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <asm/barrier.h>

#include "ring.h"

int ibt_ring_geometry(u32 nslots, u32 slot_size, u64 *size)
{
	u64 bytes;

	if (nslots < IBTICK_SLOTS_MIN || nslots > IBTICK_SLOTS_MAX ||
	    !is_power_of_2(nslots))
		return -EINVAL;
	if (slot_size < IBTICK_SLOT_SIZE_MIN ||
	    slot_size > IBTICK_SLOT_SIZE_MAX || !is_power_of_2(slot_size))
		return -EINVAL;
	bytes = (u64)nslots * slot_size + sizeof(struct ibtick_ring_hdr);
	if (bytes > IBTICK_RING_BYTES_MAX)
		return -EINVAL;
	*size = bytes;
	return 0;
}

void ibt_ring_init(struct ibt_ring *r, void *mem, u32 nslots, u32 slot_size,
		   u64 start)
{
	struct ibtick_ring_hdr *h = mem;
	u32 i;

	r->hdr = h;
	r->slots = (u8 *)mem + sizeof(*h);
	r->nslots = nslots;
	r->mask = nslots - 1;
	r->slot_size = slot_size;
	r->payload_max = slot_size - sizeof(struct ibtick_slot);
	r->size = (u64)nslots * slot_size + sizeof(*h);

	h->magic = IBTICK_RING_MAGIC;
	h->version = IBTICK_RING_VERSION;
	h->nslots = nslots;
	h->slot_size = slot_size;
	h->slots_off = sizeof(*h);
	h->producer = start;
	/*
	 * No slot may look like it holds a tick at or after @start before it
	 * is written: mark each with an index one lap behind.
	 */
	for (i = 0; i < nslots; i++)
		ibt_ring_slot(r, start + i)->seq = start + i - nslots;
}

struct ibtick_slot *ibt_ring_begin(struct ibt_ring *r, u64 idx)
{
	struct ibtick_slot *s = ibt_ring_slot(r, idx);

	/* busy mark: idx - 1 never maps to this slot (nslots >= 2) */
	WRITE_ONCE(s->seq, idx - 1);
	smp_wmb();			/* (A): busy mark before contents, matches (F) */
	return s;
}

void ibt_ring_commit(struct ibt_ring *r, struct ibtick_slot *s, u64 idx)
{
	smp_store_release(&s->seq, idx);		/* (B), matches (D) */
	smp_store_release(&r->hdr->producer, idx + 1);	/* (E), matches (C) */
}

/* Readers fall behind by at most nslots ticks; beyond, the rest is lost. */
static void ibt_ring_clamp(const struct ibt_ring *r, u64 prod, u64 *cursor,
			   u64 *lost)
{
	u64 behind = prod - *cursor;

	if ((s64)behind > (s64)r->nslots) {
		*lost += behind - r->nslots;
		*cursor = prod - r->nslots;
	}
}

const struct ibtick_slot *ibt_ring_peek(const struct ibt_ring *r, u64 *cursor,
					u64 *lost)
{
	const struct ibtick_slot *s;
	u64 prod;

	for (;;) {
		prod = smp_load_acquire(&r->hdr->producer);	/* (C), matches (E) */
		if ((s64)(prod - *cursor) <= 0)
			return NULL;
		ibt_ring_clamp(r, prod, cursor, lost);
		s = ibt_ring_slot(r, *cursor);
		if (smp_load_acquire(&s->seq) == *cursor)	/* (D), matches (B) */
			return s;
		/* overwritten since we loaded prod: it is being reused */
		ibt_ring_skip_lapped(r, cursor, lost);
	}
}

bool ibt_ring_still_valid(const struct ibt_ring *r,
			  const struct ibtick_slot *s, u64 idx)
{
	smp_rmb();			/* (F): contents before seq, matches (A) */
	return READ_ONCE(s->seq) == idx;
}

void ibt_ring_skip_lapped(const struct ibt_ring *r, u64 *cursor, u64 *lost)
{
	u64 prod = smp_load_acquire(&r->hdr->producer);	/* (C), matches (E) */
	/* the oldest index that may still be intact (peek checks it again) */
	u64 next = prod - r->nslots;

	if ((s64)(next - (*cursor + 1)) < 0)
		next = *cursor + 1;
	*lost += next - *cursor;
	*cursor = next;
}

void ibt_ring_set_dead(struct ibt_ring *r)
{
	/* after every commit; pairs with ibt_ring_flags() and user readers */
	smp_store_release(&r->hdr->flags, r->hdr->flags | IBTICK_RING_DEAD);
}

u64 ibt_ring_backlog(const struct ibt_ring *r, u64 cursor)
{
	/* (C), matches (E) */
	u64 behind = smp_load_acquire(&r->hdr->producer) - cursor;

	if ((s64)behind <= 0)
		return 0;
	return min_t(u64, behind, r->nslots);
}
