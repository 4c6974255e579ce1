/*
 * test_snakes.c - cmocka suite for the Snakes and Ladders rules core
 * (games/snakes.c, rules of record games/rules/snakes-and-ladders.md).
 *
 * What it proves: every worked example of the rules document holds exactly
 * (test_sl_example_NN_*); a random board keeps every SL-7 bound and stays
 * winnable over many seeds; a naive turn simulator written from the rule
 * text agrees with apply() on every start square, rule combination and
 * dice triple; 10,000+ random games across all house rules and player
 * counts keep check() green after every roll, round-trip through JSON
 * exactly, replay identically, and refuse bad actions without touching the
 * state; bad text and bad JSON get clean error codes.
 *
 * Every state an action produces goes through check() (see roll()).
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/game.h"
#include "games/snakes.h"

static const struct gb_game *G = &snakes_game;

/* ---- helpers ---- */

/* Start a game; rules is a NULL-terminated list of "key=value". */
static void start(struct snakes *s, int players, uint64_t seed, const char *const *rules)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.players = players;
	su.seed = seed;
	for (int i = 0; rules && rules[i]; i++)
		assert_int_equal(gb_rules_set_kv(G, &su.rules, rules[i]), GB_OK);
	assert_int_equal(G->init(s, &su), GB_OK);
	assert_int_equal(G->check(s), GB_OK);
}

/* Exact JSON round trip: to_json -> from_json -> memcmp and json_equal. */
static void assert_round_trip(const struct snakes *s)
{
	struct snakes back;
	json_t *j = G->to_json(s), *j2, *full;

	assert_non_null(j);
	assert_int_equal(G->from_json(&back, j), GB_OK);
	assert_memory_equal(&back, s, sizeof(*s));
	j2 = G->to_json(&back);
	assert_true(json_equal(j, j2));
	/* the contract's full object (with game/over/turn/legal) reads back too */
	full = gb_state_json(G, s);
	assert_non_null(full);
	assert_int_equal(G->from_json(&back, full), GB_OK);
	assert_memory_equal(&back, s, sizeof(*s));
	json_decref(j);
	json_decref(j2);
	json_decref(full);
}

/* Roll a forced die (0 = from the state's generator); checks invariants. */
static void roll(struct snakes *s, int die, struct gb_events *ev)
{
	struct gb_action a = { .kind = GB_ACT_ROLL, .die = die };

	memset(ev, 0, sizeof(*ev));
	assert_int_equal(G->apply(s, &a, ev), GB_OK);
	assert_int_equal(ev->dropped, 0);
	assert_int_equal(G->check(s), GB_OK);
	assert_round_trip(s);
}

/* The events as "did" strings must be exactly the NULL-terminated list. */
static void assert_did(const struct gb_events *ev, ...)
{
	va_list ap;
	int i = 0;
	const char *want;

	va_start(ap, ev);
	while ((want = va_arg(ap, const char *)) != NULL) {
		char buf[GB_EVENT_TEXT];

		if (i >= ev->n)
			fail_msg("missing event %d, expected \"%s\"", i, want);
		G->format_event(&ev->ev[i], buf, sizeof(buf));
		if (strcmp(buf, want) != 0)
			fail_msg("event %d is \"%s\", expected \"%s\"", i, buf, want);
		i++;
	}
	va_end(ap);
	if (i != ev->n)
		fail_msg("%d events, expected %d", ev->n, i);
}

/*
 * Put seat on square q at the start of its turn (tests only: the rules
 * never teleport a token). The result must still be a sane state.
 */
static void put(struct snakes *s, int seat, int q)
{
	s->pos[seat] = (unsigned char)q;
	if (seat == s->to_move) {
		assert_int_equal(s->sixes, 0);
		s->turn_start = (unsigned char)q;
	}
	assert_int_equal(G->check(s), GB_OK);
}

static void assert_pos(const struct snakes *s, int p0, int p1, int turn)
{
	assert_int_equal(snakes_position(s, 0), p0);
	assert_int_equal(snakes_position(s, 1), p1);
	assert_int_equal(G->turn(s), turn);
}

/* ---- worked examples (rules document, "Worked examples") ---- */

static void test_sl_example_01_enter_then_ladder(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 1, NULL);
	assert_true(snakes_needs_six(&s));
	assert_int_equal(snakes_status(&s), SNAKES_STATUS_NEEDS_SIX);
	assert_string_equal(snakes_status_text(snakes_status(&s)), "needs a 6 to enter");
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "enter", NULL);
	assert_pos(&s, 1, 0, 0); /* on 1, not 38 (SL-11); rolls again (SL-10) */
	assert_int_equal(snakes_status(&s), SNAKES_STATUS_ROLL_AGAIN);
	assert_int_equal(snakes_sixes(&s), 1);
	roll(&s, 3, &ev);
	assert_did(&ev, "roll 3", "ladder 4 14", NULL);
	assert_int_equal(ev.ev[1].c, 1); /* the move began on 1 */
	assert_pos(&s, 14, 0, 1);
	assert_int_equal(snakes_sixes(&s), 0);
	assert_true(snakes_needs_six(&s)); /* seat 1 is still off */
	struct gb_outcome oc;
	G->outcome(&s, &oc);
	assert_false(oc.over);
	assert_int_equal(oc.turns, 1);
}

static void test_sl_example_02_entry_any_one_climbs(void **state)
{
	static const char *const rules[] = { "entry=any", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 2, rules);
	assert_false(snakes_needs_six(&s));
	assert_int_equal(snakes_status(&s), SNAKES_STATUS_ROLL);
	roll(&s, 1, &ev);
	assert_did(&ev, "roll 1", "ladder 1 38", NULL);
	assert_pos(&s, 38, 0, 1);
}

static void test_sl_example_03_entry_any_three(void **state)
{
	static const char *const rules[] = { "entry=any", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 3, rules);
	roll(&s, 3, &ev);
	assert_did(&ev, "roll 3", "move 0 3", NULL);
	assert_pos(&s, 3, 0, 1);
}

