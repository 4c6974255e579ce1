/*
 * ai.h - computer players: one entry point for every game and level.
 *
 * A computer player is a pure function of what its seat may know and of a
 * seed for its own randomness (tie-breaks, varied openings): the same state,
 * level and seed give the same action. What its seat may know is the
 * game's to say, in its row (struct gb_ai's `view`): gb_ai_choose() is
 * handed the whole state, builds that view from it and gives the players
 * the view alone, so a Call Break player is handed a struct callbreak_view
 * and has no other hand to read. Ludo and Bagh Chal hide nothing (every
 * token, every piece and the die are on the table): their rows have no
 * view, and their players read the state itself.
 */
#ifndef GB_AI_H
#define GB_AI_H

#include <stddef.h>
#include <stdint.h>

#include "../game.h"

enum gb_level {
	GB_LEVEL_RANDOM = 0, /* a uniformly random legal action: the baseline */
	GB_LEVEL_EASY,
	GB_LEVEL_MEDIUM,
	GB_LEVEL_HARD,
	GB_LEVEL_COUNT
};

/* The most bytes a game's view may take (gb_ai_choose() holds it on the stack). */
#define GB_AI_VIEW_MAX 2048

/*
 * A seat that only the arena offers (`gamebot arena callbreak --seats
 * ismcts,...`), never people: a reference opponent, as a yardstick for the
 * levels, or a level as it played before a change (`hard-classic`), to
 * measure the change. It reads what the game's levels read (the view, or
 * the state where the game has none).
 */
struct gb_ai_seat {
	const char *name;    /* its name in --seats: not a level's, and the same seat wherever two games share it */
	/* its choice, budget being 1..budget_max, or 0 for its default */
	int (*choose)(const void *view, int budget, uint64_t seed, struct gb_action *out);
	int budget_max;      /* the largest budget it takes; 0: it takes none (and ignores one given) */
};

/* The most arena seats a game may name. */
#define GB_AI_SEATS_MAX 4

/*
 * A game's computer players, named by its row (struct gb_game's
 * `ai`). choose() plays the levels for the seat whose turn it is, with the
 * same contract as gb_ai_choose(), from what `view` made of the state (the
 * state itself when the game has no view). A game may add seats that only
 * the arena offers (struct gb_ai_seat); its reference opponent, if it has
 * one, comes first.
 */
struct gb_ai {
	/*
	 * What the seat to move may know (between rounds, when nobody is to
	 * move: what a spectator may), written as view_size bytes (at most
	 * GB_AI_VIEW_MAX) to `view`, aligned for any type; NULL (and
	 * view_size 0) when the game hides nothing.
	 */
	void (*view)(const void *st, void *view);
	size_t view_size;
	/* The levels easy to hard, and for a game with a view the random
	   level too: gb_ai_random() reads the state, which its players never get. */
	int (*choose)(const void *view, int level, uint64_t seed, int budget_ms, struct gb_action *out);
	/* the arena's seats, up to GB_AI_SEATS_MAX, ended by one with a NULL name; NULL: none */
	const struct gb_ai_seat *seats;
};

/* "random", "easy", "medium", "hard" -> level, or -1. */
int gb_level_parse(const char *name);

/* The name of a level. Never NULL. */
const char *gb_level_name(int level);

/*
 * Choose an action for the seat whose turn it is (for callbreak between
 * rounds: `next`). budget_ms bounds the thinking time of searching levels
 * (0 = the level's default; Ludo and Call Break scale their search sizes to
 * it and never read the clock). st is the whole state; where the game's
 * row has a view, the players are handed that view of st alone. Returns
 * GB_OK, or GB_EOVER when there is nothing to do.
 */
int gb_ai_choose(const struct gb_game *g, const void *st, int level, uint64_t seed,
		 int budget_ms, struct gb_action *out);

/* Game g's arena seat called name (struct gb_ai's `seats`), or NULL when it has none of that name. */
const struct gb_ai_seat *gb_ai_seat_find(const struct gb_game *g, const char *name);

/*
 * The arena seat s of game g (one of its `seats`) for the seat whose turn
 * it is in st, with a budget of 0..s->budget_max; otherwise as
 * gb_ai_choose().
 */
int gb_ai_seat_choose(const struct gb_game *g, const struct gb_ai_seat *s, const void *st, int budget,
		      uint64_t seed, struct gb_action *out);

/* The reference opponent of game g (its first arena seat, which it must have): gb_ai_seat_choose(). */
int gb_ai_reference(const struct gb_game *g, const void *st, int budget, uint64_t seed,
		    struct gb_action *out);

/*
 * The players of the games that hide nothing (games/ai/<game>_ai.c), same
 * contract as gb_ai_choose, named by their games' rows (games/rows/): they read
 * the state. Levels a game does not implement fall back to gb_ai_random().
 * Call Break's players read its view: callbreak_ai_choose() and
 * callbreak_ismcts_choose() (callbreak_ai.h, callbreak_ismcts.h).
 */
int ludo_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);
int baghchal_ai_choose(const void *st, int level, uint64_t seed, int budget_ms, struct gb_action *out);

/* A uniformly random legal action (the `random` level). */
int gb_ai_random(const struct gb_game *g, const void *st, uint64_t seed, struct gb_action *out);

/* The same from a game's own legal(): its players' (they stand below the
 * row that names them, and so never name the row). */
int gb_ai_random_legal(int (*legal)(const void *st, struct gb_action *out), const void *st, uint64_t seed,
		       struct gb_action *out);

#endif
