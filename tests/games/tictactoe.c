/*
 * tictactoe.c - Tic-tac-toe, the game the tests add to show that a game
 * is one rules module and one row (tictactoe.h). Everything it needs is
 * here, in the order the layers stand: the rules, its computer players
 * (struct gb_ai), the game that ties them (struct gb_game, as
 * games/rows/<game>.c is for the four built in), its renderer (struct
 * render_game) with its own words in both languages, and its row (struct
 * bot_game). No file outside tests/ names it.
 */
#include "tictactoe.h"

#include <stdio.h>
#include <string.h>

#include "games/ai/ai.h"
#include "games/rng.h"

/* ---- the rules ---- */

static const int lines[8][3] = {
	{ 0, 1, 2 }, { 3, 4, 5 }, { 6, 7, 8 }, /* ranks 1..3 */
	{ 0, 3, 6 }, { 1, 4, 7 }, { 2, 5, 8 }, /* files a..c */
	{ 0, 4, 8 }, { 2, 4, 6 },              /* diagonals */
};

/* The line of three seat holds, or -1. */
static int line_of(const int8_t *cell, int seat)
{
	for (int l = 0; l < 8; l++)
		if (cell[lines[l][0]] == seat && cell[lines[l][1]] == seat && cell[lines[l][2]] == seat)
			return l;
	return -1;
}

static int ttt_init(void *st, const struct gb_setup *su)
{
	struct ttt *t = st;

	memset(t, 0, sizeof(*t));
	if (su->players != 2)
		return GB_EPLAYERS;
	memset(t->cell, -1, sizeof(t->cell));
	t->winner = -1;
	return GB_OK;
}

static bool over(const struct ttt *t)
{
	return t->winner >= 0 || t->draw;
}

static int ttt_turn(const void *st)
{
	const struct ttt *t = st;

	return over(t) ? -1 : t->to_move;
}

static int ttt_legal(const void *st, struct gb_action *out)
{
	const struct ttt *t = st;
	int n = 0;

	for (int i = 0; !over(t) && i < TTT_CELLS; i++)
		if (t->cell[i] < 0)
			out[n++] = (struct gb_action){ .kind = GB_ACT_PLACE, .a = i };
	return n;
}

static int ttt_apply(void *st, const struct gb_action *act, struct gb_events *ev)
{
	struct ttt *t = st;
	int seat = t->to_move, line;

	if (over(t))
		return GB_EOVER;
	if (act->kind != GB_ACT_PLACE || act->a < 0 || act->a >= TTT_CELLS || t->cell[act->a] >= 0)
		return GB_EILLEGAL;
	t->cell[act->a] = (int8_t)seat;
	t->moves++;
	gb_events_push(ev, TTT_EV_PLACE, seat, act->a, 0, 0);
	line = line_of(t->cell, seat);
	if (line >= 0) {
		t->winner = (int8_t)seat;
		gb_events_push(ev, TTT_EV_WIN, seat, line, 0, 0);
	} else if (t->moves == TTT_CELLS) {
		t->draw = 1;
		gb_events_push(ev, TTT_EV_DRAW, -1, 0, 0, 0);
	}
	t->to_move = (int8_t)(1 - seat);
	return GB_OK;
}

/* "b2" -> 4 (files a-c, ranks 1-3 in either digit set), or -1. */
static int cell_parse(const char *w)
{
	int rank;

	if (w[0] < 'a' || w[0] > 'c' || gb_parse_uint(w + 1, 3, &rank) || rank < 1)
		return -1;
	return (rank - 1) * 3 + (w[0] - 'a');
}

static int ttt_parse(const void *st, const char *text, struct gb_action *out)
{
	char verb[16], where[16], extra[4];
	const char *p = gb_next_word(text, verb, sizeof(verb));
	int cell;

	(void)st;
	if (!p || strcmp(verb, "place") || !(p = gb_next_word(p, where, sizeof(where))) ||
	    gb_next_word(p, extra, sizeof(extra)) || (cell = cell_parse(where)) < 0)
		return GB_EPARSE;
	*out = (struct gb_action){ .kind = GB_ACT_PLACE, .a = cell };
	return GB_OK;
}

