/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libibtick-preload.so: runs an unmodified AF_INET SOCK_DGRAM multicast
 * program on ibtick (ibtick-run(8)).  Internal contract between its files:
 *
 *   init.c     the real libc functions, the configuration, the family
 *   log.c      -v / IBTICK_LOG lines and the always-printed errors
 *   table.c    the per-fd table and taking a socket over (AF_IBTICK socket
 *              dup3()ed onto the application's descriptor)
 *   member.c   group memberships and the options that follow a socket
 *   rx.c       one tick in, the application's msghdr out (sockaddr_in, cmsgs)
 *   ring.c     the ticks taken from the feeds' mapped rings, the kernel's
 *              cursors kept in step
 *   tx.c       sends: to a configured group over ibtick, else kernel UDP
 *   srcaddr.c  the sender's IPv4 address from its GID
 *   hooks.c    the exported functions that interpose libc's
 *   wait.c     poll, select, epoll_wait: the kernel told the cursors first
 *
 * A tracked socket (struct psock) is every AF_INET datagram socket the
 * program creates while a configuration is active.  It stays a kernel UDP
 * socket until a call names a configured group (a membership, a connect or
 * a send); then it is taken over: an AF_IBTICK socket with the state the
 * program set is installed on its descriptor numbers, and the UDP socket
 * lives on as its hidden "shadow" (bound port, getsockname, options, sends
 * to unconfigured destinations).
 */
#ifndef IBTICK_PRELOAD_H
#define IBTICK_PRELOAD_H

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/select.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/ibtick.h>

#include "libibtick.h"
#include "runconf.h"

/* ---- init.c: the functions we interpose, as libc has them ---- */
struct real_fns {
	int (*socket)(int, int, int);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*close)(int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*fcntl)(int, int, ...);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned int, int);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	int (*getsockname)(int, struct sockaddr *, socklen_t *);
	int (*getpeername)(int, struct sockaddr *, socklen_t *);
	int (*ioctl)(int, unsigned long, ...);
	int (*epoll_ctl)(int, int, int, struct epoll_event *);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		       const sigset_t *);
	int (*epoll_wait)(int, struct epoll_event *, int, int);
	int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
	/* NULL where libc has none (before glibc 2.35) */
	int (*epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *,
			    const sigset_t *);
};
extern struct real_fns real;

extern struct runconf pl_conf;		/* the rules, ifindexes resolved */
extern int pl_active;			/* a usable rule exists */
/* IBTICK_BUSY_POLL: SO_BUSY_POLL (µs) for the sockets taken over; 0 none */
extern int pl_busy_poll;
extern int pl_prefer_busy_poll;	/* IBTICK_PREFER_BUSY_POLL */
#define PL_BUSY_POLL_MAX	1000000

void pl_init(void);			/* idempotent; every hook calls it */
int pl_family(void);			/* AF_IBTICK number or -1 (errno) */

/* ---- log.c ---- */
extern int pl_verbose;
void pl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pl_log_open(void);
const char *pl_ip(uint32_t addr_be, char *buf);	/* buf: 16 bytes */

/*
 * A socket's read lock (rxlock).  It is held only briefly, never across a
 * call that waits (rx.c lets it go around the kernel's recvmsg), so a
 * futex word does the work of a pthread mutex at a fraction of its
 * instructions, on every read.  v: 0 free, 1 held, 2 held and a thread
 * may be waiting (the futex mutex of U. Drepper's "Futexes Are Tricky",
 * released by an exchange).  Not recursive, private to the process (a
 * fork's child makes its own, ring.c).  pl_rx_trylock() gives 0 when taken,
 * as pthread_mutex_trylock() does.  Taking and letting go keep errno (the
 * futex calls of the slow paths save it), so that a read need not.
 */
struct pl_rxlock {
	int	v;
};

void pl_rx_wait(struct pl_rxlock *l);
void pl_rx_wake(struct pl_rxlock *l);

static inline void pl_rx_init(struct pl_rxlock *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELAXED);
}

static inline int pl_rx_trylock(struct pl_rxlock *l)
{
	int free_ = 0;

	return !__atomic_compare_exchange_n(&l->v, &free_, 1, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED);
}

