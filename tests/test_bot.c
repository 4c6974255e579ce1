/*
 * test_bot.c - the router in-process on a real SQLite file: dedupe of
 * repeated deliveries, refusals that change nothing, internal commands that
 * cannot be typed, a corrupted saved state answered cleanly, and command
 * text parsing.
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

	if (!f || FIXTURE_BOT_OPEN(f, "bot", 42))
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

static int say(struct fixture *f, const char *user, bool admin, const char *text, const char *update)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.is_admin = admin;
	cmd.now_ms = 1000;
	if (update)
		snprintf(cmd.update_id, sizeof(cmd.update_id), "%s", update);
	return bot_handle(&f->b, &cmd);
}

/* Take every queued reply; returns them joined (caller frees) and the count. */
static char *drain(struct fixture *f, int *count)
{
	struct store_out rows[64];
	int n = 0;
	size_t len = 0;
	char *all = calloc(1, 1);

	*count = 0;
	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			size_t l = strlen(rows[i].payload);

			all = realloc(all, len + l + 2);
			memcpy(all + len, rows[i].payload, l);
			len += l;
			all[len++] = '\n';
			all[len] = '\0';
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
			(*count)++;
		}
	} while (n == 64);
	return all;
}

static char *table_state(struct fixture *f)
{
	struct store_chat chat = { 0 };
	struct store_table t = { 0 };
	char *s;

	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	if (store_table_open_get(f->b.store, chat.id, &t) != GB_OK) {
		store_chat_release(&chat);
		return strdup("");
	}
	s = strdup(t.state ? t.state : "");
	store_table_release(&t);
	store_chat_release(&chat);
	return s;
}

static void test_duplicate_delivery(void **state)
{
	struct fixture *f = *state;
	char *out, *before, *after;
	int n;

	assert_int_equal(say(f, "asha", true, "/new snakes", "u1"), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", "u2"), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", "u3"), GB_OK);
	free(drain(f, &n));
	before = table_state(f);
	assert_int_equal(say(f, "asha", true, "/roll", "u4"), GB_OK);
	after = table_state(f);
	assert_string_not_equal(before, after);
	free(drain(f, &n));
	assert_true(n > 0);
	/* the platform delivers u4 again: refused, nothing changes, nothing is sent */
	assert_int_equal(say(f, "asha", true, "/roll", "u4"), GB_EDUP);
	out = drain(f, &n);
	assert_int_equal(n, 0);
	free(before);
	before = table_state(f);
	assert_string_equal(before, after);
	free(out);
	free(before);
	free(after);
}

static void test_refusals_change_nothing(void **state)
{
	struct fixture *f = *state;
	char *before, *after, *out;
	int n;

	assert_int_equal(say(f, "asha", true, "/new ludo", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	before = table_state(f);
	assert_int_equal(say(f, "bikash", false, "/roll", NULL), GB_OK);          /* out of turn */
	assert_int_equal(say(f, "chandra", false, "/roll", NULL), GB_OK);         /* not seated */
	assert_int_equal(say(f, "asha", true, "/move 2", NULL), GB_OK);           /* wrong phase */
	assert_int_equal(say(f, "asha", true, "/move a b c", NULL), GB_OK);       /* too many args */
	assert_int_equal(say(f, "asha", true, "/teleport", NULL), GB_OK);         /* unknown */
	assert_int_equal(say(f, "bikash", false, "/lang ne", NULL), GB_OK);       /* not admin */
	assert_int_equal(say(f, "bikash", false, "/settings ludo six_bonus off", NULL), GB_OK);
	after = table_state(f);
	assert_string_equal(before, after);
	out = drain(f, &n);
	assert_int_equal(n, 7); /* one polite answer each */
	assert_non_null(strstr(out, "Not your turn"));
	assert_non_null(strstr(out, "Only the players"));
	assert_non_null(strstr(out, "Not now: roll first"));
	assert_non_null(strstr(out, "Usage: /move"));
	assert_non_null(strstr(out, "I don't know /teleport"));
	assert_non_null(strstr(out, "Only chat admins"));
	assert_null(strstr(out, "\"kind\":\"table\""));
	free(out);
	free(before);
	free(after);
	{
		struct store_chat chat = { 0 };

		assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
		assert_string_equal(chat.lang, "en");
		assert_null(strstr(chat.settings, "six_bonus"));
		store_chat_release(&chat);
	}
}

static void test_internal_commands_cannot_be_typed(void **state)
{
	struct fixture *f = *state;
	struct command cmd;
	char *out;
	int n;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, "/_timer bot 1 1"), GB_EPARSE);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.user, sizeof(cmd.user), "mallory");
	snprintf(cmd.verb, sizeof(cmd.verb), "_timer");
	snprintf(cmd.args, sizeof(cmd.args), "bot 1 1");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(out, "I don't know"));
	free(out);
}

