/*
 * test_router.c - the command path under trouble, on a real SQLite file:
 * a version conflict retried and then answered "busy", a timer that keeps
 * failing backed off and given up, stale and forged button presses
 * refused, the platform's reply handle answered exactly once, a computer
 * move chosen before the transaction used only for its table version, and
 * the limits on computer-only tables.
 *
 * Faults are made the way a real database makes them: triggers that make
 * the table's compare-and-swap find nothing (a conflict) or make the move
 * log refuse rows (a failing write).
 */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "bot/base/limit.h"
#include "bot/base/metrics.h"
#include "bot/bot.h"
#include "bot/commands/choices.h"
#include "bot/lang/i18n.h"
#include "tests/fixture.h"

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "router", 7))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);

	free(f);
	return rc;
}

/* Run SQL on the file through a connection of the test's own. */
static void sql(struct fixture *f, const char *text)
{
	assert_int_equal(fixture_sql(f->db, text), 0);
}

static void make(struct command *cmd, const char *user, const char *text, int64_t now)
{
	memset(cmd, 0, sizeof(*cmd));
	assert_int_equal(command_parse_text(cmd, text), GB_OK);
	snprintf(cmd->platform, sizeof(cmd->platform), "test");
	snprintf(cmd->chat, sizeof(cmd->chat), "chat-1");
	snprintf(cmd->user, sizeof(cmd->user), "%s", user);
	snprintf(cmd->user_name, sizeof(cmd->user_name), "%s", user);
	cmd->now_ms = now;
}

/* cmd: user's press of text on the buttons of table drawn at turn. */
static void press_make(struct command *cmd, const char *user, const char *text, int64_t now, int64_t table,
		       int turn)
{
	make(cmd, user, text, now);
	cmd->button_table = table;
	cmd->button_turn = turn;
}

/* Which of who[0..1] is to move at table's turn (a /roll pressed on its buttons is theirs). */
static int whose_turn(struct fixture *f, const char *const who[2], int64_t table, int turn)
{
	struct command cmd;

	for (int k = 0; k < 2; k++) {
		press_make(&cmd, who[k], "/roll", 0, table, turn);
		if (bot_press_is_own_turn(&f->b, &cmd))
			return k;
	}
	fail_msg("nobody is to move at table %lld, turn %d", (long long)table, turn);
	return -1;
}

static int say(struct fixture *f, const char *user, const char *text)
{
	struct command cmd;

	make(&cmd, user, text, 1000);
	return bot_handle(&f->b, &cmd);
}

/* Every queued reply of the test chat as a JSON array (caller decrefs); the rows are retired. */
static json_t *drain(struct fixture *f)
{
	struct store_out rows[64];
	json_t *all = json_array();
	int n = 0;

	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;

			json_array_append_new(all, json_loads(rows[i].payload, 0, &err));
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	return all;
}

/* How many replies of kind (and, when text is given, containing it). */
static int count_kind(json_t *all, const char *kind, const char *text)
{
	size_t i;
	json_t *r;
	int n = 0;

	json_array_foreach(all, i, r) {
		const char *t = json_string_value(json_object_get(r, "text"));

		if (strcmp(json_string_value(json_object_get(r, "kind")), kind) == 0 &&
		    (!text || (t && strstr(t, text))))
			n++;
	}
	return n;
}

static void open_table(struct fixture *f, struct store_table *t)
{
	struct store_chat chat = { 0 };

	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	assert_int_equal(store_table_open_get(f->b.store, chat.id, t), GB_OK);
	store_chat_release(&chat);
}

static int moves(struct fixture *f)
{
	struct store_table t = { 0 };
	int n = -1;

	open_table(f, &t);
	assert_int_equal(store_move_count(f->b.store, t.id, &n), GB_OK);
	store_table_release(&t);
	return n;
}

