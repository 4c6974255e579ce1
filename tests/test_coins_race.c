/*
 * test_coins_race.c - the coins' promises under commands that race, held
 * where the coins are written: the router reads a wallet outside the
 * write transaction, so two commands may both decide on what neither has
 * written yet. The store's schema refuses what would break the ledger, and
 * the command runs again on what the store holds.
 *
 *   - many new members sending /wallet at once, several times each: each
 *     is given the starting grant once, and every answer shows it;
 *   - two staked tables started at once in two topics of one forum group
 *     (the topics share the group's wallets) by a person whose wallet
 *     covers one stake: one starts, the other is refused with the reason,
 *     and the wallet never goes below 0.
 *
 * Each runs on SQLite (threads, each with its own handle on one file) and
 * on PostgreSQL (the same with a connection each, as instances of the
 * service have: a fresh schema in GAMEBOT_TEST_PG, which make test starts
 * through tests/pg.sh; without it the PostgreSQL group fails). Every run
 * ends with `gamebot audit` finding the ledger sound.
 */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/bot.h"
#include "bot/tools/audit.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/pgadmin.h"
#include "tests/fixture.h"

#define SIDES 4                  /* threads (instances), each with its own store handle */
#define PEOPLE 40                /* new members racing /wallet */
#define ROUNDS 6                 /* forum groups racing two staked tables */

static const char *backend = "sqlite";

struct fixture {
	char dir[64];                  /* SQLite: the test's folder */
	char schema[64];               /* PostgreSQL: the test's schema */
	char db[1024];                 /* what every side opens */
	struct bot b[SIDES];
	struct store *s;               /* the test's own handle */
};

static int setup(void **state)
{
	static int counter;
	struct fixture *f = calloc(1, sizeof *f);
	char sql[256];

	assert_non_null(f);
	if (!strcmp(backend, "postgresql")) {
		const char *base = getenv("GAMEBOT_TEST_PG");

		if (!base || !base[0])
			fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server"
				 " (make test starts one through tests/pg.sh)");
		snprintf(f->schema, sizeof f->schema, "coinrace_%ld_%d", (long)getpid(), counter++);
		snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", f->schema,
			 f->schema);
		assert_int_equal(pg_admin(base, sql), 0);
		snprintf(f->db, sizeof f->db, "%s%soptions=-csearch_path%%3D%s", base,
			 strchr(base, '?') ? "&" : "?", f->schema);
	} else {
		assert_int_equal(fixture_dir(f->dir, sizeof(f->dir), "coinrace"), 0);
		snprintf(f->db, sizeof f->db, "%s/coins.db", f->dir);
	}
	assert_int_equal(store_open(&f->s, f->db), GB_OK);
	for (int i = 0; i < SIDES; i++) {
		bot_config_init(&f->b[i].cfg);
		f->b[i].cfg.seed = 3;
		/* every member as fast as they like */
		f->b[i].cfg.rate_user_per_min = 0;
		f->b[i].cfg.rate_chat_per_min = 0;
		assert_int_equal(store_open(&f->b[i].store, f->db), GB_OK);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[256];
	int rc = fixture_audit(f->s);

	for (int i = 0; i < SIDES; i++)
		store_free(f->b[i].store);
	store_free(f->s);
	if (f->schema[0]) {
		snprintf(cmd, sizeof cmd, "DROP SCHEMA %s CASCADE", f->schema);
		pg_admin(getenv("GAMEBOT_TEST_PG"), cmd);
	} else {
		assert_int_equal(fixture_rm(f->dir), 0);
	}
	free(f);
	return rc;
}

/* `gamebot audit --db` on the fixture's database: it must find the ledger sound. */
static void audit_sound(struct fixture *f)
{
	char *argv[] = { "audit", "--db", f->db, NULL };

	assert_int_equal(audit_main(3, argv, "", stdout, stderr), 0);
}

/* user (named user too) sends text in chat (a place: "group#topic") through side b. */
static int send_as(struct bot *b, const char *chat, const char *user, const char *text, int64_t now)
{
	struct command cmd;

	memset(&cmd, 0, sizeof cmd);
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof cmd.platform, "test");
	snprintf(cmd.chat, sizeof cmd.chat, "%s", chat);
	snprintf(cmd.user, sizeof cmd.user, "%s", user);
	snprintf(cmd.user_name, sizeof cmd.user_name, "%s", user);
	cmd.now_ms = now;
	return bot_handle(b, &cmd);
}

