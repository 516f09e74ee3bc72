// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick relay: the UDP <-> ibtick relay under the CLI's name.
 *
 *   ibtick [-j] relay { udp-to-feed | feed-to-udp } --from ... --to ... [...]
 *
 * Runs ibtick-relay with the same words in place of this process (its
 * signals, exit status and output are the relay's; ibtick-relay(8)): the
 * one beside this binary, else the first on PATH.  -j is handed on.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibtick.h"

#define RELAY "ibtick-relay"

int cmd_relay(struct cli *c)
{
	char self[PATH_MAX], path[PATH_MAX + sizeof(RELAY)], *slash;
	char **argv;
	ssize_t n;
	int i, k = 0;

	if (c->batch) {
		fprintf(stderr, "ibtick: relay runs until stopped: not from a batch\n");
		return EXIT_USAGE;
	}
	argv = calloc((size_t)c->argc + 3, sizeof(*argv));
	if (!argv)
		return EXIT_FAIL;
	argv[k++] = (char *)RELAY;
	if (c->json)
		argv[k++] = (char *)"-j";
	for (i = 0; i < c->argc; i++)
		argv[k++] = c->argv[i];
	fflush(stdout);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			snprintf(path, sizeof(path), "%s%s", self, RELAY);
			if (!access(path, X_OK))
				execv(path, argv);
		}
	}
	execvp(RELAY, argv);
	fprintf(stderr, "ibtick: cannot run %s: %s\n", RELAY, strerror(errno));
	free(argv);
	return EXIT_FAIL;
}
