/*
 * receive.c - receiving: one update (from the webhook or the poller) into
 * a command for the bot (tg_receive()): the sender's rights asked where a
 * command needs them, inline queries answered, membership changes noted;
 * and the webhook route itself with its secret header (tg_admit(),
 * tg_webhook()).
 */
#include "adapters/telegram/internal.h"

/*
 * Commands whose outcome depends on the sender's rights in the chat: only
 * for these is getChatMember asked (and cached), so a move costs no extra
 * call to Telegram.
 */
static const char *const admin_verbs[] = { "settings", "speed", "lang", "stop", "grant" };

static bool needs_rights(const char *verb)
{
	for (size_t i = 0; i < sizeof(admin_verbs) / sizeof(admin_verbs[0]); i++)
		if (strcmp(admin_verbs[i], verb) == 0)
			return true;
	return false;
}

/*
 * Is user an administrator (or the creator) of chat? Cached ADMIN_TTL_MS;
 * a failure (treated as a member) ADMIN_FAIL_TTL_MS.
 */
static bool chat_admin(struct telegram *t, const char *chat, const char *user)
{
	struct strbuf key = { 0 };
	struct admin_entry *e;
	struct tg_result res;
	json_t *body;
	int64_t now = bot_now_ms();
	const char *status;
	bool admin = false, hit = false;

	sb_addf(&key, "%s/%s", chat, user);
	e = &t->admins[tg_hash(sb_str(&key)) % ADMIN_SLOTS];
	sb_release(&key);
	pthread_mutex_lock(&t->lock);
	if (!strcmp(e->chat, chat) && !strcmp(e->user, user) && e->until_ms > now) {
		admin = e->admin;
		hit = true;
	}
	pthread_mutex_unlock(&t->lock);
	if (hit)
		return admin;
	body = json_object();
	json_object_set_new(body, "chat_id", tg_chat_id(chat));
	json_object_set_new(body, "user_id", tg_chat_id(user));
	tg_api(t, "getChatMember", body, TG_LISTENER_TIMEOUT_S, NULL, &res);
	json_decref(body);
	status = json_string_value(json_object_get(res.result, "status"));
	if (res.ok && status) {
		admin = !strcmp(status, "creator") || !strcmp(status, "administrator");
	} else {
		char why[200];

		tg_describe("getChatMember", &res, why, sizeof(why));
		tg_log("rights of a user in chat %s unknown (%s): treated as a member", chat, why);
	}
	pthread_mutex_lock(&t->lock);
	snprintf(e->chat, sizeof(e->chat), "%s", chat);
	snprintf(e->user, sizeof(e->user), "%s", user);
	e->admin = admin;
	e->until_ms = now + (res.ok && status ? ADMIN_TTL_MS : ADMIN_FAIL_TTL_MS);
	pthread_mutex_unlock(&t->lock);
	tg_result_release(&res);
	return admin;
}

/*
 * Is this the first delivery of an update the adapter answers itself, not
 * through a command (an inline query, a press on an inline-mode message,
 * the bot's own membership)? Its id is kept as a command's is (the bot's
 * dedupe, pruned after processed_keep_days), before it is answered, so
 * the same update sent again - a webhook retried for want of an answer in
 * time, a getUpdates batch asked for again before its offset was saved -
 * is answered once, even when both arrive at once. Asked once the
 * update is within the lookups' budget: a flood past it writes nothing. A
 * store that cannot keep the id lets it through: answered twice rather
 * than never.
 */
static bool first_delivery(struct bot *b, const struct tg_update *u)
{
	int rc = store_mark_processed(b->store, "telegram", u->cmd.update_id);

	if (rc == GB_EDUP) {
		metrics_inc("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"repeated\"", 1);
		return false;
	}
	if (rc)
		tg_log("update %lld: its id not kept (%s): a repeat would be answered again",
		       u->update_id, gb_strerror(rc));
	return true;
}

/*
 * The one result shown when there is nothing to choose: why, in words for
 * the asker (an empty list would look like a bot that does not answer).
 * Its id is no command: picked all the same, it plays nothing.
 */
