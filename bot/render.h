/*
 * render.h - tables, hands and log lines as Unicode text.
 *
 * Renderers read a game state (through each game's public header) and write
 * monospace-safe text in the chat's language: no line wider than 40 columns
 * (phones), every message under 2,000 characters (Discord). They never
 * change anything and know no platform.
 *
 * Every user-facing word comes from the message catalogues (i18n.h); numbers
 * go through render_int() so a Nepali chat can read Devanagari digits. Those
 * digits are one column wide like ASCII ones, so a board has the same shape
 * with either digit set. Names are cut to fit (render_add_fit) and never
 * break a board's alignment.
 *
 * Characters used: ASCII, box drawing (─ │ ╱ ╲), a few geometric shapes
 * (▲ ▼ ○ ▫ ▸ ·), arrows (→), suit symbols (♠ ♥ ♦ ♣), the dash "–", the minus
 * "−", the ellipsis "…" and Devanagari. No emoji.
 *
 * Usage (what bot/play.c does for the table message):
 *     struct render_ctx rc = { .game = g, .st = st, .lang = LANG_NE, ... };
 *     render_board(&rc, &sb);  render_event(&rc, &ev, &sb);  render_status(&rc, &sb);
 */
#ifndef GB_RENDER_H
#define GB_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/strbuf.h"

#define RENDER_MAX_COLS 40  /* widest line on any screen we draw */
#define RENDER_NAME_BUF 256 /* room for any name render_name_buf() writes */
#define RENDER_MAX_MARKS 4  /* combining marks kept on one letter of a name */

struct render_ctx {
	const struct gb_game *game;
	const void *st;
	int lang;                        /* enum lang */
	bool devanagari;                 /* Nepali digits for numbers */
	const char *names[GB_MAX_SEATS]; /* display names by seat (NULL: a seat mark is shown) */
	int nseats;
	int name_cols;                   /* cut names to this many columns; 0: each
	                                    renderer's default (render_event and
	                                    render_status shorten names until the
	                                    line fits RENDER_MAX_COLS) */
};

/* The board (or card table) with a title line. */
void render_board(const struct render_ctx *rc, struct strbuf *out);

/* One status line: whose turn and what they are waiting for. */
void render_status(const struct render_ctx *rc, struct strbuf *out);

/* One log line for an event, or nothing for events not worth a line. */
void render_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out);

/*
 * One cut of names for the status line and the n events of a log strip:
 * the widest at which every line fits RENDER_MAX_COLS, but never so narrow
 * that two different names read the same ("Bot for…" twice). Set it as
 * name_cols, so that a name reads the same on every line of a message.
 */
int render_log_cols(const struct render_ctx *rc, const struct gb_event *evs, int n);

/*
 * A seat's hand in a game with private hands (Call Break's grouped by
 * suit, spades first, built only from that seat's callbreak_view()).
 * Writes nothing for other games.
 */
void render_hand(const struct render_ctx *rc, int seat, struct strbuf *out);

/*
 * Put actions in the order the player sees them, as the game's renderer
 * sorts them: a Call Break hand's cards by suit, spades first, high to low
 * (as render_hand() lists them), other actions first and in their own
 * order; Bagh Chal's as the board is drawn (row 5 first). Games without a
 * sort keep their own order.
 */
void render_sort_actions(const struct render_ctx *rc, struct gb_action *acts, int n);

/*
 * Does act get a button of its own? Not when it does what an earlier one
 * does (Ludo: a second token of one stack, a second token in the yard).
 */
bool render_action_shown(const struct render_ctx *rc, const struct gb_action *act);

/* A short button label for an action ("Token 2 → 14", "Q♠"). Always NUL-terminated. */
void render_action_label(const struct render_ctx *rc, const struct gb_action *act,
			 char *buf, size_t n);

/*
 * Why an action was refused, as a clause for the reply ("a bid is 1 to 8",
 * "goats move once all 20 are placed — 12 still in hand", "♥ was led:
 * follow suit"), read from the game's state. err is what parse() or
 * apply() returned; verb is the command typed; act is the action when it
 * was read (NULL when parse() failed). Writes nothing when there is no
 * more to say than the refusal itself.
 */
