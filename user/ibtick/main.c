// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick(8): administer ibtick feeds and look at the devices under them.
 *
 *   ibtick [OPTIONS] OBJECT [VERB] [ARGS]
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ibtick.h"
#include "nl.h"
#include "out.h"

static const char *prog = "ibtick";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       %s -V\n"
		"       %s [ OPTIONS ] -b FILE\n"
		"where  OBJECT := { dev | feed | sock | conn | stats | monitor | doctor | relay | help }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | -d[etails] |\n"
		"                    -b[atch] FILE | -f[orce] | -V[ersion] | -h[elp] }\n",
		prog, prog, prog);
}

int cli_u32(const char *kw, const char *s, uint32_t min, uint32_t max,
	    uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s) {
		fprintf(stderr, "%s: \"%s\" needs a value\n", prog, kw);
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || *s == '-' || errno || v < min || v > max) {
		fprintf(stderr, "%s: %s \"%s\" is not a number in %u..%u\n",
			prog, kw, s, min, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

bool cli_matches(const char *word, const char *cmd)
{
	size_t n = strlen(word);

	return n && n <= strlen(cmd) && !strncmp(word, cmd, n);
}

char *cli_next(struct cli *c)
{
	if (c->argc <= 0)
		return NULL;
	c->argc--;
	return *c->argv++;
}

int cli_end(struct cli *c, void (*usage_fn)(void))
{
	if (!c->argc)
		return 0;
	fprintf(stderr, "ibtick: unexpected argument \"%s\"\n", c->argv[0]);
	if (usage_fn)
		usage_fn();
	return EXIT_USAGE;
}

int cli_filters(struct cli *c, const struct cli_filter *f, const char *verb,
		void (*usage_fn)(void))
{
	const struct cli_filter *p;
	char *kw, *val;

	while ((kw = cli_next(c))) {
		val = cli_next(c);
		if (!val) {
			fprintf(stderr, "%s: \"%s\" needs a value\n", prog, kw);
			usage_fn();
			return EXIT_USAGE;
		}
		for (p = f; p->kw && !cli_matches(kw, p->kw); p++)
			;
		if (!p->kw) {
			fprintf(stderr, "%s: unknown %s filter \"%s\"\n", prog,
				verb, kw);
			usage_fn();
			return EXIT_USAGE;
		}
		if (p->num && cli_u32(p->kw, val, 1, INT32_MAX, p->num))
			return EXIT_USAGE;
		if (p->str)
			*p->str = val;
		*p->given = true;
	}
	return EXIT_OK;
}

int cli_dispatch(struct cli *c, const struct cli_cmd *cmds, const char *obj,
		 void (*obj_usage)(void))
{
	const struct cli_cmd *cmd;
	const char *verb;

	if (c->argc == 0)
		return cmds[0].fn(c);
	verb = c->argv[0];
	if (cli_matches(verb, "help")) {
		obj_usage();
		return EXIT_OK;
	}
	for (cmd = cmds; cmd->name; cmd++) {
		if (cli_matches(verb, cmd->name)) {
			cli_next(c);
			return cmd->fn(c);
		}
	}
	fprintf(stderr, "%s: unknown command \"%s\" for object \"%s\"\n",
		prog, verb, obj);
	obj_usage();
	return EXIT_USAGE;
}

static const struct {
	const char *name;
	int (*fn)(struct cli *c);
} objects[] = {
	{ "dev",	cmd_dev },
	{ "feed",	cmd_feed },
	{ "sock",	cmd_sock },
	{ "conn",	cmd_conn },
	{ "stats",	cmd_stats },
	{ "monitor",	cmd_monitor },
	{ "doctor",	cmd_doctor },
	{ "relay",	cmd_relay },
	{ NULL }
};

/* One command: OBJECT VERB ARGS in @c.  Exit status as main's. */
static int run(struct cli *c, enum out_mode mode)
{
	const char *obj = cli_next(c);
	int i, ret;

	if (!obj) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cli_matches(obj, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; objects[i].name; i++) {
		if (cli_matches(obj, objects[i].name)) {
			out_init(stdout, mode);
			ret = objects[i].fn(c);
			out_finish();
			return ret;
		}
	}
	fprintf(stderr, "%s: unknown object \"%s\"\n", prog, obj);
	usage(stderr);
	return EXIT_USAGE;
}

#define BATCH_MAX_WORDS	64

/*
 * -b FILE ("-": standard input): one command per line, without the leading
 * "ibtick"; words split at blanks, "#" starts a comment.  Stops at the first
 * failing line unless -f; the status is that of the last failure.
 */
static int batch(const char *path, bool force, struct cli *proto,
		 enum out_mode mode)
{
	char *line = NULL, *words[BATCH_MAX_WORDS], *p;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int lineno = 0, ret = EXIT_OK, r, n;
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return EXIT_FAIL;
	}
	while (getline(&line, &cap, f) > 0) {
		struct cli c = *proto;

		c.batch = true;	/* no relay: it would end the batch */
		lineno++;
		p = strchr(line, '#');
		if (p)
			*p = '\0';
		n = 0;
		for (p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
			if (n == BATCH_MAX_WORDS) {
				fprintf(stderr, "%s: %s:%d: too many words\n",
					prog, path, lineno);
				n = -1;
				break;
			}
			words[n++] = p;
		}
		if (!n)
			continue;
		if (n < 0) {
			r = EXIT_USAGE;
		} else {
			if (!strcmp(words[0], "ibtick")) {	/* tolerated */
				memmove(words, words + 1, --n * sizeof(words[0]));
				if (!n)
					continue;
			}
			c.argc = n;
			c.argv = words;
			r = run(&c, mode);
		}
		if (r) {
			fprintf(stderr, "%s: %s:%d: command failed\n", prog, path,
				lineno);
			ret = r;
			if (!force)
				break;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "statistics",	no_argument, NULL, 's' },
		{ "details",	no_argument, NULL, 'd' },
		{ "batch",	required_argument, NULL, 'b' },
		{ "force",	no_argument, NULL, 'f' },
		{ "version",	no_argument, NULL, 'V' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL }
	};
	enum out_mode mode = OUT_TEXT;
	const char *batch_file = NULL;
	struct cli c = { 0 };
	bool pretty = false, force = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "+jpsdb:fVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 's':
			c.stats++;
			break;
		case 'd':
			c.details = true;
			break;
		case 'b':
			batch_file = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'V':
			printf("%s %s\n", prog, IBTICK_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	/* -p indents the JSON of -j, as rdma -p does; alone it changes nothing */
	if (c.json)
		mode = pretty ? OUT_JSON_PRETTY : OUT_JSON;
	if (batch_file) {
		if (optind < argc) {
			fprintf(stderr, "%s: -b takes no command on the line\n", prog);
			usage(stderr);
			return EXIT_USAGE;
		}
		return batch(batch_file, force, &c, mode);
	}
	c.argc = argc - optind;
	c.argv = argv + optind;
	return run(&c, mode);
}
