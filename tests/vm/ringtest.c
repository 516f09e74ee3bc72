// SPDX-License-Identifier: GPL-2.0
/*
 * ringtest: the mapped ring under test in the VM (tests/vm/ring.sh).
 *
 *   ringtest read [-R [-D [-e]]|-E|-W] [-P US [-F]] [-n N] [-t IDLE_S] [-c CPU] [-B CPU] [-d US] -i IF GROUP PORT
 *	One reader: mapped ring spinning (default), blocking recvmsg (-R;
 *	-D: recvmsg with MSG_DONTWAIT in a loop, spinning; -D -e: reading
 *	until EAGAIN, then waiting in epoll_wait, as an event loop does),
 *	mapped with epoll (-E) or mapped, sleeping in ibtick_wait() (-W);
 *	-P sets SO_BUSY_POLL to US microseconds, -F SO_PREFER_BUSY_POLL.  Reads until delivered + lost >= N or IDLE_S seconds
 *	without a tick (at least 120 s before the first one), then prints one JSON object: counts, a hash of the
 *	(pub_id, pub_seq) sequence delivered, payload checks, feed counters.
 *	-c pins the reader to CPU; -B switches the feed to busy-poll mode
 *	with its thread on CPU (-1: any); -d sleeps US microseconds every 64
 *	ticks (a slow reader, to be lapped), or with -r SEED at random (one
 *	tick in 256, up to US, default 2000).  -S: the ring's slot count if
 *	this reader creates the feed.  "bound" on stderr once bound.
 *   ringtest bad -i IF GROUP PORT
 *	Every bad mmap() and what the mapping must refuse, with its errno.
 *   ringtest opts -i IF GROUP PORT
 *	The new socket options' error table (cursor, poll mode, completion
 *	vector); run unprivileged (without CAP_NET_ADMIN) it expects EPERM for
 *	the poll mode instead and says so.
 *   ringtest dead -i IF GROUP PORT
 *	Map, wait (60 s at most) for the ring to turn DEAD (the script removes
 *	the device), then check that what is there stays readable, also after
 *	close(), and that recvmsg says ENODEV.
 *
 * Payloads are checked against ibtick-pub's pattern (its send counter in
 * the first 8 bytes, so pub_seq - 1; then 0x5a): a tick accepted with
 * anything else is torn.  The spinning reader looks at the clock only
 * every 2^16 empty polls (a guest without a stable TSC has no vDSO clock,
 * and the point is to count the system calls per tick).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "addrarg.h"
#include "libibtick.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* vDSO: no system call */
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: ringtest read [-R [-D [-e]]|-E|-W] [-P US] [-n N] [-t IDLE_S] [-c CPU] [-B CPU] [-d US] [-r SEED] [-S SLOTS] -i IF GROUP PORT\n"
		"       ringtest bad|dead -i IF GROUP PORT\n");
	exit(2);
}

static unsigned int geom_slots;	/* -S: ring slots of a feed we create */

static int open_bound(const char *ifname, const char *group, const char *port,
		      struct sockaddr_ibtick *sa)
{
	char err[128];
	int fam = ibtick_family(), fd;

	if (fam < 0 || addr_from_args(sa, group, port, ifname, err,
				      sizeof(err))) {
		fprintf(stderr, "ringtest: %s\n", fam < 0 ? "module not loaded" : err);
		exit(1);
	}
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd >= 0 && geom_slots) {
		struct ibtick_ring_geometry g = { geom_slots, 256 };

		if (setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g, sizeof(g)))
			perror("ringtest: IBTICK_RING_GEOMETRY");
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa))) {
		perror("ringtest: socket/bind");
		exit(1);
	}
	return fd;
}

/* "-i IFNAME GROUP PORT", the arguments of the one-socket modes: IFNAME */
static const char *if_args(int argc, char **argv)
{
	const char *ifname = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "i:")) != -1) {
		if (opt != 'i')
			usage();
		ifname = optarg;
	}
	if (argc - optind != 2)
		usage();
	return ifname;
}

