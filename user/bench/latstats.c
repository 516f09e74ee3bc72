// SPDX-License-Identifier: GPL-2.0
/*
 * Latency statistics, report lines and the SVG histogram (see latstats.h).
 * Everything is computed in nanoseconds; only the output is in usec.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latstats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t latstats_pct(const uint64_t *sorted, size_t n, double p)
{
	long double rank, r;
	size_t idx;

	if (!n)
		return 0;
	if (!(p > 0))			/* also NaN */
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	rank = (long double)p * (long double)n / 100;
	r = floorl(rank);
	/* ceil, but 99.9% of 1000 = 999.0000000000001 stays rank 999 */
	if (rank - r > rank * 1e-12L)
		r += 1;
	idx = r < 1 ? 0 : (size_t)r - 1;
	return sorted[idx < n ? idx : n - 1];
}

void latstats_sorted(struct latstats *st, const uint64_t *sorted, size_t n)
{
	long double sum = 0, sq = 0, mean, d;
	size_t i;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += (long double)sorted[i];
	mean = sum / (long double)n;
	for (i = 0; i < n; i++) {
		d = (long double)sorted[i] - mean;
		sq += d * d;
	}
	st->min = (double)sorted[0];
	st->max = (double)sorted[n - 1];
	if (n % 2)
		st->typical = (double)sorted[n / 2];
	else
		st->typical = (double)(((long double)sorted[n / 2 - 1] +
					(long double)sorted[n / 2]) / 2);
	st->avg = (double)mean;
	st->stdev = (double)sqrtl(sq / (long double)n);
	st->p50 = (double)latstats_pct(sorted, n, 50);
	st->p90 = (double)latstats_pct(sorted, n, 90);
	st->p99 = (double)latstats_pct(sorted, n, 99);
	st->p99_9 = (double)latstats_pct(sorted, n, 99.9);
	st->p99_99 = (double)latstats_pct(sorted, n, 99.99);
}

void latstats_compute(struct latstats *st, uint64_t *samples, size_t n)
{
	if (n > 1)
		qsort(samples, n, sizeof(*samples), cmp_u64);
	latstats_sorted(st, samples, n);
}

static const char *const cols[] = {
	"#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
	"t_typical[usec]", "t_avg[usec]", "t_stdev[usec]",
	"99% percentile[usec]", "99.9% percentile[usec]",
	"99.99% percentile[usec]",
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* A column is its name and two spaces wide; the last is not padded. */
static int col_width(size_t i)
{
	return i + 1 < NCOLS ? (int)strlen(cols[i]) + 2 : 0;
}

void latstats_print_header(FILE *f)
{
	size_t i;

	for (i = 0; i < NCOLS; i++)
		fprintf(f, " %-*s", col_width(i), cols[i]);
	fputc('\n', f);
}

void latstats_print_row(FILE *f, size_t msg_size, const struct latstats *st)
{
	const double v[] = { st->min, st->max, st->typical, st->avg,
			     st->stdev, st->p99, st->p99_9, st->p99_99 };
	size_t i;

	fprintf(f, " %-*zu %-*zu", col_width(0), msg_size, col_width(1), st->n);
	for (i = 2; i < NCOLS; i++)
		fprintf(f, " %-*.2f", col_width(i), v[i - 2] / 1e3);
	fputc('\n', f);
}

void latstats_print(FILE *f, size_t msg_size, const struct latstats *st)
{
	latstats_print_header(f);
	latstats_print_row(f, msg_size, st);
}

double latstats_hist_edge(uint64_t lo, uint64_t hi, unsigned int nbins,
			  unsigned int i)
{
	double l = lo ? (double)lo : 1;

	if (!nbins || (double)hi <= l)
		return l;
	if (i >= nbins)
		return (double)hi;
	return l * pow((double)hi / l, (double)i / nbins);
}

int latstats_hist(const uint64_t *samples, size_t n, uint64_t lo, uint64_t hi,
		  unsigned int nbins, uint64_t *counts, uint64_t *under,
		  uint64_t *over)
{
	double l = lo ? (double)lo : 1, span;
	uint64_t u = 0, o = 0;
	size_t i, b;

	if (!nbins || hi < lo)
		return -1;
	memset(counts, 0, nbins * sizeof(*counts));
	span = (double)hi > l ? log((double)hi / l) : 0;
	for (i = 0; i < n; i++) {
		uint64_t x = samples[i];

		if (x < lo) {
			u++;
		} else if (x > hi) {
			o++;
		} else if (x == hi) {
			counts[nbins - 1]++;
		} else if ((double)x <= l) {
			counts[0]++;
		} else {	/* l < x < hi, so span > 0 */
			b = (size_t)(nbins * (log((double)x / l) / span));
			counts[b < nbins ? b : nbins - 1]++;
		}
	}
	if (under)
		*under = u;
	if (over)
		*over = o;
	return 0;
}

/* SVG geometry: the plot area is [PX0, PX1] x [PY0, PY1]. */
#define SVG_W		800
#define SVG_H		420
#define PX0		70.0
#define PX1		720.0
#define PY0		70.0
#define PY1		370.0
#define SVG_BINS	60

struct axes {
	double d0, d1;		/* x: log10(ns) range, whole decades */
	double ytop;		/* y: log10(count) at the top */
};

static double xpos(const struct axes *a, double ns)
{
	return PX0 + (log10(ns < 1 ? 1 : ns) - a->d0) / (a->d1 - a->d0) *
		(PX1 - PX0);
}

/* log-y with its floor at a count of 0.5, so one sample is a visible bar */
static double ypos(const struct axes *a, double count)
{
	return PY1 - (log10(count) + log10(2)) / (a->ytop + log10(2)) *
		(PY1 - PY0);
}

static void xml_puts(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:	/* control characters are not allowed in XML */
			fputc(*p < 0x20 ? ' ' : *p, f);
		}
	}
}

