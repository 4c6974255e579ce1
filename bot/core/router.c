/*
 * router.c - the command table and the path every command takes: lookup,
 * rate limits, arity and precondition checks, the handler, then one store
 * transaction that commits the handler's work (commit.c; retried when
 * another writer changed the table first). The handlers see only their
 * context (context.c), never the router.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "bot/commands.h"
#include "bot/commands/choices.h"
#include "bot/internal.h"
#include "bot/render/games.h"
#include "bot/render/name.h"
#include "games/ai/ai.h"
#include "games/game.h"
#include "games/utf8.h"

/* Tries of a command that meets version conflicts before "busy, try again". */
#define CONFLICT_TRIES 4
/* A table being set up: commands a minute, as many times the per-person limit. */
#define SETUP_PER_MIN 4

/*
 * The command table (commands.h), in the order the platforms' menus list
 * it. The play verbs (CMD_PLAY) are the games' verbs: a game's descriptor
 * names the ones it uses.
 */
static const struct bot_command commands[] = {
	/* games may be named by their titles: "/new साँप सिँढी", "/new Snakes and Ladders" */
	{ "new", cmd_new, 1, 4, CMD_SETUP, "/new %s [SEAT]", { "Open a table", "नयाँ खेल" },
	  { { "game", .required = true, .choices = CHOICES_GAMES, .listed = true, .desc = "Which game" } } },
	{ "join", cmd_join, 0, 1, CMD_NEEDS_TABLE | CMD_SETUP, "/join [SEAT]",
	  { "Sit down at the open table", "खुला खेलमा बस्नुहोस्" } },
	{ "seat", cmd_seat, 1, 1, CMD_NEEDS_TABLE | CMD_PLAYERS_ONLY | CMD_SETUP, "/seat SEAT" },
	{ "addbot", cmd_addbot, 0, 1, CMD_NEEDS_TABLE | CMD_SETUP, "/addbot [easy|medium|hard]",
	  { "Seat a computer player", "कम्प्युटर खेलाडी थप्नुहोस्" },
	  { { "level", .choices = CHOICES_LEVELS, .listed = true, .desc = "How strong (default medium)" } } },
	{ "start", cmd_start, 0, 0, CMD_NEEDS_TABLE | CMD_PRIVATE_HANDS | CMD_SETUP, "/start", { "Start the game", "खेल सुरु गर्नुहोस्" } },
	{ "leave", cmd_leave, 0, 0, CMD_NEEDS_TABLE | CMD_PLAYERS_ONLY, "/leave",
	  { "Leave the table", "खेल छोड्नुहोस्" } },
	{ "stop", cmd_stop, 0, 0, CMD_NEEDS_TABLE, "/stop",
	  { "Stop the game (its creator or an admin)", "खेल रोक्नुहोस् (सुरु गर्ने वा एडमिन)" } },
	{ "watch", cmd_watch, 1, 3, 0, "/watch %s", { "Watch computers play a game", "कम्प्युटरहरूको खेल हेर्नुहोस्" },
	  { { "game", .required = true, .choices = CHOICES_GAMES, .desc = "Which game" } } },
	{ "roll", cmd_play_action, 0, 0, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY | CMD_OWN_SEAT, "/roll",
	  { "Roll the die", "पासा फाल्नुहोस्" } },
	{ "move", cmd_play_action, 1, 2, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY | CMD_OWN_SEAT, "/move N  or  /move b2 c3",
	  { "Move a token or a piece", "गोटी सार्नुहोस्" },
	  { { "action", .required = true, .autocomplete = true, .desc = "Token number, or from and to: b2 c3" } } },
	{ "place", cmd_play_action, 1, 1, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY | CMD_OWN_SEAT, "/place c3",
	  { "Place a piece", "गोटी राख्नुहोस्" },
	  { { "point", .required = true, .autocomplete = true, .desc = "Where: c3" } } },
	{ "bid", cmd_play_action, 1, 1, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY | CMD_OWN_SEAT | CMD_PRIVATE_HANDS, "/bid 1..8",
	  { "Bid tricks", "हात बोल्नुहोस्" },
	  { { "tricks", .number = true, .required = true, .autocomplete = true, .min = 1, .max = 8,
	      .desc = "How many tricks" } } },
	/* two words: a card may be typed by its Nepali name, "हुकुमको एक्का" */
	{ "play", cmd_play_action, 1, 2, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY | CMD_OWN_SEAT |
		  CMD_PRIVATE_HANDS, "/play QS",
	  { "Play a card", "पत्ती खेल्नुहोस्" },
	  { { "card", .required = true, .autocomplete = true, .desc = "Which card: QS, 10H" } } },
	{ "hand", cmd_hand, 0, 0, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_OWN_SEAT | CMD_PRIVATE_HANDS, "/hand",
	  { "Show my cards (only you see them)", "मेरा पत्ती देखाउनुहोस्" } },
	{ "next", cmd_play_action, 0, 0, CMD_NEEDS_GAME | CMD_PLAYERS_ONLY | CMD_PLAY, "/next",
	  { "Deal the next round", "अर्को चरण बाँड्नुहोस्" } },
	{ "board", cmd_board, 0, 0, 0, "/board", { "Show the table again", "खेल फेरि देखाउनुहोस्" } },
	{ "settings", cmd_settings, 0, 5, CMD_ADMIN_MENU | CMD_SETUP, "/settings [GAME] [KEY VALUE]",
	  { "House rules and chat settings", "घरका नियम र च्याट सेटिङ" },
	  { { "game", .choices = CHOICES_SETTINGS, .desc = "A game, or a channel setting" },
	    { "key", .autocomplete = true, .desc = "House rule (or the setting's value)" },
	    { "value", .autocomplete = true, .desc = "New value" } } },
	{ "speed", cmd_speed, 1, 1, CMD_ADMIN_ONLY | CMD_SETUP, "/speed slow|normal|fast",
	  { "Computer players' pace", "कम्प्युटर खेलाडीको गति" },
	  { { "pace", .required = true, .choices = CHOICES_SPEEDS, .desc = "slow, normal or fast" } } },
	{ "lang", cmd_lang, 1, 1, CMD_ADMIN_ONLY | CMD_SETUP, "/lang en|ne", { "Language", "भाषा" },
	  { { "language", .required = true, .choices = CHOICES_LANGS, .listed = true, .desc = "en or ne" } } },
	{ "rules", cmd_rules, 0, 3, 0, "/rules GAME", { "How a game is played", "खेलका नियम" },
	  { { "game", .choices = CHOICES_GAMES, .desc = "Which game" } } },
	{ "stats", cmd_stats, 0, 3, 0, "/stats [GAME]", { "Who has won most here", "यहाँ को धेरै जित्यो" },
	  { { "game", .choices = CHOICES_GAMES, .desc = "Which game" } } },
	{ "help", cmd_help, 0, 1, 0, "/help", { "Every command", "सबै आदेश" } },
	{ "wallet", cmd_wallet, 0, 0, 0, "/wallet", { "Your coins in this chat", "यहाँ तपाईंका सिक्का" } },
	{ "top", cmd_top, 0, 3, 0, "/top  or  /top online GAME", { "Who holds the most coins here", "यहाँ सबैभन्दा धेरै सिक्का कोसँग छन्" },
	  { { "online", .desc = "\"online\" for the best online ratings" },
	    { "game", .choices = CHOICES_GAMES, .desc = "Which game (online ratings)" } } },
	{ "grant", cmd_grant, 2, 2, CMD_ADMIN_ONLY, "/grant @name 100",
	  { "Give coins from the chat's bank", "च्याटको बैंकबाट सिक्का दिनुहोस्" },
	  { { "member", .required = true, .desc = "Their name as the table shows it: @name" },
	    { "coins", .number = true, .required = true, .min = 1, .max = 1000000, .desc = "How many" } } },
	{ "stake", cmd_stake, 1, 1, CMD_NEEDS_TABLE | CMD_SETUP, "/stake 100",
	  { "Coins each seat puts in the pot (before the start)", "सिटपिच्छे दाउ (सुरु अघि)" },
	  { { "coins", .number = true, .required = true, .min = 0, .max = 1000000, .desc = "Per seat; 0 for none" } } },
	{ "verify", cmd_verify, 0, 2, 0, "/verify [TABLE] [log]",
	  { "Check a finished table's dice and deals from its revealed seed",
	    "सकिएको टेबलका पासा र बाँडाइ खुलेको बीजबाट जाँच्नुहोस्" },
	  { { "table", .desc = "Table number (default: the last one)" },
	    { "log", .desc = "\"log\" to get its move log" } } },
	{ "online", cmd_online, 0, 4, 0, "/online %s [STAKE] [2p|4p]  or  /online leave",
	  { "Play people from anywhere (in a private chat with me)", "जहाँसुकैका मान्छेसँग खेल्नुहोस् (मसँग निजी च्याटमा)" },
	  { { "game", .choices = CHOICES_GAMES, .listed = true, .desc = "Which game; none: the queues" },
	    { "stake", .number = true, .min = 0, .max = 1000000, .desc = "Coins each seat stakes" },
	    { "seats", .desc = "2p or 4p (Ludo, Snakes and Ladders)" } } },
	{ "name", cmd_name, 0, 4, 0, "/name NAME", { "Your name at online tables", "अनलाइन टेबलमा तपाईंको नाम" },
	  { { "name", .desc = "2 to 20 letters" } } },
	{ "react", cmd_react, 1, 2, 0, "/react gg|wp|hurry",
	  { "Say good game, well played or hurry up at your online table",
	    "अनलाइन टेबलमा राम्रो खेल, राम्रो खेल्नुभयो वा छिटो भन्नुहोस्" },
	  { { "reaction", .required = true, .desc = "gg, wp or hurry" } } },
	{ "block", cmd_block, 0, 0, 0, "/block", { "Never meet your last online table's players again",
	  "अन्तिम अनलाइन टेबलका खेलाडीलाई फेरि नभेट्नुहोस्" } },
	{ "rating", cmd_rating, 0, 0, 0, "/rating", { "Your online ratings", "तपाईंको अनलाइन रेटिङ" } },
	{ "_timer", cmd_timer, 3, 3, CMD_INTERNAL, "" },
	{ "_online", cmd_online_open, 1, 1, CMD_INTERNAL, "" },
	{ "_online_queue", cmd_online_queue, 0, 0, CMD_INTERNAL, "" },
	{ "_gone", cmd_gone, 0, 0, CMD_INTERNAL, "" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct bot_command *bot_commands(size_t *n)
{
	*n = NCOMMANDS;
	return commands;
}

const struct bot_command *bot_command_find(const char *verb)
{
	for (size_t i = 0; verb && i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, verb) == 0)
			return &commands[i];
	return NULL;
}

/* The chat-wide settings /settings changes that a picker offers beside the games. */
static const char *const chat_settings[] = { "digits", "autoplay_after" };
static const char *const speeds[] = { "slow", "normal", "fast" };

int bot_command_choices(int kind, const char **out, int max)
{
	int n = 0;

	if (kind == CHOICES_GAMES || kind == CHOICES_SETTINGS)
		for (int i = 0; gb_games[i] && n < max; i++)
			out[n++] = gb_games[i]->name;
	if (kind == CHOICES_SETTINGS)
		for (size_t i = 0; i < sizeof(chat_settings) / sizeof(chat_settings[0]) && n < max; i++)
			out[n++] = chat_settings[i];
	if (kind == CHOICES_LEVELS)
		for (int l = GB_LEVEL_EASY; l < GB_LEVEL_COUNT && n < max; l++)
			out[n++] = gb_level_name(l);
	if (kind == CHOICES_SPEEDS)
		for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]) && n < max; i++)
			out[n++] = speeds[i];
	if (kind == CHOICES_LANGS)
		for (int l = 0; l < LANG_COUNT && n < max; l++)
			out[n++] = lang_code(l);
	return n;
}

