/*
 * sqlite.c - the SQLite backend of store.h.
 *
 * One struct store_backend is one connection plus its prepared statements. The file
 * runs in WAL mode with synchronous=NORMAL (a commit survives a crash of the
 * process; a power cut may lose the last commits but never corrupts the
 * file), foreign keys on and a 5 s busy timeout (STORE_BUSY_TIMEOUT_MS), so
 * several handles (threads or processes) can share one file: readers never
 * wait, writers queue.
 *
 * Schema: the version lives in PRAGMA user_version. The ordered list of
 * schema changes is store_sqlite_migrations[] (store/sqlite_schema.c);
 * sq_open() applies the missing ones in a single BEGIN IMMEDIATE
 * transaction, re-reading the version under the lock
 * so two processes starting together migrate once. An up-to-date file is
 * only read. A file from a newer gamebot (a version we do not know) is
 * refused rather than guessed at.
 *
 * The database's file and its folders are made private before SQLite
 * opens them (store/files.c).
 *
 * Statements: every SQL text is a constant, this backend's own in
 * sql_text[] (indexed by enum store_sql, then by the statements only this
 * file runs) or the one every database runs (store/sql.c). All are
 * prepared once at open (so a typo fails at start-up, not in the middle of
 * a game) and kept until sq_free(); after every use a statement is reset
 * and its bindings cleared, so none holds a read snapshot between calls.
 * Strings are bound SQLITE_TRANSIENT (SQLite copies them). The only SQL
 * run without binding is constant text (pragmas, migrations).
 *
 * Threads: a handle keeps cached statements and a transaction state, so it
 * belongs to one thread at a time; open one handle per thread.
 *
 * Locks: a call of several statements runs in a savepoint (atomic whether
 * or not the caller has a transaction open); outside a transaction, in one
 * of its own begun IMMEDIATE, so it takes the write lock, waiting on the
 * busy timeout, before it reads anything. (A read then a write would fail
 * at once, SQLITE_BUSY_SNAPSHOT, whenever another handle wrote in between.)
 * store_out_claim() picks and leases its rows in one UPDATE ... RETURNING
 * for the same reason: two workers never claim one row.
 *
 * Clocks: times are the caller's epoch milliseconds. The store reads
 * SQLite's clock only for processed.at (epoch seconds, the column default)
 * and outbox.aside_ms (when a row was set aside).
 *
 * Errors: SQLite's result codes become gb_error codes in one place,
 * err_of(): a unique or primary key violation is GB_EEXISTS (callers turn it
 * into GB_EDUP where the header says so), a foreign key violation is
 * GB_ENOTFOUND (the chat or table referred to does not exist), NOT NULL and
 * CHECK violations are GB_EARGS, out of memory is GB_ENOMEM and everything
 * else GB_ESTORE. A failed statement rolls back only itself: an enclosing
 * transaction stays usable.
 */
#include "store/backend.h"
#include "store/files.h"
#include "store/schema.h"
#include "store/sqlite_wal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Writers' wait for another process's lock (store_busy_timeout_set()). */
static int busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;


/* The statements only this backend runs, after the operations' (enum store_sql). */
enum {
	SQ_BEGIN = SQL_COUNT,
	SQ_BEGIN_READ,
	SQ_COMMIT,
	SQ_ROLLBACK,
	SQ_SAVEPOINT,
	SQ_RELEASE,
	SQ_ROLLBACK_TO,
	SQ_USER_VERSION,
	SQ_UNIT_BEGIN,
	SQ_UNIT_RELEASE,
	SQ_UNIT_UNDO,
	SQ_OUT_PLACE,
	SQ_OUT_COALESCE,
	SQ_OUT_REPLACE,
	SQ_OUT_REWRITE,
	SQ_COUNT
};

