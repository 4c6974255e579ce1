/*
 * telegram.h - the Telegram adapter: Bot API updates in, reply views out.
 *
 * Receiving: Telegram posts each update to POST /telegram (webhook mode) or
 * the adapter asks for them with getUpdates (polling mode, the default: it
 * needs no public address). Either way an update is read into a struct
 * tg_update by tg_update_parse() - a pure function - and then handed to the
 * bot as a struct command. A repeated update_id is dropped by the bot's
 * dedupe, whatever the update's kind (one the adapter answers itself, an
 * inline query, is kept in the same record of ids); the polling offset
 * lives in the store so a restart neither repeats nor skips an update.
 *
 * Sending: the outbox worker hands the adapter one reply view at a time
 * (bot/bot.h); tg_render() - pure again - turns it into one Bot API call:
 * sendMessage or editMessageText for the table message, sendMessage for
 * lines and private views, answerCallbackQuery for alerts and acks of a
 * button press. Boards go in <pre> with HTML escaping, texts are cut to
 * Telegram's limits, and buttons become an inline keyboard whose
 * callback_data (at most 64 bytes) carries the table, the turn it was drawn
 * at and the command (tg_callback_encode()), so a stale or forged press is
 * refused by the router.
 *
 * Everything declared here except the adapter table itself is pure (no I/O)
 * and tested on its own in tests/test_telegram.c.
 */
#ifndef GB_TELEGRAM_H
#define GB_TELEGRAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bot/bot.h"
#include "bot/base/config.h"

#define TG_TEXT_MAX 4096      /* characters (UTF-16 units) of a message after entities */
#define TG_ALERT_MAX 200      /* characters of an answerCallbackQuery text */
#define TG_CALLBACK_MAX 64    /* bytes of callback_data, and of an inline result id */
#define TG_REPLY_LEN 256      /* room for a callback_query_id */
#define TG_INLINE_NOTHING "nothing" /* id of the inline result saying there is nothing to play */

/* What an update asks of the bot. */
enum tg_update_kind {
	TG_IGNORE = 0,       /* acknowledged and dropped: not for us, or a type we do not use */
	TG_COMMAND,          /* a typed command or a button press: cmd is filled */
	TG_INLINE_QUERY,     /* "@bot ..." being typed: list the user's choices (query_id, cmd.user) */
	TG_CHOSEN,           /* an inline result was chosen: cmd filled, chat the chooser's own, no_place */
	TG_MEMBER,           /* my_chat_member: the bot was added to or removed from cmd.chat */
	TG_MIGRATE,          /* a group became a supergroup: cmd.chat moved to migrate_to */
	TG_ELSEWHERE_PRESS,  /* a button on an inline-mode message (no chat): as TG_COMMAND, chat the
	                        presser's own, no_place; lang set */
};

struct tg_update {
	enum tg_update_kind kind;
	long long update_id;
	struct command cmd;            /* platform "telegram", chat, user, name, verb, args, update_id */
	char chat_type[16];            /* "private", "group", "supergroup", "channel"; "" unknown */
	bool button;                   /* a callback query: reply, table and turn are set */
	char reply[TG_REPLY_LEN];      /* callback_query_id to answer; "" for typed commands */
	int64_t button_table;          /* table the button was drawn for (-1: unreadable data) */
	int button_turn;               /* moves logged when it was drawn (-1: unreadable data) */
	char query_id[TG_REPLY_LEN];   /* TG_INLINE_QUERY: inline_query.id */
	char query[256];               /* TG_INLINE_QUERY: what was typed after @bot */
	char member_status[16];        /* TG_MEMBER: the bot's new status ("member", "left", ...) */
	char migrate_to[32];           /* TG_MIGRATE: the supergroup's chat id */
	bool as_group;                 /* sent as the group itself (sender_chat: an anonymous admin) */
	char lang[16];                 /* TG_ELSEWHERE_PRESS: the presser's language_code */
};

/*
 * Read one Update object (JSON text of len bytes). bot_username is the
 * bot's own username without "@" (a command addressed to another bot is
 * ignored); NULL or "" accepts any address. now_ms is stored in the
 * command. Returns GB_OK (out->kind says what to do; TG_IGNORE for any
 * update type the bot does not use, or one missing what it needs - an
 * update_id among them), or GB_EPARSE when the text is not a JSON object.
 * Strings may hold \u0000 (a text holding one is no command). A forwarded
 * message is never a command; a command in a group without "@thisbot"
 * is marked unaddressed; one sent as a chat (sender_chat) anonymous.
 */
int tg_update_parse(const char *json, size_t len, const char *bot_username, int64_t now_ms,
		    struct tg_update *out);

/*
 * callback_data (and inline result ids): "TABLE:TURN:CMD" with the command
 * without its slash ("42:17:move 2"). The table and turn are decimal.
 * tg_callback_encode() writes it into buf (cap bytes, at least
 * TG_CALLBACK_MAX + 1); returns GB_OK, or GB_EARGS when it would not fit
 * in TG_CALLBACK_MAX bytes or cmd does not start with "/".
 * tg_callback_decode() reads it back: cmd gets "/CMD". GB_EPARSE when the
 * data is not of that shape.
 */
int tg_callback_encode(int64_t table, int turn, const char *cmd, char *buf, size_t cap);
int tg_callback_decode(const char *data, int64_t *table, int *turn, char *cmd, size_t cap);

