/*
 * ai.c - the computer players' entry point: the level names, the random
 * level every game has, and the hand-over to the players a game's
 * descriptor names (a game without any - Snakes and Ladders has no choices
 * to make - plays every level at random), and to the seats only the arena
 * offers. Where the game's row has a view, the hand-over is of the view
 * alone: the players never see the state.
 */
#include "ai.h"

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

static const char *const level_names[GB_LEVEL_COUNT] = { "random", "easy", "medium", "hard" };

int gb_level_parse(const char *name)
{
	for (int i = 0; name && i < GB_LEVEL_COUNT; i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

const char *gb_level_name(int level)
{
	if (level < 0 || level >= GB_LEVEL_COUNT)
		return "unknown";
	return level_names[level];
}

int gb_ai_random(const struct gb_game *g, const void *st, uint64_t seed, struct gb_action *out)
{
	return gb_ai_random_legal(g->legal, st, seed, out);
}

int gb_ai_random_legal(int (*legal)(const void *st, struct gb_action *out), const void *st, uint64_t seed,
		       struct gb_action *out)
{
	struct gb_action acts[GB_MAX_LEGAL];
	struct gb_rng rng;
	int n = legal(st, acts);

	if (n <= 0)
		return GB_EOVER;
	gb_rng_seed(&rng, seed);
	*out = acts[gb_rng_below(&rng, (uint32_t)n)];
	return GB_OK;
}

/* Room for any game's view, aligned for any of its fields. */
struct view_buf {
	alignas(max_align_t) unsigned char b[GB_AI_VIEW_MAX];
};

/* What the players of g read: the view of the seat to move made in *buf, or the state itself. */
static const void *players_input(const struct gb_game *g, const void *st, struct view_buf *buf)
{
	if (!g->ai->view)
		return st;
	assert(g->ai->view_size <= sizeof(buf->b));
	g->ai->view(st, buf->b);
	return buf->b;
}

int gb_ai_choose(const struct gb_game *g, const void *st, int level, uint64_t seed,
		 int budget_ms, struct gb_action *out)
{
	struct view_buf buf;

	if (level < GB_LEVEL_RANDOM || level >= GB_LEVEL_COUNT)
		level = GB_LEVEL_RANDOM;
	if (!g->ai || !g->ai->choose || (level == GB_LEVEL_RANDOM && !g->ai->view))
		return gb_ai_random(g, st, seed, out);
	return g->ai->choose(players_input(g, st, &buf), level, seed, budget_ms, out);
}

const struct gb_ai_seat *gb_ai_seat_find(const struct gb_game *g, const char *name)
{
	const struct gb_ai_seat *found = NULL;

	for (int i = 0; name && g && g->ai && g->ai->seats && g->ai->seats[i].name && !found; i++)
		if (strcmp(g->ai->seats[i].name, name) == 0)
			found = &g->ai->seats[i];
	return found;
}

int gb_ai_seat_choose(const struct gb_game *g, const struct gb_ai_seat *s, const void *st, int budget,
		      uint64_t seed, struct gb_action *out)
{
	struct view_buf buf;

	assert(g->ai && s && s->choose);
	return s->choose(players_input(g, st, &buf), budget, seed, out);
}

int gb_ai_reference(const struct gb_game *g, const void *st, int budget, uint64_t seed,
		    struct gb_action *out)
{
	assert(g->ai && g->ai->seats && g->ai->seats[0].name);
	return gb_ai_seat_choose(g, &g->ai->seats[0], st, budget, seed, out);
}
