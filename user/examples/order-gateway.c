// SPDX-License-Identifier: MIT
/*
 * order-gateway: a minimal order gateway on an ibtick connection (RC).
 * It accepts any number of clients and answers every order with an ack
 * that carries the order's id, on the same connection, in order.
 *
 *   order-gateway [-n ORDERS] ADDR PORT
 *
 * ADDR is this host's IPv4 address on the IB/RoCE netdev (0.0.0.0: all).
 * With -n it exits after acknowledging ORDERS orders in all.
 *
 * Build: cc -O2 order-gateway.c $(pkg-config --cflags --libs libibtick)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libibtick.h>

struct order {			/* an example message: whatever you define */
	uint64_t	id;
	char		symbol[8];
	int64_t		price;
	uint32_t	qty;
	uint32_t	side;
};

struct ack {
	uint64_t	id;
	uint32_t	status;		/* 0: accepted */
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

int main(int argc, char **argv)
{
	unsigned long limit = 0, acked = 0;
	struct sockaddr_ibtick sa;
	struct epoll_event ev;
	int opt, ls, ep;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		limit = strtoul(optarg, NULL, 0);
	}
	if (argc - optind != 2)
		goto usage;
	if (conn_addr(&sa, argv[optind], atoi(argv[optind + 1]))) {
		fprintf(stderr, "order-gateway: bad address or ibtick not loaded\n");
		return 1;
	}
	ls = socket(sa.sibt_family, SOCK_SEQPACKET, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ls, 64)) {
		perror("order-gateway: listen");
		return 1;
	}
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	printf("listening on %s port %s\n", argv[optind], argv[optind + 1]);
	fflush(stdout);
	while (!limit || acked < limit) {
		struct order o;
		struct ack a;
		ssize_t n;
		int fd;

		if (epoll_wait(ep, &ev, 1, -1) < 1)
			continue;
		fd = ev.data.fd;
		if (fd == ls) {			/* a new client */
			fd = accept(ls, NULL, NULL);
			if (fd < 0)
				continue;
			ev.events = EPOLLIN;
			ev.data.fd = fd;
			epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
			continue;
		}
		n = recv(fd, &o, sizeof(o), MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0) {			/* 0: the client closed */
			if (n < 0)
				perror("order-gateway: recv");
			close(fd);		/* leaves the epoll set */
			continue;
		}
		memset(&a, 0, sizeof(a));
		a.id = o.id;
		a.status = n == sizeof(o) ? 0 : 1;	/* 1: malformed */
		/* blocks only while the client has no slot free for it */
		if (send(fd, &a, sizeof(a), MSG_NOSIGNAL) < 0) {
			perror("order-gateway: send");
			close(fd);
			continue;
		}
		acked++;
	}
	printf("acknowledged %lu orders\n", acked);
	return 0;
usage:
	fprintf(stderr, "usage: order-gateway [-n ORDERS] ADDR PORT\n");
	return 2;
}
