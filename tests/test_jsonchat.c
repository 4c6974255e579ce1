/*
 * test_jsonchat.c - a third platform (tests/platforms/jsonchat.c, a chat
 * protocol of JSON over HTTP that only the tests know) plays a whole game
 * of Snakes and Ladders through the real outbox and the shared delivery
 * policy (adapters/deliver.h), against a fake server of that protocol on
 * 127.0.0.1 in this file: an outage pauses the outbox behind its probe and
 * every reply goes after it, a lost table message is posted again, a
 * superseded board is not sent, and a private view whose chat is closed
 * becomes a line in the group. Time is virtual (outbox_run_once()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/http.h"
#include "adapters/outbox.h"
#include "bot/bot.h"
#include "bot/base/config.h"
#include "store/store.h"
#include "tests/fixture.h"
#include "tests/platforms/jsonchat.h"

#define STEP_MS 250
#define GROUP "g1"
#define FAKE_MSGS 512

/* ---- the fake server ---- */

struct fake_msg {
	char chat[32];
	char id[16];
	char text[4096];
	int buttons;
	bool stripped;
	bool deleted;                   /* gone from the chat: an edit gets 404 */
};

struct fake {
	pthread_mutex_t lock;
	struct http_server *h;
	char url[64];
	bool down;                      /* every request answered 503 */
	char closed[32];                /* a person whose private chat is closed ("" none) */
	struct fake_msg msgs[FAKE_MSGS];
	int nmsgs;
	int calls;                      /* /send, /edit and /strip requests */
	int refused;                    /* of those, answered 503 */
	int pings;
};

static void answer(struct http_response *resp, int status, json_t *body)
{
	resp->status = status;
	resp->body = json_dumps(body, JSON_COMPACT);
	resp->content_type = "application/json";
	json_decref(body);
}

static struct fake_msg *find(struct fake *f, const char *chat, const char *id)
{
	for (int i = 0; i < f->nmsgs; i++)
		if (!strcmp(f->msgs[i].chat, chat) && !strcmp(f->msgs[i].id, id) && !f->msgs[i].deleted)
			return &f->msgs[i];
	return NULL;
}

/* POST /send, /edit, /strip: what the path names, as the protocol says. */
static void on_post(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct fake *f = arg;
	json_error_t jerr;
	json_t *body = json_loads(req->body, 0, &jerr);
	const char *chat = json_string_value(json_object_get(body, "chat"));
	const char *id = json_string_value(json_object_get(body, "id"));
	const char *text = json_string_value(json_object_get(body, "text"));
	struct fake_msg *m;

	pthread_mutex_lock(&f->lock);
	f->calls++;
	if (f->down) {
		f->refused++;
		answer(resp, 503, json_pack("{ss}", "error", "down"));
	} else if (!chat) {
		answer(resp, 400, json_pack("{ss}", "error", "no chat"));
	} else if (!strcmp(req->path, "/send")) {
		if (f->closed[0] && !strcmp(chat, f->closed)) {
			answer(resp, 403, json_pack("{ss}", "error", "closed"));
		} else {
			assert_true(f->nmsgs < FAKE_MSGS);
			m = &f->msgs[f->nmsgs++];
			snprintf(m->chat, sizeof(m->chat), "%s", chat);
			snprintf(m->id, sizeof(m->id), "%d", f->nmsgs);
			snprintf(m->text, sizeof(m->text), "%s", text ? text : "");
			m->buttons = (int)json_array_size(json_object_get(body, "buttons"));
			answer(resp, 200, json_pack("{ss}", "id", m->id));
		}
	} else if (!(m = id ? find(f, chat, id) : NULL)) {
		answer(resp, 404, json_pack("{ss}", "error", "no such message"));
	} else if (!strcmp(req->path, "/edit")) {
		snprintf(m->text, sizeof(m->text), "%s", text ? text : "");
		m->buttons = (int)json_array_size(json_object_get(body, "buttons"));
		answer(resp, 200, json_pack("{ss}", "id", m->id));
	} else {
		m->stripped = true;
		answer(resp, 200, json_object());
	}
	pthread_mutex_unlock(&f->lock);
	json_decref(body);
}

