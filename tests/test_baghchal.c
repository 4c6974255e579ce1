/*
 * test_baghchal.c - cmocka suite for the Bagh Chal rules core (games/baghchal.c).
 *
 * What it proves: the board derived from BC-2 equals a hand-written table of
 * all 25 points; every worked example of rules/bagh-chal.md holds, named
 * test_bc_example_NN_*; bad text, illegal and out-of-phase actions and
 * malformed JSON are refused with the right code and leave the state
 * untouched; perft counts from tests/data/baghchal/perft.txt match both the
 * real generator and a deliberately naive one written here; and 10,000
 * random complete games agree move by move with a naive reference engine,
 * with the invariant checker, JSON round trips, make/unmake and refusals of
 * random bad actions checked along the way.
 *
 * The naive reference (struct naive) shares no code with the engine: it keeps
 * the board as 25 characters, finds lines from coordinates, scans all 625
 * from/to pairs, and detects repetition over the whole game instead of the
 * engine's window since the last capture or placement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/baghchal.h"

static const struct gb_game *const G = &baghchal_game;

/* ---- helpers ------------------------------------------------------------ */

/* Point index from a name like "c3", written independently of the engine. */
static int pt(const char *name)
{
	assert_true(name[0] >= 'a' && name[0] <= 'e' && name[1] >= '1' && name[1] <= '5');
	return (name[1] - '1') * 5 + (name[0] - 'a');
}

static void new_game(struct baghchal *s)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	assert_int_equal(G->init(s, &su), GB_OK);
	assert_int_equal(G->check(s), GB_OK);
}

/* The 25 board characters, computed through the read-only view. */
static void board_of(const struct baghchal *s, char out[26])
{
	for (int p = 0; p < 25; p++) {
		int piece = baghchal_piece_at(s, p);

		out[p] = piece == BAGHCHAL_GOAT ? 'G' : piece == BAGHCHAL_TIGER ? 'T' : '.';
	}
	out[25] = '\0';
}

static void assert_board(const struct baghchal *s, const char *want)
{
	char b[26];

	board_of(s, b);
	assert_string_equal(b, want);
}

/* The "did" list of an apply, joined with '|'. */
static void did_text(const struct gb_events *ev, char *out, size_t n)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < ev->n && used < n; i++) {
		char buf[GB_EVENT_TEXT];
		int w;

		G->format_event(&ev->ev[i], buf, sizeof(buf));
		w = snprintf(out + used, n - used, "%s%s", i ? "|" : "", buf);
		assert_true(w > 0);
		used += (size_t)w;
	}
	assert_int_equal(ev->dropped, 0);
}

/* Parse and apply text; it must succeed; returns the did list in did (may be NULL). */
static void play(struct baghchal *s, const char *text, char *did, size_t n)
{
	struct gb_action act;
	struct gb_events ev = { 0 };
	int rc = G->parse(s, text, &act);

	if (rc)
		fail_msg("cannot parse '%s'", text);
	rc = G->apply(s, &act, &ev);
	if (rc)
		fail_msg("'%s' refused: %s", text, gb_strerror(rc));
	assert_int_equal(G->check(s), GB_OK);
	if (did)
		did_text(&ev, did, n);
}

static void play_all(struct baghchal *s, const char *const *seq, size_t n)
{
	for (size_t i = 0; i < n; i++)
		play(s, seq[i], NULL, 0);
}

/* Apply an action that must be refused with rc; the state must not change. */
static void refuse_action(struct baghchal *s, const struct gb_action *act, int want)
{
	struct baghchal before;
	struct gb_events ev = { 0 };

	memcpy(&before, s, sizeof(before));
	assert_int_equal(G->apply(s, act, &ev), want);
	assert_int_equal(memcmp(&before, s, sizeof(before)), 0);
	assert_int_equal(ev.n, 0);
	assert_false(gb_action_is_legal(G, s, act));
	assert_int_equal(G->check(s), GB_OK);
}

static void refuse(struct baghchal *s, const char *text, int want)
{
	struct gb_action act;

	if (G->parse(s, text, &act))
		fail_msg("cannot parse '%s'", text);
	refuse_action(s, &act, want);
}

