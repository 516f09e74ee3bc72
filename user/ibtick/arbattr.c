// SPDX-License-Identifier: GPL-2.0
/*
 * Arbitrated feeds on the CLI side (see arbattr.h): the words of
 * "feed add NAME arbitrate ...", the IBTICK_A_FEED_ARB nest they make,
 * and printing it back (show, JSON, save).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "arbattr.h"
#include "out.h"

static struct nla_policy arb_policy[IBTICK_A_ARB_MAX + 1] = {
	[IBTICK_A_ARB_RAIL]		= { .type = NLA_NESTED },
	[IBTICK_A_ARB_SEQ_OFF]		= { .type = NLA_U16 },
	[IBTICK_A_ARB_SEQ_WIDTH]	= { .type = NLA_U8 },
	[IBTICK_A_ARB_SEQ_BE]		= { .type = NLA_U8 },
	[IBTICK_A_ARB_WINDOW_US]	= { .type = NLA_U32 },
	[IBTICK_A_ARB_WINDOW_TICKS]	= { .type = NLA_U32 },
	[IBTICK_A_ARB_RESET_AT]		= { .type = NLA_U64 },
	[IBTICK_A_ARB_DELIVERED]	= { .type = NLA_U64 },
	[IBTICK_A_ARB_GAPS]		= { .type = NLA_U64 },
	[IBTICK_A_ARB_GAP_NUMBERS]	= { .type = NLA_U64 },
	[IBTICK_A_ARB_RESETS]		= { .type = NLA_U64 },
	[IBTICK_A_ARB_HOLES]		= { .type = NLA_U64 },
};

static struct nla_policy rail_policy[IBTICK_A_RAIL_MAX + 1] = {
	[IBTICK_A_RAIL_GROUP]		= { .type = NLA_U32 },
	[IBTICK_A_RAIL_PORT]		= { .type = NLA_U16 },
	[IBTICK_A_RAIL_IFINDEX]		= { .type = NLA_U32 },
	[IBTICK_A_RAIL_INDEX]		= { .type = NLA_U32 },
	[IBTICK_A_RAIL_FEED_ID]		= { .type = NLA_U32 },
	[IBTICK_A_RAIL_UP]		= { .type = NLA_U8 },
	[IBTICK_A_RAIL_NETDEV_NAME]	= { .type = NLA_STRING },
};

/* The rail counters, in IBTICK_A_RAIL_* order, with their keys. */
static const struct {
	int		attr;
	const char	*key;
} rail_counters[] = {
	{ IBTICK_A_RAIL_RX,		"rx" },
	{ IBTICK_A_RAIL_WON,		"won" },
	{ IBTICK_A_RAIL_DUP,		"dup" },
	{ IBTICK_A_RAIL_ONLY,		"only" },
	{ IBTICK_A_RAIL_LATE,		"late" },
	{ IBTICK_A_RAIL_STALE,		"stale" },
	{ IBTICK_A_RAIL_SHORT,		"short" },
	{ IBTICK_A_RAIL_BAD_SEQ,	"bad_seq" },
	{ IBTICK_A_RAIL_RESETS,		"resets" },
	{ IBTICK_A_RAIL_LAG_N,		"lag_n" },
	{ IBTICK_A_RAIL_LAG_MEAN_NS,	"lag_mean_ns" },
	{ IBTICK_A_RAIL_LAG_P50_NS,	"lag_p50_ns" },
	{ IBTICK_A_RAIL_LAG_P99_NS,	"lag_p99_ns" },
	{ IBTICK_A_RAIL_LAG_MAX_NS,	"lag_max_ns" },
	{ IBTICK_A_RAIL_DOWNS,		"downs" },
	{ IBTICK_A_RAIL_DOWN_NS,	"down_ns" },
};

