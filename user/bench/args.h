/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line numbers for the tools: the whole argument a number in a
 * range, or a message naming the program and exit status 2 (usage).
 */
#ifndef IBTICK_ARGS_H
#define IBTICK_ARGS_H

/* @arg as a number (decimal, 0x hex, 0 octal) in [@min, @max]; else exit 2. */
long arg_num(const char *prog, const char *arg, long min, long max);

#endif
