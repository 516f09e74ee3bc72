// SPDX-License-Identifier: GPL-2.0
/*
 * Feed attributes on the CLI side (see feedattr.h).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick.h>
#include <ibtick_counters.h>

#include "arbattr.h"
#include "feedattr.h"
#include "out.h"

struct nla_policy feed_reply_policy[IBTICK_A_FEED_MAX + 1] = {
	[IBTICK_A_FEED_ID]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_NAME]		= { .type = NLA_STRING },
	[IBTICK_A_FEED_GROUP]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_PORT]		= { .type = NLA_U16 },
	[IBTICK_A_FEED_IFINDEX]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_SLOTS]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_SLOT_SIZE]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_POLL_MODE]	= { .type = NLA_U8 },
	[IBTICK_A_FEED_POLL_CPU]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_COMP_VECTOR]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_LOOPBACK]	= { .type = NLA_U8 },
	[IBTICK_A_FEED_OWNER]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_OWNER_GROUP]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_MODE]		= { .type = NLA_U16 },
	[IBTICK_A_FEED_ADMIN]		= { .type = NLA_U8 },
	[IBTICK_A_FEED_LIVE]		= { .type = NLA_U8 },
	[IBTICK_A_FEED_DEV_INDEX]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_DEV_NAME]	= { .type = NLA_STRING },
	[IBTICK_A_FEED_DEV_PORT]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_NETDEV_NAME]	= { .type = NLA_STRING },
	[IBTICK_A_FEED_READERS]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_PUBLISHERS]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_SOCKETS]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_PRODUCER]	= { .type = NLA_U64 },
	[IBTICK_A_FEED_WIRE_MAX]	= { .type = NLA_U32 },
	[IBTICK_A_FEED_QPN]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_QKEY]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_MLID]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_MGID]		= { .minlen = 16, .maxlen = 16 },
	[IBTICK_A_FEED_RING_BYTES]	= { .type = NLA_U64 },
	[IBTICK_A_FEED_STATS]		= { .type = NLA_NESTED },
	[IBTICK_A_FEED_MEMBERSHIP]	= { .type = NLA_U8 },
	[IBTICK_A_FEED_ARB]		= { .type = NLA_NESTED },
	[IBTICK_A_FEED_RAIL_OF]		= { .type = NLA_U32 },
	[IBTICK_A_FEED_PREFER_DEFER]	= { .type = NLA_U32 },
};

struct nla_policy fstat_policy[IBTICK_A_FSTAT_MAX + 1];	/* all u64 */

const struct ibt_nl_obj feed_obj = {
	.maxattr	= IBTICK_A_FEED_MAX,
	.policy		= feed_reply_policy,
	.attr_names	= feed_attr_names,
	.n_names	= IBTICK_A_FEED_MAX + 1,
};

/* the CLI's words for the request attributes the kernel may refuse */
const char *const feed_attr_names[IBTICK_A_FEED_MAX + 1] = {
	[IBTICK_A_FEED_ID]		= "id",
	[IBTICK_A_FEED_NAME]		= "name",
	[IBTICK_A_FEED_GROUP]		= "group",
	[IBTICK_A_FEED_PORT]		= "port",
	[IBTICK_A_FEED_IFINDEX]		= "netdev",
	[IBTICK_A_FEED_SLOTS]		= "slots",
	[IBTICK_A_FEED_SLOT_SIZE]	= "slot-size",
	[IBTICK_A_FEED_POLL_MODE]	= "poll",
	[IBTICK_A_FEED_POLL_CPU]	= "cpu",
	[IBTICK_A_FEED_COMP_VECTOR]	= "comp-vector",
	[IBTICK_A_FEED_LOOPBACK]	= "loopback",
	[IBTICK_A_FEED_OWNER]		= "owner",
	[IBTICK_A_FEED_OWNER_GROUP]	= "owner (group)",
	[IBTICK_A_FEED_MODE]		= "mode",
	[IBTICK_A_FEED_MEMBERSHIP]	= "member",
	[IBTICK_A_FEED_ARB]		= "arbitrate",
	[IBTICK_A_FEED_PREFER_DEFER]	= "prefer-defer",
};

/* the counters' keys, from the one list the kernel uses too */
const char *const fstat_keys[IBTICK_A_FSTAT_MAX + 1] = {
#define FSTAT_KEY(name, attr, key, kind, so) [IBTICK_A_FSTAT_##attr] = key,
	IBTICK_FEED_COUNTERS(FSTAT_KEY)
#undef FSTAT_KEY
};