static __attribute__((constructor)) void rail_policy_init(void)
{
	size_t i;

	for (i = 0; i < sizeof(rail_counters) / sizeof(rail_counters[0]); i++)
		rail_policy[rail_counters[i].attr].type = NLA_U64;
}

static uint64_t get_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static int parse_group(const char *s, uint32_t *group)
{
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) != 1) {
		fprintf(stderr, "ibtick: group \"%s\" is not an IPv4 address\n", s);
		return -1;
	}
	*group = in.s_addr;
	return 0;
}

/* rail GROUP PORT NETDEV */
static int parse_rail(struct cli *c, struct arb_req *r)
{
	const char *g = cli_next(c), *p = cli_next(c), *nd = cli_next(c);
	struct arb_rail *rl;
	uint32_t v;

	if (!g || !p || !nd) {
		fprintf(stderr, "ibtick: rail needs GROUP PORT NETDEV\n");
		return -1;
	}
	if (r->nrails == ARB_RAILS_CLI_MAX) {
		fprintf(stderr, "ibtick: too many rails\n");
		return -1;
	}
	rl = &r->rail[r->nrails];
	if (parse_group(g, &rl->group) || cli_u32("port", p, 1, 65535, &v))
		return -1;
	rl->port = (uint16_t)v;
	rl->ifindex = if_nametoindex(nd);
	if (!rl->ifindex) {
		fprintf(stderr, "ibtick: no network interface \"%s\"\n", nd);
		return -1;
	}
	r->nrails++;
	return 0;
}

/* seq-field { publisher | off N width { 4 | 8 } [ le | be ] } */
static int parse_field(struct cli *c, struct arb_req *r)
{
	char *w = cli_next(c), *v;
	uint32_t n;

	r->have_field = true;
	if (w && !strcmp(w, "publisher")) {
		r->width = 0;
		return 0;
	}
	if (!w || strcmp(w, "off") || !(v = cli_next(c)) ||
	    cli_u32("off", v, 0, 65535, &n)) {
		fprintf(stderr, "ibtick: seq-field is \"publisher\" or \"off N width W [le|be]\"\n");
		return -1;
	}
	r->off = (uint16_t)n;
	w = cli_next(c);
	if (!w || strcmp(w, "width") || !(v = cli_next(c)) ||
	    cli_u32("width", v, 0, 255, &n)) {
		fprintf(stderr, "ibtick: seq-field needs \"width 4\" or \"width 8\"\n");
		return -1;
	}
	r->width = (uint8_t)n;
	if (c->argc && (!strcmp(c->argv[0], "le") || !strcmp(c->argv[0], "be"))) {
		r->big_endian = !strcmp(cli_next(c), "be");
		r->have_order = true;
	}
	return 0;
}

int arb_parse_kw(struct cli *c, const char *kw, struct arb_req *r)
{
	uint32_t v;
	char *val;

	if (!strcmp(kw, "rail"))
		return parse_rail(c, r) ? -1 : 1;
	if (!strcmp(kw, "seq-field"))
		return parse_field(c, r) ? -1 : 1;
	if (strcmp(kw, "window-us") && strcmp(kw, "window-ticks") &&
	    strcmp(kw, "reset-at"))
		return 0;
	val = cli_next(c);
	if (!val) {
		fprintf(stderr, "ibtick: \"%s\" needs a value\n", kw);
		return -1;
	}
	if (!strcmp(kw, "reset-at")) {
		char *end;
		unsigned long long n = strtoull(val, &end, 0);

		if (!*val || *end || *val == '-') {
			fprintf(stderr, "ibtick: reset-at \"%s\" is not a number\n", val);
			return -1;
		}
		r->reset_at = n;
		r->have_reset_at = true;
		return 1;
	}
	if (cli_u32(kw, val, 0, UINT32_MAX, &v))
		return -1;
	if (!strcmp(kw, "window-us")) {
		r->window_us = v;
		r->have_window_us = true;
	} else {
		r->window_ticks = v;
		r->have_window_ticks = true;
	}
	return 1;
}

