/*
 * backend.h - the seam between store.h and the databases behind it.
 *
 * store.c owns the public handle and calls through one struct store_ops
 * per database, never naming one: store/sqlite.c fills store_sqlite_ops
 * (a file path, the embedded default) and store/pg.c fills store_pg_ops
 * (a postgres:// or postgresql:// URL, for several instances sharing one
 * database). Adding a database is one file and one row in store.c's table.
 *
 * A backend holds only what is its database's own: connecting, its
 * schema's migrations, transactions and savepoints, the SQL text of every
 * statement of enum store_sql, binding parameters and reading columns,
 * and its own error classes (as gb_error codes). The operations on rows
 * (store/ops.c, outbox.c, coins.c, online.c) are written once above the
 * statement slots below: they check their arguments, bind, step and shape
 * rows the same way on every database.
 *
 * A slot that is a store_ function's takes the backend's own handle
 * (struct store_backend, which each backend defines for itself and nobody
 * else looks into) instead of struct store and keeps the contract store.h
 * gives that function. store.c never calls one with a NULL handle.
 */
#ifndef GB_STORE_BACKEND_H
#define GB_STORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/*
 * The statements of the operations, by what they do. Each backend gives
 * every one an SQL text of its own (its sql_text[], indexed by this enum;
 * parameters ?1 or $1 ... as its database writes them, bound by number).
 * An _ALL statement is its namesake without the parameter the caller left
 * out (a NULL chat, platform or kind: every one): a database may give both
 * the same text, where that parameter bound NULL means "any". A _LOCK
 * statement is its namesake inside a transaction, holding what it read
 * until the transaction ends (the same text where the database's write
 * lock already does). A write that inserts nothing where another database
 * would refuse it (a duplicate, no such table) answers with no row changed.
 */
enum store_sql {
	SQL_PROCESSED_ADD,
	SQL_PROCESSED_HAS,
	SQL_PROCESSED_PRUNE,
	SQL_CHAT_FIND,
	SQL_CHAT_BY_ID,
	SQL_CHAT_BY_ID_LOCK,
	SQL_CHAT_ADD,
	SQL_CHAT_SAVE,
	SQL_CHAT_DROP_EMPTY,
	SQL_CHAT_MOVE,
	SQL_CHAT_PLACES,
	SQL_TABLE_OPEN_GET,
	SQL_TABLE_GET,
	SQL_TABLE_EXISTS,
	SQL_TABLE_INSERT,
	SQL_TABLE_UPDATE,
	SQL_TABLE_UPDATE_SAME,
	SQL_TABLE_SET_MESSAGE,
	SQL_TABLES_COUNT,
	SQL_TABLES_COUNT_ALL,
	SQL_TABLES_OF_USER,
	SQL_TABLES_BY_GAME,
	SQL_SEATS_GET,
	SQL_SEATS_CLEAR,
	SQL_SEAT_ADD,
	SQL_MOVE_ADD,
	SQL_MOVE_COUNT,
	SQL_MOVE_LAST,
	SQL_MOVES_GET,
	SQL_OUT_ADD,
	SQL_OUT_CLAIM,
	SQL_OUT_DUE,
	SQL_OUT_CHAT,
	SQL_OUT_CHAT_LOCK,
	SQL_OUT_DONE,
	SQL_OUT_RETRY,
	SQL_OUT_EXTEND,
	SQL_OUT_LEASE,
	SQL_OUT_PAYLOAD,
	SQL_OUT_ASIDE,
	SQL_OUT_DELAY,
	SQL_OUT_DELAY_ALL,
	SQL_OUT_UNLEASE,
	SQL_OUT_COUNT,
	SQL_OUT_COUNT_ALL,
	SQL_OUT_MOVE,
	SQL_TIMER_SET,
	SQL_TIMER_RETRY,
	SQL_TIMER_CLEAR,
	SQL_TIMER_CLEAR_ALL,
	SQL_TIMER_DROP,
	SQL_TIMER_DELAY,
	SQL_TIMER_DUE,
	SQL_TIMER_NEXT,
	SQL_STAT_ADD,
	SQL_STAT_NAME,
	SQL_STATS_GAME,
	SQL_STATS_ALL,
	SQL_META_GET,
	SQL_META_SET,
	SQL_TERMS_SET,
	SQL_TERMS_GET,
	SQL_COINS_MOVE,
	SQL_COINS_BALANCE,
	SQL_COINS_TOP,
	SQL_AUDIT_TOTALS,
	SQL_AUDIT_MOVEMENTS,
	SQL_AUDIT_NEGATIVE,
	SQL_AUDIT_POTS,
	SQL_AUDIT_GRANTS,
	SQL_AUDIT_STARTS,
	SQL_AUDIT_BALANCES,
	SQL_AUDIT_COUNT,
	SQL_PROCESSED_PRUNE_SOME,
	SQL_TABLES_PRUNE,
	SQL_OUT_ASIDE_PRUNE,
	SQL_OUT_REQUEUE,
	/* online tables (store/online.c) */
	SQL_QUEUE_ADD,
	SQL_QUEUE_LEAVE,
	SQL_QUEUE_OF,
	SQL_QUEUE_LIST,
	SQL_QUEUE_FILL,
	SQL_QUEUE_CLAIM,
	SQL_QUEUE_BY_GAME,
	SQL_OSEAT_ADD,
	SQL_OSEATS_GET,
	SQL_OSEAT_OPEN,
	SQL_OSEAT_LAST,
	SQL_QUEUE_MESSAGE,
	SQL_QUEUE_SET_MESSAGE,
	SQL_QUEUE_SHOWN,
	SQL_OSEAT_MESSAGE,
	SQL_OSEAT_SET_MESSAGE,
	SQL_PERSON_GET,
	SQL_PERSON_NAME,
	SQL_PERSON_LAST,
	SQL_BLOCK_ADD,
	SQL_BLOCKED,
	SQL_RATING_GET,
	SQL_RATING_SET,
	SQL_RATING_TOP,
	SQL_OSEAT_AWAY,
	SQL_PERSON_BACK,
	SQL_PERSON_BY_NAME,
	SQL_COUNT
};

