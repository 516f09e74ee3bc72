/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feed access control and feed names.  Pure logic (KUnit: acl_test.c).
 *
 * An admin feed has an owner, a group and a mode (IBTICK_FEED_MODE_MASK):
 * the owner's bits apply to its owner, the group's bits to members of its
 * group, the other bits to everyone else, as for files.  READ lets a socket
 * subscribe, WRITE lets it publish.  Callers check CAP_NET_ADMIN (which
 * passes every check) and auto feeds (no ACL) themselves.
 */
#ifndef _IBTICK_ACL_H
#define _IBTICK_ACL_H

#include <linux/types.h>
#include <linux/uidgid.h>

#define IBT_ACL_READ	4	/* subscribe */
#define IBT_ACL_WRITE	2	/* publish */

struct ibt_acl {
	kuid_t	owner;
	kgid_t	group;
	u16	mode;
};

/*
 * May a caller with filesystem uid @uid, who is (@in_group) or is not a
 * member of @acl's group, do @want (IBT_ACL_READ and/or IBT_ACL_WRITE)?
 * The first class that matches decides, as for files: an owner without the
 * owner bit is refused even when the other bits would allow it.
 */
bool ibt_acl_permits(const struct ibt_acl *acl, kuid_t uid, bool in_group,
		     unsigned int want);

/*
 * A feed name given by an administrator: 1..IBTICK_FEED_NAME_MAX-1 bytes
 * of [A-Za-z0-9_.:-], not starting with '-' (it would read as an option),
 * "auto-" (the prefix of the names auto feeds get) or "arb-", and not
 * ending in ".r" and digits (the names of an arbitrated feed's rails).
 * @len counts the bytes before the terminating NUL.
 */
bool ibt_feed_name_valid(const char *name, size_t len);

#endif /* _IBTICK_ACL_H */
