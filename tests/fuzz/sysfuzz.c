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
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/ibtick_netlink.h>

#include "libibtick.h"

/* Constants older libc headers may lack (values from the uapi). */
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE	0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC		0x80000
#endif
#ifndef MAP_UNINITIALIZED
#define MAP_UNINITIALIZED	0x4000000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif
#ifndef MADV_COLD
#define MADV_COLD		20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef PROT_SEM
#define PROT_SEM		0x8
#endif
#define MSG_PROBE_		0x10	/* MSG_PROBE: kernel-internal, refused from user space */
#define MADV_DONTNEED_LOCKED_	24
#define MADV_COLLAPSE_		25
#ifndef SO_BUSY_POLL
#define SO_BUSY_POLL		46
#endif
#ifndef SO_TIMESTAMPNS_NEW
#define SO_TIMESTAMPNS_NEW	64
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL	69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET	70
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK		11
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK	12
#endif
#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif
/* socket ioctls that only read or fail: no interface is ever changed */
#define SIOCGSTAMP_OLD_		0x8906
#define SIOCGSTAMPNS_OLD_	0x8907
#define SIOCPROTOPRIVATE_	0x89E0

#define MAXFD		32		/* fds per worker */
#define MAXMAP		16		/* tracked mappings per worker */
#define NBAY		16		/* arena bays for MAP_FIXED / MREMAP_FIXED */
#define BAY		(8UL << 20)
#define GEOM_CAP	(4ULL << 20)	/* largest valid ring the fuzzer asks for */
#define ANON_MAX	(1UL << 20)	/* largest anonymous mapping */
#define RBUF		(256UL << 10)	/* receive buffer; iovecs start in its first 64 KiB */
#define RBASE_MAX	(64UL << 10)
#define NPOLL		2048
#define NEPEV		128
#define NIOV		1100
#define NPEND		4		/* fork children not yet reaped */
#define NERR		256

/* ---- operation kinds ---------------------------------------------------- */

#define OP_LIST(X)					\
	X(SOCKET,	"socket",	60)		\
	X(GENL_SOCKET,	"genl_socket",	10)		\
	X(EPOLL_CREATE,	"epoll_create",	8)		\
	X(CLOSE,	"close",	50)		\
	X(DUP,		"dup",		20)		\
	X(BIND,		"bind",		70)		\
	X(CONNECT,	"connect",	40)		\
	X(SETSOCKOPT,	"setsockopt",	110)		\
	X(GETSOCKOPT,	"getsockopt",	90)		\
	X(MMAP,		"mmap",		70)		\
	X(TOUCH,	"touch_map",	60)		\
	X(MUNMAP,	"munmap",	25)		\
	X(MPROTECT,	"mprotect",	20)		\
	X(MADVISE,	"madvise",	25)		\
	X(MREMAP,	"mremap",	15)		\
	X(SENDMSG,	"sendmsg",	70)		\
	X(RECVMSG,	"recvmsg",	90)		\
	X(POLL,		"poll",		30)		\
	X(EPOLL_CTL,	"epoll_ctl",	30)		\
	X(EPOLL_WAIT,	"epoll_wait",	20)		\
	X(FORK_MAP,	"fork_map",	4)		\
	X(GENL_SEND,	"genl_send",	50)		\
	X(GENL_RECV,	"genl_recv",	20)		\
	X(MISC,		"misc",		30)		\
	X(TIMED_WAIT,	"timed_wait",	8)

#define X_ENUM(n, s, w) K_##n,
enum { OP_LIST(X_ENUM) NKIND, K_GENL_REPLY = NKIND, NROW };
#define X_NAME(n, s, w) s,
static const char *const kind_name[NROW] = { OP_LIST(X_NAME) "(genl reply)" };
#define X_WEIGHT(n, s, w) w,
static unsigned int kind_weight[NKIND] = { OP_LIST(X_WEIGHT) };

/* Per-worker counters, in memory shared with the supervisor. */
struct wstat {
	pid_t		pid;
	volatile uint64_t ops;		/* operations done */
	volatile int	kind;		/* of the one running now */
	volatile int	done;		/* finished normally */
	char		desc[200];	/* what the running operation does */
	uint64_t	target;		/* operations assigned */
	uint64_t	calls[NROW], ok[NROW], skipped[NROW];
	uint32_t	err[NROW][NERR];
	uint64_t	errs[NERR];
	uint64_t	sigbus, sigsegv, forks, ticks_intact, ticks_lapped;
	uint64_t	maps_made, anomalies;
	char		anomaly[4][240];
	double		secs;
	bool		deadline;
};

/* ---- configuration (set before the workers fork) ----------------------- */

static int fam = -1;		/* AF_IBTICK */
static int genl_id = -1;	/* "ibtick" genl family (nlctrl with -X) */
static uint32_t ifidx[4];
static const char *ifnames[4];
static int nif;
static uint32_t groups[4];	/* network byte order */
static const uint16_t feed_ports[] = { 1, 2, 7777, 65535 };
static uint64_t seed = 1;
static long nops = 100000;
static int nprocs = 4;
static double deadline_s;
static int stall_s = 300;
static int only_worker = -1;
static long max_per_worker = -1;
static bool verbose, no_wait, dry;
static long ncpu = 1;
static size_t pg = 4096;
static struct wstat *stats;

/* ---- worker state ------------------------------------------------------- */

enum { FK_NONE, FK_IBT, FK_GENL, FK_EPOLL };
struct slot { int fd; int kind; };
struct map {
	unsigned char	*addr;		/* NULL: free entry */
	size_t		len;		/* page-rounded */
	bool		ring;		/* a mapping of an AF_IBTICK socket */
	int		prot;
	int		bay;		/* arena bay, or -1 */
	uint32_t	nslots, slot_size;
	uint64_t	slots_off;
};

static int wid;
static uint64_t opno;
static struct wstat *ws;
static struct slot slots[MAXFD];
static struct map maps[MAXMAP];
static unsigned char *arena;		/* NBAY * BAY, PROT_NONE unless a bay is used */
static bool bay_retired[NBAY];
static unsigned char *rw_guard;		/* one rw page, then a PROT_NONE page */
static unsigned char *ro_page;		/* read-only, holds a valid sockaddr */
static unsigned char *hole;		/* an unmapped page */
static pid_t pending[NPEND];
static volatile unsigned char sink;

static unsigned char rbuf[RBUF] __attribute__((aligned(4096)));
static unsigned char sbuf[70000];
static unsigned char optbuf[4096];
static unsigned char addrbuf[256];
static unsigned char ctlbuf[8192];
static unsigned char nlbuf[4096];
static unsigned char tickbuf[8192];
static struct iovec iovs[NIOV];
static struct pollfd pfds[NPOLL];
static struct epoll_event epev[NEPEV];

/* ---- random numbers ----------------------------------------------------- */

struct rng { uint64_t s; };

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(((rnd(r) >> 32) * (uint64_t)n) >> 32) : 0;
}

static bool pct(struct rng *r, unsigned int p)
{
	return rn(r, 100) < p;
}

#define PICK(r, arr) ((arr)[rn((r), sizeof(arr) / sizeof((arr)[0]))])

static void fill(struct rng *r, void *p, size_t n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = (unsigned char)rnd(r);
}

/* ---- bookkeeping -------------------------------------------------------- */

struct op {
	struct rng	r;
	int		kind;
	long		ret;
	int		err;
	bool		recorded;
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ws->desc, sizeof(ws->desc), fmt, ap);
	va_end(ap);
}

static void anomaly(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void anomaly(const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	uint64_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = ws->anomalies++;
	if (n < 4)
		snprintf(ws->anomaly[n], sizeof(ws->anomaly[n]), "op #%" PRIu64 ": %s",
			 opno, msg);
	fprintf(stderr, "sysfuzz: worker %d op #%" PRIu64 ": ANOMALY: %s\n",
		wid, opno, msg);
}

/* Count the result of an operation's main call (errno already set). */
static void rec_as(struct op *o, int kind, long ret, int err)
{
	if (o->recorded && kind == o->kind)
		return;
	if (kind == o->kind) {
		o->recorded = true;
		o->ret = ret;
		o->err = ret < 0 ? err : 0;
	}
	if (ret >= 0) {
		ws->ok[kind]++;
		return;
	}
	if (err < 0 || err >= NERR)
		err = 0;
	ws->err[kind][err]++;
	ws->errs[err]++;
}

/* The operation found nothing to work on (no mapping, no socket of a kind). */
static void skip(struct op *o)
{
	ws->skipped[o->kind]++;
	note("(skipped: nothing to work on)");
}

static void rec(struct op *o, long ret)
{
	rec_as(o, o->kind, ret, errno);
}

/* ---- fds ---------------------------------------------------------------- */

struct pick { int fd; int kind; int idx; };

static void slot_close(int i)
{
	if (slots[i].fd >= 0)
		close(slots[i].fd);
	slots[i].fd = -1;
	slots[i].kind = FK_NONE;
}

/* A free slot; when all are used, close a random one other than @keep. */
static int free_slot(struct rng *r, int keep)
{
	int i, start = (int)rn(r, MAXFD);

	for (i = 0; i < MAXFD; i++)
		if (slots[(start + i) % MAXFD].fd < 0)
			return (start + i) % MAXFD;
	i = (int)rn(r, MAXFD);
	if (i == keep)
		i = (i + 1) % MAXFD;
	slot_close(i);
	return i;
}

/* A random used slot, preferably of @kind; -1 if there is none. */
static int pick_slot(struct rng *r, int kind)
{
	int idx[MAXFD], n = 0, any[MAXFD], na = 0, i;

	for (i = 0; i < MAXFD; i++) {
		if (slots[i].fd < 0)
			continue;
		any[na++] = i;
		if (slots[i].kind == kind)
			idx[n++] = i;
	}
	if (n && (kind == FK_NONE || pct(r, 85)))
		return idx[rn(r, (uint32_t)n)];
	return na ? any[rn(r, (uint32_t)na)] : -1;
}

/* An fd for an operation: mostly a tracked one, sometimes an invalid one. */
static struct pick pick_fd(struct rng *r, int kind)
{
	static const int bad[] = { -1, 1023, -100, INT_MAX };
	struct pick p = { -1, FK_NONE, -1 };

	if (!pct(r, 7))
		p.idx = pick_slot(r, kind);
	if (p.idx >= 0) {
		p.fd = slots[p.idx].fd;
		p.kind = slots[p.idx].kind;
	} else {
		p.fd = PICK(r, bad);
	}
	return p;
}

/* ---- memory ------------------------------------------------------------- */

static void reserve(void *addr, size_t len)
{
	/* only ever over arena ranges that are ours and unmapped or ours */
	if (mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		fprintf(stderr, "sysfuzz: worker %d: re-reserving the arena: %s\n",
			wid, strerror(errno));
}

static int bay_of(const void *a)
{
	const unsigned char *p = a;

	if (p < arena || p >= arena + NBAY * BAY)
		return -1;
	return (int)((size_t)(p - arena) / BAY);
}

static bool bay_busy(int b)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (maps[i].addr && maps[i].bay == b)
			return true;
	return false;
}

static int free_bay(struct rng *r)
{
	int i, b, start = (int)rn(r, NBAY);

	for (i = 0; i < NBAY; i++) {
		b = (start + i) % NBAY;
		if (!bay_retired[b] && !bay_busy(b))
			return b;
	}
	return -1;
}

/* Where a mapping of @len goes in bay @b: one page in, so that a superset
 * or a page-shifted range stays inside the bay.
 */
static unsigned char *bay_slot(int b, size_t len)
{
	if (b < 0 || len + 2 * pg > BAY)
		return NULL;
	return arena + (size_t)b * BAY + pg;
}

static size_t page_round(size_t len)
{
	return (len + pg - 1) & ~(pg - 1);
}

static int map_free_entry(void)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (!maps[i].addr)
			return i;
	return -1;
}

