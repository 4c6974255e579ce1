/*
 * callbreak_ai.c - computer players for Call Break: easy, medium and hard.
 *
 *   easy    a beginner: bids aces, half the kings and spades past four;
 *           plays the cheapest card that wins the trick as it stands, else
 *           throws its lowest card, and leads its side aces first.
 *   medium  a club player: bids by counting sure and likely tricks (aces,
 *           guarded kings, spade honours and length, short suits it can
 *           ruff); plays second hand low, third hand high, wins with the
 *           cheapest card no later player can beat (it keeps track of the
 *           cards gone and of what play proved each seat lacks), leads its
 *           masters in suits nobody can ruff, draws trumps when long in
 *           spades, and once its bid is made holds its high cards back to
 *           stop the seats that still need tricks.
 *   hard    determinized Monte Carlo on top of medium: the cards it cannot
 *           see are dealt many times, consistently with the view (hand
 *           sizes, cards gone, voids and every card play proved a seat
 *           lacks) and in proportion to how well each deal explains the
 *           bids and every card the other seats played this round, were
 *           they playing medium's rules (a Metropolis chain over card
 *           swaps finds those deals however rare they are); each candidate
 *           card is played out to the end of the round on every deal, its
 *           own later cards chosen by a network that learned the hard
 *           level's choices (callbreak_net.h; medium's rules when the
 *           compiled-in weights fail their checksum) and the other seats'
 *           by medium's rules, and the card with the best expected result
 *           wins (the bid is what counts, overtricks
 *           only a tenth, and the scores so far turn round results into
 *           chances of winning the game). It bids the same way: deals
 *           weighted by how well they explain the bids already made are
 *           played out for each candidate bid, and the bid with the best
 *           expected score, less a charge for the risk of failing, is made.
 *           Play-outs end exactly: once no hand holds more than two
 *           cards, the rest of the round on that deal is solved double
 *           dummy (every seat playing the card best for itself: the seat
 *           deciding by its chance of winning the game, each other seat by
 *           its own round score); with three cards or fewer in every hand,
 *           each candidate card is followed at once by that exact solution
 *           (a bid failed costs the whole bid, and with it the chance of
 *           winning the game, so the exact play keeps the bid first).
 *
 * Easy's and medium's rules are callbreak_medium.c's; the hard search and
 * its reading of the other seats are here.
 *
 * Guarantees: every level is handed only callbreak_view() of the seat to
 * move, never the state, so there is no other hand to read (the one way to
 * hand the search the true hands is callbreak_ai_play_oracle(), a
 * measurement no level calls: callbreak_oracle.h); pure and deterministic
 * from (view, level, seed, budget_ms): the hard level does a
 * fixed number of play-outs (a budget_ms below the default's 450 ms scales
 * them down in proportion) and never reads the clock, so a seed replays a
 * decision exactly, however loaded the machine. The default sizes keep a
 * decision far inside 500 ms. No allocation: play-outs run on small copies
 * on the stack.
 */
#include "callbreak_ai.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "ai.h"
#include "callbreak_oracle.h"

#define DEFAULT_BUDGET_MS 450 /* the budget the default search sizes are for: under 500 ms a decision */
#define MEDIUM_SHIFT 5        /* medium's bid_shift: how play-outs guess the bids to come */

/*
 * The levels, indexed by enum gb_level (random plays without them). Tuned by
 * arena runs against the level below and against variants of themselves.
 */
static const struct callbreak_ai_params level_params[GB_LEVEL_COUNT] = {
	[GB_LEVEL_EASY] = { .policy = CB_AI_EASY, .bid_shift = 5 },
	[GB_LEVEL_MEDIUM] = { .policy = CB_AI_MEDIUM, .bid_shift = MEDIUM_SHIFT, .void_guess = 1,
			      .draw_len = 5 },
	[GB_LEVEL_HARD] = { .policy = CB_AI_MEDIUM, .bid_shift = MEDIUM_SHIFT, .void_guess = 1,
			    .draw_len = 5, .dets = 600, .rollouts = 5000, .min_dets = 150,
			    .bid_deals = 800, .bid_sigma = 12, .play_sigma = 15, .model_eps = 25, .mcmc = 10,
			    .bid_risk = 300, .game_aware = 1, .game_sigma = 18, .dd_cards = 2, .dd_root = 3,
			    .net = 1 },
};

