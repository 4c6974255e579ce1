/*
 * ops.c - the store's operations on rows, written once for every database:
 * updates already processed, chats, tables, their seats and move log, the
 * statements' plans and the meta rows. The outbox and the timers are in
 * store/outbox.c, statistics, terms and coins in store/coins.c, online
 * tables in store/online.c; all of them work as this file describes.
 *
 * Each store_ function here checks its arguments, runs its statements of
 * enum store_sql through the statement slots of the handle's backend
 * (store/backend.h) and shapes what comes back into the row structs of
 * store.h. What differs between the databases is behind those slots: the
 * SQL text, binding, and the database's own error classes, already gb_error
 * codes here (a unique violation is GB_EEXISTS, a foreign key GB_ENOTFOUND,
 * NOT NULL and CHECK GB_EARGS).
 *
 * Strings: identifiers (platform, chat, user, game, timer kind, message ids,
 * language) must fit their row buffers, or the call is GB_EARGS: truncating
 * an id could merge two chats. Display names are cut to STORE_NAME_LEN - 1
 * bytes on a UTF-8 character boundary before they are stored. Anything read
 * back is truncated to its buffer the same way, so a row written by other
 * software cannot overflow a struct.
 *
 * Out rows: every function that fills rows first zeroes them; on an error
 * they are left zeroed (nothing to release) and counts are 0.
 */
#include "store/backend.h"
#include "store/query.h"
#include "games/utf8.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- releasing rows ---- */

void store_chat_release(struct store_chat *c)
{
	if (!c)
		return;
	free(c->settings);
	c->settings = NULL;
}

void store_table_release(struct store_table *t)
{
	if (!t)
		return;
	free(t->rules);
	free(t->state);
	t->rules = NULL;
	t->state = NULL;
}

void store_out_release(struct store_out *o)
{
	if (!o)
		return;
	free(o->payload);
	o->payload = NULL;
}

void store_move_release(struct store_move *m)
{
	if (!m)
		return;
	free(m->events);
	m->events = NULL;
}

/* ---- processed updates ---- */

/* Is (platform, update_id) one a processed update may have? */
static int update_ok(const char *platform, const char *update_id)
{
	return id_ok(platform, CAP(store_chat, platform)) && update_id && update_id[0];
}

int store_was_processed(struct store *s, const char *platform, const char *update_id)
{
	struct q q;

	if (!s || !update_ok(platform, update_id))
		return GB_EARGS;
	q = q_get(s, SQL_PROCESSED_HAS);
	q_text(&q, 1, platform);
	q_text(&q, 2, update_id);
	if (q_row(&q))
		q.rc = GB_EDUP;
	return q_end(&q);
}

int store_mark_processed(struct store *s, const char *platform, const char *update_id)
{
	struct q q;

	if (!s || !update_ok(platform, update_id))
		return GB_EARGS;
	q = q_get(s, SQL_PROCESSED_ADD);
	q_text(&q, 1, platform);
	q_text(&q, 2, update_id);
	/* refused as a duplicate, or nothing inserted (a concurrent insert of the id waited for) */
	if (q_run(&q) == GB_EEXISTS || (!q.rc && q_changes(&q) == 0))
		q.rc = GB_EDUP;
	return q_end(&q);
}

/*
 * processed.at is epoch seconds: a record of second S was made before
 * before_ms for sure only if (S + 1) * 1000 <= before_ms, that is when
 * S < floor(before_ms / 1000).
 */
static int64_t processed_before(int64_t before_ms)
{
	return before_ms / 1000 - (before_ms % 1000 < 0);
}

int store_processed_prune(struct store *s, int64_t before_ms, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !n)
		return GB_EARGS;
	q = q_get(s, SQL_PROCESSED_PRUNE);
	q_i64(&q, 1, processed_before(before_ms));
	if (!q_run(&q))
		*n = q_changes(&q);
	return q_end(&q);
}

/* ---- pruning in batches ---- */

