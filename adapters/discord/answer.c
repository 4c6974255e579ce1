/*
 * answer.c - the answer taken from the command's rows: an interaction is
 * answered in the HTTP response to it, so the route handler runs the
 * command, takes the rows it produced out of the outbox and makes the
 * answer of them (an update of the pressed message, an ephemeral hand, a
 * new table message); which message of a channel a view edits (a table's,
 * a seat's, a queue's) is kept here too.
 */
#include "adapters/discord/internal.h"

/*
 * The handle of the command a row came from: "origin" on every row of a
 * command with a handle, "reply" alone on the alert the bot queues when a
 * command failed outright.
 */
const char *dc_origin_of(const json_t *view)
{
	const char *o = json_string_value(json_object_get(view, "origin"));

	return o ? o : json_string_value(json_object_get(view, "reply"));
}

struct taken {
	int64_t id;
	json_t *view;
	const char *kind;
	bool used;
};

json_t *dc_message_data(const json_t *view, bool code, bool ephemeral)
{
	const char *text = json_string_value(json_object_get(view, "text"));
	int lang = lang_parse(json_string_value(json_object_get(view, "lang")));
	char *content = dc_message_text(text, code);
	json_t *data = json_object();

	json_object_set_new(data, "content", json_string(content ? content : "…"));
	json_object_set_new(data, "components",
			    dc_components(json_object_get(view, "buttons"),
					  json_integer_value(json_object_get(view, "table")),
					  (int)json_integer_value(json_object_get(view, "turn")),
					  lang < 0 ? LANG_EN : lang));
	json_object_set_new(data, "allowed_mentions", json_pack("{s[]}", "parse"));
	if (ephemeral)
		json_object_set_new(data, "flags", json_integer(DC_EPHEMERAL));
	free(content);
	return data;
}

json_t *dc_answer(int type, json_t *data)
{
	json_t *a = json_object();

	json_object_set_new(a, "type", json_integer(type));
	if (data)
		json_object_set_new(a, "data", data);
	return a;
}

/* Several rows of one kind as one message's data (public lines, alerts). */
static json_t *joined_data(struct taken *t, int n, const char *kind, bool ephemeral)
{
	struct strbuf sb = { 0 };
	json_t *view, *data;

	for (int i = 0; i < n; i++) {
		if (strcmp(t[i].kind, kind))
			continue;
		sb_addf(&sb, "%s%s", sb.len ? "\n" : "",
			json_string_value(json_object_get(t[i].view, "text")));
		t[i].used = true;
	}
	view = json_pack("{ss}", "text", sb_str(&sb));
	data = dc_message_data(view, false, ephemeral);
	json_decref(view);
	sb_release(&sb);
	return data;
}

static int find_kind(struct taken *t, int n, const char *kind, const char *user)
{
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].kind, kind) == 0 &&
		    (!user || strcmp(user, dc_str_or(json_object_get(t[i].view, "user"), "")) == 0))
			return i;
	return -1;
}

/*
 * A typed command's answer becomes the table message (a repost at the
 * bottom of the channel, /board's or any command's that shows the table):
 * the message it replaces loses its buttons, so the channel has one table
 * message with live buttons. Queued as a row of the adapter's own,
 * {"kind": "unbutton", "message": ID, "hook": TOKEN}: "@IID" with that
 * interaction's token when the old message is an interaction's answer not
 * yet known by its id (it is edited through its token while that lives).
 */
static int queue_unbutton(struct store *s, const char *channel, int64_t table, enum view_of of, const char *now)
{
	struct store_table t = { 0 };
	char key[96], val[CMD_REPLY_LEN] = "";
	const char *colon;
	json_t *view = NULL;
	char *text = NULL;
	int rc = deliver_message_get(s, "discord", table, channel, of, &t);

	if (rc) {
		rc = rc == GB_ENOTFOUND ? GB_OK : rc;
		goto out;
	}
	if (!t.message[0] || strcmp(t.message, now) == 0)
		goto out;
	view = json_pack("{ssssss}", "kind", "unbutton", "message", t.message, "hook", "");
	snprintf(key, sizeof(key), "discord.orig.%s", channel);
	if (t.message[0] == '@') {
		/* "IID:TOKEN" of the interaction whose answer it is, while that token lives */
		if (store_meta_get(s, key, val, sizeof(val)))
			goto out;
		colon = strchr(val, ':');
		if (!colon || (size_t)(colon - val) != strlen(t.message + 1) ||
		    strncmp(val, t.message + 1, (size_t)(colon - val)) || !dc_fresh(t.message + 1, bot_now_ms()))
			goto out;
		json_object_set_new(view, "hook", json_string(colon + 1));
	}
	text = json_dumps(view, JSON_COMPACT);
	rc = text ? store_out_add(s, "discord", channel, table, "", text, bot_now_ms()) : GB_ENOMEM;
out:
	sodium_memzero(val, sizeof(val));
	if (text)
		sodium_memzero(text, strlen(text));
	free(text);
	json_decref(view);
	store_table_release(&t);
	return rc;
}

