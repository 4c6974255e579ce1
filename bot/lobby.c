/*
 * lobby.c - opening, filling, starting and stopping tables. One open table
 * per chat (per Discord channel). Seats are filled in the lobby by people
 * (/join) and computer players (/addbot); /start deals the game.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "games/ai/ai.h"
#include "internal.h"

static int open_table(struct ctx *c, const struct gb_game *g)
{
	struct gb_rules rules;
	json_t *rj;

	chat_rules(c, g, &rules);
	rj = gb_rules_to_json(g, &rules);
	memset(&c->table, 0, sizeof(c->table));
	c->table.chat = c->chat.id;
	snprintf(c->table.game, sizeof(c->table.game), "%s", g->name);
	c->table.status = STORE_LOBBY;
	/* the seed decides dice, deals and boards: unpredictable to players */
	if (c->b->cfg.seed)
		c->table.seed = gb_seed_derive(c->b->cfg.seed ^ (uint64_t)c->chat.id, ++c->b->tables_opened);
	else
		c->table.seed = ((uint64_t)randombytes_random() << 32) | randombytes_random();
	snprintf(c->table.creator, sizeof(c->table.creator), "%s", c->cmd->user);
	c->table.turn_started_ms = c->cmd->now_ms;
	c->table.rules = json_dumps(rj, JSON_COMPACT);
	json_decref(rj);
	if (!c->table.rules)
		return GB_ENOMEM;
	json_decref(c->log);
	c->log = json_array();
	c->game = g;
	c->has_table = true;
	c->table_new = true;
	c->nseats = 0;
	c->seq = 0;
	return GB_OK;
}

static void add_seat(struct ctx *c, const char *user, const char *name, int level)
{
	struct store_seat *s = &c->seats[c->nseats];

	memset(s, 0, sizeof(*s));
	s->seat = c->nseats;
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->level = level;
	c->nseats++;
	c->seats_changed = true;
}

static const struct gb_game *game_arg(struct ctx *c)
{
	char word[32];
	const struct gb_game *g;

	word[0] = '\0';
	arg_word(c->cmd->args, word, sizeof(word));
	g = gb_game_find(word);
	if (!g && (strcmp(word, "snake") == 0 || strcmp(word, "snakesandladders") == 0))
		g = gb_game_find("snakes");
	if (!g && (strcmp(word, "bagh") == 0 || strcmp(word, "bagh-chal") == 0))
		g = gb_game_find("baghchal");
	if (!g && (strcmp(word, "call") == 0 || strcmp(word, "call-break") == 0))
		g = gb_game_find("callbreak");
	if (!g)
		reply_alert(c, M_UNKNOWN_GAME, word);
	return g;
}

/*
 * Open a table of the game named in the arguments: *g is NULL (and a
 * refusal queued) when the chat already has a table or the name is unknown.
 */
static int open_named_table(struct ctx *c, const struct gb_game **g)
{
	*g = NULL;
	if (c->has_table) {
		reply_alert(c, M_TABLE_EXISTS, game_title(c, c->game));
		return GB_OK;
	}
	*g = game_arg(c);
	return *g ? open_table(c, *g) : GB_OK;
}

int cmd_new(struct ctx *c)
{
	const struct gb_game *g;
	int rc = open_named_table(c, &g);

	if (rc || !g)
		return rc;
	add_seat(c, c->cmd->user, c->cmd->user_name, -1);
	c->my_seat = 0;
	reply_public(c, M_NEW_TABLE, c->cmd->user_name, game_title(c, g));
	c->show_table = true;
	return GB_OK;
}

int cmd_join(struct ctx *c)
{
	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	if (c->my_seat >= 0) {
		reply_alert(c, M_ALREADY_SEATED);
		return GB_OK;
	}
	if (c->nseats >= c->game->max_players) {
		reply_alert(c, M_TABLE_FULL);
		return GB_OK;
	}
	add_seat(c, c->cmd->user, c->cmd->user_name, -1);
	c->my_seat = c->nseats - 1;
	{
		char a[24], b[24];

		reply_public(c, M_JOINED, c->cmd->user_name, ctx_num(c, c->nseats, a),
			     ctx_num(c, c->game->max_players, b));
	}
	c->show_table = true;
	return GB_OK;
}