static inline void pl_rx_lock(struct pl_rxlock *l)
{
	if (pl_rx_trylock(l))
		pl_rx_wait(l);
}

static inline void pl_rx_unlock(struct pl_rxlock *l)
{
	if (__atomic_exchange_n(&l->v, 0, __ATOMIC_RELEASE) == 2)
		pl_rx_wake(l);
}

/* ---- table.c ---- */
#define PL_MAX_FDS	8	/* descriptor numbers sharing one socket */
#define PL_MAX_OPTS	8	/* SOL_SOCKET options replayed at takeover */
#define PL_MAX_PEND	16	/* memberships waiting for bind() */
#define PL_MAX_PUB	8	/* destinations one socket publishes to */
#define PL_MAX_SRC	8	/* sources of one source-specific membership */
#define PL_MAX_EP	8	/* epoll registrations moved at takeover */

struct pfeed {				/* a configured group the socket reads */
	uint32_t	group;		/* network byte order */
	uint16_t	port;		/* host byte order */
	unsigned int	ifindex;	/* what the feed was added with */
	int		nsrc;		/* source filter (0: any source) */
	uint32_t	src[PL_MAX_SRC];/* network byte order */
	uint64_t	delivered;
	uint64_t	lost;		/* IBTICK_CMSG_LOST of this feed */
	uint64_t	filtered;	/* from a source the filter excludes */
	/* ring.c: the feed's ring, mapped (rd.map NULL: not mapped) */
	struct ibtick_reader rd;	/* rd.cursor: the next tick to read */
	uint32_t	feed_id;
	unsigned int	kifindex;	/* the feed's ifindex, as the kernel resolved it */
	int		cur_known;	/* rd.cursor is where the socket reads */
	int		dirty;		/* rd.cursor moved; the kernel not told yet */
};

struct psrc {				/* a publisher's address (ring.c) */
	uint32_t	pub_id;
	uint32_t	ip;		/* network byte order; 0 not known */
	time_t		when;		/* ip 0: when the kernel last said so */
	int		valid;
};
#define PL_SRC_BITS	6		/* 64 publishers remembered per socket */

enum {					/* why a read went to the kernel (ring.c) */
	PL_WHY_LAPPED,			/* the ring lapped the reader: it counts the loss */
	PL_WHY_SOURCE,			/* a publisher whose address is not known yet */
	PL_WHY_NODATA,			/* an arbitrated feed's NODATA slot */
	PL_WHY_LOOK,			/* the periodic look of a non-blocking reader */
	PL_WHY_N
};

struct ppub {				/* a configured destination sent to */
	uint32_t	group;
	uint16_t	port;
	unsigned int	ifindex;
	int		fd;		/* -1: the socket itself; else hidden */
	uint64_t	sent;
	uint64_t	waits;		/* EAGAIN waited out (blocking socket) */
	uint64_t	oversize;	/* EMSGSIZE on ibtick: sent as kernel UDP */
};

struct pend {				/* a membership made before bind() */
	uint32_t	group;		/* network byte order */
	unsigned int	ifindex;
	uint32_t	src;		/* source-specific; 0 any */
};

struct psopt {
	int		name;		/* SOL_SOCKET option */
	socklen_t	len;
	unsigned char	val[32];
};

struct pepoll {
	int			epfd;
	int			fd;
	struct epoll_event	ev;
};

struct pstash {				/* one tick read ahead (MSG_PEEK, FIONREAD) */
	int		full;
	ssize_t		len;		/* bytes in buf */
	ssize_t		wire_len;	/* the tick's length */
	struct sockaddr_in from;
	uint32_t	group;
	unsigned int	ifindex;
	int		have_ts;
	struct timespec	ts;
	unsigned char	*buf;		/* PL_STASH_MAX bytes, allocated once */
};
#define PL_STASH_MAX	65536

