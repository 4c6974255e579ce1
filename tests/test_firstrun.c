/*
 * test_firstrun.c - what a new player meets in their first minutes on
 * Telegram, through the real adapter and bot against the fake Bot API
 * (tests/fake_telegram.c), on a real SQLite file.
 *
 * Four people sit at a Call Break table in a group; one of them never
 * opened a private chat with the bot. The group is told how to open it -
 * with a link that opens it ready to press Start - once for that person
 * at that table, not at every deal and every /hand (each copy costs the
 * group's budget of messages), and a restart does not forget it. /start
 * in the private chat, with a start link's payload or any other words,
 * greets, says what the chat is for and sends the hand of every table
 * where the person sits; /hand there does the same. With the bot's inline
 * mode off (BotFather's /setinline skipped), "My cards" sends the hand to
 * the private chat with its buttons (or shows it in an alert when that
 * chat is closed) and the group's hint does not tell people to type
 * @bot; telegram-setup says which it is. An admin setting a table up with
 * a stream of commands is not stopped by the per-person limit moves
 * have; a flood of other commands gets its one warning.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/base/limit.h"
#include "bot/bot.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define TOKEN "123456:first-run"
#define GROUP "-1007"
#define BOT "gb_first_bot"

struct fx {
	char dir[64], db[128];
	struct fake_tg *f;
	struct config cfg;
	struct adapter_env env;
	struct store *s;
	void *self;
	struct http_server *http;
	char url[96];
	long long id;          /* next update_id */
};

/* The adapter and its webhook listener, started (again) on the fixture's database. */
static void service_start(struct fx *x)
{
	assert_int_equal(telegram_adapter.start(&x->env, &x->self), GB_OK);
	assert_int_equal(fixture_listen(&telegram_adapter, x->self, &x->http, x->url, sizeof(x->url)), 0);
}

static void service_stop(struct fx *x)
{
	http_stop(x->http);
	telegram_adapter.stop(x->self);
	x->http = NULL;
	x->self = NULL;
}

/* A fixture whose bot's inline mode is on or off, its pacing on or off. */
static struct fx *fx_new(bool inline_mode, bool pacing)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	assert_int_equal(fixture_dir(x->dir, sizeof(x->dir), "first"), 0);
	snprintf(x->db, sizeof(x->db), "%s/f.db", x->dir);
	assert_int_equal(fake_tg_start(&x->f, TOKEN, BOT), 0);
	fake_tg_inline(x->f, inline_mode);
	fixture_tg_env(&x->cfg, &x->env, x->f, TOKEN, "webhook", pacing, x->db);
	x->env.bot.seed = 7;
	/* the service's own limits (config.c) */
	x->env.bot.rate_user_per_min = 30;
	x->env.bot.rate_chat_per_min = 120;
	assert_int_equal(store_open(&x->s, x->db), GB_OK);
	limit_reset();
	service_start(x);
	x->id = 1;
	return x;
}

static int setup_inline(void **state)
{
	*state = fx_new(true, false);
	return 0;
}

static int setup_paced(void **state)
{
	*state = fx_new(true, true);
	return 0;
}

static int setup_no_inline(void **state)
{
	*state = fx_new(false, false);
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	int rc;

	service_stop(x);
	store_free(x->s);
	fake_tg_free(x->f);
	limit_reset();
	rc = fixture_rm(x->dir);
	free(x);
	return rc;
}

/* Deliver every queued reply now, in order, through the adapter. */
static void drain(struct fx *x)
{
	assert_int_equal(fixture_deliver_all(x->s, &telegram_adapter, x->self, "telegram"), 0);
}

/* POST one update (printf format) to the webhook, then deliver what it queued. */
static void update(struct fx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void update(struct fx *x, const char *fmt, ...)
{
	struct strbuf body = { 0 };
	long code;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&body, fmt, ap);
	va_end(ap);
	code = fixture_post_json(x->url, "X-Telegram-Bot-Api-Secret-Token: s3cret", sb_str(&body));
	if (code != 200)
		fail_msg("update answered %ld: %s", code, sb_str(&body));
	sb_release(&body);
	x->id++;
	drain(x);
}

