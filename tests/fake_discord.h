/*
 * fake_discord.h - a fake Discord HTTP API for the test suites.
 *
 * It listens on 127.0.0.1 (a free port) and answers the calls the Discord
 * adapter makes, as Discord does: channel messages posted and edited with
 * the bot token (Authorization: Bot ...; anything else is 401), follow-ups
 * and edits of an interaction's original answer through its webhook
 * (/webhooks/APP/TOKEN...), and the bulk overwrite of the command set
 * (PUT /applications/APP[/guilds/ID]/commands). It never talks to the
 * internet; suites point DISCORD_API_URL at fake_dc_url().
 *
 * What it offers a test:
 *   - every call recorded in arrival order (method, path, Authorization
 *     header, parsed JSON body, the status answered), safe to read from any
 *     thread while the server runs;
 *   - faults programmed per method and path prefix: the next `count`
 *     matching calls (after `skip` of them pass) answer 429 with a
 *     fractional retry_after (and `global`), 404 (an unknown message or
 *     webhook), 403 or 500, or are answered slowly;
 *   - outages (fake_dc_outage()): every call answered 502, or 401 as to a
 *     revoked token, or held past the client's time limit, or refused;
 *   - GET /users/@me answers the bot user (with the bot's token);
 *   - channels denied to the bot (fake_dc_deny_channel): 403 as Discord
 *     answers an app added without its bot user;
 *   - interaction tokens marked expired: their webhook calls answer 401
 *     "Invalid Webhook Token" (code 50027) as Discord does after 15
 *     minutes (an interaction answered too late is 404 Unknown
 *     interaction, 10062);
 *   - posted messages get increasing ids from 900000000000000001; the
 *     original answer of an interaction has a stable id per token;
 *   - strict mode (off unless asked for, fake_dc_strict()): Discord's
 *     limits enforced as Discord states them. Each bucketed route answers
 *     X-RateLimit-Limit, -Remaining, -Reset, -Reset-After (fractional
 *     seconds) and -Bucket: a channel's message posts and its edits are 5
 *     each per 5 s window, an interaction webhook's calls 5 per 2 s; the
 *     bot's calls (not webhooks') are 50 in any second. A call past a
 *     limit is not made and answers 429 {"message": "You are being rate
 *     limited.", "retry_after": F, "global": bool} with Retry-After and
 *     X-RateLimit-Scope (and X-RateLimit-Global) as Discord does. An
 *     interaction's initial response through POST
 *     /interactions/ID/TOKEN/callback more than 3 s after the interaction
 *     was made (its snowflake's time) answers 404 "Unknown interaction"
 *     (10062); in time it is 204.
 *
 * Usage:
 *     struct fake_dc *f;
 *     assert_int_equal(fake_dc_start(&f, "bot-token"), 0);
 *     ... cfg.discord_api = fake_dc_url(f) ...
 *     fake_dc_wait(f, "PATCH", "/channels/", 1, 2000);
 *     json_t *body = fake_dc_nth(f, "POST", "/webhooks/", 0, path, sizeof(path));
 *     fake_dc_free(f);
 */
#ifndef GB_FAKE_DISCORD_H
#define GB_FAKE_DISCORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum fake_dc_fault {
	FAKE_DC_429 = 1,        /* 429, retry_after = arg milliseconds (sent as fractional seconds), global false */
	FAKE_DC_429_GLOBAL,     /* 429, retry_after = arg ms, global true */
	FAKE_DC_404,            /* 404 "Unknown Message" (code 10008) */
	FAKE_DC_403,            /* 403 "Missing Access" (code 50001) */
	FAKE_DC_500,            /* 500 */
	FAKE_DC_SLOW,           /* wait arg milliseconds, then answer as it would have */
	/*
	 * 429 whose body is not JSON ("error code: 1015", text/plain, as
	 * Cloudflare in front of Discord answers) with Retry-After: arg seconds
	 */
	FAKE_DC_429_TEXT,
	FAKE_DC_UNKNOWN_CHANNEL, /* 404 "Unknown Channel" (code 10003): the channel was deleted */
};

/*
 * Discord failing as a whole (fake_dc_outage()): every call, GET
 * /users/@me included, is recorded and answered so until the outage ends.
 */
enum fake_dc_outage {
	FAKE_DC_ANSWERING = 0,  /* no outage */
	FAKE_DC_OUT_502,        /* 502 {"message": "502: Bad Gateway", "code": 0} */
	FAKE_DC_OUT_401,        /* 401 {"message": "401: Unauthorized", "code": 0} for every call as the bot (a revoked token) */
	FAKE_DC_OUT_TIMEOUT,    /* held until the outage ends, then 502: past any client's time limit */
	FAKE_DC_OUT_REFUSED,    /* the listener stopped: connections refused */
};

