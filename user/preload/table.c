// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the per-descriptor table, and taking a UDP socket over.
 *
 * Taking over keeps the program's descriptor numbers: a new AF_IBTICK
 * socket gets the options the program had set, its first feed (or its
 * publisher's connect) is done on it while the program's descriptor is
 * still the UDP socket (so a refusal leaves the program on kernel UDP),
 * and only then is it dup3()ed onto each of the program's descriptors,
 * keeping each one's FD_CLOEXEC and the socket's O_NONBLOCK.  The UDP
 * socket stays open as the hidden shadow.  epoll registrations the program
 * made before are moved to the new socket (epoll watches open files, not
 * numbers).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/sock_diag.h>

#include "preload.h"

/* recursive: a call made under it (if_nametoindex() opens a UDP socket) comes back */
pthread_mutex_t pl_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static struct psock **tab;
static int ntab;

static int grow(void)
{
	struct rlimit rl;
	rlim_t n = 1024;

	if (tab)
		return 0;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > n)
		n = rl.rlim_cur;
	if (n > (1u << 20))
		n = 1u << 20;
	tab = calloc(n, sizeof(*tab));
	if (!tab)
		return -1;
	ntab = (int)n;
	return 0;
}

struct psock *pl_get(int fd)
{
	struct psock **t = __atomic_load_n(&tab, __ATOMIC_ACQUIRE);

	if (!t || fd < 0 || fd >= ntab)
		return NULL;
	return __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
}

/* Called with pl_lock held. */
struct psock *pl_track(int fd)
{
	struct psock *ps;

	if (grow() || fd < 0)
		return NULL;
	if (fd >= ntab) {
		pl_log("fd %d: past the table (%d descriptors): left on kernel UDP", fd, ntab);
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->fds[0] = fd;
	ps->nfds = 1;
	ps->shadow = -1;
	ps->loop = 1;
	ps->last_feed = -1;
	ps->nb = -1;
	ps->busy = -1;
	pl_rx_init(&ps->rxlock);
	pthread_mutex_init(&ps->stashlock, NULL);
	__atomic_store_n(&tab[fd], ps, __ATOMIC_RELEASE);
	return ps;
}

/* Called with pl_lock held. */
void pl_attach(struct psock *ps, int newfd)
{
	if (newfd < 0 || newfd >= ntab)
		return;
	if (ps->nfds == PL_MAX_FDS) {
		pl_err("fd %d: more than %d descriptors for one socket: fd %d not followed",
		       ps->fds[0], PL_MAX_FDS, newfd);
		return;
	}
	ps->fds[ps->nfds++] = newfd;
	__atomic_store_n(&tab[newfd], ps, __ATOMIC_RELEASE);
}

/*
 * What kernel UDP took for the shadow, which nobody reads: the datagrams
 * queued on it, and those it dropped once its buffer was full (the
 * socket's drop count, SK_MEMINFO_DROPS).
 */
static uint64_t drain_shadow(struct psock *ps)
{
	static char buf[64];
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);
	uint64_t n = 0;

