/*
 * render_snakes.c - Snakes and Ladders as text.
 *
 * The board is the printed 10x10 grid, numbered boustrophedon (SL-5): 100
 * top left, 1 bottom left. Every square is four columns: its number
 * right-aligned in three, then one mark: a seat's token mark (A-D, or क-घ in
 * Nepali; "*" for two tokens or more), else ▲ on a ladder's foot or ▼ on a
 * snake's head. Ten squares make 40 columns. Below the grid, one line per
 * seat says where its token is, and two legends list where every ladder and
 * snake goes ("▲ Ladders: 1→38 4→14 ...").
 *
 *     Snakes and Ladders
 *     100  99  98▼ 97  96  95▼ 94  93▼ 92  91
 *     ...
 *       1▲  2   3   4▲  5   6   7   8   9▲ 10
 *     ▸ A Asha            square 14
 *       B Bikash          off the board
 *     ▲ Ladders: 1→38 4→14 9→31 21→42 28→84
 *       36→44 51→67 71→91 80→100
 *     ▼ Snakes: 16→6 47→26 ...
 */
#include <stdio.h>
#include <string.h>

#include "bot/lang/i18n.h"
#include "games.h"
#include "games/snakes.h"
#include "render.h"

#define NAME_COLS 16

static int name_cols(const struct render_ctx *rc, int def)
{
	return rc->name_cols > 0 ? rc->name_cols : def;
}

static const char *name(const struct render_ctx *rc, int seat, char *buf, size_t n)
{
	return render_name_buf(rc, seat, name_cols(rc, NAME_COLS), buf, n);
}

static void add_pieces(const struct render_ctx *rc, const struct snakes *s, int kind,
		       struct strbuf *out)
{
	int pieces[SNAKES_SNAKES][2];
	int n = snakes_pieces(s, kind, pieces);
	char text[SNAKES_SNAKES][48];
	const char *items[SNAKES_SNAKES];
	struct strbuf prefix = { 0 };

	for (int i = 0; i < n; i++) {
		char a[16], b[16];

		snprintf(text[i], sizeof(text[i]), "%s→%s", render_num(rc, pieces[i][0], a, sizeof(a)),
			 render_num(rc, pieces[i][1], b, sizeof(b)));
		items[i] = text[i];
	}
	sb_add(&prefix, kind == 0 ? "▲ " : "▼ ");
	sb_add(&prefix, tr(rc->lang, kind == 0 ? M_SL_LADDERS : M_SL_SNAKES));
	sb_add(&prefix, ":");
	render_add_wrapped(out, sb_str(&prefix), items, n);
	sb_release(&prefix);
}

static void render_snakes_board(const struct render_ctx *rc, struct strbuf *out)
{
	static const int marks[GB_MAX_SEATS] = { M_MARK_1, M_MARK_2, M_MARK_3, M_MARK_4 };
	const struct snakes *s = rc->st;
	int at[10][10]; /* [row][col] -> square */
	int players = s->players <= GB_MAX_SEATS ? s->players : GB_MAX_SEATS;
	int turn = snakes_winner(s) < 0 ? s->to_move : -1;

	for (int sq = 1; sq <= SNAKES_SQUARES; sq++) {
		int col, row;

		snakes_square_xy(sq, &col, &row);
		if (col >= 0 && col < 10 && row >= 0 && row < 10)
			at[row][col] = sq;
	}
	sb_add(out, bot_game_title(rc->game, rc->lang));
	render_newline(out);
	for (int row = 9; row >= 0; row--) {
		for (int col = 0; col < 10; col++) {
			int sq = at[row][col], dest = snakes_jump(s, sq), tokens = 0, who = -1;
			char num[16];

			for (int p = 0; p < players; p++) {
				if (snakes_position(s, p) == sq) {
					tokens++;
					who = p;
				}
			}
			render_add_right(out, render_num(rc, sq, num, sizeof(num)), 3);
			if (tokens > 1)
				sb_add(out, "*");
			else if (tokens == 1)
				render_add_fit(out, tr(rc->lang, marks[who]), 1, true);
			else if (dest > sq)
				sb_add(out, "▲");
			else if (dest && dest < sq)
				sb_add(out, "▼");
			else
				sb_add(out, " ");
		}
		render_newline(out);
	}
	for (int p = 0; p < players; p++) {
		char num[16];
		int pos = snakes_position(s, p);

		sb_add(out, p == turn ? "▸ " : "  ");
		render_add_fit(out, tr(rc->lang, marks[p]), 1, true);
		sb_add(out, " ");
		render_name(rc, p, NAME_COLS, out);
		render_pad_to(out, 4 + NAME_COLS + 1);
		if (pos == 0)
			sb_add(out, tr(rc->lang, M_SL_OFF));
		else
			render_tr(rc, out, M_SL_SQUARE, render_num(rc, pos, num, sizeof(num)));
		render_newline(out);
	}
	add_pieces(rc, s, 0, out);
	add_pieces(rc, s, 1, out);
}

