/*
 * test_forum.c - Telegram forum groups: each topic is a place of its own.
 *
 * A forum supergroup (chat.is_forum) carries message_thread_id and
 * is_topic_message on every message of a topic. The service must answer in
 * the topic a command came from (a reply without message_thread_id lands
 * in General, which may be closed), keep one table per topic, and keep one
 * language, one set of house rules, one set of wallets and one /stats for
 * the whole group.
 *
 * The pure parts (updates read into places, calls addressed to topics) are
 * tested on their own; then the real binary, on webhook, plays a Ludo game
 * in one topic and a Call Break game in another of one forum group against
 * the fake Bot API with the General topic closed, and a closed and a
 * deleted topic are given up without retrying for ever. A bot removed
 * from the group (its my_chat_member update, or a 403 in one topic)
 * stops the staked tables of every topic and of General, refunds every
 * stake and sends nothing more there.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/telegram.h"
#include "bot/tools/audit.h"
#include "bot/bot.h"
#include "games/game.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "4242:forum-token"
#define SECRET "forum-secret"
#define GROUP "-1001777"
#define GROUP_ID -1001777LL

/* ---- pure: updates in, calls out ---- */

static void parse(const char *json, struct tg_update *u)
{
	assert_int_equal(tg_update_parse(json, strlen(json), "gb_forum_bot", 1, u), GB_OK);
}

