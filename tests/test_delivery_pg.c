/*
 * test_delivery_pg.c - delivery by two instances sharing one PostgreSQL
 * database: each message sent once, each chat's in its order.
 *
 * Two instances here are two Telegram adapters in the test process, each
 * with its own outbox (two workers, each worker its own store handle) on
 * one PostgreSQL schema, delivering to the fake Bot API on 127.0.0.1:
 *   - a delivery whose two calls are slower together than the row's lease
 *     (the lease race tests/test_telegram.c runs with threads on SQLite):
 *     every call ends before the lease does, so the other instance never
 *     claims the row while it is in hand, and the table is posted once;
 *   - a message in doubt (its answer never came) followed by a probe that
 *     answers slowly: the row stays leased while the probe is asked, past
 *     the lease it was claimed with, so it is set aside, not sent again by
 *     the other instance;
 *   - an outage both instances meet (calls held unanswered past their
 *     time limit, then connections refused): each pauses behind its own
 *     probe, no row is tried, counted an attempt or set aside while the
 *     platform is down, and when it answers again every line goes out
 *     once, each chat's in its order.
 *
 * Every test gets a fresh schema in the database GAMEBOT_TEST_PG names
 * (tests/pg.sh starts a throwaway server for make test); without a server
 * every test fails, none is skipped.
 */
#include <jansson.h>
#include <libpq-fe.h>
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

#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/base/metrics.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/pgadmin.h"

#define TOKEN "123456:TEST-token_xyz"
#define INSTANCES 2
#define CHATS 20
#define LINES 3

struct instance {
	struct adapter_env env;
	void *self;                    /* its Telegram adapter */
	struct outbox *ob;             /* its delivery workers */
};

struct fix {
	char schema[64];
	char db[1024];                 /* the server's URL with search_path set to schema */
	struct fake_tg *f;
	struct config cfg;
	struct store *s;               /* the test's own handle */
	struct instance in[INSTANCES];
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A fresh schema, the fake Bot API, and INSTANCES adapters with outboxes whose lease is lease_ms. */
static int setup_lease(void **state, int64_t lease_ms)
{
	static int counter;
	const char *base = getenv("GAMEBOT_TEST_PG");
	struct fix *x = calloc(1, sizeof(*x));
	struct outbox_opts oo;
	char sql[256];

	assert_non_null(x);
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server (make test starts one through tests/pg.sh)");
	snprintf(x->schema, sizeof(x->schema), "delivery_%ld_%d", (long)getpid(), counter++);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", x->schema, x->schema);
	assert_int_equal(pg_admin(base, sql), 0);
	snprintf(x->db, sizeof(x->db), "%s%soptions=-csearch_path%%3D%s", base, strchr(base, '?') ? "&" : "?",
		 x->schema);
	/* the schema made before any instance starts */
	assert_int_equal(store_open(&x->s, x->db), GB_OK);
	assert_int_equal(fake_tg_start(&x->f, TOKEN, "gb_test_bot"), 0);
	config_init(&x->cfg);
	snprintf(x->cfg.telegram_token, sizeof(x->cfg.telegram_token), "%s", TOKEN);
	snprintf(x->cfg.telegram_api, sizeof(x->cfg.telegram_api), "%s", fake_tg_url(x->f));
	snprintf(x->cfg.telegram_mode, sizeof(x->cfg.telegram_mode), "webhook");
	snprintf(x->cfg.telegram_secret, sizeof(x->cfg.telegram_secret), "s3cret");
	snprintf(x->cfg.telegram_pacing, sizeof(x->cfg.telegram_pacing), "off");
	outbox_opts_init(&oo);
	oo.workers = 2;
	oo.poll_ms = 10;
	oo.backoff_ms = 20;
	oo.backoff_max_ms = 200;
	oo.probe_max_ms = 200;
	oo.max_attempts = 1000;
	oo.lease_ms = lease_ms;
	for (int i = 0; i < INSTANCES; i++) {
		struct instance *in = &x->in[i];

		in->env.cfg = &x->cfg;
		bot_config_init(&in->env.bot);
		in->env.db = x->db;
		assert_int_equal(telegram_adapter.start(&in->env, &in->self), GB_OK);
		assert_int_equal(outbox_start(&in->ob, &telegram_adapter, in->self, x->db, &oo), GB_OK);
	}
	fake_tg_clear(x->f);
	metrics_reset();
	*state = x;
	return 0;
}

static int setup_lease4(void **state)
{
	return setup_lease(state, 4000);
}

static int setup_lease3(void **state)
{
	return setup_lease(state, 3000);
}

static int teardown(void **state)
{
	struct fix *x = *state;
	char sql[128];

	for (int i = 0; i < INSTANCES; i++) {
		outbox_stop(x->in[i].ob);
		telegram_adapter.stop(x->in[i].self);
	}
	store_free(x->s);
	fake_tg_free(x->f);
	snprintf(sql, sizeof(sql), "DROP SCHEMA %s CASCADE", x->schema);
	pg_admin(getenv("GAMEBOT_TEST_PG"), sql);
	free(x);
	return 0;
}

/* One number from the database (sql with $1 = param, or none), on a connection of the test's own. */
static long long pg_number(struct fix *x, const char *sql, const char *param)
{
	PGconn *c = PQconnectdb(x->db);
	PGresult *res = PQexecParams(c, sql, param ? 1 : 0, NULL, param ? &param : NULL, NULL, NULL, 0);
	long long v;

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	assert_int_equal(PQntuples(res), 1);
	v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	PQfinish(c);
	return v;
}

static void wake_all(struct fix *x)
{
	for (int i = 0; i < INSTANCES; i++)
		outbox_wake(x->in[i].ob);
}

/* Wait (bounded) until nothing is pending: delivered or set aside. */
static void wait_nothing_pending(struct fix *x, int timeout_ms)
{
	int64_t t0 = mono_ms();
	int pending = 1;

	for (;;) {
		assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
		if (!pending)
			return;
		if (mono_ms() - t0 > timeout_ms) {
			fake_tg_dump(x->f);
			fail_msg("%d rows still pending", pending);
		}
		usleep(5000);
	}
}

/* sendMessage calls answered 200 whose text holds needle. */
static int sent(struct fix *x, const char *needle)
{
	char method[64];
	int n = 0;

	for (int i = 0;; i++) {
		int status = 0;
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), &status);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (!b)
			break;
		n += status == 200 && !strcmp(method, "sendMessage") && text && strstr(text, needle);
		json_decref(b);
	}
	return n;
}

