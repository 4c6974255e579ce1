/*
 * ai.c - the computer players' entry point: the level names, the random
 * level every game has, and the hand-over to the players a game's
 * descriptor names (a game without any - Snakes and Ladders has no choices
 * to make - plays every level at random).
 */
#include "ai.h"

#include <string.h>

static const char *const level_names[GB_LEVEL_COUNT] = { "random", "easy", "medium", "hard" };

int gb_level_parse(const char *name)
{
	for (int i = 0; name && i < GB_LEVEL_COUNT; i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

const char *gb_level_name(int level)
{
	if (level < 0 || level >= GB_LEVEL_COUNT)
		return "unknown";
	return level_names[level];
}

int gb_ai_random(const struct gb_game *g, const void *st, uint64_t seed, struct gb_action *out)
{
	struct gb_action acts[GB_MAX_LEGAL];
	struct gb_rng rng;
	int n = g->legal(st, acts);

	if (n <= 0)
		return GB_EOVER;
	gb_rng_seed(&rng, seed);
	*out = acts[gb_rng_below(&rng, (uint32_t)n)];
	return GB_OK;
}

int gb_ai_choose(const struct gb_game *g, const void *st, int level, uint64_t seed,
		 int budget_ms, struct gb_action *out)
{
	if (level <= GB_LEVEL_RANDOM || level >= GB_LEVEL_COUNT || !g->ai || !g->ai->choose)
		return gb_ai_random(g, st, seed, out);
	return g->ai->choose(st, level, seed, budget_ms, out);
}
