/*
 * online.c - online tables: people who share no chat play together, on
 * either platform.
 *
 * A person asks for a game with /online GAME in their private chat with
 * the bot and waits in that game's queue (a store row). The matcher
 * (bot_online_match(), run by the scheduler with the timers) seats the
 * people of a queue together when enough wait, or after the fill-in wait
 * with computers in the seats nobody came for, when everyone waiting for
 * that table accepted them. It claims the queue entries in the same
 * transaction that opens the table, in one statement, so an entry is
 * seated once however many instances look.
 *
 * An online table is an ordinary table in a place of its own: the chat
 * "online" / "world" holds the online settings, wallets and stats (its
 * places "world#qN" hold one table each, as a forum topic does). A person
 * at it is "PLATFORM:USER" in its seats, named by the name they chose
 * (/name), never by their platform id or username; each seat also has an
 * online seat row: the person's private chat with the bot, where they see
 * the table as one message of their own (their hand in it, their
 * buttons), in their own language. A command typed or pressed in a
 * private chat that has no table of its own goes to the person's seat
 * (online_route()), and everything the table says is fanned out to the
 * seats' chats when the command commits (online_queue_replies()).
 * Strangers exchange no free text: only a fixed set of reactions. Names,
 * blocks and ratings are online_people.c's; an online table's
 * writes (opening it, committing the online commands) online_open.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "bot/commands.h"
#include "bot/internal.h"
#include "bot/render/games.h"
#include "games/ai/ai.h"
#include "games/utf8.h"
#include "rating.h"

#define ONLINE_WORLD "world"
#define QUEUE_MAX 512            /* queue entries /online shows the queues from */

/* ---- people ---- */

bool online_key(const char *platform, const char *user, char *out, size_t cap)
{
	/* platform ids are far shorter than a seat's user field: a key that does not fit is none */
	if ((size_t)snprintf(out, cap, "%s:%s", platform, user) < cap)
		return true;
	out[0] = '\0';
	return false;
}

bool online_key_split(const char *key, char *platform, size_t pcap, char *user, size_t ucap)
{
	const char *colon = strchr(key, ':');

	if (!colon || colon == key || !colon[1] || (size_t)(colon - key) >= pcap)
		return false;
	snprintf(platform, pcap, "%.*s", (int)(colon - key), key);
	snprintf(user, ucap, "%s", colon + 1);
	return true;
}

/* The online world's chat row (its wallets). */
static int world_chat(struct bot *b, struct store_chat *out)
{
	return store_chat_get(b->store, "online", ONLINE_WORLD, b->cfg.default_lang, out);
}

/* The coins in the person's online wallet (the starting grant when they have none yet). */
int online_coins(struct ctx *c, const char *key, int64_t *coins)
{
	struct store_chat w = { 0 };
	char acct[STORE_ACCOUNT_LEN];
	int rows = 0, rc = world_chat(c->b, &w);

	snprintf(acct, sizeof(acct), "user:%s", key);
	if (!rc)
		rc = store_coins_balance(c->b->store, w.id, acct, coins, &rows);
	if (!rc && rows == 0)
		*coins = c->b->cfg.online_coins;
	store_chat_release(&w);
	return rc;
}

int online_wallets(struct ctx *c, struct store_balance *out, int max, int *n)
{
	struct store_chat w = { 0 };
	int rc = world_chat(c->b, &w);

	*n = 0;
	if (!rc)
		rc = store_coins_top(c->b->store, w.id, "user:", out, max, n);
	store_chat_release(&w);
	return rc;
}

/* Table sizes a game is played at online: two, and four where it seats four. */
static int seats_allowed(const struct gb_game *g, int n)
{
	return (n == 2 || n == 4) && n >= g->min_players && n <= g->max_players;
}

static int seats_default(const struct gb_game *g)
{
	return seats_allowed(g, 2) ? 2 : 4;
}

/* ---- the seats of an online table and their people ---- */

