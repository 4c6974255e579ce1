/*
 * ludo.h - rules core for Ludo (rules of record: games/rules/ludo.md, LU-1..LU-22;
 * the Nepali original at its end wins where the two differ).
 *
 * The game is `ludo_game` (see game.h for the operations). Its state is one
 * plain `struct ludo`: no pointers, fixed size, copied with memcpy, so the
 * computer players can search by copying it. Everything below is a read-only
 * view of that state for renderers (bot/) and computer players (games/ai/):
 * nothing here changes a state; only ludo_game.apply() does.
 *
 * Board model. Each seat walks its own route, counted from its own base:
 *   0        in base (yard)
 *   1..51    the shared ring; 1 is the seat's start square, and route
 *            position p lies on ring square (corner*13 + p - 1) mod 52
 *   52..56   the seat's own home column (nobody else walks there)
 *   57       the centre (home); a token there never moves again
 * Ring squares 0, 8, 13, 21, 26, 34, 39, 47 carry a star (safe): route
 * positions 1, 9, 14, 22, 27, 35, 40, 48 of every seat (LU-3).
 * Seats sit at corners: two players at corners 0 and 2 (opposite, LU-4),
 * three at 0, 1, 2, four at 0, 1, 2, 3. Turns go seat 0, 1, 2, ...
 *
 * A turn is `roll` (phase LUDO_PHASE_ROLL) and then, only when the player
 * has a real choice, `move N` (phase LUDO_PHASE_MOVE, the die waiting in
 * `die`). Moves with no real choice (LU-7) are made inside the roll's
 * apply() and reported as LUDO_EV_AUTOMOVE ("move N" in the did list).
 *
 * Usage (renderer: where would each token land?):
 *     const struct ludo *lu = st;
 *     for (int t = 0; t < LUDO_TOKENS; t++)
 *             if (lu->phase == LUDO_PHASE_MOVE && ludo_target(lu, t, lu->die) >= 0) ...
 */
#ifndef GB_LUDO_H
#define GB_LUDO_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"

#define LUDO_MIN_PLAYERS 2  /* LU-4 */
#define LUDO_MAX_PLAYERS 4
#define LUDO_TOKENS 4       /* tokens per seat */
#define LUDO_RING 52        /* squares of the shared ring */
#define LUDO_SIDE 13        /* ring squares from one start square to the next */
#define LUDO_LAST_RING 51   /* last route position on the ring (LU-2) */
#define LUDO_HOME_FIRST 52  /* first square of the home column */
#define LUDO_CENTRE 57      /* the centre: route position of a finished token */
#define LUDO_NSTARS 8       /* safe squares, at any table size (LU-3) */
#define LUDO_MAX_SIXES 3    /* the third six in a row ends the turn (LU-21) */

/* Phases of a turn. */
enum ludo_phase {
	LUDO_PHASE_ROLL = 0,  /* the seat must roll (also the phase of a finished game) */
	LUDO_PHASE_MOVE = 1,  /* the seat must choose a token for `die` */
};

/* House rules: indexes into ludo_game.rules and struct gb_rules.v. */
enum ludo_rule {
	LUDO_RULE_ONE_RELEASES = 0, /* "off"/"on": a one also brings a token out (LU-11) */
	LUDO_RULE_SIX_BONUS,        /* "on"/"off": a six gives another roll (LU-20) */
	LUDO_RULE_CAPTURE_BONUS,    /* "on"/"off": a capture gives another roll (LU-20) */
	LUDO_NRULES
};

/*
 * Events reported by apply(), in the order they happen. `seat` is always the
 * seat whose turn it is. The did-list text is in quotes.
 */
enum ludo_event {
	LUDO_EV_ROLL = 1,   /* a = die                                   "roll 6"  */
	LUDO_EV_MOVE,       /* chosen move: a = token 0..3, b = from, c = to  "move 1" */
	LUDO_EV_AUTOMOVE,   /* the same, made by itself (LU-7)            "move 1" */
	LUDO_EV_CAPTURE,    /* a = captured seat, b = tokens sent home,
	                       c = ring square                            "capture 2" */
	LUDO_EV_CENTRE,     /* a = token that reached the centre          "centre" */
	LUDO_EV_EXTRA,      /* another roll; a = enum ludo_extra           "extra roll six" */
	LUDO_EV_WASTED,     /* a = die no token could use (LU-22)         "wasted" */
	LUDO_EV_THIRD_SIX,  /* third six in a row: turn over (LU-21)      "third six" */
	LUDO_EV_WIN,        /* all four tokens home: game over (LU-19)    "wins" */
};

