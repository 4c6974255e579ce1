/*
 * pace.h - Discord's rate limits, kept by the Discord adapter so that a
 * 429 is a rare event rather than the way it learns to slow down.
 *
 * Discord limits every route per bucket: the answer to each call says, in
 * its X-RateLimit-* headers, how many calls the bucket allows in its
 * window (Limit), how many are left (Remaining), when the window ends
 * (Reset-After, fractional seconds) and which bucket the route shares
 * (Bucket, a hash several routes may have in common). A bucket is per
 * major parameter: a channel (/channels/ID), or an interaction's webhook
 * (/webhooks/APP/TOKEN). On top of that, the bot's own calls share a
 * global limit of 50 a second; webhook calls (an interaction's follow-ups)
 * are not counted against it.
 *
 * What pacing does with that: before each call dc_pace_take() says how
 * long to wait (0: go now, and the call is counted); when it is over,
 * dc_pace_sent() counts a bot call from then (it reached Discord at the
 * latest then, however long the way there took on a busy machine), and
 * dc_pace_learn() reads the headers. From a fresh window a bucket sends
 * DC_PACE_BURST calls at once, then spreads what is left evenly until the
 * window ends (a channel's 5 edits in 5 s go as 2 at once, then one every
 * second or so), so a busy table's board changes steadily instead of in
 * bursts followed by silence; the newest board is what goes when the wait
 * is over (the outbox keeps only a table's newest unsent board). A 429
 * still stops only what it names: the bucket (then the adapter delays only
 * the row's channel), or with "global" every bot call.
 *
 * One struct dc_pace per running adapter, shared by its workers (its own
 * lock). Times are the caller's milliseconds (a test drives them).
 */
#ifndef GB_DC_PACE_H
#define GB_DC_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DC_PACE_BURST 2         /* calls at once from a fresh window */
#define DC_PACE_ALL_N 50        /* bot calls a second: Discord's global limit */
#define DC_PACE_ALL_MS 1050     /* the global second, with room */
#define DC_PACE_ROOM_MS 60      /* added to every reset: our clock starts after Discord's */

/* What one answer said about the limits (a response's headers and 429 body). */
struct dc_limits {
	long status;                /* HTTP status; 0 when no answer came */
	int limit;                  /* X-RateLimit-Limit; 0 when absent */
	int remaining;              /* X-RateLimit-Remaining; -1 when absent */
	int64_t reset_after_ms;     /* X-RateLimit-Reset-After; -1 when absent */
	char bucket[64];            /* X-RateLimit-Bucket; "" when absent */
	bool global;                /* a 429 of the global limit */
	int64_t retry_ms;           /* a 429's retry_after */
	int64_t retry_after_ms;     /* the Retry-After header (whole or fractional seconds); -1 when absent */
};

struct dc_pace;

/* A new, empty pacing state; NULL without memory. Free with dc_pace_free(). */
struct dc_pace *dc_pace_new(void);

/* A no-op on NULL. */
void dc_pace_free(struct dc_pace *p);

/* Fill l as "nothing known" (limit 0, remaining and reset_after -1). */
void dc_limits_init(struct dc_limits *l);

/*
 * Read one response header line ("Name: value\r\n", len bytes, not
 * NUL-terminated) into l when it is one of the X-RateLimit-* headers or
 * Retry-After.
 */
void dc_limits_header(struct dc_limits *l, const char *line, size_t len);

/*
 * May a call of method on path (below the API URL) go at now_ms? 0: yes,
 * and it is counted; else the milliseconds to wait, *global true when the
 * wait is every bot call's (as_bot: made with the bot token, so counted
 * against the global limit), false when it is the route's bucket only.
 */
int64_t dc_pace_take(struct dc_pace *p, const char *method, const char *path, bool as_bot,
		     int64_t now_ms, bool *global);

/*
 * A call counted by dc_pace_take() at taken_ms is over at done_ms (answered
 * or not): a bot call counts against the global limit from then.
 */
void dc_pace_sent(struct dc_pace *p, bool as_bot, int64_t taken_ms, int64_t done_ms);

/* What the answer to a call of method on path, made at about now_ms, said. */
void dc_pace_learn(struct dc_pace *p, const char *method, const char *path,
		   const struct dc_limits *l, int64_t now_ms);

#endif
