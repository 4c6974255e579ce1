/*
 * test_callbreak.c - cmocka suite for the Call Break rules core
 * (games/callbreak.c, rules of record games/rules/call-break.md).
 *
 * What it proves: every worked example of the rules document holds exactly,
 * both on the legal-card function with the example's very hand and in a
 * real game reaching the example's trick (test_cb_example_NN_*); the
 * legal-card function agrees with a deliberately naive reference, written
 * rule by rule from the CB-9 wording, on more than a million random hands
 * and tricks, and the trick winner with a naive CB-15 reference; 10,000+
 * random games over every `rounds` value keep check() green after every
 * action, round-trip through JSON exactly, replay identically, and refuse
 * random bad actions without touching the state (apply accepts exactly what
 * legal() lists); the player's view shows nothing of the other hands; bad
 * text, bad setups and bad JSON get clean error codes.
 *
 * Every action a test applies goes through act(), which runs check() after
 * it and asserts the state unchanged when the action is refused.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"

static const struct gb_game *G = &callbreak_game;

/*
 * Deals for the worked examples, seat 0 first. Each was built so that the
 * example's trick is the first trick of the round with --dealer 3 (seat 0
 * leads), and the seat in question holds exactly the example's cards of the
 * suits that matter.
 */
#define EX1 "KS JS KH 9H 7H 7D 5D KC QC JC 8C 4C 3C|AS 10S 7S 6S 4S QH 5H AD 10D 6D 4D AC 9C|" \
	    "8S 2S JH 10H 8H 3H 2H KD JD 9D 3D 6C 2C|QS 9S 5S 3S AH 6H 4H QD 8D 2D 10C 7C 5C"
#define EX2 "KS JS KH 10H 9H KD JD 5D KC QC 10C 7C 4C|AD 10D 9D 7D 6D 4D 3D 2D AC 9C 5C 3C 2C|" \
	    "AS QS 10S 9S 8S 7S 6S 5S 4S 2S AH QH 8D|3S JH 8H 7H 6H 5H 4H 3H 2H QD JC 8C 6C"
#define EX3 "AS QS KH QH 9H AD QD 6D KC QC 10C 7C 4C|JS 8S 7S 5S 3S 2S JD 8D 7D 5D 9C 5C 2C|" \
	    "KS 10S 9S 6S 4S AH 5H 10D 9D 4D 3D AC 3C|JH 10H 8H 7H 6H 4H 3H 2H KD 2D JC 8C 6C"
#define EX4 "AS QS QH 9H 8H 6D 4D KC QC JC 8C 4C 3C|3S AD KD QD 10D 9D 5D 3D 2D AC 9C 6C 2C|" \
	    "JS 9S 8S 7S 5S 2S JH 10H 7H 4H 3H 2H 8D|KS 10S 6S 4S AH KH 6H 5H JD 7D 10C 7C 5C"
#define EX5 "AS AH KH 9H 3H QD 6D KC QC JC 8C 5C 2C|KS 9S 8S 7S 5S 2S JD 8D 7D 5D 10C 6C 3C|" \
	    "JS 4S AD KD 10D 9D 4D 3D 2D AC 9C 7C 4C|QS 10S 6S 3S QH JH 10H 8H 7H 6H 5H 4H 2H"
#define EX6 "AS AH KH 9H 3H QD 6D KC QC JC 8C 5C 2C|KS QS 8S 7S 5S 2S JD 8D 7D 5D 10C 6C 3C|" \
	    "JS 4S AD KD 10D 9D 4D 3D 2D AC 9C 7C 4C|10S 9S 6S 3S QH JH 10H 8H 7H 6H 5H 4H 2H"
#define EX7A "AS 7S KH 10H 3H 7D 5D KC QC JC 8C 4C 3C|9S 4S QH JH 9H 6H 4H AD 10D 6D 4D AC 9C|" \
	     "KS JS 10S 8S 5S 2S 5H KD JD 9D 3D 6C 2C|QS 6S 3S AH 8H 7H 2H QD 8D 2D 10C 7C 5C"
#define EX7B "AS JS KH 10H 3H 7D 5D KC QC JC 8C 4C 3C|9S 4S QH JH 9H 6H 4H AD 10D 6D 4D AC 9C|" \
	     "KS 10S 8S 7S 5S 2S 5H KD JD 9D 3D 6C 2C|QS 6S 3S AH 8H 7H 2H QD 8D 2D 10C 7C 5C"
#define EX9 "KS JS AH 7H AD QD 3D AC KC QC JC 6C 3C|AS 6S 4S 10H 9H 8H 6H 3H 10D 8D 7D 4D 2D|" \
	    "10S 9S 8S 7S 2S KH QH 2H KD JD 6D 8C 5C|QS 5S 3S JH 5H 4H 9D 5D 10C 9C 7C 4C 2C"
/* A round (dealer 3) that ends 3, 5, 2 and 3 tricks for seats 0..3. */
#define SCORE "QS 10S 6S 5S KH 7H 6H 4H 2H AD 10D 7D JC|9S 3S 2S JH 10H 5H QD 9D 3D 2D 8C 7C 5C|" \
	      "JS 8S 7S 4S AH QH 9H 8H 3H KC 10C 6C 4C|AS KS KD JD 8D 6D 5D 4D AC QC 9C 3C 2C"
#define SCORE_PLAYS                                                                              \
	"AD 2D 7S 5D 4S KS 10S 3S KD 10D QD 8S 6C QC JC 7C 3C 6S 5C KC 4H 5H QH AS 9C 5S 8C 4C " \
	"QS 9S JS JD 7D 9D AH 8D 2S 3H AC KH 10H 9H 6D 7H JH 8H 4D 2H 3D 10C 2C 6H"
/* Seat 0 holds every spade and leads: it takes all 13 tricks. */
#define SWEEP "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|KH JH 7H 4H 3H QD JD 7D 6D KC JC 8C 3C|" \
	      "QH 2H KD 10D 8D 4D 3D 2D AC 10C 9C 5C 2C|AH 10H 9H 8H 6H 5H AD 9D 5D QC 7C 6C 4C"
#define SWEEP_PLAYS                                                                              \
	"3S 3C 3D 8H 4S 4H 8D 7C 9S 3H AC 6C 8S JD 10C 9D 2S KH 2D 9H KS 6D 2C AD QS JC 2H 10H " \
	"AS 7H 5C 4C 6S QD 4D 5H 7S 7D KD AH JS 8C 10D 6H 5S KC QH 5D 10S JH 9C QC"
/* A round (dealer 3) that ends 1, 0, 6 and 6 tricks. */
#define TIE "AS 10S 8S 7S AH 10H 9H 5H 4D 10C 9C 6C 2C|5S 4S KH 8H 6H AD QD JD 10D 7D AC JC 4C|" \
	    "JS 9S 6S 3S 2S QH JH 4H 3H KD 5D 3D QC|KS QS 7H 2H 9D 8D 6D 2D KC 8C 7C 5C 3C"
#define TIE_PLAYS                                                                                \
	"7S 5S JS QS 2D 4D JD KD 5D 8D AS AD 10S 4S 3S KS 3C 9C JC QC 9S 7C 8S 10D 6S 7H 5H KH " \
	"2S 5C AH QD JH 2H 10H 6H 3D 9D 6C 7D 6D 9H AC 3H KC 10C 4C QH 8C 2C 8H 4H"

/* ---- helpers ---- */

static int C(const char *text)
{
	int c = -1;

	assert_int_equal(callbreak_card_parse(text, &c), GB_OK);
	return c;
}

/* A set from blank-separated card texts. */
static uint64_t cards(const char *list)
{
	char buf[256], *save = NULL;
	uint64_t m = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		m |= CB_BIT(C(w));
	return m;
}

/* A trick from blank-separated card texts; returns the count. */
static int trick_of(const char *list, int t[CB_SEATS])
{
	char buf[64], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, " ", &save); w && n < CB_SEATS; w = strtok_r(NULL, " ", &save))
		t[n++] = C(w);
	return n;
}

static uint64_t legal_on(const char *hand, const char *trick)
{
	int t[CB_SEATS];
	int n = trick_of(trick, t);

	return callbreak_legal_cards(cards(hand), t, n);
}

static void start(struct callbreak *st, const char *deal, int dealer, const char *rounds,
		  uint64_t seed)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.deal = deal;
	su.dealer = dealer;
	su.seed = seed;
	if (rounds)
		assert_int_equal(gb_rules_set(G, &su.rules, "rounds", rounds), GB_OK);
	assert_int_equal(G->init(st, &su), GB_OK);
	assert_int_equal(G->check(st), GB_OK);
}

/* Parse and apply one action; a refusal must leave the state as it was. */
static int act(struct callbreak *st, const char *text, struct gb_events *ev)
{
	struct callbreak before = *st;
	struct gb_events local;
	struct gb_action a;
	int rc;

	if (!ev)
		ev = &local;
	memset(ev, 0, sizeof(*ev));
	rc = G->parse(st, text, &a);
	if (rc == GB_OK)
		rc = G->apply(st, &a, ev);
	if (rc)
		assert_memory_equal(&before, st, sizeof(before));
	assert_int_equal(ev->dropped, 0);
	assert_int_equal(G->check(st), GB_OK);
	return rc;
}

