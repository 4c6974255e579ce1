/*
 * test_plans.c - no statement whose plan degrades with the number of rows:
 * the plans of the statements every command, delivery, timer and pruning
 * step runs (store_explain()) find their rows through indexes, on SQLite
 * and on PostgreSQL, with tables holding what 20,000 chats and a month of
 * play leave behind (so the planners' choices are the ones they make on a
 * full database: PostgreSQL with its statistics gathered and sequential
 * scans allowed).
 *
 * PostgreSQL's database is the one GAMEBOT_TEST_PG names (tests/pg.sh
 * starts one for make test); without it the PostgreSQL group fails.
 */
#include <libpq-fe.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/store.h"
#include "tests/fixture.h"

#define CHATS 20000

/*
 * A database's rows, made in bulk: CHATS chats each with an open table
 * (two seats, sealed seed, a timer), 40,000 tables over with 20 moves
 * each, 200,000 processed ids, two outbox rows a chat and 5,000 set aside,
 * a few ledger rows a chat. The same text on both databases.
 */
static const char *const fill =
	"INSERT INTO chats (platform, chat) SELECT 'telegram', '-100' || (1000 + i)"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO tables (chat_id, game, status, version, seed, creator, turn_started_ms, state,"
	"  created_ms) SELECT 1 + i % 20000, 'ludo', CASE WHEN i < 20000 THEN 1 ELSE 2 END, 1, i, 'u',"
	"  1000 + i, '{}', 1000 + i"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO seats (table_id, seat, user_id, name, level) SELECT 1 + i / 2, i % 2, 'u' || i, 'P', -1"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 119999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO table_terms (table_id, seed, stake) SELECT 1 + i, 'ab', 0"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO moves (table_id, seq, actor, action, events) SELECT 1 + i / 20, 1 + i % 20, '0', 'roll', '[]'"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1199999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO timers (table_id, kind, due_ms, version) SELECT 1 + i, 'idle', 5000 + i, 1"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO processed (platform, update_id, at) SELECT 'telegram', '' || (100000 + i), i"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO outbox (platform, chat, payload, due_ms, table_id, merge_key, prio, aside_ms)"
	"  SELECT 'telegram', '-100' || (1000 + i % 20000), '{}', 1000 + i, 1 + i % 20000,"
	"  CASE WHEN i < 20000 THEN 'seating:' ELSE 'table:' END || (1 + i % 20000), i / 20000 % 2,"
	"  CASE WHEN i >= 40000 THEN 500 + i END"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 44999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO ledger (id, chat_id, movement, account, name, amount, table_id, reason, at_ms)"
	"  SELECT i, 1 + i / 2 % 20000, i / 2, CASE WHEN i % 2 = 0 THEN 'bank' ELSE 'user:u' || i END, '',"
	"  CASE WHEN i % 2 = 0 THEN -100 ELSE 100 END, 0, 'grant', i"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 79999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO stats (chat_id, user_id, game, name, games, wins, points)"
	"  SELECT 1 + i / 2, 'u' || i, 'ludo', 'P', 3, 1, 0"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39999)"
	"  SELECT i FROM n) AS s;"
	/* online play: 20,000 people waiting, an online seat for each open table's seat,
	 * 40,000 people's names and blocks, 40,000 people rated in each of four games */
	"INSERT INTO online_queue (game, seats, stake, platform, user_id, chat, name, lang, since_ms)"
	"  SELECT CASE i % 4 WHEN 0 THEN 'ludo' WHEN 1 THEN 'snakes' WHEN 2 THEN 'baghchal'"
	"  ELSE 'callbreak' END, 2 + i % 2 * 2, i % 3 * 100, 'telegram', 'q' || i, 'q' || i, 'P', 'en',"
	"  1000 + i"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO online_seats (table_id, seat, platform, user_id, chat, name, lang)"
	"  SELECT 1 + i / 2, i % 2, 'telegram', 'u' || i, 'u' || i, 'P', 'en'"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO online_people (platform, user_id, name, last_table)"
	"  SELECT 'telegram', 'u' || i, 'P', 1 + i / 2"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO online_blocks (platform, user_id, other_platform, other_user)"
	"  SELECT 'telegram', 'u' || i, 'telegram', 'u' || (i + 1)"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39999)"
	"  SELECT i FROM n) AS s;"
	"INSERT INTO ratings (platform, user_id, game, name, r, rd, sigma, games)"
	"  SELECT 'telegram', 'u' || (i / 4), CASE i % 4 WHEN 0 THEN 'ludo' WHEN 1 THEN 'snakes'"
	"  WHEN 2 THEN 'baghchal' ELSE 'callbreak' END, 'P', 1000000 + i % 1000 * 1000, 350000, 60000,"
	"  i % 7"
	"  FROM (WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 159999)"
	"  SELECT i FROM n) AS s;";