static bool legal_has(const struct baghchal *s, const char *text)
{
	struct gb_action act;

	assert_int_equal(G->parse(s, text, &act), GB_OK);
	return gb_action_is_legal(G, s, &act);
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the board: derived tables against a hand-written one ---------------- */

/* Typed in by hand from the drawing of the Alquerque board (BC-2). */
static const char *const hand_neighbours[25][2] = {
	{ "a1", "b1 a2 b2" },
	{ "b1", "a1 c1 b2" },
	{ "c1", "b1 d1 c2 b2 d2" },
	{ "d1", "c1 e1 d2" },
	{ "e1", "d1 e2 d2" },
	{ "a2", "a1 a3 b2" },
	{ "b2", "a2 c2 b1 b3 a1 c1 a3 c3" },
	{ "c2", "b2 d2 c1 c3" },
	{ "d2", "c2 e2 d1 d3 c1 e1 c3 e3" },
	{ "e2", "e1 e3 d2" },
	{ "a3", "a2 a4 b3 b2 b4" },
	{ "b3", "a3 c3 b2 b4" },
	{ "c3", "b3 d3 c2 c4 b2 d2 b4 d4" },
	{ "d3", "c3 e3 d2 d4" },
	{ "e3", "e2 e4 d3 d2 d4" },
	{ "a4", "a3 a5 b4" },
	{ "b4", "a4 c4 b3 b5 a3 c3 a5 c5" },
	{ "c4", "b4 d4 c3 c5" },
	{ "d4", "c4 e4 d3 d5 c3 e3 c5 e5" },
	{ "e4", "e3 e5 d4" },
	{ "a5", "a4 b5 b4" },
	{ "b5", "a5 c5 b4" },
	{ "c5", "b5 d5 c4 b4 d4" },
	{ "d5", "c5 e5 d4" },
	{ "e5", "d5 e4 d4" },
};

/* Landing points of a jump from each point, also by hand. */
static const char *const hand_jumps[25][2] = {
	{ "a1", "c1 a3 c3" },
	{ "b1", "d1 b3" },
	{ "c1", "a1 e1 c3 a3 e3" },
	{ "d1", "b1 d3" },
	{ "e1", "c1 e3 c3" },
	{ "a2", "a4 c2" },
	{ "b2", "d2 b4 d4" },
	{ "c2", "a2 e2 c4" },
	{ "d2", "b2 d4 b4" },
	{ "e2", "c2 e4" },
	{ "a3", "a1 a5 c3 c1 c5" },
	{ "b3", "d3 b1 b5" },
	{ "c3", "a3 e3 c1 c5 a1 e1 a5 e5" },
	{ "d3", "b3 d1 d5" },
	{ "e3", "c3 e1 e5 c1 c5" },
	{ "a4", "a2 c4" },
	{ "b4", "d4 b2 d2" },
	{ "c4", "a4 e4 c2" },
	{ "d4", "b4 d2 b2" },
	{ "e4", "c4 e2" },
	{ "a5", "a3 c5 c3" },
	{ "b5", "d5 b3" },
	{ "c5", "a5 e5 c3 a3 e3" },
	{ "d5", "b5 d3" },
	{ "e5", "c5 e3 c3" },
};

/* A list of names as a bit set. */
static uint32_t name_set(const char *list)
{
	uint32_t m = 0;

	for (const char *p = list; *p; p++) {
		if (*p == ' ')
			continue;
		m |= 1u << pt(p);
		p++;
	}
	return m;
}

static void test_bc_board_matches_hand_table(void **state)
{
	(void)state;
	for (int i = 0; i < 25; i++) {
		int p = pt(hand_neighbours[i][0]);
		uint32_t steps = 0, jumps = 0;
		int nsteps = 0;

		assert_int_equal(p, i);
		assert_int_equal(pt(hand_jumps[i][0]), i);
		for (int d = 0; d < 8; d++) {
			int q = baghchal_step[p][d], j = baghchal_jump[p][d];

			if (q >= 0) {
				assert_false(steps >> q & 1u); /* no point twice */
				steps |= 1u << q;
				nsteps++;
			}
			if (j >= 0) {
				/* a jump passes over the step in the same direction, at the midpoint */
				assert_true(q >= 0);
				assert_int_equal(q * 2, p + j);
				jumps |= 1u << j;
			}
		}
		if (steps != name_set(hand_neighbours[i][1]))
			fail_msg("neighbours of %s differ", hand_neighbours[i][0]);
		if (jumps != name_set(hand_jumps[i][1]))
			fail_msg("jumps of %s differ", hand_jumps[i][0]);
		assert_int_equal(baghchal_adj_mask[p], steps);
		/* lines go both ways */
		for (int q = 0; q < 25; q++)
			assert_int_equal(steps >> q & 1u, baghchal_adj_mask[q] >> p & 1u);
	}
	/* BC-2: the centre has 8 lines, b5 has 3 */
	assert_int_equal(__builtin_popcount(baghchal_adj_mask[pt("c3")]), 8);
	assert_int_equal(__builtin_popcount(baghchal_adj_mask[pt("b5")]), 3);
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void test_bc_zobrist_table_is_splitmix(void **state)
{
	const struct baghchal_zobrist *z = &baghchal_zobrist;
	uint64_t x = BAGHCHAL_ZOBRIST_SEED;

	(void)state;
	for (int i = 0; i < 25; i++)
		assert_true(z->goat[i] == splitmix64(&x));
	for (int i = 0; i < 25; i++)
		assert_true(z->tiger[i] == splitmix64(&x));
	assert_true(z->tiger_to_move == splitmix64(&x));
	for (int i = 0; i <= 20; i++)
		assert_true(z->hand[i] == splitmix64(&x));
}

/* ---- names, parsing, formatting ---------------------------------------- */

static void test_bc_point_names(void **state)
{
	const char *end;

	(void)state;
	for (int p = 0; p < 25; p++) {
		char up[3] = { (char)(baghchal_point_names[p][0] - 'a' + 'A'), baghchal_point_names[p][1], 0 };

		assert_int_equal(pt(baghchal_point_names[p]), p);
		assert_string_equal(baghchal_point_name(p), baghchal_point_names[p]);
		assert_int_equal(baghchal_point_parse(baghchal_point_names[p], &end), p);
		assert_int_equal(*end, '\0');
		assert_int_equal(baghchal_point_parse(up, &end), p);
	}
	assert_string_equal(baghchal_point_name(-1), "??");
	assert_string_equal(baghchal_point_name(25), "??");
	/* Devanagari 3 (U+0969) */
	assert_int_equal(baghchal_point_parse("c\xe0\xa5\xa9", &end), pt("c3"));
	assert_int_equal(*end, '\0');
	assert_int_equal(baghchal_point_parse("f3", &end), -1);
	assert_int_equal(baghchal_point_parse("a6", &end), -1);
	assert_int_equal(baghchal_point_parse("a0", &end), -1);
	assert_int_equal(baghchal_point_parse("a", &end), -1);
	assert_int_equal(baghchal_point_parse("", &end), -1);
	assert_int_equal(baghchal_point_parse("c\xe0\xa5\xad", &end), -1); /* Devanagari 7 */
}

static void expect_parse(const char *text, int kind, const char *a, const char *b)
{
	struct baghchal s;
	struct gb_action act;

	new_game(&s);
	if (G->parse(&s, text, &act) != GB_OK)
		fail_msg("'%s' not read", text);
	assert_int_equal(act.kind, kind);
	assert_int_equal(act.a, pt(a));
	if (b)
		assert_int_equal(act.b, pt(b));
}

static void test_bc_parse_forgiving(void **state)
{
	(void)state;
	expect_parse("place c3", GB_ACT_PLACE, "c3", NULL);
	expect_parse("  PLACE   C3  ", GB_ACT_PLACE, "c3", NULL);
	expect_parse("c3", GB_ACT_PLACE, "c3", NULL);
	expect_parse("/place e5", GB_ACT_PLACE, "e5", NULL);
	expect_parse("place c\xe0\xa5\xa9", GB_ACT_PLACE, "c3", NULL);
	expect_parse("move b2 c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("Move  B2   C3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("b2c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("b2-c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("b2 - c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("move b2-c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("move a1c3", GB_ACT_MOVE, "a1", "c3");
	expect_parse("b2 c3", GB_ACT_MOVE, "b2", "c3");
	expect_parse("a1xc3", GB_ACT_MOVE, "a1", "c3");
	expect_parse("a1 \xe2\x86\x92 c3", GB_ACT_MOVE, "a1", "c3"); /* arrow */
	expect_parse("a1\xe2\x80\x93" "c3", GB_ACT_MOVE, "a1", "c3"); /* en dash */
	expect_parse("move b\xe0\xa5\xa8 c\xe0\xa5\xa9", GB_ACT_MOVE, "b2", "c3");
}

static void test_bc_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"", "   ", "place", "move", "move c3", "place c3 d4", "place c3-d4", "f3", "c6",
		"c0", "a", "3c", "move b2 c3 d4", "b2-", "b2--c3", "-c3", "jump a1 c3",
		"place c33", "c3!", "roll", "move b2 c3x", "b2c3d4", "place ३", "pass",
	};
	struct baghchal s;
	struct gb_action act;

	(void)state;
	new_game(&s);
	for (size_t i = 0; i < NELEM(bad); i++)
		if (G->parse(&s, bad[i], &act) != GB_EPARSE)
			fail_msg("'%s' was read", bad[i]);
}

static void test_bc_format_round_trip(void **state)
{
	struct baghchal s;

	(void)state;
	new_game(&s);
	for (int a = 0; a < 25; a++) {
		struct gb_action act = { GB_ACT_PLACE, a, 0, 0 }, back;
		char buf[GB_ACTION_TEXT], want[16];

		G->format(&s, &act, buf, sizeof(buf));
		snprintf(want, sizeof(want), "place %s", baghchal_point_names[a]);
		assert_string_equal(buf, want);
		assert_int_equal(G->parse(&s, buf, &back), GB_OK);
		assert_int_equal(back.kind, act.kind);
		assert_int_equal(back.a, act.a);
		for (int b = 0; b < 25; b++) {
			struct gb_action mv = { GB_ACT_MOVE, a, b, 0 };

			G->format(&s, &mv, buf, sizeof(buf));
			snprintf(want, sizeof(want), "move %s %s", baghchal_point_names[a],
				 baghchal_point_names[b]);
			assert_string_equal(buf, want);
			assert_int_equal(G->parse(&s, buf, &back), GB_OK);
			assert_int_equal(back.kind, GB_ACT_MOVE);
			assert_int_equal(back.a, a);
			assert_int_equal(back.b, b);
		}
	}
}

/* ---- the worked examples of rules/bagh-chal.md --------------------------- */

static void test_bc_example_01_start(void **state)
{
	struct baghchal s;
	struct gb_action acts[GB_MAX_LEGAL];
	struct gb_outcome oc;
	char did[256];
	int n;

	(void)state;
	new_game(&s);
	assert_board(&s, "T...T...............T...T");
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);
	assert_int_equal(G->turn(&s), 0);
	assert_int_equal(s.goats_in_hand, 20);
	assert_int_equal(s.captured, 0);
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	G->outcome(&s, &oc);
	assert_false(oc.over);
	assert_int_equal(oc.winner, -1);
	assert_int_equal(oc.turns, 0);
	/* 21 empty points, every legal action a placement */
	n = G->legal(&s, acts);
	assert_int_equal(n, 21);
	for (int i = 0; i < n; i++)
		assert_int_equal(acts[i].kind, GB_ACT_PLACE);
	/* moving is out of phase while goats are in hand */
	refuse(&s, "move c3 c4", GB_EPHASE);
	refuse(&s, "move a1 b2", GB_EPHASE);
	refuse(&s, "place a1", GB_EILLEGAL);
	assert_true(legal_has(&s, "place c3"));
	play(&s, "place c3", did, sizeof(did));
	assert_string_equal(did, "place c3");
	assert_board(&s, "T...T.......G.......T...T");
	assert_int_equal(s.to_move, BAGHCHAL_TIGERS);
	assert_int_equal(G->turn(&s), 1);
	assert_int_equal(s.goats_in_hand, 19);
	assert_int_equal(s.turns, 1);
}

static void test_bc_example_02_capture_along_a_line(void **state)
{
	struct baghchal s;
	char did[256];

	(void)state;
	/* tiger a1, goat b2, c3 empty: b2 lies on the long diagonal from a1 */
	new_game(&s);
	play(&s, "place b2", NULL, 0);
	assert_true(legal_has(&s, "move a1 c3"));
	play(&s, "move a1 c3", did, sizeof(did));
	assert_string_equal(did, "move a1 c3|capture b2");
	assert_board(&s, "....T.......T.......T...T");
	assert_int_equal(s.captured, 1);
	assert_int_equal(s.goats_in_hand, 19);
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);

	/* tiger b1, goat c2, d3 empty: b1 has no diagonal, so no capture */
	new_game(&s);
	play(&s, "place e3", NULL, 0);
	play(&s, "move a1 b1", NULL, 0);
	play(&s, "place c2", NULL, 0);
	assert_board(&s, ".T..T..G......G.....T...T");
	assert_false(legal_has(&s, "move b1 d3"));
	refuse(&s, "move b1 d3", GB_EILLEGAL);
	refuse(&s, "move b1 c2", GB_EILLEGAL); /* no diagonal step either */
}

static void test_bc_example_03_one_jump_per_turn(void **state)
{
	struct baghchal s;
	char did[256];

	(void)state;
	new_game(&s);
	play(&s, "place c2", NULL, 0);
	play(&s, "move e5 d5", NULL, 0);
	play(&s, "place b1", NULL, 0);
	/* a1 jumps b1 to c1; from c1 a second jump over c2 to c3 would be open */
	play(&s, "move a1 c1", did, sizeof(did));
	assert_string_equal(did, "move a1 c1|capture b1");
	assert_board(&s, "..T.T..G............T..T.");
	assert_int_equal(s.captured, 1);
	/* the turn is over: the goats move next, the tiger cannot go on */
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);
	refuse(&s, "move c1 c3", GB_EPHASE);
	play(&s, "place a3", NULL, 0);
	/* on its next turn the tiger may take c2 */
	assert_true(legal_has(&s, "move c1 c3"));
}

