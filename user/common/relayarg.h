/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ibtick-relay's command line, parsed without touching the system (no
 * netdev or module look-ups: those are the program's), so that the unit
 * tests can run every case.
 */
#ifndef IBTICK_RELAYARG_H
#define IBTICK_RELAYARG_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum relay_mode {
	RELAY_NONE,
	RELAY_UDP_TO_FEED,	/* kernel UDP multicast in, ibtick feed out */
	RELAY_FEED_TO_UDP,	/* ibtick feed in, kernel UDP multicast out */
};

/* GROUP:PORT[@IFNAME] */
struct relay_ep {
	struct in_addr	group;
	char		group_s[INET_ADDRSTRLEN];
	uint16_t	port;
	char		ifname[IFNAMSIZ];	/* "" when not given */
};

struct relay_opts {
	enum relay_mode	mode;
	struct relay_ep	from, to;
	unsigned int	stats_interval;	/* seconds; 0: only SIGUSR1 and exit */
	bool		json;
	int		rcvbuf;		/* UDP receive buffer, bytes; 0: default */
	uint32_t	slots, slot_size; /* feed ring geometry; 0: default */
	bool		loopback;	/* feed-to-udp: IBTICK_LOOPBACK on */
	bool		mc_loop;	/* feed-to-udp: IP_MULTICAST_LOOP on */
	int		ttl;		/* feed-to-udp: IP_MULTICAST_TTL */
	bool		help;
};

/*
 * Parse GROUP:PORT or GROUP:PORT@IFNAME into @ep.  GROUP must be an IPv4
 * multicast address, PORT 1..65535, IFNAME shorter than IFNAMSIZ.
 * Returns 0, or -1 with a message in @err.
 */
int relay_parse_ep(const char *s, struct relay_ep *ep, char *err, size_t errlen);

/*
 * Parse the whole command line (argv[0] is the program).  Returns 0, or -1
 * with a message in @err.  Uses getopt_long (resets optind).
 */
int relay_parse_args(int argc, char **argv, struct relay_opts *o, char *err,
		     size_t errlen);

const char *relay_mode_name(enum relay_mode m);

#endif