static void on_ping(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct fake *f = arg;

	(void)req;
	pthread_mutex_lock(&f->lock);
	f->pings++;
	answer(resp, f->down ? 503 : 200, json_object());
	pthread_mutex_unlock(&f->lock);
}

static void fake_start(struct fake *f)
{
	const struct http_route routes[] = {
		{ "POST", "/send", on_post, f, NULL },
		{ "POST", "/edit", on_post, f, NULL },
		{ "POST", "/strip", on_post, f, NULL },
		{ "GET", "/ping", on_ping, f, NULL },
	};
	struct http_options o;

	pthread_mutex_init(&f->lock, NULL);
	http_options_init(&o);
	o.listen = "127.0.0.1:0";
	o.routes = routes;
	o.nroutes = 4;
	o.health_path = "";
	assert_int_equal(http_start(&f->h, &o), GB_OK);
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", http_port(f->h));
}

/* The newest message in chat whose text holds what ("" any), or NULL. Lock held by the caller. */
static struct fake_msg *newest(struct fake *f, const char *chat, const char *what)
{
	for (int i = f->nmsgs - 1; i >= 0; i--)
		if (!strcmp(f->msgs[i].chat, chat) && strstr(f->msgs[i].text, what))
			return &f->msgs[i];
	return NULL;
}

/* ---- the world: store, bot, adapter, outbox ---- */

struct world {
	char dir[64], db[128];
	struct fake fake;
	struct bot b;
	struct config cfg;
	struct adapter_env env;
	void *self;
	struct outbox_gate gate;
	struct outbox_opts o;
	int64_t now;
};

static struct world w;

static int setup(void **state)
{
	(void)state;
	memset(&w, 0, sizeof(w));
	if (fixture_dir(w.dir, sizeof(w.dir), "jsonchat"))
		return -1;
	snprintf(w.db, sizeof(w.db), "%s/j.db", w.dir);
	fake_start(&w.fake);
	setenv("GAMEBOT_JSONCHAT_API", w.fake.url, 1);
	if (store_open(&w.b.store, w.db))
		return -1;
	bot_config_init(&w.b.cfg);
	w.b.cfg.seed = 7;
	w.b.cfg.rate_user_per_min = 0;
	w.b.cfg.rate_chat_per_min = 0;
	config_init(&w.cfg);
	snprintf(w.cfg.db, sizeof(w.cfg.db), "%s", w.db);
	w.env.cfg = &w.cfg;
	w.env.bot = w.b.cfg;
	w.env.db = w.db;
	if (!jsonchat_adapter.configured(&w.cfg) || jsonchat_adapter.start(&w.env, &w.self))
		return -1;
	outbox_gate_init(&w.gate);
	outbox_opts_init(&w.o);
	w.o.gate = &w.gate;
	w.o.workers = 1;
	w.now = bot_now_ms();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jsonchat_adapter.stop(w.self);
	adapter_bot_release();
	outbox_gate_destroy(&w.gate);
	store_free(w.b.store);
	http_stop(w.fake.h);
	pthread_mutex_destroy(&w.fake.lock);
	unsetenv("GAMEBOT_JSONCHAT_API");
	return fixture_rm(w.dir);
}

static void say(const char *user, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", jsonchat_adapter.name);
	snprintf(cmd.chat, sizeof(cmd.chat), GROUP);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "P%s", user);
	cmd.now_ms = w.now;
	assert_int_equal(bot_handle(&w.b, &cmd), GB_OK);
	w.now += 1000;
}

static void run_for(int64_t ms)
{
	for (int64_t end = w.now + ms; w.now < end; w.now += STEP_MS)
		assert_true(outbox_run_once(w.b.store, &jsonchat_adapter, w.self, &w.o, w.now) >= 0);
}

