/*
 * deliver.c - delivery of the rows the route handler did not take
 * (dc_deliver(), the adapter's deliver slot): the table message edited in
 * place, or posted anew when it was lost; a superseded board dropped; a
 * follow-up through the interaction's webhook while its token lives; a
 * channel where the bot may not post reached through interactions only;
 * the buttons of an old message taken off.
 */
#include "adapters/discord/internal.h"

static json_t *channel_body(const json_t *view, bool code, bool edit)
{
	json_t *data = dc_message_data(view, code, false);

	if (edit)
		json_object_del(data, "allowed_mentions");
	return data;
}

/*
 * A message just posted (res) is table's message now, when table and it
 * went (recorded as the shared policy records a posted table; a table
 * asked for again is edited in place on Discord, so nothing is stripped).
 */
static void record_posted(struct discord *d, struct store *s, const struct store_out *row, int64_t table,
			  const json_t *view, const struct dc_result *res)
{
	const char *id = json_string_value(json_object_get(res->body, "id"));
	enum view_of of = deliver_view_of(view);

	if (!deliver_view_kept(table, of) || !dc_ok_status(res) || !dc_id_ok(id))
		return;
	deliver_posted(&dc_deliver_platform, d, s, row, of, id, "", false);
}

/* POST a message to the channel as the bot; record it as the table's when table. */
static void post_channel(struct discord *d, struct store *s, const struct store_out *row,
			 const json_t *view, bool code, int64_t table, struct dc_result *res)
{
	struct strbuf path = { 0 };
	json_t *body = channel_body(view, code, false);

	/*
	 * The outbox row's id as the message's nonce, enforced: a row sent
	 * again after a crash (its first answer never recorded) makes Discord
	 * answer with the message it already made instead of a second one.
	 */
	{
		char nonce[32];

		snprintf(nonce, sizeof(nonce), "gb%lld", (long long)row->id);
		json_object_set_new(body, "nonce", json_string(nonce));
		json_object_set_new(body, "enforce_nonce", json_true());
	}
	sb_addf(&path, "/channels/%s/messages", row->chat);
	dc_api(d, "POST", sb_str(&path), body, true, res);
	record_posted(d, s, row, table, view, res);
	json_decref(body);
	sb_release(&path);
}

/* POST a follow-up through the interaction's webhook. */
static void post_followup(struct discord *d, const struct handle *h, const json_t *view,
			  bool code, bool ephemeral, struct dc_result *res)
{
	struct strbuf path = { 0 };
	json_t *body = dc_message_data(view, code, ephemeral);

	sb_addf(&path, "/webhooks/%s/%s", d->app_id, h->token);
	dc_api(d, "POST", sb_str(&path), body, false, res);
	json_decref(body);
	adapter_sb_wipe(&path);
}

/* A follow-up seen by everyone in the channel; recorded as the table's message when table. */
static void post_hook(struct discord *d, struct store *s, const struct handle *h, const struct store_out *row,
		      const json_t *view, bool code, int64_t table, struct dc_result *res)
{
	post_followup(d, h, view, code, false, res);
	record_posted(d, s, row, table, view, res);
}

/*
 * The table's message edited in place, or posted when it has none (or it
 * is gone): as the bot, or through the interaction hook when the channel
 * is reached only through dc_interactions (then a message that interaction
 * may not edit is posted afresh too). Returns GB_OK with the call's
 * outcome in res, or the store's error (then no call was made).
 */
