// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick monitor: the family's events as they happen, one per line (-j: one
 * JSON object per line), until interrupted.
 *
 *   ibtick monitor [ all | dev | feed | sock | conn ]
 *
 * Socket and connection events come on the CAP_NET_ADMIN group (they name
 * processes and peers); without it they are not shown, and it says so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "ibtick.h"
#include "nl.h"
#include "out.h"

enum { CAT_DEV = 1, CAT_FEED = 2, CAT_SOCK = 4, CAT_CONN = 8, CAT_ALL = 15 };

static const struct {
	const char *name;
	int cat;
} ev_names[] = {
	[IBTICK_EV_DEV_ADDED]		= { "dev_added", CAT_DEV },
	[IBTICK_EV_DEV_REMOVED]		= { "dev_removed", CAT_DEV },
	[IBTICK_EV_PORT_UP]		= { "port_up", CAT_DEV },
	[IBTICK_EV_PORT_DOWN]		= { "port_down", CAT_DEV },
	[IBTICK_EV_JOIN_DONE]		= { "join_done", CAT_FEED },
	[IBTICK_EV_JOIN_FAILED]		= { "join_failed", CAT_FEED },
	[IBTICK_EV_FEED_CREATED]	= { "feed_created", CAT_FEED },
	[IBTICK_EV_FEED_DESTROYED]	= { "feed_destroyed", CAT_FEED },
	[IBTICK_EV_FEED_CHANGED]	= { "feed_changed", CAT_FEED },
	[IBTICK_EV_READER_LAPPED]	= { "reader_lapped", CAT_SOCK },
	[IBTICK_EV_SEQ_GAP]		= { "seq_gap", CAT_FEED },
	[IBTICK_EV_RQ_EMPTY]		= { "rq_empty", CAT_FEED },
	[IBTICK_EV_FEED_ERROR]		= { "feed_error", CAT_FEED },
	[IBTICK_EV_RAIL_DOWN]		= { "rail_down", CAT_FEED },
	[IBTICK_EV_RAIL_UP]		= { "rail_up", CAT_FEED },
	[IBTICK_EV_ARB_GAP]		= { "arbitrated_gap", CAT_FEED },
	[IBTICK_EV_SEQ_RESET]		= { "sequence_reset", CAT_FEED },
	[IBTICK_EV_CONN_FAILED]		= { "conn_failed", CAT_CONN },
	[IBTICK_EV_CONN_PEER_CLOSED]	= { "conn_peer_closed", CAT_CONN },
};

static struct nla_policy ev_policy[IBTICK_A_EV_MAX + 1] = {
	[IBTICK_A_EV_TYPE]	= { .type = NLA_U8 },
	[IBTICK_A_EV_TIME_NS]	= { .type = NLA_U64 },
	[IBTICK_A_EV_DEV_INDEX]	= { .type = NLA_U32 },
	[IBTICK_A_EV_DEV_NAME]	= { .type = NLA_STRING },
	[IBTICK_A_EV_PORT]	= { .type = NLA_U32 },
	[IBTICK_A_EV_FEED_ID]	= { .type = NLA_U32 },
	[IBTICK_A_EV_FEED_NAME]	= { .type = NLA_STRING },
	[IBTICK_A_EV_SOCK_ID]	= { .type = NLA_U64 },
	[IBTICK_A_EV_PID]	= { .type = NLA_U32 },
	[IBTICK_A_EV_ERRNO]	= { .type = NLA_U32 },
	[IBTICK_A_EV_COUNT]	= { .type = NLA_U64 },
	[IBTICK_A_EV_TOTAL]	= { .type = NLA_U64 },
	[IBTICK_A_EV_IB_EVENT]	= { .type = NLA_U32 },
	[IBTICK_A_EV_RAIL]	= { .type = NLA_U32 },
	[IBTICK_A_EV_CONN_ID]	= { .type = NLA_U64 },
	[IBTICK_A_EV_LOCAL_ADDR] = { .type = NLA_U32 },
	[IBTICK_A_EV_LOCAL_PORT] = { .type = NLA_U16 },
	[IBTICK_A_EV_PEER_ADDR]	= { .type = NLA_U32 },
	[IBTICK_A_EV_PEER_PORT]	= { .type = NLA_U16 },
	[IBTICK_A_EV_UNACKED]	= { .type = NLA_U64 },
};

struct mon {
	int	cats;
	bool	json;
	bool	pretty;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void monitor_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick monitor [ all | dev | feed | sock | conn ]\n"
		"       ibtick monitor help\n");
}

