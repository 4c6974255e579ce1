/*
 * pg.c - the PostgreSQL backend of store.h (store_pg_ops), written with
 * libpq.
 *
 * For several gamebot instances sharing one database: store_open() comes
 * here for a postgres:// or postgresql:// URL (libpq's connection URI, so
 * host, port, user, password, sslmode and options all go in it). Each pg_
 * function is the store_ function of the same name (store.c dispatches)
 * and keeps the contract store.h states; the function bodies follow
 * sqlite.c's one for one, so the two backends read alike.
 *
 * One struct store_backend is one connection plus its prepared
 * statements. Every SQL text is a constant in sql_text[], indexed by enum
 * stmt, prepared once at open (so a typo fails at start-up) under the name
 * "g<index>". Parameters go as text, out of band ($1, $2, ...); no SQL is
 * ever built from data. A handle belongs to one thread at a time.
 *
 * Schema: the version is the one row of gamebot_schema. migrations[] is
 * the ordered list of schema changes, one for one with sqlite.c's (a
 * version number means the same schema on both). store_open() applies the
 * missing ones in one transaction begun holding an advisory lock
 * (MIGRATE_LOCK; held by the connection, gone with it if it dies), re-reading the
 * version under it, so instances that
 * start together migrate once and the others wait, then find the schema
 * current. An up-to-date database is only read; one from a newer gamebot
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
 * Strings, names and out rows are handled as in sqlite.c.
 */
#include "store/backend.h"
#include "games/utf8.h"

#include <errno.h>
#include <libpq-fe.h>
#include <limits.h>
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

/*
 * The schema, one migration per element, applied in order, each ending by
 * setting its own version. Never edit a migration that has shipped: append
 * a new one, the same change as sqlite.c's of the same number. Integers
 * are BIGINT where SQLite's INTEGER holds 64 bits (ids, times, seeds).
 */
static const char *const migrations[] = {
	/* 1: everything */
	"CREATE TABLE gamebot_schema (version INTEGER NOT NULL);"
	"INSERT INTO gamebot_schema (version) VALUES (0);"
	"CREATE TABLE chats ("
	"  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	"  platform TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  lang TEXT NOT NULL DEFAULT 'en',"
	"  settings TEXT NOT NULL DEFAULT '{}',"
	"  UNIQUE (platform, chat)"
	");"
	"CREATE TABLE tables ("
	"  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	"  chat_id BIGINT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,"
	"  game TEXT NOT NULL,"
	"  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),"
	"  version BIGINT NOT NULL DEFAULT 1,"
	"  seed BIGINT NOT NULL DEFAULT 0,"
	"  creator TEXT NOT NULL DEFAULT '',"
	"  message TEXT NOT NULL DEFAULT '',"
	"  turn_started_ms BIGINT NOT NULL DEFAULT 0,"
	"  rules TEXT NOT NULL DEFAULT '{}',"
	"  state TEXT"
	");"
	"CREATE INDEX tables_chat ON tables(chat_id);"
	/* At most one open table per chat, even with two instances racing. */
	"CREATE UNIQUE INDEX tables_open ON tables(chat_id) WHERE status < 2;"
	"CREATE TABLE seats ("
	"  table_id BIGINT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL CHECK (seat >= 0),"
	"  user_id TEXT NOT NULL DEFAULT '',"
	"  name TEXT NOT NULL DEFAULT '',"
	"  level INTEGER NOT NULL DEFAULT -1,"
	"  PRIMARY KEY (table_id, seat)"
	");"
	"CREATE TABLE moves ("
	"  table_id BIGINT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL CHECK (seq > 0),"
	"  actor TEXT NOT NULL,"
	"  action TEXT NOT NULL,"
	"  events TEXT NOT NULL DEFAULT '[]',"
	"  PRIMARY KEY (table_id, seq)"
	");"
	/* The log is append only: a game replays from its seed and moves. */
	"CREATE FUNCTION gamebot_append_only() RETURNS trigger LANGUAGE plpgsql AS"
	"  $$BEGIN RAISE EXCEPTION '% is append only', TG_TABLE_NAME; END$$;"
	"CREATE TRIGGER moves_append_only BEFORE UPDATE ON moves"
	"  FOR EACH ROW EXECUTE FUNCTION gamebot_append_only();"
	"CREATE TABLE processed ("
	"  platform TEXT NOT NULL,"
	"  update_id TEXT NOT NULL,"
	"  at BIGINT NOT NULL DEFAULT extract(epoch FROM now())::bigint,"
	"  PRIMARY KEY (platform, update_id)"
	");"
	"CREATE TABLE outbox ("
	"  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	"  platform TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  payload TEXT NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  due_ms BIGINT NOT NULL"
	");"
	"CREATE INDEX outbox_due ON outbox(platform, due_ms, id);"
	"CREATE TABLE timers ("
	"  table_id BIGINT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  due_ms BIGINT NOT NULL,"
	"  version BIGINT NOT NULL,"
	"  PRIMARY KEY (table_id, kind)"
	");"
	"CREATE INDEX timers_due ON timers(due_ms, table_id, kind);"
	"CREATE TABLE stats ("
	"  chat_id BIGINT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,"
	"  user_id TEXT NOT NULL,"
	"  game TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  games BIGINT NOT NULL DEFAULT 0,"
	"  wins BIGINT NOT NULL DEFAULT 0,"
	"  points BIGINT NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (chat_id, user_id, game)"
	");"
	"UPDATE gamebot_schema SET version = 1;",

	/* 2: the delivery contract (table, coalescing key, leases, setting
	 * aside), pruning processed ids, table facts, timer attempts, meta */
	"ALTER TABLE outbox ADD COLUMN table_id BIGINT NOT NULL DEFAULT 0;"
	"ALTER TABLE outbox ADD COLUMN merge_key TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE outbox ADD COLUMN lease_until_ms BIGINT NOT NULL DEFAULT 0;"
	"ALTER TABLE outbox ADD COLUMN aside_ms BIGINT;"
	"ALTER TABLE outbox ADD COLUMN aside_why TEXT;"
	"DROP INDEX outbox_due;"
	"CREATE INDEX outbox_due ON outbox(platform, due_ms, id) WHERE aside_ms IS NULL;"
	"CREATE INDEX outbox_chat ON outbox(platform, chat, id) WHERE aside_ms IS NULL;"
	"CREATE INDEX processed_at ON processed(at);"
	"ALTER TABLE tables ADD COLUMN watch INTEGER NOT NULL DEFAULT 0 CHECK (watch IN (0, 1));"
	"ALTER TABLE tables ADD COLUMN created_ms BIGINT NOT NULL DEFAULT 0;"
	"CREATE INDEX tables_created ON tables(created_ms);"
	"ALTER TABLE timers ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE meta ("
	"  name TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL"
	");"
	"UPDATE gamebot_schema SET version = 2;",

	/* 3: coins (a double-entry ledger per chat), a table's sealed seed and
	 * its stake per seat. A movement's two rows get the ids 2n and 2n + 1
	 * of its number n (a sequence), so they are adjacent whatever other
	 * transactions write at the same time. */
	"CREATE SEQUENCE ledger_movements;"
	"CREATE TABLE ledger ("
	"  id BIGINT PRIMARY KEY,"
	"  chat_id BIGINT NOT NULL REFERENCES chats(id),"
	"  movement BIGINT NOT NULL,"
	"  account TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  amount BIGINT NOT NULL CHECK (amount <> 0),"
	"  table_id BIGINT NOT NULL DEFAULT 0,"
	"  reason TEXT NOT NULL,"
	"  at_ms BIGINT NOT NULL"
	");"
	"CREATE INDEX ledger_account ON ledger(chat_id, account);"
	"CREATE INDEX ledger_movement ON ledger(movement);"
	/* Coins are never rewritten or taken away: a correction is a new movement. */
	"CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger"
	"  FOR EACH ROW EXECUTE FUNCTION gamebot_append_only();"
	"CREATE TABLE table_terms ("
	"  table_id BIGINT PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,"
	"  seed TEXT NOT NULL,"
	"  stake BIGINT NOT NULL DEFAULT 0 CHECK (stake >= 0)"
	");"
	"UPDATE gamebot_schema SET version = 3;",

	/* 4: a row's class (enum store_out_prio): a chat's turn-critical rows
	 * go out before its informational ones */
	"ALTER TABLE outbox ADD COLUMN prio INTEGER NOT NULL DEFAULT 0;"
	/* a row's place in the queue when it replaced older ones: the oldest's (NULL: its id) */
	"ALTER TABLE outbox ADD COLUMN place BIGINT;"
	"UPDATE gamebot_schema SET version = 4;",
};

#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

