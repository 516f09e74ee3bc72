// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick doctor: the decisions (see doctor_checks.h).  Pure functions over
 * what doctor.c gathered; no I/O, so tests/unit/doctor_test.c covers them.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#include "doctor_checks.h"
#include "names.h"

#define DOC_IFF_UP	0x1	/* IFF_UP, without <net/if.h> */

const char *doc_status_name(enum doc_status s)
{
	switch (s) {
	case DOC_PASS:
		return "PASS";
	case DOC_WARN:
		return "WARN";
	case DOC_FAIL:
		return "FAIL";
	}
	return "FAIL";
}

void doc_tally_add(struct doc_tally *t, const struct doc_result *r)
{
	switch (r->status) {
	case DOC_PASS:
		t->pass++;
		break;
	case DOC_WARN:
		t->warn++;
		break;
	case DOC_FAIL:
		t->fail++;
		break;
	}
}

int doc_tally_exit(const struct doc_tally *t)
{
	return t->fail ? 1 : 0;
}

void doc_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Starts @r: PASS, nothing seen yet, the subject formatted. */
static void res_init(struct doc_result *r, const char *check,
		     const char *subj_fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void res_init(struct doc_result *r, const char *check,
		     const char *subj_fmt, ...)
{
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->status = DOC_PASS;
	r->check = check;
	va_start(ap, subj_fmt);
	vsnprintf(r->subject, sizeof(r->subject), subj_fmt, ap);
	va_end(ap);
}

#define SEEN(r, ...)	doc_appendf((r)->seen, sizeof((r)->seen), __VA_ARGS__)
#define FIX(r, ...)	doc_appendf((r)->fix, sizeof((r)->fix), __VA_ARGS__)

/* ---- CPU sets ----------------------------------------------------------- */

void doc_cpuset_zero(struct doc_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void doc_cpuset_set(struct doc_cpuset *s, unsigned int cpu)
{
	if (cpu < DOC_MAX_CPUS)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

bool doc_cpuset_has(const struct doc_cpuset *s, unsigned int cpu)
{
	return cpu < DOC_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned int doc_cpuset_count(const struct doc_cpuset *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < DOC_MAX_CPUS / 64; i++)
		n += (unsigned int)__builtin_popcountll(s->bits[i]);
	return n;
}

void doc_cpuset_or(struct doc_cpuset *dst, const struct doc_cpuset *a,
		   const struct doc_cpuset *b)
{
	unsigned int i;

	for (i = 0; i < DOC_MAX_CPUS / 64; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

void doc_cpuset_andnot(struct doc_cpuset *dst, const struct doc_cpuset *a,
		       const struct doc_cpuset *b)
{
	unsigned int i;

	for (i = 0; i < DOC_MAX_CPUS / 64; i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

static int parse_cpu(const char **p, unsigned int *cpu)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	v = strtoul(*p, &end, 10);
	if (v >= DOC_MAX_CPUS)
		return -1;
	*cpu = (unsigned int)v;
	*p = end;
	return 0;
}

int doc_cpuset_parse(const char *s, struct doc_cpuset *set)
{
	const char *p = s;
	unsigned int a, b, i;

	doc_cpuset_zero(set);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		if (parse_cpu(&p, &a))
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &b) || b < a)
				return -1;
		}
		for (i = a; i <= b; i++)
			doc_cpuset_set(set, i);
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -1 : 0;
}

char *doc_cpuset_format(const struct doc_cpuset *s, char *buf, size_t len)
{
	unsigned int i, j;
	bool first = true;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < DOC_MAX_CPUS; i++) {
		if (!doc_cpuset_has(s, i))
			continue;
		j = i;
		while (j + 1 < DOC_MAX_CPUS && doc_cpuset_has(s, j + 1))
			j++;
		if (j == i)
			doc_appendf(buf, len, "%s%u", first ? "" : ",", i);
		else
			doc_appendf(buf, len, "%s%u-%u", first ? "" : ",", i, j);
		first = false;
		i = j;
	}
	if (first)
		snprintf(buf, len, "none");
	return buf;
}

/* ---- the module --------------------------------------------------------- */

/* Why an unloaded module may not load, from what doctor.c found. */
static void fix_not_loaded(const struct doc_module *m, struct doc_result *r)
{
	const char *v = m->cli_version ? m->cli_version : "VERSION";
	const char *k = m->kernel;

	if (m->load_error[0])
		SEEN(r, "; the kernel log says: %s", m->load_error);
	if (strstr(m->load_error, "disagrees about version of symbol")) {
		if (m->ofa_kernel)
			FIX(r, "MLNX_OFED's ib_core is installed for %s, and the module was built against the kernel's own: dkms remove ibtick/%s --all && dkms install ibtick/%s -k %s (the build then uses /usr/src/ofa_kernel/%s), then modprobe ibtick",
			    k, v, v, k, k);
		else
			FIX(r, "the module was built against another ib_core than the one loaded (MLNX_OFED's, since removed?): dkms remove ibtick/%s --all && dkms install ibtick/%s -k %s builds it against the kernel's own, then modprobe ibtick",
			    v, v, k);
	} else if (strstr(m->load_error, "Unknown symbol")) {
		FIX(r, "the module needs symbols of ib_core/rdma_cm that are not there: modprobe rdma_cm; if that does not help, it was built for another kernel or ib_core: dkms install ibtick/%s -k %s --force, then modprobe ibtick",
		    v, k);
	} else if (k[0] && !m->ko_found) {
		FIX(r, "no ibtick.ko is installed for %s: apt-get install linux-headers-%s ibtick-dkms, or from the source: dkms install ibtick/%s -k %s (make install for the kernel in KDIR)",
		    k, k, v, k);
		SEEN(r, "; no ibtick.ko for %s", k);
	} else {
		FIX(r, "modprobe ibtick");
	}
}

enum doc_status doc_check_module(const struct doc_module *m,
				 struct doc_result *r)
{
	res_init(r, "module", "ibtick");
	if (!m->family) {
		r->status = DOC_FAIL;
		if (m->error[0]) {
			SEEN(r, "cannot ask the kernel: %s", m->error);
			FIX(r, "generic netlink is unavailable here (a container without netlink?); run doctor on the host");
		} else if (m->loaded) {
			SEEN(r, "/sys/module/ibtick exists but the generic netlink family \"ibtick\" is not registered");
			FIX(r, "the module did not finish loading: dmesg | grep ibtick; rmmod ibtick && modprobe ibtick");
		} else {
			SEEN(r, "module not loaded (no /sys/module/ibtick, no generic netlink family \"ibtick\")");
			fix_not_loaded(m, r);
		}
		return r->status;
	}
	SEEN(r, "family \"ibtick\" id %d", m->family_id);
	if (m->version[0])
		SEEN(r, ", module %s", m->version);
	if (m->cli_version && m->version[0] &&
	    strcmp(m->version, m->cli_version)) {
		r->status = DOC_WARN;
		SEEN(r, ", this ibtick is %s", m->cli_version);
		FIX(r, "install the CLI and the module from the same release (make install, or the dkms package), then rmmod ibtick && modprobe ibtick");
	}
	return r->status;
}

enum doc_status doc_check_kernel_view(const struct doc_kernel_view *v,
				      struct doc_result *r)
{
	res_init(r, "kernel-view", "ibtick");
	if (!v->dev_dump_ok || !v->feed_dump_ok) {
		r->status = DOC_FAIL;
		SEEN(r, "the %s dump failed (the kernel's message is on stderr)",
		     !v->dev_dump_ok && !v->feed_dump_ok ? "device and feed" :
		     !v->dev_dump_ok ? "device" : "feed");
		FIX(r, "a module older than this ibtick? install both from the same release and reload the module");
		return r->status;
	}
	SEEN(r, "ibtick sees %u RDMA device%s and %u feed%s", v->n_devs,
	     v->n_devs == 1 ? "" : "s", v->n_feeds, v->n_feeds == 1 ? "" : "s");
	if (v->missing[0]) {
		r->status = DOC_WARN;
		SEEN(r, "; not seen by ibtick: %s", v->missing);
		FIX(r, "the device appeared after ibtick skipped it, or has no IB/RoCE port: dmesg | grep ibtick; rmmod ibtick && modprobe ibtick");
	}
	return r->status;
}

/* ---- ports -------------------------------------------------------------- */

int doc_sysfs_enum(const char *s)
{
	char *end;
	long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	if (v > 255 || (*end && *end != ':' && !isspace((unsigned char)*end)))
		return -1;
	return (int)v;
}

static const char *state_str(int v)
{
	return v < 0 ? "unreadable" : port_state_name((unsigned int)v);
}

static const char *phys_str(int v)
{
	return v < 0 ? "unreadable" : port_phys_state_name((unsigned int)v);
}

static const char *nd_or(const struct doc_port *p, const char *dflt)
{
	return p->nd.name[0] ? p->nd.name : dflt;
}

enum doc_status doc_check_port_state(const struct doc_port *p,
				     struct doc_result *r)
{
	bool eth = p->link_layer == IBTICK_LINK_LAYER_ETHERNET;
	const char *nd = nd_or(p, "NETDEV");

	res_init(r, "port-state", "%s/%u", p->dev, p->port);
	SEEN(r, "state %s, physical state %s", state_str(p->state),
	     phys_str(p->phys_state));
	if (p->state == IBTICK_PORT_ACTIVE &&
	    p->phys_state == IBTICK_PHYS_LINK_UP)
		return r->status;

	r->status = DOC_FAIL;
	switch (p->phys_state) {
	case IBTICK_PHYS_DISABLED:
		if (eth)
			FIX(r, "the port is disabled: ip link set %s up", nd);
		else
			FIX(r, "the port is disabled: ibportstate -C %s -P %u enable (or on the switch side)",
			    p->dev, p->port);
		break;
	case IBTICK_PHYS_SLEEP:
	case IBTICK_PHYS_POLLING:
		if (eth)
			FIX(r, "no link: ip link set %s up, then check the cable and the switch port (ethtool %s)",
			    nd, nd);
		else
			FIX(r, "no link: check the cable, the transceiver and the switch port (ibstat, ibportstate -C %s -P %u)",
			    p->dev, p->port);
		break;
	case IBTICK_PHYS_TRAINING:
	case IBTICK_PHYS_ERROR_RECOVERY:
		FIX(r, "the link keeps retraining: reseat or replace the cable/transceiver and watch port-counters");
		break;
	case IBTICK_PHYS_LINK_UP:
		if (eth)
			FIX(r, "link up but the RDMA port is not active: ip link set %s up; soft-RoCE follows its netdev",
			    nd);
		else
			FIX(r, "link up but not configured by a subnet manager: start opensm (systemctl start opensm) on one host of the fabric or enable the switch's SM");
		break;
	default:
		if (eth)
			FIX(r, "check the cable, ip link set %s up", nd);
		else
			FIX(r, "check the cable and that a subnet manager runs (sminfo; systemctl start opensm)");
		break;
	}
	return r->status;
}

enum doc_status doc_check_link_layer(const struct doc_port *p,
				     struct doc_result *r)
{
	res_init(r, "link-layer", "%s/%u", p->dev, p->port);
	switch (p->link_layer) {
	case IBTICK_LINK_LAYER_INFINIBAND:
		SEEN(r, "InfiniBand");
		break;
	case IBTICK_LINK_LAYER_ETHERNET:
		SEEN(r, "Ethernet (RoCE)");
		break;
	default:
		r->status = DOC_WARN;
		SEEN(r, "link layer not reported");
		FIX(r, "read /sys/class/infiniband/%s/ports/%u/link_layer; ibtick needs an InfiniBand or RoCE port",
		    p->dev, p->port);
	}
	return r->status;
}

enum doc_status doc_check_sm(const struct doc_port *p, struct doc_result *r)
{
	res_init(r, "subnet-manager", "%s/%u", p->dev, p->port);
	if (!p->lid_known) {
		r->status = DOC_WARN;
		SEEN(r, "sm_lid unreadable");
		FIX(r, "check by hand: sminfo -C %s -P %u", p->dev, p->port);
		return r->status;
	}
	SEEN(r, "SM LID 0x%" PRIx32, p->sm_lid);
	if (!p->sm_lid) {
		r->status = DOC_FAIL;
		SEEN(r, " (no subnet manager has swept this port)");
		FIX(r, "no subnet manager: start opensm (systemctl start opensm) on one host of the fabric or enable the switch's SM; check with sminfo");
	}
	return r->status;
}

enum doc_status doc_check_lid(const struct doc_port *p, struct doc_result *r)
{
	res_init(r, "lid", "%s/%u", p->dev, p->port);
	if (!p->lid_known) {
		r->status = DOC_WARN;
		SEEN(r, "lid unreadable");
		FIX(r, "check by hand: ibstat %s %u", p->dev, p->port);
		return r->status;
	}
	SEEN(r, "LID 0x%" PRIx32, p->lid);
	if (!p->lid || p->lid >= 0xc000) {
		r->status = DOC_FAIL;
		SEEN(r, " is not a unicast LID");
		FIX(r, "the subnet manager has not assigned one: check that opensm runs and sees this port (sminfo, its log), then ibstat %s %u",
		    p->dev, p->port);
	}
	return r->status;
}

static void seen_netdev(struct doc_result *r, const struct doc_netdev *nd)
{
	SEEN(r, "%s:", nd->name);
	if (nd->mode[0])
		SEEN(r, " mode %s,", nd->mode);
	SEEN(r, " operstate %s", nd->operstate[0] ? nd->operstate : "unread");
	if (nd->flags_known)
		SEEN(r, ", admin %s", nd->flags & DOC_IFF_UP ? "up" : "down");
	if (nd->mtu)
		SEEN(r, ", mtu %u", nd->mtu);
}

enum doc_status doc_check_roce_netdev(const struct doc_port *p,
				      struct doc_result *r)
{
	const struct doc_netdev *nd = &p->nd;
	bool admin_up;

	res_init(r, "netdev", "%s/%u", p->dev, p->port);
	if (!nd->name[0]) {
		r->status = DOC_FAIL;
		SEEN(r, "no netdev behind GID 0 (gid_attrs/ndevs/0 is empty)");
		FIX(r, "RoCE needs its Ethernet netdev: load the NIC's Ethernet driver, or for soft-RoCE: rdma link add rxe0 type rxe netdev ETH");
		return r->status;
	}
	if (!nd->present) {
		r->status = DOC_FAIL;
		SEEN(r, "netdev %s does not exist (any more)", nd->name);
		FIX(r, "the Ethernet interface went away: recreate it, or delete the soft-RoCE device (rdma link delete %s) and add it on an existing one",
		    p->dev);
		return r->status;
	}
	seen_netdev(r, nd);
	admin_up = !nd->flags_known || (nd->flags & DOC_IFF_UP);
	if (!strcmp(nd->operstate, "up") ||
	    (!strcmp(nd->operstate, "unknown") && nd->flags_known && admin_up))
		return r->status;

	r->status = DOC_FAIL;
	if (!admin_up || !nd->flags_known)
		FIX(r, "ip link set %s up", nd->name);
	else
		FIX(r, "%s is up but has no carrier: check the cable and the switch port (ethtool %s)",
		    nd->name, nd->name);
	return r->status;
}

enum doc_status doc_check_ipoib(const struct doc_port *p, struct doc_result *r)
{
	const struct doc_netdev *nd = &p->nd;

	res_init(r, "ipoib", "%s/%u", p->dev, p->port);
	if (!nd->name[0]) {
		r->status = DOC_WARN;
		SEEN(r, "no IPoIB netdev carries this port's GID");
		FIX(r, "modprobe ib_ipoib: feeds and binds name a port by its IPoIB netdev; without one only sibt_ifindex 0 (a single active port) works");
		return r->status;
	}
	seen_netdev(r, nd);
	/*
	 * Information only: ibtick's ticks go through its own UD QP, never
	 * through IPoIB's data path, so the mode changes nothing for feeds.
	 * It matters to the host's other IPoIB traffic, which is why it is
	 * shown with what each mode is good for.
	 */
	if (!nd->mode[0])
		SEEN(r, " (mode unreadable)");
	SEEN(r, "; ibtick does not use IPoIB's data path, so the mode does not matter to feeds. For IPoIB traffic itself: connected mode helps TCP (large MTU, fewer packets), datagram mode is what UDP multicast over IPoIB uses");
	return r->status;
}

enum doc_status doc_check_ipv4(const struct doc_port *p, unsigned int feeds,
			       struct doc_result *r)
{
	const struct doc_netdev *nd = &p->nd;

	res_init(r, "ipv4", "%s/%u", p->dev, p->port);
	if (nd->n_ipv4 < 0) {
		r->status = DOC_WARN;
		SEEN(r, "%s: its addresses could not be read", nd->name);
		FIX(r, "ip -4 addr show dev %s", nd->name);
		return r->status;
	}
	if (nd->n_ipv4 > 0) {
		SEEN(r, "%s: %s", nd->name, nd->ipv4);
		if (nd->n_ipv4 > 1)
			SEEN(r, " and %d more", nd->n_ipv4 - 1);
		return r->status;
	}
	r->status = feeds ? DOC_FAIL : DOC_WARN;
	SEEN(r, "%s has no IPv4 address", nd->name);
	if (feeds)
		SEEN(r, ", and %u feed%s use%s this port", feeds,
		     feeds == 1 ? "" : "s", feeds == 1 ? "s" : "");
	else
		SEEN(r, "; a feed on this port would need one");
	FIX(r, "ip addr add ADDRESS/PREFIX dev %s, with an address of the fabric's IPv4 subnet, and the same in the distro's network configuration so that it stays: feeds join their multicast group through rdma_cm, which finds the port by this address",
	    nd->name);
	return r->status;
}

int doc_route_line_mc(const char *line, const char *ifname,
		      struct doc_mc_route *rt)
{
	char name[DOC_IFNAME_LEN + 1];
	unsigned int d, g, flags, ref, use, metric, m;
	struct in_addr a;
	uint32_t host, mask;
	int prefix;

	if (sscanf(line, "%16s %x %x %x %u %u %u %x", name, &d, &g, &flags,
		   &ref, &use, &metric, &m) != 8 || strcmp(name, ifname))
		return 0;
	/* the kernel prints each __be32 as the integer it is in memory */
	a.s_addr = d;
	host = ntohl(a.s_addr);
	a.s_addr = m;
	mask = ntohl(a.s_addr);
	prefix = __builtin_popcount(mask);
	/* a prefix of 4 or longer (contiguous) inside 224.0.0.0/4 */
	if (prefix < 4 || mask != 0xffffffffU << (32 - prefix) ||
	    (host & 0xf0000000U) != 0xe0000000U)
		return 0;
	rt->net = host & mask;
	rt->prefix = prefix;
	return 1;
}

static void seen_mc_route(struct doc_result *r, const struct doc_mc_route *rt)
{
	SEEN(r, "%u.%u.%u.%u/%d", rt->net >> 24, (rt->net >> 16) & 0xff,
	     (rt->net >> 8) & 0xff, rt->net & 0xff, rt->prefix);
}

/* A route of @nd covers @group (host order); routes past the kept ones unknown. */
static bool mc_route_covers(const struct doc_netdev *nd, uint32_t group)
{
	int i;

	for (i = 0; i < nd->n_mc_route && i < DOC_MC_ROUTES; i++)
		if ((group & (0xffffffffU << (32 - nd->mc_route[i].prefix))) ==
		    nd->mc_route[i].net)
			return true;
	return false;
}

enum doc_status doc_check_mc_route(const struct doc_port *p,
				   const struct doc_feed *feeds, size_t n_feeds,
				   struct doc_result *r)
{
	const struct doc_netdev *nd = &p->nd;
	const struct doc_feed *miss = NULL;
	unsigned int n_miss = 0, n_port = 0;
	size_t i;
	int k;

	res_init(r, "mc-route", "%s/%u", p->dev, p->port);
	if (nd->n_mc_route < 0) {
		r->status = DOC_WARN;
		SEEN(r, "%s: the routes could not be read", nd->name);
		FIX(r, "ip route show dev %s", nd->name);
		return r->status;
	}
	if (!nd->n_mc_route) {
		r->status = DOC_WARN;
		SEEN(r, "%s has no multicast route: %s is Soft-RoCE, which looks up the route of every packet it sends, and to a group without a route of its own the kernel builds one per packet and frees it through RCU, whose grace periods then preempt spinning readers",
		     nd->name, p->dev);
		FIX(r, "ip route add 224.0.0.0/4 dev %s (or the feeds' groups), and the same in the distro's network configuration so that it stays",
		    nd->name);
		return r->status;
	}
	SEEN(r, "%s:", nd->name);
	for (k = 0; k < nd->n_mc_route && k < 3; k++) {
		SEEN(r, " ");
		seen_mc_route(r, &nd->mc_route[k]);
	}
	if (nd->n_mc_route > 3)
		SEEN(r, " (%d routes)", nd->n_mc_route);
	if (nd->n_mc_route > DOC_MC_ROUTES) {
		SEEN(r, "; the feeds' groups not compared with so many");
		return r->status;
	}
	for (i = 0; i < n_feeds; i++) {
		const struct doc_feed *f = &feeds[i];

		if (!f->group || f->dev_port != p->port || strcmp(f->dev, p->dev))
			continue;
		n_port++;
		if (mc_route_covers(nd, f->group))
			continue;
		if (!n_miss++)
			miss = f;
	}
	if (!n_miss) {
		if (n_port == 1)
			SEEN(r, "; covers the group of the port's feed");
		else if (n_port)
			SEEN(r, "; covers the groups of the port's %u feeds", n_port);
		return r->status;
	}
	r->status = DOC_WARN;
	SEEN(r, "; none covers feed %s's group %u.%u.%u.%u", miss->name,
	     miss->group >> 24, (miss->group >> 16) & 0xff,
	     (miss->group >> 8) & 0xff, miss->group & 0xff);
	if (n_miss > 1)
		SEEN(r, " (%u of the port's %u feeds uncovered)", n_miss, n_port);
	SEEN(r, ": rxe builds a route for each packet to it and frees it through RCU");
	FIX(r, "ip route add 224.0.0.0/4 dev %s (or each feed's group), and the same in the distro's network configuration so that it stays",
	    nd->name);
	return r->status;
}

static void seen_prio_mask(struct doc_result *r, int mask)
{
	bool any = false;
	int i;

	for (i = 0; i < 8; i++)
		if (mask & (1 << i)) {
			SEEN(r, "%s%d", any ? "," : " on priorities ", i);
			any = true;
		}
	if (!any)
		SEEN(r, " off");
}

enum doc_status doc_check_roce_qos(const struct doc_port *p,
				   struct doc_result *r)
{
	const struct doc_netdev *nd = &p->nd;

	res_init(r, "roce-qos", "%s/%u", p->dev, p->port);
	SEEN(r, "%s: PFC ", nd->name);
	if (!nd->dcb_found)
		SEEN(r, "unknown (dcb not installed: apt-get install iproute2)");
	else if (!nd->pfc_known)
		SEEN(r, "not available (dcb: %s)",
		     nd->dcb_error[0] ? nd->dcb_error : "no answer");
	else if (nd->pfc_on[0])
		SEEN(r, "on priorities %s", nd->pfc_on);
	else
		SEEN(r, "off");
	SEEN(r, ", trust %s", nd->trust[0] ? nd->trust : "unknown");
	if (nd->ecn_np < 0 && nd->ecn_rp < 0) {
		SEEN(r, ", ECN not shown by the driver");
	} else {
		SEEN(r, ", ECN notification point");
		seen_prio_mask(r, nd->ecn_np < 0 ? 0 : nd->ecn_np);
		SEEN(r, ", reaction point");
		seen_prio_mask(r, nd->ecn_rp < 0 ? 0 : nd->ecn_rp);
	}
	SEEN(r, " (information: RoCE traffic needs a lossless priority or ECN on the fabric's switches too)");
	return r->status;
}

enum doc_status doc_check_port_mtu(const struct doc_port *p,
				   struct doc_result *r)
{
	res_init(r, "port-mtu", "%s/%u", p->dev, p->port);
	SEEN(r, "active MTU %" PRIu32 ", max %" PRIu32, p->active_mtu,
	     p->max_mtu);
	if (!p->active_mtu) {
		r->status = DOC_WARN;
		SEEN(r, " (active MTU not reported)");
		FIX(r, "ibv_devinfo -d %s -v shows it", p->dev);
		return r->status;
	}
	if (p->max_mtu && p->active_mtu < p->max_mtu) {
		size_t hdr = sizeof(struct ibtick_wire_hdr);

		r->status = DOC_WARN;
		SEEN(r, ": ticks over %zu payload bytes cannot be sent",
		     p->active_mtu > hdr ? p->active_mtu - hdr : 0);
		if (p->link_layer == IBTICK_LINK_LAYER_ETHERNET)
			FIX(r, "RoCE takes its MTU from the netdev: ip link set %s mtu 9000 (4200 is enough for 4096) if the switches carry jumbo frames",
			    nd_or(p, "NETDEV"));
		else
			FIX(r, "the link came up with a smaller MTU: check the cable, the switch port (ibportstate -C %s -P %u) and the SM's MTU settings",
			    p->dev, p->port);
	}
	return r->status;
}

static bool usable_port(const struct doc_port *p)
{
	return p->link_layer == IBTICK_LINK_LAYER_INFINIBAND ||
	       p->link_layer == IBTICK_LINK_LAYER_ETHERNET;
}

static void seen_port_name(struct doc_result *r, const struct doc_port *p)
{
	SEEN(r, "%s/%u", p->dev, p->port);
	if (p->nd.name[0])
		SEEN(r, " (%s)", p->nd.name);
}

enum doc_status doc_check_active_ports(const struct doc_port *ports,
				       size_t n, struct doc_result *r)
{
	size_t i, usable = 0, active = 0, listed = 0;

	res_init(r, "active-ports", "host");
	for (i = 0; i < n; i++) {
		if (!usable_port(&ports[i]))
			continue;
		usable++;
		if (ports[i].state == IBTICK_PORT_ACTIVE)
			active++;
	}
	if (!usable) {
		r->status = DOC_FAIL;
		SEEN(r, "no InfiniBand or RoCE port (/sys/class/infiniband has %s)",
		     n ? "only other ports" : "no device");
		FIX(r, "load the HCA's driver (modprobe mlx5_ib), or add soft-RoCE: rdma link add rxe0 type rxe netdev ETH");
		return r->status;
	}
	if (!active) {
		r->status = DOC_FAIL;
		SEEN(r, "none of %zu IB/RoCE port%s is ACTIVE", usable,
		     usable == 1 ? "" : "s");
		FIX(r, "bring a port up (see port-state)");
		return r->status;
	}
	if (active == 1)
		SEEN(r, "one active port: ");
	else
		SEEN(r, "%zu active ports: ", active);
	for (i = 0; i < n; i++) {
		if (!usable_port(&ports[i]) ||
		    ports[i].state != IBTICK_PORT_ACTIVE)
			continue;
		if (listed++)
			SEEN(r, ", ");
		seen_port_name(r, &ports[i]);
	}
	if (active == 1) {
		SEEN(r, "; binds with sibt_ifindex 0 use it");
		return r->status;
	}
	r->status = DOC_WARN;
	SEEN(r, "; binds with sibt_ifindex 0 are refused (EADDRNOTAVAIL)");
	FIX(r, "name the port: sibt_ifindex = the netdev's index");
	listed = 0;
	for (i = 0; i < n; i++) {
		const struct doc_port *p = &ports[i];

		if (!usable_port(p) || p->state != IBTICK_PORT_ACTIVE ||
		    !p->nd.name[0] || !p->nd.ifindex)
			continue;
		FIX(r, "%s%s %u", listed++ ? ", " : " (", p->nd.name,
		    p->nd.ifindex);
	}
	if (listed)
		FIX(r, ")");
	FIX(r, ", or ibtick feed add NAME ... netdev IFNAME");
	return r->status;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Hex digits of @s in order, separators (':') skipped; -1 if malformed. */
static int hex_bytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0, digits = 0;
	int hi = 0, v;

	for (; *s && *s != '\n'; s++) {
		if (*s == ':')
			continue;
		v = hexval((unsigned char)*s);
		if (v < 0)
			return -1;
		if (digits++ % 2 == 0) {
			hi = v;
			continue;
		}
		if (n == max)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | v);
	}
	return digits % 2 ? -1 : (int)n;
}

bool doc_ipoib_addr_has_gid(const char *addr, const char *gid)
{
	uint8_t a[32], g[16];
	int na, ng;

	na = hex_bytes(addr, a, sizeof(a));
	ng = hex_bytes(gid, g, sizeof(g));
	if (na != 20 || ng != 16)
		return false;
	/* IPoIB hardware address: 4 bytes (flags, QPN), then the GID */
	return !memcmp(a + 4, g, 16);
}

/* ---- the device --------------------------------------------------------- */

enum doc_status doc_check_firmware(const struct doc_fw *f,
				   struct doc_result *r)
{
	res_init(r, "firmware", "%s", f->dev);
	SEEN(r, "fw %s, driver %s", f->fw_ver[0] ? f->fw_ver : "not reported",
	     f->driver[0] ? f->driver : "unknown");
	if (f->kernel[0])
		SEEN(r, ", kernel %s", f->kernel);
	if (!f->ofed_found)
		SEEN(r, ", inbox RDMA stack (no ofed_info)");
	else if (f->ofed_timeout)
		SEEN(r, ", ofed_info -s did not finish in time");
	else if (f->ofed[0])
		SEEN(r, ", %s (ofed_info -s)", f->ofed);
	else
		SEEN(r, ", ofed_info -s gave nothing");
	return r->status;
}

/* Same model (hca_type), firmware both known. */
static bool same_model(const struct doc_dev *a, const struct doc_dev *b)
{
	return a->model[0] && !a->software && !b->software &&
	       !strcmp(a->model, b->model);
}

enum doc_status doc_check_fw_consistency(const struct doc_dev *devs, size_t n,
					 struct doc_result *r)
{
	unsigned int groups = 0;
	size_t i, j, k;

	res_init(r, "firmware-match", "host");
	for (i = 0; i < n; i++) {
		bool first = true, differ = false;

		if (!devs[i].model[0] || devs[i].software)
			continue;
		/* each model once: at its first device */
		for (k = 0; k < i && first; k++)
			if (same_model(&devs[k], &devs[i]))
				first = false;
		if (!first)
			continue;
		for (j = i + 1; j < n; j++)
			if (same_model(&devs[i], &devs[j]) &&
			    strcmp(devs[i].fw_ver, devs[j].fw_ver))
				differ = true;
		for (j = i + 1; j < n && !differ; j++)
			if (same_model(&devs[i], &devs[j]))
				break;
		if (j == n && !differ)
			continue;	/* the only one of its model */
		groups++;
		SEEN(r, "%s%s:", groups > 1 ? "; " : "", devs[i].model);
		for (j = i; j < n; j++)
			if (j == i || same_model(&devs[i], &devs[j]))
				SEEN(r, " %s %s", devs[j].name,
				     devs[j].fw_ver[0] ? devs[j].fw_ver : "(not reported)");
		if (differ) {
			r->status = DOC_WARN;
			if (!r->fix[0])
				FIX(r, "bring every card of a model to one firmware (mlxfwmanager --query lists them, mlxfwmanager -u updates from the MLNX_OFED or vendor bundle): ports that behave differently under the same feed are otherwise hard to explain");
		}
	}
	if (!groups)
		SEEN(r, "no two devices of the same model");
	return r->status;
}

enum doc_status doc_check_node_type(const char *dev, int node_type,
				    struct doc_result *r)
{
	res_init(r, "node-type", "%s", dev);
	SEEN(r, "node type %s", node_type < 0 ? "unreadable" :
	     node_type_name((unsigned int)node_type));
	if (node_type == IBTICK_NODE_RNIC) {
		r->status = DOC_WARN;
		SEEN(r, " (iWARP): no UD multicast, ibtick cannot use it");
		FIX(r, "use an InfiniBand or RoCE device; for testing, soft-RoCE: rdma link add rxe0 type rxe netdev ETH");
	}
	return r->status;
}

/* ---- port error counters ----------------------------------------------- */

const char *const doc_pma_error_counters[] = {
	"symbol_error",
	"link_error_recovery",
	"link_downed",
	"port_rcv_errors",
	"port_xmit_discards",
	"port_rcv_remote_physical_errors",
	"local_link_integrity_errors",
	"excessive_buffer_overrun_errors",
	"VL15_dropped",
	NULL
};

bool doc_pma_counter_is_error(const char *name)
{
	size_t j;

	for (j = 0; doc_pma_error_counters[j]; j++)
		if (!strcmp(doc_pma_error_counters[j], name))
			return true;
	return false;
}

bool doc_hw_counter_is_error(const char *name)
{
	static const char *const not_errors[] = {
		"pkts", "bytes", "packets", "lifespan", "cnp", "ecn",
		"flush",	/* flushed WQEs: every QP teardown makes them */
		"handled", NULL
	};
	static const char *const errors[] = {
		"err", "out_of", "discard", "drop", "timeout", "duplicate",
		"link_downed", "exceeded", "overrun", "icrc", "invalid", NULL
	};
	const char *const *w;

	for (w = not_errors; *w; w++)
		if (strstr(name, *w))
			return false;
	for (w = errors; *w; w++)
		if (strstr(name, *w))
			return true;
	return false;
}

enum counter_kind {
	KIND_PHYS,	/* cable, transceiver, switch port */
	KIND_BUFFER,	/* nothing posted to receive into, congestion */
	KIND_OTHER,	/* transport errors */
};

static enum counter_kind counter_kind(const char *name)
{
	static const char *const phys[] = {
		"symbol_error", "link_error_recovery", "link_downed",
		"port_rcv_errors", "port_rcv_remote_physical_errors",
		"local_link_integrity_errors", "icrc", NULL
	};
	static const char *const buffer[] = {
		"port_xmit_discards", "excessive_buffer_overrun_errors",
		"VL15_dropped", "out_of_buffer", "discard", "drop", NULL
	};
	const char *const *w;

	for (w = phys; *w; w++)
		if (strstr(name, *w))
			return KIND_PHYS;
	for (w = buffer; *w; w++)
		if (strstr(name, *w))
			return KIND_BUFFER;
	return KIND_OTHER;
}

static void counter_fixes(struct doc_result *r, const struct doc_counters *k,
			  bool grown_only)
{
	bool kinds[3] = { false };
	size_t i;

	for (i = 0; i < k->n; i++) {
		const struct doc_counter *c = &k->c[i];

		if (grown_only ? c->after > c->before : c->after || c->before)
			kinds[counter_kind(c->name)] = true;
	}
	if (kinds[KIND_PHYS])
		FIX(r, "%slink errors: reseat or replace the cable/transceiver and check the switch port (ibqueryerrors, mlxlink)",
		    r->fix[0] ? "; " : "");
	if (kinds[KIND_BUFFER])
		FIX(r, "%sdrops for want of buffers: a receive queue ran dry (out_of_buffer: busy poll or a dedicated CPU) or the fabric is congested (port_xmit_discards)",
		    r->fix[0] ? "; " : "");
	if (kinds[KIND_OTHER])
		FIX(r, "%stransport errors: check the peers' and the switch's counters",
		    r->fix[0] ? "; " : "");
}

enum doc_status doc_check_counters(const struct doc_counters *k,
				   struct doc_result *r)
{
	size_t i, listed, grew = 0, nonzero = 0;

	res_init(r, "port-counters", "%s/%u", k->dev, k->port);
	if (!k->n) {
		SEEN(r, "no port counters (software device)");
		return r->status;
	}
	for (i = 0; i < k->n; i++) {
		if (k->growth && k->c[i].after > k->c[i].before)
			grew++;
		if (k->c[i].after || k->c[i].before)
			nonzero++;
	}
	if (!nonzero) {
		SEEN(r, "%zu error counter%s all 0", k->n, k->n == 1 ? "" : "s");
		if (k->growth)
			SEEN(r, " over %g s", k->interval);
		else
			SEEN(r, " (read once)");
		return r->status;
	}
	if (grew) {
		r->status = DOC_FAIL;
		SEEN(r, "growing over %g s:", k->interval);
		for (i = 0, listed = 0; i < k->n; i++) {
			const struct doc_counter *c = &k->c[i];

			if (c->after > c->before)
				SEEN(r, "%s %s +%" PRIu64 " (%" PRIu64 ")",
				     listed++ ? "," : "", c->name,
				     c->after - c->before, c->after);
		}
		counter_fixes(r, k, true);
		if (grew == nonzero)
			return r->status;
		SEEN(r, "; non-zero:");
	} else {
		r->status = DOC_WARN;
		SEEN(r, "non-zero%s:", k->growth ? ", not growing" : "");
		FIX(r, "errors from the past: note them, clear them (perfquery -R on IB) and run doctor again to see whether they come back");
		counter_fixes(r, k, false);
	}
	for (i = 0, listed = 0; i < k->n; i++) {
		const struct doc_counter *c = &k->c[i];

		if ((c->after || c->before) &&
		    !(k->growth && c->after > c->before))
			SEEN(r, "%s %s %" PRIu64, listed++ ? "," : "", c->name,
			     c->after);
	}
	return r->status;
}

/* ---- CPUs --------------------------------------------------------------- */

static void seen_roles(struct doc_result *r, const struct doc_cpu *c)
{
	if ((c->roles & DOC_CPU_APP) && (c->roles & DOC_CPU_POLL))
		SEEN(r, "app and busy-poll CPU");
	else if (c->roles & DOC_CPU_POLL)
		SEEN(r, "busy-poll CPU");
	else
		SEEN(r, "app CPU");
	if (c->feeds[0])
		SEEN(r, " (feed %s)", c->feeds);
	SEEN(r, ": ");
}

enum doc_status doc_check_governor(const struct doc_cpu *c,
				   struct doc_result *r)
{
	res_init(r, "cpu-governor", "cpu%u", c->cpu);
	seen_roles(r, c);
	if (!c->present) {
		r->status = DOC_WARN;
		SEEN(r, "no such CPU");
		FIX(r, "%s", c->roles & DOC_CPU_POLL ?
		    "move the busy-poll thread: ibtick feed set NAME poll busy cpu N" :
		    "check --app-cpus against lscpu");
		return r->status;
	}
	if (!c->online) {
		r->status = DOC_WARN;
		SEEN(r, "offline");
		FIX(r, "echo 1 > /sys/devices/system/cpu/cpu%u/online, or use another CPU",
		    c->cpu);
		return r->status;
	}
	if (!c->has_cpufreq) {
		SEEN(r, "no cpufreq control (fixed frequency or VM)");
		return r->status;
	}
	SEEN(r, "governor %s", c->governor[0] ? c->governor : "(empty)");
	if (strcmp(c->governor, "performance")) {
		r->status = DOC_WARN;
		FIX(r, "cpupower -c %u frequency-set -g performance (or echo performance > /sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor): a clock that ramps up adds microseconds after every quiet spell",
		    c->cpu, c->cpu);
	}
	return r->status;
}

enum doc_status doc_check_cpu_latency(const struct doc_cpu *c,
				      struct doc_result *r)
{
	char fix[DOC_FIX_LEN] = "";

	res_init(r, "cpu-latency", "cpu%u", c->cpu);
	seen_roles(r, c);
	if (!c->present || !c->online) {
		SEEN(r, "not present or offline: cpu-governor says what to do");
		return r->status;
	}
	if (!c->has_cpuidle) {
		SEEN(r, "no cpuidle states (idle=poll, or a VM without them)");
	} else if (c->deep_states) {
		r->status = DOC_WARN;
		SEEN(r, "%u idle state%s deeper than %u us enabled (%s; up to %u us to wake)",
		     c->deep_states, c->deep_states == 1 ? "" : "s",
		     DOC_DEEP_IDLE_US, c->deep_names, c->deep_latency_us);
		doc_appendf(fix, sizeof(fix), "cpupower -c %u idle-set -D %u (disables the idle states that take longer to leave; the boot parameter intel_idle.max_cstate=1 does it for all CPUs): waking from them lands on the first tick after a quiet spell",
			    c->cpu, DOC_DEEP_IDLE_US);
	} else {
		SEEN(r, "no idle state deeper than %u us", DOC_DEEP_IDLE_US);
	}
	SEEN(r, "; %s, %s", c->isolated ? "in isolcpus" : "not in isolcpus",
	     c->nohz_full ? "nohz_full" : "not nohz_full");
	if (!c->isolated || !c->nohz_full) {
		r->status = DOC_WARN;
		doc_appendf(fix, sizeof(fix), "%sboot with isolcpus=%u nohz_full=%u rcu_nocbs=%u (with the other app and busy-poll CPUs in the same lists) so that other tasks and the scheduler tick stay off it",
			    fix[0] ? "; " : "", c->cpu, c->cpu, c->cpu);
	}
	if (fix[0])
		FIX(r, "%s", fix);
	return r->status;
}

enum doc_status doc_check_cpu_irqs(const struct doc_cpu *c,
				   struct doc_result *r)
{
	res_init(r, "cpu-irqs", "cpu%u", c->cpu);
	seen_roles(r, c);
	if (!c->irqs_read) {
		SEEN(r, "/proc/interrupts not readable");
		return r->status;
	}
	if (!c->n_other_irqs) {
		SEEN(r, "no other device's interrupt may run here");
		return r->status;
	}
	r->status = DOC_WARN;
	SEEN(r, "%u interrupt%s of other devices may run here: %s",
	     c->n_other_irqs, c->n_other_irqs == 1 ? "" : "s", c->other_irqs);
	FIX(r, "move them: echo CPULIST > /proc/irq/N/smp_affinity_list (N = %s, CPULIST without %u), and keep irqbalance off it (IRQBALANCE_BANNED_CPULIST=%u in /etc/default/irqbalance); managed interrupts (NVMe queues) cannot be moved: boot with isolcpus=managed_irq,%u",
	    c->other_irq_nums, c->cpu, c->cpu, c->cpu);
	return r->status;
}

enum doc_status doc_check_no_cpus(struct doc_result *r)
{
	res_init(r, "cpu-governor", "host");
	SEEN(r, "nothing to check: no --app-cpus given and no busy-poll feed pinned to a CPU");
	return r->status;
}

/* ---- interrupts --------------------------------------------------------- */

int doc_irq_parse_line(const char *line, unsigned int *irq, char *name,
		       size_t len)
{
	const char *p = line, *end, *last = NULL;
	unsigned long v;
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtoul(p, &e, 10);
	if (*e != ':' || v > UINT32_MAX)
		return -1;
	*irq = (unsigned int)v;
	/* the action name(s): the last word of the line */
	end = line + strlen(line);
	while (end > e + 1 && isspace((unsigned char)end[-1]))
		end--;
	for (p = end; p > e + 1 && !isspace((unsigned char)p[-1]); p--)
		last = p - 1;
	if (len) {
		if (!last)
			name[0] = '\0';
		else
			snprintf(name, len, "%.*s", (int)(end - last), last);
	}
	return 0;
}

/* @word occurs in @s not followed by another digit or alphanumeric tail. */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	if (!n)
		return false;
	while ((p = strstr(p, word))) {
		char next = p[n];
		bool start_ok = p == s || !isalnum((unsigned char)p[-1]);

		if (start_ok && !isdigit((unsigned char)next))
			return true;
		p++;
	}
	return false;
}

