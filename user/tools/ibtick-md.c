// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-md: a market-data feed over ibtick, end to end, for the demo and
 * for anyone who wants to see what an application on a feed sees.
 *
 *   ibtick-md publish -i IF [-x SPEED] [-l LIMIT] FILE GROUP PORT
 *   ibtick-md read    -i IF [-k KIND] [-o STATUS] [-t IDLE_S] GROUP PORT
 *
 * publish replays a stream file written by ibtick-gen(1) at its own pace
 * (the gaps between exchange timestamps, divided by SPEED), stamping each
 * message's send time just before send(2).
 *
 * read decodes every message (tickgen.h's wire format), checks the
 * exchange sequence numbers (a jump is a gap: messages this reader never
 * saw), keeps the books, and measures each message's latency from the
 * publisher's send time to the moment it has it (one host, one clock).
 * With -o it rewrites STATUS (JSON) four times a second for a live view
 * (latency percentiles there over the last 8192 messages);
 * at the end, after IDLE_S seconds without a message (default 3) or when
 * the feed goes away, it prints its totals as one JSON object:
 * delivered + lost_ring == feed_rx (what the feed took) and, for a
 * reader bound before the stream began, the sequence numbers it never saw
 * - those before its first (first_seq - 1), skipped by its gaps
 * (gap_msgs) and after its last, less those that came late (reordered,
 * late) - are exactly what the ring and the wire lost.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "latstats.h"
#include "libibtick.h"
#include "tickgen.h"
#include "tickrd.h"

#define NUM(arg, min, max)	arg_num(PROG, arg, min, max)
#define PROG	"ibtick-md"

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s publish -i IF [-x SPEED] [-l LIMIT] FILE GROUP PORT\n"
		"       %s read -i IF [-k mapped|epoll|recvmsg|busy] [-o STATUS] [-t IDLE_S] GROUP PORT\n",
		PROG, PROG);
	exit(2);
}

/* ---- publish ------------------------------------------------------------- */

static int do_publish(int argc, char **argv)
{
	const char *ifname = NULL;
	uint64_t sent = 0, eagain = 0, limit = UINT64_MAX, t0, first = 0;
	struct tickgen_file_hdr h;
	uint8_t buf[TICKGEN_WIRE_SIZE];
	double speed = 1;
	struct md_tick t;
	int opt, fd, rc;
	FILE *f;

	while ((opt = getopt(argc, argv, "i:x:l:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'x': speed = (double)NUM(optarg, 1, 1000); break;
		case 'l': limit = (uint64_t)NUM(optarg, 1, 1L << 40); break;
		default: usage();
		}
	}
	if (argc - optind != 3)
		usage();
	f = fopen(argv[optind], "rb");
	if (!f)
		die(argv[optind]);
	rc = tickgen_file_read_hdr(f, &h);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", PROG, argv[optind], tickgen_strerror(-rc));
		return 1;
	}
	fd = ibtick_publisher_open(argv[optind + 1],
				   (unsigned int)NUM(argv[optind + 2], 1, 65535), ifname);
	if (fd < 0)
		die("publisher: socket/connect (needs CAP_NET_RAW)");
	t0 = now_ns(CLOCK_MONOTONIC);
	while (sent < limit && (rc = tickgen_file_read_tick(f, &t)) == 1) {
		uint64_t due;

		if (!sent)
			first = t.exch_ns;
		/* the stream's own pace: its exchange clock, sped up */
		due = t0 + (uint64_t)((double)(t.exch_ns - first) / speed);
		while (now_ns(CLOCK_MONOTONIC) < due) {
			uint64_t left = due - now_ns(CLOCK_MONOTONIC);

			if (left > 200000) {
				struct timespec ts = { 0, (long)(left - 100000) };

				nanosleep(&ts, NULL);
			}
		}
		md_encode(buf, &t);
		md_wire_set_send_ns(buf, now_ns(CLOCK_REALTIME));
		if (tickrd_send(fd, buf, sizeof(buf), &eagain))
			die("send");
		sent++;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s: record %" PRIu64 ": %s\n", PROG, argv[optind],
			sent, tickgen_strerror(-rc));
		return 1;
	}
	printf("{\"published\":%" PRIu64 ",\"seconds\":%.3f,\"send_eagain\":%" PRIu64 "}\n",
	       sent, (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9, eagain);
	close(fd);
	fclose(f);
	return 0;
}

/* ---- read ---------------------------------------------------------------- */

struct md_reader {
	struct tickrd		d;
	const char		*status;
	uint64_t		delivered, invalid, gaps, gap_msgs, late;
	uint64_t		first_seq, next_seq;
	uint64_t		*lat;
	size_t			nlat, cap;
	struct tickgen_book	book[TICKGEN_NCONTRACTS];
	uint64_t		last_report, last_delivered;
	double			rate;
};

static void account(struct md_reader *m, const struct md_tick *t, uint64_t lat)
{
	struct tickgen_book *b = &m->book[t->contract - 1];

	if (!m->next_seq) {
		m->first_seq = t->seq;
	} else if (t->seq > m->next_seq) {
		m->gaps++;
		m->gap_msgs += t->seq - m->next_seq;
	} else if (t->seq < m->next_seq) {
		/* reordered: counted missing by the gap it left, then came */
		m->late++;
		return;
	}
	m->next_seq = t->seq + 1;
	switch (t->type) {
	case MD_BID: b->bid = t->price; b->bid_qty = t->qty; break;
	case MD_ASK: b->ask = t->price; b->ask_qty = t->qty; break;
	case MD_TRADE: b->volume = t->volume; break;
	}
	if (m->nlat == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 65536;
		uint64_t *nl = realloc(m->lat, cap * sizeof(*nl));

		if (!nl)
			die("realloc");
		m->lat = nl;
		m->cap = cap;
	}
	m->lat[m->nlat++] = lat;
}

