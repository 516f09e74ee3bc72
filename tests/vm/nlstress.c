// SPDX-License-Identifier: GPL-2.0
/*
 * nlstress: a seeded random-attribute stress generator for the "ibtick"
 * generic netlink family, run in the test guest with ibtick.ko loaded.
 *
 *   nlstress [-n REQUESTS] [-s SEED] [-u UID|USER] [-t SECONDS] [-j] [-v]
 *            [-f FAMILY]
 *
 *   -n REQUESTS  requests to send (default 5000)
 *   -s SEED      seed of the xorshift64* generator, printed at start
 *                (default: from the clock and the pid); the same seed and
 *                -n send the same requests
 *   -u UID       after opening the socket, drop to UID (a number or a user
 *                name: setgroups(0), setgid to its passwd group or to UID,
 *                setuid).  Every FEED_NEW, FEED_SET and FEED_DEL must then
 *                fail with EPERM, and the cleanup is skipped
 *   -t SECONDS   receive timeout (SO_RCVTIMEO) for each reply (default 5)
 *   -j           print the summary as one JSON object
 *   -v           one line per request on stderr
 *   -f FAMILY    self-test only: send the same requests to another genl
 *                family (use the read-only "nlctrl" on a host without the
 *                module); no privilege check, no cleanup
 *
 * Raw netlink sockets, no libnl.  The family id comes from the controller
 * (CTRL_CMD_GETFAMILY), NETLINK_EXT_ACK is on.  Each request has a random
 * command (0, every command, out-of-range ones), random flags (NLM_F_ACK,
 * NLM_F_DUMP or half of it, a few others), a random genl version and a
 * random mix of attributes: valid types with valid values, valid types with
 * out-of-range values (slots 0, 3 or huge, poll mode 7, mode 07777, names
 * too long, empty, with bad characters, not NUL-terminated, group 0.0.0.0
 * or unicast, ...), wrong lengths, unknown types, nests of garbage,
 * zero-length attributes, and last, sometimes, a truncated attribute header
 * or an nla_len past the end of the message.  Some requests are correct
 * (FEED_NEW of a 239.x.y.z group, FEED_SET, FEED_DEL, GETs and dumps) so
 * that some succeed.  Every feed name that the kernel could accept starts
 * with "nls".
 *
 * Every reply is read.  A dump is read up to its NLMSG_DONE or error; then
 * an NLMSG_NOOP with NLM_F_ACK is sent and everything up to its ACK belongs
 * to the request (a do request without NLM_F_ACK that succeeds has no
 * reply at all).  Counted: requests accepted (no error), errors per errno
 * and whether they carried an extack message, dump replies.
 *
 * Anomalies (each printed on stderr; exit 1): a reply that is neither an
 * error, an ACK, an NLMSG_DONE nor a message of the family; a receive
 * timeout; a truncated reply (datagram, message, error header, attributes);
 * also a reply with another request's sequence number, a second reply after
 * the final one, an ACK nobody asked for or none where NLM_F_ACK asked for
 * one, an error that is not 0 or -errno; unprivileged (-u, or no
 * CAP_NET_ADMIN): a FEED_NEW/SET/DEL accepted, or refused with anything but
 * EPERM (except what the genl core refuses before it checks CAP_NET_ADMIN:
 * a request too short for the genl header, with reserved bits or ambiguous
 * flags, or asking for a dump); a "nls*" feed left after the cleanup.
 *
 * Cleanup (privileged runs): dump the feeds, FEED_DEL every admin feed
 * whose name starts with "nls", dump again.
 *
 * Output: "nlstress: seed S, N requests, A accepted, E errors (X with
 * extack), D dump replies, C cleaned, K anomalies", an errno histogram line
 * and, unprivileged, how many FEED_NEW/SET/DEL were sent, refused with EPERM
 * and accepted; or with -j one JSON object (seed, requests, accepted, errors,
 * errors_with_extack, dump_replies, cleaned, anomalies, errno).  Exit 0, 1
 * on any anomaly, 2 on bad usage, a setup failure, or no family ("ibtick
 * family not found (module not loaded?)").
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK		11
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED		0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS		0x200
#endif
#ifndef NLM_F_DUMP_FILTERED
#define NLM_F_DUMP_FILTERED	0x20
#endif
#ifndef NLMSGERR_ATTR_MSG
#define NLMSGERR_ATTR_MSG	1
#endif

#define NAME_PREFIX	"nls"
#define PREFIX_LEN	(sizeof(NAME_PREFIX) - 1)
#define NAME_POOL	48		/* "nls00".."nls47": names requests share */
#define REQ_MAX		4096
#define REQ_ROOM	1024		/* no new top-level attribute below this */
#define RBUF_LEN	65536
#define MAX_DGRAMS	100000		/* datagrams read for one request */
#define ERRNO_MAX	4096
#define HEXDUMPS	16		/* anomalies printed with the request bytes */
#define MAX_DEPTH	2		/* nests inside nests */
#define TYPE_MAX	0x3fff		/* nla_type without the flag bits */

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))
#define PICK(a)		((a)[below(NELEM(a))])

/* ---- state --------------------------------------------------------------- */

struct req {
	unsigned char	buf[REQ_MAX] __attribute__((aligned(8)));
	size_t		len;		/* bytes so far; nlmsg_len at the end */
	uint8_t		cmd;
	uint8_t		version;
	uint16_t	flags;
	uint16_t	reserved;	/* genlmsghdr.reserved */
	bool		short_hdr;	/* shorter than the genl header */
	const char	*kind;		/* the builder */
};

/* What came back for one request. */
struct txn {
	uint32_t	seq;		/* the request's */
	uint32_t	sync_seq;	/* the NOOP's, 0 before it is sent */
	uint16_t	type;		/* the family's messages */
	bool		dump;		/* NLM_F_DUMP complete: dumpit or an error */
	bool		ack;		/* NLM_F_ACK */
	bool		finished;	/* its error, ACK or DONE arrived */
	bool		synced;		/* the NOOP's ACK arrived */
	bool		acked;
	bool		extack;		/* the error carried NLMSGERR_ATTR_MSG */
	int		err;		/* negative errno, or 0 */
	unsigned int	parts;		/* family messages */
	unsigned int	notes;		/* notifications (sequence 0) */
	unsigned int	intr;		/* with NLM_F_DUMP_INTR */
	char		msg[160];	/* the extack message */
	void		(*part)(struct txn *t, const unsigned char *p, size_t len);
	void		*arg;
};

static uint64_t rng;
static unsigned char rbuf[RBUF_LEN] __attribute__((aligned(8)));
static int family_id = -1;
static uint32_t nl_seq;
static unsigned int timeout_s = 5;
static bool verbose;
static unsigned long n_anom;
static long cur_idx = -1;		/* request number, -1 setup, -2 cleanup */
static const struct req *cur_req;

static unsigned long n_sent, n_accepted, n_errors, n_errors_ext, n_dump_parts;
static unsigned long n_mut, n_mut_eperm, n_mut_accepted;
static unsigned long errcount[ERRNO_MAX];

/* ---- the generator ------------------------------------------------------- */

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool pct(unsigned int p)
{
	return below(100) < p;
}

static void seed_rng(uint64_t seed)
{
	/* splitmix64 of the seed: neighbouring seeds, unrelated streams */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	rng = z ^ (z >> 31);
	if (!rng)
		rng = 0x9e3779b97f4a7c15ULL;
}

static void fill(void *p, size_t n)
{
	unsigned char *b = p;

	while (n--)
		*b++ = (unsigned char)rnd();
}

/* ---- anomalies ----------------------------------------------------------- */

static void where(char *b, size_t len)
{
	if (cur_idx >= 0)
		snprintf(b, len, "request #%ld", cur_idx);
	else
		snprintf(b, len, "%s", cur_idx == -1 ? "setup" : "cleanup");
}

static void hexdump(const struct req *q)
{
	size_t i;

	fprintf(stderr, "nlstress:   %s request, %zu bytes:", q->kind, q->len);
	for (i = 0; i < q->len; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", q->buf[i]);
	fputc('\n', stderr);
}

__attribute__((format(printf, 1, 2)))
static void anomaly(const char *fmt, ...)
{
	char w[48];
	va_list ap;

	n_anom++;
	where(w, sizeof(w));
	fprintf(stderr, "nlstress: anomaly (%s): ", w);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur_req && n_anom <= HEXDUMPS)
		hexdump(cur_req);
}

static const char *errname(int e)
{
	static char b[16];
	const char *s = e > 0 ? strerrorname_np(e) : NULL;

	if (s)
		return s;
	snprintf(b, sizeof(b), "E%d", e);
	return b;
}

