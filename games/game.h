/*
 * game.h - the one interface every game of the rules core offers.
 *
 * A game is a `struct gb_game` of function pointers over an opaque, fixed-size
 * state (`state_size` bytes of plain data: no pointers, copied with memcpy, so
 * computer players can search by copying). Everything is pure: no I/O, no
 * globals, no clock. Randomness comes only from the struct gb_rng inside the
 * state, so (setup, actions) replays byte for byte.
 *
 * Actions travel as struct gb_action and are read from / written to the
 * canonical chat syntax (`roll`, `move 2`, `place c3`, `move a1 c3`, `bid 3`,
 * `play QS`, `next`) by each game's parse/format. apply() validates: on any
 * error it returns the code and leaves the state exactly as it was.
 *
 * What happened during apply() is reported as struct gb_event values; each
 * game's format_event() prints them as the short canonical strings of the
 * script contract's "did" list ("roll 6", "move 1", "ladder 4 14").
 *
 * Usage:
 *     const struct gb_game *g = gb_game_find("ludo");
 *     struct gb_setup su; gb_setup_init(&su, g);  su.seed = 42;
 *     void *st = malloc(g->state_size);
 *     rc = g->init(st, &su);
 *     rc = g->parse(st, "roll", &act);  rc = g->apply(st, &act, &ev);
 */
#ifndef GB_GAME_H
#define GB_GAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rng.h"
#include "strbuf.h"

#define GB_MAX_SEATS 4
#define GB_MAX_RULES 8      /* house rules per game */
#define GB_MAX_RULE_VALUES 6
#define GB_MAX_LEGAL 128    /* legal actions in any position of any game */
#define GB_MAX_EVENTS 64    /* events one apply() may report */
#define GB_ACTION_TEXT 32   /* room for any canonical action text */
#define GB_EVENT_TEXT 48    /* room for any formatted event */

enum gb_action_kind {
	GB_ACT_NONE = 0,
	GB_ACT_ROLL,   /* roll the die(s) */
	GB_ACT_MOVE,   /* ludo: a = token 0..3; baghchal: a = from, b = to (points 0..24) */
	GB_ACT_PLACE,  /* baghchal: a = point 0..24 */
	GB_ACT_BID,    /* callbreak: a = 1..8 */
	GB_ACT_PLAY,   /* callbreak: a = card 0..51 (see callbreak.h) */
	GB_ACT_NEXT,   /* callbreak: start the next round */
};

struct gb_action {
	int kind;      /* enum gb_action_kind */
	int a, b;      /* arguments, meaning per kind above */
	int die;       /* GB_ACT_ROLL only: 1..6 forces the die (tests, --dice);
	                  0 draws it from the game's generator */
};

/* One thing that happened. `type` is the game's own event enum. */
struct gb_event {
	int type;
	int seat;      /* who it concerns, or -1 */
	int a, b, c;   /* details, meaning per game and type */
};

struct gb_events {
	int n;
	int dropped;   /* events that did not fit (never expected; counted, not lost silently) */
	struct gb_event ev[GB_MAX_EVENTS];
};

/* Append an event (ev may be NULL: then nothing is recorded). */
void gb_events_push(struct gb_events *ev, int type, int seat, int a, int b, int c);

/*
 * A house rule: a key and its allowed values, the default first.
 * `requires`, when set ("six_bonus=on"), names the only condition under which
 * the rule means anything; chat settings show it greyed out otherwise.
 */
struct gb_rule_def {
	const char *key;
	const char *values[GB_MAX_RULE_VALUES + 1]; /* NULL-terminated */
	const char *requires;
	const char *help;  /* one line, English, for /settings */
};

/* Chosen house rules: v[i] indexes game->rules[i].values. All zero = defaults. */
struct gb_rules {
	unsigned char v[GB_MAX_RULES];
};

/* Everything a game starts from. */
struct gb_setup {
	int players;
	struct gb_rules rules;
	uint64_t seed;
	const char *deal;  /* callbreak: forced first deal ("AS KS ...|...|...|..."), or NULL */
	int dealer;        /* callbreak: first dealer seat */
};

