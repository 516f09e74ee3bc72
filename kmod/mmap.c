// SPDX-License-Identifier: GPL-2.0
/*
 * mmap() of a feed's ring, read-only, for readers that make no system call
 * per tick.  The contract is in <linux/ibtick.h> (IBTICK_MMAP_RING).
 *
 * Lifetime, the whole of it: the ring is zeroed vmalloc memory (charged to
 * its creator's memory cgroup) allocated with its feed, sized and laid out
 * once and never reshaped.  A mapping
 * holds the socket's file (vma->vm_file), so the socket is not released
 * before the last munmap(); the socket holds its feeds, a mapping of a
 * member feed's ring also the member (dropped or not), and the feed frees
 * its ring only when its last reference goes.  Teardown of the feed's verbs
 * side (device removal) leaves the ring in place with IBTICK_RING_DEAD set.
 * The pages are inserted up front (vm_insert_page(), which also takes a
 * page reference per PTE): no fault handler, nothing to race with.
 *
 * Locking: none.  mmap runs under the caller's mmap_lock, and recvmsg holds
 * the socket lock while it copies to user memory (which may take the
 * mmap_lock), so the socket lock must not be taken here; @feed and
 * @subscribed are set once, with release stores, and read with acquire.
 */
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "conn.h"
#include "ibt.h"

/*
 * Insert every page of the ring (the vma's length was checked against the
 * ring's).  On failure the caller's mmap unwinds the PTEs already made.
 */
static int ibt_map_pages(struct vm_area_struct *vma, void *mem)
{
	unsigned long addr;
	int err;

	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		err = vm_insert_page(vma, addr, vmalloc_to_page(mem));
		if (err)
			return err;
		mem += PAGE_SIZE;
	}
	return 0;
}

static void ibt_vm_open(struct vm_area_struct *vma)
{
	struct ibt_sock *is = vma->vm_private_data;

	atomic_inc(&is->mappings);	/* mremap() made a copy */
}

static void ibt_vm_close(struct vm_area_struct *vma)
{
	struct ibt_sock *is = vma->vm_private_data;

	atomic_dec(&is->mappings);
}

/* The ring is mapped whole or not at all: no partial munmap or mprotect. */
static int ibt_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct ibt_vm_ops = {
	.open		= ibt_vm_open,
	.close		= ibt_vm_close,
	.may_split	= ibt_vm_may_split,
};

/* The length a mapping of @r must have: the ring rounded up to pages. */
u64 ibt_mmap_size(const struct ibt_ring *r)
{
	return PAGE_ALIGN(r->size);
}

/*
 * A member feed's ring (IBTICK_MMAP_FEED): each mapping holds a reference
 * to the member, so a member dropped while mapped (and its feed and ring)
 * lives until the last munmap(); the last put frees it from a work item
 * (member.c), never here under the mmap_lock.
 */
static void ibt_member_vm_open(struct vm_area_struct *vma)
{
	struct ibt_member *m = vma->vm_private_data;

	refcount_inc(&m->ref);
	atomic_inc(&m->mappings);
	atomic_inc(&m->is->mappings);
}

static void ibt_member_vm_close(struct vm_area_struct *vma)
{
	struct ibt_member *m = vma->vm_private_data;

	atomic_dec(&m->mappings);
	atomic_dec(&m->is->mappings);	/* the mapping holds the socket's file */
	ibt_member_put(m);
}

static const struct vm_operations_struct ibt_member_vm_ops = {
	.open		= ibt_member_vm_open,
	.close		= ibt_member_vm_close,
	.may_split	= ibt_vm_may_split,
};

/*
 * The added member whose ring maps at @pgoff (IBTICK_MMAP_FEED), with a
 * reference taken for the mapping; NULL if none.  *@bound: the offset
 * names bind()'s feed, mapped as at IBTICK_MMAP_RING.
 */
static struct ibt_member *ibt_mmap_member(struct ibt_sock *is,
					  unsigned long pgoff, bool *bound)
{
	u64 off = (u64)pgoff << PAGE_SHIFT;
	struct ibt_member *m;
	u64 id = off >> IBTICK_MMAP_FEED_SHIFT;

	*bound = false;
	if (off & ((1ULL << IBTICK_MMAP_FEED_SHIFT) - 1) || !id || id > U32_MAX)
		return NULL;
	rcu_read_lock();
	m = ibt_member_find_rcu(is, id);
	if (m == &is->sub) {
		*bound = true;
		m = NULL;
	} else if (m && !refcount_inc_not_zero(&m->ref)) {
		m = NULL;	/* dropped, on its way out */
	}
	rcu_read_unlock();
	return m;
}

