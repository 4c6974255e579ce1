/*
 * render_ludo.c - Ludo as text.
 *
 * The board is the usual 15x15 cross, two columns a square (29 columns,
 * trailing blanks dropped). The ring runs clockwise; corner 0's start
 * square is on the left arm, corner 1's on the top arm, and so on, each
 * seat's yard in the corner before its start square. Every token on the
 * board is seen and whose it is told (see add_cell):
 *
 *     ·   a ring square          *   a star (safe, LU-3)
 *     ▫   a home-column square   ①-④ where the mover's token 1-4 would land
 *     1-4 the tokens of the seat to move (what /move N names)
 *     A-D other seats' tokens (क-घ in Nepali)
 *     B²  two tokens of B on one square; 2B one of the mover's and one of B
 *     +³  three tokens of several seats, spelt out below the board
 *     ■²  two of the seat's tokens in the centre (the square facing its column)
 *
 * A seat's yard holds its mark, its name and the tokens still in base; the
 * centre square facing each home column shows how many tokens arrived.
 * Below: one line per seat (tokens in base and in the centre) and a key.
 *
 *     Ludo
 *                 · · ·
 *      A Asha     · ▫ *  B Bikash
 *                 * ▫ ·
 *       1 2 3 4   · ▫ ·   B B B B
 *                 · ▫ ·
 *                 · ▫ ·
 *     · * · · · ·       · · · * · ·
 *     · ▫ ▫ ▫ ▫ ▫       ▫ ▫ ▫ ▫ ▫ ·
 *     · · * · · ·       · · · · * ·
 *                 · ▫ ·
 *      D Dipa     · ▫ ·  C Chandra…
 *                 · ▫ ·
 *       D D D D   · ▫ *   C C C C
 *                 * ▫ ·
 *                 · · ·
 *     ▸ A Asha           base 4 · centre 0
 *     ...
 *     * star (safe)  ○ can reach
 *     1–4: tokens of Asha
 */
#include <string.h>

#include "bot/lang/i18n.h"
#include "games.h"
#include "games/ludo.h"
#include "render.h"

#define N 15          /* squares per side */
#define YARD_COLS 12  /* a yard is six squares of two columns */
#define NAME_COLS 16

enum cell_kind { C_NONE = 0, C_RING, C_HOME, C_CENTRE };

struct cell {
	unsigned char kind;   /* enum cell_kind */
	signed char corner;   /* C_HOME, C_CENTRE: whose */
	unsigned char index;  /* C_RING: ring square; C_HOME: route position 52..56 */
};

/* Ring squares 0..12 of corner 0 (the rest are these turned by quarters). */
static const unsigned char quarter[LUDO_SIDE][2] = {
	{ 6, 1 }, { 6, 2 }, { 6, 3 }, { 6, 4 }, { 6, 5 }, { 5, 6 }, { 4, 6 },
	{ 3, 6 }, { 2, 6 }, { 1, 6 }, { 0, 6 }, { 0, 7 }, { 0, 8 },
};

/* Turn (r, c) a quarter clockwise q times. */
static void turn_rc(int q, int *r, int *c)
{
	for (int i = 0; i < q; i++) {
		int t = *r;

		*r = *c;
		*c = N - 1 - t;
	}
}

static void build_grid(struct cell grid[N][N])
{
	memset(grid, 0, sizeof(struct cell) * N * N);
	for (int q = 0; q < 4; q++) {
		for (int k = 0; k < LUDO_SIDE; k++) {
			int r = quarter[k][0], c = quarter[k][1];

			turn_rc(q, &r, &c);
			grid[r][c] = (struct cell){ C_RING, -1, (unsigned char)(q * LUDO_SIDE + k) };
		}
		for (int p = LUDO_HOME_FIRST; p < LUDO_CENTRE; p++) {
			int r = 7, c = p - LUDO_HOME_FIRST + 1;

			turn_rc(q, &r, &c);
			grid[r][c] = (struct cell){ C_HOME, (signed char)q, (unsigned char)p };
		}
		{
			int r = 7, c = 6;

			turn_rc(q, &r, &c);
			grid[r][c] = (struct cell){ C_CENTRE, (signed char)q, 0 };
		}
	}
}

static int name_cols(const struct render_ctx *rc, int def)
{
	return rc->name_cols > 0 ? rc->name_cols : def;
}

static const char *name(const struct render_ctx *rc, int seat, char *buf, size_t n)
{
	return render_name_buf(rc, seat, name_cols(rc, NAME_COLS), buf, n);
}