static void test_sl_example_04_three_sixes_back_to_turn_start(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 4, NULL);
	put(&s, 0, 3);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "ladder 9 31", NULL);
	assert_pos(&s, 31, 0, 0);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 31 37", NULL);
	assert_pos(&s, 37, 0, 0);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 3", NULL);
	assert_pos(&s, 3, 0, 1);
}

/* The example's aside: with no ladder in the way, 3 -> 9 -> 15 -> back to 3. */
static void test_sl_example_04b_three_sixes_no_ladder(void **state)
{
	static const char *const rules[] = { "board=random", NULL };
	struct snakes s;
	struct gb_events ev;
	uint64_t seed = 0;

	(void)state;
	/* the first seed whose random board draws nothing on 3, 9 or 15 */
	for (;; seed++) {
		start(&s, 2, seed, rules);
		if (snakes_jump(&s, 3) == 3 && snakes_jump(&s, 9) == 9 && snakes_jump(&s, 15) == 15)
			break;
	}
	put(&s, 0, 3);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 3 9", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 9 15", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 3", NULL); /* not 9 */
	assert_pos(&s, 3, 0, 1);
}

static void test_sl_example_05_three_sixes_from_off_board(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 5, NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "enter", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 1 7", NULL);
	assert_pos(&s, 7, 0, 0);
	roll(&s, 6, &ev); /* SL-17: the entering six was the first of the run */
	assert_did(&ev, "roll 6", "third six", "back 0", NULL);
	assert_pos(&s, 0, 0, 1);
	/* SL-15: with entry=six that token must roll a six to enter again */
	roll(&s, 2, &ev);
	assert_did(&ev, "roll 2", "wait", NULL);
	assert_true(snakes_needs_six(&s));
	roll(&s, 5, &ev);
	assert_did(&ev, "roll 5", "wait", NULL);
	assert_pos(&s, 0, 0, 1);
}

static void test_sl_example_06_restart_goes_off_board(void **state)
{
	static const char *const rules[] = { "three_sixes=restart", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 6, rules);
	put(&s, 0, 50);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "snake 56 53", NULL);
	assert_int_equal(ev.ev[1].c, 50);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 53 59", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 0", NULL);
	assert_pos(&s, 0, 0, 1);
}

static void test_sl_example_07_third_six_never_wins(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 7, NULL);
	put(&s, 0, 82);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 82 88", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 88 94", NULL);
	roll(&s, 6, &ev); /* SL-16: 94 + 6 = 100, but the check comes first */
	assert_did(&ev, "roll 6", "third six", "back 82", NULL);
	assert_pos(&s, 82, 0, 1);
	assert_int_equal(snakes_winner(&s), -1);
}

static void test_sl_example_07b_blocked_sixes_count(void **state)
{
	static const char *const restart[] = { "three_sixes=restart", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 70, NULL);
	put(&s, 0, 97);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "blocked", NULL);
	assert_pos(&s, 97, 0, 0); /* SL-19: still a six, the die comes back */
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "blocked", NULL);
	assert_pos(&s, 97, 0, 0);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 97", NULL);
	assert_pos(&s, 97, 0, 1);

	start(&s, 2, 71, restart);
	put(&s, 0, 97);
	roll(&s, 6, &ev);
	roll(&s, 6, &ev);
	assert_pos(&s, 97, 0, 0);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 0", NULL);
	assert_pos(&s, 0, 0, 1);
}

static void test_sl_example_08_snake_98(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 8, NULL);
	put(&s, 0, 97);
	roll(&s, 1, &ev);
	assert_did(&ev, "roll 1", "snake 98 78", NULL);
	assert_pos(&s, 78, 0, 1);
}

static void test_sl_example_09_exact_win(void **state)
{
	struct snakes s;
	struct gb_events ev;
	struct gb_outcome oc;
	struct gb_action acts[GB_MAX_LEGAL], a = { .kind = GB_ACT_ROLL };
	struct snakes before;

	(void)state;
	start(&s, 3, 9, NULL);
	put(&s, 0, 97);
	roll(&s, 4, &ev); /* SL-18: 101 moves nothing, no bounce */
	assert_did(&ev, "roll 4", "blocked", NULL);
	assert_pos(&s, 97, 0, 1);
	roll(&s, 1, &ev);
	roll(&s, 1, &ev);
	assert_int_equal(G->turn(&s), 0);
	roll(&s, 3, &ev);
	assert_did(&ev, "roll 3", "move 97 100", "wins", NULL);
	assert_int_equal(snakes_winner(&s), 0);
	assert_int_equal(G->turn(&s), -1);
	assert_int_equal(G->legal(&s, acts), 0);
	assert_int_equal(snakes_status(&s), SNAKES_STATUS_OVER);
	G->outcome(&s, &oc);
	assert_true(oc.over);
	assert_int_equal(oc.winner, 0);
	assert_false(oc.draw);
	assert_int_equal(oc.turns, 4);
	/* no further rolls for anyone (SL-4) */
	before = s;
	assert_int_equal(G->apply(&s, &a, &ev), GB_EOVER);
	a.die = 6;
	assert_int_equal(G->apply(&s, &a, &ev), GB_EOVER);
	assert_memory_equal(&before, &s, sizeof(s));
}

static void test_sl_example_10_overshoot_win(void **state)
{
	static const char *const rules[] = { "finish=overshoot", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 10, rules);
	put(&s, 0, 97);
	roll(&s, 5, &ev);
	assert_did(&ev, "roll 5", "move 97 100", "wins", NULL);
	assert_int_equal(snakes_winner(&s), 0);
	assert_int_equal(snakes_position(&s, 0), 100);
}

static void test_sl_example_11_ladder_to_100_wins(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 11, NULL);
	put(&s, 0, 74);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "ladder 80 100", "wins", NULL);
	assert_int_equal(snakes_winner(&s), 0);
	assert_int_equal(G->turn(&s), -1); /* the six gives no further roll */
}