static int send_table(struct discord *d, struct store *s, const struct store_out *row,
		      const json_t *view, const struct handle *hook, struct dc_result *res)
{
	struct store_table t = { 0 };
	struct strbuf path = { 0 };
	enum view_of of = deliver_view_of(view);
	bool code = of != VIEW_QUEUE; /* a table in a code block; a queue message is prose */
	json_t *body = channel_body(view, code, true);
	char key[96], val[CMD_REPLY_LEN];
	bool as_bot = false;
	int rc = deliver_view_kept(row->table, of) ? deliver_message_get(s, "discord", row->table, row->chat, of, &t)
						   : GB_ENOTFOUND;

	memset(res, 0, sizeof(*res));
	if (rc && rc != GB_ENOTFOUND)
		goto out;
	rc = GB_OK;
	/* a queue message whose entry is gone (the person was seated): its id came with the view */
	if ((!t.message[0] && of == VIEW_QUEUE) || deliver_stale_view(view))
		snprintf(t.message, sizeof(t.message), "%s", dc_str_or(json_object_get(view, "message"), ""));
	snprintf(key, sizeof(key), "discord.orig.%s", row->chat);
	val[0] = '\0';
	if (t.message[0] == '@' && !store_meta_get(s, key, val, sizeof(val))) {
		/* the answer to a typed command: edited through that interaction's webhook (val "IID:TOKEN") */
		char *colon = strchr(val, ':');

		if (colon && (size_t)(colon - val) == strlen(t.message + 1) &&
		    strncmp(val, t.message + 1, (size_t)(colon - val)) == 0 &&
		    dc_fresh(t.message + 1, bot_now_ms()) && !dc_hook_dead(d, colon + 1))
			sb_addf(&path, "/webhooks/%s/%s/messages/@original", d->app_id, colon + 1);
	} else if (t.message[0] && t.message[0] != '@' && hook && !dc_hook_dead(d, hook->token)) {
		sb_addf(&path, "/webhooks/%s/%s/messages/%s", d->app_id, hook->token, t.message);
	} else if (t.message[0] && t.message[0] != '@') {
		sb_addf(&path, "/channels/%s/messages/%s", row->chat, t.message);
		as_bot = true;
	}
	if (deliver_stale_view(view) && !path.len) {
		res->status = 204; /* nothing to edit: nothing is posted, and that is all */
		goto out;
	}
	if (path.len) {
		dc_api(d, "PATCH", sb_str(&path), body, as_bot, res);
		if (deliver_stale_view(view) && !dc_platform_failure(res) && res->status >= 400 && res->status < 500 &&
		    res->status != 429) {
			/* gone, or not ours to edit: nothing left to press on it */
			dc_result_release(res);
			memset(res, 0, sizeof(*res));
			res->status = 204;
			goto out;
		}
		if (dc_ok_status(res) && t.message[0] == '@') {
			const char *id = json_string_value(json_object_get(res->body, "id"));

			if (dc_id_ok(id) && deliver_message_set(s, "discord", row->table, row->chat, deliver_view_of(view), id, false))
				gb_log("discord: table %lld: message id %s not recorded", (long long)row->table, id);
		}
		if (res->transport ||
		    (res->status != 404 &&
		     !(hook && res->status >= 400 && res->status < 500 && res->status != 429)))
			goto out;
		/* deleted, or the interaction's token expired: post the table afresh */
		dc_result_release(res);
	}
	if (hook && !dc_hook_dead(d, hook->token))
		post_hook(d, s, hook, row, view, code, row->table, res);
	else
		post_channel(d, s, row, view, code, row->table, res);
out:
	sodium_memzero(val, sizeof(val));
	json_decref(body);
	adapter_sb_wipe(&path);
	store_table_release(&t);
	return rc;
}

/* ---- channels reached only through interactions ---- */

/* channel's slot in d->reach, or NULL. Lock held. */
static struct reach *reach_find(struct discord *d, const char *channel)
{
	for (int i = 0; i < DC_REACH_SLOTS; i++)
		if (strcmp(d->reach[i].channel, channel) == 0)
			return &d->reach[i];
	return NULL;
}

/* Remember in memory what is known of channel; returns what was known before (false: nothing). */
static bool reach_set(struct discord *d, const char *channel, bool hooks, int64_t probe_ms)
{
	struct reach *r;
	bool was;

	pthread_mutex_lock(&d->lock);
	r = reach_find(d, channel);
	if (!r) {
		r = &d->reach[d->reach_next];
		d->reach_next = (d->reach_next + 1) % DC_REACH_SLOTS;
		r->hooks = false;
		snprintf(r->channel, sizeof(r->channel), "%s", channel);
	}
	was = r->hooks;
	r->hooks = hooks;
	r->probe_ms = probe_ms;
	pthread_mutex_unlock(&d->lock);
	return was;
}

/*
 * Is channel reached only through interactions? Asked of memory, and of
 * the store when memory does not know (learnt before a restart, or by
 * another instance). A store that cannot answer counts as no: a refusal
 * teaches it again.
 */
