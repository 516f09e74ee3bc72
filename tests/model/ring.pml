/*
 * ibtick: the receive ring's producer/reader protocol, for spin.
 *
 * The contract is the block comment "The receive ring" in
 * include/uapi/linux/ibtick.h; its labels (A)..(F) are quoted below.  The
 * producer is ibt_ring_begin() + ibt_ring_commit() (kmod/ring.c) called once
 * per tick, then ibt_ring_set_dead() (kmod/feed.c, ibt_feed_kill: the
 * producer is stopped first).  A reader is the user-space loop of
 * user/lib/libibtick.h (ibtick_next / copy / ibtick_done, ibtick_ended, a
 * wait); the kernel's recvmsg path (ibt_ring_peek / ibt_ring_still_valid /
 * ibt_ring_skip_lapped) takes the same steps.
 *
 * Each Promela statement is one atomic step and every interleaving of them
 * is explored.  Promela memory is sequentially consistent; the payload is
 * two words stored and loaded one at a time, so a torn copy is possible if
 * the protocol lets one through.  One weak-memory effect is modelled on top
 * (unless -DSC_ONLY): a reader's load of hdr->producer (C) may return a
 * stale value - anything from the reader's own cursor up to the current
 * index (more than coherence allows: the floor is the last value that
 * reader saw, which is at least its cursor).  Only ibtick_ended()'s load,
 * after it saw DEAD (acquire; set by a release after the last commit),
 * is exact.  See README.md.
 *
 * Indices are 8-bit and start near 255, so the index type itself wraps;
 * every comparison is on a difference of indices, as the code's (s64)
 * casts do.  Tick i's payload is i in both words.
 *
 * Defines (spin -DNAME=value):
 *   NSLOTS     ring size, a power of two >= 2            (default 2)
 *   NREADERS   1 or 2 readers                           (default 1)
 *   TICKS      ticks produced (<= 16)                   (default 7)
 *   START      the first index, 0..255                  (default 253)
 *   SC_ONLY    producer loads are never stale
 *   LIVENESS   add the claim "every reader reaches its end" (check with
 *              pan -a -f, under SC_ONLY: a load may be stale forever)
 * Deliberately broken variants (spin must find an error):
 *   BROKEN_NO_RECHECK  the reader accepts its copy without (F)
 *   BROKEN_LAP         resume at producer - nslots, without max(i + 1, ..)
 *   BROKEN_NO_BUSY     the producer writes no busy mark before the payload
 *   BROKEN_ENDED       "caught up, then DEAD": producer loaded before DEAD
 *   BROKEN_DEAD_EARLY  DEAD set before the last tick is committed
 *   BROKEN_WAIT        the reader's wait does not wake up on DEAD
 */

#ifndef NSLOTS
#define NSLOTS		2
#endif
#ifndef NREADERS
#define NREADERS	1
#endif
#ifndef TICKS
#define TICKS		7
#endif
#ifndef START
#define START		253
#endif

#define MASK		(NSLOTS - 1)
#define W(x)		((x) & 255)		/* the index type: u8 */
#define END		W(START + TICKS)	/* producer index after the last tick */
#define DIFF(a, b)	W((a) - (b))		/* a - b, as u8 */
#define SPOS(d)		((d) != 0 && (d) < 128)	/* (s8)d > 0 */
#define SNEG(d)		((d) >= 128)		/* (s8)d < 0 */
#define TIX(i)		DIFF(i, START)		/* index -> tally entry */

/* the ring header and slots, shared by everyone */
byte producer;			/* hdr->producer */
bool dead;			/* hdr->flags & IBTICK_RING_DEAD */
byte seq[NSLOTS];		/* slot->seq */
byte pay0[NSLOTS];		/* the payload, two words */
byte pay1[NSLOTS];

#ifdef LIVENESS
byte nended;			/* readers that reached their end */
ltl terminates { <> (nended == NREADERS) }
#endif

/* ------------------------------------------------------------------ */

proctype Producer()
{
	byte i = START;
	byte s;

	do
	:: i != END ->
		/* ibt_ring_begin(): busy mark, i - 1 never maps to slot i */
		atomic {
			s = i & MASK;
#ifndef BROKEN_NO_BUSY
			seq[s] = W(i - 1)
#endif
		}
		/* (A) smp_wmb(): program order, under SC */
		pay0[s] = i;		/* descriptor, payload: not atomic */
		pay1[s] = i;
		/* ibt_ring_commit() */
#ifdef BROKEN_DEAD_EARLY
		if
		:: W(i + 1) == END -> dead = true
		:: else -> skip
		fi;
#endif
		seq[s] = i;		/* (B) STORE.rel slot->seq = i */
		atomic {
			producer = W(i + 1);	/* (E) STORE.rel hdr->producer */
			i = W(i + 1)
		}
	:: else -> break
	od;
	/* ibt_feed_kill(): the producer has stopped; ibt_ring_set_dead() */
#ifndef BROKEN_DEAD_EARLY
	dead = true
#endif
}

/* ------------------------------------------------------------------ */

/*
 * (C) LOAD.acq hdr->producer, into p.  Without SC_ONLY it may return any
 * value from the reader's cursor up to the current one (a reader's cursor
 * never passes the producer index it saw last).
 */
inline load_producer(p)
{
#ifdef SC_ONLY
	p = producer
#else
	atomic {
		p = producer;
		do
		:: p != cur -> p = W(p - 1)
		:: break
		od
	}
#endif
}

