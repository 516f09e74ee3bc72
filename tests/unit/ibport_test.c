// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-perf's -d DEV -i PORT -x GID: the netdev they name, read from a
 * prepared sysfs tree (RoCE with a VLAN at GID index 1, InfiniBand with
 * IPoIB and a P_Key child, a two-port device), and each refusal's reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibport.h"
#include "unit.h"

static char root[64];

/* @root/@rel and every directory on the way to it */
static void mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s/", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

/* write @text into @root/@rel, making the directories on the way */
static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void tree(void)
{
	snprintf(root, sizeof(root), "/tmp/ibport-test.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	/* rxe0: RoCE on veth0, GID index 1 a VLAN's, 2 empty */
	put("class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "veth0\n");
	put("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "veth0.5\n");
	put("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/2", "");
	/* mlx4_0: InfiniBand, two ports; ib0 (port 1) and its P_Key child
	 * ib0.8001, ib1 (port 2), eth9 another device's */
	put("class/infiniband/mlx4_0/ports/1/link_layer", "InfiniBand\n");
	put("class/infiniband/mlx4_0/ports/2/link_layer", "InfiniBand\n");
	mkdirs("class/net/ib0/device/infiniband/mlx4_0");
	put("class/net/ib0/dev_port", "0\n");
	mkdirs("class/net/ib0.8001/device/infiniband/mlx4_0");
	put("class/net/ib0.8001/dev_port", "0\n");
	mkdirs("class/net/ib1/device/infiniband/mlx4_0");
	put("class/net/ib1/dev_port", "1\n");
	mkdirs("class/net/eth9/device/infiniband/mlx5_0");
	put("class/net/eth9/dev_port", "0\n");
	/* mlx5_0: InfiniBand, no IPoIB netdev of its own port 2 */
	put("class/infiniband/mlx5_0/ports/2/link_layer", "InfiniBand\n");
}

static void untree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

static char nd[32], why[160];

#define NETDEV(dev, port, gid) \
	(nd[0] = why[0] = 0, ibport_netdev(root, dev, port, gid, nd, sizeof(nd), why, sizeof(why)))

static void ibport_roce(void)
{
	tree();
	CHECK(NETDEV("rxe0", 1, 0) == 0);
	CHECK_STR(nd, "veth0");
	CHECK(NETDEV("rxe0", 1, 1) == 0);	/* -x picks the VLAN's */
	CHECK_STR(nd, "veth0.5");
	CHECK(NETDEV("rxe0", 1, 2) == -1);
	CHECK_STR(why, "rxe0 port 1 has no netdev at GID index 2");
	CHECK(NETDEV("rxe0", 1, 7) == -1);
	CHECK_STR(why, "rxe0 port 1 has no netdev at GID index 7");
	untree();
}

static void ibport_infiniband(void)
{
	tree();
	CHECK(NETDEV("mlx4_0", 1, 0) == 0);	/* ib0, not its child */
	CHECK_STR(nd, "ib0");
	CHECK(NETDEV("mlx4_0", 2, 0) == 0);
	CHECK_STR(nd, "ib1");
	CHECK(NETDEV("mlx4_0", 1, 1) == -1);
	CHECK_STR(why, "mlx4_0 port 1 is InfiniBand: its GIDs have no netdev, the feed uses the IPoIB one (no -x)");
	CHECK(NETDEV("mlx5_0", 2, 0) == -1);
	CHECK_STR(why, "mlx5_0 port 2 has no IPoIB netdev");
	untree();
}

static void ibport_bad(void)
{
	tree();
	CHECK(NETDEV("nosuch0", 1, 0) == -1);
	CHECK_STR(why, "no RDMA device nosuch0");
	CHECK(NETDEV("rxe0", 2, 0) == -1);
	CHECK_STR(why, "rxe0 has no port 2");
	CHECK(NETDEV("../net", 1, 0) == -1);
	CHECK_STR(why, "\"../net\" is not an RDMA device name");
	CHECK(NETDEV("", 1, 0) == -1);
	CHECK(nd[0] == 0);
	untree();
}

const struct unit_case ibport_cases[] = {
	{ "ibport: RoCE, -x picks the GID entry's netdev", ibport_roce },
	{ "ibport: InfiniBand, the port's IPoIB netdev", ibport_infiniband },
	{ "ibport: no device, no port, a path for a name", ibport_bad },
	{ NULL, NULL },
};
