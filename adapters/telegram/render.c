/*
 * render.c - reply views out: tg_render() turns one view of the bot into
 * one Bot API call (sendMessage, editMessageText, answerCallbackQuery...),
 * boards in <pre> with HTML escaping, texts cut to Telegram's limits,
 * buttons as an inline keyboard. Pure: no I/O, no state.
 */
#include "adapters/telegram/internal.h"

void tg_html_escape(struct strbuf *sb, const char *text)
{
	const char *run = text;

	for (const char *p = text; *p; p++) {
		const char *rep = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : NULL;

		if (!rep)
			continue;
		sb_addn(sb, run, (size_t)(p - run));
		sb_add(sb, rep);
		run = p + 1;
	}
	sb_add(sb, run);
}

void tg_call_release(struct tg_call *c)
{
	if (!c)
		return;
	json_decref(c->body);
	memset(c, 0, sizeof(*c));
}

json_t *tg_chat_id(const char *chat)
{
	const char *p = chat;
	long long v = 0;
	bool neg = *p == '-';

	if (neg)
		p++;
	if (!*p || strlen(p) > 18)
		return json_string(chat);
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return json_string(chat);
		v = v * 10 + (*p - '0');
	}
	return json_integer(neg ? -v : v);
}

static json_t *keyboard(const json_t *buttons, int64_t table, int turn, bool inline_mode);

json_t *tg_keyboard(const json_t *buttons, int64_t table, int turn)
{
	return keyboard(buttons, table, turn, true);
}

static json_t *keyboard(const json_t *buttons, int64_t table, int turn, bool inline_mode)
{
	json_t *rows = json_array(), *row, *b, *kb;
	size_t i, k;

	json_array_foreach(buttons, i, row) {
		json_t *out = json_array();

		json_array_foreach(row, k, b) {
			const char *label = json_string_value(json_object_get(b, "label"));
			const char *cmd = json_string_value(json_object_get(b, "cmd"));
			const char *query = json_string_value(json_object_get(b, "inline"));
			char data[TG_CALLBACK_MAX + 1];
			json_t *btn;

			if (label && query && !inline_mode && cmd) {
				/* no inline mode: the press sends the hand to the presser's private chat */
				struct strbuf dm = { 0 };

				sb_addf(&dm, "%s %s", cmd, TG_MY_CARDS);
				if (tg_callback_encode(table, turn, sb_str(&dm), data, sizeof(data))) {
					sb_release(&dm);
					continue;
				}
				sb_release(&dm);
				btn = json_object();
				json_object_set_new(btn, "text", json_string(label));
				json_object_set_new(btn, "callback_data", json_string(data));
				json_array_append_new(out, btn);
				continue;
			}
			if (label && query) {
				/* inline mode in this chat: the presser's own choices, seen by them alone */
				btn = json_object();
				json_object_set_new(btn, "text", json_string(label));
				json_object_set_new(btn, "switch_inline_query_current_chat", json_string(query));
				json_array_append_new(out, btn);
				continue;
			}
			if (!label || tg_callback_encode(table, turn, cmd, data, sizeof(data)))
				continue; /* a command too long for callback_data cannot be a button */
			btn = json_object();
			json_object_set_new(btn, "text", json_string(label));
			json_object_set_new(btn, "callback_data", json_string(data));
			json_array_append_new(out, btn);
		}
		if (json_array_size(out))
			json_array_append_new(rows, out);
		else
			json_decref(out);
	}
	if (!json_array_size(rows)) {
		json_decref(rows);
		return NULL;
	}
	kb = json_object();
	json_object_set_new(kb, "inline_keyboard", rows);
	return kb;
}

/*
 * The message text: in <pre> for boards and hands (their columns line up),
 * escaped for HTML, cut to what Telegram accepts (the limit counts the text
 * after entities, so it is measured before escaping).
 */
static char *message_text(const char *text, bool pre)
{
	struct strbuf sb = { 0 }, cut = { 0 };
	size_t keep = utf8_cut_utf16(text, TG_TEXT_MAX);

	if (text[keep]) {
		keep = utf8_cut_utf16(text, TG_TEXT_MAX - 1);
		sb_addn(&cut, text, keep);
		sb_add(&cut, "…");
		text = sb_str(&cut);
	}
	if (pre)
		sb_add(&sb, "<pre>");
	tg_html_escape(&sb, text);
	if (pre)
		sb_add(&sb, "</pre>");
	sb_release(&cut);
	return sb_detach(&sb);
}

