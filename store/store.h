/*
 * store.h - everything gamebot keeps, behind one set of functions.
 *
 * The store knows chats, tables, seats, a move log, processed updates, an
 * outbox, timers and stats; it knows no platform and no game rules (states,
 * settings and payloads are opaque JSON text to it). The SQLite backend
 * (store/sqlite.c) uses WAL, foreign keys, a busy timeout and a versioned
 * schema migrated at open. Every statement is prepared; no SQL is ever built
 * from data.
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
 * Every function returns GB_OK or an enum gb_error code (GB_ESTORE for a
 * database failure, GB_ENOTFOUND, GB_EDUP, GB_ECONFLICT as documented).
 */
#ifndef GB_STORE_H
#define GB_STORE_H

#include <stdint.h>

#include "games/error.h"

#define STORE_ID_LEN 64     /* platform ids (chat, user, message) as text */
#define STORE_NAME_LEN 64   /* display names, UTF-8, truncated on a character boundary */

struct store;

/*
 * Open (creating it and its parent folder if needed) the SQLite database at
 * path and migrate it to the current schema. On success *out is a new
 * handle the caller owns: close it with store_free().
 */
int store_open(struct store **out, const char *path);

/* Close the database; a no-op on NULL. */
void store_free(struct store *s);

/* Is the database reachable? (For /healthz.) */
int store_ping(struct store *s);

/* Schema version now in the file. */
int store_schema_version(struct store *s);

/* BEGIN IMMEDIATE; COMMIT; ROLLBACK (rollback is safe without a transaction). */
int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback(struct store *s);

/* Record that a platform update was processed. GB_EDUP if it already was. */
int store_mark_processed(struct store *s, const char *platform, const char *update_id);

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
	int64_t turn_started_ms;       /* when the current turn began (idle autoplay) */
	char *rules;                   /* JSON object text, owned */
	char *state;                   /* game state JSON text, owned; NULL in the lobby */
};
void store_table_release(struct store_table *t);

/* The chat's open table (lobby or playing). GB_ENOTFOUND if none. */
int store_table_open_get(struct store *s, int64_t chat, struct store_table *out);

/* A table by id. GB_ENOTFOUND if none. */
int store_table_get(struct store *s, int64_t id, struct store_table *out);

/* Insert t (id and version are set on success; version starts at 1). */
int store_table_insert(struct store *s, struct store_table *t);

/*
 * Write status, message, turn_started_ms, rules and state of t if its
 * version in the database is still t->version; then t->version is bumped.
 * GB_ECONFLICT if someone else wrote first.
 */
int store_table_update(struct store *s, struct store_table *t);

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

/* ---- outbox ---- */
struct store_out {
	int64_t id;
	char platform[16];
	char chat[STORE_ID_LEN];
	char *payload;                 /* JSON text (a rendered reply), owned */
	int attempts;
	int64_t due_ms;
};
void store_out_release(struct store_out *o);

/* Queue a message for delivery at due_ms (epoch milliseconds). */
int store_out_add(struct store *s, const char *platform, const char *chat,
		  const char *payload, int64_t due_ms);

/* Up to max messages of platform due by now_ms, oldest first; *n gets the count. */
int store_out_due(struct store *s, const char *platform, int64_t now_ms,
		  struct store_out *out, int max, int *n);

/* Delivered: remove it from the queue. */
int store_out_done(struct store *s, int64_t id);

/* Not delivered: count the attempt and try again at due_ms. */
int store_out_retry(struct store *s, int64_t id, int64_t due_ms);

/* ---- timers (computer turns, idle autoplay, watch-mode pacing) ---- */
struct store_timer {
	int64_t table;
	char kind[16];                 /* "bot", "idle", "next" */
	int64_t due_ms;
	int64_t version;               /* table version it was set for: stale if the table moved on */
};

/* Set (insert or replace) the timer kind of table. */
int store_timer_set(struct store *s, const struct store_timer *t);

/* Remove the timer kind of table (kind NULL: all of the table's timers). */
int store_timer_clear(struct store *s, int64_t table, const char *kind);

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

#endif
