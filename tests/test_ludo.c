/*
 * test_ludo.c - the Ludo rules core against rules/ludo.md.
 *
 * Three kinds of test (house style rule 9):
 *   - every worked example of the rules document, and the numbered rules
 *     around it, as a unit test on hand-built positions with exact events;
 *   - a deliberately naive reference (naive_*) that walks tokens square by
 *     square over an explicit board and settles a whole roll its own way;
 *     random games compare it with the real apply() at every step;
 *   - random complete games over every house-rule combination and table
 *     size with check() after every action, JSON round trips, replay
 *     determinism and random bad actions that must leave the state alone.
 * Every applied action in this file is followed by ludo_game.check().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/game.h"
#include "games/ludo.h"

static const struct gb_game *G = &ludo_game;

/* ---- helpers ------------------------------------------------------------ */

/* A fresh game: players, then rule "key=value" strings, NULL-terminated. */
static void start(struct ludo *st, int players, uint64_t seed, ...)
{
	struct gb_setup su;
	va_list ap;
	const char *kv;

	gb_setup_init(&su, G);
	su.players = players;
	su.seed = seed;
	va_start(ap, seed);
	while ((kv = va_arg(ap, const char *)) != NULL)
		assert_int_equal(gb_rules_set_kv(G, &su.rules, kv), GB_OK);
	va_end(ap);
	assert_int_equal(G->init(st, &su), GB_OK);
	assert_int_equal(G->check(st), GB_OK);
}

/* Put a seat's four tokens at route positions and check the position is sane. */
static void place(struct ludo *st, int seat, int a, int b, int c, int d)
{
	st->pos[seat][0] = (uint8_t)a;
	st->pos[seat][1] = (uint8_t)b;
	st->pos[seat][2] = (uint8_t)c;
	st->pos[seat][3] = (uint8_t)d;
}

/* The did list as one string joined by '|'. */
static void did(const struct gb_events *ev, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < ev->n && used < n; i++) {
		char e[GB_EVENT_TEXT];

		G->format_event(&ev->ev[i], e, sizeof(e));
		used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "|" : "", e);
	}
}

/* Apply and require success, a sane state and exactly the did list `want`. */
static void act_ok(struct ludo *st, int kind, int a, int die, const char *want)
{
	struct gb_action act = { kind, a, 0, die };
	struct gb_events ev = { 0 };
	char got[512];

	assert_int_equal(G->check(st), GB_OK);
	assert_int_equal(G->apply(st, &act, &ev), GB_OK);
	assert_int_equal(G->check(st), GB_OK);
	assert_int_equal(ev.dropped, 0);
	did(&ev, got, sizeof(got));
	assert_string_equal(got, want);
}

static void roll(struct ludo *st, int die, const char *want)
{
	act_ok(st, GB_ACT_ROLL, 0, die, want);
}

static void move(struct ludo *st, int token1, const char *want)
{
	act_ok(st, GB_ACT_MOVE, token1 - 1, 0, want);
}

/* Apply must fail with rc and leave every byte as it was. */
static void act_fails(struct ludo *st, int kind, int a, int die, int rc)
{
	struct ludo before;
	struct gb_action act = { kind, a, 0, die };
	struct gb_events ev = { 0 };

	memcpy(&before, st, sizeof(before));
	assert_int_equal(G->apply(st, &act, &ev), rc);
	assert_memory_equal(&before, st, sizeof(before));
	assert_int_equal(G->check(st), GB_OK);
}

static void assert_tokens(const struct ludo *st, int seat, int a, int b, int c, int d)
{
	assert_int_equal(st->pos[seat][0], a);
	assert_int_equal(st->pos[seat][1], b);
	assert_int_equal(st->pos[seat][2], c);
	assert_int_equal(st->pos[seat][3], d);
}

/* The sorted legal texts joined by '|'. */
static void legal_text(const struct ludo *st, char *buf, size_t n)
{
	json_t *arr = gb_legal_json(G, st);
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(arr, i, v)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "|" : "", json_string_value(v));
	json_decref(arr);
}

static void assert_legal(const struct ludo *st, const char *want)
{
	char got[256];

	legal_text(st, got, sizeof(got));
	assert_string_equal(got, want);
}

/* ---- worked examples of rules/ludo.md ----------------------------------- */

static void test_lu_example_01_all_in_base_five_wasted(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 4, 1, NULL);
	roll(&st, 5, "roll 5|wasted");
	assert_int_equal(st.seat, 1);
	assert_int_equal(st.phase, LUDO_PHASE_ROLL);
	assert_int_equal(st.turns, 1);
	assert_tokens(&st, 0, 0, 0, 0, 0);
}

static void test_lu_example_02_all_in_base_six_comes_out(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 4, 1, NULL);
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_tokens(&st, 0, 1, 0, 0, 0);  /* on the start square, not six along (LU-8) */
	assert_int_equal(st.seat, 0);
	assert_int_equal(st.phase, LUDO_PHASE_ROLL);
	assert_int_equal(st.sixes, 1);
	assert_int_equal(st.turns, 0);
	assert_legal(&st, "roll");
}

static void test_lu_example_03_six_choice_out_or_on(void **s)
{
	struct ludo st, copy;

	(void)s;
	start(&st, 4, 1, NULL);
	place(&st, 0, 0, 0, 0, 10);
	roll(&st, 6, "roll 6");
	assert_int_equal(st.phase, LUDO_PHASE_MOVE);
	assert_int_equal(st.die, 6);
	assert_legal(&st, "move 1|move 2|move 3|move 4");
	assert_int_equal(ludo_target(&st, 0, 6), 1);
	assert_int_equal(ludo_target(&st, 3, 6), 16);
	memcpy(&copy, &st, sizeof(st));
	move(&copy, 2, "move 2|extra roll six");
	assert_tokens(&copy, 0, 0, 1, 0, 10);
	move(&st, 4, "move 4|extra roll six");
	assert_tokens(&st, 0, 0, 0, 0, 16);
	assert_int_equal(st.seat, 0);
}

static void test_lu_example_04_exact_two_to_centre(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	place(&st, 0, 55, 0, 0, 0);
	roll(&st, 2, "roll 2|move 1|centre|extra roll centre");
	assert_tokens(&st, 0, 57, 0, 0, 0);
	assert_int_equal(st.seat, 0);
	assert_int_equal(st.phase, LUDO_PHASE_ROLL);
	/* the token in the centre never moves again; the rest are in base */
	roll(&st, 3, "roll 3|wasted");
	assert_int_equal(st.seat, 1);
}

static void test_lu_example_04b_needs_one_three_wasted(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	place(&st, 0, 57, 57, 57, 56);
	assert_int_equal(ludo_target(&st, 3, 3), -1);
	assert_int_equal(ludo_target(&st, 3, 1), 57);
	roll(&st, 3, "roll 3|wasted");
	assert_int_equal(st.seat, 1);
	assert_int_equal(st.turns, 1);
	assert_tokens(&st, 0, 57, 57, 57, 56);
	/* LU-18 is not relaxed by a six either, and a wasted six gives nothing */
	roll(&st, 1, "roll 1|wasted");
	roll(&st, 6, "roll 6|wasted");
	assert_int_equal(st.seat, 1);
}

static void test_lu_example_05_capture_two_tokens(void **s)
{
	struct ludo st;

	(void)s;
	/* Red = seat 0 (corner 0), Green = seat 1 (corner 2). Green's route
	 * 5 is ring square 30 = Red's route 31, an ordinary square. */
	start(&st, 2, 1, NULL);
	place(&st, 0, 26, 0, 0, 0);
	place(&st, 1, 5, 5, 0, 0);
	assert_int_equal(ludo_ring_square(0, 31), 30);
	assert_int_equal(ludo_ring_square(2, 5), 30);
	assert_false(ludo_route_is_star(31));
	assert_int_equal(ludo_captures(&st, 0, 0, 5), 2);
	roll(&st, 5, "roll 5|move 1|capture 1|extra roll capture");
	assert_tokens(&st, 0, 31, 0, 0, 0);
	assert_tokens(&st, 1, 0, 0, 0, 0);
	assert_int_equal(st.seat, 0);
	assert_int_equal(st.phase, LUDO_PHASE_ROLL);
	assert_int_equal(st.sixes, 0);
}

