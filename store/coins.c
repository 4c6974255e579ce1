/*
 * coins.c - the store's operations on what players win and hold: their
 * game statistics per chat, the terms a table is played for (its sealed
 * seed and stake) and the coin ledger, with its audit. Written once for
 * every database, as store/ops.c is, on the same statement slots of the
 * handle's backend.
 */
#include "store/backend.h"
#include "store/query.h"
#include "games/utf8.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is seed 64 lowercase hex digits (a table's sealed seed)? */
static int seed_hex_ok(const char *seed)
{
	size_t i;

	for (i = 0; seed[i]; i++)
		if (!((seed[i] >= '0' && seed[i] <= '9') || (seed[i] >= 'a' && seed[i] <= 'f')))
			return 0;
	return i == 64;
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