/* Unmap entry @i whole and forget it; an arena range goes back to PROT_NONE. */
static void map_drop(int i, bool do_unmap)
{
	struct map *m = &maps[i];

	if (!m->addr)
		return;
	if (do_unmap && munmap(m->addr, m->len) == 0 && m->bay >= 0)
		reserve(m->addr, m->len);
	memset(m, 0, sizeof(*m));
	m->bay = -1;
}

static void map_room(struct rng *r)
{
	if (map_free_entry() < 0)
		map_drop((int)rn(r, MAXMAP), true);
}

static int pick_map(struct rng *r, bool prefer_ring)
{
	int idx[MAXMAP], n = 0, rings[MAXMAP], nr = 0, i;

	for (i = 0; i < MAXMAP; i++) {
		if (!maps[i].addr)
			continue;
		idx[n++] = i;
		if (maps[i].ring)
			rings[nr++] = i;
	}
	if (nr && prefer_ring && pct(r, 85))
		return rings[rn(r, (uint32_t)nr)];
	return n ? idx[rn(r, (uint32_t)n)] : -1;
}

/* Entries that lie inside [a, a + len) are gone (MAP_FIXED replaced them). */
static void maps_forget_range(const unsigned char *a, size_t len)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (maps[i].addr && maps[i].addr >= a &&
		    maps[i].addr + maps[i].len <= a + len)
			map_drop(i, false);
}

/* Pointers for the kernel to read from (@valid holds @len meaningful bytes). */
static void *in_ptr(struct rng *r, void *valid, size_t len)
{
	unsigned char *p;
	size_t k;
	int i;

	if (pct(r, 88))
		return valid;
	switch (rn(r, 7)) {
	case 0:
		return NULL;
	case 1:
		return (void *)16;
	case 2:
		return hole;
	case 3:
		return (void *)(~(uintptr_t)0 - 4095);	/* kernel half */
	case 4:
		return ro_page;		/* readable, holds a valid sockaddr */
	case 5:
		i = pick_map(r, true);	/* a ring mapping: readable or not */
		return i >= 0 ? (void *)maps[i].addr : valid;
	default:
		/* the data runs into the PROT_NONE page */
		k = len > 1 ? 1 + rn(r, (uint32_t)(len < pg ? len - 1 : pg - 1)) : 1;
		p = rw_guard + pg - k;
		memcpy(p, valid, k);
		return p;
	}
}

/* Pointers for the kernel to write to; @valid has room for anything. */
static void *out_ptr(struct rng *r, void *valid, size_t len)
{
	int i;

	if (pct(r, 86))
		return valid;
	switch (rn(r, 7)) {
	case 0:
		return NULL;
	case 1:
		return hole;
	case 2:
		return (void *)(~(uintptr_t)0 - 4095);
	case 3:
		return ro_page;
	case 4:
		/* a ring (read-only: the first byte faults), never a plain
		 * mapping: a long write could run past its end into our memory
		 */
		i = pick_map(r, true);
		return i >= 0 && maps[i].ring ? (void *)maps[i].addr : (void *)ro_page;
	case 5:
		return arena + (size_t)rn(r, NBAY) * BAY;	/* PROT_NONE, mostly */
	default:
		return rw_guard + pg - (len > 1 ? 1 + rn(r, (uint32_t)(len < pg ? len - 1 : pg - 1)) : 1);
	}
}

/* ---- faults we cause on purpose ---------------------------------------- */

static sigjmp_buf fault_jb;
static volatile sig_atomic_t armed;

static void on_fault(int sig)
{
	if (!armed) {
		/* not ours: die of it, the supervisor reports the signal */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	armed = 0;
	siglongjmp(fault_jb, sig);
}

/* Run @fn(@ctx), which may touch memory that faults: 0, or the signal. */
static int guarded(void (*fn)(void *), void *ctx)
{
	int sig = sigsetjmp(fault_jb, 1);

	if (sig) {
		armed = 0;
		return sig;
	}
	armed = 1;
	fn(ctx);
	armed = 0;
	return 0;
}

static void count_fault(int sig)
{
	if (sig == SIGBUS)
		ws->sigbus++;
	else if (sig == SIGSEGV)
		ws->sigsegv++;
}

/* Read a ring by the protocol of <linux/ibtick.h>. */
struct ring_read {
	struct map	*m;
	struct rng	*r;
	unsigned int	intact, lapped;
	bool		bad;
	char		why[120];
};

static void do_ring_read(void *c)
{
	struct ring_read *rr = c;
	const struct map *m = rr->m;
	const struct ibtick_ring_hdr *h = (const void *)m->addr;
	const uint32_t payload_max = m->slot_size - (uint32_t)sizeof(struct ibtick_slot);
	uint64_t prod, i, back, seq;
	const struct ibtick_slot *s;
	struct ibtick_slot d;
	unsigned int k, n = 1 + rn(rr->r, 8);

	sink ^= (unsigned char)__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE);		/* (C) */
	for (k = 0; k < n && prod; k++) {
		back = rn(rr->r, m->nslots + 4);
		i = prod - 1 - (back < prod ? back : prod - 1);
		s = (const void *)(m->addr + m->slots_off +
				   (i & (m->nslots - 1)) * (uint64_t)m->slot_size);
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);		/* (D) */
		if (seq != i) {
			rr->lapped++;
			continue;
		}
		memcpy(&d, s, sizeof(d));
		memcpy(tickbuf, s + 1, d.len < payload_max ? d.len : payload_max);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);			/* (F) */
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != i) {
			rr->lapped++;
			continue;
		}
		rr->intact++;
		if ((d.len > payload_max || d.orig_len < d.len) && !rr->bad) {
			rr->bad = true;
			snprintf(rr->why, sizeof(rr->why),
				 "intact tick %" PRIu64 ": len %u orig_len %u, slot payload max %u",
				 i, d.len, d.orig_len, payload_max);
		}
	}
	/* and every page once in a while */
	if (!rn(rr->r, 8))
		for (i = 0; i < m->len; i += pg)
			sink ^= m->addr[i];
}

/* Read one byte per page of a mapping (at most 64 pages). */
static void do_touch_pages(void *c)
{
	const struct map *m = c;
	size_t off, step = m->len / pg > 64 ? m->len / 64 : pg;

	for (off = 0; off < m->len; off += step)
		sink ^= *(volatile unsigned char *)(m->addr + off);
}

struct hdr_check {
	const struct map	*m;
	const struct ibtick_ring_info *ri;
	char			why[160];
};

static void do_hdr_check(void *c)
{
	struct hdr_check *hc = c;
	const struct ibtick_ring_hdr *h = (const void *)hc->m->addr;

	if (h->magic != IBTICK_RING_MAGIC || h->version != IBTICK_RING_VERSION ||
	    h->nslots != hc->ri->nslots || h->slot_size != hc->ri->slot_size ||
	    h->slots_off != hc->ri->slots_off)
		snprintf(hc->why, sizeof(hc->why),
			 "mapped ring header magic %#x version %u nslots %u slot_size %u slots_off %llu, RING_INFO says %u/%u/%llu",
			 h->magic, h->version, h->nslots, h->slot_size,
			 (unsigned long long)h->slots_off, hc->ri->nslots,
			 hc->ri->slot_size, (unsigned long long)hc->ri->slots_off);
}

/* ---- addresses and option values --------------------------------------- */

static uint32_t pick_ifindex(struct rng *r)
{
	unsigned int p = rn(r, 100);

	if (nif && p < 75)
		return ifidx[rn(r, (uint32_t)nif)];
	if (p < 85)
		return 0;
	if (p < 92)
		return 1;		/* lo: no RDMA port behind it */
	return (uint32_t)rnd(r);
}

static void pick_geometry(struct rng *r, uint32_t *ns, uint32_t *ss)
{
	static const uint32_t bad_ns[] = { 0, 1, 32, 63, 65, 3000, 1U << 21, UINT32_MAX };
	static const uint32_t bad_ss[] = { 0, 32, 48, 63, 100, 16384, UINT32_MAX };

	*ns = IBTICK_SLOTS_DEFAULT;
	*ss = IBTICK_SLOT_SIZE_DEFAULT;
	switch (rn(r, 10)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		*ns = 1U << (6 + rn(r, 9));		/* 64 .. 16384 */
		*ss = 1U << (6 + rn(r, 8));		/* 64 .. 8192 */
		while ((uint64_t)*ns * *ss > GEOM_CAP && *ns > IBTICK_SLOTS_MIN)
			*ns >>= 1;
		break;
	case 6:
		*ns = PICK(r, bad_ns);
		break;
	case 7:
		*ss = PICK(r, bad_ss);
		break;
	case 8:
		/* powers of two over IBTICK_RING_BYTES_MAX: EINVAL */
		if (pct(r, 50)) {
			*ns = 1U << 20;
			*ss = 8192;
		} else {
			*ns = 1U << 18;
			*ss = 1024;
		}
		break;
	default:
		*ns = (uint32_t)rnd(r);
		*ss = (uint32_t)rnd(r);
		break;
	}
}

static uint32_t pick_group(struct rng *r)
{
	static const char *const odd[] = {
		"224.0.0.1", "224.0.0.255", "224.0.1.1", "10.99.0.1",
		"255.255.255.255", "240.0.0.1", "239.255.255.255", "0.0.0.0",
	};
	struct in_addr in;

	if (pct(r, 88))
		return groups[rn(r, 4)];
	if (pct(r, 80) && inet_pton(AF_INET, PICK(r, odd), &in) == 1)
		return in.s_addr;
	return (uint32_t)rnd(r);
}

/* A sockaddr_ibtick, mostly valid, into addrbuf; returns the length to pass. */
static socklen_t build_ibt_addr(struct rng *r)
{
	static const uint16_t odd_fam[] = { 0, AF_INET, AF_INET6, AF_UNSPEC, 0xffff };
	struct sockaddr_ibtick sa;
	uint32_t g;

	memset(addrbuf, 0, sizeof(addrbuf));
	if (pct(r, 85)) {
		memset(&sa, 0, sizeof(sa));
		sa.sibt_family = pct(r, 97) ? (uint16_t)fam : PICK(r, odd_fam);
		sa.sibt_port = pct(r, 96) ? PICK(r, feed_ports) : (pct(r, 50) ? 0 : (uint16_t)rnd(r));
		sa.sibt_ifindex = pick_ifindex(r);
		sa.sibt_flags = pct(r, 95) ? 0 : 1U << rn(r, 32);
		sa.sibt_group_family = pct(r, 94) ? AF_INET : PICK(r, odd_fam);
		sa.sibt_reserved = pct(r, 97) ? 0 : (uint16_t)rnd(r);
		g = pick_group(r);
		memcpy(sa.sibt_group, &g, 4);
		if (pct(r, 3))
			sa.sibt_group[4 + rn(r, 12)] = (unsigned char)(1 + rn(r, 255));
		memcpy(addrbuf, &sa, sizeof(sa));
		if (pct(r, 10))
			fill(r, addrbuf + sizeof(sa), 64 - sizeof(sa));
	} else {
		fill(r, addrbuf, 64);
		if (pct(r, 50)) {
			sa.sibt_family = (uint16_t)fam;
			memcpy(addrbuf, &sa.sibt_family, 2);
		}
	}
	if (pct(r, 80))
		return sizeof(struct sockaddr_ibtick);
	if (pct(r, 95))
		return rn(r, 65);
	return pct(r, 50) ? 129 : (socklen_t)-1;
}

