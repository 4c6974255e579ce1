/*
 * baghchal_ai.c - computer players for baghchal (levels easy, medium, hard).
 */
#include "ai.h"

#include "../baghchal.h"

int baghchal_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	(void)level;
	(void)budget_ms;
	return gb_ai_random(&baghchal_game, st, seed, out);
}
