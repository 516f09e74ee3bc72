// SPDX-License-Identifier: GPL-2.0
/*
 * Latency statistics: hand-computed statistics, nearest-rank percentiles,
 * the perftest-style row, the histogram's conservation and the SVG.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "latstats.h"
#include "unit.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-9 * (fabs((double)(b)) + 1))

static uint64_t *seq(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));
	size_t i;

	for (i = 0; v && i < n; i++)
		v[i] = i + 1;
	return v;
}

static void lat_one_to_ten(void)
{
	uint64_t v[] = { 7, 10, 1, 9, 3, 2, 8, 5, 4, 6 };
	struct latstats st;
	size_t i;

	latstats_compute(&st, v, 10);
	for (i = 0; i < 10; i++)
		CHECK(v[i] == i + 1);		/* sorted in place */
	CHECK(st.n == 10);
	CHECK(st.min == 1 && st.max == 10);
	CHECK(st.typical == 5.5);		/* mean of the middle two */
	CHECK(st.avg == 5.5);
	CHECK(NEAR(st.stdev, sqrt(8.25)));	/* population: (n^2 - 1) / 12 */
	CHECK(st.p50 == 5);			/* rank ceil(5) = 5 */
	CHECK(st.p90 == 9);
	CHECK(st.p99 == 10 && st.p99_9 == 10 && st.p99_99 == 10);
}

static void lat_small(void)
{
	uint64_t one[] = { 5 }, three[] = { 3, 1, 2 };
	struct latstats st;

	latstats_compute(&st, one, 1);
	CHECK(st.n == 1);
	CHECK(st.min == 5 && st.max == 5 && st.typical == 5 && st.avg == 5);
	CHECK(st.stdev == 0);
	CHECK(st.p50 == 5 && st.p99_99 == 5);

	latstats_compute(&st, three, 3);
	CHECK(three[0] == 1 && three[1] == 2 && three[2] == 3);
	CHECK(st.min == 1 && st.max == 3 && st.typical == 2 && st.avg == 2);
	CHECK(NEAR(st.stdev, sqrt(2.0 / 3)));
	CHECK(st.p50 == 2);			/* rank ceil(1.5) = 2 */
	CHECK(st.p90 == 3);
}

static void lat_empty(void)
{
	struct latstats st;

	memset(&st, 0xff, sizeof(st));
	latstats_compute(&st, NULL, 0);
	CHECK(st.n == 0);
	CHECK(st.min == 0 && st.max == 0 && st.typical == 0);
	CHECK(st.avg == 0 && st.stdev == 0);
	CHECK(st.p50 == 0 && st.p99_99 == 0);
	CHECK(latstats_pct(NULL, 0, 99) == 0);
}

static void lat_thousand(void)
{
	uint64_t *v = seq(1000);
	struct latstats st;

	CHECK(v);
	if (!v)
		return;
	latstats_sorted(&st, v, 1000);
	CHECK(st.p50 == 500 && st.p90 == 900);
	CHECK(st.p99 == 990);
	CHECK(st.p99_9 == 999);			/* 99.9 is not exact in binary */
	CHECK(st.p99_99 == 1000);
	CHECK(st.typical == 500.5 && st.avg == 500.5);
	CHECK(latstats_pct(v, 1000, 0) == 1);
	CHECK(latstats_pct(v, 1000, -5) == 1);
	CHECK(latstats_pct(v, 1000, 0.1) == 1);
	CHECK(latstats_pct(v, 1000, 0.15) == 2);
	CHECK(latstats_pct(v, 1000, 100) == 1000);
	CHECK(latstats_pct(v, 1000, 250) == 1000);
	CHECK(latstats_pct(v, 1000, 99.95) == 1000);	/* rank ceil(999.5) */
	free(v);
}