static json_t *nothing_result(struct bot *b, const char *user)
{
	struct bot_note note;
	struct strbuf sb = { 0 };
	json_t *r = json_object(), *content = json_object();
	int rc = bot_user_no_choice(b, "telegram", user, &note);

	if (rc)
		tg_log("inline query: why nothing to choose not read: %s", gb_strerror(rc));
	sb_addf(&sb, "%s: %s", note.title, note.text);
	json_object_set_new(r, "type", json_string("article"));
	json_object_set_new(r, "id", json_string(TG_INLINE_NOTHING));
	json_object_set_new(r, "title", json_string(note.title));
	json_object_set_new(r, "description", json_string(note.text));
	json_object_set_new(content, "message_text", json_string(sb_str(&sb)));
	json_object_set_new(r, "input_message_content", content);
	sb_release(&sb);
	return r;
}

/*
 * Inline mode: the user's choices at every table where it is their turn,
 * in the order their hand shows them; one article saying why when there
 * are none.
 */
static void answer_inline(struct telegram *t, struct bot *b, const struct tg_update *u)
{
	struct bot_choice ch[50];
	struct tg_result res;
	json_t *body = json_object(), *results = json_array();
	char why[200];
	const char *scope;
	int n = 0, rc;

	/* a lookup per keystroke, in a budget of its own; past it no answer (nothing to read, nothing to call) */
	if (limit_check("telegram", LIMIT_LOOKUPS, u->cmd.user, bot_now_ms(),
			2 * t->env.bot.rate_user_per_min, 0, &scope) != LIMIT_OK) {
		metrics_inc("gamebot_rate_limited_total", "scope=\"lookup\"", 1);
		goto out;
	}
	if (!first_delivery(b, u))
		goto out;
	rc = bot_user_choices(b, "telegram", u->cmd.user, ch, 50, &n);
	if (rc)
		tg_log("inline query: choices not read: %s", gb_strerror(rc));
	for (int i = 0; i < n; i++) {
		char id[TG_CALLBACK_MAX + 1];
		json_t *r, *content;

		if (tg_callback_encode(ch[i].table, ch[i].turn, ch[i].cmd, id, sizeof(id)))
			continue;
		r = json_object();
		content = json_object();
		json_object_set_new(r, "type", json_string("article"));
		json_object_set_new(r, "id", json_string(id));
		json_object_set_new(r, "title", json_string(ch[i].label));
		json_object_set_new(r, "description", json_string(ch[i].cmd));
		/* posted in the group as soon as it is picked, played or not: it names no card of a hand */
		json_object_set_new(content, "message_text", json_string(ch[i].posted));
		json_object_set_new(r, "input_message_content", content);
		json_array_append_new(results, r);
	}
	if (!json_array_size(results))
		json_array_append_new(results, nothing_result(b, u->cmd.user));
	json_object_set_new(body, "inline_query_id", json_string(u->query_id));
	json_object_set(body, "results", results);
	/* personal and never cached: another player, or the next trick, sees other cards */
	json_object_set_new(body, "cache_time", json_integer(0));
	json_object_set_new(body, "is_personal", json_true());
	tg_api(t, "answerInlineQuery", body, TG_LISTENER_TIMEOUT_S, NULL, &res);
	if (!res.ok) {
		tg_describe("answerInlineQuery", &res, why, sizeof(why));
		tg_log("%s", why);
	}
	tg_result_release(&res);
out:
	json_decref(results);
	json_decref(body);
}

/*
 * A button on a message sent in inline mode (inline_message_id, no chat):
 * every press of one is looked at (the router acts on the presser's own
 * seat alone), within the lookups' budget. False past it: then the press
 * is only closed, in the webhook's answer (its reply handle into close).
 */
static bool elsewhere_in_budget(struct telegram *t, const struct tg_update *u, char *close, size_t cap)
{
	const char *scope;

	if (limit_check("telegram", LIMIT_LOOKUPS, u->cmd.user, bot_now_ms(),
			2 * t->env.bot.rate_user_per_min, 0, &scope) == LIMIT_OK)
		return true;
	metrics_inc("gamebot_rate_limited_total", "scope=\"lookup\"", 1);
	snprintf(close, cap, "%s", u->reply);
	return false;
}

/*
 * The bot's own membership changed (my_chat_member). Out of a group
 * (kicked, left): its tables stop (stakes back) and nothing more is sent
 * there. Stopping is idempotent, so a repeated update (or Telegram's
 * retry after a failure here) runs it again harmlessly; the log line is
 * written once. In a private chat "kicked" is a block: its rows give up
 * as they meet it.
 */
