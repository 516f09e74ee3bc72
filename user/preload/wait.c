// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the calls that wait for a socket to be readable.
 *
 * The kernel says an ibtick socket is readable while a feed has a tick past
 * the socket's cursor.  Ticks the library took from the mapped rings
 * (ring.c) moved only its own cursors, so before the program waits the
 * kernel is told where they are ("sync"); otherwise a tick already read
 * would make the socket look ready.  poll() and select() sync the sockets
 * they are given; epoll_wait() every socket with a cursor to tell, which
 * is none at all in a program that reads through the kernel.  (A program
 * that waits otherwise - a raw system call, io_uring - may see a tick it
 * has read make the socket look ready until it reads to EAGAIN: ring.c.)
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>

#include "preload.h"

#define EXPORT __attribute__((visibility("default")))

/* glibc declares these only under _FORTIFY_SOURCE */
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		const sigset_t *mask, size_t fdslen);
int epoll_pwait2(int epfd, struct epoll_event *ev, int n, const struct timespec *tmo,
		 const sigset_t *mask);

static void sync_pollfds(const struct pollfd *fds, nfds_t n)
{
	nfds_t i;

	if (!__atomic_load_n(&pl_ndirty, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < n; i++)
		if (fds[i].events & (POLLIN | POLLRDNORM))
			pl_sync_fd(fds[i].fd);
}

static void sync_fdset(int nfds, const fd_set *r)
{
	int fd;

	if (!r || !__atomic_load_n(&pl_ndirty, __ATOMIC_RELAXED))
		return;
	for (fd = 0; fd < nfds && fd < FD_SETSIZE; fd++)
		if (FD_ISSET(fd, r))
			pl_sync_fd(fd);
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	pl_init();
	sync_pollfds(fds, n);
	return real.poll(fds, n, timeout);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		__builtin_trap();
	return poll(fds, n, timeout);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		 const sigset_t *mask)
{
	pl_init();
	sync_pollfds(fds, n);
	return real.ppoll(fds, n, tmo, mask);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
		       const sigset_t *mask, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		__builtin_trap();
	return ppoll(fds, n, tmo, mask);
}

EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tmo)
{
	pl_init();
	sync_fdset(nfds, r);
	return real.select(nfds, r, w, e, tmo);
}

EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *tmo,
		   const sigset_t *mask)
{
	pl_init();
	sync_fdset(nfds, r);
	return real.pselect(nfds, r, w, e, tmo, mask);
}

EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int n, int timeout)
{
	pl_init();
	pl_sync_all();
	return real.epoll_wait(epfd, ev, n, timeout);
}

EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int n, int timeout,
		       const sigset_t *mask)
{
	pl_init();
	pl_sync_all();
	return real.epoll_pwait(epfd, ev, n, timeout, mask);
}

/* glibc 2.35 and later; a program can only call it where libc has it */
EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int n, const struct timespec *tmo,
			const sigset_t *mask)
{
	pl_init();
	if (!real.epoll_pwait2) {
		errno = ENOSYS;
		return -1;
	}
	pl_sync_all();
	return real.epoll_pwait2(epfd, ev, n, tmo, mask);
}
