/*
 * baghchal_ai.c - computer players for Bagh Chal: easy, medium and hard,
 * each able to play either side (seat 0 goats, seat 1 tigers).
 *
 *   easy    a beginner who looks one move ahead. Tigers capture whenever
 *           they can, else step next to as many goats as possible. Goats
 *           take an immediate win, else play a random move after which no
 *           goat can be jumped at once (a random move when there is none).
 *   medium  a club player: a fixed three half-move alpha-beta search with a
 *           quiescence search on captures, judged by the evaluation below.
 *   hard    iterative deepening negamax with principal variation search,
 *           a transposition table, move ordering (table move, captures,
 *           killers, history), late move reductions, quiescence on
 *           captures, a one half-move extension wherever the side to move
 *           has at most two moves or the goats must answer a capture threat
 *           (forcing lines: traps and combinations are long and narrow, and
 *           are seen only if such lines are read to the end), and draw
 *           awareness: a position that repeats inside the window of BC-14
 *           scores as a draw, and the half-move clock of BC-15 is part of
 *           the table key once a draw by it comes near.
 *
 * The evaluation (baghchal_ai_eval, tigers' point of view) prices captured
 * goats, more steeply the closer the tigers come to five; tiger mobility
 * (steps and jumps), tigers with no move or a single one, and a steep
 * penalty when the four tigers have five moves or fewer between them (the
 * goats' traps are long: a tiger side that waits until it is nearly shut in
 * has waited too long); and the goats' vulnerability, scaled by what the
 * next capture would cost them: lines through a goat with no goat at either
 * end (a tiger could one day jump along them; corners have none, edges one,
 * so goats learn to build from the rim), such lines with one end a tiger can
 * reach in a step, a capture threat on the goats' turn, and two threats with
 * two landings (only one can be parried: most of a goat).
 *
 * Guarantees: pure and deterministic from (state, level, seed) — the seed
 * only adds a small deterministic noise to the evaluation (medium, hard) or
 * drives the tie-breaks (easy), so openings vary from game to game. No
 * global that changes. Easy and medium do not allocate; hard allocates its
 * search context (state copy, tables) and a transposition table sized to
 * its node budget (at most 4 MiB) once per decision, and frees both before
 * returning. The hard level is bounded by a node budget
 * (BAGHCHAL_AI_HARD_NODES), which keeps its choice deterministic; only when
 * the caller gives budget_ms > 0 does it also read a monotonic clock, and
 * then the clock can only cut the search shorter.
 */
#include "baghchal_ai.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF 32000
#define MATE BAGHCHAL_AI_MATE
#define MATE_BOUND BAGHCHAL_AI_MATE_BOUND
#define MAX_PLY 100          /* deepest search path, quiescence included */
#define MAX_DEPTH 60         /* deepest iteration of the hard level */
#define TT_BITS 18           /* at most 2^18 entries of 16 bytes: 4 MiB */
#define MEDIUM_DEPTH 3
#define MEDIUM_NODES 60000   /* a safety cap; depth 3 rarely needs a tenth */
#define MEDIUM_NOISE 6       /* evaluation noise amplitude (+-) */
#define HARD_NOISE 3
/* From this clock on the half-move clock is part of the table key (BC-15). */
#define CLOCK_KEY_FROM 40

/* ---- the evaluation ----------------------------------------------------- */

/*
 * Weights, tigers' point of view. Captured goats are worth more the closer
 * the tigers come to five, and what the next capture would cost the goats
 * scales their vulnerability terms: with four taken, any goat that can be
 * jumped is nearly the game. Tiger danger (total moves 0..5) is steep
 * because traps are long and narrow and the goats hunt them patiently.
 * Tuned by self-play matches and by positions where a side walked into a
 * forced loss.
 */
static const int capture_value[BAGHCHAL_CAPTURES_TO_WIN + 1] = { 0, 300, 700, 1200, 2600, 7600 };
static const int danger[6] = { 3000, 2000, 1200, 600, 250, 80 };
#define W_MOBILITY 12   /* each tiger step or jump available */
#define W_TRAPPED 90    /* each tiger with no move at all */
#define W_LONELY 100    /* each tiger with a single move */
#define W_EXPOSED 6     /* a line through a goat with no goat at either end... */
#define W_LATENT 10     /* ... and one end a tiger reaches in a step, the other empty */
#define W_THREAT 30     /* goats to move, one capture threat (it can be parried) */
#define VULN_UNIT 500   /* the next capture's cost at which the three above apply as is */