enum stmt {
	ST_VERSION,
	ST_PROCESSED_ADD,
	ST_PROCESSED_HAS,
	ST_PROCESSED_PRUNE,
	ST_CHAT_FIND,
	ST_CHAT_BY_ID,
	ST_CHAT_BY_ID_LOCK,
	ST_CHAT_ADD,
	ST_CHAT_SAVE,
	ST_CHAT_DROP_EMPTY,
	ST_CHAT_MOVE,
	ST_TABLE_OPEN_GET,
	ST_TABLE_GET,
	ST_TABLE_EXISTS,
	ST_TABLE_INSERT,
	ST_TABLE_UPDATE,
	ST_TABLE_SET_MESSAGE,
	ST_TABLES_COUNT,
	ST_TABLES_OF_USER,
	ST_SEATS_GET,
	ST_SEATS_CLEAR,
	ST_SEAT_ADD,
	ST_MOVE_ADD,
	ST_MOVE_COUNT,
	ST_MOVE_LAST,
	ST_OUT_ADD,
	ST_OUT_CLAIM,
	ST_OUT_DUE,
	ST_OUT_CHAT,
	ST_OUT_CHAT_LOCK,
	ST_OUT_DONE,
	ST_OUT_RETRY,
	ST_OUT_ASIDE,
	ST_OUT_DELAY,
	ST_OUT_UNLEASE,
	ST_OUT_COUNT,
	ST_OUT_MOVE,
	ST_TIMER_SET,
	ST_TIMER_RETRY,
	ST_TIMER_CLEAR,
	ST_TIMER_DROP,
	ST_TABLES_BY_GAME,
	ST_TIMER_DUE,
	ST_TIMER_NEXT,
	ST_STAT_ADD,
	ST_STAT_NAME,
	ST_STATS_GAME,
	ST_STATS_ALL,
	ST_META_GET,
	ST_META_SET,
	ST_MOVES_GET,
	ST_TERMS_SET,
	ST_TERMS_GET,
	ST_COINS_MOVE,
	ST_COINS_BALANCE,
	ST_COINS_TOP,
	ST_AUDIT_TOTALS,
	ST_AUDIT_MOVEMENTS,
	ST_AUDIT_NEGATIVE,
	ST_AUDIT_POTS,
	ST_AUDIT_GRANTS,
	ST_COUNT
};

#define TABLE_COLS "id, chat_id, game, status, version, seed, creator, message," \
	" turn_started_ms, rules, state, watch, created_ms"
#define TIMER_COLS "table_id, kind, due_ms, version, attempts"
#define OUT_COLS "id, platform, chat, payload, attempts, due_ms, table_id, merge_key," \
	" lease_until_ms, prio"
#define OUT_COLS_OF(t) t ".id, " t ".platform, " t ".chat, " t ".payload, " t ".attempts, " \
	t ".due_ms, " t ".table_id, " t ".merge_key, " t ".lease_until_ms, " t ".prio"

/*
 * Parameters are typed where PostgreSQL cannot infer them (a select list,
 * a comparison with a literal); a text parameter left NULL means "any".
 */
