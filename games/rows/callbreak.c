/*
 * callbreak.c - Call Break's row: callbreak_game, which ties the rules
 * (games/callbreak.c) to the computer players (games/ai/callbreak_ai.c) and
 * to the seats the arena measures them against: the reference opponent
 * (games/ai/callbreak_ismcts.c) and hard as it played before its learned
 * parts. It stands above both, so the rules never name their players;
 * games/rows/registry.c names the row.
 */
#include "../callbreak.h"

#include "../ai/ai.h"
#include "../ai/callbreak_ai.h"
#include "../ai/callbreak_ismcts.h"

/*
 * Its computer players, and the arena's seats: gb_ai_choose() hands them the view of the seat to move that
 * cb_ai_view() makes, and nothing else; they take it as a struct
 * callbreak_view.
 */
_Static_assert(sizeof(struct callbreak_view) <= GB_AI_VIEW_MAX, "the view must fit gb_ai_choose()'s room");

static void cb_ai_view(const void *st, void *view)
{
	callbreak_view(st, callbreak_turn(st), view);
}

static int cb_ai_choose(const void *view, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	return callbreak_ai_choose(view, level, seed, budget_ms, out);
}

static int cb_ai_reference(const void *view, int budget, uint64_t seed, struct gb_action *out)
{
	return callbreak_ismcts_choose(view, budget, seed, out);
}

/* hard as it played before its learned parts: its weights with those parts off (no budget) */
static int cb_ai_hard_classic(const void *view, int budget, uint64_t seed, struct gb_action *out)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);

	(void)budget;
	p.net = 0; /* the learned parts off */
	p.net_bid = 0;
	return callbreak_ai_play(view, &p, seed, 0, out);
}

static const struct gb_ai_seat callbreak_seats[] = {
	{ "ismcts", cb_ai_reference, CB_ISMCTS_MAX_BUDGET }, /* the reference opponent, first */
	{ "hard-classic", cb_ai_hard_classic, 0 },
	{ NULL, NULL, 0 },
};
_Static_assert(sizeof(callbreak_seats) / sizeof(callbreak_seats[0]) <= GB_AI_SEATS_MAX + 1, "at most GB_AI_SEATS_MAX seats");

static const struct gb_ai callbreak_players = {
	.view = cb_ai_view,
	.view_size = sizeof(struct callbreak_view),
	.choose = cb_ai_choose,
	.seats = callbreak_seats,
};

/* The seat to act, as struct gb_game's turn() asks it. */
static int cb_turn(const void *st)
{
	return callbreak_turn(st);
}

static const char *const callbreak_verbs[] = { "bid", "play", "next", NULL };

const struct gb_game callbreak_game = {
	.name = "callbreak",
	.min_players = CB_SEATS,
	.max_players = CB_SEATS,
	.default_players = CB_SEATS,
	.rules = callbreak_rules,
	.nrules = CB_NRULES,
	.state_size = sizeof(struct callbreak),
	.init = callbreak_init,
	.turn = cb_turn,
	.legal = callbreak_legal,
	.apply = callbreak_apply,
	.parse = callbreak_parse,
	.format = callbreak_format,
	.format_event = callbreak_format_event,
	.to_json = callbreak_to_json,
	.from_json = callbreak_from_json,
	.check = callbreak_check,
	.outcome = callbreak_outcome,
	.flags = GB_PRIVATE_HANDS | GB_POINTS,
	.verbs = callbreak_verbs,
	.deal_event = CB_EV_DEAL,
	.ai = &callbreak_players,
};
