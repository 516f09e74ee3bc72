// SPDX-License-Identifier: GPL-2.0
/*
 * The text/JSON printer: the same calls give the text line or valid JSON.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "out.h"
#include "unit.h"

/* Runs @emit with output captured into a string (freed by the caller). */
static char *capture(enum out_mode mode, void (*emit)(void))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_init(f, mode);
	emit();
	out_finish();
	fclose(f);
	return buf;
}

static void emit_dev(void)
{
	out_arr_open(NULL);
	out_obj_open(NULL);
	out_u64("ifindex", "%" PRIu64 ": ", 3);
	out_str("ifname", "%s:", "rxe0");
	out_arr_open("ports");
	out_obj_open(NULL);
	out_u64("port", " port %" PRIu64, 1);
	out_bool("up", " up %s", true);
	out_obj_close();
	out_arr_close();
	out_obj_close();
	out_nl();
	out_arr_close();
}

static void out_text_mode(void)
{
	char *s = capture(OUT_TEXT, emit_dev);

	CHECK_STR(s, "3: rxe0: port 1 up true\n");
	free(s);
}

static void out_json_mode(void)
{
	char *s = capture(OUT_JSON, emit_dev);

	CHECK_STR(s, "[{\"ifindex\":3,\"ifname\":\"rxe0\","
		     "\"ports\":[{\"port\":1,\"up\":true}]}]\n");
	free(s);
}

static void out_json_pretty(void)
{
	char *s = capture(OUT_JSON_PRETTY, emit_dev);

	CHECK_STR(s, "[\n  {\n    \"ifindex\": 3,\n    \"ifname\": \"rxe0\",\n"
		     "    \"ports\": [\n      {\n        \"port\": 1,\n"
		     "        \"up\": true\n      }\n    ]\n  }\n]\n");
	free(s);
}

static void emit_empty(void)
{
	out_arr_open(NULL);
	out_arr_close();
}

static void out_json_empty(void)
{
	char *s = capture(OUT_JSON, emit_empty);

	CHECK_STR(s, "[]\n");
	free(s);
	s = capture(OUT_JSON_PRETTY, emit_empty);
	CHECK_STR(s, "[]\n");
	free(s);
}

static void out_escape(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	out_json_escape(f, "a\"b\\c\nd\x01" "e\t");
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\nd\\u0001e\\t\"");
	free(buf);
}

static void emit_lines(void)
{
	out_obj_open(NULL);
	out_u64("a", NULL, 1);
	out_obj_close();
	out_obj_open(NULL);
	out_null("b", NULL);
	out_obj_close();
}

static void out_json_lines(void)
{
	char *s = capture(OUT_JSON, emit_lines);

	/* several top-level values: one JSON document per line */
	CHECK_STR(s, "{\"a\":1}\n{\"b\":null}\n");
	free(s);
}

static void emit_counters(void)
{
	out_obj_open(NULL);
	out_str("name", "%s:", "f1");
	out_obj_open("counters");
	out_counter("rx_ticks", 12);
	out_counter("odd%s_key", 0);
	out_obj_close();
	out_obj_close();
	out_nl();
}

static void out_counters(void)
{
	char *s = capture(OUT_TEXT, emit_counters);

	/* the key is printed as it is, never read as a format */
	CHECK_STR(s, "f1: rx_ticks 12 odd%s_key 0\n");
	free(s);
	s = capture(OUT_JSON, emit_counters);
	CHECK_STR(s, "{\"name\":\"f1\",\"counters\":{\"rx_ticks\":12,"
		     "\"odd%s_key\":0}}\n");
	free(s);
}

const struct unit_case out_cases[] = {
	{ "out: text mode", out_text_mode },
	{ "out: json mode", out_json_mode },
	{ "out: json pretty", out_json_pretty },
	{ "out: empty array", out_json_empty },
	{ "out: string escaping", out_escape },
	{ "out: json lines", out_json_lines },
	{ "out: counters", out_counters },
	{ NULL }
};