void bot_command_describe(const struct bot_command *c, int lang, bool pickers, struct strbuf *sb)
{
	if (!c->desc[lang])
		return;
	sb_add(sb, c->desc[lang]);
	for (int k = 0; !pickers && k < CMD_ARGS && c->arg[k].name; k++) {
		const char *choices[GB_MAX_GAMES + 8];
		int n = bot_command_choices(c->arg[k].choices, choices, GB_MAX_GAMES + 8);
		struct strbuf last = { 0 };

		if (!c->arg[k].listed || !n)
			continue;
		sb_addf(&last, " %s ", tr(lang, M_OR));
		sb_add(sb, ": ");
		words_join(sb, choices, n, "", ", ", sb_str(&last));
		sb_release(&last);
		break;
	}
	if (c->flags & CMD_PLAY) {
		struct strbuf games = { 0 };

		if (games_titles_with_verb(&games, c->name, lang, ", "))
			sb_addf(sb, " (%s)", sb_str(&games));
		sb_release(&games);
	}
}

void bot_config_init(struct bot_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_lang = "en";
	cfg->bot_delay_ms[0] = 2500;
	cfg->bot_delay_ms[1] = 1200;
	cfg->bot_delay_ms[2] = 300;
	cfg->online = true;
	cfg->online_fill_ms = 30000;
	cfg->online_autoplay_s = 45;
	cfg->online_coins = 1000;
}

