/*
 * snakes.c - Snakes and Ladders' row: snakes_game, its rules
 * (games/snakes.c) and no computer players, for there is nothing to choose
 * (gb_ai_choose() rolls for every level). Its row stands here as every
 * game's does; games/rows/registry.c names it.
 */
#include "../snakes.h"

static const char *const snakes_verbs[] = { "roll", NULL };

const struct gb_game snakes_game = {
	.name = "snakes",
	.min_players = 2,
	.max_players = SNAKES_MAX_PLAYERS,
	.default_players = 2,
	.rules = snakes_rules,
	.nrules = SNAKES_NRULES,
	.state_size = sizeof(struct snakes),
	.init = snakes_init,
	.turn = snakes_turn,
	.legal = snakes_legal,
	.apply = snakes_apply,
	.parse = snakes_parse,
	.format = snakes_format,
	.format_event = snakes_format_event,
	.to_json = snakes_to_json,
	.from_json = snakes_from_json,
	.check = snakes_check,
	.outcome = snakes_outcome,
	.flags = GB_NO_CHOICES,
	.verbs = snakes_verbs,
};