static const char *cmdname(unsigned int cmd)
{
	static const char *const names[] = {
		[IBTICK_CMD_UNSPEC]	= "UNSPEC",
		[IBTICK_CMD_DEV_GET]	= "DEV_GET",
		[IBTICK_CMD_FEED_GET]	= "FEED_GET",
		[IBTICK_CMD_FEED_NEW]	= "FEED_NEW",
		[IBTICK_CMD_FEED_SET]	= "FEED_SET",
		[IBTICK_CMD_FEED_DEL]	= "FEED_DEL",
		[IBTICK_CMD_SOCK_GET]	= "SOCK_GET",
		[IBTICK_CMD_EVENT]	= "EVENT",
	};
	static char b[16];

	if (cmd < NELEM(names) && names[cmd])
		return names[cmd];
	snprintf(b, sizeof(b), "cmd%u", cmd);
	return b;
}

/* ---- building requests --------------------------------------------------- */

static bool room(const struct req *q, size_t n)
{
	return q->len + n <= sizeof(q->buf);
}

/* An attribute with any nla_len; the payload is padded to 4 bytes. */
static void put_raw(struct req *q, uint16_t type, uint16_t nla_len,
		    const void *data, size_t dlen)
{
	struct nlattr na = { .nla_len = nla_len, .nla_type = type };
	size_t total = NLA_ALIGN(NLA_HDRLEN + dlen);

	if (!room(q, total))
		return;
	memset(q->buf + q->len, 0, total);
	memcpy(q->buf + q->len, &na, sizeof(na));
	if (dlen)
		memcpy(q->buf + q->len + NLA_HDRLEN, data, dlen);
	q->len += total;
}

static void put(struct req *q, uint16_t type, const void *data, size_t dlen)
{
	put_raw(q, type, (uint16_t)(NLA_HDRLEN + dlen), data, dlen);
}

static void put_u8(struct req *q, uint16_t type, uint8_t v)
{
	put(q, type, &v, sizeof(v));
}

static void put_u16(struct req *q, uint16_t type, uint16_t v)
{
	put(q, type, &v, sizeof(v));
}

static void put_u32(struct req *q, uint16_t type, uint32_t v)
{
	put(q, type, &v, sizeof(v));
}

static void put_u64(struct req *q, uint16_t type, uint64_t v)
{
	put(q, type, &v, sizeof(v));
}

static void put_str(struct req *q, uint16_t type, const char *s)
{
	put(q, type, s, strlen(s) + 1);
}

static void put_random(struct req *q, uint16_t type, size_t dlen)
{
	unsigned char b[64];

	if (dlen > sizeof(b))
		dlen = sizeof(b);
	fill(b, dlen);
	put(q, type, b, dlen);
}

static size_t nest_begin(struct req *q, uint16_t type)
{
	size_t off = q->len;

	put_raw(q, type, NLA_HDRLEN, NULL, 0);
	return off;
}

static void nest_end(struct req *q, size_t off)
{
	struct nlattr na;

	if (q->len < off + NLA_HDRLEN)
		return;		/* the header did not fit */
	memcpy(&na, q->buf + off, sizeof(na));
	na.nla_len = (uint16_t)(q->len - off);
	memcpy(q->buf + off, &na, sizeof(na));
}

static void begin_req(struct req *q, const char *kind, uint8_t cmd,
		      uint16_t flags, uint8_t version, uint16_t reserved)
{
	struct genlmsghdr gh = {
		.cmd = cmd, .version = version, .reserved = reserved,
	};

	memset(q->buf, 0, NLMSG_HDRLEN);
	memcpy(q->buf + NLMSG_HDRLEN, &gh, sizeof(gh));
	q->len = NLMSG_HDRLEN + GENL_HDRLEN;
	q->cmd = cmd;
	q->version = version;
	q->flags = flags;
	q->reserved = reserved;
	q->short_hdr = false;
	q->kind = kind;
}

static void finish_req(struct req *q, uint16_t type, uint32_t seq)
{
	struct nlmsghdr nh = {
		.nlmsg_len = (uint32_t)q->len,
		.nlmsg_type = type,
		.nlmsg_flags = q->flags,
		.nlmsg_seq = seq,
		.nlmsg_pid = 0,
	};

	memcpy(q->buf, &nh, sizeof(nh));
}

/* ---- attribute tables ------------------------------------------------------ */

enum { K_PAD, K_U8, K_U16, K_U32, K_S32, K_U64, K_BE32, K_STR, K_BIN, K_NEST };

enum {
	S_ANY, S_FEED_NAME, S_DEV_NAME, S_GROUP, S_PORT, S_IFINDEX, S_SLOTS,
	S_SLOT_SIZE, S_POLL_MODE, S_POLL_CPU, S_COMP_VECTOR, S_LOOPBACK, S_ID,
	S_MODE, S_FEED_ID, S_DEV_INDEX, S_PID, S_BOOL, S_MEMBER,
};

enum { SP_DEV, SP_PORT, SP_EVCNT, SP_FEED, SP_FSTAT, SP_SOCK, SP_EV, NSPACE };

struct atype {
	uint8_t kind;
	uint8_t sem;
	uint8_t nest;		/* K_NEST: the space of what it holds */
};

#define T(k)		{ .kind = (k) }
#define TS(k, s)	{ .kind = (k), .sem = (s) }
#define TN(sp)		{ .kind = K_NEST, .nest = (sp) }

static const struct atype dev_attrs[IBTICK_A_DEV_MAX + 1] = {
	[IBTICK_A_DEV_PAD]		= T(K_PAD),
	[IBTICK_A_DEV_INDEX]		= TS(K_U32, S_DEV_INDEX),
	[IBTICK_A_DEV_NAME]		= TS(K_STR, S_DEV_NAME),
	[IBTICK_A_DEV_NODE_GUID]	= T(K_U64),
	[IBTICK_A_DEV_SYS_IMAGE_GUID]	= T(K_U64),
	[IBTICK_A_DEV_FW_VER]		= T(K_STR),
	[IBTICK_A_DEV_NODE_TYPE]	= T(K_U8),
	[IBTICK_A_DEV_NUM_PORTS]	= T(K_U32),
	[IBTICK_A_DEV_PORT]		= TN(SP_PORT),
};

static const struct atype port_attrs[IBTICK_A_PORT_MAX + 1] = {
	[IBTICK_A_PORT_PAD]		= T(K_PAD),
	[IBTICK_A_PORT_NUM]		= T(K_U32),
	[IBTICK_A_PORT_STATE]		= T(K_U8),
	[IBTICK_A_PORT_PHYS_STATE]	= T(K_U8),
	[IBTICK_A_PORT_LINK_LAYER]	= T(K_U8),
	[IBTICK_A_PORT_ACTIVE_MTU]	= T(K_U32),
	[IBTICK_A_PORT_MAX_MTU]		= T(K_U32),
	[IBTICK_A_PORT_WIDTH]		= T(K_U8),
	[IBTICK_A_PORT_SPEED]		= T(K_U32),
	[IBTICK_A_PORT_RATE]		= T(K_U32),
	[IBTICK_A_PORT_GID0]		= T(K_BIN),
	[IBTICK_A_PORT_LID]		= T(K_U32),
	[IBTICK_A_PORT_SM_LID]		= T(K_U32),
	[IBTICK_A_PORT_LMC]		= T(K_U8),
	[IBTICK_A_PORT_NETDEV_IFINDEX]	= TS(K_U32, S_IFINDEX),
	[IBTICK_A_PORT_NETDEV_NAME]	= TS(K_STR, S_DEV_NAME),
	[IBTICK_A_PORT_EVENTS]		= TN(SP_EVCNT),
};

static const struct atype evcnt_attrs[IBTICK_A_EVCNT_MAX + 1] = {
	[IBTICK_A_EVCNT_PAD]		= T(K_PAD),
	[IBTICK_A_EVCNT_PORT_ACTIVE ... IBTICK_A_EVCNT_MAX] = T(K_U64),
};