static void test_conflict_retried_then_busy(void **state)
{
	struct fixture *f = *state;
	struct store_table t = { 0 };
	struct store_seat seats[4];
	int n = 0;
	json_t *out;

	assert_int_equal(say(f, "alice", "/new ludo"), GB_OK);
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	json_decref(drain(f));
	/* another writer always got there first: the compare-and-swap matches no row */
	sql(f, "CREATE TRIGGER always_moved BEFORE UPDATE ON tables BEGIN SELECT RAISE(IGNORE); END;");
	f->b.conflicts = 0;
	assert_int_equal(say(f, "alice", "/addbot easy"), GB_ECONFLICT);
	assert_int_equal(f->b.conflicts, 4);
	out = drain(f);
	assert_int_equal(json_array_size(out), 1);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_BUSY)), 1);
	json_decref(out);
	open_table(f, &t);
	assert_int_equal(store_seats_get(f->b.store, t.id, seats, 4, &n), GB_OK);
	assert_int_equal(n, 2); /* nothing of the refused command landed */
	store_table_release(&t);
	/* once the other writer is gone the same command goes through */
	sql(f, "DROP TRIGGER always_moved;");
	assert_int_equal(say(f, "alice", "/addbot easy"), GB_OK);
	open_table(f, &t);
	assert_int_equal(store_seats_get(f->b.store, t.id, seats, 4, &n), GB_OK);
	assert_int_equal(n, 3);
	store_table_release(&t);
}

static void test_failing_timer_backs_off_and_gives_up(void **state)
{
	struct fixture *f = *state;
	struct store_timer tm;
	int64_t now = 1000;
	int runs = 0;
	json_t *out;

	assert_int_equal(say(f, "alice", "/watch ludo"), GB_OK);
	json_decref(drain(f));
	assert_int_equal(store_timer_next(f->b.store, &tm), GB_OK);
	sql(f, "CREATE TRIGGER log_broken BEFORE INSERT ON moves"
	       " BEGIN SELECT RAISE(ABORT, 'disk trouble'); END;");
	now = tm.due_ms;
	while (store_timer_next(f->b.store, &tm) == GB_OK && runs < 50) {
		int64_t due = tm.due_ms;

		assert_true(due >= now); /* never due again at once: it backs off */
		now = due;
		assert_int_equal(bot_run_timers(&f->b, now, BOT_TIMER_ALL), 0);
		/* the same moment again fires nothing: the failed timer waits */
		assert_int_equal(bot_run_timers(&f->b, now, BOT_TIMER_ALL), 0);
		runs++;
	}
	assert_int_equal(runs, 5);
	assert_int_equal(store_timer_next(f->b.store, &tm), GB_ENOTFOUND);
	assert_int_equal(moves(f), 0);
	/* nobody typed anything: no "something went wrong" messages piled up */
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", NULL), 0);
	json_decref(out);
}

static void test_stale_and_forged_buttons_refused(void **state)
{
	struct fixture *f = *state;
	struct store_table t = { 0 };
	struct command cmd;
	json_t *out;
	int64_t id;

	assert_int_equal(say(f, "alice", "/new snakes"), GB_OK);
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	assert_int_equal(say(f, "alice", "/start"), GB_OK);
	json_decref(drain(f));
	open_table(f, &t);
	id = t.id;
	store_table_release(&t);

	/* alice's Roll button, shown at turn 0 */
	press_make(&cmd, "alice", "/roll", 2000, id, 0);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 1);
	json_decref(drain(f));

	/* the same button again (its turn has passed): refused, nothing changes */
	press_make(&cmd, "bob", "/roll", 3000, id, 0);
	snprintf(cmd.reply, sizeof(cmd.reply), "cb-stale");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 1);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_STALE_BUTTON)), 1);
	assert_int_equal(count_kind(out, "table", NULL), 0);
	json_decref(out);

	/* a forged press naming another table */
	press_make(&cmd, "bob", "/roll", 3000, id + 1000, 1);
	snprintf(cmd.reply, sizeof(cmd.reply), "cb-forged");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 1);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_STALE_BUTTON)), 1);
	json_decref(out);

	/* a stale pick with no handle to answer in place (an inline result): nothing said */
	press_make(&cmd, "bob", "/roll", 3000, id, 0);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 1);
	out = drain(f);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);

	/* bob's button of this turn works */
	press_make(&cmd, "bob", "/roll", 3000, id, 1);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 2);
	json_decref(drain(f));
}

