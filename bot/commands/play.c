/*
 * play.c - moves at a table: the play commands, computer turns, idle
 * autoplay, the end of a game, and the table message. Every accepted action
 * goes through play_for_seat(): it applies the action to the rules core,
 * logs it, and schedules whatever must happen next as a timer row.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bot/base/jsontext.h"
#include "bot/internal.h"
#include "bot/render/games.h"
#include "choices.h"
#include "games/ai/ai.h"

static int speed_index(struct ctx *c)
{
	const char *s = setting_str(c, "speed", "normal");

	return strcmp(s, "slow") == 0 ? 0 : strcmp(s, "fast") == 0 ? 2 : 1;
}

/* An action as a reply names it: the command to type, a card as the table shows it ("/play 5♠"). */
static void action_text(struct ctx *c, const struct gb_action *act, struct strbuf *sb)
{
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];

	ctx_render_init(c, &rc, names);
	render_action_command(&rc, act, sb);
}

/* Is act a card of a hand (a game of private hands)? */
static bool is_card(const struct ctx *c, const struct gb_action *act)
{
	return act->kind == GB_ACT_PLAY && (c->game->flags & GB_PRIVATE_HANDS);
}

/*
 * The legal actions as a refusal lists them, in the order of the buttons:
 * commands to type; the cards of a hand (Call Break) only as a pointer to
 * it ("/play a card of your hand").
 */
static void legal_list(struct ctx *c, struct strbuf *sb)
{
	struct gb_action acts[GB_MAX_LEGAL];
	int n = c->game->legal(c->st, acts), shown = 0;
	uint64_t cards = 0;
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];

	/* in the buttons' order (Bagh Chal: as the board is drawn, row 5 first) */
	ctx_render_init(c, &rc, names);
	render_sort_actions(&rc, acts, n);

	for (int i = 0; i < n; i++) {
		if (is_card(c, &acts[i])) {
			cards |= UINT64_C(1) << acts[i].a;
			continue;
		}
		if (shown == 12) {
			sb_add(sb, ", …");
			break;
		}
		if (shown++)
			sb_add(sb, ", ");
		action_text(c, &acts[i], sb);
	}
	if (cards) {
		/*
		 * The cards are a hand's, and a refusal may be read by the
		 * whole chat (Telegram answers a typed command there), or by
		 * another player who typed it: named, never shown.
		 */
		if (shown)
			sb_add(sb, ", ");
		sb_add(sb, tr(c->lang, M_CB_FROM_HAND));
	}
	if (!n)
		sb_add(sb, "–");
}

/*
 * Refuse an action with the reason the game's state gives (render_refusal),
 * and what can be done instead. err is what parse() or apply() said; act
 * is NULL when the text could not be read.
 */
static void refuse(struct ctx *c, int err, const struct gb_action *act)
{
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	struct strbuf why = { 0 }, legal = { 0 }, tried = { 0 };

	ctx_render_init(c, &rc, names);
	render_refusal(&rc, err, c->cmd->verb, act, &why);
	legal_list(c, &legal);
	if (act)
		action_text(c, act, &tried);
	else
		sb_addf(&tried, "/%s%s%s", c->cmd->verb, c->cmd->args[0] ? " " : "", c->cmd->args);
	if (err == GB_EPHASE) {
		if (!why.len)
			render_status(&rc, &why);
		reply_alert(c, M_WRONG_PHASE, sb_str(&why), sb_str(&legal));
	} else if (err == GB_EOVER) {
		reply_alert(c, M_GAME_OVER);
	} else if (!act && why.len) {
		reply_alert(c, M_BAD_ARG, sb_str(&tried), sb_str(&why), sb_str(&legal));
	} else if (!act) {
		reply_alert(c, M_UNREADABLE, sb_str(&tried), sb_str(&legal));
	} else if (why.len) {
		reply_alert(c, M_ILLEGAL_WHY, sb_str(&tried), sb_str(&why), sb_str(&legal));
	} else {
		reply_alert(c, M_ILLEGAL, sb_str(&tried), sb_str(&legal));
	}
	/*
	 * A refused card tells of the hand ("2♣ is not in your hand": she
	 * lacks it; "♦ was led: follow suit": she holds the card and a ♦), and
	 * words not read are echoed back, naming any card typed: the caller
	 * alone reads why. A bid's refusal tells nothing the table does not.
	 */
	if ((c->game->flags & GB_PRIVATE_HANDS) && (!act || is_card(c, act)))
		reply_keep_secret(c);
	sb_release(&why);
	sb_release(&legal);
	sb_release(&tried);
}