static void test_bc_example_04_capture_not_compulsory(void **state)
{
	struct baghchal s;
	char did[256];

	(void)state;
	new_game(&s);
	play(&s, "place b2", NULL, 0);
	assert_true(legal_has(&s, "move a1 c3"));
	play(&s, "move e5 d5", did, sizeof(did));
	assert_string_equal(did, "move e5 d5");
	assert_board(&s, "T...T.G.............T..T.");
	assert_int_equal(s.captured, 0);
}

/* Five goats fed to the tigers, one capture per tiger turn. */
static const char *const five_captures[] = {
	"place d4", "move e5 c3", "place d3", "move c3 e3", "place b4",
	"move a5 c3", "place b1", "move a1 c1", "place e4", "move e3 e5",
};

static void test_bc_example_05_fifth_capture_wins(void **state)
{
	struct baghchal s;
	struct gb_action acts[GB_MAX_LEGAL];
	struct gb_outcome oc;
	char did[256];

	(void)state;
	new_game(&s);
	play_all(&s, five_captures, NELEM(five_captures) - 1);
	assert_int_equal(s.captured, 4);
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	play(&s, five_captures[NELEM(five_captures) - 1], did, sizeof(did));
	assert_string_equal(did, "move e3 e5|capture e4|tigers win: 5 goats captured");
	assert_board(&s, "..T.T.......T...........T");
	assert_int_equal(s.captured, 5);
	assert_int_equal(s.goats_in_hand, 15);
	assert_int_equal(s.result, BAGHCHAL_TIGERS_WIN);
	assert_int_equal(s.reason, BAGHCHAL_END_CAPTURES);
	assert_int_equal(G->turn(&s), -1);
	assert_int_equal(G->legal(&s, acts), 0);
	G->outcome(&s, &oc);
	assert_true(oc.over);
	assert_false(oc.draw);
	assert_int_equal(oc.winner, BAGHCHAL_TIGERS);
	assert_int_equal(oc.turns, 10);
	refuse(&s, "place a2", GB_EOVER);
	refuse(&s, "move a2 a3", GB_EOVER);
}

/*
 * Goats fill the lines around the corners while the e5 tiger walks
 * e5-d5-e5; the 17th goat on d5 shuts the last tiger in.
 */
static const char *const tigers_blocked[] = {
	"place b1", "move e5 d5", "place a2", "move d5 e5", "place b2", "move e5 d5",
	"place d1", "move d5 e5", "place e2", "move e5 d5", "place d2", "move d5 e5",
	"place a4", "move e5 d5", "place b5", "move d5 e5", "place b4", "move e5 d5",
	"place e4", "move d5 e5", "place d4", "move e5 d5", "place c1", "move d5 e5",
	"place a3", "move e5 d5", "place c3", "move d5 e5", "place e3", "move e5 d5",
	"place c5", "move d5 e5", "place d5",
};

/* Can the tiger on p step or jump? Written from the hand table, not the engine. */
static bool tiger_free(const struct baghchal *s, int p)
{
	for (int d = 0; d < 8; d++) {
		int q = baghchal_step[p][d], j = baghchal_jump[p][d];

		if (q >= 0 && baghchal_piece_at(s, q) == BAGHCHAL_EMPTY)
			return true;
		if (j >= 0 && baghchal_piece_at(s, q) == BAGHCHAL_GOAT &&
		    baghchal_piece_at(s, j) == BAGHCHAL_EMPTY)
			return true;
	}
	return false;
}

static void test_bc_example_06_tigers_blocked_goats_win(void **state)
{
	struct baghchal s;
	struct gb_outcome oc;
	char did[256];

	(void)state;
	new_game(&s);
	play_all(&s, tigers_blocked, NELEM(tigers_blocked) - 1);
	/* three tigers blocked are not enough (BC-12): the game goes on */
	assert_false(tiger_free(&s, pt("a1")));
	assert_false(tiger_free(&s, pt("e1")));
	assert_false(tiger_free(&s, pt("a5")));
	assert_true(tiger_free(&s, pt("e5")));
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	play(&s, "place d5", did, sizeof(did));
	assert_string_equal(did, "place d5|goats win: all tigers blocked");
	assert_board(&s, "TGGGTGG.GGG.G.GGG.GGTGGGT");
	assert_int_equal(s.result, BAGHCHAL_GOATS_WIN);
	assert_int_equal(s.reason, BAGHCHAL_END_TIGERS_BLOCKED);
	assert_int_equal(s.goats_in_hand, 3);
	assert_int_equal(s.captured, 0);
	G->outcome(&s, &oc);
	assert_true(oc.over);
	assert_int_equal(oc.winner, BAGHCHAL_GOATS);
	assert_int_equal(oc.turns, 33);
	refuse(&s, "move e5 d5", GB_EOVER);
}

/*
 * The e1 and a5 tigers walk to b1 and a2, the e5 tiger shuffles, the goats
 * fill every point but b2; then a1-b2 leaves the one empty point a1
 * surrounded by tigers.
 */
static const char *const goats_blocked[] = {
	"place c2", "move e1 d1", "place d2", "move d1 c1", "place e2", "move c1 b1",
	"place b3", "move a5 a4", "place c3", "move a4 a3", "place d3", "move a3 a2",
	"place e1", "move e5 d5", "place d1", "move d5 e5", "place c1", "move e5 d5",
	"place a5", "move d5 e5", "place a4", "move e5 d5", "place a3", "move d5 e5",
	"place e3", "move e5 d5", "place b4", "move d5 e5", "place c4", "move e5 d5",
	"place d4", "move d5 e5", "place e4", "move e5 d5", "place b5", "move d5 e5",
	"place c5", "move e5 d5", "place e5", "move a1 b2",
};

static void test_bc_example_07_goats_cannot_move_tigers_win(void **state)
{
	struct baghchal s;
	struct gb_outcome oc;
	char did[256];

	(void)state;
	new_game(&s);
	play_all(&s, goats_blocked, NELEM(goats_blocked) - 1);
	assert_int_equal(s.goats_in_hand, 0);
	assert_board(&s, "TTGGGT.GGGGGGGGGGGGGGGGTG");
	play(&s, "move a1 b2", did, sizeof(did));
	assert_string_equal(did, "move a1 b2|tigers win: goats cannot move");
	assert_board(&s, ".TGGGTTGGGGGGGGGGGGGGGGTG");
	assert_int_equal(s.result, BAGHCHAL_TIGERS_WIN);
	assert_int_equal(s.reason, BAGHCHAL_END_GOATS_BLOCKED);
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);
	G->outcome(&s, &oc);
	assert_int_equal(oc.winner, BAGHCHAL_TIGERS);
	assert_int_equal(oc.turns, 40);
	refuse(&s, "move b1 a1", GB_EOVER);
}

/* A placement phase with one capture, ending with goats to move (40 turns). */
static const char *const movement_prefix[] = {
	"place c2", "move e5 d4", "place b3", "move a5 b4", "place b2", "move b4 a4",
	"place a5", "move a1 c3", "place b2", "move d4 e5", "place b5", "move e5 d4",
	"place d3", "move c3 d2", "place e3", "move e1 d1", "place e1", "move d2 c3",
	"place d5", "move d4 e5", "place c5", "move c3 c4", "place d2", "move d1 c1",
	"place e2", "move c4 c3", "place b4", "move a4 a3", "place a4", "move c1 d1",
	"place d4", "move c3 c4", "place a1", "move a3 a2", "place b1", "move e5 e4",
	"place c1", "move e4 e5", "place a3", "move c4 c3",
};

