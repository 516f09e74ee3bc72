// SPDX-License-Identifier: GPL-2.0
/*
 * arbtest: publish one sequence on two rails, read the arbitrated feed,
 * and check it against what each rail really received.
 *
 *   arbtest FEED_ID GA:PA@PUB_A GB:PB@PUB_B GA:PA@RX_A GB:PB@RX_B N [opts]
 *
 * Number s (1..N) goes out on rail A from netdev PUB_A and on rail B from
 * PUB_B, as a payload whose first 8 bytes are s, little-endian.  Two "taps"
 * - plain ibtick sockets bound to each rail's group on its receiving
 * netdev, each a QP of its own on the group - record what each rail
 * received.  The arbitrated feed (bound by id) must then hold:
 *  - every number either tap saw, exactly once, and no other;
 *  - a NODATA|GAP slot for exactly the numbers both taps missed between
 *    the first and the last heard (no more, none twice);
 *  - ticks in rising order, but those flagged LATE (which fill a hole);
 *  - on each tick, a rail bit naming a rail that did receive it.
 * Options:
 *   --skip-both K  never send numbers that are multiples of K
 *   --skip-a K     do not send multiples of K on rail A (B: --skip-b)
 *   --rate R       numbers per second (default 4000)
 *   --reset-at K   after K, start again at 1 (a new session): then the
 *                  checks cover each session on its own
 *   --short        4-byte payloads, too short for an 8-byte field
 *   --settle MS    wait after the last send (default 500)
 *   --b-apart      rail B and its tap do not see the same (B's device or
 *                  port goes away meanwhile): ticks won by B are not
 *                  checked against the tap
 * Prints one JSON line: sent, per-tap counts, delivered, gap numbers, late,
 * resets, and "ok".  Exit 0 when every check held, 1 when one failed.
 *
 *   arbtest table ARB_ID RAIL_ID
 *
 * The errno table of addressing feeds by id (IBTICK_ADDR_FEED_ID): an
 * arbitrated feed may be read (bind, IBTICK_ADD_FEED) but not published
 * to, a rail neither; getsockname and IBTICK_FEEDS give the id back.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/ibtick.h>

#include "libibtick.h"
#include "vmcheck.h"

struct seen {
	uint8_t	*a, *b;		/* per number: taps */
	uint8_t	*arb;		/* per number: times delivered */
	uint8_t	*gap;		/* per number: times marked */
	uint8_t	*rail;		/* per number: the rail its slot named */
	uint64_t n_a, n_b, delivered, gap_numbers, markers, late, resets;
	uint64_t order_bad, rail_bad, range_bad, dup, nodata_len_bad;
	uint64_t max_seen;	/* highest number delivered, not LATE */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static struct sockaddr_ibtick parse_rail(const char *w)
{
	char g[64], *colon, *at;

	snprintf(g, sizeof(g), "%s", w);
	colon = strchr(g, ':');
	at = strchr(g, '@');
	if (!colon || !at || at < colon) {
		fprintf(stderr, "arbtest: rail \"%s\" is not GROUP:PORT@NETDEV\n", w);
		exit(2);
	}
	*colon = *at = '\0';
	return vm_addr(g, at + 1, atoi(colon + 1));
}