static void test_reply_handle_answered_once(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	json_t *out, *r;
	size_t i;

	/* a command that answers with a table message: one ack carries the handle, the table does not */
	make(&cmd, "alice", "/new ludo", 1000);
	snprintf(cmd.reply, sizeof(cmd.reply), "cb-1");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_true(json_array_size(out) >= 2);
	assert_int_equal(count_kind(out, "ack", NULL), 1);
	assert_int_equal(count_kind(out, "alert", NULL), 0);
	json_array_foreach(out, i, r) {
		const char *kind = json_string_value(json_object_get(r, "kind"));

		if (!strcmp(kind, "ack"))
			assert_string_equal(json_string_value(json_object_get(r, "reply")), "cb-1");
		else
			assert_null(json_object_get(r, "reply"));
		/* every row names the command it came from */
		assert_string_equal(json_string_value(json_object_get(r, "origin")), "cb-1");
		assert_true(json_is_integer(json_object_get(r, "table")));
		assert_int_equal(json_integer_value(json_object_get(r, "turn")), 0);
	}
	json_decref(out);

	/* a refusal answers the handle with its alert, and no ack */
	make(&cmd, "bob", "/start", 1000);
	snprintf(cmd.reply, sizeof(cmd.reply), "cb-2");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "ack", NULL), 0);
	assert_int_equal(count_kind(out, "alert", NULL), 1);
	json_array_foreach(out, i, r)
		assert_string_equal(json_string_value(json_object_get(r, "reply")), "cb-2");
	json_decref(out);

	/* without a handle there is nothing to acknowledge */
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "ack", NULL), 0);
	json_array_foreach(out, i, r) {
		assert_null(json_object_get(r, "reply"));
		assert_null(json_object_get(r, "origin"));
	}
	json_decref(out);
}

/* The move a computer timer plays is the one chosen before the transaction, for that version only. */
static void test_timer_uses_choice_for_its_version(void **state)
{
	struct fixture *f = *state;
	struct store_timer tm;
	struct store_table t = { 0 };
	struct command cmd;

	assert_int_equal(say(f, "alice", "/watch baghchal"), GB_OK);
	json_decref(drain(f));
	assert_int_equal(store_timer_next(f->b.store, &tm), GB_OK);
	assert_string_equal(tm.kind, "bot");
	open_table(f, &t);

	/* a choice for an older version of the table is ignored: the timer is stale */
	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.verb, sizeof(cmd.verb), "_timer");
	cmd.internal = true;
	cmd.now_ms = tm.due_ms;
	snprintf(cmd.args, sizeof(cmd.args), "bot %lld %lld", (long long)t.id, (long long)t.version - 1);
	cmd.has_choice = true;
	cmd.choice = (struct gb_action){ .kind = GB_ACT_PLACE, .a = 12 };
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 0);

	/* for the current version it is played as chosen (c3 is the centre point, 12) */
	snprintf(cmd.args, sizeof(cmd.args), "bot %lld %lld", (long long)t.id, (long long)t.version);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(moves(f), 1);
	store_table_release(&t);
	open_table(f, &t);
	assert_non_null(strstr(t.state, "\"log\""));
	store_table_release(&t);
	{
		sqlite3 *db = NULL;
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT action FROM moves WHERE seq = 1", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "place c3");
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	json_decref(drain(f));
}

static void test_watch_limits(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	json_t *out;

	f->b.cfg.watch_per_hour = 2;
	f->b.cfg.watch_max = 0;
	for (int i = 0; i < 2; i++) {
		make(&cmd, "alice", "/watch snakes", 1000 + i * 1000);
		assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
		make(&cmd, "alice", "/stop", 1500 + i * 1000);
		cmd.is_admin = true;
		assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	}
	json_decref(drain(f));
	make(&cmd, "alice", "/watch snakes", 5000);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", "last hour"), 1);
	assert_int_equal(count_kind(out, "table", NULL), 0);
	json_decref(out);
	/* an hour later the chat may watch again */
	make(&cmd, "alice", "/watch snakes", 5000 + 3600 * 1000);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "table", NULL), 1);
	json_decref(out);

	/* the service-wide cap counts open computer tables of every chat */
	f->b.cfg.watch_per_hour = 0;
	f->b.cfg.watch_max = 1;
	make(&cmd, "carol", "/watch ludo", 9000 + 3600 * 1000);
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-2");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_WATCH_FULL)), 1);
	assert_int_equal(count_kind(out, "table", NULL), 0);
	json_decref(out);
}


