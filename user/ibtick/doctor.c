// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick doctor: the InfiniBand/RoCE bring-up checklist, automated.
 *
 *   ibtick doctor [ --app-cpus LIST ] [ --interval SECS ] [ --fast ]
 *
 * This file gathers: the module and its netlink dumps (IBTICK_CMD_DEV_GET,
 * IBTICK_CMD_FEED_GET), /sys/class/infiniband, /sys/class/net, cpufreq,
 * /proc/interrupts and /proc/irq, ofed_info.  The decisions are in
 * doctor_checks.c.  One line per check (PASS/WARN/FAIL, what was seen, the
 * fix), or with -j an array of {check, status, seen, fix, subject}; exit 1
 * when any check failed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick.h>
#include <linux/ibtick_netlink.h>

#include "doctor_checks.h"
#include "feedattr.h"
#include "ibtick.h"
#include "nl.h"
#include "out.h"
#include "portctr.h"

#define IB_SYSFS	"/sys/class/infiniband"
#define NET_SYSFS	"/sys/class/net"
/*
 * cpufreq and CPU presence are read under $IBTICK_CPU_SYSFS when it is set
 * and not empty, else under this directory: the tests point it at a fake
 * tree (cpuN/online, cpuN/cpufreq/scaling_governor, online).
 */
#define CPU_SYSFS	"/sys/devices/system/cpu"
#define ARPHRD_INFINIBAND_TYPE	32
#define OFED_TIMEOUT_MS	5000
#define INTERVAL_MAX	3600.0

/* A port as ibtick's DEV_GET dump shows it. */
struct kport {
	char		dev[DOC_NAME_LEN];
	unsigned int	port;
	uint32_t	active_mtu;
	uint32_t	max_mtu;
	char		netdev[DOC_IFNAME_LEN];
	uint32_t	ifindex;
};

struct port_counters {
	struct doc_counter	*c;
	bool			*hw;	/* in hw_counters/, else counters/ */
	size_t			n;
};

struct doctor {
	/* options */
	double			interval;
	bool			fast;
	const char		*cpu_root;
	struct doc_cpuset	isolated;	/* cpu/isolated */
	struct doc_cpuset	nohz_full;	/* cpu/nohz_full */

	struct doc_host		h;	/* what doc_run() decides on */
	struct doc_tally	tally;
	struct ibt_nl		nl;
	struct kport		*kports;
	size_t			n_kports;
	struct port_counters	*pc;		/* one per port */
	struct timespec		t0;		/* first counter read */
};

static void doctor_usage(FILE *f)
{
	fprintf(f,
		"Usage: ibtick doctor [ --app-cpus LIST ] [ --interval SECS ] [ --fast ]\n"
		"       ibtick doctor help\n"
		"LIST: CPUs the application's hot threads run on, e.g. 2,4-7\n"
		"SECS: time between the two reads of the port error counters (default 1)\n"
		"--fast: read the counters once (no growth check)\n");
}

static void *grow(void *arr, size_t n, size_t size)
{
	void *p;

	/* room for element n: double at powers of two */
	if (n & (n - 1))
		return arr;
	p = realloc(arr, (n ? 2 * n : 1) * size);
	if (!p) {
		fprintf(stderr, "ibtick: out of memory\n");
		exit(EXIT_FAIL);
	}
	return p;
}

/* ---- small readers ------------------------------------------------------ */

/* First line of a file, newline stripped; -1 when unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		buf[0] = '\0';
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int read_linef(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_linef(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		buf[0] = '\0';
		return -1;
	}
	if (read_line(path, buf, len)) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/* A number in any C base ("0x1", "4096"); -1 when unreadable. */
static int read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;

	if (read_line(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -1;
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Copies @src into @dst of @len bytes, cut to fit. */
static void str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!len)
		return;
	n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* basename of the target of the symlink @path into @out; -1 if none. */
static int link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n;
	char *b;

	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	b = strrchr(target, '/');
	str_copy(out, len, b ? b + 1 : target);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of @dir (no dot files), sorted by version order; NULL if none. */
static char **list_dir(const char *dir, size_t *n)
{
	struct dirent *de;
	char **names = NULL;
	DIR *d;

	*n = 0;
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = grow(names, *n, sizeof(*names));
		names[*n] = strdup(de->d_name);
		if (!names[*n]) {
			fprintf(stderr, "ibtick: out of memory\n");
			exit(EXIT_FAIL);
		}
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

static void free_list(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- output ------------------------------------------------------------- */

static void emit(void *ctx, const struct doc_result *r)
{
	struct doctor *d = ctx;

	doc_tally_add(&d->tally, r);
	out_obj_open(NULL);
	out_str("check", NULL, r->check);
	out_str("status", NULL, doc_status_name(r->status));
	out_str("seen", NULL, r->seen);
	if (r->fix[0])
		out_str("fix", NULL, r->fix);
	else
		out_null("fix", NULL);
	out_str("subject", NULL, r->subject);
	out_obj_close();
	out_text("%s  %-14s  %s: %s\n", doc_status_name(r->status), r->check,
		 r->subject, r->seen);
	if (r->fix[0])
		out_text("      fix: %s\n", r->fix);
}

/* ---- the module and its dumps ------------------------------------------ */

/*
 * The last kernel log record of a failed ibtick load ("ibtick: disagrees
 * about version of symbol ...", "ibtick: Unknown symbol ..."), from
 * /dev/kmsg (needs root where dmesg is restricted; "" otherwise).
 */
static void read_load_error(char *out, size_t len)
{
	char rec[1024];
	ssize_t n;
	int fd;

	out[0] = '\0';
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		char *msg, *nl;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten while reading: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(msg, "ibtick: ", 8) &&
		    (strstr(msg, "disagrees about version of symbol") ||
		     strstr(msg, "Unknown symbol") ||
		     strstr(msg, "module format")))
			str_copy(out, len, msg);
	}
	close(fd);
}

/* Not loaded: the kernel, an installed module, MLNX_OFED, the log. */
static void gather_load_state(struct doc_module *m)
{
	static const char *const where[] = {
		"updates/dkms/ibtick.ko", "updates/dkms/ibtick.ko.xz",
		"updates/dkms/ibtick.ko.zst", "updates/ibtick.ko",
		"extra/ibtick.ko", "extra/ibtick.ko.xz", NULL,
	};
	char path[PATH_MAX];
	struct utsname u;
	size_t i;

	if (uname(&u))
		return;
	str_copy(m->kernel, sizeof(m->kernel), u.release);
	for (i = 0; where[i] && !m->ko_found; i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, where[i]);
		m->ko_found = exists(path);
	}
	snprintf(path, sizeof(path), "/usr/src/ofa_kernel/%s", u.release);
	m->ofa_kernel = exists(path);
	if (!m->ofa_kernel) {
		snprintf(path, sizeof(path), "/usr/src/ofa_kernel/%s/%s", u.machine, u.release);
		m->ofa_kernel = exists(path);
	}
	read_load_error(m->load_error, sizeof(m->load_error));
}

