/*
 * callbreak_ai.h - the Call Break computer players. The game's row
 * (games/rows/callbreak.c) hands callbreak_ai_choose() the view of the seat to
 * move; the rest is the inside, for their tests and for tuning runs.
 *
 * Every level is a struct callbreak_ai_params: which card and bid rules it
 * plays by (a beginner's or a club player's) and, for the hard level, how
 * much searching it does on top. callbreak_ai_defaults() gives the weights
 * the levels play with; callbreak_ai_play() plays with any set of them, so
 * tuning runs can pit two variants against each other.
 *
 * Every entry point takes a struct callbreak_view (callbreak_view() of the
 * seat to move), never the state: the other hands are not there to read.
 */
#ifndef GB_CALLBREAK_AI_H
#define GB_CALLBREAK_AI_H

#include <stdint.h>

#include "../callbreak.h"
#include "callbreak_net.h"

enum cb_ai_policy {
	CB_AI_EASY = 0, /* count aces and kings; win cheaply or throw the lowest card */
	CB_AI_MEDIUM,   /* count sure and likely tricks; the club player's card play */
};

struct callbreak_ai_params {
	int policy;      /* enum cb_ai_policy: the bid and card rules */
	int bid_shift;   /* tenths added to the count before it is rounded down to a bid */
	int dets;        /* hard: deals of the unseen cards per card decision (0: no search) */
	int rollouts;    /* hard: at most this many play-outs per card decision; with
	                    many candidate cards fewer deals are used, never fewer than
	                    min_dets */
	int min_dets;    /* hard: the fewest deals a card decision uses */
	int bid_deals;   /* hard: deals played out to choose the bid (0: count it) */
	int bid_sigma;   /* hard: how well earlier bids tell a hand, in tenths of a
	                    trick: deals are weighted by it (0: not weighted) */
	int play_sigma;  /* hard: the same during play for seats still short of their
	                    bid, on what they still hold (0: not weighted) */
	int model_eps;   /* hard: deals in which a card another seat was seen to play is
	                    not the one medium would have played count this many
	                    percent (0: not weighted) */
	int mcmc;        /* hard: during play, deals are drawn by a Metropolis chain over
	                    swaps of cards between the other seats, this many steps
	                    apart (0: drawn independently and weighted) */
	int bid_risk;    /* hard: what failing the bid costs on top of its score, in
	                    tenths of a point (or of a thousandth of a game won) */
	int void_guess;  /* medium: an opponent who can hold at most this many cards of
	                    the led suit is taken as possibly void in it */
	int draw_len;    /* medium: spade length from which the top spade is led to
	                    draw trumps */
	int game_aware;  /* hard: the last round is played to win the game, not for
	                    points alone */
	int game_sigma;  /* hard, game aware: earlier rounds too, with the final
	                    totals uncertain by this many tenths per round to come
	                    (0: earlier rounds are played for points) */
	int dd_cards;    /* hard: play-outs solve the round exactly (double dummy, every
	                    seat for itself) once no hand holds more than this many
	                    cards (0: medium's rules to the end) */
	int dd_root;     /* hard: with no hand holding more than this many cards, each
	                    candidate card is followed by the exact solution at once */
	int net;         /* hard: in play-outs the learned play networks
	                    (callbreak_net.h) choose the cards of the seat deciding
	                    (bit 1: `own`) and of the other seats (bit 2: `field`) in
	                    place of medium's rules (0: never); without a search
	                    (dets 0), bit 4 plays `own`'s card; bit 8: `field`
	                    plays the other seats in the bids' play-outs only;
	                    bit 16: the seer installed (callbreak_seer()), if
	                    any, plays the deciding seat's later cards in the
	                    cards' play-outs, bit 32 in the bids'; bit 64: the
	                    other seats' cards (bit 2 or 8) by `own` in place
	                    of `field` */
	int prior;       /* hard: each candidate card's mean play-out value gets
	                    this many tenths of its value unit (a thousandth of a
	                    game won) times the log of the chance `own` gives it
	                    (0: the play-outs alone) */
	int prune;       /* hard: only the cards `own` ranks this high or higher
	                    are played out (0: every card) */
	int net_bid;     /* hard: each candidate bid is judged by the learned bid
	                    network's distribution of the tricks the hand takes, not
	                    by the play-outs' count of the own tricks (0: by the
	                    play-outs); without play-outs (bid_deals 0), the bid with
	                    the best expected round score under it */
	int value;       /* hard, in card play: play-outs stop value - 1 tricks after
	                    the candidate card's and the play networks' values of
	                    the position share out the tricks left (0: played to
	                    the end) */
	int bid_lift;    /* hard: in this many tenths of a bid's play-outs the own
	                    seat is counted one trick more than it took, for the
	                    search's play being stronger than the play-outs' (0:
	                    as played out) */
};