int64_t bot_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Bytes of the space or line break at p (any Unicode one: people type
 * "/new" then a line break, and phones put a no-break space after a
 * command chosen from the menu), or 0.
 */
static size_t blank_len(const char *p)
{
	uint32_t c;
	size_t n;

	if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		return 1;
	if ((unsigned char)*p < 0x80)
		return 0;
	n = utf8_decode(p, &c);
	return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 ? n : 0;
}

static const char *skip_blanks(const char *p)
{
	size_t n;

	while ((n = blank_len(p)) > 0)
		p += n;
	return p;
}

int command_parse_text(struct command *cmd, const char *text)
{
	size_t i = 0, len = 0, n;
	const char *p = skip_blanks(text);

	if (*p == '/')
		p++;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
		if (i + 1 >= sizeof(cmd->verb))
			return GB_EPARSE;
		cmd->verb[i++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		p++;
	}
	cmd->verb[i] = '\0';
	if (i == 0)
		return GB_EPARSE;
	if (*p == '@')  /* "/roll@gamebot" in groups */
		while (*p && !blank_len(p))
			p++;
	if (*p && !blank_len(p))
		return GB_EPARSE;
	/* each blank of the arguments a plain space; a long line cut between characters */
	for (p = skip_blanks(p); *p; p += n) {
		n = blank_len(p);
		if (n) {
			if (len + 1 >= sizeof(cmd->args))
				break;
			cmd->args[len++] = ' ';
			continue;
		}
		n = utf8_char_len(p);
		if (!n)
			n = 1;
		if (len + n >= sizeof(cmd->args))
			break;
		memcpy(cmd->args + len, p, n);
		len += n;
	}
	while (len > 0 && cmd->args[len - 1] == ' ')
		len--;
	cmd->args[len] = '\0';
	return GB_OK;
}