static void gather_module(struct doctor *d)
{
	struct doc_module *m = &d->h.mod;
	int err;

	m->cli_version = IBTICK_VERSION;
	m->loaded = exists("/sys/module/ibtick");
	read_line("/sys/module/ibtick/version", m->version, sizeof(m->version));
	if (!m->loaded)
		gather_load_state(m);

	err = ibt_nl_connect(&d->nl, m->error, sizeof(m->error));
	if (err == -ENOENT)
		m->error[0] = '\0';	/* no family: not an error of ours */
	if (err)
		return;
	m->family = true;
	m->family_id = d->nl.family;
}

static int on_dev(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *pt[IBTICK_A_PORT_MAX + 1];
	struct doctor *d = arg;
	const char *name;
	struct nlattr *a;
	int rem;

	if (!tb[IBTICK_A_DEV_NAME])
		return 0;
	name = nla_get_string(tb[IBTICK_A_DEV_NAME]);
	d->h.kdevs = grow(d->h.kdevs, d->h.n_kdevs, sizeof(*d->h.kdevs));
	str_copy(d->h.kdevs[d->h.n_kdevs++], DOC_NAME_LEN, name);

	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		struct kport *k;

		if (nla_type(a) != IBTICK_A_DEV_PORT ||
		    nla_parse_nested(pt, IBTICK_A_PORT_MAX, a, dev_port_policy) ||
		    !pt[IBTICK_A_PORT_NUM])
			continue;
		d->kports = grow(d->kports, d->n_kports, sizeof(*d->kports));
		k = &d->kports[d->n_kports++];
		memset(k, 0, sizeof(*k));
		str_copy(k->dev, sizeof(k->dev), name);
		k->port = nla_get_u32(pt[IBTICK_A_PORT_NUM]);
		if (pt[IBTICK_A_PORT_ACTIVE_MTU])
			k->active_mtu =
				nla_get_u32(pt[IBTICK_A_PORT_ACTIVE_MTU]);
		if (pt[IBTICK_A_PORT_MAX_MTU])
			k->max_mtu = nla_get_u32(pt[IBTICK_A_PORT_MAX_MTU]);
		if (pt[IBTICK_A_PORT_NETDEV_NAME])
			str_copy(k->netdev, sizeof(k->netdev),
				 nla_get_string(pt[IBTICK_A_PORT_NETDEV_NAME]));
		if (pt[IBTICK_A_PORT_NETDEV_IFINDEX])
			k->ifindex =
				nla_get_u32(pt[IBTICK_A_PORT_NETDEV_IFINDEX]);
	}
	return 0;
}



static uint64_t get_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

static int on_feed(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct nlattr *st[IBTICK_A_FSTAT_MAX + 1];
	struct doctor *d = arg;
	struct doc_feed *f;

	(void)nlh;
	if (!tb[IBTICK_A_FEED_NAME])
		return 0;
	d->h.feeds = grow(d->h.feeds, d->h.n_feeds, sizeof(*d->h.feeds));
	f = &d->h.feeds[d->h.n_feeds++];
	memset(f, 0, sizeof(*f));
	str_copy(f->name, sizeof(f->name),
		 nla_get_string(tb[IBTICK_A_FEED_NAME]));
	/* a reply without LIVE is from a kernel that has no dead feeds */
	f->live = !tb[IBTICK_A_FEED_LIVE] || nla_get_u8(tb[IBTICK_A_FEED_LIVE]);
	f->admin = tb[IBTICK_A_FEED_ADMIN] &&
		   nla_get_u8(tb[IBTICK_A_FEED_ADMIN]);
	if (tb[IBTICK_A_FEED_DEV_NAME])
		str_copy(f->dev, sizeof(f->dev),
			 nla_get_string(tb[IBTICK_A_FEED_DEV_NAME]));
	if (tb[IBTICK_A_FEED_DEV_PORT])
		f->dev_port = nla_get_u32(tb[IBTICK_A_FEED_DEV_PORT]);
	if (tb[IBTICK_A_FEED_NETDEV_NAME])
		str_copy(f->netdev, sizeof(f->netdev),
			 nla_get_string(tb[IBTICK_A_FEED_NETDEV_NAME]));
	if (tb[IBTICK_A_FEED_GROUP])	/* be32 */
		f->group = ntohl(nla_get_u32(tb[IBTICK_A_FEED_GROUP]));
	if (tb[IBTICK_A_FEED_SLOTS])
		f->slots = nla_get_u32(tb[IBTICK_A_FEED_SLOTS]);
	if (tb[IBTICK_A_FEED_SLOT_SIZE])
		f->slot_size = nla_get_u32(tb[IBTICK_A_FEED_SLOT_SIZE]);
	if (tb[IBTICK_A_FEED_WIRE_MAX])
		f->wire_max = nla_get_u32(tb[IBTICK_A_FEED_WIRE_MAX]);
	f->poll_mode = tb[IBTICK_A_FEED_POLL_MODE] ?
		nla_get_u8(tb[IBTICK_A_FEED_POLL_MODE]) : IBTICK_POLL_IRQ;
	f->poll_cpu = tb[IBTICK_A_FEED_POLL_CPU] ?
		(int32_t)nla_get_u32(tb[IBTICK_A_FEED_POLL_CPU]) : -1;
	f->comp_vector = tb[IBTICK_A_FEED_COMP_VECTOR] &&
		nla_get_u32(tb[IBTICK_A_FEED_COMP_VECTOR]) <= INT_MAX ?
		(int)nla_get_u32(tb[IBTICK_A_FEED_COMP_VECTOR]) : -1;
	if (tb[IBTICK_A_FEED_STATS] &&
	    !nla_parse_nested(st, IBTICK_A_FSTAT_MAX, tb[IBTICK_A_FEED_STATS],
			      fstat_policy)) {
		f->rx_ticks = get_u64(st, IBTICK_A_FSTAT_RX_TICKS);
		f->gaps = get_u64(st, IBTICK_A_FSTAT_GAPS);
		f->gap_ticks = get_u64(st, IBTICK_A_FSTAT_GAP_TICKS);
		f->truncated = get_u64(st, IBTICK_A_FSTAT_TRUNCATED);
		f->rq_empty = get_u64(st, IBTICK_A_FSTAT_RQ_EMPTY);
		f->readers_lost = get_u64(st, IBTICK_A_FSTAT_READERS_LOST);
		f->laps = get_u64(st, IBTICK_A_FSTAT_LAPS);
	}
	return 0;
}