static void ok(struct callbreak *st, const char *text)
{
	int rc = act(st, text, NULL);

	if (rc)
		fail_msg("'%s' refused: %s", text, gb_errname(rc));
}

/* Blank-separated actions, each prefixed by verb ("bid" or "play"). */
static void ok_all(struct callbreak *st, const char *verb, const char *list)
{
	char buf[512], *save = NULL, line[64];

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		snprintf(line, sizeof(line), "%s %s", verb, w);
		ok(st, line);
	}
}

/* The legal list as compact JSON must be exactly want. */
static void expect_legal(const struct callbreak *st, const char *want)
{
	json_t *j = gb_legal_json(G, st);
	char *s = json_dumps(j, JSON_COMPACT);

	assert_non_null(s);
	if (strcmp(s, want))
		fail_msg("legal is %s, expected %s", s, want);
	free(s);
	json_decref(j);
}

/* The events as "did" strings joined with " | " must be exactly want. */
static void expect_did(const struct gb_events *ev, const char *want)
{
	char got[1024] = "", buf[GB_EVENT_TEXT];
	size_t used = 0;

	for (int i = 0; i < ev->n; i++) {
		G->format_event(&ev->ev[i], buf, sizeof(buf));
		used += (size_t)snprintf(got + used, sizeof(got) - used, "%s%s", i ? " | " : "", buf);
		assert_true(used < sizeof(got));
	}
	if (strcmp(got, want))
		fail_msg("did is '%s', expected '%s'", got, want);
}

static void expect_refusal(const struct callbreak *st, int seat, const char *text, int rc,
			   const char *why)
{
	struct gb_action a;
	char buf[128];

	assert_int_equal(G->parse(st, text, &a), GB_OK);
	assert_int_equal(callbreak_refusal(st, seat, &a, buf, sizeof(buf)), rc);
	if (strcmp(buf, why))
		fail_msg("reason is '%s', expected '%s'", buf, why);
}

/* Exact JSON round trip: to_json -> text -> from_json -> memcmp and json_equal. */
static void assert_round_trip(const struct callbreak *st)
{
	struct callbreak back;
	json_t *j = G->to_json(st), *j2, *loaded, *full;
	char *text = json_dumps(j, JSON_COMPACT);

	assert_non_null(text);
	loaded = json_loads(text, 0, NULL);
	assert_non_null(loaded);
	memset(&back, 0xa5, sizeof(back));
	assert_int_equal(G->from_json(&back, loaded), GB_OK);
	assert_memory_equal(&back, st, sizeof(back));
	j2 = G->to_json(&back);
	assert_true(json_equal(j, j2));
	full = gb_state_json(G, st);
	assert_non_null(full);
	memset(&back, 0x5a, sizeof(back));
	assert_int_equal(G->from_json(&back, full), GB_OK);
	assert_memory_equal(&back, st, sizeof(back));
	free(text);
	json_decref(j);
	json_decref(j2);
	json_decref(loaded);
	json_decref(full);
}

static void bid_all(struct callbreak *st, const char *bids)
{
	ok_all(st, "bid", bids);
	assert_int_equal(st->phase, CB_PHASE_PLAY);
}

/* ---- cards ---- */

static void test_card_parse_forms(void **state)
{
	static const struct {
		const char *text, *canon;
	} cases[] = {
		{ "QS", "QS" },          { "qs", "QS" },       { "Qs", "QS" },
		{ "Q\xe2\x99\xa0", "QS" },                     /* Q♠ */
		{ "\xe2\x99\xa0Q", "QS" },                     /* ♠Q */
		{ "q\xe2\x99\xa4", "QS" },                     /* q♤ */
		{ "TH", "10H" },         { "th", "10H" },      { "10h", "10H" },
		{ "10H", "10H" },        { "10\xe2\x99\xa5", "10H" }, /* 10♥ */
		{ "\xe2\x99\xa5" "10", "10H" },                /* ♥10 */
		{ "10\xe2\x99\xa1", "10H" },                   /* 10♡ */
		{ "A\xe2\x99\xa6", "AD" },                     /* A♦ */
		{ "a\xe2\x99\xa2", "AD" },                     /* a♢ */
		{ "2\xe2\x99\xa3", "2C" },                     /* 2♣ */
		{ "2\xe2\x99\xa7", "2C" },                     /* 2♧ */
		{ "K\xe2\x99\xa5\xef\xb8\x8f", "KH" },         /* K♥️ (emoji form) */
		{ "sa", "AS" },          { "S10", "10S" },     { "  jd ", "JD" },
		{ "\xe0\xa5\xa7\xe0\xa5\xa6H", "10H" },        /* १०H */
		{ "\xe0\xa5\xad\xe2\x99\xa0", "7S" },          /* ७♠ */
		{ "9c", "9C" },          { "2D", "2D" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int c = -1;
		char buf[8];

		if (callbreak_card_parse(cases[i].text, &c) != GB_OK)
			fail_msg("'%s' did not read", cases[i].text);
		callbreak_card_format(c, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].canon);
	}
}

static void test_card_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"", "  ", "Q", "S", "QX", "1S", "11H", "0S", "QSS", "QS QS", "10", "XS", "Q S H",
		"AS1", "\xe2\x99\xa8Q", "Q\xe2\x99", "\xe0\xa5\xa7H", "KING", "S1", "HH", "22",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int c = 77;

		if (callbreak_card_parse(bad[i], &c) != GB_EPARSE)
			fail_msg("'%s' should not read as a card", bad[i]);
		assert_int_equal(c, 77);
	}
	assert_int_equal(callbreak_card_parse(NULL, NULL), GB_EPARSE);
}

static void test_card_format_round_trip(void **state)
{
	(void)state;
	for (int c = 0; c < CB_CARDS; c++) {
		char buf[8], lowered[8];
		int back = -1;

		callbreak_card_format(c, buf, sizeof(buf));
		assert_string_equal(buf, callbreak_card_name(c));
		assert_int_equal(callbreak_card_parse(buf, &back), GB_OK);
		assert_int_equal(back, c);
		for (size_t i = 0; i <= strlen(buf); i++)
			lowered[i] = (char)(buf[i] >= 'A' && buf[i] <= 'Z' ? buf[i] - 'A' + 'a' : buf[i]);
		assert_int_equal(callbreak_card_parse(lowered, &back), GB_OK);
		assert_int_equal(back, c);
	}
	assert_string_equal(callbreak_card_name(C("10H")), "10H");
	assert_string_equal(callbreak_card_name(C("AS")), "AS");
	assert_int_equal(C("2S"), 0);
	assert_int_equal(C("AS"), 12);
	assert_int_equal(C("2H"), 13);
	assert_int_equal(C("AC"), 51);
	assert_string_equal(callbreak_card_name(52), "?");
	assert_string_equal(callbreak_card_name(-1), "?");
	assert_string_equal(callbreak_suit_symbol(CB_HEARTS), "\xe2\x99\xa5");
	assert_string_equal(callbreak_suit_letter(CB_CLUBS), "C");
}

/* ---- worked examples ---- */

/* 1. Hearts led with 7♥, you hold 5♥ and Q♥: only Q♥ is legal (CB-9.2). */
static void test_cb_example_01_win_if_you_can(void **state)
{
	struct callbreak st;
	struct gb_events ev;

	(void)state;
	assert_true(legal_on("5H QH", "7H") == cards("QH"));
	assert_true(legal_on("5H QH 3S AD", "7H") == cards("QH"));

	start(&st, EX1, 3, NULL, 1);
	bid_all(&st, "1 1 1 1");
	assert_int_equal(G->turn(&st), 0);
	assert_int_equal(act(&st, "play 7H", &ev), GB_OK);
	expect_did(&ev, "play 7H");
	assert_int_equal(G->turn(&st), 1);
	expect_legal(&st, "[\"play QH\"]");
	expect_refusal(&st, 1, "play 5H", GB_EILLEGAL, "you must beat 7H while you can");
	expect_refusal(&st, 1, "play AS", GB_EILLEGAL, "you must follow suit: play a heart");
	assert_int_equal(act(&st, "play 5H", NULL), GB_EILLEGAL);
	assert_int_equal(act(&st, "play AS", NULL), GB_EILLEGAL);
	ok(&st, "play QH");
	/* seat 1 beat the 7H, so nothing is proven missing from its hand */
	assert_true(st.lacks[1] == 0);
}

