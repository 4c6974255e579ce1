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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/base/log.h"
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
	const char *s = "aक्ख";   /* 1 + 3 + 3 + 3 bytes: a, then one conjunct */
	const char *e = "éé";     /* 2 + 2 bytes */
	char buf[8];

	(void)state;
	assert_int_equal(utf8_cut(s, strlen(s), 100), strlen(s));
	assert_int_equal(utf8_cut(e, strlen(e), 1), 0);
	assert_int_equal(utf8_cut(e, strlen(e), 2), 2);
	assert_int_equal(utf8_cut(e, strlen(e), 3), 2);
	/* the conjunct stays whole: no dangling virama */
	assert_int_equal(utf8_cut(s, strlen(s), 1), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 4), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 9), 1);
	assert_int_equal(utf8_cut(s, strlen(s), 10), 10);
	utf8_copy(buf, sizeof(buf), s, strlen(s));
	assert_string_equal(buf, "a");
	assert_true(utf8_valid(buf));
	utf8_copy(buf, 1, s, strlen(s));
	assert_string_equal(buf, "");
}

/* Encode the code points of a graphemes.txt line into buf; breaks[i] is 1 where a ÷ stands before byte i. */
static size_t parse_breaks(const char *line, char *buf, size_t cap, char *breaks)
{
	size_t len = 0;
	const char *p = line;

	memset(breaks, 0, cap + 1);
	while (*p && *p != '#') {
		if (strncmp(p, "÷", strlen("÷")) == 0) {
			breaks[len] = 1;
			p += strlen("÷");
		} else if (strncmp(p, "×", strlen("×")) == 0) {
			p += strlen("×");
		} else if ((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'F')) {
			char *end;
			unsigned long cp = strtoul(p, &end, 16);
			unsigned char enc[4];
			size_t n = encode((uint32_t)cp, enc);

			assert_true(n > 0 && len + n < cap);
			memcpy(buf + len, enc, n);
			len += n;
			p = end;
		} else {
			p++;
		}
	}
	buf[len] = '\0';
	return len;
}

/* Every case of tests/data/graphemes.txt: utf8_grapheme_len() breaks where the ÷ stand, nowhere else. */
static void test_grapheme_breaks(void **state)
{
	const char *src = getenv("GAMEBOT_SRC");
	char path[1024], line[1024], buf[256], want[257], got[257];
	FILE *f;
	int cases = 0, lineno = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/graphemes.txt", src ? src : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t len, at = 0;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		len = parse_breaks(line, buf, sizeof(buf) - 1, want);
		memset(got, 0, sizeof(got));
		got[0] = 1;
		while (at < len) {
			at += utf8_grapheme_len(buf + at, len - at);
			got[at] = 1;
		}
		for (size_t i = 0; i <= len; i++)
			if (got[i] != want[i])
				fail_msg("graphemes.txt:%d: %s at byte %zu: %s", lineno,
					 want[i] ? "no break" : "a break", i, line);
		cases++;
	}
	fclose(f);
	assert_true(cases >= 40);
}

/* Names cut to a byte limit keep whole clusters: emoji sequences, flags, conjuncts. */
static void test_cut_keeps_clusters(void **state)
{
	static const char family[] = "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
				     "\xf0\x9f\x91\xa7\xe2\x80\x8d\xf0\x9f\x91\xa6"; /* 25 bytes */
	char name[128], buf[64];
	size_t keep;

	(void)state;
	/* "Ram " and three families: 4 + 75 bytes, cut to a 64-byte field */
	snprintf(name, sizeof(name), "Ram %s%s%s", family, family, family);
	utf8_copy(buf, sizeof(buf), name, strlen(name));
	assert_int_equal(strlen(buf), 4 + 2 * 25);
	/* every cut between 4 and 79 bytes ends after a whole family */
	for (size_t max = 4; max < strlen(name); max++) {
		keep = utf8_cut(name, strlen(name), max);
		assert_int_equal((keep - 4) % 25, 0);
	}
	/* a flag is two letters, never one */
	assert_int_equal(utf8_cut("x\xf0\x9f\x87\xb3\xf0\x9f\x87\xb5", 9, 7), 1);
	/* a skin tone stays with its hand */
	assert_int_equal(utf8_cut("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbb\xf0\x9f\x91\x8d", 12, 10), 8);
	/* UTF-16 units: the family is 11; a cut at 15 keeps one family, not a man and a woman */
	snprintf(name, sizeof(name), "%s%s", family, family);
	assert_int_equal(utf8_cut_utf16(name, 15), 25);
	assert_int_equal(utf8_cut_utf16(name, 22), 50);
	/* a lone cluster longer than the limit (a letter under hundreds of marks) is cut between characters */
	memset(name, 0, sizeof(name));
	name[0] = 'a';
	for (int i = 0; i < 40; i++)
		memcpy(name + 1 + 2 * i, "\xcc\x88", 2);
	assert_int_equal(utf8_cut(name, strlen(name), 10), 9);
	assert_int_equal(utf8_cut_utf16(name, 5), 9);
}

/* A log line cut to its length ends after a whole character (here a conjunct with its vowel sign). */
static void test_log_line_cut_whole(void **state)
{
	char path[] = "/tmp/gamebot-utf8-log-XXXXXX", msg[3000] = "", text[4096];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t got;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	/* क्षि (12 bytes) over and over: any cut by bytes or by code points splits one */
	for (int off = 0; off < 12; off++) {
		memset(msg, 'x', (size_t)off);
		msg[off] = '\0';
		while (strlen(msg) + 12 < sizeof(msg))
			strcat(msg, "क्षि");
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		dup2(fd, STDERR_FILENO);
		gb_log("%s", msg);
		dup2(saved, STDERR_FILENO);
		got = pread(fd, text, sizeof(text) - 1, 0);
		assert_true(got > 0);
		text[got] = '\0';
		assert_true(utf8_valid(text));
		/* the line ends "क्षि\n" */
		assert_non_null(strstr(text, "क्षि\n"));
		assert_int_equal(strcmp(text + got - strlen("क्षि\n"), "क्षि\n"), 0);
	}
	close(saved);
	close(fd);
	unlink(path);
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
		cmocka_unit_test(test_grapheme_breaks),
		cmocka_unit_test(test_cut_keeps_clusters),
		cmocka_unit_test(test_log_line_cut_whole),
		cmocka_unit_test(test_strbuf_add_utf8_cleans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
