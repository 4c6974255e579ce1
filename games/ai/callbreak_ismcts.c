/*
 * callbreak_ismcts.c - information-set Monte Carlo tree search for Call
 * Break, the single-observer variant as published (Cowling, Powley and
 * Whitehouse, IEEE TCIAIG 2012), for bidding and play: the reference
 * opponent `gamebot arena` measures the computer players against.
 *
 * One tree over the information sets of the seat to move: a node is the
 * sequence of public actions (bids and cards) since the decision, so every
 * deal of the hidden cards shares it. Each iteration:
 *   1. determinize: deal the cards the seat cannot see at random,
 *      consistently with its view (hand sizes, cards gone, everything play
 *      proved a seat lacks; callbreak_ai_deal);
 *   2. select: from the root, while every action legal in this deal has a
 *      child, take the child maximising UCB1 with availability counts,
 *          mean reward + k * sqrt(ln(times available) / visits),
 *      among the children legal in this deal (each of those counts one more
 *      availability);
 *   3. expand: one untried action legal in this deal, chosen at random;
 *   4. simulate: uniformly random legal actions (random bids for the seats
 *      still to bid) to the end of the round;
 *   5. back-propagate: every node on the path adds the reward of the seat
 *      that took its action.
 * The reward is the round score of that seat (CB-16) mapped onto [0, 1]
 * (-8 points to 0, +8.5 to 1), with the paper's k = 0.7. The action played
 * is the most visited child of the root.
 *
 * It is handed only callbreak_view() of the seat to move, never the state;
 * deterministic from (view, iterations, seed). The tree (one node per iteration at most) is
 * allocated for the call and freed before it returns.
 */
#include "callbreak_ismcts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../callbreak.h"
#include "callbreak_ai.h"

#define UCB_K 0.7
#define BID_BIT(b) (UINT64_C(1) << (CB_CARDS - 1 + (b))) /* actions: cards 0..51, bids as bits 52..59 */
#define ALL_BIDS (((UINT64_C(1) << CB_MAX_BID) - 1) << CB_CARDS)

/* A round as the search plays it: every hand filled in by the determinization. */
struct rnd {
	uint64_t hand[CB_SEATS];
	int bid[CB_SEATS], tricks[CB_SEATS];
	int dealer, nbids, leader, n, trick[CB_SEATS];
};

/* A node: the action that led to it (a bit number), who took it, its statistics. */
struct node {
	int32_t child, sibling;   /* first child, next sibling; -1 none */
	uint32_t visits, avail;
	double reward;            /* summed rewards of `seat` */
	int8_t action, seat;
};

static int rnd_turn(const struct rnd *s)
{
	if (s->nbids < CB_SEATS)
		return (s->dealer + 1 + s->nbids) % CB_SEATS;
	return (s->leader + s->n) % CB_SEATS;
}

static bool rnd_over(const struct rnd *s)
{
	return s->nbids == CB_SEATS && !(s->hand[0] | s->hand[1] | s->hand[2] | s->hand[3]);
}

/* The legal actions as a set of action bits. */
static uint64_t rnd_legal(const struct rnd *s)
{
	if (s->nbids < CB_SEATS)
		return ALL_BIDS;
	return callbreak_legal_cards(s->hand[rnd_turn(s)], s->trick, s->n);
}

static void rnd_apply(struct rnd *s, int a)
{
	int seat = rnd_turn(s);

	if (a >= CB_CARDS) {
		s->bid[seat] = a - (CB_CARDS - 1);
		s->nbids++;
		return;
	}
	s->hand[seat] &= ~CB_BIT(a);
	s->trick[s->n++] = a;
	if (s->n == CB_SEATS) {
		s->leader = (s->leader + callbreak_trick_winner(s->trick, CB_SEATS)) % CB_SEATS;
		s->tricks[s->leader]++;
		s->n = 0;
	}
}

static void rnd_from_view(const struct callbreak_view *v, const uint64_t hand[CB_SEATS], struct rnd *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->hand, hand, sizeof(s->hand));
	s->dealer = v->dealer;
	for (int q = 0; q < CB_SEATS; q++) {
		s->bid[q] = v->bid[q];
		s->tricks[q] = v->tricks[q];
		s->nbids += v->bid[q] != 0;
	}
	s->leader = v->phase == CB_PHASE_PLAY ? v->leader : (v->dealer + 1) % CB_SEATS;
	s->n = v->phase == CB_PHASE_PLAY ? v->ntrick : 0;
	for (int i = 0; i < s->n; i++)
		s->trick[i] = v->trick[i];
}

static int nth_bit(uint64_t m, uint32_t k)
{
	while (k--)
		m &= m - 1;
	return __builtin_ctzll(m);
}

static int random_bit(uint64_t m, struct gb_rng *r)
{
	return nth_bit(m, gb_rng_below(r, (uint32_t)__builtin_popcountll(m)));
}