/* A sockaddr_nl for the kernel (pid 0), never another process. */
static socklen_t build_nl_addr(struct rng *r, bool groups_ok)
{
	struct sockaddr_nl nl;

	memset(&nl, 0, sizeof(nl));
	memset(addrbuf, 0, sizeof(addrbuf));
	nl.nl_family = pct(r, 90) ? AF_NETLINK : AF_UNSPEC;
	if (groups_ok && pct(r, 30))
		nl.nl_groups = (uint32_t)rnd(r);
	memcpy(addrbuf, &nl, sizeof(nl));
	return pct(r, 85) ? sizeof(nl) : rn(r, 17);
}

static int pick_level(struct rng *r, int kind)
{
	static const int other[] = { 0, 6, 17, 41, 263, 299, 301, -1 };

	if (kind == FK_GENL) {
		unsigned int p = rn(r, 100);

		if (p < 50)
			return SOL_NETLINK;
		if (p < 85)
			return SOL_SOCKET;
		if (p < 95)
			return SOL_IBTICK;
		return PICK(r, other);
	}
	switch (rn(r, 20)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
	case 6: case 7: case 8: case 9: case 10: case 11:
		return SOL_IBTICK;
	case 12: case 13: case 14: case 15: case 16: case 17:
		return SOL_SOCKET;
	case 18:
		return SOL_NETLINK;
	default:
		return pct(r, 70) ? PICK(r, other) : (int)rnd(r);
	}
}

static int pick_optname(struct rng *r, int level)
{
	static const int so[] = {
		SO_RCVTIMEO, SO_SNDTIMEO, SO_TIMESTAMPNS, SO_TIMESTAMPNS_NEW,
		SO_TIMESTAMP, SO_TIMESTAMPING, SO_BUSY_POLL, SO_PREFER_BUSY_POLL,
		SO_BUSY_POLL_BUDGET, SO_BINDTODEVICE, SO_ATTACH_FILTER,
		SO_DETACH_FILTER, SO_LOCK_FILTER, SO_MARK, SO_PRIORITY, SO_RCVBUF,
		SO_SNDBUF, SO_RCVBUFFORCE, SO_RCVLOWAT, SO_LINGER, SO_ZEROCOPY,
		SO_PEEK_OFF, SO_MEMINFO, SO_DOMAIN, SO_PROTOCOL, SO_TYPE, SO_ERROR,
		SO_COOKIE, SO_INCOMING_CPU, SO_PEERNAME, SO_PEERCRED, SO_TXTIME,
		SO_RXQ_OVFL, SO_WIFI_STATUS, SO_SELECT_ERR_QUEUE, SO_CNX_ADVICE,
	};

	if (level == SOL_IBTICK) {
		if (pct(r, 80))
			return 1 + (int)rn(r, IBTICK_COMP_VECTOR);
		return pct(r, 80) ? (int)rn(r, 21) : (int)rnd(r);
	}
	if (level == SOL_SOCKET) {
		if (pct(r, 65))
			return PICK(r, so);
		return pct(r, 80) ? (int)rn(r, 21) : (int)rn(r, 100);
	}
	if (level == SOL_NETLINK)
		return pct(r, 90) ? (int)rn(r, 14) : (int)rnd(r);
	return pct(r, 60) ? (int)rn(r, 21) : (int)rnd(r);
}

static int pick_int(struct rng *r)
{
	static const int v[] = { 0, 1, 1, -1, 2, 7, 64, 1000, INT_MAX, INT_MIN };

	return pct(r, 80) ? PICK(r, v) : (int)rnd(r);
}

static uint64_t sock_cursor(int fd, bool *ok)
{
	uint64_t cur = 0;
	socklen_t len = sizeof(cur);

	*ok = !getsockopt(fd, SOL_IBTICK, IBTICK_RING_CURSOR, &cur, &len) &&
	      len == sizeof(cur);
	return cur;
}

/* Fill optbuf for a setsockopt; returns the value's natural length. */
static socklen_t build_optval(struct rng *r, int fd, int level, int name)
{
	int v;

	fill(r, optbuf, 512);
	if (level == SOL_IBTICK) {
		switch (name) {
		case IBTICK_RING_GEOMETRY: {
			struct ibtick_ring_geometry g;

			pick_geometry(r, &g.nslots, &g.slot_size);
			memcpy(optbuf, &g, sizeof(g));
			return sizeof(g);
		}
		case IBTICK_RING_CURSOR: {
			static const int64_t delta[] = { -100000, -5000, -4097, -64, -1, 0, 0, 1, 2, 1000 };
			uint64_t cur;
			bool ok;

			cur = sock_cursor(fd, &ok);
			if (ok && pct(r, 60))
				cur += (uint64_t)PICK(r, delta);
			else
				cur = pct(r, 50) ? rn(r, 100) : rnd(r);
			memcpy(optbuf, &cur, sizeof(cur));
			return sizeof(cur);
		}
		case IBTICK_POLL_MODE: {
			static const int32_t cpus[] = { -1, -1, 0, 1, 2, 63, 4096, -2, INT32_MIN };
			struct ibtick_poll_mode pm;
			unsigned int p = rn(r, 100);

			/* busy mode burns a CPU per feed: keep it rare */
			pm.mode = p < 42 ? IBTICK_POLL_IRQ : p < 50 ? IBTICK_POLL_BUSY :
				  p < 75 ? 2 + rn(r, 3) : (uint32_t)rnd(r);
			pm.cpu = pct(r, 85) ? PICK(r, cpus) : (int32_t)rnd(r);
			if (pm.cpu >= 0 && pm.cpu < 4096 && pct(r, 50))
				pm.cpu = (int32_t)rn(r, (uint32_t)ncpu);
			memcpy(optbuf, &pm, sizeof(pm));
			return sizeof(pm);
		}
		case IBTICK_COMP_VECTOR: {
			static const int cv[] = { 0, 0, 1, 2, 100, -1, INT_MAX };

			v = PICK(r, cv);
			memcpy(optbuf, &v, sizeof(v));
			return sizeof(v);
		}
		default:
			v = pick_int(r);
			memcpy(optbuf, &v, sizeof(v));
			return sizeof(v);
		}
	}
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			static const long us[] = { 0, 1, 1000, 999999, 1000000, -1 };
			struct timeval tv;

			tv.tv_sec = pct(r, 80) ? (time_t)rn(r, 3) : (time_t)rnd(r);
			tv.tv_usec = pct(r, 80) ? PICK(r, us) : (long)rnd(r);
			memcpy(optbuf, &tv, sizeof(tv));
			return sizeof(tv);
		}
		case SO_BINDTODEVICE: {
			static const char *const names[] = { "lo", "", "veth1", "nosuchdev0" };
			const char *n = nif && pct(r, 40) ? ifnames[rn(r, (uint32_t)nif)] : PICK(r, names);

			memset(optbuf, 0, IFNAMSIZ);
			if (pct(r, 90))
				memcpy(optbuf, n, strlen(n));
			return pct(r, 50) ? (socklen_t)strlen((char *)optbuf) + 1 : IFNAMSIZ;
		}
		case SO_LINGER: {
			struct linger l = { (int)rn(r, 2), (int)rn(r, 3) };

			memcpy(optbuf, &l, sizeof(l));
			return sizeof(l);
		}
		case SO_ATTACH_FILTER: {
			struct sock_filter *ins = (void *)(optbuf + 64);
			struct sock_fprog fp;
			unsigned int i, n = rn(r, 5);

			for (i = 0; i < n; i++) {
				ins[i].code = pct(r, 60) ? BPF_RET | BPF_K : (uint16_t)rnd(r);
				ins[i].jt = 0;
				ins[i].jf = 0;
				ins[i].k = pct(r, 50) ? 0xffff : (uint32_t)rnd(r);
			}
			fp.len = (unsigned short)(pct(r, 85) ? n : rnd(r));
			fp.filter = pct(r, 85) ? ins : (struct sock_filter *)16;
			memcpy(optbuf, &fp, sizeof(fp));
			return sizeof(fp);
		}
		case SO_BUSY_POLL: {
			static const int bp[] = { 0, 1, 50, 200, 1000, -1 };

			v = pct(r, 90) ? PICK(r, bp) : (int)rnd(r);
			memcpy(optbuf, &v, sizeof(v));
			return sizeof(v);
		}
		default:
			v = pick_int(r);
			memcpy(optbuf, &v, sizeof(v));
			return sizeof(v);
		}
	}
	if (level == SOL_NETLINK) {
		v = name == NETLINK_ADD_MEMBERSHIP || name == NETLINK_DROP_MEMBERSHIP ?
			(pct(r, 80) ? (int)rn(r, 40) : (int)rnd(r)) : (int)rn(r, 2);
		memcpy(optbuf, &v, sizeof(v));
		return sizeof(v);
	}
	return 4;
}

static socklen_t odd_len(struct rng *r, socklen_t natural)
{
	static const socklen_t lens[] = { 0, 1, 2, 3, 4, 7, 8, 9, 12, 16, 24, 32, 48,
					  64, 72, 80, 96, 272, 280, 288, 300 };

	if (pct(r, 75))
		return natural;
	if (pct(r, 85))
		return pct(r, 60) ? PICK(r, lens) : rn(r, 301);
	return pct(r, 50) ? (socklen_t)-1 : (socklen_t)INT_MAX;
}

/* ---- the operations ----------------------------------------------------- */

static void op_socket(struct op *o)
{
	static const int types[] = { SOCK_STREAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_RDM,
				     10 /* SOCK_PACKET */, 0, 11 };
	static const int protos[] = { 1, 6, 17, 255, -1, 0x10000 };
	struct rng *r = &o->r;
	int type = SOCK_DGRAM, proto = 0, flags = 0, fd, i;

	if (pct(r, 20))
		flags |= SOCK_NONBLOCK;
	if (pct(r, 20))
		flags |= SOCK_CLOEXEC;
	if (!pct(r, 80)) {
		switch (rn(r, 4)) {
		case 0:
			type = PICK(r, types);
			break;
		case 1:
			proto = PICK(r, protos);
			break;
		case 2:
			type = (int)rnd(r);
			flags = 0;
			break;
		default:
			type = PICK(r, types);
			proto = PICK(r, protos);
			break;
		}
	}
	type |= flags;
	i = free_slot(r, -1);
	note("socket(%d, %#x, %d)", fam, (unsigned int)type, proto);
	errno = 0;
	fd = socket(fam, type, proto);
	rec(o, fd);
	if (fd < 0)
		return;
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_DGRAM || proto)
		anomaly("socket(AF_IBTICK, %#x, %d) succeeded (ESOCKTNOSUPPORT/EPROTONOSUPPORT expected)",
			(unsigned int)type, proto);
	slots[i].fd = fd;
	slots[i].kind = FK_IBT;
}

