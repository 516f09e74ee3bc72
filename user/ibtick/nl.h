/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's generic netlink client: resolves the "ibtick" family once,
 * enables extended ACKs, collects replies (restarting interrupted dumps) and
 * turns a refusal into the kernel's message and the attribute it names.
 */
#ifndef IBTICK_NL_H
#define IBTICK_NL_H

#include <stdbool.h>
#include <stddef.h>

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
 * Connect and resolve the family.  Returns 0, -ENOENT when the module is
 * not loaded, or another -errno; @err says what failed in words.
 */
int ibt_nl_connect(struct ibt_nl *nl, char *err, size_t len);
/*
 * The same for a verb: on failure prints "ibtick module not loaded" (or
 * why the socket failed) and returns EXIT_FAIL.
 */
int ibt_nl_open(struct ibt_nl *nl);
void ibt_nl_close(struct ibt_nl *nl);

/*
 * Called for each reply with its top-level attributes parsed into @tb (the
 * last of a repeated attribute wins there; walk @nlh for repeated ones).
 * Non-zero stops and fails the request.
 */
typedef int (*ibt_nl_reply_cb)(struct nlmsghdr *nlh, struct nlattr **tb,
			       void *arg);

/*
 * What the CLI knows of one object's replies: their attributes' policy
 * (replies are checked against it before a callback sees them), and its
 * words for the request attributes, used when the kernel's extended ACK
 * names the one it refused.
 */
struct ibt_nl_obj {
	int			maxattr;
	struct nla_policy	*policy;
	const char *const	*attr_names;
	int			n_names;
};

/* One request and what to do with its replies. */
struct ibt_nl_req {
	const struct ibt_nl_obj	*obj;
	int			cmd;
	int			flags;		/* NLM_F_DUMP for a dump */
	/* the object's name, first attribute of the request when set */
	int			name_attr;
	const char		*name;
	/* more attributes in a bare message (ibt_nl_attrs()); not consumed */
	struct nl_msg		*attrs;
	ibt_nl_reply_cb		cb;		/* NULL: only the ACK matters */
	void			*arg;
	bool			array;		/* replies inside one out.h array */
};

/* A bare message to put request attributes in; NULL (said) on ENOMEM. */
struct nl_msg *ibt_nl_attrs(void);

/*
 * Send @req on @nl, wait for every reply, then hand each to req->cb in
 * order.  A dump the kernel marks interrupted is retried from scratch (a
 * few times).  Returns EXIT_OK or EXIT_FAIL after printing the error (with
 * the kernel's message and the attribute it names).
 */
int ibt_nl_call(struct ibt_nl *nl, const struct ibt_nl_req *req);

/* The errno of the last request the kernel refused (0: none yet). */
extern int ibt_nl_errno;

/* ibt_nl_open(), ibt_nl_call(), ibt_nl_close(): a verb's one request. */
int ibt_nl_request(const struct ibt_nl_req *req);

#endif
