/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print path for text and JSON (iproute2's print_*(PRINT_ANY, ...) idea).
 *
 * Every value is given once with its JSON key and its text format; in text
 * mode the format is printed (NULL: nothing), in JSON mode the key/value pair.
 * Objects and arrays nest; out_nl() ends a text line and is a no-op in JSON.
 */
#ifndef IBTICK_OUT_H
#define IBTICK_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum out_mode {
	OUT_TEXT,
	OUT_JSON,
	OUT_JSON_PRETTY,
};

void out_init(FILE *f, enum out_mode mode);
bool out_json(void);
/* Open an object or array; @key is NULL inside arrays and at the top. */
void out_obj_open(const char *key);
void out_obj_close(void);
void out_arr_open(const char *key);
void out_arr_close(void);
void out_str(const char *key, const char *fmt, const char *val);
void out_u64(const char *key, const char *fmt, uint64_t val);
/* A counter: " KEY VALUE" in text, "KEY": VALUE in JSON. */
void out_counter(const char *key, uint64_t val);
void out_bool(const char *key, const char *fmt, bool val);
void out_null(const char *key, const char *fmt);
/* Text-only output (separators, labels). */
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_nl(void);
/* Ends the document (JSON: final newline) and flushes. */
void out_finish(void);

/* JSON string escaping into @f, quotes included (exposed for tests). */
void out_json_escape(FILE *f, const char *s);

#endif