/* Bit p+delta of x moved to bit p (x's picture seen from delta away). */
static inline uint32_t at(uint32_t x, int delta)
{
	return delta >= 0 ? x >> delta : x << -delta;
}

static inline int popcount32(uint32_t x)
{
	/* portable: the build has no -mpopcnt, and the library call is slower */
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (int)((x * 0x01010101u) >> 24);
}

static inline int lowest_bit(uint32_t x)
{
	return __builtin_ctz(x);
}

/* Point offsets of the directions E, NE, N, NW, W, SW, S, SE of baghchal.h. */
static const int dir_delta[8] = { 1, 6, 5, 4, -1, -6, -5, -4 };

/*
 * Board masks for the bitboard evaluation, derived from baghchal_step and
 * baghchal_jump: line[d] holds the points with a line through them in
 * direction d (0..3) and its opposite; jump[d] the points a jump in
 * direction d (0..7) can start from.
 */
struct eval_masks {
	uint32_t line[4];
	uint32_t jump[8];
};

static void eval_masks_init(struct eval_masks *em)
{
	memset(em, 0, sizeof(*em));
	for (int p = 0; p < BAGHCHAL_POINTS; p++) {
		for (int d = 0; d < 4; d++)
			if (baghchal_step[p][d] >= 0 && baghchal_step[p][d + 4] >= 0)
				em->line[d] |= 1u << p;
		for (int d = 0; d < 8; d++)
			if (baghchal_jump[p][d] >= 0)
				em->jump[d] |= 1u << p;
	}
}

static int evaluate(const struct baghchal *s, const struct eval_masks *em)
{
	uint32_t goats = s->goats, tigers = s->tigers, empty = baghchal_empty(s);
	uint32_t reach = 0, movers = 0, threatened = 0, landings = 0;
	int mobility = 0, trapped, exposed = 0, latent = 0, lonely = 0, score, vuln;
	int taken = s->captured < 4 ? s->captured : 4;
	int next = capture_value[taken + 1] - capture_value[taken];
	int tiger_moves[BAGHCHAL_POINTS];

	for (uint32_t m = tigers; m; m &= m - 1) {
		int t = lowest_bit(m);
		uint32_t steps = baghchal_adj_mask[t] & empty;

		reach |= steps;
		tiger_moves[t] = popcount32(steps);
		mobility += tiger_moves[t];
		if (steps)
			movers |= 1u << t;
	}
	for (int d = 0; d < 8; d++) {
		int dl = dir_delta[d];
		uint32_t j = tigers & em->jump[d] & at(goats, dl) & at(empty, 2 * dl);

		if (!j)
			continue;
		mobility += popcount32(j);
		movers |= j;
		for (uint32_t m = j; m; m &= m - 1)
			tiger_moves[lowest_bit(m)]++;
		threatened |= at(j, -dl);
		landings |= at(j, -2 * dl);
	}
	trapped = popcount32(tigers & ~movers);
	for (uint32_t m = tigers; m; m &= m - 1)
		lonely += tiger_moves[lowest_bit(m)] == 1;
	for (int d = 0; d < 4; d++) {
		int dl = dir_delta[d];
		uint32_t ex = goats & em->line[d] & ~at(goats, dl) & ~at(goats, -dl);

		exposed += popcount32(ex);
		latent += popcount32(ex & at(reach, dl) & at(empty, -dl));
		latent += popcount32(ex & at(empty, dl) & at(reach, -dl));
	}
	vuln = W_EXPOSED * exposed + W_LATENT * latent;
	/* on the tigers' turn the quiescence search plays the captures out */
	if (s->to_move == BAGHCHAL_GOATS && threatened)
		vuln += W_THREAT;
	score = capture_value[taken] + W_MOBILITY * mobility - W_TRAPPED * trapped -
		W_LONELY * lonely + vuln * next / VULN_UNIT;
	if (mobility < 6)
		score -= danger[mobility];
	/* two goats threatened with two landings: one placement or step parries one */
	if (s->to_move == BAGHCHAL_GOATS && popcount32(threatened) >= 2 && popcount32(landings) >= 2)
		score += next * 3 / 4;
	return score;
}

