// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick: opening, mapping and waiting (the fast path is inline in
 * libibtick.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libibtick.h"

#define FAMILY_PARAM "/sys/module/ibtick/parameters/family"

int ibtick_family(void)
{
	FILE *f = fopen(FAMILY_PARAM, "re");
	int fam = -1;

	if (!f)
		return -1;	/* errno from fopen: ENOENT = not loaded */
	if (fscanf(f, "%d", &fam) != 1 || fam <= 0) {
		fam = -1;
		errno = EPROTO;
	}
	fclose(f);
	return fam;
}

int ibtick_make_addr(struct sockaddr_ibtick *sa, const char *group,
		     unsigned int port, const char *ifname)
{
	struct in_addr in;
	int fam = ibtick_family();

	if (fam < 0)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = fam;
	sa->sibt_group_family = AF_INET;
	if (!group || inet_pton(AF_INET, group, &in) != 1 || !port ||
	    port > 65535) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sa->sibt_group, &in, sizeof(in));
	sa->sibt_port = port;
	if (ifname && *ifname) {
		sa->sibt_ifindex = if_nametoindex(ifname);
		if (!sa->sibt_ifindex) {
			errno = ENODEV;
			return -1;
		}
	}
	return 0;
}

/* Check a ring header against the contract; @len bytes are readable. */
static int check_hdr(const struct ibtick_ring_hdr *h, size_t len)
{
	uint64_t need;

	if (len < sizeof(*h)) {
		errno = EINVAL;
		return -1;
	}
	if (h->magic != IBTICK_RING_MAGIC || h->version != IBTICK_RING_VERSION ||
	    h->nslots < 2 || (h->nslots & (h->nslots - 1)) ||
	    h->slot_size <= sizeof(struct ibtick_slot) ||
	    (h->slot_size & (h->slot_size - 1)) || (h->slot_size & 7) ||
	    h->slots_off < sizeof(*h) || (h->slots_off & 7) ||
	    h->slots_off > len) {
		errno = EPROTO;
		return -1;
	}
	need = (uint64_t)h->nslots * h->slot_size;	/* < 2^64: 32 x 32 bits */
	if (need > len - h->slots_off) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * Lay the reader out from @h, a copy of the header taken before it was
 * checked: the geometry is read once, so a later change of the header in
 * shared memory changes nothing.
 */
static void setup(struct ibtick_reader *r, const void *mem,
		  const struct ibtick_ring_hdr *h, uint64_t cursor)
{
	r->hdr = mem;
	r->slots = (const uint8_t *)mem + h->slots_off;
	r->nslots = h->nslots;
	r->mask = h->nslots - 1;
	r->slot_size = h->slot_size;
	r->payload_max = h->slot_size - sizeof(struct ibtick_slot);
	r->cursor = cursor;
	r->lost = 0;
	r->delivered = 0;
}

int ibtick_reader_init_mem(struct ibtick_reader *r, const void *mem,
			   size_t len, uint64_t cursor)
{
	struct ibtick_ring_hdr h;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (len < sizeof(h)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&h, mem, sizeof(h));
	if (check_hdr(&h, len))
		return -1;
	setup(r, mem, &h, cursor);
	return 0;
}

int ibtick_reader_attach(struct ibtick_reader *r, int fd)
{
	struct ibtick_ring_info ri;
	struct ibtick_ring_hdr h;
	socklen_t len = sizeof(ri);
	uint64_t cursor;
	void *map;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	memset(&ri, 0, sizeof(ri));
	if (getsockopt(fd, SOL_IBTICK, IBTICK_RING_INFO, &ri, &len))
		return -1;
	if (len < sizeof(ri) || ri.version != IBTICK_RING_VERSION ||
	    !ri.mmap_size || ri.mmap_size < ri.ring_size) {
		errno = EPROTO;	/* a module older than this library */
		return -1;
	}
	len = sizeof(cursor);
	if (getsockopt(fd, SOL_IBTICK, IBTICK_RING_CURSOR, &cursor, &len))
		return -1;
	map = mmap(NULL, ri.mmap_size, PROT_READ, MAP_SHARED, fd,
		   (off_t)ri.mmap_offset);
	if (map == MAP_FAILED)
		return -1;
	memcpy(&h, map, sizeof(h));
	if (check_hdr(&h, ri.ring_size) || h.nslots != ri.nslots ||
	    h.slot_size != ri.slot_size || h.slots_off != ri.slots_off) {
		munmap(map, ri.mmap_size);
		errno = EPROTO;		/* not the ring the kernel described */
		return -1;
	}
	setup(r, map, &h, cursor);
	r->fd = fd;
	r->map = map;
	r->map_len = ri.mmap_size;
	return 0;
}

int ibtick_reader_open(struct ibtick_reader *r, const char *group,
		       unsigned int port, const char *ifname,
		       const struct ibtick_reader_opts *o)
{
	struct ibtick_reader_opts none = { 0 };
	struct sockaddr_ibtick sa;
	uint64_t cur;
	int fd, e;

	memset(r, 0, sizeof(*r));	/* ibtick_reader_close() is safe on failure */
	r->fd = -1;
	if (!o)
		o = &none;
	if (ibtick_make_addr(&sa, group, port, ifname))
		return -1;
	fd = socket(sa.sibt_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (o->nslots || o->slot_size) {
		struct ibtick_ring_geometry g = {
			.nslots = o->nslots ? o->nslots : IBTICK_SLOTS_DEFAULT,
			.slot_size = o->slot_size ? o->slot_size :
						   IBTICK_SLOT_SIZE_DEFAULT,
		};

		if (setsockopt(fd, SOL_IBTICK, IBTICK_RING_GEOMETRY, &g,
			       sizeof(g)))
			goto fail;
	}
	if (o->loopback && setsockopt(fd, SOL_IBTICK, IBTICK_LOOPBACK,
				      &o->loopback, sizeof(o->loopback)))
		goto fail;
	if (o->comp_vector && setsockopt(fd, SOL_IBTICK, IBTICK_COMP_VECTOR,
					 &o->comp_vector,
					 sizeof(o->comp_vector)))
		goto fail;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	if (ibtick_reader_attach(r, fd))
		goto fail;
	r->own_fd = true;
	/* the kernel's indices start at 0, so this does not wrap */
	if (o->start_oldest) {
		cur = ibtick__load_acquire(&r->hdr->producer);
		r->cursor = cur > r->nslots ? cur - r->nslots : 0;
	}
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

void ibtick_reader_close(struct ibtick_reader *r)
{
	int e = errno;

	/*
	 * Hand back what was read: a connection's slots (an orderly close()
	 * then, not a reset for unread messages); a feed socket's cursor.
	 */
	if (r->map && r->fd >= 0)
		(void)ibtick_arm(r);
	errno = e;
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	r->map = NULL;
	r->hdr = NULL;
	r->fd = -1;
	r->own_fd = false;
}

int ibtick_arm(struct ibtick_reader *r)
{
	if (r->fd < 0) {
		errno = ENOTSOCK;
		return -1;
	}
	return setsockopt(r->fd, SOL_IBTICK, IBTICK_RING_CURSOR, &r->cursor,
			  sizeof(r->cursor));
}

int ibtick_wait(struct ibtick_reader *r, int timeout_ms)
{
	struct pollfd p;
	int n;

	if (ibtick_backlog(r) || ibtick_ended(r))
		return 1;
	if (ibtick_arm(r))
		return -1;
	p.fd = r->fd;
	p.events = POLLIN;
	p.revents = 0;
	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -1;
	return n > 0;
}

ssize_t ibtick_read(struct ibtick_reader *r, void *buf, size_t len,
		    struct ibtick_slot *desc, uint64_t *lost)
{
	struct ibtick_tick t;
	size_t n;

	for (;;) {
		if (!ibtick_next(r, &t)) {
			if (lost)
				*lost += t.lost;
			errno = EAGAIN;
			return -1;
		}
		n = t.len < len ? t.len : len;
		memcpy(buf, t.data, n);
		if (desc)
			memcpy(desc, t.slot, sizeof(*desc));
		if (ibtick_done(r, &t)) {
			if (lost)
				*lost += t.lost;
			if (desc)
				desc->len = (uint16_t)t.len;
			return (ssize_t)n;
		}
		if (lost)
			*lost += t.lost;
	}
}

int ibtick_publisher_open(const char *group, unsigned int port,
			  const char *ifname)
{
	struct sockaddr_ibtick sa;
	int fd, e;

	if (ibtick_make_addr(&sa, group, port, ifname))
		return -1;
	fd = socket(sa.sibt_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

ssize_t ibtick_publish(int fd, const void *buf, size_t len, bool dontwait)
{
	return send(fd, buf, len, dontwait ? MSG_DONTWAIT : 0);
}