bool doc_irq_line_names(const char *line, const char *dev, const char *pci)
{
	const char *rest = strchr(line, ':');

	if (!rest)
		return false;
	rest++;
	return (dev && has_word(rest, dev)) || (pci && has_word(rest, pci));
}

int doc_irq_vector(const char *name)
{
	const char *p;
	char *end;
	long v;

	if (strstr(name, "async"))
		return -1;
	p = strstr(name, "comp");
	if (p && isdigit((unsigned char)p[4])) {
		v = strtol(p + 4, &end, 10);
		return v > 65535 ? -1 : (int)v;
	}
	/* mlx4: "mlx4-<vector>@<pci>" */
	p = strchr(name, '-');
	if (p && isdigit((unsigned char)p[1])) {
		v = strtol(p + 1, &end, 10);
		if (*end == '@' && v <= 65535)
			return (int)v;
	}
	return -1;
}

bool doc_irq_is_completion(const char *name)
{
	return doc_irq_vector(name) >= 0 || strstr(name, "comp");
}

static bool feed_vector(const struct doc_irq_view *v, int vector)
{
	size_t i;

	if (vector < 0)
		return false;
	for (i = 0; i < v->n_feed_vectors; i++)
		if (v->feed_vectors[i] == vector)
			return true;
	return false;
}

