/*
 * fair.c - sealed seeds: every table's dice and deals are fixed before its
 * first move, and anyone can prove it after the last (verify.h).
 *
 * A table gets 32 bytes from getrandom(2) when it opens (bot_config.seed,
 * for tests and transcripts only, derives them reproducibly instead). The
 * table message shows their SHA-256, the seal, for the whole game and the
 * seed itself once the game is over; /verify replays the finished game from
 * the seed and its move log and says whether every die and deal matches.
 * Dice and deals can be forced only in `gamebot script`: no chat command
 * reaches a forced die (cmd_play_action() clears it) or a forced deal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "bot/internal.h"
#include "bot/tools/verify.h"

#define LOG_PART_BYTES 1800   /* a private message of the move log stays under every platform's limit */

/* 32 bytes from the operating system. */
static int os_random(unsigned char *buf, size_t n)
{
	size_t got = 0;
	int rc = GB_OK;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = GB_EIO;
			goto out;
		}
		got += (size_t)r;
	}
out:
	return rc;
}

int fair_new_seed(struct ctx *c)
{
	unsigned char bytes[32];
	int rc = GB_OK;

	if (c->b->cfg.seed) {
		/* reproducible for tests: the 64-bit game seed as before, then three derived words */
		uint64_t w = gb_seed_derive(c->b->cfg.seed ^ (uint64_t)c->chat.id, ++c->b->tables_opened);

		for (int k = 0; k < 4; k++) {
			uint64_t v = k ? gb_seed_derive(w, (uint64_t)k) : w;

			for (int i = 0; i < 8; i++)
				bytes[8 * k + i] = (unsigned char)(v >> (56 - 8 * i));
		}
	} else {
		rc = os_random(bytes, sizeof(bytes));
		if (rc)
			goto out;
	}
	memset(&c->terms, 0, sizeof(c->terms));
	for (int i = 0; i < 32; i++)
		snprintf(c->terms.seed + 2 * i, 3, "%02x", bytes[i]);
	c->table.seed = verify_game_seed(c->terms.seed);
	c->terms_loaded = true;
	c->terms_changed = true;
out:
	return rc;
}

/*
 * "Label 0123…(32)" then the other 32 digits under them: two lines of at
 * most 40 columns. The digits start at column cols + 1 whatever the
 * label's width, so that the seed's and the seal's lines read as one
 * column ("बीज" and "मोहर" differ by one).
 */
static void hex_lines(struct strbuf *sb, const char *label, int cols, const char *hex)
{
	sb_add(sb, "\n");
	render_add_fit(sb, label, cols, true);
	sb_add(sb, " ");
	sb_addn(sb, hex, strnlen(hex, 32));
	sb_add(sb, "\n");
	for (int i = 0; i <= cols; i++)
		sb_add(sb, " ");
	sb_add(sb, hex + 32);
}

void fair_table_lines(struct ctx *c, struct strbuf *sb)
{
	char num[24], seal[65];
	int people = 0;

	if (!c->has_table || ctx_terms(c))
		return;
	for (int i = 0; i < c->nseats; i++)
		people += c->seats[i].user[0] != '\0';
	if (c->terms.stake > 0 && c->table.status == STORE_LOBBY) {
		sb_add(sb, "\n");
		sb_addmsg(sb, c->lang, M_LINE_STAKE, ctx_num(c, (int)c->terms.stake, num));
	} else if (c->terms.stake > 0 && c->table.status == STORE_PLAYING) {
		sb_add(sb, "\n");
		sb_addmsg(sb, c->lang, M_LINE_POT, ctx_num(c, (int)(c->terms.stake * people), num));
	}
	if (!verify_seed_ok(c->terms.seed) || c->table.status == STORE_LOBBY)
		return;
	verify_seal(c->terms.seed, seal);
	if (c->table.status == STORE_OVER) {
		int a = render_width(tr(c->lang, M_LINE_SEED)), b = render_width(tr(c->lang, M_LINE_SEAL));

		hex_lines(sb, tr(c->lang, M_LINE_SEED), a > b ? a : b, c->terms.seed);
		hex_lines(sb, tr(c->lang, M_LINE_SEAL), a > b ? a : b, seal);
	} else {
		hex_lines(sb, tr(c->lang, M_LINE_SEAL), render_width(tr(c->lang, M_LINE_SEAL)), seal);
	}
}

