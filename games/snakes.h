/*
 * snakes.h - rules core for Snakes and Ladders (rules of record:
 * games/rules/snakes-and-ladders.md, rule numbers SL-1..SL-21; the Nepali
 * original wins where the two differ).
 *
 * The game is `snakes_game` (see game.h for the interface). Its state is
 * `struct snakes`: plain data, no pointers, copied with memcpy. This header
 * also gives renderers (bot/) and computer players (games/ai/) a read-only
 * view of that state: read the struct through the accessors below and never
 * write it; only apply() and from_json() change a state.
 *
 * Guarantees: every state reachable through init/apply/from_json passes
 * check(); the board of `board=random` is a pure function of the seed; the
 * dice come only from the generator inside the state (or from act->die).
 *
 * Usage (a status line and a drawing):
 *     const struct snakes *s = st;
 *     line = snakes_status_text(snakes_status(s));   // "needs a 6 to enter"
 *     for (int sq = 1; sq <= 100; sq++) {
 *             snakes_square_xy(sq, &col, &row);
 *             dest = snakes_jump(s, sq);             // sq itself when nothing is drawn
 *     }
 */
#ifndef GB_SNAKES_H
#define GB_SNAKES_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"

#define SNAKES_MAX_PLAYERS 4 /* SL-1 (a seat alone plays too: the arena's analysis) */
#define SNAKES_SQUARES 100  /* the path 1..100; 0 is the waiting row off the board */
#define SNAKES_LADDERS 9    /* SL-6, SL-7 */
#define SNAKES_SNAKES 10
#define SNAKES_SPAN_MIN 3   /* SL-7: |start - end| in 3..42 */
#define SNAKES_SPAN_MAX 42
/*
 * Longest run of consecutive snake heads a random board may hold. Six in a
 * row would wall the path off for good (every roll from below lands on a
 * head), so a game could never end; five always leave one roll that moves
 * forward. The classic board never has more than three in a row.
 */
#define SNAKES_MAX_HEAD_RUN 5
/* Rejection draws per piece before the generator enumerates instead. */
#define SNAKES_BOARD_TRIES 1000

/* House rules: indexes into snakes_game.rules, in the table's order. */
enum snakes_rule {
	SNAKES_RULE_ENTRY = 0,    /* SNAKES_ENTRY_* */
	SNAKES_RULE_SIX_BONUS,    /* SNAKES_BONUS_* */
	SNAKES_RULE_THREE_SIXES,  /* SNAKES_THREE_* */
	SNAKES_RULE_FINISH,       /* SNAKES_FINISH_* */
	SNAKES_RULE_BOARD,        /* SNAKES_BOARD_* */
	SNAKES_NRULES
};
enum { SNAKES_ENTRY_SIX = 0, SNAKES_ENTRY_ANY };
enum { SNAKES_BONUS_ON = 0, SNAKES_BONUS_OFF };
enum { SNAKES_THREE_LOSE_TURN = 0, SNAKES_THREE_RESTART };
enum { SNAKES_FINISH_EXACT = 0, SNAKES_FINISH_OVERSHOOT };
enum { SNAKES_BOARD_CLASSIC = 0, SNAKES_BOARD_RANDOM };

/*
 * Events reported by apply(), in the order they happen, and their "did"
 * text. A turn passes silently: the state's turn says who is next.
 */
enum snakes_event {
	SNAKES_EV_ROLL = 1, /* a = die                      "roll 6" */
	SNAKES_EV_ENTER,    /* placed on square 1 (SL-9)    "enter" */
	SNAKES_EV_WAIT,     /* no six, stays off (SL-8)     "wait" */
	SNAKES_EV_MOVE,     /* a = from, b = to             "move 3 9" */
	SNAKES_EV_LADDER,   /* a = foot, b = top, c = from  "ladder 4 14" */
	SNAKES_EV_SNAKE,    /* a = head, b = tail, c = from "snake 56 53" */
	SNAKES_EV_BLOCKED,  /* a = square; would pass 100   "blocked" */
	SNAKES_EV_THIRD_SIX,/* SL-15: the six moves nothing "third six" */
	SNAKES_EV_BACK,     /* a = square (0 = off board)   "back 3" */
	SNAKES_EV_WIN,      /* seat reached 100             "wins" */
};

/*
 * The state. Seats beyond `players` hold zeros. When the game is over,
 * `to_move` is the winner, `sixes` is 0 and `turn_start` is 100.
 */