const struct callbreak_ai_params *callbreak_ai_defaults(int level)
{
	if (level < GB_LEVEL_EASY || level >= GB_LEVEL_COUNT)
		level = GB_LEVEL_MEDIUM;
	return &level_params[level];
}

#include "callbreak_sim.h"

/* ---- the last tricks, solved exactly ------------------------------------ */

static double outcome_value(const struct sim *s, const struct callbreak_view *v,
			    const struct callbreak_ai_params *p);

/*
 * What the end of the round is worth to seat q: to the seat deciding, what
 * outcome_value says; to every other seat its own round score (CB-16), so
 * that each plays to make its bid and then for overtricks.
 */
static double seat_value(const struct sim *s, const struct callbreak_view *v,
			 const struct callbreak_ai_params *p, int q)
{
	if (q == v->seat)
		return outcome_value(s, v, p);
	return callbreak_score(s->bid[q], s->tricks[q]);
}

/*
 * Double-dummy search of the rest of the round with every hand known: each
 * seat plays the card best for itself given that the others do the same
 * (max^n, ties to the first card found), and *s ends as the round would.
 * Cards of one hand with nothing between them in another hand or on the
 * table are the same card and tried once.
 */
static void solve(struct sim *s, const struct callbreak_view *v, const struct callbreak_ai_params *p)
{
	int me = sim_turn(s), prev = -1;
	uint64_t legal, others;
	struct sim best, t;
	double bestv = -1e300;

	if (!s->hand[me])
		return;
	legal = callbreak_legal_cards(s->hand[me], s->trick, s->n);
	others = s->table;
	for (int q = 0; q < CB_SEATS; q++)
		if (q != me)
			others |= s->hand[q];
	for (uint64_t x = legal; x; x &= x - 1) {
		int c = lowest(x);
		double val;

		if (prev >= 0 && CB_SUIT(prev) == CB_SUIT(c) && !(others & above(prev) & ~above(c) & ~CB_BIT(c))) {
			prev = c;
			continue;
		}
		prev = c;
		t = *s;
		sim_play(&t, c);
		solve(&t, v, p);
		val = seat_value(&t, v, p, me);
		if (val > bestv) {
			bestv = val;
			best = t;
		}
	}
	*s = best;
}

/*
 * Play the round out with the medium rules for every seat (or the play
 * networks, p->net), and once no hand holds more than `exact` cards, solve
 * the rest exactly (0: never); with p->value, in card play, end it early
 * by the networks' values (cb_net_finish()).
 */
static void rollout(struct sim *s, const struct callbreak_view *v, const struct callbreak_ai_params *p,
		    int exact)
{
	const struct callbreak_net *net = p->net || p->value ? callbreak_net_builtin() : NULL;
	const struct cbn_seer *seer = p->net & (v->phase == CB_PHASE_BID ? 32 : 16) ? callbreak_seer() : NULL;
	int bits = p->net | (v->phase == CB_PHASE_BID && (p->net & 8) ? 2 : 0);
	/* with a learned value: the round ends value - 1 tricks after this one */
	int stop = p->value > 0 && net && v->phase == CB_PHASE_PLAY ? popcount(s->hand[v->seat]) - (p->value - 1)
								    : -1;

	while (s->hand[sim_turn(s)]) {
		int q = sim_turn(s);
		uint64_t legal;

		if (exact > 0 && popcount(s->hand[0]) <= exact && popcount(s->hand[1]) <= exact &&
		    popcount(s->hand[2]) <= exact && popcount(s->hand[3]) <= exact) {
			solve(s, v, p);
			break;
		}
		if (s->n == 0 && popcount(s->hand[v->seat]) <= stop) {
			cb_net_finish(s, v, net);
			break;
		}
		legal = callbreak_legal_cards(s->hand[q], s->trick, s->n);
		if (seer && q == v->seat && popcount(legal) > 1)
			sim_play(s, cb_seer_card(s, v, seer, legal));
		else if (net && popcount(legal) > 1 && (bits & (q == v->seat ? 1 : 2)))
			sim_play(s, cb_net_card(s, v, q == v->seat || (p->net & 64) ? &net->own : &net->field, legal));
		else
			sim_play(s, cb_medium_card(s, p, legal));
	}
}

/* ---- the hard level ------------------------------------------------------- */

