/*
 * baghchal_ai.h - internals of the Bagh Chal computer players
 * (games/ai/baghchal_ai.c) that the test suite and tuning runs reach.
 *
 * The public entry point is baghchal_ai_choose() in ai.h. The functions here
 * expose the evaluation and a hard search with an explicit node budget, so
 * that tests stay fast and deterministic without reading a clock.
 */
#ifndef GB_BAGHCHAL_AI_H
#define GB_BAGHCHAL_AI_H

#include <stdint.h>

#include "../baghchal.h"
#include "ai.h"

/* Decisive scores: a win in n half-moves scores BAGHCHAL_AI_MATE - n. */
#define BAGHCHAL_AI_MATE 30000
/* Scores beyond this (in absolute value) announce a forced result. */
#define BAGHCHAL_AI_MATE_BOUND (BAGHCHAL_AI_MATE - 1000)
/*
 * Nodes the hard level searches per decision (whatever budget_ms says): about
 * 130 ms of one core of the reference machine, 200 ms at the 99th percentile.
 */
#define BAGHCHAL_AI_HARD_NODES 600000

/*
 * The static evaluation of s from the tigers' point of view (positive: good
 * for tigers), in units where the first captured goat is worth 300 and the
 * fourth 1400. Pure; meaningful on positions that are not over.
 */
int baghchal_ai_eval(const struct baghchal *s);

/*
 * Every legal move of the side to move, as the search generates them: the
 * same set as baghchal_moves() in another order (tiger jumps first). Pure;
 * out has room for BAGHCHAL_MAX_MOVES; 0 when the game is over.
 */
int baghchal_ai_moves(const struct baghchal *s, struct baghchal_move *out);

/*
 * The hard level with an explicit budget: at most max_nodes nodes (0 = the
 * default) and, when budget_ms > 0, at most that many milliseconds of a
 * monotonic clock. With budget_ms 0 the choice is a pure function of
 * (s, seed, max_nodes). Writes the chosen move and, when score is not NULL,
 * its score for the side to move. Returns GB_OK, GB_EOVER when there is no
 * legal move, or GB_ENOMEM when the search tables cannot be allocated (then
 * *out still holds a legal move chosen by the medium level).
 */
int baghchal_ai_hard(const struct baghchal *s, uint64_t seed, uint64_t max_nodes, int budget_ms,
		     struct baghchal_move *out, int *score);

#endif