/* ---- move generation for the search ------------------------------------ */

/*
 * The same moves as baghchal_moves() (the test suite compares them as sets),
 * generated from bitboards: jumps a direction at a time, goat steps from the
 * few empty points rather than from the many goats. Order: tiger jumps
 * first, then steps. With captures_only, the jumps alone.
 */
static int gen_moves(const struct baghchal *s, const struct eval_masks *em,
		     struct baghchal_move *out, bool captures_only)
{
	uint32_t goats = s->goats, tigers = s->tigers, empty = baghchal_empty(s);
	int n = 0;

	if (baghchal_over(s))
		return 0;
	if (s->to_move == BAGHCHAL_TIGERS) {
		for (int d = 0; d < 8; d++) {
			int dl = dir_delta[d];

			for (uint32_t j = tigers & em->jump[d] & at(goats, dl) & at(empty, 2 * dl); j;
			     j &= j - 1) {
				int t = lowest_bit(j);

				out[n++] = (struct baghchal_move){ (int8_t)t, (int8_t)(t + 2 * dl),
								   (int8_t)(t + dl) };
			}
		}
		if (captures_only)
			return n;
		for (uint32_t m = tigers; m; m &= m - 1) {
			int t = lowest_bit(m);

			for (uint32_t q = baghchal_adj_mask[t] & empty; q; q &= q - 1)
				out[n++] = (struct baghchal_move){ (int8_t)t, (int8_t)lowest_bit(q), -1 };
		}
		return n;
	}
	if (captures_only)
		return 0;
	if (s->goats_in_hand > 0) {
		for (uint32_t m = empty; m; m &= m - 1)
			out[n++] = (struct baghchal_move){ -1, (int8_t)lowest_bit(m), -1 };
		return n;
	}
	for (uint32_t m = empty; m; m &= m - 1) {
		int e = lowest_bit(m);

		for (uint32_t g = baghchal_adj_mask[e] & goats; g; g &= g - 1)
			out[n++] = (struct baghchal_move){ (int8_t)lowest_bit(g), (int8_t)e, -1 };
	}
	return n;
}

/* Goats to move with a goat that can be jumped? */
static bool threatened_now(const struct baghchal *s, const struct eval_masks *em)
{
	uint32_t goats = s->goats, tigers = s->tigers, empty = baghchal_empty(s);

	for (int d = 0; d < 8; d++)
		if (tigers & em->jump[d] & at(goats, dir_delta[d]) & at(empty, 2 * dir_delta[d]))
			return true;
	return false;
}

/* How many moves gen_moves() would give, without listing them. */
static int count_moves(const struct baghchal *s, const struct eval_masks *em)
{
	uint32_t goats = s->goats, tigers = s->tigers, empty = baghchal_empty(s);
	int n = 0;

	if (baghchal_over(s))
		return 0;
	if (s->to_move == BAGHCHAL_TIGERS) {
		for (int d = 0; d < 8; d++)
			n += popcount32(tigers & em->jump[d] & at(goats, dir_delta[d]) &
					at(empty, 2 * dir_delta[d]));
		for (uint32_t m = tigers; m; m &= m - 1)
			n += popcount32(baghchal_adj_mask[lowest_bit(m)] & empty);
		return n;
	}
	if (s->goats_in_hand > 0)
		return popcount32(empty);
	for (uint32_t m = empty; m; m &= m - 1)
		n += popcount32(baghchal_adj_mask[lowest_bit(m)] & goats);
	return n;
}

int baghchal_ai_moves(const struct baghchal *s, struct baghchal_move *out)
{
	struct eval_masks em;

	eval_masks_init(&em);
	return gen_moves(s, &em, out, false);
}

int baghchal_ai_eval(const struct baghchal *s)
{
	struct eval_masks em;

	eval_masks_init(&em);
	return evaluate(s, &em);
}