static const char *const sql_text[SQ_COUNT] = {
	[SQ_BEGIN] = "BEGIN IMMEDIATE",
	/* a snapshot: SQLite takes it at the first read */
	[SQ_BEGIN_READ] = "BEGIN DEFERRED",
	[SQ_COMMIT] = "COMMIT",
	[SQ_ROLLBACK] = "ROLLBACK",
	[SQ_SAVEPOINT] = "SAVEPOINT store_step",
	[SQ_RELEASE] = "RELEASE store_step",
	[SQ_ROLLBACK_TO] = "ROLLBACK TO store_step",
	[SQ_USER_VERSION] = "PRAGMA user_version",
	[SQ_UNIT_BEGIN] = "SAVEPOINT unit",
	[SQ_UNIT_RELEASE] = "RELEASE unit",
	[SQ_UNIT_UNDO] = "ROLLBACK TO unit",
	/* ?3 open only, ?4 watch only (0 or 1). */
	[SQL_TABLES_COUNT] = "SELECT count(*) FROM tables WHERE chat_id = ?1 AND created_ms >= ?2"
		" AND (?3 = 0 OR status < 2) AND (?4 = 0 OR watch = 1)",
	/* ?1 left out: every chat's */
	[SQL_TABLES_COUNT_ALL] = "SELECT count(*) FROM tables WHERE created_ms >= ?2"
		" AND (?3 = 0 OR status < 2) AND (?4 = 0 OR watch = 1)",
	[SQL_MOVE_ADD] = "INSERT INTO moves (table_id, seq, actor, action, events)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	/* For a new row of key ?3 due at ?4: the latest due time of the
	 * chat's pending rows, and the earliest of the rows it replaces. */
	[SQ_OUT_PLACE] = "SELECT max(due_ms), min(CASE WHEN ?3 <> '' AND merge_key = ?3"
		" AND (lease_until_ms = 0 OR lease_until_ms <= ?4) THEN due_ms END),"
		" min(CASE WHEN ?3 <> '' AND merge_key = ?3 THEN ifnull(place, id) END)"
		" FROM outbox WHERE platform = ?1 AND chat = ?2 AND aside_ms IS NULL",
	/* The earlier rows a new row of key ?3 replaces: pending and not
	 * leased past ?4, the new row's due time (0: never leased). */
	[SQ_OUT_COALESCE] = "DELETE FROM outbox WHERE platform = ?1 AND chat = ?2"
		" AND merge_key = ?3 AND aside_ms IS NULL"
		" AND (lease_until_ms = 0 OR lease_until_ms <= ?4)",
	/* The chat's newest pending row, when it is of table ?5, key ?6 and
	 * class ?7 and was never handed to a worker, takes the new payload,
	 * due time and place ?8 in place: it is where the new row would go
	 * (its chat's last, so its class's last too). */
	[SQ_OUT_REPLACE] = "UPDATE outbox SET payload = ?3, due_ms = ?4, place = coalesce(?8, place)"
		" WHERE id = (SELECT max(id) FROM outbox WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL) AND table_id = ?5 AND merge_key = ?6 AND prio = ?7"
		" AND lease_until_ms = 0 AND attempts = 0 AND aside_ms IS NULL",
	/* SQ_OUT_REPLACE when the row keeps its due time and its place in
	 * the queue (the common case: the chat's one pending row, rewritten):
	 * the payload alone is set, so SQLite leaves the row's index entries
	 * (outbox_due, outbox_queue) as they are instead of deleting and
	 * inserting them again. No row changed: SQ_OUT_REPLACE decides. */
	[SQ_OUT_REWRITE] = "UPDATE outbox SET payload = ?3"
		" WHERE id = (SELECT max(id) FROM outbox WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL) AND table_id = ?5 AND merge_key = ?6 AND prio = ?7"
		" AND lease_until_ms = 0 AND attempts = 0 AND aside_ms IS NULL"
		" AND due_ms = ?4 AND ifnull(place, id) = coalesce(?8, place, id)",
	/* the new row, once sq_out_add() has placed it and made room */
	[SQL_OUT_ADD] = "INSERT INTO outbox (platform, chat, payload, due_ms, table_id, merge_key, prio,"
		" place) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* Each chat's head (its pending row of the highest class, the first
	 * of them in queue order: for turn-critical rows a row's place, see
	 * SQ_OUT_PLACE, then its id; else its id) if due at ?2 and no row of
	 * its chat is under a live lease (a turn-critical row queued while an
	 * older informational one is out waits for it), in queue order;
	 * leased until ?3. The queue order is walked through its own index
	 * (outbox_queue) from its front, stopping once the batch is had,
	 * instead of every row due read and sorted (77 ms a claim at 40,000
	 * rows waiting). A chat's rows are few: the NOT EXISTS reads them
	 * through outbox_chat. RETURNING order is arbitrary:
	 * store_out_claim() sorts. */
	[SQL_OUT_CLAIM] = "UPDATE outbox SET lease_until_ms = ?3 WHERE id IN ("
		"SELECT o.id FROM outbox AS o INDEXED BY outbox_queue WHERE o.platform = ?1"
		" AND o.aside_ms IS NULL"
		" AND o.due_ms <= ?2 AND o.lease_until_ms <= ?2"
		" AND NOT EXISTS (SELECT 1 FROM outbox AS p WHERE p.platform = ?1"
		" AND p.chat = o.chat AND p.aside_ms IS NULL AND (p.prio > o.prio"
		" OR (p.prio = o.prio"
		" AND (CASE WHEN p.prio > 0 THEN ifnull(p.place, p.id) ELSE p.id END, p.id)"
		" < (CASE WHEN o.prio > 0 THEN ifnull(o.place, o.id) ELSE o.id END, o.id))"
		" OR p.lease_until_ms > ?2))"
		" ORDER BY ifnull(o.place, o.id) LIMIT ?4) RETURNING " STORE_OUT_COLS,
	/* Stamped with SQLite's clock in epoch milliseconds. */
	[SQL_OUT_ASIDE] = "UPDATE outbox SET lease_until_ms = 0, aside_why = ?2,"
		" aside_ms = CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
		" WHERE id = ?1 AND aside_ms IS NULL",
	/* set aside within the last ?2 ms by SQLite's clock, of platform ?1 (NULL: every one) */
	[SQL_OUT_REQUEUE] = "UPDATE outbox SET aside_ms = NULL, aside_why = NULL, attempts = 0,"
		" lease_until_ms = 0, due_ms = ?3 WHERE aside_ms IS NOT NULL AND (?1 IS NULL OR platform = ?1)"
		" AND aside_ms >= CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) - ?2",
	/* +due_ms: through outbox_chat (one chat's rows), not outbox_due. */
	[SQL_OUT_DELAY] = "UPDATE outbox SET due_ms = ?3 WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL AND +due_ms < ?3",
	[SQL_OUT_DELAY_ALL] = "UPDATE outbox SET due_ms = ?3 WHERE platform = ?1"
		" AND aside_ms IS NULL AND due_ms < ?3",
	[SQL_TIMER_SET] = "INSERT INTO timers (table_id, kind, due_ms, version)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (table_id, kind) DO UPDATE"
		" SET due_ms = excluded.due_ms, version = excluded.version, attempts = 0",
	[SQL_TIMER_CLEAR] = "DELETE FROM timers WHERE table_id = ?1 AND kind = ?2",
	[SQL_TIMER_CLEAR_ALL] = "DELETE FROM timers WHERE table_id = ?1",
	[SQL_STAT_ADD] = "INSERT INTO stats (chat_id, user_id, game, name, games, wins, points)"
		" VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6) ON CONFLICT (chat_id, user_id, game)"
		" DO UPDATE SET name = excluded.name, games = games + 1,"
		" wins = wins + excluded.wins, points = points + excluded.points",
	/* The seed is fixed by the first write; later writes set the stake. */
	[SQL_TERMS_SET] = "INSERT INTO table_terms (table_id, seed, stake) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (table_id) DO UPDATE SET stake = excluded.stake",
	/* Both rows of a movement in one statement: ?2 gives ?6 coins to ?4.
	 * No rows: no such chat (GB_ENOTFOUND), found before the balances'
	 * check could take the rows for a wallet going below 0. */
	[SQL_COINS_MOVE] = "WITH m(n) AS (SELECT coalesce(max(movement), 0) + 1 FROM ledger)"
		" INSERT INTO ledger (chat_id, movement, account, name, amount, table_id, reason, at_ms)"
		" SELECT ?1, n, ?2, ?3, -?6, ?7, ?8, ?9 FROM m, chats AS c WHERE c.id = ?1"
		" UNION ALL SELECT ?1, n, ?4, ?5, ?6, ?7, ?8, ?9 FROM m, chats AS c WHERE c.id = ?1",
	/* at most ?2 of the processed ids stamped before ?1 (epoch seconds), oldest first */
	[SQL_PROCESSED_PRUNE_SOME] = "DELETE FROM processed WHERE (platform, update_id) IN"
		" (SELECT platform, update_id FROM processed WHERE at < ?1 ORDER BY at LIMIT ?2)",
};