/* The online seat of person key, or NULL. */
static const struct store_oseat *oseat_of(const struct ctx *c, const char *key)
{
	char k[STORE_ID_LEN];

	for (int i = 0; i < c->noseats; i++) {
		online_key(c->oseats[i].platform, c->oseats[i].user, k, sizeof(k));
		if (strcmp(k, key) == 0)
			return &c->oseats[i];
	}
	return NULL;
}

/* Does the online seat o still belong to its person (not left to a computer)? */
static bool oseat_seated(const struct ctx *c, const struct store_oseat *o)
{
	char k[STORE_ID_LEN];

	if (o->seat < 0 || o->seat >= c->nseats)
		return false;
	online_key(o->platform, o->user, k, sizeof(k));
	return c->seats[o->seat].level < 0 && strcmp(c->seats[o->seat].user, k) == 0;
}

/* ---- routing a private chat's command to the person's online table ---- */

/* Verbs a private chat answers itself, never an online table's. */
static bool own_verb(const char *verb)
{
	static const char *const own[] = { "online", "name", "block", "rating", "top", "wallet", "help",
					   "lang", "settings", "rules", "stats", "verify", "speed", "new",
					   "watch", "grant", NULL };

	for (int i = 0; own[i]; i++)
		if (strcmp(verb, own[i]) == 0)
			return true;
	return false;
}

/* The command in, taken to the place of table as the person there; out is filled. */
static int route_to(struct bot *b, const struct command *in, int64_t table, struct command *out)
{
	struct store_table t = { 0 };
	struct store_chat place = { 0 };
	struct store_oseat os[GB_MAX_SEATS];
	char key[STORE_ID_LEN];
	int n = 0, rc = store_table_get(b->store, table, &t);

	if (!rc)
		rc = store_chat_get_by_id(b->store, t.chat, &place);
	if (!rc)
		rc = store_oseats_get(b->store, table, os, GB_MAX_SEATS, &n);
	if (rc || strcmp(place.platform, "online") != 0)
		goto out;
	*out = *in;
	snprintf(out->from_platform, sizeof(out->from_platform), "%s", in->platform);
	snprintf(out->from_chat, sizeof(out->from_chat), "%s", in->chat);
	snprintf(out->from_user, sizeof(out->from_user), "%s", in->user);
	snprintf(out->platform, sizeof(out->platform), "online");
	snprintf(out->chat, sizeof(out->chat), "%s", place.chat);
	online_key(in->platform, in->user, key, sizeof(key));
	snprintf(out->user, sizeof(out->user), "%s", key);
	for (int i = 0; i < n; i++)
		if (!strcmp(os[i].platform, in->platform) && !strcmp(os[i].user, in->user))
			snprintf(out->user_name, sizeof(out->user_name), "%s", os[i].name);
	/* one namespace of delivery ids for every platform at the table */
	if (in->update_id[0])
		snprintf(out->update_id, sizeof(out->update_id), "%.15s:%.47s", in->platform, in->update_id);
	out->is_admin = false;
	out->anonymous = false;
	out->unaddressed = false;
out:
	store_table_release(&t);
	store_chat_release(&place);
	return rc;
}

bool online_route(struct bot *b, const struct command *in, const struct bot_command *bc,
		  struct command *out)
{
	struct store_table own = { 0 };
	struct store_chat chat = { 0 };
	int64_t table = 0;
	bool has_own, react;

	if (!bc || in->internal || !in->private_chat || (bc->flags & CMD_INTERNAL) || own_verb(bc->name) ||
	    !strcmp(in->platform, "online"))
		return false;
	react = strcmp(bc->name, "react") == 0;
	if (!react && !(bc->flags & (CMD_NEEDS_TABLE | CMD_NEEDS_GAME | CMD_PLAYERS_ONLY)) &&
	    strcmp(bc->name, "board") != 0)
		return false;
	if (store_oseat_open(b->store, in->platform, in->user, &table)) {
		char name[8];

		/* no table in play: a reaction goes to the last one, when the game just ended */
		if (!react || store_person_get(b->store, in->platform, in->user, name, sizeof(name), &table) ||
		    !table)
			return false;
	}
	if (in->button_table && in->button_table != table)
		return false;
	if (!in->button_table && !react) {
		/* a table of the private chat's own (with computers) comes first */
		has_own = !store_chat_get(b->store, in->platform, in->chat, b->cfg.default_lang, &chat) &&
			  !store_table_open_get(b->store, chat.id, &own);
		store_table_release(&own);
		store_chat_release(&chat);
		if (has_own)
			return false;
	}
	return route_to(b, in, table, out) == GB_OK && !strcmp(out->platform, "online");
}