static void test_sl_example_12_bonus_off_entering_six(void **state)
{
	static const char *const rules[] = { "six_bonus=off", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 12, rules);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "enter", NULL);
	assert_pos(&s, 1, 0, 0); /* SL-10 whatever six_bonus says */
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 1 7", NULL);
	assert_pos(&s, 7, 0, 1);
}

static void test_sl_example_13_bonus_off_snake(void **state)
{
	static const char *const rules[] = { "six_bonus=off", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 13, rules);
	put(&s, 0, 10);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "snake 16 6", NULL);
	assert_pos(&s, 6, 0, 1);
}

/* ---- more rules ---- */

/* SL-13: six, six, four = 16 squares in one turn (entry=any, from 4 on a free path). */
static void test_sl_13_six_six_four(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 14, NULL);
	put(&s, 0, 66);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 66 72", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 72 78", NULL);
	roll(&s, 4, &ev);
	assert_did(&ev, "roll 4", "move 78 82", NULL);
	assert_pos(&s, 82, 0, 1);
	assert_int_equal(82 - 66, 16);
}

/* SL-14: without the bonus a six on the board just passes the turn. */
static void test_sl_14_bonus_off_six_passes(void **state)
{
	static const char *const rules[] = { "six_bonus=off", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 15, rules);
	put(&s, 0, 40);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 40 46", NULL);
	assert_pos(&s, 46, 0, 1);
	/* an overshooting six, blocked, passes the turn too */
	start(&s, 2, 16, rules);
	put(&s, 0, 97);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "blocked", NULL);
	assert_pos(&s, 97, 0, 1);
}

/* SL-15 with six_bonus=on and entry=any: off-board start, lose_turn -> off again. */
static void test_sl_15_entry_any_off_board_start(void **state)
{
	static const char *const rules[] = { "entry=any", NULL };
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 2, 17, rules);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 0 6", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "move 6 12", NULL);
	roll(&s, 6, &ev);
	assert_did(&ev, "roll 6", "third six", "back 0", NULL);
	assert_pos(&s, 0, 0, 1);
	/* a non-six from 0 moves at once with entry=any */
	roll(&s, 2, &ev);
	assert_did(&ev, "roll 2", "move 0 2", NULL);
	assert_pos(&s, 0, 2, 0);
}

/* Four players: the die goes round 0, 1, 2, 3, 0. */
static void test_four_players_rotate(void **state)
{
	struct snakes s;
	struct gb_events ev;

	(void)state;
	start(&s, 4, 18, NULL);
	for (int seat = 0; seat < 4; seat++) {
		assert_int_equal(G->turn(&s), seat);
		roll(&s, 2, &ev);
		assert_did(&ev, "roll 2", "wait", NULL);
	}
	assert_int_equal(G->turn(&s), 0);
	json_t *j = G->to_json(&s);
	assert_int_equal(json_array_size(json_object_get(j, "positions")), 4);
	json_decref(j);
}

/* ---- the board ---- */

static void test_classic_board_json(void **state)
{
	struct snakes s;
	json_t *j, *want;
	json_error_t err;

	(void)state;
	start(&s, 2, 0, NULL);
	j = G->to_json(&s);
	want = json_loads("{\"ladders\":[[1,38],[4,14],[9,31],[21,42],[28,84],[36,44],[51,67],[71,91],[80,100]],"
			  "\"snakes\":[[16,6],[47,26],[49,11],[56,53],[62,19],[64,60],[87,24],[93,73],[95,75],[98,78]]}",
			  0, &err);
	assert_non_null(want);
	assert_true(json_equal(json_object_get(j, "board"), want));
	assert_true(json_is_null(json_object_get(j, "winner")));
	json_decref(j);
	json_decref(want);
	/* the jump table agrees with the lists */
	assert_int_equal(snakes_jump(&s, 1), 38);
	assert_int_equal(snakes_jump(&s, 98), 78);
	assert_int_equal(snakes_jump(&s, 50), 50);
	assert_int_equal(snakes_jump(&s, 0), 0);
	assert_int_equal(snakes_jump(&s, 101), 101);
}

/*
 * Every SL-7 bound, written out again independently of the code under
 * test, plus the playability bound: from every square 0..99 some sequence
 * of rolls reaches 100 (exact finish, the stricter one).
 */
static void assert_random_board_ok(const unsigned char jump[SNAKES_SQUARES + 1])
{
	int ladders = 0, snakes = 0, seen[SNAKES_SQUARES + 1] = { 0 };
	bool reach[SNAKES_SQUARES + 1] = { false };
	bool changed = true;

	assert_int_equal(jump[0], 0);
	for (int q = 1; q <= 100; q++) {
		int d = jump[q];

		if (!d)
			continue;
		assert_true(d >= 1 && d <= 100);
		assert_true(abs(d - q) >= 3 && abs(d - q) <= 42);
		if (d > q)
			ladders++;
		else
			snakes++;
		seen[q]++;
		seen[d]++;
	}
	assert_int_equal(ladders, 9);
	assert_int_equal(snakes, 10);
	for (int q = 1; q <= 100; q++)
		assert_true(seen[q] <= 1); /* all 38 endpoints distinct */
	assert_int_equal(jump[100], 0); /* no snake starts on 100 */
	/* winnable from everywhere: fixed point of "some roll leads to a winning square" */
	reach[100] = true;
	while (changed) {
		changed = false;
		for (int q = 0; q < 100; q++) {
			if (reach[q])
				continue;
			for (int d = 1; d <= 6 && q + d <= 100; d++) {
				int t = jump[q + d] ? jump[q + d] : q + d;

				if (reach[t]) {
					reach[q] = true;
					changed = true;
					break;
				}
			}
		}
	}
	for (int q = 0; q < 100; q++)
		if (!reach[q] && !(q > 0 && jump[q]))
			fail_msg("square %d cannot reach 100", q);
}

