// SPDX-License-Identifier: GPL-2.0
/*
 * udppp: a UDP multicast ping-pong on AF_INET alone (see udppp.h).  It
 * includes no ibtick header on purpose: under ibtick-run it is an
 * unmodified UDP program.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "udppp.h"

#define UDPPP_MAX	4096
#define UDPPP_PING	0x70696e67u	/* "ping" */
#define UDPPP_PONG	0x706f6e67u	/* "pong" */

struct udppp_hdr {
	uint32_t	kind;		/* UDPPP_PING or UDPPP_PONG */
	uint32_t	pad;
	uint64_t	seq;		/* the ping's; the pong copies it */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A socket on the group's port that joined the group on the local
 * address's netdev and reads what arrives there alone (IP_MULTICAST_ALL
 * off: both ends may be on one host), sends there, does not loop its own
 * sends back, and spins or blocks as asked.  Fills @dst with the group's address.
 */
static int open_end(const struct udppp_opts *uo, struct sockaddr_in *dst)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(uo->port) };
	struct ip_mreq mr;
	struct in_addr ifa;
	int fd, one = 1, zero = 0;

	memset(dst, 0, sizeof(*dst));
	dst->sin_family = AF_INET;
	dst->sin_port = htons(uo->port);
	if (inet_pton(AF_INET, uo->group, &dst->sin_addr) != 1 ||
	    inet_pton(AF_INET, uo->local_ip, &ifa) != 1) {
		errno = EINVAL;
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	sa.sin_addr = dst->sin_addr;
	mr.imr_multiaddr = dst->sin_addr;
	mr.imr_interface = ifa;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof(ifa)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero)) ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero, sizeof(zero)))
		goto fail;
	if (uo->spin && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		goto fail;
	if (!uo->spin) {
		/* blocking: a look at the ping side's resend deadline every 100 ms */
		struct timeval tv = { .tv_usec = 100000 };

		if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			goto fail;
	}
	return fd;
fail:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

/*
 * The next datagram of @kind into @buf, as a UDP program reads one (the
 * sender's address too): its length, 0 when none came by @deadline (0:
 * wait for ever), -1 on error.
 */
static ssize_t next_of(int fd, const struct udppp_opts *uo, uint32_t kind,
		       char *buf, uint64_t deadline)
{
	unsigned int tries = 0;

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t got = recvfrom(fd, buf, UDPPP_MAX, 0, (struct sockaddr *)&from, &fl);

		if (got >= (ssize_t)sizeof(struct udppp_hdr)) {
			struct udppp_hdr h;

			memcpy(&h, buf, sizeof(h));
			if (h.kind == kind)
				return got;
			continue;	/* the other end's kind: not for us */
		}
		if (got >= 0)
			continue;	/* too short to be ours */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		/* blocking: SO_RCVTIMEO ran out; spinning: the clock once in
		 * 256 empty reads */
		if (!uo->spin || !(++tries & 0xff)) {
			if (deadline && mono_ns() > deadline)
				return 0;
		}
	}
}

int udppp_echo(const struct udppp_opts *uo)
{
	struct sockaddr_in dst;
	char buf[UDPPP_MAX];
	int fd;

	fd = open_end(uo, &dst);
	if (fd < 0)
		return -1;
	for (;;) {
		/* no deadline: the echo waits as long as it takes */
		ssize_t got = next_of(fd, uo, UDPPP_PING, buf, 0);
		struct udppp_hdr h;

		if (got < 0)
			break;
		memcpy(&h, buf, sizeof(h));
		h.kind = UDPPP_PONG;
		memcpy(buf, &h, sizeof(h));
		while (sendto(fd, buf, (size_t)got, 0, (struct sockaddr *)&dst,
			      sizeof(dst)) < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				goto out;
		}
	}
out:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

int udppp_ping(const struct udppp_opts *uo, FILE *out)
{
	uint64_t *lat, rts = 0, attempt = 0;
	struct sockaddr_in dst;
	char buf[UDPPP_MAX], in[UDPPP_MAX];
	int fd, in_a_row = 0, rc = 0;
	long i;

	if (uo->size < sizeof(struct udppp_hdr) || uo->size > UDPPP_MAX ||
	    uo->n <= 0 || uo->warm < 0) {
		errno = EINVAL;
		return -1;
	}
	lat = calloc((size_t)uo->n, sizeof(*lat));
	if (!lat)
		return -1;
	fd = open_end(uo, &dst);
	if (fd < 0) {
		free(lat);
		return -1;
	}
	memset(buf, 0x33, sizeof(buf));
	for (i = 0; i < uo->n + uo->warm; i++) {
		struct udppp_hdr h = { .kind = UDPPP_PING,
				       .seq = (uint64_t)i | (attempt << 40) };
		uint64_t t0, deadline;
		ssize_t got;

		memcpy(buf, &h, sizeof(h));
		rts++;
		t0 = mono_ns();
		/*
		 * warm-up pings are resent after 200 ms: the echo may have bound
		 * its port (what the caller waits for) before it joined the group
		 */
		deadline = t0 + (uint64_t)(i < uo->warm && uo->timeout_ms > 200 ? 200 :
					  uo->timeout_ms) * 1000000ULL;
		while (sendto(fd, buf, uo->size, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				rc = -1;
				goto out;
			}
		}
		for (;;) {
			struct udppp_hdr r;

			got = next_of(fd, uo, UDPPP_PONG, in, deadline);
			if (got <= 0)
				break;
			memcpy(&r, in, sizeof(r));
			if (r.seq == h.seq)
				break;	/* else a late answer to an old ping */
		}
		if (got < 0) {
			rc = -1;
			goto out;
		}
		if (!got) {
			/* UDP drops silently: ping again, told apart by attempt */
			attempt = (attempt + 1) & 0xff;
			if (++in_a_row >= 10) {
				errno = ETIMEDOUT;
				rc = -1;
				goto out;
			}
			i--;
			continue;
		}
		in_a_row = 0;
		if (i >= uo->warm)
			lat[i - uo->warm] = (mono_ns() - t0) / 2;
	}
	for (i = 0; i < uo->n; i++)
		fprintf(out, "%" PRIu64 "\n", lat[i]);
	fprintf(out, "# round_trips %" PRIu64 "\n", rts);
	if (fflush(out))
		rc = -1;
out:
	{
		int e = errno;

		close(fd);
		free(lat);
		errno = e;
	}
	return rc;
}