#define IRQ_LIST_MAX	4	/* IRQs named in the text; the rest counted */

enum doc_status doc_check_irqs(const struct doc_irq_view *v,
			       struct doc_result *r)
{
	struct doc_cpuset on, watch, keep;
	char cpus[128], other[128], bad_irqs[128] = "";
	size_t i, bad = 0, meant = 0;
	bool have_online;

	res_init(r, "irq-affinity", "%s", v->dev);
	if (!v->n) {
		if (v->software) {
			SEEN(r, "no completion interrupts (software device such as rxe)");
			return r->status;
		}
		r->status = DOC_WARN;
		if (v->n_named)
			SEEN(r, "%u interrupt%s name %s but none is a completion vector",
			     v->n_named, v->n_named == 1 ? "" : "s", v->dev);
		else
			SEEN(r, "no interrupt in /proc/interrupts names %s or its bus device",
			     v->dev);
		FIX(r, "find its completion interrupts by hand (grep its PCI address in /proc/interrupts) and keep them off the app CPUs");
		return r->status;
	}

	doc_cpuset_zero(&on);
	for (i = 0; i < v->n; i++)
		doc_cpuset_or(&on, &on, &v->irqs[i].cpus);
	doc_cpuset_zero(&watch);
	if (v->app)
		doc_cpuset_or(&watch, &watch, v->app);
	if (v->poll)
		doc_cpuset_or(&watch, &watch, v->poll);
	SEEN(r, "%zu completion interrupt%s on CPUs %s", v->n,
	     v->n == 1 ? "" : "s", doc_cpuset_format(&on, cpus, sizeof(cpus)));
	if (!doc_cpuset_count(&watch)) {
		SEEN(r, "; no app or busy-poll CPU to check them against (--app-cpus LIST)");
		return r->status;
	}

