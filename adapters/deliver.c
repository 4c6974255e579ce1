/*
 * deliver.c - see deliver.h. The policy of a delivery that does not
 * depend on the platform: which message a view edits, whether a board is
 * superseded, the verdict on a failure the platform has classed, and the
 * whole delivery of a row over a platform's calls (deliver_view()).
 */
#include "deliver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/base/log.h"
#include "bot/bot.h"
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

/*
 * Whose private chat is closed, kept in the store (meta, "PLATFORM.closed.USER")
 * so that it outlives a restart: per user, the tables ("12,15") whose
 * group has been told once how to open it - each told copy costs the
 * group's budget of messages, so a person hears it once per table, not at
 * every deal and every /hand. "" (or none) when the chat is open, as far
 * as is known: a message of theirs in it clears the list.
 */

static void closed_key(const char *platform, const char *user, char *key, size_t n)
{
	snprintf(key, n, "%.16s.closed.%.47s", platform, user);
}

void deliver_closed_get(struct store *s, const char *platform, const char *user, char *buf, size_t n)
{
	char key[96];

	closed_key(platform, user, key, sizeof(key));
	if (store_meta_get(s, key, buf, n))
		buf[0] = '\0';
}

/* Is table in the list? */
static bool closed_has(const char *list, int64_t table)
{
	for (const char *p = list; *p;) {
		char *end;

		if (strtoll(p, &end, 10) == table && end != p)
			return true;
		p = *end == ',' ? end + 1 : end + strlen(end);
	}
	return false;
}

bool deliver_closed_due(struct store *s, const char *platform, const struct store_out *row, const char *user,
			int64_t table, char *list, size_t n)
{
	char group[STORE_ID_LEN];

	list[0] = '\0';
	if (!user || !user[0] || strcmp(place_chat(row->chat, group, sizeof(group)), user) == 0)
		return false;
	deliver_closed_get(s, platform, user, list, n);
	return !closed_has(list, table);
}

void deliver_closed_told(struct store *s, const char *platform, const struct store_out *row, const char *user,
			 const char *list, int64_t table)
{
	char key[96], value[2 * DELIVER_CLOSED_LEN];
	const char *p = list;
	int n = 0;

	for (const char *q = list; *q; q++)
		n += *q == ',';
	/* the list holds n + 1 tables: keep the newest DELIVER_CLOSED_MAX - 1 of them */
	while (*p && n + 1 >= DELIVER_CLOSED_MAX) {
		p = strchr(p, ',');
		p = p ? p + 1 : "";
		n--;
	}
	/* the seven kept (at most 7 * 21 bytes) and the new one always fit */
	snprintf(value, sizeof(value), "%.*s%s%lld", DELIVER_CLOSED_MAX * 21, p, *p ? "," : "", (long long)table);
	closed_key(platform, user, key, sizeof(key));
	if (store_meta_set(s, key, value))
		gb_log("%s: group %s told how to open a private chat, not recorded", platform, row->chat);
}