/*
 * One pruning statement (id: ?1 the time, ?2 at most max rows) in a
 * transaction of its own, or in the caller's; *n gets the rows it deleted.
 */
static int prune_some(struct store *s, enum store_sql id, int64_t before, int max, int *n)
{
	int outer = 0;
	struct q q;
	int rc;

	if (n)
		*n = 0;
	if (!s || !n || max <= 0)
		return GB_EARGS;
	rc = s->ops->sp_begin(s->b, &outer);
	if (rc)
		return rc;
	q = q_get(s, id);
	q_i64(&q, 1, before);
	q_i64(&q, 2, max);
	if (!q_run(&q))
		*n = q_changes(&q);
	rc = s->ops->sp_end(s->b, outer, q_end(&q));
	if (rc)
		*n = 0;
	return rc;
}

int store_processed_prune_some(struct store *s, int64_t before_ms, int max, int *n)
{
	return prune_some(s, SQL_PROCESSED_PRUNE_SOME, processed_before(before_ms), max, n);
}

int store_tables_prune(struct store *s, int64_t before_ms, int max, int *n)
{
	return prune_some(s, SQL_TABLES_PRUNE, before_ms, max, n);
}

int store_out_aside_prune(struct store *s, int64_t before_ms, int max, int *n)
{
	return prune_some(s, SQL_OUT_ASIDE_PRUNE, before_ms, max, n);
}

/* ---- plans ---- */

/*
 * The statements every command, delivery, timer and pruning step and
 * /metrics run, with representative arguments, whose plans store_explain() shows: each
 * must find its rows through an index, however many rows the tables hold.
 */
