/*
 * deliver.c - delivery: one outbox row into one Bot API call and the
 * verdict on it (tg_deliver(), the adapter's deliver slot). The table's
 * message is edited in place while it stands, re-posted when it was lost;
 * a board that a newer one superseded is not sent; a private view that
 * cannot reach a person goes to their group as a fallback; a failure is
 * classed as the row's (set aside) or Telegram's (wait and retry).
 * The policy it shares with every platform is adapters/deliver.c's
 * (deliver_message_to_edit(), deliver_posted(), deliver_closed_due() and
 * deliver_closed_told(), deliver_judge(), over the slots strip, lost,
 * closed and classify of its struct deliver_platform); what is kept here
 * is Telegram's own: pacing, sends in doubt, supergroup moves, inline
 * mode (the fallback's words and link to the bot).
 */
#include "adapters/telegram/internal.h"

static const struct deliver_platform platform;

static void set_result(struct delivery *d, enum delivery_result r, int64_t retry_ms, const char *why)
{
	d->result = r;
	d->retry_ms = retry_ms;
	utf8_copy(d->why, sizeof(d->why), why ? why : "", why ? strlen(why) : 0);
}

/*
 * A call of a delivery whose outcome is not an answer of Telegram's: not
 * made, for want of time before the row's lease ends (handed back
 * untried, no attempt counted), or a new message (method "sendMessage
 * ...") whose request went out and whose answer never came. That message
 * may well be in the chat - Telegram posts it however late it answers -
 * and Telegram takes no key to drop a repeat nor can be asked whether it
 * has it: it is not sent again blindly but set aside, in doubt, with a log
 * line (at most once for such a message; the chat's next board, or
 * /board, shows the table again if it never came). An edit, a button
 * strip or a press's answer is repeated as any failure is: a repeat of
 * those shows nothing twice. True when d is settled here.
 */
static bool unsettled(const char *method, const struct tg_result *res, struct delivery *d)
{
	char why[200];

	if (res->not_made) {
		set_result(d, DELIVERY_WAIT, 0, "no time left in the lease: handed back untried");
		return true;
	}
	if (!res->sent || strncmp(method, "sendMessage", strlen("sendMessage")))
		return false;
	snprintf(why, sizeof(why), "in doubt, not sent again: %s sent, no answer: %s", method,
		 curl_easy_strerror((CURLcode)res->transport));
	set_result(d, DELIVERY_GIVE_UP, 0, why);
	d->platform_down = true; /* unless the platform is down as a whole (adapter.h) */
	return true;
}

/* The seat name of user at table, or the user id when it has none there. */
static void seat_name_of(struct store *s, int64_t table, const char *user, char *buf, size_t n)
{
	struct store_seat seats[GB_MAX_SEATS];
	int count = 0;

	snprintf(buf, n, "%s", user);
	if (!table || store_seats_get(s, table, seats, GB_MAX_SEATS, &count))
		return;
	for (int i = 0; i < count; i++)
		if (seats[i].level < 0 && strcmp(seats[i].user, user) == 0)
			snprintf(buf, n, "%s", seats[i].name);
}

/*
 * A private view could not reach the user (403: they never started the
 * bot): tell them in the group how to get it, in the chat's language,
 * with a link that opens the private chat ready to press Start - once
 * per person and table.
 */