static void test_random_board_constraints(void **state)
{
	static const char *const rules[] = { "board=random", NULL };
	struct snakes s, t;
	int differ = 0, ladder_on_1 = 0, ladder_to_100 = 0, span_hist[43] = { 0 };

	(void)state;
	for (uint64_t seed = 0; seed < 3000; seed++) {
		struct gb_rng r;
		unsigned char jump[SNAKES_SQUARES + 1];

		gb_rng_seed(&r, seed * 7919 + 1);
		memset(jump, 0, sizeof(jump));
		snakes_board_generate(&r, SNAKES_BOARD_TRIES, jump);
		assert_random_board_ok(jump);
		for (int q = 1; q <= 100; q++)
			if (jump[q])
				span_hist[abs(jump[q] - q)]++;
		ladder_on_1 += jump[1] != 0;
		for (int q = 1; q < 100; q++)
			ladder_to_100 += jump[q] == 100;
		/* the enumerating fallback keeps the same bounds */
		if (seed < 300) {
			gb_rng_seed(&r, seed);
			memset(jump, 0, sizeof(jump));
			snakes_board_generate(&r, 0, jump);
			assert_random_board_ok(jump);
		}
	}
	/* every span 3..42 occurs, and the freedoms SL-7 allows do happen */
	for (int k = 3; k <= 42; k++)
		assert_true(span_hist[k] > 0);
	assert_true(ladder_on_1 > 0);
	assert_true(ladder_to_100 > 0);
	/* through init: same seed same board, new seed (almost always) a new board */
	for (uint64_t seed = 0; seed < 200; seed++) {
		start(&s, 2, seed, rules);
		assert_random_board_ok(s.jump);
		start(&t, 2, seed, rules);
		assert_memory_equal(&s, &t, sizeof(s));
		start(&t, 2, seed + 1000, rules);
		differ += memcmp(s.jump, t.jump, sizeof(s.jump)) != 0;
	}
	assert_int_equal(differ, 200);
}

/*
 * The playability bound in action: with five snake heads already in a row
 * (50..54), no drawn snake may start on 49 or 55. Random draws alone almost
 * never come near a run of six, so the bound is exercised by pre-placing.
 * A board with six in a row is refused by check().
 */
static void test_random_board_head_run(void **state)
{
	static const char *const rules[] = { "board=random", NULL };
	int next_to_run = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 400; seed++) {
		unsigned char jump[SNAKES_SQUARES + 1] = { 0 };
		struct gb_rng r;

		for (int h = 50; h <= 54; h++)
			jump[h] = (unsigned char)(h - 20);
		gb_rng_seed(&r, seed);
		snakes_board_generate(&r, seed % 2 ? SNAKES_BOARD_TRIES : 0, jump);
		assert_random_board_ok(jump);
		for (int h = 50; h <= 54; h++)
			assert_int_equal(jump[h], h - 20); /* kept as placed */
		assert_false(jump[49] && jump[49] < 49);
		assert_false(jump[55] && jump[55] < 55);
		next_to_run += (jump[49] > 49) + (jump[55] > 55); /* ladders may start there */
	}
	assert_true(next_to_run > 0);

	struct snakes s;
	start(&s, 2, 1, rules);
	memset(s.jump, 0, sizeof(s.jump));
	for (int h = 50; h <= 55; h++)
		s.jump[h] = (unsigned char)(h - 20);
	struct gb_rng r;
	gb_rng_seed(&r, 1);
	snakes_board_generate(&r, SNAKES_BOARD_TRIES, s.jump);
	assert_int_equal(G->check(&s), GB_EINVARIANT);
	s.jump[55] = 0; /* five in a row and one snake short */
	assert_int_equal(G->check(&s), GB_EINVARIANT);
	/* one more snake, head q and tail q - 3 on free squares, away from the run */
	for (int q = 4; q <= 99; q++) {
		bool free_sq = !s.jump[q] && !s.jump[q - 3] && q != 49 && q != 55;

		for (int p = 1; p <= 100; p++)
			free_sq = free_sq && s.jump[p] != q && s.jump[p] != q - 3;
		if (free_sq) {
			s.jump[q] = (unsigned char)(q - 3);
			break;
		}
	}
	assert_int_equal(G->check(&s), GB_OK);
}

/* The dice do not depend on the board: same seed, same dice on either board. */
static void test_dice_independent_of_board(void **state)
{
	static const char *const rnd[] = { "board=random", NULL };
	struct snakes a, b;

	(void)state;
	start(&a, 2, 99, NULL);
	start(&b, 2, 99, rnd);
	assert_memory_equal(&a.rng, &b.rng, sizeof(a.rng));
	for (int i = 0; i < 50; i++)
		assert_int_equal(gb_rng_die(&a.rng), gb_rng_die(&b.rng));
}

/* SL-5 boustrophedon numbering. */
static void test_square_xy(void **state)
{
	int c, r, c2, r2;

	(void)state;
	snakes_square_xy(1, &c, &r);
	assert_int_equal(c, 0);
	assert_int_equal(r, 0);
	snakes_square_xy(10, &c, &r);
	snakes_square_xy(11, &c2, &r2);
	assert_int_equal(c, 9);
	assert_int_equal(c2, 9); /* 11 is directly above 10 */
	assert_int_equal(r2, r + 1);
	snakes_square_xy(100, &c, &r);
	assert_int_equal(c, 0); /* 1 and 100 share the leftmost column */
	assert_int_equal(r, 9);
	snakes_square_xy(0, &c, &r);
	assert_int_equal(c, -1);
	/* every cell exactly once */
	int seen[10][10] = { { 0 } };
	for (int q = 1; q <= 100; q++) {
		snakes_square_xy(q, &c, &r);
		assert_true(c >= 0 && c < 10 && r >= 0 && r < 10);
		seen[r][c]++;
		if (q > 1) {
			snakes_square_xy(q - 1, &c2, &r2);
			assert_int_equal(abs(c - c2) + abs(r - r2), 1); /* the path is connected */
		}
	}
	for (int i = 0; i < 100; i++)
		assert_int_equal(seen[i / 10][i % 10], 1);
}

