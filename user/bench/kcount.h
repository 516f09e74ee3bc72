/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcount: counts of kernel work over a window, for the benchmark's "per
 * round trip" columns.  They are counts, not times, so an emulated CPU
 * does not distort them (it only slows the run down).
 *
 *   syscalls      raw_syscalls:sys_enter, per CPU (a tracefs hist trigger
 *                 keyed on common_cpu): with each side pinned to its own
 *                 CPU, the system calls of that side
 *   allocs        kmem:kmalloc + kmem:kmem_cache_alloc (all CPUs)
 *   cq_arms       calls of rxe's req_notify_cq (a kprobe): CQ re-arms by
 *                 any user of the Soft-RoCE devices
 *   cq_events     calls of ibtick's receive-CQ handler (a kprobe): CQ
 *                 completion events that reached ibtick
 *   softirqs      /proc/softirqs, every type, summed over CPUs
 *   ksoftirqd_runs  runs of the ksoftirqd threads (their voluntary
 *                 context switches in /proc/PID/status): softirq work
 *                 deferred to a thread, which a spinner on that CPU delays
 *   deliveries    rdma_recvs of each RDMA device's port 1 hw_counters:
 *                 receives completed to a QP (one per QP a message
 *                 reached), rcvd_pkts and sent_pkts beside them
 *
 * kcount_setup() installs the triggers and kprobes (root, tracefs) and
 * removes them at exit; what it cannot install is reported as null.
 * Tracing costs time: count in a run of its own, not in a timed one.
 */
#ifndef IBTICK_KCOUNT_H
#define IBTICK_KCOUNT_H

#include <stddef.h>
#include <stdint.h>

#define KC_CPUS		64
#define KC_SOFTIRQS	10

struct kcount {
	uint64_t	sys[KC_CPUS];
	uint64_t	kmalloc, cache_alloc, cq_arms, cq_events;
	uint64_t	ksoftirqd;	/* runs of the ksoftirqd threads */
	uint64_t	softirq[KC_SOFTIRQS];
	uint64_t	dev[2][3];	/* rdma_recvs, rcvd_pkts, sent_pkts */
};

/*
 * Counter @name of port 1 of RDMA device @dev (its hw_counters), 0 when it
 * has none.  A sysfs read, no tracing: usable around timed runs.
 */
uint64_t kcount_ctr(const char *dev, const char *name);

/* 0 when at least the system-call trigger is in place. */
int kcount_setup(void);

/* A snapshot; @dev0 / @dev1 the RDMA devices (NULL: none). */
void kcount_snap(struct kcount *k, const char *dev0, const char *dev1);

/*
 * The difference @b - @a per @rts round trips as a JSON object body into
 * @buf: side A is CPU @cpu_a and device 0, side B CPU @cpu_b and device 1
 * (a CPU < 0: that side's system calls are not told apart).
 */
void kcount_json(char *buf, size_t len, const struct kcount *a,
		 const struct kcount *b, double rts, int cpu_a, int cpu_b);

#endif