static const char *const names[] = { "Asha", "Bina", "Chandra", "Dipa", "Ekta" };

/* user ("1".."5") typed text in the group */
static void group_says(struct fx *x, int user, const char *text)
{
	update(x, "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%d,"
	       "\"first_name\":\"%s\"},\"chat\":{\"id\":" GROUP ",\"type\":\"supergroup\"},\"text\":\"%s\"}}",
	       x->id, x->id, user, names[user - 1], text);
}

/* user typed text in their private chat with the bot (its id is theirs) */
static void private_says(struct fx *x, int user, const char *text)
{
	update(x, "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%d,"
	       "\"first_name\":\"%s\"},\"chat\":{\"id\":%d,\"type\":\"private\"},\"text\":\"%s\"}}",
	       x->id, x->id, user, names[user - 1], user, text);
}

/* user pressed the button with data on the table message */
static void press(struct fx *x, int user, const char *data)
{
	update(x, "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%d,"
	       "\"first_name\":\"%s\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":" GROUP ","
	       "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"%s\"}}",
	       x->id, x->id, user, names[user - 1], data);
}

/* user pressed the button with data on a message of their private chat */
static void private_press(struct fx *x, int user, const char *data)
{
	update(x, "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%d,"
	       "\"first_name\":\"%s\"},\"message\":{\"message_id\":7,\"chat\":{\"id\":%d,"
	       "\"type\":\"private\"}},\"chat_instance\":\"2\",\"data\":\"%s\"}}",
	       x->id, x->id, user, names[user - 1], user, data);
}

/* The first button of the newest message sent to chat with buttons: its callback_data (a new string), or NULL. */
static char *newest_button(struct fx *x, long long chat)
{
	for (int i = fake_tg_count(x->f, "sendMessage") - 1; i >= 0; i--) {
		json_t *b = fake_tg_nth(x->f, "sendMessage", i);
		const json_t *kb = json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard");
		const char *data = json_string_value(
			json_object_get(json_array_get(json_array_get(kb, 0), 0), "callback_data"));
		char *out = NULL;

		if (json_integer_value(json_object_get(b, "chat_id")) == chat && data)
			out = strdup(data);
		json_decref(b);
		if (out)
			return out;
	}
	return NULL;
}

/* Moves logged at the group's table. */
static int moves_now(struct fx *x)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	int moves = -1;

	assert_int_equal(store_chat_get(x->s, "telegram", GROUP, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(x->s, c.id, &t), GB_OK);
	assert_int_equal(store_move_count(x->s, t.id, &moves), GB_OK);
	store_table_release(&t);
	store_chat_release(&c);
	return moves;
}

/* Messages sent to chat (a number) whose text holds needle (NULL: any), answered with status (0: any). */
static int sent_to(struct fx *x, long long chat, const char *needle, int status)
{
	int n = fake_tg_count(x->f, NULL), found = 0;

	for (int i = 0; i < n; i++) {
		char method[64];
		int st = 0;
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), &st);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (!strcmp(method, "sendMessage") && json_integer_value(json_object_get(b, "chat_id")) == chat &&
		    (!needle || (text && strstr(text, needle))) && (!status || st == status))
			found++;
		json_decref(b);
	}
	return found;
}

/* Four people at a Call Break table of the group, dealt. */
static void four_at_callbreak(struct fx *x)
{
	group_says(x, 1, "/new callbreak");
	group_says(x, 2, "/join");
	group_says(x, 3, "/join");
	group_says(x, 4, "/join");
	group_says(x, 1, "/start");
}

