// SPDX-License-Identifier: GPL-2.0
/*
 * ibtick-run: run a program with libibtick-preload.so, so that the UDP
 * multicast groups of its configuration go over ibtick (ibtick-run(8)).
 *
 *   ibtick-run [-g GROUP:PORT@IFNAME]... [-f CONFIG] [-b USEC] [-v] -- CMD [ARGS...]
 *
 * It reads the configuration file and the -g rules, tells the user once
 * what is wrong with them (bad rules, unknown interfaces, the module not
 * loaded), and execs CMD with LD_PRELOAD and IBTICK_RUN_GROUPS holding the
 * usable rules: the environment carries them to every process CMD starts.
 * With nothing usable CMD runs without the library, on kernel UDP.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runconf.h"

#ifndef PRELOAD_PATH
#define PRELOAD_PATH "/usr/local/lib/ibtick/libibtick-preload.so"
#endif
#define DEFAULT_CONF	"/etc/ibtick/run.conf"
#define FAMILY_PARAM	"/sys/module/ibtick/parameters/family"

static struct runconf conf;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ibtick-run [-g GROUP[/LEN]:PORT[-PORT]@IFNAME]... [-f CONFIG] [-b USEC [-p]] [-K] [-v] -- CMD [ARGS...]\n"
		"  -g RULE    carry this group over ibtick (repeatable; added to CONFIG's)\n"
		"  -f CONFIG  configuration file (default " DEFAULT_CONF ", if it exists)\n"
		"  -b USEC    busy polling: the program's reads drain the CQ, spinning up to USEC\n"
		"             before they sleep (SO_BUSY_POLL; CAP_NET_ADMIN)\n"
		"  -p         with -b: the CQ event stays off while the program keeps reading\n"
		"             (SO_PREFER_BUSY_POLL; for a program that owns its CPU)\n"
		"  -K         every tick through the kernel (recvmsg), none read from the\n"
		"             feeds' mapped rings by the library\n"
		"  -v         the library logs what it takes over and why it leaves the rest\n"
		"  -V         print the version\n");
}

static void report(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "ibtick-run: %s: rule ignored\n", msg);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	int c;

	if (!f)
		return NULL;
	/* small files: a configuration of at most RUNCONF_MAX_RULES lines */
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	c = ferror(f);
	fclose(f);
	if (c) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int module_loaded(void)
{
	return access(FAMILY_PARAM, R_OK) == 0;
}

/* The library: $IBTICK_PRELOAD, else next to this program (a build tree),
 * else where make install put it. */
static const char *preload_path(void)
{
	static char here[PATH_MAX + 32];
	const char *e = getenv("IBTICK_PRELOAD");
	ssize_t n;

	if (e && *e)
		return e;
	n = readlink("/proc/self/exe", here, PATH_MAX);
	if (n > 0) {
		here[n] = '\0';
		dirname(here);
		strcat(here, "/libibtick-preload.so");
		if (!access(here, R_OK))
			return here;
	}
	return PRELOAD_PATH;
}

/* -b's argument: microseconds, 0..1000000 */
static int usec_ok(const char *s)
{
	char *end;
	long us;

	errno = 0;
	us = strtol(s, &end, 10);
	return *s && !*end && !errno && us >= 0 && us <= 1000000;
}

static void run_plain(char **cmd, const char *why)
{
	fprintf(stderr, "ibtick-run: %s: %s runs on kernel UDP\n", why, cmd[0]);
	unsetenv("IBTICK_RUN_GROUPS");
	unsetenv("IBTICK_RUN_CONF");
	execvp(cmd[0], cmd);
	fprintf(stderr, "ibtick-run: %s: %s\n", cmd[0], strerror(errno));
	exit(errno == ENOENT ? 127 : 126);
}