static const struct atype feed_attrs[IBTICK_A_FEED_MAX + 1] = {
	[IBTICK_A_FEED_PAD]		= T(K_PAD),
	[IBTICK_A_FEED_ID]		= TS(K_U32, S_FEED_ID),
	[IBTICK_A_FEED_NAME]		= TS(K_STR, S_FEED_NAME),
	[IBTICK_A_FEED_GROUP]		= TS(K_BE32, S_GROUP),
	[IBTICK_A_FEED_PORT]		= TS(K_U16, S_PORT),
	[IBTICK_A_FEED_IFINDEX]		= TS(K_U32, S_IFINDEX),
	[IBTICK_A_FEED_SLOTS]		= TS(K_U32, S_SLOTS),
	[IBTICK_A_FEED_SLOT_SIZE]	= TS(K_U32, S_SLOT_SIZE),
	[IBTICK_A_FEED_POLL_MODE]	= TS(K_U8, S_POLL_MODE),
	[IBTICK_A_FEED_POLL_CPU]	= TS(K_S32, S_POLL_CPU),
	[IBTICK_A_FEED_COMP_VECTOR]	= TS(K_U32, S_COMP_VECTOR),
	[IBTICK_A_FEED_LOOPBACK]	= TS(K_U8, S_LOOPBACK),
	[IBTICK_A_FEED_OWNER]		= TS(K_U32, S_ID),
	[IBTICK_A_FEED_OWNER_GROUP]	= TS(K_U32, S_ID),
	[IBTICK_A_FEED_MODE]		= TS(K_U16, S_MODE),
	[IBTICK_A_FEED_ADMIN]		= TS(K_U8, S_BOOL),
	[IBTICK_A_FEED_LIVE]		= TS(K_U8, S_BOOL),
	[IBTICK_A_FEED_DEV_INDEX]	= TS(K_U32, S_DEV_INDEX),
	[IBTICK_A_FEED_DEV_NAME]	= TS(K_STR, S_DEV_NAME),
	[IBTICK_A_FEED_DEV_PORT]	= T(K_U32),
	[IBTICK_A_FEED_NETDEV_NAME]	= TS(K_STR, S_DEV_NAME),
	[IBTICK_A_FEED_READERS]		= T(K_U32),
	[IBTICK_A_FEED_PUBLISHERS]	= T(K_U32),
	[IBTICK_A_FEED_SOCKETS]		= T(K_U32),
	[IBTICK_A_FEED_PRODUCER]	= T(K_U64),
	[IBTICK_A_FEED_WIRE_MAX]	= T(K_U32),
	[IBTICK_A_FEED_QPN]		= T(K_U32),
	[IBTICK_A_FEED_QKEY]		= T(K_U32),
	[IBTICK_A_FEED_MLID]		= T(K_U32),
	[IBTICK_A_FEED_MGID]		= T(K_BIN),
	[IBTICK_A_FEED_RING_BYTES]	= T(K_U64),
	[IBTICK_A_FEED_STATS]		= TN(SP_FSTAT),
	[IBTICK_A_FEED_MEMBERSHIP]	= TS(K_U8, S_MEMBER),
};

static const struct atype fstat_attrs[IBTICK_A_FSTAT_MAX + 1] = {
	[IBTICK_A_FSTAT_PAD]		= T(K_PAD),
	[IBTICK_A_FSTAT_RX_TICKS ... IBTICK_A_FSTAT_MAX] = T(K_U64),
};

static const struct atype sock_attrs[IBTICK_A_SOCK_MAX + 1] = {
	[IBTICK_A_SOCK_PAD]		= T(K_PAD),
	[IBTICK_A_SOCK_ID]		= T(K_U64),
	[IBTICK_A_SOCK_INODE]		= T(K_U64),
	[IBTICK_A_SOCK_PID]		= TS(K_U32, S_PID),
	[IBTICK_A_SOCK_UID]		= TS(K_U32, S_ID),
	[IBTICK_A_SOCK_FEED_ID]		= TS(K_U32, S_FEED_ID),
	[IBTICK_A_SOCK_FEED_NAME]	= TS(K_STR, S_FEED_NAME),
	[IBTICK_A_SOCK_FLAGS]		= T(K_U32),
	[IBTICK_A_SOCK_MAPPINGS]	= T(K_U32),
	[IBTICK_A_SOCK_CURSOR ... IBTICK_A_SOCK_TX_ERRORS] = T(K_U64),
	[IBTICK_A_SOCK_LOOPBACK]	= TS(K_U8, S_BOOL),
	[IBTICK_A_SOCK_LAPS]		= T(K_U64),
};

static const struct atype ev_attrs[IBTICK_A_EV_MAX + 1] = {
	[IBTICK_A_EV_PAD]		= T(K_PAD),
	[IBTICK_A_EV_TYPE]		= T(K_U8),
	[IBTICK_A_EV_TIME_NS]		= T(K_U64),
	[IBTICK_A_EV_DEV_INDEX]		= TS(K_U32, S_DEV_INDEX),
	[IBTICK_A_EV_DEV_NAME]		= TS(K_STR, S_DEV_NAME),
	[IBTICK_A_EV_PORT]		= T(K_U32),
	[IBTICK_A_EV_FEED_ID]		= TS(K_U32, S_FEED_ID),
	[IBTICK_A_EV_FEED_NAME]		= TS(K_STR, S_FEED_NAME),
	[IBTICK_A_EV_SOCK_ID]		= T(K_U64),
	[IBTICK_A_EV_PID]		= TS(K_U32, S_PID),
	[IBTICK_A_EV_ERRNO]		= T(K_S32),
	[IBTICK_A_EV_COUNT]		= T(K_U64),
	[IBTICK_A_EV_TOTAL]		= T(K_U64),
	[IBTICK_A_EV_IB_EVENT]		= T(K_U32),
};

struct aspace {
	const struct atype *t;
	uint16_t max;
};

static const struct aspace spaces[NSPACE] = {
	[SP_DEV]	= { dev_attrs, IBTICK_A_DEV_MAX },
	[SP_PORT]	= { port_attrs, IBTICK_A_PORT_MAX },
	[SP_EVCNT]	= { evcnt_attrs, IBTICK_A_EVCNT_MAX },
	[SP_FEED]	= { feed_attrs, IBTICK_A_FEED_MAX },
	[SP_FSTAT]	= { fstat_attrs, IBTICK_A_FSTAT_MAX },
	[SP_SOCK]	= { sock_attrs, IBTICK_A_SOCK_MAX },
	[SP_EV]		= { ev_attrs, IBTICK_A_EV_MAX },
};

static size_t kind_size(unsigned int kind)
{
	switch (kind) {
	case K_U8:
		return 1;
	case K_U16:
		return 2;
	case K_U32:
	case K_S32:
	case K_BE32:
		return 4;
	case K_U64:
		return 8;
	case K_BIN:
		return 16;
	default:
		return 0;
	}
}

/* ---- values ---------------------------------------------------------------- */

