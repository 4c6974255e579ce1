/*
 * ludo.c - Ludo's row: ludo_game, which ties the rules (games/ludo.c) to
 * the computer players (games/ai/ludo_ai.c), among them the arena's
 * `hard-classic` seat: hard as it played before its learned evaluation. It
 * stands above both, so the rules never name their players;
 * games/rows/registry.c names the row.
 */
#include "../ludo.h"

#include "../ai/ai.h"
#include "../ai/ludo_ai.h"

static const char *const ludo_verbs[] = { "roll", "move", NULL };

/* hard with the hand-written evaluation at its search's leaves (no budget: hard's own sizes) */
static int ludo_ai_hard_classic(const void *st, int budget, uint64_t seed, struct gb_action *out)
{
	struct ludo_ai_params p = *ludo_ai_defaults(GB_LEVEL_HARD);

	(void)budget;
	p.eval = 0;
	return ludo_ai_choose_with(st, GB_LEVEL_HARD, seed, 0, &p, out);
}

static const struct gb_ai_seat ludo_seats[] = {
	{ "hard-classic", ludo_ai_hard_classic, 0 },
	{ NULL, NULL, 0 },
};
_Static_assert(sizeof(ludo_seats) / sizeof(ludo_seats[0]) <= GB_AI_SEATS_MAX + 1, "at most GB_AI_SEATS_MAX seats");

/* Its computer players: they read the state itself (Ludo hides nothing). */
static const struct gb_ai ludo_players = { .choose = ludo_ai_choose, .seats = ludo_seats };

const struct gb_game ludo_game = {
	.name = "ludo",
	.min_players = LUDO_MIN_PLAYERS,
	.max_players = LUDO_MAX_PLAYERS,
	.default_players = 4,
	.rules = ludo_rules,
	.nrules = LUDO_NRULES,
	.state_size = sizeof(struct ludo),
	.init = ludo_init,
	.turn = ludo_turn,
	.legal = ludo_legal,
	.apply = ludo_apply,
	.parse = ludo_parse,
	.format = ludo_format,
	.format_event = ludo_format_event,
	.to_json = ludo_to_json,
	.to_text = ludo_to_text,
	.from_json = ludo_from_json,
	.check = ludo_check,
	.outcome = ludo_outcome,
	.verbs = ludo_verbs,
	.ai = &ludo_players,
};
