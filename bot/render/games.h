/*
 * games.h - the games the bot offers, one row each.
 *
 * A game is its rules module (struct gb_game, games/game.h: the rules, its
 * computer players, its verbs and what kind of game it is) and one row
 * here: what the bot needs to show it - its titles and the other names
 * people type for it, in both languages, how it is played (/rules), the
 * names of its sides, the words of its house rules, and its renderer.
 * Menus, usage lines, /rules, /help, the platforms' command choices, the
 * arena and the script mode are all made from these rows; nothing
 * compares a game's name once it is looked up.
 *
 * The four games built in have their rows beside their renderers
 * (render_<game>.c), listed in games.c. Another is added by one call
 * before the service starts:
 *
 *     static const struct bot_game tictactoe_row = {
 *             .game = &tictactoe_game,
 *             .title = { "Tic-tac-toe", "टिक ट्याक टो" },
 *             .rules = { "Tic-tac-toe: ...", "टिक ट्याक टो: ..." },
 *             .render = &tictactoe_render,
 *     };
 *     bot_game_register(&tictactoe_row);
 */
#ifndef GB_BOT_GAMES_H
#define GB_BOT_GAMES_H

#include "bot/lang/i18n.h"
#include "games/game.h"
#include "games/strbuf.h"
#include "render_text.h"

/*
 * A game's renderer, named by its row. board, status and event are
 * required; any other hook may be NULL, and the entry points of render.h
 * then do what a game without it needs: the canonical text as a label,
 * every action a button of its own in the game's own order, no more to say
 * in a refusal, the command's canonical text in replies.
 */
struct render_game {
	void (*board)(const struct render_ctx *rc, struct strbuf *out);
	void (*status)(const struct render_ctx *rc, struct strbuf *out);
	void (*event)(const struct render_ctx *rc, const struct gb_event *ev, struct strbuf *out);
	/* render_action_label() before the cut to the caller's buffer */
	void (*label)(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out);
	void (*refusal)(const struct render_ctx *rc, int err, const char *verb, const struct gb_action *act,
			struct strbuf *out);
	bool (*shown)(const struct render_ctx *rc, const struct gb_action *act);
	void (*sort)(struct gb_action *acts, int n);
	/* GB_PRIVATE_HANDS: one seat's hand, built only from what that seat may see */
	void (*hand)(const struct render_ctx *rc, int seat, struct strbuf *out);
	/* render_action_command() for the actions it names its own way (nothing for the rest) */
	void (*command)(const struct render_ctx *rc, const struct gb_action *act, struct strbuf *out);
};

/* A word of a game's house rules (a key or a value) in each language. */
struct game_word {
	const char *word;                  /* as typed: "six_bonus", "overshoot" */
	const char *text[LANG_COUNT];
};

struct bot_game {
	const struct gb_game *game;        /* the rules module */
	const char *title[LANG_COUNT];     /* "Snakes and Ladders", "साँप सिँढी" */
	const char *const *aliases;        /* other names typed for it ("snake"), NULL-terminated;
	                                      may be NULL */
	const char *rules[LANG_COUNT];     /* /rules: how it is played, one paragraph */
	/* GB_FIXED_SIDES: each seat's side, as shown and as typed after /join ("goats") */
	const char *sides[GB_MAX_SEATS][LANG_COUNT];
	const struct game_word *words;     /* its house rules in words, ended by a NULL word;
	                                      may be NULL (the chat's own vocabulary is tried next) */
	const struct render_game *render;
};

/* The rows of the games built in (bot/render/render_<game>.c). */
extern const struct bot_game snakes_row;
extern const struct bot_game ludo_row;
extern const struct bot_game baghchal_row;
extern const struct bot_game callbreak_row;

/*
 * Add a game: its rules module to gb_games (gb_game_register()) and row
 * to the bot's games. Before any thread starts (nothing here locks).
 * GB_OK, GB_EGAME (no rules module, no title, no rules text, no renderer
 * with a board, status and event, or a side missing in a game of fixed
 * sides), GB_EEXISTS (its name is taken) or GB_EFULL.
 */
int bot_game_register(const struct bot_game *row);

/* The row of game g, or NULL for a rules module the bot has no row for. */
const struct bot_game *bot_game_of(const struct gb_game *g);

/* g's title in lang; its name when it has no row. */
const char *bot_game_title(const struct gb_game *g, int lang);

/* The name of seat's side in a game of fixed sides (lang), or NULL. */
const char *bot_game_side(const struct gb_game *g, int seat, int lang);

/* The sides of g (a game of fixed sides) in lang, joined as words_join() does. */
void game_sides_join(struct strbuf *sb, const struct gb_game *g, int lang, const char *sep, const char *last);

/*
 * Append n words to sb, each after prefix, sep between them and last
 * between the last two ("a, b or c"; last NULL: sep there too).
 */
void words_join(struct strbuf *sb, const char *const *words, int n, const char *prefix, const char *sep,
		const char *last);

/* Every game's name after prefix, joined as words_join() does. */
void games_join(struct strbuf *sb, const char *prefix, const char *sep, const char *last);

/*
 * The titles (in lang) of the games with all of flags (enum
 * gb_game_flag), joined as words_join() does; how many there were.
 */
int games_titles_with(struct strbuf *sb, unsigned flags, int lang, const char *sep, const char *last);

/* The games that know verb (their rules modules' verbs), titled in lang, joined with sep; how many. */
int games_titles_with_verb(struct strbuf *sb, const char *verb, int lang, const char *sep);

/* Does game g know verb? (A game that lists no verbs knows them all.) */
bool game_has_verb(const struct gb_game *g, const char *verb);

#endif
