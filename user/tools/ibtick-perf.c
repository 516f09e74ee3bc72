// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-perf: latency and rate of ibtick feeds, measured the way perftest
 * and sockperf measure (so the numbers line up with ib_send_lat's).
 *
 *   ibtick-perf lat    [opts] LOCAL [-I IF2 | -e] GROUP PORT   ping-pong, 1/2 RTT
 *   ibtick-perf oneway [opts] LOCAL -I IF2 GROUP PORT          send -> read
 *   ibtick-perf rate   [opts] LOCAL -I IF2 GROUP PORT          loss against rate
 *   ibtick-perf fanout [opts] LOCAL -I IF2 GROUP PORT          N readers on a feed
 *   ibtick-perf arb    [opts] LOCAL -I IF2 --rail-b IF --peer-rail-b IF GROUP PORT
 *                      an arbitrated feed of two rails against rail A alone
 *
 * LOCAL is this side's netdev (the reader's): -L IF, or in perftest's words
 * -d DEV [-i PORT] [-x GID_INDEX] (user/bench/ibport.c finds the netdev).
 * -I is the other side's netdev: that side
 * (echo, publisher) runs in a child process on the same host.  Without
 * -I, `lat` expects `ibtick-perf lat -e` on the other host.  Feeds: PORT
 * (and PORT + 1 for lat's way back; fanout uses PORT, PORT + 1, ... per
 * reader count).  See ibtick-perf(1).
 *
 * Every sample is kept: the maximum is the true one and the percentiles
 * are exact (nearest rank); warm-up samples are not counted.
 */
#include <arpa/inet.h>
#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "ibport.h"
#include "kcount.h"
#include "latstats.h"
#include "libibtick.h"
#include "tickrd.h"
#include "udppp.h"

#define NUM(arg, min, max)	arg_num(PROG, arg, min, max)
#define PROG		"ibtick-perf"
#define MAX_MSG		4096
#define PROBE_MAGIC	0x69627466u	/* "ibtf": our own payloads */
#define PERFTEST_PORT	18515		/* perftest's out-of-band TCP port */

enum mode { M_LAT, M_ONEWAY, M_RATE, M_FANOUT, M_ARB };

/*
 * What lat measures, one row each: the four reader kinds (tickrd), then
 * the mapped reader with the feeds' busy-poll threads, and the references
 * run the same way on the same netdevs.
 */
enum path {
	P_KPOLL = TICKRD_NKINDS,	/* epoll reader, the feed's busy-poll thread spins */
	P_BUSY_PREFER,			/* busy, with SO_PREFER_BUSY_POLL */
	P_SPIN_1G,			/* recv(MSG_DONTWAIT) + SO_BUSY_POLL spin, one
				 * group both ways: as sockperf --nonblocked */
	P_RECVMSG_1G,			/* recvmsg, one group both ways */
	P_FLOOR,			/* ib_send_lat -c UD */
	P_UDP,				/* sockperf, blocking recvfrom */
	P_UDP_SPIN,			/* sockperf --nonblocked: spins */
	P_RUN,				/* P_UDP under ibtick-run: over feeds */
	P_RUN_SPIN,			/* P_UDP_SPIN under ibtick-run */
	P_FLOOR_RC,			/* ib_send_lat -c RC */
	P_CONN,				/* an ibtick connection, blocking recv */
	P_CONN_SPIN,			/* ... recv(MSG_DONTWAIT) in a loop */
	P_TCP,				/* sockperf over TCP, blocking */
	P_TCP_SPIN,			/* ... --nonblocked */
	P_CONN_MAP,			/* a connection's mapped ring, spinning */
	P_INET,				/* our own AF_INET ping-pong (udppp), blocking */
	P_INET_SPIN,			/* ... O_NONBLOCK, spinning on recvfrom */
	P_INET_RUN,			/* P_INET under ibtick-run: over feeds */
	P_INET_RUN_SPIN,		/* P_INET_SPIN under ibtick-run */
	P_NPATHS,
};

static const char *const path_names[P_NPATHS] = {
	"mapped", "epoll", "recvmsg", "busy", "kpoll", "busy-prefer", "spin-1g",
	"recvmsg-1g", "floor", "udp",
	"udp-spin", "run", "run-spin", "floor-rc", "conn", "conn-spin", "tcp",
	"tcp-spin", "conn-map", "inet", "inet-spin", "inet-run", "inet-run-spin",
};

/* Whether the path's receiver spins on a CPU or sleeps until woken. */
static const char *const path_class[P_NPATHS] = {
	"spin", "sleep", "sleep", "spin", "spin", "spin", "spin", "sleep",
	"spin", "sleep", "spin", "sleep", "spin", "spin", "sleep", "spin",
	"sleep", "spin", "spin", "sleep", "spin", "sleep", "spin",
};

/*
 * In o.paths[]: the path spinning without busy polling, named KIND-ev
 * (spin-1g-ev, inet-run-spin-ev, run-spin-ev): its reader takes what the
 * CQ event brings with non-blocking reads, as --busy-us 0 makes every
 * busy reader do; one lat runs both kinds in the same rounds.
 */
#define PATH_EV		0x100

static bool path_has_ev(int path)
{
	return path == P_SPIN_1G || path == P_INET_RUN_SPIN || path == P_RUN_SPIN;
}

static const char *const mode_names[] = { "lat", "oneway", "rate", "fanout", "arb" };
#define NMODES	((int)(sizeof(mode_names) / sizeof(mode_names[0])))
#define kind_names tickrd_kind_names

/* arb's paths (see arb_run()) */
enum arb_path { AP_ARB, AP_RAIL, AP_ARB_COST, AP_RAIL_COST, AP_RAIL_B, AP_NPATHS };

/* The payload of every probe tick (the rest of the message is filler). */
struct probe {
	uint32_t	magic;
	uint32_t	step;		/* rate: which step; fanout: 0 */
	uint64_t	seq;		/* 0, 1, 2, ... per run or step */
	uint64_t	t_ns;		/* sender's CLOCK_REALTIME */
};

static struct {
	enum mode	mode;
	enum tickrd_kind kind;		/* the one being measured */
	int		paths[P_NPATHS];	/* enum tickrd_kind or enum path */
	int		nkinds;		/* of paths[] */
	int		path;		/* the one being measured */
	bool		ev;		/* ... is its KIND-ev (PATH_EV) */
	bool		kpoll;		/* lat: feeds in busy-poll mode, thread on the side's CPU */
	bool		prefer;		/* busy readers: SO_PREFER_BUSY_POLL too */
	bool		one_group;	/* lat: GROUP/PORT both ways (spin-1g, recvmsg-1g) */
	int		busy_us;	/* busy readers: SO_BUSY_POLL (0: 200) */
	int		prefer_defer;	/* --prefer-defer US; -1: not given */
	const char	*ifname, *ifname2, *group, *hist, *raw;
	const char	*peer;		/* lat --peer: the echo side's host */
	char		group2[64];	/* lat: the way back */
	char		group_udp[64];	/* lat: sockperf's group, no feed's */
	bool		counts;		/* lat: kernel work per round trip (kcount) */
	unsigned int	port;
	long		n, warm, size, size_max;
	bool		sweep, echo, json, compare;
	int		busy_cpu;	/* -2: interrupt mode */
	int		cpu, cpu2;	/* -1: not pinned */
	long		rate;		/* ticks/s; 0: as fast as possible */
	long		fanout[8];
	int		nfanout;
	int		timeout_ms;
	const char	*ifname_b, *ifname_b2;	/* arb: rail B's netdevs */
	char		group_b[64];	/* arb: rail B's group */
	int		arb[AP_NPATHS];	/* arb: enum arb_path, in order */
	int		narb;
	char		raw_name[32];	/* --raw: the file's name, if not the path's */
} o = {
	.n = 100000, .warm = 1000, .size = 64, .size_max = 1024,
	.busy_cpu = -2, .prefer_defer = -1, .cpu = -1, .cpu2 = -1, .rate = 10000,
	.fanout = { 1, 2, 4, 8, 16 }, .nfanout = 5, .timeout_ms = 2000,
};

static pid_t echo_child = -1;

/* The echo child goes with us, whatever way we leave. */
static void kill_echo(void)
{
	if (echo_child > 0) {
		kill(echo_child, SIGTERM);
		waitpid(echo_child, NULL, 0);
		echo_child = -1;
	}
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool in_child;
static int *publisher_done;

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", PROG, what, strerror(errno));
	if (publisher_done)
		__atomic_store_n(publisher_done, 2, __ATOMIC_RELEASE);
	if (in_child)
		_exit(1);	/* not the parent's stdio buffers and atexit */
	exit(1);
}

/* Pin to @cpu; -1: every online CPU (undo what the parent had). */
static void pin(int cpu)
{
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	else
		for (i = 0; i < n && i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/*
 * fork(), the child dying with its parent (a benchmark killed by a
 * timeout must not leave spinners behind) and not flushing its stdio.
 */
static pid_t fork_child(void)
{
	pid_t parent = getpid(), pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		in_child = true;
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
	}
	return pid;
}

/* A child's exit status: 0 when it exited 0. */
static int child_failed(int status)
{
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

/* Shared memory a child writes its results into. */
static void *shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

/* ---- readers and publishers (user/bench/tickrd.c) -------------------- */

static void rdr_open(struct tickrd *d, enum tickrd_kind kind, const char *ifname,
		     const char *group, unsigned int port)
{
	struct tickrd_opts ro = {
		/* room for the largest swept size */
		.slot_size = o.sweep ? 2048 : 0,
		.busy_cpu = o.busy_cpu,
		.prefer_busy_poll = o.prefer,
		.busy_poll_us = o.ev ? -1 : o.busy_us,
		.nonblock = o.path == P_SPIN_1G,
	};

	if (tickrd_open(d, kind, group, port, ifname, &ro))
		die(d->failed);
}

/* tickrd_get(), dying on errors: -1 only when the feed is gone. */
static ssize_t rdr_get(struct tickrd *d, void *buf, size_t len,
		       uint64_t ts[2], int timeout_ms)
{
	ssize_t got = tickrd_get(d, buf, len, ts, timeout_ms);

	if (got < 0 && errno != ENODEV)
		die("reading the feed");
	return got;
}

static int pub_open(const char *ifname, const char *group, unsigned int port)
{
	int fd = ibtick_publisher_open(group, port, ifname);

	if (fd < 0)
		die("publisher: socket/connect (needs CAP_NET_RAW)");
	return fd;
}

static void pub_send(int fd, const void *buf, size_t len, uint64_t *eagain)
{
	if (tickrd_send(fd, buf, len, eagain))
		die("send");
}

/* ---- the environment every result carries ----------------------------- */

static void read_line(const char *path, const char *prefix, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *v;

		if (prefix && strncmp(line, prefix, strlen(prefix)))
			continue;
		v = prefix ? strchr(line, ':') : line;
		if (!v)
			continue;
		v += prefix ? 1 : 0;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = 0;
		snprintf(out, len, "%s", v);
		break;
	}
	free(line);
	fclose(f);
}

static struct {
	char kernel[128], cpu[128], governor[64], virt[32];
} env;

/* A ratio for JSON into @buf: null without a base to divide by. */
static const char *ratio_str(char buf[32], double v, double base)
{
	if (base <= 0)
		return "null";
	snprintf(buf, 32, "%.3f", v / base);
	return buf;
}

/* @s as a JSON string body: quotes, backslashes and controls escaped. */
static const char *jstr(const char *s)
{
	static char bufs[8][512];
	static int which;
	char *b = bufs[which++ & 7], *d = b;

	for (; *s && d < b + sizeof(bufs[0]) - 7; s++) {
		if (*s == '"' || *s == '\\') {
			*d++ = '\\';
			*d++ = *s;
		} else if ((unsigned char)*s < 0x20) {
			d += sprintf(d, "\\u%04x", (unsigned char)*s);
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
	return b;
}

static void env_read(void)
{
	struct utsname u;
	char flags[4096];

	uname(&u);
	snprintf(env.kernel, sizeof(env.kernel), "%s", u.release);
	read_line("/proc/cpuinfo", "model name", env.cpu, sizeof(env.cpu));
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		  NULL, env.governor, sizeof(env.governor));
	read_line("/proc/cpuinfo", "flags", flags, sizeof(flags));
	snprintf(env.virt, sizeof(env.virt), "none");
	if (strstr(flags, " hypervisor")) {
		unsigned int a, sig[3];

		/* the hypervisor's CPUID signature: KVM says so */
		__cpuid(0x40000000, a, sig[0], sig[1], sig[2]);
		(void)a;
		if (!memcmp(sig, "KVMKVMKVM", 9))
			snprintf(env.virt, sizeof(env.virt), "kvm");
		else if (!memcmp(sig, "TCGTCGTCGTCG", 12) || strstr(env.cpu, "QEMU"))
			snprintf(env.virt, sizeof(env.virt), "qemu-tcg");
		else
			snprintf(env.virt, sizeof(env.virt), "vm");
	} else if (strstr(env.cpu, "QEMU")) {
		snprintf(env.virt, sizeof(env.virt), "qemu-tcg");
	}
}

/* The busy readers' SO_BUSY_POLL: --busy-us, or 200 us; --busy-us 0 (-1 here): none. */
static int busy_us_opt(void)
{
	return o.busy_us < 0 ? 0 : o.busy_us ? o.busy_us : 200;
}

/* ... the current path's: none for a KIND-ev */
static int busy_us(void)
{
	return o.ev ? 0 : busy_us_opt();
}

/* The current path's name, with its -ev. */
static const char *path_name(void)
{
	static char buf[32];

	if (!o.ev)
		return path_names[o.path];
	snprintf(buf, sizeof(buf), "%s-ev", path_names[o.path]);
	return buf;
}

static void env_print(void)
{
	if (o.json) {
		printf("{\"env\":{\"kernel\":\"%s\",\"cpu\":\"%s\",\"governor\":\"%s\","
		       "\"virt\":\"%s\",\"if\":\"%s\",\"if2\":\"%s\",\"kernel_poll\":\"%s\","
		       "\"kernel_poll_cpu\":%d,\"cpu_pin\":%d,\"cpu2_pin\":%d,"
		       "\"busy_poll_us\":%d,\"prefer_defer_us\":%d}}\n",
		       jstr(env.kernel), jstr(env.cpu), jstr(env.governor), env.virt,
		       jstr(o.ifname), jstr(o.ifname2 ? o.ifname2 : ""),
		       o.busy_cpu >= -1 ? "busy" : "irq",
		       o.busy_cpu, o.cpu, o.cpu2, busy_us_opt(), o.prefer_defer);
		return;
	}
	printf("# %s %s, reader %s, kernel side %s%s, %s%s%s\n", PROG,
	       mode_names[o.mode], kind_names[o.kind],
	       o.busy_cpu >= -1 ? "busy-poll" : "interrupt",
	       o.busy_cpu >= 0 ? " (thread pinned)" : "", o.ifname,
	       o.ifname2 ? " <- " : "", o.ifname2 ? o.ifname2 : "");
	printf("# kernel %s, cpu %s, governor %s, virtualisation %s\n",
	       env.kernel, env.cpu, env.governor, env.virt);
	printf("# busy readers (busy, busy-prefer, run-spin): SO_BUSY_POLL %d us"
	       " (KIND-ev: none)\n", busy_us_opt());
	if (o.prefer_defer >= 0)
		printf("# busy-prefer: feeds with prefer-defer %d us\n", o.prefer_defer);
	if (!strcmp(env.virt, "qemu-tcg"))
		printf("# emulated CPU (TCG): absolute times are inflated; compare ratios\n");
}

/* One result row, perftest's columns (or its JSON keys). */
static void report(long size, uint64_t *lat, size_t n, const char *extra)
{
	struct latstats s;

	latstats_compute(&s, lat, n);
	if (o.json) {
		printf("{\"mode\":\"%s\",\"kind\":\"%s\",\"class\":\"%s\",\"MsgSize\":%ld,"
		       "\"n_iterations\":%zu,\"t_min\":%.2f,\"t_max\":%.2f,"
		       "\"t_typical\":%.2f,\"t_avg\":%.2f,\"t_stdev\":%.2f,"
		       "\"percentile_99\":%.2f,\"percentile_99.9\":%.2f,"
		       "\"percentile_99.99\":%.2f%s%s}\n",
		       mode_names[o.mode], path_name(), path_class[o.path], size, s.n,
		       s.min / 1e3, s.max / 1e3, s.typical / 1e3, s.avg / 1e3, s.stdev / 1e3,
		       s.p99 / 1e3, s.p99_9 / 1e3, s.p99_99 / 1e3, extra ? "," : "",
		       extra ? extra : "");
	} else {
		latstats_print_row(stdout, (size_t)size, &s);
		if (extra)
			printf("#   %s\n", extra);
	}
	fflush(stdout);
}

static void hist_out(uint64_t *lat, size_t n, const char *what);

/* ---- --compare: the verbs floor and kernel UDP in the same boot ------- */

/* A latency row as the three tools report it, microseconds (-1: n/a). */
struct row {
	char	name[96];
	double	n, min, max, typical, avg, p99, p999, p9999;
	bool	ok;
};

/* The RDMA device whose port 1 carries netdev @ifname (Soft-RoCE, RoCE). */
static int rdma_dev_of(const char *ifname, char *dev, size_t len)
{
	char path[512], nd[64];
	struct dirent *e;
	DIR *d = opendir("/sys/class/infiniband");

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 e->d_name);
		read_line(path, NULL, nd, sizeof(nd));
		if (!strcmp(nd, ifname) && strlen(e->d_name) < len) {
			memcpy(dev, e->d_name, strlen(e->d_name) + 1);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}

/* The first IPv4 address of @ifname, dotted. */
static int ipv4_of(const char *ifname, char *ip, size_t len)
{
	struct ifaddrs *ifa, *i;
	int rc = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    strcmp(i->ifa_name, ifname))
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			  ip, (socklen_t)len);
		rc = 0;
		break;
	}
	freeifaddrs(ifa);
	return rc;
}