static const char *const sql_text[ST_COUNT] = {
	[ST_VERSION] = "SELECT version FROM gamebot_schema",
	/* no row inserted: already processed (GB_EDUP), the transaction intact */
	[ST_PROCESSED_ADD] = "INSERT INTO processed (platform, update_id) VALUES ($1, $2)"
		" ON CONFLICT DO NOTHING",
	[ST_PROCESSED_HAS] = "SELECT 1 FROM processed WHERE platform = $1 AND update_id = $2",
	[ST_PROCESSED_PRUNE] = "DELETE FROM processed WHERE at < $1",
	[ST_CHAT_FIND] = "SELECT id, platform, chat, lang, settings FROM chats"
		" WHERE platform = $1 AND chat = $2",
	[ST_CHAT_BY_ID] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = $1",
	/* in a transaction: what is read stays so until it ends */
	[ST_CHAT_BY_ID_LOCK] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = $1"
		" FOR UPDATE",
	[ST_CHAT_ADD] = "INSERT INTO chats (platform, chat, lang, settings)"
		" VALUES ($1, $2, $3, '{}') ON CONFLICT (platform, chat) DO NOTHING",
	[ST_CHAT_SAVE] = "UPDATE chats SET lang = $1, settings = $2 WHERE id = $3",
	[ST_CHAT_DROP_EMPTY] = "DELETE FROM chats WHERE platform = $1 AND chat = $2"
		" AND settings = '{}'"
		" AND NOT EXISTS (SELECT 1 FROM tables WHERE tables.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM stats WHERE stats.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.chat_id = chats.id)",
	[ST_CHAT_MOVE] = "UPDATE chats SET chat = $3 WHERE platform = $1 AND chat = $2",
	[ST_TABLE_OPEN_GET] = "SELECT " TABLE_COLS " FROM tables"
		" WHERE chat_id = $1 AND status < 2",
	[ST_TABLE_GET] = "SELECT " TABLE_COLS " FROM tables WHERE id = $1",
	[ST_TABLE_EXISTS] = "SELECT 1 FROM tables WHERE id = $1",
	[ST_TABLE_INSERT] = "INSERT INTO tables (chat_id, game, status, version, seed,"
		" creator, message, turn_started_ms, rules, state, watch, created_ms)"
		" VALUES ($1, $2, $3, 1, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
	/* Not message: store_table_set_message() owns it. */
	[ST_TABLE_UPDATE] = "UPDATE tables SET status = $1,"
		" turn_started_ms = $2, rules = $3, state = $4, version = version + 1"
		" WHERE id = $5 AND version = $6",
	[ST_TABLE_SET_MESSAGE] = "UPDATE tables SET message = $2 WHERE id = $1",
	/* $1 chat (0 every chat), $3 open only, $4 watch only (0 or 1). */
	[ST_TABLES_COUNT] = "SELECT count(*) FROM tables WHERE ($1::bigint = 0 OR chat_id = $1)"
		" AND created_ms >= $2 AND ($3::int = 0 OR status < 2) AND ($4::int = 0 OR watch = 1)",
	[ST_TABLES_OF_USER] = "SELECT t.id FROM seats s JOIN tables t ON t.id = s.table_id"
		" JOIN chats c ON c.id = t.chat_id"
		" WHERE c.platform = $1 AND s.user_id = $2 AND s.level < 0 AND t.status < 2"
		" GROUP BY t.id ORDER BY t.id LIMIT $3",
	[ST_SEATS_GET] = "SELECT seat, user_id, name, level FROM seats"
		" WHERE table_id = $1 ORDER BY seat LIMIT $2",
	[ST_SEATS_CLEAR] = "DELETE FROM seats WHERE table_id = $1",
	[ST_SEAT_ADD] = "INSERT INTO seats (table_id, seat, user_id, name, level)"
		" VALUES ($1, $2, $3, $4, $5)",
	/* no row inserted: a taken seq, or no such table (pg_move_append tells which) */
	[ST_MOVE_ADD] = "INSERT INTO moves (table_id, seq, actor, action, events)"
		" SELECT $1::bigint, $2::int, $3::text, $4::text, $5::text"
		" WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1) ON CONFLICT DO NOTHING",
	[ST_MOVE_COUNT] = "SELECT count(*) FROM moves WHERE table_id = $1",
	/* one descent of the primary key: a NULL (no moves) reads as 0 */
	[ST_MOVE_LAST] = "SELECT max(seq) FROM moves WHERE table_id = $1",
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
	[ST_OUT_ADD] = "WITH chat_lock AS (SELECT pg_advisory_xact_lock(hashtext($1::text || ':' || $2::text))),"
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
	 * until $3.
	 */
	[ST_OUT_CLAIM] = "WITH head AS (SELECT DISTINCT ON (chat) id FROM outbox"
		" WHERE platform = $1 AND aside_ms IS NULL ORDER BY chat, prio DESC,"
		" CASE WHEN prio > 0 THEN coalesce(place, id) ELSE id END, id),"
		" pick AS (SELECT o.id FROM outbox AS o JOIN head ON head.id = o.id"
		" WHERE o.aside_ms IS NULL AND o.due_ms <= $2 AND o.lease_until_ms <= $2"
		" AND NOT EXISTS (SELECT 1 FROM outbox AS p WHERE p.platform = $1 AND p.chat = o.chat"
		" AND p.aside_ms IS NULL AND p.lease_until_ms > $2)"
		" ORDER BY coalesce(o.place, o.id) LIMIT $4 FOR UPDATE OF o SKIP LOCKED)"
		" UPDATE outbox SET lease_until_ms = $3 FROM pick WHERE outbox.id = pick.id"
		" RETURNING " OUT_COLS_OF("outbox"),
	[ST_OUT_DUE] = "SELECT " OUT_COLS " FROM outbox WHERE platform = $1"
		" AND aside_ms IS NULL AND due_ms <= $2 ORDER BY due_ms, id LIMIT $3",
	/* the chat's newest $3 pending rows, oldest of them first */
	[ST_OUT_CHAT] = "SELECT " OUT_COLS " FROM (SELECT " OUT_COLS " FROM outbox"
		" WHERE platform = $1 AND chat = $2 AND aside_ms IS NULL ORDER BY id DESC LIMIT $3)"
		" AS newest ORDER BY id",
	/* in a transaction: no worker claims them (SKIP LOCKED) until it ends */
	[ST_OUT_CHAT_LOCK] = "SELECT " OUT_COLS " FROM outbox WHERE id IN (SELECT id FROM outbox"
		" WHERE platform = $1 AND chat = $2 AND aside_ms IS NULL ORDER BY id DESC LIMIT $3)"
		" ORDER BY id FOR UPDATE",
	[ST_OUT_DONE] = "DELETE FROM outbox WHERE id = $1",
	[ST_OUT_RETRY] = "UPDATE outbox SET lease_until_ms = 0, due_ms = $2,"
		" attempts = attempts + $3::int WHERE id = $1 AND aside_ms IS NULL",
	/* Stamped with the server's clock in epoch milliseconds. */
	[ST_OUT_ASIDE] = "UPDATE outbox SET lease_until_ms = 0, aside_why = $2,"
		" aside_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
		" WHERE id = $1 AND aside_ms IS NULL",
	/* $2 NULL: every chat of the platform. */
	[ST_OUT_DELAY] = "UPDATE outbox SET due_ms = $3 WHERE platform = $1"
		" AND ($2::text IS NULL OR chat = $2) AND aside_ms IS NULL AND due_ms < $3",
	[ST_OUT_UNLEASE] = "UPDATE outbox SET lease_until_ms = 0 WHERE lease_until_ms > $1"
		" AND aside_ms IS NULL",
	/* $1 NULL: every platform. */
	[ST_OUT_COUNT] = "SELECT count(*) FILTER (WHERE aside_ms IS NULL),"
		" count(*) FILTER (WHERE aside_ms IS NOT NULL),"
		" min(due_ms) FILTER (WHERE aside_ms IS NULL) FROM outbox"
		" WHERE $1::text IS NULL OR platform = $1",
	[ST_OUT_MOVE] = "UPDATE outbox SET chat = $3 WHERE platform = $1 AND chat = $2"
		" AND aside_ms IS NULL",
	/* no row: no such table (GB_ENOTFOUND) */
	[ST_TIMER_SET] = "INSERT INTO timers (table_id, kind, due_ms, version)"
		" SELECT $1::bigint, $2::text, $3::bigint, $4::bigint"
		" WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
		" ON CONFLICT (table_id, kind) DO UPDATE"
		" SET due_ms = excluded.due_ms, version = excluded.version, attempts = 0",
	[ST_TIMER_RETRY] = "UPDATE timers SET attempts = attempts + 1, due_ms = $3"
		" WHERE table_id = $1 AND kind = $2 RETURNING attempts",
	/* $2 NULL: every kind. */
	[ST_TIMER_CLEAR] = "DELETE FROM timers WHERE table_id = $1 AND ($2::text IS NULL OR kind = $2)",
	[ST_TIMER_DROP] = "DELETE FROM timers WHERE table_id = $1 AND kind = $2 AND version = $3",
	[ST_TABLES_BY_GAME] = "SELECT game, count(*) FROM tables WHERE status < 2"
		" GROUP BY game ORDER BY game LIMIT $1",
	[ST_TIMER_DUE] = "SELECT " TIMER_COLS " FROM timers WHERE due_ms <= $1"
		" ORDER BY due_ms, table_id, kind LIMIT $2",
	[ST_TIMER_NEXT] = "SELECT " TIMER_COLS " FROM timers"
		" ORDER BY due_ms, table_id, kind LIMIT 1",
	[ST_STAT_ADD] = "INSERT INTO stats (chat_id, user_id, game, name, games, wins, points)"
		" VALUES ($1, $2, $3, $4, 1, $5, $6) ON CONFLICT (chat_id, user_id, game)"
		" DO UPDATE SET name = excluded.name, games = stats.games + 1,"
		" wins = stats.wins + excluded.wins, points = stats.points + excluded.points",
	[ST_STAT_NAME] = "UPDATE stats SET name = $3 WHERE chat_id = $1 AND user_id = $2"
		" AND name <> $3",
	[ST_STATS_GAME] = "SELECT user_id, name, game, games, wins, points FROM stats"
		" WHERE chat_id = $1 AND game = $2"
		" ORDER BY wins DESC, points DESC, games ASC, name, user_id LIMIT $3",
	[ST_STATS_ALL] = "SELECT user_id, max(name) AS n, ''::text, sum(games) AS g,"
		" sum(wins) AS w, sum(points) AS p FROM stats WHERE chat_id = $1"
		" GROUP BY user_id ORDER BY w DESC, p DESC, g ASC, n, user_id LIMIT $2",
	[ST_META_GET] = "SELECT value FROM meta WHERE name = $1",
	[ST_META_SET] = "INSERT INTO meta (name, value) VALUES ($1, $2)"
		" ON CONFLICT (name) DO UPDATE SET value = excluded.value",
	[ST_MOVES_GET] = "SELECT seq, actor, action, events FROM moves"
		" WHERE table_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
	/* The seed is fixed by the first write; later writes set the stake.
	 * No row: no such table (GB_ENOTFOUND). */
	[ST_TERMS_SET] = "INSERT INTO table_terms (table_id, seed, stake)"
		" SELECT $1::bigint, $2::text, $3::bigint WHERE EXISTS (SELECT 1 FROM tables WHERE id = $1)"
		" ON CONFLICT (table_id) DO UPDATE SET stake = excluded.stake",
	[ST_TERMS_GET] = "SELECT seed, stake FROM table_terms WHERE table_id = $1",
	/* Both rows of a movement in one statement: $2 gives $6 coins to $4.
	 * No rows: no such chat (GB_ENOTFOUND). */
	[ST_COINS_MOVE] = "WITH m AS (SELECT nextval('ledger_movements') AS n"
		" WHERE EXISTS (SELECT 1 FROM chats WHERE id = $1))"
		" INSERT INTO ledger (id, chat_id, movement, account, name, amount, table_id, reason, at_ms)"
		" SELECT 2 * n, $1::bigint, n, $2::text, $3::text, -$6::bigint, $7::bigint, $8::text, $9::bigint FROM m"
		" UNION ALL SELECT 2 * n + 1, $1, n, $4::text, $5::text, $6, $7, $8, $9 FROM m",
	[ST_COINS_BALANCE] = "SELECT coalesce(sum(amount), 0), count(*) FROM ledger"
		" WHERE chat_id = $1 AND account = $2",
	[ST_COINS_TOP] = "SELECT account, (SELECT name FROM ledger AS n WHERE n.chat_id = l.chat_id"
		" AND n.account = l.account ORDER BY n.id DESC LIMIT 1), sum(amount) AS b"
		" FROM ledger AS l WHERE chat_id = $1 AND substr(account, 1, length($2)) = $2"
		" GROUP BY chat_id, account ORDER BY b DESC, account LIMIT $3",
	[ST_AUDIT_TOTALS] = "SELECT chat_id, sum(amount) FROM ledger WHERE $1::bigint = 0 OR chat_id = $1"
		" GROUP BY chat_id HAVING sum(amount) <> 0 LIMIT 1",
	[ST_AUDIT_MOVEMENTS] = "SELECT movement FROM ledger WHERE $1::bigint = 0 OR chat_id = $1"
		" GROUP BY movement HAVING count(*) <> 2 OR sum(amount) <> 0 OR min(amount) >= 0"
		" OR count(DISTINCT chat_id) <> 1 OR count(DISTINCT table_id) <> 1"
		" OR count(DISTINCT reason) <> 1 OR count(DISTINCT at_ms) <> 1"
		" OR count(DISTINCT account) <> 2 OR max(id) - min(id) <> 1 LIMIT 1",
	[ST_AUDIT_NEGATIVE] = "SELECT account, sum(amount) FROM ledger WHERE ($1::bigint = 0 OR chat_id = $1)"
		" AND account <> 'bank' GROUP BY chat_id, account HAVING sum(amount) < 0 LIMIT 1",
	[ST_AUDIT_POTS] = "SELECT l.account, sum(l.amount) FROM ledger AS l"
		" WHERE ($1::bigint = 0 OR l.chat_id = $1)"
		" AND l.account LIKE 'pot:%' GROUP BY l.chat_id, l.account HAVING sum(l.amount) <> 0"
		" AND NOT EXISTS (SELECT 1 FROM tables AS t WHERE 'pot:' || t.id = l.account"
		" AND t.chat_id = l.chat_id AND t.status = 1) LIMIT 1",
	[ST_AUDIT_GRANTS] = "SELECT movement FROM ledger WHERE ($1::bigint = 0 OR chat_id = $1)"
		" AND ((reason = 'grant' AND amount < 0 AND account <> 'bank')"
		" OR (account = 'bank' AND reason <> 'grant')) LIMIT 1",
};

/*
 * One use of a prepared statement: its parameters as text (pointers to
 * the caller's strings, or to num[] and text[] here), then its result,
 * read a row at a time by step() as with SQLite.
 */
struct pgst {
	struct store_backend *s;
	enum stmt id;
	int n;                         /* parameters bound: $1..$n */
	const char *v[MAX_PARAMS];     /* their text; NULL is SQL NULL */
	char num[MAX_PARAMS][24];      /* integers, printed */
	char text[MAX_PARAMS][STORE_NAME_LEN]; /* names cut to fit */
	PGresult *res;                 /* owned; NULL until run */
	int row;                       /* the row step() is on */
};

