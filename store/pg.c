/*
 * pg.c - the PostgreSQL backend of store.h (store_pg_ops), written with
 * libpq.
 *
 * For several gamebot instances sharing one database: store_open() comes
 * here for a postgres:// or postgresql:// URL (libpq's connection URI, so
 * host, port, user, password, sslmode and options all go in it). The
 * operations on rows (store/ops.c and its siblings) run through the
 * statement slots here; the pg_ functions that are a store_ function's
 * keep the contract store.h states for it.
 *
 * One struct store_backend is one connection plus its prepared
 * statements. Every SQL text is a constant, this backend's own in
 * sql_text[] (indexed by enum store_sql) or the one every database runs
 * (store/sql.c, its ?n written $n here), prepared once at open (so a typo
 * fails at start-up) under the name "g<index>". Parameters go as text,
 * out of band ($1, $2, ...; one not bound is NULL); no SQL is ever built
 * from data. A handle belongs to one thread at a time.
 *
 * Schema: the version is the one row of gamebot_schema.
 * store_pg_migrations[] (store/pg_schema.c) is the ordered list of schema
 * changes, one for one with SQLite's (a
 * version number means the same schema on both). store_open() applies the
 * missing ones in one transaction begun holding an advisory lock
 * (MIGRATE_LOCK; held by the connection, gone with it if it dies),
 * re-reading the version under it, so instances that start together
 * migrate once and the others wait, then find the schema current. An up-to-date database is only read; one from a newer gamebot
 * is refused. The tables live in the first schema of the connection's
 * search_path (options=-csearch_path%3D... in the URL picks another).
 *
 * Transactions and concurrency: store_begin() is a plain BEGIN (READ
 * COMMITTED), and writers run side by side; what keeps them apart is
 * - store_table_update(), a compare-and-swap on the version: an UPDATE that
 *   waits for a concurrent writer of the row and re-checks the version on
 *   what it committed, so of two commands on one table exactly one wins;
 * - store_chat_get_by_id() inside a transaction locks the chat's row (FOR
 *   UPDATE), so the router's "settings unchanged" check and its save are
 *   one step, as under SQLite's write lock;
 * - store_out_add() takes a transaction-level advisory lock on its chat
 *   before the row gets its id, so a chat's rows are numbered in commit
 *   order and a row never appears behind one already claimed;
 * - store_out_claim() picks each chat's head with FOR UPDATE SKIP LOCKED in
 *   one UPDATE ... RETURNING: workers never wait for each other and never
 *   claim one row twice, and a chat with a row under a live lease gives
 *   none, so a chat's messages go out one at a time, each class in order
 *   (two workers claiming at the same instant, on snapshots either side of
 *   a turn-critical row's commit, may each take one row of its chat: the
 *   new row and the informational one it goes before, an order the
 *   contract allows; rows of one class never overtake each other);
 * - a processed update, a move, a timer, a coin movement or terms for a
 *   table that is not there are inserts that find no row (ON CONFLICT DO
 *   NOTHING, WHERE EXISTS) rather than errors, so the expected refusals
 *   (GB_EDUP, GB_EEXISTS, GB_ENOTFOUND) leave the transaction usable.
 * A call of several statements runs in a savepoint (in the caller's
 * transaction) or its own transaction (outside one), atomic either way; so
 * does store_table_insert() (a second open table is a unique violation).
 * Any other failed statement aborts PostgreSQL's transaction: every later
 * call fails until store_rollback(). A deadlock PostgreSQL broke, or a
 * serialization failure, is GB_ECONFLICT: roll back and run the command
 * again, as for a lost compare-and-swap.
 *
 * Timers are read, not claimed: two schedulers may fire one due timer,
 * and the table's compare-and-swap lets only one of them act (the other
 * finds it stale and drops it with store_timer_drop()).
 *
 * Connections: a connection found broken outside a transaction is reset
 * (and its statements prepared again) before the next statement; inside a
 * transaction the call fails, since what the transaction did is lost.
 * Connecting gives up after CONNECT_TIMEOUT_S unless the URL says
 * otherwise, and store_ping() waits at most PING_TIMEOUT_MS for its
 * answer, then drops the connection: a server that stopped answering
 * cannot hold the caller for ever, and the next ping connects afresh, so
 * a health check sees a server come back.
 *
 * Clocks: the caller's epoch milliseconds, but for processed.at (epoch
 * seconds) and outbox.aside_ms, stamped with the server's clock.
 *
 * Errors: SQLSTATEs become gb_error codes in err_of(): unique violation
 * GB_EEXISTS, foreign key GB_ENOTFOUND, NOT NULL and CHECK GB_EARGS,
 * deadlock and serialization failure GB_ECONFLICT, out of memory
 * GB_ENOMEM, everything else (a server gone, a bad URL) GB_ESTORE.
 */
