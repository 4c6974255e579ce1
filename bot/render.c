/*
 * render.c - the renderer entry points and the text helpers every board
 * shares: numbers in the chat's digits, display widths, names cut to fit.
 * Each game's drawing lives in its own renderer (render_<game>.c), named
 * by the game's row (games.h); this file hands over to it and keeps a
 * plain fallback (the canonical texts) for a game without one, so the bot
 * stays usable while a new game is added.
 */
#include "render.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "games/utf8.h"
#include "games.h"
#include "width.h"
#include "i18n.h"

/* ---- numbers ---- */

const char *render_num(const struct render_ctx *rc, int v, char *buf, size_t n)
{
	static const char *const deva[10] = { "०", "१", "२", "३", "४", "५", "६", "७", "८", "९" };
	char ascii[16];
	size_t len = 0;

	if (!n)
		return buf;
	snprintf(ascii, sizeof(ascii), "%d", v);
	if (!rc->devanagari) {
		snprintf(buf, n, "%s", ascii);
		return buf;
	}
	buf[0] = '\0';
	for (const char *p = ascii; *p; p++) {
		const char *piece = *p >= '0' && *p <= '9' ? deva[*p - '0'] : *p == '-' ? "−" : "?";
		size_t k = strlen(piece);

		if (len + k + 1 > n)
			break;
		memcpy(buf + len, piece, k);
		len += k;
		buf[len] = '\0';
	}
	return buf;
}

void render_int(const struct render_ctx *rc, int v, struct strbuf *out)
{
	char buf[48];

	sb_add(out, render_num(rc, v, buf, sizeof(buf)));
}

void render_tenths(const struct render_ctx *rc, int tenths, struct strbuf *out)
{
	int a = tenths < 0 ? -tenths : tenths;

	if (tenths < 0)
		sb_add(out, rc->devanagari ? "−" : "-");
	render_int(rc, a / 10, out);
	sb_add(out, ".");
	render_int(rc, a % 10, out);
}

/* ---- display width ---- */

int render_widthn(const char *s, size_t n)
{
	size_t i = 0;
	int w = 0;

	while (i < n && s[i]) {
		uint32_t c;

		i += utf8_decode(s + i, &c);
		w += width_of(c);
	}
	return w;
}

int render_width(const char *s)
{
	return render_widthn(s, strlen(s));
}

int render_add_fit(struct strbuf *out, const char *s, int cols, bool pad)
{
	int total, w = 0, marks = 0;
	size_t i = 0;

	if (!s)
		s = "";
	total = render_width(s);
	while (s[i]) {
		uint32_t c;
		size_t k = utf8_decode(s + i, &c);
		int cw = width_of(c);

		/* when cut, keep one column for the ellipsis */
		if (w + cw > (total > cols ? cols - 1 : cols))
			break;
		if (c < 0x20 || c == 0x7f) {
			sb_add(out, " ");
			w++;
			marks = 0;
		} else if (cw > 0) {
			sb_addn(out, s + i, k);
			w += cw;
			marks = 0;
		} else if (++marks <= RENDER_MAX_MARKS) {
			/* a few marks per letter are writing; hundreds are a prank on the byte limit */
			sb_addn(out, s + i, k);
		}
		i += k;
	}
	if (s[i] && cols > 0) {
		sb_add(out, "…");
		w++;
	}
	while (pad && w < cols) {
		sb_add(out, " ");
		w++;
	}
	return w;
}

void render_add_right(struct strbuf *out, const char *s, int cols)
{
	for (int w = render_width(s); w < cols; w++)
		sb_add(out, " ");
	sb_add(out, s);
}

int render_line_cols(const struct strbuf *out)
{
	const char *s = sb_str(out), *nl = strrchr(s, '\n');

	return render_width(nl ? nl + 1 : s);
}

void render_pad_to(struct strbuf *out, int col)
{
	for (int w = render_line_cols(out); w < col; w++)
		sb_add(out, " ");
}

