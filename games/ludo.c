/*
 * ludo.c - placeholder: the game answers "not available yet".
 */
#include "ludo.h"

static int ludo_init(void *st, const struct gb_setup *su)
{
	(void)st;
	(void)su;
	return GB_EGAME;
}

const struct gb_game ludo_game = {
	.name = "ludo",
	.min_players = 2,
	.max_players = 4,
	.default_players = 2,
	.state_size = 1,
	.init = ludo_init,
};
