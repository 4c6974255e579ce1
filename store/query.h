/*
 * query.h - what the store's operations (ops.c, outbox.c, coins.c,
 * online.c) share: the checks of their string arguments, the use of one
 * statement through the slots of the handle's backend (store/backend.h):
 * binding, stepping, reading columns, with the first failure kept, and
 * the reading of its rows into arrays of row structs.
 */
#ifndef GB_STORE_QUERY_H
#define GB_STORE_QUERY_H

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "games/utf8.h"
#include "store/backend.h"

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

static inline struct q q_get(struct store *s, enum store_sql id)
{
	struct q q = { s, NULL, GB_OK };

	q.rc = s->ops->stmt(s->b, id, &q.st);
	return q;
}

static inline void q_i64(struct q *q, int i, int64_t v)
{
	if (!q->rc)
		q->rc = q->s->ops->bind_i64(q->st, i, v);
}

/* Bind text; NULL binds NULL. */
static inline void q_text(struct q *q, int i, const char *text)
{
	if (!q->rc)
		q->rc = q->s->ops->bind_text(q->st, i, text, text ? strlen(text) : 0);
}

/* Bind a display name cut to what a name buffer holds. */
static inline void q_name(struct q *q, int i, const char *name)
{
	if (!q->rc)
		q->rc = q->s->ops->bind_text(q->st, i, name,
					     utf8_cut(name, strlen(name), STORE_NAME_LEN - 1));
}

/* Step once: 1 on a row; 0 at the end or on a failure (kept). */
static inline int q_row(struct q *q)
{
	int row = 0;

	if (!q->rc)
		q->rc = q->s->ops->step(q->st, &row);
	return !q->rc && row;
}

/* Run a statement whose rows are not wanted; its failure or GB_OK. */
static inline int q_run(struct q *q)
{
	q_row(q);
	return q->rc;
}

/* The rows the last write changed. */
static inline int q_changes(const struct q *q)
{
	return q->s->ops->changes(q->s->b);
}

/* Ready the statement for binding and stepping again. */
static inline void q_reset(struct q *q)
{
	q->s->ops->stmt_done(q->st);
}

/* Hand the statement back; the use's failure or GB_OK. */
static inline int q_end(struct q *q)
{
	q->s->ops->stmt_done(q->st);
	q->st = NULL;
	return q->rc;
}

static inline int64_t col_i64(const struct q *q, int col)
{
	return q->s->ops->col_i64(q->st, col);
}

/* Column col as an int, clamped (sums over many games could exceed it). */
static inline int col_int(const struct q *q, int col)
{
	int64_t v = col_i64(q, col);

	if (v > INT_MAX)
		v = INT_MAX;
	if (v < INT_MIN)
		v = INT_MIN;
	return (int)v;
}

/*
 * Copy text column col into dst (cap bytes), truncated on a character
 * boundary and NUL-terminated. NULL becomes "".
 */
static inline void col_copy(struct q *q, int col, char *dst, size_t cap)
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
static inline void col_dup(struct q *q, int col, char **dst)
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

/* ---- reading rows ---- */

/*
 * Step q (bound) to its end, reading its rows, max at most, into rows
 * (size bytes each, zeroed by the caller) with read(); *n = the rows
 * read. On a failure the rows read are released with release (NULL:
 * nothing of theirs to free), rows zeroed again and *n 0.
 */
static inline int q_rows(struct q *q, void *rows, size_t size, int max,
				 void (*read)(struct q *, void *), void (*release)(void *), int *n)
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
static inline int rows_start(const struct store *s, int args_ok, void *rows, size_t size, int max, int *n)
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
static inline int rows_by_key(struct store *s, enum store_sql id, int64_t key, void *rows,
			      size_t size, int max, void (*read)(struct q *, void *), int *n)
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

#endif
