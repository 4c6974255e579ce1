/*
 * test_as_sent.c - commands as people really send them, piece by piece
 * (tests/test_corpus_telegram.c replays the same shapes whole, through
 * the real binary): a command parted from its argument by any Unicode
 * space or a line break; Telegram updates read into commands - another
 * bot's command, a forwarded one, one sent as the group or a channel, a
 * press on an inline-mode message, strings holding \u0000; the router
 * keeping quiet about another bot's commands and stale inline picks,
 * seating nobody anonymous, and marking /board a repost; the Telegram
 * adapter moving the table message on a repost (also when a move overtook
 * it) and polling on past an update holding \u0000.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/adapter.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/bot.h"
#include "bot/lang/i18n.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define TOKEN "123456:AS-SENT-token"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- command_parse_text ---- */

static void parsed(const char *text, const char *verb, const char *args)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	if (command_parse_text(&cmd, text))
		fail_msg("'%s' not parsed", text);
	assert_string_equal(cmd.verb, verb);
	assert_string_equal(cmd.args, args);
}

static void any_space_after_the_command(void **state)
{
	static const char *const spaces[] = {
		"\n", "\r\n", "\t", "\v", "\f", "\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xa8",
		"\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80",
	};
	char text[64];
	struct command cmd;

	(void)state;
	parsed("/new\nludo", "new", "ludo");
	parsed("/new@thisbot\nludo", "new", "ludo");
	parsed("/new\xc2\xa0snakes", "new", "snakes");
	parsed("/NEW@thisbot\xc2\xa0\xc2\xa0snakes\xe3\x80\x80", "new", "snakes");
	for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++) {
		snprintf(text, sizeof(text), "/new%sludo%s", spaces[i], spaces[i]);
		parsed(text, "new", "ludo");
	}
	/* U+2000 to U+200A */
	for (int c = 0; c <= 10; c++) {
		snprintf(text, sizeof(text), "/new\xe2\x80%cludo", (char)(0x80 + c));
		parsed(text, "new", "ludo");
	}
	/* in the arguments each is a plain space, words stay apart */
	parsed("/move\xc2\xa0" "b2\xe2\x80\x83" "c3", "move", "b2 c3");
	parsed("/settings\nautoplay_after\n45s", "settings", "autoplay_after 45s");
	/* a Devanagari argument is not a space: "/bid ३" still reads */
	parsed("/bid\xc2\xa0\xe0\xa5\xa9", "bid", "\xe0\xa5\xa9");
	/* a letter glued to the verb is not a space */
	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, "/new\xc3\xa9ludo"), GB_EPARSE);
	/* a zero-width space is no space: nothing shows between the words */
	assert_int_equal(command_parse_text(&cmd, "/new\xe2\x80\x8bludo"), GB_EPARSE);
}

/* ---- tg_update_parse ---- */

static void parse(const char *json, struct tg_update *u)
{
	assert_int_equal(tg_update_parse(json, strlen(json), "gb_test_bot", 1234, u), GB_OK);
}

#define GROUP "\"chat\":{\"id\":-1001,\"type\":\"supergroup\",\"title\":\"Game night\"}"
#define ASHA "\"from\":{\"id\":77,\"first_name\":\"Asha\"}"

/* A message update: from and chat (fromchat), more fields (extra, may be ""), and its text. */
static void message_in(const char *fromchat, const char *extra, const char *text, struct tg_update *u)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"update_id\":5,\"message\":{\"message_id\":9,%s,\"date\":1,"
		 "\"text\":\"%s\"%s%s}}", fromchat, text, extra[0] ? "," : "", extra);
	parse(buf, u);
}

/* The same from Asha in the group. */
static void message(const char *extra, const char *text, struct tg_update *u)
{
	message_in(ASHA "," GROUP, extra, text, u);
}

