// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: a seeded, bounded system-call fuzzer for ibtick.ko, run inside
 * the test guest (tests/vm/fuzz.sh).  What it covers and how to reproduce
 * or minimise a finding: tests/fuzz/README.md.
 *
 *   sysfuzz [-s SEED] [-n OPS] [-p PROCS] [-i IFNAME]... [-g GROUPBASE]
 *           [-t SECONDS] [-S STALL_S] [-w WORKER] [-k MAXOPS] [-v] [-D] [-X]
 *
 * PROCS worker processes (default 4) share OPS operations (default 100000).
 * Worker W draws from an xorshift64* stream seeded from SEED + W; each
 * operation takes exactly one number from it and seeds its own generator
 * with it, so operation #K of worker W makes the same random choices in
 * every run with the same SEED, -n and -p, whatever the results before it.
 *
 * Operations: AF_IBTICK socket() (right and wrong type/protocol), bind,
 * connect, setsockopt/getsockopt (SOL_IBTICK, SOL_SOCKET, SOL_NETLINK),
 * mmap of the ring (correct from IBTICK_RING_INFO, perturbed, random),
 * reads of mapped rings by the header's protocol, munmap/mprotect/madvise/
 * mremap on them, fork with a mapping, sendmsg/recvmsg (random flags, iovecs,
 * names, control buffers; always MSG_DONTWAIT), poll/epoll with timeout 0,
 * dup/close, random generic-netlink requests to the "ibtick" family, and
 * (unless -D) bounded waits of 1..5 ms: a blocking recvmsg with SO_RCVTIMEO
 * and SO_BUSY_POLL set and read back in the same operation, poll and
 * epoll_wait with a timeout.  At most 32 fds and 16 mappings per worker.
 *
 * Errors are expected and only counted.  Failures (exit 1): a worker killed
 * by a signal (its own SIGSEGV/SIGBUS from touching a mapping it made
 * unreadable are caught with sigsetjmp/siglongjmp), a worker that makes no
 * progress for STALL_S seconds (its kernel stack is printed, then it is
 * killed), or an anomaly: the kernel accepting what ibtick.7 says it must
 * refuse (a writable, private, offset or wrong-length ring mapping, a
 * partial munmap/mprotect or a resize of one, a wrong socket type) or a
 * mapped ring whose header disagrees with IBTICK_RING_INFO.  Exit 2: bad
 * usage or the module is not loaded.
 *
 * Never touched: fds it did not open, memory outside its own buffers and
 * mappings, netlink families other than "ibtick" (and nlctrl to find it),
 * other processes, interfaces, files.
 *
 * -X (self-test on a host without the module): AF number -1 (every socket()
 * fails with EAFNOSUPPORT before any module autoload), genl requests go to
 * nlctrl (read-only); the memory, signal, fork and fd machinery runs as in
 * the guest.
 */

#include "sysfuzz.h"

#define X_NAME(n, s, w) s,
static const char *const kind_name[NROW] = { OP_LIST(X_NAME) "(genl reply)" };
#define X_WEIGHT(n, s, w) w,
static unsigned int kind_weight[NKIND] = { OP_LIST(X_WEIGHT) };

/* ---- configuration (set before the workers fork) ----------------------- */

int fam = -1;		/* AF_IBTICK */
int genl_id = -1;	/* "ibtick" genl family (nlctrl with -X) */
uint32_t ifidx[4];
const char *ifnames[4];
int nif;
uint32_t groups[4];	/* network byte order */
const uint16_t feed_ports[] = { 1, 2, 7777, 65535 };
static uint64_t seed = 1;
static long nops = 100000;
static int nprocs = 4;
static double deadline_s;
static int stall_s = 300;
static int only_worker = -1;
static long max_per_worker = -1;
static bool verbose, no_wait, dry;
long ncpu = 1;
size_t pg = 4096;
static struct wstat *stats;

/* ---- the worker --------------------------------------------------------- */