/* ---- read ------------------------------------------------------------- */

/* SIGTERM/SIGINT end a read early: it reports what it has, as at the end */
static volatile sig_atomic_t read_stop;

static void on_stop(int sig)
{
	(void)sig;
	read_stop = 1;
}

struct acct {
	uint64_t delivered, lost, torn, bytes, first, last, pub_id, nonmono;
	uint64_t hash, dups, idx_disorder, last_idx;
	uint8_t *seen;		/* pub_seq 1..nseen (one publisher) */
	uint64_t nseen;
};

static uint64_t rnd_state;

static uint64_t rnd(void)	/* xorshift64 */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void account(struct acct *a, const struct ibtick_slot *d,
		    const unsigned char *p, uint32_t len)
{
	uint64_t first8 = d->pub_seq - 1;
	uint32_t i;

	/* ibtick-pub: the first 8 bytes count from 0, the rest is 0x5a */
	if (len >= 8 && memcmp(p, &first8, 8))
		a->torn++;
	else
		for (i = 8; i < len; i++)
			if (p[i] != 0x5a) {
				a->torn++;
				break;
			}
	if (!a->delivered) {
		a->first = d->pub_seq;
		a->pub_id = d->pub_id;
	} else if (d->pub_seq <= a->last) {
		a->nonmono++;
	}
	a->last = d->pub_seq;
	if (a->seen && d->pub_seq >= 1 && d->pub_seq <= a->nseen &&
	    a->seen[d->pub_seq]++)
		a->dups++;
	/* FNV-1a over the delivered sequence: equal sequences, equal hashes */
	a->hash = (a->hash ^ d->pub_id) * 0x100000001b3ULL;
	a->hash = (a->hash ^ d->pub_seq) * 0x100000001b3ULL;
	a->delivered++;
	a->bytes += len;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("ringtest: sched_setaffinity");
}

/*
 * How long the reader waits for a tick: IDLE_S once the stream has begun,
 * but at least two minutes for the first one, so that a publisher that
 * starts late on a loaded (or debug) guest does not find the feed gone.
 */
static uint64_t idle_limit(const struct acct *a, uint64_t idle_ns)
{
	const uint64_t first = 120ULL * 1000000000;

	return a->delivered + a->lost || idle_ns > first ? idle_ns : first;
}

