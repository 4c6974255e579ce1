/*
 * test_outage.c - a platform that fails as a whole is down for all its
 * rows, not for each one, and the bot reacts to the platforms' real error
 * answers. Against the fake Bot API and the fake Discord API on 127.0.0.1,
 * with the real adapters and the outbox on a real SQLite file:
 *   - the fake stopped (connections refused) and started again, with the
 *     outbox's worker threads: while it is down no row is tried, written or
 *     counted an attempt - one probe asks, with a backoff - and when it
 *     answers again every row goes out, each chat's in its order, once;
 *   - outages of 80 s and of 10 minutes on each platform (502s, calls that
 *     get no answer in time, refused connections, a revoked token's 401s),
 *     driven through outbox_run_once() with the outbox's own policy and a
 *     virtual clock, so ten minutes take seconds: the replies of five
 *     groups all arrive after it, none given up, none counted an attempt,
 *     a table's newest board in place of the ones it overtook, and one log
 *     line when it goes down and one when it is back;
 *   - Discord's 401 stops calls at once (the workers' gate says so, and
 *     so does /metrics) until a probe is let in;
 *   - Telegram's long polling waits out a 429's retry_after;
 *   - a chat the bot was removed from (Telegram's my_chat_member "kicked",
 *     its 403 "bot was kicked", Discord's Unknown Channel) stops its table
 *     with the stakes refunded and gives up its rows;
 *   - Discord's Missing Access and Missing Permissions in one channel are
 *     that channel's: its rows are set aside, the platform is not paused;
 *   - Discord: a 429 without a JSON body waits its Retry-After, a wait of
 *     hours is believed, and an interaction webhook that answered Unknown
 *     Webhook is never called again.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>

#include "adapters/discord.h"
#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/base/metrics.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define TOKEN "123456:TEST-token_xyz"
#define CHATS 30
#define LINES 2

static atomic_int delivered_calls, probe_calls;

/* The Telegram adapter, its deliveries and probes counted. */
static void counting_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	atomic_fetch_add(&delivered_calls, 1);
	telegram_adapter.deliver(self, s, row, d);
}

static int counting_probe(void *self)
{
	atomic_fetch_add(&probe_calls, 1);
	return telegram_adapter.probe(self);
}