#include "store/backend.h"
#include "store/schema.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Held by whoever migrates the schema: "gamebot" in ASCII. */
#define MIGRATE_LOCK "7453010373645350004"
#define MAX_PARAMS 12
#define CONNECT_TIMEOUT_S "10"  /* libpq's connect_timeout, unless the URL sets one */
#define PING_TIMEOUT_MS 5000


#define OUT_COLS_OF(t) t ".id, " t ".platform, " t ".chat, " t ".payload, " t ".attempts, " \
	t ".due_ms, " t ".table_id, " t ".merge_key, " t ".lease_until_ms, " t ".prio"

/* Texts that serve a statement and its _ALL twin: a NULL parameter means "any". */
#define TABLES_COUNT_SQL "SELECT count(*) FROM tables WHERE ($1::bigint = 0 OR chat_id = $1)" \
	" AND created_ms >= $2 AND ($3::int = 0 OR status < 2) AND ($4::int = 0 OR watch = 1)"
#define OUT_DELAY_SQL "UPDATE outbox SET due_ms = $3 WHERE platform = $1" \
	" AND ($2::text IS NULL OR chat = $2) AND aside_ms IS NULL AND due_ms < $3"
#define TIMER_CLEAR_SQL "DELETE FROM timers WHERE table_id = $1 AND ($2::text IS NULL OR kind = $2)"

/*
 * Parameters are typed where PostgreSQL cannot infer them (a select list,
 * a comparison with a literal); a text parameter left NULL means "any".
 */
