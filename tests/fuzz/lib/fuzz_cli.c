// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the ibtick CLI's command line (getopt, the object and
 * verb dispatch of user/ibtick/main.c and dev.c, prefix matching, the
 * request it builds) with a fake kernel under it (nl_stub.c).
 *
 * user/ibtick/main.c is compiled with -Dmain=ibtick_main and called as
 * ibtick_main(argc, argv), once per input, in this process: getopt is reset
 * (optind = 0) before each call.  The CLI does not call exit(); should it
 * ever, the target is linked with -Wl,--wrap=exit and __wrap_exit() below
 * longjmp()s back while the CLI runs (its status is then checked like a
 * return value), and passes through to the real exit() otherwise
 * (libFuzzer's own exits).
 *
 * Input: byte 0 picks the fake kernel: 0-3 the module is there and answers
 * with canned script 0-3 of nl_stub.c (two devices; an error with an
 * extended ACK; an interrupted dump then a good one; one device and an
 * ACK), 4 a socket allocation failure, 5 a connect failure, 6 "module not
 * loaded", 7 the module answers nothing.  The rest, split on NUL bytes, is
 * argv[1..] (at most MAX_ARGS words of at most MAX_ARG bytes; longer ones
 * are cut), each in its own exact-size allocation.
 *
 * Invariants: no crash, no ASan/UBSan/LSan report, the request the CLI
 * sends is well-formed (nl_stub.c aborts otherwise), the exit status is 0,
 * 1 or 2.
 *
 * stdout and stderr (the FILE *s the CLI writes through) go to /dev/null;
 * FUZZ_VERBOSE=1 keeps them.  Sanitizer and libFuzzer reports are not
 * affected (they write to file descriptor 2 directly).
 * FUZZ_SEED_DIR=DIR ./fuzz_cli -runs=0 writes a few seed inputs to DIR.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_stub.h"

#define MAX_ARGS	16
#define MAX_ARG		64
#define CANNED		4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
void __wrap_exit(int status);
void __real_exit(int status) __attribute__((noreturn));

static uint8_t canned[CANNED][8192];
static size_t canned_len[CANNED];

static jmp_buf exit_jb;
static volatile int in_cli;
static volatile int exit_status;

void __wrap_exit(int status)
{
	if (in_cli) {
		exit_status = status;
		longjmp(exit_jb, 1);
	}
	__real_exit(status);
}

/*
 * Commands the fuzzer must not run: stats (sleeps, writes its snapshot
 * file), monitor (waits for events forever), doctor (reads the host, runs
 * ofed_info, sleeps) and -b (reads any file, stdin included).  The object
 * word is matched as main.c's table does, in its order: "s" is sock.
 */
static int unsafe(int argc, char **argv)
{
	static const char *const objs[] = {
		"dev", "feed", "sock", "stats", "monitor", "doctor",
	};
	size_t n, k;
	int i;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (strchr(argv[i], 'b'))
				return 1;
			continue;
		}
		n = strlen(argv[i]);
		for (k = 0; n && k < sizeof(objs) / sizeof(objs[0]); k++)
			if (n <= strlen(objs[k]) && !strncmp(argv[i], objs[k], n))
				return k >= 3;
		return 0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	unsigned int mode;
	int argc = 1, ret, i;
	size_t at = 1;

	if (!size)
		return 0;
	mode = data[0] & 7;
	argv[0] = "ibtick";
	while (at < size && argc <= MAX_ARGS) {
		const uint8_t *w = data + at;
		const uint8_t *nul = memchr(w, 0, size - at);
		size_t n = nul ? (size_t)(nul - w) : size - at;

		at += n + 1;
		if (n > MAX_ARG)
			n = MAX_ARG;
		argv[argc] = malloc(n + 1);
		if (!argv[argc])
			abort();
		memcpy(argv[argc], w, n);
		argv[argc][n] = '\0';
		argc++;
	}
	argv[argc] = NULL;
	if (unsafe(argc, argv))
		goto out;

	if (mode < CANNED)
		nl_stub_reset(STUB_OK, canned[mode], canned_len[mode]);
	else if (mode == 7)
		nl_stub_reset(STUB_OK, NULL, 0);
	else
		nl_stub_reset(mode - CANNED + STUB_NOMEM, NULL, 0);

	optind = 0;		/* GNU getopt: start over, state and all */
	in_cli = 1;
	if (!setjmp(exit_jb))
		ret = ibtick_main(argc, argv);
	else
		ret = exit_status;
	in_cli = 0;
	fflush(stdout);
	fflush(stderr);
	if (ret < 0 || ret > 2) {
		dprintf(STDERR_FILENO, "fuzz_cli: exit status %d is not 0, 1 or 2\n", ret);
		abort();
	}
out:
	for (i = 1; i < argc; i++)
		free(argv[i]);
	return 0;
}

static void seed(const char *dir, const char *name, const char *s, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

#define SEED(name, lit) seed(dir, name, lit, sizeof(lit) - 1)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_SEED_DIR");
	unsigned int i;

	(void)argc;
	(void)argv;
	for (i = 0; i < CANNED; i++) {
		canned_len[i] = nl_stub_canned(i, canned[i], sizeof(canned[i]));
		if (i < 2 && !canned_len[i])
			abort();
	}
	if (dir) {
		SEED("dev-show", "\0dev\0show");
		SEED("dev-json", "\0-j\0dev");
		SEED("dev-pretty-stats", "\0-p\0-s\0-s\0d\0sh\0mlx5_0");
		SEED("dev-named-err", "\1--json\0dev\0list\0nosuch");
		SEED("dev-intr", "\2-s\0dev\0show");
		SEED("dev-doit", "\3--pretty\0dev\0show\0rxe0");
		SEED("no-module", "\6dev\0show");
		SEED("help", "\0help");
		SEED("dev-help", "\0dev\0help");
		SEED("version", "\0--version");
		SEED("bad-opt", "\0-x\0dev");
		SEED("extra", "\0dev\0show\0rxe0\0extra");
		SEED("unknown", "\0foo\0bar");
		exit(0);
	}
	if (!getenv("FUZZ_VERBOSE")) {
		FILE *null = fopen("/dev/null", "w");

		if (!null || !freopen("/dev/null", "w", stdout))
			abort();
		/* fd 2 stays: libFuzzer and the sanitizers report there */
		stderr = null;
	}
	return 0;
}