static void test_lu_example_06_star_no_capture(void **s)
{
	struct ludo st;

	(void)s;
	/* Green's start square (ring 26) is Red's route 27, a star */
	start(&st, 2, 1, NULL);
	place(&st, 0, 23, 0, 0, 0);
	place(&st, 1, 1, 0, 0, 0);
	assert_true(ludo_route_is_star(27));
	assert_int_equal(ludo_captures(&st, 0, 0, 4), 0);
	roll(&st, 4, "roll 4|move 1");
	assert_tokens(&st, 0, 27, 0, 0, 0);
	assert_tokens(&st, 1, 1, 0, 0, 0);
	assert_int_equal(st.seat, 1);  /* no extra roll */
	/* the same with a six: both stay, and the six's own roll is the reason */
	start(&st, 2, 1, NULL);
	place(&st, 0, 21, 57, 57, 57);
	place(&st, 1, 1, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_tokens(&st, 0, 27, 57, 57, 57);
	assert_tokens(&st, 1, 1, 0, 0, 0);
	assert_int_equal(st.seat, 0);
}

static void test_lu_example_07_pass_over_no_capture(void **s)
{
	struct ludo st;

	(void)s;
	/* Green at its route 4 = ring 29 = Red's route 30; Red goes 28 -> 33 */
	start(&st, 2, 1, NULL);
	place(&st, 0, 28, 0, 0, 0);
	place(&st, 1, 4, 0, 0, 0);
	roll(&st, 5, "roll 5|move 1");
	assert_tokens(&st, 0, 33, 0, 0, 0);
	assert_tokens(&st, 1, 4, 0, 0, 0);
	assert_int_equal(st.seat, 1);
}

static void test_lu_example_08_third_six_ends_turn(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 4, 1, NULL);
	roll(&st, 6, "roll 6|move 1|extra roll six");
	roll(&st, 6, "roll 6");
	assert_int_equal(st.sixes, 2);
	move(&st, 1, "move 1|extra roll six");
	assert_tokens(&st, 0, 7, 0, 0, 0);
	roll(&st, 6, "roll 6|third six");
	/* the first two moves stand; nothing goes back to base */
	assert_tokens(&st, 0, 7, 0, 0, 0);
	assert_int_equal(st.seat, 1);
	assert_int_equal(st.sixes, 0);
	assert_int_equal(st.turns, 1);
	/* the next player's count starts afresh */
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_int_equal(st.sixes, 1);
}

static void test_lu_example_09_six_bonus_off(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, "six_bonus=off", NULL);
	roll(&st, 6, "roll 6|move 1");
	assert_tokens(&st, 0, 1, 0, 0, 0);
	assert_int_equal(st.seat, 1);
	/* ... unless it reached the centre */
	start(&st, 2, 1, "six_bonus=off", NULL);
	place(&st, 0, 51, 57, 57, 57);
	roll(&st, 6, "roll 6|move 1|centre|wins");
	start(&st, 2, 1, "six_bonus=off", NULL);
	place(&st, 0, 51, 57, 57, 50);
	roll(&st, 6, "roll 6");
	move(&st, 1, "move 1|centre|extra roll centre");
	assert_int_equal(st.seat, 0);
	/* ... or captured: Green's route 5 = ring 30 = Red's 31 */
	start(&st, 2, 1, "six_bonus=off", NULL);
	place(&st, 0, 25, 57, 57, 57);
	place(&st, 1, 5, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1|extra roll capture");
	assert_int_equal(st.seat, 0);
}

static void test_lu_example_10_one_releases(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 4, 1, "one_releases=on", NULL);
	roll(&st, 1, "roll 1|move 1");
	assert_tokens(&st, 0, 1, 0, 0, 0);
	assert_int_equal(st.seat, 1);
	/* with the rule off a one cannot open the door */
	start(&st, 4, 1, NULL);
	roll(&st, 1, "roll 1|wasted");
	assert_tokens(&st, 0, 0, 0, 0, 0);
}

static void test_lu_example_11_six_capture_announces_capture(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	place(&st, 0, 25, 57, 57, 57);
	place(&st, 1, 5, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1|extra roll capture");
	assert_tokens(&st, 1, 0, 0, 0, 0);
	assert_int_equal(st.sixes, 1);
	/* with capture_bonus=off the six is what gives the roll */
	start(&st, 2, 1, "capture_bonus=off", NULL);
	place(&st, 0, 25, 57, 57, 57);
	place(&st, 1, 5, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1|extra roll six");
	/* and with both off the turn passes after the capture */
	start(&st, 2, 1, "capture_bonus=off", "six_bonus=off", NULL);
	place(&st, 0, 25, 57, 57, 57);
	place(&st, 1, 5, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1");
	assert_int_equal(st.seat, 1);
}

static void test_lu_example_12_fifty_one_six_centre(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	place(&st, 0, 51, 0, 0, 0);
	roll(&st, 6, "roll 6");
	assert_legal(&st, "move 1|move 2|move 3|move 4");
	move(&st, 1, "move 1|centre|extra roll centre");
	assert_tokens(&st, 0, 57, 0, 0, 0);
	assert_int_equal(st.seat, 0);
	assert_int_equal(st.sixes, 1);  /* the six still counts toward three */
}

/* ---- the numbered rules around the examples ------------------------------ */

static void test_lu_02_route_and_corners(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	assert_int_equal(st.corner[0], 0);
	assert_int_equal(st.corner[1], 2);
	start(&st, 3, 1, NULL);
	assert_int_equal(st.corner[2], 2);
	start(&st, 4, 1, NULL);
	assert_int_equal(st.corner[3], 3);
	assert_int_equal(ludo_ring_square(0, 1), 0);
	assert_int_equal(ludo_ring_square(1, 1), 13);
	assert_int_equal(ludo_ring_square(3, 51), 37);  /* 39 + 50 - 52 */
	assert_int_equal(ludo_ring_square(0, 51), 50);  /* the 52nd square is never walked */
	assert_int_equal(ludo_ring_square(0, 0), -1);
	assert_int_equal(ludo_ring_square(0, 52), -1);
	assert_int_equal(ludo_ring_square(4, 1), -1);
	/* 51 -> home column, then the centre */
	start(&st, 2, 1, NULL);
	place(&st, 0, 49, 57, 57, 57);
	roll(&st, 3, "roll 3|move 1");
	assert_int_equal(st.pos[0][0], 52);
	assert_int_equal(ludo_ring_square(0, 52), -1);
}

static void test_lu_03_eight_stars(void **s)
{
	int n = 0;

	(void)s;
	for (int p = 0; p <= 57; p++)
		if (ludo_route_is_star(p)) {
			assert_int_equal(p, ludo_star_route[n]);
			n++;
		}
	assert_int_equal(n, LUDO_NSTARS);
	n = 0;
	for (int sq = 0; sq < LUDO_RING; sq++)
		if (ludo_ring_is_star(sq)) {
			assert_int_equal(sq, ludo_star_ring[n]);
			n++;
		}
	assert_int_equal(n, LUDO_NSTARS);
	/* every seat's route stars are ring stars, at every corner */
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < LUDO_NSTARS; i++)
			assert_true(ludo_ring_is_star(ludo_ring_square(c, ludo_star_route[i])));
}

static void test_lu_03_empty_corner_star_is_open_shelter(void **s)
{
	struct ludo st;

	(void)s;
	/* two players: corner 1's start square (ring 13) is a star nobody owns */
	start(&st, 2, 1, NULL);
	place(&st, 0, 10, 0, 0, 0);
	place(&st, 1, 40, 0, 0, 0);  /* ring (26 + 39) mod 52 = 13 */
	assert_int_equal(ludo_ring_square(2, 40), 13);
	roll(&st, 4, "roll 4|move 1");
	assert_tokens(&st, 1, 40, 0, 0, 0);
}

static void test_lu_06_no_move_turn_passes(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 3, 1, NULL);
	st.seat = 2;
	place(&st, 2, 57, 57, 54, 0);
	roll(&st, 5, "roll 5|wasted");
	assert_int_equal(st.seat, 0);  /* three players: seat 2 passes to 0 */
}

static void test_lu_07_stack_moves_by_itself(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 4, 1, NULL);
	place(&st, 0, 12, 12, 57, 57);
	roll(&st, 3, "roll 3|move 1");
	assert_tokens(&st, 0, 15, 12, 57, 57);
	/* one legal token among others that cannot move */
	start(&st, 4, 1, NULL);
	place(&st, 0, 55, 30, 0, 0);
	roll(&st, 4, "roll 4|move 2");
	assert_tokens(&st, 0, 55, 34, 0, 0);
	/* two squares: a real choice; every token of a stack is accepted */
	start(&st, 4, 1, NULL);
	place(&st, 0, 12, 12, 30, 0);
	roll(&st, 3, "roll 3");
	assert_legal(&st, "move 1|move 2|move 3");
	move(&st, 2, "move 2");
	assert_tokens(&st, 0, 12, 15, 30, 0);
}

