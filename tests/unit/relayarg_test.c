// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-relay's command line: endpoints, modes, options and the message
 * each bad one gets.
 */
#include <arpa/inet.h>

#include "relayarg.h"
#include "unit.h"

static char err[160];

/* parse a NULL-terminated argument list (argv[0] added) */
#define PARSE(o, ...) ({						\
	char *_a[] = { "ibtick-relay", __VA_ARGS__, NULL };		\
	err[0] = 0;							\
	relay_parse_args((int)(sizeof(_a) / sizeof(_a[0])) - 1, _a, (o), \
			 err, sizeof(err));				\
})

static void relayarg_ep_good(void)
{
	struct relay_ep ep;

	CHECK(relay_parse_ep("239.1.2.3:7001@veth0", &ep, err, sizeof(err)) == 0);
	CHECK_STR(ep.group_s, "239.1.2.3");
	CHECK(ep.group.s_addr == htonl(0xef010203));
	CHECK(ep.port == 7001);
	CHECK_STR(ep.ifname, "veth0");
	CHECK(relay_parse_ep("224.0.0.251:65535", &ep, err, sizeof(err)) == 0);
	CHECK(ep.port == 65535);
	CHECK_STR(ep.ifname, "");
	CHECK(relay_parse_ep("239.255.255.255:1@ib0.8001", &ep, err, sizeof(err)) == 0);
	CHECK_STR(ep.ifname, "ib0.8001");
}

static void relayarg_ep_bad(void)
{
	struct relay_ep ep;

	CHECK(relay_parse_ep("239.1.2.3", &ep, err, sizeof(err)) == -1);
	CHECK_STR(err, "\"239.1.2.3\" is not GROUP:PORT[@IFNAME]");
	CHECK(relay_parse_ep("10.0.0.1:5000@eth0", &ep, err, sizeof(err)) == -1);
	CHECK_STR(err, "\"10.0.0.1:5000@eth0\": 10.0.0.1 is not a multicast group (224.0.0.0/4)");
	CHECK(relay_parse_ep("239.1.2:5000", &ep, err, sizeof(err)) == -1);
	CHECK_STR(err, "\"239.1.2:5000\": \"239.1.2\" is not an IPv4 address");
	CHECK(relay_parse_ep("239.1.2.3:0", &ep, err, sizeof(err)) == -1);
	CHECK_STR(err, "\"239.1.2.3:0\": \"0\" is not a port (1..65535)");
	CHECK(relay_parse_ep("239.1.2.3:65536", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("239.1.2.3:-1", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("239.1.2.3:50x", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("239.1.2.3:", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("239.1.2.3:5000@", &ep, err, sizeof(err)) == -1);
	CHECK_STR(err, "\"239.1.2.3:5000@\": \"\" is not a netdev name");
	CHECK(relay_parse_ep("239.1.2.3:5000@averyveryverylongname", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("239.1.2.3:5000@a@b", &ep, err, sizeof(err)) == -1);
	CHECK(relay_parse_ep("ff02::1:5000", &ep, err, sizeof(err)) == -1);
}

static void relayarg_modes(void)
{
	struct relay_opts o;

	CHECK(PARSE(&o, "udp-to-feed", "--from", "239.1.1.1:5000@eth0",
		    "--to", "239.2.2.2:7000@ib0") == 0);
	CHECK(o.mode == RELAY_UDP_TO_FEED);
	CHECK(o.from.port == 5000 && o.to.port == 7000);
	CHECK_STR(o.to.ifname, "ib0");
	CHECK(o.ttl == 1 && !o.json && !o.stats_interval && !o.rcvbuf);
	/* options before the mode, and short ones */
	CHECK(PARSE(&o, "-j", "-i", "5", "-f", "239.2.2.2:7000", "feed-to-udp",
		    "-t", "239.1.1.1:5000@eth0", "--ttl", "4", "--slots", "64",
		    "--slot-size", "512", "--loopback", "--multicast-loop") == 0);
	CHECK(o.mode == RELAY_FEED_TO_UDP);
	CHECK(o.json && o.stats_interval == 5 && o.ttl == 4);
	CHECK(o.slots == 64 && o.slot_size == 512 && o.loopback && o.mc_loop);
	CHECK(PARSE(&o, "udp-to-feed", "--from=239.1.1.1:5000@eth0",
		    "--to=239.2.2.2:7000", "--rcvbuf", "4096") == 0);
	CHECK(o.rcvbuf == 4096);
	CHECK(PARSE(&o, "--help") == 0 && o.help);
}

static void relayarg_bad(void)
{
	struct relay_opts o;

	CHECK(PARSE(&o, "--json") == -1);
	CHECK_STR(err, "no mode: udp-to-feed or feed-to-udp");
	CHECK(PARSE(&o, "udp-to-ib", "--from", "239.1.1.1:5000") == -1);
	CHECK_STR(err, "unknown mode \"udp-to-ib\" (udp-to-feed or feed-to-udp)");
	CHECK(PARSE(&o, "udp-to-feed", "--from", "239.1.1.1:5000") == -1);
	CHECK_STR(err, "udp-to-feed needs --from and --to");
	CHECK(PARSE(&o, "udp-to-feed", "feed-to-udp", "--from", "239.1.1.1:5000",
		    "--to", "239.1.1.2:5000") == -1);
	CHECK_STR(err, "unexpected \"feed-to-udp\" after the mode");
	CHECK(PARSE(&o, "udp-to-feed", "--from", "239.1.1.1:5000", "--to",
		    "239.1.1.2:5000", "--ttl", "3") == -1);
	CHECK_STR(err, "--ttl and --multicast-loop are for feed-to-udp");
	CHECK(PARSE(&o, "udp-to-feed", "--from", "239.1.1.1:5000", "--to",
		    "239.1.1.2:5000", "--slots", "64") == -1);
	CHECK_STR(err, "--slots, --slot-size and --loopback are for feed-to-udp");
	CHECK(PARSE(&o, "feed-to-udp", "--from", "239.1.1.1:5000", "--to",
		    "239.1.1.2:5000", "--rcvbuf", "4096") == -1);
	CHECK_STR(err, "--rcvbuf is for udp-to-feed");
	CHECK(PARSE(&o, "feed-to-udp", "--stats-interval", "-1") == -1);
	CHECK_STR(err, "option --stats-interval: \"-1\" is not a number in range");
	CHECK(PARSE(&o, "feed-to-udp", "--ttl", "256") == -1);
	CHECK(PARSE(&o, "feed-to-udp", "--to") == -1);
	CHECK_STR(err, "option --to needs a value");
	CHECK(PARSE(&o, "feed-to-udp", "--nope") == -1);
	CHECK_STR(err, "unknown option \"--nope\"");
	CHECK(PARSE(&o, "udp-to-feed", "--from", "239.1.1.1:99999", "--to",
		    "239.1.1.2:5000") == -1);
	CHECK_STR(err, "\"239.1.1.1:99999\": \"99999\" is not a port (1..65535)");
}

const struct unit_case relayarg_cases[] = {
	{ "relayarg: endpoints GROUP:PORT[@IFNAME]", relayarg_ep_good },
	{ "relayarg: bad endpoints and their messages", relayarg_ep_bad },
	{ "relayarg: modes and options, before and after the mode", relayarg_modes },
	{ "relayarg: bad command lines and their messages", relayarg_bad },
	{ NULL, NULL },
};
