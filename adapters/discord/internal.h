/*
 * internal.h - what the files of adapters/discord/ share, and nothing
 * outside the folder includes: the adapter's state (struct discord), an
 * interaction as read, the answer of one API call (struct dc_result),
 * Discord's limits, and the functions one file offers the others. The
 * public face is adapters/discord.h.
 *
 * The folder is one file per job, in the order the data flows: parse.c
 * (interactions in, signatures), render.c (views out), interaction.c
 * (handles, gates, dead webhooks), answer.c (the answer taken from the
 * command's rows), receive.c (the interactions route), pace.c (the rate
 * limits), api.c (one call over HTTP), deliver.c (the remaining rows),
 * adapter.c (the adapter's table) and setup.c (the slash command set,
 * `gamebot discord-register`).
 *
 * The reply handle a command carries (struct command.reply, copied into
 * every reply row) is "INTERACTION_ID:USER_ID:TOKEN": enough for
 * dc_deliver() to post follow-ups through the interaction's webhook while
 * its token is valid (the id is a snowflake, so its age is known without
 * asking), and to tell whether a private view is for the person who
 * pressed.
 *
 * The table message id stored for a table (store_table_set_message) is a
 * channel message id, or "@INTERACTION_ID" when the table was posted as the
 * answer to a typed command: such a message is edited through that
 * interaction's webhook (its token kept in the store's meta under
 * "discord.orig.<channel>") and its real id recorded from the edit's answer
 * or from the next button pressed on it.
 */
#ifndef GB_DISCORD_INTERNAL_H
#define GB_DISCORD_INTERNAL_H

#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "adapters/deliver.h"
#include "adapters/discord.h"
#include "adapters/discord/pace.h"
#include "bot/commands/choices.h"
#include "bot/commands.h"
#include "bot/lang/i18n.h"
#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "games/strbuf.h"
#include "games/utf8.h"

/* ---- Discord's limits and codes ---- */

#define DC_LABEL_MAX 80        /* a button's label */
#define DC_OPTION_MAX 100      /* a select option's label and value */
#define DC_ROW_MAX 5           /* buttons in a row */
#define DC_ROWS_MAX 5          /* rows in a message */
#define DC_CHOICES_MAX 25      /* autocomplete choices, options of a select */
#define DC_GATE_SLOTS 128     /* more than the listener's threads (at most 64) */
#define DC_GATE_GRACE_MS 300   /* rows of an answered interaction wait this long after the answer */
#define DC_CALL_TIMEOUT_S 10L
#define DC_POST_TIMEOUT_S 60L  /* a post waits as long as the row's lease allows (adapter_call_ms()) */
#define DC_TAKE_MAX 64
#define DC_TAKE_WAIT_MS 1000   /* for a row of the answer that a worker claimed */
#define DC_FROM_EPOCH 1420070400000LL
#define DC_REACH_SLOTS 256     /* channels whose reach is remembered in memory (the store has all) */
#define DC_PROBE_MS (60LL * 60 * 1000) /* a channel refused to the bot is tried as the bot again after this */
#define DC_DEAD_HOOKS 256      /* interaction webhooks Discord said are gone, remembered */
#define DC_RETRY_MAX_MS (7LL * 24 * 3600 * 1000) /* the longest 429 wait believed (longer: this) */
#define DC_UNKNOWN_CHANNEL 10003
#define DC_UNKNOWN_WEBHOOK 10015
#define DC_UNKNOWN_INTERACTION 10062
#define DC_INVALID_WEBHOOK_TOKEN 50027
#define DC_CONTEXT_PRIVATE_CHANNEL 2   /* an interaction's context: a group DM, or a DM between two others */

/* the slash command set (setup.c) and the permissions read from an interaction (parse.c) */
#define OPT_STRING 3
#define OPT_INTEGER 4
#define PERM_ADMINISTRATOR 0x8ULL
#define PERM_MANAGE_GUILD 0x20ULL
#define DC_DESC_MAX 100                 /* a command's or option's description, in characters */

/* ---- an interaction as read (parse.c) ---- */

enum {
	IT_PING = 1,
	IT_COMMAND = 2,
	IT_COMPONENT = 3,
	IT_AUTOCOMPLETE = 4,
	IT_MODAL_SUBMIT = 5,
};

struct interaction {
	json_t *root;                   /* the parsed body (owned); the pointers below point into it */
	int type;
	const char *id;
	const char *app_id;             /* the application it is for (NULL when not sent) */
	const char *token;
	const char *channel;
	const char *user;
	char user_name[STORE_NAME_LEN];
	bool is_admin;
	bool dm;                        /* the bot's own direct messages with the person */
	const json_t *data;
	const char *message_id;         /* IT_COMPONENT: the message the component is on */
	bool message_ephemeral;
	const char *message_content;
};

/* ---- the adapter's state ---- */

struct gate {
	char iid[24];
	int64_t until_ms;               /* 0: being answered now */
};

/* What is known of a channel: can the bot post there, or only interactions? */
struct reach {
	char channel[24];               /* "" for a free slot */
	bool hooks;                     /* the bot was refused there (403): interactions only */
	int64_t probe_ms;               /* hooks: when a row with no interaction may try the bot again */
};