/*
 * Start @argv pinned to @cpu (-1: not), its output into @out (NULL: to
 * /dev/null).  Returns the pid.
 */
static pid_t spawn(char *const argv[], int cpu, int *out)
{
	int p[2] = { -1, -1 };
	pid_t pid;

	if (out && pipe(p))
		die("pipe");
	pid = fork_child();
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		pin(cpu);
		dup2(out ? p[1] : null, 1);
		dup2(out ? p[1] : null, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", PROG, argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		close(p[1]);
		*out = p[0];
	}
	return pid;
}

static char *slurp(int fd, int timeout_s);

/* The ibtick(8) that --prefer-defer and arb run: IBTICK_CLI, else PATH's. */
static const char *ibtick_cli(void)
{
	const char *c = getenv("IBTICK_CLI");

	return c && *c ? c : "ibtick";
}

/*
 * --prefer-defer: the busy-prefer path reads a feed made for it with that
 * prefer-defer (ibtick feed add, ibtick_cli(); the name
 * ibtick-perf-PORT), deleted when the path is done; every other path, and
 * busy-prefer without the option, reads the feed its bind makes.  A
 * leftover of a killed run is deleted first.  @add false: delete.
 */
static void prefer_feed(const char *ifname, const char *group,
			unsigned int port, bool add)
{
	char name[32], ports[8], defer[16], *out;
	char *argv[16] = { (char *)ibtick_cli(), "feed", "del", name };
	int fd, st, k = 4;
	pid_t pid;

	if (!o.prefer || o.prefer_defer < 0)
		return;
	snprintf(name, sizeof(name), "ibtick-perf-%u", port);
	snprintf(ports, sizeof(ports), "%u", port);
	snprintf(defer, sizeof(defer), "%d", o.prefer_defer);
	/* del: what a killed run left (its failure is no error), or ours */
	pid = spawn(argv, -1, NULL);
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	if (!add)
		return;
	argv[2] = "add";
	argv[k++] = "group";
	argv[k++] = (char *)group;
	argv[k++] = "port";
	argv[k++] = ports;
	if (ifname) {
		argv[k++] = "netdev";
		argv[k++] = (char *)ifname;
	}
	argv[k++] = "prefer-defer";
	argv[k++] = defer;
	argv[k] = NULL;
	pid = spawn(argv, -1, &fd);
	out = slurp(fd, 60);
	close(fd);
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: ibtick feed add %s: %s", PROG, name,
			out ? out : "(no output)\n");
		errno = EIO;
		die("--prefer-defer needs ibtick in PATH (or IBTICK_CLI) and CAP_NET_ADMIN");
	}
	free(out);
}

/* Everything from @fd until EOF (or @timeout_s), NUL-terminated. */
static char *slurp(int fd, int timeout_s)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_s * 1000000000ULL;

	if (!buf)
		die("malloc");
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t got;

		if (now_ns(CLOCK_MONOTONIC) > end || poll(&pf, 1, 1000) < 0)
			break;
		if (!pf.revents)
			continue;
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				die("realloc");
			buf = nb;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	buf[len] = 0;
	close(fd);
	return buf;
}

/* End @pid (a server, or a client past its time) and collect it. */
static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* IBTICK_SLOW (as the VM tests use it): pacing pauses stretch by it. */
static unsigned int slow(void)
{
	const char *e = getenv("IBTICK_SLOW");
	long v = e ? strtol(e, NULL, 10) : 1;

	return v >= 1 && v <= 100 ? (unsigned int)v : 1;
}

/*
 * Wait until something on this host listens on TCP port @port (@tcp) or
 * has UDP port @port bound, as /proc/net says, for up to @secs seconds: a
 * server's readiness, for the servers (ib_send_lat, sockperf) that print
 * none we could wait for.  True when it does.
 */
static bool wait_port(bool tcp, unsigned int port, int secs)
{
	const char *files[] = { tcp ? "/proc/net/tcp" : "/proc/net/udp",
				tcp ? "/proc/net/tcp6" : "/proc/net/udp6" };
	char line[512];

	for (int i = 0; i < secs * 100; i++) {
		for (size_t k = 0; k < 2; k++) {
			FILE *f = fopen(files[k], "r");
			unsigned int lport, state;

			if (!f)
				continue;
			while (fgets(line, sizeof(line), f)) {
				/* "  N: LOCALADDR:PORT REMADDR:PORT ST ..." */
				char *c = strchr(line, ':');

				if (!c || !(c = strchr(c + 1, ':')) ||
				    sscanf(c + 1, "%x %*s %x", &lport, &state) != 2)
					continue;
				/* TCP: LISTEN (0A); UDP: any bound socket */
				if (lport == port && (!tcp || state == 0x0A)) {
					fclose(f);
					return true;
				}
			}
			fclose(f);
		}
		usleep(10000);
	}
	return false;
}

/* Device and address of each side, for the paths that are not ibtick's. */
static char dev_a[64], dev_b[64], ip_a[64], ip_b[64];

/* Kernel work counted around a row (--counts): before, and after. */
static struct kcount kc0, kc1;

static void counts_begin(void)
{
	if (o.counts)
		kcount_snap(&kc0, dev_a[0] ? dev_a : NULL, dev_b[0] ? dev_b : NULL);
}

/* The counts since counts_begin() per @rts round trips, as ,"per_rt":{...}. */
static void counts_end(char *buf, size_t len, double rts)
{
	char body[1536];

	buf[0] = 0;
	if (!o.counts)
		return;
	kcount_snap(&kc1, dev_a[0] ? dev_a : NULL, dev_b[0] ? dev_b : NULL);
	kcount_json(body, sizeof(body), &kc0, &kc1, rts, o.cpu, o.cpu2);
	snprintf(buf, len, ",\"per_rt\":{%s}", body);
}

/*
 * --raw PREFIX: the row's samples, ns, one a line, in the order they were
 * taken (so a stall can be placed in time), into PREFIX<path>.txt.
 */
static void raw_out(const uint64_t *lat, size_t n)
{
	char path[4096];
	FILE *f;
	size_t i;

	if (!o.raw)
		return;
	snprintf(path, sizeof(path), "%s%s.txt", o.raw,
		 o.raw_name[0] ? o.raw_name : path_name());
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 "\n", lat[i]);
	if (fclose(f))
		die(path);
}

/* Append @v to the growing array @a (@n used, @cap allocated). */
static void push(uint64_t **a, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		uint64_t *na = realloc(*a, (*cap = *cap ? *cap * 2 : 4096) * sizeof(**a));

		if (!na)
			die("realloc");
		*a = na;
	}
	(*a)[(*n)++] = v;
}

/*
 * lat -e of a path whose server is another program: say "echo ready" on
 * stderr once server @s listens (@up), then wait for it: the floor's ends
 * after its run, sockperf's when this process is killed (fork_child()'s
 * death signal takes it along).  True when it ended well.
 */
static bool serve_until(pid_t s, bool up)
{
	int status;

	if (!up) {
		kill(s, SIGKILL);
		errno = ETIMEDOUT;
		die("the server did not start listening");
	}
	fprintf(stderr, "%s: echo ready on %s\n", PROG, o.ifname);
	return waitpid(s, &status, 0) == s && !child_failed(status);
}

/*
 * ib_send_lat -c UD between the two netdevs' RDMA devices, every sample
 * kept (-U) so that the statistics are ours, computed as for every row:
 * o.n samples after o.warm warm-up ones.  @lat gets the samples (malloc'd,
 * the caller frees), @nlat their number; 0 when it gave none.  @extra:
 * the counts (--counts), or "".
 */
static void floor_run(uint64_t **lat, size_t *nlat, char *extra, size_t elen)
{
	char size[16], iters[24], *out = NULL, *line;
	char *qp = o.path == P_FLOOR_RC ? "RC" : "UD";
	char *srv[] = { "ib_send_lat", "-d", dev_b, "-c", qp, "-F", "-U",
			"-s", size, "-n", iters, NULL };
	char *cli[] = { "ib_send_lat", "-d", dev_a, "-c", qp, "-F", "-U",
			"-s", size, "-n", iters, ip_b, NULL };
	size_t cap = 0;
	pid_t s, c;
	int fd;

	*lat = NULL;
	*nlat = 0;
	extra[0] = 0;
	snprintf(size, sizeof(size), "%ld", o.size);
	/* -U prints iterations - 1 round trips */
	snprintf(iters, sizeof(iters), "%ld", o.n + o.warm + 1);
	/* a run that gives no usable row (seen once: every column "inf") is
	 * run again, up to three times */
	for (int run = 0; run < 3 && !*nlat; run++) {
		long i = 0;

		if (run)
			free(out);
		if (o.echo) {
			/*
			 * This side is the server (lat -e): one run per
			 * server, so a new one after each, for the pinging
			 * side's next run or retry, until this is killed
			 */
			for (int bad = 0; bad < 3;) {
				s = spawn(srv, o.cpu, NULL);
				if (!serve_until(s, wait_port(true, PERFTEST_PORT, 60)))
					bad++;	/* a run that failed: three in all end it */
			}
			die("ib_send_lat's server failed three times");
		}
		counts_begin();
		/* --peer: the server is the other host's lat -e */
		s = o.peer ? -1 : spawn(srv, o.cpu2, NULL);
		/*
		 * The server takes its client on perftest's TCP port once it has
		 * set up; a client that still finds nobody tries again.
		 */
		for (int tries = 0;; tries++) {
			if (s > 0 && !wait_port(true, PERFTEST_PORT, 60))
				fprintf(stderr, "%s: ib_send_lat's server is not listening on %d\n",
					PROG, PERFTEST_PORT);
			if (tries)
				usleep(100000);
			c = spawn(cli, o.cpu, &fd);
			out = slurp(fd, 600);
			reap(c);	/* also one that hung past slurp's limit */
			if (tries == 9 || !strstr(out, "Couldn't connect"))
				break;
			free(out);
		}
		if (s > 0)
			reap(s);
		counts_end(extra, elen, (double)(o.n + o.warm + 1));
		/* "#, usec" then "I, USEC" per round trip (half of it, as ours) */
		line = strstr(out, "#, usec");
		while (line && (line = strchr(line, '\n'))) {
			long idx;
			double us;

			line++;
			if (sscanf(line, "%ld, %lf", &idx, &us) != 2)
				break;
			if (!isfinite(us) || us <= 0) {
				*nlat = 0;
				break;
			}
			if (i++ >= o.warm && (long)*nlat < o.n)
				push(lat, nlat, &cap, (uint64_t)llround(us * 1e3));
		}
		if (!*nlat)
			fprintf(stderr, "%s: ib_send_lat gave no usable result:\n%s\n", PROG, out);
	}
	free(out);
}

/*
 * A new empty file ibtick-perf-@name.XXXXXX where the caller keeps its
 * temporary files (TMPDIR, else /tmp); its name into @path.
 */
static void tmp_file(char *path, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/ibtick-perf-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	close(fd);
}

/*
 * A reference's two ends on this host: server @srv (NULL: it runs on the
 * --peer host) pinned to the other side's CPU until it has bound @port
 * (TCP: listens), then client @cli pinned to this side's; both are reaped
 * once the client is done.  Returns the client's output (malloc'd).
 */
static char *serve_and_run(char **srv, char **cli, bool tcp, unsigned int port,
			   const char *what)
{
	pid_t s = srv ? spawn(srv, o.cpu2, NULL) : -1, c;
	char *out;
	int fd;

	if (s > 0 && !wait_port(tcp, port, 60))
		fprintf(stderr, "%s: %s did not bind port %u\n", PROG, what, port);
	c = spawn(cli, o.cpu, &fd);
	out = slurp(fd, 600);
	reap(c);
	if (s > 0)
		reap(s);
	return out;
}

/* lat -e of a reference: its server @srv on this side, until it ends. */
static void serve_only(char **srv, bool tcp, unsigned int port, const char *what)
{
	pid_t s = spawn(srv, o.cpu, NULL);

	if (!serve_until(s, wait_port(tcp, port, 60))) {
		fprintf(stderr, "%s: %s failed\n", PROG, what);
		errno = EIO;
		die("the server");
	}
}

/*
 * sockperf ping-pong over UDP multicast on the same netdevs, on a group no
 * feed uses: server on the -I side, client here, pinned as ours; its
 * latency is half the round trip, as ours.  @spin: both ends --nonblocked
 * (they spin on recvfrom), else they block in it.  Runs @seconds after
 * sockperf's own warm-up; keeps the first o.n samples of its full log.
 */
