/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal userspace unit-test harness: CHECK records a failure with its
 * location and goes on; each test file registers its cases in unit_main.c.
 */
#ifndef IBTICK_UNIT_H
#define IBTICK_UNIT_H

#include <stdio.h>
#include <string.h>

extern int unit_failed_checks;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		unit_failed_checks++;					\
	}								\
} while (0)

#define CHECK_STR(got, want) do {					\
	const char *_g = (got), *_w = (want);				\
	if (strcmp(_g, _w)) {						\
		fprintf(stderr, "  %s:%d: got \"%s\", want \"%s\"\n",	\
			__FILE__, __LINE__, _g, _w);			\
		unit_failed_checks++;					\
	}								\
} while (0)

struct unit_case {
	const char *name;
	void (*fn)(void);
};

extern const struct unit_case out_cases[];
extern const struct unit_case names_cases[];
extern const struct unit_case libibtick_cases[];
extern const struct unit_case latstats_cases[];
extern const struct unit_case tickgen_cases[];
extern const struct unit_case doctor_cases[];
extern const struct unit_case runconf_cases[];
extern const struct unit_case arpparse_cases[];
extern const struct unit_case ring_cases[];
extern const struct unit_case relayarg_cases[];
extern const struct unit_case ibport_cases[];

#endif