static void private_fallback(struct telegram *t, struct store *s, const struct store_out *row,
			     const json_t *view, struct delivery *d)
{
	const char *user = json_string_value(json_object_get(view, "user"));
	int lang = lang_parse(json_string_value(json_object_get(view, "lang")));
	int64_t table = json_integer_value(json_object_get(view, "table"));
	char name[STORE_NAME_LEN], bot[64], why[200], list[DELIVER_CLOSED_LEN];
	struct strbuf text = { 0 }, link = { 0 };
	struct tg_result res = { 0 };
	json_t *body = NULL;
	bool inline_mode = tg_inline_on(t);
	int64_t taken = 0, wait;

	if (!table)
		table = row->table;
	/* nobody else to tell in a private chat itself; a group told already is not told again */
	if (!deliver_closed_due(s, platform.name, row, user, table, list, sizeof(list)))
		goto out;
	tg_ensure_username(t);
	tg_username_copy(t, bot, sizeof(bot));
	seat_name_of(s, table, user, name, sizeof(name));
	sb_addf(&link, "https://t.me/%s?start=hands", bot[0] ? bot : "gamebot");
	if (inline_mode)
		sb_addmsg(&text, lang < 0 ? LANG_EN : lang, M_TG_START_PRIVATE, name, sb_str(&link),
			  bot[0] ? bot : "gamebot");
	else
		sb_addmsg(&text, lang < 0 ? LANG_EN : lang, M_TG_START_PRIVATE_NO_INLINE, name,
			  sb_str(&link));
	if (t->pace) {
		/* a line of the group, in its budget: until there is room, the row waits (and tries again) */
		taken = bot_now_ms();
		wait = tg_pace_take_line(t->pace, row->chat, taken, &d->global);
		if (wait > 0) {
			set_result(d, DELIVERY_WAIT, wait, "paced");
			goto out;
		}
	}
	body = tg_send_body(row->chat, sb_str(&text), false);
	tg_api(t, "sendMessage", body, TG_SEND_TIMEOUT_S, NULL, &res);
	if (taken)
		tg_pace_sent(t->pace, row->chat, taken, bot_now_ms());
	if (unsettled("sendMessage (private fallback)", &res, d))
		goto out; /* handed back, or in doubt: d says which */
	if (res.transport || res.status >= 500 || res.status == 429 || res.status == 401) {
		tg_describe("sendMessage (private fallback)", &res, why, sizeof(why));
		if (res.status == 429) {
			set_result(d, DELIVERY_WAIT, res.retry_after * 1000, why);
		} else {
			set_result(d, DELIVERY_RETRY, 0, why);
			d->platform_down = true;
			d->unauthorized = res.status == 401;
		}
		goto out;
	}
	if (!res.ok) {
		tg_describe("sendMessage (private fallback)", &res, why, sizeof(why));
		set_result(d, DELIVERY_GIVE_UP, 0, why);
	}
	/* told (or never to be told here): not again at this table */
	deliver_closed_told(s, platform.name, row, user, list, table);
out:
	tg_result_release(&res);
	json_decref(body);
	sb_release(&text);
	sb_release(&link);
}

/*
 * The table moved to a new message (a repost): the old one loses its
 * buttons, so only the newest table message can be pressed. Done once,
 * not retried: a message deleted or too old to edit has nothing to press.
 */
static void strip_buttons(void *self, const char *chat, const char *message)
{
	struct telegram *t = self;
	struct tg_result res;
	json_t *body;
	char why[200];

	if (!message[0])
		return;
	body = json_object();
	json_object_set_new(body, "chat_id", tg_chat_id(chat));
	json_object_set_new(body, "message_id", tg_chat_id(message));
	json_object_set_new(body, "reply_markup", json_pack("{s[]}", "inline_keyboard"));
	tg_api(t, "editMessageReplyMarkup", body, TG_CALL_TIMEOUT_S, NULL, &res);
	if (!res.ok && !(res.status == 400 && !res.migrate_to[0])) {
		tg_describe("editMessageReplyMarkup", &res, why, sizeof(why));
		tg_log("old table message %s in chat %s keeps its buttons: %s", message, chat, why);
	}
	tg_result_release(&res);
	json_decref(body);
}

static bool says(const struct tg_result *res, const char *what)
{
	return strstr(res->description, what) != NULL;
}

/* Does res (to editMessageText) say the message is gone: deleted, or too old to edit? */
static bool lost(const void *r)
{
	const struct tg_result *res = r;

	return !res->ok && res->status == 400 &&
	       (says(res, "message to edit not found") || says(res, "message can't be edited"));
}

/*
 * A failure of the Bot API as a whole rather than of the call: no answer
 * (refused, timed out, cut off), 5xx, or 401 (the token revoked: every
 * call gets it).
 */
bool tg_platform_failure(const struct tg_result *res)
{
	return res->transport || res->status >= 500 || res->status == 401;
}

/* A 403 saying the bot is no longer in the group (kicked, or it left). */
static bool removed(const struct tg_result *res)
{
	return says(res, "bot was kicked") || says(res, "bot is not a member");
}

/*
 * Does res, to a message into the row's own chat, say that chat is gone
 * for good: the group deleted, no such chat any more, or (a table in a
 * private chat) the person blocked the bot or their account is gone?
 * Said of a private view sent to a person about a group's table, the
 * same words are that person's closed chat (closed()), never the group's.
 */
