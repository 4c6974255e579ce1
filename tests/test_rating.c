/*
 * test_rating.c - online play's ratings and matchmaking: Glickman's own
 * worked example of Glicko-2, rating periods without games, whole tables
 * (computer seats, draws, seat order, rating kept in balance), and the
 * pick from the waiting queue (the longest waiter, closeness, blocked
 * pairs, the widening window), checked against a brute-force reference
 * over random queues.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "bot/commands/rating.h"

/*
 * "Example of the Glicko-2 system": r 1500, RD 200, sigma 0.06 beats
 * 1400/30, loses to 1550/100 and 1700/300 (tau 0.5).
 */
static void test_glickman_example(void **state)
{
	(void)state;
	struct glicko p = { 1500.0, 200.0, 0.06, 0 };
	struct glicko_game g[3] = {
		{ { 1400.0, 30.0, 0.06, 0 }, 1.0 },
		{ { 1550.0, 100.0, 0.06, 0 }, 0.0 },
		{ { 1700.0, 300.0, 0.06, 0 }, 0.0 },
	};

	glicko_update(&p, g, 3, 0.5);
	/* The paper's rounded figures. */
	assert_true(fabs(p.r - 1464.06) < 0.01);
	assert_true(fabs(p.rd - 151.52) < 0.01);
	assert_true(fabs(p.sigma - 0.05999) < 0.00001);
	/* The same steps carried without rounding: mu' -0.2069410, phi' 0.8721992. */
	assert_true(fabs(p.r - 1464.0507) < 0.001);
	assert_true(fabs(p.rd - 151.5165) < 0.001);
	assert_true(fabs(p.sigma - 0.0599960) < 0.0000001);
	assert_int_equal(p.games, 3);
	/* The order the games come in changes nothing that shows. */
	struct glicko q = { 1500.0, 200.0, 0.06, 0 };
	struct glicko_game h[3] = { g[2], g[0], g[1] };

	glicko_update(&q, h, 3, 0.5);
	assert_true(fabs(q.r - p.r) < 1e-9 && fabs(q.rd - p.rd) < 1e-9);
}

static void test_no_games_only_rd_grows(void **state)
{
	(void)state;
	struct glicko p = { 1620.0, 200.0, 0.06, 7 };
	double phi = 200.0 / GLICKO_SCALE;

	glicko_update(&p, NULL, 0, GLICKO_TAU);
	assert_true(p.r == 1620.0);
	assert_true(fabs(p.rd - GLICKO_SCALE * sqrt(phi * phi + 0.06 * 0.06)) < 1e-9);
	assert_true(p.rd > 200.27 && p.rd < 200.28);
	assert_true(p.sigma == 0.06);
	assert_int_equal(p.games, 7);

	/* Never past a new player's RD. */
	struct glicko n = GLICKO_NEW;

	glicko_update(&n, NULL, 0, GLICKO_TAU);
	assert_true(n.rd == GLICKO_MAX_RD && n.r == 1500.0);

	/* Bad values read as a new player's, never as a number that cannot be shown. */
	struct glicko bad = { NAN, -3.0, INFINITY, -2 };
	struct glicko_game g = { { INFINITY, NAN, 0.0, 0 }, 7.0 };

	glicko_update(&bad, &g, 1, NAN);
	assert_true(isfinite(bad.r) && isfinite(bad.rd) && isfinite(bad.sigma));
	assert_true(bad.r > 1500.0 && bad.rd < 350.0 && bad.sigma > 0);
	assert_int_equal(bad.games, 1);
}

static void test_provisional(void **state)
{
	(void)state;
	struct glicko p = GLICKO_NEW;

	assert_true(glicko_provisional(&p));
	p.rd = GLICKO_PROVISIONAL_RD + 0.01;
	assert_true(glicko_provisional(&p));
	p.rd = GLICKO_PROVISIONAL_RD;
	assert_false(glicko_provisional(&p));
	p.rd = 60.0;
	assert_false(glicko_provisional(&p));
}

