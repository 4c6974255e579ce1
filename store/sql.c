/*
 * sql.c - the SQL text every database runs as it is.
 *
 * One text per statement of enum store_sql (store/backend.h) that SQLite
 * and PostgreSQL both take word for word, parameters written ?1, ?2 ...
 * (store/pg.c writes them $1, $2 ... as it prepares them). Where the
 * databases differ (locking, a clock, an insert that must not fail, a
 * sequence) the entry is NULL and each backend's own sql_text[] gives
 * its text; a backend's own text, where it has one, wins.
 */
#include "store/backend.h"

const char *const store_sql_common[SQL_COUNT] = {
	/* no row inserted: already processed (GB_EDUP), the transaction intact */
	[SQL_PROCESSED_ADD] = "INSERT INTO processed (platform, update_id) VALUES (?1, ?2)"
		" ON CONFLICT DO NOTHING",
	[SQL_PROCESSED_HAS] = "SELECT 1 FROM processed WHERE platform = ?1 AND update_id = ?2",
	[SQL_PROCESSED_PRUNE] = "DELETE FROM processed WHERE at < ?1",
	[SQL_CHAT_FIND] = "SELECT id, platform, chat, lang, settings FROM chats"
		" WHERE platform = ?1 AND chat = ?2",
	[SQL_CHAT_BY_ID] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = ?1",
	/* where a transaction holds the write lock, what it read stays so until it ends */
	[SQL_CHAT_BY_ID_LOCK] = "SELECT id, platform, chat, lang, settings FROM chats WHERE id = ?1",
	[SQL_CHAT_ADD] = "INSERT INTO chats (platform, chat, lang, settings)"
		" VALUES (?1, ?2, ?3, '{}') ON CONFLICT (platform, chat) DO NOTHING",
	[SQL_CHAT_SAVE] = "UPDATE chats SET lang = ?1, settings = ?2 WHERE id = ?3",
	/* The chat (platform ?1, chat ?2) if nothing would be lost with it. */
	[SQL_CHAT_DROP_EMPTY] = "DELETE FROM chats WHERE platform = ?1 AND chat = ?2"
		" AND settings = '{}'"
		" AND NOT EXISTS (SELECT 1 FROM tables WHERE tables.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM stats WHERE stats.chat_id = chats.id)"
		" AND NOT EXISTS (SELECT 1 FROM ledger WHERE ledger.chat_id = chats.id)",
	[SQL_CHAT_MOVE] = "UPDATE chats SET chat = ?3 WHERE platform = ?1 AND chat = ?2",
	/*
	 * The chat ?2 and its forum topics ("?2#THREAD") after id ?3, in id
	 * order: read through the platform's chats, and only when the bot is
	 * removed from a group.
	 */
	[SQL_CHAT_PLACES] = "SELECT id, platform, chat, lang, settings FROM chats WHERE platform = ?1"
		" AND (chat = ?2 OR substr(chat, 1, length(?2) + 1) = ?2 || '#') AND id > ?3"
		" ORDER BY id LIMIT ?4",
	[SQL_TABLE_OPEN_GET] = "SELECT " STORE_TABLE_COLS " FROM tables"
		" WHERE chat_id = ?1 AND status < 2",
	[SQL_TABLE_GET] = "SELECT " STORE_TABLE_COLS " FROM tables WHERE id = ?1",
	[SQL_TABLE_EXISTS] = "SELECT 1 FROM tables WHERE id = ?1",
	[SQL_TABLE_INSERT] = "INSERT INTO tables (chat_id, game, status, version, seed,"
		" creator, message, turn_started_ms, rules, state, watch, created_ms)"
		" VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
	/* Not message: store_table_set_message() owns it. */
	[SQL_TABLE_UPDATE] = "UPDATE tables SET status = ?1,"
		" turn_started_ms = ?2, rules = ?3, state = ?4, version = version + 1"
		" WHERE id = ?5 AND version = ?6",
	/*
	 * SQL_TABLE_UPDATE for a table whose status stays: status is not
	 * set, so SQLite leaves the open-table index (tables_open, partial on
	 * status) and the open-table count's trigger alone. No row changed:
	 * the status moved, or the version (SQL_TABLE_UPDATE decides which).
	 */
	[SQL_TABLE_UPDATE_SAME] = "UPDATE tables SET"
		" turn_started_ms = ?2, rules = ?3, state = ?4, version = version + 1"
		" WHERE id = ?5 AND version = ?6 AND status = ?1",
	[SQL_TABLE_SET_MESSAGE] = "UPDATE tables SET message = ?2 WHERE id = ?1",
	/*
	 * A scan of seats: asked only when someone opens inline mode, and
	 * seats of finished tables are few per table.
	 */
	[SQL_TABLES_OF_USER] = "SELECT t.id FROM seats s JOIN tables t ON t.id = s.table_id"
		" JOIN chats c ON c.id = t.chat_id"
		" WHERE c.platform = ?1 AND s.user_id = ?2 AND s.level < 0 AND t.status < 2"
		" GROUP BY t.id ORDER BY t.id LIMIT ?3",
	/* counted as tables open and close (schema 6), not read table by table */
	[SQL_TABLES_BY_GAME] = "SELECT game, sum(tables) FROM open_tables GROUP BY game ORDER BY game LIMIT ?1",
	[SQL_SEATS_GET] = "SELECT seat, user_id, name, level FROM seats"
		" WHERE table_id = ?1 ORDER BY seat LIMIT ?2",
	[SQL_SEATS_CLEAR] = "DELETE FROM seats WHERE table_id = ?1",
	[SQL_SEAT_ADD] = "INSERT INTO seats (table_id, seat, user_id, name, level)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[SQL_MOVE_COUNT] = "SELECT count(*) FROM moves WHERE table_id = ?1",
	/* one seek down the primary key: a NULL (no moves) reads as 0 */
	[SQL_MOVE_LAST] = "SELECT max(seq) FROM moves WHERE table_id = ?1",
	[SQL_MOVES_GET] = "SELECT seq, actor, action, events FROM moves"
		" WHERE table_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
	[SQL_OUT_DUE] = "SELECT " STORE_OUT_COLS " FROM outbox WHERE platform = ?1"
		" AND aside_ms IS NULL AND due_ms <= ?2 ORDER BY due_ms, id LIMIT ?3",
	/* the chat's newest ?3 pending rows, oldest of them first */
	[SQL_OUT_CHAT] = "SELECT " STORE_OUT_COLS " FROM (SELECT " STORE_OUT_COLS " FROM outbox"
		" WHERE platform = ?1 AND chat = ?2 AND aside_ms IS NULL ORDER BY id DESC LIMIT ?3)"
		" AS newest ORDER BY id",
	/* where a transaction holds the write lock, no worker claims them until it ends */
	[SQL_OUT_CHAT_LOCK] = "SELECT " STORE_OUT_COLS " FROM (SELECT " STORE_OUT_COLS " FROM outbox"
		" WHERE platform = ?1 AND chat = ?2 AND aside_ms IS NULL ORDER BY id DESC LIMIT ?3)"
		" AS newest ORDER BY id",
	/*
	 * A platform's pending rows counted in an index of pending rows only
	 * (never the rows' payloads, nor the rows set aside or gone), its
	 * rows set aside in theirs, the earliest due time one seek.
	 */
	[SQL_OUT_COUNT] = "SELECT (SELECT count(*) FROM outbox WHERE platform = ?1 AND aside_ms IS NULL),"
		" (SELECT count(*) FROM outbox WHERE platform = ?1 AND aside_ms IS NOT NULL),"
		" (SELECT min(due_ms) FROM outbox WHERE platform = ?1 AND aside_ms IS NULL)",
	[SQL_OUT_COUNT_ALL] = "SELECT (SELECT count(*) FROM outbox WHERE aside_ms IS NULL),"
		" (SELECT count(*) FROM outbox WHERE aside_ms IS NOT NULL),"
		" (SELECT min(due_ms) FROM outbox WHERE aside_ms IS NULL)",
	[SQL_OUT_DONE] = "DELETE FROM outbox WHERE id = ?1",
	/* a pending row's view rewritten (a queue message's id handed to it): never one set aside */
	[SQL_OUT_PAYLOAD] = "UPDATE outbox SET payload = ?2 WHERE id = ?1 AND aside_ms IS NULL",
	[SQL_OUT_RETRY] = "UPDATE outbox SET lease_until_ms = 0, due_ms = ?2,"
		" attempts = attempts + CAST(?3 AS INTEGER) WHERE id = ?1 AND aside_ms IS NULL",
	/* a row still under a lease (not handed back, not set aside) keeps it until ?2 */
	/* only ever longer: the worker holding the row may be sending it until its lease's end */
	[SQL_OUT_EXTEND] = "UPDATE outbox SET lease_until_ms = CASE WHEN lease_until_ms < ?2 THEN ?2"
		" ELSE lease_until_ms END WHERE id = ?1 AND lease_until_ms > 0 AND aside_ms IS NULL",
	/* a pending row taken out of the workers' reach until ?2, unless a worker holds it at ?3 */
	[SQL_OUT_LEASE] = "UPDATE outbox SET lease_until_ms = ?2 WHERE id = ?1 AND lease_until_ms <= ?3"
		" AND aside_ms IS NULL",
	[SQL_OUT_UNLEASE] = "UPDATE outbox SET lease_until_ms = 0 WHERE lease_until_ms > ?1"
		" AND aside_ms IS NULL",
	[SQL_OUT_MOVE] = "UPDATE outbox SET chat = ?3 WHERE platform = ?1 AND chat = ?2"
		" AND aside_ms IS NULL",
	[SQL_TIMER_RETRY] = "UPDATE timers SET attempts = attempts + 1, due_ms = ?3"
		" WHERE table_id = ?1 AND kind = ?2 AND version = ?4 RETURNING attempts",
	[SQL_TIMER_DROP] = "DELETE FROM timers WHERE table_id = ?1 AND kind = ?2 AND version = ?3",
	[SQL_TIMER_DELAY] = "UPDATE timers SET due_ms = ?4 WHERE table_id = ?1 AND kind = ?2 AND version = ?3",
	[SQL_TIMER_DUE] = "SELECT " STORE_TIMER_COLS " FROM timers WHERE due_ms <= ?1"
		" ORDER BY due_ms, table_id, kind LIMIT ?2",
	[SQL_TIMER_NEXT] = "SELECT " STORE_TIMER_COLS " FROM timers"
		" ORDER BY due_ms, table_id, kind LIMIT 1",
	/* A user's latest display name on all their rows, so the aggregated
	 * leaderboard shows one current name. */
	[SQL_STAT_NAME] = "UPDATE stats SET name = ?3 WHERE chat_id = ?1 AND user_id = ?2"
		" AND name <> ?3",
	[SQL_STATS_GAME] = "SELECT user_id, name, game, games, wins, points FROM stats"
		" WHERE chat_id = ?1 AND game = ?2"
		" ORDER BY wins DESC, points DESC, games ASC, name, user_id LIMIT ?3",
	[SQL_STATS_ALL] = "SELECT user_id, max(name) AS n, CAST('' AS TEXT), sum(games) AS g,"
		" sum(wins) AS w, sum(points) AS p FROM stats WHERE chat_id = ?1"
		" GROUP BY user_id ORDER BY w DESC, p DESC, g ASC, n, user_id LIMIT ?2",
	[SQL_META_GET] = "SELECT value FROM meta WHERE name = ?1",
	[SQL_META_SET] = "INSERT INTO meta (name, value) VALUES (?1, ?2)"
		" ON CONFLICT (name) DO UPDATE SET value = excluded.value",
	[SQL_TERMS_GET] = "SELECT seed, stake FROM table_terms WHERE table_id = ?1",
	/* the balance kept beside the ledger (schema 6): one row, however long the account's history */
	[SQL_COINS_BALANCE] = "SELECT balance, entries FROM balances WHERE chat_id = ?1 AND account = ?2",
	/* Each account with its latest name (the last ledger row written for it names it). */
	[SQL_COINS_TOP] = "SELECT account, name, balance FROM balances"
		" WHERE chat_id = ?1 AND substr(account, 1, length(?2)) = ?2"
		" ORDER BY balance DESC, account LIMIT ?3",
	/*
	 * The audit: each statement finds the breaches of one rule in chat ?1
	 * (0: every chat), at most ?2 of them, each as its chat, the account
	 * or movement at fault ("" for the chat itself) and a number.
	 */
	[SQL_AUDIT_TOTALS] = "SELECT chat_id, CAST('' AS TEXT), sum(amount) FROM ledger"
		" WHERE CAST(?1 AS BIGINT) = 0 OR chat_id = ?1"
		" GROUP BY chat_id HAVING sum(amount) <> 0 LIMIT ?2",
	[SQL_AUDIT_MOVEMENTS] = "SELECT min(chat_id), 'movement ' || CAST(movement AS TEXT), count(*) FROM ledger"
		" WHERE CAST(?1 AS BIGINT) = 0 OR chat_id = ?1"
		" GROUP BY movement HAVING count(*) <> 2 OR sum(amount) <> 0 OR min(amount) >= 0"
		" OR count(DISTINCT chat_id) <> 1 OR count(DISTINCT table_id) <> 1"
		" OR count(DISTINCT reason) <> 1 OR count(DISTINCT at_ms) <> 1"
		" OR count(DISTINCT account) <> 2 OR max(id) - min(id) <> 1 LIMIT ?2",
	[SQL_AUDIT_NEGATIVE] = "SELECT chat_id, account, sum(amount) FROM ledger"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR chat_id = ?1) AND account <> 'bank'"
		" GROUP BY chat_id, account HAVING sum(amount) < 0 LIMIT ?2",
	/* A pot holds coins only while its table is being played (in the chat, or a place of it). */
	[SQL_AUDIT_POTS] = "SELECT l.chat_id, l.account, sum(l.amount) FROM ledger AS l"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR l.chat_id = ?1)"
		" AND l.account LIKE 'pot:%' GROUP BY l.chat_id, l.account HAVING sum(l.amount) <> 0"
		" AND NOT EXISTS (SELECT 1 FROM tables AS t JOIN chats AS p ON p.id = t.chat_id"
		" JOIN chats AS c ON c.id = l.chat_id WHERE 'pot:' || t.id = l.account AND t.status = 1"
		" AND (p.id = c.id OR (p.platform = c.platform"
		" AND substr(p.chat, 1, length(c.chat) + 1) = c.chat || '#'))) LIMIT ?2",
	/* Grants (a wallet's starting one too) come from the chat's bank, and only they move its coins. */
	[SQL_AUDIT_GRANTS] = "SELECT chat_id, account, movement FROM ledger"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR chat_id = ?1)"
		" AND ((reason IN ('grant', 'start') AND amount < 0 AND account <> 'bank')"
		" OR (account = 'bank' AND reason NOT IN ('grant', 'start'))) LIMIT ?2",
	/* An account is given its starting grant once. */
	[SQL_AUDIT_STARTS] = "SELECT chat_id, account, count(*) FROM ledger"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR chat_id = ?1) AND reason = 'start' AND amount > 0"
		" GROUP BY chat_id, account HAVING count(*) > 1 LIMIT ?2",
	/* Each kept balance is its account's ledger rows' sum and count, and every account has one. */
	[SQL_AUDIT_BALANCES] = "SELECT b.chat_id, b.account, b.balance FROM balances AS b"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR b.chat_id = ?1)"
		" AND (b.balance <> (SELECT coalesce(sum(l.amount), 0) FROM ledger AS l"
		" WHERE l.chat_id = b.chat_id AND l.account = b.account)"
		" OR b.entries <> (SELECT count(*) FROM ledger AS l"
		" WHERE l.chat_id = b.chat_id AND l.account = b.account))"
		" UNION ALL SELECT l.chat_id, l.account, sum(l.amount) FROM ledger AS l"
		" WHERE (CAST(?1 AS BIGINT) = 0 OR l.chat_id = ?1) AND NOT EXISTS (SELECT 1 FROM balances AS b"
		" WHERE b.chat_id = l.chat_id AND b.account = l.account)"
		" GROUP BY l.chat_id, l.account LIMIT ?2",
	/* What the audit looked at: chats with coins, their accounts, movements (two rows each). */
	[SQL_AUDIT_COUNT] = "SELECT count(DISTINCT chat_id), count(*), CAST(coalesce(sum(entries), 0) / 2 AS BIGINT)"
		" FROM balances WHERE CAST(?1 AS BIGINT) = 0 OR chat_id = ?1",
	/*
	 * At most ?2 tables over whose last move (or end) and opening were
	 * before ?1, oldest first through tables_created; their seats, terms,
	 * timers and move log go with them (ON DELETE CASCADE). Never the
	 * newest table: a new one would take its id again (the largest id
	 * plus one), and a table's id is in old buttons, coins and logs.
	 */
	[SQL_TABLES_PRUNE] = "DELETE FROM tables WHERE id IN (SELECT id FROM tables"
		" WHERE created_ms < ?1 AND status = 2 AND turn_started_ms < ?1"
		" AND id < (SELECT max(id) FROM tables) ORDER BY created_ms LIMIT ?2)",
	/* at most ?2 rows set aside before ?1, oldest first through outbox_aside */
	[SQL_OUT_ASIDE_PRUNE] = "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox"
		" WHERE aside_ms IS NOT NULL AND aside_ms < ?1 ORDER BY aside_ms LIMIT ?2)",

	/* ---- online tables ---- */
	/* one queue at a time per person: no row inserted when already waiting */
	[SQL_QUEUE_ADD] = "INSERT INTO online_queue (game, seats, stake, platform, user_id, chat, name,"
		" lang, fill, rating, since_ms, shown) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
		" ON CONFLICT (platform, user_id) DO NOTHING",
	/* the entry's queue message as it is when it goes: its final view edits that one */
	[SQL_QUEUE_LEAVE] = "DELETE FROM online_queue WHERE platform = ?1 AND user_id = ?2 RETURNING message",
	[SQL_QUEUE_OF] = "SELECT " STORE_QUEUE_COLS " FROM online_queue WHERE platform = ?1 AND user_id = ?2",
	[SQL_QUEUE_LIST] = "SELECT " STORE_QUEUE_COLS " FROM online_queue"
		" ORDER BY game, seats, stake, since_ms, id LIMIT ?1",
	[SQL_QUEUE_FILL] = "UPDATE online_queue SET fill = ?3 WHERE platform = ?1 AND user_id = ?2",
	/*
	 * The claim: the entries of one table taken out of the queue in one
	 * statement. Two instances claiming the same entry: the second finds
	 * it gone (PostgreSQL waits for the first's row lock, then skips the
	 * row deleted), gets fewer rows back and gives the table up. Each
	 * entry's queue message as it is when the entry goes (PostgreSQL
	 * returns the row as a concurrent recording of it left it).
	 */
	[SQL_QUEUE_CLAIM] = "DELETE FROM online_queue WHERE id IN (?1, ?2, ?3, ?4) RETURNING id, message",
	/* the people waiting counted as they join and leave, the longest wait a game's first entry */
	[SQL_QUEUE_BY_GAME] = "SELECT w.game, sum(w.waiting), (SELECT min(q.since_ms) FROM online_queue AS q"
		" WHERE q.game = w.game) FROM online_waiting AS w GROUP BY w.game HAVING sum(w.waiting) > 0"
		" ORDER BY w.game LIMIT ?1",
	[SQL_OSEAT_ADD] = "INSERT INTO online_seats (table_id, seat, platform, user_id, chat, name, lang)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[SQL_OSEATS_GET] = "SELECT seat, platform, user_id, chat, name, lang, message, away FROM online_seats"
		" WHERE table_id = ?1 ORDER BY seat LIMIT ?2",
	/* the open online table where the person holds a seat (not one they left to a computer) */
	[SQL_OSEAT_OPEN] = "SELECT o.table_id FROM online_seats AS o JOIN tables AS t ON t.id = o.table_id"
		" JOIN seats AS s ON s.table_id = o.table_id AND s.seat = o.seat"
		" WHERE o.platform = ?1 AND o.user_id = ?2 AND t.status < 2 AND s.level < 0"
		" ORDER BY o.table_id DESC LIMIT 1",
	/* the newest online table the person sat at that is still kept (a pruned table takes its seats along) */
	[SQL_OSEAT_LAST] = "SELECT table_id FROM online_seats WHERE platform = ?1 AND user_id = ?2"
		" ORDER BY table_id DESC LIMIT 1",
	/* the queue message in a private chat (one person's: they wait in one queue at a time) */
	[SQL_QUEUE_MESSAGE] = "SELECT message FROM online_queue WHERE platform = ?1 AND chat = ?2 LIMIT 1",
	[SQL_QUEUE_SET_MESSAGE] = "UPDATE online_queue SET message = ?3 WHERE platform = ?1 AND chat = ?2",
	[SQL_QUEUE_SHOWN] = "UPDATE online_queue SET shown = ?2 WHERE id = ?1",
	[SQL_OSEAT_MESSAGE] = "SELECT message FROM online_seats WHERE table_id = ?1 AND platform = ?2"
		" AND chat = ?3 LIMIT 1",
	[SQL_OSEAT_SET_MESSAGE] = "UPDATE online_seats SET message = ?4 WHERE table_id = ?1"
		" AND platform = ?2 AND chat = ?3",
	[SQL_PERSON_GET] = "SELECT name, last_table FROM online_people WHERE platform = ?1 AND user_id = ?2",
	/* the name's folded key is unique among people (online_people_name): a name taken meanwhile is GB_EEXISTS */
	[SQL_PERSON_NAME] = "INSERT INTO online_people (platform, user_id, name, name_key) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT (platform, user_id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key",
	[SQL_PERSON_LAST] = "INSERT INTO online_people (platform, user_id, last_table) VALUES (?1, ?2, ?3)"
		" ON CONFLICT (platform, user_id) DO UPDATE SET last_table = excluded.last_table",
	[SQL_BLOCK_ADD] = "INSERT INTO online_blocks (platform, user_id, other_platform, other_user)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
	/* either one blocked the other */
	[SQL_BLOCKED] = "SELECT 1 FROM online_blocks WHERE (platform = ?1 AND user_id = ?2"
		" AND other_platform = ?3 AND other_user = ?4) OR (platform = ?3 AND user_id = ?4"
		" AND other_platform = ?1 AND other_user = ?2) LIMIT 1",
	[SQL_RATING_GET] = "SELECT r, rd, sigma, games FROM ratings WHERE platform = ?1 AND user_id = ?2"
		" AND game = ?3",
	[SQL_RATING_SET] = "INSERT INTO ratings (platform, user_id, game, name, r, rd, sigma, games)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (platform, user_id, game) DO UPDATE"
		" SET name = excluded.name, r = excluded.r, rd = excluded.rd, sigma = excluded.sigma,"
		" games = excluded.games WHERE ratings.games = ?9",
	[SQL_RATING_TOP] = "SELECT platform, user_id, name, r, rd, sigma, games FROM ratings WHERE game = ?1"
		" ORDER BY r DESC, games DESC, name LIMIT ?2",
	/* a computer plays for the seat at its own pace (away 1) until its person is back (0) */
	[SQL_OSEAT_AWAY] = "UPDATE online_seats SET away = ?3 WHERE table_id = ?1 AND seat = ?2",
	/* the person pressed or typed something: every seat of theirs is theirs again */
	[SQL_PERSON_BACK] = "UPDATE online_seats SET away = 0 WHERE platform = ?1 AND user_id = ?2 AND away <> 0",
	[SQL_PERSON_BY_NAME] = "SELECT platform, user_id FROM online_people WHERE name_key = ?1 AND name_key <> '' LIMIT 1",
};
