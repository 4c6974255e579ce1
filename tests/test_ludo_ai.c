/*
 * test_ludo_ai.c - the Ludo computer players (games/ai/ludo_ai.c).
 *
 *   - every level plays only legal actions over many complete games, every
 *     house-rule combination and table size, with ludo_game.check() after
 *     each action;
 *   - same state, level and seed give the same action, and the state is
 *     left alone; a finished game gives GB_EOVER;
 *   - the evaluation's threat count against a deliberately naive reference
 *     that walks every opponent token square by square with every die;
 *   - hand-built positions where any club player knows the move;
 *   - the learned evaluation: the compiled-in weights pass their checksum,
 *     a corrupted copy or another version is refused, its inputs stay in
 *     range and its outputs are chances summing to 1, and hard with it
 *     (at the leaves or one move deep) decides the same way twice;
 *   - each level beats the level below in small fixed-seed matches whose
 *     margins are wide (the arena measures the real strength).
 * No timings are asserted; the hard level runs with a small budget here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/ai/ai.h"
#include "games/ai/ludo_ai.h"
#include "games/ai/ludo_net.h"
#include "games/error.h"
#include "games/game.h"
#include "games/ludo.h"

static const struct gb_game *G = &ludo_game;

/* ---- helpers ------------------------------------------------------------ */

/* A fresh game at `players` with house rules from the bits of `rules`. */
static void start(struct ludo *st, int players, int rules, uint64_t seed)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.players = players;
	su.seed = seed;
	assert_int_equal(gb_rules_set(G, &su.rules, "one_releases", rules & 1 ? "on" : "off"), GB_OK);
	assert_int_equal(gb_rules_set(G, &su.rules, "six_bonus", rules & 2 ? "off" : "on"), GB_OK);
	assert_int_equal(gb_rules_set(G, &su.rules, "capture_bonus", rules & 4 ? "off" : "on"), GB_OK);
	assert_int_equal(G->init(st, &su), GB_OK);
}

static void place(struct ludo *st, int seat, int a, int b, int c, int d)
{
	st->pos[seat][0] = (uint8_t)a;
	st->pos[seat][1] = (uint8_t)b;
	st->pos[seat][2] = (uint8_t)c;
	st->pos[seat][3] = (uint8_t)d;
}

/* Put seat 0 in the move phase with `die` and check the position is sane. */
static void to_move(struct ludo *st, int die)
{
	st->seat = 0;
	st->phase = LUDO_PHASE_MOVE;
	st->die = (uint8_t)die;
	st->sixes = die == 6;
	assert_int_equal(G->check(st), GB_OK);
}

/* The token level `level` moves in st. */
static int chosen(const struct ludo *st, int level, uint64_t seed)
{
	struct gb_action act;

	assert_int_equal(ludo_ai_choose(st, level, seed, 0, &act), GB_OK);
	assert_int_equal(act.kind, GB_ACT_MOVE);
	return act.a;
}

/*
 * Play one game, seat i at levels[i]; every action must be legal and leave
 * a sane state. Returns the winner. hard_ms: budget of the hard level.
 */
static int play(int players, int rules, uint64_t seed, const int *levels, int hard_ms)
{
	struct ludo st;

	start(&st, players, rules, seed);
	for (uint64_t k = 0; k < 100000 && st.winner < 0; k++) {
		struct gb_action act;
		int level = levels[st.seat];

		assert_int_equal(gb_ai_choose(G, &st, level, gb_seed_derive(seed, k),
					      level == GB_LEVEL_HARD ? hard_ms : 0, &act),
				 GB_OK);
		assert_true(gb_action_is_legal(G, &st, &act));
		assert_int_equal(G->apply(&st, &act, NULL), GB_OK);
		assert_int_equal(G->check(&st), GB_OK);
	}
	assert_true(st.winner >= 0);
	return st.winner;
}

/* ---- legality ------------------------------------------------------------ */

