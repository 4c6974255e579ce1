/*
 * fake_telegram.h - a fake Telegram Bot API server for the test suites.
 *
 * It listens on 127.0.0.1 (a free port) and answers POST /bot<token>/<method>
 * with JSON bodies as the Bot API does: {"ok": true, "result": ...} or
 * {"ok": false, "error_code": N, "description": "..."}. It never talks to
 * the internet; suites point TELEGRAM_API_URL at fake_tg_url().
 *
 * What it offers a test:
 *   - every call recorded in arrival order (method and parsed JSON body),
 *     safe to read from any thread while the server runs;
 *   - getUpdates served from a queue the test fills, honouring offset
 *     (earlier updates are confirmed and dropped, as Telegram does),
 *     limit and timeout (long polling waits until an update arrives);
 *   - faults programmed per method: the next `count` matching calls (after
 *     `skip` of them pass) answer 429 with retry_after, 500, one of the 400s
 *     and 403s the adapter must understand, a raw status and body, or are
 *     answered slowly;
 *   - "down": the listener stopped (connections refused) and started again
 *     on the same port; outages (fake_tg_outage()): every call answered
 *     502, or 401, or held past the client's time limit, until it ends;
 *   - getChatMember answers a status set per chat and user ("member" when
 *     not set); sendMessage answers increasing message_ids from 100;
 *     getMe answers the username given at start, and whether inline mode
 *     is on (fake_tg_inline());
 *   - private chats of users who never started the bot (fake_tg_private()):
 *     sendMessage to them answers 403.
 *   - strict mode (off unless asked for): Telegram's documented limits
 *     enforced as Telegram does - one message a second in a chat, twenty
 *     a minute in a group (a negative chat_id), thirty a second overall -
 *     with 429 "Too Many Requests: retry after N" and parameters.retry_after
 *     (a refused message is not counted); answers to callback and inline
 *     queries are not messages and not counted, but an answer to a callback
 *     query more than 10 s old (pushed as an update, or told with
 *     fake_tg_query()) gets 400 "query is too old".
 *
 * Usage:
 *     struct fake_tg *f;
 *     assert_int_equal(fake_tg_start(&f, "123:abc", "gamebot_test_bot"), 0);
 *     ... setenv("GAMEBOT_TELEGRAM_API_URL", fake_tg_url(f), 1) ...
 *     fake_tg_wait(f, "sendMessage", 1, 2000);
 *     json_t *body = fake_tg_call(f, 0, method, sizeof(method));
 *     fake_tg_free(f);
 */
#ifndef GB_FAKE_TELEGRAM_H
#define GB_FAKE_TELEGRAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum fake_tg_fault {
	FAKE_TG_429 = 1,        /* 429 Too Many Requests, parameters.retry_after = arg seconds */
	FAKE_TG_500,            /* 500 Internal Server Error */
	FAKE_TG_NOT_MODIFIED,   /* 400 "Bad Request: message is not modified" */
	FAKE_TG_NOT_FOUND,      /* 400 "Bad Request: message to edit not found" */
	FAKE_TG_403,            /* 403 "Forbidden: bot can't initiate conversation with a user" */
	FAKE_TG_400,            /* 400 "Bad Request: chat not found" */
	/*
	 * wait arg milliseconds, then answer normally: the call is done (a
	 * message posted) whether or not its client still waits, as
	 * Telegram does with a call it is slow to answer
	 */
	FAKE_TG_SLOW,
	FAKE_TG_MIGRATE,        /* 400 with parameters.migrate_to_chat_id = arg */
	FAKE_TG_KICKED,         /* 403 "Forbidden: bot was kicked from the group chat" */
	FAKE_TG_DELETED,        /* 403 "Forbidden: the group chat was deleted" */
	FAKE_TG_BLOCKED,        /* 403 "Forbidden: bot was blocked by the user" */
};

/*
 * The Bot API failing as a whole (fake_tg_outage()): every call, getMe
 * and getUpdates included, is recorded and answered so until the outage
 * ends.
 */
enum fake_tg_outage {
	FAKE_TG_ANSWERING = 0,  /* no outage: calls answered as usual */
	FAKE_TG_OUT_502,        /* 502 {"ok":false,"error_code":502,"description":"Bad Gateway"} */
	FAKE_TG_OUT_401,        /* 401 {"ok":false,"error_code":401,"description":"Unauthorized"} (a revoked token) */
	/*
	 * No answer: the call is held until the outage ends (or the fake
	 * stops) and only then answered 502, long after a client's time
	 * limit.
	 */
	FAKE_TG_OUT_TIMEOUT,
	FAKE_TG_OUT_REFUSED,    /* the listener stopped: connections refused (fake_tg_down()) */
};

struct fake_tg;

/*
 * Start a server for token on 127.0.0.1 with a free port. username is what
 * getMe reports. *out is owned by the caller: fake_tg_free() it.
 * Returns 0, or -1 when it cannot listen.
 */
int fake_tg_start(struct fake_tg **out, const char *token, const char *username);

/* Stop and free; a no-op on NULL. */
void fake_tg_free(struct fake_tg *f);