void render_newline(struct strbuf *out)
{
	while (out->len > 0 && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	sb_add(out, "\n");
}

void render_add_wrapped(struct strbuf *out, const char *prefix, const char *const *items, int n)
{
	int indent = render_width(prefix), col = indent;

	sb_add(out, prefix);
	for (int i = 0; i < n; i++) {
		int w = render_width(items[i]);

		if (col > indent && col + 1 + w > RENDER_MAX_COLS) {
			render_newline(out);
			for (int k = 0; k < indent; k++)
				sb_add(out, " ");
			col = indent;
		}
		if (col > 0) {
			sb_add(out, " ");
			col++;
		}
		sb_add(out, items[i]);
		col += w;
	}
	render_newline(out);
}

/* ---- names and catalogue texts ---- */

static const int seat_marks[GB_MAX_SEATS] = { M_MARK_1, M_MARK_2, M_MARK_3, M_MARK_4 };

void render_name(const struct render_ctx *rc, int seat, int cols, struct strbuf *out)
{
	const char *name = NULL;

	if (seat >= 0 && seat < rc->nseats && seat < GB_MAX_SEATS)
		name = rc->names[seat];
	if (!name || !name[0])
		name = seat >= 0 && seat < GB_MAX_SEATS ? tr(rc->lang, seat_marks[seat]) : "?";
	render_add_fit(out, name, cols, false);
}

const char *render_name_buf(const struct render_ctx *rc, int seat, int cols, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	if (!n)
		return buf;
	render_name(rc, seat, cols, &sb);
	/* never end inside a UTF-8 sequence */
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
	return buf;
}

void render_tr(const struct render_ctx *rc, struct strbuf *out, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	sb_vaddf(out, tr(rc->lang, key), ap);
	va_end(ap);
}

/* ---- dispatch ---- */

/* The renderer of the game rc shows, or NULL (no state, or a game without a row). */
static const struct render_game *renderer(const struct render_ctx *rc)
{
	const struct bot_game *row;

	if (!rc->game || !rc->st)
		return NULL;
	row = bot_game_of(rc->game);
	return row ? row->render : NULL;
}

void render_board(const struct render_ctx *rc, struct strbuf *out)
{
	const struct render_game *rg = renderer(rc);

	if (rg) {
		rg->board(rc, out);
		return;
	}
	sb_add(out, rc->game ? rc->game->name : "?");
	sb_add(out, "\n");
}

/* The plain line of a game without a renderer: whose turn, or the event's canonical text. */
static void plain_line(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	char buf[GB_EVENT_TEXT];
	int turn;

	if (!rc->game)
		return;
	if (!ev) {
		turn = rc->st ? rc->game->turn(rc->st) : -1;
		if (turn >= 0 && turn < rc->nseats && rc->names[turn])
			sb_addtr(out, tr(rc->lang, M_TURN_OF), rc->names[turn]);
		return;
	}
	rc->game->format_event(ev, buf, sizeof(buf));
	if (!buf[0])
		return;
	if (ev->seat >= 0 && ev->seat < rc->nseats && rc->names[ev->seat])
		sb_addf(out, "%s: %s", rc->names[ev->seat], buf);
	else
		sb_add(out, buf);
}

/* One line of status or log for one game (ev is NULL for a status line). */
static void game_line(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	const struct render_game *rg = renderer(rc);

	if (!rg)
		plain_line(rc, ev, out);
	else if (ev)
		rg->event(rc, ev, out);
	else
		rg->status(rc, out);
}

/*
 * A status or log line that fits the screen: names are cut shorter and
 * shorter until the line is at most RENDER_MAX_COLS wide (a caller that set
 * name_cols gets exactly that cut).
 */
static void fitted_line(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	static const int cuts[] = { 24, 16, 12, 10, 8, 6, 4 };
	int ncuts = (int)(sizeof(cuts) / sizeof(cuts[0]));

	for (int i = 0; i < ncuts; i++) {
		struct render_ctx r = *rc;
		struct strbuf line = { 0 };
		bool last = i == ncuts - 1 || rc->name_cols > 0;

		if (rc->name_cols <= 0)
			r.name_cols = cuts[i];
		game_line(&r, ev, &line);
		if (last || render_width(sb_str(&line)) <= RENDER_MAX_COLS) {
			sb_add(out, sb_str(&line));
			sb_release(&line);
			break;
		}
		sb_release(&line);
	}
}

/* Do the seats' different names stay different when cut to rc->name_cols? */
static bool names_apart(const struct render_ctx *rc)
{
	char a[RENDER_NAME_BUF], b[RENDER_NAME_BUF];

	for (int i = 0; i < rc->nseats && i < GB_MAX_SEATS; i++) {
		for (int j = i + 1; j < rc->nseats && j < GB_MAX_SEATS; j++) {
			if (!rc->names[i] || !rc->names[j] || strcmp(rc->names[i], rc->names[j]) == 0)
				continue;
			render_name_buf(rc, i, rc->name_cols, a, sizeof(a));
			render_name_buf(rc, j, rc->name_cols, b, sizeof(b));
			if (strcmp(a, b) == 0)
				return false;
		}
	}
	return true;
}

/* Does every line (the status, then each event) fit at rc->name_cols? */
static bool lines_fit(const struct render_ctx *rc, const struct gb_event *evs, int n)
{
	bool fit = true;

	for (int k = -1; k < n && fit; k++) {
		struct strbuf line = { 0 };

		game_line(rc, k < 0 ? NULL : &evs[k], &line);
		fit = render_width(sb_str(&line)) <= RENDER_MAX_COLS;
		sb_release(&line);
	}
	return fit;
}

int render_log_cols(const struct render_ctx *rc, const struct gb_event *evs, int n)
{
	static const int cuts[] = { 24, 16, 12, 10, 8, 6, 4 };
	int best = cuts[0];

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct render_ctx r = *rc;

		r.name_cols = cuts[i];
		if (i > 0 && !names_apart(&r))
			break;
		best = cuts[i];
		if (lines_fit(&r, evs, n))
			break;
	}
	return best;
}