static int member_changed(struct telegram *t, struct bot *b, const struct tg_update *u)
{
	int rc;

	if (first_delivery(b, u))
		tg_log("bot is now '%s' in chat %s", u->member_status, u->cmd.chat);
	if ((strcmp(u->member_status, "kicked") && strcmp(u->member_status, "left")) ||
	    !strcmp(u->chat_type, "private"))
		return 200;
	rc = adapter_chat_gone(&t->env, "telegram", u->cmd.chat,
			       strcmp(u->member_status, "kicked") ? "the bot left the chat"
								 : "the bot was removed from the chat");
	return rc ? 500 : 200;
}

/* The command the bot runs for an update. */
static void to_command(const struct tg_update *u, struct command *cmd)
{
	*cmd = u->cmd;
	snprintf(cmd->reply, sizeof(cmd->reply), "%s", u->reply);
	/* a 5xx (or, polling, no confirmation) makes Telegram send it again */
	cmd->redelivered = true;
	if (u->button || u->kind == TG_CHOSEN) {
		/* the router refuses a press for another table or an earlier turn */
		cmd->button_table = u->button_table;
		cmd->button_turn = u->button_turn;
	}
}

/*
 * "My cards" without inline mode ("/hand dm", tg_render_mode()): the
 * hand goes to the presser's private chat with its buttons - a private
 * view without the press's handle - unless that chat is known to be
 * closed, when it is shown in an alert to them alone, as "Show my hand"
 * is. The word is dropped either way. True when the press is answered
 * apart (answer_quietly()).
 */
static bool my_cards_press(struct store *s, struct command *cmd)
{
	char list[DELIVER_CLOSED_LEN];

	if (!cmd->reply[0] || strcmp(cmd->verb, "hand") || strcmp(cmd->args, TG_MY_CARDS))
		return false;
	cmd->args[0] = '\0';
	deliver_closed_get(s, "telegram", cmd->user, list, sizeof(list));
	if (list[0])
		return false;
	cmd->reply[0] = '\0';
	return true;
}

/* Close a press with no text (its answer went elsewhere). */
static void answer_quietly(struct telegram *t, const char *reply)
{
	struct tg_result res;
	json_t *body = json_pack("{s:s}", "callback_query_id", reply);

	tg_api(t, "answerCallbackQuery", body, TG_ANSWER_TIMEOUT_S, NULL, &res);
	tg_result_release(&res);
	json_decref(body);
}

static int run_command(struct telegram *t, struct bot *b, struct tg_update *u, char *close, size_t cap)
{
	struct command cmd;
	char group[STORE_ID_LEN];
	bool my_cards;
	int rc;

	/*
	 * A press acts where it was pressed (the chat of the message): a card
	 * of a hand sent privately, or one picked in inline mode, is taken to
	 * its table by the router, and only for the presser's own seat.
	 */
	to_command(u, &cmd);
	cmd.private_chat = strcmp(u->chat_type, "private") == 0;
	cmd.private_presses = true; /* the router takes a press of their own seat to its table (press.c) */
	if (cmd.private_chat && !u->button)
		deliver_closed_clear(b->store, "telegram", cmd.user); /* they wrote here: the chat is open */
	my_cards = my_cards_press(b->store, &cmd);
	if (strcmp(u->chat_type, "private") == 0 && !u->button)
		cmd.is_admin = true; /* their own chat with the bot */
	else if (cmd.no_place)
		cmd.is_admin = false; /* a press in no chat holds no chat's rights */
	else if (cmd.anonymous)
		/* only an admin can post as the group; getChatMember knows no such user */
		cmd.is_admin = u->as_group;
	else if (needs_rights(cmd.verb))
		/* rights are the group's, whichever topic the command came from */
		cmd.is_admin = chat_admin(t, place_chat(cmd.chat, group, sizeof(group)), cmd.user);
	rc = bot_handle(b, &cmd);
	if (rc == GB_ELIMIT) {
		/*
		 * Past the limit's one warning: nothing was written, and nothing
		 * is sent on the bot's budget; a press is only closed, in the
		 * webhook's own answer (its client stops waiting).
		 */
		snprintf(close, cap, "%s", u->reply);
		return 200;
	}
	if (rc == GB_ESTORE || rc == GB_ENOMEM) {
		/* nothing was committed: Telegram sends it again */
		tg_log("update %lld not handled: %s", u->update_id, gb_strerror(rc));
		metrics_inc("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"store\"", 1);
		return 500;
	}
	if (rc && rc != GB_EDUP)
		/* handled: the bot told the user, and a repeat would fail the same way */
		tg_log("update %lld: %s", u->update_id, gb_strerror(rc));
	if (my_cards)
		answer_quietly(t, u->reply);
	else if (cmd.reply[0])
		tg_answer_press(t, b->store, cmd.chat, cmd.reply);
	if (!rc && t->env.wake)
		t->env.wake(t->env.wake_arg);
	return 200;
}