/* Did the action deal anew (a new Call Break round)? Each person is shown their new hand. */
static bool dealt(const struct ctx *c, const struct gb_events *ev)
{
	for (int i = 0; c->game->deal_event && i < ev->n; i++)
		if (ev->ev[i].type == c->game->deal_event)
			return true;
	return false;
}

static bool all_computers(struct ctx *c)
{
	for (int i = 0; i < c->nseats; i++)
		if (c->seats[i].level < 0)
			return false;
	return true;
}

static void send_hands(struct ctx *c)
{
	/* at an online table each seat's hand is in its own table message */
	if (!(c->game->flags & GB_PRIVATE_HANDS) || c->online)
		return;
	for (int i = 0; i < c->nseats; i++) {
		struct render_ctx rc;
		char names[GB_MAX_SEATS][STORE_NAME_LEN];
		struct strbuf sb = { 0 };

		if (c->seats[i].level >= 0)
			continue;
		ctx_render_init(c, &rc, names);
		render_hand(&rc, i, &sb);
		reply_private(c, c->seats[i].user, sb_str(&sb));
		sb_release(&sb);
	}
}

/*
 * When the idle timer of turn fires: autoplay_after seconds into the turn,
 * or at a computer's pace for the seat of an online person who is away
 * (a computer plays for them until they press or type something).
 */
static int64_t idle_due(struct ctx *c, int turn, int idle)
{
	if (turn >= 0 && online_seat_away(c, turn))
		return c->table.turn_started_ms + c->b->cfg.bot_delay_ms[speed_index(c)];
	return c->table.turn_started_ms + (int64_t)idle * 1000;
}

void table_schedule(struct ctx *c)
{
	struct gb_outcome oc;
	int turn, idle;

	c->clear_timers = true;
	c->ntimers = 0;
	if (!c->st || c->table.status != STORE_PLAYING)
		return;
	c->game->outcome(c->st, &oc);
	if (oc.over)
		return;
	turn = c->game->turn(c->st);
	idle = setting_int(c, "autoplay_after", 0);
	if (turn < 0) {
		/* between Call Break rounds: computers move on by themselves */
		if (all_computers(c)) {
			/* CB-22: after 5 seconds, sooner at higher speed */
			static const int64_t next_ms[3] = { 5000, 5000, 2000 };

			ctx_timer(c, "next", c->cmd->now_ms + next_ms[speed_index(c)]);
		} else if (idle > 0) {
			/* with autoplay on, nobody pressing /next does not stall the table either */
			ctx_timer(c, "idle", c->table.turn_started_ms + (int64_t)idle * 1000);
		}
		return;
	}
	if (turn < c->nseats && c->seats[turn].level >= 0) {
		ctx_timer(c, "bot", c->cmd->now_ms + c->b->cfg.bot_delay_ms[speed_index(c)]);
		return;
	}
	if (idle > 0)
		ctx_timer(c, "idle", idle_due(c, turn, idle));
}

static void finish_game(struct ctx *c)
{
	struct gb_outcome oc;
	char name[STORE_NAME_LEN];

	c->game->outcome(c->st, &oc);
	c->table.status = STORE_OVER;
	c->clear_timers = true;
	if (oc.draw || oc.winner < 0)
		reply_public(c, M_DRAW);
	else
		REPLY_EACH_LANG(c, reply_public(c, M_WINNER, seat_name(c, oc.winner, name, sizeof(name))));
	/* the players' results are written with the rest of the transaction */
	c->record_stats = true;
	c->final = oc;
	/* /board shows the finished table until the next game (an online table's seats have theirs) */
	if (c->online)
		return;
	json_object_set_new(c->settings, "last_table", json_integer(c->table.id));
	c->chat_changed = true;
}

static void log_events(struct ctx *c, const struct gb_events *ev)
{
	for (int i = 0; i < ev->n; i++)
		ctx_log_keep(c, &ev->ev[i]);
}