/*
 * What a finished play-out is worth to `me`. For a player that is not game
 * aware: the round score in points. For a game-aware one: its chance of
 * winning the game (callbreak_ai_game_chance) as 1000 times it, plus a
 * hundredth of the round score so that points still break ties.
 */
static double outcome_value(const struct sim *s, const struct callbreak_view *v,
			    const struct callbreak_ai_params *p)
{
	int me = v->seat, mine = callbreak_score(s->bid[me], s->tricks[me]);
	int left = v->rounds - v->round, score[CB_SEATS];

	for (int q = 0; q < CB_SEATS; q++)
		score[q] = v->total[q] + callbreak_score(s->bid[q], s->tricks[q]);
	if (p->game_aware && (left == 0 || p->game_sigma > 0))
		return 1000.0 * callbreak_ai_game_chance(p, score, me, left) + mine / 100.0;
	return mine / 10.0;
}

/*
 * How likely another seat's hand is to have made the bid it made: a bell
 * curve around the bid the medium count gives the hand.
 */
static double bid_weight(uint64_t hand, int bid, int sigma)
{
	double d = (callbreak_ai_count(hand, CB_AI_MEDIUM) - (bid * 10 - MEDIUM_SHIFT + 5)) / (double)sigma;

	return exp(-0.5 * d * d);
}

/*
 * How well a deal of the unseen cards explains the bids: in the first trick
 * the hands are those that were bid on (bid_sigma); later a seat that still
 * needs tricks is expected to hold about what it still needs (play_sigma).
 */
static double deal_weight(const struct callbreak_view *v, const struct callbreak_ai_params *p,
			  const uint64_t hand[CB_SEATS])
{
	double w = 1.0;

	for (int q = 0; q < CB_SEATS; q++) {
		if (q == v->seat || !v->bid[q])
			continue;
		if (v->gone == 0 && p->bid_sigma > 0) {
			uint64_t h = hand[q];

			for (int i = 0; i < v->ntrick; i++)
				if ((v->leader + i) % CB_SEATS == q)
					h |= CB_BIT(v->trick[i]);
			w *= bid_weight(h, v->bid[q], p->bid_sigma);
		} else if (v->gone != 0 && p->play_sigma > 0 && v->tricks[q] < v->bid[q]) {
			double d = (v->tricks[q] * 10 + callbreak_ai_count(hand[q], CB_AI_MEDIUM) -
				    (v->bid[q] * 10 - MEDIUM_SHIFT + 5)) / (double)p->play_sigma;

			w *= exp(-0.5 * d * d);
		}
	}
	return w;
}

/*
 * Who played each card of the round, from the first lead and the trick
 * winners, and the cards each seat played: the same for every deal of one
 * decision, so worked out once per decision.
 */
struct round_memory {
	int n;                    /* cards played this round */
	int who[CB_CARDS];
	uint64_t by[CB_SEATS];
};

static void round_memory(const struct callbreak_view *v, struct round_memory *m)
{
	int leader = (v->dealer + 1) % CB_SEATS, trick[CB_SEATS];

	memset(m, 0, sizeof(*m));
	m->n = v->phase == CB_PHASE_PLAY ? v->nplayed : 0;
	for (int i = 0; i < m->n; i++) {
		int k = i % CB_SEATS;

		trick[k] = v->played[i];
		m->who[i] = (leader + k) % CB_SEATS;
		m->by[m->who[i]] |= CB_BIT(v->played[i]);
		if (k == CB_SEATS - 1)
			leader = (leader + callbreak_trick_winner(trick, CB_SEATS)) % CB_SEATS;
	}
}

/*
 * How well a deal explains the cards the other seats played this round,
 * were they playing medium's rules: the deal plus the cards each seat
 * played give the hands the round began with, the round is replayed from
 * its first lead (with the bids made), and each card medium would not have
 * chosen, where it had a choice, multiplies the weight by model_eps
 * percent.
 */
static double play_weight(const struct callbreak_view *v, const struct callbreak_ai_params *p,
			  const struct round_memory *m, const uint64_t hand[CB_SEATS])
{
	struct sim s;
	double w = 1.0, eps = p->model_eps / 100.0;

	memset(&s, 0, sizeof(s));
	for (int q = 0; q < CB_SEATS; q++) {
		s.hand[q] = hand[q] | m->by[q];
		s.bid[q] = v->bid[q];
	}
	s.leader = (v->dealer + 1) % CB_SEATS;
	for (int i = 0; i < m->n; i++) {
		int q = m->who[i], c = v->played[i];
		uint64_t legal = callbreak_legal_cards(s.hand[q], s.trick, s.n);

		if (q != v->seat && popcount(legal) > 1 && cb_medium_card(&s, p, legal) != c)
			w *= eps;
		sim_play(&s, c);
	}
	return w;
}

