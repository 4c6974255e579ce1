/*
 * deliver.c - see deliver.h. The policy of a delivery that does not
 * depend on the platform: which message a view edits, whether a board is
 * superseded, and the verdict on a failure the platform has classed.
 */
#include "deliver.h"

#include <stdio.h>
#include <string.h>

#include "games/utf8.h"

enum view_of deliver_view_of(const json_t *view)
{
	if (json_is_true(json_object_get(view, "queue")))
		return VIEW_QUEUE;
	return json_is_true(json_object_get(view, "seat")) ? VIEW_SEAT : VIEW_TABLE;
}

bool deliver_view_kept(int64_t table, enum view_of of)
{
	return table || of == VIEW_QUEUE;
}

bool deliver_stale_view(const json_t *view)
{
	return json_is_true(json_object_get(view, "queue")) && json_is_true(json_object_get(view, "stale"));
}

int deliver_message_get(struct store *s, const char *platform, int64_t table, const char *chat,
			enum view_of of, struct store_table *t)
{
	int found = 0, rc;

	if (of == VIEW_QUEUE) {
		memset(t, 0, sizeof(*t));
		rc = store_queue_message(s, platform, chat, t->message, sizeof(t->message), &found);
		return rc ? rc : found ? GB_OK : GB_ENOTFOUND;
	}
	rc = store_table_get(s, table, t);
	if (!rc && of == VIEW_SEAT)
		rc = store_view_message(s, table, platform, chat, t->message, sizeof(t->message), &found);
	return rc;
}

int deliver_message_set(struct store *s, const char *platform, int64_t table, const char *chat,
			enum view_of of, const char *id, bool in_tx)
{
	if (of == VIEW_QUEUE)
		return adapter_queue_message(s, platform, chat, id, in_tx);
	if (of == VIEW_SEAT)
		return store_view_set_message(s, table, platform, chat, id, NULL);
	return store_table_set_message(s, table, id);
}

bool deliver_superseded(const json_t *view, int moves)
{
	return json_integer_value(json_object_get(view, "turn")) < moves;
}

static void verdict(struct delivery *d, enum delivery_result r, int64_t retry_ms, const char *why)
{
	d->result = r;
	d->retry_ms = retry_ms;
	utf8_copy(d->why, sizeof(d->why), why ? why : "", why ? strlen(why) : 0);
}

void deliver_judge(const struct deliver_platform *p, const struct adapter_env *env,
		   const struct store_out *row, const struct deliver_failure *f, const char *why,
		   struct delivery *d)
{
	char doubt[sizeof(d->why)];

	switch (f->kind) {
	case DELIVER_SENT:
		d->result = DELIVERY_OK;
		break;
	case DELIVER_PLATFORM_DOWN:
		/* the platform's state, not the row's: the outbox asks probe() before it counts a try */
		verdict(d, DELIVERY_RETRY, 0, why);
		d->platform_down = true;
		d->unauthorized = f->unauthorized;
		break;
	case DELIVER_RATE_LIMITED:
		verdict(d, DELIVERY_WAIT, f->retry_ms, why);
		if (f->global)
			d->global = true;
		break;
	case DELIVER_IN_DOUBT:
		/*
		 * It may be in the chat already, and a repeat would show it
		 * twice: set aside (at most once), unless the probe finds the
		 * platform down as a whole (adapter.h).
		 */
		snprintf(doubt, sizeof(doubt), "in doubt, not sent again: %.120s", why ? why : "");
		verdict(d, DELIVERY_GIVE_UP, 0, doubt);
		d->platform_down = true;
		break;
	case DELIVER_CHAT_GONE:
		/* the bot is out of the chat: its tables stop, its rows go nowhere */
		verdict(d, DELIVERY_GIVE_UP, 0, why);
		adapter_chat_gone(env, p->name, row->chat, why ? why : "");
		break;
	case DELIVER_ROW_FAILED:
		verdict(d, DELIVERY_GIVE_UP, 0, why);
		break;
	}
}

void deliver_settle(const struct deliver_platform *p, const struct adapter_env *env,
		    const struct store_out *row, const void *res, const char *why, struct delivery *d)
{
	struct deliver_failure f = { 0 };

	p->classify(res, &f);
	deliver_judge(p, env, row, &f, why, d);
}
