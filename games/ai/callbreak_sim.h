/*
 * callbreak_sim.h - what the files of the Call Break computer players
 * share, inside games/ai/ only: cards as bits, `struct sim` (one round in
 * progress, as the play-outs and the card rules see it) and its moves, and
 * the few functions one file of the players gives the others.
 *
 *   callbreak_ai.c       the levels, the card rules and the hard search
 *   callbreak_deal.c     dealing the cards a seat does not see
 *   callbreak_learned.c  the learned networks' inputs and choices
 *
 * Everything here reads a view or a sim, never the state (callbreak_ai.h).
 */
#ifndef GB_CALLBREAK_SIM_H
#define GB_CALLBREAK_SIM_H

#include <stdint.h>
#include <string.h>

#include "../rng.h"
#include "callbreak_ai.h"

#define SPADES_MASK CB_SUIT_MASK(CB_SPADES)

/* ---- cards as bits --------------------------------------------------------- */

static inline int popcount(uint64_t m)
{
	return __builtin_popcountll(m);
}

static inline int lowest(uint64_t m)
{
	return __builtin_ctzll(m);
}

static inline int highest(uint64_t m)
{
	return 63 - __builtin_clzll(m);
}

/* The cards of c's suit ranked above c. */
static inline uint64_t above(int c)
{
	return CB_SUIT_MASK(CB_SUIT(c)) & ~((UINT64_C(2) << c) - 1);
}

/* ---- the round as the players see it ------------------------------------ */

/*
 * One round in progress. In a play-out every hand is filled in (one deal of
 * the unseen cards); for a decision at the table only the hand of the seat to
 * move is, and the card rules below read no other hand.
 */
struct sim {
	uint64_t hand[CB_SEATS];
	uint64_t gone;             /* cards of completed tricks */
	uint64_t table;            /* cards of the trick in progress */
	uint64_t lacks[CB_SEATS];  /* cards play proved each seat does not hold */
	int bid[CB_SEATS], tricks[CB_SEATS];
	int leader, n;             /* who led the trick in progress, its cards so far */
	int trick[CB_SEATS];
};

static inline void sim_from_view(const struct callbreak_view *v, struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->hand[v->seat] = v->hand;
	s->gone = v->gone;
	for (int q = 0; q < CB_SEATS; q++) {
		s->lacks[q] = v->lacks[q];
		s->bid[q] = v->bid[q];
		s->tricks[q] = v->tricks[q];
	}
	s->leader = v->leader;
	s->n = v->phase == CB_PHASE_PLAY ? v->ntrick : 0;
	for (int i = 0; i < s->n; i++) {
		s->trick[i] = v->trick[i];
		s->table |= CB_BIT(v->trick[i]);
	}
}

static inline int sim_turn(const struct sim *s)
{
	return (s->leader + s->n) % CB_SEATS;
}

/*
 * What a card proves about the hand it came from: the same inference as the
 * rules core's, from the same four play rules (CB-9), so that play-outs know
 * what the table would know.
 */
static inline void sim_infer(struct sim *s, int seat, int c)
{
	int led, high = -1, trump = -1;

	if (s->n == 0)
		return;
	led = CB_SUIT(s->trick[0]);
	for (int i = 0; i < s->n; i++) {
		int t = s->trick[i];

		if (CB_SUIT(t) == led) {
			if (CB_RANK(t) > high)
				high = CB_RANK(t);
		} else if (CB_SUIT(t) == CB_SPADES && CB_RANK(t) > trump) {
			trump = CB_RANK(t);
		}
	}
	if (CB_SUIT(c) == led) {
		if (trump < 0 && CB_RANK(c) < high)
			s->lacks[seat] |= above(CB_CARD(led, high));
		return;
	}
	s->lacks[seat] |= CB_SUIT_MASK(led);
	if (CB_SUIT(c) == CB_SPADES) {
		if (trump >= 0 && CB_RANK(c) < trump)
			s->lacks[seat] |= above(CB_CARD(CB_SPADES, trump));
	} else if (trump < 0) {
		s->lacks[seat] |= SPADES_MASK;
	} else {
		s->lacks[seat] |= above(CB_CARD(CB_SPADES, trump));
	}
}

static inline void sim_play(struct sim *s, int c)
{
	int seat = sim_turn(s);

	sim_infer(s, seat, c);
	s->hand[seat] &= ~CB_BIT(c);
	s->table |= CB_BIT(c);
	s->trick[s->n++] = c;
	if (s->n == CB_SEATS) {
		int w = (s->leader + callbreak_trick_winner(s->trick, CB_SEATS)) % CB_SEATS;

		s->tricks[w]++;
		s->gone |= s->table;
		s->table = 0;
		s->leader = w;
		s->n = 0;
	}
}

/*
 * Deal the cards v does not see to the other seats at random, consistently
 * with the view (callbreak_ai_deal()); GB_OK, or GB_ESTATE when none fits.
 * callbreak_deal.c.
 */
int cb_deal_unseen(const struct callbreak_view *v, struct gb_rng *r, uint64_t hand[CB_SEATS]);

/* Keep a bid within CB_MIN_BID..CB_MAX_BID. callbreak_medium.c. */
int cb_clamp_bid(int b);

/* The bid a policy (enum cb_ai_policy) makes from its count, rounded with `shift` tenths added. callbreak_medium.c. */
int cb_count_bid(uint64_t hand, int policy, int shift);

/* The card medium's rules play at s among `legal` (the seat to move's legal cards). callbreak_medium.c. */
int cb_medium_card(const struct sim *s, const struct callbreak_ai_params *p, uint64_t legal);

/* The card p->policy (easy or medium) plays at s. callbreak_medium.c. */
int cb_policy_card(const struct sim *s, const struct callbreak_ai_params *p);

/* The card play network `net` chooses at s among `legal`. callbreak_learned.c. */
int cb_net_card(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, uint64_t legal);

/* The card the seer `net` chooses at s among `legal`, seeing every hand of s. callbreak_learned.c. */
int cb_seer_card(const struct sim *s, const struct callbreak_view *v, const struct cbn_seer *net, uint64_t legal);

/* The chances `net` gives each card of `legal` at s (0 for the others). callbreak_learned.c. */
void cb_net_policy(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, uint64_t legal,
		   float p[52]);

/*
 * The chance `net` gives each candidate card cand[0..nc) at s, with the
 * cards equal to it (the legal cards from it up to the next candidate),
 * added into prior[] (zeroed by the caller). callbreak_learned.c.
 */
void cb_net_prior(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, const int *cand,
		  int nc, double *prior);

/*
 * End the round at s, between tricks, as the play networks value it: each
 * seat's value (`own` for v->seat, `field` for the others) is the tricks
 * it takes from here; the tricks left are shared out in proportion, in
 * whole tricks (the remainders to the largest), and every hand emptied.
 * callbreak_learned.c.
 */
void cb_net_finish(struct sim *s, const struct callbreak_view *v, const struct callbreak_net *net);

/* Keep the k candidates with the highest prior[], in their order; the number kept. callbreak_learned.c. */
int cb_net_prune(int *cand, double *prior, int nc, int k);

/*
 * The bid network alone, without play-outs: the bid with the best expected
 * round score under its distribution of the tricks, less p->bid_risk
 * tenths of a point for each chance of failing it. callbreak_learned.c.
 */
int cb_net_bid_alone(const struct callbreak_view *v, const struct callbreak_ai_params *p);

#endif
