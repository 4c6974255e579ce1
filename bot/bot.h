/*
 * bot.h - the platform-neutral bot: commands in, replies out.
 *
 * Every adapter (console, Telegram, Discord) turns what it receives into a
 * struct command and calls bot_handle(). The router looks the verb up in one
 * static command table, checks arity and preconditions, runs the handler,
 * and commits everything the command changed - table state with a version
 * check, the move log, timers, stats, the dedupe key and the replies queued
 * in the outbox - in ONE store transaction. Replies are views (struct reply
 * serialised as JSON), never platform JSON: each adapter renders them.
 *
 * Timers (computer turns, idle autoplay, watch-mode rounds) are store rows;
 * bot_run_timers() turns the due ones into commands on the same path, so a
 * restart resumes them.
 */
#ifndef GB_BOT_H
#define GB_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "store/store.h"

#define CMD_ARGS_LEN 256
#define CMD_REPLY_LEN 512

struct command {
	char platform[16];             /* "console", "telegram", "discord" */
	char chat[STORE_ID_LEN];       /* chat or channel id on the platform */
	char user[STORE_ID_LEN];       /* user id on the platform */
	char user_name[STORE_NAME_LEN];
	bool is_admin;                 /* the platform says this user administers the chat */
	/*
	 * One identity shared by several people (a Telegram group's
	 * anonymous admins, a channel posting in a group): it may administer
	 * the chat when is_admin says so, but never takes a seat.
	 */
	bool anonymous;
	/*
	 * Seen in a group without being addressed to this bot ("/foo", not
	 * "/foo@thisbot"): Telegram hands every bot's commands to every bot,
	 * so a verb this bot does not know is someone else's and gets no
	 * answer. False in a private chat, for buttons and on platforms
	 * whose commands are always this bot's own.
	 */
	bool unaddressed;
	char verb[24];                 /* command name without slash, lowercase */
	char args[CMD_ARGS_LEN];       /* the rest of the line, trimmed */
	char update_id[STORE_ID_LEN];  /* platform delivery id for dedupe; "" = none */
	int64_t now_ms;                /* when it arrived (epoch ms, or a virtual clock) */
	bool internal;                 /* raised by the scheduler, not typed by anyone */
	bool redelivered;              /* the platform sends it again until it is acknowledged
	                                  (Telegram): when the store fails, nobody is told now */
	/*
	 * The platform's handle for answering this command in place (a
	 * Telegram callback_query_id, a Discord interaction); "" = none.
	 * The rows addressed to the caller alone (their alerts and private
	 * views) carry it as "reply"; a command with a handle that produced
	 * no such row gets one "ack" row, so the adapter can answer the
	 * platform. Rows for the chat or for other users never carry it as
	 * "reply"; every row of the command names it as "origin", so that
	 * an adapter answering in place (Discord's interaction response)
	 * can take its own command's rows.
	 */
	char reply[CMD_REPLY_LEN];
	/*
	 * A button press: the table and turn the button was shown for (from
	 * the platform's button data; 0 = typed). Button data is the
	 * presser's to write, so a press acts where it was pressed: chat is
	 * the place of the message pressed on, never a place the data names.
	 * The router refuses a press for another table than this chat's open
	 * one, or for an earlier turn, with an alert and changes nothing -
	 * silently when the press has no reply handle (a Telegram inline
	 * result: no button the chat saw was pressed, so the chat is not
	 * told). Only a move of the presser's own seat pressed in their
	 * private chat (a Call Break hand's card) or on a message in no chat
	 * is taken to the table's place (press.c).
	 */
	int64_t button_table;
	int button_turn;
	/*
	 * A button press: the id of the message it was on, when the platform
	 * says ("" typed, or unknown). A press on an outdated message (a queue
	 * message whose entry is gone) edits that message to say so.
	 */
	char button_message[32];
	/*
	 * Internal: a computer's move chosen before the transaction (outside
	 * the store's write lock) for the table version in the timer's
	 * arguments. Used only if the table is still at that version.
	 */
	bool has_choice;
	struct gb_action choice;
	/*
	 * Sent in a private chat with the bot (a Telegram private chat, a
	 * Discord direct message): online play is asked for there, and a
	 * command there that concerns no table of the chat's own goes to the
	 * person's seat at an online table (online.c).
	 */
	bool private_chat;
	/*
	 * A press on a message that is in no chat (Telegram's inline mode):
	 * chat is then the presser's private chat with the bot, where an
	 * answer may go, not where the press was. Such a press may act only
	 * on the presser's own seat (press.c).
	 */
	bool no_place;
	/*
	 * The platform takes a button pressed in the private chat, on a view
	 * of a table elsewhere, to that table's own chat (Telegram): hands
	 * sent there may carry their cards as buttons.
	 */
	bool private_presses;
	/*
	 * A command taken to an online table, or a press of the presser's own
	 * seat taken from their private chat to its table's place (press.c):
	 * the platform, chat and user id it came from (platform, chat and user
	 * then name the table's place and the person as the table knows them;
	 * the rows answering the press go back there). "" otherwise.
	 */
	char from_platform[16];
	char from_chat[STORE_ID_LEN];
	char from_user[STORE_ID_LEN];
	/* Internal: the queue entries an online table is opened for (the matcher's own). */
	const struct store_queue *match;
	int nmatch;
	int match_computers;           /* seats left to computers */
};