/* Four seats, seat 2 the computer: places 0 (seat 1), 1 (seat 2), 2 (seat 0), 3 (seat 3). */
static void test_table_winner_rises_last_falls(void **state)
{
	(void)state;
	struct glicko s[4] = {
		{ 1500.0, 200.0, 0.06, 4 },
		{ 1500.0, 200.0, 0.06, 4 },
		{ 1234.0, 99.0, 0.05, 77 },
		{ 1500.0, 200.0, 0.06, 4 },
	};
	const struct glicko computer = s[2];
	int rank[4] = { 2, 0, 1, 3 };
	bool person[4] = { true, true, false, true };

	glicko_table(s, rank, person, 4, GLICKO_TAU);
	assert_memory_equal(&s[2], &computer, sizeof computer);
	assert_true(s[1].r > 1500.0 + 50.0);
	assert_true(s[3].r < 1500.0 - 50.0);
	/* The middle person beat one and lost to one of the same rating. */
	assert_true(fabs(s[0].r - 1500.0) < 1e-9);
	for (int i = 0; i < 4; i += i == 1 ? 2 : 1) {
		assert_int_equal(s[i].games, 6); /* two games each: the computer does not count */
		assert_true(s[i].rd < 200.0);
	}
	/* The same as each person's own period against the others' old ratings. */
	struct glicko w = { 1500.0, 200.0, 0.06, 4 };
	struct glicko_game g[2] = { { w, 1.0 }, { w, 1.0 } };

	glicko_update(&w, g, 2, GLICKO_TAU);
	assert_true(w.r == s[1].r && w.rd == s[1].rd && w.sigma == s[1].sigma);
}

static void test_table_draw_between_equals(void **state)
{
	(void)state;
	struct glicko s[4] = {
		{ 1700.0, 300.0, 0.06, 0 },
		{ 1612.0, 80.0, 0.07, 10 },
		{ 1700.0, 300.0, 0.06, 0 },
		{ 1612.0, 80.0, 0.07, 10 },
	};
	int rank[4] = { 1, 0, 1, 3 };
	bool person[4] = { true, false, true, false };

	glicko_table(s, rank, person, 4, GLICKO_TAU);
	assert_true(s[0].r == 1700.0 && s[2].r == 1700.0);
	assert_true(s[0].rd < 300.0 && s[2].rd < 300.0);
	assert_int_equal(s[0].games, 1);
	/* The computers' places around the draw do not count. */
	assert_true(s[1].r == 1612.0 && s[3].r == 1612.0 && s[1].games == 10);

	/* A person alone with computers: the table says nothing about them. */
	struct glicko t[3] = { { 1550.0, 120.0, 0.06, 3 }, GLICKO_NEW, GLICKO_NEW };
	int r3[3] = { 0, 1, 2 };
	bool p3[3] = { true, false, false };

	glicko_table(t, r3, p3, 3, GLICKO_TAU);
	assert_true(t[0].r == 1550.0 && t[0].rd == 120.0 && t[0].games == 3);

	/* More seats than a table has: nothing changes. */
	struct glicko big[GLICKO_TABLE_MAX + 1];
	int rb[GLICKO_TABLE_MAX + 1];
	bool pb[GLICKO_TABLE_MAX + 1];

	for (int i = 0; i <= GLICKO_TABLE_MAX; i++) {
		big[i] = GLICKO_NEW;
		rb[i] = i;
		pb[i] = true;
	}
	glicko_table(big, rb, pb, GLICKO_TABLE_MAX + 1, GLICKO_TAU);
	assert_true(big[0].r == 1500.0 && big[0].games == 0);
}

/* The next permutation of p[0..n) in lexicographic order; false after the last. */
static bool next_perm(int *p, int n)
{
	int i = n - 2, j = n - 1;

	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return false;
	while (p[j] <= p[i])
		j--;
	int t = p[i];

	p[i] = p[j];
	p[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a];
		p[a] = p[b];
		p[b] = t;
	}
	return true;
}

/* Every order of the same six seats rates every person the same, to the bit. */
static void test_table_seat_order(void **state)
{
	(void)state;
	const struct glicko base[6] = {
		{ 1480.3, 90.1, 0.06, 20 },  { 1650.7, 250.0, 0.061, 2 }, { 1390.2, 140.9, 0.059, 9 },
		{ 1555.0, 60.0, 0.06, 50 },  { 1512.9, 77.7, 0.0601, 31 }, { 1720.4, 181.3, 0.062, 5 },
	};
	const int brank[6] = { 1, 0, 1, 3, 4, 2 };
	const bool bperson[6] = { true, true, true, false, true, true };
	struct glicko want[6];
	int at[6] = { 0, 1, 2, 3, 4, 5 }, perms = 0;

	memcpy(want, base, sizeof want);
	glicko_table(want, brank, bperson, 6, GLICKO_TAU);
	for (int i = 0; i < 6; i++)
		assert_true(bperson[i] ? want[i].r != base[i].r : want[i].r == base[i].r);
	do {
		struct glicko s[6];
		int rank[6];
		bool person[6];

		for (int i = 0; i < 6; i++) {
			s[at[i]] = base[i];
			rank[at[i]] = brank[i];
			person[at[i]] = bperson[i];
		}
		glicko_table(s, rank, person, 6, GLICKO_TAU);
		for (int i = 0; i < 6; i++)
			assert_memory_equal(&s[at[i]], &want[i], sizeof want[i]);
		perms++;
	} while (next_perm(at, 6));
	assert_int_equal(perms, 720);
}

