// SPDX-License-Identifier: GPL-2.0-only
/*
 * padrecv: an LD_PRELOAD library for bench/preload-control.sh that puts a
 * little user-space work in front of every recvmsg() of a program and
 * changes nothing else, then calls libc's recvmsg():
 *
 * - PADRECV_LOOPS (default 0) turns of a loop on one volatile counter
 *   (about 5 instructions a turn, all in one place);
 * - PADRECV_FUNCS (default 0, at most PADRECV_NFUNCS) calls of tiny
 *   functions, each on a page of its own (about 6 instructions each, but
 *   as many distinct places in the code as calls).
 *
 * Loaded under ibtick-perf's own spin-1g path it is the least a preload
 * library can add to a spinning reader: an interposed call and a few
 * instructions, no socket logic.  The two kinds tell the amount of user
 * code per read from how much code it is spread over.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>

static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int loops = -1, funcs;
static volatile unsigned int sink;

#define PF(n) \
	__attribute__((noinline, aligned(4096))) static void pf##n(void) { sink += 1; }
#define PF8(a) PF(a##0) PF(a##1) PF(a##2) PF(a##3) PF(a##4) PF(a##5) PF(a##6) PF(a##7)
PF8(1) PF8(2) PF8(3) PF8(4) PF8(5) PF8(6) PF8(7) PF8(8)
#define PN(n) pf##n,
#define PN8(a) PN(a##0) PN(a##1) PN(a##2) PN(a##3) PN(a##4) PN(a##5) PN(a##6) PN(a##7)
static void (*const pfs[])(void) = { PN8(1) PN8(2) PN8(3) PN8(4) PN8(5) PN8(6) PN8(7) PN8(8) };
#define PADRECV_NFUNCS (int)(sizeof(pfs) / sizeof(pfs[0]))

static int env_int(const char *name, int max)
{
	const char *p = getenv(name);
	int v = p ? atoi(p) : 0;

	return v < 0 ? 0 : v > max ? max : v;
}

__attribute__((visibility("default")))
ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	int i;

	if (!real_recvmsg)
		real_recvmsg = (ssize_t (*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
	if (loops < 0) {
		funcs = env_int("PADRECV_FUNCS", PADRECV_NFUNCS);
		loops = env_int("PADRECV_LOOPS", 1 << 20);
	}
	for (i = 0; i < loops; i++)
		sink += (unsigned int)i;
	for (i = 0; i < funcs; i++)
		pfs[i]();
	return real_recvmsg(fd, m, flags);
}