/* ---- what an online table says, to each seat's private chat ---- */

void online_views(struct ctx *c)
{
	int lang = c->lang;

	for (int i = 0; i < c->noseats; i++) {
		const struct store_oseat *o = &c->oseats[i];
		size_t n;
		json_t *r;

		/* /board: the table afresh in the asker's chat alone */
		if (!oseat_seated(c, o) || (c->repost_table && o->seat != c->my_seat))
			continue;
		c->viewer = o->seat;
		c->lang = lang_parse(o->lang) < 0 ? lang : lang_parse(o->lang);
		table_message(c);
		n = json_array_size(c->replies);
		r = json_array_get(c->replies, n - 1);
		json_object_set_new(r, "dest", json_integer(i));
		json_object_set_new(r, "seat", json_true());
		if (c->repost_table)
			json_object_set_new(r, "repost", json_true());
		/* under a game's board (not the lobby's), the row of reactions comes last */
		if (c->table.status != STORE_LOBBY && c->st)
			online_reaction_buttons(c, json_object_get(r, "buttons"));
	}
	c->viewer = -1;
	c->lang = lang;
}

/* The reply's text in lang: its own, or the one made for that language ("texts"). */
static const char *text_in(json_t *r, int lang)
{
	json_t *texts = json_object_get(r, "texts");
	const char *t = json_string_value(json_array_get(texts, (size_t)lang));

	return t ? t : json_string_value(json_object_get(r, "text"));
}

/* Queue one row of r for the private chat (platform, chat) as user, in lang. */
static int queue_one(struct ctx *c, json_t *r, const char *platform, const char *chat, const char *user,
		     int lang, bool caller, enum store_out_prio prio)
{
	json_t *row = json_deep_copy(r);
	const char *kind = json_string_value(json_object_get(r, "kind"));
	char key[32] = "", *text;
	int rc;

	if (!row)
		return GB_ENOMEM;
	json_object_del(row, "dest");
	json_object_del(row, "texts");
	json_object_set_new(row, "text", json_text(text_in(r, lang)));
	if (user)
		json_object_set_new(row, "user", json_text(user));
	if (c->has_table) {
		json_object_set_new(row, "table", json_integer(c->table.id));
		json_object_set_new(row, "turn", json_integer(c->seq));
	}
	json_object_set_new(row, "lang", json_string(lang_code(lang)));
	/* the caller's own rows answer their press or command, in their chat */
	if (caller && c->cmd->reply[0]) {
		if (strcmp(kind, "public") != 0 && strcmp(kind, "table") != 0)
			json_object_set_new(row, "reply", json_string(c->cmd->reply));
		json_object_set_new(row, "origin", json_string(c->cmd->reply));
	}
	if (c->has_table && !strcmp(kind, "table"))
		snprintf(key, sizeof(key), "table:%lld", (long long)c->table.id);
	text = json_dumps(row, JSON_COMPACT);
	json_decref(row);
	if (!text)
		return GB_ENOMEM;
	rc = store_out_add_prio(c->ws, platform, chat, c->has_table ? c->table.id : 0, key, text,
				c->cmd->now_ms, json_object_get(r, "reply") || caller ? STORE_OUT_TURN : prio);
	free(text);
	return rc;
}

