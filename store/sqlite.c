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

	/* 5: what keeps a command's cost flat however many chats play and
	 * however old the file: the outbox's queue order as an index (a claim
	 * walks it and stops at its batch instead of sorting every row due),
	 * rows set aside by age and a person's seats (pruning, inline mode) */
	"CREATE INDEX outbox_queue ON outbox(platform, ifnull(place, id)) WHERE aside_ms IS NULL;"
	"CREATE INDEX outbox_aside ON outbox(aside_ms) WHERE aside_ms IS NOT NULL;"
	"CREATE INDEX seats_user ON seats(user_id) WHERE level < 0;"
	"PRAGMA user_version = 5;",

	/* 6: what /metrics and a wallet read without reading row after row:
	 * the open tables of each game counted as tables open and close, each
	 * account's balance kept beside the ledger by the same statement that
	 * writes its rows (the ledger stays append only; store_coins_audit()
	 * checks that the two agree), a platform's rows set aside by index */
	/* counted in 16 stripes a game (by table id), summed when read, so
	 * tables opening and closing at once seldom wait for one row */
	"CREATE TABLE open_tables ("
	"  game TEXT NOT NULL,"
	"  stripe INTEGER NOT NULL,"
	"  tables INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (game, stripe)"
	") WITHOUT ROWID;"
	"INSERT INTO open_tables (game, stripe, tables) SELECT game, id % 16, count(*) FROM tables"
	"  WHERE status < 2 GROUP BY game, id % 16;"
	"CREATE TRIGGER open_tables_insert AFTER INSERT ON tables WHEN new.status < 2 BEGIN"
	"  INSERT INTO open_tables (game, stripe, tables) VALUES (new.game, new.id % 16, 1)"
	"  ON CONFLICT (game, stripe) DO UPDATE SET tables = tables + 1; END;"
	/* a move rewrites status with the same value: only a table opening or closing counts */
	"CREATE TRIGGER open_tables_status AFTER UPDATE OF status ON tables"
	"  WHEN (old.status < 2) <> (new.status < 2) BEGIN"
	"  INSERT INTO open_tables (game, stripe, tables) VALUES (new.game, new.id % 16, 0)"
	"  ON CONFLICT (game, stripe) DO NOTHING;"
	"  UPDATE open_tables SET tables = tables + CASE WHEN new.status < 2 THEN 1 ELSE -1 END"
	"  WHERE game = new.game AND stripe = new.id % 16; END;"
	"CREATE TRIGGER open_tables_delete AFTER DELETE ON tables WHEN old.status < 2 BEGIN"
	"  UPDATE open_tables SET tables = tables - 1 WHERE game = old.game AND stripe = old.id % 16; END;"
	"CREATE TABLE balances ("
	"  chat_id INTEGER NOT NULL,"
	"  account TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  balance INTEGER NOT NULL,"
	"  entries INTEGER NOT NULL,"
	"  PRIMARY KEY (chat_id, account)"
	") WITHOUT ROWID;"
	"INSERT INTO balances (chat_id, account, name, balance, entries)"
	"  SELECT chat_id, account, (SELECT n.name FROM ledger AS n WHERE n.chat_id = l.chat_id"
	"  AND n.account = l.account ORDER BY n.id DESC LIMIT 1), sum(amount), count(*)"
	"  FROM ledger AS l GROUP BY chat_id, account;"
	"CREATE TRIGGER ledger_balance AFTER INSERT ON ledger BEGIN"
	"  INSERT INTO balances (chat_id, account, name, balance, entries)"
	"  VALUES (new.chat_id, new.account, new.name, new.amount, 1)"
	"  ON CONFLICT (chat_id, account) DO UPDATE SET name = excluded.name,"
	"  balance = balance + excluded.balance, entries = entries + 1; END;"
	"CREATE INDEX outbox_aside_platform ON outbox(platform) WHERE aside_ms IS NOT NULL;"
	"PRAGMA user_version = 6;",

	/* 7: online tables - people queueing for a game from their private
	 * chats, each seat of a table played from its own private chat (and
	 * its own table message there), the names people chose for online
	 * play, whom they never want to meet again, and their ratings */
	/* ids never used twice (AUTOINCREMENT): an online table's place is named after one */
	"CREATE TABLE online_queue ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  game TEXT NOT NULL,"
	"  seats INTEGER NOT NULL,"
	"  stake INTEGER NOT NULL DEFAULT 0 CHECK (stake >= 0),"
	"  platform TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  lang TEXT NOT NULL,"
	"  fill INTEGER NOT NULL DEFAULT 0,"
	"  rating INTEGER NOT NULL DEFAULT 1500000,"
	"  since_ms INTEGER NOT NULL,"
	"  UNIQUE (platform, user_id)"
	");"
	"CREATE INDEX online_queue_game ON online_queue(game, seats, stake, since_ms);"
	"CREATE TABLE online_seats ("
	"  table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  platform TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  chat TEXT NOT NULL,"
	"  name TEXT NOT NULL,"
	"  lang TEXT NOT NULL,"
	"  message TEXT NOT NULL DEFAULT '',"
	"  PRIMARY KEY (table_id, seat)"
	") WITHOUT ROWID;"
	"CREATE INDEX online_seats_user ON online_seats(platform, user_id, table_id);"
	"CREATE INDEX online_seats_chat ON online_seats(table_id, platform, chat);"
	"CREATE TABLE online_people ("
	"  platform TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  last_table INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (platform, user_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE online_blocks ("
	"  platform TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  other_platform TEXT NOT NULL,"
	"  other_user TEXT NOT NULL,"
	"  PRIMARY KEY (platform, user_id, other_platform, other_user)"
	") WITHOUT ROWID;"
	/* Glicko-2 per person and game: rating, deviation and volatility in thousandths (sigma millionths) */
	"CREATE TABLE ratings ("
	"  platform TEXT NOT NULL,"
	"  user_id TEXT NOT NULL,"
	"  game TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  r INTEGER NOT NULL,"
	"  rd INTEGER NOT NULL,"
	"  sigma INTEGER NOT NULL,"
	"  games INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (platform, user_id, game)"
	") WITHOUT ROWID;"
	"CREATE INDEX ratings_top ON ratings(game, r);"
	"PRAGMA user_version = 7;",

	/* 8: what online play reads without reading row after row: the queue
	 * in the matcher's order to the last tie (a round reads its first
	 * entries and stops), the people waiting counted per game as they
	 * join and leave (in 16 stripes, as open tables are) with the longest
	 * wait the first entry of a game's own index, and a game's ratings in
	 * the order the best are listed */
	"DROP INDEX online_queue_game;"
	"CREATE INDEX online_queue_order ON online_queue(game, seats, stake, since_ms, id);"
	"CREATE INDEX online_queue_since ON online_queue(game, since_ms);"
	"CREATE TABLE online_waiting ("
	"  game TEXT NOT NULL,"
	"  stripe INTEGER NOT NULL,"
	"  waiting INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (game, stripe)"
	") WITHOUT ROWID;"
	"INSERT INTO online_waiting (game, stripe, waiting) SELECT game, id % 16, count(*)"
	"  FROM online_queue GROUP BY game, id % 16;"
	"CREATE TRIGGER online_waiting_insert AFTER INSERT ON online_queue BEGIN"
	"  INSERT INTO online_waiting (game, stripe, waiting) VALUES (new.game, new.id % 16, 1)"
	"  ON CONFLICT (game, stripe) DO UPDATE SET waiting = waiting + 1; END;"
	"CREATE TRIGGER online_waiting_delete AFTER DELETE ON online_queue BEGIN"
	"  UPDATE online_waiting SET waiting = waiting - 1 WHERE game = old.game AND stripe = old.id % 16; END;"
	"DROP INDEX ratings_top;"
	"CREATE INDEX ratings_best ON ratings(game, r DESC, games DESC, name);"
	"PRAGMA user_version = 8;",

	/* 9: the queue message each person waiting sees in their private chat,
	 * edited as the queue changes: its id there (found by the chat), and
	 * how many people it last said were waiting for that table */
	"ALTER TABLE online_queue ADD COLUMN message TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE online_queue ADD COLUMN shown INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX online_queue_chat ON online_queue(platform, chat);"
	"PRAGMA user_version = 9;",

	/* 10: what the ledger itself refuses, whatever a command read before
	 * it wrote: a second starting grant of an account (reason 'start', a
	 * wallet's first coins, given once: a unique index), and a movement
	 * that takes an account other than the bank below 0 (a check on the
	 * balance kept beside the ledger, which SQLite adds only to a table
	 * made anew). An account a file from before holds below 0 already
	 * keeps that as its floor: it may receive coins, never fall lower. */
	"CREATE UNIQUE INDEX ledger_start ON ledger(chat_id, account) WHERE reason = 'start' AND amount > 0;"
	"DROP TRIGGER ledger_balance;"
	"ALTER TABLE balances RENAME TO balances_before;"
	"CREATE TABLE balances ("
	"  chat_id INTEGER NOT NULL,"
	"  account TEXT NOT NULL,"
	"  name TEXT NOT NULL DEFAULT '',"
	"  balance INTEGER NOT NULL,"
	"  entries INTEGER NOT NULL,"
	"  lowest INTEGER NOT NULL DEFAULT 0 CHECK (lowest <= 0),"
	"  PRIMARY KEY (chat_id, account),"
	"  CHECK (account = 'bank' OR balance >= lowest)"
	") WITHOUT ROWID;"
	"INSERT INTO balances (chat_id, account, name, balance, entries, lowest)"
	"  SELECT chat_id, account, name, balance, entries, min(balance, 0) FROM balances_before;"
	"DROP TABLE balances_before;"
	/* an update, else a new row (an upsert would check its candidate row,
	 * minus the debit, before finding the account's row) */
	"CREATE TRIGGER ledger_balance AFTER INSERT ON ledger BEGIN"
	"  UPDATE balances SET name = new.name, balance = balance + new.amount, entries = entries + 1"
	"  WHERE chat_id = new.chat_id AND account = new.account;"
	"  INSERT INTO balances (chat_id, account, name, balance, entries)"
	"  SELECT new.chat_id, new.account, new.name, new.amount, 1 WHERE NOT EXISTS"
	"  (SELECT 1 FROM balances WHERE chat_id = new.chat_id AND account = new.account); END;"
	"PRAGMA user_version = 10;",

	/* 11: an online seat a computer plays for at its own pace while its
	 * person is away, until they press or type something (away); the name
	 * each person plays under online, folded (case aside), unique among
	 * people (name_key; '' for none: the names chosen before it are
	 * folded where no one else shares them) */
	"ALTER TABLE online_seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE online_people ADD COLUMN name_key TEXT NOT NULL DEFAULT '';"
	"UPDATE online_people SET name_key = lower(name) WHERE name <> '' AND (SELECT count(*)"
	"  FROM online_people AS o WHERE lower(o.name) = lower(online_people.name)) = 1;"
	"CREATE UNIQUE INDEX online_people_name ON online_people(name_key) WHERE name_key <> '';"
	"PRAGMA user_version = 11;",
};