/* A statement, as the operations hold it. */
struct store_stmt {
	sqlite3_stmt *st;              /* owned; prepared at open, finalized by sq_free() */
};

struct store_backend {
	sqlite3 *db;                   /* owned; closed by sq_free() */
	struct store_stmt stmt[SQ_COUNT];
	int locked;                    /* holds the process's writer lock (store/sqlite_wal.c) */
	int reading;                   /* inside store_read_begin()'s snapshot */
};

static void sq_free(struct store_backend *s);
static void sq_rollback(struct store_backend *s);

/* ---- helpers ---- */

/* The gb_error code for an SQLite (extended) result code that is not success. */
static int err_of(int src)
{
	switch (src) {
	case SQLITE_NOMEM:
		return GB_ENOMEM;
	case SQLITE_CONSTRAINT_PRIMARYKEY:
	case SQLITE_CONSTRAINT_UNIQUE:
		return GB_EEXISTS;
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return GB_ENOTFOUND;
	case SQLITE_CONSTRAINT_NOTNULL:
	case SQLITE_CONSTRAINT_CHECK:
		return GB_EARGS;
	default:
		return GB_ESTORE;
	}
}

static int bind_text(sqlite3_stmt *st, int i, const char *text)
{
	return sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
}

static void read_end(struct store_backend *s);

