/*
 * callbreak.h - rules core for Call Break (games/rules/call-break.md, CB-1..CB-24;
 * the Nepali original wins where the two differ).
 *
 * What it is: `callbreak_game`, the struct gb_game of the four-player trick
 * game, plus the small pure helpers everything else about Call Break needs:
 * the card encoding and its text forms, the one legal-card function that
 * holds the four play rules (CB-9..CB-14), the trick winner (CB-15), the
 * round score (CB-16..CB-17), and the player's view.
 *
 * What it guarantees: the state is one fixed-size struct of plain data with
 * no padding, so equal states are memcmp-equal and copying it is a memcpy.
 * apply() validates completely and leaves the state untouched on error.
 * Scores are integers in tenths of a point; nothing is ever floating point
 * except the JSON numbers written for people.
 *
 * How it is used: bot/ (renderers) and games/ai/ (computer players) never read
 * struct callbreak directly: they call callbreak_view() for one seat and use
 * only that, so a computer player cannot see the other hands (design.md).
 *
 * Cards, their sets and their text are games/callbreak_cards.h's.
 */
#ifndef GB_CALLBREAK_H
#define GB_CALLBREAK_H

#include <stddef.h>
#include <stdint.h>

#include "callbreak_cards.h"
#include "game.h"

#define CB_SEATS 4
#define CB_TRICKS 13
#define CB_MAX_ROUNDS 5
#define CB_MIN_BID 1             /* CB-5: no pass, no zero */
#define CB_MAX_BID 8             /* CB-5: the cap although there are 13 tricks */

/* House rules: indexes into callbreak_rules and struct gb_rules.v. */
enum cb_rule {
	CB_RULE_ROUNDS = 0, /* "5"/"3"/"1": rounds (deals) in a game (CB-20) */
	CB_NRULES
};

enum cb_phase {
	CB_PHASE_BID = 0,    /* bids in order after the dealer (CB-4) */
	CB_PHASE_PLAY,       /* 13 tricks */
	CB_PHASE_ROUND_OVER, /* score sheet shown; `next` deals again (CB-20) */
	CB_PHASE_GAME_OVER,  /* after the last round (CB-21) */
};

/* Events reported by apply(); printed by format_event() for the "did" list. */
enum cb_event {
	CB_EV_BID = 1,   /* seat bid a                      "bid 3" */
	CB_EV_PLAY,      /* seat played card a              "play QS" */
	CB_EV_TRICK,     /* seat won trick a (1..13) with card b   "trick 5 to seat 2 with AS" */
	CB_EV_ROUND_OVER,/* round a ended                   "round 1 over" */
	CB_EV_SCORE,     /* seat bid a, won b, scored c tenths     "seat 0 bid 3 won 5 +3.2" */
	CB_EV_NEXT,      /* the `next` action               "next" */
	CB_EV_DEAL,      /* round a dealt by seat (dealer)  "round 2 dealer 1" */
	CB_EV_GAME_OVER, /* seat named winner; a = mask of seats tied at the top
	                    (0 when nobody ties)            "game over winner 0" */
};

/* One finished round of one seat, as on the score sheet (CB-19). */
struct cb_line {
	int32_t bid, tricks, points; /* points in tenths */
};

/*
 * The state. Plain data, no pointers, no padding (checked at compile time).
 * Read it only through the view below; fields are documented for the
 * rules core itself and its tests.
 */
struct callbreak {
	struct gb_rng rng;               /* later deals (CB-3) */
	uint64_t hand[CB_SEATS];         /* cards still held */
	uint64_t gone;                   /* cards of completed tricks this round */
	uint64_t lacks[CB_SEATS];        /* cards public play proves the seat does not hold */
	struct gb_rules rules;           /* house rules as chosen (rounds) */
	int32_t rounds;                  /* 5, 3 or 1 */
	int32_t round;                   /* 1-based */
	int32_t dealer;
	int32_t phase;                   /* enum cb_phase */
	int32_t bid[CB_SEATS];           /* 0 = not yet (shown as a dash, CB-6) */
	int32_t tricks[CB_SEATS];        /* tricks won this round */
	int32_t leader;                  /* who led the trick in progress */
	int32_t nplayed;                 /* cards played this round, 0..52 */
	int32_t last_leader, last_winner;/* the last completed trick (-1: none yet) */
	int32_t total[CB_SEATS];         /* tenths, all finished rounds */
	int32_t nhist;                   /* finished rounds */
	struct cb_line hist[CB_MAX_ROUNDS][CB_SEATS];
	int32_t winner;                  /* seat, -1 until the game is over */
	int32_t tied;                    /* mask of seats sharing the top total when over,
	                                    0 when one seat has it alone */
	unsigned char seq[CB_CARDS];     /* cards played this round, in order */
};

