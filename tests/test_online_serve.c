/*
 * test_online_serve.c - an online Call Break table through the real
 * binary: one `gamebot serve` serving Telegram (webhook, against the fake
 * Bot API) and Discord (signed interactions, against the fake Discord
 * API). Three Telegram people and one Discord person, each in a private
 * chat with the bot, queue, are seated together and play the game to its
 * end pressing the buttons of the table message in their own chat. Every
 * message each one receives is read: their own hand only, the others
 * named only by the names they chose (never a platform id, a username or
 * a platform name); the stakes settle, the ledger adds up, ratings move.
 * The queue messages are edited in place until they say the table is ready.
 *
 * A queue message is posted once even when the platform is slow to answer
 * its post and the table opens meanwhile (Telegram and Discord, then two
 * instances on one PostgreSQL database: GAMEBOT_TEST_PG, tests/pg.sh), and
 * its "Leave the queue" pressed afterwards says the table is ready.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/pgadmin.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TG_TOKEN "555:online-test"
#define SECRET "online-secret"
#define APP "1000"
#define DC_TOKEN "online-dc-token"
#define DC_EPOCH 1420070400000LL
#define NP 4

struct person {
	bool discord;
	const char *id;           /* platform user id (Telegram: the private chat's id too) */
	const char *channel;      /* Discord: the direct message channel */
	const char *secret_name;  /* what the platform calls them: nobody else may ever see it */
	const char *name;         /* the name they chose */
	char msg[32];             /* Discord: the table message's id */
	json_t *buttons;          /* the newest table message's buttons: [[{"label", "data"}]] */
	char *text;               /* ... and its text */
	char *seen;               /* every text sent to their chat */
};

struct world {
	char dir[64], db[128], tg_url[96], dc_url[96], metrics_url[96];
	struct fake_tg *tg;
	struct fake_dc *dc;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	pid_t pid;
	CURL *c;
	long long update;
	unsigned seq;
	int tg_seen, dc_seen;
	char dc_token[48];        /* the last interaction's token */
	/* a second instance on the same PostgreSQL database, when there is one */
	pid_t pid2;
	char tg_url2[96], schema[64];
	long long dc_posts;
	struct person p[NP];
};