/* "b2" for cell 4 (buf: 3 bytes at least). */
static void cell_name(int cell, char *buf, size_t n)
{
	if (n < 3)
		return;
	buf[0] = (char)('a' + (cell >= 0 ? cell : 0) % 3);
	buf[1] = (char)('1' + (cell >= 0 ? cell : 0) / 3 % 3);
	buf[2] = '\0';
}

static void ttt_format(const void *st, const struct gb_action *act, char *buf, size_t n)
{
	char c[8];

	(void)st;
	cell_name(act->a, c, sizeof(c));
	snprintf(buf, n, "place %s", c);
}

static void ttt_format_event(const struct gb_event *ev, char *buf, size_t n)
{
	char c[8];

	cell_name(ev->a, c, sizeof(c));
	if (ev->type == TTT_EV_PLACE)
		snprintf(buf, n, "place %s", c);
	else
		snprintf(buf, n, "%s", ev->type == TTT_EV_WIN ? "win" : "draw");
}

static json_t *ttt_to_json(const void *st)
{
	const struct ttt *t = st;
	char cells[TTT_CELLS + 1];

	for (int i = 0; i < TTT_CELLS; i++)
		cells[i] = t->cell[i] < 0 ? '.' : t->cell[i] == 0 ? 'x' : 'o';
	cells[TTT_CELLS] = '\0';
	return json_pack("{sssisisbso}", "cells", cells, "to_move", t->to_move, "winner", t->winner, "draw",
			 t->draw != 0, "rules", json_object());
}

/* Rebuild a whole state from its cells alone: whose turn and how it ended follow from them. */
static int from_cells(struct ttt *t, const char *cells)
{
	int nx = 0, no = 0, wx, wo;

	if (!cells || strlen(cells) != TTT_CELLS)
		return GB_ESTATE;
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < TTT_CELLS; i++) {
		t->cell[i] = cells[i] == 'x' ? 0 : cells[i] == 'o' ? 1 : -1;
		if (cells[i] != 'x' && cells[i] != 'o' && cells[i] != '.')
			return GB_ESTATE;
		nx += cells[i] == 'x';
		no += cells[i] == 'o';
	}
	wx = line_of(t->cell, 0);
	wo = line_of(t->cell, 1);
	if ((nx != no && nx != no + 1) || (wx >= 0 && wo >= 0) || (wx >= 0 && nx != no + 1) ||
	    (wo >= 0 && nx != no))
		return GB_ESTATE;
	t->moves = (int8_t)(nx + no);
	t->to_move = (int8_t)(nx > no);
	t->winner = (int8_t)(wx >= 0 ? 0 : wo >= 0 ? 1 : -1);
	t->draw = t->winner < 0 && t->moves == TTT_CELLS;
	return GB_OK;
}

static int ttt_from_json(void *st, const json_t *j)
{
	return from_cells(st, json_string_value(json_object_get(j, "cells")));
}

static int ttt_check(const void *st)
{
	const struct ttt *t = st;
	struct ttt again;
	char cells[TTT_CELLS + 1];

	for (int i = 0; i < TTT_CELLS; i++) {
		if (t->cell[i] < -1 || t->cell[i] > 1)
			return GB_EINVARIANT;
		cells[i] = t->cell[i] < 0 ? '.' : t->cell[i] == 0 ? 'x' : 'o';
	}
	cells[TTT_CELLS] = '\0';
	if (from_cells(&again, cells) || memcmp(&again, t, sizeof(again)))
		return GB_EINVARIANT;
	return GB_OK;
}

static void ttt_outcome(const void *st, struct gb_outcome *out)
{
	const struct ttt *t = st;

	memset(out, 0, sizeof(*out));
	out->over = over(t);
	out->winner = t->winner;
	out->draw = t->draw;
	out->turns = t->moves;
}

/* ---- the computer players ---- */

/* The square seat wins on now, or -1. */
static int winning(const struct ttt *t, int seat)
{
	for (int i = 0; i < TTT_CELLS; i++) {
		struct ttt u = *t;

		if (u.cell[i] >= 0)
			continue;
		u.cell[i] = (int8_t)seat;
		if (line_of(u.cell, seat) >= 0)
			return i;
	}
	return -1;
}

