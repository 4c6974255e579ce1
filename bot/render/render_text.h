/*
 * render_text.h - what every renderer draws with: the context it draws in
 * (struct render_ctx) and the text helpers the render_<game>.c files share
 * (render_text.c).
 *
 * Every user-facing word comes from the message catalogues (i18n.h) or a
 * game's own words in both languages; numbers go through render_int() so a
 * Nepali chat can read Devanagari digits. Those digits are one column wide
 * like ASCII ones, so a board has the same shape with either digit set.
 * Names are cut to fit (render_add_fit) and never break a board's
 * alignment.
 */
#ifndef GB_RENDER_TEXT_H
#define GB_RENDER_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "games/game.h"
#include "games/strbuf.h"
#include "bot/lang/i18n.h"

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

/* A number in the chat's digits ("-" becomes "−" with Devanagari digits). */
void render_int(const struct render_ctx *rc, int v, struct strbuf *out);

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

/*
 * Append the catalogue text of key in rc's language, formatted with the
 * arguments. The macro checks them against key when compiled (MSG_ARGS_OK,
 * bot/lang/i18n.h): key is an M_ name as written, or msg_any().
 */
void render_tr(const struct render_ctx *rc, struct strbuf *out, int key, ...);
#define render_tr(rc, out, key, ...) (MSG_ARGS_OK(key, ##__VA_ARGS__), render_tr((rc), (out), (key), ##__VA_ARGS__))

#endif
