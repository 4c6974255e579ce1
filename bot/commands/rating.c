/*
 * rating.c - Glicko-2 ratings for online tables, and the pick of who plays
 * whom from the waiting queue. The steps follow rating.h's account of
 * Glickman's paper; the names (mu, phi, v, delta) are the paper's.
 */
#include "rating.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* A rating anything can be computed from: rating.h's reading of bad values. */
static struct glicko clean(struct glicko p)
{
	if (!isfinite(p.r))
		p.r = GLICKO_NEW.r;
	if (!isfinite(p.rd) || p.rd <= 0)
		p.rd = GLICKO_NEW.rd;
	if (p.rd > GLICKO_MAX_RD)
		p.rd = GLICKO_MAX_RD;
	if (!isfinite(p.sigma) || p.sigma <= 0)
		p.sigma = GLICKO_NEW.sigma;
	if (p.games < 0)
		p.games = 0;
	return p;
}

/* g(phi): how much an opponent's uncertainty dulls what a game against them says. */
static double g_of(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* The paper's f(x), whose root x = ln(sigma'^2) is the new volatility. */
struct vol {
	double delta2, phi2, v, a, tau;
};

static double vol_f(const struct vol *k, double x)
{
	double ex = exp(x);
	double d = k->phi2 + k->v + ex;

	return ex * (k->delta2 - k->phi2 - k->v - ex) / (2.0 * d * d) - (x - k->a) / (k->tau * k->tau);
}

/* The new volatility: the root of f bracketed and closed by the Illinois algorithm. */
static double new_sigma(const struct vol *k)
{
	double A = k->a, B;

	if (k->delta2 > k->phi2 + k->v) {
		B = log(k->delta2 - k->phi2 - k->v);
	} else {
		int m = 1;

		while (m < GLICKO_MAX_ITER && vol_f(k, k->a - m * k->tau) < 0)
			m++;
		B = k->a - m * k->tau;
	}
	double fA = vol_f(k, A), fB = vol_f(k, B);

	for (int it = 0; it < GLICKO_MAX_ITER && fabs(B - A) > GLICKO_EPSILON; it++) {
		if (fB == fA)
			break;
		double C = A + (A - B) * fA / (fB - fA);
		double fC = vol_f(k, C);

		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else {
			fA /= 2.0;
		}
		B = C;
		fB = fC;
	}
	return exp(A / 2.0);
}

/* games + n, held within int. */
static int add_games(int games, int n)
{
	return games > INT_MAX - n ? INT_MAX : games + n;
}

/* Only RD grows (a period without informative games); phi* capped at a new player's. */
static void idle_period(struct glicko *p, double sigma)
{
	double phi = p->rd / GLICKO_SCALE;
	double phi_star = sqrt(phi * phi + sigma * sigma);

	p->rd = fmin(phi_star * GLICKO_SCALE, GLICKO_MAX_RD);
}

void glicko_update(struct glicko *p, const struct glicko_game *g, int n, double tau)
{
	if (!p)
		return;
	if (n < 0 || !g)
		n = 0;
	if (!isfinite(tau) || tau <= 0)
		tau = GLICKO_TAU;
	struct glicko me = clean(*p);
	double mu = (me.r - 1500.0) / GLICKO_SCALE, phi = me.rd / GLICKO_SCALE;
	double inv_v = 0, sum = 0;

	for (int j = 0; j < n; j++) {
		struct glicko o = clean(g[j].opp);
		double s = g[j].score;
		double mu_j = (o.r - 1500.0) / GLICKO_SCALE, g_j = g_of(o.rd / GLICKO_SCALE);
		double e = 1.0 / (1.0 + exp(-g_j * (mu - mu_j)));

		s = isfinite(s) ? fmin(fmax(s, 0.0), 1.0) : 0.5;
		inv_v += g_j * g_j * e * (1.0 - e);
		sum += g_j * (s - e);
	}
	struct glicko out = me;

	out.games = add_games(me.games, n);
	if (!(inv_v > 0)) {
		/* No games, or only games whose outcome was certain. */
		idle_period(&out, me.sigma);
		*p = out;
		return;
	}
	double v = 1.0 / inv_v;
	struct vol k = { v * sum * v * sum, phi * phi, v, log(me.sigma * me.sigma), tau };
	double sigma = new_sigma(&k);
	double phi_star = fmin(sqrt(phi * phi + sigma * sigma), GLICKO_MAX_RD / GLICKO_SCALE);
	double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + inv_v);
	double mu_new = mu + phi_new * phi_new * sum;

	out.r = 1500.0 + GLICKO_SCALE * mu_new;
	out.rd = GLICKO_SCALE * phi_new;
	out.sigma = sigma;
	if (!isfinite(out.r) || !isfinite(out.rd) || !(out.rd > 0) || !isfinite(out.sigma) ||
	    !(out.sigma > 0)) {
		/* Extreme input the step cannot carry: keep the rating, count the games. */
		out = me;
		out.games = add_games(me.games, n);
	}
	*p = out;
}