int play_for_seat(struct ctx *c, int seat, const struct gb_action *act, bool by_computer)
{
	struct gb_events ev = { 0 };
	struct gb_outcome oc;
	char name[STORE_NAME_LEN], text[GB_ACTION_TEXT];
	int turn = c->game->turn(c->st), rc;
	json_t *evj;

	if (act->kind != GB_ACT_NEXT && seat != turn) {
		if (turn < 0)
			reply_alert(c, M_GAME_OVER);
		else
			REPLY_EACH_LANG(c, reply_alert(c, M_NOT_YOUR_TURN, seat_name(c, turn, name, sizeof(name))));
		return GB_OK;
	}
	c->game->format(c->st, act, text, sizeof(text));
	rc = c->game->apply(c->st, act, &ev);
	if (rc) {
		refuse(c, rc, act);
		return GB_OK;
	}
	(void)by_computer;
	/* the move log: append only, one row per accepted action */
	if (c->nmoves < (int)(sizeof(c->moves) / sizeof(c->moves[0]))) {
		evj = json_array();
		for (int i = 0; i < ev.n; i++)
			json_array_append_new(evj, json_pack("[iiiii]", ev.ev[i].type, ev.ev[i].seat,
							     ev.ev[i].a, ev.ev[i].b, ev.ev[i].c));
		c->seq++;
		c->moves[c->nmoves].move_seq = c->seq;
		snprintf(c->moves[c->nmoves].actor, sizeof(c->moves[0].actor), "%d", seat);
		snprintf(c->moves[c->nmoves].action, sizeof(c->moves[0].action), "%s", text);
		c->moves[c->nmoves].events = json_compact(evj);
		json_decref(evj);
		c->nmoves++;
	}
	log_events(c, &ev);
	if (c->game->turn(c->st) != turn)
		c->table.turn_started_ms = c->cmd->now_ms;
	c->table_changed = true;
	c->show_table = true;
	c->game->outcome(c->st, &oc);
	if (oc.over)
		finish_game(c);
	else if (dealt(c, &ev))
		send_hands(c);
	table_schedule(c);
	return GB_OK;
}

/* Was a card of a hand named (by its Nepali name, perhaps)? */
static bool act_is_card(struct ctx *c)
{
	return strcmp(c->cmd->verb, "play") == 0 && (c->game->flags & GB_PRIVATE_HANDS);
}

int cmd_play_action(struct ctx *c)
{
	char text[CMD_ARGS_LEN + 32];
	struct gb_action act;
	int rc;

	snprintf(text, sizeof(text), "%s%s%s", c->cmd->verb, c->cmd->args[0] ? " " : "", c->cmd->args);
	rc = c->game->parse(c->st, text, &act);
	if (rc && act_is_card(c)) {
		/* a card typed by its Nepali name */
		char code[8];

		if (ne_card_code(c->cmd->args, code, sizeof(code)) == 0) {
			snprintf(text, sizeof(text), "play %s", code);
			rc = c->game->parse(c->st, text, &act);
		}
	}
	if (rc && !game_has_verb(c->game, c->cmd->verb)) {
		struct strbuf legal = { 0 };

		legal_list(c, &legal);
		reply_alert(c, M_NO_SUCH_VERB, game_title(c, c->game), c->cmd->verb, sb_str(&legal));
		sb_release(&legal);
		return GB_OK;
	}
	if (rc) {
		refuse(c, rc, NULL);
		return GB_OK;
	}
	act.die = 0; /* players never choose their dice */
	return play_for_seat(c, c->my_seat, &act, false);
}

int table_start_game(struct ctx *c)
{
	struct gb_setup su;
	json_error_t jerr;
	json_t *rj = json_loads(c->table.rules ? c->table.rules : "{}", 0, &jerr);
	int rc;

	gb_setup_init(&su, c->game);
	su.players = c->nseats;
	su.seed = c->table.seed;
	su.dealer = (int)(c->table.seed % 4);
	gb_rules_from_json(c->game, &su.rules, rj);
	json_decref(rj);
	free(c->st);
	c->st = calloc(1, c->game->state_size);
	if (!c->st)
		return GB_ENOMEM;
	rc = c->game->init(c->st, &su);
	if (rc)
		return rc;
	c->table.status = STORE_PLAYING;
	c->table.turn_started_ms = c->cmd->now_ms;
	c->table_changed = true;
	c->show_table = true;
	REPLY_EACH_LANG(c, reply_public(c, M_STARTED, game_title(c, c->game)));
	reply_mark_seating(c);
	send_hands(c);
	table_schedule(c);
	return GB_OK;
}