/*
 * The SQL text both databases run as it is (store/sql.c), with ?1, ?2 ...
 * for the parameters; NULL where each database gives its own.
 */
extern const char *const store_sql_common[SQL_COUNT];

/* The columns the row readers of the operations read, in their order. */
#define STORE_TABLE_COLS "id, chat_id, game, status, version, seed, creator, message," \
	" turn_started_ms, rules, state, watch, created_ms"
#define STORE_TIMER_COLS "table_id, kind, due_ms, version, attempts"
#define STORE_QUEUE_COLS "id, game, seats, stake, platform, user_id, chat, name, lang, fill," \
	" rating, since_ms, message, shown"
#define STORE_OUT_COLS "id, platform, chat, payload, attempts, due_ms, table_id, merge_key," \
	" lease_until_ms, prio"

struct store_backend;

/*
 * One use of a statement of enum store_sql: the backend's own. The
 * operations get one with stmt(), bind its parameters (numbered from 1;
 * one left unbound is NULL), step it and read the columns of the row it
 * is on, then hand it back with stmt_done() before they return; a
 * statement handed back may be bound and stepped again.
 */
struct store_stmt;

struct store_ops {
	/* "sqlite", "postgresql": for messages */
	const char *name;
	/* 1 when the database takes one writer at a time (SQLite): commands
	 * ready together then do better sharing one transaction */
	int one_writer;
	/* 1 when a failed statement undoes only itself and the transaction
	 * goes on (SQLite); 0 when it aborts the whole transaction
	 * (PostgreSQL), so a write whose refusal is an answer the caller
	 * expects (a second open table) runs in a savepoint of its own */
	int failure_keeps_tx;
	/* 1 when a statement's rows come from the database as it is stepped
	 * (SQLite), so reading back the rows a write returns can fail half
	 * way: such a write (store_out_claim()) runs in a savepoint; 0 when a
	 * result arrives whole (PostgreSQL) */
	int rows_streamed;