static const char *const repetition_cycle[] = {
	"move b4 c4", "move e5 e4", "move c4 b4", "move e4 e5",
	"move b4 c4", "move e5 e4", "move c4 b4", "move e4 e5",
};

static void test_bc_example_08_threefold_repetition_draw(void **state)
{
	struct baghchal s;
	struct gb_outcome oc;
	char did[256], start[26];

	(void)state;
	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	assert_int_equal(s.goats_in_hand, 0);
	assert_int_equal(s.captured, 1);
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);
	board_of(&s, start);
	assert_string_equal(start, "GGGTGTGGGGGGTGGGG.G.GGGGT");
	/* second occurrence after four half-moves: the game goes on */
	play_all(&s, repetition_cycle, 4);
	assert_board(&s, start);
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	play_all(&s, repetition_cycle + 4, 3);
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	play(&s, repetition_cycle[7], did, sizeof(did));
	assert_string_equal(did, "move e4 e5|draw: position repeated three times");
	assert_board(&s, start);
	assert_int_equal(s.to_move, BAGHCHAL_GOATS);
	assert_int_equal(s.result, BAGHCHAL_DRAW);
	assert_int_equal(s.reason, BAGHCHAL_END_REPETITION);
	G->outcome(&s, &oc);
	assert_true(oc.over);
	assert_true(oc.draw);
	assert_int_equal(oc.winner, -1);
	assert_int_equal(oc.turns, 48);
	refuse(&s, "move b4 c4", GB_EOVER);
}

/* From movement_prefix: 99 quiet half-moves, no position three times. */
static const char *const quiet_moves[] = {
	"move c5 c4", "move e5 e4", "move c4 c5", "move c3 c4", "move d3 c3", "move e4 e5",
	"move d2 d3", "move d1 d2", "move e3 e4", "move d2 e3", "move d3 d2", "move e3 d3",
	"move c1 d1", "move d3 e3", "move b2 c1", "move e3 d3", "move a1 b2", "move a2 a1",
	"move d4 e3", "move c4 d4", "move b2 a2", "move d4 c4", "move b1 b2", "move a1 b1",
	"move b2 a1", "move c4 d4", "move b3 b2", "move d4 c4", "move c3 d4", "move c4 c3",
	"move a3 b3", "move c3 c4", "move d2 c3", "move d3 d2", "move e3 d3", "move d2 e3",
	"move a4 a3", "move e3 d2", "move e2 e3", "move d2 e2", "move e3 d2", "move e2 e3",
	"move a3 a4", "move e3 e2", "move d4 e3", "move c4 d4", "move b4 a3", "move d4 c4",
	"move c5 b4", "move c4 d4", "move b4 c4", "move d4 c5", "move a5 b4", "move e5 d4",
	"move b4 a5", "move c5 b4", "move d5 c5", "move d4 d5", "move e3 d4", "move d5 e5",
	"move d4 d5", "move e5 d4", "move e4 e5", "move e2 e3", "move e1 e2", "move d4 e4",
	"move e2 e1", "move e3 d4", "move e1 e2", "move e4 e3", "move d1 e1", "move e3 e4",
	"move d2 d1", "move d4 e3", "move c5 d4", "move e3 d2", "move b5 c5", "move b4 b5",
	"move d3 e3", "move b5 b4", "move d4 d3", "move b4 b5", "move c4 b4", "move e4 d4",
	"move c3 c4", "move d4 c3", "move c4 d4", "move c3 c4", "move d3 c3", "move d2 d3",
	"move c3 d2", "move d3 c3", "move d4 d3", "move c4 d4", "move b4 c4", "move c3 b4",
	"move e5 e4", "move d4 c3", "move c5 d4",
};

static void test_bc_example_09_hundred_quiet_half_moves_draw(void **state)
{
	struct baghchal s;
	char did[256];

	(void)state;
	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	/* the clock started at the last placement, one tiger move ago */
	assert_int_equal(s.clock, 1);
	play_all(&s, quiet_moves, NELEM(quiet_moves) - 1);
	assert_int_equal(s.clock, 99);
	assert_int_equal(s.result, BAGHCHAL_PLAYING);
	assert_int_equal(s.captured, 1);
	play(&s, quiet_moves[NELEM(quiet_moves) - 1], did, sizeof(did));
	assert_string_equal(did, "move c5 d4|draw: 100 half-moves, no capture or placement");
	assert_int_equal(s.clock, 100);
	assert_int_equal(s.turns, 139);
	assert_int_equal(s.result, BAGHCHAL_DRAW);
	assert_int_equal(s.reason, BAGHCHAL_END_CLOCK);
	assert_int_equal(G->turn(&s), -1);
}

/* A capture resets the clock (BC-15 counts only quiet half-moves). */
static void test_bc_capture_and_placement_reset_clock(void **state)
{
	struct baghchal s;

	(void)state;
	new_game(&s);
	play(&s, "place c2", NULL, 0);
	assert_int_equal(s.clock, 0);
	play(&s, "move e5 d5", NULL, 0);
	assert_int_equal(s.clock, 1);
	play(&s, "place b2", NULL, 0);
	assert_int_equal(s.clock, 0);
	play(&s, "move a1 c3", NULL, 0);
	assert_int_equal(s.clock, 0);
	assert_int_equal(s.captured, 1);
}

/* ---- refusals ----------------------------------------------------------- */

static void test_bc_refuses_bad_actions(void **state)
{
	struct baghchal s;
	struct gb_action act;

	(void)state;
	new_game(&s);
	/* placing on an occupied point */
	refuse(&s, "place e5", GB_EILLEGAL);
	play(&s, "place c3", NULL, 0);
	/* tigers never place; goats' moves are not the tiger's */
	refuse(&s, "place d4", GB_EILLEGAL);
	refuse(&s, "move c3 c4", GB_EILLEGAL);  /* the other side's piece */
	refuse(&s, "move b2 b3", GB_EILLEGAL);  /* nothing there */
	refuse(&s, "move a1 b3", GB_EILLEGAL);  /* off the lines */
	refuse(&s, "move a1 c1", GB_EILLEGAL);  /* jump over an empty point */
	refuse(&s, "move a1 a1", GB_EILLEGAL);
	refuse(&s, "move a1 e5", GB_EILLEGAL);  /* far away, onto a tiger */
	play(&s, "move a1 b2", NULL, 0);
	refuse(&s, "place c3", GB_EILLEGAL);    /* occupied by a goat */
	refuse(&s, "place b2", GB_EILLEGAL);    /* occupied by a tiger */
	refuse(&s, "move c3 c4", GB_EPHASE);    /* moving a goat during placement */
	play(&s, "place e3", NULL, 0);
	play(&s, "move e5 d4", NULL, 0);
	play(&s, "place a4", NULL, 0);
	refuse(&s, "place a1", GB_EILLEGAL);    /* not the tigers' to place */
	refuse(&s, "move d4 b2", GB_EILLEGAL);  /* jump over a goat onto a tiger */
	play(&s, "move d4 d3", NULL, 0);
	play(&s, "place d4", NULL, 0);
	/* b2 over the goat on c3 would land on the goat on d4 */
	refuse(&s, "move b2 d4", GB_EILLEGAL);
	play(&s, "move b2 a1", NULL, 0);
	play(&s, "place b2", NULL, 0);
	play(&s, "move d3 d2", NULL, 0);
	play(&s, "place e4", NULL, 0);
	/* (a tiger jumping a tiger: test_bc_refuses_tiger_jumping_tiger) */
	play(&s, "move d2 c2", NULL, 0);
	play(&s, "place e2", NULL, 0);
	refuse(&s, "move e1 c1", GB_EILLEGAL);  /* jump over the empty d1 */
	/* kinds the game does not know, points off the board */
	act = (struct gb_action){ GB_ACT_ROLL, 0, 0, 0 };
	refuse_action(&s, &act, GB_EILLEGAL);
	act = (struct gb_action){ GB_ACT_BID, 3, 0, 0 };
	refuse_action(&s, &act, GB_EILLEGAL);
	act = (struct gb_action){ GB_ACT_MOVE, -1, 3, 0 };
	refuse_action(&s, &act, GB_EILLEGAL);
	act = (struct gb_action){ GB_ACT_MOVE, 0, 25, 0 };
	refuse_action(&s, &act, GB_EILLEGAL);
	act = (struct gb_action){ GB_ACT_MOVE, 1000, -7, 0 };
	refuse_action(&s, &act, GB_EILLEGAL);
}