/*
 * A table posted afresh (a repost), then its old message's buttons
 * stripped, each call 2.5 s: together longer than the lease (4 s). The
 * instance that holds the row ends both calls before its lease does, so
 * the other never claims it meanwhile: the board is posted once.
 */
static void lease_outlasted_by_slow_calls_sent_once(void **state)
{
	struct fix *x = *state;
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	char payload[160];

	assert_int_equal(store_chat_get(x->s, "telegram", "-1001", "en", &c), GB_OK);
	t.chat = c.id;
	store_chat_release(&c);
	snprintf(t.game, sizeof(t.game), "ludo");
	t.status = STORE_OVER;
	assert_int_equal(store_table_insert(x->s, &t), GB_OK);
	assert_int_equal(store_table_set_message(x->s, t.id, "100"), GB_OK);
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 2500);
	fake_tg_fault(x->f, "editMessageReplyMarkup", 0, 1, FAKE_TG_SLOW, 2500);
	snprintf(payload, sizeof(payload),
		 "{\"kind\":\"table\",\"text\":\"board R\",\"table\":%lld,\"turn\":0,\"repost\":true}",
		 (long long)t.id);
	assert_int_equal(store_out_add(x->s, "telegram", "-1001", t.id, NULL, payload, 1), GB_OK);
	store_table_release(&t);
	wake_all(x);
	wait_nothing_pending(x, 30000);
	assert_true(fake_tg_quiet(x->f, 20000));
	assert_int_equal(sent(x, "board R"), 1);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
}

/*
 * A message whose request went out and whose answer never came (held 5 s,
 * the call gives up at 2.7 s of a 3 s lease) is in doubt; the probe that
 * follows answers, slowly (2.5 s), so Telegram was slow, not down, and the
 * message is set aside. The row stays the worker's while it asks - past
 * the lease it was claimed with - so the other instance never claims it
 * and sends it again: the chat sees it once.
 */
static void probe_after_a_send_in_doubt_keeps_the_row(void **state)
{
	struct fix *x = *state;
	int aside = 0;

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 5000);
	fake_tg_fault(x->f, "getMe", 0, 1, FAKE_TG_SLOW, 2500);
	assert_int_equal(store_out_add(x->s, "telegram", "-1001", 0, NULL,
				       "{\"kind\":\"public\",\"text\":\"slow news\"}", 1), GB_OK);
	wake_all(x);
	wait_nothing_pending(x, 30000);
	assert_true(fake_tg_quiet(x->f, 20000));
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
	assert_int_equal(store_out_count(x->s, "telegram", NULL, &aside, NULL), GB_OK);
	assert_int_equal(aside, 1);
}

/* Wait (bounded) until every instance is paused behind its probe (paused) or none is. */
static void wait_paused(struct fix *x, bool paused)
{
	int64_t t0 = mono_ms();

	for (int i = 0; i < INSTANCES; i++) {
		while (outbox_paused(x->in[i].ob, NULL) != paused) {
			if (mono_ms() - t0 > 60000)
				fail_msg("instance %d is %s", i, paused ? "not paused" : "still paused");
			usleep(5000);
		}
	}
}

