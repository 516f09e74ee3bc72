// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick doctor's decisions (user/ibtick/doctor_checks.c): each check fed
 * made-up observations, its status, what it says it saw and its fix.
 */
#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#include "../../user/ibtick/doctor_checks.h"
#include "unit.h"

#define CHECK_HAS(hay, needle) do {					\
	const char *_h = (hay), *_n = (needle);				\
	if (!strstr(_h, _n)) {						\
		fprintf(stderr, "  %s:%d: \"%s\" lacks \"%s\"\n",	\
			__FILE__, __LINE__, _h, _n);			\
		unit_failed_checks++;					\
	}								\
} while (0)

#define CHECK_LACKS(hay, needle) do {					\
	const char *_h = (hay), *_n = (needle);				\
	if (strstr(_h, _n)) {						\
		fprintf(stderr, "  %s:%d: \"%s\" has \"%s\"\n",		\
			__FILE__, __LINE__, _h, _n);			\
		unit_failed_checks++;					\
	}								\
} while (0)

static struct doc_port ib_port(void)
{
	struct doc_port p = {
		.dev		= "mlx5_0",
		.port		= 1,
		.state		= IBTICK_PORT_ACTIVE,
		.phys_state	= IBTICK_PHYS_LINK_UP,
		.link_layer	= IBTICK_LINK_LAYER_INFINIBAND,
		.lid_known	= true,
		.lid		= 0x12,
		.sm_lid		= 0x1,
		.active_mtu	= 4096,
		.max_mtu	= 4096,
		.nd = {
			.name		= "ib0",
			.present	= true,
			.operstate	= "up",
			.flags_known	= true,
			.flags		= 0x1003,
			.mtu		= 4092,
			.ifindex	= 5,
			.mode		= "datagram",
			.n_ipv4		= 1,
			.ipv4		= "10.0.0.1/24",
		},
	};

	return p;
}

static struct doc_port roce_port(void)
{
	struct doc_port p = {
		.dev		= "rxe0",
		.port		= 1,
		.state		= IBTICK_PORT_ACTIVE,
		.phys_state	= IBTICK_PHYS_LINK_UP,
		.link_layer	= IBTICK_LINK_LAYER_ETHERNET,
		.active_mtu	= 1024,
		.max_mtu	= 4096,
		.nd = {
			.name		= "eth0",
			.present	= true,
			.operstate	= "up",
			.flags_known	= true,
			.flags		= 0x1003,
			.mtu		= 1500,
			.ifindex	= 2,
		},
	};

	return p;
}

static void doctor_status_tally(void)
{
	struct doc_result r = { .status = DOC_PASS };
	struct doc_tally t = { 0 };
	char buf[16] = "ab";

	CHECK_STR(doc_status_name(DOC_PASS), "PASS");
	CHECK_STR(doc_status_name(DOC_WARN), "WARN");
	CHECK_STR(doc_status_name(DOC_FAIL), "FAIL");
	doc_tally_add(&t, &r);
	r.status = DOC_WARN;
	doc_tally_add(&t, &r);
	doc_tally_add(&t, &r);
	CHECK(t.pass == 1 && t.warn == 2 && t.fail == 0);
	CHECK(doc_tally_exit(&t) == 0);
	r.status = DOC_FAIL;
	doc_tally_add(&t, &r);
	CHECK(t.fail == 1);
	CHECK(doc_tally_exit(&t) == 1);

	doc_appendf(buf, sizeof(buf), "%s-%d", "cd", 42);
	CHECK_STR(buf, "abcd-42");
	doc_appendf(buf, sizeof(buf), "%s", "0123456789");
	CHECK_STR(buf, "abcd-4201234567");	/* cut to 15 + NUL */
	doc_appendf(buf, sizeof(buf), "more");
	CHECK_STR(buf, "abcd-4201234567");
}

static void doctor_cpuset(void)
{
	struct doc_cpuset s, t, u;
	char buf[64];

	CHECK(doc_cpuset_parse("2,4-7", &s) == 0);
	CHECK(doc_cpuset_count(&s) == 5);
	CHECK(!doc_cpuset_has(&s, 3) && doc_cpuset_has(&s, 2) &&
	      doc_cpuset_has(&s, 7) && !doc_cpuset_has(&s, 8));
	CHECK_STR(doc_cpuset_format(&s, buf, sizeof(buf)), "2,4-7");

	CHECK(doc_cpuset_parse(" 0-3,8-11\n", &t) == 0);
	CHECK_STR(doc_cpuset_format(&t, buf, sizeof(buf)), "0-3,8-11");
	CHECK(doc_cpuset_parse("", &u) == 0 && doc_cpuset_count(&u) == 0);
	CHECK_STR(doc_cpuset_format(&u, buf, sizeof(buf)), "none");
	CHECK(doc_cpuset_parse("4095", &u) == 0 && doc_cpuset_has(&u, 4095));
	CHECK_STR(doc_cpuset_format(&u, buf, sizeof(buf)), "4095");

	CHECK(doc_cpuset_parse("7-4", &u) == -1);
	CHECK(doc_cpuset_parse("1,,2", &u) == -1);
	CHECK(doc_cpuset_parse("a", &u) == -1);
	CHECK(doc_cpuset_parse("1-", &u) == -1);
	CHECK(doc_cpuset_parse("4096", &u) == -1);
	CHECK(doc_cpuset_parse("-1", &u) == -1);
	CHECK(doc_cpuset_parse("3 4", &u) == -1);

	doc_cpuset_or(&u, &s, &t);
	CHECK_STR(doc_cpuset_format(&u, buf, sizeof(buf)), "0-11");
	doc_cpuset_andnot(&u, &t, &s);
	CHECK_STR(doc_cpuset_format(&u, buf, sizeof(buf)), "0-1,3,8-11");
}