static bool dump(struct doctor *d, const struct ibt_nl_obj *obj, int cmd,
		 ibt_nl_reply_cb cb)
{
	struct ibt_nl_req req = {
		.obj = obj, .cmd = cmd, .flags = NLM_F_DUMP, .cb = cb, .arg = d,
	};

	return ibt_nl_call(&d->nl, &req) == EXIT_OK;
}

static void gather_kernel(struct doctor *d)
{
	d->h.dev_dump_ok = dump(d, &dev_obj, IBTICK_CMD_DEV_GET, on_dev);
	d->h.feed_dump_ok = dump(d, &feed_obj, IBTICK_CMD_FEED_GET, on_feed);
}

static const struct kport *kport_find(const struct doctor *d, const char *dev,
				      unsigned int port)
{
	size_t i;

	for (i = 0; i < d->n_kports; i++)
		if (d->kports[i].port == port && !strcmp(d->kports[i].dev, dev))
			return &d->kports[i];
	return NULL;
}

/* ---- sysfs: devices, ports, netdevs ------------------------------------ */

/*
 * The IPv4 addresses of netdev @nd (labels such as "ib0:1" count for ib0):
 * how many, and the first as ADDRESS/PREFIX.
 */
static void gather_ipv4(struct doc_netdev *nd)
{
	struct ifaddrs *ifa, *i;
	size_t len = strlen(nd->name);

	nd->n_ipv4 = -1;
	if (getifaddrs(&ifa))
		return;
	nd->n_ipv4 = 0;
	for (i = ifa; i; i = i->ifa_next) {
		const struct sockaddr_in *a = (const void *)i->ifa_addr;
		const struct sockaddr_in *m = (const void *)i->ifa_netmask;
		char addr[INET_ADDRSTRLEN];

		if (!a || a->sin_family != AF_INET || !i->ifa_name ||
		    strncmp(i->ifa_name, nd->name, len) ||
		    (i->ifa_name[len] && i->ifa_name[len] != ':'))
			continue;
		if (!nd->n_ipv4++ &&
		    inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr)))
			snprintf(nd->ipv4, sizeof(nd->ipv4), "%s/%d", addr,
				 m ? __builtin_popcount(m->sin_addr.s_addr) : 32);
	}
	freeifaddrs(ifa);
}

/*
 * The multicast routes on netdev @nd, from /proc/net/route (main table):
 * all counted, the first DOC_MC_ROUTES kept.
 */
static void gather_mc_route(struct doc_netdev *nd)
{
	struct doc_mc_route rt;
	char line[256];
	FILE *f = fopen("/proc/net/route", "r");

	nd->n_mc_route = -1;
	if (!f)
		return;
	nd->n_mc_route = 0;
	while (fgets(line, sizeof(line), f))
		if (doc_route_line_mc(line, nd->name, &rt) &&
		    nd->n_mc_route++ < DOC_MC_ROUTES)
			nd->mc_route[nd->n_mc_route - 1] = rt;
	fclose(f);
}

static void gather_roce_qos(struct doc_netdev *nd);

static void gather_netdev(struct doc_netdev *nd)
{
	char buf[64];
	uint64_t v;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), NET_SYSFS "/%s", nd->name);
	nd->present = exists(path);
	if (!nd->present)
		return;
	read_linef(nd->operstate, sizeof(nd->operstate),
		   NET_SYSFS "/%s/operstate", nd->name);
	snprintf(path, sizeof(path), NET_SYSFS "/%s/flags", nd->name);
	if (!read_u64(path, &v)) {
		nd->flags_known = true;
		nd->flags = (unsigned int)v;
	}
	snprintf(path, sizeof(path), NET_SYSFS "/%s/mtu", nd->name);
	if (!read_u64(path, &v))
		nd->mtu = (unsigned int)v;
	snprintf(path, sizeof(path), NET_SYSFS "/%s/ifindex", nd->name);
	if (!read_u64(path, &v))
		nd->ifindex = (unsigned int)v;
	if (!read_linef(buf, sizeof(buf), NET_SYSFS "/%s/mode", nd->name))
		str_copy(nd->mode, sizeof(nd->mode), buf);
	gather_ipv4(nd);
	gather_mc_route(nd);
}