/* sendMessage's body for a place (bot.h): its chat, and its topic as message_thread_id. */
json_t *tg_send_body(const char *place, const char *text, bool pre)
{
	json_t *body = json_object();
	char *html = message_text(text, pre), chat[STORE_ID_LEN];
	const char *thread = place_thread(place);

	json_object_set_new(body, "chat_id", tg_chat_id(place_chat(place, chat, sizeof(chat))));
	if (thread[0])
		json_object_set_new(body, "message_thread_id", tg_chat_id(thread));
	json_object_set_new(body, "text", json_string(html ? html : ""));
	json_object_set_new(body, "parse_mode", json_string("HTML"));
	free(html);
	return body;
}

static json_t *answer_body(const char *reply, const char *text)
{
	json_t *body = json_object();

	json_object_set_new(body, "callback_query_id", json_string(reply));
	if (text && text[0]) {
		struct strbuf sb = { 0 };
		size_t keep = utf8_cut_utf16(text, TG_ALERT_MAX);

		if (text[keep]) {
			keep = utf8_cut_utf16(text, TG_ALERT_MAX - 1);
			sb_addn(&sb, text, keep);
			sb_add(&sb, "…");
		} else {
			sb_add(&sb, text);
		}
		json_object_set_new(body, "text", json_string(sb_str(&sb)));
		json_object_set_new(body, "show_alert", json_true());
		sb_release(&sb);
	}
	return body;
}

int tg_render(const json_t *view, const char *chat, const char *message_id, struct tg_call *out)
{
	return tg_render_mode(view, chat, message_id, true, out);
}

int tg_render_mode(const json_t *view, const char *chat, const char *message_id, bool inline_mode,
		   struct tg_call *out)
{
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *text = json_string_value(json_object_get(view, "text"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *reply = json_string_value(json_object_get(view, "reply"));
	int64_t table = json_integer_value(json_object_get(view, "table"));
	int turn = (int)json_integer_value(json_object_get(view, "turn"));
	/* a table is drawn in monospace; a queue message (also edited in place) is prose */
	bool pre = kind && strcmp(kind, "table") == 0 && !json_is_true(json_object_get(view, "queue"));
	json_t *kb;
	int rc = GB_OK;

	memset(out, 0, sizeof(*out));
	if (!text)
		text = "";
	if (reply && !reply[0])
		reply = NULL;
	if (!kind) {
		rc = GB_EPARSE;
		goto out;
	}
	if (strcmp(kind, "ack") == 0 || (strcmp(kind, "alert") == 0 && reply) ||
	    (strcmp(kind, "private") == 0 && reply)) {
		/* a button press: its answer is an alert (a refusal, or the hand) or a plain ack */
		if (!reply)
			goto out;
		snprintf(out->method, sizeof(out->method), "answerCallbackQuery");
		out->body = answer_body(reply, strcmp(kind, "ack") ? text : NULL);
		goto out;
	}
	if (strcmp(kind, "table") == 0 && message_id && message_id[0]) {
		snprintf(out->method, sizeof(out->method), "editMessageText");
		place_chat(chat, out->chat, sizeof(out->chat));
		out->body = tg_send_body(chat, text, pre);
		/* a message is found by its chat and id; an edit takes no topic */
		json_object_del(out->body, "message_thread_id");
		json_object_set_new(out->body, "message_id", tg_chat_id(message_id));
	} else if (strcmp(kind, "alert") == 0 && json_is_true(json_object_get(view, "secret")) && user &&
		   user[0]) {
		/* it tells of a hand: to the user's private chat, never the group (a cover line says it went) */
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", user);
		out->body = tg_send_body(user, text, false);
	} else if (strcmp(kind, "table") == 0 || strcmp(kind, "public") == 0 ||
		   strcmp(kind, "alert") == 0) {
		snprintf(out->method, sizeof(out->method), "sendMessage");
		/* paced per chat: Telegram's limits count a forum's topics together */
		place_chat(chat, out->chat, sizeof(out->chat));
		out->body = tg_send_body(chat, text, pre);
	} else if (strcmp(kind, "private") == 0 && user && user[0]) {
		/* a user's private chat with the bot has the user's id */
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", user);
		out->body = tg_send_body(user, text, true);
	} else {
		rc = GB_EPARSE;
		goto out;
	}
	kb = keyboard(json_object_get(view, "buttons"), table, turn, inline_mode);
	if (kb)
		json_object_set_new(out->body, "reply_markup", kb);
	else if (strcmp(out->method, "editMessageText") == 0)
		/* an edit without markup would keep the old buttons: clear them */
		json_object_set_new(out->body, "reply_markup",
				    json_pack("{s[]}", "inline_keyboard"));
out:
	if (!rc && out->method[0] && !out->body)
		rc = GB_ENOMEM;
	if (rc)
		tg_call_release(out);
	return rc;
}