/* The text of statement id: this backend's own, else the one every database runs. */
static const char *sql_of(int id)
{
	return id < SQL_COUNT && !sql_text[id] ? store_sql_common[id] : sql_text[id];
}

/*
 * The cached statement id, ready for binding. It must go back through
 * stmt_done() before the calling function returns.
 */
static int stmt_get(struct store_backend *s, int id, sqlite3_stmt **st)
{
	int src;
	int rc = GB_OK;

	*st = NULL;
	if (!s->stmt[id].st) {
		src = sqlite3_prepare_v3(s->db, sql_of(id), -1, SQLITE_PREPARE_PERSISTENT,
					 &s->stmt[id].st, NULL);
		if (src != SQLITE_OK) {
			rc = err_of(src);
			goto out;
		}
	}
	/* a write inside a read snapshot ends it first: it writes as it would have without one */
	if (s->reading && !sqlite3_stmt_readonly(s->stmt[id].st))
		read_end(s);
	*st = s->stmt[id].st;
out:
	return rc;
}

/* Reset st and clear its bindings (releases its read snapshot); NULL is a no-op. */
static void stmt_done(sqlite3_stmt *st)
{
	if (!st)
		return;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/*
 * Keep what SQLite said about a failure of db that is not the caller's
 * doing (a constraint is a normal answer), for store_last_error().
 */
static void note_failure(sqlite3 *db, int src)
{
	int rc = err_of(src);

	if (rc == GB_ESTORE || rc == GB_ENOMEM) {
		int primary = src & 0xff;
		char message[200];

		snprintf(message, sizeof(message), "%s (SQLite code %d)",
			 db ? sqlite3_errmsg(db) : sqlite3_errstr(src), src);
		store_note_error(message, primary == SQLITE_BUSY || primary == SQLITE_LOCKED ||
						  primary == SQLITE_FULL || primary == SQLITE_READONLY ||
						  primary == SQLITE_IOERR);
	}
}

/* Step st once: GB_OK and *row 1 for a row, 0 when done; or the error. */
static int step(sqlite3_stmt *st, int *row)
{
	int src = sqlite3_step(st);

	*row = src == SQLITE_ROW;
	if (src == SQLITE_ROW || src == SQLITE_DONE)
		return GB_OK;
	note_failure(sqlite3_db_handle(st), src);
	return err_of(src);
}

/* Step a statement that returns no rows. */
static int step_done(sqlite3_stmt *st)
{
	int row;

	return step(st, &row);
}

/* Run a cached statement that takes no parameters and returns no rows. */
static int run(struct store_backend *s, int id)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, id, &st);

	if (rc)
		goto out;
	rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

/* A bind result as a gb_error code. */
static int bound(int src)
{
	return src == SQLITE_OK ? GB_OK : err_of(src);
}

/*
 * A savepoint makes a multi-statement write atomic whether or not the
 * caller has a transaction open. *outer says whether it started one.
 */
static int sp_begin(struct store_backend *s, int *outer)
{
	int rc;

	read_end(s);
	*outer = sqlite3_get_autocommit(s->db);
	if (*outer) {
		/*
		 * Outside a transaction the call is one of its own, begun
		 * IMMEDIATE: the write lock first (waiting on the busy
		 * timeout), whatever its first statement is. A savepoint alone
		 * would begin it DEFERRED, and a read before the write would
		 * fail at once (SQLITE_BUSY_SNAPSHOT) whenever another handle
		 * committed in between.
		 */
		sq_writer_acquire(&s->locked);
		rc = run(s, SQ_BEGIN);
		if (rc) {
			sq_writer_release(&s->locked);
			return rc;
		}
	}
	rc = run(s, SQ_SAVEPOINT);
	if (rc && *outer) {
		run(s, SQ_ROLLBACK);
		sq_writer_release(&s->locked);
	}
	return rc;
}