static bool chat_ended(const struct tg_result *res)
{
	return (res->status == 400 && says(res, "chat not found")) ||
	       (res->status == 403 && (says(res, "group chat was deleted") || says(res, "bot was blocked by the user") ||
				       says(res, "user is deactivated")));
}

/* Was call a message into the row's own chat (its group, or a topic of it)? */
static bool to_own_chat(const struct store_out *row, const struct tg_call *call)
{
	size_t len = strlen(call->chat);

	return len && strncmp(row->chat, call->chat, len) == 0 && (!row->chat[len] || row->chat[len] == PLACE_SEP);
}

/* Does res (to a private view) say the person's private chat is closed: never started, or the bot blocked? */
static bool closed(const void *r)
{
	const struct tg_result *res = r;

	return !res->ok && res->status == 403;
}

/* Telegram's answer res (a struct tg_result) as the shared delivery policy classes it. */
static void classify(const void *r, struct deliver_failure *f)
{
	const struct tg_result *res = r;

	memset(f, 0, sizeof(*f));
	if (res->ok) {
		f->kind = DELIVER_SENT;
	} else if (tg_platform_failure(res)) {
		f->kind = DELIVER_PLATFORM_DOWN;
		f->unauthorized = res->status == 401;
	} else if (res->status == 429) {
		f->kind = DELIVER_RATE_LIMITED;
		f->retry_ms = (res->retry_after > 0 ? res->retry_after : 1) * 1000;
	} else if (res->status == 403 && removed(res)) {
		f->kind = DELIVER_CHAT_GONE;
	} else {
		f->kind = DELIVER_ROW_FAILED;
	}
}

static const struct deliver_platform platform = {
	.name = "telegram",
	.classify = classify,
	.strip = strip_buttons,
	.lost = lost,
	.closed = closed,
};

#define TG_PACE_SLEEP_MS 250   /* an overall wait this short is waited out with the row in hand */
#define TG_PACE_TRIES 8

/*
 * Must call wait for the pacing (d says how long)? Else false, and
 * *taken is when it was counted (0: not paced). A board spends its
 * group's steps; another message (line) goes aside them where there is
 * room. A short wait for the overall rate is waited out here: the row
 * keeps its turn in the steady stream instead of going back to the queue.
 */
static bool paced(struct telegram *t, const struct store_out *row, const struct tg_call *call, bool line,
		  struct delivery *d, int64_t *taken)
{
	/* a message to the row's own group keeps its topic: the group's steps go round its tables */
	const char *key = to_own_chat(row, call) ? row->chat : call->chat;
	int64_t wait = 0;

	*taken = 0;
	for (int i = 0; t->pace && call->chat[0] && i < TG_PACE_TRIES; i++) {
		struct timespec ts = { 0, 0 };

		*taken = bot_now_ms();
		wait = line ? tg_pace_take_line(t->pace, key, *taken, &d->global)
			    : tg_pace_take(t->pace, key, *taken, &d->global);
		if (wait <= 0 || !d->global || wait > TG_PACE_SLEEP_MS)
			break;
		ts.tv_nsec = (long)wait * 1000000L;
		nanosleep(&ts, NULL);
	}
	if (wait > 0) {
		*taken = 0;
		set_result(d, DELIVERY_WAIT, wait, "paced");
	}
	return wait > 0;
}

static void settle(struct telegram *t, struct store *s, const struct store_out *row, json_t *view,
		   const char *message, const struct tg_call *call, const struct tg_result *res,
		   struct delivery *d);

/* The time limit of a delivery's call of method: a new message waits longer (TG_SEND_TIMEOUT_S). */
static long send_limit(const char *method)
{
	return strcmp(method, "sendMessage") == 0 ? TG_SEND_TIMEOUT_S : TG_CALL_TIMEOUT_S;
}

