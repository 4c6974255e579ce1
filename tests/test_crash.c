/*
 * test_crash.c - crash safety on a real database file. The console is
 * started on an all-computer game, killed with SIGKILL at different moments
 * in the middle of it, and started again on the same file. Every time the
 * table must continue from its last accepted move (its pending timer
 * included) to the end, with a move log that is complete (1..N, no gaps, no
 * doubles) and that replays from the seed to exactly the stored state.
 * The coin ledger passes store_coins_audit() after every kill and every
 * finish; the Snakes and Ladders game is played for a stake, held before
 * the kill and paid out after the restart.
 */
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "games/game.h"
#include "store/store.h"
#include "tests/fixture.h"

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

/* Start the console on db with a pipe for stdin; returns the pid. */
static pid_t start_console(const char *db, int *in_fd)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(p[0], 0);
		close(p[1]);
		dup2(devnull, 1);
		execl(bin(), bin(), "console", "--db", db, "--seed", "7", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*in_fd = p[1];
	return pid;
}

static void say(int fd, const char *line)
{
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
}


static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Number of logged moves, or -1 while the database or table is not there yet. */
static int moves_now(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int n = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "SELECT count(*) FROM moves", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

/* Wait (up to 20 s) until the game has logged at least one move. */
static void wait_for_first_move(const char *db)
{
	for (int i = 0; i < 4000 && moves_now(db) < 1; i++)
		sleep_ms(5);
	assert_true(moves_now(db) >= 1);
}

struct table_row {
	long long id;
	int status;
	long long seed;
	char game[16];
	char *rules;
	char *state;
	int moves, maxseq;
};

static void read_table(const char *db, struct table_row *t)
{
	sqlite3 *h;
	sqlite3_stmt *st;

	memset(t, 0, sizeof(*t));
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h,
		"SELECT id, status, seed, game, rules, state FROM tables ORDER BY id DESC LIMIT 1",
		-1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	t->id = sqlite3_column_int64(st, 0);
	t->status = sqlite3_column_int(st, 1);
	t->seed = sqlite3_column_int64(st, 2);
	snprintf(t->game, sizeof(t->game), "%s", (const char *)sqlite3_column_text(st, 3));
	t->rules = strdup((const char *)sqlite3_column_text(st, 4));
	t->state = sqlite3_column_text(st, 5) ? strdup((const char *)sqlite3_column_text(st, 5)) : NULL;
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(h,
		"SELECT count(*), coalesce(max(seq), 0) FROM moves WHERE table_id = ?", -1, &st, NULL),
		SQLITE_OK);
	sqlite3_bind_int64(st, 1, t->id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	t->moves = sqlite3_column_int(st, 0);
	t->maxseq = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

/* Replay the move log from the seed; the result must equal the stored state. */
static void check_replay(const char *db, const struct table_row *t)
{
	const struct gb_game *g = gb_game_find(t->game);
	struct gb_setup su;
	json_error_t err;
	json_t *rules = json_loads(t->rules, 0, &err), *stored, *w, *replayed;
	void *st;
	sqlite3 *h;
	sqlite3_stmt *q;
	int n = 0, seats = 0;

	assert_non_null(g);
	assert_non_null(rules);
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM seats WHERE table_id = ?", -1, &q,
					    NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, t->id);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	seats = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	gb_setup_init(&su, g);
	su.players = seats;
	su.seed = (uint64_t)t->seed;
	su.dealer = (int)((uint64_t)t->seed % 4);
	assert_int_equal(gb_rules_from_json(g, &su.rules, rules), GB_OK);
	st = calloc(1, g->state_size);
	assert_non_null(st);
	assert_int_equal(g->init(st, &su), GB_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT seq, action FROM moves WHERE table_id = ? ORDER BY seq",
					    -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, t->id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct gb_action act;

		assert_int_equal(sqlite3_column_int(q, 0), ++n);
		assert_int_equal(g->parse(st, (const char *)sqlite3_column_text(q, 1), &act), GB_OK);
		assert_int_equal(g->apply(st, &act, NULL), GB_OK);
		assert_int_equal(g->check(st), GB_OK);
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	w = json_loads(t->state, 0, &err);
	assert_non_null(w);
	stored = json_object_get(w, "game");
	replayed = gb_state_json(g, st);
	assert_true(json_equal(stored, replayed));
	json_decref(replayed);
	json_decref(w);
	json_decref(rules);
	free(st);
}

/* The ledger of db passes the audit; with user_a, *a and *b get the two wallets of chat 1. */
static void check_ledger(const char *db, const char *user_a, int64_t *a, const char *user_b, int64_t *b)
{
	struct store *s = NULL;
	char why[256];
	int64_t chat = 1;

	assert_int_equal(store_open(&s, db), GB_OK);
	if (store_coins_audit(s, 0, why, sizeof(why)) != GB_OK)
		fail_msg("ledger: %s", why);
	if (user_a) {
		char acct[STORE_ACCOUNT_LEN];

		snprintf(acct, sizeof(acct), "user:%s", user_a);
		assert_int_equal(store_coins_balance(s, chat, acct, a, NULL), GB_OK);
		snprintf(acct, sizeof(acct), "user:%s", user_b);
		assert_int_equal(store_coins_balance(s, chat, acct, b, NULL), GB_OK);
	}
	store_free(s);
}

/* Returns 1 when the kill landed in the middle of the game. */
static int crash_and_resume(const char *game, int kill_after_ms)
{
	char dir[64], db[128], line[64];
	struct table_row before, after;
	int fd, status, mid;
	pid_t pid;

	assert_int_equal(fixture_dir(dir, sizeof(dir), "crash"), 0);
	snprintf(db, sizeof(db), "%s/crash.db", dir);
	pid = start_console(db, &fd);
	snprintf(line, sizeof(line), "alice: /watch %s\n", game);
	say(fd, line);
	wait_for_first_move(db);
	sleep_ms(kill_after_ms);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	read_table(db, &before);
	/* what was accepted is all there, contiguous */
	assert_int_equal(before.moves, before.maxseq);
	mid = before.status == 1 && before.moves > 0;
	if (before.status == 1)
		check_replay(db, &before);
	check_ledger(db, NULL, NULL, NULL, NULL);
	/* start again on the same file: the pending timer carries the game on */
	pid = start_console(db, &fd);
	say(fd, "alice: /board\n");
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	read_table(db, &after);
	assert_int_equal(after.id, before.id);
	assert_int_equal(after.status, 2); /* finished */
	assert_true(after.moves >= before.moves);
	assert_int_equal(after.moves, after.maxseq);
	check_replay(db, &after);
	check_ledger(db, NULL, NULL, NULL, NULL);
	free(before.rules);
	free(before.state);
	free(after.rules);
	free(after.state);
	assert_int_equal(fixture_rm(dir), 0);
	return mid;
}

static void test_crash_ludo_early(void **state)
{
	(void)state;
	crash_and_resume("ludo", 60);
}

static void test_crash_ludo_late(void **state)
{
	(void)state;
	crash_and_resume("ludo", 250);
}

/*
 * Snakes and Ladders between people: the game moves only when someone
 * rolls, so the kill lands mid-game by construction (asserted), after a
 * known number of accepted moves; then the game is played to its end on the
 * restarted service.
 */
static void test_crash_snakes(void **state)
{
	char dir[64], db[128];
	struct table_row before, after;
	int fd, status;
	pid_t pid;

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "crash"), 0);
	snprintf(db, sizeof(db), "%s/crash.db", dir);
	pid = start_console(db, &fd);
	say(fd, "alice: /new snakes\nbob: /join\nalice: /stake 100\nalice: /start\n");
	for (int i = 0; i < 10; i++)
		say(fd, i % 2 ? "bob: /roll\n" : "alice: /roll\n");
	/* a six gives the die back, so some of bob's rolls are refused: at least five land */
	for (int i = 0; i < 4000 && moves_now(db) < 5; i++)
		sleep_ms(5);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	read_table(db, &before);
	/* the kill landed in the middle of the game, after the accepted rolls */
	assert_int_equal(before.status, 1);
	assert_true(before.moves >= 5 && before.moves <= 10);
	assert_int_equal(before.maxseq, before.moves);
	check_replay(db, &before);
	/* the stakes were held before the kill and are in the pot */
	{
		int64_t a = 0, b = 0;

		check_ledger(db, "alice", &a, "bob", &b);
		assert_int_equal(a, 900);
		assert_int_equal(b, 900);
	}
	pid = start_console(db, &fd);
	for (int i = 0; i < 1000; i++)
		say(fd, i % 2 ? "bob: /roll\n" : "alice: /roll\n");
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	read_table(db, &after);
	assert_int_equal(after.id, before.id);
	assert_int_equal(after.status, 2);
	assert_true(after.moves > before.moves);
	assert_int_equal(after.moves, after.maxseq);
	check_replay(db, &after);
	/* the pot went to the winner with the winning move */
	{
		int64_t a = 0, b = 0;

		check_ledger(db, "alice", &a, "bob", &b);
		assert_true((a == 1100 && b == 900) || (a == 900 && b == 1100));
	}
	free(before.rules);
	free(before.state);
	free(after.rules);
	free(after.state);
	assert_int_equal(fixture_rm(dir), 0);
}

static void test_crash_repeated(void **state)
{
	int mid = 0;

	(void)state;
	for (int ms = 20; ms <= 200; ms += 45)
		mid += crash_and_resume("ludo", ms);
	/* the kills must really have interrupted games for this to prove anything */
	assert_true(mid >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crash_ludo_early),
		cmocka_unit_test(test_crash_ludo_late),
		cmocka_unit_test(test_crash_snakes),
		cmocka_unit_test(test_crash_repeated),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