static void test_view_helpers(void **state)
{
	static const char *const any[] = { "entry=any", "finish=overshoot", NULL };
	struct snakes s;
	int p[SNAKES_SNAKES][2];

	(void)state;
	start(&s, 3, 5, any);
	assert_false(snakes_needs_six(&s));
	assert_int_equal(snakes_rule(&s, SNAKES_RULE_ENTRY), SNAKES_ENTRY_ANY);
	assert_int_equal(snakes_rule(&s, SNAKES_RULE_FINISH), SNAKES_FINISH_OVERSHOOT);
	assert_int_equal(snakes_rule(&s, SNAKES_RULE_BOARD), SNAKES_BOARD_CLASSIC);
	assert_int_equal(snakes_pieces(&s, 0, p), 9);
	assert_int_equal(p[0][0], 1);
	assert_int_equal(p[8][1], 100);
	assert_int_equal(snakes_pieces(&s, 1, p), 10);
	assert_int_equal(p[0][0], 16);
	assert_int_equal(p[9][1], 78);
	assert_int_equal(snakes_position(&s, 3), 0);
	assert_int_equal(snakes_position(&s, -1), 0);
	assert_string_equal(snakes_status_text(SNAKES_STATUS_ROLL), "to roll");
	assert_string_equal(snakes_status_text(SNAKES_STATUS_OVER), "game over");
}

/* ---- the interface ---- */

static void test_rules_table(void **state)
{
	static const char *const want[][3] = {
		{ "entry", "six", "any" },
		{ "six_bonus", "on", "off" },
		{ "three_sixes", "lose_turn", "restart" },
		{ "finish", "exact", "overshoot" },
		{ "board", "classic", "random" },
	};

	(void)state;
	assert_int_equal(G->nrules, 5);
	for (int i = 0; i < 5; i++) {
		assert_string_equal(G->rules[i].key, want[i][0]);
		assert_string_equal(G->rules[i].values[0], want[i][1]);
		assert_string_equal(G->rules[i].values[1], want[i][2]);
		assert_null(G->rules[i].values[2]);
		assert_non_null(G->rules[i].help);
	}
	assert_string_equal(G->rules[SNAKES_RULE_THREE_SIXES].requires, "six_bonus=on");
	assert_int_equal(G->min_players, 2);
	assert_int_equal(G->max_players, 4);
	assert_int_equal(G->default_players, 2);
	assert_int_equal(G->state_size, sizeof(struct snakes));
	assert_ptr_equal(gb_game_find("snakes"), G);
}

static void test_init_refuses(void **state)
{
	struct snakes s;
	struct gb_setup su;

	(void)state;
	gb_setup_init(&su, G);
	su.players = 0;
	assert_int_equal(G->init(&s, &su), GB_EPLAYERS);
	/* one seat alone is a race for analysis (the arena); tables need two (min_players) */
	su.players = 1;
	assert_int_equal(G->init(&s, &su), GB_OK);
	assert_int_equal(G->min_players, 2);
	su.players = 5;
	assert_int_equal(G->init(&s, &su), GB_EPLAYERS);
	su.players = 2;
	su.rules.v[SNAKES_RULE_FINISH] = 2;
	assert_int_equal(G->init(&s, &su), GB_ERULE_VALUE);
	su.rules.v[SNAKES_RULE_FINISH] = 0;
	su.rules.v[6] = 1;
	assert_int_equal(G->init(&s, &su), GB_ERULE_VALUE);
	su.rules.v[6] = 0;
	assert_int_equal(G->init(&s, &su), GB_OK);
}

static void test_parse_and_format(void **state)
{
	static const char *const good[] = { "roll", "ROLL", "  Roll  ", "\troll\r\n", "rOlL" };
	static const char *const bad[] = { "", "   ", "rol", "rolls", "roll 6", "roll roll",
					   "move 1", "६", "/roll", "roll\t1" };
	struct snakes s;
	struct gb_action a;
	char buf[GB_ACTION_TEXT];

	(void)state;
	start(&s, 2, 1, NULL);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		memset(&a, 0x55, sizeof(a));
		assert_int_equal(G->parse(&s, good[i], &a), GB_OK);
		assert_int_equal(a.kind, GB_ACT_ROLL);
		assert_int_equal(a.a, 0);
		assert_int_equal(a.b, 0);
		assert_int_equal(a.die, 0); /* the player never names the die */
		G->format(&s, &a, buf, sizeof(buf));
		assert_string_equal(buf, "roll");
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(G->parse(&s, bad[i], &a), GB_EPARSE);
	assert_int_equal(G->parse(&s, NULL, &a), GB_EPARSE);
	/* legal is exactly ["roll"] while the game goes on */
	json_t *l = gb_legal_json(G, &s);
	assert_int_equal(json_array_size(l), 1);
	assert_string_equal(json_string_value(json_array_get(l, 0)), "roll");
	json_decref(l);
}

static void test_format_event_unknown(void **state)
{
	struct gb_event e = { 999, 0, 0, 0, 0 };
	char buf[GB_EVENT_TEXT] = "x";

	(void)state;
	G->format_event(&e, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* Bad actions return the right code and leave every byte as it was. */
static void assert_refused(struct snakes *s, struct gb_action a, int code)
{
	struct snakes before = *s;
	struct gb_events ev = { 0 };

	assert_int_equal(G->apply(s, &a, &ev), code);
	assert_memory_equal(&before, s, sizeof(*s));
	assert_int_equal(ev.n, 0);
}

static void test_bad_actions(void **state)
{
	struct snakes s;

	(void)state;
	start(&s, 2, 3, NULL);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_MOVE, .a = 1 }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_PLACE }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_BID, .a = 3 }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_PLAY }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_NEXT }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_NONE }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = 77 }, GB_EPHASE);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL, .die = 7 }, GB_EILLEGAL);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL, .die = -1 }, GB_EILLEGAL);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL, .a = 1 }, GB_EILLEGAL);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL, .b = -3 }, GB_EILLEGAL);
	/* a NULL event list is allowed */
	struct gb_action r = { .kind = GB_ACT_ROLL, .die = 6 };
	assert_int_equal(G->apply(&s, &r, NULL), GB_OK);
	assert_int_equal(snakes_position(&s, 0), 1);
	/* after game over everything is GB_EOVER */
	start(&s, 2, 3, NULL);
	put(&s, 0, 94);
	r.die = 6;
	assert_int_equal(G->apply(&s, &r, NULL), GB_OK);
	assert_int_equal(snakes_winner(&s), 0);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL }, GB_EOVER);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_MOVE }, GB_EOVER);
	assert_refused(&s, (struct gb_action){ .kind = GB_ACT_ROLL, .die = 9 }, GB_EOVER);
}