static void places_of_updates(void **state)
{
	struct tg_update u;
	char buf[STORE_ID_LEN];

	(void)state;
	/* a topic of a forum: the place "CHAT#THREAD" */
	parse("{\"update_id\":1,\"message\":{\"message_id\":5,\"message_thread_id\":30,"
	      "\"is_topic_message\":true,\"from\":{\"id\":7,\"is_bot\":false,\"first_name\":\"Asha\"},"
	      "\"chat\":{\"id\":-1001777,\"title\":\"Family\",\"is_forum\":true,\"type\":\"supergroup\"},"
	      "\"date\":1700000000,\"text\":\"/new ludo\","
	      "\"entities\":[{\"offset\":0,\"length\":4,\"type\":\"bot_command\"}]}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.chat, GROUP "#30");
	assert_string_equal(place_chat(u.cmd.chat, buf, sizeof(buf)), GROUP);
	assert_string_equal(place_thread(u.cmd.chat), "30");
	/* the General topic of the same forum: the chat itself */
	parse("{\"update_id\":2,\"message\":{\"message_id\":6,\"from\":{\"id\":7,\"is_bot\":false,"
	      "\"first_name\":\"Asha\"},\"chat\":{\"id\":-1001777,\"title\":\"Family\",\"is_forum\":true,"
	      "\"type\":\"supergroup\"},\"date\":1700000000,\"text\":\"/help\"}}", &u);
	assert_string_equal(u.cmd.chat, GROUP);
	assert_string_equal(place_thread(u.cmd.chat), "");
	/* a reply thread of an ordinary supergroup carries a thread id too: not a topic */
	parse("{\"update_id\":3,\"message\":{\"message_id\":9,\"message_thread_id\":8,"
	      "\"from\":{\"id\":7,\"is_bot\":false,\"first_name\":\"Asha\"},\"chat\":{\"id\":-1005,"
	      "\"title\":\"Plain\",\"type\":\"supergroup\"},\"date\":1700000000,\"text\":\"/help\","
	      "\"reply_to_message\":{\"message_id\":8,\"chat\":{\"id\":-1005,\"type\":\"supergroup\"},"
	      "\"date\":1700000000,\"text\":\"hi\"}}}", &u);
	assert_string_equal(u.cmd.chat, "-1005");
	/* a press on a table message posted in a topic acts on that topic */
	parse("{\"update_id\":4,\"callback_query\":{\"id\":\"cq1\",\"from\":{\"id\":7,\"is_bot\":false,"
	      "\"first_name\":\"Asha\"},\"message\":{\"message_id\":100,\"message_thread_id\":31,"
	      "\"is_topic_message\":true,\"from\":{\"id\":4242,\"is_bot\":true,\"first_name\":\"gamebot\"},"
	      "\"chat\":{\"id\":-1001777,\"title\":\"Family\",\"is_forum\":true,\"type\":\"supergroup\"},"
	      "\"date\":1700000000,\"text\":\"Ludo\"},\"chat_instance\":\"-77\",\"data\":\"5:3:roll\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.chat, GROUP "#31");
	assert_string_equal(u.cmd.verb, "roll");
	/* an anonymous admin posting in a topic speaks for the group */
	parse("{\"update_id\":6,\"message\":{\"message_id\":7,\"message_thread_id\":30,"
	      "\"is_topic_message\":true,\"from\":{\"id\":1087968824,\"is_bot\":true,"
	      "\"first_name\":\"Group\",\"username\":\"GroupAnonymousBot\"},\"sender_chat\":"
	      "{\"id\":-1001777,\"title\":\"Family\",\"type\":\"supergroup\"},\"chat\":{\"id\":-1001777,"
	      "\"title\":\"Family\",\"is_forum\":true,\"type\":\"supergroup\"},\"date\":1700000000,"
	      "\"text\":\"/lang ne\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.chat, GROUP "#30");
	assert_true(u.cmd.anonymous);
	assert_true(u.as_group);
	/* a group that became a supergroup moves as a whole chat */
	parse("{\"update_id\":5,\"message\":{\"message_id\":10,\"from\":{\"id\":7,\"is_bot\":false,"
	      "\"first_name\":\"Asha\"},\"chat\":{\"id\":-55,\"title\":\"Old\",\"type\":\"group\"},"
	      "\"date\":1700000000,\"migrate_to_chat_id\":-1009}}", &u);
	assert_int_equal(u.kind, TG_MIGRATE);
	assert_string_equal(u.cmd.chat, "-55");
}

static json_t *render(const char *view, const char *chat, const char *msg, struct tg_call *c)
{
	json_error_t err;
	json_t *v = json_loads(view, 0, &err);

	assert_non_null(v);
	assert_int_equal(tg_render(v, chat, msg, c), GB_OK);
	json_decref(v);
	return c->body;
}

static void calls_go_to_the_topic(void **state)
{
	struct tg_call c;
	json_t *b;

	(void)state;
	b = render("{\"kind\":\"public\",\"text\":\"Bina sits down\"}", GROUP "#30", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), GROUP_ID);
	assert_int_equal(json_integer_value(json_object_get(b, "message_thread_id")), 30);
	/* paced as the group: Telegram counts a forum's topics together */
	assert_string_equal(c.chat, GROUP);
	tg_call_release(&c);
	/* the table message is posted in the topic, then edited by its id alone */
	b = render("{\"kind\":\"table\",\"text\":\"board\",\"table\":4,\"turn\":2}", GROUP "#31", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_int_equal(json_integer_value(json_object_get(b, "message_thread_id")), 31);
	tg_call_release(&c);
	b = render("{\"kind\":\"table\",\"text\":\"board\",\"table\":4,\"turn\":3}", GROUP "#31", "120", &c);
	assert_string_equal(c.method, "editMessageText");
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), GROUP_ID);
	assert_null(json_object_get(b, "message_thread_id"));
	tg_call_release(&c);
	/* an alert with no press to answer is posted in the topic too */
	b = render("{\"kind\":\"alert\",\"user\":\"7\",\"text\":\"Not your turn\"}", GROUP "#31", "", &c);
	assert_int_equal(json_integer_value(json_object_get(b, "message_thread_id")), 31);
	tg_call_release(&c);
	/* the chat itself: no thread */
	b = render("{\"kind\":\"public\",\"text\":\"hello\"}", GROUP, "", &c);
	assert_null(json_object_get(b, "message_thread_id"));
	tg_call_release(&c);
}

/* ---- the real service against the fake Bot API ---- */

struct fix {
	char dir[64], db[128], log[128], url[128], health[128];
	struct fake_tg *f;
	pid_t pid;
	struct store *s;
	long long next_update;
	long long next_message;
};

struct body {
	char buf[8192];
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t len = size * n;

	if (b->len + len >= sizeof(b->buf))
		len = sizeof(b->buf) - 1 - b->len;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return size * n;
}

static void show_log(struct fix *x)
{
	char text[8192];
	FILE *f = fopen(x->log, "r");
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

	text[n] = '\0';
	if (f)
		fclose(f);
	fprintf(stderr, "the service said:\n%s\n", text);
}

static int teardown(void **state)
{
	struct fix *x = *state;
	int rc;
	int status = 0;

	if (x->pid > 0) {
		kill(x->pid, SIGTERM);
		waitpid(x->pid, &status, 0);
	}
	store_free(x->s);
	fake_tg_free(x->f);
	rc = fixture_rm(x->dir);
	free(x);
	return rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char e_db[160], e_listen[96], e_api[160];
	const char *env[] = {
		"GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "TELEGRAM_TOKEN=" TOKEN,
		"TELEGRAM_SECRET=" SECRET, e_api, "TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_PACING=off",
		"GAMEBOT_RATE_USER_PER_MIN=0", "GAMEBOT_RATE_CHAT_PER_MIN=0", "DISCORD_TOKEN",
		"DISCORD_APP_ID", "DISCORD_PUBLIC_KEY", NULL
	};
	int port;

	if (!x)
		return -1;
	*state = x;
	if (fixture_dir(x->dir, sizeof(x->dir), "forum"))
		return -1;
	snprintf(x->db, sizeof(x->db), "%s/f.db", x->dir);
	snprintf(x->log, sizeof(x->log), "%s/serve.log", x->dir);
	if (fake_tg_start(&x->f, TOKEN, "gb_forum_bot"))
		return -1;
	/* the General topic is closed: anything that loses its topic is refused */
	fake_tg_topic(x->f, GROUP, 0, FAKE_TG_TOPIC_CLOSED);
	fake_tg_member(x->f, GROUP, "11", "creator");
	port = free_port();
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", x->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "TELEGRAM_API_URL=%s", fake_tg_url(x->f));
	snprintf(x->url, sizeof(x->url), "http://127.0.0.1:%d/telegram", port);
	snprintf(x->health, sizeof(x->health), "http://127.0.0.1:%d/healthz", port);
	x->next_update = 700000;
	x->next_message = 5000;
	x->pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, x->log, false);
	if (x->pid < 0 || !wait_serving(x->pid, x->health, 20000) || store_open(&x->s, x->db)) {
		show_log(x);
		return -1;
	}
	return 0;
}

