/*
 * limit.h - per-user and per-chat command rate limits.
 *
 * A fixed window of one minute per key (platform+chat, platform+chat+user).
 * The first command over a limit in a window gets one polite answer; the
 * rest of that window gets silence, so a flood costs the service almost
 * nothing: the check runs before any store transaction. Process-wide,
 * safe from any thread; the table holds limit_size() keys and reuses the
 * slots of windows that have passed (a key it cannot place is refused,
 * silently: a table filled by a flood of keys lets nobody through unlimited).
 *
 * Lookups (Telegram's inline queries, Discord's autocomplete) are counted
 * per user in a budget of their own (chat LIMIT_LOOKUPS), twice the
 * commands' one: they come as the user types.
 */
#ifndef GB_LIMIT_H
#define GB_LIMIT_H

#include <stddef.h>
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

/* Before a chat's key: the budget of a table being set up there (bot/core/router.c). */
#define LIMIT_SETUP "(setup)"

/* Forget every window (tests). */
void limit_reset(void);

/*
 * The table's size in windows (32 bytes each), forgetting every window
 * when it changes; LIMIT_SLOTS_DEFAULT until called. Two to three keys a chat in play
 * (the chat, each person in it) live at once: at 20,000 chats about
 * 60,000, so the default keeps the table under half full.
 */
#define LIMIT_SLOTS_DEFAULT 131072
void limit_size(size_t slots);

/* What the table has done since it was sized or reset, and the windows live at now_ms. */
struct limit_stats {
	uint64_t found;                /* a key found its window */
	uint64_t opened;               /* a key took a free slot */
	uint64_t no_slot;              /* a key found none, and was refused */
	size_t live, slots;
};
void limit_stats(int64_t now_ms, struct limit_stats *out);

#endif