static const char name_ok[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-";
static const char name_bad[] = " /\\*?\"'\n\t\x01\x7f\xff%$,;=@!";

static void name_chars(char *b, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		b[i] = name_ok[below(sizeof(name_ok) - 1)];
}

/* A valid feed name, "nls" + [A-Za-z0-9_.:-], 3..31 bytes, in b[32]. */
static size_t good_name(char *b)
{
	size_t len;

	if (pct(85)) {
		snprintf(b, IBTICK_FEED_NAME_MAX, NAME_PREFIX "%02u",
			 (unsigned int)below(NAME_POOL));
		return strlen(b);
	}
	len = pct(15) ? IBTICK_FEED_NAME_MAX - 1 :
	      PREFIX_LEN + below(IBTICK_FEED_NAME_MAX - PREFIX_LEN);
	memcpy(b, NAME_PREFIX, PREFIX_LEN);
	name_chars(b, PREFIX_LEN, len);
	b[len] = '\0';
	return len;
}

/* A name the kernel must refuse; if it accepts one, it starts with "nls". */
static void put_bad_name(struct req *q, uint16_t type)
{
	char b[96];
	size_t len;

	memcpy(b, NAME_PREFIX, PREFIX_LEN);
	switch (below(7)) {
	case 0:		/* too long */
		len = IBTICK_FEED_NAME_MAX + below(48);
		name_chars(b, PREFIX_LEN, len);
		b[len] = '\0';
		put(q, type, b, len + 1);
		break;
	case 1:		/* empty */
		put(q, type, "", 1);
		break;
	case 2:		/* no payload at all */
		put(q, type, NULL, 0);
		break;
	case 3:		/* a character outside [A-Za-z0-9_.:-] */
		len = PREFIX_LEN + 1 + below(20);
		name_chars(b, PREFIX_LEN, len);
		b[PREFIX_LEN + below((uint32_t)(len - PREFIX_LEN))] =
			name_bad[below(sizeof(name_bad) - 1)];
		b[len] = '\0';
		put(q, type, b, len + 1);
		break;
	case 4:		/* not NUL-terminated */
		len = PREFIX_LEN + below(IBTICK_FEED_NAME_MAX - PREFIX_LEN);
		name_chars(b, PREFIX_LEN, len);
		put(q, type, b, len);
		break;
	case 5:		/* a NUL inside */
		len = PREFIX_LEN + 2 + below(20);
		name_chars(b, PREFIX_LEN, len);
		b[PREFIX_LEN + below((uint32_t)(len - PREFIX_LEN - 1))] = '\0';
		b[len] = '\0';
		put(q, type, b, len + 1);
		break;
	default:	/* one byte over: 32 characters */
		len = IBTICK_FEED_NAME_MAX;
		name_chars(b, PREFIX_LEN, len);
		b[len] = '\0';
		put(q, type, b, len + 1);
		break;
	}
}

static uint32_t good_group(void)
{
	if (pct(30))	/* a small set, so that some requests collide */
		return htonl(0xef010100 | (1 + below(8)));
	return htonl(0xef000000 | below(1U << 24));	/* 239.x.y.z */
}

static uint16_t good_port(void)
{
	return (uint16_t)(pct(30) ? 5000 + below(16) : 1 + below(65535));
}

static void put_good(struct req *q, uint16_t type, const struct atype *at,
		     int depth);

static void put_good_sem(struct req *q, uint16_t type, const struct atype *at)
{
	static const char *const devs[] = {
		"rxe0", "siw0", "mlx5_0", "mlx4_0", "irdma0", "veth0", "ib0",
	};
	static const uint32_t ids[] = { 0, 1000, 65534 };
	static const uint16_t modes[] = { 0644, 0600, 0640, 0660, 0666, 0444, 0 };
	char b[IBTICK_FEED_NAME_MAX];

	switch (at->sem) {
	case S_FEED_NAME:
		put(q, type, b, good_name(b) + 1);
		break;
	case S_DEV_NAME:
		put_str(q, type, PICK(devs));
		break;
	case S_GROUP:
		put_u32(q, type, good_group());
		break;
	case S_PORT:
		put_u16(q, type, good_port());
		break;
	case S_IFINDEX:
		put_u32(q, type, pct(80) ? 0 : 1 + below(4));
		break;
	case S_SLOTS:
		put_u32(q, type, IBTICK_SLOTS_MIN << below(5));	/* ..1024 */
		break;
	case S_SLOT_SIZE:
		put_u32(q, type, IBTICK_SLOT_SIZE_MIN * (1 + below(8)));
		break;
	case S_POLL_MODE:
		put_u8(q, type, pct(90) ? IBTICK_POLL_IRQ : IBTICK_POLL_BUSY);
		break;
	case S_POLL_CPU:
		put_u32(q, type, pct(60) ? (uint32_t)-1 : below(2));
		break;
	case S_COMP_VECTOR:
		put_u32(q, type, 0);
		break;
	case S_LOOPBACK:
		put_u8(q, type, pct(50) ? IBTICK_FEED_LOOPBACK_SOCKET :
					  IBTICK_FEED_LOOPBACK_DENY);
		break;
	case S_MEMBER:
		put_u8(q, type, pct(50) ? IBTICK_FEED_MEMBER_SEND_ONLY :
					  IBTICK_FEED_MEMBER_FULL);
		break;
	case S_ID:
		put_u32(q, type, PICK(ids));
		break;
	case S_MODE:
		put_u16(q, type, PICK(modes));
		break;
	case S_FEED_ID:
		put_u32(q, type, 1 + below(64));
		break;
	case S_DEV_INDEX:
		put_u32(q, type, below(4));
		break;
	case S_PID:
		put_u32(q, type, pct(50) ? (uint32_t)getpid() : 1);
		break;
	case S_BOOL:
		put_u8(q, type, (uint8_t)below(2));
		break;
	}
}

static void put_random_attr(struct req *q, unsigned int sp, int depth);

/* A valid type with a value in range. */
static void put_good(struct req *q, uint16_t type, const struct atype *at,
		     int depth)
{
	char b[24];
	size_t off;
	unsigned int i, n;

	if (at->sem != S_ANY) {
		put_good_sem(q, type, at);
		return;
	}
	switch (at->kind) {
	case K_PAD:
		put(q, type, NULL, 0);
		break;
	case K_U8:
		put_u8(q, type, (uint8_t)below(4));
		break;
	case K_U16:
		put_u16(q, type, (uint16_t)below(1000));
		break;
	case K_U32:
	case K_S32:
	case K_BE32:
		put_u32(q, type, below(1000));
		break;
	case K_U64:
		put_u64(q, type, below(1U << 20));
		break;
	case K_STR:
		n = 1 + below(16);
		name_chars(b, 0, n);
		b[n] = '\0';
		put(q, type, b, n + 1);
		break;
	case K_BIN:
		put_random(q, type, 16);
		break;
	case K_NEST:
		off = nest_begin(q, type | NLA_F_NESTED);
		n = depth < MAX_DEPTH ? 1 + below(3) : 0;
		for (i = 0; i < n; i++) {
			const struct aspace *s = &spaces[at->nest];
			uint16_t t = (uint16_t)(1 + below(s->max));

			put_good(q, t, &s->t[t], depth + 1);
		}
		nest_end(q, off);
		break;
	}
}

/* A valid type with a value out of range (or at an edge). */
static void put_bad(struct req *q, uint16_t type, const struct atype *at)
{
	static const uint32_t groups[] = {
		0x00000000, 0x0a000001, 0xc0a80101, 0x7f000001, 0xffffffff,
		0xe0000001, 0xe00000fb, 0x030201ef,
	};
	static const uint32_t ifindexes[] = { 0x7fffffff, 0xffffffff, 99999 };
	static const uint32_t slots[] = {
		0, 1, 3, 100, 1000, IBTICK_SLOTS_MIN / 2, IBTICK_SLOTS_MAX * 2,
		1U << 31, 0xffffffff,
	};
	static const uint32_t slot_sizes[] = {
		0, 1, 63, 65, 100, 4097, IBTICK_SLOT_SIZE_MAX + 64, 1U << 30,
		0xffffffc0, 0xffffffff,
	};
	static const uint8_t poll_modes[] = { 2, 7, 0x80, 0xff };
	static const int32_t cpus[] = { -2, INT32_MIN, 4096, INT32_MAX, 1 << 20 };
	static const uint32_t vectors[] = { 64, 1000, 0xffffffff };
	static const uint32_t ids[] = { 0xffffffff, 4000000000U };
	static const uint16_t modes[] = {
		07777, 0777, 01644, 0700, 04644, 0100, 0xffff,
	};
	static const uint32_t feed_ids[] = { 0, 0xffffffff, 1U << 31, 100000 };
	static const uint32_t pids[] = { 0, 0xffffffff, 0x7fffffff };
	static const uint32_t u32s[] = { 0, 0xffffffff, 0x80000000 };
	unsigned char b[16];

	switch (at->sem) {
	case S_FEED_NAME:
	case S_DEV_NAME:
		put_bad_name(q, type);
		return;
	case S_GROUP:
		put_u32(q, type, htonl(PICK(groups)));
		return;
	case S_PORT:
		put_u16(q, type, 0);
		return;
	case S_IFINDEX:
		put_u32(q, type, PICK(ifindexes));
		return;
	case S_SLOTS:
		put_u32(q, type, PICK(slots));
		return;
	case S_SLOT_SIZE:
		put_u32(q, type, PICK(slot_sizes));
		return;
	case S_POLL_MODE:
		put_u8(q, type, PICK(poll_modes));
		return;
	case S_POLL_CPU:
		put_u32(q, type, (uint32_t)PICK(cpus));
		return;
	case S_COMP_VECTOR:
		put_u32(q, type, PICK(vectors));
		return;
	case S_LOOPBACK:
	case S_BOOL:
		put_u8(q, type, (uint8_t)(2 + below(254)));
		return;
	case S_MEMBER:
		put_u8(q, type, pct(20) ? 0 : (uint8_t)(3 + below(253)));
		return;
	case S_ID:
		put_u32(q, type, PICK(ids));
		return;
	case S_MODE:
		put_u16(q, type, PICK(modes));
		return;
	case S_FEED_ID:
		put_u32(q, type, PICK(feed_ids));
		return;
	case S_DEV_INDEX:
		put_u32(q, type, pct(50) ? 0xffffffff : 1000);
		return;
	case S_PID:
		put_u32(q, type, PICK(pids));
		return;
	}
	switch (at->kind) {
	case K_PAD:
		put_random(q, type, 1 + below(8));
		break;
	case K_U8:
		put_u8(q, type, 0xff);
		break;
	case K_U16:
		put_u16(q, type, 0xffff);
		break;
	case K_U32:
	case K_BE32:
		put_u32(q, type, PICK(u32s));
		break;
	case K_S32:
		put_u32(q, type, (uint32_t)INT32_MIN);
		break;
	case K_U64:
		put_u64(q, type, pct(50) ? UINT64_MAX : 1ULL << 63);
		break;
	case K_STR:
		put_bad_name(q, type);
		break;
	case K_BIN:
		fill(b, sizeof(b));
		put(q, type, b, 1 + below(15));
		break;
	case K_NEST:
		put_random(q, type | NLA_F_NESTED, 1 + below(12));
		break;
	}
}

/* A valid type with a payload of the wrong size. */
static void put_wrong_len(struct req *q, uint16_t type, const struct atype *at)
{
	size_t want = kind_size(at->kind), len;

	switch (at->kind) {
	case K_STR:
		len = 64 + below(200);
		break;
	case K_PAD:
	case K_NEST:
		len = 1 + below(12);
		break;
	default:
		do
			len = 1 + below(want > 8 ? 32 : 12);
		while (len == want);
		break;
	}
	if (at->kind == K_STR) {	/* a long string of valid characters */
		char b[272];

		memcpy(b, NAME_PREFIX, PREFIX_LEN);
		name_chars(b, PREFIX_LEN, len);
		b[len] = '\0';
		put(q, type, b, len + 1);
		return;
	}
	put_random(q, type, len);
}

/* An attribute type the space does not have (0, above MAX, far above). */
static void put_unknown(struct req *q, const struct aspace *s)
{
	uint16_t type;

	switch (below(4)) {
	case 0:
		type = 0;
		break;
	case 1:
		type = (uint16_t)(s->max + 1 + below(4));
		break;
	case 2:
		type = TYPE_MAX;
		break;
	default:
		type = (uint16_t)(s->max + 1 + below(TYPE_MAX - s->max));
		break;
	}
	if (pct(10))
		type |= NLA_F_NESTED;
	put_random(q, type, below(17));
}

/* A nest of garbage: random bytes, or attributes of any kind and space. */
static void put_nest_garbage(struct req *q, uint16_t type, int depth)
{
	size_t off = nest_begin(q, pct(80) ? type | NLA_F_NESTED : type);
	unsigned char b[40];
	unsigned int i, n;

	if (pct(30)) {
		n = 1 + below(sizeof(b));
		fill(b, n);
		if (room(q, NLA_ALIGN(n))) {
			memset(q->buf + q->len, 0, NLA_ALIGN(n));
			memcpy(q->buf + q->len, b, n);
			q->len += NLA_ALIGN(n);
		}
	} else {
		n = below(5);
		for (i = 0; i < n; i++)
			put_random_attr(q, below(NSPACE), depth + 1);
	}
	nest_end(q, off);
}

/*
 * Attribute number IBTICK_A_FEED_NAME at the top level of a FEED_NEW or
 * FEED_SET: whatever space or branch chose it, its payload must be a name
 * the cleanup finds ("nls...") or one the kernel must refuse, never another
 * space's string ("rxe0") or random bytes that happen to make a valid name.
 */
static bool names_feed(const struct req *q, uint16_t type, int depth)
{
	return !depth && (type & TYPE_MAX) == IBTICK_A_FEED_NAME &&
	       (q->cmd == IBTICK_CMD_FEED_NEW || q->cmd == IBTICK_CMD_FEED_SET);
}

static void put_any_feed_name(struct req *q, uint16_t type)
{
	char b[IBTICK_FEED_NAME_MAX];

	if (pct(10))
		type |= pct(50) ? NLA_F_NET_BYTEORDER : NLA_F_NESTED;
	if (pct(50))
		put(q, type, b, good_name(b) + 1);
	else
		put_bad_name(q, type);
}

static void put_random_attr(struct req *q, unsigned int sp, int depth)
{
	const struct aspace *s = &spaces[sp];
	uint16_t type = (uint16_t)(1 + below(s->max));
	const struct atype *at = &s->t[type];
	unsigned int k = below(100), other;

	if (names_feed(q, type, depth)) {
		put_any_feed_name(q, type);
		return;
	}
	if (k < 40) {
		put_good(q, type, at, depth);
	} else if (k < 58) {
		put_bad(q, type, at);
	} else if (k < 68) {
		put_wrong_len(q, type, at);
	} else if (k < 76) {
		put_unknown(q, s);
	} else if (k < 82) {
		if (depth < MAX_DEPTH)
			put_nest_garbage(q, type, depth);
		else
			put_unknown(q, s);
	} else if (k < 87) {
		put(q, type, NULL, 0);		/* zero-length */
	} else if (k < 92) {
		/* a flag bit that does not belong */
		put_good(q, type | (pct(50) ? NLA_F_NET_BYTEORDER : NLA_F_NESTED),
			 at, depth);
	} else if (k < 97) {
		/* a valid attribute of another space, under its own number */
		other = below(NSPACE);
		type = (uint16_t)(1 + below(spaces[other].max));
		if (names_feed(q, type, depth))
			put_any_feed_name(q, type);
		else
			put_good(q, type, &spaces[other].t[type], depth);
	} else {
		put_random(q, type, below(25));
	}
}

/* Last in a request, sometimes: a broken attribute header or length. */
static void put_tail(struct req *q)
{
	unsigned int k = below(100);
	unsigned char b[8];
	uint16_t type = (uint16_t)(1 + below(IBTICK_A_FEED_MAX));
	size_t dlen = below(9);

	fill(b, sizeof(b));
	if (k < 5) {		/* 1..3 bytes: a truncated attribute header */
		dlen = 1 + below(NLA_HDRLEN - 1);
		if (room(q, dlen)) {
			memcpy(q->buf + q->len, b, dlen);
			q->len += dlen;
		}
	} else if (k < 9) {	/* nla_len past the end of the message */
		put_raw(q, type, pct(30) ? 0xffff :
			(uint16_t)(NLA_HDRLEN + NLA_ALIGN(dlen) + 1 + below(200)),
			b, dlen);
	} else if (k < 12) {	/* nla_len below the header's own size */
		put_raw(q, type, (uint16_t)below(NLA_HDRLEN), b, dlen);
	}
}

static unsigned int cmd_space(uint8_t cmd)
{
	switch (cmd) {
	case IBTICK_CMD_DEV_GET:
		return SP_DEV;
	case IBTICK_CMD_FEED_GET:
	case IBTICK_CMD_FEED_NEW:
	case IBTICK_CMD_FEED_SET:
	case IBTICK_CMD_FEED_DEL:
		return SP_FEED;
	case IBTICK_CMD_SOCK_GET:
		return SP_SOCK;
	case IBTICK_CMD_EVENT:
		return SP_EV;
	default:
		return below(NSPACE);
	}
}

static void build_random(struct req *q)
{
	static const uint16_t extra[] = {
		NLM_F_ECHO, NLM_F_CREATE, NLM_F_APPEND, NLM_F_MULTI,
		NLM_F_DUMP_INTR, NLM_F_DUMP_FILTERED,
	};
	static const uint8_t versions[] = { 0, 2, 0x7f, 0xff };
	unsigned int k = below(100), i, n, sp;
	uint16_t flags = NLM_F_REQUEST;
	uint8_t cmd, version;
	uint16_t reserved;

	if (k < 80)
		cmd = (uint8_t)(1 + below(IBTICK_CMD_MAX));
	else if (k < 88)
		cmd = 0;
	else if (k < 96)
		cmd = (uint8_t)(IBTICK_CMD_MAX + 1 + below(8));
	else
		cmd = (uint8_t)below(256);
	if (pct(50))
		flags |= NLM_F_ACK;
	k = below(100);
	if (k < 30)
		flags |= NLM_F_DUMP;
	else if (k < 35)
		flags |= NLM_F_ROOT;
	else if (k < 40)
		flags |= NLM_F_MATCH;
	if (pct(8))
		flags |= PICK(extra);
	version = pct(85) ? IBTICK_GENL_VERSION : PICK(versions);
	reserved = (uint16_t)(pct(95) ? 0 : rnd());
	begin_req(q, "random", cmd, flags, version, reserved);
	if (pct(2)) {		/* too short for the genl header */
		q->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
		q->short_hdr = true;
		return;
	}
	sp = pct(85) ? cmd_space(cmd) : below(NSPACE);
	n = pct(10) ? 0 : 1 + below(10);
	for (i = 0; i < n && room(q, REQ_ROOM); i++)
		put_random_attr(q, sp, 0);
	put_tail(q);
}

static void opt_good(struct req *q, uint16_t type, unsigned int p)
{
	if (pct(p))
		put_good(q, type, &feed_attrs[type], 0);
}

static void build_feed_new(struct req *q)
{
	char b[IBTICK_FEED_NAME_MAX];

	begin_req(q, "feed_new", IBTICK_CMD_FEED_NEW,
		  NLM_F_REQUEST | (pct(85) ? NLM_F_ACK : 0), IBTICK_GENL_VERSION, 0);
	put(q, IBTICK_A_FEED_NAME, b, good_name(b) + 1);
	put_u32(q, IBTICK_A_FEED_GROUP, good_group());
	put_u16(q, IBTICK_A_FEED_PORT, good_port());
	opt_good(q, IBTICK_A_FEED_IFINDEX, 20);
	/* mostly small rings: a run may leave ~100 feeds up at once */
	opt_good(q, IBTICK_A_FEED_SLOTS, 70);
	opt_good(q, IBTICK_A_FEED_SLOT_SIZE, 70);
	if (pct(20))
		put_u8(q, IBTICK_A_FEED_POLL_MODE, IBTICK_POLL_IRQ);
	opt_good(q, IBTICK_A_FEED_COMP_VECTOR, 10);
	opt_good(q, IBTICK_A_FEED_LOOPBACK, 30);
	opt_good(q, IBTICK_A_FEED_OWNER, 30);
	opt_good(q, IBTICK_A_FEED_OWNER_GROUP, 20);
	opt_good(q, IBTICK_A_FEED_MODE, 30);
	opt_good(q, IBTICK_A_FEED_MEMBERSHIP, 20);
}

static void build_feed_set(struct req *q)
{
	static const uint16_t attrs[] = {
		IBTICK_A_FEED_LOOPBACK, IBTICK_A_FEED_MODE, IBTICK_A_FEED_OWNER,
		IBTICK_A_FEED_OWNER_GROUP, IBTICK_A_FEED_POLL_CPU,
		IBTICK_A_FEED_SLOTS,	/* EBUSY once the ring exists */
	};
	char b[IBTICK_FEED_NAME_MAX];
	unsigned int i, n = 1 + below(3);

	begin_req(q, "feed_set", IBTICK_CMD_FEED_SET,
		  NLM_F_REQUEST | (pct(85) ? NLM_F_ACK : 0), IBTICK_GENL_VERSION, 0);
	put(q, IBTICK_A_FEED_NAME, b, good_name(b) + 1);
	if (pct(20))
		put_u8(q, IBTICK_A_FEED_POLL_MODE, IBTICK_POLL_IRQ);
	for (i = 0; i < n; i++) {
		uint16_t t = PICK(attrs);

		put_good(q, t, &feed_attrs[t], 0);
	}
}

static void build_feed_del(struct req *q)
{
	char b[IBTICK_FEED_NAME_MAX];

	begin_req(q, "feed_del", IBTICK_CMD_FEED_DEL,
		  NLM_F_REQUEST | (pct(80) ? NLM_F_ACK : 0), IBTICK_GENL_VERSION, 0);
	if (pct(80))
		put(q, IBTICK_A_FEED_NAME, b, good_name(b) + 1);
	else
		put_u32(q, IBTICK_A_FEED_ID, 1 + below(64));
}

static void build_get(struct req *q)
{
	uint16_t ack = pct(50) ? NLM_F_ACK : 0;
	char b[IBTICK_FEED_NAME_MAX];

	switch (below(6)) {
	case 0:
		begin_req(q, "dev_dump", IBTICK_CMD_DEV_GET,
			  NLM_F_REQUEST | NLM_F_DUMP, IBTICK_GENL_VERSION, 0);
		break;
	case 1:
		begin_req(q, "feed_dump", IBTICK_CMD_FEED_GET,
			  NLM_F_REQUEST | NLM_F_DUMP, IBTICK_GENL_VERSION, 0);
		break;
	case 2:
		begin_req(q, "sock_dump", IBTICK_CMD_SOCK_GET,
			  NLM_F_REQUEST | NLM_F_DUMP, IBTICK_GENL_VERSION, 0);
		if (pct(30))
			put_u32(q, IBTICK_A_SOCK_PID, (uint32_t)getpid());
		break;
	case 3:
	case 4:
		begin_req(q, "feed_get", IBTICK_CMD_FEED_GET, NLM_F_REQUEST | ack,
			  IBTICK_GENL_VERSION, 0);
		put(q, IBTICK_A_FEED_NAME, b, good_name(b) + 1);
		break;
	default:
		begin_req(q, "dev_get", IBTICK_CMD_DEV_GET, NLM_F_REQUEST | ack,
			  IBTICK_GENL_VERSION, 0);
		put_u32(q, IBTICK_A_DEV_INDEX, below(2));
		break;
	}
}

static void build_request(struct req *q)
{
	unsigned int k = below(100);

	if (k < 8)
		build_feed_new(q);
	else if (k < 11)
		build_feed_del(q);
	else if (k < 13)
		build_feed_set(q);
	else if (k < 18)
		build_get(q);
	else
		build_random(q);
}

/* ---- netlink I/O ------------------------------------------------------------ */

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = timeout_s };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		perror("nlstress: socket(AF_NETLINK, NETLINK_GENERIC)");
		return -1;
	}
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("nlstress: netlink socket setup");
		close(fd);
		return -1;
	}
	return fd;
}