static int do_read(int argc, char **argv)
{
	const char *ifname = NULL, *mode = "ring";
	uint64_t n = 10000, idle_ns = 10ULL * 1000000000, last_tick, slow = 0;
	uint64_t seed = 0;
	struct acct a = { .hash = 0xcbf29ce484222325ULL };
	int opt, fd, cpu = -1, busy_cpu = -2, ep = -1, busy_us = 0, prefer = 0, rflags = 0, rep = 0;
	struct ibtick_stats st = { 0 }, st0 = { 0 };
	uint64_t spins = 0, idle_since = 0;
	bool got_tick = false;
	struct sockaddr_ibtick sa;
	struct ibtick_reader r;
	socklen_t sl = sizeof(st);
	char buf[9000], cbuf[256];

	while ((opt = getopt(argc, argv, "eDFREWn:t:c:B:d:i:P:r:S:")) != -1) {
		switch (opt) {
		case 'S': geom_slots = strtoul(optarg, NULL, 0); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'P': busy_us = atoi(optarg); break;
		case 'F': prefer = 1; break;
		case 'D': rflags = MSG_DONTWAIT; break;
		case 'e': rep = 1; break;
		case 'R': mode = "recvmsg"; break;
		case 'E': mode = "epoll"; break;
		case 'W': mode = "wait"; break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 't': idle_ns = strtoull(optarg, NULL, 0) * 1000000000ULL; break;
		case 'c': cpu = atoi(optarg); break;
		case 'B': busy_cpu = atoi(optarg); break;
		case 'd': slow = strtoull(optarg, NULL, 0); break;
		case 'i': ifname = optarg; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	if (cpu >= 0)
		pin(cpu);
	rnd_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	a.nseen = n;
	a.seen = calloc(n + 1, 1);
	if (!a.seen)
		return 1;
	fd = open_bound(ifname, argv[optind], argv[optind + 1], &sa);
	if (busy_cpu >= -1) {
		struct ibtick_poll_mode pm = { IBTICK_POLL_BUSY, busy_cpu };

		if (setsockopt(fd, SOL_IBTICK, IBTICK_POLL_MODE, &pm, sizeof(pm))) {
			perror("ringtest: IBTICK_POLL_MODE");
			return 1;
		}
	}
	if (!strcmp(mode, "recvmsg")) {
		struct timeval tv = { 0, 200000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (busy_us && setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &busy_us,
				  sizeof(busy_us))) {
		perror("ringtest: SO_BUSY_POLL");
		return 1;
	}
	if (prefer && setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &prefer,
				 sizeof(prefer))) {
		perror("ringtest: SO_PREFER_BUSY_POLL");
		return 1;
	}
	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st0, &sl))
		perror("ringtest: IBTICK_STATISTICS");
	if (strcmp(mode, "recvmsg") && ibtick_reader_attach(&r, fd)) {
		perror("ringtest: ibtick_reader_attach");
		return 1;
	}
	if (!strcmp(mode, "epoll") || rep) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

		ep = epoll_create1(0);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
			perror("ringtest: epoll");
			return 1;
		}
	}
	{
		struct sigaction sa_stop = { .sa_handler = on_stop };	/* no SA_RESTART */

		sigaction(SIGTERM, &sa_stop, NULL);
		sigaction(SIGINT, &sa_stop, NULL);
	}
	fprintf(stderr, "bound\n");

	last_tick = now_ns();
	while (a.delivered + a.lost < n && !read_stop) {
		struct ibtick_tick t;

		if (got_tick) {
			spins = 0;
			idle_since = 0;
			got_tick = false;
		}

		if (!strcmp(mode, "recvmsg")) {
			struct iovec iov = { buf, sizeof(buf) };
			struct msghdr m = {
				.msg_iov = &iov, .msg_iovlen = 1,
				.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
			};
			struct ibtick_tick_info ti = { 0 };
			struct ibtick_slot d = { 0 };
			struct cmsghdr *c;
			ssize_t got;

			/* SO_RCVTIMEO: 200 ms; -D: spins, non-blocking */
			got = recvmsg(fd, &m, rflags);
			if (got < 0) {
				if (errno == ENODEV)
					break;	/* the end: the ring is DEAD, drained */
				if (errno != EAGAIN && errno != EINTR) {
					perror("ringtest: recvmsg");
					return 1;
				}
				if (now_ns() - last_tick > idle_limit(&a, idle_ns))
					break;
				if (rep) {	/* -e: sleep until the socket is ready */
					struct epoll_event ev;

					epoll_wait(ep, &ev, 1, 200);
				}
				continue;
			}
			for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
				if (c->cmsg_level != SOL_IBTICK)
					continue;
				if (c->cmsg_type == IBTICK_CMSG_LOST) {
					uint64_t l;

					memcpy(&l, CMSG_DATA(c), sizeof(l));
					a.lost += l;
				} else if (c->cmsg_type == IBTICK_CMSG_TICK) {
					memcpy(&ti, CMSG_DATA(c), sizeof(ti));
				}
			}
			d.pub_id = ti.pub_id;
			d.pub_seq = ti.pub_seq;
			account(&a, &d, (unsigned char *)buf, got);
			last_tick = now_ns();	/* a system call per tick anyway */
		} else if (ibtick_next(&r, &t)) {
			struct ibtick_slot d;
			uint32_t len = t.len;
			uint64_t seen = t.lost;

			a.lost += t.lost;
			memcpy(&d, t.slot, sizeof(d));
			memcpy(buf, t.data, len);
			if (!ibtick_done(&r, &t)) {
				/* overwritten meanwhile: done() adds to t.lost */
				a.lost += t.lost - seen;
				continue;
			}
			if (a.delivered && t.idx <= a.last_idx)
				a.idx_disorder++;
			a.last_idx = t.idx;
			account(&a, &d, (unsigned char *)buf, len);
			got_tick = true;
		} else {
			a.lost += t.lost;
			if (ibtick_ended(&r))
				break;
			/* idle: look at the clock now and then, not per poll */
			if (ep >= 0 || !strcmp(mode, "wait") || !(++spins & 0xffff)) {
				uint64_t now = now_ns();

				if (!idle_since)
					idle_since = now;
				else if (now - idle_since > idle_limit(&a, idle_ns))
					break;
			}
			if (ep >= 0) {
				struct epoll_event ev;

				if (ibtick_arm(&r)) {
					perror("ringtest: ibtick_arm");
					return 1;
				}
				epoll_wait(ep, &ev, 1, 100);
			} else if (!strcmp(mode, "wait") && ibtick_wait(&r, 100) < 0) {
				perror("ringtest: ibtick_wait");
				return 1;
			}
			continue;
		}
		if (seed) {
			/* randomly slowed: now and then a pause of up to -d us */
			if (!(rnd() & 255))
				usleep(rnd() % (slow ? slow : 2000));
		} else if (slow && !(a.delivered % 64)) {
			usleep(slow);
		}
	}
	sl = sizeof(st);
	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &sl))
		perror("ringtest: IBTICK_STATISTICS");
	if (strcmp(mode, "recvmsg")) {
		/* the library's own totals must agree with ours */
		if (r.lost != a.lost || r.delivered != a.delivered)
			fprintf(stderr, "ringtest: library counts %" PRIu64 "/%" PRIu64
				" differ\n", r.delivered, r.lost);
	}
	printf("{\"mode\":\"%s\",\"delivered\":%" PRIu64 ",\"lost\":%" PRIu64
	       ",\"torn\":%" PRIu64 ",\"nonmono\":%" PRIu64 ",\"first\":%" PRIu64
	       ",\"last\":%" PRIu64 ",\"dups\":%" PRIu64 ",\"idx_disorder\":%" PRIu64
	       ",\"hash\":\"%016" PRIx64 "\",\"feed_rx\":%llu"
	       ",\"cq_events0\":%llu,\"cq_events\":%llu,\"cqe_irq\":%llu,\"cqe_thread\":%llu"
	       ",\"cqe_caller\":%llu,\"poll_loops\":%llu,\"poll_busy_ns\":%llu"
	       ",\"poll_yields\":%llu,\"mappings\":%llu,\"rx_drain_ns\":%llu"
	       ",\"rx_wake_ns\":%llu,\"lib_agrees\":%s}\n",
	       mode, a.delivered, a.lost, a.torn, a.nonmono, a.first, a.last,
	       a.dups, a.idx_disorder, a.hash, (unsigned long long)st.feed_rx_ticks,
	       (unsigned long long)st0.feed_cq_events,
	       (unsigned long long)st.feed_cq_events,
	       (unsigned long long)st.feed_cqe_irq,
	       (unsigned long long)st.feed_cqe_thread,
	       (unsigned long long)st.feed_cqe_caller,
	       (unsigned long long)st.feed_poll_loops,
	       (unsigned long long)st.feed_poll_busy_ns,
	       (unsigned long long)st.feed_poll_yields,
	       (unsigned long long)st.mappings,
	       (unsigned long long)st.feed_rx_drain_ns,
	       (unsigned long long)st.feed_rx_wake_ns,
	       !strcmp(mode, "recvmsg") ||
	       (r.lost == a.lost && r.delivered == a.delivered) ? "true" : "false");
	return 0;
}

