/*
 * render_callbreak.c - Call Break as text: the table, the score sheet, a
 * player's hand, log lines. Everything is read from callbreak_view(): the
 * public view (seat -1) for what the whole chat sees, the player's own view
 * for a hand, so no renderer can leak a card (design.md).
 *
 * While a round is played the table shows one row per seat: the turn mark
 * ▸, the dealer mark (D, ब in Nepali), the name, the bid ("–" until made,
 * CB-6), tricks won, the total so far and the card the seat put on the
 * trick in progress:
 *
 *     Call Break · round 1 of 5
 *        Player       Bid Won  Total  Card
 *      D Asha           6   0    0.0
 *        Bikash         1   0    0.0  10♠
 *     ▸  Chandra Bah…   8   0    0.0
 *        Dipa           7   0    0.0
 *     ▸ to play  D dealer  – no bid yet
 *
 * (with "Last trick to Bikash: Q♠ 10♥ 2♥ 5♥" above the key between tricks).
 *
 * Between rounds and at the end the score sheet replaces the table (CB-19):
 * a row per round with each seat's bid/won and points, the totals below.
 * Scores are tenths shown with one decimal (CB-18):
 *
 *     Score sheet · round 2 of 5
 *           Asha   Bikash Chandra…     Dipa
 *     1 3/13 4.0 4/0 -4.0 2/0 -2.0 1/0 -1.0
 *     2 3/5  3.2 4/2 -4.0 8/13 8.5 1/0 -1.0
 *     ─ Total ─────────────────────────────
 *            7.2     -8.0      6.5     -2.0
 *     each round: bid/won points
 *
 * A cell is nine columns, " bid/won" then the points right-aligned, and
 * always keeps a blank between the two: 8/13 can only score 8.5 and a
 * negative score needs a one-digit trick count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/lang/i18n.h"
#include "games.h"
#include "games/callbreak.h"
#include "render.h"

#define NAME_COLS 16
#define SHEET_CELL 9  /* " 3/5  3.2": bid/won and points; never runs together */

static const int suit_keys[4] = { M_SUIT_SPADES, M_SUIT_HEARTS, M_SUIT_DIAMONDS, M_SUIT_CLUBS };

static const char *name(const struct render_ctx *rc, int seat, char *buf, size_t n)
{
	return render_name_buf(rc, seat, rc->name_cols > 0 ? rc->name_cols : NAME_COLS, buf, n);
}

void render_card(int card, struct strbuf *out)
{
	static const char *const ranks[CB_RANKS] = { "2", "3", "4", "5", "6", "7", "8",
						     "9", "10", "J", "Q", "K", "A" };

	if (card < 0 || card >= CB_CARDS) {
		sb_add(out, "?");
		return;
	}
	sb_add(out, ranks[CB_RANK(card)]);
	sb_add(out, callbreak_suit_symbol(CB_SUIT(card)));
}

static const char *card_text(int card, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	render_card(card, &sb);
	snprintf(buf, n, "%s", sb_str(&sb));
	sb_release(&sb);
	return buf;
}

/* Append the cards of a set, spades first, high to low, wrapped after prefix. */
static void add_cards(struct strbuf *out, const char *prefix, uint64_t set)
{
	char text[CB_CARDS][8];
	const char *items[CB_CARDS];
	int n = 0;

	for (int suit = 0; suit < 4; suit++)
		for (int rank = CB_RANKS - 1; rank >= 0; rank--)
			if (set & CB_BIT(CB_CARD(suit, rank))) {
				card_text(CB_CARD(suit, rank), text[n], sizeof(text[n]));
				items[n] = text[n];
				n++;
			}
	render_add_wrapped(out, prefix, items, n);
}

/* ---- the table ---- */