#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

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
		writer_acquire(s);
		rc = run(s, SQ_BEGIN);
		if (rc) {
			writer_release(s);
			return rc;
		}
	}
	rc = run(s, SQ_SAVEPOINT);
	if (rc && *outer) {
		run(s, SQ_ROLLBACK);
		writer_release(s);
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
		writer_release(s);
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
				 "the database file %.300s is mode %04o: others on this machine may read its "
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

/* The value of hex digit c, or -1. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * The file on disk SQLite opens for name, into out (n bytes); false when
 * it opens none: ":memory:", or a URI ("file:...", which this SQLite
 * reads as one) of an in-memory database (mode=memory, an empty path,
 * ":memory:") or one out cannot hold. A URI's path is decoded as SQLite
 * decodes it (an authority of "" or "localhost", %XX escapes, the query
 * and fragment left off).
 */
static bool file_of(const char *name, char *out, size_t n)
{
	const char *p = name + 5, *end;
	size_t len = 0;

	if (strcmp(name, ":memory:") == 0)
		return false;
	if (strncmp(name, "file:", 5) != 0) {
		snprintf(out, n, "%s", name);
		return strlen(name) < n;
	}
	end = p + strcspn(p, "?#");
	if (*end == '?') {
		const char *q = end + 1;

		/* mode=memory among the parameters: no file */
		while (*q && *q != '#') {
			if (strncmp(q, "mode=memory", 11) == 0 && (!q[11] || q[11] == '&' || q[11] == '#'))
				return false;
			q += strcspn(q, "&#");
			q += *q == '&';
		}
	}
	if (strncmp(p, "//", 2) == 0) {
		p += 2;
		if (strncmp(p, "localhost/", 10) == 0)
			p += 9;
		else if (*p != '/')
			return false; /* another host: SQLite refuses it */
	}
	for (; p < end && len + 1 < n; p++) {
		int hi = *p == '%' && p + 2 < end ? hex_value(p[1]) : -1;
		int lo = hi >= 0 ? hex_value(p[2]) : -1;

		if (lo >= 0) {
			out[len++] = (char)(hi * 16 + lo);
			p += 2;
		} else {
			out[len++] = *p;
		}
	}
	if (p < end || n == 0)
		return false;
	out[len] = '\0';
	return len > 0 && strcmp(out, ":memory:") != 0;
}

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

/* Bring the schema to SCHEMA_VERSION under the write lock; an up-to-date file is only read. */
static int migrate(struct store_backend *s)
{
	int version = 0;
	int in_tx = 0;
	int rc = user_version(s, &version);

	if (rc || version == SCHEMA_VERSION)
		goto out;
	rc = run(s, SQ_BEGIN);
	if (rc)
		goto out;
	in_tx = 1;
	rc = store_migrate(s, migrations, SCHEMA_VERSION, user_version, apply_migration);
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
	if (file_of(path, file, sizeof(file))) {
		rc = make_parent(file);
		if (rc)
			goto out;
		make_private_file(file);
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

/*
 * The restart's wait for readers still in the log's old part. SQLite's
 * own busy handler sleeps 1, 2, 5, then 10 ms between its tries, so a
 * reader that ends within a millisecond still held every writer for 3 or
 * 8 ms; here the tries are RESTART_TRY_US apart, for RESTART_WAIT_MS in
 * all: the writers wait about as long as the last such reader reads.
 */
#define RESTART_TRY_US 100

static int restart_busy(void *arg, int tries)
{
	struct timespec gap = { 0, RESTART_TRY_US * 1000L };

	(void)arg;
	if (tries >= RESTART_WAIT_MS * 1000 / RESTART_TRY_US)
		return 0;
	nanosleep(&gap, NULL);
	return 1;
}

static int sq_checkpoint(struct store_backend *s, int *log_pages, int *copied)
{
	int log = 0, done = 0, src;

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
		sqlite3_busy_handler(s->db, restart_busy, NULL);
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
	for (int i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(s->stmt[i].st);
	/* Rolls back a transaction left open. */
	sqlite3_close_v2(s->db);
	while (s->locked)
		writer_release(s);
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
	writer_acquire(s);
	rc = run(s, SQ_BEGIN);
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
		writer_release(s);
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
	writer_release(s);
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