struct store_backend {
	PGconn *conn;                  /* owned; closed by pg_free() */
	struct pgst st[ST_COUNT];      /* one per statement, reset after every use */
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

/* uint64_t <-> PostgreSQL's signed BIGINT, bit for bit. */
static int64_t u64_to_i64(uint64_t v)
{
	int64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

static uint64_t i64_to_u64(int64_t v)
{
	uint64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

/* The name of statement id on the server. */
static void stmt_name(enum stmt id, char name[16])
{
	snprintf(name, 16, "g%d", (int)id);
}

/* Prepare every statement of sql_text[] on the connection. */
static int prepare_all(struct store_backend *s)
{
	int rc = GB_OK;

	for (int i = 0; !rc && i < ST_COUNT; i++) {
		char name[16];
		PGresult *res;

		stmt_name((enum stmt)i, name);
		res = PQprepare(s->conn, name, sql_text[i], 0, NULL);
		if (!res_ok(res))
			rc = err_of(res);
		PQclear(res);
	}
	return rc;
}

/*
 * Statement id, ready for binding. It must go back through stmt_done()
 * before the calling function returns.
 */
static int stmt_get(struct store_backend *s, enum stmt id, struct pgst **st)
{
	*st = &s->st[id];
	(*st)->s = s;
	(*st)->id = id;
	return GB_OK;
}

/* Clear st's result and parameters; NULL is a no-op. */
static void stmt_done(struct pgst *st)
{
	if (!st)
		return;
	PQclear(st->res);
	st->res = NULL;
	st->n = 0;
	st->row = -1;
	memset(st->v, 0, sizeof st->v);
}

static int bind_at(struct pgst *st, int i, const char *text)
{
	if (i < 1 || i > MAX_PARAMS)
		return GB_EARGS;
	st->v[i - 1] = text;
	if (i > st->n)
		st->n = i;
	return GB_OK;
}

/* Bind text (the caller's string, which must outlive the statement's run). */
static int bind_text(struct pgst *st, int i, const char *text)
{
	return bind_at(st, i, text);
}

/* Bind a display name cut to what a name buffer holds. */
static int bind_name(struct pgst *st, int i, const char *name)
{
	size_t len;

	if (i < 1 || i > MAX_PARAMS)
		return GB_EARGS;
	len = utf8_cut(name, strlen(name), STORE_NAME_LEN - 1);
	memcpy(st->text[i - 1], name, len);
	st->text[i - 1][len] = '\0';
	return bind_at(st, i, st->text[i - 1]);
}

static int bind_i64(struct pgst *st, int i, int64_t v)
{
	if (i < 1 || i > MAX_PARAMS)
		return GB_EARGS;
	snprintf(st->num[i - 1], sizeof st->num[i - 1], "%lld", (long long)v);
	return bind_at(st, i, st->num[i - 1]);
}

static int bind_int(struct pgst *st, int i, int v)
{
	return bind_i64(st, i, v);
}

static int bind_null(struct pgst *st, int i)
{
	return bind_at(st, i, NULL);
}

/* A bind result (already a gb_error code, as the SQLite code reads). */
static int bound(int rc)
{
	return rc;
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
static int exec_st(struct pgst *st)
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
static int step(struct pgst *st, int *row)
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

/* Run a statement that returns no rows wanted. */
static int step_done(struct pgst *st)
{
	int row;

	return step(st, &row);
}

static int col_null(const struct pgst *st, int col)
{
	return PQgetisnull(st->res, st->row, col);
}

static int64_t col_i64(const struct pgst *st, int col)
{
	return col_null(st, col) ? 0 : strtoll(PQgetvalue(st->res, st->row, col), NULL, 10);
}

/* Column col as an int, clamped (sums over many games could exceed it). */
static int col_int(const struct pgst *st, int col)
{
	int64_t v = col_i64(st, col);

	if (v > INT_MAX)
		v = INT_MAX;
	if (v < INT_MIN)
		v = INT_MIN;
	return (int)v;
}

/*
 * Copy text column col into dst (cap bytes), truncated on a character
 * boundary and NUL-terminated. NULL becomes "".
 */
static int copy_col(char *dst, size_t cap, const struct pgst *st, int col)
{
	const char *text = PQgetvalue(st->res, st->row, col);
	size_t len = (size_t)PQgetlength(st->res, st->row, col);

	len = utf8_cut(text, strnlen(text, len), cap - 1);
	memcpy(dst, text, len);
	dst[len] = '\0';
	return GB_OK;
}

/* *dst = a malloc'd copy of text column col (caller owns it), NULL for NULL. */
static int dup_col(char **dst, const struct pgst *st, int col)
{
	size_t len;

	*dst = NULL;
	if (col_null(st, col))
		return GB_OK;
	len = (size_t)PQgetlength(st->res, st->row, col);
	*dst = malloc(len + 1);
	if (!*dst)
		return GB_ENOMEM;
	memcpy(*dst, PQgetvalue(st->res, st->row, col), len);
	(*dst)[len] = '\0';
	return GB_OK;
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

/* Bring the schema to SCHEMA_VERSION; an up-to-date database is only read. */
static int migrate(struct store_backend *s)
{
	int version = 0;
	int locked = 0;
	int in_tx = 0;
	int rc = user_version(s, &version);

	if (rc || version == SCHEMA_VERSION)
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
	/* Another instance may have migrated while we waited for the lock. */
	rc = user_version(s, &version);
	if (rc)
		goto out;
	if (version < 0 || version > SCHEMA_VERSION) {
		rc = GB_ESTORE; /* written by a newer gamebot */
		goto out;
	}
	for (; version < SCHEMA_VERSION; version++) {
		int now = 0;

		rc = run_text(s, migrations[version]);
		if (!rc)
			rc = user_version(s, &now);
		if (!rc && now != version + 1)
			rc = GB_ESTORE; /* a migration must set its own version */
		if (rc)
			goto out;
	}
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
	for (int i = 0; i < ST_COUNT; i++)
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
	for (int i = 0; i < ST_COUNT; i++)
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
	return s ? GB_OK : GB_EARGS;
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

	if (!s)
		return GB_EARGS;
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

/* The version, or -1 when s is NULL or the database cannot be read. */
static int pg_schema_version(struct store_backend *s)
{
	int version = -1;

	if (s && user_version(s, &version) != GB_OK)
		version = -1;
	return version;
}

static int pg_begin(struct store_backend *s)
{
	int rc;

	if (!s)
		return GB_EARGS;
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

	if (!s)
		return GB_EARGS;
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
	if (!s)
		return;
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE && PQstatus(s->conn) == CONNECTION_OK)
		run_text(s, "ROLLBACK");
	s->in_tx = 0;
}

/* A savepoint; only inside a transaction. */
static int pg_unit_begin(struct store_backend *s)
{
	if (!s || !s->in_tx)
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

	if (!s)
		return GB_EARGS;
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

static int pg_was_processed(struct store_backend *s, const char *platform, const char *update_id)
{
	struct pgst *st = NULL;
	int rc = GB_OK, row = 0;

	if (!s || !id_ok(platform, CAP(store_chat, platform)) || !update_id || !update_id[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_PROCESSED_HAS, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, update_id));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row)
		rc = GB_EDUP;
out:
	stmt_done(st);
	return rc;
}

static int pg_mark_processed(struct store_backend *s, const char *platform, const char *update_id)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !id_ok(platform, CAP(store_chat, platform)) || !update_id || !update_id[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_PROCESSED_ADD, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, update_id));
	if (!rc)
		rc = step_done(st);
	/* a concurrent insert of the same id is waited for, then found here */
	if (!rc && s->changes == 0)
		rc = GB_EDUP;
out:
	stmt_done(st);
	return rc;
}

/* As in sqlite.c: only records of a second that ended by before_ms go. */
static int pg_processed_prune(struct store_backend *s, int64_t before_ms, int *n)
{
	struct pgst *st = NULL;
	int64_t before_s = before_ms / 1000 - (before_ms % 1000 < 0);
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_PROCESSED_PRUNE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, before_s));
	if (!rc)
		rc = step_done(st);
	if (!rc)
		*n = s->changes;
out:
	stmt_done(st);
	return rc;
}

/* ---- chats ---- */


/*
 * Step st (a chat SELECT, bound by the caller) and read its row into c;
 * *found says whether there was one. On an error c is left zeroed.
 */
static int chat_read(struct pgst *st, struct store_chat *c, int *found)
{
	int rc = step(st, found);

	if (rc || !*found)
		goto out;
	c->id = col_i64(st, 0);
	rc = copy_col(c->platform, sizeof c->platform, st, 1);
	if (!rc)
		rc = copy_col(c->chat, sizeof c->chat, st, 2);
	if (!rc)
		rc = copy_col(c->lang, sizeof c->lang, st, 3);
	if (!rc)
		rc = dup_col(&c->settings, st, 4);
out:
	if (rc) {
		store_chat_release(c);
		memset(c, 0, sizeof *c);
		*found = 0;
	}
	return rc;
}

/* Read the chat (platform, chat) into c; *found says whether it exists. */
static int chat_find(struct store_backend *s, const char *platform, const char *chat,
		     struct store_chat *c, int *found)
{
	struct pgst *st = NULL;
	int rc = stmt_get(s, ST_CHAT_FIND, &st);