static void render_snakes_status(const struct render_ctx *rc, struct strbuf *out)
{
	const struct snakes *s = rc->st;
	char who[RENDER_NAME_BUF], six[16];
	int winner = snakes_winner(s);

	switch (snakes_status(s)) {
	case SNAKES_STATUS_OVER:
		if (winner >= 0)
			render_tr(rc, out, M_ST_OVER_WINNER, name(rc, winner, who, sizeof(who)));
		else
			sb_add(out, tr(rc->lang, M_ST_OVER_DRAW));
		break;
	case SNAKES_STATUS_NEEDS_SIX:
		render_tr(rc, out, M_SL_ST_NEEDS_SIX, name(rc, s->to_move, who, sizeof(who)),
			  render_num(rc, 6, six, sizeof(six)));
		break;
	case SNAKES_STATUS_ROLL_AGAIN:
		render_tr(rc, out, M_ST_ROLL_AGAIN, name(rc, s->to_move, who, sizeof(who)));
		break;
	case SNAKES_STATUS_ROLL:
	default:
		render_tr(rc, out, M_ST_ROLL, name(rc, s->to_move, who, sizeof(who)));
		break;
	}
}

static void render_snakes_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	char who[RENDER_NAME_BUF], a[16], b[16];

	name(rc, ev->seat, who, sizeof(who));
	switch (ev->type) {
	case SNAKES_EV_ROLL:
		render_tr(rc, out, M_EV_ROLLED, who, render_num(rc, ev->a, a, sizeof(a)));
		break;
	case SNAKES_EV_ENTER:
		render_tr(rc, out, M_SL_EV_ENTER, who, render_num(rc, ev->a > 0 ? ev->a : 1, a, sizeof(a)));
		break;
	case SNAKES_EV_WAIT:
		render_tr(rc, out, M_SL_EV_WAIT, who);
		break;
	case SNAKES_EV_MOVE:
		render_tr(rc, out, M_SL_EV_MOVE, who, render_num(rc, ev->a, a, sizeof(a)),
			  render_num(rc, ev->b, b, sizeof(b)));
		break;
	case SNAKES_EV_LADDER:
		render_tr(rc, out, M_SL_EV_LADDER, who, render_num(rc, ev->a, a, sizeof(a)),
			  render_num(rc, ev->b, b, sizeof(b)));
		break;
	case SNAKES_EV_SNAKE:
		render_tr(rc, out, M_SL_EV_SNAKE, who, render_num(rc, ev->a, a, sizeof(a)),
			  render_num(rc, ev->b, b, sizeof(b)));
		break;
	case SNAKES_EV_BLOCKED:
		render_tr(rc, out, M_SL_EV_BLOCKED, who, render_num(rc, ev->a, a, sizeof(a)),
			  render_num(rc, SNAKES_SQUARES - ev->a, b, sizeof(b)));
		break;
	case SNAKES_EV_THIRD_SIX:
		render_tr(rc, out, M_SL_EV_THIRD_SIX, who);
		break;
	case SNAKES_EV_BACK:
		if (ev->a > 0)
			render_tr(rc, out, M_SL_EV_BACK, who, render_num(rc, ev->a, a, sizeof(a)));
		else
			render_tr(rc, out, M_SL_EV_BACK_OFF, who);
		break;
	case SNAKES_EV_WIN:
		render_tr(rc, out, M_SL_EV_WIN, who, render_num(rc, SNAKES_SQUARES, a, sizeof(a)));
		break;
	default:
		break;
	}
}

static void render_snakes_label(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	if (act->kind == GB_ACT_ROLL)
		sb_add(out, tr(rc->lang, M_BTN_ROLL));
}

static const struct render_game render = {
	.board = render_snakes_board,
	.status = render_snakes_status,
	.event = render_snakes_event,
	.label = render_snakes_label,
};

/* Snakes and Ladders' row (bot/render/games.h): its titles, other names, rules, sides and this renderer. */
static const char *const snakes_aliases[] = { "snake", "snakesandladders", NULL };
const struct bot_game snakes_row = {
	.game = &snakes_game,
	.title = { "Snakes and Ladders", "साँप सिँढी" },
	.aliases = snakes_aliases,
	.rules = { "Snakes and Ladders: roll one die and move; a ladder's foot climbs, a snake's "
		   "head slides down. First to reach 100 wins.",
		   "साँप सिँढी: एउटा पासा फालेर टोकन त्यति कोठा हिँडाउनुहोस्। सिँढीको फेदमा अडिए "
		   "चढ्नुहुन्छ, साँपको टाउकोमा अडिए पुच्छरसम्म झर्नुहुन्छ। कोठा १०० मा पहिले पुग्नेले "
		   "जित्छ।" },
	.render = &render,
};