/* A connection's end, "a.b.c.d:port", as ibtick conn show writes it. */
static void out_endpoint(const char *key, const char *fmt, struct nlattr **tb,
			 int addr, int port)
{
	char ip[INET_ADDRSTRLEN] = "0.0.0.0", buf[INET_ADDRSTRLEN + 8];
	uint32_t a;

	if (!tb[addr])
		return;
	a = nla_get_u32(tb[addr]);	/* network byte order */
	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	snprintf(buf, sizeof(buf), "%s:%u", ip,
		 tb[port] ? (unsigned int)nla_get_u16(tb[port]) : 0u);
	out_str(key, fmt, buf);
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[IBTICK_A_EV_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct mon *m = arg;
	char when[64];
	unsigned int type;
	struct tm tm;
	time_t sec;
	uint64_t ns;

	if (genlmsg_parse(nlh, 0, tb, IBTICK_A_EV_MAX, ev_policy) < 0 ||
	    !tb[IBTICK_A_EV_TYPE])
		return NL_OK;
	type = nla_get_u8(tb[IBTICK_A_EV_TYPE]);
	if (type >= sizeof(ev_names) / sizeof(ev_names[0]) || !ev_names[type].name)
		return NL_OK;	/* a newer kernel's event: not ours to name */
	if (!(ev_names[type].cat & m->cats))
		return NL_OK;
	ns = tb[IBTICK_A_EV_TIME_NS] ? nla_get_u64(tb[IBTICK_A_EV_TIME_NS]) : 0;
	sec = (time_t)(ns / 1000000000u);
	localtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);

	/* one document per event: JSON lines */
	out_init(stdout, m->json ? OUT_JSON : OUT_TEXT);
	out_obj_open(NULL);
	out_text("[%s.%06u] ", when, (unsigned int)(ns % 1000000000u / 1000));
	out_u64("time_ns", NULL, ns);
	out_str("event", "%s", ev_names[type].name);
	if (tb[IBTICK_A_EV_FEED_NAME]) {
		out_str("feed", " feed %s", nla_get_string(tb[IBTICK_A_EV_FEED_NAME]));
		if (tb[IBTICK_A_EV_FEED_ID])
			out_u64("feed_id", NULL, nla_get_u32(tb[IBTICK_A_EV_FEED_ID]));
	}
	if (tb[IBTICK_A_EV_RAIL]) {
		uint32_t r = nla_get_u32(tb[IBTICK_A_EV_RAIL]);
		char name[2] = { r < 26 ? (char)('A' + r) : '?', 0 };

		out_u64("rail_index", NULL, r);
		out_str("rail", " rail %s", name);
	}
	if (tb[IBTICK_A_EV_CONN_ID]) {
		out_u64("conn", " conn %" PRIu64, nla_get_u64(tb[IBTICK_A_EV_CONN_ID]));
		out_endpoint("local", " local %s", tb, IBTICK_A_EV_LOCAL_ADDR,
			     IBTICK_A_EV_LOCAL_PORT);
		out_endpoint("peer", " peer %s", tb, IBTICK_A_EV_PEER_ADDR,
			     IBTICK_A_EV_PEER_PORT);
	}
	if (tb[IBTICK_A_EV_DEV_NAME])
		out_str("dev", " dev %s", nla_get_string(tb[IBTICK_A_EV_DEV_NAME]));
	if (tb[IBTICK_A_EV_DEV_INDEX])
		out_u64("dev_index", NULL, nla_get_u32(tb[IBTICK_A_EV_DEV_INDEX]));
	if (tb[IBTICK_A_EV_PORT])
		out_u64("port", " port %" PRIu64, nla_get_u32(tb[IBTICK_A_EV_PORT]));
	if (tb[IBTICK_A_EV_SOCK_ID])
		out_u64("sock", " sock %" PRIu64, nla_get_u64(tb[IBTICK_A_EV_SOCK_ID]));
	if (tb[IBTICK_A_EV_PID])
		out_u64("pid", " pid %" PRIu64, nla_get_u32(tb[IBTICK_A_EV_PID]));
	if (tb[IBTICK_A_EV_ERRNO]) {
		int e = (int)nla_get_u32(tb[IBTICK_A_EV_ERRNO]);

		out_u64("errno", " errno %" PRIu64, (uint64_t)e);
		out_str("error", " (%s)", strerror(e));
	}
	if (tb[IBTICK_A_EV_IB_EVENT])
		out_u64("ib_event", " ib_event %" PRIu64,
			nla_get_u32(tb[IBTICK_A_EV_IB_EVENT]));
	if (tb[IBTICK_A_EV_COUNT])
		out_u64("count", " count %" PRIu64, nla_get_u64(tb[IBTICK_A_EV_COUNT]));
	if (tb[IBTICK_A_EV_TOTAL])
		out_u64("total", " total %" PRIu64, nla_get_u64(tb[IBTICK_A_EV_TOTAL]));
	if (tb[IBTICK_A_EV_UNACKED])
		out_u64("unacked", " unacked %" PRIu64, nla_get_u64(tb[IBTICK_A_EV_UNACKED]));
	out_obj_close();
	out_nl();
	out_finish();
	fflush(stdout);
	return NL_OK;
}