static int send_buf(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n;

	do
		n = sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len) {
		anomaly("sendto: %s", n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/* One datagram into rbuf; -1 (reported) on timeout, error or truncation. */
static ssize_t recv_dgram(int fd)
{
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = rbuf, .iov_len = sizeof(rbuf) };
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n;

	do
		n = recvmsg(fd, &mh, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			anomaly("receive timeout (%u s) waiting for a reply",
				timeout_s);
		else
			anomaly("recvmsg: %s", strerror(errno));
		return -1;
	}
	if (mh.msg_flags & MSG_TRUNC) {
		anomaly("truncated reply: datagram larger than %zu bytes",
			sizeof(rbuf));
		return -1;
	}
	return n;
}

/* Attributes from off to end are well formed. */
static bool attrs_ok(const unsigned char *p, size_t off, size_t end)
{
	struct nlattr na;

	while (off + NLA_HDRLEN <= end) {
		memcpy(&na, p + off, sizeof(na));
		if (na.nla_len < NLA_HDRLEN || na.nla_len > end - off)
			return false;
		off += NLA_ALIGN(na.nla_len);
	}
	return off >= end;
}

/* The extack TLVs of an error or DONE message, from off. */
static void ext_tlvs(struct txn *t, const unsigned char *p, size_t off,
		     size_t end)
{
	struct nlattr na;
	size_t n;

	if (!attrs_ok(p, off, end)) {
		anomaly("truncated extended ACK attributes");
		return;
	}
	while (off + NLA_HDRLEN <= end) {
		memcpy(&na, p + off, sizeof(na));
		if ((na.nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    na.nla_len > NLA_HDRLEN) {
			n = na.nla_len - NLA_HDRLEN;
			if (n >= sizeof(t->msg))
				n = sizeof(t->msg) - 1;
			memcpy(t->msg, p + off + NLA_HDRLEN, n);
			t->msg[n] = '\0';
		}
		off += NLA_ALIGN(na.nla_len);
	}
}

static void on_error(struct txn *t, const unsigned char *p,
		     const struct nlmsghdr *nh)
{
	struct nlmsgerr e;
	size_t off;

	t->finished = true;
	if (nh->nlmsg_len < NLMSG_HDRLEN + sizeof(e)) {
		anomaly("truncated error reply (%u bytes)", nh->nlmsg_len);
		return;
	}
	memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
	if (e.error > 0 || e.error <= -ERRNO_MAX) {
		anomaly("error reply with error %d, not 0 or -errno", e.error);
		return;
	}
	if (!e.error) {
		t->acked = true;
		if (!t->ack)
			anomaly("ACK for a request without NLM_F_ACK");
	}
	t->err = e.error;
	if (nh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = NLMSG_HDRLEN + sizeof(e);
		if (!(nh->nlmsg_flags & NLM_F_CAPPED) &&
		    e.msg.nlmsg_len > NLMSG_HDRLEN)
			off += NLMSG_ALIGN(e.msg.nlmsg_len - NLMSG_HDRLEN);
		if (off > nh->nlmsg_len)
			anomaly("error reply shorter than the request it echoes");
		else
			ext_tlvs(t, p, off, nh->nlmsg_len);
	}
	t->extack = e.error && t->msg[0];
}

static void on_done(struct txn *t, const unsigned char *p,
		    const struct nlmsghdr *nh)
{
	int v = 0;

	t->finished = true;
	if (!t->dump)
		anomaly("NLMSG_DONE for a request that is not a dump");
	if (nh->nlmsg_len >= NLMSG_HDRLEN + sizeof(v))
		memcpy(&v, p + NLMSG_HDRLEN, sizeof(v));
	if (v > 0 || v <= -ERRNO_MAX) {
		anomaly("NLMSG_DONE with error %d, not 0 or -errno", v);
		return;
	}
	t->err = v;
	if (nh->nlmsg_flags & NLM_F_ACK_TLVS)
		ext_tlvs(t, p, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(v)),
			 nh->nlmsg_len);
	t->extack = v && t->msg[0];
}

static void on_msg(struct txn *t, const unsigned char *p,
		   const struct nlmsghdr *nh)
{
	struct nlmsgerr e;

	if (t->sync_seq && nh->nlmsg_seq == t->sync_seq) {
		t->synced = true;
		if (nh->nlmsg_type != NLMSG_ERROR) {
			anomaly("reply of type %u to the NOOP", nh->nlmsg_type);
			return;
		}
		if (nh->nlmsg_len < NLMSG_HDRLEN + sizeof(e)) {
			anomaly("truncated ACK to the NOOP (%u bytes)",
				nh->nlmsg_len);
			return;
		}
		memcpy(&e, p + NLMSG_HDRLEN, sizeof(e));
		if (e.error)
			anomaly("the NOOP was answered with error %d", e.error);
		return;
	}
	if (nh->nlmsg_seq != t->seq) {
		if (nh->nlmsg_type == t->type && !nh->nlmsg_seq &&
		    nh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN) {
			t->notes++;	/* a notification, NLM_F_ECHO */
			return;
		}
		anomaly("reply of type %u with sequence %u, expected %u",
			nh->nlmsg_type, nh->nlmsg_seq, t->seq);
		return;
	}
	if (t->finished) {
		anomaly("reply of type %u after the request's final reply",
			nh->nlmsg_type);
		return;
	}
	switch (nh->nlmsg_type) {
	case NLMSG_ERROR:
		on_error(t, p, nh);
		break;
	case NLMSG_DONE:
		on_done(t, p, nh);
		break;
	default:
		if (nh->nlmsg_type != t->type) {
			anomaly("reply of type %u: not an error, ACK, DONE or family message",
				nh->nlmsg_type);
			break;
		}
		if (nh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
			anomaly("truncated family message (%u bytes)",
				nh->nlmsg_len);
			break;
		}
		if (!attrs_ok(p, NLMSG_HDRLEN + GENL_HDRLEN, nh->nlmsg_len)) {
			anomaly("truncated attributes in a family message");
			break;
		}
		if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
			t->intr++;
		t->parts++;
		if (t->part)
			t->part(t, p, nh->nlmsg_len);
		break;
	}
}

static void walk(struct txn *t, size_t n)
{
	struct nlmsghdr nh;
	size_t off = 0;

	while (off < n) {
		if (n - off < NLMSG_HDRLEN) {
			anomaly("truncated reply: %zu stray bytes", n - off);
			return;
		}
		memcpy(&nh, rbuf + off, sizeof(nh));
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > n - off) {
			anomaly("truncated reply: nlmsg_len %u, %zu bytes left",
				nh.nlmsg_len, n - off);
			return;
		}
		on_msg(t, rbuf + off, &nh);
		off += NLMSG_ALIGN(nh.nlmsg_len);
	}
}

