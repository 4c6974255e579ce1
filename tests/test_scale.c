/*
 * test_scale.c - what keeps a command's cost flat however many chats
 * play, on a real SQLite file: the decoded states kept for every table in
 * play (bounded, the least recently used making room, counted for
 * /metrics), the rate limits' windows for 20,000 chats, and a database
 * aged by months of play pruned to what it must keep.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "bot/base/limit.h"
#include "bot/base/metrics.h"
#include "bot/bot.h"
#include "tests/fixture.h"

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "scale", 5))
		return -1;
	bot_state_cache_size(BOT_STATE_CACHE_DEFAULT);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	bot_state_cache_size(BOT_STATE_CACHE_DEFAULT);
	rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);
	free(f);
	return rc;
}

/* A connection of its own to the file, as another program would have. */
static sqlite3 *open_file(struct fixture *f)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* What one SQL query of a single number gives on the file. */
static long long count_in(struct fixture *f, const char *query)
{
	sqlite3 *db = open_file(f);
	sqlite3_stmt *st = NULL;
	long long n;

	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Run sql on the file as another program would (another instance's writes). */
static void exec_in(struct fixture *f, const char *sql)
{
	sqlite3 *db = open_file(f);

	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* user says text in chat number chat at now. */
static int say_in(struct fixture *f, int chat, const char *user, const char *text, int64_t now)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-%d", chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.now_ms = now;
	return bot_handle(&f->b, &cmd);
}

/* The newest table message queued for chat (caller frees), every row of the platform retired. */
static char *last_board(struct fixture *f, int chat)
{
	struct store_out rows[64];
	char want[32], *board = NULL;
	int n = 0;

	snprintf(want, sizeof(want), "chat-%d", chat);
	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;
			json_t *r = json_loads(rows[i].payload, 0, &err);

			if (!strcmp(rows[i].chat, want) &&
			    !strcmp(json_string_value(json_object_get(r, "kind")), "table")) {
				free(board);
				board = strdup(json_string_value(json_object_get(r, "text")));
			}
			json_decref(r);
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	return board;
}

#define CHATS 300

static void open_tables(struct fixture *f, int chats)
{
	for (int i = 0; i < chats; i++) {
		assert_int_equal(say_in(f, i, "alice", "/new snakes", 1000), GB_OK);
		assert_int_equal(say_in(f, i, "bob", "/join", 1000), GB_OK);
		assert_int_equal(say_in(f, i, "alice", "/start", 1000), GB_OK);
	}
	free(last_board(f, 0));
}

/*
 * More tables in play than the old fixed 256 slots held: with the default
 * capacity every command on a table in play finds its state decoded, in
 * whatever order the chats come.
 */
static void test_states_kept_for_every_table_in_play(void **state)
{
	struct fixture *f = *state;
	struct bot_cache_stats before, after;

	open_tables(f, CHATS);
	bot_state_cache_stats(&before);
	assert_true(before.entries >= CHATS);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < CHATS; i++)
			assert_int_equal(say_in(f, (i * 7 + round) % CHATS, "bob", "/board", 2000), GB_OK);
	bot_state_cache_stats(&after);
	assert_int_equal(after.hits - before.hits, 2 * CHATS);
	assert_int_equal(after.misses - before.misses, 0);
	assert_int_equal(after.evictions, before.evictions);
	/* what each entry holds is counted: a Snakes table's text and state, at least */
	assert_true(after.bytes >= after.entries * 200);
	free(last_board(f, 0));
}

/*
 * A capacity below the tables in play: the least recently used entry makes
 * room, never more than the capacity is held, and a table whose entry went
 * is decoded afresh to the very same state (its boards as without any
 * entries at all).
 */
static void test_states_bounded_and_right_when_pushed_out(void **state)
{
	struct fixture *f = *state;
	struct bot_cache_stats s0, s1;
	char *kept[8], *fresh;

	bot_state_cache_size(100);
	open_tables(f, CHATS);
	bot_state_cache_stats(&s0);
	assert_true(s0.entries <= 100);
	assert_int_equal(s0.capacity, 100);
	/* a rotation through 300 tables: each one's entry was pushed out by the 100 after it */
	for (int i = 0; i < CHATS; i++) {
		assert_int_equal(say_in(f, i, i % 2 ? "bob" : "alice", "/roll", 3000), GB_OK);
		assert_int_equal(say_in(f, i, i % 2 ? "alice" : "bob", "/roll", 3000), GB_OK);
	}
	bot_state_cache_stats(&s1);
	assert_true(s1.entries <= 100);
	assert_true(s1.evictions - s0.evictions >= CHATS - 100);
	assert_true(s1.misses - s0.misses >= CHATS);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(say_in(f, i * 37, "bob", "/board", 4000), GB_OK);
		kept[i] = last_board(f, i * 37);
		assert_non_null(kept[i]);
	}
	/* the same boards from states decoded with nothing kept */
	bot_state_cache_size(0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(say_in(f, i * 37, "bob", "/board", 4000), GB_OK);
		fresh = last_board(f, i * 37);
		assert_string_equal(fresh, kept[i]);
		free(fresh);
		free(kept[i]);
	}
	bot_state_cache_stats(&s0);
	assert_int_equal(s0.entries, 0);
	/* and every log is whole: 1..N, no gap */
	assert_int_equal(count_in(f, "SELECT count(*) FROM (SELECT table_id FROM moves GROUP BY table_id"
				     " HAVING max(seq) <> count(*))"), 0);
}