/* POST one update to the service's webhook; returns the HTTP status. */
static long hook(struct fix *x, const char *json)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct body out = { .len = 0 };
	long code = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	curl_easy_setopt(c, CURLOPT_URL, x->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

/* The chat object of the forum group, as Telegram sends it. */
#define FORUM_CHAT "{\"id\":-1001777,\"title\":\"Family games\",\"is_forum\":true,\"type\":\"supergroup\"}"

static const char *name_of(const char *user)
{
	static const char *const names[] = { "Asha", "Bina", "Chandra", "Dipa" };
	long k = strtol(user, NULL, 10) - 11;

	return k >= 0 && k < 4 ? names[k] : "Someone";
}

/* Someone types text in topic thread (0: General), with every field a client sends. */
static void say(struct fix *x, int thread, const char *user, const char *text)
{
	struct strbuf sb = { 0 };
	long long id = x->next_update++, mid = x->next_message++;
	size_t cmdlen = strcspn(text, " ");

	sb_addf(&sb, "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,", id, mid);
	if (thread)
		sb_addf(&sb, "\"message_thread_id\":%d,\"is_topic_message\":true,"
			"\"reply_to_message\":{\"message_id\":%d,\"from\":{\"id\":%s,\"is_bot\":false,"
			"\"first_name\":\"%s\"},\"chat\":" FORUM_CHAT ",\"date\":1700000000,"
			"\"message_thread_id\":%d,\"forum_topic_created\":{\"name\":\"Table %d\","
			"\"icon_color\":7322096}},", thread, thread, user, name_of(user), thread, thread);
	sb_addf(&sb, "\"from\":{\"id\":%s,\"is_bot\":false,\"first_name\":\"%s\",\"language_code\":\"en\"},"
		"\"chat\":" FORUM_CHAT ",\"date\":%lld,\"text\":\"%s\",\"entities\":[{\"offset\":0,"
		"\"length\":%zu,\"type\":\"bot_command\"}]}}", user, name_of(user), (long long)time(NULL),
		text, cmdlen);
	assert_int_equal(hook(x, sb_str(&sb)), 200);
	sb_release(&sb);
}

/* Someone presses a button of the bot's message message_id in topic thread. */
static void press(struct fix *x, int thread, const char *message_id, const char *user, const char *data)
{
	struct strbuf sb = { 0 };
	long long id = x->next_update++;

	sb_addf(&sb, "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%s,"
		"\"is_bot\":false,\"first_name\":\"%s\"},\"message\":{\"message_id\":%s,"
		"\"message_thread_id\":%d,\"is_topic_message\":true,\"from\":{\"id\":4242,\"is_bot\":true,"
		"\"first_name\":\"gamebot\",\"username\":\"gb_forum_bot\"},\"chat\":" FORUM_CHAT ","
		"\"date\":1700000000,\"text\":\"board\"},\"chat_instance\":\"-4217\",\"data\":\"%s\"}}",
		id, id, user, name_of(user), message_id, thread, data);
	assert_int_equal(hook(x, sb_str(&sb)), 200);
	sb_release(&sb);
}

/* What the store holds of the open (or last) table of topic thread. */
struct seen {
	bool open;                     /* a table is open there */
	int64_t id;
	char game[16];
	char message[STORE_ID_LEN];    /* its table message, "" until posted */
	int status;
	int moves;
	int turn;                      /* seat to act, -1 none */
	char user[STORE_ID_LEN];       /* that seat's person, "" for a computer */
	char action[GB_ACTION_TEXT];   /* its first legal action */
};

static void look(struct fix *x, int thread, struct seen *out)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[GB_MAX_SEATS];
	char place[64];
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->turn = -1;
	/* the General topic is the group itself */
	snprintf(place, sizeof(place), thread ? GROUP "#%d" : GROUP, thread);
	assert_int_equal(store_chat_get(x->s, "telegram", place, "en", &c), GB_OK);
	if (store_table_open_get(x->s, c.id, &t) == GB_OK) {
		const struct gb_game *g = gb_game_find(t.game);

		out->open = true;
		out->id = t.id;
		out->status = t.status;
		snprintf(out->game, sizeof(out->game), "%s", t.game);
		snprintf(out->message, sizeof(out->message), "%s", t.message);
		assert_int_equal(store_move_count(x->s, t.id, &out->moves), GB_OK);
		if (t.status == STORE_PLAYING && t.state && g) {
			json_error_t err;
			json_t *w = json_loads(t.state, 0, &err);
			void *st = calloc(1, g->state_size);
			struct gb_action acts[GB_MAX_LEGAL];

			assert_int_equal(g->from_json(st, json_object_get(w, "game")), GB_OK);
			out->turn = g->turn(st);
			if (out->turn >= 0 && g->legal(st, acts) > 0)
				g->format(st, &acts[0], out->action, sizeof(out->action));
			assert_int_equal(store_seats_get(x->s, t.id, seats, GB_MAX_SEATS, &n), GB_OK);
			if (out->turn >= 0 && out->turn < n && seats[out->turn].level < 0)
				snprintf(out->user, sizeof(out->user), "%s", seats[out->turn].user);
			json_decref(w);
			free(st);
		}
	}
	store_table_release(&t);
	store_chat_release(&c);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The callback_data of the first button of keyboard kb that holds want (NULL: any), or NULL. */
static const char *button(const json_t *kb, const char *want)
{
	size_t i, k;
	json_t *row, *b;

	json_array_foreach(kb, i, row) {
		json_array_foreach(row, k, b) {
			const char *d = json_string_value(json_object_get(b, "callback_data"));

			if (d && (!want || strstr(d, want)))
				return d;
		}
	}
	return NULL;
}

/*
 * Wait until the fake has been sent a board of table drawn at turn moves
 * with a button holding want (NULL: any): copy its callback_data into
 * data. False after timeout_ms.
 */
static bool wait_board(struct fix *x, int64_t table, int moves, const char *want, char *data, size_t n,
		       int timeout_ms)
{
	char prefix[48], method[64];
	int64_t until = mono_ms() + timeout_ms;

	snprintf(prefix, sizeof(prefix), "%lld:%d:", (long long)table, moves);
	do {
		for (int i = fake_tg_count(x->f, NULL) - 1; i >= 0; i--) {
			json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);
			json_t *kb = json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard");
			const char *d = button(kb, want);
			bool hit = d && !strncmp(d, prefix, strlen(prefix));

			if (hit)
				snprintf(data, n, "%s", d);
			json_decref(b);
			if (hit)
				return true;
		}
		usleep(5000);
	} while (mono_ms() < until);
	return false;
}

