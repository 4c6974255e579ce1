/*
 * test_arena.c - `gamebot arena` as bot/tools/arena.md states it,
 * through the real binary (path in $GAMEBOT_BIN, default bin/gamebot):
 * the JSON it prints, the same numbers for the same seed whatever
 * --threads, other games for another seed, and a clean refusal (exit 2, a
 * line on stderr, nothing on stdout) for every kind of bad argument. The
 * arena's own seats (`hard-classic`) are also checked in process: their
 * decisions are those of the players they stand for.
 *
 * Runs are small (a few games of the cheaper levels): the strength and
 * speed of the players are measured by `make bench`, not here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/ludo_ai.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/ludo.h"

struct run {
	int status;
	char *out, *err;
};

static char *slurp(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	n = ftell(f);
	assert_true(n >= 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Run `gamebot arena ARGS...` (a NULL-terminated list). */
static struct run arena(const char *first, ...)
{
	const char *bin = getenv("GAMEBOT_BIN");
	char *argv[40];
	int argc = 0, ws;
	FILE *out = tmpfile(), *err = tmpfile();
	struct run r;
	va_list ap;
	pid_t pid;

	assert_non_null(out);
	assert_non_null(err);
	if (!bin)
		bin = "bin/gamebot";
	argv[argc++] = (char *)bin;
	argv[argc++] = "arena";
	va_start(ap, first);
	for (const char *a = first; a && argc < 39; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(bin, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	r.status = WEXITSTATUS(ws);
	r.out = slurp(out);
	r.err = slurp(err);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* The printed object, checked against the contract's shape. */
static json_t *result(struct run *r, const char *game, int games, int nseats)
{
	json_error_t e;
	json_t *j, *wins, *v;
	long sum = 0;
	size_t i;

	if (r->status != 0)
		fail_msg("arena exited %d: %s", r->status, r->err);
	j = json_loads(r->out, 0, &e);
	if (!j)
		fail_msg("not JSON (%s): %s", e.text, r->out);
	assert_string_equal(json_string_value(json_object_get(j, "game")), game);
	assert_int_equal(json_integer_value(json_object_get(j, "games")), games);
	assert_int_equal(json_array_size(json_object_get(j, "seats")), nseats);
	wins = json_object_get(j, "wins");
	assert_int_equal(json_array_size(wins), nseats);
	json_array_foreach(wins, i, v) {
		assert_true(json_is_integer(v));
		assert_true(json_integer_value(v) >= 0);
		sum += (long)json_integer_value(v);
	}
	assert_true(json_is_integer(json_object_get(j, "draws")));
	/* every game is one seat's win or a draw */
	assert_int_equal(sum + json_integer_value(json_object_get(j, "draws")), games);
	assert_true(json_is_number(json_object_get(j, "mean_turns")));
	assert_true(json_number_value(json_object_get(j, "mean_turns")) > 0);
	assert_true(json_is_object(json_object_get(j, "ms_per_move")));
	assert_true(json_is_number(json_object_get(j, "seconds")));
	if (strcmp(game, "callbreak") == 0) {
		assert_int_equal(json_array_size(json_object_get(j, "mean_points")), nseats);
		assert_int_equal(json_array_size(json_object_get(j, "bids_made")), nseats);
	}
	return j;
}

/* The object without its timings: what a seed must reproduce. */
static json_t *numbers(json_t *j)
{
	json_object_del(j, "ms_per_move");
	json_object_del(j, "seconds");
	return j;
}

struct config {
	const char *game, *seats, *games;
	int ngames, nseats;
};

static const struct config configs[] = {
	{ "snakes", "random,random,random", "30", 30, 3 },
	{ "ludo", "easy,medium,random,hard", "12", 12, 4 },
	{ "ludo", "medium,random", "20", 20, 2 },
	{ "callbreak", "medium,easy,random,medium", "6", 6, 4 },
	{ "callbreak", "hard,random,easy,random", "2", 2, 4 },
	{ "baghchal", "medium,easy", "4", 4, 2 },
	{ "baghchal", "random,medium", "4", 4, 2 },
};

static void test_same_seed_same_numbers_whatever_threads(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		const struct config *c = &configs[i];
		struct run a = arena(c->game, "--seats", c->seats, "--games", c->games, "--seed", "5",
				     "--threads", "1", NULL);
		struct run b = arena(c->game, "--seats", c->seats, "--games", c->games, "--seed", "5",
				     "--threads", "3", NULL);
		json_t *ja = numbers(result(&a, c->game, c->ngames, c->nseats));
		json_t *jb = numbers(result(&b, c->game, c->ngames, c->nseats));

		if (!json_equal(ja, jb))
			fail_msg("%s %s: --threads 1 gave %s, --threads 3 gave %s", c->game, c->seats, a.out,
				 b.out);
		json_decref(ja);
		json_decref(jb);
		run_free(&a);
		run_free(&b);
	}
}

static void test_other_seed_other_games(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		const struct config *c = &configs[i];
		struct run a = arena(c->game, "--seats", c->seats, "--games", c->games, "--seed", "5", NULL);
		struct run b = arena(c->game, "--seats", c->seats, "--games", c->games, "--seed", "6", NULL);
		json_t *ja = numbers(result(&a, c->game, c->ngames, c->nseats));
		json_t *jb = numbers(result(&b, c->game, c->ngames, c->nseats));

		/* mean turns over several games is all but certain to move */
		if (json_equal(ja, jb))
			fail_msg("%s %s: seeds 5 and 6 gave the same numbers %s", c->game, c->seats, a.out);
		json_decref(ja);
		json_decref(jb);
		run_free(&a);
		run_free(&b);
	}
}

static void test_levels_and_rules_reach_the_games(void **state)
{
	struct run r;
	json_t *j, *ms;

	(void)state;
	/* every level named in --seats is timed under its own name */
	r = arena("ludo", "--seats", "easy,medium,hard", "--games", "6", "--seed", "2", NULL);
	j = result(&r, "ludo", 6, 3);
	ms = json_object_get(j, "ms_per_move");
	assert_non_null(json_object_get(ms, "easy"));
	assert_non_null(json_object_get(ms, "medium"));
	assert_non_null(json_object_get(ms, "hard"));
	assert_null(json_object_get(ms, "random"));
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "seats"), 2)), "hard");
	json_decref(j);
	run_free(&r);

	/* a house rule changes the games: one round of Call Break is shorter */
	{
		struct run a = arena("callbreak", "--seats", "medium,medium,medium,medium", "--games", "4", "--seed",
				     "3", "--rule", "rounds=1", NULL);
		struct run b = arena("callbreak", "--seats", "medium,medium,medium,medium", "--games", "4", "--seed",
				     "3", NULL);
		json_t *ja = result(&a, "callbreak", 4, 4), *jb = result(&b, "callbreak", 4, 4);

		assert_true(json_number_value(json_object_get(ja, "mean_turns")) <
			    json_number_value(json_object_get(jb, "mean_turns")));
		json_decref(ja);
		json_decref(jb);
		run_free(&a);
		run_free(&b);
	}
}