/*
 * A flood from one user: one polite answer, then silence for the rest of
 * the minute, nothing of it stored; another chat is served all the while,
 * and its commands keep their speed (the flood never reaches the store).
 */
static void test_flood_limited_politely(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	json_t *out;
	int64_t flood_us, calm_us = 0;
	int calm = 0;

	limit_reset();
	metrics_reset();
	f->b.cfg.rate_user_per_min = 10;
	f->b.cfg.rate_chat_per_min = 40;
	for (int i = 0; i < 200; i++) {
		struct timespec a, z;

		make(&cmd, "mallory", "/help", 10000 + i);
		/* ten served, one told to slow down, the rest dropped */
		assert_int_equal(bot_handle(&f->b, &cmd), i <= 10 ? GB_OK : GB_ELIMIT);
		if (i % 20 == 0) {
			/* the other chat, in the middle of the flood (within its own limit) */
			make(&cmd, "alice", "/help", 10000 + i);
			snprintf(cmd.chat, sizeof(cmd.chat), "chat-2");
			clock_gettime(CLOCK_MONOTONIC, &a);
			assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
			clock_gettime(CLOCK_MONOTONIC, &z);
			calm_us += (z.tv_sec - a.tv_sec) * 1000000 + (z.tv_nsec - a.tv_nsec) / 1000;
			calm++;
		}
	}
	out = drain(f);
	/* chat-1: ten answers to mallory's help, one "slow down", nothing more */
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 1);
	assert_true(metrics_value("gamebot_rate_limited_total", "scope=\"user\"") == 190);
	json_decref(out);
	/* every command of the other chat was served */
	assert_true(metrics_value("gamebot_commands_total", "verb=\"help\",result=\"ok\"") == 10 + calm);
	assert_int_equal(calm, 10);
	/* the flood never reached the store: only the served commands held a transaction */
	assert_true(metrics_value("gamebot_store_transaction_ms", NULL) == 10 + calm);
	flood_us = calm_us / calm;
	print_message("the other chat's /help during the flood: %lld us on average\n", (long long)flood_us);
	/* a minute later mallory is heard again */
	make(&cmd, "mallory", "/help", 10000 + 61000);
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 0);
	assert_true(json_array_size(out) >= 1);
	json_decref(out);
	/* internal commands (computer turns) are never limited */
	assert_true(metrics_value("gamebot_rate_limited_total", "scope=\"user\"") == 190);
	limit_reset();
}

/* The open table of chat-1 and the moves logged at it. */
static void table_now(struct fixture *f, int64_t *id, int *moves)
{
	struct store_chat chat = { 0 };
	struct store_table t = { 0 };

	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	assert_int_equal(store_table_open_get(f->b.store, chat.id, &t), GB_OK);
	*id = t.id;
	assert_int_equal(store_move_count(f->b.store, t.id, moves), GB_OK);
	store_table_release(&t);
	store_chat_release(&chat);
}

/*
 * Defect: a player pressing their own turn's buttons quickly (598 presses
 * in a Snakes game) was told "That is a lot of commands at once" 7 times.
 * Presses of the player to move on the current table message are not
 * counted; a flood of stale presses still is.
 */
