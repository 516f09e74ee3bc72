/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arbitrated feeds on the CLI side: the words of "feed add NAME arbitrate",
 * the IBTICK_A_FEED_ARB nest they become, and printing one back.
 *
 *   rail GROUP PORT NETDEV                      (2 to 4 times)
 *   seq-field { publisher | off N width { 4 | 8 } [ le | be ] }
 *   window-us N   window-ticks N   reset-at N
 */
#ifndef IBTICK_ARBATTR_H
#define IBTICK_ARBATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "ibtick.h"

/* more than the kernel takes, so that the kernel says how many it takes */
#define ARB_RAILS_CLI_MAX	8

struct arb_rail {
	uint32_t	group;		/* network order */
	uint16_t	port;
	uint32_t	ifindex;
};

struct arb_req {
	unsigned int	nrails;
	struct arb_rail	rail[ARB_RAILS_CLI_MAX];
	bool		have_field, have_order, have_window_us;
	bool		have_window_ticks, have_reset_at;
	uint16_t	off;
	uint8_t		width;
	bool		big_endian;
	uint32_t	window_us, window_ticks;
	uint64_t	reset_at;
};

/*
 * Keyword @kw (taken from @c) of an arbitrated feed, with its values:
 * 1 consumed, 0 not one of ours, -1 wrong (said on stderr).
 */
int arb_parse_kw(struct cli *c, const char *kw, struct arb_req *r);
/* The IBTICK_A_FEED_ARB nest of @r. */
void arb_put(struct nl_msg *msg, const struct arb_req *r);
/* IBTICK_A_FEED_ARB of a reply through out.h; -s adds the rail counters. */
void arb_print(struct nlattr *nest, bool stats);
/*
 * The counters of IBTICK_A_FEED_ARB for "ibtick stats": @fn(NULL, key, v)
 * for the feed's (arb_delivered, ...), @fn("A", key, v) for each rail's
 * that only grow (its lag percentiles are not counters).
 */
typedef void (*arb_ctr_fn)(const char *rail, const char *key, uint64_t v,
			   void *arg);
void arb_counters(struct nlattr *nest, arb_ctr_fn fn, void *arg);
/* The " arbitrate rail ..." words that recreate it (feed save). */
void arb_print_batch(struct nlattr *nest, FILE *f);

#endif