/*
 * The Call Break reference opponent: an `ismcts` seat is timed under its
 * own name, --budget (its iterations a decision) reaches its search, and a
 * seed gives the same numbers whatever --threads.
 */
static void test_ismcts_seats_and_budget(void **state)
{
	struct run a, b, c;
	json_t *ja, *jb, *jc;

	(void)state;
	a = arena("callbreak", "--seats", "ismcts,medium,ismcts,random", "--games", "3", "--seed", "9", "--rule",
		  "rounds=1", "--budget", "30", "--threads", "1", NULL);
	b = arena("callbreak", "--seats", "ismcts,medium,ismcts,random", "--games", "3", "--seed", "9", "--rule",
		  "rounds=1", "--budget", "30", "--threads", "2", NULL);
	c = arena("callbreak", "--seats", "ismcts,medium,ismcts,random", "--games", "3", "--seed", "9", "--rule",
		  "rounds=1", "--budget", "300", NULL);
	ja = result(&a, "callbreak", 3, 4);
	jb = result(&b, "callbreak", 3, 4);
	jc = result(&c, "callbreak", 3, 4);
	assert_string_equal(json_string_value(json_array_get(json_object_get(ja, "seats"), 0)), "ismcts");
	assert_non_null(json_object_get(json_object_get(ja, "ms_per_move"), "ismcts"));
	numbers(ja);
	numbers(jb);
	numbers(jc);
	if (!json_equal(ja, jb))
		fail_msg("ismcts: --threads 1 gave %s, --threads 2 gave %s", a.out, b.out);
	/* ten times the iterations play other cards: the points move */
	if (json_equal(ja, jc))
		fail_msg("ismcts: --budget 30 and 300 gave the same numbers %s", a.out);
	json_decref(ja);
	json_decref(jb);
	json_decref(jc);
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/* The seats of a run as printed, joined by commas, are `want`; each is timed under its name. */
static void assert_seats(json_t *j, const char *want)
{
	char got[128] = "";
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(j, "seats"), i, v) {
		size_t len = strlen(got);

		snprintf(got + len, sizeof(got) - len, "%s%s", i ? "," : "", json_string_value(v));
		assert_non_null(json_object_get(json_object_get(j, "ms_per_move"), json_string_value(v)));
	}
	assert_string_equal(got, want);
}

