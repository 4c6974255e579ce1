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
 * Schema: the version lives in PRAGMA user_version. migrations[] is the
 * ordered list of schema changes; sq_open() applies the missing ones in a
 * single BEGIN IMMEDIATE transaction, re-reading the version under the lock
 * so two processes starting together migrate once. An up-to-date file is
 * only read. A file from a newer gamebot (a version we do not know) is
 * refused rather than guessed at.
 *
 * Statements: every SQL text is a constant in sql_text[], indexed by enum
 * stmt. All are prepared once at open (so a typo fails at start-up, not in
 * the middle of a game) and kept until sq_free(); after every use a
 * statement is reset and its bindings cleared, so none holds a read snapshot
 * between calls. Strings are bound SQLITE_TRANSIENT (SQLite copies them).
 * The only SQL run without binding is constant text (pragmas, migrations).
 *
 * Threads: a handle keeps cached statements and a transaction state, so it
 * belongs to one thread at a time; open one handle per thread.
 *
 * Locks: a call of several statements runs in a savepoint (atomic whether
 * or not the caller has a transaction open) and starts with a write, so
 * outside a transaction it takes the write lock, waiting on the busy
 * timeout, before it reads anything. (A read then a write would fail at
 * once, SQLITE_BUSY_SNAPSHOT, whenever another handle wrote in between.)
 * sq_out_claim() picks and leases its rows in one UPDATE ... RETURNING
 * for the same reason: two workers never claim one row.
 *
 * Clocks: times are the caller's epoch milliseconds. The store reads
 * SQLite's clock only for processed.at (epoch seconds, the column default)
 * and outbox.aside_ms (when a row was set aside).
 *
 * Strings: identifiers (platform, chat, user, game, timer kind, message ids,
 * language) must fit their row buffers, or the call is GB_EARGS: truncating
 * an id could merge two chats. Display names are cut to STORE_NAME_LEN - 1
 * bytes on a UTF-8 character boundary before they are stored. Anything read
 * back is truncated to its buffer the same way, so a row written by other
 * software cannot overflow a struct.
 *
 * Errors: SQLite's result codes become gb_error codes in one place,
 * err_of(): a unique or primary key violation is GB_EEXISTS (callers turn it
 * into GB_EDUP where the header says so), a foreign key violation is
 * GB_ENOTFOUND (the chat or table referred to does not exist), NOT NULL and
 * CHECK violations are GB_EARGS, out of memory is GB_ENOMEM and everything
 * else GB_ESTORE. A failed statement rolls back only itself: an enclosing
 * transaction stays usable.
 *
 * Out rows: every function that fills rows first zeroes them; on an error
 * they are left zeroed (nothing to release) and counts are 0.
 */
#include "store/backend.h"
#include "games/utf8.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Writers' wait for another process's lock (store_busy_timeout_set()). */
static int busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;

/*
 * The schema, one migration per element, applied in order. Never edit a
 * migration that has shipped: append a new one. Each ends by setting
 * user_version to its own number (a pragma cannot take a bound parameter,
 * and building the statement from a number would be SQL from formatting).
 * Tables use CREATE TABLE without IF NOT EXISTS on purpose: a migration that
 * ran twice would fail loudly instead of silently doing half its work.
 * Column names avoid words PostgreSQL reserves (user), so the schema ports.
 */
static const char *const migrations[] = {
	/* 1: everything */
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
	/* At most one open table per chat, even with two instances racing. */
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
	/* The log is append only: a game replays from its seed and moves. */
	"CREATE TRIGGER moves_append_only BEFORE UPDATE ON moves"
	"  BEGIN SELECT RAISE(ABORT, 'the move log is append only'); END;"
	/* at (epoch seconds) lets old keys be pruned later without a migration. */
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
	"PRAGMA user_version = 1;",

	/* 2: the delivery contract (table, coalescing key, leases, setting
	 * aside), pruning processed ids, table facts, timer attempts, meta */
	"ALTER TABLE outbox ADD COLUMN table_id INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE outbox ADD COLUMN merge_key TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE outbox ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;"
	/* NULL while pending; when given up, the time (epoch ms) and why. */
	"ALTER TABLE outbox ADD COLUMN aside_ms INTEGER;"
	"ALTER TABLE outbox ADD COLUMN aside_why TEXT;"
	/* Only pending rows are ever looked for: partial indexes. outbox_chat
	 * finds a chat's head (and its rows of a key) with one seek. */
	"DROP INDEX outbox_due;"
	"CREATE INDEX outbox_due ON outbox(platform, due_ms, id) WHERE aside_ms IS NULL;"
	"CREATE INDEX outbox_chat ON outbox(platform, chat, id) WHERE aside_ms IS NULL;"
	"CREATE INDEX processed_at ON processed(at);"
	"ALTER TABLE tables ADD COLUMN watch INTEGER NOT NULL DEFAULT 0 CHECK (watch IN (0, 1));"
	"ALTER TABLE tables ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX tables_created ON tables(created_ms);"
	"ALTER TABLE timers ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE meta ("
	"  name TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL"
	") WITHOUT ROWID;"
	"PRAGMA user_version = 2;",

	/* 3: coins (a double-entry ledger per chat), a table's sealed seed and
	 * its stake per seat */
	"CREATE TABLE ledger ("
	"  id INTEGER PRIMARY KEY,"
	"  chat_id INTEGER NOT NULL REFERENCES chats(id),"
	"  movement INTEGER NOT NULL,"
	"  account TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  amount INTEGER NOT NULL CHECK (amount <> 0),"
	"  table_id INTEGER NOT NULL DEFAULT 0,"
	"  reason TEXT NOT NULL,"
	"  at_ms INTEGER NOT NULL"
	");"
	"CREATE INDEX ledger_account ON ledger(chat_id, account);"
	"CREATE INDEX ledger_movement ON ledger(movement);"
	/* Coins are never rewritten or taken away: a correction is a new movement. */
	"CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger"
	"  BEGIN SELECT RAISE(ABORT, 'the ledger is append only'); END;"
	"CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger"
	"  BEGIN SELECT RAISE(ABORT, 'the ledger is append only'); END;"
	"CREATE TABLE table_terms ("
	"  table_id INTEGER PRIMARY KEY REFERENCES tables(id) ON DELETE CASCADE,"
	"  seed TEXT NOT NULL,"
	"  stake INTEGER NOT NULL DEFAULT 0 CHECK (stake >= 0)"
	");"
	"PRAGMA user_version = 3;",

	/* 4: a row's class (enum store_out_prio): a chat's turn-critical rows
	 * go out before its informational ones */
	"ALTER TABLE outbox ADD COLUMN prio INTEGER NOT NULL DEFAULT 0;"
	/* a row's place in the queue when it replaced older ones: the oldest's (NULL: its id) */
	"ALTER TABLE outbox ADD COLUMN place INTEGER;"
	"PRAGMA user_version = 4;",
};

#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

