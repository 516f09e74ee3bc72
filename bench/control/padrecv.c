// SPDX-License-Identifier: GPL-2.0-only
/*
 * padrecv: an LD_PRELOAD library for bench/preload-control.sh that puts a
 * little user-space work in front of every recvmsg() of a program and
 * changes nothing else, then calls libc's recvmsg():
 *
 * - PADRECV_LOOPS (default 0) turns of a loop on one volatile counter
 *   (6 instructions a turn, all in one place);
 * - PADRECV_FUNCS (default 0, at most 64) calls through a table of tiny
 *   functions (9 instructions a call, the loop's included), each function
 *   on a page of its own, or with PADRECV_PACKED=1 the same calls to
 *   functions packed together on one page.
 *
 * Loaded under ibtick-perf's own spin-1g path it is the least a preload
 * library can add to a spinning reader: an interposed call and a few
 * instructions, no socket logic.  The kinds tell the amount of user code
 * per read (loop turns), its calls and returns (packed functions) and the
 * pages it is spread over (functions on pages of their own) apart.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>

static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int loops = -1, funcs;
static void (*const *table)(void);
static volatile unsigned int sink;

/* 64 functions packed together (pk*), 64 on pages of their own (pf*) */
#define F8(F, a) F(a##0) F(a##1) F(a##2) F(a##3) F(a##4) F(a##5) F(a##6) F(a##7)
#define F64(F) F8(F, 1) F8(F, 2) F8(F, 3) F8(F, 4) F8(F, 5) F8(F, 6) F8(F, 7) F8(F, 8)
#define PK(n) __attribute__((noinline)) static void pk##n(void) { sink += 1; }
#define PF(n) __attribute__((noinline, aligned(4096))) static void pf##n(void) { sink += 1; }
F64(PK)
F64(PF)
#define PFN(n) pf##n,
#define PKN(n) pk##n,
static void (*const pfs[])(void) = { F64(PFN) };
static void (*const pks[])(void) = { F64(PKN) };
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
		table = env_int("PADRECV_PACKED", 1) ? pks : pfs;
		loops = env_int("PADRECV_LOOPS", 1 << 20);
	}
	for (i = 0; i < loops; i++)
		sink += (unsigned int)i;
	for (i = 0; i < funcs; i++)
		table[i]();
	return real_recvmsg(fd, m, flags);
}
