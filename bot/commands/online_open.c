/*
 * online_open.c - an online table's writes: the command that opens one
 * for the queue entries the matcher picked (cmd_online_open(), one
 * transaction: entries claimed, table, seats, online seats, stakes held,
 * the game dealt), the writes of the online commands (online_commit())
 * and, when its game ends, the ratings it moves (online_rate()).
 */
#include <stdlib.h>
#include <string.h>

#include "bot/base/jsontext.h"
#include "bot/internal.h"
#include "games/ai/ai.h"
#include "rating.h"

#define FILL_LEVEL GB_LEVEL_MEDIUM

/* ---- opening one table ---- */

/* Seat the entries' people (and computers after them) at the new table. */
static void seat_people(struct ctx *c, const struct store_queue *e, int n, int computers)
{
	c->nseats = 0;
	c->noseats = 0;
	for (int i = 0; i < n; i++) {
		struct store_seat *s = &c->seats[c->nseats];
		struct store_oseat *o = &c->oseats[c->noseats++];

		memset(s, 0, sizeof(*s));
		s->seat = c->nseats++;
		online_key(e[i].platform, e[i].user, s->user, sizeof(s->user));
		snprintf(s->name, sizeof(s->name), "%s", e[i].name);
		s->level = -1;
		memset(o, 0, sizeof(*o));
		o->seat = s->seat;
		snprintf(o->platform, sizeof(o->platform), "%s", e[i].platform);
		snprintf(o->user, sizeof(o->user), "%s", e[i].user);
		snprintf(o->chat, sizeof(o->chat), "%s", e[i].chat);
		snprintf(o->name, sizeof(o->name), "%s", e[i].name);
		snprintf(o->lang, sizeof(o->lang), "%s", e[i].lang);
		c->ow.claim[c->ow.nclaim++] = e[i].id;
	}
	for (int k = 0; k < computers && c->nseats < GB_MAX_SEATS; k++) {
		struct store_seat *s = &c->seats[c->nseats];

		memset(s, 0, sizeof(*s));
		s->seat = c->nseats++;
		s->level = FILL_LEVEL;
	}
	c->seats_changed = true;
	c->ow.oseats_new = true;
}

/*
 * A person whose online wallet no longer covers the stake (another table
 * took it meanwhile) leaves the queue, told why; the others wait on.
 */
static bool drop_short(struct ctx *c, const struct store_queue *e, int n)
{
	char acct[STORE_ACCOUNT_LEN], key[STORE_ID_LEN], a[24];

	for (int i = 0; i < n; i++) {
		int64_t coins = 0;
		int rows = 0;

		if (e[i].stake <= 0)
			continue;
		online_key(e[i].platform, e[i].user, key, sizeof(key));
		snprintf(acct, sizeof(acct), "user:%s", key);
		if (store_coins_balance(c->b->store, c->chat.id, acct, &coins, &rows))
			return true;
		if (!rows)
			coins = c->b->cfg.online_coins;
		if (coins >= e[i].stake)
			continue;
		c->has_table = false;
		c->table_new = false;
		c->ow.nclaim = 0;
		c->ow.claim[c->ow.nclaim++] = e[i].id;
		c->noseats = 1;
		c->oseats[0] = (struct store_oseat){ 0 };
		snprintf(c->oseats[0].platform, sizeof(c->oseats[0].platform), "%s", e[i].platform);
		snprintf(c->oseats[0].user, sizeof(c->oseats[0].user), "%s", e[i].user);
		snprintf(c->oseats[0].chat, sizeof(c->oseats[0].chat), "%s", e[i].chat);
		snprintf(c->oseats[0].lang, sizeof(c->oseats[0].lang), "%s", e[i].lang);
		/* their queue message says they left it */
		online_queue_view(c, &e[i], 0, QUEUE_LEFT);
		reply_push(c, "alert", key, "");
		{
			struct strbuf sb = { 0 };
			json_t *r = json_array_get(c->replies, json_array_size(c->replies) - 1);
			json_t *texts = json_array();
			int lang = c->lang;

			/* the number too in each language's digits */
			for (int l = 0; l < LANG_COUNT; l++) {
				c->lang = l;
				sb_addmsg(&sb, l, M_ONLINE_SHORT_DROPPED, ctx_num(c, (int)e[i].stake, a));
				json_array_append_new(texts, json_text(sb_str(&sb)));
				sb_release(&sb);
			}
			c->lang = lang;
			json_object_set_new(r, "texts", texts);
			sb_release(&sb);
		}
		return true;
	}
	return false;
}