static int pick_kind(struct rng *r)
{
	unsigned int total = 0, x, k;

	for (k = 0; k < NKIND; k++)
		total += kind_weight[k];
	x = rn(r, total);
	for (k = 0; k < NKIND; k++) {
		if (x < kind_weight[k])
			return (int)k;
		x -= kind_weight[k];
	}
	return K_MISC;
}

static void run_op(struct op *o)
{
	switch (o->kind) {
	case K_SOCKET:		op_socket(o); break;
	case K_GENL_SOCKET:	op_genl_socket(o); break;
	case K_EPOLL_CREATE:	op_epoll_create(o); break;
	case K_CLOSE:		op_close(o); break;
	case K_DUP:		op_dup(o); break;
	case K_BIND:		op_bind_connect(o, false); break;
	case K_CONNECT:		op_bind_connect(o, true); break;
	case K_SETSOCKOPT:	op_setsockopt(o); break;
	case K_GETSOCKOPT:	op_getsockopt(o); break;
	case K_MMAP:		op_mmap(o); break;
	case K_TOUCH:		op_touch(o); break;
	case K_MUNMAP:		op_munmap(o); break;
	case K_MPROTECT:	op_mprotect(o); break;
	case K_MADVISE:		op_madvise(o); break;
	case K_MREMAP:		op_mremap(o); break;
	case K_SENDMSG:		op_sendmsg(o); break;
	case K_RECVMSG:		op_recvmsg(o); break;
	case K_POLL:		op_poll(o); break;
	case K_EPOLL_CTL:	op_epoll_ctl(o); break;
	case K_EPOLL_WAIT:	op_epoll_wait(o); break;
	case K_FORK_MAP:	op_fork_map(o); break;
	case K_GENL_SEND:	op_genl_send(o); break;
	case K_GENL_RECV:	op_genl_recv(o); break;
	case K_TIMED_WAIT:	op_timed_wait(o); break;
	default:		op_misc(o); break;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *map_or_die(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "sysfuzz: worker %d: mmap of %zu bytes: %s\n", wid, len,
			strerror(errno));
		_exit(2);
	}
	return p;
}

static void worker_setup(void)
{
	struct sockaddr_ibtick sa;
	struct sigaction act;
	int i;

	memset(&act, 0, sizeof(act));
	act.sa_handler = on_fault;
	sigemptyset(&act.sa_mask);
	sigaction(SIGSEGV, &act, NULL);
	sigaction(SIGBUS, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < MAXFD; i++)
		slots[i].fd = -1;
	for (i = 0; i < MAXMAP; i++)
		maps[i].bay = -1;
	arena = map_or_die(NBAY * BAY, PROT_NONE);
	rw_guard = map_or_die(2 * pg, PROT_READ | PROT_WRITE);
	mprotect(rw_guard + pg, pg, PROT_NONE);
	ro_page = map_or_die(pg, PROT_READ | PROT_WRITE);
	memset(&sa, 0, sizeof(sa));
	sa.sibt_family = (uint16_t)fam;
	sa.sibt_port = feed_ports[2];
	sa.sibt_ifindex = nif ? ifidx[0] : 0;
	sa.sibt_group_family = AF_INET;
	memcpy(sa.sibt_group, &groups[0], 4);
	memcpy(ro_page, &sa, sizeof(sa));
	mprotect(ro_page, pg, PROT_READ);
	hole = map_or_die(pg, PROT_READ);
	munmap(hole, pg);
}

/* Finish: close and unmap in random order, or leave it all to exit(). */
static void worker_teardown(struct rng *r)
{
	int i, k;

	reap_children(true);
	if (pct(r, 50))
		return;
	for (k = 0; k < 2 * MAXFD; k++) {
		i = (int)rn(r, MAXFD);
		if (slots[i].fd >= 0 && pct(r, 50))
			slot_close(i);
		i = (int)rn(r, MAXMAP);
		if (maps[i].addr)
			map_drop(i, true);
	}
}