/*
 * `hard-classic` seats hard as it played before its learned parts, beside
 * hard and the other seats, in Ludo and Call Break: the run succeeds, names
 * and times it apart from hard, and --budget (the ismcts seat's) leaves it
 * be. Another game, or a name no game has, is refused saying what there is.
 */
static void test_hard_classic_seats(void **state)
{
	struct run r;
	json_t *j;

	(void)state;
	r = arena("ludo", "--seats", "hard,hard-classic,medium,medium", "--games", "2", "--seed", "5", NULL);
	j = result(&r, "ludo", 2, 4);
	assert_seats(j, "hard,hard-classic,medium,medium");
	json_decref(j);
	run_free(&r);

	r = arena("callbreak", "--seats", "hard,hard-classic,ismcts,ismcts", "--games", "1", "--seed", "5", "--rule",
		  "rounds=1", "--budget", "30", NULL);
	j = result(&r, "callbreak", 1, 4);
	assert_seats(j, "hard,hard-classic,ismcts,ismcts");
	json_decref(j);
	run_free(&r);

	r = arena("baghchal", "--seats", "hard-classic,medium", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "hard-classic seats play ludo, callbreak only\n");
	run_free(&r);

	r = arena("ludo", "--seats", "hard,hard-classical", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	if (!strstr(r.err, "bad seat list 'hard,hard-classical'") || !strstr(r.err, "hard-classic in ludo") ||
	    !strstr(r.err, "ismcts, hard-classic in callbreak"))
		fail_msg("unclear refusal: %s", r.err);
	run_free(&r);
}

/*
 * Ludo's hard-classic decides as hard with the hand-written evaluation
 * (eval 0) at every decision of a game of medium players, roll and move.
 */
static void test_ludo_hard_classic_is_hard_eval0(void **state)
{
	const struct gb_ai_seat *seat = gb_ai_seat_find(&ludo_game, "hard-classic");
	struct ludo_ai_params p = *ludo_ai_defaults(GB_LEVEL_HARD);
	struct gb_setup su;
	struct ludo st;
	int moves = 0;

	(void)state;
	p.eval = 0;
	assert_non_null(seat);
	assert_int_equal(seat->budget_max, 0);
	gb_setup_init(&su, &ludo_game);
	su.players = 4;
	su.seed = 77;
	assert_int_equal(ludo_game.init(&st, &su), GB_OK);
	for (uint64_t k = 0; k < 400 && st.winner < 0 && moves < 24; k++) {
		struct gb_action a = { 0 }, b = { 0 };

		assert_int_equal(gb_ai_seat_choose(&ludo_game, seat, &st, 0, k, &a), GB_OK);
		assert_int_equal(ludo_ai_choose_with(&st, GB_LEVEL_HARD, k, 0, &p, &b), GB_OK);
		assert_memory_equal(&a, &b, sizeof(a));
		moves += a.kind == GB_ACT_MOVE;
		assert_int_equal(gb_ai_choose(&ludo_game, &st, GB_LEVEL_MEDIUM, k, 0, &a), GB_OK);
		assert_int_equal(ludo_game.apply(&st, &a, NULL), GB_OK);
	}
	assert_true(moves > 0);
}

/*
 * Call Break's hard-classic decides as hard's weights with the learned
 * parts off, from the view of the seat to move, at bids and cards of a
 * round of medium players.
 */
static void test_callbreak_hard_classic_is_old_hard(void **state)
{
	const struct gb_ai_seat *seat = gb_ai_seat_find(&callbreak_game, "hard-classic");
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	struct gb_setup su;
	struct callbreak st;
	int compared = 0;

	(void)state;
	p.net = 0; /* the learned parts off */
	p.net_bid = 0;
	assert_non_null(seat);
	assert_int_equal(seat->budget_max, 0);
	gb_setup_init(&su, &callbreak_game);
	su.seed = 78;
	assert_int_equal(callbreak_game.init(&st, &su), GB_OK);
	for (uint64_t k = 0; k < 60 && callbreak_turn(&st) >= 0; k++) {
		struct gb_action a = { 0 }, b = { 0 };
		struct callbreak_view v;

		/* every bid, then every fourth card (a hard card costs some milliseconds) */
		if (k < CB_SEATS || k % 4 == 0) {
			callbreak_view(&st, callbreak_turn(&st), &v);
			assert_int_equal(gb_ai_seat_choose(&callbreak_game, seat, &st, 0, k, &a), GB_OK);
			assert_int_equal(callbreak_ai_play(&v, &p, k, 0, &b), GB_OK);
			assert_memory_equal(&a, &b, sizeof(a));
			compared++;
		}
		assert_int_equal(gb_ai_choose(&callbreak_game, &st, GB_LEVEL_MEDIUM, k, 0, &a), GB_OK);
		assert_int_equal(callbreak_game.apply(&st, &a, NULL), GB_OK);
	}
	assert_true(compared > CB_SEATS);
}

/* Snakes runs one seat alone for analysis; its seat range names one. */
static void test_snakes_one_seat(void **state)
{
	struct run r;
	json_t *j;

	(void)state;
	r = arena("snakes", "--seats", "random", "--games", "5", "--seed", "4", NULL);
	j = result(&r, "snakes", 5, 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "wins"), 0)), 5);
	json_decref(j);
	run_free(&r);
}

