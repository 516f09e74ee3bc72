// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * ibtick-run's configuration rules: parsing, matching, printing (runconf.h).
 * No system calls: the unit tests drive it with strings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runconf.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A decimal number in [lo, hi] that is the whole of s[0..n). */
static int number(const char *s, size_t n, unsigned long lo,
		  unsigned long hi, unsigned long *v)
{
	unsigned long x = 0;
	size_t i;

	if (!n || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		x = x * 10 + (unsigned long)(s[i] - '0');
	}
	if (x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* Dotted-quad IPv4 (exactly four decimal parts) of s[0..n). */
static int ipv4(const char *s, size_t n, uint32_t *a)
{
	unsigned long part;
	uint32_t x = 0;
	size_t i = 0, start;
	int k;

	for (k = 0; k < 4; k++) {
		start = i;
		while (i < n && s[i] != '.')
			i++;
		if (number(s + start, i - start, 0, 255, &part))
			return -1;
		x = x << 8 | (uint32_t)part;
		if (k < 3) {
			if (i >= n)
				return -1;
			i++;	/* the dot */
		}
	}
	if (i != n)
		return -1;
	*a = x;
	return 0;
}

int runconf_parse_rule(const char *word, struct runconf_rule *r,
		       char *err, size_t errlen)
{
	const char *colon, *at, *slash, *dash, *end;
	unsigned long len = 32, lo, hi;
	uint32_t g;
	size_t glen;

	memset(r, 0, sizeof(*r));
	end = word + strlen(word);
	at = strchr(word, '@');
	if (at) {
		size_t n = (size_t)(end - at - 1);

		if (!n)
			return fail(err, errlen, "'%s': empty interface name after '@'", word);
		if (n >= IF_NAMESIZE)
			return fail(err, errlen, "'%s': interface name longer than %d bytes",
				    word, IF_NAMESIZE - 1);
		if (memchr(at + 1, '/', n) || memchr(at + 1, ':', n) || memchr(at + 1, '@', n))
			return fail(err, errlen, "'%s': bad interface name", word);
		memcpy(r->ifname, at + 1, n);
		r->ifname[n] = '\0';
		end = at;
	}
	colon = memchr(word, ':', (size_t)(end - word));
	if (!colon)
		return fail(err, errlen, "'%s': no ':PORT' (the form is GROUP:PORT@IFNAME)", word);
	slash = memchr(word, '/', (size_t)(colon - word));
	glen = (size_t)((slash ? slash : colon) - word);
	if (ipv4(word, glen, &g))
		return fail(err, errlen, "'%s': '%.*s' is not an IPv4 address", word,
			    (int)glen, word);
	if (slash && number(slash + 1, (size_t)(colon - slash - 1), 4, 32, &len))
		return fail(err, errlen, "'%s': prefix length must be 4..32", word);
	r->mask = len == 32 ? 0xffffffffu : ~(0xffffffffu >> len);
	if ((g & 0xf0000000u) != 0xe0000000u)
		return fail(err, errlen, "'%s': %.*s is not a multicast group (224.0.0.0/4)",
			    word, (int)glen, word);
	if ((g & r->mask) != g)
		return fail(err, errlen, "'%s': the group has bits set past /%lu", word, len);
	/* ibtick refuses the link-local block; a prefix reaching into it too */
	if ((g & 0xffffff00u) == 0xe0000000u || (len < 24 && (0xe0000000u & r->mask) == g))
		return fail(err, errlen, "'%s': 224.0.0.0/24 is link-local, ibtick does not carry it",
			    word);
	r->group = g;

	colon++;
	if ((size_t)(end - colon) == 1 && *colon == '*') {
		lo = 1;
		hi = 65535;
	} else {
		dash = memchr(colon, '-', (size_t)(end - colon));
		if (number(colon, (size_t)((dash ? dash : end) - colon), 1, 65535, &lo))
			return fail(err, errlen, "'%s': port must be 1..65535 or '*'", word);
		hi = lo;
		if (dash && number(dash + 1, (size_t)(end - dash - 1), 1, 65535, &hi))
			return fail(err, errlen, "'%s': port range end must be 1..65535", word);
		if (hi < lo)
			return fail(err, errlen, "'%s': port range ends before it starts", word);
	}
	r->port_lo = (uint16_t)lo;
	r->port_hi = (uint16_t)hi;
	return 0;
}

int runconf_parse(struct runconf *c, const char *text, const char *origin,
		  void (*report)(void *arg, const char *msg), void *arg)
{
	char word[128], err[256], msg[400];
	int line = 1, bad = 0, full_told = 0;
	const char *p = text;

	while (*p) {
		const char *s;
		size_t n;

		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '\n')
			line++;
		if (isspace((unsigned char)*p) || *p == ',') {
			p++;
			continue;
		}
		s = p;
		while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '#')
			p++;
		n = (size_t)(p - s);
		if (n >= sizeof(word)) {
			snprintf(err, sizeof(err), "'%.20s...': too long for a rule", s);
			goto bad;
		}
		memcpy(word, s, n);
		word[n] = '\0';
		if (c->n >= RUNCONF_MAX_RULES) {
			if (full_told++)
				continue;
			snprintf(err, sizeof(err), "more than %d rules: '%s' and later ones ignored",
				 RUNCONF_MAX_RULES, word);
			goto bad;
		}
		if (runconf_parse_rule(word, &c->rule[c->n], err, sizeof(err)))
			goto bad;
		c->n++;
		continue;
bad:
		bad++;
		if (report) {
			snprintf(msg, sizeof(msg), "%s:%d: %s", origin, line, err);
			report(arg, msg);
		}
	}
	return bad;
}

static int covers(const struct runconf_rule *r, uint32_t group, uint16_t port)
{
	return !r->bad && (group & r->mask) == r->group &&
	       port >= r->port_lo && port <= r->port_hi;
}

const struct runconf_rule *runconf_match(const struct runconf *c,
					 uint32_t group, uint16_t port,
					 unsigned int ifindex)
{
	const struct runconf_rule *first = NULL;
	int i;

	for (i = 0; i < c->n; i++) {
		const struct runconf_rule *r = &c->rule[i];

		if (!covers(r, group, port))
			continue;
		if (!ifindex || r->ifindex == ifindex)
			return r;
		if (!first)
			first = r;
	}
	return first;
}

int runconf_format(const struct runconf_rule *r, char *buf, size_t len)
{
	char pfx[16] = "", ports[16], ifn[IF_NAMESIZE + 1] = "";
	uint32_t g = r->group;
	unsigned int bits = 0;
	uint32_t m;

	for (m = r->mask; m; m <<= 1)
		bits++;
	if (bits != 32)
		snprintf(pfx, sizeof(pfx), "/%u", bits & 63);
	if (r->port_lo == 1 && r->port_hi == 65535)
		snprintf(ports, sizeof(ports), "*");
	else if (r->port_lo == r->port_hi)
		snprintf(ports, sizeof(ports), "%u", r->port_lo);
	else
		snprintf(ports, sizeof(ports), "%u-%u", r->port_lo, r->port_hi);
	if (r->ifname[0])
		snprintf(ifn, sizeof(ifn), "@%s", r->ifname);
	return snprintf(buf, len, "%u.%u.%u.%u%s:%s%s", g >> 24, g >> 16 & 255,
			g >> 8 & 255, g & 255, pfx, ports, ifn);
}