/* With equal RDs the rating one gains the others lose (near enough). */
static void test_table_rating_balance(void **state)
{
	(void)state;
	struct glicko s[4] = {
		{ 1500.0, 120.0, 0.06, 10 },
		{ 1530.0, 120.0, 0.06, 10 },
		{ 1470.0, 120.0, 0.06, 10 },
		{ 1515.0, 120.0, 0.06, 10 },
	};
	const struct glicko before[4] = { s[0], s[1], s[2], s[3] };
	int rank[4] = { 2, 3, 0, 1 };
	bool person[4] = { true, true, true, true };
	double sum = 0, moved = 0;

	glicko_table(s, rank, person, 4, GLICKO_TAU);
	for (int i = 0; i < 4; i++) {
		sum += s[i].r - before[i].r;
		moved += fabs(s[i].r - before[i].r);
	}
	assert_true(moved > 100.0);
	assert_true(fabs(sum) < 0.5);

	/* Equal ratings too: exactly in balance. */
	struct glicko e[3] = { { 1500.0, 120.0, 0.06, 0 }, { 1500.0, 120.0, 0.06, 0 },
			       { 1500.0, 120.0, 0.06, 0 } };
	int r3[3] = { 1, 2, 0 };
	bool p3[3] = { true, true, true };

	glicko_table(e, r3, p3, 3, GLICKO_TAU);
	assert_true(e[2].r > 1500.0 && e[1].r < 1500.0);
	assert_true(fabs(e[0].r + e[1].r + e[2].r - 4500.0) < 1e-9);
}

/* Blocked pairs for the tests: a symmetric matrix and a count of questions. */
#define QMAX 24
struct blocks {
	bool b[QMAX][QMAX];
	int asked;
};

static bool is_blocked(void *ctx, int a, int b)
{
	struct blocks *k = ctx;

	k->asked++;
	assert_true(a >= 0 && a < QMAX && b >= 0 && b < QMAX && a != b);
	return k->b[a][b];
}

static void block(struct blocks *k, int a, int b)
{
	k->b[a][b] = k->b[b][a] = true;
}

/* A queue of ratings, everyone having waited 1 s. */
static void queue(struct match_entry *q, int n, const double *r)
{
	for (int i = 0; i < n; i++)
		q[i] = (struct match_entry){ 1000 + i, r[i], 1000 };
}

static void test_match_longest_waiter_and_closest(void **state)
{
	(void)state;
	/* The others sit close together; the longest waiter is far off but has waited 61 s. */
	const double r[6] = { 1510.0, 1500.0, 1505.0, 2400.0, 1490.0, 2250.0 };
	struct match_entry q[6];
	int out[4] = { -1, -1, -1, -1 };

	queue(q, 6, r);
	q[3].waited_ms = 61000;
	assert_int_equal(match_pick(q, 6, 2, NULL, NULL, out), 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 5);

	/* A spread queue: the chosen are the closest to the longest waiter, closest first. */
	const double spread[8] = { 1800.0, 1200.0, 1640.0, 1530.0, 2100.0, 1455.0, 1500.0, 1000.0 };

	struct match_entry w[8];

	queue(w, 8, spread);
	w[6].waited_ms = 61000; /* 1500 waited longest, window open */
	assert_int_equal(match_pick(w, 8, 4, NULL, NULL, out), 4);
	assert_int_equal(out[0], 6);
	assert_int_equal(out[1], 3); /* 1530: 30 away */
	assert_int_equal(out[2], 5); /* 1455: 45 away */
	assert_int_equal(out[3], 2); /* 1640: 140 away */
}

