/*
 * games.c - the bot's rows of the games (see games.h): the four built in
 * (each in its render_<game>.c), then any added by bot_game_register(), in
 * that order, the order of gb_games.
 */
#include "games.h"

#include <string.h>


/* The games built in, in the order of gb_games: each row beside its renderer. */
static const struct bot_game *const builtin[] = { &snakes_row, &ludo_row, &baghchal_row, &callbreak_row };

#define NBUILTIN ((int)(sizeof(builtin) / sizeof(builtin[0])))

static const struct bot_game *added[GB_MAX_GAMES];
static int nadded;

/* The i-th row (built in first), or NULL past the end. */
static const struct bot_game *row_at(int i)
{
	if (i < 0)
		return NULL;
	if (i < NBUILTIN)
		return builtin[i];
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