	for (i = 0; i < v->n; i++) {
		const struct doc_irq *q = &v->irqs[i];
		struct doc_cpuset app_hit, poll_hit, tmp;

		doc_cpuset_zero(&poll_hit);
		doc_cpuset_zero(&app_hit);
		/* a & b computed as a & ~(a & ~b) */
		if (v->poll) {
			doc_cpuset_andnot(&tmp, &q->cpus, v->poll);
			doc_cpuset_andnot(&poll_hit, &q->cpus, &tmp);
		}
		if (v->app) {
			doc_cpuset_andnot(&tmp, &q->cpus, v->app);
			doc_cpuset_andnot(&app_hit, &q->cpus, &tmp);
			/* a busy-poll CPU counts as that, not as app */
			doc_cpuset_andnot(&app_hit, &app_hit, &poll_hit);
		}
		if (doc_cpuset_count(&app_hit) &&
		    !doc_cpuset_count(&poll_hit) && feed_vector(v, q->vector)) {
			/* an IRQ-mode feed's vector: put there on purpose */
			doc_cpuset_format(&app_hit, cpus, sizeof(cpus));
			if (meant++ < IRQ_LIST_MAX)
				SEEN(r, "; IRQ %u (%s) on app CPU %s serves an IRQ-mode feed's vector %d",
				     q->irq, q->name, cpus, q->vector);
			continue;
		}
		if (!doc_cpuset_count(&app_hit) && !doc_cpuset_count(&poll_hit))
			continue;
		doc_appendf(bad_irqs, sizeof(bad_irqs), "%s%u",
			    bad_irqs[0] ? " " : "", q->irq);
		if (bad++ >= IRQ_LIST_MAX)
			continue;
		SEEN(r, "; IRQ %u (%s) may run on", q->irq, q->name);
		if (doc_cpuset_count(&poll_hit))
			SEEN(r, " busy-poll CPU %s",
			     doc_cpuset_format(&poll_hit, cpus, sizeof(cpus)));
		if (doc_cpuset_count(&app_hit))
			SEEN(r, "%s app CPU %s",
			     doc_cpuset_count(&poll_hit) ? " and" : "",
			     doc_cpuset_format(&app_hit, cpus, sizeof(cpus)));
	}
	if (bad > IRQ_LIST_MAX)
		SEEN(r, "; and %zu more", bad - IRQ_LIST_MAX);
	if (meant > IRQ_LIST_MAX)
		SEEN(r, "; and %zu more on purpose", meant - IRQ_LIST_MAX);
	if (!bad) {
		SEEN(r, "; none %son app/busy-poll CPUs %s", meant ? "else " : "",
		     doc_cpuset_format(&watch, cpus, sizeof(cpus)));
		return r->status;
	}