static const int marks[GB_MAX_SEATS] = { M_MARK_1, M_MARK_2, M_MARK_3, M_MARK_4 };

/* The seat sitting at corner c, or -1. */
static int seat_at(const struct ludo *lu, int c)
{
	for (int s = 0; s < lu->players && s < GB_MAX_SEATS; s++)
		if (lu->corner[s] == c)
			return s;
	return -1;
}

/* The seat to move while the game runs, else -1. */
static int mover(const struct ludo *lu)
{
	return lu->winner < 0 ? lu->seat : -1;
}

/* Append a token's glyph: the mover's token number, else the seat's mark. */
static void add_token(const struct render_ctx *rc, const struct ludo *lu, int seat, int token,
		      struct strbuf *out)
{
	if (seat == mover(lu))
		render_int(rc, token + 1, out);
	else
		render_add_fit(out, tr(rc->lang, marks[seat]), 1, true);
}

/* The mover's tokens at route position p (seat s), "1+3"; how many. */
static int stack_text(const struct render_ctx *rc, const struct ludo *lu, int s, int p, struct strbuf *out)
{
	int n = 0;

	for (int t = 0; t < LUDO_TOKENS; t++) {
		if (lu->pos[s][t] != p)
			continue;
		if (n++)
			sb_add(out, "+");
		render_int(rc, t + 1, out);
	}
	return n;
}

/* Counts beside a mark: "B²" is two tokens of B on one square, "■³" three in the centre. */
static const char *const sup[10] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
/* Where the mover's token 1..4 would land with the die waiting. */
static const char *const circled[LUDO_TOKENS] = { "①", "②", "③", "④" };

/* Does the mover's token t land on this square with the die waiting? */
static bool lands_here(const struct ludo *lu, int t, const struct cell *cl)
{
	int s = mover(lu), p;

	if (s < 0 || lu->phase != LUDO_PHASE_MOVE)
		return false;
	p = ludo_target(lu, t, lu->die);
	if (p < 0)
		return false;
	if (cl->kind == C_RING)
		return p <= LUDO_LAST_RING && ludo_ring_square(lu->corner[s], p) == cl->index;
	if (cl->kind == C_HOME)
		return cl->corner == lu->corner[s] && p == cl->index;
	return cl->kind == C_CENTRE && cl->corner == lu->corner[s] && p == LUDO_CENTRE;
}

/* The lowest token of the mover landing on this square, or -1. */
static int landing(const struct ludo *lu, const struct cell *cl)
{
	for (int t = 0; t < LUDO_TOKENS; t++)
		if (lands_here(lu, t, cl))
			return t;
	return -1;
}

/* Is seat s's token t on this ring or home-column square? */
static bool token_here(const struct ludo *lu, int s, int t, const struct cell *cl)
{
	int p = lu->pos[s][t];

	if (cl->kind == C_RING)
		return p >= 1 && p <= LUDO_LAST_RING && ludo_ring_square(lu->corner[s], p) == cl->index;
	return cl->kind == C_HOME && lu->corner[s] == cl->corner && p == cl->index;
}

/*
 * One square: exactly two columns, so that every token is seen and whose it
 * is. A lone token is its glyph ("2", "B"); tokens of one seat together are
 * its glyph and their count ("B²"); one token each of two seats (on a star)
 * both glyphs ("2B"); more than that a "+" and the count, spelt out in a
 * note below the board. The second column marks where the mover's token
 * would land ("B②": token 2 lands on B); an empty square shows the landing
 * token alone ("③"), a star, or the plain square.
 */
static void add_cell(const struct render_ctx *rc, const struct ludo *lu, const struct cell *cl,
		     struct strbuf *out, struct strbuf *notes)
{
	int count[GB_MAX_SEATS] = { 0 }, low[GB_MAX_SEATS], seats = 0, total = 0, first = -1, second = -1;
	int dest = landing(lu, cl);