static const struct adapter counting = {
	.name = "telegram",
	.deliver = counting_deliver,
	.probe = counting_probe,
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One number from the file, on a connection of the test's own. */
static long long count_in(const char *path, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void wait_for(atomic_int *counter, int at_least, int timeout_ms)
{
	int64_t t0 = mono_ms();

	while (atomic_load(counter) < at_least) {
		if (mono_ms() - t0 > timeout_ms)
			fail_msg("waited %d ms for %d, have %d", timeout_ms, at_least, atomic_load(counter));
		usleep(2000);
	}
}

static void test_platform_down_one_probe_then_in_order(void **state)
{
	char dir[64], db[128];
	struct fake_tg *f = NULL;
	struct config cfg;
	struct adapter_env env = { 0 };
	struct store *s = NULL;
	struct outbox *ob = NULL;
	struct outbox_opts oo;
	void *self = NULL;
	int delivers, pending = 1, seen[CHATS] = { 0 };
	long long writes;
	int64_t t0;

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "outage"), 0);
	snprintf(db, sizeof(db), "%s/o.db", dir);
	assert_int_equal(fake_tg_start(&f, TOKEN, "gb_test_bot"), 0);
	config_init(&cfg);
	snprintf(cfg.telegram_token, sizeof(cfg.telegram_token), "%s", TOKEN);
	snprintf(cfg.telegram_api, sizeof(cfg.telegram_api), "%s", fake_tg_url(f));
	snprintf(cfg.telegram_mode, sizeof(cfg.telegram_mode), "webhook");
	snprintf(cfg.telegram_secret, sizeof(cfg.telegram_secret), "s3cret");
	snprintf(cfg.telegram_pacing, sizeof(cfg.telegram_pacing), "off");
	snprintf(cfg.db, sizeof(cfg.db), "%s", db);
	env.cfg = &cfg;
	bot_config_init(&env.bot);
	env.db = db;
	assert_int_equal(store_open(&s, db), GB_OK);
	assert_int_equal(telegram_adapter.start(&env, &self), GB_OK);
	/* every write to an outbox row (a claim, a retry, a hand-back) counted by the file itself */
	{
		sqlite3 *raw = NULL;

		assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
		assert_int_equal(sqlite3_exec(raw, "CREATE TABLE row_writes (n INTEGER NOT NULL);"
					      "INSERT INTO row_writes VALUES (0);"
					      "CREATE TRIGGER row_written AFTER UPDATE ON outbox"
					      " BEGIN UPDATE row_writes SET n = n + 1; END;", NULL, NULL, NULL),
				 SQLITE_OK);
		sqlite3_close(raw);
	}

	/* the API down, and a backlog: two lines in each of thirty chats */
	fake_tg_down(f);
	for (int c = 0; c < CHATS; c++)
		for (int k = 0; k < LINES; k++) {
			char chat[16], payload[96];

			snprintf(chat, sizeof(chat), "-100%d", 500 + c);
			snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"chat %d line %d\"}", c, k);
			assert_int_equal(store_out_add(s, "telegram", chat, 0, "", payload, 1000), GB_OK);
		}
	metrics_reset();
	outbox_opts_init(&oo);
	oo.workers = 2;
	oo.backoff_ms = 20;
	oo.probe_max_ms = 200;
	oo.poll_ms = 10;
	assert_int_equal(outbox_start(&ob, &counting, self, db, &oo), GB_OK);

	/* the first deliveries meet the refusal; then only the probe asks */
	wait_for(&probe_calls, 3, 20000);
	delivers = atomic_load(&delivered_calls);
	writes = count_in(db, "SELECT n FROM row_writes");
	assert_true(delivers >= 1 && delivers <= oo.workers);
	wait_for(&probe_calls, 8, 20000);
	assert_int_equal(atomic_load(&delivered_calls), delivers);
	assert_int_equal(count_in(db, "SELECT n FROM row_writes"), writes);
	assert_int_equal(count_in(db, "SELECT count(*) FROM outbox WHERE attempts > 0"), 0);
	assert_int_equal(count_in(db, "SELECT count(*) FROM outbox WHERE aside_ms IS NULL"), CHATS * LINES);
	assert_true(metrics_value("gamebot_outbox_paused", "platform=\"telegram\"") == 1);
	print_message("      while down: %d deliveries tried, %d probes, %lld row writes\n", delivers,
		      atomic_load(&probe_calls), writes);

	/* the API back: everything goes out, once, each chat in its order */
	assert_int_equal(fake_tg_up(f), 0);
	t0 = mono_ms();
	while (pending) {
		assert_int_equal(store_out_count(s, "telegram", &pending, NULL, NULL), GB_OK);
		if (pending && mono_ms() - t0 > 20000)
			fail_msg("%d rows still pending", pending);
		usleep(5000);
	}
	assert_int_equal(fake_tg_count(f, "sendMessage"), CHATS * LINES);
	for (int i = 0; i < CHATS * LINES; i++) {
		json_t *b = fake_tg_nth(f, "sendMessage", i);
		int c = -1, k = -1;

		assert_int_equal(sscanf(json_string_value(json_object_get(b, "text")), "chat %d line %d", &c, &k), 2);
		assert_true(c >= 0 && c < CHATS);
		assert_int_equal(k, seen[c]);
		seen[c]++;
		json_decref(b);
	}
	assert_true(metrics_value("gamebot_outbox_paused", "platform=\"telegram\"") == 0);
	assert_true(metrics_value("gamebot_outbox_probes_total", "platform=\"telegram\",result=\"up\"") >= 1);
	assert_int_equal(count_in(db, "SELECT count(*) FROM outbox WHERE attempts > 0"), 0);

	outbox_stop(ob);
	telegram_adapter.stop(self);
	store_free(s);
	fake_tg_free(f);
	assert_int_equal(fixture_rm(dir), 0);
}

/* ---- outages through the outbox's policy, on a virtual clock ---- */

#define DC_TOKEN "dc-bot-token"
#define DC_APP "111111111111111111"
#define GROUPS 5
#define STEP_MS 250

enum plat { TG, DC };

/* What the fake answers, for either platform. */
enum out { OUT_NONE, OUT_502, OUT_401, OUT_TIMEOUT, OUT_REFUSED };

struct world {
	enum plat p;
	char dir[64], db[128], logpath[160];
	struct config cfg;
	struct adapter_env env;
	struct bot b;
	struct fake_tg *tg;
	struct fake_dc *dc;
	const struct adapter *a;
	void *self;
	struct outbox_gate gate;
	struct outbox_opts o;
	char chats[GROUPS][32];
	int64_t now;                    /* the outbox's clock: virtual */
};

/* Standard error while a test captures it (-1: not captured); a failed test's capture ends at the next start. */
static int saved_err = -1;

static void log_restore(void)
{
	if (saved_err < 0)
		return;
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	saved_err = -1;
}

