// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the IPv4 address of a tick's sender, for msg_name.
 *
 * RoCEv2 over IPv4: the source GID is the sender's address, IPv4-mapped
 * (::ffff:a.b.c.d, IBTICK_SOURCE_IPV4).  InfiniBand: the GID is the
 * sender's port GID; its IPoIB address, if this host has talked to it, is
 * in the neighbour table, whose hardware address on IPoIB is 20 bytes: 4 of
 * flags and QPN, then the 16-byte GID.  Answers (and misses) are cached;
 * the table is read again at most once a second while a GID is missing.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

#define NCACHE 16

static struct {
	uint8_t		gid[16];
	uint32_t	ip;	/* 0: not in the table when last read */
	time_t		when;
	int		used;
} cache[NCACHE];
static unsigned int next_slot;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t from_table(const uint8_t gid[16])
{
	char buf[16384];
	ssize_t n;
	int fd = open("/proc/net/arp", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = real.read(fd, buf, sizeof(buf) - 1);
	real.close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return pl_arp_lookup(buf, gid);
}

uint32_t pl_src_ipv4_lookup(const struct ibtick_source *src)
{
	time_t now;
	uint32_t ip;
	int i;

	if ((src->flags & IBTICK_SOURCE_IPV4) || !memcmp(src->gid, v4mapped, 12)) {
		memcpy(&ip, src->gid + 12, 4);
		return ip;
	}
	pthread_mutex_lock(&cache_lock);
	now = time(NULL);
	for (i = 0; i < NCACHE; i++) {
		if (cache[i].used && !memcmp(cache[i].gid, src->gid, 16)) {
			if (cache[i].ip || now == cache[i].when)
				break;
			cache[i].ip = from_table(src->gid);
			cache[i].when = now;
			break;
		}
	}
	if (i == NCACHE) {
		i = (int)(next_slot++ % NCACHE);
		memcpy(cache[i].gid, src->gid, 16);
		cache[i].ip = from_table(src->gid);
		cache[i].when = now;
		cache[i].used = 1;
	}
	ip = cache[i].ip;
	pthread_mutex_unlock(&cache_lock);
	return ip;
}