static void test_bc_refuses_tiger_jumping_tiger(void **state)
{
	struct baghchal s;

	(void)state;
	new_game(&s);
	play(&s, "place e3", NULL, 0);
	play(&s, "move a1 b2", NULL, 0);
	play(&s, "place e2", NULL, 0);
	play(&s, "move e5 d4", NULL, 0);
	play(&s, "place a4", NULL, 0);
	refuse(&s, "place a2", GB_EILLEGAL);
	play(&s, "move d4 c3", NULL, 0);
	play(&s, "place d5", NULL, 0);
	/* c3 - b2 - a1: b2 holds a tiger, a1 is empty */
	assert_board(&s, "....T.T..G..T.GG....T..G.");
	refuse(&s, "move c3 a1", GB_EILLEGAL);
}

static void test_bc_refuses_in_movement_phase(void **state)
{
	struct baghchal s;
	struct gb_action act;
	int found = 0;

	(void)state;
	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	refuse(&s, "place c3", GB_EPHASE);  /* all goats placed */
	refuse(&s, "move d5 e4", GB_EILLEGAL); /* not joined: d5 has no diagonal */
	refuse(&s, "move c3 d3", GB_EILLEGAL); /* c3 holds a tiger: goats move goats */
	refuse(&s, "move b4 a3", GB_EILLEGAL); /* occupied */
	/* goats never jump (BC-7): every geometric goat jump is refused */
	for (int p = 0; p < 25; p++)
		for (int d = 0; d < 8; d++) {
			int j = baghchal_jump[p][d];

			if (baghchal_piece_at(&s, p) != BAGHCHAL_GOAT || j < 0 ||
			    baghchal_piece_at(&s, j) != BAGHCHAL_EMPTY)
				continue;
			act = (struct gb_action){ GB_ACT_MOVE, p, j, 0 };
			refuse_action(&s, &act, GB_EILLEGAL);
			found++;
		}
	assert_true(found > 0);
}

static void test_bc_validate_reasons(void **state)
{
	struct baghchal s;
	struct gb_action act;
	char why[128];

	(void)state;
	new_game(&s);
	act = (struct gb_action){ GB_ACT_PLACE, pt("a1"), 0, 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EILLEGAL);
	assert_string_equal(why, "a1 is occupied");
	act = (struct gb_action){ GB_ACT_MOVE, pt("b2"), pt("c3"), 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EPHASE);
	assert_string_equal(why, "20 goats still in hand: place one before moving goats");
	play(&s, "place c2", NULL, 0);
	act = (struct gb_action){ GB_ACT_MOVE, pt("a1"), pt("c1"), 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EILLEGAL);
	assert_string_equal(why, "a jump from a1 to c1 needs a goat on b1");
	act = (struct gb_action){ GB_ACT_MOVE, pt("a1"), pt("b3"), 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EILLEGAL);
	assert_string_equal(why, "no line joins a1 to b3 for a step or jump");
	act = (struct gb_action){ GB_ACT_MOVE, pt("c2"), pt("c3"), 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EILLEGAL);
	assert_string_equal(why, "c2 holds a goat: tigers move only tigers");
	act = (struct gb_action){ GB_ACT_PLACE, pt("c3"), 0, 0 };
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, sizeof(why)), GB_EILLEGAL);
	assert_string_equal(why, "tigers are never placed: move a tiger");
	/* a tiny buffer is cut, never overrun; NULL is fine */
	assert_int_equal(baghchal_validate(&s, &act, NULL, why, 4), GB_EILLEGAL);
	assert_string_equal(why, "tig");
	assert_int_equal(baghchal_validate(&s, &act, NULL, NULL, 0), GB_EILLEGAL);
}

static void test_bc_init_needs_two_players(void **state)
{
	struct baghchal s;
	struct gb_setup su;

	(void)state;
	gb_setup_init(&su, G);
	assert_int_equal(su.players, 2);
	for (int n = 0; n <= 5; n++) {
		su.players = n;
		assert_int_equal(G->init(&s, &su), n == 2 ? GB_OK : GB_EPLAYERS);
	}
	assert_int_equal(G->nrules, 0);
	assert_int_equal(G->min_players, 2);
	assert_int_equal(G->max_players, 2);
	assert_ptr_equal(gb_game_find("baghchal"), G);
}

static void test_bc_event_texts(void **state)
{
	static const struct {
		struct gb_event ev;
		const char *text;
	} cases[] = {
		{ { BAGHCHAL_EV_PLACE, 0, 12, -1, 0 }, "place c3" },
		{ { BAGHCHAL_EV_MOVE, 1, 0, 12, 0 }, "move a1 c3" },
		{ { BAGHCHAL_EV_CAPTURE, 1, 6, 1, 0 }, "capture b2" },
		{ { BAGHCHAL_EV_END, -1, BAGHCHAL_TIGERS_WIN, BAGHCHAL_END_CAPTURES, 0 },
		  "tigers win: 5 goats captured" },
		{ { BAGHCHAL_EV_END, -1, BAGHCHAL_GOATS_WIN, BAGHCHAL_END_TIGERS_BLOCKED, 0 },
		  "goats win: all tigers blocked" },
		{ { BAGHCHAL_EV_END, -1, BAGHCHAL_TIGERS_WIN, BAGHCHAL_END_GOATS_BLOCKED, 0 },
		  "tigers win: goats cannot move" },
		{ { BAGHCHAL_EV_END, -1, BAGHCHAL_DRAW, BAGHCHAL_END_REPETITION, 0 },
		  "draw: position repeated three times" },
		{ { BAGHCHAL_EV_END, -1, BAGHCHAL_DRAW, BAGHCHAL_END_CLOCK, 0 },
		  "draw: 100 half-moves, no capture or placement" },
		{ { 99, -1, 0, 0, 0 }, "" },
	};

	(void)state;
	for (size_t i = 0; i < NELEM(cases); i++) {
		char buf[GB_EVENT_TEXT];

		G->format_event(&cases[i].ev, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
		assert_true(strlen(cases[i].text) < GB_EVENT_TEXT);
	}
}

/* ---- JSON --------------------------------------------------------------- */

/* to_json -> text -> from_json: memcmp-equal state and equal JSON. */
static void assert_round_trip(const struct baghchal *s)
{
	struct baghchal back;
	json_t *j = G->to_json(s), *j2, *parsed;
	json_error_t err;
	char *text;

	assert_non_null(j);
	text = json_dumps(j, JSON_COMPACT);
	assert_non_null(text);
	parsed = json_loads(text, 0, &err);
	assert_non_null(parsed);
	memset(&back, 0xa5, sizeof(back));
	assert_int_equal(G->from_json(&back, parsed), GB_OK);
	assert_int_equal(memcmp(&back, s, sizeof(back)), 0);
	j2 = G->to_json(&back);
	assert_true(json_equal(j, j2));
	free(text);
	json_decref(j);
	json_decref(j2);
	json_decref(parsed);
}

static void test_bc_json_contract(void **state)
{
	struct baghchal s;
	json_t *j, *full;

	(void)state;
	new_game(&s);
	j = G->to_json(&s);
	assert_string_equal(json_string_value(json_object_get(j, "board")), "T...T...............T...T");
	assert_string_equal(json_string_value(json_object_get(j, "to_move")), "goat");
	assert_int_equal(json_integer_value(json_object_get(j, "goats_in_hand")), 20);
	assert_int_equal(json_integer_value(json_object_get(j, "captured")), 0);
	assert_true(json_is_null(json_object_get(j, "result")));
	assert_true(json_is_null(json_object_get(j, "reason")));
	assert_int_equal(json_array_size(json_object_get(j, "history")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "history"), 0)),
			    "T...T...............T...Tg");
	assert_true(json_is_object(json_object_get(j, "rules")));
	assert_null(json_object_get(j, "game"));
	assert_null(json_object_get(j, "legal"));
	json_decref(j);
	assert_round_trip(&s);

	/* the full contract object (with game, over, turn, legal) reads back too */
	play_all(&s, five_captures, NELEM(five_captures));
	full = gb_state_json(G, &s);
	assert_true(json_is_true(json_object_get(full, "over")));
	assert_true(json_is_null(json_object_get(full, "turn")));
	assert_string_equal(json_string_value(json_object_get(full, "result")), "tiger");
	assert_string_equal(json_string_value(json_object_get(full, "reason")), "captures");
	assert_int_equal(json_array_size(json_object_get(full, "legal")), 0);
	{
		struct baghchal back;

		assert_int_equal(G->from_json(&back, full), GB_OK);
		assert_int_equal(memcmp(&back, &s, sizeof(s)), 0);
	}
	json_decref(full);
	assert_round_trip(&s);

	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	play_all(&s, repetition_cycle, 8);
	assert_round_trip(&s);
	j = G->to_json(&s);
	assert_string_equal(json_string_value(json_object_get(j, "result")), "draw");
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "repetition");
	assert_int_equal(json_array_size(json_object_get(j, "history")), 10);
	json_decref(j);
}