/*
 * Places. A chat id may name one place within a chat - a topic of a
 * Telegram forum group - as "CHAT#THREAD". Each place holds its own open
 * table, and its messages keep their own order in the outbox; the
 * language, settings, wallets and stats belong to the chat itself (the
 * part before PLACE_SEP), shared by all its places. A chat id without
 * PLACE_SEP is the chat's one place, as before.
 */
#define PLACE_SEP '#'

/* The chat part of place into buf (cap bytes, cut if longer); returns buf. */
const char *place_chat(const char *place, char *buf, size_t cap);

/* The thread part of place (after PLACE_SEP), or "" when place is a whole chat. */
const char *place_thread(const char *place);

/* Kinds of reply a handler produces. */
enum reply_kind {
	REPLY_TABLE = 0,  /* the table message: posted once, then edited in place */
	REPLY_PUBLIC,     /* a short line in the chat */
	REPLY_PRIVATE,    /* a view for one user only (a Call Break hand) */
	REPLY_ALERT,      /* a short answer to one user (refusals, toasts) */
	REPLY_ACK,        /* nothing to say: the command's reply handle is answered empty */
};

/*
 * A reply as queued in the outbox (payload JSON). Every adapter renders it
 * its own way:
 *   {"kind": "table"|"public"|"private"|"alert"|"ack",
 *    "user": platform user id (private, alert),
 *    "text": the message, plain Unicode text (boards are monospace),
 *    "buttons": [[{"label": "Roll", "cmd": "/roll"}, ...], ...] (optional);
 *             a button with "inline": QUERY opens the platform's private
 *             picker in this chat with QUERY typed (Telegram's inline
 *             mode: the presser's own choices, seen by them alone); a
 *             platform without one presses "cmd" instead, and shows one
 *             button for buttons with the same "cmd",
 *    "table": table id, "turn": moves logged when it was rendered (both
 *             when the chat has a table; buttons are tagged with them),
 *    "lang": "en"|"ne", "reply": the command's reply handle, on the rows
 *             addressed to the caller alone (optional),
 *    "origin": the same handle on every row of that command (optional;
 *             it names the command, it does not answer the handle),
 *    "repost": true on a table asked for again (/board): it is posted
 *             as a new message at the bottom of the chat and the earlier
 *             table message loses its buttons, so one table message has
 *             live buttons (optional; an adapter without such a notion
 *             shows it as any table),
 *    "secret": true on an alert that tells of the user's hand (a refused
 *             card): never shown to the whole chat - answered in place,
 *             else sent to the user's private chat, else not at all,
 *    "cover": true on the public line that stands in the chat for such
 *             an alert (it names no card); an adapter whose chat is one
 *             person's view, who reads the alert itself, may leave it out}
 * Rows of kind "table" replace an earlier pending row of the same table:
 * only the newest board is sent. A repost is never replaced.
 */

struct bot_config {
	const char *default_lang;      /* "en" or "ne" */
	int64_t bot_delay_ms[3];       /* computer turn pacing for slow, normal, fast */
	uint64_t seed;                 /* 0: tables get unpredictable seeds; else derived
	                                  from this (reproducible transcripts and tests) */
	int watch_max;                 /* computer-only tables open at once, all chats (0 = no limit) */
	int watch_per_hour;            /* computer-only games a chat may start per hour (0 = no limit) */
	int rate_user_per_min;         /* commands one user may send in a chat per minute (0 = no limit) */
	int rate_chat_per_min;         /* commands a chat may send per minute (0 = no limit) */
	/* online tables (online.c) */
	bool online;                   /* /online offered at all */
	int64_t online_fill_ms;        /* after this wait, computers may fill the free seats */
	int online_autoplay_s;         /* an away player's turn is played after this (0: never) */
	int online_coins;              /* a new online wallet's starting grant */
};