	*found = 0;
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = chat_read(st, c, found);
	stmt_done(st);
	return rc;
}

/* A NULL or empty default_lang means "en". */
static int pg_chat_get(struct store_backend *s, const char *platform, const char *chat,
		   const char *default_lang, struct store_chat *c)
{
	struct pgst *st = NULL;
	int found = 0;
	int rc = GB_OK;

	if (c)
		memset(c, 0, sizeof *c);
	if (!default_lang || !default_lang[0])
		default_lang = "en";
	if (!s || !c || !id_ok(platform, sizeof c->platform) || !id_ok(chat, sizeof c->chat) ||
	    !id_ok(default_lang, sizeof c->lang)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = chat_find(s, platform, chat, c, &found);
	if (rc || found)
		goto out;
	/* DO NOTHING on conflict: another instance may have added it just now. */
	rc = stmt_get(s, ST_CHAT_ADD, &st);
	if (rc)
		goto out;
	rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_text(st, 3, default_lang));
	if (!rc)
		rc = step_done(st);
	if (rc)
		goto out;
	rc = chat_find(s, platform, chat, c, &found);
	if (!rc && !found)
		rc = GB_ESTORE;
out:
	stmt_done(st);
	return rc;
}

static int pg_chat_get_by_id(struct store_backend *s, int64_t id, struct store_chat *c)
{
	struct pgst *st = NULL;
	int found = 0;
	int rc = GB_OK;

	if (c)
		memset(c, 0, sizeof *c);
	if (!s || !c) {
		rc = GB_EARGS;
		goto out;
	}
	/* in a transaction the chat stays as read until it ends (see the top) */
	rc = stmt_get(s, s->in_tx ? ST_CHAT_BY_ID_LOCK : ST_CHAT_BY_ID, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, id));
	if (!rc)
		rc = chat_read(st, c, &found);
	if (!rc && !found)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* GB_ENOTFOUND if there is no chat c->id. A NULL settings is saved as "{}". */
static int pg_chat_save(struct store_backend *s, const struct store_chat *c)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !c || !id_ok(c->lang, sizeof c->lang)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_CHAT_SAVE, &st);
	if (rc)
		goto out;
	rc = bound(bind_text(st, 1, c->lang));
	if (!rc)
		rc = bound(bind_text(st, 2, c->settings ? c->settings : "{}"));
	if (!rc)
		rc = bound(bind_i64(st, 3, c->id));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/*
 * Bind (platform, a, b) to ?1..?3 of statement id and run it; *changes =
 * the rows it changed.
 */
static int run_pair(struct store_backend *s, enum stmt id, const char *platform, const char *a,
		    const char *b, int *changes)
{
	struct pgst *st = NULL;
	int rc = stmt_get(s, id, &st);

	*changes = 0;
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, a));
	if (!rc && b)
		rc = bound(bind_text(st, 3, b));
	if (!rc)
		rc = step_done(st);
	if (!rc)
		*changes = s->changes;
	stmt_done(st);
	return rc;
}

/*
 * In a savepoint (or a transaction of its own): drop an empty `to`, rename
 * `from` (a `to` still there is a unique violation, GB_EEXISTS, undone
 * with the savepoint), move the pending outbox rows.
 */
static int pg_chat_move(struct store_backend *s, const char *platform, const char *from, const char *to)
{
	int outer = 0;
	int in_sp = 0;
	int changes = 0;
	int rc = GB_OK;

	if (!s || !id_ok(platform, CAP(store_chat, platform)) ||
	    !id_ok(from, CAP(store_chat, chat)) || !id_ok(to, CAP(store_chat, chat)) ||
	    strcmp(from, to) == 0) {
		rc = GB_EARGS;
		goto out;
	}
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = run_pair(s, ST_CHAT_DROP_EMPTY, platform, to, NULL, &changes);
	if (rc)
		goto out;
	rc = run_pair(s, ST_CHAT_MOVE, platform, from, to, &changes);
	if (!rc && changes == 0)
		rc = GB_ENOTFOUND;
	if (rc)
		goto out;
	rc = run_pair(s, ST_OUT_MOVE, platform, from, to, &changes);
out:
	if (in_sp)
		rc = sp_end(s, outer, rc);
	return rc;
}

/* ---- tables ---- */


/* Run a SELECT of TABLE_COLS bound to key and read its row into t. */
static int table_read(struct store_backend *s, enum stmt id, int64_t key, struct store_table *t)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, id, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, key));
	if (!rc)
		rc = step(st, &row);
	if (rc)
		goto out;
	if (!row) {
		rc = GB_ENOTFOUND;
		goto out;
	}
	t->id = col_i64(st, 0);
	t->chat = col_i64(st, 1);
	t->status = col_int(st, 3);
	t->version = col_i64(st, 4);
	t->seed = i64_to_u64(col_i64(st, 5));
	t->turn_started_ms = col_i64(st, 8);
	t->watch = col_int(st, 11) != 0;
	t->created_ms = col_i64(st, 12);
	rc = copy_col(t->game, sizeof t->game, st, 2);
	if (!rc)
		rc = copy_col(t->creator, sizeof t->creator, st, 6);
	if (!rc)
		rc = copy_col(t->message, sizeof t->message, st, 7);
	if (!rc)
		rc = dup_col(&t->rules, st, 9);
	if (!rc)
		rc = dup_col(&t->state, st, 10);
out:
	stmt_done(st);
	if (rc && t) {
		store_table_release(t);
		memset(t, 0, sizeof *t);
	}
	return rc;
}

static int pg_table_open_get(struct store_backend *s, int64_t chat, struct store_table *t)
{
	return table_read(s, ST_TABLE_OPEN_GET, chat, t);
}

static int pg_table_get(struct store_backend *s, int64_t id, struct store_table *t)
{
	return table_read(s, ST_TABLE_GET, id, t);
}

/* Is the status of t one a write may store? */
static int table_ok(const struct store_table *t)
{
	return t->status >= STORE_LOBBY && t->status <= STORE_OVER;
}

/*
 * GB_ENOTFOUND if chat t->chat does not exist; GB_EEXISTS if the chat
 * already has an open table and t is not STORE_OVER. NULL rules become "{}".
 * Both refusals are constraint violations: in a savepoint, so they leave
 * the caller's transaction usable.
 */
static int pg_table_insert(struct store_backend *s, struct store_table *t)
{
	struct pgst *st = NULL;
	int outer = 0;
	int in_sp = 0;
	int row = 0;
	int rc = GB_OK;

	if (!s || !t || !table_ok(t) || !id_ok(t->game, sizeof t->game) ||
	    !fits(t->creator, sizeof t->creator) || !fits(t->message, sizeof t->message)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = stmt_get(s, ST_TABLE_INSERT, &st);
	if (rc)
		goto out;
	rc = bound(bind_i64(st, 1, t->chat));
	if (!rc)
		rc = bound(bind_text(st, 2, t->game));
	if (!rc)
		rc = bound(bind_int(st, 3, t->status));
	if (!rc)
		rc = bound(bind_i64(st, 4, u64_to_i64(t->seed)));
	if (!rc)
		rc = bound(bind_text(st, 5, t->creator));
	if (!rc)
		rc = bound(bind_text(st, 6, t->message));
	if (!rc)
		rc = bound(bind_i64(st, 7, t->turn_started_ms));
	if (!rc)
		rc = bound(bind_text(st, 8, t->rules ? t->rules : "{}"));
	if (!rc)
		rc = bound(t->state ? bind_text(st, 9, t->state) : bind_null(st, 9));
	if (!rc)
		rc = bound(bind_int(st, 10, t->watch != 0));
	if (!rc)
		rc = bound(bind_i64(st, 11, t->created_ms));
	if (!rc)
		rc = step(st, &row);
	if (!rc && !row)
		rc = GB_ESTORE;
	if (rc)
		goto out;
	t->id = col_i64(st, 0);
	t->version = 1;
out:
	stmt_done(st);
	if (in_sp)
		rc = sp_end(s, outer, rc);
	return rc;
}

/*
 * Compare-and-swap on t->version. GB_ECONFLICT also when table t->id does
 * not exist (any more): either way t is stale. GB_EEXISTS when reopening a
 * finished table would give its chat two open tables.
 */
static int pg_table_update(struct store_backend *s, struct store_table *t)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !table_ok(t)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLE_UPDATE, &st);
	if (rc)
		goto out;
	rc = bound(bind_int(st, 1, t->status));
	if (!rc)
		rc = bound(bind_i64(st, 2, t->turn_started_ms));
	if (!rc)
		rc = bound(bind_text(st, 3, t->rules ? t->rules : "{}"));
	if (!rc)
		rc = bound(t->state ? bind_text(st, 4, t->state) : bind_null(st, 4));
	if (!rc)
		rc = bound(bind_i64(st, 5, t->id));
	if (!rc)
		rc = bound(bind_i64(st, 6, t->version));
	if (!rc)
		rc = step_done(st);
	if (rc)
		goto out;
	if (s->changes == 0) {
		rc = GB_ECONFLICT;
		goto out;
	}
	t->version++;
out:
	stmt_done(st);
	return rc;
}

static int pg_table_set_message(struct store_backend *s, int64_t table, const char *message)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !fits(message, CAP(store_table, message))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLE_SET_MESSAGE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, message));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

static int pg_tables_count(struct store_backend *s, int64_t chat, int64_t since_ms, int open_only,
		       int watch_only, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLES_COUNT, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_i64(st, 2, since_ms ? since_ms : INT64_MIN));
	if (!rc)
		rc = bound(bind_int(st, 3, open_only != 0));
	if (!rc)
		rc = bound(bind_int(st, 4, watch_only != 0));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row)
		*n = col_int(st, 0);
out:
	stmt_done(st);
	return rc;
}

static int pg_tables_of_user(struct store_backend *s, const char *platform, const char *user, int64_t *out,
			int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || !platform || !user || max < 0 || (max > 0 && !out)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0 || !user[0])
		goto out;
	rc = stmt_get(s, ST_TABLES_OF_USER, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, user));
	if (!rc)
		rc = bound(bind_int(st, 3, max));
	while (!rc && count < max) {
		rc = step(st, &row);
		if (rc || !row)
			break;
		out[count++] = col_i64(st, 0);
	}
	if (!rc)
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/* ---- seats ---- */

