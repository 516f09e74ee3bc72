// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick sock: every AF_IBTICK socket on the host, as ss(8) shows TCP's.
 *
 *   ibtick [-d] [-s] sock show [ feed NAME ] [ pid N ]
 *
 * -d adds the feed's id, the feed count of a socket reading one, its
 * mappings of the ring and its loopback setting (IBTICK_LOOPBACK).
 *
 * The datagram sockets (IBTICK_CMD_SOCK_GET, "type" "dgram") come first,
 * then the connections and listeners (IBTICK_CMD_CONN_GET, "type" "conn",
 * printed as ibtick conn show prints them); "feed" leaves the connections
 * out, as they read no feed.  The two have ids of their own.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "feedattr.h"
#include "ibtick.h"
#include "nl.h"
#include "out.h"

struct nla_policy sock_reply_policy[IBTICK_A_SOCK_MAX + 1];

const char *const sock_ctr_keys[IBTICK_A_SOCK_MAX + 1] = {
	[IBTICK_A_SOCK_RX_TICKS]	= "rx_ticks",
	[IBTICK_A_SOCK_RX_BYTES]	= "rx_bytes",
	[IBTICK_A_SOCK_RX_LOST]		= "rx_lost",
	[IBTICK_A_SOCK_RX_TRUNCATED]	= "rx_truncated",
	[IBTICK_A_SOCK_RX_SKIPPED_LOCAL] = "rx_skipped_local",
	[IBTICK_A_SOCK_TX_TICKS]	= "tx_ticks",
	[IBTICK_A_SOCK_TX_BYTES]	= "tx_bytes",
	[IBTICK_A_SOCK_TX_EAGAIN]	= "tx_eagain",
	[IBTICK_A_SOCK_TX_ERRORS]	= "tx_errors",
	[IBTICK_A_SOCK_LAPS]		= "laps",
};

static const char *const sock_attr_names[IBTICK_A_SOCK_MAX + 1] = {
	[IBTICK_A_SOCK_PID]	= "pid",
	[IBTICK_A_SOCK_FEED_ID]	= "feed",
};

const struct ibt_nl_obj sock_obj = {
	.maxattr	= IBTICK_A_SOCK_MAX,
	.policy		= sock_reply_policy,
	.attr_names	= sock_attr_names,
	.n_names	= IBTICK_A_SOCK_MAX + 1,
};

static __attribute__((constructor)) void sock_policy_init(void)
{
	static const int u32s[] = {
		IBTICK_A_SOCK_PID, IBTICK_A_SOCK_UID, IBTICK_A_SOCK_FEED_ID,
		IBTICK_A_SOCK_FLAGS, IBTICK_A_SOCK_MAPPINGS, IBTICK_A_SOCK_FEEDS,
	};
	unsigned int i;

	for (i = IBTICK_A_SOCK_ID; i <= IBTICK_A_SOCK_MAX; i++)
		sock_reply_policy[i].type = NLA_U64;
	for (i = 0; i < sizeof(u32s) / sizeof(u32s[0]); i++)
		sock_reply_policy[u32s[i]].type = NLA_U32;
	sock_reply_policy[IBTICK_A_SOCK_FEED_NAME].type = NLA_STRING;
	sock_reply_policy[IBTICK_A_SOCK_LOOPBACK].type = NLA_U8;
}

static void sock_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick sock show [ feed NAME ] [ pid PID ]\n"
		"       ibtick sock help\n");
}

static uint64_t get(struct nlattr **tb, int a)
{
	if (!tb[a])
		return 0;
	return sock_reply_policy[a].type == NLA_U32 ? nla_get_u32(tb[a]) :
	       nla_get_u64(tb[a]);
}

static const char *sock_mode(uint32_t flags)
{
	if (flags & IBTICK_SOCK_MAPPED)
		return flags & IBTICK_SOCK_PUBLISHER ? "mapped+publisher" : "mapped";
	if (flags & IBTICK_SOCK_SUBSCRIBED)
		return flags & IBTICK_SOCK_PUBLISHER ? "recvmsg+publisher" : "recvmsg";
	if (flags & IBTICK_SOCK_PUBLISHER)
		return "publisher";
	return "unbound";
}