struct bot {
	struct store *store;
	struct bot_config cfg;
	uint64_t tables_opened;        /* tables opened by this process (seed derivation) */
	int64_t lock_max_us;           /* longest write transaction this bot held (benchmarks) */
	int64_t conflicts;             /* version conflicts met (tests, metrics) */
	int64_t online_matched_ms;     /* when this bot last looked for online tables to open */
};

/* Fill cfg with defaults. */
void bot_config_init(struct bot_config *cfg);

/*
 * Split a chat line "/verb args" (or "verb args") into cmd->verb and
 * cmd->args. A "@botname" suffix on the verb is dropped. Any Unicode space
 * or line break may follow the verb ("/new\nludo", "/new" NBSP "snakes");
 * in the arguments each becomes a plain space. Returns GB_OK, or
 * GB_EPARSE when the text is not a command.
 */
int command_parse_text(struct command *cmd, const char *text);

/*
 * Handle one command completely (one transaction; retried on a version
 * conflict). Returns GB_OK when handled - refusals included, they are
 * replies - GB_EDUP for a repeated delivery, GB_ELIMIT for a command past
 * its rate limit's one warning (nothing was done and no row written, not
 * even an ack for its reply handle: the adapter answers a press without
 * a row, or not at all), or an error when the store failed (then nothing
 * was changed).
 */
int bot_handle(struct bot *b, const struct command *cmd);

/*
 * Fire every timer due at now_ms (computer turns, idle autoplay, watch-mode
 * next round), each as its own transaction. kinds_mask selects kinds
 * (BOT_TIMER_* bits). Returns the number fired, or a negative gb_error.
 */
#define BOT_TIMER_BOT 1
#define BOT_TIMER_IDLE 2
#define BOT_TIMER_NEXT 4
#define BOT_TIMER_MATCH 8   /* online tables opened for the people queueing */
#define BOT_TIMER_ALL 15
int bot_run_timers(struct bot *b, int64_t now_ms, int kinds_mask);

/*
 * Decoded table states kept in memory, process-wide (statecache.c): a command
 * on a table whose state is kept skips decoding it. Up to entries tables
 * (the least recently used make room); 0 keeps none. The default suits
 * 20,000 chats playing at once. Safe from any thread.
 */
#define BOT_STATE_CACHE_DEFAULT 25000
void bot_state_cache_size(size_t entries);

/* What a cache of the process has done since it started (for /metrics). */
struct bot_cache_stats {
	uint64_t hits, misses, evictions;
	size_t entries, capacity;
	size_t bytes;                  /* memory its entries hold */
	/* of the hits, those that handed over the table's seats, last move and
	   terms too (a version this process wrote), and those that did not */
	uint64_t facts_hits, facts_misses;
};
void bot_state_cache_stats(struct bot_cache_stats *out);

/*
 * Set the /metrics series of the process's caches (the decoded states,
 * the rate limits' windows) from their own counts: a command pays
 * nothing for them. For the thread that keeps the gauges.
 */
void bot_caches_publish(int64_t now_ms);

/*
 * What the database keeps, in days (0: forever): processed update ids
 * (redeliveries dropped), finished tables with their seats, sealed seeds
 * and move logs (/verify and /board reach them), outbox rows set aside.
 * batch: rows deleted per transaction (finished tables, which take their
 * move logs with them, a fiftieth of it).
 */
struct bot_prune {
	int processed_keep_days;
	int verify_keep_days;
	int aside_keep_days;
	int batch;
};

/* Rows pruned so far (added to by each step). */
struct bot_pruned {
	int64_t processed, tables, aside;
};

/*
 * One step of pruning at now_ms: at most one batch of each kind, each in
 * a transaction of its own, counted into *done and in /metrics. Returns 1
 * while more is left (call again), 0 when nothing older than the windows
 * is left, or a negative gb_error when the store failed. Open tables, rows
 * waiting to be sent, stats and the coins ledger are never pruned.
 */
int bot_prune_step(struct store *s, const struct bot_prune *p, int64_t now_ms, struct bot_pruned *done);

/*
 * Open the online tables the queue allows at now_ms (each its own
 * transaction, the queue entries claimed once however many instances
 * look): full tables of people first, then, past the fill-in wait,
 * tables whose free seats computers take. Returns the tables opened, or
 * a negative gb_error. bot_run_timers() calls it (BOT_TIMER_MATCH).
 */
int bot_online_match(struct bot *b, int64_t now_ms);

/* Set the /metrics gauges of the online queues (people waiting, longest wait) from s. */
void bot_online_publish(struct store *s, int64_t now_ms);

/* Current wall-clock time in epoch milliseconds. */
int64_t bot_now_ms(void);

#endif
