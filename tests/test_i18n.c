/*
 * test_i18n.c - cmocka suite for the message catalogues (bot/i18n.c,
 * bot/lang/msg_en.c, bot/lang/msg_ne.c).
 *
 * What it proves: every key has a name and a non-empty text in both
 * catalogues; the printf conversions of every key match between English and
 * Nepali in number, order and type (a mismatch would read the wrong argument
 * at run time); Nepali texts hold no English words apart from commands, their
 * literal arguments and card codes; the lookup falls back and parses
 * language codes as documented; a key chosen at run time is held to the
 * arguments stated for it, and the formats the compiler checks calls
 * against are those of the catalogues.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bot/lang/i18n.h"
#include "bot/render/games.h"
#include "games/strbuf.h"

/*
 * The conversion specifications of a printf format, each reduced to what
 * decides the argument's type: '*' for a width or precision taken from the
 * arguments, the length modifier and the conversion ("s", "d", "*ld", ...),
 * joined with '|'. "%%" takes no argument and is left out. Returns false
 * for a format printf would not accept.
 */
static bool conversions(const char *fmt, char *out, size_t n)
{
	size_t len = 0;

	out[0] = '\0';
	for (const char *p = fmt; *p; p++) {
		char spec[16];
		size_t k = 0;

		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		while (*p && strchr("-+ #0'", *p))
			p++;
		if (*p == '*') {
			spec[k++] = '*';
			p++;
		}
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				spec[k++] = '*';
				p++;
			}
			while (*p >= '0' && *p <= '9')
				p++;
		}
		while (*p && strchr("hljztL", *p) && k < sizeof(spec) - 2)
			spec[k++] = *p++;
		if (!*p || !strchr("diouxXeEfFgGaAcspn", *p))
			return false;
		spec[k++] = *p == 'i' ? 'd' : *p;
		spec[k] = '\0';
		len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s", len ? "|" : "", spec);
		if (len >= n)
			return false;
	}
	return true;
}

static void test_every_key_has_a_name(void **state)
{
	(void)state;
	for (int k = 0; k < M_COUNT; k++) {
		const char *name = msg_key_name(k);

		assert_non_null(name);
		assert_true(strncmp(name, "M_", 2) == 0);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(name, msg_key_name(j));
	}
	assert_string_equal(msg_key_name(M_HELP), "M_HELP");
	assert_string_equal(msg_key_name(-1), "?");
	assert_string_equal(msg_key_name(M_COUNT), "?");
}

static void test_every_key_in_both_catalogues(void **state)
{
	int missing = 0;

	(void)state;
	for (int lang = 0; lang < LANG_COUNT; lang++) {
		for (int k = 0; k < M_COUNT; k++) {
			const char *s = msg_catalogue(lang, k);

			if (!s || !s[0]) {
				print_error("%s has no %s text\n", msg_key_name(k), lang_code(lang));
				missing++;
			}
		}
	}
	assert_int_equal(missing, 0);
}

