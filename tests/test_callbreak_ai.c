/*
 * test_callbreak_ai.c - cmocka suite for the Call Break computer players
 * (games/ai/callbreak_ai.c).
 *
 * What it proves: the players are handed the view of the seat to move and
 * nothing else (the game's row makes it; a decision from a copy of the view
 * alone is the decision at the table, at every level and for `ismcts`);
 * every level only ever bids and plays what the rules allow,
 * over 1,200 games of every `rounds` value with check() after each
 * action (300 at `make test`'s size, tests/size.h); the same state, level
 * and seed give the same action; no level can
 * peek: in many situations the other seats' hidden cards are dealt again
 * (consistently with the hand sizes, the cards gone and everything play
 * proved each seat lacks, by random swaps between the other hands, so that
 * check() still accepts the state) and every level must give exactly the
 * same action; the deals of unseen cards the hard level searches over
 * respect the same facts; a few situations where the right card is clear;
 * each level beats the one below in a small sample with a wide margin; and
 * the hard level's chance of winning the game from the scores is a
 * distribution over the seats.
 *
 * The hard level searches: most tests use it with a small search
 * (cheap_hard) so that the suite stays fast under the sanitizers, a few use
 * the real default. A budget_ms below the default's scales the search
 * sizes down in proportion and never reads the clock: the decision is the
 * one the scaled sizes give, on every call.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/callbreak_ismcts.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"
#include "tests/size.h"

static const struct gb_game *G = &callbreak_game;

#define NO_CAP 1000000 /* a budget_ms above the default: the hard level's full search */

/*
 * The hard level with a small search: same code, fewer play-outs (deals
 * per card decision; the match against medium uses four times as many,
 * enough for a clear margin in a small sample).
 */
static int cheap_deals = 10;

static struct callbreak_ai_params cheap_hard(void)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);

	p.dets = cheap_deals;
	p.rollouts = 4 * cheap_deals;
	p.min_dets = cheap_deals / 2;
	p.bid_deals = cheap_deals;
	return p;
}

/*
 * A player for the tests: a level through gb_ai_choose(), or (cheap set)
 * the hard code with a small search.
 */
struct player {
	int level;
	bool cheap;
};

/* callbreak_ai_play() for the seat to move in st, from its view as the players are handed it. */
static int play(const struct callbreak *st, const struct callbreak_ai_params *p, uint64_t seed, int budget_ms,
		struct gb_action *a)
{
	struct callbreak_view v;

	callbreak_view(st, G->turn(st), &v);
	return callbreak_ai_play(&v, p, seed, budget_ms, a);
}

static int choose(const struct callbreak *st, struct player pl, uint64_t seed, struct gb_action *a)
{
	struct callbreak_ai_params p;

	if (pl.cheap) {
		p = cheap_hard();
		return play(st, &p, seed, NO_CAP, a);
	}
	return gb_ai_choose(G, st, pl.level, seed, pl.level == GB_LEVEL_HARD ? NO_CAP : 0, a);
}

static void start(struct callbreak *st, uint64_t seed, int rounds_value, const char *deal, int dealer)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.seed = seed;
	su.rules.v[0] = (unsigned char)rounds_value;
	su.deal = deal;
	su.dealer = dealer;
	assert_int_equal(G->init(st, &su), GB_OK);
}

/* Apply an action that must be legal, then check the state. */
static void apply_ok(struct callbreak *st, const struct gb_action *a)
{
	assert_true(gb_action_is_legal(G, st, a));
	assert_int_equal(G->apply(st, a, NULL), GB_OK);
	assert_int_equal(G->check(st), GB_OK);
}

/* Play a whole game; returns the winning seat. */
static int play_game(struct callbreak *st, const struct player pl[CB_SEATS], uint64_t seed,
		     long *actions)
{
	struct gb_outcome oc;

	for (long k = 0;; k++) {
		struct gb_action a;
		int turn = G->turn(st);

		G->outcome(st, &oc);
		if (oc.over)
			break;
		if (turn < 0) {
			/* between rounds every level says next */
			for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
				struct player p = { l, l == GB_LEVEL_HARD };

				assert_int_equal(choose(st, p, seed + (uint64_t)k, &a), GB_OK);
				assert_int_equal(a.kind, GB_ACT_NEXT);
			}
		} else {
			assert_int_equal(choose(st, pl[turn], gb_seed_derive(seed, (uint64_t)k), &a), GB_OK);
			assert_true(a.kind == (st->phase == CB_PHASE_BID ? GB_ACT_BID : GB_ACT_PLAY));
		}
		apply_ok(st, &a);
		if (actions)
			(*actions)++;
	}
	return oc.winner;
}