/* Wait (bounded) until the outbox holds nothing pending. */
static void wait_outbox_empty(struct fix *x)
{
	int64_t until = mono_ms() + 20000;
	int pending = 1;

	while (mono_ms() < until) {
		assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
		if (!pending)
			return;
		usleep(10000);
	}
	show_log(x);
	fail_msg("%d rows still pending", pending);
}

/*
 * The board seen at the fake is recorded as the table's message a moment
 * after the fake answered: wait (bounded) for the id the press names.
 */
static void wait_message(struct fix *x, int thread, struct seen *s)
{
	int64_t until = mono_ms() + 10000;

	while (!s->message[0] && mono_ms() < until) {
		usleep(5000);
		look(x, thread, s);
	}
	assert_true(s->message[0]);
}

/* One step of the Ludo table of topic 30, played with the buttons of its table message. */
static bool ludo_step(struct fix *x)
{
	struct seen s;
	char data[80];

	look(x, 30, &s);
	if (!s.open || s.status != STORE_PLAYING)
		return false;
	assert_true(s.user[0]);
	if (!wait_board(x, s.id, s.moves, NULL, data, sizeof(data), 10000)) {
		fake_tg_dump(x->f);
		show_log(x);
		fail_msg("no board of table %lld at turn %d", (long long)s.id, s.moves);
	}
	wait_message(x, 30, &s);
	press(x, 30, s.message, s.user, data);
	return true;
}