/*
 * The IPoIB netdev of an IB port, as the kernel side picks it: an
 * ARPHRD_INFINIBAND netdev whose hardware address carries GID 0, the
 * lowest ifindex first (the parent, not its P_Key children).
 */
static void find_ipoib(const char *dev, unsigned int port, char *out,
		       size_t len)
{
	char gid[64], addr[96];
	uint64_t type, ifindex, best = UINT64_MAX;
	char path[PATH_MAX];
	char **names;
	size_t n, i;

	out[0] = '\0';
	if (read_linef(gid, sizeof(gid), IB_SYSFS "/%s/ports/%u/gids/0",
		       dev, port))
		return;
	names = list_dir(NET_SYSFS, &n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), NET_SYSFS "/%s/type", names[i]);
		if (read_u64(path, &type) || type != ARPHRD_INFINIBAND_TYPE)
			continue;
		if (read_linef(addr, sizeof(addr), NET_SYSFS "/%s/address",
			       names[i]) ||
		    !doc_ipoib_addr_has_gid(addr, gid))
			continue;
		snprintf(path, sizeof(path), NET_SYSFS "/%s/ifindex", names[i]);
		if (read_u64(path, &ifindex))
			ifindex = UINT64_MAX - 1;
		if (ifindex < best) {
			best = ifindex;
			str_copy(out, len, names[i]);
		}
	}
	free_list(names, n);
}

static void gather_port(struct doctor *d, const char *dev, unsigned int num,
			struct doc_port *p)
{
	const struct kport *k = kport_find(d, dev, num);
	char buf[64], path[PATH_MAX];
	uint64_t v;

	memset(p, 0, sizeof(*p));
	str_copy(p->dev, sizeof(p->dev), dev);
	p->port = num;
	p->state = read_linef(buf, sizeof(buf), IB_SYSFS "/%s/ports/%u/state",
			      dev, num) ? -1 : doc_sysfs_enum(buf);
	p->phys_state = read_linef(buf, sizeof(buf),
				   IB_SYSFS "/%s/ports/%u/phys_state",
				   dev, num) ? -1 : doc_sysfs_enum(buf);
	p->link_layer = IBTICK_LINK_LAYER_UNSPEC;
	if (!read_linef(buf, sizeof(buf), IB_SYSFS "/%s/ports/%u/link_layer",
			dev, num)) {
		if (!strcmp(buf, "InfiniBand"))
			p->link_layer = IBTICK_LINK_LAYER_INFINIBAND;
		else if (!strcmp(buf, "Ethernet"))
			p->link_layer = IBTICK_LINK_LAYER_ETHERNET;
	}
	snprintf(path, sizeof(path), IB_SYSFS "/%s/ports/%u/lid", dev, num);
	if (!read_u64(path, &v)) {
		p->lid = (uint32_t)v;
		snprintf(path, sizeof(path), IB_SYSFS "/%s/ports/%u/sm_lid",
			 dev, num);
		if (!read_u64(path, &v)) {
			p->sm_lid = (uint32_t)v;
			p->lid_known = true;
		}
	}
	if (k) {
		p->active_mtu = k->active_mtu;
		p->max_mtu = k->max_mtu;
	}

	/* the netdev: sysfs first for RoCE, the kernel's choice for IPoIB */
	if (p->link_layer == IBTICK_LINK_LAYER_ETHERNET)
		read_linef(p->nd.name, sizeof(p->nd.name),
			   IB_SYSFS "/%s/ports/%u/gid_attrs/ndevs/0", dev, num);
	if (!p->nd.name[0] && k && k->netdev[0])
		str_copy(p->nd.name, sizeof(p->nd.name), k->netdev);
	if (!p->nd.name[0] && p->link_layer == IBTICK_LINK_LAYER_INFINIBAND)
		find_ipoib(dev, num, p->nd.name, sizeof(p->nd.name));
	if (p->nd.name[0])
		gather_netdev(&p->nd);
	if (p->nd.present && p->link_layer == IBTICK_LINK_LAYER_ETHERNET)
		gather_roce_qos(&p->nd);
	if (k && k->ifindex && !p->nd.ifindex)
		p->nd.ifindex = k->ifindex;
}

/* The PCIe link of device @name, when its bus device reports one. */
static void gather_pcie(const char *name, struct doc_dev *dd)
{
	char buf[32];

	if (!read_linef(buf, sizeof(buf), IB_SYSFS "/%s/device/current_link_width", name))
		dd->pci_width = (unsigned int)strtoul(buf, NULL, 10);
	if (!read_linef(buf, sizeof(buf), IB_SYSFS "/%s/device/max_link_width", name))
		dd->pci_max_width = (unsigned int)strtoul(buf, NULL, 10);
	read_linef(dd->pci_speed, sizeof(dd->pci_speed),
		   IB_SYSFS "/%s/device/current_link_speed", name);
	read_linef(dd->pci_max_speed, sizeof(dd->pci_max_speed),
		   IB_SYSFS "/%s/device/max_link_speed", name);
}

