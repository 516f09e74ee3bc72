/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A port's counter files in sysfs: ibtick dev -s prints them, stats lists
 * them, doctor watches the error counters among them.
 */
#ifndef IBTICK_PORTCTR_H
#define IBTICK_PORTCTR_H

#include <stdint.h>

/*
 * Call @cb for every readable counter file in
 * /sys/class/infiniband/DEV/ports/PORT/SUB (counters, hw_counters);
 * returns how many.  IBTICK_IB_SYSFS replaces /sys/class/infiniband.
 */
int sysfs_port_counters(const char *dev, unsigned int port, const char *sub,
			void (*cb)(const char *key, uint64_t v, void *arg),
			void *arg);

#endif