/* The newest board of the group: a new reference. */
static json_t *last_board(struct fx *x)
{
	for (int i = fake_tg_count(x->f, NULL) - 1; i >= 0; i--) {
		char method[64];
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if ((!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")) &&
		    json_integer_value(json_object_get(b, "chat_id")) == -1007 && text && !strncmp(text, "<pre>", 5))
			return b;
		json_decref(b);
	}
	return NULL;
}

/* The board's button labelled label: a new reference, or NULL. */
static json_t *board_button(struct fx *x, const char *label)
{
	json_t *msg = last_board(x), *found = NULL;
	const json_t *row, *btn;
	size_t i, k;

	assert_non_null(msg);
	json_array_foreach(json_object_get(json_object_get(msg, "reply_markup"), "inline_keyboard"), i, row)
		json_array_foreach(row, k, btn)
			if (!found && !strcmp(json_string_value(json_object_get(btn, "text")), label))
				found = json_incref((json_t *)btn);
	json_decref(msg);
	return found;
}

#define HINT "I can't send you private messages yet"
#define LINK "https://t.me/" BOT "?start="

/*
 * Bina never opened a private chat: the group is told how once, at the
 * deal, and not again at her /hand, nor after a restart.
 */
static void test_hint_once_per_table(void **state)
{
	struct fx *x = *state;

	fake_tg_private(x->f, "2", false);
	four_at_callbreak(x);
	/* three hands reached their private chats; Bina's did not, and the group was told how */
	assert_int_equal(sent_to(x, 1, NULL, 200), 1);
	assert_int_equal(sent_to(x, 2, NULL, 403), 1);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
	/* her /hand in the group: her private chat is still closed, and the group is not told again */
	group_says(x, 2, "/hand");
	group_says(x, 2, "/hand");
	assert_int_equal(sent_to(x, 2, NULL, 403), 3);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
	/* a restart does not forget it */
	service_stop(x);
	service_start(x);
	group_says(x, 2, "/hand");
	assert_int_equal(sent_to(x, 2, NULL, 403), 4);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
}

/*
 * The hint carries a link that opens the private chat ready to press
 * Start; /start there, with the link's payload or any other words, greets
 * and brings the hand of every table where the person sits; /hand there
 * does too.
 */
static void test_start_in_private_chat(void **state)
{
	struct fx *x = *state;
	bool pressed = false;

	fake_tg_private(x->f, "2", false);
	four_at_callbreak(x);
	assert_int_equal(sent_to(x, -1007, LINK "hands", 200), 1);
	/* she follows the link: /start with its payload, in the chat now open */
	fake_tg_private(x->f, "2", true);
	private_says(x, 2, "/start hands");
	assert_int_equal(sent_to(x, 2, "There is no game here yet", 0), 0);
	assert_int_equal(sent_to(x, 2, "Usage", 0), 0);
	assert_int_equal(sent_to(x, 2, "private chat", 200), 1);
	/* her hand, headed by her name, in a block */
	assert_int_equal(sent_to(x, 2, "<pre>Bina", 200), 1);
	/* any other words after /start (a payload made up) are not read */
	private_says(x, 2, "/start hello");
	assert_int_equal(sent_to(x, 2, "Usage", 0), 0);
	assert_int_equal(sent_to(x, 2, "private chat", 200), 2);
	assert_int_equal(sent_to(x, 2, "<pre>Bina", 200), 2);
	private_says(x, 2, "/start ../../%00%3Cb%3E");
	assert_int_equal(sent_to(x, 2, "<pre>Bina", 200), 3);
	assert_int_equal(sent_to(x, 2, "%00", 0), 0);
	/* /hand there: the hand again, no "no game here"; a bid typed there shows it too */
	private_says(x, 3, "/hand");
	assert_int_equal(sent_to(x, 3, "There is no game here yet", 0), 0);
	assert_int_equal(sent_to(x, 3, "<pre>Chandra", 200), 2);
	private_says(x, 3, "/bid 3");
	assert_int_equal(sent_to(x, 3, "There is no game here yet", 0), 0);
	assert_int_equal(sent_to(x, 3, "<pre>Chandra", 200), 3);
	/* the one to bid: /start brings their hand with its bids as buttons, and a press there bids at the table */
	for (int user = 1; user <= 4 && !pressed; user++) {
		char *data;
		int before = moves_now(x);

		fake_tg_clear(x->f);
		private_says(x, user, "/start");
		data = newest_button(x, user);
		if (!data)
			continue;
		private_press(x, user, data);
		free(data);
		assert_int_equal(moves_now(x), before + 1);
		pressed = true;
	}
	assert_true(pressed);
	/* someone with no seat anywhere is told what the chat is for, and that no cards are held */
	private_says(x, 5, "/start");
	assert_int_equal(sent_to(x, 5, "private chat", 200), 1);
	assert_int_equal(sent_to(x, 5, "You hold no cards now", 200), 1);
}

/* With inline mode on, the group's hint still offers typing @bot. */
static void test_hint_with_inline_mode(void **state)
{
	struct fx *x = *state;

	fake_tg_private(x->f, "3", false);
	four_at_callbreak(x);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
	assert_int_equal(sent_to(x, -1007, "type @" BOT, 200), 1);
}

/*
 * Inline mode off: "My cards" is a press that sends the hand, with its
 * buttons, to the presser's private chat; for a person whose private chat
 * is closed it shows the hand in an alert to them alone. The group's hint
 * does not offer typing @bot.
 */
static void test_my_cards_without_inline(void **state)
{
	struct fx *x = *state;
	json_t *btn, *ans, *hand;
	const char *data;
	int before, hands;

	fake_tg_private(x->f, "2", false);
	four_at_callbreak(x);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
	assert_int_equal(sent_to(x, -1007, "type @", 0), 0);
	assert_int_equal(sent_to(x, -1007, LINK, 200), 1);
	btn = board_button(x, "My cards");
	assert_non_null(btn);
	assert_null(json_object_get(btn, "switch_inline_query_current_chat"));
	data = json_string_value(json_object_get(btn, "callback_data"));
	assert_non_null(data);

	/* Asha's private chat is open: her hand goes there, the press is closed quietly */
	hands = sent_to(x, 1, "<pre>Asha", 200);
	before = fake_tg_count(x->f, "answerCallbackQuery");
	press(x, 1, data);
	assert_int_equal(sent_to(x, 1, "<pre>Asha", 200), hands + 1);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), before + 1);
	ans = fake_tg_nth(x->f, "answerCallbackQuery", before);
	assert_null(json_object_get(ans, "text"));
	json_decref(ans);
	/* with the buttons of the cards she may play, if it is her turn: pressed in her chat, they play there */
	hand = fake_tg_nth(x->f, "sendMessage", fake_tg_count(x->f, "sendMessage") - 1);
	assert_int_equal(json_integer_value(json_object_get(hand, "chat_id")), 1);
	json_decref(hand);

	/* Bina's is closed: an alert with her cards, to her alone; nothing more in the group */
	before = fake_tg_count(x->f, "answerCallbackQuery");
	press(x, 2, data);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), before + 1);
	ans = fake_tg_nth(x->f, "answerCallbackQuery", before);
	assert_true(json_is_true(json_object_get(ans, "show_alert")));
	assert_non_null(strstr(json_string_value(json_object_get(ans, "text")), "Bina"));
	json_decref(ans);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
	json_decref(btn);
}

