// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-relay's command line (see relayarg.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relayarg.h"

const char *relay_mode_name(enum relay_mode m)
{
	switch (m) {
	case RELAY_UDP_TO_FEED: return "udp-to-feed";
	case RELAY_FEED_TO_UDP: return "feed-to-udp";
	default: return "none";
	}
}

/* A decimal word in [min, max]; -1 when it is not one. */
static long long num(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

int relay_parse_ep(const char *s, struct relay_ep *ep, char *err, size_t errlen)
{
	char buf[128], *colon, *at;
	long long port;

	memset(ep, 0, sizeof(*ep));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "\"%.20s...\" is too long for GROUP:PORT@IFNAME", s);
		return -1;
	}
	strcpy(buf, s);
	at = strchr(buf, '@');
	if (at) {
		*at++ = 0;
		if (!*at || strlen(at) >= IFNAMSIZ || strchr(at, '/') ||
		    strchr(at, ' ') || strchr(at, '@')) {
			snprintf(err, errlen, "\"%s\": \"%s\" is not a netdev name", s, at);
			return -1;
		}
		strcpy(ep->ifname, at);
	}
	colon = strrchr(buf, ':');
	if (!colon) {
		snprintf(err, errlen, "\"%s\" is not GROUP:PORT[@IFNAME]", s);
		return -1;
	}
	*colon++ = 0;
	if (inet_pton(AF_INET, buf, &ep->group) != 1) {
		snprintf(err, errlen, "\"%s\": \"%s\" is not an IPv4 address", s, buf);
		return -1;
	}
	if (!IN_MULTICAST(ntohl(ep->group.s_addr))) {
		snprintf(err, errlen, "\"%s\": %s is not a multicast group (224.0.0.0/4)",
			 s, buf);
		return -1;
	}
	port = num(colon, 1, 65535);
	if (port < 0) {
		snprintf(err, errlen, "\"%s\": \"%s\" is not a port (1..65535)", s, colon);
		return -1;
	}
	ep->port = (uint16_t)port;
	inet_ntop(AF_INET, &ep->group, ep->group_s, sizeof(ep->group_s));
	return 0;
}

enum {
	OPT_FROM = 'f',
	OPT_TO = 't',
	OPT_INTERVAL = 'i',
	OPT_JSON = 'j',
	OPT_HELP = 'h',
	OPT_RCVBUF = 256,
	OPT_SLOTS,
	OPT_SLOT_SIZE,
	OPT_LOOPBACK,
	OPT_MC_LOOP,
	OPT_TTL,
};

static const struct option long_opts[] = {
	{ "from",		required_argument, NULL, OPT_FROM },
	{ "to",			required_argument, NULL, OPT_TO },
	{ "stats-interval",	required_argument, NULL, OPT_INTERVAL },
	{ "json",		no_argument,	   NULL, OPT_JSON },
	{ "rcvbuf",		required_argument, NULL, OPT_RCVBUF },
	{ "slots",		required_argument, NULL, OPT_SLOTS },
	{ "slot-size",		required_argument, NULL, OPT_SLOT_SIZE },
	{ "loopback",		no_argument,	   NULL, OPT_LOOPBACK },
	{ "multicast-loop",	no_argument,	   NULL, OPT_MC_LOOP },
	{ "ttl",		required_argument, NULL, OPT_TTL },
	{ "help",		no_argument,	   NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* "--name" of option @opt, for messages */
static const char *opt_name(int opt)
{
	const struct option *lo;

	for (lo = long_opts; lo->name; lo++)
		if (lo->val == opt)
			return lo->name;
	return "?";
}

int relay_parse_args(int argc, char **argv, struct relay_opts *o, char *err,
		     size_t errlen)
{
	bool have_from = false, have_to = false, feed_in, feed_out;
	bool seen_ttl = false;
	long long v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->ttl = 1;
	optind = 0;		/* glibc: start afresh (the unit tests call us again) */
	opterr = 0;
	/* options before and after the mode word (getopt permutes argv) */
	while ((opt = getopt_long(argc, argv, ":f:t:i:jh", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_FROM:
			if (relay_parse_ep(optarg, &o->from, err, errlen))
				return -1;
			have_from = true;
			break;
		case OPT_TO:
			if (relay_parse_ep(optarg, &o->to, err, errlen))
				return -1;
			have_to = true;
			break;
		case OPT_INTERVAL:
			v = num(optarg, 0, 86400);
			if (v < 0)
				goto bad_num;
			o->stats_interval = (unsigned int)v;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_RCVBUF:
			v = num(optarg, 0, INT_MAX / 2);
			if (v < 0)
				goto bad_num;
			o->rcvbuf = (int)v;
			break;
		case OPT_SLOTS:
			v = num(optarg, 1, UINT32_MAX);
			if (v < 0)
				goto bad_num;
			o->slots = (uint32_t)v;
			break;
		case OPT_SLOT_SIZE:
			v = num(optarg, 1, UINT32_MAX);
			if (v < 0)
				goto bad_num;
			o->slot_size = (uint32_t)v;
			break;
		case OPT_LOOPBACK:
			o->loopback = true;
			break;
		case OPT_MC_LOOP:
			o->mc_loop = true;
			break;
		case OPT_TTL:
			v = num(optarg, 0, 255);
			if (v < 0)
				goto bad_num;
			o->ttl = (int)v;
			seen_ttl = true;
			break;
		case OPT_HELP:
			o->help = true;
			return 0;
		case ':':
			if (optopt)
				snprintf(err, errlen, "option --%s needs a value", opt_name(optopt));
			else
				snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, errlen, "unknown option \"%s\"", argv[optind - 1]);
			return -1;
		}
		continue;
bad_num:
		snprintf(err, errlen, "option --%s: \"%s\" is not a number in range",
			 opt_name(opt), optarg);
		return -1;
	}
	if (optind >= argc) {
		snprintf(err, errlen, "no mode: udp-to-feed or feed-to-udp");
		return -1;
	}
	if (!strcmp(argv[optind], "udp-to-feed")) {
		o->mode = RELAY_UDP_TO_FEED;
	} else if (!strcmp(argv[optind], "feed-to-udp")) {
		o->mode = RELAY_FEED_TO_UDP;
	} else {
		snprintf(err, errlen, "unknown mode \"%s\" (udp-to-feed or feed-to-udp)",
			 argv[optind]);
		return -1;
	}
	if (optind + 1 < argc) {
		snprintf(err, errlen, "unexpected \"%s\" after the mode", argv[optind + 1]);
		return -1;
	}
	feed_in = o->mode == RELAY_FEED_TO_UDP;
	feed_out = o->mode == RELAY_UDP_TO_FEED;
	if (!have_from || !have_to) {
		snprintf(err, errlen, "%s needs --from and --to", relay_mode_name(o->mode));
		return -1;
	}
	if ((o->slots || o->slot_size || o->loopback) && !feed_in) {
		snprintf(err, errlen, "--slots, --slot-size and --loopback are for feed-to-udp");
		return -1;
	}
	if ((o->mc_loop || seen_ttl) && !feed_in) {
		snprintf(err, errlen, "--ttl and --multicast-loop are for feed-to-udp");
		return -1;
	}
	if (o->rcvbuf && !feed_out) {
		snprintf(err, errlen, "--rcvbuf is for udp-to-feed");
		return -1;
	}
	return 0;
}
