/*
 * lobby.c - opening, filling, starting and stopping tables. One open table
 * per chat (per Discord channel). Seats are filled in the lobby by people
 * (/join) and computer players (/addbot); /start deals the game.
 *
 * A person may sit in any seat, not only the next one: the seats before it
 * are kept as free seats (a person's seat with nobody in it, see
 * seat_is_free()), which /join and /addbot fill first and /start refuses
 * to deal past. The list never ends in a free seat.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/internal.h"
#include "bot/render/games.h"
#include "games/ai/ai.h"

static int open_table(struct ctx *c, const struct gb_game *g)
{
	struct gb_rules rules;
	json_t *rj;

	chat_rules(c, g, &rules);
	rj = gb_rules_to_json(g, &rules);
	memset(&c->table, 0, sizeof(c->table));
	c->table.chat = c->place;
	snprintf(c->table.game, sizeof(c->table.game), "%s", g->name);
	c->table.status = STORE_LOBBY;
	/* the seed decides dice, deals and boards: unpredictable to players, sealed (fair.c) */
	if (fair_new_seed(c))
		return GB_EIO;
	snprintf(c->table.creator, sizeof(c->table.creator), "%s", c->cmd->user);
	snprintf(c->owner, sizeof(c->owner), "%s", c->cmd->user);
	c->table.turn_started_ms = c->cmd->now_ms;
	c->table.rules = json_dumps(rj, JSON_COMPACT);
	json_decref(rj);
	if (!c->table.rules)
		return GB_ENOMEM;
	c->nlog = 0;
	c->log_changed = true;
	c->game = g;
	c->has_table = true;
	c->table_new = true;
	c->nseats = 0;
	c->seq = 0;
	return GB_OK;
}