/* What a deal is worth as a guess: deal_weight times, with model_eps, play_weight. */
static double deal_fit(const struct callbreak_view *v, const struct callbreak_ai_params *p,
		       const struct round_memory *m, const uint64_t hand[CB_SEATS])
{
	double w = deal_weight(v, p, hand);

	if (p->model_eps > 0)
		w *= play_weight(v, p, m, hand);
	return w;
}

/*
 * Deal the unseen cards for one play-out; returns the weight it counts with
 * (deal_fit), or -1 when no deal fits the view.
 */
static double draw_deal(const struct callbreak_view *v, const struct callbreak_ai_params *p,
			const struct round_memory *m, struct gb_rng *r, uint64_t hand[CB_SEATS])
{
	if (cb_deal_unseen(v, r, hand))
		return -1.0;
	return deal_fit(v, p, m, hand);
}

/*
 * Deals that explain the play, drawn by a Metropolis chain (params.mcmc >
 * 0): a deal of the unseen cards moves by swapping one card between two
 * other seats (never to a seat proven to lack it), and the move is kept with
 * chance min(1, w'/w) where w is deal_fit. After a
 * burn-in, every params.mcmc-th deal of the chain is one draw; each counts
 * alike. Where the other seats played as medium would, the deals the chain
 * visits are those in which they did, however rare among all deals.
 */
struct chain {
	uint64_t hand[CB_SEATS];
	double w;
	int others[CB_SEATS - 1];
	struct round_memory m;
};

static int nth_card(uint64_t m, uint32_t k)
{
	while (k--)
		m &= m - 1;
	return lowest(m);
}

static void chain_step(const struct callbreak_view *v, const struct callbreak_ai_params *p,
		       struct gb_rng *r, struct chain *c)
{
	int i = (int)gb_rng_below(r, CB_SEATS - 1), j = (int)gb_rng_below(r, CB_SEATS - 2);
	int a = c->others[i], b = c->others[j >= i ? j + 1 : j], x, y;
	uint64_t next[CB_SEATS];
	double w;

	if (!c->hand[a] || !c->hand[b])
		return;
	x = nth_card(c->hand[a], gb_rng_below(r, (uint32_t)popcount(c->hand[a])));
	y = nth_card(c->hand[b], gb_rng_below(r, (uint32_t)popcount(c->hand[b])));
	if ((v->lacks[b] & CB_BIT(x)) || (v->lacks[a] & CB_BIT(y)))
		return;
	memcpy(next, c->hand, sizeof(next));
	next[a] = (next[a] & ~CB_BIT(x)) | CB_BIT(y);
	next[b] = (next[b] & ~CB_BIT(y)) | CB_BIT(x);
	w = deal_fit(v, p, &c->m, next);
	if (w >= c->w || (double)(gb_rng_next(r) >> 11) * 0x1p-53 * c->w < w) {
		memcpy(c->hand, next, sizeof(next));
		c->w = w;
	}
}

/*
 * Start a chain (c->m already filled) from a random deal, or from the deal
 * `from` when not NULL (the oracle's measurement), and run its burn-in; -1
 * when no deal fits the view.
 */
static int chain_start(const struct callbreak_view *v, const struct callbreak_ai_params *p,
		       struct gb_rng *r, struct chain *c, const uint64_t *from)
{
	int k = 0;

	if (from)
		memcpy(c->hand, from, sizeof(c->hand));
	else if (cb_deal_unseen(v, r, c->hand))
		return -1;
	for (int q = 0; q < CB_SEATS; q++)
		if (q != v->seat)
			c->others[k++] = q;
	c->w = deal_fit(v, p, &c->m, c->hand);
	for (int t = 0; t < 10 * p->mcmc; t++)
		chain_step(v, p, r, c);
	return 0;
}