static void op_genl_socket(struct op *o)
{
	struct rng *r = &o->r;
	int i, fd, v = 1, type = pct(r, 85) ? SOCK_RAW : SOCK_DGRAM;

	if (pct(r, 30))
		type |= SOCK_NONBLOCK;
	i = free_slot(r, -1);
	note("socket(AF_NETLINK, %#x, NETLINK_GENERIC)", (unsigned int)type);
	errno = 0;
	fd = socket(AF_NETLINK, type | SOCK_CLOEXEC, NETLINK_GENERIC);
	rec_as(o, K_GENL_SOCKET, fd, errno);
	if (fd < 0)
		return;
	if (pct(r, 50))
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &v, sizeof(v));
	if (pct(r, 30))
		setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &v, sizeof(v));
	if (pct(r, 20))
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &v, sizeof(v));
	slots[i].fd = fd;
	slots[i].kind = FK_GENL;
}

static void op_epoll_create(struct op *o)
{
	struct rng *r = &o->r;
	int i, fd, flags = pct(r, 90) ? (pct(r, 50) ? EPOLL_CLOEXEC : 0) : (int)rnd(r);

	i = free_slot(r, -1);
	note("epoll_create1(%#x)", (unsigned int)flags);
	errno = 0;
	fd = epoll_create1(flags);
	rec(o, fd);
	if (fd < 0)
		return;
	slots[i].fd = fd;
	slots[i].kind = FK_EPOLL;
}

static void op_close(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_NONE), fd;

	if (i < 0 || pct(r, 4)) {
		fd = pct(r, 50) ? -1 : 1023;
		note("close(%d)", fd);
		errno = 0;
		rec(o, close(fd));
		return;
	}
	note("close(%d) kind %d", slots[i].fd, slots[i].kind);
	errno = 0;
	rec(o, close(slots[i].fd));
	slots[i].fd = -1;
	slots[i].kind = FK_NONE;
}

static void op_dup(struct op *o)
{
	struct rng *r = &o->r;
	int s = pick_slot(r, FK_NONE), d, fd;

	if (s < 0) {
		skip(o);
		return;
	}
	switch (rn(r, 5)) {
	case 0:
	case 1:
		d = free_slot(r, s);
		note("dup(%d)", slots[s].fd);
		errno = 0;
		fd = pct(r, 70) ? dup(slots[s].fd) :
		     fcntl(slots[s].fd, F_DUPFD_CLOEXEC, 100 + (int)rn(r, 50));
		rec(o, fd);
		if (fd >= 0) {
			slots[d].fd = fd;
			slots[d].kind = slots[s].kind;
		}
		break;
	case 2:
	case 3:
		d = pick_slot(r, FK_NONE);
		note("dup2/3(%d, %d)", slots[s].fd, slots[d].fd);
		errno = 0;
		fd = pct(r, 60) ? dup2(slots[s].fd, slots[d].fd) :
		     dup3(slots[s].fd, slots[d].fd, pct(r, 80) ? O_CLOEXEC : (int)rnd(r));
		rec(o, fd);
		if (fd >= 0)
			slots[d].kind = slots[s].kind;
		break;
	default:
		note("dup2(%d, -1)", slots[s].fd);
		errno = 0;
		rec(o, dup2(slots[s].fd, -1));
		break;
	}
}

static void op_bind_connect(struct op *o, bool is_connect)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	socklen_t len;
	void *ptr;

	if (p.kind == FK_GENL)
		len = build_nl_addr(r, !is_connect);
	else
		len = build_ibt_addr(r);
	if (p.kind == FK_GENL)
		/* never a netlink address read out of other bytes: pid 0 only */
		ptr = pct(r, 90) ? (void *)addrbuf : pct(r, 50) ? NULL : (void *)hole;
	else
		ptr = in_ptr(r, addrbuf, len > sizeof(addrbuf) ? sizeof(addrbuf) : len);
	{
		const struct sockaddr_ibtick *sa = (const void *)addrbuf;
		uint32_t g;

		memcpy(&g, sa->sibt_group, 4);
		note("%s(fd %d kind %d, len %u, fam %u port %u if %u flags %#x gfam %u grp %08x)",
		     is_connect ? "connect" : "bind", p.fd, p.kind, len,
		     sa->sibt_family, sa->sibt_port, sa->sibt_ifindex, sa->sibt_flags,
		     sa->sibt_group_family, ntohl(g));
	}
	errno = 0;
	if (is_connect)
		rec(o, connect(p.fd, ptr, len));
	else
		rec(o, bind(p.fd, ptr, len));
}

static void op_setsockopt(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	int level = pick_level(r, p.kind), name = pick_optname(r, level);
	socklen_t natural, len;
	void *ptr;

	natural = build_optval(r, p.fd, level, name);
	len = odd_len(r, natural);
	ptr = in_ptr(r, optbuf, len < sizeof(optbuf) ? len : sizeof(optbuf));
	note("setsockopt(fd %d kind %d, level %d, opt %d, len %u)", p.fd, p.kind,
	     level, name, len);
	errno = 0;
	rec(o, setsockopt(p.fd, level, name, ptr, len));
}

static socklen_t natural_get_len(int level, int name)
{
	if (level == SOL_IBTICK) {
		switch (name) {
		case IBTICK_RING_INFO:
			return sizeof(struct ibtick_ring_info);
		case IBTICK_STATISTICS:
			return sizeof(struct ibtick_stats);
		case IBTICK_RING_CURSOR:
		case IBTICK_POLL_MODE:
		case IBTICK_RING_GEOMETRY:
			return 8;
		default:
			return 4;
		}
	}
	if (level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO))
		return sizeof(struct timeval);
	if (level == SOL_SOCKET && name == SO_BINDTODEVICE)
		return IFNAMSIZ;
	return 4;
}

static void op_getsockopt(struct op *o)
{
	static const int negs[] = { -1, -100, INT_MIN };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	int level = pick_level(r, p.kind), name = pick_optname(r, level);
	static int optlen;
	void *val, *lenp = &optlen;
	unsigned int q;

	optlen = (int)odd_len(r, natural_get_len(level, name));
	if (optlen < 0 || optlen > 300)
		optlen = pct(r, 50) ? PICK(r, negs) : (int)rn(r, 301);
	val = out_ptr(r, optbuf, (size_t)(optlen > 0 ? optlen : 1));
	if (!pct(r, 88)) {
		q = rn(r, 4);
		lenp = q == 0 ? NULL : q == 1 ? (void *)hole : q == 2 ? (void *)ro_page :
		       (void *)(~(uintptr_t)0 - 4095);
	}
	note("getsockopt(fd %d kind %d, level %d, opt %d, len %d)", p.fd, p.kind,
	     level, name, optlen);
	errno = 0;
	rec(o, getsockopt(p.fd, level, name, val, lenp));
}

/* Is @fd an AF_IBTICK socket (the kernel's word, not our bookkeeping)? */
static bool is_ibt_fd(int fd)
{
	int d = -1;
	socklen_t l = sizeof(d);

	return fam >= 0 && !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &l) && d == fam;
}

static bool ring_info(int fd, struct ibtick_ring_info *ri)
{
	socklen_t len = sizeof(*ri);

	memset(ri, 0, sizeof(*ri));
	return !getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, ri, &len) &&
	       len == sizeof(*ri);
}

/* The ring contract of ibtick.7 after a mapping of an AF_IBTICK fd worked. */
static void check_new_ring(struct map *m, int fd, size_t len, off_t off, int prot,
			   int flags, struct ibtick_ring_info *ri, bool have_ri)
{
	struct sockaddr_ibtick sa;
	socklen_t sl = sizeof(sa);
	struct hdr_check hc;
	int sig;

	if (prot & (PROT_WRITE | PROT_EXEC))
		anomaly("mmap of a ring with prot %#x succeeded (EACCES expected)", (unsigned int)prot);
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		anomaly("MAP_PRIVATE mmap of a ring succeeded (EINVAL expected)");
	if (off)
		anomaly("mmap of a ring at offset %lld succeeded (EINVAL expected)", (long long)off);
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) && errno == ENOTCONN)
		anomaly("mmap of an unbound socket succeeded (EINVAL expected)");
	if (!have_ri && !ring_info(fd, ri)) {
		anomaly("mmap succeeded on a socket whose IBTICK_RING_INFO fails: %s",
			strerror(errno));
		return;
	}
	if (page_round(len) != ri->mmap_size)
		anomaly("mmap of a ring with length %zu succeeded, mmap_size is %llu (EINVAL expected)",
			len, (unsigned long long)ri->mmap_size);
	if (ri->nslots < IBTICK_SLOTS_MIN || (ri->nslots & (ri->nslots - 1)) ||
	    ri->slot_size < IBTICK_SLOT_SIZE_MIN || (ri->slot_size & (ri->slot_size - 1)) ||
	    ri->slots_off + (uint64_t)ri->nslots * ri->slot_size > m->len) {
		anomaly("IBTICK_RING_INFO geometry %u x %u at %llu does not fit the %zu-byte mapping",
			ri->nslots, ri->slot_size, (unsigned long long)ri->slots_off, m->len);
		return;
	}
	m->nslots = ri->nslots;
	m->slot_size = ri->slot_size;
	m->slots_off = ri->slots_off;
	if (!(prot & PROT_READ))
		return;
	hc.m = m;
	hc.ri = ri;
	hc.why[0] = 0;
	sig = guarded(do_hdr_check, &hc);
	if (sig)
		anomaly("fresh ring mapping faults (signal %d) on its first read", sig);
	else if (hc.why[0])
		anomaly("%s", hc.why);
}