static void lat_outlier(void)
{
	const uint64_t big = 123456789012ULL;
	size_t n = 10000, i;
	uint64_t *v = malloc(n * sizeof(*v));
	struct latstats st;

	CHECK(v);
	if (!v)
		return;
	for (i = 0; i < n; i++)
		v[i] = 1000;
	v[n / 3] = big;
	latstats_compute(&st, v, n);
	CHECK(st.max == (double)big);		/* exact */
	CHECK(v[n - 1] == big);
	CHECK(st.min == 1000 && st.typical == 1000);
	CHECK(st.p99_99 == 1000);		/* rank 9999 of 10000 */
	CHECK(NEAR(st.avg, (9999.0 * 1000 + (double)big) / 10000));
	free(v);
}

static void lat_stdev(void)
{
	uint64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const uint64_t base = 1000000000000000ULL;	/* 1e15 ns */
	uint64_t w[] = { base + 2, base, base + 1 };
	struct latstats st;

	latstats_compute(&st, v, 8);
	CHECK(st.avg == 5);
	CHECK(NEAR(st.stdev, 2));		/* population: sqrt(32 / 8) */
	/* a large offset must not cancel the spread (sum x^2 - n avg^2 does) */
	latstats_compute(&st, w, 3);
	CHECK(NEAR(st.stdev, sqrt(2.0 / 3)));
	CHECK(st.typical == (double)(base + 1));
}

/* Each value in the row starts in its column-name's column. */
static void lat_print(void)
{
	static const char *const names[] = {
		"#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
		"t_typical[usec]", "t_avg[usec]", "t_stdev[usec]",
		"99% percentile[usec]", "99.9% percentile[usec]",
		"99.99% percentile[usec]",
	};
	static const char *const vals[] = {
		"64", "3", "1.00", "3.50", "2.00", "2.17", "1.03", "3.50",
		"3.50", "3.50",
	};
	uint64_t v[] = { 3500, 1000, 2000 };
	struct latstats st;
	char *buf = NULL, *row;
	const char *h;
	size_t len = 0, i, off;
	FILE *f = open_memstream(&buf, &len);

	latstats_compute(&st, v, 3);
	latstats_print(f, 64, &st);
	fclose(f);
	row = strchr(buf, '\n');
	CHECK(row && strchr(row + 1, '\n') == buf + len - 1);
	if (!row) {
		free(buf);
		return;
	}
	*row++ = '\0';
	h = buf;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		h = strstr(h, names[i]);
		CHECK(h && h[-1] == ' ');
		if (!h)
			break;
		off = (size_t)(h - buf);
		CHECK(strlen(row) > off && !strncmp(row + off, vals[i], strlen(vals[i])));
		CHECK(row[off - 1] == ' ');
		h += strlen(names[i]);
	}
	free(buf);
}

static uint64_t sum(const uint64_t *c, unsigned int n)
{
	uint64_t s = 0;

	while (n--)
		s += c[n];
	return s;
}

static void lat_hist(void)
{
	uint64_t *v = seq(1000), c[20], under = 7, over = 7;
	uint64_t top[] = { 1000 }, same[] = { 5, 5, 5 }, zero[] = { 0, 1, 2, 10 };

	CHECK(v);
	if (!v)
		return;
	CHECK(!latstats_hist(v, 1000, 1, 1000, 20, c, &under, &over));
	CHECK(sum(c, 20) == 1000 && under == 0 && over == 0);
	CHECK(c[0] == 1);		/* [1, 1000^0.05 = 1.41) */
	CHECK(c[19] == 293);		/* [1000^0.95 = 707.9, 1000] */
	CHECK(!latstats_hist(top, 1, 1, 1000, 20, c, NULL, NULL));
	CHECK(c[19] == 1 && sum(c, 20) == 1);	/* the maximum is drawn */

	/* a narrower range: the rest is counted, not dropped */
	CHECK(!latstats_hist(v, 1000, 10, 100, 20, c, &under, &over));
	CHECK(under == 9 && over == 900 && sum(c, 20) == 91);
	CHECK(sum(c, 20) + under + over == 1000);

	CHECK(!latstats_hist(same, 3, 5, 5, 4, c, &under, &over));
	CHECK(c[3] == 3 && under == 0 && over == 0);
	CHECK(!latstats_hist(zero, 4, 0, 10, 4, c, &under, &over));
	CHECK(sum(c, 4) == 4 && c[0] == 2 && c[3] == 1);

	CHECK(latstats_hist(v, 1000, 1, 1000, 0, c, NULL, NULL) == -1);
	CHECK(latstats_hist(v, 1000, 10, 9, 4, c, NULL, NULL) == -1);
	CHECK(latstats_hist_edge(1, 1000, 3, 0) == 1);
	CHECK(NEAR(latstats_hist_edge(1, 1000, 3, 1), 10));
	CHECK(latstats_hist_edge(1, 1000, 3, 3) == 1000);
	free(v);
}