/*
 * What one seat may know (design.md: computer players and renderers read
 * nothing else). Filled by callbreak_view(); two states that differ only in
 * the other seats' cards or in the generator give byte-identical views.
 *
 * CB-24 says completed tricks cannot be reviewed, and that remembering them
 * is the skill of the game: every card was seen as it fell, so the cards of
 * this round in the order they were played (`played`, who played each
 * follows from the first leader and the trick winners) are what a player
 * with a perfect memory knows; so are the SET of cards gone this round
 * (`gone`) and what the rules let everyone infer from play (`lacks`,
 * `voids`). Renderers show only the last completed trick (`last_trick`),
 * as the table does.
 */
struct callbreak_view {
	int32_t seat;                    /* whose view this is */
	int32_t phase;                   /* enum cb_phase */
	int32_t round, rounds, dealer;
	int32_t turn;                    /* seat to act, or -1 */
	int32_t turns;                   /* bids and plays so far in the game */
	int32_t held[CB_SEATS];          /* how many cards each seat holds */
	int32_t bid[CB_SEATS];           /* 0 = not yet bid */
	int32_t tricks[CB_SEATS];        /* won this round */
	int32_t leader;                  /* led the trick in progress */
	int32_t ntrick;                  /* cards in the trick in progress, 0..3 */
	int32_t trick[CB_SEATS];         /* those cards in play order (seat of trick[i] is
	                                    (leader + i) % 4); unused slots -1 */
	int32_t last_leader, last_winner;/* the last completed trick, -1 when none this round */
	int32_t last_trick[CB_SEATS];    /* its cards in play order, -1 when none */
	int32_t voids[CB_SEATS];         /* bit s: the seat has shown it holds no suit s */
	int32_t total[CB_SEATS];         /* tenths */
	int32_t nhist;
	struct cb_line hist[CB_MAX_ROUNDS][CB_SEATS];
	int32_t winner;                  /* -1 until over */
	int32_t tied;                    /* mask of seats tied at the top (see struct callbreak) */
	uint64_t hand;                   /* this seat's cards */
	uint64_t gone;                   /* cards of completed tricks this round */
	uint64_t lacks[CB_SEATS];        /* cards each seat is proven not to hold */
	uint64_t legal;                  /* cards this seat may play now, 0 unless it is to play */
	int32_t nplayed;                 /* cards played this round, 0..52 */
	unsigned char played[CB_CARDS];  /* those cards in play order; the first trick was
	                                    led by the seat after the dealer */
};

extern const struct gb_game callbreak_game;

/* "bid", "play", "round_over", "game_over". */
const char *callbreak_phase_name(int phase);

/*
 * The four play rules (CB-9..CB-14) as one function: the cards of `hand` that
 * may be played on a trick holding `ntrick` (0..3) cards in play order
 * (trick[0] was led). With an empty trick every card may be led. Cheap: a few
 * mask operations.
 */
uint64_t callbreak_legal_cards(uint64_t hand, const int *trick, int ntrick);

/* Index (0..n-1) of the card that wins or is winning a trick of n >= 1 cards (CB-15). */
int callbreak_trick_winner(const int *trick, int n);

/* Points in tenths for a round: made -> bid*10 + overtricks, short -> -bid*10 (CB-16). */
int callbreak_score(int bid, int tricks);

/* Seat to act, or -1 (between rounds and when over). */
int callbreak_turn(const struct callbreak *st);

/*
 * Fill *out with what `seat` may know (see struct callbreak_view). A seat
 * outside 0..3 (e.g. -1) gets a spectator's view: everything public, no hand.
 */
void callbreak_view(const struct callbreak *st, int seat, struct callbreak_view *out);

/*
 * Why `seat` may not take `act` now: returns GB_OK when it may, otherwise the
 * code apply() would give (GB_ETURN when it is another seat's turn) and a
 * short lowercase reason in buf ("you have already bid 3", "you must follow
 * suit: play a heart"). buf may be NULL. This is the one validator: apply()
 * uses it for the seat to move.
 */
int callbreak_refusal(const struct callbreak *st, int seat, const struct gb_action *act,
		      char *buf, size_t n);

/*
 * The parts of callbreak_game that its rules define, for its row
 * (games/rows/callbreak.c) to name, beside its computer players (its
 * turn() is callbreak_turn() above).
 * Everyone else calls the operations through callbreak_game (struct gb_game
 * says what each does).
 */
extern const struct gb_rule_def callbreak_rules[CB_NRULES];
int callbreak_init(void *st, const struct gb_setup *su);
int callbreak_legal(const void *st, struct gb_action *out);
int callbreak_apply(void *st, const struct gb_action *act, struct gb_events *ev);
int callbreak_parse(const void *st, const char *text, struct gb_action *out);
void callbreak_format(const void *st, const struct gb_action *act, char *buf, size_t n);
void callbreak_format_event(const struct gb_event *e, char *buf, size_t n);
json_t *callbreak_to_json(const void *st);
int callbreak_from_json(void *st, const json_t *j);
int callbreak_check(const void *st);
void callbreak_outcome(const void *st, struct gb_outcome *out);

#endif
