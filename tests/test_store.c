/*
 * test_store.c - what only the SQLite backend (store/sqlite.c) does: files.
 *
 * Folders made on open, a file from a newer gamebot or not a database at
 * all, unwritable paths, migrations from old schemas, WAL, two handles on
 * a new file. What every backend promises is in test_store_contract.c.
 *
 * Every test gets a fresh folder (tests/fixture.c) under $TMPDIR, opens its
 * own handles on a file inside it and removes the folder afterwards. Where a
 * guarantee is about the file rather than one handle (compare-and-swap,
 * schema version, a write seen by another connection) the test opens a
 * second store handle or a raw sqlite3 connection on the same file.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include "tests/size.h"

#include "store/store.h"
#include "tests/fixture.h"

struct fixture {
	char dir[64];     /* the test's temporary folder */
	char path[128];   /* database file inside it */
	struct store *s;  /* open on path; owned, freed by teardown */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	assert_non_null(f);
	assert_int_equal(fixture_dir(f->dir, sizeof f->dir, "store"), 0);
	snprintf(f->path, sizeof f->path, "%s/db/game.db", f->dir);
	assert_int_equal(store_open(&f->s, f->path), GB_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	store_free(f->s);
	rc = fixture_rm(f->dir);
	free(f);
	return rc;
}

/* Run one SQL text on a raw connection to path (test-side inspection only). */
static int raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int src = sqlite3_open(path, &db);

	if (src == SQLITE_OK) {
		sqlite3_busy_timeout(db, 5000);
		src = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_close(db);
	return src;
}

/* The first column of the first row of sql on db as an integer. */
static sqlite3_int64 raw_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- open, schema, migrations ---- */

/*
 * An in-memory database (":memory:", as the router fuzzer opens, or a
 * "file:" URI of one) leaves no file behind in the working folder; a
 * "file:" URI naming a path makes that file, private (0600), not a file
 * named after the URI.
 */
static void test_memory_names_make_no_file(void **state)
{
	struct fixture *f = *state;
	static const char *const memory[] = { ":memory:", "file::memory:", "file:x.db?mode=memory",
					      "file:x.db?cache=shared&mode=memory", "file:" };
	char cwd[4096], uri[256], path[256];
	struct store *s = NULL;
	struct stat sb;

	assert_non_null(getcwd(cwd, sizeof cwd));
	snprintf(path, sizeof path, "%s/empty", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chdir(path), 0);
	for (size_t i = 0; i < sizeof(memory) / sizeof(memory[0]); i++) {
		assert_int_equal(store_open(&s, memory[i]), GB_OK);
		assert_int_equal(store_ping(s), GB_OK);
		store_free(s);
		s = NULL;
	}
	/* nothing at all in the folder: no ":memory:", no "file:x.db?mode=memory" */
	{
		DIR *d = opendir(".");
		struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				fail_msg("store_open() of an in-memory name made \"%s\"", e->d_name);
		closedir(d);
	}
	/* a URI naming a file (an escape in it): that file, 0600, whatever the umask */
	{
		mode_t old = umask(022);

		snprintf(uri, sizeof uri, "file:%s/sub/u%%20ri.db?cache=private", f->dir);
		snprintf(path, sizeof path, "%s/sub/u ri.db", f->dir);
		assert_int_equal(store_open(&s, uri), GB_OK);
		umask(old);
	}
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	store_free(s);
	assert_int_equal(chdir(cwd), 0);
}

static void test_open_creates_folder_and_schema(void **state)
{
	struct fixture *f = *state;
	char deep[192];
	char folder[192];
	char here[192];
	char cwd[4096];
	struct store *s = NULL;
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	/* several missing levels at once */
	snprintf(deep, sizeof deep, "%s/a/b/c/game.db", f->dir);
	snprintf(folder, sizeof folder, "%s/a/b/c", f->dir);
	snprintf(here, sizeof here, "%s/here.db", f->dir);
	assert_int_equal(store_open(&s, deep), GB_OK);
	assert_int_equal(stat(folder, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_true(store_schema_version(s) >= 1);
	assert_int_equal(store_ping(s), GB_OK);

	assert_int_equal(sqlite3_open(deep, &db), SQLITE_OK);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN"
				 " ('chats', 'tables', 'seats', 'moves', 'processed', 'outbox', 'timers', 'stats',"
				 " 'meta')"), 9);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN"
				 " ('outbox_due', 'outbox_chat', 'timers_due', 'tables_open', 'tables_created',"
				 " 'processed_at')"), 6);
	assert_int_equal(raw_int(db, "PRAGMA user_version"), store_schema_version(s));
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
	store_free(s);

	/* a bare file name in the current folder has no parent to make */
	s = NULL;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(f->dir), 0);
	assert_int_equal(store_open(&s, "here.db"), GB_OK);
	store_free(s);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(stat(here, &sb), 0);
}