	r->status = DOC_WARN;
	have_online = v->online && doc_cpuset_count(v->online);
	if (have_online) {
		doc_cpuset_andnot(&keep, v->online, &watch);
		doc_cpuset_format(&keep, other, sizeof(other));
	}
	FIX(r, "move them off the app/busy-poll CPUs: for i in %s; do echo %s > /proc/irq/$i/smp_affinity_list; done",
	    bad_irqs, have_online && doc_cpuset_count(&keep) ? other :
	    "CPUS_OUTSIDE_APP_CPUS");
	FIX(r, ", and keep irqbalance off them (IRQBALANCE_BANNED_CPULIST=%s)",
	    doc_cpuset_format(&watch, cpus, sizeof(cpus)));
	return r->status;
}

/* ---- feeds -------------------------------------------------------------- */

uint32_t doc_slot_size_for(uint32_t payload)
{
	uint64_t need = (uint64_t)payload + sizeof(struct ibtick_slot);
	uint32_t s = IBTICK_SLOT_SIZE_MIN;

	while (s < need && s < IBTICK_SLOT_SIZE_MAX)
		s <<= 1;
	return s;
}

enum doc_status doc_check_no_feeds(struct doc_result *r)
{
	res_init(r, "feeds", "ibtick");
	SEEN(r, "no feeds yet (ibtick feed add, or a socket's bind, makes one)");
	return r->status;
}