/* ---- legal play ----------------------------------------------------------- */

static void test_levels_play_legally(void **state)
{
	struct callbreak st;
	struct gb_rng r;
	struct gb_action a;
	long games = 0, actions = 0;
	const int mixed = test_size(1200, 300);

	(void)state;
	gb_rng_seed(&r, 2024);
	/* easy, medium, cheap hard and random seats mixed, every rounds value */
	for (int g = 0; g < mixed; g++) {
		struct player pl[CB_SEATS];

		for (int s = 0; s < CB_SEATS; s++) {
			int l = (int)gb_rng_below(&r, 4);

			pl[s].level = l;
			pl[s].cheap = l == GB_LEVEL_HARD;
			if (l == GB_LEVEL_HARD && gb_rng_below(&r, 4))
				pl[s].level = GB_LEVEL_MEDIUM, pl[s].cheap = false;
		}
		start(&st, gb_rng_next(&r), g % 3, NULL, g % 4);
		play_game(&st, pl, gb_rng_next(&r), &actions);
		games++;
	}
	/* the real hard level, a one-round game */
	{
		struct player pl[CB_SEATS] = { { GB_LEVEL_HARD, false }, { GB_LEVEL_MEDIUM, false },
					       { GB_LEVEL_EASY, false }, { GB_LEVEL_HARD, false } };

		start(&st, 77, 2, NULL, 1);
		play_game(&st, pl, 78, &actions);
		games++;
	}
	/* nothing to do once the game is over */
	for (int l = GB_LEVEL_RANDOM; l < GB_LEVEL_COUNT; l++)
		assert_int_equal(gb_ai_choose(G, &st, l, 1, 0, &a), GB_EOVER);
	printf("legal play: %ld games, %ld actions\n", games, actions);
	assert_true(actions > 150L * mixed); /* 180,000 at the full size */
}

/* ---- determinism ------------------------------------------------------------ */

static void test_same_seed_same_action(void **state)
{
	struct callbreak st, copy;
	struct gb_rng r;
	long compared = 0;
	const int games = test_size(40, 10);

	(void)state;
	gb_rng_seed(&r, 5);
	for (int g = 0; g < games; g++) {
		start(&st, gb_rng_next(&r), 2, NULL, g % 4);
		while (st.phase == CB_PHASE_BID || st.phase == CB_PHASE_PLAY) {
			struct gb_action a, b;
			uint64_t seed = gb_rng_next(&r);

			for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
				struct player p = { l, l == GB_LEVEL_HARD && gb_rng_below(&r, 8) != 0 };

				copy = st;
				assert_int_equal(choose(&st, p, seed, &a), GB_OK);
				assert_int_equal(choose(&copy, p, seed, &b), GB_OK);
				assert_memory_equal(&a, &b, sizeof(a));
				assert_memory_equal(&st, &copy, sizeof(st)); /* the state is not touched */
				compared++;
			}
			assert_int_equal(gb_ai_random(G, &st, seed, &b), GB_OK);
			apply_ok(&st, &b);
		}
	}
	printf("determinism: %ld decisions compared\n", compared);
	assert_true(compared > 125L * games); /* 5,000 at the full size */
}

/*
 * A small budget_ms gives the decision of the hard level's search sizes
 * scaled to it (deals per card and per bid, play-outs), the same on every
 * call however long the search takes on this machine: the clock decides
 * nothing.
 */