static const char *const sql_text[SQL_COUNT] = {
	/* in a transaction: what is read stays so until it ends */
	[SQL_CHAT_BY_ID_LOCK] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = $1"
		" FOR UPDATE",
	/* $1 chat (0 every chat), $3 open only, $4 watch only (0 or 1). */
	[SQL_TABLES_COUNT] = TABLES_COUNT_SQL,
	[SQL_TABLES_COUNT_ALL] = TABLES_COUNT_SQL,
	/* no row inserted: a taken seq, or no such table (store_move_append() tells which) */
	[SQL_MOVE_ADD] = "INSERT INTO moves (table_id, seq, actor, action, events)"
		" SELECT $1::bigint, $2::int, $3::text, $4::text, $5::text"
		" WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1) ON CONFLICT DO NOTHING",
	/*
	 * The chat's advisory lock (until the transaction ends) comes before
	 * the new row's id, so a chat's ids follow commit order; with a key
	 * ($6 not ''), the earlier rows it replaces go in the same statement:
	 * pending and not leased past $4, the new row's due time. The new row
	 * takes the due time of the oldest of them and the queue place of the
	 * oldest row of its key (claimed or not), and never goes before the
	 * chat's rows that wait (a retry-after): the statement's subqueries
	 * see the rows as they were before its delete.
	 */
	[SQL_OUT_ADD] = "WITH chat_lock AS (SELECT pg_advisory_xact_lock(hashtext($1::text || ':' || $2::text))),"
		" replaced AS (DELETE FROM outbox WHERE $6::text <> '' AND platform = $1 AND chat = $2"
		" AND merge_key = $6 AND aside_ms IS NULL"
		" AND (lease_until_ms = 0 OR lease_until_ms <= $4::bigint)"
		" AND EXISTS (SELECT 1 FROM chat_lock))"
		" INSERT INTO outbox (platform, chat, payload, due_ms, table_id, merge_key, prio, place)"
		" SELECT $1, $2, $3, GREATEST(LEAST($4::bigint, (SELECT min(due_ms) FROM outbox"
		" WHERE $6::text <> '' AND platform = $1 AND chat = $2 AND merge_key = $6"
		" AND aside_ms IS NULL AND (lease_until_ms = 0 OR lease_until_ms <= $4::bigint))),"
		" (SELECT max(due_ms) FROM outbox WHERE platform = $1 AND chat = $2"
		" AND aside_ms IS NULL)), $5, $6, $7::int, (SELECT min(coalesce(place, id))"
		" FROM outbox WHERE $6::text <> '' AND platform = $1 AND chat = $2 AND merge_key = $6"
		" AND aside_ms IS NULL) FROM chat_lock",
	/*
	 * Each chat's head (its pending row of the highest class, the first
	 * of them in queue order: a turn-critical row's place, then its id),
	 * if due at $2, not under a live lease, and no other row of
	 * its chat is; locked SKIP LOCKED (a row another worker is claiming is
	 * its), its conditions checked again on the row as locked; leased
	 * until $3. Found by walking the queue order (outbox_queue) from its
	 * front and stopping once the batch is locked: each row walked is a
	 * head if no row of its chat comes before it (one probe of
	 * outbox_chat), instead of every chat's head found first.
	 */
	[SQL_OUT_CLAIM] = "WITH pick AS (SELECT o.id FROM outbox AS o WHERE o.platform = $1"
		" AND o.aside_ms IS NULL AND o.due_ms <= $2 AND o.lease_until_ms <= $2"
		" AND NOT EXISTS (SELECT 1 FROM outbox AS p WHERE p.platform = $1 AND p.chat = o.chat"
		" AND p.aside_ms IS NULL AND (p.prio > o.prio OR (p.prio = o.prio"
		" AND (CASE WHEN p.prio > 0 THEN coalesce(p.place, p.id) ELSE p.id END, p.id)"
		" < (CASE WHEN o.prio > 0 THEN coalesce(o.place, o.id) ELSE o.id END, o.id))"
		" OR p.lease_until_ms > $2))"
		" ORDER BY coalesce(o.place, o.id) LIMIT $4 FOR UPDATE OF o SKIP LOCKED)"
		" UPDATE outbox SET lease_until_ms = $3 FROM pick WHERE outbox.id = pick.id"
		" RETURNING " OUT_COLS_OF("outbox"),
	/* in a transaction: no worker claims them (SKIP LOCKED) until it ends */
	[SQL_OUT_CHAT_LOCK] = "SELECT " STORE_OUT_COLS " FROM outbox WHERE id IN (SELECT id FROM outbox"
		" WHERE platform = $1 AND chat = $2 AND aside_ms IS NULL ORDER BY id DESC LIMIT $3)"
		" ORDER BY id FOR UPDATE",
	/* set aside within the last $2 ms by the server's clock, of platform $1 (NULL: every one) */
	[SQL_OUT_REQUEUE] = "UPDATE outbox SET aside_ms = NULL, aside_why = NULL, attempts = 0,"
		" lease_until_ms = 0, due_ms = $3 WHERE aside_ms IS NOT NULL AND ($1::text IS NULL OR platform = $1)"
		" AND aside_ms >= (extract(epoch FROM clock_timestamp()) * 1000)::bigint - $2",
	/* Stamped with the server's clock in epoch milliseconds. */
	[SQL_OUT_ASIDE] = "UPDATE outbox SET lease_until_ms = 0, aside_why = $2,"
		" aside_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
		" WHERE id = $1 AND aside_ms IS NULL",
	/* $2 NULL: every chat of the platform. */
	[SQL_OUT_DELAY] = OUT_DELAY_SQL,
	[SQL_OUT_DELAY_ALL] = OUT_DELAY_SQL,
	/* $1 NULL: every platform. */
	/* no row: no such table (GB_ENOTFOUND) */
	[SQL_TIMER_SET] = "INSERT INTO timers (table_id, kind, due_ms, version)"
		" SELECT $1::bigint, $2::text, $3::bigint, $4::bigint"
		" WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
		" ON CONFLICT (table_id, kind) DO UPDATE"
		" SET due_ms = excluded.due_ms, version = excluded.version, attempts = 0",
	/* $2 NULL: every kind. */
	[SQL_TIMER_CLEAR] = TIMER_CLEAR_SQL,
	[SQL_TIMER_CLEAR_ALL] = TIMER_CLEAR_SQL,
	[SQL_STAT_ADD] = "INSERT INTO stats (chat_id, user_id, game, name, games, wins, points)"
		" VALUES ($1, $2, $3, $4, 1, $5, $6) ON CONFLICT (chat_id, user_id, game)"
		" DO UPDATE SET name = excluded.name, games = stats.games + 1,"
		" wins = stats.wins + excluded.wins, points = stats.points + excluded.points",
	/* The seed is fixed by the first write; later writes set the stake.
	 * No row: no such table (GB_ENOTFOUND). */
	[SQL_TERMS_SET] = "INSERT INTO table_terms (table_id, seed, stake)"
		" SELECT $1::bigint, $2::text, $3::bigint WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
		" ON CONFLICT (table_id) DO UPDATE SET stake = excluded.stake",
	/* Both rows of a movement in one statement: $2 gives $6 coins to $4.
	 * No rows: no such chat (GB_ENOTFOUND). */
	[SQL_COINS_MOVE] = "WITH m AS (SELECT nextval('ledger_movements') AS n"
		" WHERE EXISTS (SELECT 1 FROM chats WHERE id = $1))"
		" INSERT INTO ledger (id, chat_id, movement, account, name, amount, table_id, reason, at_ms)"
		" SELECT 2 * n, $1::bigint, n, $2::text, $3::text, -$6::bigint, $7::bigint, $8::text, $9::bigint FROM m"
		" UNION ALL SELECT 2 * n + 1, $1, n, $4::text, $5::text, $6, $7, $8, $9 FROM m",
	/*
	 * at most $2 of the processed ids stamped before $1 (epoch seconds),
	 * oldest first, by their row addresses (a row-value IN would be joined
	 * against the whole table)
	 */
	[SQL_PROCESSED_PRUNE_SOME] = "DELETE FROM processed WHERE ctid = ANY (ARRAY(SELECT ctid"
		" FROM processed WHERE at < $1 ORDER BY at LIMIT $2))",
};

