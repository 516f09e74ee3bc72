// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"

long arg_num(const char *prog, const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "%s: '%s': want a number in [%ld, %ld]\n", prog,
			arg, min, max);
		exit(2);
	}
	return v;
}