static void test_reopen_keeps_data_and_migrates_once(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	struct store *s = NULL;
	sqlite3 *db = NULL;
	int version = store_schema_version(f->s);
	sqlite3_int64 data_version;
	sqlite3_int64 objects;

	assert_int_equal(store_chat_get(f->s, "console", "room", "ne", &c), GB_OK);
	store_chat_release(&c);
	store_free(f->s);
	f->s = NULL;

	/* A raw connection sees any commit another connection makes in
	 * data_version: reopening an up-to-date file must commit nothing. */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	data_version = raw_int(db, "PRAGMA data_version");
	objects = raw_int(db, "SELECT count(*) FROM sqlite_master");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(store_open(&s, f->path), GB_OK);
		assert_int_equal(store_schema_version(s), version);
		store_free(s);
		s = NULL;
	}
	assert_int_equal(raw_int(db, "PRAGMA data_version"), data_version);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master"), objects);
	sqlite3_close(db);

	assert_int_equal(store_open(&f->s, f->path), GB_OK);
	assert_int_equal(store_chat_get(f->s, "console", "room", "en", &c), GB_OK);
	assert_string_equal(c.lang, "ne"); /* found, not recreated */
	store_chat_release(&c);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	char path[192];
	struct store *s = NULL;

	snprintf(path, sizeof path, "%s/future.db", f->dir);
	assert_int_equal(raw_exec(path, "CREATE TABLE x (a); PRAGMA user_version = 999;"), SQLITE_OK);
	assert_int_equal(store_open(&s, path), GB_ESTORE);
	assert_null(s);
}

static void test_empty_sqlite_file_migrated(void **state)
{
	struct fixture *f = *state;
	char path[192];
	struct store *s = NULL;
	struct store_chat c;

	/* an SQLite file another tool made, at version 0 */
	snprintf(path, sizeof path, "%s/old.db", f->dir);
	assert_int_equal(raw_exec(path, "CREATE TABLE notes (a); INSERT INTO notes VALUES (1);"), SQLITE_OK);
	assert_int_equal(store_open(&s, path), GB_OK);
	assert_true(store_schema_version(s) >= 1);
	assert_int_equal(store_chat_get(s, "discord", "1", "en", &c), GB_OK);
	store_chat_release(&c);
	store_free(s);
}

/* Opening an up-to-date file takes no lock: it works while another
 * connection is in the middle of a write transaction. */
static void test_open_while_other_writes(void **state)
{
	struct fixture *f = *state;
	struct store *s = NULL;
	sqlite3 *db = NULL;
	struct timespec t0;
	struct timespec t1;
	double waited;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO processed (platform, update_id)"
				      " VALUES ('x', '1');", NULL, NULL, NULL), SQLITE_OK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(store_open(&s, f->path), GB_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(waited < 1.0);
	/* and reads the last committed state meanwhile */
	assert_int_equal(store_ping(s), GB_OK);
	assert_int_equal(store_schema_version(s), store_schema_version(f->s));
	assert_int_equal(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_mark_processed(s, "x", "1"), GB_OK);
	assert_int_equal(store_mark_processed(f->s, "x", "1"), GB_EDUP);
	sqlite3_close(db);
	store_free(s);
}

/* Two handles opening a new file at the same moment both succeed. */
static void test_two_handles_open_new_file(void **state)
{
	struct fixture *f = *state;
	char path[192];
	struct store *a = NULL;
	struct store *b = NULL;

	snprintf(path, sizeof path, "%s/new/both.db", f->dir);
	assert_int_equal(store_open(&a, path), GB_OK);
	assert_int_equal(store_open(&b, path), GB_OK);
	assert_int_equal(store_schema_version(a), store_schema_version(b));
	store_free(a);
	store_free(b);
}

/*
 * Schema 1 exactly as gamebot shipped it (migration 1 of store/sqlite.c),
 * kept here so a file of that version can be made, and so an edit of the
 * shipped migration shows up as a schema that differs from a migrated one.
 */
