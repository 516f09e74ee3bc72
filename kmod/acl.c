// SPDX-License-Identifier: GPL-2.0
/*
 * Feed access control and feed names (see acl.h).  Pure logic.
 */
#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/ibtick_netlink.h>

#include "acl.h"

bool ibt_acl_permits(const struct ibt_acl *acl, kuid_t uid, bool in_group,
		     unsigned int want)
{
	unsigned int bits = acl->mode & IBTICK_FEED_MODE_MASK;

	want &= IBT_ACL_READ | IBT_ACL_WRITE;
	if (uid_eq(uid, acl->owner))
		bits >>= 6;
	else if (in_group)
		bits >>= 3;
	return (bits & want) == want;
}

bool ibt_feed_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!len || len >= IBTICK_FEED_NAME_MAX || name[0] == '-')
		return false;
	if (len >= 5 && !memcmp(name, "auto-", 5))
		return false;
	/* an arbitrated feed's rails are NAME.rN (arb-ID.rN) */
	if (len >= 4 && !memcmp(name, "arb-", 4))
		return false;
	for (i = len; i && isdigit(name[i - 1]); i--)
		;
	if (i < len && i >= 2 && name[i - 1] == 'r' && name[i - 2] == '.')
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != ':' && c != '-')
			return false;
	}
	return true;
}
