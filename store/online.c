/*
 * online.c - the store's operations for online tables: the queue people
 * wait in for a game, the online seats (each seat's private chat and the
 * table message there), the names people play under, whom they blocked,
 * and their ratings. Written once for every database, as store/ops.c is,
 * on the same statement slots of the handle's backend.
 */
#include "store/backend.h"
#include "store/query.h"
#include "games/utf8.h"

#include <stdio.h>
#include <string.h>

/* A person's platform and user id, both fitting their buffers. */
static int person_ok(const char *platform, const char *user)
{
	return id_ok(platform, CAP(store_queue, platform)) && id_ok(user, CAP(store_queue, user));
}

/* ---- the queue ---- */

int store_queue_add(struct store *s, const struct store_queue *e)
{
	struct q q;

	if (!s || !e || !id_ok(e->game, sizeof(e->game)) || !person_ok(e->platform, e->user) ||
	    !id_ok(e->chat, sizeof(e->chat)) || !fits(e->lang, sizeof(e->lang)) || e->seats < 1 ||
	    e->seats > 4 || e->stake < 0)
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_ADD);
	q_text(&q, 1, e->game);
	q_i64(&q, 2, e->seats);
	q_i64(&q, 3, e->stake);
	q_text(&q, 4, e->platform);
	q_text(&q, 5, e->user);
	q_text(&q, 6, e->chat);
	q_name(&q, 7, e->name);
	q_text(&q, 8, e->lang);
	q_i64(&q, 9, e->fill != 0);
	q_i64(&q, 10, e->rating);
	q_i64(&q, 11, e->since_ms);
	q_i64(&q, 12, e->shown);
	q_row(&q);
	if (!q.rc && q.s->ops->changes(s->b) == 0)
		q.rc = GB_EEXISTS;
	return q_end(&q);
}

int store_queue_leave(struct store *s, const char *platform, const char *user, int *left, char *message,
		      size_t cap)
{
	struct q q;
	int row;

	if (left)
		*left = 0;
	if (message && cap)
		message[0] = '\0';
	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_LEAVE);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	row = q_row(&q);
	if (row && message && cap)
		col_copy(&q, 0, message, cap);
	if (!q.rc && left)
		*left = row;
	return q_end(&q);
}

static void queue_read(struct q *q, struct store_queue *e)
{
	memset(e, 0, sizeof(*e));
	e->id = col_i64(q, 0);
	col_copy(q, 1, e->game, sizeof(e->game));
	e->seats = (int)col_i64(q, 2);
	e->stake = col_i64(q, 3);
	col_copy(q, 4, e->platform, sizeof(e->platform));
	col_copy(q, 5, e->user, sizeof(e->user));
	col_copy(q, 6, e->chat, sizeof(e->chat));
	col_copy(q, 7, e->name, sizeof(e->name));
	col_copy(q, 8, e->lang, sizeof(e->lang));
	e->fill = (int)col_i64(q, 9);
	e->rating = col_i64(q, 10);
	e->since_ms = col_i64(q, 11);
	col_copy(q, 12, e->message, sizeof(e->message));
	e->shown = (int)col_i64(q, 13);
}

int store_queue_message(struct store *s, const char *platform, const char *chat, char *message, size_t cap,
			int *found)
{
	struct q q;

	if (!message || !cap || !found)
		return GB_EARGS;
	message[0] = '\0';
	*found = 0;
	if (!s || !fits(platform, 16) || !fits(chat, STORE_ID_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_MESSAGE);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	if (q_row(&q)) {
		col_copy(&q, 0, message, cap);
		*found = 1;
	}
	return q_end(&q);
}

int store_queue_set_message(struct store *s, const char *platform, const char *chat, const char *message,
			    int *found)
{
	struct q q;

	if (found)
		*found = 0;
	if (!s || !fits(platform, 16) || !fits(chat, STORE_ID_LEN) || !message || !fits(message, 32))
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_SET_MESSAGE);
	q_text(&q, 1, platform);
	q_text(&q, 2, chat);
	q_text(&q, 3, message);
	q_row(&q);
	if (!q.rc && found)
		*found = q.s->ops->changes(s->b) > 0;
	return q_end(&q);
}

int store_queue_shown(struct store *s, int64_t id, int shown)
{
	struct q q;

	if (!s || shown < 0)
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_SHOWN);
	q_i64(&q, 1, id);
	q_i64(&q, 2, shown);
	q_row(&q);
	return q_end(&q);
}