/* One step of the Call Break table of topic 31: Chandra plays typed commands. */
static bool callbreak_step(struct fix *x)
{
	struct seen s;
	char text[64];

	look(x, 31, &s);
	if (!s.open || s.status != STORE_PLAYING)
		return false;
	if (!strcmp(s.user, "13")) {
		snprintf(text, sizeof(text), "/%s", s.action);
		say(x, 31, "13", text);
	} else {
		usleep(5000); /* a computer's turn: its timer plays */
	}
	return true;
}

/* Every sendMessage to the group: in topic 30 or 31, and the games' own texts in their topics. */
static void assert_sends_stayed_in_topics(struct fix *x)
{
	int sends = fake_tg_count(x->f, "sendMessage"), in30 = 0, in31 = 0;

	for (int i = 0; i < sends; i++) {
		json_t *b = fake_tg_nth(x->f, "sendMessage", i);
		const char *text = json_string_value(json_object_get(b, "text"));
		json_int_t thread = json_integer_value(json_object_get(b, "message_thread_id"));

		if (json_integer_value(json_object_get(b, "chat_id")) == GROUP_ID) {
			if (thread != 30 && thread != 31) {
				fake_tg_dump(x->f);
				fail_msg("a message left its topic: %s", text);
			}
			if (strstr(text, "Ludo"))
				assert_int_equal(thread, 30);
			if (strstr(text, "Call Break"))
				assert_int_equal(thread, 31);
			in30 += thread == 30;
			in31 += thread == 31;
		}
		json_decref(b);
	}
	assert_true(in30 > 0 && in31 > 0);
}

