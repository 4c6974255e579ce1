/*
 * chat.c - per-chat commands: house-rule defaults, speed, language, rules
 * summaries, help and the leaderboard. Anyone may look; only admins change.
 * Settings are one JSON object per chat:
 *   {"speed": "normal", "autoplay_after": 0, "digits": "devanagari",
 *    "rules": {"ludo": {"six_bonus": "off"}, ...}}
 * and each new table copies the chat's rules for its game.
 */
#include <stdlib.h>
#include <string.h>

#include "bot/internal.h"
#include "bot/render/games.h"
#include "games/ai/ai.h"

/* Words for rule keys and values in the chat's language (typed keys stay as they are). */
static const struct {
	const char *word;
	int key;
} words[] = {
	{ "entry", M_RULE_ENTRY },
	{ "six_bonus", M_RULE_SIX_BONUS },
	{ "three_sixes", M_RULE_THREE_SIXES },
	{ "finish", M_RULE_FINISH },
	{ "board", M_RULE_BOARD },
	{ "one_releases", M_RULE_ONE_RELEASES },
	{ "capture_bonus", M_RULE_CAPTURE_BONUS },
	{ "rounds", M_RULE_ROUNDS },
	{ "six", M_VAL_SIX },
	{ "any", M_VAL_ANY },
	{ "lose_turn", M_VAL_LOSE_TURN },
	{ "restart", M_VAL_RESTART },
	{ "exact", M_VAL_EXACT },
	{ "overshoot", M_VAL_OVERSHOOT },
	{ "classic", M_VAL_CLASSIC },
	{ "random", M_VAL_RANDOM },
	{ "on", M_ON },
	{ "off", M_OFF },
	{ "slow", M_VAL_SLOW },
	{ "normal", M_VAL_NORMAL },
	{ "fast", M_VAL_FAST },
	{ "en", M_VAL_ENGLISH },
	{ "ne", M_VAL_NEPALI },
	{ "devanagari", M_VAL_DEVANAGARI },
	{ "ascii", M_VAL_ASCII },
	{ "speed", M_SET_SPEED },
	{ "autoplay_after", M_SET_AUTOPLAY },
	{ "digits", M_SET_DIGITS },
	{ "starting_coins", M_SET_COINS },
};

/*
 * The chat-language word for a key or value (numbers in the chat's
 * digits): the game's own words first (its row's), then the chat's.
 */
static const char *word_of(struct ctx *c, const struct gb_game *g, const char *w, char buf[24])
{
	const struct bot_game *row = g ? bot_game_of(g) : NULL;
	int n;

	for (int i = 0; row && row->words && row->words[i].word; i++)
		if (strcmp(row->words[i].word, w) == 0)
			return row->words[i].text[c->lang];
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(words[i].word, w) == 0)
			return tr(c->lang, words[i].key);
	if (gb_parse_uint(w, 1000000, &n) == GB_OK)
		return ctx_num(c, n, buf);
	return w;
}

/* A chat setting's word (no game's). */
static const char *word(struct ctx *c, const char *w, char buf[24])
{
	return word_of(c, NULL, w, buf);
}

/*
 * A setting just changed, confirmed in the words the settings list uses
 * ("A capture rolls again: now off", "काटेपछि फेरि पासा: अब बन्द"), not
 * the key and value as typed: key is M_SETTING_SET or M_SETTING_SET_NEXT.
 */
static void reply_set(struct ctx *c, const struct gb_game *g, int key, const char *name, const char *value)
{
	struct strbuf v = { 0 };
	char kbuf[24], vbuf[24];
	int secs = setting_int(c, "autoplay_after", 0);

	if (strcmp(name, "autoplay_after") == 0 && secs)
		sb_addmsg(&v, c->lang, M_VAL_SECONDS, ctx_num(c, secs, vbuf));
	else if (strcmp(name, "autoplay_after") == 0)
		sb_add(&v, tr(c->lang, M_OFF));
	else
		sb_add(&v, word_of(c, g, value, vbuf));
	reply_public(c, msg_any(key, "%s %s"), word_of(c, g, name, kbuf), sb_str(&v));
	sb_release(&v);
}

/*
 * One line per house rule: what it is and its value in the chat's
 * language, then the command that changes it. A rule that means nothing
 * under the others (three_sixes while six_bonus=off) is shown greyed.
 */