static void add_button(json_t *rows, const char *label, const char *cmd);

int cmd_hand(struct ctx *c)
{
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	struct strbuf sb = { 0 };
	json_t *r;

	if (!(c->game->flags & GB_PRIVATE_HANDS)) {
		struct strbuf games = { 0 }, last = { 0 };

		sb_addf(&last, " %s ", tr(c->lang, M_OR));
		games_titles_with(&games, GB_PRIVATE_HANDS, c->lang, ", ", sb_str(&last));
		reply_alert(c, M_NO_HAND, sb_str(&games));
		sb_release(&games);
		sb_release(&last);
		return GB_OK;
	}
	ctx_render_init(c, &rc, names);
	render_hand(&rc, c->my_seat, &sb);
	r = reply_push(c, "private", c->cmd->user, sb_str(&sb));
	sb_release(&sb);
	if (c->game->turn(c->st) == c->my_seat) {
		/* the cards this seat may play now, as buttons only its owner sees */
		struct gb_action acts[GB_MAX_LEGAL];
		int n = c->game->legal(c->st, acts);
		json_t *buttons = json_array();

		render_sort_actions(&rc, acts, n);
		for (int k = 0; k < n; k++) {
			char label[64], cmd[GB_ACTION_TEXT + 1];

			if (acts[k].kind != GB_ACT_PLAY)
				continue;
			render_action_label(&rc, &acts[k], label, sizeof(label));
			cmd[0] = '/';
			c->game->format(c->st, &acts[k], cmd + 1, sizeof(cmd) - 1);
			add_button(buttons, label, cmd);
		}
		json_object_set_new(r, "buttons", buttons);
	}
	return GB_OK;
}

/*
 * /start or /hand in a private chat with no table of its own (the router
 * sends them here): /start greets and says what the chat is for; both
 * then show the person's hand at every table where they sit now, each with
 * its cards to play on their turn where the platform takes such presses
 * to the table. What follows /start (a start link's
 * payload, anybody's to make up) is never read.
 */
int cmd_private_hands(struct ctx *c)
{
	size_t before;
	int rc;

	if (strcmp(c->cmd->verb, "start") == 0)
		reply_alert(c, M_PRIVATE_HELLO, c->cmd->user_name);
	before = json_array_size(c->replies);
	rc = bot_user_hands(c->b, c->cmd->platform, c->cmd->user, c->cmd->private_presses, c->replies);
	if (!rc && json_array_size(c->replies) == before)
		reply_alert(c, M_PRIVATE_NO_HANDS);
	return rc;
}

/* "_timer KIND TABLE VERSION", raised by bot_run_timers(). */
int cmd_timer(struct ctx *c)
{
	char kind[16], num[32];
	const char *p = gb_next_word(c->cmd->args, kind, sizeof(kind));
	long long table = -1, version = -1;
	struct gb_action act;
	int turn, level, rc;

	if (p && (p = gb_next_word(p, num, sizeof(num))))
		table = strtoll(num, NULL, 10);
	if (p && gb_next_word(p, num, sizeof(num)))
		version = strtoll(num, NULL, 10);
	if (!c->has_table || c->table.id != table || c->table.version != version ||
	    c->table.status != STORE_PLAYING || !c->st) {
		/* the table moved on since the timer was set: it is stale */
		return store_timer_drop(c->b->store, table, kind, version);
	}
	turn = c->game->turn(c->st);
	level = turn >= 0 && turn < c->nseats ? c->seats[turn].level : -1;
	if (strcmp(kind, "idle") == 0 && (turn < 0 || level < 0)) {
		/* an away player's turn, or a round nobody moved on from */
		int idle = setting_int(c, "autoplay_after", 0);
		int64_t due = idle_due(c, turn, idle);

		/* the chat may have switched autoplay off (or lengthened it) since */
		if (idle <= 0)
			return store_timer_drop(c->b->store, table, kind, version);
		if (c->cmd->now_ms < due) {
			/* the timer of this version only: a move made meanwhile has set its own */
			rc = store_timer_delay(c->b->store, table, kind, version, due);
			return rc == GB_ENOTFOUND ? GB_OK : rc;
		}
		if (turn < 0) {
			reply_public(c, M_AUTOPLAYED_NEXT);
			act = (struct gb_action){ .kind = GB_ACT_NEXT };
			return play_for_seat(c, turn, &act, true);
		}
		{
			char name[STORE_NAME_LEN];

			/* an online seat: said once, and a computer plays on for them at its pace */
			if (!c->online)
				REPLY_EACH_LANG(c, reply_public(c, M_AUTOPLAYED, seat_name(c, turn, name, sizeof(name))));
			else if (online_mark_away(c, turn))
				REPLY_EACH_LANG(c, reply_public(c, M_ONLINE_AWAY, seat_name(c, turn, name, sizeof(name))));
		}
		level = TIMER_IDLE_LEVEL;
	} else if (strcmp(kind, "next") == 0) {
		act = (struct gb_action){ .kind = GB_ACT_NEXT };
		return play_for_seat(c, turn, &act, true);
	} else if (turn < 0 || turn >= c->nseats || level < 0 || strcmp(kind, "idle") == 0) {
		return store_timer_drop(c->b->store, table, kind, version);
	}
	if (c->cmd->has_choice) {
		/* chosen before the transaction for this very version (bot_run_timers) */
		act = c->cmd->choice;
	} else {
		rc = gb_ai_choose(c->game, c->st, level,
				  gb_seed_derive(c->table.seed, (uint64_t)c->seq + 1), 0, &act);
		if (rc)
			return store_timer_drop(c->b->store, table, kind, version);
	}
	act.die = 0;
	return play_for_seat(c, turn, &act, true);
}