static void doctor_module(void)
{
	struct doc_module m = { .cli_version = "0.4" };
	struct doc_result r;

	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_STR(r.check, "module");
	CHECK_STR(r.fix, "modprobe ibtick");
	CHECK_HAS(r.seen, "not loaded");

	/* not loaded: the fix follows from what is installed and the log */
	snprintf(m.kernel, sizeof(m.kernel), "6.1.0-9-amd64");
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "no ibtick.ko for 6.1.0-9-amd64");
	CHECK_HAS(r.fix, "dkms install ibtick/0.4 -k 6.1.0-9-amd64");
	m.ko_found = true;
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_STR(r.fix, "modprobe ibtick");
	snprintf(m.load_error, sizeof(m.load_error),
		 "ibtick: disagrees about version of symbol ib_register_client");
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "the kernel log says: ibtick: disagrees about version of symbol ib_register_client");
	CHECK_HAS(r.fix, "against the kernel's own");
	CHECK_HAS(r.fix, "dkms remove ibtick/0.4 --all && dkms install ibtick/0.4 -k 6.1.0-9-amd64");
	m.ofa_kernel = true;
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "MLNX_OFED's ib_core is installed for 6.1.0-9-amd64");
	CHECK_HAS(r.fix, "/usr/src/ofa_kernel/6.1.0-9-amd64");
	snprintf(m.load_error, sizeof(m.load_error), "ibtick: Unknown symbol rdma_join_multicast (err -2)");
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "modprobe rdma_cm");
	m.load_error[0] = '\0';
	m.kernel[0] = '\0';
	m.ko_found = false;
	m.ofa_kernel = false;

	m.loaded = true;
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "dmesg");

	m.family = true;
	m.family_id = 31;
	snprintf(m.version, sizeof(m.version), "0.4");
	CHECK(doc_check_module(&m, &r) == DOC_PASS);
	CHECK_STR(r.seen, "family \"ibtick\" id 31, module 0.4");
	CHECK_STR(r.fix, "");

	snprintf(m.version, sizeof(m.version), "0.3");
	CHECK(doc_check_module(&m, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "module 0.3, this ibtick is 0.4");

	m.family = false;
	snprintf(m.error, sizeof(m.error), "generic netlink: Permission denied");
	CHECK(doc_check_module(&m, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "Permission denied");
}

static void doctor_kernel_view(void)
{
	struct doc_kernel_view v = {
		.dev_dump_ok = true, .feed_dump_ok = true,
		.n_devs = 1, .n_feeds = 2,
	};
	struct doc_result r;

	CHECK(doc_check_kernel_view(&v, &r) == DOC_PASS);
	CHECK_STR(r.seen, "ibtick sees 1 RDMA device and 2 feeds");
	snprintf(v.missing, sizeof(v.missing), "mlx5_1");
	CHECK(doc_check_kernel_view(&v, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "not seen by ibtick: mlx5_1");
	v.feed_dump_ok = false;
	CHECK(doc_check_kernel_view(&v, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "the feed dump failed");
}

static void doctor_port_state(void)
{
	struct doc_port p = ib_port();
	struct doc_result r;

	CHECK(doc_check_port_state(&p, &r) == DOC_PASS);
	CHECK_STR(r.check, "port-state");
	CHECK_STR(r.subject, "mlx5_0/1");
	CHECK_STR(r.seen, "state ACTIVE, physical state LINK_UP");

	/* IB link up, no SM: INIT */
	p.state = IBTICK_PORT_INIT;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "opensm");

	/* cable pulled */
	p.state = IBTICK_PORT_DOWN;
	p.phys_state = IBTICK_PHYS_POLLING;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "cable");
	CHECK_LACKS(r.fix, "opensm");

	p.phys_state = IBTICK_PHYS_DISABLED;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "ibportstate -C mlx5_0 -P 1 enable");

	/* RoCE: the netdev is down */
	p = roce_port();
	p.state = IBTICK_PORT_DOWN;
	p.phys_state = IBTICK_PHYS_DISABLED;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "ip link set eth0 up");

	/* ACTIVE without LinkUp is not good enough */
	p = ib_port();
	p.phys_state = IBTICK_PHYS_ERROR_RECOVERY;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	p.phys_state = -1;
	CHECK(doc_check_port_state(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "physical state unreadable");
}

static void doctor_link_sm_lid(void)
{
	struct doc_port p = ib_port();
	struct doc_result r;

	CHECK(doc_check_link_layer(&p, &r) == DOC_PASS);
	CHECK_STR(r.seen, "InfiniBand");
	p.link_layer = IBTICK_LINK_LAYER_ETHERNET;
	CHECK(doc_check_link_layer(&p, &r) == DOC_PASS);
	CHECK_STR(r.seen, "Ethernet (RoCE)");
	p.link_layer = IBTICK_LINK_LAYER_UNSPEC;
	CHECK(doc_check_link_layer(&p, &r) == DOC_WARN);

	p = ib_port();
	CHECK(doc_check_sm(&p, &r) == DOC_PASS);
	CHECK_STR(r.seen, "SM LID 0x1");
	p.sm_lid = 0;
	CHECK(doc_check_sm(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "no subnet manager: start opensm");
	p.lid_known = false;
	CHECK(doc_check_sm(&p, &r) == DOC_WARN);

	p = ib_port();
	CHECK(doc_check_lid(&p, &r) == DOC_PASS);
	CHECK_STR(r.seen, "LID 0x12");
	p.lid = 0;
	CHECK(doc_check_lid(&p, &r) == DOC_FAIL);
	p.lid = 0xbfff;
	CHECK(doc_check_lid(&p, &r) == DOC_PASS);
	p.lid = 0xc000;		/* multicast range */
	CHECK(doc_check_lid(&p, &r) == DOC_FAIL);
	p.lid = 0xffff;
	CHECK(doc_check_lid(&p, &r) == DOC_FAIL);
}

static void doctor_roce_netdev(void)
{
	struct doc_port p = roce_port();
	struct doc_result r;

	CHECK(doc_check_roce_netdev(&p, &r) == DOC_PASS);
	CHECK_STR(r.check, "netdev");
	CHECK_STR(r.seen, "eth0: operstate up, admin up, mtu 1500");

	/* soft-RoCE may read ACTIVE with its netdev down: still a FAIL */
	p.nd.flags = 0x1002;
	snprintf(p.nd.operstate, sizeof(p.nd.operstate), "down");
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_FAIL);
	CHECK_STR(r.fix, "ip link set eth0 up");

	/* administratively up, no carrier */
	p.nd.flags = 0x1003;
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "no carrier");

	/* virtual devices report "unknown" while up */
	snprintf(p.nd.operstate, sizeof(p.nd.operstate), "unknown");
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_PASS);
	p.nd.flags = 0x1002;
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_FAIL);

	p.nd.present = false;
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "eth0 does not exist");
	p.nd.name[0] = '\0';
	CHECK(doc_check_roce_netdev(&p, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "rdma link add");
}