/* Reads datagrams until *flag; -1 (reported) when the socket failed. */
static int read_until(int fd, struct txn *t, const bool *flag)
{
	unsigned long i;
	ssize_t n;

	for (i = 0; !*flag; i++) {
		if (i >= MAX_DGRAMS) {
			anomaly("no end after %d datagrams", MAX_DGRAMS);
			return -1;
		}
		n = recv_dgram(fd);
		if (n < 0)
			return -1;
		walk(t, (size_t)n);
	}
	return 0;
}

static void txn_init(struct txn *t, const struct req *q, uint16_t type,
		     uint32_t seq)
{
	memset(t, 0, sizeof(*t));
	t->seq = seq;
	t->type = type;
	t->dump = (q->flags & NLM_F_DUMP) == NLM_F_DUMP;
	t->ack = q->flags & NLM_F_ACK;
}

/*
 * Sends q and reads its replies: a dump up to its DONE or error, a do
 * request (with NLM_F_ACK) up to its ACK or error.
 */
static int transact(int fd, struct req *q, struct txn *t, uint16_t type,
		    void (*part)(struct txn *, const unsigned char *, size_t),
		    void *arg)
{
	uint32_t seq = ++nl_seq;

	finish_req(q, type, seq);
	txn_init(t, q, type, seq);
	t->part = part;
	t->arg = arg;
	cur_req = q;
	if (send_buf(fd, q->buf, q->len))
		return -1;
	return read_until(fd, t, &t->finished);
}

