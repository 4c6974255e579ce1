/*
 * deliver.h - the delivery policy every platform shares, written once
 * above the platforms' folders (adapters/NAME/deliver.c) the way the
 * outbox's pause and probe are (outbox.h).
 *
 * A platform's deliver() (adapter.h) sends one reply view its own way;
 * what to make of it is decided here, from what the platform says of its
 * answers:
 *
 *   - which message a view edits in place: a table's, an online seat's
 *     in that person's private chat, or a person's queue message
 *     (deliver_message_get(), deliver_message_set());
 *   - whether a board was superseded by a later move's (it is then not
 *     sent) (deliver_superseded());
 *   - what a failure is: the platform's as a whole (the outbox probes and
 *     pauses), a rate limit (wait), a message in doubt (set aside), the
 *     chat gone for the bot (its tables stop), or the row's own (given
 *     up). The platform classes its answer into a struct deliver_failure
 *     through its slot of struct deliver_platform; deliver_judge() turns
 *     that into the outbox's verdict (struct delivery), deliver_settle()
 *     both at once.
 *
 * deliver_view() is the whole delivery of a row, written once over the
 * platform's calls (post, edit, strip buttons, tell a closed private
 * chat) for a platform that needs nothing else; it is made of
 * deliver_message_to_edit() (the message to edit, a superseded board
 * dropped), deliver_posted() (a posted table recorded, the old message
 * stripped) and deliver_judge(), which a platform with its own deliver()
 * calls too.
 */
#ifndef GB_ADAPTERS_DELIVER_H
#define GB_ADAPTERS_DELIVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "store/store.h"

/* Whose message a view edits in place. */
enum view_of {
	VIEW_TABLE,     /* the table's own message in its chat */
	VIEW_SEAT,      /* a view marked "seat": an online seat's own message in that person's private chat */
	VIEW_QUEUE,     /* a view marked "queue": a person's queue message, edited as the queue changes (no table) */
};

/* Which message view edits in place. */
enum view_of deliver_view_of(const json_t *view);

/* Has a view of table a message of its own to record (a table's, or a queue message)? */
bool deliver_view_kept(int64_t table, enum view_of of);

/*
 * A view marked "queue" and "stale": a press on a queue message whose
 * entry is gone edits that message (the view brings its id) to say so;
 * it is never posted afresh nor recorded.
 */
bool deliver_stale_view(const json_t *view);

/*
 * The message of a view of table in chat of platform into t->message
 * ("" none): for VIEW_TABLE the table's own (t is the whole table row),
 * for VIEW_SEAT the seat's own message there, for VIEW_QUEUE the person's
 * queue message there (t holds only the message). Returns GB_OK,
 * GB_ENOTFOUND (no such table; a queue message never recorded), or the
 * store's error. Release t with store_table_release().
 */
int deliver_message_get(struct store *s, const char *platform, int64_t table, const char *chat,
			enum view_of of, struct store_table *t);

/* Record id as the message of the view (in_tx: in the caller's transaction). */
int deliver_message_set(struct store *s, const char *platform, int64_t table, const char *chat,
			enum view_of of, const char *id, bool in_tx);

/*
 * Was the table view drawn before the table's last move (moves so far)?
 * Every move queues a new board: one drawn before the last move (a row
 * re-claimed after a crash, or one claimed just before the next move) is
 * superseded, and is not sent.
 */
bool deliver_superseded(const json_t *view, int moves);

/*
 * A person whose private chat is closed to the bot hears how to open it
 * in the group once per table, not at every deal and every /hand (each
 * told copy costs the group's budget of messages); kept in the store's
 * meta ("PLATFORM.closed.USER": the newest DELIVER_CLOSED_MAX tables told,
 * "12,15") so it outlives a restart. A list buffer is DELIVER_CLOSED_LEN.
 */
#define DELIVER_CLOSED_MAX 8
#define DELIVER_CLOSED_LEN (DELIVER_CLOSED_MAX * 21 + 24)

/* The tables user's group was told about into buf ("" none, or not known). */
void deliver_closed_get(struct store *s, const char *platform, const char *user, char *buf, size_t n);

/*
 * Is row's group to be told how user opens their private chat, about
 * table (their private view having found it closed)? Not in that private
 * chat itself, nor where told already at table. The list as it stands
 * goes into list (n bytes, DELIVER_CLOSED_LEN) for deliver_closed_told().
 */
bool deliver_closed_due(struct store *s, const char *platform, const struct store_out *row, const char *user,
			int64_t table, char *list, size_t n);

/* The group was told (or never is to be told here) at table: not again (the oldest dropped); a failure logged. */
void deliver_closed_told(struct store *s, const char *platform, const struct store_out *row, const char *user,
			 const char *list, int64_t table);

/* A message of user in their private chat: it is open, the list cleared. */
void deliver_closed_clear(struct store *s, const char *platform, const char *user);

/* What a platform's answer to one call of a delivery was, as the platform classes it. */
enum deliver_failure_kind {
	DELIVER_SENT = 0,       /* no failure: it went */
	DELIVER_PLATFORM_DOWN,  /* the platform as a whole: no answer, 5xx, or 401 (its credentials refused) */
	DELIVER_RATE_LIMITED,   /* 429: wait retry_ms (global: for every chat of the platform) */
	DELIVER_IN_DOUBT,       /* a post went out and its answer never came: it may be shown already */
	DELIVER_CHAT_GONE,      /* the bot is no longer in the chat, or the chat is gone */
	DELIVER_ROW_FAILED,     /* the row's own: anything else the platform refused */
};

struct deliver_failure {
	enum deliver_failure_kind kind;
	int64_t retry_ms;       /* DELIVER_RATE_LIMITED: how long */
	bool global;            /* DELIVER_RATE_LIMITED: the platform's limit, not the chat's */
	bool unauthorized;      /* DELIVER_PLATFORM_DOWN: 401, the service's credentials refused */
};