void render_status(const struct render_ctx *rc, struct strbuf *out)
{
	fitted_line(rc, NULL, out);
}

void render_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	if (ev)
		fitted_line(rc, ev, out);
}

void render_hand(const struct render_ctx *rc, int seat, struct strbuf *out)
{
	const struct render_game *rg = renderer(rc);

	if (rg && rg->hand && (rc->game->flags & GB_PRIVATE_HANDS))
		rg->hand(rc, seat, out);
}

void render_sort_actions(const struct render_ctx *rc, struct gb_action *acts, int n)
{
	const struct render_game *rg = renderer(rc);

	if (rg && rg->sort)
		rg->sort(acts, n);
}

bool render_action_shown(const struct render_ctx *rc, const struct gb_action *act)
{
	const struct render_game *rg = renderer(rc);

	return !rg || !rg->shown || rg->shown(rc, act);
}

void render_action_label(const struct render_ctx *rc, const struct gb_action *act,
			 char *buf, size_t n)
{
	const struct render_game *rg = renderer(rc);
	struct strbuf sb = { 0 };

	if (!n)
		return;
	if (rg && rg->label)
		rg->label(rc, act, &sb);
	if (sb.len) {
		/* cut on a character boundary so a short buffer never splits UTF-8 */
		utf8_copy(buf, n, sb.buf, sb.len);
	} else if (rc->game && rc->st) {
		rc->game->format(rc->st, act, buf, n);
	} else {
		buf[0] = '\0';
	}
	sb_release(&sb);
}

void render_refusal(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
		    struct strbuf *out)
{
	const struct render_game *rg = renderer(rc);

	if (rg && rg->refusal)
		rg->refusal(rc, err, verb, act, out);
}

void render_action_command(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out)
{
	const struct render_game *rg = renderer(rc);
	size_t before = out->len;
	char buf[GB_ACTION_TEXT];

	if (rg && rg->command)
		rg->command(rc, act, out);
	if (out->len > before || !rc->game || !rc->st)
		return;
	rc->game->format(rc->st, act, buf, sizeof(buf));
	sb_addf(out, "/%s", buf);
}