/* 2. K♥ led, then A♦ discarded; you hold Q♥ and A♥: only A♥ (CB-10). */
static void test_cb_example_02_card_to_beat_is_led_suit(void **state)
{
	struct callbreak st;
	struct callbreak_view v;

	(void)state;
	assert_true(legal_on("QH AH", "KH AD") == cards("AH"));

	start(&st, EX2, 3, NULL, 2);
	bid_all(&st, "2 2 2 2");
	ok(&st, "play KH");
	/* seat 1 holds neither hearts nor spades: every card is legal (CB-13) */
	expect_legal(&st, "[\"play 10D\",\"play 2C\",\"play 2D\",\"play 3C\",\"play 3D\",\"play 4D\","
			  "\"play 5C\",\"play 6D\",\"play 7D\",\"play 9C\",\"play 9D\",\"play AC\","
			  "\"play AD\"]");
	ok(&st, "play AD");
	assert_int_equal(G->turn(&st), 2);
	expect_legal(&st, "[\"play AH\"]");
	expect_refusal(&st, 2, "play QH", GB_EILLEGAL, "you must beat KH while you can");
	/* the discard shows seat 1 void in hearts and, by CB-9.3, in spades */
	callbreak_view(&st, 2, &v);
	assert_int_equal(v.voids[1], (1 << CB_HEARTS) | (1 << CB_SPADES));
	assert_int_equal(v.voids[0], 0);
}

/* 3. Hearts led, someone trumped with 2♠; you hold 5♥ and A♥: both (CB-11). */
static void test_cb_example_03_trumped_lifts_win_if_you_can(void **state)
{
	struct callbreak st;

	(void)state;
	assert_true(legal_on("5H AH", "9H 2S") == cards("5H AH"));
	assert_true(legal_on("5H AH", "9H") == cards("AH"));

	start(&st, EX3, 3, NULL, 3);
	bid_all(&st, "1 2 3 4");
	ok(&st, "play 9H");
	/* seat 1 is void in hearts and nobody has trumped: spades only (CB-9.3) */
	expect_legal(&st, "[\"play 2S\",\"play 3S\",\"play 5S\",\"play 7S\",\"play 8S\",\"play JS\"]");
	expect_refusal(&st, 1, "play 2C", GB_EILLEGAL,
		       "you have no hearts: you must trump with a spade");
	ok(&st, "play 2S");
	expect_legal(&st, "[\"play 5H\",\"play AH\"]");
	ok(&st, "play 5H");
	/* keeping the ace is allowed, and proves nothing */
	assert_true(st.lacks[2] == 0);
}

/* 4. Hearts led, you hold no hearts, 3♠ and K♦: only 3♠ (CB-9.3, CB-12). */
static void test_cb_example_04_trump_when_void(void **state)
{
	struct callbreak st;

	(void)state;
	assert_true(legal_on("3S KD", "9H") == cards("3S"));

	start(&st, EX4, 3, NULL, 4);
	bid_all(&st, "1 1 1 1");
	ok(&st, "play 9H");
	expect_legal(&st, "[\"play 3S\"]");
	expect_refusal(&st, 1, "play KD", GB_EILLEGAL,
		       "you have no hearts: you must trump with a spade");
	assert_int_equal(act(&st, "play KD", NULL), GB_EILLEGAL);
	ok(&st, "play 3S");
}

/* 5. Hearts led, trumped with 9♠; you hold 4♠, J♠, K♦, no hearts: only J♠ (CB-9.4). */
static void test_cb_example_05_over_trump(void **state)
{
	struct callbreak st;

	(void)state;
	assert_true(legal_on("4S JS KD", "9H 9S") == cards("JS"));

	start(&st, EX5, 3, NULL, 5);
	bid_all(&st, "1 1 1 1");
	ok(&st, "play 9H");
	ok(&st, "play 9S");
	expect_legal(&st, "[\"play JS\"]");
	expect_refusal(&st, 2, "play 4S", GB_EILLEGAL, "you must over-trump 9S while you can");
	expect_refusal(&st, 2, "play KD", GB_EILLEGAL, "you must over-trump 9S while you can");
	ok(&st, "play JS");
}

/* 6. Hearts led, trumped with Q♠; you hold 4♠, J♠, K♦, no hearts: all three (CB-13). */
static void test_cb_example_06_cannot_over_trump(void **state)
{
	struct callbreak st;
	struct callbreak_view v;

	(void)state;
	assert_true(legal_on("4S JS KD", "9H QS") == cards("4S JS KD"));

	start(&st, EX6, 3, NULL, 6);
	bid_all(&st, "1 1 1 1");
	ok(&st, "play 9H");
	ok(&st, "play QS");
	expect_legal(&st, "[\"play 10D\",\"play 2D\",\"play 3D\",\"play 4C\",\"play 4D\",\"play 4S\","
			  "\"play 7C\",\"play 9C\",\"play 9D\",\"play AC\",\"play AD\",\"play JS\","
			  "\"play KD\"]");
	ok(&st, "play KD");
	/* a discard under a winning spade proves: no hearts, no spade above the queen */
	callbreak_view(&st, 3, &v);
	assert_true(v.lacks[2] == (CB_SUIT_MASK(CB_HEARTS) | cards("KS AS")));
	assert_int_equal(v.voids[2], 1 << CB_HEARTS);
}

/* 7. 7♠ led, you hold 4♠ and 9♠: only 9♠. J♠ led: both (CB-14). */
static void test_cb_example_07_spade_lead(void **state)
{
	struct callbreak st;

	(void)state;
	assert_true(legal_on("4S 9S", "7S") == cards("9S"));
	assert_true(legal_on("4S 9S", "JS") == cards("4S 9S"));

	start(&st, EX7A, 3, NULL, 7);
	bid_all(&st, "1 1 1 1");
	ok(&st, "play 7S");
	expect_legal(&st, "[\"play 9S\"]");
	expect_refusal(&st, 1, "play 4S", GB_EILLEGAL, "you must beat 7S while you can");

	start(&st, EX7B, 3, NULL, 7);
	bid_all(&st, "1 1 1 1");
	ok(&st, "play JS");
	expect_legal(&st, "[\"play 4S\",\"play 9S\"]");
	ok(&st, "play 4S");
	/* playing under the jack proves seat 1 holds no spade above it */
	assert_true(st.lacks[1] == cards("QS KS AS"));
}

/* Play a whole round from a deal and a list of cards; the events of the last card into ev. */
static void play_round(struct callbreak *st, const char *plays, struct gb_events *ev)
{
	char buf[512], *save = NULL, line[32];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", plays);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		snprintf(line, sizeof(line), "play %s", w);
		if (act(st, line, ev))
			fail_msg("card %d '%s' refused", n, w);
		n++;
	}
	assert_int_equal(n, CB_CARDS);
}

/* 8. Scores: 3/3 -> 3.0; 3/5 -> 3.2; 4/2 -> -4.0; 1/0 -> -1.0; 8/13 -> 8.5 (CB-16, CB-17). */
static void test_cb_example_08_scores(void **state)
{
	struct callbreak st;
	struct gb_events ev;
	struct gb_outcome oc;
	json_t *j, *h;
	char *s;

	(void)state;
	assert_int_equal(callbreak_score(3, 3), 30);
	assert_int_equal(callbreak_score(3, 5), 32);
	assert_int_equal(callbreak_score(4, 2), -40);
	assert_int_equal(callbreak_score(1, 0), -10);
	assert_int_equal(callbreak_score(8, 13), 85);
	/* CB-17: overtricks never reset and never cost */
	for (int b = CB_MIN_BID; b <= CB_MAX_BID; b++)
		for (int t = b; t <= CB_TRICKS; t++)
			assert_int_equal(callbreak_score(b, t), b * 10 + (t - b));

	/* a round that ends 3/3, 3/5, 4/2 and 1/3 */
	start(&st, SCORE, 3, "3", 8);
	bid_all(&st, "3 3 4 1");
	play_round(&st, SCORE_PLAYS, &ev);
	expect_did(&ev, "play 6H | trick 13 to seat 1 with 3D | round 1 over | "
			"seat 0 bid 3 won 3 +3.0 | seat 1 bid 3 won 5 +3.2 | "
			"seat 2 bid 4 won 2 -4.0 | seat 3 bid 1 won 3 +1.2");
	assert_int_equal(st.phase, CB_PHASE_ROUND_OVER);
	assert_int_equal(st.total[0], 30);
	assert_int_equal(st.total[1], 32);
	assert_int_equal(st.total[2], -40);
	assert_int_equal(st.total[3], 12);
	j = G->to_json(&st);
	h = json_object_get(j, "history");
	s = json_dumps(h, JSON_COMPACT);
	/* the reals read back as exactly the one-decimal values */
	{
		json_t *want = json_loads("[[[3,3,3.0],[3,5,3.2],[4,2,-4.0],[1,3,1.2]]]", 0, NULL);

		assert_true(json_equal(h, want));
		json_decref(want);
	}
	free(s);
	s = json_dumps(json_object_get(j, "totals_text"), JSON_COMPACT);
	assert_string_equal(s, "[\"3.0\",\"3.2\",\"-4.0\",\"1.2\"]");
	free(s);
	json_decref(j);
	assert_round_trip(&st);

	/* a sweep: bid 8 and take all 13 -> 8.5; bid 1 and take none -> -1.0 */
	start(&st, SWEEP, 3, "1", 8);
	bid_all(&st, "8 1 1 1");
	play_round(&st, SWEEP_PLAYS, &ev);
	expect_did(&ev, "play QC | trick 13 to seat 0 with 10S | round 1 over | "
			"seat 0 bid 8 won 13 +8.5 | seat 1 bid 1 won 0 -1.0 | "
			"seat 2 bid 1 won 0 -1.0 | seat 3 bid 1 won 0 -1.0 | game over winner 0");
	G->outcome(&st, &oc);
	assert_true(oc.over);
	assert_false(oc.draw);
	assert_int_equal(oc.winner, 0);
	assert_int_equal(oc.score[0], 85);
	assert_int_equal(oc.score[1], -10);
	assert_int_equal(oc.turns, CB_SEATS + CB_CARDS);
	assert_round_trip(&st);
}