/* ---- helpers shared by the levels --------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline bool same_move(struct baghchal_move a, struct baghchal_move b)
{
	return a.from == b.from && a.to == b.to;
}

/* Score of a finished game for the side to move, ply half-moves from the root. */
static int terminal_score(const struct baghchal *s, int ply)
{
	int winner;

	if (s->result == BAGHCHAL_DRAW)
		return 0;
	winner = s->result == BAGHCHAL_TIGERS_WIN ? BAGHCHAL_TIGERS : BAGHCHAL_GOATS;
	return winner == s->to_move ? MATE - ply : -(MATE - ply);
}

/*
 * Has the current position occurred before in the window of BC-14? In a
 * search a second occurrence is scored as a draw: whoever could repeat once
 * can repeat again, and it stops the search from chasing cycles.
 */
static bool repeated(const struct baghchal *s)
{
	uint64_t k = s->hist[s->clock];

	for (int i = s->clock - 4; i >= 0; i -= 2)
		if (s->hist[i] == k)
			return true;
	return false;
}

/* ---- easy --------------------------------------------------------------- */

static int easy_tigers(struct baghchal *s, struct gb_rng *rng, struct baghchal_move *out)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES];
	int n = baghchal_captures(s, mv), best = -1, best_score = -1;

	if (n > 0) {
		*out = mv[gb_rng_below(rng, (uint32_t)n)];
		return GB_OK;
	}
	n = baghchal_moves(s, mv);
	for (int i = 0; i < n; i++) {
		/* toward the goats: as many goats around the landing point as possible */
		int sc = 4 * popcount32(baghchal_adj_mask[mv[i].to] & s->goats) +
			 (int)gb_rng_below(rng, 4);

		if (sc > best_score) {
			best_score = sc;
			best = i;
		}
	}
	if (best < 0)
		return GB_EOVER;
	*out = mv[best];
	return GB_OK;
}

static int easy_goats(struct baghchal *s, struct gb_rng *rng, struct baghchal_move *out)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES], caps[BAGHCHAL_MAX_MOVES];
	int n = baghchal_moves(s, mv), safe[BAGHCHAL_MAX_MOVES], nsafe = 0;

	if (n <= 0)
		return GB_EOVER;
	for (int i = 0; i < n; i++) {
		struct baghchal_undo u;
		bool win, ok;

		baghchal_make(s, mv[i], &u);
		win = s->result == BAGHCHAL_GOATS_WIN;
		ok = !baghchal_over(s) && baghchal_captures(s, caps) == 0;
		baghchal_unmake(s, mv[i], &u);
		if (win) {
			*out = mv[i];
			return GB_OK;
		}
		if (ok)
			safe[nsafe++] = i;
	}
	if (nsafe > 0)
		*out = mv[safe[gb_rng_below(rng, (uint32_t)nsafe)]];
	else
		*out = mv[gb_rng_below(rng, (uint32_t)n)];
	return GB_OK;
}

/* ---- the search (medium and hard) --------------------------------------- */

enum { TT_NONE = 0, TT_EXACT, TT_LOWER, TT_UPPER };

struct tt_entry {
	uint64_t key;
	int16_t score;
	int8_t depth;
	uint8_t bound;        /* TT_NONE (empty slot), TT_EXACT, TT_LOWER, TT_UPPER */
	int8_t from, to;      /* best move; to = -1 when there is none */
	int16_t unused;
};

struct search {
	struct baghchal s;    /* the position searched, changed by make/unmake */
	struct tt_entry *tt;  /* tt_mask + 1 entries, or NULL (medium) */
	uint64_t tt_mask;
	uint64_t nodes, max_nodes;
	struct eval_masks em;
	uint64_t noise_key;   /* from the seed: which positions get which noise */
	int noise;            /* amplitude of the evaluation noise (+-) */
	bool lmr;             /* late move reductions (hard only) */
	int root_depth;       /* of the current iteration; 0 = no extensions (medium) */
	bool stop;            /* budget spent: unwind and discard the iteration */
	bool timed;
	struct timespec deadline;
	struct baghchal_move root_best;
	bool root_has_best;
	struct baghchal_move killer[MAX_PLY][2];
	int32_t history[2][BAGHCHAL_POINTS + 1][BAGHCHAL_POINTS];
};

