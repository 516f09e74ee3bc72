// SPDX-License-Identifier: GPL-2.0
/*
 * A fake kernel under the CLI's netlink layer, for the fuzz targets.
 *
 * user/ibtick/nl.c is compiled unmodified except that four libnl entry
 * points it calls are renamed to the fuzz_* functions below (run.sh passes
 * -Dnl_socket_alloc=fuzz_nl_socket_alloc -Dgenl_connect=fuzz_genl_connect
 * -Dgenl_ctrl_resolve=fuzz_genl_ctrl_resolve -Dnl_cb_alloc=fuzz_nl_cb_alloc
 * when compiling nl.c, and only nl.c):
 *
 *  - fuzz_nl_socket_alloc: a real libnl socket, never connected, whose send
 *    is overridden (nl_cb_overwrite_send) by fake_send(): it checks the
 *    request the CLI built (a well-formed IBTICK_CMD_DEV_GET, at most a
 *    NUL-terminated DEV_NAME) and remembers its sequence number;
 *  - fuzz_genl_connect / fuzz_genl_ctrl_resolve: succeed (family FAMILY)
 *    or fail as the test asks ("module not loaded");
 *  - fuzz_nl_cb_alloc: a real callback set (the one ibt_nl_call()
 *    installs its handlers in) whose receive is overridden
 *    (nl_cb_overwrite_recv) by fake_recv(), which hands out datagrams built
 *    from a script.  Everything after that - libnl's message walk,
 *    sequence check and dispatch, nl.c's on_valid/on_error/on_done and
 *    retry loop, genlmsg_parse against dev.c's policy, dev.c's printing -
 *    is the real code.
 *
 * The script is a sequence of datagrams, each
 *
 *	ctl (1 byte), len (2 bytes, little-endian), len bytes
 *
 * with ctl & 7 the kind:
 *
 *	0 RAW	the bytes are the datagram, headers and all (len 0: recv 0)
 *	1 REPLY	nlmsghdr (type FAMILY) + genlmsghdr (DEV_GET, version 1) +
 *		the bytes as attributes
 *	2 DONE	NLMSG_DONE with an int 0, then the bytes
 *	3 ERROR	NLMSG_ERROR, the bytes are struct nlmsgerr and what follows
 *	4 ACK	NLMSG_ERROR 0 echoing the request's header (bytes ignored)
 *	5 RFAIL	the receive fails with -(1 + bytes[0] % 32) (an NLE_ code)
 *	6 PAIR	a REPLY and a DONE in one datagram
 *	7 SFAIL	consumed by the next send instead, which then fails
 *
 * and flags: 0x08 NLM_F_MULTI (REPLY, PAIR), 0x10 NLM_F_DUMP_INTR (REPLY,
 * DONE, PAIR), 0x20 a sequence number one off, 0x40 NLM_F_ACK_TLVS and
 * 0x80 NLM_F_CAPPED (ERROR), 0x40 encoded attributes (REPLY, PAIR: below).
 * The headers' nlmsg_len, nlmsg_seq (the last request's, unless 0x20) and
 * nlmsg_pid are filled in.  When the script runs out, the receive fails
 * (-NLE_AGAIN): a real socket would block.
 *
 * Encoded attributes spare the fuzzer the lengths: a byte T < 0x80 is an
 * attribute of type T whose length byte L and L bytes of data follow;
 * 0x80 | T opens a nest of type T (NLA_F_NESTED); 0xff closes the innermost
 * open nest; nests still open at the end are closed.  nla_len, the nests'
 * lengths and the padding are computed, so shortening or dropping an
 * attribute is a one-byte change.
 *
 * Datagrams are handed to libnl in exact-size allocations, and libnl's
 * nlmsg_convert() copies each message into one of NLMSG_ALIGN(nlmsg_len)
 * bytes: ASan sees a read past the end of a reply.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include <linux/ibtick_netlink.h>

#include "nl_stub.h"

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED	0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS	0x200
#endif

#define FAMILY		0x1d	/* any id >= NLMSG_MIN_TYPE */