/* check() catches broken states. */
static void test_check_catches(void **state)
{
	struct snakes s, t;

	(void)state;
	start(&s, 2, 4, NULL);
	t = s; t.players = 0;                   assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.to_move = 2;                   assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.pos[0] = 101;                  assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.pos[2] = 5;                    assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.pos[1] = 16;                   assert_int_equal(G->check(&t), GB_EINVARIANT); /* on a snake head */
	t = s; t.pos[1] = 100;                  assert_int_equal(G->check(&t), GB_EINVARIANT); /* 100 without a winner */
	t = s; t.winner = 1;                    assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.sixes = 3;                     assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.turn_start = 5;                assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.jump[50] = 60;                 assert_int_equal(G->check(&t), GB_EINVARIANT); /* not the classic board */
	t = s; t.rules.v[0] = 2;                assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.rules.v[7] = 1;                assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; memset(&t.rng, 0, sizeof(t.rng)); assert_int_equal(G->check(&t), GB_EINVARIANT);
	t = s; t.turns = -1;                    assert_int_equal(G->check(&t), GB_EINVARIANT);
	/* a random board that breaks SL-7 */
	static const char *const rnd[] = { "board=random", NULL };
	start(&s, 2, 4, rnd);
	for (int q = 1; q <= 100; q++)
		if (s.jump[q] > q) {
			t = s;
			t.jump[q] = 0; /* only 8 ladders */
			assert_int_equal(G->check(&t), GB_EINVARIANT);
			break;
		}
	/* on 1 with entry=any: the ladder at 1 would have been climbed */
	static const char *const any[] = { "entry=any", NULL };
	start(&s, 2, 4, any);
	t = s; t.pos[1] = 1;                    assert_int_equal(G->check(&t), GB_EINVARIANT);
	/* mid-turn without six_bonus, not after an entering six */
	static const char *const off[] = { "six_bonus=off", NULL };
	start(&s, 2, 4, off);
	put(&s, 0, 20);
	t = s; t.sixes = 1; t.pos[0] = 26;      assert_int_equal(G->check(&t), GB_EINVARIANT);
}

/* from_json refuses malformed input with GB_ESTATE, never crashes. */
static void test_from_json_malformed(void **state)
{
	static const char *const bad[] = {
		"[]", "1", "null", "{}",
		"{\"positions\":[0,0]}",
		/* below: a valid object with one field broken (see base) */
	};
	struct snakes s, out;
	json_t *base;
	json_error_t err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i], JSON_DECODE_ANY, &err);

		assert_non_null(j);
		assert_int_equal(G->from_json(&out, j), GB_ESTATE);
		json_decref(j);
	}
	start(&s, 2, 8, NULL);
	base = gb_state_json(G, &s);
	struct { const char *key; const char *value; } muts[] = {
		{ "positions", "[]" }, { "positions", "[0,0,0,0,0]" }, { "positions", "[0,-1]" },
		{ "positions", "[0,101]" }, { "positions", "[0,\"a\"]" }, { "positions", "{}" },
		{ "positions", "[0,16]" }, { "positions", "[0,100]" }, { "positions", "[1.5,0]" },
		{ "winner", "0" }, { "winner", "5" }, { "winner", "\"x\"" }, { "winner", "-1" },
		{ "to_move", "2" }, { "to_move", "-1" }, { "to_move", "null" },
		{ "sixes", "3" }, { "sixes", "1" }, { "turn_start", "7" }, { "turn_start", "1000" },
		{ "turns", "-1" }, { "turns", "1e3" }, { "turns", "99999999999" },
		{ "rules", "{\"entry\":\"maybe\"}" }, { "rules", "[]" }, { "rules", "{\"entry\":6}" },
		{ "rng", "\"xyz\"" }, { "rng", "7" },
		{ "rng", "\"0000000000000000000000000000000000000000000000000000000000000000\"" },
		{ "board", "[]" }, { "board", "{}" }, { "board", "{\"ladders\":[],\"snakes\":[]}" },
		{ "board", "{\"ladders\":[[1,38]],\"snakes\":[[16,6]]}" },
		{ "board", "{\"ladders\":[[1,38],[4,14],[9,31],[21,42],[28,84],[36,44],[51,67],[71,91],[80,100]],"
			   "\"snakes\":[[16,6],[47,26],[49,11],[56,53],[62,19],[64,60],[87,24],[93,73],[95,75],[98,78],[99,1]]}" },
		{ "board", "{\"ladders\":[[38,1]],\"snakes\":[]}" },
		{ "board", "{\"ladders\":[[1,38,4]],\"snakes\":[]}" },
		{ "board", "{\"ladders\":[[0,38]],\"snakes\":[]}" },
		{ "board", "{\"ladders\":[[1,380]],\"snakes\":[]}" },
		{ "board", "{\"ladders\":[[1,38],[1,39]],\"snakes\":[]}" },
		{ "game", "\"ludo\"" }, { "over", "true" }, { "turn", "1" }, { "turn", "null" },
		{ "over", "1" },
	};
	for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		json_t *j = json_deep_copy(base);
		json_t *v = json_loads(muts[i].value, JSON_DECODE_ANY, &err);

		assert_non_null(v);
		json_object_set_new(j, muts[i].key, v);
		if (G->from_json(&out, j) != GB_ESTATE)
			fail_msg("from_json accepted %s = %s", muts[i].key, muts[i].value);
		json_decref(j);
	}
	/* each required key removed */
	static const char *const keys[] = { "positions", "winner", "board", "to_move", "sixes",
					    "turn_start", "turns", "rules", "rng" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *j = json_deep_copy(base);

		json_object_del(j, keys[i]);
		assert_int_equal(G->from_json(&out, j), GB_ESTATE);
		json_decref(j);
	}
	/* the unmodified object still reads back exactly */
	assert_int_equal(G->from_json(&out, base), GB_OK);
	assert_memory_equal(&out, &s, sizeof(s));
	json_decref(base);
}