static int print_sock(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cli *c = arg;
	int i;

	(void)nlh;
	if (!tb[IBTICK_A_SOCK_ID]) {
		fprintf(stderr, "ibtick: malformed socket in the kernel's reply\n");
		return -1;
	}
	out_obj_open(NULL);
	out_str("type", NULL, "dgram");
	out_u64("id", "%" PRIu64 ":", get(tb, IBTICK_A_SOCK_ID));
	out_u64("inode", " inode %" PRIu64, get(tb, IBTICK_A_SOCK_INODE));
	out_u64("pid", " pid %" PRIu64, get(tb, IBTICK_A_SOCK_PID));
	out_u64("uid", " uid %" PRIu64, get(tb, IBTICK_A_SOCK_UID));
	if (tb[IBTICK_A_SOCK_FEED_NAME]) {
		out_str("feed", " feed %s", nla_get_string(tb[IBTICK_A_SOCK_FEED_NAME]));
		if (c->details)
			out_u64("feed_id", " feed_id %" PRIu64,
				get(tb, IBTICK_A_SOCK_FEED_ID));
	}
	out_str("mode", " mode %s", sock_mode((uint32_t)get(tb, IBTICK_A_SOCK_FLAGS)));
	/* a multi-feed socket (IBTICK_ADD_FEED): how many it reads */
	if (tb[IBTICK_A_SOCK_FEEDS])
		out_u64("feeds", c->details || get(tb, IBTICK_A_SOCK_FEEDS) > 1 ?
			" feeds %" PRIu64 : NULL, get(tb, IBTICK_A_SOCK_FEEDS));
	if (c->details) {
		out_u64("mappings", " mappings %" PRIu64,
			get(tb, IBTICK_A_SOCK_MAPPINGS));
		if (tb[IBTICK_A_SOCK_LOOPBACK])
			out_bool("loopback", " loopback %s",
				 get(tb, IBTICK_A_SOCK_LOOPBACK) != 0);
	}
	if (tb[IBTICK_A_SOCK_CURSOR]) {
		out_u64("cursor", " cursor %" PRIu64, get(tb, IBTICK_A_SOCK_CURSOR));
		out_u64("lag", " lag %" PRIu64, get(tb, IBTICK_A_SOCK_LAG));
	}
	out_u64("lost", " lost %" PRIu64, get(tb, IBTICK_A_SOCK_RX_LOST));
	out_u64("laps", " laps %" PRIu64, get(tb, IBTICK_A_SOCK_LAPS));
	if (c->stats || c->json) {
		out_obj_open("stats");
		out_text("\n   ");
		for (i = 0; i <= IBTICK_A_SOCK_MAX; i++) {
			if (!sock_ctr_keys[i])
				continue;
			out_counter(sock_ctr_keys[i], get(tb, i));
		}
		out_obj_close();
	}
	out_obj_close();
	out_nl();
	return 0;
}

static int take_id(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	(void)nlh;
	if (tb[IBTICK_A_FEED_ID])
		*(int64_t *)arg = nla_get_u32(tb[IBTICK_A_FEED_ID]);
	return 0;
}

/* The id of feed @name, or -1 after saying why. */
static int64_t feed_id_of(struct ibt_nl *nl, const char *name)
{
	int64_t id = -1;
	struct ibt_nl_req req = {
		.obj = &feed_obj, .cmd = IBTICK_CMD_FEED_GET,
		.name_attr = IBTICK_A_FEED_NAME, .name = name,
		.cb = take_id, .arg = &id,
	};

	if (ibt_nl_call(nl, &req))
		return -1;
	return id;
}

/* The connections (pid filter @pid unless 0), as rows of sock show. */
static int sock_show_conns(struct ibt_nl *nl, struct cli *c, uint32_t pid)
{
	struct conn_rows rows = { .c = c, .as_sock = true };
	struct ibt_nl_req req = {
		.obj = &conn_obj, .cmd = IBTICK_CMD_CONN_GET, .flags = NLM_F_DUMP,
		.cb = conn_print, .arg = &rows,
	};
	int ret;

	req.attrs = ibt_nl_attrs();
	if (!req.attrs)
		return EXIT_FAIL;
	if (pid)
		nla_put_u32(req.attrs, IBTICK_A_CONN_PID, pid);
	ret = ibt_nl_call(nl, &req);
	nlmsg_free(req.attrs);
	return ret;
}

static int sock_show(struct cli *c)
{
	struct ibt_nl_req req = {
		.obj = &sock_obj, .cmd = IBTICK_CMD_SOCK_GET, .flags = NLM_F_DUMP,
		.cb = print_sock, .arg = c,
	};
	const char *feed = NULL;
	struct ibt_nl nl;
	uint32_t pid = 0;
	bool have_pid = false, have_feed = false;
	const struct cli_filter filters[] = {
		{ "feed", &feed, NULL, &have_feed },
		{ "pid", NULL, &pid, &have_pid },
		{ NULL }
	};
	int64_t fid;
	int ret;

	ret = cli_filters(c, filters, "sock show", sock_usage);
	if (ret)
		return ret;
	req.attrs = ibt_nl_attrs();
	if (!req.attrs)
		return EXIT_FAIL;
	ret = ibt_nl_open(&nl);
	if (ret)
		goto out;
	if (have_pid)
		nla_put_u32(req.attrs, IBTICK_A_SOCK_PID, pid);
	if (feed) {
		fid = feed_id_of(&nl, feed);
		if (fid < 0) {
			ret = EXIT_FAIL;
			goto close;
		}
		nla_put_u32(req.attrs, IBTICK_A_SOCK_FEED_ID, (uint32_t)fid);
	}
	out_arr_open(NULL);	/* one array: both dumps' rows */
	ret = ibt_nl_call(&nl, &req);
	if (!ret && !feed)
		ret = sock_show_conns(&nl, c, have_pid ? pid : 0);
	out_arr_close();
close:
	ibt_nl_close(&nl);
out:
	nlmsg_free(req.attrs);
	return ret;
}

static const struct cli_cmd sock_cmds[] = {
	{ "show",	sock_show },
	{ "list",	sock_show },
	{ NULL }
};

int cmd_sock(struct cli *c)
{
	return cli_dispatch(c, sock_cmds, "sock", sock_usage);
}