static void test_match_blocked(void **state)
{
	(void)state;
	/* The closest (1) is blocked with both others: taking it first leaves no table. */
	const double r[5] = { 1500.0, 1505.0, 1520.0, 1530.0, 1900.0 };
	struct match_entry q[5];
	struct blocks k = { 0 };
	int out[3];

	queue(q, 5, r);
	q[0].waited_ms = 20000;
	block(&k, 1, 2);
	block(&k, 1, 3);
	assert_int_equal(match_pick(q, 5, 3, is_blocked, &k, out), 3);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 3);
	assert_true(k.asked > 0);
	/* Without the blocks the closest two. */
	assert_int_equal(match_pick(q, 5, 3, NULL, NULL, out), 3);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 2);

	/* The longest waiter blocked with the closest: the next one instead. */
	struct blocks k2 = { 0 };

	block(&k2, 0, 1);
	assert_int_equal(match_pick(q, 5, 2, is_blocked, &k2, out), 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 2);

	/* The only completion is blocked (4 is out of the window at 20 s): no table. */
	block(&k, 2, 3);
	assert_int_equal(match_pick(q, 5, 3, is_blocked, &k, out), 0);
	/* Once the window opens the far one completes it, with the closest that fits. */
	q[0].waited_ms = MATCH_WINDOW_OPEN_MS;
	assert_int_equal(match_pick(q, 5, 3, is_blocked, &k, out), 3);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 4);
	/* Without the far one the rest block each other: no table, however long the wait. */
	assert_int_equal(match_pick(q, 4, 3, is_blocked, &k, out), 0);
	/* The caller may seat the next waiter instead. */
	q[3].waited_ms = 10000;
	assert_int_equal(match_pick_from(q, 5, 2, 3, is_blocked, &k, out), 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 0);
}

static void test_match_window_widens(void **state)
{
	(void)state;
	assert_true(match_window(0) == 100.0);
	assert_true(match_window(4999) == 100.0);
	assert_true(match_window(5000) == 150.0);
	assert_true(match_window(30000) == 400.0);
	assert_true(match_window(59999) == 650.0);
	assert_true(isinf(match_window(60000)));
	assert_true(match_window(-5) == 100.0);

	const double r[2] = { 1500.0, 2300.0 };
	struct match_entry q[2];
	int out[2];

	queue(q, 2, r);
	q[0].waited_ms = 0;
	q[1].waited_ms = 0;
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 0);
	q[1].waited_ms = 59999; /* 800 apart, window 650 */
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 0);
	q[1].waited_ms = 60000;
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 0);

	/* Within the window at a short wait: 90 apart at 0 s, 140 apart at 5 s. */
	q[1].r = 1590.0;
	q[1].waited_ms = 0;
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 2);
	q[1].r = 1640.0;
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 0);
	q[0].waited_ms = 5000;
	assert_int_equal(match_pick(q, 2, 2, NULL, NULL, out), 2);
	assert_int_equal(out[0], 0);
}

static void test_match_bad_sizes(void **state)
{
	(void)state;
	const double r[3] = { 1500.0, 1500.0, 1500.0 };
	struct match_entry q[3];
	int out[MATCH_SEATS_MAX + 1];

	queue(q, 3, r);
	assert_int_equal(match_pick(q, 3, 4, NULL, NULL, out), 0);
	assert_int_equal(match_pick(q, 0, 2, NULL, NULL, out), 0);
	assert_int_equal(match_pick(q, 3, 0, NULL, NULL, out), 0);
	assert_int_equal(match_pick(q, 3, MATCH_SEATS_MAX + 1, NULL, NULL, out), 0);
	assert_int_equal(match_pick(NULL, 3, 2, NULL, NULL, out), 0);
	assert_int_equal(match_pick_from(q, 3, 2, 3, NULL, NULL, out), 0);
	assert_int_equal(match_pick(q, 3, 3, NULL, NULL, out), 3);
	/* A rating that is no number plays only once the window is open. */
	q[0].waited_ms = 2000;
	q[1].r = NAN;
	q[2].r = INFINITY;
	assert_int_equal(match_pick(q, 3, 2, NULL, NULL, out), 0);
	q[0].waited_ms = MATCH_WINDOW_OPEN_MS;
	assert_int_equal(match_pick(q, 3, 3, NULL, NULL, out), 3);
}

static void test_match_ties(void **state)
{
	(void)state;
	/* 1450 and 1550 are equally close to 1500: the longer wait, then the lower index. */
	const double r[5] = { 1550.0, 1450.0, 1500.0, 1550.0, 1450.0 };
	struct match_entry q[5];
	int out[3];

	queue(q, 5, r);
	q[2].waited_ms = 9000;
	q[3].waited_ms = 3000;
	assert_int_equal(match_pick(q, 5, 2, NULL, NULL, out), 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 3);
	assert_int_equal(match_pick(q, 5, 3, NULL, NULL, out), 3);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[2], 0);
	q[3].waited_ms = 1000;
	assert_int_equal(match_pick(q, 5, 2, NULL, NULL, out), 2);
	assert_int_equal(out[1], 0);
	/* Two longest waiters: the lower index anchors. */
	q[4].waited_ms = 9000;
	assert_int_equal(match_pick(q, 5, 2, NULL, NULL, out), 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 4); /* 50 away and waited 9 s */
	/* The same queue, the same pick, every time. */
	for (int i = 0; i < 20; i++) {
		int again[3];

		assert_int_equal(match_pick(q, 5, 3, NULL, NULL, again), 3);
		assert_int_equal(again[0], 2);
		assert_int_equal(again[1], 4);
		assert_int_equal(again[2], 0);
	}
}

