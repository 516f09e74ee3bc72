// SPDX-License-Identifier: GPL-2.0
/*
 * The preload library's IPoIB neighbour lookup (user/preload/arpparse.c):
 * the IPv4 address /proc/net/arp gives a sender's GID, on InfiniBand where
 * the GID has no address of its own.  Only complete IPoIB entries whose
 * 20-byte hardware address ends with the GID count.
 */
#include <arpa/inet.h>

#include "preload.h"
#include "unit.h"

static const char table[] =
	"IP address       HW type     Flags       HW address            Mask     Device\n"
	"10.0.0.9         0x1         0x2         52:54:00:12:34:56     *        eth0\n"
	"10.0.0.2         0x20        0x2         80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:bc:de     *        ib0\n"
	"10.0.0.3         0x20        0x0         80:00:00:49:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:bc:df     *        ib0\n"
	"10.0.0.4         0x20        0x2         80:00:00:4a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:bc     *        ib0\n"
	"10.0.0.5         0x20        0x6         80:00:00:4b:fe:80:00:00:00:00:00:00:00:02:c9:03:00:0a:bc:e0     *        ib1\n";

static void gid(uint8_t g[16], uint8_t last)
{
	static const uint8_t base[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					  0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0 };

	memcpy(g, base, 16);
	g[15] = last;
}

static void test_arp_lookup(void)
{
	uint8_t g[16];

	gid(g, 0xde);
	CHECK(pl_arp_lookup(table, g) == inet_addr("10.0.0.2"));
	/* incomplete entry (flags without ATF_COM): not trusted */
	gid(g, 0xdf);
	CHECK(pl_arp_lookup(table, g) == 0);
	/* flags with ATF_COM among others */
	gid(g, 0xe0);
	CHECK(pl_arp_lookup(table, g) == inet_addr("10.0.0.5"));
	/* unknown GID, an Ethernet MAC never matches */
	gid(g, 0x01);
	CHECK(pl_arp_lookup(table, g) == 0);
	/* a short hardware address (10.0.0.4's) is no match for anything */
	memset(g, 0, sizeof(g));
	CHECK(pl_arp_lookup(table, g) == 0);
	/* no entries, no heading */
	gid(g, 0xde);
	CHECK(pl_arp_lookup("IP address HW type Flags HW address Mask Device\n", g) == 0);
	CHECK(pl_arp_lookup("", g) == 0);
}

const struct unit_case arpparse_cases[] = {
	{ "preload: IPoIB neighbour table lookup of a GID", test_arp_lookup },
	{ NULL, NULL },
};