/* Change one key of a good state and expect GB_ESTATE and a zeroed state. */
static void expect_bad_json(const struct baghchal *good, const char *key, json_t *value)
{
	struct baghchal out, zero;
	json_t *j = G->to_json(good);

	if (value)
		json_object_set_new(j, key, value);
	else
		json_object_del(j, key);
	memset(&out, 0x5a, sizeof(out));
	memset(&zero, 0, sizeof(zero));
	if (G->from_json(&out, j) != GB_ESTATE)
		fail_msg("bad '%s' accepted", key);
	assert_int_equal(memcmp(&out, &zero, sizeof(out)), 0);
	json_decref(j);
}

static void test_bc_from_json_rejects(void **state)
{
	struct baghchal s, out;
	json_t *j, *h;

	(void)state;
	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	play_all(&s, repetition_cycle, 3);
	assert_int_equal(s.clock, 4);

	assert_int_equal(G->from_json(&out, NULL), GB_ESTATE);
	j = json_array();
	assert_int_equal(G->from_json(&out, j), GB_ESTATE);
	json_decref(j);
	j = json_object();
	assert_int_equal(G->from_json(&out, j), GB_ESTATE);
	json_decref(j);

	static const char *const required[] = { "board", "to_move", "goats_in_hand", "captured",
						"result", "reason", "clock", "turns", "history" };
	for (size_t i = 0; i < NELEM(required); i++)
		expect_bad_json(&s, required[i], NULL);
	expect_bad_json(&s, "board", json_integer(3));
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGG.GGGGTG.GGGGT."));
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGG.GGGGTG.GGGG"));
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGG.GGGGTG.GGGGX"));
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGG.GGGGTG.GGGGt"));
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGGTGGGGTG.GGGGT")); /* 5 tigers */
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGG.GGGGTG.GGGG.")); /* 3 tigers */
	expect_bad_json(&s, "board", json_string("GGGTGTGGGGGGGGGGGTG.GGGGT")); /* a goat too many */
	expect_bad_json(&s, "to_move", json_string("lion"));
	expect_bad_json(&s, "to_move", json_true());
	expect_bad_json(&s, "goats_in_hand", json_integer(-1));
	expect_bad_json(&s, "goats_in_hand", json_integer(21));
	expect_bad_json(&s, "goats_in_hand", json_integer(1));
	expect_bad_json(&s, "goats_in_hand", json_string("0"));
	expect_bad_json(&s, "goats_in_hand", json_real(0.0));
	expect_bad_json(&s, "captured", json_integer(0));
	expect_bad_json(&s, "captured", json_integer(6));
	expect_bad_json(&s, "result", json_string("cat"));
	expect_bad_json(&s, "result", json_string("tiger"));
	expect_bad_json(&s, "result", json_integer(1));
	expect_bad_json(&s, "reason", json_string("clock"));
	expect_bad_json(&s, "reason", json_string("boredom"));
	expect_bad_json(&s, "clock", json_integer(101));
	expect_bad_json(&s, "clock", json_integer(5));
	expect_bad_json(&s, "clock", json_integer(-1));
	expect_bad_json(&s, "turns", json_integer(44));   /* the wrong side to move */
	expect_bad_json(&s, "turns", json_integer(2));    /* too few turns for 20 placements */
	expect_bad_json(&s, "turns", json_integer(-1));
	expect_bad_json(&s, "turns", json_integer(2147483646));
	expect_bad_json(&s, "rules", json_integer(5));
	expect_bad_json(&s, "history", json_string("x"));
	h = json_array();
	json_array_append_new(h, json_string("GGGTGTGGGGGG.GGGGTG.GGGGTt"));
	expect_bad_json(&s, "history", h);
	/* the right length, but a position that is not one step from the next */
	j = G->to_json(&s);
	h = json_deep_copy(json_object_get(j, "history"));
	json_array_set_new(h, 1, json_string("GGGTGTGGGGGG.GGGGTG.GGGGTt"));
	expect_bad_json(&s, "history", h);
	h = json_deep_copy(json_object_get(j, "history"));
	json_array_set_new(h, 4, json_string("GGGTGTGGGGGG.GGGGTG.GGGGTg"));
	expect_bad_json(&s, "history", h);
	h = json_deep_copy(json_object_get(j, "history"));
	json_array_set_new(h, 0, json_integer(7));
	expect_bad_json(&s, "history", h);
	h = json_deep_copy(json_object_get(j, "history"));
	json_array_set_new(h, 0, json_string("GGGTGTGGGGGG.GGGGTG.GGGGTx"));
	expect_bad_json(&s, "history", h);
	json_decref(j);

	/* a finished game must carry its true result */
	new_game(&s);
	play_all(&s, five_captures, NELEM(five_captures));
	expect_bad_json(&s, "result", json_null());
	expect_bad_json(&s, "result", json_string("goat"));
	expect_bad_json(&s, "reason", json_string("clock"));
	expect_bad_json(&s, "reason", json_null());
	/* and an unfinished one may not claim one */
	new_game(&s);
	expect_bad_json(&s, "result", json_string("draw"));

	/* extra keys are ignored */
	new_game(&s);
	j = G->to_json(&s);
	json_object_set_new(j, "colour", json_string("green"));
	assert_int_equal(G->from_json(&out, j), GB_OK);
	assert_int_equal(memcmp(&out, &s, sizeof(s)), 0);
	json_decref(j);
}

