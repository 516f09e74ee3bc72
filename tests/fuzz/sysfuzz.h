/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfuzz: what its files share (see sysfuzz.c for what it does).
 *
 *   sysfuzz.c        options, the workers and their supervision
 *   sysfuzz_state.c  a worker's fds, mappings, buffers and result counts
 *   sysfuzz_sock.c   socket operations: socket/bind/connect, options,
 *                    sendmsg/recvmsg, poll/epoll, the rest of the API
 *   sysfuzz_mmap.c   the ring mapping: mmap/munmap/mprotect/madvise/mremap,
 *                    reading rings under a fault guard, fork with a mapping
 *   sysfuzz_genl.c   random generic netlink requests
 */
#ifndef IBTICK_SYSFUZZ_H
#define IBTICK_SYSFUZZ_H

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

/* ---- worker state ------------------------------------------------------- */

/* FK_CONN: a SOCK_SEQPACKET (connection) socket, always non-blocking */
enum { FK_NONE, FK_IBT, FK_GENL, FK_EPOLL, FK_CONN };
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

/* ---- random numbers ----------------------------------------------------- */

struct rng { uint64_t s; };

static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n). */
static inline uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(((rnd(r) >> 32) * (uint64_t)n) >> 32) : 0;
}

static inline bool pct(struct rng *r, unsigned int p)
{
	return rn(r, 100) < p;
}

#define PICK(r, arr) ((arr)[rn((r), sizeof(arr) / sizeof((arr)[0]))])

static inline void fill(struct rng *r, void *p, size_t n)
{
	unsigned char *c = p;

	while (n--)
		*c++ = (unsigned char)rnd(r);
}

struct op {
	struct rng	r;
	int		kind;
	long		ret;
	int		err;
	bool		recorded;
};

struct pick { int fd; int kind; int idx; };

/* sysfuzz.c: the configuration, set before the workers fork */
extern int fam;
extern int genl_id;
extern uint32_t ifidx[4];
extern const char *ifnames[4];
extern int nif;
extern uint32_t groups[4];
extern const uint16_t feed_ports[4];
extern long ncpu;
extern size_t pg;

/* sysfuzz_state.c: a worker's state and its bookkeeping */
extern int wid;
extern uint64_t opno;
extern struct wstat *ws;
extern struct slot slots[MAXFD];
extern struct map maps[MAXMAP];
extern unsigned char *arena;
extern bool bay_retired[NBAY];
extern unsigned char *rw_guard;
extern unsigned char *ro_page;
extern unsigned char *hole;
extern pid_t pending[NPEND];
extern volatile unsigned char sink;
extern unsigned char rbuf[RBUF];
extern unsigned char sbuf[70000];
extern unsigned char optbuf[4096];
extern unsigned char addrbuf[256];
extern unsigned char ctlbuf[8192];
extern unsigned char nlbuf[4096];
extern unsigned char tickbuf[8192];
extern struct iovec iovs[NIOV];
extern struct pollfd pfds[NPOLL];
extern struct epoll_event epev[NEPEV];

void rec_as(struct op *o, int kind, long ret, int err);
void skip(struct op *o);
void rec(struct op *o, long ret);
void slot_close(int i);
int free_slot(struct rng *r, int keep);
int pick_slot(struct rng *r, int kind);
struct pick pick_fd(struct rng *r, int kind);
void reserve(void *addr, size_t len);
int bay_of(const void *a);
int free_bay(struct rng *r);
unsigned char *bay_slot(int b, size_t len);
size_t page_round(size_t len);
int map_free_entry(void);
void map_drop(int i, bool do_unmap);
void map_room(struct rng *r);
int pick_map(struct rng *r, bool prefer_ring);
struct map *op_map(struct op *o);
void maps_forget_range(const unsigned char *a, size_t len);
void *in_ptr(struct rng *r, void *valid, size_t len);
void *out_ptr(struct rng *r, void *valid, size_t len);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void anomaly(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* sysfuzz_sock.c: the socket operations */
void op_socket(struct op *o);
void op_genl_socket(struct op *o);
void op_epoll_create(struct op *o);
void op_close(struct op *o);
void op_dup(struct op *o);
void op_bind_connect(struct op *o, bool is_connect);
void op_setsockopt(struct op *o);
void op_getsockopt(struct op *o);
void op_sendmsg(struct op *o);
void op_recvmsg(struct op *o);
void op_poll(struct op *o);
void op_epoll_ctl(struct op *o);
void op_epoll_wait(struct op *o);
void op_misc(struct op *o);
void op_timed_wait(struct op *o);

/* sysfuzz_mmap.c: the ring mapping operations, the fault guard */
void on_fault(int sig);
void op_mmap(struct op *o);
void op_touch(struct op *o);
void op_munmap(struct op *o);
void op_mprotect(struct op *o);
void op_madvise(struct op *o);
void op_mremap(struct op *o);
void reap_children(bool wait_all);
void op_fork_map(struct op *o);

/* sysfuzz_genl.c: generic netlink */
void genl_send(struct op *o, int fd, int kind);
void op_genl_send(struct op *o);
void op_genl_recv(struct op *o);

#endif
