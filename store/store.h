/*
 * store.h - everything gamebot keeps, behind one set of functions.
 *
 * The store knows chats, tables, seats, a move log, processed updates, an
 * outbox, timers, stats and a few durable facts of the adapters (meta); it
 * knows no platform and no game rules (states, settings and payloads are
 * opaque JSON text to it). Two databases stand behind the same functions,
 * chosen at open (store/store.c): SQLite (store/sqlite.c, the embedded
 * default: WAL, foreign keys, a busy timeout) and PostgreSQL (store/pg.c,
 * for several instances sharing one database). Both keep a versioned
 * schema migrated at open. Every statement is prepared; no SQL is ever
 * built from data.
 *
 * Transactions: the bot runs each command between store_begin() and
 * store_commit() (or store_rollback() on any error), so a command's state,
 * move log, outgoing messages, timers and dedupe key land together or not at
 * all. Tables carry a version: store_table_update() is a compare-and-swap and
 * answers GB_ECONFLICT when someone else wrote first, which is what lets
 * several instances share one database.
 *
 * Strings in the row structs are NUL-terminated and truncated to their
 * buffers; JSON text fields are malloc'd and owned by the row: release a row
 * with its _release() function (a no-op on a zeroed row).
 *
 * Times are epoch milliseconds of the caller's clock (now_ms, due_ms), so
 * tests can simulate time; the store reads its own clock only to stamp a
 * processed update (epoch seconds) and a message set aside.
 *
 * Every function returns GB_OK or an enum gb_error code (GB_ESTORE for a
 * database failure, GB_ENOTFOUND, GB_EDUP, GB_ECONFLICT as documented).
 */
#ifndef GB_STORE_H
#define GB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "games/error.h"

#define STORE_ID_LEN 64     /* platform ids (chat, user, message) as text */
#define STORE_NAME_LEN 64   /* display names, UTF-8, truncated on a character boundary */

struct store;

/*
 * Open the database named by target and migrate it to the current schema:
 * a URL starting with postgres:// or postgresql:// is a PostgreSQL
 * database (libpq's connection URI); anything else is the path of a SQLite
 * file, created with its parent folder if needed. On success *out is a new
 * handle the caller owns: close it with store_free(). A handle belongs to
 * one thread at a time. A SQLite file that cannot be written is GB_ESTORE
 * (store_last_error() says so), not a handle that would fail every write.
 */
int store_open(struct store **out, const char *target);

/* What s was opened on ("" for NULL): handles on the same text share a database. */
const char *store_target(const struct store *s);

/*
 * For a long-running service: handles opened after store_background_checkpoints(1)
 * leave the copying of the write-ahead log back into the database to
 * store_checkpoint(), which a background thread calls (every second or
 * so), instead of doing it inside the commit that happens to fill it.
 */
void store_background_checkpoints(int on);

/*
 * Copy what it can of the write-ahead log into the database without
 * blocking readers or writers. A log past a few megabytes is then
 * finished and started over: this process's writers wait for that (a
 * few milliseconds), readers never do. *log_pages and *copied (either may
 * be NULL) get the log's size and how much of it is now in the database,
 * in pages, or -1 when another handle was checkpointing just then (and
 * nothing was done).
 */
int store_checkpoint(struct store *s, int *log_pages, int *copied);

/*
 * For a long-running service: turn background checkpoints on (above) and
 * start a thread with a handle of its own on target that checkpoints
 * whenever commits have filled the log, and every half second anyway.
 * Under steady load it also starts the log over from the beginning, which
 * readers always in it would otherwise prevent: the log stays a few
 * megabytes however long the load lasts. *out is NULL (and GB_OK) for a
 * database that copies its own log (PostgreSQL); store_checkpointer_stop()
 * ends the thread (a no-op on NULL).
 */
struct store_checkpointer;
int store_checkpointer_start(const char *target, struct store_checkpointer **out);
void store_checkpointer_stop(struct store_checkpointer *c);

/* Close the database; a no-op on NULL. */
void store_free(struct store *s);

/* Is the database reachable? (For /healthz.) */
int store_ping(struct store *s);

/* Schema version now in the file. */
int store_schema_version(struct store *s);

/*
 * What the database said about the last failure (GB_ESTORE, GB_ENOMEM)
 * of a handle used by the calling thread ("database is locked", "database
 * or disk is full", "attempt to write a readonly database"), for the log
 * line that reports it, PostgreSQL's with its SQLSTATE; "" when none was
 * recorded. Handles belong to one thread at a time, so this is the
 * failure of the handle just used.
 */
const char *store_last_error(void);

/*
 * Where the store's warnings for the operator go (a database file others
 * may read): warn(message) is called from whichever thread opens a
 * handle. NULL (the default) writes them to standard error. Set it before
 * the threads that open handles start.
 */
void store_set_warn(void (*warn)(const char *message));

/*
 * Was that last failure one that clears by itself - the write lock held
 * past the busy timeout, a full disk, a file that cannot be written, an
 * I/O error - rather than one of the data (a constraint, a trigger, a
 * damaged row)? 1 or 0; 0 when none was recorded. What failed that way
 * is worth trying again for as long as it lasts.
 */
