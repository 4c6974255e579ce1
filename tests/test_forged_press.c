/*
 * test_forged_press.c - button data is the presser's to write: a press acts
 * only where its table is.
 *
 * The real `gamebot serve` runs with the Telegram and Discord adapters
 * against the fake platform servers (tests/fake_telegram.c,
 * tests/fake_discord.c) on 127.0.0.1; updates and interactions are POSTed
 * to its webhooks as the platforms send them, with button data copied
 * from what the bot itself sent, then pressed where it was never shown.
 *
 * Covered:
 *   - every button of a table in a topic of a forum group (each game's
 *     lobby and play buttons, a Call Break hand's cards) pressed from a
 *     stranger's private chat, another group, another topic and the
 *     General topic of the same group, a message sent in inline mode, an
 *     inline result picked, a Discord channel and a Discord direct
 *     message: the table's row, seats and moves are as they were, no
 *     table is opened anywhere, and every press with a handle to answer
 *     gets a short answer (answerCallbackQuery with text, an ephemeral
 *     Discord message);
 *   - a Discord table's buttons pressed in another channel, in direct
 *     messages and on Telegram: the same;
 *   - a seated player's hand pressed from their private chat, on an
 *     inline-mode message and picked as an inline result is played at
 *     the table; another seated player's card of someone else's turn
 *     changes nothing;
 *   - an online table (through the bot in-process, on a virtual clock):
 *     its buttons pressed from a stranger's private chat, a group or
 *     another chat of a seated person are refused, the seats' own from
 *     their private chats play.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/bot.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TG_TOKEN "6262:forged-token"
#define TG_SECRET "forged-secret"
#define DC_APP "1000"
#define DC_TOKEN "forged-bot-token"

#define GROUP "-1009001"           /* a forum group; its tables are in topic TOPIC */
#define TOPIC 7
#define OTHER_TOPIC 8
#define OTHER_GROUP "-1009002"
#define STRANGER "3003"            /* seated nowhere; his private chat has his id */
#define DC_CHANNEL "4001"
#define DC_DM "4002"
#define DC_OTHER_CHANNEL "4003"
#define REFUSED "belongs to a table elsewhere"

#define MAX_DATA 64

struct fix {
	char dir[64], db[128], log[128];
	char url_tg[96], url_dc[96], url_health[96];
	struct fake_tg *tg;
	struct fake_dc *dc;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	pid_t pid;
	long long next_update;
	unsigned seq;
};

static int teardown(void **state);

static int setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	char listen[64], hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char e_db[160], e_listen[96], e_api_tg[160], e_api_dc[160], e_pk[160];
	const char *env[] = {
		"GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "TELEGRAM_TOKEN=" TG_TOKEN,
		"TELEGRAM_SECRET=" TG_SECRET, e_api_tg, "TELEGRAM_MODE=webhook",
		"GAMEBOT_TELEGRAM_PACING=off", "DISCORD_APP_ID=" DC_APP, e_pk, "DISCORD_TOKEN=" DC_TOKEN,
		e_api_dc,
		/* every press is answered here: no rate limit stands in for the rule under test */
		"GAMEBOT_RATE_USER_PER_MIN=0", "GAMEBOT_RATE_CHAT_PER_MIN=0", NULL
	};
	struct store *s = NULL;
	int port;

	if (!x || sodium_init() < 0)
		return -1;
	*state = x;
	if (fixture_dir(x->dir, sizeof(x->dir), "forged"))
		return -1;
	snprintf(x->db, sizeof(x->db), "%s/f.db", x->dir);
	snprintf(x->log, sizeof(x->log), "%s/serve.log", x->dir);
	if (store_open(&s, x->db))
		return -1;
	store_free(s);
	crypto_sign_keypair(x->pk, x->sk);
	sodium_bin2hex(hex, sizeof(hex), x->pk, sizeof(x->pk));
	if (fake_tg_start(&x->tg, TG_TOKEN, "gamebot_forged_bot") || fake_dc_start(&x->dc, DC_TOKEN))
		return -1;
	port = free_port();
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(x->url_tg, sizeof(x->url_tg), "http://127.0.0.1:%d/telegram", port);
	snprintf(x->url_dc, sizeof(x->url_dc), "http://127.0.0.1:%d/discord", port);
	snprintf(x->url_health, sizeof(x->url_health), "http://127.0.0.1:%d/healthz", port);
	x->next_update = 700000;
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", x->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=%s", listen);
	snprintf(e_api_tg, sizeof(e_api_tg), "TELEGRAM_API_URL=%s", fake_tg_url(x->tg));
	snprintf(e_api_dc, sizeof(e_api_dc), "DISCORD_API_URL=%s", fake_dc_url(x->dc));
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	x->pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, x->log, false);
	if (x->pid < 0 || !wait_serving(x->pid, x->url_health, 20000)) {
		fprintf(stderr, "gamebot serve did not answer %s (see %s)\n", x->url_health, x->log);
		teardown(state);
		*state = NULL;
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	struct fix *x = *state;
	int rc;
	int status = 0;

	if (!x)
		return 0;
	if (x->pid > 0) {
		kill(x->pid, SIGTERM);
		waitpid(x->pid, &status, 0);
	}
	fake_tg_free(x->tg);
	fake_dc_free(x->dc);
	rc = fixture_rm(x->dir);
	free(x);
	return rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- requests as the platforms send them ---- */

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	if (arg)
		sb_addn(arg, p, size * n);
	return size * n;
}

