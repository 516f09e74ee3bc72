// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-run's configuration parser (user/preload/runconf.c): good rules
 * read back as written, each kind of bad rule refused with its message and
 * skipped while the good ones around it stay, comments and separators, the
 * rule limit, and matching with and without an interface.
 */
#include <arpa/inet.h>

#include "runconf.h"
#include "unit.h"

static void roundtrip(const char *in, const char *want)
{
	struct runconf_rule r;
	char err[256] = "", out[128];

	CHECK(runconf_parse_rule(in, &r, err, sizeof(err)) == 0);
	if (err[0])
		fprintf(stderr, "  %s: %s\n", in, err);
	runconf_format(&r, out, sizeof(out));
	CHECK_STR(out, want);
}

static void test_good_rules(void)
{
	struct runconf_rule r;
	char err[256];

	roundtrip("239.1.2.3:7001@rxe0", "239.1.2.3:7001@rxe0");
	roundtrip("239.1.2.3:7001", "239.1.2.3:7001");
	roundtrip("239.10.0.0/16:5000-5009@ib0", "239.10.0.0/16:5000-5009@ib0");
	roundtrip("239.1.2.3:*@veth0", "239.1.2.3:*@veth0");
	roundtrip("239.1.2.3:1-65535", "239.1.2.3:*");
	roundtrip("239.1.2.3/32:9", "239.1.2.3:9");
	CHECK(runconf_parse_rule("239.10.0.0/16:5000-5009@ib0", &r, err, sizeof(err)) == 0);
	CHECK(r.group == 0xef0a0000u && r.mask == 0xffff0000u);
	CHECK(r.port_lo == 5000 && r.port_hi == 5009);
	CHECK_STR(r.ifname, "ib0");
	CHECK(r.ifindex == 0 && r.bad == 0);
}

static void bad(const char *in, const char *want_in_msg)
{
	struct runconf_rule r;
	char err[256] = "";

	CHECK(runconf_parse_rule(in, &r, err, sizeof(err)) == -1);
	if (!strstr(err, want_in_msg)) {
		fprintf(stderr, "  '%s': message '%s' lacks '%s'\n", in, err, want_in_msg);
		unit_failed_checks++;
	}
}

static void test_bad_rules(void)
{
	bad("239.1.2.3", "no ':PORT'");
	bad("239.1.2.3@rxe0", "no ':PORT'");
	bad("239.1.2:7001", "not an IPv4 address");
	bad("239.1.2.3.4:7001", "not an IPv4 address");
	bad("239.1.2.256:7001", "not an IPv4 address");
	bad("mcast:7001", "not an IPv4 address");
	bad(":7001", "not an IPv4 address");
	bad("10.1.2.3:7001", "not a multicast group");
	bad("224.0.0.251:5353", "link-local");
	bad("224.0.0.0/8:5353", "link-local");
	bad("239.1.2.3:0", "port must be 1..65535");
	bad("239.1.2.3:65536", "port must be 1..65535");
	bad("239.1.2.3:", "port must be 1..65535");
	bad("239.1.2.3:70x1", "port must be 1..65535");
	bad("239.1.2.3:9-3", "ends before it starts");
	bad("239.1.2.3:9-", "range end");
	bad("239.1.2.3:7001@", "empty interface name");
	bad("239.1.2.3:7001@averyveryverylongname", "longer than");
	bad("239.1.2.3:7001@a@b", "bad interface name");
	bad("239.1.2.0/33:1", "prefix length");
	bad("239.1.2.0/3:1", "prefix length");
	bad("239.1.2.3/24:1", "bits set past /24");
}

struct reports {
	int n;
	char last[400];
};

static void collect(void *arg, const char *msg)
{
	struct reports *rep = arg;

	rep->n++;
	snprintf(rep->last, sizeof(rep->last), "%s", msg);
}

