/*
 * press.c - where a button press acts.
 *
 * Button data (Telegram's callback_data and inline result ids, Discord's
 * custom_id) is written by whoever presses: a modified client sends any
 * bytes it likes. So the data only says which table and turn the press
 * means; where it acts is where it was pressed - the place of the message
 * pressed on, which the adapter reads from the platform (Telegram's
 * message chat and topic, Discord's channel), never from the data. The
 * router then refuses a press that names another table than that place's
 * own.
 *
 * One exception: a move of the presser's own seat (CMD_OWN_SEAT: their
 * card, their bid, their roll, their hand) pressed in their private chat
 * with the bot - where their Call Break hand is - or on a message in no
 * chat (Telegram's inline mode). Such a press is taken to the place of the
 * table it names, as the presser, when they hold a seat there; the rows
 * answering it go back where it was pressed. An online table's presses
 * are its seats' own, from the private chat each seat's table message is
 * in (online.c routes them by the seat, not by the data). Everything else
 * naming a table elsewhere is refused: nothing changes, and the presser
 * is told in a short alert.
 */
#include <string.h>

#include "bot/commands.h"
#include "bot/internal.h"

/*
 * Does user hold a person's seat at table? Read only; GB_OK with *held,
 * or the store's error.
 */
static int seat_held(struct bot *b, int64_t table, const char *user, bool *held)
{
	struct store_seat seats[GB_MAX_SEATS];
	int n = 0, rc = store_seats_get(b->store, table, seats, GB_MAX_SEATS, &n);

	*held = false;
	for (int i = 0; !rc && i < n; i++)
		*held |= seats[i].level < 0 && user[0] && strcmp(seats[i].user, user) == 0;
	return rc;
}

/*
 * Does the person cmd is from hold an online seat at table, shown in the
 * chat the press came from? (Kept after they leave: a reaction or "Play
 * again" under the table stays theirs.) GB_OK with *held, or the store's
 * error.
 */
static int oseat_held(struct bot *b, int64_t table, const struct command *cmd, bool *held)
{
	struct store_oseat os[GB_MAX_SEATS];
	int n = 0, rc = store_oseats_get(b->store, table, os, GB_MAX_SEATS, &n);

	*held = false;
	for (int i = 0; !rc && i < n; i++)
		*held |= !strcmp(os[i].platform, cmd->platform) && !strcmp(os[i].user, cmd->user) &&
			 !strcmp(os[i].chat, cmd->chat);
	return rc;
}

int press_place(struct bot *b, struct command *cmd, const struct bot_command *bc, enum press_verdict *v)
{
	struct store_table t = { 0 };
	struct store_chat place = { 0 };
	bool held = false, own;
	int rc = GB_OK;

	*v = PRESS_HERE;
	/* typed, raised by the scheduler, or a verb the router refuses anyway */
	if (!cmd->button_table || cmd->internal || !bc)
		return GB_OK;
	own = (bc->flags & CMD_OWN_SEAT) && (cmd->private_chat || cmd->no_place);
	/* the reads of one moment */
	store_read_begin(b->store);
	rc = cmd->button_table > 0 ? store_table_get(b->store, cmd->button_table, &t)
				   : GB_ENOTFOUND; /* data that could not be read */
	if (!rc)
		rc = store_chat_get_by_id(b->store, t.chat, &place);
	if (rc == GB_ENOTFOUND) {
		/* no such table: the router's check says so in a place; from no place it is refused */
		rc = GB_OK;
		if (cmd->no_place)
			*v = PRESS_REFUSED;
		goto out;
	}
	if (rc)
		goto out;
	if (!strcmp(place.platform, cmd->platform) && !strcmp(place.chat, cmd->chat) && !cmd->no_place)
		goto out; /* its own place: the router checks the table and the turn */
	if (!strcmp(place.platform, "online")) {
		/* a seat's own private chat: online.c takes it to the person's seat there */
		if (cmd->private_chat && !cmd->no_place)
			rc = oseat_held(b, t.id, cmd, &held);
		if (!rc && !held)
			*v = PRESS_REFUSED;
		goto out;
	}
	if (own && !strcmp(place.platform, cmd->platform))
		rc = seat_held(b, t.id, cmd->user, &held);
	if (rc)
		goto out;
	if (!held) {
		*v = PRESS_REFUSED;
		goto out;
	}
	/* the presser's own seat: taken to the table's place, answered where it was pressed */
	snprintf(cmd->from_platform, sizeof(cmd->from_platform), "%s", cmd->platform);
	snprintf(cmd->from_chat, sizeof(cmd->from_chat), "%s", cmd->chat);
	snprintf(cmd->from_user, sizeof(cmd->from_user), "%s", cmd->user);
	snprintf(cmd->chat, sizeof(cmd->chat), "%s", place.chat);
	/* it acts there as a player, never with rights of the chat it came from */
	cmd->is_admin = false;
	cmd->private_chat = false;
	cmd->no_place = false;
	*v = PRESS_TAKEN;
out:
	store_read_end(b->store);
	store_table_release(&t);
	store_chat_release(&place);
	return rc;
}
