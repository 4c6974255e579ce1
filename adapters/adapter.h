/*
 * adapter.h - the seam between the service and a chat platform.
 *
 * Each platform (Telegram, Discord, the console) fills one struct adapter:
 * a table of function pointers in the manner of curl's protocol handlers.
 * The service never names a platform; it walks the list of adapters, starts
 * those whose configuration is present, serves their routes on the one HTTP
 * listener, and runs an outbox worker (adapters/outbox.h) for each adapter
 * that delivers rows.
 *
 * An adapter turns what it receives into struct command and calls
 * bot_handle() with the bot of the calling thread (adapter_bot()): every
 * thread has its own store handle, because a handle belongs to one thread.
 * Replies come back as outbox rows (JSON views, see bot/bot.h) which the
 * outbox worker hands to deliver() one at a time, per chat in order.
 */
#ifndef GB_ADAPTER_H
#define GB_ADAPTER_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/http.h"
#include "bot/bot.h"
#include "bot/base/config.h"
#include "games/strbuf.h"
#include "store/store.h"

/* What the service hands every adapter at start. Valid until stop. */
struct adapter_env {
	const struct config *cfg;       /* service settings: tokens, API URLs, limits */
	struct bot_config bot;          /* settings for the bots the adapter's threads use */
	const char *db;                 /* the store: each thread opens its own handle */
	void (*wake)(void *arg);        /* nudge this adapter's outbox worker after a commit; may be NULL */
	void *wake_arg;
	void (*request_stop)(void *arg); /* the adapter ends the service (the console at end of input) */
	void *stop_arg;
};

/* How one delivery went. */
enum delivery_result {
	DELIVERY_OK = 0,   /* delivered, or nothing to deliver: the row is removed */
	DELIVERY_RETRY,    /* transient failure: again after a backoff; counts an attempt (see platform_down) */
	DELIVERY_WAIT,     /* the platform (or our pacing) asks to wait retry_ms: not an attempt */
	DELIVERY_GIVE_UP,  /* permanent failure: the row is set aside with `why` and a log line */
};

/* What probe() found. */
enum probe_result {
	PROBE_UP = 0,           /* the platform answers */
	PROBE_DOWN,             /* it cannot be reached, does not answer in time, or answers 5xx */
	PROBE_UNAUTHORIZED,     /* it answers, but refuses the service's credentials (401) */
};

struct delivery {
	enum delivery_result result;
	int64_t retry_ms;               /* DELIVERY_WAIT: how long */
	bool global;                    /* DELIVERY_WAIT for every chat of the platform, not just this one */
	/*
	 * DELIVERY_RETRY for a failure of the platform, not of the row: no
	 * connection could be made (refused, no route, its name unknown),
	 * no answer came in time, or it answered 5xx. The outbox asks
	 * probe() at once: when the platform does not answer it either, its
	 * deliveries pause behind probe() (outbox.h) instead of trying every
	 * row, and no row spends an attempt; when it does, the failure was
	 * the row's after all, an attempt like any other.
	 *
	 * With DELIVERY_GIVE_UP: a post whose whole request went out but
	 * whose answer never came (in doubt: the platform may have posted
	 * it, and a repeat would show it twice). The probe is asked the
	 * same way: a platform that answers is up but was slow, so the post
	 * most likely went through and is set aside, never sent again; one
	 * that does not answer is down, so the post most likely never
	 * reached it and waits behind the probe with the others.
	 */
	bool platform_down;
	/*
	 * With platform_down: the platform refused the service's own
	 * credentials (401: a token revoked or wrong), which no row can cure.
	 * Calls stop at once - Discord bans an address that keeps making
	 * them - until a probe is let in again.
	 */
	bool unauthorized;
	char why[160];                  /* for the log line and the set-aside row; no secrets */
};

/* Milliseconds on the monotonic clock: the clock of delivery deadlines. */
int64_t adapter_mono_ms(void);

/*
 * The calling thread's delivery deadline: when, on adapter_mono_ms()'s
 * clock, every platform call of the delivery in hand must have ended. The
 * outbox sets it before deliver() (the row's lease, less the time to
 * record the outcome) and clears it (0: none) after: a call still running
 * past it could meet another worker that claimed the row again, and sends
 * it too. Other threads (a listener answering a press) have none.
 */
void adapter_deadline_set(int64_t mono_ms);

/* A call with less than this left before the thread's deadline is not begun. */
#define ADAPTER_CALL_MIN_MS 500

/*
 * How long the calling thread's next platform call may take: limit_ms, or
 * less when its deadline comes sooner; 0 when less than
 * ADAPTER_CALL_MIN_MS is left (the call is not to be made: the row goes
 * back untried). For CURLOPT_TIMEOUT_MS.
 */
long adapter_call_ms(long limit_ms);

struct adapter {
	/* Platform name: the `platform` of its commands, chats and outbox rows. */
	const char *name;

	/* Is the adapter configured (its token or key present)? */
	bool (*configured)(const struct config *cfg);

	/*
	 * Create the adapter's state in *self and start its own threads (a
	 * long-polling loop, a console reader). Returns GB_OK or an error;
	 * on error *self is left NULL.
	 */
	int (*start)(const struct adapter_env *env, void **self);

	/* Up to max routes it serves on the shared listener; returns how many. May be NULL. */
	int (*routes)(void *self, struct http_route *out, int max);

