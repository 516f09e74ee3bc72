// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every userspace unit case; prints "ok"/"not ok" per case and ends with
 * "unit: N passed, N failed".  Exit status 1 on any failure.
 */
#include "unit.h"

int unit_failed_checks;

static const struct unit_case *const suites[] = {
	out_cases,
	names_cases,
	libibtick_cases,
	latstats_cases,
	tickgen_cases,
	doctor_cases,
	runconf_cases,
	arpparse_cases,
	ring_cases,
	relayarg_cases,
	ibport_cases,
};

int main(void)
{
	int passed = 0, failed = 0;
	size_t s;

	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct unit_case *c;

		for (c = suites[s]; c->name; c++) {
			int before = unit_failed_checks;

			c->fn();
			if (unit_failed_checks == before) {
				printf("ok - %s\n", c->name);
				passed++;
			} else {
				printf("not ok - %s\n", c->name);
				failed++;
			}
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
