/*
 * render.c - the renderer entry points. Each game's board lives in its own
 * render_<game>.c; this file dispatches by game and provides the fallbacks
 * (the canonical texts) that keep the bot usable for any game.
 */
#include "render.h"

#include <string.h>

#include "i18n.h"

void render_int(const struct render_ctx *rc, int v, struct strbuf *out)
{
	static const char *const deva[10] = { "०", "१", "२", "३", "४", "५", "६", "७", "८", "९" };
	char buf[16];

	if (!rc->devanagari) {
		sb_addf(out, "%d", v);
		return;
	}
	snprintf(buf, sizeof(buf), "%d", v);
	for (char *p = buf; *p; p++) {
		if (*p >= '0' && *p <= '9')
			sb_add(out, deva[*p - '0']);
		else if (*p == '-')
			sb_add(out, "−");
		else
			sb_addn(out, p, 1);
	}
}

void render_board(const struct render_ctx *rc, struct strbuf *out)
{
	sb_add(out, rc->game->name);
	sb_add(out, "\n");
}

void render_status(const struct render_ctx *rc, struct strbuf *out)
{
	int turn = rc->game->turn(rc->st);

	if (turn >= 0 && turn < rc->nseats)
		sb_addtr(out, tr(rc->lang, M_TURN_OF), rc->names[turn]);
}

void render_event(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out)
{
	char buf[GB_EVENT_TEXT];

	rc->game->format_event(ev, buf, sizeof(buf));
	if (!buf[0])
		return;
	if (ev->seat >= 0 && ev->seat < rc->nseats)
		sb_addf(out, "%s: %s", rc->names[ev->seat], buf);
	else
		sb_add(out, buf);
}

void render_hand(const struct render_ctx *rc, int seat, struct strbuf *out)
{
	(void)rc;
	(void)seat;
	(void)out;
}

void render_action_label(const struct render_ctx *rc, const struct gb_action *act,
			 char *buf, size_t n)
{
	rc->game->format(rc->st, act, buf, n);
}