/*
 * Handle one update (webhook body or one element of getUpdates); returns
 * the HTTP status to answer: 200 done (or dropped), 400 malformed, 500 or
 * 503 when the store failed and Telegram should send it again. A press
 * over the rate limit leaves its callback query id in close (cap bytes):
 * the caller closes it with no text and no row, in the webhook's answer.
 */
int tg_receive(struct telegram *t, const char *body, size_t len, char *close, size_t cap)
{
	struct tg_update u;
	struct bot *b;
	char me[64];
	int rc;

	tg_ensure_username(t);
	tg_username_copy(t, me, sizeof(me));
	metrics_inc("gamebot_updates_received_total", "platform=\"telegram\"", 1);
	rc = tg_update_parse(body, len, me, bot_now_ms(), &u);
	if (rc) {
		tg_log("malformed update of %zu bytes refused", len);
		metrics_inc("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"malformed\"", 1);
		return 400;
	}
	if (u.kind == TG_IGNORE)
		return 200;
	b = adapter_bot(&t->env);
	if (!b)
		return 503;
	switch (u.kind) {
	case TG_MEMBER:
		return member_changed(t, b, &u);
	case TG_INLINE_QUERY:
		answer_inline(t, b, &u);
		return 200;
	case TG_ELSEWHERE_PRESS:
		return elsewhere_in_budget(t, &u, close, cap) ? run_command(t, b, &u, close, cap) : 200;
	case TG_MIGRATE:
		/* all or nothing, and a repeat finds nothing left to move: run again, it changes nothing */
		rc = store_chat_move(b->store, "telegram", u.cmd.chat, u.migrate_to);
		if (rc == GB_OK)
			tg_log("chat %s became supergroup %s: its tables, settings and stats moved",
			       u.cmd.chat, u.migrate_to);
		else if (rc != GB_ENOTFOUND)
			tg_log("chat %s became supergroup %s but could not be moved: %s", u.cmd.chat,
			       u.migrate_to, gb_strerror(rc));
		return rc == GB_OK || rc == GB_ENOTFOUND || rc == GB_EEXISTS ? 200 : 500;
	default:
		return run_command(t, b, &u, close, cap);
	}
}

/* The secret header, compared in constant time (over a fixed length, so its length leaks nothing either). */
static bool secret_ok(const char *want, const char *got)
{
	char a[CONFIG_VALUE_LEN] = { 0 }, b[CONFIG_VALUE_LEN] = { 0 };
	size_t la = strlen(want), lb = got ? strlen(got) : 0;
	bool same;

	if (!got || !la || lb >= sizeof(b))
		return false;
	memcpy(a, want, la);
	memcpy(b, got, lb);
	same = sodium_memcmp(a, b, sizeof(a)) == 0;
	return same && la == lb;
}

/* Before the body is read: without the secret header it is not Telegram, and costs no more. */
int tg_admit(void *arg, const struct http_request *req)
{
	struct telegram *t = arg;
	int status = 0;

	if (!secret_ok(t->secret, http_header(req, "X-Telegram-Bot-Api-Secret-Token"))) {
		metrics_inc("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"auth\"", 1);
		status = 401;
	}
	return status;
}

/*
 * The webhook's answer may itself be one Bot API call (Telegram runs it,
 * and says nothing of how it went): an over-limit press is closed there,
 * at no cost to the bot's budget of calls.
 */
static char *close_body(const char *reply)
{
	json_t *o = json_pack("{s:s, s:s}", "method", "answerCallbackQuery", "callback_query_id", reply);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return text;
}

void tg_webhook(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct telegram *t = arg;
	char close[TG_REPLY_LEN] = "";

	resp->content_type = "application/json";
	if (!secret_ok(t->secret, http_header(req, "X-Telegram-Bot-Api-Secret-Token"))) {
		metrics_inc("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"auth\"", 1);
		resp->status = 401;
		resp->body = strdup("{\"ok\":false,\"description\":\"unauthorized\"}");
		return;
	}
	resp->status = tg_receive(t, req->body, req->body_len, close, sizeof(close));
	if (resp->status == 200 && close[0])
		resp->body = close_body(close);
	if (!resp->body)
		resp->body = strdup(resp->status == 200 ? "{\"ok\":true}" : "{\"ok\":false}");
}