/* ---- bad -------------------------------------------------------------- */

static int fails;

static void expect(const char *what, int ok)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	fails += !ok;
}

static void expect_map_err(const char *what, size_t len, int prot, int flags,
			   int fd, off_t off, int err)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);
	int e = errno;

	if (p != MAP_FAILED) {
		munmap(p, len);
		printf("not ok - %s: mapped, expected %s\n", what, strerror(err));
		fails++;
		return;
	}
	if (e != err) {
		printf("not ok - %s: %s, expected %s\n", what, strerror(e),
		       strerror(err));
		fails++;
		return;
	}
	printf("ok - %s: %s\n", what, strerror(e));
}

static uint64_t mappings(int fd)
{
	struct ibtick_stats st = { 0 };
	socklen_t sl = sizeof(st);

	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &sl))
		return ~0ULL;
	return st.mappings;
}

static int do_bad(int argc, char **argv)
{
	struct ibtick_ring_info ri = { 0 };
	socklen_t len = sizeof(ri);
	struct sockaddr_ibtick sa;
	const char *ifname = NULL;
	long pg = sysconf(_SC_PAGESIZE);
	void *maps[64], *p;
	int fd, ufd, i, st;
	size_t sz;
	pid_t pid;

	ifname = if_args(argc, argv);

	ufd = socket(ibtick_family(), SOCK_DGRAM, 0);
	expect_map_err("unbound socket", pg, PROT_READ, MAP_SHARED, ufd, 0, EINVAL);
	close(ufd);

	fd = open_bound(ifname, argv[optind], argv[optind + 1], &sa);
	if (getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len)) {
		perror("ringtest: IBTICK_RING_INFO");
		return 1;
	}
	sz = ri.mmap_size;
	expect("ring info: mmap_size = ring_size rounded to pages",
	       len == sizeof(ri) && sz >= ri.ring_size && sz % pg == 0 &&
	       sz - ri.ring_size < (size_t)pg && ri.mmap_offset == IBTICK_MMAP_RING);
	expect_map_err("offset one page", sz, PROT_READ, MAP_SHARED, fd, pg, EINVAL);
	expect_map_err("length one page short", sz - pg, PROT_READ, MAP_SHARED, fd, 0, EINVAL);
	expect_map_err("length one page long", sz + pg, PROT_READ, MAP_SHARED, fd, 0, EINVAL);
	expect_map_err("PROT_WRITE", sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, EACCES);
	expect_map_err("PROT_EXEC", sz, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0, EACCES);
	expect_map_err("MAP_PRIVATE", sz, PROT_READ, MAP_PRIVATE, fd, 0, EINVAL);

	p = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
	expect("read-only shared mapping of the whole ring", p != MAP_FAILED);
	if (p == MAP_FAILED)
		return 1;
	expect("header magic/version/geometry match IBTICK_RING_INFO",
	       ((struct ibtick_ring_hdr *)p)->magic == IBTICK_RING_MAGIC &&
	       ((struct ibtick_ring_hdr *)p)->nslots == ri.nslots &&
	       ((struct ibtick_ring_hdr *)p)->slot_size == ri.slot_size);
	errno = 0;
	expect("mprotect(PROT_WRITE) refused with EACCES",
	       mprotect(p, sz, PROT_READ | PROT_WRITE) && errno == EACCES);
	errno = 0;
	expect("partial munmap refused with EINVAL",
	       sz < 2 * (size_t)pg || (munmap((char *)p + pg, pg) && errno == EINVAL));
	errno = 0;
	expect("mremap to grow refused",
	       mremap(p, sz, sz + pg, 0) == MAP_FAILED);
	expect("mappings counted: 1", mappings(fd) == 1);

	pid = fork();
	if (!pid) {
		/* VM_DONTCOPY: the child has no mapping at that address */
		unsigned char vec;

		_exit(mincore(p, pg, &vec) == -1 && errno == ENOMEM ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	expect("not inherited across fork", WIFEXITED(st) && !WEXITSTATUS(st));

	for (i = 0; i < 64; i++) {
		maps[i] = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
		if (maps[i] == MAP_FAILED)
			break;
	}
	expect("64 more mappings of one ring", i == 64 && mappings(fd) == 65);
	while (i--)
		munmap(maps[i], sz);
	expect("unmapped: count back to 1", mappings(fd) == 1);

	close(fd);
	expect("readable after close (the mapping holds the socket)",
	       ((volatile struct ibtick_ring_hdr *)p)->magic == IBTICK_RING_MAGIC);
	expect("munmap after close", munmap(p, sz) == 0);

	/* munmap before close, then a fresh mapping on a fresh socket */
	fd = open_bound(ifname, argv[optind], argv[optind + 1], &sa);
	p = mmap(NULL, sz, PROT_READ, MAP_SHARED, fd, 0);
	expect("munmap before close", p != MAP_FAILED && !munmap(p, sz) &&
	       mappings(fd) == 0 && !close(fd));
	printf("bad: %d failed\n", fails);
	return fails ? 1 : 0;
}

/* ---- opts ------------------------------------------------------------ */

static void expect_opt(const char *what, int rc, int err)
{
	int e = errno;

	if (rc == 0 && err == 0) {
		printf("ok - %s\n", what);
	} else if (rc == 0) {
		printf("not ok - %s: succeeded, expected %s\n", what, strerror(err));
		fails++;
	} else if (e != err) {
		printf("not ok - %s: %s, expected %s\n", what, strerror(e),
		       err ? strerror(err) : "success");
		fails++;
	} else {
		printf("ok - %s: %s\n", what, strerror(e));
	}
}

static int do_opts(int argc, char **argv)
{
	struct ibtick_poll_mode pm = { IBTICK_POLL_BUSY, 0 }, got;
	bool admin = geteuid() == 0;
	struct sockaddr_ibtick sa;
	const char *ifname = NULL;
	socklen_t len;
	uint64_t cur;
	int fd, v;

	ifname = if_args(argc, argv);
	fd = socket(ibtick_family(), SOCK_DGRAM, 0);
	cur = 0;
	expect_opt("RING_CURSOR unbound", setsockopt(fd, SOL_IBTICK,
		   IBTICK_RING_CURSOR, &cur, sizeof(cur)), ENOTCONN);
	expect_opt("POLL_MODE unbound", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), admin ? ENOTCONN : EPERM);
	v = -1;
	expect_opt("COMP_VECTOR -1", setsockopt(fd, SOL_IBTICK,
		   IBTICK_COMP_VECTOR, &v, sizeof(v)), EINVAL);
	expect_opt("COMP_VECTOR short", setsockopt(fd, SOL_IBTICK,
		   IBTICK_COMP_VECTOR, &v, 2), EINVAL);
	v = 4096;
	expect_opt("COMP_VECTOR 4096 (set)", setsockopt(fd, SOL_IBTICK,
		   IBTICK_COMP_VECTOR, &v, sizeof(v)), 0);
	if (addr_from_args(&sa, argv[optind],
			   argv[optind + 1], ifname, (char[128]){0}, 128))
		return 1;
	/* a new group, so that this socket creates the feed */
	expect_opt("bind with a vector the device lacks", bind(fd,
		   (struct sockaddr *)&sa, sizeof(sa)), EINVAL);
	close(fd);

	fd = open_bound(ifname, argv[optind], argv[optind + 1], &sa);
	v = 0;
	expect_opt("COMP_VECTOR after bind", setsockopt(fd, SOL_IBTICK,
		   IBTICK_COMP_VECTOR, &v, sizeof(v)), EISCONN);
	len = sizeof(cur);
	expect_opt("RING_CURSOR get", getsockopt(fd, SOL_IBTICK,
		   IBTICK_RING_CURSOR, &cur, &len), 0);
	cur += 1;
	expect_opt("RING_CURSOR past the producer", setsockopt(fd, SOL_IBTICK,
		   IBTICK_RING_CURSOR, &cur, sizeof(cur)), EINVAL);
	expect_opt("RING_CURSOR short", setsockopt(fd, SOL_IBTICK,
		   IBTICK_RING_CURSOR, &cur, 4), EINVAL);
	cur -= 1;
	expect_opt("RING_CURSOR at the producer", setsockopt(fd, SOL_IBTICK,
		   IBTICK_RING_CURSOR, &cur, sizeof(cur)), 0);
	cur -= 1000000;		/* before index 0: no tick ever had it */
	expect_opt("RING_CURSOR before the ring's first index", setsockopt(fd,
		   SOL_IBTICK, IBTICK_RING_CURSOR, &cur, sizeof(cur)), EINVAL);
	if (!admin) {
		expect_opt("POLL_MODE without CAP_NET_ADMIN", setsockopt(fd,
			   SOL_IBTICK, IBTICK_POLL_MODE, &pm, sizeof(pm)), EPERM);
		printf("opts: %d failed\n", fails);
		return fails ? 1 : 0;
	}
	pm.mode = 7;
	expect_opt("POLL_MODE mode 7", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), EINVAL);
	pm.mode = IBTICK_POLL_BUSY;
	pm.cpu = 100000;
	expect_opt("POLL_MODE cpu 100000", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), EINVAL);
	pm.cpu = -2;
	expect_opt("POLL_MODE cpu -2", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), EINVAL);
	expect_opt("POLL_MODE short", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, 4), EINVAL);
	pm.cpu = 0;
	expect_opt("POLL_MODE busy on CPU 0", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), 0);
	len = sizeof(got);
	expect_opt("POLL_MODE get", getsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &got, &len), 0);
	expect("POLL_MODE reads back busy/0", got.mode == IBTICK_POLL_BUSY &&
	       got.cpu == 0);
	pm.mode = IBTICK_POLL_IRQ;
	expect_opt("POLL_MODE back to irq", setsockopt(fd, SOL_IBTICK,
		   IBTICK_POLL_MODE, &pm, sizeof(pm)), 0);
	pm.mode = IBTICK_POLL_BUSY;
	pm.cpu = -1;
	expect_opt("POLL_MODE busy, any CPU (closed while busy)", setsockopt(fd,
		   SOL_IBTICK, IBTICK_POLL_MODE, &pm, sizeof(pm)), 0);
	close(fd);
	printf("opts: %d failed\n", fails);
	return fails ? 1 : 0;
}