static void show_rules(struct ctx *c, const struct gb_game *g, struct strbuf *sb)
{
	struct gb_rules r;

	chat_rules(c, g, &r);
	/* a game without house rules says so, rather than an empty list */
	if (g->nrules)
		sb_addmsg(sb, c->lang, M_SETTINGS_HEAD, game_title(c, g));
	else
		sb_addmsg(sb, c->lang, M_NO_HOUSE_RULES, game_title(c, g));
	for (int i = 0; i < g->nrules; i++) {
		const struct gb_rule_def *d = &g->rules[i];
		bool greyed = false;
		char num[24];

		if (d->requires) {
			char key[32];
			const char *eq = strchr(d->requires, '=');
			int k;

			snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - d->requires) : 0, d->requires);
			k = gb_rule_index(g, key);
			greyed = eq && k >= 0 && strcmp(gb_rule_value(g, &r, k), eq + 1) != 0;
		}
		sb_addf(sb, "\n%s %s: %s\n   /settings %s %s ", greyed ? "░" : "•", word_of(c, g, d->key, num),
			word_of(c, g, gb_rule_value(g, &r, i), num), g->name, d->key);
		for (int v = 0; d->values[v]; v++)
			sb_addf(sb, "%s%s", v ? "|" : "", d->values[v]);
	}
}

/* The game args name, as a whole (nothing after the name), or NULL. */
static const struct gb_game *named_game(const char *args)
{
	const char *rest;
	const struct gb_game *g = game_lookup(args, &rest);

	return g && !rest[strspn(rest, " \t")] ? g : NULL;
}

static int set_chat_key(struct ctx *c, const char *key, const char *value)
{
	if (strcmp(key, "autoplay_after") == 0) {
		char num[16];
		size_t len = strlen(value);
		int secs;

		if (strcmp(value, "off") == 0) {
			secs = 0;
		} else {
			snprintf(num, sizeof(num), "%s", value);
			if (len && len < sizeof(num) && num[len - 1] == 's')
				num[len - 1] = '\0';
			if (gb_parse_uint(num, 3600, &secs) || (secs && secs < 10))
				return GB_ERULE_VALUE;
		}
		json_object_set_new(c->settings, key, json_integer(secs));
	} else if (strcmp(key, "speed") == 0) {
		if (strcmp(value, "slow") && strcmp(value, "normal") && strcmp(value, "fast"))
			return GB_ERULE_VALUE;
		json_object_set_new(c->settings, key, json_string(value));
	} else if (strcmp(key, "starting_coins") == 0) {
		int coins;

		/* what the bank gives a member's new wallet (coins.c) */
		if (gb_parse_uint(value, 1000000, &coins))
			return GB_ERULE_VALUE;
		json_object_set_new(c->settings, key, json_integer(coins));
	} else if (strcmp(key, "digits") == 0) {
		if (strcmp(value, "devanagari") && strcmp(value, "ascii"))
			return GB_ERULE_VALUE;
		json_object_set_new(c->settings, key, json_string(value));
	} else {
		return GB_ERULE_KEY;
	}
	c->chat_changed = true;
	return GB_OK;
}

/* The chat's own settings, one line each with the command that changes it. */
static void show_chat_settings(struct ctx *c, struct strbuf *sb)
{
	int secs = setting_int(c, "autoplay_after", 0);
	char num[24];

	sb_addf(sb, "• %s: %s\n   /speed slow|normal|fast\n", tr(c->lang, M_SET_SPEED),
		word(c, setting_str(c, "speed", "normal"), num));
	sb_addf(sb, "• %s: ", tr(c->lang, M_SET_AUTOPLAY));
	if (secs)
		sb_addmsg(sb, c->lang, M_VAL_SECONDS, ctx_num(c, secs, num));
	else
		sb_add(sb, tr(c->lang, M_OFF));
	sb_addf(sb, "\n   /settings autoplay_after 45s|off\n• %s: %s\n   /lang en|ne\n", tr(c->lang, M_SET_LANG),
		word(c, lang_code(c->lang), num));
	sb_addf(sb, "• %s: %s\n   /settings digits devanagari|ascii", tr(c->lang, M_SET_DIGITS),
		word(c, setting_str(c, "digits", "devanagari"), num));
	sb_addf(sb, "\n• %s: %s\n   /settings starting_coins 1000", tr(c->lang, M_SET_COINS),
		ctx_num(c, setting_int(c, "starting_coins", 1000), num));
}

/* /settings or /settings GAME: the chat's settings and every game's house rules, or one game's. */
static void show_settings(struct ctx *c, const struct gb_game *g)
{
	struct strbuf sb = { 0 };

	if (g) {
		show_rules(c, g, &sb);
	} else {
		show_chat_settings(c, &sb);
		for (int i = 0; gb_games[i]; i++) {
			sb_add(&sb, "\n\n");
			show_rules(c, gb_games[i], &sb);
		}
	}
	reply_push(c, "public", NULL, sb_str(&sb));
	sb_release(&sb);
}

