/*
 * test_scale.c - what keeps a command's cost flat however many chats
 * play, on a real SQLite file: the decoded states kept for every table in
 * play (bounded, the least recently used making room, counted for
 * /metrics).
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

#include "bot/bot.h"
#include "bot/limit.h"
#include "bot/metrics.h"

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/gamebot-scale-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/bot.db", f->dir);
	bot_config_init(&f->b.cfg);
	f->b.cfg.seed = 5;
	if (store_open(&f->b.store, f->db))
		return -1;
	bot_state_cache_size(BOT_STATE_CACHE_DEFAULT);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[200];

	bot_state_cache_size(BOT_STATE_CACHE_DEFAULT);
	store_free(f->b.store);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	free(f);
	return system(cmd) == 0 ? 0 : -1;
}

/* What one SQL query of a single number gives on the file. */
static long long count_in(struct fixture *f, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n;

	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
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
	assert_true(metrics_value("gamebot_cache_capacity", "cache=\"rate_limits\"") == LIMIT_SLOTS_DEFAULT);
	free(last_board(f, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_states_kept_for_every_table_in_play, setup, teardown),
		cmocka_unit_test_setup_teardown(test_states_bounded_and_right_when_pushed_out, setup, teardown),
		cmocka_unit_test(test_limit_windows_hold_twenty_thousand_chats),
		cmocka_unit_test_setup_teardown(test_cache_series_in_metrics, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