int table_open(struct ctx *c, const struct gb_game *g)
{
	return open_table(c, g);
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

/* The first free seat: one left free in the lobby, else the one after the last (max_players: full). */
static int first_free(const struct ctx *c)
{
	int i = 0;

	while (i < c->nseats && !seat_is_free(c, i))
		i++;
	return i < c->game->max_players ? i : c->game->max_players;
}

/* Seat user (a computer when level >= 0) in seat want; the seats up to it that nobody had are free. */
static void put_seat(struct ctx *c, int want, const char *user, const char *name, int level)
{
	struct store_seat *s;

	while (c->nseats <= want)
		add_seat(c, "", "", -1);
	s = &c->seats[want];
	memset(s, 0, sizeof(*s));
	s->seat = want;
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->level = level;
	c->seats_changed = true;
}

/* Empty seat `seat`; free seats left at the end of the list go with it. */
static void free_seat(struct ctx *c, int seat)
{
	put_seat(c, seat, "", "", -1);
	while (c->nseats > 0 && seat_is_free(c, c->nseats - 1))
		c->nseats--;
}

static const struct gb_game *game_arg(struct ctx *c)
{
	char word[32] = "";
	const char *rest;
	const struct gb_game *g = game_lookup(c->cmd->args, &rest);

	if (!g || rest[strspn(rest, " \t")]) {
		arg_word(c->cmd->args, word, sizeof(word));
		reply_unknown_game(c, g ? c->cmd->args : word);
		g = NULL;
	}
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

/*
 * The seat a /join or /seat argument names: a number 1..max (either digit
 * set) or, in a game of fixed sides (Bagh Chal), a side ("goats",
 * "tigers", in either language). Returns the 0-based seat, or -1 after
 * queuing a refusal that says which seats there are.
 */
static int seat_arg(struct ctx *c, const char *args)
{
	char word[64] = "", a[24], b[24];
	int n = -1;
	bool sides = bot_game_side(c->game, 0, LANG_EN) != NULL;

	arg_word(args, word, sizeof(word));
	if (gb_parse_uint(word, 99, &n) == GB_OK && n >= 1 && n <= c->game->max_players)
		return n - 1;
	for (int i = 0; sides && i < c->game->max_players; i++)
		for (int l = 0; l < LANG_COUNT; l++)
			if (strcmp(word, bot_game_side(c->game, i, l)) == 0)
				return i;
	if (sides) {
		struct strbuf list = { 0 }, last = { 0 };

		sb_addf(&last, " %s ", tr(c->lang, M_AND));
		game_sides_join(&list, c->game, c->lang, ", ", sb_str(&last));
		reply_alert(c, M_SEAT_BAD_SIDE, word, sb_str(&list));
		sb_release(&list);
		sb_release(&last);
	} else {
		reply_alert(c, M_SEAT_BAD, word, ctx_num(c, 1, a), ctx_num(c, c->game->max_players, b));
	}
	return -1;
}

/* How a seat is named in replies: its number, or its side in a game of fixed sides. */
static const char *seat_label(struct ctx *c, int seat, char buf[24])
{
	const char *side = bot_game_side(c->game, seat, c->lang);

	return side ? side : ctx_num(c, seat + 1, buf);
}

/*
 * /new GAME [SEAT]: the creator sits in seat 1, or in the seat or side
 * named after the game (/new baghchal tigers, /new ludo 3).
 */
int cmd_new(struct ctx *c)
{
	const char *rest = "";
	const struct gb_game *g = NULL;
	int rc = GB_OK, want = 0;

	if (c->has_table) {
		reply_alert(c, M_TABLE_EXISTS, game_title(c, c->game));
		return GB_OK;
	}
	g = game_lookup(c->cmd->args, &rest);
	rest += strspn(rest, " \t");
	if (g && *rest) {
		/* seat_arg() reads the game's seats; the table is not open until the seat is known */
		c->game = g;
		want = seat_arg(c, rest);
		c->game = NULL;
	}
	if (want < 0)
		return GB_OK;
	if (!g)
		g = game_arg(c);
	if (g)
		rc = open_table(c, g);
	if (rc || !g)
		return rc;
	reply_public(c, M_NEW_TABLE, c->cmd->user_name, game_title(c, g));
	reply_mark_seating(c);
	c->show_table = true;
	if (c->cmd->anonymous) {
		/* the table opens for the others; one name for several people cannot sit */
		reply_alert(c, M_POST_AS_YOURSELF);
		return GB_OK;
	}
	put_seat(c, want, c->cmd->user, c->cmd->user_name, -1);
	c->my_seat = want;
	return GB_OK;
}

static bool has_computer(const struct ctx *c)
{
	for (int i = 0; i < c->nseats; i++)
		if (c->seats[i].level >= 0)
			return true;
	return false;
}

int cmd_join(struct ctx *c)
{
	char a[24], name[STORE_NAME_LEN];
	int want, rc;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	if (c->my_seat >= 0 && c->cmd->args[0])
		return cmd_seat(c); /* /join tigers while seated as goats: a move */
	if (c->my_seat >= 0) {
		reply_alert(c, M_ALREADY_SEATED, seat_label(c, c->my_seat, a));
		return GB_OK;
	}
	if (!c->cmd->args[0]) {
		want = first_free(c);
		if (want >= c->game->max_players) {
			if (has_computer(c))
				reply_alert(c, M_TABLE_FULL_BOTS);
			else
				reply_alert(c, M_TABLE_FULL);
			return GB_OK;
		}
	} else {
		want = seat_arg(c, c->cmd->args);
		if (want < 0)
			return GB_OK;
	}
	if (coins_join_refused(c, &rc))
		return rc;
	if (seat_is_person(c, want)) {
		reply_alert(c, M_SEAT_TAKEN, seat_label(c, want, a), seat_name(c, want, name, sizeof(name)));
		return GB_OK;
	}
	if (want < c->nseats && !seat_is_free(c, want)) {
		/* a person takes a computer's seat: the computer leaves the table */
		seat_name(c, want, name, sizeof(name));
		put_seat(c, want, c->cmd->user, c->cmd->user_name, -1);
		c->my_seat = want;
		reply_public(c, M_SEAT_FROM_BOT, c->cmd->user_name, seat_label(c, want, a), name);
		reply_mark_seating(c);
	} else {
		char b[24];

		put_seat(c, want, c->cmd->user, c->cmd->user_name, -1);
		c->my_seat = want;
		reply_public(c, M_JOINED, c->cmd->user_name, seat_label(c, want, a),
			     ctx_num(c, c->game->max_players, b));
		reply_mark_seating(c);
	}
	c->show_table = true;
	return GB_OK;
}

int cmd_seat(struct ctx *c)
{
	char a[24], other[STORE_NAME_LEN];
	int want, me = c->my_seat;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	want = seat_arg(c, c->cmd->args);
	if (want < 0)
		return GB_OK;
	if (want == me) {
		reply_alert(c, M_ALREADY_SEATED, seat_label(c, me, a));
		return GB_OK;
	}
	if (want >= c->nseats || seat_is_free(c, want)) {
		/* a free seat anyone seated may move to; the seat left is free */
		struct store_seat s = c->seats[me];

		put_seat(c, want, s.user, s.name, s.level);
		free_seat(c, me);
	} else {
		struct store_seat s = c->seats[me];

		/* a computer's seat anyone may take; another person's only the one who runs the table */
		if (seat_is_person(c, want) && strcmp(c->owner, c->cmd->user) != 0) {
			reply_alert(c, M_SEAT_TAKEN, seat_label(c, want, a), seat_name(c, want, other, sizeof(other)));
			return GB_OK;
		}
		c->seats[me] = c->seats[want];
		c->seats[want] = s;
	}
	for (int i = 0; i < c->nseats; i++)
		c->seats[i].seat = i;
	c->my_seat = want;
	c->seats_changed = true;
	reply_public(c, M_SEAT_MOVED, c->cmd->user_name, seat_label(c, want, a));
	reply_mark_seating(c);
	c->show_table = true;
	return GB_OK;
}

/* The seated person after seat `from` (in seat order, wrapping), or -1. */
static int next_person(const struct ctx *c, int from)
{
	for (int k = 1; k <= c->nseats; k++) {
		int i = (from + k) % c->nseats;

		if (i != from && seat_is_person(c, i))
			return i;
	}
	return -1;
}

/*
 * Who leaves has no more say: when they ran the table, it passes to the
 * next seated person. Call before the seat is changed.
 */
static void pass_table(struct ctx *c, int seat)
{
	int heir;

	if (strcmp(c->owner, c->cmd->user) != 0)
		return;
	heir = next_person(c, seat);
	if (heir < 0) {
		c->owner[0] = '\0';
		return;
	}
	snprintf(c->owner, sizeof(c->owner), "%s", c->seats[heir].user);
	c->table_changed = true;
	reply_public(c, M_OWNER_NOW, c->seats[heir].name);
}

/* Close the table: no person is left at it. */
static void close_empty(struct ctx *c)
{
	c->table.status = STORE_OVER;
	c->table_changed = true;
	c->clear_timers = true;
	c->show_table = false;
}

int cmd_leave(struct ctx *c)
{
	int seat = c->my_seat;

	pass_table(c, seat);
	c->show_table = true;
	if (c->table.status == STORE_PLAYING) {
		/*
		 * The game goes on: a computer player keeps the seat. The seat
		 * keeps who sat there (named "Bot for alice", and their result
		 * reaches /stats), but it is no longer theirs to play.
		 */
		c->seats[seat].level = GB_LEVEL_MEDIUM;
		c->seats_changed = true;
		c->table_changed = true;
		c->my_seat = -1;
		if (next_person(c, seat) < 0 && !c->watch) {
			reply_public(c, M_EVERYONE_LEFT, c->cmd->user_name);
			close_empty(c);
			return GB_OK;
		}
		reply_public(c, M_LEFT_PLAYING, c->cmd->user_name);
		table_schedule(c);
		return GB_OK;
	}
	reply_public(c, M_LEFT, c->cmd->user_name);
	reply_mark_seating(c);
	/* the others keep their seats (and sides): the one left is free */
	free_seat(c, seat);
	c->my_seat = -1;
	for (int i = 0; i < c->nseats; i++)
		if (seat_is_person(c, i))
			return GB_OK;
	/* nobody left but computers: close the table */
	close_empty(c);
	return GB_OK;
}

int cmd_addbot(struct ctx *c)
{
	char word[64] = "medium", name[STORE_NAME_LEN];
	int level, seat;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	arg_word(c->cmd->args, word, sizeof(word));
	level = gb_level_parse(word);
	/* the level as the chat shows it, in either language ("सजिलो") */
	for (int l = 0; level < 0 && l < LANG_COUNT; l++)
		for (int k = GB_LEVEL_EASY; level < 0 && k < GB_LEVEL_COUNT; k++)
			if (strcmp(word, tr(l, M_LEVEL_RANDOM + k)) == 0)
				level = k;
	if (level < 0) {
		reply_alert(c, M_BAD_LEVEL, word);
		return GB_OK;
	}
	seat = first_free(c);
	if (seat >= c->game->max_players) {
		reply_alert(c, M_TABLE_FULL);
		return GB_OK;
	}
	put_seat(c, seat, "", "", level);
	reply_public(c, M_BOT_ADDED, seat_name(c, seat, name, sizeof(name)), level_word(c, level));
	reply_mark_seating(c);
	c->show_table = true;
	return GB_OK;
}

int cmd_start(struct ctx *c)
{
	int rc;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_ALREADY_STARTED);
		return GB_OK;
	}
	if (c->my_seat < 0 && !c->cmd->is_admin) {
		reply_alert(c, M_PLAYERS_ONLY);
		return GB_OK;
	}
	for (int i = 0; i < c->nseats; i++) {
		if (seat_is_free(c, i)) {
			char a[24];

			/* the game numbers its players 1..n: no seat may be left out */
			reply_alert(c, M_START_SEAT_FREE, seat_label(c, i, a), seat_label(c, i, a));
			return GB_OK;
		}
	}
	if (c->nseats < c->game->min_players) {
		char a[24];

		reply_alert(c, M_NOT_ENOUGH, ctx_num(c, c->game->min_players, a));
		return GB_OK;
	}
	if (coins_start_refused(c, &rc))
		return rc;
	return table_start_game(c);
}