static long post(const char *url, struct curl_slist *h, const char *body, struct strbuf *answer)
{
	CURL *c = curl_easy_init();
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

/* POST an update (consumed; its update_id set here) to /telegram; asserts 200. */
static void tg_send(struct fix *x, json_t *u)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char *body;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " TG_SECRET);
	json_object_set_new(u, "update_id", json_integer(x->next_update++));
	body = json_dumps(u, JSON_COMPACT);
	json_decref(u);
	assert_non_null(body);
	assert_int_equal(post(x->url_tg, h, body, NULL), 200);
	curl_slist_free_all(h);
	free(body);
}

static json_t *tg_user(const char *user)
{
	return json_pack("{sIsbss}", "id", (json_int_t)strtoll(user, NULL, 10), "is_bot", 0, "first_name", user);
}

/*
 * Where a Telegram message is: a chat (a negative id is a group; GROUP is a
 * forum) and its topic (0: none, the General topic of a forum).
 */
struct where {
	const char *chat;
	int thread;
};

static json_t *tg_message(const struct where *w, long long message_id)
{
	long long id = strtoll(w->chat, NULL, 10);
	json_t *chat = json_pack("{sIss}", "id", (json_int_t)id, "type", id < 0 ? "supergroup" : "private");
	json_t *m;

	if (!strcmp(w->chat, GROUP))
		json_object_set_new(chat, "is_forum", json_true());
	m = json_pack("{sIsIso}", "message_id", (json_int_t)message_id, "date", (json_int_t)time(NULL), "chat",
		      chat);
	if (w->thread) {
		json_object_set_new(m, "message_thread_id", json_integer(w->thread));
		json_object_set_new(m, "is_topic_message", json_true());
	}
	return m;
}

/* user types text at w. */
static void tg_text(struct fix *x, const struct where *w, const char *user, const char *text)
{
	json_t *m = tg_message(w, x->next_update);

	json_object_set_new(m, "from", tg_user(user));
	json_object_set_new(m, "text", json_string(text));
	tg_send(x, json_pack("{so}", "message", m));
}

/* The table's topic. */
static const struct where AT_TABLE = { GROUP, TOPIC };

/*
 * user presses a button holding data on a message at w (NULL: a message
 * sent in inline mode, in no chat); its callback query id into cq.
 */
static void tg_press(struct fix *x, const struct where *w, const char *user, const char *data, char *cq,
		     size_t n)
{
	json_t *q;

	snprintf(cq, n, "cq%lld", x->next_update);
	q = json_pack("{sssossss}", "id", cq, "from", tg_user(user), "chat_instance", "1", "data", data);
	if (w)
		json_object_set_new(q, "message", tg_message(w, 100));
	else
		json_object_set_new(q, "inline_message_id", json_string("AAAAforged"));
	fake_tg_query(x->tg, cq);
	tg_send(x, json_pack("{so}", "callback_query", q));
}

/* user picks an inline result whose id is data. */
static void tg_chosen(struct fix *x, const char *user, const char *data)
{
	tg_send(x, json_pack("{s{sssoss}}", "chosen_inline_result", "result_id", data, "from", tg_user(user),
			     "query", ""));
}

