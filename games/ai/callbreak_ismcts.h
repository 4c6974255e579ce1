/*
 * callbreak_ismcts.h - a reference opponent for measuring the Call Break
 * computer players: information-set Monte Carlo tree search as published
 * (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
 * Search", IEEE Transactions on Computational Intelligence and AI in Games,
 * 2012; the single-observer variant, SO-ISMCTS).
 *
 * It is a yardstick for `gamebot arena` (the `ismcts` seat level), not a
 * level people play against: it bids and plays from the view of the seat to
 * move alone, with a fixed number of iterations and no clock, so the same
 * state, budget and seed give the same action.
 */
#ifndef GB_CALLBREAK_ISMCTS_H
#define GB_CALLBREAK_ISMCTS_H

#include <stdint.h>

#include "../callbreak.h"

#define CB_ISMCTS_BUDGET 1000      /* iterations a decision when none is given */
#define CB_ISMCTS_MAX_BUDGET 1000000

/*
 * An action for the seat whose view v is, v being callbreak_view() of the
 * seat to move: a bid or a card after `iterations` iterations of the search
 * (0: CB_ISMCTS_BUDGET; capped at CB_ISMCTS_MAX_BUDGET), `next` between
 * rounds. GB_OK, GB_EOVER when the game is over, GB_ENOMEM when the tree
 * cannot be allocated. Allocates the tree for the call and frees it before
 * returning.
 */
int callbreak_ismcts_choose(const struct callbreak_view *v, int iterations, uint64_t seed,
			    struct gb_action *out);

#endif