int callbreak_ai_deals(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
		       int n, uint64_t (*hands)[CB_SEATS])
{
	struct gb_rng r;
	struct chain c;

	gb_rng_seed(&r, seed);
	round_memory(v, &c.m);
	if (p->mcmc > 0 && chain_start(v, p, &r, &c, NULL))
		return GB_ESTATE;
	for (int d = 0; d < n; d++) {
		if (p->mcmc <= 0) {
			if (cb_deal_unseen(v, &r, hands[d]))
				return GB_ESTATE;
			continue;
		}
		for (int t = 0; t < p->mcmc; t++)
			chain_step(v, p, &r, &c);
		memcpy(hands[d], c.hand, sizeof(c.hand));
	}
	return GB_OK;
}

/*
 * value[] of callbreak_ai_play_values(): each candidate's mean sum[i] /
 * wsum, for it and for the legal cards of its suit above it with no live
 * card (live: the cards others may hold) between them.
 */
static void card_values(const struct callbreak_view *v, uint64_t live, const int *cand, const double *sum, int nc,
			double wsum, float *value)
{
	for (int i = 0; i < nc; i++)
		for (uint64_t x = v->legal & (CB_BIT(cand[i]) | above(cand[i])); x; x &= x - 1) {
			int c = lowest(x);

			if (CB_SUIT(c) == CB_SUIT(cand[i]) && !(live & above(cand[i]) & ~above(c) & ~CB_BIT(c)))
				value[c] = (float)(sum[i] / wsum);
		}
}

/*
 * The hard level's card. truth (a measurement, callbreak_oracle.h; NULL at
 * every level) is the true hands: searched alone, or with `chain` only as
 * the start of the chain of deals.
 */
static int hard_card(const struct callbreak_view *v, const struct callbreak_ai_params *p,
		     struct gb_rng *r, const uint64_t *truth, bool chain, float *value)
{
	struct sim base, s0, s;
	uint64_t live = CB_DECK & ~v->hand & ~v->gone, hand[CB_SEATS];
	int cand[CB_RANKS], nc = 0, dets, prev = -1, exact = p->dd_cards, most = 0;
	double sum[CB_RANKS] = { 0 }, prior[CB_RANKS] = { 0 }, w, wsum = 0.0;
	const struct callbreak_net *net = (p->prior || p->prune) ? callbreak_net_builtin() : NULL;
	struct chain ch;

	/* few cards left: the rest is solved exactly from this card on */
	for (int q = 0; q < CB_SEATS; q++)
		most = v->held[q] > most ? v->held[q] : most;
	if (most <= p->dd_root)
		exact = most;

	/* cards with nothing live between them are the same card: keep the lowest */
	for (uint64_t x = v->legal; x; x &= x - 1) {
		int c = lowest(x);

		if (prev >= 0 && CB_SUIT(prev) == CB_SUIT(c) &&
		    !(live & above(prev) & ~above(c) & ~CB_BIT(c))) {
			prev = c;
			continue;
		}
		cand[nc++] = c;
		prev = c;
	}
	if (nc == 1)
		return cand[0];
	sim_from_view(v, &base);
	if (net) {
		cb_net_prior(&base, v, &net->own, cand, nc, prior);
		if (p->prune > 0 && nc > p->prune)
			nc = cb_net_prune(cand, prior, nc, p->prune);
		if (nc == 1)
			return cand[0];
	}
	dets = p->rollouts / nc;
	if (dets < p->min_dets)
		dets = p->min_dets;
	if (dets > p->dets)
		dets = p->dets;
	if (truth && !chain) {
		dets = 1; /* the one true deal */
	} else {
		/* a measurement: the chain of deals starts from the true one, so
		 * that it never has to find the deals that explain the play */
		const uint64_t *from = truth;

		truth = NULL;
		round_memory(v, &ch.m);
		if (p->mcmc > 0 && chain_start(v, p, r, &ch, from))
			dets = 0;
	}
	for (int d = 0; d < dets; d++) {
		if (truth) {
			memcpy(hand, truth, sizeof(hand));
			w = 1.0;
		} else if (p->mcmc > 0) {
			for (int t = 0; t < p->mcmc; t++)
				chain_step(v, p, r, &ch);
			memcpy(hand, ch.hand, sizeof(hand));
			w = 1.0;
		} else if ((w = draw_deal(v, p, &ch.m, r, hand)) < 0) {
			break;
		}
		s0 = base;
		memcpy(s0.hand, hand, sizeof(hand));
		for (int i = 0; i < nc; i++) {
			s = s0;
			sim_play(&s, cand[i]);
			rollout(&s, v, p, exact);
			sum[i] += w * outcome_value(&s, v, p);
		}
		wsum += w;
	}
	if (net && p->prior && wsum > 0)
		for (int i = 0; i < nc; i++)
			sum[i] += wsum * p->prior / 10.0 * log(prior[i] > 1e-6 ? prior[i] : 1e-6);
	if (value && wsum > 0)
		card_values(v, live, cand, sum, nc, wsum, value);
	prev = 0;
	for (int i = 1; i < nc; i++)
		if (sum[i] > sum[prev])
			prev = i;
	return cand[prev];
}

