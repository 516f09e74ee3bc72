// SPDX-License-Identifier: GPL-2.0
/*
 * mcsend: a plain UDP multicast sender, AF_INET only (tests/vm/preload.sh).
 *
 *   mcsend [-i IFADDR] [-n COUNT] [-r PER_MS] [-c [-w]] [-L] [-F PORT]
 *          GROUP:PORT...
 *
 * One socket sends COUNT datagrams to each destination in turn (sendto, or
 * with -c one destination connect()ed and send(), or with -w writev() of
 * two pieces), sequence numbers 1..COUNT
 * per destination, PER_MS datagrams a millisecond at most (0: no pacing).
 * -i sets IP_MULTICAST_IF, -L leaves IP_MULTICAST_LOOP on (default off).
 * Prints "sent GROUP:PORT N" per destination and "errors N"; exit 1 if any
 * send failed (the error is printed once).  -F: the socket is bound to
 * INADDR_ANY:PORT first; after sending (and printing) it waits for a line
 * on stdin, forks a child that exit()s at once (running the exit handlers
 * of whatever is preloaded), waits for it, then reads every datagram
 * queued on the socket without waiting: "replies N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mctick.h"

#define MAXD 16

static int parse_dest(const char *s, struct sockaddr_in *a)
{
	char buf[64], *colon;

	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)atoi(colon + 1));
	return inet_pton(AF_INET, buf, &a->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in d[MAXD];
	unsigned long sent[MAXD] = { 0 }, errors = 0, count = 1000, per_ms = 0, i;
	const char *ifaddr = NULL;
	int c, nd = 0, conn = 0, vec = 0, loop = 0, fd, k, told = 0, fork_port = 0;

	while ((c = getopt(argc, argv, "i:n:r:cwLF:")) != -1) {
		switch (c) {
		case 'i': ifaddr = optarg; break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'r': per_ms = strtoul(optarg, NULL, 0); break;
		case 'c': conn = 1; break;
		case 'w': vec = 1; break;
		case 'L': loop = 1; break;
		case 'F': fork_port = atoi(optarg); break;
		default: return 2;
		}
	}
	for (; optind < argc && nd < MAXD; optind++)
		if (parse_dest(argv[optind], &d[nd++])) {
			fprintf(stderr, "mcsend: bad GROUP:PORT %s\n", argv[optind]);
			return 2;
		}
	if (!nd || (conn && nd != 1) || (vec && !conn)) {
		fprintf(stderr, "usage: mcsend [-i IFADDR] [-n COUNT] [-r PER_MS] [-c [-w]] [-L] [-F PORT] GROUP:PORT...\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (fork_port) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)fork_port) };

		if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
			perror("bind");
			return 1;
		}
	}
	setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop));
	if (ifaddr) {
		struct in_addr a;

		inet_pton(AF_INET, ifaddr, &a);
		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof(a)))
			perror("IP_MULTICAST_IF");
	}
	if (conn && connect(fd, (struct sockaddr *)&d[0], sizeof(d[0]))) {
		perror("connect");
		return 1;
	}
	for (i = 1; i <= count; i++) {
		for (k = 0; k < nd; k++) {
			struct mctick t = { .magic = MCTICK_MAGIC, .group = d[k].sin_addr.s_addr,
					    .port = ntohs(d[k].sin_port), .sender = (uint32_t)getpid(),
					    .seq = i };
			struct iovec iov[2] = {
				{ &t, 8 }, { (char *)&t + 8, sizeof(t) - 8 },
			};
			ssize_t n = vec ? writev(fd, iov, 2) :
				    conn ? send(fd, &t, sizeof(t), 0)
					 : sendto(fd, &t, sizeof(t), 0, (struct sockaddr *)&d[k],
						  sizeof(d[k]));

			if (n == (ssize_t)sizeof(t)) {
				sent[k]++;
			} else {
				if (!told++)
					fprintf(stderr, "mcsend: send: %s\n", strerror(errno));
				errors++;
			}
		}
		if (per_ms && i % per_ms == 0) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	for (k = 0; k < nd; k++) {
		char ip[16];

		inet_ntop(AF_INET, &d[k].sin_addr, ip, sizeof(ip));
		printf("sent %s:%u %lu\n", ip, ntohs(d[k].sin_port), sent[k]);
	}
	printf("errors %lu\n", errors);
	if (fork_port) {
		char line[16], buf[256];
		unsigned long replies = 0;
		pid_t pid;
		int st;

		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			exit(0);	/* the exit handlers run: the socket stays the parent's */
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			replies++;
		printf("replies %lu\n", replies);
	}
	return errors ? 1 : 0;
}