/* The value of t for the seat to move: 1 a win, 0 a draw, -1 a loss, with perfect play. */
static int value(const struct ttt *t)
{
	struct gb_action acts[TTT_CELLS];
	int n = ttt_legal(t, acts), best = -2;

	if (t->winner >= 0)
		return t->winner == t->to_move ? 1 : -1;
	if (t->draw)
		return 0;
	for (int i = 0; i < n && best < 1; i++) {
		struct ttt u = *t;
		int v;

		ttt_apply(&u, &acts[i], NULL);
		v = -value(&u);
		best = v > best ? v : best;
	}
	return best;
}

static int ttt_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out)
{
	const struct ttt *t = st;
	struct gb_action acts[TTT_CELLS], best[TTT_CELLS];
	int n = ttt_legal(t, acts), nbest = 0, top = -2, cell = -1;
	struct gb_rng rng;

	(void)budget_ms;
	if (!n)
		return GB_EOVER;
	gb_rng_seed(&rng, seed);
	if (level >= GB_LEVEL_HARD) {
		for (int i = 0; i < n; i++) {
			struct ttt u = *t;
			int v;

			ttt_apply(&u, &acts[i], NULL);
			v = -value(&u);
			if (v > top) {
				nbest = 0;
				top = v;
			}
			if (v == top)
				best[nbest++] = acts[i];
		}
		*out = best[gb_rng_below(&rng, (uint32_t)nbest)];
		return GB_OK;
	}
	cell = winning(t, t->to_move);
	if (cell < 0 && level >= GB_LEVEL_MEDIUM)
		cell = winning(t, 1 - t->to_move);
	*out = cell >= 0 ? (struct gb_action){ .kind = GB_ACT_PLACE, .a = cell }
			 : acts[gb_rng_below(&rng, (uint32_t)n)];
	return GB_OK;
}

/* ---- the game: its rules and its players tied, above both (as games/rows/ ties each built in) ---- */

static const struct gb_ai tictactoe_players = { .choose = ttt_ai_choose };
static const char *const tictactoe_verbs[] = { "place", NULL };

const struct gb_game tictactoe_game = {
	.name = "tictactoe",
	.min_players = 2,
	.max_players = 2,
	.default_players = 2,
	.state_size = sizeof(struct ttt),
	.init = ttt_init,
	.turn = ttt_turn,
	.legal = ttt_legal,
	.apply = ttt_apply,
	.parse = ttt_parse,
	.format = ttt_format,
	.format_event = ttt_format_event,
	.to_json = ttt_to_json,
	.from_json = ttt_from_json,
	.check = ttt_check,
	.outcome = ttt_outcome,
	.flags = GB_FIXED_SIDES,
	.verbs = tictactoe_verbs,
	.ai = &tictactoe_players,
};

/* ---- the renderer ---- */

/* Its own words, in each language (LANG_EN, LANG_NE). */
enum { W_PLACED, W_THREE, W_FULL, W_TAKEN, W_TO_PLACE, W_COUNT };
static const char *const words[W_COUNT][LANG_COUNT] = {
	[W_PLACED] = { "%s: %s on %s", "%s: %s %sमा" },
	[W_THREE] = { "%s makes three in a row", "%sले तीन मिलाउनुभयो" },
	[W_FULL] = { "The grid is full", "सबै कोठा भरिए" },
	[W_TAKEN] = { "%s is taken", "%s भरिएको छ" },
	[W_TO_PLACE] = { "%s (%s) to place a mark", "%s (%s)को पालो" },
};

static const char *const marks[2] = { "X", "O" };

#define NAME_COLS 16

static const char *word(const struct render_ctx *rc, int w)
{
	return words[w][rc->lang >= 0 && rc->lang < LANG_COUNT ? rc->lang : LANG_EN];
}

static const char *seat_name(const struct render_ctx *rc, int seat, char *buf, size_t n)
{
	return render_name_buf(rc, seat, rc->name_cols > 0 ? rc->name_cols : NAME_COLS, buf, n);
}

/* "b2", the rank in the chat's digits. */
static void add_cell(const struct render_ctx *rc, int cell, struct strbuf *out)
{
	char num[16];

	sb_addf(out, "%c%s", 'a' + cell % 3, render_num(rc, cell / 3 + 1, num, sizeof(num)));
}