enum stmt {
	ST_BEGIN,
	ST_BEGIN_READ,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_ROLLBACK_TO,
	ST_USER_VERSION,
	ST_UNIT_BEGIN,
	ST_UNIT_RELEASE,
	ST_UNIT_UNDO,
	ST_PROCESSED_ADD,
	ST_PROCESSED_HAS,
	ST_PROCESSED_PRUNE,
	ST_CHAT_FIND,
	ST_CHAT_BY_ID,
	ST_CHAT_ADD,
	ST_CHAT_SAVE,
	ST_CHAT_DROP_EMPTY,
	ST_CHAT_MOVE,
	ST_TABLE_OPEN_GET,
	ST_TABLE_GET,
	ST_TABLE_INSERT,
	ST_TABLE_UPDATE,
	ST_TABLE_SET_MESSAGE,
	ST_TABLES_COUNT,
	ST_TABLES_COUNT_ALL,
	ST_TABLES_OF_USER,
	ST_SEATS_GET,
	ST_SEATS_CLEAR,
	ST_SEAT_ADD,
	ST_MOVE_ADD,
	ST_MOVE_COUNT,
	ST_MOVE_LAST,
	ST_OUT_PLACE,
	ST_OUT_COALESCE,
	ST_OUT_REPLACE,
	ST_OUT_ADD,
	ST_OUT_CLAIM,
	ST_OUT_DUE,
	ST_OUT_CHAT,
	ST_OUT_DONE,
	ST_OUT_RETRY,
	ST_OUT_ASIDE,
	ST_OUT_DELAY,
	ST_OUT_DELAY_ALL,
	ST_OUT_UNLEASE,
	ST_OUT_COUNT,
	ST_OUT_COUNT_ALL,
	ST_OUT_MOVE,
	ST_TIMER_SET,
	ST_TIMER_RETRY,
	ST_TIMER_CLEAR,
	ST_TIMER_DROP,
	ST_TABLES_BY_GAME,
	ST_TIMER_CLEAR_ALL,
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

/* Column list read by read_table(), in its order. */
#define TABLE_COLS "id, chat_id, game, status, version, seed, creator, message," \
	" turn_started_ms, rules, state, watch, created_ms"
#define TIMER_COLS "table_id, kind, due_ms, version, attempts"
/* Column list read by out_read(), in its order. */
#define OUT_COLS "id, platform, chat, payload, attempts, due_ms, table_id, merge_key," \
	" lease_until_ms, prio"

static const char *const sql_text[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	/* a snapshot: SQLite takes it at the first read */
	[ST_BEGIN_READ] = "BEGIN DEFERRED",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_SAVEPOINT] = "SAVEPOINT store_step",
	[ST_RELEASE] = "RELEASE store_step",
	[ST_ROLLBACK_TO] = "ROLLBACK TO store_step",
	[ST_USER_VERSION] = "PRAGMA user_version",
	[ST_UNIT_BEGIN] = "SAVEPOINT unit",
	[ST_UNIT_RELEASE] = "RELEASE unit",
	[ST_UNIT_UNDO] = "ROLLBACK TO unit",
	[ST_PROCESSED_ADD] = "INSERT INTO processed (platform, update_id) VALUES (?1, ?2)",
	[ST_PROCESSED_HAS] = "SELECT 1 FROM processed WHERE platform = ?1 AND update_id = ?2",
	[ST_PROCESSED_PRUNE] = "DELETE FROM processed WHERE at < ?1",
	[ST_CHAT_FIND] = "SELECT id, platform, chat, lang, settings FROM chats"
		" WHERE platform = ?1 AND chat = ?2",
	[ST_CHAT_BY_ID] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = ?1",
	[ST_CHAT_ADD] = "INSERT INTO chats (platform, chat, lang, settings)"
		" VALUES (?1, ?2, ?3, '{}') ON CONFLICT (platform, chat) DO NOTHING",
	[ST_CHAT_SAVE] = "UPDATE chats SET lang = ?1, settings = ?2 WHERE id = ?3",
	/* The chat (platform ?1, chat ?2) if nothing would be lost with it. */
	[ST_CHAT_DROP_EMPTY] = "DELETE FROM chats WHERE platform = ?1 AND chat = ?2"
		" AND settings = '{}'"
		" AND NOT EXISTS (SELECT 1 FROM tables WHERE tables.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM stats WHERE stats.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.chat_id = chats.id)",
	[ST_CHAT_MOVE] = "UPDATE chats SET chat = ?3 WHERE platform = ?1 AND chat = ?2",
	[ST_TABLE_OPEN_GET] = "SELECT " TABLE_COLS " FROM tables"
		" WHERE chat_id = ?1 AND status < 2",
	[ST_TABLE_GET] = "SELECT " TABLE_COLS " FROM tables WHERE id = ?1",
	[ST_TABLE_INSERT] = "INSERT INTO tables (chat_id, game, status, version, seed,"
		" creator, message, turn_started_ms, rules, state, watch, created_ms)"
		" VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	/* Not message: sq_table_set_message() owns it. */
	[ST_TABLE_UPDATE] = "UPDATE tables SET status = ?1,"
		" turn_started_ms = ?2, rules = ?3, state = ?4, version = version + 1"
		" WHERE id = ?5 AND version = ?6",
	[ST_TABLE_SET_MESSAGE] = "UPDATE tables SET message = ?2 WHERE id = ?1",
	/* ?3 open only, ?4 watch only (0 or 1). */
	[ST_TABLES_COUNT] = "SELECT count(*) FROM tables WHERE chat_id = ?1 AND created_ms >= ?2"
		" AND (?3 = 0 OR status < 2) AND (?4 = 0 OR watch = 1)",
	[ST_TABLES_COUNT_ALL] = "SELECT count(*) FROM tables WHERE created_ms >= ?2"
		" AND (?3 = 0 OR status < 2) AND (?4 = 0 OR watch = 1)",
	/*
	 * A scan of seats: asked only when someone opens inline mode, and
	 * seats of finished tables are few per table.
	 */
	[ST_TABLES_OF_USER] = "SELECT t.id FROM seats s JOIN tables t ON t.id = s.table_id"
		" JOIN chats c ON c.id = t.chat_id"
		" WHERE c.platform = ?1 AND s.user_id = ?2 AND s.level < 0 AND t.status < 2"
		" GROUP BY t.id ORDER BY t.id LIMIT ?3",
	[ST_SEATS_GET] = "SELECT seat, user_id, name, level FROM seats"
		" WHERE table_id = ?1 ORDER BY seat LIMIT ?2",
	[ST_SEATS_CLEAR] = "DELETE FROM seats WHERE table_id = ?1",
	[ST_SEAT_ADD] = "INSERT INTO seats (table_id, seat, user_id, name, level)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_MOVE_ADD] = "INSERT INTO moves (table_id, seq, actor, action, events)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_MOVE_COUNT] = "SELECT count(*) FROM moves WHERE table_id = ?1",
	/* one seek down the primary key: a NULL (no moves) reads as 0 */
	[ST_MOVE_LAST] = "SELECT max(seq) FROM moves WHERE table_id = ?1",
	/* For a new row of key ?3 due at ?4: the latest due time of the
	 * chat's pending rows, and the earliest of the rows it replaces. */
	[ST_OUT_PLACE] = "SELECT max(due_ms), min(CASE WHEN ?3 <> '' AND merge_key = ?3"
		" AND (lease_until_ms = 0 OR lease_until_ms <= ?4) THEN due_ms END),"
		" min(CASE WHEN ?3 <> '' AND merge_key = ?3 THEN ifnull(place, id) END)"
		" FROM outbox WHERE platform = ?1 AND chat = ?2 AND aside_ms IS NULL",
	/* The earlier rows a new row of key ?3 replaces: pending and not
	 * leased past ?4, the new row's due time (0: never leased). */
	[ST_OUT_COALESCE] = "DELETE FROM outbox WHERE platform = ?1 AND chat = ?2"
		" AND merge_key = ?3 AND aside_ms IS NULL"
		" AND (lease_until_ms = 0 OR lease_until_ms <= ?4)",
	/* The chat's newest pending row, when it is of table ?5, key ?6 and
	 * class ?7 and was never handed to a worker, takes the new payload,
	 * due time and place ?8 in place: it is where the new row would go
	 * (its chat's last, so its class's last too). */
	[ST_OUT_REPLACE] = "UPDATE outbox SET payload = ?3, due_ms = ?4, place = coalesce(?8, place)"
		" WHERE id = (SELECT max(id) FROM outbox WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL) AND table_id = ?5 AND merge_key = ?6 AND prio = ?7"
		" AND lease_until_ms = 0 AND attempts = 0 AND aside_ms IS NULL",
	[ST_OUT_ADD] = "INSERT INTO outbox (platform, chat, payload, due_ms, table_id, merge_key, prio,"
		" place) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	/* Each chat's head (its pending row of the highest class, the first
	 * of them in queue order: for turn-critical rows a row's place, see
	 * ST_OUT_PLACE, then its id; else its id) if due at ?2 and no row of its chat is under a live lease
	 * (a turn-critical row queued while an older informational one is out
	 * waits for it), in queue order;
	 * leased until ?3. A chat's rows are
	 * few: the NOT EXISTS reads them through outbox_chat. RETURNING order
	 * is arbitrary: sq_out_claim() sorts. */
	[ST_OUT_CLAIM] = "UPDATE outbox SET lease_until_ms = ?3 WHERE id IN ("
		"SELECT o.id FROM outbox AS o WHERE o.platform = ?1 AND o.aside_ms IS NULL"
		" AND o.due_ms <= ?2 AND o.lease_until_ms <= ?2"
		" AND NOT EXISTS (SELECT 1 FROM outbox AS p WHERE p.platform = ?1"
		" AND p.chat = o.chat AND p.aside_ms IS NULL AND (p.prio > o.prio"
		" OR (p.prio = o.prio"
		" AND (CASE WHEN p.prio > 0 THEN ifnull(p.place, p.id) ELSE p.id END, p.id)"
		" < (CASE WHEN o.prio > 0 THEN ifnull(o.place, o.id) ELSE o.id END, o.id))"
		" OR p.lease_until_ms > ?2))"
		" ORDER BY ifnull(o.place, o.id) LIMIT ?4) RETURNING " OUT_COLS,
	[ST_OUT_DUE] = "SELECT " OUT_COLS " FROM outbox WHERE platform = ?1"
		" AND aside_ms IS NULL AND due_ms <= ?2 ORDER BY due_ms, id LIMIT ?3",
	/* the chat's newest ?3 pending rows, oldest of them first */
	[ST_OUT_CHAT] = "SELECT " OUT_COLS " FROM (SELECT " OUT_COLS " FROM outbox"
		" WHERE platform = ?1 AND chat = ?2 AND aside_ms IS NULL ORDER BY id DESC LIMIT ?3)"
		" ORDER BY id",
	[ST_OUT_DONE] = "DELETE FROM outbox WHERE id = ?1",
	[ST_OUT_RETRY] = "UPDATE outbox SET lease_until_ms = 0, due_ms = ?2,"
		" attempts = attempts + ?3 WHERE id = ?1 AND aside_ms IS NULL",
	/* Stamped with SQLite's clock in epoch milliseconds. */
	[ST_OUT_ASIDE] = "UPDATE outbox SET lease_until_ms = 0, aside_why = ?2,"
		" aside_ms = CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
		" WHERE id = ?1 AND aside_ms IS NULL",
	/* +due_ms: through outbox_chat (one chat's rows), not outbox_due. */
	[ST_OUT_DELAY] = "UPDATE outbox SET due_ms = ?3 WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL AND +due_ms < ?3",
	[ST_OUT_DELAY_ALL] = "UPDATE outbox SET due_ms = ?2 WHERE platform = ?1"
		" AND aside_ms IS NULL AND due_ms < ?2",
	[ST_OUT_UNLEASE] = "UPDATE outbox SET lease_until_ms = 0 WHERE lease_until_ms > ?1"
		" AND aside_ms IS NULL",
	[ST_OUT_COUNT] = "SELECT sum(aside_ms IS NULL), sum(aside_ms IS NOT NULL),"
		" min(CASE WHEN aside_ms IS NULL THEN due_ms END) FROM outbox WHERE platform = ?1",
	[ST_OUT_COUNT_ALL] = "SELECT sum(aside_ms IS NULL), sum(aside_ms IS NOT NULL),"
		" min(CASE WHEN aside_ms IS NULL THEN due_ms END) FROM outbox",
	[ST_OUT_MOVE] = "UPDATE outbox SET chat = ?3 WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL",
	[ST_TIMER_SET] = "INSERT INTO timers (table_id, kind, due_ms, version)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (table_id, kind) DO UPDATE"
		" SET due_ms = excluded.due_ms, version = excluded.version, attempts = 0",
	[ST_TIMER_RETRY] = "UPDATE timers SET attempts = attempts + 1, due_ms = ?3"
		" WHERE table_id = ?1 AND kind = ?2 RETURNING attempts",
	[ST_TIMER_CLEAR] = "DELETE FROM timers WHERE table_id = ?1 AND kind = ?2",
	[ST_TABLES_BY_GAME] = "SELECT game, count(*) FROM tables WHERE status < 2"
		" GROUP BY game ORDER BY game LIMIT ?1",
	[ST_TIMER_DROP] = "DELETE FROM timers WHERE table_id = ?1 AND kind = ?2 AND version = ?3",
	[ST_TIMER_CLEAR_ALL] = "DELETE FROM timers WHERE table_id = ?1",
	[ST_TIMER_DUE] = "SELECT " TIMER_COLS " FROM timers WHERE due_ms <= ?1"
		" ORDER BY due_ms, table_id, kind LIMIT ?2",
	[ST_TIMER_NEXT] = "SELECT " TIMER_COLS " FROM timers"
		" ORDER BY due_ms, table_id, kind LIMIT 1",
	[ST_STAT_ADD] = "INSERT INTO stats (chat_id, user_id, game, name, games, wins, points)"
		" VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6) ON CONFLICT (chat_id, user_id, game)"
		" DO UPDATE SET name = excluded.name, games = games + 1,"
		" wins = wins + excluded.wins, points = points + excluded.points",
	/* A user's latest display name on all their rows, so the aggregated
	 * leaderboard shows one current name. */
	[ST_STAT_NAME] = "UPDATE stats SET name = ?3 WHERE chat_id = ?1 AND user_id = ?2"
		" AND name <> ?3",
	[ST_STATS_GAME] = "SELECT user_id, name, game, games, wins, points FROM stats"
		" WHERE chat_id = ?1 AND game = ?2"
		" ORDER BY wins DESC, points DESC, games ASC, name, user_id LIMIT ?3",
	[ST_STATS_ALL] = "SELECT user_id, max(name) AS n, '', sum(games) AS g,"
		" sum(wins) AS w, sum(points) AS p FROM stats WHERE chat_id = ?1"
		" GROUP BY user_id ORDER BY w DESC, p DESC, g ASC, n, user_id LIMIT ?2",
	[ST_META_GET] = "SELECT value FROM meta WHERE name = ?1",
	[ST_META_SET] = "INSERT INTO meta (name, value) VALUES (?1, ?2)"
		" ON CONFLICT (name) DO UPDATE SET value = excluded.value",
	[ST_MOVES_GET] = "SELECT seq, actor, action, events FROM moves"
		" WHERE table_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
	/* The seed is fixed by the first write; later writes set the stake. */
	[ST_TERMS_SET] = "INSERT INTO table_terms (table_id, seed, stake) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (table_id) DO UPDATE SET stake = excluded.stake",
	[ST_TERMS_GET] = "SELECT seed, stake FROM table_terms WHERE table_id = ?1",
	/* Both rows of a movement in one statement: ?2 gives ?6 coins to ?4. */
	[ST_COINS_MOVE] = "WITH m(n) AS (SELECT coalesce(max(movement), 0) + 1 FROM ledger)"
		" INSERT INTO ledger (chat_id, movement, account, name, amount, table_id, reason, at_ms)"
		" SELECT ?1, n, ?2, ?3, -?6, ?7, ?8, ?9 FROM m"
		" UNION ALL SELECT ?1, n, ?4, ?5, ?6, ?7, ?8, ?9 FROM m",
	[ST_COINS_BALANCE] = "SELECT coalesce(sum(amount), 0), count(*) FROM ledger"
		" WHERE chat_id = ?1 AND account = ?2",
	/* Each account's latest name (the row with the highest id names it). */
	[ST_COINS_TOP] = "SELECT account, (SELECT name FROM ledger AS n WHERE n.chat_id = l.chat_id"
		" AND n.account = l.account ORDER BY n.id DESC LIMIT 1), sum(amount) AS b"
		" FROM ledger AS l WHERE chat_id = ?1 AND substr(account, 1, length(?2)) = ?2"
		" GROUP BY account ORDER BY b DESC, account LIMIT ?3",
	/* ?1 = 0: every chat. */
	[ST_AUDIT_TOTALS] = "SELECT chat_id, sum(amount) FROM ledger WHERE ?1 = 0 OR chat_id = ?1"
		" GROUP BY chat_id HAVING sum(amount) <> 0 LIMIT 1",
	[ST_AUDIT_MOVEMENTS] = "SELECT movement FROM ledger WHERE ?1 = 0 OR chat_id = ?1"
		" GROUP BY movement HAVING count(*) <> 2 OR sum(amount) <> 0 OR min(amount) >= 0"
		" OR count(DISTINCT chat_id) <> 1 OR count(DISTINCT table_id) <> 1"
		" OR count(DISTINCT reason) <> 1 OR count(DISTINCT at_ms) <> 1"
		" OR count(DISTINCT account) <> 2 OR max(id) - min(id) <> 1 LIMIT 1",
	[ST_AUDIT_NEGATIVE] = "SELECT account, sum(amount) FROM ledger WHERE (?1 = 0 OR chat_id = ?1)"
		" AND account <> 'bank' GROUP BY chat_id, account HAVING sum(amount) < 0 LIMIT 1",
	/* A pot holds coins only while its table is being played. */
	[ST_AUDIT_POTS] = "SELECT l.account, sum(l.amount) FROM ledger AS l WHERE (?1 = 0 OR l.chat_id = ?1)"
		" AND l.account LIKE 'pot:%' GROUP BY l.chat_id, l.account HAVING sum(l.amount) <> 0"
		" AND NOT EXISTS (SELECT 1 FROM tables AS t WHERE 'pot:' || t.id = l.account"
		" AND t.chat_id = l.chat_id AND t.status = 1) LIMIT 1",
	/* Grants come from the chat's bank, and only grants move the bank's coins. */
	[ST_AUDIT_GRANTS] = "SELECT movement FROM ledger WHERE (?1 = 0 OR chat_id = ?1)"
		" AND ((reason = 'grant' AND amount < 0 AND account <> 'bank')"
		" OR (account = 'bank' AND reason <> 'grant')) LIMIT 1",
};

