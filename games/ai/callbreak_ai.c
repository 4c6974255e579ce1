/*
 * callbreak_ai.c - computer players for callbreak (levels easy, medium, hard).
 */
#include "ai.h"

#include "../callbreak.h"

int callbreak_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	(void)level;
	(void)budget_ms;
	return gb_ai_random(&callbreak_game, st, seed, out);
}