/* End the savepoint: keep its work when rc is GB_OK, else undo it. Returns rc or a commit error. */
static int sp_end(struct store_backend *s, int outer, int rc)
{
	if (rc)
		run(s, SQ_ROLLBACK_TO);
	if (run(s, SQ_RELEASE) != GB_OK && !rc)
		rc = GB_ESTORE;
	if (outer) {
		/* the call's own transaction: kept whole or not at all, and
		 * never left open for nobody to end */
		if (rc || run(s, SQ_COMMIT) != GB_OK) {
			if (!sqlite3_get_autocommit(s->db))
				run(s, SQ_ROLLBACK);
			if (!rc)
				rc = GB_ESTORE;
		}
		sq_writer_release(&s->locked);
	}
	return rc;
}

/* ---- statements, as the operations use them ---- */

static int sq_stmt(struct store_backend *s, enum store_sql id, struct store_stmt **out)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, (int)id, &st);

	*out = rc ? NULL : &s->stmt[id];
	return rc;
}

static void sq_stmt_done(struct store_stmt *st)
{
	if (st)
		stmt_done(st->st);
}

static int sq_bind_i64(struct store_stmt *st, int i, int64_t v)
{
	return bound(sqlite3_bind_int64(st->st, i, v));
}

/* SQLite copies the text (SQLITE_TRANSIENT). */
static int sq_bind_text(struct store_stmt *st, int i, const char *text, size_t len)
{
	return bound(text ? sqlite3_bind_text(st->st, i, text, (int)len, SQLITE_TRANSIENT) :
			    sqlite3_bind_null(st->st, i));
}

static int sq_step(struct store_stmt *st, int *row)
{
	return step(st->st, row);
}

static int64_t sq_col_i64(struct store_stmt *st, int col)
{
	return sqlite3_column_int64(st->st, col);
}

/* A text SQLite could not make (no memory) is told from a NULL by the column's type. */
static int sq_col_text(struct store_stmt *st, int col, const char **text, size_t *len)
{
	int null = sqlite3_column_type(st->st, col) == SQLITE_NULL;

	*text = (const char *)sqlite3_column_text(st->st, col);
	*len = *text ? (size_t)sqlite3_column_bytes(st->st, col) : 0;
	return *text || null ? GB_OK : GB_ENOMEM;
}

static int sq_changes(struct store_backend *s)
{
	return sqlite3_changes(s->db);
}

static int sq_in_transaction(struct store_backend *s)
{
	return !sqlite3_get_autocommit(s->db);
}

/*
 * The plan of statement id as EXPLAIN QUERY PLAN gives it (SQLite plans
 * without the arguments); for store_out_add(), those of the statements
 * sq_out_add() runs before its insert too.
 */
static int sq_explain(struct store_backend *s, enum store_sql id, const char *const *args,
		      void (*line)(void *arg, const char *text), void *arg)
{
	static const int out_add[] = { SQ_OUT_PLACE, SQ_OUT_COALESCE, SQ_OUT_REWRITE, SQ_OUT_REPLACE,
				       SQL_OUT_ADD };
	const int one = (int)id;
	const int *ids = id == SQL_OUT_ADD ? out_add : &one;
	size_t n = id == SQL_OUT_ADD ? sizeof out_add / sizeof out_add[0] : 1;
	int rc = GB_OK;

	(void)args;
	for (size_t i = 0; !rc && i < n; i++) {
		/* constant text: EXPLAIN QUERY PLAN before one of the statements' */
		char *sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql_of(ids[i]));
		sqlite3_stmt *st = NULL;
		int src = sql ? sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) : SQLITE_NOMEM;

		if (src == SQLITE_OK)
			while ((src = sqlite3_step(st)) == SQLITE_ROW)
				line(arg, (const char *)sqlite3_column_text(st, 3));
		if (src != SQLITE_DONE)
			rc = err_of(src);
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	return rc;
}

/* ---- open, close, transactions ---- */

static int user_version(struct store_backend *s, int *version)
{
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = stmt_get(s, SQ_USER_VERSION, &st);

	*version = 0;
	if (rc)
		goto out;
	rc = step(st, &row);
	if (rc)
		goto out;
	if (!row) {
		rc = GB_ESTORE;
		goto out;
	}
	*version = sqlite3_column_int(st, 0);
out:
	stmt_done(st);
	return rc;
}

/* Run one migration: constant text of several statements. */
static int apply_migration(struct store_backend *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? GB_OK : GB_ESTORE;
}

