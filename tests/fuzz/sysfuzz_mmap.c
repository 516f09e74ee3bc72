// SPDX-License-Identifier: GPL-2.0
/*
 * sysfuzz: the ring mapping: mmap, munmap, mprotect, madvise, mremap,
 * touching and reading rings under a fault guard, fork with a mapping.
 */
#include "sysfuzz.h"

/* ---- faults we cause on purpose ---------------------------------------- */

static sigjmp_buf fault_jb;
static volatile sig_atomic_t armed;

void on_fault(int sig)
{
	if (!armed) {
		/* not ours: die of it, the supervisor reports the signal */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	armed = 0;
	siglongjmp(fault_jb, sig);
}

/* Run @fn(@ctx), which may touch memory that faults: 0, or the signal. */
static int guarded(void (*fn)(void *), void *ctx)
{
	int sig = sigsetjmp(fault_jb, 1);

	if (sig) {
		armed = 0;
		return sig;
	}
	armed = 1;
	fn(ctx);
	armed = 0;
	return 0;
}

static void count_fault(int sig)
{
	if (sig == SIGBUS)
		ws->sigbus++;
	else if (sig == SIGSEGV)
		ws->sigsegv++;
}

/* Read a ring by the protocol of <linux/ibtick.h>. */
struct ring_read {
	struct map	*m;
	struct rng	*r;
	unsigned int	intact, lapped;
	bool		bad;
	char		why[120];
};

static void do_ring_read(void *c)
{
	struct ring_read *rr = c;
	const struct map *m = rr->m;
	const struct ibtick_ring_hdr *h = (const void *)m->addr;
	const uint32_t payload_max = m->slot_size - (uint32_t)sizeof(struct ibtick_slot);
	uint64_t prod, i, back, seq;
	const struct ibtick_slot *s;
	struct ibtick_slot d;
	unsigned int k, n = 1 + rn(rr->r, 8);

	sink ^= (unsigned char)__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
	prod = __atomic_load_n(&h->producer, __ATOMIC_ACQUIRE);		/* (C) */
	for (k = 0; k < n && prod; k++) {
		back = rn(rr->r, m->nslots + 4);
		i = prod - 1 - (back < prod ? back : prod - 1);
		s = (const void *)(m->addr + m->slots_off +
				   (i & (m->nslots - 1)) * (uint64_t)m->slot_size);
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);		/* (D) */
		if (seq != i) {
			rr->lapped++;
			continue;
		}
		memcpy(&d, s, sizeof(d));
		memcpy(tickbuf, s + 1, d.len < payload_max ? d.len : payload_max);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);			/* (F) */
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != i) {
			rr->lapped++;
			continue;
		}
		rr->intact++;
		if ((d.len > payload_max || d.orig_len < d.len) && !rr->bad) {
			rr->bad = true;
			snprintf(rr->why, sizeof(rr->why),
				 "intact tick %" PRIu64 ": len %u orig_len %u, slot payload max %u",
				 i, d.len, d.orig_len, payload_max);
		}
	}
	/* and every page once in a while */
	if (!rn(rr->r, 8))
		for (i = 0; i < m->len; i += pg)
			sink ^= m->addr[i];
}

/* Read one byte per page of a mapping (at most 64 pages). */
static void do_touch_pages(void *c)
{
	const struct map *m = c;
	size_t off, step = m->len / pg > 64 ? m->len / 64 : pg;

	for (off = 0; off < m->len; off += step)
		sink ^= *(volatile unsigned char *)(m->addr + off);
}

struct hdr_check {
	const struct map	*m;
	const struct ibtick_ring_info *ri;
	char			why[160];
};

static void do_hdr_check(void *c)
{
	struct hdr_check *hc = c;
	const struct ibtick_ring_hdr *h = (const void *)hc->m->addr;

	if (h->magic != IBTICK_RING_MAGIC || h->version != IBTICK_RING_VERSION ||
	    h->nslots != hc->ri->nslots || h->slot_size != hc->ri->slot_size ||
	    h->slots_off != hc->ri->slots_off)
		snprintf(hc->why, sizeof(hc->why),
			 "mapped ring header magic %#x version %u nslots %u slot_size %u slots_off %llu, RING_INFO says %u/%u/%llu",
			 h->magic, h->version, h->nslots, h->slot_size,
			 (unsigned long long)h->slots_off, hc->ri->nslots,
			 hc->ri->slot_size, (unsigned long long)hc->ri->slots_off);
}