/*
 * A queue message that is an interaction's dc_answer ("@IID") may wait in
 * its chat longer than the interaction's token lives (15 minutes): its
 * id is asked for (learn_original()) while the token is good, so that it
 * is edited in place as the bot from then on. Queued as a row of the
 * adapter's own, {"kind": "original", "message": "@IID", "origin": the
 * interaction's handle}: it waits for the dc_answer (dc_held()), and goes in
 * its chat's order, before the queue message's next edit.
 */
static int queue_learn(struct store *s, const char *channel, const char *message, const char *handle)
{
	json_t *view = json_pack("{ssssss}", "kind", "original", "message", message, "origin", handle);
	char *text = view ? json_dumps(view, JSON_COMPACT) : NULL;
	int rc = text ? store_out_add_prio(s, "discord", channel, 0, "", text, bot_now_ms(), STORE_OUT_TURN)
		      : GB_ENOMEM;

	if (text)
		sodium_memzero(text, strlen(text));
	free(text);
	json_decref(view);
	return rc;
}

/* What the plan records about the table message. */
struct plan {
	json_t *answer;                 /* the HTTP dc_answer (owned) */
	int64_t table;                  /* the table whose message it records, 0 none */
	enum view_of of;                /* whose message: the table's, a seat's, a queue message */
	char message[STORE_ID_LEN];     /* its new id ("@IID": this interaction's answer) */
};

/*
 * Choose the HTTP answer from the command's rows t[0..n-1], in order of
 * what tells the user most, marking the rows it uses: the rest are sent
 * by dc_deliver(). lang: for the texts of our own.
 */
static void plan_answer(const struct interaction *ia, struct taken *t, int n, int lang,
			struct plan *p)
{
	int table = find_kind(t, n, "table", NULL);
	int mine = find_kind(t, n, "private", ia->user);
	int alert = find_kind(t, n, "alert", NULL);
	int pub = find_kind(t, n, "public", NULL);

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].kind, "ack") == 0)
			t[i].used = true; /* the answer is the ack */
	if (ia->type == IT_COMPONENT && !ia->message_ephemeral && table >= 0) {
		/* a press on the table message: updated in place, and now known by its id */
		p->answer = dc_answer(7, dc_message_data(t[table].view, deliver_view_of(t[table].view) != VIEW_QUEUE, false));
		t[table].used = true;
		p->table = json_integer_value(json_object_get(t[table].view, "table"));
		p->of = deliver_view_of(t[table].view);
		snprintf(p->message, sizeof(p->message), "%s", ia->message_id ? ia->message_id : "");
		if (!dc_id_ok(p->message) || deliver_stale_view(t[table].view)) {
			p->table = 0;
			p->of = VIEW_TABLE;
		}
	} else if (ia->type == IT_COMPONENT && ia->message_ephemeral && mine >= 0) {
		p->answer = dc_answer(7, dc_message_data(t[mine].view, true, true));
		t[mine].used = true;
	} else if (mine >= 0) {
		p->answer = dc_answer(4, dc_message_data(t[mine].view, true, true));
		t[mine].used = true;
	} else if (alert >= 0) {
		p->answer = dc_answer(4, joined_data(t, n, "alert", true));
	} else if (ia->type == IT_COMPONENT && ia->message_ephemeral) {
		/* a card played from the hand: the hand's buttons are spent, the table is edited */
		json_t *data = json_object();
		char *content = dc_message_text(ia->message_content, false);

		json_object_set_new(data, "content",
				    json_string(ia->message_content ? ia->message_content : content));
		json_object_set_new(data, "components", json_array());
		p->answer = dc_answer(7, data);
		free(content);
	} else if (ia->type == IT_COMMAND && table >= 0) {
		/* a typed command showing the table: the answer is the table message now */
		p->answer = dc_answer(4, dc_message_data(t[table].view, deliver_view_of(t[table].view) != VIEW_QUEUE, false));
		t[table].used = true;
		p->table = json_integer_value(json_object_get(t[table].view, "table"));
		p->of = deliver_view_of(t[table].view);
		snprintf(p->message, sizeof(p->message), "@%s", ia->id);
	} else if (pub >= 0) {
		p->answer = dc_answer(4, joined_data(t, n, "public", false));
	} else if (ia->type == IT_COMPONENT) {
		p->answer = dc_answer(6, NULL); /* nothing changes on the message */
	} else {
		json_t *view = json_pack("{ss}", "text", tr(lang, M_DC_DONE));

		p->answer = dc_answer(4, dc_message_data(view, false, true));
		json_decref(view);
	}
}