enum { K_RAW, K_REPLY, K_DONE, K_ERROR, K_ACK, K_RFAIL, K_PAIR, K_SFAIL };
#define F_MULTI		0x08
#define F_INTR		0x10
#define F_BADSEQ	0x20
#define F_TLVS		0x40
#define F_CAPPED	0x80
#define F_ENC		0x40	/* REPLY, PAIR */
#define ENC_NEST	0x80
#define ENC_CLOSE	0xff
#define ENC_DEPTH	16

struct nl_sock *fuzz_nl_socket_alloc(void);
int fuzz_genl_connect(struct nl_sock *sk);
int fuzz_genl_ctrl_resolve(struct nl_sock *sk, const char *name);
struct nl_cb *fuzz_nl_cb_alloc(enum nl_cb_kind kind);

static struct {
	unsigned int		open_mode;
	const uint8_t		*p;	/* the rest of the script */
	size_t			n;
	struct nlmsghdr		req;	/* header of the last request sent */
	bool			sent;
} st;

/* To fd 2: the targets point the FILE *stderr at /dev/null. */
static void __attribute__((noreturn)) stub_fail(const char *what)
{
	dprintf(STDERR_FILENO, "nl_stub: %s\n", what);
	abort();
}

void nl_stub_reset(unsigned int open_mode, const uint8_t *script, size_t len)
{
	st.open_mode = open_mode;
	st.p = script;
	st.n = len;
	st.sent = false;
	memset(&st.req, 0, sizeof(st.req));
}

/* ---- the socket --------------------------------------------------------- */

