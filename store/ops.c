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
#include "games/utf8.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One statement in use: its handle, and the first failure met while
 * binding, stepping and reading it (GB_OK so far). Once it has failed,
 * every later step of the same use does nothing, so an operation reads
 * as a list of steps and looks at the failure once.
 */
struct q {
	struct store *s;
	struct store_stmt *st;         /* NULL when it could not be had */
	int rc;
};

static struct q q_get(struct store *s, enum store_sql id)
{
	struct q q = { s, NULL, GB_OK };

	q.rc = s->ops->stmt(s->b, id, &q.st);
	return q;
}

static void q_i64(struct q *q, int i, int64_t v)
{
	if (!q->rc)
		q->rc = q->s->ops->bind_i64(q->st, i, v);
}

/* Bind text; NULL binds NULL. */
static void q_text(struct q *q, int i, const char *text)
{
	if (!q->rc)
		q->rc = q->s->ops->bind_text(q->st, i, text, text ? strlen(text) : 0);
}

/* Step once: 1 on a row; 0 at the end or on a failure (kept). */
static int q_row(struct q *q)
{
	int row = 0;

	if (!q->rc)
		q->rc = q->s->ops->step(q->st, &row);
	return !q->rc && row;
}

/* Run a statement whose rows are not wanted; its failure or GB_OK. */
static int q_run(struct q *q)
{
	q_row(q);
	return q->rc;
}

/* The rows the last write changed. */
static int q_changes(const struct q *q)
{
	return q->s->ops->changes(q->s->b);
}

/* Hand the statement back; the use's failure or GB_OK. */
static int q_end(struct q *q)
{
	q->s->ops->stmt_done(q->st);
	q->st = NULL;
	return q->rc;
}

static int64_t col_i64(const struct q *q, int col)
{
	return q->s->ops->col_i64(q->st, col);
}

/*
 * Copy text column col into dst (cap bytes), truncated on a character
 * boundary and NUL-terminated. NULL becomes "".
 */
static void col_copy(struct q *q, int col, char *dst, size_t cap)
{
	const char *text = NULL;
	size_t len = 0;

	dst[0] = '\0';
	if (q->rc || (q->rc = q->s->ops->col_text(q->st, col, &text, &len)) || !text)
		return;
	len = utf8_cut(text, strnlen(text, len), cap - 1);
	memcpy(dst, text, len);
	dst[len] = '\0';
}

/* *dst = a malloc'd copy of text column col (caller owns it), NULL for NULL. */
static void col_dup(struct q *q, int col, char **dst)
{
	const char *text = NULL;
	size_t len = 0;

	*dst = NULL;
	if (q->rc || (q->rc = q->s->ops->col_text(q->st, col, &text, &len)) || !text)
		return;
	*dst = malloc(len + 1);
	if (!*dst) {
		q->rc = GB_ENOMEM;
		return;
	}
	memcpy(*dst, text, len);
	(*dst)[len] = '\0';
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
int store_processed_prune(struct store *s, int64_t before_ms, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !n)
		return GB_EARGS;
	q = q_get(s, SQL_PROCESSED_PRUNE);
	q_i64(&q, 1, before_ms / 1000 - (before_ms % 1000 < 0));
	if (!q_run(&q))
		*n = q_changes(&q);
	return q_end(&q);
}

/* ---- chats ---- */

/*
 * Step q (a chat SELECT, bound) and read its row into c; *found says
 * whether there was one. On an error c is left zeroed.
 */
static int chat_read(struct q *q, struct store_chat *c, int *found)
{
	*found = q_row(q);
	if (*found) {
		c->id = col_i64(q, 0);
		col_copy(q, 1, c->platform, sizeof c->platform);
		col_copy(q, 2, c->chat, sizeof c->chat);
		col_copy(q, 3, c->lang, sizeof c->lang);
		col_dup(q, 4, &c->settings);
	}
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