/* "An online table of GAME opens: NAMES", in each language with its own title and computers' names. */
static void opened_line(struct ctx *c, const struct gb_game *g)
{
	json_t *r = reply_push(c, "public", NULL, ""), *texts = json_array();
	int lang = c->lang;

	for (int l = 0; l < LANG_COUNT; l++) {
		struct strbuf names = { 0 }, line = { 0 };

		c->lang = l;
		for (int i = 0; i < c->nseats; i++) {
			char name[STORE_NAME_LEN];

			sb_add(&names, i ? ", " : "");
			sb_add(&names, seat_name(c, i, name, sizeof(name)));
		}
		sb_addmsg(&line, l, M_ONLINE_OPENED, game_title(c, g), sb_str(&names));
		json_array_append_new(texts, json_text(sb_str(&line)));
		if (l == lang)
			json_object_set_new(r, "text", json_text(sb_str(&line)));
		sb_release(&names);
		sb_release(&line);
	}
	c->lang = lang;
	json_object_set_new(r, "texts", texts);
}

int cmd_online_open(struct ctx *c)
{
	const struct command *cmd = c->cmd;
	const struct gb_game *g;
	size_t at;
	int rc;

	if (c->has_table || !cmd->match || cmd->nmatch < 1 || cmd->nmatch > GB_MAX_SEATS)
		return GB_OK;
	g = gb_game_find(cmd->match[0].game);
	if (!g || cmd->nmatch + cmd->match_computers != cmd->match[0].seats)
		return GB_OK;
	if (drop_short(c, cmd->match, cmd->nmatch))
		return GB_OK;
	rc = table_open(c, g);
	if (rc)
		return rc;
	/* nobody runs an online table: who leaves hands the seat to a computer */
	c->table.creator[0] = '\0';
	c->owner[0] = '\0';
	seat_people(c, cmd->match, cmd->nmatch, cmd->match_computers);
	/* each queue message says the table is ready */
	for (int i = 0; i < cmd->nmatch; i++)
		online_queue_view(c, &cmd->match[i], 0, QUEUE_SEATED);
	c->terms.stake = cmd->match[0].stake;
	/* the table opens, then its stakes are held: the lines in that order */
	at = json_array_size(c->replies);
	opened_line(c, g);
	if (coins_start_refused(c, &rc)) {
		json_array_remove(c->replies, at);
		return rc;
	}
	return table_start_game(c);
}

/* ---- the online commands' writes ---- */

/*
 * Entry id went from the queue while its queue message was message: the
 * command's final view of it (seated, left), drawn from the entry as read
 * before the transaction, edits that message, whatever the view knew. A
 * first post of the message recorded after the read is no longer missed
 * (a second message); one recorded after the entry went is handed to the
 * view in the outbox by the adapter that posted it.
 */
static int queue_view_edits(struct ctx *c, int64_t id, const char *message)
{
	size_t i;
	json_t *r;

	if (!message[0])
		return GB_OK;
	json_array_foreach(c->replies, i, r) {
		if (!json_is_true(json_object_get(r, "queue")) ||
		    json_integer_value(json_object_get(r, "entry")) != id)
			continue;
		json_object_set_new(r, "message", json_text(message));
		/* its outbox row's text is made already in a private chat's command: made again */
		if (i < c->nreply_text) {
			char *text = json_compact(r);

			if (!text)
				return GB_ENOMEM;
			free(c->reply_text[i]);
			c->reply_text[i] = text;
		}
	}
	return GB_OK;
}