struct store_backend {
	sqlite3 *db;                   /* owned; closed by sq_free() */
	sqlite3_stmt *stmt[ST_COUNT];  /* owned; prepared at open, finalized by sq_free() */
	int locked;                    /* holds the process's writer lock (see writer_lock) */
	int reading;                   /* inside store_read_begin()'s snapshot */
};

/*
 * Writers of one process queue on a mutex before SQLite's own lock. SQLite
 * makes a writer that finds the database locked sleep and poll (1, 2, 5,
 * 10 ms ...), so threads of one process handing the write lock to each
 * other would spend most of their time asleep; a mutex wakes the next one
 * the moment the last one commits. Other processes still meet SQLite's
 * lock and its busy timeout. Recursive, so one thread holding a
 * transaction on one handle and trying another handle meets SQLite's
 * busy answer as before instead of waiting on itself.
 */
static pthread_mutex_t writer_lock;

/*
 * Checkpoints: by default SQLite copies the write-ahead log back into the
 * database inside whichever commit makes the log pass 1,000 pages, and
 * that commit (with every writer queued behind it) waits for the copy.
 * A service turns this off for the handles it opens from then on and
 * calls store_checkpoint() from a background thread instead.
 */
static atomic_int background_checkpoints;
static pthread_once_t writer_once = PTHREAD_ONCE_INIT;

