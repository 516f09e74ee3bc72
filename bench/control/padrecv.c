// SPDX-License-Identifier: GPL-2.0-only
/*
 * padrecv: an LD_PRELOAD library for bench/preload-control.sh that puts a
 * little user-space work in front of every recvmsg() of a program and
 * changes nothing else: PADRECV_LOOPS (default 0) turns of a loop on one
 * volatile counter (about 5 instructions a turn), then libc's recvmsg().
 * Loaded under ibtick-perf's own spin-1g path it is the least a preload
 * library can add to a spinning reader: an interposed call and a few
 * instructions, no socket logic.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>

static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int loops = -1;
static volatile unsigned int sink;

__attribute__((visibility("default")))
ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	int i;

	if (!real_recvmsg)
		real_recvmsg = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
	if (loops < 0) {
		const char *p = getenv("PADRECV_LOOPS");

		loops = p ? atoi(p) : 0;
	}
	for (i = 0; i < loops; i++)
		sink += (unsigned int)i;
	return real_recvmsg(fd, m, flags);
}