static void seen_where(struct doc_result *r, const struct doc_feed *f)
{
	if (!f->dev[0])
		return;
	SEEN(r, " on %s/%" PRIu32, f->dev, f->dev_port);
	if (f->netdev[0])
		SEEN(r, " (%s)", f->netdev);
}

enum doc_status doc_check_feed_live(const struct doc_feed *f,
				    struct doc_result *r)
{
	res_init(r, "feed-live", "%s", f->name);
	SEEN(r, "%s %s feed", f->live ? "live" : "NOT live:",
	     f->admin ? "admin" : "auto");
	seen_where(r, f);
	if (f->live)
		return r->status;
	r->status = DOC_FAIL;
	SEEN(r, ", its device is gone");
	if (f->admin)
		FIX(r, "device gone; ibtick feed del %s and add it again (ibtick feed save shows its feed add line)",
		    f->name);
	else
		FIX(r, "device gone; close the sockets on it (their readers see IBTICK_RING_DEAD) and bind again");
	return r->status;
}

enum doc_status doc_check_feed_mtu(const struct doc_feed *f,
				   struct doc_result *r)
{
	size_t slot_desc = sizeof(struct ibtick_slot);
	size_t wire_hdr = sizeof(struct ibtick_wire_hdr);
	uint32_t slot_pl, wire_pl;