int store_queue_of(struct store *s, const char *platform, const char *user, struct store_queue *out)
{
	struct q q;

	if (!out)
		return GB_EARGS;
	memset(out, 0, sizeof(*out));
	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_OF);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	if (q_row(&q))
		queue_read(&q, out);
	else if (!q.rc)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

int store_queue_list(struct store *s, struct store_queue *out, int max, int *n)
{
	struct q q;

	if (!n)
		return GB_EARGS;
	*n = 0;
	if (!s || !out || max <= 0)
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_LIST);
	q_i64(&q, 1, max);
	while (*n < max && q_row(&q))
		queue_read(&q, &out[(*n)++]);
	if (q.rc)
		*n = 0;
	return q_end(&q);
}

int store_queue_fill(struct store *s, const char *platform, const char *user, int fill)
{
	struct q q;

	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_FILL);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_i64(&q, 3, fill != 0);
	q_row(&q);
	if (!q.rc && q.s->ops->changes(s->b) == 0)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

int store_queue_claim(struct store *s, const int64_t *ids, int n, char (*messages)[32])
{
	int got = 0;
	struct q q;

	if (!s || !ids || n < 1 || n > 4)
		return GB_EARGS;
	for (int i = 0; messages && i < n; i++)
		messages[i][0] = '\0';
	q = q_get(s, SQL_QUEUE_CLAIM);
	for (int i = 0; i < 4; i++)
		q_i64(&q, i + 1, i < n ? ids[i] : -1);
	while (q_row(&q)) {
		int64_t id = col_i64(&q, 0);

		/* the rows come back in no particular order */
		for (int i = 0; messages && i < n; i++)
			if (ids[i] == id)
				col_copy(&q, 1, messages[i], sizeof(messages[i]));
		got++;
	}
	if (!q.rc && got != n)
		q.rc = GB_ECONFLICT;
	return q_end(&q);
}

int store_queue_by_game(struct store *s, struct store_queue_count *out, int max, int *n)
{
	struct q q;

	if (!n)
		return GB_EARGS;
	*n = 0;
	if (!s || !out || max <= 0)
		return GB_EARGS;
	q = q_get(s, SQL_QUEUE_BY_GAME);
	q_i64(&q, 1, max);
	while (*n < max && q_row(&q)) {
		struct store_queue_count *c = &out[(*n)++];

		memset(c, 0, sizeof(*c));
		col_copy(&q, 0, c->game, sizeof(c->game));
		c->waiting = (int)col_i64(&q, 1);
		c->oldest_ms = col_i64(&q, 2);
	}
	if (q.rc)
		*n = 0;
	return q_end(&q);
}

/* ---- online seats ---- */

int store_oseat_add(struct store *s, int64_t table, const struct store_oseat *o)
{
	struct q q;

	if (!s || !o || !person_ok(o->platform, o->user) || !id_ok(o->chat, sizeof(o->chat)) ||
	    !fits(o->lang, sizeof(o->lang)) || o->seat < 0)
		return GB_EARGS;
	q = q_get(s, SQL_OSEAT_ADD);
	q_i64(&q, 1, table);
	q_i64(&q, 2, o->seat);
	q_text(&q, 3, o->platform);
	q_text(&q, 4, o->user);
	q_text(&q, 5, o->chat);
	q_name(&q, 6, o->name);
	q_text(&q, 7, o->lang);
	q_row(&q);
	return q_end(&q);
}

int store_oseats_get(struct store *s, int64_t table, struct store_oseat *out, int max, int *n)
{
	struct q q;

	if (!n)
		return GB_EARGS;
	*n = 0;
	if (!s || !out || max <= 0)
		return GB_EARGS;
	q = q_get(s, SQL_OSEATS_GET);
	q_i64(&q, 1, table);
	q_i64(&q, 2, max);
	while (*n < max && q_row(&q)) {
		struct store_oseat *o = &out[(*n)++];

		memset(o, 0, sizeof(*o));
		o->seat = (int)col_i64(&q, 0);
		col_copy(&q, 1, o->platform, sizeof(o->platform));
		col_copy(&q, 2, o->user, sizeof(o->user));
		col_copy(&q, 3, o->chat, sizeof(o->chat));
		col_copy(&q, 4, o->name, sizeof(o->name));
		col_copy(&q, 5, o->lang, sizeof(o->lang));
		col_copy(&q, 6, o->message, sizeof(o->message));
		o->away = (int)col_i64(&q, 7);
	}
	if (q.rc)
		*n = 0;
	return q_end(&q);
}

