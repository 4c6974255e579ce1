/*
 * test_fifth_game.c - a game added by one row plays everywhere.
 *
 * Tic-tac-toe (tests/games/tictactoe.c) is a whole game in one file of
 * the tests: its rules module with computer players, its renderer and its
 * row. This suite registers it with one call, the way the test build of
 * the service (tests/games/service.c) does, and proves that nothing else
 * had to name it:
 *   - the registry takes it (and refuses it twice, or incomplete);
 *   - the arena and the script mode play it, the arena's hard player never
 *     losing, with its sides fixed;
 *   - the command table's menus and the Discord registration offer it, and
 *     /help, /rules, the usage lines and the refusals list it;
 *   - whole games are played through the service's console chat, through
 *     the fake Telegram Bot API and through the fake Discord API (the
 *     people of tests/people.c pressing its buttons), each ending on its
 *     own board.
 */
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/discord.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/commands.h"
#include "bot/render/games.h"
#include "bot/tools/arena.h"
#include "bot/tools/script.h"
#include "games/ai/ai.h"
#include "tests/fake_telegram.h"
#include "tests/games/tictactoe.h"
#include "tests/people.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

static char games_bin[512];

/* ---- the registry ---- */

static void test_one_row_adds_the_game(void **state)
{
	struct bot_game no_renderer = tictactoe_row;
	struct gb_game bad_name = tictactoe_game;
	struct bot_game bad_rules = tictactoe_row;
	int n = 0;

	(void)state;
	while (gb_games[n])
		n++;
	assert_int_equal(n, 5);
	assert_ptr_equal(gb_games[4], &tictactoe_game);
	assert_ptr_equal(gb_game_find("tictactoe"), &tictactoe_game);
	assert_ptr_equal(bot_game_of(&tictactoe_game), &tictactoe_row);
	assert_string_equal(bot_game_title(&tictactoe_game, LANG_NE), "टिक ट्याक टो");
	assert_string_equal(bot_game_side(&tictactoe_game, 1, LANG_EN), "noughts");
	assert_true(game_has_verb(&tictactoe_game, "place"));
	assert_false(game_has_verb(&tictactoe_game, "roll"));

	/* once only, and only whole */
	assert_int_equal(bot_game_register(&tictactoe_row), GB_EEXISTS);
	no_renderer.render = NULL;
	assert_int_equal(bot_game_register(&no_renderer), GB_EGAME);
	bad_name.name = "Tic Tac";
	bad_rules.game = &bad_name;
	assert_int_equal(bot_game_register(&bad_rules), GB_EGAME);
	assert_int_equal(gb_game_register(&bad_name), GB_EGAME);
	assert_int_equal(gb_game_register(&tictactoe_game), GB_EEXISTS);
	assert_null(gb_games[5]);
}

/* ---- the arena and the script mode ---- */

/* Run a main-like function with argv; its stdout and stderr into *out and *err (caller frees). */
static int run(int (*fn)(int, char **, FILE *, FILE *), char **argv, char **out, char **err)
{
	size_t no, ne;
	FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
	int argc = 0, rc;

	while (argv[argc])
		argc++;
	rc = fn(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rc;
}

static int script_run(int argc, char **argv, FILE *out, FILE *err)
{
	static char lines[] = "place b2\nplace b2\nplace a1\nroll\n";
	FILE *in = fmemopen(lines, strlen(lines), "r");
	int rc = script_main(argc, argv, in, out, err);

	fclose(in);
	return rc;
}

static void test_arena_and_script_play_it(void **state)
{
	char *out, *err;
	json_error_t jerr;
	json_t *j;

	(void)state;
	assert_int_equal(run(arena_main, (char *[]){ "arena", "tictactoe", "--seats", "hard,random", "--games", "60",
						     "--seed", "3", NULL },
			     &out, &err),
			 0);
	j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "game")), "tictactoe");
	/* crosses play perfectly and never lose: the sides are fixed, never rotated */
	assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "wins"), 1)), 0);
	assert_true(json_integer_value(json_array_get(json_object_get(j, "wins"), 0)) > 30);
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run(arena_main, (char *[]){ "arena", "tictactoe", "--seats", "hard,hard", "--games", "10",
						     NULL },
			     &out, &err),
			 0);
	j = json_loads(out, 0, &jerr);
	assert_int_equal(json_integer_value(json_object_get(j, "draws")), 10);
	json_decref(j);
	free(out);
	free(err);

	/* the refusals name it among the games, and its players among the levels */
	assert_int_equal(run(arena_main, (char *[]){ "arena", "chess", NULL }, &out, &err), 2);
	assert_non_null(strstr(err, "(games: snakes, ludo, baghchal, callbreak, tictactoe)"));
	free(out);
	free(err);
	assert_int_equal(run(arena_main, (char *[]){ "arena", "tictactoe", "--seats", "ismcts,hard", NULL }, &out, &err),
			 2);
	assert_non_null(strstr(err, "ismcts seats play callbreak only"));
	free(out);
	free(err);

	assert_int_equal(run(script_run, (char *[]){ "script", "tictactoe", "--seed", "1", NULL }, &out, &err), 0);
	assert_non_null(strstr(out, "\"game\":\"tictactoe\""));
	assert_non_null(strstr(out, "\"ok\":false"));
	assert_non_null(strstr(out, "\"cells\":\"o...x....\""));
	free(out);
	free(err);
	assert_int_equal(run(script_run, (char *[]){ "script", "chess", NULL }, &out, &err), 2);
	assert_non_null(strstr(err, "callbreak, tictactoe)"));
	free(out);
	free(err);
}