static void test_bad_arguments_are_refused(void **state)
{
	static const char *const bad[][12] = {
		{ "chess", "--seats", "random,random" },
		{ "ludo" },
		{ "ludo", "--seats", "hard,genius" },
		{ "ludo", "--seats", "random" },
		{ "ludo", "--seats", "random,random,random,random,random" },
		{ "ludo", "--seats", "random,,random" },
		{ "ludo", "--seats", "" },
		{ "snakes", "--seats", "easy,random" },
		{ "baghchal", "--seats", "easy,random,random" },
		{ "ludo", "--seats", "random,random", "--games", "0" },
		{ "ludo", "--seats", "random,random", "--games", "-3" },
		{ "ludo", "--seats", "random,random", "--games", "12x" },
		{ "ludo", "--seats", "random,random", "--games", "99999999999999999999" },
		{ "ludo", "--seats", "random,random", "--seed", "-1" },
		{ "ludo", "--seats", "random,random", "--seed", "" },
		{ "ludo", "--seats", "random,random", "--threads", "0" },
		{ "ludo", "--seats", "random,random", "--threads", "1000" },
		{ "ludo", "--seats", "random,random", "--rule", "nosuch=1" },
		{ "ludo", "--seats", "random,random", "--rule", "novalue" },
		{ "ludo", "--seats", "random,random", "--bogus", "1" },
		{ "ludo", "--seats", "random,random", "--games" },
		{ "ludo", "--seats", "random,random", "--verbose" },
		{ "ludo", "--seats", "ismcts,random" },
		{ "baghchal", "--seats", "hard-classic,random" },
		{ "ludo", "--seats", "hard-classical,random" },
		{ "callbreak", "--seats", "ismcts,random,random,random", "--budget", "0" },
		{ "callbreak", "--seats", "ismcts,random,random,random", "--budget", "lots" },
		{ "callbreak", "--seats", "ismcts,random,random,random", "--budget", "1000001" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const *a = bad[i];
		struct run r = arena(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], NULL);

		if (r.status != 2 || r.out[0] || !r.err[0] || !strchr(r.err, '\n'))
			fail_msg("arena %s %s %s %s %s: exit %d, stdout '%s', stderr '%s'", a[0], a[1] ? a[1] : "",
				 a[2] ? a[2] : "", a[3] ? a[3] : "", a[4] ? a[4] : "", r.status, r.out, r.err);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed_same_numbers_whatever_threads),
		cmocka_unit_test(test_other_seed_other_games),
		cmocka_unit_test(test_levels_and_rules_reach_the_games),
		cmocka_unit_test(test_snakes_one_seat),
		cmocka_unit_test(test_ismcts_seats_and_budget),
		cmocka_unit_test(test_hard_classic_seats),
		cmocka_unit_test(test_ludo_hard_classic_is_hard_eval0),
		cmocka_unit_test(test_callbreak_hard_classic_is_old_hard),
		cmocka_unit_test(test_bad_arguments_are_refused),
	};

	return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