	if (cl->kind == C_NONE) {
		sb_add(out, "  ");
		return;
	}
	if (cl->kind == C_CENTRE) {
		int seat = seat_at(lu, cl->corner), n = seat >= 0 ? ludo_home_count(lu, seat) : 0;

		if (n > 0) {
			sb_add(out, "■");
			sb_add(out, sup[n]);
		} else {
			sb_add(out, dest >= 0 ? circled[dest] : " ");
			sb_add(out, " ");
		}
		return;
	}
	for (int s = 0; s < lu->players && s < GB_MAX_SEATS; s++) {
		low[s] = -1;
		for (int t = LUDO_TOKENS - 1; t >= 0; t--)
			if (token_here(lu, s, t, cl)) {
				count[s]++;
				low[s] = t;
			}
		if (count[s]) {
			seats++;
			total += count[s];
			if (first < 0)
				first = s;
			else if (second < 0)
				second = s;
		}
	}
	if (seats == 0) {
		sb_add(out, dest >= 0 ? circled[dest] : cl->kind == C_HOME ? "▫" : ludo_ring_is_star(cl->index) ? "*" : "·");
		sb_add(out, " ");
	} else if (seats == 1) {
		add_token(rc, lu, first, low[first], out);
		sb_add(out, count[first] > 1 ? sup[count[first]] : dest >= 0 ? circled[dest] : " ");
		if (count[first] > 1 && first == mover(lu)) {
			/* the mover's stack says which tokens it holds: "1²: 1+3" */
			add_token(rc, lu, first, low[first], notes);
			sb_add(notes, sup[count[first]]);
			sb_add(notes, ": ");
			stack_text(rc, lu, first, lu->pos[first][low[first]], notes);
			sb_add(notes, "\n");
		}
	} else if (seats == 2 && total == 2) {
		add_token(rc, lu, first, low[first], out);
		add_token(rc, lu, second, low[second], out);
	} else {
		sb_add(out, "+");
		sb_add(out, sup[total < 10 ? total : 9]);
		/* the note: "+³: A² B" */
		sb_add(notes, "+");
		sb_add(notes, sup[total < 10 ? total : 9]);
		sb_add(notes, ":");
		for (int s = 0; s < lu->players && s < GB_MAX_SEATS; s++)
			if (count[s]) {
				sb_add(notes, " ");
				add_token(rc, lu, s, low[s], notes);
				if (count[s] > 1)
					sb_add(notes, sup[count[s]]);
			}
		sb_add(notes, "\n");
	}
}

/* One row (0..5) of the yard of corner c, exactly YARD_COLS columns. */
static void add_yard_row(const struct render_ctx *rc, const struct ludo *lu, int c, int row,
			 struct strbuf *out)
{
	int seat = seat_at(lu, c), start = render_line_cols(out);

	if (seat >= 0 && row == 1) {
		sb_add(out, " ");
		render_add_fit(out, tr(rc->lang, marks[seat]), 1, true);
		sb_add(out, " ");
		render_name(rc, seat, YARD_COLS - 4, out);
	} else if (seat >= 0 && row == 3) {
		sb_add(out, "  ");
		for (int t = 0; t < LUDO_TOKENS; t++) {
			if (lu->pos[seat][t] == 0)
				add_token(rc, lu, seat, t, out);
			else
				sb_add(out, " ");
			sb_add(out, " ");
		}
	}
	render_pad_to(out, start + YARD_COLS);
}

static void render_ludo_board(const struct render_ctx *rc, struct strbuf *out)
{
	const struct ludo *lu = rc->st;
	struct cell grid[N][N];
	int who = mover(lu);
	char a[16], b[16], nm[RENDER_NAME_BUF];
	struct strbuf notes = { 0 };

	build_grid(grid);
	sb_add(out, bot_game_title(rc->game, rc->lang));
	render_newline(out);
	for (int r = 0; r < N; r++) {
		for (int c = 0; c < N; c++) {
			bool top = r < 6, left = c < 6, right = c > 8, bottom = r > 8;

			if ((top || bottom) && (left || right)) {
				/* a yard: corner 0 top left, then clockwise */
				int corner = top ? (left ? 0 : 1) : (right ? 2 : 3);

				add_yard_row(rc, lu, corner, top ? r : r - 9, out);
				c += 5;
				continue;
			}
			add_cell(rc, lu, &grid[r][c], out, &notes);
		}
		render_newline(out);
	}
	for (int s = 0; s < lu->players && s < GB_MAX_SEATS; s++) {
		int base = 0;

		for (int t = 0; t < LUDO_TOKENS; t++)
			base += lu->pos[s][t] == 0;
		sb_add(out, s == who ? "▸ " : "  ");
		render_add_fit(out, tr(rc->lang, marks[s]), 1, true);
		sb_add(out, " ");
		render_name(rc, s, 14, out);
		render_pad_to(out, 19);
		render_tr(rc, out, M_LU_COUNTS, render_num(rc, base, a, sizeof(a)),
			  render_num(rc, ludo_home_count(lu, s), b, sizeof(b)));
		render_newline(out);
	}
	sb_add(out, sb_str(&notes));
	sb_release(&notes);
	sb_add(out, tr(rc->lang, M_LU_KEY));
	render_newline(out);
	if (who >= 0) {
		char one[16], four[16];

		render_tr(rc, out, M_LU_KEY_DIGITS, render_num(rc, 1, one, sizeof(one)),
			  render_num(rc, LUDO_TOKENS, four, sizeof(four)),
			  render_name_buf(rc, who, 16, nm, sizeof(nm)));
		render_newline(out);
		if (lu->phase == LUDO_PHASE_MOVE) {
			sb_add(out, tr(rc->lang, M_LU_KEY_LANDS));
			render_newline(out);
		}
	}
}