/* The round score of a seat mapped onto [0, 1]. */
static double reward(const struct rnd *s, int q)
{
	double x = (callbreak_score(s->bid[q], s->tricks[q]) / 10.0 + 8.0) / 16.5;

	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/*
 * Select among the children of `v` legal in this deal (all of them have
 * been tried): each counts one more availability, the best UCB1 wins.
 */
static int32_t select_child(struct node *t, int32_t v, uint64_t legal)
{
	int32_t best = -1;
	double bestu = -1.0;

	for (int32_t c = t[v].child; c >= 0; c = t[c].sibling) {
		double u;

		if (!(legal & (UINT64_C(1) << t[c].action)))
			continue;
		t[c].avail++;
		u = t[c].reward / t[c].visits + UCB_K * sqrt(log((double)t[c].avail) / t[c].visits);
		if (u > bestu) {
			bestu = u;
			best = c;
		}
	}
	return best;
}

/* One iteration on one deal; `nodes` is the tree's size, grown by at most one. */
static void iterate(struct node *t, int32_t *nodes, const struct rnd *root, struct gb_rng *r)
{
	struct rnd s = *root;
	int32_t path[CB_SEATS + CB_CARDS + 1], np = 0, v = 0;

	while (!rnd_over(&s)) {
		uint64_t legal = rnd_legal(&s), tried = 0;

		for (int32_t c = t[v].child; c >= 0; c = t[c].sibling)
			tried |= UINT64_C(1) << t[c].action;
		if (legal & ~tried) {
			int32_t u = (*nodes)++;
			int a = random_bit(legal & ~tried, r);

			t[u] = (struct node){ .child = -1, .sibling = t[v].child, .action = (int8_t)a,
					      .seat = (int8_t)rnd_turn(&s) };
			t[v].child = u;
			for (int32_t c = t[u].sibling; c >= 0; c = t[c].sibling)
				t[c].avail += (legal >> t[c].action) & 1;
			t[u].avail = 1;
			rnd_apply(&s, a);
			path[np++] = u;
			break;
		}
		v = select_child(t, v, legal);
		rnd_apply(&s, t[v].action);
		path[np++] = v;
	}
	while (!rnd_over(&s))
		rnd_apply(&s, random_bit(rnd_legal(&s), r));
	for (int i = 0; i < np; i++) {
		t[path[i]].visits++;
		t[path[i]].reward += reward(&s, t[path[i]].seat);
	}
}

/* The search proper: the most visited action after `iterations` iterations. */
static int search(const struct callbreak_view *v, int iterations, struct gb_rng *r, int *action)
{
	struct node *t = malloc((size_t)(iterations + 1) * sizeof(*t));
	int32_t nodes = 1, best = -1;
	int rc = GB_OK;

	if (!t) {
		rc = GB_ENOMEM;
		goto out;
	}
	t[0] = (struct node){ .child = -1, .sibling = -1, .action = -1, .seat = -1 };
	if (v->phase == CB_PHASE_PLAY && __builtin_popcountll(v->legal) == 1) {
		*action = __builtin_ctzll(v->legal); /* nothing to search */
		goto out;
	}
	for (int i = 0; i < iterations; i++) {
		uint64_t hand[CB_SEATS];
		struct rnd root;

		rc = callbreak_ai_deal(v, gb_rng_next(r), hand);
		if (rc)
			goto out;
		rnd_from_view(v, hand, &root);
		iterate(t, &nodes, &root, r);
	}
	for (int32_t c = t[0].child; c >= 0; c = t[c].sibling)
		if (best < 0 || t[c].visits > t[best].visits)
			best = c;
	*action = t[best].action;
out:
	free(t);
	return rc;
}

int callbreak_ismcts_choose(const struct callbreak_view *v, int iterations, uint64_t seed,
			    struct gb_action *out)
{
	struct gb_rng r;
	int rc = GB_OK, a = 0;

	memset(out, 0, sizeof(*out));
	gb_rng_seed(&r, seed);
	if (iterations <= 0)
		iterations = CB_ISMCTS_BUDGET;
	if (iterations > CB_ISMCTS_MAX_BUDGET)
		iterations = CB_ISMCTS_MAX_BUDGET;
	switch (v->phase) {
	case CB_PHASE_ROUND_OVER:
		out->kind = GB_ACT_NEXT;
		break;
	case CB_PHASE_BID:
	case CB_PHASE_PLAY:
		rc = search(v, iterations, &r, &a);
		if (rc)
			break;
		out->kind = a >= CB_CARDS ? GB_ACT_BID : GB_ACT_PLAY;
		out->a = a >= CB_CARDS ? a - (CB_CARDS - 1) : a;
		break;
	default:
		rc = GB_EOVER;
		break;
	}
	return rc;
}