static void sockperf_run(bool spin, bool run, double seconds, uint64_t **lat,
			 size_t *nlat, char *extra, size_t elen)
{
	/*
	 * Spinning under ibtick-run: its busy polling (-b), so that each of
	 * sockperf's non-blocking reads drains the CQ, as the native spinning
	 * row's SO_BUSY_POLL reader does with the same time (busy_us());
	 * blocking: none,
	 * as the native blocking row
	 */
	char busy[12] = "0";
	char port[16], size[16], secs[16], log[PATH_MAX];
	char rule_a[96], rule_b[96];
	char *out, *p, line[256];
	/*
	 * @run: each end under ibtick-run, its group over an ibtick feed on
	 * its own netdev - the same sockperf, unmodified, on ibtick
	 */
	char *srv_all[] = { "ibtick-run", "-g", rule_b, "-b", busy, "--",
			"sockperf", "server", "-i", o.group_udp, "-p", port,
			"--mc-rx-if", ip_b, "--mc-tx-if", ip_b,
			spin ? "--nonblocked" : NULL, NULL };
	char *cli_all[] = { "ibtick-run", "-g", rule_a, "-b", busy, "--",
			"sockperf", "ping-pong", "-i", o.group_udp, "-p", port,
			"--mc-rx-if", ip_a, "--mc-tx-if", ip_a,
			"-m", size, "-t", secs, "--full-log", log,
			spin ? "--nonblocked" : NULL, NULL };
	/* TCP: the server on the -I side's address, the client to it */
	char *srv_tcp[] = { "sockperf", "server", "--tcp", "-i", ip_b, "-p", port,
			    spin ? "--nonblocked" : NULL, NULL };
	char *cli_tcp[] = { "sockperf", "ping-pong", "--tcp", "-i", ip_b, "-p", port,
			    "-m", size, "-t", secs, "--full-log", log,
			    spin ? "--nonblocked" : NULL, NULL };
	bool tcp = o.path == P_TCP || o.path == P_TCP_SPIN;
	char **srv = tcp ? srv_tcp : run ? srv_all : srv_all + 6;
	char **cli = tcp ? cli_tcp : run ? cli_all : cli_all + 6;
	size_t cap = 0;
	double sent = 0;
	FILE *f;

	*lat = NULL;
	*nlat = 0;
	extra[0] = 0;
	tmp_file(log, sizeof(log), "sp");	/* sockperf's full log */
	if (spin)
		snprintf(busy, sizeof(busy), "%d", busy_us());
	snprintf(port, sizeof(port), "%u", o.port + 100);
	snprintf(rule_a, sizeof(rule_a), "%s:%s@%s", o.group_udp, port, o.ifname);
	snprintf(rule_b, sizeof(rule_b), "%s:%s@%s", o.group_udp, port,
		 o.ifname2 ? o.ifname2 : o.ifname);
	snprintf(size, sizeof(size), "%ld", o.size);
	snprintf(secs, sizeof(secs), "%.0f", seconds < 2 ? 2 : ceil(seconds));
	if (o.echo) {	/* this side is the server (lat -e) */
		unlink(log);
		serve_only(srv, tcp, o.port + 100, "sockperf's server");
		return;
	}
	counts_begin();
	/* --peer: the server is the other host's lat -e */
	out = serve_and_run(o.peer ? NULL : srv, cli, tcp, o.port + 100, "sockperf's server");
	/* "[Total Run] RunTime=...; SentMessages=N": every round trip, warm-up too */
	p = strstr(out, "[Total Run]");
	if (p && (p = strstr(p, "SentMessages=")))
		sent = strtod(p + 13, NULL);
	counts_end(extra, elen, sent);
	/* "packet, txTime(sec), rxTime(sec), latency(usec)", then a row each */
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f) && (long)*nlat < o.n) {
		double tx, rx, us;
		long idx;

		if (sscanf(line, "%ld, %lf, %lf, %lf", &idx, &tx, &rx, &us) == 4 &&
		    isfinite(us) && us > 0)
			push(lat, nlat, &cap, (uint64_t)llround(us * 1e3));
	}
	if (f)
		fclose(f);
	unlink(log);
	if (!*nlat)
		fprintf(stderr, "%s: sockperf gave no result:\n%s\n", PROG, out);
	free(out);
}

/*
 * Our own AF_INET ping-pong (user/bench/udppp.c) on GROUP + 2, laid out as
 * sockperf's (one group both ways) but with ibtick-perf's own loop, so that
 * under ibtick-run (@run) it differs from the native spin-1g and
 * recvmsg-1g paths by the preload library alone, and on kernel UDP from
 * sockperf's rows by sockperf's own work alone.  Each end is this program
 * again (_udppp), the echo on the -I side (or the --peer host's lat -e),
 * pinned as every path's ends.  @spin: O_NONBLOCK, recvfrom() in a loop,
 * and under ibtick-run its busy polling (-b busy_us()), as run-spin.
 */
static void inet_run(bool spin, bool run, uint64_t **lat, size_t *nlat,
		     char *extra, size_t elen)
{
	static char self[PATH_MAX];
	char busy[16], port[16], size[16], n[24], warm[24], rule[96], log[PATH_MAX];
	const char *ip = o.echo ? ip_b : ip_a;
	/* the pinging end writes its samples into @log, as sockperf's full
	 * log: its output and the library's messages stay apart from them */
	char *argv[] = { "ibtick-run", "-g", rule, "-b", busy, "--",
			 self, "_udppp", o.echo ? "echo" : "ping", spin ? "spin" : "block",
			 (char *)ip, o.group_udp, port, size, n, warm,
			 o.echo ? NULL : log, NULL };
	char **cmd = run ? argv : argv + 6;
	char *eargv[sizeof(argv) / sizeof(argv[0])], rule_b[96];
	size_t cap = 0;
	double rts = 0;
	char *out, line[64];
	FILE *f;
	ssize_t k;

	*lat = NULL;
	*nlat = 0;
	extra[0] = 0;
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0)
		die("readlink /proc/self/exe");
	self[k] = 0;
	snprintf(busy, sizeof(busy), "%d", spin ? busy_us() : 0);
	snprintf(port, sizeof(port), "%u", o.port + 110);
	snprintf(size, sizeof(size), "%ld", o.size);
	snprintf(n, sizeof(n), "%ld", o.n);
	snprintf(warm, sizeof(warm), "%ld", o.warm);
	snprintf(rule, sizeof(rule), "%s:%s@%s", o.group_udp, port, o.ifname);
	if (o.echo) {	/* this side is the echo (lat -e) */
		serve_only(cmd, false, o.port + 110, "the udppp echo");
		return;
	}
	tmp_file(log, sizeof(log), "udppp");
	/* the echo: the same command line, the other side's names */
	memcpy(eargv, argv, sizeof(argv));
	snprintf(rule_b, sizeof(rule_b), "%s:%s@%s", o.group_udp, port,
		 o.ifname2 ? o.ifname2 : o.ifname);
	eargv[2] = rule_b;
	eargv[8] = "echo";
	eargv[10] = ip_b;
	eargv[16] = NULL;	/* no samples file */
	counts_begin();
	/* --peer: the echo is the other host's lat -e */
	out = serve_and_run(o.peer ? NULL : run ? eargv : eargv + 6, cmd, false,
			    o.port + 110, "the udppp echo");
	/* a sample (ns) a line, then "# round_trips N" */
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long v;

		if (sscanf(line, "# round_trips %lf", &rts) == 1)
			continue;
		v = strtoull(line, &end, 10);
		if (end != line && *end == '\n' && (long)*nlat < o.n)
			push(lat, nlat, &cap, v);
	}
	if (f)
		fclose(f);
	unlink(log);
	counts_end(extra, elen, rts);
	if (!*nlat)
		fprintf(stderr, "%s: udppp gave no result (%s):\n%s\n", PROG,
			run ? "under ibtick-run" : "kernel UDP", out);
	free(out);
}

static void usage(void);

/*
 * ibtick-perf _udppp echo spin|block LOCAL_IP GROUP PORT SIZE N WARM, or
 * _udppp ping ... WARM FILE (the samples into FILE): one end of
 * inet_run()'s ping-pong (not for users: ibtick-perf(1) has the paths that
 * run it).
 */
static int udppp_main(int argc, char **argv)
{
	struct udppp_opts uo = { .timeout_ms = 2000 };
	FILE *out = NULL;
	bool ping;
	int rc;

	if (argc < 4 || (strcmp(argv[2], "ping") && strcmp(argv[2], "echo")) ||
	    (strcmp(argv[3], "spin") && strcmp(argv[3], "block")))
		usage();
	ping = !strcmp(argv[2], "ping");
	if (argc != (ping ? 11 : 10))
		usage();
	uo.spin = !strcmp(argv[3], "spin");
	uo.local_ip = argv[4];
	uo.group = argv[5];
	uo.port = (unsigned int)NUM(argv[6], 1, 65535);
	uo.size = (size_t)NUM(argv[7], 16, MAX_MSG);
	uo.n = NUM(argv[8], 1, 100000000);
	uo.warm = NUM(argv[9], 0, 100000000);
	if (ping) {
		out = fopen(argv[10], "w");
		if (!out)
			die(argv[10]);
	}
	rc = ping ? udppp_ping(&uo, out) : udppp_echo(&uo);
	if (out && fclose(out))
		rc = -1;
	if (rc) {
		fprintf(stderr, "%s: udppp %s: %s\n", PROG, argv[2], strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * Ping-pong over an ibtick connection (SOCK_SEQPACKET, RC): an echo child
 * listens on the -I side's address, pinned as every echo; this side
 * connects from its own address.  Both ends receive the same way (enum
 * conn_rx): blocking recv, recv(MSG_DONTWAIT) in a loop, or spinning on
 * the connection's mapped ring with no system call (libibtick), and send
 * with send().  o.warm + o.n round trips of o.size bytes, half of each
 * kept, as every path.
 */
enum conn_rx { CONN_BLOCK, CONN_SPIN, CONN_MAP };

static enum conn_rx conn_rx_of(int path)
{
	return path == P_CONN_MAP ? CONN_MAP : path == P_CONN_SPIN ? CONN_SPIN : CONN_BLOCK;
}

static void wait_ready(int fd);

static int conn_addr(struct sockaddr_ibtick *sa, const char *ip, unsigned int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = ibtick_family();
	sa->sibt_port = port;
	sa->sibt_group_family = AF_INET;
	return inet_pton(AF_INET, ip, sa->sibt_group) == 1 ? 0 : -1;
}

/*
 * The next message into @buf: by recv(), or (@r, CONN_MAP) from the
 * mapped ring, spinning until it comes; then its slot goes back to the
 * peer as libibtick says (a system call per nslots / 4 messages).  0 when
 * the peer closed, -1 with errno else.
 */
static ssize_t conn_recv(int fd, struct ibtick_reader *r, void *buf, size_t len,
			 enum conn_rx how)
{
	struct ibtick_tick t;
	ssize_t got;

	if (how != CONN_MAP) {
		do
			got = recv(fd, buf, len, how == CONN_SPIN ? MSG_DONTWAIT : 0);
		while (got < 0 && how == CONN_SPIN && errno == EAGAIN);
		return got;
	}
	while (!ibtick_next(r, &t))
		if (ibtick_ended(r))	/* the cursor reported, recv() says how */
			return ibtick_arm(r) ? -1 : recv(fd, buf, len, MSG_DONTWAIT);
	got = t.len < len ? t.len : (ssize_t)len;
	memcpy(buf, t.data, (size_t)got);
	if (!ibtick_done(r, &t) || ibtick_conn_release(r))
		return -1;
	return got;
}

/* CONN_MAP: map @fd's ring into @r (else nothing to do); dies on failure. */
static void conn_map(int fd, struct ibtick_reader *r, enum conn_rx how)
{
	memset(r, 0, sizeof(*r));
	if (how == CONN_MAP && ibtick_reader_attach(r, fd))
		die("conn-map: ibtick_reader_attach");
}

/*
 * A spinning end tells the kernel so (SO_PREFER_BUSY_POLL, CAP_NET_ADMIN):
 * the connection's CQ event stays off while it drains the CQ itself, as
 * ib_send_lat polls its CQ with no event armed.  Without the privilege it
 * spins all the same, with the event on.
 */
static void conn_prefer_busy(int fd, enum conn_rx how)
{
	static bool said;
	int one = 1;

	if (how != CONN_SPIN || !setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)))
		return;
	if (!said)
		fprintf(stderr, "%s: conn-spin: SO_PREFER_BUSY_POLL: %s (spinning with the CQ event on)\n",
			PROG, strerror(errno));
	said = true;
}

/*
 * The connection's echo: listens on @ip port o.port + 200, tells it is
 * ready on @ready_fd (a pipe to the pinging side) or, with -1, on stderr
 * (lat -e), answers every message of the one connection it accepts, and
 * exits when the client closes.
 */
static void __attribute__((noreturn)) conn_echo(enum conn_rx how, const char *ip, int ready_fd)
{
	struct sockaddr_ibtick sa;
	struct ibtick_reader rd;
	char buf[MAX_MSG];
	int ls, fd;

	ls = socket(ibtick_family(), SOCK_SEQPACKET, 0);
	if (ls < 0 || conn_addr(&sa, ip, o.port + 200) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		die("conn: listen");
	if (ready_fd < 0)
		fprintf(stderr, "%s: echo ready on %s\n", PROG, o.ifname);
	else if (write(ready_fd, "r", 1) != 1)
		die("conn: ready");
	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("conn: accept");
	conn_prefer_busy(fd, how);
	conn_map(fd, &rd, how);
	for (;;) {
		ssize_t r = conn_recv(fd, &rd, buf, sizeof(buf), how);

		if (r <= 0)
			_exit(r < 0);	/* 0: the client closed */
		if (send(fd, buf, (size_t)r, 0) != r)
			_exit(1);
	}
}

static void conn_run(enum conn_rx how, uint64_t **lat, size_t *nlat, char *extra,
		     size_t elen)
{
	unsigned int port = o.port + 200;
	struct sockaddr_ibtick sa;
	struct ibtick_reader rd;
	char buf[MAX_MSG];
	size_t cap = 0;
	int ready[2], fd, status = 0;
	pid_t child = -1;
	long i;

	*lat = NULL;
	*nlat = 0;
	extra[0] = 0;
	if (o.echo) {	/* this side is the echo (lat -e) */
		pin(o.cpu);
		conn_echo(how, ip_b, -1);
	}
	counts_begin();
	if (!o.peer) {	/* else the echo is the other host's lat -e */
		if (pipe(ready))
			die("pipe");
		child = fork_child();
		if (!child) {
			close(ready[0]);
			pin(o.cpu2);
			conn_echo(how, ip_b, ready[1]);
		}
		close(ready[1]);
		wait_ready(ready[0]);
	}
	fd = socket(ibtick_family(), SOCK_SEQPACKET, 0);
	if (fd < 0 || conn_addr(&sa, ip_a, 0) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    conn_addr(&sa, ip_b, port) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: conn: connect %s port %u: %s\n", PROG, ip_b, port,
			strerror(errno));
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
		return;
	}
	conn_prefer_busy(fd, how);
	conn_map(fd, &rd, how);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < o.warm + o.n; i++) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);

		if (send(fd, buf, (size_t)o.size, 0) != o.size ||
		    conn_recv(fd, &rd, buf, sizeof(buf), how) != o.size) {
			fprintf(stderr, "%s: conn: round trip %ld: %s\n", PROG, i,
				strerror(errno));
			break;
		}
		if (i >= o.warm)
			push(lat, nlat, &cap, (now_ns(CLOCK_MONOTONIC) - t0) / 2);
	}
	if (how == CONN_MAP)
		ibtick_reader_close(&rd);	/* reports the cursor: a clean close */
	close(fd);
	if (child > 0)
		waitpid(child, &status, 0);
	counts_end(extra, elen, (double)(o.warm + o.n));
	if (child_failed(status))
		fprintf(stderr, "%s: conn: the echo failed\n", PROG);
}

static void row_from(struct row *r, const char *name, const struct latstats *s)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->n = (double)s->n;
	r->min = s->min / 1e3;
	r->max = s->max / 1e3;
	r->typical = s->typical / 1e3;
	r->avg = s->avg / 1e3;
	r->p99 = s->p99 / 1e3;
	r->p999 = s->p99_9 / 1e3;
	r->p9999 = s->p99_99 / 1e3;
	r->ok = s->n > 0;
}