/* Join the ibtick family's multicast group @name; a libnl error code. */
static int join_group(struct ibt_nl *nl, const char *name)
{
	int grp, err;

	grp = genl_ctrl_resolve_grp(nl->sk, IBTICK_GENL_NAME, name);
	if (grp < 0) {
		fprintf(stderr, "ibtick: the module has no \"%s\" group (too old?)\n",
			name);
		return grp;
	}
	err = nl_socket_add_membership(nl->sk, grp);
	if (err < 0 && err != -NLE_PERM)
		fprintf(stderr, "ibtick: join %s group: %s\n", name, nl_geterror(err));
	return err < 0 ? err : 0;
}

int cmd_monitor(struct cli *c)
{
	struct mon m = { .cats = CAT_ALL, .json = c->json };
	const char *what = cli_next(c);
	struct sigaction sa;
	struct ibt_nl nl;
	int err, fd;

	if (what) {
		if (cli_matches(what, "help")) {
			monitor_usage();
			return EXIT_OK;
		}
		if (cli_matches(what, "all"))
			m.cats = CAT_ALL;
		else if (cli_matches(what, "dev"))
			m.cats = CAT_DEV;
		else if (cli_matches(what, "feed"))
			m.cats = CAT_FEED;
		else if (cli_matches(what, "sock"))
			m.cats = CAT_SOCK;
		else if (cli_matches(what, "conn"))
			m.cats = CAT_CONN;
		else {
			fprintf(stderr, "ibtick: unknown monitor object \"%s\"\n", what);
			monitor_usage();
			return EXIT_USAGE;
		}
	}
	if (c->argc) {
		fprintf(stderr, "ibtick: unexpected argument \"%s\"\n", c->argv[0]);
		monitor_usage();
		return EXIT_USAGE;
	}
	err = ibt_nl_open(&nl);
	if (err)
		return err;
	nl_socket_disable_seq_check(nl.sk);
	nl_socket_modify_cb(nl.sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &m);
	if (m.cats & (CAT_DEV | CAT_FEED)) {
		err = join_group(&nl, IBTICK_MCGRP_EVENTS);
		if (err)
			goto fail;
	}
	if (m.cats & (CAT_SOCK | CAT_CONN)) {
		/* other users' sockets: CAP_NET_ADMIN only, said once */
		err = join_group(&nl, IBTICK_MCGRP_SOCK_EVENTS);
		if (err == -NLE_PERM)
			fprintf(stderr, "ibtick: socket and connection events need CAP_NET_ADMIN: not shown\n");
		else if (err)
			goto fail;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: leave the receive */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* libnl restarts a receive a signal interrupts: wait in poll() */
	fd = nl_socket_get_fd(nl.sk);
	nl_socket_set_nonblocking(nl.sk);
	/* subscribed: from here on no event is missed; say so */
	if (c->json) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		out_init(stdout, OUT_JSON);
		out_obj_open(NULL);
		out_u64("time_ns", NULL, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
		out_str("event", "%s", "ready");
		out_obj_close();
		out_nl();
		out_finish();
	} else {
		printf("ibtick monitor: listening (Ctrl-C to stop)\n");
	}
	fflush(stdout);
	while (!stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (poll(&pfd, 1, 250) <= 0)
			continue;
		err = nl_recvmsgs_default(nl.sk);
		if (err == -NLE_AGAIN)
			continue;
		if (err < 0 && err != -NLE_INTR && !stop) {
			if (err == -NLE_NOMEM) {
				/* the socket buffer overflowed: say so, go on */
				fprintf(stderr, "ibtick: monitor: events were lost (receive buffer overrun)\n");
				continue;
			}
			fprintf(stderr, "ibtick: monitor: %s\n", nl_geterror(err));
			break;
		}
	}
	ibt_nl_close(&nl);
	out_init(stdout, OUT_TEXT);	/* nothing left for main's out_finish */
	return stop ? EXIT_OK : EXIT_FAIL;
fail:
	ibt_nl_close(&nl);
	return EXIT_FAIL;
}
