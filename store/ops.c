/*
 * ops.c - the store's operations on rows, written once for every database.
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

/* ---- argument checks ---- */

/* Is seed 64 lowercase hex digits (a table's sealed seed)? */
static int seed_hex_ok(const char *seed)
{
	size_t i;

	for (i = 0; seed[i]; i++)
		if (!((seed[i] >= '0' && seed[i] <= '9') || (seed[i] >= 'a' && seed[i] <= 'f')))
			return 0;
	return i == 64;
}

/*
 * Step q (bound) to its end, reading its rows, max at most, into rows
 * (size bytes each, zeroed by the caller) with read(); *n = the rows
 * read. On a failure the rows read are released with release (NULL:
 * nothing of theirs to free), rows zeroed again and *n 0.
 */
static int q_rows(struct q *q, void *rows, size_t size, int max, void (*read)(struct q *, void *),
		  void (*release)(void *), int *n)
{
	char *at = rows;
	int count = 0;

	while (q_row(q)) {
		if (count >= max)
			continue;
		/* counted before it is read, so that a failure releases it too */
		read(q, at + (size_t)count++ * size);
	}
	if (q->rc) {
		for (int i = 0; release && i < count; i++)
			release(at + (size_t)i * size);
		if (max > 0)
			memset(rows, 0, (size_t)max * size);
		count = 0;
	}
	*n = count;
	return q->rc;
}

/*
 * How a read of up to max rows into rows (size bytes each) starts: *n = 0,
 * then GB_EARGS when the handle, n or the rows are missing, max is
 * negative or args_ok is 0; else the rows zeroed and GB_OK (max 0:
 * nothing to read).
 */
static int rows_start(const struct store *s, int args_ok, void *rows, size_t size, int max, int *n)
{
	if (n)
		*n = 0;
	if (!s || !n || !args_ok || max < 0 || (max > 0 && !rows))
		return GB_EARGS;
	if (max > 0)
		memset(rows, 0, (size_t)max * size);
	return GB_OK;
}

/*
 * Read up to max rows of statement id, bound to (key, max), with read()
 * into rows (size bytes each, nothing of theirs to free); *n = how many.
 */
static int rows_by_key(struct store *s, enum store_sql id, int64_t key, void *rows, size_t size,
		       int max, void (*read)(struct q *, void *), int *n)
{
	struct q q;
	int rc = rows_start(s, 1, rows, size, max, n);

	if (rc || max == 0)
		return rc;
	q = q_get(s, id);
	q_i64(&q, 1, key);
	q_i64(&q, 2, max);
	q_rows(&q, rows, size, max, read, NULL, n);
	return q_end(&q);
}

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

/* ---- the outbox ---- */

/* Read a row of STORE_OUT_COLS. */
static void out_read(struct q *q, void *row)
{
	struct store_out *o = row;

	o->id = col_i64(q, 0);
	o->attempts = col_int(q, 4);
	o->due_ms = col_i64(q, 5);
	o->table = col_i64(q, 6);
	o->lease_until_ms = col_i64(q, 8);
	o->prio = col_int(q, 9);
	col_copy(q, 1, o->platform, sizeof o->platform);
	col_copy(q, 2, o->chat, sizeof o->chat);
	col_copy(q, 7, o->key, sizeof o->key);
	col_dup(q, 3, &o->payload);
}

static void out_release(void *row)
{
	store_out_release(row);
}

int store_out_add(struct store *s, const char *platform, const char *chat, int64_t table,
		  const char *key, const char *payload, int64_t due_ms)
{
	return store_out_add_prio(s, platform, chat, table, key, payload, due_ms, STORE_OUT_INFO);
}

/*
 * A non-empty key replaces the chat's earlier rows of that key, in the
 * same atomic step as the insert; the database's own out_add() where one
 * statement cannot do it all.
 */