/* The table (or JSON) of every row with its ratios to the floor. */
static void compare_print(const struct row *rows, int nrows, const struct row *fl)
{
	int i;

	if (o.json) {
		for (i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];
			char b1[32], b2[32];
			bool both = fl->ok && r->ok;

			/* no floor or no result: the ratios are null, not 0 */
			printf("{\"compare\":\"%s\",\"MsgSize\":%ld,\"n_iterations\":%.0f,"
			       "\"t_min\":%.2f,\"t_max\":%.2f,\"t_typical\":%.2f,\"t_avg\":%.2f,"
			       "\"percentile_99\":%.2f,\"percentile_99.9\":%.2f,"
			       "\"percentile_99.99\":%.2f,\"median_ratio\":%s,"
			       "\"p99.9_ratio\":%s,\"ok\":%s}\n",
			       jstr(r->name), o.size, r->n, r->min, r->max, r->typical, r->avg,
			       r->p99, r->p999, r->p9999,
			       ratio_str(b1, r->typical, both ? fl->typical : 0),
			       ratio_str(b2, r->p999, both ? fl->p999 : 0),
			       r->ok ? "true" : "false");
		}
		return;
	}
	printf("\n# %ld-byte messages, half round trip in usec; ratios to the floor"
	       " (the mean of the ib_send_lat runs before and after)\n", o.size);
	printf(" %-28s %10s %10s %10s %10s %10s %10s %9s %9s\n", "path", "t_min",
	       "t_typical", "t_avg", "99%", "99.9%", "t_max", "x median", "x p99.9");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		if (!r->ok) {
			printf(" %-28s   (no result)\n", r->name);
			continue;
		}
		printf(" %-28s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f",
		       r->name, r->min, r->typical, r->avg, r->p99, r->p999, r->max);
		if (fl->ok)
			printf(" %9.2f %9.2f\n", r->typical / fl->typical, r->p999 / fl->p999);
		else
			printf(" %9s %9s\n", "-", "-");
	}
	if (!strcmp(env.virt, "qemu-tcg"))
		printf("# TCG: every path runs on an emulated CPU; only the ratios carry over\n");
}

/* ---- lat: ping-pong ------------------------------------------------------ */

/*
 * The echo side tells its parent it is bound and joined by writing a byte
 * to this pipe (its write end), after saying so on stderr.
 */
/* The echo side's bind and join: its "ready" byte on @fd, within 2 min. */
static void wait_ready(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pf, 1, 120000) != 1 || read(fd, &c, 1) != 1) {
		errno = ETIMEDOUT;
		die("waiting for the echo side to be ready");
	}
	close(fd);
}

static int echo_ready_fd = -1;
static volatile sig_atomic_t echo_term;

static void echo_on_term(int sig)
{
	(void)sig;
	echo_term = 1;
}

static void lat_echo(const char *ifname)
{
	/* a feed of its own (--prefer-defer): SIGTERM ends the loop, then
	 * the feed goes, within a look of 200 ms */
	bool own = o.prefer && o.prefer_defer >= 0;
	struct sigaction sa = { .sa_handler = echo_on_term };	/* no SA_RESTART */
	char buf[MAX_MSG];
	struct tickrd d;
	uint64_t ts[2], eagain = 0;
	int pub;
	ssize_t got;

	if (own && sigaction(SIGTERM, &sa, NULL))
		die("sigaction");

	/* the way out is GROUP/PORT; the way back GROUP + 1/PORT + 1: each
	 * direction a group of its own, so that no reader's QP on this host
	 * is a member of the group this host sends to.  one_group: back on
	 * GROUP/PORT too, as sockperf's ping-pong does: each host's QP gets
	 * its own sends (counted as loopback, not read) */
	prefer_feed(ifname, o.group, o.port, true);
	rdr_open(&d, o.kind, ifname, o.group, o.port);
	pub = o.one_group ? pub_open(ifname, o.group, o.port) :
			    pub_open(ifname, o.group2, o.port + 1);
	fprintf(stderr, "%s: echo ready on %s\n", PROG, ifname);
	if (echo_ready_fd >= 0 && write(echo_ready_fd, "r", 1) != 1)
		die("echo ready");
	while (!echo_term) {
		got = rdr_get(&d, buf, sizeof(buf), ts, own ? 200 : 60000);
		if (got < 0)
			break;
		if (got > 0)
			pub_send(pub, buf, (size_t)got, &eagain);
	}
	close(pub);
	tickrd_close(&d);
	prefer_feed(ifname, o.group, o.port, false);
}

/*
 * Ping-pong with the current o.kind on feeds GROUP/@port (out) and
 * GROUP + 1/@port + 1 (back; o.one_group: GROUP/@port); prints a row per size, leaves the last
 * size's statistics in @last.  Returns 0, or 1 when the echo side does
 * not answer.
 */
static int lat_kind(unsigned int port, struct latstats *last)
{
	char buf[MAX_MSG], in[MAX_MSG];
	struct probe *p = (struct probe *)buf;
	uint64_t *lat, t0, ts[2], eagain = 0, timeouts = 0, attempt = 0;
	long size, i, sizes[16];
	int nsizes = 0, pub, rc = 0, in_a_row = 0;
	unsigned int back_port;
	const char *back;
	struct tickrd d;
	ssize_t got;

	int ready[2] = { -1, -1 };

	if (o.ifname2) {
		if (pipe(ready))
			die("pipe");
		echo_child = fork_child();
		if (!echo_child) {
			close(ready[0]);
			echo_ready_fd = ready[1];
			pin(o.cpu2);
			/* the echo side: reads PORT, answers on PORT + 1 */
			o.port = port;
			if (o.kpoll)	/* its feed's thread on its own CPU */
				o.busy_cpu = o.cpu2;
			lat_echo(o.ifname2);
			_exit(0);
		}
		close(ready[1]);
	}
	pin(o.cpu);
	if (o.kpoll)
		o.busy_cpu = o.cpu;
	back = o.one_group ? o.group : o.group2;
	back_port = o.one_group ? port : port + 1;
	prefer_feed(o.ifname, back, back_port, true);
	rdr_open(&d, o.kind, o.ifname, back, back_port);
	pub = pub_open(o.ifname, o.group, port);
	if (echo_child > 0)
		wait_ready(ready[0]);
	if (o.sweep)
		for (size = 32; size <= o.size_max && nsizes < 16; size *= 2)
			sizes[nsizes++] = size;
	else
		sizes[nsizes++] = o.size;
	lat = calloc((size_t)o.n, sizeof(*lat));
	if (!lat)
		die("calloc");
	memset(buf, 0x33, sizeof(buf));
	for (int k = 0; k < nsizes && !rc; k++) {
		uint64_t timeouts0 = timeouts;
		struct ibtick_stats fs0, fs1;

		size = sizes[k];
		counts_begin();
		if (o.counts && tickrd_stats(&d, &fs0))
			die("IBTICK_STATISTICS");
		for (i = 0; i < o.n + o.warm; i++) {
			p->magic = PROBE_MAGIC;
			/* a resent sample is told from the late first answer */
			p->seq = (uint64_t)i | ((uint64_t)k << 48) | (attempt << 40);
			t0 = now_ns(CLOCK_MONOTONIC);
			if (tickrd_send(pub, buf, (size_t)size, &eagain)) {
				if (errno != EMSGSIZE || !o.sweep)
					die("send");
				/* the sweep went past the port's MTU: stop there */
				if (!o.json)
					printf("# %ld bytes: larger than the port's MTU allows; sweep ends\n", size);
				nsizes = k;
				goto out;
			}
			for (;;) {
				got = rdr_get(&d, in, sizeof(in), ts, o.timeout_ms);
				if (got < 0) {
					fprintf(stderr, "%s: the feed went away\n", PROG);
					rc = 1;
					break;
				}
				if (got == 0) {
					/* UD drops silently: send the sample again */
					timeouts++;
					attempt = (attempt + 1) & 0xff;
					if (++in_a_row >= 10) {
						fprintf(stderr, "%s: no answer 10 times in a row: is the echo side running?\n", PROG);
						rc = 1;
					}
					break;
				}
				if ((size_t)got >= sizeof(*p) &&
				    ((struct probe *)in)->seq == p->seq)
					break;	/* else a late answer to an old sample */
			}
			if (rc)
				break;
			if (got == 0) {
				i--;
				continue;
			}
			in_a_row = 0;
			if (i >= o.warm)
				lat[i - o.warm] = (now_ns(CLOCK_MONOTONIC) - t0) / 2;
		}
		if (rc)
			break;
		{
			char extra[2400], cnt[1600], feed[400] = "";
			double rts = (double)(o.n + o.warm) + (double)(timeouts - timeouts0);

			/* every round trip tried, the warm-up and the resent too */
			counts_end(cnt, sizeof(cnt), rts);
			if (o.counts) {
				/* this side's reading feed, by its own counters */
				if (tickrd_stats(&d, &fs1))
					die("IBTICK_STATISTICS");
				snprintf(feed, sizeof(feed),
					 ",\"feed_a\":{\"rx_ticks\":%.3f,\"cq_events\":%.3f,"
					 "\"cqe_irq\":%.3f,\"cqe_thread\":%.3f,\"cqe_caller\":%.3f}",
					 (double)(fs1.feed_rx_ticks - fs0.feed_rx_ticks) / rts,
					 (double)(fs1.feed_cq_events - fs0.feed_cq_events) / rts,
					 (double)(fs1.feed_cqe_irq - fs0.feed_cqe_irq) / rts,
					 (double)(fs1.feed_cqe_thread - fs0.feed_cqe_thread) / rts,
					 (double)(fs1.feed_cqe_caller - fs0.feed_cqe_caller) / rts);
			}
			snprintf(extra, sizeof(extra),
				 "\"resent\":%" PRIu64 ",\"reader_lost\":%" PRIu64 "%s%s",
				 timeouts, d.lost, cnt, feed);
			raw_out(lat, (size_t)o.n);	/* in order, before report() sorts */
			report(size, lat, (size_t)o.n, o.json ? extra : NULL);
		}
		latstats_sorted(last, lat, (size_t)o.n);
		hist_out(lat, (size_t)o.n, "half round trip");	/* the last size's stays */
	}
out:
	free(lat);
	kill_echo();	/* SIGTERM: the echo leaves its feed to us */
	close(pub);
	tickrd_close(&d);
	prefer_feed(o.ifname, back, back_port, false);
	if (o.ifname2)
		prefer_feed(o.ifname2, o.group, port, false);
	return rc;
}

/*
 * rxe's RC error counters of both sides, read around an RC row (the whole
 * run, warm-up included) and added to its JSON as "rc_ctrs": requests sent
 * again after the requester's timer ran out (completer_retry_err), requests
 * a responder received twice (duplicate_request), RNR NAKs received
 * (rcvd_rnr_err).  sysfs reads, no tracing, so every timed row has them;
 * a side whose device is not on this host (--peer) is null.
 */
static const char *const rc_ctr_names[3] = {
	"completer_retry_err", "duplicate_request", "rcvd_rnr_err"
};

/* Side @d's device: dev_a or dev_b ("" when not on this host). */
static const char *side_dev(int d)
{
	return d ? dev_b : dev_a;
}

static void rc_ctrs(uint64_t v[2][3])
{
	for (int d = 0; d < 2; d++)
		for (int c = 0; c < 3; c++)
			v[d][c] = side_dev(d)[0] ? kcount_ctr(side_dev(d), rc_ctr_names[c]) : 0;
}

static void rc_ctrs_json(char *buf, size_t len, uint64_t v0[2][3])
{
	static const char *const key[3] = { "retry", "dup", "rnr" };
	size_t n = strlen(buf);
	uint64_t v1[2][3];

	rc_ctrs(v1);
	n += (size_t)snprintf(buf + n, len - n, ",\"rc_ctrs\":{");
	for (int c = 0; c < 3 && n < len; c++)
		for (int d = 0; d < 2 && n < len; d++) {
			if (side_dev(d)[0])
				n += (size_t)snprintf(buf + n, len - n, "\"%s_%c\":%llu,",
						      key[c], 'a' + d,
						      (unsigned long long)(v1[d][c] - v0[d][c]));
			else
				n += (size_t)snprintf(buf + n, len - n, "\"%s_%c\":null,",
						      key[c], 'a' + d);
		}
	if (n < len)
		buf[n - 1] = '}';
}

/* A row for a path that is not ibtick's (floor, udp, udp-spin). */
static int lat_other(struct row *r, const char *name, double seconds)
{
	bool rc = o.path == P_FLOOR_RC || o.path == P_CONN || o.path == P_CONN_SPIN ||
		  o.path == P_CONN_MAP;
	char extra[2048];
	uint64_t rc0[2][3];
	struct latstats st;
	uint64_t *lat;
	size_t n;

	if (rc)
		rc_ctrs(rc0);
	if (o.path == P_FLOOR || o.path == P_FLOOR_RC) {
		floor_run(&lat, &n, extra, sizeof(extra));
	} else if (o.path == P_CONN || o.path == P_CONN_SPIN || o.path == P_CONN_MAP) {
		conn_run(conn_rx_of(o.path), &lat, &n, extra, sizeof(extra));
	} else if (o.path == P_INET || o.path == P_INET_SPIN || o.path == P_INET_RUN ||
		   o.path == P_INET_RUN_SPIN) {
		inet_run(o.path == P_INET_SPIN || o.path == P_INET_RUN_SPIN,
			 o.path == P_INET_RUN || o.path == P_INET_RUN_SPIN, &lat, &n,
			 extra, sizeof(extra));
	} else {
		sockperf_run(o.path == P_UDP_SPIN || o.path == P_RUN_SPIN ||
			     o.path == P_TCP_SPIN,
			     o.path == P_RUN || o.path == P_RUN_SPIN, seconds, &lat, &n,
			     extra, sizeof(extra));
		/*
		 * sockperf runs for a time, not a count: short of o.n samples,
		 * run it again for about the time the rest should take at the
		 * rate it went (its window is its time less 0.4 s of warm-up),
		 * twice at most; the samples of the runs are pooled
		 */
		for (int more = 0; more < 2 && n && (long)n < o.n; more++) {
			double per = (ceil(seconds < 2 ? 2 : seconds) - 0.5) / (double)n;
			uint64_t *l2, *all;
			size_t n2;
			char dummy[2048];
			bool counts = o.counts;

			seconds = 1 + 1.5 * per * (double)(o.n - (long)n);
			o.counts = false;	/* counted in the first run only */
			sockperf_run(o.path == P_UDP_SPIN || o.path == P_RUN_SPIN ||
				     o.path == P_TCP_SPIN,
				     o.path == P_RUN || o.path == P_RUN_SPIN, seconds, &l2,
				     &n2, dummy, sizeof(dummy));
			o.counts = counts;
			if ((long)(n + n2) > o.n)
				n2 = (size_t)o.n - n;
			all = realloc(lat, (n + n2) * sizeof(*lat));
			if (!all)
				die("realloc");
			memcpy(all + n, l2, n2 * sizeof(*l2));
			lat = all;
			n += n2;
			free(l2);
		}
	}
	if (rc)
		rc_ctrs_json(extra, sizeof(extra), rc0);
	raw_out(lat, n);	/* in the order measured: latstats_compute() sorts */
	latstats_compute(&st, lat, n);
	row_from(r, name, &st);
	if (n && !o.compare) {
		report(o.size, lat, n, o.json && extra[0] ? extra + 1 : NULL);
		hist_out(lat, n, "half round trip");
	}
	free(lat);
	return n ? 0 : 1;
}

/* The reader kind of an ibtick path (the references have none: epoll). */
static enum tickrd_kind path_kind(int path)
{
	if (path < TICKRD_NKINDS)
		return (enum tickrd_kind)path;
	if (path == P_BUSY_PREFER || path == P_SPIN_1G)
		return TICKRD_BUSY;
	return path == P_RECVMSG_1G ? TICKRD_RECVMSG : TICKRD_EPOLL;
}