static void test_lu_10_coming_out_never_captures(void **s)
{
	struct ludo st;

	(void)s;
	/* Green (corner 2) sits on Red's start square (ring 0 = Green route 27) */
	start(&st, 2, 1, NULL);
	place(&st, 1, 27, 0, 0, 0);
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_tokens(&st, 0, 1, 0, 0, 0);
	assert_tokens(&st, 1, 27, 0, 0, 0);
}

static void test_lu_11_one_is_a_choice(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, "one_releases=on", NULL);
	place(&st, 0, 20, 0, 0, 0);
	roll(&st, 1, "roll 1");
	assert_legal(&st, "move 1|move 2|move 3|move 4");
	move(&st, 3, "move 3");
	assert_tokens(&st, 0, 20, 0, 1, 0);
	assert_int_equal(st.seat, 1);  /* a one never gives another roll */
}

static void test_lu_14_three_of_one_opponent_go_home(void **s)
{
	struct ludo st;

	(void)s;
	/* four players: seat 1 (corner 1) tokens at its route 10 = ring 22 =
	 * seat 0's route 23 */
	start(&st, 4, 1, NULL);
	place(&st, 0, 20, 0, 0, 0);
	place(&st, 1, 10, 10, 10, 3);
	place(&st, 3, 30, 0, 0, 0);
	roll(&st, 3, "roll 3|move 1|capture 1|extra roll capture");
	assert_tokens(&st, 1, 0, 0, 0, 3);
	assert_tokens(&st, 3, 30, 0, 0, 0);
}

static void test_lu_15_no_blocks(void **s)
{
	struct ludo st;

	(void)s;
	/* own stack on the way and an opponent pair on the way: both passed */
	start(&st, 2, 1, NULL);
	place(&st, 0, 2, 4, 4, 0);
	place(&st, 1, 32, 32, 0, 0);  /* ring 5 = Red's 6 */
	roll(&st, 5, "roll 5");
	move(&st, 1, "move 1");
	assert_tokens(&st, 0, 7, 4, 4, 0);
	assert_tokens(&st, 1, 32, 32, 0, 0);
	/* landing on one's own stack is fine */
	start(&st, 2, 1, NULL);
	place(&st, 0, 2, 4, 4, 0);
	roll(&st, 2, "roll 2");
	move(&st, 1, "move 1");
	assert_tokens(&st, 0, 4, 4, 4, 0);
}

static void test_lu_16_home_column_out_of_reach(void **s)
{
	struct ludo st;

	(void)s;
	/* Red at 52, the first square of its home column. Were it still on
	 * the ring it would stand on ring 51, an ordinary square, which is
	 * Green's route 26: Green lands there and Red stays. */
	start(&st, 2, 1, NULL);
	place(&st, 0, 52, 0, 0, 0);
	place(&st, 1, 23, 0, 0, 0);
	st.seat = 1;
	assert_int_equal(ludo_ring_square(2, 26), 51);
	assert_false(ludo_ring_is_star(51));
	roll(&st, 3, "roll 3|move 1");
	assert_tokens(&st, 0, 52, 0, 0, 0);
	assert_tokens(&st, 1, 26, 0, 0, 0);
	for (int c = 0; c < 4; c++)
		for (int p = LUDO_HOME_FIRST; p <= LUDO_CENTRE; p++)
			assert_int_equal(ludo_ring_square(c, p), -1);
}

static void test_lu_18_exact_last_step(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	for (int die = 1; die <= 6; die++) {
		place(&st, 0, 55, 0, 0, 0);
		assert_int_equal(ludo_target(&st, 0, die), die <= 2 ? 55 + die : -1);
	}
	place(&st, 0, 57, 0, 0, 0);
	for (int die = 1; die <= 6; die++)
		assert_int_equal(ludo_target(&st, 0, die), -1);
}

static void test_lu_19_win_stops_game(void **s)
{
	struct ludo st;
	struct gb_outcome oc;
	struct gb_action acts[GB_MAX_LEGAL];

	(void)s;
	start(&st, 4, 1, NULL);
	st.turns = 17;
	st.seat = 2;
	place(&st, 2, 57, 57, 57, 54);
	place(&st, 0, 20, 30, 0, 0);
	roll(&st, 3, "roll 3|move 4|centre|wins");
	assert_int_equal(st.winner, 2);
	assert_int_equal(G->turn(&st), -1);
	assert_int_equal(G->legal(&st, acts), 0);
	G->outcome(&st, &oc);
	assert_true(oc.over);
	assert_int_equal(oc.winner, 2);
	assert_false(oc.draw);
	assert_int_equal(oc.turns, 18);
	act_fails(&st, GB_ACT_ROLL, 0, 0, GB_EOVER);
	act_fails(&st, GB_ACT_MOVE, 0, 0, GB_EOVER);
	assert_int_equal(ludo_target(&st, 0, 6), -1);
}

static void test_lu_20_priority_centre_over_six(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, "six_bonus=off", "capture_bonus=off", NULL);
	place(&st, 0, 55, 0, 0, 0);
	roll(&st, 2, "roll 2|move 1|centre|extra roll centre");
	assert_int_equal(st.seat, 0);
}