static void test_bc_check_catches_corruption(void **state)
{
	struct baghchal s, bad;

	(void)state;
	new_game(&s);
	play_all(&s, movement_prefix, NELEM(movement_prefix));
	play_all(&s, repetition_cycle, 2);
	assert_int_equal(G->check(&s), GB_OK);

#define CORRUPT(stmt)                                                     \
	do {                                                              \
		memcpy(&bad, &s, sizeof(s));                              \
		stmt;                                                     \
		if (G->check(&bad) != GB_EINVARIANT)                      \
			fail_msg("check() missed: %s", #stmt);            \
	} while (0)
	CORRUPT(bad.hash ^= 1);
	CORRUPT(bad.tigers |= 1u << pt("c1"));
	CORRUPT(bad.goats |= 1u << pt("c3"));
	CORRUPT(bad.goats &= ~(1u << pt("a1")));
	CORRUPT(bad.goats |= 1u << 30);
	CORRUPT(bad.captured = 2);
	CORRUPT(bad.goats_in_hand = 1);
	CORRUPT(bad.to_move ^= 1);
	CORRUPT(bad.turns += 1);
	CORRUPT(bad.turns = 3);
	CORRUPT(bad.turns = 20000); /* longer than 20 placements and 1 capture allow */
	CORRUPT(bad.clock = 0);
	CORRUPT(bad.clock = 101);
	CORRUPT(bad.result = BAGHCHAL_DRAW);
	CORRUPT(bad.reason = BAGHCHAL_END_CLOCK);
	CORRUPT(bad.hist[0] ^= 1u << 12);
	CORRUPT(bad.hist[bad.clock + 1] = 1);
	CORRUPT(bad.hist[BAGHCHAL_HIST - 1] = 7);
	CORRUPT(bad.rules.v[0] = 1);
#undef CORRUPT
}

/* ---- the naive reference ------------------------------------------------- */

#define NAIVE_MAXPOS 4096

struct naive_core {
	char board[26];   /* 'T', 'G', '.' for a1 b1 ... e5 */
	int to_move;      /* 0 goats, 1 tigers */
	int hand, captured, clock;
	int result;       /* 0 playing, 1 tigers, 2 goats, 3 draw */
	int npos;
};

struct naive {
	struct naive_core c;
	char pos[NAIVE_MAXPOS][28]; /* every position of the game: board, side, hand */
};

static int nabs(int x)
{
	return x < 0 ? -x : x;
}

/* Are p and q joined by a drawn line? From coordinates only. */
static bool naive_joined(int p, int q)
{
	int fp = p % 5, rp = p / 5, dx = q % 5 - fp, dy = q / 5 - rp;

	if (nabs(dx) > 1 || nabs(dy) > 1 || (dx == 0 && dy == 0))
		return false;
	return dx == 0 || dy == 0 || (fp + rp) % 2 == 0;
}

/* Is p to q a straight jump of two along drawn lines? Sets *mid. */
static bool naive_jump(int p, int q, int *mid)
{
	int fp = p % 5, rp = p / 5, fq = q % 5, rq = q / 5;
	int dx = fq - fp, dy = rq - rp;

	if ((dx != 0 && nabs(dx) != 2) || (dy != 0 && nabs(dy) != 2) || (dx == 0 && dy == 0))
		return false;
	*mid = (rp + dy / 2) * 5 + fp + dx / 2;
	return naive_joined(p, *mid) && naive_joined(*mid, q);
}

static void naive_record(struct naive *n)
{
	char *e;

	assert_true(n->c.npos < NAIVE_MAXPOS);
	e = n->pos[n->c.npos++];
	memcpy(e, n->c.board, 25);
	e[25] = n->c.to_move ? 't' : 'g';
	e[26] = (char)('A' + n->c.hand);
	e[27] = '\0';
}

static void naive_init(struct naive *n)
{
	memset(&n->c, 0, sizeof(n->c));
	snprintf(n->c.board, sizeof(n->c.board), "T...T...............T...T");
	n->c.hand = 20;
	naive_record(n);
}

/* Legal actions by scanning everything. */
static int naive_legal(const struct naive *n, struct gb_action *out)
{
	const char *b = n->c.board;
	int k = 0, mid;

	if (n->c.result)
		return 0;
	if (n->c.to_move == 0 && n->c.hand > 0) {
		for (int q = 0; q < 25; q++)
			if (b[q] == '.')
				out[k++] = (struct gb_action){ GB_ACT_PLACE, q, 0, 0 };
		return k;
	}
	for (int p = 0; p < 25; p++)
		for (int q = 0; q < 25; q++) {
			if (b[q] != '.')
				continue;
			if (n->c.to_move == 0 && b[p] == 'G' && naive_joined(p, q))
				out[k++] = (struct gb_action){ GB_ACT_MOVE, p, q, 0 };
			if (n->c.to_move == 1 && b[p] == 'T' &&
			    (naive_joined(p, q) || (naive_jump(p, q, &mid) && b[mid] == 'G')))
				out[k++] = (struct gb_action){ GB_ACT_MOVE, p, q, 0 };
		}
	return k;
}

/* Has the side to move any legal action? Stops at the first one found. */
static bool naive_has_move(const struct naive *n)
{
	const char *b = n->c.board;
	int mid;

	for (int p = 0; p < 25; p++) {
		if (b[p] == '.' && n->c.to_move == 0 && n->c.hand > 0)
			return true;
		if (b[p] != (n->c.to_move ? 'T' : 'G') || (n->c.to_move == 0 && n->c.hand > 0))
			continue;
		for (int q = 0; q < 25; q++)
			if (b[q] == '.' && (naive_joined(p, q) || (n->c.to_move == 1 &&
				naive_jump(p, q, &mid) && b[mid] == 'G')))
				return true;
	}
	return false;
}

/* Apply a legal action and decide the end, all from scratch. */
static void naive_apply(struct naive *n, const struct gb_action *a)
{
	bool reset = false;
	int mid, reps = 0;

	if (a->kind == GB_ACT_PLACE) {
		n->c.board[a->a] = 'G';
		n->c.hand--;
		reset = true;
	} else {
		n->c.board[a->b] = n->c.board[a->a];
		n->c.board[a->a] = '.';
		if (!naive_joined(a->a, a->b) && naive_jump(a->a, a->b, &mid)) {
			n->c.board[mid] = '.';
			n->c.captured++;
			reset = true;
		}
	}
	n->c.to_move ^= 1;
	n->c.clock = reset ? 0 : n->c.clock + 1;
	naive_record(n);
	for (int i = 0; i < n->c.npos; i++)
		reps += strcmp(n->pos[i], n->pos[n->c.npos - 1]) == 0;
	if (n->c.captured >= 5)
		n->c.result = 1;
	else if (!naive_has_move(n))
		n->c.result = n->c.to_move == 1 ? 2 : 1;
	else if (reps >= 3)
		n->c.result = 3;
	else if (n->c.clock >= 100)
		n->c.result = 3;
}

static int cmp_action(const void *x, const void *y)
{
	const struct gb_action *a = x, *b = y;
	int ka = a->kind * 10000 + a->a * 100 + a->b, kb = b->kind * 10000 + b->a * 100 + b->b;

	return (ka > kb) - (ka < kb);
}

static void assert_same_as_naive(const struct baghchal *s, const struct naive *n, bool legal_too)
{
	char b[26];

	board_of(s, b);
	assert_string_equal(b, n->c.board);
	assert_int_equal(s->to_move, n->c.to_move);
	assert_int_equal(s->goats_in_hand, n->c.hand);
	assert_int_equal(s->captured, n->c.captured);
	assert_int_equal(s->clock, n->c.clock);
	assert_int_equal(s->result, n->c.result);
	if (legal_too) {
		struct gb_action x[GB_MAX_LEGAL], y[GB_MAX_LEGAL];
		int nx = G->legal(s, x), ny = naive_legal(n, y);

		assert_int_equal(nx, ny);
		qsort(x, (size_t)nx, sizeof(x[0]), cmp_action);
		qsort(y, (size_t)ny, sizeof(y[0]), cmp_action);
		for (int i = 0; i < nx; i++) {
			assert_int_equal(x[i].kind, y[i].kind);
			assert_int_equal(x[i].a, y[i].a);
			assert_int_equal(x[i].b, y[i].b);
		}
	}
}

/* ---- perft ---------------------------------------------------------------- */

static uint64_t perft_real(struct baghchal *s, int depth)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES];
	uint64_t total = 0;
	int n;

	if (depth == 0)
		return 1;
	n = baghchal_moves(s, mv);
	if (depth == 1)
		return (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct baghchal_undo u;

		baghchal_make(s, mv[i], &u);
		total += perft_real(s, depth - 1);
		baghchal_unmake(s, mv[i], &u);
	}
	return total;
}

static uint64_t perft_naive(struct naive *n, int depth)
{
	struct gb_action acts[GB_MAX_LEGAL];
	uint64_t total = 0;
	int k;

	if (depth == 0)
		return 1;
	k = naive_legal(n, acts);
	if (depth == 1)
		return (uint64_t)k; /* as the real side does: count, don't play */
	for (int i = 0; i < k; i++) {
		struct naive_core saved = n->c;

		naive_apply(n, &acts[i]);
		total += perft_naive(n, depth - 1);
		n->c = saved;
	}
	return total;
}

static void test_bc_perft(void **state)
{
	const char *src = getenv("GAMEBOT_SRC");
	char path[1024], line[256];
	FILE *f;
	int rows = 0;
	struct naive *n = malloc(sizeof(*n));

	(void)state;
	assert_non_null(n);
	snprintf(path, sizeof(path), "%s/tests/data/baghchal/perft.txt", src ? src : ".");
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		struct baghchal s, start;
		char *end;
		long depth;
		unsigned long long want;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		depth = strtol(line, &end, 10);
		want = strtoull(end, &end, 10);
		assert_true(depth >= 0 && depth <= 8 && (*end == '\n' || *end == '\0'));
		new_game(&s);
		memcpy(&start, &s, sizeof(s));
		if (perft_real(&s, (int)depth) != want)
			fail_msg("perft %ld: real generator disagrees with %llu", depth, want);
		assert_int_equal(memcmp(&s, &start, sizeof(s)), 0); /* make/unmake left no trace */
		naive_init(n);
		if (perft_naive(n, (int)depth) != want)
			fail_msg("perft %ld: naive generator disagrees with %llu", depth, want);
		rows++;
	}
	fclose(f);
	free(n);
	assert_true(rows >= 5);
}

/* ---- random games ----------------------------------------------------------- */

#define RANDOM_GAMES 10000

/*
 * Policies, so that every ending shows up: 0 uniform; 1 tigers decline
 * captures (long games: the clock and repetition); 2 tigers always capture;
 * 3 both sides like to undo their last move (repetition); 4 goats avoid
 * giving captures and tigers walk quietly (blocking ends).
 */
