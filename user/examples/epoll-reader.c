// SPDX-License-Identifier: MIT
/*
 * epoll-reader: read an ibtick feed's mapped ring from an event loop that
 * also serves other descriptors.  Drains the ring without system calls
 * while ticks are there; before sleeping in epoll_wait() it tells the
 * kernel where it stopped (ibtick_arm), so EPOLLIN means "a tick past me".
 *
 *   epoll-reader [-i IFNAME] GROUP PORT
 *
 * Build: cc -O2 epoll-reader.c $(pkg-config --cflags --libs libibtick)
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libibtick.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLIN };
	const char *ifname = NULL;
	struct ibtick_reader r;
	char copy[IBTICK_SLOT_SIZE_MAX];
	struct ibtick_slot d;
	int opt, ep;
	ssize_t n;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i')
			goto usage;
		ifname = optarg;
	}
	if (argc - optind != 2)
		goto usage;
	if (ibtick_reader_open(&r, argv[optind], atoi(argv[optind + 1]),
			       ifname, NULL)) {
		perror("ibtick_reader_open");
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = r.fd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, r.fd, &ev)) {
		perror("epoll");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	while (!stop) {
		/* drain: ibtick_read() copies and never returns a torn tick */
		while ((n = ibtick_read(&r, copy, sizeof(copy), &d, NULL)) >= 0)
			printf("pub %08x seq %" PRIu64 " %zd bytes\n",
			       d.pub_id, (uint64_t)d.pub_seq, n);
		if (ibtick_ended(&r)) {
			fprintf(stderr, "feed is gone (device removed)\n");
			break;
		}
		if (ibtick_arm(&r)) {	/* then sleep until a tick past us */
			perror("ibtick_arm");
			break;
		}
		if (epoll_wait(ep, &ev, 1, 1000) < 0 && !stop)
			perror("epoll_wait");
	}
	printf("delivered %" PRIu64 " lost %" PRIu64 "\n", r.delivered, r.lost);
	ibtick_reader_close(&r);
	close(ep);
	return 0;
usage:
	fprintf(stderr, "usage: epoll-reader [-i IFNAME] GROUP PORT\n");
	return 2;
}
