/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feed attributes on the CLI side: the reply policy, the names the CLI
 * gives attributes (its keywords, for the kernel's refusals), printing a
 * feed as text/JSON or as the batch line that recreates it.
 */
#ifndef IBTICK_FEEDATTR_H
#define IBTICK_FEEDATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/ibtick_netlink.h>

#include "nl.h"

extern struct nla_policy feed_reply_policy[IBTICK_A_FEED_MAX + 1];
extern struct nla_policy fstat_policy[IBTICK_A_FSTAT_MAX + 1];
extern const struct ibt_nl_obj feed_obj;
extern const char *const feed_attr_names[IBTICK_A_FEED_MAX + 1];
extern const char *const fstat_keys[IBTICK_A_FSTAT_MAX + 1];

/*
 * One feed (attributes parsed into @tb) through out.h; -s adds counters
 * (JSON has them always), -d (@details) the ring, poll, access and
 * multicast/QP attributes, in text and JSON.
 */
int feed_print(struct nlattr **tb, bool stats, bool details);
/* "feed add ..." recreating an admin feed; nothing for auto feeds. */
void feed_print_batch(struct nlattr **tb, FILE *f);

#endif