static void test_lu_21_sixes_count_across_capture_rolls(void **s)
{
	struct ludo st;

	(void)s;
	/* six_bonus=off: sixes that capture still give rolls, and the third
	 * six in a row still ends the turn */
	start(&st, 2, 1, "six_bonus=off", NULL);
	/* Red 19 -> 25 lands on ring 24 (Green's 51), then 25 -> 31 on ring
	 * 30 (Green's 5): two capturing sixes in a row */
	assert_int_equal(ludo_ring_square(2, 51), 24);
	assert_int_equal(ludo_ring_square(2, 5), 30);
	place(&st, 0, 19, 57, 57, 57);
	place(&st, 1, 51, 5, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1|extra roll capture");
	assert_tokens(&st, 1, 0, 5, 0, 0);
	roll(&st, 6, "roll 6|move 1|capture 1|extra roll capture");
	assert_tokens(&st, 1, 0, 0, 0, 0);
	assert_int_equal(st.sixes, 2);
	roll(&st, 6, "roll 6|third six");
	assert_tokens(&st, 0, 31, 57, 57, 57);
	assert_int_equal(st.seat, 1);
	/* any other number resets the count: 6, 6, then a capturing 3 gives
	 * a roll with the count back at zero, so two more sixes are allowed */
	start(&st, 2, 1, NULL);
	place(&st, 0, 10, 57, 57, 57);
	place(&st, 1, 51, 0, 0, 0);  /* ring 24 = Red's 25 */
	roll(&st, 6, "roll 6|move 1|extra roll six");
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_int_equal(st.sixes, 2);
	roll(&st, 3, "roll 3|move 1|capture 1|extra roll capture");
	assert_int_equal(st.sixes, 0);
	roll(&st, 6, "roll 6|move 1|extra roll six");
	roll(&st, 6, "roll 6|move 1|extra roll six");
	assert_tokens(&st, 0, 37, 57, 57, 57);
	roll(&st, 6, "roll 6|third six");
	assert_int_equal(st.seat, 1);
}

static void test_lu_22_six_without_move_wasted(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	place(&st, 0, 57, 57, 53, 57);
	roll(&st, 6, "roll 6|wasted");
	assert_int_equal(st.seat, 1);
	assert_int_equal(st.sixes, 0);
}

/* ---- interface details ---------------------------------------------------- */

static void test_rule_table_matches_document(void **s)
{
	(void)s;
	assert_int_equal(G->nrules, 3);
	assert_string_equal(G->rules[LUDO_RULE_ONE_RELEASES].key, "one_releases");
	assert_string_equal(G->rules[LUDO_RULE_ONE_RELEASES].values[0], "off");
	assert_string_equal(G->rules[LUDO_RULE_ONE_RELEASES].values[1], "on");
	assert_null(G->rules[LUDO_RULE_ONE_RELEASES].values[2]);
	assert_string_equal(G->rules[LUDO_RULE_SIX_BONUS].key, "six_bonus");
	assert_string_equal(G->rules[LUDO_RULE_SIX_BONUS].values[0], "on");
	assert_string_equal(G->rules[LUDO_RULE_SIX_BONUS].values[1], "off");
	assert_string_equal(G->rules[LUDO_RULE_CAPTURE_BONUS].key, "capture_bonus");
	assert_string_equal(G->rules[LUDO_RULE_CAPTURE_BONUS].values[0], "on");
	assert_string_equal(G->rules[LUDO_RULE_CAPTURE_BONUS].values[1], "off");
	assert_int_equal(G->min_players, 2);
	assert_int_equal(G->max_players, 4);
	assert_int_equal(G->default_players, 4);
	assert_int_equal(G->state_size, sizeof(struct ludo));
	assert_ptr_equal(gb_game_find("ludo"), G);
}

static void test_init_errors(void **s)
{
	struct ludo st;
	struct gb_setup su;

	(void)s;
	gb_setup_init(&su, G);
	assert_int_equal(su.players, 4);
	su.players = 1;
	assert_int_equal(G->init(&st, &su), GB_EPLAYERS);
	su.players = 5;
	assert_int_equal(G->init(&st, &su), GB_EPLAYERS);
	su.players = 2;
	su.rules.v[LUDO_RULE_SIX_BONUS] = 2;
	assert_int_equal(G->init(&st, &su), GB_ERULE_VALUE);
	su.rules.v[LUDO_RULE_SIX_BONUS] = 0;
	su.rules.v[5] = 1;
	assert_int_equal(G->init(&st, &su), GB_ERULE_VALUE);
}

static void test_parse_and_format(void **s)
{
	struct ludo st;
	struct gb_action a;
	char buf[GB_ACTION_TEXT];
	static const char *const bad[] = {
		"", "   ", "jump", "move", "move 0", "move 5", "move x", "move 1 2", "move -1",
		"roll 3", "roll now", "rol", "moves 1", "move 12", "move ५",
		/* a number too long to read whole is refused, not read in part:
		 * 30 zeros, a 2, then junk that must not slip through */
		"move 0000000000000000000000000000002junk",
		"move 00000000000000000000000000000000000000000002", NULL
	};

	(void)s;
	start(&st, 2, 1, NULL);
	assert_int_equal(G->parse(&st, "roll", &a), GB_OK);
	assert_int_equal(a.kind, GB_ACT_ROLL);
	assert_int_equal(a.die, 0);
	assert_int_equal(G->parse(&st, "  ROLL \t", &a), GB_OK);
	assert_int_equal(a.kind, GB_ACT_ROLL);
	assert_int_equal(G->parse(&st, "move 3", &a), GB_OK);
	assert_int_equal(a.kind, GB_ACT_MOVE);
	assert_int_equal(a.a, 2);
	assert_int_equal(G->parse(&st, " Move    4 ", &a), GB_OK);
	assert_int_equal(a.a, 3);
	assert_int_equal(G->parse(&st, "move \xe0\xa5\xa8", &a), GB_OK); /* Devanagari 2 */
	assert_int_equal(a.a, 1);
	for (int i = 0; bad[i]; i++) {
		a.kind = 99;
		assert_int_equal(G->parse(&st, bad[i], &a), GB_EPARSE);
		assert_int_equal(a.kind, GB_ACT_NONE);
	}
	/* format writes what parse reads back */
	for (int t = 0; t < 4; t++) {
		struct gb_action m = { GB_ACT_MOVE, t, 0, 0 }, back;

		G->format(&st, &m, buf, sizeof(buf));
		assert_int_equal(G->parse(&st, buf, &back), GB_OK);
		assert_int_equal(back.kind, GB_ACT_MOVE);
		assert_int_equal(back.a, t);
	}
	a = (struct gb_action){ GB_ACT_ROLL, 0, 0, 5 };
	G->format(&st, &a, buf, sizeof(buf));
	assert_string_equal(buf, "roll");
}

static void test_format_events(void **s)
{
	static const struct {
		struct gb_event e;
		const char *text;
	} cases[] = {
		{ { LUDO_EV_ROLL, 0, 4, 0, 0 }, "roll 4" },
		{ { LUDO_EV_MOVE, 1, 2, 10, 14 }, "move 3" },
		{ { LUDO_EV_AUTOMOVE, 1, 0, 0, 1 }, "move 1" },
		{ { LUDO_EV_CAPTURE, 0, 3, 2, 30 }, "capture 3" },
		{ { LUDO_EV_CENTRE, 0, 1, 0, 0 }, "centre" },
		{ { LUDO_EV_EXTRA, 0, LUDO_EXTRA_CAPTURE, 0, 0 }, "extra roll capture" },
		{ { LUDO_EV_EXTRA, 0, LUDO_EXTRA_CENTRE, 0, 0 }, "extra roll centre" },
		{ { LUDO_EV_EXTRA, 0, LUDO_EXTRA_SIX, 0, 0 }, "extra roll six" },
		{ { LUDO_EV_WASTED, 0, 5, 0, 0 }, "wasted" },
		{ { LUDO_EV_THIRD_SIX, 0, 0, 0, 0 }, "third six" },
		{ { LUDO_EV_WIN, 2, 0, 0, 0 }, "wins" },
		{ { 999, 0, 0, 0, 0 }, "" },
	};
	char buf[GB_EVENT_TEXT];

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		G->format_event(&cases[i].e, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
}

static void test_bad_actions_leave_state(void **s)
{
	struct ludo st;

	(void)s;
	start(&st, 2, 1, NULL);
	act_fails(&st, GB_ACT_MOVE, 0, 0, GB_EPHASE);
	act_fails(&st, GB_ACT_ROLL, 0, 7, GB_EILLEGAL);
	act_fails(&st, GB_ACT_ROLL, 0, -1, GB_EILLEGAL);
	act_fails(&st, GB_ACT_PLACE, 3, 0, GB_EILLEGAL);
	act_fails(&st, GB_ACT_NONE, 0, 0, GB_EILLEGAL);
	act_fails(&st, GB_ACT_ROLL, 2, 0, GB_EILLEGAL);   /* not the legal list's roll */
	place(&st, 0, 57, 20, 30, 0);
	roll(&st, 5, "roll 5");
	act_fails(&st, GB_ACT_ROLL, 0, 0, GB_EPHASE);
	act_fails(&st, GB_ACT_MOVE, 0, 0, GB_EILLEGAL);  /* in the centre */
	act_fails(&st, GB_ACT_MOVE, 3, 0, GB_EILLEGAL);  /* in base with a five */
	act_fails(&st, GB_ACT_MOVE, 4, 0, GB_EILLEGAL);
	act_fails(&st, GB_ACT_MOVE, -1, 0, GB_EILLEGAL);
	act_fails(&st, GB_ACT_BID, 1, 0, GB_EILLEGAL);
	move(&st, 3, "move 3");
	assert_tokens(&st, 0, 57, 20, 35, 0);
}

static void test_seeded_dice(void **s)
{
	struct ludo a, b;
	struct gb_action roll_act = { GB_ACT_ROLL, 0, 0, 0 };
	struct gb_events ev = { 0 };
	struct gb_rng r;

	(void)s;
	start(&a, 4, 77, NULL);
	start(&b, 4, 77, NULL);
	assert_memory_equal(&a, &b, sizeof(a));
	gb_rng_seed(&r, 77);
	for (int i = 0; i < 50 && a.winner < 0; i++) {
		if (a.phase == LUDO_PHASE_MOVE) {
			int t[LUDO_TOKENS];
			struct gb_action m = { GB_ACT_MOVE, 0, 0, 0 };

			ludo_movable(&a, a.die, t);
			m.a = t[0];
			assert_int_equal(G->apply(&a, &m, NULL), GB_OK);
			continue;
		}
		ev.n = 0;
		assert_int_equal(G->apply(&a, &roll_act, &ev), GB_OK);
		assert_int_equal(G->check(&a), GB_OK);
		/* the die is the state's generator's next die */
		assert_int_equal(ev.ev[0].type, LUDO_EV_ROLL);
		assert_int_equal(ev.ev[0].a, gb_rng_die(&r));
		assert_memory_equal(&a.rng, &r, sizeof(r));
	}
	/* a forced die leaves the generator alone */
	start(&a, 4, 77, NULL);
	roll(&a, 3, "roll 3|wasted");
	assert_memory_equal(&a.rng, &b.rng, sizeof(b.rng));
}

/* ---- JSON ------------------------------------------------------------------ */

/* to_json -> from_json must give the same bytes and the same JSON. */
static void roundtrip(const struct ludo *st)
{
	struct ludo back;
	json_t *j = G->to_json(st), *j2, *full;

	assert_non_null(j);
	memset(&back, 0xab, sizeof(back));
	assert_int_equal(G->from_json(&back, j), GB_OK);
	assert_memory_equal(st, &back, sizeof(back));
	j2 = G->to_json(&back);
	assert_true(json_equal(j, j2));
	/* the full contract object (with game, over, turn, legal) reads back too */
	full = gb_state_json(G, st);
	assert_non_null(full);
	memset(&back, 0xcd, sizeof(back));
	assert_int_equal(G->from_json(&back, full), GB_OK);
	assert_memory_equal(st, &back, sizeof(back));
	json_decref(full);
	json_decref(j);
	json_decref(j2);
}

static void test_json_contract_fields(void **s)
{
	struct ludo st;
	json_t *j;

	(void)s;
	start(&st, 2, 9, "one_releases=on", NULL);
	place(&st, 0, 0, 0, 0, 10);
	roll(&st, 6, "roll 6");
	j = gb_state_json(G, &st);
	assert_string_equal(json_string_value(json_object_get(j, "game")), "ludo");
	assert_true(json_is_false(json_object_get(j, "over")));
	assert_int_equal(json_integer_value(json_object_get(j, "turn")), 0);
	assert_string_equal(json_string_value(json_object_get(j, "phase")), "move");
	assert_int_equal(json_integer_value(json_object_get(j, "dice")), 6);
	assert_true(json_is_null(json_object_get(j, "winner")));
	assert_int_equal(json_array_size(json_object_get(j, "tokens")), 2);
	assert_int_equal(json_integer_value(json_array_get(
				 json_array_get(json_object_get(j, "tokens"), 0), 3)), 10);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "rules"),
							      "one_releases")), "on");
	assert_int_equal(json_array_size(json_object_get(j, "legal")), 4);
	json_decref(j);
	roundtrip(&st);
	move(&st, 4, "move 4|extra roll six");
	j = G->to_json(&st);
	assert_string_equal(json_string_value(json_object_get(j, "phase")), "roll");
	assert_true(json_is_null(json_object_get(j, "dice")));
	json_decref(j);
	roundtrip(&st);
}