static void search_init(struct search *c, const struct baghchal *s, uint64_t seed, int noise,
			uint64_t max_nodes, int budget_ms)
{
	memset(c, 0, sizeof(*c));
	memcpy(&c->s, s, sizeof(*s));
	eval_masks_init(&c->em);
	c->noise_key = mix64(seed ^ 0x6e6f697365ULL);
	c->noise = noise;
	c->max_nodes = max_nodes;
	for (int p = 0; p < MAX_PLY; p++)
		c->killer[p][0] = c->killer[p][1] = (struct baghchal_move){ -1, -1, -1 };
	if (budget_ms > 0) {
		c->timed = true;
		clock_gettime(CLOCK_MONOTONIC, &c->deadline);
		c->deadline.tv_sec += budget_ms / 1000;
		c->deadline.tv_nsec += (long)(budget_ms % 1000) * 1000000L;
		if (c->deadline.tv_nsec >= 1000000000L) {
			c->deadline.tv_sec++;
			c->deadline.tv_nsec -= 1000000000L;
		}
	}
}

/* Count a node; set stop when the budget is spent. */
static inline void count_node(struct search *c)
{
	c->nodes++;
	if (c->nodes >= c->max_nodes) {
		c->stop = true;
	} else if (c->timed && (c->nodes & 1023) == 0) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > c->deadline.tv_sec ||
		    (now.tv_sec == c->deadline.tv_sec && now.tv_nsec >= c->deadline.tv_nsec))
			c->stop = true;
	}
}

/* The evaluation for the side to move, with the seed's noise. */
static int eval_side(const struct search *c)
{
	const struct baghchal *s = &c->s;
	int e = evaluate(s, &c->em);

	if (c->noise > 0)
		e += (int)(mix64(s->hash ^ c->noise_key) % (uint64_t)(2 * c->noise + 1)) - c->noise;
	return s->to_move == BAGHCHAL_TIGERS ? e : -e;
}

static uint64_t tt_key(const struct baghchal *s)
{
	/* near the draw of BC-15 the same position is worth less with a later clock */
	if (s->clock >= CLOCK_KEY_FROM)
		return s->hash ^ mix64(0x636c6f636bULL + (uint64_t)s->clock);
	return s->hash;
}

static int to_tt(int score, int ply)
{
	return score >= MATE_BOUND ? score + ply : score <= -MATE_BOUND ? score - ply : score;
}

static int from_tt(int score, int ply)
{
	return score >= MATE_BOUND ? score - ply : score <= -MATE_BOUND ? score + ply : score;
}

/* Captures only, for the tigers; the goats stand on the evaluation. */
static int quiesce(struct search *c, int alpha, int beta, int ply)
{
	struct baghchal *s = &c->s;
	struct baghchal_move caps[BAGHCHAL_MAX_MOVES];
	int best, n;

	count_node(c);
	best = eval_side(c);
	if (s->to_move == BAGHCHAL_GOATS || ply >= MAX_PLY - 1 || best >= beta)
		return best;
	if (best > alpha)
		alpha = best;
	n = gen_moves(s, &c->em, caps, true);
	for (int i = 0; i < n && !c->stop; i++) {
		struct baghchal_undo u;
		int sc;

		baghchal_make(s, caps[i], &u);
		sc = baghchal_over(s) ? terminal_score(s, ply + 1) : -quiesce(c, -beta, -alpha, ply + 1);
		baghchal_unmake(s, caps[i], &u);
		if (sc > best) {
			best = sc;
			if (sc > alpha)
				alpha = sc;
			if (alpha >= beta)
				break;
		}
	}
	return best;
}

/* Order keys: table move, captures, killers, then history. */
static void order_moves(const struct search *c, const struct baghchal_move *mv, int n,
			struct baghchal_move tt_move, int ply, int *key)
{
	int side = c->s.to_move;

	for (int i = 0; i < n; i++) {
		if (same_move(mv[i], tt_move))
			key[i] = 1 << 30;
		else if (mv[i].over >= 0)
			key[i] = 1 << 29;
		else if (same_move(mv[i], c->killer[ply][0]))
			key[i] = 1 << 28;
		else if (same_move(mv[i], c->killer[ply][1]))
			key[i] = (1 << 28) - 1;
		else
			key[i] = c->history[side][mv[i].from + 1][mv[i].to];
	}
}