void arb_put(struct nl_msg *msg, const struct arb_req *r)
{
	struct nlattr *nest = nla_nest_start(msg, IBTICK_A_FEED_ARB), *rn;
	unsigned int i;

	for (i = 0; i < r->nrails; i++) {
		rn = nla_nest_start(msg, IBTICK_A_ARB_RAIL);
		nla_put_u32(msg, IBTICK_A_RAIL_GROUP, r->rail[i].group);
		nla_put_u16(msg, IBTICK_A_RAIL_PORT, r->rail[i].port);
		nla_put_u32(msg, IBTICK_A_RAIL_IFINDEX, r->rail[i].ifindex);
		nla_nest_end(msg, rn);
	}
	if (r->have_field && r->width) {
		nla_put_u16(msg, IBTICK_A_ARB_SEQ_OFF, r->off);
		nla_put_u8(msg, IBTICK_A_ARB_SEQ_WIDTH, r->width);
	} else if (r->have_field) {
		nla_put_u8(msg, IBTICK_A_ARB_SEQ_WIDTH, 0);
	}
	if (r->have_order)
		nla_put_u8(msg, IBTICK_A_ARB_SEQ_BE, r->big_endian);
	if (r->have_window_us)
		nla_put_u32(msg, IBTICK_A_ARB_WINDOW_US, r->window_us);
	if (r->have_window_ticks)
		nla_put_u32(msg, IBTICK_A_ARB_WINDOW_TICKS, r->window_ticks);
	if (r->have_reset_at)
		nla_put_u64(msg, IBTICK_A_ARB_RESET_AT, r->reset_at);
	nla_nest_end(msg, nest);
}

static void print_rail(struct nlattr *nest, bool stats)
{
	struct nlattr *tb[IBTICK_A_RAIL_MAX + 1];
	char grp[INET_ADDRSTRLEN], name[8];
	struct in_addr in;
	uint32_t idx;
	size_t i;

	if (nla_parse_nested(tb, IBTICK_A_RAIL_MAX, nest, rail_policy) < 0)
		return;
	idx = tb[IBTICK_A_RAIL_INDEX] ? nla_get_u32(tb[IBTICK_A_RAIL_INDEX]) : 0;
	in.s_addr = tb[IBTICK_A_RAIL_GROUP] ? nla_get_u32(tb[IBTICK_A_RAIL_GROUP]) : 0;
	inet_ntop(AF_INET, &in, grp, sizeof(grp));
	snprintf(name, sizeof(name), "%c", idx < 26 ? 'A' + (int)idx : '?');
	out_obj_open(NULL);
	out_text("\n    rail");
	out_u64("index", NULL, idx);
	out_str("rail", " %s:", name);
	out_str("group", " group %s", grp);
	out_u64("port", " port %" PRIu64,
		tb[IBTICK_A_RAIL_PORT] ? nla_get_u16(tb[IBTICK_A_RAIL_PORT]) : 0);
	if (tb[IBTICK_A_RAIL_NETDEV_NAME])
		out_str("netdev", " netdev %s",
			nla_get_string(tb[IBTICK_A_RAIL_NETDEV_NAME]));
	out_u64("ifindex", NULL,
		tb[IBTICK_A_RAIL_IFINDEX] ? nla_get_u32(tb[IBTICK_A_RAIL_IFINDEX]) : 0);
	out_str("state", " %s",
		tb[IBTICK_A_RAIL_UP] && nla_get_u8(tb[IBTICK_A_RAIL_UP]) ? "up" : "down");
	if (tb[IBTICK_A_RAIL_FEED_ID])
		out_u64("feed_id", " feed %" PRIu64,
			nla_get_u32(tb[IBTICK_A_RAIL_FEED_ID]));
	if (stats || out_json()) {
		out_obj_open("stats");
		for (i = 0; i < sizeof(rail_counters) / sizeof(rail_counters[0]); i++) {
			if (i % 5 == 0)
				out_text("\n     ");
			out_counter(rail_counters[i].key,
				    get_u64(tb, rail_counters[i].attr));
		}
		out_obj_close();
	}
	out_obj_close();
}

