/*
 * test_json_text.c - json_compact() writes exactly what json_dumps(j,
 * JSON_COMPACT) writes: every escape, every UTF-8 length and its edges,
 * text that is not UTF-8, nesting, integers at their ends, keys in their
 * order, values it leaves to the library, and many random values mixing
 * all of them.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "bot/base/jsontext.h"
#include "games/game.h"
#include "games/strbuf.h"

/* Both texts of j are equal (or both NULL). */
static void same(const json_t *j)
{
	char *want = json_dumps(j, JSON_COMPACT), *got = json_compact(j);

	if (!want || !got) {
		assert_null(want);
		assert_null(got);
	} else {
		assert_string_equal(got, want);
	}
	free(want);
	free(got);
}

/* An object holding the string s (n bytes, taken as they are) under a key of the same bytes too. */
static void same_string(const char *s, size_t n)
{
	json_t *o = json_object(), *a = json_array();
	char key[64];

	json_array_append_new(a, json_stringn_nocheck(s, n));
	json_object_set_new(o, "s", json_stringn_nocheck(s, n));
	json_object_set_new(o, "a", a);
	snprintf(key, sizeof(key), "%.*s", (int)(n < 60 ? n : 60), s);
	if (strlen(key) == (n < 60 ? n : 60))
		json_object_set_new_nocheck(o, key, json_true());
	same(o);
	json_decref(o);
}

static void test_every_byte_and_escape(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++) {
		char s[4] = { 'a', (char)c, 'b', 0 };

		same_string(s, 3);
		same_string(s + 1, 1);
	}
	same_string("\"\\/\b\f\n\r\t\x01\x1f\x7f", 11);
	same_string("with a\0nul", 10);
	same_string("", 0);
}

static void test_utf8_lengths_and_edges(void **state)
{
	static const char *const valid[] = {
		"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf",
		"\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xe2\x80\xa8", "\xe2\x94\x80 box \xf0\x9f\x8e\xb2",
		"\xe0\xa4\xa8\xe0\xa5\x87\xe0\xa4\xaa\xe0\xa4\xbe\xe0\xa4\xb2\xe0\xa5\x80",
	};
	static const char *const invalid[] = {
		"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xc2\x41", "\xe0\x80\x80", "\xe0\x9f\xbf",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xef\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe", "ok\xe2\x94",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		same_string(valid[i], strlen(valid[i]));
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		same_string(invalid[i], strlen(invalid[i]));
}

static void test_values_and_nesting(void **state)
{
	json_t *deep = json_array(), *at = deep, *o;

	(void)state;
	o = json_pack("{s:i, s:I, s:I, s:I, s:n, s:b, s:b, s:[], s:{}, s:[i,[i,{s:s}]]}", "z", 0, "max",
		      (json_int_t)LLONG_MAX, "min", (json_int_t)LLONG_MIN, "neg", (json_int_t)-42, "null",
		      "t", 1, "f", 0, "ea", "eo", "nest", 1, 2, "k", "v");
	/* keys in the order they were set, not sorted */
	json_object_set_new(o, "a-last", json_integer(7));
	same(o);
	json_object_del(o, "z");
	json_object_set_new(o, "z", json_integer(1));
	same(o);
	/* a real: the library's own digits */
	json_object_set_new(o, "r", json_real(0.1));
	same(o);
	json_decref(o);
	/* not an object or array: NULL from both */
	o = json_string("top");
	same(o);
	json_decref(o);
	o = json_integer(3);
	same(o);
	json_decref(o);
	same(NULL);
	/* nesting past where this writes itself */
	for (int i = 0; i < 100; i++) {
		json_t *next = json_array();

		json_array_append_new(at, next);
		at = next;
		if (i == 50)
			same(deep);
	}
	same(deep);
	json_decref(deep);
}

/* A random value of depth at most d, from bytes chosen to hit every case above. */
static json_t *random_value(unsigned *seed, int d)
{
	static const char *const pieces[] = { "a", "\"", "\\", "\n", "\x01", "\xe2\x94\x80", "\xf0\x9f\x8e\xb2",
					      "\xc3\xa9", "\x80", "\xed\xa0\x80", " ", "<pre>", "/" };
	int kind = (int)(rand_r(seed) % (d > 0 ? 7 : 4));
	json_t *v;

	if (kind == 0)
		return json_integer((json_int_t)rand_r(seed) - RAND_MAX / 2);
	if (kind == 1)
		return rand_r(seed) % 2 ? json_true() : json_null();
	if (kind <= 3) {
		char s[256] = "";
		size_t n = 0;
		int parts = (int)(rand_r(seed) % 12);

		for (int i = 0; i < parts; i++) {
			const char *p = pieces[rand_r(seed) % (sizeof(pieces) / sizeof(pieces[0]))];

			/* mostly valid text: an invalid piece now and then */
			if ((p[0] == '\x80' || p[0] == '\xed') && rand_r(seed) % 8)
				p = "x";
			memcpy(s + n, p, strlen(p));
			n += strlen(p);
		}
		return json_stringn_nocheck(s, n);
	}
	v = kind == 4 ? json_array() : json_object();
	for (int i = (int)(rand_r(seed) % 5); i > 0; i--) {
		char key[16];

		snprintf(key, sizeof(key), "k%u", rand_r(seed) % 100);
		if (json_is_array(v))
			json_array_append_new(v, random_value(seed, d - 1));
		else
			json_object_set_new(v, key, random_value(seed, d - 1));
	}
	return v;
}

static void test_random_values(void **state)
{
	unsigned seed = 2024;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		json_t *v = json_object();

		json_object_set_new(v, "v", random_value(&seed, 4));
		same(v);
		json_decref(v);
	}
}