/* 9. Bids: the dealer bids last; 0 or 9 is refused; a second bid is refused (CB-4, CB-5). */
static void test_cb_example_09_bidding(void **state)
{
	struct callbreak st;
	struct gb_events ev;

	(void)state;
	start(&st, EX9, 2, NULL, 9);
	assert_int_equal(G->turn(&st), 3); /* the seat after the dealer */
	expect_legal(&st, "[\"bid 1\",\"bid 2\",\"bid 3\",\"bid 4\",\"bid 5\",\"bid 6\",\"bid 7\","
			  "\"bid 8\"]");
	assert_int_equal(act(&st, "bid 0", NULL), GB_EILLEGAL);
	assert_int_equal(act(&st, "bid 9", NULL), GB_EILLEGAL);
	expect_refusal(&st, 3, "bid 9", GB_EILLEGAL, "a bid is a whole number from 1 to 8");
	expect_refusal(&st, 0, "bid 3", GB_ETURN, "seat 3 bids now");
	assert_int_equal(act(&st, "bid 3", &ev), GB_OK);
	expect_did(&ev, "bid 3");
	/* seat 3 has bid: a second bid from it is refused, the bid stands */
	expect_refusal(&st, 3, "bid 5", GB_EILLEGAL, "you have already bid 3; a bid cannot be changed");
	assert_int_equal(G->turn(&st), 0);
	ok(&st, "bid 2");
	assert_int_equal(G->turn(&st), 1);
	ok(&st, "bid 4");
	assert_int_equal(G->turn(&st), 2); /* the dealer, last, knowing the other three */
	assert_int_equal(st.phase, CB_PHASE_BID);
	ok(&st, "bid 8");
	assert_int_equal(st.phase, CB_PHASE_PLAY);
	assert_int_equal(G->turn(&st), 3); /* CB-8: the first bidder leads */
	/* every further bid is refused: bidding is over */
	assert_int_equal(act(&st, "bid 3", NULL), GB_EPHASE);
	expect_refusal(&st, 2, "bid 1", GB_EPHASE, "you have already bid 8; a bid cannot be changed");
	assert_int_equal(st.bid[0], 2);
	assert_int_equal(st.bid[1], 4);
	assert_int_equal(st.bid[2], 8);
	assert_int_equal(st.bid[3], 3);
	/* CB-7: the bids need not add up to anything */
	start(&st, EX9, 0, NULL, 9);
	bid_all(&st, "4 4 4 4");
}

/* CB-21: a tie at the top still names one seat (the lowest) and lists the tied seats. */
static void test_tie_names_lowest_seat(void **state)
{
	struct callbreak st;
	struct gb_events ev;
	struct gb_outcome oc;
	json_t *j;
	char *s;

	(void)state;
	start(&st, TIE, 3, "1", 10);
	bid_all(&st, "1 1 2 2");
	play_round(&st, TIE_PLAYS, &ev);
	expect_did(&ev, "play 4H | trick 13 to seat 3 with 8C | round 1 over | "
			"seat 0 bid 1 won 1 +1.0 | seat 1 bid 1 won 0 -1.0 | "
			"seat 2 bid 2 won 6 +2.4 | seat 3 bid 2 won 6 +2.4 | "
			"game over winner 2 tied 2 3");
	G->outcome(&st, &oc);
	assert_true(oc.over);
	assert_false(oc.draw);
	assert_int_equal(oc.winner, 2);
	assert_int_equal(st.tied, (1 << 2) | (1 << 3));
	j = G->to_json(&st);
	s = json_dumps(json_object_get(j, "tied"), JSON_COMPACT);
	assert_string_equal(s, "[2,3]");
	free(s);
	json_decref(j);
	assert_round_trip(&st);
	assert_int_equal(act(&st, "next", NULL), GB_EOVER);
	assert_int_equal(act(&st, "play 2C", NULL), GB_EOVER);
	assert_int_equal(act(&st, "bid 3", NULL), GB_EOVER);
	expect_legal(&st, "[]");
	assert_int_equal(G->turn(&st), -1);
}

/* ---- round flow ---- */

static void test_round_flow_and_next(void **state)
{
	struct callbreak st;
	struct gb_events ev;
	struct gb_outcome oc;
	json_t *j;

	(void)state;
	start(&st, SCORE, 3, "3", 77);
	assert_int_equal(st.rounds, 3);
	assert_int_equal(act(&st, "next", NULL), GB_EPHASE);
	assert_int_equal(act(&st, "play AD", NULL), GB_EPHASE);
	bid_all(&st, "3 3 4 1");
	assert_int_equal(act(&st, "next", NULL), GB_EPHASE);
	assert_int_equal(act(&st, "play 2C", NULL), GB_EILLEGAL); /* not in seat 0's hand */
	expect_refusal(&st, 0, "play 2C", GB_EILLEGAL, "you do not hold 2C");
	expect_refusal(&st, 1, "play 2C", GB_ETURN, "seat 0 plays now");
	play_round(&st, SCORE_PLAYS, &ev);
	assert_int_equal(st.phase, CB_PHASE_ROUND_OVER);
	assert_int_equal(G->turn(&st), -1);
	expect_legal(&st, "[\"next\"]");
	assert_int_equal(act(&st, "play AD", NULL), GB_EPHASE);
	assert_int_equal(act(&st, "bid 3", NULL), GB_EPHASE);
	G->outcome(&st, &oc);
	assert_false(oc.over);
	assert_int_equal(oc.winner, -1);
	assert_int_equal(oc.turns, 56);
	/* the finished round stays on show until next */
	assert_int_equal(st.tricks[1], 5);
	assert_int_equal(st.bid[2], 4);
	assert_round_trip(&st);
	assert_int_equal(act(&st, "next", &ev), GB_OK);
	expect_did(&ev, "next | round 2 dealer 0");
	assert_int_equal(st.round, 2);
	assert_int_equal(st.dealer, 0);
	assert_int_equal(st.phase, CB_PHASE_BID);
	assert_int_equal(G->turn(&st), 1);
	for (int s = 0; s < CB_SEATS; s++) {
		assert_int_equal(__builtin_popcountll(st.hand[s]), 13);
		assert_int_equal(st.bid[s], 0);
		assert_int_equal(st.tricks[s], 0);
	}
	assert_int_equal(st.total[1], 32); /* CB-18: totals carry */
	j = G->to_json(&st);
	assert_int_equal(json_array_size(json_object_get(j, "history")), 1);
	json_decref(j);
	assert_round_trip(&st);
}

static void test_rules_table(void **state)
{
	struct gb_rules r;
	struct callbreak st;
	struct gb_setup su;

	(void)state;
	assert_int_equal(G->nrules, 1);
	assert_string_equal(G->rules[0].key, "rounds");
	assert_string_equal(G->rules[0].values[0], "5");
	assert_string_equal(G->rules[0].values[1], "3");
	assert_string_equal(G->rules[0].values[2], "1");
	assert_null(G->rules[0].values[3]);
	memset(&r, 0, sizeof(r));
	assert_int_equal(gb_rules_set(G, &r, "rounds", "2"), GB_ERULE_VALUE);
	assert_int_equal(gb_rules_set(G, &r, "speed", "5"), GB_ERULE_KEY);
	assert_int_equal(G->min_players, 4);
	assert_int_equal(G->max_players, 4);
	start(&st, NULL, 0, NULL, 1);
	assert_int_equal(st.rounds, 5);
	start(&st, NULL, 0, "3", 1);
	assert_int_equal(st.rounds, 3);
	start(&st, NULL, 0, "1", 1);
	assert_int_equal(st.rounds, 1);
	gb_setup_init(&su, G);
	su.rules.v[0] = 3;
	assert_int_equal(G->init(&st, &su), GB_ERULE_VALUE);
}