/* A person's queue message (online_queue_view()), to the private chat it names; it replaces one not yet sent. */
static int queue_view_out(struct ctx *c, json_t *r)
{
	json_t *row = json_deep_copy(r);
	char platform[16], chat[STORE_ID_LEN], *text;
	int rc;

	if (!row)
		return GB_ENOMEM;
	snprintf(platform, sizeof(platform), "%s", json_string_value(json_object_get(r, "to_platform")));
	snprintf(chat, sizeof(chat), "%s", json_string_value(json_object_get(r, "to_chat")));
	json_object_del(row, "to_platform");
	json_object_del(row, "to_chat");
	text = json_dumps(row, JSON_COMPACT);
	json_decref(row);
	if (!text)
		return GB_ENOMEM;
	/*
	 * Turn-critical, as the table's rows are: in its chat, the message
	 * goes in the order it was made, before the table it says is ready
	 * (taking the place of a first post of it not yet sent)
	 */
	rc = store_out_add_prio(c->ws, platform, chat, 0, "queue", text, c->cmd->now_ms, STORE_OUT_TURN);
	free(text);
	return rc;
}

/* Is the online seat o the command's caller (in the private chat it came from)? */
static bool is_caller(const struct ctx *c, const struct store_oseat *o)
{
	return c->cmd->from_platform[0] && !strcmp(o->platform, c->cmd->from_platform) &&
	       !strcmp(o->user, c->cmd->from_user);
}

int online_queue_replies(struct ctx *c, const size_t *order, size_t n, size_t turn_rows)
{
	int rc = GB_OK;

	for (size_t k = 0; !rc && k < n; k++) {
		json_t *r = json_array_get(c->replies, order[k]);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		const char *user = json_string_value(json_object_get(r, "user"));
		json_t *dest = json_object_get(r, "dest");
		enum store_out_prio prio = k < turn_rows ? STORE_OUT_TURN : STORE_OUT_INFO;
		const struct store_oseat *o;

		if (json_object_get(r, "to_chat")) {
			rc = queue_view_out(c, r);
		} else if (json_is_integer(dest)) {
			/* a seat's own table view */
			o = &c->oseats[json_integer_value(dest)];
			rc = queue_one(c, r, o->platform, o->chat, NULL, lang_parse(o->lang) < 0 ? c->lang :
					lang_parse(o->lang), is_caller(c, o), STORE_OUT_TURN);
		} else if (!strcmp(kind, "public")) {
			for (int i = 0; !rc && i < c->noseats; i++) {
				o = &c->oseats[i];
				if (oseat_seated(c, o) || is_caller(c, o))
					rc = queue_one(c, r, o->platform, o->chat, NULL,
						       lang_parse(o->lang) < 0 ? c->lang : lang_parse(o->lang),
						       is_caller(c, o), prio);
			}
		} else if (user && (o = oseat_of(c, user)) != NULL) {
			/* a line for one person: an alert, their hand */
			rc = queue_one(c, r, o->platform, o->chat, o->user, lang_parse(o->lang) < 0 ? c->lang :
				       lang_parse(o->lang), is_caller(c, o), prio);
		} else if (c->cmd->from_platform[0]) {
			/* the caller, seated or not (an ack, a refusal) */
			rc = queue_one(c, r, c->cmd->from_platform, c->cmd->from_chat, c->cmd->from_user, c->lang,
				       true, prio);
		}
	}
	return rc;
}

/* ---- the commands ---- */

/* The person's open online table (0 none), as its game's title in *game. */
static int seated_at(struct ctx *c, const struct gb_game **game)
{
	struct store_table t = { 0 };
	int64_t table = 0;
	int rc = store_oseat_open(c->b->store, c->cmd->platform, c->cmd->user, &table);

	*game = NULL;
	if (rc == GB_ENOTFOUND)
		return GB_OK;
	if (!rc)
		rc = store_table_get(c->b->store, table, &t);
	if (!rc)
		*game = gb_game_find(t.game);
	store_table_release(&t);
	return rc;
}

/* The refusals every /online asks first; true when refused. */
bool online_refused(struct ctx *c)
{
	if (!c->b->cfg.online) {
		reply_alert(c, M_ONLINE_OFF);
		return true;
	}
	if (!c->cmd->private_chat || c->online) {
		struct strbuf list = { 0 };

		games_join(&list, "", "|", NULL);
		reply_alert(c, M_ONLINE_PRIVATE, sb_str(&list));
		sb_release(&list);
		return true;
	}
	return false;
}