static void updates_read_as_sent(void **state)
{
	static const char *const forwards[] = {
		"\"forward_origin\":{\"type\":\"hidden_user\",\"date\":1,\"sender_user_name\":\"X\"}",
		"\"forward_from\":{\"id\":78,\"first_name\":\"Bina\"},\"forward_date\":1",
		"\"forward_from_chat\":{\"id\":-1005,\"type\":\"channel\"},\"forward_date\":1",
		"\"forward_sender_name\":\"X\",\"forward_date\":1",
		"\"forward_date\":1",
		"\"is_automatic_forward\":true",
	};
	struct tg_update u;

	(void)state;
	/* in a group, a command without @thisbot may be another bot's */
	message("", "/new ludo", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_true(u.cmd.unaddressed);
	message("", "/new@gb_test_bot\\u00a0ludo", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_false(u.cmd.unaddressed);
	assert_string_equal(u.cmd.args, "ludo");
	message("", "/new@GB_TEST_BOT\\nludo", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.args, "ludo");
	message("", "/new@other_bot\\u00a0ludo", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	message_in(ASHA ",\"chat\":{\"id\":77,\"type\":\"private\"}", "", "/foo", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_false(u.cmd.unaddressed);

	for (size_t i = 0; i < sizeof(forwards) / sizeof(forwards[0]); i++) {
		message(forwards[i], "/new@gb_test_bot ludo", &u);
		assert_int_equal(u.kind, TG_IGNORE);
	}
	/* null forward fields are no forward */
	message("\"forward_origin\":null", "/new ludo", &u);
	assert_int_equal(u.kind, TG_COMMAND);

	/* an anonymous admin posts as the group */
	parse("{\"update_id\":6,\"message\":{\"message_id\":9,\"from\":{\"id\":1087968824,\"is_bot\":true,"
	      "\"first_name\":\"Group\",\"username\":\"GroupAnonymousBot\"},\"sender_chat\":{\"id\":-1001,"
	      "\"type\":\"supergroup\",\"title\":\"Game night\"}," GROUP ",\"date\":1,\"text\":\"/lang ne\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_true(u.cmd.anonymous);
	assert_true(u.as_group);
	assert_string_equal(u.cmd.user_name, "Game night");
	/* a channel posts in the group: anonymous, no admin */
	parse("{\"update_id\":7,\"message\":{\"message_id\":9,\"from\":{\"id\":136817688,\"is_bot\":true,"
	      "\"first_name\":\"Channel\"},\"sender_chat\":{\"id\":-1009,\"type\":\"channel\",\"title\":\"News\"},"
	      GROUP ",\"date\":1,\"text\":\"/lang ne\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_true(u.cmd.anonymous);
	assert_false(u.as_group);

	/* a button on an inline-mode message: answered, in the presser's language */
	parse("{\"update_id\":8,\"callback_query\":{\"id\":\"cq9\",\"from\":{\"id\":77,\"first_name\":\"A\","
	      "\"language_code\":\"ne\"},\"inline_message_id\":\"AAQ\",\"chat_instance\":\"1\",\"data\":\"1:0:roll\"}}", &u);
	assert_int_equal(u.kind, TG_ELSEWHERE_PRESS);
	assert_string_equal(u.reply, "cq9");
	assert_string_equal(u.lang, "ne");

	/* \u0000: well formed; a text holding one is no command, a name holding one is cut */
	message("", "/new\\u0000ludo", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	parse("{\"update_id\":9,\"message\":{\"message_id\":9,\"from\":{\"id\":77,\"first_name\":\"A\\u0000B\"},"
	      GROUP ",\"date\":1,\"text\":\"/help\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.user_name, "A");
	/* only a body that is no JSON object is malformed */
	parse("{}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	assert_int_equal(tg_update_parse("[{}]", 4, NULL, 0, &u), GB_EPARSE);
	assert_int_equal(tg_update_parse("\"\\u0000\"", 8, NULL, 0, &u), GB_EPARSE);
}

/* ---- the router ---- */

struct fixture {
	char dir[64], db[128];
	struct bot b;
	struct fake_tg *f;
	struct config cfg;
	struct adapter_env env;
	void *self;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "as-sent", 7))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	if (f->self)
		telegram_adapter.stop(f->self);
	fake_tg_free(f->f);
	rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);
	free(f);
	return rc;
}

static void make(struct command *cmd, const char *user, const char *text)
{
	memset(cmd, 0, sizeof(*cmd));
	assert_int_equal(command_parse_text(cmd, text), GB_OK);
	snprintf(cmd->platform, sizeof(cmd->platform), "telegram");
	snprintf(cmd->chat, sizeof(cmd->chat), "-1001");
	snprintf(cmd->user, sizeof(cmd->user), "%s", user);
	snprintf(cmd->user_name, sizeof(cmd->user_name), "%s", user);
	cmd->now_ms = 1000;
}

static int say(struct fixture *f, const char *user, const char *text)
{
	struct command cmd;

	make(&cmd, user, text);
	return bot_handle(&f->b, &cmd);
}

/* Every pending reply of the chat (caller decrefs); retired when retire. */
static json_t *rows(struct fixture *f, bool retire)
{
	struct store_out r[64];
	json_t *all = json_array();
	int n = 0;

	assert_int_equal(store_out_due(f->b.store, "telegram", INT64_MAX, r, 64, &n), GB_OK);
	for (int i = 0; i < n; i++) {
		json_error_t err;

		json_array_append_new(all, json_loads(r[i].payload, 0, &err));
		if (retire)
			store_out_done(f->b.store, r[i].id);
		store_out_release(&r[i]);
	}
	return all;
}

static int count(json_t *all, const char *kind, const char *text)
{
	size_t i;
	json_t *r;
	int n = 0;

	json_array_foreach(all, i, r) {
		const char *t = json_string_value(json_object_get(r, "text"));

		if (!strcmp(json_string_value(json_object_get(r, "kind")), kind) &&
		    (!text || (t && strstr(t, text))))
			n++;
	}
	return n;
}

static void assert_rows(struct fixture *f, size_t n, const char *kind, const char *text)
{
	json_t *all = rows(f, true);

	if (json_array_size(all) != n || (n && count(all, kind, text) < 1)) {
		char *dump = json_dumps(all, JSON_INDENT(1));

		fail_msg("expected %zu rows (one %s '%s'), got %s", n, kind, text ? text : "", dump);
	}
	json_decref(all);
}

static void another_bots_command_unanswered(void **state)
{
	struct fixture *f = *state;
	struct command cmd;

	/* unknown and unaddressed: not a word, and nothing written */
	make(&cmd, "77", "/quiz start");
	cmd.unaddressed = true;
	snprintf(cmd.update_id, sizeof(cmd.update_id), "u1");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 0, NULL, NULL);
	/* unknown and addressed (or in a private chat): told so */
	make(&cmd, "77", "/quiz start");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 1, "alert", "I don't know /quiz");
	/* a command of ours needs no address */
	make(&cmd, "77", "/new ludo");
	cmd.unaddressed = true;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 2, "public", "opened a table");
}

static void anonymous_never_seated(void **state)
{
	struct fixture *f = *state;
	const char *post = tr(LANG_EN, M_POST_AS_YOURSELF);
	struct command cmd;
	json_t *all;

	/* the table opens for the others, without a seat for the anonymous admin */
	make(&cmd, "1087968824", "/new ludo");
	cmd.anonymous = true;
	cmd.is_admin = true;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	all = rows(f, true);
	assert_int_equal(count(all, "alert", post), 1);
	assert_int_equal(count(all, "table", "1 – free"), 1);
	json_decref(all);
	make(&cmd, "1087968824", "/join");
	cmd.anonymous = true;
	cmd.is_admin = true;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 1, "alert", post);
	make(&cmd, "1087968824", "/seat 2");
	cmd.anonymous = true;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 1, "alert", post);
	/* people sit and play; the admin still administers */
	assert_int_equal(say(f, "77", "/join"), GB_OK);
	assert_int_equal(say(f, "78", "/join"), GB_OK);
	json_decref(rows(f, true));
	make(&cmd, "1087968824", "/speed fast");
	cmd.anonymous = true;
	cmd.is_admin = true;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 1, "public", "fast");
}

