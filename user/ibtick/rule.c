// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick conn rule: the listener rules, who may listen() on which
 * connection ports (<linux/ibtick_netlink.h>, "Listener rules").
 *
 *   ibtick conn rule add PORT[-PORT] [ owner USER[:GROUP] ] [ group GROUP ]
 *                        [ mode OCTAL ]
 *   ibtick conn rule del PORT[-PORT]
 *   ibtick [-j] conn rule show
 *   ibtick conn rule save
 *
 * The form of the words is checked here; ranges, modes and overlaps are
 * the kernel's to refuse, and its extended ACK says why.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "ibtick.h"
#include "nl.h"
#include "out.h"

static struct nla_policy rule_reply_policy[IBTICK_A_RULE_MAX + 1] = {
	[IBTICK_A_RULE_PORT_LO]	= { .type = NLA_U16 },
	[IBTICK_A_RULE_PORT_HI]	= { .type = NLA_U16 },
	[IBTICK_A_RULE_OWNER]	= { .type = NLA_U32 },
	[IBTICK_A_RULE_GROUP]	= { .type = NLA_U32 },
	[IBTICK_A_RULE_MODE]	= { .type = NLA_U16 },
};

static const char *const rule_attr_names[IBTICK_A_RULE_MAX + 1] = {
	[IBTICK_A_RULE_PORT_LO]	= "port",
	[IBTICK_A_RULE_PORT_HI]	= "port (range end)",
	[IBTICK_A_RULE_OWNER]	= "owner",
	[IBTICK_A_RULE_GROUP]	= "group",
	[IBTICK_A_RULE_MODE]	= "mode",
};

static const struct ibt_nl_obj rule_obj = {
	.maxattr	= IBTICK_A_RULE_MAX,
	.policy		= rule_reply_policy,
	.attr_names	= rule_attr_names,
	.n_names	= IBTICK_A_RULE_MAX + 1,
};

static void rule_usage(void)
{
	fprintf(stderr,
		"Usage: ibtick conn rule add PORT[-PORT] [ owner USER[:GROUP] ] [ group GROUP ]\n"
		"                            [ mode OCTAL ]\n"
		"       ibtick conn rule del PORT[-PORT]\n"
		"       ibtick conn rule show\n"
		"       ibtick conn rule save\n"
		"       ibtick conn rule help\n"
		"mode: only the w bits (0222) count: w lets owner, group or others listen\n");
}