int store_last_error_transient(void);

/*
 * How long a SQLite writer waits for another process's write lock before
 * the call fails with GB_ESTORE ("database is locked"): STORE_BUSY_TIMEOUT_MS
 * unless changed here; applies to handles opened afterwards. For tests
 * that meet a held lock without waiting the full time.
 */
#define STORE_BUSY_TIMEOUT_MS 5000
void store_busy_timeout_set(int ms);

/*
 * Begin a transaction; commit it; roll it back (rollback is safe without a
 * transaction). SQLite queues the writers (BEGIN IMMEDIATE); PostgreSQL
 * runs them side by side (READ COMMITTED), the compare-and-swap of
 * store_table_update() and row locks keeping them apart, and may answer
 * GB_ECONFLICT for a deadlock it broke: roll back and try again.
 */
/*
 * Does the database take one writer at a time (SQLite, unlike
 * PostgreSQL)? Then commands of a process ready to write together are
 * best written in one transaction (the router's group commit).
 */
int store_one_writer(struct store *s);

int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback(struct store *s);

/*
 * Reads that belong together (one command's) in one snapshot of the
 * database, outside any transaction: each sees what the first saw, and
 * SQLite looks at its log and fills its cache once for all of them. A
 * write or store_begin() ends the snapshot first, so nothing else changes
 * for the caller; store_read_end() ends it (a no-op when none is open).
 * On PostgreSQL both do nothing.
 */
int store_read_begin(struct store *s);
void store_read_end(struct store *s);

/*
 * Inside a transaction, mark the start of one unit of work
 * (store_unit_begin) and end it (store_unit_end): keep its writes when ok,
 * undo just them otherwise. Several commands share one transaction this
 * way (group commit) without one's failure undoing another's. GB_ESTORE
 * from store_unit_end when the whole transaction was lost (the database
 * itself failed): then nothing of it is kept.
 */
int store_unit_begin(struct store *s);
int store_unit_end(struct store *s, int ok);

/* Has this platform update been processed? GB_EDUP if it was, GB_OK if not (reads only). */
int store_was_processed(struct store *s, const char *platform, const char *update_id);

/* Record that a platform update was processed. GB_EDUP if it already was. */
int store_mark_processed(struct store *s, const char *platform, const char *update_id);

/*
 * Forget the processed updates recorded before before_ms (all platforms);
 * *n gets how many. Records are stamped in whole seconds, so only those of
 * a second that ended by before_ms go. A forgotten update id can be marked
 * again: prune only what the platforms will not redeliver.
 */
int store_processed_prune(struct store *s, int64_t before_ms, int *n);

/*
 * Pruning a long-lived database a little at a time: each call deletes at
 * most max rows (max > 0) in one transaction (or in the caller's), oldest
 * first, and *n gets how many; a caller goes on while *n == max, so no
 * writer ever waits long behind it. What is never pruned: open tables,
 * rows waiting to be sent, stats and the coins ledger.
 *
 * store_processed_prune_some(): processed updates recorded before
 * before_ms, as store_processed_prune().
 * store_tables_prune(): tables over (STORE_OVER) opened before before_ms
 * whose turn_started_ms (for a table over, when it ended) is before it
 * too, with their seats, terms, timers and move log: /verify and /board
 * no longer find them. The newest table is kept, so no id is used twice.
 * store_out_aside_prune(): outbox rows set aside before before_ms.
 */
int store_processed_prune_some(struct store *s, int64_t before_ms, int max, int *n);

/*
 * How the database finds the rows of the statements every command,
 * delivery, timer and pruning step runs, as its planner says now (with
 * representative arguments where it wants them): into out (cap bytes,
 * cut if longer), one block per statement, "NAME:" then its plan's lines
 * indented. For tests, and for an operator checking a database's indexes:
 * none should read a whole table.
 */
int store_explain(struct store *s, char *out, size_t cap);

/*
 * Of the database pages this process's SQLite connections needed, how many
 * each found in its own page cache (*hits) and how many it read from the
 * file or the log (*misses), since the process started (for /metrics; a
 * connection's cache is emptied whenever another committed since its last
 * read). 0 and 0 on PostgreSQL, whose pages the server keeps.
 */
void store_page_cache(uint64_t *hits, uint64_t *misses);
int store_tables_prune(struct store *s, int64_t before_ms, int max, int *n);
int store_out_aside_prune(struct store *s, int64_t before_ms, int max, int *n);

/* ---- chats ---- */
struct store_chat {
	int64_t id;                    /* store's own id */
	char platform[16];
	char chat[STORE_ID_LEN];       /* platform's chat (or channel) id */
	char lang[8];                  /* "en", "ne" */
	char *settings;                /* JSON object text, owned */
};
void store_chat_release(struct store_chat *c);

/* Find the chat, creating it with language default_lang and settings "{}". */
int store_chat_get(struct store *s, const char *platform, const char *chat,
		   const char *default_lang, struct store_chat *out);

