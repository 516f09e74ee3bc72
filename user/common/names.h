/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the numbers of ibtick_netlink.h, spelled as rdma(8) and
 * ibv_devinfo(1) spell them, and formatters shared by the CLI and tests.
 */
#ifndef IBTICK_NAMES_H
#define IBTICK_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Each returns a static string; unknown values give "UNKNOWN". */
const char *port_state_name(unsigned int state);	/* "ACTIVE" */
const char *port_phys_state_name(unsigned int phys);	/* "LINK_UP" */
const char *link_layer_name(unsigned int ll);		/* "InfiniBand" */
const char *node_type_name(unsigned int type);		/* "ca" */

/* "5054:00ff:fe12:3456"; @buf of at least 20 bytes. */
char *fmt_guid(char *buf, size_t len, uint64_t guid);
/* Mb/s as Gb/s with the decimals it needs: 2500 -> "2.5", 56000 -> "56". */
char *fmt_gbps(char *buf, size_t len, uint32_t mbps);

#endif