	/*
	 * Deliver one outbox row (row->payload is a reply view, see bot.h),
	 * on the outbox worker's thread with that thread's store handle s.
	 * Fill d. NULL when the adapter delivers its own rows (the console).
	 */
	void (*deliver)(void *self, struct store *s, const struct store_out *row, struct delivery *d);

	/*
	 * Milliseconds a claimed row must wait before deliver() may have it
	 * (0: it may go), asked of every row of a claim before any is
	 * delivered, so a row held back is handed back at once rather than
	 * after the batch's other deliveries. May be NULL.
	 */
	int64_t (*held)(void *self, const struct store_out *row);

	/*
	 * One cheap call to the platform with the service's credentials
	 * (Telegram's getMe, Discord's /users/@me): PROBE_UP when it answered
	 * as it does when well, whatever else it said; PROBE_DOWN when no
	 * connection could be made, no answer came in time or it answered
	 * 5xx; PROBE_UNAUTHORIZED when it refused the credentials (401).
	 * When a delivery fails for the platform (platform_down) the outbox
	 * asks this at once, and while the platform is down it asks this,
	 * with a backoff, instead of trying rows. NULL: the adapter's rows
	 * are each tried as any failure.
	 */
	int (*probe)(void *self);

	/* Stop its threads (finishing the work in flight) and free self; a no-op on NULL. */
	void (*stop)(void *self);
};

/*
 * The bot of the calling thread for env: opened on first use with its own
 * store handle, closed when the thread exits (or by adapter_bot_release()).
 * Returns NULL when the store cannot be opened (logged).
 */
struct bot *adapter_bot(const struct adapter_env *env);

/* Close the calling thread's bot now; a no-op when it has none. */
void adapter_bot_release(void);

/*
 * A person's queue message in chat of platform is message now (just
 * posted, or answered in place): recorded with their queue entry. When
 * nobody waits in that chat any more (the entry went - seated, left -
 * while the message was on its way), it is handed instead to the chat's
 * pending queue views not in a worker's hands (the entry's last view,
 * queued when it went, behind the post in the chat's order): they edit it
 * rather than post a second message. In a transaction of its own, or in
 * the caller's (in_tx).
 */
int adapter_queue_message(struct store *s, const char *platform, const char *chat, const char *message,
			  bool in_tx);

/*
 * The bot can no longer reach chat of platform (removed from the group,
 * the channel deleted; why says how it was told). A forum topic's chat
 * ("CHAT#THREAD") stands for its group: the group and every topic of it
 * the store knows (store_chat_places()) are each gone. Each one's open
 * table stops as /stop stops it, every stake refunded, and its pending
 * rows not in a worker's hands are set aside with why, so no call is made
 * for them. On the calling thread's bot (adapter_bot()); one log line.
 */
int adapter_chat_gone(const struct adapter_env *env, const char *platform, const char *chat,
		      const char *why);

/*
 * The calling thread's libcurl handle, made on first use and kept so its
 * connections to a platform's API stay open between calls; cleaned up when
 * the thread exits. Callers curl_easy_reset() it before setting their
 * options. NULL when out of memory. curl_global_init() is main's, made
 * before any thread starts (it is not thread-safe).
 */
CURL *adapter_curl(void);

/* The most of a platform's answer ever held: no answer of theirs comes near it. */
#define ADAPTER_MAX_RESPONSE (1024 * 1024)

/*
 * A CURLOPT_WRITEFUNCTION appending what arrives to the struct strbuf in
 * its WRITEDATA, up to ADAPTER_MAX_RESPONSE bytes: an answer that would
 * grow past that (or past memory) ends the transfer (CURLE_WRITE_ERROR).
 */
size_t adapter_curl_sink(char *p, size_t size, size_t n, void *strbuf);

/*
 * Does a transfer that ended with curl_code (a CURLcode) mean that no
 * connection to the platform could be made (refused, unreachable, its
 * name or proxy unknown, or a time limit met before it connected, as
 * CURLINFO_CONNECT_TIME_T of c says when c is given)? Nothing was sent
 * then: the platform is down, not the request wrong.
 */
bool adapter_no_connection(int curl_code, CURL *c);

/*
 * Did a transfer on c that ended with curl_code (not CURLE_OK) hand the
 * whole request (headers and body_len bytes of body) to the platform
 * before it failed - timed out waiting for the answer, the connection cut
 * or closed with no answer? Then the platform may have done it: a call
 * that is not safe to repeat (a new message) is in doubt, not failed.
 */
bool adapter_request_sent(int curl_code, CURL *c, size_t body_len);

/* Clear sb's storage (it held a token: a URL, a header) and release it. */
void adapter_sb_wipe(struct strbuf *sb);

/*
 * Button data, the same on every platform: "TABLE:TURN:CMD", the command
 * without its slash ("42:17:move 2"), table and turn in decimal, so the
 * router can refuse a stale or forged press (bot.h button_table/_turn).
 * button_data_encode() writes it into buf (cap bytes, more than max);
 * GB_EARGS when it would be longer than max bytes (the platform's limit)
 * or cmd does not start with "/". button_data_decode() reads data of at
 * most max bytes: *rest gets what follows the turn (non-empty, valid
 * UTF-8); GB_EPARSE when data is not of that shape.
 */
int button_data_encode(int64_t table, int turn, const char *cmd, size_t max, char *buf, size_t cap);
int button_data_decode(const char *data, size_t max, int64_t *table, int *turn, const char **rest);

/* Every adapter the service knows, NULL-terminated. */
extern const struct adapter *const adapters[];

#endif
