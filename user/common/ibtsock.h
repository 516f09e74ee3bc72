/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for programs that open AF_IBTICK sockets: the family number in
 * use (read from the module, never hard-coded) and feed addresses.
 */
#ifndef IBTICK_IBTSOCK_H
#define IBTICK_IBTSOCK_H

#include <linux/ibtick.h>

#define IBTICK_FAMILY_PARAM "/sys/module/ibtick/parameters/family"

/* The AF_IBTICK number of the loaded module; -1 with errno if not loaded. */
int ibt_family_number(void);

/*
 * Fill @sa for GROUP (dotted IPv4), feed PORT and netdev IFNAME (NULL or ""
 * for "the only active port").  Returns 0, or -1 with a message in @err.
 */
int ibt_make_addr(struct sockaddr_ibtick *sa, int family, const char *group,
		  const char *port, const char *ifname, char *err, size_t errlen);

#endif
