/*
 * limit.h - per-user and per-chat command rate limits.
 *
 * A fixed window of one minute per key (platform+chat, platform+chat+user).
 * The first command over a limit in a window gets one polite answer; the
 * rest of that window gets silence, so a flood costs the service almost
 * nothing: the check runs before any store transaction. Process-wide,
 * safe from any thread; the table holds a few thousand keys and reuses the
 * slots of windows that have passed (a key it cannot place is refused,
 * silently: a table filled by a flood of keys lets nobody through unlimited).
 *
 * Lookups (Telegram's inline queries, Discord's autocomplete) are counted
 * per user in a budget of their own (chat LIMIT_LOOKUPS), twice the
 * commands' one: they come as the user types.
 */
#ifndef GB_LIMIT_H
#define GB_LIMIT_H

#include <stdint.h>

enum limit_verdict {
	LIMIT_OK = 0,       /* within both limits */
	LIMIT_WARN,         /* just went over: answer once */
	LIMIT_SILENT,       /* over, already answered in this window: drop quietly */
};

/*
 * Count one command of user in chat at now_ms against user_per_min and
 * chat_per_min (0 = no limit). *scope gets "user" or "chat" when over.
 */
enum limit_verdict limit_check(const char *platform, const char *chat, const char *user,
			       int64_t now_ms, int user_per_min, int chat_per_min, const char **scope);

/* The chat key of a user's lookups. */
#define LIMIT_LOOKUPS "(lookups)"

/* Forget every window (tests). */
void limit_reset(void);

#endif
