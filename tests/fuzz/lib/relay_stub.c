// SPDX-License-Identifier: GPL-2.0
/*
 * "ibtick relay" for the fuzz targets: the real one (user/ibtick/relay.c)
 * replaces the process with ibtick-relay, which would end the fuzzer.
 * Here it only refuses, as it does from a batch.
 */
#include "../../../user/ibtick/ibtick.h"

int cmd_relay(struct cli *c)
{
	(void)c;
	return EXIT_USAGE;
}
