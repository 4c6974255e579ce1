/*
 * play.c - moves at a table: the play commands, computer turns, idle
 * autoplay, the end of a game, and the table message. Every accepted action
 * goes through play_for_seat(): it applies the action to the rules core,
 * logs it, and schedules whatever must happen next as a timer row.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "games/ai/ai.h"
#include "internal.h"

#define LOG_KEEP 24  /* events kept for the log strip */

static int speed_index(struct ctx *c)
{
	const char *s = setting_str(c, "speed", "normal");

	return strcmp(s, "slow") == 0 ? 0 : strcmp(s, "fast") == 0 ? 2 : 1;
}

/* Legal actions as a readable list for refusals. */
static void legal_list(struct ctx *c, struct strbuf *sb)
{
	json_t *legal = gb_legal_json(c->game, c->st);
	size_t i;
	json_t *v;

	json_array_foreach(legal, i, v) {
		if (i >= 12) {
			sb_add(sb, ", …");
			break;
		}
		sb_addf(sb, "%s/%s", i ? ", " : "", json_string_value(v));
	}
	json_decref(legal);
}

/* Call Break's round number (from the state JSON: renderers' view of it), or -1. */
static int cb_round(struct ctx *c)
{
	json_t *j;
	int r = -1;

	if (strcmp(c->game->name, "callbreak") != 0)
		return -1;
	j = c->game->to_json(c->st);
	if (json_is_integer(json_object_get(j, "round")))
		r = (int)json_integer_value(json_object_get(j, "round"));
	json_decref(j);
	return r;
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
	if (strcmp(c->game->name, "callbreak") != 0)
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
	if (turn < 0) {
		/* between Call Break rounds: computers move on by themselves */
		if (all_computers(c)) {
			/* CB-22: after 5 seconds, sooner at higher speed */
			static const int64_t next_ms[3] = { 5000, 5000, 2000 };

			ctx_timer(c, "next", c->cmd->now_ms + next_ms[speed_index(c)]);
		}
		return;
	}
	if (turn < c->nseats && c->seats[turn].level >= 0) {
		ctx_timer(c, "bot", c->cmd->now_ms + c->b->cfg.bot_delay_ms[speed_index(c)]);
		return;
	}
	idle = setting_int(c, "autoplay_after", 0);
	if (idle > 0)
		ctx_timer(c, "idle", c->table.turn_started_ms + (int64_t)idle * 1000);
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
		reply_public(c, M_WINNER, seat_name(c, oc.winner, name, sizeof(name)));
	/* the players' results are written with the rest of the transaction */
	c->record_stats = true;
	c->final = oc;
}

static void log_events(struct ctx *c, const struct gb_events *ev)
{
	for (int i = 0; i < ev->n; i++) {
		const struct gb_event *e = &ev->ev[i];

		json_array_append_new(c->log, json_pack("[iiiii]", e->type, e->seat, e->a, e->b, e->c));
	}
	while (json_array_size(c->log) > LOG_KEEP)
		json_array_remove(c->log, 0);
}