	/* ---- statements ---- */
	int (*stmt)(struct store_backend *b, enum store_sql id, struct store_stmt **st);
	/* reset, parameters cleared; NULL is a no-op */
	void (*stmt_done)(struct store_stmt *st);
	int (*bind_i64)(struct store_stmt *st, int i, int64_t v);
	/* len bytes of text (NULL binds NULL); kept by pointer until stmt_done()
	 * or copied, as the backend likes */
	int (*bind_text)(struct store_stmt *st, int i, const char *text, size_t len);
	/* run it (its first call) or move to its next row: *row 1 on a row, 0 at the end */
	int (*step)(struct store_stmt *st, int *row);
	/* column col of the row stepped to: NULL reads 0 */
	int64_t (*col_i64)(struct store_stmt *st, int col);
	/* *text = column col's bytes (NULL for NULL; valid until the next step
	 * or stmt_done()), *len their count; GB_ENOMEM when the database could
	 * not give them */
	int (*col_text)(struct store_stmt *st, int col, const char **text, size_t *len);
	/* the rows the handle's last write changed */
	int (*changes)(struct store_backend *b);
	/* inside store_begin() ... commit or rollback */
	int (*in_transaction)(struct store_backend *b);
	/*
	 * Several statements made one: in a savepoint of the caller's
	 * transaction, or outside one a transaction of their own (*outer
	 * says which). sp_end() keeps their work when rc is GB_OK, else
	 * undoes it, and returns rc or the failure to keep it.
	 */
	int (*sp_begin)(struct store_backend *b, int *outer);
	int (*sp_end)(struct store_backend *b, int outer, int rc);
	/*
	 * store_explain(), one statement at a time: line(arg, text) gets each
	 * line of the plan the database has now for statement id (and for the
	 * backend's own statements that store_ function runs with it); args
	 * are representative parameters ($1, $2 ..., NULL-terminated; those
	 * past them NULL) for a planner that wants them.
	 */
	int (*explain)(struct store_backend *b, enum store_sql id, const char *const *args,
		       void (*line)(void *arg, const char *text), void *arg);

	/* ---- open, close, transactions ---- */
	int (*open)(struct store_backend **out, const char *target);
	void (*close)(struct store_backend *b);
	/* store_background_checkpoints(), for this backend's handles; NULL: nothing to do */
	void (*background_checkpoints)(int on);
	int (*checkpoint)(struct store_backend *b, int *log_pages, int *copied);
	/* store_page_cache(), for this backend's handles; NULL: the database keeps no pages in the process */
	void (*page_cache)(uint64_t *hits, uint64_t *misses);
	/* the checkpointer's sleep: until a commit filled the log (1) or
	 * timeout_ms or checkpoint_wake() (0); NULL: the database needs no
	 * checkpointer (store_checkpointer_start() starts none) */
	int (*checkpoint_wait)(int timeout_ms);
	void (*checkpoint_wake)(void);
	int (*ping)(struct store_backend *b);
	int (*schema_version)(struct store_backend *b);
	int (*begin)(struct store_backend *b);
	int (*commit)(struct store_backend *b);
	/* NULL: reads need no snapshot of their own (store_read_begin() is a no-op) */
	int (*read_begin)(struct store_backend *b);
	void (*read_end)(struct store_backend *b);
	void (*rollback)(struct store_backend *b);
	int (*unit_begin)(struct store_backend *b);
	int (*unit_end)(struct store_backend *b, int ok);

	/* ---- the outbox ---- */
	/*
	 * store_out_add_prio() with its arguments checked (key "" for none),
	 * for a database that cannot queue a row in one statement; NULL:
	 * SQL_OUT_ADD does it all, bound to (platform, chat, payload, due_ms,
	 * table, key, prio)
	 */
	int (*out_add)(struct store_backend *b, const char *platform, const char *chat,
		int64_t table, const char *key, const char *payload, int64_t due_ms, int prio);
};

/* store.c's handle, which the operations (ops.c and its siblings) run on. */
struct store {
	const struct store_ops *ops;   /* the backend's table */
	struct store_backend *b;       /* the backend's handle; owned, closed by store_free() */
	char *target;                  /* what store_open() was given (owned) */
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_pg_ops;

/*
 * What migrating a schema is on every database, inside the transaction its
 * backend began holding the lock that keeps other instances out: read the
 * version again with version() (another instance may have migrated while
 * this one waited), refuse a schema newer than latest (written by a newer
 * gamebot), then run the missing migrations[] in order with apply(), each
 * of which must set the version to its own number. GB_OK or the failure.
 */
int store_migrate(struct store_backend *b, const char *const *migrations, int latest,
		  int (*version)(struct store_backend *b, int *v),
		  int (*apply)(struct store_backend *b, const char *sql));

/*
 * Record what the database said about a failure that is not the caller's
 * doing, for store_last_error() of the calling thread; transient: it
 * clears by itself (store_last_error_transient()).
 */
void store_note_error(const char *message, int transient);

/* A warning for the operator, through store_set_warn()'s function. */
#define STORE_WARNING_LEN 400
void store_warn(const char *message);

#endif