static void test_legal_every_rule_and_table(void **s)
{
	(void)s;
	for (int rules = 0; rules < 8; rules++) {
		for (int players = 2; players <= 4; players++) {
			for (int g = 0; g < 12; g++) {
				int levels[GB_MAX_SEATS];

				/* rotate the cheap levels over the seats */
				for (int i = 0; i < GB_MAX_SEATS; i++)
					levels[i] = GB_LEVEL_RANDOM + (g + i) % 3;
				play(players, rules, (uint64_t)(1000 * rules + 100 * players + g), levels, 0);
			}
		}
	}
}

static void test_legal_hard(void **s)
{
	(void)s;
	for (int rules = 0; rules < 8; rules++) {
		for (int players = 2; players <= 4; players++) {
			int levels[GB_MAX_SEATS] = { GB_LEVEL_HARD, GB_LEVEL_MEDIUM, GB_LEVEL_EASY,
						     GB_LEVEL_RANDOM };

			play(players, rules, (uint64_t)(77 + 10 * rules + players), levels, 2);
		}
	}
}

/* ---- determinism and the contract --------------------------------------- */

static void test_same_input_same_action(void **s)
{
	struct ludo st;
	uint64_t seed = 5;

	(void)s;
	start(&st, 4, 0, 9);
	for (int k = 0; k < 3000 && st.winner < 0; k++) {
		struct gb_action act;

		if (st.phase == LUDO_PHASE_MOVE) {
			for (int level = GB_LEVEL_EASY; level <= GB_LEVEL_HARD; level++) {
				struct ludo before = st;
				struct gb_action a1, a2;
				int ms = level == GB_LEVEL_HARD ? 2 : 0;

				assert_int_equal(ludo_ai_choose(&st, level, seed + (uint64_t)k, ms, &a1), GB_OK);
				assert_int_equal(ludo_ai_choose(&st, level, seed + (uint64_t)k, ms, &a2), GB_OK);
				assert_memory_equal(&a1, &a2, sizeof(a1));
				assert_memory_equal(&before, &st, sizeof(st));
			}
		}
		assert_int_equal(ludo_ai_choose(&st, GB_LEVEL_MEDIUM, seed, 0, &act), GB_OK);
		assert_int_equal(G->apply(&st, &act, NULL), GB_OK);
	}
}

static void test_roll_phase_rolls_and_over_is_eover(void **s)
{
	struct ludo st;
	struct gb_action act;

	(void)s;
	start(&st, 4, 0, 3);
	for (int level = GB_LEVEL_EASY; level <= GB_LEVEL_HARD; level++) {
		assert_int_equal(ludo_ai_choose(&st, level, 1, 0, &act), GB_OK);
		assert_int_equal(act.kind, GB_ACT_ROLL);
		assert_int_equal(act.die, 0);  /* the die is the game's, never the player's */
	}
	place(&st, 1, 57, 57, 57, 57);
	st.winner = 1;
	st.seat = 1;
	assert_int_equal(G->check(&st), GB_OK);
	for (int level = GB_LEVEL_EASY; level <= GB_LEVEL_HARD; level++)
		assert_int_equal(ludo_ai_choose(&st, level, 1, 0, &act), GB_EOVER);
}

/* ---- the evaluation against a naive reference ----------------------------- */

/*
 * Naive threat: walk every opponent token forward die by die over its own
 * route (and a six then a second die, and a token let out by a six then a
 * die) and see which first dice or (six, second die) pairs end on the
 * square; the chance per opponent is P(first die hits) + P(six, then hit)
 * when the six alone does not.
 */