#define HOT(x, ...) { x, #x, { __VA_ARGS__ } }
static const struct {
	enum store_sql id;
	const char *name;
	const char *args[12];          /* NULL after the last */
} hot[] = {
	HOT(SQL_PROCESSED_HAS, "telegram", "123456"),
	HOT(SQL_PROCESSED_ADD, "telegram", "123456"),
	HOT(SQL_CHAT_FIND, "telegram", "-1001000"),
	HOT(SQL_CHAT_BY_ID, "1"),
	HOT(SQL_TABLE_OPEN_GET, "1"),
	HOT(SQL_TABLE_GET, "1"),
	HOT(SQL_TABLE_UPDATE, "1", "1000", "{}", "{}", "1", "1"),
	HOT(SQL_TABLE_UPDATE_SAME, "1", "1000", "{}", "{}", "1", "1"),
	HOT(SQL_SEATS_GET, "1", "8"),
	HOT(SQL_MOVE_ADD, "1", "1", "0", "roll", "[]"),
	HOT(SQL_MOVE_LAST, "1"),
	HOT(SQL_OUT_ADD, "telegram", "-1001000", "{}", "1000", "1", "table:1", "1"),
	/* every row due: the claim's order must come from its index, not a sort of them all */
	HOT(SQL_OUT_CLAIM, "telegram", "9000000000000", "9000000030000", "32"),
	HOT(SQL_OUT_DONE, "1"),
	HOT(SQL_OUT_RETRY, "1", "1000", "0"),
	HOT(SQL_OUT_PAYLOAD, "1", "{}"),
	HOT(SQL_OUT_CHAT, "telegram", "-1001000", "32"),
	HOT(SQL_TIMER_SET, "1", "bot", "1000", "1"),
	HOT(SQL_TIMER_CLEAR, "1", "bot"),
	HOT(SQL_TIMER_CLEAR_ALL, "1"),
	HOT(SQL_TIMER_DUE, "1000", "16"),
	HOT(SQL_TIMER_NEXT, NULL),
	HOT(SQL_TERMS_GET, "1"),
	HOT(SQL_STAT_ADD, "1", "u1", "ludo", "P", "1", "0"),
	HOT(SQL_COINS_BALANCE, "1", "user:1"),
	HOT(SQL_COINS_TOP, "1", "user:", "10"),
	/* /metrics' gauges, every 2 s */
	HOT(SQL_OUT_COUNT, "telegram"),
	HOT(SQL_TABLES_BY_GAME, "16"),
	HOT(SQL_TABLES_OF_USER, "telegram", "u1", "8"),
	HOT(SQL_PROCESSED_PRUNE_SOME, "1000", "1000"),
	HOT(SQL_TABLES_PRUNE, "1000", "20"),
	HOT(SQL_OUT_ASIDE_PRUNE, "1000", "1000"),
	/*
	 * online tables: a command in a private chat (its seat found first),
	 * the queue's commands, the matcher's round (the queue read, entries
	 * claimed, blocks checked, seats and ratings written), /metrics' queue
	 * gauges, a seat's own table message
	 */
	HOT(SQL_OSEAT_OPEN, "telegram", "u1"),
	HOT(SQL_OSEAT_LAST, "telegram", "u1"),
	HOT(SQL_QUEUE_MESSAGE, "telegram", "1"),
	HOT(SQL_QUEUE_SET_MESSAGE, "telegram", "1", "7"),
	HOT(SQL_QUEUE_SHOWN, "1", "2"),
	HOT(SQL_OSEATS_GET, "1", "8"),
	HOT(SQL_OSEAT_ADD, "1", "0", "telegram", "u1", "1", "P", "en"),
	HOT(SQL_OSEAT_MESSAGE, "1", "telegram", "1"),
	HOT(SQL_OSEAT_SET_MESSAGE, "1", "telegram", "1", "7"),
	HOT(SQL_QUEUE_ADD, "ludo", "2", "0", "telegram", "u1", "1", "P", "en", "0", "1500000", "1000"),
	HOT(SQL_QUEUE_LEAVE, "telegram", "u1"),
	HOT(SQL_QUEUE_OF, "telegram", "u1"),
	HOT(SQL_QUEUE_FILL, "telegram", "u1", "1"),
	HOT(SQL_QUEUE_LIST, "512"),
	HOT(SQL_QUEUE_CLAIM, "1", "2", "3", "4"),
	HOT(SQL_QUEUE_BY_GAME, "8"),
	HOT(SQL_PERSON_GET, "telegram", "u1"),
	HOT(SQL_PERSON_NAME, "telegram", "u1", "P", "p"),
	HOT(SQL_PERSON_BY_NAME, "p"),
	HOT(SQL_PERSON_BACK, "telegram", "u1"),
	HOT(SQL_OSEAT_AWAY, "1", "0", "1"),
	HOT(SQL_PERSON_LAST, "telegram", "u1", "1"),
	HOT(SQL_BLOCK_ADD, "telegram", "u1", "telegram", "u2"),
	HOT(SQL_BLOCKED, "telegram", "u1", "telegram", "u2"),
	HOT(SQL_RATING_GET, "telegram", "u1", "ludo"),
	HOT(SQL_RATING_SET, "telegram", "u1", "ludo", "P", "1500000", "350000", "60000", "1"),
	HOT(SQL_RATING_TOP, "ludo", "10"),
};
#undef HOT

/* Where store_explain() writes: out (cap bytes, NUL-terminated), len of it used. */
struct plan_out {
	char *out;
	size_t cap, len;
};

/* Append a, b and a line break; cut when full. */
static void plan_add(struct plan_out *p, const char *a, const char *b)
{
	int n = snprintf(p->out + p->len, p->cap - p->len, "%s%s\n", a, b);

	if (n > 0)
		p->len += (size_t)n < p->cap - p->len ? (size_t)n : p->cap - p->len - 1;
}

/* A line of a statement's plan, indented under its name. */
static void plan_line(void *arg, const char *text)
{
	plan_add(arg, "  ", text ? text : "");
}