/*
 * The log is worth copying back once it holds this many pages (4 KiB
 * each): every commit of a handle with background checkpoints tells the
 * checkpointer (store_checkpointer_start()) when it is, so under load the
 * log is copied as often as it fills rather than on a fixed clock.
 */
#define CHECKPOINT_PAGES 2000

/*
 * How long a checkpoint that restarts the log waits for readers still in
 * its old part (this process's writers wait as long): a command's reads
 * take a few milliseconds. A reader that stays longer (a backup, a person
 * at the sqlite3 shell) makes it give up, and the checkpointer then
 * sleeps RESTART_PAUSE_MS before its next try, so writers are never held
 * up for long.
 */
#define RESTART_WAIT_MS 20
#define RESTART_PAUSE_MS 2000

static pthread_mutex_t checkpoint_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t checkpoint_cond = PTHREAD_COND_INITIALIZER;
static int checkpoint_wanted;
static int restart_refused;      /* a reader made the last restart give up */
static unsigned wake_calls;      /* sq_checkpoint_wake()s so far */

static int log_grew(void *arg, sqlite3 *db, const char *name, int pages);

static void writer_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&writer_lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void writer_acquire(struct store_backend *s)
{
	pthread_once(&writer_once, writer_init);
	pthread_mutex_lock(&writer_lock);
	s->locked++;
}

static void writer_release(struct store_backend *s)
{
	if (!s->locked)
		return;
	s->locked--;
	pthread_mutex_unlock(&writer_lock);
}

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

/* uint64_t <-> SQLite's signed 64-bit integer, bit for bit. */
static sqlite3_int64 u64_to_i64(uint64_t v)
{
	sqlite3_int64 r;

	memcpy(&r, &v, sizeof r);
	return r;
}

static uint64_t i64_to_u64(sqlite3_int64 v)
{
	uint64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

static int bind_text(sqlite3_stmt *st, int i, const char *text)
{
	return sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT);
}

/* Bind a display name cut to what a name buffer holds. */
static int bind_name(sqlite3_stmt *st, int i, const char *name)
{
	size_t len = utf8_cut(name, strlen(name), STORE_NAME_LEN - 1);

	return sqlite3_bind_text(st, i, name, (int)len, SQLITE_TRANSIENT);
}

/* Column col as an int, clamped (sums over many games could exceed it). */
static int col_int(sqlite3_stmt *st, int col)
{
	sqlite3_int64 v = sqlite3_column_int64(st, col);

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
static int copy_col(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
	int null = sqlite3_column_type(st, col) == SQLITE_NULL;
	const char *text = (const char *)sqlite3_column_text(st, col);
	size_t len = 0;
	int rc = GB_OK;

	dst[0] = '\0';
	if (!text) {
		rc = null ? GB_OK : GB_ENOMEM;
		goto out;
	}
	len = strnlen(text, (size_t)sqlite3_column_bytes(st, col));
	len = utf8_cut(text, len, cap - 1);
	memcpy(dst, text, len);
	dst[len] = '\0';
out:
	return rc;
}

/* *dst = a malloc'd copy of text column col (caller owns it), NULL for NULL. */
static int dup_col(char **dst, sqlite3_stmt *st, int col)
{
	int null = sqlite3_column_type(st, col) == SQLITE_NULL;
	const char *text = (const char *)sqlite3_column_text(st, col);
	size_t len;
	int rc = GB_OK;

	*dst = NULL;
	if (!text) {
		rc = null ? GB_OK : GB_ENOMEM;
		goto out;
	}
	len = (size_t)sqlite3_column_bytes(st, col);
	*dst = malloc(len + 1);
	if (!*dst) {
		rc = GB_ENOMEM;
		goto out;
	}
	memcpy(*dst, text, len);
	(*dst)[len] = '\0';
out:
	return rc;
}

/*
 * The cached statement id, ready for binding. It must go back through
 * stmt_done() before the calling function returns.
 */
static void read_end(struct store_backend *s);

static int stmt_get(struct store_backend *s, enum stmt id, sqlite3_stmt **st)
{
	int src;
	int rc = GB_OK;

	*st = NULL;
	if (!s->stmt[id]) {
		src = sqlite3_prepare_v3(s->db, sql_text[id], -1, SQLITE_PREPARE_PERSISTENT,
					 &s->stmt[id], NULL);
		if (src != SQLITE_OK) {
			rc = err_of(src);
			goto out;
		}
	}
	/* a write inside a read snapshot ends it first: it writes as it would have without one */
	if (s->reading && !sqlite3_stmt_readonly(s->stmt[id]))
		read_end(s);
	*st = s->stmt[id];
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
static int run(struct store_backend *s, enum stmt id)
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
	if (*outer)
		writer_acquire(s);
	rc = run(s, ST_SAVEPOINT);
	if (rc && *outer)
		writer_release(s);
	return rc;
}

/* End the savepoint: keep its work when rc is GB_OK, else undo it. Returns rc or a commit error. */
static int sp_end(struct store_backend *s, int outer, int rc)
{
	if (rc)
		run(s, ST_ROLLBACK_TO);
	if (run(s, ST_RELEASE) != GB_OK) {
		/* Only an outermost RELEASE commits, so only it can fail: do not
		 * leave the handle inside a transaction nobody will end. */
		if (outer && !sqlite3_get_autocommit(s->db))
			run(s, ST_ROLLBACK);
		if (!rc)
			rc = GB_ESTORE;
	}
	if (outer)
		writer_release(s);
	return rc;
}

/* ---- open, close, transactions ---- */

/*
 * One folder, made 0700 whatever the umask (which may take bits away but
 * leave the owner unable to enter it); a folder already there is left as
 * it is (it may be /tmp or the operator's own).
 */
static int make_dir(const char *dir)
{
	int rc = GB_OK;

	if (mkdir(dir, 0700) == 0)
		rc = chmod(dir, 0700) == 0 ? GB_OK : GB_EIO;
	else if (errno != EEXIST)
		rc = GB_EIO;
	return rc;
}

/*
 * Create the folder that will hold path, with its parents (mkdir -p). The
 * folders are private (0700): the database holds hidden card hands.
 */
static int make_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	struct stat sb;
	int rc = GB_OK;

	if (!slash || slash == path)
		goto out; /* the current folder or the root */
	dir = strndup(path, (size_t)(slash - path));
	if (!dir) {
		rc = GB_ENOMEM;
		goto out;
	}
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		rc = make_dir(dir);
		if (rc)
			goto out;
		*p = '/';
	}
	rc = make_dir(dir);
	if (rc)
		goto out;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		rc = GB_EIO;
out:
	free(dir);
	return rc;
}

/*
 * The database file itself, private: made here 0600 whatever the umask
 * before SQLite opens it (SQLite would make it 0644), and SQLite gives its
 * write-ahead log and shared-memory index the file's own mode. The file
 * holds unrevealed seeds, every hand and interaction tokens. A file
 * already there keeps its mode (the operator's choice), but one others
 * may read is named once per process in a warning line.
 */
static atomic_flag wide_warned = ATOMIC_FLAG_INIT;

static void make_private_file(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode) && (st.st_mode & 077) && !atomic_flag_test_and_set(&wide_warned)) {
			char message[STORE_WARNING_LEN];

			snprintf(message, sizeof(message),
				 "the database file %s is mode %04o: others on this machine may read its "
				 "hands and seeds (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
			store_warn(message);
		}
	} else if (errno == ENOENT) {
		/* (anything else, SQLite's own open says what is wrong) */
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		/* the umask may have taken the owner's bits; it never adds others'. A
		 * file made meanwhile by another process is that process's to make. */
		if (fd >= 0) {
			(void)fchmod(fd, 0600);
			close(fd);
		}
	}
}