/* ---- replies ---- */

/*
 * Make the field s (cap bytes) valid UTF-8 in place: invalid bytes become
 * U+FFFD, and what then no longer fits is cut between characters.
 */
static void utf8_clean(char *s, size_t cap)
{
	struct strbuf sb = { 0 };

	if (utf8_valid(s))
		return;
	sb_add_utf8(&sb, s);
	utf8_copy(s, cap, sb_str(&sb), sb.len);
	sb_release(&sb);
}

/*
 * In the valid UTF-8 field s, replace each character that has no place in
 * an argument (name_unprintable(): controls, bidi controls, invisible
 * format characters; in a board they would break a line or turn the rest
 * of it around) with the one byte *with (with = NULL: drop it, a
 * zero-width joiner between two characters excepted); returns how many
 * printable characters remain.
 */
static int printable_only(char *s, const char *with)
{
	char *w = s;
	const char *r = s;
	int kept = 0;

	while (*r) {
		uint32_t c;
		size_t n = utf8_decode(r, &c);

		if (!n)
			n = 1;
		if (name_unprintable(c) && !(c == 0x200d && w > s && r[n] && !with)) {
			if (with)
				*w++ = *with;
		} else {
			memmove(w, r, n);
			w += n;
			kept++;
		}
		r += n;
	}
	*w = '\0';
	return kept;
}