static void test_corrupted_state_answered_cleanly(void **state)
{
	struct fixture *f = *state;
	sqlite3 *h;
	char *out;
	int n;

	assert_int_equal(say(f, "asha", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	/* someone breaks the saved state behind the bot's back */
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE tables SET state = '{\"game\": {\"positions\": \"x\"}}'",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_not_equal(say(f, "asha", true, "/roll", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(out, "Something went wrong on my side"));
	free(out);
	/* the chat still answers what does not need the table */
	assert_int_equal(say(f, "asha", true, "/help", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	free(out);
	/* and the table's creator can still close it */
	assert_int_equal(say(f, "asha", true, "/stop", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "stopped the game"));
	free(out);
	assert_int_equal(say(f, "asha", true, "/new ludo", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "opened a table of Ludo"));
	free(out);
}

/* Run one SQL statement on a second connection (damage done behind the bot's back). */
static void sql(struct fixture *f, const char *text)
{
	sqlite3 *h;

	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, text, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* The first column of the first row of a query, as a string the caller frees. */
static char *sql_value(struct fixture *f, const char *text)
{
	sqlite3 *h;
	sqlite3_stmt *q;
	char *v;

	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, text, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	v = strdup(sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "");
	sqlite3_finalize(q);
	sqlite3_close(h);
	return v;
}

static void test_damaged_move_count_copy(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "asha", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	free(drain(f, &n));
	/* the lobby's wrapper carries a wrong count of moves */
	sql(f, "UPDATE tables SET state = '{\"seq\": -5, \"log\": []}'");
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/roll", NULL), GB_OK);
	out = drain(f, &n);
	assert_null(strstr(out, "Something went wrong"));
	free(out);
	/* moves are numbered after the log: the first is 1 */
	v = sql_value(f, "SELECT group_concat(seq) FROM moves");
	assert_string_equal(v, "1");
	free(v);
}

/*
 * The players' results are part of the last move's transaction: when they
 * cannot be written the move is refused whole (the game is not over, the
 * move is not logged, the user hears that nothing changed), and once the
 * store takes them again the same move ends the game with its results.
 */
static void test_results_written_with_the_last_move(void **state)
{
	struct fixture *f = *state;
	char *out, *v, *before = NULL;
	int n, still = 0, alerts = 0;

	assert_int_equal(say(f, "asha", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	sql(f, "CREATE TRIGGER no_stats BEFORE INSERT ON stats BEGIN SELECT RAISE(ABORT, 'disk full'); END");
	for (int i = 0; i < 3000 && still < 3; i++) {
		say(f, "asha", false, "/roll", NULL);
		say(f, "bikash", false, "/roll", NULL);
		out = drain(f, &n);
		alerts += strstr(out, "Something went wrong") != NULL;
		free(out);
		v = sql_value(f, "SELECT count(*) FROM moves");
		still = before && strcmp(v, before) == 0 ? still + 1 : 0;
		free(before);
		before = v;
	}
	/* stuck on the winning roll, which cannot be saved */
	assert_int_equal(still, 3);
	assert_true(alerts >= 3);
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "1");
	free(v);
	v = sql_value(f, "SELECT count(*) FROM stats");
	assert_string_equal(v, "0");
	free(v);
	sql(f, "DROP TRIGGER no_stats");
	say(f, "asha", false, "/roll", NULL);
	say(f, "bikash", false, "/roll", NULL);
	out = drain(f, &n);
	assert_null(strstr(out, "Something went wrong"));
	free(out);
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "2");
	free(v);
	v = sql_value(f, "SELECT count(*) || ' ' || sum(games) || ' ' || sum(wins) FROM stats");
	assert_string_equal(v, "2 2 1");
	free(v);
	/* the winning roll, logged once */
	v = sql_value(f, "SELECT count(*) FROM moves");
	assert_int_equal(atoi(v), atoi(before) + 1);
	free(v);
	free(before);
}

static void test_unreadable_state_kept(void **state)
{
	struct fixture *f = *state;
	static const char *const damaged = "{\"game\": {\"positions\": \"x\"}}";
	char *v;
	int n;

	assert_int_equal(say(f, "asha", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	sql(f, "UPDATE tables SET state = '{\"game\": {\"positions\": \"x\"}}'");
	/* leaving and stopping change seats and status, never the state nobody could read */
	assert_int_equal(say(f, "bikash", false, "/leave", NULL), GB_OK);
	v = sql_value(f, "SELECT state FROM tables");
	assert_string_equal(v, damaged);
	free(v);
	assert_int_equal(say(f, "asha", true, "/stop", NULL), GB_OK);
	v = sql_value(f, "SELECT status || ' ' || state FROM tables");
	assert_string_equal(v, "2 {\"game\": {\"positions\": \"x\"}}");
	free(v);
	/* a playing table whose wrapper lost its game is unreadable too */
	assert_int_equal(say(f, "asha", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	sql(f, "UPDATE tables SET state = '[]' WHERE status = 1");
	assert_int_equal(say(f, "bikash", false, "/leave", NULL), GB_OK);
	v = sql_value(f, "SELECT state FROM tables WHERE status = 1");
	assert_string_equal(v, "[]");
	free(v);
}

static void test_unreadable_chat_language(void **state)
{
	struct fixture *f = *state;
	sqlite3 *h;
	char *out;
	int n;

	assert_int_equal(say(f, "asha", true, "/help", NULL), GB_OK);
	free(drain(f, &n));
	/* other software left a language code the bot cannot read */
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "UPDATE chats SET lang = ''", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	/* the chat speaks English and can still change its settings */
	assert_int_equal(say(f, "asha", true, "/speed fast", NULL), GB_OK);
	out = drain(f, &n);
	assert_null(strstr(out, "Something went wrong"));
	free(out);
	{
		struct store_chat chat = { 0 };

		assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
		assert_string_equal(chat.lang, "en");
		assert_non_null(strstr(chat.settings, "fast"));
		store_chat_release(&chat);
	}
}

static void test_nepali_card_names(void **state)
{
	struct fixture *f = *state;
	char code[8], *out;
	int n;

	assert_int_equal(ne_card_code("हुकुमको एक्का", code, sizeof(code)), 0);
	assert_string_equal(code, "AS");
	assert_int_equal(ne_card_code("बेगम पान", code, sizeof(code)), 0);
	assert_string_equal(code, "QH");
	assert_int_equal(ne_card_code("इट्टाको १०", code, sizeof(code)), 0);
	assert_string_equal(code, "10D");
	assert_int_equal(ne_card_code("चिडी दुक्की", code, sizeof(code)), 0);
	assert_string_equal(code, "2C");
	assert_int_equal(ne_card_code("हुकुम", code, sizeof(code)), -1);
	assert_int_equal(ne_card_code("एक्का बादशाह पान", code, sizeof(code)), -1);
	assert_int_equal(ne_card_code("हुकुम पान एक्का", code, sizeof(code)), -1);
	assert_int_equal(ne_card_code("पान ११", code, sizeof(code)), -1);
	assert_int_equal(ne_card_code("", code, sizeof(code)), -1);
	/* through the router: a Nepali card name is read like its code */
	assert_int_equal(say(f, "asha", true, "/new callbreak", NULL), GB_OK);
	assert_int_equal(say(f, "bikash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "chandra", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "dipa", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "asha", true, "/play हुकुमको एक्का", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_null(strstr(out, "can't read"));
	assert_null(strstr(out, "Usage")); /* two words are one card, not too many arguments */
	free(out);
	assert_int_equal(say(f, "asha", true, "/play हुकुमको", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "/play हुकुमको\\\" doesn't fit: a card is written like"));
	free(out);
}

/* Every reply is a JSON object with text (json_loads also checks UTF-8). */
static void assert_replies_have_text(const char *out)
{
	const char *line = out;

	while (*line) {
		const char *nl = strchr(line, '\n');
		json_error_t err;
		json_t *r = json_loadb(line, (size_t)(nl - line), 0, &err);

		assert_non_null(r);
		assert_true(json_is_string(json_object_get(r, "text")));
		assert_true(json_string_length(json_object_get(r, "text")) > 0);
		json_decref(r);
		line = nl + 1;
	}
}

static void test_long_and_broken_words_answered(void **state)
{
	struct fixture *f = *state;
	char line[300], *out;
	int n;

	/* a word too long to read is refused as what it is, not taken as no word at all */
	assert_int_equal(say(f, "asha", true, "/new xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(out, "There is no game called \\\"xxxxxxxxxxxxxxxxxxxxxxxxxxxx…\\\""));
	free(out);
	assert_int_equal(say(f, "asha", true, "/new ludo", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "asha", true, "/addbot hardhardhardhardhardhardhard", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_null(strstr(out, "\"kind\":\"table\"")); /* no computer seated */
	free(out);
	assert_int_equal(say(f, "asha", true, "/stats ludoludoludoludoludoludoludoludo", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "There is no game called"));
	free(out);
	/* a name that is not UTF-8, and Devanagari cut mid-character by a field */
	assert_int_equal(say(f, "\xff\xfe", false, "/join", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 2);
	assert_replies_have_text(out);
	assert_non_null(strstr(out, "\xef\xbf\xbd")); /* shown as U+FFFD */
	free(out);
	snprintf(line, sizeof(line), "/rules %s", "हुकुमकोएक्काहुकुमकोएक्का");
	assert_int_equal(say(f, "asha", true, line, NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 1);
	assert_replies_have_text(out);
	assert_non_null(strstr(out, "हुकुमकोए…")); /* cut between letters: the conjunct क्का stays whole */
	free(out);
}

/* A hand goes to the id the seat holds, even when the id came in as bytes that are not UTF-8. */
static void test_hand_reaches_an_id_that_was_not_utf8(void **state)
{
	struct fixture *f = *state;
	sqlite3 *h;
	sqlite3_stmt *q;
	char *out, *p;
	int n, hands = 0;

	assert_int_equal(say(f, "asha", true, "/new callbreak", NULL), GB_OK);
	assert_int_equal(say(f, "bi\xffkash", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "chandra", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "dipa", false, "/join", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM seats WHERE user_id = ?", -1, &q, NULL),
			 SQLITE_OK);
	for (p = strstr(out, "\"kind\":\"private\""); p; p = strstr(p + 1, "\"kind\":\"private\"")) {
		json_error_t err;
		const char *start = p, *end = strchr(p, '\n');
		json_t *r;

		while (start > out && start[-1] != '\n')
			start--;
		r = json_loadb(start, (size_t)(end - start), 0, &err);
		assert_non_null(r);
		sqlite3_reset(q);
		sqlite3_bind_text(q, 1, json_string_value(json_object_get(r, "user")), -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 0), 1); /* addressed to a seated person */
		json_decref(r);
		hands++;
	}
	assert_int_equal(hands, 4);
	sqlite3_finalize(q);
	sqlite3_close(h);
	free(out);
}

/* Fire due timers until none is left (computer turns), at most n rounds. */
static void run_timers(struct fixture *f, int n)
{
	for (int i = 0; i < n; i++) {
		struct store_timer t;

		if (store_timer_next(f->b.store, &t) != GB_OK || bot_run_timers(&f->b, t.due_ms, BOT_TIMER_ALL) <= 0)
			break;
	}
}

/* Defect: a creator who had left the table could still stop it. */
static void test_who_left_has_no_say(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "alice", false, "/new ludo", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "carol", false, "/join", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "alice", false, "/leave", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "bob now runs the table"));
	free(out);
	assert_int_equal(say(f, "alice", false, "/stop", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Only bob, who runs this table"));
	free(out);
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "0");
	free(v);
	/* carol sits at the table but does not run it; bob does */
	assert_int_equal(say(f, "carol", false, "/stop", NULL), GB_OK);
	free(drain(f, &n));
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "0");
	free(v);
	assert_int_equal(say(f, "bob", false, "/stop", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "bob stopped the game"));
	free(out);
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "2");
	free(v);
}

/* Defect: with every person gone, computers played on under their names to the end. */
static void test_everyone_left_stops_the_game(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "alice", false, "/new ludo", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "carol", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", false, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "bob", false, "/leave", NULL), GB_OK);
	out = drain(f, &n);
	/* the seat is marked as played by a computer now */
	assert_non_null(strstr(out, "Bot for bob"));
	free(out);
	assert_int_equal(say(f, "carol", false, "/leave", NULL), GB_OK);
	assert_int_equal(say(f, "alice", false, "/leave", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "no player is left: the game is stopped"));
	free(out);
	v = sql_value(f, "SELECT status FROM tables");
	assert_string_equal(v, "2");
	free(v);
	run_timers(f, 2000);
	out = drain(f, &n);
	assert_int_equal(n, 0); /* nobody plays on */
	free(out);
	v = sql_value(f, "SELECT count(*) FROM timers");
	assert_string_equal(v, "0");
	free(v);
}

/* Defect: a game in which people played reached its end without reaching /stats. */
static void test_results_of_who_left_reach_stats(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "alice", false, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", false, "/start", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/leave", NULL), GB_OK);
	for (int i = 0; i < 2000; i++) {
		v = sql_value(f, "SELECT status FROM tables");
		if (strcmp(v, "2") == 0) {
			free(v);
			break;
		}
		free(v);
		say(f, "alice", false, "/roll", NULL);
		run_timers(f, 10);
	}
	v = sql_value(f, "SELECT group_concat(user_id || ':' || games, ' ') FROM (SELECT * FROM stats ORDER BY user_id)");
	assert_string_equal(v, "alice:1 bob:1");
	free(v);
	free(drain(f, &n));
	assert_int_equal(say(f, "alice", false, "/stats snakes", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "bob: 1 game, 0 wins"));
	assert_null(strstr(out, "points")); /* Snakes and Ladders keeps none */
	free(out);
	/* the finished table stays on view: who won, the final board, a new game offered */
	assert_int_equal(say(f, "alice", false, "/board", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Game over — "));
	assert_non_null(strstr(out, "100"));
	assert_non_null(strstr(out, "\"cmd\":\"/new snakes\""));
	free(out);
}

/* Defect: nobody could choose a seat or a side (a person never played the tigers against a computer). */
static void test_choose_seat_and_side(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "zed", false, "/new baghchal", NULL), GB_OK);
	assert_int_equal(say(f, "zed", false, "/addbot easy", NULL), GB_OK);
	free(drain(f, &n));
	/* the creator takes the tigers; the computer plays the goats */
	assert_int_equal(say(f, "zed", false, "/seat tigers", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "zed moves to seat tigers"));
	free(out);
	v = sql_value(f, "SELECT group_concat(seat || ':' || level || ':' || user_id, ' ') FROM seats");
	assert_string_equal(v, "0:1: 1:-1:zed");
	free(v);
	/* a person may take a computer's side by naming it; a plain /join says how */
	assert_int_equal(say(f, "alice", false, "/join", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "/join N takes seat N from a computer player"));
	free(out);
	assert_int_equal(say(f, "alice", false, "/join tigers", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Seat tigers is taken by zed"));
	free(out);
	assert_int_equal(say(f, "alice", false, "/join goats", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "alice takes seat goats from Bot 1"));
	free(out);
	v = sql_value(f, "SELECT group_concat(seat || ':' || level || ':' || user_id, ' ') FROM seats");
	assert_string_equal(v, "0:-1:alice 1:-1:zed");
	free(v);
	/* numbered seats elsewhere; a seat past a free one leaves it free, and /start waits for it */
	assert_int_equal(say(f, "zed", false, "/stop", NULL), GB_OK);
	assert_int_equal(say(f, "zed", false, "/new ludo", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "bob", false, "/join 3", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "bob sits down in seat 3 of 4"));
	free(out);
	assert_int_equal(say(f, "zed", false, "/start", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Seat 2 is free: /join 2 or /addbot fills it before /start."));
	free(out);
	assert_int_equal(say(f, "bob", false, "/join 9", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "the seats are 1 to 4"));
	free(out);
	assert_int_equal(say(f, "bob", false, "/seat 2", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "bob moves to seat 2"));
	free(out);
	v = sql_value(f, "SELECT group_concat(seat || ':' || user_id, ' ') FROM (SELECT * FROM seats "
			 "WHERE table_id = (SELECT max(id) FROM tables) ORDER BY seat)");
	assert_string_equal(v, "0:zed 1:bob");
	free(v);
	/* only who runs the table swaps with another person */
	assert_int_equal(say(f, "bob", false, "/seat 1", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Seat 1 is taken by zed"));
	free(out);
	assert_int_equal(say(f, "zed", false, "/seat 2", NULL), GB_OK);
	free(drain(f, &n));
	v = sql_value(f, "SELECT group_concat(user_id, ' ') FROM (SELECT * FROM seats "
			 "WHERE table_id = (SELECT max(id) FROM tables) ORDER BY seat)");
	assert_string_equal(v, "bob zed");
	free(v);
}

/* The seats of the newest table, "seat:level:user" in seat order. */
static char *seats_now(struct fixture *f)
{
	return sql_value(f, "SELECT group_concat(seat || ':' || level || ':' || user_id, ' ') FROM (SELECT * FROM seats "
			    "WHERE table_id = (SELECT max(id) FROM tables) ORDER BY seat)");
}

/*
 * Defect: a person alone at a Bagh Chal table could not take the tigers
 * ("Seats fill in order", "You already sit at this table"), and /new had
 * no way to choose a side.
 */
static void test_alone_any_free_seat(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "zed", false, "/new baghchal", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "zed", false, "/join tigers", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "zed moves to seat tigers"));
	assert_non_null(strstr(out, "goats  – free"));
	free(out);
	v = seats_now(f);
	assert_string_equal(v, "0:-1: 1:-1:zed");
	free(v);
	assert_int_equal(say(f, "zed", false, "/start", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Seat goats is free"));
	assert_null(strstr(out, "begins"));
	free(out);
	/* the free seat is filled first */
	assert_int_equal(say(f, "zed", false, "/addbot", NULL), GB_OK);
	free(drain(f, &n));
	v = seats_now(f);
	assert_string_equal(v, "0:2: 1:-1:zed");
	free(v);
	assert_int_equal(say(f, "zed", false, "/stop", NULL), GB_OK);
	/* /new names the side: in English, and in Nepali */
	assert_int_equal(say(f, "zed", false, "/new baghchal tigers", NULL), GB_OK);
	free(drain(f, &n));
	v = seats_now(f);
	assert_string_equal(v, "0:-1: 1:-1:zed");
	free(v);
	assert_int_equal(say(f, "amy", false, "/join", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "amy sits down in seat goats"));
	free(out);
	/* who leaves the lobby leaves a free seat: the others keep their sides */
	assert_int_equal(say(f, "amy", false, "/leave", NULL), GB_OK);
	free(drain(f, &n));
	v = seats_now(f);
	assert_string_equal(v, "0:-1: 1:-1:zed");
	free(v);
	assert_int_equal(say(f, "zed", false, "/stop", NULL), GB_OK);
	assert_int_equal(say(f, "zed", true, "/lang ne", NULL), GB_OK);
	assert_int_equal(say(f, "zed", false, "/new बाघचाल बाघ", NULL), GB_OK);
	free(drain(f, &n));
	v = seats_now(f);
	assert_string_equal(v, "0:-1: 1:-1:zed");
	free(v);
	assert_int_equal(say(f, "zed", false, "/seat बाख्रा", NULL), GB_OK);
	free(drain(f, &n));
	v = seats_now(f);
	assert_string_equal(v, "0:-1:zed");
	free(v);
	assert_int_equal(say(f, "zed", false, "/help", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "/seat"));
	free(out);
}

/* Defect: a house rule changed mid-game was confirmed but not applied. */
static void test_house_rule_changes_say_when(void **state)
{
	struct fixture *f = *state;
	char *out;
	int n;

	assert_int_equal(say(f, "alice", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	/* in the lobby the table has not started: it takes the new rule */
	assert_int_equal(say(f, "alice", true, "/settings snakes entry any", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Coming onto the board: now any roll."));
	assert_non_null(strstr(out, "alice: roll"));
	assert_null(strstr(out, "needs a 6"));
	free(out);
	/* during a game the change is for the next one, and the reply says so */
	assert_int_equal(say(f, "alice", true, "/settings snakes entry six", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Coming onto the board: needs a six from the next game on"));
	free(out);
	assert_int_equal(say(f, "alice", true, "/board", NULL), GB_OK);
	out = drain(f, &n);
	assert_null(strstr(out, "needs a 6"));
	free(out);
}

/*
 * The board that says whose turn it is goes before the chat's
 * informational posts queued earlier (a setting's change); those keep
 * their order behind it.
 */
static void test_board_before_informational_posts(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	const char *kinds[8];
	json_t *rows[8];
	char *out;
	int n, got = 0;

	assert_int_equal(say(f, "alice", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "bob", false, "/lang en", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/settings snakes entry six", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/roll", NULL), GB_OK);
	/* a worker takes the chat's rows one at a time, as a platform adapter does */
	do {
		assert_int_equal(store_out_claim(f->b.store, "test", 2000, 1000, o, 8, &n), GB_OK);
		assert_true(n <= 1);
		if (n == 1) {
			assert_true(got < 8);
			rows[got] = json_loads(o[0].payload, 0, NULL);
			assert_non_null(rows[got]);
			kinds[got] = json_string_value(json_object_get(rows[got], "kind"));
			got++;
			assert_int_equal(store_out_done(f->b.store, o[0].id), GB_OK);
			store_out_release(&o[0]);
		}
	} while (n == 1);
	assert_true(got >= 3);
	assert_string_equal(kinds[0], "table");
	assert_string_not_equal(kinds[got - 1], "table");
	out = json_dumps(rows[got - 1], 0);
	assert_non_null(strstr(out, "needs a six from the next game on"));
	free(out);
	for (int i = 1; i < got; i++)
		assert_string_not_equal(kinds[i], "table");
	for (int i = 0; i < got; i++)
		json_decref(rows[i]);
}

/*
 * A table opened while its chat's messages wait (a group's budget spent):
 * each seating line replaces the one before it that was not sent, as the
 * board replaces the board - the board lists the seats - so the opening
 * is two messages, not one a command.
 */
static void test_opening_lines_coalesce(void **state)
{
	struct fixture *f = *state;
	char *out;
	int n;

	assert_int_equal(say(f, "alice", true, "/new ludo", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/addbot", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/addbot", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	out = drain(f, &n);
	assert_int_equal(n, 2);
	assert_non_null(strstr(out, "begins"));
	assert_null(strstr(out, "opened a table"));
	free(out);
}

/* Defect: with idle autoplay on, Call Break stalled between rounds ("Round over — /next" forever). */
static void test_autoplay_moves_on_between_rounds(void **state)
{
	struct fixture *f = *state;
	char *st, *out;
	int n;

	assert_int_equal(say(f, "alice", true, "/settings autoplay_after 10s", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/new callbreak", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/addbot easy", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/addbot easy", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	/* everybody is away: computers play every turn, and the next round starts after the same wait */
	run_timers(f, 200);
	st = table_state(f);
	assert_null(strstr(st, "\"round\":1,"));
	assert_null(strstr(st, "\"round\":2,"));
	free(st);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Nobody started the next round"));
	free(out);
}

/* Defect: refusals with the wrong words, or without saying why. */
static void test_refusals_say_why(void **state)
{
	struct fixture *f = *state;
	char *out;
	int n;

	/* a command the game does not have is not "unreadable" */
	assert_int_equal(say(f, "alice", true, "/new snakes", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "alice", true, "/next", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Snakes and Ladders has no /next. You can: /roll"));
	assert_null(strstr(out, "next \\\""));
	free(out);
	assert_int_equal(say(f, "alice", true, "/stop", NULL), GB_OK);
	/* a token that does not exist was read: say which tokens there are */
	assert_int_equal(say(f, "alice", true, "/new ludo", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "alice", true, "/move 5", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "/move 5\\\" doesn't fit: tokens are numbered 1 to 4"));
	free(out);
	assert_int_equal(say(f, "alice", true, "/stop", NULL), GB_OK);
	/* a goat moved while goats are still placed: why not, and how many are left */
	assert_int_equal(say(f, "alice", true, "/new baghchal", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	assert_int_equal(say(f, "alice", true, "/move a2 a3", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Not now: goats move only once all 20 are placed, and 20 are still in hand"));
	free(out);
	assert_int_equal(say(f, "alice", true, "/stop", NULL), GB_OK);
	/* a bid that is never possible says what a bid is */
	assert_int_equal(say(f, "alice", true, "/new callbreak", NULL), GB_OK);
	assert_int_equal(say(f, "bob", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "carol", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "dave", false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/start", NULL), GB_OK);
	free(drain(f, &n));
	for (int i = 0; i < 4; i++) {
		static const char *const who[] = { "alice", "bob", "carol", "dave" };

		say(f, who[i], false, "/bid 14", NULL);
	}
	out = drain(f, &n);
	assert_non_null(strstr(out, "/bid 14 is not possible now: a bid is 1 to 8"));
	free(out);
	/* the autoplay wait names its range */
	assert_int_equal(say(f, "alice", true, "/settings autoplay_after 5s", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "from 10 to 3600 seconds"));
	free(out);
}

/* Games and levels are accepted as either language shows them. */
static void test_names_as_shown(void **state)
{
	struct fixture *f = *state;
	char *out, *v;
	int n;

	assert_int_equal(say(f, "alice", true, "/new साँप सिँढी", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "opened a table of Snakes and Ladders"));
	free(out);
	assert_int_equal(say(f, "alice", true, "/addbot सजिलो", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "Bot 2 joins the table (easy)"));
	free(out);
	v = sql_value(f, "SELECT group_concat(level, ' ') FROM seats");
	assert_string_equal(v, "-1 1");
	free(v);
	assert_int_equal(say(f, "alice", true, "/stop", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/new Call Break", NULL), GB_OK);
	assert_int_equal(say(f, "alice", true, "/rules बाघचाल", NULL), GB_OK);
	out = drain(f, &n);
	assert_non_null(strstr(out, "opened a table of Call Break"));
	assert_non_null(strstr(out, "Bagh Chal: goats place"));
	free(out);
}

/* The last reply of kind (and of user, when given) in the drained text out, parsed; NULL when none. */
static json_t *last_reply(const char *out, const char *kind, const char *user)
{
	json_t *best = NULL;
	char want[64];

	snprintf(want, sizeof(want), "{\"kind\":\"%s\"", kind);
	for (const char *p = strstr(out, want); p; p = strstr(p + 1, want)) {
		json_error_t err;
		json_t *r = json_loadb(p, (size_t)(strchr(p, '\n') - p), 0, &err);
		const char *u = json_string_value(json_object_get(r, "user"));

		if (r && (!user || (u && strcmp(u, user) == 0))) {
			json_decref(best);
			best = r;
		} else {
			json_decref(r);
		}
	}
	return best;
}

/*
 * Call Break: the table message, seen by the whole chat, has no button for
 * a card (when leading they were the whole hand of the player to move):
 * "My cards" and "Show my hand" instead. The cards the player may play are
 * buttons of their own hand's view, in the hand's order.
 */
static void test_card_buttons_in_hand_order(void **state)
{
	struct fixture *f = *state;
	static const char *const who[] = { "asha", "bikash", "chandra", "dipa" };
	static const char *const suits[] = { "♠", "♥", "♦", "♣" };
	static const char *const ranks = "AKQJ098765432";
	char *out;
	int n, buttons = 0, prev = -1, mine = 0;
	json_t *r, *rows, *row, *b;
	size_t i, j;

	assert_int_equal(say(f, "asha", true, "/new callbreak", NULL), GB_OK);
	for (int k = 1; k < 4; k++)
		assert_int_equal(say(f, who[k], false, "/join", NULL), GB_OK);
	assert_int_equal(say(f, "asha", true, "/start", NULL), GB_OK);
	for (int round = 0; round < 4; round++)
		for (int k = 0; k < 4; k++)
			say(f, who[k], false, "/bid 2", NULL);
	out = drain(f, &n);
	r = last_reply(out, "table", NULL);
	assert_non_null(r);
	json_array_foreach(json_object_get(r, "buttons"), i, row) {
		json_array_foreach(row, j, b) {
			const char *cmd = json_string_value(json_object_get(b, "cmd"));

			assert_true(strncmp(cmd, "/play", 5) != 0);
			if (strcmp(cmd, "/hand") == 0 && json_is_string(json_object_get(b, "inline")))
				mine++;
		}
	}
	assert_int_equal(mine, 1);
	json_decref(r);
	free(out);
	/* everyone asks for their hand: the player to move gets its cards as buttons */
	for (int k = 0; k < 4; k++)
		assert_int_equal(say(f, who[k], false, "/hand", NULL), GB_OK);
	out = drain(f, &n);
	for (int k = 0; k < 4; k++) {
		r = last_reply(out, "private", who[k]);
		assert_non_null(r);
		rows = json_object_get(r, "buttons");
		json_array_foreach(rows, i, row) {
			json_array_foreach(row, j, b) {
				const char *label = json_string_value(json_object_get(b, "label"));
				int key = -1;

				assert_true(strncmp(json_string_value(json_object_get(b, "cmd")), "/play ", 6) == 0);
				for (int s = 0; s < 4; s++)
					if (strstr(label, suits[s]))
						key = s * 16 +
						      (int)(strchr(ranks, label[0] == '1' ? '0' : label[0]) - ranks);
				assert_true(key > prev); /* spades first, each suit high to low */
				prev = key;
				buttons++;
			}
		}
		json_decref(r);
	}
	assert_true(buttons > 0);
	free(out);
}

static void test_command_parse_text(void **state)
{
	struct command cmd;
	char longline[600];

	(void)state;
	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, "  /MOVE   b2  c3  "), GB_OK);
	assert_string_equal(cmd.verb, "move");
	assert_string_equal(cmd.args, "b2  c3");
	assert_int_equal(command_parse_text(&cmd, "/roll@gamebot"), GB_OK);
	assert_string_equal(cmd.verb, "roll");
	assert_string_equal(cmd.args, "");
	assert_int_equal(command_parse_text(&cmd, "/bid ३"), GB_OK);
	assert_string_equal(cmd.args, "३");
	assert_int_equal(command_parse_text(&cmd, ""), GB_EPARSE);
	assert_int_equal(command_parse_text(&cmd, "/"), GB_EPARSE);
	assert_int_equal(command_parse_text(&cmd, "/r0ll"), GB_EPARSE);
	assert_int_equal(command_parse_text(&cmd, "/averyveryverylongcommandname"), GB_EPARSE);
	memset(longline, 'x', sizeof(longline) - 1);
	longline[0] = '/';
	longline[1] = 'p';
	longline[2] = ' ';
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(command_parse_text(&cmd, longline), GB_OK);
	assert_int_equal(strlen(cmd.args), CMD_ARGS_LEN - 1);
	/* a long line of Devanagari (3 bytes a letter) is cut between letters */
	snprintf(longline, sizeof(longline), "/p a");
	for (size_t i = 4; i + 4 < sizeof(longline); i += 3)
		memcpy(longline + i, "क", 4);
	assert_int_equal(command_parse_text(&cmd, longline), GB_OK);
	assert_int_equal(strlen(cmd.args), CMD_ARGS_LEN - 3); /* "a" and 84 letters */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_duplicate_delivery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_internal_commands_cannot_be_typed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupted_state_answered_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_move_count_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_results_written_with_the_last_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_state_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_chat_language, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nepali_card_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_and_broken_words_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hand_reaches_an_id_that_was_not_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_left_has_no_say, setup, teardown),
		cmocka_unit_test_setup_teardown(test_everyone_left_stops_the_game, setup, teardown),
		cmocka_unit_test_setup_teardown(test_results_of_who_left_reach_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choose_seat_and_side, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alone_any_free_seat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_house_rule_changes_say_when, setup, teardown),
		cmocka_unit_test_setup_teardown(test_board_before_informational_posts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_opening_lines_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_autoplay_moves_on_between_rounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_say_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_as_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_card_buttons_in_hand_order, setup, teardown),
		cmocka_unit_test(test_command_parse_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
