/*
 * ludo_ai.c - computer players for Ludo: easy, medium and hard.
 *
 *   easy    a beginner's rule of thumb: finish or capture when it can, else
 *           bring a token out on a six, else push the most advanced token;
 *           now and then (seeded) a random token instead.
 *   medium  a club player: every distinct move (ludo_choices) is tried and
 *           the resulting position judged by the evaluation below, which
 *           prices finishing, capturing, coming out, escaping danger,
 *           stars and the home column, landing in front of opponents and
 *           spreading risk over tokens. One move deep, no dice ahead.
 *   hard    expectimax on top of medium: each move is followed by every die
 *           of every opponent (opponents answer with the medium policy) and
 *           by its own extra rolls, until the path is less likely than
 *           params.cut; leaves are judged by the learned evaluation
 *           (ludo_net.h) at a table of four with the default rules, else,
 *           and with params.eval 0, by the hand-written one below.
 *
 * The evaluation (ludo_ai_eval) gives each seat a remaining distance: the
 * steps its tokens still walk, a price for tokens in base, and for every
 * token on an ordinary ring square the chance that some opponent hits it
 * in the coming round (ludo_ai_threat: opponents 1..6 behind with one
 * roll, 7..12 behind or in base with a six first) times what it would
 * lose. A softmax over those distances turns them into winning chances,
 * so gaining on the leader counts more than gaining on the last.
 *
 * Guarantees: pure and deterministic from (state, level, seed, budget_ms);
 * no clock (the hard level is bounded by a probability cut and a node cap,
 * and budget_ms only scales those); no allocation (the search recurses on
 * copies of the state on the stack, a few hundred bytes per level, depth
 * bounded by params.cut). Searches roll forced dice only: the state's own
 * generator, which holds the real future dice, is never consulted.
 */
#include "ludo_ai.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "ai.h"
#include "ludo_net.h"

/*
 * The weights of each level, indexed by enum gb_level (random plays
 * without them). Tuned by arena runs against the level below and random.
 * hard's evaluation weights sit on a plateau against three medium players:
 * base_cost 8 or 14, later 0.3 or 0.5, danger 0.8, idle_cost 12 each play
 * within half a point of these, later 0.05 two points worse (ludotune,
 * 2,000 games paired on the seats' own dice).
 */
static const struct ludo_ai_params level_params[GB_LEVEL_COUNT] = {
	[GB_LEVEL_EASY] = { .base_cost = 8.0, .idle_cost = 0.0, .danger = 1.0, .later = 1.0, .home_cost = 0.0,
			    .tau = 25.0, .cut = 1.0, .my_extra = 0, .max_nodes = 0, .easy_noise = 10 },
	[GB_LEVEL_MEDIUM] = { .base_cost = 8.0, .idle_cost = 6.0, .danger = 1.0, .later = 1.0, .home_cost = 0.5,
			      .tau = 25.0, .cut = 1.0, .my_extra = 0, .max_nodes = 0, .easy_noise = 0 },
	[GB_LEVEL_HARD] = { .base_cost = 11.0, .idle_cost = 6.0, .danger = 1.0, .later = 0.15, .home_cost = 0.5,
			    .tau = 25.0, .cut = 1.0 / 200.0, .my_extra = 1, .rounds = 2, .max_nodes = 40000,
			    .easy_noise = 0, .eval = 1 },
};

const struct ludo_ai_params *ludo_ai_defaults(int level)
{
	if (level < GB_LEVEL_EASY || level >= GB_LEVEL_COUNT)
		level = GB_LEVEL_MEDIUM;
	return &level_params[level];
}

/* ---- the evaluation ----------------------------------------------------- */

/* Set bits of a 6-bit mask. */
static const uint8_t bits6[64] = {
	0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
	1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
};

/* Route positions that are stars (LU-3), for the inner loops. */
static const bool star_route[LUDO_CENTRE + 1] = {
	[1] = true, [9] = true, [14] = true, [22] = true, [27] = true, [35] = true, [40] = true, [48] = true,
};

/* ludo_ring_square() for p known to be 1..51, inlined. */
static inline int ring_sq(int corner, int p)
{
	int r = corner * LUDO_SIDE + p - 1;

	return r >= LUDO_RING ? r - LUDO_RING : r;
}