int store_out_add_prio(struct store *s, const char *platform, const char *chat, int64_t table,
		       const char *key, const char *payload, int64_t due_ms, enum store_out_prio prio)
{
	struct q q;

	if (!key)
		key = "";
	if ((prio != STORE_OUT_INFO && prio != STORE_OUT_TURN) || !s ||
	    !id_ok(platform, CAP(store_out, platform)) || !id_ok(chat, CAP(store_out, chat)) ||
	    !fits(key, CAP(store_out, key)) || !payload || !payload[0])
		return GB_EARGS;
	if (s->ops->out_add)
		return s->ops->out_add(s->b, platform, chat, table, key, payload, due_ms, (int)prio);
	q = q_get(s, SQL_OUT_ADD);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	q_text(&q, 3, payload);
	q_i64(&q, 4, due_ms);
	q_i64(&q, 5, table);
	q_text(&q, 6, key);
	q_i64(&q, 7, prio);
	q_run(&q);
	return q_end(&q);
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
 * One UPDATE ... RETURNING picks and leases the rows, so two workers never
 * claim the same row. Where its rows are read from the database as they
 * are stepped, a savepoint undoes the leases if they cannot be read back
 * (a leased row nobody got would wait out its lease).
 */
int store_out_claim(struct store *s, const char *platform, int64_t now_ms, int64_t lease_ms,
		    struct store_out *outs, int max, int *n)
{
	int guard = s && s->ops->rows_streamed;
	int outer = 0;
	int count = 0;
	struct q q;
	int rc;

	rc = rows_start(s, id_ok(platform, CAP(store_out, platform)) && lease_ms > 0 &&
			now_ms <= INT64_MAX - lease_ms, outs, sizeof *outs, max, n);
	if (rc || max == 0)
		return rc;
	if (guard && (rc = s->ops->sp_begin(s->b, &outer)))
		return rc;
	q = q_get(s, SQL_OUT_CLAIM);
	q_text(&q, 1, platform);
	q_i64(&q, 2, now_ms);
	q_i64(&q, 3, now_ms + lease_ms);
	q_i64(&q, 4, max);
	q_rows(&q, outs, sizeof *outs, max, out_read, out_release, &count);
	/* handed back before the savepoint ends: a pending write blocks a commit */
	q_end(&q);
	if (guard)
		q.rc = s->ops->sp_end(s->b, outer, q.rc);
	if (q.rc) {
		/* read, but the leases were not kept */
		for (int i = 0; i < count; i++)
			store_out_release(&outs[i]);
		memset(outs, 0, (size_t)max * sizeof *outs);
		return q.rc;
	}
	if (count > 1)
		qsort(outs, (size_t)count, sizeof *outs, out_cmp);
	*n = count;
	return GB_OK;
}

/* Ordered by due time, then by id (the order they were queued). */
int store_out_due(struct store *s, const char *platform, int64_t now_ms, struct store_out *outs,
		  int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, id_ok(platform, CAP(store_out, platform)), outs, sizeof *outs, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, SQL_OUT_DUE);
	q_text(&q, 1, platform);
	q_i64(&q, 2, now_ms);
	q_i64(&q, 3, max);
	q_rows(&q, outs, sizeof *outs, max, out_read, out_release, n);
	return q_end(&q);
}

/*
 * Queue order. Inside a transaction the rows read stay the caller's until
 * it ends, so a worker's claim skips them and what the caller saw of their
 * leases stays true while it takes them with store_out_done().
 */
int store_out_chat(struct store *s, const char *platform, const char *chat,
		   struct store_out *outs, int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, id_ok(platform, CAP(store_out, platform)) && id_ok(chat, CAP(store_out, chat)),
			outs, sizeof *outs, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, s->ops->in_transaction(s->b) ? SQL_OUT_CHAT_LOCK : SQL_OUT_CHAT);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	q_i64(&q, 3, max);
	q_rows(&q, outs, sizeof *outs, max, out_read, out_release, n);
	return q_end(&q);
}

/*
 * Run statement which bound to (id, then an int64 and an int when given,
 * as parameters 2 and 3); GB_ENOTFOUND when it changed no row.
 */