/* Bring the schema to its latest version under the write lock; an up-to-date file is only read. */
static int migrate(struct store_backend *s)
{
	int version = 0;
	int in_tx = 0;
	int rc = user_version(s, &version);

	if (rc || version == store_sqlite_schema_version)
		goto out;
	rc = run(s, SQ_BEGIN);
	if (rc)
		goto out;
	in_tx = 1;
	rc = store_migrate(s, store_sqlite_migrations, store_sqlite_schema_version, user_version,
			   apply_migration);
	if (rc)
		goto out;
	rc = run(s, SQ_COMMIT);
	if (rc)
		goto out;
	in_tx = 0;
out:
	if (in_tx)
		sq_rollback(s);
	return rc;
}

/*
 * Once per process, before SQLite's first use: no memory statistics.
 * Keeping them takes one process-wide mutex around every allocation of
 * every connection, and a service's many threads queue on it. (When the
 * process used SQLite before, the call is refused and nothing changes.)
 */
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int sq_open(struct store_backend **handle, const char *path)
{
	struct store_backend *s = NULL;
	char file[PATH_MAX];
	int src;
	int rc = GB_OK;

	pthread_once(&sqlite_once, sqlite_setup);
	if (!handle || !path || !path[0]) {
		rc = GB_EARGS;
		goto out;
	}
	*handle = NULL;
	/* only a database on disk has a folder and a file to make (":memory:" has neither) */
	if (store_file_of(path, file, sizeof(file))) {
		rc = store_make_parent(file);
		if (rc)
			goto out;
		store_make_private_file(file);
	}
	s = calloc(1, sizeof *s);
	if (!s) {
		rc = GB_ENOMEM;
		goto out;
	}
	src = sqlite3_open_v2(path, &s->db,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (src != SQLITE_OK) {
		note_failure(s->db, src);
		rc = s->db ? GB_ESTORE : GB_ENOMEM;
		goto out;
	}
	/*
	 * SQLite quietly opens a file it may not write read-only, and such a
	 * handle stays read-only when the file becomes writable again. Refuse
	 * it instead, before the write-ahead log and its index are made
	 * (they would take the file's read-only mode and outlive the fault):
	 * the caller opens again later and gets a handle that can write.
	 */
	if (sqlite3_db_readonly(s->db, "main") == 1) {
		char message[200];

		snprintf(message, sizeof(message), "%s: the database file is read-only", path);
		store_note_error(message, 1);
		rc = GB_ESTORE;
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, busy_timeout_ms);
	/*
	 * Threads of this process opening a new file together take turns
	 * (the writer lock); another process doing the same may still hold
	 * the file while it switches it to WAL, which SQLite answers with
	 * "busy" at once rather than waiting: try again a few times.
	 * Constant text: the first statement that reads the file, so a file
	 * that is not a database fails here.
	 */
	sq_writer_acquire(&s->locked);
	for (int tries = 0;; tries++) {
		src = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"
				   " PRAGMA synchronous = NORMAL;"
				   " PRAGMA journal_size_limit = 67108864; PRAGMA temp_store = MEMORY;",
				   NULL, NULL, NULL);
		if ((src & 0xff) != SQLITE_BUSY || tries == 50)
			break;
		sqlite3_sleep(20);
	}
	if (src != SQLITE_OK) {
		note_failure(s->db, src);
		sq_writer_release(&s->locked);
		rc = err_of(src);
		goto out;
	}
	rc = migrate(s);
	sq_writer_release(&s->locked);
	if (rc)
		goto out;
	/* constant text; the checkpoints are then store_checkpoint()'s, off the command path */
	if (sq_background_on()) {
		if (sqlite3_exec(s->db, "PRAGMA wal_autocheckpoint = 0;", NULL, NULL, NULL) != SQLITE_OK) {
			rc = GB_ESTORE;
			goto out;
		}
		sqlite3_wal_hook(s->db, sq_log_grew, NULL);
	}
	for (int i = 0; i < SQ_COUNT; i++) {
		sqlite3_stmt *st = NULL;

		rc = stmt_get(s, i, &st);
		if (rc)
			goto out;
	}
	*handle = s;
	s = NULL;
out:
	sq_free(s);
	return rc;
}

static int sq_checkpoint(struct store_backend *s, int *log_pages, int *copied)
{
	int src = sq_checkpoint_log(s->db, &s->locked, busy_timeout_ms, log_pages, copied);

	return src == SQLITE_OK ? GB_OK : err_of(src);
}