/* /online alone: the queues, the person's place in theirs, their coins and name. */
static int online_status(struct ctx *c)
{
	struct store_queue *q = calloc(QUEUE_MAX, sizeof(*q));
	struct strbuf sb = { 0 };
	char key[STORE_ID_LEN], name[STORE_NAME_LEN], a[24], b2[24], d[24];
	int n = 0, rc, shown = 0;
	int64_t coins = 0;

	if (!q)
		return GB_ENOMEM;
	online_key(c->cmd->platform, c->cmd->user, key, sizeof(key));
	rc = store_queue_list(c->b->store, q, QUEUE_MAX, &n);
	if (!rc)
		rc = online_coins(c, key, &coins);
	if (!rc)
		rc = online_person_name(c->b->store, c->cmd->platform, c->cmd->user, name, sizeof(name));
	if (rc)
		goto out;
	sb_add(&sb, tr(c->lang, M_ONLINE_STATUS_HEAD));
	for (int i = 0; gb_games[i]; i++) {
		int waiting = 0, place = 0, mine = -1;

		for (int k = 0; k < n; k++) {
			if (strcmp(q[k].game, gb_games[i]->name))
				continue;
			waiting++;
			if (!strcmp(q[k].platform, c->cmd->platform) && !strcmp(q[k].user, c->cmd->user))
				mine = k, place = waiting;
		}
		if (!waiting)
			continue;
		shown++;
		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_ONLINE_STATUS_ROW, game_title(c, gb_games[i]), ctx_num(c, waiting, a));
		if (mine >= 0) {
			sb_add(&sb, "\n");
			sb_addmsg(&sb, c->lang, M_ONLINE_YOUR_PLACE, game_title(c, gb_games[i]),
				 ctx_num(c, place, a), ctx_num(c, waiting, b2),
				 ctx_num(c, (int)((c->cmd->now_ms - q[mine].since_ms) / 1000), d));
		}
	}
	if (!shown) {
		struct strbuf list = { 0 };

		games_join(&list, "", "|", NULL);
		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_ONLINE_STATUS_NONE, sb_str(&list));
		sb_release(&list);
	}
	sb_add(&sb, "\n");
	sb_addmsg(&sb, c->lang, M_ONLINE_YOUR_COINS, ctx_num(c, (int)coins, a), name);
	reply_push(c, "alert", c->cmd->user, sb_str(&sb));
out:
	sb_release(&sb);
	free(q);
	return rc;
}

static void add_btn(json_t *rows, const char *label, const char *cmd)
{
	json_t *row = json_array();

	json_array_append_new(row, json_pack("{ssss}", "label", label, "cmd", cmd));
	json_array_append_new(rows, row);
}

/* Do entries a and b wait for one table (game, size, stake)? */
static bool same_table(const struct store_queue *a, const struct store_queue *b)
{
	return !strcmp(a->game, b->game) && a->seats == b->seats && a->stake == b->stake;
}

/* How many of the queue's n entries q wait for the table entry e waits for. */
static int waiting_for(const struct store_queue *q, int n, const struct store_queue *e)
{
	int waiting = 0;

	for (int i = 0; i < n; i++)
		waiting += same_table(&q[i], e);
	return waiting;
}

int online_group_end(const struct store_queue *q, int n, int i)
{
	int end = i;

	while (end < n && same_table(&q[end], &q[i]))
		end++;
	return end;
}

