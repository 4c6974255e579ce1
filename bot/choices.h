/*
 * choices.h - what a person may do now at every table they sit at, for
 * platforms that offer choices outside the chat (Telegram's inline mode
 * lists a player's legal cards as results they pick from).
 *
 * Read only: nothing is written, no transaction is needed. A choice is
 * tagged with its table and with the turn it was listed at (the number of
 * moves logged), so playing it goes through bot_handle() as a button press
 * would, and the router refuses it when the table has moved on since.
 */
#ifndef GB_CHOICES_H
#define GB_CHOICES_H

#include <stdbool.h>
#include <stdint.h>

#include "bot.h"
#include "games/game.h"

struct bot_choice {
	int64_t table;                 /* store id of the table */
	int turn;                      /* moves logged when it was listed */
	char chat[STORE_ID_LEN];       /* the table's chat on the platform */
	char game[16];                 /* "callbreak", ... */
	char cmd[GB_ACTION_TEXT + 1];  /* the command that takes it: "/play QS" */
	char label[64];                /* as the chat shows it: "Q♠" */
};

/*
 * Up to max choices of user (a platform user id) of platform: the legal
 * actions of every playing table where it is that user's turn, in table
 * order then in the game's order of legal actions; *n gets the count.
 * Labels are in each chat's language and digits. Returns GB_OK (a table
 * whose state cannot be read is skipped), or the store's error.
 */
int bot_user_choices(struct bot *b, const char *platform, const char *user,
		     struct bot_choice *out, int max, int *n);

/*
 * Is cmd a button press of the player to move, on the current table message
 * of its place: the table it names is playing there, at the turn the button
 * was shown for, and it is cmd->user's seat's turn? Read only; false on any
 * doubt (a store error, a table gone).
 */
bool bot_press_is_own_turn(struct bot *b, const struct command *cmd);

#endif
