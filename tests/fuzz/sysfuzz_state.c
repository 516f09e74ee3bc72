// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: a worker's state: its fds, mappings (arena bays), buffers, and
 * the counts of what its operations returned.
 */
#include "sysfuzz.h"

int wid;
uint64_t opno;
struct wstat *ws;
struct slot slots[MAXFD];
struct map maps[MAXMAP];
unsigned char *arena;		/* NBAY * BAY, PROT_NONE unless a bay is used */
bool bay_retired[NBAY];
unsigned char *rw_guard;		/* one rw page, then a PROT_NONE page */
unsigned char *ro_page;		/* read-only, holds a valid sockaddr */
unsigned char *hole;		/* an unmapped page */
pid_t pending[NPEND];
volatile unsigned char sink;

unsigned char rbuf[RBUF] __attribute__((aligned(4096)));
unsigned char sbuf[70000];
unsigned char optbuf[4096];
unsigned char addrbuf[256];
unsigned char ctlbuf[8192];
unsigned char nlbuf[4096];
unsigned char tickbuf[8192];
struct iovec iovs[NIOV];
struct pollfd pfds[NPOLL];
struct epoll_event epev[NEPEV];

/* ---- bookkeeping -------------------------------------------------------- */

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ws->desc, sizeof(ws->desc), fmt, ap);
	va_end(ap);
}

void anomaly(const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	uint64_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = ws->anomalies++;
	if (n < 4)
		snprintf(ws->anomaly[n], sizeof(ws->anomaly[n]), "op #%" PRIu64 ": %s",
			 opno, msg);
	fprintf(stderr, "sysfuzz: worker %d op #%" PRIu64 ": ANOMALY: %s\n",
		wid, opno, msg);
}

/* Count the result of an operation's main call (errno already set). */
void rec_as(struct op *o, int kind, long ret, int err)
{
	if (o->recorded && kind == o->kind)
		return;
	if (kind == o->kind) {
		o->recorded = true;
		o->ret = ret;
		o->err = ret < 0 ? err : 0;
	}
	if (ret >= 0) {
		ws->ok[kind]++;
		return;
	}
	if (err < 0 || err >= NERR)
		err = 0;
	ws->err[kind][err]++;
	ws->errs[err]++;
}

/* The operation found nothing to work on (no mapping, no socket of a kind). */
void skip(struct op *o)
{
	ws->skipped[o->kind]++;
	note("(skipped: nothing to work on)");
}

void rec(struct op *o, long ret)
{
	rec_as(o, o->kind, ret, errno);
}

/* ---- fds ---------------------------------------------------------------- */

void slot_close(int i)
{
	if (slots[i].fd >= 0)
		close(slots[i].fd);
	slots[i].fd = -1;
	slots[i].kind = FK_NONE;
}

/* A free slot; when all are used, close a random one other than @keep. */
int free_slot(struct rng *r, int keep)
{
	int i, start = (int)rn(r, MAXFD);

	for (i = 0; i < MAXFD; i++)
		if (slots[(start + i) % MAXFD].fd < 0)
			return (start + i) % MAXFD;
	i = (int)rn(r, MAXFD);
	if (i == keep)
		i = (i + 1) % MAXFD;
	slot_close(i);
	return i;
}

/* A random used slot, preferably of @kind; -1 if there is none. */
int pick_slot(struct rng *r, int kind)
{
	int idx[MAXFD], n = 0, any[MAXFD], na = 0, i;

	for (i = 0; i < MAXFD; i++) {
		if (slots[i].fd < 0)
			continue;
		any[na++] = i;
		if (slots[i].kind == kind)
			idx[n++] = i;
	}
	if (n && (kind == FK_NONE || pct(r, 85)))
		return idx[rn(r, (uint32_t)n)];
	return na ? any[rn(r, (uint32_t)na)] : -1;
}

/* An fd for an operation: mostly a tracked one, sometimes an invalid one. */
struct pick pick_fd(struct rng *r, int kind)
{
	static const int bad[] = { -1, 1023, -100, INT_MAX };
	struct pick p = { -1, FK_NONE, -1 };

	/* the socket calls reach connection sockets too, a fifth of the time */
	if (kind == FK_IBT && pct(r, 20))
		kind = FK_CONN;
	if (!pct(r, 7))
		p.idx = pick_slot(r, kind);
	if (p.idx >= 0) {
		p.fd = slots[p.idx].fd;
		p.kind = slots[p.idx].kind;
	} else {
		p.fd = PICK(r, bad);
	}
	return p;
}

/* ---- memory ------------------------------------------------------------- */

void reserve(void *addr, size_t len)
{
	/* only ever over arena ranges that are ours and unmapped or ours */
	if (mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED)
		fprintf(stderr, "sysfuzz: worker %d: re-reserving the arena: %s\n",
			wid, strerror(errno));
}