int main(int argc, char **argv)
{
	const char *file = NULL, *lib, *busy = NULL, *busy_on;
	char *text, *groups, *pre;
	size_t glen = 0, gcap = 0;
	int c, i, verbose = 0, usable = 0, prefer = 0, kernel_only = 0;

	while ((c = getopt(argc, argv, "+g:f:b:pKvhV")) != -1) {
		switch (c) {
		case 'g':
			runconf_parse(&conf, optarg, "-g", report, NULL);
			break;
		case 'f':
			file = optarg;
			break;
		case 'b':
			if (!usec_ok(optarg)) {
				fprintf(stderr, "ibtick-run: -b %s: microseconds, 0..1000000\n", optarg);
				return 2;
			}
			busy = optarg;
			break;
		case 'p':
			prefer = 1;
			break;
		case 'K':
			kernel_only = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("ibtick-run %s\n", IBTICK_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* what the library would take from the environment, checked as -b */
	if (!busy && getenv("IBTICK_BUSY_POLL") && !usec_ok(getenv("IBTICK_BUSY_POLL"))) {
		fprintf(stderr, "ibtick-run: IBTICK_BUSY_POLL=%s: microseconds, 0..1000000\n",
			getenv("IBTICK_BUSY_POLL"));
		return 2;
	}
	/* busy polling that is on, from -b or (checked above) inherited */
	busy_on = busy ? busy : getenv("IBTICK_BUSY_POLL");
	if (prefer && (!busy_on || atoi(busy_on) <= 0)) {
		fprintf(stderr, "ibtick-run: -p goes with -b USEC, USEC > 0 (it changes what busy polling does)\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "ibtick-run: no command to run\n");
		usage(stderr);
		return 2;
	}
	text = slurp(file ? file : DEFAULT_CONF);
	if (text) {
		runconf_parse(&conf, text, file ? file : DEFAULT_CONF, report, NULL);
		free(text);
	} else if (file || errno != ENOENT) {
		fprintf(stderr, "ibtick-run: %s: %s\n", file ? file : DEFAULT_CONF, strerror(errno));
		return 2;
	}

	groups = NULL;
	for (i = 0; i < conf.n; i++) {
		struct runconf_rule *r = &conf.rule[i];
		char w[128];
		int n;

		runconf_format(r, w, sizeof(w));
		if (r->ifname[0] && !if_nametoindex(r->ifname)) {
			fprintf(stderr, "ibtick-run: %s: no network interface %s: rule ignored\n",
				w, r->ifname);
			continue;
		}
		n = (int)strlen(w);
		if (glen + (size_t)n + 2 > gcap) {
			gcap = (gcap + (size_t)n + 2) * 2;
			groups = realloc(groups, gcap);
			if (!groups) {
				perror("ibtick-run");
				return 1;
			}
		}
		memcpy(groups + glen, w, (size_t)n);
		glen += (size_t)n;
		groups[glen++] = ' ';
		groups[glen] = '\0';
		usable++;
		if (verbose)
			fprintf(stderr, "ibtick-run: over ibtick: %s\n", w);
	}
	if (!usable)
		run_plain(argv + optind, "no group to carry over ibtick");
	if (!module_loaded())
		run_plain(argv + optind, "the ibtick module is not loaded (modprobe ibtick)");
	lib = preload_path();
	if (access(lib, R_OK))
		run_plain(argv + optind, "cannot read libibtick-preload.so");

	groups[glen - 1] = '\0';
	setenv("IBTICK_RUN_GROUPS", groups, 1);
	setenv("IBTICK_RUN_CHECKED", "1", 1);
	unsetenv("IBTICK_RUN_CONF");
	if (busy)
		setenv("IBTICK_BUSY_POLL", busy, 1);
	if (prefer)
		setenv("IBTICK_PREFER_BUSY_POLL", "1", 1);
	if (kernel_only)
		setenv("IBTICK_RING", "0", 1);
	if (verbose && !getenv("IBTICK_LOG"))
		setenv("IBTICK_LOG", "1", 1);
	pre = getenv("LD_PRELOAD");
	if (pre && *pre) {
		char *both = malloc(strlen(lib) + strlen(pre) + 2);

		if (!both) {
			perror("ibtick-run");
			return 1;
		}
		sprintf(both, "%s %s", lib, pre);
		setenv("LD_PRELOAD", both, 1);
		free(both);
	} else {
		setenv("LD_PRELOAD", lib, 1);
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "ibtick-run: %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
