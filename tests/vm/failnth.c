// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: make the N-th fault-injection point of one system call fail
 * (/proc/thread-self/fail-nth, CONFIG_FAULT_INJECTION), for the allocation
 * failure tests (tests/vm/faults.sh).
 *
 *   failnth N insmod KO          finit_module(KO)
 *   failnth N bind IF GROUP PORT bind (creates the feed: verbs, join, ring)
 *   failnth N mmap IF GROUP PORT bind, then mmap the ring
 *   failnth N busy IF GROUP PORT bind, then IBTICK_POLL_MODE busy (kthread)
 *   failnth N send IF GROUP PORT connect, then send one tick
 *
 * Only the measured call runs with fail-nth armed.  Prints one line:
 *   injected=0|1 rc=R errno=NAME
 * injected=0 means the call made fewer than N checks: the sweep is done.
 * Exit 0 unless the program itself could not run the step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "addrarg.h"

static int nth_fd = -1;

static void arm(int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%d", n);

	if (write(nth_fd, b, len) != len) {
		perror("failnth: fail-nth");
		exit(2);
	}
}

/* Disarm; true if the fault was injected (the file reads 0). */
static int disarm(void)
{
	char b[16] = "";
	int injected;

	if (pread(nth_fd, b, sizeof(b) - 1, 0) < 0) {
		perror("failnth: fail-nth read");
		exit(2);
	}
	injected = atoi(b) == 0;
	if (write(nth_fd, "0", 1) != 1) {
		perror("failnth: fail-nth reset");
		exit(2);
	}
	return injected;
}

static void report(int injected, long rc, int err)
{
	printf("injected=%d rc=%ld errno=%s\n", injected, rc,
	       rc < 0 ? strerrorname_np(err) : "0");
}

int main(int argc, char **argv)
{
	struct sockaddr_ibtick sa;
	char msg[128];
	int n, fd, fam, e, injected;
	long rc;

	if (argc < 4)
		goto usage;
	n = atoi(argv[1]);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0) {
		perror("failnth: /proc/thread-self/fail-nth");
		return 4;
	}
	if (!strcmp(argv[2], "insmod")) {
		fd = open(argv[3], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 2;
		arm(n);
		rc = syscall(SYS_finit_module, fd, "", 0);
		e = errno;
		injected = disarm();
		report(injected, rc, e);
		return 0;
	}
	if (argc != 6)
		goto usage;
	fam = ibtick_family();
	if (fam < 0 || addr_from_args(&sa, argv[4], argv[5], argv[3], msg,
				      sizeof(msg)))
		return 2;
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0)
		return 2;
	if (!strcmp(argv[2], "bind")) {
		arm(n);
		rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	} else if (!strcmp(argv[2], "send")) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 2;
		arm(n);
		rc = send(fd, "tick", 4, MSG_DONTWAIT);
	} else {
		struct ibtick_ring_info ri = { 0 };
		socklen_t len = sizeof(ri);

		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len))
			return 2;
		if (!strcmp(argv[2], "mmap")) {
			void *p;

			arm(n);
			p = mmap(NULL, ri.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
			rc = p == MAP_FAILED ? -1 : 0;
		} else if (!strcmp(argv[2], "busy")) {
			struct ibtick_poll_mode pm = { IBTICK_POLL_BUSY, -1 };

			arm(n);
			rc = setsockopt(fd, SOL_IBTICK, IBTICK_POLL_MODE, &pm,
					sizeof(pm));
		} else {
			goto usage;
		}
	}
	e = errno;
	injected = disarm();
	report(injected, rc, e);
	return 0;
usage:
	fprintf(stderr, "usage: failnth N insmod KO | failnth N bind|mmap|busy|send IF GROUP PORT\n");
	return 2;
}
