/*
 * backend.h - the seam between store.h and the databases behind it.
 *
 * store.c owns the public handle and calls through one struct store_ops
 * per database, never naming one: store/sqlite.c fills store_sqlite_ops
 * (a file path, the embedded default) and store/pg.c fills store_pg_ops
 * (a postgres:// or postgresql:// URL, for several instances sharing one
 * database). Adding a database is one file and one row in store.c's table.
 *
 * Every slot is the store_ function of the same name with the contract
 * store.h gives it, taking the backend's own handle (struct
 * store_backend, which each backend defines for itself and nobody else
 * looks into) instead of struct store. A slot is called with a NULL
 * handle when its caller passed a NULL store, and must answer as store.h
 * says (GB_EARGS, outputs zeroed) without touching anything.
 *
 * Also here: the argument checks both backends make the same way.
 */
#ifndef GB_STORE_BACKEND_H
#define GB_STORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/store.h"

struct store_backend;

struct store_ops {
	/* "sqlite", "postgresql": for messages */
	const char *name;
	/* 1 when the database takes one writer at a time (SQLite): commands
	 * ready together then do better sharing one transaction */
	int one_writer;

	/* ---- open, close, transactions ---- */
	int (*open)(struct store_backend **out, const char *target);
	void (*close)(struct store_backend *b);
	/* store_background_checkpoints(), for this backend's handles; NULL: nothing to do */
	void (*background_checkpoints)(int on);
	int (*checkpoint)(struct store_backend *b, int *log_pages, int *copied);
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

	/* ---- processed updates ---- */
	int (*was_processed)(struct store_backend *b, const char *platform, const char *update_id);
	int (*mark_processed)(struct store_backend *b, const char *platform, const char *update_id);
	int (*processed_prune)(struct store_backend *b, int64_t before_ms, int *n);
	int (*explain)(struct store_backend *b, char *out, size_t cap);
	/* store_page_cache(); NULL: the database keeps no pages in the process */
	void (*page_cache)(uint64_t *hits, uint64_t *misses);
	/* ---- pruning in batches ---- */
	int (*processed_prune_some)(struct store_backend *b, int64_t before_ms, int max, int *n);
	int (*tables_prune)(struct store_backend *b, int64_t before_ms, int max, int *n);
	int (*out_aside_prune)(struct store_backend *b, int64_t before_ms, int max, int *n);

	/* ---- chats ---- */
	int (*chat_get)(struct store_backend *b, const char *platform, const char *chat,
		const char *default_lang, struct store_chat *out);
	int (*chat_get_by_id)(struct store_backend *b, int64_t id, struct store_chat *out);
	int (*chat_save)(struct store_backend *b, const struct store_chat *c);
	int (*chat_move)(struct store_backend *b, const char *platform, const char *from,
		const char *to);

	/* ---- tables ---- */
	int (*table_open_get)(struct store_backend *b, int64_t chat, struct store_table *out);
	int (*table_get)(struct store_backend *b, int64_t id, struct store_table *out);
	int (*table_insert)(struct store_backend *b, struct store_table *t);
	int (*table_update)(struct store_backend *b, struct store_table *t);
	int (*table_set_message)(struct store_backend *b, int64_t table, const char *message);
	int (*tables_count)(struct store_backend *b, int64_t chat, int64_t since_ms,
		int open_only, int watch_only, int *n);
	int (*tables_open_by_game)(struct store_backend *b, struct store_game_count *out,
		int max, int *n);
	int (*tables_of_user)(struct store_backend *b, const char *platform, const char *user,
		int64_t *out, int max, int *n);

	/* ---- seats ---- */
	int (*seats_get)(struct store_backend *b, int64_t table, struct store_seat *out,
		int max, int *n);
	int (*seats_set)(struct store_backend *b, int64_t table, const struct store_seat *seats,
		int n);

	/* ---- the move log ---- */
	int (*move_append)(struct store_backend *b, int64_t table, int seq, const char *actor,
		const char *action, const char *events_json);
	int (*move_count)(struct store_backend *b, int64_t table, int *out);
	int (*move_last)(struct store_backend *b, int64_t table, int *out);