static const char *path_title(int path)
{
	switch (path) {
	case P_FLOOR: return "ib_send_lat -c UD";
	case P_UDP: return "sockperf UDP multicast";
	case P_UDP_SPIN: return "sockperf UDP multicast, spinning";
	case P_RUN: return "sockperf under ibtick-run";
	case P_RUN_SPIN: return "sockperf under ibtick-run, spinning";
	case P_KPOLL: return "ibtick epoll + poll thread";
	case P_FLOOR_RC: return "ib_send_lat -c RC";
	case P_CONN: return "ibtick connection (RC), blocking recv";
	case P_CONN_SPIN: return "ibtick connection (RC), spinning recv";
	case P_CONN_MAP: return "ibtick connection (RC), mapped ring, spinning";
	case P_INET: return "AF_INET ping-pong (udppp), kernel UDP";
	case P_INET_SPIN: return "AF_INET ping-pong (udppp), kernel UDP, spinning";
	case P_INET_RUN: return "AF_INET ping-pong (udppp) under ibtick-run";
	case P_INET_RUN_SPIN: return "AF_INET ping-pong (udppp) under ibtick-run, spinning";
	case P_TCP: return "sockperf TCP";
	case P_TCP_SPIN: return "sockperf TCP, spinning";
	case P_BUSY_PREFER: return "ibtick recvmsg + SO_BUSY_POLL + SO_PREFER_BUSY_POLL";
	case P_SPIN_1G: return "ibtick recvmsg(MSG_DONTWAIT) + SO_BUSY_POLL spin, one group both ways";
	case P_RECVMSG_1G: return "ibtick recvmsg, blocking, one group both ways";
	}
	return NULL;
}

static int lat_run(void)
{
	struct row rows[3 + P_NPATHS], fl;
	struct latstats last;
	int j, nrows = 0, rc = 0;
	double sum_avg = 0, secs;
	bool others = o.compare;

	if (o.echo && o.path < P_FLOOR) {
		pin(o.cpu);
		lat_echo(o.ifname);
		return 0;
	}
	if (o.echo) {
		/*
		 * The server of a path that is not ibtick's feeds, for a
		 * pinging side on another host (--peer): the server's names
		 * (dev_b, ip_b) are this side's
		 */
		bool verbs = o.path == P_FLOOR || o.path == P_FLOOR_RC;

		if ((verbs && rdma_dev_of(o.ifname, dev_b, sizeof(dev_b))) ||
		    ipv4_of(o.ifname, ip_b, sizeof(ip_b))) {
			fprintf(stderr, "%s: -e: no RDMA device or IPv4 address behind %s\n",
				PROG, o.ifname);
			return 1;
		}
		/* until this is killed; a server that fails ends it
		 * (serve_until()) */
		lat_other(&rows[0], path_title(o.path), 1e6);
		return 0;
	}
	for (j = 0; j < o.nkinds; j++)
		others |= (o.paths[j] & ~PATH_EV) >= P_FLOOR;
	if (o.ifname2 || o.peer)
		rdma_dev_of(o.ifname, dev_a, sizeof(dev_a));
	if (o.ifname2)
		rdma_dev_of(o.ifname2, dev_b, sizeof(dev_b));
	if (o.peer)	/* checked in main(); the other host's device is its own */
		snprintf(ip_b, sizeof(ip_b), "%s", o.peer);
	if (others && (!dev_a[0] || (!o.peer && !dev_b[0]) ||
		       (!o.peer && ipv4_of(o.ifname2, ip_b, sizeof(ip_b))) ||
		       ipv4_of(o.ifname, ip_a, sizeof(ip_a)))) {
		fprintf(stderr, "%s: floor, udp: no RDMA device or IPv4 address behind %s/%s\n",
			PROG, o.ifname, o.ifname2 ? o.ifname2 : o.peer);
		return 1;
	}
	if (o.counts && kcount_setup())
		fprintf(stderr, "%s: --counts: no tracefs hist triggers here; "
			"system calls, allocations and CQ events are not counted\n", PROG);
	if (o.compare) {
		/* the floor first, before anything of ours spins */
		o.path = P_FLOOR;
		lat_other(&rows[nrows++], "ib_send_lat -c UD, before", 0);
	}
	if (o.ifname2)
		atexit(kill_echo);
	env_print();
	if (!o.json)
		latstats_print_header(stdout);
	for (j = 0; j < o.nkinds; j++) {
		char name[64];

		o.path = o.paths[j] & ~PATH_EV;
		o.ev = o.paths[j] & PATH_EV;
		if (!o.json && o.nkinds > 1)
			printf("# %s\n", path_title(o.path) ? path_title(o.path) : path_names[o.path]);
		if (o.path >= P_FLOOR) {
			/* sockperf runs for a time: 1 ms a sample to start
			 * with (lat_other() tops up); o.n samples are kept */
			secs = 1 + (double)o.n * 1e-3;
			if (lat_other(&rows[nrows++], path_title(o.path), secs))
				rc = 1;
			continue;
		}
		/* kpoll: the thread spins and the reader sleeps, one spinner
		 * per side's CPU (a spinning reader beside it would share
		 * that CPU with the thread by time slices) */
		o.kind = path_kind(o.path);
		o.kpoll = o.path == P_KPOLL;
		o.prefer = o.path == P_BUSY_PREFER;
		o.one_group = o.path == P_SPIN_1G || o.path == P_RECVMSG_1G;
		{
			int busy = o.busy_cpu;

			if (lat_kind(o.port + 2 * (unsigned int)j, &last))
				return 1;
			o.busy_cpu = busy;
		}
		snprintf(name, sizeof(name), "ibtick %s%s", path_names[o.path],
			 o.busy_cpu >= -1 ? " (busy-poll)" : "");
		row_from(&rows[nrows++], path_title(o.path) ? path_title(o.path) : name, &last);
		sum_avg += last.avg;
	}
	if (o.compare) {
		/* about as long as one of ours took */
		o.path = P_UDP;
		lat_other(&rows[nrows++], "sockperf UDP multicast",
			  (double)o.n * sum_avg / o.nkinds * 2 / 1e9);
		o.path = P_FLOOR;
		lat_other(&rows[nrows++], "ib_send_lat -c UD, after", 0);
		fl = rows[0];
		if (rows[0].ok && rows[nrows - 1].ok) {
			fl.typical = (rows[0].typical + rows[nrows - 1].typical) / 2;
			fl.p999 = (rows[0].p999 + rows[nrows - 1].p999) / 2;
		} else if (rows[nrows - 1].ok) {
			fl = rows[nrows - 1];
		}
		compare_print(rows, nrows, &fl);
	}
	return rc;
}

/* ---- oneway, rate and fanout: a publisher child, readers -------------- */

#define MAX_STEPS	16

/* What the publisher did, per step (shared memory). */
struct pubres {
	uint64_t	sent[MAX_STEPS], ns[MAX_STEPS], eagain[MAX_STEPS];
	int		bound;		/* readers bound so far (atomic) */
	int		done;		/* 1: published all; 2: gave up (atomic) */
};

/* publisher_done (above): set in the publisher child, so that its die()
 * tells the readers to stop. */

/*
 * The publisher (a child): @steps runs of @count[s] probes at @rates[s]
 * per second (0: flat out), numbered from 0 within each step.  It starts
 * once @want readers are bound and pauses 200 ms between steps.
 */
static void publisher(unsigned int port, int steps, const long *count,
		      const long *rates, struct pubres *res, int want)
{
	char buf[MAX_MSG];
	struct probe *p = (struct probe *)buf;
	uint64_t t0, due;
	int fd, s;
	long i;

	publisher_done = &res->done;
	pin(o.cpu2);
	fd = pub_open(o.ifname2, o.group, port);
	memset(buf, 0x5a, sizeof(buf));
	/* every reader bound, within two minutes (a reader that failed never is) */
	for (i = 0; __atomic_load_n(&res->bound, __ATOMIC_ACQUIRE) < want; i++) {
		if (i == 120000) {
			errno = ETIMEDOUT;
			die("waiting for the readers to bind");
		}
		usleep(1000);
	}
	for (s = 0; s < steps; s++) {
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < count[s]; i++) {
			if (rates[s]) {
				due = t0 + (uint64_t)i * 1000000000ULL / (uint64_t)rates[s];
				while (now_ns(CLOCK_MONOTONIC) < due)
					;
			}
			p->magic = PROBE_MAGIC;
			p->step = (uint32_t)s;
			p->seq = (uint64_t)i;
			p->t_ns = now_ns(CLOCK_REALTIME);
			pub_send(fd, buf, (size_t)o.size, &res->eagain[s]);
		}
		res->ns[s] = now_ns(CLOCK_MONOTONIC) - t0;
		res->sent[s] = (uint64_t)count[s];
		/* pacing, not readiness: let the readers drain between steps */
		usleep(200000 * slow());
	}
	close(fd);
	__atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
}

static pid_t spawn_publisher(unsigned int port, int steps, const long *count,
			     const long *rates, struct pubres *res, int want)
{
	pid_t pid = fork_child();

	if (!pid) {
		publisher(port, steps, count, rates, res, want);
		_exit(0);
	}
	return pid;
}

/* What one reader saw (shared memory when the reader is a child). */
struct rdres {
	uint64_t	got[MAX_STEPS], lost[MAX_STEPS];
	uint64_t	lost_total;	/* = sum of lost[]: each loss once */
	uint64_t	other;		/* ticks that were not our probes */
	uint64_t	feed_rx, drain_ns, wake_ns, n, nstage;
};

/*
 * The publisher child of a reader that is its parent (oneway, rate): its
 * exit status once reaped here, so that a publisher killed by a signal
 * (no chance to set done) still ends the reading.
 */
static pid_t pub_pid = -1;
static int pub_status = -1;

static bool publisher_gone(void)
{
	int st;

	if (pub_pid <= 0 || pub_status >= 0)
		return pub_status >= 0;
	if (waitpid(pub_pid, &st, WNOHANG) != pub_pid)
		return false;
	pub_status = st;
	return true;
}

/* Collect the publisher (if publisher_gone() has not); 0 if it succeeded. */
static int publisher_wait(void)
{
	if (pub_status < 0 && waitpid(pub_pid, &pub_status, 0) != pub_pid)
		die("waitpid");
	pub_pid = -1;
	return child_failed(pub_status);
}

/*
 * Read probes until the publisher is done and the feed has been quiet for
 * half a second.  Step-0 probes past the warm-up give samples: @lat the
 * whole way (this side's CLOCK_REALTIME at read minus the probe's send
 * time), @wire the kernels' part (receive stamp minus send stamp) and
 * @deliver the rest (read minus receive stamp); @wire and @deliver may be
 * NULL, and stay 0 for recvmsg readers.
 */
static void reader(unsigned int port, struct rdres *res, struct pubres *pr,
		   uint64_t *lat, uint64_t *wire, uint64_t *deliver, long nlat)
{
	char buf[MAX_MSG];
	struct probe *p = (struct probe *)buf;
	struct ibtick_stats st;
	uint64_t ts[2], t, prev = 0;
	uint32_t step = 0;
	struct tickrd d;
	long k = 0;
	ssize_t got;

	rdr_open(&d, o.kind, o.ifname, o.group, port);
	__atomic_fetch_add(&pr->bound, 1, __ATOMIC_RELEASE);
	for (;;) {
		got = rdr_get(&d, buf, sizeof(buf), ts, 500);
		if (got < 0)
			break;
		if (got == 0) {
			if (__atomic_load_n(&pr->done, __ATOMIC_ACQUIRE) ||
			    publisher_gone())
				break;
			continue;
		}
		t = now_ns(CLOCK_REALTIME);
		if ((size_t)got < sizeof(*p) || p->magic != PROBE_MAGIC ||
		    p->step >= MAX_STEPS) {
			res->other++;
			continue;
		}
		step = p->step;
		res->got[step]++;
		/* losses go to the step of the tick that follows them */
		res->lost[step] += d.lost - prev;
		prev = d.lost;
		if (step || (long)p->seq < o.warm || k >= nlat)
			continue;
		lat[k] = t > p->t_ns ? t - p->t_ns : 0;
		if (wire && ts[1]) {
			wire[res->nstage] = ts[1] > ts[0] ? ts[1] - ts[0] : 0;
			deliver[res->nstage++] = t > ts[1] ? t - ts[1] : 0;
		}
		k++;
	}
	res->lost[step] += d.lost - prev;	/* lapped at the very end */
	res->lost_total = d.lost;
	if (tickrd_stats(&d, &st))
		die("IBTICK_STATISTICS");
	res->feed_rx = st.feed_rx_ticks;
	res->drain_ns = st.feed_rx_drain_ns;
	res->wake_ns = st.feed_rx_wake_ns;
	res->n = (uint64_t)k;
	tickrd_close(&d);
}

static void hist_out(uint64_t *lat, size_t n, const char *what)
{
	char title[160], sub[256], path[4096];
	const char *dot;
	FILE *f;

	if (!o.hist || !n)
		return;
	/* several kinds: lat.svg becomes lat-mapped.svg, lat-busy.svg, ... */
	dot = strrchr(o.hist, '.');
	if (o.nkinds > 1 && dot && !strchr(dot, '/'))
		snprintf(path, sizeof(path), "%.*s-%s%s", (int)(dot - o.hist),
			 o.hist, path_name(), dot);
	else if (o.nkinds > 1)
		snprintf(path, sizeof(path), "%s-%s", o.hist, path_name());
	else
		snprintf(path, sizeof(path), "%s", o.hist);
	f = fopen(path, "w");
	if (!f)
		die(path);
	snprintf(title, sizeof(title), "ibtick-perf %s, %s, %ld B: %s",
		 mode_names[o.mode], path_name(), o.size, what);
	snprintf(sub, sizeof(sub), "%zu samples; kernel %s; %s; kernel side %s",
		 n, env.kernel, env.virt, o.busy_cpu >= -1 ? "busy-poll" : "interrupt");
	latstats_svg(f, lat, n, title, sub);
	if (fclose(f))
		die(path);
	/* and a PNG next to it where a converter is installed */
	dot = strrchr(path, '.');
	if (dot && !strcmp(dot, ".svg") && !access("/usr/bin/rsvg-convert", X_OK)) {
		char png[4096], *argv[] = { "rsvg-convert", "-o", png, path, NULL };

		snprintf(png, sizeof(png), "%.*s.png", (int)(dot - path), path);
		waitpid(spawn(argv, -1, NULL), NULL, 0);
	}
}

