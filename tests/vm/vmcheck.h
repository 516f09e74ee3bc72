/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of the VM suite's socket test programs (sockapi, multifeed):
 * an "ok"/"not ok" line per check, counted in vm_pass/vm_fail, with the
 * errno of a call that was expected to fail or succeed, and the feed
 * addresses and sockets every one of them needs.  main() sets vm_fam.
 */
#ifndef IBTICK_VMCHECK_H
#define IBTICK_VMCHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "addrarg.h"

static int vm_pass, vm_fail, vm_fam;

static inline void check(int cond, const char *what, int err)
{
	if (cond) {
		vm_pass++;
		printf("ok - %s\n", what);
	} else {
		vm_fail++;
		printf("not ok - %s (errno %d %s)\n", what, err, strerror(err));
	}
	fflush(stdout);
}

/* A call must fail with @want. */
#define EXPECT_ERR(call, want, what) do {				\
	errno = 0;							\
	int _r = (call);						\
	int _e = errno;							\
	check(_r < 0 && _e == (want), what, _e);			\
} while (0)

/* A call must succeed. */
#define EXPECT_OK(call, what) do {					\
	errno = 0;							\
	int _r = (call);						\
	check(_r >= 0, what, errno);					\
} while (0)

/* The feed of @group, @port on netdev @ifname; exit 2 if the words are bad. */
static inline struct sockaddr_ibtick vm_addr(const char *group,
					     const char *ifname, int port)
{
	struct sockaddr_ibtick sa;
	char err[128], p[16];

	snprintf(p, sizeof(p), "%d", port);
	if (addr_from_args(&sa, group, p, ifname, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(2);
	}
	return sa;
}

/* A new AF_IBTICK datagram socket; exit 2 if there is none. */
static inline int sock(void)
{
	int fd = socket(vm_fam, SOCK_DGRAM, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	return fd;
}

#endif
