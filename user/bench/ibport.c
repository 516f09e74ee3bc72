// SPDX-License-Identifier: GPL-2.0
/*
 * -d DEV -i PORT -x GID to a netdev, from sysfs (see ibport.h).
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ibport.h"

/* The first line of @path into @buf, without its newline; -1 if unreadable. */
static int first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* InfiniBand: the IPoIB netdev whose parent device is @dev, port @port. */
static int ipoib_netdev(const char *sysfs, const char *dev, unsigned int port,
			char *ifname, size_t len)
{
	struct dirent **e;
	char path[1024], v[32];
	int n, i, found = -1;

	snprintf(path, sizeof(path), "%s/class/net", sysfs);
	n = scandir(path, &e, NULL, name_cmp);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *nd = e[i]->d_name;

		if (found < 0 && nd[0] != '.' && strlen(nd) < len) {
			snprintf(path, sizeof(path), "%s/class/net/%s/device/infiniband/%s",
				 sysfs, nd, dev);
			if (is_dir(path)) {
				snprintf(path, sizeof(path), "%s/class/net/%s/dev_port",
					 sysfs, nd);
				if (!first_line(path, v, sizeof(v)) &&
				    strtoul(v, NULL, 0) == port - 1) {
					memcpy(ifname, nd, strlen(nd) + 1);
					found = 0;
				}
			}
		}
		free(e[i]);
	}
	free(e);
	return found;
}

static int fail(char *why, size_t wlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t wlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wlen, fmt, ap);
	va_end(ap);
	return -1;
}

int ibport_netdev(const char *sysfs, const char *dev, unsigned int port,
		  unsigned int gid, char *ifname, size_t len, char *why,
		  size_t wlen)
{
	char path[1024], ll[32], nd[64];

	if (!*dev || strchr(dev, '/') || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return fail(why, wlen, "\"%s\" is not an RDMA device name", dev);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s", sysfs, dev);
	if (!is_dir(path))
		return fail(why, wlen, "no RDMA device %s", dev);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/link_layer",
		 sysfs, dev, port);
	if (first_line(path, ll, sizeof(ll)))
		return fail(why, wlen, "%s has no port %u", dev, port);
	if (!strcmp(ll, "InfiniBand")) {
		if (gid)
			return fail(why, wlen, "%s port %u is InfiniBand: its GIDs have no netdev, the feed uses the IPoIB one (no -x)",
				    dev, port);
		if (ipoib_netdev(sysfs, dev, port, ifname, len))
			return fail(why, wlen, "%s port %u has no IPoIB netdev", dev, port);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
		 sysfs, dev, port, gid);
	if (first_line(path, nd, sizeof(nd)) || !*nd)
		return fail(why, wlen, "%s port %u has no netdev at GID index %u", dev, port, gid);
	if (strlen(nd) >= len)
		return fail(why, wlen, "netdev name %s too long", nd);
	memcpy(ifname, nd, strlen(nd) + 1);
	return 0;
}