static void test_budget_scales_the_search(void **state)
{
	struct callbreak st;
	struct gb_rng r;
	long compared = 0;
	const int budget = 9; /* of the default 450 ms: a fiftieth of the search */

	(void)state;
	gb_rng_seed(&r, 77);
	for (int g = 0; g < 6; g++) {
		start(&st, gb_rng_next(&r), 1, NULL, g % 4);
		while (st.phase == CB_PHASE_BID || st.phase == CB_PHASE_PLAY) {
			struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
			struct gb_action a, b, c;
			uint64_t seed = gb_rng_next(&r);

			p.dets = p.dets * budget / 450;
			p.rollouts = p.rollouts * budget / 450;
			p.min_dets = p.min_dets * budget / 450;
			p.bid_deals = p.bid_deals * budget / 450;
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_HARD, seed, budget, &a), GB_OK);
			assert_int_equal(play(&st, &p, seed, NO_CAP, &b), GB_OK);
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_HARD, seed, budget, &c), GB_OK);
			assert_memory_equal(&a, &b, sizeof(a));
			assert_memory_equal(&a, &c, sizeof(a));
			compared++;
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, seed, 0, &b), GB_OK);
			apply_ok(&st, &b);
		}
	}
	printf("budget: %ld decisions of the scaled search compared\n", compared);
	assert_true(compared > 250);
}

/* ---- no peeking -------------------------------------------------------------- */

/*
 * Deal the hidden cards again: many random swaps of one card between two
 * other seats, each allowed only when neither seat is proven to lack the
 * card it receives, so hand sizes and everything public stay true. Also
 * scrambles the generator (future deals are hidden too). Returns whether
 * any other hand changed.
 */
static bool redeal_hidden(struct callbreak *st, int seat, struct gb_rng *r)
{
	uint64_t before[CB_SEATS];

	memcpy(before, st->hand, sizeof(before));
	for (int i = 0; i < 400; i++) {
		int a = (seat + 1 + (int)gb_rng_below(r, 3)) % CB_SEATS;
		int b = (seat + 1 + (int)gb_rng_below(r, 3)) % CB_SEATS;
		int na = __builtin_popcountll(st->hand[a]), nb = __builtin_popcountll(st->hand[b]);
		uint64_t x, y, m;

		if (a == b || !na || !nb)
			continue;
		m = st->hand[a];
		for (int k = (int)gb_rng_below(r, (uint32_t)na); k > 0; k--)
			m &= m - 1;
		x = m & -m;
		m = st->hand[b];
		for (int k = (int)gb_rng_below(r, (uint32_t)nb); k > 0; k--)
			m &= m - 1;
		y = m & -m;
		if ((st->lacks[b] & x) || (st->lacks[a] & y))
			continue;
		st->hand[a] ^= x | y;
		st->hand[b] ^= x | y;
	}
	st->rng.s[0] ^= gb_rng_next(r);
	return memcmp(before, st->hand, sizeof(before)) != 0;
}

static void test_no_level_peeks(void **state)
{
	struct callbreak st, other;
	struct gb_rng r;
	long situations = 0, changed = 0, full_hard = 0;
	const int games = test_size(80, 20);

	(void)state;
	gb_rng_seed(&r, 31337);
	for (int g = 0; g < games; g++) {
		start(&st, gb_rng_next(&r), g % 3, NULL, g % 4);
		for (;;) {
			struct gb_action a;
			int seat = G->turn(&st);

			if (st.phase == CB_PHASE_GAME_OVER)
				break;
			if (seat >= 0 && gb_rng_below(&r, 6) == 0) {
				struct callbreak_view v, w;
				uint64_t seed = gb_rng_next(&r);

				other = st;
				changed += redeal_hidden(&other, seat, &r);
				assert_int_equal(G->check(&other), GB_OK);
				assert_true(other.hand[seat] == st.hand[seat]);
				callbreak_view(&st, seat, &v);
				callbreak_view(&other, seat, &w);
				assert_memory_equal(&v, &w, sizeof(v));
				for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
					struct player p = { l, l == GB_LEVEL_HARD && situations % 25 != 0 };
					struct gb_action x, y;

					assert_int_equal(choose(&st, p, seed, &x), GB_OK);
					assert_int_equal(choose(&other, p, seed, &y), GB_OK);
					assert_memory_equal(&x, &y, sizeof(x));
					full_hard += l == GB_LEVEL_HARD && !p.cheap;
				}
				situations++;
			}
			/* move on with a medium player (a realistic game) */
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, gb_rng_next(&r), 0, &a), GB_OK);
			apply_ok(&st, &a);
		}
	}
	printf("no peeking: %ld situations (%ld hidden hands changed, %ld with the full hard search)\n",
	       situations, changed, full_hard);
	/* 1,500 and 50 at the full size */
	assert_true(situations > games * 75L / 4);
	assert_true(changed > situations * 3 / 4);
	assert_true(full_hard >= games * 5L / 8);
}

