/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Credit-based flow control of a connection (SOCK_SEQPACKET over RC).
 *
 * A side grants its peer one credit per free slot of its receive ring; a
 * data message costs the sender one credit, so it always lands in a free
 * slot and the ring never overflows.  When the reader frees slots, the
 * side owes grants ("pending"): it returns them piggybacked on its next
 * data message, or in a credit-only message when enough are owed (the
 * threshold) or when the peer has none left at all (starving).
 *
 * Credit-only (and close) messages cost no credit: the receive queue holds
 * ibt_credit_rq_extra() entries beyond the ring's slots for them.  That
 * bound holds because a credit-only message is sent only while it carries
 * grants: a starving one at most once per time the peer runs dry (the
 * peer must spend the grant before the next), a threshold one with at
 * least @threshold grants, and no more than @nslots grants are ever in
 * flight.  Receive buffers are reposted as soon as a message is copied
 * into the ring, so only messages not yet seen by the receive completion
 * hold receive queue entries.  Slots freed in a batch (a mapped reader
 * moving its cursor) only make fewer, larger grants: the bound holds.
 *
 * Pure logic, no locking: the connection serialises every call with its
 * lock (conn.h).  KUnit: tests/kunit/credit_test.c.
 */
#ifndef _IBTICK_CREDIT_H
#define _IBTICK_CREDIT_H

#include <linux/types.h>

/* The largest number of grants one message carries (the imm field). */
#define IBT_CREDIT_GRANT_MAX	0xffffffU

struct ibt_credit {
	u32	nslots;		/* our ring: the credits first granted */
	u32	threshold;	/* pending grants that warrant a message */
	u32	peer_nslots;	/* the peer's ring: most credits we hold */
	u32	send;		/* credits we hold */
	u32	pending;	/* slots freed here, not yet granted */
	u64	granted;	/* credits granted, the first included */
	u64	rcvd;		/* data messages received */
};

/*
 * Start a connection: our ring has @nslots slots (1..IBT_CREDIT_GRANT_MAX),
 * the peer's @peer_nslots, each side's first grant.
 */
void ibt_credit_init(struct ibt_credit *c, u32 nslots, u32 peer_nslots);

/* Receive queue entries beyond @nslots that credit-only messages need. */
u32 ibt_credit_rq_extra(u32 nslots);

/* Sender: take a credit for a data message; false when there is none. */
bool ibt_credit_take(struct ibt_credit *c);

/*
 * Sender: the grants to carry in the message about to be sent (all that
 * are pending, up to IBT_CREDIT_GRANT_MAX); counts them as granted.  Call
 * it only for a message that will be posted.
 */
u32 ibt_credit_grants(struct ibt_credit *c);

/*
 * Receiver: a message from the peer carried @grants; @data says whether it
 * was a data message (which spent a credit of the peer's).  Returns 0, or
 * -EPROTO when the peer broke the protocol (more grants than its ring
 * has, or a data message it had no credit for).
 */
int ibt_credit_received(struct ibt_credit *c, u32 grants, bool data);

/*
 * Receiver: the reader freed @n slots of the ring (recv() one at a time, a
 * mapped reader as many as its cursor moved; never more than it received).
 */
void ibt_credit_freed(struct ibt_credit *c, u32 n);

/* The credits the peer holds, as far as we know (in-flight ones too). */
static inline u32 ibt_credit_peer(const struct ibt_credit *c)
{
	return (u32)(c->granted - c->rcvd);
}

/* Whether the pending grants warrant a credit-only message now. */
bool ibt_credit_update_due(const struct ibt_credit *c);

#endif /* _IBTICK_CREDIT_H */