static int oneway_run(void)
{
	long count = o.n + o.warm, rate = o.rate;
	struct pubres *pr = shared(sizeof(*pr));
	struct rdres res;
	uint64_t *lat = calloc((size_t)o.n, sizeof(*lat));
	uint64_t *wire = calloc((size_t)o.n, sizeof(*lat));
	uint64_t *del = calloc((size_t)o.n, sizeof(*lat));
	struct latstats sw, sd;
	char extra[768];
	pid_t pid;
	int n;

	if (!lat || !wire || !del)
		die("calloc");
	memset(&res, 0, sizeof(res));
	pid = spawn_publisher(o.port, 1, &count, &rate, pr, 1);
	pub_pid = pid;
	pin(o.cpu);
	reader(o.port, &res, pr, lat, wire, del, o.n);
	if (publisher_wait() || pr->done != 1) {
		fprintf(stderr, "%s: the publisher failed\n", PROG);
		return 1;
	}
	env_print();
	if (!o.json)
		latstats_print_header(stdout);
	latstats_compute(&sw, wire, res.nstage);
	latstats_compute(&sd, del, res.nstage);
	/*
	 * The feed took feed_rx of what was published (the rest was lost on
	 * the wire); of what it took, the reader got some and counted the
	 * rest lost in the ring.  Both sums are printed, not assumed.
	 */
	n = snprintf(extra, sizeof(extra),
		     "\"published\":%" PRIu64 ",\"feed_rx\":%" PRIu64 ",\"delivered\":%" PRIu64
		     ",\"lost_ring\":%" PRIu64 ",\"lost_wire\":%" PRId64 ",\"other\":%" PRIu64
		     ",\"rate\":%ld",
		     pr->sent[0], res.feed_rx, res.got[0], res.lost_total,
		     (int64_t)(pr->sent[0] - res.feed_rx), res.other, o.rate);
	if (sw.n)
		snprintf(extra + n, sizeof(extra) - (size_t)n,
			 ",\"wire_median\":%.2f,\"wire_p99.9\":%.2f,\"deliver_median\":%.2f,"
			 "\"deliver_p99.9\":%.2f", sw.typical / 1e3, sw.p99_9 / 1e3,
			 sd.typical / 1e3, sd.p99_9 / 1e3);
	else	/* recvmsg readers see no kernel receive stamp */
		snprintf(extra + n, sizeof(extra) - (size_t)n,
			 ",\"wire_median\":null,\"wire_p99.9\":null,\"deliver_median\":null,"
			 "\"deliver_p99.9\":null");
	if (o.json) {
		report(o.size, lat, res.n, extra);
	} else {
		report(o.size, lat, res.n, NULL);
		printf("# published %" PRIu64 "; the feed took %" PRIu64 " (lost on the wire %" PRId64
		       ") = delivered %" PRIu64 " + lost in the ring %" PRIu64 "\n",
		       pr->sent[0], res.feed_rx, (int64_t)(pr->sent[0] - res.feed_rx),
		       res.got[0], res.lost_total);
		if (sw.n)
			printf("# stages (median / p99.9 usec): send -> kernel rx %.2f / %.2f,"
			       " kernel rx -> reader %.2f / %.2f\n",
			       sw.typical / 1e3, sw.p99_9 / 1e3, sd.typical / 1e3, sd.p99_9 / 1e3);
	}
	hist_out(lat, res.n, "one way, send to read");
	free(lat);
	free(wire);
	free(del);
	return 0;
}

/*
 * rate: six steps of -n probes at an offered rate doubling from -r (default
 * 10000/s), then one step flat out (-r 0: that step alone); per step what
 * was sent, at what rate, and what the reader got, lost in the ring, and
 * never saw (the wire).
 */
static int rate_run(void)
{
	long count[MAX_STEPS], rates[MAX_STEPS], r;
	struct pubres *pr = shared(sizeof(*pr));
	struct rdres res;
	uint64_t dummy, total = 0, delivered = 0;
	int steps = 0, s;
	pid_t pid;

	/* -r 0: the flat-out step alone (bench/guest.sh's rounds) */
	for (r = o.rate; r && steps < 6; r *= 2) {
		rates[steps] = r;
		count[steps++] = o.n;
	}
	rates[steps] = 0;
	count[steps++] = o.n;
	memset(&res, 0, sizeof(res));
	pid = spawn_publisher(o.port, steps, count, rates, pr, 1);
	pub_pid = pid;
	pin(o.cpu);
	reader(o.port, &res, pr, &dummy, NULL, NULL, 0);
	if (publisher_wait() || pr->done != 1) {
		fprintf(stderr, "%s: the publisher failed\n", PROG);
		return 1;
	}
	env_print();
	if (!o.json)
		printf(" %-12s %-10s %-14s %-10s %-10s %-10s %-8s\n", "offered[/s]",
		       "sent", "achieved[/s]", "delivered", "lost_ring",
		       "lost_wire", "loss[%]");
	for (s = 0; s < steps; s++) {
		uint64_t sent = pr->sent[s], got = res.got[s], lr = res.lost[s];
		/* per step an estimate (a loss is booked to the step of the
		 * tick after it); the totals below are exact */
		int64_t lw = (int64_t)(sent - got - lr);
		double ach = pr->ns[s] ? (double)sent * 1e9 / (double)pr->ns[s] : 0;
		double loss = sent ? 100.0 * (double)(sent - got) / (double)sent : 0;

		if (o.json)
			printf("{\"mode\":\"rate\",\"kind\":\"%s\",\"MsgSize\":%ld,\"offered\":%ld,"
			       "\"sent\":%" PRIu64 ",\"achieved\":%.0f,\"delivered\":%" PRIu64
			       ",\"lost_ring\":%" PRIu64 ",\"lost_wire\":%" PRId64
			       ",\"loss_pct\":%.3f,\"send_eagain\":%" PRIu64 "}\n",
			       kind_names[o.kind], o.size, rates[s], sent, ach, got, lr,
			       lw, loss, pr->eagain[s]);
		else {
			char off[24] = "max";

			if (rates[s])
				snprintf(off, sizeof(off), "%ld", rates[s]);
			printf(" %-12s %-10" PRIu64 " %-14.0f %-10" PRIu64 " %-10" PRIu64
			       " %-10" PRId64 " %-8.3f\n", off, sent, ach, got, lr, lw, loss);
		}
		total += sent;
		delivered += got;
	}
	/* exact: the feed took feed_rx = delivered + lost in the ring */
	if (o.json)
		printf("{\"mode\":\"rate\",\"total\":true,\"sent\":%" PRIu64 ",\"feed_rx\":%" PRIu64
		       ",\"delivered\":%" PRIu64 ",\"lost_ring\":%" PRIu64 ",\"lost_wire\":%" PRId64
		       ",\"other\":%" PRIu64 "}\n", total, res.feed_rx, delivered, res.lost_total,
		       (int64_t)(total - res.feed_rx), res.other);
	else
		printf("# in all: sent %" PRIu64 "; the feed took %" PRIu64 " (lost on the wire %" PRId64
		       ") = delivered %" PRIu64 " + lost in the ring %" PRIu64 "\n", total,
		       res.feed_rx, (int64_t)(total - res.feed_rx), delivered, res.lost_total);
	return 0;
}

/*
 * fanout: for each reader count N, N readers (children) on a fresh feed,
 * -n probes at -r per second; the kernel's cost per tick (receive CQ
 * drain time / ticks) and the latency over all readers' samples.
 */
/*
 * Collect the publisher @pub and readers @kids; the first that fails
 * stops the others (done = 2, then SIGKILL).  Returns 0 if all did well.
 */
static int wait_all(pid_t pub, pid_t *kids, int nr, struct pubres *pr)
{
	int left = nr + 1, failed = 0, st, i;
	pid_t pid;

	while (left > 0) {
		pid = waitpid(-1, &st, 0);
		if (pid < 0)
			die("waitpid");
		if (pid != pub) {
			for (i = 0; i < nr && kids[i] != pid; i++)
				;
			if (i == nr)
				continue;	/* not one of these */
			kids[i] = 0;
		} else {
			pub = 0;
		}
		left--;
		if (!child_failed(st) || failed++)
			continue;
		__atomic_store_n(&pr->done, 2, __ATOMIC_RELEASE);
		if (pub > 0)
			kill(pub, SIGKILL);
		for (i = 0; i < nr; i++)
			if (kids[i] > 0)
				kill(kids[i], SIGKILL);
	}
	return failed || pr->done != 1;
}

static int fanout_run(void)
{
	long count = o.n + o.warm, rate = o.rate;
	int f, i, ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	double base_ns = 0, base_fill = 0;

	pin(o.cpu);
	env_print();
	if (!o.json)
		printf(" %-8s %-12s %-8s %-10s %-8s %-10s %-14s %-14s %-10s %-10s\n", "readers",
		       "kernel[ns]", "ratio", "fill[ns]", "ratio", "wake[ns]",
		       "median[usec]", "p99.9[usec]", "delivered", "lost");
	for (f = 0; f < o.nfanout; f++) {
		int nr = (int)o.fanout[f];
		unsigned int port = o.port + (unsigned int)f;
		struct pubres *pr = shared(sizeof(*pr));
		struct rdres *rr = shared(sizeof(*rr) * (size_t)nr);
		uint64_t *lat = shared(sizeof(*lat) * (size_t)o.n * (size_t)nr);
		uint64_t *all, got = 0, lost = 0, pub_sent, feed_rx = 0, drain = 0;
		uint64_t wake = 0;
		size_t nall = 0;
		struct latstats s;
		pid_t pid, *kids = calloc((size_t)nr, sizeof(pid_t));
		char rbuf[32], fbuf[32];
		double ns, fill_ns, wake_ns;

		if (!kids)
			die("calloc");
		pid = spawn_publisher(port, 1, &count, &rate, pr, nr);
		for (i = 0; i < nr; i++) {
			kids[i] = fork_child();
			if (!kids[i]) {
				/* more spinners than CPUs: let the publisher
				 * and the softirqs being measured run */
				if (o.kind == TICKRD_MAPPED && nr >= ncpus && nice(19) < 0)
					die("nice");
				reader(port, &rr[i], pr, lat + (size_t)i * (size_t)o.n,
				       NULL, NULL, o.n);
				_exit(0);
			}
		}
		if (wait_all(pid, kids, nr, pr)) {
			fprintf(stderr, "%s: a reader or the publisher failed\n", PROG);
			return 1;
		}
		pub_sent = pr->sent[0];
		all = calloc((size_t)o.n * (size_t)nr, sizeof(*all));
		if (!all)
			die("calloc");
		for (i = 0; i < nr; i++) {
			memcpy(all + nall, lat + (size_t)i * (size_t)o.n,
			       rr[i].n * sizeof(*all));
			nall += rr[i].n;
			got += rr[i].got[0];
			lost += rr[i].lost_total;
			if (rr[i].feed_rx > feed_rx) {
				feed_rx = rr[i].feed_rx;
				drain = rr[i].drain_ns;
				wake = rr[i].wake_ns;
			}
		}
		latstats_compute(&s, all, nall);
		ns = feed_rx ? (double)drain / (double)feed_rx : 0;
		/* the wake-ups grow with the readers asleep, the rest must not */
		wake_ns = feed_rx ? (double)wake / (double)feed_rx : 0;
		fill_ns = ns - wake_ns;
		if (!f) {
			base_ns = ns;
			base_fill = fill_ns;
		}
		if (o.json)
			printf("{\"mode\":\"fanout\",\"kind\":\"%s\",\"MsgSize\":%ld,\"readers\":%d,"
			       "\"published\":%" PRIu64 ",\"feed_rx\":%" PRIu64
			       ",\"kernel_ns_per_tick\":%.0f,\"ratio\":%s,"
			       "\"fill_ns_per_tick\":%.0f,\"fill_ratio\":%s,"
			       "\"wake_ns_per_tick\":%.0f,"
			       "\"t_typical\":%.2f,\"percentile_99.9\":%.2f,\"t_max\":%.2f,"
			       "\"delivered\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n",
			       kind_names[o.kind], o.size, nr, pub_sent, feed_rx, ns,
			       ratio_str(rbuf, ns, base_ns), fill_ns,
			       ratio_str(fbuf, fill_ns, base_fill), wake_ns,
			       s.typical / 1e3, s.p99_9 / 1e3, s.max / 1e3, got, lost);
		else
			printf(" %-8d %-12.0f %-8.2f %-10.0f %-8.2f %-10.0f %-14.2f %-14.2f %-10" PRIu64
			       " %-10" PRIu64 "\n",
			       nr, ns, base_ns ? ns / base_ns : 0, fill_ns,
			       base_fill ? fill_ns / base_fill : 0, wake_ns, s.typical / 1e3,
			       s.p99_9 / 1e3, got, lost);
		fflush(stdout);
		if (f == o.nfanout - 1)
			hist_out(all, nall, "one way, all readers");
		free(all);
		free(kids);
		munmap(lat, sizeof(*lat) * (size_t)o.n * (size_t)nr);
		munmap(rr, sizeof(*rr) * (size_t)nr);
		munmap(pr, sizeof(*pr));
	}
	return 0;
}

/* ---- arb: an arbitrated feed of two rails against its fast rail alone -- */

/*
 * The feeds of path @j (ports as lat's: PORT + 2j out, PORT + 2j + 1 back):
 * pings on GROUP from this side's netdev to the echo's; each answer on
 * rail A (GROUP + 1, from -I to -L) and then on rail B (GROUP + 3, from
 * --peer-rail-b to --rail-b).  The arbitrated feed of both rails (made
 * with `ibtick feed add ... arbitrate`, deleted after its row) or rail A
 * alone as a plain feed is what this side reads; the echo side does the
 * same work for both.  rail-a-b reads rail A alone as rail-a does, while a
 * plain feed on rail B (bound, mapped, never read) takes rail B's copies:
 * the second rail's receive work without the arbitration, the control that
 * tells what arb costs over receiving both rails.  The -cost paths publish
 * on both rails at -r RATE (no pings) and compare the kernel's receive
 * work per completion.
 */
static const char *const arb_path_names[AP_NPATHS] = {
	"arb", "rail-a", "arb-cost", "rail-a-cost", "rail-a-b",
};

/* The kernel's receive work for one row, from the feeds' counters. */
struct arbres {
	uint64_t drain_ns, cqes, rx;	/* the rails summed, or the plain feed */
	uint64_t delivered;		/* ticks the reader's feed delivered */
	struct {
		uint64_t drain_ns, cqes, rx, won, dup;
	} rail[2];
	uint64_t published, got, lost, resent;
};

/* Run `ibtick ARGS...`; its output (malloc'd) when it exited 0, else NULL. */
static char *arb_cli_run(char **args)
{
	char *argv[32];
	int i, fd, status;
	pid_t pid;
	char *out;

	argv[0] = (char *)ibtick_cli();
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = spawn(argv, -1, &fd);
	out = slurp(fd, 30);
	if (waitpid(pid, &status, 0) < 0 || child_failed(status)) {
		fprintf(stderr, "%s: %s %s: %s\n", PROG, argv[0], args[0], out);
		free(out);
		return NULL;
	}
	return out;
}

/* The unsigned number after "KEY": at or after @from, before @end (or NULL). */
static bool json_u64(const char *from, const char *end, const char *key, uint64_t *v)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\"", key);
	p = strstr(from, k);
	if (!p || (end && p >= end))
		return false;
	p += strlen(k);
	while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t')
		p++;
	*v = strtoull(p, NULL, 10);
	return true;
}

/* Where the object of the feed named @name starts in `feed show -j` output. */
static const char *json_feed(const char *s, const char *name)
{
	char want[96];
	const char *p = s;
	size_t n;

	snprintf(want, sizeof(want), "\"%s\"", name);
	n = strlen(want);
	while ((p = strstr(p, "\"name\""))) {
		p += 6;
		while (*p == ' ' || *p == ':')
			p++;
		if (!strncmp(p, want, n))
			return p;
	}
	return NULL;
}

static void arb_feed_name(char *buf, size_t len, unsigned int port)
{
	snprintf(buf, len, "perf.arb.%u", port);
}

/* `ibtick feed add NAME arbitrate` the two rails on @port; its id, or 0. */
static uint32_t arb_feed_add(unsigned int port)
{
	char name[32], p[8], *out;
	char *add[] = { "feed", "add", name, "arbitrate",
			"rail", o.group2, p, (char *)o.ifname,
			"rail", o.group_b, p, (char *)o.ifname_b,
			"seq-field", "off", "8", "width", "8", "le", NULL };
	char *show[] = { "-j", "feed", "show", name, NULL };
	uint64_t id = 0;

	arb_feed_name(name, sizeof(name), port);
	snprintf(p, sizeof(p), "%u", port);
	out = arb_cli_run(add);
	if (!out)
		return 0;
	free(out);
	out = arb_cli_run(show);
	if (out && !json_u64(out, NULL, "id", &id))
		id = 0;
	free(out);
	return (uint32_t)id;
}

/*
 * The arbitration counters of reader @d's feed (IBTICK_ARB_STATISTICS)
 * into @r, once rail B's last copies are in: rail B carried every tick
 * rail A did, only later (netem), so wait, 2 s at most, until it has
 * received as many.
 */