/* ---- the platforms' menus ---- */

static void test_menus_offer_it(void **state)
{
	const struct bot_command *c = bot_command_find("new");
	struct strbuf sb = { 0 };
	struct fake_tg *f;
	struct config cfg;
	json_t *set, *cmd, *b;
	char *out, *err;
	size_t i, no, ne;
	FILE *fo, *fe;
	bool offered = false;

	(void)state;
	bot_command_describe(c, LANG_EN, false, &sb);
	assert_string_equal(sb_str(&sb), "Open a table: snakes, ludo, baghchal, callbreak or tictactoe");
	sb_release(&sb);
	bot_command_describe(bot_command_find("place"), LANG_NE, false, &sb);
	assert_string_equal(sb_str(&sb), "गोटी राख्नुहोस् (बाघचाल, टिक ट्याक टो)");
	sb_release(&sb);

	/* Discord: a choice of /new, /watch, /rules and /stats, and a settings key */
	set = dc_command_set();
	json_array_foreach(set, i, cmd) {
		json_t *choices = json_object_get(json_array_get(json_object_get(cmd, "options"), 0), "choices");
		json_t *last = json_array_get(choices, 4);

		if (!strcmp(json_string_value(json_object_get(cmd, "name")), "new")) {
			assert_string_equal(json_string_value(json_object_get(last, "value")), "tictactoe");
			offered = true;
		}
		if (!strcmp(json_string_value(json_object_get(cmd, "name")), "place"))
			assert_string_equal(json_string_value(json_object_get(cmd, "description")),
					    "Place a piece (Bagh Chal, Tic-tac-toe)");
	}
	assert_true(offered);
	json_decref(set);

	/* Telegram: telegram-setup sends the menus with it, in both languages */
	assert_int_equal(fake_tg_start(&f, "4242:ttt", "ttt_bot"), 0);
	config_init(&cfg);
	snprintf(cfg.telegram_token, sizeof(cfg.telegram_token), "4242:ttt");
	snprintf(cfg.telegram_api, sizeof(cfg.telegram_api), "%s/", fake_tg_url(f));
	fo = open_memstream(&out, &no);
	fe = open_memstream(&err, &ne);
	assert_int_equal(telegram_setup_main(2, (char *[]){ "telegram-setup", "--polling", NULL }, &cfg, fo, fe), 0);
	fclose(fo);
	fclose(fe);
	free(out);
	free(err);
	b = fake_tg_nth(f, "setMyCommands", 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(b, "commands"), 0),
							      "description")),
			    "नयाँ खेल: snakes, ludo, baghchal, callbreak वा tictactoe");
	json_decref(b);
	fake_tg_free(f);
}

/* ---- the console ---- */

/* The console chat of the service with the game added, fed lines; its output (caller frees). */
static char *console(const char *lines)
{
	char dir[64], in[80], db[80], log[80];
	FILE *f;
	int fd, status;
	pid_t pid;
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(fixture_dir(dir, sizeof(dir), "ttt"), 0);
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(db, sizeof(db), "%s/c.db", dir);
	snprintf(log, sizeof(log), "%s/out", dir);
	f = fopen(in, "w");
	assert_non_null(f);
	fputs(lines, f);
	fclose(f);
	fd = open(in, O_RDONLY);
	assert_true(fd >= 0);
	pid = spawn_in(games_bin,
		       (char *const[]){ games_bin, "console", "--db", db, "--seed", "1", "--admins", "alice", NULL },
		       (const char *const[]){ "GAMEBOT_CONFIG=/dev/null", NULL }, fd, log, false);
	close(fd);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fopen(log, "r");
	assert_non_null(f);
	assert_int_equal(getdelim(&text, &len, '\0', f) > 0, 1);
	fclose(f);
	assert_int_equal(fixture_rm(dir), 0);
	return text;
}

