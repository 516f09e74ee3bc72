// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the IPoIB neighbour table's text (/proc/net/arp) read
 * for the IPv4 address of a GID.  Pure: the unit tests drive it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload.h"

/* "80:00:00:48:fe:80:..." (20 bytes) -> the last 16. */
static int ipoib_hw_gid(const char *s, size_t n, uint8_t gid[16])
{
	uint8_t hw[20];
	size_t i, k = 0;

	for (i = 0; k < 20; k++) {
		unsigned int b;

		if (i + 2 > n || sscanf(s + i, "%2x", &b) != 1)
			return -1;
		hw[k] = (uint8_t)b;
		i += 2;
		if (k < 19) {
			if (i >= n || s[i] != ':')
				return -1;
			i++;
		}
	}
	if (i != n)
		return -1;
	memcpy(gid, hw + 4, 16);
	return 0;
}

uint32_t pl_arp_lookup(const char *text, const uint8_t gid[16])
{
	const char *line = strchr(text, '\n');	/* past the heading */

	while (line && *++line) {
		char ip[64], type[16], flags[16], hw[128];
		const char *end = strchr(line, '\n');
		uint8_t g[16];
		struct in_addr a;

		if (sscanf(line, "%63s %15s %15s %127s", ip, type, flags, hw) == 4 &&
		    strtoul(type, NULL, 16) == 32 /* ARPHRD_INFINIBAND */ &&
		    strtoul(flags, NULL, 16) & 0x2 /* ATF_COM: complete */ &&
		    !ipoib_hw_gid(hw, strlen(hw), g) && !memcmp(g, gid, 16) &&
		    inet_pton(AF_INET, ip, &a) == 1)
			return a.s_addr;
		line = end;
	}
	return 0;
}