/*
 * The players are handed the view, not the state: the game's row makes the
 * view of the seat to move (callbreak_view() of it, byte for byte, and a
 * spectator's between rounds); a decision taken from a copy of that view
 * alone, in a block of exactly its size, is the decision gb_ai_choose()
 * takes from the state at every level (the random level as gb_ai_random()
 * plays on the state) and gb_ai_reference() for `ismcts`; and a state whose
 * other hands were dealt again gives the same view byte for byte, and the
 * same decisions.
 */
static void test_players_take_the_view(void **state)
{
	struct callbreak st, other;
	struct gb_rng r;
	long situations = 0, changed = 0;

	(void)state;
	gb_rng_seed(&r, 4242);
	for (int g = 0; g < 6; g++) {
		start(&st, gb_rng_next(&r), g % 3, NULL, g % 4);
		while (st.phase != CB_PHASE_GAME_OVER) {
			union {
				max_align_t align;
				unsigned char b[GB_AI_VIEW_MAX];
			} row;
			struct callbreak_view v, w, *alone = malloc(sizeof(*alone));
			struct gb_action x, y, z;
			uint64_t seed = gb_rng_next(&r);
			int seat = G->turn(&st);

			assert_non_null(alone);
			callbreak_view(&st, seat, &v);
			assert_int_equal(G->ai->view_size, sizeof(v));
			memset(row.b, 0xa5, sizeof(row.b));
			G->ai->view(&st, row.b);
			assert_memory_equal(row.b, &v, sizeof(v));
			other = st;
			if (seat >= 0)
				changed += redeal_hidden(&other, seat, &r);
			callbreak_view(&other, seat, &w);
			assert_memory_equal(&v, &w, sizeof(v));
			memcpy(alone, &v, sizeof(v));
			for (int l = GB_LEVEL_RANDOM; l < GB_LEVEL_COUNT; l++) {
				int budget = l == GB_LEVEL_HARD ? 20 : 0; /* a small search */

				assert_int_equal(callbreak_ai_choose(alone, l, seed, budget, &x), GB_OK);
				assert_int_equal(gb_ai_choose(G, &st, l, seed, budget, &y), GB_OK);
				assert_int_equal(gb_ai_choose(G, &other, l, seed, budget, &z), GB_OK);
				assert_memory_equal(&x, &y, sizeof(x));
				assert_memory_equal(&x, &z, sizeof(x));
			}
			assert_int_equal(callbreak_ai_choose(alone, GB_LEVEL_RANDOM, seed, 0, &x), GB_OK);
			assert_int_equal(gb_ai_random(G, &st, seed, &y), GB_OK);
			assert_memory_equal(&x, &y, sizeof(x));
			assert_int_equal(callbreak_ismcts_choose(alone, 20, seed, &x), GB_OK);
			assert_int_equal(gb_ai_reference(G, &st, 20, seed, &y), GB_OK);
			assert_int_equal(gb_ai_reference(G, &other, 20, seed, &z), GB_OK);
			assert_memory_equal(&x, &y, sizeof(x));
			assert_memory_equal(&x, &z, sizeof(x));
			free(alone);
			situations++;
			/* move on with a medium player */
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, gb_rng_next(&r), 0, &x), GB_OK);
			apply_ok(&st, &x);
		}
	}
	printf("the view alone: %ld situations (%ld with the hidden hands dealt again)\n", situations, changed);
	assert_true(situations > 400);
	assert_true(changed > situations / 2);
}

/* ---- the deals the hard level searches over ------------------------------- */