static int user_version(struct store_backend *s, int *version)
{
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = stmt_get(s, ST_USER_VERSION, &st);

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

/* Bring the schema to SCHEMA_VERSION; an up-to-date file is only read. */
static int migrate(struct store_backend *s)
{
	int version = 0;
	int in_tx = 0;
	int rc = user_version(s, &version);

	if (rc || version == SCHEMA_VERSION)
		goto out;
	rc = run(s, ST_BEGIN);
	if (rc)
		goto out;
	in_tx = 1;
	/* Another process may have migrated while we waited for the lock. */
	rc = user_version(s, &version);
	if (rc)
		goto out;
	if (version < 0 || version > SCHEMA_VERSION) {
		rc = GB_ESTORE; /* written by a newer gamebot */
		goto out;
	}
	for (; version < SCHEMA_VERSION; version++) {
		int now = 0;

		if (sqlite3_exec(s->db, migrations[version], NULL, NULL, NULL) != SQLITE_OK) {
			rc = GB_ESTORE;
			goto out;
		}
		rc = user_version(s, &now);
		if (rc)
			goto out;
		assert(now == version + 1 && "a migration must set its own user_version");
	}
	rc = run(s, ST_COMMIT);
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
	int src;
	int rc = GB_OK;

	pthread_once(&sqlite_once, sqlite_setup);
	if (!handle || !path || !path[0]) {
		rc = GB_EARGS;
		goto out;
	}
	*handle = NULL;
	rc = make_parent(path);
	if (rc)
		goto out;
	make_private_file(path);
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
	writer_acquire(s);
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
		writer_release(s);
		rc = err_of(src);
		goto out;
	}
	rc = migrate(s);
	writer_release(s);
	if (rc)
		goto out;
	/* constant text; the checkpoints are then store_checkpoint()'s, off the command path */
	if (atomic_load(&background_checkpoints)) {
		if (sqlite3_exec(s->db, "PRAGMA wal_autocheckpoint = 0;", NULL, NULL, NULL) != SQLITE_OK) {
			rc = GB_ESTORE;
			goto out;
		}
		sqlite3_wal_hook(s->db, log_grew, NULL);
	}
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_stmt *st = NULL;

		rc = stmt_get(s, (enum stmt)i, &st);
		if (rc)
			goto out;
	}
	*handle = s;
	s = NULL;
out:
	sq_free(s);
	return rc;
}

static void sq_background_checkpoints(int on)
{
	atomic_store(&background_checkpoints, on);
}

/* After each commit of a handle with background checkpoints: wake the checkpointer when the log is full. */
static int log_grew(void *arg, sqlite3 *db, const char *name, int pages)
{
	(void)arg;
	(void)db;
	(void)name;
	if (pages >= CHECKPOINT_PAGES && !__atomic_load_n(&checkpoint_wanted, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&checkpoint_lock);
		checkpoint_wanted = 1;
		pthread_cond_signal(&checkpoint_cond);
		pthread_mutex_unlock(&checkpoint_lock);
	}
	return SQLITE_OK;
}

/* *until = ms from now on the realtime clock, for pthread_cond_timedwait(). */
static void deadline_in(struct timespec *until, int ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

/*
 * Until a commit has filled the log (1), timeout_ms passes or
 * sq_checkpoint_wake() is called (0); after a refused restart, until
 * RESTART_PAUSE_MS passes or a wake-up.
 */
static int sq_checkpoint_wait(int timeout_ms)
{
	struct timespec until;
	int wanted;

	pthread_mutex_lock(&checkpoint_lock);
	if (restart_refused) {
		/* a long reader refused the last restart: leave the writers be for a while */
		unsigned calls = wake_calls;

		restart_refused = 0;
		deadline_in(&until, RESTART_PAUSE_MS);
		while (calls == wake_calls &&
		       pthread_cond_timedwait(&checkpoint_cond, &checkpoint_lock, &until) == 0)
			;
	} else if (!checkpoint_wanted) {
		deadline_in(&until, timeout_ms);
		pthread_cond_timedwait(&checkpoint_cond, &checkpoint_lock, &until);
	}
	wanted = checkpoint_wanted;
	checkpoint_wanted = 0;
	pthread_mutex_unlock(&checkpoint_lock);
	return wanted;
}

static void sq_checkpoint_wake(void)
{
	pthread_mutex_lock(&checkpoint_lock);
	wake_calls++;
	pthread_cond_broadcast(&checkpoint_cond);
	pthread_mutex_unlock(&checkpoint_lock);
}

static int sq_checkpoint(struct store_backend *s, int *log_pages, int *copied)
{
	int log = 0, done = 0, src;

	if (!s)
		return GB_EARGS;
	/* PASSIVE: copies what it can without waiting for (or blocking) readers and writers */
	src = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
	/*
	 * Only a writer that finds the whole log copied and no reader in it
	 * starts the log again from its beginning; under steady load some
	 * reader always is, and the log would grow without end (every page
	 * written to new space in the file, every read searching more).
	 * RESTART copies the rest and waits for those readers, while this
	 * process's writers wait on their mutex: the next commit then writes
	 * at the start of the file.
	 */
	if (src == SQLITE_OK && log >= CHECKPOINT_PAGES) {
		writer_acquire(s);
		sqlite3_busy_timeout(s->db, RESTART_WAIT_MS);
		src = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_RESTART, &log, &done);
		sqlite3_busy_timeout(s->db, busy_timeout_ms);
		writer_release(s);
		if ((src & 0xff) == SQLITE_BUSY) {
			pthread_mutex_lock(&checkpoint_lock);
			restart_refused = 1;
			pthread_mutex_unlock(&checkpoint_lock);
		}
	}
	if (log_pages)
		*log_pages = log;
	if (copied)
		*copied = done;
	return src == SQLITE_OK || (src & 0xff) == SQLITE_BUSY ? GB_OK : err_of(src);
}

static void sq_free(struct store_backend *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->stmt[i]);
	/* Rolls back a transaction left open. */
	sqlite3_close_v2(s->db);
	while (s->locked)
		writer_release(s);
	free(s);
}

static int sq_ping(struct store_backend *s)
{
	int version = 0;
	int rc = GB_OK;

	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	/* Reads the file header: proves the file is there and readable. */
	rc = user_version(s, &version);
out:
	return rc;
}

/* The version, or -1 when s is NULL or the file cannot be read. */
static int sq_schema_version(struct store_backend *s)
{
	int version = -1;

	if (s && user_version(s, &version) != GB_OK)
		version = -1;
	return version;
}

void store_busy_timeout_set(int ms)
{
	busy_timeout_ms = ms < 0 ? 0 : ms;
}

static int sq_begin(struct store_backend *s)
{
	int rc;

	if (!s)
		return GB_EARGS;
	read_end(s);
	writer_acquire(s);
	rc = run(s, ST_BEGIN);
	if (rc)
		writer_release(s);
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

	if (!s)
		return GB_EARGS;
	if (s->reading || !sqlite3_get_autocommit(s->db))
		return GB_OK;
	rc = run(s, ST_BEGIN_READ);
	if (!rc)
		s->reading = 1;
	return rc;
}

static void read_end(struct store_backend *s)
{
	if (!s || !s->reading)
		return;
	s->reading = 0;
	if (!sqlite3_get_autocommit(s->db) && run(s, ST_COMMIT))
		run(s, ST_ROLLBACK);
}

/* On an error the transaction may still be open: call sq_rollback(). */
static int sq_commit(struct store_backend *s)
{
	int rc;

	if (!s)
		return GB_EARGS;
	rc = run(s, ST_COMMIT);
	if (!rc || sqlite3_get_autocommit(s->db))
		writer_release(s);
	return rc;
}

static int sq_unit_begin(struct store_backend *s)
{
	if (!s || sqlite3_get_autocommit(s->db))
		return GB_EARGS; /* only inside a transaction */
	return run(s, ST_UNIT_BEGIN);
}

static int sq_unit_end(struct store_backend *s, int ok)
{
	int rc = GB_OK;

	if (!s)
		return GB_EARGS;
	/* a failed I/O or a full disk can end the whole transaction under us */
	if (sqlite3_get_autocommit(s->db))
		return GB_ESTORE;
	if (!ok)
		rc = run(s, ST_UNIT_UNDO);
	if (!rc)
		rc = run(s, ST_UNIT_RELEASE);
	if (!rc && sqlite3_get_autocommit(s->db))
		rc = GB_ESTORE;
	return rc;
}

