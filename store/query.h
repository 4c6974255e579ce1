/*
 * query.h - what the store's operations (ops.c, online.c) share: the
 * checks of their string arguments and the use of one statement through
 * the slots of the handle's backend (store/backend.h): binding, stepping,
 * reading columns, with the first failure kept.
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

#endif
