// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink client for the CLI (see nl.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/ibtick_netlink.h>

#include "nl.h"
#include "out.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define DUMP_RETRIES 5

int ibt_nl_connect(struct ibt_nl *nl, char *err, size_t len)
{
	int one = 1;
	int ret;

	err[0] = '\0';
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret) {
		snprintf(err, len, "generic netlink: %s", nl_geterror(ret));
		ret = -EIO;
		goto fail;
	}
	/* extended ACKs: the kernel's message and the offending attribute */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl->family = genl_ctrl_resolve(nl->sk, IBTICK_GENL_NAME);
	if (nl->family < 0) {
		snprintf(err, len, "ibtick module not loaded");
		ret = -ENOENT;
		goto fail;
	}
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return ret;
}

int ibt_nl_open(struct ibt_nl *nl)
{
	char err[128];
	int ret = ibt_nl_connect(nl, err, sizeof(err));

	if (ret == -ENOENT)
		fprintf(stderr, "%s\n", err);
	else if (ret)
		fprintf(stderr, "ibtick: %s\n", err);
	return ret ? EXIT_FAIL : EXIT_OK;
}

void ibt_nl_close(struct ibt_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *ibt_nl_attrs(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		fprintf(stderr, "ibtick: out of memory\n");
	return msg;
}

/* The request: header, name, then the attributes of @req->attrs. */
static struct nl_msg *req_msg(struct ibt_nl *nl, const struct ibt_nl_req *req)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlmsghdr *ah;

	if (!msg ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 req->flags, req->cmd, IBTICK_GENL_VERSION) ||
	    (req->name && nla_put_string(msg, req->name_attr, req->name) < 0))
		goto nomem;
	if (req->attrs) {
		ah = nlmsg_hdr(req->attrs);
		if (nlmsg_attrlen(ah, 0) &&
		    nlmsg_append(msg, nlmsg_attrdata(ah, 0), nlmsg_attrlen(ah, 0),
				 NLMSG_ALIGNTO) < 0)
			goto nomem;
	}
	return msg;
nomem:
	fprintf(stderr, "ibtick: out of memory\n");
	nlmsg_free(msg);
	return NULL;
}

int ibt_nl_errno;

struct transact {
	int		maxattr;
	struct nl_msg	**replies;
	size_t		n, cap;
	bool		intr;
	bool		done;		/* NLMSG_DONE or the final ACK seen */
	int		error;		/* errno from an NLMSG_ERROR */
	char		emsg[256];	/* extended ACK message */
	uint32_t	eoffs;		/* offending attribute offset, 0: none */
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct transact *t = arg;
	struct nl_msg **r;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		r = realloc(t->replies, t->cap * sizeof(*r));
		if (!r)
			return NL_STOP;
		t->replies = r;
	}
	nlmsg_get(msg);
	t->replies[t->n++] = msg;
	return NL_OK;
}

static int on_done(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct transact *)arg)->done = true;
	return NL_STOP;
}

static int on_dump_intr(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct transact *)arg)->intr = true;
	return NL_OK;		/* read the dump to its end, then retry */
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct transact *t = arg;
	size_t skip, body;
	struct nlattr *a;
	int len, rem;

	(void)nla;
	/* an error is negative; anything else (or INT_MIN) is malformed */
	t->error = e->error < 0 && e->error != INT_MIN ? -e->error : EPROTO;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return NL_STOP;
	body = nlh->nlmsg_len - NLMSG_HDRLEN;
	/* TLVs follow the error and the (capped) original request */
	skip = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		/* the echoed request must fit in what we received */
		if (e->msg.nlmsg_len < NLMSG_HDRLEN ||
		    e->msg.nlmsg_len - NLMSG_HDRLEN > body - skip)
			return NL_STOP;
		skip += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	skip = NLMSG_ALIGN(skip);
	if (skip >= body)
		return NL_STOP;
	len = (int)(body - skip);	/* body < 2^32: one datagram */
	a = (struct nlattr *)((char *)e + skip);
	nla_for_each_attr(a, a, len, rem) {
		switch (nla_type(a)) {
		case NLMSGERR_ATTR_MSG:
			snprintf(t->emsg, sizeof(t->emsg), "%.*s",
				 nla_len(a), (char *)nla_data(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (nla_len(a) >= 4)
				t->eoffs = nla_get_u32(a);
			break;
		}
	}
	return NL_STOP;
}

/* The request attribute that starts at byte @offs of the request. */
static const char *attr_at(struct nl_msg *req, uint32_t offs,
			   const char *const *names, int n_names)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if ((char *)a - (char *)nlh == (long)offs) {
			int type = nla_type(a);

			if (type < n_names && names[type])
				return names[type];
			return "unknown attribute";
		}
	}
	return NULL;
}