/* from_json of `text` must fail cleanly and leave a zeroed state. */
static void json_bad(const char *text)
{
	struct ludo st;
	json_error_t err;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &err);

	assert_non_null(j);
	memset(&st, 0x5a, sizeof(st));
	if (G->from_json(&st, j) != GB_ESTATE)
		fail_msg("accepted: %s", text);
	json_decref(j);
}

static void test_json_malformed(void **s)
{
#define RNG "\"rng\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\""
#define OK_TAIL "\"phase\":\"roll\",\"dice\":null,\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG
	static const char *const bad[] = {
		"null", "[]", "3", "\"ludo\"", "{}",
		/* types and ranges */
		"{\"players\":5,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":\"2\",\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,58],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,-1],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,1.5],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":{}," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"jump\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":3,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"move\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":2,\"sixes\":0,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":3,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":-1," RNG "}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0,\"rng\":\"xyz\"}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0,\"rng\":"
		"\"0000000000000000000000000000000000000000000000000000000000000000\"}",
		/* rules, corners, game name */
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL
		",\"rules\":{\"six_bonus\":\"maybe\"}}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL ",\"rules\":[]}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL ",\"corners\":[0,1]}",
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL ",\"game\":\"snakes\"}",
		/* consistency: winner, shared ordinary square, phase without choice */
		"{\"players\":2,\"tokens\":[[57,57,57,57],[0,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[57,57,57,56],[0,0,0,0]],\"phase\":\"roll\",\"dice\":null,"
		"\"winner\":0,\"seat\":0,\"sixes\":0,\"turns\":3," RNG "}",
		"{\"players\":2,\"tokens\":[[31,0,0,0],[5,0,0,0]]," OK_TAIL "}",
		"{\"players\":2,\"tokens\":[[10,0,0,0],[0,0,0,0]],\"phase\":\"move\",\"dice\":3,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG "}",
		"{\"players\":2,\"tokens\":[[10,0,0,0],[0,0,0,0]],\"phase\":\"move\",\"dice\":6,"
		"\"winner\":null,\"seat\":0,\"sixes\":0,\"turns\":0," RNG "}",
		NULL
	};
	static const char *const good[] = {
		"{\"players\":2,\"tokens\":[[0,0,0,0],[0,0,0,0]]," OK_TAIL "}",
		/* two seats on a star is fine (ring 26: Red 27, Green 1) */
		"{\"players\":2,\"tokens\":[[27,0,0,0],[1,0,0,0]]," OK_TAIL
		",\"game\":\"ludo\",\"turn\":0,\"legal\":[\"roll\"],\"over\":false}",
		"{\"players\":2,\"tokens\":[[10,0,0,0],[0,0,0,0]],\"phase\":\"move\",\"dice\":6,"
		"\"winner\":null,\"seat\":0,\"sixes\":2,\"turns\":0," RNG "}",
		NULL
	};

	(void)s;
	for (int i = 0; bad[i]; i++)
		json_bad(bad[i]);
	for (int i = 0; good[i]; i++) {
		struct ludo st;
		json_error_t err;
		json_t *j = json_loads(good[i], 0, &err);

		assert_non_null(j);
		if (G->from_json(&st, j) != GB_OK)
			fail_msg("refused: %s", good[i]);
		assert_int_equal(G->check(&st), GB_OK);
		roundtrip(&st);
		json_decref(j);
	}