	while (n < 1000000 &&
	       real.recv(ps->shadow, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		n++;
	if (!real.getsockopt(ps->shadow, SOL_SOCKET, SO_MEMINFO, mem, &len) &&
	    len > SK_MEMINFO_DROPS * sizeof(mem[0]))
		n += mem[SK_MEMINFO_DROPS];
	return n;
}

/* Log what the socket did; @when is "closed" or "at exit". */
static void report(struct psock *ps, const char *when)
{
	uint64_t left;
	char ip[16];
	int i;

	if (!ps->ibtick)
		return;
	/*
	 * Only a socket that reads feeds cannot read its shadow: one that
	 * publishes only reads kernel UDP there (rx.c), and what it left
	 * unread is a UDP socket's business - and perhaps another process's,
	 * a fork's parent or child that reads on.
	 */
	left = ps->shadow >= 0 && ps->nfeed ? drain_shadow(ps) : 0;
	for (i = 0; i < ps->nfeed; i++) {
		struct pfeed *f = &ps->feed[i];

		pl_log("fd %d: %s: feed %s:%u ifindex %u: delivered %llu, lost %llu, filtered %llu",
		       ps->fds[0], when, pl_ip(f->group, ip), f->port, f->ifindex,
		       (unsigned long long)f->delivered, (unsigned long long)f->lost,
		       (unsigned long long)f->filtered);
	}
	if (ps->nfeed || ps->ring_ticks || ps->kernel_ticks)
		pl_log("fd %d: %s: ticks read from the rings %llu, by recvmsg %llu; cursor syncs %llu, look-ups %llu, waits %llu, busy looks %llu; to the kernel for laps %llu, sources %llu, nodata %llu, looks %llu%s",
		       ps->fds[0], when, (unsigned long long)ps->ring_ticks,
		       (unsigned long long)ps->kernel_ticks, (unsigned long long)ps->syncs,
		       (unsigned long long)ps->resolves, (unsigned long long)ps->waits,
		       (unsigned long long)ps->looks,
		       (unsigned long long)ps->why[PL_WHY_LAPPED],
		       (unsigned long long)ps->why[PL_WHY_SOURCE],
		       (unsigned long long)ps->why[PL_WHY_NODATA],
		       (unsigned long long)ps->why[PL_WHY_LOOK],
		       ps->ring_off || !pl_ring_on ? " (rings not read)" : "");
	for (i = 0; i < ps->npub; i++) {
		struct ppub *p = &ps->pub[i];

		pl_log("fd %d: %s: published to %s:%u ifindex %u: sent %llu (%llu waits for room), %llu too long for ibtick sent as kernel UDP",
		       ps->fds[0], when, pl_ip(p->group, ip), p->port, p->ifindex,
		       (unsigned long long)p->sent, (unsigned long long)p->waits,
		       (unsigned long long)p->oversize);
	}
	if (left)
		pl_err("fd %d: %llu kernel UDP datagram(s) for port %u were not delivered: the socket reads its ibtick feeds only",
		       ps->fds[0], (unsigned long long)left, ps->port);
}

static void finish(struct psock *ps)
{
	int i;

	report(ps, "closed");
	pl_ring_forget(ps);	/* the mappings hold the ibtick socket */
	for (i = 0; i < ps->npub; i++)
		if (ps->pub[i].fd >= 0)
			real.close(ps->pub[i].fd);
	if (ps->shadow >= 0)
		real.close(ps->shadow);
	free(ps->stash.buf);
	free(ps);
}

/* A program that exits without closing its sockets still gets its counts. */
__attribute__((destructor)) static void at_exit(void)
{
	int fd, i;

	if (!tab)
		return;
	pthread_mutex_lock(&pl_lock);
	for (fd = 0; fd < ntab; fd++) {
		struct psock *ps = tab[fd];

		if (!ps)
			continue;
		for (i = 0; i < ps->nfds && ps->fds[i] >= fd; i++)
			;
		if (i == ps->nfds)	/* its lowest descriptor: once per socket */
			report(ps, "at exit");
	}
	pthread_mutex_unlock(&pl_lock);
}

/*
 * pthread_atfork prepare: the kernel learns the rings' cursors (ring.c),
 * for a child that reads through it; then no other thread is inside a
 * table change (socket, close, dup, setsockopt, ...) while the process is
 * copied - the child, which has that thread no more, would wait for
 * pl_lock for ever.  The parent lets go after (pl_postfork_parent).
 */
void pl_prefork(void)
{
	pl_ring_prefork();
	pthread_mutex_lock(&pl_lock);
}

void pl_postfork_parent(void)
{
	pthread_mutex_unlock(&pl_lock);
}

/*
 * A fork's child counts what it reads and sends itself, so that the logs
 * of parent and child add up; lost_total, SO_RXQ_OVFL's, goes on as a UDP
 * socket's drop count does (a count of the socket, which both share).
 */
static void counts_forked(struct psock *ps)
{
	int i;

	for (i = 0; i < ps->nfeed; i++) {
		ps->feed[i].delivered = 0;
		ps->feed[i].lost = 0;
		ps->feed[i].filtered = 0;
	}
	for (i = 0; i < ps->npub; i++) {
		ps->pub[i].sent = 0;
		ps->pub[i].waits = 0;
		ps->pub[i].oversize = 0;
	}
	ps->ring_ticks = 0;
	ps->kernel_ticks = 0;
	ps->syncs = 0;
	ps->resolves = 0;
	ps->looks = 0;
	memset(ps->why, 0, sizeof(ps->why));
}

/* In the child of a fork(): the rings' mappings were not copied. */
void pl_forked(void)
{
	pthread_mutexattr_t a;
	int fd;

	/* held by this thread in the parent (pl_prefork), by another TID here */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&pl_lock, &a);
	pthread_mutexattr_destroy(&a);
	pl_ring_forked_child();
	for (fd = 0; tab && fd < ntab; fd++)
		if (tab[fd] && tab[fd]->fds[0] == fd) {	/* once per socket */
			pl_ring_forked(tab[fd]);
			counts_forked(tab[fd]);
		}
}

/* Called with pl_lock held: @fd no longer names its socket. */
void pl_detach(int fd)
{
	struct psock *ps = pl_get(fd);
	int i;

	if (!ps)
		return;
	__atomic_store_n(&tab[fd], NULL, __ATOMIC_RELEASE);
	for (i = 0; i < ps->nfds; i++) {
		if (ps->fds[i] == fd) {
			ps->fds[i] = ps->fds[--ps->nfds];
			break;
		}
	}
	for (i = 0; i < ps->nep; i++) {
		if (ps->ep[i].fd == fd)
			ps->ep[i--] = ps->ep[--ps->nep];
	}
	if (!ps->nfds)
		finish(ps);
}

/*
 * Called with pl_lock held: a new descriptor has @fd's number, so its old
 * socket was closed behind our back (close_range(), a close inside libc):
 * forget it without closing anything, since its hidden descriptors may
 * have gone the same way and their numbers been given out again.
 */
void pl_forget(int fd)
{
	struct psock *ps = pl_get(fd);
	int i;

	if (!ps)
		return;
	pl_log("fd %d: closed without close(): forgotten (its hidden descriptors left alone)", fd);
	for (i = 0; i < ps->nfds; i++)
		__atomic_store_n(&tab[ps->fds[i]], NULL, __ATOMIC_RELEASE);
	pl_ring_forget(ps);
	free(ps->stash.buf);
	free(ps);
}

void pl_feedaddr(struct sockaddr_ibtick *sa, uint32_t group, uint16_t port,
		 unsigned int ifindex)
{
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = (uint16_t)pl_family();
	sa->sibt_port = port;
	sa->sibt_ifindex = ifindex;
	sa->sibt_group_family = AF_INET;
	memcpy(sa->sibt_group, &group, 4);
}

unsigned int pl_rule_ifindex(const struct runconf_rule *r, unsigned int hint)
{
	return r->ifname[0] ? r->ifindex : hint;
}

static int has_opt(const struct psock *ps, int name)
{
	int i;

	for (i = 0; i < ps->nopt; i++)
		if (ps->opt[i].name == name)
			return 1;
	return 0;
}

int pl_new_ibtick(struct psock *ps)
{
	static int told;
	int fam = pl_family(), s, one = 1, i;

	if (fam < 0) {
		if (!told++)
			pl_err("the ibtick module is not loaded (modprobe ibtick): sockets stay kernel UDP");
		errno = EAFNOSUPPORT;
		return -1;
	}
	s = real.socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	for (i = 0; i < ps->nopt; i++) {
		struct psopt *o = &ps->opt[i];

		if (real.setsockopt(s, SOL_SOCKET, o->name, o->val, o->len))
			pl_log("fd %d: SOL_SOCKET option %d not taken by the ibtick socket: %s",
			       ps->fds[0], o->name, strerror(errno));
	}
	if (pl_busy_poll && !has_opt(ps, SO_BUSY_POLL)) {
		static int told_busy;

		/*
		 * Reads in the program's own calls: a spinning non-blocking
		 * read drains the CQ itself, one that sleeps spins first
		 * (ibtick(7), "Polling modes").  SO_PREFER_BUSY_POLL only when
		 * asked (ibtick-run -p): it suits only a program that owns its
		 * core (ibtick(7)).  Raising SO_BUSY_POLL, and setting
		 * SO_PREFER_BUSY_POLL, need CAP_NET_ADMIN; a refusal is told
		 * once per process.
		 */
		if (real.setsockopt(s, SOL_SOCKET, SO_BUSY_POLL, &pl_busy_poll,
				    sizeof(pl_busy_poll))) {
			if (!told_busy++)
				pl_err("IBTICK_BUSY_POLL=%d: SO_BUSY_POLL: %s: reads wait for the CQ event",
				       pl_busy_poll, strerror(errno));
		} else {
			pl_log("fd %d: busy polling %d us (SO_BUSY_POLL)", ps->fds[0], pl_busy_poll);
		}
	}
	if (pl_busy_poll && pl_prefer_busy_poll && !has_opt(ps, SO_PREFER_BUSY_POLL)) {
		static int told_prefer;

		if (real.setsockopt(s, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one))) {
			if (!told_prefer++)
				pl_err("IBTICK_PREFER_BUSY_POLL=1: SO_PREFER_BUSY_POLL: %s: the CQ event stays on",
				       strerror(errno));
		} else {
			pl_log("fd %d: SO_PREFER_BUSY_POLL", ps->fds[0]);
		}
	}
	if ((ps->ts_ns || ps->ts_us) &&
	    real.setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		pl_log("fd %d: SO_TIMESTAMPNS: %s", ps->fds[0], strerror(errno));
	if (real.setsockopt(s, SOL_IBTICK, IBTICK_LOOPBACK, &ps->loop, sizeof(ps->loop)))
		pl_log("fd %d: IBTICK_LOOPBACK: %s", ps->fds[0], strerror(errno));
	ps->source_cmsg = !real.setsockopt(s, SOL_IBTICK, IBTICK_SOURCE_CMSG, &one, sizeof(one));
	if (!ps->source_cmsg)
		pl_log("fd %d: no IBTICK_SOURCE_CMSG (%s): msg_name will hold the group",
		       ps->fds[0], strerror(errno));
	return s;
}

void pl_no_sigio(struct psock *ps)
{
	if (ps->warned_async)
		return;
	ps->warned_async = 1;
	pl_log("fd %d: O_ASYNC: SIGIO for ticks is not reliable over ibtick; poll, select, epoll or a read sees them",
	       ps->fds[0]);
}

int pl_install(struct psock *ps, int s)
{
	int fl = real.fcntl(ps->fds[0], F_GETFL);
	int shadow, i;

	shadow = real.fcntl(ps->fds[0], F_DUPFD_CLOEXEC, 0);
	if (shadow < 0)
		return -1;
	if (fl >= 0 && (fl & O_NONBLOCK))
		real.fcntl(s, F_SETFL, O_NONBLOCK);
	for (i = 0; i < ps->nep; i++)
		real.epoll_ctl(ps->ep[i].epfd, EPOLL_CTL_DEL, ps->ep[i].fd, NULL);
	for (i = 0; i < ps->nfds; i++) {
		int fdfl = real.fcntl(ps->fds[i], F_GETFD);

		if (real.dup3(s, ps->fds[i], fdfl > 0 && (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
			/* cannot happen for valid descriptors; say so if it does */
			pl_err("fd %d: dup3: %s", ps->fds[i], strerror(errno));
		}
	}
	real.close(s);
	for (i = 0; i < ps->nep; i++) {
		if (real.epoll_ctl(ps->ep[i].epfd, EPOLL_CTL_ADD, ps->ep[i].fd, &ps->ep[i].ev))
			pl_err("fd %d: moving its epoll registration (epoll fd %d): %s",
			       ps->ep[i].fd, ps->ep[i].epfd, strerror(errno));
	}
	ps->nep = 0;
	ps->shadow = shadow;
	__atomic_store_n(&ps->ibtick, 1, __ATOMIC_RELEASE);
	if (fl >= 0 && (fl & O_ASYNC))
		pl_no_sigio(ps);	/* (the shadow keeps it, for kernel UDP's datagrams) */
	return 0;
}