/* ---- the family ------------------------------------------------------------- */

static void family_part(struct txn *t, const unsigned char *p, size_t len)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlattr na;
	uint16_t id;

	while (off + NLA_HDRLEN <= len) {
		memcpy(&na, p + off, sizeof(na));
		if (na.nla_len < NLA_HDRLEN || na.nla_len > len - off)
			break;
		if ((na.nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
		    na.nla_len >= NLA_HDRLEN + sizeof(id)) {
			memcpy(&id, p + off + NLA_HDRLEN, sizeof(id));
			*(int *)t->arg = id;
		}
		off += NLA_ALIGN(na.nla_len);
	}
}

/* The family's id, -ENOENT if it is not registered, -EIO on failure. */
static int resolve_family(int fd, const char *name)
{
	static struct req q;
	struct txn t;
	int id = -1;

	begin_req(&q, "getfamily", CTRL_CMD_GETFAMILY, NLM_F_REQUEST | NLM_F_ACK,
		  1, 0);
	put_str(&q, CTRL_ATTR_FAMILY_NAME, name);
	if (transact(fd, &q, &t, GENL_ID_CTRL, family_part, &id))
		return -EIO;
	if (t.err == -ENOENT)
		return -ENOENT;
	if (t.err) {
		fprintf(stderr, "nlstress: CTRL_CMD_GETFAMILY %s: %s%s%s\n", name,
			errname(-t.err), t.msg[0] ? ": " : "", t.msg);
		return -EIO;
	}
	return id >= 0 ? id : -EIO;
}

/* ---- cleanup ---------------------------------------------------------------- */

struct feed {
	uint32_t	id;
	int		admin;
	int		live;
	char		name[IBTICK_FEED_NAME_MAX * 2];
};

struct feedlist {
	struct feed	*v;
	size_t		n, cap;
};

static void feed_part(struct txn *t, const unsigned char *p, size_t len)
{
	struct feedlist *fl = t->arg;
	struct feed f = { .admin = -1, .live = -1 };
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, plen;
	const unsigned char *d;
	struct nlattr na;

	while (off + NLA_HDRLEN <= len) {
		memcpy(&na, p + off, sizeof(na));
		if (na.nla_len < NLA_HDRLEN || na.nla_len > len - off)
			break;
		plen = na.nla_len - NLA_HDRLEN;
		d = p + off + NLA_HDRLEN;
		switch (na.nla_type & NLA_TYPE_MASK) {
		case IBTICK_A_FEED_ID:
			if (plen >= sizeof(f.id))
				memcpy(&f.id, d, sizeof(f.id));
			break;
		case IBTICK_A_FEED_NAME:
			if (plen >= sizeof(f.name))
				plen = sizeof(f.name) - 1;
			memcpy(f.name, d, plen);
			f.name[plen] = '\0';
			break;
		case IBTICK_A_FEED_ADMIN:
			if (plen >= 1)
				f.admin = d[0];
			break;
		case IBTICK_A_FEED_LIVE:
			if (plen >= 1)
				f.live = d[0];
			break;
		}
		off += NLA_ALIGN(na.nla_len);
	}
	if (fl->n == fl->cap) {
		size_t cap = fl->cap ? 2 * fl->cap : 64;
		struct feed *v = realloc(fl->v, cap * sizeof(*v));

		if (!v) {
			perror("nlstress: realloc");
			exit(2);
		}
		fl->v = v;
		fl->cap = cap;
	}
	fl->v[fl->n++] = f;
}

static bool ours(const struct feed *f)
{
	return !strncmp(f->name, NAME_PREFIX, PREFIX_LEN);
}

/* All feeds into fl (a dump, restarted while NLM_F_DUMP_INTR); -1 on failure. */
static int dump_feeds(int fd, struct feedlist *fl)
{
	static struct req q;
	struct txn t;
	int try;

	for (try = 0; try < 5; try++) {
		fl->n = 0;
		begin_req(&q, "cleanup_dump", IBTICK_CMD_FEED_GET,
			  NLM_F_REQUEST | NLM_F_DUMP, IBTICK_GENL_VERSION, 0);
		if (transact(fd, &q, &t, (uint16_t)family_id, feed_part, fl))
			return -1;
		if (t.err) {
			anomaly("feed dump failed: %s%s%s", errname(-t.err),
				t.msg[0] ? ": " : "", t.msg);
			return -1;
		}
		if (!t.intr)
			return 0;
	}
	return 0;
}

static unsigned long cleanup(void)
{
	static struct req q;
	struct feedlist fl = { 0 };
	unsigned long cleaned = 0;
	struct txn t;
	size_t i, left = 0;
	int fd, by_name;

	cur_idx = -2;
	cur_req = NULL;
	fd = nl_open();
	if (fd < 0) {
		anomaly("no netlink socket for the cleanup");
		return 0;
	}
	if (dump_feeds(fd, &fl))
		goto out;
	for (i = 0; i < fl.n; i++) {
		const struct feed *f = &fl.v[i];

		if (f->admin != 1 || !ours(f))
			continue;
		for (by_name = 0; by_name < 2; by_name++) {
			begin_req(&q, "cleanup_del", IBTICK_CMD_FEED_DEL,
				  NLM_F_REQUEST | NLM_F_ACK, IBTICK_GENL_VERSION, 0);
			if (by_name)
				put_str(&q, IBTICK_A_FEED_NAME, f->name);
			else
				put_u32(&q, IBTICK_A_FEED_ID, f->id);
			if (transact(fd, &q, &t, (uint16_t)family_id, NULL, NULL))
				goto out;
			if (!t.err || t.err == -ENOENT)
				break;
		}
		if (!t.err)
			cleaned++;
		else
			fprintf(stderr, "nlstress: cleanup: FEED_DEL %s (id %u): %s%s%s\n",
				f->name, f->id, errname(-t.err),
				t.msg[0] ? ": " : "", t.msg);
	}
	if (dump_feeds(fd, &fl))
		goto out;
	for (i = 0; i < fl.n; i++) {
		if (!ours(&fl.v[i]))
			continue;
		left++;
		fprintf(stderr, "nlstress: feed %s (id %u, admin %d, live %d) left after the cleanup\n",
			fl.v[i].name, fl.v[i].id, fl.v[i].admin, fl.v[i].live);
	}
	cur_req = NULL;
	if (left)
		anomaly("%zu " NAME_PREFIX "* feed(s) left after the cleanup", left);
out:
	free(fl.v);
	close(fd);
	return cleaned;
}