static int pg_seats_get(struct store_backend *s, int64_t table, struct store_seat *seats, int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || max < 0 || (max > 0 && !seats)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(seats, 0, (size_t)max * sizeof *seats);
	rc = stmt_get(s, ST_SEATS_GET, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_int(st, 2, max));
	while (!rc && count < max) {
		struct store_seat *seat = &seats[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		seat->seat = col_int(st, 0);
		seat->level = col_int(st, 3);
		rc = copy_col(seat->user, sizeof seat->user, st, 1);
		if (!rc)
			rc = copy_col(seat->name, sizeof seat->name, st, 2);
		if (!rc)
			count++;
	}
	if (rc)
		memset(seats, 0, (size_t)max * sizeof *seats);
	else
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/*
 * Atomic even outside a transaction. GB_EARGS for a negative or repeated
 * seat number; GB_ENOTFOUND if n > 0 and the table does not exist.
 */
static int pg_seats_set(struct store_backend *s, int64_t table, const struct store_seat *seats, int n)
{
	struct pgst *st = NULL;
	int outer = 0;
	int in_sp = 0;
	int rc = GB_OK;

	if (!s || n < 0 || (n > 0 && !seats)) {
		rc = GB_EARGS;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		if (seats[i].seat < 0 || !fits(seats[i].user, sizeof seats[i].user) ||
		    !fits(seats[i].name, sizeof seats[i].name)) {
			rc = GB_EARGS;
			goto out;
		}
		for (int j = 0; j < i; j++) {
			if (seats[j].seat == seats[i].seat) {
				rc = GB_EARGS;
				goto out;
			}
		}
	}
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = stmt_get(s, ST_SEATS_CLEAR, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	st = NULL;
	if (rc)
		goto out;
	rc = stmt_get(s, ST_SEAT_ADD, &st);
	for (int i = 0; !rc && i < n; i++) {
		rc = bound(bind_i64(st, 1, table));
		if (!rc)
			rc = bound(bind_int(st, 2, seats[i].seat));
		if (!rc)
			rc = bound(bind_text(st, 3, seats[i].user));
		if (!rc)
			rc = bound(bind_name(st, 4, seats[i].name));
		if (!rc)
			rc = bound(bind_int(st, 5, seats[i].level));
		if (!rc)
			rc = step_done(st);
		stmt_done(st);
	}
out:
	stmt_done(st);
	if (in_sp)
		rc = sp_end(s, outer, rc);
	return rc;
}

/* ---- move log ---- */

/*
 * actor may be "" (the game itself); NULL events_json is stored as "[]".
 * GB_ENOTFOUND if the table does not exist.
 */
static int pg_move_append(struct store_backend *s, int64_t table, int seq, const char *actor,
		      const char *action, const char *events_json)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (!s || seq <= 0 || !actor || !action || !action[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_MOVE_ADD, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_int(st, 2, seq));
	if (!rc)
		rc = bound(bind_text(st, 3, actor));
	if (!rc)
		rc = bound(bind_text(st, 4, action));
	if (!rc)
		rc = bound(bind_text(st, 5, events_json ? events_json : "[]"));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	st = NULL;
	if (rc || s->changes)
		goto out;
	/* nothing inserted: the seq is taken, or there is no such table */
	rc = stmt_get(s, ST_TABLE_EXISTS, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = step(st, &row);
	if (!rc)
		rc = row ? GB_EEXISTS : GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* The number statement id (count or last) gives for table's moves. */
static int moves_number(struct store_backend *s, enum stmt id, int64_t table, int *count)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (count)
		*count = 0;
	if (!s || !count) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, id, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row)
		*count = col_int(st, 0);
out:
	stmt_done(st);
	return rc;
}

static int pg_move_count(struct store_backend *s, int64_t table, int *count)
{
	return moves_number(s, ST_MOVE_COUNT, table, count);
}

static int pg_move_last(struct store_backend *s, int64_t table, int *seq)
{
	return moves_number(s, ST_MOVE_LAST, table, seq);
}

/* ---- outbox ---- */


/* Read a row of OUT_COLS into o (zeroed by the caller). */
static int out_read(struct pgst *st, struct store_out *o)
{
	int rc;

	o->id = col_i64(st, 0);
	o->attempts = col_int(st, 4);
	o->due_ms = col_i64(st, 5);
	o->table = col_i64(st, 6);
	o->lease_until_ms = col_i64(st, 8);
	o->prio = col_int(st, 9);
	rc = copy_col(o->platform, sizeof o->platform, st, 1);
	if (!rc)
		rc = copy_col(o->chat, sizeof o->chat, st, 2);
	if (!rc)
		rc = copy_col(o->key, sizeof o->key, st, 7);
	if (!rc)
		rc = dup_col(&o->payload, st, 3);
	return rc;
}

/*
 * Step st (bound by the caller) to its end, reading up to max rows into
 * outs (zeroed by the caller); *count = the rows read (a result holds all
 * its rows at once: the rows past max are dropped). On an error the rows
 * read are released and outs zeroed again.
 */
static int out_rows(struct pgst *st, struct store_out *outs, int max, int *count)
{
	int row = 1;
	int rc = GB_OK;

	*count = 0;
	while (!rc && row) {
		rc = step(st, &row);
		if (rc || !row || *count >= max)
			continue;
		/* counted before filling, so an error releases it too */
		rc = out_read(st, &outs[(*count)++]);
	}
	if (rc) {
		for (int i = 0; i < *count; i++)
			store_out_release(&outs[i]);
		memset(outs, 0, (size_t)max * sizeof *outs);
		*count = 0;
	}
	return rc;
}

/*
 * One statement: the chat's lock, the rows a non-empty key replaces and
 * the insert (see ST_OUT_ADD).
 */
static int pg_out_add(struct store_backend *s, const char *platform, const char *chat, int64_t table,
		      const char *key, const char *payload, int64_t due_ms, int prio)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!key)
		key = "";
	if (!s || !id_ok(platform, CAP(store_out, platform)) || !id_ok(chat, CAP(store_out, chat)) ||
	    !fits(key, CAP(store_out, key)) || !payload || !payload[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_ADD, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_text(st, 3, payload));
	if (!rc)
		rc = bound(bind_i64(st, 4, due_ms));
	if (!rc)
		rc = bound(bind_i64(st, 5, table));
	if (!rc)
		rc = bound(bind_text(st, 6, key));
	if (!rc)
		rc = bound(bind_int(st, 7, prio));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

/* qsort order of claimed rows: due time, then queue order. */
static int out_cmp(const void *pa, const void *pb)
{
	const struct store_out *a = pa;
	const struct store_out *b = pb;

	if (a->due_ms != b->due_ms)
		return a->due_ms < b->due_ms ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/*
 * One UPDATE ... RETURNING picks (FOR UPDATE SKIP LOCKED) and leases the
 * rows: atomic on its own, so no savepoint; two workers never claim the
 * same row.
 */
static int pg_out_claim(struct store_backend *s, const char *platform, int64_t now_ms, int64_t lease_ms,
		    struct store_out *outs, int max, int *n)
{
	struct pgst *st = NULL;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || !id_ok(platform, CAP(store_out, platform)) || max < 0 ||
	    (max > 0 && !outs) || lease_ms <= 0 || now_ms > INT64_MAX - lease_ms) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(outs, 0, (size_t)max * sizeof *outs);
	rc = stmt_get(s, ST_OUT_CLAIM, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_i64(st, 2, now_ms));
	if (!rc)
		rc = bound(bind_i64(st, 3, now_ms + lease_ms));
	if (!rc)
		rc = bound(bind_int(st, 4, max));
	if (!rc)
		rc = out_rows(st, outs, max, &count);
out:
	stmt_done(st);
	if (rc && count > 0) {
		/* read, but the leases were not committed */
		for (int i = 0; i < count; i++)
			store_out_release(&outs[i]);
		memset(outs, 0, (size_t)max * sizeof *outs);
	} else if (!rc) {
		if (count > 1)
			qsort(outs, (size_t)count, sizeof *outs, out_cmp);
		*n = count;
	}
	return rc;
}

/* Ordered by due time, then by id (the order they were queued). */
static int pg_out_due(struct store_backend *s, const char *platform, int64_t now_ms,
		  struct store_out *outs, int max, int *n)
{
	struct pgst *st = NULL;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || !id_ok(platform, CAP(store_out, platform)) || max < 0 ||
	    (max > 0 && !outs)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(outs, 0, (size_t)max * sizeof *outs);
	rc = stmt_get(s, ST_OUT_DUE, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_i64(st, 2, now_ms));
	if (!rc)
		rc = bound(bind_int(st, 3, max));
	if (!rc)
		rc = out_rows(st, outs, max, &count);
	if (!rc)
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/*
 * Queue order. Inside a transaction the rows read are locked until it
 * ends, so a worker's claim skips them and what the caller saw of their
 * leases stays true while it takes them with store_out_done().
 */
static int pg_out_chat(struct store_backend *s, const char *platform, const char *chat,
		       struct store_out *outs, int max, int *n)
{
	struct pgst *st = NULL;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || !id_ok(platform, CAP(store_out, platform)) ||
	    !id_ok(chat, CAP(store_out, chat)) || max < 0 || (max > 0 && !outs)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(outs, 0, (size_t)max * sizeof *outs);
	rc = stmt_get(s, s->in_tx ? ST_OUT_CHAT_LOCK : ST_OUT_CHAT, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_int(st, 3, max));
	if (!rc)
		rc = out_rows(st, outs, max, &count);
	if (!rc)
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/*
 * Run statement id bound to (id, then an int64 and an int when given as
 * ?2, ?3); GB_ENOTFOUND when it changed no row.
 */
static int out_change(struct store_backend *s, enum stmt which, int64_t id, const int64_t *v2,
		      const int *v3)
{
	struct pgst *st = NULL;
	int rc = stmt_get(s, which, &st);

	if (!rc)
		rc = bound(bind_i64(st, 1, id));
	if (!rc && v2)
		rc = bound(bind_i64(st, 2, *v2));
	if (!rc && v3)
		rc = bound(bind_int(st, 3, *v3));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND;
	stmt_done(st);
	return rc;
}

/* GB_ENOTFOUND if there is no message id. A row set aside is removed too. */
static int pg_out_done(struct store_backend *s, int64_t id)
{
	return s ? out_change(s, ST_OUT_DONE, id, NULL, NULL) : GB_EARGS;
}

static int pg_out_retry(struct store_backend *s, int64_t id, int64_t due_ms, int count_attempt)
{
	int attempt = count_attempt != 0;

	return s ? out_change(s, ST_OUT_RETRY, id, &due_ms, &attempt) : GB_EARGS;
}

static int pg_out_set_aside(struct store_backend *s, int64_t id, const char *why)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_ASIDE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, id));
	if (!rc)
		rc = bound(bind_text(st, 2, why ? why : ""));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* Rows claimed now are delayed too: they matter again only if retried. */
static int pg_out_delay(struct store_backend *s, const char *platform, const char *chat, int64_t until_ms)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !id_ok(platform, CAP(store_out, platform)) ||
	    (chat && !id_ok(chat, CAP(store_out, chat)))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_DELAY, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(chat ? bind_text(st, 2, chat) : bind_null(st, 2));
	if (!rc)
		rc = bound(bind_i64(st, 3, until_ms));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int pg_out_unlease(struct store_backend *s, int64_t now_ms, int *n)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_UNLEASE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, now_ms));
	if (!rc)
		rc = step_done(st);
	if (!rc && n)
		*n = s->changes;
out:
	stmt_done(st);
	return rc;
}