int store_explain(struct store *s, char *out, size_t cap)
{
	struct plan_out p = { out, cap, 0 };
	int rc = GB_OK;

	if (!s || !out || cap < 2)
		return GB_EARGS;
	out[0] = '\0';
	for (size_t i = 0; !rc && i < sizeof hot / sizeof hot[0]; i++) {
		/* the name without its SQL_ */
		plan_add(&p, hot[i].name + 4, ":");
		rc = s->ops->explain(s->b, hot[i].id, hot[i].args, plan_line, &p);
	}
	return rc;
}

/* ---- chats ---- */

/* The row q is on (a chat SELECT's columns) into row, a struct store_chat. */
static void chat_cols(struct q *q, void *row)
{
	struct store_chat *c = row;

	c->id = col_i64(q, 0);
	col_copy(q, 1, c->platform, sizeof c->platform);
	col_copy(q, 2, c->chat, sizeof c->chat);
	col_copy(q, 3, c->lang, sizeof c->lang);
	col_dup(q, 4, &c->settings);
}

static void chat_release_row(void *row)
{
	store_chat_release(row);
}

/*
 * Step q (a chat SELECT, bound) and read its row into c; *found says
 * whether there was one. On an error c is left zeroed.
 */
static int chat_read(struct q *q, struct store_chat *c, int *found)
{
	*found = q_row(q);
	if (*found)
		chat_cols(q, c);
	if (q->rc) {
		store_chat_release(c);
		memset(c, 0, sizeof *c);
		*found = 0;
	}
	return q->rc;
}

/* Read the chat (platform, chat) into c; *found says whether it exists. */
static int chat_find(struct store *s, const char *platform, const char *chat, struct store_chat *c,
		     int *found)
{
	struct q q = q_get(s, SQL_CHAT_FIND);

	*found = 0;
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	if (!q.rc)
		chat_read(&q, c, found);
	return q_end(&q);
}

/* A NULL or empty default_lang means "en". */
int store_chat_get(struct store *s, const char *platform, const char *chat,
		   const char *default_lang, struct store_chat *c)
{
	struct q q;
	int found = 0;
	int rc;

	if (c)
		memset(c, 0, sizeof *c);
	if (!default_lang || !default_lang[0])
		default_lang = "en";
	if (!s || !c || !id_ok(platform, sizeof c->platform) || !id_ok(chat, sizeof c->chat) ||
	    !id_ok(default_lang, sizeof c->lang))
		return GB_EARGS;
	rc = chat_find(s, platform, chat, c, &found);
	if (rc || found)
		return rc;
	/* DO NOTHING on conflict: another instance may have added it just now. */
	q = q_get(s, SQL_CHAT_ADD);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	q_text(&q, 3, default_lang);
	q_run(&q);
	rc = q_end(&q);
	if (!rc)
		rc = chat_find(s, platform, chat, c, &found);
	if (!rc && !found)
		rc = GB_ESTORE;
	return rc;
}

