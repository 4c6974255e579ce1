/*
 * render_baghchal.c - Bagh Chal as text.
 *
 * The Alquerque board of BC-2: 25 points four columns apart, joined by
 * ─ and │, with ╱ or ╲ between two ranks wherever a diagonal runs (from the
 * points whose file + rank is even). Files a..e above, ranks 1..5 (in the
 * chat's digits) on the left. Tigers and goats are one-column marks from the
 * catalogue (T and G; ब and ख in Nepali), an empty point is "·".
 *
 *     Bagh Chal
 *        a   b   c   d   e
 *     5  T───·───·───·───T
 *        │ ╲ │ ╱ │ ╲ │ ╱ │
 *     4  ·───·───·───·───·
 *        ...
 *     1  T───·───·───·───T
 *     Goats in hand: 20 · captured: 0 of 5
 *     T tiger  G goat
 *     Goats: Asha · Tigers: Bikash
 */
#include <stdio.h>
#include <string.h>

#include "bot/lang/i18n.h"
#include "games.h"
#include "games/baghchal.h"
#include "render.h"

#define NAME_COLS 16

static const char *name(const struct render_ctx *rc, int seat, char *buf, size_t n)
{
	return render_name_buf(rc, seat, rc->name_cols > 0 ? rc->name_cols : NAME_COLS, buf, n);
}

static void render_baghchal_point(const struct render_ctx *rc, int p, struct strbuf *out)
{
	if (p < 0 || p >= BAGHCHAL_POINTS) {
		sb_add(out, "?");
		return;
	}
	/* a point is a name, like a card's: its digit stays ASCII in every chat ("c3", never "c३") */
	(void)rc;
	sb_addf(out, "%c%d", 'a' + p % 5, p / 5 + 1);
}

static void add_piece(const struct render_ctx *rc, const struct baghchal *s, int p, struct strbuf *out)
{
	switch (baghchal_piece_at(s, p)) {
	case BAGHCHAL_TIGER:
		render_add_fit(out, tr(rc->lang, M_BC_TIGER_MARK), 1, true);
		break;
	case BAGHCHAL_GOAT:
		render_add_fit(out, tr(rc->lang, M_BC_GOAT_MARK), 1, true);
		break;
	default:
		sb_add(out, "·");
		break;
	}
}

static void render_baghchal_board(const struct render_ctx *rc, struct strbuf *out)
{
	const struct baghchal *s = rc->st;
	char a[16], b[16], c[16];

	sb_add(out, bot_game_title(rc->game, rc->lang));
	render_newline(out);
	sb_add(out, "   a   b   c   d   e");
	render_newline(out);
	for (int rank = 4; rank >= 0; rank--) {
		render_int(rc, rank + 1, out);
		sb_add(out, "  ");
		for (int file = 0; file < 5; file++) {
			add_piece(rc, s, rank * 5 + file, out);
			if (file < 4)
				sb_add(out, "───");
		}
		render_newline(out);
		if (rank == 0)
			break;
		/* the lines down to the next rank: a diagonal leaves the points with
		 * file + rank even (BC-2), rising to the right from the lower one */
		sb_add(out, "   ");
		for (int file = 0; file < 5; file++) {
			sb_add(out, "│");
			if (file < 4)
				sb_add(out, (file + rank - 1) % 2 == 0 ? " ╱ " : " ╲ ");
		}
		render_newline(out);
	}
	render_tr(rc, out, M_BC_INFO, render_num(rc, s->goats_in_hand, a, sizeof(a)),
		  render_num(rc, s->captured, b, sizeof(b)),
		  render_num(rc, BAGHCHAL_CAPTURES_TO_WIN, c, sizeof(c)));
	render_newline(out);
	sb_add(out, tr(rc->lang, M_BC_KEY));
	render_newline(out);
	/* the sides line: names as long as the line allows */
	for (int cut = 14; cut >= 4; cut -= 2) {
		struct strbuf line = { 0 };
		char g[RENDER_NAME_BUF], t[RENDER_NAME_BUF];

		render_tr(rc, &line, M_BC_SIDES, render_name_buf(rc, BAGHCHAL_GOATS, cut, g, sizeof(g)),
			  render_name_buf(rc, BAGHCHAL_TIGERS, cut, t, sizeof(t)));
		if (cut == 4 || render_width(sb_str(&line)) <= RENDER_MAX_COLS) {
			sb_add(out, sb_str(&line));
			sb_release(&line);
			break;
		}
		sb_release(&line);
	}
	render_newline(out);
}