struct psock {
	int		nfds;
	int		fds[PL_MAX_FDS];	/* descriptor numbers, first is the one created */
	int		ibtick;		/* taken over */
	int		shadow;		/* taken over: the UDP socket, hidden */
	uint16_t	port;		/* bound UDP port, host order; 0 none */
	int		connected;
	struct sockaddr_in peer;
	unsigned int	bind_ifindex;	/* SO_BINDTODEVICE */
	unsigned int	mc_ifindex;	/* IP_MULTICAST_IF */
	int		loop;		/* IP_MULTICAST_LOOP (default 1) */
	int		ts_ns, ts_us;	/* SO_TIMESTAMPNS, SO_TIMESTAMP */
	int		rxq_ovfl;	/* SO_RXQ_OVFL */
	int		pktinfo;	/* IP_PKTINFO */
	int		source_cmsg;	/* the kernel gives IBTICK_CMSG_SOURCE */
	int		multi;		/* IBTICK_ADD_FEED works (else bind()) */
	int		nopt;
	struct psopt	opt[PL_MAX_OPTS];
	int		npend;
	struct pend	pend[PL_MAX_PEND];
	int		nfeed;
	struct pfeed	feed[IBTICK_FEEDS_PER_SOCKET];
	int		last_feed;	/* the feed of the previous tick */
	int		npub;
	struct ppub	pub[PL_MAX_PUB];
	int		nep;
	struct pepoll	ep[PL_MAX_EP];
	uint64_t	lost_total;	/* for SO_RXQ_OVFL */
	uint64_t	kudp_joined;	/* unconfigured groups joined while taken over */
	int		warned_mixed;
	int		warned_srcfilter;
	int		warned_async;	/* O_ASYNC told (pl_no_sigio) */
	struct pstash	stash;
	/* ring.c: reading the feeds' rings; rx.c takes rxlock around a read */
	struct pl_rxlock rxlock;
	/* rx.c: one thread fills the stash at a time; taken before rxlock */
	pthread_mutex_t	stashlock;
	int		ring_off;	/* read through the kernel (a mapping failed, fork) */
	int		dirty_any;	/* a feed's cursor moved, the kernel not told */
	int		listed;		/* in ring.c's list (dirty, or was: ring.c) */
	int		in_kernel;	/* readers inside the kernel's recvmsg */
	int		nb;		/* O_NONBLOCK: 1, 0, or -1 not known yet */
	int		busy;		/* SO_BUSY_POLL on: 1, 0, or -1 not known yet */
	unsigned int	empty;		/* empty non-blocking looks */
	int		no_look;	/* IBTICK_SIOC_LOOK refused: busy reads go to the kernel */
	int		no_wait;	/* IBTICK_SIOC_WAIT refused: blocking reads wait in recvmsg */
	unsigned int	rr;		/* the feed to look at first */
	struct psrc	src[1 << PL_SRC_BITS];
	uint64_t	ring_ticks;	/* read from the rings (source-filtered too) */
	uint64_t	kernel_ticks;	/* read by recvmsg on the ibtick socket (the same) */
	uint64_t	syncs;		/* IBTICK_MEMBER_CURSOR calls */
	uint64_t	resolves;	/* IBTICK_FEEDS calls to learn a cursor */
	uint64_t	looks;		/* IBTICK_SIOC_LOOK calls (SO_BUSY_POLL) */
	uint64_t	waits;		/* IBTICK_SIOC_WAIT calls (blocking reads) */
	uint64_t	why[PL_WHY_N];	/* why the kernel was asked for a tick */
};

extern pthread_mutex_t pl_lock;		/* table changes and takeovers */

struct psock *pl_get(int fd);		/* NULL: not tracked */
struct psock *pl_track(int fd);		/* a new AF_INET datagram socket */
void pl_attach(struct psock *ps, int newfd);	/* newfd is a dup of ps */
void pl_detach(int fd);			/* fd is being closed or replaced */
void pl_forget(int fd);			/* fd was closed without us */
void pl_prefork(void);			/* pthread_atfork: before (takes pl_lock) */
void pl_postfork_parent(void);		/* ... in the parent (lets it go) */
void pl_forked(void);			/* ... in the child */
void pl_sync_fd(int fd);		/* before a wait on @fd: tell the kernel its cursors */
void pl_sync_all(void);			/* the same for every socket (epoll_wait) */

