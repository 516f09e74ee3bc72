/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feed addresses from command-line words, for the tools and the test
 * programs: libibtick's ibtick_make_addr() fills the address, this says in
 * words what was wrong with the arguments.
 */
#ifndef IBTICK_ADDRARG_H
#define IBTICK_ADDRARG_H

#include <stddef.h>

#include "libibtick.h"

/*
 * Fill @sa for GROUP (dotted IPv4), feed PORT (a decimal word) and netdev
 * IFNAME (NULL or "" for the only active port).  Returns 0, or -1 with
 * errno as ibtick_make_addr() sets it and a message in @err.
 */
int addr_from_args(struct sockaddr_ibtick *sa, const char *group,
		   const char *port, const char *ifname, char *err,
		   size_t errlen);

/*
 * The same for a tool named @prog, saying what is wrong on stderr ("PROG:
 * ibtick module not loaded", "PROG: no netdev ...").  Returns 0, or the
 * exit status: 1 when the module is not loaded, 2 for a bad argument.
 */
int tool_addr(const char *prog, struct sockaddr_ibtick *sa, const char *group,
	      const char *port, const char *ifname);

#endif
