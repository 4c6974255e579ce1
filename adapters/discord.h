/*
 * discord.h - the Discord adapter: interactions over HTTP (no gateway
 * connection), answered from the command's own outbox rows.
 *
 * Discord POSTs every interaction to /discord on the shared listener,
 * signed with Ed25519 over X-Signature-Timestamp + the raw body. Anything
 * not verified, or stamped more than five minutes from now, gets 401 and
 * changes nothing (Discord itself sends bad signatures when the endpoint is
 * saved). PING is answered {"type":1}; slash commands (typed options),
 * buttons and select menus become struct command and go through
 * bot_handle() at once, on the listener's worker thread; autocomplete
 * offers the legal actions of the channel's table (or the house rules).
 *
 * Answering within Discord's 3 seconds: the route handler takes the
 * command's reply rows (they carry the interaction as their "reply"
 * handle) out of the outbox and turns the most telling one into the HTTP
 * answer: a button press on the table message updates it in place (type
 * 7), a hand or a refusal is ephemeral (flag 64), a typed command that
 * shows the table posts it (type 4) and that post becomes the table
 * message. The rest stay in the outbox and deliver() sends them as
 * follow-ups through the interaction's webhook (valid 15 minutes; an
 * expired one falls back to a channel message with the bot token), table
 * edits as edits of the stored table message, honouring 429 retry_after
 * (fractional seconds) and `global`.
 *
 * Private views (a Call Break hand) can only reach the person whose
 * interaction they answer: the other players press "Show my hand".
 */
#ifndef GB_DISCORD_H
#define GB_DISCORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "adapters/adapter.h"

#define DC_CUSTOM_ID_MAX 100   /* Discord's limit on a component's custom_id */
#define DC_TEXT_MAX 2000       /* message content, in UTF-16 code units */
#define DC_TOKEN_TTL_MS (15 * 60 * 1000)
#define DC_SKEW_S 300          /* signed timestamps further from now are refused */
#define DC_EPHEMERAL 64

extern const struct adapter discord_adapter;

/*
 * The part of dc_verify() that needs no body: both headers present, the
 * signature 128 hex digits, the timestamp within the window. GB_OK or
 * GB_EAUTH.
 */
int dc_signature_form(const char *sig_hex, const char *timestamp, int64_t now_s);

/*
 * Is sig_hex (128 hex digits) the Ed25519 signature by public key pk of
 * timestamp followed by body, with timestamp (decimal seconds) within
 * DC_SKEW_S of now_s? Returns GB_OK or GB_EAUTH.
 */
int dc_verify(const unsigned char pk[32], const char *sig_hex, const char *timestamp,
	      const char *body, size_t len, int64_t now_s);

/*
 * A button's custom_id "TABLE:TURN:cmd" (cmd without its slash) into buf
 * (cap > DC_CUSTOM_ID_MAX). GB_EARGS when it would not fit.
 */
int dc_custom_id_encode(int64_t table, int turn, const char *cmd, char *buf, size_t cap);

/*
 * Read a custom_id back: table, turn and, for a button, "/cmd" into cmd
 * (a select menu's custom_id ends in "~N" and its command is the chosen
 * value: cmd is then ""). GB_EPARSE when malformed.
 */
int dc_custom_id_decode(const char *id, int64_t *table, int *turn, char *cmd, size_t cap);

/*
 * Discord components for a reply view's buttons ([[{label, cmd}]]), tagged
 * with table and turn: at most 5 buttons a row and 5 rows; more than 25
 * choices go to select menus (25 options each). lang picks the menus'
 * placeholder. Returns a new array (possibly empty); caller decrefs.
 */
json_t *dc_components(const json_t *buttons, int64_t table, int turn, int lang);

/*
 * Message content for text: in a code block when code (boards, hands),
 * else with Markdown escaped; cut to DC_TEXT_MAX with an ellipsis. Caller
 * frees.
 */
char *dc_message_text(const char *text, bool code);

/* The epoch milliseconds a snowflake id was made at (0 when unreadable). */
int64_t dc_snowflake_ms(const char *id);

/* The slash command set registered with Discord. Caller decrefs. */
json_t *dc_command_set(void);

/*
 * gamebot discord-register [--guild ID]: bulk-overwrite the command set
 * (globally, or in one guild, where changes show at once) and print it.
 * Returns the exit status.
 */
int discord_register_main(int argc, char **argv, const struct config *cfg, FILE *out, FILE *err);

#endif