static void test_placeholders_match(void **state)
{
	int bad = 0;

	(void)state;
	for (int k = 0; k < M_COUNT; k++) {
		char en[256], ne[256];

		assert_true(conversions(msg_catalogue(LANG_EN, k), en, sizeof(en)));
		assert_true(conversions(msg_catalogue(LANG_NE, k), ne, sizeof(ne)));
		if (strcmp(en, ne) != 0) {
			print_error("%s: English has \"%s\", Nepali \"%s\"\n", msg_key_name(k), en, ne);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The checker itself: number, order and type all count. */
static void test_conversions_parser(void **state)
{
	char a[64];

	(void)state;
	assert_true(conversions("%s sits down (%d of %d seats).", a, sizeof(a)));
	assert_string_equal(a, "s|d|d");
	assert_true(conversions("100%% %-5.2f %*d %ld %i %zu", a, sizeof(a)));
	assert_string_equal(a, "f|*d|ld|d|zu");
	assert_true(conversions("no arguments", a, sizeof(a)));
	assert_string_equal(a, "");
	assert_false(conversions("broken %", a, sizeof(a)));
	assert_false(conversions("broken %y", a, sizeof(a)));
}

/*
 * Words a Nepali text may hold in Latin letters: the literal arguments of
 * commands (game names, levels, speeds, language codes) and card codes.
 * Runs of letters right after '/' are commands and always allowed.
 */
static const char *const latin_ok[] = {
	"snakes", "ludo", "baghchal", "callbreak", "easy", "medium", "hard", "slow", "normal", "fast",
	"en", "ne", "QS", "c", "b", NULL,
};

/* The Latin words of Nepali text s that are not allowed, each printed under name. */
static int latin_words(const char *name, const char *s)
{
	int bad = 0;

	/* seat marks and piece letters are single letters by design; none is Latin */
	for (size_t i = 0; s[i];) {
		size_t j = i;

		while ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z'))
			j++;
		if (j == i) {
			i++;
			continue;
		}
		/* commands ("/next") and conversions ("%s") are not words */
		if (!(i > 0 && (s[i - 1] == '/' || s[i - 1] == '%'))) {
			bool ok = false;

			for (int w = 0; latin_ok[w]; w++)
				if (strlen(latin_ok[w]) == j - i && strncmp(latin_ok[w], s + i, j - i) == 0)
					ok = true;
			if (!ok) {
				print_error("%s: Latin word \"%.*s\" in \"%s\"\n", name, (int)(j - i),
					    s + i, s);
				bad++;
			}
		}
		i = j;
	}
	return bad;
}

static void test_nepali_has_no_english_words(void **state)
{
	int bad = 0;

	(void)state;
	for (int k = 0; k < M_COUNT; k++)
		bad += latin_words(msg_key_name(k), msg_catalogue(LANG_NE, k));
	assert_int_equal(bad, 0);
}

/* So do the Nepali texts of every game's row: its title, how it is played, its sides. */
static void test_game_rows_speak_nepali(void **state)
{
	int bad = 0, rows = 0;

	(void)state;
	for (int i = 0; gb_games[i]; i++) {
		const struct bot_game *r = bot_game_of(gb_games[i]);

		assert_non_null(r);
		rows++;
		bad += latin_words(gb_games[i]->name, r->title[LANG_NE]);
		bad += latin_words(gb_games[i]->name, r->rules[LANG_NE]);
		for (int s = 0; s < GB_MAX_SEATS && r->sides[s][LANG_NE]; s++)
			bad += latin_words(gb_games[i]->name, r->sides[s][LANG_NE]);
		/* /rules opens with the title */
		assert_true(strncmp(r->rules[LANG_NE], r->title[LANG_NE], strlen(r->title[LANG_NE])) == 0);
		assert_true(strncmp(r->rules[LANG_EN], r->title[LANG_EN], strlen(r->title[LANG_EN])) == 0);
	}
	assert_int_equal(rows, 4);
	assert_int_equal(bad, 0);
}

/* The games' own words (seed glossary), not loan words or घर for the centre. */
static void test_nepali_vocabulary(void **state)
{
	(void)state;
	assert_string_equal(tr(LANG_NE, M_CB_COL_BID), "कल");
	assert_string_equal(tr(LANG_NE, M_CB_COL_WON), "हात");
	assert_string_equal(tr(LANG_NE, M_SUIT_SPADES), "हुकुम");
	assert_string_equal(tr(LANG_NE, M_SUIT_HEARTS), "पान");
	assert_string_equal(tr(LANG_NE, M_SUIT_DIAMONDS), "इट्टा");
	assert_string_equal(tr(LANG_NE, M_SUIT_CLUBS), "चिडी");
	assert_non_null(strstr(tr(LANG_NE, M_LU_COUNTS), "खोर"));
	assert_non_null(strstr(tr(LANG_NE, M_LU_COUNTS), "बीच"));
	for (int k = 0; k < M_COUNT; k++)
		if (k == M_LU_BTN_CENTRE || k == M_LU_EV_HOME || k == M_LU_KEY || k == M_LU_COUNTS ||
		    k == M_LU_EV_EXTRA_CENTRE)
			assert_null(strstr(tr(LANG_NE, k), "घर"));
	assert_non_null(strstr(tr(LANG_NE, M_SL_LADDERS), "सिँढी"));
	assert_non_null(strstr(tr(LANG_NE, M_SL_SNAKES), "साँप"));
	assert_non_null(strstr(tr(LANG_NE, M_BC_KEY), "बाघ"));
	assert_non_null(strstr(tr(LANG_NE, M_BC_KEY), "बाख्रा"));
}

static void test_lookup(void **state)
{
	(void)state;
	assert_string_equal(tr(LANG_EN, M_BTN_ROLL), "Roll");
	assert_string_equal(tr(LANG_NE, M_YOU), "तपाईं");
	assert_string_equal(tr(LANG_NE, M_WINNER), "%sले जित्नुभयो!");
	/* out of range: never NULL */
	assert_string_equal(tr(LANG_NE, M_COUNT), "");
	assert_null(msg_catalogue(LANG_EN, -1));
	assert_int_equal(lang_parse("en"), LANG_EN);
	assert_int_equal(lang_parse("ne"), LANG_NE);
	assert_int_equal(lang_parse("np"), -1);
	assert_int_equal(lang_parse(NULL), -1);
	assert_string_equal(lang_code(LANG_NE), "ne");
	assert_string_equal(lang_code(LANG_EN), "en");
}

/*
 * Nepali reads as one voice: postpositions joined to what they follow
 * ("%sको", never "%s को"), and a computer player is कम्प्युटर, never बोट
 * (which also means "plant").
 */
static void test_nepali_one_voice(void **state)
{
	static const char *const apart[] = { "%s को", "%s ले", "%s मा", "%s लाई", "%s का", "%s बाट" };

	(void)state;
	for (int k = 0; k < M_COUNT; k++) {
		const char *t = msg_catalogue(LANG_NE, k);

		for (size_t i = 0; i < sizeof(apart) / sizeof(apart[0]); i++)
			for (const char *p = strstr(t, apart[i]); p; p = strstr(p + 1, apart[i]))
				/* the word itself, not the start of a longer one (कोठा) */
				if ((unsigned char)p[strlen(apart[i])] != 0xe0)
					fail_msg("%s: postposition apart (\"%s\") in \"%s\"", msg_key_name(k), apart[i], t);
		if (strstr(t, "बोट"))
			fail_msg("%s: \"बोट\" in \"%s\"", msg_key_name(k), t);
	}
}

/* Defect: "बटन 9 छैन: अन्तिम सन्देशमा बटन १ देखि 1 सम्म छन्।" mixed two sets of digits in one message. */
static void test_one_style_of_digits(void **state)
{
	struct strbuf sb = { 0 };

	(void)state;
	i18n_format(&sb, true, tr(LANG_NE, M_CONSOLE_NO_SUCH_BUTTON), "9", "1");
	assert_string_equal(sb_str(&sb), "बटन ९ छैन: अन्तिम सन्देशमा बटन १ देखि १ सम्म छन्।");
	sb_release(&sb);
	i18n_format(&sb, false, tr(LANG_NE, M_CONSOLE_NO_SUCH_BUTTON), "९", "१");
	assert_string_equal(sb_str(&sb), "बटन 9 छैन: अन्तिम सन्देशमा बटन 1 देखि 1 सम्म छन्।");
	sb_release(&sb);
	/* board points, cards, a seal, names and the style's own name are kept; %d and %% work */
	i18n_format(&sb, true, "/place c3 %s %s 10H %s %d%% (%s) 0.1", "alice 7", "2944031e", "क", 42, "123abc");
	assert_string_equal(sb_str(&sb), "/place c3 alice 7 2944031e 10H क ४२% (123abc) ०.१");
	sb_release(&sb);
	/* a long run of digits is a code to copy (a seed), not a number */
	i18n_format(&sb, true, "%s", "12345678901234567890");
	assert_string_equal(sb_str(&sb), "12345678901234567890");
	sb_release(&sb);
}

/*
 * A key chosen at run time passes only with the conversions stated for it
 * (msg_any()); any other comes back as M_INTERNAL, which takes none.
 */
static void test_key_chosen_at_run_time(void **state)
{
	(void)state;
	assert_int_equal(msg_any(M_JOINED, "%s %s %s"), M_JOINED);
	assert_int_equal(msg_any(M_JOINED, "seat %s of %s for %s, 100%%"), M_JOINED);
	assert_int_equal(msg_any(M_TABLE_FULL, ""), M_TABLE_FULL);
	assert_int_equal(msg_any(M_CONSOLE_NAME, "%d"), M_CONSOLE_NAME);
	/* one short, one too many, the wrong type, the wrong order */
	assert_int_equal(msg_any(M_JOINED, "%s %s"), M_INTERNAL);
	assert_int_equal(msg_any(M_TABLE_FULL, "%s"), M_INTERNAL);
	assert_int_equal(msg_any(M_CONSOLE_NAME, "%s"), M_INTERNAL);
	assert_int_equal(msg_any(M_JOINED, "%s %d %s"), M_INTERNAL);
	/* a conversion no formatter here reads, a lone % at the end, no such key */
	assert_int_equal(msg_any(M_WINNER, "%x"), M_INTERNAL);
	assert_int_equal(msg_any(M_WINNER, "%s %"), M_INTERNAL);
	assert_int_equal(msg_any(-1, ""), M_INTERNAL);
	assert_int_equal(msg_any(M_COUNT, ""), M_INTERNAL);
	assert_string_equal(tr(LANG_EN, M_INTERNAL), tr(LANG_EN, msg_any(M_INTERNAL, "")));
	assert_null(strchr(tr(LANG_EN, M_INTERNAL), '%'));
	assert_null(strchr(tr(LANG_NE, M_INTERNAL), '%'));
}

/*
 * The literals the compiler checks calls against (msg_fmt.h, written by
 * the build) are those of the catalogues this suite links: each key's
 * literal, read back at run time, fits that key.
 */
static void test_compiled_formats_fit_the_catalogues(void **state)
{
#define FMT_OF(k) MSG_FMT_##k,
	static const char *const fmts[] = { MSG_KEYS(FMT_OF) };
#undef FMT_OF

	(void)state;
	assert_int_equal(sizeof(fmts) / sizeof(fmts[0]), M_COUNT);
	for (int k = 0; k < M_COUNT; k++) {
		size_t n = strlen(msg_key_name(k));

		assert_int_equal(strncmp(fmts[k], msg_key_name(k), n), 0);
		assert_true(fmts[k][n] == '\0' || fmts[k][n] == ' ');
		if (msg_any(k, fmts[k]) != k)
			fail_msg("%s: compiled as \"%s\", the catalogue says \"%s\"", msg_key_name(k), fmts[k],
				 tr(LANG_EN, k));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_has_a_name),
		cmocka_unit_test(test_every_key_in_both_catalogues),
		cmocka_unit_test(test_conversions_parser),
		cmocka_unit_test(test_placeholders_match),
		cmocka_unit_test(test_nepali_has_no_english_words),
		cmocka_unit_test(test_game_rows_speak_nepali),
		cmocka_unit_test(test_nepali_one_voice),
		cmocka_unit_test(test_nepali_vocabulary),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_one_style_of_digits),
		cmocka_unit_test(test_key_chosen_at_run_time),
		cmocka_unit_test(test_compiled_formats_fit_the_catalogues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