static void op_mmap(struct op *o)
{
	static const size_t lens[] = { 0, 1, 4095, 4096, 8192, 12288, (1UL << 20) + 4096,
				       (4UL << 20) + 4096, 1UL << 40, SIZE_MAX, SIZE_MAX - 4095 };
	static const off_t offs[] = { 0, 0, 0, 4096, 1, 8192, (off_t)1 << 40, -4096 };
	static const int xflags[] = { MAP_POPULATE, MAP_NORESERVE, MAP_LOCKED,
				      MAP_NONBLOCK, MAP_GROWSDOWN, MAP_32BIT, MAP_STACK,
				      MAP_HUGETLB, MAP_SYNC, MAP_UNINITIALIZED,
				      MAP_DENYWRITE, MAP_EXECUTABLE, MAP_FILE };
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE,
				     MAP_SHARED_VALIDATE, 0 };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	struct ibtick_ring_info ri;
	bool have_ri = false, fixed_replace = false;
	size_t len;
	off_t off;
	int prot, flags, b = -1, i, victim = -1;
	unsigned char *addr = NULL, *got;
	unsigned int k;

	map_room(r);
	if (p.kind == FK_IBT && pct(r, 60))
		have_ri = ring_info(p.fd, &ri);
	if (have_ri && pct(r, 75)) {
		len = ri.mmap_size;
		off = (off_t)ri.mmap_offset;
		prot = PROT_READ;
		flags = MAP_SHARED;
		if (pct(r, 30)) {
			switch (rn(r, 14)) {
			case 0: len += pg; break;
			case 1: len -= pg; break;
			case 2: len -= 1; break;		/* same pages: fine */
			case 3: len += 1; break;		/* one page more */
			case 4: off = (off_t)pg; break;
			case 5: prot |= PROT_WRITE; break;
			case 6: prot |= PROT_EXEC; break;
			case 7: prot = PROT_NONE; break;
			case 8: flags = MAP_PRIVATE; break;
			case 9: flags = MAP_SHARED_VALIDATE; break;
			case 10: flags |= MAP_POPULATE; break;
			case 11: flags |= MAP_LOCKED; break;
			case 12: flags = MAP_SHARED_VALIDATE | MAP_SYNC; break;
			default: flags |= MAP_GROWSDOWN; break;
			}
		}
	} else {
		len = pct(r, 80) ? PICK(r, lens) : (size_t)rn(r, 8U << 20);
		off = pct(r, 85) ? PICK(r, offs) : (off_t)(rnd(r) & ~(uint64_t)(pg - 1));
		prot = (int)rn(r, 8);
		if (pct(r, 3))
			prot |= PROT_GROWSDOWN;
		flags = pct(r, 95) ? PICK(r, types) : (int)rn(r, 4);
		for (k = 0; k < 3; k++)
			if (pct(r, 12))
				flags |= PICK(r, xflags);
		if (pct(r, 12))
			flags |= MAP_ANONYMOUS;
	}
	if (flags & MAP_ANONYMOUS) {
		/* our own memory: small, never huge pages */
		flags &= ~MAP_HUGETLB;
		if (len > ANON_MAX)
			len = 1 + rn(r, ANON_MAX);
	}
	/* placement: mostly the kernel's choice, sometimes fixed in our arena */
	k = rn(r, 100);
	if (k < 10) {
		b = free_bay(r);
		addr = bay_slot(b, page_round(len));
		if (addr)
			flags |= MAP_FIXED;
	} else if (k < 14) {
		victim = pick_map(r, true);
		if (victim >= 0 && maps[victim].bay >= 0 && !bay_retired[maps[victim].bay]) {
			/* replace it whole, or shifted by a page (a ring refuses the split) */
			len = maps[victim].len;
			addr = maps[victim].addr;
			if (maps[victim].ring && pct(r, 40))
				addr = pct(r, 50) ? addr + pg : addr - pg;
			flags |= MAP_FIXED;
			fixed_replace = true;
			b = maps[victim].bay;
		} else {
			victim = -1;
		}
	} else if (k < 18) {
		addr = (unsigned char *)(uintptr_t)((rnd(r) & 0x3fffffffffffULL) & ~(uint64_t)(pg - 1));
		flags |= MAP_FIXED_NOREPLACE;
	}
	note("mmap(%p, %zu, %#x, %#x, fd %d kind %d, %lld)%s", (void *)addr, len,
	     (unsigned int)prot, (unsigned int)flags, p.fd, p.kind, (long long)off,
	     fixed_replace ? " replacing" : "");
	errno = 0;
	got = mmap(addr, len, prot, flags, p.fd, off);
	rec(o, got == MAP_FAILED ? -1 : 0);
	if (fixed_replace && got == MAP_FAILED) {
		unsigned char vec[1];

		/* a refused MAP_FIXED may have unmapped the old mapping first */
		if (mincore(maps[victim].addr, pg, vec) && errno == ENOMEM) {
			map_drop(victim, false);
			reserve(arena + (size_t)b * BAY, BAY);
		}
		return;
	}
	if (got == MAP_FAILED) {
		/* a refused MAP_FIXED into a free bay: make sure it leaves no hole */
		if ((flags & MAP_FIXED) && b >= 0 && len && len <= BAY)
			reserve(addr, page_round(len));
		return;
	}
	ws->maps_made++;
	if (fixed_replace) {
		if (got != maps[victim].addr) {
			if (maps[victim].ring)
				anomaly("MAP_FIXED over part of a ring mapping succeeded (the ring must refuse the split)");
			map_drop(victim, false);
			bay_retired[b] = true;	/* what is left there is not tracked */
		} else {
			maps_forget_range(got, page_round(len));
		}
	}
	i = map_free_entry();
	if (i < 0) {
		/* cannot happen (map_room), but never leak untracked mappings */
		munmap(got, len);
		return;
	}
	maps[i].addr = got;
	maps[i].len = page_round(len);
	maps[i].prot = prot;
	maps[i].bay = bay_of(got);
	maps[i].ring = false;
	if (!(flags & MAP_ANONYMOUS) && p.fd >= 0 && is_ibt_fd(p.fd)) {
		maps[i].ring = true;
		check_new_ring(&maps[i], p.fd, len, off, prot, flags, &ri, have_ri);
		if (!maps[i].nslots)
			maps[i].ring = false;	/* no usable geometry: plain touches */
	}
}

static void op_touch(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), sig;
	struct ring_read rr;

	if (i < 0) {
		skip(o);
		return;
	}
	note("touch %s mapping %p len %zu prot %#x", maps[i].ring ? "ring" : "plain",
	     (void *)maps[i].addr, maps[i].len, (unsigned int)maps[i].prot);
	memset(&rr, 0, sizeof(rr));
	rr.m = &maps[i];
	rr.r = r;
	if (maps[i].ring)
		sig = guarded(do_ring_read, &rr);
	else
		sig = guarded(do_touch_pages, &maps[i]);
	count_fault(sig);
	rec_as(o, o->kind, sig ? -1 : 0, 0);
	ws->ticks_intact += rr.intact;
	ws->ticks_lapped += rr.lapped;
	if (rr.bad)
		anomaly("%s", rr.why);
}

static void op_munmap(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), ret;
	struct map *m;
	unsigned char *a;
	size_t len;
	unsigned int v;

	if (i < 0) {
		skip(o);
		return;
	}
	m = &maps[i];
	a = m->addr;
	len = m->len;
	v = rn(r, 10);
	if (m->ring && len >= 2 * pg && v < 3) {
		/* a part: the ring refuses the split */
		if (v == 0)
			len = pg;
		else if (v == 1)
			a += pg;
		else
			len -= pg;
		if (v == 1)
			len -= pg;
	} else if (v == 3 && m->bay >= 0) {
		/* a superset inside its bay */
		a -= pg;
		len += 2 * pg;
	} else if (v == 4) {
		len = pct(r, 50) ? 0 : len;
		if (len)
			a += 1;		/* unaligned: EINVAL */
	}
	note("munmap(%p, %zu) of %s mapping %p+%zu", (void *)a, len,
	     m->ring ? "ring" : "plain", (void *)m->addr, m->len);
	errno = 0;
	ret = munmap(a, len);
	rec(o, ret);
	if (ret)
		return;
	if (a <= m->addr && a + len >= m->addr + m->len) {
		if (bay_of(a) >= 0)
			reserve(a, len);
		memset(m, 0, sizeof(*m));
		m->bay = -1;
		return;
	}
	if (m->ring)
		anomaly("partial munmap(%p, %zu) of a ring mapping %p+%zu succeeded (EINVAL expected)",
			(void *)a, len, (void *)m->addr, m->len);
	/* a part went: what is left stays until exit, untracked */
	if (m->bay >= 0) {
		reserve(a, len);
		bay_retired[m->bay] = true;
	}
	memset(m, 0, sizeof(*m));
	m->bay = -1;
}

