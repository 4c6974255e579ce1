/*
 * state.c - fuzz target: every game's state decoder (from_json of each
 * struct gb_game in gb_games[]), and what runs on a decoded state.
 *
 * The input is JSON text, typically a state as `gamebot script` prints it
 * ({"game": "ludo", "over": false, "turn": 0, ...}). It is given to the
 * from_json() of every game, not only the one it names, so each decoder
 * meets every shape. A decoder must refuse (GB_ESTATE) or produce a state
 * that passes the game's check(): a decoded state that breaks its own
 * invariant is a decoder bug. On an accepted state the target also checks
 * that to_json() reads back to the same state, that every legal action
 * formats to text that parses back to it and applies with the invariant
 * kept, that every computer level (hard with a 5 ms budget) picks a legal
 * action or says the game is over, and renders the board, the status line
 * and each seat's hand in both languages (what the bot does with a state
 * read from the store).
 */
#include "fuzz.h"

#include <jansson.h>

#include "bot/lang/i18n.h"
#include "bot/render/render.h"
#include "games/ai/ai.h"
#include "games/error.h"
#include "games/game.h"

/* Render what the table message shows, in lang. */
static void render_all(const struct gb_game *g, const void *st, int lang)
{
	struct render_ctx rc = { .game = g, .st = st, .lang = lang, .devanagari = lang == LANG_NE,
				 .names = { "Asha", NULL, "बिष्णु", "Bot 4" }, .nseats = GB_MAX_SEATS };
	struct strbuf sb = { 0 };

	render_board(&rc, &sb);
	render_status(&rc, &sb);
	for (int seat = 0; seat < GB_MAX_SEATS; seat++)
		render_hand(&rc, seat, &sb);
	FUZZ_REQUIRE(strlen(sb_str(&sb)) == sb.len);
	sb_release(&sb);
}

static void one_game(const struct gb_game *g, const json_t *j)
{
	void *st = calloc(1, g->state_size), *back = calloc(1, g->state_size);
	void *work = malloc(g->state_size);
	struct gb_action acts[GB_MAX_LEGAL];
	json_t *again = NULL;
	int n, rc;

	FUZZ_REQUIRE(st && back && work);
	rc = g->from_json(st, j);
	FUZZ_REQUIRE(rc == GB_OK || rc == GB_ESTATE);
	if (rc)
		goto out;
	if (g->check(st) != GB_OK) {
		fprintf(stderr, "%s: from_json accepted a state that fails check()\n", g->name);
		abort();
	}
	again = g->to_json(st);
	FUZZ_REQUIRE(again != NULL);
	FUZZ_REQUIRE(g->from_json(back, again) == GB_OK);
	FUZZ_REQUIRE(memcmp(st, back, g->state_size) == 0);
	n = g->legal(st, acts);
	FUZZ_REQUIRE(n >= 0 && n <= GB_MAX_LEGAL);
	FUZZ_REQUIRE(g->turn(st) >= -1 && g->turn(st) < GB_MAX_SEATS);
	for (int i = 0; i < n; i++) {
		struct gb_action parsed;
		struct gb_events ev = { 0 };
		char text[GB_ACTION_TEXT];

		g->format(st, &acts[i], text, sizeof(text));
		FUZZ_REQUIRE(g->parse(st, text, &parsed) == GB_OK);
		FUZZ_REQUIRE(parsed.kind == acts[i].kind && parsed.a == acts[i].a &&
			     parsed.b == acts[i].b);
		memcpy(work, st, g->state_size);
		FUZZ_REQUIRE(g->apply(work, &acts[i], &ev) == GB_OK);
		FUZZ_REQUIRE(g->check(work) == GB_OK);
		for (int e = 0; e < ev.n; e++) {
			char line[GB_EVENT_TEXT];

			g->format_event(&ev.ev[e], line, sizeof(line));
			FUZZ_TERMINATED(line);
		}
	}
	{
		struct gb_outcome oc;

		g->outcome(st, &oc);
	}
	for (int level = 0; level < GB_LEVEL_COUNT; level++) {
		struct gb_action act;

		rc = gb_ai_choose(g, st, level, 7, 5, &act);
		FUZZ_REQUIRE(rc == GB_OK || rc == GB_EOVER);
		if (rc == GB_OK) {
			FUZZ_REQUIRE(gb_action_is_legal(g, st, &act));
			memcpy(work, st, g->state_size);
			FUZZ_REQUIRE(g->apply(work, &act, NULL) == GB_OK);
		}
	}
	render_all(g, st, LANG_EN);
	render_all(g, st, LANG_NE);
out:
	json_decref(again);
	free(work);
	free(back);
	free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);

	if (!j)
		return 0;
	for (int i = 0; gb_games[i]; i++)
		one_game(gb_games[i], j);
	json_decref(j);
	return 0;
}