/* The reference: the first (lexicographic) set of candidates in closeness order free of blocks. */
static bool ref_fill(const int *cand, int m, int need, const struct blocks *k, int *chosen,
		     int depth, int from)
{
	if (depth == need)
		return true;
	for (int i = from; i < m; i++) {
		bool ok = true;

		for (int j = 0; j < depth; j++)
			ok = ok && !k->b[chosen[j]][cand[i]];
		if (!ok)
			continue;
		chosen[depth] = cand[i];
		if (ref_fill(cand, m, need, k, chosen, depth + 1, i + 1))
			return true;
	}
	return false;
}

static int ref_pick(const struct match_entry *q, int n, int seats, const struct blocks *k, int *out)
{
	int anchor = 0, cand[QMAX], m = 0;

	for (int i = 0; i < n; i++)
		if (q[i].waited_ms > q[anchor].waited_ms)
			anchor = i;
	double w = match_window(q[anchor].waited_ms);

	for (int i = 0; i < n; i++)
		if (i != anchor && fabs(q[i].r - q[anchor].r) <= w && !k->b[anchor][i])
			cand[m++] = i;
	/* selection sort by (distance, longer wait, index) */
	for (int i = 0; i < m; i++)
		for (int j = i + 1; j < m; j++) {
			const struct match_entry *a = &q[cand[i]], *b = &q[cand[j]];
			double da = fabs(a->r - q[anchor].r), db = fabs(b->r - q[anchor].r);
			bool swap = db < da || (db == da && (b->waited_ms > a->waited_ms ||
							     (b->waited_ms == a->waited_ms && cand[j] < cand[i])));

			if (swap) {
				int t = cand[i];

				cand[i] = cand[j];
				cand[j] = t;
			}
		}
	out[0] = anchor;
	return ref_fill(cand, m, seats - 1, k, out + 1, 0, 0) ? seats : 0;
}

static void test_match_random_queues(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int formed = 0, refused = 0;

#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
	for (int round = 0; round < 3000; round++) {
		int n = 1 + (int)(NEXT() % QMAX), seats = 1 + (int)(NEXT() % 4);
		struct match_entry q[QMAX];
		struct blocks k = { 0 };
		int out[MATCH_SEATS_MAX], want[MATCH_SEATS_MAX], blocks = (int)(NEXT() % 40);

		for (int i = 0; i < n; i++)
			q[i] = (struct match_entry){ i, 1000.0 + (double)(NEXT() % 60) * 25.0,
						     (int64_t)(NEXT() % 14) * 5000 };
		for (int b = 0; b < blocks; b++) {
			int a = (int)(NEXT() % (uint64_t)n), c = (int)(NEXT() % (uint64_t)n);

			if (a != c)
				block(&k, a, c);
		}
		int got = match_pick(q, n, seats, is_blocked, &k, out);
		int ref = n < seats ? 0 : ref_pick(q, n, seats, &k, want);

		assert_int_equal(got, ref);
		for (int i = 0; i < got; i++)
			assert_int_equal(out[i], want[i]);
		for (int i = 0; i < got; i++)
			for (int j = i + 1; j < got; j++)
				assert_false(k.b[out[i]][out[j]]);
		formed += got > 0;
		refused += got == 0;
	}
#undef NEXT
	/* The random queues exercise both outcomes. */
	assert_true(formed > 300 && refused > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glickman_example),
		cmocka_unit_test(test_no_games_only_rd_grows),
		cmocka_unit_test(test_provisional),
		cmocka_unit_test(test_table_winner_rises_last_falls),
		cmocka_unit_test(test_table_draw_between_equals),
		cmocka_unit_test(test_table_seat_order),
		cmocka_unit_test(test_table_rating_balance),
		cmocka_unit_test(test_match_longest_waiter_and_closest),
		cmocka_unit_test(test_match_blocked),
		cmocka_unit_test(test_match_window_widens),
		cmocka_unit_test(test_match_bad_sizes),
		cmocka_unit_test(test_match_ties),
		cmocka_unit_test(test_match_random_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
