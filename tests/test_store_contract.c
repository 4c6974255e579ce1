/*
 * test_store_contract.c - what store.h promises, checked on every backend.
 *
 * The same tests run twice: on SQLite (a fresh file in a folder made with
 * tests/fixture.c under $TMPDIR for every test) and on PostgreSQL (a fresh schema
 * for every test in the database GAMEBOT_TEST_PG names, reached through
 * search_path in the URL, dropped afterwards). `make test` starts a
 * throwaway server and sets GAMEBOT_TEST_PG (tests/pg.sh); without it the
 * PostgreSQL group fails, loudly, rather than passing untested.
 *
 * A test sees the database only through store.h, a second handle on the
 * same target, and raw_exec()/raw_int(): one SQL text on a raw connection
 * (sqlite3 or libpq), for looking at what a store function left, or for
 * planting what other software might write. Where the two dialects
 * differ, the test gives both texts. Each backend's own faults (files,
 * URLs, servers, migrations from old schemas) are in test_store.c and
 * test_store_pg.c.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/tools/audit.h"
#include "store/store.h"
#include "tests/fixture.h"

#define RAW_OK 0

/* The backend the group runs on: its name, and for PostgreSQL the server's URL. */
static const char *backend = "sqlite";
static const char *pg_base;

struct fixture {
	char dir[64];     /* SQLite: the test's temporary folder */
	char schema[64];  /* PostgreSQL: the test's schema */
	char path[1024];  /* what store_open() is given */
	struct store *s;  /* open on path; owned, freed by teardown */
};