/*
 * One use of a prepared statement: its parameters as text (pointers to
 * the caller's strings, or to num[] and text[] here), then its result,
 * read a row at a time by step() as SQLite reads one.
 */
struct store_stmt {
	struct store_backend *s;
	enum store_sql id;
	int n;                         /* parameters bound: $1..$n */
	int params;                    /* the statement's: those not bound are NULL */
	const char *v[MAX_PARAMS];     /* their text; NULL is SQL NULL */
	char num[MAX_PARAMS][24];      /* integers, printed */
	char text[MAX_PARAMS][STORE_NAME_LEN]; /* texts cut short (names) */
	PGresult *res;                 /* owned; NULL until run */
	int row;                       /* the row step() is on */
};

struct store_backend {
	PGconn *conn;                  /* owned; closed by pg_free() */
	struct store_stmt st[SQL_COUNT]; /* one per statement, reset after every use */
	int in_tx;                     /* inside store_begin() ... commit or rollback */
	int changes;                   /* rows the last write changed */
};

static void pg_free(struct store_backend *s);
static void pg_rollback(struct store_backend *s);

/* ---- statements, parameters, results ---- */

/* The gb_error code of a failed result (NULL: out of memory or no connection). */
static int err_of(const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (!res)
		return GB_ESTORE;
	if (!state)
		return GB_ESTORE;
	if (!strcmp(state, "23505"))
		return GB_EEXISTS;
	if (!strcmp(state, "23503"))
		return GB_ENOTFOUND;
	if (!strcmp(state, "23502") || !strcmp(state, "23514"))
		return GB_EARGS;
	if (!strcmp(state, "40001") || !strcmp(state, "40P01"))
		return GB_ECONFLICT;
	if (!strcmp(state, "53200"))
		return GB_ENOMEM;
	return GB_ESTORE;
}

/*
 * Keep what the server (or the connection) said about a failure for
 * store_last_error(): its first line and SQLSTATE. It clears by itself
 * when the connection failed or the server ran short or is shutting down
 * (classes 08, 53, 57) or a lock was not to be had (55P03).
 */
static void note_failure(struct store_backend *s, const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *said = res ? PQresultErrorMessage(res) : NULL;
	char text[200];
	size_t n;

	if (!said || !said[0])
		said = s && s->conn ? PQerrorMessage(s->conn) : "";
	snprintf(text, sizeof(text), "%s", said[0] ? said : "no connection to the server");
	n = strcspn(text, "\n");
	while (n && text[n - 1] == ' ')
		n--;
	text[n] = '\0';
	if (state)
		snprintf(text + n, sizeof(text) - n, " (PostgreSQL %s)", state);
	store_note_error(text, !state || !strncmp(state, "08", 2) || !strncmp(state, "53", 2) ||
				       !strncmp(state, "57", 2) || !strcmp(state, "55P03"));
}

/* Is the result one of success? */
static int res_ok(const PGresult *res)
{
	ExecStatusType st = PQresultStatus(res);

	return res && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK);
}

/* Run constant SQL text (no parameters, no rows wanted). */
static int run_text(struct store_backend *s, const char *sql)
{
	PGresult *res = PQexec(s->conn, sql);
	int rc = res_ok(res) ? GB_OK : err_of(res);

	if (rc == GB_ESTORE || rc == GB_ENOMEM)
		note_failure(s, res);
	PQclear(res);
	return rc;
}

