/*
 * snakes.c - placeholder: the game answers "not available yet".
 */
#include "snakes.h"

static int snakes_init(void *st, const struct gb_setup *su)
{
	(void)st;
	(void)su;
	return GB_EGAME;
}

const struct gb_game snakes_game = {
	.name = "snakes",
	.min_players = 2,
	.max_players = 4,
	.default_players = 2,
	.state_size = 1,
	.init = snakes_init,
};