static int is_pg(const struct fixture *f)
{
	return f->schema[0] != '\0';
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Run sql on the server as it is, outside any test schema; RAW_OK or -1. */
static int pg_admin(const char *sql)
{
	PGconn *c = PQconnectdb(pg_base);
	PGresult *res = NULL;
	int rc = -1;

	if (PQstatus(c) == CONNECTION_OK) {
		PQsetNoticeProcessor(c, quiet, NULL);
		res = PQexec(c, sql);
		if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
			rc = RAW_OK;
		else
			fprintf(stderr, "postgresql: %s", PQerrorMessage(c));
	} else {
		fprintf(stderr, "postgresql: cannot connect to %s: %s", pg_base, PQerrorMessage(c));
	}
	PQclear(res);
	PQfinish(c);
	return rc;
}

static int setup(void **state)
{
	static int counter;
	struct fixture *f = calloc(1, sizeof *f);
	char sql[256];

	assert_non_null(f);
	if (strcmp(backend, "postgresql") == 0) {
		snprintf(f->schema, sizeof f->schema, "test_%ld_%d", (long)getpid(), counter++);
		snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s",
			 f->schema, f->schema);
		assert_int_equal(pg_admin(sql), RAW_OK);
		snprintf(f->path, sizeof f->path, "%s%soptions=-csearch_path%%3D%s", pg_base,
			 strchr(pg_base, '?') ? "&" : "?", f->schema);
	} else {
		assert_int_equal(fixture_dir(f->dir, sizeof f->dir, "store"), 0);
		snprintf(f->path, sizeof f->path, "%s/db/game.db", f->dir);
	}
	{
		int rc = store_open(&f->s, f->path);

		if (rc != GB_OK)
			print_error("store_open(%s): %d: %s\n", f->path, rc, store_last_error());
		assert_int_equal(rc, GB_OK);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char sql[256];
	int rc = 0;

	store_free(f->s);
	if (is_pg(f)) {
		snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", f->schema);
		pg_admin(sql);
	} else {
		rc = fixture_rm(f->dir);
	}
	free(f);
	return rc;
}

/* The PostgreSQL group needs a server: without one it fails, never skips. */
static int pg_group_setup(void **state)
{
	(void)state;
	pg_base = getenv("GAMEBOT_TEST_PG");
	if (!pg_base || !pg_base[0]) {
		fprintf(stderr, "GAMEBOT_TEST_PG is not set: no PostgreSQL server to test"
			" (make test starts one through tests/pg.sh)\n");
		return -1;
	}
	return pg_admin("SELECT 1") == RAW_OK ? 0 : -1;
}

/* A chat and an open table in it; returns the table id, chat id in *chat. */
static int64_t make_table(struct store *s, const char *chat_name, int64_t *chat)
{
	struct store_chat c;
	struct store_table t;

	assert_int_equal(store_chat_get(s, "telegram", chat_name, "en", &c), GB_OK);
	memset(&t, 0, sizeof t);
	t.chat = c.id;
	snprintf(t.game, sizeof t.game, "ludo");
	t.seed = 7;
	snprintf(t.creator, sizeof t.creator, "u1");
	t.rules = "{}";
	assert_int_equal(store_table_insert(s, &t), GB_OK);
	if (chat)
		*chat = c.id;
	store_chat_release(&c);
	return t.id;
}

/*
 * Run one SQL text on a raw connection to target (test-side inspection
 * only): RAW_OK, or another value when it failed.
 */
static int raw_exec(const char *target, const char *sql)
{
	if (strncmp(target, "postgresql://", 13) == 0) {
		PGconn *c = PQconnectdb(target);
		PGresult *res = PQexec(c, sql);
		int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

		PQclear(res);
		PQfinish(c);
		return ok ? RAW_OK : -1;
	} else {
		sqlite3 *db = NULL;
		int src = sqlite3_open(target, &db);

		if (src == SQLITE_OK) {
			sqlite3_busy_timeout(db, 5000);
			src = sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
		sqlite3_close(db);
		return src == SQLITE_OK ? RAW_OK : -1;
	}
}

/* The first column of the first row of sql on target as an integer. */
static int64_t raw_int(const char *target, const char *sql)
{
	int64_t v = 0;

	if (strncmp(target, "postgresql://", 13) == 0) {
		PGconn *c = PQconnectdb(target);
		PGresult *res = PQexec(c, sql);

		assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
		assert_true(PQntuples(res) >= 1);
		v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		PQclear(res);
		PQfinish(c);
	} else {
		sqlite3 *db = NULL;
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_open(target, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	return v;
}











/* ---- chats ---- */

static void test_chat_get_creates_then_finds(void **state)
{
	struct fixture *f = *state;
	struct store_chat a;
	struct store_chat b;

	assert_int_equal(store_chat_get(f->s, "telegram", "-100123", "ne", &a), GB_OK);
	assert_true(a.id > 0);
	assert_string_equal(a.platform, "telegram");
	assert_string_equal(a.chat, "-100123");
	assert_string_equal(a.lang, "ne");
	assert_string_equal(a.settings, "{}");

	assert_int_equal(store_chat_get(f->s, "telegram", "-100123", "en", &b), GB_OK);
	assert_int_equal(b.id, a.id);
	assert_string_equal(b.lang, "ne");
	store_chat_release(&b);

	/* same chat id on another platform is another chat */
	assert_int_equal(store_chat_get(f->s, "discord", "-100123", NULL, &b), GB_OK);
	assert_int_not_equal(b.id, a.id);
	assert_string_equal(b.lang, "en");
	store_chat_release(&b);

	snprintf(a.lang, sizeof a.lang, "en");
	free(a.settings);
	a.settings = strdup("{\"autoplay\":30}");
	assert_non_null(a.settings);
	assert_int_equal(store_chat_save(f->s, &a), GB_OK);
	assert_int_equal(store_chat_get(f->s, "telegram", "-100123", "ne", &b), GB_OK);
	assert_string_equal(b.lang, "en");
	assert_string_equal(b.settings, "{\"autoplay\":30}");
	store_chat_release(&b);

	/* NULL settings are saved as an empty object */
	store_chat_release(&a);
	assert_int_equal(store_chat_save(f->s, &a), GB_OK);
	assert_int_equal(store_chat_get(f->s, "telegram", "-100123", "ne", &b), GB_OK);
	assert_string_equal(b.settings, "{}");
	store_chat_release(&b);

	/* by the store's own id (what a timer knows) */
	assert_int_equal(store_chat_get_by_id(f->s, a.id, &b), GB_OK);
	assert_int_equal(b.id, a.id);
	assert_string_equal(b.platform, "telegram");
	assert_string_equal(b.chat, "-100123");
	assert_string_equal(b.lang, "en");
	assert_string_equal(b.settings, "{}");
	store_chat_release(&b);
	assert_int_equal(store_chat_get_by_id(f->s, a.id + 1000, &b), GB_ENOTFOUND);
	assert_null(b.settings);

	a.id = 424242;
	assert_int_equal(store_chat_save(f->s, &a), GB_ENOTFOUND);
	store_chat_release(&a);
	store_chat_release(&a); /* twice is harmless */
}

/* ---- tables ---- */

static void test_table_insert_get(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	struct store_table t;
	struct store_table g;
	struct store_table other;

	assert_int_equal(store_chat_get(f->s, "telegram", "42", "en", &c), GB_OK);
	memset(&t, 0, sizeof t);
	t.chat = c.id;
	snprintf(t.game, sizeof t.game, "callbreak");
	t.seed = UINT64_MAX - 5; /* above INT64_MAX: stored bit for bit */
	snprintf(t.creator, sizeof t.creator, "user-1");
	t.rules = "{\"rounds\":5}";
	t.version = 99; /* ignored: a new table starts at 1 */
	assert_int_equal(store_table_insert(f->s, &t), GB_OK);
	assert_true(t.id > 0);
	assert_int_equal(t.version, 1);

	assert_int_equal(store_table_get(f->s, t.id, &g), GB_OK);
	assert_int_equal(g.id, t.id);
	assert_int_equal(g.chat, c.id);
	assert_string_equal(g.game, "callbreak");
	assert_int_equal(g.status, STORE_LOBBY);
	assert_int_equal(g.version, 1);
	assert_true(g.seed == UINT64_MAX - 5);
	assert_string_equal(g.creator, "user-1");
	assert_string_equal(g.message, "");
	assert_string_equal(g.rules, "{\"rounds\":5}");
	assert_null(g.state);
	store_table_release(&g);

	assert_int_equal(store_table_open_get(f->s, c.id, &g), GB_OK);
	assert_int_equal(g.id, t.id);
	store_table_release(&g);

	assert_int_equal(store_table_get(f->s, t.id + 100, &g), GB_ENOTFOUND);
	assert_null(g.rules);
	assert_int_equal(store_table_open_get(f->s, c.id + 100, &g), GB_ENOTFOUND);

	/* one open table per chat */
	other = t;
	other.id = 0;
	assert_int_equal(store_table_insert(f->s, &other), GB_EEXISTS);
	/* a chat that does not exist */
	other.chat = c.id + 100;
	assert_int_equal(store_table_insert(f->s, &other), GB_ENOTFOUND);

	/* once over, the chat may open another one */
	t.status = STORE_OVER;
	t.rules = NULL;
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	assert_int_equal(store_table_open_get(f->s, c.id, &g), GB_ENOTFOUND);
	other.chat = c.id;
	assert_int_equal(store_table_insert(f->s, &other), GB_OK);
	assert_int_equal(store_table_open_get(f->s, c.id, &g), GB_OK);
	assert_int_equal(g.id, other.id);
	store_table_release(&g);
	/* and the finished one cannot be reopened beside it */
	t.status = STORE_PLAYING;
	assert_int_equal(store_table_update(f->s, &t), GB_EEXISTS);
	assert_int_equal(t.version, 2);
	store_chat_release(&c);
}

static void test_table_update_compare_and_swap(void **state)
{
	struct fixture *f = *state;
	struct store *s2 = NULL;
	struct store_table a;
	struct store_table b;
	struct store_table g;
	int64_t id = make_table(f->s, "cas", NULL);

	assert_int_equal(store_open(&s2, f->path), GB_OK);
	/* both writers read version 1 */
	assert_int_equal(store_table_get(f->s, id, &a), GB_OK);
	assert_int_equal(store_table_get(s2, id, &b), GB_OK);
	assert_int_equal(a.version, 1);
	assert_int_equal(b.version, 1);

	a.status = STORE_PLAYING;
	a.state = strdup("{\"by\":\"first\"}");
	/* the adapter records the posted message: no version bump, so a's update still applies */
	assert_int_equal(store_table_set_message(f->s, id, "m-1"), GB_OK);
	a.turn_started_ms = 1000;
	assert_int_equal(store_table_update(f->s, &a), GB_OK);
	assert_int_equal(a.version, 2);

	/* the second writer is stale */
	b.status = STORE_OVER;
	b.state = strdup("{\"by\":\"second\"}");
	assert_int_equal(store_table_update(s2, &b), GB_ECONFLICT);
	assert_int_equal(b.version, 1);

	/* the data is the first writer's, as seen from the second handle */
	assert_int_equal(store_table_get(s2, id, &g), GB_OK);
	assert_int_equal(g.version, 2);
	assert_int_equal(g.status, STORE_PLAYING);
	assert_string_equal(g.state, "{\"by\":\"first\"}");
	assert_string_equal(g.message, "m-1");
	assert_int_equal(g.turn_started_ms, 1000);

	/* after rereading, the second writer succeeds */
	free(g.state);
	g.state = strdup("{\"by\":\"second\"}");
	assert_int_equal(store_table_update(s2, &g), GB_OK);
	assert_int_equal(g.version, 3);
	assert_int_equal(store_table_update(f->s, &a), GB_ECONFLICT);

	/* inside a transaction too; the conflict leaves the transaction usable */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_table_update(f->s, &a), GB_ECONFLICT);
	assert_int_equal(store_move_append(f->s, id, 1, "u1", "roll", NULL), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);

	/* a table that does not exist is a conflict too */
	a.id = id + 1000;
	assert_int_equal(store_table_update(f->s, &a), GB_ECONFLICT);

	/*
	 * A move keeps the status (written without it), the end changes it
	 * (written with it): each bumps the version once, and the open
	 * tables are counted as they close.
	 */
	{
		int open = -1;

		store_table_release(&g);
		assert_int_equal(store_table_get(f->s, id, &g), GB_OK);
		assert_int_equal(store_tables_count(f->s, 0, 0, 1, 0, &open), GB_OK);
		assert_int_equal(open, 1);
		free(g.state);
		g.state = strdup("{\"by\":\"a move\"}");
		assert_int_equal(store_table_update(f->s, &g), GB_OK);
		assert_int_equal(g.version, 4);
		g.status = STORE_OVER;
		assert_int_equal(store_table_update(f->s, &g), GB_OK);
		assert_int_equal(g.version, 5);
		assert_int_equal(store_tables_count(f->s, 0, 0, 1, 0, &open), GB_OK);
		assert_int_equal(open, 0);
		store_table_release(&g);
		assert_int_equal(store_table_get(s2, id, &g), GB_OK);
		assert_int_equal(g.version, 5);
		assert_int_equal(g.status, STORE_OVER);
		assert_string_equal(g.state, "{\"by\":\"a move\"}");
	}

	store_table_release(&a);
	store_table_release(&b);
	store_table_release(&g);
	store_free(s2);
}

/* The message id is the adapter's: no version bump, and a game update keeps it. */
static void test_table_set_message(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "msg", NULL);
	struct store_table t;
	struct store_table g;
	char huge[STORE_ID_LEN + 1];

	assert_int_equal(store_table_get(f->s, id, &t), GB_OK); /* a command holds version 1 */
	assert_int_equal(store_table_set_message(f->s, id, "m-77"), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &g), GB_OK);
	assert_string_equal(g.message, "m-77");
	assert_int_equal(g.version, 1);
	store_table_release(&g);

	/* the command's update still applies and does not undo the message */
	t.status = STORE_PLAYING;
	snprintf(t.message, sizeof t.message, "stale");
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	assert_int_equal(t.version, 2);
	assert_int_equal(store_table_get(f->s, id, &g), GB_OK);
	assert_string_equal(g.message, "m-77");
	assert_int_equal(g.status, STORE_PLAYING);
	store_table_release(&g);

	/* replaced and cleared the same way */
	assert_int_equal(store_table_set_message(f->s, id, "m-78"), GB_OK);
	assert_int_equal(store_table_set_message(f->s, id, "m-78"), GB_OK); /* same value: still found */
	assert_int_equal(store_table_set_message(f->s, id, ""), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &g), GB_OK);
	assert_string_equal(g.message, "");
	assert_int_equal(g.version, 2);
	store_table_release(&g);

	assert_int_equal(store_table_set_message(f->s, id + 100, "m-1"), GB_ENOTFOUND);
	memset(huge, 'm', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	assert_int_equal(store_table_set_message(f->s, id, huge), GB_EARGS);
	assert_int_equal(store_table_set_message(f->s, id, NULL), GB_EARGS);
	store_table_release(&t);
}

/* Insert a table of game ludo in chat; returns its id. */
static int64_t insert_table(struct store *s, int64_t chat, int status, int watch, int64_t created_ms)
{
	struct store_table t;

	memset(&t, 0, sizeof t);
	t.chat = chat;
	snprintf(t.game, sizeof t.game, "ludo");
	t.status = status;
	t.watch = watch;
	t.created_ms = created_ms;
	assert_int_equal(store_table_insert(s, &t), GB_OK);
	return t.id;
}

static void test_table_watch_created_and_count(void **state)
{
	struct fixture *f = *state;
	struct store_chat a;
	struct store_chat b;
	struct store_chat empty;
	struct store_table t;
	int64_t id;
	int n = -1;

	assert_int_equal(store_chat_get(f->s, "telegram", "a", "en", &a), GB_OK);
	assert_int_equal(store_chat_get(f->s, "telegram", "b", "en", &b), GB_OK);
	assert_int_equal(store_chat_get(f->s, "telegram", "empty", "en", &empty), GB_OK);
	/* a: an old watch game over, a newer person game open; b: a watch game open */
	id = insert_table(f->s, a.id, STORE_OVER, 1, 1000);
	insert_table(f->s, a.id, STORE_PLAYING, 0, 2000);
	insert_table(f->s, b.id, STORE_LOBBY, 7, 3000); /* any non-zero watch is 1 */

	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(t.watch, 1);
	assert_int_equal(t.created_ms, 1000);
	/* an update changes neither */
	t.watch = 0;
	t.created_ms = 5;
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	store_table_release(&t);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(t.watch, 1);
	assert_int_equal(t.created_ms, 1000);
	store_table_release(&t);
	assert_int_equal(store_table_open_get(f->s, b.id, &t), GB_OK);
	assert_int_equal(t.watch, 1);
	assert_int_equal(t.created_ms, 3000);
	store_table_release(&t);

	assert_int_equal(store_tables_count(f->s, 0, 0, 0, 0, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(store_tables_count(f->s, a.id, 0, 0, 0, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_tables_count(f->s, 0, 2000, 0, 0, &n), GB_OK); /* at or after */
	assert_int_equal(n, 2);
	assert_int_equal(store_tables_count(f->s, 0, 2001, 0, 0, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_tables_count(f->s, 0, 0, 1, 0, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_tables_count(f->s, 0, 0, 0, 1, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_tables_count(f->s, 0, 0, 1, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_tables_count(f->s, a.id, 0, 1, 1, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_tables_count(f->s, a.id, 0, 0, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_tables_count(f->s, a.id, 1500, 1, 0, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_tables_count(f->s, b.id, 3001, 0, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_tables_count(f->s, empty.id, 0, 0, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_tables_count(f->s, a.id + 1000, 0, 0, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_tables_count(f->s, 0, 0, 0, 0, NULL), GB_EARGS);
	store_chat_release(&a);
	store_chat_release(&b);
	store_chat_release(&empty);
}

/* ---- seats and moves ---- */

static void test_seats(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "seats", NULL);
	struct store_seat in[3];
	struct store_seat out[4];
	int n = -1;

	memset(in, 0, sizeof in);
	in[0] = (struct store_seat){ .seat = 2, .level = 1 };
	snprintf(in[0].name, sizeof in[0].name, "Bot (medium)");
	in[1] = (struct store_seat){ .seat = 0, .level = -1 };
	snprintf(in[1].user, sizeof in[1].user, "u-alice");
	snprintf(in[1].name, sizeof in[1].name, "Alice");
	in[2] = (struct store_seat){ .seat = 1, .level = -1 };
	snprintf(in[2].user, sizeof in[2].user, "u-bob");
	snprintf(in[2].name, sizeof in[2].name, "Bob");

	assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_seats_set(f->s, id, in, 3), GB_OK);
	assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].seat, 0);
	assert_string_equal(out[0].user, "u-alice");
	assert_string_equal(out[0].name, "Alice");
	assert_int_equal(out[0].level, -1);
	assert_int_equal(out[1].seat, 1);
	assert_string_equal(out[1].name, "Bob");
	assert_int_equal(out[2].seat, 2);
	assert_string_equal(out[2].user, "");
	assert_int_equal(out[2].level, 1);

	/* max smaller than the count */
	assert_int_equal(store_seats_get(f->s, id, out, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_seats_get(f->s, id, NULL, 0, &n), GB_OK);
	assert_int_equal(n, 0);

	/* replace all */
	assert_int_equal(store_seats_set(f->s, id, &in[2], 1), GB_OK);
	assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].name, "Bob");

	/* a repeated seat number changes nothing */
	in[0].seat = 1;
	assert_int_equal(store_seats_set(f->s, id, in, 3), GB_EARGS);
	in[0].seat = -1;
	assert_int_equal(store_seats_set(f->s, id, in, 1), GB_EARGS);
	assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
	assert_int_equal(n, 1);

	/* a table that does not exist: nothing half written */
	in[0].seat = 3;
	assert_int_equal(store_seats_set(f->s, id + 50, in, 2), GB_ENOTFOUND);
	assert_int_equal(store_seats_get(f->s, id + 50, out, 4, &n), GB_OK);
	assert_int_equal(n, 0);

	assert_int_equal(store_seats_set(f->s, id, NULL, 0), GB_OK);
	assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
	assert_int_equal(n, 0);
}

static void test_moves(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "moves", NULL);
	int64_t id2 = make_table(f->s, "moves2", NULL);
	int n = -1;

	assert_int_equal(store_move_count(f->s, id, &n), GB_OK);
	assert_int_equal(n, 0);
	n = -1;
	assert_int_equal(store_move_last(f->s, id, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_move_append(f->s, id, 1, "u1", "roll", "[\"roll 6\"]"), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "u1", "move 1", NULL), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 3, "", "next", "[]"), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "u2", "roll", NULL), GB_EEXISTS);
	assert_int_equal(store_move_append(f->s, id2, 2, "u2", "roll", NULL), GB_OK);
	assert_int_equal(store_move_count(f->s, id, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(store_move_count(f->s, id2, &n), GB_OK);
	assert_int_equal(n, 1);
	/* the last move's number: 3 for 1..3; id2's only move is its 2 */
	assert_int_equal(store_move_last(f->s, id, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(store_move_last(f->s, id2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_move_last(NULL, id, &n), GB_EARGS);
	assert_int_equal(n, 0);

	assert_int_equal(store_move_append(f->s, id + 99, 1, "u1", "roll", NULL), GB_ENOTFOUND);
	assert_int_equal(store_move_append(f->s, id, 0, "u1", "roll", NULL), GB_EARGS);
	assert_int_equal(store_move_append(f->s, id, -3, "u1", "roll", NULL), GB_EARGS);

	/* the log cannot be rewritten, even from outside the store */
	assert_int_not_equal(raw_exec(f->path, "UPDATE moves SET action = 'cheat'"), RAW_OK);
}

/* ---- dedupe and transactions ---- */

/*
 * A write of several statements fails in its middle (a trigger added
 * here stands in for a full disk): nothing of it stays, with or without
 * a transaction around it, and the handle goes on working.
 */
static void test_partial_write_undone(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "partial", NULL);
	int64_t chat;
	struct store_seat in[2];
	struct store_seat out[4];
	struct store_stat st[4];
	int n = -1;

	make_table(f->s, "partial-stats", &chat);
	memset(in, 0, sizeof in);
	in[0].seat = 0;
	snprintf(in[0].name, sizeof in[0].name, "old");
	assert_int_equal(store_seats_set(f->s, id, in, 1), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "u", "Old", "ludo", 1, 0), GB_OK);
	assert_int_equal(raw_exec(f->path, is_pg(f) ?
		"CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
		"  $$BEGIN RAISE EXCEPTION 'boom'; END$$;"
		"CREATE TRIGGER boom_seat BEFORE INSERT ON seats FOR EACH ROW"
		"  WHEN (NEW.name = 'boom') EXECUTE FUNCTION boom();"
		"CREATE TRIGGER boom_stat BEFORE UPDATE OF name ON stats FOR EACH ROW"
		"  WHEN (NEW.name = 'boom' AND OLD.game = 'callbreak') EXECUTE FUNCTION boom();" :
		"CREATE TRIGGER boom_seat BEFORE INSERT ON seats WHEN NEW.name = 'boom'"
		"  BEGIN SELECT RAISE(ABORT, 'boom'); END;"
		"CREATE TRIGGER boom_stat BEFORE UPDATE OF name ON stats WHEN NEW.name = 'boom'"
		"  AND OLD.game = 'callbreak' BEGIN SELECT RAISE(ABORT, 'boom'); END;"), RAW_OK);

	in[0].seat = 0;
	snprintf(in[0].name, sizeof in[0].name, "new");
	in[1].seat = 1;
	snprintf(in[1].name, sizeof in[1].name, "boom");
	for (int tx = 0; tx < 2; tx++) {
		if (tx)
			assert_int_equal(store_begin(f->s), GB_OK);
		assert_int_equal(store_seats_set(f->s, id, in, 2), GB_ESTORE);
		assert_int_equal(store_seats_get(f->s, id, out, 4, &n), GB_OK);
		assert_int_equal(n, 1);
		assert_string_equal(out[0].name, "old");
		if (tx)
			assert_int_equal(store_commit(f->s), GB_OK);
	}

	/* stats: the upsert of a new game works, renaming the user's other row fails */
	assert_int_equal(store_stat_add(f->s, chat, "u", "Mid", "callbreak", 1, 10), GB_OK);
	for (int tx = 0; tx < 2; tx++) {
		if (tx)
			assert_int_equal(store_begin(f->s), GB_OK);
		assert_int_equal(store_stat_add(f->s, chat, "u", "boom", "ludo", 1, 0), GB_ESTORE);
		assert_int_equal(store_stats_get(f->s, chat, "ludo", st, 4, &n), GB_OK);
		assert_int_equal(n, 1);
		assert_int_equal(st[0].games, 1);
		assert_string_equal(st[0].name, "Mid");
		if (tx)
			assert_int_equal(store_commit(f->s), GB_OK);
	}
	assert_int_equal(store_ping(f->s), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "u", "Fine", "ludo", 1, 0), GB_OK);
}


static void test_dedupe(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "dedupe", NULL);
	struct store *s2 = NULL;

	assert_int_equal(store_mark_processed(f->s, "telegram", "1001"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "1001"), GB_EDUP);
	assert_int_equal(store_mark_processed(f->s, "discord", "1001"), GB_OK);

	/* seen by another instance */
	assert_int_equal(store_open(&s2, f->path), GB_OK);
	assert_int_equal(store_mark_processed(s2, "telegram", "1001"), GB_EDUP);
	store_free(s2);

	/* a duplicate inside a transaction leaves it usable */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "1002"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "1002"), GB_EDUP);
	assert_int_equal(store_move_append(f->s, id, 1, "u1", "roll", NULL), GB_OK);
	store_rollback(f->s);
	/* rolled back: the mark (and the move) are gone */
	assert_int_equal(store_mark_processed(f->s, "telegram", "1002"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "1002"), GB_EDUP);
}

/* Old processed ids go, recent ones stay; a forgotten id can be marked again. */
static void test_processed_prune(void **state)
{
	struct fixture *f = *state;
	int64_t now_s = (int64_t)time(NULL);
	char sql[256];
	int n = -1;

	assert_int_equal(store_mark_processed(f->s, "telegram", "old-1"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "discord", "old-2"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "edge"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "new"), GB_OK);
	snprintf(sql, sizeof sql, "UPDATE processed SET at = %lld WHERE update_id LIKE 'old-%%';"
		 "UPDATE processed SET at = %lld WHERE update_id = 'edge';",
		 (long long)(now_s - 7200), (long long)(now_s - 3600));
	assert_int_equal(raw_exec(f->path, sql), RAW_OK);

	assert_int_equal(store_processed_prune(f->s, (now_s - 3600) * 1000, &n), GB_OK);
	assert_int_equal(n, 2); /* both platforms */
	/* "edge" was stamped in the second now_s - 3600: gone only once that second ended */
	assert_int_equal(store_processed_prune(f->s, (now_s - 3600) * 1000 + 999, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_processed_prune(f->s, (now_s - 3599) * 1000, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_mark_processed(f->s, "telegram", "old-1"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "discord", "old-2"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "edge"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "new"), GB_EDUP);
	/* nothing is older than the epoch */
	assert_int_equal(store_processed_prune(f->s, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_processed_prune(f->s, -1500, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_processed_prune(f->s, (now_s + 10) * 1000, &n), GB_OK);
	assert_int_equal(n, 4);
}

static void test_transaction_rollback_and_commit(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "tx", NULL);
	struct store_table t;
	struct store_table g;
	struct store_out o[4];
	struct store_timer tm = { .table = id, .kind = "bot", .due_ms = 500, .version = 2 };
	struct store_timer next;
	int n = -1;

	for (int round = 0; round < 2; round++) {
		int commit = round == 1;
		const char *update = commit ? "78" : "77";

		assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
		assert_int_equal(store_begin(f->s), GB_OK);
		/* a second BEGIN is refused; the first transaction goes on */
		assert_int_equal(store_begin(f->s), GB_ESTORE);
		assert_int_equal(store_mark_processed(f->s, "telegram", update), GB_OK);
		t.status = STORE_PLAYING;
		t.state = strdup("{\"turn\":1}");
		assert_int_equal(store_table_update(f->s, &t), GB_OK);
		assert_int_equal(store_move_append(f->s, id, 1, "u1", "roll", "[]"), GB_OK);
		assert_int_equal(store_out_add(f->s, "telegram", "tx", 0, NULL, "{\"text\":\"hi\"}", 100), GB_OK);
		assert_int_equal(store_timer_set(f->s, &tm), GB_OK);
		if (commit)
			assert_int_equal(store_commit(f->s), GB_OK);
		else
			store_rollback(f->s);
		store_table_release(&t);

		assert_int_equal(store_table_get(f->s, id, &g), GB_OK);
		assert_int_equal(g.version, commit ? 2 : 1);
		assert_int_equal(g.status, commit ? STORE_PLAYING : STORE_LOBBY);
		if (commit)
			assert_string_equal(g.state, "{\"turn\":1}");
		else
			assert_null(g.state);
		store_table_release(&g);
		assert_int_equal(store_move_count(f->s, id, &n), GB_OK);
		assert_int_equal(n, commit ? 1 : 0);
		assert_int_equal(store_out_due(f->s, "telegram", 1000, o, 4, &n), GB_OK);
		assert_int_equal(n, commit ? 1 : 0);
		for (int i = 0; i < n; i++)
			store_out_release(&o[i]);
		assert_int_equal(store_timer_next(f->s, &next), commit ? GB_OK : GB_ENOTFOUND);
		assert_int_equal(store_mark_processed(f->s, "telegram", update), commit ? GB_EDUP : GB_OK);
	}

	/* rollback and commit without a transaction */
	store_rollback(f->s);
	store_rollback(f->s);
	assert_int_equal(store_commit(f->s), GB_ESTORE);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
}

/* A transaction holds the write lock: another handle waits, then sees it all. */
/* Units of one transaction: one undone keeps the others' writes (group commit). */
static void test_transaction_units(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "units", NULL);
	int moves = -1;

	assert_int_equal(store_unit_begin(f->s), GB_EARGS); /* only inside a transaction */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 1, "0", "roll", NULL), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", "u1"), GB_OK);
	assert_int_equal(store_unit_end(f->s, 1), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "1", "roll", NULL), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "1", "roll", NULL), GB_EEXISTS);
	assert_int_equal(store_mark_processed(f->s, "telegram", "u2"), GB_OK);
	assert_int_equal(store_unit_end(f->s, 0), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "1", "move 1", NULL), GB_OK);
	assert_int_equal(store_unit_end(f->s, 1), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(store_move_count(f->s, id, &moves), GB_OK);
	assert_int_equal(moves, 2);
	assert_int_equal(store_was_processed(f->s, "telegram", "u1"), GB_EDUP);
	assert_int_equal(store_was_processed(f->s, "telegram", "u2"), GB_OK);
}

static void test_transaction_isolation(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "iso", NULL);
	struct store *s2 = NULL;
	int n = -1;

	assert_int_equal(store_open(&s2, f->path), GB_OK);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 1, "u1", "roll", NULL), GB_OK);
	/* the other handle does not see uncommitted work */
	assert_int_equal(store_move_count(s2, id, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(store_move_count(s2, id, &n), GB_OK);
	assert_int_equal(n, 1);
	store_free(s2);
}

/* ---- outbox ---- */

static void test_outbox(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int n = -1;
	int64_t first;

	assert_int_equal(store_out_add(f->s, "telegram", "c3", 0, NULL, "{\"n\":3}", 300), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 0, NULL, "{\"n\":1}", 100), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 0, NULL, "{\"n\":2}", 200), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 0, NULL, "{\"n\":2b}", 200), GB_OK);
	assert_int_equal(store_out_add(f->s, "discord", "c1", 0, NULL, "{\"n\":0}", 0), GB_OK);

	assert_int_equal(store_out_due(f->s, "telegram", 250, o, 8, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_string_equal(o[0].payload, "{\"n\":1}");
	assert_string_equal(o[0].chat, "c1");
	assert_string_equal(o[0].platform, "telegram");
	assert_int_equal(o[0].due_ms, 100);
	assert_int_equal(o[0].attempts, 0);
	assert_string_equal(o[1].payload, "{\"n\":2}"); /* equal due times: queue order */
	assert_string_equal(o[2].payload, "{\"n\":2b}");
	first = o[0].id;
	for (int i = 0; i < n; i++)
		store_out_release(&o[i]);

	/* max */
	assert_int_equal(store_out_due(f->s, "telegram", 250, o, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	store_out_release(&o[0]);

	/* retry: counted and moved */
	assert_int_equal(store_out_retry(f->s, first, 1000, 1), GB_OK);
	assert_int_equal(store_out_retry(f->s, first, 1500, 1), GB_OK);
	assert_int_equal(store_out_due(f->s, "telegram", 250, o, 8, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].payload, "{\"n\":2}");
	for (int i = 0; i < n; i++)
		store_out_release(&o[i]);
	assert_int_equal(store_out_due(f->s, "telegram", 2000, o, 8, &n), GB_OK);
	assert_int_equal(n, 4);
	assert_string_equal(o[3].payload, "{\"n\":1}");
	assert_int_equal(o[3].attempts, 2);
	assert_int_equal(o[3].due_ms, 1500);
	for (int i = 0; i < n; i++)
		store_out_release(&o[i]);

	/* done removes */
	assert_int_equal(store_out_done(f->s, first), GB_OK);
	assert_int_equal(store_out_done(f->s, first), GB_ENOTFOUND);
	assert_int_equal(store_out_retry(f->s, first, 5, 1), GB_ENOTFOUND);
	assert_int_equal(store_out_due(f->s, "telegram", 2000, o, 8, &n), GB_OK);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++) {
		assert_int_not_equal(o[i].id, first);
		store_out_release(&o[i]);
	}
	assert_int_equal(store_out_due(f->s, "discord", 0, o, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	store_out_release(&o[0]);
	assert_int_equal(store_out_due(f->s, "console", 9999, o, 8, &n), GB_OK);
	assert_int_equal(n, 0);
}

/* Claim on s at now_ms with lease_ms; returns the count, rows in o (released by the caller). */
static int claim(struct store *s, int64_t now_ms, int64_t lease_ms, struct store_out *o, int max)
{
	int n = -1;

	assert_int_equal(store_out_claim(s, "telegram", now_ms, lease_ms, o, max, &n), GB_OK);
	assert_true(n >= 0 && n <= max);
	return n;
}

static void release_outs(struct store_out *o, int n)
{
	for (int i = 0; i < n; i++)
		store_out_release(&o[i]);
}

/* Queue payload for chat on telegram and return its id (the newest row's). */
static int64_t queue(struct store *s, const char *chat, const char *key, const char *payload,
		     int64_t due_ms)
{
	struct store_out o[64];
	int64_t id = 0;
	int n = 0;

	assert_int_equal(store_out_add(s, "telegram", chat, 0, key, payload, due_ms), GB_OK);
	assert_int_equal(store_out_due(s, "telegram", INT64_MAX, o, 64, &n), GB_OK);
	for (int i = 0; i < n; i++) {
		if (strcmp(o[i].payload, payload) == 0 && o[i].id > id)
			id = o[i].id;
		store_out_release(&o[i]);
	}
	assert_true(id > 0);
	return id;
}

/*
 * A worker claims a row and dies without ending it: nobody gets the row
 * while the lease runs, then the same row comes back, once.
 */
static void test_outbox_lease_expiry_after_crash(void **state)
{
	struct fixture *f = *state;
	struct store *worker = NULL;
	struct store *other = NULL;
	struct store_out o[4];
	int64_t id = queue(f->s, "c1", NULL, "{\"n\":1}", 100);
	int n;

	assert_int_equal(store_open(&worker, f->path), GB_OK);
	assert_int_equal(store_out_claim(worker, "telegram", 100, 1000, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, id);
	assert_int_equal(o[0].lease_until_ms, 1100);
	assert_string_equal(o[0].payload, "{\"n\":1}");
	store_out_release(&o[0]);
	store_free(worker); /* the crash: neither done nor retry */

	/* another worker, another handle: nothing while the lease is live */
	assert_int_equal(store_open(&other, f->path), GB_OK);
	assert_int_equal(claim(other, 100, 1000, o, 4), 0);
	assert_int_equal(claim(other, 1099, 1000, o, 4), 0);
	/* a due list ignores leases (the console prints everything) */
	assert_int_equal(store_out_due(other, "telegram", 1099, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	store_out_release(&o[0]);

	/* expired: the same row, not counted as an attempt, leased anew */
	assert_int_equal(claim(other, 1100, 500, o, 4), 1);
	assert_int_equal(o[0].id, id);
	assert_int_equal(o[0].attempts, 0);
	assert_int_equal(o[0].lease_until_ms, 1600);
	store_out_release(&o[0]);
	/* and only once: the first handle does not get it too */
	assert_int_equal(claim(f->s, 1100, 500, o, 4), 0);
	assert_int_equal(store_out_done(other, id), GB_OK);
	assert_int_equal(claim(f->s, 99999, 500, o, 4), 0);
	store_free(other);

	/* inside the caller's transaction the claim is part of it */
	id = queue(f->s, "c1", NULL, "{\"n\":2}", 100);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(claim(f->s, 200, 1000, o, 4), 1);
	store_out_release(&o[0]);
	store_rollback(f->s);
	assert_int_equal(claim(f->s, 200, 1000, o, 4), 1); /* the lease was rolled back */
	assert_int_equal(o[0].id, id);
	store_out_release(&o[0]);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(claim(f->s, 300, 1000, o, 4), 0);
	assert_int_equal(store_commit(f->s), GB_OK);

	/* a lease must run forward */
	assert_int_equal(store_out_claim(f->s, "telegram", 200, 0, o, 4, &n), GB_EARGS);
	assert_int_equal(store_out_claim(f->s, "telegram", 200, -5, o, 4, &n), GB_EARGS);
	assert_int_equal(store_out_claim(f->s, "telegram", INT64_MAX, 1, o, 4, &n), GB_EARGS);
	assert_int_equal(n, 0);
}

/*
 * A chat's rows go out in queue order: while its first row keeps failing,
 * the second waits; other chats flow.
 */
static void test_outbox_chat_order(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int64_t a1 = queue(f->s, "a", NULL, "{\"a\":1}", 100);
	int64_t a2 = queue(f->s, "a", NULL, "{\"a\":2}", 100);
	int64_t b1 = queue(f->s, "b", NULL, "{\"b\":1}", 150);
	int64_t b2 = queue(f->s, "b", NULL, "{\"b\":2}", 150);
	int n;

	/* one row per chat, oldest due first */
	n = claim(f->s, 200, 50, o, 8);
	assert_int_equal(n, 2);
	assert_int_equal(o[0].id, a1);
	assert_int_equal(o[1].id, b1);
	release_outs(o, n);
	/* while a1 is out (leased), a2 is not claimed though due */
	assert_int_equal(claim(f->s, 210, 50, o, 8), 0);

	/* a1 fails: its due time moves; b's rows go on, a2 waits */
	assert_int_equal(store_out_retry(f->s, a1, 1000, 1), GB_OK);
	assert_int_equal(store_out_done(f->s, b1), GB_OK);
	n = claim(f->s, 300, 50, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, b2);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, b2), GB_OK);
	assert_int_equal(claim(f->s, 999, 50, o, 8), 0);

	/* a1's new time: a1 again, then a2 once a1 is delivered */
	n = claim(f->s, 1000, 50, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, a1);
	assert_int_equal(o[0].attempts, 1);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, a1), GB_OK);
	n = claim(f->s, 1000, 50, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, a2);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, a2), GB_OK);

	/* due rows are picked in queue order, returned sorted by due time; max holds */
	queue(f->s, "x", NULL, "{\"x\":1}", 30);
	queue(f->s, "y", NULL, "{\"y\":1}", 10);
	queue(f->s, "z", NULL, "{\"z\":1}", 20);
	queue(f->s, "y", NULL, "{\"y\":2}", 0); /* behind y's first row whatever its due time */
	n = claim(f->s, 2000, 50, o, 2);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].payload, "{\"y\":1}");
	assert_string_equal(o[1].payload, "{\"x\":1}");
	/* released at their own due times (a retry-after), then claimed with z */
	assert_int_equal(store_out_retry(f->s, o[0].id, 10, 0), GB_OK);
	assert_int_equal(store_out_retry(f->s, o[1].id, 30, 0), GB_OK);
	release_outs(o, n);
	n = claim(f->s, 2000, 50, o, 8);
	assert_int_equal(n, 3);
	assert_string_equal(o[0].payload, "{\"y\":1}");
	assert_string_equal(o[1].payload, "{\"z\":1}");
	assert_string_equal(o[2].payload, "{\"x\":1}"); /* queued first, due last */
	release_outs(o, n);
	assert_int_equal(store_out_claim(f->s, "telegram", 2000, 50, NULL, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	/* another platform's rows are its own */
	assert_int_equal(store_out_claim(f->s, "discord", 2000, 50, o, 8, &n), GB_OK);
	assert_int_equal(n, 0);
}

/* Queue a turn-critical payload for chat on telegram due at 100; its id. */
static int64_t queue_turn(struct store *s, const char *chat, const char *key, const char *payload)
{
	struct store_out o[16];
	int64_t id = 0;
	int n = 0;

	assert_int_equal(store_out_add_prio(s, "telegram", chat, 7, key, payload, 100, STORE_OUT_TURN),
			 GB_OK);
	assert_int_equal(store_out_chat(s, "telegram", chat, o, 16, &n), GB_OK);
	for (int i = 0; i < n; i++) {
		if (strcmp(o[i].payload, payload) == 0) {
			assert_int_equal(o[i].prio, STORE_OUT_TURN);
			id = o[i].id;
		}
		store_out_release(&o[i]);
	}
	assert_true(id > 0);
	return id;
}

/* Claim at now and return the one row's id (exactly one row expected), released. */
static int64_t claim_one(struct store *s, int64_t now_ms)
{
	struct store_out o[8];
	int64_t id;

	assert_int_equal(claim(s, now_ms, 50, o, 8), 1);
	id = o[0].id;
	release_outs(o, 1);
	return id;
}

/*
 * A chat's turn-critical rows (its boards) go before its informational
 * ones queued earlier, each class in queue order; a turn-critical row
 * queued while an informational one is out waits for it; a board that
 * replaces a board keeps its class's place, and its place in its chat: a
 * line queued after the replaced board still goes after the newer one.
 */
static void test_outbox_turn_first(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int64_t i1 = queue(f->s, "a", NULL, "{\"joined\":1}", 100);
	int64_t i2 = queue(f->s, "a", NULL, "{\"joined\":2}", 100);
	int64_t t1 = queue_turn(f->s, "a", NULL, "{\"board\":1}");
	int64_t t2 = queue_turn(f->s, "a", NULL, "{\"board\":2}");
	int64_t i3, t3, t4, i4;
	int n;

	assert_true(i1 < i2 && i2 < t1 && t1 < t2);
	assert_int_equal(claim_one(f->s, 200), t1);
	assert_int_equal(claim(f->s, 200, 50, o, 8), 0); /* one row of a chat at a time */
	assert_int_equal(store_out_done(f->s, t1), GB_OK);
	assert_int_equal(claim_one(f->s, 200), t2);
	assert_int_equal(store_out_done(f->s, t2), GB_OK);
	assert_int_equal(claim_one(f->s, 200), i1);
	assert_int_equal(store_out_done(f->s, i1), GB_OK);
	assert_int_equal(claim_one(f->s, 200), i2);

	/* i2 is out: a board queued now waits for it, then goes before i3 */
	t3 = queue_turn(f->s, "a", NULL, "{\"board\":3}");
	assert_int_equal(claim(f->s, 210, 50, o, 8), 0);
	i3 = queue(f->s, "a", NULL, "{\"joined\":3}", 100);
	assert_int_equal(store_out_retry(f->s, i2, 300, 0), GB_OK); /* a retry-after */
	assert_int_equal(claim_one(f->s, 220), t3); /* the board need not wait for i2's time */
	assert_int_equal(store_out_done(f->s, t3), GB_OK);
	assert_int_equal(claim(f->s, 230, 50, o, 8), 0); /* i2 still heads its class, not due */
	assert_int_equal(claim_one(f->s, 300), i2);
	assert_int_equal(store_out_done(f->s, i2), GB_OK);

	/* a newer board of the same table replaces the one waiting, still first */
	t4 = queue_turn(f->s, "a", "table:7", "{\"board\":4}");
	i4 = queue(f->s, "a", NULL, "{\"joined\":4}", 100);
	queue_turn(f->s, "a", "table:7", "{\"board\":5}");
	assert_int_equal(store_out_chat(f->s, "telegram", "a", o, 8, &n), GB_OK);
	assert_int_equal(n, 3); /* i3, i4 and the newest board */
	release_outs(o, n);
	assert_int_equal(claim(f->s, 400, 50, o, 8), 1);
	assert_true(o[0].id != t4);
	assert_string_equal(o[0].payload, "{\"board\":5}");
	assert_int_equal(o[0].prio, STORE_OUT_TURN);
	assert_int_equal(store_out_done(f->s, o[0].id), GB_OK);
	release_outs(o, 1);
	assert_int_equal(claim_one(f->s, 400), i3);
	assert_int_equal(store_out_done(f->s, i3), GB_OK);
	assert_int_equal(claim_one(f->s, 400), i4);
	assert_int_equal(store_out_done(f->s, i4), GB_OK);

	/* board, the line that goes with it, then a newer board before either went */
	t4 = queue_turn(f->s, "l", "table:8", "{\"board\":6}");
	t3 = queue_turn(f->s, "l", NULL, "{\"left\":1}");
	t1 = queue_turn(f->s, "l", "table:8", "{\"board\":7}");
	assert_true(t4 < t3 && t3 < t1);
	assert_int_equal(claim(f->s, 500, 50, o, 8), 1);
	assert_string_equal(o[0].payload, "{\"board\":7}");
	assert_int_equal(store_out_done(f->s, o[0].id), GB_OK);
	release_outs(o, 1);
	assert_int_equal(claim_one(f->s, 500), t3);

	/* another chat's order is its own; a class that is not one is refused */
	assert_int_equal(store_out_add_prio(f->s, "telegram", "b", 0, NULL, "{}", 0, 2), GB_EARGS);
	assert_int_equal(store_out_add_prio(f->s, "telegram", "b", 0, NULL, "{}", 0, -1), GB_EARGS);
}

/*
 * A new row waits for its chat's rows that wait (a retry-after), even one
 * that would go first; a row that replaces another keeps its place among
 * the chats.
 */
static void test_outbox_new_rows_wait_and_keep_place(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int64_t i1 = queue(f->s, "a", NULL, "{\"joined\":1}", 100), t1;
	int n;

	assert_int_equal(store_out_delay(f->s, "telegram", "a", 5000), GB_OK);
	t1 = queue_turn(f->s, "a", NULL, "{\"board\":1}"); /* queued at 100 */
	assert_int_equal(claim(f->s, 4999, 50, o, 8), 0);
	assert_int_equal(claim_one(f->s, 5000), t1);
	assert_int_equal(store_out_done(f->s, t1), GB_OK);
	assert_int_equal(claim_one(f->s, 5000), i1);
	assert_int_equal(store_out_done(f->s, i1), GB_OK);

	/* b's board waits from 6000, c's row from 6100; b's newer board at 6200 keeps 6000 */
	assert_int_equal(store_out_add_prio(f->s, "telegram", "b", 7, "table:7", "{\"b\":1}", 6000,
					    STORE_OUT_TURN), GB_OK);
	queue(f->s, "c", NULL, "{\"c\":1}", 6100);
	assert_int_equal(store_out_add_prio(f->s, "telegram", "b", 7, "table:7", "{\"b\":2}", 6200,
					    STORE_OUT_TURN), GB_OK);
	n = claim(f->s, 6300, 50, o, 8);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].payload, "{\"b\":2}");
	assert_int_equal(o[0].due_ms, 6000);
	assert_string_equal(o[1].payload, "{\"c\":1}");
	for (int i = 0; i < n; i++)
		assert_int_equal(store_out_done(f->s, o[i].id), GB_OK);
	release_outs(o, n);

	/*
	 * The platform told to wait: when it may go again, the rows that
	 * waited go first, not one queued meanwhile for another chat.
	 */
	queue(f->s, "d", NULL, "{\"d\":1}", 7000);
	queue(f->s, "e", NULL, "{\"e\":1}", 7000);
	assert_int_equal(store_out_delay(f->s, "telegram", NULL, 9000), GB_OK);
	queue(f->s, "g", NULL, "{\"g\":1}", 8000);
	n = claim(f->s, 9000, 50, o, 2);
	assert_int_equal(n, 2);
	assert_string_equal(o[0].payload, "{\"d\":1}");
	assert_string_equal(o[1].payload, "{\"e\":1}");
	for (int i = 0; i < n; i++)
		assert_int_equal(store_out_done(f->s, o[i].id), GB_OK);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, claim_one(f->s, 9000)), GB_OK); /* g's, last */

	/*
	 * A board being sent when a newer one is queued (the sender finds it
	 * superseded): the newer one takes its place in the queue, ahead of
	 * another chat's row queued in between.
	 */
	assert_int_equal(store_out_add_prio(f->s, "telegram", "h", 8, "table:8", "{\"h\":1}", 10000,
					    STORE_OUT_TURN), GB_OK);
	queue(f->s, "i", NULL, "{\"i\":1}", 10000);
	n = claim(f->s, 10000, 5000, o, 1);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].payload, "{\"h\":1}");
	assert_int_equal(store_out_add_prio(f->s, "telegram", "h", 8, "table:8", "{\"h\":2}", 10100,
					    STORE_OUT_TURN), GB_OK);
	assert_int_equal(store_out_done(f->s, o[0].id), GB_OK);
	release_outs(o, n);
	n = claim(f->s, 10200, 5000, o, 1);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].payload, "{\"h\":2}");
	release_outs(o, n);
}