void tg_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	struct telegram *t = self;
	struct store_table table = { 0 };
	struct tg_call call = { 0 };
	struct tg_result res = { 0 };
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	const char *kind = json_string_value(json_object_get(view, "kind"));
	bool is_table = kind && strcmp(kind, "table") == 0;
	bool repost = is_table && json_is_true(json_object_get(view, "repost"));
	int64_t taken = 0;
	char why[200];
	int rc;

	memset(d, 0, sizeof(*d));
	d->result = DELIVERY_OK;
	if (!json_is_object(view) || !kind) {
		set_result(d, DELIVERY_GIVE_UP, 0, "unreadable reply view");
		goto out;
	}
	if (is_table && !deliver_message_to_edit(&platform, t, s, row, view, &table, d))
		goto out;
	rc = tg_render_mode(view, row->chat, repost ? "" : table.message, tg_inline_on(t), &call);
	if (rc) {
		snprintf(why, sizeof(why), "cannot render a reply of kind '%s'", kind);
		set_result(d, DELIVERY_GIVE_UP, 0, why);
		goto out;
	}
	if (!call.method[0])
		goto out;
	if (paced(t, row, &call, !is_table, d, &taken))
		goto out;
	tg_api(t, call.method, call.body, send_limit(call.method), NULL, &res);
	if (taken)
		tg_pace_sent(t->pace, call.chat, taken, bot_now_ms());
	if (unsettled(call.method, &res, d))
		goto out;
	if (!res.ok && res.status == 400 && deliver_stale_view(view))
		goto out; /* deleted, or too old to edit: nothing left to press on it */
	if (strcmp(call.method, "editMessageText") == 0 && platform.lost(&res)) {
		/* deleted, or too old to edit: post the table afresh and keep the new id */
		tg_call_release(&call);
		tg_result_release(&res);
		rc = tg_render_mode(view, row->chat, "", tg_inline_on(t), &call);
		if (rc) {
			set_result(d, DELIVERY_GIVE_UP, 0, "cannot render the table message");
			goto out;
		}
		tg_api(t, call.method, call.body, send_limit(call.method), NULL, &res);
		if (unsettled(call.method, &res, d))
			goto out;
	}
	settle(t, s, row, view, table.message, &call, &res, d);
out:
	tg_result_release(&res);
	tg_call_release(&call);
	store_table_release(&table);
	json_decref(view);
}

/* What Telegram's answer res to call makes of the row: done, again later, or given up (d). */
static void settle(struct telegram *t, struct store *s, const struct store_out *row, json_t *view,
		   const char *message, const struct tg_call *call, const struct tg_result *res,
		   struct delivery *d)
{
	const char *kind = json_string_value(json_object_get(view, "kind"));
	bool is_table = strcmp(kind, "table") == 0;
	bool repost = is_table && json_is_true(json_object_get(view, "repost"));
	struct deliver_failure f;
	char why[200], id[32];
	int rc;

	tg_describe(call->method, res, why, sizeof(why));
	classify(res, &f);
	if (f.kind == DELIVER_ROW_FAILED && to_own_chat(row, call) && chat_ended(res))
		f.kind = DELIVER_CHAT_GONE; /* as a removal: its tables stop, their stakes go back */
	if (f.kind == DELIVER_SENT) {
		/* a table posted (sendMessage): its id recorded, and on a repost the old one stripped */
		if (!is_table || strcmp(call->method, "sendMessage") ||
		    !tg_id_text(json_object_get(res->result, "message_id"), id, sizeof(id)))
			id[0] = '\0';
		deliver_posted(&platform, t, s, row, deliver_view_of(view), id, message, repost);
	} else if (f.kind != DELIVER_ROW_FAILED) {
		/* the platform down, a rate limit, or the bot out of the group (deliver.h) */
		deliver_judge(&platform, &t->env, row, &f, why, d);
	} else if (res->status == 400 && says(res, "message is not modified")) {
		/* the same board again (a repeat after a lost lease): already shown */
	} else if (res->migrate_to[0]) {
		/* the group became a supergroup: move the chat, and this row goes there next */
		rc = store_chat_move(s, "telegram", row->chat, res->migrate_to);
		if (rc && rc != GB_ENOTFOUND)
			set_result(d, DELIVERY_GIVE_UP, 0, why);
		else
			set_result(d, DELIVERY_WAIT, 0, "chat moved to a supergroup");
	} else if (strcmp(kind, "private") == 0 && platform.closed(res)) {
		private_fallback(t, s, row, view, d);
	} else if ((res->status == 403 || res->status == 400) && strcmp(kind, "alert") == 0 &&
		   json_is_true(json_object_get(view, "secret"))) {
		/* their private chat is closed: the group's cover line is all that is said */
	} else if (strcmp(call->method, "answerCallbackQuery") == 0 && res->status == 400) {
		/* too old, or answered already: the press is over, nothing left to tell */
	} else {
		deliver_judge(&platform, &t->env, row, &f, why, d);
	}
}
