/*
 * online_people.c - what people choose and see of themselves at online
 * tables: the name they play under (/name), the people they block
 * (/block), and their ratings (/rating, /top online GAME). How online
 * tables work: online.c.
 */
#include <stdlib.h>
#include <string.h>
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "bot/commands.h"
#include "bot/internal.h"
#include "bot/render/games.h"
#include "games/ai/ai.h"
#include "games/utf8.h"
#include "rating.h"

int cmd_name(struct ctx *c)
{
	char name[STORE_NAME_LEN], key[STORE_NAME_LEN], platform[16], user[STORE_ID_LEN];
	int bad, found = 0, rc;

	if (online_refused(c))
		return GB_OK;
	if (!c->cmd->args[0]) {
		rc = online_person_name(c->b->store, c->cmd->platform, c->cmd->user, name, sizeof(name));
		if (!rc)
			reply_alert(c, M_NAME_SET, name);
		return rc;
	}
	bad = online_name_check(c->cmd->args, name, sizeof(name), key, sizeof(key));
	if (bad) {
		reply_alert(c, msg_any(bad, "%s"), c->cmd->args);
		return GB_OK;
	}
	/* a name is one person's, case aside (the store's unique index settles a race for it) */
	rc = store_person_named(c->b->store, key, platform, sizeof(platform), user, sizeof(user), &found);
	if (rc)
		return rc;
	if (found && (strcmp(platform, c->cmd->platform) || strcmp(user, c->cmd->user))) {
		reply_alert(c, M_NAME_TAKEN, name);
		return GB_OK;
	}
	snprintf(c->ow.name, sizeof(c->ow.name), "%s", name);
	snprintf(c->ow.name_key, sizeof(c->ow.name_key), "%s", key);
	c->ow.name_set = true;
	reply_alert(c, M_NAME_SET, c->ow.name);
	return GB_OK;
}

/*
 * /block: the people of the person's newest online table still kept
 * (their last one, unless old tables were pruned since) are never seated
 * with them again. When every table they sat at is gone, nobody is
 * blocked, and the answer says there is no recent table.
 */
int cmd_block(struct ctx *c)
{
	struct store_oseat os[GB_MAX_SEATS];
	struct strbuf names = { 0 };
	char name[8];
	int64_t last = 0, kept = 0;
	int n = 0, rc;

	if (online_refused(c))
		return GB_OK;
	rc = store_person_get(c->b->store, c->cmd->platform, c->cmd->user, name, sizeof(name), &last);
	if (!rc && last)
		rc = store_oseat_last(c->b->store, c->cmd->platform, c->cmd->user, &kept);
	if (rc == GB_ENOTFOUND)
		rc = GB_OK;
	if (!rc && kept)
		rc = store_oseats_get(c->b->store, kept, os, GB_MAX_SEATS, &n);
	if (rc)
		return rc;
	if (!last || !kept) {
		if (last)
			reply_alert(c, M_BLOCK_GONE);
		else
			reply_alert(c, M_BLOCK_NONE);
		return GB_OK;
	}
	for (int i = 0; i < n && c->ow.nblock < GB_MAX_SEATS; i++) {
		if (!strcmp(os[i].platform, c->cmd->platform) && !strcmp(os[i].user, c->cmd->user))
			continue;
		c->ow.block[c->ow.nblock++] = os[i];
		sb_add(&names, names.len ? ", " : "");
		sb_add(&names, os[i].name);
	}
	if (!c->ow.nblock)
		reply_alert(c, M_BLOCK_NOBODY);
	else
		reply_alert(c, M_BLOCK_DONE, sb_str(&names));
	sb_release(&names);
	return GB_OK;
}

/* The reactions: the word typed, and its line in each language. */
static void rating_text(const struct store_rating *r, char *out, size_t cap, bool *provisional)
{
	struct glicko g = { (double)r->r / 1000.0, (double)r->rd / 1000.0, (double)r->sigma / 1e6, r->games };

	*provisional = glicko_provisional(&g);
	snprintf(out, cap, "%lld", (long long)((r->r + 500) / 1000));
}

int cmd_rating(struct ctx *c)
{
	struct strbuf sb = { 0 };
	char name[STORE_NAME_LEN], num[24], games[24];
	int shown = 0, rc;
	bool any_prov = false;

	if (c->online) {
		reply_alert(c, M_REACT_NONE);
		return GB_OK;
	}
	rc = online_person_name(c->b->store, c->cmd->platform, c->cmd->user, name, sizeof(name));
	if (rc)
		return rc;
	sb_addmsg(&sb, c->lang, M_RATING_HEAD, name);
	for (int i = 0; gb_games[i]; i++) {
		struct store_rating r;
		bool prov;

		rc = store_rating_get(c->b->store, c->cmd->platform, c->cmd->user, gb_games[i]->name, &r);
		if (rc == GB_ENOTFOUND)
			continue;
		if (rc)
			break;
		rating_text(&r, num, sizeof(num), &prov);
		any_prov |= prov;
		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_RATING_ROW, game_title(c, gb_games[i]), num, prov ? "?" : "",
			 ctx_num(c, r.games, games));
		shown++;
	}
	if (rc && rc != GB_ENOTFOUND) {
		sb_release(&sb);
		return rc;
	}
	if (!shown)
		reply_alert(c, M_RATING_NONE);
	else {
		if (any_prov) {
			sb_add(&sb, "\n");
			sb_add(&sb, tr(c->lang, M_RATING_PROV));
		}
		reply_push(c, "alert", c->cmd->user, sb_str(&sb));
	}
	sb_release(&sb);
	return GB_OK;
}

int online_top(struct ctx *c, const char *args)
{
	struct store_rating rows[10];
	struct strbuf sb = { 0 };
	const char *rest;
	const struct gb_game *g = game_lookup(args, &rest);
	int n = 0, rc;
	bool any_prov = false;

	if (!g) {
		reply_usage(c, "/top online %s");
		return GB_OK;
	}
	rc = store_rating_top(c->b->store, g->name, rows, 10, &n);
	if (rc)
		return rc;
	if (!n) {
		reply_alert(c, M_TOP_ONLINE_EMPTY, game_title(c, g));
		return GB_OK;
	}
	sb_addmsg(&sb, c->lang, M_TOP_ONLINE_HEAD, game_title(c, g));
	for (int i = 0; i < n; i++) {
		char rank[24], num[24];
		bool prov;

		rating_text(&rows[i], num, sizeof(num), &prov);
		any_prov |= prov;
		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_TOP_ONLINE_ROW, ctx_num(c, i + 1, rank), rows[i].name, num,
			 prov ? "?" : "");
	}
	if (any_prov) {
		sb_add(&sb, "\n");
		sb_add(&sb, tr(c->lang, M_RATING_PROV));
	}
	reply_push(c, "public", NULL, sb_str(&sb));
	sb_release(&sb);
	return GB_OK;
}