int online_commit(struct ctx *c)
{
	struct store *s = c->ws;
	const struct command *cmd = c->cmd;
	char messages[GB_MAX_SEATS][32];
	int rc = GB_OK;

	if (c->ow.nclaim)
		rc = store_queue_claim(s, c->ow.claim, c->ow.nclaim, messages);
	for (int i = 0; !rc && i < c->ow.nclaim; i++)
		rc = queue_view_edits(c, c->ow.claim[i], messages[i]);
	if (!rc && c->ow.queue_add) {
		rc = store_queue_add(s, &c->ow.queue);
		/* queued meanwhile (a second tap): decide again, and say so */
		if (rc == GB_EEXISTS)
			rc = GB_ECONFLICT;
	}
	if (!rc && c->ow.queue_leave) {
		int left = 0;

		rc = store_queue_leave(s, cmd->platform, cmd->user, &left, messages[0], sizeof(messages[0]));
		/* seated meanwhile (the matcher claimed the entry): decide again, and say the table is ready */
		if (!rc && !left)
			rc = GB_ECONFLICT;
		if (!rc)
			rc = queue_view_edits(c, c->ow.queue_left, messages[0]);
	}
	if (!rc && c->ow.queue_fill) {
		rc = store_queue_fill(s, cmd->platform, cmd->user, c->ow.queue_fill == 1);
		if (rc == GB_ENOTFOUND)
			rc = GB_ECONFLICT; /* seated meanwhile: decide again */
	}
	if (!rc && c->ow.name_set) {
		rc = store_person_name(s, cmd->platform, cmd->user, c->ow.name, c->ow.name_key);
		/* claimed meanwhile by someone else: decide again, and say it is taken */
		if (rc == GB_EEXISTS)
			rc = GB_ECONFLICT;
	}
	for (int i = 0; !rc && i < c->ow.nblock; i++)
		rc = store_block_add(s, cmd->platform, cmd->user, c->ow.block[i].platform, c->ow.block[i].user);
	for (int i = 0; !rc && c->ow.oseats_new && c->has_table && i < c->noseats; i++) {
		rc = store_oseat_add(s, c->table.id, &c->oseats[i]);
		if (!rc)
			rc = store_person_last(s, c->oseats[i].platform, c->oseats[i].user, c->table.id);
	}
	for (int i = 0; !rc && i < c->ow.nshown; i++)
		rc = store_queue_shown(s, c->ow.shown[i].id, c->ow.shown[i].n);
	/* a seat played for at the computer's pace from now on; anything its person does takes it back */
	for (int i = 0; !rc && c->has_table && i < c->ow.naway; i++)
		rc = store_oseat_away(s, c->table.id, c->ow.away[i], 1);
	if (!rc && c->cmd->from_platform[0])
		rc = store_person_back(s, c->cmd->from_platform, c->cmd->from_user, NULL);
	else if (!rc && c->cmd->private_chat && !c->cmd->internal)
		rc = store_person_back(s, c->cmd->platform, c->cmd->user, NULL);
	if (!rc && c->online && c->record_stats)
		rc = online_rate(c);
	return rc;
}

/* ---- ratings ---- */

/* Each seat's place at the finished table: the points' order (Call Break), else the winner first. */
static void places(const struct ctx *c, int *rank)
{
	const struct gb_outcome *oc = &c->final;

	for (int i = 0; i < c->nseats; i++) {
		if (c->game->flags & GB_POINTS) {
			rank[i] = 0;
			for (int k = 0; k < c->nseats; k++)
				rank[i] += oc->score[k] > oc->score[i];
		} else {
			rank[i] = oc->draw || oc->winner < 0 || oc->winner == i ? 0 : 1;
		}
	}
}

int online_rate(struct ctx *c)
{
	struct glicko g[GB_MAX_SEATS];
	struct store_rating r[GB_MAX_SEATS];
	int rank[GB_MAX_SEATS], was[GB_MAX_SEATS], rc = GB_OK;
	bool person[GB_MAX_SEATS];

	places(c, rank);
	for (int i = 0; !rc && i < c->nseats; i++) {
		/* who sat down counts, who left to a computer too (they lost their game); computers never */
		person[i] = c->seats[i].user[0] != '\0' &&
			    online_key_split(c->seats[i].user, r[i].platform, sizeof(r[i].platform), r[i].user,
					     sizeof(r[i].user));
		g[i] = GLICKO_NEW;
		was[i] = -1;
		if (!person[i])
			continue;
		{
			struct store_rating old;

			rc = store_rating_get(c->ws, r[i].platform, r[i].user, c->game->name, &old);
			if (rc == GB_ENOTFOUND) {
				rc = GB_OK;
				continue;
			}
			g[i] = (struct glicko){ (double)old.r / 1000.0, (double)old.rd / 1000.0,
						(double)old.sigma / 1e6, old.games };
			was[i] = old.games;
		}
	}
	if (rc)
		return rc;
	glicko_table(g, rank, person, c->nseats, GLICKO_TAU);
	for (int i = 0; !rc && i < c->nseats; i++) {
		if (!person[i])
			continue;
		snprintf(r[i].name, sizeof(r[i].name), "%s", c->seats[i].name);
		r[i].r = (int64_t)(g[i].r * 1000.0 + 0.5);
		r[i].rd = (int64_t)(g[i].rd * 1000.0 + 0.5);
		r[i].sigma = (int64_t)(g[i].sigma * 1e6 + 0.5);
		r[i].games = g[i].games;
		/* rated meanwhile by another of their games (two instances): worked out again */
		rc = store_rating_set(c->ws, c->game->name, &r[i], was[i]);
	}
	return rc;
}
