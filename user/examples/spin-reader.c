// SPDX-License-Identifier: MIT
/*
 * spin-reader: the lowest-latency way to read an ibtick feed.  Pinned to one
 * core, it spins on the feed's mapped ring: no system call per tick, no
 * wake-up, no copy unless you make one.  Copy this into your strategy.
 *
 *   spin-reader [-c CPU] [-i IFNAME] GROUP PORT
 *
 * Build: cc -O2 spin-reader.c $(pkg-config --cflags --libs libibtick)
 * Keep the core free of other work (isolcpus/nohz_full, IRQs elsewhere) and
 * its frequency governor at "performance"; `ibtick doctor` checks both.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_setaffinity */
#endif
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <libibtick.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* vDSO: not a system call */
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	struct ibtick_reader r;
	uint64_t next_report, sum = 0;
	int opt, cpu = -1;

	while ((opt = getopt(argc, argv, "c:i:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 'i': ifname = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("sched_setaffinity");
	}
	if (ibtick_reader_open(&r, argv[optind], atoi(argv[optind + 1]),
			       ifname, NULL)) {
		perror("ibtick_reader_open");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	next_report = mono_ns() + 1000000000u;

	while (!stop) {
		struct ibtick_tick t;
		uint64_t seq;

		if (!ibtick_next(&r, &t)) {
			if (ibtick_ended(&r)) {
				fprintf(stderr, "feed is gone (device removed)\n");
				break;
			}
			if (mono_ns() >= next_report) {
				printf("delivered %" PRIu64 " lost %" PRIu64 "\n",
				       r.delivered, r.lost);
				fflush(stdout);
				next_report += 1000000000u;
			}
			continue;	/* spin: __builtin_ia32_pause() if you share the core */
		}
		/*
		 * Work on the tick in place: t.data, t.len, t.slot->pub_seq,
		 * t.slot->rx_ns...  Only trust it once ibtick_done() agrees.
		 */
		seq = t.slot->pub_seq;
		if (!ibtick_done(&r, &t))
			continue;	/* overwritten while we read: counted in r.lost */
		sum += seq;
	}
	printf("delivered %" PRIu64 " lost %" PRIu64 " (checksum %" PRIu64 ")\n",
	       r.delivered, r.lost, sum);
	ibtick_reader_close(&r);
	return 0;
usage:
	fprintf(stderr, "usage: spin-reader [-c CPU] [-i IFNAME] GROUP PORT\n");
	return 2;
}