static __attribute__((constructor)) void fstat_policy_init(void)
{
	int i;

	for (i = 1; i <= IBTICK_A_FSTAT_MAX; i++)
		fstat_policy[i].type = NLA_U64;
	fstat_policy[IBTICK_A_FSTAT_PAD].type = NLA_UNSPEC;
}

static uint32_t get_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static uint8_t get_u8(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u8(tb[a]) : 0;
}

static const char *member_name(uint8_t m)
{
	switch (m) {
	case IBTICK_FEED_MEMBER_SEND_ONLY:
		return "send-only";
	case IBTICK_FEED_MEMBER_FULL:
		return "full";
	default:
		return "none";
	}
}

static void print_stats(struct nlattr *nest)
{
	struct nlattr *st[IBTICK_A_FSTAT_MAX + 1];
	int i, n = 0;

	if (nla_parse_nested(st, IBTICK_A_FSTAT_MAX, nest, fstat_policy) < 0)
		return;
	out_obj_open("stats");
	for (i = 1; i <= IBTICK_A_FSTAT_MAX; i++) {
		if (!st[i] || !fstat_keys[i])
			continue;
		if (n++ % 6 == 0)
			out_text("\n   ");
		out_counter(fstat_keys[i], nla_get_u64(st[i]));
	}
	out_obj_close();
}

/*
 * -d: the ring and how it is polled, who may use the feed, and the
 * multicast group and UD QP the kernel made for it.
 */
static void print_details(struct nlattr **tb)
{
	char buf[64];
	uint8_t mode;

	out_text("\n   ");
	out_u64("slots", " slots %" PRIu64, get_u32(tb, IBTICK_A_FEED_SLOTS));
	out_u64("slot_size", " slot-size %" PRIu64,
		get_u32(tb, IBTICK_A_FEED_SLOT_SIZE));
	if (tb[IBTICK_A_FEED_RING_BYTES])
		out_u64("ring_bytes", " ring_bytes %" PRIu64,
			nla_get_u64(tb[IBTICK_A_FEED_RING_BYTES]));
	if (tb[IBTICK_A_FEED_WIRE_MAX])
		out_u64("wire_max", " wire_max %" PRIu64,
			get_u32(tb, IBTICK_A_FEED_WIRE_MAX));
	mode = get_u8(tb, IBTICK_A_FEED_POLL_MODE);
	out_str("poll", " poll %s", mode == IBTICK_POLL_BUSY ? "busy" : "irq");
	if (mode == IBTICK_POLL_BUSY && tb[IBTICK_A_FEED_POLL_CPU] &&
	    (int32_t)nla_get_u32(tb[IBTICK_A_FEED_POLL_CPU]) >= 0)
		out_u64("poll_cpu", " cpu %" PRIu64,
			nla_get_u32(tb[IBTICK_A_FEED_POLL_CPU]));
	/* JSON: prefer_defer_us only when the feed has its own */
	if (tb[IBTICK_A_FEED_PREFER_DEFER] &&
	    nla_get_u32(tb[IBTICK_A_FEED_PREFER_DEFER]) !=
	    IBTICK_PREFER_DEFER_DEFAULT)
		out_u64("prefer_defer_us", " prefer-defer %" PRIu64,
			nla_get_u32(tb[IBTICK_A_FEED_PREFER_DEFER]));
	else if (tb[IBTICK_A_FEED_PREFER_DEFER])
		out_text(" prefer-defer default");
	out_u64("comp_vector", " comp-vector %" PRIu64,
		get_u32(tb, IBTICK_A_FEED_COMP_VECTOR));
	out_str("loopback", " loopback %s",
		get_u8(tb, IBTICK_A_FEED_LOOPBACK) == IBTICK_FEED_LOOPBACK_DENY ?
		"deny" : "socket");
	if (tb[IBTICK_A_FEED_MODE]) {
		snprintf(buf, sizeof(buf), "%04o", nla_get_u16(tb[IBTICK_A_FEED_MODE]));
		out_text("\n   ");
		out_u64("owner", " owner %" PRIu64, get_u32(tb, IBTICK_A_FEED_OWNER));
		out_u64("owner_group", ":%" PRIu64,
			get_u32(tb, IBTICK_A_FEED_OWNER_GROUP));
		out_str("mode", " mode %s", buf);
	}
	if (tb[IBTICK_A_FEED_QPN]) {
		out_text("\n   ");
		if (tb[IBTICK_A_FEED_MEMBERSHIP])
			out_str("member", " member %s",
				member_name(get_u8(tb, IBTICK_A_FEED_MEMBERSHIP)));
		out_u64("qpn", " qpn %" PRIu64, get_u32(tb, IBTICK_A_FEED_QPN));
		snprintf(buf, sizeof(buf), "0x%08x", get_u32(tb, IBTICK_A_FEED_QKEY));
		out_str("qkey", " qkey %s", buf);
		if (tb[IBTICK_A_FEED_MLID])
			out_u64("mlid", " mlid %" PRIu64, get_u32(tb, IBTICK_A_FEED_MLID));
		if (tb[IBTICK_A_FEED_MGID] &&
		    inet_ntop(AF_INET6, nla_data(tb[IBTICK_A_FEED_MGID]), buf,
			      sizeof(buf)))
			out_str("mgid", " mgid %s", buf);
	}
}