static int fake_send(struct nl_sock *sk, struct nl_msg *msg)
{
	static struct nla_policy req_policy[IBTICK_A_DEV_MAX + 1] = {
		[IBTICK_A_DEV_INDEX]	= { .type = NLA_U32 },
		[IBTICK_A_DEV_NAME]	= { .type = NLA_STRING },
	};
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[IBTICK_A_DEV_MAX + 1];
	struct genlmsghdr *g;
	int i;

	(void)sk;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    nlh->nlmsg_type != FAMILY || !(nlh->nlmsg_flags & NLM_F_REQUEST))
		stub_fail("the CLI sent a malformed request header");
	g = nlmsg_data(nlh);
	/* any request the CLI has a command for; EVENT is kernel-to-user only */
	if (g->version != IBTICK_GENL_VERSION ||
	    g->cmd < IBTICK_CMD_DEV_GET || g->cmd > IBTICK_CMD_MAX ||
	    g->cmd == IBTICK_CMD_EVENT)
		stub_fail("the CLI sent an unexpected command");
	if (g->cmd != IBTICK_CMD_DEV_GET) {
		/*
		 * feed, sock, conn and rule requests: well-formed attributes is
		 * all the stub checks; the scripted replies (device-shaped bytes)
		 * then exercise the feed, socket and rule reply parsers with odd
		 * input
		 */
		struct nlattr *any[64];

		if (genlmsg_parse(nlh, 0, any, 63, NULL) < 0)
			stub_fail("the CLI sent malformed attributes");
		goto sent;
	}
	if (genlmsg_parse(nlh, 0, tb, IBTICK_A_DEV_MAX, req_policy) < 0)
		stub_fail("the CLI sent malformed attributes");
	for (i = 0; i <= IBTICK_A_DEV_MAX; i++)
		if (tb[i] && i != IBTICK_A_DEV_NAME)
			stub_fail("the CLI sent an unexpected attribute");
	if (tb[IBTICK_A_DEV_NAME] && (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP)
		stub_fail("the CLI sent a dump that names a device");
	if (!tb[IBTICK_A_DEV_NAME] && (nlh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
		stub_fail("the CLI sent a doit without a device");
sent:
	st.req = *nlh;
	st.sent = true;
	/* a send failure scripted next */
	if (st.n >= 3 && (st.p[0] & 7) == K_SFAIL) {
		size_t len = st.p[1] | (size_t)st.p[2] << 8;

		len = len < st.n - 3 ? len : st.n - 3;
		st.p += 3 + len;
		st.n -= 3 + len;
		return -NLE_NOMEM;
	}
	return (int)nlh->nlmsg_len;
}

struct nl_sock *fuzz_nl_socket_alloc(void)
{
	struct nl_sock *sk;
	struct nl_cb *cb;

	if (st.open_mode == STUB_NOMEM)
		return NULL;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return NULL;
	nl_cb_overwrite_send(cb, fake_send);
	sk = nl_socket_alloc_cb(cb);	/* takes its own reference */
	nl_cb_put(cb);
	return sk;
}

int fuzz_genl_connect(struct nl_sock *sk)
{
	(void)sk;
	return st.open_mode == STUB_NOCONNECT ? -NLE_PERM : 0;
}

int fuzz_genl_ctrl_resolve(struct nl_sock *sk, const char *name)
{
	(void)sk;
	if (strcmp(name, IBTICK_GENL_NAME))
		stub_fail("the CLI resolved another family");
	return st.open_mode == STUB_NOFAMILY ? -NLE_OBJ_NOTFOUND : FAMILY;
}

/* ---- the replies -------------------------------------------------------- */

struct dgram {
	uint8_t		*b;
	size_t		n, cap;
};

static void dg_put(struct dgram *d, const void *p, size_t n)
{
	if (d->n + n + 4 > d->cap) {
		d->cap = (d->n + n + 4) * 2;
		d->b = realloc(d->b, d->cap);
		if (!d->b)
			abort();
	}
	if (n)
		memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void dg_align(struct dgram *d)
{
	static const uint8_t zero[4];

	dg_put(d, zero, NLMSG_ALIGN(d->n) - d->n);
}

/* One message: header, @pre (a fixed part), then @body. */
static void dg_msg(struct dgram *d, struct nl_sock *sk, uint16_t type,
		   uint16_t flags, bool badseq, const void *pre, size_t plen,
		   const void *body, size_t blen)
{
	struct nlmsghdr h = {
		.nlmsg_len	= (uint32_t)(NLMSG_HDRLEN + plen + blen),
		.nlmsg_type	= type,
		.nlmsg_flags	= flags,
		.nlmsg_seq	= st.req.nlmsg_seq + (badseq ? 1 : 0),
		.nlmsg_pid	= nl_socket_get_local_port(sk),
	};

	dg_align(d);
	dg_put(d, &h, sizeof(h));
	dg_put(d, pre, plen);
	dg_put(d, body, blen);
}

/* Encoded attributes (see the top) to netlink attributes. */
static void decode_attrs(struct dgram *d, const uint8_t *p, size_t n)
{
	size_t open[ENC_DEPTH];
	int depth = 0;
	struct nlattr a;
	uint16_t len;

	while (n || depth) {
		uint8_t t = n ? *p : ENC_CLOSE;

		if (n) {
			p++;
			n--;
		}
		if (t == ENC_CLOSE || (t & ENC_NEST && depth == ENC_DEPTH)) {
			if (!depth)
				continue;
			depth--;
			len = (uint16_t)(d->n - open[depth]);
			memcpy(d->b + open[depth], &len, sizeof(len));
		} else if (t & ENC_NEST) {
			open[depth++] = d->n;
			a.nla_len = NLA_HDRLEN;
			a.nla_type = (uint16_t)((t & ~ENC_NEST) | NLA_F_NESTED);
			dg_put(d, &a, sizeof(a));
		} else {
			size_t l = n ? *p : 0;

			if (n) {
				p++;
				n--;
			}
			l = l < n ? l : n;
			a.nla_len = (uint16_t)(NLA_HDRLEN + l);
			a.nla_type = t;
			dg_put(d, &a, sizeof(a));
			dg_put(d, p, l);
			dg_align(d);
			p += l;
			n -= l;
		}
	}
}

static int fake_recv(struct nl_sock *sk, struct sockaddr_nl *nla,
		     unsigned char **buf, struct ucred **creds)
{
	struct genlmsghdr g = { .cmd = IBTICK_CMD_DEV_GET,
				.version = IBTICK_GENL_VERSION };
	struct dgram d = { 0 }, attrs = { 0 };
	const uint8_t *body;
	size_t blen;
	uint8_t ctl;
	int zero = 0;

	(void)creds;
	for (;;) {
		if (st.n < 3)
			return -NLE_AGAIN;
		ctl = st.p[0];
		blen = st.p[1] | (size_t)st.p[2] << 8;
		blen = blen < st.n - 3 ? blen : st.n - 3;
		body = st.p + 3;
		st.p += 3 + blen;
		st.n -= 3 + blen;
		if ((ctl & 7) != K_SFAIL)	/* only sends consume these */
			break;
	}
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;	/* from the kernel: port 0 */

	switch (ctl & 7) {
	case K_RAW:
		dg_put(&d, body, blen);
		break;
	case K_REPLY:
	case K_PAIR:
		if (ctl & F_ENC) {
			decode_attrs(&attrs, body, blen);
			body = attrs.b;
			blen = attrs.n;
		}
		dg_msg(&d, sk, FAMILY,
		       (ctl & F_MULTI ? NLM_F_MULTI : 0) |
		       (ctl & F_INTR ? NLM_F_DUMP_INTR : 0),
		       ctl & F_BADSEQ, &g, sizeof(g), body, blen);
		if ((ctl & 7) == K_PAIR)
			dg_msg(&d, sk, NLMSG_DONE, NLM_F_MULTI |
			       (ctl & F_INTR ? NLM_F_DUMP_INTR : 0),
			       ctl & F_BADSEQ, &zero, sizeof(zero), NULL, 0);
		break;
	case K_DONE:
		dg_msg(&d, sk, NLMSG_DONE, NLM_F_MULTI |
		       (ctl & F_INTR ? NLM_F_DUMP_INTR : 0),
		       ctl & F_BADSEQ, &zero, sizeof(zero), body, blen);
		break;
	case K_ERROR:
		dg_msg(&d, sk, NLMSG_ERROR,
		       (ctl & F_TLVS ? NLM_F_ACK_TLVS : 0) |
		       (ctl & F_CAPPED ? NLM_F_CAPPED : 0),
		       ctl & F_BADSEQ, NULL, 0, body, blen);
		break;
	case K_ACK: {
		struct nlmsgerr e = { .error = 0, .msg = st.req };

		dg_msg(&d, sk, NLMSG_ERROR, NLM_F_CAPPED, ctl & F_BADSEQ,
		       &e, sizeof(e), NULL, 0);
		break;
	}
	case K_RFAIL:
		return -(1 + (blen ? body[0] % 32 : 0));
	}
	free(attrs.b);
	if (!d.n) {
		free(d.b);
		return 0;	/* an empty datagram: libnl reads again */
	}
	/* exactly as long as the datagram, for ASan */
	*buf = malloc(d.n);
	if (!*buf)
		abort();
	memcpy(*buf, d.b, d.n);
	free(d.b);
	return (int)d.n;
}

struct nl_cb *fuzz_nl_cb_alloc(enum nl_cb_kind kind)
{
	struct nl_cb *cb = nl_cb_alloc(kind);

	if (cb)
		nl_cb_overwrite_recv(cb, fake_recv);
	return cb;
}

/* ---- canned scripts (the CLI target's kernel; seeds) -------------------- */

struct abuf {
	uint8_t		*p;
	size_t		n, cap;
	bool		over;
	bool		enc;	/* attributes encoded (see the top) */
};

static void ab_raw(struct abuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->over = true;
		return;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void ab_attr(struct abuf *b, uint16_t type, const void *p, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n),
			    .nla_type = type };
	static const uint8_t zero[4];
	uint8_t e[2] = { (uint8_t)type, (uint8_t)n };

	if (b->enc) {
		ab_raw(b, e, 2);
		ab_raw(b, p, n);
		return;
	}
	ab_raw(b, &a, sizeof(a));
	ab_raw(b, p, n);
	ab_raw(b, zero, NLA_ALIGN(n) - n);
}

static void ab_u8(struct abuf *b, uint16_t t, uint8_t v) { ab_attr(b, t, &v, 1); }
static void ab_u32(struct abuf *b, uint16_t t, uint32_t v) { ab_attr(b, t, &v, 4); }
static void ab_u64(struct abuf *b, uint16_t t, uint64_t v) { ab_attr(b, t, &v, 8); }
static void ab_str(struct abuf *b, uint16_t t, const char *s)
{
	ab_attr(b, t, s, strlen(s) + 1);
}

static size_t ab_nest(struct abuf *b, uint16_t type)
{
	size_t at = b->n;
	uint8_t e = (uint8_t)(ENC_NEST | type);

	if (b->enc)
		ab_raw(b, &e, 1);
	else
		ab_attr(b, type | NLA_F_NESTED, NULL, 0);
	return at;
}

static void ab_nest_end(struct abuf *b, size_t at)
{
	uint16_t len = (uint16_t)(b->n - at);
	uint8_t e = ENC_CLOSE;

	if (b->enc)
		ab_raw(b, &e, 1);
	else if (!b->over)
		memcpy(b->p + at, &len, sizeof(len));
}

/* The attributes of a DEV_GET reply: 0 an IB HCA, 1 a RoCE device. */
static void ab_dev(struct abuf *b, int which)
{
	static const uint8_t gid[2][16] = {
		{ 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1 },
	};
	size_t port, ev;
	uint32_t p;

	ab_u32(b, IBTICK_A_DEV_INDEX, (uint32_t)which);
	ab_str(b, IBTICK_A_DEV_NAME, which ? "rxe0" : "mlx5_0");
	ab_u64(b, IBTICK_A_DEV_NODE_GUID, 0x505400fffe123456ULL + (uint64_t)which);
	ab_u64(b, IBTICK_A_DEV_SYS_IMAGE_GUID, 0x505400fffe123456ULL);
	ab_str(b, IBTICK_A_DEV_FW_VER, which ? "" : "16.35.2000");
	ab_u8(b, IBTICK_A_DEV_NODE_TYPE, which ? IBTICK_NODE_RNIC : IBTICK_NODE_CA);
	ab_u32(b, IBTICK_A_DEV_NUM_PORTS, which ? 1 : 2);
	for (p = 1; p <= (which ? 1u : 2u); p++) {
		port = ab_nest(b, IBTICK_A_DEV_PORT);
		ab_u32(b, IBTICK_A_PORT_NUM, p);
		ab_u8(b, IBTICK_A_PORT_STATE, p == 1 ? IBTICK_PORT_ACTIVE : IBTICK_PORT_DOWN);
		ab_u8(b, IBTICK_A_PORT_PHYS_STATE, p == 1 ? IBTICK_PHYS_LINK_UP : IBTICK_PHYS_POLLING);
		ab_u8(b, IBTICK_A_PORT_LINK_LAYER, which ? IBTICK_LINK_LAYER_ETHERNET :
						      IBTICK_LINK_LAYER_INFINIBAND);
		ab_u32(b, IBTICK_A_PORT_ACTIVE_MTU, which ? 1024 : 4096);
		ab_u32(b, IBTICK_A_PORT_MAX_MTU, 4096);
		ab_u8(b, IBTICK_A_PORT_WIDTH, which ? 1 : 4);
		ab_u32(b, IBTICK_A_PORT_SPEED, which ? 2500 : 25781);
		ab_u32(b, IBTICK_A_PORT_RATE, which ? 2500 : 103125);
		if (!which)
			ab_attr(b, IBTICK_A_PORT_GID0, gid[which], 16);
		if (!which) {
			ab_u32(b, IBTICK_A_PORT_LID, 3 + p);
			ab_u32(b, IBTICK_A_PORT_SM_LID, 1);
			ab_u8(b, IBTICK_A_PORT_LMC, 0);
		}
		ab_u32(b, IBTICK_A_PORT_NETDEV_IFINDEX, 4 + p);
		ab_str(b, IBTICK_A_PORT_NETDEV_NAME, which ? "veth0" : p == 1 ? "ib0" : "ib1");
		ev = ab_nest(b, IBTICK_A_PORT_EVENTS);
		ab_u64(b, IBTICK_A_EVCNT_PORT_ACTIVE, 1);
		ab_u64(b, IBTICK_A_EVCNT_PORT_ERR, 0);
		ab_u64(b, IBTICK_A_EVCNT_LID_CHANGE, 2);
		ab_u64(b, IBTICK_A_EVCNT_PKEY_CHANGE, 0);
		ab_u64(b, IBTICK_A_EVCNT_SM_CHANGE, 1);
		ab_u64(b, IBTICK_A_EVCNT_CLIENT_REREG, 1);
		ab_u64(b, IBTICK_A_EVCNT_GID_CHANGE, 3);
		ab_nest_end(b, ev);
		if (which)	/* last: the order is the kernel's business */
			ab_attr(b, IBTICK_A_PORT_GID0, gid[which], 16);
		ab_nest_end(b, port);
	}
}

/* A script datagram whose body is what @fill appends. */
static void ab_chunk(struct abuf *b, uint8_t ctl, void (*fill)(struct abuf *, int),
		     int arg, const void *raw, size_t rlen)
{
	size_t at = b->n;
	uint16_t len;

	if (b->enc && ((ctl & 7) == K_REPLY || (ctl & 7) == K_PAIR))
		ctl |= F_ENC;
	ab_raw(b, &ctl, 1);
	ab_raw(b, "\0\0", 2);
	if (fill)
		fill(b, arg);
	else
		ab_raw(b, raw, rlen);
	len = (uint16_t)(b->n - at - 3);
	if (!b->over)
		memcpy(b->p + at + 1, &len, 2);
}

/*
 * struct nlmsgerr echoing a request that names "mlx5_0", then TLVs; with
 * @full (no NETLINK_CAP_ACK) the request's payload follows its header.
 */
static void ab_extack_req(struct abuf *b, int err, bool full)
{
	struct nlmsgerr e = { .error = -err };
	struct genlmsghdr g = { .cmd = IBTICK_CMD_DEV_GET,
				.version = IBTICK_GENL_VERSION };

	e.msg.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + 8;
	e.msg.nlmsg_type = FAMILY;
	e.msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	ab_raw(b, &e, sizeof(e));
	if (full) {
		ab_raw(b, &g, sizeof(g));
		ab_str(b, IBTICK_A_DEV_NAME, "mlx5_0");
	}
	ab_str(b, NLMSGERR_ATTR_MSG, "no RDMA device by that name");
	ab_u32(b, NLMSGERR_ATTR_OFFS, NLMSG_HDRLEN + GENL_HDRLEN);
}

static void ab_extack(struct abuf *b, int err)
{
	ab_extack_req(b, err, false);
}

static void ab_extack_full(struct abuf *b, int err)
{
	ab_extack_req(b, err, true);
}

/*
 * Canned scripts: 0 two devices then DONE; 1 an error with an extended
 * ACK (capped); 2 an interrupted dump, then a good one; 3 one device and
 * an ACK (a doit); 4 an error with an extended ACK echoing the whole
 * request (not capped); 5 nothing at all; with 0x10 added, the same with
 * encoded attributes.  Returns the length, 0 if @cap is too small.
 */
size_t nl_stub_canned(unsigned int which, uint8_t *out, size_t cap)
{
	struct abuf b = { .p = out, .cap = cap, .enc = which & 0x10 };

	switch (which & 0xf) {
	case 0:
		ab_chunk(&b, K_REPLY | F_MULTI, ab_dev, 0, NULL, 0);
		ab_chunk(&b, K_REPLY | F_MULTI, ab_dev, 1, NULL, 0);
		ab_chunk(&b, K_DONE, NULL, 0, NULL, 0);
		break;
	case 1:
		ab_chunk(&b, K_ERROR | F_TLVS | F_CAPPED, ab_extack, ENODEV, NULL, 0);
		break;
	case 2:
		ab_chunk(&b, K_REPLY | F_MULTI | F_INTR, ab_dev, 0, NULL, 0);
		ab_chunk(&b, K_DONE | F_INTR, NULL, 0, NULL, 0);
		ab_chunk(&b, K_REPLY | F_MULTI, ab_dev, 0, NULL, 0);
		ab_chunk(&b, K_PAIR | F_MULTI, ab_dev, 1, NULL, 0);
		break;
	case 3:
		ab_chunk(&b, K_REPLY, ab_dev, 1, NULL, 0);
		ab_chunk(&b, K_ACK, NULL, 0, NULL, 0);
		break;
	case 4:
		ab_chunk(&b, K_ERROR | F_TLVS, ab_extack_full, ENODEV, NULL, 0);
		break;
	default:
		break;
	}
	return b.over ? 0 : b.n;
}