/* ---- the table message ---- */

static void add_button(json_t *rows, const char *label, const char *cmd)
{
	json_t *row = json_array_get(rows, json_array_size(rows) - 1);

	if (!row || json_array_size(row) >= 4) {
		row = json_array();
		json_array_append_new(rows, row);
	}
	json_array_append_new(row, json_pack("{ssss}", "label", label, "cmd", cmd));
}

/* What to type in the lobby: the seats' numbers, or the sides of a game of fixed sides. */
static void lobby_hint(struct ctx *c, bool sides, struct strbuf *sb)
{
	struct strbuf list = { 0 };

	if (!sides) {
		sb_add(sb, tr(c->lang, M_LOBBY_HINT));
		return;
	}
	game_sides_join(&list, c->game, c->lang, "|", NULL);
	sb_addmsg(sb, c->lang, M_LOBBY_HINT_SIDES, sb_str(&list), sb_str(&list));
	sb_release(&list);
}

/*
 * The lobby: the game, one line per seat (its number, or its side in a
 * game of fixed sides; the name cut to fit; a computer's level), how many
 * may play, and what to type. Every line fits RENDER_MAX_COLS.
 */
static void lobby_text(struct ctx *c, char names[][STORE_NAME_LEN], struct strbuf *sb)
{
	bool sides = bot_game_side(c->game, 0, c->lang) != NULL;
	int label_cols = 2;
	char lo[24], hi[24];

	for (int i = 0; sides && i < c->game->max_players; i++) {
		int w = render_width(bot_game_side(c->game, i, c->lang)) + 1;

		label_cols = w > label_cols ? w : label_cols;
	}
	sb_addmsg(sb, c->lang, M_LOBBY, game_title(c, c->game));
	for (int i = 0; i < c->game->max_players; i++) {
		char num[24];
		int used;

		sb_add(sb, "\n");
		if (sides)
			render_add_fit(sb, bot_game_side(c->game, i, c->lang), label_cols, true);
		else
			render_add_fit(sb, ctx_num(c, i + 1, num), label_cols, true);
		if (i >= c->nseats || seat_is_free(c, i)) {
			sb_add(sb, tr(c->lang, M_LOBBY_FREE));
			continue;
		}
		if (c->seats[i].level >= 0 && !c->seats[i].user[0]) {
			struct strbuf tail = { 0 };

			sb_addf(&tail, " · %s", level_word(c, c->seats[i].level));
			used = render_width(sb_str(&tail));
			render_add_fit(sb, names[i], RENDER_MAX_COLS - label_cols - used, false);
			sb_add(sb, sb_str(&tail));
			sb_release(&tail);
		} else {
			render_add_fit(sb, names[i], RENDER_MAX_COLS - label_cols, false);
		}
	}
	sb_add(sb, "\n");
	/* a game that always has the same number of players says that number once */
	if (c->game->min_players == c->game->max_players)
		sb_addmsg(sb, c->lang, M_LOBBY_PLAYERS_FIXED, ctx_num(c, c->game->max_players, hi));
	else
		sb_addmsg(sb, c->lang, M_LOBBY_PLAYERS, ctx_num(c, c->game->min_players, lo),
			 ctx_num(c, c->game->max_players, hi));
	sb_add(sb, "\n");
	lobby_hint(c, sides, sb);
}