static void render_ludo_status(const struct render_ctx *rc, struct strbuf *out)
{
	const struct ludo *lu = rc->st;
	char who[RENDER_NAME_BUF], a[16], b[16];
	bool on_route = false;

	if (lu->winner >= 0) {
		render_tr(rc, out, M_ST_OVER_WINNER, name(rc, lu->winner, who, sizeof(who)));
		return;
	}
	name(rc, lu->seat, who, sizeof(who));
	if (lu->phase == LUDO_PHASE_MOVE) {
		render_tr(rc, out, M_LU_ST_CHOOSE, who, render_num(rc, lu->die, a, sizeof(a)));
		return;
	}
	for (int t = 0; t < LUDO_TOKENS; t++)
		if (lu->pos[lu->seat][t] > 0 && lu->pos[lu->seat][t] < LUDO_CENTRE)
			on_route = true;
	if (!on_route && ludo_rule_on(lu, LUDO_RULE_ONE_RELEASES))
		render_tr(rc, out, M_LU_ST_NEEDS_ONE, who, render_num(rc, 1, a, sizeof(a)),
			  render_num(rc, 6, b, sizeof(b)));
	else if (!on_route)
		render_tr(rc, out, M_LU_ST_NEEDS_SIX, who, render_num(rc, 6, a, sizeof(a)));
	else if (lu->sixes > 0)
		render_tr(rc, out, M_ST_ROLL_AGAIN, who);
	else
		render_tr(rc, out, M_ST_ROLL, who);
}

static void render_ludo_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	static const int extra[] = { M_LU_EV_EXTRA_CAPTURE, M_LU_EV_EXTRA_CENTRE, M_LU_EV_EXTRA_SIX };
	char who[RENDER_NAME_BUF], other[RENDER_NAME_BUF], a[16], b[16];

	name(rc, ev->seat, who, sizeof(who));
	switch (ev->type) {
	case LUDO_EV_ROLL:
		render_tr(rc, out, M_EV_ROLLED, who, render_num(rc, ev->a, a, sizeof(a)));
		break;
	case LUDO_EV_MOVE:
	case LUDO_EV_AUTOMOVE:
		render_num(rc, ev->a + 1, a, sizeof(a));
		if (ev->b == 0)
			render_tr(rc, out, M_LU_EV_OUT, who, a);
		else if (ev->c == LUDO_CENTRE)
			render_tr(rc, out, M_LU_EV_HOME, who, a);
		else
			render_tr(rc, out, M_LU_EV_MOVE, who, a, render_num(rc, ev->c - ev->b, b, sizeof(b)));
		break;
	case LUDO_EV_CAPTURE:
		name(rc, ev->a, other, sizeof(other));
		if (ev->b > 1)
			render_tr(rc, out, M_LU_EV_CAPTURE_N, who, render_num(rc, ev->b, a, sizeof(a)), other);
		else
			render_tr(rc, out, M_LU_EV_CAPTURE, who, other);
		break;
	case LUDO_EV_EXTRA:
		if (ev->a >= 0 && ev->a < (int)(sizeof(extra) / sizeof(extra[0])))
			render_tr(rc, out, msg_any(extra[ev->a], "%s"), who);
		break;
	case LUDO_EV_WASTED:
		render_tr(rc, out, M_LU_EV_WASTED, who, render_num(rc, ev->a, a, sizeof(a)));
		break;
	case LUDO_EV_THIRD_SIX:
		render_tr(rc, out, M_LU_EV_THIRD_SIX, who);
		break;
	case LUDO_EV_WIN:
		render_tr(rc, out, M_WINNER, who);
		break;
	case LUDO_EV_CENTRE: /* the move's own line already says so */
	default:
		break;
	}
}

/* How many of seat s's tokens are still in the yard. */
static int yard_count(const struct ludo *lu, int s)
{
	int n = 0;

	for (int t = 0; t < LUDO_TOKENS; t++)
		n += lu->pos[s][t] == 0;
	return n;
}