/*
 * The rate limits' windows at 20,000 chats in play, each with two people:
 * 60,000 keys live in one minute, every one placed (the table of 8,192
 * slots it had refused most of them, limits on by default).
 */
static void test_limit_windows_hold_twenty_thousand_chats(void **state)
{
	const char *scope = NULL;
	char chat[24], user[24];
	struct limit_stats ls;
	int refused = 0;

	(void)state;
	limit_size(LIMIT_SLOTS_DEFAULT);
	limit_reset();
	for (int i = 0; i < 20000; i++)
		for (int u = 0; u < 2; u++) {
			snprintf(chat, sizeof(chat), "-100%d", i);
			snprintf(user, sizeof(user), "%d", 2 * i + u);
			if (limit_check("telegram", chat, user, 1000 + i, 30, 120, &scope) != LIMIT_OK)
				refused++;
		}
	limit_stats(30000, &ls);
	assert_int_equal(refused, 0);
	assert_int_equal(ls.no_slot, 0);
	assert_int_equal(ls.live, 60000);
	assert_int_equal(ls.slots, LIMIT_SLOTS_DEFAULT);
	/* the chat's window was found by its second person; a person's second command finds both */
	assert_int_equal(ls.found, 20000);
	snprintf(chat, sizeof(chat), "-100%d", 77);
	assert_int_equal(limit_check("telegram", chat, "154", 2000, 30, 120, &scope), LIMIT_OK);
	limit_stats(30000, &ls);
	assert_int_equal(ls.found, 20002);
	limit_reset();
}

/*
 * A table's seats, last move and terms come with its decoded state only
 * at a version this process wrote: another instance's write of the row
 * (another version, the same state text) is read from the store.
 */
static void test_table_facts_follow_the_version(void **state)
{
	struct fixture *f = *state;
	struct bot_cache_stats s0, s1;
	char *board;

	open_tables(f, 1);
	assert_int_equal(say_in(f, 0, "alice", "/roll", 2000), GB_OK);
	free(last_board(f, 0));
	bot_state_cache_stats(&s0);
	assert_int_equal(say_in(f, 0, "bob", "/board", 2100), GB_OK);
	bot_state_cache_stats(&s1);
	assert_int_equal(s1.facts_hits - s0.facts_hits, 1);
	assert_int_equal(s1.facts_misses - s0.facts_misses, 0);
	board = last_board(f, 0);
	assert_non_null(board);
	assert_null(strstr(board, "Zed"));
	free(board);

	exec_in(f, "UPDATE seats SET name = 'Zed' WHERE seat = 1;"
		   " UPDATE tables SET version = version + 1");
	bot_state_cache_stats(&s0);
	assert_int_equal(say_in(f, 0, "bob", "/board", 2200), GB_OK);
	bot_state_cache_stats(&s1);
	assert_int_equal(s1.hits - s0.hits, 1); /* the same text: still decoded, not read again */
	assert_int_equal(s1.facts_hits - s0.facts_hits, 0);
	assert_int_equal(s1.facts_misses - s0.facts_misses, 1);
	board = last_board(f, 0);
	assert_non_null(board);
	assert_non_null(strstr(board, "Zed"));
	free(board);

	/* the next moves are numbered after the log: 1..N, no gap, none twice */
	assert_int_equal(say_in(f, 0, "bob", "/roll", 2300), GB_OK);
	assert_int_equal(say_in(f, 0, "alice", "/roll", 2400), GB_OK);
	assert_true(count_in(f, "SELECT max(seq) FROM moves") >= 2);
	assert_int_equal(count_in(f, "SELECT max(seq) - count(*) FROM moves"), 0);
	free(last_board(f, 0));
}

