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
	.init = baghchal_init,
	.turn = baghchal_turn,
	.legal = baghchal_legal,
	.apply = baghchal_apply,
	.parse = baghchal_parse,
	.format = baghchal_format,
	.format_event = baghchal_format_event,
	.to_json = baghchal_to_json,
	.from_json = baghchal_from_json,
	.check = baghchal_check,
	.outcome = baghchal_outcome,
	.flags = GB_FIXED_SIDES,
	.verbs = baghchal_verbs,
	.ai = &baghchal_players,
};