/*
 * A new AF_IBTICK socket with the options the program set on @ps replayed,
 * or -1 with errno (and a message already printed when the module is not
 * loaded).
 */
int pl_new_ibtick(struct psock *ps);
/* Put ibtick socket @s on every descriptor of @ps (closes @s). 0 or -1. */
int pl_install(struct psock *ps, int s);
/* O_ASYNC on a taken-over socket: SIGIO for its ticks is not reliable; said once */
void pl_no_sigio(struct psock *ps);
void pl_feedaddr(struct sockaddr_ibtick *sa, uint32_t group, uint16_t port,
		 unsigned int ifindex);
/* The ifindex a rule gives a group whose program asked for @hint. */
unsigned int pl_rule_ifindex(const struct runconf_rule *r, unsigned int hint);

/* ---- member.c ---- */
/* setsockopt, all levels; returns what the program's call returns */
int pl_setsockopt(struct psock *ps, int fd, int level, int name,
		  const void *val, socklen_t len);
int pl_getsockopt(struct psock *ps, int fd, int level, int name,
		  void *val, socklen_t *len);
/* the socket was just bound to @port: act on memberships made before */
void pl_bound(struct psock *ps, int fd);
/*
 * An unbound socket now publishes to configured @group:@port: its
 * memberships of @group made before (waiting for a port) read that feed,
 * the one replies to the addresses it gives come to.
 */
void pl_pending_to_feed(struct psock *ps, int fd, uint32_t group, uint16_t port,
			unsigned int ifindex);

/* ---- rx.c ---- */
struct rxres {				/* one tick read */
	ssize_t			n;	/* what the program's call returns */
	ssize_t			wire;	/* the tick's length (orig_len), -1 not known */
	int			trunc;	/* MSG_TRUNC */
	struct sockaddr_in	from;
	uint32_t		group;
	unsigned int		ifindex;
	int			have_ts;
	struct timespec		ts;
};

ssize_t pl_recvmsg(struct psock *ps, int fd, struct msghdr *m, int flags);
int pl_fionread(struct psock *ps, int fd, int *avail);

/* ---- ring.c ---- */
extern int pl_ring_on;			/* IBTICK_RING (default 1) */
extern int pl_ndirty;			/* sockets that may have to sync before a wait (a hint) */
#ifndef PL_MAX_DIRTY
#define PL_MAX_DIRTY	1024		/* sockets on that list (the unit tests build it smaller) */
#endif
/* one empty non-blocking look in this many enters the kernel */
#define PL_KERNEL_LOOK	256
/* map feed @f's ring (just added to @ps on @fd); on failure the kernel reads */
void pl_ring_map(struct psock *ps, int fd, struct pfeed *f);
void pl_ring_unmap(struct pfeed *f);
/* in a child after fork(): no mappings there (pl_ring_forked_child() first) */
void pl_ring_forked(struct psock *ps);
void pl_ring_forked_child(void);
void pl_ring_prefork(void);		/* pthread_atfork prepare: sync every socket */
/* the socket is going: unmap its rings, forget it */
void pl_ring_forget(struct psock *ps);
/* tell the kernel every cursor that moved; 0, or -1 (reads go to the kernel) */
int pl_ring_sync_dirty(struct psock *ps, int fd);

static inline int pl_ring_sync(struct psock *ps, int fd)
{
	return ps->dirty_any ? pl_ring_sync_dirty(ps, fd) : 0;
}

/* SO_BUSY_POLL on @fd, asked the first time (and after a setsockopt) */
int pl_busy_ask(struct psock *ps, int fd);

/*
 * SO_BUSY_POLL is on (ibtick-run -b, or the program's own): the program's
 * calls are to drain the CQ.  A non-blocking read that finds the rings
 * empty has the kernel look at the CQs (IBTICK_SIOC_LOOK), then looks at
 * the rings again; a blocking one spins in the kernel's wait
 * (IBTICK_SIOC_WAIT), as its recvmsg would.
 */
static inline int pl_busy(struct psock *ps, int fd)
{
	return ps->busy >= 0 ? ps->busy : pl_busy_ask(ps, fd);
}