/* "http://127.0.0.1:PORT" (no trailing slash), valid until fake_tg_free(). */
const char *fake_tg_url(const struct fake_tg *f);
int fake_tg_port(const struct fake_tg *f);

/*
 * Switch into an outage of kind (or out of one: FAKE_TG_ANSWERING). Going
 * from FAKE_TG_OUT_REFUSED to anything else listens again on the same
 * port; returns 0, or -1 when it cannot.
 */
int fake_tg_outage(struct fake_tg *f, enum fake_tg_outage kind);

/* Stop listening (connections are refused) / listen again on the same port. */
void fake_tg_down(struct fake_tg *f);
int fake_tg_up(struct fake_tg *f);

/*
 * Program a fault: the calls of method (NULL = any method) after the next
 * `skip` of them, `count` calls in all, answer as `kind` (arg as documented
 * above). Faults are matched in the order they were added.
 */
void fake_tg_fault(struct fake_tg *f, const char *method, int skip, int count,
		   enum fake_tg_fault kind, long arg);

/* Remove every programmed fault. */
void fake_tg_faults_clear(struct fake_tg *f);

/*
 * Forum topics: a topic of chat (thread 0: the General topic) closed or
 * deleted. sendMessage to it (message_thread_id, or none for General)
 * answers as Telegram does: 400 "Bad Request: TOPIC_CLOSED", or 400 "Bad
 * Request: message thread not found"; FAKE_TG_TOPIC_OPEN opens it again.
 * A sendMessage with message_thread_id answers a message carrying it and
 * is_topic_message, as a message posted in a topic does.
 */
enum fake_tg_topic {
	FAKE_TG_TOPIC_OPEN = 0,
	FAKE_TG_TOPIC_CLOSED,
	FAKE_TG_TOPIC_DELETED,
};
void fake_tg_topic(struct fake_tg *f, const char *chat, long long thread, enum fake_tg_topic state);

/*
 * The private chat of user: closed (open false: they never pressed Start,
 * so sendMessage to it answers 403 "Forbidden: bot can't initiate
 * conversation with a user", as Telegram does) or open (the default).
 */
void fake_tg_private(struct fake_tg *f, const char *user, bool open);

/*
 * The bot's inline mode as BotFather set it: getMe's
 * supports_inline_queries (true at start).
 */
void fake_tg_inline(struct fake_tg *f, bool on);

/* What getChatMember answers for user in chat ("creator", "administrator", ...). */
void fake_tg_member(struct fake_tg *f, const char *chat, const char *user, const char *status);

/*
 * Queue an update for getUpdates. update is the JSON text of one Update
 * object; when it has no update_id, the next one (from 1000, increasing) is
 * set. Returns the update_id.
 */
long long fake_tg_push_update(struct fake_tg *f, const char *update);

/* Calls recorded so far (method NULL = all, otherwise of that method). */
int fake_tg_count(struct fake_tg *f, const char *method);

/*
 * Wait, at most ms, until no client connection is open: every request a
 * client that went away had sent (a killed service's last calls) has been
 * read and recorded. True when none is left. Counts taken after it include
 * those calls; taken at once, they may not.
 */
bool fake_tg_settle(struct fake_tg *f, int ms);

/*
 * Wait, at most ms, until no request is in the fake's hands: a long poll
 * has returned (its offset confirmed what it confirms), a slow answer
 * (FAKE_TG_SLOW) has been given - the call went through whether or not
 * its client still waited. True when none is left.
 */
bool fake_tg_quiet(struct fake_tg *f, int ms);

/* Make requests wait before they are recorded (true), or let them go on (false). */
void fake_tg_hold(struct fake_tg *f, bool hold);

/*
 * The i-th recorded call (0-based, arrival order, every method): its method
 * into method[n] and its body as a new reference (caller json_decref()s;
 * an empty object when the body was not JSON). NULL when there is none.
 * The status the fake answered is in *status when status is not NULL.
 */
json_t *fake_tg_call(struct fake_tg *f, int i, char *method, size_t n, int *status);

/*
 * The i-th recorded call of method (0-based), as fake_tg_call(): a new
 * reference, or NULL.
 */
json_t *fake_tg_nth(struct fake_tg *f, const char *method, int i);

/*
 * Wait until at least count calls of method (NULL = any) are recorded, or
 * timeout_ms passed. Returns the number recorded.
 */
int fake_tg_wait(struct fake_tg *f, const char *method, int count, int timeout_ms);

/* Forget every recorded call. */
void fake_tg_clear(struct fake_tg *f);

/* Print every recorded call to stderr (when a test fails, to see why). */
void fake_tg_dump(struct fake_tg *f);

/* Strict mode on or off (see above); off at start. */
void fake_tg_strict(struct fake_tg *f, bool on);

/* A callback query with this id was just made (sent to the bot's webhook by the test). */
void fake_tg_query(struct fake_tg *f, const char *id);

/* When the i-th recorded call arrived, on fake_tg_now_ms()'s clock; -1 when there is none. */
long long fake_tg_call_ms(struct fake_tg *f, int i);

/* The fake's clock: monotonic milliseconds. */
long long fake_tg_now_ms(void);

/* Calls recorded of method (NULL = any) that were answered with status. */
int fake_tg_count_status(struct fake_tg *f, const char *method, int status);

#endif