/* /metrics shows each cache's counts as the caches keep them. */
static void test_cache_series_in_metrics(void **state)
{
	struct fixture *f = *state;
	struct bot_cache_stats cs;

	metrics_reset();
	open_tables(f, 3);
	assert_int_equal(say_in(f, 1, "bob", "/board", 2000), GB_OK);
	bot_state_cache_stats(&cs);
	bot_caches_publish(2000);
	assert_true(cs.hits > 0);
	assert_true(metrics_value("gamebot_cache_hits_total", "cache=\"states\"") == (double)cs.hits);
	assert_true(metrics_value("gamebot_cache_misses_total", "cache=\"states\"") == (double)cs.misses);
	assert_true(metrics_value("gamebot_cache_entries", "cache=\"states\"") == (double)cs.entries);
	assert_true(metrics_value("gamebot_cache_capacity", "cache=\"states\"") == BOT_STATE_CACHE_DEFAULT);
	assert_true(metrics_value("gamebot_cache_bytes", "cache=\"states\"") == (double)cs.bytes);
	assert_true(metrics_value("gamebot_cache_hits_total", "cache=\"table_facts\"") == (double)cs.facts_hits);
	assert_true(metrics_value("gamebot_cache_misses_total", "cache=\"table_facts\"") ==
		    (double)cs.facts_misses);
	assert_true(metrics_value("gamebot_cache_capacity", "cache=\"rate_limits\"") == LIMIT_SLOTS_DEFAULT);
	/* SQLite's pages, found in a connection's cache or read */
	assert_true(metrics_value("gamebot_cache_hits_total", "cache=\"sqlite_pages\"") > 0);
	assert_true(metrics_value("gamebot_cache_misses_total", "cache=\"sqlite_pages\"") > 0);
	free(last_board(f, 0));
}

#define DAY (24LL * 3600 * 1000)
#define NOW (400 * DAY)

/* The alerts and lines queued for chat (joined), every row of the platform retired. */
static char *said(struct fixture *f, int chat)
{
	struct store_out rows[64];
	char want[32];
	char *all = calloc(1, 1);
	size_t len = 0;
	int n = 0;

	snprintf(want, sizeof(want), "chat-%d", chat);
	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;
			json_t *r = json_loads(rows[i].payload, 0, &err);
			const char *t = json_string_value(json_object_get(r, "text"));

			if (!strcmp(rows[i].chat, want) && t) {
				all = realloc(all, len + strlen(t) + 2);
				memcpy(all + len, t, strlen(t) + 1);
				len += strlen(t);
				all[len++] = '\n';
				all[len] = '\0';
			}
			json_decref(r);
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	return all;
}

/* A Snakes table in chat opened at opened (a few moves made then), stopped at ended (0: left open). */
static int64_t aged_table(struct fixture *f, int chat, int64_t opened, int64_t ended)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	int64_t id;

	assert_int_equal(say_in(f, chat, "alice", "/new snakes", opened), GB_OK);
	assert_int_equal(say_in(f, chat, "bob", "/join", opened), GB_OK);
	assert_int_equal(say_in(f, chat, "alice", "/start", opened), GB_OK);
	for (int i = 0; i < 6; i++)
		assert_int_equal(say_in(f, chat, i % 2 ? "bob" : "alice", "/roll", opened + i), GB_OK);
	assert_int_equal(store_chat_get(f->b.store, "test", "chat-0", "en", &c), GB_OK);
	store_chat_release(&c);
	{
		char name[16];

		snprintf(name, sizeof(name), "chat-%d", chat);
		assert_int_equal(store_chat_get(f->b.store, "test", name, "en", &c), GB_OK);
	}
	assert_int_equal(store_table_open_get(f->b.store, c.id, &t), GB_OK);
	id = t.id;
	store_table_release(&t);
	store_chat_release(&c);
	if (ended)
		assert_int_equal(say_in(f, chat, "alice", "/stop", ended), GB_OK);
	return id;
}