/*
 * The command's chat (its settings) and the place its tables live in: a
 * forum topic "CHAT#THREAD" is a place of its own, with a store row of its
 * own for its tables, while the language, settings, wallets and stats are
 * those of CHAT.
 */
static int load_chat(struct bot *b, const struct command *cmd, struct ctx *c)
{
	struct store_chat place = { 0 };
	char chat[STORE_ID_LEN];
	int rc;

	place_chat(cmd->chat, chat, sizeof(chat));
	rc = store_chat_get(b->store, cmd->platform, chat, b->cfg.default_lang, &c->chat);
	if (rc || !place_thread(cmd->chat)[0]) {
		c->place = c->chat.id;
		return rc;
	}
	rc = store_chat_get(b->store, cmd->platform, cmd->chat, b->cfg.default_lang, &place);
	c->place = place.id;
	store_chat_release(&place);
	return rc;
}

/* The chat's language (English for one it cannot read) and its settings. */
static void chat_speech(struct ctx *c)
{
	json_error_t jerr;

	snprintf(c->lang_loaded, sizeof(c->lang_loaded), "%s", c->chat.lang);
	c->lang = lang_parse(c->chat.lang);
	if (c->lang < 0) {
		/* a language we cannot read: speak English, and save that back, not the unreadable code */
		c->lang = LANG_EN;
		snprintf(c->chat.lang, sizeof(c->chat.lang), "%s", lang_code(c->lang));
	}
	c->settings = json_loads(c->chat.settings ? c->chat.settings : "{}", 0, &jerr);
	if (!json_is_object(c->settings)) {
		json_decref(c->settings);
		c->settings = json_object();
	}
}

/*
 * The place's open table, if any, with its state and seats (and an online
 * seat's context). A saved state that cannot be read leaves the table
 * broken (c->broken): play on it is refused, the chat stays usable.
 */
static int load_open_table(struct bot *b, struct ctx *c)
{
	int rc;

	online_ctx_load(c);
	rc = store_table_open_get(b->store, c->place, &c->table);
	if (rc && rc != GB_ENOTFOUND)
		return rc;
	c->has_table = rc == GB_OK;
	rc = GB_OK;
	if (c->has_table) {
		rc = ctx_load_table(c);
		if (rc == GB_ESTATE) {
			/*
			 * A saved state that cannot be read: refuse play on it
			 * (below) but keep the chat usable - /stop, /help, /settings.
			 */
			free(c->st);
			c->st = NULL;
			c->broken = true;
			if (!c->game)
				c->game = gb_games[0]; /* a game this instance does not know */
			rc = GB_OK;
		}
		if (!rc)
			rc = ctx_load_seats(c);
	}
	return rc;
}

/*
 * Run one command on what the store holds now, outside any transaction:
 * its writes come later, in commit(), where the table's version check and
 * chat_unchanged() catch anything that changed in between.
 */