static void svg_text(FILE *f, double x, double y, const char *attrs,
		     const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	xml_puts(f, s);
	fputs("</text>\n", f);
}

static void svg_axes(FILE *f, const struct axes *a)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P", "E" };
	static const int mult[] = { 1, 2, 5 };
	double x, y, v;
	int d, m, k;

	for (d = (int)a->d0; d <= (int)a->d1; d++) {
		for (m = 0; m < 3 && (d < (int)a->d1 || m == 0); m++) {
			v = mult[m] * pow(10, d);
			x = xpos(a, v);
			fprintf(f, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#ddd\"/>\n"
				"<path d=\"M%.1f %.1fv5\" stroke=\"#000\"/>\n",
				x, PY0, PY1, x, PY1);
			/* 1-2-5 labels up to three decades, then decades only */
			if (m == 0 || a->d1 - a->d0 <= 3)
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
					x, PY1 + 17, v / 1e3);
		}
	}
	for (k = 0; k <= (int)a->ytop; k++) {
		y = ypos(a, pow(10, k));
		fprintf(f, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#ddd\"/>\n"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d%s</text>\n",
			PX0, y, PX1, PX0 - 6, y + 4,
			k % 3 == 0 ? 1 : k % 3 == 1 ? 10 : 100, sfx[k / 3]);
	}
	fprintf(f, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"#000\" fill=\"none\"/>\n",
		PX0, PY0, PY1, PX1);
	svg_text(f, (PX0 + PX1) / 2, SVG_H - 12, "text-anchor=\"middle\"",
		 "latency [usec], log scale");
	fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">samples per bin, log scale</text>\n",
		(PY0 + PY1) / 2);
}

void latstats_svg(FILE *f, const uint64_t *sorted, size_t n,
		  const char *title, const char *subtitle)
{
	static const char *const mname[] = { "median", "p99", "p99.9",
					      "p99.99", "max" };
	static const char *const mcolor[] = { "#2a9d2a", "#e07b00", "#d62728",
					       "#8e44ad", "#000" };
	uint64_t counts[SVG_BINS], maxc = 0;
	struct latstats st;
	struct axes a;
	double mv[5], x0, x1, y, lx = -1e9;
	char buf[160];
	unsigned int i;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		SVG_W, SVG_H, SVG_W, SVG_H, SVG_W, SVG_H);
	svg_text(f, SVG_W / 2, 22, "text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\"",
		 title ? title : "");
	if (subtitle)
		svg_text(f, SVG_W / 2, 40, "text-anchor=\"middle\"", subtitle);
	if (!n) {
		svg_text(f, SVG_W / 2, SVG_H / 2, "text-anchor=\"middle\"", "no samples");
		fputs("</svg>\n", f);
		return;
	}
	latstats_sorted(&st, sorted, n);
	snprintf(buf, sizeof(buf), "n=%zu  min %.2f  avg %.2f  stdev %.2f  max %.2f usec",
		 n, st.min / 1e3, st.avg / 1e3, st.stdev / 1e3, st.max / 1e3);
	svg_text(f, SVG_W / 2, 56, "text-anchor=\"middle\" fill=\"#555\"", buf);

	latstats_hist(sorted, n, sorted[0], sorted[n - 1], SVG_BINS, counts,
		      NULL, NULL);
	for (i = 0; i < SVG_BINS; i++)
		if (counts[i] > maxc)
			maxc = counts[i];
	a.d0 = floor(log10(st.min < 1 ? 1 : st.min));
	a.d1 = ceil(log10(st.max < 1 ? 1 : st.max));
	if (a.d1 <= a.d0)
		a.d1 = a.d0 + 1;
	a.ytop = ceil(log10((double)maxc));
	if (a.ytop < 1)
		a.ytop = 1;
	svg_axes(f, &a);

	for (i = 0; i < SVG_BINS; i++) {
		if (!counts[i])
			continue;
		x0 = xpos(&a, latstats_hist_edge(sorted[0], sorted[n - 1], SVG_BINS, i));
		x1 = xpos(&a, latstats_hist_edge(sorted[0], sorted[n - 1], SVG_BINS, i + 1));
		if (x1 - x0 < 3) {	/* min == max: one narrow bar */
			x0 = (x0 + x1) / 2 - 1.5;
			x1 = x0 + 3;
		}
		y = ypos(&a, (double)counts[i]);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4a7fb5\"/>\n",
			x0, y, x1 - x0, PY1 - y);
	}

	/* markers ascend; labels sit right of their line, at least 12px apart */
	mv[0] = st.typical;
	mv[1] = st.p99;
	mv[2] = st.p99_9;
	mv[3] = st.p99_99;
	mv[4] = st.max;
	for (i = 0; i < 5; i++) {
		x0 = xpos(&a, mv[i]);
		lx = fmax(x0, lx + 12);
		fprintf(f, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n"
			"<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"end\" font-size=\"10\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">%s %.2f</text>\n",
			x0, PY0, PY1, mcolor[i], lx + 12, PY0 + 4, mcolor[i],
			mname[i], mv[i] / 1e3);
	}
	fputs("</svg>\n", f);
}
