/*
 * baghchal.h - rules core for Bagh Chal (tigers and goats), rules of record
 * BC-1..BC-15 in games/rules/bagh-chal.md (the Nepali original at its end wins).
 *
 * Two seats: seat 0 plays the goats, seat 1 the tigers; goats move first.
 * The game is `baghchal_game` (struct gb_game, see game.h). This header also
 * exposes a read-only view of the state for renderers (bot/) and the fast,
 * allocation-free move generation that computer players (games/ai/) search
 * with: baghchal_moves() + baghchal_make()/baghchal_unmake(), a Zobrist hash
 * kept up to date incrementally, and an exact position key.
 *
 * Board. Points are indexed 0..24 as a1 b1 c1 d1 e1 a2 ... e5, that is
 * index = rank * 5 + file (file a..e = 0..4, rank 1..5 = 0..4). The lines of
 * the Alquerque board are not typed in: baghchal_step and baghchal_jump are
 * derived at compile time from BC-2 (every point has its orthogonal lines;
 * points with file + rank even also have their diagonals). The test suite
 * compares them with a hand-written table of all 25 points.
 *
 * Guarantees. A struct baghchal is plain data (no pointers), at most
 * BAGHCHAL_HIST repetition entries inside, so it is copied with memcpy. States
 * produced by init, apply and from_json are canonical: two equal positions
 * with equal histories are memcmp-equal. Only baghchal_make() may leave stale
 * (unused, harmless) entries past hist[clock]; baghchal_unmake() restores the
 * state byte for byte. baghchal_game.check() insists on the canonical form, so
 * run it on states from apply, not on positions inside a search.
 */
#ifndef GB_BAGHCHAL_H
#define GB_BAGHCHAL_H

#include <stddef.h>
#include <stdint.h>

#include "game.h"

extern const struct gb_game baghchal_game;

#define BAGHCHAL_POINTS 25
#define BAGHCHAL_ALL_POINTS 0x1ffffffu /* mask of the 25 points */
#define BAGHCHAL_GOAT_COUNT 20         /* BC-4: goats in hand at the start */
#define BAGHCHAL_TIGER_COUNT 4         /* BC-4: tigers on the corners */
#define BAGHCHAL_CAPTURES_TO_WIN 5     /* BC-11 */
#define BAGHCHAL_CLOCK_LIMIT 100       /* BC-15: quiet half-moves that draw */
/* Positions since the last capture or placement: clock 0..100 -> 101 entries. */
#define BAGHCHAL_HIST (BAGHCHAL_CLOCK_LIMIT + 1)
/* Most moves in any position: 21 placements, 4 x 8 tiger moves, 5 empty x 8 goat steps. */
#define BAGHCHAL_MAX_MOVES 64

/* Sides, equal to the seats. */
enum baghchal_side {
	BAGHCHAL_GOATS = 0,  /* seat 0, moves first (BC-5) */
	BAGHCHAL_TIGERS = 1, /* seat 1 */
};

/* What stands on a point (baghchal_piece_at). */
enum baghchal_piece {
	BAGHCHAL_EMPTY = 0,
	BAGHCHAL_GOAT = 1,
	BAGHCHAL_TIGER = 2,
};

/* struct baghchal.result; JSON null, "tiger", "goat", "draw". */
enum baghchal_result {
	BAGHCHAL_PLAYING = 0,
	BAGHCHAL_TIGERS_WIN,
	BAGHCHAL_GOATS_WIN,
	BAGHCHAL_DRAW,
};

/* struct baghchal.reason: why the game ended; JSON "reason". */
enum baghchal_end {
	BAGHCHAL_END_NONE = 0,
	BAGHCHAL_END_CAPTURES,       /* BC-11: the fifth goat was captured ("captures") */
	BAGHCHAL_END_TIGERS_BLOCKED, /* BC-12: no tiger can step or jump ("tigers_blocked") */
	BAGHCHAL_END_GOATS_BLOCKED,  /* BC-13: the goat player cannot move ("goats_blocked") */
	BAGHCHAL_END_REPETITION,     /* BC-14: third occurrence of a position ("repetition") */
	BAGHCHAL_END_CLOCK,          /* BC-15: 100 half-moves without capture or placement ("clock") */
};

