/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ibtick CLI: objects and their verbs, in the shape of iproute2's rdma.
 */
#ifndef IBTICK_CLI_H
#define IBTICK_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>

#include "nl.h"

struct cli {
	int	argc;		/* words left after the object */
	char	**argv;
	int	stats;		/* -s given (count) */
	bool	json;
	bool	details;	/* -d: the attributes plain output leaves out,
				 * in text and JSON alike (as rdma -d) */
	bool	batch;		/* a line of -b FILE */
};

/* One verb of an object; entry 0 of a table is the default verb. */
struct cli_cmd {
	const char	*name;
	int		(*fn)(struct cli *c);
};

/* Run the verb named by c->argv[0] (or the default); usage on unknown. */
int cli_dispatch(struct cli *c, const struct cli_cmd *cmds, const char *obj,
		 void (*usage)(void));
/* Prefix match, as ip(8) and rdma(8) accept: "sh" for "show". */
bool cli_matches(const char *word, const char *cmd);
/* Next word, NULL when none. */
char *cli_next(struct cli *c);
/*
 * 0 when no word is left; else says which word is one too many, calls
 * @usage (unless NULL) and returns EXIT_USAGE.
 */
int cli_end(struct cli *c, void (*usage)(void));

/*
 * A number for keyword @kw in [@min, @max] (decimal or 0x hex); prints
 * what is wrong and returns -1 otherwise (also for a missing @s).
 */
int cli_u32(const char *kw, const char *s, uint32_t min, uint32_t max,
	    uint32_t *out);

/*
 * One filter of a show verb, "KEYWORD VALUE": a string (@str) or a number
 * in 1..INT32_MAX (@num, a pid); *@given says it came.  A table ends with
 * a NULL @kw.
 */
struct cli_filter {
	const char	*kw;
	const char	**str;
	uint32_t	*num;
	bool		*given;
};

/*
 * Take the words left as filters of @f: EXIT_OK, or EXIT_USAGE after
 * saying what is wrong (a keyword without a value, a bad number, an
 * unknown keyword: "unknown @verb filter") and calling @usage.
 */
int cli_filters(struct cli *c, const struct cli_filter *f, const char *verb,
		void (*usage)(void));

/*
 * USER[:GROUP] (names or numbers; either may be left out) into @msg as
 * u32 attributes @uid_attr and @gid_attr; -1 after saying which is
 * unknown.  (feed.c)
 */
int cli_owner(const char *s, struct nl_msg *msg, int uid_attr, int gid_attr);

/* rule.c: ibtick conn rule; the rules as batch lines (feed save) */
int cmd_conn_rule(struct cli *c);
int conn_rules_save(struct ibt_nl *nl);

/* dev.c */
int cmd_dev(struct cli *c);
extern const struct ibt_nl_obj dev_obj;
extern struct nla_policy dev_reply_policy[];
extern struct nla_policy dev_port_policy[];
extern struct nla_policy dev_evcnt_policy[];
extern const char *const dev_evcnt_keys[];

/* feed.c, sock.c, conn.c, stats.c, monitor.c */
int cmd_feed(struct cli *c);
int cmd_sock(struct cli *c);
int cmd_conn(struct cli *c);
/*
 * conn.c: IBTICK_CMD_CONN_GET's replies, and the callback that prints one
 * connection (arg: a struct conn_rows); sock show lists them too.
 */
extern const struct ibt_nl_obj conn_obj;
struct conn_rows {
	struct cli	*c;
	bool		as_sock;	/* in sock show: "conn " / "type" */
};
int conn_print(struct nlmsghdr *nlh, struct nlattr **tb, void *arg);
int cmd_stats(struct cli *c);
int cmd_monitor(struct cli *c);
extern const struct ibt_nl_obj sock_obj;
extern struct nla_policy sock_reply_policy[];
extern const char *const sock_ctr_keys[];

/* doctor.c */
int cmd_doctor(struct cli *c);

/* relay.c: "ibtick relay ARGS" runs ibtick-relay ARGS in its place */
int cmd_relay(struct cli *c);

#endif
