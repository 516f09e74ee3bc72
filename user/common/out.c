// SPDX-License-Identifier: GPL-2.0
/*
 * Text/JSON printer (see out.h).  A small state machine: a stack of open
 * containers, each remembering whether it already holds a member (for the
 * commas) and whether it is an array (members have no key).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "out.h"

#define OUT_DEPTH 16

/*
 * The text formats are passed through (always literals at the call sites,
 * one value each); -Wformat-nonliteral cannot see that.
 */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static FILE *out_f;
static enum out_mode out_m;
static int depth;
static bool has_member[OUT_DEPTH];
static bool is_array[OUT_DEPTH];
static bool started;

void out_init(FILE *f, enum out_mode mode)
{
	out_f = f;
	out_m = mode;
	depth = 0;
	started = false;
	memset(has_member, 0, sizeof(has_member));
}

bool out_json(void)
{
	return out_m != OUT_TEXT;
}

void out_json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void indent(void)
{
	int i;

	if (out_m != OUT_JSON_PRETTY)
		return;
	fputc('\n', out_f);
	for (i = 0; i < depth; i++)
		fputs("  ", out_f);
}

/* Separator and key before a new member of the current container. */
static void member(const char *key)
{
	if (depth > 0) {
		if (has_member[depth - 1])
			fputc(',', out_f);
		has_member[depth - 1] = true;
		indent();
		if (!is_array[depth - 1] && key) {
			out_json_escape(out_f, key);
			fputs(out_m == OUT_JSON_PRETTY ? ": " : ":", out_f);
		}
	} else if (started) {
		/* several top-level values: one per line (JSON lines) */
		fputc('\n', out_f);
	}
	started = true;
}

static void open_container(const char *key, char c, bool array)
{
	if (!out_json())
		return;
	member(key);
	fputc(c, out_f);
	if (depth < OUT_DEPTH) {
		has_member[depth] = false;
		is_array[depth] = array;
	}
	depth++;
}

static void close_container(char c)
{
	if (!out_json() || depth == 0)
		return;
	depth--;
	if (depth < OUT_DEPTH && has_member[depth]) {
		indent();
	}
	fputc(c, out_f);
}

void out_obj_open(const char *key)
{
	open_container(key, '{', false);
}

void out_obj_close(void)
{
	close_container('}');
}

void out_arr_open(const char *key)
{
	open_container(key, '[', true);
}

void out_arr_close(void)
{
	close_container(']');
}

void out_str(const char *key, const char *fmt, const char *val)
{
	if (out_json()) {
		member(key);
		out_json_escape(out_f, val ? val : "");
	} else if (fmt) {
		fprintf(out_f, fmt, val ? val : "");
	}
}

void out_u64(const char *key, const char *fmt, uint64_t val)
{
	if (out_json()) {
		member(key);
		fprintf(out_f, "%" PRIu64, val);
	} else if (fmt) {
		fprintf(out_f, fmt, val);
	}
}

void out_counter(const char *key, uint64_t val)
{
	if (out_json()) {
		member(key);
		fprintf(out_f, "%" PRIu64, val);
	} else {
		fprintf(out_f, " %s %" PRIu64, key, val);
	}
}

void out_bool(const char *key, const char *fmt, bool val)
{
	if (out_json()) {
		member(key);
		fputs(val ? "true" : "false", out_f);
	} else if (fmt) {
		fprintf(out_f, fmt, val ? "true" : "false");
	}
}

void out_null(const char *key, const char *fmt)
{
	if (out_json()) {
		member(key);
		fputs("null", out_f);
	} else if (fmt) {
		fputs(fmt, out_f);
	}
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (out_json())
		return;
	va_start(ap, fmt);
	vfprintf(out_f, fmt, ap);
	va_end(ap);
}

void out_nl(void)
{
	if (!out_json())
		fputc('\n', out_f);
}

void out_finish(void)
{
	if (out_json() && started)
		fputc('\n', out_f);
	fflush(out_f);
}