static void doctor_mc_route(void)
{
	struct doc_port p = roce_port();
	struct doc_feed feeds[3];
	struct doc_mc_route rt;
	struct doc_result r;
	int i;

	/* /proc/net/route: each __be32 as the integer it is in memory */
	CHECK(!doc_route_line_mc("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n",
				 "eth0", &rt));
	CHECK(doc_route_line_mc("eth0\t000000E0\t00000000\t0001\t0\t0\t100\t000000F0\t0\t0\t0\n",
				"eth0", &rt) == 1);
	CHECK(rt.net == 0xe0000000U && rt.prefix == 4);
	CHECK(doc_route_line_mc("eth0\t000000EF\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n",
				"eth0", &rt) == 1);
	CHECK(rt.net == 0xef000000U && rt.prefix == 8);
	CHECK(doc_route_line_mc("eth0\t010109EF\t00000000\t0005\t0\t0\t0\tFFFFFFFF\t0\t0\t0\n",
				"eth0", &rt) == 1);
	CHECK(rt.net == 0xef090101U && rt.prefix == 32);
	/* another interface; a unicast subnet; the default route (/0) */
	CHECK(!doc_route_line_mc("eth1\t000000E0\t00000000\t0001\t0\t0\t0\t000000F0\t0\t0\t0\n",
				 "eth0", &rt));
	CHECK(!doc_route_line_mc("eth0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0\n",
				 "eth0", &rt));
	CHECK(!doc_route_line_mc("eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n",
				 "eth0", &rt));
	/* a name longer than an interface's, a short line */
	CHECK(!doc_route_line_mc("eth0eth0eth0eth0eth0\t000000E0\t00000000\t0001\t0\t0\t0\t000000F0\n",
				 "eth0", &rt));
	CHECK(!doc_route_line_mc("eth0\t000000E0\n", "eth0", &rt));

	/* a route, no feeds */
	p.nd.n_mc_route = 1;
	p.nd.mc_route[0] = (struct doc_mc_route){ 0xe0000000U, 4 };
	CHECK(doc_check_mc_route(&p, NULL, 0, &r) == DOC_PASS);
	CHECK_STR(r.seen, "eth0: 224.0.0.0/4");
	CHECK_STR(r.fix, "");
	/* two feeds on the port, one on another port: 224/4 covers both */
	memset(feeds, 0, sizeof(feeds));
	for (i = 0; i < 3; i++) {
		snprintf(feeds[i].name, sizeof(feeds[i].name), "f%d", i);
		snprintf(feeds[i].dev, sizeof(feeds[i].dev), "%s", p.dev);
		feeds[i].dev_port = p.port;
	}
	feeds[0].group = 0xef090001U;		/* 239.9.0.1 */
	feeds[1].group = 0xe8010203U;		/* 232.1.2.3 */
	feeds[2].group = 0xef630001U;		/* 239.99.0.1, port 2 */
	feeds[2].dev_port = p.port + 1;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_PASS);
	CHECK_STR(r.seen, "eth0: 224.0.0.0/4; covers the groups of the port's 2 feeds");
	/* 239.9.0.0/16 alone: 232.1.2.3 is not covered, the other port's feed not looked at */
	p.nd.mc_route[0] = (struct doc_mc_route){ 0xef090000U, 16 };
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_WARN);
	CHECK_STR(r.seen, "eth0: 239.9.0.0/16; none covers feed f1's group 232.1.2.3: rxe builds a route for each packet to it and frees it through RCU");
	CHECK_HAS(r.fix, "ip route add 224.0.0.0/4 dev eth0");
	/* a second route covers it; an arbitrated feed (no group) is left out */
	p.nd.n_mc_route = 2;
	p.nd.mc_route[1] = (struct doc_mc_route){ 0xe8010203U, 32 };
	feeds[0].group = 0;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_PASS);
	CHECK_STR(r.seen, "eth0: 239.9.0.0/16 232.1.2.3/32; covers the group of the port's feed");
	/* both feeds uncovered: the first named, the count given */
	feeds[0].group = 0xef0a0001U;		/* 239.10.0.1 */
	feeds[1].group = 0xef0b0001U;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "none covers feed f0's group 239.10.0.1 (2 of the port's 2 feeds uncovered)");
	/* more routes than kept: the feeds are not compared */
	p.nd.n_mc_route = DOC_MC_ROUTES + 1;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "(17 routes); the feeds' groups not compared with so many");
	p.nd.n_mc_route = 0;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "eth0 has no multicast route: rxe0 is Soft-RoCE");
	CHECK_HAS(r.fix, "ip route add 224.0.0.0/4 dev eth0");
	p.nd.n_mc_route = -1;
	CHECK(doc_check_mc_route(&p, feeds, 3, &r) == DOC_WARN);
	CHECK_STR(r.fix, "ip route show dev eth0");
}

