// SPDX-License-Identifier: GPL-2.0
/*
 * kcount: kernel work counted over a window (see kcount.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kcount.h"

static const char *const softirq_names[KC_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* The hist-triggered events, in struct kcount's order. */
enum { E_SYS, E_KMALLOC, E_CACHE, E_ARM, E_CQEV, E_N };

static const char *const ev_path[E_N] = {
	"events/raw_syscalls/sys_enter",
	"events/kmem/kmalloc",
	"events/kmem/kmem_cache_alloc",
	"events/ibtick_bench/cq_arm",
	"events/ibtick_bench/cq_event",
};

/* The kprobes behind E_ARM and E_CQEV. */
static const char *const kprobes[] = {
	"p:ibtick_bench/cq_arm rdma_rxe:rxe_req_notify_cq",
	"p:ibtick_bench/cq_event ibtick:ibt_rx_comp",
};

#define TRIGGER "hist:keys=common_cpu"

static char tracefs[64];
static bool on[E_N], kprobes_added;

static int write_file(const char *rel, const char *s, bool append)
{
	char path[256];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		rc = -1;
	close(fd);
	return rc;
}

static void kcount_teardown(void)
{
	char rel[128];
	int e;

	for (e = 0; e < E_N; e++) {
		if (!on[e])
			continue;
		snprintf(rel, sizeof(rel), "%s/trigger", ev_path[e]);
		write_file(rel, "!" TRIGGER, true);
		on[e] = false;
	}
	if (kprobes_added) {
		write_file("kprobe_events", "-:ibtick_bench/cq_arm\n", true);
		write_file("kprobe_events", "-:ibtick_bench/cq_event\n", true);
		kprobes_added = false;
	}
}

int kcount_setup(void)
{
	static const char *const where[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char rel[128];
	size_t i;
	int e;

	for (i = 0; i < 2 && !tracefs[0]; i++) {
		char p[96];

		snprintf(p, sizeof(p), "%s/trace", where[i]);
		if (!access(p, F_OK))
			snprintf(tracefs, sizeof(tracefs), "%s", where[i]);
	}
	if (!tracefs[0]) {
		if (mount("nodev", where[0], "tracefs", 0, NULL))
			return -1;
		snprintf(tracefs, sizeof(tracefs), "%s", where[0]);
	}
	for (i = 0; i < sizeof(kprobes) / sizeof(kprobes[0]); i++) {
		char line[128];

		snprintf(line, sizeof(line), "%s\n", kprobes[i]);
		if (!write_file("kprobe_events", line, true))
			kprobes_added = true;
	}
	atexit(kcount_teardown);
	for (e = 0; e < E_N; e++) {
		snprintf(rel, sizeof(rel), "%s/trigger", ev_path[e]);
		on[e] = !write_file(rel, TRIGGER, true);
	}
	return on[E_SYS] ? 0 : -1;
}

/* A hist file's hitcounts: per CPU into @cpu (may be NULL), the total returned. */
static uint64_t read_hist(int e, uint64_t *cpu)
{
	char path[256], line[256];
	uint64_t total = 0;
	FILE *f;

	if (!on[e])
		return 0;
	snprintf(path, sizeof(path), "%s/%s/hist", tracefs, ev_path[e]);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long c;
		unsigned long long h;

		/* "{ common_cpu:          1 } hitcount:        539" */
		if (sscanf(line, "{ common_cpu: %lu } hitcount: %llu", &c, &h) != 2)
			continue;
		total += h;
		if (cpu && c < KC_CPUS)
			cpu[c] += h;
	}
	fclose(f);
	return total;
}

static void read_softirqs(uint64_t *out)
{
	char line[1024];
	FILE *f = fopen("/proc/softirqs", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int k;

		p += strspn(p, " ");
		for (k = 0; k < KC_SOFTIRQS; k++) {
			size_t l = strlen(softirq_names[k]);

			if (!strncmp(p, softirq_names[k], l) && p[l] == ':')
				break;
		}
		if (k == KC_SOFTIRQS)
			continue;
		p = strchr(p, ':') + 1;
		for (;;) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			out[k] += v;
			p = end;
		}
	}
	fclose(f);
}

/*
 * Runs of the ksoftirqd threads: the voluntary context switches of every
 * "ksoftirqd/N" (each run ends with it going back to sleep).  Softirq work
 * lands there when a softirq pass ran too long or restarted too often;
 * on 6.1 the softirqs raised on that CPU then wait for the thread to be
 * scheduled, i.e. behind a spinner's time slice.
 */
static uint64_t read_ksoftirqd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint64_t sum = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], line[128];
		bool ours = false;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* "Name:" is the first line */
		if (fgets(line, sizeof(line), f) && !strncmp(line, "Name:", 5))
			ours = !strncmp(line + 5 + strspn(line + 5, " \t"),
					"ksoftirqd/", 10);
		while (ours && fgets(line, sizeof(line), f))
			if (!strncmp(line, "voluntary_ctxt_switches:", 24))
				sum += strtoull(line + 24, NULL, 10);
		fclose(f);
	}
	closedir(d);
	return sum;
}