static void two_topics_two_games(void **state)
{
	struct fix *x = *state;
	struct seen ludo, cb;
	int steps = 0, stats_before;

	/* house rules and speed set once, in topic 30, hold for the whole group */
	say(x, 30, "11", "/settings callbreak rounds 1");
	say(x, 30, "11", "/speed fast");
	say(x, 30, "11", "/new ludo");
	say(x, 30, "12", "/join");
	/* a second table in another topic of the same group */
	say(x, 31, "13", "/new callbreak");
	look(x, 30, &ludo);
	look(x, 31, &cb);
	assert_true(ludo.open && cb.open);
	assert_true(ludo.id != cb.id);
	assert_string_equal(ludo.game, "ludo");
	assert_string_equal(cb.game, "callbreak");
	for (int i = 0; i < 3; i++)
		say(x, 31, "13", "/addbot easy");
	say(x, 31, "13", "/start");
	/* Ludo starts with the lobby's button, pressed in its topic */
	{
		char data[80];

		look(x, 30, &ludo);
		assert_true(wait_board(x, ludo.id, 0, ":start", data, sizeof(data), 10000));
		assert_non_null(strstr(data, ":start"));
		wait_message(x, 30, &ludo);
		press(x, 30, ludo.message, "11", data);
	}
	for (bool more = true; more && steps < 4000; steps++) {
		bool a = ludo_step(x), b = callbreak_step(x);

		more = a || b;
	}
	look(x, 30, &ludo);
	look(x, 31, &cb);
	assert_false(ludo.open);
	assert_false(cb.open);
	wait_outbox_empty(x);
	assert_sends_stayed_in_topics(x);
	/* the group's one /stats counts both games */
	stats_before = fake_tg_count(x->f, "sendMessage");
	say(x, 31, "12", "/stats");
	wait_outbox_empty(x);
	{
		json_t *b = fake_tg_nth(x->f, "sendMessage", stats_before);
		const char *text = json_string_value(json_object_get(b, "text"));

		assert_non_null(text);
		assert_int_equal(json_integer_value(json_object_get(b, "message_thread_id")), 31);
		assert_non_null(strstr(text, "Asha"));
		assert_non_null(strstr(text, "Chandra"));
		json_decref(b);
	}
	/* one language for the group: set in one topic, spoken in another */
	say(x, 30, "11", "/lang ne");
	stats_before = fake_tg_count(x->f, "sendMessage");
	say(x, 31, "12", "/help");
	wait_outbox_empty(x);
	{
		json_t *b = fake_tg_nth(x->f, "sendMessage", fake_tg_count(x->f, "sendMessage") - 1);

		assert_true(fake_tg_count(x->f, "sendMessage") > stats_before);
		assert_non_null(strstr(json_string_value(json_object_get(b, "text")), "खेल"));
		json_decref(b);
	}
}

/* How many sendMessage calls went to topic thread of the group. */
static int sends_to(struct fix *x, int thread)
{
	int n = 0;

	for (int i = 0; i < fake_tg_count(x->f, "sendMessage"); i++) {
		json_t *b = fake_tg_nth(x->f, "sendMessage", i);

		n += json_integer_value(json_object_get(b, "chat_id")) == GROUP_ID &&
		     json_integer_value(json_object_get(b, "message_thread_id")) == thread;
		json_decref(b);
	}
	return n;
}