static int pg_out_count(struct store_backend *s, const char *platform, int *pending, int *aside,
		    int64_t *oldest_due_ms)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (pending)
		*pending = 0;
	if (aside)
		*aside = 0;
	if (oldest_due_ms)
		*oldest_due_ms = 0;
	if (!s || (platform && !id_ok(platform, CAP(store_out, platform)))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_COUNT, &st);
	if (!rc)
		rc = bound(platform ? bind_text(st, 1, platform) : bind_null(st, 1));
	if (!rc)
		rc = step(st, &row);
	if (rc || !row)
		goto out;
	/* min() of no rows is NULL, read as 0 */
	if (pending)
		*pending = col_int(st, 0);
	if (aside)
		*aside = col_int(st, 1);
	if (oldest_due_ms)
		*oldest_due_ms = col_i64(st, 2);
out:
	stmt_done(st);
	return rc;
}

/* ---- timers ---- */

/* GB_ENOTFOUND if the table does not exist. */
static int pg_timer_set(struct store_backend *s, const struct store_timer *t)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !id_ok(t->kind, sizeof t->kind)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_SET, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, t->table));
	if (!rc)
		rc = bound(bind_text(st, 2, t->kind));
	if (!rc)
		rc = bound(bind_i64(st, 3, t->due_ms));
	if (!rc)
		rc = bound(bind_i64(st, 4, t->version));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* One UPDATE ... RETURNING: the new count comes back with the write. */
static int pg_timer_retry(struct store_backend *s, int64_t table, const char *kind, int64_t due_ms,
		      int *attempts)
{
	struct pgst *st = NULL;
	int row = 0;
	int found = 0;
	int count = 0;
	int rc = GB_OK;

	if (attempts)
		*attempts = 0;
	if (!s || !attempts || !id_ok(kind, CAP(store_timer, kind))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_RETRY, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, kind));
	if (!rc)
		rc = bound(bind_i64(st, 3, due_ms));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row) {
		found = 1;
		count = col_int(st, 0);
		rc = step(st, &row);
	}
	if (!rc && !found)
		rc = GB_ENOTFOUND;
	if (!rc)
		*attempts = count;
out:
	stmt_done(st);
	return rc;
}

/* Clearing a timer that is not set is not an error. */
static int pg_timer_clear(struct store_backend *s, int64_t table, const char *kind)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || (kind && !id_ok(kind, CAP(store_timer, kind)))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_CLEAR, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(kind ? bind_text(st, 2, kind) : bind_null(st, 2));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int pg_tables_open_by_game(struct store_backend *s, struct store_game_count *out, int max, int *n)
{
	struct pgst *st = NULL;
	int rc = GB_OK, row = 0;

	if (n)
		*n = 0;
	if (!s || !out || !n || max < 0) {
		rc = GB_EARGS;
		goto out;
	}
	memset(out, 0, sizeof(*out) * (size_t)max);
	rc = stmt_get(s, ST_TABLES_BY_GAME, &st);
	if (!rc)
		rc = bound(bind_int(st, 1, max));
	while (!rc && !(rc = step(st, &row)) && row) {
		rc = copy_col(out[*n].game, sizeof(out[*n].game), st, 0);
		out[*n].tables = col_int(st, 1);
		if (!rc)
			(*n)++;
	}
out:
	stmt_done(st);
	if (rc && n && out) {
		memset(out, 0, sizeof(*out) * (size_t)(max > 0 ? max : 0));
		*n = 0;
	}
	return rc;
}

static int pg_timer_drop(struct store_backend *s, int64_t table, const char *kind, int64_t version)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !kind || !id_ok(kind, CAP(store_timer, kind))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_DROP, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, kind));
	if (!rc)
		rc = bound(bind_i64(st, 3, version));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int timer_read(struct pgst *st, struct store_timer *t)
{
	t->table = col_i64(st, 0);
	t->due_ms = col_i64(st, 2);
	t->version = col_i64(st, 3);
	t->attempts = col_int(st, 4);
	return copy_col(t->kind, sizeof t->kind, st, 1);
}

/* Ties on due_ms are broken by table, then kind, so the order is stable. */
static int pg_timer_due(struct store_backend *s, int64_t now_ms, struct store_timer *timers, int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || max < 0 || (max > 0 && !timers)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(timers, 0, (size_t)max * sizeof *timers);
	rc = stmt_get(s, ST_TIMER_DUE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, now_ms));
	if (!rc)
		rc = bound(bind_int(st, 2, max));
	while (!rc && count < max) {
		rc = step(st, &row);
		if (rc || !row)
			break;
		rc = timer_read(st, &timers[count]);
		if (!rc)
			count++;
	}
	if (rc)
		memset(timers, 0, (size_t)max * sizeof *timers);
	else
		*n = count;
out:
	stmt_done(st);
	return rc;
}

static int pg_timer_next(struct store_backend *s, struct store_timer *t)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_NEXT, &st);
	if (!rc)
		rc = step(st, &row);
	if (!rc && !row)
		rc = GB_ENOTFOUND;
	if (!rc)
		rc = timer_read(st, t);
	if (rc)
		memset(t, 0, sizeof *t);
out:
	stmt_done(st);
	return rc;
}

/* ---- stats ---- */

/*
 * win counts as 1 when non-zero. name (cut to STORE_NAME_LEN - 1 bytes on a
 * character boundary) becomes the user's name on all their rows in the chat.
 * GB_ENOTFOUND if the chat does not exist.
 */
static int pg_stat_add(struct store_backend *s, int64_t chat, const char *user, const char *name,
		   const char *game, int win, int points)
{
	struct pgst *st = NULL;
	int outer = 0;
	int in_sp = 0;
	int rc = GB_OK;

	if (!s || !id_ok(user, CAP(store_stat, user)) || !name ||
	    !id_ok(game, CAP(store_stat, game))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = stmt_get(s, ST_STAT_ADD, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, user));
	if (!rc)
		rc = bound(bind_text(st, 3, game));
	if (!rc)
		rc = bound(bind_name(st, 4, name));
	if (!rc)
		rc = bound(bind_int(st, 5, win != 0));
	if (!rc)
		rc = bound(bind_int(st, 6, points));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	st = NULL;
	if (rc)
		goto out;
	rc = stmt_get(s, ST_STAT_NAME, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, user));
	if (!rc)
		rc = bound(bind_name(st, 3, name));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	if (in_sp)
		rc = sp_end(s, outer, rc);
	return rc;
}

/*
 * Best first: wins, then points (both descending), then fewer games, then
 * name and user id. With game NULL each user's rows are summed and the game
 * field is "".
 */