static void world_start(struct world *w, enum plat p, bool polling)
{
	log_restore();
	memset(w, 0, sizeof(*w));
	w->p = p;
	assert_int_equal(fixture_dir(w->dir, sizeof(w->dir), "outage"), 0);
	snprintf(w->db, sizeof(w->db), "%s/o.db", w->dir);
	snprintf(w->logpath, sizeof(w->logpath), "%s/log", w->dir);
	assert_int_equal(store_open(&w->b.store, w->db), GB_OK);
	bot_config_init(&w->b.cfg);
	config_init(&w->cfg);
	snprintf(w->cfg.db, sizeof(w->cfg.db), "%s", w->db);
	if (p == TG) {
		assert_int_equal(fake_tg_start(&w->tg, TOKEN, "gb_test_bot"), 0);
		snprintf(w->cfg.telegram_token, sizeof(w->cfg.telegram_token), "%s", TOKEN);
		snprintf(w->cfg.telegram_api, sizeof(w->cfg.telegram_api), "%s", fake_tg_url(w->tg));
		snprintf(w->cfg.telegram_mode, sizeof(w->cfg.telegram_mode), polling ? "polling" : "webhook");
		snprintf(w->cfg.telegram_secret, sizeof(w->cfg.telegram_secret), "s3cret");
		snprintf(w->cfg.telegram_pacing, sizeof(w->cfg.telegram_pacing), "off");
		w->a = &telegram_adapter;
	} else {
		unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
		char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];

		assert_true(sodium_init() >= 0);
		crypto_sign_keypair(pk, sk);
		sodium_bin2hex(hex, sizeof(hex), pk, sizeof(pk));
		assert_int_equal(fake_dc_start(&w->dc, DC_TOKEN), 0);
		snprintf(w->cfg.discord_public_key, sizeof(w->cfg.discord_public_key), "%s", hex);
		snprintf(w->cfg.discord_app_id, sizeof(w->cfg.discord_app_id), DC_APP);
		snprintf(w->cfg.discord_token, sizeof(w->cfg.discord_token), DC_TOKEN);
		snprintf(w->cfg.discord_api, sizeof(w->cfg.discord_api), "%s", fake_dc_url(w->dc));
		w->a = &discord_adapter;
	}
	for (int g = 0; g < GROUPS; g++)
		snprintf(w->chats[g], sizeof(w->chats[g]), p == TG ? "-100%d" : "2000000000000000%02d",
			 700 + g);
	w->env.cfg = &w->cfg;
	w->env.bot = w->b.cfg;
	w->env.db = w->db;
	assert_int_equal(w->a->start(&w->env, &w->self), GB_OK);
	/* the outbox's own policy: its defaults, with a gate of the test's */
	outbox_gate_init(&w->gate);
	outbox_opts_init(&w->o);
	w->o.gate = &w->gate;
	w->o.workers = 1;
	w->now = bot_now_ms();
	metrics_reset();
}

static void world_free(struct world *w)
{
	w->a->stop(w->self);
	adapter_bot_release();
	outbox_gate_destroy(&w->gate);
	store_free(w->b.store);
	fake_tg_free(w->tg);
	fake_dc_free(w->dc);
	assert_int_equal(fixture_rm(w->dir), 0);
}

static void outage(struct world *w, enum out kind)
{
	static const enum fake_tg_outage tg[] = { FAKE_TG_ANSWERING, FAKE_TG_OUT_502, FAKE_TG_OUT_401,
						  FAKE_TG_OUT_TIMEOUT, FAKE_TG_OUT_REFUSED };
	static const enum fake_dc_outage dc[] = { FAKE_DC_ANSWERING, FAKE_DC_OUT_502, FAKE_DC_OUT_401,
						  FAKE_DC_OUT_TIMEOUT, FAKE_DC_OUT_REFUSED };

	if (w->p == TG)
		assert_int_equal(fake_tg_outage(w->tg, tg[kind]), 0);
	else
		assert_int_equal(fake_dc_outage(w->dc, dc[kind]), 0);
}

/* A command typed in chat by user, handled at the world's clock. */
static void say(struct world *w, const char *chat, const char *user, const char *line)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", w->p == TG ? "telegram" : "discord");
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "player%s", user);
	assert_int_equal(command_parse_text(&cmd, line), GB_OK);
	cmd.now_ms = w->now;
	assert_int_equal(bot_handle(&w->b, &cmd), GB_OK);
}

/* Rows of chat still pending (not set aside); *tables gets its boards among them. */
static int pending_in(struct world *w, const char *chat, int *tables)
{
	struct store_out rows[64];
	int n = 0;

	assert_int_equal(store_out_chat(w->b.store, w->a->name, chat, rows, 64, &n), GB_OK);
	if (tables)
		*tables = 0;
	for (int i = 0; i < n; i++) {
		if (tables && !strncmp(rows[i].key, "table:", 6))
			(*tables)++;
		store_out_release(&rows[i]);
	}
	return n;
}