	/* ---- the outbox ---- */
	int (*out_add)(struct store_backend *b, const char *platform, const char *chat,
		int64_t table, const char *key, const char *payload, int64_t due_ms, int prio);
	int (*out_claim)(struct store_backend *b, const char *platform, int64_t now_ms,
		int64_t lease_ms, struct store_out *out, int max, int *n);
	int (*out_due)(struct store_backend *b, const char *platform, int64_t now_ms,
		struct store_out *out, int max, int *n);
	int (*out_chat)(struct store_backend *b, const char *platform, const char *chat,
			struct store_out *out, int max, int *n);
	int (*out_done)(struct store_backend *b, int64_t id);
	int (*out_retry)(struct store_backend *b, int64_t id, int64_t due_ms, int count_attempt);
	int (*out_set_aside)(struct store_backend *b, int64_t id, const char *why);
	int (*out_delay)(struct store_backend *b, const char *platform, const char *chat,
		int64_t until_ms);
	int (*out_unlease)(struct store_backend *b, int64_t now_ms, int *n);
	int (*out_count)(struct store_backend *b, const char *platform, int *pending,
		int *aside, int64_t *oldest_due_ms);

	/* ---- timers ---- */
	int (*timer_set)(struct store_backend *b, const struct store_timer *t);
	int (*timer_retry)(struct store_backend *b, int64_t table, const char *kind,
		int64_t due_ms, int *attempts);
	int (*timer_clear)(struct store_backend *b, int64_t table, const char *kind);
	int (*timer_drop)(struct store_backend *b, int64_t table, const char *kind,
		int64_t version);
	int (*timer_due)(struct store_backend *b, int64_t now_ms, struct store_timer *out,
		int max, int *n);
	int (*timer_next)(struct store_backend *b, struct store_timer *out);

	/* ---- stats ---- */
	int (*stat_add)(struct store_backend *b, int64_t chat, const char *user,
		const char *name, const char *game, int win, int points);
	int (*stats_get)(struct store_backend *b, int64_t chat, const char *game,
		struct store_stat *out, int max, int *n);

	/* ---- meta ---- */
	int (*meta_get)(struct store_backend *b, const char *key, char *buf, size_t cap);
	int (*meta_set)(struct store_backend *b, const char *key, const char *value);

	/* ---- the move log read back ---- */
	int (*moves_get)(struct store_backend *b, int64_t table, int after_seq,
		struct store_move *out, int max, int *n);

	/* ---- terms ---- */
	int (*terms_set)(struct store_backend *b, int64_t table, const struct store_terms *t);
	int (*terms_get)(struct store_backend *b, int64_t table, struct store_terms *out);

	/* ---- coins ---- */
	int (*coins_move)(struct store_backend *b, int64_t chat, const struct store_coin_move *m);
	int (*coins_balance)(struct store_backend *b, int64_t chat, const char *account,
		int64_t *balance, int *rows);
	int (*coins_top)(struct store_backend *b, int64_t chat, const char *prefix,
		struct store_balance *out, int max, int *n);
	int (*coins_audit)(struct store_backend *b, int64_t chat, char *why, size_t cap);
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_pg_ops;

/* Buffer size of a field of a row struct (sizeof does not evaluate). */
#define CAP(type, field) sizeof(((struct type *)0)->field)

/* Is str a string that fits a buffer of cap bytes (empty allowed)? */
static inline int fits(const char *str, size_t cap)
{
	return str && strnlen(str, cap) < cap;
}

/* Is str a non-empty string that fits a buffer of cap bytes? */
static inline int id_ok(const char *str, size_t cap)
{
	return fits(str, cap) && str[0] != '\0';
}

/* Is seed 64 lowercase hex digits (a table's sealed seed)? */
static inline int seed_hex_ok(const char *seed)
{
	size_t i;

	for (i = 0; seed[i]; i++)
		if (!((seed[i] >= '0' && seed[i] <= '9') || (seed[i] >= 'a' && seed[i] <= 'f')))
			return 0;
	return i == 64;
}

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