static void arb_counts(struct tickrd *d, struct arbres *r)
{
	struct ibtick_arb_stats st;
	socklen_t len;
	int i, tries = 0;

	do {
		if (tries)
			usleep(10000);
		memset(&st, 0, sizeof(st));
		len = sizeof(st);
		if (getsockopt(d->fd, SOL_IBTICK, IBTICK_ARB_STATISTICS, &st, &len))
			die("IBTICK_ARB_STATISTICS");
	} while (st.rail[1].rx < st.rail[0].rx && ++tries < 200);
	r->delivered = st.delivered;
	r->rx = 0;
	for (i = 0; i < 2; i++) {
		r->rail[i].rx = st.rail[i].rx;
		r->rail[i].won = st.rail[i].won;
		r->rail[i].dup = st.rail[i].dup;
		r->rx += st.rail[i].rx;
	}
}

/*
 * The counters of reader @d's arbitrated feed into @r (the arbitration's
 * from the socket, the rails' receive work from `ibtick -j -s feed show`),
 * then `ibtick feed del NAME`.
 */
static void arb_feed_done(struct tickrd *d, unsigned int port, struct arbres *r)
{
	char name[32], rail[40], *out;
	char *show[] = { "-j", "-s", "feed", "show", NULL };
	char *del[] = { "feed", "del", name, NULL };
	const char *f, *p;
	uint64_t v;
	int i;

	arb_counts(d, r);
	arb_feed_name(name, sizeof(name), port);
	out = arb_cli_run(show);
	for (i = 0; out && i < 2; i++) {
		snprintf(rail, sizeof(rail), "%s.r%d", name, i);
		f = json_feed(out, rail);
		if (!f)
			continue;
		p = strstr(f, "\"name\"");	/* this feed's object ends before */
		json_u64(f, p, "rx_drain_ns", &r->rail[i].drain_ns);
		r->rail[i].cqes = 0;
		if (json_u64(f, p, "cqe_irq", &v))
			r->rail[i].cqes += v;
		if (json_u64(f, p, "cqe_thread", &v))
			r->rail[i].cqes += v;
		if (json_u64(f, p, "cqe_caller", &v))
			r->rail[i].cqes += v;
		r->drain_ns += r->rail[i].drain_ns;
		r->cqes += r->rail[i].cqes;
	}
	free(out);
	out = arb_cli_run(del);
	free(out);
}

/* The reader of path @path on @port: the arbitrated feed, or rail A alone. */
static void arb_reader(struct tickrd *d, int path, unsigned int port)
{
	struct tickrd_opts ro = { .busy_cpu = -2 };

	if (path == AP_ARB || path == AP_ARB_COST) {
		uint32_t id = arb_feed_add(port);

		if (!id) {
			errno = EINVAL;
			die("ibtick feed add ... arbitrate (is ibtick in PATH? IBTICK_CLI)");
		}
		if (tickrd_open_id(d, TICKRD_MAPPED, id, &ro))
			die(d->failed);
	} else if (tickrd_open(d, TICKRD_MAPPED, o.group2, port, o.ifname, &ro)) {
		die(d->failed);
	}
}

/* The plain feed's own counters into @r (rail A alone). */
static void arb_plain_done(struct tickrd *d, struct arbres *r)
{
	struct ibtick_stats st;

	if (tickrd_stats(d, &st))
		die("IBTICK_STATISTICS");
	r->drain_ns = st.feed_rx_drain_ns;
	r->cqes = st.feed_cqe_irq + st.feed_cqe_thread + st.feed_cqe_caller;
	r->rx = st.feed_rx_ticks;
	r->delivered = st.feed_rx_ticks;
}

/* Send @buf on rail A, then on rail B. */
static void arb_send_both(int pa, int pb, const void *buf, size_t len, uint64_t *eagain)
{
	pub_send(pa, buf, len, eagain);
	pub_send(pb, buf, len, eagain);
}

/* The echo side: each ping back on rail A, then on rail B. */
static void arb_echo(unsigned int port, int ready_fd)
{
	char buf[MAX_MSG];
	struct tickrd d;
	uint64_t ts[2], eagain = 0;
	int pa, pb;
	ssize_t got;

	rdr_open(&d, TICKRD_MAPPED, o.ifname2, o.group, port);
	pa = pub_open(o.ifname2, o.group2, port + 1);
	pb = pub_open(o.ifname_b2, o.group_b, port + 1);
	if (write(ready_fd, "r", 1) != 1)
		die("echo ready");
	for (;;) {
		got = rdr_get(&d, buf, sizeof(buf), ts, 60000);
		if (got < 0)
			break;
		if (got > 0)
			arb_send_both(pa, pb, buf, (size_t)got, &eagain);
	}
}

/* Ping-pong on the feeds of @port; o.n samples into @lat. */
static int arb_lat(int path, unsigned int port, uint64_t *lat, struct arbres *r)
{
	char buf[MAX_MSG], in[MAX_MSG];
	struct probe *p = (struct probe *)buf;
	uint64_t t0, ts[2], eagain = 0, seq = 0;
	int ready[2], pub, rc = 0, in_a_row = 0;
	struct tickrd d, sink = { .fd = -1, .ep = -1 };
	ssize_t got;
	long i;

	if (pipe(ready))
		die("pipe");
	echo_child = fork_child();
	if (!echo_child) {
		close(ready[0]);
		pin(o.cpu2);
		arb_echo(port, ready[1]);
		_exit(0);
	}
	close(ready[1]);
	pin(o.cpu);
	arb_reader(&d, path, port + 1);
	if (path == AP_RAIL_B) {
		struct tickrd_opts ro = { .busy_cpu = -2 };

		/* rail B's copies into a ring nobody reads (it laps) */
		if (tickrd_open(&sink, TICKRD_MAPPED, o.group_b, port + 1, o.ifname_b, &ro))
			die(sink.failed);
	}
	pub = pub_open(o.ifname, o.group, port);
	wait_ready(ready[0]);
	memset(buf, 0x33, sizeof(buf));
	p->magic = PROBE_MAGIC;
	p->step = 0;
	for (i = 0; i < o.n + o.warm && !rc; i++) {
		/* a number per send, a resent sample too: the arbiter's
		 * sequence (the payload's bytes 8..15) only rises */
		p->seq = ++seq;
		t0 = now_ns(CLOCK_MONOTONIC);
		pub_send(pub, buf, (size_t)o.size, &eagain);
		for (;;) {
			got = rdr_get(&d, in, sizeof(in), ts, o.timeout_ms);
			if (got < 0) {
				fprintf(stderr, "%s: the feed went away\n", PROG);
				rc = 1;
				break;
			}
			if (got == 0 && now_ns(CLOCK_MONOTONIC) - t0 <
			    (uint64_t)o.timeout_ms * 1000000)
				continue;	/* a gap marker (no data), not silence */
			if (got == 0)
				break;
			if ((size_t)got >= sizeof(*p) &&
			    ((struct probe *)in)->seq == p->seq)
				break;	/* else a late answer to an old sample */
		}
		if (rc)
			break;
		if (got == 0) {
			r->resent++;
			if (++in_a_row >= 10) {
				fprintf(stderr, "%s: no answer 10 times in a row: is the echo side running?\n", PROG);
				rc = 1;
			}
			i--;
			continue;
		}
		in_a_row = 0;
		if (i >= o.warm)
			lat[i - o.warm] = (now_ns(CLOCK_MONOTONIC) - t0) / 2;
	}
	kill_echo();
	close(pub);
	r->got = (uint64_t)(o.n + o.warm);
	r->lost = d.lost;
	if (path == AP_ARB)
		arb_feed_done(&d, port + 1, r);
	else
		arb_plain_done(&d, r);
	tickrd_close(&d);
	if (path == AP_RAIL_B) {
		struct ibtick_stats st;
		int tries = 0;

		/*
		 * the sink's work too: both rails' receive work, as arb's,
		 * once rail B's last copies are in (later, by netem: wait 2 s
		 * at most until it has received what rail A did, as
		 * arb_counts())
		 */
		do {
			if (tries)
				usleep(10000);
			if (tickrd_stats(&sink, &st))
				die("IBTICK_STATISTICS");
		} while (st.feed_rx_ticks < r->rx && ++tries < 200);
		r->rail[1].drain_ns = st.feed_rx_drain_ns;
		r->rail[1].cqes = st.feed_cqe_irq + st.feed_cqe_thread + st.feed_cqe_caller;
		r->rail[1].rx = st.feed_rx_ticks;
		r->rail[0].rx = r->rx;
		r->rx += st.feed_rx_ticks;
		r->drain_ns += r->rail[1].drain_ns;
		r->cqes += r->rail[1].cqes;
		tickrd_close(&sink);
	}
	return rc;
}

/* Publish o.n + o.warm ticks on both rails at o.rate; read them. */
static int arb_cost(int path, unsigned int port, struct arbres *r)
{
	long count = o.n + o.warm;
	char buf[MAX_MSG], in[MAX_MSG];
	struct probe *p = (struct probe *)buf;
	uint64_t ts[2], last = 0;
	struct tickrd d;
	pid_t pub;
	int status;
	ssize_t got;

	pin(o.cpu);
	arb_reader(&d, path, port + 1);
	pub = fork_child();
	if (!pub) {
		uint64_t t0, eagain = 0;
		int pa, pb;
		long i;

		pin(o.cpu2);
		pa = pub_open(o.ifname2, o.group2, port + 1);
		pb = pub_open(o.ifname_b2, o.group_b, port + 1);
		usleep(200000);	/* the reader's joins */
		memset(buf, 0x33, sizeof(buf));
		p->magic = PROBE_MAGIC;
		p->step = 0;
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < count; i++) {
			if (o.rate)
				while (now_ns(CLOCK_MONOTONIC) <
				       t0 + (uint64_t)i * 1000000000ULL / (uint64_t)o.rate)
					;
			p->seq = (uint64_t)i + 1;
			p->t_ns = now_ns(CLOCK_REALTIME);
			arb_send_both(pa, pb, buf, (size_t)o.size, &eagain);
		}
		_exit(0);
	}
	for (;;) {
		got = rdr_get(&d, in, sizeof(in), ts, o.timeout_ms);
		if (got < 0)
			break;
		if (got == 0 && waitpid(pub, &status, WNOHANG) == pub) {
			/* the publisher is done and the feed quiet */
			pub = -1;
			break;
		}
		if ((size_t)got >= sizeof(*p) && ((struct probe *)in)->magic == PROBE_MAGIC) {
			r->got++;
			last = ((struct probe *)in)->seq;
			if ((long)last == count)
				break;
		}
	}
	if (pub > 0 && (waitpid(pub, &status, 0) < 0 || child_failed(status))) {
		fprintf(stderr, "%s: the publisher failed\n", PROG);
		tickrd_close(&d);
		return 1;
	}
	r->published = (uint64_t)count;
	r->lost = d.lost;
	if (path == AP_ARB_COST)
		arb_feed_done(&d, port + 1, r);
	else
		arb_plain_done(&d, r);
	tickrd_close(&d);
	return 0;
}

static void arb_print(int path, const struct arbres *r, uint64_t *lat, size_t n)
{
	double per_cqe = r->cqes ? (double)r->drain_ns / (double)r->cqes : 0;
	double per_tick = r->delivered ? (double)r->drain_ns / (double)r->delivered : 0;
	struct latstats s;
	int i;

	if (!o.json) {
		printf("# %s: kernel %.0f ns per completion (%" PRIu64 " completions), "
		       "%.0f ns per delivered tick (%" PRIu64 ")\n", arb_path_names[path],
		       per_cqe, r->cqes, per_tick, r->delivered);
		if (n) {
			latstats_compute(&s, lat, n);
			latstats_print_row(stdout, (size_t)o.size, &s);
		}
		fflush(stdout);
		return;
	}
	printf("{\"mode\":\"arb\",\"kind\":\"%s\",\"class\":\"spin\",\"MsgSize\":%ld",
	       arb_path_names[path], o.size);
	if (n) {
		latstats_compute(&s, lat, n);
		printf(",\"n_iterations\":%zu,\"t_min\":%.2f,\"t_max\":%.2f,"
		       "\"t_typical\":%.2f,\"t_avg\":%.2f,\"t_stdev\":%.2f,"
		       "\"percentile_99\":%.2f,\"percentile_99.9\":%.2f,"
		       "\"percentile_99.99\":%.2f,\"resent\":%" PRIu64,
		       s.n, s.min / 1e3, s.max / 1e3, s.typical / 1e3, s.avg / 1e3,
		       s.stdev / 1e3, s.p99 / 1e3, s.p99_9 / 1e3, s.p99_99 / 1e3, r->resent);
	} else {
		printf(",\"rate\":%ld,\"published\":%" PRIu64 ",\"read\":%" PRIu64,
		       o.rate, r->published, r->got);
	}
	printf(",\"reader_lost\":%" PRIu64 ",\"kernel_drain_ns\":%" PRIu64
	       ",\"completions\":%" PRIu64 ",\"rx\":%" PRIu64 ",\"delivered\":%" PRIu64
	       ",\"kernel_ns_per_cqe\":%.1f,\"kernel_ns_per_tick\":%.1f",
	       r->lost, r->drain_ns, r->cqes, r->rx, r->delivered, per_cqe, per_tick);
	if (path == AP_ARB || path == AP_ARB_COST) {
		printf(",\"rails\":[");
		for (i = 0; i < 2; i++)
			printf("%s{\"rail\":\"%c\",\"drain_ns\":%" PRIu64 ",\"completions\":%" PRIu64
			       ",\"rx\":%" PRIu64 ",\"won\":%" PRIu64 ",\"dup\":%" PRIu64 "}",
			       i ? "," : "", 'A' + i, r->rail[i].drain_ns, r->rail[i].cqes,
			       r->rail[i].rx, r->rail[i].won, r->rail[i].dup);
		printf("]");
	}
	printf("}\n");
	fflush(stdout);
}

static int arb_run(void)
{
	uint64_t *lat = calloc((size_t)o.n, sizeof(*lat));
	int j, rc = 0;

	if (!lat)
		die("calloc");
	atexit(kill_echo);
	env_print();
	for (j = 0; j < o.narb && !rc; j++) {
		unsigned int port = o.port + 2 * (unsigned int)j;
		int path = o.arb[j];
		struct arbres r;

		memset(&r, 0, sizeof(r));
		if (path == AP_ARB || path == AP_RAIL || path == AP_RAIL_B) {
			rc = arb_lat(path, port, lat, &r);
			if (!rc) {
				snprintf(o.raw_name, sizeof(o.raw_name), "%s", arb_path_names[path]);
				raw_out(lat, (size_t)o.n);
				arb_print(path, &r, lat, (size_t)o.n);
			}
		} else {
			rc = arb_cost(path, port, &r);
			if (!rc)
				arb_print(path, &r, NULL, 0);
		}
	}
	free(lat);
	return rc;
}