int cmd_stop(struct ctx *c)
{
	bool runs = c->owner[0] && strcmp(c->cmd->user, c->owner) == 0 && c->my_seat >= 0;

	if (c->online) {
		/* strangers' game: nobody stops it for the others */
		reply_alert(c, M_ONLINE_NO_STOP);
		return GB_OK;
	}
	if (!c->cmd->is_admin && !runs) {
		char name[STORE_NAME_LEN] = "";

		for (int i = 0; i < c->nseats; i++)
			if (seat_is_person(c, i) && strcmp(c->seats[i].user, c->owner) == 0)
				seat_name(c, i, name, sizeof(name));
		if (name[0])
			reply_alert(c, M_STOP_WHO, name);
		else
			reply_alert(c, M_STOP_ADMINS);
		return GB_OK;
	}
	c->table.status = STORE_OVER;
	c->table_changed = true;
	c->clear_timers = true;
	reply_public(c, M_STOPPED, c->cmd->user_name);
	return GB_OK;
}

/*
 * Internal: the bot can no longer reach the chat (removed from the group,
 * the channel deleted). Its open table stops as /stop stops it - every
 * stake back to who staked it when the pot is settled - without anyone's
 * say, since nobody there can be asked or told: nothing is queued for it.
 */
int cmd_gone(struct ctx *c)
{
	c->unreachable = true;
	if (!c->has_table || c->online)
		return GB_OK;
	c->table.status = STORE_OVER;
	c->table_changed = true;
	c->clear_timers = true;
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
		*rc = store_tables_count(c->b->store, c->place, c->cmd->now_ms - 3600 * 1000, 0, 1, &n);
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
		add_seat(c, "", "", (g->flags & GB_NO_CHOICES) ? GB_LEVEL_RANDOM : GB_LEVEL_HARD - (i % 2));
	c->watch = true;
	reply_public(c, M_WATCH_STARTED, game_title(c, g));
	return table_start_game(c);
}

int cmd_board(struct ctx *c)
{
	int rc = GB_OK;

	/* no open table: the last finished one, with its result */
	if (!c->has_table) {
		rc = ctx_load_finished(c);
		if (rc == GB_ENOTFOUND) {
			reply_no_table(c);
			return GB_OK;
		}
	}
	c->show_table = rc == GB_OK;
	c->repost_table = c->show_table;
	return rc;
}