static bool hooks_only(struct discord *d, struct store *s, const char *channel)
{
	const struct reach *r;
	char key[96], val[16];
	bool known, hooks = false;

	pthread_mutex_lock(&d->lock);
	r = reach_find(d, channel);
	known = r != NULL;
	if (r)
		hooks = r->hooks;
	pthread_mutex_unlock(&d->lock);
	if (known)
		return hooks;
	snprintf(key, sizeof(key), "discord.hooks.%s", channel);
	hooks = !store_meta_get(s, key, val, sizeof(val)) && strcmp(val, "1") == 0;
	/* learnt from the store: the bot may be tried once, should it have been added since */
	reach_set(d, channel, hooks, 0);
	return hooks;
}

/*
 * May a row that no interaction can carry try the bot in channel now?
 * Once every DC_PROBE_MS (and once after a start): the bot user may have
 * been added since; never a refusal per row.
 */
static bool probe_due(struct discord *d, const char *channel)
{
	struct reach *r;
	int64_t now = bot_now_ms();
	bool due = false;

	pthread_mutex_lock(&d->lock);
	r = reach_find(d, channel);
	if (r && r->hooks && r->probe_ms <= now) {
		r->probe_ms = now + DC_PROBE_MS;
		due = true;
	}
	pthread_mutex_unlock(&d->lock);
	return due;
}

/*
 * Record whether channel is reached only through interactions, in memory
 * and in the store; one log line when that changes (why: the refusal).
 */
static void reach_mark(struct discord *d, struct store *s, const char *channel, bool hooks,
		       const char *why)
{
	char key[96];
	bool was = reach_set(d, channel, hooks, bot_now_ms() + DC_PROBE_MS);
	int rc;

	snprintf(key, sizeof(key), "discord.hooks.%s", channel);
	rc = store_meta_set(s, key, hooks ? "1" : "0");
	if (hooks && !was)
		gb_log("discord: channel %s: the bot may not post there (%s): the app was added "
		       "without its bot user; tables there go on through interactions only",
		       channel, why);
	else if (!hooks && was)
		gb_log("discord: channel %s: the bot may post there again", channel);
	if (rc)
		gb_log("discord: channel %s: cannot record how it is reached: %s", channel, gb_strerror(rc));
}

/*
 * A table or public row for a channel reached only through interactions:
 * through the row's own interaction while its token is live (own), else
 * the channel's newest interaction while its token is. Returns false,
 * having sent nothing, when there is none.
 */
static bool deliver_hooked(struct discord *d, struct store *s, const struct store_out *row,
			   const json_t *view, const char *kind, const struct handle *own,
			   struct delivery *dl)
{
	struct dc_result res = { 0 };
	struct handle h;
	char key[96], buf[CMD_REPLY_LEN] = "";
	bool found = true;
	int64_t wait;
	int rc;

	memset(dl, 0, sizeof(*dl));
	snprintf(key, sizeof(key), "discord.last.%s", row->chat);
	if (own)
		h = *own;
	else if (store_meta_get(s, key, buf, sizeof(buf)) || !dc_handle_parse(buf, &h) ||
		 !dc_fresh(h.iid, bot_now_ms()) || dc_hook_dead(d, h.token)) {
		found = false;
		goto out;
	}
	/* a follow-up cannot come before its interaction's answer */
	wait = own ? 0 : dc_gate_wait(d, h.iid);
	if (wait) {
		dl->result = DELIVERY_WAIT;
		dl->retry_ms = wait;
		snprintf(dl->why, sizeof(dl->why), "waiting for an interaction's answer");
		goto out;
	}
	if (strcmp(kind, "table") == 0) {
		rc = send_table(d, s, row, view, &h, &res);
		if (rc) {
			dl->result = DELIVERY_RETRY;
			snprintf(dl->why, sizeof(dl->why), "table message: %s", gb_strerror(rc));
			goto out;
		}
		dc_settle("table message", &res, dl);
	} else {
		post_followup(d, &h, view, false, false, &res);
		dc_settle("follow-up", &res, dl);
	}
out:
	sodium_memzero(buf, sizeof(buf));
	dc_result_release(&res);
	return found;
}

/*
 * A row for a channel the bot may not post in, with no interaction to
 * carry it: given up. refusal: the bot's call just refused, or NULL.
 */
static void unreachable(struct delivery *dl, const char *refusal)
{
	memset(dl, 0, sizeof(*dl));
	dl->result = DELIVERY_GIVE_UP;
	snprintf(dl->why, sizeof(dl->why), "%.80s; no interaction of the last 15 minutes can carry it",
		 refusal ? refusal : "the bot may not post in the channel");
}