#undef OK_TAIL
#undef RNG
}

static void test_check_catches_broken_states(void **s)
{
	struct ludo st, bad;

	(void)s;
	start(&st, 3, 5, NULL);
	place(&st, 0, 10, 0, 0, 0);
	assert_int_equal(G->check(&st), GB_OK);
#define BROKEN(stmt)                                                   \
	do {                                                           \
		memcpy(&bad, &st, sizeof(bad));                        \
		stmt;                                                  \
		assert_int_equal(G->check(&bad), GB_EINVARIANT);       \
	} while (0)
	BROKEN(bad.pos[0][1] = 58);
	BROKEN(bad.pos[3][0] = 1);           /* an empty seat with a token */
	BROKEN(bad.corner[1] = 2);
	BROKEN(bad.corner[3] = 3);
	BROKEN(bad.players = 1);
	BROKEN(bad.seat = 3);
	BROKEN(bad.sixes = 3);
	BROKEN(bad.turns = -1);
	BROKEN(bad.die = 4);                 /* a die in the roll phase */
	BROKEN(bad.phase = 2);
	BROKEN(bad.phase = LUDO_PHASE_MOVE; bad.die = 3);   /* only one token can move */
	BROKEN(bad.winner = 0);
	BROKEN(place(&bad, 1, 57, 57, 57, 57));             /* finished but no winner */
	BROKEN(bad.rules.v[0] = 2);
	BROKEN(bad.rules.v[6] = 1);
	BROKEN(memset(&bad.rng, 0, sizeof(bad.rng)));
	BROKEN(bad.pos[1][0] = 49);          /* corner 1 route 49 = ring 9 = seat 0's 10 */
#undef BROKEN
}

/* ---- the naive reference ---------------------------------------------------- */

/*
 * A second, deliberately plain model of the rules: the board is a set of
 * named places (base, ring square, home column square, centre) and a token
 * walks one step at a time. It settles a whole roll or move and describes
 * what should follow as a fresh struct ludo plus the did strings, written
 * without using ludo.c's helpers.
 */
enum { N_BASE, N_RING, N_HOME, N_CENTRE };

struct nplace {
	int kind;
	int idx;  /* ring square 0..51, or home column square 0..4 */
};

static const int naive_stars[8] = { 0, 8, 13, 21, 26, 34, 39, 47 };

static bool naive_is_star(int sq)
{
	for (int i = 0; i < 8; i++)
		if (naive_stars[i] == sq)
			return true;
	return false;
}

static int naive_corner(int players, int seat)
{
	if (players == 2)
		return seat == 0 ? 0 : 2;
	return seat;
}

static struct nplace naive_place_of(int corner, int p)
{
	struct nplace pl = { N_BASE, 0 };

	if (p == 0)
		return pl;
	if (p == 57) {
		pl.kind = N_CENTRE;
		return pl;
	}
	if (p >= 52) {
		pl.kind = N_HOME;
		pl.idx = p - 52;
		return pl;
	}
	/* walk p - 1 steps round the ring from the start square */
	pl.kind = N_RING;
	pl.idx = corner * 13;
	for (int i = 1; i < p; i++)
		pl.idx = pl.idx == 51 ? 0 : pl.idx + 1;
	return pl;
}

static int naive_route_of(int corner, struct nplace pl)
{
	int steps = 0, sq = corner * 13;

	switch (pl.kind) {
	case N_BASE:
		return 0;
	case N_CENTRE:
		return 57;
	case N_HOME:
		return 52 + pl.idx;
	default:
		while (sq != pl.idx) {
			sq = (sq + 1) % 52;
			steps++;
		}
		return steps + 1;
	}
}

/* Walk `die` steps; false when the token cannot. */
static bool naive_walk(int corner, bool one_releases, struct nplace *pl, int die)
{
	int last = (corner * 13 + 50) % 52;  /* the 51st ring square, where it turns off */

	if (pl->kind == N_BASE) {
		if (die == 6 || (die == 1 && one_releases)) {
			pl->kind = N_RING;
			pl->idx = corner * 13;
			return true;
		}
		return false;
	}
	for (int i = 0; i < die; i++) {
		if (pl->kind == N_CENTRE)
			return false;
		if (pl->kind == N_HOME) {
			if (pl->idx == 4)
				pl->kind = N_CENTRE;
			else
				pl->idx++;
		} else if (pl->idx == last) {
			pl->kind = N_HOME;
			pl->idx = 0;
		} else {
			pl->idx = (pl->idx + 1) % 52;
		}
	}
	return true;
}

struct nresult {
	struct ludo st;
	char did[512];
};

static void nsay(struct nresult *r, const char *text)
{
	size_t len = strlen(r->did);

	snprintf(r->did + len, sizeof(r->did) - len, "%s%s", len ? "|" : "", text);
}

/* Move token t of the seat to act with die, in place; returns captured count. */
static int naive_move_board(struct ludo *st, int t, int die, bool one_releases, char *cap_text,
			    size_t n)
{
	int seat = st->seat, c = naive_corner(st->players, seat), captured = 0;
	struct nplace pl = naive_place_of(c, st->pos[seat][t]);

	cap_text[0] = '\0';
	assert_true(naive_walk(c, one_releases, &pl, die));
	st->pos[seat][t] = (uint8_t)naive_route_of(c, pl);
	if (pl.kind != N_RING || naive_is_star(pl.idx))
		return 0;
	for (int s = 0; s < st->players; s++) {
		int hit = 0;

		if (s == seat)
			continue;
		for (int u = 0; u < 4; u++) {
			struct nplace o = naive_place_of(naive_corner(st->players, s), st->pos[s][u]);

			if (o.kind == N_RING && o.idx == pl.idx) {
				st->pos[s][u] = 0;
				hit++;
			}
		}
		if (hit) {
			size_t len = strlen(cap_text);

			snprintf(cap_text + len, n - len, "%scapture %d", len ? "|" : "", s);
			captured += hit;
		}
	}
	return captured;
}

static int cmp_u8(const void *a, const void *b)
{
	return *(const uint8_t *)a - *(const uint8_t *)b;
}

/* Do two boards show the same game, tokens of a seat being interchangeable? */
static bool naive_same_board(const struct ludo *a, const struct ludo *b)
{
	for (int s = 0; s < 4; s++) {
		uint8_t x[4], y[4];

		memcpy(x, a->pos[s], 4);
		memcpy(y, b->pos[s], 4);
		qsort(x, 4, 1, cmp_u8);
		qsort(y, 4, 1, cmp_u8);
		if (memcmp(x, y, 4))
			return false;
	}
	return true;
}

static void naive_pass(struct ludo *st)
{
	st->seat = (uint8_t)((st->seat + 1) % st->players);
	st->sixes = 0;
	st->phase = LUDO_PHASE_ROLL;
	st->die = 0;
	st->turns++;
}