static int pg_stats_get(struct store_backend *s, int64_t chat, const char *game,
		    struct store_stat *stats, int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || (game && !id_ok(game, CAP(store_stat, game))) || max < 0 ||
	    (max > 0 && !stats)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(stats, 0, (size_t)max * sizeof *stats);
	rc = stmt_get(s, game ? ST_STATS_GAME : ST_STATS_ALL, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc && game)
		rc = bound(bind_text(st, 2, game));
	if (!rc)
		rc = bound(bind_int(st, game ? 3 : 2, max));
	while (!rc && count < max) {
		struct store_stat *o = &stats[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		o->games = col_int(st, 3);
		o->wins = col_int(st, 4);
		o->points = col_int(st, 5);
		rc = copy_col(o->user, sizeof o->user, st, 0);
		if (!rc)
			rc = copy_col(o->name, sizeof o->name, st, 1);
		if (!rc)
			rc = copy_col(o->game, sizeof o->game, st, 2);
		if (!rc)
			count++;
	}
	if (rc)
		memset(stats, 0, (size_t)max * sizeof *stats);
	else
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/* ---- meta ---- */

static int pg_meta_get(struct store_backend *s, const char *key, char *buf, size_t cap)
{
	struct pgst *st = NULL;
	const char *text = NULL;
	size_t len = 0;
	int row = 0;
	int rc = GB_OK;

	if (buf && cap > 0)
		buf[0] = '\0';
	if (!s || !id_ok(key, STORE_ID_LEN) || !buf || cap == 0) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_META_GET, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, key));
	if (!rc)
		rc = step(st, &row);
	if (!rc && !row)
		rc = GB_ENOTFOUND;
	if (rc)
		goto out;
	text = PQgetvalue(st->res, st->row, 0);
	len = (size_t)PQgetlength(st->res, st->row, 0);
	if (len >= cap) {
		rc = GB_EARGS;
		goto out;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
out:
	stmt_done(st);
	return rc;
}

static int pg_meta_set(struct store_backend *s, const char *key, const char *value)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !id_ok(key, STORE_ID_LEN) || !value) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_META_SET, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, key));
	if (!rc)
		rc = bound(bind_text(st, 2, value));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

/* ---- the move log, read back ---- */


static int pg_moves_get(struct store_backend *s, int64_t table, int after_seq, struct store_move *moves,
		    int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || max < 0 || (max > 0 && !moves)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(moves, 0, (size_t)max * sizeof *moves);
	rc = stmt_get(s, ST_MOVES_GET, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_int(st, 2, after_seq));
	if (!rc)
		rc = bound(bind_int(st, 3, max));
	while (!rc && count < max) {
		struct store_move *o = &moves[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		o->seq = col_int(st, 0);
		rc = copy_col(o->actor, sizeof o->actor, st, 1);
		if (!rc)
			rc = copy_col(o->action, sizeof o->action, st, 2);
		if (!rc)
			rc = dup_col(&o->events, st, 3);
		count++;
	}
	if (rc) {
		for (int i = 0; i < count; i++)
			store_move_release(&moves[i]);
		memset(moves, 0, (size_t)max * sizeof *moves);
	} else {
		*n = count;
	}
out:
	stmt_done(st);
	return rc;
}

/* ---- a table's terms ---- */

static int pg_terms_set(struct store_backend *s, int64_t table, const struct store_terms *t)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !seed_hex_ok(t->seed) || t->stake < 0) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TERMS_SET, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, t->seed));
	if (!rc)
		rc = bound(bind_i64(st, 3, t->stake));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND; /* no such table or chat */
out:
	stmt_done(st);
	return rc;
}

static int pg_terms_get(struct store_backend *s, int64_t table, struct store_terms *t)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TERMS_GET, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, table));
	if (!rc)
		rc = step(st, &row);
	if (!rc && !row)
		rc = GB_ENOTFOUND;
	if (!rc)
		rc = copy_col(t->seed, sizeof t->seed, st, 0);
	if (!rc)
		t->stake = col_i64(st, 1);
	if (rc)
		memset(t, 0, sizeof *t);
out:
	stmt_done(st);
	return rc;
}

/* ---- coins ---- */

static int pg_coins_move(struct store_backend *s, int64_t chat, const struct store_coin_move *m)
{
	struct pgst *st = NULL;
	int rc = GB_OK;

	if (!s || !m || m->amount <= 0 || !id_ok(m->from, sizeof m->from) ||
	    !id_ok(m->to, sizeof m->to) || strcmp(m->from, m->to) == 0 ||
	    !id_ok(m->reason, sizeof m->reason)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_COINS_MOVE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, m->from));
	if (!rc)
		rc = bound(bind_name(st, 3, m->from_name));
	if (!rc)
		rc = bound(bind_text(st, 4, m->to));
	if (!rc)
		rc = bound(bind_name(st, 5, m->to_name));
	if (!rc)
		rc = bound(bind_i64(st, 6, m->amount));
	if (!rc)
		rc = bound(bind_i64(st, 7, m->table));
	if (!rc)
		rc = bound(bind_text(st, 8, m->reason));
	if (!rc)
		rc = bound(bind_i64(st, 9, m->at_ms));
	if (!rc)
		rc = step_done(st);
	if (!rc && s->changes == 0)
		rc = GB_ENOTFOUND; /* no such table or chat */
out:
	stmt_done(st);
	return rc;
}

static int pg_coins_balance(struct store_backend *s, int64_t chat, const char *account, int64_t *balance,
			int *rows)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (balance)
		*balance = 0;
	if (rows)
		*rows = 0;
	if (!s || !balance || !id_ok(account, STORE_ACCOUNT_LEN)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_COINS_BALANCE, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, account));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row) {
		*balance = col_i64(st, 0);
		if (rows)
			*rows = col_int(st, 1);
	}
out:
	stmt_done(st);
	return rc;
}

static int pg_coins_top(struct store_backend *s, int64_t chat, const char *prefix, struct store_balance *out,
		    int max, int *n)
{
	struct pgst *st = NULL;
	int row = 0;
	int count = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n || !prefix || max < 0 || (max > 0 && !out)) {
		rc = GB_EARGS;
		goto out;
	}
	if (max == 0)
		goto out;
	memset(out, 0, (size_t)max * sizeof *out);
	rc = stmt_get(s, ST_COINS_TOP, &st);
	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, prefix));
	if (!rc)
		rc = bound(bind_int(st, 3, max));
	while (!rc && count < max) {
		struct store_balance *o = &out[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		rc = copy_col(o->account, sizeof o->account, st, 0);
		if (!rc)
			rc = copy_col(o->name, sizeof o->name, st, 1);
		o->balance = col_i64(st, 2);
		if (!rc)
			count++;
	}
	if (rc)
		memset(out, 0, (size_t)max * sizeof *out);
	else
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/* Run one audit query; a row found is a broken invariant, described in why. */
static int audit_one(struct store_backend *s, enum stmt id, int64_t chat, const char *what, char *why,
		     size_t cap)
{
	struct pgst *st = NULL;
	int row = 0;
	int rc = stmt_get(s, id, &st);

	if (!rc)
		rc = bound(bind_i64(st, 1, chat));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row) {
		rc = GB_EINVARIANT;
		if (why && cap)
			snprintf(why, cap, "%s: %s %lld", what,
				 PQgetvalue(st->res, st->row, 0),
				 PQnfields(st->res) > 1 ? (long long)col_i64(st, 1) : 0LL);
	}
	stmt_done(st);
	return rc;
}

static int pg_coins_audit(struct store_backend *s, int64_t chat, char *why, size_t cap)
{
	int rc = GB_OK;

	if (why && cap)
		why[0] = '\0';
	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	rc = audit_one(s, ST_AUDIT_TOTALS, chat, "a chat's coins do not add up to 0 (chat, total)", why, cap);
	if (!rc)
		rc = audit_one(s, ST_AUDIT_MOVEMENTS, chat, "a movement is not one pair of rows", why, cap);
	if (!rc)
		rc = audit_one(s, ST_AUDIT_NEGATIVE, chat, "an account below 0", why, cap);
	if (!rc)
		rc = audit_one(s, ST_AUDIT_POTS, chat, "a pot holds coins of a table not being played", why, cap);
	if (!rc)
		rc = audit_one(s, ST_AUDIT_GRANTS, chat, "bank coins moved other than by a grant", why, cap);
out:
	return rc;
}


const struct store_ops store_pg_ops = {
	.name = "postgresql",
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
	.was_processed = pg_was_processed,
	.mark_processed = pg_mark_processed,
	.processed_prune = pg_processed_prune,
	.chat_get = pg_chat_get,
	.chat_get_by_id = pg_chat_get_by_id,
	.chat_save = pg_chat_save,
	.chat_move = pg_chat_move,
	.table_open_get = pg_table_open_get,
	.table_get = pg_table_get,
	.table_insert = pg_table_insert,
	.table_update = pg_table_update,
	.table_set_message = pg_table_set_message,
	.tables_count = pg_tables_count,
	.tables_of_user = pg_tables_of_user,
	.seats_get = pg_seats_get,
	.seats_set = pg_seats_set,
	.move_append = pg_move_append,
	.move_count = pg_move_count,
	.move_last = pg_move_last,
	.out_add = pg_out_add,
	.out_claim = pg_out_claim,
	.out_due = pg_out_due,
	.out_chat = pg_out_chat,
	.out_done = pg_out_done,
	.out_retry = pg_out_retry,
	.out_set_aside = pg_out_set_aside,
	.out_delay = pg_out_delay,
	.out_unlease = pg_out_unlease,
	.out_count = pg_out_count,
	.timer_set = pg_timer_set,
	.timer_retry = pg_timer_retry,
	.timer_clear = pg_timer_clear,
	.tables_open_by_game = pg_tables_open_by_game,
	.timer_drop = pg_timer_drop,
	.timer_due = pg_timer_due,
	.timer_next = pg_timer_next,
	.stat_add = pg_stat_add,
	.stats_get = pg_stats_get,
	.meta_get = pg_meta_get,
	.meta_set = pg_meta_set,
	.moves_get = pg_moves_get,
	.terms_set = pg_terms_set,
	.terms_get = pg_terms_get,
	.coins_move = pg_coins_move,
	.coins_balance = pg_coins_balance,
	.coins_top = pg_coins_top,
	.coins_audit = pg_coins_audit,
};