static bool render_ludo_shown(const struct render_ctx *rc, const struct gb_action *act)
{
	const struct ludo *lu = rc->st;
	int choice[LUDO_TOKENS], n;

	if (act->kind != GB_ACT_MOVE || lu->phase != LUDO_PHASE_MOVE)
		return true;
	/* tokens on one square (or in the yard) move alike: one button, the lowest token's */
	n = ludo_choices(lu, lu->die, choice);
	for (int i = 0; i < n; i++)
		if (choice[i] == act->a)
			return true;
	return false;
}

static void render_ludo_label(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	const struct ludo *lu = rc->st;
	struct strbuf a = { 0 };
	int to, from;

	if (act->kind == GB_ACT_ROLL) {
		sb_add(out, tr(rc->lang, M_BTN_ROLL));
		return;
	}
	if (act->kind != GB_ACT_MOVE || act->a < 0 || act->a >= LUDO_TOKENS || lu->seat >= GB_MAX_SEATS)
		return;
	to = lu->phase == LUDO_PHASE_MOVE ? ludo_target(lu, act->a, lu->die) : -1;
	from = lu->pos[lu->seat][act->a];
	render_int(rc, act->a + 1, &a);
	if (from > 0 && from < LUDO_CENTRE) {
		struct strbuf stack = { 0 };

		/* a stack: which tokens it holds, "Token 1 (1+3)" */
		if (stack_text(rc, lu, lu->seat, from, &stack) > 1) {
			sb_add(&a, " (");
			sb_add(&a, sb_str(&stack));
			sb_add(&a, ")");
		}
		sb_release(&stack);
	}
	/* where it lands, as the board marks it (the circled number of the token) */
	if (to < 0)
		render_tr(rc, out, M_LU_BTN_MOVE, sb_str(&a), "?");
	else if (from == 0 && yard_count(lu, lu->seat) > 1)
		render_tr(rc, out, M_LU_BTN_OUT_ANY, circled[act->a]);
	else if (from == 0)
		render_tr(rc, out, M_LU_BTN_OUT, sb_str(&a), circled[act->a]);
	else if (to == LUDO_CENTRE)
		render_tr(rc, out, M_LU_BTN_CENTRE, sb_str(&a));
	else
		render_tr(rc, out, M_LU_BTN_MOVE, sb_str(&a), circled[act->a]);
	sb_release(&a);
}

static void render_ludo_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			 struct strbuf *out)
{
	const struct ludo *lu = rc->st;
	char a[16], b[16];

	if (err == GB_EPARSE && strcmp(verb, "move") == 0) {
		render_tr(rc, out, M_LU_WHY_TOKEN, render_num(rc, 1, a, sizeof(a)),
			  render_num(rc, LUDO_TOKENS, b, sizeof(b)));
	} else if (err == GB_EPHASE && lu->phase == LUDO_PHASE_MOVE) {
		render_tr(rc, out, M_LU_WHY_CHOOSE, render_num(rc, lu->die, a, sizeof(a)));
	} else if (err == GB_EPHASE) {
		sb_add(out, tr(rc->lang, M_LU_WHY_ROLL));
	} else if (err == GB_EILLEGAL && act && act->kind == GB_ACT_MOVE && lu->phase == LUDO_PHASE_MOVE) {
		render_tr(rc, out, M_LU_WHY_CANT, render_num(rc, act->a + 1, a, sizeof(a)),
			  render_num(rc, lu->die, b, sizeof(b)));
	}
}

static const struct render_game render = {
	.board = render_ludo_board,
	.status = render_ludo_status,
	.event = render_ludo_event,
	.label = render_ludo_label,
	.refusal = render_ludo_refusal,
	.shown = render_ludo_shown,
};

/* Ludo's row (bot/render/games.h): its titles, other names, rules, sides and this renderer. */
const struct bot_game ludo_row = {
	.game = &ludo_game,
	.title = { "Ludo", "लुडो" },
	.rules = { "Ludo: a six brings a token out; move all four tokens round the board into the "
		   "centre. Landing on an opponent (not on a star) sends it back to its base. A six, "
		   "a capture or reaching the centre gives another roll; a third six in a row ends "
		   "the turn.",
		   "लुडो: छक्काले गोटी खोरबाट निकाल्छ; चारै गोटी घेरा घुमाएर बीचमा पुर्याउनुहोस्। "
		   "अर्काको गोटी उभिएको कोठामा (तारामा बाहेक) पुगे त्यो गोटी खोरमा फर्किन्छ। छक्का, "
		   "गोटी काट्नु वा बीचमा पुग्नुले फेरि पालो दिन्छ; लगातार तेस्रो छक्कामा पालो "
		   "सकिन्छ।" },
	.render = &render,
};