void online_queue_view(struct ctx *c, const struct store_queue *e, int waiting, enum queue_view_is is)
{
	const struct gb_game *g = gb_game_find(e->game);
	struct strbuf part = { 0 }, text = { 0 };
	char a[24], b2[24];
	int lang = c->lang;
	json_t *r, *buttons;

	if (!g)
		return;
	/* from the online world: in the language of the person it goes to */
	if (c->online && lang_parse(e->lang) >= 0)
		c->lang = lang_parse(e->lang);
	if (is == QUEUE_SEATED) {
		sb_addmsg(&text, c->lang, M_ONLINE_QUEUE_SEATED, game_title(c, g));
	} else if (is == QUEUE_LEFT) {
		sb_addmsg(&text, c->lang, M_ONLINE_LEFT, game_title(c, g));
	} else {
		if (e->stake)
			sb_addmsg(&part, c->lang, M_ONLINE_STAKE_PART, ctx_num(c, (int)e->stake, a));
		sb_addmsg(&text, c->lang, M_ONLINE_QUEUED, game_title(c, g), ctx_num(c, e->seats, b2),
			 sb_str(&part), e->name);
		sb_add(&text, "\n");
		sb_addmsg(&text, c->lang, M_ONLINE_WAITING, ctx_num(c, waiting, a));
		sb_add(&text, "\n");
		sb_addmsg(&text, c->lang, M_ONLINE_FILL_HINT,
			 ctx_num(c, (int)(c->b->cfg.online_fill_ms / 1000), a));
	}
	r = reply_push(c, "table", NULL, sb_str(&text));
	json_object_set_new(r, "queue", json_true());
	/* the entry it shows (none yet for a newcomer's), for the message it had when it went */
	if (e->id)
		json_object_set_new(r, "entry", json_integer(e->id));
	/* the id it has in the chat, for when the entry is gone by the time it is sent */
	if (e->message[0])
		json_object_set_new(r, "message", json_text(e->message));
	if (c->online) {
		json_object_set_new(r, "to_platform", json_text(e->platform));
		json_object_set_new(r, "to_chat", json_text(e->chat));
	}
	if (is == QUEUE_WAITING) {
		buttons = json_array();
		add_btn(buttons, tr(c->lang, M_ONLINE_BTN_FILL), "/online fill");
		add_btn(buttons, tr(c->lang, M_ONLINE_BTN_LEAVE), "/online leave");
		json_object_set_new(r, "buttons", buttons);
	}
	c->lang = lang;
	sb_release(&part);
	sb_release(&text);
}

/*
 * The queue messages that no longer say how many wait for their table,
 * drawn again (at most ONLINE_SHOWN_MAX a command; the matcher's next
 * round does the rest): a person joined, left or was seated.
 */
int cmd_online_queue(struct ctx *c)
{
	struct store_queue *q = calloc(QUEUE_MAX, sizeof(*q));
	int n = 0, rc;

	if (!q)
		return GB_ENOMEM;
	rc = store_queue_list(c->b->store, q, QUEUE_MAX, &n);
	for (int i = 0, start = 0, end = 0; !rc && i < n && c->ow.nshown < ONLINE_SHOWN_MAX; i++) {
		if (i == end) {
			start = i;
			end = online_group_end(q, n, i);
		}
		if (q[i].shown == end - start)
			continue;
		online_queue_view(c, &q[i], end - start, QUEUE_WAITING);
		c->ow.shown[c->ow.nshown].id = q[i].id;
		c->ow.shown[c->ow.nshown++].n = end - start;
	}
	free(q);
	return rc;
}

