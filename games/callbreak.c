/*
 * callbreak.c - placeholder: the game answers "not available yet".
 */
#include "callbreak.h"

static int callbreak_init(void *st, const struct gb_setup *su)
{
	(void)st;
	(void)su;
	return GB_EGAME;
}

const struct gb_game callbreak_game = {
	.name = "callbreak",
	.min_players = 2,
	.max_players = 4,
	.default_players = 2,
	.state_size = 1,
	.init = callbreak_init,
};