static int run_once(struct bot *b, const struct command *cmd, const struct bot_command *bc,
		    bool refused, struct ctx *c)
{
	int rc, nargs;
	bool hands, arity;

	ctx_init(c, b, cmd);
	c->replies = json_array();
	if (!c->replies)
		return GB_ENOMEM;
	rc = load_chat(b, cmd, c);
	if (rc)
		return rc;
	chat_speech(c);
	if (!bc || (bc->flags & CMD_INTERNAL) != (cmd->internal ? CMD_INTERNAL : 0)) {
		reply_alert(c, M_UNKNOWN_COMMAND, cmd->verb);
		return GB_OK;
	}
	if (refused) {
		/* button data naming a table elsewhere (press.c): nothing changes there or here */
		if (cmd->reply[0])
			reply_alert(c, M_PRESS_ELSEWHERE);
		return GB_OK;
	}
	/* a private chat's /start (a start link's payload after it) or /hand: any arguments */
	hands = (bc->flags & CMD_PRIVATE_HANDS) && cmd->private_chat && !cmd->button_table;
	nargs = count_words(cmd->args);
	arity = nargs >= bc->min && nargs <= bc->max;
	if (!hands && !arity) {
		reply_usage(c, bc->usage);
		return GB_OK;
	}
	rc = load_open_table(b, c);
	if (rc)
		return rc;
	if (hands && !c->has_table)
		return cmd_private_hands(c);
	if (!arity) {
		/* /start with words in a private chat that has a table of its own */
		reply_usage(c, bc->usage);
		return GB_OK;
	}
	/* a reaction's button stays good while the table moves on */
	if (cmd->button_table && bc->handler != cmd_react &&
	    (!c->has_table || c->table.id != cmd->button_table || c->seq != cmd->button_turn)) {
		/*
		 * A button of an earlier turn, of another table, or forged:
		 * change nothing. A pick with no handle to answer in place (a
		 * Telegram inline result) pressed no button the chat saw: the
		 * chat is not told about it either.
		 */
		if (cmd->reply[0])
			reply_alert(c, M_STALE_BUTTON);
		return GB_OK;
	}
	if ((bc->flags & (CMD_NEEDS_TABLE | CMD_NEEDS_GAME)) && !c->has_table) {
		reply_no_table(c);
		return GB_OK;
	}
	if ((bc->flags & CMD_NEEDS_GAME) && c->table.status != STORE_PLAYING) {
		reply_alert(c, M_NOT_STARTED);
		return GB_OK;
	}
	if ((bc->flags & CMD_NEEDS_GAME) && (c->broken || !c->st))
		return GB_ESTATE;
	if (cmd->anonymous && (bc->handler == cmd_join || bc->handler == cmd_seat)) {
		/* one name for several people cannot hold a seat */
		reply_alert(c, M_POST_AS_YOURSELF);
		return GB_OK;
	}
	if ((bc->flags & CMD_PLAYERS_ONLY) && c->my_seat < 0) {
		reply_alert(c, M_PLAYERS_ONLY);
		return GB_OK;
	}
	if ((bc->flags & CMD_ADMIN_ONLY) && !cmd->is_admin) {
		reply_alert(c, M_ADMINS_ONLY);
		return GB_OK;
	}
	return bc->handler(c);
}

/* Queue one alert (key, in the chat's language) for cmd's user in its own transaction. */
static void queue_alert(struct bot *b, const struct command *cmd, int key)
{
	struct store_chat chat = { 0 };
	int lang = LANG_EN;
	json_t *r = json_object();
	char *text = NULL, group[STORE_ID_LEN];

	if (!r || store_begin(b->store))
		goto out;
	if (cmd->from_platform[0]) {
		/* a command taken to an online table: told in the private chat it came from */
		struct command back = *cmd;

		snprintf(back.platform, sizeof(back.platform), "%s", cmd->from_platform);
		snprintf(back.chat, sizeof(back.chat), "%s", cmd->from_chat);
		snprintf(back.user, sizeof(back.user), "%s", cmd->from_user);
		back.from_platform[0] = '\0';
		store_rollback(b->store);
		json_decref(r);
		queue_alert(b, &back, key);
		return;
	}
	place_chat(cmd->chat, group, sizeof(group));
	if (!store_chat_get(b->store, cmd->platform, group, b->cfg.default_lang, &chat))
		lang = lang_parse(chat.lang) < 0 ? LANG_EN : lang_parse(chat.lang);
	json_object_set_new(r, "kind", json_string("alert"));
	json_object_set_new(r, "user", json_text(cmd->user));
	json_object_set_new(r, "text", json_string(tr(lang, key)));
	json_object_set_new(r, "lang", json_string(lang_code(lang)));
	if (cmd->reply[0])
		json_object_set_new(r, "reply", json_text(cmd->reply));
	text = json_dumps(r, JSON_COMPACT);
	if (text && !store_out_add(b->store, cmd->platform, cmd->chat, 0, "", text, cmd->now_ms))
		store_commit(b->store);
	else
		store_rollback(b->store);
out:
	free(text);
	json_decref(r);
	store_chat_release(&chat);
}

/* ---- group commit ---- */

/*
 * What people send is stored (seats, names), compared (is this your
 * seat?) and sent back (replies are JSON, which is UTF-8 only): make it
 * valid UTF-8 once, here, so all three see the same text. A platform's
 * ids already are; a console name or an id cut by a fixed field may not be.
 */