static void add_table(const struct render_ctx *rc, const struct callbreak_view *v, struct strbuf *out)
{
	char a[16], b[16];

	sb_add(out, "   ");
	render_add_fit(out, tr(rc->lang, M_CB_COL_PLAYER), 12, true);
	render_add_right(out, tr(rc->lang, M_CB_COL_BID), 4);
	render_add_right(out, tr(rc->lang, M_CB_COL_WON), 4);
	render_add_right(out, tr(rc->lang, M_CB_COL_TOTAL), 7);
	sb_add(out, "  ");
	sb_add(out, tr(rc->lang, M_CB_COL_CARD));
	render_newline(out);
	for (int s = 0; s < CB_SEATS; s++) {
		struct strbuf total = { 0 };
		int card = -1;

		for (int i = 0; i < v->ntrick && i < CB_SEATS; i++)
			if ((v->leader + i) % CB_SEATS == s)
				card = v->trick[i];
		sb_add(out, s == v->turn ? "▸" : " ");
		if (s == v->dealer)
			render_add_fit(out, tr(rc->lang, M_CB_DEALER_MARK), 1, true);
		else
			sb_add(out, " ");
		sb_add(out, " ");
		render_name(rc, s, 12, out);
		render_pad_to(out, 15);
		render_add_right(out, v->bid[s] > 0 ? render_num(rc, v->bid[s], a, sizeof(a)) : "–", 4);
		render_add_right(out, render_num(rc, v->tricks[s], b, sizeof(b)), 4);
		render_tenths(rc, v->total[s], &total);
		render_add_right(out, sb_str(&total), 7);
		sb_release(&total);
		if (card >= 0) {
			sb_add(out, "  ");
			render_card(card, out);
		}
		render_newline(out);
	}
	if (v->ntrick == 0 && v->last_winner >= 0 && v->phase == CB_PHASE_PLAY) {
		struct strbuf prefix = { 0 };
		char nm[RENDER_NAME_BUF];

		render_tr(rc, &prefix, M_CB_LAST_TRICK, render_name_buf(rc, v->last_winner, 12, nm, sizeof(nm)));
		{
			char text[CB_SEATS][8];
			const char *items[CB_SEATS];
			int n = 0;

			for (int i = 0; i < CB_SEATS; i++)
				if (v->last_trick[i] >= 0) {
					card_text(v->last_trick[i], text[n], sizeof(text[n]));
					items[n] = text[n];
					n++;
				}
			render_add_wrapped(out, sb_str(&prefix), items, n);
		}
		sb_release(&prefix);
	}
	sb_add(out, tr(rc->lang, M_CB_KEY));
	render_newline(out);
}

/* ---- the score sheet ---- */

static void add_sheet_cell(const struct render_ctx *rc, const struct cb_line *l, struct strbuf *out)
{
	struct strbuf cell = { 0 }, pts = { 0 };
	char a[16], b[16];

	sb_add(&cell, " ");
	sb_add(&cell, render_num(rc, l->bid, a, sizeof(a)));
	sb_add(&cell, "/");
	sb_add(&cell, render_num(rc, l->tricks, b, sizeof(b)));
	render_tenths(rc, l->points, &pts);
	/* at least one blank between bid/won and the points */
	for (int w = render_width(sb_str(&cell)) + 1 + render_width(sb_str(&pts)); w < SHEET_CELL; w++)
		sb_add(&cell, " ");
	sb_add(&cell, " ");
	sb_add(&cell, sb_str(&pts));
	sb_add(out, sb_str(&cell));
	sb_release(&cell);
	sb_release(&pts);
}

static void add_sheet(const struct render_ctx *rc, const struct callbreak_view *v, struct strbuf *out)
{
	char a[16];
	int nhist = v->nhist < CB_MAX_ROUNDS ? v->nhist : CB_MAX_ROUNDS;

	sb_add(out, " ");
	for (int s = 0; s < CB_SEATS; s++) {
		struct strbuf nm = { 0 };

		render_name(rc, s, SHEET_CELL - 1, &nm);
		render_add_right(out, sb_str(&nm), SHEET_CELL);
		sb_release(&nm);
	}
	render_newline(out);
	for (int r = 0; r < nhist; r++) {
		render_add_right(out, render_num(rc, r + 1, a, sizeof(a)), 1);
		for (int s = 0; s < CB_SEATS; s++)
			add_sheet_cell(rc, &v->hist[r][s], out);
		render_newline(out);
	}
	sb_add(out, "─ ");
	sb_add(out, tr(rc->lang, M_CB_SHEET_TOTAL));
	sb_add(out, " ");
	while (render_line_cols(out) < 1 + CB_SEATS * SHEET_CELL)
		sb_add(out, "─");
	render_newline(out);
	sb_add(out, " ");
	for (int s = 0; s < CB_SEATS; s++) {
		struct strbuf t = { 0 };

		render_tenths(rc, v->total[s], &t);
		render_add_right(out, sb_str(&t), SHEET_CELL);
		sb_release(&t);
	}
	render_newline(out);
	sb_add(out, tr(rc->lang, M_CB_SHEET_KEY));
	render_newline(out);
}