/* Live percentiles are over the latest messages only: cheap to sort. */
#define LIVE_WINDOW	8192

/*
 * The reader's state as one JSON object: latency percentiles over every
 * message when @final, over the last LIVE_WINDOW while live (the reader
 * must not stall on its own statistics in the middle of a burst).
 */
static void print_state(struct md_reader *m, FILE *f, bool final)
{
	size_t n = final || m->nlat < LIVE_WINDOW ? m->nlat : LIVE_WINDOW;
	struct ibtick_stats st;
	struct latstats s;
	uint64_t *copy = NULL;
	unsigned int c;
	char px[32];

	if (tickrd_stats(&m->d, &st))
		memset(&st, 0, sizeof(st));
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			die("malloc");
		memcpy(copy, m->lat + (m->nlat - n), n * sizeof(*copy));
	}
	latstats_compute(&s, copy, n);
	free(copy);
	fprintf(f, "{\"kind\":\"%s\",\"final\":%s,\"delivered\":%" PRIu64
		",\"rate\":%.0f,\"lost_ring\":%" PRIu64 ",\"feed_rx\":%" PRIu64
		",\"gaps\":%" PRIu64 ",\"gap_msgs\":%" PRIu64 ",\"late\":%" PRIu64
		",\"invalid\":%" PRIu64 ",\"first_seq\":%" PRIu64 ",\"last_seq\":%" PRIu64
		",\"lat_us\":{\"median\":%.1f,\"p99\":%.1f,\"p99.9\":%.1f,\"max\":%.1f}",
		tickrd_kind_names[m->d.kind], final ? "true" : "false",
		m->delivered, m->rate, m->d.lost, (uint64_t)st.feed_rx_ticks,
		m->gaps, m->gap_msgs, m->late, m->invalid, m->first_seq,
		m->next_seq ? m->next_seq - 1 : 0, s.typical / 1e3, s.p99 / 1e3,
		s.p99_9 / 1e3, s.max / 1e3);
	fprintf(f, ",\"books\":{");
	for (c = 0; c < TICKGEN_NCONTRACTS; c++) {
		const struct tickgen_contract *k = tickgen_contract(c + 1);

		fprintf(f, "%s\"%s\":{\"bid\":\"%s\"", c ? "," : "", k->symbol,
			tickgen_fmt_price(px, sizeof(px), k, m->book[c].bid));
		fprintf(f, ",\"ask\":\"%s\",\"volume\":%" PRIu64 "}",
			tickgen_fmt_price(px, sizeof(px), k, m->book[c].ask),
			m->book[c].volume);
	}
	fprintf(f, "}}\n");
}

/* Rewrite the status file in one step (rename), for a live reader of it. */
static void report(struct md_reader *m)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	char tmp[4096];
	FILE *f;

	if (now - m->last_report < 250000000ULL)
		return;
	if (m->last_report)
		m->rate = (double)(m->delivered - m->last_delivered) * 1e9 /
			  (double)(now - m->last_report);
	m->last_report = now;
	m->last_delivered = m->delivered;
	if (!m->status)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", m->status);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	print_state(m, f, false);
	fclose(f);
	if (rename(tmp, m->status))
		die(m->status);
}

static int do_read(int argc, char **argv)
{
	struct tickrd_opts ro = { .busy_cpu = -2 };
	enum tickrd_kind kind = TICKRD_MAPPED;
	static struct md_reader m;
	const char *ifname = NULL;
	uint8_t buf[2048];
	int opt, idle_ms = 3000;
	uint64_t ts[2], last_rx;
	ssize_t got;

	while ((opt = getopt(argc, argv, "i:k:o:t:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'k':
			opt = tickrd_kind_parse(optarg);
			if (opt < 0)
				usage();
			kind = (enum tickrd_kind)opt;
			break;
		case 'o': m.status = optarg; break;
		case 't': idle_ms = (int)NUM(optarg, 1, 3600) * 1000; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	if (tickrd_open(&m.d, kind, argv[optind],
			(unsigned int)NUM(argv[optind + 1], 1, 65535), ifname, &ro))
		die(m.d.failed);
	fprintf(stderr, "%s: %s reader bound\n", PROG, tickrd_kind_names[kind]);
	last_rx = now_ns(CLOCK_MONOTONIC);
	for (;;) {
		struct md_tick t;

		got = tickrd_get(&m.d, buf, sizeof(buf), ts, 250);
		if (got < 0 && errno != ENODEV)
			die("reading the feed");
		if (got < 0)
			break;
		if (got > 0) {
			uint64_t now = now_ns(CLOCK_REALTIME);

			if (md_decode(buf, (size_t)got, &t)) {
				m.invalid++;
			} else {
				m.delivered++;
				account(&m, &t, now > t.send_ns ? now - t.send_ns : 0);
			}
			last_rx = now_ns(CLOCK_MONOTONIC);
		}
		report(&m);
		/* quiet for IDLE_S after the stream, or for a minute before it */
		if (got == 0 && now_ns(CLOCK_MONOTONIC) - last_rx >
		    (m.delivered ? (uint64_t)idle_ms : 60000ULL) * 1000000)
			break;
	}
	print_state(&m, stdout, true);
	if (m.status) {
		FILE *f = fopen(m.status, "w");

		if (f) {
			print_state(&m, f, true);
			fclose(f);
		}
	}
	tickrd_close(&m.d);
	free(m.lat);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "publish"))
		return do_publish(argc - 1, argv + 1);
	if (!strcmp(argv[1], "read"))
		return do_read(argc - 1, argv + 1);
	usage();
	return 2;
}