static int out_change(struct store *s, enum store_sql which, int64_t id, const int64_t *v2,
		      const int *v3)
{
	struct q q;

	if (!s)
		return GB_EARGS;
	q = q_get(s, which);
	q_i64(&q, 1, id);
	if (v2)
		q_i64(&q, 2, *v2);
	if (v3)
		q_i64(&q, 3, *v3);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* GB_ENOTFOUND if there is no message id. A row set aside is removed too. */
int store_out_done(struct store *s, int64_t id)
{
	return out_change(s, SQL_OUT_DONE, id, NULL, NULL);
}

int store_out_retry(struct store *s, int64_t id, int64_t due_ms, int count_attempt)
{
	int attempt = count_attempt != 0;

	return out_change(s, SQL_OUT_RETRY, id, &due_ms, &attempt);
}

int store_out_extend(struct store *s, int64_t id, int64_t lease_until_ms)
{
	return out_change(s, SQL_OUT_EXTEND, id, &lease_until_ms, NULL);
}

int store_out_set_payload(struct store *s, int64_t id, const char *payload)
{
	struct q q;

	if (!s || !payload)
		return GB_EARGS;
	q = q_get(s, SQL_OUT_PAYLOAD);
	q_i64(&q, 1, id);
	q_text(&q, 2, payload);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

int store_out_set_aside(struct store *s, int64_t id, const char *why)
{
	struct q q;

	if (!s)
		return GB_EARGS;
	q = q_get(s, SQL_OUT_ASIDE);
	q_i64(&q, 1, id);
	q_text(&q, 2, why ? why : "");
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* Rows claimed now are delayed too: they matter again only if retried. chat NULL: every chat. */
int store_out_delay(struct store *s, const char *platform, const char *chat, int64_t until_ms)
{
	struct q q;

	if (!s || !id_ok(platform, CAP(store_out, platform)) ||
	    (chat && !id_ok(chat, CAP(store_out, chat))))
		return GB_EARGS;
	q = q_get(s, chat ? SQL_OUT_DELAY : SQL_OUT_DELAY_ALL);
	q_text(&q, 1, platform);
	if (chat)
		q_text(&q, 2, chat);
	q_i64(&q, 3, until_ms);
	q_run(&q);
	return q_end(&q);
}

int store_out_unlease(struct store *s, int64_t now_ms, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s)
		return GB_EARGS;
	q = q_get(s, SQL_OUT_UNLEASE);
	q_i64(&q, 1, now_ms);
	if (!q_run(&q) && n)
		*n = q_changes(&q);
	return q_end(&q);
}

/* platform NULL: every platform's rows. */
int store_out_count(struct store *s, const char *platform, int *pending, int *aside,
		    int64_t *oldest_due_ms)
{
	struct q q;

	if (pending)
		*pending = 0;
	if (aside)
		*aside = 0;
	if (oldest_due_ms)
		*oldest_due_ms = 0;
	if (!s || (platform && !id_ok(platform, CAP(store_out, platform))))
		return GB_EARGS;
	q = q_get(s, platform ? SQL_OUT_COUNT : SQL_OUT_COUNT_ALL);
	if (platform)
		q_text(&q, 1, platform);
	/* sums and min() of no rows are NULL, read as 0 */
	if (q_row(&q)) {
		if (pending)
			*pending = col_int(&q, 0);
		if (aside)
			*aside = col_int(&q, 1);
		if (oldest_due_ms)
			*oldest_due_ms = col_i64(&q, 2);
	}
	return q_end(&q);
}

/* ---- timers ---- */

/* GB_ENOTFOUND if the table does not exist. */
int store_timer_set(struct store *s, const struct store_timer *t)
{
	struct q q;

	if (!s || !t || !id_ok(t->kind, sizeof t->kind))
		return GB_EARGS;
	q = q_get(s, SQL_TIMER_SET);
	q_i64(&q, 1, t->table);
	q_text(&q, 2, t->kind);
	q_i64(&q, 3, t->due_ms);
	q_i64(&q, 4, t->version);
	/* no row written, where the database inserts nothing rather than refuse */
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

/* The new count comes back with the write (RETURNING), stepped to its end. */
int store_timer_retry(struct store *s, int64_t table, const char *kind, int64_t due_ms,
		      int *attempts)
{
	int count = 0;
	struct q q;

	if (attempts)
		*attempts = 0;
	if (!s || !attempts || !id_ok(kind, CAP(store_timer, kind)))
		return GB_EARGS;
	q = q_get(s, SQL_TIMER_RETRY);
	q_i64(&q, 1, table);
	q_text(&q, 2, kind);
	q_i64(&q, 3, due_ms);
	if (q_row(&q)) {
		count = col_int(&q, 0);
		if (!q_run(&q))
			*attempts = count;
	} else if (!q.rc) {
		q.rc = GB_ENOTFOUND;
	}
	return q_end(&q);
}

/* Clearing a timer that is not set is not an error. kind NULL: every kind. */
int store_timer_clear(struct store *s, int64_t table, const char *kind)
{
	struct q q;

	if (!s || (kind && !id_ok(kind, CAP(store_timer, kind))))
		return GB_EARGS;
	q = q_get(s, kind ? SQL_TIMER_CLEAR : SQL_TIMER_CLEAR_ALL);
	q_i64(&q, 1, table);
	if (kind)
		q_text(&q, 2, kind);
	q_run(&q);
	return q_end(&q);
}

int store_timer_drop(struct store *s, int64_t table, const char *kind, int64_t version)
{
	struct q q;

	if (!s || !kind || !id_ok(kind, CAP(store_timer, kind)))
		return GB_EARGS;
	q = q_get(s, SQL_TIMER_DROP);
	q_i64(&q, 1, table);
	q_text(&q, 2, kind);
	q_i64(&q, 3, version);
	q_run(&q);
	return q_end(&q);
}

/* Read a row of STORE_TIMER_COLS. */
static void timer_read(struct q *q, void *row)
{
	struct store_timer *t = row;

	t->table = col_i64(q, 0);
	t->due_ms = col_i64(q, 2);
	t->version = col_i64(q, 3);
	t->attempts = col_int(q, 4);
	col_copy(q, 1, t->kind, sizeof t->kind);
}

/* Ties on due_ms are broken by table, then kind, so the order is stable. */
int store_timer_due(struct store *s, int64_t now_ms, struct store_timer *timers, int max, int *n)
{
	return rows_by_key(s, SQL_TIMER_DUE, now_ms, timers, sizeof *timers, max, timer_read, n);
}

int store_timer_next(struct store *s, struct store_timer *t)
{
	struct q q;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t)
		return GB_EARGS;
	q = q_get(s, SQL_TIMER_NEXT);
	if (q_row(&q))
		timer_read(&q, t);
	else if (!q.rc)
		q.rc = GB_ENOTFOUND;
	if (q_end(&q))
		memset(t, 0, sizeof *t);
	return q.rc;
}

/* ---- stats ---- */

/*
 * win counts as 1 when non-zero. name (cut to STORE_NAME_LEN - 1 bytes on a
 * character boundary) becomes the user's name on all their rows in the chat.
 * GB_ENOTFOUND if the chat does not exist.
 */
int store_stat_add(struct store *s, int64_t chat, const char *user, const char *name,
		   const char *game, int win, int points)
{
	int outer = 0;
	struct q q;
	int rc;

	if (!s || !id_ok(user, CAP(store_stat, user)) || !name || !id_ok(game, CAP(store_stat, game)))
		return GB_EARGS;
	rc = s->ops->sp_begin(s->b, &outer);
	if (rc)
		return rc;
	q = q_get(s, SQL_STAT_ADD);
	q_i64(&q, 1, chat);
	q_text(&q, 2, user);
	q_text(&q, 3, game);
	q_name(&q, 4, name);
	q_i64(&q, 5, win != 0);
	q_i64(&q, 6, points);
	q_run(&q);
	rc = q_end(&q);
	if (!rc) {
		q = q_get(s, SQL_STAT_NAME);
		q_i64(&q, 1, chat);
		q_text(&q, 2, user);
		q_name(&q, 3, name);
		q_run(&q);
		rc = q_end(&q);
	}
	return s->ops->sp_end(s->b, outer, rc);
}

static void stat_read(struct q *q, void *row)
{
	struct store_stat *o = row;

	o->games = col_int(q, 3);
	o->wins = col_int(q, 4);
	o->points = col_int(q, 5);
	col_copy(q, 0, o->user, sizeof o->user);
	col_copy(q, 1, o->name, sizeof o->name);
	col_copy(q, 2, o->game, sizeof o->game);
}

/*
 * Best first: wins, then points (both descending), then fewer games, then
 * name and user id. With game NULL each user's rows are summed and the game
 * field is "".
 */
int store_stats_get(struct store *s, int64_t chat, const char *game, struct store_stat *stats,
		    int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, !game || id_ok(game, CAP(store_stat, game)), stats, sizeof *stats, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, game ? SQL_STATS_GAME : SQL_STATS_ALL);
	q_i64(&q, 1, chat);
	if (game)
		q_text(&q, 2, game);
	q_i64(&q, game ? 3 : 2, max);
	q_rows(&q, stats, sizeof *stats, max, stat_read, NULL, n);
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

/* ---- a table's terms ---- */

/* GB_ENOTFOUND if the table does not exist. */
int store_terms_set(struct store *s, int64_t table, const struct store_terms *t)
{
	struct q q;

	if (!s || !t || !seed_hex_ok(t->seed) || t->stake < 0)
		return GB_EARGS;
	q = q_get(s, SQL_TERMS_SET);
	q_i64(&q, 1, table);
	q_text(&q, 2, t->seed);
	q_i64(&q, 3, t->stake);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

int store_terms_get(struct store *s, int64_t table, struct store_terms *t)
{
	struct q q;

	if (t)
		memset(t, 0, sizeof *t);
	if (!s || !t)
		return GB_EARGS;
	q = q_get(s, SQL_TERMS_GET);
	q_i64(&q, 1, table);
	if (q_row(&q)) {
		col_copy(&q, 0, t->seed, sizeof t->seed);
		t->stake = col_i64(&q, 1);
	} else if (!q.rc) {
		q.rc = GB_ENOTFOUND;
	}
	if (q_end(&q))
		memset(t, 0, sizeof *t);
	return q.rc;
}

/* ---- coins ---- */

/* Both rows of the movement in one statement. GB_ENOTFOUND if the chat does not exist. */
int store_coins_move(struct store *s, int64_t chat, const struct store_coin_move *m)
{
	struct q q;

	if (!s || !m || m->amount <= 0 || !id_ok(m->from, sizeof m->from) ||
	    !id_ok(m->to, sizeof m->to) || strcmp(m->from, m->to) == 0 ||
	    !id_ok(m->reason, sizeof m->reason))
		return GB_EARGS;
	q = q_get(s, SQL_COINS_MOVE);
	q_i64(&q, 1, chat);
	q_text(&q, 2, m->from);
	q_name(&q, 3, m->from_name);
	q_text(&q, 4, m->to);
	q_name(&q, 5, m->to_name);
	q_i64(&q, 6, m->amount);
	q_i64(&q, 7, m->table);
	q_text(&q, 8, m->reason);
	q_i64(&q, 9, m->at_ms);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
	/*
	 * The arguments were checked above: a unique index (a second starting
	 * grant) or the balances' floor (an account taken below 0) refused
	 * the rows, because someone else moved the coins since the caller read.
	 */
	if (q.rc == GB_EEXISTS || q.rc == GB_EARGS)
		q.rc = GB_ECONFLICT;
	return q_end(&q);
}

int store_coins_balance(struct store *s, int64_t chat, const char *account, int64_t *balance,
			int *rows)
{
	struct q q;

	if (balance)
		*balance = 0;
	if (rows)
		*rows = 0;
	if (!s || !balance || !id_ok(account, STORE_ACCOUNT_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_COINS_BALANCE);
	q_i64(&q, 1, chat);
	q_text(&q, 2, account);
	if (q_row(&q)) {
		*balance = col_i64(&q, 0);
		if (rows)
			*rows = col_int(&q, 1);
	}
	return q_end(&q);
}

static void balance_read(struct q *q, void *row)
{
	struct store_balance *o = row;

	col_copy(q, 0, o->account, sizeof o->account);
	col_copy(q, 1, o->name, sizeof o->name);
	o->balance = col_i64(q, 2);
}

int store_coins_top(struct store *s, int64_t chat, const char *prefix, struct store_balance *out,
		    int max, int *n)
{
	struct q q;
	int rc;

	rc = rows_start(s, prefix != NULL, out, sizeof *out, max, n);
	if (rc || max == 0)
		return rc;
	q = q_get(s, SQL_COINS_TOP);
	q_i64(&q, 1, chat);
	q_text(&q, 2, prefix);
	q_i64(&q, 3, max);
	q_rows(&q, out, sizeof *out, max, balance_read, NULL, n);
	return q_end(&q);
}

/* The ledger's invariants: a row an audit query finds breaks one. */
static const struct {
	enum store_sql id;
	const char *rule;
} audits[] = {
	{ SQL_AUDIT_TOTALS, "the chat's coins do not add up to 0 (total)" },
	{ SQL_AUDIT_MOVEMENTS, "a movement is not one pair of rows (rows)" },
	{ SQL_AUDIT_NEGATIVE, "an account below 0 (balance)" },
	{ SQL_AUDIT_POTS, "a pot holds coins of a table not being played (coins)" },
	{ SQL_AUDIT_GRANTS, "bank coins moved other than by a grant (movement)" },
	{ SQL_AUDIT_STARTS, "more than one starting grant (grants)" },
	{ SQL_AUDIT_BALANCES, "a kept balance is not its ledger rows' sum (balance)" },
};

/* Run audits[i] for chat (0: every chat): each of at most max breaches to fn, counted in *found. */
static int audit_one(struct store *s, size_t i, int64_t chat, int max, store_breach_fn fn, void *arg,
		     int *found)
{
	struct q q = q_get(s, audits[i].id);

	q_i64(&q, 1, chat);
	q_i64(&q, 2, max);
	while (q_row(&q)) {
		struct store_breach b = { .chat = col_i64(&q, 0), .rule = audits[i].rule };

		col_copy(&q, 1, b.subject, sizeof b.subject);
		b.value = col_i64(&q, 2);
		if (q.rc)
			break;
		(*found)++;
		if (fn)
			fn(&b, arg);
	}
	return q_end(&q);
}

int store_coins_audit_each(struct store *s, int64_t chat, int max, store_breach_fn fn, void *arg, int *found)
{
	int rc = GB_OK, n = 0;

	if (found)
		*found = 0;
	if (!s || max < 1)
		return GB_EARGS;
	for (size_t i = 0; !rc && i < sizeof audits / sizeof audits[0]; i++)
		rc = audit_one(s, i, chat, max, fn, arg, &n);
	if (found)
		*found = n;
	return rc ? rc : n ? GB_EINVARIANT : GB_OK;
}

int store_coins_census(struct store *s, int64_t chat, int64_t *chats, int64_t *accounts, int64_t *movements)
{
	struct q q;

	*chats = *accounts = *movements = 0;
	if (!s)
		return GB_EARGS;
	q = q_get(s, SQL_AUDIT_COUNT);
	q_i64(&q, 1, chat);
	if (q_row(&q)) {
		*chats = col_i64(&q, 0);
		*accounts = col_i64(&q, 1);
		*movements = col_i64(&q, 2);
	}
	return q_end(&q);
}

/* The first breach, described in why (cap bytes). */
static void first_breach(const struct store_breach *b, void *arg)
{
	struct { char *why; size_t cap; } *out = arg;

	if (out->why && out->cap && !out->why[0])
		snprintf(out->why, out->cap, "%s: chat %lld %s %lld", b->rule, (long long)b->chat, b->subject,
			 (long long)b->value);
}

int store_coins_audit(struct store *s, int64_t chat, char *why, size_t cap)
{
	struct { char *why; size_t cap; } out = { why, cap };
	int rc = GB_OK;

	if (why && cap)
		why[0] = '\0';
	if (!s)
		return GB_EARGS;
	/* one breach is enough to say the ledger is broken: each rule stops at its first */
	for (size_t i = 0; !rc && i < sizeof audits / sizeof audits[0]; i++) {
		int n = 0;

		rc = audit_one(s, i, chat, 1, first_breach, &out, &n);
		if (!rc && n)
			rc = GB_EINVARIANT;
	}
	return rc;
}