static void free_replies(struct transact *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		nlmsg_free(t->replies[i]);
	t->n = 0;
}

/* Send @msg (consumed) for @obj, collect the replies, hand them to @cb. */
static int transact(struct ibt_nl *nl, struct nl_msg *msg,
		    const struct ibt_nl_obj *obj, ibt_nl_reply_cb cb, void *arg)
{
	struct nlattr *tb[obj->maxattr + 1];
	struct transact t = { .maxattr = obj->maxattr };
	struct nl_cb *ncb;
	int tries, err, ret = EXIT_FAIL;
	size_t i;

	ncb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!ncb) {
		nlmsg_free(msg);
		return EXIT_FAIL;
	}
	nl_cb_set(ncb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	nl_cb_set(ncb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, on_dump_intr, &t);
	nl_cb_set(ncb, NL_CB_FINISH, NL_CB_CUSTOM, on_done, &t);
	nl_cb_set(ncb, NL_CB_ACK, NL_CB_CUSTOM, on_done, &t);
	nl_cb_err(ncb, NL_CB_CUSTOM, on_error, &t);

	for (tries = 0; tries < DUMP_RETRIES; tries++) {
		free_replies(&t);
		t.intr = false;
		t.done = false;
		t.error = 0;
		/* a retry is a new request: it needs a new sequence number */
		nlmsg_hdr(msg)->nlmsg_seq = NL_AUTO_SEQ;
		err = nl_send_auto(nl->sk, msg);
		if (err < 0) {
			fprintf(stderr, "ibtick: send: %s\n", nl_geterror(err));
			goto out;
		}
		/* every request is acked (doit) or ends with DONE (dump) */
		do {
			err = nl_recvmsgs(nl->sk, ncb);
		} while (err >= 0 && !t.done && !t.error);
		if (t.error) {
			const char *what = t.eoffs ?
				attr_at(msg, t.eoffs, obj->attr_names,
					obj->n_names) : NULL;

			ibt_nl_errno = t.error;
			fprintf(stderr, "ibtick: %s",
				t.emsg[0] ? t.emsg : strerror(t.error));
			if (what)
				fprintf(stderr, " (attribute %s)", what);
			if (t.emsg[0])
				fprintf(stderr, ": %s", strerror(t.error));
			fputc('\n', stderr);
			goto out;
		}
		if (err < 0) {
			fprintf(stderr, "ibtick: receive: %s\n", nl_geterror(err));
			goto out;
		}
		if (!t.intr)
			break;
	}
	if (t.intr) {
		fprintf(stderr, "ibtick: the device set kept changing during the dump; try again\n");
		goto out;
	}
	ret = EXIT_OK;
	for (i = 0; i < t.n; i++) {
		struct nlmsghdr *nlh = nlmsg_hdr(t.replies[i]);

		if (genlmsg_parse(nlh, 0, tb, obj->maxattr, obj->policy) < 0) {
			fprintf(stderr, "ibtick: malformed reply from the kernel\n");
			ret = EXIT_FAIL;
			break;
		}
		if (cb && cb(nlh, tb, arg)) {
			ret = EXIT_FAIL;
			break;
		}
	}
out:
	free_replies(&t);
	free(t.replies);
	nl_cb_put(ncb);
	nlmsg_free(msg);
	return ret;
}

int ibt_nl_call(struct ibt_nl *nl, const struct ibt_nl_req *req)
{
	struct nl_msg *msg = req_msg(nl, req);
	int ret;

	if (!msg)
		return EXIT_FAIL;
	if (req->array)
		out_arr_open(NULL);
	ret = transact(nl, msg, req->obj, req->cb, req->arg);
	if (req->array)
		out_arr_close();
	return ret;
}

int ibt_nl_request(const struct ibt_nl_req *req)
{
	struct ibt_nl nl;
	int ret;

	ret = ibt_nl_open(&nl);
	if (ret)
		return ret;
	ret = ibt_nl_call(&nl, req);
	ibt_nl_close(&nl);
	return ret;
}