void render_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
		    struct strbuf *out);

/*
 * The command that plays act, as a reply names it: "/move 2", and a card
 * as the table shows it ("/play Q♠").
 */
void render_action_command(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out);

/* A number in the chat's digits ("-" becomes "−" with Devanagari digits). */
void render_int(const struct render_ctx *rc, int v, struct strbuf *out);

/* ---- helpers shared by the render_<game>.c files (and tests) ---- */

/* The number v in the chat's digits into buf (16 bytes are enough); returns buf. */
const char *render_num(const struct render_ctx *rc, int v, char *buf, size_t n);

/* Tenths with one decimal in the chat's digits: -40 -> "-4.0", 32 -> "3.2". */
void render_tenths(const struct render_ctx *rc, int tenths, struct strbuf *out);

/*
 * Display columns of UTF-8 text as a terminal's wcwidth() counts them:
 * combining marks 0, East Asian wide characters 2. Characters it does not
 * know are counted wide, so a guess never makes a line longer than measured.
 */
int render_width(const char *s);

/* Columns of the first n bytes of s. */
int render_widthn(const char *s, size_t n);

/*
 * Append s cut to at most `cols` columns (an ellipsis marks a cut), control
 * characters shown as blanks, at most RENDER_MAX_MARKS combining marks on a
 * letter; then pad with blanks to exactly `cols` when pad is true. Returns
 * the columns written.
 */
int render_add_fit(struct strbuf *out, const char *s, int cols, bool pad);

/* Append blanks so that s (already formatted text) ends right-aligned in cols. */
void render_add_right(struct strbuf *out, const char *s, int cols);

/* Columns of the last line of out (after its last newline). */
int render_line_cols(const struct strbuf *out);

/* Append blanks until the last line of out is `col` columns wide. */
void render_pad_to(struct strbuf *out, int col);

/* Drop blanks at the end of out and start a new line. */
void render_newline(struct strbuf *out);

/*
 * Append prefix, then the items separated by blanks, starting a new line
 * indented by the prefix's width whenever the next item would pass
 * RENDER_MAX_COLS; ends with a newline.
 */
void render_add_wrapped(struct strbuf *out, const char *prefix, const char *const *items, int n);

/* Display name of seat (cut to cols columns), appended to out. */
void render_name(const struct render_ctx *rc, int seat, int cols, struct strbuf *out);

/* The name of seat cut to cols columns into buf (RENDER_NAME_BUF bytes hold
 * any name up to 24 columns whole); never splits a character. Returns buf. */
const char *render_name_buf(const struct render_ctx *rc, int seat, int cols, char *buf, size_t n);

/* Append the catalogue text of key, formatted: sb_addtr(out, tr(rc->lang, key), ...). */
void render_tr(const struct render_ctx *rc, struct strbuf *out, int key, ...);

/*
 * A game's renderer, named by its bot-side row (bot/games.h). board, status
 * and event are required; any other hook may be NULL, and the entry points
 * above then do what a game without it needs: the canonical text as a
 * label, every action a button of its own in the game's own order, no
 * more to say in a refusal, the command's canonical text in replies.
 */
struct render_game {
	void (*board)(const struct render_ctx *rc, struct strbuf *out);
	void (*status)(const struct render_ctx *rc, struct strbuf *out);
	void (*event)(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out);
	/* render_action_label() before the cut to the caller's buffer */
	void (*label)(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out);
	void (*refusal)(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			struct strbuf *out);
	bool (*shown)(const struct render_ctx *rc, const struct gb_action *act);
	void (*sort)(struct gb_action *acts, int n);
	/* GB_PRIVATE_HANDS: one seat's hand, built only from what that seat may see */
	void (*hand)(const struct render_ctx *rc, int seat, struct strbuf *out);
	/* render_action_command() for the actions it names its own way (nothing for the rest) */
	void (*command)(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out);
};

/* The renderers of the games built in (bot/render_<game>.c). */
extern const struct render_game render_snakes;
extern const struct render_game render_ludo;
extern const struct render_game render_baghchal;
extern const struct render_game render_callbreak;

/* A card as rank and suit symbol ("Q♠", "10♥"). */
void render_card(int card, struct strbuf *out);

#endif