/*
 * A table message replaced by a newer one loses its buttons (queue_unbutton()):
 * edited through its interaction's token, or the channel's newest interaction
 * where only interactions reach the channel, or else as the bot. A message
 * gone, or one that may not be edited, is left as it is: its buttons are of
 * an earlier turn, and a press on them is refused.
 */
static void unbutton(struct discord *d, struct store *s, const struct store_out *row, const json_t *view,
		     struct delivery *dl)
{
	const char *msg = json_string_value(json_object_get(view, "message"));
	const char *hook = json_string_value(json_object_get(view, "hook"));
	struct strbuf path = { 0 };
	struct dc_result res = { 0 };
	struct handle h;
	char key[96], buf[CMD_REPLY_LEN] = "";
	json_t *body = json_pack("{s[]}", "components");
	bool as_bot = false;

	memset(dl, 0, sizeof(*dl));
	dl->result = DELIVERY_OK;
	snprintf(key, sizeof(key), "discord.last.%s", row->chat);
	if (msg && msg[0] == '@' && hook && hook[0] && !dc_hook_dead(d, hook)) {
		sb_addf(&path, "/webhooks/%s/%s/messages/@original", d->app_id, hook);
	} else if (msg && dc_id_ok(msg) && hooks_only(d, s, row->chat)) {
		if (store_meta_get(s, key, buf, sizeof(buf)) || !dc_handle_parse(buf, &h) ||
		    !dc_fresh(h.iid, bot_now_ms()) || dc_hook_dead(d, h.token))
			goto out;
		sb_addf(&path, "/webhooks/%s/%s/messages/%s", d->app_id, h.token, msg);
	} else if (msg && dc_id_ok(msg)) {
		sb_addf(&path, "/channels/%s/messages/%s", row->chat, msg);
		as_bot = true;
	} else {
		goto out;
	}
	dc_api(d, "PATCH", sb_str(&path), body, as_bot, &res);
	if (!dc_platform_failure(&res) && res.status >= 400 && res.status < 500 && res.status != 429)
		goto out; /* gone, or not ours to edit: its buttons are stale all the same */
	dc_settle("old table message", &res, dl);
out:
	sodium_memzero(buf, sizeof(buf));
	if (path.len)
		sodium_memzero(path.buf, path.len);
	sb_release(&path);
	dc_result_release(&res);
	json_decref(body);
}

/*
 * The queue message's id, learned: recorded where the message is still
 * known as the interaction's dc_answer ("@IID"), or handed to its views on
 * their way once its entry has gone (the person was seated). A message
 * recorded since (another id) stays.
 */
static int record_original(struct store *s, const char *channel, const char *was, const char *id)
{
	char now[STORE_ID_LEN];
	int found = 0, rc = store_begin(s);

	if (!rc)
		rc = store_queue_message(s, "discord", channel, now, sizeof(now), &found);
	if (!rc && (!found || !strcmp(now, was)))
		rc = adapter_queue_message(s, "discord", channel, id, true);
	if (!rc)
		rc = store_commit(s);
	if (rc)
		store_rollback(s);
	return rc;
}

/*
 * A queue message answering an interaction: its id asked for through the
 * interaction's token while that is good (queue_learn()). Nothing to do
 * once the token is over, or when the answer is gone.
 */
static void learn_original(struct discord *d, struct store *s, const struct store_out *row, const json_t *view,
			   const struct handle *h, struct delivery *dl)
{
	const char *msg = json_string_value(json_object_get(view, "message"));
	struct strbuf path = { 0 };
	struct dc_result res = { 0 };
	const char *id;
	int rc;

	memset(dl, 0, sizeof(*dl));
	dl->result = DELIVERY_OK;
	if (!h || !msg || msg[0] != '@' || strcmp(msg + 1, h->iid))
		goto out;
	sb_addf(&path, "/webhooks/%s/%s/messages/@original", d->app_id, h->token);
	dc_api(d, "GET", sb_str(&path), NULL, false, &res);
	if (!res.transport && res.status >= 400 && res.status < 500 && res.status != 429)
		goto out; /* gone, or the token over early: the message is posted afresh if need be */
	if (!dc_ok_status(&res)) {
		dc_settle("queue message's id", &res, dl);
		goto out;
	}
	id = json_string_value(json_object_get(res.body, "id"));
	rc = dc_id_ok(id) ? record_original(s, row->chat, msg, id) : GB_OK;
	if (rc) {
		dl->result = DELIVERY_RETRY;
		snprintf(dl->why, sizeof(dl->why), "queue message's id: %s", gb_strerror(rc));
	}
out:
	adapter_sb_wipe(&path);
	dc_result_release(&res);
}

