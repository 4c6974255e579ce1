/*
 * test_baghchal_ai.c - cmocka suite for the Bagh Chal computer players
 * (games/ai/baghchal_ai.c).
 *
 * What it proves: every level plays only legal actions over thousands of
 * complete games on both sides, with the rules core's invariant checker after
 * every action; the same state, level and seed give the same action, the
 * state passed in is left untouched, and a finished game gives GB_EOVER; the
 * seed varies the hard level's opening; the bitboard evaluation agrees with a
 * deliberately naive one written here from the rules' board; each level sees
 * the one-move tactics it is meant to see (take the fifth goat, shut the last
 * tiger in, parry a capture); and each level beats the one below on both
 * sides in small samples whose margins are large (measured over hundreds of
 * arena games). Searches here use small node budgets and no clock, so the
 * suite is deterministic and fast under the sanitizers.
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
#include "games/ai/baghchal_ai.h"
#include "games/baghchal.h"

static const struct gb_game *const G = &baghchal_game;

/* Seat levels of one game: the goats' and the tigers'; hard uses hard_nodes. */
struct pairing {
	int goats, tigers;
	uint64_t hard_nodes;
};

/* ---- helpers ------------------------------------------------------------ */

static void new_game(struct baghchal *s, uint64_t seed)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.seed = seed;
	assert_int_equal(G->init(s, &su), GB_OK);
}

/*
 * A position from its 25 board characters (a1 b1 ... e5, 'G', 'T', '.'),
 * the side to move, goats in hand and goats captured, with a fresh window
 * and the turn count the invariants expect.
 */
static void position(struct baghchal *s, const char *board, int to_move, int hand, int captured)
{
	int placed = BAGHCHAL_GOAT_COUNT - hand;
	int turns = hand > 0 ? 2 * placed - (to_move == BAGHCHAL_TIGERS)
			     : 2 * placed + 2 * captured + (to_move == BAGHCHAL_TIGERS);
	char hist[BAGHCHAL_POINTS + 2];
	json_t *j;

	snprintf(hist, sizeof(hist), "%s%c", board, to_move == BAGHCHAL_TIGERS ? 't' : 'g');
	j = json_pack("{s:s, s:s, s:i, s:i, s:n, s:n, s:i, s:i, s:[s]}", "board", board, "to_move",
		      to_move == BAGHCHAL_TIGERS ? "tiger" : "goat", "goats_in_hand", hand, "captured",
		      captured, "result", "reason", "clock", 0, "turns", turns, "history", hist);
	assert_non_null(j);
	assert_int_equal(G->from_json(s, j), GB_OK);
	json_decref(j);
}

static int pt(const char *name)
{
	return (name[1] - '1') * 5 + (name[0] - 'a');
}

/* One decision of level for the side to move; hard with an explicit budget. */
static int choose(const struct baghchal *s, int level, uint64_t seed, uint64_t hard_nodes,
		  struct gb_action *out)
{
	struct baghchal_move m;
	int rc;

	if (level != GB_LEVEL_HARD || hard_nodes == 0)
		return gb_ai_choose(G, s, level, seed, 0, out);
	rc = baghchal_ai_hard(s, seed, hard_nodes, 0, &m, NULL);
	if (rc == GB_OK)
		*out = baghchal_move_action(m);
	return rc;
}

/*
 * Play one complete game, checking every action and the invariants after it.
 * Returns the result (enum baghchal_result).
 */
static int play_game(const struct pairing *p, uint64_t seed)
{
	struct baghchal s, before;

	new_game(&s, seed);
	for (uint64_t k = 0; !baghchal_over(&s); k++) {
		int level = s.to_move == BAGHCHAL_GOATS ? p->goats : p->tigers;
		struct gb_action act;

		memcpy(&before, &s, sizeof(s));
		assert_int_equal(choose(&s, level, gb_seed_derive(seed, k), p->hard_nodes, &act), GB_OK);
		assert_memory_equal(&before, &s, sizeof(s));
		assert_true(gb_action_is_legal(G, &s, &act));
		assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
		assert_int_equal(G->check(&s), GB_OK);
	}
	return s.result;
}

/* Results of n games (index by enum baghchal_result). */
static void play_games(const struct pairing *p, int n, uint64_t seed, int res[4])
{
	memset(res, 0, 4 * sizeof(int));
	for (int g = 0; g < n; g++)
		res[play_game(p, gb_seed_derive(seed, (uint64_t)g))]++;
}