int cmd_leave(struct ctx *c)
{
	int seat = c->my_seat;

	reply_public(c, M_LEFT, c->cmd->user_name);
	c->show_table = true;
	if (c->table.status == STORE_PLAYING) {
		/* the game goes on: a computer player keeps the seat */
		c->seats[seat].user[0] = '\0';
		c->seats[seat].level = GB_LEVEL_MEDIUM;
		c->seats_changed = true;
		table_schedule(c);
		return GB_OK;
	}
	memmove(&c->seats[seat], &c->seats[seat + 1], sizeof(c->seats[0]) * (size_t)(c->nseats - seat - 1));
	c->nseats--;
	for (int i = 0; i < c->nseats; i++)
		c->seats[i].seat = i;
	c->seats_changed = true;
	c->my_seat = -1;
	for (int i = 0; i < c->nseats; i++)
		if (c->seats[i].level < 0)
			return GB_OK;
	/* nobody left but computers: close the table */
	c->table.status = STORE_OVER;
	c->table_changed = true;
	c->clear_timers = true;
	c->show_table = false;
	return GB_OK;
}

int cmd_addbot(struct ctx *c)
{
	char word[16] = "medium";
	int level;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	arg_word(c->cmd->args, word, sizeof(word));
	level = gb_level_parse(word);
	if (level < 0) {
		reply_alert(c, M_BAD_LEVEL, word);
		return GB_OK;
	}
	if (c->nseats >= c->game->max_players) {
		reply_alert(c, M_TABLE_FULL);
		return GB_OK;
	}
	add_seat(c, "", "", level);
	{
		char name[STORE_NAME_LEN];

		reply_public(c, M_BOT_ADDED, seat_name(c, c->nseats - 1, name, sizeof(name)));
	}
	c->show_table = true;
	return GB_OK;
}

int cmd_start(struct ctx *c)
{
	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	if (c->my_seat < 0 && !c->cmd->is_admin) {
		reply_alert(c, M_PLAYERS_ONLY);
		return GB_OK;
	}
	if (c->nseats < c->game->min_players) {
		char a[24];

		reply_alert(c, M_NOT_ENOUGH, ctx_num(c, c->game->min_players, a));
		return GB_OK;
	}
	return table_start_game(c);
}

int cmd_stop(struct ctx *c)
{
	if (!c->cmd->is_admin && strcmp(c->cmd->user, c->table.creator) != 0) {
		reply_alert(c, M_STOP_WHO);
		return GB_OK;
	}
	c->table.status = STORE_OVER;
	c->table_changed = true;
	c->clear_timers = true;
	reply_public(c, M_STOPPED, c->cmd->user_name);
	return GB_OK;
}

/*
 * Computer-only tables cost the service computer time and the chat
 * messages: at most watch_max open at once over all chats, and at most
 * watch_per_hour started by one chat in an hour. Returns true when refused.
 */
static bool watch_limited(struct ctx *c, int *rc)
{
	const struct bot_config *cfg = &c->b->cfg;
	int n = 0;
	char num[24];

	*rc = GB_OK;
	if (cfg->watch_max > 0) {
		*rc = store_tables_count(c->b->store, 0, 0, 1, 1, &n);
		if (*rc)
			return true;
		if (n >= cfg->watch_max) {
			reply_alert(c, M_WATCH_FULL);
			return true;
		}
	}
	if (cfg->watch_per_hour > 0) {
		*rc = store_tables_count(c->b->store, c->chat.id, c->cmd->now_ms - 3600 * 1000, 0, 1, &n);
		if (*rc)
			return true;
		if (n >= cfg->watch_per_hour) {
			reply_alert(c, M_WATCH_LIMIT, ctx_num(c, n, num));
			return true;
		}
	}
	return false;
}

int cmd_watch(struct ctx *c)
{
	const struct gb_game *g;
	int rc, n;

	if (watch_limited(c, &rc))
		return rc;
	rc = open_named_table(c, &g);
	if (rc || !g)
		return rc;
	n = g->max_players;
	for (int i = 0; i < n; i++)
		add_seat(c, "", "", strcmp(g->name, "snakes") == 0 ? GB_LEVEL_RANDOM : GB_LEVEL_HARD - (i % 2));
	c->watch = true;
	reply_public(c, M_WATCH_STARTED, game_title(c, g));
	return table_start_game(c);
}

int cmd_board(struct ctx *c)
{
	c->show_table = true;
	return GB_OK;
}