/* Passes until nothing is pending (at most ten virtual minutes); nothing set aside. */
static void run_until_sent(void)
{
	int pending = 1, aside = -1;

	for (int i = 0; pending && i < 600000 / STEP_MS; i++) {
		assert_true(outbox_run_once(w.b.store, &jsonchat_adapter, w.self, &w.o, w.now) >= 0);
		w.now += STEP_MS;
		assert_int_equal(store_out_count(w.b.store, jsonchat_adapter.name, &pending, &aside, NULL), GB_OK);
	}
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 0);
}

/* The group's open table into t (GB_ENOTFOUND once the game is over). */
static int open_table(struct store_table *t)
{
	struct store_chat c = { 0 };
	int rc;

	memset(t, 0, sizeof(*t));
	assert_int_equal(store_chat_get(w.b.store, jsonchat_adapter.name, GROUP, "en", &c), GB_OK);
	rc = store_table_open_get(w.b.store, c.id, t);
	store_chat_release(&c);
	return rc;
}

/* Both players roll; one of them is the one whose turn it is. */
static void roll(void)
{
	say("7", "/roll");
	say("8", "/roll");
}

/* A reply view queued for the group now, of no table. */
static void queue_view(const char *payload)
{
	assert_int_equal(store_out_add(w.b.store, jsonchat_adapter.name, GROUP, 0, "", payload, w.now), GB_OK);
}