/* ---- naive reference ---- */

/*
 * A whole turn simulated straight from the rule text, written differently
 * from snakes.c: the board is searched as two lists of pieces, the token
 * walks square by square, and the rolls of the turn are collected first.
 * Returns the number of dice used; *pos and *won say how it ended.
 */
struct ref_rules { bool entry_any, bonus_off, restart, overshoot; };

struct ref_board {
	int n;
	int piece[SNAKES_LADDERS + SNAKES_SNAKES][2];
};

static void ref_board_read(const struct snakes *s, struct ref_board *b)
{
	int p[SNAKES_SNAKES][2];

	b->n = 0;
	for (int kind = 0; kind < 2; kind++) {
		int n = snakes_pieces(s, kind, p);

		for (int i = 0; i < n; i++) {
			b->piece[b->n][0] = p[i][0];
			b->piece[b->n][1] = p[i][1];
			b->n++;
		}
	}
}

static int ref_follow(const struct ref_board *b, int q)
{
	for (int i = 0; i < b->n; i++)
		if (b->piece[i][0] == q)
			return b->piece[i][1];
	return q;
}

static int ref_turn(const struct ref_board *board, struct ref_rules r, int start_pos, const int *dice,
		    int *pos, bool *won)
{
	int here = start_pos, sixes_in_a_row = 0, used = 0;

	*won = false;
	for (;;) {
		int d = dice[used++];
		bool die_back = false;

		sixes_in_a_row = d == 6 ? sixes_in_a_row + 1 : 0;
		if (sixes_in_a_row == 3) {
			here = r.restart ? 0 : start_pos;
			break;
		}
		if (here == 0 && !r.entry_any) {
			if (d != 6)
				break;
			here = 1;        /* placed, not landed: no ladder */
			continue;        /* always rolls again */
		}
		/* walk one square at a time */
		int walked = here;
		for (int step = 0; step < d; step++) {
			if (walked == 100)
				break;   /* overshoot: stop on 100 */
			walked++;
		}
		if (here + d > 100 && !r.overshoot) {
			/* exact: the roll would pass 100, nothing moves */
		} else {
			here = ref_follow(board, walked);
			if (here == 100) {
				*won = true;
				break;
			}
		}
		die_back = d == 6 && !r.bonus_off;
		if (!die_back)
			break;
	}
	*pos = here;
	return used;
}

/* Play one turn of the real game with the given dice; returns dice used. */
static int real_turn(struct snakes *s, const int *dice)
{
	int seat = s->to_move, used = 0;
	struct gb_action a = { .kind = GB_ACT_ROLL };

	do {
		a.die = dice[used++];
		assert_int_equal(G->apply(s, &a, NULL), GB_OK);
	} while (s->winner < 0 && s->to_move == seat);
	return used;
}

static void test_naive_reference_every_turn(void **state)
{
	int turns = 0, thirds = 0, wins = 0;

	(void)state;
	for (int combo = 0; combo < 32; combo++) {
		const char *rules[6];
		struct ref_rules rr = { combo & 1, (combo >> 1) & 1, (combo >> 2) & 1, (combo >> 3) & 1 };
		struct snakes s;

		rules[0] = rr.entry_any ? "entry=any" : "entry=six";
		rules[1] = rr.bonus_off ? "six_bonus=off" : "six_bonus=on";
		rules[2] = rr.restart ? "three_sixes=restart" : "three_sixes=lose_turn";
		rules[3] = rr.overshoot ? "finish=overshoot" : "finish=exact";
		rules[4] = (combo >> 4) & 1 ? "board=random" : "board=classic";
		rules[5] = NULL;
		struct ref_board rb;

		start(&s, 3, (uint64_t)combo * 31 + 5, rules);
		ref_board_read(&s, &rb);
		assert_int_equal(rb.n, 19);
		s.pos[1] = 40; /* bystanders must not move */
		s.pos[2] = 0;
		if (s.jump[40])
			s.pos[1] = 0;
		for (int q = 0; q < 100; q++) {
			if (q && s.jump[q] && !(q == 1 && !rr.entry_any))
				continue; /* nobody rests there */
			for (int t = 0; t < 216; t++) {
				int dice[3] = { 1 + t % 6, 1 + t / 6 % 6, 1 + t / 36 };
				int ref_pos, used_ref, used_real;
				bool ref_won;
				struct snakes run = s;

				run.pos[0] = (unsigned char)q;
				run.turn_start = (unsigned char)q;
				if (t == 0)
					assert_int_equal(G->check(&run), GB_OK);
				used_ref = ref_turn(&rb, rr, q, dice, &ref_pos, &ref_won);
				used_real = real_turn(&run, dice);
				if (used_ref != used_real || run.pos[0] != ref_pos || ref_won != (run.winner == 0))
					fail_msg("combo %d from %d dice %d,%d,%d: real %d used, at %d; naive %d used, at %d",
						 combo, q, dice[0], dice[1], dice[2], used_real, run.pos[0], used_ref,
						 ref_pos);
				assert_int_equal(run.pos[1], s.pos[1]);
				assert_int_equal(run.pos[2], 0);
				assert_int_equal(G->turn(&run), ref_won ? -1 : 1);
				assert_int_equal(run.turns, 1);
				if (t % 37 == 0)
					assert_int_equal(G->check(&run), GB_OK);
				turns++;
				thirds += used_ref == 3 && dice[0] == 6 && dice[1] == 6 && dice[2] == 6;
				wins += ref_won;
			}
		}
	}
	assert_true(turns > 500000);
	assert_true(thirds > 0);
	assert_true(wins > 0);
}