/* How a game ended, for stats and the arena. */
struct gb_outcome {
	bool over;
	int winner;        /* seat, or -1 (not over, or a draw) */
	bool draw;
	int score[GB_MAX_SEATS]; /* callbreak: totals in tenths; others 0 */
	int turns;         /* turns played so far (a turn includes its extra rolls) */
};

/*
 * What kind of game it is: the facts everything built around the rules
 * reads (the bot, the arena), so that nothing compares a game's name.
 */
enum gb_game_flag {
	/* Each seat is a side with pieces of its own (Bagh Chal: goats, tigers):
	   seats are named by side, and the arena never rotates them. */
	GB_FIXED_SIDES = 1 << 0,
	/* Each seat holds cards the others must not see (Call Break): a
	   GB_ACT_PLAY action is a card of the hand, shown only to its holder. */
	GB_PRIVATE_HANDS = 1 << 1,
	/* The outcome's score counts (Call Break's totals): stats show points,
	   and a tie at the top shares a pot. */
	GB_POINTS = 1 << 2,
	/* Nothing to decide (Snakes and Ladders): every computer player rolls,
	   and the arena may run one seat alone. */
	GB_NO_CHOICES = 1 << 3,
};

struct gb_ai; /* a game's computer players: games/ai/ai.h */

struct gb_game {
	const char *name;            /* "snakes", "ludo", "baghchal", "callbreak": what is typed and stored */
	int min_players, max_players, default_players;
	const struct gb_rule_def *rules;
	int nrules;
	size_t state_size;

	/* Start a game. Returns GB_OK, GB_EPLAYERS, GB_EDEAL. */
	int (*init)(void *st, const struct gb_setup *setup);
	/* Seat to act, or -1 when nobody is (game over; callbreak between rounds). */
	int (*turn)(const void *st);
	/* Legal actions now; out has room for GB_MAX_LEGAL. Returns the count. */
	int (*legal)(const void *st, struct gb_action *out);
	/* Apply an action for the seat whose turn it is. On error the state is unchanged. */
	int (*apply)(void *st, const struct gb_action *act, struct gb_events *ev);
	/* Read canonical (and forgiving) action text. GB_EPARSE when unreadable. */
	int (*parse)(const void *st, const char *text, struct gb_action *out);
	/* Write the canonical text of an action. */
	void (*format)(const void *st, const struct gb_action *act, char *buf, size_t n);
	/* Write an event as a short canonical string for the "did" list. */
	void (*format_event)(const struct gb_event *ev, char *buf, size_t n);
	/* Game-specific state fields as a new JSON object (caller owns; json_decref). */
	json_t *(*to_json)(const void *st);
	/*
	 * Optional (NULL: none): the same fields as to_json(), in its order,
	 * appended to sb as the compact JSON text of its object would hold
	 * them, each field preceded by a comma (",\"players\":2,..."), so that
	 * gb_state_text() writes a table's state without building it as JSON
	 * values first. false when a value would need more than gb_text_str()
	 * and gb_text_int() write (gb_state_text() then answers false).
	 */
	bool (*to_text)(const void *st, struct strbuf *sb);
	/* Restore from to_json() output (extra keys ignored). GB_OK or GB_ESTATE. */
	int (*from_json)(void *st, const json_t *j);
	/* Invariant check: GB_OK or GB_EINVARIANT. */
	int (*check)(const void *st);
	/* How it stands. */
	void (*outcome)(const void *st, struct gb_outcome *out);

	unsigned flags;              /* enum gb_game_flag bits */
	/* The verbs its actions are typed with ("roll", "move"), NULL-terminated. */
	const char *const *verbs;
	/* GB_PRIVATE_HANDS: the event type of a new deal (each person is shown
	   their new hand, the log strip starts afresh); 0 when there is none. */
	int deal_event;
	/* Its computer players (NULL: every level plays a random legal action). */
	const struct gb_ai *ai;
};

#define GB_MAX_GAMES 16
#define GB_GAME_NAME_LEN 16 /* a name's bytes with its NUL, at most (stored with each table) */

/*
 * The registry (games/rows/registry.c, above every game's row): the four
 * games built in, then those added.
 */

/* The game called `name`, or NULL. */
const struct gb_game *gb_game_find(const char *name);

