// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick feed: create, change, delete, show and save feeds.
 *
 *   ibtick feed add NAME group A.B.C.D port N [ netdev IF ] [ slots N ]
 *                   [ slot-size N ] [ poll irq | poll busy [ cpu N ] ]
 *                   [ comp-vector N ] [ loopback socket|deny ]
 *                   [ prefer-defer US|default ]
 *                   [ owner USER[:GROUP] ] [ mode OCTAL ]
 *                   [ member send-only|full ]
 *   ibtick feed add NAME arbitrate rail GROUP PORT NETDEV rail ... (2 to 4)
 *                   [ seq-field { publisher | off N width 4|8 [ le|be ] } ]
 *                   [ window-us N ] [ window-ticks N ] [ reset-at N ]
 *                   [ slots N ] [ slot-size N ] [ owner ... ] [ mode ... ]
 *   ibtick feed set NAME [ the settings above but group/port/netdev ]
 *   ibtick feed del NAME
 *   ibtick [-d] [-s] feed show [ NAME ]
 *   ibtick feed save	(the listener rules too: ibtick conn rule save)
 *
 * The command line is checked here for form (numbers, words, names that
 * resolve); ranges and everything else are the kernel's to check, and its
 * extended ACK names the attribute it refused.
 */
#include <arpa/inet.h>
#include <grp.h>
#include <inttypes.h>
#include <net/if.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#include "arbattr.h"
#include "feedattr.h"
#include "ibtick.h"
#include "nl.h"
#include "out.h"

static void feed_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick feed add NAME group A.B.C.D port N [ netdev IFNAME ] [ slots N ]\n"
		"                       [ slot-size N ] [ poll { irq | busy [ cpu N ] } ]\n"
		"                       [ comp-vector N ] [ loopback { socket | deny } ]\n"
		"                       [ prefer-defer { US | default } ]\n"
		"                       [ owner USER[:GROUP] ] [ mode OCTAL ]\n"
		"                       [ member { send-only | full } ]\n"
		"       ibtick feed add NAME arbitrate rail GROUP PORT NETDEV rail GROUP PORT NETDEV...\n"
		"                       [ seq-field { publisher | off N width { 4 | 8 } [ le | be ] } ]\n"
		"                       [ window-us N ] [ window-ticks N ] [ reset-at N ]\n"
		"                       [ slots N ] [ slot-size N ] [ owner USER[:GROUP] ] [ mode OCTAL ]\n"
		"       ibtick feed set NAME [ poll { irq | busy [ cpu N ] } ] [ loopback { socket | deny } ]\n"
		"                       [ prefer-defer { US | default } ] [ owner USER[:GROUP] ] [ mode OCTAL ]\n"
		"       ibtick feed del NAME\n"
		"       ibtick feed show [ NAME ]\n"
		"       ibtick feed save\n"
		"       ibtick feed help\n");
}

int cli_owner(const char *s, struct nl_msg *msg, int uid_attr, int gid_attr)
{
	char buf[256], *colon, *end;
	struct passwd *pw;
	struct group *gr;
	unsigned long v;

	snprintf(buf, sizeof(buf), "%s", s);
	colon = strchr(buf, ':');
	if (colon)
		*colon++ = '\0';
	if (buf[0]) {
		pw = getpwnam(buf);
		v = strtoul(buf, &end, 10);
		if (pw)
			v = pw->pw_uid;
		else if (*end || v > UINT32_MAX - 1) {
			fprintf(stderr, "ibtick: no such user \"%s\"\n", buf);
			return -1;
		}
		nla_put_u32(msg, uid_attr, (uint32_t)v);
	}
	if (colon && *colon) {
		gr = getgrnam(colon);
		v = strtoul(colon, &end, 10);
		if (gr)
			v = gr->gr_gid;
		else if (*end || v > UINT32_MAX - 1) {
			fprintf(stderr, "ibtick: no such group \"%s\"\n", colon);
			return -1;
		}
		nla_put_u32(msg, gid_attr, (uint32_t)v);
	}
	return 0;
}

/*
 * The settings of feed add (@add) or feed set into @msg.  Returns 0, or
 * EXIT_USAGE after saying what was wrong.
 */