/* Events reported by apply() (struct gb_event.type) and their "did" text. */
enum baghchal_event {
	BAGHCHAL_EV_PLACE = 1, /* a = point                       "place c3" */
	BAGHCHAL_EV_MOVE,      /* a = from, b = to (step or jump) "move a1 c3" */
	BAGHCHAL_EV_CAPTURE,   /* a = goat's point, b = captured so far  "capture b2" */
	BAGHCHAL_EV_END,       /* a = enum baghchal_result, b = enum baghchal_end
	                          "tigers win: 5 goats captured" */
};

/*
 * The state. Read it through the accessors below; change it only through
 * baghchal_game.apply (validated) or baghchal_make/unmake (trusted moves).
 * Fields are ordered so that the struct has no padding.
 */
struct baghchal {
	/*
	 * Exact keys (baghchal_key) of the positions since the last capture or
	 * placement, oldest first; hist[clock] is the current position. Earlier
	 * positions cannot repeat later ones: a placement changes the goats in
	 * hand and a capture the pieces (BC-14 needs no more than this window).
	 */
	uint64_t hist[BAGHCHAL_HIST];
	uint64_t hash;          /* Zobrist hash of (pieces, goats in hand, side to move) */
	uint32_t goats;         /* bit p set: a goat on point p */
	uint32_t tigers;        /* bit p set: a tiger on point p (always 4 bits) */
	struct gb_rules rules;  /* Bagh Chal has no house rules: all zero */
	int16_t to_move;        /* enum baghchal_side */
	int16_t goats_in_hand;  /* 20..0; > 0 means the placement phase (BC-5) */
	int16_t captured;       /* goats taken, 0..5 */
	int16_t clock;          /* half-moves since the last capture or placement, 0..100 */
	int16_t result;         /* enum baghchal_result */
	int16_t reason;         /* enum baghchal_end */
	int32_t turns;          /* half-moves played (each side's move is one turn) */
};

/*
 * A move in search form. Placement: from = -1, over = -1. Step: over = -1.
 * Jump (tigers only): over = the point of the goat jumped and captured.
 */
struct baghchal_move {
	int8_t from, to, over;
};

/* What baghchal_unmake() needs beyond the move itself. */
struct baghchal_undo {
	uint64_t hash;
	uint64_t slot;  /* hist[] entry that make overwrote */
	int16_t clock, result, reason;
};

/* Zobrist keys: random 64-bit values, a fixed table (splitmix64 from "baghchal"). */
struct baghchal_zobrist {
	uint64_t goat[BAGHCHAL_POINTS];
	uint64_t tiger[BAGHCHAL_POINTS];
	uint64_t tiger_to_move;
	uint64_t hand[BAGHCHAL_GOAT_COUNT + 1];
};
extern const struct baghchal_zobrist baghchal_zobrist;
/* The splitmix64 seed the table was drawn from, in order goat, tiger, side, hand. */
#define BAGHCHAL_ZOBRIST_SEED 0x626167686368616cULL

/*
 * Directions 0..7: E, NE, N, NW, W, SW, S, SE (odd = diagonal).
 * baghchal_step[p][d]: the point joined to p by a line in direction d, or -1.
 * baghchal_jump[p][d]: the landing point of a jump from p over
 *   baghchal_step[p][d] along the same straight line, or -1.
 * baghchal_adj_mask[p]: the points joined to p, as bits.
 */
extern const int8_t baghchal_step[BAGHCHAL_POINTS][8];
extern const int8_t baghchal_jump[BAGHCHAL_POINTS][8];
extern const uint32_t baghchal_adj_mask[BAGHCHAL_POINTS];

/* Point names "a1".."e5" (lowercase), indexed by point. */
extern const char *const baghchal_point_names[BAGHCHAL_POINTS];

/* The name of point p, or "??" when p is outside 0..24. Never NULL. */
const char *baghchal_point_name(int p);

/*
 * Read one point at s: a file letter a..e (any case) and a rank digit 1..5
 * (ASCII or Devanagari). Returns the point 0..24 and sets *end past it, or
 * returns -1 (and leaves *end alone) when s does not start with a point.
 */