/* /settings KEY VALUE of the chat itself (w3: a word too many, or ""). */
static void set_chat_setting(struct ctx *c, const char *w1, const char *w2, const char *w3)
{
	int rc = set_chat_key(c, w1, w2);

	if (rc == GB_ERULE_KEY || !w2[0] || w3[0])
		reply_alert(c, M_ARGS, "/settings [GAME] [KEY VALUE]");
	else if (rc && strcmp(w1, "autoplay_after") == 0)
		reply_alert(c, M_SETTING_BAD_AUTOPLAY, w2);
	else if (rc)
		reply_alert(c, M_SETTING_BAD, w1, w2);
	else
		reply_set(c, NULL, M_SETTING_SET, w1, w2);
}

/* Is rule k greyed out under r (the rule it requires has another value)? Says so when it is. */
static bool rule_greyed(struct ctx *c, const struct gb_game *g, const struct gb_rules *r, int k)
{
	char key[32], kb[24], db[24], vb[24];
	const char *eq = g->rules[k].requires ? strchr(g->rules[k].requires, '=') : NULL;
	int dep;

	if (!eq)
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - g->rules[k].requires), g->rules[k].requires);
	dep = gb_rule_index(g, key);
	if (dep < 0 || strcmp(gb_rule_value(g, r, dep), eq + 1) == 0)
		return false;
	reply_alert(c, M_SETTING_GREYED, word_of(c, g, g->rules[k].key, kb), word_of(c, g, key, db),
		    word_of(c, g, eq + 1, vb));
	return true;
}

/* /settings GAME KEY VALUE: the chat's default house rule, and the open lobby's if it is that game's. */
static int set_game_rule(struct ctx *c, const struct gb_game *g, const char *key, const char *value)
{
	struct gb_rules r;
	json_t *all, *gj;
	int k = gb_rule_index(g, key);

	chat_rules(c, g, &r);
	if (k < 0 || !value[0]) {
		reply_alert(c, M_ARGS, "/settings GAME KEY VALUE");
		return GB_OK;
	}
	if (rule_greyed(c, g, &r, k))
		return GB_OK;
	if (gb_rules_set(g, &r, key, value)) {
		reply_alert(c, M_SETTING_BAD, key, value);
		return GB_OK;
	}
	all = json_object_get(c->settings, "rules");
	if (!json_is_object(all)) {
		all = json_object();
		json_object_set_new(c->settings, "rules", all);
	}
	gj = gb_rules_to_json(g, &r);
	json_object_set_new(all, g->name, gj);
	c->chat_changed = true;
	if (c->has_table && c->game == g && c->table.status == STORE_LOBBY && !c->broken) {
		/* the open lobby has not started: it plays by the new default too */
		char *text = json_dumps(gj, JSON_COMPACT);

		if (!text)
			return GB_ENOMEM;
		free(c->table.rules);
		c->table.rules = text;
		c->table_changed = true;
		reply_set(c, g, M_SETTING_SET, key, value);
	} else if (c->has_table && c->game == g && c->table.status == STORE_PLAYING) {
		/* a game under way keeps the rules it started with */
		reply_set(c, g, M_SETTING_SET_NEXT, key, value);
	} else {
		reply_set(c, g, M_SETTING_SET, key, value);
	}
	return GB_OK;
}

int cmd_settings(struct ctx *c)
{
	char w1[32] = "", w2[64] = "", w3[64] = "", extra[8] = "";
	const char *p;
	const struct gb_game *g = game_lookup(c->cmd->args, &p);

	/* /settings [GAME] KEY VALUE: the game may be named by a title of several words */
	if (g)
		snprintf(w1, sizeof(w1), "%s", g->name);
	else
		p = arg_word(c->cmd->args, w1, sizeof(w1));
	if (p)
		p = arg_word(p, w2, sizeof(w2));
	if (p)
		p = arg_word(p, w3, sizeof(w3));
	if (p)
		arg_word(p, extra, sizeof(extra));
	if (extra[0]) {
		reply_alert(c, M_ARGS, "/settings [GAME] [KEY VALUE]");
		return GB_OK;
	}
	if (!w1[0] || (g && !w2[0])) {
		show_settings(c, g);
		return GB_OK;
	}
	if (!c->cmd->is_admin) {
		reply_alert(c, M_ADMINS_ONLY);
		return GB_OK;
	}
	if (!g) {
		/* chat-wide key: /settings autoplay_after 45s */
		set_chat_setting(c, w1, w2, w3);
		return GB_OK;
	}
	return set_game_rule(c, g, w2, w3);
}