/* Deliver one row of payload to chat through the adapter: its result. */
static enum delivery_result deliver_one(struct fx *x, const char *chat, const char *payload)
{
	struct store_out rows[4];
	struct delivery d;
	int n = 0;

	assert_int_equal(store_out_add(x->s, "telegram", chat, 0, "", payload, 1), GB_OK);
	assert_int_equal(store_out_claim(x->s, "telegram", INT64_MAX / 2, 30000, rows, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	telegram_adapter.deliver(x->self, x->s, &rows[0], &d);
	assert_int_equal(store_out_done(x->s, rows[0].id), GB_OK);
	store_out_release(&rows[0]);
	return d.result;
}

/*
 * The hint is a line of the group and spends the group's budget as any
 * line does: right after another message to the group (its second not
 * over) it waits, and its row is tried again later, rather than going
 * out at once past the pacing.
 */
static void test_hint_is_paced(void **state)
{
	struct fx *x = *state;
	enum delivery_result r = DELIVERY_WAIT;

	fake_tg_private(x->f, "2", false);
	assert_int_equal(deliver_one(x, GROUP, "{\"kind\":\"public\",\"text\":\"hello\"}"), DELIVERY_OK);
	assert_int_equal(deliver_one(x, GROUP, "{\"kind\":\"private\",\"user\":\"2\",\"text\":\"a hand\","
				     "\"table\":5,\"lang\":\"en\"}"), DELIVERY_WAIT);
	assert_int_equal(sent_to(x, -1007, HINT, 0), 0);
	/* tried again until there is room (a second or so): told once */
	for (int i = 0; i < 100 && r != DELIVERY_OK; i++) {
		usleep(100 * 1000);
		r = deliver_one(x, GROUP, "{\"kind\":\"private\",\"user\":\"2\",\"text\":\"a hand\","
				"\"table\":5,\"lang\":\"en\"}");
		assert_true(r == DELIVERY_OK || r == DELIVERY_WAIT);
	}
	assert_int_equal(r, DELIVERY_OK);
	assert_int_equal(sent_to(x, -1007, HINT, 200), 1);
}

/* telegram-setup says whether inline mode is on, and what "My cards" does without it. */
static void test_setup_reads_inline_mode(void **state)
{
	struct fx *x = *state;
	char *out_text = NULL, *err_text = NULL;
	size_t out_len = 0, err_len = 0;
	FILE *out, *err;
	char *argv[] = { "telegram-setup", NULL };

	for (int on = 0; on < 2; on++) {
		fake_tg_inline(x->f, on);
		out = open_memstream(&out_text, &out_len);
		err = open_memstream(&err_text, &err_len);
		assert_int_equal(telegram_setup_main(1, argv, &x->cfg, out, err), 0);
		fclose(out);
		fclose(err);
		assert_non_null(strstr(out_text, on ? "inline mode: on" : "inline mode: off"));
		if (!on)
			assert_non_null(strstr(out_text, "/setinline"));
		free(out_text);
		free(err_text);
		out_text = err_text = NULL;
	}
}

/*
 * An admin sets a table up in a stream of commands (~30 in well under a
 * minute): none is dropped, and the game starts; a flood of other
 * commands gets the limit's one warning.
 */
static void test_setup_stream_not_limited(void **state)
{
	struct fx *x = *state;
	json_t *b;

	fake_tg_member(x->f, GROUP, "1", "administrator");
	group_says(x, 1, "/new callbreak");
	for (int i = 0; i < 12; i++) {
		group_says(x, 1, "/settings");
		group_says(x, 1, "/settings callbreak");
	}
	group_says(x, 1, "/addbot");
	group_says(x, 1, "/addbot easy");
	group_says(x, 1, "/addbot hard");
	group_says(x, 1, "/settings");
	group_says(x, 1, "/settings");
	group_says(x, 1, "/start");
	/* over thirty commands, none refused: the table is dealt */
	assert_int_equal(sent_to(x, -1007, "lot of commands", 0), 0);
	b = last_board(x);
	assert_non_null(b);
	assert_null(strstr(json_string_value(json_object_get(b, "text")), "waiting to start"));
	json_decref(b);
	assert_true(sent_to(x, 1, "<pre>Asha", 200) >= 1);
	/* someone else's flood of /help: answered thirty times, then one warning, then nothing */
	for (int i = 0; i < 40; i++)
		group_says(x, 5, "/help");
	assert_int_equal(sent_to(x, -1007, "lot of commands", 200), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hint_once_per_table, setup_inline, teardown),
		cmocka_unit_test_setup_teardown(test_start_in_private_chat, setup_inline, teardown),
		cmocka_unit_test_setup_teardown(test_hint_with_inline_mode, setup_inline, teardown),
		cmocka_unit_test_setup_teardown(test_my_cards_without_inline, setup_no_inline, teardown),
		cmocka_unit_test_setup_teardown(test_setup_reads_inline_mode, setup_inline, teardown),
		cmocka_unit_test_setup_teardown(test_hint_is_paced, setup_paced, teardown),
		cmocka_unit_test_setup_teardown(test_setup_stream_not_limited, setup_inline, teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
