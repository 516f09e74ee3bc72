/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's generic netlink client: resolves the "ibtick" family once,
 * enables extended ACKs, collects replies (restarting interrupted dumps) and
 * turns a refusal into the kernel's message and the attribute it names.
 */
#ifndef IBTICK_NL_H
#define IBTICK_NL_H

#include <netlink/attr.h>
#include <netlink/msg.h>

struct ibt_nl {
	struct nl_sock	*sk;
	int		family;
};

/* Exit statuses shared by every command. */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,	/* the kernel refused, or the module is absent */
	EXIT_USAGE	= 2,	/* bad command line */
};

/*
 * Connect and resolve the family.  On failure prints "ibtick module not
 * loaded" (or why the socket failed) and returns EXIT_FAIL.
 */
int ibt_nl_open(struct ibt_nl *nl);
void ibt_nl_close(struct ibt_nl *nl);

/* A request for @cmd with @flags (NLM_F_DUMP for dumps); NULL on ENOMEM. */
struct nl_msg *ibt_nl_msg(struct ibt_nl *nl, int cmd, int flags);

/*
 * Called for each reply with its top-level attributes parsed into @tb (the
 * last of a repeated attribute wins there; walk @nlh for repeated ones).
 */
typedef int (*ibt_nl_reply_cb)(struct nlmsghdr *nlh, struct nlattr **tb,
			       void *arg);

/*
 * Send @msg (consumed), wait for every reply, then hand each to @cb in order.
 * A dump the kernel marks interrupted is retried from scratch (a few times).
 * Replies are validated against @policy (lengths) before @cb sees them.
 * @attr_names[type] names request attributes for the extended-ACK message.
 * Returns EXIT_OK or EXIT_FAIL after printing the error.
 */
int ibt_nl_transact(struct ibt_nl *nl, struct nl_msg *msg, int maxattr,
		    struct nla_policy *policy,
		    const char *const *attr_names, int n_names,
		    ibt_nl_reply_cb cb, void *arg);

#endif