int baghchal_point_parse(const char *s, const char **end);

/* What stands on point p (enum baghchal_piece); BAGHCHAL_EMPTY off the board. */
static inline int baghchal_piece_at(const struct baghchal *s, int p)
{
	if (p < 0 || p >= BAGHCHAL_POINTS)
		return BAGHCHAL_EMPTY;
	if (s->goats >> p & 1u)
		return BAGHCHAL_GOAT;
	if (s->tigers >> p & 1u)
		return BAGHCHAL_TIGER;
	return BAGHCHAL_EMPTY;
}

/* Empty points as bits. */
static inline uint32_t baghchal_empty(const struct baghchal *s)
{
	return ~(s->goats | s->tigers) & BAGHCHAL_ALL_POINTS;
}

/* Is the game over? */
static inline int baghchal_over(const struct baghchal *s)
{
	return s->result != BAGHCHAL_PLAYING;
}

/*
 * The exact key of the position: goats (bits 0..24), tigers (25..49), side to
 * move (bit 50), goats in hand (51..55). Equal keys = same position in the
 * sense of BC-14; no collisions (unlike the hash).
 */
static inline uint64_t baghchal_key(const struct baghchal *s)
{
	return (uint64_t)s->goats | (uint64_t)s->tigers << 25 | (uint64_t)s->to_move << 50 |
	       (uint64_t)s->goats_in_hand << 51;
}

/* The Zobrist hash computed from scratch (equals s->hash in every sane state). */
uint64_t baghchal_hash_compute(const struct baghchal *s);

/*
 * Every legal move of the side to move into out (room for
 * BAGHCHAL_MAX_MOVES); 0 when the game is over. Returns the count.
 */
int baghchal_moves(const struct baghchal *s, struct baghchal_move *out);

/* Only the captures (tiger jumps) available now; 0 on a goat turn. */
int baghchal_captures(const struct baghchal *s, struct baghchal_move *out);

/* Does the side to move have any move (ignoring whether the game is over)? */
int baghchal_side_can_move(const struct baghchal *s);

/*
 * Play a move known to be legal (from baghchal_moves) on a game not over,
 * updating hash, clock, history and the result (BC-11..BC-15) exactly as
 * apply() does, without validation or events. u receives what unmake needs.
 */
void baghchal_make(struct baghchal *s, struct baghchal_move m, struct baghchal_undo *u);

/* Take back the last baghchal_make(s, m, u): s is restored byte for byte. */
void baghchal_unmake(struct baghchal *s, struct baghchal_move m, const struct baghchal_undo *u);

/*
 * Validate an action for the side to move. Returns GB_OK and fills *out (may
 * be NULL), or GB_EOVER / GB_EPHASE / GB_EILLEGAL and writes a short
 * lowercase reason ("c3 is occupied") into why (may be NULL) for the reply.
 */
int baghchal_validate(const struct baghchal *s, const struct gb_action *act,
		      struct baghchal_move *out, char *why, size_t n);

/* Search move <-> interface action. */
struct gb_action baghchal_move_action(struct baghchal_move m);

/* Short result text for humans: "tigers win: 5 goats captured", "" while playing. */
const char *baghchal_end_text(int result, int reason);

/*
 * The parts of baghchal_game that its rules define, for its row
 * (games/rows/baghchal.c) to name, beside its computer players (who draw at random
 * among baghchal_legal()).
 * Everyone else calls the operations through baghchal_game (struct gb_game
 * says what each does).
 */
int baghchal_init(void *st, const struct gb_setup *su);
int baghchal_turn(const void *st);
int baghchal_legal(const void *st, struct gb_action *out);
int baghchal_apply(void *st, const struct gb_action *act, struct gb_events *ev);
int baghchal_parse(const void *st, const char *text, struct gb_action *out);
void baghchal_format(const void *st, const struct gb_action *act, char *buf, size_t n);
void baghchal_format_event(const struct gb_event *ev, char *buf, size_t n);
json_t *baghchal_to_json(const void *st);
int baghchal_from_json(void *st, const json_t *j);
int baghchal_check(const void *st);
void baghchal_outcome(const void *st, struct gb_outcome *out);

#endif