static int pick(const struct baghchal *s, struct gb_rng *rng, int policy,
		const struct baghchal_move *last_own)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES];
	int n = baghchal_moves(s, mv), pref[BAGHCHAL_MAX_MOVES], np = 0;

	assert_true(n > 0 && n <= GB_MAX_LEGAL);
	for (int i = 0; i < n; i++) {
		bool want = false;

		if (policy == 1 || policy == 4)
			want = s->to_move == BAGHCHAL_TIGERS && mv[i].over < 0;
		if (policy == 2)
			want = mv[i].over >= 0;
		if (policy == 3)
			want = last_own->from == mv[i].to && last_own->to == mv[i].from;
		if (policy == 4 && s->to_move == BAGHCHAL_GOATS) {
			struct baghchal t;
			struct baghchal_move caps[BAGHCHAL_MAX_MOVES];
			struct baghchal_undo u;

			memcpy(&t, s, sizeof(t));
			baghchal_make(&t, mv[i], &u);
			want = baghchal_over(&t) || baghchal_captures(&t, caps) == 0;
		}
		if (want)
			pref[np++] = i;
	}
	if (np && gb_rng_below(rng, 8) != 0)
		return pref[gb_rng_below(rng, (uint32_t)np)];
	return (int)gb_rng_below(rng, (uint32_t)n);
}

static void random_bad_action(struct baghchal *s, struct gb_rng *rng)
{
	static const int kinds[] = { GB_ACT_PLACE, GB_ACT_MOVE, GB_ACT_MOVE, GB_ACT_ROLL, GB_ACT_NONE };
	struct gb_action act = { kinds[gb_rng_below(rng, NELEM(kinds))],
				 (int)gb_rng_below(rng, 29) - 2, (int)gb_rng_below(rng, 29) - 2, 0 };
	struct gb_action norm = act;
	struct baghchal before;
	int rc;

	/* a placement ignores b: compare it as the legal list writes it */
	if (act.kind == GB_ACT_PLACE)
		norm.b = 0;
	memcpy(&before, s, sizeof(before));
	rc = G->apply(s, &act, NULL);
	if (gb_action_is_legal(G, &before, &norm)) {
		assert_int_equal(rc, GB_OK); /* a random action that happened to be legal */
		memcpy(s, &before, sizeof(before));
		return;
	}
	assert_true(rc == GB_EILLEGAL || rc == GB_EPHASE || rc == GB_EOVER);
	assert_int_equal(memcmp(&before, s, sizeof(before)), 0);
}

static void test_bc_random_games(void **state)
{
	struct naive *n = malloc(sizeof(*n));
	struct gb_action *played = malloc(sizeof(*played) * NAIVE_MAXPOS);
	int ends[6] = { 0 };
	long plies = 0;

	(void)state;
	assert_non_null(n);
	assert_non_null(played);
	for (int g = 0; g < RANDOM_GAMES; g++) {
		struct baghchal s, replay;
		struct gb_rng rng;
		struct baghchal_move last[2] = { { -1, -1, -1 }, { -1, -1, -1 } };
		int policy = g % 5, nplayed = 0;
		/* the expensive naive legal-list comparison on a fifth of the games */
		bool full = g % 5 == (g / 5) % 5;
		struct gb_outcome oc;

		gb_rng_seed(&rng, gb_seed_derive(0xbac4c4a1ULL, (uint64_t)g));
		new_game(&s);
		naive_init(n);
		while (!baghchal_over(&s)) {
			struct baghchal_move mv[BAGHCHAL_MAX_MOVES], m;
			struct baghchal before, viamake;
			struct baghchal_undo u;
			struct gb_action act;
			struct gb_events ev = { 0 };
			char want[GB_EVENT_TEXT], got[GB_EVENT_TEXT];
			int mover = s.to_move, captured = s.captured;

			assert_same_as_naive(&s, n, full);
			assert_int_equal(G->turn(&s), s.to_move);
			random_bad_action(&s, &rng);
			baghchal_moves(&s, mv);
			m = mv[pick(&s, &rng, policy, &last[s.to_move])];
			act = baghchal_move_action(m);
			last[s.to_move] = m;

			/* make/unmake restores byte for byte */
			memcpy(&before, &s, sizeof(s));
			memcpy(&viamake, &s, sizeof(s));
			baghchal_make(&viamake, m, &u);
			assert_true(viamake.hash == baghchal_hash_compute(&viamake));
			{
				struct baghchal tmp;

				memcpy(&tmp, &viamake, sizeof(tmp));
				baghchal_unmake(&tmp, m, &u);
				assert_int_equal(memcmp(&tmp, &before, sizeof(tmp)), 0);
			}

			assert_int_equal(G->apply(&s, &act, &ev), GB_OK);
			assert_int_equal(G->check(&s), GB_OK);
			played[nplayed++] = act;
			plies++;
			/* apply and make agree on everything but stale history past the clock */
			assert_true(viamake.hash == s.hash && viamake.goats == s.goats &&
				    viamake.tigers == s.tigers && viamake.clock == s.clock &&
				    viamake.result == s.result && viamake.reason == s.reason &&
				    viamake.turns == s.turns);
			assert_int_equal(memcmp(viamake.hist, s.hist, sizeof(s.hist[0]) * (size_t)(s.clock + 1)), 0);

			/* events: the action itself, its capture, the end */
			assert_true(ev.n >= 1);
			G->format(&before, &act, want, sizeof(want));
			G->format_event(&ev.ev[0], got, sizeof(got));
			assert_string_equal(got, want);
			assert_int_equal(ev.ev[0].seat, mover);
			assert_int_equal(ev.n, 1 + (s.captured > captured) + baghchal_over(&s));
			if (s.captured > captured)
				assert_int_equal(ev.ev[1].type, BAGHCHAL_EV_CAPTURE);
			if (baghchal_over(&s))
				assert_int_equal(ev.ev[ev.n - 1].type, BAGHCHAL_EV_END);

			naive_apply(n, &act);
			if (nplayed % 16 == 0 || baghchal_over(&s))
				assert_round_trip(&s);
		}
		assert_same_as_naive(&s, n, true);
		ends[s.reason]++;
		G->outcome(&s, &oc);
		assert_true(oc.over);
		assert_int_equal(oc.turns, nplayed);
		assert_int_equal(oc.draw, s.result == BAGHCHAL_DRAW);
		random_bad_action(&s, &rng);
		/* determinism: the same actions give the same state */
		new_game(&replay);
		for (int i = 0; i < nplayed; i++)
			assert_int_equal(G->apply(&replay, &played[i], NULL), GB_OK);
		assert_int_equal(memcmp(&replay, &s, sizeof(s)), 0);
	}
	print_message("baghchal: %d games, %ld plies; ends: captures %d, tigers blocked %d, "
		      "goats blocked %d, repetition %d, clock %d\n",
		      RANDOM_GAMES, plies, ends[1], ends[2], ends[3], ends[4], ends[5]);
	for (int r = BAGHCHAL_END_CAPTURES; r <= BAGHCHAL_END_CLOCK; r++)
		assert_true(ends[r] > 0);
	free(played);
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bc_board_matches_hand_table),
		cmocka_unit_test(test_bc_zobrist_table_is_splitmix),
		cmocka_unit_test(test_bc_point_names),
		cmocka_unit_test(test_bc_parse_forgiving),
		cmocka_unit_test(test_bc_parse_rejects),
		cmocka_unit_test(test_bc_format_round_trip),
		cmocka_unit_test(test_bc_example_01_start),
		cmocka_unit_test(test_bc_example_02_capture_along_a_line),
		cmocka_unit_test(test_bc_example_03_one_jump_per_turn),
		cmocka_unit_test(test_bc_example_04_capture_not_compulsory),
		cmocka_unit_test(test_bc_example_05_fifth_capture_wins),
		cmocka_unit_test(test_bc_example_06_tigers_blocked_goats_win),
		cmocka_unit_test(test_bc_example_07_goats_cannot_move_tigers_win),
		cmocka_unit_test(test_bc_example_08_threefold_repetition_draw),
		cmocka_unit_test(test_bc_example_09_hundred_quiet_half_moves_draw),
		cmocka_unit_test(test_bc_capture_and_placement_reset_clock),
		cmocka_unit_test(test_bc_refuses_bad_actions),
		cmocka_unit_test(test_bc_refuses_tiger_jumping_tiger),
		cmocka_unit_test(test_bc_refuses_in_movement_phase),
		cmocka_unit_test(test_bc_validate_reasons),
		cmocka_unit_test(test_bc_init_needs_two_players),
		cmocka_unit_test(test_bc_event_texts),
		cmocka_unit_test(test_bc_json_contract),
		cmocka_unit_test(test_bc_from_json_rejects),
		cmocka_unit_test(test_bc_check_catches_corruption),
		cmocka_unit_test(test_bc_perft),
		cmocka_unit_test(test_bc_random_games),
	};

	return cmocka_run_group_tests_name("baghchal", tests, NULL, NULL);
}
