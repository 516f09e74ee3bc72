// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what the ibtick CLI does with the kernel's replies to
 * IBTICK_CMD_DEV_GET.  The input is the kernel: a script of datagrams for
 * nl_stub.c's fake socket (see the format there), each typically one or
 * more netlink messages (nlmsghdr + genlmsghdr + attributes from the input,
 * headers filled in by the stub), DONE, errors with extended-ACK TLVs,
 * interrupted dumps, receive and send failures, or raw bytes.
 *
 * The CLI runs for real - "ibtick [-j] [-p] [-s [-s]] [-d] dev show [mlx5_0]"
 * through ibtick_main() (main.c compiled with -Dmain=ibtick_main) - so the
 * replies go through libnl's receive loop, nl.c's ibt_nl_call (its
 * on_valid/on_error/on_done handlers, the dump retry loop, genlmsg_parse
 * against dev.c's dev_policy) and dev.c's print_dev/print_port/print_events
 * into out.c's text or JSON printer.
 *
 * Input: byte 0: 0x01 -j, 0x02 -p, 0x04 -s, 0x08 -s again, 0x10 name a
 * device (a doit rather than a dump), 0x20 -d (the port details: GID 0,
 * events; some seeds have it); the rest is the script.
 *
 * Invariants: no crash, no ASan/UBSan/LSan report (reply buffers are
 * exactly as long as the datagram or message, see nl_stub.c), the exit
 * status is 0 or 1, every request the CLI sends is well-formed (nl_stub.c).
 * Output goes to /dev/null (FUZZ_VERBOSE=1 keeps it).
 * FUZZ_SEED_DIR=DIR ./fuzz_nlparse -runs=0 writes a few seed inputs to DIR.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_stub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[11];
	int argc = 0, ret;

	if (!size)
		return 0;
	argv[argc++] = "ibtick";
	if (data[0] & 0x01)
		argv[argc++] = "-j";
	if (data[0] & 0x02)
		argv[argc++] = "-p";
	if (data[0] & 0x04)
		argv[argc++] = "-s";
	if (data[0] & 0x08)
		argv[argc++] = "-s";
	if (data[0] & 0x20)
		argv[argc++] = "-d";
	argv[argc++] = "dev";
	argv[argc++] = "show";
	if (data[0] & 0x10)
		argv[argc++] = "mlx5_0";
	argv[argc] = NULL;

	nl_stub_reset(STUB_OK, data + 1, size - 1);
	optind = 0;		/* GNU getopt: start over */
	ret = ibtick_main(argc, argv);
	fflush(stdout);
	fflush(stderr);
	if (ret != 0 && ret != 1) {
		dprintf(STDERR_FILENO, "fuzz_nlparse: exit status %d\n", ret);
		abort();
	}
	return 0;
}

static void seed(const char *dir, const char *name, uint8_t flags,
		 const uint8_t *script, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&flags, 1, 1, f) != 1 ||
	    fwrite(script, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static uint8_t s[8192];
	const char *dir = getenv("FUZZ_SEED_DIR");
	size_t n;

	(void)argc;
	(void)argv;
	if (dir) {
		n = nl_stub_canned(0, s, sizeof(s));
		seed(dir, "dump-text", 0x00, s, n);
		seed(dir, "dump-json-stats-details", 0x25, s, n);
		n = nl_stub_canned(1, s, sizeof(s));
		seed(dir, "error-extack", 0x10, s, n);
		n = nl_stub_canned(2, s, sizeof(s));
		seed(dir, "dump-intr-pretty-details", 0x23, s, n);
		n = nl_stub_canned(3, s, sizeof(s));
		seed(dir, "doit-ack-stats", 0x1c, s, n);
		n = nl_stub_canned(4, s, sizeof(s));
		seed(dir, "error-extack-uncapped", 0x10, s, n);
		n = nl_stub_canned(0x10, s, sizeof(s));
		seed(dir, "dump-text-enc-details", 0x24, s, n);
		n = nl_stub_canned(0x12, s, sizeof(s));
		seed(dir, "dump-intr-json-enc", 0x01, s, n);
		n = nl_stub_canned(0x13, s, sizeof(s));
		seed(dir, "doit-ack-enc", 0x10, s, n);
		exit(0);
	}
	if (!getenv("FUZZ_VERBOSE")) {
		FILE *null = fopen("/dev/null", "w");

		if (!null || !freopen("/dev/null", "w", stdout))
			abort();
		stderr = null;	/* fd 2 stays for libFuzzer and the sanitizers */
	}
	return 0;
}
