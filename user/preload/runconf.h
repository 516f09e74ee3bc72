/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * ibtick-run's configuration: which UDP multicast groups go over ibtick.
 *
 * A rule is one word, GROUP[/LEN]:PORT[-PORT]@IFNAME (IFNAME optional):
 *
 *	239.1.2.3:7001@rxe0		one group, one port
 *	239.10.0.0/16:5000-5009@ib0	a block of groups, a range of ports
 *	239.1.2.3:*			every port; the kernel picks the port
 *
 * A configuration is a text of rules separated by white space, newlines or
 * commas; '#' starts a comment that runs to the end of its line.  The same
 * syntax serves the configuration file (one rule a line, by convention),
 * ibtick-run's -g words and the IBTICK_RUN_GROUPS variable the library
 * reads.  Parsing is pure (no system call): ifindex resolution is the
 * caller's (runconf_rule.ifindex starts at 0).
 */
#ifndef IBTICK_RUNCONF_H
#define IBTICK_RUNCONF_H

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#define RUNCONF_MAX_RULES	256

struct runconf_rule {
	uint32_t	group;		/* host byte order, masked */
	uint32_t	mask;		/* host byte order: /LEN */
	uint16_t	port_lo;	/* 1..65535 */
	uint16_t	port_hi;	/* >= port_lo */
	char		ifname[IF_NAMESIZE];	/* "" when not given */
	unsigned int	ifindex;	/* resolved by the caller; 0 unknown */
	int		bad;		/* the caller found it unusable */
};

struct runconf {
	struct runconf_rule	rule[RUNCONF_MAX_RULES];
	int			n;
};

/*
 * Parse one rule word into @r.  Returns 0, or -1 with a message for the
 * user in @err (at most @errlen bytes, NUL-terminated).
 */
int runconf_parse_rule(const char *word, struct runconf_rule *r,
		       char *err, size_t errlen);

/*
 * Add the rules of @text to @c.  @origin names the text in messages
 * ("run.conf", "-g", ...), with the line number for multi-line texts.
 * A malformed rule is reported through @report (may be NULL) and skipped;
 * the others are kept.  Returns the number of malformed rules (so 0 when
 * all were good); running out of room counts as one, reported.
 */
int runconf_parse(struct runconf *c, const char *text, const char *origin,
		  void (*report)(void *arg, const char *msg), void *arg);

/*
 * The rule for UDP group @group (host byte order) and port @port: the
 * first usable rule that covers both and whose ifindex is @ifindex, or,
 * when @ifindex is 0 or no such rule exists, the first usable rule that
 * covers both.  NULL when no rule does.
 */
const struct runconf_rule *runconf_match(const struct runconf *c,
					 uint32_t group, uint16_t port,
					 unsigned int ifindex);

/*
 * Write @r back as a rule word (the form runconf_parse_rule reads) into
 * @buf of @len bytes.  Returns the length, as snprintf.
 */
int runconf_format(const struct runconf_rule *r, char *buf, size_t len);

#endif
