// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: random generic netlink requests to the "ibtick" family.
 */
#include "sysfuzz.h"

/* ---- generic netlink ---------------------------------------------------- */

/* One attribute of @type with @len bytes of @v (little-endian) at @p. */
static size_t put_attr(unsigned char *p, uint16_t type, const void *v,
		       size_t len)
{
	struct nlattr na = { .nla_len = (uint16_t)(NLA_HDRLEN + len),
			     .nla_type = type };

	memcpy(p, &na, sizeof(na));
	memmove(p + NLA_HDRLEN, v, len);	/* a nest's content is in place */
	memset(p + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return NLA_HDRLEN + NLA_ALIGN(len);
}

/*
 * An arbitrated feed's IBTICK_A_FEED_ARB nest, mostly well formed: 0 to 5
 * rails (group, port, netdev), the sequence field and the window, each
 * value near its limits at times.  Needs 512 bytes of room.
 */
static size_t build_arb(struct rng *r, unsigned char *p)
{
	static const uint32_t offs[] = { 0, 10, 65527, 65528, 65535 };
	static const uint32_t wins[] = { 0, 1, 1000, 60000000, 60000001 };
	static const uint32_t ticks[] = { 0, 1, 64, 4096, 4097 };
	unsigned char *q = p + NLA_HDRLEN, *rp;
	unsigned int i, nrails = rn(r, 6);
	uint64_t v64;
	uint32_t v;
	uint16_t v16;
	uint8_t v8;

	for (i = 0; i < nrails; i++) {
		rp = q + NLA_HDRLEN;
		v = pct(r, 90) ? 0x010009efU + (i << 16) : (uint32_t)rnd(r);
		rp += put_attr(rp, IBTICK_A_RAIL_GROUP, &v, 4);
		v16 = pct(r, 90) ? 9500 : (uint16_t)rnd(r);
		rp += put_attr(rp, IBTICK_A_RAIL_PORT, &v16, 2);
		if (pct(r, 90)) {
			v = rn(r, 8);
			rp += put_attr(rp, IBTICK_A_RAIL_IFINDEX, &v, 4);
		}
		if (pct(r, 5)) {
			v = (uint32_t)rnd(r);	/* a read-only one */
			rp += put_attr(rp, IBTICK_A_RAIL_INDEX + rn(r, 20), &v, 4);
		}
		q += put_attr(q, IBTICK_A_ARB_RAIL | NLA_F_NESTED, q + NLA_HDRLEN,
			      (size_t)(rp - q - NLA_HDRLEN));
	}
	if (pct(r, 60)) {
		v16 = (uint16_t)PICK(r, offs);
		q += put_attr(q, IBTICK_A_ARB_SEQ_OFF, &v16, 2);
	}
	if (pct(r, 60)) {
		v8 = pct(r, 80) ? PICK(r, ((const uint8_t[]){ 0, 4, 8 })) : (uint8_t)rnd(r);
		q += put_attr(q, IBTICK_A_ARB_SEQ_WIDTH, &v8, 1);
	}
	if (pct(r, 30)) {
		v8 = (uint8_t)rn(r, 3);
		q += put_attr(q, IBTICK_A_ARB_SEQ_BE, &v8, 1);
	}
	if (pct(r, 50)) {
		v = PICK(r, wins);
		q += put_attr(q, IBTICK_A_ARB_WINDOW_US, &v, 4);
	}
	if (pct(r, 30)) {
		v = PICK(r, ticks);
		q += put_attr(q, IBTICK_A_ARB_WINDOW_TICKS, &v, 4);
	}
	if (pct(r, 20)) {
		v64 = pct(r, 50) ? 1 : rnd(r);
		q += put_attr(q, IBTICK_A_ARB_RESET_AT, &v64, 8);
	}
	return put_attr(p, IBTICK_A_FEED_ARB | NLA_F_NESTED, p + NLA_HDRLEN,
			(size_t)(q - p - NLA_HDRLEN));
}

/*
 * A listener rule's attributes (CONN_RULE_NEW, CONN_RULE_DEL), mostly well
 * formed: ports the fuzzer's connections use, or the edges, in order or
 * not; owner, group and mode at times out of range.  Needs 128 bytes.
 */
static size_t build_rule(struct rng *r, unsigned char *p)
{
	static const uint16_t ports[] = { 0, 1, 2, 7777, 7778, 65534, 65535 };
	static const uint32_t ids[] = { 0, 1, 65534, 65535, UINT32_MAX };
	static const uint16_t modes[] = { 0, 0200, 0020, 0002, 0222, 0777, 0xffff };
	size_t off = 0;
	uint16_t lo, hi, mode;
	uint32_t id;

	lo = pct(r, 80) ? PICK(r, ports) : (uint16_t)rnd(r);
	hi = pct(r, 60) ? lo : pct(r, 80) ? PICK(r, ports) : (uint16_t)rnd(r);
	if (pct(r, 95))
		off += put_attr(p + off, IBTICK_A_RULE_PORT_LO, &lo, 2);
	if (pct(r, 85))
		off += put_attr(p + off, IBTICK_A_RULE_PORT_HI, &hi, 2);
	if (pct(r, 50)) {
		id = PICK(r, ids);
		off += put_attr(p + off, IBTICK_A_RULE_OWNER, &id, 4);
	}
	if (pct(r, 40)) {
		id = PICK(r, ids);
		off += put_attr(p + off, IBTICK_A_RULE_GROUP, &id, 4);
	}
	if (pct(r, 60)) {
		mode = pct(r, 90) ? PICK(r, modes) : (uint16_t)rnd(r);
		off += put_attr(p + off, IBTICK_A_RULE_MODE, &mode, 2);
	}
	return off;
}

static size_t build_attr(struct rng *r, unsigned char *p, size_t room, int depth)
{
	static const char *const names[] = { "rxe0", "rxe1", "mlx5_0", "",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" };
	static const uint16_t types[] = { 0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 0x7fff };
	struct nlattr na;
	unsigned char *d = p + NLA_HDRLEN;
	size_t dl = 0, max;
	uint16_t type;
	uint32_t v;

	if (room < NLA_HDRLEN + 8)
		return 0;
	if (!depth && room >= 512 && pct(r, 8))
		return build_arb(r, p);
	max = room - NLA_HDRLEN;
	switch (rn(r, 10)) {
	case 0: case 1: case 2:
		type = IBTICK_A_DEV_INDEX;
		v = pct(r, 70) ? rn(r, 4) : (uint32_t)rnd(r);
		dl = pct(r, 85) ? 4 : PICK(r, ((const size_t[]){ 0, 1, 2, 3, 5, 8 }));
		memset(d, 0, 8);
		memcpy(d, &v, 4);
		break;
	case 3: case 4: case 5: {
		const char *s = PICK(r, names);

		type = IBTICK_A_DEV_NAME;
		dl = strlen(s) + (pct(r, 85) ? 1 : 0);
		if (dl > max)
			dl = max;
		memcpy(d, s, dl < strlen(s) ? dl : strlen(s));
		if (dl > strlen(s))
			d[strlen(s)] = 0;
		break;
	}
	case 6:
		type = (uint16_t)(rn(r, 16) | NLA_F_NESTED);
		if (depth < 2)
			dl = build_attr(r, d, max > 64 ? 64 : max, depth + 1);
		break;
	default:
		type = pct(r, 70) ? PICK(r, types) : (uint16_t)rnd(r);
		dl = rn(r, (uint32_t)(max < 64 ? max : 64));
		fill(r, d, dl);
		break;
	}
	if (pct(r, 4))
		type |= NLA_F_NESTED;
	if (pct(r, 3))
		type |= NLA_F_NET_BYTEORDER;
	if (dl > max)
		dl = max;
	na.nla_type = type;
	na.nla_len = (uint16_t)(NLA_HDRLEN + dl);
	if (!pct(r, 88))
		na.nla_len = PICK(r, ((const uint16_t[]){ 0, 1, 3, 4, 0xffff,
				      (uint16_t)(NLA_HDRLEN + dl + 1),
				      (uint16_t)(NLA_HDRLEN + dl - 1),
				      (uint16_t)rnd(r) }));
	memcpy(p, &na, sizeof(na));
	dl = NLA_ALIGN(NLA_HDRLEN + dl);
	return dl > room ? room : dl;
}

/* One or more genl requests, to the ibtick family (or nlctrl) only. */
static size_t build_genl(struct rng *r)
{
	static const uint16_t xflags[] = { NLM_F_ACK, NLM_F_ECHO, NLM_F_DUMP, NLM_F_ROOT,
					   NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_EXCL,
					   NLM_F_CREATE, NLM_F_REPLACE, NLM_F_APPEND,
					   NLM_F_MULTI, NLM_F_DUMP_INTR, 0x8000 };
	size_t off = 0, start, real;
	unsigned int m, nmsg = pct(r, 85) ? 1 : 2 + rn(r, 2), a, nattr, k;
	struct nlmsghdr nh;
	struct genlmsghdr gh;

	memset(nlbuf, 0, sizeof(nlbuf));
	for (m = 0; m < nmsg && off + 512 < sizeof(nlbuf); m++) {
		start = off;
		off += NLMSG_HDRLEN;
		memset(&gh, 0, sizeof(gh));
		gh.cmd = (uint8_t)(pct(r, 45) ? IBTICK_CMD_DEV_GET :
				   pct(r, 8) ? IBTICK_CMD_CONN_RULE_NEW + rn(r, 3) :
				   rn(r, 21));
		gh.version = (uint8_t)(pct(r, 85) ? IBTICK_GENL_VERSION : PICK(r, ((const uint8_t[]){ 0, 2, 255 })));
		gh.reserved = (uint16_t)(pct(r, 95) ? 0 : rnd(r));
		memcpy(nlbuf + off, &gh, sizeof(gh));
		off += GENL_HDRLEN;
		nattr = pct(r, 30) ? 1 : rn(r, 5);
		if ((gh.cmd == IBTICK_CMD_CONN_RULE_NEW ||
		     gh.cmd == IBTICK_CMD_CONN_RULE_DEL) && pct(r, 70)) {
			off += build_rule(r, nlbuf + off);
			nattr = pct(r, 80) ? 0 : 1;
		}
		for (a = 0; a < nattr && off + 256 < sizeof(nlbuf); a++)
			off += build_attr(r, nlbuf + off, sizeof(nlbuf) - 128 - off, 0);
		real = off - start;
		memset(&nh, 0, sizeof(nh));
		nh.nlmsg_len = (uint32_t)real;
		if (!pct(r, 85))
			nh.nlmsg_len = PICK(r, ((const uint32_t[]){ 0, 4, NLMSG_HDRLEN,
					    NLMSG_HDRLEN + GENL_HDRLEN - 1,
					    (uint32_t)real - 1, (uint32_t)real + 1 + rn(r, 64),
					    UINT32_MAX, rn(r, 4096) }));
		/* never another family's number: that could change the system */
		k = rn(r, 100);
		nh.nlmsg_type = (uint16_t)(k < 92 ? genl_id : k < 96 ? GENL_ID_CTRL :
					   PICK(r, ((const uint16_t[]){ NLMSG_NOOP, NLMSG_ERROR,
								     NLMSG_DONE, NLMSG_OVERRUN, 0 })));
		if (nh.nlmsg_type == GENL_ID_CTRL) {
			/* read-only nlctrl commands only */
			gh.cmd = pct(r, 70) ? CTRL_CMD_GETFAMILY : CTRL_CMD_GETPOLICY;
			memcpy(nlbuf + start + NLMSG_HDRLEN, &gh, sizeof(gh));
		}
		nh.nlmsg_flags = pct(r, 92) ? NLM_F_REQUEST : 0;
		for (k = 0; k < 2; k++)
			if (pct(r, 30))
				nh.nlmsg_flags |= PICK(r, xflags);
		if (pct(r, 25))
			nh.nlmsg_flags |= NLM_F_DUMP;
		nh.nlmsg_seq = (uint32_t)rnd(r);
		nh.nlmsg_pid = pct(r, 90) ? 0 : (uint32_t)rnd(r);
		memcpy(nlbuf + start, &nh, sizeof(nh));
		off = NLMSG_ALIGN(off);
	}
	return off;
}

/* Read what the kernel answered, non-blocking; count acks and errors. */
static void genl_drain(struct op *o, int fd, unsigned int max)
{
	unsigned int i;
	ssize_t n;
	size_t off;
	struct nlmsghdr nh;
	struct nlmsgerr e;

	for (i = 0; i < max; i++) {
		n = recv(fd, rbuf, 65536, MSG_DONTWAIT);
		if (n <= 0)
			break;
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)n;) {
			memcpy(&nh, rbuf + off, sizeof(nh));
			if (nh.nlmsg_len < NLMSG_HDRLEN || off + nh.nlmsg_len > (size_t)n)
				break;
			ws->calls[K_GENL_REPLY]++;
			if (nh.nlmsg_type == NLMSG_ERROR &&
			    nh.nlmsg_len >= NLMSG_HDRLEN + sizeof(e)) {
				memcpy(&e, rbuf + off + NLMSG_HDRLEN, sizeof(e));
				rec_as(o, K_GENL_REPLY, e.error ? -1 : 0, -e.error);
			} else {
				rec_as(o, K_GENL_REPLY, 0, 0);
			}
			off += NLMSG_ALIGN(nh.nlmsg_len);
		}
	}
}

