/*
 * outbox.c - the store's operations on what is due: the outbox of
 * messages to send, each with its lease, retries and the rate it is held
 * to, and the timers of the tables. Written once for every database, as
 * store/ops.c is, on the same statement slots of the handle's backend.
 */
#include "store/backend.h"
#include "store/query.h"
#include "games/utf8.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * Run statement which bound to (id, then the numbers given, as parameters
 * 2 and 3); GB_ENOTFOUND when it changed no row.
 */
static int out_change(struct store *s, enum store_sql which, int64_t id, const int64_t *v2,
		      const int64_t *v3)
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
	int64_t attempt = count_attempt != 0;

	return out_change(s, SQL_OUT_RETRY, id, &due_ms, &attempt);
}

int store_out_extend(struct store *s, int64_t id, int64_t lease_until_ms)
{
	return out_change(s, SQL_OUT_EXTEND, id, &lease_until_ms, NULL);
}

int store_out_lease(struct store *s, int64_t id, int64_t now_ms, int64_t lease_until_ms)
{
	return out_change(s, SQL_OUT_LEASE, id, &lease_until_ms, &now_ms);
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

int store_out_requeue(struct store *s, const char *platform, int64_t within_ms, int64_t due_ms, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !n || within_ms < 0 || (platform && !id_ok(platform, CAP(store_out, platform))))
		return GB_EARGS;
	q = q_get(s, SQL_OUT_REQUEUE);
	if (platform)
		q_text(&q, 1, platform);
	q_i64(&q, 2, within_ms);
	q_i64(&q, 3, due_ms);
	if (!q_run(&q))
		*n = q_changes(&q);
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
int store_timer_retry(struct store *s, int64_t table, const char *kind, int64_t version, int64_t due_ms,
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
	q_i64(&q, 4, version);
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

int store_timer_delay(struct store *s, int64_t table, const char *kind, int64_t version, int64_t due_ms)
{
	struct q q;

	if (!s || !kind || !id_ok(kind, CAP(store_timer, kind)))
		return GB_EARGS;
	q = q_get(s, SQL_TIMER_DELAY);
	q_i64(&q, 1, table);
	q_text(&q, 2, kind);
	q_i64(&q, 3, version);
	q_i64(&q, 4, due_ms);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ENOTFOUND;
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
