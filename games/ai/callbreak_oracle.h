/*
 * callbreak_oracle.h - a measurement, never a level: the Call Break hard
 * search handed the true hands, to bound what reading the unseen cards
 * better could win (tests/bench/cbparts.c, `oracle=N`) and to show that the
 * suite's check that no player reads another hand would catch one that did
 * (tests/test_callbreak_search.c).
 *
 * Only those two, the training data of a seer (tests/bench/cbdata.c) and
 * the search that defines these calls (callbreak_ai.c, callbreak_learned.c)
 * include this header (`make check` refuses it anywhere else): no level,
 * and nothing that seats a computer player at a table, can hand a player
 * the hands. The levels reach the search through
 * callbreak_ai_choose(), which has no place for them.
 */
#ifndef GB_CALLBREAK_ORACLE_H
#define GB_CALLBREAK_ORACLE_H

#include <stdint.h>

#include "callbreak_ai.h"

/* What the true hands are used for (bits of `oracle` below). */
enum cb_oracle {
	CB_ORACLE_BIDS = 1,  /* the bid is searched on the true deal alone */
	CB_ORACLE_CARDS = 2, /* each card is searched on the true deal alone */
	CB_ORACLE_CHAIN = 4, /* cards are searched on deals drawn as usual, but the
	                        chain that draws them starts from the true deal
	                        (with CB_ORACLE_CARDS: this instead) */
};

/*
 * callbreak_ai_play() with the true hands of the round (hand[], the cards
 * each seat still holds; hand[v->seat] must be v->hand) used as `oracle`
 * (enum cb_oracle bits; 0: not at all, the play of callbreak_ai_play()).
 */
int callbreak_ai_play_oracle(const struct callbreak_view *v, const struct callbreak_ai_params *p, int oracle,
			     const uint64_t hand[CB_SEATS], uint64_t seed, int budget_ms, struct gb_action *out);

/*
 * A seer's inputs (callbreak_net.h, struct cbn_seer) for the seat to play
 * in v with the true hands hand[]: the training data of the seer, which
 * learns from the search handed the true deal.
 */
void callbreak_ai_seer_features(const struct callbreak_view *v, const uint64_t hand[CB_SEATS], struct cbn_feat *f);

#endif