/* Reach of ring squares: the dice it takes to hit a square, seat by seat. */
struct board {
	uint64_t far[GB_MAX_SEATS];  /* tokens at route <= 39 (reach 12 ahead), mirrored ring mask */
	uint8_t near[GB_MAX_SEATS][LUDO_TOKENS];   /* route 40..51: reach ends at 51 */
	uint8_t nearsq[GB_MAX_SEATS][LUDO_TOKENS]; /* their ring squares */
	uint8_t nnear[GB_MAX_SEATS];
	bool based[GB_MAX_SEATS];    /* tokens in base, a six lets one out */
	bool six_bonus;
};

#define REACH_FAR (LUDO_LAST_RING - 12)

static void board_init(struct board *b, const struct ludo *st)
{
	memset(b, 0, sizeof(*b));
	b->six_bonus = ludo_rule_on(st, LUDO_RULE_SIX_BONUS);
	for (int o = 0; o < st->players; o++) {
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int q = st->pos[o][t];

			if (q == 0)
				b->based[o] = true;
			else if (q <= REACH_FAR)
				b->far[o] |= 1ull << (LUDO_RING - 1 - ring_sq(st->corner[o], q));
			else if (q <= LUDO_LAST_RING) {
				b->nearsq[o][b->nnear[o]] = (uint8_t)ring_sq(st->corner[o], q);
				b->near[o][b->nnear[o]++] = (uint8_t)q;
			}
		}
	}
}

/*
 * The far masks are mirrored (square sq is bit 51 - sq) so that the squares
 * behind sq come out in order of distance: bit i of the result is square
 * sq - 1 - i, i = 0..11.
 */
static unsigned behind12(uint64_t mirrored, int sq)
{
	int k = (LUDO_RING - sq) % LUDO_RING;

	return (unsigned)(((mirrored >> k) | (mirrored << (LUDO_RING - k))) & 0xfff);
}

/*
 * Chance that the token of `seat` on route p is hit, opponent o's chance
 * weighted by w[o] (1: it rolls before `seat` moves again).
 */
static double board_threat(const struct board *b, const struct ludo *st, int seat, int p,
			   const double *w)
{
	double safe = 1.0;
	int sq;

	if (p < 1 || p > LUDO_LAST_RING || star_route[p])
		return 0.0;
	sq = ring_sq(st->corner[seat], p);
	for (int o = 0; o < st->players; o++) {
		unsigned reach, direct, chain;  /* bit d-1: a die d (after a six) hits */
		double hit;

		if (o == seat)
			continue;
		reach = b->far[o] ? behind12(b->far[o], sq) : 0;
		for (int i = 0; i < b->nnear[o]; i++) {
			int q = b->near[o][i];
			int d = sq - b->nearsq[o][i];

			if (d < 0)
				d += LUDO_RING;
			/* past route 51 it turns into its home column instead */
			if (d >= 1 && d <= 12 && q + d <= LUDO_LAST_RING)
				reach |= 1u << (d - 1);
		}
		direct = reach & 0x3f;
		chain = b->six_bonus ? (reach >> 6) & 0x3f : 0;
		if (b->six_bonus && b->based[o]) {
			/* a six opens the door, the extra roll walks on */
			int d = (sq - st->corner[o] * LUDO_SIDE + LUDO_RING) % LUDO_RING;

			if (d >= 1 && d <= 6)
				chain |= 1u << (d - 1);
		}
		if (!reach && !chain)
			continue;
		hit = bits6[direct] * (1.0 / 6.0);
		if (!(direct & 0x20))
			hit += bits6[chain] * (1.0 / 36.0);
		if (hit > 1.0)
			hit = 1.0;
		safe *= 1.0 - w[o] * hit;
	}
	return 1.0 - safe;
}

double ludo_ai_threat(const struct ludo *st, int seat, int p)
{
	static const double full[GB_MAX_SEATS] = { 1.0, 1.0, 1.0, 1.0 };
	struct board b;

	board_init(&b, st);
	return board_threat(&b, st, seat, p, full);
}

/*
 * Expected remaining distance of every seat (see the file comment) into
 * dist[0..players-1].
 */