int bay_of(const void *a)
{
	const unsigned char *p = a;

	if (p < arena || p >= arena + NBAY * BAY)
		return -1;
	return (int)((size_t)(p - arena) / BAY);
}

static bool bay_busy(int b)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (maps[i].addr && maps[i].bay == b)
			return true;
	return false;
}

int free_bay(struct rng *r)
{
	int i, b, start = (int)rn(r, NBAY);

	for (i = 0; i < NBAY; i++) {
		b = (start + i) % NBAY;
		if (!bay_retired[b] && !bay_busy(b))
			return b;
	}
	return -1;
}

/* Where a mapping of @len goes in bay @b: one page in, so that a superset
 * or a page-shifted range stays inside the bay.
 */
unsigned char *bay_slot(int b, size_t len)
{
	if (b < 0 || len + 2 * pg > BAY)
		return NULL;
	return arena + (size_t)b * BAY + pg;
}

size_t page_round(size_t len)
{
	return (len + pg - 1) & ~(pg - 1);
}

int map_free_entry(void)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (!maps[i].addr)
			return i;
	return -1;
}

/* Unmap entry @i whole and forget it; an arena range goes back to PROT_NONE. */
void map_drop(int i, bool do_unmap)
{
	struct map *m = &maps[i];

	if (!m->addr)
		return;
	if (do_unmap && munmap(m->addr, m->len) == 0 && m->bay >= 0)
		reserve(m->addr, m->len);
	memset(m, 0, sizeof(*m));
	m->bay = -1;
}

void map_room(struct rng *r)
{
	if (map_free_entry() < 0)
		map_drop((int)rn(r, MAXMAP), true);
}

int pick_map(struct rng *r, bool prefer_ring)
{
	int idx[MAXMAP], n = 0, rings[MAXMAP], nr = 0, i;

	for (i = 0; i < MAXMAP; i++) {
		if (!maps[i].addr)
			continue;
		idx[n++] = i;
		if (maps[i].ring)
			rings[nr++] = i;
	}
	if (nr && prefer_ring && pct(r, 85))
		return rings[rn(r, (uint32_t)nr)];
	return n ? idx[rn(r, (uint32_t)n)] : -1;
}

/* Entries that lie inside [a, a + len) are gone (MAP_FIXED replaced them). */
/*
 * The mapping an operation works on (a ring one preferred); NULL, the
 * operation counted as skipped, when there is none.
 */
struct map *op_map(struct op *o)
{
	int i = pick_map(&o->r, true);

	if (i < 0) {
		skip(o);
		return NULL;
	}
	return &maps[i];
}

void maps_forget_range(const unsigned char *a, size_t len)
{
	int i;

	for (i = 0; i < MAXMAP; i++)
		if (maps[i].addr && maps[i].addr >= a &&
		    maps[i].addr + maps[i].len <= a + len)
			map_drop(i, false);
}

/* Pointers for the kernel to read from (@valid holds @len meaningful bytes). */
void *in_ptr(struct rng *r, void *valid, size_t len)
{
	unsigned char *p;
	size_t k;
	int i;

	if (pct(r, 88))
		return valid;
	switch (rn(r, 7)) {
	case 0:
		return NULL;
	case 1:
		return (void *)16;
	case 2:
		return hole;
	case 3:
		return (void *)(~(uintptr_t)0 - 4095);	/* kernel half */
	case 4:
		return ro_page;		/* readable, holds a valid sockaddr */
	case 5:
		i = pick_map(r, true);	/* a ring mapping: readable or not */
		return i >= 0 ? (void *)maps[i].addr : valid;
	default:
		/* the data runs into the PROT_NONE page */
		k = len > 1 ? 1 + rn(r, (uint32_t)(len < pg ? len - 1 : pg - 1)) : 1;
		p = rw_guard + pg - k;
		memcpy(p, valid, k);
		return p;
	}
}

/* Pointers for the kernel to write to; @valid has room for anything. */
void *out_ptr(struct rng *r, void *valid, size_t len)
{
	int i;

	if (pct(r, 86))
		return valid;
	switch (rn(r, 7)) {
	case 0:
		return NULL;
	case 1:
		return hole;
	case 2:
		return (void *)(~(uintptr_t)0 - 4095);
	case 3:
		return ro_page;
	case 4:
		/* a ring (read-only: the first byte faults), never a plain
		 * mapping: a long write could run past its end into our memory
		 */
		i = pick_map(r, true);
		return i >= 0 && maps[i].ring ? (void *)maps[i].addr : (void *)ro_page;
	case 5:
		return arena + (size_t)rn(r, NBAY) * BAY;	/* PROT_NONE, mostly */
	default:
		return rw_guard + pg - (len > 1 ? 1 + rn(r, (uint32_t)(len < pg ? len - 1 : pg - 1)) : 1);
	}
}