/*
 * What a platform supplies to the shared policy, one table per platform.
 * name and classify are every platform's; the calls below them are for
 * deliver_view(), the whole delivery of a row written once, for a
 * platform whose messages are posted, edited and stripped of their
 * buttons by id. A platform that keeps its own deliver() for what it
 * alone has (Telegram's pacing, sends in doubt, supergroup moves and
 * inline mode; Discord's interactions, webhooks and nonce) builds it from
 * the pieces deliver_view() is made of and sets the slots they use:
 * strip for deliver_message_to_edit() and deliver_posted(), and lost and
 * closed where it asks them (Telegram sets all three; Discord, which
 * calls deliver_posted() with no repost, none). res is always the
 * platform's own result type, res_size bytes, zeroed before each call.
 */
struct deliver_platform {
	/* Platform name: the `platform` of its chats and rows (adapter.h's name). */
	const char *name;

	/* Class the answer res of one call into f. Pure: no call, no log line. */
	void (*classify)(const void *res, struct deliver_failure *f);

	/* The size of the platform's result type, for deliver_view(). */
	size_t res_size;

	/*
	 * Post text (with the view's buttons; view may be NULL for a line of
	 * the policy's own) as a new message in chat; its answer into res,
	 * and the new message's id into id (cap bytes; "" when none came;
	 * id is NULL when it is not wanted).
	 */
	void (*post)(void *self, const char *chat, const json_t *view, const char *text, void *res,
		     char *id, size_t cap);

	/* Edit message in chat to show the view's text and buttons; the answer into res. */
	void (*edit)(void *self, const char *chat, const char *message, const json_t *view, void *res);

	/*
	 * Take the buttons off message in chat: the table moved to a new
	 * message. Done once, not retried, its failure only logged (a
	 * message gone has nothing to press).
	 */
	void (*strip)(void *self, const char *chat, const char *message);

	/* Does res say the message is gone (deleted, too old to edit)? The table is then posted anew. */
	bool (*lost)(const void *res);

	/* Does res say the person's private chat is closed to the bot (never opened, blocked)? */
	bool (*closed)(const void *res);

	/*
	 * Tell chat, in the view's language, how user opens their private
	 * chat with the bot, their private view having found it closed; the
	 * answer into res. NULL: such a view is dropped.
	 */
	void (*tell_closed)(void *self, const char *chat, const char *user, const json_t *view, void *res);

	/* A short account of a failed call (what: the kind of row) for logs and set-aside rows; no secrets. */
	void (*describe)(const char *what, const void *res, char *buf, size_t n);

	/* Release what res holds (not res itself); a no-op on a zeroed res. */
	void (*release)(void *res);
};

/*
 * The message a table view of row edits, into t->message ("" posts a new
 * one; release t with store_table_release()): with a table, its own or
 * the online seat's (deliver_message_get()); a queue message as recorded
 * with the queue entry, or as the view brings it ("message") once the
 * entry is gone, and a stale one's always as the view brings it. False
 * when the row is settled here, nothing to send: the store failed (d: try
 * again), the board was superseded by a later move's (deliver_superseded();
 * d left as it is; on a repost the old message is stripped of its buttons
 * and forgotten, so the newer board is posted afresh), or a stale queue
 * view has no message to edit.
 */
bool deliver_message_to_edit(const struct deliver_platform *p, void *self, struct store *s,
			     const struct store_out *row, const json_t *view, struct store_table *t,
			     struct delivery *d);

/*
 * A table view of row (a view of which message, of) just posted: the new message id
 * recorded as the view's message (deliver_message_set(); nothing when id
 * is "" or the view keeps none), and on a repost the old message (""
 * none) stripped of its buttons (p->strip), so only the newest can be
 * pressed. A failure to record is only logged: the table was posted all
 * the same, and posting it again would show it twice.
 */
void deliver_posted(const struct deliver_platform *p, void *self, struct store *s,
		    const struct store_out *row, enum view_of of, const char *id, const char *old, bool repost);

/*
 * Deliver row as the policy says, through p's calls (all of them set but
 * tell_closed): a table view edits its message (deliver_message_get())
 * or, when it has none, it was lost or the view is a repost, is posted
 * anew and recorded, the old message stripped of its buttons on a repost;
 * a superseded board is not sent; a private view goes to the person's own
 * chat, or when that is closed p->tell_closed() tells the group, once per
 * person and table (deliver_closed_due(), deliver_closed_told()); an ack is
 * not sent (no press to answer); anything else is a post in the row's
 * chat. The verdict goes into d as deliver_judge() makes it; self and env
 * are the adapter's.
 */
void deliver_view(const struct deliver_platform *p, void *self, const struct adapter_env *env,
		  struct store *s, const struct store_out *row, struct delivery *d);

/*
 * The outbox's verdict on a delivery from failure f (why: the platform's
 * short account of it, no secrets) into d: done; again after the probe
 * (platform down: no attempt counted unless the probe answers); wait; set
 * aside in doubt (unless the probe says the platform is down); given up,
 * and for a chat gone every table of row's chat stopped
 * (adapter_chat_gone(), which needs env and row; only there may they be
 * NULL). The fields of d it does not set are left as they are.
 */
void deliver_judge(const struct deliver_platform *p, const struct adapter_env *env,
		   const struct store_out *row, const struct deliver_failure *f, const char *why,
		   struct delivery *d);

/* deliver_judge() of the platform's own class of its answer res (p->classify). */
void deliver_settle(const struct deliver_platform *p, const struct adapter_env *env,
		    const struct store_out *row, const void *res, const char *why, struct delivery *d);

#endif