/* @g + @k (the last address byte), as text into @out: lat's other groups. */
static int group_next(const char *g, unsigned int k, char *out, size_t len)
{
	unsigned char a[16];
	int af = strchr(g, ':') ? AF_INET6 : AF_INET;
	int last = af == AF_INET ? 3 : 15;

	if (inet_pton(af, g, a) != 1 || a[last] + k > 255)
		return -1;
	a[last] = (unsigned char)(a[last] + k);
	return inet_ntop(af, a, out, (socklen_t)len) ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s MODE [options] GROUP PORT\n"
		"  MODE: lat | oneway | rate | fanout | arb\n"
		"  -L IF       --netdev: this side's netdev (readers), or, as perftest names it:\n"
		"  -d DEV      --ib-dev: this side's RDMA device, its port's netdev, with\n"
		"  -i PORT     --ib-port: the device's port (default 1) and\n"
		"  -x INDEX    --gid-index: the GID table entry whose netdev (RoCE; a VLAN's,\n"
		"              say) is meant (default 0); InfiniBand: the port's IPoIB netdev\n"
		"  -I IF       --peer-netdev: the other side's netdev (echo or publisher,\n"
		"              run as a child)\n"
		"  -e          lat: be the echo side (or the path's server) only, for two hosts\n"
		"  --peer IPV4 lat: the echo side is that host's lat -e (instead of -I)\n"
		"  -k KIND     reader: mapped (default), epoll, recvmsg, busy (SO_BUSY_POLL);\n"
		"              lat takes a list (mapped,busy,...): a row for each, in that\n"
		"              order; lat also takes kpoll (epoll reader, each feed's busy-\n"
		"              poll thread on its side's CPU), busy-prefer (busy with\n"
		"              SO_PREFER_BUSY_POLL), floor (ib_send_lat -c UD), udp\n"
		"              (sockperf, blocking), udp-spin (sockperf --nonblocked), run and\n"
		"              run-spin (the same sockperf under ibtick-run, over feeds),\n"
		"              spin-1g (recvmsg(MSG_DONTWAIT) in a loop with SO_BUSY_POLL)\n"
		"              and recvmsg-1g, on one group both ways as sockperf's ping-pong\n"
		"              (what run-spin and run are held to); inet, inet-spin, inet-run,\n"
		"              inet-run-spin: our own AF_INET ping-pong (udppp) laid out as\n"
		"              sockperf's, on kernel UDP and under ibtick-run; spin-1g-ev,\n"
		"              run-spin-ev, inet-run-spin-ev: those spinning without busy\n"
		"              polling (as --busy-us 0), in the same run as the others\n"
		"  --busy-us US  busy, busy-prefer, spin-1g, run-spin and inet-run-spin readers:\n"
		"              SO_BUSY_POLL (default 200; 0: none, the spinning readers then\n"
		"              take what the CQ event brings)\n"
		"  --prefer-defer US  busy-prefer reads feeds made for it (ibtick feed add; PATH or IBTICK_CLI)\n"
		"              with that prefer-defer (0..100000), deleted after; needs CAP_NET_ADMIN\n"
		"  -B CPU      feed in busy-poll mode, kernel thread on CPU (-1: any)\n"
		"  -n N        samples (default 100000), after -w WARMUP (default 1000)\n"
		"  -s SIZE     payload bytes (default 64); -a: 32, 64, ... up to -S MAX (1024)\n"
		"  -r RATE     oneway/fanout: ticks/s (default 10000, 0: flat out);\n"
		"              rate: the first step (0: the flat-out step alone)\n"
		"  -N LIST     fanout: reader counts, e.g. 1,2,4,8,16\n"
		"  -c CPU, -C CPU  pin this side, the other side\n"
		"  -j          JSON lines (perftest's keys)\n"
		"  -H FILE     --hist: latency histogram as SVG\n"
		"  --compare   lat: also ib_send_lat -c UD (before and after) and sockperf\n"
		"              UDP multicast ping-pong on the same netdevs; one table\n"
		"  --raw PFX   lat: every sample (ns, one a line) into PFX<path>.txt\n"
		"  --counts    lat: kernel work per round trip (system calls per side,\n"
		"              softirqs, CQ events and arms, QP deliveries, allocations)\n"
		"              from tracefs and counters; tracing slows the run: count\n"
		"              in a run of its own\n"
		"  --rail-b IF       arb: this side's netdev of rail B (-L is rail A's)\n"
		"  --peer-rail-b IF  arb: the other side's netdev of rail B (-I: rail A's)\n"
		"  -k PATHS    arb: a list of arb (ping-pong, reading the arbitrated feed\n"
		"              of both rails), rail-a (ping-pong, rail A alone as a plain\n"
		"              feed), rail-a-b (rail-a, with rail B's copies taken by a\n"
		"              plain feed nobody reads), arb-cost, rail-a-cost (both rails published at -r\n"
		"              RATE: the kernel's receive work per completion); default\n"
		"              arb,rail-a; needs `ibtick` in PATH (or IBTICK_CLI)\n"
		"lat pings on GROUP/PORT and answers on GROUP + 1/PORT + 1 (the -1g paths\n"
		"on GROUP/PORT; sockperf uses GROUP + 2/PORT + 100, udppp GROUP + 2/PORT + 110);\n"
		"with several paths, path i uses PORT + 2i; arb answers on\n"
		"rail A GROUP + 1 and rail B GROUP + 3, both PORT + 2i + 1\n", PROG);
	exit(2);
}

/*
 * A comma-separated list of @n @names, each at most once, into @out (their
 * indexes, in order) and *@nout; -1 for an unknown, repeated or no name.
 * With @ev_ok, NAME-ev is NAME's index | PATH_EV where @ev_ok(index).
 */
static int parse_names(const char *arg, const char *const *names, int n,
		       bool (*ev_ok)(int), int *out, int *nout)
{
	char copy[512], *tok, *save;
	size_t len;
	int k, j, ev;

	if (strlen(arg) >= sizeof(copy))
		return -1;
	strcpy(copy, arg);
	*nout = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		len = strlen(tok);
		ev = 0;
		if (ev_ok && len > 3 && !strcmp(tok + len - 3, "-ev")) {
			tok[len - 3] = 0;
			ev = PATH_EV;
		}
		for (k = 0; k < n && strcmp(tok, names[k]); k++)
			;
		if (k == n || (ev && !ev_ok(k)))
			return -1;
		for (j = 0; j < *nout; j++)
			if (out[j] == (k | ev))
				return -1;
		out[(*nout)++] = k | ev;
	}
	return *nout ? 0 : -1;
}

/*
 * -k mapped,busy,...: each path once (lat also takes the paths of enum
 * path, and KIND-ev of the spinning ones that busy-poll); one reader kind
 * only outside lat.  For arb: arb, rail-a, rail-a-b, arb-cost, rail-a-cost.
 */
static int parse_kinds(const char *arg)
{
	if (o.mode == M_ARB)
		return parse_names(arg, arb_path_names, AP_NPATHS, NULL, o.arb, &o.narb);
	return parse_names(arg, path_names, P_NPATHS, path_has_ev, o.paths, &o.nkinds);
}

static int parse_list(const char *arg)
{
	char *end;
	long v;

	o.nfanout = 0;
	for (;;) {
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || v < 1 || v > 64 || o.nfanout == 8)
			return -1;
		o.fanout[o.nfanout++] = v;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		arg = end + 1;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "hist", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "compare", no_argument, NULL, 'X' },
		{ "raw", required_argument, NULL, 'R' },
		{ "counts", no_argument, NULL, 'K' },
		{ "busy-us", required_argument, NULL, 'U' },
		{ "prefer-defer", required_argument, NULL, 'D' + 256 },
		{ "netdev", required_argument, NULL, 'L' },
		{ "peer-netdev", required_argument, NULL, 'I' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'x' },
		{ "rail-b", required_argument, NULL, 'b' + 256 },
		{ "peer-rail-b", required_argument, NULL, 'p' + 256 },
		{ "peer", required_argument, NULL, 'P' + 256 },
		{ NULL, 0, NULL, 0 },
	};
	static char ibnetdev[64];
	const char *ibdev = NULL, *ib_port = NULL, *gid_index = NULL;
	char why[200];
	int opt, m;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "_udppp"))
		return udppp_main(argc, argv);
	for (m = 0; m < NMODES; m++)
		if (!strcmp(argv[1], mode_names[m]))
			break;
	if (m == NMODES)
		usage();
	o.mode = (enum mode)m;
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "aB:c:C:d:ei:I:jH:hk:L:n:N:r:s:S:w:x:",
				  longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': o.sweep = true; break;
		case 'B': o.busy_cpu = (int)NUM(optarg, -1, 4095); break;
		case 'c': o.cpu = (int)NUM(optarg, 0, 4095); break;
		case 'C': o.cpu2 = (int)NUM(optarg, 0, 4095); break;
		case 'd': ibdev = optarg; break;
		case 'e': o.echo = true; break;
		case 'i':
			/* perftest's -i; it named the netdev here before -L */
			if (!*optarg || optarg[strspn(optarg, "0123456789")]) {
				fprintf(stderr, "%s: -i is the RDMA device's port number, as perftest's (-d DEV -i PORT); a netdev is -L %s\n",
					PROG, optarg);
				return 2;
			}
			ib_port = optarg;
			break;
		case 'I': o.ifname2 = optarg; break;
		case 'L': o.ifname = optarg; break;
		case 'x': gid_index = optarg; break;
		case 'j': o.json = true; break;
		case 'X': o.compare = true; break;
		case 'U':
			o.busy_us = (int)NUM(optarg, 0, 1000000);
			if (!o.busy_us)
				o.busy_us = -1;	/* none */
			break;
		case 'D' + 256: o.prefer_defer = (int)NUM(optarg, 0, 100000); break;
		case 'R': o.raw = optarg; break;
		case 'K': o.counts = true; break;
		case 'H': o.hist = optarg; break;
		case 'k':
			if (parse_kinds(optarg))
				usage();
			break;
		case 'b' + 256: o.ifname_b = optarg; break;
		case 'p' + 256: o.ifname_b2 = optarg; break;
		case 'P' + 256: o.peer = optarg; break;
		case 'n': o.n = NUM(optarg, 1, 100000000); break;
		case 'N':
			if (parse_list(optarg))
				usage();
			break;
		case 'r': o.rate = NUM(optarg, 0, 100000000); break;
		case 's': o.size = NUM(optarg, 1, MAX_MSG); break;
		case 'S': o.size_max = NUM(optarg, 16, MAX_MSG); break;
		case 'w': o.warm = NUM(optarg, 0, 100000000); break;
		default: usage();
		}
	}
	if (ibdev && o.ifname) {
		fprintf(stderr, "%s: this side is -L IF or -d DEV [-i PORT] [-x INDEX], not both\n", PROG);
		return 2;
	}
	if (!ibdev && (ib_port || gid_index)) {
		fprintf(stderr, "%s: -i and -x go with -d DEV\n", PROG);
		return 2;
	}
	if (ibdev) {
		unsigned int port = ib_port ? (unsigned int)NUM(ib_port, 1, 255) : 1;
		unsigned int gid = gid_index ? (unsigned int)NUM(gid_index, 0, 65535) : 0;
		const char *sysfs = getenv("IBTICK_SYSFS");	/* tests: a prepared tree */

		if (ibport_netdev(sysfs ? sysfs : "/sys", ibdev, port, gid, ibnetdev,
				  sizeof(ibnetdev), why, sizeof(why))) {
			fprintf(stderr, "%s: -d %s -i %u -x %u: %s\n", PROG, ibdev, port, gid, why);
			return 2;
		}
		fprintf(stderr, "%s: -d %s -i %u -x %u: netdev %s\n", PROG, ibdev, port, gid,
			ibnetdev);
		o.ifname = ibnetdev;
	}
	if (argc - optind != 2 || !o.ifname)
		usage();
	if (!o.nkinds)
		o.paths[o.nkinds++] = TICKRD_MAPPED;
	o.path = o.paths[0] & ~PATH_EV;
	o.ev = o.paths[0] & PATH_EV;
	o.kind = path_kind(o.path);
	o.kpoll = o.path == P_KPOLL;
	o.prefer = o.path == P_BUSY_PREFER;
	o.one_group = o.path == P_SPIN_1G || o.path == P_RECVMSG_1G;
	if (o.nkinds > 1 && (o.mode != M_LAT || o.echo || !o.ifname2)) {
		fprintf(stderr, "%s: several reader kinds are for lat with -I (each kind on its own feeds)\n", PROG);
		return 2;
	}
	if (o.peer) {
		struct in_addr ia;

		if (o.mode != M_LAT || o.ifname2 || o.echo || o.compare ||
		    inet_pton(AF_INET, o.peer, &ia) != 1) {
			fprintf(stderr, "%s: --peer IPV4 is for lat, with neither -I, -e nor --compare (the echo is the other host's lat -e)\n",
				PROG);
			return 2;
		}
	}
	if ((o.ifname_b || o.ifname_b2) && o.mode != M_ARB) {
		fprintf(stderr, "%s: --rail-b and --peer-rail-b are for arb\n", PROG);
		return 2;
	}
	if (o.mode == M_ARB) {
		if (!o.ifname2 || !o.ifname_b || !o.ifname_b2) {
			fprintf(stderr, "%s: arb needs both rails' netdevs on both sides: -I, --rail-b, --peer-rail-b\n", PROG);
			return 2;
		}
		if (o.sweep || o.echo || o.compare || o.counts || o.busy_cpu >= -1 || o.hist) {
			fprintf(stderr, "%s: arb takes no -a, -e, -B, -H, --compare or --counts\n", PROG);
			return 2;
		}
		if (!o.narb) {
			o.arb[o.narb++] = AP_ARB;
			o.arb[o.narb++] = AP_RAIL;
		}
	}
	for (m = 0; m < o.nkinds && o.mode != M_ARB; m++) {
		int pm = o.paths[m] & ~PATH_EV;
		const char *ev = o.paths[m] & PATH_EV ? "-ev" : "";
		bool ours = pm == P_KPOLL || pm == P_BUSY_PREFER ||
			    pm == P_SPIN_1G || pm == P_RECVMSG_1G;

		if (*ev && o.mode != M_LAT) {
			fprintf(stderr, "%s: -k %s-ev is for lat\n", PROG, path_names[pm]);
			return 2;
		}
		if (pm < TICKRD_NKINDS || (o.mode == M_LAT &&
		    (o.ifname2 || o.peer || o.echo || ours)))
			continue;
		fprintf(stderr, "%s: -k %s%s is for lat%s\n", PROG, path_names[pm], ev,
			ours ? "" : " with -I, --peer or -e");
		return 2;
	}
	if (o.kpoll && o.nkinds == 1 && o.busy_cpu < -1)	/* lat -e -k kpoll ... */
		o.busy_cpu = o.cpu;
	o.group = argv[optind];
	if (group_next(o.group, 1, o.group2, sizeof(o.group2)) ||
	    group_next(o.group, 2, o.group_udp, sizeof(o.group_udp)) ||
	    group_next(o.group, 3, o.group_b, sizeof(o.group_b))) {
		fprintf(stderr, "%s: %s: not an IP multicast group\n", PROG, o.group);
		return 2;
	}
	o.port = (unsigned int)NUM(argv[optind + 1], 1, 65535 - 128);	/* udppp: PORT + 110 */
	if (o.mode != M_LAT && !o.ifname2) {
		fprintf(stderr, "%s: %s needs -I (the publisher's netdev)\n", PROG,
			mode_names[o.mode]);
		return 2;
	}
	if (o.mode != M_LAT && (o.sweep || o.echo || o.compare || o.counts ||
				(o.raw && o.mode != M_ARB))) {
		fprintf(stderr, "%s: -a, -e, --compare, --raw and --counts are for lat (--raw: and arb)\n", PROG);
		return 2;
	}
	if (o.compare && (o.sweep || !o.ifname2)) {
		fprintf(stderr, "%s: --compare needs -I and one size (no -a)\n", PROG);
		return 2;
	}
	if (o.size < (long)sizeof(struct probe)) {
		fprintf(stderr, "%s: -s: at least %zu bytes (the probe)\n", PROG,
			sizeof(struct probe));
		return 2;
	}
	if (ibtick_family() < 0) {
		fprintf(stderr, "%s: the ibtick module is not loaded\n", PROG);
		return 1;
	}
	env_read();
	switch (o.mode) {
	case M_LAT: return lat_run();
	case M_ONEWAY: return oneway_run();
	case M_RATE: return rate_run();
	case M_FANOUT: return fanout_run();
	case M_ARB: return arb_run();
	}
	return 2;
}