static void sq_free(struct store_backend *s)
{
	if (!s)
		return;
	for (int i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(s->stmt[i].st);
	/* Rolls back a transaction left open. */
	sqlite3_close_v2(s->db);
	while (s->locked)
		sq_writer_release(&s->locked);
	free(s);
}

/* Reads the file header: proves the file is there and readable. */
static int sq_ping(struct store_backend *s)
{
	int version = 0;

	return user_version(s, &version);
}

/* The version, or -1 when the file cannot be read. */
static int sq_schema_version(struct store_backend *s)
{
	int version = -1;

	return user_version(s, &version) ? -1 : version;
}

void store_busy_timeout_set(int ms)
{
	busy_timeout_ms = ms < 0 ? 0 : ms;
}

static int sq_begin(struct store_backend *s)
{
	int rc;

	read_end(s);
	sq_writer_acquire(&s->locked);
	rc = run(s, SQ_BEGIN);
	if (rc)
		sq_writer_release(&s->locked);
	return rc;
}

/*
 * A command's reads in one snapshot: one look at the log's index and one
 * filling of the page cache, instead of one per statement. Inside a
 * transaction its reads already are one; a write (or a transaction)
 * ends the snapshot first.
 */
static int sq_read_begin(struct store_backend *s)
{
	int rc;

	if (s->reading || !sqlite3_get_autocommit(s->db))
		return GB_OK;
	rc = run(s, SQ_BEGIN_READ);
	if (!rc)
		s->reading = 1;
	return rc;
}

/*
 * Pages found in a connection's cache and pages it had to read, over all
 * the process's connections (store_page_cache()): each handle adds what it
 * did when a transaction of it ends.
 */
static atomic_ullong pages_hit, pages_missed;

static void count_pages(struct store_backend *s)
{
	int n = 0, high = 0;

	if (sqlite3_db_status(s->db, SQLITE_DBSTATUS_CACHE_HIT, &n, &high, 1) == SQLITE_OK && n > 0)
		atomic_fetch_add(&pages_hit, (unsigned long long)n);
	if (sqlite3_db_status(s->db, SQLITE_DBSTATUS_CACHE_MISS, &n, &high, 1) == SQLITE_OK && n > 0)
		atomic_fetch_add(&pages_missed, (unsigned long long)n);
}

static void sq_page_cache(uint64_t *hits, uint64_t *misses)
{
	*hits = atomic_load(&pages_hit);
	*misses = atomic_load(&pages_missed);
}

static void read_end(struct store_backend *s)
{
	if (!s->reading)
		return;
	count_pages(s);
	s->reading = 0;
	if (!sqlite3_get_autocommit(s->db) && run(s, SQ_COMMIT))
		run(s, SQ_ROLLBACK);
}

/* On an error the transaction may still be open: call sq_rollback(). */
static int sq_commit(struct store_backend *s)
{
	int rc;

	rc = run(s, SQ_COMMIT);
	if (!rc || sqlite3_get_autocommit(s->db))
		sq_writer_release(&s->locked);
	count_pages(s);
	return rc;
}

static int sq_unit_begin(struct store_backend *s)
{
	if (sqlite3_get_autocommit(s->db))
		return GB_EARGS; /* only inside a transaction */
	return run(s, SQ_UNIT_BEGIN);
}

static int sq_unit_end(struct store_backend *s, int ok)
{
	int rc = GB_OK;

	/* a failed I/O or a full disk can end the whole transaction under us */
	if (sqlite3_get_autocommit(s->db))
		return GB_ESTORE;
	if (!ok)
		rc = run(s, SQ_UNIT_UNDO);
	if (!rc)
		rc = run(s, SQ_UNIT_RELEASE);
	if (!rc && sqlite3_get_autocommit(s->db))
		rc = GB_ESTORE;
	return rc;
}

static void sq_rollback(struct store_backend *s)
{
	s->reading = 0;
	if (!sqlite3_get_autocommit(s->db))
		run(s, SQ_ROLLBACK);
	sq_writer_release(&s->locked);
}

/* ---- the outbox: a row queued in several statements ---- */

/* Run id (SQL_OUT_ADD, SQ_OUT_REWRITE or SQ_OUT_REPLACE), which take a row's fields in this order (place: none). */
static int out_write(struct store_backend *s, int id, const char *platform, const char *chat,
		     const char *payload, int64_t due_ms, int64_t table, const char *key, int prio,
		     int64_t place)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, id, &st);

	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_text(st, 3, payload));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 4, due_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 5, table));
	if (!rc)
		rc = bound(bind_text(st, 6, key));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 7, prio));
	if (!rc && place)
		rc = bound(sqlite3_bind_int64(st, 8, place));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	return rc;
}