static void test_init_errors(void **state)
{
	static const char *const bad_deals[] = {
		"",
		"AS",
		/* 51 cards */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C",
		/* a duplicate */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 3C",
		/* 14 and 12 */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S AH|KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
		/* five hands */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C|",
		/* an unreadable card */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 1S|AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
		/* three hands */
		"AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
		"AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
	};
	struct callbreak st;
	struct gb_setup su;

	(void)state;
	gb_setup_init(&su, G);
	assert_int_equal(su.players, 4);
	for (int p = 0; p <= 6; p++) {
		su.players = p;
		assert_int_equal(G->init(&st, &su), p == 4 ? GB_OK : GB_EPLAYERS);
	}
	su.players = 4;
	for (size_t i = 0; i < sizeof(bad_deals) / sizeof(bad_deals[0]); i++) {
		su.deal = bad_deals[i];
		if (G->init(&st, &su) != GB_EDEAL)
			fail_msg("bad deal %zu accepted", i);
	}
	su.deal = NULL;
	su.dealer = 4;
	assert_int_equal(G->init(&st, &su), GB_EDEAL);
	su.dealer = -1;
	assert_int_equal(G->init(&st, &su), GB_EDEAL);
	/* forgiving spelling in a forced deal, extra blanks included */
	su.dealer = 1;
	su.deal = " as ks q\xe2\x99\xa0 JS TS 9S 8S 7S 6S 5S 4S 3S 2S |AH KH QH JH 10H 9H 8H 7H 6H "
		  "5H 4H 3H 2H|AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|AC KC QC JC 10C 9C 8C 7C 6C 5C "
		  "4C 3C 2C";
	assert_int_equal(G->init(&st, &su), GB_OK);
	assert_true(st.hand[0] == CB_SUIT_MASK(CB_SPADES));
	assert_true(st.hand[3] == CB_SUIT_MASK(CB_CLUBS));
	assert_int_equal(G->turn(&st), 2);
	assert_int_equal(G->check(&st), GB_OK);
}

/* ---- bad input ---- */

static void test_parse_and_format(void **state)
{
	static const struct {
		const char *text, *canon;
	} good[] = {
		{ "bid 3", "bid 3" },
		{ "  BID   8 ", "bid 8" },
		{ "bid \xe0\xa5\xaa", "bid 4" },  /* ४ */
		{ "call 2", "bid 2" },
		{ "bid 0", "bid 0" },             /* reads; apply() says why not */
		{ "bid 9", "bid 9" },
		{ "play QS", "play QS" },
		{ "PLAY qs", "play QS" },
		{ "play 10h", "play 10H" },
		{ "play th", "play 10H" },
		{ "play Q \xe2\x99\xa0", "play QS" },
		{ "play \xe2\x99\xa5" "A", "play AH" },
		{ "next", "next" },
		{ " Next ", "next" },
	};
	static const char *const bad[] = {
		"", "   ", "bid", "bid x", "bid 3 4", "bid -1", "bid 100", "bid 3.5", "play",
		"play QX", "play 1S", "play QS KS", "next 2", "roll", "move 2", "hello", "pass",
		"bidd 3", "play QSS",
	};
	struct callbreak st;

	(void)state;
	start(&st, NULL, 0, NULL, 5);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct gb_action a, b;
		char buf[GB_ACTION_TEXT];

		if (G->parse(&st, good[i].text, &a) != GB_OK)
			fail_msg("'%s' did not parse", good[i].text);
		G->format(&st, &a, buf, sizeof(buf));
		assert_string_equal(buf, good[i].canon);
		assert_int_equal(G->parse(&st, buf, &b), GB_OK);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gb_action a;

		if (G->parse(&st, bad[i], &a) != GB_EPARSE)
			fail_msg("'%s' should not parse", bad[i]);
	}
}

static void test_bad_actions_leave_state_unchanged(void **state)
{
	struct callbreak st, before;
	struct gb_action a;

	(void)state;
	start(&st, EX1, 3, NULL, 11);
	/* an action kind that Call Break does not have */
	before = st;
	for (int kind = GB_ACT_NONE; kind <= GB_ACT_PLACE; kind++) {
		a = (struct gb_action){ kind, 1, 0, 0 };
		assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
		assert_memory_equal(&st, &before, sizeof(st));
	}
	a = (struct gb_action){ 99, 0, 0, 0 };
	assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
	/* out-of-range numbers that parse() would never produce */
	a = (struct gb_action){ GB_ACT_BID, -5, 0, 0 };
	assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
	a = (struct gb_action){ GB_ACT_BID, 1000, 0, 0 };
	assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
	assert_memory_equal(&st, &before, sizeof(st));
	assert_int_equal(act(&st, "play KS", NULL), GB_EPHASE);
	expect_refusal(&st, 0, "play KS", GB_EPHASE, "play starts once all four have bid");
	expect_refusal(&st, 0, "next", GB_EPHASE, "next deals a new round once this round is over");
	bid_all(&st, "1 1 1 1");
	before = st;
	a = (struct gb_action){ GB_ACT_PLAY, 52, 0, 0 };
	assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
	a = (struct gb_action){ GB_ACT_PLAY, -1, 0, 0 };
	assert_int_equal(G->apply(&st, &a, NULL), GB_EILLEGAL);
	assert_memory_equal(&st, &before, sizeof(st));
	assert_int_equal(act(&st, "play AS", NULL), GB_EILLEGAL); /* seat 1's card */
	assert_int_equal(act(&st, "next", NULL), GB_EPHASE);
	assert_int_equal(act(&st, "bid 2", NULL), GB_EPHASE);
	assert_int_equal(act(&st, "play", NULL), GB_EPARSE);
	assert_int_equal(act(&st, "play 7H", NULL), GB_OK);
	assert_int_equal(act(&st, "play 5H", NULL), GB_EILLEGAL);
	assert_int_equal(act(&st, "play 7H", NULL), GB_EILLEGAL); /* already on the table */
}

/* ---- the naive reference (style rule 9) ---- */

/* CB-15 word for word: the highest spade in it, or if none, the highest card of the led suit. */
static int ref_winner(const int *t, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (t[i] / 13 == 0 && (best < 0 || t[i] % 13 > t[best] % 13))
			best = i;
	if (best >= 0)
		return best;
	for (int i = 0; i < n; i++)
		if (t[i] / 13 == t[0] / 13 && (best < 0 || t[i] % 13 > t[best] % 13))
			best = i;
	return best;
}

/*
 * CB-9 read literally, one card at a time: a card is legal unless one of the
 * four rules forbids it. Nothing is shared with the engine: no masks, no
 * precomputed facts, suits and ranks by division.
 */
static uint64_t ref_legal(const int *hand, int nh, const int *t, int n)
{
	uint64_t out = 0;

	for (int k = 0; k < nh; k++) {
		int c = hand[k], cs = c / 13, cr = c % 13;
		bool allowed = true;

		if (n > 0) {
			int led = t[0] / 13, high = -1, w = t[ref_winner(t, n)];
			bool hold_led = false, trumped = false, can_beat = false, hold_spade = false;
			bool spade_winning = w / 13 == 0, higher_spade = false;

			for (int i = 0; i < n; i++) {
				if (t[i] / 13 == led && t[i] % 13 > high)
					high = t[i] % 13;
				if (led != 0 && t[i] / 13 == 0)
					trumped = true;
			}
			for (int i = 0; i < nh; i++) {
				if (hand[i] / 13 == led)
					hold_led = true;
				if (hand[i] / 13 == led && hand[i] % 13 > high)
					can_beat = true;
				if (hand[i] / 13 == 0)
					hold_spade = true;
				if (hand[i] / 13 == 0 && spade_winning && hand[i] % 13 > w % 13)
					higher_spade = true;
			}
			/* 1. follow suit: holding the led suit, play it */
			if (hold_led && cs != led)
				allowed = false;
			/* 2. win if you can, unless someone has trumped */
			if (!trumped && can_beat && !(cs == led && cr > high))
				allowed = false;
			/* 3. trump when void, if nobody has trumped yet */
			if (!hold_led && !trumped && hold_spade && cs != 0)
				allowed = false;
			/* 4. over-trump if you can when a spade is winning */
			if (!hold_led && spade_winning && higher_spade && !(cs == 0 && cr > w % 13))
				allowed = false;
		}
		if (allowed)
			out |= UINT64_C(1) << c;
	}
	return out;
}