	res_init(r, "feed-mtu", "%s", f->name);
	if (!f->slot_size || !f->wire_max) {
		r->status = DOC_WARN;
		SEEN(r, "slot size %" PRIu32 ", wire max %" PRIu32 " (not reported)",
		     f->slot_size, f->wire_max);
		FIX(r, "ibtick feed show %s", f->name);
		return r->status;
	}
	slot_pl = f->slot_size > slot_desc ?
		  f->slot_size - (uint32_t)slot_desc : 0;
	wire_pl = f->wire_max > wire_hdr ?
		  f->wire_max - (uint32_t)wire_hdr : 0;
	SEEN(r, "slot %" PRIu32 " B holds %" PRIu32 " B of payload; the wire carries %" PRIu32
	     " B (MTU %" PRIu32 " less the %zu B tick header)",
	     f->slot_size, slot_pl, wire_pl, f->wire_max, wire_hdr);
	/*
	 * Slot sizes are powers of two: only a slot bigger than the smallest
	 * one that holds the wire's largest tick holds more than can arrive.
	 */
	if (slot_pl > wire_pl && f->slot_size > doc_slot_size_for(wire_pl)) {
		r->status = DOC_WARN;
		SEEN(r, ": a slot can hold more than the wire carries; ticks over %" PRIu32
		     " B are refused (EMSGSIZE)", wire_pl);
		FIX(r, "slot-size %" PRIu32 " is enough for the largest tick the wire carries (the ring's geometry is fixed: ibtick feed del %s; ibtick feed add %s ... slot-size %" PRIu32
		    "), or raise the port's MTU if publishers need bigger ticks",
		    doc_slot_size_for(wire_pl), f->name, f->name,
		    doc_slot_size_for(wire_pl));
	} else if (slot_pl < wire_pl && f->truncated) {
		r->status = DOC_WARN;
		SEEN(r, "; %" PRIu64 " tick%s truncated to the slot", f->truncated,
		     f->truncated == 1 ? "" : "s");
		FIX(r, "bigger slots (the ring's geometry is fixed: ibtick feed del %s; ibtick feed add %s ... slot-size %" PRIu32 ")",
		    f->name, f->name, doc_slot_size_for(wire_pl));
	} else if (slot_pl < wire_pl) {
		SEEN(r, "; no tick truncated so far");
	} else {
		SEEN(r, "; the smallest slot that holds the largest tick");
	}
	return r->status;
}

enum doc_status doc_check_feed_lapped(const struct doc_feed *f,
				      struct doc_result *r)
{
	res_init(r, "feed-lapped", "%s", f->name);
	SEEN(r, "readers lost %" PRIu64 " tick%s in %" PRIu64 " lap%s (%" PRIu64
	     " received, ring of %" PRIu32 " slots)",
	     f->readers_lost, f->readers_lost == 1 ? "" : "s", f->laps,
	     f->laps == 1 ? "" : "s", f->rx_ticks, f->slots);
	if (!f->readers_lost)
		return r->status;
	r->status = DOC_WARN;
	FIX(r, "ring too small or readers too slow: make the readers faster (busy poll, a dedicated CPU), or a bigger ring (its geometry is fixed: ibtick feed del %s; ibtick feed add %s ... slots %" PRIu64 ")",
	    f->name, f->name,
	    2 * (uint64_t)(f->slots ? f->slots : IBTICK_SLOTS_DEFAULT));
	return r->status;
}

enum doc_status doc_check_feed_rq_empty(const struct doc_feed *f,
					struct doc_result *r)
{
	bool busy = f->poll_mode == IBTICK_POLL_BUSY;

	res_init(r, "feed-rq-empty", "%s", f->name);
	SEEN(r, "receive queue ran empty %" PRIu64 " time%s (poll %s",
	     f->rq_empty, f->rq_empty == 1 ? "" : "s", busy ? "busy" : "irq");
	if (busy && f->poll_cpu >= 0)
		SEEN(r, " cpu %d", f->poll_cpu);
	SEEN(r, ")");
	if (!f->rq_empty)
		return r->status;
	r->status = DOC_WARN;
	if (busy && f->poll_cpu >= 0)
		FIX(r, "the kernel could not repost fast enough: keep everything else off CPU %d (isolcpus, IRQ affinity)",
		    f->poll_cpu);
	else
		FIX(r, "the kernel could not repost fast enough: busy poll on a dedicated CPU: ibtick feed set %s poll busy cpu N",
		    f->name);
	return r->status;
}

enum doc_status doc_check_feed_gaps(const struct doc_feed *f,
				    struct doc_result *r)
{
	res_init(r, "feed-gaps", "%s", f->name);
	SEEN(r, "%" PRIu64 " sequence gap%s, %" PRIu64 " tick%s missing",
	     f->gaps, f->gaps == 1 ? "" : "s", f->gap_ticks,
	     f->gap_ticks == 1 ? "" : "s");
	if (!f->gaps)
		return r->status;
	r->status = DOC_WARN;
	FIX(r, "ticks lost on the fabric before they reached this host: look at port-counters here and at the publisher's host, the switch's discards, and feed-rq-empty");
	return r->status;
}

void doc_poll_cpus(const struct doc_feed *feeds, size_t n,
		   struct doc_cpuset *poll)
{
	size_t i;

	doc_cpuset_zero(poll);
	for (i = 0; i < n; i++)
		if (feeds[i].poll_mode == IBTICK_POLL_BUSY && feeds[i].poll_cpu >= 0)
			doc_cpuset_set(poll, (unsigned int)feeds[i].poll_cpu);
}

bool doc_dev_is_iwarp(const struct doc_dev *dd)
{
	return dd->node_type == IBTICK_NODE_RNIC;
}

/* ---- the whole run ----------------------------------------------------- */

struct run {
	const struct doc_host	*h;
	void			(*emit)(void *ctx, const struct doc_result *r);
	void			*ctx;
	struct doc_result	r;
};

static void put(struct run *x)
{
	x->emit(x->ctx, &x->r);
}

/* The devices of the DEV_GET dump against the IB/RoCE devices of sysfs. */
static void run_kernel_view(struct run *x)
{
	const struct doc_host *h = x->h;
	struct doc_kernel_view v = {
		.dev_dump_ok	= h->dev_dump_ok,
		.feed_dump_ok	= h->feed_dump_ok,
		.n_devs		= (unsigned int)h->n_kdevs,
		.n_feeds	= (unsigned int)h->n_feeds,
	};
	size_t i, j, k;

	for (i = 0; i < h->n_devs && h->dev_dump_ok; i++) {
		const struct doc_dev *dd = &h->devs[i];
		bool usable = false, seen = false;

		if (doc_dev_is_iwarp(dd))
			continue;
		for (k = 0; k < dd->n_ports; k++) {
			int ll = h->ports[dd->first_port + k].link_layer;

			if (ll == IBTICK_LINK_LAYER_INFINIBAND ||
			    ll == IBTICK_LINK_LAYER_ETHERNET)
				usable = true;
		}
		for (j = 0; j < h->n_kdevs; j++)
			if (!strcmp(h->kdevs[j], dd->name))
				seen = true;
		if (usable && !seen)
			doc_appendf(v.missing, sizeof(v.missing), "%s%s",
				    v.missing[0] ? " " : "", dd->name);
	}
	doc_check_kernel_view(&v, &x->r);
	put(x);
}

/* How many of the kernel's feeds are on port @p. */
static unsigned int port_feeds(const struct doc_host *h,
			       const struct doc_port *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < h->n_feeds; i++)
		if (h->feeds[i].dev_port == p->port &&
		    !strcmp(h->feeds[i].dev, p->dev))
			n++;
	return n;
}