static const char schema_v1[] =
	"CREATE TABLE chats ("
	"  id INTEGER PRIMARY KEY,"
	"  platform TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  lang TEXT NOT NULL DEFAULT 'en',"
	"  settings TEXT NOT NULL DEFAULT '{}',"
	"  UNIQUE (platform, chat)"
	");"
	"CREATE TABLE tables ("
	"  id INTEGER PRIMARY KEY,"
	"  chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,"
	"  game TEXT NOT NULL,"
	"  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),"
	"  version INTEGER NOT NULL DEFAULT 1,"
	"  seed INTEGER NOT NULL DEFAULT 0,"
	"  creator TEXT NOT NULL DEFAULT '',"
	"  message TEXT NOT NULL DEFAULT '',"
	"  turn_started_ms INTEGER NOT NULL DEFAULT 0,"
	"  rules TEXT NOT NULL DEFAULT '{}',"
	"  state TEXT"
	");"
	"CREATE INDEX tables_chat ON tables(chat_id);"
	"CREATE UNIQUE INDEX tables_open ON tables(chat_id) WHERE status < 2;"
	"CREATE TABLE seats ("
	"  table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL CHECK (seat >= 0),"
	"  user_id TEXT NOT NULL DEFAULT '',"
	"  name TEXT NOT NULL DEFAULT '',"
	"  level INTEGER NOT NULL DEFAULT -1,"
	"  PRIMARY KEY (table_id, seat)"
	") WITHOUT ROWID;"
	"CREATE TABLE moves ("
	"  table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL CHECK (seq > 0),"
	"  actor TEXT NOT NULL,"
	"  action TEXT NOT NULL,"
	"  events TEXT NOT NULL DEFAULT '[]',"
	"  PRIMARY KEY (table_id, seq)"
	") WITHOUT ROWID;"
	"CREATE TRIGGER moves_append_only BEFORE UPDATE ON moves"
	"  BEGIN SELECT RAISE(ABORT, 'the move log is append only'); END;"
	"CREATE TABLE processed ("
	"  platform TEXT NOT NULL,"
	"  update_id TEXT NOT NULL,"
	"  at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),"
	"  PRIMARY KEY (platform, update_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  platform TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  payload TEXT NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  due_ms INTEGER NOT NULL"
	");"
	"CREATE INDEX outbox_due ON outbox(platform, due_ms, id);"
	"CREATE TABLE timers ("
	"  table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  due_ms INTEGER NOT NULL,"
	"  version INTEGER NOT NULL,"
	"  PRIMARY KEY (table_id, kind)"
	") WITHOUT ROWID;"
	"CREATE INDEX timers_due ON timers(due_ms, table_id, kind);"
	"CREATE TABLE stats ("
	"  chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,"
	"  user_id TEXT NOT NULL,"
	"  game TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  games INTEGER NOT NULL DEFAULT 0,"
	"  wins INTEGER NOT NULL DEFAULT 0,"
	"  points INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (chat_id, user_id, game)"
	") WITHOUT ROWID;"
	"PRAGMA user_version = 1;";

/* Every object of the schema of the file at path, as one text (name and SQL, by name). */
static void schema_text(const char *path, char *buf, size_t cap)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	buf[0] = '\0';
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, coalesce(sql, '')"
					    " FROM sqlite_master ORDER BY type, name", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int w = snprintf(buf + len, cap - len, "%s %s %s %s\n", sqlite3_column_text(st, 0),
				 sqlite3_column_text(st, 1), sqlite3_column_text(st, 2),
				 sqlite3_column_text(st, 3));

		assert_true(w > 0 && (size_t)w < cap - len);
		len += (size_t)w;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/*
 * A file of schema 5 with coins and open tables in it, opened by this
 * gamebot: schema 6 counts what is there, each account's balance the sum
 * of its ledger rows with the newest row's name, each game's open tables,
 * and from then on keeps them as rows are written.
 */