/* Is @fd an AF_IBTICK socket (the kernel's word, not our bookkeeping)? */
static bool is_ibt_fd(int fd)
{
	int d = -1;
	socklen_t l = sizeof(d);

	return fam >= 0 && !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &l) && d == fam;
}

static bool ring_info(int fd, struct ibtick_ring_info *ri)
{
	socklen_t len = sizeof(*ri);

	memset(ri, 0, sizeof(*ri));
	return !getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, ri, &len) &&
	       len == sizeof(*ri);
}

/*
 * The feeds @fd reads (IBTICK_FEEDS) into @mem; the index of the one whose
 * ring maps at @off, or -1.
 */
static int member_at(int fd, off_t off, struct ibtick_member *mem)
{
	socklen_t len = IBTICK_FEEDS_PER_SOCKET * sizeof(*mem);
	unsigned int i;

	if (getsockopt(fd, SOL_IBTICK, IBTICK_FEEDS, mem, &len))
		return -1;
	for (i = 0; i < len / sizeof(*mem); i++)
		if (mem[i].mmap_offset == (uint64_t)off)
			return (int)i;
	return -1;
}

/* The ring contract of ibtick.7 after a mapping of an AF_IBTICK fd worked. */
static void check_new_ring(struct map *m, int fd, size_t len, off_t off, int prot,
			   int flags, struct ibtick_ring_info *ri, bool have_ri)
{
	struct sockaddr_ibtick sa;
	socklen_t sl = sizeof(sa);
	struct hdr_check hc;
	int sig;

	if (prot & (PROT_WRITE | PROT_EXEC))
		anomaly("mmap of a ring with prot %#x succeeded (EACCES expected)", (unsigned int)prot);
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		anomaly("MAP_PRIVATE mmap of a ring succeeded (EINVAL expected)");
	if (off) {
		/* only a feed the socket reads maps there (IBTICK_MMAP_FEED) */
		struct ibtick_member mem[IBTICK_FEEDS_PER_SOCKET];
		int k = member_at(fd, off, mem);

		if (k < 0)
			anomaly("mmap of a ring at offset %lld succeeded, no feed the socket reads is there (EINVAL expected)",
				(long long)off);
		else if (page_round(len) != mem[k].mmap_size)
			anomaly("mmap of member feed %u with length %zu succeeded, mmap_size is %llu (EINVAL expected)",
				mem[k].feed_id, len, (unsigned long long)mem[k].mmap_size);
		return;		/* no geometry kept: plain touches */
	}
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) && errno == ENOTCONN)
		anomaly("mmap of an unbound socket succeeded (EINVAL expected)");
	if (!have_ri && !ring_info(fd, ri)) {
		anomaly("mmap succeeded on a socket whose IBTICK_RING_INFO fails: %s",
			strerror(errno));
		return;
	}
	if (page_round(len) != ri->mmap_size)
		anomaly("mmap of a ring with length %zu succeeded, mmap_size is %llu (EINVAL expected)",
			len, (unsigned long long)ri->mmap_size);
	if (ri->nslots < IBTICK_SLOTS_MIN || (ri->nslots & (ri->nslots - 1)) ||
	    ri->slot_size < IBTICK_SLOT_SIZE_MIN || (ri->slot_size & (ri->slot_size - 1)) ||
	    ri->slots_off + (uint64_t)ri->nslots * ri->slot_size > m->len) {
		anomaly("IBTICK_RING_INFO geometry %u x %u at %llu does not fit the %zu-byte mapping",
			ri->nslots, ri->slot_size, (unsigned long long)ri->slots_off, m->len);
		return;
	}
	m->nslots = ri->nslots;
	m->slot_size = ri->slot_size;
	m->slots_off = ri->slots_off;
	if (!(prot & PROT_READ))
		return;
	hc.m = m;
	hc.ri = ri;
	hc.why[0] = 0;
	sig = guarded(do_hdr_check, &hc);
	if (sig)
		anomaly("fresh ring mapping faults (signal %d) on its first read", sig);
	else if (hc.why[0])
		anomaly("%s", hc.why);
}