/* ---- legality over many games ------------------------------------------- */

static void test_easy_plays_legally(void **state)
{
	const struct pairing p[] = {
		{ GB_LEVEL_EASY, GB_LEVEL_RANDOM, 0 },
		{ GB_LEVEL_RANDOM, GB_LEVEL_EASY, 0 },
		{ GB_LEVEL_EASY, GB_LEVEL_EASY, 0 },
	};
	int res[4];

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		play_games(&p[i], 1000, 100 + i, res);
}

static void test_medium_plays_legally(void **state)
{
	const struct pairing p[] = {
		{ GB_LEVEL_MEDIUM, GB_LEVEL_RANDOM, 0 },
		{ GB_LEVEL_RANDOM, GB_LEVEL_MEDIUM, 0 },
		{ GB_LEVEL_MEDIUM, GB_LEVEL_MEDIUM, 0 },
	};
	int res[4];

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		play_games(&p[i], 150, 200 + i, res);
}

static void test_hard_plays_legally(void **state)
{
	const struct pairing p[] = {
		{ GB_LEVEL_HARD, GB_LEVEL_RANDOM, 3000 },
		{ GB_LEVEL_RANDOM, GB_LEVEL_HARD, 3000 },
		{ GB_LEVEL_HARD, GB_LEVEL_HARD, 1500 },
	};
	int res[4];

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		play_games(&p[i], 15, 300 + i, res);
}

/* ---- determinism and the contract --------------------------------------- */

static void test_same_input_same_action(void **state)
{
	struct baghchal s;

	(void)state;
	new_game(&s, 7);
	for (int k = 0; k < 120 && !baghchal_over(&s); k++) {
		struct gb_action act;

		for (int level = GB_LEVEL_RANDOM; level < GB_LEVEL_COUNT; level++) {
			struct gb_action a, b;
			uint64_t seed = gb_seed_derive(99, (uint64_t)(k * 4 + level));

			/* the hard level through its default budget only now and then: it is slow */
			if (level == GB_LEVEL_HARD && k % 50 != 0) {
				assert_int_equal(choose(&s, level, seed, 2000, &a), GB_OK);
				assert_int_equal(choose(&s, level, seed, 2000, &b), GB_OK);
			} else {
				assert_int_equal(gb_ai_choose(G, &s, level, seed, 0, &a), GB_OK);
				assert_int_equal(gb_ai_choose(G, &s, level, seed, 0, &b), GB_OK);
			}
			assert_int_equal(a.kind, b.kind);
			assert_int_equal(a.a, b.a);
			assert_int_equal(a.b, b.b);
		}
		assert_int_equal(gb_ai_choose(G, &s, GB_LEVEL_RANDOM, (uint64_t)k, 0, &act), GB_OK);
		assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
	}
}

static void test_game_over_is_eover(void **state)
{
	struct baghchal s;
	struct gb_action act;
	struct baghchal_move m;

	(void)state;
	/* a position where the goats have just shut every tiger in (BC-12) */
	position(&s, "TGGGTGG.GGG.G.GGG.GGTGG.T", BAGHCHAL_GOATS, 4, 0);
	act = (struct gb_action){ GB_ACT_PLACE, pt("d5"), 0, 0 };
	assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
	assert_int_equal(s.result, BAGHCHAL_GOATS_WIN);
	for (int level = GB_LEVEL_RANDOM; level < GB_LEVEL_COUNT; level++)
		assert_int_equal(gb_ai_choose(G, &s, level, 1, 0, &act), GB_EOVER);
	assert_int_equal(baghchal_ai_hard(&s, 1, 100, 0, &m, NULL), GB_EOVER);
}

static void test_time_budget_still_gives_a_legal_move(void **state)
{
	struct baghchal s;
	struct gb_action act;

	(void)state;
	new_game(&s, 3);
	/* budget_ms only cuts the search shorter; no timing is asserted */
	assert_int_equal(gb_ai_choose(G, &s, GB_LEVEL_HARD, 5, 20, &act), GB_OK);
	assert_true(gb_action_is_legal(G, &s, &act));
}

static void test_seed_varies_hard_opening(void **state)
{
	struct baghchal s;
	uint32_t seen = 0;

	(void)state;
	new_game(&s, 1);
	for (uint64_t seed = 0; seed < 24; seed++) {
		struct baghchal_move m;

		assert_int_equal(baghchal_ai_hard(&s, seed, 20000, 0, &m, NULL), GB_OK);
		assert_true(m.from < 0 && m.to >= 0 && m.to < BAGHCHAL_POINTS);
		seen |= 1u << m.to;
	}
	/* symmetric placements tie, and the seed breaks the tie */
	assert_true(__builtin_popcount(seen) >= 2);
}