static void gather_dev(struct doctor *d, const char *name, struct doc_dev *dd)
{
	char buf[64], path[PATH_MAX];
	char **ports;
	size_t n, i;

	memset(dd, 0, sizeof(*dd));
	str_copy(dd->name, sizeof(dd->name), name);
	dd->node_type = read_linef(buf, sizeof(buf), IB_SYSFS "/%s/node_type",
				   name) ? -1 : doc_sysfs_enum(buf);
	read_linef(dd->fw_ver, sizeof(dd->fw_ver), IB_SYSFS "/%s/fw_ver", name);
	read_linef(dd->model, sizeof(dd->model), IB_SYSFS "/%s/hca_type", name);

	/*
	 * Soft-RoCE names its Ethernet netdev in "parent"; whatever its
	 * "device" link points at (the NIC, on some kernels) is not its own.
	 */
	if (!read_linef(buf, sizeof(buf), IB_SYSFS "/%s/parent", name)) {
		snprintf(dd->driver, sizeof(dd->driver), "rxe (on %.*s)",
			 DOC_IFNAME_LEN, buf);
		dd->software = true;
	} else {
		/* the bus device: its name is in its interrupts' names */
		snprintf(path, sizeof(path), IB_SYSFS "/%s/device", name);
		if (link_base(path, dd->busid, sizeof(dd->busid)))
			dd->software = true;	/* no device at all */
		snprintf(path, sizeof(path), IB_SYSFS "/%s/device/driver",
			 name);
		if (link_base(path, dd->driver, sizeof(dd->driver)))
			dd->driver[0] = '\0';
		gather_pcie(name, dd);
	}

	snprintf(path, sizeof(path), IB_SYSFS "/%s/ports", name);
	ports = list_dir(path, &n);
	dd->first_port = d->h.n_ports;
	for (i = 0; i < n; i++) {
		char *end;
		unsigned long num = strtoul(ports[i], &end, 10);

		if (*end || !num || num > UINT_MAX)
			continue;
		d->h.ports = grow(d->h.ports, d->h.n_ports, sizeof(*d->h.ports));
		gather_port(d, name, (unsigned int)num,
			    &d->h.ports[d->h.n_ports++]);
		dd->n_ports++;
	}
	free_list(ports, n);
}

static void gather_sysfs(struct doctor *d)
{
	char **names;
	size_t n, i;

	names = list_dir(IB_SYSFS, &n);
	for (i = 0; i < n; i++) {
		d->h.devs = grow(d->h.devs, d->h.n_devs, sizeof(*d->h.devs));
		gather_dev(d, names[i], &d->h.devs[d->h.n_devs++]);
	}
	free_list(names, n);
}

/* ---- port error counters ----------------------------------------------- */

/* One pass over a port's counters/ or hw_counters/ (sysfs_port_counters). */
struct counter_pass {
	struct port_counters	*pc;
	bool			hw;
	bool			first;	/* record "before"; else update "after" */
};

static void on_counter(const char *name, uint64_t v, void *arg)
{
	struct counter_pass *cp = arg;
	struct port_counters *pc = cp->pc;
	size_t j;

	if (!cp->first) {
		for (j = 0; j < pc->n; j++)
			if (pc->hw[j] == cp->hw && !strcmp(pc->c[j].name, name))
				pc->c[j].after = v;
		return;
	}
	if (cp->hw ? !doc_hw_counter_is_error(name) :
		      !doc_pma_counter_is_error(name))
		return;
	pc->hw = grow(pc->hw, pc->n, sizeof(*pc->hw));
	pc->hw[pc->n] = cp->hw;
	pc->c = grow(pc->c, pc->n, sizeof(*pc->c));
	memset(&pc->c[pc->n], 0, sizeof(pc->c[pc->n]));
	str_copy(pc->c[pc->n].name, sizeof(pc->c[pc->n].name), name);
	pc->c[pc->n].before = v;
	pc->c[pc->n].after = v;
	pc->n++;
}

/* The error counters of every port: their first reading, or the second. */
static void counters_read(struct doctor *d, bool first)
{
	size_t i;
	int hw;

	for (i = 0; i < d->h.n_ports; i++) {
		for (hw = 0; hw <= 1; hw++) {
			struct counter_pass cp = {
				.pc = &d->pc[i], .hw = hw, .first = first,
			};

			sysfs_port_counters(d->h.ports[i].dev, d->h.ports[i].port,
					    hw ? "hw_counters" : "counters",
					    on_counter, &cp);
		}
	}
}

static void counters_first(struct doctor *d)
{
	d->pc = calloc(d->h.n_ports ? d->h.n_ports : 1, sizeof(*d->pc));
	if (!d->pc) {
		fprintf(stderr, "ibtick: out of memory\n");
		exit(EXIT_FAIL);
	}
	counters_read(d, true);
	clock_gettime(CLOCK_MONOTONIC, &d->t0);
}

/*
 * The second reading, the rest of the interval after the first (not with
 * --fast, nor when no port has error counters), then the counters as
 * doc_run() takes them.
 */
static void counters_second(struct doctor *d)
{
	struct timespec now, left;
	double elapsed, rest;
	bool any = false;
	size_t i;

	for (i = 0; i < d->h.n_ports; i++)
		any |= d->pc[i].n > 0;
	if (any && !d->fast && d->interval > 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (double)(now.tv_sec - d->t0.tv_sec) +
			  (double)(now.tv_nsec - d->t0.tv_nsec) / 1e9;
		rest = d->interval - elapsed;
		if (rest > 0) {
			left.tv_sec = (time_t)rest;
			left.tv_nsec = (long)((rest - (double)left.tv_sec) * 1e9);
			while (nanosleep(&left, &left) && errno == EINTR)
				;
		}
		counters_read(d, false);
	}
	d->h.counters = calloc(d->h.n_ports ? d->h.n_ports : 1, sizeof(*d->h.counters));
	if (!d->h.counters) {
		fprintf(stderr, "ibtick: out of memory\n");
		exit(EXIT_FAIL);
	}
	for (i = 0; i < d->h.n_ports; i++) {
		struct doc_counters *k = &d->h.counters[i];

		str_copy(k->dev, sizeof(k->dev), d->h.ports[i].dev);
		k->port = d->h.ports[i].port;
		k->interval = d->interval;
		k->growth = !d->fast && d->interval > 0;
		k->c = d->pc[i].c;
		k->n = d->pc[i].n;
	}
}