struct snakes {
	struct gb_rng rng;           /* draws the dice (act->die == 0) */
	int32_t turns;               /* turns completed; the winning turn counts */
	struct gb_rules rules;       /* v[] indexes the values of each enum snakes_rule */
	unsigned char players;       /* 2..4 */
	unsigned char to_move;       /* seat whose turn it is */
	signed char winner;          /* seat, or -1 while the game goes on */
	unsigned char sixes;         /* sixes rolled so far in this turn: 0..2 */
	unsigned char turn_start;    /* the mover's square when this turn began (SL-15) */
	unsigned char pos[GB_MAX_SEATS];         /* 0 off board, else 1..100 */
	unsigned char jump[SNAKES_SQUARES + 1];  /* square -> destination, 0 = nothing drawn */
};

extern const struct gb_game snakes_game;

/* What the seat to move is about to do, for a status line. */
enum snakes_status {
	SNAKES_STATUS_OVER = 0,     /* somebody reached 100 */
	SNAKES_STATUS_NEEDS_SIX,    /* off the board with entry=six (SL-8) */
	SNAKES_STATUS_ROLL,         /* an ordinary roll starts the turn */
	SNAKES_STATUS_ROLL_AGAIN,   /* a six gave the die back within this turn */
};

enum snakes_status snakes_status(const struct snakes *s);

/* English status text ("needs a 6 to enter"); a static string, never NULL. */
const char *snakes_status_text(enum snakes_status st);

/* True when the seat to move is off the board and only a six brings it on. */
bool snakes_needs_six(const struct snakes *s);

/* Square of seat (0 = off the board); 0 for seats that do not play. */
int snakes_position(const struct snakes *s, int seat);

/* Winning seat, or -1. */
int snakes_winner(const struct snakes *s);

/* Sixes the seat to move has rolled in this turn (the third one ends it). */
int snakes_sixes(const struct snakes *s);

/* Chosen value of a house rule (the SNAKES_<RULE>_* enum of that rule). */
int snakes_rule(const struct snakes *s, enum snakes_rule rule);

/*
 * Where a move that ends on `square` finishes: the top of a ladder, the tail
 * of a snake, or `square` itself when nothing is drawn there (also for
 * squares outside 1..100). Entering on square 1 ignores this (SL-11).
 */
int snakes_jump(const struct snakes *s, int square);

/*
 * The ladders (kind 0) or snakes (kind 1) as [from, to] pairs sorted by
 * `from`; out needs room for SNAKES_SNAKES pairs. Returns the count.
 */
int snakes_pieces(const struct snakes *s, int kind, int out[][2]);

/*
 * SL-5: where square 1..100 is drawn, column 0..9 from the left and row
 * 0..9 from the bottom (boustrophedon: 11 is above 10, 100 above 1).
 */
void snakes_square_xy(int square, int *col, int *row);

/*
 * Draw a random board (SL-7) into jump[0..100] from r: 9 ladders and 10
 * snakes, spans 3..42, all 38 endpoints distinct, no snake on 100, no more
 * than SNAKES_MAX_HEAD_RUN snake heads in a row. jump[] may already hold
 * pieces (the game passes it all zero): they are kept as they are and the
 * rest are drawn around them, up to 9 ladders and 10 snakes. Each piece is
 * drawn uniformly among the pieces that still fit: up to max_tries
 * rejection draws, then by enumerating them (the game passes
 * SNAKES_BOARD_TRIES; 0 always enumerates). Deterministic in r and jump[].
 */
void snakes_board_generate(struct gb_rng *r, int max_tries, unsigned char jump[SNAKES_SQUARES + 1]);

/*
 * The parts of snakes_game that its rules define, for its row
 * (games/rows/snakes.c) to name, beside its computer players (it has none: there is
 * nothing to choose).
 * Everyone else calls the operations through snakes_game (struct gb_game
 * says what each does).
 */
extern const struct gb_rule_def snakes_rules[SNAKES_NRULES];
int snakes_init(void *st, const struct gb_setup *su);
int snakes_turn(const void *st);
int snakes_legal(const void *st, struct gb_action *out);
int snakes_apply(void *st, const struct gb_action *act, struct gb_events *ev);
int snakes_parse(const void *st, const char *text, struct gb_action *out);
void snakes_format(const void *st, const struct gb_action *act, char *buf, size_t n);
void snakes_format_event(const struct gb_event *e, char *buf, size_t n);
json_t *snakes_to_json(const void *st);
int snakes_from_json(void *st, const json_t *j);
int snakes_check(const void *st);
void snakes_outcome(const void *st, struct gb_outcome *out);

#endif
