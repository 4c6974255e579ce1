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

#include "bot/internal.h"
#include "bot/lang/i18n.h"
#include "bot/render/render.h"

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

/* One table as a person sitting there sees it. */
struct seen {
	struct store_table t;
	struct store_chat chat;
	struct store_seat seats[GB_MAX_SEATS];
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	int nseats, seat, moves;
	void *st;                      /* the game state; NULL unless playing and user is seated */
	struct render_ctx view;        /* the chat's language and digits, the seats' names */
};

static void seen_release(struct seen *s)
{
	free(s->st);
	store_table_release(&s->t);
	store_chat_release(&s->chat);
}

/* Seat names as the table shows them (a computer by its seat number). */
static void seen_names(struct seen *s)
{
	for (int i = 0; i < s->nseats; i++) {
		char num[16];

		if (s->seats[i].level >= 0 && s->seats[i].user[0])
			msg_snprintf(s->names[i], sizeof(s->names[i]), s->view.lang, M_BOT_FOR, s->seats[i].name);
		else if (s->seats[i].level >= 0)
			msg_snprintf(s->names[i], sizeof(s->names[i]), s->view.lang, M_BOT_NAME,
				     render_num(&s->view, i + 1, num, sizeof(num)));
		else
			/* names and seats are apart in s, and a seat's name always fits */
			memcpy(s->names[i], s->seats[i].name, sizeof(s->seats[i].name));
		s->view.names[i] = s->names[i];
	}
}

/*
 * Read table id as user sees it into s (seen_release() it, whatever the
 * result). s->st is left NULL when the table is not being played or user
 * has no seat there.
 */
static int seen_load(struct bot *b, int64_t id, const char *user, struct seen *s)
{
	const struct gb_game *g;
	int rc;

	memset(s, 0, sizeof(*s));
	s->seat = -1;
	rc = store_table_get(b->store, id, &s->t);
	if (rc)
		goto out;
	g = gb_game_find(s->t.game);
	if (s->t.status != STORE_PLAYING || !g)
		goto out;
	rc = store_seats_get(b->store, id, s->seats, GB_MAX_SEATS, &s->nseats);
	if (!rc)
		rc = store_move_last(b->store, id, &s->moves);
	if (!rc)
		rc = store_chat_get_by_id(b->store, s->t.chat, &s->chat);
	if (rc)
		goto out;
	for (int i = 0; i < s->nseats; i++)
		if (s->seats[i].level < 0 && strcmp(s->seats[i].user, user) == 0)
			s->seat = i;
	if (s->seat < 0)
		goto out;
	s->st = table_state(g, &s->t);
	chat_render(&s->chat, &s->view);
	s->view.game = g;
	s->view.st = s->st;
	s->view.nseats = s->nseats;
	seen_names(s);
out:
	return rc;
}