static void test_own_turn_presses_not_limited(void **state)
{
	static const char *const who[2] = { "alice", "bob" };
	struct fixture *f = *state;
	struct command cmd;
	json_t *out;
	int64_t id;
	int moves = 0, before, pressed = 0, refused = 0, mover, rc;

	limit_reset();
	f->b.cfg.rate_user_per_min = 5;
	f->b.cfg.rate_chat_per_min = 1000;
	assert_int_equal(say(f, "alice", "/new snakes"), GB_OK);
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	assert_int_equal(say(f, "alice", "/start"), GB_OK);
	json_decref(drain(f));
	table_now(f, &id, &before);
	for (int i = 0; i < 40; i++) {
		table_now(f, &id, &moves);
		press_make(&cmd, who[whose_turn(f, who, id, moves)], "/roll", 2000 + i, id, moves);
		assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
		pressed++;
	}
	assert_int_equal(pressed, 40);
	table_now(f, &id, &moves);
	assert_true(moves >= before + 40);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 0);
	json_decref(out);
	/* stale presses (an earlier turn) count: the sixth in the minute is refused */
	for (int i = 0; i < 10; i++) {
		press_make(&cmd, "alice", "/roll", 3000 + i, id, before);
		rc = bot_handle(&f->b, &cmd);
		assert_true(rc == GB_OK || rc == GB_ELIMIT);
	}
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 1);
	json_decref(out);
	limit_reset();
	/* the current turn's data carrying another command than a move counts: /board posts a table */
	table_now(f, &id, &moves);
	mover = whose_turn(f, who, id, moves);
	for (int i = 0; i < 12; i++) {
		press_make(&cmd, who[mover], "/board", 4000 + i, id, moves);
		rc = bot_handle(&f->b, &cmd);
		assert_true(rc == GB_OK || rc == GB_ELIMIT);
		refused += rc == GB_ELIMIT;
	}
	/* the per-person five a minute, one polite answer, then nothing */
	assert_int_equal(refused, 12 - 5 - 1);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 1);
	json_decref(out);
	limit_reset();
}

/*
 * Whether a press is its presser's turn is read from the decoded state the
 * command itself uses (the state cache), not decoded again: a press on a
 * table in play is one cache hit and no miss, and the answer is the same.
 */
static void test_own_turn_press_reads_decoded_state(void **state)
{
	static const char *const who[2] = { "alice", "bob" };
	struct fixture *f = *state;
	struct bot_cache_stats before, after;
	struct command cmd;
	int64_t id;
	int moves = 0, own = 0;

	assert_int_equal(say(f, "alice", "/new snakes"), GB_OK);
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	assert_int_equal(say(f, "alice", "/start"), GB_OK);
	json_decref(drain(f));
	table_now(f, &id, &moves);
	for (int k = 0; k < 2; k++) {
		press_make(&cmd, who[k], "/roll", 2000, id, moves);
		bot_state_cache_stats(&before);
		own += bot_press_is_own_turn(&f->b, &cmd);
		bot_state_cache_stats(&after);
		assert_int_equal(after.hits, before.hits + 1);
		assert_int_equal(after.misses, before.misses);
	}
	/* one of the two is to move */
	assert_int_equal(own, 1);
	json_decref(drain(f));
}

/* Many people in one chat: the chat's own limit, once per window. */
static void test_chat_limit(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	json_t *out;
	char user[16];

	limit_reset();
	metrics_reset();
	f->b.cfg.rate_user_per_min = 5;
	f->b.cfg.rate_chat_per_min = 12;
	for (int i = 0; i < 30; i++) {
		snprintf(user, sizeof(user), "p%d", i % 6);
		make(&cmd, user, "/help", 1000 + i);
		assert_int_equal(bot_handle(&f->b, &cmd), i <= 12 ? GB_OK : GB_ELIMIT);
	}
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"help\",result=\"ok\"") == 12);
	assert_true(metrics_value("gamebot_rate_limited_total", "scope=\"chat\"") == 18);
	json_decref(out);
	limit_reset();
}

/*
 * The chat's settings carry no version: a command that changes them is
 * checked against what it read. Here another writer (a trigger) changes
 * them inside every attempt's write, so every attempt must see the change
 * and refuse to overwrite it: "busy", and nothing lost. Without the other
 * writer the same command goes through.
 */
static void test_settings_change_in_between_not_lost(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	struct store_chat chat = { 0 };
	json_t *out;

	assert_int_equal(say(f, "alice", "/help"), GB_OK);
	json_decref(drain(f));
	sql(f, "CREATE TRIGGER other_writer AFTER INSERT ON processed BEGIN"
	       " UPDATE chats SET settings = json_set(settings, '$.other', 1); END;");
	f->b.conflicts = 0;
	make(&cmd, "alice", "/speed fast", 2000);
	cmd.is_admin = true;
	snprintf(cmd.update_id, sizeof(cmd.update_id), "u-1");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_ECONFLICT);
	assert_int_equal(f->b.conflicts, 4);
	out = drain(f);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_BUSY)), 1);
	json_decref(out);
	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	assert_null(strstr(chat.settings, "speed"));
	store_chat_release(&chat);

	sql(f, "DROP TRIGGER other_writer;");
	snprintf(cmd.update_id, sizeof(cmd.update_id), "u-2");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	assert_non_null(strstr(chat.settings, "\"speed\":\"fast\""));
	store_chat_release(&chat);
	json_decref(drain(f));
}