/* Read every waiting tick of a tap: mark its number. */
static void drain_tap(int fd, uint8_t *mark, uint64_t *count, uint64_t n)
{
	uint8_t buf[256];
	uint64_t s;
	ssize_t r;

	while ((r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		if (r < 8)
			continue;
		memcpy(&s, buf, 8);
		if (s >= 1 && s <= n && !mark[s]++)
			(*count)++;
	}
}

/* Read every waiting tick of the arbitrated feed. */
static void drain_arb(int fd, struct seen *sn, uint64_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ibtick_tick_info)) +
			 CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr align;
	} ctl;
	struct ibtick_tick_info ti;
	struct cmsghdr *cm;
	uint8_t buf[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh;
	uint64_t s, i;
	ssize_t r;
	int rail;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		r = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (r < 0)
			return;
		memset(&ti, 0, sizeof(ti));
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_IBTICK &&
			    cm->cmsg_type == IBTICK_CMSG_TICK)
				memcpy(&ti, CMSG_DATA(cm), sizeof(ti));
		if (!(ti.flags & IBTICK_TICK_ARB)) {
			sn->range_bad++;
			continue;
		}
		if (ti.flags & IBTICK_TICK_RESET)
			sn->resets++;
		if (ti.flags & IBTICK_TICK_NODATA) {
			sn->markers++;
			if (r != 0 || !(ti.flags & IBTICK_TICK_GAP))
				sn->nodata_len_bad++;
			for (i = 0; i < ti.gap; i++) {
				s = ti.pub_seq + i;
				if (s < 1 || s > n) {
					sn->range_bad++;
					continue;
				}
				sn->gap[s]++;
				sn->gap_numbers++;
			}
			continue;
		}
		s = ti.pub_seq;
		if (s < 1 || s > n || r < 8) {
			sn->range_bad++;
			continue;
		}
		if (memcmp(buf, &s, 8))
			sn->range_bad++;	/* the payload's number is the slot's */
		if (sn->arb[s]++)
			sn->dup++;
		sn->delivered++;
		/* checked at the end: its tap may not have been read yet */
		rail = IBTICK_TICK_RAIL(ti.flags);
		sn->rail[s] = (uint8_t)rail;
		if (ti.flags & IBTICK_TICK_LATE) {
			sn->late++;
			if (s > sn->max_seen)
				sn->order_bad++;
		} else {
			if (s <= sn->max_seen && !(ti.flags & IBTICK_TICK_RESET))
				sn->order_bad++;
			sn->max_seen = s;
		}
	}
}

/* The verdict on one session, added to @t. */
struct verdict {
	uint64_t exp_gap, miss, extra, gap_wrong;
};

static int b_apart;

static void check_session(struct seen *sn, uint64_t n, struct verdict *t)
{
	uint64_t s, first = 0, last = 0;
	int heard;

	/* what each rail received decides what the feed must hold */
	for (s = 1; s <= n; s++) {
		if (sn->a[s] || sn->b[s]) {
			if (!first)
				first = s;
			last = s;
		}
	}
	for (s = 1; s <= n; s++) {
		heard = sn->a[s] || sn->b[s];
		/* the rail a tick names did receive it */
		if (sn->arb[s] && ((sn->rail[s] == 0 && !sn->a[s]) ||
				   (sn->rail[s] == 1 && !sn->b[s] && !b_apart) ||
				   sn->rail[s] > 1))
			sn->rail_bad++;
		if (heard && !sn->arb[s])
			t->miss++;
		if (!heard && sn->arb[s])
			t->extra++;
		if (first && s > first && s < last && !heard) {
			t->exp_gap++;
			if (sn->gap[s] != 1)
				t->gap_wrong++;
		} else if (sn->gap[s]) {
			t->gap_wrong++;
		}
	}
}

/* Read whatever waits on both taps and the arbitrated feed. */
static void drain_all(int ta, int tb, int fr, struct seen *sn, uint64_t n)
{
	drain_tap(ta, sn->a, &sn->n_a, n);
	drain_tap(tb, sn->b, &sn->n_b, n);
	drain_arb(fr, sn, n);
}

static void settle(int ta, int tb, int fr, struct seen *sn, uint64_t n,
		   uint64_t ms)
{
	uint64_t due = now_ns() + ms * 1000000ull;

	while (now_ns() < due) {
		drain_all(ta, tb, fr, sn, n);
		usleep(1000);
	}
}

/* A tap's feed: its receive work (ns) and completions, for the log. */
static void tap_cost(int fd, uint64_t *ns, uint64_t *cqes)
{
	struct ibtick_stats st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &len) < 0)
		return;
	*ns = st.feed_rx_drain_ns;
	*cqes = st.feed_cqe_irq + st.feed_cqe_thread + st.feed_cqe_caller;
}