/* /online GAME [STAKE] [2p|4p]: into the game's queue. */
static int online_join(struct ctx *c, const struct gb_game *g, const char *rest)
{
	struct store_queue *e = &c->ow.queue, *q;
	struct store_rating r;
	char word[32], key[STORE_ID_LEN], a[24], b2[24];
	int seats = seats_default(g), stake = 0, rc, n = 0;
	int64_t coins = 0;

	while ((rest = arg_word(rest, word, sizeof(word))) != NULL) {
		size_t len = strlen(word);

		if (len == 2 && word[1] == 'p' && (word[0] == '2' || word[0] == '4')) {
			seats = word[0] - '0';
			if (!seats_allowed(g, seats)) {
				reply_alert(c, M_ONLINE_BAD_SEATS, game_title(c, g),
					    ctx_num(c, seats_default(g), a));
				return GB_OK;
			}
		} else if (gb_parse_uint(word, 1000000, &stake) != GB_OK) {
			reply_usage(c, "/online %s [STAKE] [2p|4p]");
			return GB_OK;
		}
	}
	online_key(c->cmd->platform, c->cmd->user, key, sizeof(key));
	rc = online_coins(c, key, &coins);
	if (rc)
		return rc;
	if (stake > coins) {
		reply_alert(c, M_ONLINE_SHORT, ctx_num(c, (int)coins, a), ctx_num(c, stake, b2));
		return GB_OK;
	}
	memset(e, 0, sizeof(*e));
	snprintf(e->game, sizeof(e->game), "%s", g->name);
	e->seats = seats;
	e->stake = stake;
	snprintf(e->platform, sizeof(e->platform), "%s", c->cmd->platform);
	snprintf(e->user, sizeof(e->user), "%s", c->cmd->user);
	snprintf(e->chat, sizeof(e->chat), "%s", c->cmd->chat);
	snprintf(e->lang, sizeof(e->lang), "%s", lang_code(c->lang));
	rc = online_person_name(c->b->store, c->cmd->platform, c->cmd->user, e->name, sizeof(e->name));
	if (rc)
		return rc;
	e->rating = 1500000;
	if (!store_rating_get(c->b->store, c->cmd->platform, c->cmd->user, g->name, &r))
		e->rating = r.r;
	e->since_ms = c->cmd->now_ms;
	c->ow.queue_add = true;
	/* the queue message says how many wait for this table, the newcomer too */
	q = calloc(QUEUE_MAX, sizeof(*q));
	if (!q)
		return GB_ENOMEM;
	rc = store_queue_list(c->b->store, q, QUEUE_MAX, &n);
	e->shown = waiting_for(q, n, e) + 1;
	free(q);
	if (rc)
		return rc;
	online_queue_view(c, e, e->shown, QUEUE_WAITING);
	return GB_OK;
}

/*
 * /online leave (fill, nofill) from someone in no queue: typed, or pressed
 * on a queue message of an entry gone. Seated meanwhile, they are told
 * their table is ready and how to leave it, and the pressed message (an
 * outdated one: the table opened while its first post was on its way, or
 * it could not be edited) says so too, its buttons gone.
 */
static int not_queued(struct ctx *c)
{
	const struct gb_game *g = NULL;
	json_t *r;
	int rc = seated_at(c, &g);

	if (rc || !g) {
		if (!rc)
			reply_alert(c, M_ONLINE_NOT_QUEUED);
		return rc;
	}
	reply_alert(c, M_ONLINE_QUEUE_TAKEN, game_title(c, g));
	if (!c->cmd->button_message[0])
		return GB_OK;
	r = json_array_get(c->replies, json_array_size(c->replies) - 1);
	r = reply_push(c, "table", NULL, json_string_value(json_object_get(r, "text")));
	json_object_set_new(r, "queue", json_true());
	/* that message only: edited if it can be, never posted afresh, replacing no other row */
	json_object_set_new(r, "stale", json_true());
	json_object_set_new(r, "message", json_text(c->cmd->button_message));
	return GB_OK;
}