/* ---- random games ---- */

static void test_random_games(void **state)
{
	const int ngames = 10080; /* 96 setups x 105 */
	long long rolls = 0;
	int over = 0, refused = 0;

	(void)state;
	for (int g = 0; g < ngames; g++) {
		int combo = g % 32, players = 2 + (g / 32) % 3;
		uint64_t seed = gb_seed_derive(12345, (uint64_t)g);
		struct gb_rng pick;
		struct snakes s, replay;
		struct gb_setup su;
		int forced[4096], n = 0;

		gb_setup_init(&su, G);
		su.players = players;
		su.seed = seed;
		for (int i = 0; i < 5; i++)
			su.rules.v[i] = (unsigned char)((combo >> i) & 1);
		assert_int_equal(G->init(&s, &su), GB_OK);
		assert_int_equal(G->check(&s), GB_OK);
		gb_rng_seed(&pick, seed ^ 0xabcdef);
		while (s.winner < 0) {
			struct gb_action a = { .kind = GB_ACT_ROLL };
			struct gb_events ev = { 0 };
			int seat = G->turn(&s);

			assert_true(n < 4096);
			/* half the games force the dice, the rest draw from the state */
			a.die = (g & 1) ? 1 + (int)gb_rng_below(&pick, 6) : 0;
			forced[n++] = a.die;
			assert_int_equal(G->apply(&s, &a, &ev), GB_OK);
			assert_int_equal(G->check(&s), GB_OK);
			assert_true(ev.n >= 2 && ev.n <= 3);
			assert_int_equal(ev.ev[0].type, SNAKES_EV_ROLL);
			assert_int_equal(ev.ev[0].seat, seat);
			if (a.die)
				assert_int_equal(ev.ev[0].a, a.die);
			if (n % 16 == 0)
				assert_round_trip(&s);
			if (n % 7 == 0) {
				/* a random bad action changes nothing */
				struct gb_action bad = { .kind = GB_ACT_ROLL };
				struct snakes before = s;

				switch (gb_rng_below(&pick, 3)) {
				case 0:
					bad.kind = 2 + (int)gb_rng_below(&pick, 6);
					break;
				case 1:
					bad.die = 7 + (int)gb_rng_below(&pick, 100);
					break;
				default:
					bad.a = 1 + (int)gb_rng_below(&pick, 5);
					break;
				}
				assert_int_not_equal(G->apply(&s, &bad, NULL), GB_OK);
				assert_memory_equal(&before, &s, sizeof(s));
				refused++;
			}
		}
		rolls += n;
		over++;
		assert_round_trip(&s);
		assert_int_equal(snakes_position(&s, s.winner), 100);
		struct gb_action a = { .kind = GB_ACT_ROLL };
		assert_int_equal(G->apply(&s, &a, NULL), GB_EOVER);
		/* determinism: the same seed and actions give the same bytes */
		if (g % 8 == 0) {
			assert_int_equal(G->init(&replay, &su), GB_OK);
			for (int i = 0; i < n; i++) {
				a.die = forced[i];
				assert_int_equal(G->apply(&replay, &a, NULL), GB_OK);
			}
			assert_memory_equal(&replay, &s, sizeof(s));
		}
	}
	assert_int_equal(over, ngames);
	assert_true(refused > 10000);
	print_message("%d games, %lld rolls\n", ngames, rolls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sl_example_01_enter_then_ladder),
		cmocka_unit_test(test_sl_example_02_entry_any_one_climbs),
		cmocka_unit_test(test_sl_example_03_entry_any_three),
		cmocka_unit_test(test_sl_example_04_three_sixes_back_to_turn_start),
		cmocka_unit_test(test_sl_example_04b_three_sixes_no_ladder),
		cmocka_unit_test(test_sl_example_05_three_sixes_from_off_board),
		cmocka_unit_test(test_sl_example_06_restart_goes_off_board),
		cmocka_unit_test(test_sl_example_07_third_six_never_wins),
		cmocka_unit_test(test_sl_example_07b_blocked_sixes_count),
		cmocka_unit_test(test_sl_example_08_snake_98),
		cmocka_unit_test(test_sl_example_09_exact_win),
		cmocka_unit_test(test_sl_example_10_overshoot_win),
		cmocka_unit_test(test_sl_example_11_ladder_to_100_wins),
		cmocka_unit_test(test_sl_example_12_bonus_off_entering_six),
		cmocka_unit_test(test_sl_example_13_bonus_off_snake),
		cmocka_unit_test(test_sl_13_six_six_four),
		cmocka_unit_test(test_sl_14_bonus_off_six_passes),
		cmocka_unit_test(test_sl_15_entry_any_off_board_start),
		cmocka_unit_test(test_four_players_rotate),
		cmocka_unit_test(test_classic_board_json),
		cmocka_unit_test(test_random_board_constraints),
		cmocka_unit_test(test_random_board_head_run),
		cmocka_unit_test(test_dice_independent_of_board),
		cmocka_unit_test(test_square_xy),
		cmocka_unit_test(test_view_helpers),
		cmocka_unit_test(test_rules_table),
		cmocka_unit_test(test_init_refuses),
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_format_event_unknown),
		cmocka_unit_test(test_bad_actions),
		cmocka_unit_test(test_check_catches),
		cmocka_unit_test(test_from_json_malformed),
		cmocka_unit_test(test_naive_reference_every_turn),
		cmocka_unit_test(test_random_games),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