/* The name of statement id on the server. */
static void stmt_name(enum store_sql id, char name[16])
{
	snprintf(name, 16, "g%d", (int)id);
}

/*
 * The text of statement id: this backend's own, else the one every
 * database runs with each ?n written $n, PostgreSQL's way. malloc'd (the
 * caller frees it); NULL without memory.
 */
static char *sql_of(enum store_sql id)
{
	char *sql = strdup(sql_text[id] ? sql_text[id] : store_sql_common[id]);
	int quoted = 0;

	for (char *p = sql; p && *p; p++) {
		if (*p == '\'')
			quoted = !quoted;
		else if (!quoted && *p == '?' && p[1] >= '0' && p[1] <= '9')
			*p = '$';
	}
	return sql;
}

/* The highest $n of sql: the parameters the statement takes. */
static int params_of(const char *sql)
{
	int most = 0;

	for (const char *p = strchr(sql, '$'); p; p = strchr(p + 1, '$')) {
		int n = 0;

		for (const char *d = p + 1; *d >= '0' && *d <= '9'; d++)
			n = n * 10 + (*d - '0');
		most = n > most ? n : most;
	}
	return most;
}

/* Prepare every statement on the connection, and note the parameters each takes. */
static int prepare_all(struct store_backend *s)
{
	int rc = GB_OK;

	for (int i = 0; !rc && i < SQL_COUNT; i++) {
		char *sql = sql_of((enum store_sql)i);
		char name[16];
		PGresult *res;

		if (!sql)
			return GB_ENOMEM;
		stmt_name((enum store_sql)i, name);
		s->st[i].params = params_of(sql);
		res = PQprepare(s->conn, name, sql, 0, NULL);
		if (!res_ok(res))
			rc = err_of(res);
		PQclear(res);
		free(sql);
	}
	return rc;
}

/*
 * Statement id, ready for binding. It must go back through stmt_done()
 * before the calling function returns.
 */
static int pg_stmt(struct store_backend *s, enum store_sql id, struct store_stmt **st)
{
	*st = &s->st[id];
	(*st)->s = s;
	(*st)->id = id;
	return GB_OK;
}

/* Clear st's result and parameters; NULL is a no-op. */
static void stmt_done(struct store_stmt *st)
{
	if (!st)
		return;
	PQclear(st->res);
	st->res = NULL;
	st->n = 0;
	st->row = -1;
	memset(st->v, 0, sizeof st->v);
}

static int bind_at(struct store_stmt *st, int i, const char *text)
{
	if (i < 1 || i > MAX_PARAMS)
		return GB_EARGS;
	st->v[i - 1] = text;
	if (i > st->n)
		st->n = i;
	return GB_OK;
}

static int bind_i64(struct store_stmt *st, int i, int64_t v)
{
	if (i < 1 || i > MAX_PARAMS)
		return GB_EARGS;
	snprintf(st->num[i - 1], sizeof st->num[i - 1], "%lld", (long long)v);
	return bind_at(st, i, st->num[i - 1]);
}

/* Bind len bytes of text: the caller's string where it ends there, else a copy. */
static int pg_bind_text(struct store_stmt *st, int i, const char *text, size_t len)
{
	if (!text || text[len] == '\0')
		return bind_at(st, i, text);
	if (i < 1 || i > MAX_PARAMS || len >= sizeof st->text[i - 1])
		return GB_EARGS;
	memcpy(st->text[i - 1], text, len);
	st->text[i - 1][len] = '\0';
	return bind_at(st, i, st->text[i - 1]);
}

/* Connect a broken connection again, its statements prepared anew. */
static int reconnect(struct store_backend *s)
{
	PQreset(s->conn);
	if (PQstatus(s->conn) != CONNECTION_OK) {
		note_failure(s, NULL);
		return GB_ESTORE;
	}
	return prepare_all(s);
}