static void render_callbreak_board(const struct render_ctx *rc, struct strbuf *out)
{
	struct callbreak_view v;
	char a[16], b[16];

	callbreak_view(rc->st, -1, &v);
	render_num(rc, v.round, a, sizeof(a));
	render_num(rc, v.rounds, b, sizeof(b));
	if (v.phase == CB_PHASE_GAME_OVER) {
		sb_add(out, tr(rc->lang, M_CB_SHEET_FINAL));
		render_newline(out);
		add_sheet(rc, &v, out);
	} else if (v.phase == CB_PHASE_ROUND_OVER) {
		render_tr(rc, out, M_CB_SHEET, a, b);
		render_newline(out);
		add_sheet(rc, &v, out);
	} else {
		sb_add(out, bot_game_title(rc->game, rc->lang));
		sb_add(out, " · ");
		render_tr(rc, out, M_CB_ROUND, a, b);
		render_newline(out);
		add_table(rc, &v, out);
	}
}

static void render_callbreak_status(const struct render_ctx *rc, struct strbuf *out)
{
	struct callbreak_view v;
	char who[RENDER_NAME_BUF];

	callbreak_view(rc->st, -1, &v);
	switch (v.phase) {
	case CB_PHASE_BID:
		render_tr(rc, out, M_CB_ST_BID, name(rc, v.turn, who, sizeof(who)));
		break;
	case CB_PHASE_PLAY:
		name(rc, v.turn, who, sizeof(who));
		if (v.ntrick == 0 || v.trick[0] < 0)
			render_tr(rc, out, M_CB_ST_LEAD, who);
		else
			render_tr(rc, out, M_CB_ST_PLAY, who, tr(rc->lang, suit_keys[CB_SUIT(v.trick[0])]));
		break;
	case CB_PHASE_ROUND_OVER:
		sb_add(out, tr(rc->lang, M_CB_ST_ROUND_OVER));
		break;
	default:
		render_tr(rc, out, M_ST_OVER_WINNER, name(rc, v.winner, who, sizeof(who)));
		break;
	}
}

static void render_callbreak_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	struct callbreak_view v;
	struct strbuf t = { 0 };
	char who[RENDER_NAME_BUF], a[16], card[8];

	name(rc, ev->seat, who, sizeof(who));
	switch (ev->type) {
	case CB_EV_BID:
		render_tr(rc, out, M_CB_EV_BID, who, render_num(rc, ev->a, a, sizeof(a)));
		break;
	case CB_EV_PLAY:
		render_tr(rc, out, M_CB_EV_PLAY, who, card_text(ev->a, card, sizeof(card)));
		break;
	case CB_EV_TRICK:
		render_tr(rc, out, M_CB_EV_TRICK, who, card_text(ev->b, card, sizeof(card)));
		break;
	case CB_EV_ROUND_OVER:
		render_tr(rc, out, M_CB_EV_ROUND_OVER, render_num(rc, ev->a, a, sizeof(a)));
		break;
	case CB_EV_DEAL:
		render_tr(rc, out, M_CB_EV_DEAL, render_num(rc, ev->a, a, sizeof(a)), who);
		break;
	case CB_EV_GAME_OVER:
		if (ev->a) {
			render_tr(rc, out, M_CB_EV_GAME_TIE, who);
		} else {
			callbreak_view(rc->st, -1, &v);
			if (ev->seat >= 0 && ev->seat < CB_SEATS)
				render_tenths(rc, v.total[ev->seat], &t);
			render_tr(rc, out, M_CB_EV_GAME_OVER, who, sb_str(&t));
		}
		break;
	case CB_EV_SCORE: /* the score sheet shows it */
	case CB_EV_NEXT:
	default:
		break;
	}
	sb_release(&t);
}