static double naive_threat(const struct ludo *st, int seat, int p)
{
	bool six_bonus = ludo_rule_on(st, LUDO_RULE_SIX_BONUS);
	int sq = ludo_ring_square(st->corner[seat], p);
	double safe = 1.0;

	if (sq < 0 || ludo_ring_is_star(sq))
		return 0.0;
	for (int o = 0; o < st->players; o++) {
		bool first[7] = { false }, second[7] = { false };
		int nfirst = 0, nsecond = 0;

		if (o == seat)
			continue;
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int q = st->pos[o][t];

			for (int d = 1; d <= 6; d++) {
				/* one roll */
				if (q >= 1 && q + d <= LUDO_LAST_RING &&
				    ludo_ring_square(st->corner[o], q + d) == sq)
					first[d] = true;
				if (!six_bonus)
					continue;
				/* a six, then d */
				if (q >= 1 && q + 6 + d <= LUDO_LAST_RING &&
				    ludo_ring_square(st->corner[o], q + 6 + d) == sq)
					second[d] = true;
				if (q == 0 && ludo_ring_square(st->corner[o], 1 + d) == sq)
					second[d] = true;
			}
		}
		for (int d = 1; d <= 6; d++) {
			nfirst += first[d];
			nsecond += second[d];
		}
		safe *= 1.0 - (nfirst / 6.0 + (first[6] ? 0.0 : nsecond / 36.0));
	}
	return 1.0 - safe;
}

/* A random sane position: tokens scattered, captures settled by moving on. */
static void random_position(struct ludo *st, struct gb_rng *r)
{
	int players = 2 + (int)gb_rng_below(r, 3);

	start(st, players, (int)gb_rng_below(r, 8), gb_rng_next(r));
	for (int s = 0; s < players; s++) {
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int u = (int)gb_rng_below(r, 10);

			st->pos[s][t] = (uint8_t)(u < 2 ? 0 : u == 2 ? 57 : 1 + gb_rng_below(r, 56));
		}
	}
	/* nobody finished, and no two seats on one ordinary square */
	for (int s = 0; s < players; s++) {
		if (ludo_home_count(st, s) == LUDO_TOKENS)
			st->pos[s][0] = 30;
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int sq = ludo_ring_square(st->corner[s], st->pos[s][t]);

			for (int o = 0; o < s && sq >= 0 && !ludo_ring_is_star(sq); o++)
				for (int u = 0; u < LUDO_TOKENS; u++)
					if (ludo_ring_square(st->corner[o], st->pos[o][u]) == sq)
						st->pos[s][t] = 0;
		}
	}
	assert_int_equal(G->check(st), GB_OK);
}

static void test_threat_matches_naive(void **s)
{
	struct gb_rng r;
	struct ludo st;

	(void)s;
	gb_rng_seed(&r, 42);
	for (int i = 0; i < 20000; i++) {
		random_position(&st, &r);
		for (int seat = 0; seat < st.players; seat++) {
			for (int p = 0; p <= LUDO_CENTRE; p++) {
				double a = ludo_ai_threat(&st, seat, p), b = naive_threat(&st, seat, p);

				if (a < b - 1e-12 || a > b + 1e-12)
					fail_msg("threat %d/%d at %d: %f, naive %f (position %d)", seat,
						 st.players, p, a, b, i);
			}
		}
	}
}

static void test_eval_is_a_share(void **s)
{
	struct gb_rng r;
	struct ludo st;

	(void)s;
	gb_rng_seed(&r, 7);
	for (int i = 0; i < 2000; i++) {
		double sum = 0.0;

		random_position(&st, &r);
		for (int seat = 0; seat < st.players; seat++) {
			double e = ludo_ai_eval(&st, seat, ludo_ai_defaults(GB_LEVEL_MEDIUM));

			assert_true(e > 0.0 && e < 1.0);
			sum += e;
		}
		assert_true(sum > 1.0 - 1e-9 && sum < 1.0 + 1e-9);
	}
	/* more progress, more chance */
	start(&st, 2, 0, 1);
	place(&st, 0, 20, 0, 0, 0);
	place(&st, 1, 10, 0, 0, 0);
	assert_true(ludo_ai_eval(&st, 0, ludo_ai_defaults(GB_LEVEL_MEDIUM)) > 0.5);
}

/* ---- the learned evaluation ----------------------------------------------- */

