// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-pub: publish ticks on a feed.
 *
 *   ibtick-pub [-i IFNAME] [-n COUNT] [-s SIZE] [-r RATE] GROUP PORT
 *
 * Sends COUNT ticks of SIZE payload bytes (default 64) at up to RATE per
 * second (0: as fast as the send queue allows; a full queue is waited out
 * with poll(POLLOUT)).  Needs CAP_NET_RAW.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "addrarg.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long long count = 1000, rate = 0, sent = 0, eagain = 0;
	const char *ifname = NULL;
	struct sockaddr_ibtick sa;
	size_t size = 64;
	char buf[65536];
	int fd, opt, ret;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "i:n:s:r:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case 'r': rate = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "Usage: ibtick-pub [-i IFNAME] [-n COUNT] [-s SIZE] [-r RATE] GROUP PORT\n");
			return 2;
		}
	}
	if (argc - optind != 2 || size > sizeof(buf)) {
		fprintf(stderr, "Usage: ibtick-pub [-i IFNAME] [-n COUNT] [-s SIZE] [-r RATE] GROUP PORT\n");
		return 2;
	}
	ret = tool_addr("ibtick-pub", &sa, argv[optind], argv[optind + 1], ifname);
	if (ret)
		return ret;
	fd = socket(sa.sibt_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("ibtick-pub: connect");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	t0 = now_ns();
	while (sent < count) {
		if (rate) {
			uint64_t due = t0 + sent * 1000000000ULL / rate;

			while (now_ns() < due)
				;
		}
		memcpy(buf, &sent, size < sizeof(sent) ? size : sizeof(sent));
		if (send(fd, buf, size, MSG_DONTWAIT) < 0) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			if (errno != EAGAIN) {
				fprintf(stderr, "ibtick-pub: send: %s\n", strerror(errno));
				return 1;
			}
			eagain++;
			poll(&p, 1, 1);
			continue;
		}
		sent++;
	}
	printf("sent %llu eagain %llu seconds %.3f\n", sent, eagain,
	       (now_ns() - t0) / 1e9);
	{
		struct ibtick_stats st;
		socklen_t sl = sizeof(st);

		memset(&st, 0, sizeof(st));
		if (!getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &sl))
			fprintf(stderr, "ibtick-pub: socket tx %llu eagain %llu errors %llu;"
				" feed tx completion errors %llu\n",
				(unsigned long long)st.tx_ticks,
				(unsigned long long)st.tx_eagain,
				(unsigned long long)st.tx_errors,
				(unsigned long long)st.feed_tx_errors);
	}
	close(fd);
	return 0;
}
