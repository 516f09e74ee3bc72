// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: struct sockaddr_ibtick validation (kmod/addr.c), as a table.
 */
#include <kunit/test.h>
#include <linux/socket.h>

#include "addr.h"

#define FAM 25

static struct sockaddr_ibtick good(void)
{
	struct sockaddr_ibtick a = {
		.sibt_family = FAM,
		.sibt_port = 7001,
		.sibt_ifindex = 3,
		.sibt_group_family = AF_INET,
		.sibt_group = { 239, 1, 2, 3 },
	};
	return a;
}

static void addr_good(struct kunit *test)
{
	struct sockaddr_ibtick a = good();
	struct ibt_addr out;

	KUNIT_ASSERT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out.group), 0xef010203U);
	KUNIT_EXPECT_EQ(test, out.port, 7001);
	KUNIT_EXPECT_EQ(test, out.ifindex, 3U);
	/* a longer buffer is fine: only the known part is read */
	KUNIT_EXPECT_EQ(test, ibt_addr_parse(&a, sizeof(a) + 16, FAM, &out), 0);
	/* 224.0.1.x is outside the link-local block: fine */
	a.sibt_group[0] = 224;
	a.sibt_group[1] = 0;
	a.sibt_group[2] = 1;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), 0);
	/* 239.255.255.255, the top of the range */
	memset(a.sibt_group, 0xff, 4);
	a.sibt_group[0] = 239;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), 0);
}

/* Connection addresses (SOCK_SEQPACKET): unicast IPv4, port. */
static struct sockaddr_ibtick uc(u8 a, u8 b, u8 c, u8 d, u16 port)
{
	struct sockaddr_ibtick s = {
		.sibt_family = FAM,
		.sibt_port = port,
		.sibt_group_family = AF_INET,
		.sibt_group = { a, b, c, d },
	};
	return s;
}

static void addr_unicast(struct kunit *test)
{
	struct sockaddr_ibtick a = uc(10, 99, 0, 1, 7001);
	struct ibt_uaddr out;

	KUNIT_ASSERT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(out.addr), 0x0a630001U);
	KUNIT_EXPECT_EQ(test, out.port, 7001);
	/* bind may say any address and any port; connect may not */
	a = uc(0, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, true,
						     &out), 0);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EINVAL);
	a = uc(10, 99, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EINVAL);
	/* never a group, broadcast, class E or 0.x.y.z */
	a = uc(239, 1, 2, 3, 7001);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, true,
						     &out), -EINVAL);
	a = uc(255, 255, 255, 255, 7001);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, true,
						     &out), -EINVAL);
	a = uc(240, 0, 0, 1, 7001);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, true,
						     &out), -EINVAL);
	a = uc(0, 1, 2, 3, 7001);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, true,
						     &out), -EINVAL);
	/* the fields a feed address uses for other things */
	a = uc(10, 99, 0, 1, 7001);
	a.sibt_flags = IBTICK_ADDR_FEED_ID;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EINVAL);
	a = uc(10, 99, 0, 1, 7001);
	a.sibt_reserved = 1;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EINVAL);
	a = uc(10, 99, 0, 1, 7001);
	a.sibt_group[15] = 1;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EINVAL);
	a = uc(10, 99, 0, 1, 7001);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a) - 1, FAM,
						     false, &out), -EINVAL);
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM + 1,
						     false, &out),
			-EAFNOSUPPORT);
	a.sibt_group_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, ibt_addr_parse_unicast(&a, sizeof(a), FAM, false,
						     &out), -EAFNOSUPPORT);
}

static void addr_bad(struct kunit *test)
{
	struct {
		const char *what;
		void (*mod)(struct sockaddr_ibtick *a);
		int len_delta;
		int err;
	} *c, cases[] = {
		{ "short", NULL, -1, -EINVAL },
		{ "empty", NULL, -(int)sizeof(struct sockaddr_ibtick), -EINVAL },
		{ "negative", NULL, -1000, -EINVAL },
	};
	struct sockaddr_ibtick a = good();
	struct ibt_addr out;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = &cases[i];
		KUNIT_EXPECT_EQ_MSG(test, ibt_addr_parse(&a, sizeof(a) + c->len_delta,
							 FAM, &out), c->err,
				    "%s", c->what);
	}
}