static void ttt_board(const struct render_ctx *rc, struct strbuf *out)
{
	const struct ttt *t = rc->st;
	char num[16];

	sb_add(out, bot_game_title(rc->game, rc->lang));
	render_newline(out);
	sb_add(out, "   a b c");
	render_newline(out);
	for (int rank = 2; rank >= 0; rank--) {
		sb_addf(out, " %s", render_num(rc, rank + 1, num, sizeof(num)));
		for (int file = 0; file < 3; file++) {
			int c = t->cell[rank * 3 + file];

			sb_addf(out, " %s", c < 0 ? "·" : marks[c]);
		}
		render_newline(out);
	}
	for (int seat = 0; seat < 2; seat++) {
		sb_addf(out, "%s %s ", seat == ttt_turn(t) ? "▸" : " ", marks[seat]);
		render_name(rc, seat, NAME_COLS, out);
		sb_addf(out, " (%s)", bot_game_side(rc->game, seat, rc->lang));
		render_newline(out);
	}
}

static void ttt_status(const struct render_ctx *rc, struct strbuf *out)
{
	const struct ttt *t = rc->st;
	char who[RENDER_NAME_BUF];

	if (t->winner >= 0)
		render_tr(rc, out, M_ST_OVER_WINNER, seat_name(rc, t->winner, who, sizeof(who)));
	else if (t->draw)
		sb_add(out, tr(rc->lang, M_ST_OVER_DRAW));
	else
		sb_addtr(out, word(rc, W_TO_PLACE), seat_name(rc, t->to_move, who, sizeof(who)),
			 marks[t->to_move]);
}

static void ttt_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	char who[RENDER_NAME_BUF];
	struct strbuf cell = { 0 };

	seat_name(rc, ev->seat, who, sizeof(who));
	switch (ev->type) {
	case TTT_EV_PLACE:
		add_cell(rc, ev->a, &cell);
		sb_addtr(out, word(rc, W_PLACED), who, marks[ev->seat & 1], sb_str(&cell));
		break;
	case TTT_EV_WIN:
		sb_addtr(out, word(rc, W_THREE), who);
		break;
	case TTT_EV_DRAW:
		sb_add(out, word(rc, W_FULL));
		break;
	default:
		break;
	}
	sb_release(&cell);
}

static void ttt_label(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	if (act->kind == GB_ACT_PLACE)
		add_cell(rc, act->a, out);
}

static void ttt_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			struct strbuf *out)
{
	const struct ttt *t = rc->st;
	struct strbuf cell = { 0 };

	(void)verb;
	if (err != GB_EILLEGAL || !act || act->kind != GB_ACT_PLACE || act->a < 0 || act->a >= TTT_CELLS ||
	    t->cell[act->a] < 0)
		return;
	add_cell(rc, act->a, &cell);
	sb_addtr(out, word(rc, W_TAKEN), sb_str(&cell));
	sb_release(&cell);
}

/* As the board is drawn: rank 3 first. */
static int drawn(const struct gb_action *a)
{
	return (2 - a->a / 3) * 3 + a->a % 3;
}

static void ttt_sort(struct gb_action *acts, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && drawn(&acts[j]) < drawn(&acts[j - 1]); j--) {
			struct gb_action x = acts[j];

			acts[j] = acts[j - 1];
			acts[j - 1] = x;
		}
}

static const struct render_game tictactoe_render = {
	.board = ttt_board,
	.status = ttt_status,
	.event = ttt_event,
	.label = ttt_label,
	.refusal = ttt_refusal,
	.sort = ttt_sort,
};

/* ---- the row ---- */

static const char *const tictactoe_aliases[] = { "ttt", "noughts-and-crosses", NULL };

const struct bot_game tictactoe_row = {
	.game = &tictactoe_game,
	.title = { "Tic-tac-toe", "टिक ट्याक टो" },
	.aliases = tictactoe_aliases,
	.rules = { "Tic-tac-toe: crosses and noughts take turns to put a mark on a free square of the "
		   "grid (/place b2); three in a row, a column or a diagonal wins, a full grid is a draw.",
		   "टिक ट्याक टो: क्रस र गोलो पालैपालो खाली कोठामा आफ्नो चिह्न राख्छन् (/place b2); "
		   "तेर्सो, ठाडो वा छड्के तीन मिलाउनेले जित्छ, सबै कोठा भरिए बराबरी।" },
	.sides = { { "crosses", "क्रस" }, { "noughts", "गोलो" } },
	.render = &tictactoe_render,
};