void arb_print(struct nlattr *nest, bool stats)
{
	struct nlattr *tb[IBTICK_A_ARB_MAX + 1], *a;
	uint8_t width;
	int rem;

	if (nla_parse_nested(tb, IBTICK_A_ARB_MAX, nest, arb_policy) < 0)
		return;
	width = tb[IBTICK_A_ARB_SEQ_WIDTH] ? nla_get_u8(tb[IBTICK_A_ARB_SEQ_WIDTH]) : 0;
	out_obj_open("arbitrate");
	out_text("\n   ");
	if (width) {
		out_u64("seq_off", " seq-field off %" PRIu64,
			tb[IBTICK_A_ARB_SEQ_OFF] ? nla_get_u16(tb[IBTICK_A_ARB_SEQ_OFF]) : 0);
		out_u64("seq_width", " width %" PRIu64, width);
		out_str("seq_order", " %s",
			tb[IBTICK_A_ARB_SEQ_BE] && nla_get_u8(tb[IBTICK_A_ARB_SEQ_BE]) ?
			"be" : "le");
	} else {
		out_str("seq_field", " seq-field %s", "publisher");
	}
	if (tb[IBTICK_A_ARB_WINDOW_US] && nla_get_u32(tb[IBTICK_A_ARB_WINDOW_US]))
		out_u64("window_us", " window-us %" PRIu64,
			nla_get_u32(tb[IBTICK_A_ARB_WINDOW_US]));
	if (tb[IBTICK_A_ARB_WINDOW_TICKS] && nla_get_u32(tb[IBTICK_A_ARB_WINDOW_TICKS]))
		out_u64("window_ticks", " window-ticks %" PRIu64,
			nla_get_u32(tb[IBTICK_A_ARB_WINDOW_TICKS]));
	out_u64("reset_at", " reset-at %" PRIu64, get_u64(tb, IBTICK_A_ARB_RESET_AT));
	out_text("\n   ");
	out_u64("delivered", " delivered %" PRIu64, get_u64(tb, IBTICK_A_ARB_DELIVERED));
	out_u64("gaps", " gaps %" PRIu64, get_u64(tb, IBTICK_A_ARB_GAPS));
	out_u64("gap_numbers", " gap_numbers %" PRIu64,
		get_u64(tb, IBTICK_A_ARB_GAP_NUMBERS));
	out_u64("resets", " resets %" PRIu64, get_u64(tb, IBTICK_A_ARB_RESETS));
	out_u64("holes", " holes %" PRIu64, get_u64(tb, IBTICK_A_ARB_HOLES));
	out_arr_open("rails");
	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == IBTICK_A_ARB_RAIL)
			print_rail(a, stats);
	out_arr_close();
	out_obj_close();
}