static int parse_settings(struct cli *c, struct nl_msg *msg, bool add)
{
	bool have_group = false, have_port = false, arb = false;
	struct arb_req ar = { 0 };
	uint32_t v;
	char *kw, *val;
	int got;

	while ((kw = cli_next(c))) {
		if (add && !arb && !strcmp(kw, "arbitrate")) {
			arb = true;
			continue;
		}
		if (arb) {
			got = arb_parse_kw(c, kw, &ar);
			if (got < 0)
				return EXIT_USAGE;
			if (got)
				continue;
		}
		val = cli_next(c);
		if (!val) {
			fprintf(stderr, "ibtick: \"%s\" needs a value\n", kw);
			return EXIT_USAGE;
		}
		if (add && cli_matches(kw, "group")) {
			struct in_addr in;

			if (inet_pton(AF_INET, val, &in) != 1) {
				fprintf(stderr, "ibtick: group \"%s\" is not an IPv4 address\n", val);
				return EXIT_USAGE;
			}
			nla_put_u32(msg, IBTICK_A_FEED_GROUP, in.s_addr);
			have_group = true;
		} else if (add && cli_matches(kw, "port")) {
			if (cli_u32("port", val, 1, 65535, &v))
				return EXIT_USAGE;
			nla_put_u16(msg, IBTICK_A_FEED_PORT, (uint16_t)v);
			have_port = true;
		} else if (add && cli_matches(kw, "netdev")) {
			v = if_nametoindex(val);
			if (!v) {
				fprintf(stderr, "ibtick: no network interface \"%s\"\n", val);
				return EXIT_USAGE;
			}
			nla_put_u32(msg, IBTICK_A_FEED_IFINDEX, v);
		} else if (!strcmp(kw, "slots")) {
			if (cli_u32("slots", val, 0, UINT32_MAX, &v))
				return EXIT_USAGE;
			nla_put_u32(msg, IBTICK_A_FEED_SLOTS, v);
		} else if (!strcmp(kw, "slot-size")) {
			if (cli_u32("slot-size", val, 0, UINT32_MAX, &v))
				return EXIT_USAGE;
			nla_put_u32(msg, IBTICK_A_FEED_SLOT_SIZE, v);
		} else if (cli_matches(kw, "comp-vector")) {
			if (cli_u32("comp-vector", val, 0, UINT32_MAX, &v))
				return EXIT_USAGE;
			nla_put_u32(msg, IBTICK_A_FEED_COMP_VECTOR, v);
		} else if (cli_matches(kw, "poll")) {
			if (!strcmp(val, "irq")) {
				nla_put_u8(msg, IBTICK_A_FEED_POLL_MODE, IBTICK_POLL_IRQ);
			} else if (!strcmp(val, "busy")) {
				nla_put_u8(msg, IBTICK_A_FEED_POLL_MODE, IBTICK_POLL_BUSY);
				if (c->argc >= 2 && !strcmp(c->argv[0], "cpu")) {
					cli_next(c);
					val = cli_next(c);
					if (cli_u32("cpu", val, 0, INT32_MAX, &v))
						return EXIT_USAGE;
					nla_put_s32(msg, IBTICK_A_FEED_POLL_CPU, (int32_t)v);
				}
			} else {
				fprintf(stderr, "ibtick: poll is \"irq\" or \"busy\", not \"%s\"\n", val);
				return EXIT_USAGE;
			}
		} else if (!strcmp(kw, "prefer-defer")) {
			/* the range is the kernel's to say (extack) */
			if (!strcmp(val, "default"))
				v = IBTICK_PREFER_DEFER_DEFAULT;
			else if (cli_u32("prefer-defer", val, 0,
					 IBTICK_PREFER_DEFER_DEFAULT - 1, &v))
				return EXIT_USAGE;
			nla_put_u32(msg, IBTICK_A_FEED_PREFER_DEFER, v);
		} else if (cli_matches(kw, "loopback")) {
			if (!strcmp(val, "socket"))
				v = IBTICK_FEED_LOOPBACK_SOCKET;
			else if (!strcmp(val, "deny"))
				v = IBTICK_FEED_LOOPBACK_DENY;
			else {
				fprintf(stderr, "ibtick: loopback is \"socket\" or \"deny\", not \"%s\"\n", val);
				return EXIT_USAGE;
			}
			nla_put_u8(msg, IBTICK_A_FEED_LOOPBACK, (uint8_t)v);
		} else if (cli_matches(kw, "owner")) {
			if (cli_owner(val, msg, IBTICK_A_FEED_OWNER,
				      IBTICK_A_FEED_OWNER_GROUP))
				return EXIT_USAGE;
		} else if (cli_matches(kw, "mode")) {
			char *end;
			unsigned long m = strtoul(val, &end, 8);

			if (!*val || *end || m > 07777) {
				fprintf(stderr, "ibtick: mode \"%s\" is not an octal mode\n", val);
				return EXIT_USAGE;
			}
			nla_put_u16(msg, IBTICK_A_FEED_MODE, (uint16_t)m);
		} else if (cli_matches(kw, "member")) {
			if (!strcmp(val, "send-only"))
				v = IBTICK_FEED_MEMBER_SEND_ONLY;
			else if (!strcmp(val, "full"))
				v = IBTICK_FEED_MEMBER_FULL;
			else {
				fprintf(stderr, "ibtick: member is \"send-only\" or \"full\", not \"%s\"\n", val);
				return EXIT_USAGE;
			}
			nla_put_u8(msg, IBTICK_A_FEED_MEMBERSHIP, (uint8_t)v);
		} else {
			fprintf(stderr, "ibtick: unknown feed %s parameter \"%s\"\n",
				add ? "add" : "set", kw);
			return EXIT_USAGE;
		}
	}
	if (arb) {
		/* the kernel says what an arbitrated feed does not take */
		arb_put(msg, &ar);
		return 0;
	}
	if (add && (!have_group || !have_port)) {
		fprintf(stderr, "ibtick: feed add needs group and port\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* feed add / set / del: one request, the kernel's answer. */
static int feed_change(struct cli *c, int cmd)
{
	struct ibt_nl_req req = {
		.obj = &feed_obj, .cmd = cmd,
		.name_attr = IBTICK_A_FEED_NAME, .name = cli_next(c),
	};
	int ret = 0;

	if (!req.name) {
		fprintf(stderr, "ibtick: feed name required\n");
		feed_usage();
		return EXIT_USAGE;
	}
	req.attrs = ibt_nl_attrs();	/* parse first: usage errors need no module */
	if (!req.attrs)
		return EXIT_FAIL;
	if (cmd != IBTICK_CMD_FEED_DEL)
		ret = parse_settings(c, req.attrs, cmd == IBTICK_CMD_FEED_NEW);
	else
		ret = cli_end(c, NULL);
	if (ret)
		feed_usage();
	else
		ret = ibt_nl_request(&req);
	nlmsg_free(req.attrs);
	return ret;
}

static int feed_add(struct cli *c)
{
	return feed_change(c, IBTICK_CMD_FEED_NEW);
}

static int feed_set(struct cli *c)
{
	return feed_change(c, IBTICK_CMD_FEED_SET);
}

static int feed_del(struct cli *c)
{
	return feed_change(c, IBTICK_CMD_FEED_DEL);
}

static int print_feed(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct cli *c = arg;

	(void)nlh;
	return feed_print(tb, c->stats > 0, c->details);
}

static int save_feed(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	(void)nlh;
	(void)arg;
	feed_print_batch(tb, stdout);
	return 0;
}

static int feed_list(struct cli *c, ibt_nl_reply_cb cb, bool save)
{
	struct ibt_nl_req req = {
		.obj = &feed_obj, .cmd = IBTICK_CMD_FEED_GET, .flags = NLM_F_DUMP,
		.name_attr = IBTICK_A_FEED_NAME, .name = save ? NULL : cli_next(c),
		.cb = cb, .arg = c, .array = !save,
	};
	struct ibt_nl nl;
	int ret;

	if (cli_end(c, feed_usage))
		return EXIT_USAGE;
	if (req.name)
		req.flags = 0;
	if (!save)
		return ibt_nl_request(&req);
	ret = ibt_nl_open(&nl);
	if (ret)
		return ret;
	printf("# ibtick feed save: the admin feeds and the listener rules of this host; restore with ibtick -b FILE\n");
	ret = ibt_nl_call(&nl, &req);
	if (!ret)
		ret = conn_rules_save(&nl);
	ibt_nl_close(&nl);
	return ret;
}

static int feed_show(struct cli *c)
{
	return feed_list(c, print_feed, false);
}

static int feed_save(struct cli *c)
{
	return feed_list(c, save_feed, true);
}

static const struct cli_cmd feed_cmds[] = {
	{ "show",	feed_show },
	{ "list",	feed_show },
	{ "add",	feed_add },
	{ "set",	feed_set },
	{ "del",	feed_del },
	{ "delete",	feed_del },
	{ "save",	feed_save },
	{ NULL }
};

int cmd_feed(struct cli *c)
{
	return cli_dispatch(c, feed_cmds, "feed", feed_usage);
}