static void test_plays_in_the_console(void **state)
{
	char *out;

	(void)state;
	/* against the hard computer: alice tries every square in turn until the game is over */
	out = console("alice: /help\n"
		      "alice: /rules ttt\n"
		      "alice: /new tic-tac-toe\n"
		      "alice: /join tigers\n"
		      "alice: /addbot hard\n"
		      "alice: /start\n"
		      "alice: /roll\n"
		      "alice: /hand\n"
		      "alice: /place a1\nalice: /place b1\nalice: /place c1\nalice: /place a2\n"
		      "alice: /place b2\nalice: /place c2\nalice: /place a3\nalice: /place b3\n"
		      "alice: /place c3\n"
		      "alice: /stats tictactoe\n"
		      "alice: /watch ttt\n"
		      "alice: /lang ne\n"
		      "alice: /rules टिक ट्याक टो\n");
	assert_non_null(strstr(out, "/new snakes | ludo | baghchal | callbreak | tictactoe"));
	assert_non_null(strstr(out, "Tic-tac-toe: crosses and noughts take turns"));
	assert_non_null(strstr(out, "alice opened a table of Tic-tac-toe"));
	assert_non_null(strstr(out, "/join crosses|noughts to sit down"));
	assert_non_null(strstr(out, "There is no side \"tigers\": the sides are crosses and noughts."));
	assert_non_null(strstr(out, "The game of Tic-tac-toe begins!"));
	/* its verbs are its own; a hand belongs to another game */
	assert_non_null(strstr(out, "Tic-tac-toe has no /roll"));
	assert_non_null(strstr(out, "Only Call Break has a hand to show."));
	/* its board, its log lines, its buttons and its refusals */
	assert_non_null(strstr(out, "   a b c\n 3 "));
	assert_non_null(strstr(out, "alice: X on a1"));
	assert_non_null(strstr(out, "[1] a3"));
	assert_non_null(strstr(out, "is taken. You can: /place"));
	/* it ends: the hard computer never loses */
	assert_true(strstr(out, "Game over — Bot 2 wins") || strstr(out, "Game over — a draw"));
	assert_null(strstr(out, "Game over — alice wins"));
	/* a game of computers plays to its end too */
	assert_non_null(strstr(out, "Computer players start a game of Tic-tac-toe"));
	assert_non_null(strstr(out, "टिक ट्याक टो: क्रस र गोलो"));
	free(out);
}

/* ---- Telegram and Discord ---- */

static void check_played(const struct people_result *r, int tables)
{
	fprintf(stderr, "  %.1f s: %d boards, %d presses (%d answered), %d over\n", r->seconds, r->boards,
		r->presses, r->answered, r->over);
	assert_int_equal(r->over, tables);
	assert_true(r->presses >= 3 * tables);
	assert_int_equal(r->answered, r->presses);
	assert_int_equal(r->refused_429, 0);
	/* the last board is the game's own, over */
	assert_non_null(strstr(r->last_board, "Tic-tac-toe"));
	assert_non_null(strstr(r->last_board, "   a b c"));
	assert_non_null(strstr(r->last_board, "Game over"));
}

static void people(struct people_opts *o)
{
	people_opts_init(o);
	o->bin = games_bin;
	o->game = "tictactoe";
	o->tables = 2;
	o->persons = 2;
	o->computers = 0;
	o->press_ms = 200;
	o->seconds = 0; /* until every game is over */
}

static void test_plays_through_telegram(void **state)
{
	struct people_opts o;
	struct people_result r;

	(void)state;
	people(&o);
	assert_int_equal(people_play(&o, &r), 0);
	check_played(&r, o.tables);
}

static void test_plays_through_discord(void **state)
{
	struct people_opts o;
	struct people_result r;

	(void)state;
	people(&o);
	assert_int_equal(people_discord_play(&o, &r), 0);
	check_played(&r, o.tables);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_row_adds_the_game),
		cmocka_unit_test(test_arena_and_script_play_it),
		cmocka_unit_test(test_menus_offer_it),
		cmocka_unit_test(test_plays_in_the_console),
		cmocka_unit_test(test_plays_through_telegram),
		cmocka_unit_test(test_plays_through_discord),
	};
	char self[512];
	int rc;

	(void)argc;
	/* the one row: everything after this finds the game by it */
	rc = bot_game_register(&tictactoe_row);
	if (rc) {
		fprintf(stderr, "tictactoe not added: %s\n", gb_strerror(rc));
		return 1;
	}
	/* the service built with it: beside this suite, unless make says where */
	snprintf(self, sizeof(self), "%s", argv[0]);
	if (getenv("GAMEBOT_GAMES_BIN"))
		snprintf(games_bin, sizeof(games_bin), "%s", getenv("GAMEBOT_GAMES_BIN"));
	else
		snprintf(games_bin, sizeof(games_bin), "%s/games/gamebot", dirname(self));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