void op_mmap(struct op *o)
{
	static const size_t lens[] = { 0, 1, 4095, 4096, 8192, 12288, (1UL << 20) + 4096,
				       (4UL << 20) + 4096, 1UL << 40, SIZE_MAX, SIZE_MAX - 4095 };
	static const off_t offs[] = { 0, 0, 0, 4096, 1, 8192, (off_t)1 << 40, -4096 };
	static const int xflags[] = { MAP_POPULATE, MAP_NORESERVE, MAP_LOCKED,
				      MAP_NONBLOCK, MAP_GROWSDOWN, MAP_32BIT, MAP_STACK,
				      MAP_HUGETLB, MAP_SYNC, MAP_UNINITIALIZED,
				      MAP_DENYWRITE, MAP_EXECUTABLE, MAP_FILE };
	static const int types[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE,
				     MAP_SHARED_VALIDATE, 0 };
	struct rng *r = &o->r;
	struct pick p = pick_fd(r, FK_IBT);
	struct ibtick_ring_info ri;
	bool have_ri = false, fixed_replace = false;
	size_t len;
	off_t off;
	int prot, flags, b = -1, i, victim = -1;
	unsigned char *addr = NULL, *got;
	unsigned int k;

	map_room(r);
	if (p.kind == FK_IBT && pct(r, 60))
		have_ri = ring_info(p.fd, &ri);
	/* a member feed's ring, at its own offset */
	if (p.kind == FK_IBT && pct(r, 25)) {
		struct ibtick_member mem[IBTICK_FEEDS_PER_SOCKET];
		socklen_t ml = sizeof(mem);

		if (!getsockopt(p.fd, SOL_IBTICK, IBTICK_FEEDS, mem, &ml) &&
		    ml >= sizeof(mem[0]) && pct(r, 90)) {
			i = (int)rn(r, ml / sizeof(mem[0]));
			len = mem[i].mmap_size + (pct(r, 10) ? pg : 0);
			off = (off_t)mem[i].mmap_offset + (pct(r, 5) ? (off_t)pg : 0);
			prot = PROT_READ;
			flags = MAP_SHARED;
			goto place;
		}
	}
	if (have_ri && pct(r, 75)) {
		len = ri.mmap_size;
		off = (off_t)ri.mmap_offset;
		prot = PROT_READ;
		flags = MAP_SHARED;
		if (pct(r, 30)) {
			switch (rn(r, 14)) {
			case 0: len += pg; break;
			case 1: len -= pg; break;
			case 2: len -= 1; break;		/* same pages: fine */
			case 3: len += 1; break;		/* one page more */
			case 4: off = (off_t)pg; break;
			case 5: prot |= PROT_WRITE; break;
			case 6: prot |= PROT_EXEC; break;
			case 7: prot = PROT_NONE; break;
			case 8: flags = MAP_PRIVATE; break;
			case 9: flags = MAP_SHARED_VALIDATE; break;
			case 10: flags |= MAP_POPULATE; break;
			case 11: flags |= MAP_LOCKED; break;
			case 12: flags = MAP_SHARED_VALIDATE | MAP_SYNC; break;
			default: flags |= MAP_GROWSDOWN; break;
			}
		}
	} else {
		len = pct(r, 80) ? PICK(r, lens) : (size_t)rn(r, 8U << 20);
		off = pct(r, 85) ? PICK(r, offs) : (off_t)(rnd(r) & ~(uint64_t)(pg - 1));
		prot = (int)rn(r, 8);
		if (pct(r, 3))
			prot |= PROT_GROWSDOWN;
		flags = pct(r, 95) ? PICK(r, types) : (int)rn(r, 4);
		for (k = 0; k < 3; k++)
			if (pct(r, 12))
				flags |= PICK(r, xflags);
		if (pct(r, 12))
			flags |= MAP_ANONYMOUS;
	}
place:
	if (flags & MAP_ANONYMOUS) {
		/* our own memory: small, never huge pages */
		flags &= ~MAP_HUGETLB;
		if (len > ANON_MAX)
			len = 1 + rn(r, ANON_MAX);
	}
	/* placement: mostly the kernel's choice, sometimes fixed in our arena */
	k = rn(r, 100);
	if (k < 10) {
		b = free_bay(r);
		addr = bay_slot(b, page_round(len));
		if (addr)
			flags |= MAP_FIXED;
	} else if (k < 14) {
		victim = pick_map(r, true);
		if (victim >= 0 && maps[victim].bay >= 0 && !bay_retired[maps[victim].bay]) {
			/* replace it whole, or shifted by a page (a ring refuses the split) */
			len = maps[victim].len;
			addr = maps[victim].addr;
			if (maps[victim].ring && pct(r, 40))
				addr = pct(r, 50) ? addr + pg : addr - pg;
			flags |= MAP_FIXED;
			fixed_replace = true;
			b = maps[victim].bay;
		} else {
			victim = -1;
		}
	} else if (k < 18) {
		addr = (unsigned char *)(uintptr_t)((rnd(r) & 0x3fffffffffffULL) & ~(uint64_t)(pg - 1));
		flags |= MAP_FIXED_NOREPLACE;
	}
	note("mmap(%p, %zu, %#x, %#x, fd %d kind %d, %lld)%s", (void *)addr, len,
	     (unsigned int)prot, (unsigned int)flags, p.fd, p.kind, (long long)off,
	     fixed_replace ? " replacing" : "");
	errno = 0;
	got = mmap(addr, len, prot, flags, p.fd, off);
	rec(o, got == MAP_FAILED ? -1 : 0);
	if (fixed_replace && got == MAP_FAILED) {
		unsigned char vec[1];

		/* a refused MAP_FIXED may have unmapped the old mapping first */
		if (mincore(maps[victim].addr, pg, vec) && errno == ENOMEM) {
			map_drop(victim, false);
			reserve(arena + (size_t)b * BAY, BAY);
		}
		return;
	}
	if (got == MAP_FAILED) {
		/* a refused MAP_FIXED into a free bay: make sure it leaves no hole */
		if ((flags & MAP_FIXED) && b >= 0 && len && len <= BAY)
			reserve(addr, page_round(len));
		return;
	}
	ws->maps_made++;
	if (fixed_replace) {
		if (got != maps[victim].addr) {
			if (maps[victim].ring)
				anomaly("MAP_FIXED over part of a ring mapping succeeded (the ring must refuse the split)");
			map_drop(victim, false);
			bay_retired[b] = true;	/* what is left there is not tracked */
		} else {
			maps_forget_range(got, page_round(len));
		}
	}
	i = map_free_entry();
	if (i < 0) {
		/* cannot happen (map_room), but never leak untracked mappings */
		munmap(got, len);
		return;
	}
	maps[i].addr = got;
	maps[i].len = page_round(len);
	maps[i].prot = prot;
	maps[i].bay = bay_of(got);
	maps[i].ring = false;
	if (!(flags & MAP_ANONYMOUS) && p.fd >= 0 && is_ibt_fd(p.fd)) {
		maps[i].ring = true;
		check_new_ring(&maps[i], p.fd, len, off, prot, flags, &ri, have_ri);
		if (!maps[i].nslots)
			maps[i].ring = false;	/* no usable geometry: plain touches */
	}
}