void arb_counters(struct nlattr *nest, arb_ctr_fn fn, void *arg)
{
	static const struct {
		int		attr;
		const char	*key;
	} feed_counters[] = {
		{ IBTICK_A_ARB_DELIVERED,	"arb_delivered" },
		{ IBTICK_A_ARB_GAPS,		"arb_gaps" },
		{ IBTICK_A_ARB_GAP_NUMBERS,	"arb_gap_numbers" },
		{ IBTICK_A_ARB_RESETS,		"arb_resets" },
	};
	struct nlattr *tb[IBTICK_A_ARB_MAX + 1], *rt[IBTICK_A_RAIL_MAX + 1], *a;
	char name[2];
	uint32_t idx;
	size_t i;
	int rem;

	if (nla_parse_nested(tb, IBTICK_A_ARB_MAX, nest, arb_policy) < 0)
		return;
	for (i = 0; i < sizeof(feed_counters) / sizeof(feed_counters[0]); i++)
		if (tb[feed_counters[i].attr])
			fn(NULL, feed_counters[i].key,
			   nla_get_u64(tb[feed_counters[i].attr]), arg);
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != IBTICK_A_ARB_RAIL ||
		    nla_parse_nested(rt, IBTICK_A_RAIL_MAX, a, rail_policy) < 0 ||
		    !rt[IBTICK_A_RAIL_INDEX])
			continue;
		idx = nla_get_u32(rt[IBTICK_A_RAIL_INDEX]);
		if (idx >= 26)
			continue;
		name[0] = (char)('A' + idx);
		name[1] = 0;
		for (i = 0; i < sizeof(rail_counters) / sizeof(rail_counters[0]); i++) {
			int t = rail_counters[i].attr;

			if (!rt[t] || t == IBTICK_A_RAIL_LAG_MEAN_NS ||
			    t == IBTICK_A_RAIL_LAG_P50_NS ||
			    t == IBTICK_A_RAIL_LAG_P99_NS ||
			    t == IBTICK_A_RAIL_LAG_MAX_NS)
				continue;
			fn(name, rail_counters[i].key, nla_get_u64(rt[t]), arg);
		}
	}
}

void arb_print_batch(struct nlattr *nest, FILE *f)
{
	struct nlattr *tb[IBTICK_A_ARB_MAX + 1], *rt[IBTICK_A_RAIL_MAX + 1], *a;
	char grp[INET_ADDRSTRLEN];
	struct in_addr in;
	uint8_t width;
	int rem;

	if (nla_parse_nested(tb, IBTICK_A_ARB_MAX, nest, arb_policy) < 0)
		return;
	fprintf(f, " arbitrate");
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != IBTICK_A_ARB_RAIL ||
		    nla_parse_nested(rt, IBTICK_A_RAIL_MAX, a, rail_policy) < 0 ||
		    !rt[IBTICK_A_RAIL_GROUP] || !rt[IBTICK_A_RAIL_PORT])
			continue;
		in.s_addr = nla_get_u32(rt[IBTICK_A_RAIL_GROUP]);
		inet_ntop(AF_INET, &in, grp, sizeof(grp));
		/* by name: the netdev's index need not survive a reboot */
		fprintf(f, " rail %s %u %s", grp, nla_get_u16(rt[IBTICK_A_RAIL_PORT]),
			rt[IBTICK_A_RAIL_NETDEV_NAME] ?
			nla_get_string(rt[IBTICK_A_RAIL_NETDEV_NAME]) : "?");
	}
	width = tb[IBTICK_A_ARB_SEQ_WIDTH] ? nla_get_u8(tb[IBTICK_A_ARB_SEQ_WIDTH]) : 0;
	if (width)
		fprintf(f, " seq-field off %u width %u %s",
			tb[IBTICK_A_ARB_SEQ_OFF] ? nla_get_u16(tb[IBTICK_A_ARB_SEQ_OFF]) : 0,
			width, tb[IBTICK_A_ARB_SEQ_BE] &&
			nla_get_u8(tb[IBTICK_A_ARB_SEQ_BE]) ? "be" : "le");
	if (tb[IBTICK_A_ARB_WINDOW_US])
		fprintf(f, " window-us %u", nla_get_u32(tb[IBTICK_A_ARB_WINDOW_US]));
	if (tb[IBTICK_A_ARB_WINDOW_TICKS] && nla_get_u32(tb[IBTICK_A_ARB_WINDOW_TICKS]))
		fprintf(f, " window-ticks %u", nla_get_u32(tb[IBTICK_A_ARB_WINDOW_TICKS]));
	if (tb[IBTICK_A_ARB_RESET_AT])
		fprintf(f, " reset-at %" PRIu64, nla_get_u64(tb[IBTICK_A_ARB_RESET_AT]));
}