uint64_t kcount_ctr(const char *dev, const char *name)
{
	char path[256], buf[64];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 dev, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoull(buf, NULL, 10);
	fclose(f);
	return v;
}

void kcount_snap(struct kcount *k, const char *dev0, const char *dev1)
{
	static const char *const ctr[3] = { "rdma_recvs", "rcvd_pkts", "sent_pkts" };
	const char *devs[2] = { dev0, dev1 };
	int d, c;

	memset(k, 0, sizeof(*k));
	read_hist(E_SYS, k->sys);
	k->kmalloc = read_hist(E_KMALLOC, NULL);
	k->cache_alloc = read_hist(E_CACHE, NULL);
	k->cq_arms = read_hist(E_ARM, NULL);
	k->cq_events = read_hist(E_CQEV, NULL);
	read_softirqs(k->softirq);
	k->ksoftirqd = read_ksoftirqd();
	for (d = 0; d < 2; d++)
		for (c = 0; c < 3 && devs[d]; c++)
			k->dev[d][c] = kcount_ctr(devs[d], ctr[c]);
}

/* "name":value per round trip, or null when not counted. */
static int put(char *buf, size_t len, const char *name, bool have, uint64_t a,
	       uint64_t b, double rts)
{
	if (!have)
		return snprintf(buf, len, "\"%s\":null,", name);
	return snprintf(buf, len, "\"%s\":%.3f,", name, (double)(b - a) / rts);
}

void kcount_json(char *buf, size_t len, const struct kcount *a,
		 const struct kcount *b, double rts, int cpu_a, int cpu_b)
{
	uint64_t sa = 0, sb = 0;
	size_t n = 0;
	int c, k;

#define ADD(...) do { \
		int w_ = snprintf(buf + n, len - n, __VA_ARGS__); \
		if (w_ > 0) \
			n = n + (size_t)w_ < len ? n + (size_t)w_ : len - 1; \
	} while (0)
#define PUT(...) do { \
		int w_ = put(buf + n, len - n, __VA_ARGS__); \
		if (w_ > 0) \
			n = n + (size_t)w_ < len ? n + (size_t)w_ : len - 1; \
	} while (0)

	buf[0] = 0;
	if (rts <= 0)
		rts = 1;
	for (c = 0; c < KC_CPUS; c++) {
		sa += a->sys[c];
		sb += b->sys[c];
	}
	ADD("\"round_trips\":%.0f,", rts);
	PUT("syscalls", on[E_SYS], sa, sb, rts);
	PUT("syscalls_a", on[E_SYS] && cpu_a >= 0 && cpu_a < KC_CPUS,
	    cpu_a >= 0 && cpu_a < KC_CPUS ? a->sys[cpu_a] : 0,
	    cpu_a >= 0 && cpu_a < KC_CPUS ? b->sys[cpu_a] : 0, rts);
	PUT("syscalls_b", on[E_SYS] && cpu_b >= 0 && cpu_b < KC_CPUS,
	    cpu_b >= 0 && cpu_b < KC_CPUS ? a->sys[cpu_b] : 0,
	    cpu_b >= 0 && cpu_b < KC_CPUS ? b->sys[cpu_b] : 0, rts);
	PUT("allocs", on[E_KMALLOC] || on[E_CACHE], a->kmalloc + a->cache_alloc,
	    b->kmalloc + b->cache_alloc, rts);
	PUT("cq_arms", on[E_ARM], a->cq_arms, b->cq_arms, rts);
	PUT("cq_events", on[E_CQEV], a->cq_events, b->cq_events, rts);
	PUT("ksoftirqd_runs", true, a->ksoftirqd, b->ksoftirqd, rts);
	PUT("qp_deliveries_a", true, a->dev[0][0], b->dev[0][0], rts);
	PUT("qp_deliveries_b", true, a->dev[1][0], b->dev[1][0], rts);
	PUT("rx_pkts_a", true, a->dev[0][1], b->dev[0][1], rts);
	PUT("rx_pkts_b", true, a->dev[1][1], b->dev[1][1], rts);
	PUT("tx_pkts_a", true, a->dev[0][2], b->dev[0][2], rts);
	PUT("tx_pkts_b", true, a->dev[1][2], b->dev[1][2], rts);
	ADD("\"softirqs\":{");
	for (k = 0; k < KC_SOFTIRQS; k++)
		ADD("%s\"%s\":%.3f", k ? "," : "", softirq_names[k],
		    (double)(b->softirq[k] - a->softirq[k]) / rts);
	ADD("}");
#undef ADD
#undef PUT
}