/* Messages the platform accepted into chat (posts answered 200). */
static int received_in(struct world *w, const char *chat)
{
	int got = 0;

	for (int i = 0;; i++) {
		char method[64] = "", path[160] = "", want[160];
		int status = 0;
		json_t *body = w->p == TG ? fake_tg_call(w->tg, i, method, sizeof(method), &status)
					  : fake_dc_call(w->dc, i, method, sizeof(method), path, sizeof(path),
							 NULL, 0, &status);

		if (!body)
			break;
		if (w->p == TG) {
			json_t *id = json_object_get(body, "chat_id");
			char idtext[32] = "";

			if (json_is_integer(id))
				snprintf(idtext, sizeof(idtext), "%lld", (long long)json_integer_value(id));
			else if (json_is_string(id))
				snprintf(idtext, sizeof(idtext), "%s", json_string_value(id));
			got += status == 200 && !strcmp(method, "sendMessage") && !strcmp(idtext, chat);
		} else {
			snprintf(want, sizeof(want), "/channels/%s/messages", chat);
			got += status == 200 && !strcmp(method, "POST") && !strcmp(path, want);
		}
		json_decref(body);
	}
	return got;
}

/* Boards (a lobby's "waiting to start") the platform accepted into chat; *newest: one said what. */
static int boards_in(struct world *w, const char *chat, const char *what, bool *newest)
{
	int n = 0;

	*newest = false;
	for (int i = 0;; i++) {
		char method[64] = "", path[160] = "", want[160];
		int status = 0;
		json_t *body = w->p == TG ? fake_tg_call(w->tg, i, method, sizeof(method), &status)
					  : fake_dc_call(w->dc, i, method, sizeof(method), path, sizeof(path),
							 NULL, 0, &status);
		const char *text = json_string_value(json_object_get(body, w->p == TG ? "text" : "content"));

		if (!body)
			break;
		snprintf(want, sizeof(want), "/channels/%s/messages", chat);
		if (status == 200 && text && strstr(text, "waiting to start") &&
		    (w->p == TG ? !strcmp(method, "sendMessage") : !strcmp(path, want))) {
			n++;
			*newest = *newest || strstr(text, what) != NULL;
		}
		json_decref(body);
	}
	return n;
}

/* Calls that carried a message (sendMessage, a channel post) answered with something else than 200. */
static int refused_posts(struct world *w)
{
	int n = 0;

	for (int i = 0;; i++) {
		char method[64] = "", path[160] = "";
		int status = 0;
		json_t *body = w->p == TG ? fake_tg_call(w->tg, i, method, sizeof(method), &status)
					  : fake_dc_call(w->dc, i, method, sizeof(method), path, sizeof(path),
							 NULL, 0, &status);

		if (!body)
			break;
		n += status != 200 && (w->p == TG ? !strcmp(method, "sendMessage")
						  : !strcmp(method, "POST") && !strncmp(path, "/channels/", 10));
		json_decref(body);
	}
	return n;
}