/* ---- firmware ----------------------------------------------------------- */

static bool find_exe(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	char *save = NULL, *dir;

	snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/usr/sbin:/bin:/sbin",
		 path ? path : "");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (!*dir)
			continue;
		snprintf(out, len, "%s/%s", dir, prog);
		if (!access(out, X_OK))
			return true;
	}
	return false;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Run @exe with @argv, stdin and stderr on /dev/null, for at most
 * @timeout_ms; the start of its standard output in @buf (NUL-terminated,
 * the rest drained).  0 when it ran (*@timed_out says whether it had to be
 * killed), -1 when it could not be started.  It runs in a process group
 * of its own, so that a stuck one is killed with whatever it started.
 */
static int run_capture(const char *exe, char *const argv[], char *buf,
		       size_t len, long timeout_ms, bool *timed_out)
{
	struct timespec t0;
	size_t used = 0;
	int fds[2], status;
	pid_t pid;

	*timed_out = false;
	buf[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		setpgid(0, 0);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		dup2(fds[1], STDOUT_FILENO);
		execv(exe, argv);
		_exit(127);
	}
	setpgid(pid, pid);	/* both sides: no race with the exec */
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long left = timeout_ms - ms_since(&t0);
		char sink[256];
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			*timed_out = true;
			break;
		}
		if (used + 1 < len)
			n = read(fds[0], buf + used, len - 1 - used);
		else		/* keep only the start; drain the rest */
			n = read(fds[0], sink, sizeof(sink));
		if (n <= 0)
			break;
		if (used + 1 < len)
			used += (size_t)n;
	}
	buf[used] = '\0';
	close(fds[0]);
	/* EOF: it should be exiting; give it what is left of the time */
	while (!*timed_out && waitpid(pid, &status, WNOHANG) == 0) {
		if (ms_since(&t0) >= timeout_ms)
			*timed_out = true;
		else
			usleep(10000);
	}
	if (*timed_out) {
		/* stuck: the group of the child we started */
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	return 0;
}

/*
 * RoCE port netdev @nd: PFC from "dcb pfc show dev NAME prio-pfc"
 * ("prio-pfc 0:off 1:off 2:off 3:on ..."), the trust mode from "dcb app
 * show dev NAME dscp-prio" (any DSCP mapping: dscp), ECN from the sysfs
 * ecn/roce_np and ecn/roce_rp directories of drivers that have them.
 */
static void gather_roce_qos(struct doc_netdev *nd)
{
	char exe[PATH_MAX], buf[512], path[PATH_MAX];
	char a0[] = "dcb", a1[] = "pfc", a2[] = "show", a3[] = "dev", a5[] = "prio-pfc";
	char b1[] = "app", b5[] = "dscp-prio";
	char *argv[] = { a0, a1, a2, a3, nd->name, a5, NULL };
	bool late;
	int prio, which;

	nd->ecn_np = nd->ecn_rp = -1;
	for (which = 0; which < 2; which++)
		for (prio = 0; prio < 8; prio++) {
			char v[8];
			int *mask = which ? &nd->ecn_rp : &nd->ecn_np;

			snprintf(path, sizeof(path), NET_SYSFS "/%s/ecn/%s/enable/%d",
				 nd->name, which ? "roce_rp" : "roce_np", prio);
			if (read_line(path, v, sizeof(v)))
				continue;
			if (*mask < 0)
				*mask = 0;
			if (!strcmp(v, "1"))
				*mask |= 1 << prio;
		}
	nd->dcb_found = find_exe("dcb", exe, sizeof(exe));
	if (!nd->dcb_found)
		return;
	if (run_capture(exe, argv, buf, sizeof(buf), 2000, &late) || late) {
		snprintf(nd->dcb_error, sizeof(nd->dcb_error), "%s", late ? "timed out" : "cannot run");
		return;
	}
	if (!strstr(buf, "prio-pfc")) {
		snprintf(nd->dcb_error, sizeof(nd->dcb_error), "not supported by this interface");
		return;
	}
	nd->pfc_known = true;
	for (prio = 0; prio < 8; prio++) {
		char on[8];

		snprintf(on, sizeof(on), " %d:on", prio);
		if (strstr(buf, on))
			doc_appendf(nd->pfc_on, sizeof(nd->pfc_on), "%s%d",
				    nd->pfc_on[0] ? "," : "", prio);
	}
	argv[1] = b1;
	argv[5] = b5;
	if (!run_capture(exe, argv, buf, sizeof(buf), 2000, &late) && !late)
		snprintf(nd->trust, sizeof(nd->trust), "%s", strchr(buf, ':') ? "dscp" : "pcp");
}

/* "ofed_info -s" (MLNX_OFED), at most OFED_TIMEOUT_MS; never fails. */
static void run_ofed_info(struct doc_fw *fw)
{
	char arg0[] = "ofed_info", arg1[] = "-s";
	char *const argv[] = { arg0, arg1, NULL };
	char exe[PATH_MAX], buf[512];
	size_t used;
	char *p;

	fw->ofed[0] = '\0';
	fw->ofed_found = find_exe("ofed_info", exe, sizeof(exe));
	if (!fw->ofed_found ||
	    run_capture(exe, argv, buf, sizeof(buf), OFED_TIMEOUT_MS, &fw->ofed_timeout))
		return;
	/* first line, without the trailing ':' it prints */
	p = strchr(buf, '\n');
	if (p)
		*p = '\0';
	used = strlen(buf);
	while (used && (buf[used - 1] == ':' ||
			isspace((unsigned char)buf[used - 1])))
		buf[--used] = '\0';
	str_copy(fw->ofed, sizeof(fw->ofed), buf);
}