/*
 * Count indices [cur, to) lost, each once, and move the cursor to `to'
 * (r->lost += to - cur; r->cursor = to).  Local only: used in a d_step.
 */
inline lose_to(to)
{
	assert(!SNEG(DIFF(to, cur)));		/* (b) the cursor never moves back */
	dl = dl + DIFF(to, cur);		/* r->lost += to - cur */
	do
	:: cur != to ->
		k = TIX(cur);
		assert(k < TICKS);		/* only produced indices */
		assert((tally & (1 << k)) == 0);	/* (c) counted at most once */
		tally = tally | (1 << k);
		cur = W(cur + 1)
	:: else -> break
	od;
	k = 0
}

/* ibtick__skip_lapped() / ibt_ring_skip_lapped(): the lap rule */
inline skip_lapped()
{
	load_producer(prod);				/* (C) */
	d_step {
		nxt = W(prod - NSLOTS);
#ifndef BROKEN_LAP
		/* max(i + 1, producer - nslots) */
		if
		:: SNEG(DIFF(nxt, W(cur + 1))) -> nxt = W(cur + 1)
		:: else -> skip
		fi;
#endif
		lose_to(nxt);
		nxt = 0; prod = 0; sq = 0; v0 = 0; v1 = 0
	}
}

proctype Reader(byte id)
{
	byte cur, cur0;			/* r->cursor; where it started */
	byte prod, nxt, s, sq, v0, v1, k;
	/*
	 * delivered + lost (r->delivered + r->lost: only the sum matters, and
	 * keeping one number keeps the state space small); and one bit per
	 * index, set when it is delivered or counted lost.
	 */
	byte dl;
	unsigned tally : TICKS;

	/* bind: the cursor starts at the producer index, at any moment */
	atomic { cur = producer; cur0 = cur };

next:	/* ibtick_next(): loops until a slot holds tick cur, or caught up */
	load_producer(prod);				/* (C) */
	if
	:: !SPOS(DIFF(prod, cur)) -> goto idle		/* caught up */
	:: else -> skip
	fi;
	if
	:: DIFF(prod, cur) > NSLOTS ->		/* lapped while away */
		d_step { nxt = W(prod - NSLOTS); lose_to(nxt); nxt = 0 }
	:: else -> skip
	fi;
	s = cur & MASK;
	sq = seq[s];					/* (D) LOAD.acq slot->seq */
	if
	:: sq != cur -> skip_lapped(); goto next
	:: else -> skip
	fi;

	/* the caller reads the tick in the ring (handle()), word by word */
	v0 = pay0[s];
	v1 = pay1[s];

	/* ibtick_done() */
#ifndef BROKEN_NO_RECHECK
	sq = seq[s];					/* (F) smp_rmb(); LOAD slot->seq */
	if
	:: sq != cur -> skip_lapped(); goto next	/* overwritten: discarded */
	:: else -> skip
	fi;
#endif
	/* accepted */
	d_step {
		assert(v0 == cur && v1 == cur);		/* (a) intact, and tick cur */
		k = TIX(cur);
		assert(k < TICKS);
		/*
		 * (b) strictly increasing: nothing after cur is accounted yet
		 * (with the cursor never moving back, asserted in lose_to)
		 */
		assert((tally >> k) == 0);
		tally = tally | (1 << k);		/* (c) at most once: above */
		dl++;					/* r->delivered++ */
		cur = W(cur + 1);
		k = 0; v0 = 0; v1 = 0; sq = 0; s = 0
	};
	goto next;

idle:	/* ibtick_next() returned 0 */
#ifdef BROKEN_ENDED
	/* "next() returned 0, then dead()": the producer was loaded first */
	if
	:: dead -> goto ended
	:: else -> skip
	fi;
#else
	/* ibtick_ended(): DEAD (acquire), then the producer index */
	if
	:: dead ->
		/*
		 * ibtick_backlog(): (C).  Exact: the acquire of DEAD saw the
		 * release that followed the last commit.
		 */
		prod = producer;
		if
		:: !SPOS(DIFF(prod, cur)) -> goto ended
		:: else -> goto next
		fi
	:: else -> skip
	fi;
#endif
	/*
	 * ibtick_wait() / ibt_wait(): sleep until the producer moves or the
	 * feed dies (a spinning reader only revisits these same states).
	 * A reader blocked here for good is an invalid end state.
	 */
#ifdef BROKEN_WAIT
	(producer != cur);
#else
	(producer != cur || dead);
#endif
	goto next;

ended:	/* (c) every index since bind delivered or lost exactly once */
	skip;
	d_step {
		assert(dl == DIFF(END, cur0));	/* delivered + lost == produced */
		k = 0;
		do
		:: k < TICKS ->
			assert(((tally >> k) & 1) ==
			       (DIFF(W(START + k), cur0) < DIFF(END, cur0)));
			k++
		:: else -> break
		od;
#ifdef LIVENESS
		nended++;
#endif
		k = 0
	}
}

init
{
	byte i;

	atomic {
		/* ibt_ring_init(): each slot marked one lap behind @start */
		i = 0;
		do
		:: i < NSLOTS ->
			seq[W(START + i) & MASK] = W(START + i - NSLOTS);
			pay0[W(START + i) & MASK] = W(START + i - NSLOTS);
			pay1[W(START + i) & MASK] = W(START + i - NSLOTS);
			i++
		:: else -> break
		od;
		producer = START;
		dead = false;
		i = 0;
		run Producer();
		run Reader(0);
#if NREADERS > 1
		run Reader(1);
#endif
	}
}