static int worker_main(int w, uint64_t n)
{
	struct rng wr = { splitmix64(seed + (uint64_t)w) | 1 };
	double t0 = now_s(), dl = deadline_s > 0 ? t0 + deadline_s : 0;
	struct op o;
	char line[400];
	int len;

	wid = w;
	ws = &stats[w];
	worker_setup();
	for (opno = 0; opno < n; opno++) {
		if (max_per_worker >= 0 && opno >= (uint64_t)max_per_worker)
			break;
		if (dl && now_s() > dl) {
			ws->deadline = true;
			break;
		}
		memset(&o, 0, sizeof(o));
		o.r.s = rnd(&wr) | 1;
		o.kind = pick_kind(&o.r);
		ws->kind = o.kind;
		ws->desc[0] = 0;
		ws->calls[o.kind]++;
		run_op(&o);
		ws->ops = opno + 1;
		if (pending[0] | pending[1] | pending[2] | pending[3])
			reap_children(false);
		if (verbose) {
			len = snprintf(line, sizeof(line), "w%d #%" PRIu64 " %-12s %s -> %ld%s%s\n",
				       w, opno, kind_name[o.kind], ws->desc, o.ret,
				       o.err ? " " : "", o.err ? (strerrorname_np(o.err) ?: "?") : "");
			if (len > 0)
				(void)!write(2, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
		}
	}
	worker_teardown(&wr);
	ws->secs = now_s() - t0;
	ws->done = 1;
	return ws->anomalies ? 1 : 0;
}

/* ---- setup and supervision --------------------------------------------- */

/* The generic netlink family id of @name, or -1 with errno. */
static int genl_family_id(const char *name)
{
	struct {
		struct nlmsghdr		nh;
		struct genlmsghdr	gh;
		unsigned char		attrs[64];
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	struct timeval tv = { 2, 0 };
	struct nlattr *na;
	struct nlmsgerr e;
	size_t nlen = strlen(name) + 1, off;
	ssize_t n;
	int fd, id = -1, err = ENOENT;
	uint16_t v16;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(&req, 0, sizeof(req));
	na = (struct nlattr *)req.attrs;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = (uint16_t)(NLA_HDRLEN + nlen);
	memcpy(req.attrs + NLA_HDRLEN, name, nlen);
	req.nh.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(na->nla_len));
	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		err = errno;
		goto out;
	}
	n = recv(fd, rbuf, 65536, 0);
	if (n < 0) {
		err = errno;
		goto out;
	}
	if ((size_t)n < NLMSG_HDRLEN + GENL_HDRLEN)
		goto out;
	memcpy(&req.nh, rbuf, sizeof(req.nh));
	if (req.nh.nlmsg_type == NLMSG_ERROR) {
		memcpy(&e, rbuf + NLMSG_HDRLEN, sizeof(e));
		err = e.error ? -e.error : ENOENT;
		goto out;
	}
	for (off = NLMSG_HDRLEN + GENL_HDRLEN; off + NLA_HDRLEN <= (size_t)n &&
	     off < req.nh.nlmsg_len;) {
		struct nlattr a;

		memcpy(&a, rbuf + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN)
			break;
		if ((a.nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID && a.nla_len >= NLA_HDRLEN + 2) {
			memcpy(&v16, rbuf + off + NLA_HDRLEN, 2);
			id = v16;
			break;
		}
		off += NLA_ALIGN(a.nla_len);
	}
out:
	close(fd);
	if (id < 0)
		errno = err;
	return id;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: sysfuzz [-s SEED] [-n OPS] [-p PROCS] [-i IFNAME]... [-g GROUPBASE]\n"
		"               [-t SECONDS] [-S STALL_S] [-w WORKER] [-k MAXOPS] [-v] [-D] [-X]\n"
		"  -s SEED      seed (default 1); worker W uses SEED + W\n"
		"  -n OPS       operations in total (default 100000)\n"
		"  -p PROCS     worker processes (default 4, at most 64)\n"
		"  -i IFNAME    netdev of an IB/RoCE port (up to 4 times)\n"
		"  -g GROUP     first of the 4 multicast groups used (default 239.9.0.1)\n"
		"  -t SECONDS   stop issuing operations after this long (default: never)\n"
		"  -S STALL_S   a worker without progress this long fails the run (default 300, 0: off)\n"
		"  -w WORKER    run only this worker's stream (same seed and share as in the full run)\n"
		"  -k MAXOPS    stop each worker after MAXOPS operations (a prefix of its stream)\n"
		"  -v           trace every operation to stderr\n"
		"  -D           no waits at all: drop the bounded 1..5 ms waits (timed_wait)\n"
		"  -X           self-test without the module (AF -1, genl to nlctrl only)\n");
	exit(status);
}