void genl_send(struct op *o, int fd, int kind)
{
	struct rng *r = &o->r;
	struct sockaddr_nl nl;
	size_t len = build_genl(r);
	ssize_t ret;

	memset(&nl, 0, sizeof(nl));
	nl.nl_family = AF_NETLINK;	/* the kernel: pid 0, no groups */
	if (!pct(r, 88))
		len = rn(r, (uint32_t)len + 1);	/* cut short */
	note("genl send %zu bytes on fd %d (family %d)", len, fd, genl_id);
	errno = 0;
	if (pct(r, 80))
		ret = sendto(fd, nlbuf, len, MSG_DONTWAIT, (struct sockaddr *)&nl, sizeof(nl));
	else
		ret = send(fd, nlbuf, len, MSG_DONTWAIT);
	rec_as(o, kind, ret, errno);
	if (pct(r, 85))
		genl_drain(o, fd, 32);
}

void op_genl_send(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_GENL);

	if (i < 0 || slots[i].kind != FK_GENL) {
		/* no genl socket yet: open one (counted as genl_socket) */
		ws->calls[K_GENL_SOCKET]++;
		op_genl_socket(o);
		i = pick_slot(r, FK_GENL);
		if (i < 0 || slots[i].kind != FK_GENL) {
			skip(o);
			return;
		}
	}
	genl_send(o, slots[i].fd, o->kind);
}

void op_genl_recv(struct op *o)
{
	static const size_t sizes[] = { 0, 1, 16, 20, 100, 4096, 65536 };
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_GENL), flags = MSG_DONTWAIT;
	size_t n = PICK(r, sizes);

	if (i < 0 || slots[i].kind != FK_GENL) {
		skip(o);
		return;
	}
	if (pct(r, 20))
		flags |= MSG_PEEK;
	if (pct(r, 20))
		flags |= MSG_TRUNC;
	note("recv(genl fd %d, %zu, %#x)", slots[i].fd, n, (unsigned int)flags);
	errno = 0;
	rec(o, recv(slots[i].fd, rbuf, n, flags));
	if (pct(r, 50))
		genl_drain(o, slots[i].fd, 8);
}
