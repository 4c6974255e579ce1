/*
 * sqlite_schema.c - the SQLite database's schema as its migrations
 * (store/schema.h), applied by store/sqlite.c.
 */
#include "store/schema.h"

/*
 * The schema, one migration per element, applied in order. Never edit a
 * migration that has shipped: append a new one. Each ends by setting
 * user_version to its own number (a pragma cannot take a bound parameter,
 * and building the statement from a number would be SQL from formatting).
 * Tables use CREATE TABLE without IF NOT EXISTS on purpose: a migration that
 * ran twice would fail loudly instead of silently doing half its work.
 * Column names avoid words PostgreSQL reserves (user), so the schema ports.
 */
const char *const store_sqlite_migrations[] = {
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

const int store_sqlite_schema_version = (int)(sizeof store_sqlite_migrations / sizeof store_sqlite_migrations[0]);