/* Bind (platform, chat, key, due_ms) to ?1..?4 of st, as SQ_OUT_PLACE and SQ_OUT_COALESCE take them. */
static int bind_key(sqlite3_stmt *st, const char *platform, const char *chat, const char *key,
		    int64_t due_ms)
{
	int rc = bound(bind_text(st, 1, platform));

	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_text(st, 3, key));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 4, due_ms));
	return rc;
}

/*
 * When a new row of key for chat, due at *due_ms, may go (see
 * store_out_add()): not before the chat's rows that wait (a retry-after),
 * and at the due time of the oldest row it replaces; *place: the queue
 * place of the oldest pending row of its key, claimed or not (a board
 * superseded while it is being sent hands its place on), 0 none.
 */
static int out_place(struct store_backend *s, const char *platform, const char *chat,
		     const char *key, int64_t *due_ms, int64_t *place)
{
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = stmt_get(s, SQ_OUT_PLACE, &st);

	if (!rc)
		rc = bind_key(st, platform, chat, key, *due_ms);
	if (!rc)
		rc = step(st, &row);
	if (!rc && row && sqlite3_column_type(st, 1) != SQLITE_NULL &&
	    sqlite3_column_int64(st, 1) < *due_ms)
		*due_ms = sqlite3_column_int64(st, 1);
	if (!rc && row && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_int64(st, 0) > *due_ms)
		*due_ms = sqlite3_column_int64(st, 0);
	*place = rc || !row ? 0 : sqlite3_column_int64(st, 2); /* NULL reads 0: none */
	stmt_done(st);
	return rc;
}

/* Delete the chat's rows a new row of key, due at due_ms, replaces. */
static int out_coalesce(struct store_backend *s, const char *platform, const char *chat,
			const char *key, int64_t due_ms)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, SQ_OUT_COALESCE, &st);

	if (!rc)
		rc = bind_key(st, platform, chat, key, due_ms);
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	return rc;
}

/*
 * store_out_add_prio(), its arguments checked, in one savepoint: where the
 * new row may go and its place; a non-empty key then rewrites the chat's
 * last row when that is the one it replaces, or deletes the rows it
 * replaces before the insert.
 */
static int sq_out_add(struct store_backend *s, const char *platform, const char *chat,
		      int64_t table, const char *key, const char *payload, int64_t due_ms, int prio)
{
	int outer = 0;
	int64_t at = due_ms;           /* when the new row may go */
	int64_t place = 0;
	int rc = sp_begin(s, &outer);

	if (rc)
		return rc;
	rc = out_place(s, platform, chat, key, &at, &place);
	if (!rc && key[0]) {
		/*
		 * Most often the row to replace is the chat's last and still
		 * unsent: rewrite it, its payload alone when it keeps its due
		 * time and place.
		 */
		rc = out_write(s, SQ_OUT_REWRITE, platform, chat, payload, at, table, key, prio, place);
		if (!rc && sqlite3_changes(s->db) == 1)
			return sp_end(s, outer, rc);
		if (!rc)
			rc = out_write(s, SQ_OUT_REPLACE, platform, chat, payload, at, table, key, prio,
				      place);
		if (!rc && sqlite3_changes(s->db) == 1)
			return sp_end(s, outer, rc);
		if (!rc)
			rc = out_coalesce(s, platform, chat, key, due_ms);
	}
	if (!rc)
		rc = out_write(s, SQL_OUT_ADD, platform, chat, payload, at, table, key, prio, place);
	return sp_end(s, outer, rc);
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.one_writer = 1,
	.failure_keeps_tx = 1,
	.rows_streamed = 1,
	.stmt = sq_stmt,
	.stmt_done = sq_stmt_done,
	.bind_i64 = sq_bind_i64,
	.bind_text = sq_bind_text,
	.step = sq_step,
	.col_i64 = sq_col_i64,
	.col_text = sq_col_text,
	.changes = sq_changes,
	.in_transaction = sq_in_transaction,
	.sp_begin = sp_begin,
	.sp_end = sp_end,
	.explain = sq_explain,
	.open = sq_open,
	.close = sq_free,
	.background_checkpoints = sq_background_checkpoints,
	.checkpoint = sq_checkpoint,
	.page_cache = sq_page_cache,
	.checkpoint_wait = sq_checkpoint_wait,
	.checkpoint_wake = sq_checkpoint_wake,
	.ping = sq_ping,
	.schema_version = sq_schema_version,
	.begin = sq_begin,
	.commit = sq_commit,
	.read_begin = sq_read_begin,
	.read_end = read_end,
	.rollback = sq_rollback,
	.unit_begin = sq_unit_begin,
	.unit_end = sq_unit_end,
	.out_add = sq_out_add,
};