/* Inside a transaction the chat stays as read until it ends. */
int store_chat_get_by_id(struct store *s, int64_t id, struct store_chat *c)
{
	struct q q;
	int found = 0;

	if (c)
		memset(c, 0, sizeof *c);
	if (!s || !c)
		return GB_EARGS;
	q = q_get(s, s->ops->in_transaction(s->b) ? SQL_CHAT_BY_ID_LOCK : SQL_CHAT_BY_ID);
	q_i64(&q, 1, id);
	if (!q.rc && !chat_read(&q, c, &found) && !found)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* GB_ENOTFOUND if there is no chat c->id. A NULL settings is saved as "{}". */
int store_chat_save(struct store *s, const struct store_chat *c)
{
	struct q q;

	if (!s || !c || !id_ok(c->lang, sizeof c->lang))
		return GB_EARGS;
	q = q_get(s, SQL_CHAT_SAVE);
	q_text(&q, 1, c->lang);
	q_text(&q, 2, c->settings ? c->settings : "{}");
	q_i64(&q, 3, c->id);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/*
 * Bind (platform, a, b) to parameters 1..3 of statement id (b NULL: not
 * bound) and run it; *changes = the rows it changed.
 */
static int run_pair(struct store *s, enum store_sql id, const char *platform, const char *a,
		    const char *b, int *changes)
{
	struct q q = q_get(s, id);

	*changes = 0;
	q_text(&q, 1, platform);
	q_text(&q, 2, a);
	if (b)
		q_text(&q, 3, b);
	if (!q_run(&q))
		*changes = q_changes(&q);
	return q_end(&q);
}

/*
 * Several statements made one (so an autocommit call takes the write
 * lock before it reads anything): drop an empty `to`, rename `from` (a
 * `to` still there is a unique violation, GB_EEXISTS), move the pending
 * outbox rows.
 */
int store_chat_move(struct store *s, const char *platform, const char *from, const char *to)
{
	int outer = 0;
	int changes = 0;
	int rc;

	if (!s || !id_ok(platform, CAP(store_chat, platform)) || !id_ok(from, CAP(store_chat, chat)) ||
	    !id_ok(to, CAP(store_chat, chat)) || strcmp(from, to) == 0)
		return GB_EARGS;
	rc = s->ops->sp_begin(s->b, &outer);
	if (rc)
		return rc;
	rc = run_pair(s, SQL_CHAT_DROP_EMPTY, platform, to, NULL, &changes);
	if (!rc)
		rc = run_pair(s, SQL_CHAT_MOVE, platform, from, to, &changes);
	if (!rc && changes == 0)
		rc = GB_ENOTFOUND;
	if (!rc)
		rc = run_pair(s, SQL_OUT_MOVE, platform, from, to, &changes);
	return s->ops->sp_end(s->b, outer, rc);
}

int store_chat_places(struct store *s, const char *platform, const char *chat, int64_t after,
		      struct store_chat *out, int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, id_ok(platform, CAP(store_chat, platform)) && id_ok(chat, CAP(store_chat, chat)),
			out, sizeof *out, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, SQL_CHAT_PLACES);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	q_i64(&q, 3, after);
	q_i64(&q, 4, max);
	q_rows(&q, out, sizeof *out, max, chat_cols, chat_release_row, n);
	return q_end(&q);
}

/* ---- tables ---- */

/* uint64_t <-> the databases' signed 64-bit integer, bit for bit. */
static int64_t u64_bits(uint64_t v)
{
	int64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

static uint64_t i64_bits(int64_t v)
{
	uint64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

/* Run statement id (a SELECT of STORE_TABLE_COLS) bound to key and read its row into t. */
static int table_read(struct store *s, enum store_sql id, int64_t key, struct store_table *t)
{
	struct q q;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t)
		return GB_EARGS;
	q = q_get(s, id);
	q_i64(&q, 1, key);
	if (q_row(&q)) {
		t->id = col_i64(&q, 0);
		t->chat = col_i64(&q, 1);
		t->status = col_int(&q, 3);
		t->version = col_i64(&q, 4);
		t->seed = i64_bits(col_i64(&q, 5));
		t->turn_started_ms = col_i64(&q, 8);
		t->watch = col_int(&q, 11) != 0;
		t->created_ms = col_i64(&q, 12);
		col_copy(&q, 2, t->game, sizeof t->game);
		col_copy(&q, 6, t->creator, sizeof t->creator);
		col_copy(&q, 7, t->message, sizeof t->message);
		col_dup(&q, 9, &t->rules);
		col_dup(&q, 10, &t->state);
	} else if (!q.rc) {
		q.rc = GB_ENOTFOUND;
	}
	if (q_end(&q)) {
		store_table_release(t);
		memset(t, 0, sizeof *t);
	}
	return q.rc;
}

int store_table_open_get(struct store *s, int64_t chat, struct store_table *t)
{
	return table_read(s, SQL_TABLE_OPEN_GET, chat, t);
}

int store_table_get(struct store *s, int64_t id, struct store_table *t)
{
	return table_read(s, SQL_TABLE_GET, id, t);
}

/* Is the status of t one a write may store? */
static int table_ok(const struct store_table *t)
{
	return t->status >= STORE_LOBBY && t->status <= STORE_OVER;
}

/*
 * GB_ENOTFOUND if chat t->chat does not exist; GB_EEXISTS if the chat
 * already has an open table and t is not STORE_OVER. NULL rules become
 * "{}". Both refusals are constraint violations: where a failed statement
 * would abort the caller's transaction, in a savepoint of their own.
 */
int store_table_insert(struct store *s, struct store_table *t)
{
	int guard = s && !s->ops->failure_keeps_tx;
	int outer = 0;
	int64_t id = 0;
	struct q q;

	if (!s || !t || !table_ok(t) || !id_ok(t->game, sizeof t->game) ||
	    !fits(t->creator, sizeof t->creator) || !fits(t->message, sizeof t->message))
		return GB_EARGS;
	if (guard) {
		int rc = s->ops->sp_begin(s->b, &outer);

		if (rc)
			return rc;
	}
	q = q_get(s, SQL_TABLE_INSERT);
	q_i64(&q, 1, t->chat);
	q_text(&q, 2, t->game);
	q_i64(&q, 3, t->status);
	q_i64(&q, 4, u64_bits(t->seed));
	q_text(&q, 5, t->creator);
	q_text(&q, 6, t->message);
	q_i64(&q, 7, t->turn_started_ms);
	q_text(&q, 8, t->rules ? t->rules : "{}");
	q_text(&q, 9, t->state);
	q_i64(&q, 10, t->watch != 0);
	q_i64(&q, 11, t->created_ms);
	/* the new id comes back with the write (RETURNING), stepped to its end */
	if (q_row(&q)) {
		id = col_i64(&q, 0);
		q_run(&q);
	} else if (!q.rc) {
		q.rc = GB_ESTORE;
	}
	if (!q_end(&q)) {
		t->id = id;
		t->version = 1;
	}
	return guard ? s->ops->sp_end(s->b, outer, q.rc) : q.rc;
}

/*
 * Compare-and-swap on t->version. GB_ECONFLICT also when table t->id does
 * not exist (any more): either way t is stale. GB_EEXISTS when reopening a
 * finished table would give its chat two open tables.
 */
/* Run update id (SQL_TABLE_UPDATE or _SAME) of t; *changed: a row was. */
static int table_write(struct store *s, enum store_sql id, const struct store_table *t, bool *changed)
{
	struct q q = q_get(s, id);

	q_i64(&q, 1, t->status);
	q_i64(&q, 2, t->turn_started_ms);
	q_text(&q, 3, t->rules ? t->rules : "{}");
	q_text(&q, 4, t->state);
	q_i64(&q, 5, t->id);
	q_i64(&q, 6, t->version);
	*changed = !q_run(&q) && q_changes(&q) > 0;
	return q_end(&q);
}

int store_table_update(struct store *s, struct store_table *t)
{
	bool changed = false;
	int rc;

	if (!s || !t || !table_ok(t))
		return GB_EARGS;
	/*
	 * Most updates are moves, the status as it was: first without it.
	 * No row changed there (and no error): the status moved, or the
	 * version did, and the full statement tells which. A failed
	 * statement (a deadlock's victim among them) is not asked again.
	 */
	rc = table_write(s, SQL_TABLE_UPDATE_SAME, t, &changed);
	if (!rc && !changed)
		rc = table_write(s, SQL_TABLE_UPDATE, t, &changed);
	if (!rc && !changed)
		rc = GB_ECONFLICT;
	if (!rc)
		t->version++;
	return rc;
}

int store_table_set_message(struct store *s, int64_t table, const char *message)
{
	struct q q;

	if (!s || !fits(message, CAP(store_table, message)))
		return GB_EARGS;
	q = q_get(s, SQL_TABLE_SET_MESSAGE);
	q_i64(&q, 1, table);
	q_text(&q, 2, message);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* chat 0: every chat's tables. */
int store_tables_count(struct store *s, int64_t chat, int64_t since_ms, int open_only,
		       int watch_only, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !n)
		return GB_EARGS;
	q = q_get(s, chat ? SQL_TABLES_COUNT : SQL_TABLES_COUNT_ALL);
	q_i64(&q, 1, chat);
	q_i64(&q, 2, since_ms ? since_ms : INT64_MIN);
	q_i64(&q, 3, open_only != 0);
	q_i64(&q, 4, watch_only != 0);
	if (q_row(&q))
		*n = col_int(&q, 0);
	return q_end(&q);
}

static void game_count_read(struct q *q, void *row)
{
	struct store_game_count *g = row;

	col_copy(q, 0, g->game, sizeof g->game);
	g->tables = col_int(q, 1);
}

int store_tables_open_by_game(struct store *s, struct store_game_count *out, int max, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !out || !n || max < 0)
		return GB_EARGS;
	memset(out, 0, sizeof(*out) * (size_t)max);
	q = q_get(s, SQL_TABLES_BY_GAME);
	q_i64(&q, 1, max);
	q_rows(&q, out, sizeof *out, max, game_count_read, NULL, n);
	return q_end(&q);
}

static void table_id_read(struct q *q, void *row)
{
	*(int64_t *)row = col_i64(q, 0);
}

int store_tables_of_user(struct store *s, const char *platform, const char *user, int64_t *out,
			 int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, platform && user, out, sizeof *out, max, n);
	if (rc || max == 0 || !user[0])
		return rc;
	q = q_get(s, SQL_TABLES_OF_USER);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_i64(&q, 3, max);
	q_rows(&q, out, sizeof *out, max, table_id_read, NULL, n);
	return q_end(&q);
}