static void clean_input(struct command *c)
{
	utf8_clean(c->user, sizeof(c->user));
	utf8_clean(c->user_name, sizeof(c->user_name));
	utf8_clean(c->verb, sizeof(c->verb));
	utf8_clean(c->args, sizeof(c->args));
	/* names and arguments end up in boards and log lines: one line, read left to right; a name never blank */
	name_clean(c->user_name, sizeof(c->user_name), c->platform, c->user);
	printable_only(c->args, " ");
	printable_only(c->verb, " ");
}

/*
 * Is cmd (of bc) a command setting a table up (CMD_SETUP) before its game
 * starts, from the chat's admin or the opener of the table in its lobby?
 * One read of the place's open table, for those verbs alone.
 */
static bool setting_up(struct bot *b, const struct command *cmd, const struct bot_command *bc)
{
	struct store_chat place = { 0 };
	struct store_table t = { 0 };
	bool yes = false;
	int rc;

	if (!bc || !(bc->flags & CMD_SETUP) || cmd->button_table < 0)
		return false;
	store_read_begin(b->store);
	rc = store_chat_get(b->store, cmd->platform, cmd->chat, b->cfg.default_lang, &place);
	if (!rc)
		rc = store_table_open_get(b->store, place.id, &t);
	if (rc == GB_ENOTFOUND)
		yes = cmd->is_admin; /* no table yet: /new, /settings, /lang */
	else if (!rc && t.status == STORE_LOBBY)
		yes = cmd->is_admin || (!cmd->anonymous && strcmp(t.creator, cmd->user) == 0);
	store_read_end(b->store);
	store_table_release(&t);
	store_chat_release(&place);
	return yes;
}

/*
 * Is cmd over its rate limits? Then true, with what bot_handle() returns
 * in *rc. The player to move pressing a move on the current table
 * message's buttons is playing, not flooding: those presses are not
 * counted (stale or foreign ones are, and so is any other command carried
 * by the current turn's data, /board or /help, which a forged press could
 * repeat without end). Nor is a table being set up counted as moves are: an
 * admin opening a table, seating computers and choosing its rules sends a
 * command every second, and those count in a budget of their own,
 * SETUP_PER_MIN times the per-person one. Only with limits on.
 */
static bool rate_limited(struct bot *b, const struct command *cmd, const struct bot_command *bc, int *rc)
{
	const char *scope = NULL;
	enum limit_verdict v;
	char labels[32], key[STORE_ID_LEN + 8];

	if (cmd->internal || (b->cfg.rate_user_per_min <= 0 && b->cfg.rate_chat_per_min <= 0) ||
	    (bc && (bc->flags & CMD_PLAY) && bot_press_is_own_turn(b, cmd)))
		return false;
	if (setting_up(b, cmd, bc)) {
		snprintf(key, sizeof(key), "%s%s", LIMIT_SETUP, cmd->chat);
		v = limit_check(cmd->platform, key, cmd->user, cmd->now_ms,
				SETUP_PER_MIN * b->cfg.rate_user_per_min, 0, &scope);
		if (v == LIMIT_OK)
			v = limit_check(cmd->platform, cmd->chat, cmd->user, cmd->now_ms, 0,
					b->cfg.rate_chat_per_min, &scope);
	} else {
		v = limit_check(cmd->platform, cmd->chat, cmd->user, cmd->now_ms, b->cfg.rate_user_per_min,
				b->cfg.rate_chat_per_min, &scope);
	}
	if (v == LIMIT_OK)
		return false;
	snprintf(labels, sizeof(labels), "scope=\"%s\"", scope);
	metrics_inc("gamebot_rate_limited_total", labels, 1);
	/*
	 * One polite answer per window (one row per user and minute at most);
	 * past it nothing at all, not even an ack row: a flood writes nothing,
	 * and the adapter answers a press without a row, or not at all.
	 */
	*rc = v == LIMIT_SILENT ? GB_ELIMIT : GB_OK;
	if (v != LIMIT_SILENT)
		queue_alert(b, cmd, M_SLOW_DOWN);
	return true;
}