static void log_start(struct world *w)
{
	int fd = open(w->logpath, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	saved_err = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Stop capturing; the log's text (caller frees), echoed. */
static char *log_stop(struct world *w)
{
	FILE *in;
	char *text = calloc(1, 1 << 20);
	size_t n;

	log_restore();
	in = fopen(w->logpath, "r");
	assert_non_null(in);
	assert_non_null(text);
	n = fread(text, 1, (1 << 20) - 1, in);
	text[n] = '\0';
	fclose(in);
	fputs(text, stderr);
	return text;
}

static int occurrences(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Passes of the outbox over ms of virtual time. */
static void run_for(struct world *w, int64_t ms)
{
	for (int64_t end = w->now + ms; w->now < end; w->now += STEP_MS)
		assert_true(outbox_run_once(w->b.store, w->a, w->self, &w->o, w->now) >= 0);
}

/* Passes until nothing is pending (at most ten virtual minutes). */
static void run_until_sent(struct world *w)
{
	int pending = 1;

	for (int i = 0; pending && i < 600000 / STEP_MS; i++) {
		assert_true(outbox_run_once(w->b.store, w->a, w->self, &w->o, w->now) >= 0);
		w->now += STEP_MS;
		assert_int_equal(store_out_count(w->b.store, w->a->name, &pending, NULL, NULL), GB_OK);
	}
	assert_int_equal(pending, 0);
}

/* A series labelled with platform and result. */
static double metric(const char *platform, const char *name, const char *result)
{
	char labels[96];

	snprintf(labels, sizeof(labels), "platform=\"%s\",result=\"%s\"", platform, result);
	return metrics_value(name, labels);
}

struct phase {
	enum out kind;
	int64_t ms;
};

/*
 * Five groups ask for /rules, and the first opens a table whose board two
 * more commands replace, all while the platform is out as phases say;
 * then it answers again. Nothing is lost or counted a try; one line each
 * way.
 */
static void outage_scenario(enum plat p, const struct phase *phases, int nphases)
{
	struct world w;
	int want[GROUPS], tables = 0, aside = -1;
	int64_t total = 0;
	const char *name = p == TG ? "telegram" : "discord";
	char down[64], refused[64], back[64];
	char *log;
	int probes;
	bool newest = false;

	world_start(&w, p, false);
	outage(&w, phases[0].kind);
	for (int g = 0; g < GROUPS; g++)
		say(&w, w.chats[g], "7", "/rules snakes");
	say(&w, w.chats[0], "7", "/new snakes");
	say(&w, w.chats[0], "8", "/join");
	say(&w, w.chats[0], "7", "/addbot");
	for (int g = 0; g < GROUPS; g++)
		want[g] = pending_in(&w, w.chats[g], g ? NULL : &tables);
	/* the newest board took the place of the two before it */
	assert_int_equal(tables, 1);

	log_start(&w);
	for (int i = 0; i < nphases; i++) {
		outage(&w, phases[i].kind);
		run_for(&w, phases[i].ms);
		total += phases[i].ms;
		/* while it is out: paused, nothing given up, nothing counted a try */
		assert_true(metrics_value("gamebot_outbox_paused", p == TG ? "platform=\"telegram\""
									 : "platform=\"discord\"") == 1);
		assert_true(metrics_value("gamebot_platform_unauthorized",
					  p == TG ? "platform=\"telegram\"" : "platform=\"discord\"") ==
			    (phases[i].kind == OUT_401 ? 1 : 0));
	}
	outage(&w, OUT_NONE);
	run_until_sent(&w);
	log = log_stop(&w);

	assert_int_equal(store_out_count(w.b.store, name, NULL, &aside, NULL), GB_OK);
	assert_int_equal(aside, 0);
	for (int g = 0; g < GROUPS; g++)
		assert_int_equal(received_in(&w, w.chats[g]), want[g]);
	/* one board went, the newest: the computer seated last is on it */
	assert_int_equal(boards_in(&w, w.chats[0], "Bot 3", &newest), 1);
	assert_true(newest);
	/* one message met the outage; after it, only probes asked */
	assert_int_equal(refused_posts(&w), phases[0].kind == OUT_REFUSED ? 0 : 1);
	assert_true(metric(name, "gamebot_deliveries_total", "retried") == 0);
	assert_true(metric(name, "gamebot_deliveries_total", "set_aside") == 0);
	probes = (int)(metric(name, "gamebot_outbox_probes_total", "up") +
		       metric(name, "gamebot_outbox_probes_total", "down") +
		       metric(name, "gamebot_outbox_probes_total", "unauthorized"));
	/* a probe at least every ten seconds, and not many more (the backoff doubles to ten) */
	assert_true(probes >= total / 10000 && probes <= total / 10000 + 12);
	snprintf(down, sizeof(down), "%s is down", name);
	snprintf(refused, sizeof(refused), "%s refuses the service's credentials", name);
	snprintf(back, sizeof(back), "%s answers again", name);
	assert_int_equal(occurrences(log, down) + occurrences(log, refused), 1);
	assert_int_equal(occurrences(log, back), 1);
	assert_int_equal(occurrences(log, "given up"), 0);
	print_message("      %s out %lld s (virtual): %d probes, every reply delivered after\n", name,
		      (long long)(total / 1000), probes);
	free(log);
	world_free(&w);
}

static void test_telegram_80s_timeouts_then_502(void **state)
{
	/* the first call and the probe at once meet no answer in time; then 502s */
	const struct phase phases[] = { { OUT_TIMEOUT, STEP_MS }, { OUT_502, 80000 } };

	(void)state;
	outage_scenario(TG, phases, 2);
}

static void test_telegram_10min_502_refused_502(void **state)
{
	const struct phase phases[] = { { OUT_502, 200000 }, { OUT_REFUSED, 200000 }, { OUT_502, 200000 } };

	(void)state;
	outage_scenario(TG, phases, 3);
}

static void test_telegram_10min_revoked_token(void **state)
{
	const struct phase phases[] = { { OUT_401, 600000 } };

	(void)state;
	outage_scenario(TG, phases, 1);
}

static void test_discord_80s_502_then_refused(void **state)
{
	const struct phase phases[] = { { OUT_502, 40000 }, { OUT_REFUSED, 40000 } };

	(void)state;
	outage_scenario(DC, phases, 2);
}

static void test_discord_10min_revoked_token(void **state)
{
	const struct phase phases[] = { { OUT_401, 600000 } };

	(void)state;
	outage_scenario(DC, phases, 1);
}

/* ---- Discord's 401: calls stop at once, and the workers' gate says so ---- */

static void test_discord_401_stops_calls_at_once(void **state)
{
	struct world w;
	struct outbox *ob = NULL;
	struct outbox_opts oo;
	bool unauthorized = false;
	int posts, probes, pending = 1;
	int64_t t0;

	(void)state;
	world_start(&w, DC, false);
	outage(&w, OUT_401);
	for (int g = 0; g < GROUPS; g++)
		say(&w, w.chats[g], "7", "/rules ludo");
	outbox_opts_init(&oo);
	oo.workers = 2;
	oo.backoff_ms = 20;
	oo.probe_max_ms = 200;
	oo.poll_ms = 10;
	assert_int_equal(outbox_start(&ob, &discord_adapter, w.self, w.db, &oo), GB_OK);
	t0 = mono_ms();
	/* the gate shuts first, its gauge is set just after */
	while (!outbox_paused(ob, &unauthorized) || !unauthorized ||
	       metrics_value("gamebot_platform_unauthorized", "platform=\"discord\"") != 1) {
		if (mono_ms() - t0 > 20000)
			fail_msg("the outbox did not pause for the 401s");
		usleep(2000);
	}
	/* a few probes later: no channel call more than the ones that met the 401 */
	probes = fake_dc_count(w.dc, "GET", "/users/@me");
	assert_true(fake_dc_wait(w.dc, "GET", "/users/@me", probes + 3, 20000) >= probes + 3);
	posts = fake_dc_count(w.dc, "POST", "/channels/");
	assert_true(posts >= 1 && posts <= oo.workers);
	assert_true(outbox_paused(ob, &unauthorized) && unauthorized);

	/* the token is good again: the next probe lets the rows out */
	outage(&w, OUT_NONE);
	t0 = mono_ms();
	while (pending) {
		assert_int_equal(store_out_count(w.b.store, "discord", &pending, NULL, NULL), GB_OK);
		if (pending && mono_ms() - t0 > 20000)
			fail_msg("%d rows still pending", pending);
		usleep(5000);
	}
	assert_false(outbox_paused(ob, &unauthorized));
	assert_false(unauthorized);
	t0 = mono_ms();
	while (metrics_value("gamebot_platform_unauthorized", "platform=\"discord\"") != 0) {
		if (mono_ms() - t0 > 20000)
			fail_msg("the unauthorized gauge stayed up");
		usleep(2000);
	}
	for (int g = 0; g < GROUPS; g++)
		assert_int_equal(received_in(&w, w.chats[g]), 1);
	outbox_stop(ob);
	world_free(&w);
}

/* ---- Telegram's long polling and a 429 ---- */

static void test_polling_waits_out_retry_after(void **state)
{
	struct world w;
	int at429 = -1, next = -1;

	(void)state;
	world_start(&w, TG, true);
	fake_tg_fault(w.tg, "getUpdates", 0, 1, FAKE_TG_429, 2);
	/* ends a long poll in progress, so the fault meets the next one at once */
	fake_tg_push_update(w.tg, "{\"edited_message\":{\"message_id\":1}}");
	assert_true(fake_tg_wait(w.tg, "getUpdates", 3, 20000) >= 3);
	/* wait until the call after the 429 is there */
	for (int tries = 0; next < 0 && tries < 2000; tries++) {
		for (int i = 0; at429 < 0 || next < 0; i++) {
			char method[64];
			int status = 0;
			json_t *b = fake_tg_call(w.tg, i, method, sizeof(method), &status);

			if (!b)
				break;
			json_decref(b);
			if (strcmp(method, "getUpdates"))
				continue;
			if (at429 < 0 && status == 429)
				at429 = i;
			else if (at429 >= 0 && i > at429)
				next = i;
		}
		if (next < 0)
			usleep(10000);
	}
	assert_true(at429 >= 0 && next > at429);
	/* asked again no sooner than the 2 s Telegram said (before: after half a second) */
	assert_true(fake_tg_call_ms(w.tg, next) - fake_tg_call_ms(w.tg, at429) >= 1950);
	world_free(&w);
}

/* ---- a chat the bot was removed from ---- */

/* A staked table started in chat: two players, 10 coins each in its pot. */
static int64_t staked_table(struct world *w, const char *chat)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	int64_t id;

	say(w, chat, "7", "/new snakes");
	say(w, chat, "7", "/stake 10");
	say(w, chat, "8", "/join");
	say(w, chat, "7", "/start");
	assert_int_equal(store_chat_get(w->b.store, w->a->name, chat, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(w->b.store, c.id, &t), GB_OK);
	id = t.id;
	store_table_release(&t);
	store_chat_release(&c);
	return id;
}

static int64_t balance(struct world *w, const char *chat, const char *account)
{
	struct store_chat c = { 0 };
	int64_t v = -1;

	assert_int_equal(store_chat_get(w->b.store, w->a->name, chat, "en", &c), GB_OK);
	assert_int_equal(store_coins_balance(w->b.store, c.id, account, &v, NULL), GB_OK);
	store_chat_release(&c);
	return v;
}

/* chat's table stopped, every stake back, nothing left to send there. */
static void assert_gone(struct world *w, const char *chat, int64_t table)
{
	struct store_table t = { 0 };
	char pot[32];

	assert_int_equal(store_table_get(w->b.store, table, &t), GB_OK);
	assert_int_equal(t.status, STORE_OVER);
	store_table_release(&t);
	snprintf(pot, sizeof(pot), "pot:%lld", (long long)table);
	assert_int_equal(balance(w, chat, pot), 0);
	assert_int_equal(balance(w, chat, "user:7"), 1000);
	assert_int_equal(balance(w, chat, "user:8"), 1000);
	assert_int_equal(pending_in(w, chat, NULL), 0);
}

static void test_telegram_kicked_update_stops_the_table(void **state)
{
	struct world w;
	int64_t table, t0;
	struct store_table t = { 0 };
	int aside = 0;

	(void)state;
	world_start(&w, TG, true);
	table = staked_table(&w, w.chats[0]);
	assert_int_equal(balance(&w, w.chats[0], "user:7"), 990);
	assert_true(pending_in(&w, w.chats[0], NULL) > 0);
	fake_tg_push_update(w.tg, "{\"my_chat_member\":{\"chat\":{\"id\":-100700,\"type\":\"supergroup\"},"
			    "\"from\":{\"id\":7,\"first_name\":\"Admin\"},\"date\":1,"
			    "\"old_chat_member\":{\"user\":{\"id\":4242,\"is_bot\":true},\"status\":\"member\"},"
			    "\"new_chat_member\":{\"user\":{\"id\":4242,\"is_bot\":true},\"status\":\"kicked\"}}}");
	t0 = mono_ms();
	for (;;) {
		assert_int_equal(store_table_get(w.b.store, table, &t), GB_OK);
		if (t.status == STORE_OVER)
			break;
		store_table_release(&t);
		if (mono_ms() - t0 > 20000)
			fail_msg("the table was not stopped");
		usleep(10000);
	}
	store_table_release(&t);
	/* give the poller the moment it needs to finish with the chat's rows */
	t0 = mono_ms();
	while (pending_in(&w, w.chats[0], NULL) && mono_ms() - t0 < 20000)
		usleep(10000);
	assert_gone(&w, w.chats[0], table);
	assert_int_equal(store_out_count(w.b.store, "telegram", NULL, &aside, NULL), GB_OK);
	assert_true(aside > 0);
	world_free(&w);
}

/* A delivery meets the platform's word that the chat is gone (fault set by the caller). */
static void chat_gone_on_delivery(struct world *w)
{
	int64_t table = staked_table(w, w->chats[0]);

	say(w, w->chats[1], "7", "/rules snakes");
	run_until_sent(w);
	assert_gone(w, w->chats[0], table);
	assert_int_equal(received_in(w, w->chats[0]), 0);
	assert_int_equal(received_in(w, w->chats[1]), 1);
}

/* Telegram answering the group's next message with fault: the group is gone. */
static void telegram_gone_on(enum fake_tg_fault fault)
{
	struct world w;

	world_start(&w, TG, false);
	fake_tg_fault(w.tg, "sendMessage", 0, 1, fault, 0);
	chat_gone_on_delivery(&w);
	world_free(&w);
}

static void test_telegram_kicked_403_stops_the_table(void **state)
{
	(void)state;
	telegram_gone_on(FAKE_TG_KICKED);
}

/* A group deleted (403 "the group chat was deleted") is a removal too. */
static void test_telegram_deleted_group_stops_the_table(void **state)
{
	(void)state;
	telegram_gone_on(FAKE_TG_DELETED);
}

static void test_discord_unknown_channel_stops_the_table(void **state)
{
	struct world w;
	char prefix[64];

	(void)state;
	world_start(&w, DC, false);
	snprintf(prefix, sizeof(prefix), "/channels/%s/", w.chats[0]);
	fake_dc_fault(w.dc, NULL, prefix, 0, 100, FAKE_DC_UNKNOWN_CHANNEL, 0);
	chat_gone_on_delivery(&w);
	/* one call met the channel's end: none for each of its later rows */
	assert_true(fake_dc_count(w.dc, NULL, prefix) <= 2);
	world_free(&w);
}

/*
 * Discord's 403s into a channel - 50001 Missing Access, 50013 Missing
 * Permissions - are that channel's (the bot user is not there, or may not
 * post): its rows, with no interaction to carry them, are set aside after
 * one call each; the platform is not paused, no probe asks, no row counts
 * an attempt, and the other channels' rows go out.
 */
static void test_discord_missing_access_is_the_channels(void **state)
{
	struct world w;
	int pending = 1, aside = -1;
	char prefix[64];

	(void)state;
	world_start(&w, DC, false);
	fake_dc_deny_channel(w.dc, w.chats[0], 50001);
	fake_dc_deny_channel(w.dc, w.chats[1], 50013);
	for (int g = 0; g < GROUPS; g++)
		say(&w, w.chats[g], "7", "/rules ludo");
	for (int i = 0; pending && i < 600000 / STEP_MS; i++) {
		assert_true(outbox_run_once(w.b.store, w.a, w.self, &w.o, w.now) >= 0);
		w.now += STEP_MS;
		assert_true(metrics_value("gamebot_outbox_paused", "platform=\"discord\"") == 0);
		assert_int_equal(store_out_count(w.b.store, "discord", &pending, &aside, NULL), GB_OK);
	}
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 2);
	for (int g = 0; g < 2; g++) {
		snprintf(prefix, sizeof(prefix), "/channels/%s/", w.chats[g]);
		assert_int_equal(fake_dc_count(w.dc, NULL, prefix), 1);
		assert_int_equal(received_in(&w, w.chats[g]), 0);
	}
	for (int g = 2; g < GROUPS; g++)
		assert_int_equal(received_in(&w, w.chats[g]), 1);
	assert_int_equal(fake_dc_count(w.dc, "GET", "/users/@me"), 0);
	assert_true(metric("discord", "gamebot_outbox_probes_total", "down") == 0);
	assert_true(metric("discord", "gamebot_outbox_probes_total", "up") == 0);
	assert_true(metric("discord", "gamebot_deliveries_total", "retried") == 0);
	assert_true(metric("discord", "gamebot_deliveries_total", "set_aside") == 2);
	world_free(&w);
}

/* ---- Discord's 429s and gone webhooks ---- */

/* Deliver the one row due now directly; its outcome into d. */
static void deliver_one(struct world *w, struct delivery *d)
{
	struct store_out row;
	int n = 0;

	assert_int_equal(store_out_claim(w->b.store, w->a->name, w->now, 30000, &row, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	w->a->deliver(w->self, w->b.store, &row, d);
	assert_int_equal(store_out_done(w->b.store, row.id), GB_OK);
	store_out_release(&row);
}

static void test_discord_429_without_json_waits_retry_after(void **state)
{
	struct world w;
	struct delivery d;

	(void)state;
	world_start(&w, DC, false);
	fake_dc_fault(w.dc, "POST", "/channels/", 0, 1, FAKE_DC_429_TEXT, 3);
	say(&w, w.chats[0], "7", "/rules snakes");
	deliver_one(&w, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 3000);
	/* from in front of Discord, for the address: every channel waits */
	assert_true(d.global);
	world_free(&w);
}

static void test_discord_429_of_hours_is_believed(void **state)
{
	struct world w;
	struct delivery d;

	(void)state;
	world_start(&w, DC, false);
	fake_dc_fault(w.dc, "POST", "/channels/", 0, 1, FAKE_DC_429, 2L * 3600 * 1000);
	say(&w, w.chats[0], "7", "/rules snakes");
	deliver_one(&w, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 2LL * 3600 * 1000);
	world_free(&w);
}

static void test_discord_gone_webhook_never_called_again(void **state)
{
	struct world w;
	struct delivery d;
	char payload[256];
	long long iid = (long long)((bot_now_ms() - 1420070400000LL) << 22);

	(void)state;
	world_start(&w, DC, false);
	fake_dc_expire_token(w.dc, "tok-gone");
	snprintf(payload, sizeof(payload),
		 "{\"kind\":\"public\",\"text\":\"one\",\"origin\":\"%lld:7:tok-gone\"}", iid);
	assert_int_equal(store_out_add(w.b.store, "discord", w.chats[0], 0, "", payload, w.now), GB_OK);
	deliver_one(&w, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w.dc, "POST", "/webhooks/"), 1);
	assert_int_equal(received_in(&w, w.chats[0]), 1);
	/* the same interaction's next row goes as the bot at once */
	assert_int_equal(store_out_add(w.b.store, "discord", w.chats[0], 0, "", payload, w.now), GB_OK);
	deliver_one(&w, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w.dc, "POST", "/webhooks/"), 1);
	assert_int_equal(received_in(&w, w.chats[0]), 2);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform_down_one_probe_then_in_order),
		cmocka_unit_test(test_telegram_80s_timeouts_then_502),
		cmocka_unit_test(test_telegram_10min_502_refused_502),
		cmocka_unit_test(test_telegram_10min_revoked_token),
		cmocka_unit_test(test_discord_80s_502_then_refused),
		cmocka_unit_test(test_discord_10min_revoked_token),
		cmocka_unit_test(test_discord_401_stops_calls_at_once),
		cmocka_unit_test(test_polling_waits_out_retry_after),
		cmocka_unit_test(test_telegram_kicked_update_stops_the_table),
		cmocka_unit_test(test_telegram_kicked_403_stops_the_table),
		cmocka_unit_test(test_telegram_deleted_group_stops_the_table),
		cmocka_unit_test(test_discord_unknown_channel_stops_the_table),
		cmocka_unit_test(test_discord_missing_access_is_the_channels),
		cmocka_unit_test(test_discord_429_without_json_waits_retry_after),
		cmocka_unit_test(test_discord_429_of_hours_is_believed),
		cmocka_unit_test(test_discord_gone_webhook_never_called_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