struct racer {
	const char *db;
	int id;
	int errors;
	int conflicts;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct bot b;
	char chat[16];

	memset(&b, 0, sizeof(b));
	bot_config_init(&b.cfg);
	b.cfg.seed = 11;
	if (store_open(&b.store, r->db)) {
		r->errors++;
		return NULL;
	}
	snprintf(chat, sizeof(chat), "race-%d", r->id);
	for (int i = 0; i < 60; i++) {
		struct command cmd;
		const char *text = i == 0 ? "/new snakes" : i == 1 ? "/join" : i == 2 ? "/start" : "/roll";
		const char *user = i == 1 || (i > 2 && i % 2 == 0) ? "bob" : "alice";

		make(&cmd, user, text, 1000 + i);
		snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat);
		if (bot_handle(&b, &cmd))
			r->errors++;
	}
	r->conflicts = (int)b.conflicts;
	store_free(b.store);
	return NULL;
}

/* Four threads, four handles, four chats at once: every command lands, none waits on another's table. */
static void test_threads_write_in_turn(void **state)
{
	struct fixture *f = *state;
	pthread_t th[4];
	struct racer r[4];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	for (int i = 0; i < 4; i++) {
		r[i] = (struct racer){ .db = f->db, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].errors, 0);
		assert_int_equal(r[i].conflicts, 0); /* different chats never conflict */
	}
	/* every chat's log is complete: 1..N with no gap, as many moves as accepted rolls */
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), max(seq), count(DISTINCT table_id) FROM moves",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 2), 4);
	assert_true(sqlite3_column_int(st, 0) >= 4 * 20);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM (SELECT table_id FROM moves GROUP BY"
					    " table_id HAVING max(seq) <> count(*))", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* What one SQL query of a single number gives on the file at path. */
static int count_in(const char *path, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int n;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/*
 * The log strip is saved as one string of events; a strip saved by an
 * earlier version (an array of [type, seat, a, b, c]) still reads, and a
 * strip no move touched is written back exactly as it was.
 */
static void test_log_strip_saved_compact_old_read(void **state)
{
	struct fixture *f = *state;
	json_t *all;

	assert_int_equal(say(f, "alice", "/new ludo"), GB_OK);
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	assert_int_equal(say(f, "alice", "/start"), GB_OK);
	json_decref(drain(f));
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM tables WHERE json_type(state, '$.log') = 'text'"), 1);
	/* an older strip: an event of no game at the ends of int, player 1 rolled 5, player 2 rolled 3 */
	sql(f, "UPDATE tables SET state = json_set(state, '$.log',"
	       " json('[[99,0,2147483647,-2147483648,0],[1,0,5,0,0],[1,1,3,0,0]]'))");
	assert_int_equal(say(f, "bob", "/board"), GB_OK);
	all = drain(f);
	assert_int_equal(count_kind(all, "table", "alice rolled 5\nbob rolled 3"), 1);
	json_decref(all);
	/* a move adds to it, and the whole strip is saved in the new form */
	assert_int_equal(say(f, "alice", "/roll"), GB_OK);
	json_decref(drain(f));
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM tables WHERE state ->> '$.log' LIKE"
				  " '99 0 2147483647 -2147483648 0,1 0 5 0 0,1 1 3 0 0,1 0 %'"), 1);
	/* a seat change saves the table (here a new one's lobby): the old strip goes back as it was */
	assert_int_equal(say(f, "alice", "/stop"), GB_OK);
	assert_int_equal(say(f, "alice", "/new ludo"), GB_OK);
	sql(f, "UPDATE tables SET state = json_set(state, '$.log', json('[[1,0,5,0,0]]')) WHERE status = 0");
	assert_int_equal(say(f, "bob", "/join"), GB_OK);
	json_decref(drain(f));
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM tables WHERE status = 0 AND version > 1 AND"
				  " json(state ->> '$.log') = '[[1,0,5,0,0]]'"), 1);
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM seats WHERE user_id = 'bob' AND table_id ="
				  " (SELECT id FROM tables WHERE status = 0)"), 1);
}