/* Two workers draining one queue, each on its own handle. */
#define RACE_CHATS 20
#define RACE_PER_CHAT 8

struct race {
	const char *path;
	pthread_mutex_t lock;
	int next[RACE_CHATS];      /* per chat: the sequence number expected next */
	int delivered;
	int errors;                /* a store call failed */
	int disorder;              /* a row twice, or out of its chat's order */
};

static void *race_worker(void *arg)
{
	struct race *r = arg;
	struct store *s = NULL;
	struct store_out o[4];
	int idle = 0;

	if (store_open(&s, r->path) != GB_OK) {
		pthread_mutex_lock(&r->lock);
		r->errors++;
		pthread_mutex_unlock(&r->lock);
		return NULL;
	}
	while (idle < 50) {
		int n = 0;

		/* one fixed "now" and a long lease: nothing is claimed twice unless the store errs */
		if (store_out_claim(s, "telegram", 1000, 3600000, o, 4, &n) != GB_OK) {
			pthread_mutex_lock(&r->lock);
			r->errors++;
			pthread_mutex_unlock(&r->lock);
			break;
		}
		idle = n ? 0 : idle + 1;
		if (n) {
			/* sending takes a while, without the database: the other worker claims meanwhile */
			struct timespec send = { .tv_nsec = 200000 };

			nanosleep(&send, NULL);
		}
		for (int i = 0; i < n; i++) {
			char *end = NULL;
			long chat = strtol(o[i].chat + 1, &end, 10); /* "c<n>" */
			int64_t seq = o[i].due_ms;                   /* queued due at its number */

			pthread_mutex_lock(&r->lock);
			if (o[i].chat[0] != 'c' || *end != '\0' || chat < 0 || chat >= RACE_CHATS ||
			    r->next[chat] != seq)
				r->disorder++;
			else
				r->next[chat]++;
			r->delivered++;
			pthread_mutex_unlock(&r->lock);
			if (store_out_done(s, o[i].id) != GB_OK) {
				pthread_mutex_lock(&r->lock);
				r->errors++;
				pthread_mutex_unlock(&r->lock);
			}
			store_out_release(&o[i]);
		}
		if (!n)
			sched_yield();
	}
	store_free(s);
	return NULL;
}