/* ---- seats ---- */

static void seat_read(struct q *q, void *row)
{
	struct store_seat *seat = row;

	seat->seat = col_int(q, 0);
	seat->level = col_int(q, 3);
	col_copy(q, 1, seat->user, sizeof seat->user);
	col_copy(q, 2, seat->name, sizeof seat->name);
}

int store_seats_get(struct store *s, int64_t table, struct store_seat *seats, int max, int *n)
{
	return rows_by_key(s, SQL_SEATS_GET, table, seats, sizeof *seats, max, seat_read, n);
}

/* Do seats hold fitting strings and seat numbers each used once, none negative? */
static int seats_ok(const struct store_seat *seats, int n)
{
	for (int i = 0; i < n; i++) {
		if (seats[i].seat < 0 || !fits(seats[i].user, sizeof seats[i].user) ||
		    !fits(seats[i].name, sizeof seats[i].name))
			return 0;
		for (int j = 0; j < i; j++)
			if (seats[j].seat == seats[i].seat)
				return 0;
	}
	return 1;
}

/*
 * Atomic even outside a transaction. GB_EARGS for a negative or repeated
 * seat number; GB_ENOTFOUND if n > 0 and the table does not exist.
 */
int store_seats_set(struct store *s, int64_t table, const struct store_seat *seats, int n)
{
	int outer = 0;
	struct q q;
	int rc;

	if (!s || n < 0 || (n > 0 && !seats) || !seats_ok(seats, n))
		return GB_EARGS;
	rc = s->ops->sp_begin(s->b, &outer);
	if (rc)
		return rc;
	q = q_get(s, SQL_SEATS_CLEAR);
	q_i64(&q, 1, table);
	q_run(&q);
	rc = q_end(&q);
	if (!rc) {
		q = q_get(s, SQL_SEAT_ADD);
		for (int i = 0; !q.rc && i < n; i++) {
			q_i64(&q, 1, table);
			q_i64(&q, 2, seats[i].seat);
			q_text(&q, 3, seats[i].user);
			q_name(&q, 4, seats[i].name);
			q_i64(&q, 5, seats[i].level);
			q_run(&q);
			q_reset(&q);
		}
		rc = q_end(&q);
	}
	return s->ops->sp_end(s->b, outer, rc);
}