static void test_legal_cards_vs_reference(void **state)
{
	struct gb_rng r;
	long agreed = 0, empty_trick = 0, trumped = 0, narrowed = 0;

	(void)state;
	gb_rng_seed(&r, 20240601);
	for (long iter = 0; iter < 1100000; iter++) {
		int hand[13], nh = 0, t[CB_SEATS], n, suits, want;
		uint64_t used = 0, m = 0, got, ref;

		/* hands drawn from a random subset of suits, so voids are common */
		suits = 1 + (int)gb_rng_below(&r, 15);
		want = 1 + (int)gb_rng_below(&r, 13);
		for (int tries = 0; nh < want && tries < 200; tries++) {
			int c = (int)gb_rng_below(&r, CB_CARDS);

			if ((used & CB_BIT(c)) || !(suits & (1 << (c / 13))))
				continue;
			used |= CB_BIT(c);
			hand[nh++] = c;
			m |= CB_BIT(c);
		}
		n = (int)gb_rng_below(&r, CB_SEATS);
		for (int i = 0; i < n;) {
			int c = (int)gb_rng_below(&r, CB_CARDS);

			if (used & CB_BIT(c))
				continue;
			used |= CB_BIT(c);
			t[i++] = c;
		}
		got = callbreak_legal_cards(m, t, n);
		ref = ref_legal(hand, nh, t, n);
		if (got != ref) {
			char hs[128] = "", ts[32] = "";

			for (int i = 0; i < nh; i++)
				snprintf(hs + strlen(hs), sizeof(hs) - strlen(hs), "%s ",
					 callbreak_card_name(hand[i]));
			for (int i = 0; i < n; i++)
				snprintf(ts + strlen(ts), sizeof(ts) - strlen(ts), "%s ",
					 callbreak_card_name(t[i]));
			fail_msg("hand %s trick %s: engine %llx, reference %llx", hs, ts,
				 (unsigned long long)got, (unsigned long long)ref);
		}
		assert_true(got != 0 && (got & ~m) == 0);
		if (n > 0) {
			int tc[CB_SEATS];

			assert_int_equal(callbreak_trick_winner(t, n), ref_winner(t, n));
			/* a whole trick with the first legal card too */
			memcpy(tc, t, sizeof(int) * (size_t)n);
			tc[n] = __builtin_ctzll(got);
			assert_int_equal(callbreak_trick_winner(tc, n + 1), ref_winner(tc, n + 1));
			for (int i = 1; i < n; i++)
				trumped += (t[0] / 13 != 0 && t[i] / 13 == 0);
		} else {
			empty_trick++;
		}
		narrowed += got != m;
		agreed++;
	}
	/* the draw really covers the cases: many tricks trumped, many hands narrowed */
	assert_true(agreed >= 1000000);
	assert_true(empty_trick > 100000);
	assert_true(trumped > 50000);
	assert_true(narrowed > 300000);
}

/* ---- the view ---- */

/* Give the other seats' unseen cards out again at random, keeping counts. */
static void reshuffle_hidden(struct callbreak *st, int seat, struct gb_rng *r)
{
	int pool[CB_CARDS], np = 0, counts[CB_SEATS];

	for (int s = 0; s < CB_SEATS; s++) {
		counts[s] = __builtin_popcountll(st->hand[s]);
		if (s == seat)
			continue;
		for (int c = 0; c < CB_CARDS; c++)
			if (st->hand[s] & CB_BIT(c))
				pool[np++] = c;
		st->hand[s] = 0;
	}
	gb_rng_shuffle(r, pool, (size_t)np);
	for (int s = 0, k = 0; s < CB_SEATS; s++)
		if (s != seat)
			for (int i = 0; i < counts[s]; i++)
				st->hand[s] |= CB_BIT(pool[k++]);
	st->rng.s[0] ^= gb_rng_next(r); /* the generator (future deals) is hidden too */
}

static void check_view(const struct callbreak *st, struct gb_rng *r)
{
	int t[CB_SEATS], nt = st->phase == CB_PHASE_PLAY ? st->nplayed % CB_SEATS : 0;

	for (int i = 0; i < nt; i++)
		t[i] = st->seq[st->nplayed - nt + i];
	for (int seat = 0; seat < CB_SEATS; seat++) {
		struct callbreak_view v, w;
		struct callbreak other = *st;
		uint64_t gone = 0;

		callbreak_view(st, seat, &v);
		assert_int_equal(v.seat, seat);
		assert_true(v.hand == st->hand[seat]);
		assert_int_equal(v.turn, G->turn(st));
		assert_int_equal(v.ntrick, nt);
		for (int i = 0; i < st->nplayed - nt; i++)
			gone |= CB_BIT(st->seq[i]);
		assert_true(v.gone == gone);
		for (int s = 0; s < CB_SEATS; s++) {
			assert_int_equal(v.held[s], __builtin_popcountll(st->hand[s]));
			assert_true((v.lacks[s] & st->hand[s]) == 0);
		}
		if (st->phase == CB_PHASE_PLAY && G->turn(st) == seat)
			assert_true(v.legal == callbreak_legal_cards(st->hand[seat], t, nt));
		else
			assert_true(v.legal == 0);
		/* no leak: other hands and the generator changed, the view the same */
		reshuffle_hidden(&other, seat, r);
		callbreak_view(&other, seat, &w);
		assert_memory_equal(&v, &w, sizeof(v));
		/* the control: changing this seat's own hand does change its view */
		if (st->hand[seat] && st->hand[(seat + 1) % CB_SEATS]) {
			uint64_t mine = st->hand[seat] & -st->hand[seat];
			uint64_t theirs = st->hand[(seat + 1) % CB_SEATS] &
					  -st->hand[(seat + 1) % CB_SEATS];

			other = *st;
			other.hand[seat] ^= mine | theirs;
			other.hand[(seat + 1) % CB_SEATS] ^= mine | theirs;
			callbreak_view(&other, seat, &w);
			assert_true(memcmp(&v, &w, sizeof(v)) != 0);
		}
	}
}

static void test_view_hides_other_hands(void **state)
{
	struct callbreak st;
	struct callbreak_view v;
	struct gb_rng r;

	(void)state;
	gb_rng_seed(&r, 99);
	start(&st, EX6, 3, NULL, 6);
	check_view(&st, &r);
	bid_all(&st, "1 2 3 4");
	ok(&st, "play 9H");
	ok(&st, "play QS");
	check_view(&st, &r);
	callbreak_view(&st, 2, &v);
	assert_true(v.hand == cards("JS 4S AD KD 10D 9D 4D 3D 2D AC 9C 7C 4C"));
	assert_true(v.legal == v.hand);
	assert_int_equal(v.bid[3], 4);
	assert_int_equal(v.trick[0], C("9H"));
	assert_int_equal(v.trick[1], C("QS"));
	assert_int_equal(v.trick[2], -1);
	assert_int_equal(v.last_winner, -1);
	ok(&st, "play KD");
	ok(&st, "play 2H");
	callbreak_view(&st, 0, &v);
	assert_int_equal(v.last_winner, 1);
	assert_int_equal(v.last_leader, 0);
	assert_int_equal(v.last_trick[1], C("QS"));
	assert_true(v.gone == cards("9H QS KD 2H"));
	assert_int_equal(v.tricks[1], 1);
	assert_int_equal(v.held[0], 12);
	assert_true(v.legal == 0);
	check_view(&st, &r);
	/* a spectator sees the table and no hand */
	callbreak_view(&st, -1, &v);
	assert_true(v.hand == 0 && v.legal == 0);
	assert_int_equal(v.turn, 1);
	assert_true(v.gone == cards("9H QS KD 2H"));
}

/* ---- JSON ---- */

static json_t *mid_game_json(struct callbreak *st)
{
	start(st, SCORE, 3, "3", 5);
	bid_all(st, "3 3 4 1");
	ok_all(st, "play", "AD 2D 7S 5D 4S KS 10S 3S KD 10D");
	return G->to_json(st);
}

static void expect_bad_json(json_t *j, const char *what)
{
	struct callbreak st;

	if (G->from_json(&st, j) != GB_ESTATE) {
		char *s = json_dumps(j, JSON_COMPACT);

		fail_msg("accepted %s: %s", what, s);
	}
	json_decref(j);
}

