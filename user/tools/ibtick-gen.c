// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-gen: write or inspect a synthetic futures market-data stream.
 *
 *   ibtick-gen [-s SEED] [-n COUNT] [-r RATE] [-c CHANNEL] [-o FILE]
 *   ibtick-gen -d FILE [-j]
 *
 * The first form writes COUNT messages (default 100000) of the tickgen
 * stream for SEED (default 1) at a mean RATE messages per second (default
 * 20000) to FILE, or to standard output for "-" or no -o (never to a
 * terminal).  The second reads a stream file ("-": standard input), checks
 * it (sequence, clock, books, trades, volumes) and summarises it, as text or
 * as JSON with -j; exit status 1 if the file is unreadable or a check fails.
 * See user/bench/tickgen.h for the message and file formats.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out.h"
#include "tickgen.h"

#define USAGE								\
	"Usage: ibtick-gen [-s SEED] [-n COUNT] [-r RATE] [-c CHANNEL] [-o FILE]\n" \
	"       ibtick-gen -d FILE [-j]\n"					\
	"  -s SEED     generator seed, any 64-bit number (default 1)\n"	\
	"  -n COUNT    messages to write (default 100000)\n"		\
	"  -r RATE     mean messages per second, 1..1000000000 (default 20000)\n" \
	"  -c CHANNEL  channel id stamped on the messages, 0..65535 (default 1)\n" \
	"  -o FILE     output file, \"-\" for standard output (the default)\n" \
	"  -d FILE     check and summarise a stream file (\"-\": standard input)\n" \
	"  -j          with -d: JSON instead of text\n"

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("ibtick-gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n" USAGE, stderr);
	return 2;
}

/* A whole unsigned decimal or 0x number, at most @max. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > max)
		return false;
	*v = x;
	return true;
}

static int generate(const char *path, uint64_t seed, uint64_t count,
		    uint64_t rate, uint16_t channel)
{
	bool std = !path || !strcmp(path, "-");
	FILE *f = std ? stdout : fopen(path, "wb");
	int err;

	if (std && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ibtick-gen: not writing binary ticks to a terminal; use -o FILE or redirect\n");
		return 2;
	}
	if (!f) {
		fprintf(stderr, "ibtick-gen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	err = tickgen_file_write_stream(f, seed, rate, channel, count);
	if (!err && !std && fclose(f))
		err = -TICKGEN_E_IO;
	if (err) {
		fprintf(stderr, "ibtick-gen: %s: %s%s%s\n", std ? "stdout" : path,
			tickgen_strerror(err), err == -TICKGEN_E_IO ? ": " : "",
			err == -TICKGEN_E_IO ? strerror(errno) : "");
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * -d: read, check, summarise
 * ----------------------------------------------------------------------
 */
struct cstat {
	uint64_t	msgs, bids, asks, trades, volume;
	int64_t		low, high, last_trade;
	/* the book as a reader sees it */
	int64_t		bid, ask;
	uint64_t	vol_seen;
};

struct summary {
	struct tickgen_file_hdr h;
	uint64_t	n, first_seq, last_seq, first_ns, last_ns;
	uint64_t	bursty, zero_gaps, max_gap;
	double		gap_sum, gap_sq;
	uint64_t	win, win_count, peak;	/* 1 ms windows from first_ns */
	/* problems */
	uint64_t	bad_seq, backwards, crossed, off_touch, bad_volume,
			bad_channel, bad_orders;
	struct cstat	c[TICKGEN_NCONTRACTS];
};

static uint64_t problems(const struct summary *s)
{
	return s->bad_seq + s->backwards + s->crossed + s->off_touch +
	       s->bad_volume + s->bad_channel + s->bad_orders;
}