int feed_print(struct nlattr **tb, bool stats, bool details)
{
	char grp[INET_ADDRSTRLEN], buf[64];
	struct in_addr in;

	if (!tb[IBTICK_A_FEED_ID] || !tb[IBTICK_A_FEED_NAME] ||
	    (!tb[IBTICK_A_FEED_ARB] &&
	     (!tb[IBTICK_A_FEED_GROUP] || !tb[IBTICK_A_FEED_PORT]))) {
		fprintf(stderr, "ibtick: malformed feed in the kernel's reply\n");
		return -1;
	}
	out_obj_open(NULL);
	out_u64("id", "%" PRIu64 ": ", get_u32(tb, IBTICK_A_FEED_ID));
	out_str("name", "%s:", nla_get_string(tb[IBTICK_A_FEED_NAME]));
	if (tb[IBTICK_A_FEED_ARB]) {
		out_text(" arbitrated");
	} else {
		in.s_addr = nla_get_u32(tb[IBTICK_A_FEED_GROUP]);
		inet_ntop(AF_INET, &in, grp, sizeof(grp));
		out_str("group", " group %s", grp);
		out_u64("port", " port %" PRIu64,
			nla_get_u16(tb[IBTICK_A_FEED_PORT]));
	}
	if (tb[IBTICK_A_FEED_NETDEV_NAME])
		out_str("netdev", " netdev %s",
			nla_get_string(tb[IBTICK_A_FEED_NETDEV_NAME]));
	if (details)
		out_u64("ifindex", " ifindex %" PRIu64,
			get_u32(tb, IBTICK_A_FEED_IFINDEX));
	if (tb[IBTICK_A_FEED_DEV_NAME]) {
		snprintf(buf, sizeof(buf), "%s/%u",
			 nla_get_string(tb[IBTICK_A_FEED_DEV_NAME]),
			 get_u32(tb, IBTICK_A_FEED_DEV_PORT));
		out_text(" dev %s", buf);
		out_str("dev", NULL, nla_get_string(tb[IBTICK_A_FEED_DEV_NAME]));
		out_u64("dev_port", NULL, get_u32(tb, IBTICK_A_FEED_DEV_PORT));
		if (details && tb[IBTICK_A_FEED_DEV_INDEX])
			out_u64("dev_index", " dev_index %" PRIu64,
				get_u32(tb, IBTICK_A_FEED_DEV_INDEX));
	}
	if (tb[IBTICK_A_FEED_RAIL_OF])
		out_u64("rail_of", " rail of %" PRIu64,
			nla_get_u32(tb[IBTICK_A_FEED_RAIL_OF]));
	else
		out_str("type", " %s",
			get_u8(tb, IBTICK_A_FEED_ADMIN) ? "admin" : "auto");
	out_str("state", " %s", get_u8(tb, IBTICK_A_FEED_LIVE) ? "live" : "dead");
	out_text("\n   ");
	out_u64("readers", " readers %" PRIu64, get_u32(tb, IBTICK_A_FEED_READERS));
	out_u64("publishers", " publishers %" PRIu64,
		get_u32(tb, IBTICK_A_FEED_PUBLISHERS));
	out_u64("sockets", " sockets %" PRIu64, get_u32(tb, IBTICK_A_FEED_SOCKETS));
	if (tb[IBTICK_A_FEED_PRODUCER])
		out_u64("producer", " producer %" PRIu64,
			nla_get_u64(tb[IBTICK_A_FEED_PRODUCER]));
	if (details)
		print_details(tb);
	if (tb[IBTICK_A_FEED_ARB])
		arb_print(tb[IBTICK_A_FEED_ARB], stats);
	if ((stats || out_json()) && tb[IBTICK_A_FEED_STATS])
		print_stats(tb[IBTICK_A_FEED_STATS]);
	out_obj_close();
	out_nl();
	return 0;
}

