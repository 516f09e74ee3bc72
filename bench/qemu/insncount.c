// SPDX-License-Identifier: GPL-2.0-only
/*
 * insncount: a QEMU TCG plugin that counts the guest's instructions, on
 * every vCPU, in the kernel and in user space apart - counts the emulator's
 * speed and the host's load do not move, unlike times.
 *
 * Each time a translated block starting at guest address MARK runs (the
 * marker program, mark.c, calls a function placed there), a line
 *
 *   INSNS idx=I c0_k=... c0_u=... c1_k=... c1_u=...
 *
 * goes to QEMU's log (-d plugin -D FILE): the totals so far per vCPU.  With
 * DIR, the kernel's blocks that ran since the mark before are written to
 * DIR/tbs-III.txt as "address instructions" lines, for bench/insn_count.py
 * to put names on with the guest's /proc/kallsyms.
 *
 *   -plugin insncount.so,mark=0x5e5f0000[,dump=DIR] -d plugin -D FILE
 *
 * Written against QEMU 7.2's plugin interface (version 1): the few calls it
 * makes are declared here, so no QEMU source tree is needed to build it.
 * Counts are per block executed: a block left early by an exception counts
 * whole (rare: a fault, an interrupt is taken between blocks).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu_index, void *udata);
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

#define MAX_CPUS	8
#define KERNEL_BASE	0xffff800000000000ULL	/* x86-64: the upper half */

/* one cache line per vCPU: each vCPU thread adds to its own */
static struct {
	uint64_t	k, u;
	char		pad[48];
} cnt[MAX_CPUS];

static uint64_t mark_va;
static const char *dump_dir;
static int nmark;

/* a kernel block (a block translated again gets a second entry) */
struct ktb {
	uint64_t	va, n, last;
	uint64_t	ran[MAX_CPUS];	/* instructions, per vCPU */
};

static struct ktb **tbs;
static size_t ntbs, cap;
static pthread_mutex_t tbs_lock = PTHREAD_MUTEX_INITIALIZER;

static void ran_k(unsigned int cpu, void *udata)
{
	cnt[cpu % MAX_CPUS].k += (uintptr_t)udata;
}

static void ran_u(unsigned int cpu, void *udata)
{
	cnt[cpu % MAX_CPUS].u += (uintptr_t)udata;
}

static void ran_ktb(unsigned int cpu, void *udata)
{
	struct ktb *t = udata;

	t->ran[cpu % MAX_CPUS] += t->n;
}

/* the kernel's blocks that ran since the last mark */
static void dump(void)
{
	char path[4096];
	FILE *f;
	size_t i;
	int c;

	snprintf(path, sizeof(path), "%s/tbs-%03d.txt", dump_dir, nmark);
	f = fopen(path, "w");
	pthread_mutex_lock(&tbs_lock);
	for (i = 0; i < ntbs; i++) {
		struct ktb *t = tbs[i];
		uint64_t sum = 0;

		for (c = 0; c < MAX_CPUS; c++)
			sum += t->ran[c];
		if (f && sum != t->last)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", t->va, sum - t->last);
		t->last = sum;
	}
	pthread_mutex_unlock(&tbs_lock);
	if (f)
		fclose(f);
}

static void marked(unsigned int cpu, void *udata)
{
	char line[512];
	int n, c;

	(void)udata;
	n = snprintf(line, sizeof(line), "INSNS idx=%d cpu=%u", nmark, cpu);
	for (c = 0; c < MAX_CPUS && n < (int)sizeof(line); c++)
		n += snprintf(line + n, sizeof(line) - n, " c%d_k=%" PRIu64 " c%d_u=%" PRIu64,
			      c, cnt[c].k, c, cnt[c].u);
	if (n < (int)sizeof(line) - 1)
		strcat(line, "\n");
	qemu_plugin_outs(line);
	if (dump_dir)
		dump();
	nmark++;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	uintptr_t n = qemu_plugin_tb_n_insns(tb);
	int kernel = va >= KERNEL_BASE;
	struct ktb *t;

	(void)id;
	if (mark_va && va == mark_va)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, marked, QEMU_PLUGIN_CB_NO_REGS, NULL);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, kernel ? ran_k : ran_u, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)n);
	if (!dump_dir || !kernel)
		return;
	t = calloc(1, sizeof(*t));
	if (!t)
		return;
	t->va = va;
	t->n = n;
	pthread_mutex_lock(&tbs_lock);
	if (ntbs == cap) {
		size_t ncap = cap ? cap * 2 : 65536;
		struct ktb **p = realloc(tbs, ncap * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&tbs_lock);
			free(t);
			return;
		}
		tbs = p;
		cap = ncap;
	}
	tbs[ntbs++] = t;
	pthread_mutex_unlock(&tbs_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, ran_ktb, QEMU_PLUGIN_CB_NO_REGS, t);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
			       char **argv);

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
			       char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5))
			mark_va = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "dump=", 5))
			dump_dir = argv[i] + 5;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	return 0;
}