static void account(struct summary *s, const struct md_tick *t)
{
	struct cstat *c = &s->c[t->contract - 1];

	if (!s->n) {
		s->first_seq = t->seq;
		s->first_ns = t->exch_ns;
	} else {
		if (t->seq != s->last_seq + 1)
			s->bad_seq++;
		if (t->exch_ns < s->last_ns) {
			s->backwards++;
		} else {
			uint64_t gap = t->exch_ns - s->last_ns;

			s->gap_sum += gap;
			s->gap_sq += (double)gap * gap;
			if (!gap)
				s->zero_gaps++;
			if (gap > s->max_gap)
				s->max_gap = gap;
		}
	}
	if (t->exch_ns >= s->first_ns) {
		uint64_t w = (t->exch_ns - s->first_ns) / 1000000;

		if (w != s->win) {
			s->win = w;
			s->win_count = 0;
		}
		if (++s->win_count > s->peak)
			s->peak = s->win_count;
	}
	s->n++;
	s->last_seq = t->seq;
	s->last_ns = t->exch_ns;
	if (t->flags & MD_F_BURST)
		s->bursty++;
	if (t->channel != s->h.channel)
		s->bad_channel++;
	if (!t->orders || t->orders > t->qty)
		s->bad_orders++;

	if (!c->msgs || t->price < c->low)
		c->low = t->price;
	if (!c->msgs || t->price > c->high)
		c->high = t->price;
	c->msgs++;
	switch (t->type) {
	case MD_BID:
		c->bids++;
		c->bid = t->price;
		break;
	case MD_ASK:
		c->asks++;
		c->ask = t->price;
		break;
	case MD_TRADE:
		c->trades++;
		c->volume += t->qty;
		c->vol_seen += t->qty;
		c->last_trade = t->price;
		if (t->price != (t->flags & MD_F_BUY ? c->ask : c->bid))
			s->off_touch++;
		break;
	}
	if (t->volume != c->vol_seen)
		s->bad_volume++;
	if (t->type != MD_TRADE && c->bid && c->ask && c->bid >= c->ask)
		s->crossed++;
}

static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	time_t sec = ns / 1000000000;
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRIu64 "Z",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ns % 1000000000);
}

struct derived {
	double	secs, mean_rate, peak_rate, gap_mean, gap_cv, burst_frac,
		zero_frac;
};

static void derive(const struct summary *s, struct derived *d)
{
	uint64_t ngaps = s->n > 1 ? s->n - 1 - s->backwards : 0;

	memset(d, 0, sizeof(*d));
	if (s->n > 1 && s->last_ns > s->first_ns) {
		d->secs = (s->last_ns - s->first_ns) / 1e9;
		d->mean_rate = (s->n - 1) / d->secs;
	}
	d->peak_rate = s->peak * 1000.0;
	if (ngaps) {
		double var;

		d->gap_mean = s->gap_sum / ngaps;
		var = s->gap_sq / ngaps - d->gap_mean * d->gap_mean;
		d->gap_cv = d->gap_mean > 0 && var > 0 ?
			    sqrt(var) / d->gap_mean : 0;
		d->zero_frac = (double)s->zero_gaps / ngaps;
	}
	if (s->n)
		d->burst_frac = (double)s->bursty / s->n;
}