static long parse_num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "sysfuzz: %s: \"%s\" is not a number in %ld..%ld\n", what, s,
			min, max);
		exit(2);
	}
	return v;
}

static void print_worker(int w, int status, bool reaped, bool hung, bool killed)
{
	const struct wstat *s = &stats[w];
	int k, e, top[5] = { -1, -1, -1, -1, -1 }, t, j, best;
	uint64_t fails, total = 0;

	printf("worker %d: seed %" PRIu64 "+%d, %" PRIu64 " of %" PRIu64 " ops in %.1f s%s; "
	       "faults caught: SIGBUS %" PRIu64 ", SIGSEGV %" PRIu64 "; forks %" PRIu64
	       "; maps %" PRIu64 "; ring ticks intact %" PRIu64 ", lapped %" PRIu64
	       "; anomalies %" PRIu64 "\n",
	       w, seed, w, s->ops, s->target, s->secs, s->deadline ? " (deadline)" : "",
	       s->sigbus, s->sigsegv, s->forks, s->maps_made, s->ticks_intact,
	       s->ticks_lapped, s->anomalies);
	if (hung)
		printf("  FAILED: no progress for %d s in op #%" PRIu64 " (%s): %s\n", stall_s,
		       s->ops, kind_name[s->kind], s->desc);
	else if (killed && reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		printf("  killed with the stuck worker, in op #%" PRIu64 " (%s): %s\n",
		       s->ops, kind_name[s->kind], s->desc);
	else if (reaped && WIFSIGNALED(status))
		printf("  FAILED: killed by signal %d (%s) in op #%" PRIu64 " (%s): %s\n",
		       WTERMSIG(status), strsignal(WTERMSIG(status)), s->ops,
		       kind_name[s->kind], s->desc);
	else if (reaped && WIFEXITED(status) && WEXITSTATUS(status))
		printf("  FAILED: exit status %d\n", WEXITSTATUS(status));
	for (k = 0; k < 4 && (uint64_t)k < s->anomalies; k++)
		printf("  anomaly: %s\n", s->anomaly[k]);
	printf("  %-14s %8s %8s %8s %8s  %s\n", "kind", "ops", "ok", "fail", "skipped",
	       "most frequent errno");
	for (k = 0; k < NROW; k++) {
		if (!s->calls[k])
			continue;
		fails = 0;
		best = 0;
		for (e = 0; e < NERR; e++) {
			fails += s->err[k][e];
			if (s->err[k][e] > s->err[k][best])
				best = e;
		}
		printf("  %-14s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "  ",
		       kind_name[k], s->calls[k], s->ok[k], fails, s->skipped[k]);
		if (s->err[k][best])
			printf("%s %u\n", best ? strerrorname_np(best) ?: "?" : "(fault)",
			       s->err[k][best]);
		else
			printf("-\n");
	}
	for (t = 0; t < 5; t++) {
		for (e = 0; e < NERR; e++) {
			for (j = 0; j < t && top[j] != e; j++)
				;
			if (j < t || !s->errs[e])
				continue;
			if (top[t] < 0 || s->errs[e] > s->errs[top[t]])
				top[t] = e;
		}
	}
	for (e = 0; e < NERR; e++)
		total += s->errs[e];
	printf("  errno top 5 of %" PRIu64 ":", total);
	for (t = 0; t < 5 && top[t] >= 0; t++)
		printf(" %s %" PRIu64, top[t] ? strerrorname_np(top[t]) ?: "?" : "(fault)",
		       s->errs[top[t]]);
	printf("\n");
}

/* /proc/PID/@file between @label and @end, when it can be read. */
static void print_proc(pid_t pid, const char *file, const char *label,
		       const char *end)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		printf("%s%s%s", label, buf, end);
	}
}