void op_touch(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), sig;
	struct ring_read rr;

	if (i < 0) {
		skip(o);
		return;
	}
	note("touch %s mapping %p len %zu prot %#x", maps[i].ring ? "ring" : "plain",
	     (void *)maps[i].addr, maps[i].len, (unsigned int)maps[i].prot);
	memset(&rr, 0, sizeof(rr));
	rr.m = &maps[i];
	rr.r = r;
	if (maps[i].ring)
		sig = guarded(do_ring_read, &rr);
	else
		sig = guarded(do_touch_pages, &maps[i]);
	count_fault(sig);
	rec_as(o, o->kind, sig ? -1 : 0, 0);
	ws->ticks_intact += rr.intact;
	ws->ticks_lapped += rr.lapped;
	if (rr.bad)
		anomaly("%s", rr.why);
}

void op_munmap(struct op *o)
{
	struct rng *r = &o->r;
	struct map *m = op_map(o);
	int ret;
	unsigned char *a;
	size_t len;
	unsigned int v;

	if (!m)
		return;
	a = m->addr;
	len = m->len;
	v = rn(r, 10);
	if (m->ring && len >= 2 * pg && v < 3) {
		/* a part: the ring refuses the split */
		if (v == 0)
			len = pg;
		else if (v == 1)
			a += pg;
		else
			len -= pg;
		if (v == 1)
			len -= pg;
	} else if (v == 3 && m->bay >= 0) {
		/* a superset inside its bay */
		a -= pg;
		len += 2 * pg;
	} else if (v == 4) {
		len = pct(r, 50) ? 0 : len;
		if (len)
			a += 1;		/* unaligned: EINVAL */
	}
	note("munmap(%p, %zu) of %s mapping %p+%zu", (void *)a, len,
	     m->ring ? "ring" : "plain", (void *)m->addr, m->len);
	errno = 0;
	ret = munmap(a, len);
	rec(o, ret);
	if (ret)
		return;
	if (a <= m->addr && a + len >= m->addr + m->len) {
		if (bay_of(a) >= 0)
			reserve(a, len);
		memset(m, 0, sizeof(*m));
		m->bay = -1;
		return;
	}
	if (m->ring)
		anomaly("partial munmap(%p, %zu) of a ring mapping %p+%zu succeeded (EINVAL expected)",
			(void *)a, len, (void *)m->addr, m->len);
	/* a part went: what is left stays until exit, untracked */
	if (m->bay >= 0) {
		reserve(a, len);
		bay_retired[m->bay] = true;
	}
	memset(m, 0, sizeof(*m));
	m->bay = -1;
}