/* The chat with store id `id`. GB_ENOTFOUND if none. */
int store_chat_get_by_id(struct store *s, int64_t id, struct store_chat *out);

/* Save language and settings text of chat id. */
int store_chat_save(struct store *s, const struct store_chat *c);

/*
 * The platform's id of a chat changed (a Telegram group upgraded to a
 * supergroup): chat `from` of platform becomes chat `to`, keeping its store
 * id and so its language, settings, tables and stats; its pending outbox
 * rows move with it (rows set aside stay under the old id). All or nothing.
 * GB_ENOTFOUND if `from` is unknown. If `to` is already a chat with no
 * tables, no stats and settings "{}" (made by a stray message), it is
 * replaced; any other `to` is GB_EEXISTS. GB_EARGS if from and to are equal.
 */
int store_chat_move(struct store *s, const char *platform, const char *from, const char *to);

/*
 * The places of chat of platform: the chat itself and each of its forum
 * topics ("CHAT#THREAD", a chat of its own in the store), those whose
 * store id is above after, in id order, max at most, into out (each
 * released with store_chat_release()); *n gets the count. Page through
 * them by passing the last id read as after. A chat unknown to the store
 * has none.
 */
int store_chat_places(struct store *s, const char *platform, const char *chat, int64_t after,
		      struct store_chat *out, int max, int *n);

/* ---- tables (one game each; at most one open per chat) ---- */
enum store_table_status {
	STORE_LOBBY = 0,   /* seats being filled */
	STORE_PLAYING = 1,
	STORE_OVER = 2,    /* finished or stopped; kept for the log and stats */
};

struct store_table {
	int64_t id;
	int64_t chat;                  /* store_chat.id */
	char game[16];
	int status;                    /* enum store_table_status */
	int64_t version;               /* bumped by every update */
	uint64_t seed;
	char creator[STORE_ID_LEN];    /* user id of who opened it */
	char message[STORE_ID_LEN];    /* platform id of the table message, "" until posted */
	int64_t turn_started_ms;       /* when the current turn began (idle autoplay); for a
	                                  table over, when it ended (pruning counts from then) */
	char *rules;                   /* JSON object text, owned */
	char *state;                   /* game state JSON text, owned; NULL in the lobby */
	int watch;                     /* 1: every seat a computer (watch mode), else 0 */
	int64_t created_ms;            /* when it was opened (0 for tables from before schema 2) */
};
void store_table_release(struct store_table *t);

/* The chat's open table (lobby or playing). GB_ENOTFOUND if none. */
int store_table_open_get(struct store *s, int64_t chat, struct store_table *out);

/* A table by id. GB_ENOTFOUND if none. */
int store_table_get(struct store *s, int64_t id, struct store_table *out);

/*
 * Insert t with all its fields (watch stored as 0 or 1, created_ms as
 * given); id and version are set on success; version starts at 1.
 */
int store_table_insert(struct store *s, struct store_table *t);

/*
 * Write status, turn_started_ms, rules and state of t if its version in the
 * database is still t->version; then t->version is bumped. GB_ECONFLICT if
 * someone else wrote first. Never writes message (an adapter may record it
 * concurrently with store_table_set_message(), and a game update must not
 * undo that), nor the fields fixed at insert (chat, game, seed, creator,
 * watch, created_ms).
 */
int store_table_update(struct store *s, struct store_table *t);

/*
 * Record the platform id of the table's posted message ("" for none). The
 * version is not bumped, so timers set for it stay valid and a command
 * holding the table still updates it. GB_ENOTFOUND if no such table.
 */
int store_table_set_message(struct store *s, int64_t table, const char *message);

/*
 * *n = the number of tables of chat (0: of all chats) created at or after
 * since_ms (0: whenever), only open ones (lobby or playing) when open_only,
 * only watch tables when watch_only.
 */
int store_tables_count(struct store *s, int64_t chat, int64_t since_ms, int open_only,
		       int watch_only, int *n);

/*
 * Open tables (lobby or playing) per game, up to max games; *n gets the
 * count. Counted as tables open and close, not read table by table: a game
 * that had open tables and has none now is there with 0.
 */
struct store_game_count {
	char game[16];
	int tables;
};
int store_tables_open_by_game(struct store *s, struct store_game_count *out, int max, int *n);

/*
 * Up to max open tables (lobby or playing) of chats of platform where user
 * (a platform user id, never "" for a computer seat) has a seat, by id;
 * *n gets the count. For inline mode: what may this person play now?
 */
int store_tables_of_user(struct store *s, const char *platform, const char *user, int64_t *out,
			 int max, int *n);

/* ---- seats ---- */
struct store_seat {
	int seat;                      /* 0-based seat number */
	char user[STORE_ID_LEN];       /* platform user id; "" for a computer seat */
	char name[STORE_NAME_LEN];
	int level;                     /* computer level (enum gb_level), -1 for a person */
};

/* Up to max seats of table, ordered by seat; *n gets the count. */
int store_seats_get(struct store *s, int64_t table, struct store_seat *out, int max, int *n);

