// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-sub: subscribe to a feed and account for every tick.
 *
 *   ibtick-sub [-i IFNAME] [-n COUNT] [-t SECONDS] [-l] [-v] [-S SLOTS]
 *              [-Z SLOT_SIZE] [-d USEC] [-j] GROUP PORT
 *
 * Reads with recvmsg until COUNT ticks were delivered or lost to laps, or
 * nothing arrived for SECONDS.  Prints what it saw: delivered, lost (the
 * kernel's IBTICK_CMSG_LOST, checked against its statistics), the feed's
 * count of ticks written into the ring, and for the first publisher the
 * sequences seen once (unique), twice (dups), never (missing, 1..COUNT),
 * ticks flagged OLD (reordered on the wire) and GAP events, so that a
 * script can check  delivered + lost == feed_rx  and
 * unique + missing == COUNT.  -d sleeps after each tick (a slow reader).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "addrarg.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: ibtick-sub [-i IFNAME] [-n COUNT] [-t SECONDS] [-l] [-v] [-j]\n"
		"                  [-S SLOTS] [-Z SLOT_SIZE] [-d USEC] GROUP PORT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t delivered = 0, lost = 0, gap = 0, old = 0, trunc = 0, bytes = 0;
	uint64_t first = 0, last = 0, prev_rx = 0, nonmono = 0, gaps = 0;
	uint64_t unique = 0, dups = 0, missing = 0, i;
	uint8_t *seen = NULL;
	const char *ifname = NULL;
	struct ibtick_ring_geometry geo = { 0 };
	struct sockaddr_ibtick sa;
	unsigned long long count = 0;
	int timeout = 10, loop = 0, verbose = 0, json = 0, delay = 0;
	uint32_t first_pub = 0;
	int fd, opt, ret, one = 1;
	char buf[65536];
	char cbuf[512];

	while ((opt = getopt(argc, argv, "i:n:t:lvjS:Z:d:")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 't': timeout = atoi(optarg); break;
		case 'l': loop = 1; break;
		case 'v': verbose = 1; break;
		case 'j': json = 1; break;
		case 'S': geo.nslots = strtoul(optarg, NULL, 0); break;
		case 'Z': geo.slot_size = strtoul(optarg, NULL, 0); break;
		case 'd': delay = atoi(optarg); break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	ret = tool_addr("ibtick-sub", &sa, argv[optind], argv[optind + 1], ifname);
	if (ret)
		return ret;
	fd = socket(sa.sibt_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("ibtick-sub: socket");
		return 1;
	}
	if ((geo.nslots || geo.slot_size) &&
	    (geo.nslots = geo.nslots ?: IBTICK_SLOTS_DEFAULT,
	     geo.slot_size = geo.slot_size ?: IBTICK_SLOT_SIZE_DEFAULT,
	     setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &geo, sizeof(geo)))) {
		perror("ibtick-sub: IBTICK_RING_GEOMETRY");
		return 1;
	}
	if (loop && setsockopt(fd, SOL_IBTICK, IBTICK_LOOPBACK, &one, sizeof(one))) {
		perror("ibtick-sub: IBTICK_LOOPBACK");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	{
		struct timeval tv = { .tv_sec = timeout };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("ibtick-sub: bind");
		return 1;
	}
	/* tell a waiting script that the subscription is in place */
	if (!json)
		fprintf(stderr, "ibtick-sub: bound\n");
	else
		fprintf(stderr, "{\"bound\":true}\n");

	if (count) {
		seen = calloc(count + 1, 1);
		if (!seen)
			return 1;
	}
	while (!count || delivered + lost < count) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct ibtick_tick_info ti = { 0 };
		struct cmsghdr *c;
		uint64_t rx = 0;
		ssize_t n;

		n = recvmsg(fd, &m, 0);
		if (n < 0) {
			if (errno == EAGAIN)
				break;		/* quiet for the timeout: done */
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ibtick-sub: recvmsg: %s\n", strerror(errno));
			return 1;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_IBTICK && c->cmsg_type == IBTICK_CMSG_LOST) {
				uint64_t l;

				memcpy(&l, CMSG_DATA(c), sizeof(l));
				lost += l;
			} else if (c->cmsg_level == SOL_IBTICK &&
				   c->cmsg_type == IBTICK_CMSG_TICK) {
				memcpy(&ti, CMSG_DATA(c), sizeof(ti));
			} else if (c->cmsg_level == SOL_SOCKET &&
				   c->cmsg_type == SO_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				rx = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
			}
		}
		if (rx < prev_rx)
			nonmono++;
		prev_rx = rx;
		if (!delivered) {
			first_pub = ti.pub_id;
			first = ti.pub_seq;
		} else if (ti.pub_id == first_pub && !(ti.flags & IBTICK_TICK_OLD) &&
			   ti.pub_seq <= last) {
			/* the kernel flags every tick not above the last as OLD */
			fprintf(stderr, "ibtick-sub: seq %" PRIu64 " after %" PRIu64 " without OLD\n",
				(uint64_t)ti.pub_seq, last);
			return 1;
		}
		if (ti.pub_id == first_pub) {
			if (seen && ti.pub_seq >= 1 && ti.pub_seq <= count) {
				if (seen[ti.pub_seq]++)
					dups++;
				else
					unique++;
			}
			if (ti.flags & IBTICK_TICK_GAP) {
				gap += ti.gap;
				gaps++;
			}
			if (ti.flags & IBTICK_TICK_OLD)
				old++;
			else
				last = ti.pub_seq;
		}
		if (m.msg_flags & MSG_TRUNC)
			trunc++;
		delivered++;
		bytes += n;
		if (verbose)
			printf("tick pub %08x seq %" PRIu64 " len %zd flags %#x lat_ns %" PRId64 "\n",
			       ti.pub_id, (uint64_t)ti.pub_seq, n, ti.flags,
			       (int64_t)(rx - ti.send_ns));
		if (delay)
			usleep(delay);
	}
	for (i = 1; seen && i <= count; i++)
		missing += !seen[i];
	struct ibtick_stats st;
	socklen_t sl = sizeof(st);

	memset(&st, 0, sizeof(st));
	getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &sl);
	{
		fprintf(stderr, "ibtick-sub: socket rx %llu lost %llu skipped_local %llu;"
			" feed rx %llu gaps %llu gap_ticks %llu old %llu bad_hdr %llu"
			" other_port %llu rq_empty %llu rx_errors %llu loopback %llu rejoins %llu\n",
			(unsigned long long)st.rx_ticks, (unsigned long long)st.rx_lost,
			(unsigned long long)st.rx_skipped_local,
			(unsigned long long)st.feed_rx_ticks, (unsigned long long)st.feed_gaps,
			(unsigned long long)st.feed_gap_ticks, (unsigned long long)st.feed_old,
			(unsigned long long)st.feed_bad_hdr, (unsigned long long)st.feed_other_port,
			(unsigned long long)st.feed_rq_empty, (unsigned long long)st.feed_rx_errors,
			(unsigned long long)st.feed_loopback,
			(unsigned long long)st.feed_rejoins);
		if (st.rx_lost != lost) {
			fprintf(stderr, "ibtick-sub: kernel counted %llu lost, cmsgs said %llu\n",
				(unsigned long long)st.rx_lost, (unsigned long long)lost);
			return 1;
		}
	}
	if (json)
		printf("{\"delivered\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"feed_rx\":%llu,\"unique\":%" PRIu64 ",\"dups\":%" PRIu64
		       ",\"missing\":%" PRIu64 ",\"gap_events\":%" PRIu64 ",\"gap\":%" PRIu64
		       ",\"old\":%" PRIu64 ",\"truncated\":%" PRIu64 ",\"bytes\":%" PRIu64
		       ",\"first\":%" PRIu64 ",\"last\":%" PRIu64 ",\"rx_ts_backwards\":%" PRIu64 "}\n",
		       delivered, lost, (unsigned long long)st.feed_rx_ticks, unique, dups,
		       missing, gaps, gap, old, trunc, bytes, first, last, nonmono);
	else
		printf("delivered %" PRIu64 " lost %" PRIu64 " feed_rx %llu unique %" PRIu64
		       " missing %" PRIu64 " gap %" PRIu64 " old %" PRIu64 " truncated %" PRIu64 "\n",
		       delivered, lost, (unsigned long long)st.feed_rx_ticks, unique, missing,
		       gap, old, trunc);
	free(seen);
	close(fd);
	return 0;
}
