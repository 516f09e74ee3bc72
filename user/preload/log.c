// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libibtick-preload's messages.  IBTICK_LOG=1 (ibtick-run -v) writes what
 * the library decides to stderr; IBTICK_LOG=/path appends it to that file
 * instead.  Errors the user must see (a refused publisher, a bad rule, a
 * missing module) go to stderr always, and to the log file too.  Every
 * line starts with "ibtick-run[PID]: ".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

int pl_verbose;
static int logfd = -1;

void pl_log_open(void)
{
	const char *v = getenv("IBTICK_LOG");

	if (!v || !*v || !strcmp(v, "0"))
		return;
	pl_verbose = 1;
	if (v[0] == '/') {
		logfd = open(v, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (logfd < 0)
			fprintf(stderr, "ibtick-run[%d]: IBTICK_LOG=%s: %s; logging to stderr\n",
				(int)getpid(), v, strerror(errno));
	}
	if (logfd < 0)
		logfd = 2;
}

static void emit(int fd, const char *fmt, va_list ap)
{
	char line[512];
	int n, m;

	n = snprintf(line, sizeof(line), "ibtick-run[%d]: ", (int)getpid());
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (real.write)
		(void)!real.write(fd, line, (size_t)n);
}

void pl_log(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	if (!pl_verbose)
		return;
	va_start(ap, fmt);
	emit(logfd, fmt, ap);
	va_end(ap);
	errno = e;
}

void pl_err(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	emit(2, fmt, ap);
	va_end(ap);
	if (pl_verbose && logfd != 2) {
		va_start(ap, fmt);
		emit(logfd, fmt, ap);
		va_end(ap);
	}
	errno = e;
}

const char *pl_ip(uint32_t addr_be, char *buf)
{
	struct in_addr a = { .s_addr = addr_be };

	return inet_ntop(AF_INET, &a, buf, 16);
}
