// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick(8): administer ibtick feeds and look at the devices under them.
 *
 *   ibtick [OPTIONS] OBJECT [VERB] [ARGS]
 */
#include <getopt.h>
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
		"where  OBJECT := { dev | help }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | -V[ersion] | -h[elp] }\n",
		prog, prog);
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
	{ NULL }
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "statistics",	no_argument, NULL, 's' },
		{ "version",	no_argument, NULL, 'V' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL }
	};
	enum out_mode mode = OUT_TEXT;
	struct cli c = { 0 };
	bool pretty = false;
	const char *obj;
	int opt, i, ret;

	while ((opt = getopt_long(argc, argv, "+jpsVh", longopts, NULL)) != -1) {
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
	if (pretty)	/* -p alone implies JSON, as with rdma -p */
		c.json = true;
	if (c.json)
		mode = pretty ? OUT_JSON_PRETTY : OUT_JSON;
	c.argc = argc - optind;
	c.argv = argv + optind;

	obj = cli_next(&c);
	if (!obj) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cli_matches(obj, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	out_init(stdout, mode);
	for (i = 0; objects[i].name; i++) {
		if (cli_matches(obj, objects[i].name)) {
			ret = objects[i].fn(&c);
			out_finish();
			return ret;
		}
	}
	fprintf(stderr, "%s: unknown object \"%s\"\n", prog, obj);
	usage(stderr);
	return EXIT_USAGE;
}