static void test_text(void)
{
	static struct runconf c;
	struct reports rep = { 0 };
	int bads;

	memset(&c, 0, sizeof(c));
	bads = runconf_parse(&c,
		"# market data\n"
		"239.1.1.1:5000@rxe0   # the A feed\n"
		"\n"
		"239.1.1.2:5000@rxe0,239.1.1.3:5000\t239.1.1.4:5000\n"
		"239.1.1.5:notaport@rxe0\n"
		"  239.2.0.0/16:6000-6001@rxe1#trailing comment\n",
		"run.conf", collect, &rep);
	CHECK(bads == 1);
	CHECK(rep.n == 1);
	CHECK(strstr(rep.last, "run.conf:5: '239.1.1.5:notaport@rxe0'") == rep.last);
	CHECK(c.n == 5);
	CHECK(c.rule[4].group == 0xef020000u && c.rule[4].port_hi == 6001);
	CHECK_STR(c.rule[4].ifname, "rxe1");

	/* empty and comment-only texts are no error */
	memset(&c, 0, sizeof(c));
	CHECK(runconf_parse(&c, "", "-g", NULL, NULL) == 0);
	CHECK(runconf_parse(&c, "# nothing\n\n", "-g", NULL, NULL) == 0);
	CHECK(c.n == 0);
}

static void test_limit(void)
{
	static struct runconf c;
	struct reports rep = { 0 };
	char word[40];
	int i, bads = 0;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < RUNCONF_MAX_RULES + 3; i++) {
		snprintf(word, sizeof(word), "239.9.%d.%d:1", i / 256, i % 256 + 0);
		bads += runconf_parse(&c, word, "-g", collect, &rep);
	}
	CHECK(c.n == RUNCONF_MAX_RULES);
	/* one message per text: each of the three late -g words is told */
	CHECK(bads == 3 && rep.n == 3);
	CHECK(strstr(rep.last, "more than 256 rules") != NULL);
	memset(&c, 0, sizeof(c));
	rep.n = 0;
	{
		static char big[RUNCONF_MAX_RULES * 20 + 100];
		size_t off = 0;

		for (i = 0; i < RUNCONF_MAX_RULES + 5; i++)
			off += (size_t)snprintf(big + off, sizeof(big) - off, "239.8.%d.%d:1\n",
						i / 256, i % 256);
		/* within one text the overflow is told once */
		CHECK(runconf_parse(&c, big, "f", collect, &rep) == 1);
		CHECK(rep.n == 1 && c.n == RUNCONF_MAX_RULES);
	}
}

static void test_match(void)
{
	static struct runconf c;
	const struct runconf_rule *r;
	uint32_t g = ntohl(inet_addr("239.1.1.1"));

	memset(&c, 0, sizeof(c));
	CHECK(runconf_parse(&c, "239.1.1.1:5000@rxe0 239.1.1.1:5000@rxe1 "
			    "239.1.0.0/16:6000-6009@rxe1 239.1.1.1:*", "-g", NULL, NULL) == 0);
	c.rule[0].ifindex = 4;
	c.rule[1].ifindex = 5;
	c.rule[2].ifindex = 5;
	CHECK(runconf_match(&c, g, 5000, 0) == &c.rule[0]);
	CHECK(runconf_match(&c, g, 5000, 5) == &c.rule[1]);
	/* an interface no rule names: the first rule that covers */
	CHECK(runconf_match(&c, g, 5000, 9) == &c.rule[0]);
	CHECK(runconf_match(&c, ntohl(inet_addr("239.1.200.7")), 6009, 0) == &c.rule[2]);
	CHECK(runconf_match(&c, ntohl(inet_addr("239.1.200.7")), 6010, 0) == NULL);
	CHECK(runconf_match(&c, ntohl(inet_addr("239.2.1.1")), 6000, 0) == NULL);
	/* the wildcard port */
	r = runconf_match(&c, g, 40000, 0);
	CHECK(r == &c.rule[3]);
	/* a rule the caller marked bad is passed over */
	c.rule[0].bad = 1;
	CHECK(runconf_match(&c, g, 5000, 0) == &c.rule[1]);
}

const struct unit_case runconf_cases[] = {
	{ "runconf: good rules read back as written", test_good_rules },
	{ "runconf: each bad rule refused with its reason", test_bad_rules },
	{ "runconf: comments, separators, a bad line skipped", test_text },
	{ "runconf: the rule limit, told once per text", test_limit },
	{ "runconf: matching by group, port and interface", test_match },
	{ NULL, NULL },
};
