// SPDX-License-Identifier: GPL-2.0
/*
 * Versioned-by-length copies (see verlen.h).  Pure logic.
 */
#include <linux/errno.h>
#include <linux/minmax.h>

#include "verlen.h"

int ibt_versioned_len(int optlen, size_t size, size_t min)
{
	if (optlen < 0 || (size_t)optlen < min)
		return -EINVAL;
	return (int)min_t(size_t, optlen, size);
}