/* Replace all seats of table with seats[0..n-1]. */
int store_seats_set(struct store *s, int64_t table, const struct store_seat *seats, int n);

/* ---- move log (append only) ---- */
/* Append one accepted action: seq is 1, 2, ... per table. GB_EEXISTS if seq is taken. */
int store_move_append(struct store *s, int64_t table, int seq, const char *actor,
		      const char *action, const char *events_json);

/* Number of moves logged for table. */
int store_move_count(struct store *s, int64_t table, int *out);

/*
 * The number of table's last move, 0 when none: as moves are numbered 1,
 * 2, ... it equals store_move_count(), found with one seek instead of a
 * count that grows with the game.
 */
int store_move_last(struct store *s, int64_t table, int *out);

/* ---- outbox ---- */
/*
 * The delivery contract every platform adapter follows. The bot queues
 * replies with store_out_add() in the command's transaction. A worker
 * claims up to max rows with store_out_claim(), sends each one, then ends
 * every claimed row with exactly one of:
 *   store_out_done()      delivered: the row is removed;
 *   store_out_retry()     not delivered, try again at due_ms (count_attempt 0
 *                         for a platform's retry-after, 1 for a failure);
 *   store_out_set_aside() given up: kept for a person to look at, never sent.
 * A claim is a lease: a worker that dies before ending its rows leaves them
 * leased until lease_until_ms, after which they are claimed again (so a
 * message may be sent twice, never lost). A chat's rows go out one at a
 * time, turn-critical rows (STORE_OUT_TURN) before informational ones
 * (STORE_OUT_INFO), each class in queue order (a turn-critical row that
 * replaced others keeps the oldest one's place, see store_out_add(), in
 * its chat too):
 * only the chat's head - its first turn-critical row not set aside, or
 * when it has none its first informational one - is ever claimed, and only while no other row of the
 * chat is under a live lease, so the next one waits until it is done or
 * set aside. A platform's retry-after for one chat is store_out_delay() of
 * that chat only.
 */
enum store_out_prio {
	STORE_OUT_INFO = 0,            /* joins, settings, notices: wait behind the boards */
	STORE_OUT_TURN = 1,            /* a board (whose turn it is) or a press's answer */
};
struct store_out {
	int64_t id;
	char platform[16];
	char chat[STORE_ID_LEN];
	int64_t table;                 /* table the row belongs to, 0 none */
	char key[32];                  /* coalescing key, "" none */
	char *payload;                 /* JSON text (a rendered reply), owned */
	int attempts;
	int64_t due_ms;
	int64_t lease_until_ms;        /* claimed until then; 0 never claimed or released */
	int prio;                      /* enum store_out_prio */
};
void store_out_release(struct store_out *o);

/*
 * Queue a message for chat of platform, due at due_ms, belonging to table
 * (0 none). A non-empty key (e.g. "table:42" for a table's message) marks
 * a replaceable row: every earlier row of the same platform, chat and key
 * that is not set aside and not claimed is deleted with the insert, all or
 * nothing, so only the newest goes out. A row counts as claimed while its
 * lease runs past due_ms (the new row cannot be claimed before then), and
 * is kept: its worker may be sending it now. key NULL is "".
 * The row's due time is due_ms, but never earlier than the chat's other
 * pending rows' (a chat told to wait, store_out_delay(), waits for its new
 * rows too), and a row that replaces others takes the place of the oldest
 * of them (their earliest due time): a table whose board keeps changing
 * while it waits keeps its turn rather than going to the back, among the
 * platform's chats, and a turn-critical one within its own chat too (a
 * line queued after the replaced board still goes after the board).
 */
int store_out_add(struct store *s, const char *platform, const char *chat, int64_t table,
		  const char *key, const char *payload, int64_t due_ms);

/*
 * store_out_add() of a row of class prio (store_out_add() is STORE_OUT_INFO).
 * A STORE_OUT_TURN row goes out before the chat's informational rows
 * queued earlier that are not yet claimed; rows of one class keep their
 * queue order. A key's rows are of one class: a new row replaces only the
 * rows of its key, and takes the place of its class. GB_EARGS for a
 * prio that is not one of enum store_out_prio.
 */
int store_out_add_prio(struct store *s, const char *platform, const char *chat, int64_t table,
		       const char *key, const char *payload, int64_t due_ms,
		       enum store_out_prio prio);

/*
 * Claim up to max rows of platform to send now, at most one per chat: a
 * chat's head (its first turn-critical row not set aside in queue order,
 * else its first row), if it is due (due_ms <= now_ms) and neither it nor another row of
 * its chat is under a live lease (lease_until_ms <= now_ms: an expired
 * lease is a worker that crashed, and its row is claimed again). The claimed rows get
 * lease_until_ms = now_ms + lease_ms (lease_ms > 0), in one transaction
 * (nested in the caller's, if one is open). Of the chats' heads that are
 * due, those queued first are picked (a row that replaced others keeps
 * the oldest one's place): when more are due than a platform can take,
 * every chat's turn comes round, none starved by rows newer than its own
 * (rows told to wait all wait until one time, then go in queue order, not
 * newest first). They are returned oldest due first (then in queue order)
 * and *n gets the count.
 */
