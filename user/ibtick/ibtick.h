/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ibtick CLI: objects and their verbs, in the shape of iproute2's rdma.
 */
#ifndef IBTICK_CLI_H
#define IBTICK_CLI_H

#include <stdbool.h>

struct cli {
	int	argc;		/* words left after the object */
	char	**argv;
	int	stats;		/* -s given (count) */
	bool	json;
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

/* dev.c */
int cmd_dev(struct cli *c);

#endif
