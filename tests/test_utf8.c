/*
 * test_utf8.c - the shared UTF-8 code: validity as RFC 3629 (and jansson)
 * define it, lenient decoding for display, cutting between characters, and
 * strbuf's cleaning append — checked against a naive reference over every
 * two-byte and many three- and four-byte sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/strbuf.h"
#include "games/utf8.h"

/* Reference: encode cp the textbook way; 0 for surrogates and out of range. */
static size_t encode(uint32_t cp, unsigned char *out)
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp <= 0x10ffff) {
		out[0] = (unsigned char)(0xf0 | cp >> 18);
		out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[3] = (unsigned char)(0x80 | (cp & 0x3f));
		return 4;
	}
	return 0;
}

static void test_every_scalar_value_round_trips(void **state)
{
	(void)state;
	for (uint32_t cp = 1; cp <= 0x10ffff; cp += cp < 0x3000 ? 1 : 97) {
		unsigned char buf[8] = { 0 };
		size_t n = encode(cp, buf);
		uint32_t back = 0;

		if (!n)
			continue;
		assert_int_equal(utf8_char_len((const char *)buf), n);
		assert_true(utf8_valid((const char *)buf));
		assert_int_equal(utf8_decode((const char *)buf, &back), n);
		assert_int_equal(back, cp);
	}
}

static void test_every_two_byte_sequence_matches_reference(void **state)
{
	(void)state;
	for (int a = 0x80; a < 0x100; a++) {
		for (int b = 0x01; b < 0x100; b++) {
			char s[3] = { (char)a, (char)b, 0 };
			/* valid exactly when a two-byte encoding of U+0080..U+07FF */
			bool want = a >= 0xc2 && a <= 0xdf && (b & 0xc0) == 0x80;

			assert_int_equal(utf8_valid(s), want);
		}
	}
}

static void test_invalid_forms_refused(void **state)
{
	static const char *const bad[] = {
		"\xc0\xaf",             /* overlong '/' */
		"\xe0\x80\xaf",         /* overlong */
		"\xed\xa0\x80",         /* a surrogate */
		"\xf4\x90\x80\x80",     /* past U+10FFFF */
		"\xf5\x80\x80\x80",
		"\xe0\xa4",             /* cut short */
		"\x80",                 /* a lone continuation byte */
		"ab\xff",
	};
	uint32_t cp;
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(utf8_valid(bad[i]));
		assert_false(utf8_valid_len(bad[i], &len));
	}
	/* a valid text's length, ASCII runs and characters of each length alike */
	assert_true(utf8_valid_len("ab\xc3\xa9" "cd\xe0\xa4\x95\xf0\x9f\x8e\xb2" "e", &len));
	assert_int_equal(len, 14);
	assert_true(utf8_valid_len("", &len));
	assert_int_equal(len, 0);
	/* decoding for display shows U+FFFD and moves one byte on */
	assert_int_equal(utf8_decode("\xc0\xaf", &cp), 1);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(utf8_decode("\xe0\xa4", &cp), 1);
	assert_int_equal(cp, 0xfffd);
}

static void test_cut_between_characters(void **state)
{
	const char *s = "aक्ख";   /* 1 + 3 + 3 + 3 bytes */
	char buf[8];

	(void)state;
	assert_int_equal(utf8_cut(s, strlen(s), 100), strlen(s));
	assert_int_equal(utf8_cut(s, strlen(s), 1), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 2), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 3), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 4), 4);
	assert_int_equal(utf8_cut(s, strlen(s), 6), 4);
	utf8_copy(buf, sizeof(buf), s, strlen(s));
	assert_string_equal(buf, "aक्");
	assert_true(utf8_valid(buf));
	utf8_copy(buf, 1, s, strlen(s));
	assert_string_equal(buf, "");
}

static void test_strbuf_add_utf8_cleans(void **state)
{
	struct strbuf sb = { 0 };

	(void)state;
	sb_add_utf8(&sb, "ok \xff नेपाल \xc0\xaf!");
	assert_true(utf8_valid(sb_str(&sb)));
	assert_string_equal(sb_str(&sb), "ok \xef\xbf\xbd नेपाल \xef\xbf\xbd\xef\xbf\xbd!");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_scalar_value_round_trips),
		cmocka_unit_test(test_every_two_byte_sequence_matches_reference),
		cmocka_unit_test(test_invalid_forms_refused),
		cmocka_unit_test(test_cut_between_characters),
		cmocka_unit_test(test_strbuf_add_utf8_cleans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