/*
 * A game's state written as text directly (gb_state_text()) is byte for
 * byte json_compact(gb_state_json()): every position of 300 Ludo games of
 * two to four players, under every combination of its house rules.
 */
static void test_state_text_is_the_json_text(void **state)
{
	const struct gb_game *g = gb_game_find("ludo");
	void *st;
	int positions = 0;

	(void)state;
	assert_non_null(g);
	assert_non_null(g->to_text);
	st = malloc(g->state_size);
	assert_non_null(st);
	for (int game = 0; game < 300; game++) {
		struct gb_setup su;

		gb_setup_init(&su, g);
		su.players = 2 + game % 3;
		su.seed = 1000 + (uint64_t)game;
		for (int i = 0; i < g->nrules; i++)
			su.rules.v[i] = (game >> i) % 2 && g->rules[i].values[1] ? 1 : 0;
		assert_int_equal(g->init(st, &su), GB_OK);
		for (int step = 0; step < 2000; step++) {
			struct gb_action acts[GB_MAX_LEGAL];
			struct strbuf sb = { 0 };
			json_t *j = gb_state_json(g, st);
			char *want = json_compact(j);
			int n;

			sb_add(&sb, "x"); /* appended to what is there */
			assert_true(gb_state_text(g, st, &sb));
			assert_non_null(want);
			assert_string_equal(sb_str(&sb) + 1, want);
			positions++;
			free(want);
			json_decref(j);
			sb_release(&sb);
			n = g->turn(st) < 0 ? 0 : g->legal(st, acts);
			if (n <= 0)
				break;
			assert_int_equal(g->apply(st, &acts[(unsigned)(step * 7 + game) % (unsigned)n], NULL), GB_OK);
		}
	}
	assert_true(positions > 10000);
	free(st);
}

/* A game without to_text(): false, and the text as it was. */
static void test_state_text_without_the_hook(void **state)
{
	const struct gb_game *g = gb_game_find("callbreak");
	struct gb_setup su;
	struct strbuf sb = { 0 };
	void *st;

	(void)state;
	assert_non_null(g);
	assert_null(g->to_text);
	st = malloc(g->state_size);
	assert_non_null(st);
	gb_setup_init(&su, g);
	su.players = 4;
	su.seed = 7;
	assert_int_equal(g->init(st, &su), GB_OK);
	sb_add(&sb, "kept");
	assert_false(gb_state_text(g, st, &sb));
	assert_string_equal(sb_str(&sb), "kept");
	sb_release(&sb);
	free(st);
}

/* Strings that need an escape are refused, integers written as jansson writes them. */
static void test_text_pieces(void **state)
{
	struct strbuf sb = { 0 };
	const long long ints[] = { 0, 7, -1, 10, -10, 123456789, LLONG_MAX, LLONG_MIN };

	(void)state;
	assert_true(gb_text_str(&sb, "plain text 0-9 ~"));
	assert_false(gb_text_str(&sb, "a \"quote\""));
	assert_false(gb_text_str(&sb, "back\\slash"));
	assert_false(gb_text_str(&sb, "tab\there"));
	assert_false(gb_text_str(&sb, "\xe0\xa4\x95")); /* not ASCII */
	assert_string_equal(sb_str(&sb), "\"plain text 0-9 ~\"");
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		json_t *j = json_integer(ints[i]);
		char *want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

		sb_release(&sb);
		gb_text_int(&sb, ints[i]);
		assert_string_equal(sb_str(&sb), want);
		free(want);
		json_decref(j);
	}
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_byte_and_escape),
		cmocka_unit_test(test_utf8_lengths_and_edges),
		cmocka_unit_test(test_values_and_nesting),
		cmocka_unit_test(test_random_values),
		cmocka_unit_test(test_state_text_is_the_json_text),
		cmocka_unit_test(test_state_text_without_the_hook),
		cmocka_unit_test(test_text_pieces),
	};

	return cmocka_run_group_tests_name("json text", tests, NULL, NULL);
}