/*
 * The outbox asks before delivering: the rows of an interaction being
 * answered are its route handler's to take, and the rest follow its answer.
 */
int64_t dc_held(void *self, const struct store_out *row)
{
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	struct handle h;
	int64_t wait = dc_handle_parse(dc_origin_of(view), &h) ? dc_gate_wait(self, h.iid) : 0;

	json_decref(view);
	return wait;
}

void dc_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *dl)
{
	struct discord *d = self;
	struct dc_result res = { 0 };
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *what = "channel message";
	struct handle h;
	bool has_handle = dc_handle_parse(dc_origin_of(view), &h);
	bool live = has_handle && dc_fresh(h.iid, bot_now_ms()) && !dc_hook_dead(d, h.token);
	bool hooks = false;

	memset(dl, 0, sizeof(*dl));
	dl->result = DELIVERY_OK;
	if (!json_is_object(view) || !kind) {
		dl->result = DELIVERY_GIVE_UP;
		snprintf(dl->why, sizeof(dl->why), "unreadable reply view");
		goto out;
	}
	if (!strcmp(kind, "table") || !strcmp(kind, "public"))
		hooks = hooks_only(d, s, row->chat);
	if (hooks) {
		if (deliver_hooked(d, s, row, view, kind, live ? &h : NULL, dl))
			goto out;
		if (!probe_due(d, row->chat)) {
			unreachable(dl, NULL);
			goto out;
		}
		/* no interaction can carry it: the bot tries the channel, once in a while */
	}
	if (strcmp(kind, "table") == 0) {
		int rc = send_table(d, s, row, view, NULL, &res);

		if (rc) {
			/* the store failed before anything was sent: again later */
			dl->result = DELIVERY_RETRY;
			snprintf(dl->why, sizeof(dl->why), "table message: %s", gb_strerror(rc));
			goto out;
		}
		what = "table message";
	} else if (strcmp(kind, "public") == 0) {
		if (live) {
			post_followup(d, &h, view, false, false, &res);
			if (res.transport || res.status != 404)
				goto settle_followup;
			dc_result_release(&res); /* the token expired early: as the bot, then */
		}
		post_channel(d, s, row, view, false, 0, &res);
	} else if (strcmp(kind, "private") == 0 || strcmp(kind, "alert") == 0) {
		/* only the person whose interaction it answers can be told privately */
		if (!live || !user || strcmp(user, h.user))
			goto out;
		post_followup(d, &h, view, strcmp(kind, "private") == 0, true, &res);
		if (res.status == 404)
			goto out; /* expired: a private word is never posted in the channel */
		goto settle_followup;
	} else if (strcmp(kind, "unbutton") == 0) {
		unbutton(d, s, row, view, dl);
		goto out;
	} else if (strcmp(kind, "original") == 0) {
		learn_original(d, s, row, view, live ? &h : NULL, dl);
		goto out;
	} else {
		goto out; /* "ack": the interaction was answered when it arrived */
	}
	if (res.as_bot && !res.transport && res.status == 403) {
		/* the bot may not post here: interactions carry this row, and the channel's next */
		char why[160];

		dc_describe(what, &res, why, sizeof(why));
		reach_mark(d, s, row->chat, true, why);
		if (!deliver_hooked(d, s, row, view, kind, live ? &h : NULL, dl))
			unreachable(dl, why);
		goto out;
	}
	if (res.as_bot && !res.transport && res.status == 404 && res.code == DC_UNKNOWN_CHANNEL) {
		/* the channel is gone: its tables stop (stakes back), and no board is sent there again */
		char why[sizeof(dl->why)];

		dc_describe(what, &res, why, sizeof(why));
		deliver_judge(&dc_deliver_platform, &d->env, row, &(struct deliver_failure){ DELIVER_CHAT_GONE },
			      why, dl);
		goto out;
	}
	if (hooks && res.as_bot && dc_ok_status(&res))
		reach_mark(d, s, row->chat, false, NULL);
	dc_settle(what, &res, dl);
	goto out;
settle_followup:
	dc_settle("follow-up", &res, dl);
out:
	dc_result_release(&res);
	json_decref(view);
}