static void distances(const struct ludo *st, const struct ludo_ai_params *pr, double *dist, double *loss,
		      int *hit)
{
	struct board b;
	int n = st->players, rank[GB_MAX_SEATS];

	board_init(&b, st);
	/* rank: how many seats roll before this one, counting from the seat
	 * to act now */
	for (int s = 0; s < n; s++)
		rank[s] = s >= st->seat ? s - st->seat : s - st->seat + n;
	for (int s = 0; s < n; s++) {
		double d = 0.0, w[GB_MAX_SEATS];
		int active = 0, based = 0;

		/* an opponent who rolls before this seat does hits at full
		 * chance; one who rolls after it leaves it a move to get away */
		for (int o = 0; o < n; o++)
			w[o] = rank[o] < rank[s] ? 1.0 : pr->later;
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int q = st->pos[s][t];

			if (q == 0) {
				d += LUDO_CENTRE + pr->base_cost;
				based++;
			} else if (q < LUDO_CENTRE) {
				d += LUDO_CENTRE - q;
				active++;
				if (q >= LUDO_HOME_FIRST)
					d += pr->home_cost;
				else if (!star_route[q]) {
					double th = board_threat(&b, st, s, q, w);

					d += pr->danger * th * (q + pr->base_cost);
					if (loss) {
						loss[s] += th * (q + pr->base_cost);
						hit[s] += th > 0.0;
					}
				}
			}
		}
		if (based && !active)
			d += pr->idle_cost;
		dist[s] = d;
	}
}

/* The share of the winning chances of `seat` given the distances. */
static double share(const struct ludo *st, const double *dist, int seat, double tau)
{
	double best = dist[0], sum = 0.0, mine = 0.0;

	if (st->winner >= 0)
		return st->winner == seat ? 1.0 : 0.0;
	for (int s = 1; s < st->players; s++)
		if (dist[s] < best)
			best = dist[s];
	for (int s = 0; s < st->players; s++) {
		double e = exp((best - dist[s]) / tau);

		sum += e;
		if (s == seat)
			mine = e;
	}
	return mine / sum;
}

double ludo_ai_eval(const struct ludo *st, int seat, const struct ludo_ai_params *p)
{
	double dist[GB_MAX_SEATS];

	if (st->winner >= 0)
		return st->winner == seat ? 1.0 : 0.0;
	distances(st, p, dist, NULL, NULL);
	return share(st, dist, seat, p->tau);
}

void ludo_ai_features(const struct ludo *st, struct ludo_feat *f)
{
	double dist[GB_MAX_SEATS], loss[GB_MAX_SEATS] = { 0 };
	int hit[GB_MAX_SEATS] = { 0 }, n = st->players;

	distances(st, &level_params[GB_LEVEL_HARD], dist, loss, hit);
	f->n = 0;
	for (int r = 0; r < n && r < 4; r++) {
		int s = (st->seat + r) % n, base = 0, home = 0, at[LUDO_CENTRE + 1] = { 0 };
		int off = r * LUDO_NET_SEAT_IN;

		for (int t = 0; t < LUDO_TOKENS; t++) {
			int q = st->pos[s][t];

			if (q == 0)
				base++;
			else if (q == LUDO_CENTRE)
				home++;
			else if (at[q]++ == 0)
				f->idx[f->n++] = (uint16_t)(off + 3 + q);
		}
		/* the counts of the squares listed above, in the order listed */
		for (int i = 0; i < f->n; i++)
			if (f->idx[i] >= off)
				f->val[i] = (float)at[f->idx[i] - off - 3];
		for (int k = 0; k < base; k++) {
			f->idx[f->n] = (uint16_t)(off + k);
			f->val[f->n++] = 1.0f;
		}
		for (int k = 0; k < home; k++) {
			f->idx[f->n] = (uint16_t)(off + 60 + k);
			f->val[f->n++] = 1.0f;
		}
	}
	for (int r = 0; r < n && r < 4; r++) {
		int s = (st->seat + r) % n, off = 4 * LUDO_NET_SEAT_IN + r * LUDO_NET_DENSE;
		float v[LUDO_NET_DENSE] = { (float)(dist[s] / 100.0), (float)(loss[s] / 50.0), (float)hit[s] / 4.0f };

		for (int k = 0; k < LUDO_NET_DENSE; k++) {
			f->idx[f->n] = (uint16_t)(off + k);
			f->val[f->n++] = v[k];
		}
	}
}

/*
 * The learned evaluation for `seat`: its chance of winning as the network
 * net sees it (only where net_fits(st): four seats, the default rules).
 */
static double net_eval(const struct ludo *st, int seat, const struct ludo_net *net)
{
	struct ludo_feat f;
	struct ludo_net_act a;

	if (st->winner >= 0)
		return st->winner == seat ? 1.0 : 0.0;
	ludo_ai_features(st, &f);
	ludo_net_forward(net, &f, &a);
	return a.out[(seat - st->seat + 4) % 4];
}

