// SPDX-License-Identifier: GPL-2.0
/*
 * A port's counter files in sysfs (see portctr.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "portctr.h"

int sysfs_port_counters(const char *dev, unsigned int port, const char *sub,
			void (*cb)(const char *key, uint64_t v, void *arg),
			void *arg)
{
	char dir[512], path[1024], buf[64];
	struct dirent *de;
	unsigned long long v;
	int n = 0;
	DIR *d;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/%s/ports/%u/%s",
		 getenv("IBTICK_IB_SYSFS") ?: "/sys/class/infiniband", dev, port, sub);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* some counters cannot be read (EINVAL on unsupported): skip */
		if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu", &v) == 1) {
			cb(de->d_name, v, arg);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}
