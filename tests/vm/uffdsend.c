// SPDX-License-Identifier: GPL-2.0
/*
 * uffdsend - a publisher whose send buffer faults for as long as the test
 * likes, and the control-plane calls that must not wait for it.
 *
 *   uffdsend send IF GROUP PORT HOLD_MS
 *	connect a publisher to GROUP:PORT on netdev IF and send one tick
 *	from a page that userfaultfd keeps missing for HOLD_MS; prints
 *	"stalled" once the send is inside the kernel waiting on the fault,
 *	"poll rc=N ms=T" for a poll() of that socket meanwhile (200 ms at
 *	most), then "sent rc=N errno=E ms=T" when the send returns
 *   uffdsend bindclose IF GROUP PORT
 *	bind a subscriber to GROUP:PORT on IF and close it; prints
 *	"bindclose rc=N errno=E ms=T"
 *
 * Exit status 0 when the calls ran (their results are printed), 1 on a
 * setup error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <linux/ibtick.h>

static long page;
static int uffd, sfd;
static int hold_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int family(void)
{
	FILE *f = fopen("/sys/module/ibtick/parameters/family", "r");
	int fam = -1;

	if (!f || fscanf(f, "%d", &fam) != 1)
		fam = -1;
	if (f)
		fclose(f);
	return fam;
}

static int feed_addr(struct sockaddr_ibtick *sa, int fam, const char *ifname,
		     const char *group, const char *port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = fam;
	sa->sibt_port = atoi(port);
	sa->sibt_ifindex = if_nametoindex(ifname);
	sa->sibt_group_family = AF_INET;
	if (!sa->sibt_ifindex || inet_pton(AF_INET, group, sa->sibt_group) != 1) {
		fprintf(stderr, "uffdsend: bad netdev or group\n");
		return -1;
	}
	return 0;
}

/* Wait for the fault, say so, hold it, then fill the page with zeros. */
static void *resolver(void *arg)
{
	struct uffdio_zeropage zp;
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };

	(void)arg;
	if (poll(&pfd, 1, -1) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT) {
		fprintf(stderr, "uffdsend: no page fault event\n");
		exit(1);
	}
	printf("stalled\n");
	fflush(stdout);
	{
		/* the first poll() that waits: it sets up the socket's wake-ups */
		struct pollfd sp = { .fd = sfd, .events = POLLIN };
		double t0 = now_ms();
		int n = poll(&sp, 1, 200);

		printf("poll rc=%d ms=%.0f\n", n, now_ms() - t0);
	}
	usleep(hold_ms * 1000);
	zp.range.start = msg.arg.pagefault.address & ~(page - 1);
	zp.range.len = page;
	zp.mode = 0;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp)) {
		perror("uffdsend: UFFDIO_ZEROPAGE");
		exit(1);
	}
	return NULL;
}

static int do_send(int fam, struct sockaddr_ibtick *sa)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t t;
	double t0;
	void *buf;
	int fd, rc, err;

	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)sa, sizeof(*sa))) {
		perror("uffdsend: socket/connect");
		return 1;
	}
	sfd = fd;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("uffdsend: userfaultfd");
		return 1;
	}
	buf = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("uffdsend: mmap");
		return 1;
	}
	reg.range.start = (unsigned long)buf;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("uffdsend: UFFDIO_REGISTER");
		return 1;
	}
	if (pthread_create(&t, NULL, resolver, NULL)) {
		fprintf(stderr, "uffdsend: pthread_create failed\n");
		return 1;
	}
	t0 = now_ms();
	rc = send(fd, buf, 64, 0);
	err = rc < 0 ? errno : 0;
	printf("sent rc=%d errno=%s ms=%.0f\n", rc, err ? strerror(err) : "0",
	       now_ms() - t0);
	pthread_join(t, NULL);
	close(fd);
	return 0;
}

static int do_bindclose(int fam, struct sockaddr_ibtick *sa)
{
	double t0 = now_ms();
	int fd, rc, err;

	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("uffdsend: socket");
		return 1;
	}
	rc = bind(fd, (struct sockaddr *)sa, sizeof(*sa));
	err = rc ? errno : 0;
	close(fd);
	printf("bindclose rc=%d errno=%s ms=%.0f\n", rc,
	       err ? strerror(err) : "0", now_ms() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_ibtick sa;
	int fam = family();

	page = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 5 || fam < 0 ||
	    feed_addr(&sa, fam, argv[2], argv[3], argv[4]))
		goto usage;
	if (!strcmp(argv[1], "send") && argc == 6) {
		hold_ms = atoi(argv[5]);
		return do_send(fam, &sa);
	}
	if (!strcmp(argv[1], "bindclose") && argc == 5)
		return do_bindclose(fam, &sa);
usage:
	fprintf(stderr, "usage: uffdsend send IF GROUP PORT HOLD_MS | bindclose IF GROUP PORT (module loaded)\n");
	return 1;
}
