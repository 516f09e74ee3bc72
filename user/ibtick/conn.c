// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick conn: every connection (SOCK_SEQPACKET socket) on the host, as
 * ss(8) shows TCP's: state, addresses, queue pairs, credits; with -s the
 * counters.
 *
 *   ibtick [-j] [-s] conn show [ pid N ]
 *   ibtick conn rule ...	(rule.c: who may listen on which ports)
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#include "ibtick.h"
#include "nl.h"
#include "out.h"

static struct nla_policy conn_reply_policy[IBTICK_A_CONN_MAX + 1];

static const char *const conn_ctr_keys[IBTICK_A_CONN_MAX + 1] = {
	[IBTICK_A_CONN_TX_MSGS]		= "tx_msgs",
	[IBTICK_A_CONN_TX_BYTES]	= "tx_bytes",
	[IBTICK_A_CONN_RX_MSGS]		= "rx_msgs",
	[IBTICK_A_CONN_RX_BYTES]	= "rx_bytes",
	[IBTICK_A_CONN_RX_READ]		= "rx_read",
	[IBTICK_A_CONN_TX_CREDIT_WAITS]	= "tx_credit_waits",
	[IBTICK_A_CONN_CTL_TX]		= "ctl_tx",
	[IBTICK_A_CONN_CTL_RX]		= "ctl_rx",
	[IBTICK_A_CONN_TX_UNACKED]	= "tx_unacked",
	[IBTICK_A_CONN_CQ_ERRORS]	= "cq_errors",
	[IBTICK_A_CONN_CQ_EVENTS]	= "cq_events",
	[IBTICK_A_CONN_CQE_IRQ]		= "cqe_irq",
	[IBTICK_A_CONN_CQE_CALLER]	= "cqe_caller",
	[IBTICK_A_CONN_IRQ_POLLS]	= "irq_polls",
};

/* a listener's (printed with its backlog) */
static const char *const conn_listen_ctr_keys[IBTICK_A_CONN_MAX + 1] = {
	[IBTICK_A_CONN_REFUSED_USER_MAX] = "refused_user_max",
};

static const char *const conn_attr_names[IBTICK_A_CONN_MAX + 1] = {
	[IBTICK_A_CONN_PID]	= "pid",
};

const struct ibt_nl_obj conn_obj = {
	.maxattr	= IBTICK_A_CONN_MAX,
	.policy		= conn_reply_policy,
	.attr_names	= conn_attr_names,
	.n_names	= IBTICK_A_CONN_MAX + 1,
};

static __attribute__((constructor)) void conn_policy_init(void)
{
	unsigned int i;

	for (i = IBTICK_A_CONN_PID; i <= IBTICK_A_CONN_INLINE_MAX; i++)
		conn_reply_policy[i].type = NLA_U32;
	for (i = IBTICK_A_CONN_TX_MSGS; i <= IBTICK_A_CONN_MAX; i++)
		conn_reply_policy[i].type = NLA_U64;
	conn_reply_policy[IBTICK_A_CONN_ID].type = NLA_U64;
	conn_reply_policy[IBTICK_A_CONN_INODE].type = NLA_U64;
	conn_reply_policy[IBTICK_A_CONN_LOCAL_PORT].type = NLA_U16;
	conn_reply_policy[IBTICK_A_CONN_PEER_PORT].type = NLA_U16;
	conn_reply_policy[IBTICK_A_CONN_DEV_NAME].type = NLA_STRING;
}

static void conn_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick conn show [ pid PID ]\n"
		"       ibtick conn rule { add | del | show | save } ...\n"
		"       ibtick conn help\n");
}

static uint64_t get(struct nlattr **tb, int a)
{
	if (!tb[a])
		return 0;
	switch (conn_reply_policy[a].type) {
	case NLA_U16:
		return nla_get_u16(tb[a]);
	case NLA_U32:
		return nla_get_u32(tb[a]);
	default:
		return nla_get_u64(tb[a]);
	}
}

static const char *conn_state(uint64_t s)
{
	static const char *const names[] = {
		[IBTICK_CONN_NEW]		= "new",
		[IBTICK_CONN_LISTEN]		= "listen",
		[IBTICK_CONN_CONNECTING]	= "connecting",
		[IBTICK_CONN_ESTABLISHED]	= "established",
		[IBTICK_CONN_PEER_CLOSED]	= "peer-closed",
		[IBTICK_CONN_FAILED]		= "failed",
		[IBTICK_CONN_CLOSED]		= "closed",
	};

	return s < sizeof(names) / sizeof(names[0]) && names[s] ? names[s] : "unknown";
}

/* "a.b.c.d:port" of attributes @addr, @port. */
static const char *endpoint(struct nlattr **tb, int addr, int port, char *buf,
			    size_t len)
{
	char ip[INET_ADDRSTRLEN] = "0.0.0.0";
	uint32_t a;

	if (tb[addr]) {
		a = nla_get_u32(tb[addr]);	/* network byte order */
		inet_ntop(AF_INET, &a, ip, sizeof(ip));
	}
	snprintf(buf, len, "%s:%" PRIu64, ip, get(tb, port));
	return buf;
}