void op_mprotect(struct op *o)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_WRITE, PROT_EXEC,
				     PROT_READ | PROT_SEM, PROT_READ | PROT_GROWSDOWN };
	struct rng *r = &o->r;
	struct map *m = op_map(o);
	int prot, ret;
	unsigned char *a;
	size_t len;
	bool whole = true;

	if (!m)
		return;
	a = m->addr;
	len = m->len;
	prot = pct(r, 90) ? PICK(r, prots) : (int)rn(r, 16);
	if (len >= 2 * pg && pct(r, 25)) {
		whole = false;
		if (pct(r, 50))
			a += pg;
		len -= pg;
	}
	note("mprotect(%p, %zu, %#x) of %s mapping prot %#x", (void *)a, len,
	     (unsigned int)prot, m->ring ? "ring" : "plain", (unsigned int)m->prot);
	errno = 0;
	ret = mprotect(a, len, prot);
	rec(o, ret);
	if (ret)
		return;
	if (m->ring && (prot & (PROT_WRITE | PROT_EXEC)))
		anomaly("mprotect(%#x) of a ring mapping succeeded (EACCES expected)",
			(unsigned int)prot);
	if (!whole && m->ring &&
	    (prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) != (m->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		anomaly("mprotect of part of a ring mapping (prot %#x -> %#x) succeeded (EINVAL expected)",
			(unsigned int)m->prot, (unsigned int)prot);
	if (whole)
		m->prot = prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
}

void op_madvise(struct op *o)
{
	static const int advs[] = {
		MADV_DONTNEED, MADV_DONTNEED, MADV_DONTNEED, MADV_DOFORK, MADV_DOFORK,
		MADV_DONTFORK, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED,
		MADV_FREE, MADV_REMOVE, MADV_DONTDUMP, MADV_DODUMP, MADV_MERGEABLE,
		MADV_UNMERGEABLE, MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_WIPEONFORK,
		MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT, MADV_POPULATE_READ,
		MADV_POPULATE_WRITE, MADV_DONTNEED_LOCKED_, MADV_COLLAPSE_,
	};
	struct rng *r = &o->r;
	struct map *m = op_map(o);
	int adv;
	unsigned char *a;
	size_t len;

	if (!m)
		return;
	a = m->addr;
	len = m->len;
	/* never MADV_HWPOISON (100) / MADV_SOFT_OFFLINE (101): they hurt the host */
	adv = pct(r, 90) ? PICK(r, advs) : (int)rn(r, 30);
	if (len >= 2 * pg && pct(r, 20)) {
		if (pct(r, 50))
			a += pg;
		len -= pg;
	}
	note("madvise(%p, %zu, %d) of %s mapping", (void *)a, len, adv,
	     m->ring ? "ring" : "plain");
	errno = 0;
	rec(o, madvise(a, len, adv));
}

void op_mremap(struct op *o)
{
	struct rng *r = &o->r;
	struct map *m = op_map(o);
	int flags = 0, b = -1, j;
	size_t old_len, new_len;
	unsigned char *na = NULL, *got, *old;

	if (!m)
		return;
	old = m->addr;
	old_len = m->len;
	new_len = old_len;
	switch (rn(r, 7)) {
	case 0:		/* move into a free bay, same size */
		b = free_bay(r);
		na = bay_slot(b, old_len);
		if (!na) {
			skip(o);
			return;
		}
		flags = MREMAP_MAYMOVE | MREMAP_FIXED;
		break;
	case 1:		/* grow */
		new_len = old_len + pg * (1 + rn(r, 4));
		flags = pct(r, 50) ? MREMAP_MAYMOVE : 0;
		break;
	case 2:		/* shrink */
		if (old_len < 2 * pg) {
			skip(o);
			return;
		}
		new_len = old_len - pg;
		break;
	case 3:		/* old_len 0: a second mapping of the same pages */
		old_len = 0;
		flags = MREMAP_MAYMOVE;
		break;
	case 4:
		flags = MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
		break;
	case 5:
		flags = MREMAP_MAYMOVE;
		break;
	default:	/* garbage flags; FIXED never reaches outside the arena */
		flags = (int)(rnd(r) & 0xff) & ~MREMAP_FIXED;
		break;
	}
	note("mremap(%p, %zu, %zu, %#x, %p) of %s mapping", (void *)old, old_len,
	     new_len, (unsigned int)flags, (void *)na, m->ring ? "ring" : "plain");
	errno = 0;
	got = mremap(old, old_len, new_len, flags, na);
	rec(o, got == MAP_FAILED ? -1 : 0);
	if (got == MAP_FAILED) {
		/* MREMAP_FIXED unmaps the target first: leave no hole in the bay */
		if (na)
			reserve(na, old_len);
		return;
	}
	if (m->ring && new_len != old_len)
		anomaly("mremap(%zu -> %zu, flags %#x) of a ring mapping succeeded (it cannot grow, shrink or be duplicated)",
			old_len, new_len, (unsigned int)flags);
	if (!old_len || (flags & MREMAP_DONTUNMAP)) {
		/* a second mapping; the old one stays */
		j = map_free_entry();
		if (j < 0 || bay_of(got) >= 0) {
			munmap(got, new_len);
			if (bay_of(got) >= 0)
				reserve(got, new_len);
			return;
		}
		maps[j] = *m;
		maps[j].addr = got;
		maps[j].len = page_round(new_len);
		maps[j].bay = bay_of(got);
		return;
	}
	if (got != old && m->bay >= 0)
		reserve(old, m->len);			/* moved out of its bay */
	else if (got == old && new_len < m->len && m->bay >= 0)
		reserve(old + new_len, m->len - new_len);	/* the tail it gave back */
	m->addr = got;
	m->len = page_round(new_len);
	m->bay = bay_of(got);
}

/* Reap fork children; with @wait_all, all of them (10 s each at most). */
void reap_children(bool wait_all)
{
	int i, st, t;
	pid_t p;

	for (i = 0; i < NPEND; i++) {
		if (!pending[i])
			continue;
		for (t = 0;; t++) {
			p = waitpid(pending[i], &st, WNOHANG);
			if (p == pending[i] || (p < 0 && errno != EINTR))
				break;
			if (!wait_all)
				break;
			if (t == 1000) {
				kill(pending[i], SIGKILL);
				anomaly("fork child %d did not exit in 10 s", (int)pending[i]);
			}
			usleep(10000);
		}
		if (p != pending[i])
			continue;
		pending[i] = 0;
		if (WIFSIGNALED(st))
			anomaly("fork child killed by signal %d (%s)", WTERMSIG(st),
				strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3)
			anomaly("fork child exited with status %d", WEXITSTATUS(st));
	}
}

void op_fork_map(struct op *o)
{
	struct rng *r = &o->r;
	int i = pick_map(r, true), j, sig;
	struct map m;
	pid_t pid;

	if (i < 0) {
		skip(o);
		return;
	}
	if (pct(r, 40))
		madvise(maps[i].addr, maps[i].len, MADV_DOFORK);
	reap_children(false);
	for (j = 0; j < NPEND && pending[j]; j++)
		;
	if (j == NPEND) {
		reap_children(true);
		j = 0;
	}
	m = maps[i];
	note("fork with %s mapping %p+%zu", m.ring ? "ring" : "plain", (void *)m.addr, m.len);
	errno = 0;
	pid = fork();
	if (pid == 0) {
		struct ring_read rr;
		int k;

		/* the child: touch, maybe unmap or close, and go */
		memset(&rr, 0, sizeof(rr));
		rr.m = &m;
		rr.r = r;
		sig = guarded(m.ring ? do_ring_read : do_touch_pages, m.ring ? (void *)&rr : (void *)&m);
		if (pct(r, 30))
			munmap(m.addr, m.len);
		if (pct(r, 30) && (k = pick_slot(r, FK_NONE)) >= 0)
			close(slots[k].fd);
		if (pct(r, 20))
			sig |= guarded(do_touch_pages, &m);
		_exit(sig ? 3 : 0);
	}
	rec(o, pid);
	if (pid < 0)
		return;
	ws->forks++;
	pending[j] = pid;
	if (pct(r, 50))
		reap_children(true);
}