static long long rows_of(struct fixture *f, const char *table, int64_t id)
{
	char q[160];

	snprintf(q, sizeof(q), "SELECT count(*) FROM %s WHERE table_id = %lld", table, (long long)id);
	return count_in(f, q);
}

/* Run SQL on the file through a connection of the test's own. */
static void sql(struct fixture *f, const char *text)
{
	assert_int_equal(fixture_sql(f->db, text), 0);
}

/*
 * A database aged by months of play, pruned a few rows a transaction to
 * what it must keep: finished tables older than the verify window go with
 * their seats, seeds and move logs; processed ids older than theirs, rows
 * set aside older than theirs. Kept: tables still open however old, a
 * table that ended within the window (/verify still replays it), every
 * row waiting to be sent however old, the stats and the coins ledger.
 */
static void test_aged_database_pruned_to_what_it_keeps(void **state)
{
	struct fixture *f = *state;
	const struct bot_prune p = { .processed_keep_days = 7, .verify_keep_days = 30,
				     .aside_keep_days = 30, .batch = 2 };
	struct bot_pruned done = { 0 };
	int64_t old_over, recent_over, old_open, late_over;
	long long ledger, stats, pending, aside;
	struct store_out rows[4];
	char why[200], *text;
	int n = 0, steps = 0, rc;

	old_over = aged_table(f, 1, NOW - 60 * DAY, NOW - 59 * DAY);
	recent_over = aged_table(f, 2, NOW - 12 * DAY, NOW - 10 * DAY);
	old_open = aged_table(f, 3, NOW - 90 * DAY, 0);
	late_over = aged_table(f, 4, NOW - 60 * DAY, NOW - 5 * DAY);
	free(said(f, 0));
	assert_true(rows_of(f, "moves", old_over) >= 3);
	assert_int_equal(rows_of(f, "table_terms", old_over), 1);
	/* update ids: ten of last month, five of this week */
	for (int i = 0; i < 15; i++) {
		char id[16];

		snprintf(id, sizeof(id), "u%d", i);
		assert_int_equal(store_mark_processed(f->b.store, "test", id), GB_OK);
	}
	sql(f, "UPDATE processed SET at = 400 * 86400 - 20 * 86400 WHERE update_id IN"
	       " ('u0','u1','u2','u3','u4','u5','u6','u7','u8','u9');"
	       "UPDATE processed SET at = 400 * 86400 - 2 * 86400 WHERE update_id NOT IN"
	       " ('u0','u1','u2','u3','u4','u5','u6','u7','u8','u9');");
	/* rows: one set aside long ago, one lately, one waiting since long ago */
	for (int i = 0; i < 3; i++)
		assert_int_equal(store_out_add(f->b.store, "test", "chat-9", 0, "", "{\"kind\":\"public\",\"text\":\"x\"}",
					       NOW - 100 * DAY), GB_OK);
	assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 4, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(store_out_set_aside(f->b.store, rows[0].id, "gone"), GB_OK);
	assert_int_equal(store_out_set_aside(f->b.store, rows[1].id, "gone"), GB_OK);
	{
		char q[200];

		snprintf(q, sizeof(q), "UPDATE outbox SET aside_ms = %lld WHERE id = %lld;"
			 "UPDATE outbox SET aside_ms = %lld WHERE id = %lld;", (long long)(NOW - 40 * DAY),
			 (long long)rows[0].id, (long long)(NOW - 10 * DAY), (long long)rows[1].id);
		sql(f, q);
	}
	for (int i = 0; i < n; i++)
		store_out_release(&rows[i]);
	/* a leaderboard line of the chat whose table goes, and coins moved at it */
	{
		struct store_chat c = { 0 };
		struct store_coin_move m = { .from = "bank", .to = "user:alice", .to_name = "alice",
					     .amount = 100, .table = old_over, .reason = "grant",
					     .at_ms = NOW - 60 * DAY };

		assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &c), GB_OK);
		assert_int_equal(store_stat_add(f->b.store, c.id, "alice", "alice", "snakes", 1, 0), GB_OK);
		assert_int_equal(store_coins_move(f->b.store, c.id, &m), GB_OK);
		store_chat_release(&c);
	}
	ledger = count_in(f, "SELECT count(*) FROM ledger");
	stats = count_in(f, "SELECT count(*) FROM stats");
	pending = count_in(f, "SELECT count(*) FROM outbox WHERE aside_ms IS NULL");
	aside = count_in(f, "SELECT count(*) FROM outbox WHERE aside_ms IS NOT NULL");
	assert_true(stats > 0 && ledger > 0);

	while ((rc = bot_prune_step(f->b.store, &p, NOW, &done)) > 0)
		steps++;
	assert_int_equal(rc, 0);
	assert_true(steps >= 4); /* two rows a transaction: ten ids took five */
	assert_int_equal(done.processed, 10);
	assert_int_equal(done.tables, 1);
	assert_int_equal(done.aside, 1);

	/* the old finished table went with everything that hung from it */
	assert_int_equal(count_in(f, "SELECT count(*) FROM tables WHERE status = 2 AND id NOT IN (SELECT id FROM"
				     " tables WHERE chat_id IN (SELECT id FROM chats WHERE chat IN ('chat-2',"
				     " 'chat-4')))"), 0);
	assert_int_equal(rows_of(f, "moves", old_over), 0);
	assert_int_equal(rows_of(f, "seats", old_over), 0);
	assert_int_equal(rows_of(f, "table_terms", old_over), 0);
	/* what must stay stayed */
	assert_true(rows_of(f, "moves", recent_over) >= 3);
	assert_true(rows_of(f, "moves", old_open) >= 3);
	assert_true(rows_of(f, "moves", late_over) >= 3);
	assert_int_equal(rows_of(f, "table_terms", old_open), 1);
	assert_int_equal(count_in(f, "SELECT count(*) FROM processed"), 5);
	assert_int_equal(count_in(f, "SELECT count(*) FROM ledger"), ledger);
	assert_int_equal(count_in(f, "SELECT count(*) FROM stats"), stats);
	assert_int_equal(count_in(f, "SELECT count(*) FROM outbox WHERE aside_ms IS NULL"), pending);
	assert_int_equal(count_in(f, "SELECT count(*) FROM outbox WHERE aside_ms IS NOT NULL"), aside - 1);
	assert_int_equal(store_coins_audit(f->b.store, 0, why, sizeof(why)), GB_OK);

	/* /verify still replays the game that ended within the window; the pruned one is simply gone */
	{
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "/verify %lld", (long long)recent_over);
		assert_int_equal(say_in(f, 2, "carol", cmd, NOW), GB_OK);
		text = said(f, 2);
		assert_non_null(strstr(text, "checks out"));
		free(text);
		snprintf(cmd, sizeof(cmd), "/verify %lld", (long long)old_over);
		assert_int_equal(say_in(f, 1, "carol", cmd, NOW), GB_OK);
		assert_int_equal(say_in(f, 1, "carol", "/board", NOW), GB_OK);
		text = said(f, 1);
		assert_non_null(strstr(text, "There is no finished table"));
		free(text);
	}
	/* and the game still open plays on */
	assert_int_equal(say_in(f, 3, "alice", "/board", NOW), GB_OK);
	free(said(f, 3));

	/* nothing older than the windows is left: the next run prunes nothing */
	memset(&done, 0, sizeof(done));
	assert_int_equal(bot_prune_step(f->b.store, &p, NOW, &done), 0);
	assert_int_equal(done.processed + done.tables + done.aside, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_states_kept_for_every_table_in_play, setup, teardown),
		cmocka_unit_test_setup_teardown(test_states_bounded_and_right_when_pushed_out, setup, teardown),
		cmocka_unit_test(test_limit_windows_hold_twenty_thousand_chats),
		cmocka_unit_test_setup_teardown(test_table_facts_follow_the_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_series_in_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aged_database_pruned_to_what_it_keeps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