/* Append the choices of one table, in the order the player sees them; *n grows. */
static int table_choices(struct bot *b, int64_t id, const char *user, struct bot_choice *out,
			 int max, int *n)
{
	struct seen s;
	struct gb_action acts[GB_MAX_LEGAL];
	const struct gb_game *g;
	int rc, nacts;

	rc = seen_load(b, id, user, &s);
	g = s.view.game;
	if (rc || !s.st || g->turn(s.st) != s.seat)
		goto out;
	nacts = g->legal(s.st, acts);
	render_sort_actions(&s.view, acts, nacts);
	for (int k = 0; k < nacts && *n < max; k++) {
		struct bot_choice *c = &out[*n];

		memset(c, 0, sizeof(*c));
		c->table = id;
		c->turn = s.moves;
		snprintf(c->chat, sizeof(c->chat), "%s", s.chat.chat);
		snprintf(c->game, sizeof(c->game), "%s", g->name);
		c->cmd[0] = '/';
		g->format(s.st, &acts[k], c->cmd + 1, sizeof(c->cmd) - 1);
		render_action_label(&s.view, &acts[k], c->label, sizeof(c->label));
		if (acts[k].kind == GB_ACT_PLAY && (g->flags & GB_PRIVATE_HANDS))
			snprintf(c->posted, sizeof(c->posted), "%s", tr(s.view.lang, M_CB_PICKED));
		else
			snprintf(c->posted, sizeof(c->posted), "%s", c->label);
		(*n)++;
	}
out:
	seen_release(&s);
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

int bot_user_no_choice(struct bot *b, const char *platform, const char *user, struct bot_note *out)
{
	int64_t ids[CHOICE_TABLES];
	int ntables = 0, rc, lang = lang_parse(b->cfg.default_lang);
	bool found = false;

	memset(out, 0, sizeof(*out));
	rc = store_tables_of_user(b->store, platform, user, ids, CHOICE_TABLES, &ntables);
	for (int i = 0; !rc && !found && i < ntables; i++) {
		struct seen s;
		struct strbuf sb = { 0 };

		rc = seen_load(b, ids[i], user, &s);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK; /* gone since it was listed */
		if (!rc && s.st) {
			/* where they sit: the table's own status line says who is to move */
			found = true;
			lang = s.view.lang;
			render_status(&s.view, &sb);
			snprintf(out->text, sizeof(out->text), "%s", sb_str(&sb));
		}
		sb_release(&sb);
		seen_release(&s);
	}
	if (lang < 0)
		lang = LANG_EN;
	snprintf(out->title, sizeof(out->title), "%s", tr(lang, M_NOTHING_TO_PLAY));
	if (!found)
		snprintf(out->text, sizeof(out->text), "%s", tr(lang, M_NOTHING_NO_SEAT));
	snprintf(out->lang, sizeof(out->lang), "%s", lang_code(lang));
	return rc;
}

/* The hand of one table as its holder's private view (on their turn, what they may do as buttons). */
static json_t *hand_view(const struct seen *s, const char *user, bool buttons_too)
{
	const struct gb_game *g = s->view.game;
	struct strbuf sb = { 0 };
	json_t *r = json_object(), *buttons = json_array(), *row = NULL;

	render_hand(&s->view, s->seat, &sb);
	json_object_set_new(r, "kind", json_string("private"));
	json_object_set_new(r, "user", json_string(user));
	json_object_set_new(r, "text", json_string(sb_str(&sb)));
	json_object_set_new(r, "table", json_integer(s->t.id));
	json_object_set_new(r, "turn", json_integer(s->moves));
	json_object_set_new(r, "lang", json_string(lang_code(s->view.lang)));
	if (buttons_too && g->turn(s->st) == s->seat) {
		struct gb_action acts[GB_MAX_LEGAL];
		int n = g->legal(s->st, acts);

		render_sort_actions(&s->view, acts, n);
		for (int k = 0; k < n; k++) {
			char label[64], cmd[GB_ACTION_TEXT + 1];

			/* a bid as well as a card: away from the table, this is where the seat moves */
			render_action_label(&s->view, &acts[k], label, sizeof(label));
			cmd[0] = '/';
			g->format(s->st, &acts[k], cmd + 1, sizeof(cmd) - 1);
			if (!row || json_array_size(row) >= 4) {
				row = json_array();
				json_array_append_new(buttons, row);
			}
			json_array_append_new(row, json_pack("{ssss}", "label", label, "cmd", cmd));
		}
	}
	json_object_set_new(r, "buttons", buttons);
	sb_release(&sb);
	return r;
}

int bot_user_hands(struct bot *b, const char *platform, const char *user, bool buttons, json_t *views)
{
	int64_t ids[CHOICE_TABLES];
	int ntables = 0, rc;

	rc = store_tables_of_user(b->store, platform, user, ids, CHOICE_TABLES, &ntables);
	for (int i = 0; !rc && i < ntables; i++) {
		struct seen s;

		rc = seen_load(b, ids[i], user, &s);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK; /* gone since it was listed */
		if (!rc && s.st && (s.view.game->flags & GB_PRIVATE_HANDS))
			json_array_append_new(views, hand_view(&s, user, buttons));
		seen_release(&s);
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
	int nseats = 0, moves = -1, seat = -1, turn = -1;
	bool own = false, known;

	if (!cmd->button_table)
		return false;
	/* the reads of one moment */
	store_read_begin(b->store);
	if (store_table_get(b->store, cmd->button_table, &t))
		goto out;
	g = gb_game_find(t.game);
	/* the table of this very place (a button of another chat's table is foreign) */
	if (!g || t.status != STORE_PLAYING || store_chat_get_by_id(b->store, t.chat, &place) ||
	    strcmp(place.platform, cmd->platform) != 0 || strcmp(place.chat, cmd->chat) != 0)
		goto out;
	if (store_move_last(b->store, t.id, &moves) || moves != cmd->button_turn ||
	    store_seats_get(b->store, t.id, seats, GB_MAX_SEATS, &nseats))
		goto out;
	for (int i = 0; i < nseats; i++)
		if (seats[i].level < 0 && strcmp(seats[i].user, cmd->user) == 0)
			seat = i;
	if (seat < 0)
		goto out;
	/* the state the command itself is about to use, decoded once for both */
	known = statecache_turn(t.id, g, t.state, &turn);
	if (!known) {
		st = table_state(g, &t);
		known = st != NULL;
		turn = st ? g->turn(st) : -1;
	}
	/* Call Break between rounds (turn -1): /next is anyone's at the table */
	own = known && (turn == seat || turn < 0);
out:
	store_read_end(b->store);
	free(st);
	store_table_release(&t);
	store_chat_release(&place);
	return own;
}
