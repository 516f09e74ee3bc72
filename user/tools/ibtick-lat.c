// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-lat: recvmsg ping-pong latency over two feeds, in the style of
 * perftest's ib_send_lat (half the round trip per sample).
 *
 *   ibtick-lat -e -i IF [-n N] [-s SIZE] [-b USEC|-m] [-B CPU] GROUP PORT_A PORT_B   echo side
 *   ibtick-lat    -i IF [-n N] [-s SIZE] [-b USEC|-m] [-B CPU] [-w WARMUP] GROUP PORT_A PORT_B
 *
 * -b sets SO_BUSY_POLL on the reading socket: recvmsg drains the CQ itself
 * and spins on the ring that long before it sleeps.  -m reads the mapped
 * ring with libibtick, spinning (no system call on the receive side).  -B
 * switches the reading feed to busy-poll mode with its thread on CPU (needs
 * CAP_NET_ADMIN).
 *
 * The initiator publishes on PORT_A and reads PORT_B; the echo side reads
 * PORT_A and publishes on PORT_B.  Prints perftest's columns in
 * microseconds; every sample is kept (true maximum, exact percentiles).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "addrarg.h"
#include "libibtick.h"

static int mapped;
static struct ibtick_reader rd;

/* One tick from the reading feed: recvmsg, or spinning on the mapped ring. */
static ssize_t get_tick(int sub, char *buf, size_t len)
{
	struct ibtick_tick t;
	size_t n;

	if (!mapped)
		return recv(sub, buf, len, 0);
	for (;;) {
		while (!ibtick_next(&rd, &t))
			if (ibtick_ended(&rd)) {
				errno = ENODEV;
				return -1;
			}
		n = t.len < len ? t.len : len;
		memcpy(buf, t.data, n);
		if (ibtick_done(&rd, &t))
			return n;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int feed_socket(const char *group, const char *port,
		       const char *ifname, int publish)
{
	struct sockaddr_ibtick sa;
	struct timeval tv = { .tv_sec = 5 };
	int fd, ret;

	ret = tool_addr("ibtick-lat", &sa, group, port, ifname);
	if (ret)
		exit(ret);
	fd = socket(sa.sibt_family, SOCK_DGRAM, 0);
	if (fd < 0 || (publish ? connect(fd, (void *)&sa, sizeof(sa)) :
			bind(fd, (void *)&sa, sizeof(sa)))) {
		perror("ibtick-lat: socket");
		exit(1);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

int main(int argc, char **argv)
{
	int echo = 0, opt, pub, sub, busy = 0, busy_cpu = -2;
	long n = 10000, warm = 1000, size = 64, i;
	const char *ifname = NULL;
	char buf[4096];
	uint64_t *lat, t0;
	double sum = 0, sq = 0, avg;

	while ((opt = getopt(argc, argv, "b:B:ei:mn:s:w:")) != -1) {
		switch (opt) {
		case 'B': busy_cpu = atoi(optarg); break;
		case 'm': mapped = 1; break;
		case 'b': busy = atoi(optarg); break;
		case 'e': echo = 1; break;
		case 'i': ifname = optarg; break;
		case 'n': n = atol(optarg); break;
		case 's': size = atol(optarg); break;
		case 'w': warm = atol(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 3 || n < 1 || size < 1 || size > (long)sizeof(buf))
		goto usage;
	sub = feed_socket(argv[optind], argv[optind + (echo ? 1 : 2)], ifname, 0);
	pub = feed_socket(argv[optind], argv[optind + (echo ? 2 : 1)], ifname, 1);
	if (busy && setsockopt(sub, SOL_SOCKET, SO_BUSY_POLL, &busy, sizeof(busy))) {
		perror("ibtick-lat: SO_BUSY_POLL");
		return 1;
	}
	if (busy_cpu >= -1) {
		struct ibtick_poll_mode pm = { IBTICK_POLL_BUSY, busy_cpu };

		if (setsockopt(sub, SOL_IBTICK, IBTICK_POLL_MODE, &pm, sizeof(pm))) {
			perror("ibtick-lat: IBTICK_POLL_MODE");
			return 1;
		}
	}
	if (mapped && ibtick_reader_attach(&rd, sub)) {
		perror("ibtick-lat: mapping the ring");
		return 1;
	}
	memset(buf, 0x33, sizeof(buf));
	if (echo) {
		fprintf(stderr, "ibtick-lat: echo ready\n");
		for (i = 0; i < n + warm; i++) {
			if (get_tick(sub, buf, sizeof(buf)) < 0 ||
			    send(pub, buf, size, 0) < 0) {
				perror("ibtick-lat: echo");
				return 1;
			}
		}
		return 0;
	}
	lat = calloc(n, sizeof(*lat));
	if (!lat)
		return 1;
	for (i = 0; i < n + warm; i++) {
		t0 = now_ns();
		if (send(pub, buf, size, 0) < 0 || get_tick(sub, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "ibtick-lat: sample %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if (i >= warm)
			lat[i - warm] = (now_ns() - t0) / 2;
	}
	for (i = 0; i < n; i++) {
		sum += lat[i];
		sq += (double)lat[i] * lat[i];
	}
	avg = sum / n;
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-6ld %-10ld     %-10.2f     %-10.2f     %-10.2f       %-10.2f     %-10.2f       %-10.2f              %-10.2f\n",
	       size, n, lat[0] / 1e3, lat[n - 1] / 1e3, lat[n / 2] / 1e3, avg / 1e3,
	       sqrt(fmax(sq / n - avg * avg, 0)) / 1e3, lat[(long)(n * 0.99)] / 1e3,
	       lat[(long)(n * 0.999)] / 1e3);
	free(lat);
	return 0;
usage:
	fprintf(stderr, "Usage: ibtick-lat [-e] -i IF [-n N] [-s SIZE] [-b USEC|-m] [-B CPU] [-w WARMUP] GROUP PORT_A PORT_B\n");
	return 2;
}
