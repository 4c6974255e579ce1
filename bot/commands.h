/*
 * commands.h - the command table: one row per command the bot knows.
 *
 * A row says what the router does with the command (its handler, how many
 * arguments it takes, what must hold before it runs, what to type) and how
 * the platforms offer it: the line their command menus show in each
 * language and its arguments, with the choices a platform with pickers
 * offers (Discord's options). The Telegram menu in both languages and the
 * Discord registration are made from these rows, never written again.
 */
#ifndef GB_BOT_COMMANDS_H
#define GB_BOT_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/lang/i18n.h"
#include "games/strbuf.h"

/* Preconditions the router checks before the handler runs, and how menus show a command. */
#define CMD_NEEDS_TABLE 1    /* an open table (lobby or playing) in this chat */
#define CMD_NEEDS_GAME 2     /* a game in progress */
#define CMD_PLAYERS_ONLY 4   /* the caller has a seat at the table */
#define CMD_ADMIN_ONLY 8     /* the caller administers the chat */
#define CMD_INTERNAL 16      /* not typeable: timers fired by the scheduler */
#define CMD_ADMIN_MENU 32    /* menus offer it to admins only (CMD_ADMIN_ONLY ones too) */
#define CMD_PLAY 64          /* a move: menus name the games whose verbs include it */
#define CMD_OWN_SEAT 128     /* acts on the caller's own seat alone: its button may be pressed
                                in their private chat or on a message in no chat (press.c) */
/*
 * In a private chat with no table of its own: the person's hands at every
 * table where they sit (cmd_private_hands(); any arguments, a start
 * link's payload, are not read). A card typed there (/play, /bid) shows
 * the hands too, with their buttons, rather than "no game here".
 */
#define CMD_PRIVATE_HANDS 256
/*
 * Setting a table up: before its game starts, the chat's admin's or the
 * table's opener's are counted in a budget of their own (SETUP_PER_MIN),
 * not in the per-person one moves are counted in
 */
#define CMD_SETUP 512

/* The fixed choices of an argument. */
enum cmd_choices {
	CHOICES_NONE = 0,
	CHOICES_GAMES,       /* every game's name */
	CHOICES_SETTINGS,    /* every game's name, then the chat-wide settings /settings changes */
	CHOICES_LEVELS,      /* the computer players' levels people play against */
	CHOICES_SPEEDS,      /* the computer players' paces */
	CHOICES_LANGS,       /* the chat languages */
};

#define CMD_ARGS 3

/* One argument, in the order the router reads them. */
struct cmd_arg {
	const char *name;            /* "game" */
	bool number;                 /* a whole number from min to max; else text */
	bool required;
	bool autocomplete;           /* its choices depend on the table: asked for as one types */
	int choices;                 /* enum cmd_choices */
	bool listed;                 /* a menu without pickers names the choices (Telegram's) */
	int min, max;                /* number: its range (both 0: none) */
	const char *desc;            /* in English: the platforms' pickers have no Nepali */
};

struct ctx;

struct bot_command {
	const char *name;            /* the verb as typed after the slash */
	int (*handler)(struct ctx *c); /* runs with the context loaded and all checks passed */
	int min, max;                /* how many blank-separated words of arguments it takes */
	int flags;                   /* CMD_* */
	const char *usage;           /* what to type, shown when the arguments are wrong
	                                (a %s there stands for every game's name) */
	const char *desc[LANG_COUNT]; /* the menus' line for it; NULL: not in the menus */
	struct cmd_arg arg[CMD_ARGS];
};

/* The table, in the order menus list it; *n gets how many rows. */
const struct bot_command *bot_commands(size_t *n);

/* The row of verb, or NULL. */
const struct bot_command *bot_command_find(const char *verb);

/* The choices of kind (enum cmd_choices) into out (room for max); how many. */
int bot_command_choices(int kind, const char **out, int max);

/*
 * The line a command menu shows for c in lang: its description, then the
 * games that know it (a move: "Bid tricks (Call Break)"); for a platform
 * without pickers also the choices of an argument that lists them ("Open
 * a table: snakes, ludo, baghchal or callbreak").
 */
void bot_command_describe(const struct bot_command *c, int lang, bool pickers, struct strbuf *sb);

#endif