/* Bring the best remaining move to position i (selection sort step). */
static void pick(struct baghchal_move *mv, int *key, int n, int i)
{
	int b = i;

	for (int j = i + 1; j < n; j++)
		if (key[j] > key[b])
			b = j;
	if (b != i) {
		struct baghchal_move tm = mv[i];
		int tk = key[i];

		mv[i] = mv[b];
		key[i] = key[b];
		mv[b] = tm;
		key[b] = tk;
	}
}

static void reward(struct search *c, struct baghchal_move m, int depth, int ply)
{
	int32_t *h = &c->history[c->s.to_move][m.from + 1][m.to];

	if (m.over >= 0)
		return;
	if (!same_move(m, c->killer[ply][0])) {
		c->killer[ply][1] = c->killer[ply][0];
		c->killer[ply][0] = m;
	}
	*h += depth * depth;
	if (*h > (1 << 24))
		for (int s = 0; s < 2; s++)
			for (int f = 0; f <= BAGHCHAL_POINTS; f++)
				for (int t = 0; t < BAGHCHAL_POINTS; t++)
					c->history[s][f][t] /= 2;
}

static int negamax(struct search *c, int depth, int alpha, int beta, int ply)
{
	struct baghchal *s = &c->s;
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES], best_move = { -1, -1, -1 };
	struct baghchal_move tt_move = { -1, -1, -1 };
	struct tt_entry *e = NULL;
	int key[BAGHCHAL_MAX_MOVES], n, best = -INF, alpha0 = alpha;
	uint64_t k = 0;

	if (baghchal_over(s))
		return terminal_score(s, ply);
	if (ply > 0 && repeated(s))
		return 0;
	/* forcing positions (a side nearly shut in, a goat en prise): look further */
	if (ply < 2 * c->root_depth && depth >= 0 &&
	    (count_moves(s, &c->em) <= 2 ||
	     (s->to_move == BAGHCHAL_GOATS && threatened_now(s, &c->em))))
		depth++;
	if (depth <= 0 || ply >= MAX_PLY - 8)
		return quiesce(c, alpha, beta, ply);
	count_node(c);
	if (c->stop)
		return 0;
	if (c->tt) {
		k = tt_key(s);
		e = &c->tt[k & c->tt_mask];
		if (e->bound != TT_NONE && e->key == k) {
			int sc = from_tt(e->score, ply);

			if (e->to >= 0)
				tt_move = (struct baghchal_move){ e->from, e->to, -1 };
			if (ply > 0 && e->depth >= depth &&
			    (e->bound == TT_EXACT || (e->bound == TT_LOWER && sc >= beta) ||
			     (e->bound == TT_UPPER && sc <= alpha)))
				return sc;
		}
	}
	n = gen_moves(s, &c->em, mv, false);
	order_moves(c, mv, n, tt_move, ply, key);
	for (int i = 0; i < n; i++) {
		struct baghchal_undo u;
		int sc, r = 0;

		pick(mv, key, n, i);
		baghchal_make(s, mv[i], &u);
		if (i == 0) {
			sc = -negamax(c, depth - 1, -beta, -alpha, ply + 1);
		} else {
			/* late quiet moves are searched shallower first (hard only) */
			if (c->lmr && depth >= 3 && i >= 2 && mv[i].over < 0 && key[i] < (1 << 28) - 1)
				r = i >= 6 && depth >= 4 ? 2 : 1;
			sc = -negamax(c, depth - 1 - r, -alpha - 1, -alpha, ply + 1);
			if (sc > alpha && r > 0)
				sc = -negamax(c, depth - 1, -alpha - 1, -alpha, ply + 1);
			if (sc > alpha && sc < beta)
				sc = -negamax(c, depth - 1, -beta, -alpha, ply + 1);
		}
		baghchal_unmake(s, mv[i], &u);
		if (c->stop)
			return 0;
		if (sc > best) {
			best = sc;
			best_move = mv[i];
			if (ply == 0) {
				c->root_best = mv[i];
				c->root_has_best = true;
			}
			if (sc > alpha)
				alpha = sc;
			if (alpha >= beta) {
				reward(c, mv[i], depth, ply);
				break;
			}
		}
	}
	if (e) {
		e->key = k;
		e->score = (int16_t)to_tt(best, ply);
		e->depth = (int8_t)depth;
		e->bound = best >= beta ? TT_LOWER : best > alpha0 ? TT_EXACT : TT_UPPER;
		e->from = best_move.from;
		e->to = best_move.to;
	}
	return best;
}