/* ---- the move log ---- */

/*
 * actor may be "" (the game itself); NULL events_json is stored as "[]".
 * GB_EEXISTS if the table has a move seq already, GB_ENOTFOUND if the
 * table does not exist.
 */
int store_move_append(struct store *s, int64_t table, int seq, const char *actor,
		      const char *action, const char *events_json)
{
	int inserted = 0;
	struct q q;

	if (!s || seq <= 0 || !actor || !action || !action[0])
		return GB_EARGS;
	q = q_get(s, SQL_MOVE_ADD);
	q_i64(&q, 1, table);
	q_i64(&q, 2, seq);
	q_text(&q, 3, actor);
	q_text(&q, 4, action);
	q_text(&q, 5, events_json ? events_json : "[]");
	if (!q_run(&q))
		inserted = q_changes(&q) > 0;
	if (q_end(&q) || inserted)
		return q.rc;
	/* nothing inserted and nothing refused: the seq is taken, or there is no such table */
	q = q_get(s, SQL_TABLE_EXISTS);
	q_i64(&q, 1, table);
	if (q_row(&q))
		q.rc = GB_EEXISTS;
	else if (!q.rc)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* The number statement id (count or last) gives for table's moves. */
static int moves_number(struct store *s, enum store_sql id, int64_t table, int *count)
{
	struct q q;

	if (count)
		*count = 0;
	if (!s || !count)
		return GB_EARGS;
	q = q_get(s, id);
	q_i64(&q, 1, table);
	if (q_row(&q))
		*count = col_int(&q, 0);
	return q_end(&q);
}

int store_move_count(struct store *s, int64_t table, int *count)
{
	return moves_number(s, SQL_MOVE_COUNT, table, count);
}

int store_move_last(struct store *s, int64_t table, int *seq)
{
	return moves_number(s, SQL_MOVE_LAST, table, seq);
}

static void move_read(struct q *q, void *row)
{
	struct store_move *m = row;

	m->seq = col_int(q, 0);
	col_copy(q, 1, m->actor, sizeof m->actor);
	col_copy(q, 2, m->action, sizeof m->action);
	col_dup(q, 3, &m->events);
}

static void move_release(void *row)
{
	store_move_release(row);
}

int store_moves_get(struct store *s, int64_t table, int after_seq, struct store_move *moves,
		    int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, 1, moves, sizeof *moves, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, SQL_MOVES_GET);
	q_i64(&q, 1, table);
	q_i64(&q, 2, after_seq);
	q_i64(&q, 3, max);
	q_rows(&q, moves, sizeof *moves, max, move_read, move_release, n);
	return q_end(&q);
}

