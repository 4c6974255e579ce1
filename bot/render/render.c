/*
 * render.c - the renderer entry points. Each game's drawing lives in its
 * own renderer (render_<game>.c), named by the game's row (games.h); this
 * file hands over to it, fits status and log lines to the screen, and
 * keeps a plain fallback (the canonical texts) for a game without one, so
 * the bot stays usable while a new game is added.
 */
#include "render.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bot/lang/i18n.h"
#include "games.h"
#include "games/utf8.h"

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
			sb_addmsg(out, rc->lang, M_TURN_OF, rc->names[turn]);
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
