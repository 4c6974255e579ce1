/*
 * internal.h - what the files of adapters/telegram/ share, and nothing
 * outside the folder includes: the adapter's state (struct telegram), the
 * answer of one Bot API call (struct tg_result), the limits the files
 * agree on, and the functions one file offers the others. The public face
 * is adapters/telegram.h.
 *
 * The folder is one file per job, in the order the data flows: parse.c
 * (updates in), render.c (views out), pace.c (Telegram's limits), api.c
 * (one call over HTTP), deliver.c (an outbox row sent and judged),
 * answer.c (answers to presses, their own lane), receive.c (an update into
 * a command; the webhook), poll.c (getUpdates), adapter.c (the adapter's
 * table) and setup.c (`gamebot telegram-setup`).
 */
#ifndef GB_TELEGRAM_INTERNAL_H
#define GB_TELEGRAM_INTERNAL_H

#include <curl/curl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "adapters/adapter.h"
#include "adapters/deliver.h"
#include "adapters/telegram.h"
#include "bot/commands/choices.h"
#include "bot/commands.h"
#include "bot/lang/i18n.h"
#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "games/strbuf.h"
#include "games/utf8.h"

#define TG_CALL_TIMEOUT_S 10L   /* one API call (not a long poll) */
/*
 * A new message from the outbox (sendMessage) waits for Telegram's answer
 * as long as the row's lease allows (adapter_call_ms()), not
 * TG_CALL_TIMEOUT_S: Telegram posts it however late it answers, and a
 * call that gives up first leaves the message in doubt (unsettled()).
 */
#define TG_SEND_TIMEOUT_S 60L
#define TG_POLL_S 25            /* long-poll wait asked of getUpdates */
#define ADMIN_SLOTS 16384        /* rights of a person in a group, 144 bytes each */
#define ADMIN_TTL_MS (5 * 60 * 1000)
/* a failed getChatMember is remembered too, briefly: a flood must not become a flood of calls */
#define ADMIN_FAIL_TTL_MS (30 * 1000)
/*
 * Calls made on a listener thread while the update waits (inline answers,
 * rights): a platform that is slow to answer must not hold the thread for
 * a full TG_CALL_TIMEOUT_S.
 */
#define TG_LISTENER_TIMEOUT_S 3L
#define TG_ANSWERING 64         /* presses answered at once, for tg_answer_press()'s own bookkeeping */

/* The update types the bot reads (api.c): webhook and polling ask for the same. */
#define TG_UPDATE_KINDS 5
extern const char *const tg_allowed_updates[TG_UPDATE_KINDS];

struct admin_entry {
	char chat[STORE_ID_LEN];
	char user[STORE_ID_LEN];
	bool admin;
	int64_t until_ms;
};

struct telegram {
	struct adapter_env env;            /* a copy: what it points to outlives the adapter */
	char api[CONFIG_VALUE_LEN];        /* base URL without a trailing slash */
	char token[CONFIG_VALUE_LEN];      /* never logged: it is in every URL */
	char secret[CONFIG_VALUE_LEN];
	bool webhook;
	struct tg_pace *pace;              /* NULL: pacing switched off (tests, benchmarks) */

	pthread_mutex_t lock;              /* guards what follows */
	pthread_cond_t wake;               /* the poller's pauses end early at stop */
	char username[64];                 /* the bot's own, from getMe; "" until known */
	bool no_inline;                    /* getMe said supports_inline_queries false (BotFather's /setinline not done) */
	int64_t username_tried_ms;
	struct admin_entry admins[ADMIN_SLOTS];
	char answering[TG_ANSWERING][CMD_REPLY_LEN]; /* presses being answered now ("" free) */
	bool stop;

	pthread_t poller;
	bool polling;
	atomic_int abort_poll;             /* read by curl's progress callback on the poller */
};

/* What one API call came back with. */
struct tg_result {
	int transport;                     /* CURLcode: 0 when a response arrived */
	long status;                       /* HTTP status */
	bool ok;                           /* the body said "ok": true */
	json_t *result;                    /* its "result" (owned) */
	char description[160];
	int64_t retry_after;               /* seconds, with 429 */
	char migrate_to[32];               /* with 400 when a group became a supergroup */
	bool no_connection;                /* transport: no connection could be made at all */
	bool not_made;                     /* no time left before the delivery's deadline: no call made */
	bool sent;                         /* transport: it failed after the whole request went out */
};

/* A press's answer is sent at once or not at all (answer.c, receive.c). */
#define TG_ANSWER_TIMEOUT_S 5L  /* Telegram refuses an answer older than a few seconds anyway */

/* ---- what one file offers the others (each described where it is defined) ---- */

/* parse.c */
bool tg_id_text(const json_t *v, char *buf, size_t n);

/* render.c */
json_t *tg_send_body(const char *place, const char *text, bool pre);

/* pace.c */
uint32_t tg_hash(const char *s);

/* api.c */
void tg_result_release(struct tg_result *r);
void tg_api(struct telegram *t, const char *method, const json_t *body, long timeout_s,
	    const atomic_int *abort_flag, struct tg_result *res);
void tg_describe(const char *method, const struct tg_result *res, char *buf, size_t n);
void tg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tg_ensure_username(struct telegram *t);
void tg_username_copy(struct telegram *t, char *buf, size_t n);
bool tg_inline_on(struct telegram *t);

/* deliver.c */
bool tg_platform_failure(const struct tg_result *res);
void tg_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d);

/* answer.c */
void tg_answer_press(struct telegram *t, struct store *s, const char *chat, const char *reply);

/* receive.c */
int tg_receive(struct telegram *t, const char *body, size_t len, char *close, size_t cap);
int tg_admit(void *arg, const struct http_request *req);
void tg_webhook(void *arg, const struct http_request *req, struct http_response *resp);

/* poll.c */
void *tg_poll_main(void *arg);

/* adapter.c */
void tg_free(struct telegram *t);

#endif