/* The text of the answer to callback query cq, waited for (10 s at most); NULL when none. */
static char *tg_answer(struct fix *x, const char *cq)
{
	struct timespec pause = { 0, 20000000L };

	for (int tries = 0; tries < 500; tries++) {
		int n = fake_tg_count(x->tg, "answerCallbackQuery");

		/* newest first: the answer sought is nearly always the last one */
		for (int i = n - 1; i >= 0; i--) {
			json_t *b = fake_tg_nth(x->tg, "answerCallbackQuery", i);
			const char *id = json_string_value(json_object_get(b, "callback_query_id"));
			const char *text = json_string_value(json_object_get(b, "text"));
			char *out = id && !strcmp(id, cq) ? strdup(text ? text : "") : NULL;

			json_decref(b);
			if (out)
				return out;
		}
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* A press at w (or in no chat) of data by user is answered with the refusal. */
static void tg_press_refused(struct fix *x, const struct where *w, const char *user, const char *data)
{
	char cq[32], *text;

	tg_press(x, w, user, data, cq, sizeof(cq));
	text = tg_answer(x, cq);
	if (!text || !strstr(text, REFUSED))
		fail_msg("press of '%s' by %s at %s#%d: answered '%s', not refused", data, user,
			 w ? w->chat : "(inline)", w ? w->thread : 0, text ? text : "(nothing)");
	free(text);
}

/* A press at w (or in no chat) of data by user is answered with some text. */
static void tg_press_answered(struct fix *x, const struct where *w, const char *user, const char *data)
{
	char cq[32], *text;

	tg_press(x, w, user, data, cq, sizeof(cq));
	text = tg_answer(x, cq);
	if (!text || !text[0])
		fail_msg("press of '%s' by %s at %s: not answered", data, user, w ? w->chat : "(inline)");
	free(text);
}

/* POST an interaction (consumed) to /discord, signed; its answer into *answer. */
static void dc_send(struct fix *x, json_t *ia, struct strbuf *answer)
{
	char *body = json_dumps(ia, JSON_COMPACT), ts[32], hdr[200], sig[2 * crypto_sign_BYTES + 1];
	unsigned char bin[crypto_sign_BYTES];
	struct strbuf msg = { 0 };
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");

	json_decref(ia);
	assert_non_null(body);
	snprintf(ts, sizeof(ts), "%lld", (long long)time(NULL));
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(bin, NULL, (const unsigned char *)sb_str(&msg), msg.len, x->sk);
	sodium_bin2hex(sig, sizeof(sig), bin, sizeof(bin));
	snprintf(hdr, sizeof(hdr), "X-Signature-Ed25519: %s", sig);
	h = curl_slist_append(h, hdr);
	snprintf(hdr, sizeof(hdr), "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, hdr);
	assert_int_equal(post(x->url_dc, h, body, answer), 200);
	curl_slist_free_all(h);
	sb_release(&msg);
	free(body);
}

/*
 * A Discord interaction of type (2 a slash command, 3 a button) with data,
 * by user in channel: of a server (guild) when guild, else a direct
 * message. Its answer, parsed (caller json_decref()s).
 */
static json_t *dc_interact(struct fix *x, const char *channel, bool guild, const char *user, int type,
			   json_t *data)
{
	char id[32], tok[48];
	struct strbuf answer = { 0 };
	json_t *ia = json_object(), *a;
	uint64_t ms = (uint64_t)time(NULL) * 1000 - 1420070400000ULL;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)((ms << 22) | (++x->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%s", id);
	json_object_set_new(ia, "type", json_integer(type));
	json_object_set_new(ia, "id", json_string(id));
	json_object_set_new(ia, "application_id", json_string(DC_APP));
	json_object_set_new(ia, "token", json_string(tok));
	json_object_set_new(ia, "channel_id", json_string(channel));
	json_object_set_new(ia, "data", data);
	if (type == 3)
		json_object_set_new(ia, "message", json_pack("{sssiss}", "id", "700", "flags", 0, "content", ""));
	if (guild) {
		json_object_set_new(ia, "guild_id", json_string("5000"));
		json_object_set_new(ia, "member", json_pack("{s{ssss}ss}", "user", "id", user, "username", user,
							    "permissions", "0"));
	} else {
		json_object_set_new(ia, "user", json_pack("{ssss}", "id", user, "username", user));
	}
	dc_send(x, ia, &answer);
	a = json_loads(sb_str(&answer), 0, NULL);
	sb_release(&answer);
	assert_non_null(a);
	return a;
}

/* user types /verb (with option opt = value when opt) in the server's channel; the answer (caller frees). */
static json_t *dc_slash(struct fix *x, const char *channel, const char *user, const char *verb, const char *opt,
			const char *value)
{
	json_t *options = json_array();

	if (opt)
		json_array_append_new(options, json_pack("{sssiss}", "name", opt, "type", 3, "value", value));
	return dc_interact(x, channel, true, user, 2,
			   json_pack("{sssssiso}", "id", "1", "name", verb, "type", 1, "options", options));
}

/*
 * A Discord button press of custom_id by user in channel (of the server
 * when guild, else a direct message) is answered with an ephemeral message
 * holding want (NULL: any text).
 */
static void dc_press_answered(struct fix *x, const char *channel, bool guild, const char *user,
			      const char *custom_id, const char *want)
{
	json_t *a = dc_interact(x, channel, guild, user, 3,
				json_pack("{sssi}", "custom_id", custom_id, "component_type", 2));
	json_t *data = json_object_get(a, "data");
	const char *content = json_string_value(json_object_get(data, "content"));

	if (json_integer_value(json_object_get(a, "type")) != 4 ||
	    !(json_integer_value(json_object_get(data, "flags")) & 64) || !content || !content[0] ||
	    (want && !strstr(content, want))) {
		char *text = json_dumps(a, JSON_COMPACT);

		fail_msg("Discord press of '%s' in %s by %s: answered %s", custom_id, channel, user, text);
	}
	json_decref(a);
}

static void dc_press_refused(struct fix *x, const char *channel, bool guild, const char *user,
			     const char *custom_id)
{
	dc_press_answered(x, channel, guild, user, custom_id, REFUSED);
}

/* ---- the store, read only ---- */

/* Everything the store holds of table that a press could change, as text into sb. */
static void table_print(const char *db, int64_t table, struct strbuf *sb)
{
	static const char *const sql[] = {
		"SELECT status, version, game, state, chat_id, creator, rules, turn_started_ms FROM tables WHERE id = ?1",
		"SELECT seat, level, user_id, name FROM seats WHERE table_id = ?1 ORDER BY seat",
		"SELECT seq, actor, action FROM moves WHERE table_id = ?1 ORDER BY seq",
		"SELECT count(*) FROM tables WHERE ?1 > 0",
	};
	sqlite3 *h;

	sb_release(sb);
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	for (size_t k = 0; k < sizeof(sql) / sizeof(sql[0]); k++) {
		sqlite3_stmt *q;

		assert_int_equal(sqlite3_prepare_v2(h, sql[k], -1, &q, NULL), SQLITE_OK);
		sqlite3_bind_int64(q, 1, table);
		while (sqlite3_step(q) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(q); c++)
				sb_addf(sb, "%s|", sqlite3_column_text(q, c) ? (const char *)sqlite3_column_text(q, c)
									       : "NULL");
			sb_add(sb, "\n");
		}
		sqlite3_finalize(q);
	}
	sqlite3_close(h);
}

/* One number the store answers for table (the SQL's one ?1). */
static long long table_num(const char *db, const char *sql, int64_t table)
{
	sqlite3 *h;
	sqlite3_stmt *q;
	long long v = -1;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, table);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(h);
	return v;
}

/* The open table of the table's topic (discord: of DC_CHANNEL), or -1. */
static int64_t open_table_of(struct fix *x, bool discord)
{
	return table_num(x->db, discord ? "SELECT t.id FROM tables t JOIN chats c ON c.id = t.chat_id WHERE"
					  " c.platform = 'discord' AND c.chat = '" DC_CHANNEL "' AND t.status < 2"
					  " AND ?1 = 0 ORDER BY t.id DESC"
					: "SELECT t.id FROM tables t JOIN chats c ON c.id = t.chat_id WHERE"
					  " c.platform = 'telegram' AND c.chat = '" GROUP "#7' AND t.status < 2"
					  " AND ?1 = 0 ORDER BY t.id DESC",
			 0);
}

static int64_t open_table(struct fix *x)
{
	return open_table_of(x, false);
}

static int moves(struct fix *x, int64_t table)
{
	return (int)table_num(x->db, "SELECT count(*) FROM moves WHERE table_id = ?1", table);
}

/* The user id at the seat to move (read from the state's "turn" through the game's own rules). */
static void to_move(struct fix *x, int64_t table, char *user, size_t n);

/* ---- the buttons the bot sent ---- */

struct buttons {
	char data[MAX_DATA][72];
	int n;
};

/*
 * The callback data of every button on the newest message with buttons
 * the fake received for chat (as sent, or edited), waited for until it
 * holds one whose command starts with verb (10 s at most).
 */
static void newest_buttons(struct fix *x, const char *chat, const char *verb, struct buttons *out)
{
	struct timespec pause = { 0, 20000000L };

	for (int tries = 0; tries < 500; tries++) {
		int n = fake_tg_count(x->tg, NULL);
		bool found = false;

		out->n = 0;
		for (int i = n - 1; i >= 0 && !out->n; i--) {
			char method[40];
			json_t *b = fake_tg_call(x->tg, i, method, sizeof(method), NULL), *rows, *row, *btn;
			char *cid = b ? json_dumps(json_object_get(b, "chat_id"), JSON_ENCODE_ANY) : NULL;
			size_t r, k;

			rows = json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard");
			if (cid && !strcmp(cid, chat) && json_array_size(rows) &&
			    (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")))
				json_array_foreach(rows, r, row) json_array_foreach(row, k, btn) {
					const char *d = json_string_value(json_object_get(btn, "callback_data"));
					const char *cmd = d ? strchr(strchr(d, ':') + 1, ':') + 1 : NULL;

					if (!d || out->n >= MAX_DATA)
						continue;
					snprintf(out->data[out->n++], sizeof(out->data[0]), "%s", d);
					found |= !strncmp(cmd, verb, strlen(verb));
				}
			free(cid);
			json_decref(b);
		}
		if (found)
			return;
		nanosleep(&pause, NULL);
	}
	fail_msg("no message with a '%s' button came to chat %s", verb, chat);
}

/* ---- pressing a table's buttons from everywhere else ---- */

/*
 * Every button in bs, pressed everywhere but at its table: in the
 * stranger's private chat and on an inline-mode message by the stranger,
 * and in the other places by presser, a seated player not to move.
 * Nothing of the table changes, no table is opened anywhere, and each
 * press is answered with the refusal - except presser's own from their
 * private chat or an inline-mode message, which are answered (a move of
 * their seat is taken to the table, and refused there: not their turn).
 */
static void press_everywhere_else(struct fix *x, int64_t table, const struct buttons *bs, const char *presser)
{
	static const struct where elsewhere[] = {
		{ STRANGER, 0 },          /* a private chat */
		{ OTHER_GROUP, 0 },       /* another group */
		{ GROUP, OTHER_TOPIC },   /* another topic of the same forum */
		{ GROUP, 0 },             /* the forum's General topic */
	};
	struct strbuf before = { 0 }, after = { 0 };
	long long tables = table_num(x->db, "SELECT count(*) FROM tables WHERE ?1 = 0", 0);

	table_print(x->db, table, &before);
	for (int i = 0; i < bs->n; i++) {
		const char *d = bs->data[i];

		for (size_t k = 0; k < sizeof(elsewhere) / sizeof(elsewhere[0]); k++) {
			/* a private chat is only ever its own person's */
			const char *who = elsewhere[k].chat[0] == '-' ? presser : STRANGER;

			tg_press_refused(x, &elsewhere[k], who, d);
		}
		tg_press_refused(x, NULL, STRANGER, d);
		tg_chosen(x, STRANGER, d);
		tg_press_answered(x, &(struct where){ presser, 0 }, presser, d);
		tg_press_answered(x, NULL, presser, d);
		tg_chosen(x, presser, d);
		dc_press_refused(x, DC_CHANNEL, true, presser, d);
		dc_press_refused(x, DC_DM, false, presser, d);
	}
	table_print(x->db, table, &after);
	assert_string_equal(sb_str(&before), sb_str(&after));
	assert_int_equal(table_num(x->db, "SELECT count(*) FROM tables WHERE ?1 = 0", 0), tables);
	sb_release(&before);
	sb_release(&after);
}

/* The custom ids of the buttons of a Discord answer's message. */
static void dc_buttons(const json_t *answer, struct buttons *out)
{
	json_t *rows = json_object_get(json_object_get(answer, "data"), "components"), *row, *c;
	size_t r, k;

	out->n = 0;
	json_array_foreach(rows, r, row) json_array_foreach(json_object_get(row, "components"), k, c) {
		const char *id = json_string_value(json_object_get(c, "custom_id"));
		const char *colon = id ? strchr(id, ':') : NULL;

		/* a menu's id names no command (its choice does): not a button */
		colon = colon ? strchr(colon + 1, ':') : NULL;
		if (colon && colon[1] && out->n < MAX_DATA)
			snprintf(out->data[out->n++], sizeof(out->data[0]), "%s", id);
	}
}

/*
 * Every button of a Discord table in bs, pressed everywhere but its
 * channel: another channel of the server and Telegram by presser (seated,
 * not to move), a direct message by the stranger (refused) and by presser
 * (answered: a move of their seat is taken there, and refused as not their
 * turn). Nothing of the table changes and no table is opened.
 */
static void dc_press_everywhere_else(struct fix *x, int64_t table, const struct buttons *bs, const char *presser)
{
	struct strbuf before = { 0 }, after = { 0 };
	long long tables = table_num(x->db, "SELECT count(*) FROM tables WHERE ?1 = 0", 0);

	table_print(x->db, table, &before);
	for (int i = 0; i < bs->n; i++) {
		const char *d = bs->data[i];

		dc_press_refused(x, DC_OTHER_CHANNEL, true, presser, d);
		dc_press_refused(x, DC_DM, false, STRANGER, d);
		dc_press_answered(x, DC_DM, false, presser, d, NULL);
		tg_press_refused(x, &(struct where){ STRANGER, 0 }, STRANGER, d);
		tg_press_refused(x, &(struct where){ OTHER_GROUP, 0 }, presser, d);
		tg_press_refused(x, &AT_TABLE, presser, d);
		tg_press_refused(x, NULL, STRANGER, d);
		tg_chosen(x, STRANGER, d);
	}
	table_print(x->db, table, &after);
	assert_string_equal(sb_str(&before), sb_str(&after));
	assert_int_equal(table_num(x->db, "SELECT count(*) FROM tables WHERE ?1 = 0", 0), tables);
	sb_release(&before);
	sb_release(&after);
}

/* ---- the tests ---- */

/*
 * Each game's lobby and first play buttons, pressed everywhere but the
 * table's own topic: refused, nothing changes.
 */
static void every_game_refused_elsewhere(void **state)
{
	static const char *const games[] = { "snakes", "ludo", "baghchal", "callbreak" };
	static const char *const first_verb[] = { "roll", "roll", "place", "bid" };
	static const char *const people[] = { "1001", "1002", "1003", "1004" };
	struct fix *x = *state;

	for (size_t g = 0; g < sizeof(games) / sizeof(games[0]); g++) {
		struct buttons bs;
		char line[32], mover[16];
		int64_t table;
		int seats = strcmp(games[g], "callbreak") ? 2 : 4;

		snprintf(line, sizeof(line), "/new %s", games[g]);
		tg_text(x, &AT_TABLE, people[0], line);
		table = open_table(x);
		assert_true(table > 0);
		newest_buttons(x, GROUP, "join", &bs);
		press_everywhere_else(x, table, &bs, people[0]);
		for (int s = 1; s < seats; s++)
			tg_text(x, &AT_TABLE, people[s], "/join");
		tg_text(x, &AT_TABLE, people[0], "/start");
		assert_int_equal(table_num(x->db, "SELECT status FROM tables WHERE id = ?1", table), 1);
		newest_buttons(x, GROUP, first_verb[g], &bs);
		to_move(x, table, mover, sizeof(mover));
		press_everywhere_else(x, table, &bs, strcmp(mover, people[0]) ? people[0] : people[1]);
		tg_text(x, &AT_TABLE, people[0], "/stop");
	}
}

/* The seat of table whose turn it is, from the store's state (Call Break's "turn"). */
static void to_move(struct fix *x, int64_t table, char *user, size_t n)
{
	sqlite3 *h;
	sqlite3_stmt *q;
	json_t *w = NULL;
	int turn;

	assert_int_equal(sqlite3_open_v2(x->db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT state FROM tables WHERE id = ?", -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, table);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		w = json_loads((const char *)sqlite3_column_text(q, 0), 0, NULL);
	sqlite3_finalize(q);
	turn = (int)json_integer_value(json_object_get(json_object_get(w, "game"), "turn"));
	json_decref(w);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT user_id FROM seats WHERE table_id = ? AND seat = ?", -1, &q,
					    NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(q, 1, table);
	sqlite3_bind_int(q, 2, turn);
	user[0] = '\0';
	if (sqlite3_step(q) == SQLITE_ROW)
		snprintf(user, n, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	sqlite3_close(h);
	assert_true(user[0] != '\0');
}

/*
 * A Call Break hand: its cards pressed by anyone else, anywhere, change
 * nothing; pressed by their owner from the private chat, on an
 * inline-mode message, or picked as an inline result, they are played.
 */
static void callbreak_hand(void **state)
{
	static const char *const people[] = { "1001", "1002", "1003", "1004" };
	struct fix *x = *state;
	struct buttons hand;
	char mover[16], cq[32], *text;
	const char *other;
	int64_t table;
	int m;

	tg_text(x, &AT_TABLE, people[0], "/new callbreak");
	for (int s = 1; s < 4; s++)
		tg_text(x, &AT_TABLE, people[s], "/join");
	tg_text(x, &AT_TABLE, people[0], "/start");
	table = open_table(x);
	assert_true(table > 0);
	for (int b = 0; b < 4; b++) {
		to_move(x, table, mover, sizeof(mover));
		tg_text(x, &AT_TABLE, mover, "/bid 2");
	}
	assert_int_equal(moves(x, table), 4);

	/* the player to lead asks for their hand: its cards come to their private chat */
	to_move(x, table, mover, sizeof(mover));
	tg_text(x, &AT_TABLE, mover, "/hand");
	newest_buttons(x, mover, "play", &hand);
	assert_true(hand.n > 0);
	other = strcmp(mover, people[0]) ? people[0] : people[1];

	/* everyone else, everywhere: the stranger, another seat, other places, Discord */
	press_everywhere_else(x, table, &hand, other);
	/* the owner's card from their private chat is played */
	{
		struct where own = { mover, 0 };

		m = moves(x, table);
		tg_press(x, &own, mover, hand.data[0], cq, sizeof(cq));
		text = tg_answer(x, cq);
		assert_non_null(text);
		free(text);
		assert_int_equal(moves(x, table), m + 1);
	}
	/* the next player's card on an inline-mode message is played */
	to_move(x, table, mover, sizeof(mover));
	tg_text(x, &AT_TABLE, mover, "/hand");
	newest_buttons(x, mover, "play", &hand);
	{
		char turn_prefix[32];

		snprintf(turn_prefix, sizeof(turn_prefix), "%lld:%d:", (long long)table, m + 1);
		assert_int_equal(strncmp(hand.data[0], turn_prefix, strlen(turn_prefix)), 0);
	}
	tg_press(x, NULL, mover, hand.data[0], cq, sizeof(cq));
	text = tg_answer(x, cq);
	assert_non_null(text);
	free(text);
	assert_int_equal(moves(x, table), m + 2);
	/* and the next one's picked as an inline result */
	to_move(x, table, mover, sizeof(mover));
	tg_text(x, &AT_TABLE, mover, "/hand");
	newest_buttons(x, mover, "play", &hand);
	tg_chosen(x, mover, hand.data[0]);
	assert_int_equal(moves(x, table), m + 3);
}

/*
 * The report as it came: a stranger presses the lobby's Join from his
 * private chat, another group and another topic; he gets no seat.
 */
static void join_from_private_chat_takes_no_seat(void **state)
{
	struct fix *x = *state;
	struct buttons bs;
	int64_t table;

	tg_text(x, &AT_TABLE, "1001", "/new snakes");
	table = open_table(x);
	newest_buttons(x, GROUP, "join", &bs);
	for (int i = 0; i < bs.n; i++) {
		static const struct where from[] = { { STRANGER, 0 }, { OTHER_GROUP, 0 }, { GROUP, OTHER_TOPIC } };

		if (!strstr(bs.data[i], ":join"))
			continue;
		for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++) {
			char cq[32], *text;

			tg_press(x, &from[k], STRANGER, bs.data[i], cq, sizeof(cq));
			text = tg_answer(x, cq);
			if (table_num(x->db, "SELECT count(*) FROM seats WHERE table_id = ?1 AND user_id = '" STRANGER "'",
				      table))
				fail_msg("Join pressed at %s#%d seated the stranger", from[k].chat, from[k].thread);
			if (!text || !strstr(text, REFUSED))
				fail_msg("Join pressed at %s#%d: answered '%s'", from[k].chat, from[k].thread,
					 text ? text : "(nothing)");
			free(text);
		}
	}
	/* in the table's own topic the same button seats him */
	for (int i = 0; i < bs.n; i++) {
		char cq[32], *text;

		if (!strstr(bs.data[i], ":join"))
			continue;
		tg_press(x, &AT_TABLE, STRANGER, bs.data[i], cq, sizeof(cq));
		text = tg_answer(x, cq);
		assert_non_null(text);
		free(text);
		break;
	}
	assert_int_equal(table_num(x->db, "SELECT count(*) FROM seats WHERE table_id = ?1 AND user_id = '" STRANGER "'",
				   table),
			 1);
}

/*
 * A Discord table's lobby and play buttons, pressed in another channel,
 * in direct messages and on Telegram: refused, nothing changes; in its
 * own channel the player to move rolls.
 */
static void discord_table_refused_elsewhere(void **state)
{
	struct fix *x = *state;
	struct buttons bs;
	char mover[16];
	json_t *a;
	int64_t table;
	int m;

	a = dc_slash(x, DC_CHANNEL, "51", "new", "game", "snakes");
	dc_buttons(a, &bs);
	json_decref(a);
	table = open_table_of(x, true);
	assert_true(table > 0);
	assert_true(bs.n > 0);
	dc_press_everywhere_else(x, table, &bs, "51");
	json_decref(dc_slash(x, DC_CHANNEL, "52", "join", NULL, NULL));
	a = dc_slash(x, DC_CHANNEL, "51", "start", NULL, NULL);
	dc_buttons(a, &bs);
	json_decref(a);
	assert_int_equal(table_num(x->db, "SELECT status FROM tables WHERE id = ?1", table), 1);
	assert_true(bs.n > 0);
	to_move(x, table, mover, sizeof(mover));
	dc_press_everywhere_else(x, table, &bs, strcmp(mover, "51") ? "51" : "52");
	/* in its own channel, the player to move rolls */
	m = moves(x, table);
	for (int i = 0; i < bs.n; i++)
		if (strstr(bs.data[i], ":roll"))
			json_decref(dc_interact(x, DC_CHANNEL, true, mover, 3,
						json_pack("{sssi}", "custom_id", bs.data[i], "component_type", 2)));
	assert_int_equal(moves(x, table), m + 1);
}

/* ---- an online table, through the bot in-process ---- */

struct online_fix {
	char dir[64], db[128];
	struct bot b;
	int64_t now;
	int64_t update;
};

static int online_setup(void **state)
{
	struct online_fix *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "forged-online", 11))
		return -1;
	f->now = 1700000000000;
	*state = f;
	return 0;
}

static int online_teardown(void **state)
{
	struct online_fix *f = *state;
	int rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);

	free(f);
	return rc;
}

/*
 * user of Telegram sends text in chat (a private chat unless its id is
 * negative), pressing table's button of turn (table 0: typed).
 */
static void online_send(struct online_fix *f, const char *user, const char *chat, const char *text, int64_t table,
			int turn)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "telegram");
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "P%s", user);
	snprintf(cmd.update_id, sizeof(cmd.update_id), "%lld", (long long)++f->update);
	cmd.private_chat = chat[0] != '-';
	cmd.button_table = table;
	cmd.button_turn = turn;
	if (table)
		snprintf(cmd.reply, sizeof(cmd.reply), "cq%lld", (long long)f->update);
	cmd.now_ms = f->now += 500;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
}