/* The fixed order a person's games are summed in: rating.h's glicko_table(). */
static int game_cmp(const struct glicko_game *a, const struct glicko_game *b)
{
	if (a->opp.r != b->opp.r)
		return a->opp.r < b->opp.r ? -1 : 1;
	if (a->opp.rd != b->opp.rd)
		return a->opp.rd < b->opp.rd ? -1 : 1;
	if (a->opp.sigma != b->opp.sigma)
		return a->opp.sigma < b->opp.sigma ? -1 : 1;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return 0;
}

/* Insertion sort: at most GLICKO_TABLE_MAX - 1 games. */
static void sort_games(struct glicko_game *g, int n)
{
	for (int i = 1; i < n; i++) {
		struct glicko_game x = g[i];
		int j = i;

		for (; j > 0 && game_cmp(&g[j - 1], &x) > 0; j--)
			g[j] = g[j - 1];
		g[j] = x;
	}
}

void glicko_table(struct glicko *seat, const int *rank, const bool *person, int n, double tau)
{
	struct glicko before[GLICKO_TABLE_MAX];

	if (!seat || !rank || !person || n < 1 || n > GLICKO_TABLE_MAX)
		return;
	for (int i = 0; i < n; i++)
		before[i] = clean(seat[i]);
	for (int i = 0; i < n; i++) {
		struct glicko_game games[GLICKO_TABLE_MAX];
		int k = 0;

		if (!person[i])
			continue;
		for (int j = 0; j < n; j++) {
			if (j == i || !person[j])
				continue;
			games[k].opp = before[j];
			games[k].score = rank[i] < rank[j] ? 1.0 : rank[i] == rank[j] ? 0.5 : 0.0;
			k++;
		}
		if (k == 0)
			continue;
		sort_games(games, k);
		seat[i] = before[i];
		glicko_update(&seat[i], games, k, tau);
	}
}

bool glicko_provisional(const struct glicko *p)
{
	return p && !(p->rd <= GLICKO_PROVISIONAL_RD);
}

double match_window(int64_t waited_ms)
{
	if (waited_ms >= MATCH_WINDOW_OPEN_MS)
		return INFINITY;
	if (waited_ms < 0)
		waited_ms = 0;
	return MATCH_WINDOW_START + MATCH_WINDOW_STEP * (double)(waited_ms / MATCH_WINDOW_STEP_MS);
}

/* A person the table could take, and how far their rating is from the anchor's. */
struct cand {
	int idx;
	double d;
	int64_t waited_ms;
};

/* Closest first; then the longer wait; then the lower index. */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	if (a->waited_ms != b->waited_ms)
		return a->waited_ms > b->waited_ms ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The search for the rest of the table among the candidates, in their order. */
struct search {
	const struct cand *c;
	int m, need;
	match_blocked_fn blocked;
	void *ctx;
	long steps;
	int chosen[MATCH_SEATS_MAX];
};

/* Fill chosen[depth..need) from c[from..m); false when nothing completes the table. */
static bool fill(struct search *s, int from, int depth)
{
	if (depth == s->need)
		return true;
	for (int i = from; i <= s->m - (s->need - depth); i++) {
		bool ok = true;

		if (++s->steps > MATCH_SEARCH_LIMIT)
			return false;
		for (int k = 0; ok && k < depth && s->blocked; k++)
			ok = !s->blocked(s->ctx, s->c[s->chosen[k]].idx, s->c[i].idx);
		if (!ok)
			continue;
		s->chosen[depth] = i;
		if (fill(s, i + 1, depth + 1))
			return true;
		if (s->steps > MATCH_SEARCH_LIMIT)
			return false;
	}
	return false;
}

int match_pick_from(const struct match_entry *q, int n, int seats, int anchor,
		    match_blocked_fn blocked, void *ctx, int *out)
{
	if (!q || !out || seats < 1 || seats > MATCH_SEATS_MAX || n < seats || anchor < 0 ||
	    anchor >= n)
		return 0;
	struct cand *c = malloc((size_t)n * sizeof *c);

	if (!c)
		return 0;
	double w = match_window(q[anchor].waited_ms);
	int m = 0;

	for (int j = 0; j < n; j++) {
		double d = fabs(q[j].r - q[anchor].r);

		if (j == anchor)
			continue;
		if (!isfinite(d))
			d = INFINITY; /* a rating that is no number: only once the window is open */
		if (!(d <= w) || (blocked && blocked(ctx, anchor, j)))
			continue;
		c[m++] = (struct cand){ j, d, q[j].waited_ms };
	}
	qsort(c, (size_t)m, sizeof *c, cand_cmp);
	struct search s = { c, m, seats - 1, blocked, ctx, 0, { 0 } };
	int got = 0;

	if (m >= s.need && fill(&s, 0, 0)) {
		out[0] = anchor;
		for (int k = 0; k < s.need; k++)
			out[k + 1] = c[s.chosen[k]].idx;
		got = seats;
	}
	free(c);
	return got;
}

int match_pick(const struct match_entry *q, int n, int seats, match_blocked_fn blocked, void *ctx,
	       int *out)
{
	int anchor = 0;

	if (!q || n < 1)
		return 0;
	for (int i = 1; i < n; i++)
		if (q[i].waited_ms > q[anchor].waited_ms)
			anchor = i;
	return match_pick_from(q, n, seats, anchor, blocked, ctx, out);
}