static void op_mprotect(struct op *o)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_WRITE, PROT_EXEC,
				     PROT_READ | PROT_SEM, PROT_READ | PROT_GROWSDOWN };
	struct rng *r = &o->r;
	int i = pick_map(r, true), prot, ret;
	struct map *m;
	unsigned char *a;
	size_t len;
	bool whole = true;

	if (i < 0) {
		skip(o);
		return;
	}
	m = &maps[i];
	a = m->addr;
	len = m->len;
	prot = pct(r, 90) ? PICK(r, prots) : (int)rn(r, 16);
	if (len >= 2 * pg && pct(r, 25)) {
		whole = false;
		if (pct(r, 50))
			a += pg;
		len -= pg;
	}
	note("mprotect(%p, %zu, %#x) of %s mapping prot %#x", (void *)a, len,
	     (unsigned int)prot, m->ring ? "ring" : "plain", (unsigned int)m->prot);
	errno = 0;
	ret = mprotect(a, len, prot);
	rec(o, ret);
	if (ret)
		return;
	if (m->ring && (prot & (PROT_WRITE | PROT_EXEC)))
		anomaly("mprotect(%#x) of a ring mapping succeeded (EACCES expected)",
			(unsigned int)prot);
	if (!whole && m->ring &&
	    (prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (m->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		anomaly("mprotect of part of a ring mapping (prot %#x -> %#x) succeeded (EINVAL expected)",
			(unsigned int)m->prot, (unsigned int)prot);
	if (whole)
		m->prot = prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
}

static void op_madvise(struct op *o)
{
	static const int advs[] = {
		MADV_DONTNEED, MADV_DONTNEED, MADV_DONTNEED, MADV_DOFORK, MADV_DOFORK,
		MADV_DONTFORK, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_FREE, MADV_REMOVE, MADV_DONTDUMP, MADV_DODUMP, MADV_MERGEABLE,
		MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_WIPEONFORK,
		MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ,
		MADV_POPULATE_WRITE, MADV_DONTNEED_LOCKED_, MADV_COLLAPSE_,
	};
	struct rng *r = &o->r;
	int i = pick_map(r, true), adv;
	struct map *m;
	unsigned char *a;
	size_t len;

	if (i < 0) {
		skip(o);
		return;
	}
	m = &maps[i];
	a = m->addr;
	len = m->len;
	/* never MADV_HWPOISON (100) / MADV_SOFT_OFFLINE (101): they hurt the host */
	adv = pct(r, 90) ? PICK(r, advs) : (int)rn(r, 30);
	if (len >= 2 * pg && pct(r, 20)) {
		if (pct(r, 50))
			a += pg;
		len -= pg;
	}
	note("madvise(%p, %zu, %d) of %s mapping", (void *)a, len, adv,
	     m->ring ? "ring" : "plain");
	errno = 0;
	rec(o, madvise(a, len, adv));
}

static void op_mremap(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), flags = 0, b = -1, j;
	struct map *m;
	size_t old_len, new_len;
	unsigned char *na = NULL, *got, *old;

	if (i < 0) {
		skip(o);
		return;
	}
	m = &maps[i];
	old = m->addr;
	old_len = m->len;
	new_len = old_len;
	switch (rn(r, 7)) {
	case 0:		/* move into a free bay, same size */
		b = free_bay(r);
		na = bay_slot(b, old_len);
		if (!na) {
			skip(o);
			return;
		}
		flags = MREMAP_MAYMOVE | MREMAP_FIXED;
		break;
	case 1:		/* grow */
		new_len = old_len + pg * (1 + rn(r, 4));
		flags = pct(r, 50) ? MREMAP_MAYMOVE : 0;
		break;
	case 2:		/* shrink */
		if (old_len < 2 * pg) {
			skip(o);
			return;
		}
		new_len = old_len - pg;
		break;
	case 3:		/* old_len 0: a second mapping of the same pages */
		old_len = 0;
		flags = MREMAP_MAYMOVE;
		break;
	case 4:
		flags = MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
		break;
	case 5:
		flags = MREMAP_MAYMOVE;
		break;
	default:	/* garbage flags; FIXED never reaches outside the arena */
		flags = (int)(rnd(r) & 0xff) & ~MREMAP_FIXED;
		break;
	}
	note("mremap(%p, %zu, %zu, %#x, %p) of %s mapping", (void *)old, old_len,
	     new_len, (unsigned int)flags, (void *)na, m->ring ? "ring" : "plain");
	errno = 0;
	got = mremap(old, old_len, new_len, flags, na);
	rec(o, got == MAP_FAILED ? -1 : 0);
	if (got == MAP_FAILED) {
		/* MREMAP_FIXED unmaps the target first: leave no hole in the bay */
		if (na)
			reserve(na, old_len);
		return;
	}
	if (m->ring && new_len != old_len)
		anomaly("mremap(%zu -> %zu, flags %#x) of a ring mapping succeeded (it cannot grow, shrink or be duplicated)",
			old_len, new_len, (unsigned int)flags);
	if (!old_len || (flags & MREMAP_DONTUNMAP)) {
		/* a second mapping; the old one stays */
		j = map_free_entry();
		if (j < 0 || bay_of(got) >= 0) {
			munmap(got, new_len);
			if (bay_of(got) >= 0)
				reserve(got, new_len);
			return;
		}
		maps[j] = *m;
		maps[j].addr = got;
		maps[j].len = page_round(new_len);
		maps[j].bay = bay_of(got);
		return;
	}
	if (got != old && m->bay >= 0)
		reserve(old, m->len);			/* moved out of its bay */
	else if (got == old && new_len < m->len && m->bay >= 0)
		reserve(old + new_len, m->len - new_len);	/* the tail it gave back */
	m->addr = got;
	m->len = page_round(new_len);
	m->bay = bay_of(got);
}

/* Payload buffer kinds for the kernel to read from. */
static void *send_base(struct rng *r, size_t len)
{
	if (pct(r, 88))
		return sbuf + rn(r, 64);
	return in_ptr(r, sbuf, len < sizeof(sbuf) ? len : 1);
}

static size_t payload_len(struct rng *r)
{
	static const size_t lens[] = { 0, 1, 32, 900, 992, 993, 1000, 1500, 4096,
				       8192, 65535, 65536, 69000 };

	return pct(r, 70) ? rn(r, 993) : PICK(r, lens);
}

static int send_flags(struct rng *r)
{
	static const int extra[] = { MSG_NOSIGNAL, MSG_EOR, MSG_MORE, MSG_OOB,
				     MSG_CONFIRM, MSG_ZEROCOPY, MSG_FASTOPEN, MSG_PROBE_,
				     MSG_TRUNC, MSG_CMSG_CLOEXEC, MSG_ERRQUEUE };
	int f = MSG_DONTWAIT;
	unsigned int k;

	for (k = 0; k < 2; k++)
		if (pct(r, 15))
			f |= PICK(r, extra);
	if (pct(r, 3))
		f |= (int)(1U << rn(r, 31));
	return f | MSG_DONTWAIT;
}

static void genl_send(struct op *o, int fd, int kind);

static void op_sendmsg(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	struct msghdr mh;
	struct mmsghdr mm[2];
	unsigned int i, n, cnt;
	long ret;
	size_t len;

	if (p.kind == FK_GENL) {
		/* nothing random goes to netlink: only requests for our family */
		genl_send(o, p.fd, o->kind);
		return;
	}
	fill(r, sbuf, 2048);
	if (pct(r, 35)) {
		/* a burst of ticks: the data path and a full send queue */
		n = 1 + rn(r, 32);
		note("send burst of %u on fd %d kind %d", n, p.fd, p.kind);
		for (i = 0; i < n; i++) {
			len = pct(r, 90) ? rn(r, 993) : payload_len(r);
			errno = 0;
			ret = send(p.fd, sbuf, len, MSG_DONTWAIT | (pct(r, 20) ? MSG_NOSIGNAL : 0));
			if (i == 0 && ret < 0 && errno == EDESTADDRREQ && pct(r, 40)) {
				socklen_t al = build_ibt_addr(r);

				errno = 0;
				ret = sendto(p.fd, sbuf, len, MSG_DONTWAIT, (void *)addrbuf, al);
			}
			rec(o, ret);
			if (ret < 0 && errno != EAGAIN)
				break;
		}
		return;
	}
	memset(&mh, 0, sizeof(mh));
	switch (rn(r, 10)) {
	case 0: case 1:
		mh.msg_namelen = build_ibt_addr(r);
		mh.msg_name = in_ptr(r, addrbuf, mh.msg_namelen < 64 ? mh.msg_namelen : 64);
		break;
	case 2:
		fill(r, addrbuf, 128);
		mh.msg_name = addrbuf;
		mh.msg_namelen = rn(r, 129);
		break;
	default:
		break;
	}
	cnt = pct(r, 65) ? 1 : pct(r, 90) ? rn(r, 5) : (pct(r, 50) ? 1025 : 0x10000);
	for (i = 0; i < cnt && i < 8; i++) {
		len = pct(r, 97) ? payload_len(r) : (size_t)SSIZE_MAX;
		iovs[i].iov_len = len;
		iovs[i].iov_base = send_base(r, len);
	}
	mh.msg_iov = pct(r, 97) ? iovs : (struct iovec *)hole;
	mh.msg_iovlen = cnt;
	if (pct(r, 20)) {
		fill(r, ctlbuf, 512);
		mh.msg_controllen = pct(r, 80) ? rn(r, 512) : (size_t)INT_MAX + 1;
		mh.msg_control = in_ptr(r, ctlbuf, mh.msg_controllen < 512 ? mh.msg_controllen : 512);
	}
	note("sendmsg(fd %d kind %d, name %p/%u, iov %u, ctl %zu)", p.fd, p.kind,
	     mh.msg_name, mh.msg_namelen, cnt, (size_t)mh.msg_controllen);
	errno = 0;
	if (pct(r, 10)) {
		mm[0].msg_hdr = mh;
		mm[1].msg_hdr = mh;
		mm[0].msg_len = mm[1].msg_len = 0;
		rec(o, sendmmsg(p.fd, mm, 2, (unsigned int)send_flags(r)));
	} else {
		rec(o, sendmsg(p.fd, &mh, send_flags(r)));
	}
	for (i = 0; i < NIOV && i < 8; i++)
		iovs[i].iov_base = NULL, iovs[i].iov_len = 0;
}

/* Receive iovecs: every base in the first 64 KiB of rbuf (256 KiB), so that
 * whatever length they claim, the at most 64 KiB a datagram brings stays in it.
 */
static unsigned int recv_iov(struct rng *r)
{
	static const size_t lens[] = { 0, 1, 8, 47, 48, 200, 992, 4096, 8144, 65536,
				       1UL << 20, (size_t)SSIZE_MAX };
	unsigned int cnt = pct(r, 65) ? 1 : pct(r, 90) ? rn(r, 5) : 1025, i;

	for (i = 0; i < cnt && i < 8; i++) {
		iovs[i].iov_len = pct(r, 60) ? 65536 : PICK(r, lens);
		iovs[i].iov_base = pct(r, 92) ? rbuf + rn(r, RBASE_MAX) :
				   out_ptr(r, rbuf, iovs[i].iov_len < 4096 ? iovs[i].iov_len : 4096);
	}
	return cnt;
}

static void recv_ctl(struct rng *r, struct msghdr *mh)
{
	static const size_t sizes[] = { 1, 8, 15, 16, 24, 31 };
	size_t n;

	switch (rn(r, 10)) {
	case 0: case 1: case 2: case 3:
		return;
	case 4:
		n = PICK(r, sizes);			/* too small for anything */
		break;
	case 5:
		n = CMSG_SPACE(sizeof(uint64_t));	/* just one cmsg */
		break;
	case 6:
		n = CMSG_SPACE(sizeof(uint64_t)) + CMSG_SPACE(sizeof(struct ibtick_tick_info)) +
		    CMSG_SPACE(16);
		break;
	case 7:
		n = 4096;
		break;
	default:
		n = 64 + rn(r, 256);
		mh->msg_control = out_ptr(r, ctlbuf, n);
		mh->msg_controllen = n;
		return;
	}
	mh->msg_control = ctlbuf;
	mh->msg_controllen = n;
}

static int recv_flags(struct rng *r)
{
	static const int extra[] = { MSG_TRUNC, MSG_TRUNC, MSG_CMSG_CLOEXEC, MSG_PEEK,
				     MSG_WAITALL, MSG_ERRQUEUE, MSG_OOB, MSG_NOSIGNAL };
	int f = MSG_DONTWAIT;

	if (pct(r, 30))
		f |= PICK(r, extra);
	if (pct(r, 3))
		f |= (int)(1U << rn(r, 31));
	return f | MSG_DONTWAIT;	/* never block */
}

static void op_recvmsg(struct op *o)
{
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	static const socklen_t nlens[] = { 32, 32, 0, 8, 31, 128, 200, (socklen_t)-1 };
	struct msghdr mh;
	struct mmsghdr mm[3];
	struct timespec zero = { 0, 0 };
	unsigned int i, vlen;
	int flags;

	memset(&mh, 0, sizeof(mh));
	if (pct(r, 50)) {
		mh.msg_namelen = PICK(r, nlens);
		mh.msg_name = out_ptr(r, addrbuf, 32);
	}
	mh.msg_iovlen = recv_iov(r);
	mh.msg_iov = pct(r, 97) ? iovs : (struct iovec *)hole;
	recv_ctl(r, &mh);
	flags = recv_flags(r);
	note("recvmsg(fd %d kind %d, name %p/%d, iov %zu, ctl %p/%zu, flags %#x)",
	     p.fd, p.kind, mh.msg_name, (int)mh.msg_namelen, (size_t)mh.msg_iovlen,
	     mh.msg_control, (size_t)mh.msg_controllen, (unsigned int)flags);
	errno = 0;
	if (pct(r, 8)) {
		vlen = 1 + rn(r, 3);
		for (i = 0; i < vlen; i++) {
			mm[i].msg_hdr = mh;
			mm[i].msg_len = 0;
		}
		if (pct(r, 30))
			flags |= MSG_WAITFORONE;
		rec(o, recvmmsg(p.fd, mm, vlen, flags, pct(r, 50) ? &zero : NULL));
	} else {
		rec(o, recvmsg(p.fd, &mh, flags));
	}
	for (i = 0; i < 8; i++)
		iovs[i].iov_base = NULL, iovs[i].iov_len = 0;
}

static short poll_events(struct rng *r)
{
	static const short ev[] = { POLLIN, POLLOUT, POLLPRI, POLLERR, POLLHUP,
				    POLLRDNORM, POLLWRNORM, POLLRDHUP, POLLNVAL };
	short e = 0;
	unsigned int k;

	for (k = 0; k < 3; k++)
		if (pct(r, 50))
			e |= PICK(r, ev);
	return pct(r, 95) ? e : (short)rnd(r);
}

static void op_poll(struct op *o)
{
	struct rng *r = &o->r;
	struct timespec zero = { 0, 0 };
	unsigned int n = 1 + rn(r, 8), i;
	nfds_t nfds = n;

	for (i = 0; i < n; i++) {
		pfds[i].fd = pick_fd(r, FK_IBT).fd;
		pfds[i].events = poll_events(r);
		pfds[i].revents = 0;
	}
	if (pct(r, 3))
		nfds = pct(r, 50) ? NPOLL : (nfds_t)-1;	/* all ours, or EINVAL */
	note("poll(%lu fds, timeout 0)", (unsigned long)nfds);
	errno = 0;
	switch (rn(r, 10)) {
	case 0:
		rec(o, poll((struct pollfd *)hole, n, 0));
		break;
	case 1: case 2:
		rec(o, ppoll(pfds, nfds, &zero, NULL));
		break;
	default:
		rec(o, poll(pfds, nfds, 0));
		break;
	}
}

static uint32_t ep_events(struct rng *r)
{
	static const uint32_t ev[] = { EPOLLIN, EPOLLOUT, EPOLLPRI, EPOLLERR, EPOLLHUP,
				       EPOLLRDHUP, EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE,
				       EPOLLWAKEUP, EPOLLRDNORM, EPOLLWRNORM };
	uint32_t e = 0;
	unsigned int k;

	for (k = 0; k < 3; k++)
		if (pct(r, 50))
			e |= PICK(r, ev);
	return pct(r, 95) ? e : (uint32_t)rnd(r);
}

static void op_epoll_ctl(struct op *o)
{
	static const int ops[] = { EPOLL_CTL_ADD, EPOLL_CTL_ADD, EPOLL_CTL_MOD,
				   EPOLL_CTL_DEL, 0, 4 };
	struct rng *r = &o->r;
	struct pick ep = pick_fd(r, FK_EPOLL), t = pick_fd(r, FK_IBT);
	struct epoll_event ev;
	int op = PICK(r, ops);
	void *evp = &ev;

	ev.events = ep_events(r);
	ev.data.u64 = rnd(r);
	if (!pct(r, 92))
		evp = pct(r, 50) ? NULL : (void *)hole;
	note("epoll_ctl(%d kind %d, %d, %d kind %d, %#x)", ep.fd, ep.kind, op, t.fd,
	     t.kind, ev.events);
	errno = 0;
	rec(o, epoll_ctl(ep.fd, op, t.fd, evp));
}

static void op_epoll_wait(struct op *o)
{
	static const int maxev[] = { 1, 8, NEPEV, 0, -1, INT_MAX };
	struct rng *r = &o->r;
	struct pick ep = pick_fd(r, FK_EPOLL);
	int max = pct(r, 70) ? 1 + (int)rn(r, 64) : PICK(r, maxev);
	void *evs = pct(r, 92) ? (void *)epev : pct(r, 50) ? (void *)ro_page : (void *)hole;

	note("epoll_wait(%d kind %d, max %d, timeout 0)", ep.fd, ep.kind, max);
	errno = 0;
	if (pct(r, 20))
		rec(o, epoll_pwait(ep.fd, evs, max, 0, NULL));
	else
		rec(o, epoll_wait(ep.fd, evs, max, 0));
}

/* Reap fork children; with @wait_all, all of them (10 s each at most). */
static void reap_children(bool wait_all)
{
	int i, st, t;
	pid_t p;

	for (i = 0; i < NPEND; i++) {
		if (!pending[i])
			continue;
		for (t = 0;; t++) {
			p = waitpid(pending[i], &st, WNOHANG);
			if (p == pending[i] || (p < 0 && errno != EINTR))
				break;
			if (!wait_all)
				break;
			if (t == 1000) {
				kill(pending[i], SIGKILL);
				anomaly("fork child %d did not exit in 10 s", (int)pending[i]);
			}
			usleep(10000);
		}
		if (p != pending[i])
			continue;
		pending[i] = 0;
		if (WIFSIGNALED(st))
			anomaly("fork child killed by signal %d (%s)", WTERMSIG(st),
				strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3)
			anomaly("fork child exited with status %d", WEXITSTATUS(st));
	}
}

static void op_fork_map(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), j, sig;
	struct map m;
	pid_t pid;

	if (i < 0) {
		skip(o);
		return;
	}
	if (pct(r, 40))
		madvise(maps[i].addr, maps[i].len, MADV_DOFORK);
	reap_children(false);
	for (j = 0; j < NPEND && pending[j]; j++)
		;
	if (j == NPEND) {
		reap_children(true);
		j = 0;
	}
	m = maps[i];
	note("fork with %s mapping %p+%zu", m.ring ? "ring" : "plain", (void *)m.addr, m.len);
	errno = 0;
	pid = fork();
	if (pid == 0) {
		struct ring_read rr;
		int k;

		/* the child: touch, maybe unmap or close, and go */
		memset(&rr, 0, sizeof(rr));
		rr.m = &m;
		rr.r = r;
		sig = guarded(m.ring ? do_ring_read : do_touch_pages, m.ring ? (void *)&rr : (void *)&m);
		if (pct(r, 30))
			munmap(m.addr, m.len);
		if (pct(r, 30) && (k = pick_slot(r, FK_NONE)) >= 0)
			close(slots[k].fd);
		if (pct(r, 20))
			sig |= guarded(do_touch_pages, &m);
		_exit(sig ? 3 : 0);
	}
	rec(o, pid);
	if (pid < 0)
		return;
	ws->forks++;
	pending[j] = pid;
	if (pct(r, 50))
		reap_children(true);
}