/* How many rows queued for chat hold text (and are taken out of the outbox). */
static int online_rows(struct online_fix *f, const char *chat, const char *text)
{
	struct store_out rows[64];
	int n = 0, found = 0;

	assert_int_equal(store_out_chat(f->b.store, "telegram", chat, rows, 64, &n), GB_OK);
	for (int i = 0; i < n; i++) {
		found += strstr(rows[i].payload, text) != NULL;
		store_out_done(f->b.store, rows[i].id);
		store_out_release(&rows[i]);
	}
	return found;
}

/*
 * An online table's buttons are its seats' own, from the private chat each
 * seat's table message is in: a stranger's private chat, a group, or a
 * seated person's other chat change nothing and are told so; the seats'
 * own presses play.
 */
static void online_table_refused_elsewhere(void **state)
{
	static const char *const verbs[] = { "/roll", "/leave", "/board", "/react gg", "/online snakes" };
	struct online_fix *f = *state;
	struct strbuf before = { 0 }, after = { 0 };
	int64_t table = 0;
	int turn = -1, m;

	online_send(f, "9001", "9001", "/online snakes 0 2p", 0, 0);
	online_send(f, "9002", "9002", "/online snakes 0 2p", 0, 0);
	for (int i = 0; i < 20 && !table; i++) {
		f->now += 1000;
		assert_true(bot_run_timers(&f->b, f->now, BOT_TIMER_ALL) >= 0);
		if (store_oseat_open(f->b.store, "telegram", "9001", &table))
			table = 0;
	}
	assert_true(table > 0);
	assert_int_equal(store_move_last(f->b.store, table, &turn), GB_OK);
	online_rows(f, STRANGER, "");
	table_print(f->db, table, &before);
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
		online_send(f, STRANGER, STRANGER, verbs[v], table, turn);
		assert_int_equal(online_rows(f, STRANGER, REFUSED), 1);
		online_send(f, "9001", OTHER_GROUP, verbs[v], table, turn);
		assert_int_equal(online_rows(f, OTHER_GROUP, REFUSED), 1);
		/* a private chat of the seat's platform that is not its table message's */
		online_send(f, "9001", "dm-elsewhere", verbs[v], table, turn);
		assert_int_equal(online_rows(f, "dm-elsewhere", REFUSED), 1);
	}
	table_print(f->db, table, &after);
	assert_string_equal(sb_str(&before), sb_str(&after));
	assert_int_equal(store_oseat_open(f->b.store, "telegram", STRANGER, &(int64_t){ 0 }), GB_ENOTFOUND);
	/* the seats' own Roll, each from their private chat: the one to move rolls */
	m = (int)table_num(f->db, "SELECT count(*) FROM moves WHERE table_id = ?1", table);
	online_send(f, "9001", "9001", "/roll", table, turn);
	online_send(f, "9002", "9002", "/roll", table, turn);
	assert_int_equal(table_num(f->db, "SELECT count(*) FROM moves WHERE table_id = ?1", table), m + 1);
	sb_release(&before);
	sb_release(&after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(join_from_private_chat_takes_no_seat, setup, teardown),
		cmocka_unit_test_setup_teardown(every_game_refused_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(callbreak_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(discord_table_refused_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(online_table_refused_elsewhere, online_setup, online_teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