int cmd_online(struct ctx *c)
{
	struct store_queue mine;
	const struct gb_game *g = NULL;
	char word[32] = "";
	const char *rest;
	int rc;

	if (online_refused(c))
		return GB_OK;
	arg_word(c->cmd->args, word, sizeof(word));
	rc = store_queue_of(c->b->store, c->cmd->platform, c->cmd->user, &mine);
	if (rc && rc != GB_ENOTFOUND)
		return rc;
	if (!word[0])
		return online_status(c);
	if (!strcmp(word, "leave") || !strcmp(word, "fill") || !strcmp(word, "nofill")) {
		if (rc == GB_ENOTFOUND)
			return not_queued(c);
		g = gb_game_find(mine.game);
		if (!strcmp(word, "leave")) {
			c->ow.queue_leave = true;
			c->ow.queue_left = mine.id;
			reply_alert(c, M_ONLINE_LEFT, g ? game_title(c, g) : mine.game);
			/* the queue message says so too, its buttons gone */
			online_queue_view(c, &mine, 0, QUEUE_LEFT);
		} else {
			c->ow.queue_fill = !strcmp(word, "fill") ? 1 : 2;
			if (c->ow.queue_fill == 1)
				reply_alert(c, M_ONLINE_FILL_ON);
			else
				reply_alert(c, M_ONLINE_FILL_OFF);
		}
		return GB_OK;
	}
	if (rc == GB_OK) {
		g = gb_game_find(mine.game);
		reply_alert(c, M_ONLINE_ALREADY, g ? game_title(c, g) : mine.game);
		return GB_OK;
	}
	rc = seated_at(c, &g);
	if (rc)
		return rc;
	if (g) {
		reply_alert(c, M_ONLINE_SEATED, game_title(c, g));
		return GB_OK;
	}
	g = game_lookup(c->cmd->args, &rest);
	if (!g) {
		reply_unknown_game(c, word);
		return GB_OK;
	}
	return online_join(c, g, rest);
}

/* The reactions strangers may send each other (no free text between them). */
static const struct {
	const char *word;
	int key;
} reactions[] = { { "gg", M_REACT_GG }, { "wp", M_REACT_WP }, { "hurry", M_REACT_HURRY } };

#define NREACTIONS (sizeof(reactions) / sizeof(reactions[0]))

void online_reaction_buttons(struct ctx *c, json_t *rows)
{
	json_t *row = json_array();

	for (size_t i = 0; i < NREACTIONS; i++) {
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "/react %s", reactions[i].word);
		json_array_append_new(row, json_pack("{ssss}", "label", tr(c->lang, reactions[i].key), "cmd", cmd));
	}
	json_array_append_new(rows, row);
}

int cmd_react(struct ctx *c)
{
	char word[16] = "";
	json_t *r, *texts;

	if (!c->online) {
		/* not taken to a table: the person has none */
		reply_alert(c, M_REACT_NONE);
		return GB_OK;
	}
	arg_word(c->cmd->args, word, sizeof(word));
	for (size_t i = 0; i < NREACTIONS; i++) {
		if (strcmp(word, reactions[i].word) != 0 && strcmp(c->cmd->args, tr(LANG_EN, reactions[i].key)) &&
		    strcmp(c->cmd->args, tr(LANG_NE, reactions[i].key)))
			continue;
		if (!c->has_table) {
			/* the game just ended: its seats are the last table's */
			int64_t last = 0;
			char name[8];
			int rc = store_person_get(c->b->store, c->cmd->from_platform, c->cmd->from_user, name,
						  sizeof(name), &last);

			if (!rc && last)
				rc = store_oseats_get(c->b->store, last, c->oseats, GB_MAX_SEATS, &c->noseats);
			if (!rc && last)
				rc = store_seats_get(c->b->store, last, c->seats, GB_MAX_SEATS, &c->nseats);
			if (rc)
				return rc;
		}
		r = reply_push(c, "public", NULL, "");
		texts = json_array();
		for (int l = 0; l < LANG_COUNT; l++) {
			struct strbuf sb = { 0 };

			sb_addmsg(&sb, l, M_REACT_LINE, c->cmd->user_name, tr(l, reactions[i].key));
			json_array_append_new(texts, json_text(sb_str(&sb)));
			if (l == c->lang)
				json_object_set_new(r, "text", json_text(sb_str(&sb)));
			sb_release(&sb);
		}
		json_object_set_new(r, "texts", texts);
		return GB_OK;
	}
	{
		struct strbuf list = { 0 };

		for (size_t i = 0; i < NREACTIONS; i++) {
			sb_addf(&list, "%s/react %s (%s)", i ? ", " : "", reactions[i].word,
				tr(c->lang, reactions[i].key));
		}
		reply_alert(c, M_REACT_BAD, sb_str(&list));
		sb_release(&list);
	}
	return GB_OK;
}

/* A rating as people read it: whole points, "?" after a provisional one. */