/* The consequences of moving token t (after the board move). */
static void naive_after_move(struct nresult *r, int t, int die)
{
	struct ludo *st = &r->st;
	bool one = st->rules.v[LUDO_RULE_ONE_RELEASES] == 1;
	bool six_bonus = st->rules.v[LUDO_RULE_SIX_BONUS] == 0;
	bool cap_bonus = st->rules.v[LUDO_RULE_CAPTURE_BONUS] == 0;
	char cap[128], word[32];
	int captured, at_centre = 0;

	captured = naive_move_board(st, t, die, one, cap, sizeof(cap));
	if (cap[0])
		nsay(r, cap);
	st->phase = LUDO_PHASE_ROLL;
	st->die = 0;
	if (st->pos[st->seat][t] == 57) {
		nsay(r, "centre");
		for (int u = 0; u < 4; u++)
			at_centre += st->pos[st->seat][u] == 57;
		if (at_centre == 4) {
			nsay(r, "wins");
			st->winner = (int8_t)st->seat;
			st->sixes = 0;
			st->turns++;
			return;
		}
	}
	if (captured && cap_bonus)
		snprintf(word, sizeof(word), "extra roll capture");
	else if (st->pos[st->seat][t] == 57)
		snprintf(word, sizeof(word), "extra roll centre");
	else if (die == 6 && six_bonus)
		snprintf(word, sizeof(word), "extra roll six");
	else
		word[0] = '\0';
	if (word[0])
		nsay(r, word);
	else
		naive_pass(st);
}

/* Which tokens can use die, by walking each one. */
static int naive_legal_tokens(const struct ludo *st, int die, int out[4])
{
	int n = 0, c = naive_corner(st->players, st->seat);
	bool one = st->rules.v[LUDO_RULE_ONE_RELEASES] == 1;

	for (int t = 0; t < 4; t++) {
		struct nplace pl = naive_place_of(c, st->pos[st->seat][t]);

		if (naive_walk(c, one, &pl, die))
			out[n++] = t;
	}
	return n;
}

/* Expected result of rolling `die` (the generator already advanced in in->rng). */
static void naive_roll(const struct ludo *in, int die, struct nresult *r)
{
	int toks[4], n;
	char word[32];
	bool all_same = true;

	memcpy(&r->st, in, sizeof(*in));
	r->did[0] = '\0';
	snprintf(word, sizeof(word), "roll %d", die);
	nsay(r, word);
	r->st.sixes = die == 6 ? (uint8_t)(r->st.sixes + 1) : 0;
	if (r->st.sixes == 3) {
		nsay(r, "third six");
		naive_pass(&r->st);
		return;
	}
	n = naive_legal_tokens(&r->st, die, toks);
	if (n == 0) {
		nsay(r, "wasted");
		naive_pass(&r->st);
		return;
	}
	/* LU-7 by brute force: do every legal move and compare whole boards */
	for (int i = 1; i < n; i++) {
		struct ludo a, b;
		char cap[128];
		bool one = r->st.rules.v[LUDO_RULE_ONE_RELEASES] == 1;

		memcpy(&a, &r->st, sizeof(a));
		memcpy(&b, &r->st, sizeof(b));
		naive_move_board(&a, toks[0], die, one, cap, sizeof(cap));
		naive_move_board(&b, toks[i], die, one, cap, sizeof(cap));
		if (!naive_same_board(&a, &b))
			all_same = false;
	}
	if (!all_same) {
		r->st.phase = LUDO_PHASE_MOVE;
		r->st.die = (uint8_t)die;
		return;
	}
	snprintf(word, sizeof(word), "move %d", toks[0] + 1);
	nsay(r, word);
	naive_after_move(r, toks[0], die);
}

static void naive_move(const struct ludo *in, int t, struct nresult *r)
{
	char word[32];

	memcpy(&r->st, in, sizeof(*in));
	r->did[0] = '\0';
	snprintf(word, sizeof(word), "move %d", t + 1);
	nsay(r, word);
	naive_after_move(r, t, in->die);
}

/* ---- random games ------------------------------------------------------------ */

struct rstats {
	long games, actions, rolls, moves, bad, roundtrips, captures, thirds, wasted, naive;
};

/*
 * One random complete game. Returns the number of actions and leaves the
 * final state in *out. `deep` turns on the naive comparison at every step
 * and more frequent JSON round trips. Bad actions never change the
 * state, so the same seeds replay the same game with or without them.
 */
static long random_game(int players, int rulebits, uint64_t seed, bool deep, bool bad_actions,
			struct ludo *out, struct rstats *stats)
{
	struct ludo st;
	struct gb_rng pick, badr;  /* the game's choices; the bad actions' own */
	struct gb_setup su;
	long n = 0;

	gb_setup_init(&su, G);
	su.players = players;
	su.seed = seed;
	su.rules.v[0] = rulebits & 1;
	su.rules.v[1] = (rulebits >> 1) & 1;
	su.rules.v[2] = (rulebits >> 2) & 1;
	assert_int_equal(G->init(&st, &su), GB_OK);
	gb_rng_seed(&pick, gb_seed_derive(seed, 99));
	gb_rng_seed(&badr, gb_seed_derive(seed, 98));
	while (st.winner < 0) {
		struct gb_action acts[GB_MAX_LEGAL], act = { 0 };
		struct gb_events ev = { 0 };
		struct nresult want;
		int nl = G->legal(&st, acts), rc;
		char got[512];

		assert_true(n < 200000);
		assert_true(nl >= 1);
		assert_int_equal(G->turn(&st), st.seat);

		if (bad_actions && gb_rng_below(&badr, 4) == 0) {
			/* any action at all: accepted exactly when it is legal */
			struct ludo before;
			struct gb_action b = { (int)gb_rng_below(&badr, 4), (int)gb_rng_below(&badr, 7) - 1,
					       (int)gb_rng_below(&badr, 2), (int)gb_rng_below(&badr, 9) - 1 };
			/* `die` means something for a roll only */
			bool legal = gb_action_is_legal(G, &st, &b) &&
				     (b.kind != GB_ACT_ROLL || (b.die >= 0 && b.die <= 6));

			if (!legal) {
				memcpy(&before, &st, sizeof(st));
				rc = G->apply(&st, &b, &ev);
				assert_int_not_equal(rc, GB_OK);
				assert_memory_equal(&before, &st, sizeof(st));
				ev.n = 0;
				stats->bad++;
			}
		}

		if (st.phase == LUDO_PHASE_ROLL) {
			struct ludo expect_from;
			int die;

			/* half the rolls forced, half from the state's generator */
			act.kind = GB_ACT_ROLL;
			act.die = gb_rng_below(&pick, 2) ? 1 + (int)gb_rng_below(&pick, 6) : 0;
			memcpy(&expect_from, &st, sizeof(st));
			die = act.die ? act.die : gb_rng_die(&expect_from.rng);
			if (deep)
				naive_roll(&expect_from, die, &want);
			stats->rolls++;
		} else {
			act.kind = GB_ACT_MOVE;
			act.a = acts[gb_rng_below(&pick, (uint32_t)nl)].a;
			if (deep)
				naive_move(&st, act.a, &want);
			stats->moves++;
		}
		rc = G->apply(&st, &act, &ev);
		assert_int_equal(rc, GB_OK);
		assert_int_equal(ev.dropped, 0);
		if (G->check(&st) != GB_OK) {
			char *js = json_dumps(G->to_json(&st), JSON_COMPACT);

			fail_msg("broken invariant after %ld actions: %s", n, js);
		}
		n++;
		for (int i = 0; i < ev.n; i++) {
			stats->captures += ev.ev[i].type == LUDO_EV_CAPTURE;
			stats->thirds += ev.ev[i].type == LUDO_EV_THIRD_SIX;
			stats->wasted += ev.ev[i].type == LUDO_EV_WASTED;
		}
		if (deep) {
			did(&ev, got, sizeof(got));
			if (strcmp(got, want.did) != 0 || memcmp(&st, &want.st, sizeof(st)) != 0) {
				char *a = json_dumps(G->to_json(&st), JSON_COMPACT);
				char *b = json_dumps(G->to_json(&want.st), JSON_COMPACT);

				fail_msg("naive reference differs after %ld actions:\n real  %s\n  %s\n naive %s\n  %s",
					 n, got, a, want.did, b);
			}
			stats->naive++;
		}
		/* JSON is the slow part of this loop: every 16th step of a deep
		 * game, every 256th of the others, and every final position */
		if (n % (deep ? 16 : 256) == 0) {
			roundtrip(&st);
			stats->roundtrips++;
		}
	}
	roundtrip(&st);
	memcpy(out, &st, sizeof(st));
	stats->games++;
	stats->actions += n;
	return n;
}

