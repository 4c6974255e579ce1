/*
 * callbreak_state.h - what games/callbreak.c shares with callbreak_json.c:
 * the facts a state derives, recomputed from its primary facts, and scores
 * as text.
 */
#ifndef GB_CALLBREAK_STATE_H
#define GB_CALLBREAK_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "callbreak.h"

/* The turns taken so far: every bid and every card is one, a round 4 + 52 of them. */
int callbreak_turns_taken(const struct callbreak *st);

/* The trick in progress: how many cards, copied into t. */
int callbreak_trick_now(const struct callbreak *st, int t[CB_SEATS]);

/*
 * out = the whole state recomputed from the primary facts of in (the
 * hands, bids and cards played this round, the finished rounds, the house
 * rules and the dealing stream) through the rules' own steps; GB_OK, or
 * GB_ESTATE when they are no position the rules can reach.
 */
int callbreak_rebuild(const struct callbreak *in, struct callbreak *out);

/* Tenths as text with one decimal and an optional sign: 32 -> "3.2", -40 -> "-4.0". */
void callbreak_tenths_text(int t, bool plus, char *buf, size_t n);

#endif