static void stale_inline_pick_silent(void **state)
{
	struct fixture *f = *state;
	struct command cmd;

	assert_int_equal(say(f, "77", "/new snakes"), GB_OK);
	assert_int_equal(say(f, "78", "/join"), GB_OK);
	assert_int_equal(say(f, "77", "/start"), GB_OK);
	assert_int_equal(say(f, "77", "/roll"), GB_OK);
	json_decref(rows(f, true));
	/* a pick of turn 0 (no reply handle): refused without a word */
	make(&cmd, "78", "/roll");
	cmd.button_table = 1;
	cmd.button_turn = 0;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 0, NULL, NULL);
	/* the same as a button press: its presser is told */
	snprintf(cmd.reply, sizeof(cmd.reply), "cq1");
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	assert_rows(f, 1, "alert", tr(LANG_EN, M_STALE_BUTTON));
}

static void board_is_a_repost(void **state)
{
	struct fixture *f = *state;
	json_t *all, *r;
	size_t i;
	int reposts = 0;

	assert_int_equal(say(f, "77", "/new ludo"), GB_OK);
	json_decref(rows(f, true));
	assert_int_equal(say(f, "78", "/board"), GB_OK);
	/* the next board does not replace the repost: both go out, in order */
	assert_int_equal(say(f, "78", "/join"), GB_OK);
	all = rows(f, true);
	json_array_foreach(all, i, r)
		if (json_is_true(json_object_get(r, "repost")))
			reposts++;
	assert_int_equal(reposts, 1);
	assert_int_equal(count(all, "table", NULL), 2);
	assert_true(json_is_true(json_object_get(json_array_get(all, 0), "repost")));
	json_decref(all);
}

