/*
 * test_names.c - display names as people write them (bot/render/name.c): bidi
 * controls removed, blank names (spaces, Hangul fillers, zero-width
 * characters) given a stable "Player NNNN", emoji sequences and scripts
 * kept as written; and the same through the whole bot, where the router
 * cleans a command's name before any board or reply shows it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/render/name.h"
#include "games/utf8.h"

/* name_clean() of in (for the Telegram user id "42") equals want. */
static void cleans(const char *in, const char *want)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", in);
	name_clean(buf, sizeof(buf), "telegram", "42");
	if (strcmp(buf, want) != 0)
		fail_msg("name \"%s\" became \"%s\", not \"%s\"", in, buf, want);
}

static void test_bidi_controls_removed(void **state)
{
	(void)state;
	cleans("ab\u202ecd", "abcd");                              /* RIGHT-TO-LEFT OVERRIDE */
	cleans("\u202aa\u202bb\u202cc\u202dd", "abcd");            /* embeddings, pop, LTR override */
	cleans("\u2066a\u2067b\u2068c\u2069", "abc");              /* isolates */
	cleans("\u200ea\u200fb\u061c", "ab");                      /* marks, the Arabic letter mark */
	cleans("Ram\x01\x7f\xc2\x85\u2028", "Ram");                /* controls, NEL, line separator */
}

static void test_blank_names_get_a_fallback(void **state)
{
	char a[64], b[64], other[64];

	(void)state;
	name_fallback("telegram", "42", a, sizeof(a));
	name_fallback("telegram", "42", b, sizeof(b));
	name_fallback("telegram", "43", other, sizeof(other));
	/* "Player " and four digits, the same for the same id */
	assert_int_equal(strlen(a), 11);
	assert_int_equal(strncmp(a, "Player ", 7), 0);
	assert_int_equal(strspn(a + 7, "0123456789"), 4);
	assert_string_equal(a, b);
	assert_string_not_equal(a, other);
	cleans(" ", a);
	cleans("   \t", a);
	cleans("\u3164", a);           /* HANGUL FILLER */
	cleans("\u115f\u1160", a);     /* Hangul choseong and jungseong fillers */
	cleans("\uffa0", a);           /* HALFWIDTH HANGUL FILLER */
	cleans("\u200b", a);           /* ZERO WIDTH SPACE */
	cleans("\u200d\u200c\u2060", a);
	cleans("\ufeff\u3000\u00a0", a);
	cleans("\u202e", a);
	cleans("\u0301\u0301", a);     /* marks on nothing */
	cleans("", a);
}

static void test_names_kept_as_written(void **state)
{
	(void)state;
	cleans("alice", "alice");
	cleans("Bhimsen Bahadur Thapa", "Bhimsen Bahadur Thapa");
	cleans("  Sita  ", "Sita");
	cleans("\u3164Sita\u3164", "Sita");
	cleans("क्षितिज", "क्षितिज");
	cleans("👨‍👩‍👧‍👦 family", "👨‍👩‍👧‍👦 family");  /* the joiners inside stay */
	cleans("🇳🇵 Hari", "🇳🇵 Hari");
	cleans("می\u200cخواهم", "می\u200cخواهم");        /* ZWNJ between letters stays */
	cleans("王小明", "王小明");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bidi_controls_removed),
		cmocka_unit_test(test_blank_names_get_a_fallback),
		cmocka_unit_test(test_names_kept_as_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
