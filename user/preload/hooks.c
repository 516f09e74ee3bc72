// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the functions that interpose libc's.  Each one costs a
 * table load for a descriptor the library does not follow, then calls the
 * real function; a followed socket goes to table.c, member.c, rx.c, tx.c.
 * The _FORTIFY_SOURCE entry points (__recv_chk, __recvfrom_chk, __read_chk)
 * are here too: programs built with it call those instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))

/* glibc declares these only under _FORTIFY_SOURCE, or not at all */
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
		       struct sockaddr *sa, socklen_t *salen);
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
int fcntl64(int fd, int cmd, ...);

static void chk_fail(void)
{
	static const char m[] = "*** buffer overflow detected ***: terminated\n";

	(void)!real.write(2, m, sizeof(m) - 1);
	abort();
}

/* A followed socket that has been taken over, or NULL. */
static inline struct psock *taken(int fd)
{
	struct psock *ps = pl_get(fd);

	return ps && __atomic_load_n(&ps->ibtick, __ATOMIC_ACQUIRE) ? ps : NULL;
}

EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	pl_init();
	fd = real.socket(domain, type, protocol);
	if (fd < 0)
		return fd;
	if (pl_get(fd)) {	/* a number whose closing we did not see */
		pthread_mutex_lock(&pl_lock);
		pl_forget(fd);
		pthread_mutex_unlock(&pl_lock);
	}
	if (!pl_active || domain != AF_INET || (type & 0xff) != SOCK_DGRAM ||
	    (protocol != 0 && protocol != IPPROTO_UDP))
		return fd;
	pthread_mutex_lock(&pl_lock);
	pl_track(fd);
	pthread_mutex_unlock(&pl_lock);
	return fd;
}

EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct psock *ps;
	int rc;

	pl_init();
	ps = pl_get(fd);
	if (!ps)
		return real.bind(fd, sa, len);
	pthread_mutex_lock(&pl_lock);
	rc = real.bind(ps->ibtick ? ps->shadow : fd, sa, len);
	if (!rc)
		pl_bound(ps, fd);
	pthread_mutex_unlock(&pl_lock);
	return rc;
}

EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? pl_connect(ps, fd, sa, len) : real.connect(fd, sa, len);
}

EXPORT int close(int fd)
{
	pl_init();
	if (pl_get(fd)) {
		pthread_mutex_lock(&pl_lock);
		pl_detach(fd);
		pthread_mutex_unlock(&pl_lock);
	}
	return real.close(fd);
}

static int dup_done(int oldfd, int newfd)
{
	struct psock *ps;
	int e = errno;

	if (newfd < 0)
		return newfd;
	pthread_mutex_lock(&pl_lock);
	if (newfd != oldfd)
		pl_detach(newfd);	/* its old socket was closed by the dup */
	ps = pl_get(oldfd);
	if (ps && newfd != oldfd)
		pl_attach(ps, newfd);
	pthread_mutex_unlock(&pl_lock);
	errno = e;
	return newfd;
}

EXPORT int dup(int fd)
{
	pl_init();
	return dup_done(fd, real.dup(fd));
}

EXPORT int dup2(int oldfd, int newfd)
{
	pl_init();
	return dup_done(oldfd, real.dup2(oldfd, newfd));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	pl_init();
	return dup_done(oldfd, real.dup3(oldfd, newfd, flags));
}

static int do_fcntl(int fd, int cmd, unsigned long arg)
{
	int rc = real.fcntl(fd, cmd, arg);
	struct psock *ps;

	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && rc >= 0 && pl_get(fd))
		dup_done(fd, rc);
	if (cmd == F_SETFL && (ps = pl_get(fd))) {
		ps->nb = -1;	/* O_NONBLOCK may have changed: ring.c asks again */
		if (!rc && (arg & O_ASYNC) && __atomic_load_n(&ps->ibtick, __ATOMIC_ACQUIRE))
			pl_no_sigio(ps);
	}
	return rc;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	unsigned long arg;
	va_list ap;

	pl_init();
	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

/* glibc's large-file name for the same call */
EXPORT int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));

EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? pl_setsockopt(ps, fd, level, name, val, len)
		  : real.setsockopt(fd, level, name, val, len);
}

EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? pl_getsockopt(ps, fd, level, name, val, len)
		  : real.getsockopt(fd, level, name, val, len);
}

static ssize_t recv_from(struct psock *ps, int fd, void *buf, size_t len, int flags,
			 struct sockaddr *sa, socklen_t *salen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_name = sa, .msg_namelen = sa && salen ? *salen : 0,
			    .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = pl_recvmsg(ps, fd, &m, flags);

	if (n >= 0 && sa && salen)
		*salen = m.msg_namelen;
	return n;
}

EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return ps ? recv_from(ps, fd, buf, len, flags, NULL, NULL)
		  : real.recv(fd, buf, len, flags);
}

EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen)
		chk_fail();
	return recv(fd, buf, len, flags);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *sa,
			socklen_t *salen)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return ps ? recv_from(ps, fd, buf, len, flags, sa, salen)
		  : real.recvfrom(fd, buf, len, flags, sa, salen);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
			      struct sockaddr *sa, socklen_t *salen)
{
	if (len > buflen)
		chk_fail();
	return recvfrom(fd, buf, len, flags, sa, salen);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return ps ? pl_recvmsg(ps, fd, m, flags) : real.recvmsg(fd, m, flags);
}