static void render_callbreak_label(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	char a[16];

	switch (act->kind) {
	case GB_ACT_BID:
		render_tr(rc, out, M_CB_BTN_BID, render_num(rc, act->a, a, sizeof(a)));
		break;
	case GB_ACT_PLAY:
		render_card(act->a, out);
		break;
	case GB_ACT_NEXT:
		sb_add(out, tr(rc->lang, M_BTN_NEXT));
		break;
	default:
		break;
	}
}

/* ---- a hand ---- */

static void render_callbreak_hand(const struct render_ctx *rc, int seat, struct strbuf *out)
{
	struct callbreak_view v;
	char who[RENDER_NAME_BUF], a[16], b[16];
	int held, widest = 0;

	if (seat < 0 || seat >= CB_SEATS)
		return;
	callbreak_view(rc->st, seat, &v);
	held = v.held[seat];
	render_tr(rc, out, M_CB_HAND_HEAD, render_name_buf(rc, seat, 16, who, sizeof(who)),
		  render_num(rc, held, a, sizeof(a)));
	render_newline(out);
	if (!v.hand) {
		sb_add(out, tr(rc->lang, M_CB_HAND_EMPTY));
		render_newline(out);
		return;
	}
	for (int suit = 0; suit < 4; suit++) {
		int w = render_width(tr(rc->lang, suit_keys[suit]));

		widest = w > widest ? w : widest;
	}
	for (int suit = 0; suit < 4; suit++) {
		struct strbuf prefix = { 0 };
		uint64_t cards = v.hand & CB_SUIT_MASK(suit);

		if (!cards)
			continue;
		render_add_fit(&prefix, tr(rc->lang, suit_keys[suit]), widest, true);
		add_cards(out, sb_str(&prefix), cards);
		sb_release(&prefix);
	}
	if (v.phase == CB_PHASE_BID && v.turn == seat) {
		render_tr(rc, out, M_CB_HAND_BID, render_num(rc, CB_MIN_BID, a, sizeof(a)),
			  render_num(rc, CB_MAX_BID, b, sizeof(b)));
		render_newline(out);
	} else if (v.legal) {
		struct strbuf prefix = { 0 };

		render_tr(rc, &prefix, M_CB_HAND_PLAYABLE, "");
		/* the format ends with the list: drop a trailing blank it leaves */
		while (prefix.len && prefix.buf[prefix.len - 1] == ' ')
			prefix.buf[--prefix.len] = '\0';
		add_cards(out, sb_str(&prefix), v.legal);
		sb_release(&prefix);
	}
}

