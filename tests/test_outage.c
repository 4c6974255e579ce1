/*
 * test_outage.c - a platform that cannot be reached is down for all its
 * rows, not for each one: against the fake Bot API on 127.0.0.1 stopped
 * (connections refused) and started again, with the real Telegram adapter
 * and the outbox's worker threads on a real SQLite file. While it is down
 * no row is tried, written or counted an attempt - one probe asks, with a
 * backoff - and when it answers again every row goes out, each chat's in
 * its order, once.
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
#include <sqlite3.h>

#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/metrics.h"
#include "tests/fake_telegram.h"

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
	char dir[64] = "/tmp/gamebot-outage-XXXXXX", db[128], cmd[128];
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
	assert_non_null(mkdtemp(dir));
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
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform_down_one_probe_then_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
