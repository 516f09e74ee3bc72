// SPDX-License-Identifier: MIT
/*
 * publisher: send ticks to an ibtick feed, one datagram per tick.  Needs
 * CAP_NET_RAW.  A full send queue is EAGAIN with MSG_DONTWAIT: wait for
 * POLLOUT and send again (nothing is dropped behind your back).
 *
 *   publisher [-i IFNAME] [-n COUNT] [-r RATE] GROUP PORT
 *
 * Build: cc -O2 publisher.c $(pkg-config --cflags --libs libibtick)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libibtick.h>

struct quote {			/* an example payload: whatever you define */
	char		symbol[8];
	int64_t		bid, ask;	/* price in ticks */
	uint32_t	bid_qty, ask_qty;
};

int main(int argc, char **argv)
{
	unsigned long count = 1000, rate = 1000, i;
	const char *ifname = NULL;
	struct timespec gap;
	struct quote q;
	int opt, fd;

	while ((opt = getopt(argc, argv, "i:n:r:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': rate = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || !rate)
		goto usage;
	fd = ibtick_publisher_open(argv[optind], atoi(argv[optind + 1]), ifname);
	if (fd < 0) {
		perror("ibtick_publisher_open");
		return 1;
	}
	gap.tv_sec = 0;
	gap.tv_nsec = 1000000000 / rate;
	memset(&q, 0, sizeof(q));
	memcpy(q.symbol, "ESZ6", 4);
	for (i = 0; i < count; i++) {
		q.bid = 600000 + (long)(i % 17);
		q.ask = q.bid + 1;
		q.bid_qty = 10 + i % 7;
		q.ask_qty = 12 + i % 5;
		while (ibtick_publish(fd, &q, sizeof(q), true) < 0) {
			struct pollfd p = { fd, POLLOUT, 0 };

			if (errno != EAGAIN) {
				perror("ibtick_publish");
				return 1;
			}
			poll(&p, 1, 100);	/* the send queue is full */
		}
		nanosleep(&gap, NULL);
	}
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: publisher [-i IFNAME] [-n COUNT] [-r RATE] GROUP PORT\n");
	return 2;
}
