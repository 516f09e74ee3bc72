// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick stats: every counter of devices, feeds and sockets in one list.
 *
 *   ibtick [-s -s] stats [ show ] [ dev | feed | sock ] [ interval SECS ]
 *   ibtick stats reset
 *
 * Kernel counters never go back.  "stats reset" saves a snapshot of them in
 * a file; later "stats" prints each counter minus its snapshot value (a
 * counter now below its snapshot belongs to a new object of the same name
 * and is printed whole).  With -s given twice, stats prints what each
 * counter gained over an interval instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "arbattr.h"
#include "feedattr.h"
#include "ibtick.h"
#include "nl.h"
#include "out.h"
#include "portctr.h"

enum { OBJ_DEV = 1, OBJ_FEED = 2, OBJ_SOCK = 4, OBJ_ALL = 7 };

struct ctr {
	char		obj[8];
	char		name[64];
	char		key[48];
	uint64_t	v;
};

struct ctrs {
	struct ctr	*v;
	size_t		n, cap;
};

static int ctr_add(struct ctrs *cs, const char *obj, const char *name,
		   const char *key, uint64_t v)
{
	struct ctr *c;

	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 256;

		c = realloc(cs->v, cap * sizeof(*c));
		if (!c)
			return -1;
		cs->v = c;
		cs->cap = cap;
	}
	c = &cs->v[cs->n++];
	snprintf(c->obj, sizeof(c->obj), "%s", obj);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->v = v;
	return 0;
}

struct dev_ctx {
	struct ctrs	*cs;
	char		name[64];
};

static void dev_ctr(const char *key, uint64_t v, void *arg)
{
	struct dev_ctx *d = arg;

	ctr_add(d->cs, "dev", d->name, key, v);
}

static int collect_dev(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct dev_ctx d = { .cs = arg };
	struct nlattr *a;
	int rem, i;

	if (!tb[IBTICK_A_DEV_NAME])
		return 0;
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0),
			  rem) {
		struct nlattr *pt[IBTICK_A_PORT_MAX + 1], *ev[IBTICK_A_EVCNT_MAX + 1];
		unsigned int port;

		if (nla_type(a) != IBTICK_A_DEV_PORT ||
		    nla_parse_nested(pt, IBTICK_A_PORT_MAX, a, dev_port_policy) < 0 ||
		    !pt[IBTICK_A_PORT_NUM])
			continue;
		port = nla_get_u32(pt[IBTICK_A_PORT_NUM]);
		snprintf(d.name, sizeof(d.name), "%s/%u",
			 nla_get_string(tb[IBTICK_A_DEV_NAME]), port);
		if (pt[IBTICK_A_PORT_EVENTS] &&
		    nla_parse_nested(ev, IBTICK_A_EVCNT_MAX, pt[IBTICK_A_PORT_EVENTS],
				     dev_evcnt_policy) >= 0)
			for (i = 1; i <= IBTICK_A_EVCNT_MAX; i++)
				if (ev[i] && dev_evcnt_keys[i])
					ctr_add(d.cs, "dev", d.name, dev_evcnt_keys[i],
						nla_get_u64(ev[i]));
		sysfs_port_counters(nla_get_string(tb[IBTICK_A_DEV_NAME]), port,
				    "counters", dev_ctr, &d);
		sysfs_port_counters(nla_get_string(tb[IBTICK_A_DEV_NAME]), port,
				    "hw_counters", dev_ctr, &d);
	}
	return 0;
}

struct arb_ctx {
	struct ctrs	*cs;
	const char	*feed;
};

/* An arbitrated feed's own counters under its name, a rail's as NAME/A. */
static void arb_ctr(const char *rail, const char *key, uint64_t v, void *arg)
{
	struct arb_ctx *a = arg;
	char name[64];

	if (!rail) {
		ctr_add(a->cs, "feed", a->feed, key, v);
		return;
	}
	snprintf(name, sizeof(name), "%s/%s", a->feed, rail);
	ctr_add(a->cs, "rail", name, key, v);
}

