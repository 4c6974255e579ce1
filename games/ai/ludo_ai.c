/*
 * ludo_ai.c - computer players for ludo (levels easy, medium, hard).
 */
#include "ai.h"

#include "../ludo.h"

int ludo_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	(void)level;
	(void)budget_ms;
	return gb_ai_random(&ludo_game, st, seed, out);
}
