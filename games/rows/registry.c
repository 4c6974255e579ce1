/*
 * registry.c - the registry of games: the four built in, each by its row
 * (games/rows/<game>.c), then those gb_game_register() adds, in gb_games.
 * It stands above every row, so nothing below it names a game; it is
 * written before any thread starts and only read after (game.h).
 */
#include "../game.h"

#include <string.h>

#include "../baghchal.h"
#include "../callbreak.h"
#include "../ludo.h"
#include "../snakes.h"

/* The games built in; gb_game_register() adds to the end. */
const struct gb_game *gb_games[GB_MAX_GAMES + 1] = {
	&snakes_game,
	&ludo_game,
	&baghchal_game,
	&callbreak_game,
	NULL,
};

/* A name as typed after /new and stored with each table: 1..15 of a-z. */
static bool name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n >= GB_GAME_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] < 'a' || name[i] > 'z')
			return false;
	return true;
}

/* Does g hold everything a table, the arena and the script mode call? */
static bool descriptor_ok(const struct gb_game *g)
{
	return name_ok(g->name) && g->min_players >= 1 && g->min_players <= g->max_players &&
	       g->max_players <= GB_MAX_SEATS && g->default_players >= g->min_players &&
	       g->default_players <= g->max_players && g->nrules >= 0 && g->nrules <= GB_MAX_RULES &&
	       (g->nrules == 0 || g->rules) && g->state_size > 0 && g->init && g->turn && g->legal &&
	       g->apply && g->parse && g->format && g->format_event && g->to_json && g->from_json &&
	       g->check && g->outcome;
}

int gb_game_register(const struct gb_game *g)
{
	int n = 0;

	if (!g || !descriptor_ok(g))
		return GB_EGAME;
	if (gb_game_find(g->name))
		return GB_EEXISTS;
	while (gb_games[n])
		n++;
	if (n >= GB_MAX_GAMES)
		return GB_EFULL;
	gb_games[n] = g;
	gb_games[n + 1] = NULL;
	return GB_OK;
}

const struct gb_game *gb_game_find(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; gb_games[i]; i++)
		if (strcmp(gb_games[i]->name, name) == 0)
			return gb_games[i];
	return NULL;
}