static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static size_t keep(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

static long post(struct world *w, const char *url, const char *body, struct curl_slist *h, struct strbuf *in)
{
	long code = 0;

	curl_easy_reset(w->c);
	curl_easy_setopt(w->c, CURLOPT_URL, url);
	curl_easy_setopt(w->c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(w->c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(w->c, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(w->c, CURLOPT_WRITEDATA, in);
	curl_easy_setopt(w->c, CURLOPT_TIMEOUT, 30L);
	if (curl_easy_perform(w->c) == CURLE_OK)
		curl_easy_getinfo(w->c, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

/* ---- what each person is sent ---- */

static void append(char **s, const char *text)
{
	struct strbuf sb = { 0 };

	if (*s)
		sb_add(&sb, *s);
	sb_add(&sb, text);
	sb_add(&sb, "\n");
	free(*s);
	*s = sb_detach(&sb);
}

/* A text person p was sent, with its buttons ([[{"label", "data"}]] or NULL). */
static void shown(struct person *p, const char *text, json_t *buttons)
{
	if (!text)
		return;
	append(&p->seen, text);
	/* the table message: the seal under it while playing, the seed at the end */
	if (!strstr(text, "Seal ") && !strstr(text, "Seed "))
		return;
	free(p->text);
	p->text = strdup(text);
	json_decref(p->buttons);
	p->buttons = json_incref(buttons);
}

/* Telegram's inline keyboard as [[{"label", "data"}]]. */
static json_t *tg_buttons(json_t *body)
{
	json_t *kb = json_object_get(json_object_get(body, "reply_markup"), "inline_keyboard"), *row, *b;
	json_t *out = json_array();
	size_t i, k;

	json_array_foreach(kb, i, row) {
		json_t *r = json_array();

		json_array_foreach(row, k, b)
			json_array_append_new(r, json_pack("{sOsO}", "label", json_object_get(b, "text"), "data",
							   json_object_get(b, "callback_data")));
		json_array_append_new(out, r);
	}
	return out;
}

/* Discord's components (and a select menu's options) as [[{"label", "data"}]]. */
static json_t *dc_buttons(json_t *data)
{
	json_t *rows = json_object_get(data, "components"), *row, *c;
	json_t *out = json_array();
	size_t i, k;

	json_array_foreach(rows, i, row) {
		json_t *r = json_array();

		json_array_foreach(json_object_get(row, "components"), k, c) {
			json_array_append_new(r, json_pack("{sOsO}", "label", json_object_get(c, "label"), "data",
							   json_object_get(c, "custom_id")));
		}
		json_array_append_new(out, r);
	}
	return out;
}

static struct person *tg_person(struct world *w, json_t *chat_id)
{
	char id[32];

	snprintf(id, sizeof(id), "%lld", (long long)json_integer_value(chat_id));
	if (json_is_string(chat_id))
		snprintf(id, sizeof(id), "%s", json_string_value(chat_id));
	for (int i = 0; i < NP; i++)
		if (!w->p[i].discord && !strcmp(w->p[i].id, id))
			return &w->p[i];
	fail_msg("a Telegram message to chat %s, nobody's private chat", id);
	return NULL;
}

/* Read what both fakes received since the last look. */
static void look(struct world *w)
{
	int n = fake_tg_count(w->tg, NULL);

	for (; w->tg_seen < n; w->tg_seen++) {
		char method[64];
		json_t *b = fake_tg_call(w->tg, w->tg_seen, method, sizeof(method), NULL);

		if (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")) {
			json_t *buttons = tg_buttons(b);

			shown(tg_person(w, json_object_get(b, "chat_id")), json_string_value(json_object_get(b, "text")),
			      buttons);
			json_decref(buttons);
		} else if (!strcmp(method, "answerCallbackQuery") && json_object_get(b, "text")) {
			if (getenv("ONLINE_DEBUG"))
				fprintf(stderr, "telegram answer: %s\n", json_string_value(json_object_get(b, "text")));
			/* an answer to a press is only the presser's: nothing of the table is in it */
			assert_null(strstr(json_string_value(json_object_get(b, "text")), "your cards"));
		}
		json_decref(b);
	}
	n = fake_dc_count(w->dc, NULL, NULL);
	for (; w->dc_seen < n; w->dc_seen++) {
		char method[16], path[256];
		int status = 0;
		json_t *b = fake_dc_call(w->dc, w->dc_seen, method, sizeof(method), path, sizeof(path), NULL, 0,
					 &status);
		struct person *p = &w->p[NP - 1];

		if (!strncmp(path, "/channels/", 10) && strncmp(path + 10, p->channel, strlen(p->channel)))
			fail_msg("a Discord message to %s, nobody's direct messages", path);
		if (status < 300 && (!strcmp(method, "POST") || !strcmp(method, "PATCH")) &&
		    json_object_get(b, "content")) {
			json_t *buttons = dc_buttons(b);

			shown(p, json_string_value(json_object_get(b, "content")), buttons);
			json_decref(buttons);
			if (!strcmp(method, "POST") && !strncmp(path, "/channels/", 10))
				/* the fake numbers the messages it is posted from 900000000000000001 */
				snprintf(p->msg, sizeof(p->msg), "%lld", 900000000000000000LL + ++w->dc_posts);
		}
		json_decref(b);
	}
}

/* ---- what they send ---- */

/* The webhook an update goes to: with two instances, each in turn. */
static const char *tg_url_for(struct world *w, long long update)
{
	return w->tg_url2[0] && update % 2 ? w->tg_url2 : w->tg_url;
}

static void tg_send(struct world *w, struct person *p, const char *text)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct strbuf in = { 0 };
	json_t *u;
	char *body;
	long long id = ++w->update;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	u = json_pack("{sIs{sIs{ssssss}s{ssss}ss}}", "update_id", id, "message", "message_id", id, "from", "id",
		      p->id, "first_name", p->secret_name, "username", p->secret_name, "chat", "id", p->id, "type",
		      "private", "text", text);
	body = json_dumps(u, JSON_COMPACT);
	assert_int_equal(post(w, tg_url_for(w, id), body, h, &in), 200);
	free(body);
	json_decref(u);
	sb_release(&in);
	curl_slist_free_all(h);
}

/* A press of the button with data on message message_id of p's chat. */
static void tg_press_on(struct world *w, struct person *p, const char *data, long long message_id)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct strbuf in = { 0 };
	char qid[32];
	json_t *u;
	char *body;
	long long id = ++w->update;

	snprintf(qid, sizeof(qid), "q%lld", id);
	fake_tg_query(w->tg, qid);
	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	u = json_pack("{sIs{sss{ssss}s{sIs{ssss}}ssss}}", "update_id", id, "callback_query", "id", qid, "from",
		      "id", p->id, "first_name", p->secret_name, "message", "message_id", message_id, "chat", "id",
		      p->id, "type", "private", "chat_instance", "1", "data", data);
	body = json_dumps(u, JSON_COMPACT);
	assert_int_equal(post(w, tg_url_for(w, id), body, h, &in), 200);
	free(body);
	json_decref(u);
	sb_release(&in);
	curl_slist_free_all(h);
}

static void tg_press(struct world *w, struct person *p, const char *data)
{
	tg_press_on(w, p, data, 100);
}

/* An interaction (data consumed) from the Discord person in their DM; the answer read as shown. */
static void dc_send(struct world *w, struct person *p, int type, json_t *data)
{
	char id[32], tok[48], ts[32], hex[2 * crypto_sign_BYTES + 1];
	unsigned char sig[crypto_sign_BYTES];
	struct strbuf msg = { 0 }, in = { 0 }, hs = { 0 }, ht = { 0 };
	struct curl_slist *h = NULL;
	json_error_t jerr;
	json_t *ia, *a;
	char *body;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)(((uint64_t)(wall_ms() - DC_EPOCH) << 22) |
							   (++w->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%s", id);
	snprintf(w->dc_token, sizeof(w->dc_token), "%s", tok);
	/* a direct message: `user`, no `member`, no guild */
	ia = json_pack("{sisssssssss{sssi}s{ssss}so}", "type", type, "id", id, "application_id", APP, "token", tok,
		       "channel_id", p->channel, "channel", "id", p->channel, "type", 1, "user", "id", p->id,
		       "username", p->secret_name, "data", data);
	if (type == 3)
		json_object_set_new(ia, "message", json_pack("{sssiss}", "id", p->msg[0] ? p->msg : "1", "flags", 0,
							     "content", ""));
	body = json_dumps(ia, JSON_COMPACT);
	json_decref(ia);
	snprintf(ts, sizeof(ts), "%lld", wall_ms() / 1000);
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, w->sk);
	sodium_bin2hex(hex, sizeof(hex), sig, sizeof(sig));
	sb_addf(&hs, "X-Signature-Ed25519: %s", hex);
	sb_addf(&ht, "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, sb_str(&hs));
	h = curl_slist_append(h, sb_str(&ht));
	assert_int_equal(post(w, w->dc_url, body, h, &in), 200);
	a = json_loadb(sb_str(&in), in.len, 0, &jerr);
	assert_non_null(a);
	if (getenv("ONLINE_DEBUG"))
		fprintf(stderr, "discord answer: %s\n", sb_str(&in));
	if (json_object_get(json_object_get(a, "data"), "content")) {
		json_t *buttons = dc_buttons(json_object_get(a, "data"));

		shown(p, json_string_value(json_object_get(json_object_get(a, "data"), "content")), buttons);
		json_decref(buttons);
	}
	json_decref(a);
	curl_slist_free_all(h);
	sb_release(&msg);
	sb_release(&in);
	sb_release(&hs);
	sb_release(&ht);
	free(body);
}

static void say(struct world *w, struct person *p, const char *verb, const char *value)
{
	char text[128];

	snprintf(text, sizeof(text), "/%s %s", verb, value);
	tg_send(w, p, text);
}

static void dc_slash(struct world *w, struct person *p, const char *verb, json_t *options)
{
	dc_send(w, p, 2, json_pack("{sssssiso}", "id", "1", "name", verb, "type", 1, "options", options));
}

/* The first button of p's table message that moves the game (not a reaction), or NULL. */
static const char *move_button(struct person *p)
{
	json_t *row, *b;
	size_t i, k;

	json_array_foreach(p->buttons, i, row) {
		json_array_foreach(row, k, b) {
			const char *label = json_string_value(json_object_get(b, "label"));

			if (label && strcmp(label, "good game") && strcmp(label, "well played") &&
			    strcmp(label, "hurry up") && strcmp(label, "Play again"))
				return json_string_value(json_object_get(b, "data"));
		}
	}
	return NULL;
}

static bool game_over(struct world *w)
{
	for (int i = 0; i < NP; i++) {
		json_t *row, *b;
		size_t k, j;

		json_array_foreach(w->p[i].buttons, k, row)
			json_array_foreach(row, j, b)
				if (!strcmp(json_string_value(json_object_get(b, "label")), "Play again"))
					return true;
	}
	return false;
}

/* ---- the service ---- */

/* Start instance k (0 or 1) of the service on db, listening on port; its pid, or -1. */
static pid_t start_instance(struct world *w, int k, const char *db, int port)
{
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1], e_db[1200], e_listen[64], e_tg[160], e_dc[160], e_pk[160];
	char log[128], health[64];
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "GAMEBOT_TELEGRAM_TOKEN=" TG_TOKEN,
			      e_tg, "GAMEBOT_TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_SECRET=" SECRET,
			      "GAMEBOT_TELEGRAM_PACING=off", e_pk, "DISCORD_APP_ID=" APP,
			      "DISCORD_TOKEN=" DC_TOKEN, e_dc, "GAMEBOT_ONLINE_FILL_AFTER=1",
			      "GAMEBOT_RATE_USER_PER_MIN=0", "GAMEBOT_RATE_CHAT_PER_MIN=0", NULL };
	pid_t pid;

	sodium_bin2hex(hex, sizeof(hex), w->pk, sizeof(w->pk));
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_tg, sizeof(e_tg), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(w->tg));
	snprintf(e_dc, sizeof(e_dc), "DISCORD_API_URL=%s", fake_dc_url(w->dc));
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	snprintf(log, sizeof(log), "%s/serve%d.log", w->dir, k);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, log, false);
	return pid > 0 && wait_serving(pid, health, 20000) ? pid : -1;
}

/* The fakes, the people and the service: one instance on SQLite, or two on PostgreSQL (pg). */
static int setup_as(void **state, bool pg)
{
	static const struct person people[NP] = {
		{ false, "70001", NULL, "TgSecretAsha", "Asha", "", NULL, NULL, NULL },
		{ false, "70002", NULL, "TgSecretBina", "Bina", "", NULL, NULL, NULL },
		{ false, "70003", NULL, "TgSecretChiri", "Chiri", "", NULL, NULL, NULL },
		{ true, "880000000000000004", "660000000000000004", "DcSecretDawa", "Dawa", "", NULL, NULL, NULL },
	};
	struct world *w = calloc(1, sizeof(*w));
	const char *base = getenv("GAMEBOT_TEST_PG");
	char sql[256], db[1100];
	int port = free_port();

	if (!w || sodium_init() < 0)
		return -1;
	memcpy(w->p, people, sizeof(people));
	if (fixture_dir(w->dir, sizeof(w->dir), "online-serve") || fake_tg_start(&w->tg, TG_TOKEN, "online_bot") ||
	    fake_dc_start(&w->dc, DC_TOKEN))
		return -1;
	crypto_sign_keypair(w->pk, w->sk);
	snprintf(w->db, sizeof(w->db), "%s/o.db", w->dir);
	snprintf(db, sizeof(db), "%s", w->db);
	if (pg) {
		if (!base || !base[0]) {
			fprintf(stderr, "GAMEBOT_TEST_PG is not set: no PostgreSQL server (make test starts one"
					" through tests/pg.sh)\n");
			return -1;
		}
		snprintf(w->schema, sizeof(w->schema), "online_serve_%ld", (long)getpid());
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", w->schema, w->schema);
		if (pg_admin(base, sql))
			return -1;
		snprintf(db, sizeof(db), "%s%soptions=-csearch_path%%3D%s", base, strchr(base, '?') ? "&" : "?",
			 w->schema);
	}
	snprintf(w->tg_url, sizeof(w->tg_url), "http://127.0.0.1:%d/telegram", port);
	snprintf(w->dc_url, sizeof(w->dc_url), "http://127.0.0.1:%d/discord", port);
	snprintf(w->metrics_url, sizeof(w->metrics_url), "http://127.0.0.1:%d/metrics", port);
	w->pid = start_instance(w, 0, db, port);
	if (w->pid <= 0)
		return -1;
	if (pg) {
		/* the first migrated the empty schema; the second finds it current */
		port = free_port();
		snprintf(w->tg_url2, sizeof(w->tg_url2), "http://127.0.0.1:%d/telegram", port);
		w->pid2 = start_instance(w, 1, db, port);
		if (w->pid2 <= 0)
			return -1;
	}
	w->c = curl_easy_init();
	*state = w;
	return 0;
}

static int setup(void **state)
{
	return setup_as(state, false);
}

static int setup_pg(void **state)
{
	return setup_as(state, true);
}

static int teardown(void **state)
{
	struct world *w = *state;
	int status, rc;

	if (w->pid > 0) {
		kill(w->pid, SIGTERM);
		waitpid(w->pid, &status, 0);
	}
	if (w->pid2 > 0) {
		kill(w->pid2, SIGTERM);
		waitpid(w->pid2, &status, 0);
	}
	if (w->schema[0]) {
		char sql[128];

		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", w->schema);
		pg_admin(getenv("GAMEBOT_TEST_PG"), sql);
	}
	fake_tg_free(w->tg);
	fake_dc_free(w->dc);
	curl_easy_cleanup(w->c);
	for (int i = 0; i < NP; i++) {
		json_decref(w->p[i].buttons);
		free(w->p[i].text);
		free(w->p[i].seen);
	}
	/* the ledger the service left on SQLite (its PostgreSQL runs are audited by the tests) */
	rc = w->schema[0] ? 0 : fixture_audit_db(w->db);
	if (!getenv("ONLINE_KEEP"))
		rc |= fixture_rm(w->dir);
	free(w);
	return rc;
}

/* Wait (at most ms) until every person has a table message. */
static bool all_seated(struct world *w, int ms)
{
	for (int t = 0; t < ms; t += 20) {
		bool all = true;

		look(w);
		for (int i = 0; i < NP; i++)
			all &= w->p[i].text != NULL;
		if (all)
			return true;
		ms_sleep(20);
	}
	return false;
}

/* Wait (at most ms) until p was shown a text holding what. */
static bool seen_by(struct world *w, struct person *p, const char *what, int ms)
{
	for (int t = 0; t < ms; t += 20) {
		look(w);
		if (p->seen && strstr(p->seen, what))
			return true;
		ms_sleep(20);
	}
	return false;
}

/*
 * Everyone names themselves and queues for Call Break at a stake of 50:
 * the Discord person first, then the first Telegram person, whose queue
 * message is up before the others come (both are edited from then on).
 */
static void queue_everyone(struct world *w)
{
	for (int k = 0; k < NP; k++) {
		struct person *p = &w->p[k == 0 ? NP - 1 : k - 1];

		if (p->discord) {
			dc_slash(w, p, "name", json_pack("[{sssiss}]", "name", "name", "type", 3, "value", p->name));
			dc_slash(w, p, "online", json_pack("[{sssiss},{sssisi}]", "name", "game", "type", 3, "value",
							   "callbreak", "name", "stake", "type", 4, "value", 50));
		} else {
			say(w, p, "name", p->name);
			say(w, p, "online", "callbreak 50");
			if (k == 1)
				assert_true(seen_by(w, p, "queue for Call Break", 10000));
		}
	}
}

/* Whoever has a move on their table message presses it, until the game is over; *tg the Telegram presses. */
static int play_to_the_end(struct world *w, int *tg)
{
	int presses = 0;

	*tg = 0;
	for (int guard = 0; guard < 6000 && !game_over(w); guard++) {
		bool pressed = false;

		look(w);
		for (int i = 0; i < NP && !pressed; i++) {
			struct person *p = &w->p[i];
			const char *data = move_button(p);
			char copy[128];

			if (!data)
				continue;
			snprintf(copy, sizeof(copy), "%s", data);
			/* pressed: spent until the table message is shown again */
			json_decref(p->buttons);
			p->buttons = NULL;
			if (p->discord) {
				dc_send(w, p, 3, json_pack("{sssi}", "custom_id", copy, "component_type", 2));
			} else {
				tg_press(w, p, copy);
				(*tg)++;
			}
			presses++;
			pressed = true;
		}
		if (!pressed)
			ms_sleep(10);
	}
	look(w);
	return presses;
}

/* What each one was sent: their own hand, the others' chosen names, nobody's platform name or id. */
static void check_privacy(struct world *w)
{
	for (int i = 0; i < NP; i++) {
		struct person *p = &w->p[i];
		char mine[64];

		snprintf(mine, sizeof(mine), "%s, your cards", p->name);
		assert_non_null(strstr(p->seen, mine));
		for (int k = 0; k < NP; k++) {
			char theirs[64];

			snprintf(theirs, sizeof(theirs), "%s, your cards", w->p[k].name);
			if (k != i)
				assert_null(strstr(p->seen, theirs));
			assert_non_null(strstr(p->seen, w->p[k].name));
			assert_null(strstr(p->seen, w->p[k].secret_name));
			if (k != i)
				assert_null(strstr(p->seen, w->p[k].id));
		}
	}
}

/*
 * Each seat's table message was posted once and edited from then on: the
 * service kept every seat's own message in its own chat.
 */
static void check_one_message_each(struct world *w)
{
	int tg_posts[NP] = { 0 }, tg_edits = 0, dc_posts = 0, dc_edits = 0;

	for (int i = 0, n = fake_tg_count(w->tg, NULL); i < n; i++) {
		char method[64];
		json_t *b = fake_tg_call(w->tg, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text && strstr(text, "Seal ") && !strcmp(method, "sendMessage"))
			tg_posts[tg_person(w, json_object_get(b, "chat_id")) - w->p]++;
		tg_edits += text && strstr(text, "Seal ") && !strcmp(method, "editMessageText");
		json_decref(b);
	}
	for (int i = 0, n = fake_dc_count(w->dc, NULL, NULL); i < n; i++) {
		char method[16], path[256];
		json_t *b = fake_dc_call(w->dc, i, method, sizeof(method), path, sizeof(path), NULL, 0, NULL);
		const char *text = json_string_value(json_object_get(b, "content"));

		if (text && strstr(text, "Seal ") && !strncmp(path, "/channels/", 10)) {
			dc_posts += !strcmp(method, "POST");
			dc_edits += !strcmp(method, "PATCH");
		}
		json_decref(b);
	}
	for (int i = 0; i < NP - 1; i++)
		assert_int_equal(tg_posts[i], 1);
	assert_true(tg_edits > 100);
	assert_int_equal(dc_posts, 1);
	assert_true(dc_edits > 10);
}

/*
 * The queue messages of the two who waited first were posted once and
 * edited in place from then on, to say their table is ready in the end.
 */
static void check_queue_messages(struct world *w)
{
	int tg_posts = 0, tg_ready_edits = 0, tg_ready_posts = 0, dc_ready_edits = 0, dc_ready_posts = 0;

	for (int i = 0, n = fake_tg_count(w->tg, NULL); i < n; i++) {
		char method[64];
		json_t *b = fake_tg_call(w->tg, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text && (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")) &&
		    tg_person(w, json_object_get(b, "chat_id")) == &w->p[0]) {
			tg_posts += strstr(text, "queue for Call Break") && !strcmp(method, "sendMessage");
			tg_ready_edits += strstr(text, "Your table of Call Break is ready") &&
					  !strcmp(method, "editMessageText");
			tg_ready_posts += strstr(text, "Your table of Call Break is ready") &&
					  !strcmp(method, "sendMessage");
		}
		json_decref(b);
	}
	for (int i = 0, n = fake_dc_count(w->dc, NULL, NULL); i < n; i++) {
		char method[16], path[256];
		json_t *b = fake_dc_call(w->dc, i, method, sizeof(method), path, sizeof(path), NULL, 0, NULL);
		const char *text = json_string_value(json_object_get(b, "content"));

		if (text && strstr(text, "Your table of Call Break is ready")) {
			dc_ready_edits += !strcmp(method, "PATCH");
			dc_ready_posts += !strcmp(method, "POST");
		}
		json_decref(b);
	}
	assert_int_equal(tg_posts, 1);
	assert_int_equal(tg_ready_edits, 1);
	assert_int_equal(tg_ready_posts, 0);
	assert_int_equal(dc_ready_edits, 1);
	assert_int_equal(dc_ready_posts, 0);
}

/* /metrics: the table opened here, the queues' gauges (the health thread sets them every 2 s). */
static void check_metrics(struct world *w)
{
	struct strbuf m = { 0 };
	long long t0 = wall_ms();

	do {
		sb_release(&m);
		curl_easy_reset(w->c);
		curl_easy_setopt(w->c, CURLOPT_URL, w->metrics_url);
		curl_easy_setopt(w->c, CURLOPT_WRITEFUNCTION, keep);
		curl_easy_setopt(w->c, CURLOPT_WRITEDATA, &m);
		assert_int_equal(curl_easy_perform(w->c), CURLE_OK);
		if (strstr(sb_str(&m), "gamebot_online_waiting{game=\"callbreak\"} 0"))
			break;
		ms_sleep(100);
	} while (wall_ms() - t0 < 10000);
	assert_non_null(strstr(sb_str(&m), "gamebot_online_tables_opened_total{game=\"callbreak\"} 1"));
	assert_non_null(strstr(sb_str(&m), "gamebot_online_waiting{game=\"callbreak\"} 0"));
	assert_non_null(strstr(sb_str(&m), "gamebot_online_wait_ms_count{game=\"callbreak\"} 4"));
	sb_release(&m);
}

static void test_callbreak_three_telegram_one_discord(void **state)
{
	struct world *w = *state;
	struct store *s = NULL;
	char why[256];
	int presses, tg_presses;

	queue_everyone(w);
	assert_true(all_seated(w, 20000));
	presses = play_to_the_end(w, &tg_presses);
	if (!game_over(w))
		for (int i = 0; i < NP; i++)
			fprintf(stderr, "%s (%d presses in all):\n%s\n", w->p[i].name, presses, w->p[i].text);
	assert_true(game_over(w));
	assert_true(presses > 60);
	/* every Telegram press answered (its spinner stopped), in its own private chat */
	for (long long t0 = wall_ms(); fake_tg_count(w->tg, "answerCallbackQuery") < tg_presses &&
				       wall_ms() - t0 < 5000;)
		ms_sleep(20);
	assert_int_equal(fake_tg_count(w->tg, "answerCallbackQuery"), tg_presses);
	check_privacy(w);
	check_one_message_each(w);
	check_queue_messages(w);
	check_metrics(w);
	/* the ratings' table, asked for with Discord's options */
	dc_slash(w, &w->p[NP - 1], "top", json_pack("[{sssiss},{sssiss}]", "name", "online", "type", 3, "value",
						      "online", "name", "game", "type", 3, "value", "callbreak"));
	assert_non_null(strstr(w->p[NP - 1].seen, "Best online at Call Break"));
	/* coins settled (every pot empty, every wallet adds up) and ratings moved */
	assert_int_equal(store_open(&s, w->db), GB_OK);
	if (store_coins_audit(s, 0, why, sizeof(why)))
		fail_msg("ledger: %s", why);
	for (int i = 0; i < NP; i++) {
		struct store_rating r;

		assert_int_equal(store_rating_get(s, w->p[i].discord ? "discord" : "telegram", w->p[i].id, "callbreak",
						  &r),
				 GB_OK);
		assert_int_equal(r.games, 3);
		assert_true(r.rd < 350000);
	}
	store_free(s);
}

/* ---- one queue message, ever ---- */

/*
 * Telegram calls of method into p's chat whose text holds what: how many,
 * the last one's body into *last (a new reference) when last is not NULL.
 */
static int tg_calls(struct world *w, struct person *p, const char *method, const char *what, json_t **last)
{
	int n = 0;

	for (int i = 0, all = fake_tg_count(w->tg, NULL); i < all; i++) {
		char m[64];
		json_t *b = fake_tg_call(w->tg, i, m, sizeof(m), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (!strcmp(m, method) && text && strstr(text, what) && json_object_get(b, "chat_id") &&
		    tg_person(w, json_object_get(b, "chat_id")) == p) {
			n++;
			if (last) {
				json_decref(*last);
				*last = json_incref(b);
			}
		}
		json_decref(b);
	}
	return n;
}

/*
 * Discord calls of method whose path starts with prefix and whose content
 * holds what: how many; the last one's path into path, its body into
 * *last (a new reference) when last is not NULL.
 */
static int dc_calls(struct world *w, const char *method, const char *prefix, const char *what, char *path,
		    size_t np, json_t **last)
{
	int n = 0;

	for (int i = 0, all = fake_dc_count(w->dc, NULL, NULL); i < all; i++) {
		char m[16], p[256];
		int status = 0;
		json_t *b = fake_dc_call(w->dc, i, m, sizeof(m), p, sizeof(p), NULL, 0, &status);
		const char *text = json_string_value(json_object_get(b, "content"));

		if (!strcmp(m, method) && !strncmp(p, prefix, strlen(prefix)) && text && strstr(text, what) &&
		    status < 300) {
			n++;
			if (path)
				snprintf(path, np, "%s", p);
			if (last) {
				json_decref(*last);
				*last = json_incref(b);
			}
		}
		json_decref(b);
	}
	return n;
}

/* The data of the button labelled label among buttons ([[{"label", "data"}]]), into out. */
static bool button_of(json_t *buttons, const char *label, char *out, size_t n)
{
	json_t *row, *b;
	size_t i, k;

	json_array_foreach(buttons, i, row) {
		json_array_foreach(row, k, b) {
			if (!strcmp(json_string_value(json_object_get(b, "label")), label)) {
				snprintf(out, n, "%s", json_string_value(json_object_get(b, "data")));
				return true;
			}
		}
	}
	return false;
}

/*
 * A queue message is one message, ever: its post on its way (the platform
 * slow to answer) while the table opens, it is edited to say the table is
 * ready, never posted a second time. On Telegram, Asha's first post; on
 * Discord, Dawa's, posted afresh by the service once the interaction that
 * answered with it could no longer edit it (and its id was never learned). Several outbox workers deliver
 * meanwhile. Pressed afterwards, its "Leave the queue" says the table is
 * ready and how to leave it, and the message loses its buttons.
 */
static void test_queue_message_once_while_slow(void **state)
{
	struct world *w = *state;
	struct person *asha = &w->p[0], *bina = &w->p[1], *chiri = &w->p[2], *dawa = &w->p[NP - 1];
	json_t *b = NULL, *buttons;
	char path[256], dm[128], leave[128], msg[32];
	long long t0;

	/*
	 * Dawa waits first: the answer to her /online is her queue message;
	 * that interaction then expires, before the service could learn the
	 * answer's id (Discord refuses the ask)
	 */
	fake_dc_fault(w->dc, "GET", "/webhooks/", 0, 1, FAKE_DC_404, 0);
	dc_slash(w, dawa, "online", json_pack("[{sssiss},{sssisi},{sssiss}]", "name", "game", "type", 3, "value",
					      "ludo", "name", "stake", "type", 4, "value", 0, "name", "seats", "type",
					      3, "value", "4p"));
	assert_non_null(strstr(dawa->seen, "queue for Ludo"));
	fake_dc_expire_token(w->dc, w->dc_token);
	/* Chiri comes: Dawa's message is posted afresh, and Discord is slow to answer */
	fake_dc_fault(w->dc, "POST", "/channels/", 0, 1, FAKE_DC_SLOW, 2500);
	say(w, chiri, "online", "ludo 4p");
	assert_true(seen_by(w, chiri, "queue for Ludo", 10000));
	for (t0 = wall_ms(); !fake_dc_count(w->dc, "POST", "/channels/") && wall_ms() - t0 < 10000;)
		ms_sleep(10);
	assert_int_equal(fake_dc_count(w->dc, "POST", "/channels/"), 1);
	/* Asha comes, and Telegram is slow to answer her queue message's first post */
	fake_tg_fault(w->tg, "sendMessage", 0, 1, FAKE_TG_SLOW, 2500);
	say(w, asha, "online", "ludo 4p");
	for (t0 = wall_ms(); !tg_calls(w, asha, "sendMessage", "queue for Ludo", NULL) && wall_ms() - t0 < 10000;)
		ms_sleep(10);
	/* Bina comes while both posts are on their way: the table opens */
	say(w, bina, "online", "ludo 4p");
	assert_true(all_seated(w, 20000));
	assert_true(seen_by(w, asha, "Your table of Ludo is ready", 10000));
	assert_true(seen_by(w, dawa, "Your table of Ludo is ready", 10000));
	/* each one's queue message: posted once, edited to say the table is ready */
	snprintf(dm, sizeof(dm), "/channels/%s/messages/", dawa->channel);
	assert_int_equal(dc_calls(w, "POST", "/channels/", "queue for Ludo", NULL, 0, NULL), 1);
	assert_int_equal(dc_calls(w, "POST", "/", "Your table of Ludo is ready", NULL, 0, NULL), 0);
	assert_int_equal(dc_calls(w, "PATCH", "/", "Your table of Ludo is ready", path, sizeof(path), NULL), 1);
	/* edited as the bot: the message posted afresh, not the expired answer */
	assert_int_equal(strncmp(path, dm, strlen(dm)), 0);
	for (int i = 0; i < NP - 1; i++) {
		struct person *p = &w->p[i];

		/* counted once delivered: Bina's and Chiri's messages may still be on their way */
		assert_true(seen_by(w, p, "Your table of Ludo is ready", 10000));
		assert_int_equal(tg_calls(w, p, "sendMessage", "queue for Ludo", NULL), 1);
		assert_int_equal(tg_calls(w, p, "sendMessage", "Your table of Ludo is ready", NULL), 0);
		assert_int_equal(tg_calls(w, p, "editMessageText", "Your table of Ludo is ready", NULL), 1);
	}

	/* Asha presses "Leave the queue" on it now: told her table is ready, the message loses its buttons */
	assert_int_equal(tg_calls(w, asha, "sendMessage", "queue for Ludo", &b), 1);
	buttons = tg_buttons(b);
	assert_true(button_of(buttons, "Leave the queue", leave, sizeof(leave)));
	json_decref(buttons);
	assert_int_equal(tg_calls(w, asha, "editMessageText", "Your table of Ludo is ready", &b), 1);
	tg_press_on(w, asha, leave, json_integer_value(json_object_get(b, "message_id")));
	for (t0 = wall_ms(); tg_calls(w, asha, "editMessageText", "you are seated at it", NULL) < 1 &&
			     wall_ms() - t0 < 10000;)
		ms_sleep(20);
	{
		json_t *edit = NULL, *answer;
		int n = fake_tg_count(w->tg, "answerCallbackQuery");

		assert_int_equal(tg_calls(w, asha, "editMessageText", "you are seated at it", &edit), 1);
		assert_int_equal(json_integer_value(json_object_get(edit, "message_id")),
				 json_integer_value(json_object_get(b, "message_id")));
		assert_int_equal(json_array_size(json_object_get(json_object_get(edit, "reply_markup"),
								 "inline_keyboard")), 0);
		assert_non_null(strstr(json_string_value(json_object_get(edit, "text")), "/leave hands your seat"));
		json_decref(edit);
		answer = fake_tg_nth(w->tg, "answerCallbackQuery", n - 1);
		assert_non_null(strstr(json_string_value(json_object_get(answer, "text")),
				       "Your table of Ludo is ready and you are seated at it"));
		json_decref(answer);
	}
	/* never "you are not in a queue", and no second message */
	assert_int_equal(tg_calls(w, asha, "sendMessage", "you are seated at it", NULL), 0);
	json_decref(b);
	b = NULL;

	/* Dawa presses it on hers: the press's answer edits that message in place, without buttons */
	assert_int_equal(dc_calls(w, "POST", "/channels/", "queue for Ludo", NULL, 0, &b), 1);
	buttons = dc_buttons(b);
	assert_true(button_of(buttons, "Leave the queue", leave, sizeof(leave)));
	json_decref(buttons);
	json_decref(b);
	snprintf(msg, sizeof(msg), "%s", dawa->msg);
	snprintf(dawa->msg, sizeof(dawa->msg), "%.31s", path + strlen(dm));
	free(dawa->seen);
	dawa->seen = NULL;
	dc_send(w, dawa, 3, json_pack("{sssi}", "custom_id", leave, "component_type", 2));
	snprintf(dawa->msg, sizeof(dawa->msg), "%s", msg);
	assert_non_null(dawa->seen);
	assert_non_null(strstr(dawa->seen, "Your table of Ludo is ready and you are seated at it"));
	assert_null(strstr(dawa->seen, "not in a queue"));
	assert_int_equal(dc_calls(w, "POST", "/channels/", "you are seated at it", NULL, 0, NULL), 0);
	/* and each table message, posted behind those slow posts, was posted once */
	for (int i = 0; i < NP - 1; i++)
		assert_int_equal(tg_calls(w, &w->p[i], "sendMessage", "Seal ", NULL), 1);
	assert_int_equal(dc_calls(w, "POST", "/", "Seal ", NULL, 0, NULL), 1);
}

/*
 * The same on two instances sharing one PostgreSQL database, the people's
 * updates to either in turn: Asha's queue message's first post is slow,
 * Bina comes meanwhile, whichever instance seats them and whichever's
 * workers deliver, the message is posted once and edited to say the
 * table is ready; so is Bina's, and each one's table message is posted once.
 */
static void test_queue_message_once_two_instances(void **state)
{
	struct world *w = *state;
	struct person *asha = &w->p[0], *bina = &w->p[1];
	long long t0;

	fake_tg_fault(w->tg, "sendMessage", 0, 1, FAKE_TG_SLOW, 2500);
	say(w, asha, "online", "ludo");
	for (t0 = wall_ms(); !tg_calls(w, asha, "sendMessage", "queue for Ludo", NULL) && wall_ms() - t0 < 10000;)
		ms_sleep(10);
	say(w, bina, "online", "ludo");
	for (t0 = wall_ms(); (!asha->text || !bina->text) && wall_ms() - t0 < 20000;) {
		look(w);
		ms_sleep(20);
	}
	assert_non_null(asha->text);
	assert_non_null(bina->text);
	assert_true(seen_by(w, asha, "Your table of Ludo is ready", 10000));
	assert_true(seen_by(w, bina, "Your table of Ludo is ready", 10000));
	for (int i = 0; i < 2; i++) {
		struct person *p = &w->p[i];

		assert_int_equal(tg_calls(w, p, "sendMessage", "queue for Ludo", NULL), 1);
		assert_int_equal(tg_calls(w, p, "sendMessage", "Your table of Ludo is ready", NULL), 0);
		assert_int_equal(tg_calls(w, p, "editMessageText", "Your table of Ludo is ready", NULL), 1);
		assert_int_equal(tg_calls(w, p, "sendMessage", "Seal ", NULL), 1);
	}
}

/* The index of the first Discord call of method whose content holds what, -1 none. */
static int dc_first(struct world *w, const char *method, const char *what)
{
	int at = -1;

	for (int i = 0, all = fake_dc_count(w->dc, NULL, NULL); i < all && at < 0; i++) {
		char m[16], p[256];
		json_t *b = fake_dc_call(w->dc, i, m, sizeof(m), p, sizeof(p), NULL, 0, NULL);
		const char *text = json_string_value(json_object_get(b, "content"));

		if (!strcmp(m, method) && text && strstr(text, what))
			at = i;
		json_decref(b);
	}
	return at;
}

/* Wait (at most ms) until the fake Discord has at least n calls of method with paths starting with prefix. */
static bool dc_seen_calls(struct world *w, const char *method, const char *prefix, int n, int ms)
{
	for (long long t0 = wall_ms(); wall_ms() - t0 < ms; ms_sleep(10))
		if (fake_dc_count(w->dc, method, prefix) >= n)
			return true;
	return false;
}

/*
 * On Discord, the queue message is the answer to /online in the direct
 * message, and it stays one message: edited in place through the
 * interaction's token (PATCH .../messages/@original) to say the table is
 * ready, before the table; once that token is no longer good, by its id
 * in the channel, as the bot (the service asks for the answer's id while
 * it may). Never a second message.
 */
static void test_discord_queue_message_edited_in_place(void **state)
{
	struct world *w = *state;
	struct person *asha = &w->p[0], *bina = &w->p[1], *dawa = &w->p[NP - 1];
	char orig[128], token[48], path[256], dm[128];
	long long id;

	for (int round = 0; round < 2; round++) {
		struct person *other = round ? bina : asha;

		dc_slash(w, dawa, "online", json_pack("[{sssiss}]", "name", "game", "type", 3, "value", "baghchal"));
		assert_non_null(strstr(dawa->seen, "queue for Bagh Chal"));
		snprintf(token, sizeof(token), "%s", w->dc_token);
		snprintf(orig, sizeof(orig), "/webhooks/%s/%s/messages/@original", APP, token);
		/* the service learns the answer's id while the token is good */
		assert_true(dc_seen_calls(w, "GET", orig, 1, 10000));
		id = fake_dc_original_id(w->dc, token);
		if (round == 1)
			fake_dc_expire_token(w->dc, token); /* a quarter of an hour later */
		say(w, other, "online", "baghchal");
		assert_true(seen_by(w, dawa, "Your table of Bagh Chal is ready", 10000));
		assert_int_equal(dc_calls(w, "POST", "/", "Your table of Bagh Chal is ready", NULL, 0, NULL), 0);
		assert_int_equal(dc_calls(w, "POST", "/", "queue for Bagh Chal", NULL, 0, NULL), 0);
		/* the one message: through the token, or by its id as the bot (once the token is over, so) */
		snprintf(dm, sizeof(dm), "/channels/%s/messages/%lld", dawa->channel, id);
		assert_int_equal(dc_calls(w, "PATCH", "/", "Your table of Bagh Chal is ready", path, sizeof(path), NULL),
				 1);
		if (strcmp(path, dm) && (round == 1 || strcmp(path, orig)))
			fail_msg("the queue message edited at %s, not %s", path, dm);
		/* the ready edit came before the table's first message in the channel (its board's post) */
		for (long long t0 = wall_ms(); dc_first(w, "POST", "Seal ") < 0 && wall_ms() - t0 < 10000;)
			ms_sleep(10);
		assert_true(dc_first(w, "POST", "Seal ") >= 0);
		assert_true(dc_first(w, "PATCH", "Your table of Bagh Chal is ready") >= 0);
		assert_true(dc_first(w, "PATCH", "Your table of Bagh Chal is ready") < dc_first(w, "POST", "Seal "));
		/* both leave: the tables stop, and the two may queue again */
		say(w, other, "leave", "");
		dc_slash(w, dawa, "leave", json_array());
		free(dawa->seen);
		dawa->seen = NULL;
		fake_dc_clear(w->dc);
		w->dc_seen = 0;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_callbreak_three_telegram_one_discord, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discord_queue_message_edited_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_message_once_while_slow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_message_once_two_instances, setup_pg, teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