/* Does the learned evaluation apply to this game (four seats, default rules)? */
static bool net_fits(const struct ludo *st)
{
	bool fits = st->players == 4;

	for (int r = 0; r < LUDO_NRULES; r++)
		fits = fits && st->rules.v[r] == 0;
	return fits;
}

/* ---- moves -------------------------------------------------------------- */

static void apply_move(struct ludo *st, int token)
{
	struct gb_action act = { GB_ACT_MOVE, token, 0, 0 };
	int rc = ludo_apply(st, &act, NULL);

	(void)rc;  /* tokens come from ludo_choices(): always legal */
}

static void apply_roll(struct ludo *st, int die)
{
	struct gb_action act = { GB_ACT_ROLL, 0, 0, die };
	int rc = ludo_apply(st, &act, NULL);

	(void)rc;
}

/* The medium policy: the choice whose position the evaluation likes best. */
static int greedy(const struct ludo *st, const int *choice, int n, const struct ludo_ai_params *p)
{
	int seat = st->seat, best = choice[0];
	double bestv = -1.0;

	for (int i = 0; i < n; i++) {
		struct ludo c = *st;
		double v;

		apply_move(&c, choice[i]);
		v = ludo_ai_eval(&c, seat, p);
		if (v > bestv) {
			bestv = v;
			best = choice[i];
		}
	}
	return best;
}

/* ---- hard: expectimax over the dice -------------------------------------- */

struct search {
	const struct ludo_ai_params *p;    /* my evaluation */
	const struct ludo_ai_params *opp;  /* the opponents' policy: medium */
	const struct ludo_net *net;        /* the learned evaluation at the leaves, or NULL */
	int me;
	long nodes, limit;  /* nodes so far and the cap of this root move */
};

/* The value of a leaf of the search for s->me. */
static double leaf(const struct search *s, const struct ludo *st)
{
	return s->net ? net_eval(st, s->me, s->net) : ludo_ai_eval(st, s->me, s->p);
}

/* Where a path of the search stands. */
struct path {
	double prob;   /* chance of the dice along it */
	bool replied;  /* an opponent has moved since my last move */
	int extra;     /* my extra rolls it may still expand */
	int rounds;    /* my later turns it may still expand */
};

static double value(struct search *s, const struct ludo *st, struct path pa);

/* The best of my moves for the rolled c, each searched on. */
static double my_best(struct search *s, const struct ludo *c, struct path pa)
{
	int choice[LUDO_TOKENS], n = ludo_choices(c, c->die, choice);
	double v = -1.0;

	for (int i = 0; i < n; i++) {
		struct ludo m = *c;
		double w;

		apply_move(&m, choice[i]);
		w = value(s, &m, pa);
		if (w > v)
			v = w;
	}
	return v;
}

/* The seat to act rolls each die in turn; opponents answer with the medium policy. */
static double chance(struct search *s, const struct ludo *st, struct path pa)
{
	int mover = st->seat, choice[LUDO_TOKENS], n;
	double sum = 0.0;

	pa.prob /= 6.0;
	if (mover != s->me)
		pa.replied = true;
	for (int die = 1; die <= 6; die++) {
		struct ludo c = *st;

		s->nodes++;
		apply_roll(&c, die);
		if (c.winner < 0 && c.phase == LUDO_PHASE_MOVE && mover == s->me) {
			sum += my_best(s, &c, pa);
		} else if (c.winner < 0 && c.phase == LUDO_PHASE_MOVE) {
			n = ludo_choices(&c, c.die, choice);
			apply_move(&c, greedy(&c, choice, n, s->opp));
			sum += value(s, &c, pa);
		} else {
			sum += value(s, &c, pa);
		}
	}
	return sum / 6.0;
}

/*
 * Value for s->me of st, a position where somebody is to roll (or the game
 * is over). Paths stop, and the evaluation judges the position, when they
 * are less likely than params.cut, when the node cap is reached, or when
 * the opponents have replied and my turns to search are used up.
 */
static double value(struct search *s, const struct ludo *st, struct path pa)
{
	bool open = pa.prob >= s->p->cut && s->nodes < s->limit;

	if (st->winner >= 0)
		return st->winner == s->me ? 1.0 : 0.0;
	if (st->seat == s->me && pa.replied) {
		if (open && pa.rounds > 0) {
			struct path next = { pa.prob, false, s->p->my_extra, pa.rounds - 1 };

			return chance(s, st, next);
		}
		return leaf(s, st);
	}
	if (!open || (st->seat == s->me && pa.extra <= 0))
		return leaf(s, st);
	if (st->seat == s->me)
		pa.extra--;
	return chance(s, st, pa);
}