/* Every reply queued so far, its text one line each (taken out of the outbox); caller frees. */
static char *drain(struct store *s)
{
	struct store_out rows[64];
	struct strbuf sb = { 0 };
	int n = 0;

	sb_add(&sb, "");
	do {
		assert_int_equal(store_out_due(s, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;
			json_t *j = json_loads(rows[i].payload, 0, &err);
			const char *text = json_string_value(json_object_get(j, "text"));

			sb_add(&sb, text ? text : "");
			sb_add(&sb, "\n");
			json_decref(j);
			store_out_done(s, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	return sb_detach(&sb);
}

static int64_t wallet_of(struct fixture *f, const char *chat, const char *user, int *rows)
{
	struct store_chat c = { 0 };
	char acct[STORE_ACCOUNT_LEN];
	int64_t v = -1;

	assert_int_equal(store_chat_get(f->s, "test", chat, "en", &c), GB_OK);
	snprintf(acct, sizeof acct, "user:%s", user);
	assert_int_equal(store_coins_balance(f->s, c.id, acct, &v, rows), GB_OK);
	store_chat_release(&c);
	return v;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* ---- many new members, /wallet at once ---- */

struct wallet_side {
	struct fixture *f;
	int side;
	pthread_barrier_t *go;
	int failed;                    /* a /wallet that did not come back GB_OK */
};

/* One side: each person's /wallet, all sides at once (the barrier) for every person. */
static void *wallet_side(void *arg)
{
	struct wallet_side *w = arg;

	for (int p = 0; p < PEOPLE; p++) {
		char user[16];

		snprintf(user, sizeof user, "m%d", p);
		pthread_barrier_wait(w->go);
		if (send_as(&w->f->b[w->side], "group-1", user, "/wallet", 1700000000000 + p) != GB_OK)
			w->failed++;
	}
	return NULL;
}

/*
 * PEOPLE new members each send /wallet from every side at once: each is
 * given the starting grant once (one ledger row, 1000 coins), and all
 * SIDES answers say 1,000, the later ones simply showing the balance.
 */
static void test_wallet_race_grants_once(void **state)
{
	struct fixture *f = *state;
	struct wallet_side w[SIDES];
	pthread_t th[SIDES];
	pthread_barrier_t go;
	char *out;

	pthread_barrier_init(&go, NULL, SIDES);
	for (int i = 0; i < SIDES; i++) {
		w[i] = (struct wallet_side){ .f = f, .side = i, .go = &go };
		assert_int_equal(pthread_create(&th[i], NULL, wallet_side, &w[i]), 0);
	}
	for (int i = 0; i < SIDES; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&go);
	out = drain(f->s);
	for (int p = 0; p < PEOPLE; p++) {
		char user[16], line[64];
		int rows = 0;
		int64_t coins = wallet_of(f, "group-1", (snprintf(user, sizeof user, "m%d", p), user), &rows);

		if (coins != 1000 || rows != 1)
			fail_msg("%s has %lld coins in %d ledger rows after racing /wallet", user, (long long)coins,
				 rows);
		snprintf(line, sizeof line, "%s has 1000 coins.\n", user);
		assert_int_equal(count_of(out, line), SIDES);
	}
	for (int i = 0; i < SIDES; i++)
		assert_int_equal(w[i].failed, 0);
	free(out);
	audit_sound(f);
}

/* ---- two staked tables in two topics, started at once ---- */

struct start_side {
	struct fixture *f;
	int side;
	char place[40];
	pthread_barrier_t *go;
	int rc;
};

static void *start_side(void *arg)
{
	struct start_side *s = arg;

	pthread_barrier_wait(s->go);
	s->rc = send_as(&s->f->b[s->side], s->place, "asha", "/start", 1700000100000);
	return NULL;
}

/* Has the open table of place been started (its stake held)? */
static int started(struct fixture *f, const char *place)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	int status;

	assert_int_equal(store_chat_get(f->s, "test", place, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(f->s, c.id, &t), GB_OK);
	status = t.status;
	store_table_release(&t);
	store_chat_release(&c);
	return status == STORE_PLAYING;
}

/*
 * In each of ROUNDS forum groups, Asha (1000 coins) opens a Ludo table
 * with a stake of 600 in topic 1 (with Bina) and in topic 2 (with Chandra),
 * then both are started at the same moment from two sides. One starts and
 * holds its stakes; the other is refused, saying Asha has 400, and stays
 * in its lobby. Asha's wallet is 400, never below 0.
 */
static void test_two_topics_one_wallet(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1700000050000;

	for (int r = 0; r < ROUNDS; r++) {
		struct start_side s[2];
		pthread_t th[2];
		pthread_barrier_t go;
		char group[24], place[2][40], *out;
		static const char *const other[2] = { "bina", "chandra" };
		int rows = 0, playing = 0;

		snprintf(group, sizeof group, "forum-%d", r);
		for (int t = 0; t < 2; t++) {
			snprintf(place[t], sizeof place[t], "%s#%d", group, t + 1);
			assert_int_equal(send_as(&f->b[0], place[t], "asha", "/new ludo", now++), GB_OK);
			assert_int_equal(send_as(&f->b[0], place[t], other[t], "/join", now++), GB_OK);
			assert_int_equal(send_as(&f->b[0], place[t], "asha", "/stake 600", now++), GB_OK);
		}
		free(drain(f->s));
		pthread_barrier_init(&go, NULL, 2);
		for (int t = 0; t < 2; t++) {
			s[t] = (struct start_side){ .f = f, .side = t, .go = &go };
			memcpy(s[t].place, place[t], sizeof s[t].place);
			assert_int_equal(pthread_create(&th[t], NULL, start_side, &s[t]), 0);
		}
		for (int t = 0; t < 2; t++) {
			assert_int_equal(pthread_join(th[t], NULL), 0);
			assert_int_equal(s[t].rc, GB_OK);
		}
		pthread_barrier_destroy(&go);
		out = drain(f->s);
		for (int t = 0; t < 2; t++)
			playing += started(f, place[t]);
		if (playing != 1)
			fail_msg("round %d: %d of the two tables started on one wallet for one stake", r, playing);
		assert_int_equal(wallet_of(f, group, "asha", &rows), 400);
		assert_int_equal(count_of(out, "Stakes held: 1200 coins in the pot.\n"), 1);
		assert_int_equal(count_of(out, "asha cannot cover the stake of 600 coins (has 400).\n"), 1);
		free(out);
	}
	audit_sound(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wallet_race_grants_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_topics_one_wallet, setup, teardown),
	};
	int failed;

	backend = "sqlite";
	failed = cmocka_run_group_tests_name("coins racing: sqlite", tests, NULL, NULL);
	backend = "postgresql";
	failed += cmocka_run_group_tests_name("coins racing: postgresql", tests, NULL, NULL);
	return failed;
}