static void test_net_checksum_refuses_corruption(void **s)
{
	const struct ludo_net *w = ludo_net_builtin();
	struct ludo_net *copy = malloc(sizeof(*copy));
	uint32_t sum;

	(void)s;
	assert_non_null(w);  /* the compiled-in weights match their checksum */
	assert_non_null(copy);
	memcpy(copy, w, sizeof(*copy));
	sum = ludo_net_checksum(copy, LUDO_NET_VERSION);
	assert_int_equal(ludo_net_check(copy, LUDO_NET_VERSION, sum), GB_OK);
	assert_int_equal(ludo_net_check(copy, LUDO_NET_VERSION + 1, sum), GB_ESTATE);
	assert_int_equal(ludo_net_check(copy, LUDO_NET_VERSION, sum ^ 1u), GB_ESTATE);
	((unsigned char *)copy->w1[17])[2] ^= 0x10;  /* one bit of one weight */
	assert_int_equal(ludo_net_check(copy, LUDO_NET_VERSION, sum), GB_ESTATE);
	((unsigned char *)copy->w1[17])[2] ^= 0x10;
	copy->b2[3] = -copy->b2[3] + 1.0f;
	assert_int_equal(ludo_net_check(copy, LUDO_NET_VERSION, sum), GB_ESTATE);
	assert_int_equal(ludo_net_check(NULL, LUDO_NET_VERSION, sum), GB_ESTATE);
	free(copy);
}

static void test_net_output_is_a_share(void **s)
{
	const struct ludo_net *w = ludo_net_builtin();
	struct gb_rng r;
	struct ludo st;

	(void)s;
	assert_non_null(w);
	gb_rng_seed(&r, 11);
	for (int i = 0; i < 3000; i++) {
		struct ludo_feat f;
		struct ludo_net_act a, b;
		double sum = 0.0;

		random_position(&st, &r);
		st.seat = (uint8_t)gb_rng_below(&r, st.players);
		ludo_ai_features(&st, &f);
		assert_true(f.n > 0 && f.n <= LUDO_NET_MAXACT);
		for (int k = 0; k < f.n; k++) {
			assert_true(f.idx[k] < LUDO_NET_IN);
			assert_true(f.val[k] >= 0.0f && f.val[k] < 10.0f);
		}
		ludo_net_forward(w, &f, &a);
		ludo_net_forward(w, &f, &b);
		assert_memory_equal(&a, &b, sizeof(a));
		for (int k = 0; k < LUDO_NET_OUT; k++) {
			assert_true(a.out[k] > 0.0 && a.out[k] < 1.0);
			sum += a.out[k];
		}
		assert_true(sum > 1.0 - 1e-9 && sum < 1.0 + 1e-9);
	}
}

static void test_net_hard_same_input_same_action(void **s)
{
	struct ludo_ai_params p = *ludo_ai_defaults(GB_LEVEL_HARD);
	struct ludo st;

	(void)s;
	start(&st, 4, 0, 31);
	for (int k = 0; k < 3000 && st.winner < 0; k++) {
		struct gb_action act;

		for (p.eval = 1; p.eval <= 2 && st.phase == LUDO_PHASE_MOVE && k % 3 == 0; p.eval++) {
			struct ludo before = st;
			struct gb_action a1, a2;

			assert_int_equal(ludo_ai_choose_with(&st, GB_LEVEL_HARD, (uint64_t)k, 2, &p, &a1), GB_OK);
			assert_int_equal(ludo_ai_choose_with(&st, GB_LEVEL_HARD, (uint64_t)k, 2, &p, &a2), GB_OK);
			assert_memory_equal(&a1, &a2, sizeof(a1));
			assert_memory_equal(&before, &st, sizeof(st));
			assert_int_equal(a1.kind, GB_ACT_MOVE);
			assert_true(ludo_target(&st, a1.a, st.die) >= 0);
		}
		assert_int_equal(ludo_ai_choose(&st, GB_LEVEL_MEDIUM, 3, 0, &act), GB_OK);
		assert_int_equal(G->apply(&st, &act, NULL), GB_OK);
	}
}

/* ---- positions with an obvious move --------------------------------------- */

