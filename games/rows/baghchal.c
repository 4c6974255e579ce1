/*
 * baghchal.c - Bagh Chal's row: baghchal_game, which ties the rules
 * (games/baghchal.c) to the computer players (games/ai/baghchal_ai.c). It
 * stands above both, so the rules never name their players;
 * games/rows/registry.c names the row.
 */
#include "../baghchal.h"

#include "../ai/ai.h"

static const char *const baghchal_verbs[] = { "place", "move", NULL };

/* Its computer players: they read the state itself (Bagh Chal hides nothing). */
static const struct gb_ai baghchal_players = { .choose = baghchal_ai_choose };

const struct gb_game baghchal_game = {
	.name = "baghchal",
	.min_players = 2,
	.max_players = 2,
	.default_players = 2,
	.rules = NULL, /* Bagh Chal has no house rules (rules/bagh-chal.md) */
	.nrules = 0,
	.state_size = sizeof(struct baghchal),
	.init = bc_init,
	.turn = bc_turn,
	.legal = bc_legal,
	.apply = bc_apply,
	.parse = bc_parse,
	.format = bc_format,
	.format_event = bc_format_event,
	.to_json = bc_to_json,
	.from_json = bc_from_json,
	.check = bc_check,
	.outcome = bc_outcome,
	.flags = GB_FIXED_SIDES,
	.verbs = baghchal_verbs,
	.ai = &baghchal_players,
};