static void sq_rollback(struct store_backend *s)
{
	if (!s)
		return;
	s->reading = 0;
	if (!sqlite3_get_autocommit(s->db))
		run(s, ST_ROLLBACK);
	writer_release(s);
}

static int sq_was_processed(struct store_backend *s, const char *platform, const char *update_id)
{
	sqlite3_stmt *st = NULL;
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

static int sq_mark_processed(struct store_backend *s, const char *platform, const char *update_id)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !id_ok(platform, CAP(store_chat, platform)) || !update_id || !update_id[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_PROCESSED_ADD, &st);
	if (rc)
		goto out;
	rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, update_id));
	if (rc)
		goto out;
	/* A failed INSERT undoes only itself: the transaction stays usable. */
	rc = step_done(st);
	if (rc == GB_EEXISTS)
		rc = GB_EDUP;
out:
	stmt_done(st);
	return rc;
}

/*
 * processed.at is epoch seconds: a record of second S was made before
 * before_ms for sure only if (S + 1) * 1000 <= before_ms, that is when
 * S < floor(before_ms / 1000).
 */
static int sq_processed_prune(struct store_backend *s, int64_t before_ms, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, before_s));
	if (!rc)
		rc = step_done(st);
	if (!rc)
		*n = sqlite3_changes(s->db);
out:
	stmt_done(st);
	return rc;
}

/* ---- chats ---- */


/*
 * Step st (a chat SELECT, bound by the caller) and read its row into c;
 * *found says whether there was one. On an error c is left zeroed.
 */
static int chat_read(sqlite3_stmt *st, struct store_chat *c, int *found)
{
	int rc = step(st, found);

	if (rc || !*found)
		goto out;
	c->id = sqlite3_column_int64(st, 0);
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
	sqlite3_stmt *st = NULL;
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
static int sq_chat_get(struct store_backend *s, const char *platform, const char *chat,
		   const char *default_lang, struct store_chat *c)
{
	sqlite3_stmt *st = NULL;
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

static int sq_chat_get_by_id(struct store_backend *s, int64_t id, struct store_chat *c)
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	int rc = GB_OK;

	if (c)
		memset(c, 0, sizeof *c);
	if (!s || !c) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_CHAT_BY_ID, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, id));
	if (!rc)
		rc = chat_read(st, c, &found);
	if (!rc && !found)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* GB_ENOTFOUND if there is no chat c->id. A NULL settings is saved as "{}". */
static int sq_chat_save(struct store_backend *s, const struct store_chat *c)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 3, c->id));
	if (!rc)
		rc = step_done(st);
	if (!rc && sqlite3_changes(s->db) == 0)
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
	sqlite3_stmt *st = NULL;
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
		*changes = sqlite3_changes(s->db);
	stmt_done(st);
	return rc;
}

/*
 * In a savepoint, writes first (so an autocommit call takes the write lock
 * before it reads anything): drop an empty `to`, rename `from` (a `to` still
 * there is a unique violation, GB_EEXISTS), move the pending outbox rows.
 */
static int sq_chat_move(struct store_backend *s, const char *platform, const char *from, const char *to)
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
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, key));
	if (!rc)
		rc = step(st, &row);
	if (rc)
		goto out;
	if (!row) {
		rc = GB_ENOTFOUND;
		goto out;
	}
	t->id = sqlite3_column_int64(st, 0);
	t->chat = sqlite3_column_int64(st, 1);
	t->status = sqlite3_column_int(st, 3);
	t->version = sqlite3_column_int64(st, 4);
	t->seed = i64_to_u64(sqlite3_column_int64(st, 5));
	t->turn_started_ms = sqlite3_column_int64(st, 8);
	t->watch = sqlite3_column_int(st, 11) != 0;
	t->created_ms = sqlite3_column_int64(st, 12);
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

static int sq_table_open_get(struct store_backend *s, int64_t chat, struct store_table *t)
{
	return table_read(s, ST_TABLE_OPEN_GET, chat, t);
}

static int sq_table_get(struct store_backend *s, int64_t id, struct store_table *t)
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
 */
static int sq_table_insert(struct store_backend *s, struct store_table *t)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !table_ok(t) || !id_ok(t->game, sizeof t->game) ||
	    !fits(t->creator, sizeof t->creator) || !fits(t->message, sizeof t->message)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLE_INSERT, &st);
	if (rc)
		goto out;
	rc = bound(sqlite3_bind_int64(st, 1, t->chat));
	if (!rc)
		rc = bound(bind_text(st, 2, t->game));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, t->status));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 4, u64_to_i64(t->seed)));
	if (!rc)
		rc = bound(bind_text(st, 5, t->creator));
	if (!rc)
		rc = bound(bind_text(st, 6, t->message));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 7, t->turn_started_ms));
	if (!rc)
		rc = bound(bind_text(st, 8, t->rules ? t->rules : "{}"));
	if (!rc)
		rc = bound(t->state ? bind_text(st, 9, t->state) : sqlite3_bind_null(st, 9));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 10, t->watch != 0));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 11, t->created_ms));
	if (!rc)
		rc = step_done(st);
	if (rc)
		goto out;
	t->id = sqlite3_last_insert_rowid(s->db);
	t->version = 1;
out:
	stmt_done(st);
	return rc;
}

/*
 * Compare-and-swap on t->version. GB_ECONFLICT also when table t->id does
 * not exist (any more): either way t is stale. GB_EEXISTS when reopening a
 * finished table would give its chat two open tables.
 */
static int sq_table_update(struct store_backend *s, struct store_table *t)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !table_ok(t)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLE_UPDATE, &st);
	if (rc)
		goto out;
	rc = bound(sqlite3_bind_int(st, 1, t->status));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 2, t->turn_started_ms));
	if (!rc)
		rc = bound(bind_text(st, 3, t->rules ? t->rules : "{}"));
	if (!rc)
		rc = bound(t->state ? bind_text(st, 4, t->state) : sqlite3_bind_null(st, 4));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 5, t->id));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 6, t->version));
	if (!rc)
		rc = step_done(st);
	if (rc)
		goto out;
	if (sqlite3_changes(s->db) == 0) {
		rc = GB_ECONFLICT;
		goto out;
	}
	t->version++;
out:
	stmt_done(st);
	return rc;
}

static int sq_table_set_message(struct store_backend *s, int64_t table, const char *message)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !fits(message, CAP(store_table, message))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TABLE_SET_MESSAGE, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, message));
	if (!rc)
		rc = step_done(st);
	if (!rc && sqlite3_changes(s->db) == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

static int sq_tables_count(struct store_backend *s, int64_t chat, int64_t since_ms, int open_only,
		       int watch_only, int *n)
{
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s || !n) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, chat ? ST_TABLES_COUNT : ST_TABLES_COUNT_ALL, &st);
	if (!rc && chat)
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 2, since_ms ? since_ms : INT64_MIN));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, open_only != 0));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 4, watch_only != 0));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row)
		*n = col_int(st, 0);
out:
	stmt_done(st);
	return rc;
}

static int sq_tables_of_user(struct store_backend *s, const char *platform, const char *user, int64_t *out,
			int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int(st, 3, max));
	while (!rc && count < max) {
		rc = step(st, &row);
		if (rc || !row)
			break;
		out[count++] = sqlite3_column_int64(st, 0);
	}
	if (!rc)
		*n = count;
out:
	stmt_done(st);
	return rc;
}

/* ---- seats ---- */