static void doctor_ipv4(void)
{
	struct doc_port p = ib_port();
	struct doc_result r;

	CHECK(doc_check_ipv4(&p, 2, &r) == DOC_PASS);
	CHECK_STR(r.seen, "ib0: 10.0.0.1/24");
	CHECK_STR(r.fix, "");
	p.nd.n_ipv4 = 3;
	CHECK(doc_check_ipv4(&p, 0, &r) == DOC_PASS);
	CHECK_STR(r.seen, "ib0: 10.0.0.1/24 and 2 more");
	/* none: a feed on the port cannot join; without one, a warning */
	p.nd.n_ipv4 = 0;
	CHECK(doc_check_ipv4(&p, 1, &r) == DOC_FAIL);
	CHECK_STR(r.seen, "ib0 has no IPv4 address, and 1 feed uses this port");
	CHECK_HAS(r.fix, "ip addr add ADDRESS/PREFIX dev ib0,");
	CHECK_HAS(r.fix, "rdma_cm");
	CHECK(doc_check_ipv4(&p, 2, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "2 feeds use this port");
	CHECK(doc_check_ipv4(&p, 0, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "a feed on this port would need one");
	CHECK_HAS(r.fix, "dev ib0");
	p.nd.n_ipv4 = -1;
	CHECK(doc_check_ipv4(&p, 1, &r) == DOC_WARN);
	CHECK_STR(r.fix, "ip -4 addr show dev ib0");
}

static void doctor_pcie(void)
{
	struct doc_dev dd = {
		.name = "mlx5_0", .busid = "0000:03:00.0",
		.pci_width = 16, .pci_max_width = 16,
		.pci_speed = "16.0 GT/s PCIe", .pci_max_speed = "16.0 GT/s PCIe",
	};
	struct doc_result r;

	CHECK(doc_check_pcie(&dd, &r) == DOC_PASS);
	CHECK_STR(r.seen, "0000:03:00.0: x16 at 16.0 GT/s PCIe, capable of x16 at 16.0 GT/s PCIe");
	CHECK_STR(r.fix, "");
	/* half the lanes: half the bandwidth */
	dd.pci_width = 8;
	CHECK(doc_check_pcie(&dd, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "x8 at 16.0 GT/s PCIe, capable of x16");
	CHECK_HAS(r.seen, "about 50% of the link's bandwidth");
	CHECK_HAS(r.fix, "x16 at 16.0 GT/s PCIe");
	CHECK_HAS(r.fix, "lspci -vv -s 0000:03:00.0");
	/* all lanes, one generation down */
	dd.pci_width = 16;
	snprintf(dd.pci_speed, sizeof(dd.pci_speed), "8.0 GT/s PCIe");
	CHECK(doc_check_pcie(&dd, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "about 50%");
	/* both */
	dd.pci_width = 8;
	CHECK(doc_check_pcie(&dd, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "about 25%");
	/* a speed sysfs could not name is not judged on its own */
	dd.pci_width = 16;
	snprintf(dd.pci_speed, sizeof(dd.pci_speed), "Unknown");
	CHECK(doc_check_pcie(&dd, &r) == DOC_PASS);
}

static void doctor_cpu_latency(void)
{
	struct doc_cpu c = {
		.cpu = 5, .roles = DOC_CPU_APP, .present = true, .online = true,
		.has_cpuidle = true, .isolated = true, .nohz_full = true,
	};
	struct doc_result r;

	CHECK(doc_check_cpu_latency(&c, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "no idle state deeper than 10 us; in isolcpus, nohz_full");
	CHECK_STR(r.fix, "");
	/* deep C-states enabled */
	c.deep_states = 2;
	c.deep_latency_us = 133;
	snprintf(c.deep_names, sizeof(c.deep_names), "C6, C8");
	CHECK(doc_check_cpu_latency(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "2 idle states deeper than 10 us enabled (C6, C8; up to 133 us to wake)");
	CHECK_HAS(r.fix, "cpupower -c 5 idle-set -D 10");
	CHECK(!strstr(r.fix, "isolcpus"));
	/* not isolated either: both fixes */
	c.isolated = false;
	CHECK(doc_check_cpu_latency(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "not in isolcpus, nohz_full");
	CHECK_HAS(r.fix, "idle-set -D 10");
	CHECK_HAS(r.fix, "; boot with isolcpus=5 nohz_full=5 rcu_nocbs=5");
	/* isolation alone */
	c.deep_states = 0;
	c.nohz_full = false;
	CHECK(doc_check_cpu_latency(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "not in isolcpus, not nohz_full");
	CHECK(!strncmp(r.fix, "boot with isolcpus=5", 20));
	/* no cpuidle at all (idle=poll, VMs) is not a problem by itself */
	c.has_cpuidle = false;
	c.isolated = c.nohz_full = true;
	CHECK(doc_check_cpu_latency(&c, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "no cpuidle states");
	/* offline: the governor check says it */
	c.online = false;
	CHECK(doc_check_cpu_latency(&c, &r) == DOC_PASS);
}

static void doctor_fw_consistency(void)
{
	struct doc_dev d[5] = {
		{ .name = "mlx5_0", .model = "MT4123", .fw_ver = "20.35.2000" },
		{ .name = "mlx5_1", .model = "MT4123", .fw_ver = "20.35.2000" },
		{ .name = "mlx4_0", .model = "MT4099", .fw_ver = "2.42.5000" },
		{ .name = "rxe0", .software = true },
		{ .name = "rxe1", .software = true },
	};
	struct doc_result r;

	CHECK(doc_check_fw_consistency(d, 5, &r) == DOC_PASS);
	CHECK_STR(r.seen, "MT4123: mlx5_0 20.35.2000 mlx5_1 20.35.2000");
	CHECK_STR(r.fix, "");
	snprintf(d[1].fw_ver, sizeof(d[1].fw_ver), "20.31.1014");
	CHECK(doc_check_fw_consistency(d, 5, &r) == DOC_WARN);
	CHECK_STR(r.seen, "MT4123: mlx5_0 20.35.2000 mlx5_1 20.31.1014");
	CHECK_HAS(r.fix, "mlxfwmanager");
	/* a third card of the model, and a second model that agrees */
	d[2] = (struct doc_dev){ .name = "mlx5_2", .model = "MT4123", .fw_ver = "20.35.2000" };
	d[3] = (struct doc_dev){ .name = "mlx4_0", .model = "MT4099", .fw_ver = "2.42.5000" };
	d[4] = (struct doc_dev){ .name = "mlx4_1", .model = "MT4099", .fw_ver = "2.42.5000" };
	CHECK(doc_check_fw_consistency(d, 5, &r) == DOC_WARN);
	CHECK_STR(r.seen, "MT4123: mlx5_0 20.35.2000 mlx5_1 20.31.1014 mlx5_2 20.35.2000; MT4099: mlx4_0 2.42.5000 mlx4_1 2.42.5000");
	/* one of each: nothing to compare */
	CHECK(doc_check_fw_consistency(d, 1, &r) == DOC_PASS);
	CHECK_STR(r.seen, "no two devices of the same model");
	CHECK(doc_check_fw_consistency(d + 2, 2, &r) == DOC_PASS);
	CHECK_STR(r.seen, "no two devices of the same model");
}

static void doctor_cpu_irqs(void)
{
	struct doc_cpu c = {
		.cpu = 4, .roles = DOC_CPU_POLL, .present = true, .online = true,
		.irqs_read = true,
	};
	struct doc_result r;

	CHECK(doc_check_cpu_irqs(&c, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "no other device's interrupt may run here");
	c.n_other_irqs = 2;
	snprintf(c.other_irqs, sizeof(c.other_irqs), "24 (nvme0q1), 31 (eth0-rx-1)");
	snprintf(c.other_irq_nums, sizeof(c.other_irq_nums), "24 31");
	CHECK(doc_check_cpu_irqs(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "2 interrupts of other devices may run here: 24 (nvme0q1), 31 (eth0-rx-1)");
	CHECK_HAS(r.fix, "/proc/irq/N/smp_affinity_list (N = 24 31, CPULIST without 4)");
	CHECK_HAS(r.fix, "IRQBALANCE_BANNED_CPULIST=4");
	CHECK_HAS(r.fix, "isolcpus=managed_irq,4");
	c.irqs_read = false;
	CHECK(doc_check_cpu_irqs(&c, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "not readable");
}

static void doctor_roce_qos(void)
{
	struct doc_port p = roce_port();
	struct doc_result r;

	p.nd.ecn_np = p.nd.ecn_rp = -1;
	CHECK(doc_check_roce_qos(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "eth0: PFC unknown (dcb not installed");
	CHECK_HAS(r.seen, "trust unknown, ECN not shown by the driver");
	p.nd.dcb_found = true;
	snprintf(p.nd.dcb_error, sizeof(p.nd.dcb_error), "not supported by this interface");
	CHECK(doc_check_roce_qos(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "PFC not available (dcb: not supported by this interface)");
	p.nd.pfc_known = true;
	snprintf(p.nd.pfc_on, sizeof(p.nd.pfc_on), "3");
	snprintf(p.nd.trust, sizeof(p.nd.trust), "dscp");
	p.nd.ecn_np = 1 << 3;
	p.nd.ecn_rp = (1 << 3) | (1 << 4);
	CHECK(doc_check_roce_qos(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "eth0: PFC on priorities 3, trust dscp, ECN notification point on priorities 3, reaction point on priorities 3,4");
	CHECK_STR(r.fix, "");
	p.nd.pfc_on[0] = '\0';
	p.nd.ecn_np = 0;
	CHECK(doc_check_roce_qos(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "PFC off, trust dscp, ECN notification point off");
}

static void doctor_ipoib(void)
{
	struct doc_port p = ib_port();
	struct doc_result r;

	CHECK(doc_check_ipoib(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "ib0: mode datagram, operstate up, admin up, mtu 4092;");
	CHECK_HAS(r.seen, "does not use IPoIB's data path");
	CHECK_STR(r.fix, "");
	/* either mode is information, not a problem for ibtick */
	snprintf(p.nd.mode, sizeof(p.nd.mode), "connected");
	p.nd.mtu = 65520;
	CHECK(doc_check_ipoib(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "mode connected");
	CHECK_HAS(r.seen, "mtu 65520");
	CHECK_HAS(r.seen, "connected mode helps TCP");
	CHECK_HAS(r.seen, "datagram mode is what UDP multicast over IPoIB uses");
	CHECK_STR(r.fix, "");
	p.nd.mode[0] = '\0';
	CHECK(doc_check_ipoib(&p, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "(mode unreadable)");
	p.nd.name[0] = '\0';
	CHECK(doc_check_ipoib(&p, &r) == DOC_WARN);
	CHECK_HAS(r.fix, "modprobe ib_ipoib");

	CHECK(doc_ipoib_addr_has_gid(
		"80:00:00:48:fe:80:00:00:00:00:00:00:50:54:00:ff:fe:12:34:56",
		"fe80:0000:0000:0000:5054:00ff:fe12:3456"));
	CHECK(!doc_ipoib_addr_has_gid(
		"80:00:00:48:fe:80:00:00:00:00:00:00:50:54:00:ff:fe:12:34:57",
		"fe80:0000:0000:0000:5054:00ff:fe12:3456"));
	/* an Ethernet MAC is too short */
	CHECK(!doc_ipoib_addr_has_gid("52:54:00:12:34:56",
				      "fe80:0000:0000:0000:5054:00ff:fe12:3456"));
	CHECK(!doc_ipoib_addr_has_gid("zz", "fe80::1"));

	CHECK(doc_sysfs_enum("4: ACTIVE") == 4);
	CHECK(doc_sysfs_enum("5: LinkUp\n") == 5);
	CHECK(doc_sysfs_enum("1: CA") == 1);
	CHECK(doc_sysfs_enum("ACTIVE") == -1);
	CHECK(doc_sysfs_enum("") == -1);
	CHECK(doc_sysfs_enum("4x: A") == -1);
}

static void doctor_port_mtu(void)
{
	struct doc_port p = ib_port();
	struct doc_result r;

	CHECK(doc_check_port_mtu(&p, &r) == DOC_PASS);
	CHECK_STR(r.seen, "active MTU 4096, max 4096");
	p = roce_port();	/* eth0 mtu 1500: RoCE MTU 1024 */
	CHECK(doc_check_port_mtu(&p, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "ticks over 992 payload bytes");
	CHECK_HAS(r.fix, "ip link set eth0 mtu 9000");
	p.active_mtu = 0;
	CHECK(doc_check_port_mtu(&p, &r) == DOC_WARN);
}

static void doctor_active_ports(void)
{
	struct doc_port ports[3] = { ib_port(), ib_port(), roce_port() };
	struct doc_result r;

	/* no device at all */
	CHECK(doc_check_active_ports(ports, 0, &r) == DOC_FAIL);
	CHECK_HAS(r.seen, "no device");
	CHECK_HAS(r.fix, "rdma link add rxe0");

	snprintf(ports[1].dev, sizeof(ports[1].dev), "mlx5_1");
	snprintf(ports[1].nd.name, sizeof(ports[1].nd.name), "ib1");
	ports[1].nd.ifindex = 6;
	ports[1].state = IBTICK_PORT_DOWN;
	ports[2].state = IBTICK_PORT_DOWN;
	CHECK(doc_check_active_ports(ports, 3, &r) == DOC_PASS);
	CHECK_STR(r.seen, "one active port: mlx5_0/1 (ib0); binds with sibt_ifindex 0 use it");

	ports[1].state = IBTICK_PORT_ACTIVE;
	CHECK(doc_check_active_ports(ports, 3, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "2 active ports: mlx5_0/1 (ib0), mlx5_1/1 (ib1)");
	CHECK_HAS(r.seen, "refused");
	CHECK_HAS(r.fix, "(ib0 5, ib1 6)");

	ports[0].state = IBTICK_PORT_INIT;
	ports[1].state = IBTICK_PORT_DOWN;
	CHECK(doc_check_active_ports(ports, 3, &r) == DOC_FAIL);
	CHECK_STR(r.seen, "none of 3 IB/RoCE ports is ACTIVE");

	/* a port with no IB/RoCE link layer does not count */
	ports[0].state = IBTICK_PORT_ACTIVE;
	ports[0].link_layer = IBTICK_LINK_LAYER_UNSPEC;
	CHECK(doc_check_active_ports(ports, 1, &r) == DOC_FAIL);
}

static void doctor_firmware(void)
{
	struct doc_fw f = {
		.dev = "mlx5_0", .fw_ver = "16.35.2000", .driver = "mlx5_core",
		.kernel = "6.1.0-18-amd64",
	};
	struct doc_result r;

	CHECK(doc_check_firmware(&f, &r) == DOC_PASS);
	CHECK_STR(r.seen, "fw 16.35.2000, driver mlx5_core, kernel 6.1.0-18-amd64, inbox RDMA stack (no ofed_info)");
	f.ofed_found = true;
	snprintf(f.ofed, sizeof(f.ofed), "MLNX_OFED_LINUX-5.8-1.0.1.1");
	CHECK(doc_check_firmware(&f, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "MLNX_OFED_LINUX-5.8-1.0.1.1 (ofed_info -s)");
	f.ofed_timeout = true;
	CHECK(doc_check_firmware(&f, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "ofed_info -s did not finish in time");
	CHECK_LACKS(r.seen, "MLNX_OFED");
	f.ofed_timeout = false;
	f.fw_ver[0] = f.driver[0] = '\0';
	CHECK(doc_check_firmware(&f, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "fw not reported, driver unknown");

	CHECK(doc_check_node_type("mlx5_0", IBTICK_NODE_CA, &r) == DOC_PASS);
	CHECK(doc_check_node_type("siw0", IBTICK_NODE_RNIC, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "iWARP");
}

static void doctor_counters(void)
{
	struct doc_counter c[3] = {
		{ .name = "symbol_error" },
		{ .name = "link_downed" },
		{ .name = "out_of_buffer" },
	};
	struct doc_counters k = {
		.dev = "mlx5_0", .port = 1, .interval = 1, .growth = true,
		.c = c, .n = 3,
	};
	struct doc_result r;

	CHECK(doc_check_counters(&k, &r) == DOC_PASS);
	CHECK_STR(r.subject, "mlx5_0/1");
	CHECK_STR(r.seen, "3 error counters all 0 over 1 s");

	/* old, not growing */
	c[1].before = c[1].after = 2;
	CHECK(doc_check_counters(&k, &r) == DOC_WARN);
	CHECK_STR(r.seen, "non-zero, not growing: link_downed 2");
	CHECK_HAS(r.fix, "perfquery -R");
	CHECK_HAS(r.fix, "cable");
	CHECK_LACKS(r.fix, "buffers");

	/* growing */
	c[0].before = 10;
	c[0].after = 13;
	c[2].before = c[2].after = 5;
	CHECK(doc_check_counters(&k, &r) == DOC_FAIL);
	CHECK_STR(r.seen, "growing over 1 s: symbol_error +3 (13); non-zero: link_downed 2, out_of_buffer 5");
	CHECK_HAS(r.fix, "cable");

	c[0].before = c[0].after = 0;
	c[1].before = c[1].after = 0;
	c[2].before = 100;
	c[2].after = 150;
	CHECK(doc_check_counters(&k, &r) == DOC_FAIL);
	CHECK_STR(r.seen, "growing over 1 s: out_of_buffer +50 (150)");
	CHECK_HAS(r.fix, "busy poll");
	CHECK_LACKS(r.fix, "cable");
	c[1].before = 1;
	c[1].after = 4;
	CHECK(doc_check_counters(&k, &r) == DOC_FAIL);
	CHECK_STR(r.seen, "growing over 1 s: link_downed +3 (4), out_of_buffer +50 (150)");
	CHECK_HAS(r.fix, "cable");
	CHECK_HAS(r.fix, "busy poll");
	c[1].before = c[1].after = 0;

	/* --fast: one read, no growth */
	k.growth = false;
	c[2].before = c[2].after = 150;
	CHECK(doc_check_counters(&k, &r) == DOC_WARN);
	CHECK_STR(r.seen, "non-zero: out_of_buffer 150");
	c[2].before = c[2].after = 0;
	CHECK(doc_check_counters(&k, &r) == DOC_PASS);
	CHECK_STR(r.seen, "3 error counters all 0 (read once)");

	k.n = 0;
	CHECK(doc_check_counters(&k, &r) == DOC_PASS);
	CHECK_STR(r.seen, "no port counters (software device)");

	CHECK(doc_hw_counter_is_error("out_of_buffer"));
	CHECK(doc_hw_counter_is_error("out_of_sequence"));
	CHECK(doc_hw_counter_is_error("local_ack_timeout_err"));
	CHECK(doc_hw_counter_is_error("duplicate_request"));
	CHECK(doc_hw_counter_is_error("retry_exceeded_err"));
	CHECK(!doc_hw_counter_is_error("rcvd_pkts"));
	CHECK(!doc_hw_counter_is_error("lifespan"));
	CHECK(!doc_hw_counter_is_error("np_cnp_sent"));
	CHECK(!doc_hw_counter_is_error("req_cqe_flush_error"));
	CHECK(!doc_hw_counter_is_error("rdma_sends"));
	CHECK_STR(doc_pma_error_counters[0], "symbol_error");
}

static void doctor_governor(void)
{
	struct doc_cpu c = {
		.cpu = 4, .roles = DOC_CPU_APP, .present = true, .online = true,
		.has_cpufreq = true, .governor = "performance",
	};
	struct doc_result r;

	CHECK(doc_check_governor(&c, &r) == DOC_PASS);
	CHECK_STR(r.subject, "cpu4");
	CHECK_STR(r.seen, "app CPU: governor performance");

	snprintf(c.governor, sizeof(c.governor), "powersave");
	c.roles |= DOC_CPU_POLL;
	snprintf(c.feeds, sizeof(c.feeds), "md1");
	CHECK(doc_check_governor(&c, &r) == DOC_WARN);
	CHECK_STR(r.seen, "app and busy-poll CPU (feed md1): governor powersave");
	CHECK_HAS(r.fix, "cpupower -c 4 frequency-set -g performance");

	c.has_cpufreq = false;
	CHECK(doc_check_governor(&c, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "no cpufreq control (fixed frequency or VM)");

	c.online = false;
	CHECK(doc_check_governor(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "offline");
	c.present = false;
	CHECK(doc_check_governor(&c, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "no such CPU");

	CHECK(doc_check_no_cpus(&r) == DOC_PASS);
	CHECK_HAS(r.seen, "nothing to check");
}

static void doctor_irq_parse(void)
{
	static const char mlx5[] =
		" 130:    0   5123    0    0  IR-PCI-MSIX-0000:03:00.0    1-edge      mlx5_comp0@pci:0000:03:00.0\n";
	static const char mlx4[] =
		"  45:   12    0  PCI-MSI 524289-edge      mlx4-3@0000:04:00.0\n";
	char name[64];
	unsigned int irq = 0;

	CHECK(doc_irq_parse_line(mlx5, &irq, name, sizeof(name)) == 0);
	CHECK(irq == 130);
	CHECK_STR(name, "mlx5_comp0@pci:0000:03:00.0");
	CHECK(doc_irq_parse_line("           CPU0       CPU1\n", &irq, name,
				 sizeof(name)) == -1);
	CHECK(doc_irq_parse_line("NMI:  0  0  Non-maskable interrupts\n", &irq,
				 name, sizeof(name)) == -1);
	CHECK(doc_irq_parse_line(mlx4, &irq, name, sizeof(name)) == 0);
	CHECK(irq == 45);
	CHECK_STR(name, "mlx4-3@0000:04:00.0");

	CHECK(doc_irq_line_names(mlx5, "mlx5_0", "0000:03:00.0"));
	CHECK(!doc_irq_line_names(mlx5, "mlx5_0", "0000:03:00.1"));
	CHECK(!doc_irq_line_names(mlx5, "mlx5_0", NULL));
	CHECK(doc_irq_line_names("  9:  1  hns_0-comp2\n", "hns_0", ""));
	CHECK(!doc_irq_line_names("  9:  1  mlx5_10-comp2\n", "mlx5_1", ""));

	CHECK(doc_irq_vector("mlx5_comp0@pci:0000:03:00.0") == 0);
	CHECK(doc_irq_vector("mlx5_comp17@pci:0000:03:00.0") == 17);
	CHECK(doc_irq_vector("mlx4-3@0000:04:00.0") == 3);
	CHECK(doc_irq_vector("mlx5_async0@pci:0000:03:00.0") == -1);
	CHECK(doc_irq_vector("mlx4-async@pci:0000:04:00.0") == -1);
	CHECK(doc_irq_vector("mlx5_cmd_eq@pci:0000:03:00.0") == -1);
}

static void doctor_irqs(void)
{
	struct doc_irq irqs[2] = {
		{ .irq = 130, .name = "mlx5_comp0@pci:0000:03:00.0", .vector = 0 },
		{ .irq = 131, .name = "mlx5_comp1@pci:0000:03:00.0", .vector = 1 },
	};
	struct doc_cpuset app, poll, online;
	int vectors[1] = { 1 };
	struct doc_irq_view v = {
		.dev = "mlx5_0", .n_named = 3, .irqs = irqs, .n = 2,
		.app = &app, .poll = &poll, .online = &online,
	};
	struct doc_result r;

	doc_cpuset_parse("0", &irqs[0].cpus);
	doc_cpuset_parse("1", &irqs[1].cpus);
	doc_cpuset_parse("0-7", &online);
	doc_cpuset_parse("", &poll);
	doc_cpuset_parse("", &app);

	/* nothing to compare against */
	CHECK(doc_check_irqs(&v, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "2 completion interrupts on CPUs 0-1");
	CHECK_HAS(r.seen, "--app-cpus");

	/* app CPUs clear of them */
	doc_cpuset_parse("2,4-7", &app);
	CHECK(doc_check_irqs(&v, &r) == DOC_PASS);
	CHECK_STR(r.seen, "2 completion interrupts on CPUs 0-1; none on app/busy-poll CPUs 2,4-7");

	/* vector 1 lands on app CPU 1, meant for no feed */
	doc_cpuset_parse("1-2", &app);
	CHECK(doc_check_irqs(&v, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "IRQ 131 (mlx5_comp1@pci:0000:03:00.0) may run on app CPU 1");
	CHECK_HAS(r.fix, "for i in 131; do echo 0,3-7 > /proc/irq/$i/smp_affinity_list; done");
	CHECK_HAS(r.fix, "IRQBALANCE_BANNED_CPULIST=1-2");

	/* ... unless an IRQ-mode feed of this device uses vector 1 */
	v.feed_vectors = vectors;
	v.n_feed_vectors = 1;
	CHECK(doc_check_irqs(&v, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "serves an IRQ-mode feed's vector 1");

	/* a busy-poll CPU never should take one */
	doc_cpuset_parse("1", &poll);
	CHECK(doc_check_irqs(&v, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "may run on busy-poll CPU 1");
	CHECK_LACKS(r.seen, "130");

	/* an IRQ allowed everywhere hits app and poll CPUs alike */
	doc_cpuset_parse("0-7", &irqs[0].cpus);
	doc_cpuset_parse("0", &online);
	CHECK(doc_check_irqs(&v, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "IRQ 130 (mlx5_comp0@pci:0000:03:00.0) may run on busy-poll CPU 1 and app CPU 2");
	CHECK_HAS(r.fix, "for i in 130 131; do echo 0 > ");

	/* software device: no interrupts at all */
	v.n = 0;
	v.n_named = 0;
	v.software = true;
	CHECK(doc_check_irqs(&v, &r) == DOC_PASS);
	CHECK_STR(r.seen, "no completion interrupts (software device such as rxe)");
	v.software = false;
	CHECK(doc_check_irqs(&v, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "no interrupt in /proc/interrupts names mlx5_0");
}

static struct doc_feed good_feed(void)
{
	struct doc_feed f = {
		.name = "md1", .admin = true, .live = true, .dev = "mlx5_0",
		.dev_port = 1, .netdev = "ib0", .slots = 4096,
		.slot_size = 256, .wire_max = 4096,
		.poll_mode = IBTICK_POLL_IRQ, .poll_cpu = -1, .comp_vector = 0,
		.rx_ticks = 1000,
	};

	return f;
}

static void doctor_feeds(void)
{
	struct doc_feed f = good_feed();
	struct doc_result r;

	CHECK(doc_check_no_feeds(&r) == DOC_PASS);

	CHECK(doc_check_feed_live(&f, &r) == DOC_PASS);
	CHECK_STR(r.seen, "live admin feed on mlx5_0/1 (ib0)");
	f.live = false;
	CHECK(doc_check_feed_live(&f, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "device gone; ibtick feed del md1 and add it again");
	f.admin = false;
	CHECK(doc_check_feed_live(&f, &r) == DOC_FAIL);
	CHECK_HAS(r.fix, "close the sockets");

	f = good_feed();
	CHECK(doc_check_feed_lapped(&f, &r) == DOC_PASS);
	f.readers_lost = 500;
	f.laps = 3;
	CHECK(doc_check_feed_lapped(&f, &r) == DOC_WARN);
	CHECK_STR(r.seen, "readers lost 500 ticks in 3 laps (1000 received, ring of 4096 slots)");
	CHECK_HAS(r.fix, "ring too small or readers too slow");
	CHECK_HAS(r.fix, "slots 8192");

	f = good_feed();
	CHECK(doc_check_feed_rq_empty(&f, &r) == DOC_PASS);
	f.rq_empty = 1;
	CHECK(doc_check_feed_rq_empty(&f, &r) == DOC_WARN);
	CHECK_STR(r.seen, "receive queue ran empty 1 time (poll irq)");
	CHECK_HAS(r.fix, "could not repost fast enough");
	CHECK_HAS(r.fix, "ibtick feed set md1 poll busy cpu N");
	f.poll_mode = IBTICK_POLL_BUSY;
	f.poll_cpu = 3;
	CHECK(doc_check_feed_rq_empty(&f, &r) == DOC_WARN);
	CHECK_HAS(r.fix, "CPU 3");

	f = good_feed();
	CHECK(doc_check_feed_gaps(&f, &r) == DOC_PASS);
	f.gaps = 2;
	f.gap_ticks = 7;
	CHECK(doc_check_feed_gaps(&f, &r) == DOC_WARN);
	CHECK_STR(r.seen, "2 sequence gaps, 7 ticks missing");
	CHECK_HAS(r.fix, "lost on the fabric");
}

static void doctor_feed_mtu(void)
{
	struct doc_feed f = good_feed();
	struct doc_result r;
	char want[64];

	/* 256 B slots under a 4096 B MTU: fine until a tick is cut */
	CHECK(doc_check_feed_mtu(&f, &r) == DOC_PASS);
	snprintf(want, sizeof(want), "slot 256 B holds %zu B of payload",
		 256 - sizeof(struct ibtick_slot));
	CHECK_HAS(r.seen, want);
	snprintf(want, sizeof(want), "the wire carries %zu B",
		 4096 - sizeof(struct ibtick_wire_hdr));
	CHECK_HAS(r.seen, want);
	CHECK_HAS(r.seen, "no tick truncated");
	f.truncated = 4;
	CHECK(doc_check_feed_mtu(&f, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "4 ticks truncated");
	CHECK_HAS(r.fix, "slot-size 8192");

	/* 8192 B slots under a 1024 B RoCE MTU: the slot outgrows the wire */
	f = good_feed();
	f.slot_size = 8192;
	f.wire_max = 1024;
	CHECK(doc_check_feed_mtu(&f, &r) == DOC_WARN);
	CHECK_HAS(r.seen, "a slot can hold more than the wire carries");
	CHECK_HAS(r.seen, "ticks over 992 B are refused");
	CHECK_HAS(r.fix, "slot-size 2048");
	/* 2048 is the smallest power of two holding 992 B and the descriptor */
	f.slot_size = 2048;
	CHECK(doc_check_feed_mtu(&f, &r) == DOC_PASS);
	CHECK_HAS(r.seen, "the smallest slot that holds the largest tick");

	f.wire_max = 0;
	CHECK(doc_check_feed_mtu(&f, &r) == DOC_WARN);

	CHECK(doc_slot_size_for(0) == 64);
	CHECK(doc_slot_size_for(16) == 64);
	CHECK(doc_slot_size_for(17) == 128);
	CHECK(doc_slot_size_for(4064) == 8192);
	CHECK(doc_slot_size_for(100000) == 8192);
	CHECK(sizeof(struct ibtick_slot) == 48);
	CHECK(sizeof(struct ibtick_wire_hdr) == 32);
}

/* doc_run(): which checks apply to what, in the printed order. */
static void collect(void *ctx, const struct doc_result *r)
{
	char *seq = ctx;

	doc_appendf(seq, 2048, "%s%s %s/%s", seq[0] ? ", " : "", r->check,
		    r->subject, doc_status_name(r->status));
}

static void doctor_run(void)
{
	struct doc_port ports[4] = { ib_port(), ib_port(), roce_port() };
	struct doc_counters ctrs[4] = { { .dev = "x" } };
	struct doc_dev devs[3] = {
		{ .name = "iw0", .node_type = IBTICK_NODE_RNIC,
		  .first_port = 3, .n_ports = 1 },
		{ .name = "mlx5_0", .node_type = IBTICK_NODE_CA,
		  .first_port = 0, .n_ports = 2,
		  .pci_width = 8, .pci_max_width = 16 },
		{ .name = "rxe0", .node_type = IBTICK_NODE_CA, .software = true,
		  .first_port = 2, .n_ports = 1 },
	};
	char kdevs[1][DOC_NAME_LEN] = { "mlx5_0" };
	struct doc_feed feeds[2] = {
		{ .name = "a", .live = true, .dev = "mlx5_0", .slot_size = 128,
		  .wire_max = 4096, .poll_mode = IBTICK_POLL_BUSY,
		  .poll_cpu = 3, .comp_vector = -1 },
		{ .name = "b", .live = false, .dev = "rxe0", .poll_mode = 0,
		  .poll_cpu = -1, .comp_vector = -1 },
	};
	struct doc_cpu cpus[1] = {
		{ .cpu = 3, .present = true, .online = true,
		  .isolated = true, .nohz_full = true },
	};
	struct doc_host h = {
		.mod = { .loaded = true, .family = true, .family_id = 30,
			 .version = "1", .cli_version = "1" },
		.dev_dump_ok = true, .feed_dump_ok = true,
		.kdevs = kdevs, .n_kdevs = 1,
		.feeds = feeds, .n_feeds = 2,
		.devs = devs, .n_devs = 3,
		.ports = ports, .n_ports = 4,
		.counters = ctrs,
		.cpus = cpus, .n_cpus = 1,
	};
	static char seq[2048];
	size_t i;

	ports[1].port = 2;
	ports[1].phys_state = IBTICK_PHYS_DISABLED;
	ports[1].state = IBTICK_PORT_DOWN;
	/* no address: WARN on mlx5_0/2 (no feed), FAIL on rxe0/1 (feed b) */
	ports[1].nd.n_ipv4 = 0;
	feeds[0].dev_port = 1;
	feeds[1].dev_port = 1;
	snprintf(ports[3].dev, sizeof(ports[3].dev), "iw0");
	ports[3].link_layer = IBTICK_LINK_LAYER_ETHERNET;
	ports[3].port = 1;
	for (i = 0; i < 4; i++) {
		memcpy(ctrs[i].dev, ports[i].dev, sizeof(ctrs[i].dev));
		ctrs[i].port = ports[i].port;
	}
	seq[0] = '\0';
	doc_run(&h, collect, seq);
	CHECK_STR(seq,
		  "module ibtick/PASS, kernel-view ibtick/WARN, "
		  "node-type iw0/WARN, "
		  "port-state mlx5_0/1/PASS, link-layer mlx5_0/1/PASS, "
		  "subnet-manager mlx5_0/1/PASS, lid mlx5_0/1/PASS, "
		  "ipoib mlx5_0/1/PASS, ipv4 mlx5_0/1/PASS, port-mtu mlx5_0/1/PASS, "
		  "port-state mlx5_0/2/FAIL, link-layer mlx5_0/2/PASS, "
		  "ipoib mlx5_0/2/PASS, ipv4 mlx5_0/2/WARN, "
		  "port-state rxe0/1/PASS, link-layer rxe0/1/PASS, "
		  "netdev rxe0/1/PASS, roce-qos rxe0/1/PASS, ipv4 rxe0/1/FAIL, mc-route rxe0/1/WARN, port-mtu rxe0/1/WARN, "
		  "active-ports host/WARN, "
		  "firmware iw0/PASS, firmware mlx5_0/PASS, firmware rxe0/PASS, "
		  "firmware-match host/PASS, pcie mlx5_0/WARN, "
		  "irq-affinity mlx5_0/WARN, irq-affinity rxe0/PASS, "
		  "cpu-governor cpu3/PASS, cpu-latency cpu3/PASS, cpu-irqs cpu3/PASS, "
		  "feed-live a/PASS, feed-mtu a/PASS, feed-lapped a/PASS, "
		  "feed-rq-empty a/PASS, feed-gaps a/PASS, feed-live b/FAIL, "
		  "port-counters mlx5_0/1/PASS, port-counters mlx5_0/2/PASS, "
		  "port-counters rxe0/1/PASS, port-counters iw0/1/PASS");
}

const struct unit_case doctor_cases[] = {
	{ "doctor: status names, tally, append", doctor_status_tally },
	{ "doctor: cpu lists", doctor_cpuset },
	{ "doctor: module and family", doctor_module },
	{ "doctor: kernel view", doctor_kernel_view },
	{ "doctor: port state and its fixes", doctor_port_state },
	{ "doctor: link layer, SM LID, LID", doctor_link_sm_lid },
	{ "doctor: RoCE netdev up", doctor_roce_netdev },
	{ "doctor: IPoIB mode, GID match, sysfs enums", doctor_ipoib },
	{ "doctor: IPv4 address on the port's netdev", doctor_ipv4 },
	{ "doctor: a Soft-RoCE netdev's multicast route", doctor_mc_route },
	{ "doctor: PCIe link width and speed against capability", doctor_pcie },
	{ "doctor: one firmware per device model", doctor_fw_consistency },
	{ "doctor: other devices' interrupts on app CPUs", doctor_cpu_irqs },
	{ "doctor: RoCE PFC, trust and ECN as information", doctor_roce_qos },
	{ "doctor: deep C-states, isolcpus and nohz_full of the app CPUs", doctor_cpu_latency },
	{ "doctor: port active MTU", doctor_port_mtu },
	{ "doctor: active ports and sibt_ifindex 0", doctor_active_ports },
	{ "doctor: firmware and node type", doctor_firmware },
	{ "doctor: port error counters", doctor_counters },
	{ "doctor: cpufreq governor", doctor_governor },
	{ "doctor: /proc/interrupts parsing", doctor_irq_parse },
	{ "doctor: IRQ affinity against app/poll CPUs", doctor_irqs },
	{ "doctor: feed live, lapped, rq empty, gaps", doctor_feeds },
	{ "doctor: feed slot against the wire MTU", doctor_feed_mtu },
	{ "doctor: the run, its order and what applies", doctor_run },
	{ NULL }
};
