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

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "bot/bot.h"
#include "games/game.h"

struct bot_choice {
	int64_t table;                 /* store id of the table */
	int turn;                      /* moves logged when it was listed */
	char chat[STORE_ID_LEN];       /* the table's chat on the platform */
	char game[16];                 /* "callbreak", ... */
	char cmd[GB_ACTION_TEXT + 1];  /* the command that takes it: "/play QS" */
	char label[64];                /* as the chat shows it: "Q♠" */
	/*
	 * What the chat is shown when it is picked (Telegram posts it as the
	 * picker's message whether the move is taken or not): the label, or
	 * for a card of a hand words naming none ("🂠 plays a card"), in the
	 * chat's language; the table shows the card once it is played.
	 */
	char posted[64];
};

/*
 * Up to max choices of user (a platform user id) of platform: the legal
 * actions of every playing table where it is that user's turn, in table
 * order then in the order the player sees them (a Call Break hand's cards
 * as the hand lists them, render_sort_actions()); *n gets the count.
 * Labels are in each chat's language and digits. Returns GB_OK (a table
 * whose state cannot be read is skipped), or the store's error.
 */
int bot_user_choices(struct bot *b, const char *platform, const char *user,
		     struct bot_choice *out, int max, int *n);

/* Why a person has nothing to choose now, in words for them alone. */
struct bot_note {
	char title[128];               /* "Nothing to play now" */
	char text[512];                /* the status line of their table ("Bikash: lead a card"),
	                                  or how to get a seat when they have none */
	char lang[4];                  /* the language it is in: "en", "ne" */
};

/*
 * For a platform that shows something in place of an empty list of
 * choices (Telegram's inline mode answers with one article): why user of
 * platform has none. In the language of the chat of the first table being
 * played where they sit, else the bot's default language. Returns GB_OK
 * (out is always filled), or the store's error.
 */
int bot_user_no_choice(struct bot *b, const char *platform, const char *user, struct bot_note *out);

/*
 * The hand of user of platform at every table being played where they sit
 * (games with private hands), each appended to views (a JSON array) as a
 * private reply view for them alone: its text the hand in the table's
 * chat's language, its "table" and "turn" set (a button on it is a press
 * at that table, refused once the table moved on), on their turn, with
 * buttons, what they may do (bids, cards) as buttons. Read only. Returns GB_OK
 * (a table gone or unreadable is skipped), or the store's error.
 */
int bot_user_hands(struct bot *b, const char *platform, const char *user, bool buttons, json_t *views);

/*
 * Is cmd a button press of the player to move, on the current table message
 * of its place: the table it names is playing there, at the turn the button
 * was shown for, and it is cmd->user's seat's turn? Read only; false on any
 * doubt (a store error, a table gone).
 */
bool bot_press_is_own_turn(struct bot *b, const struct command *cmd);

#endif