/*
 * The command's rows among the chat's rows[0..n-1], into t; returns how
 * many. *leased: how many more of them a worker holds now. A press on the
 * table message (cmd: its table and turn) whose own rows hold no table and
 * no alert takes the table's pending row of a later turn instead: a
 * computer's move committed since replaced the press's board (a table
 * keeps one pending board), and the pressed message is behind.
 */
static int collect(const struct interaction *ia, const struct command *cmd, const char *handle,
		   const struct store_out *rows, int n, int64_t now, struct taken *t, int *leased)
{
	bool on_table = ia->type == IT_COMPONENT && !ia->message_ephemeral && cmd->button_table > 0;
	bool own_board = false;
	struct taken later = { 0 };
	int nt = 0;

	*leased = 0;
	for (int i = 0; i < n; i++) {
		json_error_t jerr;
		json_t *v = json_loads(rows[i].payload ? rows[i].payload : "", 0, &jerr);
		const char *origin = dc_origin_of(v), *kind = json_string_value(json_object_get(v, "kind"));
		bool own = origin && kind && strcmp(origin, handle) == 0;

		if (own && rows[i].lease_until_ms > now) {
			/* a worker has it in hand: about to hand it back (dc_held()), or to send it */
			(*leased)++;
		} else if (own) {
			own_board |= !strcmp(kind, "table") || !strcmp(kind, "alert");
			t[nt++] = (struct taken){ .id = rows[i].id, .view = v, .kind = kind };
			continue;
		} else if (on_table && !later.view && kind && !strcmp(kind, "table") &&
			   rows[i].lease_until_ms <= now && rows[i].table == cmd->button_table &&
			   json_integer_value(json_object_get(v, "turn")) > cmd->button_turn) {
			later = (struct taken){ .id = rows[i].id, .view = v, .kind = kind };
			continue;
		}
		json_decref(v);
	}
	if (later.view && !own_board)
		t[nt++] = later;
	else
		json_decref(later.view);
	return nt;
}

/*
 * Take the command's rows (those carrying handle, see collect()) out of
 * the outbox, in one transaction so that no worker claims them meanwhile,
 * and plan the answer. A worker may have claimed one of them between the
 * command's commit and this: it hands the row back at once (dc_held()), so
 * that is waited for, up to DC_TAKE_WAIT_MS (another instance's worker
 * sends it). Rows the answer does not use stay. *out gets the answer;
 * GB_OK or the store's error (then nothing taken).
 */
static int take_answer(struct bot *b, const struct interaction *ia, const struct command *cmd,
		       const char *handle, json_t **out)
{
	struct store_out rows[DC_TAKE_MAX];
	struct taken t[DC_TAKE_MAX];
	struct plan p = { 0 };
	struct store *s = b->store;
	int64_t start = bot_now_ms(), now;
	int n, nt = 0, lang = -1, rc, leased;
	char meta_key[96], meta_val[CMD_REPLY_LEN];

	*out = NULL;
	for (;;) {
		struct timespec ts = { 0, 1000000L };

		n = 0;
		now = bot_now_ms();
		rc = store_begin(s);
		if (rc)
			return rc;
		rc = store_out_chat(s, "discord", ia->channel, rows, DC_TAKE_MAX, &n);
		if (rc)
			goto out;
		nt = collect(ia, cmd, handle, rows, n, now, t, &leased);
		if (!leased || now - start >= DC_TAKE_WAIT_MS)
			break;
		store_rollback(s);
		for (int i = 0; i < nt; i++)
			json_decref(t[i].view);
		for (int i = 0; i < n; i++)
			store_out_release(&rows[i]);
		nt = 0;
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < nt && lang < 0; i++)
		lang = lang_parse(json_string_value(json_object_get(t[i].view, "lang")));
	plan_answer(ia, t, nt, lang < 0 ? LANG_EN : lang, &p);
	for (int i = 0; i < nt && !rc; i++)
		if (t[i].used)
			rc = store_out_done(s, t[i].id);
	if (!rc && deliver_view_kept(p.table, p.of) && p.message[0] == '@')
		rc = queue_unbutton(s, ia->channel, p.table, p.of, p.message);
	if (!rc && deliver_view_kept(p.table, p.of)) {
		rc = deliver_message_set(s, "discord", p.table, ia->channel, p.of, p.message, true);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK;
	}
	if (!rc && p.of == VIEW_QUEUE && p.message[0] == '@')
		rc = queue_learn(s, ia->channel, p.message, handle);
	if (!rc && deliver_view_kept(p.table, p.of) && p.message[0] == '@') {
		snprintf(meta_key, sizeof(meta_key), "discord.orig.%s", ia->channel);
		snprintf(meta_val, sizeof(meta_val), "%s:%s", ia->id, ia->token);
		rc = store_meta_set(s, meta_key, meta_val);
	}
	if (!rc) {
		/* the channel's newest interaction: rows of none may go through it (deliver_hooked()) */
		snprintf(meta_key, sizeof(meta_key), "discord.last.%s", ia->channel);
		rc = store_meta_set(s, meta_key, handle);
	}
	if (!rc)
		rc = store_commit(s);
out:
	if (rc) {
		store_rollback(s);
		json_decref(p.answer);
	} else {
		*out = p.answer;
	}
	for (int i = 0; i < nt; i++)
		json_decref(t[i].view);
	for (int i = 0; i < n; i++)
		store_out_release(&rows[i]);
	return rc;
}