int play_for_seat(struct ctx *c, int seat, const struct gb_action *act, bool by_computer)
{
	struct gb_events ev = { 0 };
	struct gb_outcome oc;
	char name[STORE_NAME_LEN], text[GB_ACTION_TEXT];
	struct strbuf sb = { 0 };
	int turn = c->game->turn(c->st), rc, round_before = -1;
	json_t *evj;

	if (act->kind != GB_ACT_NEXT && seat != turn) {
		if (turn < 0)
			reply_alert(c, M_GAME_OVER);
		else
			reply_alert(c, M_NOT_YOUR_TURN, seat_name(c, turn, name, sizeof(name)));
		return GB_OK;
	}
	round_before = cb_round(c);
	c->game->format(c->st, act, text, sizeof(text));
	rc = c->game->apply(c->st, act, &ev);
	if (rc) {
		legal_list(c, &sb);
		if (rc == GB_EPHASE)
			reply_alert(c, M_WRONG_PHASE, sb_str(&sb));
		else if (rc == GB_EOVER)
			reply_alert(c, M_GAME_OVER);
		else
			reply_alert(c, M_ILLEGAL, text, sb_str(&sb));
		sb_release(&sb);
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
		c->moves[c->nmoves].events = json_dumps(evj, JSON_COMPACT);
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
	else if (round_before >= 0 && cb_round(c) != round_before)
		send_hands(c);
	table_schedule(c);
	return GB_OK;
}

static bool act_is_card(struct ctx *c)
{
	return strcmp(c->cmd->verb, "play") == 0 && strcmp(c->game->name, "callbreak") == 0;
}

int cmd_play_action(struct ctx *c)
{
	char text[CMD_ARGS_LEN + 32];
	struct gb_action act;
	struct strbuf sb = { 0 };
	int rc;

	snprintf(text, sizeof(text), "%s %s", c->cmd->verb, c->cmd->args);
	rc = c->game->parse(c->st, text, &act);
	if (rc && act_is_card(c)) {
		/* a card typed by its Nepali name */
		char code[8];

		if (ne_card_code(c->cmd->args, code, sizeof(code)) == 0) {
			snprintf(text, sizeof(text), "play %s", code);
			rc = c->game->parse(c->st, text, &act);
		}
	}
	if (rc) {
		legal_list(c, &sb);
		reply_alert(c, M_UNREADABLE, text, sb_str(&sb));
		sb_release(&sb);
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
	reply_public(c, M_STARTED, game_title(c, c->game));
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

	if (strcmp(c->game->name, "callbreak") != 0) {
		reply_alert(c, M_ONLY_CALLBREAK);
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
	if (strcmp(kind, "next") == 0) {
		act = (struct gb_action){ .kind = GB_ACT_NEXT };
		return play_for_seat(c, turn, &act, true);
	}
	if (turn < 0 || turn >= c->nseats)
		return store_timer_clear(c->b->store, table, kind);
	level = c->seats[turn].level;
	if (strcmp(kind, "idle") == 0) {
		char name[STORE_NAME_LEN];

		int idle = setting_int(c, "autoplay_after", 0);

		/* the chat may have switched autoplay off (or lengthened it) since */
		if (level >= 0 || idle <= 0)
			return store_timer_clear(c->b->store, table, kind);
		if (c->cmd->now_ms < c->table.turn_started_ms + (int64_t)idle * 1000) {
			struct store_timer t = { .table = table, .version = version,
						 .due_ms = c->table.turn_started_ms + (int64_t)idle * 1000 };

			snprintf(t.kind, sizeof(t.kind), "idle");
			return store_timer_set(c->b->store, &t);
		}
		reply_public(c, M_AUTOPLAYED, seat_name(c, turn, name, sizeof(name)));
		level = TIMER_IDLE_LEVEL;
	} else if (level < 0) {
		return store_timer_clear(c->b->store, table, kind);
	}
	if (c->cmd->has_choice) {
		/* chosen before the transaction for this very version (bot_run_timers) */
		act = c->cmd->choice;
	} else {
		rc = gb_ai_choose(c->game, c->st, level,
				  gb_seed_derive(c->table.seed, (uint64_t)c->seq + 1), 0, &act);
		if (rc)
			return store_timer_clear(c->b->store, table, kind);
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

void table_message(struct ctx *c)
{
	struct render_ctx rc;
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	struct strbuf sb = { 0 };
	json_t *buttons = json_array(), *r;

	ctx_render_init(c, &rc, names);
	if (c->table.status == STORE_LOBBY || !c->st) {
		struct strbuf seats = { 0 };

		for (int i = 0; i < c->nseats; i++)
			sb_addf(&seats, "%s%s", i ? ", " : "", names[i]);
		if (!c->nseats)
			sb_add(&seats, "-");
		char lo[24], hi[24];

		sb_addtr(&sb, tr(c->lang, M_LOBBY), game_title(c, c->game), sb_str(&seats),
			 ctx_num(c, c->game->min_players, lo), ctx_num(c, c->game->max_players, hi));
		sb_add(&sb, "\n");
		sb_add(&sb, tr(c->lang, M_LOBBY_HINT));
		sb_release(&seats);
		if (c->table.status == STORE_LOBBY) {
			add_button(buttons, tr(c->lang, M_BTN_JOIN), "/join");
			add_button(buttons, tr(c->lang, M_BTN_ADDBOT), "/addbot");
			add_button(buttons, tr(c->lang, M_BTN_START), "/start");
		}
	} else {
		struct gb_action acts[GB_MAX_LEGAL];
		int n = c->game->legal(c->st, acts), turn = c->game->turn(c->st);
		json_t *lines = json_array();
		size_t i;
		json_t *e;

		render_board(&rc, &sb);
		/* the last LOG_LINES lines of the log strip */
		json_array_foreach(c->log, i, e) {
			struct gb_event ev = { (int)json_integer_value(json_array_get(e, 0)),
					       (int)json_integer_value(json_array_get(e, 1)),
					       (int)json_integer_value(json_array_get(e, 2)),
					       (int)json_integer_value(json_array_get(e, 3)),
					       (int)json_integer_value(json_array_get(e, 4)) };
			struct strbuf line = { 0 };

			render_event(&rc, &ev, &line);
			if (line.len)
				json_array_append_new(lines, json_string(sb_str(&line)));
			sb_release(&line);
		}
		while (json_array_size(lines) > LOG_LINES)
			json_array_remove(lines, 0);
		if (json_array_size(lines))
			sb_add(&sb, "\n");
		json_array_foreach(lines, i, e) {
			sb_add(&sb, "\n");
			sb_add(&sb, json_string_value(e));
		}
		json_decref(lines);
		if (c->table.status == STORE_PLAYING) {
			sb_add(&sb, "\n");
			render_status(&rc, &sb);
		}
		if (c->table.status == STORE_PLAYING && (turn < 0 || c->seats[turn].level < 0)) {
			bool cards = strcmp(c->game->name, "callbreak") == 0;

			for (int k = 0; k < n && k < 40; k++) {
				char label[64], cmd[GB_ACTION_TEXT + 1];

				if (cards && acts[k].kind == GB_ACT_PLAY)
					continue; /* cards are chosen from the private hand */
				render_action_label(&rc, &acts[k], label, sizeof(label));
				cmd[0] = '/';
				c->game->format(c->st, &acts[k], cmd + 1, sizeof(cmd) - 1);
				add_button(buttons, label, cmd);
			}
			if (cards)
				add_button(buttons, tr(c->lang, M_BTN_HAND), "/hand");
		}
	}
	r = reply_push(c, "table", NULL, sb_str(&sb));
	json_object_set_new(r, "buttons", buttons);
	sb_release(&sb);
}