void deliver_closed_clear(struct store *s, const char *platform, const char *user)
{
	char list[DELIVER_CLOSED_LEN], key[96];

	deliver_closed_get(s, platform, user, list, sizeof(list));
	closed_key(platform, user, key, sizeof(key));
	if (list[0] && store_meta_set(s, key, ""))
		gb_log("%s: private chat of %s opened, not recorded", platform, user);
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

void deliver_posted(const struct deliver_platform *p, void *self, struct store *s,
		    const struct store_out *row, enum view_of of, const char *id, const char *old, bool repost)
{
	int rc;

	if (id[0] && deliver_view_kept(row->table, of)) {
		rc = deliver_message_set(s, p->name, row->table, row->chat, of, id, false);
		if (rc && rc != GB_ENOTFOUND)
			/* posted all the same: sending it again would show the table twice */
			gb_log("%s: table %lld: message %s posted but not recorded: %s", p->name,
			       (long long)row->table, id, gb_strerror(rc));
	}
	if (repost && old[0])
		p->strip(self, row->chat, old);
}

bool deliver_message_to_edit(const struct deliver_platform *p, void *self, struct store *s,
			     const struct store_out *row, const json_t *view, struct store_table *t,
			     struct delivery *d)
{
	enum view_of of = deliver_view_of(view);
	const char *given = json_string_value(json_object_get(view, "message"));
	int moves = 0, rc;

	if (row->table) {
		/* the table's message, or an online seat's own in its private chat */
		rc = deliver_message_get(s, p->name, row->table, row->chat, of, t);
		if (!rc)
			rc = store_move_last(s, row->table, &moves);
		if (rc && rc != GB_ENOTFOUND) {
			verdict(d, DELIVERY_RETRY, 0, gb_strerror(rc));
			return false;
		}
		if (!deliver_superseded(view, moves))
			return true;
		/*
		 * A repost so overtaken leaves the move's newer board to be
		 * posted afresh: the old message loses its buttons and is
		 * forgotten, so that board is a new message, not edited in.
		 */
		if (json_is_true(json_object_get(view, "repost")) && t->message[0]) {
			p->strip(self, row->chat, t->message);
			rc = deliver_message_set(s, p->name, row->table, row->chat, of, "", false);
			if (rc && rc != GB_ENOTFOUND)
				verdict(d, DELIVERY_RETRY, 0, gb_strerror(rc));
		}
		return false;
	}
	if (of != VIEW_QUEUE)
		return true;
	if (deliver_stale_view(view)) {
		snprintf(t->message, sizeof(t->message), "%s", given ? given : "");
		return t->message[0] != '\0';
	}
	rc = deliver_message_get(s, p->name, 0, row->chat, VIEW_QUEUE, t);
	if (rc && rc != GB_ENOTFOUND) {
		verdict(d, DELIVERY_RETRY, 0, gb_strerror(rc));
		return false;
	}
	/* the entry gone once its person was seated: the message as the view brings it */
	if (!t->message[0])
		snprintf(t->message, sizeof(t->message), "%s", given ? given : "");
	return true;
}

/*
 * A table view through p's calls: its message edited, or posted anew
 * (none yet, lost, a repost) and recorded; nothing sent when superseded.
 * False when the row is settled here (d), no call made.
 */
static bool send_table(const struct deliver_platform *p, void *self, struct store *s,
		       const struct store_out *row, const json_t *view, void *res, struct delivery *d)
{
	enum view_of of = deliver_view_of(view);
	struct store_table t = { 0 };
	const char *text = json_string_value(json_object_get(view, "text"));
	bool repost = json_is_true(json_object_get(view, "repost"));
	char id[STORE_ID_LEN] = "";
	bool sent = deliver_message_to_edit(p, self, s, row, view, &t, d);

	if (!sent)
		goto out;
	if (t.message[0] && !repost) {
		p->edit(self, row->chat, t.message, view, res);
		if (!p->lost(res))
			goto out;
		/* deleted, or too old to edit: the table is posted afresh */
		p->release(res);
		memset(res, 0, p->res_size);
	}
	p->post(self, row->chat, view, text ? text : "", res, id, sizeof(id));
	if (id[0] && deliver_view_kept(row->table, of))
		deliver_posted(p, self, s, row, of, id, t.message, repost);
out:
	store_table_release(&t);
	return sent;
}

void deliver_view(const struct deliver_platform *p, void *self, const struct adapter_env *env,
		  struct store *s, const struct store_out *row, struct delivery *d)
{
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *text = json_string_value(json_object_get(view, "text"));
	void *res = calloc(1, p->res_size);
	int64_t table = json_integer_value(json_object_get(view, "table"));
	bool secret = json_is_true(json_object_get(view, "secret"));
	struct deliver_failure f = { 0 };
	char why[sizeof(d->why)] = "", list[DELIVER_CLOSED_LEN] = "";
	bool told = false;

	memset(d, 0, sizeof(*d));
	d->result = DELIVERY_OK;
	if (!json_is_object(view) || !kind) {
		verdict(d, DELIVERY_GIVE_UP, 0, "unreadable reply view");
		goto out;
	}
	if (!res) {
		verdict(d, DELIVERY_RETRY, 0, gb_strerror(GB_ENOMEM));
		goto out;
	}
	if (strcmp(kind, "ack") == 0)
		goto out; /* nothing to say */
	/*
	 * What is the user's alone never goes to the whole chat: a private
	 * view or a secret alert (a refused card) without its user goes
	 * nowhere, and a secret alert goes to the user's private chat.
	 */
	if ((strcmp(kind, "private") == 0 || secret) && !user)
		goto out;
	if (strcmp(kind, "alert") == 0 && secret) {
		p->post(self, user, view, text ? text : "", res, NULL, 0);
		if (p->closed(res))
			goto out; /* their private chat closed: the chat's cover line is all that is said */
	} else if (strcmp(kind, "table") == 0) {
		if (!send_table(p, self, s, row, view, res, d))
			goto out;
	} else if (strcmp(kind, "private") == 0 && user) {
		p->post(self, user, view, text ? text : "", res, NULL, 0);
		if (p->closed(res)) {
			p->release(res);
			memset(res, 0, p->res_size);
			if (!table)
				table = row->table;
			/* the group told how to open it, once per person and table (deliver_closed_due()) */
			if (!p->tell_closed || !deliver_closed_due(s, p->name, row, user, table, list, sizeof(list)))
				goto out;
			p->tell_closed(self, row->chat, user, view, res);
			told = true;
		}
	} else {
		p->post(self, row->chat, view, text ? text : "", res, NULL, 0);
	}
	p->classify(res, &f);
	if (f.kind != DELIVER_SENT)
		p->describe(kind, res, why, sizeof(why));
	/* told, or never to be told there: not again at this table (a try that did not go is tried again) */
	if (told && (f.kind == DELIVER_SENT || f.kind == DELIVER_ROW_FAILED || f.kind == DELIVER_CHAT_GONE))
		deliver_closed_told(s, p->name, row, user, list, table);
	deliver_judge(p, env, row, &f, why, d);
out:
	if (res)
		p->release(res);
	free(res);
	json_decref(view);
}