/* ---- the Telegram adapter ---- */

static void start_adapter(struct fixture *f, const char *mode)
{
	assert_int_equal(fake_tg_start(&f->f, TOKEN, "gb_test_bot"), 0);
	fixture_tg_env(&f->cfg, &f->env, f->f, TOKEN, mode, false, f->db);
	assert_int_equal(telegram_adapter.start(&f->env, &f->self), GB_OK);
}

/* Deliver every pending row, oldest first (a claim takes a chat's oldest row only). */
static void deliver_all(struct fixture *f)
{
	struct store_out r[64];
	struct delivery d;
	int n;

	do {
		n = 0;
		assert_int_equal(store_out_claim(f->b.store, "telegram", bot_now_ms(), 30000, r, 64, &n),
				 GB_OK);
		for (int i = 0; i < n; i++) {
			telegram_adapter.deliver(f->self, f->b.store, &r[i], &d);
			assert_int_equal(d.result, DELIVERY_OK);
			assert_int_equal(store_out_done(f->b.store, r[i].id), GB_OK);
			store_out_release(&r[i]);
		}
	} while (n > 0);
}

static void table_message(struct fixture *f, char *buf, size_t n)
{
	struct store_table t = { 0 };

	assert_int_equal(store_table_get(f->b.store, 1, &t), GB_OK);
	snprintf(buf, n, "%s", t.message);
	store_table_release(&t);
}