/* ---- dead ------------------------------------------------------------- */

static int do_dead(int argc, char **argv)
{
	struct ibtick_stats st = { 0 };
	socklen_t sl = sizeof(st);
	struct sockaddr_ibtick sa;
	struct ibtick_reader r;
	const char *ifname = NULL;
	uint64_t t0, n = 0, nr = 0;
	struct ibtick_tick t;
	char b[16];
	int fd;

	ifname = if_args(argc, argv);
	fd = open_bound(ifname, argv[optind], argv[optind + 1], &sa);
	if (ibtick_reader_attach(&r, fd)) {
		perror("ringtest: attach");
		return 1;
	}
	fprintf(stderr, "bound\n");
	t0 = now_ns();
	while (!ibtick_dead(&r) && now_ns() - t0 < 60ULL * 1000000000)
		usleep(1000);
	expect("ring flagged DEAD", ibtick_dead(&r));
	while (ibtick_next(&r, &t))
		n += ibtick_done(&r, &t);
	if (getsockopt(fd, SOL_IBTICK, IBTICK_STATISTICS, &st, &sl))
		st.feed_rx_ticks = ~0ULL;
	/* every tick the feed took before it died is there, or counted */
	expect("ticks received before the removal still readable",
	       st.feed_rx_ticks >= 1 && r.delivered + r.lost == st.feed_rx_ticks);
	/* recvmsg has its own cursor: the same ticks, then ENODEV */
	while (recv(fd, b, sizeof(b), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		nr++;
	expect("recvmsg: the same ticks, then ENODEV", errno == ENODEV &&
	       nr == r.delivered);
	close(fd);
	expect("header readable after close", r.hdr->magic == IBTICK_RING_MAGIC &&
	       ibtick_dead(&r));
	ibtick_reader_close(&r);
	printf("{\"dead\":%s,\"read\":%" PRIu64 ",\"failed\":%d}\n",
	       fails ? "false" : "true", n, fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "read"))
		return do_read(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bad"))
		return do_bad(argc - 1, argv + 1);
	if (!strcmp(argv[1], "opts"))
		return do_opts(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dead"))
		return do_dead(argc - 1, argv + 1);
	usage();
	return 2;
}