/* The kernel and ofed_info, for the firmware lines of the devices. */
static void gather_fw(struct doctor *d)
{
	struct utsname u;

	if (!d->h.n_devs)
		return;
	if (!uname(&u))
		str_copy(d->h.fw.kernel, sizeof(d->h.fw.kernel), u.release);
	run_ofed_info(&d->h.fw);
}

/* ---- CPUs and interrupts ------------------------------------------------ */

/* The enabled idle states of CPU @c that take over DOC_DEEP_IDLE_US to leave. */
static void gather_cpuidle(const struct doctor *d, struct doc_cpu *c)
{
	char buf[32], name[16];
	unsigned int k;
	uint64_t lat;

	for (k = 0; k < 32; k++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/cpu%u/cpuidle/state%u/latency",
			 d->cpu_root, c->cpu, k);
		if (read_u64(path, &lat))
			break;
		c->has_cpuidle = true;
		if (lat <= DOC_DEEP_IDLE_US)
			continue;
		if (!read_linef(buf, sizeof(buf), "%s/cpu%u/cpuidle/state%u/disable",
				d->cpu_root, c->cpu, k) && strcmp(buf, "0"))
			continue;	/* disabled: cannot be entered */
		if (read_linef(name, sizeof(name), "%s/cpu%u/cpuidle/state%u/name",
			       d->cpu_root, c->cpu, k))
			snprintf(name, sizeof(name), "state%u", k);
		c->deep_states++;
		if (lat > c->deep_latency_us)
			c->deep_latency_us = (unsigned int)lat;
		doc_appendf(c->deep_names, sizeof(c->deep_names), "%s%s",
			    c->deep_names[0] ? ", " : "", name);
	}
}

static void gather_cpu(const struct doctor *d, unsigned int cpu,
		       struct doc_cpu *c)
{
	char path[PATH_MAX], buf[16];

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	snprintf(path, sizeof(path), "%s/cpu%u", d->cpu_root, cpu);
	c->present = exists(path);
	if (!c->present)
		return;
	/* cpu0 often has no "online" file: it cannot go offline */
	c->online = read_linef(buf, sizeof(buf), "%s/cpu%u/online",
			       d->cpu_root, cpu) || strcmp(buf, "0");
	c->has_cpufreq = !read_linef(c->governor, sizeof(c->governor),
				     "%s/cpu%u/cpufreq/scaling_governor",
				     d->cpu_root, cpu);
	gather_cpuidle(d, c);
	c->isolated = doc_cpuset_has(&d->isolated, cpu);
	c->nohz_full = doc_cpuset_has(&d->nohz_full, cpu);
}

/* The CPUs online, and those that matter: --app-cpus and busy-poll CPUs. */
/*
 * For each gathered CPU, the interrupts of devices other than the RDMA
 * devices (those are irq-affinity's) whose affinity allows it.
 */
static void gather_other_irqs(struct doctor *d)
{
	char *line = NULL;
	size_t cap = 0, i, k;
	FILE *f;

	f = fopen("/proc/interrupts", "re");
	if (!f)
		return;
	for (i = 0; i < d->h.n_cpus; i++)
		d->h.cpus[i].irqs_read = true;
	while (getline(&line, &cap, f) > 0) {
		char name[64], buf[1024];
		struct doc_cpuset set;
		unsigned int irq;
		bool rdma = false;

		if (doc_irq_parse_line(line, &irq, name, sizeof(name)))
			continue;	/* the header, NMI:, LOC:, ... */
		for (k = 0; k < d->h.n_devs && !rdma; k++)
			rdma = doc_irq_line_names(line, d->h.devs[k].name,
						  d->h.devs[k].busid);
		if (rdma ||
		    read_linef(buf, sizeof(buf), "/proc/irq/%u/smp_affinity_list", irq) ||
		    doc_cpuset_parse(buf, &set))
			continue;
		for (i = 0; i < d->h.n_cpus; i++) {
			struct doc_cpu *c = &d->h.cpus[i];

			if (!doc_cpuset_has(&set, c->cpu))
				continue;
			if (c->n_other_irqs++ < 6) {
				doc_appendf(c->other_irqs, sizeof(c->other_irqs), "%s%u (%s)",
					    c->other_irqs[0] ? ", " : "", irq, name);
				doc_appendf(c->other_irq_nums, sizeof(c->other_irq_nums),
					    "%s%u", c->other_irq_nums[0] ? " " : "", irq);
			} else if (c->n_other_irqs == 7) {
				doc_appendf(c->other_irqs, sizeof(c->other_irqs), ", ...");
				doc_appendf(c->other_irq_nums, sizeof(c->other_irq_nums), " ...");
			}
		}
	}
	fclose(f);
	free(line);
}

static void gather_cpus(struct doctor *d)
{
	struct doc_cpuset poll, all;
	char buf[1024];
	unsigned int cpu;

	if (read_linef(buf, sizeof(buf), "%s/online", d->cpu_root) ||
	    doc_cpuset_parse(buf, &d->h.online))
		doc_cpuset_zero(&d->h.online);
	/* "" or "(null)" when the kernel command line set none */
	if (read_linef(buf, sizeof(buf), "%s/isolated", d->cpu_root) ||
	    doc_cpuset_parse(buf, &d->isolated))
		doc_cpuset_zero(&d->isolated);
	if (read_linef(buf, sizeof(buf), "%s/nohz_full", d->cpu_root) ||
	    doc_cpuset_parse(buf, &d->nohz_full))
		doc_cpuset_zero(&d->nohz_full);
	doc_poll_cpus(d->h.feeds, d->h.n_feeds, &poll);
	doc_cpuset_or(&all, &d->h.app, &poll);
	for (cpu = 0; cpu < DOC_MAX_CPUS; cpu++) {
		if (!doc_cpuset_has(&all, cpu))
			continue;
		d->h.cpus = grow(d->h.cpus, d->h.n_cpus, sizeof(*d->h.cpus));
		gather_cpu(d, cpu, &d->h.cpus[d->h.n_cpus++]);
	}
	gather_other_irqs(d);
}