/* Shared and read-only, as the contract says, or not at all. */
static int ibt_mmap_flags_ok(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* MAP_PRIVATE: copy-on-write of a ring */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	return 0;
}

/*
 * Map ring @r (its memory @mem) whole into @vma, which must be exactly as
 * long, and keep the mapping from ever becoming writable, copied into a
 * child or grown.
 */
static int ibt_mmap_ring(struct vm_area_struct *vma, const struct ibt_ring *r,
			 void *mem)
{
	if ((u64)(vma->vm_end - vma->vm_start) != ibt_mmap_size(r))
		return -EINVAL;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE | VM_MAYEXEC);
#else
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
#endif
	return ibt_map_pages(vma, mem);
}

int ibt_mmap(struct file *file, struct socket *sock,
	     struct vm_area_struct *vma)
{
	struct ibt_sock *is = ibt_sk(sock->sk);
	struct ibt_member *m = NULL;
	bool bound = vma->vm_pgoff == (IBTICK_MMAP_RING >> PAGE_SHIFT);
	struct ibt_feed *f;
	int err;

	err = ibt_mmap_flags_ok(vma);
	if (err)
		return err;
	if (!bound) {
		m = ibt_mmap_member(is, vma->vm_pgoff, &bound);
		if (!m && !bound)
			return -EINVAL;
	}
	if (bound) {
		/* pair with the release stores in bind: its feed is set */
		if (!smp_load_acquire(&is->subscribed))
			return -EINVAL;
		f = smp_load_acquire(&is->feed);  /* pairs with ibt_attach() */
	} else {
		f = m->feed;
	}
	err = ibt_mmap_ring(vma, &f->ring, f->ring_mem);
	if (err)
		goto out;
	if (m) {
		vma->vm_ops = &ibt_member_vm_ops;
		vma->vm_private_data = m;	/* with the reference taken */
		atomic_inc(&m->mappings);
		atomic_inc(&is->mappings);
		return 0;
	}
	vma->vm_ops = &ibt_vm_ops;
	vma->vm_private_data = is;
	atomic_inc(&is->mappings);
	return 0;
out:
	if (m)
		ibt_member_put(m);
	return err;
}

/*
 * A connection's ring (conn.h), mapped the same way at IBTICK_MMAP_RING
 * once the connection has one (connect(), or accept()).  The ring lives
 * as long as the socket (its destructor frees it) and the mapping holds
 * the socket's file: no reference to take, nothing to count.  Teardown
 * leaves it in place with IBTICK_RING_DEAD set.
 */
static const struct vm_operations_struct ibt_conn_vm_ops = {
	.may_split	= ibt_vm_may_split,
};

int ibt_conn_mmap(struct file *file, struct socket *sock,
		  struct vm_area_struct *vma)
{
	struct ibt_csock *cs = ibt_csk(sock->sk);
	void *mem;
	int err;

	err = ibt_mmap_flags_ok(vma);
	if (err)
		return err;
	mem = ibt_conn_ring(cs);	/* laid out before it is seen */
	if (vma->vm_pgoff != (IBTICK_MMAP_RING >> PAGE_SHIFT) || !mem ||
	    READ_ONCE(cs->listening))
		return -EINVAL;
	err = ibt_mmap_ring(vma, &cs->ring, mem);
	if (err)
		return err;
	vma->vm_ops = &ibt_conn_vm_ops;
	return 0;
}

void ibt_ring_info(const struct ibt_ring *r, struct ibtick_ring_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->version = IBTICK_RING_VERSION;
	ri->nslots = r->nslots;
	ri->slot_size = r->slot_size;
	ri->flags = READ_ONCE(r->hdr->flags);
	ri->hdr_size = sizeof(struct ibtick_ring_hdr);
	ri->producer_off = offsetof(struct ibtick_ring_hdr, producer);
	ri->flags_off = offsetof(struct ibtick_ring_hdr, flags);
	ri->slots_off = r->hdr->slots_off;
	ri->ring_size = r->size;
	ri->mmap_offset = IBTICK_MMAP_RING;
	ri->mmap_size = ibt_mmap_size(r);
}