static void dump_stuck(int w, pid_t pid)
{
	printf("worker %d (pid %d) stuck in op #%" PRIu64 " (%s): %s\n", w, (int)pid,
	       stats[w].ops, kind_name[stats[w].kind], stats[w].desc);
	print_proc(pid, "wchan", "  wchan: ", "\n");
	print_proc(pid, "stack", "  kernel stack:\n", "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *gbase = "239.9.0.1";
	pid_t pids[64] = { 0 };
	int status[64] = { 0 };
	bool reaped[64] = { false }, hung[64] = { false }, killed_all = false;
	uint64_t last_ops[64] = { 0 };
	double last_prog[64], t0;
	struct in_addr in;
	int opt, w, alive = 0, failed = 0, st, i;
	uint64_t share, done_ops = 0, anomalies = 0;
	pid_t p;

	while ((opt = getopt(argc, argv, "s:n:p:i:g:t:S:w:k:vDXh")) != -1) {
		switch (opt) {
		case 's':
			errno = 0;
			seed = strtoull(optarg, NULL, 0);
			if (errno) {
				fprintf(stderr, "sysfuzz: bad seed \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'n': nops = parse_num(optarg, "-n", 0, LONG_MAX); break;
		case 'p': nprocs = (int)parse_num(optarg, "-p", 1, 64); break;
		case 'i':
			if (nif == 4) {
				fprintf(stderr, "sysfuzz: at most 4 -i\n");
				return 2;
			}
			ifnames[nif++] = optarg;
			break;
		case 'g': gbase = optarg; break;
		case 't': deadline_s = (double)parse_num(optarg, "-t", 0, 1000000); break;
		case 'S': stall_s = (int)parse_num(optarg, "-S", 0, 1000000); break;
		case 'w': only_worker = (int)parse_num(optarg, "-w", 0, 63); break;
		case 'k': max_per_worker = parse_num(optarg, "-k", 0, LONG_MAX); break;
		case 'v': verbose = true; break;
		case 'D': no_wait = true; break;
		case 'X': dry = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (only_worker >= nprocs) {
		fprintf(stderr, "sysfuzz: -w %d but only %d workers\n", only_worker, nprocs);
		return 2;
	}
	if (no_wait)
		kind_weight[K_TIMED_WAIT] = 0;
	pg = (size_t)sysconf(_SC_PAGESIZE);
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu < 1)
		ncpu = 1;
	if (inet_pton(AF_INET, gbase, &in) != 1) {
		fprintf(stderr, "sysfuzz: -g: \"%s\" is not an IPv4 group\n", gbase);
		return 2;
	}
	for (i = 0; i < 4; i++)
		groups[i] = htonl(ntohl(in.s_addr) + (uint32_t)i);
	for (i = 0; i < nif; i++) {
		ifidx[i] = if_nametoindex(ifnames[i]);
		if (!ifidx[i]) {
			fprintf(stderr, "sysfuzz: no netdev \"%s\"\n", ifnames[i]);
			return 2;
		}
	}
	if (dry) {
		fam = -1;
		genl_id = GENL_ID_CTRL;
	} else {
		fam = ibtick_family();
		if (fam < 0) {
			fprintf(stderr, "sysfuzz: the ibtick module is not loaded (%s: %s); "
				"load it first (insmod kmod/ibtick.ko), or use -X for a self-test\n",
				"/sys/module/ibtick/parameters/family", strerror(errno));
			return 2;
		}
		genl_id = genl_family_id(IBTICK_GENL_NAME);
		if (genl_id < 0) {
			fprintf(stderr, "sysfuzz: generic netlink family \"%s\" not found (%s): "
				"is the ibtick module loaded?\n", IBTICK_GENL_NAME, strerror(errno));
			return 2;
		}
	}
	stats = mmap(NULL, sizeof(*stats) * (size_t)nprocs, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED) {
		perror("sysfuzz: mmap");
		return 2;
	}
	memset(stats, 0, sizeof(*stats) * (size_t)nprocs);
	printf("sysfuzz: seed %" PRIu64 ", %ld ops, %d procs%s, AF %d, genl family %d, "
	       "groups %s..+3, ports 1 2 7777 65535, netdevs",
	       seed, nops, nprocs, only_worker >= 0 ? " (one worker)" : "", fam, genl_id, gbase);
	for (i = 0; i < nif; i++)
		printf(" %s(%u)", ifnames[i], ifidx[i]);
	printf("%s%s%s\n", nif ? "" : " none", no_wait ? ", no waits" : "",
	       dry ? ", SELF-TEST (-X)" : "");
	fflush(stdout);

	t0 = now_s();
	for (w = 0; w < nprocs; w++) {
		share = (uint64_t)nops / (uint64_t)nprocs + ((uint64_t)w < (uint64_t)nops % (uint64_t)nprocs);
		stats[w].target = share;
		if (max_per_worker >= 0 && share > (uint64_t)max_per_worker)
			stats[w].target = (uint64_t)max_per_worker;
		last_prog[w] = t0;
		if (only_worker >= 0 && w != only_worker)
			continue;
		p = fork();
		if (p < 0) {
			perror("sysfuzz: fork");
			failed++;
			continue;
		}
		if (p == 0)
			_exit(worker_main(w, share));
		pids[w] = p;
		stats[w].pid = p;
		alive++;
	}

	while (alive) {
		p = waitpid(-1, &st, WNOHANG);
		if (p > 0) {
			for (w = 0; w < nprocs; w++)
				if (pids[w] == p && !reaped[w]) {
					reaped[w] = true;
					status[w] = st;
					alive--;
					if (!stats[w].done)
						stats[w].secs = now_s() - t0;
				}
			continue;
		}
		if (p < 0 && errno != EINTR)
			break;
		usleep(200000);
		for (w = 0; w < nprocs; w++) {
			if (!pids[w] || reaped[w])
				continue;
			if (stats[w].ops != last_ops[w]) {
				last_ops[w] = stats[w].ops;
				last_prog[w] = now_s();
			} else if (stall_s && now_s() - last_prog[w] > stall_s && !hung[w]) {
				hung[w] = true;
				dump_stuck(w, pids[w]);
			}
		}
		for (w = 0; w < nprocs && !killed_all; w++)
			if (hung[w]) {
				/* one stuck: print every worker's stack, then end it all */
				for (i = 0; i < nprocs; i++)
					if (pids[i] && !reaped[i] && !hung[i])
						dump_stuck(i, pids[i]);
				for (i = 0; i < nprocs; i++)
					if (pids[i] && !reaped[i])
						kill(pids[i], SIGKILL);
				killed_all = true;
			}
	}
	for (w = 0; w < nprocs; w++)
		if (pids[w] && !reaped[w])
			stats[w].secs = now_s() - t0;

	printf("\n");
	for (w = 0; w < nprocs; w++) {
		if (!pids[w])
			continue;
		print_worker(w, status[w], reaped[w], hung[w], killed_all);
		done_ops += stats[w].ops;
		anomalies += stats[w].anomalies;
		if (hung[w] || !reaped[w] || WIFSIGNALED(status[w]) ||
		    (WIFEXITED(status[w]) && WEXITSTATUS(status[w])))
			failed++;
	}
	printf("sysfuzz: seed %" PRIu64 ": %" PRIu64 " ops by %d workers in %.1f s; "
	       "%" PRIu64 " anomalies; %s\n", seed, done_ops,
	       only_worker >= 0 ? 1 : nprocs, now_s() - t0, anomalies,
	       failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}
