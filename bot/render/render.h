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
 * Usage (what bot/commands/play.c does for the table message):
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
#include "render_text.h"

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


/* A card as rank and suit symbol ("Q♠", "10♥"). */
void render_card(int card, struct strbuf *out);

#endif