/* ---- generic netlink ---------------------------------------------------- */

static size_t build_attr(struct rng *r, unsigned char *p, size_t room, int depth)
{
	static const char *const names[] = { "rxe0", "rxe1", "mlx5_0", "",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" };
	static const uint16_t types[] = { 0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 0x7fff };
	struct nlattr na;
	unsigned char *d = p + NLA_HDRLEN;
	size_t dl = 0, max;
	uint16_t type;
	uint32_t v;

	if (room < NLA_HDRLEN + 8)
		return 0;
	max = room - NLA_HDRLEN;
	switch (rn(r, 10)) {
	case 0: case 1: case 2:
		type = IBTICK_A_DEV_INDEX;
		v = pct(r, 70) ? rn(r, 4) : (uint32_t)rnd(r);
		dl = pct(r, 85) ? 4 : PICK(r, ((const size_t[]){ 0, 1, 2, 3, 5, 8 }));
		memset(d, 0, 8);
		memcpy(d, &v, 4);
		break;
	case 3: case 4: case 5: {
		const char *s = PICK(r, names);

		type = IBTICK_A_DEV_NAME;
		dl = strlen(s) + (pct(r, 85) ? 1 : 0);
		if (dl > max)
			dl = max;
		memcpy(d, s, dl < strlen(s) ? dl : strlen(s));
		if (dl > strlen(s))
			d[strlen(s)] = 0;
		break;
	}
	case 6:
		type = (uint16_t)(rn(r, 16) | NLA_F_NESTED);
		if (depth < 2)
			dl = build_attr(r, d, max > 64 ? 64 : max, depth + 1);
		break;
	default:
		type = pct(r, 70) ? PICK(r, types) : (uint16_t)rnd(r);
		dl = rn(r, (uint32_t)(max < 64 ? max : 64));
		fill(r, d, dl);
		break;
	}
	if (pct(r, 4))
		type |= NLA_F_NESTED;
	if (pct(r, 3))
		type |= NLA_F_NET_BYTEORDER;
	if (dl > max)
		dl = max;
	na.nla_type = type;
	na.nla_len = (uint16_t)(NLA_HDRLEN + dl);
	if (!pct(r, 88))
		na.nla_len = PICK(r, ((const uint16_t[]){ 0, 1, 3, 4, 0xffff,
				      (uint16_t)(NLA_HDRLEN + dl + 1),
				      (uint16_t)(NLA_HDRLEN + dl - 1),
				      (uint16_t)rnd(r) }));
	memcpy(p, &na, sizeof(na));
	dl = NLA_ALIGN(NLA_HDRLEN + dl);
	return dl > room ? room : dl;
}

/* One or more genl requests, to the ibtick family (or nlctrl) only. */
static size_t build_genl(struct rng *r)
{
	static const uint16_t xflags[] = { NLM_F_ACK, NLM_F_ECHO, NLM_F_DUMP, NLM_F_ROOT,
					   NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_EXCL,
					   NLM_F_CREATE, NLM_F_REPLACE, NLM_F_APPEND,
					   NLM_F_MULTI, NLM_F_DUMP_INTR, 0x8000 };
	size_t off = 0, start, real;
	unsigned int m, nmsg = pct(r, 85) ? 1 : 2 + rn(r, 2), a, nattr, k;
	struct nlmsghdr nh;
	struct genlmsghdr gh;

	memset(nlbuf, 0, sizeof(nlbuf));
	for (m = 0; m < nmsg && off + 512 < sizeof(nlbuf); m++) {
		start = off;
		off += NLMSG_HDRLEN;
		memset(&gh, 0, sizeof(gh));
		gh.cmd = (uint8_t)(pct(r, 45) ? IBTICK_CMD_DEV_GET : rn(r, 21));
		gh.version = (uint8_t)(pct(r, 85) ? IBTICK_GENL_VERSION : PICK(r, ((const uint8_t[]){ 0, 2, 255 })));
		gh.reserved = (uint16_t)(pct(r, 95) ? 0 : rnd(r));
		memcpy(nlbuf + off, &gh, sizeof(gh));
		off += GENL_HDRLEN;
		nattr = pct(r, 30) ? 1 : rn(r, 5);
		for (a = 0; a < nattr && off + 256 < sizeof(nlbuf); a++)
			off += build_attr(r, nlbuf + off, sizeof(nlbuf) - 128 - off, 0);
		real = off - start;
		memset(&nh, 0, sizeof(nh));
		nh.nlmsg_len = (uint32_t)real;
		if (!pct(r, 85))
			nh.nlmsg_len = PICK(r, ((const uint32_t[]){ 0, 4, NLMSG_HDRLEN,
					    NLMSG_HDRLEN + GENL_HDRLEN - 1,
					    (uint32_t)real - 1, (uint32_t)real + 1 + rn(r, 64),
					    UINT32_MAX, rn(r, 4096) }));
		/* never another family's number: that could change the system */
		k = rn(r, 100);
		nh.nlmsg_type = (uint16_t)(k < 92 ? genl_id : k < 96 ? GENL_ID_CTRL :
					   PICK(r, ((const uint16_t[]){ NLMSG_NOOP, NLMSG_ERROR,
								     NLMSG_DONE, NLMSG_OVERRUN, 0 })));
		if (nh.nlmsg_type == GENL_ID_CTRL) {
			/* read-only nlctrl commands only */
			gh.cmd = pct(r, 70) ? CTRL_CMD_GETFAMILY : CTRL_CMD_GETPOLICY;
			memcpy(nlbuf + start + NLMSG_HDRLEN, &gh, sizeof(gh));
		}
		nh.nlmsg_flags = pct(r, 92) ? NLM_F_REQUEST : 0;
		for (k = 0; k < 2; k++)
			if (pct(r, 30))
				nh.nlmsg_flags |= PICK(r, xflags);
		if (pct(r, 25))
			nh.nlmsg_flags |= NLM_F_DUMP;
		nh.nlmsg_seq = (uint32_t)rnd(r);
		nh.nlmsg_pid = pct(r, 90) ? 0 : (uint32_t)rnd(r);
		memcpy(nlbuf + start, &nh, sizeof(nh));
		off = NLMSG_ALIGN(off);
	}
	return off;
}

/* Read what the kernel answered, non-blocking; count acks and errors. */
static void genl_drain(struct op *o, int fd, unsigned int max)
{
	unsigned int i;
	ssize_t n;
	size_t off;
	struct nlmsghdr nh;
	struct nlmsgerr e;

	for (i = 0; i < max; i++) {
		n = recv(fd, rbuf, 65536, MSG_DONTWAIT);
		if (n <= 0)
			break;
		for (off = 0; off + NLMSG_HDRLEN <= (size_t)n;) {
			memcpy(&nh, rbuf + off, sizeof(nh));
			if (nh.nlmsg_len < NLMSG_HDRLEN || off + nh.nlmsg_len > (size_t)n)
				break;
			ws->calls[K_GENL_REPLY]++;
			if (nh.nlmsg_type == NLMSG_ERROR &&
			    nh.nlmsg_len >= NLMSG_HDRLEN + sizeof(e)) {
				memcpy(&e, rbuf + off + NLMSG_HDRLEN, sizeof(e));
				rec_as(o, K_GENL_REPLY, e.error ? -1 : 0, -e.error);
			} else {
				rec_as(o, K_GENL_REPLY, 0, 0);
			}
			off += NLMSG_ALIGN(nh.nlmsg_len);
		}
	}
}

static void genl_send(struct op *o, int fd, int kind)
{
	struct rng *r = &o->r;
	struct sockaddr_nl nl;
	size_t len = build_genl(r);
	ssize_t ret;

	memset(&nl, 0, sizeof(nl));
	nl.nl_family = AF_NETLINK;	/* the kernel: pid 0, no groups */
	if (!pct(r, 88))
		len = rn(r, (uint32_t)len + 1);	/* cut short */
	note("genl send %zu bytes on fd %d (family %d)", len, fd, genl_id);
	errno = 0;
	if (pct(r, 80))
		ret = sendto(fd, nlbuf, len, MSG_DONTWAIT, (struct sockaddr *)&nl, sizeof(nl));
	else
		ret = send(fd, nlbuf, len, MSG_DONTWAIT);
	rec_as(o, kind, ret, errno);
	if (pct(r, 85))
		genl_drain(o, fd, 32);
}

static void op_genl_send(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_GENL);

	if (i < 0 || slots[i].kind != FK_GENL) {
		/* no genl socket yet: open one (counted as genl_socket) */
		ws->calls[K_GENL_SOCKET]++;
		op_genl_socket(o);
		i = pick_slot(r, FK_GENL);
		if (i < 0 || slots[i].kind != FK_GENL) {
			skip(o);
			return;
		}
	}
	genl_send(o, slots[i].fd, o->kind);
}

