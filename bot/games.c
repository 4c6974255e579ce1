/*
 * games.c - the bot's row of each game (see games.h): the four built in,
 * then any added by bot_game_register(), in that order, the order of
 * gb_games.
 */
#include "games.h"

#include <string.h>

#include "games/baghchal.h"
#include "games/callbreak.h"
#include "games/ludo.h"
#include "games/snakes.h"

static const char *const snakes_aliases[] = { "snake", "snakesandladders", NULL };
static const char *const baghchal_aliases[] = { "bagh", "bagh-chal", NULL };
static const char *const callbreak_aliases[] = { "call", "call-break", NULL };

static const struct bot_game builtin[] = {
	{
		.game = &snakes_game,
		.title = { "Snakes and Ladders", "साँप सिँढी" },
		.aliases = snakes_aliases,
		.rules = { "Snakes and Ladders: roll one die and move; a ladder's foot climbs, a snake's "
			   "head slides down. First to reach 100 wins.",
			   "साँप सिँढी: एउटा पासा फालेर टोकन त्यति कोठा हिँडाउनुहोस्। सिँढीको फेदमा अडिए "
			   "चढ्नुहुन्छ, साँपको टाउकोमा अडिए पुच्छरसम्म झर्नुहुन्छ। कोठा १०० मा पहिले पुग्नेले "
			   "जित्छ।" },
		.render = &render_snakes,
	},
	{
		.game = &ludo_game,
		.title = { "Ludo", "लुडो" },
		.rules = { "Ludo: a six brings a token out; move all four tokens round the board into the "
			   "centre. Landing on an opponent (not on a star) sends it back to its base. A six, "
			   "a capture or reaching the centre gives another roll; a third six in a row ends "
			   "the turn.",
			   "लुडो: छक्काले गोटी खोरबाट निकाल्छ; चारै गोटी घेरा घुमाएर बीचमा पुर्याउनुहोस्। "
			   "अर्काको गोटी उभिएको कोठामा (तारामा बाहेक) पुगे त्यो गोटी खोरमा फर्किन्छ। छक्का, "
			   "गोटी काट्नु वा बीचमा पुग्नुले फेरि पालो दिन्छ; लगातार तेस्रो छक्कामा पालो "
			   "सकिन्छ।" },
		.render = &render_ludo,
	},
	{
		.game = &baghchal_game,
		.title = { "Bagh Chal", "बाघचाल" },
		.aliases = baghchal_aliases,
		.rules = { "Bagh Chal: goats place all 20 goats, then move; tigers step or jump over one "
			   "goat to capture it. Tigers win with five captures; goats win by blocking all "
			   "four tigers.",
			   "बाघचाल: बाख्रा खेलाडीले पहिले बीसै बाख्रा राख्छन्, अनि सार्छन्; बाघ एक पाइला "
			   "सर्छ वा एउटा बाख्रा नाघेर खान्छ। पाँच बाख्रा खाए बाघको जित; चारै बाघ अड्काए "
			   "बाख्राको जित।" },
		.sides = { { "goats", "बाख्रा" }, { "tigers", "बाघ" } },
		.render = &render_baghchal,
	},
	{
		.game = &callbreak_game,
		.title = { "Call Break", "कल ब्रेक" },
		.aliases = callbreak_aliases,
		.rules = { "Call Break: bid 1 to 8 tricks, follow suit, beat the trick if you can, trump "
			   "with spades when void. Make your bid to score it (+0.1 per extra trick); fall "
			   "short and lose it.",
			   "कल ब्रेक: १ देखि ८ हातसम्म कल गर्नुहोस्, रङ पछ्याउनुहोस्, सके जित्नुहोस्, रङ "
			   "सकिए हुकुमले तुरुप काट्नुहोस्। कल पुगे कलजति अंक (बढी हात एकको ०.१); नपुगे पूरै "
			   "कल घट्छ।" },
		.render = &render_callbreak,
	},
};

#define NBUILTIN ((int)(sizeof(builtin) / sizeof(builtin[0])))

static const struct bot_game *added[GB_MAX_GAMES];
static int nadded;

/* The i-th row (built in first), or NULL past the end. */
static const struct bot_game *row_at(int i)
{
	if (i < 0)
		return NULL;
	if (i < NBUILTIN)
		return &builtin[i];
	return i - NBUILTIN < nadded ? added[i - NBUILTIN] : NULL;
}