static void test_migrate_to_6_counts_what_is_there(void **state)
{
	struct fixture *f = *state;
	struct store_game_count g[4];
	struct store_balance top[4];
	struct store_chat c;
	struct store_table t;
	int64_t balance = 0;
	struct store *s = NULL;
	sqlite3 *db = NULL;
	int n = 0, rows = 0;

	assert_int_equal(store_chat_get(f->s, "telegram", "-7", "en", &c), GB_OK);
	for (int i = 0; i < 3; i++) {
		memset(&t, 0, sizeof t);
		t.chat = c.id;
		snprintf(t.game, sizeof t.game, i == 2 ? "snakes" : "ludo");
		t.status = i == 1 ? STORE_OVER : STORE_PLAYING;
		t.rules = "{}";
		if (i == 0) {
			assert_int_equal(store_table_insert(f->s, &t), GB_OK);
		} else {
			/* one open table a chat: the others in chats of their own */
			struct store_chat o;
			char name[8];

			snprintf(name, sizeof name, "-7%d", i);
			assert_int_equal(store_chat_get(f->s, "telegram", name, "en", &o), GB_OK);
			t.chat = o.id;
			assert_int_equal(store_table_insert(f->s, &t), GB_OK);
			store_chat_release(&o);
		}
	}
	for (int i = 0; i < 3; i++) {
		struct store_coin_move m = { .from = "bank", .to = "user:1", .amount = 100 + i,
					     .reason = "grant", .at_ms = 1 };

		snprintf(m.to_name, sizeof m.to_name, "Asha %d", i);
		assert_int_equal(store_coins_move(f->s, c.id, &m), GB_OK);
	}
	store_free(f->s);
	f->s = NULL;
	/* back to schema 5: what it kept, without what 6 adds (nor 7's online tables, 8's count of the people waiting, 9's queue messages, 10's ledger rules and 11's away seats and unique names) */
	assert_int_equal(raw_exec(f->path,
		"DROP TABLE online_queue; DROP TABLE online_seats; DROP TABLE online_people;"
		"DROP TABLE online_blocks; DROP TABLE ratings; DROP TABLE online_waiting;"
		"DROP TRIGGER ledger_balance; DROP TABLE balances;"
		"DROP TRIGGER open_tables_insert; DROP TRIGGER open_tables_status;"
		"DROP TRIGGER open_tables_delete; DROP TABLE open_tables;"
		"DROP INDEX outbox_aside_platform; DROP INDEX ledger_start; PRAGMA user_version = 5;"), SQLITE_OK);
	assert_int_equal(store_open(&s, f->path), GB_OK);
	assert_int_equal(store_schema_version(s), 11);
	assert_int_equal(store_coins_balance(s, c.id, "user:1", &balance, &rows), GB_OK);
	assert_int_equal(balance, 303);
	assert_int_equal(rows, 3);
	assert_int_equal(store_coins_balance(s, c.id, "bank", &balance, &rows), GB_OK);
	assert_int_equal(balance, -303);
	assert_int_equal(store_coins_top(s, c.id, "user:", top, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(top[0].name, "Asha 2");
	assert_int_equal(store_tables_open_by_game(s, g, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].game, "ludo");
	assert_int_equal(g[0].tables, 1);
	assert_string_equal(g[1].game, "snakes");
	assert_int_equal(g[1].tables, 1);
	assert_int_equal(store_coins_audit(s, 0, NULL, 0), GB_OK);
	store_free(s);
	/* the same schema as a new file's */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('balances',"
				 " 'open_tables', 'ledger_balance', 'open_tables_insert', 'open_tables_status',"
				 " 'open_tables_delete', 'outbox_aside_platform')"), 7);
	sqlite3_close(db);
	store_chat_release(&c);
	assert_int_equal(store_open(&f->s, f->path), GB_OK);
}

/*
 * A file written by schema 1, with a row in every table, opened by this
 * gamebot: migrated to the current version, data intact and usable by the
 * new calls, and the same schema as a new file.
 */
static void test_migrate_from_version_1(void **state)
{
	struct fixture *f = *state;
	char path[192];
	static char fresh[16384];
	static char migrated[16384];
	struct store *s = NULL;
	struct store_chat c;
	struct store_table t;
	struct store_seat seat[2];
	struct store_stat st[2];
	struct store_timer tm;
	struct store_out o[2];
	int attempts = -1;
	int n = -1;

	snprintf(path, sizeof path, "%s/v1.db", f->dir);
	assert_int_equal(raw_exec(path, schema_v1), SQLITE_OK);
	assert_int_equal(raw_exec(path,
		"INSERT INTO chats (id, platform, chat, lang, settings) VALUES (7, 'telegram', '-100', 'ne', '{\"idle\":30}');"
		"INSERT INTO tables (id, chat_id, game, status, version, seed, creator, message, turn_started_ms, rules, state)"
		" VALUES (3, 7, 'ludo', 1, 5, 99, 'u1', 'm-9', 1234, '{\"r\":1}', '{\"s\":1}');"
		"INSERT INTO seats VALUES (3, 0, 'u1', 'Asha', -1);"
		"INSERT INTO moves VALUES (3, 1, 'u1', 'roll', '[]');"
		"INSERT INTO processed (platform, update_id) VALUES ('telegram', '555');"
		"INSERT INTO outbox (platform, chat, payload, attempts, due_ms) VALUES ('telegram', '-100', '{\"o\":1}', 2, 50);"
		"INSERT INTO timers VALUES (3, 'idle', 9000, 5);"
		"INSERT INTO stats VALUES (7, 'u1', 'ludo', 'Asha', 4, 3, 0);"), SQLITE_OK);

	assert_int_equal(store_open(&s, path), GB_OK);
	assert_int_equal(store_schema_version(s), 11);
	assert_int_equal(store_chat_get(s, "telegram", "-100", "en", &c), GB_OK);
	assert_int_equal(c.id, 7);
	assert_string_equal(c.lang, "ne");
	assert_string_equal(c.settings, "{\"idle\":30}");
	store_chat_release(&c);
	assert_int_equal(store_table_get(s, 3, &t), GB_OK);
	assert_int_equal(t.version, 5);
	assert_string_equal(t.message, "m-9");
	assert_int_equal(t.turn_started_ms, 1234);
	assert_string_equal(t.state, "{\"s\":1}");
	assert_int_equal(t.watch, 0);
	assert_int_equal(t.created_ms, 0);
	store_table_release(&t);
	assert_int_equal(store_seats_get(s, 3, seat, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(seat[0].name, "Asha");
	assert_int_equal(store_move_count(s, 3, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_mark_processed(s, "telegram", "555"), GB_EDUP);
	assert_int_equal(store_stats_get(s, 7, "ludo", st, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(st[0].wins, 3);
	assert_int_equal(store_timer_next(s, &tm), GB_OK);
	assert_int_equal(tm.version, 5);
	assert_int_equal(tm.attempts, 0);
	assert_int_equal(store_timer_retry(s, 3, "idle", 5, 9500, &attempts), GB_OK);
	assert_int_equal(attempts, 1);
	/* the old queued message is pending and claimable, with no table or key */
	assert_int_equal(store_out_claim(s, "telegram", 50, 100, o, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(o[0].payload, "{\"o\":1}");
	assert_int_equal(o[0].attempts, 2);
	assert_int_equal(o[0].table, 0);
	assert_string_equal(o[0].key, "");
	assert_int_equal(o[0].lease_until_ms, 150);
	assert_int_equal(o[0].prio, STORE_OUT_INFO);
	store_out_release(&o[0]);
	assert_int_equal(store_tables_count(s, 7, 0, 1, 0, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_meta_set(s, "k", "v"), GB_OK);
	store_free(s);

	/* reopening migrates nothing more; the schema is a new file's */
	assert_int_equal(store_open(&s, path), GB_OK);
	assert_int_equal(store_schema_version(s), 11);
	store_free(s);
	schema_text(f->path, fresh, sizeof fresh);
	schema_text(path, migrated, sizeof migrated);
	assert_string_equal(migrated, fresh);
}

/* ---- chats ---- */

/* ---- tables ---- */

/* ---- seats and moves ---- */

/* ---- dedupe and transactions ---- */


/* ---- outbox ---- */

/* Two workers draining one queue, each on its own handle. */

/* ---- timers ---- */

/* ---- stats ---- */

/* ---- chat move ---- */

/* ---- meta ---- */

/* ---- bad input ---- */

static void test_not_a_database(void **state)
{
	struct fixture *f = *state;
	char path[192];
	char junk[8192];
	struct store *s = NULL;
	FILE *fp;

	snprintf(path, sizeof path, "%s/junk.db", f->dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 7 + 3);
	assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
	fclose(fp);
	assert_int_equal(store_open(&s, path), GB_ESTORE);
	assert_null(s);

	/* a text file */
	fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs("this is not a database, just some notes\n", fp);
	fclose(fp);
	assert_int_equal(store_open(&s, path), GB_ESTORE);
	assert_null(s);

	/* the path is a folder */
	assert_int_equal(store_open(&s, f->dir), GB_ESTORE);
	assert_null(s);
}

static void test_unwritable_path(void **state)
{
	struct fixture *f = *state;
	char path[192];
	char ro[192];
	struct store *s = NULL;
	FILE *fp;

	/* a parent "folder" that is a regular file */
	snprintf(path, sizeof path, "%s/plain", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(path, sizeof path, "%s/plain/sub/game.db", f->dir);
	assert_int_equal(store_open(&s, path), GB_EIO);
	assert_null(s);
	snprintf(path, sizeof path, "%s/plain/game.db", f->dir);
	assert_int_equal(store_open(&s, path), GB_EIO);
	assert_null(s);

	/* where nobody may create folders, not even root */
	assert_int_equal(store_open(&s, "/proc/gamebot-store-test/game.db"), GB_EIO);
	assert_null(s);
	assert_int_not_equal(store_open(&s, "/proc/game.db"), GB_OK);
	assert_null(s);

	/* a read-only folder (root may write anyway, so only checked otherwise) */
	snprintf(ro, sizeof ro, "%s/ro", f->dir);
	assert_int_equal(mkdir(ro, 0500), 0);
	snprintf(path, sizeof path, "%s/ro/game.db", f->dir);
	if (geteuid() != 0) {
		assert_int_equal(store_open(&s, path), GB_ESTORE);
		assert_null(s);
		snprintf(path, sizeof path, "%s/ro/sub/game.db", f->dir);
		assert_int_equal(store_open(&s, path), GB_EIO);
		assert_null(s);
	}
	chmod(ro, 0700);
}

/* ---- opening together, checkpoints ---- */

struct opener {
	const char *path;
	int rc;
};

static void *open_and_close(void *arg)
{
	struct opener *o = arg;
	struct store *s = NULL;

	o->rc = store_open(&s, o->path);
	store_free(s);
	return NULL;
}

/* Eight threads opening one new file at the same moment: all succeed, the schema is made once. */
static void test_open_new_file_together(void **state)
{
	struct fixture *f = *state;
	char path[256];
	pthread_t th[8];
	struct opener o[8];
	struct store *s = NULL;

	snprintf(path, sizeof(path), "%s/together.db", f->dir);
	for (int i = 0; i < 8; i++) {
		o[i] = (struct opener){ .path = path, .rc = -1 };
		assert_int_equal(pthread_create(&th[i], NULL, open_and_close, &o[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(o[i].rc, GB_OK);
	}
	assert_int_equal(store_open(&s, path), GB_OK);
	assert_true(store_schema_version(s) >= 1);
	store_free(s);
}

/* Queue n outbox rows of 4,000 bytes on s, one page each, each its own commit. */
static void add_pages(struct store *s, int n)
{
	static char big[4000];

	memset(big, 'x', sizeof(big) - 1);
	for (int i = 0; i < n; i++)
		assert_int_equal(store_out_add(s, "p", "c", 0, "", big, i), GB_OK);
}

/*
 * Background checkpoints: with them on, commits no longer copy the log
 * back themselves (it grows past SQLite's 1,000-page mark), and
 * store_checkpoint() copies all of it.
 */
static void test_background_checkpoints(void **state)
{
	struct fixture *f = *state;
	char path[256];
	struct store *s = NULL;
	int log = 0, copied = 0;

	snprintf(path, sizeof(path), "%s/checkpoints.db", f->dir);
	store_background_checkpoints(1);
	assert_int_equal(store_open(&s, path), GB_OK);
	store_background_checkpoints(0);
	add_pages(s, 1500);
	assert_int_equal(store_checkpoint(s, &log, &copied), GB_OK);
	assert_true(log > 1000);
	assert_int_equal(copied, log);
	store_free(s);
}

/*
 * A read snapshot: reads between store_read_begin() and store_read_end()
 * all see the database as the first did; a write, or a transaction,
 * inside one ends it first and goes through as it would without it.
 */
static void test_read_snapshot(void **state)
{
	struct fixture *f = *state;
	struct store *other = NULL;
	char v[16];

	assert_int_equal(store_open(&other, f->path), GB_OK);
	assert_int_equal(store_meta_set(f->s, "k", "1"), GB_OK);
	assert_int_equal(store_read_begin(f->s), GB_OK);
	assert_int_equal(store_meta_get(f->s, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "1");
	assert_int_equal(store_meta_set(other, "k", "2"), GB_OK);
	assert_int_equal(store_meta_get(f->s, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "1");
	store_read_end(f->s);
	assert_int_equal(store_meta_get(f->s, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "2");

	/* a write inside: the snapshot ends, the write is kept at once */
	assert_int_equal(store_read_begin(f->s), GB_OK);
	assert_int_equal(store_meta_get(f->s, "k", v, sizeof(v)), GB_OK);
	assert_int_equal(store_meta_set(f->s, "k", "3"), GB_OK);
	assert_int_equal(store_meta_get(other, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "3");
	store_read_end(f->s);

	/* a transaction inside: it starts as usual and its commit is seen */
	assert_int_equal(store_read_begin(f->s), GB_OK);
	assert_int_equal(store_meta_get(f->s, "k", v, sizeof(v)), GB_OK);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_meta_set(f->s, "k", "4"), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(store_meta_get(other, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "4");

	/* inside a transaction there is nothing to begin; ending none is a no-op */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_read_begin(f->s), GB_OK);
	assert_int_equal(store_meta_set(f->s, "k", "5"), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	store_read_end(f->s);
	store_read_end(NULL);
	assert_int_equal(store_read_begin(NULL), GB_EARGS);
	assert_int_equal(store_meta_get(other, "k", v, sizeof(v)), GB_OK);
	assert_string_equal(v, "5");
	store_free(other);
}

struct reader {
	const char *path;
	atomic_bool stop;
	long reads;
};

/* Short reads without pause, each a transaction of its own, as command threads make under load. */
static void *read_on(void *arg)
{
	struct reader *r = arg;
	struct store *s = NULL;

	if (store_open(&s, r->path))
		return NULL;
	while (!atomic_load(&r->stop)) {
		struct store_chat c;

		/* a command's reads: a few in one snapshot, over a few milliseconds */
		store_read_begin(s);
		for (int i = 0; i < 4; i++) {
			if (store_chat_get(s, "p", "c", "en", &c) == GB_OK)
				r->reads++;
			store_chat_release(&c);
			usleep(1000);
		}
		store_read_end(s);
	}
	store_free(s);
	return NULL;
}

/*
 * Under steady writes with some reader always inside the log, a checkpoint
 * still starts the log over: round after round the file stays the size
 * of one round's writes (about 26 MB here: each commit writes its row's
 * page and the indexes' pages) instead of growing by every round (to
 * about 52 MB after two, `make test`'s size, or 100 MB after four, the
 * full size: tests/size.h).
 */
static void test_checkpoint_restarts_busy_log(void **state)
{
	struct fixture *f = *state;
	char path[256], wal[272];
	struct store *s = NULL;
	struct reader r = { .path = path }, r2 = { .path = path };
	pthread_t th, th2;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/steady.db", f->dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	store_background_checkpoints(1);
	assert_int_equal(store_open(&s, path), GB_OK);
	store_background_checkpoints(0);
	atomic_init(&r.stop, false);
	atomic_init(&r2.stop, false);
	/* the chat the readers read is there: they only read (a first read would add it) */
	{
		struct store_chat c;

		assert_int_equal(store_chat_get(s, "p", "c", "en", &c), GB_OK);
		store_chat_release(&c);
	}
	/* two readers, so that one is nearly always inside the log */
	assert_int_equal(pthread_create(&th, NULL, read_on, &r), 0);
	assert_int_equal(pthread_create(&th2, NULL, read_on, &r2), 0);
	for (int round = 0; round < test_size(4, 2); round++) {
		int log = -1, tries = 0;

		add_pages(s, 1000);
		/*
		 * Checkpoint until the log starts over: the next commit then
		 * finds it a page or two long. A restart may be refused while
		 * a reader is held up (a loaded machine); it is tried again.
		 * A log of -1 is unknown: another checkpoint was running.
		 */
		do {
			assert_int_equal(store_checkpoint(s, NULL, NULL), GB_OK);
			add_pages(s, 1);
			assert_int_equal(store_checkpoint(s, &log, NULL), GB_OK);
			if (log < 0 || log > 100)
				usleep(20000);
		} while ((log < 0 || log > 100) && ++tries < 20);
		assert_in_range(log, 0, 100);
	}
	atomic_store(&r.stop, true);
	atomic_store(&r2.stop, true);
	pthread_join(th, NULL);
	pthread_join(th2, NULL);
	assert_true(r.reads > 0);
	assert_int_equal(stat(wal, &sb), 0);
	assert_true(sb.st_size < 40 * 1024 * 1024);
	store_free(s);
}

/*
 * The checkpointer thread copies the log back once commits fill it, with
 * no call from anyone: the database file takes the pages written.
 */
static void test_checkpointer_copies_when_full(void **state)
{
	struct fixture *f = *state;
	char path[256];
	struct store_checkpointer *cp = NULL;
	struct store *s = NULL;
	struct stat sb = { 0 };

	snprintf(path, sizeof(path), "%s/filled.db", f->dir);
	assert_int_equal(store_checkpointer_start(path, &cp), GB_OK);
	assert_non_null(cp);
	assert_int_equal(store_open(&s, path), GB_OK);
	store_background_checkpoints(0);
	add_pages(s, 3000);
	for (int tries = 0; tries < 100; tries++) {
		assert_int_equal(stat(path, &sb), 0);
		if (sb.st_size >= 3000 * 4000)
			break;
		usleep(50000);
	}
	assert_true(sb.st_size >= 3000 * 4000);
	store_free(s);
	store_checkpointer_stop(cp);
	store_checkpointer_stop(NULL);
}

struct marker {
	const char *path;
	atomic_bool stop;
	int failed;
};

/* Single-statement writes without pause from a handle of its own, as the outbox worker's. */
static void *mark_on(void *arg)
{
	struct marker *m = arg;
	struct store *s = NULL;
	char id[32];

	if (store_open(&s, m->path))
		return NULL;
	for (long i = 0; !atomic_load(&m->stop); i++) {
		snprintf(id, sizeof(id), "u%ld", i);
		if (store_mark_processed(s, "p", id) != GB_OK)
			m->failed++;
	}
	store_free(s);
	return NULL;
}

/*
 * A call of several statements outside a transaction, its first a read
 * (adding an outbox row reads the chat's queue first), while another
 * handle commits single writes without pause: every call still goes
 * through, waiting for the lock rather than failing at once because a
 * commit came between its read and its write.
 */
static void test_read_then_write_outside_a_transaction(void **state)
{
	struct fixture *f = *state;
	struct marker m = { .path = f->path };
	pthread_t th;
	int failed = 0;

	atomic_init(&m.stop, false);
	assert_int_equal(pthread_create(&th, NULL, mark_on, &m), 0);
	for (int i = 0; i < 3000; i++)
		if (store_out_add(f->s, "p", "c", 0, "", "{\"kind\":\"public\"}", i) != GB_OK)
			failed++;
	atomic_store(&m.stop, true);
	pthread_join(th, NULL);
	assert_int_equal(failed, 0);
	assert_int_equal(m.failed, 0);
}

/*
 * A file of schema 9 where a wallet went below 0 (two stakes taken at
 * once before the ledger refused it), opened by this gamebot: schema 10 and after
 * keeps every balance, and that wallet's as its floor: it may receive
 * coins, never fall lower; a second starting grant is refused from then on.
 */
static void test_migrate_to_10_keeps_a_wallet_below_0(void **state)
{
	struct fixture *f = *state;
	struct store_coin_move m = { .from = "bank", .to = "user:1", .amount = 100, .reason = "grant", .at_ms = 1 };
	struct store_chat c;
	struct store *s = NULL;
	int64_t balance = 0;
	int rows = 0;
	char sql[2048];

	assert_int_equal(store_chat_get(f->s, "telegram", "-9", "en", &c), GB_OK);
	assert_int_equal(store_coins_move(f->s, c.id, &m), GB_OK);
	store_free(f->s);
	f->s = NULL;
	/* schema 9's balances, kept by an upsert, after two stakes of 100 from a wallet of 100 */
	snprintf(sql, sizeof sql,
		 "DROP INDEX online_people_name; ALTER TABLE online_people DROP COLUMN name_key;"
		 "ALTER TABLE online_seats DROP COLUMN away;"
		 "DROP INDEX ledger_start; DROP TRIGGER ledger_balance; DROP TABLE balances;"
		 "INSERT INTO ledger (chat_id, movement, account, amount, reason, at_ms) VALUES"
		 " (%lld, 10, 'user:1', -100, 'stake', 2), (%lld, 10, 'pot:1', 100, 'stake', 2),"
		 " (%lld, 11, 'user:1', -100, 'stake', 2), (%lld, 11, 'pot:2', 100, 'stake', 2);"
		 "CREATE TABLE balances (chat_id INTEGER NOT NULL, account TEXT NOT NULL,"
		 " name TEXT NOT NULL DEFAULT '', balance INTEGER NOT NULL, entries INTEGER NOT NULL,"
		 " PRIMARY KEY (chat_id, account)) WITHOUT ROWID;"
		 "INSERT INTO balances SELECT chat_id, account, '', sum(amount), count(*) FROM ledger"
		 " GROUP BY chat_id, account;"
		 "CREATE TRIGGER ledger_balance AFTER INSERT ON ledger BEGIN"
		 " INSERT INTO balances (chat_id, account, name, balance, entries)"
		 " VALUES (new.chat_id, new.account, new.name, new.amount, 1)"
		 " ON CONFLICT (chat_id, account) DO UPDATE SET name = excluded.name,"
		 " balance = balance + excluded.balance, entries = entries + 1; END;"
		 "PRAGMA user_version = 9;", (long long)c.id, (long long)c.id, (long long)c.id, (long long)c.id);
	assert_int_equal(raw_exec(f->path, sql), SQLITE_OK);
	assert_int_equal(store_open(&s, f->path), GB_OK);
	assert_int_equal(store_schema_version(s), 11);
	assert_int_equal(store_coins_balance(s, c.id, "user:1", &balance, &rows), GB_OK);
	assert_int_equal(balance, -100);
	assert_int_equal(rows, 3);
	/* never lower */
	m = (struct store_coin_move){ .from = "user:1", .to = "pot:3", .amount = 1, .reason = "stake", .at_ms = 3 };
	assert_int_equal(store_coins_move(s, c.id, &m), GB_ECONFLICT);
	/* but it may receive coins */
	m = (struct store_coin_move){ .from = "pot:1", .to = "user:1", .amount = 100, .reason = "refund", .at_ms = 4 };
	assert_int_equal(store_coins_move(s, c.id, &m), GB_OK);
	assert_int_equal(store_coins_balance(s, c.id, "user:1", &balance, &rows), GB_OK);
	assert_int_equal(balance, 0);
	m = (struct store_coin_move){ .from = "bank", .to = "user:1", .amount = 1000, .reason = "start", .at_ms = 5 };
	assert_int_equal(store_coins_move(s, c.id, &m), GB_OK);
	assert_int_equal(store_coins_move(s, c.id, &m), GB_ECONFLICT);
	store_free(s);
	store_chat_release(&c);
	assert_int_equal(store_open(&f->s, f->path), GB_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_new_file_together, setup, teardown),
		cmocka_unit_test_setup_teardown(test_background_checkpoints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_restarts_busy_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpointer_copies_when_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_then_write_outside_a_transaction, setup, teardown),
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_open_creates_folder_and_schema),
		T(test_memory_names_make_no_file),
		T(test_reopen_keeps_data_and_migrates_once),
		T(test_newer_schema_refused),
		T(test_empty_sqlite_file_migrated),
		T(test_open_while_other_writes),
		T(test_two_handles_open_new_file),
		T(test_migrate_from_version_1),
		T(test_migrate_to_6_counts_what_is_there),
		T(test_migrate_to_10_keeps_a_wallet_below_0),
		T(test_not_a_database),
		T(test_unwritable_path),
#undef T
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