/* Run st with its parameters; s->changes = the rows a write changed. */
static int exec_st(struct store_stmt *st)
{
	struct store_backend *s = st->s;
	char name[16];
	int rc = GB_OK;

	s->changes = 0;
	if (PQstatus(s->conn) != CONNECTION_OK) {
		/* inside a transaction its work is gone with the connection */
		if (s->in_tx)
			note_failure(s, NULL);
		rc = s->in_tx ? GB_ESTORE : reconnect(s);
		if (rc)
			goto out;
	}
	stmt_name(st->id, name);
	if (st->n < st->params)
		st->n = st->params;
	st->res = PQexecPrepared(s->conn, name, st->n, st->v, NULL, NULL, 0);
	if (!res_ok(st->res) && PQstatus(s->conn) != CONNECTION_OK && !s->in_tx) {
		/* the connection was gone before this statement: run it again on a new one */
		PQclear(st->res);
		st->res = NULL;
		rc = reconnect(s);
		if (rc)
			goto out;
		st->res = PQexecPrepared(s->conn, name, st->n, st->v, NULL, NULL, 0);
	}
	if (!res_ok(st->res)) {
		rc = err_of(st->res);
		if (rc == GB_ESTORE || rc == GB_ENOMEM)
			note_failure(s, st->res);
		goto out;
	}
	s->changes = (int)strtol(PQcmdTuples(st->res), NULL, 10);
	st->row = -1;
out:
	return rc;
}

/* Step st once: GB_OK and *row 1 for a row, 0 when done; or the error. Runs it first. */
static int step(struct store_stmt *st, int *row)
{
	int rc = GB_OK;

	*row = 0;
	if (!st->res) {
		rc = exec_st(st);
		if (rc)
			goto out;
	}
	if (st->row < PQntuples(st->res))
		st->row++;
	*row = st->row < PQntuples(st->res);
out:
	return rc;
}

static int col_null(const struct store_stmt *st, int col)
{
	return PQgetisnull(st->res, st->row, col);
}

/* Column col of the row stepped to; NULL reads 0. */
static int64_t col_i64(struct store_stmt *st, int col)
{
	return col_null(st, col) ? 0 : strtoll(PQgetvalue(st->res, st->row, col), NULL, 10);
}

/*
 * A call of several statements is atomic whether or not the caller has a
 * transaction open: a savepoint inside one, a transaction of its own
 * outside. *outer says which.
 */
static int sp_begin(struct store_backend *s, int *outer)
{
	int rc;

	*outer = !s->in_tx;
	rc = run_text(s, *outer ? "BEGIN" : "SAVEPOINT store_step");
	if (!rc && *outer)
		s->in_tx = 1;
	return rc;
}

/* End the savepoint: keep its work when rc is GB_OK, else undo it. Returns rc or a commit error. */
static int sp_end(struct store_backend *s, int outer, int rc)
{
	if (outer) {
		int crc = rc ? GB_OK : run_text(s, "COMMIT");

		if (rc || crc) {
			run_text(s, "ROLLBACK");
			if (!rc)
				rc = crc;
		}
		s->in_tx = 0;
		return rc;
	}
	if (rc)
		run_text(s, "ROLLBACK TO SAVEPOINT store_step");
	if (run_text(s, "RELEASE SAVEPOINT store_step") != GB_OK && !rc)
		rc = GB_ESTORE;
	return rc;
}

/* ---- statements, as the operations use them ---- */

static int pg_col_text(struct store_stmt *st, int col, const char **text, size_t *len)
{
	*text = col_null(st, col) ? NULL : PQgetvalue(st->res, st->row, col);
	*len = *text ? (size_t)PQgetlength(st->res, st->row, col) : 0;
	return GB_OK;
}

static int pg_changes(struct store_backend *s)
{
	return s->changes;
}

static int pg_in_transaction(struct store_backend *s)
{
	return s->in_tx;
}

/*
 * The plan of statement id as EXPLAIN gives it, its parameters bound to
 * args (those past them NULL): PostgreSQL plans for the values it is given.
 */
static int pg_explain(struct store_backend *s, enum store_sql id, const char *const *args,
		      void (*line)(void *arg, const char *text), void *arg)
{
	const char *v[MAX_PARAMS] = { 0 };
	char *sql = sql_of(id), *text;
	size_t len = sql ? strlen(sql) + 9 : 0;
	int rc = GB_OK;
	PGresult *res;

	text = sql ? malloc(len) : NULL;
	if (!text) {
		free(sql);
		return GB_ENOMEM;
	}
	/* constant text: EXPLAIN before one of the statements' */
	snprintf(text, len, "EXPLAIN %s", sql);
	for (int i = 0; i < MAX_PARAMS && args && args[i]; i++)
		v[i] = args[i];
	res = PQexecParams(s->conn, text, params_of(sql), NULL, v, NULL, NULL, 0);
	free(text);
	free(sql);
	if (!res_ok(res))
		rc = err_of(res);
	for (int r = 0; !rc && r < PQntuples(res); r++)
		line(arg, PQgetvalue(res, r, 0));
	PQclear(res);
	return rc;
}