static void render_callbreak_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			      struct strbuf *out)
{
	struct callbreak_view v;
	char a[16], b[16], card[8];
	int turn = rc->game->turn(rc->st);

	callbreak_view(rc->st, turn, &v);
	if (act && act->kind == GB_ACT_BID && (act->a < CB_MIN_BID || act->a > CB_MAX_BID)) {
		render_tr(rc, out, M_CB_WHY_BID, render_num(rc, CB_MIN_BID, a, sizeof(a)),
			  render_num(rc, CB_MAX_BID, b, sizeof(b)));
	} else if (err == GB_EPARSE && strcmp(verb, "bid") == 0) {
		render_tr(rc, out, M_CB_WHY_BID, render_num(rc, CB_MIN_BID, a, sizeof(a)),
			  render_num(rc, CB_MAX_BID, b, sizeof(b)));
	} else if (err == GB_EPARSE && strcmp(verb, "play") == 0) {
		sb_add(out, tr(rc->lang, M_CB_WHY_CARD));
	} else if (err == GB_EPHASE && v.phase == CB_PHASE_BID) {
		sb_add(out, tr(rc->lang, M_CB_WHY_BIDDING));
	} else if (err == GB_EPHASE && v.phase == CB_PHASE_PLAY && act && act->kind == GB_ACT_BID) {
		sb_add(out, tr(rc->lang, M_CB_WHY_PLAYING));
	} else if (err == GB_EPHASE && v.phase == CB_PHASE_PLAY) {
		sb_add(out, tr(rc->lang, M_CB_WHY_ROUND));
	} else if (err == GB_EPHASE && v.phase == CB_PHASE_ROUND_OVER) {
		sb_add(out, tr(rc->lang, M_CB_WHY_NEXT));
	} else if (err == GB_EILLEGAL && act && act->kind == GB_ACT_PLAY && act->a >= 0 && act->a < CB_CARDS) {
		int led = v.ntrick > 0 && v.trick[0] >= 0 ? CB_SUIT(v.trick[0]) : -1;

		card_text(act->a, card, sizeof(card));
		if (!(v.hand & CB_BIT(act->a)))
			render_tr(rc, out, M_CB_WHY_NOT_HELD, card);
		else if (led >= 0 && (v.legal & CB_SUIT_MASK(led)) && CB_SUIT(act->a) != led)
			render_tr(rc, out, M_CB_WHY_FOLLOW, callbreak_suit_symbol(led));
		else if (led >= 0 && CB_SUIT(act->a) == led)
			render_tr(rc, out, M_CB_WHY_BEAT, callbreak_suit_symbol(led));
		else if (led >= 0 && (v.legal & CB_SUIT_MASK(0)))
			render_tr(rc, out, M_CB_WHY_TRUMP, callbreak_suit_symbol(led), callbreak_suit_symbol(0));
	}
}

/*
 * The hand's order as one number: cards by suit, spades first, each suit
 * high to low; anything else (a bid, the next round) before the cards, by
 * kind and value, so the list is the same however qsort() orders ties.
 */
static int hand_key(const struct gb_action *a)
{
	if (a->kind == GB_ACT_PLAY)
		return 100000 + CB_SUIT(a->a) * 16 + (15 - CB_RANK(a->a));
	return a->kind * 1000 + a->a;
}

static int hand_order(const void *x, const void *y)
{
	int ka = hand_key(x), kb = hand_key(y);

	return ka < kb ? -1 : ka > kb ? 1 : 0;
}

static void render_callbreak_sort(struct gb_action *acts, int n)
{
	if (n > 1)
		qsort(acts, (size_t)n, sizeof(acts[0]), hand_order);
}

/* A card played, as replies name it: by the card the table shows ("/play Q♠"). */
static void render_callbreak_command(const struct render_ctx *rc, const struct gb_action *act,
				     struct strbuf *out)
{
	(void)rc;
	if (act->kind != GB_ACT_PLAY)
		return;
	sb_add(out, "/play ");
	render_card(act->a, out);
}

static const struct render_game render = {
	.board = render_callbreak_board,
	.status = render_callbreak_status,
	.event = render_callbreak_event,
	.label = render_callbreak_label,
	.refusal = render_callbreak_refusal,
	.hand = render_callbreak_hand,
	.sort = render_callbreak_sort,
	.command = render_callbreak_command,
};

/* Call Break's row (bot/render/games.h): its titles, other names, rules, sides and this renderer. */
static const char *const callbreak_aliases[] = { "call", "call-break", NULL };
const struct bot_game callbreak_row = {
	.game = &callbreak_game,
	.title = { "Call Break", "कल ब्रेक" },
	.aliases = callbreak_aliases,
	.rules = { "Call Break: bid 1 to 8 tricks, follow suit, beat the trick if you can, trump "
		   "with spades when void. Make your bid to score it (+0.1 per extra trick); fall "
		   "short and lose it.",
		   "कल ब्रेक: १ देखि ८ हातसम्म कल गर्नुहोस्, रङ पछ्याउनुहोस्, सके जित्नुहोस्, रङ "
		   "सकिए हुकुमले तुरुप काट्नुहोस्। कल पुगे कलजति अंक (बढी हात एकको ०.१); नपुगे पूरै "
		   "कल घट्छ।" },
	.render = &render,
};