struct discord {
	/*
	 * A copy: the service builds the env it hands start() on its own stack
	 * (its pointers, the configuration and the store's path, do live
	 * until stop).
	 */
	struct adapter_env env;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	char api[CONFIG_VALUE_LEN];     /* base URL without a trailing slash */
	char app_id[CONFIG_VALUE_LEN];  /* digits only (checked at start) */
	char token[CONFIG_VALUE_LEN];   /* bot token: never logged */

	/*
	 * Interactions being answered by their route handler: their rows are
	 * the handler's to take, and deliver() leaves them alone until a
	 * moment after the answer went, so no follow-up overtakes it.
	 */
	pthread_mutex_t lock;
	struct gate gates[DC_GATE_SLOTS];

	/*
	 * Channels where the app was added without its bot user (only the
	 * applications.commands scope), so posting there as the bot is
	 * refused: a cache of the store's "discord.hooks.<channel>" (under
	 * lock), so that a restart or another instance does not learn it
	 * again from a refusal per channel.
	 */
	struct reach reach[DC_REACH_SLOTS];
	int reach_next;                 /* the slot taken next when all are used */

	/* Discord's rate limits as its answers state them (adapters/discord/pace.h); NULL: not paced */
	struct dc_pace *pace;

	/*
	 * Interaction webhooks that answered 404 Unknown Webhook (10015) or
	 * Unknown interaction (10062), under lock: never called again, the
	 * rows they would carry go as the bot instead. Kept as hashes of the
	 * tokens, a ring of the newest.
	 */
	unsigned char dead[DC_DEAD_HOOKS][16];
	int dead_next;
};

/* ---- an interaction remembered (interaction.c) ---- */

/* A reply handle read (dc_handle_parse()). */
struct handle {
	char iid[24];
	char user[24];
	const char *token;              /* points into the handle text */
};

/* ---- the API over HTTP (api.c) ---- */

/* What one API call came back with. */
struct dc_result {
	int transport;                  /* CURLcode: 0 when a response arrived */
	long status;
	json_t *body;                   /* the parsed answer (owned), or NULL */
	int64_t retry_ms;               /* with 429 */
	bool global;                    /* with 429: the limit is the application's, not a route's */
	bool as_bot;                    /* the call was made with the bot token (not a webhook's) */
	bool paced;                     /* not made: the rate limits ask to wait retry_ms (a 429 of our own) */
	struct dc_limits limits;        /* what the answer's X-RateLimit-* headers said */
	bool no_connection;             /* transport: no connection could be made at all */
	long code;                      /* Discord's JSON error code (10003 Unknown Channel, ...); 0 none */
	/*
	 * transport: a post that carries no enforced nonce (a follow-up
	 * through an interaction's webhook) failed after the whole request
	 * went out - Discord may have posted it, and would post a repeat too
	 */
	bool in_doubt;
};

/* ---- what one file offers the others (each described where it is defined) ---- */

/* parse.c */
const char *dc_str_or(const json_t *v, const char *def);
void dc_interaction_release(struct interaction *ia);
bool dc_id_ok(const char *s);
int dc_interaction_parse(const char *body, size_t len, struct interaction *ia);
bool dc_option_text(const json_t *opt, char *buf, size_t n);
const json_t *dc_option_named(const json_t *data, const char *name);
void dc_command_from_slash(const json_t *data, struct command *cmd);
void dc_command_from_component(const json_t *data, struct command *cmd);

/* interaction.c */
void dc_hook_bury(struct discord *d, const char *token, size_t len);
bool dc_hook_dead(struct discord *d, const char *token);
void dc_gate_enter(struct discord *d, const char *iid);
void dc_gate_leave(struct discord *d, const char *iid);
int64_t dc_gate_wait(struct discord *d, const char *iid);
void dc_handle_make(const struct interaction *ia, char *buf, size_t n);
bool dc_handle_parse(const char *text, struct handle *h);
bool dc_fresh(const char *iid, int64_t now_ms);

/* answer.c */
const char *dc_origin_of(const json_t *view);
json_t *dc_message_data(const json_t *view, bool code, bool ephemeral);
json_t *dc_answer(int type, json_t *data);
int dc_chat_lang(struct bot *b, const char *channel);
int dc_run_interaction(struct discord *d, struct bot *b, const struct interaction *ia,
		       json_t **out);

/* receive.c */
int dc_admit(void *arg, const struct http_request *req);
void dc_interactions(void *arg, const struct http_request *req, struct http_response *resp);

/* api.c */
void dc_result_release(struct dc_result *r);
void dc_api(struct discord *d, const char *method, const char *path,
	    const json_t *body, bool auth, struct dc_result *res);
void dc_describe(const char *what, const struct dc_result *res, char *buf, size_t n);
bool dc_ok_status(const struct dc_result *res);
bool dc_platform_failure(const struct dc_result *res);
/* What the shared delivery policy (adapters/deliver.h) is told of Discord. */
extern const struct deliver_platform dc_deliver_platform;
void dc_settle(const char *what, const struct dc_result *res, struct delivery *d);

/* deliver.c */
int64_t dc_held(void *self, const struct store_out *row);
void dc_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *dl);

/* adapter.c */
void dc_free(struct discord *d);
int dc_new(const struct config *cfg, bool need_key, FILE *err, struct discord **out);

#endif