static int sq_seats_get(struct store_backend *s, int64_t table, struct store_seat *seats, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 2, max));
	while (!rc && count < max) {
		struct store_seat *seat = &seats[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		seat->seat = sqlite3_column_int(st, 0);
		seat->level = sqlite3_column_int(st, 3);
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
static int sq_seats_set(struct store_backend *s, int64_t table, const struct store_seat *seats, int n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	st = NULL;
	if (rc)
		goto out;
	rc = stmt_get(s, ST_SEAT_ADD, &st);
	for (int i = 0; !rc && i < n; i++) {
		rc = bound(sqlite3_bind_int64(st, 1, table));
		if (!rc)
			rc = bound(sqlite3_bind_int(st, 2, seats[i].seat));
		if (!rc)
			rc = bound(bind_text(st, 3, seats[i].user));
		if (!rc)
			rc = bound(bind_name(st, 4, seats[i].name));
		if (!rc)
			rc = bound(sqlite3_bind_int(st, 5, seats[i].level));
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
static int sq_move_append(struct store_backend *s, int64_t table, int seq, const char *actor,
		      const char *action, const char *events_json)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || seq <= 0 || !actor || !action || !action[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_MOVE_ADD, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 2, seq));
	if (!rc)
		rc = bound(bind_text(st, 3, actor));
	if (!rc)
		rc = bound(bind_text(st, 4, action));
	if (!rc)
		rc = bound(bind_text(st, 5, events_json ? events_json : "[]"));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

/* The number statement id (count or last) gives for table's moves. */
static int moves_number(struct store_backend *s, enum stmt id, int64_t table, int *count)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row)
		*count = col_int(st, 0);
out:
	stmt_done(st);
	return rc;
}

static int sq_move_count(struct store_backend *s, int64_t table, int *count)
{
	return moves_number(s, ST_MOVE_COUNT, table, count);
}

static int sq_move_last(struct store_backend *s, int64_t table, int *seq)
{
	return moves_number(s, ST_MOVE_LAST, table, seq);
}

/* ---- outbox ---- */


/* Read a row of OUT_COLS into o (zeroed by the caller). */
static int out_read(sqlite3_stmt *st, struct store_out *o)
{
	int rc;

	o->id = sqlite3_column_int64(st, 0);
	o->attempts = col_int(st, 4);
	o->due_ms = sqlite3_column_int64(st, 5);
	o->table = sqlite3_column_int64(st, 6);
	o->lease_until_ms = sqlite3_column_int64(st, 8);
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
 * outs (zeroed by the caller); *count = the rows read. Steps past max too,
 * so a write with RETURNING runs to completion. On an error the rows read
 * are released and outs zeroed again.
 */
static int out_rows(sqlite3_stmt *st, struct store_out *outs, int max, int *count)
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
 * A non-empty key first deletes the rows it replaces, in the same
 * savepoint as the insert.
 */
/* Run id (ST_OUT_ADD or ST_OUT_REPLACE), which take a row's fields in this order. */
static int out_write(struct store_backend *s, enum stmt id, const char *platform, const char *chat,
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

/*
 * When a new row of key for chat, due at *due_ms, may go (see
 * store_out_add()): not before the chat's rows that wait (a retry-after),
 * and at the due time of the oldest row it replaces; *place: the queue
 * place of the oldest pending row of its key, claimed or not (a board
 * superseded while it is being sent hands its place on), 0 none.
 */
static int out_place(struct store_backend *s, const char *platform, const char *chat, const char *key,
		     int64_t *due_ms, int64_t *place)
{
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = stmt_get(s, ST_OUT_PLACE, &st);

	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(bind_text(st, 3, key));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 4, *due_ms));
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

static int sq_out_add(struct store_backend *s, const char *platform, const char *chat, int64_t table,
		  const char *key, const char *payload, int64_t due_ms, int prio)
{
	sqlite3_stmt *st = NULL;
	int outer = 0;
	int in_sp = 0;
	int64_t at = due_ms;           /* when the new row may go */
	int64_t place = 0;
	int rc = GB_OK;

	if (!key)
		key = "";
	if (!s || !id_ok(platform, CAP(store_out, platform)) || !id_ok(chat, CAP(store_out, chat)) ||
	    !fits(key, CAP(store_out, key)) || !payload || !payload[0]) {
		rc = GB_EARGS;
		goto out;
	}
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = out_place(s, platform, chat, key, &at, &place);
	if (rc)
		goto out;
	if (key[0]) {
		/* most often the row to replace is the chat's last and still unsent: rewrite it */
		rc = out_write(s, ST_OUT_REPLACE, platform, chat, payload, at, table, key, prio, place);
		if (rc || sqlite3_changes(s->db) == 1)
			goto out;
		rc = stmt_get(s, ST_OUT_COALESCE, &st);
		if (!rc)
			rc = bound(bind_text(st, 1, platform));
		if (!rc)
			rc = bound(bind_text(st, 2, chat));
		if (!rc)
			rc = bound(bind_text(st, 3, key));
		if (!rc)
			rc = bound(sqlite3_bind_int64(st, 4, due_ms));
		if (!rc)
			rc = step_done(st);
		stmt_done(st);
		st = NULL;
		if (rc)
			goto out;
	}
	rc = out_write(s, ST_OUT_ADD, platform, chat, payload, at, table, key, prio, place);
out:
	stmt_done(st);
	if (in_sp)
		rc = sp_end(s, outer, rc);
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
 * One UPDATE ... RETURNING picks and leases the rows: being a write from
 * its first step, it takes the write lock before reading, so two workers
 * never claim the same row. The savepoint undoes the leases if the rows
 * cannot be read back (a leased row nobody got would wait out its lease).
 */
static int sq_out_claim(struct store_backend *s, const char *platform, int64_t now_ms, int64_t lease_ms,
		    struct store_out *outs, int max, int *n)
{
	sqlite3_stmt *st = NULL;
	int outer = 0;
	int in_sp = 0;
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
	rc = sp_begin(s, &outer);
	if (rc)
		goto out;
	in_sp = 1;
	rc = stmt_get(s, ST_OUT_CLAIM, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 2, now_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 3, now_ms + lease_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 4, max));
	if (!rc)
		rc = out_rows(st, outs, max, &count);
out:
	/* reset before the savepoint ends: a pending write blocks a commit */
	stmt_done(st);
	if (in_sp)
		rc = sp_end(s, outer, rc);
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
static int sq_out_due(struct store_backend *s, const char *platform, int64_t now_ms,
		  struct store_out *outs, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 2, now_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, max));
	if (!rc)
		rc = out_rows(st, outs, max, &count);
	if (!rc)
		*n = count;
out:
	stmt_done(st);
	return rc;
}

static int sq_out_chat(struct store_backend *s, const char *platform, const char *chat,
		       struct store_out *outs, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
	rc = stmt_get(s, ST_OUT_CHAT, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, max));
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
	sqlite3_stmt *st = NULL;
	int rc = stmt_get(s, which, &st);

	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, id));
	if (!rc && v2)
		rc = bound(sqlite3_bind_int64(st, 2, *v2));
	if (!rc && v3)
		rc = bound(sqlite3_bind_int(st, 3, *v3));
	if (!rc)
		rc = step_done(st);
	if (!rc && sqlite3_changes(s->db) == 0)
		rc = GB_ENOTFOUND;
	stmt_done(st);
	return rc;
}

/* GB_ENOTFOUND if there is no message id. A row set aside is removed too. */
static int sq_out_done(struct store_backend *s, int64_t id)
{
	return s ? out_change(s, ST_OUT_DONE, id, NULL, NULL) : GB_EARGS;
}

static int sq_out_retry(struct store_backend *s, int64_t id, int64_t due_ms, int count_attempt)
{
	int attempt = count_attempt != 0;

	return s ? out_change(s, ST_OUT_RETRY, id, &due_ms, &attempt) : GB_EARGS;
}

static int sq_out_set_aside(struct store_backend *s, int64_t id, const char *why)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_ASIDE, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, id));
	if (!rc)
		rc = bound(bind_text(st, 2, why ? why : ""));
	if (!rc)
		rc = step_done(st);
	if (!rc && sqlite3_changes(s->db) == 0)
		rc = GB_ENOTFOUND;
out:
	stmt_done(st);
	return rc;
}

/* Rows claimed now are delayed too: they matter again only if retried. */
static int sq_out_delay(struct store_backend *s, const char *platform, const char *chat, int64_t until_ms)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !id_ok(platform, CAP(store_out, platform)) ||
	    (chat && !id_ok(chat, CAP(store_out, chat)))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, chat ? ST_OUT_DELAY : ST_OUT_DELAY_ALL, &st);
	if (!rc)
		rc = bound(bind_text(st, 1, platform));
	if (!rc && chat)
		rc = bound(bind_text(st, 2, chat));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, chat ? 3 : 2, until_ms));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int sq_out_unlease(struct store_backend *s, int64_t now_ms, int *n)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (n)
		*n = 0;
	if (!s) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_OUT_UNLEASE, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, now_ms));
	if (!rc)
		rc = step_done(st);
	if (!rc && n)
		*n = sqlite3_changes(s->db);
out:
	stmt_done(st);
	return rc;
}

static int sq_out_count(struct store_backend *s, const char *platform, int *pending, int *aside,
		    int64_t *oldest_due_ms)
{
	sqlite3_stmt *st = NULL;
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
	rc = stmt_get(s, platform ? ST_OUT_COUNT : ST_OUT_COUNT_ALL, &st);
	if (!rc && platform)
		rc = bound(bind_text(st, 1, platform));
	if (!rc)
		rc = step(st, &row);
	if (rc || !row)
		goto out;
	/* sum() and min() of no rows are NULL, read as 0 */
	if (pending)
		*pending = col_int(st, 0);
	if (aside)
		*aside = col_int(st, 1);
	if (oldest_due_ms)
		*oldest_due_ms = sqlite3_column_int64(st, 2);
out:
	stmt_done(st);
	return rc;
}

/* ---- timers ---- */