static int bound(const struct sockaddr_ibtick *sa)
{
	int fd = sock();

	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		perror("arbtest: bind");
		exit(2);
	}
	return fd;
}

static int publisher(const struct sockaddr_ibtick *sa)
{
	int fd = sock();

	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		perror("arbtest: connect");
		exit(2);
	}
	return fd;
}

static struct sockaddr_ibtick by_id(uint32_t id)
{
	struct sockaddr_ibtick sa = { 0 };

	sa.sibt_family = (uint16_t)vm_fam;
	sa.sibt_flags = IBTICK_ADDR_FEED_ID;
	memcpy(sa.sibt_group, &id, 4);
	return sa;
}

/*
 * The arbitrated feed's counters as its socket reads them (and, through a
 * second socket that adds the feed by id, as a member's), for arb.sh to
 * compare with "ibtick feed show -s": the JSON members "so_..." in @buf.
 */
static void arb_so(int fr, int tap, uint32_t id, char *buf, size_t len)
{
	struct ibtick_arb_stats st, mst;
	struct sockaddr_ibtick sa = by_id(id);
	socklen_t l = sizeof(st);
	int s, same, plain;

	memset(&st, 0, sizeof(st));
	memset(&mst, 0, sizeof(mst));
	if (getsockopt(fr, SOL_IBTICK, IBTICK_ARB_STATISTICS, &st, &l) < 0 ||
	    st.nrails != 2) {
		perror("arbtest: IBTICK_ARB_STATISTICS");
		snprintf(buf, len, "\"so_ok\": false, ");
		return;
	}
	s = sock();
	mst.feed_id = id;
	l = sizeof(mst);
	same = !setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &sa, sizeof(sa)) &&
	       !getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &mst, &l) &&
	       mst.delivered == st.delivered &&
	       mst.rail[0].won == st.rail[0].won && mst.rail[1].won == st.rail[1].won;
	close(s);
	/* a plain feed (the tap) does not arbitrate */
	l = sizeof(mst);
	mst.feed_id = 0;
	plain = getsockopt(tap, SOL_IBTICK, IBTICK_ARB_STATISTICS, &mst, &l) < 0 &&
		errno == EOPNOTSUPP;
	snprintf(buf, len,
		 "\"so_ok\": true, \"so_plain_eopnotsupp\": %s, "
		 "\"so_member_same\": %s, \"so_delivered\": %llu, "
		 "\"so_gap_numbers\": %llu, \"so_rx\": [%llu, %llu], "
		 "\"so_won\": [%llu, %llu], \"so_dup\": [%llu, %llu], "
		 "\"so_lag_n\": [%llu, %llu], \"so_late\": [%llu, %llu], ",
		 plain ? "true" : "false", same ? "true" : "false",
		 (unsigned long long)st.delivered,
		 (unsigned long long)st.gap_numbers,
		 (unsigned long long)st.rail[0].rx, (unsigned long long)st.rail[1].rx,
		 (unsigned long long)st.rail[0].won, (unsigned long long)st.rail[1].won,
		 (unsigned long long)st.rail[0].dup, (unsigned long long)st.rail[1].dup,
		 (unsigned long long)st.rail[0].lag_n,
		 (unsigned long long)st.rail[1].lag_n,
		 (unsigned long long)st.rail[0].late,
		 (unsigned long long)st.rail[1].late);
}