/* ---- the evaluation against a naive one --------------------------------- */

/* Is there a line from point a to point b (naive: from coordinates, BC-2)? */
static int naive_line(int a, int b)
{
	int fa = a % 5, ra = a / 5, fb = b % 5, rb = b / 5, df = fb - fa, dr = rb - ra;

	if (a == b || df < -1 || df > 1 || dr < -1 || dr > 1)
		return 0;
	if (df != 0 && dr != 0)
		return (fa + ra) % 2 == 0; /* diagonals only from points with file + rank even */
	return 1;
}

/* The point at file f, rank r, or -1 off the board. */
static int naive_point(int f, int r)
{
	return f < 0 || f > 4 || r < 0 || r > 4 ? -1 : r * 5 + f;
}

/*
 * The evaluation rewritten the slow way: per tiger, per neighbour, per line
 * through each goat, straight from the documentation in baghchal_ai.c.
 */
static int naive_eval(const struct baghchal *s)
{
	/* the weights, copied from baghchal_ai.c */
	static const int capture_value[6] = { 0, 300, 700, 1200, 2600, 7600 };
	static const int danger[6] = { 3000, 2000, 1200, 600, 250, 80 };
	char b[25];
	int mobility = 0, trapped = 0, lonely = 0, exposed = 0, latent = 0, score, vuln, next;
	int threatened[25] = { 0 }, landing[25] = { 0 }, reach[25] = { 0 }, nt = 0, nl = 0;

	for (int p = 0; p < 25; p++)
		b[p] = ".GT"[baghchal_piece_at(s, p)];
	for (int t = 0; t < 25; t++) {
		int n = 0;

		if (b[t] != 'T')
			continue;
		for (int df = -1; df <= 1; df++) {
			for (int dr = -1; dr <= 1; dr++) {
				int q = naive_point(t % 5 + df, t / 5 + dr);
				int j = naive_point(t % 5 + 2 * df, t / 5 + 2 * dr);

				if (q < 0 || !naive_line(t, q))
					continue;
				if (b[q] == '.') {
					n++;
					reach[q] = 1;
				} else if (b[q] == 'G' && j >= 0 && naive_line(q, j) && b[j] == '.') {
					n++;
					threatened[q] = landing[j] = 1;
				}
			}
		}
		mobility += n;
		trapped += n == 0;
		lonely += n == 1;
	}
	for (int g = 0; g < 25; g++) {
		if (b[g] != 'G')
			continue;
		/* the four lines E-W, NE-SW, N-S, NW-SE through g */
		for (int l = 0; l < 4; l++) {
			static const int dirs[4][2] = { { 1, 0 }, { 1, 1 }, { 0, 1 }, { -1, 1 } };
			int a = naive_point(g % 5 + dirs[l][0], g / 5 + dirs[l][1]);
			int c = naive_point(g % 5 - dirs[l][0], g / 5 - dirs[l][1]);

			if (a < 0 || c < 0 || !naive_line(g, a) || !naive_line(g, c))
				continue;
			if (b[a] == 'G' || b[c] == 'G')
				continue;
			exposed++;
			latent += reach[a] && b[c] == '.';
			latent += reach[c] && b[a] == '.';
		}
	}
	for (int p = 0; p < 25; p++) {
		nt += threatened[p];
		nl += landing[p];
	}
	next = capture_value[s->captured + 1] - capture_value[s->captured];
	vuln = 6 * exposed + 10 * latent + (s->to_move == BAGHCHAL_GOATS && nt > 0 ? 30 : 0);
	score = capture_value[s->captured] + 12 * mobility - 90 * trapped - 100 * lonely +
		vuln * next / 500;
	if (mobility < 6)
		score -= danger[mobility];
	if (s->to_move == BAGHCHAL_GOATS && nt >= 2 && nl >= 2)
		score += next * 3 / 4;
	return score;
}