static void test_outbox_two_workers(void **state)
{
	struct fixture *f = *state;
	struct race r = { .path = f->path };
	pthread_t th[2];
	int pending = -1;

	pthread_mutex_init(&r.lock, NULL);
	assert_int_equal(store_begin(f->s), GB_OK);
	for (int k = 0; k < RACE_PER_CHAT; k++) {
		for (int c = 0; c < RACE_CHATS; c++) {
			char chat[16];
			char payload[48];

			snprintf(chat, sizeof chat, "c%d", c);
			snprintf(payload, sizeof payload, "{\"c\":%d,\"s\":%d}", c, k);
			assert_int_equal(store_out_add(f->s, "telegram", chat, 0, NULL, payload, k), GB_OK);
		}
	}
	assert_int_equal(store_commit(f->s), GB_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race_worker, &r), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_mutex_destroy(&r.lock);
	assert_int_equal(r.errors, 0);
	assert_int_equal(r.disorder, 0);
	assert_int_equal(r.delivered, RACE_CHATS * RACE_PER_CHAT);
	assert_int_equal(store_out_count(f->s, "telegram", &pending, NULL, NULL), GB_OK);
	assert_int_equal(pending, 0);
}

/* Replaceable rows: only the newest of a key goes out, a claimed one stays. */
static void test_outbox_coalescing(void **state)
{
	struct fixture *f = *state;
	struct store_out o[16];
	int pending = -1;
	int aside = -1;
	int64_t oldest = -1;
	int64_t v3;
	int64_t v4;
	int n;

	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":1}", 100), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":2}", 110), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":3}", 120), GB_OK);
	assert_int_equal(store_out_count(f->s, "telegram", &pending, &aside, &oldest), GB_OK);
	assert_int_equal(pending, 1);
	assert_int_equal(aside, 0);
	assert_int_equal(oldest, 100); /* the newest took the place of the oldest */
	n = claim(f->s, 120, 1000, o, 16);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].payload, "{\"v\":3}");
	assert_string_equal(o[0].key, "table:42");
	assert_int_equal(o[0].table, 42);
	v3 = o[0].id;
	release_outs(o, n);
	/* rewritten in place twice: the row's index entries still agree with it */
	if (!is_pg(f))
		assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_integrity_check"
					 " WHERE integrity_check <> 'ok'"), 0);

	/* v3 is out (leased to 1120): the next edit does not delete it */
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":4}", 130), GB_OK);
	assert_int_equal(store_out_count(f->s, "telegram", &pending, NULL, NULL), GB_OK);
	assert_int_equal(pending, 2);
	assert_int_equal(claim(f->s, 140, 1000, o, 16), 0); /* v4 waits behind v3 */
	assert_int_equal(store_out_done(f->s, v3), GB_OK);
	n = claim(f->s, 140, 1000, o, 16);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].payload, "{\"v\":4}");
	v4 = o[0].id;
	release_outs(o, n);
	/* a lease that ends before the new row is due no longer protects it */
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":5}", 1140), GB_OK);
	assert_int_equal(store_out_done(f->s, v4), GB_ENOTFOUND);

	/* other keys, chats, platforms and keyless rows are untouched */
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 43, "table:43", "{\"o\":1}", 0), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 42, "table:42", "{\"o\":2}", 0), GB_OK);
	assert_int_equal(store_out_add(f->s, "discord", "c1", 42, "table:42", "{\"o\":3}", 0), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, NULL, "{\"o\":4}", 0), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "", "{\"o\":5}", 0), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 42, "table:42", "{\"v\":6}", 2000), GB_OK);
	assert_int_equal(store_out_count(f->s, NULL, &pending, NULL, NULL), GB_OK);
	assert_int_equal(pending, 6);
	assert_int_equal(store_out_due(f->s, "telegram", INT64_MAX, o, 16, &n), GB_OK);
	assert_int_equal(n, 5);
	assert_string_equal(o[4].payload, "{\"v\":6}");
	for (int i = 0; i < n; i++) {
		assert_string_not_equal(o[i].payload, "{\"v\":5}");
		if (strcmp(o[i].payload, "{\"o\":4}") == 0 || strcmp(o[i].payload, "{\"o\":5}") == 0)
			assert_string_equal(o[i].key, "");
	}
	release_outs(o, n);

	/* a row set aside is never replaced */
	n = claim(f->s, 3000, 1000, o, 16);
	for (int i = 0; i < n; i++) {
		if (strcmp(o[i].payload, "{\"o\":2}") == 0)
			assert_int_equal(store_out_set_aside(f->s, o[i].id, "bad payload"), GB_OK);
	}
	release_outs(o, n);
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 42, "table:42", "{\"o\":6}", 0), GB_OK);
	assert_int_equal(store_out_count(f->s, "telegram", &pending, &aside, NULL), GB_OK);
	assert_int_equal(aside, 1);
	assert_int_equal(pending, 5);

	/* a key must fit */
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 0, "a-key-of-thirty-two-bytes-long!!", "{}", 0),
			 GB_EARGS);
}

