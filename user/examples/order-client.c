// SPDX-License-Identifier: MIT
/*
 * order-client: send orders to an order gateway over an ibtick connection
 * (RC) and wait for each ack; prints the round trips' median and maximum.
 *
 *   order-client [-b LOCAL_ADDR] [-n ORDERS] ADDR PORT
 *
 * Build: cc -O2 order-client.c $(pkg-config --cflags --libs libibtick)
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libibtick.h>

struct order {
	uint64_t	id;
	char		symbol[8];
	int64_t		price;
	uint32_t	qty;
	uint32_t	side;
};

struct ack {
	uint64_t	id;
	uint32_t	status;
	uint32_t	reserved;
};

static int conn_addr(struct sockaddr_ibtick *sa, const char *ip, int port)
{
	int fam = ibtick_family();

	if (fam < 0)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = fam;
	sa->sibt_port = port;
	sa->sibt_group_family = AF_INET;
	return inet_pton(AF_INET, ip, sa->sibt_group) == 1 ? 0 : -1;
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

int main(int argc, char **argv)
{
	unsigned long n = 1000, i;
	const char *local = NULL;
	struct sockaddr_ibtick sa;
	uint64_t *rtt;
	int opt, fd;

	while ((opt = getopt(argc, argv, "b:n:")) != -1) {
		switch (opt) {
		case 'b': local = optarg; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2 || !n)
		goto usage;
	rtt = calloc(n, sizeof(*rtt));
	fd = socket(ibtick_family(), SOCK_SEQPACKET, 0);
	if (!rtt || fd < 0) {
		perror("order-client");
		return 1;
	}
	if (local && (conn_addr(&sa, local, 0) ||
		      bind(fd, (struct sockaddr *)&sa, sizeof(sa)))) {
		perror("order-client: bind");
		return 1;
	}
	if (conn_addr(&sa, argv[optind], atoi(argv[optind + 1])) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("order-client: connect");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct order o = { .id = i + 1, .symbol = "ESZ6",
				   .price = 600000 + (int64_t)(i % 17),
				   .qty = 1 + i % 5, .side = i & 1 };
		struct ack a;
		uint64_t t0 = now_ns();

		if (send(fd, &o, sizeof(o), 0) != sizeof(o) ||
		    recv(fd, &a, sizeof(a), 0) != sizeof(a)) {
			perror("order-client: order");
			return 1;
		}
		rtt[i] = now_ns() - t0;
		if (a.id != o.id || a.status) {
			fprintf(stderr, "order %lu: ack for %llu, status %u\n",
				i + 1, (unsigned long long)a.id, a.status);
			return 1;
		}
	}
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	printf("%lu orders acknowledged in order: round trip median %.1f us, max %.1f us\n",
	       n, rtt[n / 2] / 1e3, rtt[n - 1] / 1e3);
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: order-client [-b LOCAL_ADDR] [-n ORDERS] ADDR PORT\n");
	return 2;
}
