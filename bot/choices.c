/*
 * choices.c - see choices.h. Each table is read as the router reads it (the
 * wrapper {"game": state, ...}), the seat of the user found among its seats,
 * and the game's own legal() asked: the list is exactly what apply() would
 * accept from that seat now.
 */
#include "choices.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "render.h"

#define CHOICE_TABLES 16   /* tables of one person looked at */

/* The game state of a playing table, or NULL (caller frees). */
static void *table_state(const struct gb_game *g, const struct store_table *t)
{
	json_error_t jerr;
	json_t *w;
	void *st = NULL;

	if (!t->state)
		return NULL;
	w = json_loads(t->state, 0, &jerr);
	if (json_is_object(json_object_get(w, "game"))) {
		st = calloc(1, g->state_size);
		if (st && g->from_json(st, json_object_get(w, "game"))) {
			free(st);
			st = NULL;
		}
	}
	json_decref(w);
	return st;
}

/* Render settings of a chat: language and digits, as the router picks them. */
static void chat_render(const struct store_chat *chat, struct render_ctx *view)
{
	json_error_t jerr;
	json_t *set = json_loads(chat->settings ? chat->settings : "{}", 0, &jerr);
	const char *digits = json_string_value(json_object_get(set, "digits"));

	view->lang = lang_parse(chat->lang) < 0 ? LANG_EN : lang_parse(chat->lang);
	view->devanagari = view->lang == LANG_NE && (!digits || strcmp(digits, "devanagari") == 0);
	json_decref(set);
}

/* Append the choices of one table; *n grows. */
static int table_choices(struct bot *b, int64_t id, const char *user, struct bot_choice *out,
			 int max, int *n)
{
	struct store_table t = { 0 };
	struct store_chat chat = { 0 };
	struct store_seat seats[GB_MAX_SEATS];
	struct gb_action acts[GB_MAX_LEGAL];
	struct render_ctx view = { 0 };
	const struct gb_game *g;
	void *st = NULL;
	int rc = GB_OK, nseats = 0, seat = -1, moves = 0, nacts;

	rc = store_table_get(b->store, id, &t);
	if (rc)
		goto out;
	g = gb_game_find(t.game);
	if (t.status != STORE_PLAYING || !g)
		goto out;
	rc = store_seats_get(b->store, id, seats, GB_MAX_SEATS, &nseats);
	if (!rc)
		rc = store_move_count(b->store, id, &moves);
	if (!rc)
		rc = store_chat_get_by_id(b->store, t.chat, &chat);
	if (rc)
		goto out;
	for (int i = 0; i < nseats; i++)
		if (seats[i].level < 0 && strcmp(seats[i].user, user) == 0)
			seat = i;
	st = table_state(g, &t);
	if (seat < 0 || !st || g->turn(st) != seat)
		goto out;
	chat_render(&chat, &view);
	view.game = g;
	view.st = st;
	view.nseats = nseats;
	nacts = g->legal(st, acts);
	for (int k = 0; k < nacts && *n < max; k++) {
		struct bot_choice *c = &out[*n];

		memset(c, 0, sizeof(*c));
		c->table = id;
		c->turn = moves;
		snprintf(c->chat, sizeof(c->chat), "%s", chat.chat);
		snprintf(c->game, sizeof(c->game), "%s", g->name);
		c->cmd[0] = '/';
		g->format(st, &acts[k], c->cmd + 1, sizeof(c->cmd) - 1);
		render_action_label(&view, &acts[k], c->label, sizeof(c->label));
		(*n)++;
	}
out:
	free(st);
	store_table_release(&t);
	store_chat_release(&chat);
	return rc;
}

int bot_user_choices(struct bot *b, const char *platform, const char *user,
		     struct bot_choice *out, int max, int *n)
{
	int64_t ids[CHOICE_TABLES];
	int ntables = 0, rc;

	*n = 0;
	rc = store_tables_of_user(b->store, platform, user, ids, CHOICE_TABLES, &ntables);
	for (int i = 0; !rc && i < ntables && *n < max; i++) {
		rc = table_choices(b, ids[i], user, out, max, n);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK; /* gone since it was listed */
	}
	return rc;
}

bool bot_press_is_own_turn(struct bot *b, const struct command *cmd)
{
	struct store_table t = { 0 };
	struct store_chat place = { 0 };
	struct store_seat seats[GB_MAX_SEATS];
	const struct gb_game *g;
	void *st = NULL;
	int nseats = 0, moves = -1, seat = -1;
	bool own = false;

	if (!cmd->button_table || store_table_get(b->store, cmd->button_table, &t))
		goto out;
	g = gb_game_find(t.game);
	/* the table of this very place (a button of another chat's table is foreign) */
	if (!g || t.status != STORE_PLAYING || store_chat_get_by_id(b->store, t.chat, &place) ||
	    strcmp(place.platform, cmd->platform) != 0 || strcmp(place.chat, cmd->chat) != 0)
		goto out;
	if (store_move_count(b->store, t.id, &moves) || moves != cmd->button_turn ||
	    store_seats_get(b->store, t.id, seats, GB_MAX_SEATS, &nseats))
		goto out;
	for (int i = 0; i < nseats; i++)
		if (seats[i].level < 0 && strcmp(seats[i].user, cmd->user) == 0)
			seat = i;
	st = seat >= 0 ? table_state(g, &t) : NULL;
	/* Call Break between rounds (turn -1): /next is anyone's at the table */
	own = st && (g->turn(st) == seat || g->turn(st) < 0);
out:
	free(st);
	store_table_release(&t);
	store_chat_release(&place);
	return own;
}