static void test_random_games_all_rules(void **s)
{
	struct rstats stats = { 0 };
	struct ludo fin, again;
	long games_per_config = 420;  /* 24 configurations: 10,080 games */
	int wins[4] = { 0 };

	(void)s;
	for (int players = 2; players <= 4; players++) {
		for (int rulebits = 0; rulebits < 8; rulebits++) {
			for (long g = 0; g < games_per_config; g++) {
				uint64_t seed = gb_seed_derive(1000u * (uint64_t)players + (uint64_t)rulebits,
							       (uint64_t)g);
				bool deep = g % 8 == 0;
				struct gb_outcome oc;
				struct rstats ignore = { 0 };
				long n = random_game(players, rulebits, seed, deep, true, &fin, &stats);

				G->outcome(&fin, &oc);
				assert_true(oc.over);
				assert_int_equal(oc.winner, fin.winner);
				assert_int_equal(ludo_home_count(&fin, fin.winner), 4);
				assert_true(oc.turns >= 1);
				wins[fin.winner]++;
				if (g % 20 == 0) {
					/* determinism: same seed, same choices, same bytes */
					long n2 = random_game(players, rulebits, seed, false, false, &again,
							      &ignore);

					assert_int_equal(n, n2);
					assert_memory_equal(&fin, &again, sizeof(fin));
				}
			}
		}
	}
	print_message("ludo random: %ld games, %ld actions (%ld rolls, %ld moves), %ld naive "
		      "comparisons, %ld round trips, %ld bad actions refused, %ld captures, "
		      "%ld third sixes, %ld wasted; wins by seat %d/%d/%d/%d\n",
		      stats.games, stats.actions, stats.rolls, stats.moves, stats.naive,
		      stats.roundtrips, stats.bad, stats.captures, stats.thirds, stats.wasted, wins[0],
		      wins[1], wins[2], wins[3]);
	assert_true(stats.games >= 10000);
	/* the random games must actually reach the interesting rules */
	assert_true(stats.captures > 1000);
	assert_true(stats.thirds > 100);
	assert_true(stats.wasted > 1000);
	assert_true(stats.naive > 100000);
	for (int i = 0; i < 4; i++)
		assert_true(wins[i] > 0);
}

/* The exported helpers agree with apply() on random positions. */
static void test_helpers_match_apply(void **s)
{
	struct gb_rng r;

	(void)s;
	gb_rng_seed(&r, 4242);
	for (int i = 0; i < 20000; i++) {
		struct ludo st;
		int players = 2 + (int)gb_rng_below(&r, 3);
		int die = 1 + (int)gb_rng_below(&r, 6);
		int mov[4], ch[4], nm, nc;

		start(&st, players, i, NULL);
		st.rules.v[0] = (unsigned char)gb_rng_below(&r, 2);
		st.seat = (uint8_t)gb_rng_below(&r, (uint32_t)players);
		/* a random sane position: place tokens one by one, skipping any
		 * that would share an ordinary square with another seat */
		for (int sidx = 0; sidx < players; sidx++)
			for (int t = 0; t < 4; t++) {
				uint8_t keep = st.pos[sidx][t];

				st.pos[sidx][t] = (uint8_t)gb_rng_below(&r, 58);
				if (G->check(&st) != GB_OK)
					st.pos[sidx][t] = keep;
			}
		if (G->check(&st) != GB_OK)
			continue;
		nm = ludo_movable(&st, die, mov);
		nc = ludo_choices(&st, die, ch);
		assert_true(nc <= nm);
		assert_true((nm == 0) == (nc == 0));
		for (int k = 0; k < nm; k++) {
			struct ludo after;
			struct nresult want;
			int to = ludo_target(&st, mov[k], die);
			int caps = ludo_captures(&st, st.seat, mov[k], die), lost = 0;

			memcpy(&after, &st, sizeof(st));
			after.phase = LUDO_PHASE_MOVE;
			after.die = (uint8_t)die;
			after.sixes = die == 6 ? 1 : 0;
			naive_move(&after, mov[k], &want);
			assert_int_equal(want.st.pos[st.seat][mov[k]], to);
			for (int o = 0; o < players; o++)
				for (int t = 0; t < 4; t++)
					lost += o != st.seat && st.pos[o][t] && !want.st.pos[o][t];
			assert_int_equal(caps, lost);
		}
		for (int t = 0; t < 4; t++) {
			bool in = false;

			for (int k = 0; k < nm; k++)
				in = in || mov[k] == t;
			assert_int_equal(in, ludo_target(&st, t, die) >= 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lu_example_01_all_in_base_five_wasted),
		cmocka_unit_test(test_lu_example_02_all_in_base_six_comes_out),
		cmocka_unit_test(test_lu_example_03_six_choice_out_or_on),
		cmocka_unit_test(test_lu_example_04_exact_two_to_centre),
		cmocka_unit_test(test_lu_example_04b_needs_one_three_wasted),
		cmocka_unit_test(test_lu_example_05_capture_two_tokens),
		cmocka_unit_test(test_lu_example_06_star_no_capture),
		cmocka_unit_test(test_lu_example_07_pass_over_no_capture),
		cmocka_unit_test(test_lu_example_08_third_six_ends_turn),
		cmocka_unit_test(test_lu_example_09_six_bonus_off),
		cmocka_unit_test(test_lu_example_10_one_releases),
		cmocka_unit_test(test_lu_example_11_six_capture_announces_capture),
		cmocka_unit_test(test_lu_example_12_fifty_one_six_centre),
		cmocka_unit_test(test_lu_02_route_and_corners),
		cmocka_unit_test(test_lu_03_eight_stars),
		cmocka_unit_test(test_lu_03_empty_corner_star_is_open_shelter),
		cmocka_unit_test(test_lu_06_no_move_turn_passes),
		cmocka_unit_test(test_lu_07_stack_moves_by_itself),
		cmocka_unit_test(test_lu_10_coming_out_never_captures),
		cmocka_unit_test(test_lu_11_one_is_a_choice),
		cmocka_unit_test(test_lu_14_three_of_one_opponent_go_home),
		cmocka_unit_test(test_lu_15_no_blocks),
		cmocka_unit_test(test_lu_16_home_column_out_of_reach),
		cmocka_unit_test(test_lu_18_exact_last_step),
		cmocka_unit_test(test_lu_19_win_stops_game),
		cmocka_unit_test(test_lu_20_priority_centre_over_six),
		cmocka_unit_test(test_lu_21_sixes_count_across_capture_rolls),
		cmocka_unit_test(test_lu_22_six_without_move_wasted),
		cmocka_unit_test(test_rule_table_matches_document),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_format_events),
		cmocka_unit_test(test_bad_actions_leave_state),
		cmocka_unit_test(test_seeded_dice),
		cmocka_unit_test(test_json_contract_fields),
		cmocka_unit_test(test_json_malformed),
		cmocka_unit_test(test_check_catches_broken_states),
		cmocka_unit_test(test_helpers_match_apply),
		cmocka_unit_test(test_random_games_all_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