/* Medium: one fixed-depth search, no table. Never fails on a live game. */
static int medium_choose(const struct baghchal *s, uint64_t seed, struct baghchal_move *out)
{
	struct search c;
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES];

	if (baghchal_moves(s, mv) <= 0)
		return GB_EOVER;
	search_init(&c, s, seed, MEDIUM_NOISE, MEDIUM_NODES, 0);
	c.root_depth = 0;
	negamax(&c, MEDIUM_DEPTH, -INF, INF, 0);
	/* the first root move is always searched to the end before any cut */
	*out = c.root_has_best ? c.root_best : mv[0];
	return GB_OK;
}

int baghchal_ai_hard(const struct baghchal *s, uint64_t seed, uint64_t max_nodes, int budget_ms,
		     struct baghchal_move *out, int *score)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES], best;
	struct search *c = NULL;
	int n = baghchal_moves(s, mv), best_score = 0, rc = GB_OK;

	if (n <= 0) {
		rc = GB_EOVER;
		goto out;
	}
	best = mv[0];
	if (n == 1)
		goto done;
	c = malloc(sizeof(*c));
	if (c)
		search_init(c, s, seed, HARD_NOISE, max_nodes ? max_nodes : BAGHCHAL_AI_HARD_NODES,
			    budget_ms);
	if (c) {
		/* a table about the size of the tree: small budgets, small tables */
		int bits = 10;

		while (bits < TT_BITS && ((uint64_t)1 << bits) < c->max_nodes / 2)
			bits++;
		c->tt_mask = ((uint64_t)1 << bits) - 1;
		c->tt = calloc((size_t)1 << bits, sizeof(struct tt_entry));
	}
	if (!c || !c->tt) {
		medium_choose(s, seed, &best);
		rc = GB_ENOMEM;
		goto done;
	}
	c->lmr = true;
	for (int depth = 1; depth <= MAX_DEPTH; depth++) {
		int sc;

		c->root_has_best = false;
		c->root_depth = depth;
		sc = negamax(c, depth, -INF, INF, 0);
		if (c->stop) {
			/* a move that beat the previous best before the cut is kept */
			if (c->root_has_best)
				best = c->root_best;
			break;
		}
		best = c->root_best;
		best_score = sc;
		if (sc >= MATE_BOUND || sc <= -MATE_BOUND)
			break;
	}
done:
	*out = best;
	if (score)
		*score = best_score;
out:
	if (c)
		free(c->tt);
	free(c);
	return rc;
}

int baghchal_ai_choose(const void *st, int level, uint64_t seed, int budget_ms,
		       struct gb_action *out)
{
	struct baghchal s;
	struct baghchal_move m;
	struct gb_rng rng;
	int rc;

	if (level <= GB_LEVEL_RANDOM || level >= GB_LEVEL_COUNT)
		return gb_ai_random_legal(baghchal_legal, st, seed, out);
	memcpy(&s, st, sizeof(s));
	if (baghchal_over(&s))
		return GB_EOVER;
	gb_rng_seed(&rng, seed);
	if (level == GB_LEVEL_EASY)
		rc = s.to_move == BAGHCHAL_TIGERS ? easy_tigers(&s, &rng, &m) : easy_goats(&s, &rng, &m);
	else if (level == GB_LEVEL_MEDIUM)
		rc = medium_choose(&s, seed, &m);
	else
		rc = baghchal_ai_hard(&s, seed, 0, budget_ms, &m, NULL);
	/* out of memory, hard still chose a legal move (medium's) */
	if (rc == GB_ENOMEM)
		rc = GB_OK;
	if (rc == GB_OK)
		*out = baghchal_move_action(m);
	return rc;
}