/* Rows under a lease now: a delivery in some worker's hands. */
static long long leased(struct fix *x)
{
	char now[32];

	snprintf(now, sizeof(now), "%lld", (long long)bot_now_ms());
	return pg_number(x, "SELECT count(*) FROM outbox WHERE lease_until_ms > $1::bigint", now);
}

/* Probes that found the platform down, by either instance. */
static double down_probes(void)
{
	return metrics_value("gamebot_outbox_probes_total", "platform=\"telegram\",result=\"down\"");
}

static void outage_met_by_both_nothing_lost_or_doubled(void **state)
{
	struct fix *x = *state;
	int64_t t0;
	long long writes;
	double probes;
	int seen[CHATS] = { 0 };
	char method[64];

	/* every write to an outbox row (a claim, a retry, a hand-back) counted by the database */
	assert_int_equal(pg_admin(x->db, "CREATE TABLE row_writes (n BIGINT NOT NULL);"
				  "INSERT INTO row_writes VALUES (0);"
				  "CREATE FUNCTION row_written() RETURNS trigger LANGUAGE plpgsql AS"
				  " $$BEGIN UPDATE row_writes SET n = n + 1; RETURN NULL; END$$;"
				  "CREATE TRIGGER row_written AFTER UPDATE ON outbox"
				  " FOR EACH ROW EXECUTE PROCEDURE row_written()"),
			 0);

	/* the Bot API holds every call past its time limit; a backlog in twenty chats */
	assert_int_equal(fake_tg_outage(x->f, FAKE_TG_OUT_TIMEOUT), 0);
	for (int c = 0; c < CHATS; c++)
		for (int k = 0; k < LINES; k++) {
			char chat[16], payload[96];

			snprintf(chat, sizeof(chat), "-100%d", 500 + c);
			snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"chat %d line %d\"}", c, k);
			assert_int_equal(store_out_add(x->s, "telegram", chat, 0, "", payload, 1000), GB_OK);
		}
	wake_all(x);
	/* each instance meets it (sends in doubt among its calls) and pauses behind its own probe */
	wait_paused(x, true);
	t0 = mono_ms();
	while (leased(x)) {
		if (mono_ms() - t0 > 30000)
			fail_msg("rows still leased while both instances are paused");
		usleep(10000);
	}
	assert_int_equal(pg_number(x, "SELECT count(*) FROM outbox WHERE attempts > 0", NULL), 0);
	assert_int_equal(pg_number(x, "SELECT count(*) FROM outbox WHERE aside_ms IS NOT NULL", NULL), 0);
	assert_int_equal(pg_number(x, "SELECT count(*) FROM outbox", NULL), CHATS * LINES);

	/* then it refuses connections: only the probes ask, and no row is written */
	assert_int_equal(fake_tg_outage(x->f, FAKE_TG_OUT_REFUSED), 0);
	wait_paused(x, true);
	writes = pg_number(x, "SELECT n FROM row_writes", NULL);
	probes = down_probes();
	t0 = mono_ms();
	while (down_probes() < probes + 4 * INSTANCES) {
		if (mono_ms() - t0 > 30000)
			fail_msg("no probes while the platform is down");
		usleep(5000);
	}
	assert_int_equal(pg_number(x, "SELECT n FROM row_writes", NULL), writes);
	assert_int_equal(pg_number(x, "SELECT count(*) FROM outbox WHERE attempts > 0", NULL), 0);
	assert_true(outbox_paused(x->in[0].ob, NULL) && outbox_paused(x->in[1].ob, NULL));

	/* it answers again: every line once, each chat's in its order, by whichever instance */
	assert_int_equal(fake_tg_outage(x->f, FAKE_TG_ANSWERING), 0);
	wait_nothing_pending(x, 60000);
	wait_paused(x, false);
	assert_int_equal(pg_number(x, "SELECT count(*) FROM outbox", NULL), 0);
	for (int i = 0;; i++) {
		int status = 0, c = -1, k = -1;
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), &status);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (!b)
			break;
		if (status == 200 && !strcmp(method, "sendMessage")) {
			assert_int_equal(sscanf(text, "chat %d line %d", &c, &k), 2);
			assert_true(c >= 0 && c < CHATS);
			assert_int_equal(k, seen[c]);
			seen[c]++;
		}
		json_decref(b);
	}
	for (int c = 0; c < CHATS; c++)
		assert_int_equal(seen[c], LINES);
	assert_true(metrics_value("gamebot_deliveries_total", "platform=\"telegram\",result=\"set_aside\"") == 0);
	assert_true(metrics_value("gamebot_deliveries_total", "platform=\"telegram\",result=\"retried\"") == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lease_outlasted_by_slow_calls_sent_once, setup_lease4, teardown),
		cmocka_unit_test_setup_teardown(probe_after_a_send_in_doubt_keeps_the_row, setup_lease3, teardown),
		cmocka_unit_test_setup_teardown(outage_met_by_both_nothing_lost_or_doubled, setup_lease3,
						teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