int cmd_speed(struct ctx *c)
{
	char w[16] = "", num[24];

	arg_word(c->cmd->args, w, sizeof(w));
	if (set_chat_key(c, "speed", w)) {
		reply_alert(c, M_ARGS, "/speed slow|normal|fast");
		return GB_OK;
	}
	reply_public(c, M_SPEED_SET, word(c, w, num));
	return GB_OK;
}

int cmd_lang(struct ctx *c)
{
	char w[8] = "";
	int lang;

	arg_word(c->cmd->args, w, sizeof(w));
	lang = lang_parse(w);
	if (lang < 0) {
		reply_alert(c, M_ARGS, "/lang en|ne");
		return GB_OK;
	}
	c->lang = lang;
	snprintf(c->chat.lang, sizeof(c->chat.lang), "%s", lang_code(lang));
	c->chat_changed = true;
	reply_public(c, M_LANG_SET);
	/* the confirmation first, then the board in the new language */
	c->lines_first = json_array_size(c->replies);
	if (c->has_table)
		c->show_table = true;
	return GB_OK;
}

int cmd_rules(struct ctx *c)
{
	const struct bot_game *row;
	char w[32] = "";
	const struct gb_game *g;
	struct strbuf sb = { 0 };

	arg_word(c->cmd->args, w, sizeof(w));
	g = w[0] ? named_game(c->cmd->args) : (c->has_table ? c->game : NULL);
	if (!g) {
		if (w[0])
			reply_unknown_game(c, w);
		else
			reply_usage(c, "/rules %s");
		return GB_OK;
	}
	row = bot_game_of(g);
	if (row)
		sb_add(&sb, row->rules[c->lang]);
	sb_add(&sb, "\n\n");
	show_rules(c, g, &sb);
	reply_push(c, "public", NULL, sb_str(&sb));
	sb_release(&sb);
	return GB_OK;
}

int cmd_help(struct ctx *c)
{
	struct strbuf names = { 0 }, help = { 0 };

	games_join(&names, "", " | ", NULL);
	sb_addmsg(&help, c->lang, M_HELP, sb_str(&names));
	reply_push(c, "public", NULL, sb_str(&help));
	sb_release(&names);
	sb_release(&help);
	return GB_OK;
}

int cmd_stats(struct ctx *c)
{
	struct store_stat rows[10];
	char w[32] = "";
	int n = 0, rc;
	struct strbuf sb = { 0 };
	const struct gb_game *g;

	arg_word(c->cmd->args, w, sizeof(w));
	g = w[0] ? named_game(c->cmd->args) : NULL;
	if (w[0] && !g) {
		reply_unknown_game(c, w);
		return GB_OK;
	}
	rc = store_stats_get(c->b->store, c->chat.id, g ? g->name : NULL, rows, 10, &n);
	if (rc)
		return rc;
	if (n == 0) {
		reply_push(c, "public", NULL, tr(c->lang, M_STATS_EMPTY));
		return GB_OK;
	}
	sb_add(&sb, tr(c->lang, M_STATS_HEAD));
	for (int i = 0; i < n; i++) {
		char pts[64], rank[24], games[24], wins[24], whole[24], tenth[24];
		int p = rows[i].points;

		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_STATS_ROW, ctx_num(c, i + 1, rank), rows[i].name);
		ctx_num(c, rows[i].games, games);
		ctx_num(c, rows[i].wins, wins);
		if (rows[i].games == 1)
			sb_addmsg(&sb, c->lang, M_STATS_GAMES_1, games);
		else
			sb_addmsg(&sb, c->lang, M_STATS_GAMES, games);
		if (rows[i].wins == 1)
			sb_addmsg(&sb, c->lang, M_STATS_WINS_1, wins);
		else
			sb_addmsg(&sb, c->lang, M_STATS_WINS, wins);
		/* points only where the game keeps them (Call Break's totals) */
		if (g && (g->flags & GB_POINTS)) {
			snprintf(pts, sizeof(pts), "%s%s.%s", p < 0 ? "−" : "", ctx_num(c, abs(p) / 10, whole),
				 ctx_num(c, abs(p) % 10, tenth));
			sb_addmsg(&sb, c->lang, M_STATS_POINTS, pts);
		}
	}
	reply_push(c, "public", NULL, sb_str(&sb));
	sb_release(&sb);
	return GB_OK;
}