/* ---- open, close, transactions ---- */

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* *version = the schema version (0 for a database without gamebot's tables). */
static int user_version(struct store_backend *s, int *version)
{
	/* read from pg_class (not a name lookup, which may answer from a stale cache) */
	PGresult *res = PQexec(s->conn, "SELECT count(*) FROM pg_catalog.pg_class AS c"
			       " JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace"
			       " WHERE c.relname = 'gamebot_schema' AND n.nspname = current_schema()");
	int rc = GB_OK;

	*version = 0;
	if (!res_ok(res) || PQntuples(res) != 1) {
		rc = err_of(res);
		goto out;
	}
	if (strcmp(PQgetvalue(res, 0, 0), "0") == 0)
		goto out;
	PQclear(res);
	res = PQexec(s->conn, "SELECT version FROM gamebot_schema");
	if (!res_ok(res) || PQntuples(res) != 1) {
		rc = res_ok(res) ? GB_ESTORE : err_of(res);
		goto out;
	}
	*version = (int)strtol(PQgetvalue(res, 0, 0), NULL, 10);
out:
	PQclear(res);
	return rc;
}

/* Bring the schema to its latest version; an up-to-date database is only read. */
static int migrate(struct store_backend *s)
{
	int version = 0;
	int locked = 0;
	int in_tx = 0;
	int rc = user_version(s, &version);

	if (rc || version == store_pg_schema_version)
		goto out;
	/* the lock before the transaction, so that it begins seeing what the last holder committed */
	rc = run_text(s, "SELECT pg_advisory_lock(" MIGRATE_LOCK ")");
	if (rc)
		goto out;
	locked = 1;
	rc = run_text(s, "BEGIN");
	if (rc)
		goto out;
	in_tx = 1;
	rc = store_migrate(s, store_pg_migrations, store_pg_schema_version, user_version, run_text);
	if (rc)
		goto out;
	rc = run_text(s, "COMMIT");
	if (rc)
		goto out;
	in_tx = 0;
out:
	if (in_tx)
		run_text(s, "ROLLBACK");
	if (locked)
		run_text(s, "SELECT pg_advisory_unlock(" MIGRATE_LOCK ")");
	return rc;
}

static int pg_open(struct store_backend **handle, const char *url)
{
	struct store_backend *s = NULL;
	int rc = GB_OK;

	if (!handle || !url || !url[0]) {
		rc = GB_EARGS;
		goto out;
	}
	*handle = NULL;
	s = calloc(1, sizeof *s);
	if (!s) {
		rc = GB_ENOMEM;
		goto out;
	}
	for (int i = 0; i < SQL_COUNT; i++)
		stmt_done(&s->st[i]);
	{
		/* the URL is expanded in place of dbname: what it says wins over our default */
		const char *const keys[] = { "connect_timeout", "dbname", NULL };
		const char *const vals[] = { CONNECT_TIMEOUT_S, url, NULL };

		s->conn = PQconnectdbParams(keys, vals, 1);
	}
	if (!s->conn) {
		rc = GB_ENOMEM;
		goto out;
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		note_failure(s, NULL);
		rc = GB_ESTORE;
		goto out;
	}
	/* notices ("relation exists, skipping") are not for stderr */
	PQsetNoticeProcessor(s->conn, quiet, NULL);
	rc = run_text(s, "SET client_min_messages = warning");
	if (!rc)
		rc = migrate(s);
	if (!rc)
		rc = prepare_all(s);
	if (rc)
		goto out;
	*handle = s;
	s = NULL;
out:
	pg_free(s);
	return rc;
}

static void pg_free(struct store_backend *s)
{
	if (!s)
		return;
	for (int i = 0; i < SQL_COUNT; i++)
		stmt_done(&s->st[i]);
	/* the server rolls back a transaction left open */
	PQfinish(s->conn);
	free(s);
}

/* The server copies its own log (its checkpointer): nothing to do, nothing waiting. */
static int pg_checkpoint(struct store_backend *s, int *log_pages, int *copied)
{
	if (log_pages)
		*log_pages = 0;
	if (copied)
		*copied = 0;
	(void)s;
	return GB_OK;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * One round trip, waiting at most PING_TIMEOUT_MS. A server that does not
 * answer in time has its connection shut down: libpq then finds it
 * broken, and the next statement (or ping) connects again.
 */
static int ping_once(struct store_backend *s)
{
	int64_t until = mono_ms() + PING_TIMEOUT_MS;
	PGresult *res;
	int rc = GB_OK, busy = 1;

	if (!PQsendQuery(s->conn, "SELECT 1"))
		return GB_ESTORE;
	while (busy && rc == GB_OK) {
		struct pollfd p = { .fd = PQsocket(s->conn), .events = POLLIN };
		int64_t left = until - mono_ms();

		if (left <= 0 || p.fd < 0) {
			shutdown(p.fd, SHUT_RDWR);
			rc = GB_ESTORE;
		} else if (poll(&p, 1, (int)left) > 0 && !PQconsumeInput(s->conn)) {
			rc = GB_ESTORE;
		} else {
			busy = PQisBusy(s->conn);
		}
	}
	/* collect what came (or the error of a connection shut down) so the connection is idle again */
	while ((res = PQgetResult(s->conn)) != NULL) {
		if (rc == GB_OK && !res_ok(res))
			rc = err_of(res);
		PQclear(res);
	}
	return rc;
}

static int pg_ping(struct store_backend *s)
{
	int rc;

	if (s->in_tx)
		return GB_ESTORE;
	rc = PQstatus(s->conn) == CONNECTION_OK ? ping_once(s) : GB_ESTORE;
	if (rc && PQstatus(s->conn) != CONNECTION_OK) {
		/* a server restarted (or one that stopped answering) since: a new connection */
		rc = reconnect(s);
		if (!rc)
			rc = ping_once(s);
	}
	return rc;
}

/* The version, or -1 when the database cannot be read. */
static int pg_schema_version(struct store_backend *s)
{
	int version = -1;

	return user_version(s, &version) ? -1 : version;
}

static int pg_begin(struct store_backend *s)
{
	int rc;

	if (s->in_tx)
		return GB_ESTORE; /* transactions do not nest */
	if (PQstatus(s->conn) != CONNECTION_OK) {
		rc = reconnect(s);
		if (rc)
			return rc;
	}
	rc = run_text(s, "BEGIN");
	if (!rc)
		s->in_tx = 1;
	return rc;
}

/*
 * A transaction a failed statement aborted cannot commit (PostgreSQL
 * would answer COMMIT with a rollback): it is rolled back and the answer
 * is GB_ESTORE.
 */
static int pg_commit(struct store_backend *s)
{
	int rc;

	if (!s->in_tx || PQtransactionStatus(s->conn) != PQTRANS_INTRANS) {
		pg_rollback(s);
		return GB_ESTORE;
	}
	rc = run_text(s, "COMMIT");
	if (rc)
		pg_rollback(s);
	s->in_tx = 0;
	return rc;
}

static void pg_rollback(struct store_backend *s)
{
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE && PQstatus(s->conn) == CONNECTION_OK)
		run_text(s, "ROLLBACK");
	s->in_tx = 0;
}

/* A savepoint; only inside a transaction. */
static int pg_unit_begin(struct store_backend *s)
{
	if (!s->in_tx)
		return GB_EARGS;
	return run_text(s, "SAVEPOINT store_unit");
}

/*
 * Undoing the unit also clears a failed statement's abort of the
 * transaction (PostgreSQL's way), so the units after it go on. A unit said
 * ok whose statements failed cannot be kept: it is undone and the answer
 * is GB_ESTORE, as when the transaction itself is lost.
 */
static int pg_unit_end(struct store_backend *s, int ok)
{
	int failed;
	int rc = GB_OK;

	if (!s->in_tx || PQstatus(s->conn) != CONNECTION_OK)
		return GB_ESTORE;
	failed = PQtransactionStatus(s->conn) == PQTRANS_INERROR;
	if (!ok || failed)
		rc = run_text(s, "ROLLBACK TO SAVEPOINT store_unit");
	if (!rc)
		rc = run_text(s, "RELEASE SAVEPOINT store_unit");
	if (rc || (ok && failed))
		rc = GB_ESTORE;
	return rc;
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.stmt = pg_stmt,
	.stmt_done = stmt_done,
	.bind_i64 = bind_i64,
	.bind_text = pg_bind_text,
	.step = step,
	.col_i64 = col_i64,
	.col_text = pg_col_text,
	.changes = pg_changes,
	.in_transaction = pg_in_transaction,
	.sp_begin = sp_begin,
	.sp_end = sp_end,
	.explain = pg_explain,
	.open = pg_open,
	.close = pg_free,
	.checkpoint = pg_checkpoint,
	.ping = pg_ping,
	.schema_version = pg_schema_version,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.unit_begin = pg_unit_begin,
	.unit_end = pg_unit_end,
};