static void test_eval_matches_naive(void **state)
{
	long compared = 0;

	(void)state;
	for (uint64_t g = 0; g < 300; g++) {
		struct baghchal s;

		new_game(&s, g);
		for (uint64_t k = 0; !baghchal_over(&s); k++) {
			struct gb_action act;

			assert_int_equal(baghchal_ai_eval(&s), naive_eval(&s));
			compared++;
			/* mostly random, now and then easy: boards both crowded and sparse */
			assert_int_equal(gb_ai_choose(G, &s, k % 3 ? GB_LEVEL_RANDOM : GB_LEVEL_EASY,
						      gb_seed_derive(g, k), 0, &act),
					 GB_OK);
			assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
		}
	}
	assert_true(compared > 10000);
}

/* The search's generator gives exactly the moves of the rules core. */
static int move_key(const void *a, const void *b)
{
	const struct baghchal_move *x = a, *y = b;
	int kx = (x->from + 1) * 1000 + x->to * 30 + x->over + 1;
	int ky = (y->from + 1) * 1000 + y->to * 30 + y->over + 1;

	return (kx > ky) - (kx < ky);
}

static void test_generator_matches_rules_core(void **state)
{
	long compared = 0;

	(void)state;
	for (uint64_t g = 0; g < 300; g++) {
		struct baghchal s;

		new_game(&s, g);
		for (uint64_t k = 0;; k++) {
			struct baghchal_move a[BAGHCHAL_MAX_MOVES], b[BAGHCHAL_MAX_MOVES];
			struct gb_action act;
			int na = baghchal_ai_moves(&s, a), nb = baghchal_moves(&s, b);

			assert_int_equal(na, nb);
			qsort(a, (size_t)na, sizeof(a[0]), move_key);
			qsort(b, (size_t)nb, sizeof(b[0]), move_key);
			assert_memory_equal(a, b, (size_t)na * sizeof(a[0]));
			compared++;
			if (baghchal_over(&s))
				break;
			assert_int_equal(gb_ai_choose(G, &s, k % 2 ? GB_LEVEL_RANDOM : GB_LEVEL_EASY,
						      gb_seed_derive(g + 1000, k), 0, &act),
					 GB_OK);
			assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
		}
	}
	assert_true(compared > 10000);
}

/* ---- one-move tactics --------------------------------------------------- */

static void test_every_level_takes_the_fifth_goat(void **state)
{
	struct baghchal s;

	(void)state;
	/* four taken; the a1 tiger can jump b2 to c3, the only capture */
	position(&s, "T...T.G.............T...T", BAGHCHAL_TIGERS, 15, 4);
	for (int level = GB_LEVEL_EASY; level < GB_LEVEL_COUNT; level++) {
		for (uint64_t seed = 0; seed < 4; seed++) {
			struct gb_action act;

			assert_int_equal(gb_ai_choose(G, &s, level, seed, 0, &act), GB_OK);
			assert_int_equal(act.kind, GB_ACT_MOVE);
			assert_int_equal(act.a, pt("a1"));
			assert_int_equal(act.b, pt("c3"));
		}
	}
}

static void test_every_level_shuts_the_last_tiger_in(void **state)
{
	struct baghchal s;

	(void)state;
	/* placing d5 leaves no tiger a step or a jump (worked example 6) */
	position(&s, "TGGGTGG.GGG.G.GGG.GGTGG.T", BAGHCHAL_GOATS, 4, 0);
	for (int level = GB_LEVEL_EASY; level < GB_LEVEL_COUNT; level++) {
		for (uint64_t seed = 0; seed < 4; seed++) {
			struct gb_action act;

			assert_int_equal(gb_ai_choose(G, &s, level, seed, 0, &act), GB_OK);
			assert_int_equal(act.kind, GB_ACT_PLACE);
			assert_int_equal(act.a, pt("d5"));
		}
	}
}

static void test_easy_and_medium_parry_a_capture(void **state)
{
	struct baghchal s;

	(void)state;
	/*
	 * The a1 tiger threatens b2 (landing on c3); only a goat on c3 saves it
	 * for now. (The hard level looks further: the early goat on b2 is lost
	 * either way, so it may spend the move elsewhere.)
	 */
	position(&s, "T...T.G.............T...T", BAGHCHAL_GOATS, 19, 0);
	for (int level = GB_LEVEL_EASY; level <= GB_LEVEL_MEDIUM; level++) {
		for (uint64_t seed = 0; seed < 4; seed++) {
			struct gb_action act;

			assert_int_equal(gb_ai_choose(G, &s, level, seed, 0, &act), GB_OK);
			assert_int_equal(act.kind, GB_ACT_PLACE);
			assert_int_equal(act.a, pt("c3"));
		}
	}
}

