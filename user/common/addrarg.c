// SPDX-License-Identifier: GPL-2.0
/*
 * Feed addresses from command-line words (see addrarg.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addrarg.h"

int addr_from_args(struct sockaddr_ibtick *sa, const char *group,
		   const char *port, const char *ifname, char *err,
		   size_t errlen)
{
	struct in_addr in;
	char *end;
	long p;
	int e;

	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 1 || p > 65535)
		p = 0;		/* ibtick_make_addr refuses it: EINVAL */
	if (!ibtick_make_addr(sa, group, (unsigned int)p, ifname))
		return 0;
	e = errno;
	if (e == ENODEV)
		snprintf(err, errlen, "no netdev \"%s\"", ifname);
	else if (e == EINVAL && inet_pton(AF_INET, group, &in) != 1)
		snprintf(err, errlen, "\"%s\" is not an IPv4 group", group);
	else if (e == EINVAL)
		snprintf(err, errlen, "\"%s\" is not a feed port (1..65535)", port);
	else
		snprintf(err, errlen, "ibtick module not loaded (%s)", strerror(e));
	errno = e;
	return -1;
}

int tool_addr(const char *prog, struct sockaddr_ibtick *sa, const char *group,
	      const char *port, const char *ifname)
{
	char err[128];

	if (ibtick_family() < 0) {
		fprintf(stderr, "%s: ibtick module not loaded\n", prog);
		return 1;
	}
	if (addr_from_args(sa, group, port, ifname, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return 2;
	}
	return 0;
}