static void test_deals_respect_the_view(void **state)
{
	struct callbreak st;
	struct gb_rng r;
	long deals = 0, constrained = 0;

	(void)state;
	gb_rng_seed(&r, 8);
	for (int g = 0; g < 100; g++) {
		start(&st, gb_rng_next(&r), 2, NULL, g % 4);
		while (st.phase != CB_PHASE_GAME_OVER && st.phase != CB_PHASE_ROUND_OVER) {
			struct gb_action a;
			int seat = G->turn(&st);
			struct callbreak_view v;
			uint64_t hand[CB_SEATS], table = 0;

			callbreak_view(&st, seat, &v);
			for (int i = 0; i < v.ntrick; i++)
				table |= CB_BIT(v.trick[i]);
			for (int k = 0; k < 3; k++) {
				uint64_t all = 0;

				assert_int_equal(callbreak_ai_deal(&v, gb_rng_next(&r), hand), GB_OK);
				assert_true(hand[seat] == v.hand);
				for (int q = 0; q < CB_SEATS; q++) {
					assert_int_equal(__builtin_popcountll(hand[q]), v.held[q]);
					assert_true((hand[q] & all) == 0);
					all |= hand[q];
					if (q != seat)
						assert_true((hand[q] & v.lacks[q]) == 0);
					constrained += q != seat && v.lacks[q] != 0;
				}
				assert_true((all | v.gone | table) == CB_DECK);
				assert_true((all & (v.gone | table)) == 0);
				deals++;
			}
			assert_int_equal(gb_ai_random(G, &st, gb_rng_next(&r), &a), GB_OK);
			apply_ok(&st, &a);
		}
	}
	printf("deals: %ld checked, %ld with proven gaps to respect\n", deals, constrained);
	assert_true(constrained > 10000);
}

/*
 * The hard level's deals during play, drawn by its chain, respect the view
 * like independent deals do, and where the other seats play medium's rules
 * they explain that play: late in a round they put far more of the other
 * seats' cards where they really are than independent deals do.
 */
static void test_hard_deals_explain_the_play(void **state)
{
	const struct callbreak_ai_params *hard = callbreak_ai_defaults(GB_LEVEL_HARD);
	struct callbreak_ai_params indep = *hard;
	static uint64_t hands[64][CB_SEATS];
	struct callbreak st;
	struct gb_rng r;
	double right_chain = 0, right_indep = 0, placed = 0;
	long views = 0;

	(void)state;
	assert_true(hard->mcmc > 0);
	indep.mcmc = 0;
	gb_rng_seed(&r, 21);
	for (int g = 0; g < 12; g++) {
		start(&st, gb_rng_next(&r), 1, NULL, g % 4);
		while (st.phase != CB_PHASE_GAME_OVER && st.phase != CB_PHASE_ROUND_OVER) {
			struct gb_action a;
			int seat = G->turn(&st);

			if (st.phase == CB_PHASE_PLAY && seat == 0 && st.nplayed >= 24) {
				struct callbreak_view v;

				callbreak_view(&st, 0, &v);
				for (int pass = 0; pass < 2; pass++) {
					uint64_t table = 0;
					const struct callbreak_ai_params *p = pass ? &indep : hard;

					assert_int_equal(callbreak_ai_deals(&v, p, gb_rng_next(&r), 64, hands), GB_OK);
					for (int i = 0; i < v.ntrick; i++)
						table |= CB_BIT(v.trick[i]);
					for (int d = 0; d < 64; d++) {
						uint64_t all = 0;

						assert_true(hands[d][0] == v.hand);
						for (int q = 0; q < CB_SEATS; q++) {
							assert_int_equal(__builtin_popcountll(hands[d][q]), v.held[q]);
							assert_true((hands[d][q] & all) == 0);
							all |= hands[d][q];
							if (q == 0)
								continue;
							assert_true((hands[d][q] & v.lacks[q]) == 0);
							*(pass ? &right_indep : &right_chain) +=
								__builtin_popcountll(hands[d][q] & st.hand[q]);
							if (!pass)
								placed += v.held[q];
						}
						assert_true((all | v.gone | table) == CB_DECK);
					}
				}
				views++;
			}
			assert_int_equal(play(&st, callbreak_ai_defaults(GB_LEVEL_MEDIUM), gb_rng_next(&r), 0, &a),
					 GB_OK);
			apply_ok(&st, &a);
		}
	}
	printf("%ld views late in a round: cards placed right %.1f%% by the chain, %.1f%% independently\n",
	       views, 100.0 * right_chain / placed, 100.0 * right_indep / placed);
	assert_true(views >= 12);
	assert_true(right_chain > 1.15 * right_indep);
}

