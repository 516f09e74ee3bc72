// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload: the real libc functions and the configuration.
 *
 * The configuration comes from the environment, so that it is the same in
 * every process of the program, across fork() and exec():
 *   IBTICK_RUN_GROUPS  rules (runconf.h), as ibtick-run wrote them
 *   IBTICK_RUN_CONF    a configuration file read as well (for programs
 *                      started with LD_PRELOAD by hand)
 *   IBTICK_RUN_CHECKED set by ibtick-run once it has told the user what is
 *                      wrong with the configuration; without it the library
 *                      tells, once per process tree (it sets it then)
 *   IBTICK_BUSY_POLL   microseconds (ibtick-run -b): every socket taken
 *                      over gets SO_BUSY_POLL, unless the program set
 *                      SO_BUSY_POLL itself
 *   IBTICK_PREFER_BUSY_POLL  1 (ibtick-run -p): with IBTICK_BUSY_POLL,
 *                      SO_PREFER_BUSY_POLL too, unless the program set it
 *   IBTICK_RING        0 (ibtick-run -K): every tick through recvmsg() on
 *                      the ibtick socket, none from the mapped rings (ring.c)
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

#define FAMILY_PARAM	"/sys/module/ibtick/parameters/family"

struct real_fns real;
struct runconf pl_conf;
int pl_active;
int pl_busy_poll;
int pl_prefer_busy_poll;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int family = -1;

#define RESOLVE(name) do {						\
	*(void **)&real.name = dlsym(RTLD_NEXT, #name);			\
	if (!real.name) {						\
		fprintf(stderr, "libibtick-preload: no %s in libc\n", #name); \
		abort();						\
	}								\
} while (0)

static void resolve(void)
{
	RESOLVE(socket);
	RESOLVE(bind);
	RESOLVE(connect);
	RESOLVE(close);
	RESOLVE(dup);
	RESOLVE(dup2);
	RESOLVE(dup3);
	RESOLVE(fcntl);
	RESOLVE(setsockopt);
	RESOLVE(getsockopt);
	RESOLVE(recv);
	RESOLVE(recvfrom);
	RESOLVE(recvmsg);
	RESOLVE(recvmmsg);
	RESOLVE(read);
	RESOLVE(readv);
	RESOLVE(send);
	RESOLVE(sendto);
	RESOLVE(sendmsg);
	RESOLVE(sendmmsg);
	RESOLVE(write);
	RESOLVE(writev);
	RESOLVE(getsockname);
	RESOLVE(getpeername);
	RESOLVE(ioctl);
	RESOLVE(epoll_ctl);
	RESOLVE(poll);
	RESOLVE(ppoll);
	RESOLVE(select);
	RESOLVE(pselect);
	RESOLVE(epoll_wait);
	RESOLVE(epoll_pwait);
	*(void **)&real.epoll_pwait2 = dlsym(RTLD_NEXT, "epoll_pwait2");
}

int pl_family(void)
{
	char buf[16] = "";
	int fd, fam = -1;
	ssize_t n;

	if (family > 0)
		return family;
	fd = open(FAMILY_PARAM, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = real.read(fd, buf, sizeof(buf) - 1);
	real.close(fd);
	if (n > 0)
		fam = atoi(buf);
	if (fam <= 0) {
		errno = EPROTO;
		return -1;
	}
	family = fam;
	return fam;
}

struct told {
	int tell;
	int n;
};

static void report(void *arg, const char *msg)
{
	struct told *t = arg;

	t->n++;
	if (t->tell)
		pl_err("%s: rule ignored", msg);
	else
		pl_log("%s: rule ignored", msg);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb)
				break;
			buf = nb;
			cap += 65536;
		}
		n = real.read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len > (1u << 20))
			break;
	}
	real.close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void load(void)
{
	const char *groups = getenv("IBTICK_RUN_GROUPS");
	const char *file = getenv("IBTICK_RUN_CONF");
	struct told t = { .tell = !getenv("IBTICK_RUN_CHECKED") };
	int i, usable = 0;

	const char *busy = getenv("IBTICK_BUSY_POLL");

	if (busy && *busy) {
		char *end;
		long us = strtol(busy, &end, 10);

		if (*end || us < 0 || us > PL_BUSY_POLL_MAX) {
			t.n++;
			(t.tell ? pl_err : pl_log)("IBTICK_BUSY_POLL=%s: not a number of microseconds 0..%d: ignored",
						   busy, PL_BUSY_POLL_MAX);
		} else {
			pl_busy_poll = (int)us;
		}
	}
	busy = getenv("IBTICK_PREFER_BUSY_POLL");
	if (busy && *busy) {
		if (strcmp(busy, "0") && strcmp(busy, "1")) {
			t.n++;
			(t.tell ? pl_err : pl_log)("IBTICK_PREFER_BUSY_POLL=%s: 0 or 1: ignored",
						   busy);
		} else {
			pl_prefer_busy_poll = busy[0] == '1';
		}
	}
	busy = getenv("IBTICK_RING");
	if (busy && *busy) {
		if (strcmp(busy, "0") && strcmp(busy, "1")) {
			t.n++;
			(t.tell ? pl_err : pl_log)("IBTICK_RING=%s: 0 or 1: ignored", busy);
		} else {
			pl_ring_on = busy[0] == '1';
		}
	}
	if (groups)
		runconf_parse(&pl_conf, groups, "IBTICK_RUN_GROUPS", report, &t);
	if (file && *file) {
		char *text = slurp(file);

		if (text) {
			runconf_parse(&pl_conf, text, file, report, &t);
			free(text);
		} else {
			t.n++;
			(t.tell ? pl_err : pl_log)("cannot read %s: %s", file, strerror(errno));
		}
	}
	for (i = 0; i < pl_conf.n; i++) {
		struct runconf_rule *r = &pl_conf.rule[i];
		char w[128];

		runconf_format(r, w, sizeof(w));
		if (r->ifname[0]) {
			r->ifindex = if_nametoindex(r->ifname);
			if (!r->ifindex) {
				r->bad = 1;
				t.n++;
				(t.tell ? pl_err : pl_log)("%s: no network interface %s: rule ignored",
							   w, r->ifname);
				continue;
			}
		}
		pl_log("rule %s: over ibtick", w);
		usable++;
	}
	if (usable && pl_family() < 0) {
		(t.tell ? pl_err : pl_log)("the ibtick module is not loaded (modprobe ibtick): every socket stays kernel UDP");
		usable = 0;
	}
	pl_active = usable > 0;
	if (t.tell && t.n)
		setenv("IBTICK_RUN_CHECKED", "1", 1);
}

/*
 * initial-exec: a preloaded library's TLS is in the static block, so this
 * is one %fs-relative load, not a call to __tls_get_addr() in every hook
 */
static __thread int in_init __attribute__((tls_model("initial-exec")));
static int ready;

static void init_once(void)
{
	in_init = 1;
	resolve();
	pl_log_open();
	load();	/* if_nametoindex() comes back through our socket() */
	pthread_atfork(pl_prefork, pl_postfork_parent, pl_forked);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	in_init = 0;
}

void pl_init(void)
{
	if (__builtin_expect(__atomic_load_n(&ready, __ATOMIC_ACQUIRE), 1))
		return;
	if (!in_init)
		pthread_once(&once, init_once);
}

__attribute__((constructor)) static void ctor(void)
{
	pl_init();
}