static void op_genl_recv(struct op *o)
{
	static const size_t sizes[] = { 0, 1, 16, 20, 100, 4096, 65536 };
	struct rng *r = &o->r;
	int i = pick_slot(r, FK_GENL), flags = MSG_DONTWAIT;
	size_t n = PICK(r, sizes);

	if (i < 0 || slots[i].kind != FK_GENL) {
		skip(o);
		return;
	}
	if (pct(r, 20))
		flags |= MSG_PEEK;
	if (pct(r, 20))
		flags |= MSG_TRUNC;
	note("recv(genl fd %d, %zu, %#x)", slots[i].fd, n, (unsigned int)flags);
	errno = 0;
	rec(o, recv(slots[i].fd, rbuf, n, flags));
	if (pct(r, 50))
		genl_drain(o, slots[i].fd, 8);
}

/* ---- the rest of the socket API ---------------------------------------- */

static void op_misc(struct op *o)
{
	static const unsigned long ioctls[] = { FIONREAD, TIOCOUTQ, SIOCGSTAMP_OLD_,
						SIOCGSTAMPNS_OLD_, SIOCPROTOPRIVATE_,
						SIOCPROTOPRIVATE_ + 15 };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	static socklen_t alen;
	int sv[2], fd, v, which = (int)rn(r, 12);
	unsigned long cmd;
	struct stat st;
	void *lenp = &alen;

	alen = PICK(r, ((const socklen_t[]){ 32, 32, 0, 8, 128, (socklen_t)-1 }));
	if (!pct(r, 90))
		lenp = pct(r, 50) ? NULL : (void *)ro_page;
	errno = 0;
	switch (which) {
	case 0:
		note("getsockname(fd %d kind %d, len %d)", p.fd, p.kind, (int)alen);
		rec(o, getsockname(p.fd, out_ptr(r, addrbuf, 32), lenp));
		break;
	case 1:
		note("getpeername(fd %d kind %d, len %d)", p.fd, p.kind, (int)alen);
		rec(o, getpeername(p.fd, out_ptr(r, addrbuf, 32), lenp));
		break;
	case 2:
		note("listen(fd %d kind %d)", p.fd, p.kind);
		rec(o, listen(p.fd, (int)rn(r, 10)));
		break;
	case 3:
		note("accept4(fd %d kind %d)", p.fd, p.kind);
		fd = accept4(p.fd, pct(r, 50) ? (struct sockaddr *)addrbuf : NULL,
			     pct(r, 50) ? lenp : NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		rec(o, fd);
		if (fd >= 0) {
			if (p.kind == FK_IBT)
				anomaly("accept on an AF_IBTICK socket succeeded (EOPNOTSUPP expected)");
			close(fd);
		}
		break;
	case 4:
		note("shutdown(fd %d kind %d)", p.fd, p.kind);
		rec(o, shutdown(p.fd, pct(r, 90) ? (int)rn(r, 3) : (int)rnd(r)));
		break;
	case 5:
		note("socketpair(%d, SOCK_DGRAM, 0)", fam);
		v = socketpair(fam, SOCK_DGRAM, 0, sv);
		rec(o, v);
		if (!v) {
			anomaly("socketpair(AF_IBTICK) succeeded (EOPNOTSUPP expected)");
			close(sv[0]);
			close(sv[1]);
		}
		break;
	case 6:
	case 7:
		/* only ioctls that read or fail: never an interface change */
		cmd = pct(r, 80) ? PICK(r, ioctls) :
		      (0xEEUL << 8) | rn(r, 256) | ((unsigned long)rn(r, 4) << 30) |
		      ((unsigned long)rn(r, 64) << 16);
		note("ioctl(fd %d kind %d, %#lx)", p.fd, p.kind, cmd);
		rec(o, ioctl(p.fd, cmd, out_ptr(r, optbuf, 64)));
		break;
	case 8:
		note("fcntl(fd %d, F_GETFL)", p.fd);
		rec(o, fcntl(p.fd, F_GETFL));
		break;
	case 9:
		v = fcntl(p.fd, F_GETFL);
		note("fcntl(fd %d, F_SETFL, %#x ^ O_NONBLOCK)", p.fd, (unsigned int)v);
		rec(o, v < 0 ? v : fcntl(p.fd, F_SETFL, v ^ O_NONBLOCK));
		break;
	case 10:
		note("fstat(fd %d)", p.fd);
		rec(o, fstat(p.fd, &st));
		break;
	default:
		alen = sizeof(v);
		note("getsockopt(fd %d, SO_DOMAIN)", p.fd);
		rec(o, getsockopt(p.fd, SOL_SOCKET, SO_DOMAIN, &v, &alen));
		break;
	}
}

/*
 * Waits, each bounded by this operation itself (1..5 ms): recvmsg without
 * MSG_DONTWAIT after SO_RCVTIMEO and SO_BUSY_POLL were set and read back
 * here (ibt_wait, the SO_BUSY_POLL caller drain), poll and epoll_wait with
 * a timeout.  Off with -D.
 */
static void op_timed_wait(struct op *o)
{
	struct rng *r = &o->r;
	int i, bp = (int)rn(r, 200), ms = 1 + (int)rn(r, 5), got_bp = -1;
	struct timeval tv = { 0, 1000 * ms }, tvr = { 0, 0 };
	socklen_t l;
	struct msghdr mh;
	struct pick p;
	unsigned int n, k;

	switch (rn(r, 3)) {
	case 0:
		i = pick_slot(r, FK_IBT);
		if (i < 0 || slots[i].kind != FK_IBT) {
			skip(o);
			return;
		}
		l = sizeof(tvr);
		if (setsockopt(slots[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
		    getsockopt(slots[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tvr, &l) ||
		    tvr.tv_sec || tvr.tv_usec <= 0 || tvr.tv_usec > 10000) {
			skip(o);
			return;
		}
		setsockopt(slots[i].fd, SOL_SOCKET, SO_BUSY_POLL, &bp, sizeof(bp));
		l = sizeof(got_bp);
		if (getsockopt(slots[i].fd, SOL_SOCKET, SO_BUSY_POLL, &got_bp, &l) ||
		    got_bp < 0 || got_bp > 1000) {
			skip(o);
			return;
		}
		memset(&mh, 0, sizeof(mh));
		iovs[0].iov_base = rbuf;
		iovs[0].iov_len = pct(r, 80) ? 65536 : rn(r, 64);
		mh.msg_iov = iovs;
		mh.msg_iovlen = 1;
		mh.msg_control = ctlbuf;
		mh.msg_controllen = pct(r, 70) ? 256 : rn(r, 32);
		note("recvmsg(fd %d) blocking: SO_RCVTIMEO %ld us, SO_BUSY_POLL %d us",
		     slots[i].fd, (long)tvr.tv_usec, got_bp);
		errno = 0;
		rec(o, recvmsg(slots[i].fd, &mh, pct(r, 30) ? MSG_TRUNC : 0));
		break;
	case 1:
		n = 1 + rn(r, 4);
		for (k = 0; k < n; k++) {
			p = pick_fd(r, FK_IBT);
			pfds[k].fd = p.fd;
			pfds[k].events = POLLIN | POLLOUT;
			pfds[k].revents = 0;
		}
		note("poll(%u fds, %d ms)", n, ms);
		errno = 0;
		rec(o, poll(pfds, n, ms));
		break;
	default:
		p = pick_fd(r, FK_EPOLL);
		note("epoll_wait(%d kind %d, %d ms)", p.fd, p.kind, ms);
		errno = 0;
		rec(o, epoll_wait(p.fd, epev, NEPEV, ms));
		break;
	}
}

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

static void dump_stuck(int w, pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	printf("worker %d (pid %d) stuck in op #%" PRIu64 " (%s): %s\n", w, (int)pid,
	       stats[w].ops, kind_name[stats[w].kind], stats[w].desc);
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("  wchan: %s\n", buf);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			printf("  kernel stack:\n%s", buf);
		}
	}
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