/* The chat's language, for the answers the bot gives no row for. */
int dc_chat_lang(struct bot *b, const char *channel)
{
	struct store_chat chat = { 0 };
	int lang = LANG_EN;

	if (!store_chat_get(b->store, "discord", channel, b->cfg.default_lang, &chat) &&
	    lang_parse(chat.lang) >= 0)
		lang = lang_parse(chat.lang);
	store_chat_release(&chat);
	return lang;
}

/*
 * A slash command or a component: handled at once, answered from its
 * rows. Returns the HTTP status; *out the answer.
 */
int dc_run_interaction(struct discord *d, struct bot *b, const struct interaction *ia,
		       json_t **out)
{
	struct command cmd;
	char handle[CMD_REPLY_LEN];
	int rc, status = 200;

	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.platform, sizeof(cmd.platform), "discord");
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", ia->channel);
	snprintf(cmd.user, sizeof(cmd.user), "%s", ia->user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", ia->user_name);
	snprintf(cmd.update_id, sizeof(cmd.update_id), "%s", ia->id);
	cmd.is_admin = ia->is_admin;
	/* the bot's direct messages: no server member behind it, nobody else reading */
	cmd.private_chat = ia->dm;
	cmd.now_ms = bot_now_ms();
	dc_handle_make(ia, handle, sizeof(handle));
	snprintf(cmd.reply, sizeof(cmd.reply), "%s", handle);
	if (ia->type == IT_COMMAND) {
		dc_command_from_slash(ia->data, &cmd);
	} else {
		dc_command_from_component(ia->data, &cmd);
		if (ia->message_id && !ia->message_ephemeral && dc_id_ok(ia->message_id))
			snprintf(cmd.button_message, sizeof(cmd.button_message), "%s", ia->message_id);
	}

	dc_gate_enter(d, ia->id);
	rc = bot_handle(b, &cmd);
	if (rc == GB_ELIMIT) {
		/* past the limit's one warning: answered from here, and no row was written */
		int lang = lang_parse(b->cfg.default_lang);
		json_t *view = json_pack("{ss}", "text", tr(lang < 0 ? LANG_EN : lang, M_SLOW_DOWN));

		*out = ia->type == IT_COMPONENT ? dc_answer(6, NULL)
						: dc_answer(4, dc_message_data(view, false, true));
		json_decref(view);
		goto out;
	}
	if (rc == GB_EDUP) {
		/* answered the first time; this one changes nothing and says so */
		json_t *view = json_pack("{ss}", "text", tr(dc_chat_lang(b, ia->channel), M_DC_REPEATED));

		*out = ia->type == IT_COMPONENT ? dc_answer(6, NULL)
						: dc_answer(4, dc_message_data(view, false, true));
		json_decref(view);
		goto out;
	}
	if (rc)
		/* the bot queued an alert saying so, unless the store is down altogether */
		gb_log("discord: interaction %s in channel %s: %s", ia->id, ia->channel, gb_strerror(rc));
	rc = take_answer(b, ia, &cmd, handle, out);
	if (rc) {
		gb_log("discord: interaction %s: its answer cannot be taken: %s", ia->id, gb_strerror(rc));
		status = 500;
	}
out:
	dc_gate_leave(d, ia->id);
	if (d->env.wake)
		d->env.wake(d->env.wake_arg);
	return status;
}