static void test_json_malformed(void **state)
{
	struct callbreak st, back;
	json_t *j = mid_game_json(&st), *c;
	const char *key;
	json_t *val;

	(void)state;
	assert_int_equal(G->from_json(&back, NULL), GB_ESTATE);
	c = json_array();
	expect_bad_json(c, "an array");
	c = json_object();
	expect_bad_json(c, "an empty object");
	/* every key to_json writes is either needed or checked */
	json_object_foreach(j, key, val) {
		json_t *copy = json_deep_copy(j);
		int rc;

		json_object_del(copy, key);
		rc = G->from_json(&back, copy);
		assert_true(rc == GB_ESTATE || (rc == GB_OK && memcmp(&back, &st, sizeof(st)) == 0));
		json_decref(copy);
		copy = json_deep_copy(j);
		json_object_set_new(copy, key, json_string("x"));
		expect_bad_json(copy, key);
		copy = json_deep_copy(j);
		json_object_set_new(copy, key, json_integer(-1));
		expect_bad_json(copy, key);
	}
	for (size_t i = 0; i < 8; i++) {
		static const char *const required[] = { "rules", "rng", "round", "dealer",
							"hands", "bids", "played", "history" };

		c = json_deep_copy(j);
		json_object_del(c, required[i]);
		expect_bad_json(c, required[i]);
	}
#define MUTATE(what, code)                     \
	do {                                   \
		c = json_deep_copy(j);         \
		code;                          \
		expect_bad_json(c, what);      \
	} while (0)
	MUTATE("bad rng", json_object_set_new(c, "rng", json_string("12")));
	MUTATE("round 0", json_object_set_new(c, "round", json_integer(0)));
	MUTATE("round 4 of 3", json_object_set_new(c, "round", json_integer(4)));
	MUTATE("dealer 4", json_object_set_new(c, "dealer", json_integer(4)));
	MUTATE("rounds 2", json_object_set_new(c, "rules", json_pack("{s:s}", "rounds", "2")));
	MUTATE("rounds disagree", json_object_set_new(c, "rounds", json_integer(5)));
	MUTATE("other dealer", json_object_set_new(c, "dealer", json_integer(1)));
	MUTATE("phase", json_object_set_new(c, "phase", json_string("bid")));
	MUTATE("duplicate card",
	       json_array_append_new(json_array_get(json_object_get(c, "hands"), 0),
				     json_string("QS")));
	MUTATE("lost card", json_array_remove(json_array_get(json_object_get(c, "hands"), 1), 0));
	MUTATE("bad card",
	       json_array_set_new(json_array_get(json_object_get(c, "hands"), 1), 0,
				  json_string("ZZ")));
	MUTATE("bid 9", json_array_set_new(json_object_get(c, "bids"), 0, json_integer(9)));
	MUTATE("bid 0", json_array_set_new(json_object_get(c, "bids"), 0, json_integer(0)));
	MUTATE("missing bid", json_array_set_new(json_object_get(c, "bids"), 1, json_null()));
	MUTATE("three bids", json_array_remove(json_object_get(c, "bids"), 3));
	MUTATE("tricks", json_array_set_new(json_object_get(c, "tricks"), 3, json_integer(3)));
	MUTATE("trick card",
	       json_object_set_new(json_array_get(json_object_get(c, "trick"), 0), "card",
				   json_string("AS")));
	MUTATE("trick seat",
	       json_object_set_new(json_array_get(json_object_get(c, "trick"), 0), "seat",
				   json_integer(2)));
	MUTATE("leader", json_object_set_new(c, "leader", json_integer(0)));
	/* seat 2 discards AH instead of trumping with 7S: the same deal, an illegal play */
	MUTATE("illegal play", {
		json_t *h2 = json_array_get(json_object_get(c, "hands"), 2);
		size_t i;
		json_t *v;

		json_array_set_new(json_object_get(c, "played"), 2, json_string("AH"));
		json_array_foreach(h2, i, v)
			if (strcmp(json_string_value(v), "AH") == 0)
				json_array_set_new(h2, i, json_string("7S"));
	});
	MUTATE("played card also held",
	       json_array_append_new(json_object_get(c, "played"), json_string("QS")));
	MUTATE("totals", json_array_set_new(json_object_get(c, "totals"), 0, json_real(0.1)));
	MUTATE("totals_text", json_array_set_new(json_object_get(c, "totals_text"), 0,
						 json_string("0")));
	MUTATE("winner", json_object_set_new(c, "winner", json_integer(0)));
	MUTATE("tied", json_object_set_new(c, "tied", json_pack("[i,i]", 0, 1)));
	MUTATE("voids", json_object_set_new(c, "voids", json_pack("[[s],[],[],[]]", "H")));
	MUTATE("turns", json_object_set_new(c, "turns", json_integer(3)));
	MUTATE("history too long", json_array_append_new(json_object_get(c, "history"),
							 json_array()));
#undef MUTATE
	/* extra keys are fine */
	c = json_deep_copy(j);
	json_object_set_new(c, "comment", json_string("hello"));
	assert_int_equal(G->from_json(&back, c), GB_OK);
	assert_memory_equal(&back, &st, sizeof(st));
	json_decref(c);
	json_decref(j);

	/* history points must match the bid and tricks */
	start(&st, SCORE, 3, "3", 5);
	bid_all(&st, "3 3 4 1");
	play_round(&st, SCORE_PLAYS, NULL);
	ok(&st, "next");
	j = G->to_json(&st);
	c = json_deep_copy(j);
	json_array_set_new(json_array_get(json_array_get(json_object_get(c, "history"), 0), 1), 2,
			   json_real(3.0));
	expect_bad_json(c, "history points");
	c = json_deep_copy(j);
	json_array_set_new(json_array_get(json_array_get(json_object_get(c, "history"), 0), 1), 1,
			   json_integer(6));
	expect_bad_json(c, "history tricks not 13");
	c = json_deep_copy(j);
	json_array_set_new(json_array_get(json_array_get(json_object_get(c, "history"), 0), 1), 0,
			   json_integer(0));
	expect_bad_json(c, "history bid 0");
	assert_int_equal(G->from_json(&back, j), GB_OK);
	assert_memory_equal(&back, &st, sizeof(st));
	json_decref(j);
}

/* Replace one random leaf of a JSON value with a random value: a fuzz step. */
static void mutate_json(json_t *j, struct gb_rng *r)
{
	json_t *parent = j, *child = NULL;
	const char *key = NULL;
	size_t idx = 0;
	json_t *repl;
	char keybuf[64];

	for (int depth = 0; depth < 6; depth++) {
		if (json_is_object(parent) && json_object_size(parent)) {
			size_t k = gb_rng_below(r, (uint32_t)json_object_size(parent)), i = 0;
			const char *kk;
			json_t *vv;

			json_object_foreach(parent, kk, vv) {
				if (i++ == k) {
					key = kk;
					child = vv;
					break;
				}
			}
		} else if (json_is_array(parent) && json_array_size(parent)) {
			idx = gb_rng_below(r, (uint32_t)json_array_size(parent));
			key = NULL;
			child = json_array_get(parent, idx);
		} else {
			break;
		}
		if (!(json_is_object(child) || json_is_array(child)) || gb_rng_below(r, 3) == 0)
			break;
		parent = child;
	}
	if (!child)
		return;
	if (key) {
		/* the key text belongs to the object: keep a copy while replacing */
		snprintf(keybuf, sizeof(keybuf), "%s", key);
		key = keybuf;
	}
	switch (gb_rng_below(r, 7)) {
	case 0: repl = json_null(); break;
	case 1: repl = json_integer((json_int_t)gb_rng_below(r, 60) - 5); break;
	case 2: repl = json_string(callbreak_card_name((int)gb_rng_below(r, 53))); break;
	case 3: repl = json_array(); break;
	case 4: repl = json_real(gb_rng_below(r, 100) / 10.0); break;
	case 5: repl = json_object(); break;
	default: repl = json_string("bid"); break;
	}
	if (key)
		json_object_set_new(parent, key, repl);
	else
		json_array_set_new(parent, idx, repl);
}

/* ---- random games ---- */

struct stats {
	long games, actions, bad_tried, ties, round_trips, views, fuzz_ok;
	int rounds_seen[6];
};

/* A forced deal written in random spellings, so the deal reader is exercised too. */
static void random_deal_text(struct gb_rng *r, char *buf, size_t n)
{
	int deck[CB_CARDS];
	size_t used = 0;

	for (int i = 0; i < CB_CARDS; i++)
		deck[i] = i;
	gb_rng_shuffle(r, deck, CB_CARDS);
	for (int i = 0; i < CB_CARDS; i++) {
		const char *name = callbreak_card_name(deck[i]);
		char card[16];
		int c = deck[i];

		switch (gb_rng_below(r, 4)) {
		case 0: snprintf(card, sizeof(card), "%s", name); break;
		case 1:
			snprintf(card, sizeof(card), "%c%c", "23456789TJQKA"[c % 13], "shdc"[c / 13]);
			break;
		case 2:
			snprintf(card, sizeof(card), "%.*s%s", (int)strlen(name) - 1, name,
				 callbreak_suit_symbol(c / 13));
			break;
		default:
			snprintf(card, sizeof(card), "%s%.*s", callbreak_suit_symbol(c / 13),
				 (int)strlen(name) - 1, name);
			break;
		}
		used += (size_t)snprintf(buf + used, n - used, "%s%s", card,
					 i == CB_CARDS - 1 ? "" : (i % 13 == 12 ? "|" : " "));
	}
}