/* Claims a stopped service left under lease are taken back: claimable at once, set-aside rows untouched. */
static void test_outbox_unlease(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int n = -1;

	queue(f->s, "c1", NULL, "{\"n\":1}", 0);
	queue(f->s, "c2", NULL, "{\"n\":2}", 0);
	queue(f->s, "c3", NULL, "{\"n\":3}", 0);
	/* all three claimed until 100,000; c2 then set aside */
	assert_int_equal(claim(f->s, 1000, 99000, o, 8), 3);
	for (int i = 0; i < 3; i++) {
		if (strcmp(o[i].chat, "c2") == 0)
			assert_int_equal(store_out_set_aside(f->s, o[i].id, "bad"), GB_OK);
	}
	release_outs(o, 3);
	assert_int_equal(claim(f->s, 5000, 1000, o, 8), 0);
	assert_int_equal(store_out_unlease(f->s, 5000, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(claim(f->s, 5000, 1000, o, 8), 2);
	release_outs(o, 2);
	/* leases that are over by now_ms are left alone */
	assert_int_equal(store_out_unlease(f->s, 6000, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_out_unlease(f->s, 6000, NULL), GB_OK);
	assert_int_equal(store_out_unlease(NULL, 0, &n), GB_EARGS);
	assert_int_equal(n, 0);
}

/* A lease kept longer by the worker holding the row: nobody claims it until then. */
static void test_outbox_extend(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t id = queue(f->s, "c1", NULL, "{\"n\":1}", 0);

	/* claimed until 2,000, kept until 9,000 */
	assert_int_equal(claim(f->s, 1000, 1000, o, 4), 1);
	release_outs(o, 1);
	assert_int_equal(store_out_extend(f->s, id, 9000), GB_OK);
	assert_int_equal(claim(f->s, 5000, 1000, o, 4), 0);
	/* never shortened: the worker may be sending it until 9,000 */
	assert_int_equal(store_out_extend(f->s, id, 6000), GB_OK);
	assert_int_equal(claim(f->s, 7000, 1000, o, 4), 0);
	assert_int_equal(claim(f->s, 9000, 1000, o, 4), 1);
	release_outs(o, 1);
	/* handed back: no lease to keep */
	assert_int_equal(store_out_retry(f->s, id, 0, 0), GB_OK);
	assert_int_equal(store_out_extend(f->s, id, 20000), GB_ENOTFOUND);
	assert_int_equal(claim(f->s, 10000, 1000, o, 4), 1);
	release_outs(o, 1);
	/* set aside, or no such row */
	assert_int_equal(store_out_set_aside(f->s, id, "bad"), GB_OK);
	assert_int_equal(store_out_extend(f->s, id, 20000), GB_ENOTFOUND);
	assert_int_equal(store_out_extend(f->s, id + 100, 20000), GB_ENOTFOUND);
	assert_int_equal(store_out_extend(NULL, id, 20000), GB_EARGS);
}

/*
 * A row taken by a thread of its own (a press's answer sent by the
 * listener that received it): no worker claims it, nor its chat's next
 * row, while the lease runs; a row queued meanwhile keeps its own due
 * time, and goes out as soon as the taken one is settled.
 */
static void test_outbox_lease(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t id = queue(f->s, "c1", NULL, "{\"answer\":1}", 1000), next;
	int64_t due = 0;
	int n = 0;

	assert_int_equal(store_out_lease(f->s, id, 1000, 16000), GB_OK);
	next = queue(f->s, "c1", NULL, "{\"board\":2}", 1100);
	assert_int_equal(store_out_due(f->s, "telegram", INT64_MAX, o, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		if (o[i].id == next)
			due = o[i].due_ms;
		store_out_release(&o[i]);
	}
	assert_int_equal(due, 1100); /* not placed behind the lease */
	assert_int_equal(claim(f->s, 1200, 1000, o, 4), 0);
	/* taken already, by itself or a worker */
	assert_int_equal(store_out_lease(f->s, id, 1200, 16000), GB_ENOTFOUND);
	assert_int_equal(store_out_done(f->s, id), GB_OK);
	assert_int_equal(claim(f->s, 1300, 1000, o, 4), 1);
	assert_int_equal(o[0].id, next);
	release_outs(o, 1);
	/* a worker's row is not taken from it */
	assert_int_equal(store_out_lease(f->s, next, 1400, 16000), GB_ENOTFOUND);
	assert_int_equal(store_out_lease(f->s, next + 100, 1400, 16000), GB_ENOTFOUND);
	assert_int_equal(store_out_lease(NULL, next, 1400, 16000), GB_EARGS);
}

/*
 * Rows set aside, queued again by an operator (their cause mended): those
 * of the platform named, set aside within the window, due at once with no
 * attempt counted, each in its old place among its chat's rows.
 */
static void test_outbox_requeue(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t a = queue(f->s, "c1", NULL, "{\"a\":1}", 100);
	int64_t b = queue(f->s, "c1", NULL, "{\"b\":1}", 100);
	int n = -1;

	assert_int_equal(store_out_add(f->s, "discord", "c9", 0, NULL, "{\"d\":1}", 100), GB_OK);
	assert_int_equal(store_out_claim(f->s, "discord", 100, 10, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_out_set_aside(f->s, o[0].id, "refused"), GB_OK);
	release_outs(o, n);
	assert_int_equal(claim(f->s, 200, 10, o, 4), 1);
	assert_int_equal(o[0].id, a);
	release_outs(o, 1);
	assert_int_equal(store_out_retry(f->s, a, 300, 1), GB_OK);
	assert_int_equal(store_out_set_aside(f->s, a, "chat not found"), GB_OK);
	/* only Telegram's: a, due at 5000, ahead of b (its place) and with no attempt */
	assert_int_equal(store_out_requeue(f->s, "telegram", 60000, 5000, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(claim(f->s, 5000, 10, o, 4), 1);
	assert_int_equal(o[0].id, a);
	assert_int_equal(o[0].attempts, 0);
	release_outs(o, 1);
	assert_int_equal(store_out_done(f->s, a), GB_OK);
	assert_int_equal(claim_one(f->s, 5000), b);
	assert_int_equal(store_out_done(f->s, b), GB_OK);
	/* none of Telegram's left aside; Discord's, with every platform */
	assert_int_equal(store_out_requeue(f->s, "telegram", 60000, 6000, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_out_requeue(f->s, NULL, 60000, 6000, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_out_claim(f->s, "discord", 6000, 10, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	release_outs(o, n);
	assert_int_equal(store_out_requeue(f->s, "", 60000, 6000, &n), GB_EARGS);
	assert_int_equal(store_out_requeue(f->s, NULL, -1, 6000, &n), GB_EARGS);
	assert_int_equal(store_out_requeue(NULL, NULL, 60000, 6000, &n), GB_EARGS);
}

static void test_outbox_attempts(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t id = queue(f->s, "c1", NULL, "{\"n\":1}", 0);
	int n;

	assert_int_equal(claim(f->s, 0, 1000, o, 4), 1);
	release_outs(o, 1);
	/* a failure counts; the lease is released, so the new time holds, not the lease */
	assert_int_equal(store_out_retry(f->s, id, 10, 1), GB_OK);
	n = claim(f->s, 10, 1000, o, 4);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].attempts, 1);
	assert_int_equal(o[0].due_ms, 10);
	release_outs(o, n);
	/* a platform's retry-after does not */
	assert_int_equal(store_out_retry(f->s, id, 20, 0), GB_OK);
	n = claim(f->s, 20, 1000, o, 4);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].attempts, 1);
	release_outs(o, n);
	assert_int_equal(store_out_retry(f->s, id, 30, 7), GB_OK); /* counts one */
	assert_int_equal(store_out_due(f->s, "telegram", 30, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].attempts, 2);
	assert_int_equal(o[0].lease_until_ms, 0);
	release_outs(o, n);
	assert_int_equal(store_out_retry(f->s, id + 1, 30, 1), GB_ENOTFOUND);
}

static void test_outbox_set_aside(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t x1 = queue(f->s, "x", NULL, "{\"x\":1}", 100);
	int64_t x2 = queue(f->s, "x", NULL, "{\"x\":2}", 200);
	int64_t y1 = queue(f->s, "y", NULL, "{\"y\":1}", 50);
	int64_t before = (int64_t)time(NULL) * 1000;
	int pending = -1;
	int aside = -1;
	int64_t oldest = -1;
	int n;

	n = claim(f->s, 300, 1000, o, 4);
	assert_int_equal(n, 2);
	release_outs(o, n);
	assert_int_equal(store_out_set_aside(f->s, x1, "chat blocked the bot"), GB_OK);
	assert_int_equal(store_out_set_aside(f->s, x1, "again"), GB_ENOTFOUND);
	assert_int_equal(store_out_retry(f->s, x1, 0, 1), GB_ENOTFOUND);
	assert_int_equal(store_out_set_aside(f->s, x1 + 100, NULL), GB_ENOTFOUND);

	/* counted, kept, never claimed or listed; the chat's next row flows */
	assert_int_equal(store_out_count(f->s, "telegram", &pending, &aside, &oldest), GB_OK);
	assert_int_equal(pending, 2);
	assert_int_equal(aside, 1);
	assert_int_equal(oldest, 50);
	n = claim(f->s, 300, 1000, o, 4);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, x2);
	release_outs(o, n);
	assert_int_equal(store_out_due(f->s, "telegram", INT64_MAX, o, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		assert_int_not_equal(o[i].id, x1);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, x2), GB_OK);
	assert_int_equal(store_out_done(f->s, y1), GB_OK);
	assert_int_equal(claim(f->s, INT64_MAX - 1, 1, o, 4), 0);
	assert_int_equal(store_out_count(f->s, NULL, &pending, &aside, &oldest), GB_OK);
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 1);
	assert_int_equal(oldest, 0);
	assert_int_equal(store_out_count(f->s, "discord", &pending, &aside, &oldest), GB_OK);
	assert_int_equal(aside, 0);

	/* the reason and the time are in the file */
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM outbox WHERE aside_why = 'chat blocked the bot'"), 1);
	assert_true(raw_int(f->path, "SELECT aside_ms FROM outbox") >= before - 1000);
	assert_true(raw_int(f->path, "SELECT aside_ms FROM outbox") <= (int64_t)time(NULL) * 1000 + 1000);
	/* done clears it for good */
	assert_int_equal(store_out_done(f->s, x1), GB_OK);
	assert_int_equal(store_out_count(f->s, NULL, &pending, &aside, NULL), GB_OK);
	assert_int_equal(aside, 0);
}

/* One chat's pending rows in queue order, due or not, leased or not; never set aside ones. */
static void test_outbox_chat_rows(void **state)
{
	struct fixture *f = *state;
	struct store_out o[4];
	int64_t a = queue(f->s, "x", NULL, "{\"a\":1}", 5000);
	int64_t b = queue(f->s, "x", NULL, "{\"b\":1}", 100);
	int64_t c = queue(f->s, "x", NULL, "{\"c\":1}", 100);
	int n = -1;

	queue(f->s, "y", NULL, "{\"y\":1}", 0);
	assert_int_equal(claim(f->s, 6000, 1000, o, 4), 2); /* x's head a, and y */
	release_outs(o, 2);
	assert_int_equal(store_out_set_aside(f->s, b, "gone"), GB_OK);
	assert_int_equal(store_out_chat(f->s, "telegram", "x", o, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(o[0].id, a);
	assert_int_equal(o[0].lease_until_ms, 7000);
	assert_int_equal(o[1].id, c);
	assert_string_equal(o[1].payload, "{\"c\":1}");
	release_outs(o, n);
	/* the newest: a command's own rows, however many wait before them */
	assert_int_equal(store_out_chat(f->s, "telegram", "x", o, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, c);
	release_outs(o, n);
	assert_int_equal(store_out_chat(f->s, "discord", "x", o, 4, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_out_chat(f->s, "telegram", "", o, 4, &n), GB_EARGS);
	assert_int_equal(store_out_chat(f->s, "telegram", "x", NULL, 4, &n), GB_EARGS);
}

static void test_outbox_delay(void **state)
{
	struct fixture *f = *state;
	struct store_out o[8];
	int64_t a = queue(f->s, "a", NULL, "{\"a\":1}", 100);
	int64_t b = queue(f->s, "b", NULL, "{\"b\":1}", 100);
	int64_t c = queue(f->s, "c", NULL, "{\"c\":1}", 5000);
	int n;

	assert_int_equal(store_out_add(f->s, "discord", "a", 0, NULL, "{\"d\":1}", 100), GB_OK);

	/* a 429 for chat a: only a waits */
	assert_int_equal(store_out_delay(f->s, "telegram", "a", 3000), GB_OK);
	n = claim(f->s, 200, 10, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, b);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, b), GB_OK);
	assert_int_equal(claim(f->s, 2999, 10, o, 8), 0);
	n = claim(f->s, 3000, 10, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, a);
	assert_int_equal(o[0].due_ms, 3000);
	release_outs(o, n);
	assert_int_equal(store_out_retry(f->s, a, 3000, 0), GB_OK);

	/* for the whole platform: every chat, never earlier than it was */
	b = queue(f->s, "b", NULL, "{\"b\":2}", 100);
	assert_int_equal(store_out_delay(f->s, "telegram", NULL, 4000), GB_OK);
	assert_int_equal(claim(f->s, 3999, 10, o, 8), 0);
	n = claim(f->s, 4000, 10, o, 8);
	assert_int_equal(n, 2);
	assert_int_equal(o[0].id, a);
	assert_int_equal(o[1].id, b);
	release_outs(o, n);
	assert_int_equal(store_out_done(f->s, a), GB_OK);
	assert_int_equal(store_out_done(f->s, b), GB_OK);
	assert_int_equal(claim(f->s, 4999, 10, o, 8), 0);
	n = claim(f->s, 5000, 10, o, 8);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].id, c);
	assert_int_equal(o[0].due_ms, 5000);
	release_outs(o, n);

	/* another platform is not delayed */
	assert_int_equal(store_out_claim(f->s, "discord", 100, 10, o, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	release_outs(o, n);
	assert_int_equal(store_out_delay(f->s, "telegram", "", 1), GB_EARGS);
	assert_int_equal(store_out_delay(f->s, NULL, "a", 1), GB_EARGS);
}

/* ---- timers ---- */

static void test_timers(void **state)
{
	struct fixture *f = *state;
	int64_t a = make_table(f->s, "ta", NULL);
	int64_t b = make_table(f->s, "tb", NULL);
	struct store_timer t = { .table = a, .kind = "bot", .due_ms = 500, .version = 1 };
	struct store_timer out[8];
	struct store_timer next;
	int n = -1;

	assert_int_equal(store_timer_next(f->s, &next), GB_ENOTFOUND);
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	t = (struct store_timer){ .table = a, .kind = "idle", .due_ms = 100, .version = 1 };
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	t = (struct store_timer){ .table = b, .kind = "bot", .due_ms = 300, .version = 4 };
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);

	assert_int_equal(store_timer_next(f->s, &next), GB_OK);
	assert_int_equal(next.table, a);
	assert_string_equal(next.kind, "idle");
	assert_int_equal(next.due_ms, 100);

	assert_int_equal(store_timer_due(f->s, 400, out, 8, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].table, a);
	assert_string_equal(out[0].kind, "idle");
	assert_int_equal(out[1].table, b);
	assert_int_equal(out[1].version, 4);
	assert_int_equal(store_timer_due(f->s, 99, out, 8, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_timer_due(f->s, 10000, out, 2, &n), GB_OK);
	assert_int_equal(n, 2);

	/* replace: one timer per (table, kind) */
	t = (struct store_timer){ .table = a, .kind = "bot", .due_ms = 50, .version = 9 };
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	assert_int_equal(store_timer_next(f->s, &next), GB_OK);
	assert_string_equal(next.kind, "bot");
	assert_int_equal(next.due_ms, 50);
	assert_int_equal(next.version, 9);
	assert_int_equal(store_timer_due(f->s, 10000, out, 8, &n), GB_OK);
	assert_int_equal(n, 3);

	/* clear one, clear all of a table, clear what is not set */
	assert_int_equal(store_timer_clear(f->s, a, "bot"), GB_OK);
	assert_int_equal(store_timer_next(f->s, &next), GB_OK);
	assert_string_equal(next.kind, "idle");
	assert_int_equal(store_timer_clear(f->s, a, "bot"), GB_OK);
	t = (struct store_timer){ .table = a, .kind = "next", .due_ms = 7, .version = 1 };
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	assert_int_equal(store_timer_clear(f->s, a, NULL), GB_OK);
	assert_int_equal(store_timer_due(f->s, 10000, out, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].table, b);
	assert_int_equal(store_timer_clear(f->s, b, "bot"), GB_OK);
	assert_int_equal(store_timer_next(f->s, &next), GB_ENOTFOUND);

	/* a table that does not exist */
	t.table = b + 100;
	assert_int_equal(store_timer_set(f->s, &t), GB_ENOTFOUND);
}

static void test_timer_retry(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "tr", NULL);
	struct store_timer t = { .table = id, .kind = "bot", .due_ms = 500, .version = 3, .attempts = 9 };
	struct store_timer got;
	struct store_timer due[4];
	int attempts = -1;
	int n = -1;

	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	assert_int_equal(store_timer_next(f->s, &got), GB_OK);
	assert_int_equal(got.attempts, 0); /* t.attempts is not stored */

	assert_int_equal(store_timer_retry(f->s, id, "bot", 3, 800, &attempts), GB_OK);
	assert_int_equal(attempts, 1);
	assert_int_equal(store_timer_retry(f->s, id, "bot", 3, 900, &attempts), GB_OK);
	assert_int_equal(attempts, 2);
	assert_int_equal(store_timer_due(f->s, 899, due, 4, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_timer_due(f->s, 900, due, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(due[0].attempts, 2);
	assert_int_equal(due[0].version, 3); /* still the table version it was set for */

	/* set again (the table moved on): attempts start over */
	t.due_ms = 1000;
	t.version = 4;
	assert_int_equal(store_timer_set(f->s, &t), GB_OK);
	assert_int_equal(store_timer_next(f->s, &got), GB_OK);
	assert_int_equal(got.attempts, 0);
	assert_int_equal(got.due_ms, 1000);
	/* a failure of the timer of version 3 neither delays nor counts against version 4's */
	assert_int_equal(store_timer_retry(f->s, id, "bot", 3, 1500, &attempts), GB_ENOTFOUND);
	assert_int_equal(store_timer_delay(f->s, id, "bot", 3, 1500), GB_ENOTFOUND);
	assert_int_equal(store_timer_next(f->s, &got), GB_OK);
	assert_int_equal(got.due_ms, 1000);
	assert_int_equal(got.attempts, 0);
	/* its own version's wait lengthened: due later, attempts kept */
	assert_int_equal(store_timer_delay(f->s, id, "bot", 4, 1050), GB_OK);
	assert_int_equal(store_timer_next(f->s, &got), GB_OK);
	assert_int_equal(got.due_ms, 1050);
	assert_int_equal(store_timer_delay(f->s, id, "idle", 4, 1050), GB_ENOTFOUND);
	assert_int_equal(store_timer_delay(NULL, id, "bot", 4, 1050), GB_EARGS);
	assert_int_equal(store_timer_retry(f->s, id, "bot", 4, 1100, &attempts), GB_OK);
	assert_int_equal(attempts, 1);

	assert_int_equal(store_timer_retry(f->s, id, "idle", 4, 1100, &attempts), GB_ENOTFOUND);
	assert_int_equal(attempts, 0);
	assert_int_equal(store_timer_retry(f->s, id + 1, "bot", 4, 1100, &attempts), GB_ENOTFOUND);
	assert_int_equal(store_timer_retry(f->s, id, "bot", 4, 1100, NULL), GB_EARGS);
	assert_int_equal(store_timer_retry(f->s, id, "", 4, 1100, &attempts), GB_EARGS);
	/* the failed calls changed nothing */
	assert_int_equal(store_timer_next(f->s, &got), GB_OK);
	assert_int_equal(got.attempts, 1);
	assert_int_equal(got.due_ms, 1100);
}

/*
 * Random timer operations against a naive array of (table, kind, due)
 * compared after every step: due lists and the next timer must agree.
 */
static void test_timers_random(void **state)
{
	struct fixture *f = *state;
	static const char *const kinds[] = { "bot", "idle", "next" };
	struct ref {
		int set;
		int64_t due;
	} ref[4][3];
	int64_t tables[4];
	struct store_timer out[16];
	unsigned seed = 12345;
	int n;

	memset(ref, 0, sizeof ref);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof name, "r%d", i);
		tables[i] = make_table(f->s, name, NULL);
	}
	for (int step = 0; step < 400; step++) {
		int ti, ki, op;
		int64_t now;
		int want = 0;

		seed = seed * 1103515245u + 12345u;
		ti = (int)((seed >> 8) % 4);
		ki = (int)((seed >> 12) % 3);
		op = (int)((seed >> 16) % 4);
		now = (int64_t)((seed >> 20) % 1000);
		if (op < 2) {
			struct store_timer t = { .table = tables[ti], .due_ms = (int64_t)((seed >> 4) % 1000) };

			snprintf(t.kind, sizeof t.kind, "%s", kinds[ki]);
			assert_int_equal(store_timer_set(f->s, &t), GB_OK);
			ref[ti][ki].set = 1;
			ref[ti][ki].due = t.due_ms;
		} else if (op == 2) {
			assert_int_equal(store_timer_clear(f->s, tables[ti], kinds[ki]), GB_OK);
			ref[ti][ki].set = 0;
		} else {
			assert_int_equal(store_timer_clear(f->s, tables[ti], NULL), GB_OK);
			for (int k = 0; k < 3; k++)
				ref[ti][k].set = 0;
		}
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 3; k++)
				want += ref[i][k].set && ref[i][k].due <= now;
		assert_int_equal(store_timer_due(f->s, now, out, 16, &n), GB_OK);
		assert_int_equal(n, want);
		for (int j = 0; j < n; j++) {
			int i = (int)(out[j].table - tables[0]);
			int k = 0;

			while (k < 3 && strcmp(kinds[k], out[j].kind) != 0)
				k++;
			assert_true(i >= 0 && i < 4 && k < 3);
			assert_true(ref[i][k].set);
			assert_int_equal(ref[i][k].due, out[j].due_ms);
			if (j > 0)
				assert_true(out[j - 1].due_ms <= out[j].due_ms);
		}
	}
}

/* ---- stats ---- */

static void test_stats(void **state)
{
	struct fixture *f = *state;
	int64_t chat;
	int64_t other;
	struct store_chat c;
	struct store_stat st[8];
	int n = -1;

	make_table(f->s, "stats", &chat);
	assert_int_equal(store_chat_get(f->s, "telegram", "elsewhere", "en", &c), GB_OK);
	other = c.id;
	store_chat_release(&c);

	/* ludo: asha 2 wins in 3, bina 2 wins in 2, chet 2 wins in 3 more points */
	assert_int_equal(store_stat_add(f->s, chat, "a", "Asha", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "a", "Asha", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "a", "Asha", "ludo", 0, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "b", "Bina", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "b", "Bina", "ludo", 7, 0), GB_OK); /* win is 0 or 1 */
	assert_int_equal(store_stat_add(f->s, chat, "c", "Chet", "ludo", 1, 5), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "c", "Chet", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "c", "Chet", "ludo", 0, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "d", "Dev", "ludo", 0, 0), GB_OK);
	/* same record as Asha: name decides */
	assert_int_equal(store_stat_add(f->s, chat, "e", "Abe", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "e", "Abe", "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "e", "Abe", "ludo", 0, 0), GB_OK);
	/* callbreak: points in tenths, may be negative */
	assert_int_equal(store_stat_add(f->s, chat, "d", "Dev", "callbreak", 1, 123), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "d", "Dev", "callbreak", 1, 80), GB_OK);
	assert_int_equal(store_stat_add(f->s, chat, "a", "Asha K", "callbreak", 0, -40), GB_OK);
	/* another chat does not count */
	assert_int_equal(store_stat_add(f->s, other, "a", "Asha", "ludo", 1, 0), GB_OK);

	assert_int_equal(store_stats_get(f->s, chat, "ludo", st, 8, &n), GB_OK);
	assert_int_equal(n, 5);
	assert_string_equal(st[0].user, "c"); /* 2 wins, 5 points */
	assert_int_equal(st[0].points, 5);
	assert_string_equal(st[1].user, "b"); /* 2 wins in 2 games */
	assert_int_equal(st[1].games, 2);
	assert_int_equal(st[1].wins, 2);
	assert_string_equal(st[2].name, "Abe");
	assert_string_equal(st[3].user, "a");
	assert_string_equal(st[3].name, "Asha K"); /* the latest name */
	assert_string_equal(st[3].game, "ludo");
	assert_int_equal(st[3].games, 3);
	assert_string_equal(st[4].user, "d");
	assert_int_equal(st[4].wins, 0);

	assert_int_equal(store_stats_get(f->s, chat, "callbreak", st, 8, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(st[0].user, "d");
	assert_int_equal(st[0].points, 203);
	assert_int_equal(st[1].points, -40);

	/* all games: sums per user */
	assert_int_equal(store_stats_get(f->s, chat, NULL, st, 8, &n), GB_OK);
	assert_int_equal(n, 5);
	assert_string_equal(st[0].user, "d"); /* 2 wins, 203 points */
	assert_int_equal(st[0].games, 3);
	assert_int_equal(st[0].wins, 2);
	assert_int_equal(st[0].points, 203);
	assert_string_equal(st[0].game, "");
	assert_string_equal(st[1].user, "c"); /* 2 wins, 5 points */
	assert_string_equal(st[2].user, "b"); /* 2 wins, 0 points, 2 games */
	assert_string_equal(st[3].user, "e"); /* 2 wins, 0 points, 3 games, "Abe" */
	assert_string_equal(st[4].user, "a"); /* 2 wins, -40 points */
	assert_int_equal(st[4].games, 4);
	assert_string_equal(st[4].name, "Asha K");

	assert_int_equal(store_stats_get(f->s, chat, NULL, st, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_stats_get(f->s, chat, "snakes", st, 8, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_stats_get(f->s, other, NULL, st, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(st[0].name, "Asha");

	assert_int_equal(store_stat_add(f->s, chat + 100, "a", "A", "ludo", 1, 0), GB_ENOTFOUND);
}

/* ---- chat move ---- */

static void test_chat_move(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	struct store_chat g;
	struct store_table t;
	struct store_stat st[2];
	struct store_out o[4];
	int64_t chat;
	int64_t table = make_table(f->s, "-100", &chat);
	int64_t aside_id;
	int n = -1;

	/* the group: settings, a table, stats, a pending row and one set aside */
	assert_int_equal(store_chat_get_by_id(f->s, chat, &c), GB_OK);
	snprintf(c.lang, sizeof c.lang, "ne");
	free(c.settings);
	c.settings = strdup("{\"idle\":20}");
	assert_int_equal(store_chat_save(f->s, &c), GB_OK);
	store_chat_release(&c);
	assert_int_equal(store_stat_add(f->s, chat, "u1", "Asha", "ludo", 1, 0), GB_OK);
	aside_id = queue(f->s, "-100", NULL, "{\"old\":1}", 0);
	assert_int_equal(store_out_set_aside(f->s, aside_id, "gone"), GB_OK);
	queue(f->s, "-100", NULL, "{\"old\":2}", 0);
	/* the same id on another platform is another chat, and stays */
	assert_int_equal(store_chat_get(f->s, "discord", "-100", "en", &c), GB_OK);
	store_chat_release(&c);

	/* the new id already seen (a message sent there first): empty, so replaced */
	assert_int_equal(store_chat_get(f->s, "telegram", "-200", "en", &c), GB_OK);
	assert_int_not_equal(c.id, chat);
	store_chat_release(&c);
	assert_int_equal(store_chat_move(f->s, "telegram", "-100", "-200"), GB_OK);

	assert_int_equal(store_chat_get(f->s, "telegram", "-200", "en", &g), GB_OK);
	assert_int_equal(g.id, chat);
	assert_string_equal(g.lang, "ne");
	assert_string_equal(g.settings, "{\"idle\":20}");
	store_chat_release(&g);
	assert_int_equal(store_table_open_get(f->s, chat, &t), GB_OK);
	assert_int_equal(t.id, table);
	store_table_release(&t);
	assert_int_equal(store_stats_get(f->s, chat, NULL, st, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_out_claim(f->s, "telegram", 0, 10, o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].chat, "-200");
	assert_string_equal(o[0].payload, "{\"old\":2}");
	store_out_release(&o[0]);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM chats WHERE platform = 'telegram'"), 1);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM chats WHERE platform = 'discord' AND chat = '-100'"), 1);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM outbox WHERE chat = '-100' AND aside_why = 'gone'"), 1);
	/* the old id is free: a message there makes a new chat */
	assert_int_equal(store_chat_get(f->s, "telegram", "-100", "en", &c), GB_OK);
	assert_int_not_equal(c.id, chat);
	store_chat_release(&c);

	/* a new id that is a chat with something to lose: refused, nothing changes */
	assert_int_equal(store_chat_get(f->s, "telegram", "-300", "en", &c), GB_OK);
	free(c.settings);
	c.settings = strdup("{\"lang_lock\":1}");
	assert_int_equal(store_chat_save(f->s, &c), GB_OK);
	store_chat_release(&c);
	make_table(f->s, "-400", NULL);
	assert_int_equal(store_chat_get(f->s, "telegram", "-500", "en", &c), GB_OK);
	assert_int_equal(store_stat_add(f->s, c.id, "u2", "Bina", "ludo", 0, 0), GB_OK);
	store_chat_release(&c);
	assert_int_equal(store_chat_move(f->s, "telegram", "-200", "-300"), GB_EEXISTS);
	assert_int_equal(store_chat_move(f->s, "telegram", "-200", "-400"), GB_EEXISTS);
	assert_int_equal(store_chat_move(f->s, "telegram", "-200", "-500"), GB_EEXISTS);
	assert_int_equal(store_chat_get(f->s, "telegram", "-200", "en", &g), GB_OK);
	assert_int_equal(g.id, chat);
	store_chat_release(&g);

	/* an unknown old id: not found, and an empty new id is not dropped for it */
	assert_int_equal(store_chat_get(f->s, "telegram", "-600", "en", &c), GB_OK);
	assert_int_equal(store_chat_move(f->s, "telegram", "nope", "-600"), GB_ENOTFOUND);
	assert_int_equal(store_chat_get(f->s, "telegram", "-600", "ne", &g), GB_OK);
	assert_int_equal(g.id, c.id);
	store_chat_release(&g);
	store_chat_release(&c);
	assert_int_equal(store_chat_move(f->s, "discord", "nope", "-700"), GB_ENOTFOUND);

	/* inside a transaction, rolled back with it */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_chat_move(f->s, "telegram", "-200", "-800"), GB_OK);
	store_rollback(f->s);
	assert_int_equal(store_chat_get(f->s, "telegram", "-200", "en", &g), GB_OK);
	assert_int_equal(g.id, chat);
	store_chat_release(&g);

	assert_int_equal(store_chat_move(f->s, "telegram", "-200", "-200"), GB_EARGS);
	assert_int_equal(store_chat_move(f->s, "telegram", "", "-200"), GB_EARGS);
	assert_int_equal(store_chat_move(f->s, "telegram", "-200", NULL), GB_EARGS);
}

/* A group's places: the group and its forum topics, paged by id, nothing else of the platform. */
static void test_chat_places(void **state)
{
	struct fixture *f = *state;
	static const char *const made[] = { "-100", "-100#7", "-1001", "-100#12", "-10#7", "-100#", "x-100#3",
					    "-100#7#1" };
	struct store_chat c, out[8];
	int64_t ids[8];
	int n = -1;

	for (int i = 0; i < 8; i++) {
		assert_int_equal(store_chat_get(f->s, "telegram", made[i], "en", &c), GB_OK);
		ids[i] = c.id;
		store_chat_release(&c);
	}
	assert_int_equal(store_chat_get(f->s, "discord", "-100#9", "en", &c), GB_OK);
	store_chat_release(&c);

	assert_int_equal(store_chat_places(f->s, "telegram", "-100", 0, out, 8, &n), GB_OK);
	assert_int_equal(n, 5);
	assert_string_equal(out[0].chat, "-100");
	assert_int_equal(out[0].id, ids[0]);
	assert_string_equal(out[1].chat, "-100#7");
	assert_string_equal(out[2].chat, "-100#12");
	assert_string_equal(out[3].chat, "-100#");
	assert_string_equal(out[4].chat, "-100#7#1");
	assert_string_equal(out[4].platform, "telegram");
	for (int i = 0; i < n; i++)
		store_chat_release(&out[i]);
	/* two at a time, after the last id read */
	assert_int_equal(store_chat_places(f->s, "telegram", "-100", 0, out, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(out[1].id, ids[1]);
	store_chat_release(&out[0]);
	store_chat_release(&out[1]);
	assert_int_equal(store_chat_places(f->s, "telegram", "-100", ids[1], out, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].chat, "-100#12");
	assert_string_equal(out[1].chat, "-100#");
	store_chat_release(&out[0]);
	store_chat_release(&out[1]);
	assert_int_equal(store_chat_places(f->s, "telegram", "-100", ids[7], out, 2, &n), GB_OK);
	assert_int_equal(n, 0);
	/* a topic's places are its own; an unknown chat has none */
	assert_int_equal(store_chat_places(f->s, "telegram", "-100#7", 0, out, 8, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(out[1].chat, "-100#7#1");
	store_chat_release(&out[0]);
	store_chat_release(&out[1]);
	assert_int_equal(store_chat_places(f->s, "telegram", "-999", 0, out, 8, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_chat_places(f->s, "discord", "-100", 0, out, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].chat, "-100#9");
	store_chat_release(&out[0]);
	assert_int_equal(store_chat_places(f->s, "telegram", "-100", 0, out, 0, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_chat_places(f->s, "telegram", "", 0, out, 8, &n), GB_EARGS);
	assert_int_equal(store_chat_places(f->s, NULL, "-100", 0, out, 8, &n), GB_EARGS);
	assert_int_equal(store_chat_places(NULL, "telegram", "-100", 0, out, 8, &n), GB_EARGS);
	assert_int_equal(store_chat_places(f->s, "telegram", "-100", 0, NULL, 8, &n), GB_EARGS);
}

/* ---- meta ---- */

static void test_meta(void **state)
{
	struct fixture *f = *state;
	struct store *s2 = NULL;
	char buf[16];
	char huge[STORE_ID_LEN + 1];

	memset(buf, 'x', sizeof buf);
	assert_int_equal(store_meta_get(f->s, "telegram.offset", buf, sizeof buf), GB_ENOTFOUND);
	assert_string_equal(buf, "");
	assert_int_equal(store_meta_set(f->s, "telegram.offset", "812345"), GB_OK);
	assert_int_equal(store_meta_get(f->s, "telegram.offset", buf, sizeof buf), GB_OK);
	assert_string_equal(buf, "812345");
	assert_int_equal(store_meta_set(f->s, "telegram.offset", "812346"), GB_OK);
	assert_int_equal(store_meta_set(f->s, "discord.session", ""), GB_OK);

	/* durable and shared: another handle reads the latest */
	assert_int_equal(store_open(&s2, f->path), GB_OK);
	assert_int_equal(store_meta_get(s2, "telegram.offset", buf, sizeof buf), GB_OK);
	assert_string_equal(buf, "812346");
	assert_int_equal(store_meta_get(s2, "discord.session", buf, sizeof buf), GB_OK);
	assert_string_equal(buf, "");
	store_free(s2);

	/* never cut: a value that does not fit is refused */
	assert_int_equal(store_meta_set(f->s, "long", "0123456789abcdef"), GB_OK);
	assert_int_equal(store_meta_get(f->s, "long", buf, sizeof buf), GB_EARGS);
	assert_string_equal(buf, "");
	assert_int_equal(store_meta_set(f->s, "long", "0123456789abcde"), GB_OK);
	assert_int_equal(store_meta_get(f->s, "long", buf, sizeof buf), GB_OK);
	assert_string_equal(buf, "0123456789abcde");

	memset(huge, 'k', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	assert_int_equal(store_meta_set(f->s, huge, "v"), GB_EARGS);
	assert_int_equal(store_meta_set(f->s, "", "v"), GB_EARGS);
	assert_int_equal(store_meta_set(f->s, "k", NULL), GB_EARGS);
	assert_int_equal(store_meta_set(NULL, "k", "v"), GB_EARGS);
	assert_int_equal(store_meta_get(f->s, "k", NULL, 4), GB_EARGS);
	assert_int_equal(store_meta_get(f->s, "k", buf, 0), GB_EARGS);
	assert_int_equal(store_meta_get(NULL, "k", buf, sizeof buf), GB_EARGS);
}

/* ---- bad input ---- */

static void test_null_and_empty_arguments(void **state)
{
	struct fixture *f = *state;
	struct store *s = f->s;
	struct store *none = NULL;
	struct store_chat c;
	struct store_table t;
	struct store_seat seat;
	struct store_out o;
	struct store_timer tm = { .kind = "bot" };
	struct store_stat st;
	int n = 5;

	memset(&t, 0, sizeof t);
	snprintf(t.game, sizeof t.game, "ludo");
	assert_int_equal(store_open(NULL, f->path), GB_EARGS);
	assert_int_equal(store_open(&none, NULL), GB_EARGS);
	assert_int_equal(store_open(&none, ""), GB_EARGS);
	assert_null(none);
	store_free(NULL);
	assert_int_equal(store_ping(NULL), GB_EARGS);
	assert_int_equal(store_schema_version(NULL), -1);
	assert_int_equal(store_begin(NULL), GB_EARGS);
	assert_int_equal(store_commit(NULL), GB_EARGS);
	store_rollback(NULL);

	assert_int_equal(store_mark_processed(NULL, "telegram", "1"), GB_EARGS);
	assert_int_equal(store_mark_processed(s, NULL, "1"), GB_EARGS);
	assert_int_equal(store_mark_processed(s, "telegram", NULL), GB_EARGS);
	assert_int_equal(store_mark_processed(s, "", "1"), GB_EARGS);
	assert_int_equal(store_mark_processed(s, "telegram", ""), GB_EARGS);
	assert_int_equal(store_processed_prune(NULL, 0, &n), GB_EARGS);
	assert_int_equal(store_processed_prune(s, 0, NULL), GB_EARGS);

	assert_int_equal(store_chat_get(NULL, "telegram", "1", "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(s, NULL, "1", "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(s, "telegram", NULL, "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(s, "telegram", "", "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(s, "telegram", "1", "en", NULL), GB_EARGS);
	assert_null(c.settings);
	assert_int_equal(store_chat_get_by_id(NULL, 1, &c), GB_EARGS);
	assert_int_equal(store_chat_get_by_id(s, 1, NULL), GB_EARGS);
	assert_int_equal(store_chat_save(NULL, &c), GB_EARGS);
	assert_int_equal(store_chat_save(s, NULL), GB_EARGS);
	assert_int_equal(store_chat_save(s, &c), GB_EARGS); /* empty lang */
	assert_int_equal(store_chat_move(NULL, "telegram", "1", "2"), GB_EARGS);
	assert_int_equal(store_chat_move(s, NULL, "1", "2"), GB_EARGS);
	assert_int_equal(store_chat_move(s, "telegram", NULL, "2"), GB_EARGS);
	store_chat_release(NULL);

	assert_int_equal(store_table_get(NULL, 1, &t), GB_EARGS);
	assert_int_equal(store_table_get(s, 1, NULL), GB_EARGS);
	assert_int_equal(store_table_open_get(NULL, 1, &t), GB_EARGS);
	assert_int_equal(store_table_open_get(s, 1, NULL), GB_EARGS);
	snprintf(t.game, sizeof t.game, "ludo");
	assert_int_equal(store_table_insert(NULL, &t), GB_EARGS);
	assert_int_equal(store_table_insert(s, NULL), GB_EARGS);
	t.game[0] = '\0';
	assert_int_equal(store_table_insert(s, &t), GB_EARGS);
	snprintf(t.game, sizeof t.game, "ludo");
	t.status = 3;
	assert_int_equal(store_table_insert(s, &t), GB_EARGS);
	assert_int_equal(store_table_update(s, &t), GB_EARGS);
	t.status = -1;
	assert_int_equal(store_table_update(s, &t), GB_EARGS);
	assert_int_equal(store_table_update(NULL, &t), GB_EARGS);
	assert_int_equal(store_table_update(s, NULL), GB_EARGS);
	assert_int_equal(store_table_set_message(NULL, 1, "m"), GB_EARGS);
	assert_int_equal(store_tables_count(NULL, 0, 0, 0, 0, &n), GB_EARGS);
	store_table_release(NULL);

	assert_int_equal(store_seats_get(NULL, 1, &seat, 1, &n), GB_EARGS);
	assert_int_equal(n, 0);
	assert_int_equal(store_seats_get(s, 1, NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_seats_get(s, 1, &seat, 1, NULL), GB_EARGS);
	assert_int_equal(store_seats_get(s, 1, &seat, -1, &n), GB_EARGS);
	assert_int_equal(store_seats_set(NULL, 1, &seat, 1), GB_EARGS);
	assert_int_equal(store_seats_set(s, 1, NULL, 1), GB_EARGS);
	assert_int_equal(store_seats_set(s, 1, &seat, -1), GB_EARGS);

	assert_int_equal(store_move_append(NULL, 1, 1, "u", "roll", NULL), GB_EARGS);
	assert_int_equal(store_move_append(s, 1, 1, NULL, "roll", NULL), GB_EARGS);
	assert_int_equal(store_move_append(s, 1, 1, "u", NULL, NULL), GB_EARGS);
	assert_int_equal(store_move_append(s, 1, 1, "u", "", NULL), GB_EARGS);
	assert_int_equal(store_move_count(NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_move_count(s, 1, NULL), GB_EARGS);

	assert_int_equal(store_out_add(NULL, "telegram", "1", 0, NULL, "{}", 0), GB_EARGS);
	assert_int_equal(store_out_add(s, NULL, "1", 0, NULL, "{}", 0), GB_EARGS);
	assert_int_equal(store_out_add(s, "telegram", NULL, 0, NULL, "{}", 0), GB_EARGS);
	assert_int_equal(store_out_add(s, "telegram", "1", 0, NULL, NULL, 0), GB_EARGS);
	assert_int_equal(store_out_add(s, "telegram", "1", 0, NULL, "", 0), GB_EARGS);
	assert_int_equal(store_out_add(s, "", "1", 0, NULL, "{}", 0), GB_EARGS);
	assert_int_equal(store_out_due(NULL, "telegram", 0, &o, 1, &n), GB_EARGS);
	assert_int_equal(store_out_due(s, NULL, 0, &o, 1, &n), GB_EARGS);
	assert_int_equal(store_out_due(s, "telegram", 0, NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_out_due(s, "telegram", 0, &o, 1, NULL), GB_EARGS);
	assert_int_equal(store_out_due(s, "telegram", 0, &o, -1, &n), GB_EARGS);
	assert_int_equal(store_out_claim(NULL, "telegram", 0, 10, &o, 1, &n), GB_EARGS);
	assert_int_equal(store_out_claim(s, NULL, 0, 10, &o, 1, &n), GB_EARGS);
	assert_int_equal(store_out_claim(s, "", 0, 10, &o, 1, &n), GB_EARGS);
	assert_int_equal(store_out_claim(s, "telegram", 0, 10, NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_out_claim(s, "telegram", 0, 10, &o, 1, NULL), GB_EARGS);
	assert_int_equal(store_out_claim(s, "telegram", 0, 10, &o, -1, &n), GB_EARGS);
	assert_int_equal(store_out_done(NULL, 1), GB_EARGS);
	assert_int_equal(store_out_retry(NULL, 1, 0, 1), GB_EARGS);
	assert_int_equal(store_out_set_aside(NULL, 1, "x"), GB_EARGS);
	assert_int_equal(store_out_delay(NULL, "telegram", NULL, 0), GB_EARGS);
	assert_int_equal(store_out_count(NULL, NULL, &n, NULL, NULL), GB_EARGS);
	assert_int_equal(n, 0);
	assert_int_equal(store_out_count(s, "", NULL, NULL, NULL), GB_EARGS);
	store_out_release(NULL);

	assert_int_equal(store_timer_set(NULL, &tm), GB_EARGS);
	assert_int_equal(store_timer_set(s, NULL), GB_EARGS);
	tm.kind[0] = '\0';
	assert_int_equal(store_timer_set(s, &tm), GB_EARGS);
	assert_int_equal(store_timer_clear(NULL, 1, "bot"), GB_EARGS);
	assert_int_equal(store_timer_clear(s, 1, ""), GB_EARGS);
	assert_int_equal(store_timer_due(NULL, 0, &tm, 1, &n), GB_EARGS);
	assert_int_equal(store_timer_due(s, 0, NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_timer_due(s, 0, &tm, 1, NULL), GB_EARGS);
	assert_int_equal(store_timer_next(NULL, &tm), GB_EARGS);
	assert_int_equal(store_timer_next(s, NULL), GB_EARGS);
	assert_int_equal(store_timer_retry(NULL, 1, "bot", 0, 0, &n), GB_EARGS);
	assert_int_equal(store_timer_retry(s, 1, NULL, 0, 0, &n), GB_EARGS);

	assert_int_equal(store_stat_add(NULL, 1, "u", "U", "ludo", 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(s, 1, NULL, "U", "ludo", 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(s, 1, "", "U", "ludo", 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(s, 1, "u", NULL, "ludo", 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(s, 1, "u", "U", NULL, 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(s, 1, "u", "U", "", 1, 0), GB_EARGS);
	assert_int_equal(store_stats_get(NULL, 1, NULL, &st, 1, &n), GB_EARGS);
	assert_int_equal(store_stats_get(s, 1, "", &st, 1, &n), GB_EARGS);
	assert_int_equal(store_stats_get(s, 1, NULL, NULL, 1, &n), GB_EARGS);
	assert_int_equal(store_stats_get(s, 1, NULL, &st, 1, NULL), GB_EARGS);

	/* nothing above broke the handle */
	assert_int_equal(store_ping(s), GB_OK);
}

static void test_long_strings(void **state)
{
	struct fixture *f = *state;
	char huge[4096];
	char name[STORE_NAME_LEN + 8];
	struct store_chat c;
	struct store_table t;
	struct store_seat seat;
	struct store_seat got[2];
	struct store_stat st[2];
	struct store_timer tm;
	int64_t chat;
	int64_t id = make_table(f->s, "long", &chat);
	int n = 0;
	size_t len;

	memset(huge, 'x', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';

	/* ids that do not fit are refused, never cut into another id */
	assert_int_equal(store_chat_get(f->s, "telegram", huge, "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(f->s, huge, "1", "en", &c), GB_EARGS);
	assert_int_equal(store_chat_get(f->s, "telegram", "1", "en-GB-oxendict", &c), GB_EARGS);
	assert_int_equal(store_mark_processed(f->s, "a-very-long-platform", "1"), GB_EARGS);
	assert_int_equal(store_out_add(f->s, "telegram", huge, 0, NULL, "{}", 0), GB_EARGS);
	assert_int_equal(store_stat_add(f->s, chat, huge, "n", "ludo", 1, 0), GB_EARGS);
	assert_int_equal(store_stat_add(f->s, chat, "u", "n", "a-very-long-game-name", 1, 0), GB_EARGS);
	assert_int_equal(store_stats_get(f->s, chat, "a-very-long-game-name", st, 2, &n), GB_EARGS);
	assert_int_equal(store_timer_clear(f->s, id, "a-very-long-kind-name"), GB_EARGS);

	/* buffers without a terminator are refused, not overread */
	memset(&tm, 'k', sizeof tm);
	tm.table = id;
	assert_int_equal(store_timer_set(f->s, &tm), GB_EARGS);
	memset(&t, 0, sizeof t);
	t.chat = chat;
	memset(t.game, 'g', sizeof t.game);
	assert_int_equal(store_table_insert(f->s, &t), GB_EARGS);
	memset(&seat, 'n', sizeof seat);
	seat.seat = 0;
	seat.level = -1;
	assert_int_equal(store_seats_set(f->s, id, &seat, 1), GB_EARGS);

	/* long free text is kept whole: an id of any length, a big payload */
	assert_int_equal(store_mark_processed(f->s, "telegram", huge), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "telegram", huge), GB_EDUP);
	assert_int_equal(store_move_append(f->s, id, 1, huge, huge, huge), GB_OK);

	/* display names are cut on a UTF-8 character boundary: 62 ASCII bytes
	 * then "é" (2 bytes) would need 64 + NUL, so the "é" goes whole */
	memset(name, 'a', 62);
	memcpy(name + 62, "\xc3\xa9zz", 5);
	assert_int_equal(store_stat_add(f->s, chat, "u", name, "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stats_get(f->s, chat, "ludo", st, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	len = strlen(st[0].name);
	assert_int_equal(len, 62);
	assert_memory_equal(st[0].name, name, 62);
	/* 61 ASCII bytes then "é": exactly 63 bytes fit */
	memset(name, 'b', 61);
	memcpy(name + 61, "\xc3\xa9\xc3\xa9", 5);
	assert_int_equal(store_stat_add(f->s, chat, "u", name, "ludo", 1, 0), GB_OK);
	assert_int_equal(store_stats_get(f->s, chat, "ludo", st, 2, &n), GB_OK);
	assert_int_equal(strlen(st[0].name), 63);
	assert_memory_equal(st[0].name, name, 63);

	/* rows written by other software with long text are cut when read */
	assert_int_equal(raw_exec(f->path, is_pg(f) ?
		"UPDATE tables SET creator = repeat('0', 400), message = repeat('0', 600),"
		" game = 'snakes-and-ladders-deluxe';"
		"INSERT INTO seats VALUES ((SELECT max(id) FROM tables), 0,"
		" repeat('0', 200), repeat('0', 62) || '\xe0\xa4\xa8\xe0\xa4\xa8', -1);"
		"UPDATE chats SET lang = 'abcdefghijkl' WHERE chat = 'long'" :
		"UPDATE tables SET creator = hex(zeroblob(200)), message = hex(zeroblob(300)),"
		" game = 'snakes-and-ladders-deluxe';"
		"INSERT INTO seats VALUES ((SELECT max(id) FROM tables), 0,"
		" hex(zeroblob(100)), hex(zeroblob(31)) || '\xe0\xa4\xa8\xe0\xa4\xa8', -1);"
		"UPDATE chats SET lang = 'abcdefghijkl' WHERE chat = 'long'"),
		RAW_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(strlen(t.creator), STORE_ID_LEN - 1);
	assert_int_equal(strlen(t.message), STORE_ID_LEN - 1);
	assert_string_equal(t.game, "snakes-and-ladd");
	store_table_release(&t);
	assert_int_equal(store_seats_get(f->s, id, got, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(strlen(got[0].user), STORE_ID_LEN - 1);
	/* 62 ASCII bytes, then a 3-byte character across the limit: cut before it */
	assert_int_equal(strlen(got[0].name), 62);
	assert_int_equal(store_chat_get(f->s, "telegram", "long", "en", &c), GB_OK);
	assert_string_equal(c.lang, "abcdefg");
	store_chat_release(&c);
}

/* A name cut where a 3-byte character straddles the limit. */
static void test_name_cut_inside_character(void **state)
{
	struct fixture *f = *state;
	int64_t chat;
	char name[80];
	struct store_stat st[1];
	int n = 0;

	make_table(f->s, "cut", &chat);
	/* 62 bytes, then a 3-byte "न" at 62..64: the limit 63 falls inside it */
	memset(name, 'x', 62);
	memcpy(name + 62, "\xe0\xa4\xa8", 4);
	assert_int_equal(store_stat_add(f->s, chat, "u", name, "ludo", 0, 0), GB_OK);
	assert_int_equal(store_stats_get(f->s, chat, NULL, st, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(strlen(st[0].name), 62);
}



/* ---- a typical command ---- */

/*
 * One command as the bot runs it, many times over: dedupe, chat, open
 * table, CAS update with a 2 KB state, move, outgoing message, timer;
 * commit. Every step succeeds and every commit keeps its work. (How long
 * it takes is a benchmark row: tests/bench/command.c.)
 */
static void test_typical_command(void **state)
{
	struct fixture *f = *state;
	const long runs = 200;
	int64_t chat;
	int64_t id = make_table(f->s, "bench", &chat);
	char big_state[2048];
	char update[32];
	struct store_table t;
	int count = 0, pending = 0;

	memset(big_state, 'x', sizeof big_state - 1);
	big_state[0] = '"';
	big_state[sizeof big_state - 2] = '"';
	big_state[sizeof big_state - 1] = '\0';
	for (long i = 0; i < runs; i++) {
		struct store_chat c;
		struct store_timer tm = { .table = id, .kind = "idle", .due_ms = i + 60000 };

		snprintf(update, sizeof update, "%ld", 5000000 + i);
		assert_int_equal(store_begin(f->s), GB_OK);
		assert_int_equal(store_mark_processed(f->s, "telegram", update), GB_OK);
		assert_int_equal(store_chat_get(f->s, "telegram", "bench", "en", &c), GB_OK);
		assert_int_equal(store_table_open_get(f->s, c.id, &t), GB_OK);
		free(t.state);
		t.state = strdup(big_state);
		t.status = STORE_PLAYING;
		assert_int_equal(store_table_update(f->s, &t), GB_OK);
		assert_int_equal(store_move_append(f->s, id, (int)i + 1, "u1", "move 2",
						   "[\"move 2\",\"capture 1\"]"), GB_OK);
		assert_int_equal(store_out_add(f->s, "telegram", "bench", 0, NULL,
					       "{\"edit\":\"m-1\",\"text\":\"<pre>board</pre>\"}", i), GB_OK);
		tm.version = t.version;
		assert_int_equal(store_timer_set(f->s, &tm), GB_OK);
		assert_int_equal(store_commit(f->s), GB_OK);
		store_table_release(&t);
		store_chat_release(&c);
	}
	/* what the commits kept */
	assert_int_equal(store_move_count(f->s, id, &count), GB_OK);
	assert_int_equal(count, runs);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(t.version, runs + 1);
	assert_string_equal(t.state, big_state);
	store_table_release(&t);
	assert_int_equal(store_out_count(f->s, "telegram", &pending, NULL, NULL), GB_OK);
	assert_int_equal(pending, runs);
	assert_int_equal(store_was_processed(f->s, "telegram", "5000000"), GB_EDUP);
}

/* The coins of account in chat's ledger, summed from its rows (what a balance must equal). */
static int64_t ledger_sum(struct fixture *f, int64_t chat, const char *account, int64_t *rows)
{
	char sql[200];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM ledger WHERE chat_id = %lld AND account = '%s'",
		 (long long)chat, account);
	*rows = raw_int(f->path, sql);
	snprintf(sql, sizeof sql, "SELECT coalesce(sum(amount), 0) FROM ledger WHERE chat_id = %lld"
		 " AND account = '%s'", (long long)chat, account);
	return raw_int(f->path, sql);
}

/*
 * A balance is kept beside the append-only ledger, written with each
 * movement: after many movements among five wallets (grants, then random
 * transfers, names changing) every balance and row count is the sum and
 * count of the account's ledger rows, the richest list reads them with the
 * latest names, and the audit finds a kept balance that strays from its
 * ledger (changed, or missing) as a broken invariant.
 */
static void test_coins_balances_kept(void **state)
{
	struct fixture *f = *state;
	struct store_balance top[8];
	int64_t chat, coins[5], balance, sum, rows;
	char why[160], acct[5][24];
	unsigned seed = 7;
	int n = 0, entries = 0;

	make_table(f->s, "coins", &chat);
	for (int i = 0; i < 5; i++) {
		struct store_coin_move m = { .from = "bank", .amount = 1000, .reason = "grant", .at_ms = 1 };

		snprintf(acct[i], sizeof acct[i], "user:%d", i);
		snprintf(m.to, sizeof m.to, "user:%d", i);
		snprintf(m.to_name, sizeof m.to_name, "P%d", i);
		assert_int_equal(store_coins_move(f->s, chat, &m), GB_OK);
		coins[i] = 1000;
	}
	assert_int_equal(store_begin(f->s), GB_OK);
	for (int k = 0; k < 400; k++) {
		int from = (int)(rand_r(&seed) % 5), to = (int)(rand_r(&seed) % 5);
		struct store_coin_move m = { .reason = "win", .at_ms = 10 + k };

		if (from == to || coins[from] == 0)
			continue;
		m.amount = 1 + rand_r(&seed) % coins[from];
		snprintf(m.from, sizeof m.from, "%s", acct[from]);
		snprintf(m.from_name, sizeof m.from_name, "P%d-%d", from, k);
		snprintf(m.to, sizeof m.to, "%s", acct[to]);
		snprintf(m.to_name, sizeof m.to_name, "P%d-%d", to, k);
		assert_int_equal(store_coins_move(f->s, chat, &m), GB_OK);
		coins[from] -= m.amount;
		coins[to] += m.amount;
		/* a movement that fails undoes its balances with its rows */
		if (k % 50 == 0)
			assert_int_equal(store_coins_move(f->s, chat + 1000, &m), GB_ENOTFOUND);
	}
	assert_int_equal(store_commit(f->s), GB_OK);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(store_coins_balance(f->s, chat, acct[i], &balance, &entries), GB_OK);
		sum = ledger_sum(f, chat, acct[i], &rows);
		assert_int_equal(balance, sum);
		assert_int_equal(balance, coins[i]);
		assert_int_equal(entries, rows);
	}
	assert_int_equal(store_coins_balance(f->s, chat, "bank", &balance, &entries), GB_OK);
	assert_int_equal(balance, -5000);
	assert_int_equal(entries, 5);
	assert_int_equal(store_coins_balance(f->s, chat, "user:none", &balance, &entries), GB_OK);
	assert_int_equal(balance, 0);
	assert_int_equal(entries, 0);
	assert_int_equal(store_coins_top(f->s, chat, "user:", top, 8, &n), GB_OK);
	assert_int_equal(n, 5);
	for (int i = 0; i < n; i++) {
		char sql[4096];
		int k = top[i].account[5] - '0';

		assert_int_equal(top[i].balance, coins[k]);
		assert_true(i == 0 || top[i - 1].balance >= top[i].balance);
		/* the name of the account's newest row */
		snprintf(sql, sizeof sql, "SELECT count(*) FROM ledger WHERE account = '%s' AND name = '%s'"
			 " AND id = (SELECT max(id) FROM ledger WHERE account = '%s')", top[i].account,
			 top[i].name, top[i].account);
		assert_int_equal(raw_int(f->path, sql), 1);
	}
	assert_int_equal(store_coins_audit(f->s, chat, why, sizeof why), GB_OK);
	/* a kept balance changed behind the ledger's back */
	assert_int_equal(raw_exec(f->path, "UPDATE balances SET balance = balance + 1 WHERE account = 'user:1'"),
			 RAW_OK);
	assert_int_equal(store_coins_audit(f->s, 0, why, sizeof why), GB_EINVARIANT);
	assert_non_null(strstr(why, "user:1"));
	assert_int_equal(raw_exec(f->path, "UPDATE balances SET balance = balance - 1 WHERE account = 'user:1'"),
			 RAW_OK);
	assert_int_equal(store_coins_audit(f->s, 0, why, sizeof why), GB_OK);
	/* or gone */
	assert_int_equal(raw_exec(f->path, "DELETE FROM balances WHERE account = 'user:2'"), RAW_OK);
	assert_int_equal(store_coins_audit(f->s, chat, why, sizeof why), GB_EINVARIANT);
	assert_non_null(strstr(why, "user:2"));
}

/*
 * Open tables are counted per game as they open and close (a move that
 * keeps a table open changes nothing; a game with none open shows 0),
 * always what counting the rows gives.
 */
static void test_open_tables_counted(void **state)
{
	struct fixture *f = *state;
	struct store_game_count g[4];
	int64_t ids[6], chat;
	int n = 0;

	for (int i = 0; i < 6; i++) {
		char name[24];

		snprintf(name, sizeof name, "open-%d", i);
		ids[i] = make_table(f->s, name, &chat);
	}
	/* two of them another game's */
	assert_int_equal(raw_exec(f->path, "UPDATE tables SET game = 'snakes' WHERE id IN (SELECT id FROM tables"
				  " ORDER BY id DESC LIMIT 2)"), RAW_OK);
	/* (a change of game is no opening or closing: the counts are made again from the rows) */
	assert_int_equal(raw_exec(f->path, "DELETE FROM open_tables;"
				  " INSERT INTO open_tables (game, stripe, tables) SELECT game, id % 16, count(*)"
				  " FROM tables WHERE status < 2 GROUP BY game, id % 16"), RAW_OK);
	for (int step = 0; step < 4; step++) {
		struct store_table t;

		assert_int_equal(store_table_get(f->s, ids[step], &t), GB_OK);
		/* lobby to playing, a move, then over */
		t.status = STORE_PLAYING;
		assert_int_equal(store_table_update(f->s, &t), GB_OK);
		assert_int_equal(store_table_update(f->s, &t), GB_OK);
		assert_int_equal(store_tables_open_by_game(f->s, g, 4, &n), GB_OK);
		assert_int_equal(n, 2);
		assert_string_equal(g[0].game, "ludo");
		assert_int_equal(g[0].tables, 4 - step);
		t.status = STORE_OVER;
		assert_int_equal(store_table_update(f->s, &t), GB_OK);
		store_table_release(&t);
		assert_int_equal(store_tables_open_by_game(f->s, g, 4, &n), GB_OK);
		assert_int_equal(n, 2);
		assert_int_equal(g[0].tables, 3 - step);
		assert_int_equal(g[0].tables, raw_int(f->path, "SELECT count(*) FROM tables WHERE game = 'ludo'"
						      " AND status < 2"));
		assert_string_equal(g[1].game, "snakes");
		assert_int_equal(g[1].tables, 2);
	}
	/* every Ludo table over: Ludo is there with 0 */
	assert_string_equal(g[0].game, "ludo");
	assert_int_equal(g[0].tables, 0);
	/* a new table counts at once */
	make_table(f->s, "open-new", &chat);
	assert_int_equal(store_tables_open_by_game(f->s, g, 4, &n), GB_OK);
	assert_int_equal(g[0].tables, 1);
}

/* A table of chat opened at created and (when over) ended at ended, with two seats, terms, two moves and a timer. */
static int64_t aged_table(struct store *s, int64_t chat, int status, int64_t created, int64_t ended)
{
	const struct store_seat seats[2] = { { 0, "u1", "A", -1 }, { 1, "u2", "B", -1 } };
	const struct store_terms terms = { "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 0 };
	struct store_timer tm = { .kind = "idle", .due_ms = ended + 1, .version = 1 };
	struct store_table t;

	memset(&t, 0, sizeof t);
	t.chat = chat;
	snprintf(t.game, sizeof t.game, "ludo");
	t.status = status;
	t.created_ms = created;
	t.turn_started_ms = ended;
	assert_int_equal(store_table_insert(s, &t), GB_OK);
	assert_int_equal(store_seats_set(s, t.id, seats, 2), GB_OK);
	assert_int_equal(store_terms_set(s, t.id, &terms), GB_OK);
	assert_int_equal(store_move_append(s, t.id, 1, "0", "roll", "[]"), GB_OK);
	assert_int_equal(store_move_append(s, t.id, 2, "1", "roll", "[]"), GB_OK);
	tm.table = t.id;
	assert_int_equal(store_timer_set(s, &tm), GB_OK);
	return t.id;
}

static int64_t rows_of(struct fixture *f, const char *table, int64_t id)
{
	char sql[160];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE table_id = %lld", table, (long long)id);
	return raw_int(f->path, sql);
}

/*
 * Pruning a batch at a time: tables over, opened and ended before the
 * time, go with their seats, terms, timers and moves, at most max a call;
 * open tables and the newest table stay however old; processed ids and
 * rows set aside go the same way.
 */
/*
 * The people waiting, counted as they join and leave (the claim of a
 * table's entries included), with the longest wait of each game; the
 * queue read in the matcher's order to the last tie; a game's best
 * ratings first.
 */
static void test_queue_counted_and_ordered(void **state)
{
	struct fixture *f = *state;
	struct store_queue q = { .seats = 2, .platform = "telegram", .chat = "1", .name = "P", .lang = "en" };
	struct store_queue list[8];
	struct store_queue_count c[4];
	struct store_rating top[4];
	int64_t claim[2];
	int n = 0, left = 0;

	/* ludo: four people, two of them at the same moment; snakes: one */
	for (int i = 0; i < 5; i++) {
		snprintf(q.game, sizeof q.game, "%s", i < 4 ? "ludo" : "snakes");
		snprintf(q.user, sizeof q.user, "p%d", i);
		q.since_ms = i == 1 || i == 3 ? 100 : 400 - 50 * i;
		assert_int_equal(store_queue_add(f->s, &q), GB_OK);
	}
	assert_int_equal(store_queue_add(f->s, &q), GB_EEXISTS);
	assert_int_equal(store_queue_by_game(f->s, c, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].game, "ludo");
	assert_int_equal(c[0].waiting, 4);
	assert_int_equal(c[0].oldest_ms, 100);
	assert_string_equal(c[1].game, "snakes");
	assert_int_equal(c[1].waiting, 1);
	assert_int_equal(c[1].oldest_ms, 200);
	/* the matcher's order: since, then who came first of those waiting as long */
	assert_int_equal(store_queue_list(f->s, list, 8, &n), GB_OK);
	assert_int_equal(n, 5);
	assert_string_equal(list[0].user, "p1");
	assert_string_equal(list[1].user, "p3");
	assert_string_equal(list[2].user, "p2");
	assert_string_equal(list[3].user, "p0");
	assert_string_equal(list[4].user, "p4");
	/* p3 leaves, p1 and p2 are seated together: p0 waits alone, the longest */
	assert_int_equal(store_queue_leave(f->s, "telegram", "p3", &left, NULL, 0), GB_OK);
	assert_int_equal(left, 1);
	claim[0] = list[0].id;
	claim[1] = list[2].id;
	assert_int_equal(store_queue_claim(f->s, claim, 2, NULL), GB_OK);
	assert_int_equal(store_queue_claim(f->s, claim, 2, NULL), GB_ECONFLICT);
	assert_int_equal(store_queue_by_game(f->s, c, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].waiting, 1);
	assert_int_equal(c[0].oldest_ms, 400);
	/* the last of a game gone: the game no longer listed */
	assert_int_equal(store_queue_leave(f->s, "telegram", "p4", &left, NULL, 0), GB_OK);
	assert_int_equal(store_queue_by_game(f->s, c, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].game, "ludo");
	/* ratings: the highest first, then the one with more games, then by name */
	for (int i = 0; i < 4; i++) {
		struct store_rating r = { .platform = "telegram", .r = i == 3 ? 1400000 : 1600000,
					  .rd = 350000, .sigma = 60000, .games = i == 2 ? 9 : 3 };

		snprintf(r.user, sizeof r.user, "r%d", i);
		snprintf(r.name, sizeof r.name, "%s", i == 0 ? "Bina" : "Asha");
		assert_int_equal(store_rating_set(f->s, "ludo", &r, -1), GB_OK);
	}
	/* set from what was read: refused once another change came first */
	{
		struct store_rating r = { .platform = "telegram", .user = "r1", .name = "Asha", .r = 1650000,
					  .rd = 300000, .sigma = 60000, .games = 4 };

		assert_int_equal(store_rating_set(f->s, "ludo", &r, -1), GB_ECONFLICT);
		assert_int_equal(store_rating_set(f->s, "ludo", &r, 2), GB_ECONFLICT);
		assert_int_equal(store_rating_set(f->s, "ludo", &r, 3), GB_OK);
		assert_int_equal(store_rating_set(f->s, "ludo", &r, 3), GB_ECONFLICT);
		r.r = 1600000;
		r.games = 3;
		assert_int_equal(store_rating_set(f->s, "ludo", &r, 4), GB_OK);
	}
	assert_int_equal(store_rating_top(f->s, "ludo", top, 4, &n), GB_OK);
	assert_int_equal(n, 4);
	assert_string_equal(top[0].user, "r2");
	assert_string_equal(top[1].user, "r1");
	assert_string_equal(top[2].user, "r0");
	assert_string_equal(top[3].user, "r3");
}

static void test_pruning_in_batches(void **state)
{
	struct fixture *f = *state;
	int64_t chat, gone[3], open, ended_late, newest, now_s = (int64_t)time(NULL);
	struct store_out rows[4];
	char sql[256];
	int n = -1;

	make_table(f->s, "p", &chat);     /* an open table, opened at 0 */
	open = raw_int(f->path, "SELECT max(id) FROM tables");
	for (int i = 0; i < 3; i++)
		gone[i] = aged_table(f->s, chat, STORE_OVER, 1000 + i, 2000 + i);
	ended_late = aged_table(f->s, chat, STORE_OVER, 1000, 9000);
	newest = aged_table(f->s, chat, STORE_OVER, 1000, 2000);
	assert_int_equal(rows_of(f, "moves", gone[0]), 2);

	assert_int_equal(store_tables_prune(f->s, 5000, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_tables_prune(f->s, 5000, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_tables_prune(f->s, 5000, 2, &n), GB_OK);
	assert_int_equal(n, 0);
	for (int i = 0; i < 3; i++) {
		struct store_table t;

		assert_int_equal(store_table_get(f->s, gone[i], &t), GB_ENOTFOUND);
		assert_int_equal(rows_of(f, "moves", gone[i]), 0);
		assert_int_equal(rows_of(f, "seats", gone[i]), 0);
		assert_int_equal(rows_of(f, "table_terms", gone[i]), 0);
		assert_int_equal(rows_of(f, "timers", gone[i]), 0);
	}
	assert_int_equal(rows_of(f, "moves", ended_late), 2);
	assert_int_equal(rows_of(f, "moves", newest), 2);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM tables WHERE id IN (%lld, %lld, %lld)", (long long)open,
		 (long long)ended_late, (long long)newest);
	assert_int_equal(raw_int(f->path, sql), 3);
	assert_int_equal(store_tables_prune(f->s, 0, 0, &n), GB_EARGS);

	/* processed ids: five old, one new, two a call */
	for (int i = 0; i < 6; i++) {
		char id[16];

		snprintf(id, sizeof id, "p%d", i);
		assert_int_equal(store_mark_processed(f->s, "telegram", id), GB_OK);
	}
	snprintf(sql, sizeof sql, "UPDATE processed SET at = %lld WHERE update_id <> 'p5'", (long long)(now_s - 7200));
	assert_int_equal(raw_exec(f->path, sql), RAW_OK);
	assert_int_equal(store_processed_prune_some(f->s, (now_s - 3600) * 1000, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_processed_prune_some(f->s, (now_s - 3600) * 1000, 2, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_processed_prune_some(f->s, (now_s - 3600) * 1000, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_mark_processed(f->s, "telegram", "p5"), GB_EDUP);

	/* rows set aside: an old one goes; a recent one and a pending one stay */
	for (int i = 0; i < 3; i++)
		assert_int_equal(store_out_add(f->s, "telegram", "c", 0, "", "{}", 10), GB_OK);
	assert_int_equal(store_out_due(f->s, "telegram", 100, rows, 4, &n), GB_OK);
	assert_int_equal(n, 3);
	assert_int_equal(store_out_set_aside(f->s, rows[0].id, "x"), GB_OK);
	assert_int_equal(store_out_set_aside(f->s, rows[1].id, "x"), GB_OK);
	snprintf(sql, sizeof sql, "UPDATE outbox SET aside_ms = 500 WHERE id = %lld", (long long)rows[0].id);
	assert_int_equal(raw_exec(f->path, sql), RAW_OK);
	for (int i = 0; i < 3; i++)
		store_out_release(&rows[i]);
	assert_int_equal(store_out_aside_prune(f->s, 1000, 10, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(raw_int(f->path, "SELECT count(*) FROM outbox"), 2);
}

/*
 * An entry's queue message as it is when the entry goes (left, or claimed
 * for a table): its last view edits that one. A pending row's view
 * rewritten (the message handed to it), never one set aside.
 */
static void test_queue_message_when_it_goes(void **state)
{
	struct fixture *f = *state;
	struct store_queue q = { .game = "ludo", .seats = 2, .platform = "telegram", .name = "P", .lang = "en" };
	struct store_queue list[4];
	struct store_out rows[4];
	char messages[3][32], message[32];
	int64_t claim[3];
	int n = 0, left = 0, found = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(q.user, sizeof q.user, "u%d", i);
		snprintf(q.chat, sizeof q.chat, "c%d", i);
		q.since_ms = 100 + i;
		assert_int_equal(store_queue_add(f->s, &q), GB_OK);
	}
	assert_int_equal(store_queue_set_message(f->s, "telegram", "c0", "700", &found), GB_OK);
	assert_int_equal(found, 1);
	assert_int_equal(store_queue_set_message(f->s, "telegram", "c2", "702", &found), GB_OK);
	assert_int_equal(store_queue_list(f->s, list, 4, &n), GB_OK);
	assert_int_equal(n, 3);
	/* claimed in another order than listed: each its own message, none for the one never posted */
	claim[0] = list[2].id;
	claim[1] = list[1].id;
	claim[2] = list[0].id;
	assert_int_equal(store_queue_claim(f->s, claim, 3, messages), GB_OK);
	assert_string_equal(messages[0], "702");
	assert_string_equal(messages[1], "");
	assert_string_equal(messages[2], "700");
	/* gone: a message recorded now finds nobody there */
	assert_int_equal(store_queue_set_message(f->s, "telegram", "c1", "701", &found), GB_OK);
	assert_int_equal(found, 0);
	/* leaving says the message it had */
	assert_int_equal(store_queue_add(f->s, &q), GB_OK);
	assert_int_equal(store_queue_set_message(f->s, "telegram", "c2", "703", &found), GB_OK);
	assert_int_equal(store_queue_leave(f->s, "telegram", "u2", &left, message, sizeof message), GB_OK);
	assert_int_equal(left, 1);
	assert_string_equal(message, "703");
	assert_int_equal(store_queue_leave(f->s, "telegram", "u2", &left, message, sizeof message), GB_OK);
	assert_int_equal(left, 0);
	assert_string_equal(message, "");
	/* a pending row's payload rewritten; a row set aside, or none, is not */
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 0, "queue", "{\"n\":1}", 100), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c2", 0, NULL, "{\"n\":2}", 100), GB_OK);
	assert_int_equal(store_out_chat(f->s, "telegram", "c2", rows, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_int_equal(store_out_set_payload(f->s, rows[0].id, "{\"n\":1,\"message\":\"703\"}"), GB_OK);
	assert_int_equal(store_out_set_aside(f->s, rows[1].id, "test"), GB_OK);
	assert_int_equal(store_out_set_payload(f->s, rows[1].id, "{}"), GB_ENOTFOUND);
	assert_int_equal(store_out_set_payload(f->s, rows[1].id + 1000, "{}"), GB_ENOTFOUND);
	claim[0] = rows[0].id;
	for (int i = 0; i < 2; i++)
		store_out_release(&rows[i]);
	assert_int_equal(store_out_chat(f->s, "telegram", "c2", rows, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].id, claim[0]);
	assert_string_equal(rows[0].key, "queue");
	assert_string_equal(rows[0].payload, "{\"n\":1,\"message\":\"703\"}");
	store_out_release(&rows[0]);
}

/* A movement of amount from one account to another, of reason, in chat. */
static int coin_move(struct fixture *f, int64_t chat, const char *from, const char *to, int64_t amount,
		     const char *reason)
{
	struct store_coin_move m = { .amount = amount, .at_ms = 5 };

	snprintf(m.from, sizeof m.from, "%s", from);
	snprintf(m.to, sizeof m.to, "%s", to);
	snprintf(m.reason, sizeof m.reason, "%s", reason);
	return store_coins_move(f->s, chat, &m);
}

static int64_t balance_of(struct fixture *f, int64_t chat, const char *account, int *rows)
{
	int64_t v = -1;

	assert_int_equal(store_coins_balance(f->s, chat, account, &v, rows), GB_OK);
	return v;
}

/*
 * What the schema itself refuses, whoever read what before writing: a
 * second starting grant of an account (an admin's grants are as many as
 * they like), and a movement that takes an account other than the bank
 * below 0 (to 0 exactly is fine; an account never credited cannot pay).
 * Each refusal is a conflict and leaves the ledger as it was.
 */
static void test_coins_ledger_refuses(void **state)
{
	struct fixture *f = *state;
	int64_t chat;
	int rows = 0;

	make_table(f->s, "refuses", &chat);
	assert_int_equal(coin_move(f, chat, "bank", "user:1", 1000, "start"), GB_OK);
	assert_int_equal(coin_move(f, chat, "bank", "user:1", 1000, "start"), GB_ECONFLICT);
	assert_int_equal(balance_of(f, chat, "user:1", &rows), 1000);
	assert_int_equal(rows, 1);
	assert_int_equal(coin_move(f, chat, "bank", "user:1", 50, "grant"), GB_OK);
	assert_int_equal(coin_move(f, chat, "bank", "user:1", 50, "grant"), GB_OK);
	/* another account, and the same account in another chat, start once each */
	assert_int_equal(coin_move(f, chat, "bank", "user:2", 1000, "start"), GB_OK);
	{
		int64_t other;

		make_table(f->s, "refuses-2", &other);
		assert_int_equal(coin_move(f, other, "bank", "user:1", 1000, "start"), GB_OK);
	}
	assert_int_equal(coin_move(f, chat, "user:1", "pot:1", 1101, "stake"), GB_ECONFLICT);
	assert_int_equal(balance_of(f, chat, "user:1", &rows), 1100);
	assert_int_equal(rows, 3);
	assert_int_equal(balance_of(f, chat, "pot:1", &rows), 0);
	assert_int_equal(rows, 0);
	assert_int_equal(coin_move(f, chat, "user:1", "pot:1", 1100, "stake"), GB_OK);
	assert_int_equal(balance_of(f, chat, "user:1", NULL), 0);
	assert_int_equal(coin_move(f, chat, "user:1", "pot:1", 1, "stake"), GB_ECONFLICT);
	assert_int_equal(coin_move(f, chat, "user:none", "user:2", 1, "win"), GB_ECONFLICT);
	assert_int_equal(balance_of(f, chat, "user:none", &rows), 0);
	assert_int_equal(rows, 0);
	/* inside a transaction too: refused there, the rest of it kept */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(coin_move(f, chat, "user:2", "pot:1", 1001, "stake"), GB_ECONFLICT);
	assert_int_equal(store_unit_end(f->s, 0), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(coin_move(f, chat, "user:2", "pot:1", 1000, "stake"), GB_OK);
	assert_int_equal(store_unit_end(f->s, 1), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(balance_of(f, chat, "user:2", NULL), 0);
	assert_int_equal(balance_of(f, chat, "pot:1", NULL), 2100);
	/* the bank pays whatever is granted */
	assert_int_equal(coin_move(f, chat, "bank", "user:3", 1000000, "grant"), GB_OK);
	assert_int_equal(balance_of(f, chat, "bank", NULL), -1002100);
	/* written by hand, past the store: the schema says no all the same */
	assert_int_equal(raw_exec(f->path, "INSERT INTO ledger (id, chat_id, movement, account, amount, reason, at_ms)"
				  " VALUES (1000001, 1, 1000001, 'user:1', -5, 'stake', 9)"), -1);
	assert_int_equal(raw_exec(f->path, "UPDATE balances SET balance = -1 WHERE account = 'user:2'"), -1);
}

/* `gamebot audit --db TARGET`: its exit status, and what it printed into out (cap bytes). */
static int run_audit(const char *target, char *out, size_t cap)
{
	char *argv[] = { "audit", "--db", (char *)target, NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len), *e = fopen("/dev/null", "w");
	int status;

	assert_non_null(o);
	assert_non_null(e);
	status = audit_main(3, argv, "", o, e);
	fclose(o);
	fclose(e);
	snprintf(out, cap, "%s", text ? text : "");
	free(text);
	return status;
}

static int lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/*
 * `gamebot audit`: a sound ledger is one line and exit 0; rows written
 * past the store (as a person at the database's shell could) are found,
 * one line each naming the chat and what is wrong, and exit 1.
 */
static void test_coins_audit_command(void **state)
{
	struct fixture *f = *state;
	char out[4096], sql[512];
	int64_t chat;

	make_table(f->s, "audited", &chat);
	assert_int_equal(coin_move(f, chat, "bank", "user:1", 1000, "start"), GB_OK);
	assert_int_equal(coin_move(f, chat, "bank", "user:2", 1000, "start"), GB_OK);
	assert_int_equal(coin_move(f, chat, "user:1", "user:2", 300, "win"), GB_OK);
	assert_int_equal(run_audit(f->path, out, sizeof out), 0);
	assert_int_equal(lines(out), 1);
	assert_string_equal(out, "coins ledger sound: 1 chat, 3 accounts, 3 movements\n");
	/* an unpaired row: the chat no longer adds up, and the movement is half of one */
	snprintf(sql, sizeof sql, "INSERT INTO ledger (id, chat_id, movement, account, name, amount, table_id,"
		 " reason, at_ms) VALUES (900001, %lld, 900001, 'user:1', '', 500, 0, 'win', 9)", (long long)chat);
	assert_int_equal(raw_exec(f->path, sql), RAW_OK);
	assert_int_equal(run_audit(f->path, out, sizeof out), 1);
	assert_int_equal(lines(out), 2);
	assert_non_null(strstr(out, "(telegram:audited): the chat's coins do not add up to 0 (total): 500\n"));
	assert_non_null(strstr(out, "a movement is not one pair of rows (rows): movement 900001 1\n"));
	/* a second starting grant, its index dropped first */
	snprintf(sql, sizeof sql, "DROP INDEX ledger_start; INSERT INTO ledger (id, chat_id, movement, account,"
		 " name, amount, table_id, reason, at_ms) VALUES (900002, %lld, 900002, 'bank', '', -1000, 0,"
		 " 'start', 10), (900003, %lld, 900002, 'user:2', '', 1000, 0, 'start', 10)",
		 (long long)chat, (long long)chat);
	assert_int_equal(raw_exec(f->path, sql), RAW_OK);
	assert_int_equal(run_audit(f->path, out, sizeof out), 1);
	assert_int_equal(lines(out), 3);
	assert_non_null(strstr(out, "more than one starting grant (grants): user:2 2\n"));
	assert_int_equal(run_audit("/nonexistent/gamebot.db", out, sizeof out), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_chat_get_creates_then_finds),
		T(test_table_insert_get),
		T(test_table_update_compare_and_swap),
		T(test_table_set_message),
		T(test_table_watch_created_and_count),
		T(test_seats),
		T(test_moves),
		T(test_dedupe),
		T(test_processed_prune),
		T(test_pruning_in_batches),
		T(test_transaction_rollback_and_commit),
		T(test_transaction_units),
		T(test_transaction_isolation),
		T(test_partial_write_undone),
		T(test_outbox),
		T(test_outbox_lease_expiry_after_crash),
		T(test_outbox_chat_order),
		T(test_outbox_turn_first),
		T(test_outbox_new_rows_wait_and_keep_place),
		T(test_outbox_two_workers),
		T(test_outbox_coalescing),
		T(test_outbox_unlease),
		T(test_outbox_extend),
		T(test_outbox_lease),
		T(test_outbox_requeue),
		T(test_outbox_attempts),
		T(test_outbox_set_aside),
		T(test_outbox_chat_rows),
		T(test_outbox_delay),
		T(test_timers),
		T(test_timer_retry),
		T(test_timers_random),
		T(test_stats),
		T(test_chat_move),
		T(test_chat_places),
		T(test_meta),
		T(test_null_and_empty_arguments),
		T(test_long_strings),
		T(test_name_cut_inside_character),
		T(test_typical_command),
		T(test_queue_counted_and_ordered),
		T(test_queue_message_when_it_goes),
		T(test_coins_balances_kept),
		T(test_coins_ledger_refuses),
		T(test_coins_audit_command),
		T(test_open_tables_counted),
#undef T
	};
	int failed;

	backend = "sqlite";
	failed = cmocka_run_group_tests_name("store contract: sqlite", tests, NULL, NULL);
	backend = "postgresql";
	failed += cmocka_run_group_tests_name("store contract: postgresql", tests, pg_group_setup, NULL);
	return failed ? 1 : 0;
}