int store_out_claim(struct store *s, const char *platform, int64_t now_ms, int64_t lease_ms,
		    struct store_out *out, int max, int *n);

/*
 * Up to max rows of platform due by now_ms, not set aside, oldest first,
 * whatever their leases and chat order (for the console, which prints
 * everything at once); *n gets the count. Claims nothing.
 */
int store_out_due(struct store *s, const char *platform, int64_t now_ms,
		  struct store_out *out, int max, int *n);

/*
 * The newest max pending rows (not set aside) of chat of platform, in
 * queue order (oldest of them first), due or not, leased or not; *n gets
 * the count. Claims nothing: an adapter answering a command in place
 * looks for that command's rows here, the chat's newest however many
 * older ones wait out a rate limit, and takes those not under a lease
 * with store_out_done(), inside a transaction so that no worker claims
 * them meanwhile.
 */
int store_out_chat(struct store *s, const char *platform, const char *chat,
		   struct store_out *out, int max, int *n);

/* Delivered: remove it from the queue. */
int store_out_done(struct store *s, int64_t id);

/*
 * Not delivered: release the lease and try again at due_ms; attempts += 1
 * only when count_attempt (a platform's retry-after is not an attempt).
 * GB_ENOTFOUND if there is no such row, or it was set aside.
 */
int store_out_retry(struct store *s, int64_t id, int64_t due_ms, int count_attempt);

/*
 * A claimed row kept longer: its lease runs until lease_until_ms (the
 * worker that holds it still decides about it), or on to its end when
 * that is later: a lease is never shortened, since the worker may still
 * be sending the row until then. GB_ENOTFOUND if there is no such row, or
 * it is not under a lease, or it was set aside.
 */
int store_out_extend(struct store *s, int64_t id, int64_t lease_until_ms);

/*
 * A pending row taken by a thread of its own until lease_until_ms, as a
 * worker's claim takes it (no worker claims it, nor another row of its
 * chat, until then), to send it itself: settled afterwards with
 * store_out_done() or store_out_retry(). Its due time is left as it is,
 * so the chat's rows queued meanwhile are placed as ever, not behind the
 * lease. GB_ENOTFOUND if there is no such row, it was set aside, or a
 * worker holds it at now_ms.
 */
int store_out_lease(struct store *s, int64_t id, int64_t now_ms, int64_t lease_until_ms);

/*
 * A pending row's payload replaced (a view rewritten before it is sent,
 * inside a transaction that read it with store_out_chat()). GB_ENOTFOUND
 * if there is no such row, or it was set aside.
 */
int store_out_set_payload(struct store *s, int64_t id, const char *payload);

/*
 * Given up: the row stays in the database, set aside with why (NULL "")
 * and the time, and is never claimed (nor listed by store_out_due) again;
 * the rows behind it in its chat go on. GB_ENOTFOUND if there is no such
 * row, or it already was set aside.
 */
int store_out_set_aside(struct store *s, int64_t id, const char *why);

/*
 * The rows of platform (NULL: every platform) set aside within the last
 * within_ms by the store's clock, back in their queue, once their cause is
 * mended (`gamebot requeue`): due at due_ms, no attempt counted, each in
 * its old place among its chat's rows (a board overtaken since is not
 * sent). *n gets how many.
 */
int store_out_requeue(struct store *s, const char *platform, int64_t within_ms, int64_t due_ms, int *n);

/*
 * Every pending row of chat of platform (chat NULL: of the whole platform)
 * gets due_ms = max(due_ms, until_ms).
 */
int store_out_delay(struct store *s, const char *platform, const char *chat, int64_t until_ms);

/*
 * Every pending row claimed under a lease that runs past now_ms is free to
 * claim again at once; *n (may be NULL) gets how many. For a service
 * starting on a database no other process serves (a SQLite file): such
 * claims are a stopped predecessor's, and would otherwise wait out their
 * leases. What a worker does with a row it finds taken back is the same
 * as after a lease runs out.
 */
int store_out_unlease(struct store *s, int64_t now_ms, int *n);

/*
 * Of platform (NULL: all platforms): *pending = rows waiting or claimed,
 * *aside = rows set aside, *oldest_due_ms = the earliest due_ms of the
 * pending rows (0 when none). Any of the three may be NULL.
 */
int store_out_count(struct store *s, const char *platform, int *pending, int *aside,
		    int64_t *oldest_due_ms);

/* ---- timers (computer turns, idle autoplay, watch-mode pacing) ---- */
struct store_timer {
	int64_t table;
	char kind[16];                 /* "bot", "idle", "next" */
	int64_t due_ms;
	int64_t version;               /* table version it was set for: stale if the table moved on */
	int attempts;                  /* failed runs since it was set */
};

/* Set (insert or replace) the timer kind of table; attempts start again at 0 (t->attempts is ignored). */
int store_timer_set(struct store *s, const struct store_timer *t);