/* One field wrong at a time, each with its errno. */
static void addr_fields(struct kunit *test)
{
	struct sockaddr_ibtick a;
	struct ibt_addr out;

#define EXPECT_FIELD(stmt, err) do {					\
	a = good();							\
	stmt;								\
	KUNIT_EXPECT_EQ_MSG(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), \
			    err, "%s", #stmt);				\
} while (0)

	EXPECT_FIELD(a.sibt_family = 2, -EAFNOSUPPORT);
	EXPECT_FIELD(a.sibt_family = 0, -EAFNOSUPPORT);
	EXPECT_FIELD(a.sibt_group_family = AF_INET6, -EAFNOSUPPORT);
	EXPECT_FIELD(a.sibt_group_family = 0, -EINVAL);
	EXPECT_FIELD(a.sibt_group_family = 0xffff, -EINVAL);
	EXPECT_FIELD(a.sibt_reserved = 1, -EINVAL);
	EXPECT_FIELD(a.sibt_flags = 1, -EINVAL);
	EXPECT_FIELD(a.sibt_flags = 0x80000000, -EINVAL);
	EXPECT_FIELD(a.sibt_port = 0, -EINVAL);
	EXPECT_FIELD(a.sibt_group[15] = 1, -EINVAL);
	EXPECT_FIELD(a.sibt_group[4] = 1, -EINVAL);
	EXPECT_FIELD(a.sibt_group[0] = 10, -EINVAL);		/* unicast */
	EXPECT_FIELD(a.sibt_group[0] = 240, -EINVAL);		/* class E */
	EXPECT_FIELD(a.sibt_group[0] = 223, -EINVAL);
	EXPECT_FIELD(memset(a.sibt_group, 0, 4), -EINVAL);
	/* 224.0.0.0/24: all-hosts, IGMP, routers */
	EXPECT_FIELD((a.sibt_group[0] = 224, a.sibt_group[1] = 0,
		      a.sibt_group[2] = 0, a.sibt_group[3] = 1), -EINVAL);
	/* any ifindex and any port > 0 are the kernel's to resolve later */
	EXPECT_FIELD(a.sibt_ifindex = 0, 0);
	EXPECT_FIELD(a.sibt_port = 0xffff, 0);
#undef EXPECT_FIELD
}

static struct sockaddr_ibtick by_id(u32 id)
{
	struct sockaddr_ibtick a = {
		.sibt_family = FAM,
		.sibt_flags = IBTICK_ADDR_FEED_ID,
	};

	memcpy(a.sibt_group, &id, 4);
	return a;
}

/* A feed named by its id: the rest of the address must be empty. */
static void addr_feed_id(struct kunit *test)
{
	struct sockaddr_ibtick a = by_id(42), back;
	struct ibt_addr out, have;

	KUNIT_ASSERT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), 0);
	KUNIT_EXPECT_EQ(test, out.feed_id, 42U);
	KUNIT_EXPECT_EQ(test, out.port, 0);
	KUNIT_EXPECT_EQ(test, out.ifindex, 0U);
	ibt_addr_fill(&out, FAM, &back);
	KUNIT_EXPECT_EQ(test, memcmp(&a, &back, sizeof(a)), 0);
	have = out;
	KUNIT_EXPECT_TRUE(test, ibt_addr_same(&out, &have));
	have.feed_id = 43;
	KUNIT_EXPECT_FALSE(test, ibt_addr_same(&out, &have));

#define EXPECT_ID(stmt, err) do {					\
	a = by_id(42);							\
	stmt;								\
	KUNIT_EXPECT_EQ_MSG(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), \
			    err, "%s", #stmt);				\
} while (0)
	EXPECT_ID(memset(a.sibt_group, 0, 4), -EINVAL);		/* id 0 */
	EXPECT_ID(a.sibt_group_family = AF_INET, -EINVAL);
	EXPECT_ID(a.sibt_port = 1, -EINVAL);
	EXPECT_ID(a.sibt_ifindex = 1, -EINVAL);
	EXPECT_ID(a.sibt_reserved = 1, -EINVAL);
	EXPECT_ID(a.sibt_group[4] = 1, -EINVAL);
	EXPECT_ID(a.sibt_flags |= 2, -EINVAL);
	EXPECT_ID(a.sibt_family = 2, -EAFNOSUPPORT);
#undef EXPECT_ID

	/* by group: the same address, an unset ifindex matching any */
	a = good();
	KUNIT_ASSERT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &have), 0);
	a.sibt_ifindex = 0;
	KUNIT_ASSERT_EQ(test, ibt_addr_parse(&a, sizeof(a), FAM, &out), 0);
	KUNIT_EXPECT_TRUE(test, ibt_addr_same(&out, &have));
	/* but a named ifindex must be the one */
	KUNIT_EXPECT_FALSE(test, ibt_addr_same(&have, &out));
	ibt_addr_fill(&have, FAM, &back);
	a = good();
	KUNIT_EXPECT_EQ(test, memcmp(&a, &back, sizeof(a)), 0);
}

static struct kunit_case addr_cases[] = {
	KUNIT_CASE(addr_good),
	KUNIT_CASE(addr_unicast),
	KUNIT_CASE(addr_bad),
	KUNIT_CASE(addr_fields),
	KUNIT_CASE(addr_feed_id),
	{}
};

static struct kunit_suite addr_suite = {
	.name = "ibtick_addr",
	.test_cases = addr_cases,
};

kunit_test_suite(addr_suite);