/* All games, in the order they were added (the four built in first), NULL-terminated. */
extern const struct gb_game *gb_games[GB_MAX_GAMES + 1];

/*
 * Add a game to gb_games, before any thread starts (nothing here locks).
 * Returns GB_OK; GB_EEXISTS when its name is taken; GB_EFULL past
 * GB_MAX_GAMES; GB_EGAME when the descriptor is incomplete (a function
 * missing, a name that is not 1..15 lowercase letters, seats outside
 * 1..GB_MAX_SEATS, more than GB_MAX_RULES house rules).
 */
int gb_game_register(const struct gb_game *g);

/* Defaults: default players, default rules, seed 0, no deal, dealer 0. */
void gb_setup_init(struct gb_setup *su, const struct gb_game *g);

/* Set house rule key to value. GB_OK, GB_ERULE_KEY or GB_ERULE_VALUE. */
int gb_rules_set(const struct gb_game *g, struct gb_rules *r, const char *key, const char *value);

/* Set from "key=value". GB_OK, GB_EPARSE, GB_ERULE_KEY or GB_ERULE_VALUE. */
int gb_rules_set_kv(const struct gb_game *g, struct gb_rules *r, const char *kv);

/* Index of rule key in g->rules, or -1. */
int gb_rule_index(const struct gb_game *g, const char *key);

/* The chosen value text of rule i. */
const char *gb_rule_value(const struct gb_game *g, const struct gb_rules *r, int i);

/* Rules as a new JSON object {"key": "value", ...} (caller owns). */
json_t *gb_rules_to_json(const struct gb_game *g, const struct gb_rules *r);

/* Rules from such an object; missing keys keep their default. */
int gb_rules_from_json(const struct gb_game *g, struct gb_rules *r, const json_t *j);

/*
 * The same three over a table of n house rules (gb_rules_text() below
 * being the third), for a game's own to_json(), to_text() and from_json():
 * a rules module names its table, never its row, which stands above it
 * with its computer players (games/rows/).
 */
json_t *gb_rule_defs_json(const struct gb_rule_def *defs, int n, const struct gb_rules *r);
int gb_rule_defs_from_json(const struct gb_rule_def *defs, int n, struct gb_rules *r, const json_t *j);
bool gb_rule_defs_text(const struct gb_rule_def *defs, int n, const struct gb_rules *r, struct strbuf *sb);

/*
 * The full state object of the script contract: "game", "over", "turn",
 * the game's own fields, then "legal" (canonical texts, sorted).
 * Caller owns the result.
 */
json_t *gb_state_json(const struct gb_game *g, const void *st);

/*
 * gb_state_json()'s compact text (exactly the bytes json_dumps() gives
 * with JSON_COMPACT), appended to sb, for a game with to_text(); false,
 * sb as it was, for one without, or when a string of it would need an
 * escape. gb_text_str() appends s as a JSON string when it needs none
 * (printable ASCII but the quote and the backslash), else false;
 * gb_text_int() appends an integer as jansson writes it; gb_rules_text()
 * the rules object as gb_rules_to_json() gives it.
 */
bool gb_state_text(const struct gb_game *g, const void *st, struct strbuf *sb);
bool gb_text_str(struct strbuf *sb, const char *s);
void gb_text_int(struct strbuf *sb, long long v);
bool gb_rules_text(const struct gb_game *g, const struct gb_rules *r, struct strbuf *sb);

/* Legal actions as sorted canonical strings (caller owns the JSON array). */
json_t *gb_legal_json(const struct gb_game *g, const void *st);

/* Is act (compared by kind, a, b) among the legal actions? */
bool gb_action_is_legal(const struct gb_game *g, const void *st, const struct gb_action *act);

/*
 * Read one text token for actions: skips leading blanks, copies the next
 * blank-separated word lowercased into buf. Returns a pointer past the
 * word, or NULL when there is none or it does not fit in n-1 bytes (a word
 * is never read as its first part).
 */
const char *gb_next_word(const char *s, char *buf, size_t n);

/*
 * Read a whole number 0..max from text, accepting ASCII and Devanagari
 * digits (०..९). Returns GB_OK or GB_EPARSE.
 */
int gb_parse_uint(const char *s, int max, int *out);

#endif