/*
 * The timer kind of table, set for version, failed: attempts += 1 and it
 * is due again at due_ms (version unchanged); *attempts = the new count.
 * GB_ENOTFOUND if no such timer, or one set for another version since (a
 * fresh timer is not delayed, nor counted, for its stale one's failure).
 */
int store_timer_retry(struct store *s, int64_t table, const char *kind, int64_t version, int64_t due_ms,
		      int *attempts);

/*
 * The timer kind of table, set for version, due at due_ms instead (an idle
 * timer that found its wait lengthened). GB_ENOTFOUND if no such timer, or
 * one set for another version since: a timer that fired late never
 * replaces the one set by the move made meanwhile.
 */
int store_timer_delay(struct store *s, int64_t table, const char *kind, int64_t version, int64_t due_ms);

/* Remove the timer kind of table (kind NULL: all of the table's timers). */
int store_timer_clear(struct store *s, int64_t table, const char *kind);

/*
 * Remove the timer kind of table only if it was set for version: a timer
 * found stale must not take with it the fresh one that replaced it (two
 * schedulers may fire the same due row).
 */
int store_timer_drop(struct store *s, int64_t table, const char *kind, int64_t version);

/* Up to max timers due by now_ms, earliest first. */
int store_timer_due(struct store *s, int64_t now_ms, struct store_timer *out, int max, int *n);

/* The earliest timer of any kind (GB_ENOTFOUND if none). */
int store_timer_next(struct store *s, struct store_timer *out);

/* ---- stats (per chat leaderboard) ---- */
struct store_stat {
	char user[STORE_ID_LEN];
	char name[STORE_NAME_LEN];
	char game[16];
	int games;
	int wins;
	int points;                    /* Call Break points in tenths */
};

/* Add one finished game for user in chat: games += 1, wins += win, points += points. */
int store_stat_add(struct store *s, int64_t chat, const char *user, const char *name,
		   const char *game, int win, int points);

/* Leaderboard of chat (all games when game is NULL), best first. */
int store_stats_get(struct store *s, int64_t chat, const char *game,
		    struct store_stat *out, int max, int *n);

/* ---- meta (an adapter's own durable facts, e.g. a polling offset) ---- */
/*
 * Copy the value of key into buf (cap bytes, NUL-terminated). GB_ENOTFOUND
 * if key is not set; GB_EARGS if the value does not fit (a fact is never
 * cut). buf is "" on any error. Keys fit STORE_ID_LEN.
 */
int store_meta_get(struct store *s, const char *key, char *buf, size_t cap);

/* Set (insert or replace) the value of key. */
int store_meta_set(struct store *s, const char *key, const char *value);

/* ---- the move log, read back (replay, /verify) ---- */
struct store_move {
	int seq;                       /* 1, 2, ... */
	char actor[STORE_ID_LEN];      /* what the bot logged as the actor (the seat number) */
	char action[64];               /* canonical action text ("roll", "play QS") */
	char *events;                  /* JSON text of the events it caused, owned */
};
void store_move_release(struct store_move *m);

/*
 * Up to max moves of table with seq > after_seq, in order; *n gets the
 * count. Release each with store_move_release(). Page through a long log
 * by passing the last seq read.
 */
int store_moves_get(struct store *s, int64_t table, int after_seq, struct store_move *out,
		    int max, int *n);

/* ---- a table's terms: its sealed seed and its stake ---- */
struct store_terms {
	char seed[65];                 /* 64 lowercase hex digits (32 bytes); the game's seed
	                                  (store_table.seed) is read from its first 16 */
	int64_t stake;                 /* coins each person stakes, 0 none */
};

/*
 * Write the terms of table. The seed is fixed by the first write (GB_EARGS
 * unless 64 lowercase hex digits); later writes change only the stake.
 */
int store_terms_set(struct store *s, int64_t table, const struct store_terms *t);

/* The terms of table; GB_ENOTFOUND for a table without any (opened before schema 3). */
int store_terms_get(struct store *s, int64_t table, struct store_terms *out);

/* ---- coins: one double-entry ledger per chat ---- */
/*
 * Coins sit in accounts named by text: "user:ID" a member's wallet,
 * "bank" the chat's bank (it pays the grants, so its balance is minus
 * every coin in circulation), "pot:TABLE" the stakes held for a table.
 * A movement takes amount coins from one account and gives them to
 * another: two rows written by one statement, in the caller's
 * transaction, so every chat's accounts always add up to 0. The ledger is
 * append only (a database trigger refuses updates and deletes).
 *
 * What the schema itself refuses, whatever the caller read before it
 * wrote (so two commands deciding at once on old balances cannot both
 * win): a second starting grant of an account (a movement of reason
 * "start" from the bank: a unique index), and a movement that takes an
 * account other than the bank below 0 (a trigger on the balance kept
 * beside the ledger; an account already below 0 in a database from
 * before may still receive coins). Either refusal is GB_ECONFLICT.
 */
#define STORE_ACCOUNT_LEN 80