static char *svg(const uint64_t *v, size_t n, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	latstats_svg(f, v, n, title, "sub \"title\"");
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t k = 0;

	while ((s = strstr(s, what))) {
		k++;
		s += strlen(what);
	}
	return k;
}

#define SVG_OPEN "<svg xmlns=\"http://www.w3.org/2000/svg\" "

static void lat_svg(void)
{
	uint64_t *v = seq(1000);
	char *a, *b;
	size_t len;

	CHECK(v);
	if (!v)
		return;
	v[999] = 123456789;			/* a tail: max 123456.79 usec */
	a = svg(v, 1000, "ibtick <rxe0> & co");
	b = svg(v, 1000, "ibtick <rxe0> & co");
	len = strlen(a);
	CHECK(!strncmp(a, SVG_OPEN, strlen(SVG_OPEN)));
	CHECK(len > 8 && !strcmp(a + len - 7, "</svg>\n"));
	CHECK(count(a, "<svg") == 1 && count(a, "</svg>") == 1);
	CHECK(strstr(a, ">ibtick &lt;rxe0&gt; &amp; co</text>"));
	CHECK(strstr(a, ">sub &quot;title&quot;</text>"));
	CHECK(!strstr(a, "<rxe0>") && !strstr(a, "& co"));
	/* no stray markup: every tag closes and text opens as often as it ends */
	CHECK(count(a, "<") == count(a, ">"));
	CHECK(count(a, "<text") == count(a, "</text>"));
	CHECK(strstr(a, ">median 0.50</text>"));	/* 500.5 ns */
	CHECK(strstr(a, ">p99 0.99</text>"));
	CHECK(strstr(a, ">p99.9 1.00</text>"));	/* 999 ns */
	CHECK(strstr(a, ">p99.99 123456.79</text>"));
	CHECK(strstr(a, ">max 123456.79</text>"));
	CHECK(strstr(a, ">n=1000  min 0.00"));
	CHECK(!strcmp(a, b));			/* deterministic */
	free(b);

	b = svg(NULL, 0, NULL);
	CHECK(strstr(b, ">no samples</text>"));
	CHECK(!strncmp(b, "<svg", 4));
	len = strlen(b);
	CHECK(len > 7 && !strcmp(b + len - 7, "</svg>\n"));
	free(b);

	b = svg(v + 10, 1, "one");		/* min == max: still a bar */
	CHECK(count(b, "<rect") == 2 && strstr(b, ">max 0.01</text>"));
	CHECK(strstr(b, "width=\"3.0\"") && !strstr(b, "width=\"0.0\""));
	free(b);
	free(a);
	free(v);
}

const struct unit_case latstats_cases[] = {
	{ "latstats: 1..10", lat_one_to_ten },
	{ "latstats: one and three samples", lat_small },
	{ "latstats: no samples", lat_empty },
	{ "latstats: nearest-rank percentiles of 1..1000", lat_thousand },
	{ "latstats: outlier kept as the exact maximum", lat_outlier },
	{ "latstats: population stdev", lat_stdev },
	{ "latstats: perftest columns", lat_print },
	{ "latstats: histogram conserves samples", lat_hist },
	{ "latstats: svg", lat_svg },
	{ NULL }
};