/* The hard level's bid; truth as for hard_card(), searched alone. */
static int hard_bid(const struct callbreak_view *v, const struct callbreak_ai_params *p,
		    struct gb_rng *r, const uint64_t *truth)
{
	int me = v->seat, b0 = cb_count_bid(v->hand, CB_AI_MEDIUM, MEDIUM_SHIFT), lo, hi, best = b0;
	double val[CB_MAX_BID + 1] = { 0 }, wsum = 0, bestv = -1e30;
	struct round_memory m;

	const struct callbreak_net *net = p->net_bid ? callbreak_net_builtin() : NULL;
	double pt[CBN_BID_OUT];

	round_memory(v, &m);
	/* candidate bids around the count; each is played out on the same deals */
	lo = cb_clamp_bid(b0 - 2);
	hi = cb_clamp_bid(b0 + 2);
	/* with the bid network, the own tricks are its distribution */
	if (net) {
		struct cbn_feat f;

		callbreak_ai_bid_features(v, &f);
		callbreak_net_bid(net, &f, pt);
	}
	for (int d = 0, deals = truth ? 1 : p->bid_deals; d < deals; d++) {
		uint64_t hand[CB_SEATS];
		struct sim s0, s;
		double w = 1.0;

		if (truth)
			memcpy(hand, truth, sizeof(hand));
		else if ((w = draw_deal(v, p, &m, r, hand)) < 0)
			break;
		memset(&s0, 0, sizeof(s0));
		memcpy(s0.hand, hand, sizeof(hand));
		s0.leader = (v->dealer + 1) % CB_SEATS;
		for (int q = 0; q < CB_SEATS; q++)
			if (q != me)
				s0.bid[q] = v->bid[q] ? v->bid[q]
						      : cb_count_bid(hand[q], CB_AI_MEDIUM, MEDIUM_SHIFT);
		wsum += w;
		for (int b = lo; b <= hi; b++) {
			double u;

			s = s0;
			s.bid[me] = b;
			rollout(&s, v, p, p->dd_cards);
			if (d % 10 < p->bid_lift && s.tricks[me] < CB_RANKS)
				s.tricks[me]++;
			if (net) {
				/* the other seats as played out, the own tricks as learned */
				u = 0.0;
				for (int t = 0; t < CBN_BID_OUT; t++) {
					s.tricks[me] = t;
					u += pt[t] * (outcome_value(&s, v, p) - (t < b ? p->bid_risk / 10.0 : 0.0));
				}
			} else {
				u = outcome_value(&s, v, p);
				if (s.tricks[me] < b)
					u -= p->bid_risk / 10.0;
			}
			val[b] += w * u;
		}
	}
	if (wsum <= 0)
		return b0;
	for (int b = lo; b <= hi; b++)
		if (val[b] > bestv) {
			bestv = val[b];
			best = b;
		}
	return best;
}

/* ---- entry points ------------------------------------------------------------ */

/* A search size n cut to a budget of budget_ms out of the default's (never below 1 when n is not 0). */
static int scale(int n, int budget_ms)
{
	long k = (long)n * budget_ms / DEFAULT_BUDGET_MS;

	return n > 0 && k < 1 ? 1 : (int)k;
}

/*
 * callbreak_ai_play(), and with hand non-NULL the measurement of
 * callbreak_ai_play_oracle().
 */