/* ---- situations with a clear answer ---------------------------------------- */

/* Parse "AS KS ..." into a set. */
static uint64_t cards(const char *text)
{
	char buf[200], *save = NULL;
	uint64_t m = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		int c;

		assert_int_equal(callbreak_card_parse(t, &c), GB_OK);
		m |= CB_BIT(c);
	}
	return m;
}

static void act(struct callbreak *st, const char *text)
{
	struct gb_action a;

	assert_int_equal(G->parse(st, text, &a), GB_OK);
	apply_ok(st, &a);
}

static int card_of(const char *text)
{
	int c;

	assert_int_equal(callbreak_card_parse(text, &c), GB_OK);
	return c;
}

/* Seat 0 leads the first trick (dealer 3); seat 3 is last to play. */
#define DEAL1 "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH|" \
	      "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|" \
	      "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|" \
	      "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"
#define DEAL2 "2S 2H 3H 4H 5H 6H 7H 8H 9H 2D 3D 4D 5D|" \
	      "JH 6D 7D 8D 9D 10D JD QD KD AD 2C 3C 4C|" \
	      "10H 5C 6C 7C 8C 9C 10C JC QC KC AC 3S 4S|" \
	      "QH KH AH 5S 6S 7S 8S 9S 10S JS QS KS AS"

static void test_clear_situations(void **state)
{
	struct callbreak st;
	struct gb_action a;

	(void)state;
	/* bids: thirteen spades is the most anyone may bid, a worthless hand the least */
	assert_int_equal(callbreak_ai_count(cards("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"),
					    CB_AI_MEDIUM) >= 80, true);
	start(&st, 1, 0, DEAL1, 3);
	for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
		struct callbreak c = st;

		act(&c, "bid 1");
		assert_int_equal(gb_ai_choose(G, &c, l, 9, NO_CAP, &a), GB_OK);
		assert_int_equal(a.kind, GB_ACT_BID);
		assert_int_equal(a.a, CB_MAX_BID); /* all thirteen spades */
	}
	start(&st, 1, 0, DEAL2, 3);
	for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
		assert_int_equal(gb_ai_choose(G, &st, l, 9, NO_CAP, &a), GB_OK);
		assert_int_equal(a.a, CB_MIN_BID); /* nothing higher than a ten */
	}
	act(&st, "bid 1");
	act(&st, "bid 3");
	act(&st, "bid 2");
	act(&st, "bid 5");
	/* 2H led, JH beats it, 10H cannot; last to play with QH KH AH and
	 * needing tricks: the cheapest winner */
	act(&st, "play 2H");
	act(&st, "play JH");
	act(&st, "play 10H");
	for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
		assert_int_equal(gb_ai_choose(G, &st, l, 3, NO_CAP, &a), GB_OK);
		assert_int_equal(a.a, card_of("QH"));
	}
	act(&st, "play QH");
	/* ten spades to the ace: medium draws trumps with the top one */
	assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, 3, 0, &a), GB_OK);
	assert_int_equal(a.a, card_of("AS"));
	act(&st, "play AS");
	act(&st, "play 2S");
	/* seat 1 has no spade and cannot win: it keeps its diamond honours */
	for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT; l++) {
		assert_int_equal(gb_ai_choose(G, &st, l, 3, NO_CAP, &a), GB_OK);
		assert_true(CB_RANK(a.a) <= CB_RANK(card_of("10D")));
		if (l != GB_LEVEL_HARD)
			assert_int_equal(a.a, card_of("2C"));
	}
}

/* ---- each level beats the one below ----------------------------------------- */