static int collect_feed(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	struct nlattr *st[IBTICK_A_FSTAT_MAX + 1];
	const char *name;
	int i;

	(void)nlh;
	if (!tb[IBTICK_A_FEED_NAME] || !tb[IBTICK_A_FEED_STATS] ||
	    nla_parse_nested(st, IBTICK_A_FSTAT_MAX, tb[IBTICK_A_FEED_STATS],
			     fstat_policy) < 0)
		return 0;
	name = nla_get_string(tb[IBTICK_A_FEED_NAME]);
	for (i = 1; i <= IBTICK_A_FSTAT_MAX; i++)
		if (st[i] && fstat_keys[i])
			ctr_add(arg, "feed", name, fstat_keys[i], nla_get_u64(st[i]));
	if (tb[IBTICK_A_FEED_ARB]) {
		struct arb_ctx a = { .cs = arg, .feed = name };

		arb_counters(tb[IBTICK_A_FEED_ARB], arb_ctr, &a);
	}
	return 0;
}

static int collect_sock(struct nlmsghdr *nlh, struct nlattr **tb, void *arg)
{
	char name[32];
	int i;

	(void)nlh;
	if (!tb[IBTICK_A_SOCK_ID])
		return 0;
	snprintf(name, sizeof(name), "%" PRIu64, (uint64_t)nla_get_u64(tb[IBTICK_A_SOCK_ID]));
	for (i = 1; i <= IBTICK_A_SOCK_MAX; i++)
		if (tb[i] && sock_ctr_keys[i])
			ctr_add(arg, "sock", name, sock_ctr_keys[i], nla_get_u64(tb[i]));
	return 0;
}

static int collect(struct ibt_nl *nl, int objs, struct ctrs *cs)
{
	static const struct {
		int			bit;
		int			cmd;
		const struct ibt_nl_obj	*obj;
		ibt_nl_reply_cb		cb;
	} dumps[] = {
		{ OBJ_DEV,	IBTICK_CMD_DEV_GET,	&dev_obj,	collect_dev },
		{ OBJ_FEED,	IBTICK_CMD_FEED_GET,	&feed_obj,	collect_feed },
		{ OBJ_SOCK,	IBTICK_CMD_SOCK_GET,	&sock_obj,	collect_sock },
	};
	unsigned int i;
	int ret = 0;

	cs->n = 0;
	for (i = 0; !ret && i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		struct ibt_nl_req req = {
			.obj = dumps[i].obj, .cmd = dumps[i].cmd,
			.flags = NLM_F_DUMP, .cb = dumps[i].cb, .arg = cs,
		};

		if (objs & dumps[i].bit)
			ret = ibt_nl_call(nl, &req);
	}
	return ret;
}

static const struct ctr *ctr_find(const struct ctrs *cs, const struct ctr *c)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i].key, c->key) && !strcmp(cs->v[i].name, c->name) &&
		    !strcmp(cs->v[i].obj, c->obj))
			return &cs->v[i];
	return NULL;
}

static void snap_path(char *buf, size_t len)
{
	const char *env = getenv("IBTICK_STATS_FILE");
	const char *dir;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	dir = getuid() == 0 ? "/run/ibtick" : getenv("XDG_RUNTIME_DIR");
	if (!dir || access(dir, W_OK)) {
		if (getuid() == 0 && !mkdir("/run/ibtick", 0755))
			dir = "/run/ibtick";
		else if (!dir || access(dir, W_OK))
			dir = "/tmp";
	}
	snprintf(buf, len, "%s/ibtick-stats-%u.snap", dir, (unsigned int)getuid());
}

static int snap_load(struct ctrs *cs, time_t *when)
{
	char path[512], line[256];
	struct ctr c;
	unsigned long long v;
	FILE *f;

	snap_path(path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long long t;

		if (sscanf(line, "# ibtick stats snapshot %lld", &t) == 1) {
			*when = (time_t)t;
			continue;
		}
		if (sscanf(line, "%7s %63s %47s %llu", c.obj, c.name, c.key, &v) == 4)
			ctr_add(cs, c.obj, c.name, c.key, v);
	}
	fclose(f);
	return 0;
}

