/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The payload of tests/vm/mcsend and mcrecv: plain AF_INET programs that
 * know nothing of ibtick (they include no ibtick header and link nothing of
 * the project), run under ibtick-run by tests/vm/preload.sh.
 */
#ifndef MCTICK_H
#define MCTICK_H

#include <stdint.h>

#define MCTICK_MAGIC	0x4d435431u	/* "MCT1" */

struct mctick {
	uint32_t	magic;
	uint32_t	group;		/* destination group, network order */
	uint16_t	port;		/* destination port, host order */
	uint16_t	pad;
	uint32_t	sender;		/* the sender's pid */
	uint64_t	seq;		/* 1, 2, 3... per destination */
};

#endif