static const char *pg_base;

struct fixture {
	char target[512];
	char dir[64];
	char schema[32];
};

/* Run text on target (a SQLite path, or PostgreSQL's URL with its search_path). */
static void exec_on(const char *target, const char *text)
{
	if (!strncmp(target, "postgres", 8)) {
		PGconn *c = PQconnectdb(target);
		PGresult *r = PQexec(c, text);

		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
			fail_msg("%s", PQerrorMessage(c));
		PQclear(r);
		PQfinish(c);
	} else {
		sqlite3 *db = NULL;

		assert_int_equal(sqlite3_open(target, &db), SQLITE_OK);
		if (sqlite3_exec(db, text, NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("%s", sqlite3_errmsg(db));
		sqlite3_close(db);
	}
}

static int setup_sqlite(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct store *s = NULL;

	if (fixture_dir(f->dir, sizeof(f->dir), "plans"))
		return -1;
	snprintf(f->target, sizeof(f->target), "%s/p.db", f->dir);
	if (store_open(&s, f->target))
		return -1;
	store_free(s);
	*state = f;
	return 0;
}

/* A schema of its own in the server's database, the store's tables made in it. */
static int setup_pg(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct store *s = NULL;
	char sql[96];

	pg_base = getenv("GAMEBOT_TEST_PG");
	if (!pg_base || !pg_base[0]) {
		fprintf(stderr, "GAMEBOT_TEST_PG is not set: no PostgreSQL server to test"
			" (make test starts one through tests/pg.sh)\n");
		return -1;
	}
	snprintf(f->schema, sizeof(f->schema), "plans_%d", (int)getpid());
	snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", f->schema);
	exec_on(pg_base, sql);
	snprintf(f->target, sizeof(f->target), "%s%soptions=-csearch_path%%3D%s", pg_base,
		 strchr(pg_base, '?') ? "&" : "?", f->schema);
	if (store_open(&s, f->target))
		return -1;
	store_free(s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	if (f->schema[0]) {
		snprintf(cmd, sizeof(cmd), "DROP SCHEMA %s CASCADE", f->schema);
		exec_on(pg_base, cmd);
	} else {
		assert_int_equal(fixture_rm(f->dir), 0);
	}
	free(f);
	return 0;
}

/*
 * What a plan line must not say: a whole table read, or rows sorted after
 * they were read (SQLite: "SCAN t", "USE TEMP B-TREE"; PostgreSQL: "Seq
 * Scan", "Sort").
 */
static const char *const sqlite_bad[] = { "SCAN ", "USE TEMP B-TREE" };
static const char *const pg_bad[] = { "Seq Scan", "Sort" };

/* Lines that say so of a few rows only, bounded whatever the tables hold. */
static const struct {
	const char *statement, *line;
} bounded[] = {
	/* the next timer: the first entry of the index in its order */
	{ "TIMER_NEXT:", "SCAN timers USING INDEX timers_due" },
	/* one chat's newest rows (at most the few asked for), put back in order */
	{ "OUT_CHAT:", "SCAN newest" },
	{ "OUT_CHAT:", "USE TEMP B-TREE FOR ORDER BY" },
	{ "OUT_CHAT:", "Sort" },
	/* one chat's accounts, richest first */
	{ "COINS_TOP:", "USE TEMP B-TREE FOR ORDER BY" },
	{ "COINS_TOP:", "Sort" },
	/*
	 * /metrics' outbox gauges: three counts in one row (SQLite's constant
	 * row), the pending rows counted in their partial index (SQLite never
	 * reads the rows themselves); PostgreSQL reads the table instead when
	 * nearly all its rows are pending, as here: the rows waiting, never
	 * the chats (its rows set aside are counted by their own index)
	 */
	{ "OUT_COUNT:", "SCAN CONSTANT ROW" },
	{ "OUT_COUNT:", "Seq Scan on outbox  (" },
	/* the open tables' counts: 16 rows a game, summed */
	{ "TABLES_BY_GAME:", "SCAN open_tables" },
	{ "TABLES_BY_GAME:", "Seq Scan on open_tables" },
	/* the matcher's round: the queue's first entries in its index's order (a round's at most) */
	{ "QUEUE_LIST:", "SCAN online_queue USING INDEX online_queue_order" },
	/* the people waiting: 16 rows a game, summed */
	{ "QUEUE_BY_GAME:", "SCAN w" },
	{ "QUEUE_BY_GAME:", "Seq Scan on online_waiting" },
	/* one person's open tables, in order */
	{ "TABLES_OF_USER:", "USE TEMP B-TREE FOR GROUP BY" },
	{ "TABLES_OF_USER:", "Sort" },
};

/* The bad thing line says in statement, or NULL. */
static const char *reads_too_much(const char *statement, const char *line, bool pg)
{
	for (size_t i = 0; i < 2; i++) {
		const char *bad = pg ? pg_bad[i] : sqlite_bad[i];

		if (!strstr(line, bad))
			continue;
		for (size_t k = 0; k < sizeof(bounded) / sizeof(bounded[0]); k++)
			if (!strcmp(statement, bounded[k].statement) && strstr(line, bounded[k].line))
				return NULL;
		return bad;
	}
	return NULL;
}

static void check_plans(struct fixture *f, bool pg)
{
	struct store *s = NULL;
	char *plans = malloc(1 << 16), *line, *save = NULL, name[64] = "";
	int statements = 0, bad = 0;
	bool claim_walks_queue = false;

	exec_on(f->target, fill);
	/* the planners' statistics of a full database (SQLite's sqlite_stat1 too) */
	exec_on(f->target, "ANALYZE");
	assert_int_equal(store_open(&s, f->target), GB_OK);
	assert_int_equal(store_explain(s, plans, 1 << 16), GB_OK);
	store_free(s);
	/* /metrics' gauges and a wallet's balance are among them */
	assert_non_null(strstr(plans, "\nOUT_COUNT:\n"));
	assert_non_null(strstr(plans, "\nTABLES_BY_GAME:\n"));
	assert_non_null(strstr(plans, "\nCOINS_BALANCE:\n"));
	for (line = strtok_r(plans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *why;

		print_message("%s\n", line);
		if (line[0] != ' ') {
			snprintf(name, sizeof(name), "%s", line);
			statements++;
			continue;
		}
		why = reads_too_much(name, line, pg);
		if (why) {
			print_error("%s reads too much (%s): %s\n", name, why, line);
			bad++;
		}
		/* the claim walks the queue's own index */
		if (!strcmp(name, "OUT_CLAIM:") && strstr(line, "outbox_queue"))
			claim_walks_queue = true;
		/* a balance is one row kept beside the ledger, not a sum of the account's history */
		if (!strcmp(name, "COINS_BALANCE:") && strstr(line, "ledger")) {
			print_error("%s reads the ledger: %s\n", name, line);
			bad++;
		}
	}
	free(plans);
	assert_true(statements >= 49);
	assert_int_equal(bad, 0);
	assert_true(claim_walks_queue);
}

static void test_sqlite_plans(void **state)
{
	check_plans(*state, false);
}

static void test_pg_plans(void **state)
{
	check_plans(*state, true);
}

int main(void)
{
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test_setup_teardown(test_sqlite_plans, setup_sqlite, teardown),
	};
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test_setup_teardown(test_pg_plans, setup_pg, teardown),
	};
	int failed = cmocka_run_group_tests_name("plans: sqlite", sqlite_tests, NULL, NULL);

	failed += cmocka_run_group_tests_name("plans: postgresql", pg_tests, NULL, NULL);
	return failed ? 1 : 0;
}