static void print_text(const char *path, const struct summary *s)
{
	char a[48], b[48];
	struct derived d;
	unsigned int i;

	derive(s, &d);
	printf("%s: %" PRIu64 " messages, seed %" PRIu64 ", rate %" PRIu64
	       "/s, channel %u\n", path, s->n, s->h.seed, s->h.rate,
	       s->h.channel);
	if (!s->n)
		return;
	fmt_time(a, sizeof(a), s->first_ns);
	fmt_time(b, sizeof(b), s->last_ns);
	printf("time    %s .. %s (%.6f s)\n", a, b, d.secs);
	printf("seq     %" PRIu64 " .. %" PRIu64 "\n", s->first_seq, s->last_seq);
	printf("rate    mean %.0f/s, peak %.0f/s (1 ms windows), %.1f%% of messages in bursts\n",
	       d.mean_rate, d.peak_rate, 100 * d.burst_frac);
	printf("gaps    mean %.2f us, cv %.2f, max %.3f ms, %.1f%% zero (same event)\n",
	       d.gap_mean / 1e3, d.gap_cv, s->max_gap / 1e6, 100 * d.zero_frac);
	printf("\n%-3s %-4s %9s %8s %8s %8s %9s %12s %12s %12s\n", "id", "sym",
	       "messages", "bids", "asks", "trades", "volume", "low", "high",
	       "last");
	for (i = 0; i < TICKGEN_NCONTRACTS; i++) {
		const struct tickgen_contract *k = tickgen_contract(i + 1);
		const struct cstat *c = &s->c[i];
		char lo[32] = "-", hi[32] = "-", last[32] = "-";

		if (c->msgs) {
			tickgen_fmt_price(lo, sizeof(lo), k, c->low);
			tickgen_fmt_price(hi, sizeof(hi), k, c->high);
		}
		if (c->trades)
			tickgen_fmt_price(last, sizeof(last), k, c->last_trade);
		printf("%-3u %-4s %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8"
		       PRIu64 " %9" PRIu64 " %12s %12s %12s\n", k->id, k->symbol,
		       c->msgs, c->bids, c->asks, c->trades, c->volume, lo, hi,
		       last);
	}
	putchar('\n');
	if (!problems(s)) {
		printf("checks  ok: sequence consecutive, clock monotonic, books uncrossed, trades at the touch, volumes add up\n");
		return;
	}
	printf("checks  %" PRIu64 " problems: sequence %" PRIu64
	       ", clock backwards %" PRIu64 ", crossed %" PRIu64
	       ", trade off the touch %" PRIu64 ", volume %" PRIu64
	       ", channel %" PRIu64 ", orders %" PRIu64 "\n", problems(s),
	       s->bad_seq, s->backwards, s->crossed, s->off_touch,
	       s->bad_volume, s->bad_channel, s->bad_orders);
}

static void print_json(const char *path, const struct summary *s)
{
	struct derived d;
	unsigned int i;
	char p[32];

	derive(s, &d);
	fputs("{\"file\":", stdout);
	out_json_escape(stdout, path);
	printf(",\"version\":%u,\"seed\":%" PRIu64 ",\"rate\":%" PRIu64
	       ",\"channel\":%u,\"start_ns\":%" PRIu64 ",\"count\":%" PRIu64,
	       s->h.version, s->h.seed, s->h.rate, s->h.channel,
	       s->h.start_ns, s->n);
	printf(",\"first_seq\":%" PRIu64 ",\"last_seq\":%" PRIu64
	       ",\"first_ns\":%" PRIu64 ",\"last_ns\":%" PRIu64
	       ",\"duration_ns\":%" PRIu64, s->first_seq, s->last_seq,
	       s->first_ns, s->last_ns, s->n ? s->last_ns - s->first_ns : 0);
	printf(",\"mean_rate\":%.1f,\"peak_rate_1ms\":%.0f,\"burst_fraction\":%.4f"
	       ",\"gap_mean_ns\":%.1f,\"gap_cv\":%.3f,\"gap_max_ns\":%" PRIu64
	       ",\"zero_gap_fraction\":%.4f", d.mean_rate, d.peak_rate,
	       d.burst_frac, d.gap_mean, d.gap_cv, s->max_gap, d.zero_frac);
	fputs(",\"contracts\":[", stdout);
	for (i = 0; i < TICKGEN_NCONTRACTS; i++) {
		const struct tickgen_contract *k = tickgen_contract(i + 1);
		const struct cstat *c = &s->c[i];

		printf("%s{\"id\":%u,\"symbol\":\"%s\",\"messages\":%" PRIu64
		       ",\"bids\":%" PRIu64 ",\"asks\":%" PRIu64 ",\"trades\":%"
		       PRIu64 ",\"volume\":%" PRIu64, i ? "," : "", k->id,
		       k->symbol, c->msgs, c->bids, c->asks, c->trades,
		       c->volume);
		if (c->msgs) {
			printf(",\"low\":%s", tickgen_fmt_price(p, sizeof(p), k, c->low));
			printf(",\"high\":%s", tickgen_fmt_price(p, sizeof(p), k, c->high));
		} else {
			fputs(",\"low\":null,\"high\":null", stdout);
		}
		if (c->trades)
			printf(",\"last\":%s}", tickgen_fmt_price(p, sizeof(p), k, c->last_trade));
		else
			fputs(",\"last\":null}", stdout);
	}
	printf("],\"problems\":{\"total\":%" PRIu64 ",\"sequence\":%" PRIu64
	       ",\"clock_backwards\":%" PRIu64 ",\"crossed\":%" PRIu64
	       ",\"trade_off_touch\":%" PRIu64 ",\"volume\":%" PRIu64
	       ",\"channel\":%" PRIu64 ",\"orders\":%" PRIu64 "}}\n",
	       problems(s), s->bad_seq, s->backwards, s->crossed, s->off_touch,
	       s->bad_volume, s->bad_channel, s->bad_orders);
}