/* The one reason announced for an extra roll, in priority order (LU-20). */
enum ludo_extra {
	LUDO_EXTRA_CAPTURE = 0,
	LUDO_EXTRA_CENTRE,
	LUDO_EXTRA_SIX,
};

/*
 * The state. Read it freely; change it only through ludo_game.apply().
 * Seats >= players keep all-zero tokens and corner 0.
 */
struct ludo {
	struct gb_rng rng;          /* dice not forced by the action come from here */
	struct gb_rules rules;      /* v[enum ludo_rule]: index into the rule's values */
	int32_t turns;              /* turns finished (a game's last turn counts once won) */
	uint8_t players;            /* 2..4 */
	uint8_t seat;               /* seat to act; the winner once the game is over */
	uint8_t phase;              /* enum ludo_phase */
	uint8_t die;                /* LUDO_PHASE_MOVE: the roll awaiting a move; else 0 */
	uint8_t sixes;              /* sixes rolled in a row in this turn, 0..2 */
	int8_t winner;              /* seat, or -1 while the game runs */
	uint8_t corner[GB_MAX_SEATS];            /* corner 0..3 of each seat */
	uint8_t pos[GB_MAX_SEATS][LUDO_TOKENS];  /* route positions 0..57 */
};

extern const struct gb_game ludo_game;

/* Star squares as route positions (the same for every seat) and as ring squares. */
extern const uint8_t ludo_star_route[LUDO_NSTARS];
extern const uint8_t ludo_star_ring[LUDO_NSTARS];

/* ludo_corners[players][seat]: the corner of each seat at a table of 2..4. */
extern const uint8_t ludo_corners[GB_MAX_SEATS + 1][GB_MAX_SEATS];

/* Ring square 0..51 of route position p (1..51) for a seat at `corner`; -1 off the ring. */
int ludo_ring_square(int corner, int p);

/* Is route position p a star square (p on the ring and safe)? */
bool ludo_route_is_star(int p);

/* Is ring square sq (0..51) a star? */
bool ludo_ring_is_star(int sq);

/* Is house rule `rule` (enum ludo_rule) switched on in this game? */
bool ludo_rule_on(const struct ludo *st, int rule);

/*
 * Where token `token` (0..3) of `seat` would land with `die` (1..6): the route
 * position, or -1 when that token cannot use the number (in base without a
 * six or, with one_releases=on, a one; already home; past the centre, LU-18).
 * Ignores whose turn it is; arguments out of range give -1.
 */
int ludo_target_of(const struct ludo *st, int seat, int token, int die);

/* ludo_target_of() for the seat to act; -1 once the game is over. */
int ludo_target(const struct ludo *st, int token, int die);

/*
 * How many opponent tokens the move of `token` of `seat` with `die` would
 * send home (LU-12..16); 0 when it captures nothing or cannot move.
 */
int ludo_captures(const struct ludo *st, int seat, int token, int die);

/*
 * The tokens of the seat to act that can use `die`, lowest first, into out
 * (room for LUDO_TOKENS). Returns the count (0: the die would be wasted).
 */
int ludo_movable(const struct ludo *st, int die, int out[LUDO_TOKENS]);

/*
 * Like ludo_movable() but one token per distinct outcome: tokens standing on
 * the same square give the same result (LU-7), so only the lowest of them is
 * listed. Returns the count; 1 means apply() would move by itself. This is
 * the branching a search needs.
 */
int ludo_choices(const struct ludo *st, int die, int out[LUDO_TOKENS]);

/* Tokens of `seat` in the centre, 0..4. */
int ludo_home_count(const struct ludo *st, int seat);

/*
 * The parts of ludo_game that its rules define, for its row
 * (games/rows/ludo.c) to name, beside its computer players (who search with
 * ludo_apply() and draw at random among ludo_legal()).
 * Everyone else calls the operations through ludo_game (struct gb_game
 * says what each does).
 */
extern const struct gb_rule_def ludo_rules[LUDO_NRULES];
int ludo_init(void *st, const struct gb_setup *su);
int ludo_turn(const void *st);
int ludo_legal(const void *st, struct gb_action *out);
int ludo_apply(void *st, const struct gb_action *act, struct gb_events *ev);
int ludo_parse(const void *st, const char *text, struct gb_action *out);
void ludo_format(const void *st, const struct gb_action *act, char *buf, size_t n);
void ludo_format_event(const struct gb_event *e, char *buf, size_t n);
json_t *ludo_to_json(const void *st);
bool ludo_to_text(const void *st, struct strbuf *sb);
int ludo_from_json(void *st, const json_t *j);
int ludo_check(const void *st);
void ludo_outcome(const void *st, struct gb_outcome *out);

#endif