/* How many lines of the service's log hold needle. */
static int log_lines(struct fix *x, const char *needle)
{
	char line[1024];
	FILE *f = fopen(x->log, "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

static void closed_and_deleted_topics_are_given_up(void **state)
{
	struct fix *x = *state;
	struct seen s;
	int aside = 0, before32, before33;

	say(x, 32, "11", "/new snakes");
	say(x, 33, "11", "/new snakes");
	wait_outbox_empty(x);
	assert_true(sends_to(x, 32) >= 1);
	assert_true(sends_to(x, 33) >= 1);
	/* the topics are closed and deleted while their tables are open */
	fake_tg_topic(x->f, GROUP, 32, FAKE_TG_TOPIC_CLOSED);
	fake_tg_topic(x->f, GROUP, 33, FAKE_TG_TOPIC_DELETED);
	before32 = sends_to(x, 32);
	before33 = sends_to(x, 33);
	say(x, 32, "12", "/join");
	say(x, 33, "12", "/join");
	wait_outbox_empty(x);
	/* each message tried once, given up, and said once in the log */
	assert_int_equal(sends_to(x, 32), before32 + 1);
	assert_int_equal(sends_to(x, 33), before33 + 1);
	assert_int_equal(store_out_count(x->s, "telegram", NULL, &aside, NULL), GB_OK);
	assert_int_equal(aside, 2);
	assert_int_equal(log_lines(x, "TOPIC_CLOSED"), 1);
	assert_int_equal(log_lines(x, "message thread not found"), 1);
	/* the tables are still the topics' own: stopped as usual */
	say(x, 32, "11", "/stop");
	look(x, 32, &s);
	assert_false(s.open);
	look(x, 33, &s);
	assert_true(s.open);
	/* the General topic is the group itself, and (closed) refuses too */
	say(x, 0, "11", "/help");
	wait_outbox_empty(x);
	assert_int_equal(sends_to(x, 0), 1);
}

/* ---- the bot removed from the group ---- */

/* A staked Snakes and Ladders table in topic thread (0: General): Asha and Bina, 10 coins each. */
static int64_t staked_table(struct fix *x, int thread)
{
	struct seen s;

	say(x, thread, "11", "/new snakes");
	say(x, thread, "11", "/stake 10");
	say(x, thread, "12", "/join");
	say(x, thread, "11", "/start");
	look(x, thread, &s);
	assert_true(s.open);
	assert_int_equal(s.status, STORE_PLAYING);
	return s.id;
}

/* The group's balance of account (its wallets and pots are the whole group's). */
static int64_t group_balance(struct fix *x, const char *account)
{
	struct store_chat c = { 0 };
	int64_t v = -1;

	assert_int_equal(store_chat_get(x->s, "telegram", GROUP, "en", &c), GB_OK);
	assert_int_equal(store_coins_balance(x->s, c.id, account, &v, NULL), GB_OK);
	store_chat_release(&c);
	return v;
}

/* Wait (bounded) until the fake answered count sendMessage calls with status. */
static void wait_sends_answered(struct fix *x, int status, int count)
{
	int64_t until = mono_ms() + 20000;

	while (fake_tg_count_status(x->f, "sendMessage", status) < count) {
		if (mono_ms() > until) {
			fake_tg_dump(x->f);
			show_log(x);
			fail_msg("fewer than %d sendMessage answered %d", count, status);
		}
		usleep(5000);
	}
}

/* Calls naming the group (any topic) from the i-th recorded call on. */
static int group_calls_from(struct fix *x, int from)
{
	char method[64];
	int n = 0;

	for (int i = from;; i++) {
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);

		if (!b)
			break;
		n += json_integer_value(json_object_get(b, "chat_id")) == GROUP_ID;
		json_decref(b);
	}
	return n;
}

/*
 * Tables in topics 30 and 31 and in General, staked; then a reply in 31
 * and one in General wait out a 429 (a minute) so that each place has a
 * row pending when the bot is removed.
 */
static void three_staked_tables(struct fix *x, int64_t tables[3])
{
	static const int threads[3] = { 30, 31, 0 };

	fake_tg_topic(x->f, GROUP, 0, FAKE_TG_TOPIC_OPEN);
	for (int i = 0; i < 3; i++)
		tables[i] = staked_table(x, threads[i]);
	wait_outbox_empty(x);
	assert_int_equal(group_balance(x, "user:11"), 970);
	assert_int_equal(group_balance(x, "user:12"), 970);
	fake_tg_fault(x->f, "sendMessage", 0, 2, FAKE_TG_429, 60);
	say(x, 31, "12", "/help");
	say(x, 0, "12", "/help");
	wait_sends_answered(x, 429, 2);
}

/*
 * Every table of the group over, every stake back, the ledger sound,
 * nothing pending for the group or its topics, and no call to the group
 * from the from-th recorded call on.
 */
static void assert_group_gone(struct fix *x, const int64_t tables[3], int from)
{
	char *argv[] = { "audit", "--db", x->db, NULL };
	int64_t until = mono_ms() + 20000;
	int pending = 1, aside = 0;
	struct store_table t;

	for (int i = 0; i < 3; i++) {
		for (;;) {
			assert_int_equal(store_table_get(x->s, tables[i], &t), GB_OK);
			if (t.status == STORE_OVER || mono_ms() > until)
				break;
			store_table_release(&t);
			usleep(5000);
		}
		if (t.status != STORE_OVER)
			show_log(x);
		assert_int_equal(t.status, STORE_OVER);
		store_table_release(&t);
	}
	while (pending && mono_ms() < until) {
		assert_int_equal(store_out_count(x->s, "telegram", &pending, &aside, NULL), GB_OK);
		if (pending)
			usleep(5000);
	}
	assert_int_equal(pending, 0);
	assert_true(aside >= 2);
	for (int i = 0; i < 3; i++) {
		char pot[32];

		snprintf(pot, sizeof(pot), "pot:%lld", (long long)tables[i]);
		assert_int_equal(group_balance(x, pot), 0);
	}
	assert_int_equal(group_balance(x, "user:11"), 1000);
	assert_int_equal(group_balance(x, "user:12"), 1000);
	assert_int_equal(audit_main(3, argv, "", stdout, stderr), 0);
	assert_true(fake_tg_quiet(x->f, 10000));
	assert_int_equal(group_calls_from(x, from), 0);
	assert_int_equal(log_lines(x, "cannot be reached any more"), 1);
	assert_int_equal(log_lines(x, "or in its 2 topics"), 1);
}

static void kicked_from_forum_stops_every_topic(void **state)
{
	struct fix *x = *state;
	int64_t tables[3];
	int from;

	three_staked_tables(x, tables);
	from = fake_tg_count(x->f, NULL);
	assert_int_equal(hook(x, "{\"update_id\":799001,\"my_chat_member\":{\"chat\":" FORUM_CHAT ","
			      "\"from\":{\"id\":11,\"is_bot\":false,\"first_name\":\"Asha\"},\"date\":1700000000,"
			      "\"old_chat_member\":{\"user\":{\"id\":4242,\"is_bot\":true,\"first_name\":\"gamebot\","
			      "\"username\":\"gb_forum_bot\"},\"status\":\"member\"},\"new_chat_member\":{\"user\":"
			      "{\"id\":4242,\"is_bot\":true,\"first_name\":\"gamebot\",\"username\":\"gb_forum_bot\"},"
			      "\"status\":\"kicked\",\"until_date\":0}}}"),
			 200);
	assert_group_gone(x, tables, from);
}

/* The bot learns it was removed from a 403 in one topic (its update lost): the whole group stops. */
static void kicked_403_in_a_topic_stops_every_topic(void **state)
{
	struct fix *x = *state;
	int64_t tables[3];
	int from;

	three_staked_tables(x, tables);
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_KICKED, 0);
	say(x, 30, "12", "/help");
	wait_sends_answered(x, 403, 1);
	from = fake_tg_count(x->f, NULL);
	assert_group_gone(x, tables, from);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(places_of_updates),
		cmocka_unit_test(calls_go_to_the_topic),
	};
	const struct CMUnitTest served[] = {
		cmocka_unit_test_setup_teardown(two_topics_two_games, setup, teardown),
		cmocka_unit_test_setup_teardown(closed_and_deleted_topics_are_given_up, setup, teardown),
		cmocka_unit_test_setup_teardown(kicked_from_forum_stops_every_topic, setup, teardown),
		cmocka_unit_test_setup_teardown(kicked_403_in_a_topic_stops_every_topic, setup, teardown),
	};
	int failed = cmocka_run_group_tests_name("forum topics (pure)", pure, NULL, NULL);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	failed += cmocka_run_group_tests_name("forum topics (served)", served, NULL, NULL);
	curl_global_cleanup();
	return failed ? 1 : 0;
}
