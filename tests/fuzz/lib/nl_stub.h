/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fake generic netlink socket the CLI fuzzers run the CLI on (see
 * nl_stub.c), and the CLI's main() as they call it.
 */
#ifndef IBTICK_NL_STUB_H
#define IBTICK_NL_STUB_H

#include <stddef.h>
#include <stdint.h>

/* user/ibtick/main.c, compiled with -Dmain=ibtick_main */
int ibtick_main(int argc, char **argv);

/* How opening the socket goes: works, or fails at one of its steps. */
enum { STUB_OK, STUB_NOMEM, STUB_NOCONNECT, STUB_NOFAMILY };
/* Start over: @open_mode for the next open, @script the kernel's replies. */
void nl_stub_reset(unsigned int open_mode, const uint8_t *script, size_t len);
/* A ready-made reply script (the seeds), its length; 0 when none fits. */
size_t nl_stub_canned(unsigned int which, uint8_t *out, size_t cap);

#endif
