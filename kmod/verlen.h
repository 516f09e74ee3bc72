/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structures versioned by length (getsockopt IBTICK_STATISTICS,
 * IBTICK_RING_INFO): how many bytes to copy for a caller's buffer.
 * Pure logic.
 */
#ifndef _IBTICK_VERLEN_H
#define _IBTICK_VERLEN_H

#include <linux/types.h>

/*
 * A caller offers @optlen bytes for a structure of @size bytes whose first
 * version was @min bytes.  Returns the number of bytes to copy (and to
 * report back): min(@optlen, @size) - so older binaries get the prefix they
 * know and newer ones learn how much this kernel has - or -EINVAL for a
 * negative length or one shorter than the first version.
 */
int ibt_versioned_len(int optlen, size_t size, size_t min);

#endif /* _IBTICK_VERLEN_H */