static void run_ports(struct run *x, const struct doc_dev *dd)
{
	size_t k;

	if (doc_dev_is_iwarp(dd)) {
		/* only iWARP devices get a node-type line: the rest pass it */
		doc_check_node_type(dd->name, dd->node_type, &x->r);
		put(x);
		return;
	}
	for (k = 0; k < dd->n_ports; k++) {
		const struct doc_port *p = &x->h->ports[dd->first_port + k];

		doc_check_port_state(p, &x->r);
		put(x);
		doc_check_link_layer(p, &x->r);
		put(x);
		if (p->link_layer == IBTICK_LINK_LAYER_INFINIBAND) {
			/*
			 * with no physical link there is nothing for an SM
			 * to sweep: port-state has already said why
			 */
			if (p->phys_state == IBTICK_PHYS_LINK_UP) {
				doc_check_sm(p, &x->r);
				put(x);
				doc_check_lid(p, &x->r);
				put(x);
			}
			doc_check_ipoib(p, &x->r);
			put(x);
		} else if (p->link_layer == IBTICK_LINK_LAYER_ETHERNET) {
			doc_check_roce_netdev(p, &x->r);
			put(x);
			if (p->nd.name[0] && p->nd.present) {
				doc_check_roce_qos(p, &x->r);
				put(x);
			}
		}
		/* the netdev checks above said it if there is none */
		if (p->nd.name[0] && p->nd.present) {
			doc_check_ipv4(p, port_feeds(x->h, p), &x->r);
			put(x);
			if (dd->software &&
			    p->link_layer == IBTICK_LINK_LAYER_ETHERNET) {
				doc_check_mc_route(p, x->h->feeds,
						   x->h->n_feeds, &x->r);
				put(x);
			}
		}
		/* from the kernel (module loaded); meaningless when down */
		if (p->active_mtu && p->state == IBTICK_PORT_ACTIVE) {
			doc_check_port_mtu(p, &x->r);
			put(x);
		}
	}
}

/* iWARP ports cannot carry a feed: they are left out of the count. */
static void run_active_ports(struct run *x)
{
	const struct doc_host *h = x->h;
	struct doc_port *usable;
	size_t i, k, n = 0;

	usable = calloc(h->n_ports ? h->n_ports : 1, sizeof(*usable));
	if (!usable) {
		fprintf(stderr, "ibtick: out of memory\n");
		exit(1);
	}
	for (i = 0; i < h->n_devs; i++) {
		if (doc_dev_is_iwarp(&h->devs[i]))
			continue;
		for (k = 0; k < h->devs[i].n_ports; k++)
			usable[n++] = h->ports[h->devs[i].first_port + k];
	}
	doc_check_active_ports(usable, n, &x->r);
	put(x);
	free(usable);
}

static void run_firmware(struct run *x)
{
	struct doc_fw fw = x->h->fw;
	size_t i;

	for (i = 0; i < x->h->n_devs; i++) {
		const struct doc_dev *dd = &x->h->devs[i];

		snprintf(fw.dev, sizeof(fw.dev), "%s", dd->name);
		snprintf(fw.fw_ver, sizeof(fw.fw_ver), "%s", dd->fw_ver);
		snprintf(fw.driver, sizeof(fw.driver), "%s", dd->driver);
		doc_check_firmware(&fw, &x->r);
		put(x);
	}
}

enum doc_status doc_check_pcie(const struct doc_dev *dd, struct doc_result *r)
{
	double speed = strtod(dd->pci_speed, NULL);
	double max = strtod(dd->pci_max_speed, NULL);

	res_init(r, "pcie", "%s", dd->name);
	SEEN(r, "%s: x%u at %s", dd->busid[0] ? dd->busid : "link",
	     dd->pci_width, dd->pci_speed[0] ? dd->pci_speed : "unknown speed");
	SEEN(r, ", capable of x%u at %s", dd->pci_max_width,
	     dd->pci_max_speed[0] ? dd->pci_max_speed : "unknown speed");
	if (dd->pci_width < dd->pci_max_width || (speed > 0 && speed < max)) {
		double part = (double)dd->pci_width / dd->pci_max_width;

		if (speed > 0 && max > 0 && speed < max)
			part *= speed / max;
		r->status = DOC_WARN;
		SEEN(r, ": about %.0f%% of the link's bandwidth", part * 100);
		FIX(r, "the card trained below what it can do: move it to a slot wired for x%u at %s (the slot, a riser or the BIOS's PCIe settings limit it); lspci -vv -s %s shows LnkCap and LnkSta",
		    dd->pci_max_width, dd->pci_max_speed,
		    dd->busid[0] ? dd->busid : "BUS:DEV.FN");
	}
	return r->status;
}

static void run_pcie(struct run *x)
{
	size_t i;

	for (i = 0; i < x->h->n_devs; i++) {
		const struct doc_dev *dd = &x->h->devs[i];

		if (dd->software || !dd->pci_width || !dd->pci_max_width)
			continue;	/* no PCIe link to judge */
		doc_check_pcie(dd, &x->r);
		put(x);
	}
}

static void run_irqs(struct run *x, const struct doc_dev *dd,
		     const struct doc_cpuset *poll)
{
	const struct doc_host *h = x->h;
	struct doc_irq_view v = {
		.software	= dd->software,
		.n_named	= dd->n_named,
		.irqs		= dd->irqs,
		.n		= dd->n_irqs,
		.app		= &h->app,
		.poll		= poll,
		.online		= &h->online,
	};
	int *vectors;
	size_t i, n = 0;

	snprintf(v.dev, sizeof(v.dev), "%s", dd->name);
	/* the vectors IRQ-mode feeds of this device use */
	vectors = calloc(h->n_feeds ? h->n_feeds : 1, sizeof(*vectors));
	if (!vectors) {
		fprintf(stderr, "ibtick: out of memory\n");
		exit(1);
	}
	for (i = 0; i < h->n_feeds; i++) {
		const struct doc_feed *f = &h->feeds[i];

		if (f->poll_mode != IBTICK_POLL_IRQ || f->comp_vector < 0 ||
		    strcmp(f->dev, dd->name))
			continue;
		vectors[n++] = f->comp_vector;
	}
	v.feed_vectors = n ? vectors : NULL;
	v.n_feed_vectors = n;
	doc_check_irqs(&v, &x->r);
	put(x);
	free(vectors);
}

/* The governor of every CPU that matters: --app-cpus and busy-poll CPUs. */
static void run_cpus(struct run *x)
{
	const struct doc_host *h = x->h;
	struct doc_cpu c;
	size_t i, j;

	if (!h->n_cpus) {
		doc_check_no_cpus(&x->r);
		put(x);
		return;
	}
	for (i = 0; i < h->n_cpus; i++) {
		c = h->cpus[i];
		c.roles = 0;
		c.feeds[0] = '\0';
		if (doc_cpuset_has(&h->app, c.cpu))
			c.roles |= DOC_CPU_APP;
		for (j = 0; j < h->n_feeds; j++) {
			const struct doc_feed *f = &h->feeds[j];

			if (f->poll_mode != IBTICK_POLL_BUSY || f->poll_cpu < 0 ||
			    (unsigned int)f->poll_cpu != c.cpu)
				continue;
			c.roles |= DOC_CPU_POLL;
			doc_appendf(c.feeds, sizeof(c.feeds), "%s%s",
				    c.feeds[0] ? ", " : "", f->name);
		}
		doc_check_governor(&c, &x->r);
		put(x);
		doc_check_cpu_latency(&c, &x->r);
		put(x);
		doc_check_cpu_irqs(&c, &x->r);
		put(x);
	}
}

static void run_feeds(struct run *x)
{
	const struct doc_host *h = x->h;
	size_t i;

	if (!h->feed_dump_ok)
		return;		/* kernel-view has failed already */
	if (!h->n_feeds) {
		doc_check_no_feeds(&x->r);
		put(x);
		return;
	}
	for (i = 0; i < h->n_feeds; i++) {
		const struct doc_feed *f = &h->feeds[i];

		if (doc_check_feed_live(f, &x->r) != DOC_PASS) {
			put(x);
			continue;	/* its counters are history */
		}
		put(x);
		doc_check_feed_mtu(f, &x->r);
		put(x);
		doc_check_feed_lapped(f, &x->r);
		put(x);
		doc_check_feed_rq_empty(f, &x->r);
		put(x);
		doc_check_feed_gaps(f, &x->r);
		put(x);
	}
}

void doc_run(const struct doc_host *h,
	     void (*emit)(void *ctx, const struct doc_result *r), void *ctx)
{
	struct run x = { .h = h, .emit = emit, .ctx = ctx };
	struct doc_cpuset poll;
	size_t i;

	doc_check_module(&h->mod, &x.r);
	put(&x);
	/* the rest of the kernel-side checks need the family */
	if (h->mod.family)
		run_kernel_view(&x);
	for (i = 0; i < h->n_devs; i++)
		run_ports(&x, &h->devs[i]);
	run_active_ports(&x);
	run_firmware(&x);
	doc_check_fw_consistency(h->devs, h->n_devs, &x.r);
	put(&x);
	run_pcie(&x);
	doc_poll_cpus(h->feeds, h->n_feeds, &poll);
	for (i = 0; i < h->n_devs; i++)
		if (!doc_dev_is_iwarp(&h->devs[i]))
			run_irqs(&x, &h->devs[i], &poll);
	run_cpus(&x);
	if (h->mod.family)
		run_feeds(&x);
	for (i = 0; i < h->n_ports; i++) {
		doc_check_counters(&h->counters[i], &x.r);
		put(&x);
	}
}