/* The weights level `level` (enum gb_level, easy..hard) plays with. Never NULL. */
const struct callbreak_ai_params *callbreak_ai_defaults(int level);

/*
 * The players of every level (enum gb_level, random to hard; others play
 * at random), with the contract of gb_ai_choose(): an action for the seat
 * whose view v is, v being callbreak_view() of the seat to move (between
 * rounds, when nobody is: any seat's or a spectator's, and the action is
 * `next`). GB_OK, or GB_EOVER when the game is over.
 */
int callbreak_ai_choose(const struct callbreak_view *v, int level, uint64_t seed, int budget_ms,
			struct gb_action *out);

/* callbreak_ai_choose() with explicit weights. */
int callbreak_ai_play(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
		      int budget_ms, struct gb_action *out);

/*
 * callbreak_ai_play(), and for the training data what the hard search
 * made of each card: value[c] is the mean play-out value of legal card c
 * (the search's unit: a thousandth of a game won, or a tenth of a point)
 * where the search played it out (a card with nothing live between it and
 * a candidate shares that candidate's value), NAN elsewhere and everywhere
 * when no search judged the cards (one candidate, a bid, no search).
 */
int callbreak_ai_play_values(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
			     int budget_ms, struct gb_action *out, float value[CB_CARDS]);

/*
 * Deal the cards `v` does not see to the other seats at random, consistently
 * with everything the view says: each seat gets exactly v->held cards and
 * none that v->lacks says it cannot hold; hand[v->seat] is the view's own
 * hand. GB_OK, or GB_ESTATE when no deal fits (a view of no real game).
 */
int callbreak_ai_deal(const struct callbreak_view *v, uint64_t seed, uint64_t hand[CB_SEATS]);

/*
 * The deals the hard level plays out during play: n deals of the cards v
 * does not see, drawn as params p say (with p->mcmc > 0, by the Metropolis
 * chain that favours deals explaining the other seats' bids and plays;
 * else independently, as callbreak_ai_deal). Each respects the view as
 * callbreak_ai_deal's do. GB_OK, or GB_ESTATE when no deal fits.
 */
int callbreak_ai_deals(const struct callbreak_view *v, const struct callbreak_ai_params *p, uint64_t seed,
		       int n, uint64_t (*hands)[CB_SEATS]);

/*
 * Seat me's chance of winning the game, as the hard level reckons it, when
 * the seats have scored score[] tenths and `left` rounds are still to play:
 * certain once none is left (a tie counts half); else the chance of
 * finishing ahead of all the others at once, every seat's rounds to come a
 * normal curve of width p->game_sigma tenths a round, taken over one's own
 * (with game_sigma 0, every seat a quarter).
 */
double callbreak_ai_game_chance(const struct callbreak_ai_params *p, const int score[CB_SEATS], int me,
				int left);

/*
 * The tricks a hand is expected to take, in tenths, by the counting rules
 * of a policy (enum cb_ai_policy). The bid itself is derived from it.
 */
int callbreak_ai_count(uint64_t hand, int policy);

/*
 * The inputs of the learned play network (callbreak_net.h) for the seat
 * to play in view v (v->phase must be CB_PHASE_PLAY): what the search's
 * play-outs compute for every seat, here from a view, for the training
 * data.
 */
void callbreak_ai_features(const struct callbreak_view *v, struct cbn_feat *f);

/* The inputs of the learned bid network for v's hand (v->phase CB_PHASE_BID). */
void callbreak_ai_bid_features(const struct callbreak_view *v, struct cbn_feat *f);

#endif