static void repost_moves_the_table_message(void **state)
{
	struct fixture *f = *state;
	char method[64], first[64], now[64];
	json_t *b;
	int calls;

	start_adapter(f, "webhook");
	assert_int_equal(say(f, "77", "/new snakes"), GB_OK);
	assert_int_equal(say(f, "78", "/join"), GB_OK);
	assert_int_equal(say(f, "77", "/start"), GB_OK);
	deliver_all(f);
	table_message(f, first, sizeof(first));
	assert_true(first[0]);

	/* /board, delivered: a new message, and the old one without buttons */
	fake_tg_clear(f->f);
	assert_int_equal(say(f, "78", "/board"), GB_OK);
	deliver_all(f);
	assert_int_equal(fake_tg_count(f->f, NULL), 2);
	b = fake_tg_call(f->f, 0, method, sizeof(method), NULL);
	assert_string_equal(method, "sendMessage");
	assert_non_null(json_object_get(b, "reply_markup"));
	json_decref(b);
	b = fake_tg_call(f->f, 1, method, sizeof(method), NULL);
	assert_string_equal(method, "editMessageReplyMarkup");
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), strtoll(first, NULL, 10));
	assert_int_equal(json_array_size(json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard")), 0);
	json_decref(b);
	table_message(f, now, sizeof(now));
	assert_string_not_equal(now, first);

	/* /board overtaken by a move before it went out: the move's board is the one posted afresh */
	snprintf(first, sizeof(first), "%s", now);
	fake_tg_clear(f->f);
	assert_int_equal(say(f, "78", "/board"), GB_OK);
	assert_int_equal(say(f, "77", "/roll"), GB_OK);
	deliver_all(f);
	calls = fake_tg_count(f->f, NULL);
	assert_int_equal(fake_tg_count(f->f, "editMessageReplyMarkup"), 1);
	assert_int_equal(fake_tg_count(f->f, "editMessageText"), 0);
	b = fake_tg_call(f->f, 0, method, sizeof(method), NULL);
	assert_string_equal(method, "editMessageReplyMarkup");
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), strtoll(first, NULL, 10));
	json_decref(b);
	b = fake_tg_call(f->f, calls - 1, method, sizeof(method), NULL);
	assert_string_equal(method, "sendMessage");
	assert_non_null(strstr(json_string_value(json_object_get(b, "text")), "<pre>"));
	json_decref(b);
	table_message(f, now, sizeof(now));
	assert_true(now[0]);
	assert_string_not_equal(now, first);
}

static void polling_past_a_nul(void **state)
{
	struct fixture *f = *state;
	char buf[32];
	int64_t t0;
	json_t *all;

	start_adapter(f, "polling");
	fake_tg_push_update(f->f, "{\"update_id\":900,\"message\":{\"message_id\":1," ASHA "," GROUP
			    ",\"date\":1,\"text\":\"hello\\u0000there\"}}");
	fake_tg_push_update(f->f, "{\"update_id\":901,\"message\":{\"message_id\":2," ASHA "," GROUP
			    ",\"date\":1,\"text\":\"/new ludo\"}}");
	t0 = now_ms();
	for (;;) {
		long long got = store_meta_get(f->b.store, "telegram.offset", buf, sizeof(buf)) ? 0
			: strtoll(buf, NULL, 10);

		if (got >= 902)
			break;
		if (now_ms() - t0 > 5000) {
			fake_tg_dump(f->f);
			fail_msg("polling offset %lld: stuck before the update holding \\u0000", got);
		}
		usleep(10000);
	}
	all = rows(f, false);
	assert_int_equal(count(all, "public", "Asha opened a table"), 1);
	json_decref(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(any_space_after_the_command),
		cmocka_unit_test(updates_read_as_sent),
		cmocka_unit_test_setup_teardown(another_bots_command_unanswered, setup, teardown),
		cmocka_unit_test_setup_teardown(anonymous_never_seated, setup, teardown),
		cmocka_unit_test_setup_teardown(stale_inline_pick_silent, setup, teardown),
		cmocka_unit_test_setup_teardown(board_is_a_repost, setup, teardown),
		cmocka_unit_test_setup_teardown(repost_moves_the_table_message, setup, teardown),
		cmocka_unit_test_setup_teardown(polling_past_a_nul, setup, teardown),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
