/*
 * router.c - fuzz target: chat lines through the whole bot, as the console
 * reads them ("alice: /new ludo", "bob: /join", "1" presses a button,
 * ":wait 50" lets time pass).
 *
 * Every input runs console_run() on a fresh in-memory SQLite store with a
 * fixed seed, so an input that crashes crashes again. This reaches the
 * router's table, arity and precondition checks, every handler's argument
 * reading (game names, levels, settings keys and values, moves, cards),
 * the renderers and the computer players on their timers. The console
 * must end normally (status 0: the store never failed), and the table it
 * left playing must hold a state its game accepts.
 *
 * Inputs are capped at 2 KB and 24 lines so that a run of computer turns
 * stays within libFuzzer's time limit, and /watch is left out: a
 * computer-only game plays to its end at once (seconds under ASan, which
 * would starve every other path); tests/test_fuzz_bot.c plays those.
 */
#include "fuzz.h"

#include <jansson.h>

#include "adapters/console.h"
#include "bot/bot.h"
#include "games/game.h"
#include "store/store.h"

#define MAX_LINES 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bot b;
	struct console_opts o = { .admins = "alice", .chat = "console" };
	FILE *in = NULL, *out = NULL;
	char *text = NULL;
	int lines = 0, rc;

	if (size > 2048)
		return 0;
	text = fuzz_text(data, size);
	if (!text)
		return 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	if (lines > MAX_LINES || strstr(text, "watch"))
		goto out;
	memset(&b, 0, sizeof(b));
	bot_config_init(&b.cfg);
	b.cfg.seed = 7;
	FUZZ_REQUIRE(store_open(&b.store, ":memory:") == GB_OK);
	in = size ? fmemopen(text, size, "r") : fopen("/dev/null", "r");
	out = fopen("/dev/null", "w");
	FUZZ_REQUIRE(in && out);
	rc = console_run(&b, &o, in, out);
	FUZZ_REQUIRE(rc == 0);
	/* whatever was left open loads and passes its game's check */
	{
		struct store_chat chat = { 0 };
		struct store_table t = { 0 };

		FUZZ_REQUIRE(store_chat_get(b.store, "console", "console", "en", &chat) == GB_OK);
		/* a lobby's wrapper holds no game yet */
		if (store_table_open_get(b.store, chat.id, &t) == GB_OK && t.status == STORE_PLAYING) {
			const struct gb_game *g = gb_game_find(t.game);
			json_t *w = json_loads(t.state, 0, NULL);
			void *st = g ? calloc(1, g->state_size) : NULL;

			FUZZ_REQUIRE(t.state && g && w && st);
			FUZZ_REQUIRE(g->from_json(st, json_object_get(w, "game")) == GB_OK);
			FUZZ_REQUIRE(g->check(st) == GB_OK);
			free(st);
			json_decref(w);
		}
		store_table_release(&t);
		store_chat_release(&chat);
	}
	store_free(b.store);
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(text);
	return 0;
}