static int dump(const char *path, bool json)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	struct summary *s;
	struct md_tick t;
	int err, rc = 0;

	if (!f) {
		fprintf(stderr, "ibtick-gen: %s: %s\n", path, strerror(errno));
		return 1;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "ibtick-gen: out of memory\n");
		return 1;
	}
	err = tickgen_file_read_hdr(f, &s->h);
	while (!err && s->n < s->h.count) {
		err = tickgen_file_read_tick(f, &t);
		if (err == 1) {
			account(s, &t);
			err = 0;
		} else if (!err) {
			err = -TICKGEN_E_TRUNC;
		}
	}
	if (err) {
		fprintf(stderr, "ibtick-gen: %s: %s", path, tickgen_strerror(err));
		if (err == -TICKGEN_E_IO)
			fprintf(stderr, ": %s", strerror(errno));
		else if (s->h.version)
			fprintf(stderr, " (record %" PRIu64 " of %" PRIu64 ")",
				s->n + 1, s->h.count);
		fputc('\n', stderr);
		rc = 1;
	} else if (fgetc(f) != EOF) {
		fprintf(stderr, "ibtick-gen: %s: data after the %" PRIu64
			" records the header announces\n", path, s->h.count);
		rc = 1;
	} else {
		if (json)
			print_json(path, s);
		else
			print_text(path, s);
		if (problems(s))
			rc = 1;
	}
	if (!std)
		fclose(f);
	free(s);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, count = 100000, rate = TICKGEN_RATE_DEFAULT;
	uint64_t channel = TICKGEN_CHANNEL_DEFAULT;
	const char *out = NULL, *in = NULL;
	bool json = false, gen_opt = false;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:r:c:o:d:jh")) != -1) {
		switch (opt) {
		case 's':
			if (!parse_u64(optarg, UINT64_MAX, &seed))
				return usage_error("bad seed \"%s\"", optarg);
			gen_opt = true;
			break;
		case 'n':
			if (!parse_u64(optarg, UINT64_MAX, &count))
				return usage_error("bad count \"%s\"", optarg);
			gen_opt = true;
			break;
		case 'r':
			if (!parse_u64(optarg, TICKGEN_RATE_MAX, &rate) || !rate)
				return usage_error("bad rate \"%s\" (1..1000000000 messages/s)", optarg);
			gen_opt = true;
			break;
		case 'c':
			if (!parse_u64(optarg, UINT16_MAX, &channel))
				return usage_error("bad channel \"%s\" (0..65535)", optarg);
			gen_opt = true;
			break;
		case 'o':
			out = optarg;
			gen_opt = true;
			break;
		case 'd':
			in = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return 0;
		default:
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	if (in && gen_opt)
		return usage_error("-d cannot be combined with -s, -n, -r, -c or -o");
	if (json && !in)
		return usage_error("-j only goes with -d");
	if (in)
		return dump(in, json);
	return generate(out, seed, count, rate, channel);
}