static void test_takes_the_capture(void **s)
{
	struct ludo st;

	(void)s;
	for (int level = GB_LEVEL_EASY; level <= GB_LEVEL_HARD; level++) {
		/* a 4 takes token 2 from 20 to 24, where seat 1 stands (its
		 * route 11, ring square 23); token 1 would only reach a star */
		start(&st, 4, 0, 1);
		place(&st, 0, 10, 20, 0, 0);
		place(&st, 1, 11, 0, 0, 0);
		to_move(&st, 4);
		for (uint64_t seed = 0; seed < 4; seed++)
			if (level != GB_LEVEL_EASY || seed)  /* easy may blunder now and then */
				assert_int_equal(chosen(&st, level, seed + 100), 1);
	}
}

static void test_finishes_and_flees(void **s)
{
	struct ludo st;

	(void)s;
	for (int level = GB_LEVEL_MEDIUM; level <= GB_LEVEL_HARD; level++) {
		/* a 3 brings 54 home; the other token at 30 is in no danger.
		 * With every opponent still in base, a position no game
		 * reaches, the learned evaluation of hard's leaves prefers
		 * 30 -> 33; the hand-written one is asked here. */
		struct ludo_ai_params hand = *ludo_ai_defaults(level);
		struct gb_action act;

		hand.eval = 0;
		start(&st, 4, 0, 1);
		place(&st, 0, 54, 30, 0, 0);
		to_move(&st, 3);
		assert_int_equal(ludo_ai_choose_with(&st, level, 1, 0, &hand, &act), GB_OK);
		assert_int_equal(act.a, 0);

		/* token at 30 has an opponent 2 behind (seat 1 at its route 15 =
		 * ring 28); a 5 takes it to the star at 35 */
		start(&st, 4, 0, 1);
		place(&st, 0, 5, 30, 0, 0);
		place(&st, 1, 15, 0, 0, 0);
		to_move(&st, 5);
		assert_int_equal(chosen(&st, level, 1), 1);
	}
}

/* ---- each level beats the one below --------------------------------------- */

/* Wins of seat list `levels` entry 0 over `games` games, seats rotated. */
static int match(int players, const int *levels, int games, int hard_ms)
{
	int wins = 0;

	for (int g = 0; g < games; g++) {
		int seats[GB_MAX_SEATS], rot = g % players;

		for (int i = 0; i < players; i++)
			seats[(i + rot) % players] = levels[i];
		if (play(players, 0, 5000 + (uint64_t)g, seats, hard_ms) == rot)
			wins++;
	}
	return wins;
}

static void test_levels_beat_the_level_below(void **s)
{
	int easy_random[4] = { GB_LEVEL_EASY, GB_LEVEL_RANDOM, GB_LEVEL_RANDOM, GB_LEVEL_RANDOM };
	int medium_easy[4] = { GB_LEVEL_MEDIUM, GB_LEVEL_EASY, GB_LEVEL_EASY, GB_LEVEL_EASY };
	int hard_random[4] = { GB_LEVEL_HARD, GB_LEVEL_RANDOM, GB_LEVEL_RANDOM, GB_LEVEL_RANDOM };

	(void)s;
	/* at a table of four, a level no better than the rest wins a quarter */
	assert_true(match(4, easy_random, 200, 0) > 80);
	assert_true(match(4, medium_easy, 300, 0) > 90);
	assert_true(match(4, hard_random, 40, 2) > 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legal_every_rule_and_table),
		cmocka_unit_test(test_legal_hard),
		cmocka_unit_test(test_same_input_same_action),
		cmocka_unit_test(test_roll_phase_rolls_and_over_is_eover),
		cmocka_unit_test(test_threat_matches_naive),
		cmocka_unit_test(test_eval_is_a_share),
		cmocka_unit_test(test_net_checksum_refuses_corruption),
		cmocka_unit_test(test_net_output_is_a_share),
		cmocka_unit_test(test_net_hard_same_input_same_action),
		cmocka_unit_test(test_takes_the_capture),
		cmocka_unit_test(test_finishes_and_flees),
		cmocka_unit_test(test_levels_beat_the_level_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