/* The completion interrupts of @dd in /proc/interrupts, and their CPUs. */
static void gather_irqs(struct doc_dev *dd)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/interrupts", "re");
	while (f && getline(&line, &cap, f) > 0) {
		char name[64], buf[1024];
		unsigned int irq;
		struct doc_irq *q;

		if (doc_irq_parse_line(line, &irq, name, sizeof(name)) ||
		    !doc_irq_line_names(line, dd->name, dd->busid))
			continue;
		dd->n_named++;
		if (!doc_irq_is_completion(name))
			continue;	/* async, command, page events */
		dd->irqs = grow(dd->irqs, dd->n_irqs, sizeof(*dd->irqs));
		q = &dd->irqs[dd->n_irqs];
		memset(q, 0, sizeof(*q));
		q->irq = irq;
		q->vector = doc_irq_vector(name);
		str_copy(q->name, sizeof(q->name), name);
		/* where it runs now; else where it may run */
		if ((read_linef(buf, sizeof(buf),
				"/proc/irq/%u/effective_affinity_list", irq) ||
		     !buf[0] || doc_cpuset_parse(buf, &q->cpus)) &&
		    (read_linef(buf, sizeof(buf),
				"/proc/irq/%u/smp_affinity_list", irq) ||
		     doc_cpuset_parse(buf, &q->cpus)))
			continue;	/* gone meanwhile */
		dd->n_irqs++;
	}
	if (f)
		fclose(f);
	free(line);
}

/* ---- the run ------------------------------------------------------------ */

static void doctor_free(struct doctor *d)
{
	size_t i;

	ibt_nl_close(&d->nl);
	for (i = 0; d->pc && i < d->h.n_ports; i++) {
		free(d->pc[i].c);
		free(d->pc[i].hw);
	}
	for (i = 0; i < d->h.n_devs; i++)
		free(d->h.devs[i].irqs);
	free(d->pc);
	free(d->h.counters);
	free(d->h.cpus);
	free(d->h.ports);
	free(d->h.devs);
	free(d->h.feeds);
	free(d->kports);
	free(d->h.kdevs);
}

/* "--opt VALUE" or "--opt=VALUE"; NULL (after a message) when missing. */
static const char *opt_value(struct cli *c, const char *word, const char *opt)
{
	size_t n = strlen(opt);

	if (word[n] == '=')
		return word + n + 1;
	if (!c->argc) {
		fprintf(stderr, "ibtick: doctor %s needs a value\n", opt);
		return NULL;
	}
	return cli_next(c);
}

static bool is_opt(const char *word, const char *opt)
{
	size_t n = strlen(opt);

	return !strncmp(word, opt, n) && (word[n] == '\0' || word[n] == '=');
}

static int parse_args(struct cli *c, struct doctor *d)
{
	const char *w, *val;
	char *end;

	d->interval = 1;
	while ((w = cli_next(c))) {
		if (!strcmp(w, "help") || !strcmp(w, "-h") ||
		    !strcmp(w, "--help")) {
			doctor_usage(stdout);
			return -1;
		} else if (!strcmp(w, "--fast")) {
			d->fast = true;
		} else if (is_opt(w, "--app-cpus")) {
			val = opt_value(c, w, "--app-cpus");
			if (!val)
				goto usage;
			if (doc_cpuset_parse(val, &d->h.app)) {
				fprintf(stderr, "ibtick: doctor --app-cpus: \"%s\" is not a CPU list (e.g. 2,4-7; CPUs below %u)\n",
					val, DOC_MAX_CPUS);
				goto usage;
			}
		} else if (is_opt(w, "--interval")) {
			val = opt_value(c, w, "--interval");
			if (!val)
				goto usage;
			errno = 0;
			d->interval = strtod(val, &end);
			if (errno || end == val || *end ||
			    !isfinite(d->interval) || d->interval < 0 ||
			    d->interval > INTERVAL_MAX) {
				fprintf(stderr, "ibtick: doctor --interval: \"%s\" is not a number of seconds (0..%g)\n",
					val, INTERVAL_MAX);
				goto usage;
			}
		} else {
			fprintf(stderr, "ibtick: unknown doctor option \"%s\"\n", w);
			goto usage;
		}
	}
	if (d->fast)
		d->interval = 0;
	return 0;
usage:
	doctor_usage(stderr);
	return -2;
}

int cmd_doctor(struct cli *c)
{
	struct doctor *d;
	const char *root;
	size_t i;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "ibtick: out of memory\n");
		return EXIT_FAIL;
	}
	ret = parse_args(c, d);
	if (ret) {
		free(d);
		return ret == -1 ? EXIT_OK : EXIT_USAGE;
	}
	root = getenv("IBTICK_CPU_SYSFS");
	d->cpu_root = root && *root ? root : CPU_SYSFS;

	/* gather: the first counter reading, the rest, the second reading */
	gather_module(d);
	if (d->h.mod.family)
		gather_kernel(d);
	gather_sysfs(d);
	counters_first(d);
	gather_fw(d);
	for (i = 0; i < d->h.n_devs; i++)
		if (!doc_dev_is_iwarp(&d->h.devs[i]))
			gather_irqs(&d->h.devs[i]);
	gather_cpus(d);
	counters_second(d);

	/* decide (doctor_checks.c) */
	out_arr_open(NULL);
	doc_run(&d->h, emit, d);
	out_arr_close();

	out_text("%u pass, %u warn, %u fail\n", d->tally.pass, d->tally.warn,
		 d->tally.fail);
	ret = doc_tally_exit(&d->tally) ? EXIT_FAIL : EXIT_OK;
	doctor_free(d);
	free(d);
	return ret;
}
