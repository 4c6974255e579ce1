/*
 * baghchal.c - placeholder: the game answers "not available yet".
 */
#include "baghchal.h"

static int baghchal_init(void *st, const struct gb_setup *su)
{
	(void)st;
	(void)su;
	return GB_EGAME;
}

const struct gb_game baghchal_game = {
	.name = "baghchal",
	.min_players = 2,
	.max_players = 4,
	.default_players = 2,
	.state_size = 1,
	.init = baghchal_init,
};