static void random_game(uint64_t seed, int rule, struct stats *sx)
{
	struct callbreak st, again;
	struct gb_setup su;
	struct gb_rng r;
	struct gb_action log[400];
	int nlog = 0;
	char deal[600];

	gb_rng_seed(&r, seed ^ 0x5eedULL);
	gb_setup_init(&su, G);
	su.seed = seed;
	su.rules.v[0] = (unsigned char)rule;
	su.dealer = (int)gb_rng_below(&r, CB_SEATS);
	if (gb_rng_below(&r, 4) == 0) {
		random_deal_text(&r, deal, sizeof(deal));
		su.deal = deal;
	}
	assert_int_equal(G->init(&st, &su), GB_OK);
	assert_int_equal(G->check(&st), GB_OK);
	while (st.phase != CB_PHASE_GAME_OVER) {
		struct gb_action acts[GB_MAX_LEGAL], a;
		struct gb_events ev = { 0 };
		int n = G->legal(&st, acts), rc;
		char text[GB_ACTION_TEXT], did[GB_EVENT_TEXT];

		assert_true(n > 0);
		if (gb_rng_below(&r, 5) == 0) {
			/* a random action: apply must accept it exactly when legal() lists it */
			struct callbreak before = st;

			a = (struct gb_action){ (int)gb_rng_below(&r, 8),
						(int)gb_rng_below(&r, 60) - 3,
						gb_rng_below(&r, 8) == 0, 0 };
			rc = G->apply(&st, &a, &ev);
			assert_int_equal(rc == GB_OK, gb_action_is_legal(G, &before, &a));
			sx->bad_tried++;
			if (rc) {
				assert_memory_equal(&st, &before, sizeof(st));
				assert_int_equal(ev.n, 0);
				continue;
			}
		} else {
			a = acts[gb_rng_below(&r, (uint32_t)n)];
			assert_int_equal(G->apply(&st, &a, &ev), GB_OK);
		}
		/* the first event is the action in canonical syntax, and it reads back */
		G->format(&st, &a, text, sizeof(text));
		assert_true(ev.n > 0);
		G->format_event(&ev.ev[0], did, sizeof(did));
		assert_string_equal(did, text);
		{
			struct gb_action b;

			assert_int_equal(G->parse(&st, text, &b), GB_OK);
			assert_int_equal(b.kind, a.kind);
			assert_int_equal(b.a, a.a);
		}
		assert_true(nlog < 400);
		log[nlog++] = a;
		sx->actions++;
		assert_int_equal(G->check(&st), GB_OK);
		if (gb_rng_below(&r, 80) == 0) {
			/* at random steps, some 20,000 in all: JSON is by far the
			 * costliest part of this test under the sanitizers (the unit
			 * tests round-trip every kind of position explicitly); the
			 * full text round trip every eighth time */
			if (sx->round_trips % 8 == 0) {
				assert_round_trip(&st);
			} else {
				struct callbreak back;
				json_t *j = G->to_json(&st);

				assert_int_equal(G->from_json(&back, j), GB_OK);
				assert_memory_equal(&back, &st, sizeof(st));
				json_decref(j);
			}
			sx->round_trips++;
		}
		if (gb_rng_below(&r, 40) == 0) {
			check_view(&st, &r);
			sx->views++;
		}
		if (gb_rng_below(&r, 600) == 0) {
			/* fuzz: a mutated save is refused or is a sound state */
			json_t *j = gb_state_json(G, &st);
			struct callbreak f;

			mutate_json(j, &r);
			if (G->from_json(&f, j) == GB_OK) {
				assert_int_equal(G->check(&f), GB_OK);
				sx->fuzz_ok++;
			}
			json_decref(j);
		}
	}
	/* the end: totals are the sums of the sheet; the named winner is the top */
	{
		struct gb_outcome oc;
		int best = 0, ntop = 0;

		G->outcome(&st, &oc);
		assert_true(oc.over);
		assert_false(oc.draw);
		assert_int_equal(oc.turns, st.rounds * (CB_SEATS + CB_CARDS));
		assert_int_equal(st.nhist, st.rounds);
		for (int s = 0; s < CB_SEATS; s++) {
			int sum = 0;

			for (int k = 0; k < st.nhist; k++)
				sum += callbreak_score(st.hist[k][s].bid, st.hist[k][s].tricks);
			assert_int_equal(sum, oc.score[s]);
			if (oc.score[s] > oc.score[best])
				best = s;
		}
		for (int s = 0; s < CB_SEATS; s++)
			ntop += oc.score[s] == oc.score[best];
		assert_int_equal(oc.winner, best);
		assert_int_equal(st.tied != 0, ntop > 1);
		sx->ties += ntop > 1;
		for (int k = 0; k < st.nhist; k++) {
			int sum = 0;

			for (int s = 0; s < CB_SEATS; s++)
				sum += st.hist[k][s].tricks;
			assert_int_equal(sum, CB_TRICKS);
		}
		sx->rounds_seen[st.rounds]++;
	}
	/* determinism: the same setup and actions give the same bytes */
	assert_int_equal(G->init(&again, &su), GB_OK);
	for (int i = 0; i < nlog; i++)
		assert_int_equal(G->apply(&again, &log[i], NULL), GB_OK);
	assert_memory_equal(&again, &st, sizeof(st));
	sx->games++;
}

static void test_random_games(void **state)
{
	struct stats sx;

	(void)state;
	memset(&sx, 0, sizeof(sx));
	for (int g = 0; g < 10002; g++)
		random_game(gb_seed_derive(424242, (uint64_t)g), g % 3, &sx);
	printf("  %ld games (%d of 5 rounds, %d of 3, %d of 1), %ld actions, %ld random actions, "
	       "%ld round trips, %ld view checks, %ld ties, %ld fuzzed saves accepted\n",
	       sx.games, sx.rounds_seen[5], sx.rounds_seen[3], sx.rounds_seen[1], sx.actions,
	       sx.bad_tried, sx.round_trips, sx.views, sx.ties, sx.fuzz_ok);
	assert_true(sx.games >= 10000);
	assert_true(sx.rounds_seen[5] > 3000 && sx.rounds_seen[3] > 3000 && sx.rounds_seen[1] > 3000);
	assert_true(sx.ties > 0);
	assert_true(sx.views > 1000);
}

static void test_check_catches_corruption(void **state)
{
	struct callbreak st, bad;
	json_t *j;

	(void)state;
	j = mid_game_json(&st);
	json_decref(j);
	assert_int_equal(G->check(&st), GB_OK);
#define CORRUPT(code)                                            \
	do {                                                     \
		bad = st;                                        \
		code;                                            \
		assert_int_equal(G->check(&bad), GB_EINVARIANT); \
	} while (0)
	CORRUPT(bad.tricks[0]++);
	CORRUPT(bad.total[2] += 1);
	CORRUPT(bad.hand[0] |= CB_BIT(C("2C")));
	CORRUPT(bad.hand[0] &= bad.hand[0] - 1);
	CORRUPT(bad.leader = (bad.leader + 1) % 4);
	CORRUPT(bad.phase = CB_PHASE_BID);
	CORRUPT(bad.phase = 7);
	CORRUPT(bad.nplayed--);
	CORRUPT(bad.bid[1] = 9);
	CORRUPT(bad.gone = 0);
	CORRUPT(bad.lacks[1] = 0);
	CORRUPT(bad.winner = 2);
	CORRUPT(bad.rounds = 5);
	CORRUPT(bad.round = 0);
	CORRUPT(bad.dealer = 9);
	CORRUPT(bad.seq[40] = 1);
	CORRUPT(bad.rules.v[3] = 1);
	CORRUPT(bad.last_winner = -1);
#undef CORRUPT
}

static void test_format_event(void **state)
{
	static const struct {
		struct gb_event ev;
		const char *text;
	} cases[] = {
		{ { CB_EV_BID, 1, 3, 0, 0 }, "bid 3" },
		{ { CB_EV_PLAY, 2, 8 + 13, 0, 0 }, "play 10H" },
		{ { CB_EV_TRICK, 2, 5, 12, 0 }, "trick 5 to seat 2 with AS" },
		{ { CB_EV_ROUND_OVER, -1, 4, 0, 0 }, "round 4 over" },
		{ { CB_EV_SCORE, 0, 3, 5, 32 }, "seat 0 bid 3 won 5 +3.2" },
		{ { CB_EV_SCORE, 3, 4, 2, -40 }, "seat 3 bid 4 won 2 -4.0" },
		{ { CB_EV_NEXT, -1, 0, 0, 0 }, "next" },
		{ { CB_EV_DEAL, 1, 2, 0, 0 }, "round 2 dealer 1" },
		{ { CB_EV_GAME_OVER, 3, 0, 0, 0 }, "game over winner 3" },
		{ { CB_EV_GAME_OVER, 0, 13, 0, 0 }, "game over winner 0 tied 0 2 3" },
		{ { 999, 0, 0, 0, 0 }, "" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[GB_EVENT_TEXT];

		G->format_event(&cases[i].ev, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
	assert_string_equal(callbreak_phase_name(CB_PHASE_ROUND_OVER), "round_over");
	assert_string_equal(callbreak_phase_name(9), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_parse_forms),
		cmocka_unit_test(test_card_parse_rejects),
		cmocka_unit_test(test_card_format_round_trip),
		cmocka_unit_test(test_cb_example_01_win_if_you_can),
		cmocka_unit_test(test_cb_example_02_card_to_beat_is_led_suit),
		cmocka_unit_test(test_cb_example_03_trumped_lifts_win_if_you_can),
		cmocka_unit_test(test_cb_example_04_trump_when_void),
		cmocka_unit_test(test_cb_example_05_over_trump),
		cmocka_unit_test(test_cb_example_06_cannot_over_trump),
		cmocka_unit_test(test_cb_example_07_spade_lead),
		cmocka_unit_test(test_cb_example_08_scores),
		cmocka_unit_test(test_cb_example_09_bidding),
		cmocka_unit_test(test_tie_names_lowest_seat),
		cmocka_unit_test(test_round_flow_and_next),
		cmocka_unit_test(test_rules_table),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_bad_actions_leave_state_unchanged),
		cmocka_unit_test(test_legal_cards_vs_reference),
		cmocka_unit_test(test_view_hides_other_hands),
		cmocka_unit_test(test_json_malformed),
		cmocka_unit_test(test_check_catches_corruption),
		cmocka_unit_test(test_format_event),
		cmocka_unit_test(test_random_games),
	};

	return cmocka_run_group_tests_name("callbreak", tests, NULL, NULL);
}