struct store_coin_move {
	char from[STORE_ACCOUNT_LEN];
	char from_name[STORE_NAME_LEN]; /* display name of a wallet, "" else */
	char to[STORE_ACCOUNT_LEN];
	char to_name[STORE_NAME_LEN];
	int64_t amount;                /* > 0 */
	int64_t table;                 /* the table it concerns, 0 none */
	char reason[16];               /* "start" (a wallet's starting grant, once),
	                                  "grant", "stake", "win", "refund", "return" */
	int64_t at_ms;
};

/*
 * Record one movement in chat. GB_EARGS for amount <= 0 or from == to;
 * GB_ECONFLICT when the ledger refuses it (a second starting grant, an
 * account taken below 0): someone else moved the coins first, so roll
 * back and decide again on what the store holds now.
 */
int store_coins_move(struct store *s, int64_t chat, const struct store_coin_move *m);

/* *balance = the coins in account of chat; *rows (may be NULL) = its ledger rows. */
int store_coins_balance(struct store *s, int64_t chat, const char *account, int64_t *balance,
			int *rows);

struct store_balance {
	char account[STORE_ACCOUNT_LEN];
	char name[STORE_NAME_LEN];     /* the latest name written for it */
	int64_t balance;
};

/* Up to max accounts of chat whose name starts with prefix ("user:"), richest first. */
int store_coins_top(struct store *s, int64_t chat, const char *prefix, struct store_balance *out,
		    int max, int *n);

/*
 * Check the ledger of chat (0: of every chat, the online world's too):
 * each chat's accounts add up to 0; each movement is exactly two rows of
 * one chat, table, reason and time, taking from one account what it gives
 * another, written one after the other; no account but the bank is below
 * 0; only the pot of a table being played holds coins; the bank pays
 * grants and nothing else; no account has more than one starting grant;
 * each kept balance is the sum and count of its account's ledger rows.
 * GB_OK, or GB_EINVARIANT with the first breach described in why (cap
 * bytes; why may be NULL).
 */
int store_coins_audit(struct store *s, int64_t chat, char *why, size_t cap);

/* One breach of the ledger's rules that the audit found. */
struct store_breach {
	int64_t chat;                  /* the chat's store id */
	const char *rule;              /* the rule broken, in words, naming what value is */
	char subject[STORE_ACCOUNT_LEN]; /* the account or "movement N" at fault, "" the chat's own */
	int64_t value;                 /* the number that breaks it: a total, balance or count */
};
typedef void (*store_breach_fn)(const struct store_breach *b, void *arg);

/*
 * store_coins_audit(), every breach told: fn (may be NULL) is called for
 * each, at most max (>= 1) per rule; *found (may be NULL) gets how many.
 * GB_OK when there are none, GB_EINVARIANT when there are, else the
 * store's failure.
 */
int store_coins_audit_each(struct store *s, int64_t chat, int max, store_breach_fn fn, void *arg,
			   int *found);

/* What an audit of chat (0: every chat) covers: chats with coins, their accounts, movements. */
int store_coins_census(struct store *s, int64_t chat, int64_t *chats, int64_t *accounts, int64_t *movements);

/* ---- online tables: a queue per game, seats in private chats, names, blocks, ratings ---- */
/*
 * A person is a platform and a user id on it; the store keeps both apart
 * (a Telegram and a Discord person may have the same id). An online
 * table is an ordinary table in a place of its own; each of its seats
 * also has an online seat: the person's private chat with the bot (where
 * the table is shown, in its own message), the name they play under and
 * their language.
 */
struct store_queue {
	int64_t id;
	char game[16];
	int seats;                     /* the table size waited for */
	int64_t stake;                 /* coins each seat stakes, 0 none */
	char platform[16];
	char user[STORE_ID_LEN];
	char chat[STORE_ID_LEN];       /* their private chat with the bot */
	char name[STORE_NAME_LEN];     /* the name they play under */
	char lang[8];
	int fill;                      /* 1: computers may fill the free seats after the wait */
	int64_t rating;                /* their rating for the game, in thousandths */
	int64_t since_ms;              /* when they started waiting */
	char message[32];              /* the queue message's id in their chat, "" not yet sent */
	int shown;                     /* the people waiting that message last said */
};

/* Queue q (id and since set by the caller's clock). GB_EEXISTS when the person already waits. */
int store_queue_add(struct store *s, const struct store_queue *q);

/*
 * The queue message in the private chat of platform: its id ("" not
 * sent yet, or nobody there waits: *found 0); store_queue_set_message()
 * records it (*found 0 when nobody there waits any more).
 * store_queue_shown(): the entry's message now says shown people wait.
 */
int store_queue_message(struct store *s, const char *platform, const char *chat, char *message, size_t cap,
			int *found);
int store_queue_set_message(struct store *s, const char *platform, const char *chat, const char *message,
			    int *found);
int store_queue_shown(struct store *s, int64_t id, int shown);

/*
 * The person leaves the queue; *left (may be NULL) 1 when they were in it,
 * and message (may be NULL, cap bytes) the id of their queue message as
 * it was when the entry went ("" none).
 */
int store_queue_leave(struct store *s, const char *platform, const char *user, int *left, char *message,
		      size_t cap);