const struct bot_game *bot_game_of(const struct gb_game *g)
{
	const struct bot_game *r;

	for (int i = 0; g && (r = row_at(i)); i++)
		if (r->game == g)
			return r;
	return NULL;
}

/* Does row hold everything the bot shows of a game? */
static bool row_ok(const struct bot_game *row)
{
	const struct render_game *rg = row->render;

	if (!row->game || !rg || !rg->board || !rg->status || !rg->event)
		return false;
	for (int l = 0; l < LANG_COUNT; l++)
		if (!row->title[l] || !row->title[l][0] || !row->rules[l] || !row->rules[l][0])
			return false;
	for (int s = 0; (row->game->flags & GB_FIXED_SIDES) && s < row->game->max_players; s++)
		for (int l = 0; l < LANG_COUNT; l++)
			if (!row->sides[s][l] || !row->sides[s][l][0])
				return false;
	return true;
}

int bot_game_register(const struct bot_game *row)
{
	int rc;

	if (!row || !row_ok(row))
		return GB_EGAME;
	if (bot_game_of(row->game))
		return GB_EEXISTS;
	if (nadded >= GB_MAX_GAMES)
		return GB_EFULL;
	rc = gb_game_register(row->game);
	if (rc)
		return rc;
	added[nadded++] = row;
	return GB_OK;
}

const char *bot_game_title(const struct gb_game *g, int lang)
{
	const struct bot_game *r = bot_game_of(g);

	if (!r)
		return g ? g->name : "?";
	return r->title[lang >= 0 && lang < LANG_COUNT ? lang : LANG_EN];
}

const char *bot_game_side(const struct gb_game *g, int seat, int lang)
{
	const struct bot_game *r = bot_game_of(g);

	if (!r || !(g->flags & GB_FIXED_SIDES) || seat < 0 || seat >= g->max_players)
		return NULL;
	return r->sides[seat][lang >= 0 && lang < LANG_COUNT ? lang : LANG_EN];
}

void game_sides_join(struct strbuf *sb, const struct gb_game *g, int lang, const char *sep, const char *last)
{
	const char *sides[GB_MAX_SEATS];
	int n = 0;

	for (int i = 0; i < g->max_players && bot_game_side(g, i, lang); i++)
		sides[n++] = bot_game_side(g, i, lang);
	words_join(sb, sides, n, "", sep, last);
}

void words_join(struct strbuf *sb, const char *const *words, int n, const char *prefix, const char *sep,
		const char *last)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_add(sb, i == n - 1 && last ? last : sep);
		sb_add(sb, prefix);
		sb_add(sb, words[i]);
	}
}

void games_join(struct strbuf *sb, const char *prefix, const char *sep, const char *last)
{
	int n = 0;

	while (gb_games[n])
		n++;
	{
		const char *names[GB_MAX_GAMES];

		for (int i = 0; i < n; i++)
			names[i] = gb_games[i]->name;
		words_join(sb, names, n, prefix, sep, last);
	}
}

int games_titles_with(struct strbuf *sb, unsigned flags, int lang, const char *sep, const char *last)
{
	const char *titles[GB_MAX_GAMES];
	int n = 0;

	for (int i = 0; gb_games[i]; i++)
		if ((gb_games[i]->flags & flags) == flags)
			titles[n++] = bot_game_title(gb_games[i], lang);
	words_join(sb, titles, n, "", sep, last);
	return n;
}

bool game_has_verb(const struct gb_game *g, const char *verb)
{
	if (!g->verbs)
		return true;
	for (int i = 0; g->verbs[i]; i++)
		if (strcmp(g->verbs[i], verb) == 0)
			return true;
	return false;
}

int games_titles_with_verb(struct strbuf *sb, const char *verb, int lang, const char *sep)
{
	const char *titles[GB_MAX_GAMES];
	int n = 0;

	for (int i = 0; gb_games[i]; i++)
		if (gb_games[i]->verbs && game_has_verb(gb_games[i], verb))
			titles[n++] = bot_game_title(gb_games[i], lang);
	words_join(sb, titles, n, "", sep, NULL);
	return n;
}