/*
 * A button that opens the platform's own private picker in this chat
 * (Telegram's inline mode, "inline" being the query it starts with);
 * platforms without one press cmd instead.
 */
static void add_inline_button(json_t *rows, const char *label, const char *cmd, const char *query)
{
	json_t *row;

	add_button(rows, label, cmd);
	row = json_array_get(rows, json_array_size(rows) - 1);
	json_object_set_new(json_array_get(row, json_array_size(row) - 1), "inline", json_string(query));
}

/*
 * The buttons of a table where a person is to move (or a round is over):
 * one per legal action - except a card of a hand. The table message is
 * seen by the whole chat, and a card still in a hand is seen only by its
 * holder (design.md): the cards are offered by "My cards" (the platform's
 * private picker, or the hand with its buttons where there is none) and
 * "Show my hand", which answer the presser alone.
 */
static void table_buttons(struct ctx *c, const struct render_ctx *rc, struct gb_action *acts, int n,
			  json_t *buttons)
{
	bool cards = c->game->flags & GB_PRIVATE_HANDS;

	/* in the order the player sees them (Bagh Chal: as the board is drawn) */
	render_sort_actions(rc, acts, n);
	for (int k = 0; k < n && k < 40; k++) {
		char label[128], cmd[GB_ACTION_TEXT + 1];

		/* a card still in a hand (but in its holder's own view); a move that does what an earlier button does */
		if ((is_card(c, &acts[k]) && c->viewer < 0) || !render_action_shown(rc, &acts[k]))
			continue;
		render_action_label(rc, &acts[k], label, sizeof(label));
		cmd[0] = '/';
		c->game->format(c->st, &acts[k], cmd + 1, sizeof(cmd) - 1);
		add_button(buttons, label, cmd);
	}
	if (cards && c->game->turn(c->st) >= 0 && c->viewer < 0) {
		/* a row of their own: pressed by anyone seated, answered to each alone */
		json_array_append_new(buttons, json_array());
		add_inline_button(buttons, tr(c->lang, M_BTN_MY_CARDS), "/hand", "");
		add_button(buttons, tr(c->lang, M_BTN_HAND), "/hand");
	}
}

#define WIDEST_CUT 24 /* the first cut render_log_cols() tries */
#define STRIP_MAX 32  /* events drawn ahead for the strip; more are drawn again */

/*
 * The log strip's events and the status drawn once at the widest cut of
 * names, newest event first: when every one fits the screen, that is the
 * cut render_log_cols() settles on, and these are the very lines the
 * table message shows.
 */
struct strip {
	struct strbuf line[STRIP_MAX];
	int n;               /* lines drawn, for c->log[nlog - 1] back */
	struct strbuf status;
	bool fit;            /* all drawn at WIDEST_CUT and each fits */
};

static void strip_release(struct strip *sp)
{
	for (int i = 0; i < sp->n; i++)
		sb_release(&sp->line[i]);
	sb_release(&sp->status);
	sp->n = 0;
	sp->fit = false;
}

/*
 * The cut of names for the lines under the board (the log strip's last
 * LOG_LINES lines and the status): one for all, so that a name reads the
 * same on each. A line shows or not whatever the cut, so the widest cut
 * finds where the strip starts.
 */