/* ---- the levels ---------------------------------------------------------- */

/* easy: the first rule of thumb that applies (see the file comment). */
static int easy_pick(const struct ludo *st, const int *choice, int n)
{
	int seat = st->seat, die = st->die, best = -1, bestp = -1;

	for (int i = 0; i < n; i++)
		if (ludo_target(st, choice[i], die) == LUDO_CENTRE)
			return choice[i];
	for (int i = 0; i < n; i++)
		if (ludo_captures(st, seat, choice[i], die) > 0)
			return choice[i];
	for (int i = 0; i < n; i++)
		if (st->pos[seat][choice[i]] == 0)
			return choice[i];
	for (int i = 0; i < n; i++) {
		int q = st->pos[seat][choice[i]];

		if (q > bestp) {
			bestp = q;
			best = choice[i];
		}
	}
	return best;
}

/* hard: the choice with the best expected value; ties keep the earlier. */
static int hard_pick(const struct ludo *st, const int *choice, int n, const struct ludo_ai_params *p,
		     int budget_ms)
{
	struct search s = { .p = p, .opp = ludo_ai_defaults(GB_LEVEL_MEDIUM), .me = st->seat };
	struct ludo_ai_params scaled;
	double bestv = -1.0;
	int best = choice[0];

	if (p->eval > 0 && net_fits(st))
		s.net = ludo_net_builtin();
	if (s.net && p->eval == 2) {
		/* one move deep, every move judged by the learned evaluation */
		for (int i = 0; i < n; i++) {
			struct ludo c = *st;
			double v;

			apply_move(&c, choice[i]);
			v = net_eval(&c, s.me, s.net);
			if (v > bestv) {
				bestv = v;
				best = choice[i];
			}
		}
		return best;
	}
	if (budget_ms > 0) {
		/* a smaller budget than the default cuts more (deterministic for
		 * a given budget_ms; the clock is never read) */
		scaled = *p;
		if (budget_ms < 50) {
			scaled.cut = p->cut * 50.0 / budget_ms;
			scaled.max_nodes = p->max_nodes * budget_ms / 50;
		}
		s.p = &scaled;
	}
	for (int i = 0; i < n; i++) {
		struct path root = { 1.0, false, s.p->my_extra, s.p->rounds - 1 };
		struct ludo c = *st;
		double v;

		apply_move(&c, choice[i]);
		s.nodes = 0;
		s.limit = s.p->max_nodes / n;
		v = value(&s, &c, root);
		if (v > bestv) {
			bestv = v;
			best = choice[i];
		}
	}
	return best;
}

int ludo_ai_choose_with(const struct ludo *st, int level, uint64_t seed, int budget_ms,
			const struct ludo_ai_params *p, struct gb_action *out)
{
	int choice[LUDO_TOKENS], n, rc = GB_OK, token;
	struct gb_rng rng;

	memset(out, 0, sizeof(*out));
	if (st->winner >= 0) {
		rc = GB_EOVER;
		goto out;
	}
	if (st->phase == LUDO_PHASE_ROLL) {
		out->kind = GB_ACT_ROLL;
		goto out;
	}
	if (level <= GB_LEVEL_RANDOM || level >= GB_LEVEL_COUNT) {
		rc = gb_ai_random_legal(ludo_legal, st, seed, out);
		goto out;
	}
	if (!p)
		p = ludo_ai_defaults(level);
	n = ludo_choices(st, st->die, choice);
	if (n == 0) {
		rc = GB_EOVER;  /* never in a sane state: a move phase has two choices */
		goto out;
	}
	/* the seed decides between equally good moves */
	gb_rng_seed(&rng, seed);
	gb_rng_shuffle(&rng, choice, (size_t)n);
	if (level == GB_LEVEL_EASY) {
		if ((int)gb_rng_below(&rng, 100) < p->easy_noise)
			token = choice[0];
		else
			token = easy_pick(st, choice, n);
	} else if (level == GB_LEVEL_MEDIUM) {
		token = greedy(st, choice, n, p);
	} else {
		token = hard_pick(st, choice, n, p, budget_ms);
	}
	out->kind = GB_ACT_MOVE;
	out->a = token;
out:
	return rc;
}

int ludo_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	return ludo_ai_choose_with(st, level, seed, budget_ms, NULL, out);
}