/* The table of one statement that takes a person and returns a table id (sql: SQL_OSEAT_OPEN, SQL_OSEAT_LAST). */
static int oseat_table(struct store *s, enum store_sql sql, const char *platform, const char *user, int64_t *table)
{
	struct q q;

	if (!table)
		return GB_EARGS;
	*table = 0;
	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, sql);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	if (q_row(&q))
		*table = col_i64(&q, 0);
	else if (!q.rc)
		q.rc = GB_ENOTFOUND;
	return q_end(&q);
}

int store_oseat_open(struct store *s, const char *platform, const char *user, int64_t *table)
{
	return oseat_table(s, SQL_OSEAT_OPEN, platform, user, table);
}

int store_oseat_last(struct store *s, const char *platform, const char *user, int64_t *table)
{
	return oseat_table(s, SQL_OSEAT_LAST, platform, user, table);
}

int store_view_message(struct store *s, int64_t table, const char *platform, const char *chat,
		       char *message, size_t cap, int *found)
{
	struct q q;

	if (!message || !cap || !found)
		return GB_EARGS;
	message[0] = '\0';
	*found = 0;
	if (!s || !fits(platform, 16) || !fits(chat, STORE_ID_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_OSEAT_MESSAGE);
	q_i64(&q, 1, table);
	q_text(&q, 2, platform);
	q_text(&q, 3, chat);
	if (q_row(&q)) {
		col_copy(&q, 0, message, cap);
		*found = 1;
	}
	return q_end(&q);
}

int store_view_set_message(struct store *s, int64_t table, const char *platform, const char *chat,
			   const char *message, int *found)
{
	struct q q;

	if (found)
		*found = 0;
	if (!s || !fits(platform, 16) || !fits(chat, STORE_ID_LEN) || !fits(message, STORE_ID_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_OSEAT_SET_MESSAGE);
	q_i64(&q, 1, table);
	q_text(&q, 2, platform);
	q_text(&q, 3, chat);
	q_text(&q, 4, message);
	q_row(&q);
	if (!q.rc && found)
		*found = q.s->ops->changes(s->b) > 0;
	return q_end(&q);
}

/* ---- people: names, last tables, blocks ---- */

int store_person_get(struct store *s, const char *platform, const char *user, char *name, size_t cap,
		     int64_t *last_table)
{
	struct q q;

	if (name && cap)
		name[0] = '\0';
	if (last_table)
		*last_table = 0;
	if (!s || !person_ok(platform, user) || !name || !cap)
		return GB_EARGS;
	q = q_get(s, SQL_PERSON_GET);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	if (q_row(&q)) {
		col_copy(&q, 0, name, cap);
		if (last_table)
			*last_table = col_i64(&q, 1);
	}
	return q_end(&q);
}

int store_person_name(struct store *s, const char *platform, const char *user, const char *name,
		      const char *key)
{
	struct q q;

	if (!s || !person_ok(platform, user) || !name || !key || !fits(key, STORE_NAME_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_PERSON_NAME);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_name(&q, 3, name);
	q_text(&q, 4, key);
	q_row(&q);
	return q_end(&q);
}

int store_person_named(struct store *s, const char *key, char *platform, size_t pcap, char *user, size_t ucap,
		       int *found)
{
	struct q q;

	if (!found || !platform || !pcap || !user || !ucap)
		return GB_EARGS;
	*found = 0;
	platform[0] = user[0] = '\0';
	if (!s || !key || !fits(key, STORE_NAME_LEN))
		return GB_EARGS;
	q = q_get(s, SQL_PERSON_BY_NAME);
	q_text(&q, 1, key);
	if (q_row(&q)) {
		col_copy(&q, 0, platform, pcap);
		col_copy(&q, 1, user, ucap);
		*found = 1;
	}
	return q_end(&q);
}

int store_oseat_away(struct store *s, int64_t table, int seat, int away)
{
	struct q q;

	if (!s || seat < 0)
		return GB_EARGS;
	q = q_get(s, SQL_OSEAT_AWAY);
	q_i64(&q, 1, table);
	q_i64(&q, 2, seat);
	q_i64(&q, 3, away != 0);
	q_row(&q);
	return q_end(&q);
}

int store_person_back(struct store *s, const char *platform, const char *user, int *n)
{
	struct q q;

	if (n)
		*n = 0;
	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, SQL_PERSON_BACK);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_row(&q);
	if (!q.rc && n)
		*n = (int)q.s->ops->changes(s->b);
	return q_end(&q);
}

int store_person_last(struct store *s, const char *platform, const char *user, int64_t table)
{
	struct q q;

	if (!s || !person_ok(platform, user))
		return GB_EARGS;
	q = q_get(s, SQL_PERSON_LAST);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_i64(&q, 3, table);
	q_row(&q);
	return q_end(&q);
}

int store_block_add(struct store *s, const char *platform, const char *user, const char *other_platform,
		    const char *other_user)
{
	struct q q;

	if (!s || !person_ok(platform, user) || !person_ok(other_platform, other_user))
		return GB_EARGS;
	q = q_get(s, SQL_BLOCK_ADD);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_text(&q, 3, other_platform);
	q_text(&q, 4, other_user);
	q_row(&q);
	return q_end(&q);
}

int store_blocked(struct store *s, const char *platform_a, const char *user_a, const char *platform_b,
		  const char *user_b, int *blocked)
{
	struct q q;

	if (!blocked)
		return GB_EARGS;
	*blocked = 0;
	if (!s || !person_ok(platform_a, user_a) || !person_ok(platform_b, user_b))
		return GB_EARGS;
	q = q_get(s, SQL_BLOCKED);
	q_text(&q, 1, platform_a);
	q_text(&q, 2, user_a);
	q_text(&q, 3, platform_b);
	q_text(&q, 4, user_b);
	*blocked = q_row(&q);
	return q_end(&q);
}

/* ---- ratings ---- */

int store_rating_get(struct store *s, const char *platform, const char *user, const char *game,
		     struct store_rating *out)
{
	struct q q;

	if (!out)
		return GB_EARGS;
	memset(out, 0, sizeof(*out));
	if (!s || !person_ok(platform, user) || !id_ok(game, 16))
		return GB_EARGS;
	q = q_get(s, SQL_RATING_GET);
	q_text(&q, 1, platform);
	q_text(&q, 2, user);
	q_text(&q, 3, game);
	if (q_row(&q)) {
		snprintf(out->platform, sizeof(out->platform), "%s", platform);
		snprintf(out->user, sizeof(out->user), "%s", user);
		out->r = col_i64(&q, 0);
		out->rd = col_i64(&q, 1);
		out->sigma = col_i64(&q, 2);
		out->games = (int)col_i64(&q, 3);
	} else if (!q.rc) {
		q.rc = GB_ENOTFOUND;
	}
	return q_end(&q);
}

int store_rating_set(struct store *s, const char *game, const struct store_rating *r, int was_games)
{
	struct q q;

	if (!s || !r || !person_ok(r->platform, r->user) || !id_ok(game, 16))
		return GB_EARGS;
	q = q_get(s, SQL_RATING_SET);
	q_text(&q, 1, r->platform);
	q_text(&q, 2, r->user);
	q_text(&q, 3, game);
	q_name(&q, 4, r->name);
	q_i64(&q, 5, r->r);
	q_i64(&q, 6, r->rd);
	q_i64(&q, 7, r->sigma);
	q_i64(&q, 8, r->games);
	q_i64(&q, 9, was_games);
	if (!q_run(&q) && q_changes(&q) == 0)
		q.rc = GB_ECONFLICT;
	return q_end(&q);
}

int store_rating_top(struct store *s, const char *game, struct store_rating *out, int max, int *n)
{
	struct q q;

	if (!n)
		return GB_EARGS;
	*n = 0;
	if (!s || !out || max <= 0 || !id_ok(game, 16))
		return GB_EARGS;
	q = q_get(s, SQL_RATING_TOP);
	q_text(&q, 1, game);
	q_i64(&q, 2, max);
	while (*n < max && q_row(&q)) {
		struct store_rating *r = &out[(*n)++];

		memset(r, 0, sizeof(*r));
		col_copy(&q, 0, r->platform, sizeof(r->platform));
		col_copy(&q, 1, r->user, sizeof(r->user));
		col_copy(&q, 2, r->name, sizeof(r->name));
		r->r = col_i64(&q, 3);
		r->rd = col_i64(&q, 4);
		r->sigma = col_i64(&q, 5);
		r->games = (int)col_i64(&q, 6);
	}
	if (q.rc)
		*n = 0;
	return q_end(&q);
}