/* The person's queue entry. GB_ENOTFOUND when they wait for nothing. */
int store_queue_of(struct store *s, const char *platform, const char *user, struct store_queue *out);

/* Up to max queue entries, by game, seats, stake, then longest waiting first; *n gets the count. */
int store_queue_list(struct store *s, struct store_queue *out, int max, int *n);

/* The person accepts (1) or refuses (0) computers filling the free seats. GB_ENOTFOUND: not queued. */
int store_queue_fill(struct store *s, const char *platform, const char *user, int fill);

/*
 * Take the n entries ids[0..n-1] (n 1 to 4) out of the queue in one
 * statement: GB_OK when every one of them was still there, else
 * GB_ECONFLICT (someone else claimed one first; roll back). messages (may
 * be NULL) gets each entry's queue message id as it was when the entry
 * went, messages[i] ids[i]'s ("" none).
 */
int store_queue_claim(struct store *s, const int64_t *ids, int n, char (*messages)[32]);

/* People waiting per game, up to max games: game, count, and since when the longest waits. */
struct store_queue_count {
	char game[16];
	int waiting;
	int64_t oldest_ms;
};
int store_queue_by_game(struct store *s, struct store_queue_count *out, int max, int *n);

struct store_oseat {
	int seat;
	char platform[16];
	char user[STORE_ID_LEN];
	char chat[STORE_ID_LEN];
	char name[STORE_NAME_LEN];
	char lang[8];
	char message[STORE_ID_LEN];    /* the table message in that chat, "" until posted */
	int away;                      /* a computer plays for the seat at its own pace until
	                                  the person presses or types something */
};

/* Record the online seat o of table. */
int store_oseat_add(struct store *s, int64_t table, const struct store_oseat *o);

/* Up to max online seats of table, by seat; *n gets the count. */
int store_oseats_get(struct store *s, int64_t table, struct store_oseat *out, int max, int *n);

/* The open online table where the person holds a seat (not left). GB_ENOTFOUND when none. */
int store_oseat_open(struct store *s, const char *platform, const char *user, int64_t *table);

/*
 * The newest online table the person sat at that is still kept (open, or
 * over and not yet pruned), whether or not they left it. GB_ENOTFOUND when none.
 */
int store_oseat_last(struct store *s, const char *platform, const char *user, int64_t *table);

/*
 * The table message of table in chat of platform: the online seat's own
 * when the chat is one (*found 1), else *found 0 and message "".
 * store_view_set_message() records it; *found 0 when no seat has that chat.
 */
int store_view_message(struct store *s, int64_t table, const char *platform, const char *chat,
		       char *message, size_t cap, int *found);
int store_view_set_message(struct store *s, int64_t table, const char *platform, const char *chat,
			   const char *message, int *found);

/* The name the person chose ("" none) and their last online table (0 none). */
int store_person_get(struct store *s, const char *platform, const char *user, char *name, size_t cap,
		     int64_t *last_table);
/*
 * The person plays under name from now on, key being the name folded
 * (case aside): GB_EEXISTS when another person holds that key (a unique
 * index, so two people claiming one name at once never both get it).
 */
int store_person_name(struct store *s, const char *platform, const char *user, const char *name,
		      const char *key);
/* Who plays under the folded name key: *found 0 when nobody does. */
int store_person_named(struct store *s, const char *key, char *platform, size_t pcap, char *user, size_t ucap,
		       int *found);
/* A computer plays for seat of table at its own pace (away 1), or no longer (0). */
int store_oseat_away(struct store *s, int64_t table, int seat, int away);
/* The person pressed or typed something: none of their seats is away any more; *n (may be NULL) how many were. */
int store_person_back(struct store *s, const char *platform, const char *user, int *n);
int store_person_last(struct store *s, const char *platform, const char *user, int64_t table);

/* The person never meets the other at an online table again. */
int store_block_add(struct store *s, const char *platform, const char *user, const char *other_platform,
		    const char *other_user);
/* *blocked 1 when either of the two blocked the other. */
int store_blocked(struct store *s, const char *platform_a, const char *user_a, const char *platform_b,
		  const char *user_b, int *blocked);

/* A Glicko-2 rating (thousandths; sigma in millionths) of a person in a game. */
struct store_rating {
	char platform[16];
	char user[STORE_ID_LEN];
	char name[STORE_NAME_LEN];
	int64_t r, rd, sigma;
	int games;
};
/* GB_ENOTFOUND when the person has no rating in game yet. */
int store_rating_get(struct store *s, const char *platform, const char *user, const char *game,
		     struct store_rating *out);
/*
 * Store r, worked out from the rating read with was_games games (-1: none
 * was stored). GB_ECONFLICT when the stored one is no longer that (another
 * game of the person's ended meanwhile and rated them first): the caller's
 * transaction works it out again, so no game's change is lost.
 */
int store_rating_set(struct store *s, const char *game, const struct store_rating *r, int was_games);
/* Up to max ratings of game, highest first. */
int store_rating_top(struct store *s, const char *game, struct store_rating *out, int max, int *n);

#endif