static void test_jsonchat_plays_snakes(void **state)
{
	struct store_table t;
	char first[STORE_ID_LEN], payload[256];
	int calls, moves = 0, pending = 0;
	int64_t table;
	const struct fake_msg *m;

	(void)state;
	say("7", "/new snakes");
	say("8", "/join");
	say("7", "/start");
	run_until_sent();
	assert_int_equal(open_table(&t), GB_OK);
	table = t.id;
	snprintf(first, sizeof(first), "%s", t.message);
	store_table_release(&t);
	/* the board went as a message with buttons, and its id is the table's */
	pthread_mutex_lock(&w.fake.lock);
	m = find(&w.fake, GROUP, first);
	assert_non_null(m);
	assert_true(m->buttons > 0);
	pthread_mutex_unlock(&w.fake.lock);

	/* an outage: one delivery meets it, then only probes ask; nothing given up */
	w.fake.down = true;
	roll();
	run_for(30000);
	assert_true(w.gate.down);
	assert_int_equal(w.fake.refused, 1);
	assert_true(w.fake.pings >= 2);
	assert_int_equal(store_out_count(w.b.store, jsonchat_adapter.name, &pending, NULL, NULL), GB_OK);
	assert_true(pending > 0);
	w.fake.down = false;
	run_until_sent();
	assert_false(w.gate.down);
	assert_int_equal(open_table(&t), GB_OK);
	assert_string_equal(t.message, first); /* edited in place, not posted again */
	store_table_release(&t);

	/* the table message is lost (deleted in the chat): the next board is posted again */
	pthread_mutex_lock(&w.fake.lock);
	find(&w.fake, GROUP, first)->deleted = true;
	pthread_mutex_unlock(&w.fake.lock);
	roll();
	run_until_sent();
	assert_int_equal(open_table(&t), GB_OK);
	assert_string_not_equal(t.message, first);
	pthread_mutex_lock(&w.fake.lock);
	assert_non_null(find(&w.fake, GROUP, t.message));
	pthread_mutex_unlock(&w.fake.lock);
	store_table_release(&t);

	/* a board drawn before the table's last move is not sent */
	assert_int_equal(store_move_last(w.b.store, table, &moves), GB_OK);
	assert_true(moves > 0);
	snprintf(payload, sizeof(payload), "{\"kind\":\"table\",\"table\":%lld,\"turn\":%d,\"text\":\"old board\"}",
		 (long long)table, moves - 1);
	assert_int_equal(store_out_add(w.b.store, jsonchat_adapter.name, GROUP, table, "", payload, w.now), GB_OK);
	calls = w.fake.calls;
	run_until_sent();
	assert_int_equal(w.fake.calls, calls);

	/* a repost so overtaken: the old message loses its buttons and is forgotten, nothing posted */
	assert_int_equal(open_table(&t), GB_OK);
	snprintf(first, sizeof(first), "%s", t.message);
	store_table_release(&t);
	snprintf(payload, sizeof(payload),
		 "{\"kind\":\"table\",\"table\":%lld,\"turn\":%d,\"repost\":true,\"text\":\"old board\"}",
		 (long long)table, moves - 1);
	assert_int_equal(store_out_add(w.b.store, jsonchat_adapter.name, GROUP, table, "", payload, w.now), GB_OK);
	run_until_sent();
	assert_int_equal(w.fake.calls, calls + 1);
	assert_int_equal(open_table(&t), GB_OK);
	assert_string_equal(t.message, "");
	store_table_release(&t);
	pthread_mutex_lock(&w.fake.lock);
	assert_true(find(&w.fake, GROUP, first)->stripped);
	assert_null(newest(&w.fake, GROUP, "old board"));
	pthread_mutex_unlock(&w.fake.lock);

	/* a private view: to the person's own chat, or, that closed, a line in the group */
	queue_view("{\"kind\":\"private\",\"user\":\"7\",\"text\":\"for 7 alone\"}");
	snprintf(w.fake.closed, sizeof(w.fake.closed), "8");
	queue_view("{\"kind\":\"private\",\"user\":\"8\",\"text\":\"for 8 alone\"}");
	run_until_sent();
	pthread_mutex_lock(&w.fake.lock);
	assert_non_null(newest(&w.fake, "7", "for 7 alone"));
	assert_null(newest(&w.fake, "8", ""));
	assert_null(newest(&w.fake, GROUP, "for 8 alone"));
	assert_non_null(newest(&w.fake, GROUP, "8: open a private chat"));
	pthread_mutex_unlock(&w.fake.lock);
	/* the group is told once per person and table: the next view for 8 is only tried in their chat */
	calls = w.fake.calls;
	queue_view("{\"kind\":\"private\",\"user\":\"8\",\"text\":\"for 8 again\"}");
	run_until_sent();
	assert_int_equal(w.fake.calls, calls + 1);

	/*
	 * A secret alert (a refused card tells of the hand) is never the
	 * group's: to the person's own chat, or nowhere; nor is a private
	 * view or a secret alert that names nobody.
	 */
	queue_view("{\"kind\":\"alert\",\"secret\":true,\"user\":\"7\",\"text\":\"Q of 7\"}");
	queue_view("{\"kind\":\"alert\",\"secret\":true,\"user\":\"8\",\"text\":\"Q of 8\"}");
	queue_view("{\"kind\":\"alert\",\"secret\":true,\"text\":\"Q of nobody\"}");
	queue_view("{\"kind\":\"private\",\"text\":\"hand of nobody\"}");
	run_until_sent();
	pthread_mutex_lock(&w.fake.lock);
	assert_non_null(newest(&w.fake, "7", "Q of 7"));
	assert_null(newest(&w.fake, GROUP, "Q of"));
	assert_null(newest(&w.fake, GROUP, "of nobody"));
	pthread_mutex_unlock(&w.fake.lock);

	/* and on to the end of the game */
	for (int i = 0; i < 1000 && open_table(&t) == GB_OK; i++) {
		store_table_release(&t);
		roll();
		if (i % 8 == 0)
			run_until_sent();
	}
	assert_int_equal(open_table(&t), GB_ENOTFOUND);
	run_until_sent();
	/* the game was played out: its last board names the winner */
	pthread_mutex_lock(&w.fake.lock);
	assert_non_null(newest(&w.fake, GROUP, " wins"));
	print_message("      jsonchat: a game of Snakes in %d messages and %d calls\n", w.fake.nmsgs, w.fake.calls);
	pthread_mutex_unlock(&w.fake.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_jsonchat_plays_snakes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