static void render_baghchal_status(const struct render_ctx *rc, struct strbuf *out)
{
	const struct baghchal *s = rc->st;
	char who[RENDER_NAME_BUF], a[16];

	switch (s->result) {
	case BAGHCHAL_PLAYING:
		break;
	case BAGHCHAL_TIGERS_WIN:
		render_tr(rc, out, M_ST_OVER_WINNER, name(rc, BAGHCHAL_TIGERS, who, sizeof(who)));
		return;
	case BAGHCHAL_GOATS_WIN:
		render_tr(rc, out, M_ST_OVER_WINNER, name(rc, BAGHCHAL_GOATS, who, sizeof(who)));
		return;
	default:
		sb_add(out, tr(rc->lang, M_ST_OVER_DRAW));
		return;
	}
	name(rc, s->to_move, who, sizeof(who));
	if (s->to_move == BAGHCHAL_TIGERS)
		render_tr(rc, out, M_BC_ST_TIGER, who);
	else if (s->goats_in_hand > 0)
		render_tr(rc, out, M_BC_ST_PLACE, who, render_num(rc, s->goats_in_hand, a, sizeof(a)));
	else
		render_tr(rc, out, M_BC_ST_GOAT_MOVE, who);
}

/* Is a move from a to b a jump (a tiger capturing the goat between)? */
static bool is_jump(int a, int b)
{
	return a >= 0 && a < BAGHCHAL_POINTS && b >= 0 && b < BAGHCHAL_POINTS &&
	       !(baghchal_adj_mask[a] & (1u << b));
}

/* A point as text in a small buffer. */
static const char *point(const struct render_ctx *rc, int p, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	render_baghchal_point(rc, p, &sb);
	snprintf(buf, n, "%s", sb_str(&sb));
	sb_release(&sb);
	return buf;
}

static void render_baghchal_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	char who[RENDER_NAME_BUF], a[16], b[16], c[16], d[16];

	name(rc, ev->seat, who, sizeof(who));
	switch (ev->type) {
	case BAGHCHAL_EV_PLACE:
		render_tr(rc, out, M_BC_EV_PLACE, who, point(rc, ev->a, a, sizeof(a)));
		break;
	case BAGHCHAL_EV_MOVE:
		point(rc, ev->a, a, sizeof(a));
		point(rc, ev->b, b, sizeof(b));
		if (ev->seat != BAGHCHAL_TIGERS)
			render_tr(rc, out, M_BC_EV_GOAT_MOVE, who, a, b);
		else if (is_jump(ev->a, ev->b))
			render_tr(rc, out, M_BC_EV_TIGER_JUMP, who, a, b);
		else
			render_tr(rc, out, M_BC_EV_TIGER_MOVE, who, a, b);
		break;
	case BAGHCHAL_EV_CAPTURE:
		render_tr(rc, out, M_BC_EV_CAPTURE, who, point(rc, ev->a, a, sizeof(a)),
			  render_num(rc, ev->b, c, sizeof(c)),
			  render_num(rc, BAGHCHAL_CAPTURES_TO_WIN, d, sizeof(d)));
		break;
	case BAGHCHAL_EV_END:
		switch (ev->b) {
		case BAGHCHAL_END_CAPTURES:
			render_tr(rc, out, M_BC_END_CAPTURES,
				  render_num(rc, BAGHCHAL_CAPTURES_TO_WIN, a, sizeof(a)));
			break;
		case BAGHCHAL_END_TIGERS_BLOCKED:
			sb_add(out, tr(rc->lang, M_BC_END_TIGERS_BLOCKED));
			break;
		case BAGHCHAL_END_GOATS_BLOCKED:
			sb_add(out, tr(rc->lang, M_BC_END_GOATS_BLOCKED));
			break;
		case BAGHCHAL_END_REPETITION:
			sb_add(out, tr(rc->lang, M_BC_END_REPETITION));
			break;
		case BAGHCHAL_END_CLOCK:
			render_tr(rc, out, M_BC_END_CLOCK, render_num(rc, BAGHCHAL_CLOCK_LIMIT, a, sizeof(a)));
			break;
		default:
			break;
		}
		break;
	default:
		break;
	}
}

static void render_baghchal_label(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	if (act->kind == GB_ACT_PLACE) {
		render_baghchal_point(rc, act->a, out);
	} else if (act->kind == GB_ACT_MOVE) {
		render_baghchal_point(rc, act->a, out);
		/* a capture is marked as the log marks it: a5×c3 */
		sb_add(out, is_jump(act->a, act->b) ? "×" : "→");
		render_baghchal_point(rc, act->b, out);
	}
}