static int table(uint32_t arb, uint32_t rail)
{
	struct sockaddr_ibtick a = by_id(arb), r = by_id(rail), b, got;
	struct ibtick_arb_stats as;
	struct ibtick_member m[2];
	socklen_t len;
	uint32_t id;
	int s;

	s = sock();
	EXPECT_OK(bind(s, (struct sockaddr *)&a, sizeof(a)), "bind by id: the arbitrated feed");
	len = sizeof(got);
	EXPECT_OK(getsockname(s, (struct sockaddr *)&got, &len), "getsockname");
	memcpy(&id, got.sibt_group, 4);
	check(got.sibt_flags == IBTICK_ADDR_FEED_ID && id == arb && !got.sibt_port &&
	      !got.sibt_group_family, "getsockname names the feed by id", 0);
	EXPECT_ERR(connect(s, (struct sockaddr *)&a, sizeof(a)), EOPNOTSUPP,
		   "connect by id to an arbitrated feed: EOPNOTSUPP");
	len = sizeof(as);
	memset(&as, 0, sizeof(as));
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		  "IBTICK_ARB_STATISTICS of bind()'s feed");
	check(len == sizeof(as) && as.feed_id == arb && as.nrails == 2 &&
	      as.rail[0].index == 0 && as.rail[1].index == 1,
	      "IBTICK_ARB_STATISTICS: the feed, its 2 rails", 0);
	len = 8;
	memset(&as, 0, sizeof(as));
	as.delivered = 12345;
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		  "IBTICK_ARB_STATISTICS, its first 8 bytes");
	check(len == 8 && as.nrails == 2 && as.delivered == 12345,
	      "8 bytes asked, 8 copied", 0);
	len = 4;
	EXPECT_ERR(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		   EINVAL, "IBTICK_ARB_STATISTICS in 4 bytes: EINVAL");
	len = sizeof(as);
	memset(&as, 0, sizeof(as));
	as.feed_id = 0x7ffffff0;
	EXPECT_ERR(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		   EADDRNOTAVAIL, "IBTICK_ARB_STATISTICS of a feed not read: EADDRNOTAVAIL");
	close(s);
	s = sock();
	len = sizeof(as);
	memset(&as, 0, sizeof(as));
	EXPECT_ERR(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		   ENOTCONN, "IBTICK_ARB_STATISTICS unbound: ENOTCONN");
	EXPECT_ERR(connect(s, (struct sockaddr *)&a, sizeof(a)), EOPNOTSUPP,
		   "publish by id to an arbitrated feed: EOPNOTSUPP");
	EXPECT_ERR(bind(s, (struct sockaddr *)&r, sizeof(r)), EADDRNOTAVAIL,
		   "bind by id to a rail: EADDRNOTAVAIL");
	b = by_id(0x7ffffff0);
	EXPECT_ERR(bind(s, (struct sockaddr *)&b, sizeof(b)), EADDRNOTAVAIL,
		   "bind by an unknown id: EADDRNOTAVAIL");
	b = by_id(arb);
	b.sibt_port = 1;
	EXPECT_ERR(bind(s, (struct sockaddr *)&b, sizeof(b)), EINVAL,
		   "by id with a port: EINVAL");
	b = by_id(arb);
	b.sibt_group_family = AF_INET;
	EXPECT_ERR(bind(s, (struct sockaddr *)&b, sizeof(b)), EINVAL,
		   "by id with a group family: EINVAL");
	b = by_id(0);
	EXPECT_ERR(bind(s, (struct sockaddr *)&b, sizeof(b)), EINVAL, "id 0: EINVAL");
	EXPECT_OK(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &a, sizeof(a)),
		  "IBTICK_ADD_FEED by id");
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &a, sizeof(a)),
		   EADDRINUSE, "the same feed again: EADDRINUSE");
	len = sizeof(as);
	memset(&as, 0, sizeof(as));
	as.feed_id = arb;
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_ARB_STATISTICS, &as, &len),
		  "IBTICK_ARB_STATISTICS of a member feed by its id");
	check(as.feed_id == arb && as.nrails == 2,
	      "IBTICK_ARB_STATISTICS of the member: its rails", 0);
	EXPECT_ERR(setsockopt(s, SOL_IBTICK, IBTICK_ADD_FEED, &r, sizeof(r)),
		   EADDRNOTAVAIL, "IBTICK_ADD_FEED of a rail: EADDRNOTAVAIL");
	len = sizeof(m);
	EXPECT_OK(getsockopt(s, SOL_IBTICK, IBTICK_FEEDS, m, &len), "IBTICK_FEEDS");
	memcpy(&id, m[0].addr.sibt_group, 4);
	check(len == sizeof(m[0]) && m[0].feed_id == arb &&
	      m[0].addr.sibt_flags == IBTICK_ADDR_FEED_ID && id == arb,
	      "IBTICK_FEEDS names it by id", 0);
	EXPECT_OK(setsockopt(s, SOL_IBTICK, IBTICK_DROP_FEED, &a, sizeof(a)),
		  "IBTICK_DROP_FEED by id");
	close(s);
	printf("%d passed, %d failed\n", vm_pass, vm_fail);
	return vm_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t n, s, k, sent = 0, skip_both = 0, skip_a = 0, skip_b = 0;
	uint64_t reset_at = 0, rate = 4000, settle_ms = 500, t0, due;
	uint64_t n_a = 0, n_b = 0, delivered = 0, gap_numbers = 0;
	uint64_t ns_a = 0, ns_b = 0, cqe_a = 0, cqe_b = 0;
	struct verdict v = { 0 };
	struct sockaddr_ibtick byid, pa, pb, ra, rb;
	int fa, fb, ta, tb, fr, i, shorty = 0, ok;
	struct seen sn = { 0 };
	uint32_t id;
	uint8_t pay[16] = { 0 };
	char so[512];

	vm_fam = ibtick_family();
	if (vm_fam < 0) {
		fprintf(stderr, "arbtest: no ibtick family (module not loaded?)\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[1], "table"))
		return table((uint32_t)strtoul(argv[2], NULL, 0),
			     (uint32_t)strtoul(argv[3], NULL, 0));
	if (argc < 7) {
		fprintf(stderr, "usage: arbtest FEED_ID GA:PA@PUB_A GB:PB@PUB_B GA:PA@RX_A GB:PB@RX_B N [opts]\n"
			"       arbtest table ARB_ID RAIL_ID\n");
		return 2;
	}
	id = (uint32_t)strtoul(argv[1], NULL, 0);
	pa = parse_rail(argv[2]);
	pb = parse_rail(argv[3]);
	ra = parse_rail(argv[4]);
	rb = parse_rail(argv[5]);
	n = strtoull(argv[6], NULL, 0);
	for (i = 7; i < argc; i++) {
		if (!strcmp(argv[i], "--short"))
			shorty = 1;
		else if (!strcmp(argv[i], "--b-apart"))
			b_apart = 1;
		else if (i + 1 >= argc)
			return fprintf(stderr, "arbtest: %s needs a value\n", argv[i]), 2;
		else if (!strcmp(argv[i], "--skip-both"))
			skip_both = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--skip-a"))
			skip_a = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--skip-b"))
			skip_b = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rate"))
			rate = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reset-at"))
			reset_at = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--settle"))
			settle_ms = strtoull(argv[++i], NULL, 0);
		else
			return fprintf(stderr, "arbtest: unknown %s\n", argv[i]), 2;
	}
	if (!n || !rate || (reset_at && reset_at >= n))
		return fprintf(stderr, "arbtest: bad N, rate or reset-at\n"), 2;
	/* numbers are per session: with a reset, session 2 reuses 1.. */
	sn.a = calloc(n + 1, 1);
	sn.b = calloc(n + 1, 1);
	sn.arb = calloc(n + 1, 1);
	sn.gap = calloc(n + 1, 1);
	sn.rail = calloc(n + 1, 1);
	if (!sn.a || !sn.b || !sn.arb || !sn.gap || !sn.rail)
		return 2;

	byid = by_id(id);
	fr = bound(&byid);
	ta = bound(&ra);
	tb = bound(&rb);
	fa = publisher(&pa);
	fb = publisher(&pb);
	fprintf(stderr, "arbtest: bound\n");

	t0 = now_ns();
	for (k = 1; k <= n; k++) {
		/* with a reset the second session is k - reset_at */
		s = reset_at && k > reset_at ? k - reset_at : k;
		due = t0 + (k - 1) * 1000000000ull / rate;
		do {	/* behind the schedule too: the readers keep up */
			drain_all(ta, tb, fr, &sn, n);
		} while (now_ns() < due);
		if (skip_both && s % skip_both == 0)
			continue;
		memcpy(pay, &s, 8);
		if (!(skip_a && s % skip_a == 0) &&
		    send(fa, pay, shorty ? 4 : sizeof(pay), 0) < 0)
			perror("arbtest: send A");
		if (!(skip_b && s % skip_b == 0) &&
		    send(fb, pay, shorty ? 4 : sizeof(pay), 0) < 0)
			perror("arbtest: send B");
		sent++;
		if (reset_at && k == reset_at) {
			/* session 1 is over: check it, then start afresh */
			settle(ta, tb, fr, &sn, n, settle_ms);
			check_session(&sn, n, &v);
			n_a += sn.n_a;
			n_b += sn.n_b;
			delivered += sn.delivered;
			gap_numbers += sn.gap_numbers;
			memset(sn.a, 0, n + 1);
			memset(sn.b, 0, n + 1);
			memset(sn.arb, 0, n + 1);
			memset(sn.gap, 0, n + 1);
			memset(sn.rail, 0, n + 1);
			/* session 2 keeps the rate: no burst to catch up */
			t0 = now_ns() - k * 1000000000ull / rate;
			sn.n_a = sn.n_b = sn.delivered = sn.gap_numbers = 0;
			sn.max_seen = 0;
		}
	}
	settle(ta, tb, fr, &sn, n, settle_ms);
	check_session(&sn, n, &v);
	n_a += sn.n_a;
	n_b += sn.n_b;
	delivered += sn.delivered;
	gap_numbers += sn.gap_numbers;
	tap_cost(ta, &ns_a, &cqe_a);
	tap_cost(tb, &ns_b, &cqe_b);
	arb_so(fr, ta, id, so, sizeof(so));
	ok = !v.miss && !v.extra && !v.gap_wrong && !sn.dup && !sn.order_bad &&
	     !sn.rail_bad && !sn.range_bad && !sn.nodata_len_bad;
	printf("{\"sent\": %llu, \"tap_a\": %llu, \"tap_b\": %llu, \"delivered\": %llu, "
	       "\"gap_numbers\": %llu, \"markers\": %llu, \"expected_gap_numbers\": %llu, "
	       "\"late\": %llu, \"resets\": %llu, \"missing\": %llu, \"extra\": %llu, "
	       "\"gap_wrong\": %llu, \"dup\": %llu, \"order_bad\": %llu, "
	       "\"rail_bad\": %llu, \"bad\": %llu, \"tap_a_drain_ns\": %llu, "
	       "\"tap_a_cqes\": %llu, \"tap_b_drain_ns\": %llu, \"tap_b_cqes\": %llu, "
	       "%s\"ok\": %s}\n",
	       (unsigned long long)sent, (unsigned long long)n_a,
	       (unsigned long long)n_b, (unsigned long long)delivered,
	       (unsigned long long)gap_numbers, (unsigned long long)sn.markers,
	       (unsigned long long)v.exp_gap, (unsigned long long)sn.late,
	       (unsigned long long)sn.resets, (unsigned long long)v.miss,
	       (unsigned long long)v.extra, (unsigned long long)v.gap_wrong,
	       (unsigned long long)sn.dup, (unsigned long long)sn.order_bad,
	       (unsigned long long)sn.rail_bad,
	       (unsigned long long)(sn.range_bad + sn.nodata_len_bad),
	       (unsigned long long)ns_a, (unsigned long long)cqe_a,
	       (unsigned long long)ns_b, (unsigned long long)cqe_b,
	       so, ok ? "true" : "false");
	return ok ? 0 : 1;
}