int conn_print(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	const struct conn_rows *rows = arg;
	struct cli *c = rows->c;
	uint64_t state = get(tb, IBTICK_A_CONN_STATE);
	char buf[64];
	int i;

	(void)nlh;
	if (!tb[IBTICK_A_CONN_ID]) {
		fprintf(stderr, "ibtick: malformed connection in the kernel's reply\n");
		return -1;
	}
	out_obj_open(NULL);
	if (rows->as_sock)	/* beside the datagram sockets' rows */
		out_str("type", "%s ", "conn");
	out_u64("id", "%" PRIu64 ":", get(tb, IBTICK_A_CONN_ID));
	out_str("state", " %s", conn_state(state));
	out_str("local", " local %s", endpoint(tb, IBTICK_A_CONN_LOCAL_ADDR,
						IBTICK_A_CONN_LOCAL_PORT, buf, sizeof(buf)));
	if (state != IBTICK_CONN_LISTEN && state != IBTICK_CONN_NEW)
		out_str("peer", " peer %s", endpoint(tb, IBTICK_A_CONN_PEER_ADDR,
						      IBTICK_A_CONN_PEER_PORT, buf,
						      sizeof(buf)));
	if (tb[IBTICK_A_CONN_DEV_NAME])
		out_str("dev", " dev %s", nla_get_string(tb[IBTICK_A_CONN_DEV_NAME]));
	out_u64("pid", " pid %" PRIu64, get(tb, IBTICK_A_CONN_PID));
	out_u64("uid", " uid %" PRIu64, get(tb, IBTICK_A_CONN_UID));
	if (c->details || c->json)
		out_u64("inode", " inode %" PRIu64, get(tb, IBTICK_A_CONN_INODE));
	if (state == IBTICK_CONN_LISTEN) {
		out_u64("backlog", " backlog %" PRIu64, get(tb, IBTICK_A_CONN_BACKLOG));
		out_u64("pending_accept", " pending %" PRIu64,
			get(tb, IBTICK_A_CONN_PENDING_ACCEPT));
	} else if (state != IBTICK_CONN_NEW) {
		out_u64("qpn", " qpn %" PRIu64, get(tb, IBTICK_A_CONN_QPN));
		out_u64("peer_qpn", " peer_qpn %" PRIu64, get(tb, IBTICK_A_CONN_PEER_QPN));
		out_u64("credits", " credits %" PRIu64, get(tb, IBTICK_A_CONN_CREDITS));
		out_u64("peer_credits", "/%" PRIu64, get(tb, IBTICK_A_CONN_PEER_CREDITS));
		out_u64("nslots", " slots %" PRIu64, get(tb, IBTICK_A_CONN_NSLOTS));
		out_u64("msg_max", " msg_max %" PRIu64, get(tb, IBTICK_A_CONN_MSG_MAX));
		if (c->details || c->json) {
			out_u64("local_msg_max", " local_msg_max %" PRIu64,
				get(tb, IBTICK_A_CONN_LOCAL_MSG_MAX));
			out_u64("pending_grants", " pending_grants %" PRIu64,
				get(tb, IBTICK_A_CONN_PENDING_GRANTS));
			out_u64("inline_max", " inline_max %" PRIu64,
				get(tb, IBTICK_A_CONN_INLINE_MAX));
		}
	}
	if (get(tb, IBTICK_A_CONN_ERROR) || c->json)
		out_str("error", " error %s", get(tb, IBTICK_A_CONN_ERROR) ?
			strerror((int)get(tb, IBTICK_A_CONN_ERROR)) : "");
	if (c->stats || c->json) {
		out_obj_open("stats");
		out_text("\n   ");
		for (i = 0; i <= IBTICK_A_CONN_MAX; i++) {
			if (conn_ctr_keys[i])
				out_counter(conn_ctr_keys[i], get(tb, i));
			else if (conn_listen_ctr_keys[i] &&
				 state == IBTICK_CONN_LISTEN)
				out_counter(conn_listen_ctr_keys[i], get(tb, i));
		}
		out_obj_close();
	}
	out_obj_close();
	out_nl();
	return 0;
}

static int conn_show(struct cli *c)
{
	struct conn_rows rows = { .c = c };
	struct ibt_nl_req req = {
		.obj = &conn_obj, .cmd = IBTICK_CMD_CONN_GET, .flags = NLM_F_DUMP,
		.cb = conn_print, .arg = &rows, .array = true,
	};
	struct ibt_nl nl;
	uint32_t pid = 0;
	bool have_pid = false;
	const struct cli_filter filters[] = {
		{ "pid", NULL, &pid, &have_pid },
		{ NULL }
	};
	int ret;

	ret = cli_filters(c, filters, "conn show", conn_usage);
	if (ret)
		return ret;
	req.attrs = ibt_nl_attrs();
	if (!req.attrs)
		return EXIT_FAIL;
	ret = ibt_nl_open(&nl);
	if (ret)
		goto out;
	if (have_pid)
		nla_put_u32(req.attrs, IBTICK_A_CONN_PID, pid);
	ret = ibt_nl_call(&nl, &req);
	ibt_nl_close(&nl);
out:
	nlmsg_free(req.attrs);
	return ret;
}

static const struct cli_cmd conn_cmds[] = {
	{ "show",	conn_show },
	{ "list",	conn_show },
	{ "rule",	cmd_conn_rule },
	{ NULL }
};

int cmd_conn(struct cli *c)
{
	return cli_dispatch(c, conn_cmds, "conn", conn_usage);
}