void feed_print_batch(struct nlattr **tb, FILE *f)
{
	char grp[INET_ADDRSTRLEN];
	struct in_addr in;

	if (!get_u8(tb, IBTICK_A_FEED_ADMIN) || !tb[IBTICK_A_FEED_NAME])
		return;
	if (tb[IBTICK_A_FEED_ARB]) {
		fprintf(f, "feed add %s", nla_get_string(tb[IBTICK_A_FEED_NAME]));
		arb_print_batch(tb[IBTICK_A_FEED_ARB], f);
		fprintf(f, " slots %u slot-size %u",
			get_u32(tb, IBTICK_A_FEED_SLOTS),
			get_u32(tb, IBTICK_A_FEED_SLOT_SIZE));
		if (tb[IBTICK_A_FEED_MODE])
			fprintf(f, " owner %u:%u mode %04o",
				get_u32(tb, IBTICK_A_FEED_OWNER),
				get_u32(tb, IBTICK_A_FEED_OWNER_GROUP),
				nla_get_u16(tb[IBTICK_A_FEED_MODE]));
		fputc('\n', f);
		return;
	}
	if (!tb[IBTICK_A_FEED_GROUP])
		return;
	in.s_addr = nla_get_u32(tb[IBTICK_A_FEED_GROUP]);
	inet_ntop(AF_INET, &in, grp, sizeof(grp));
	fprintf(f, "feed add %s group %s port %u",
		nla_get_string(tb[IBTICK_A_FEED_NAME]), grp,
		tb[IBTICK_A_FEED_PORT] ? nla_get_u16(tb[IBTICK_A_FEED_PORT]) : 0);
	if (tb[IBTICK_A_FEED_NETDEV_NAME])
		fprintf(f, " netdev %s",
			nla_get_string(tb[IBTICK_A_FEED_NETDEV_NAME]));
	fprintf(f, " slots %u slot-size %u", get_u32(tb, IBTICK_A_FEED_SLOTS),
		get_u32(tb, IBTICK_A_FEED_SLOT_SIZE));
	if (get_u8(tb, IBTICK_A_FEED_POLL_MODE) == IBTICK_POLL_BUSY) {
		fprintf(f, " poll busy");
		if ((int32_t)get_u32(tb, IBTICK_A_FEED_POLL_CPU) >= 0)
			fprintf(f, " cpu %d", (int32_t)get_u32(tb, IBTICK_A_FEED_POLL_CPU));
	}
	if (get_u32(tb, IBTICK_A_FEED_COMP_VECTOR))
		fprintf(f, " comp-vector %u", get_u32(tb, IBTICK_A_FEED_COMP_VECTOR));
	if (tb[IBTICK_A_FEED_PREFER_DEFER] &&
	    nla_get_u32(tb[IBTICK_A_FEED_PREFER_DEFER]) !=
	    IBTICK_PREFER_DEFER_DEFAULT)
		fprintf(f, " prefer-defer %u",
			nla_get_u32(tb[IBTICK_A_FEED_PREFER_DEFER]));
	if (get_u8(tb, IBTICK_A_FEED_LOOPBACK) == IBTICK_FEED_LOOPBACK_DENY)
		fprintf(f, " loopback deny");
	if (tb[IBTICK_A_FEED_MODE])
		fprintf(f, " owner %u:%u mode %04o", get_u32(tb, IBTICK_A_FEED_OWNER),
			get_u32(tb, IBTICK_A_FEED_OWNER_GROUP),
			nla_get_u16(tb[IBTICK_A_FEED_MODE]));
	/* the membership it has now: readers may have made it full */
	if (get_u8(tb, IBTICK_A_FEED_MEMBERSHIP) == IBTICK_FEED_MEMBER_FULL)
		fprintf(f, " member full");
	fputc('\n', f);
}