int bot_handle(struct bot *b, const struct command *in)
{
	struct command clean = *in, routed;
	const struct command *cmd = &clean;
	const struct bot_command *bc;
	enum press_verdict press;
	struct ctx c;
	int64_t started, held = 0;
	int rc = GB_OK;

	clean_input(&clean);
	bc = bot_command_find(cmd->verb);
	/* another bot's command, seen because the platform shows every bot all of them */
	if (!bc && cmd->unaddressed && !cmd->internal)
		return GB_OK;
	/* a press acts where it was pressed; only a move of one's own seat is taken to its table */
	rc = press_place(b, &clean, bc, &press);
	if (rc)
		return rc;
	if (rate_limited(b, cmd, bc, &rc))
		return rc;
	/* from a private chat, to the person's seat at an online table (/start there greets) */
	if (press == PRESS_HERE && b->cfg.online && !(clean.private_chat && bc && bc->handler == cmd_start) &&
	    online_route(b, &clean, bc, &routed))
		cmd = &routed;
	else if (clean.private_chat && bc && bc->handler == cmd_online)
		clean.button_table = 0; /* "Play again" under a finished online table: a new queue */
	started = mono_us();

	/*
	 * Read and decide without a lock, then write in one short
	 * transaction; when the table moved in between (its version check,
	 * or the chat's settings check, fails) read and decide again.
	 */
	for (int attempt = 0; attempt < CONFLICT_TRIES; attempt++) {
		int64_t t0;

		commit_deciding(1);
		store_read_begin(b->store);
		rc = run_once(b, cmd, bc, press == PRESS_REFUSED, &c);
		/*
		 * A repeated delivery: commit() finds its update id taken and
		 * keeps nothing; one the command cannot even run for (a state
		 * that cannot be read) is answered as a repeat all the same.
		 */
		if (rc && rc != GB_ECONFLICT && cmd->update_id[0] &&
		    store_was_processed(b->store, cmd->platform, cmd->update_id) == GB_EDUP)
			rc = GB_EDUP;
		if (!rc)
			rc = commit_prepare(&c);
		store_read_end(b->store);
		commit_deciding(-1);
		if (!rc) {
			t0 = 0;
			rc = commit_write(b, &c, &t0);
			held += t0;
			if (t0 > b->lock_max_us)
				b->lock_max_us = t0;
		}
		ctx_release(&c);
		if (rc != GB_ECONFLICT)
			break;
		b->conflicts++;
	}
	/*
	 * Tell a person what happened without touching any table: nothing was
	 * changed. The scheduler's own commands have nobody to tell (a failing
	 * timer is retried and logged by bot_run_timers()). When the store
	 * failed (locked past its timeout, disk full, read-only), a delivery
	 * the platform sends again is not acknowledged: it gets its answer
	 * then, and writing an alert now would only meet the same fault.
	 */
	if (rc == GB_ESTORE || rc == GB_ENOMEM) {
		const char *why = store_last_error();

		gb_log("chat %s:%s: /%s not done, nothing changed: %s", cmd->platform, cmd->chat,
		       cmd->verb, rc == GB_ESTORE && why[0] ? why : gb_strerror(rc));
	}
	if (rc && rc != GB_EDUP && !cmd->internal &&
	    !((rc == GB_ESTORE || rc == GB_ENOMEM) && cmd->redelivered))
		queue_alert(b, cmd, rc == GB_ECONFLICT ? M_BUSY : M_INTERNAL);
	{
		char labels[96];

		snprintf(labels, sizeof(labels), "verb=\"%s\",result=\"%s\"",
			 bc ? (bc->flags & CMD_INTERNAL ? "timer" : bc->name) : "unknown",
			 !rc ? "ok" : rc == GB_EDUP ? "duplicate" : rc == GB_ECONFLICT ? "busy" : "error");
		metrics_inc("gamebot_commands_total", labels, 1);
		metrics_observe("gamebot_command_latency_ms", NULL, (double)(mono_us() - started) / 1000.0);
		metrics_observe("gamebot_store_transaction_ms", NULL, (double)held / 1000.0);
	}
	return rc;
}