/* Seats a, b, a, b rotated game by game; returns games won by level a's seats. */
static int match(struct player pa, struct player pb, int games, uint64_t seed)
{
	struct callbreak st;
	int won = 0;

	for (int g = 0; g < games; g++) {
		struct player pl[CB_SEATS];
		int w;

		for (int s = 0; s < CB_SEATS; s++)
			pl[s] = (s + g) % 2 ? pb : pa;
		start(&st, gb_seed_derive(seed, (uint64_t)g), 0, NULL, g % 4);
		w = play_game(&st, pl, gb_seed_derive(seed ^ 1, (uint64_t)g), NULL);
		won += (w + g) % 2 == 0;
	}
	return won;
}

static void test_levels_beat_the_level_below(void **state)
{
	struct player rnd = { GB_LEVEL_RANDOM, false }, easy = { GB_LEVEL_EASY, false };
	struct player medium = { GB_LEVEL_MEDIUM, false }, hard = { GB_LEVEL_HARD, true };
	int w;

	(void)state;
	w = match(easy, rnd, 100, 1);
	printf("easy vs random: %d of 100\n", w);
	assert_true(w >= 85);
	w = match(medium, easy, 600, 2);
	printf("medium vs easy: %d of 600\n", w);
	assert_true(w >= 330);
	cheap_deals = 40;
	w = match(hard, medium, 120, 3);
	cheap_deals = 10;
	printf("hard (small search) vs medium: %d of 120\n", w);
	assert_true(w >= 66);
}

/*
 * The hard level's chance of winning the game from the scores: the seats'
 * chances add up to one (each seat's rounds to come are drawn alike, so one
 * of them finishes first), a higher score never lowers it, the last round
 * is certain, and being behind two players is not as hopeless as two
 * separate chases multiplied: one good round of one's own passes both.
 */
static void test_game_chance(void **state)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	struct gb_rng r;
	int score[CB_SEATS];

	(void)state;
	gb_rng_seed(&r, 41);
	for (int i = 0; i < 400; i++) {
		int left = 1 + (int)gb_rng_below(&r, CB_MAX_ROUNDS - 1);
		double sum = 0, before, after;

		for (int q = 0; q < CB_SEATS; q++)
			score[q] = (int)gb_rng_below(&r, 301) - 100;
		for (int q = 0; q < CB_SEATS; q++) {
			double c = callbreak_ai_game_chance(&p, score, q, left);

			assert_true(c >= 0.0 && c <= 1.0);
			sum += c;
		}
		assert_true(sum > 0.98 && sum < 1.02);
		before = callbreak_ai_game_chance(&p, score, 0, left);
		score[0] += 10 + (int)gb_rng_below(&r, 40);
		after = callbreak_ai_game_chance(&p, score, 0, left);
		assert_true(after >= before);
	}
	/* equal scores, equal chances */
	score[0] = score[1] = score[2] = score[3] = 50;
	assert_true(fabs(callbreak_ai_game_chance(&p, score, 0, 2) - 0.25) < 0.01);
	/* the last round decides */
	score[0] = 51;
	assert_true(callbreak_ai_game_chance(&p, score, 0, 0) == 1.0);
	assert_true(callbreak_ai_game_chance(&p, score, 1, 0) == 0.0);
	/* five points behind two players, ahead of one, one round to go: more
	 * than the chances of passing each, taken apart, multiplied */
	{
		static const int apart_of[CB_SEATS] = { 100, 150, 150, 40 };
		double apart = 1.0;

		for (int q = 1; q < CB_SEATS; q++) {
			for (int k = 1; k < CB_SEATS; k++)
				score[k] = k == q ? apart_of[q] : -1000;
			score[0] = apart_of[0];
			apart *= callbreak_ai_game_chance(&p, score, 0, 1);
		}
		memcpy(score, apart_of, sizeof(score));
		assert_true(callbreak_ai_game_chance(&p, score, 0, 1) > 1.5 * apart);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_play_legally),
		cmocka_unit_test(test_same_seed_same_action),
		cmocka_unit_test(test_budget_scales_the_search),
		cmocka_unit_test(test_no_level_peeks),
		cmocka_unit_test(test_players_take_the_view),
		cmocka_unit_test(test_deals_respect_the_view),
		cmocka_unit_test(test_hard_deals_explain_the_play),
		cmocka_unit_test(test_clear_situations),
		cmocka_unit_test(test_levels_beat_the_level_below),
		cmocka_unit_test(test_game_chance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