/* ---- the run ---------------------------------------------------------------- */

static bool is_mutating(uint8_t cmd)
{
	return cmd == IBTICK_CMD_FEED_NEW || cmd == IBTICK_CMD_FEED_SET ||
	       cmd == IBTICK_CMD_FEED_DEL;
}

/*
 * The genl core refuses these before it looks at CAP_NET_ADMIN: too short
 * for the genl header, reserved bits or ambiguous flags (genl_header_check),
 * a dump of a command without dumpit (EOPNOTSUPP).
 */
static bool refused_before_perm(const struct req *q)
{
	uint16_t f = q->flags;

	if (q->short_hdr || q->reserved || (f & NLM_F_DUMP) == NLM_F_DUMP)
		return true;
	return f & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO);
}

static void account(const struct req *q, const struct txn *t, bool unpriv,
		    bool check_perm)
{
	bool mut = is_mutating(q->cmd);

	if (t->err) {
		n_errors++;
		errcount[-t->err]++;	/* on_error/on_done checked the range */
		if (t->extack)
			n_errors_ext++;
	} else {
		n_accepted++;
	}
	if (t->dump)
		n_dump_parts += t->parts;
	if (!mut || !check_perm)
		return;
	n_mut++;
	if (!t->err)
		n_mut_accepted++;
	if (t->err == -EPERM)
		n_mut_eperm++;
	if (!unpriv)
		return;
	if (!t->err)
		anomaly("unprivileged %s accepted", cmdname(q->cmd));
	else if (t->err != -EPERM && !refused_before_perm(q))
		anomaly("unprivileged %s refused with %s, not EPERM",
			cmdname(q->cmd), errname(-t->err));
}

static void note_request(const struct req *q, const struct txn *t)
{
	fprintf(stderr, "nlstress: #%ld %s %s flags %#x v%u %zu bytes: %s",
		cur_idx, q->kind, cmdname(q->cmd), q->flags, q->version, q->len,
		t->err ? errname(-t->err) : t->acked ? "ack" : "ok");
	if (t->parts)
		fprintf(stderr, ", %u %s", t->parts, t->dump ? "dumped" : "replies");
	if (t->notes)
		fprintf(stderr, ", %u notifications", t->notes);
	if (t->intr)
		fprintf(stderr, ", %u interrupted", t->intr);
	if (t->msg[0])
		fprintf(stderr, " \"%s\"", t->msg);
	fputc('\n', stderr);
}

/* One request and everything it got back; -1 when the socket failed. */
static int one_request(int fd, struct req *q, bool unpriv, bool check_perm)
{
	struct nlmsghdr noop = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	struct txn t;
	uint32_t seq = ++nl_seq;

	build_request(q);
	finish_req(q, (uint16_t)family_id, seq);
	txn_init(&t, q, (uint16_t)family_id, seq);
	cur_req = q;
	if (send_buf(fd, q->buf, q->len))
		return -1;
	n_sent++;
	if (t.dump && read_until(fd, &t, &t.finished))
		return -1;
	/* everything up to the NOOP's ACK belongs to the request */
	noop.nlmsg_seq = t.sync_seq = ++nl_seq;
	if (send_buf(fd, &noop, sizeof(noop)) ||
	    read_until(fd, &t, &t.synced))
		return -1;
	if (t.ack && !t.finished)
		anomaly("no ACK or error for a request with NLM_F_ACK");
	account(q, &t, unpriv, check_perm);
	if (verbose)
		note_request(q, &t);
	return 0;
}

static bool has_net_admin(void)
{
	unsigned long long cap;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &cap) == 1) {
			fclose(f);
			return (cap >> CAP_NET_ADMIN) & 1;
		}
	}
	fclose(f);
	return geteuid() == 0;
}

static int drop_privileges(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		perror("nlstress: dropping privileges");
		return -1;
	}
	if (getuid() != uid || geteuid() != uid || getegid() != gid ||
	    setuid(0) == 0) {
		fprintf(stderr, "nlstress: privileges were not dropped to uid %u\n",
			(unsigned int)uid);
		return -1;
	}
	return 0;
}

static int parse_uid(const char *s, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s && !*end && !errno && v < UINT32_MAX) {
		*uid = (uid_t)v;
		pw = getpwuid(*uid);
	} else {
		pw = getpwnam(s);
		if (!pw)
			return -1;
		*uid = pw->pw_uid;
	}
	*gid = pw ? pw->pw_gid : (gid_t)*uid;
	return *uid ? 0 : -1;
}

static void print_errnos_text(void)
{
	unsigned int e;
	bool any = false;

	printf("nlstress: errno");
	for (e = 1; e < ERRNO_MAX; e++) {
		if (!errcount[e])
			continue;
		printf(" %s=%lu", errname((int)e), errcount[e]);
		any = true;
	}
	printf("%s\n", any ? "" : " none");
}

static void print_json(uint64_t seed, unsigned long cleaned)
{
	unsigned int e;
	const char *sep = "";

	printf("{\"seed\": %" PRIu64 ", \"requests\": %lu, \"accepted\": %lu, "
	       "\"errors\": %lu, \"errors_with_extack\": %lu, "
	       "\"dump_replies\": %lu, \"cleaned\": %lu, \"anomalies\": %lu, "
	       "\"errno\": {", seed, n_sent, n_accepted, n_errors, n_errors_ext,
	       n_dump_parts, cleaned, n_anom);
	for (e = 1; e < ERRNO_MAX; e++) {
		if (!errcount[e])
			continue;
		printf("%s\"%s\": %lu", sep, errname((int)e), errcount[e]);
		sep = ", ";
	}
	printf("}}\n");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nlstress [-n REQUESTS] [-s SEED] [-u UID|USER] [-t SECONDS] [-j] [-v]\n"
		"                [-f FAMILY (self-test: another genl family, e.g. nlctrl)]\n");
	exit(2);
}

static unsigned long long number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static struct req q;
	const char *family = IBTICK_GENL_NAME;
	unsigned long n = 5000, i, cleaned = 0;
	bool json = false, drop = false, unpriv, ibtick;
	struct timespec ts;
	uid_t uid = 0;
	gid_t gid = 0;
	uint64_t seed;
	int fd, c;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^
		((uint64_t)getpid() << 16)) & 0xffffffffu;
	while ((c = getopt(argc, argv, "n:s:u:t:jvf:h")) != -1) {
		switch (c) {
		case 'n':
			n = (unsigned long)number(optarg, ULONG_MAX);
			break;
		case 's':
			seed = number(optarg, UINT64_MAX);
			break;
		case 'u':
			if (parse_uid(optarg, &uid, &gid)) {
				fprintf(stderr, "nlstress: -u %s: not an unprivileged user\n",
					optarg);
				return 2;
			}
			drop = true;
			break;
		case 't':
			timeout_s = (unsigned int)number(optarg, 3600);
			if (!timeout_s)
				usage();
			break;
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'f':
			family = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	ibtick = !strcmp(family, IBTICK_GENL_NAME);

	fd = nl_open();
	if (fd < 0)
		return 2;
	family_id = resolve_family(fd, family);
	if (family_id == -ENOENT) {
		fprintf(stderr, "%s family not found (module not loaded?)\n",
			family);
		return 2;
	}
	if (family_id < 0 || n_anom) {
		fprintf(stderr, "nlstress: cannot resolve the %s family\n", family);
		return 2;
	}
	if (drop && drop_privileges(uid, gid))
		return 2;
	unpriv = drop || !has_net_admin();

	fprintf(json ? stderr : stdout,
		"nlstress: seed %" PRIu64 ", %lu requests, family %s (id %d), uid %u%s\n",
		seed, n, family, family_id, (unsigned int)getuid(),
		unpriv ? " (unprivileged)" : "");
	fflush(stdout);
	seed_rng(seed);
	for (i = 0; i < n; i++) {
		cur_idx = (long)i;
		if (one_request(fd, &q, unpriv, ibtick)) {
			fprintf(stderr, "nlstress: stopping after request #%lu\n", i);
			break;
		}
	}
	close(fd);
	if (ibtick && !unpriv)
		cleaned = cleanup();

	if (json) {
		print_json(seed, cleaned);
	} else {
		printf("nlstress: seed %" PRIu64 ", %lu requests, %lu accepted, "
		       "%lu errors (%lu with extack), %lu dump replies, "
		       "%lu cleaned, %lu anomalies\n",
		       seed, n_sent, n_accepted, n_errors, n_errors_ext,
		       n_dump_parts, cleaned, n_anom);
		print_errnos_text();
		if (unpriv && ibtick)
			printf("nlstress: unprivileged: %lu FEED_NEW/SET/DEL, %lu EPERM, %lu accepted\n",
			       n_mut, n_mut_eperm, n_mut_accepted);
	}
	return n_anom ? 1 : 0;
}
