/*
 * ai.h - computer players: one entry point for every game and level.
 *
 * A computer player is a pure function of what its seat may know and of a
 * seed for its own randomness (tie-breaks, varied openings): the same state,
 * level and seed give the same action. Call Break players read only the
 * seat's view (callbreak_view), never the other hands.
 */
#ifndef GB_AI_H
#define GB_AI_H

#include <stdint.h>

#include "../game.h"

enum gb_level {
	GB_LEVEL_RANDOM = 0, /* a uniformly random legal action: the baseline */
	GB_LEVEL_EASY,
	GB_LEVEL_MEDIUM,
	GB_LEVEL_HARD,
	GB_LEVEL_COUNT
};

/*
 * A game's computer players, named by its descriptor (struct gb_game's
 * `ai`). choose() plays the levels easy to hard for the seat whose turn it
 * is, with the same contract as gb_ai_choose(). A game may add a reference
 * opponent that people never meet: a level of its own name that only the
 * arena seats (`gamebot arena callbreak --seats ismcts,...`), as a
 * yardstick for the others.
 */
struct gb_ai {
	int (*choose)(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);
	const char *reference;       /* the reference opponent's level name, or NULL */
	/* its choice with a budget of 1..reference_budget_max (0: its default) */
	int (*reference_choose)(const void *st, int budget, uint64_t seed, struct gb_action *out);
	int reference_budget_max;
};

/* "random", "easy", "medium", "hard" -> level, or -1. */
int gb_level_parse(const char *name);

/* The name of a level. Never NULL. */
const char *gb_level_name(int level);

/*
 * Choose an action for the seat whose turn it is (for callbreak between
 * rounds: `next`). budget_ms bounds the thinking time of searching levels
 * (0 = the level's default; Ludo and Call Break scale their search sizes to
 * it and never read the clock). Returns GB_OK, or GB_EOVER when there is
 * nothing to do.
 */
int gb_ai_choose(const struct gb_game *g, const void *st, int level, uint64_t seed,
		 int budget_ms, struct gb_action *out);

/*
 * Per-game players (games/ai/<game>_ai.c), same contract as gb_ai_choose,
 * named by their games' descriptors. Levels a game does not implement fall
 * back to gb_ai_random().
 */
int ludo_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);
int baghchal_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);
int callbreak_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);

/* A uniformly random legal action (the `random` level). */
int gb_ai_random(const struct gb_game *g, const void *st, uint64_t seed, struct gb_action *out);

#endif