static void test_medium_and_hard_tigers_fork(void **state)
{
	(void)state;
	/*
	 * c2-c3 threatens b3 (landing on a3) and d3 (landing on e3) at once; a
	 * placement parries only one, so the tigers can win a goat within three
	 * half-moves against any defence. Hard prefers slower lines that it
	 * expects to win more; against hard goats a goat still falls within
	 * nine half-moves.
	 */
	for (int level = GB_LEVEL_MEDIUM; level < GB_LEVEL_COUNT; level++) {
		struct baghchal s;

		position(&s, "....T..T...G.G......T...T", BAGHCHAL_TIGERS, 18, 0);
		for (int ply = 0; ply < 9 && s.captured == 0; ply++) {
			struct gb_action act;

			assert_int_equal(choose(&s, s.to_move == BAGHCHAL_TIGERS ? level : GB_LEVEL_HARD,
						(uint64_t)ply, 50000, &act),
					 GB_OK);
			assert_int_equal(G->apply(&s, &act, NULL), GB_OK);
		}
		assert_int_equal(s.captured, 1);
	}
}

/* ---- each level beats the one below ------------------------------------- */

static void test_easy_beats_random(void **state)
{
	const struct pairing goats = { GB_LEVEL_EASY, GB_LEVEL_RANDOM, 0 };
	const struct pairing tigers = { GB_LEVEL_RANDOM, GB_LEVEL_EASY, 0 };
	int res[4];

	(void)state;
	/* arena, 400 games: goats 74% won, 10% lost; tigers 100% won */
	play_games(&goats, 200, 11, res);
	assert_true(res[BAGHCHAL_GOATS_WIN] >= 120);
	assert_true(res[BAGHCHAL_GOATS_WIN] > 3 * res[BAGHCHAL_TIGERS_WIN]);
	play_games(&tigers, 100, 12, res);
	assert_true(res[BAGHCHAL_TIGERS_WIN] >= 95);
}

static void test_medium_beats_easy(void **state)
{
	const struct pairing goats = { GB_LEVEL_MEDIUM, GB_LEVEL_EASY, 0 };
	const struct pairing tigers = { GB_LEVEL_EASY, GB_LEVEL_MEDIUM, 0 };
	int res[4];

	(void)state;
	/* arena, 400 games: goats 91% won, none lost; tigers 99.5% won */
	play_games(&goats, 40, 21, res);
	assert_true(res[BAGHCHAL_GOATS_WIN] >= 30);
	assert_true(res[BAGHCHAL_TIGERS_WIN] <= 1);
	play_games(&tigers, 40, 22, res);
	assert_true(res[BAGHCHAL_TIGERS_WIN] >= 36);
}

static void test_hard_beats_medium(void **state)
{
	const struct pairing goats = { GB_LEVEL_HARD, GB_LEVEL_MEDIUM, 20000 };
	const struct pairing tigers = { GB_LEVEL_MEDIUM, GB_LEVEL_HARD, 20000 };
	int res[4];

	(void)state;
	/* even on a small budget the hard level does not lose to medium */
	play_games(&goats, 4, 31, res);
	assert_int_equal(res[BAGHCHAL_TIGERS_WIN], 0);
	assert_true(res[BAGHCHAL_GOATS_WIN] >= 2);
	play_games(&tigers, 4, 32, res);
	assert_int_equal(res[BAGHCHAL_GOATS_WIN], 0);
	assert_true(res[BAGHCHAL_TIGERS_WIN] >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_easy_plays_legally),
		cmocka_unit_test(test_medium_plays_legally),
		cmocka_unit_test(test_hard_plays_legally),
		cmocka_unit_test(test_same_input_same_action),
		cmocka_unit_test(test_game_over_is_eover),
		cmocka_unit_test(test_time_budget_still_gives_a_legal_move),
		cmocka_unit_test(test_seed_varies_hard_opening),
		cmocka_unit_test(test_eval_matches_naive),
		cmocka_unit_test(test_generator_matches_rules_core),
		cmocka_unit_test(test_every_level_takes_the_fifth_goat),
		cmocka_unit_test(test_every_level_shuts_the_last_tiger_in),
		cmocka_unit_test(test_easy_and_medium_parry_a_capture),
		cmocka_unit_test(test_medium_and_hard_tigers_fork),
		cmocka_unit_test(test_easy_beats_random),
		cmocka_unit_test(test_medium_beats_easy),
		cmocka_unit_test(test_hard_beats_medium),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