static int log_cols(struct ctx *c, const struct render_ctx *rc, struct strip *sp)
{
	struct render_ctx wide = *rc;
	int from = c->nlog;

	wide.name_cols = WIDEST_CUT;
	sp->fit = rc->name_cols <= 0;
	for (int shown = 0; from > 0 && shown < LOG_LINES; from--) {
		struct strbuf line = { 0 };

		render_event(&wide, &c->log[from - 1], &line);
		shown += line.len > 0;
		sp->fit = sp->fit && sp->n < STRIP_MAX && render_width(sb_str(&line)) <= RENDER_MAX_COLS;
		if (sp->n < STRIP_MAX)
			sp->line[sp->n++] = line;
		else
			sb_release(&line);
	}
	if (sp->fit) {
		render_status(&wide, &sp->status);
		sp->fit = render_width(sb_str(&sp->status)) <= RENDER_MAX_COLS;
	}
	if (sp->fit)
		return WIDEST_CUT;
	strip_release(sp);
	return render_log_cols(rc, &c->log[from], c->nlog - from);
}

/* Event i's line at rc's cut: the one drawn ahead if there is one. */
static void strip_event(struct ctx *c, const struct render_ctx *rc, struct strip *sp, int i,
			struct strbuf *out)
{
	int k = c->nlog - 1 - i;

	if (sp->fit && k < sp->n) {
		*out = sp->line[k];
		sp->line[k] = (struct strbuf){ 0 };
		return;
	}
	render_event(rc, &c->log[i], out);
}

void table_message(struct ctx *c)
{
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	struct strbuf sb = { 0 };
	json_t *buttons = json_array(), *r;

	ctx_render_init(c, &rc, names);
	if (c->table.status == STORE_LOBBY || !c->st) {
		lobby_text(c, names, &sb);
		if (c->table.status == STORE_LOBBY) {
			add_button(buttons, tr(c->lang, M_BTN_JOIN), "/join");
			add_button(buttons, tr(c->lang, M_BTN_ADDBOT), "/addbot");
			add_button(buttons, tr(c->lang, M_BTN_START), "/start");
		}
	} else {
		struct gb_action acts[GB_MAX_LEGAL];
		int n = c->game->legal(c->st, acts), turn = c->game->turn(c->st);
		struct strbuf lines[LOG_LINES] = { { 0 } };
		struct strip strip = { 0 };
		int nlines = 0;
		render_board(&rc, &sb);
		rc.name_cols = log_cols(c, &rc, &strip);
		/*
		 * The last LOG_LINES lines of the log strip (some events show no
		 * line): newest first. A new deal (Call Break's) starts the strip afresh:
		 * the round before's cards are in the new hands now, and the
		 * score sheet has told how it ended.
		 */
		for (int i = c->nlog; i-- > 0 && nlines < LOG_LINES;) {
			strip_event(c, &rc, &strip, i, &lines[nlines]);
			if (lines[nlines].len)
				nlines++;
			else
				sb_release(&lines[nlines]);
			if (c->game->deal_event && c->log[i].type == c->game->deal_event)
				break;
		}
		/* the board ends its last line: one blank line, then the log */
		if (nlines && (!sb.len || sb.buf[sb.len - 1] != '\n'))
			sb_add(&sb, "\n");
		while (nlines-- > 0) {
			sb_add(&sb, "\n");
			sb_add(&sb, sb_str(&lines[nlines]));
			sb_release(&lines[nlines]);
		}
		/* playing: whose turn; over: who won, under the final board or sheet */
		sb_add(&sb, "\n");
		if (strip.fit)
			sb_add(&sb, sb_str(&strip.status));
		else
			render_status(&rc, &sb);
		strip_release(&strip);
		if (c->viewer >= 0 && (c->game->flags & GB_PRIVATE_HANDS) && c->table.status == STORE_PLAYING) {
			/* an online seat's own view: its hand, seen in its private chat alone */
			sb_add(&sb, "\n\n");
			render_hand(&rc, c->viewer, &sb);
		}
		if (c->table.status == STORE_OVER) {
			char cmd[40];

			snprintf(cmd, sizeof(cmd), "%s %s", c->viewer >= 0 ? "/online" : "/new", c->game->name);
			add_button(buttons, tr(c->lang, c->viewer >= 0 ? M_ONLINE_BTN_AGAIN : M_BTN_NEW), cmd);
		}
		if (c->table.status == STORE_PLAYING && (turn < 0 || c->seats[turn].level < 0) &&
		    (c->viewer < 0 || turn < 0 || turn == c->viewer))
			table_buttons(c, &rc, acts, n, buttons);
	}
	fair_table_lines(c, &sb);
	r = reply_push(c, "table", NULL, sb_str(&sb));
	json_object_set_new(r, "buttons", buttons);
	sb_release(&sb);
}
