// SPDX-License-Identifier: GPL-2.0
/*
 * AF_IBTICK helpers (see ibtsock.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibtsock.h"

int ibt_family_number(void)
{
	FILE *f = fopen(IBTICK_FAMILY_PARAM, "r");
	int fam = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &fam) != 1)
		fam = -1;
	fclose(f);
	if (fam < 0)
		errno = EINVAL;
	return fam;
}

int ibt_make_addr(struct sockaddr_ibtick *sa, int family, const char *group,
		  const char *port, const char *ifname, char *err, size_t errlen)
{
	struct in_addr in;
	char *end;
	long p;

	memset(sa, 0, sizeof(*sa));
	sa->sibt_family = family;
	sa->sibt_group_family = AF_INET;
	if (inet_pton(AF_INET, group, &in) != 1) {
		snprintf(err, errlen, "\"%s\" is not an IPv4 group", group);
		return -1;
	}
	memcpy(sa->sibt_group, &in, 4);
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || *end || p < 1 || p > 65535) {
		snprintf(err, errlen, "\"%s\" is not a feed port (1..65535)", port);
		return -1;
	}
	sa->sibt_port = p;
	if (ifname && *ifname) {
		sa->sibt_ifindex = if_nametoindex(ifname);
		if (!sa->sibt_ifindex) {
			snprintf(err, errlen, "no netdev \"%s\"", ifname);
			return -1;
		}
	}
	return 0;
}