/* Append text to sb with &, < and > escaped for parse_mode HTML. */
struct strbuf;
void tg_html_escape(struct strbuf *sb, const char *text);


/* One Bot API call: a method and its JSON body. */
struct tg_call {
	char method[32];               /* "" when the view needs no call (an ack without a handle) */
	char chat[64];                 /* the chat the call goes to (pacing); "" for callback answers */
	json_t *body;                  /* owned: release with tg_call_release() */
};
void tg_call_release(struct tg_call *c);

/*
 * The call that delivers one reply view (bot/bot.h) to chat: kind "table"
 * is sendMessage when message_id is "" and editMessageText of message_id
 * otherwise; "public" sendMessage; "private" sendMessage to the user's own
 * chat - or, carrying a reply handle (a "My hand" press), an
 * answerCallbackQuery alert with the text cut to TG_ALERT_MAX; "alert"
 * answerCallbackQuery with show_alert when it carries a reply handle, else
 * sendMessage in the chat - or, marked "secret" (it tells of a hand), in
 * the user's own chat; "ack" answerCallbackQuery (no text), nothing
 * without a handle. Buttons become an inline keyboard; a button whose
 * command does not fit in callback_data is left out, and a button with
 * "inline" (bot/bot.h) opens inline mode in the chat with that query
 * (switch_inline_query_current_chat) instead of sending its command. Returns GB_OK,
 * GB_EPARSE for a view without a kind it knows, GB_ENOMEM.
 */
int tg_render(const json_t *view, const char *chat, const char *message_id, struct tg_call *out);

/*
 * tg_render() for a bot whose inline mode is off (getMe's
 * supports_inline_queries false): a button with "inline" is a press of
 * its command with TG_MY_CARDS after it, which sends the hand to the
 * presser's private chat (adapters/telegram.c).
 */
int tg_render_mode(const json_t *view, const char *chat, const char *message_id, bool inline_mode,
		   struct tg_call *out);

/* The word after a command that makes a press of "My cards" without inline mode. */
#define TG_MY_CARDS "dm"

/* The inline keyboard for a view's buttons, or NULL when there are none (caller owns). */
json_t *tg_keyboard(const json_t *buttons, int64_t table, int turn);

/* A chat id as the Bot API takes it: a JSON integer when it is one, else a string. */
json_t *tg_chat_id(const char *chat);

/*
 * Per-chat pacing within Telegram's limits: about one message a second in
 * a chat, at most 20 a minute in a group (a negative chat id), about 30 a
 * second overall. A group's minute is spent evenly: three at once, then
 * one every 3.6 s, never twenty and then a long silence; the overall
 * second too, after a burst: one message every 36 ms. A forum topic's
 * chat ("GROUP#THREAD") counts against its group, and the group's steps
 * for boards go round its topics (its tables): a step goes to the topic
 * served longest ago among those waiting for one. Answers to presses and
 * inline queries are not messages and are never paced. Thread-safe.
 */
struct tg_pace;

/* A new pacer (NULL when out of memory); free with tg_pace_free() (NULL is fine). */
struct tg_pace *tg_pace_new(void);
void tg_pace_free(struct tg_pace *p);

/*
 * May a message go to chat at now_ms? 0: yes, and it is counted; otherwise
 * how many milliseconds to wait (nothing is counted). *global is set when
 * the overall limit, not the chat's, is the reason. chat is a topic's
 * ("GROUP#THREAD") for a board of a table in a topic: the topic waits its
 * turn among the group's (a topic that asked is waiting until a little
 * after the wait it was given).
 */
int64_t tg_pace_take(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global);

/*
 * tg_pace_take() for a message that is not a board (a line of the chat):
 * in a group it goes aside the boards' steady rate, not moving their next
 * step, while the group's minute has room for it besides the boards';
 * else it waits for a step as a board does.
 */
int64_t tg_pace_take_line(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global);

/*
 * The message to chat counted at taken_ms (by tg_pace_take()) reached
 * Telegram by done_ms (its answer came then): it is counted from done_ms
 * instead, so a call slow on its way (a loaded machine, a slow network)
 * never brings the next ones closer together at Telegram than the limits
 * allow. A no-op on NULL.
 */
void tg_pace_sent(struct tg_pace *p, const char *chat, int64_t taken_ms, int64_t done_ms);

/* ---- the adapter (adapters/adapter.h) ---- */

struct adapter;

/*
 * Telegram's slot in the list of adapters: configured when a token is set;
 * start() learns the bot's username (getMe) and, in polling mode, starts the
 * long-polling thread (dropping a webhook, which Telegram would otherwise
 * prefer); routes() serves POST /telegram in webhook mode; deliver() sends
 * one outbox row.
 */
extern const struct adapter telegram_adapter;

/*
 * `gamebot telegram-setup [--url URL] [--drop-pending] [--polling]`:
 * getMe, then setWebhook to URL (default: none: only commands and getMe)
 * with the configured secret_token and the update types the bot reads
 * (--drop-pending asks Telegram to forget queued updates), or with
 * --polling deleteWebhook; then setMyCommands in English and in Nepali
 * (language_code "ne"). Prints what it did on out, problems on err.
 * Returns the process exit status: 0 done, 1 an API call failed, 2 usage.
 */
int telegram_setup_main(int argc, char **argv, const struct config *cfg, FILE *out, FILE *err);

#endif