/* The reason a check failed, in the chat's language. */
static void why_text(struct ctx *c, const struct verify_result *r, struct strbuf *sb)
{
	char a[24];

	switch (r->verdict) {
	case VERIFY_SEAL:
		sb_addmsg(sb, c->lang, M_VERIFY_WHY_SEAL, r->seal_of_seed, r->seal);
		break;
	case VERIFY_MISMATCH:
		sb_addmsg(sb, c->lang, M_VERIFY_WHY_MOVE, ctx_num(c, r->seq, a), r->action, r->logged,
			 r->replayed);
		break;
	case VERIFY_SEQ:
	case VERIFY_SEAT:
	case VERIFY_REFUSED:
		sb_addmsg(sb, c->lang, M_VERIFY_WHY_REFUSED, ctx_num(c, r->seq, a), r->action);
		break;
	default:
		sb_addmsg(sb, c->lang, M_VERIFY_WHY_LOG, ctx_num(c, r->seq, a));
		break;
	}
}

/* The move log to the one who asked, in parts that fit a message; lines whole. */
static void send_log(struct ctx *c, int64_t table, const char *log)
{
	int parts = 0, part = 0;
	char a[24], b[24], t[24];

	for (int pass = 0; pass < 2; pass++) {
		const char *p = log;

		while (*p) {
			struct strbuf sb = { 0 };
			size_t len = 0;

			/* whole lines up to the limit (a longer line goes alone) */
			while (p[len]) {
				size_t line = strcspn(p + len, "\n") + (p[len + strcspn(p + len, "\n")] ? 1 : 0);

				if (len && len + line > LOG_PART_BYTES)
					break;
				len += line;
			}
			if (pass == 0) {
				parts++;
			} else {
				sb_addmsg(&sb, c->lang, M_VERIFY_LOG_PART, ctx_num(c, (int)table, t),
					 ctx_num(c, ++part, a), ctx_num(c, parts, b));
				sb_add(&sb, "\n");
				sb_addn(&sb, p, len);
				/* not a view of a game in play: it may go to anyone who asks */
				json_object_set_new(reply_push(c, "private", c->cmd->user, sb_str(&sb)), "movelog",
						    json_integer(table));
			}
			sb_release(&sb);
			p += len;
		}
	}
}

static bool is_log_word(const char *w)
{
	return strcmp(w, "log") == 0 || strcmp(w, "लग") == 0;
}

int cmd_verify(struct ctx *c)
{
	char w1[32] = "", w2[32] = "", num[24], seal[65];
	const char *p = arg_word(c->cmd->args, w1, sizeof(w1));
	struct store_table t = { 0 };
	struct store_terms terms;
	struct verify_result res;
	struct strbuf log = { 0 }, why = { 0 };
	bool want_log = false;
	int64_t id = 0;
	int n = 0, rc = GB_OK;

	if (p)
		arg_word(p, w2, sizeof(w2));
	/* "log" in either language */
	want_log = is_log_word(w1) || is_log_word(w2);
	if (w1[0] && !is_log_word(w1)) {
		if (gb_parse_uint(w1, 2000000000, &n) || (w2[0] && !is_log_word(w2))) {
			reply_alert(c, M_ARGS, "/verify [TABLE] [log]");
			goto out;
		}
		id = n;
	} else if (json_is_integer(json_object_get(c->settings, "last_table"))) {
		id = json_integer_value(json_object_get(c->settings, "last_table"));
	}
	if (!id) {
		reply_alert(c, M_VERIFY_NONE);
		goto out;
	}
	if (c->has_table && c->table.id == id && c->table.status != STORE_OVER) {
		reply_alert(c, M_VERIFY_PLAYING);
		goto out;
	}
	rc = store_table_get(c->b->store, id, &t);
	if (rc == GB_ENOTFOUND || (!rc && (t.chat != c->place || t.status != STORE_OVER))) {
		rc = GB_OK;
		reply_alert(c, M_VERIFY_NOT_HERE, ctx_num(c, (int)id, num));
		goto out;
	}
	if (rc)
		goto out;
	rc = store_terms_get(c->b->store, id, &terms);
	if (rc == GB_ENOTFOUND || (!rc && !verify_seed_ok(terms.seed))) {
		rc = GB_OK;
		reply_alert(c, M_VERIFY_UNSEALED, ctx_num(c, (int)id, num));
		goto out;
	}
	if (rc)
		goto out;
	verify_seal(terms.seed, seal);
	rc = verify_movelog(c->b->store, id, seal, &log);
	if (!rc)
		rc = verify_run(terms.seed, sb_str(&log), &res);
	if (rc)
		goto out;
	if (res.verdict == VERIFY_OK) {
		char moves[24];

		reply_public(c, M_VERIFY_OK, ctx_num(c, (int)id, num), ctx_num(c, res.moves, moves), terms.seed,
			     seal, "gamebot verify SEED MOVELOG");
	} else {
		why_text(c, &res, &why);
		reply_public(c, M_VERIFY_FAIL, ctx_num(c, (int)id, num), sb_str(&why));
	}
	if (want_log)
		send_log(c, id, sb_str(&log));
out:
	store_table_release(&t);
	sb_release(&log);
	sb_release(&why);
	return rc;
}