/*
 * Two databases served by one process at once: commands waiting to write
 * together are batched per database, so each lands in its own file.
 */
static void test_two_databases_one_process(void **state)
{
	struct fixture *f = *state;
	char db2[160];
	pthread_t th[4];
	struct racer r[4];

	snprintf(db2, sizeof(db2), "%s/other.db", f->dir);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct racer){ .db = i % 2 ? db2 : f->db, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].errors, 0);
	}
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM chats WHERE chat IN ('race-0', 'race-2')"), 2);
	assert_int_equal(count_in(f->db, "SELECT count(*) FROM chats WHERE chat IN ('race-1', 'race-3')"), 0);
	assert_int_equal(count_in(db2, "SELECT count(*) FROM chats WHERE chat IN ('race-1', 'race-3')"), 2);
	assert_int_equal(count_in(db2, "SELECT count(*) FROM chats WHERE chat IN ('race-0', 'race-2')"), 0);
	/* and every table's log there is whole: 1..N, no gap */
	assert_int_equal(count_in(f->db, "SELECT count(DISTINCT table_id) FROM moves"), 2);
	assert_int_equal(count_in(db2, "SELECT count(DISTINCT table_id) FROM moves"), 2);
	assert_int_equal(count_in(db2, "SELECT count(*) FROM (SELECT table_id FROM moves GROUP BY table_id"
				       " HAVING max(seq) <> count(*))"), 0);
}

/*
 * Past the limit's one warning a press writes nothing: no ack row for its
 * reply handle (the adapter answers it without one, or not at all), no
 * transaction.
 */
static void test_over_limit_press_writes_nothing(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	json_t *out;

	limit_reset();
	metrics_reset();
	f->b.cfg.rate_user_per_min = 3;
	f->b.cfg.rate_chat_per_min = 1000;
	for (int i = 0; i < 3; i++) {
		make(&cmd, "mallory", "/help", 5000 + i);
		snprintf(cmd.reply, sizeof(cmd.reply), "cb%d", i);
		assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	}
	json_decref(drain(f));
	for (int i = 3; i < 20; i++) {
		make(&cmd, "mallory", "/help", 5000 + i);
		snprintf(cmd.reply, sizeof(cmd.reply), "cb%d", i);
		assert_int_equal(bot_handle(&f->b, &cmd), i == 3 ? GB_OK : GB_ELIMIT);
	}
	out = drain(f);
	/* the one warning, answering the first press over; the sixteen after it left nothing */
	assert_int_equal(json_array_size(out), 1);
	assert_int_equal(count_kind(out, "alert", tr(LANG_EN, M_SLOW_DOWN)), 1);
	assert_int_equal(count_kind(out, "ack", NULL), 0);
	assert_true(metrics_value("gamebot_store_transaction_ms", NULL) == 3);
	json_decref(out);
	limit_reset();
}

/*
 * A flood of distinct keys fills the table of windows: a key that finds
 * no slot is refused, never let through unlimited; a minute later the
 * slots are free again.
 */
static void test_limit_table_full_refuses(void **state)
{
	const char *scope = NULL;
	char user[24];
	int refused = 0;

	(void)state;
	limit_size(8192);
	for (int i = 0; i < 100000; i++) {
		snprintf(user, sizeof(user), "u%d", i);
		if (limit_check("test", "c", user, 1000, 5, 0, &scope) != LIMIT_OK)
			refused++;
	}
	print_message("      %d of 100000 new keys found no slot and were refused\n", refused);
	assert_true(refused > 0);
	assert_int_equal(limit_check("test", "c", "late", 1000 + 61000, 5, 0, &scope), LIMIT_OK);
	limit_size(LIMIT_SLOTS_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_conflict_retried_then_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_timer_backs_off_and_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_and_forged_buttons_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_handle_answered_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timer_uses_choice_for_its_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_limited_politely, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chat_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_limit_press_writes_nothing, setup, teardown),
		cmocka_unit_test(test_limit_table_full_refuses),
		cmocka_unit_test_setup_teardown(test_own_turn_presses_not_limited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_turn_press_reads_decoded_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_change_in_between_not_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_write_in_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_databases_one_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_strip_saved_compact_old_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