struct fake_dc;

/*
 * Start a server that accepts bot_token on 127.0.0.1 with a free port.
 * *out is owned by the caller: fake_dc_free() it. Returns 0, or -1 when it
 * cannot listen.
 */
int fake_dc_start(struct fake_dc **out, const char *bot_token);

/* Stop and free; a no-op on NULL. */
void fake_dc_free(struct fake_dc *f);

/* "http://127.0.0.1:PORT" (no trailing slash), valid until fake_dc_free(). */
const char *fake_dc_url(const struct fake_dc *f);

/*
 * Program a fault: calls of method (NULL = any) whose path starts with
 * prefix (NULL = any), after the next `skip` of them, `count` calls in all,
 * answer as kind (arg as documented above). Matched in the order added.
 */
void fake_dc_fault(struct fake_dc *f, const char *method, const char *prefix, int skip,
		   int count, enum fake_dc_fault kind, long arg);

/* Remove every programmed fault. */
void fake_dc_faults_clear(struct fake_dc *f);

/*
 * Switch into an outage of kind (or out of one: FAKE_DC_ANSWERING); out
 * of FAKE_DC_OUT_REFUSED it listens again on the same port. 0, or -1 when
 * it cannot listen.
 */
int fake_dc_outage(struct fake_dc *f, enum fake_dc_outage kind);

/*
 * From now on every call as the bot into channel (/channels/CHANNEL...)
 * answers 403 as Discord does where the app was added with only the
 * applications.commands scope: code 50001 "Missing Access", or 50013
 * "Missing Permissions" when code is 50013. Webhook calls (interaction
 * answers, follow-ups and their edits) there go on working.
 */
void fake_dc_deny_channel(struct fake_dc *f, const char *channel, int code);

/* From now on every webhook call with this interaction token answers 401 Invalid Webhook Token. */
void fake_dc_expire_token(struct fake_dc *f, const char *token);

/* The message id of the original answer of the interaction with token (given it on first use). */
long long fake_dc_original_id(struct fake_dc *f, const char *token);

/*
 * Wait, at most ms, until no client connection is open: every request a
 * client that went away had sent (a killed service's last calls) has been
 * read and recorded. True when none is left.
 */
bool fake_dc_settle(struct fake_dc *f, int ms);

/* Calls recorded so far of method (NULL = any) with path starting with prefix (NULL = any). */
int fake_dc_count(struct fake_dc *f, const char *method, const char *prefix);

/*
 * The i-th recorded call (0-based, arrival order, all calls): method,
 * path and Authorization header (each "" when absent) into the buffers
 * (any may be NULL), the status answered into *status (may be NULL), and
 * the body as a new reference (caller json_decref()s; JSON null when the
 * body was not JSON). NULL when there is no such call.
 */
json_t *fake_dc_call(struct fake_dc *f, int i, char *method, size_t nm, char *path, size_t np,
		     char *auth, size_t na, int *status);

/* When the i-th recorded call arrived (monotonic milliseconds), -1 when there is none. */
long long fake_dc_call_at(struct fake_dc *f, int i);

/*
 * The i-th call (0-based) of method with path starting with prefix: its
 * path into path[np] (may be NULL) and its body as a new reference, or NULL.
 */
json_t *fake_dc_nth(struct fake_dc *f, const char *method, const char *prefix, int i, char *path,
		    size_t np);

/* The last such call, as fake_dc_nth(); NULL when none. */
json_t *fake_dc_last(struct fake_dc *f, const char *method, const char *prefix, char *path,
		     size_t np);

/*
 * Wait until at least count calls of method/prefix are recorded, or
 * timeout_ms passed. Returns the number recorded.
 */
int fake_dc_wait(struct fake_dc *f, const char *method, const char *prefix, int count,
		 int timeout_ms);

/* Strict mode on or off (see above); 0, or -1 without memory. */
int fake_dc_strict(struct fake_dc *f, bool on);

/* Strict mode's 429s so far, and initial responses it refused as too late (either may be NULL). */
void fake_dc_strict_counts(struct fake_dc *f, int *refused, int *late);

/* Forget every recorded call. */
void fake_dc_clear(struct fake_dc *f);

/* Print every recorded call to stderr (when a test fails, to see why). */
void fake_dc_dump(struct fake_dc *f);

#endif
