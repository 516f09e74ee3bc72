/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency statistics over every sample of a run (no reservoir, no
 * approximation): min/max/median/mean/stdev, nearest-rank percentiles, a
 * log-spaced histogram, perftest-style report lines and an SVG histogram.
 *
 * Samples are uint64_t nanoseconds.  Every value in struct latstats is a
 * double in NANOSECONDS (order statistics are exact sample values: exact
 * as doubles up to 2^53 ns, about 104 days); the printers convert to
 * microseconds.
 *
 * Definitions:
 *   percentile  nearest rank: the p-th percentile of n sorted samples is
 *               sorted[ceil(p / 100 * n) - 1], the index clamped to
 *               [0, n - 1] (p <= 0 gives the minimum, p >= 100 the maximum).
 *               A p written in decimal (99.9) is not exact in binary; a
 *               rank that exceeds an integer by a relative 1e-12 or less is
 *               taken as that integer, so 99.9% of 1000 is rank 999, not 1000.
 *   typical     the median, as perftest's t_typical: the middle sample for
 *               odd n, the mean of the two middle samples for even n (not
 *               truncated).  p50 is the nearest-rank 50th percentile, the
 *               lower of the two middle samples for even n.
 *   avg         arithmetic mean (long double accumulation).
 *   stdev       POPULATION standard deviation (divides by n, not n - 1),
 *               two passes in long double: sqrt(sum((x - avg)^2) / n).
 *   n == 0      every field 0.  n == 1: every field the sample, stdev 0.
 */
#ifndef IBTICK_LATSTATS_H
#define IBTICK_LATSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct latstats {
	size_t n;
	double min;
	double max;		/* the true maximum: no sample is dropped */
	double typical;		/* median, see above */
	double avg;
	double stdev;		/* population */
	double p50, p90, p99, p99_9, p99_99;	/* nearest rank */
};

/* Sorts @samples ascending IN PLACE, then fills @st as latstats_sorted(). */
void latstats_compute(struct latstats *st, uint64_t *samples, size_t n);

/* Fills @st from @sorted (ascending; not modified). */
void latstats_sorted(struct latstats *st, const uint64_t *sorted, size_t n);

/* Nearest-rank @p-th percentile (0..100) of @sorted; 0 when n == 0. */
uint64_t latstats_pct(const uint64_t *sorted, size_t n, double p);

/*
 * perftest's latency columns in microseconds with two decimals, plus a
 * 99.99% column:
 *   #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec]
 *   t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]
 *   99.99% percentile[usec]
 * Each value is left-aligned under its column name.  latstats_print() is
 * the header then the row (print the header once for a sweep of sizes).
 */
void latstats_print_header(FILE *f);
void latstats_print_row(FILE *f, size_t msg_size, const struct latstats *st);
void latstats_print(FILE *f, size_t msg_size, const struct latstats *st);

/*
 * Log-spaced histogram of @n samples (any order) into @nbins bins between
 * @lo and @hi nanoseconds.  With l = max(@lo, 1), the edges are
 *   e_i = l * (hi / l)^(i / nbins),  i = 0..nbins  (latstats_hist_edge())
 * and bin i counts [e_i, e_i+1), up to floating rounding at interior edges.
 * Bin 0 also takes [lo, l] (a 0 ns sample when lo == 0); the last bin is
 * closed, and a sample equal to @hi is always counted there, also when
 * lo == hi.  Samples below @lo go to *@under, above @hi to *@over (either
 * pointer may be NULL if the caller knows the range covers every sample).
 * So sum(counts) + under + over == n always.  With lo = min and hi = max
 * nothing over- or underflows and the true maximum is in the last bin.
 *
 * Returns 0, or -1 (nothing written) if nbins == 0 or hi < lo.
 */
int latstats_hist(const uint64_t *samples, size_t n, uint64_t lo, uint64_t hi,
		  unsigned int nbins, uint64_t *counts, uint64_t *under,
		  uint64_t *over);
double latstats_hist_edge(uint64_t lo, uint64_t hi, unsigned int nbins,
			  unsigned int i);

/*
 * A self-contained SVG (no scripts, fonts or links) of the histogram of
 * @sorted (ascending): 60 log-spaced bins from min to max (so the maximum
 * is drawn), log-x axis in microseconds with 1-2-5 ticks, log-y axis of
 * samples per bin (a bin of one sample is still visible), and vertical
 * lines labeled with their values for the median, p99, p99.9, p99.99 and
 * max.  @title and @subtitle (NULL: none) are XML-escaped (& < > ",
 * control characters become spaces; give UTF-8 for the rest).  The output
 * depends only on the arguments.  n == 0 gives a valid SVG saying so.
 */
void latstats_svg(FILE *f, const uint64_t *sorted, size_t n,
		  const char *title, const char *subtitle);

#endif