/* the socket's feeds have their rings mapped: reads look at them first */
static inline int pl_ring_usable(const struct psock *ps)
{
	return pl_ring_on && ps->multi && ps->nfeed && !ps->ring_off;
}

/*
 * SO_BUSY_POLL, the rings empty: one look at the CQs by the kernel
 * (IBTICK_SIOC_LOOK), which takes no tick; 0, or -1 the kernel must read.
 */
int pl_ring_look(struct psock *ps, int fd);

/*
 * A blocking read found every ring empty: wait in the kernel
 * (IBTICK_SIOC_WAIT, which learns the moved cursors and takes no tick).
 * 0: something came, the rings are read again; -1 with errno: the wait's
 * error for the program (the cursors told all the same), or ENOSYS: the
 * kernel's recvmsg must wait (a module without the ioctl, a cursor it
 * refused).
 */
int pl_ring_wait(struct psock *ps, int fd);

/*
 * 1 a tick in @r, 0 every ring empty, -1 the kernel must read.  Only when
 * pl_ring_usable().
 */
int pl_ring_take(struct psock *ps, int fd, const struct iovec *iov, size_t iovlen, int flags,
		 struct rxres *r);
/*
 * Every ring empty: may a call with @kflags return EAGAIN without the
 * kernel (a non-blocking one, not every PL_KERNEL_LOOK-th)?  Syncs, but
 * for a busy reader (its waits and PL_KERNEL_LOOK-th looks do).
 */
int pl_ring_empty_ok(struct psock *ps, int fd, int kflags);
/* does a read with @kflags return rather than wait (MSG_DONTWAIT, O_NONBLOCK)? */
int pl_nonblocking(struct psock *ps, int fd, int kflags);
/* pl_ring_kernel_tick() on a socket that reads its rings: follow the kernel's cursor */
void pl_ring_follow(struct psock *ps, struct pfeed *f, int err, uint64_t lost,
		    const struct ibtick_tick_info *ti);

/* the kernel's recvmsg returned (a tick of feed @fi with @lost and @ti, or error @err) */
static inline void pl_ring_kernel_tick(struct psock *ps, int fi, int err, uint64_t lost,
				       const struct ibtick_tick_info *ti)
{
	struct pfeed *f = fi >= 0 ? &ps->feed[fi] : NULL;

	ps->empty = 0;
	if (f)
		ps->kernel_ticks++;
	/* nothing came, nothing moved: a non-blocking look, a signal */
	if (!pl_ring_usable(ps) || err == EAGAIN || err == EINTR)
		return;
	pl_ring_follow(ps, f, err, lost, ti);
}
void pl_ring_learn(struct psock *ps, uint32_t pub_id, uint32_t ip);
/* a source-specific feed @f takes ticks from @ip (network order) */
int pl_source_allowed(const struct pfeed *f, uint32_t ip);

/* ---- tx.c ---- */
ssize_t pl_sendmsg(struct psock *ps, int fd, const struct msghdr *m, int flags);
int pl_connect(struct psock *ps, int fd, const struct sockaddr *sa, socklen_t len);
/* the destination, if it is configured: the rule (else NULL) */
const struct runconf_rule *pl_dest_rule(struct psock *ps, const struct sockaddr_in *d,
					unsigned int *ifindex);

/* ---- srcaddr.c ---- */
/*
 * The IPv4 address of the host that sent a tick, from its source GID:
 * the address itself when the GID is IPv4-mapped (RoCEv2), else the
 * address the IPoIB neighbour table (/proc/net/arp) gives that GID.
 * 0 when neither knows it.  Returns network byte order.
 */
uint32_t pl_src_ipv4_lookup(const struct ibtick_source *src);

static inline uint32_t pl_src_ipv4(const struct ibtick_source *src)
{
	uint32_t ip;

	if (!(src->flags & IBTICK_SOURCE_IPV4))
		return pl_src_ipv4_lookup(src);
	memcpy(&ip, src->gid + 12, 4);
	return ip;
}
/* Pure: the address /proc/net/arp text @text gives @gid, or 0. */
uint32_t pl_arp_lookup(const char *text, const uint8_t gid[16]);

#endif