/* Where point p comes on the board as drawn: rank 5 at the top, files a to e. */
static int drawn_order(int p)
{
	return (4 - p / 5) * 5 + p % 5;
}

static int action_order(const struct gb_action *a)
{
	return drawn_order(a->a) * BAGHCHAL_POINTS + (a->kind == GB_ACT_MOVE ? drawn_order(a->b) : 0);
}

static void render_baghchal_sort(struct gb_action *acts, int n)
{
	/* the buttons read like the board: row 5 first, left to right */
	for (int i = 1; i < n; i++) {
		struct gb_action x = acts[i];
		int j = i;

		while (j > 0 && action_order(&acts[j - 1]) > action_order(&x)) {
			acts[j] = acts[j - 1];
			j--;
		}
		acts[j] = x;
	}
}

static void render_baghchal_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			     struct strbuf *out)
{
	const struct baghchal *s = rc->st;
	char a[16], b[16], total[16];

	if (err == GB_EPARSE && (strcmp(verb, "move") == 0 || strcmp(verb, "place") == 0)) {
		sb_add(out, tr(rc->lang, M_BC_WHY_POINTS));
	} else if (err == GB_EPHASE && s->to_move == BAGHCHAL_GOATS && s->goats_in_hand > 0) {
		render_tr(rc, out, M_BC_WHY_PLACING, render_num(rc, BAGHCHAL_GOAT_COUNT, total, sizeof(total)),
			  render_num(rc, s->goats_in_hand, a, sizeof(a)));
	} else if (err == GB_EPHASE && s->to_move == BAGHCHAL_TIGERS && act && act->kind == GB_ACT_PLACE) {
		sb_add(out, tr(rc->lang, M_BC_WHY_TIGERS_MOVE));
	} else if (err == GB_EPHASE) {
		render_tr(rc, out, M_BC_WHY_PLACED, render_num(rc, BAGHCHAL_GOAT_COUNT, total, sizeof(total)));
	} else if (err == GB_EILLEGAL && act && act->kind == GB_ACT_PLACE) {
		render_tr(rc, out, M_BC_WHY_TAKEN, point(rc, act->a, a, sizeof(a)));
	} else if (err == GB_EILLEGAL && act && act->kind == GB_ACT_MOVE) {
		int own = s->to_move == BAGHCHAL_TIGERS ? BAGHCHAL_TIGER : BAGHCHAL_GOAT;

		if (baghchal_piece_at(s, act->a) != own && s->to_move == BAGHCHAL_TIGERS)
			render_tr(rc, out, M_BC_WHY_NO_TIGER, point(rc, act->a, a, sizeof(a)));
		else if (baghchal_piece_at(s, act->a) != own)
			render_tr(rc, out, M_BC_WHY_NO_GOAT, point(rc, act->a, a, sizeof(a)));
		else
			render_tr(rc, out, M_BC_WHY_LINE, point(rc, act->a, a, sizeof(a)), point(rc, act->b, b, sizeof(b)));
	}
}

static const struct render_game render = {
	.board = render_baghchal_board,
	.status = render_baghchal_status,
	.event = render_baghchal_event,
	.label = render_baghchal_label,
	.refusal = render_baghchal_refusal,
	.sort = render_baghchal_sort,
};

/* Bagh Chal's row (bot/render/games.h): its titles, other names, rules, sides and this renderer. */
static const char *const baghchal_aliases[] = { "bagh", "bagh-chal", NULL };
const struct bot_game baghchal_row = {
	.game = &baghchal_game,
	.title = { "Bagh Chal", "बाघचाल" },
	.aliases = baghchal_aliases,
	.rules = { "Bagh Chal: goats place all 20 goats, then move; tigers step or jump over one "
		   "goat to capture it. Tigers win with five captures; goats win by blocking all "
		   "four tigers.",
		   "बाघचाल: बाख्रा खेलाडीले पहिले बीसै बाख्रा राख्छन्, अनि सार्छन्; बाघ एक पाइला "
		   "सर्छ वा एउटा बाख्रा नाघेर खान्छ। पाँच बाख्रा खाए बाघको जित; चारै बाघ अड्काए "
		   "बाख्राको जित।" },
	.sides = { { "goats", "बाख्रा" }, { "tigers", "बाघ" } },
	.render = &render,
};