/* PORT or PORT-PORT, each 1..65535 (their order is the kernel's to check). */
static int parse_range(const char *s, struct nl_msg *msg)
{
	char buf[32], *dash;
	uint32_t lo, hi;

	if (!s) {
		fprintf(stderr, "ibtick: a port or port range (PORT-PORT) is required\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (cli_u32("port", buf, 1, 65535, &lo))
		return -1;
	hi = lo;
	if (dash && cli_u32("port", dash, 1, 65535, &hi))
		return -1;
	nla_put_u16(msg, IBTICK_A_RULE_PORT_LO, (uint16_t)lo);
	nla_put_u16(msg, IBTICK_A_RULE_PORT_HI, (uint16_t)hi);
	return 0;
}

static int parse_group(const char *s, struct nl_msg *msg)
{
	struct group *gr = getgrnam(s);
	unsigned long v;
	char *end;

	v = strtoul(s, &end, 10);
	if (gr)
		v = gr->gr_gid;
	else if (!*s || *end || v > UINT32_MAX - 1) {
		fprintf(stderr, "ibtick: no such group \"%s\"\n", s);
		return -1;
	}
	nla_put_u32(msg, IBTICK_A_RULE_GROUP, (uint32_t)v);
	return 0;
}

static int parse_rule(struct cli *c, struct nl_msg *msg)
{
	char *kw, *val, *end;
	unsigned long m;

	while ((kw = cli_next(c))) {
		val = cli_next(c);
		if (!val) {
			fprintf(stderr, "ibtick: \"%s\" needs a value\n", kw);
			return -1;
		}
		if (cli_matches(kw, "owner")) {
			if (cli_owner(val, msg, IBTICK_A_RULE_OWNER,
				      IBTICK_A_RULE_GROUP))
				return -1;
		} else if (cli_matches(kw, "group")) {
			if (parse_group(val, msg))
				return -1;
		} else if (cli_matches(kw, "mode")) {
			m = strtoul(val, &end, 8);
			if (!*val || *end || m > 07777) {
				fprintf(stderr, "ibtick: mode \"%s\" is not an octal mode\n", val);
				return -1;
			}
			nla_put_u16(msg, IBTICK_A_RULE_MODE, (uint16_t)m);
		} else {
			fprintf(stderr, "ibtick: unknown conn rule add parameter \"%s\"\n", kw);
			return -1;
		}
	}
	return 0;
}

static unsigned int get(struct nlattr **tb, int a);

/* The rule add refused for an overlap: which rules are in the way. */
struct clash {
	unsigned int	lo, hi;
};

static int print_clash(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	const struct clash *w = arg;
	unsigned int lo = get(tb, IBTICK_A_RULE_PORT_LO);
	unsigned int hi = get(tb, IBTICK_A_RULE_PORT_HI);

	(void)nlh;
	if (lo <= w->hi && w->lo <= hi)
		fprintf(stderr, "ibtick: in the way: ports %u-%u owner %u group %u mode %04o\n",
			lo, hi, get(tb, IBTICK_A_RULE_OWNER),
			get(tb, IBTICK_A_RULE_GROUP), get(tb, IBTICK_A_RULE_MODE));
	return 0;
}

static void name_clash(struct nl_msg *msg)
{
	struct nlattr *tb[IBTICK_A_RULE_MAX + 1];
	struct clash w;
	struct ibt_nl_req req = {
		.obj = &rule_obj, .cmd = IBTICK_CMD_CONN_RULE_GET,
		.flags = NLM_F_DUMP, .cb = print_clash, .arg = &w,
	};
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nla_parse(tb, IBTICK_A_RULE_MAX, nlmsg_attrdata(nlh, 0),
		      nlmsg_attrlen(nlh, 0), rule_reply_policy) < 0 ||
	    !tb[IBTICK_A_RULE_PORT_LO] || !tb[IBTICK_A_RULE_PORT_HI])
		return;
	w.lo = nla_get_u16(tb[IBTICK_A_RULE_PORT_LO]);
	w.hi = nla_get_u16(tb[IBTICK_A_RULE_PORT_HI]);
	ibt_nl_request(&req);
}

/* rule add / del: one request, the kernel's answer. */
static int rule_change(struct cli *c, int cmd)
{
	struct ibt_nl_req req = { .obj = &rule_obj, .cmd = cmd };
	int ret;

	req.attrs = ibt_nl_attrs();	/* parse first: usage errors need no module */
	if (!req.attrs)
		return EXIT_FAIL;
	ret = parse_range(cli_next(c), req.attrs) ? EXIT_USAGE : 0;
	if (!ret && cmd == IBTICK_CMD_CONN_RULE_NEW)
		ret = parse_rule(c, req.attrs) ? EXIT_USAGE : 0;
	else if (!ret)
		ret = cli_end(c, NULL);
	if (ret)
		rule_usage();
	else
		ret = ibt_nl_request(&req);
	if (ret == EXIT_FAIL && ibt_nl_errno == EEXIST)
		name_clash(req.attrs);	/* 6.1's extended ACK cannot name it */
	nlmsg_free(req.attrs);
	return ret;
}

static int rule_add(struct cli *c)
{
	return rule_change(c, IBTICK_CMD_CONN_RULE_NEW);
}

static int rule_del(struct cli *c)
{
	return rule_change(c, IBTICK_CMD_CONN_RULE_DEL);
}

static unsigned int get(struct nlattr **tb, int a)
{
	if (!tb[a])
		return 0;
	return rule_reply_policy[a].type == NLA_U16 ? nla_get_u16(tb[a]) :
						       nla_get_u32(tb[a]);
}

static int print_rule(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	char mode[8];

	(void)nlh;
	(void)arg;
	if (!tb[IBTICK_A_RULE_PORT_LO]) {
		fprintf(stderr, "ibtick: malformed rule in the kernel's reply\n");
		return -1;
	}
	snprintf(mode, sizeof(mode), "%04o", get(tb, IBTICK_A_RULE_MODE));
	out_obj_open(NULL);
	out_u64("port_lo", "ports %" PRIu64, get(tb, IBTICK_A_RULE_PORT_LO));
	out_u64("port_hi", "-%" PRIu64, get(tb, IBTICK_A_RULE_PORT_HI));
	out_u64("owner", " owner %" PRIu64, get(tb, IBTICK_A_RULE_OWNER));
	out_u64("group", " group %" PRIu64, get(tb, IBTICK_A_RULE_GROUP));
	out_str("mode", " mode %s", mode);
	out_obj_close();
	out_nl();
	return 0;
}

static int save_rule(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	(void)nlh;
	(void)arg;
	if (!tb[IBTICK_A_RULE_PORT_LO])
		return 0;
	printf("conn rule add %u-%u owner %u:%u mode %04o\n",
	       get(tb, IBTICK_A_RULE_PORT_LO), get(tb, IBTICK_A_RULE_PORT_HI),
	       get(tb, IBTICK_A_RULE_OWNER), get(tb, IBTICK_A_RULE_GROUP),
	       get(tb, IBTICK_A_RULE_MODE));
	return 0;
}

static int rule_show(struct cli *c)
{
	struct ibt_nl_req req = {
		.obj = &rule_obj, .cmd = IBTICK_CMD_CONN_RULE_GET,
		.flags = NLM_F_DUMP, .cb = print_rule, .array = true,
	};

	if (cli_end(c, rule_usage))
		return EXIT_USAGE;
	return ibt_nl_request(&req);
}

int conn_rules_save(struct ibt_nl *nl)
{
	struct ibt_nl_req req = {
		.obj = &rule_obj, .cmd = IBTICK_CMD_CONN_RULE_GET,
		.flags = NLM_F_DUMP, .cb = save_rule,
	};

	return ibt_nl_call(nl, &req);
}

static int rule_save(struct cli *c)
{
	struct ibt_nl nl;
	int ret;

	if (cli_end(c, rule_usage))
		return EXIT_USAGE;
	ret = ibt_nl_open(&nl);
	if (ret)
		return ret;
	printf("# ibtick conn rule save: the listener rules of this host; restore with ibtick -b FILE\n");
	ret = conn_rules_save(&nl);
	ibt_nl_close(&nl);
	return ret;
}

static const struct cli_cmd rule_cmds[] = {
	{ "show",	rule_show },
	{ "list",	rule_show },
	{ "add",	rule_add },
	{ "del",	rule_del },
	{ "delete",	rule_del },
	{ "save",	rule_save },
	{ NULL }
};

int cmd_conn_rule(struct cli *c)
{
	return cli_dispatch(c, rule_cmds, "conn rule", rule_usage);
}