/* ---- meta ---- */

/* GB_EARGS when the value does not fit buf (cap bytes with its NUL). */
int store_meta_get(struct store *s, const char *key, char *buf, size_t cap)
{
	const char *text = NULL;
	size_t len = 0;
	struct q q;

	if (buf && cap > 0)
		buf[0] = '\0';
	if (!s || !id_ok(key, STORE_ID_LEN) || !buf || cap == 0)
		return GB_EARGS;
	q = q_get(s, SQL_META_GET);
	q_text(&q, 1, key);
	if (!q_row(&q) && !q.rc)
		q.rc = GB_ENOTFOUND;
	if (!q.rc)
		q.rc = s->ops->col_text(q.st, 0, &text, &len);
	if (!q.rc && !text)
		q.rc = GB_ENOMEM; /* the column is NOT NULL */
	if (!q.rc && len >= cap)
		q.rc = GB_EARGS;
	if (!q.rc) {
		memcpy(buf, text, len);
		buf[len] = '\0';
	}
	return q_end(&q);
}

int store_meta_set(struct store *s, const char *key, const char *value)
{
	struct q q;

	if (!s || !id_ok(key, STORE_ID_LEN) || !value)
		return GB_EARGS;
	q = q_get(s, SQL_META_SET);
	q_text(&q, 1, key);
	q_text(&q, 2, value);
	q_run(&q);
	return q_end(&q);
}