static int ts_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
		    struct timespec *timeout)
{
	struct timespec end, now;
	struct psock *ps;
	unsigned int i;

	pl_init();
	ps = taken(fd);
	if (!ps)
		return real.recvmmsg(fd, vec, vlen, flags, timeout);
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += timeout->tv_sec;
		end.tv_nsec += timeout->tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
	}
	for (i = 0; i < vlen; i++) {
		int f = flags & ~MSG_WAITFORONE;
		ssize_t n;

		if (i && (flags & MSG_WAITFORONE))
			f |= MSG_DONTWAIT;
		n = pl_recvmsg(ps, fd, &vec[i].msg_hdr, f);
		if (n < 0) {
			/* as the kernel: an error after some datagrams is theirs to see */
			if (i)
				break;
			return -1;
		}
		vec[i].msg_len = (unsigned int)n;
		if (timeout) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (ts_after(&now, &end)) {
				i++;
				break;
			}
		}
	}
	return (int)i;
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return ps ? recv_from(ps, fd, buf, len, 0, NULL, NULL) : real.read(fd, buf, len);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		chk_fail();
	return read(fd, buf, len);
}

/* readv() of a taken socket: one datagram scattered, as recvmsg() */
EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr m = { .msg_iov = (struct iovec *)iov };
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	if (!ps)
		return real.readv(fd, iov, iovcnt);
	if (iovcnt < 0 || iovcnt > IOV_MAX) {
		errno = EINVAL;
		return -1;
	}
	m.msg_iovlen = (size_t)iovcnt;
	return pl_recvmsg(ps, fd, &m, 0);
}

static ssize_t send_to(struct psock *ps, int fd, const void *buf, size_t len, int flags,
		       const struct sockaddr *sa, socklen_t salen)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_name = (void *)sa, .msg_namelen = sa ? salen : 0,
			    .msg_iov = &iov, .msg_iovlen = 1 };

	return pl_sendmsg(ps, fd, &m, flags);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? send_to(ps, fd, buf, len, flags, NULL, 0) : real.send(fd, buf, len, flags);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *sa, socklen_t salen)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? send_to(ps, fd, buf, len, flags, sa, salen)
		  : real.sendto(fd, buf, len, flags, sa, salen);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps ? pl_sendmsg(ps, fd, m, flags) : real.sendmsg(fd, m, flags);
}

EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	struct psock *ps;
	unsigned int i;

	pl_init();
	ps = pl_get(fd);
	if (!ps)
		return real.sendmmsg(fd, vec, vlen, flags);
	for (i = 0; i < vlen; i++) {
		ssize_t n = pl_sendmsg(ps, fd, &vec[i].msg_hdr, flags);

		if (n < 0) {
			if (i)
				break;
			return -1;
		}
		vec[i].msg_len = (unsigned int)n;
	}
	return (int)i;
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	return ps && (ps->ibtick || ps->connected) ? send_to(ps, fd, buf, len, 0, NULL, 0)
						   : real.write(fd, buf, len);
}

/* writev() of a taken socket: one datagram gathered, as sendmsg() */
EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr m = { .msg_iov = (struct iovec *)iov };
	struct psock *ps;

	pl_init();
	ps = pl_get(fd);
	if (!ps || !(ps->ibtick || ps->connected))
		return real.writev(fd, iov, iovcnt);
	if (iovcnt < 0 || iovcnt > IOV_MAX) {
		errno = EINVAL;
		return -1;
	}
	m.msg_iovlen = (size_t)iovcnt;
	return pl_sendmsg(ps, fd, &m, 0);
}

EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return real.getsockname(ps ? ps->shadow : fd, sa, len);
}

EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	struct psock *ps;

	pl_init();
	ps = taken(fd);
	return real.getpeername(ps ? ps->shadow : fd, sa, len);
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	struct psock *ps;
	va_list ap;
	void *arg;

	pl_init();
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	ps = taken(fd);
	if (ps && req == FIONREAD)
		return pl_fionread(ps, fd, arg);
	if (ps && req == FIONBIO)
		ps->nb = -1;
	if (ps && req == FIOASYNC) {
		int rc = real.ioctl(fd, req, arg);

		/* the kernel read the flag: the pointer is good */
		if (!rc && *(const int *)arg)
			pl_no_sigio(ps);
		return rc;
	}
	return real.ioctl(fd, req, arg);
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct psock *ps;
	int rc, i;

	pl_init();
	rc = real.epoll_ctl(epfd, op, fd, ev);
	ps = pl_get(fd);
	if (rc || !ps || ps->ibtick)
		return rc;
	/* a registration on the UDP socket: moved to the ibtick one at takeover */
	pthread_mutex_lock(&pl_lock);
	for (i = 0; i < ps->nep; i++)
		if (ps->ep[i].epfd == epfd && ps->ep[i].fd == fd)
			break;
	if (op == EPOLL_CTL_DEL) {
		if (i < ps->nep)
			ps->ep[i] = ps->ep[--ps->nep];
	} else if (i < ps->nep) {
		ps->ep[i].ev = *ev;
	} else if (ps->nep < PL_MAX_EP) {
		ps->ep[ps->nep++] = (struct pepoll){ .epfd = epfd, .fd = fd, .ev = *ev };
	} else {
		pl_err("fd %d: more than %d epoll registrations: epoll fd %d will not follow a takeover",
		       fd, PL_MAX_EP, epfd);
	}
	pthread_mutex_unlock(&pl_lock);
	return rc;
}