/* GB_ENOTFOUND if the table does not exist. */
static int sq_timer_set(struct store_backend *s, const struct store_timer *t)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !id_ok(t->kind, sizeof t->kind)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_SET, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, t->table));
	if (!rc)
		rc = bound(bind_text(st, 2, t->kind));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 3, t->due_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 4, t->version));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

/* Stepped to its end so the RETURNING write completes before the reset. */
static int sq_timer_retry(struct store_backend *s, int64_t table, const char *kind, int64_t due_ms,
		      int *attempts)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, kind));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 3, due_ms));
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
static int sq_timer_clear(struct store_backend *s, int64_t table, const char *kind)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || (kind && !id_ok(kind, CAP(store_timer, kind)))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, kind ? ST_TIMER_CLEAR : ST_TIMER_CLEAR_ALL, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc && kind)
		rc = bound(bind_text(st, 2, kind));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int sq_tables_open_by_game(struct store_backend *s, struct store_game_count *out, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int(st, 1, max));
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

static int sq_timer_drop(struct store_backend *s, int64_t table, const char *kind, int64_t version)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !kind || !id_ok(kind, CAP(store_timer, kind))) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TIMER_DROP, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, kind));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 3, version));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int timer_read(sqlite3_stmt *st, struct store_timer *t)
{
	t->table = sqlite3_column_int64(st, 0);
	t->due_ms = sqlite3_column_int64(st, 2);
	t->version = sqlite3_column_int64(st, 3);
	t->attempts = col_int(st, 4);
	return copy_col(t->kind, sizeof t->kind, st, 1);
}

/* Ties on due_ms are broken by table, then kind, so the order is stable. */
static int sq_timer_due(struct store_backend *s, int64_t now_ms, struct store_timer *timers, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, now_ms));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 2, max));
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

static int sq_timer_next(struct store_backend *s, struct store_timer *t)
{
	sqlite3_stmt *st = NULL;
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
static int sq_stat_add(struct store_backend *s, int64_t chat, const char *user, const char *name,
		   const char *game, int win, int points)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, user));
	if (!rc)
		rc = bound(bind_text(st, 3, game));
	if (!rc)
		rc = bound(bind_name(st, 4, name));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 5, win != 0));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 6, points));
	if (!rc)
		rc = step_done(st);
	stmt_done(st);
	st = NULL;
	if (rc)
		goto out;
	rc = stmt_get(s, ST_STAT_NAME, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, chat));
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
static int sq_stats_get(struct store_backend *s, int64_t chat, const char *game,
		    struct store_stat *stats, int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc && game)
		rc = bound(bind_text(st, 2, game));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, game ? 3 : 2, max));
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

static int sq_meta_get(struct store_backend *s, const char *key, char *buf, size_t cap)
{
	sqlite3_stmt *st = NULL;
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
	text = (const char *)sqlite3_column_text(st, 0);
	if (!text) {
		rc = GB_ENOMEM; /* the column is NOT NULL */
		goto out;
	}
	len = (size_t)sqlite3_column_bytes(st, 0);
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

static int sq_meta_set(struct store_backend *s, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;
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


static int sq_moves_get(struct store_backend *s, int64_t table, int after_seq, struct store_move *moves,
		    int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 2, after_seq));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, max));
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

static int sq_terms_set(struct store_backend *s, int64_t table, const struct store_terms *t)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !t || !seed_hex_ok(t->seed) || t->stake < 0) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_TERMS_SET, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = bound(bind_text(st, 2, t->seed));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 3, t->stake));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int sq_terms_get(struct store_backend *s, int64_t table, struct store_terms *t)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, table));
	if (!rc)
		rc = step(st, &row);
	if (!rc && !row)
		rc = GB_ENOTFOUND;
	if (!rc)
		rc = copy_col(t->seed, sizeof t->seed, st, 0);
	if (!rc)
		t->stake = sqlite3_column_int64(st, 1);
	if (rc)
		memset(t, 0, sizeof *t);
out:
	stmt_done(st);
	return rc;
}

/* ---- coins ---- */

static int sq_coins_move(struct store_backend *s, int64_t chat, const struct store_coin_move *m)
{
	sqlite3_stmt *st = NULL;
	int rc = GB_OK;

	if (!s || !m || m->amount <= 0 || !id_ok(m->from, sizeof m->from) ||
	    !id_ok(m->to, sizeof m->to) || strcmp(m->from, m->to) == 0 ||
	    !id_ok(m->reason, sizeof m->reason)) {
		rc = GB_EARGS;
		goto out;
	}
	rc = stmt_get(s, ST_COINS_MOVE, &st);
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, m->from));
	if (!rc)
		rc = bound(bind_name(st, 3, m->from_name));
	if (!rc)
		rc = bound(bind_text(st, 4, m->to));
	if (!rc)
		rc = bound(bind_name(st, 5, m->to_name));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 6, m->amount));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 7, m->table));
	if (!rc)
		rc = bound(bind_text(st, 8, m->reason));
	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 9, m->at_ms));
	if (!rc)
		rc = step_done(st);
out:
	stmt_done(st);
	return rc;
}

static int sq_coins_balance(struct store_backend *s, int64_t chat, const char *account, int64_t *balance,
			int *rows)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, account));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row) {
		*balance = sqlite3_column_int64(st, 0);
		if (rows)
			*rows = col_int(st, 1);
	}
out:
	stmt_done(st);
	return rc;
}

static int sq_coins_top(struct store_backend *s, int64_t chat, const char *prefix, struct store_balance *out,
		    int max, int *n)
{
	sqlite3_stmt *st = NULL;
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
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = bound(bind_text(st, 2, prefix));
	if (!rc)
		rc = bound(sqlite3_bind_int(st, 3, max));
	while (!rc && count < max) {
		struct store_balance *o = &out[count];

		rc = step(st, &row);
		if (rc || !row)
			break;
		rc = copy_col(o->account, sizeof o->account, st, 0);
		if (!rc)
			rc = copy_col(o->name, sizeof o->name, st, 1);
		o->balance = sqlite3_column_int64(st, 2);
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
	sqlite3_stmt *st = NULL;
	int row = 0;
	int rc = stmt_get(s, id, &st);

	if (!rc)
		rc = bound(sqlite3_bind_int64(st, 1, chat));
	if (!rc)
		rc = step(st, &row);
	if (!rc && row) {
		rc = GB_EINVARIANT;
		if (why && cap)
			snprintf(why, cap, "%s: %s %lld", what,
				 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "",
				 sqlite3_column_count(st) > 1 ? (long long)sqlite3_column_int64(st, 1) : 0LL);
	}
	stmt_done(st);
	return rc;
}

static int sq_coins_audit(struct store_backend *s, int64_t chat, char *why, size_t cap)
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

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.one_writer = 1,
	.open = sq_open,
	.close = sq_free,
	.background_checkpoints = sq_background_checkpoints,
	.checkpoint = sq_checkpoint,
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
	.was_processed = sq_was_processed,
	.mark_processed = sq_mark_processed,
	.processed_prune = sq_processed_prune,
	.chat_get = sq_chat_get,
	.chat_get_by_id = sq_chat_get_by_id,
	.chat_save = sq_chat_save,
	.chat_move = sq_chat_move,
	.table_open_get = sq_table_open_get,
	.table_get = sq_table_get,
	.table_insert = sq_table_insert,
	.table_update = sq_table_update,
	.table_set_message = sq_table_set_message,
	.tables_count = sq_tables_count,
	.tables_of_user = sq_tables_of_user,
	.seats_get = sq_seats_get,
	.seats_set = sq_seats_set,
	.move_append = sq_move_append,
	.move_count = sq_move_count,
	.move_last = sq_move_last,
	.out_add = sq_out_add,
	.out_claim = sq_out_claim,
	.out_due = sq_out_due,
	.out_chat = sq_out_chat,
	.out_done = sq_out_done,
	.out_retry = sq_out_retry,
	.out_set_aside = sq_out_set_aside,
	.out_delay = sq_out_delay,
	.out_unlease = sq_out_unlease,
	.out_count = sq_out_count,
	.timer_set = sq_timer_set,
	.timer_retry = sq_timer_retry,
	.timer_clear = sq_timer_clear,
	.tables_open_by_game = sq_tables_open_by_game,
	.timer_drop = sq_timer_drop,
	.timer_due = sq_timer_due,
	.timer_next = sq_timer_next,
	.stat_add = sq_stat_add,
	.stats_get = sq_stats_get,
	.meta_get = sq_meta_get,
	.meta_set = sq_meta_set,
	.moves_get = sq_moves_get,
	.terms_set = sq_terms_set,
	.terms_get = sq_terms_get,
	.coins_move = sq_coins_move,
	.coins_balance = sq_coins_balance,
	.coins_top = sq_coins_top,
	.coins_audit = sq_coins_audit,
};