static int stats_reset(struct cli *c)
{
	struct ctrs cs = { 0 };
	char path[512], tmp[600];
	struct ibt_nl nl;
	size_t i;
	FILE *f;
	int ret;

	if (cli_end(c, NULL))
		return EXIT_USAGE;
	ret = ibt_nl_open(&nl);
	if (ret)
		return ret;
	ret = collect(&nl, OBJ_ALL, &cs);
	ibt_nl_close(&nl);
	if (ret)
		goto out;
	snap_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "ibtick: %s: %s\n", tmp, strerror(errno));
		ret = EXIT_FAIL;
		goto out;
	}
	fprintf(f, "# ibtick stats snapshot %lld\n", (long long)time(NULL));
	for (i = 0; i < cs.n; i++)
		fprintf(f, "%s %s %s %" PRIu64 "\n", cs.v[i].obj, cs.v[i].name,
			cs.v[i].key, cs.v[i].v);
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "ibtick: %s: %s\n", path, strerror(errno));
		ret = EXIT_FAIL;
		goto out;
	}
	if (!c->json)
		printf("ibtick: %zu counters saved in %s; stats now counts from here\n",
		       cs.n, path);
out:
	free(cs.v);
	return ret;
}

static void usage_stats(void)
{
	fprintf(stderr,
		"Usage: ibtick [ -s -s ] stats [ show ] [ dev | feed | sock ] [ interval SECS ]\n"
		"       ibtick stats reset\n"
		"       ibtick stats help\n");
}

static void print_ctrs(const struct ctrs *now, const struct ctrs *base)
{
	const char *obj = "", *name = "";
	const struct ctr *b;
	size_t i;
	int n = 0;
	bool open = false;

	out_arr_open(NULL);
	for (i = 0; i < now->n; i++) {
		const struct ctr *c = &now->v[i];
		uint64_t v = c->v;

		if (strcmp(c->obj, obj) || strcmp(c->name, name)) {
			if (open) {
				out_obj_close();
				out_obj_close();
				out_nl();
			}
			out_obj_open(NULL);
			out_str("object", "%s", c->obj);
			out_str("name", " %s:", c->name);
			out_obj_open("counters");
			open = true;
			obj = c->obj;
			name = c->name;
			n = 0;
		}
		b = base ? ctr_find(base, c) : NULL;
		if (b && b->v <= v)
			v -= b->v;
		if (n++ % 6 == 0 && n > 1)
			out_text("\n   ");
		out_counter(c->key, v);
	}
	if (open) {
		out_obj_close();
		out_obj_close();
		out_nl();
	}
	out_arr_close();
}

static int stats_show(struct cli *c)
{
	struct ctrs now = { 0 }, base = { 0 };
	unsigned int interval = 1;
	time_t when = 0;
	struct ibt_nl nl;
	int objs = 0, ret;
	char *w;

	while ((w = cli_next(c))) {
		if (cli_matches(w, "dev")) {
			objs |= OBJ_DEV;
		} else if (cli_matches(w, "feed")) {
			objs |= OBJ_FEED;
		} else if (cli_matches(w, "sock")) {
			objs |= OBJ_SOCK;
		} else if (cli_matches(w, "interval")) {
			uint32_t v;

			if (cli_u32("interval", cli_next(c), 1, 3600, &v))
				return EXIT_USAGE;
			interval = v;
		} else {
			fprintf(stderr, "ibtick: unknown stats argument \"%s\"\n", w);
			usage_stats();
			return EXIT_USAGE;
		}
	}
	if (!objs)
		objs = OBJ_ALL;
	ret = ibt_nl_open(&nl);
	if (ret)
		return ret;
	if (c->stats >= 2) {
		/* deltas: what every counter gained over the interval */
		ret = collect(&nl, objs, &base);
		if (!ret) {
			sleep(interval);
			ret = collect(&nl, objs, &now);
		}
		if (!ret && !c->json)
			printf("counters gained over %u s:\n", interval);
	} else {
		ret = collect(&nl, objs, &now);
		if (!ret && !snap_load(&base, &when) && !c->json)
			printf("counters since ibtick stats reset (%s)",
			       when ? ctime(&when) : "unknown time\n");
	}
	ibt_nl_close(&nl);
	if (!ret)
		print_ctrs(&now, base.n ? &base : NULL);
	free(now.v);
	free(base.v);
	return ret;
}

int cmd_stats(struct cli *c)
{
	const char *w = c->argc ? c->argv[0] : NULL;

	if (w && cli_matches(w, "help")) {
		usage_stats();
		return EXIT_OK;
	}
	if (w && !strcmp(w, "reset")) {
		cli_next(c);
		return stats_reset(c);
	}
	if (w && cli_matches(w, "show"))
		cli_next(c);
	return stats_show(c);
}