static int play(const struct callbreak_view *v, const struct callbreak_ai_params *p, int oracle,
		const uint64_t *hand, uint64_t seed, int budget_ms, struct gb_action *out, float *value)
{
	struct gb_rng r;
	struct sim s;
	int rc = GB_OK;
	struct callbreak_ai_params scaled;

	if (budget_ms > 0 && budget_ms < DEFAULT_BUDGET_MS) {
		/* a smaller budget than the default searches proportionally fewer
		 * deals: deterministic for a given budget_ms, the clock is never read */
		scaled = *p;
		scaled.dets = scale(p->dets, budget_ms);
		scaled.rollouts = scale(p->rollouts, budget_ms);
		scaled.min_dets = scale(p->min_dets, budget_ms);
		scaled.bid_deals = scale(p->bid_deals, budget_ms);
		p = &scaled;
	}

	memset(out, 0, sizeof(*out));
	gb_rng_seed(&r, seed);
	switch (v->phase) {
	case CB_PHASE_ROUND_OVER:
		out->kind = GB_ACT_NEXT;
		break;
	case CB_PHASE_BID:
		out->kind = GB_ACT_BID;
		if (p->bid_deals > 0)
			out->a = hard_bid(v, p, &r, hand && (oracle & CB_ORACLE_BIDS) ? hand : NULL);
		else if (p->net_bid && callbreak_net_builtin())
			out->a = cb_net_bid_alone(v, p);
		else
			out->a = cb_count_bid(v->hand, p->policy, p->bid_shift);
		break;
	case CB_PHASE_PLAY:
		out->kind = GB_ACT_PLAY;
		if (p->dets > 0) {
			out->a = hard_card(v, p, &r,
					   hand && (oracle & (CB_ORACLE_CARDS | CB_ORACLE_CHAIN)) ? hand : NULL,
					   oracle & CB_ORACLE_CHAIN, value);
		} else {
			const struct callbreak_net *net = (p->net & 4) ? callbreak_net_builtin() : NULL;

			sim_from_view(v, &s);
			out->a = net && popcount(v->legal) > 1 ? cb_net_card(&s, v, &net->own, v->legal) : cb_policy_card(&s, p);
		}
		break;
	default:
		rc = GB_EOVER;
		break;
	}
	return rc;
}

int callbreak_ai_play(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
		      int budget_ms, struct gb_action *out)
{
	return play(v, p, 0, NULL, seed, budget_ms, out, NULL);
}

int callbreak_ai_play_values(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
			     int budget_ms, struct gb_action *out, float value[CB_CARDS])
{
	for (int c = 0; c < CB_CARDS; c++)
		value[c] = NAN;
	return play(v, p, 0, NULL, seed, budget_ms, out, value);
}

int callbreak_ai_play_oracle(const struct callbreak_view *v, const struct callbreak_ai_params *p, int oracle,
			     const uint64_t hand[CB_SEATS], uint64_t seed, int budget_ms, struct gb_action *out)
{
	return play(v, p, oracle, hand, seed, budget_ms, out, NULL);
}

/*
 * The random level from the view: the legal actions listed in the rules
 * core's order (callbreak_game's legal()) and one of them drawn as
 * gb_ai_random() draws it, so that it plays as gb_ai_random() on the state.
 */
static int random_action(const struct callbreak_view *v, uint64_t seed, struct gb_action *out)
{
	struct gb_action acts[CB_RANKS]; /* 13 cards at most, or 8 bids */
	struct gb_rng rng;
	int n = 0;

	switch (v->phase) {
	case CB_PHASE_BID:
		for (int b = CB_MIN_BID; b <= CB_MAX_BID; b++)
			acts[n++] = (struct gb_action){ GB_ACT_BID, b, 0, 0 };
		break;
	case CB_PHASE_PLAY:
		for (uint64_t x = v->legal; x; x &= x - 1)
			acts[n++] = (struct gb_action){ GB_ACT_PLAY, lowest(x), 0, 0 };
		break;
	case CB_PHASE_ROUND_OVER:
		acts[n++] = (struct gb_action){ GB_ACT_NEXT, 0, 0, 0 };
		break;
	default:
		break;
	}
	if (n == 0)
		return GB_EOVER;
	gb_rng_seed(&rng, seed);
	*out = acts[gb_rng_below(&rng, (uint32_t)n)];
	return GB_OK;
}

int callbreak_ai_choose(const struct callbreak_view *v, int level, uint64_t seed, int budget_ms,
			struct gb_action *out)
{
	if (level <= GB_LEVEL_RANDOM || level >= GB_LEVEL_COUNT)
		return random_action(v, seed, out);
	return callbreak_ai_play(v, callbreak_ai_defaults(level), seed, budget_ms, out);
}
