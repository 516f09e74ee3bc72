// SPDX-License-Identifier: GPL-2.0
/*
 * Credit-based flow control of a connection: the rules are in credit.h.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "credit.h"

static u32 ibt_credit_threshold(u32 nslots)
{
	return max(1U, nslots / 4);
}

void ibt_credit_init(struct ibt_credit *c, u32 nslots, u32 peer_nslots)
{
	c->nslots = nslots;
	c->threshold = ibt_credit_threshold(nslots);
	c->peer_nslots = peer_nslots;
	c->send = peer_nslots;
	c->pending = 0;
	c->granted = nslots;
	c->rcvd = 0;
}

/*
 * Threshold messages in flight: at most nslots / threshold (each carries
 * threshold grants or more); one starving message; one close message; one
 * more for the message that crosses a grant on its way; one watchdog probe
 * (conn_ib.c: the next only after it completed).
 */
u32 ibt_credit_rq_extra(u32 nslots)
{
	return nslots / ibt_credit_threshold(nslots) + 4;
}

bool ibt_credit_take(struct ibt_credit *c)
{
	if (!c->send)
		return false;
	c->send--;
	return true;
}

u32 ibt_credit_grants(struct ibt_credit *c)
{
	u32 g = min(c->pending, IBT_CREDIT_GRANT_MAX);

	c->pending -= g;
	c->granted += g;
	return g;
}

int ibt_credit_received(struct ibt_credit *c, u32 grants, bool data)
{
	if (data) {
		if (c->rcvd == c->granted)
			return -EPROTO;	/* sent without a credit */
		c->rcvd++;
	}
	if (grants > c->peer_nslots - c->send)
		return -EPROTO;	/* more than its ring could have freed */
	c->send += grants;
	return 0;
}

void ibt_credit_freed(struct ibt_credit *c, u32 n)
{
	c->pending += n;
}

bool ibt_credit_update_due(const struct ibt_credit *c)
{
	if (!c->pending)
		return false;
	return c->pending >= c->threshold || !ibt_credit_peer(c);
}
