/*
 * telegram.c - see telegram.h. The file reads top to bottom as the data
 * flows: updates in (pure), reply views out (pure), pacing (pure, behind a
 * mutex).
 */
#include "telegram.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "adapters/adapter.h"
#include "bot/commands/choices.h"
#include "bot/commands.h"
#include "bot/lang/i18n.h"
#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "games/strbuf.h"
#include "games/utf8.h"

/* ---- updates in ---- */

/* An id field (Telegram sends integers) as text into buf; false when missing. */
static bool id_text(const json_t *v, char *buf, size_t n)
{
	if (json_is_integer(v)) {
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
		return true;
	}
	if (json_is_string(v) && json_string_length(v) > 0) {
		const char *s = json_string_value(v);

		utf8_copy(buf, n, s, strlen(s));
		return true;
	}
	buf[0] = '\0';
	return false;
}

static void str_field(const json_t *obj, const char *key, char *buf, size_t n)
{
	const char *s = json_string_value(json_object_get(obj, key));

	if (!s)
		s = "";
	utf8_copy(buf, n, s, strlen(s));
}

/* The sender: user id and display name ("first last", else @username). */
static bool read_from(const json_t *from, struct command *cmd)
{
	const char *first = json_string_value(json_object_get(from, "first_name"));
	const char *last = json_string_value(json_object_get(from, "last_name"));
	const char *uname = json_string_value(json_object_get(from, "username"));
	char name[STORE_NAME_LEN * 2];

	if (!id_text(json_object_get(from, "id"), cmd->user, sizeof(cmd->user)))
		return false;
	if (first && last)
		snprintf(name, sizeof(name), "%s %s", first, last);
	else if (first || uname)
		snprintf(name, sizeof(name), "%s", first ? first : uname);
	else
		snprintf(name, sizeof(name), "%s", cmd->user);
	utf8_copy(cmd->user_name, sizeof(cmd->user_name), name, strlen(name));
	return true;
}

/* Username characters (letters, digits, underscore): what may follow the "@" of a command. */
static bool name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/*
 * "/verb@name rest": whom is the command for? 1 us by name, -1 another
 * bot, 0 nobody named (whoever reads it). Without our own username
 * known, any name is taken as ours.
 */
static int addressee(const char *text, const char *bot_username)
{
	const char *at = text + 1, *end;
	size_t n;

	while (name_char(*at))
		at++;
	if (*at != '@')
		return 0;
	if (!bot_username || !bot_username[0])
		return 1;
	end = ++at;
	while (name_char(*end))
		end++;
	n = (size_t)(end - at);
	return n == strlen(bot_username) && strncasecmp(at, bot_username, n) == 0 ? 1 : -1;
}

/*
 * A forwarded message (Bot API 7.0 forward_origin, or the older fields):
 * someone else's words shown again, never a command of the one who
 * forwards them. A channel post copied into its discussion group is one too.
 */
static bool forwarded(const json_t *msg)
{
	static const char *const keys[] = { "forward_origin", "forward_from", "forward_from_chat",
					    "forward_sender_name", "forward_date", "is_automatic_forward" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v = json_object_get(msg, keys[i]);

		if (v && !json_is_null(v) && !json_is_false(v))
			return true;
	}
	return false;
}

/*
 * Sent on behalf of a chat (sender_chat): the group itself (an anonymous
 * admin: Telegram shows the group's name, "from" is GroupAnonymousBot,
 * the same for every admin) or a channel. Either is one identity for
 * several people; only the group itself administers the group.
 */
static void read_sender_chat(const json_t *msg, struct tg_update *u)
{
	const json_t *sc = json_object_get(msg, "sender_chat");
	const char *title = json_string_value(json_object_get(sc, "title"));
	char id[STORE_ID_LEN], group[STORE_ID_LEN];

	if (!json_is_object(sc))
		return;
	u->cmd.anonymous = true;
	/* in a forum topic too, the group is the chat without its topic */
	u->as_group = id_text(json_object_get(sc, "id"), id, sizeof(id)) &&
		      strcmp(id, place_chat(u->cmd.chat, group, sizeof(group))) == 0;
	if (title && title[0])
		utf8_copy(u->cmd.user_name, sizeof(u->cmd.user_name), title, strlen(title));
}

/*
 * The place a message was said in (bot.h): its chat, and in a forum group
 * the topic, "CHAT#THREAD". A message of a forum's General topic, and a
 * reply thread of an ordinary group (which carries message_thread_id too),
 * are the chat itself. False when the message names no chat.
 */
static bool read_place(const json_t *msg, char *buf, size_t n)
{
	const json_t *chat = json_object_get(msg, "chat");
	const json_t *thread = json_object_get(msg, "message_thread_id");
	size_t len;

	if (!id_text(json_object_get(chat, "id"), buf, n))
		return false;
	len = strlen(buf);
	if (json_is_true(json_object_get(chat, "is_forum")) &&
	    json_is_true(json_object_get(msg, "is_topic_message")) && json_is_integer(thread) &&
	    json_integer_value(thread) > 0 && len + 22 < n)
		snprintf(buf + len, n - len, "%c%lld", PLACE_SEP,
			 (long long)json_integer_value(thread));
	return true;
}

static void read_message(const json_t *msg, const char *bot_username, struct tg_update *u)
{
	const json_t *chat = json_object_get(msg, "chat");
	const json_t *tv = json_object_get(msg, "text");
	const char *text = json_string_value(tv);
	int to;

	str_field(chat, "type", u->chat_type, sizeof(u->chat_type));
	if (!read_place(msg, u->cmd.chat, sizeof(u->cmd.chat)))
		return;
	if (json_object_get(msg, "migrate_to_chat_id")) {
		/* a group, never a topic, becomes a supergroup */
		place_chat(u->cmd.chat, u->cmd.chat, sizeof(u->cmd.chat));
		if (id_text(json_object_get(msg, "migrate_to_chat_id"), u->migrate_to,
			    sizeof(u->migrate_to)))
			u->kind = TG_MIGRATE;
		return;
	}
	/* a text holding a NUL is not one anybody typed */
	if (!text || text[0] != '/' || strlen(text) != json_string_length(tv) || forwarded(msg))
		return;
	to = addressee(text, bot_username);
	if (to < 0 || !read_from(json_object_get(msg, "from"), &u->cmd))
		return;
	if (command_parse_text(&u->cmd, text))
		return;
	u->cmd.unaddressed = to == 0 && strcmp(u->chat_type, "private") != 0;
	read_sender_chat(msg, u);
	u->kind = TG_COMMAND;
}

/* A button's data into the command; unreadable data is kept as a forged press. */
static void read_button(const char *data, struct tg_update *u)
{
	char cmd[TG_CALLBACK_MAX + 2];

	if (!data || tg_callback_decode(data, &u->button_table, &u->button_turn, cmd, sizeof(cmd)) ||
	    command_parse_text(&u->cmd, cmd)) {
		/* the router refuses a press for no table of this chat, changing nothing */
		u->button_table = -1;
		u->button_turn = -1;
		snprintf(u->cmd.verb, sizeof(u->cmd.verb), "board");
		u->cmd.args[0] = '\0';
	}
}

static void read_callback(const json_t *cq, struct tg_update *u)
{
	const json_t *msg = json_object_get(cq, "message");
	const json_t *chat = json_object_get(msg, "chat");

	str_field(chat, "type", u->chat_type, sizeof(u->chat_type));
	str_field(cq, "id", u->reply, sizeof(u->reply));
	if (u->reply[0] && !json_is_object(msg) && read_from(json_object_get(cq, "from"), &u->cmd)) {
		/*
		 * A button on a message sent in inline mode: in no chat, so it
		 * may act on the presser's own seat alone (the router's rule);
		 * answered from their private chat with the bot (its id is theirs).
		 */
		str_field(json_object_get(cq, "from"), "language_code", u->lang, sizeof(u->lang));
		snprintf(u->cmd.chat, sizeof(u->cmd.chat), "%s", u->cmd.user);
		u->cmd.no_place = true;
		u->button = true;
		read_button(json_string_value(json_object_get(cq, "data")), u);
		u->kind = TG_ELSEWHERE_PRESS;
		return;
	}
	if (!u->reply[0] || !read_place(msg, u->cmd.chat, sizeof(u->cmd.chat)) ||
	    !read_from(json_object_get(cq, "from"), &u->cmd))
		return;
	u->button = true;
	read_button(json_string_value(json_object_get(cq, "data")), u);
	if (json_is_integer(json_object_get(msg, "message_id")))
		snprintf(u->cmd.button_message, sizeof(u->cmd.button_message), "%lld",
			 (long long)json_integer_value(json_object_get(msg, "message_id")));
	u->kind = TG_COMMAND;
}

int tg_update_parse(const char *json, size_t len, const char *bot_username, int64_t now_ms,
		    struct tg_update *u)
{
	json_error_t jerr;
	/* a string may hold \u0000: the update is still well formed, whatever it says */
	json_t *root = json_loadb(json, len, JSON_ALLOW_NUL, &jerr), *v;
	int rc = GB_OK;

	memset(u, 0, sizeof(*u));
	u->button_table = 0;
	if (!json_is_object(root)) {
		rc = GB_EPARSE;
		goto out;
	}
	/* without an update id it cannot be told from a repeat: not used */
	if (!json_is_integer(json_object_get(root, "update_id")))
		goto out;
	u->update_id = json_integer_value(json_object_get(root, "update_id"));
	snprintf(u->cmd.platform, sizeof(u->cmd.platform), "telegram");
	snprintf(u->cmd.update_id, sizeof(u->cmd.update_id), "%lld", u->update_id);
	u->cmd.now_ms = now_ms;

	v = json_object_get(root, "message");
	if (json_is_object(v)) {
		read_message(v, bot_username, u);
		goto out;
	}
	v = json_object_get(root, "callback_query");
	if (json_is_object(v)) {
		read_callback(v, u);
		goto out;
	}
	v = json_object_get(root, "inline_query");
	if (json_is_object(v)) {
		str_field(v, "id", u->query_id, sizeof(u->query_id));
		str_field(v, "query", u->query, sizeof(u->query));
		str_field(v, "chat_type", u->chat_type, sizeof(u->chat_type));
		if (u->query_id[0] && read_from(json_object_get(v, "from"), &u->cmd))
			u->kind = TG_INLINE_QUERY;
		goto out;
	}
	v = json_object_get(root, "chosen_inline_result");
	if (json_is_object(v)) {
		const char *id = json_string_value(json_object_get(v, "result_id"));
		char cmd[TG_CALLBACK_MAX + 2];

		if (id && read_from(json_object_get(v, "from"), &u->cmd) &&
		    !tg_callback_decode(id, &u->button_table, &u->button_turn, cmd, sizeof(cmd)) &&
		    !command_parse_text(&u->cmd, cmd)) {
			/* picked in no chat: the router takes a move of the picker's own seat to its table */
			snprintf(u->cmd.chat, sizeof(u->cmd.chat), "%s", u->cmd.user);
			u->cmd.no_place = true;
			u->kind = TG_CHOSEN;
		}
		goto out;
	}
	v = json_object_get(root, "my_chat_member");
	if (json_is_object(v)) {
		const json_t *chat = json_object_get(v, "chat");

		str_field(chat, "type", u->chat_type, sizeof(u->chat_type));
		str_field(json_object_get(v, "new_chat_member"), "status", u->member_status,
			  sizeof(u->member_status));
		if (id_text(json_object_get(chat, "id"), u->cmd.chat, sizeof(u->cmd.chat)) &&
		    u->member_status[0])
			u->kind = TG_MEMBER;
		goto out;
	}
	/* edited messages, channel posts, polls, chat_member, ...: acknowledged and ignored */
out:
	if (rc == GB_OK && u->kind == TG_IGNORE)
		u->cmd.verb[0] = '\0';
	json_decref(root);
	return rc;
}

/* ---- callback data ---- */

int tg_callback_encode(int64_t table, int turn, const char *cmd, char *buf, size_t cap)
{
	return button_data_encode(table, turn, cmd, TG_CALLBACK_MAX, buf, cap);
}

int tg_callback_decode(const char *data, int64_t *table, int *turn, char *cmd, size_t cap)
{
	const char *rest;
	int64_t t;
	int n;
	size_t len;

	if (button_data_decode(data, TG_CALLBACK_MAX, &t, &n, &rest))
		return GB_EPARSE;
	len = strlen(rest);
	if (len + 2 > cap)
		return GB_EPARSE;
	cmd[0] = '/';
	memcpy(cmd + 1, rest, len + 1);
	*table = t;
	*turn = n;
	return GB_OK;
}

/* ---- reply views out ---- */

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
static json_t *send_body(const char *place, const char *text, bool pre)
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
		out->body = send_body(chat, text, pre);
		/* a message is found by its chat and id; an edit takes no topic */
		json_object_del(out->body, "message_thread_id");
		json_object_set_new(out->body, "message_id", tg_chat_id(message_id));
	} else if (strcmp(kind, "alert") == 0 && json_is_true(json_object_get(view, "secret")) && user &&
		   user[0]) {
		/* it tells of a hand: to the user's private chat, never the group (a cover line says it went) */
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", user);
		out->body = send_body(user, text, false);
	} else if (strcmp(kind, "table") == 0 || strcmp(kind, "public") == 0 ||
		   strcmp(kind, "alert") == 0) {
		snprintf(out->method, sizeof(out->method), "sendMessage");
		/* paced per chat: Telegram's limits count a forum's topics together */
		place_chat(chat, out->chat, sizeof(out->chat));
		out->body = send_body(chat, text, pre);
	} else if (strcmp(kind, "private") == 0 && user && user[0]) {
		/* a user's private chat with the bot has the user's id */
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", user);
		out->body = send_body(user, text, true);
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

/* ---- pacing ---- */

/*
 * The budget of a group is spent as a rate, not as a window: a burst of
 * PACE_GROUP_BURST, then one message every PACE_GROUP_MS (a generic cell
 * rate: `due` is when the bucket is empty again). Sending twenty at once
 * and then nothing for the rest of the minute would freeze a table for
 * half a minute; at this rate a board is edited every few seconds while
 * people play. BURST + 60000 / GROUP_MS stays under 20 in any minute with
 * room for the time a call takes to reach Telegram, and the ring of the
 * last twenty sends is kept as the hard limit all the same. The chat's
 * second and the overall second carry the same room.
 *
 * The rate is the boards': a group's other messages (a line saying who
 * won, who left) go in the room the boards leave in the minute, without
 * moving the boards' next step, while the minute has that room for them
 * and for every board to come (group_spare()); past it a line spends a
 * step as a board does.
 *
 * Overall, the thirty a second are spent evenly too: after a burst (an
 * idle service sends up to thirty at once), one message every
 * PACE_ALL_STEP_MS, so that the chats waiting share a steady stream in
 * the order they are handed over, rather than thirty at once and then
 * every chat waiting out the rest of the second.
 */
/*
 * Groups whose sends still count (the last minute's): at most 1,800 under
 * Telegram's 30 a second overall, so about a fifth of the slots however
 * many groups there are (about 400 bytes a slot, its tables' turns
 * included); a slot idle longer is reused.
 */
#define PACE_SLOTS 8192
#define PACE_PROBE 64
#define PACE_GROUP_N 20         /* messages a minute in a group: Telegram's limit */
#define PACE_GROUP_BURST 3      /* sent at once after a quiet spell */
#define PACE_GROUP_MS 3600      /* then one every this many ms: 3 + 16 a minute */
#define PACE_CHAT_MS 1100       /* about one message a second in a chat */
#define PACE_ALL_N 30           /* messages a second overall */
#define PACE_ALL_MS 1050        /* the overall second, with room */
#define PACE_ALL_STEP_MS 36     /* overall, after a burst: one every this many ms (27.8 a second) */
#define PACE_KEY_LEN 32
#define PACE_TOPICS 8           /* a group's tables (forum topics) its steps go round */
#define PACE_TURN_MS 250        /* a table whose turn it is not comes back this much later */
#define PACE_BACK_MS 1500       /* a table told to wait still waits this long past the wait */

/*
 * A table of a group (its topic; 0 in a group without topics) that asked
 * for a step: the group's steps go round its tables, to the one served
 * longest ago among those waiting, so two busy tables in one forum share
 * the group's twenty a minute evenly instead of one taking two or three
 * steps in a row while the other's board waits.
 */
struct pace_topic {
	int64_t thread;             /* the topic's thread id; 0 the group itself */
	int64_t served;             /* when it last had a step (0 never) */
	int64_t until;              /* waiting for a step until then (0 not waiting) */
};

struct pace_chat {
	char chat[PACE_KEY_LEN];    /* the group (a topic's chat up to its '#'), or the user */
	int64_t sent[PACE_GROUP_N]; /* ring of the last sends */
	int next;
	int64_t last;
	int64_t due;                /* the boards' rate's theoretical next send */
	struct pace_topic topics[PACE_TOPICS];
};

struct tg_pace {
	pthread_mutex_t lock;
	struct pace_chat chats[PACE_SLOTS];
	int64_t all[PACE_ALL_N];
	int all_next;
	int64_t all_due;            /* the overall rate's theoretical next send */
};

struct tg_pace *tg_pace_new(void)
{
	struct tg_pace *p = calloc(1, sizeof(*p));

	if (p)
		pthread_mutex_init(&p->lock, NULL);
	return p;
}

void tg_pace_free(struct tg_pace *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The chat's slot: its own, else a free one, else the one idle longest. Lock held. */
static struct pace_chat *pace_slot(struct tg_pace *p, const char *chat)
{
	uint32_t h = hash(chat);
	struct pace_chat *empty = NULL, *lru = NULL, *c;

	for (int i = 0; i < PACE_PROBE; i++) {
		c = &p->chats[(h + (uint32_t)i) % PACE_SLOTS];
		if (strcmp(c->chat, chat) == 0)
			return c;
		if (!c->chat[0]) {
			if (!empty)
				empty = c;
		} else if (!lru || c->last < lru->last) {
			lru = c;
		}
	}
	c = empty ? empty : lru;
	memset(c, 0, sizeof(*c));
	snprintf(c->chat, sizeof(c->chat), "%s", chat);
	return c;
}

/* How long a group must wait for its minute's hard limit at now_ms (0: none). Lock held. */
static int64_t minute_wait(const struct pace_chat *c, int64_t now_ms)
{
	int64_t oldest = c->sent[c->next];

	return oldest && now_ms - oldest < 60000 ? 60000 - (now_ms - oldest) : 0;
}

/* How long a group must wait for its boards' rate at now_ms (0: it may send). Lock held. */
static int64_t group_wait(const struct pace_chat *c, int64_t now_ms)
{
	int64_t wait = 0, hard = minute_wait(c, now_ms);

	if (c->due - now_ms > (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS)
		wait = c->due - now_ms - (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS;
	return hard > wait ? hard : wait;
}

/*
 * May a line go now aside the boards' steps? Only if every board the
 * boards' rate may send in the minute to come (each at its earliest: its
 * step, and a chat's second after the one before, the line first) still
 * finds room in the group's twenty with the line counted: a line never
 * holds a board back, and many lines do not fill the minute. Lock held.
 */
static bool group_spare(const struct pace_chat *c, int64_t now_ms)
{
	int64_t due = c->due, at = now_ms;

	for (int k = 1; k <= PACE_GROUP_N; k++) {
		int64_t ready = due - (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS;
		int recent = 0;

		at = at + PACE_CHAT_MS > ready ? at + PACE_CHAT_MS : ready;
		if (at - now_ms >= 60000)
			break;
		due = (due > at ? due : at) + PACE_GROUP_MS;
		for (int i = 0; i < PACE_GROUP_N; i++)
			if (c->sent[i] && at - c->sent[i] < 60000)
				recent++;
		if (recent + 1 + k > PACE_GROUP_N)
			return false;
	}
	return true;
}

/*
 * How long the next message must wait for the overall limit at now_ms (0:
 * none). Lock held. When the second's thirty are spent (a burst), the
 * rate's bucket is emptied as well: after the wait the stream goes on at
 * one message a step, not with another burst saved up during the wait.
 */
static int64_t all_wait(struct tg_pace *p, int64_t now_ms)
{
	int64_t oldest = p->all[p->all_next], wait = 0, room = (int64_t)(PACE_ALL_N - 1) * PACE_ALL_STEP_MS;

	if (oldest && now_ms - oldest < PACE_ALL_MS) {
		wait = PACE_ALL_MS - (now_ms - oldest);
		if (p->all_due < now_ms + wait + room)
			p->all_due = now_ms + wait + room;
		return wait;
	}
	return p->all_due - now_ms > room ? p->all_due - now_ms - room : 0;
}

/* A forum topic ("GROUP#THREAD") spends its group's budget: the group's key into key. */
static void pace_key(const char *chat, char key[PACE_KEY_LEN])
{
	size_t len = strcspn(chat, "#");

	snprintf(key, PACE_KEY_LEN, "%.*s", (int)(len < PACE_KEY_LEN ? len : PACE_KEY_LEN - 1), chat);
}

/*
 * The topic of thread among the group's tables, taking the place of one
 * not waiting (served longest ago) when it has none yet. Lock held.
 */
static struct pace_topic *pace_topic(struct pace_chat *c, int64_t thread, int64_t now_ms)
{
	struct pace_topic *t = NULL;

	for (int i = 0; i < PACE_TOPICS; i++) {
		struct pace_topic *k = &c->topics[i];

		if (k->thread == thread && (k->until || k->served))
			return k;
		if (k->until > now_ms)
			continue;
		if (!t || k->served < t->served)
			t = k;
	}
	if (!t)
		t = &c->topics[0]; /* more tables waiting than places: they share one */
	*t = (struct pace_topic){ .thread = thread };
	return t;
}

/*
 * Is it mine's turn for the group's step at now_ms: is no other table
 * waiting that was served before it? Lock held.
 */
static bool pace_turn(const struct pace_chat *c, const struct pace_topic *mine, int64_t now_ms)
{
	for (int i = 0; i < PACE_TOPICS; i++) {
		const struct pace_topic *k = &c->topics[i];

		if (k != mine && k->until > now_ms && k->served < mine->served)
			return false;
	}
	return true;
}

/* The thread of a topic's chat ("GROUP#THREAD"), 0 for a whole chat. */
static int64_t pace_thread(const char *chat)
{
	const char *sep = strchr(chat, '#');

	return sep ? strtoll(sep + 1, NULL, 10) : 0;
}

static int64_t pace_take(struct tg_pace *p, const char *chat, bool line, int64_t now_ms,
			 bool *global)
{
	struct pace_chat *c;
	struct pace_topic *topic = NULL;
	int64_t wait = 0;
	char key[PACE_KEY_LEN];
	bool group = chat[0] == '-', aside = false;

	pace_key(chat, key);
	*global = false;
	pthread_mutex_lock(&p->lock);
	c = pace_slot(p, key);
	if (group && !line) {
		/* a board: its table waits its turn among the group's tables */
		topic = pace_topic(c, pace_thread(chat), now_ms);
		if (topic->until < now_ms + PACE_BACK_MS)
			topic->until = now_ms + PACE_BACK_MS;
	}
	if (c->last && now_ms - c->last < PACE_CHAT_MS) {
		wait = PACE_CHAT_MS - (now_ms - c->last);
		goto out;
	}
	if (group) {
		aside = line && group_spare(c, now_ms);
		wait = aside ? minute_wait(c, now_ms) : group_wait(c, now_ms);
		if (!wait && topic && !pace_turn(c, topic, now_ms))
			wait = PACE_TURN_MS;
		if (wait)
			goto out;
	}
	wait = all_wait(p, now_ms);
	if (wait) {
		*global = true;
		goto out;
	}
	c->sent[c->next] = now_ms;
	c->next = (c->next + 1) % PACE_GROUP_N;
	c->last = now_ms;
	if (!aside)
		c->due = (c->due > now_ms ? c->due : now_ms) + PACE_GROUP_MS;
	if (topic) {
		topic->served = now_ms;
		topic->until = 0;
	}
	p->all[p->all_next] = now_ms;
	p->all_next = (p->all_next + 1) % PACE_ALL_N;
	p->all_due = (p->all_due > now_ms ? p->all_due : now_ms) + PACE_ALL_STEP_MS;
out:
	if (topic && wait > 0 && topic->until < now_ms + wait + PACE_BACK_MS)
		topic->until = now_ms + wait + PACE_BACK_MS;
	pthread_mutex_unlock(&p->lock);
	return wait;
}

int64_t tg_pace_take(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global)
{
	return pace_take(p, chat, false, now_ms, global);
}

int64_t tg_pace_take_line(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global)
{
	return pace_take(p, chat, true, now_ms, global);
}

void tg_pace_sent(struct tg_pace *p, const char *chat, int64_t taken_ms, int64_t done_ms)
{
	struct pace_chat *c;
	char key[PACE_KEY_LEN];
	int i;

	if (!p || done_ms <= taken_ms)
		return;
	pace_key(chat, key);
	pthread_mutex_lock(&p->lock);
	c = pace_slot(p, key);
	i = (c->next + PACE_GROUP_N - 1) % PACE_GROUP_N;
	if (c->sent[i] == taken_ms)
		c->sent[i] = done_ms;
	if (c->last == taken_ms)
		c->last = done_ms;
	/* the newest of the overall ring with that time (equal times are alike) */
	for (int k = 1; k <= PACE_ALL_N; k++) {
		i = (p->all_next + PACE_ALL_N - k) % PACE_ALL_N;
		if (p->all[i] == taken_ms) {
			p->all[i] = done_ms;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

/* ---- the Bot API over HTTP ---- */

#define TG_CALL_TIMEOUT_S 10L   /* one API call (not a long poll) */
/*
 * A new message from the outbox (sendMessage) waits for Telegram's answer
 * as long as the row's lease allows (adapter_call_ms()), not
 * TG_CALL_TIMEOUT_S: Telegram posts it however late it answers, and a
 * call that gives up first leaves the message in doubt (unsettled()).
 */
#define TG_SEND_TIMEOUT_S 60L
#define TG_POLL_S 25            /* long-poll wait asked of getUpdates */
#define ADMIN_SLOTS 16384        /* rights of a person in a group, 144 bytes each */
#define ADMIN_TTL_MS (5 * 60 * 1000)
/* a failed getChatMember is remembered too, briefly: a flood must not become a flood of calls */
#define ADMIN_FAIL_TTL_MS (30 * 1000)
/*
 * Calls made on a listener thread while the update waits (inline answers,
 * rights): a platform that is slow to answer must not hold the thread for
 * a full TG_CALL_TIMEOUT_S.
 */
#define TG_LISTENER_TIMEOUT_S 3L
#define TG_ANSWERING 64         /* presses answered at once, for answer_press()'s own bookkeeping */

/* The update types the bot reads: webhook and polling ask for the same. */
static const char *const allowed_updates[] = {
	"message", "callback_query", "inline_query", "chosen_inline_result", "my_chat_member",
};

struct admin_entry {
	char chat[STORE_ID_LEN];
	char user[STORE_ID_LEN];
	bool admin;
	int64_t until_ms;
};

struct telegram {
	struct adapter_env env;            /* a copy: what it points to outlives the adapter */
	char api[CONFIG_VALUE_LEN];        /* base URL without a trailing slash */
	char token[CONFIG_VALUE_LEN];      /* never logged: it is in every URL */
	char secret[CONFIG_VALUE_LEN];
	bool webhook;
	struct tg_pace *pace;              /* NULL: pacing switched off (tests, benchmarks) */

	pthread_mutex_t lock;              /* guards what follows */
	pthread_cond_t wake;               /* the poller's pauses end early at stop */
	char username[64];                 /* the bot's own, from getMe; "" until known */
	bool no_inline;                    /* getMe said supports_inline_queries false (BotFather's /setinline not done) */
	int64_t username_tried_ms;
	struct admin_entry admins[ADMIN_SLOTS];
	char answering[TG_ANSWERING][CMD_REPLY_LEN]; /* presses being answered now ("" free) */
	bool stop;

	pthread_t poller;
	bool polling;
	atomic_int abort_poll;             /* read by curl's progress callback on the poller */
};

/* What one API call came back with. */
struct tg_result {
	int transport;                     /* CURLcode: 0 when a response arrived */
	long status;                       /* HTTP status */
	bool ok;                           /* the body said "ok": true */
	json_t *result;                    /* its "result" (owned) */
	char description[160];
	int64_t retry_after;               /* seconds, with 429 */
	char migrate_to[32];               /* with 400 when a group became a supergroup */
	bool no_connection;                /* transport: no connection could be made at all */
	bool not_made;                     /* no time left before the delivery's deadline: no call made */
	bool sent;                         /* transport: it failed after the whole request went out */
};

static void tg_result_release(struct tg_result *r)
{
	json_decref(r->result);
	memset(r, 0, sizeof(*r));
}


static int progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		    curl_off_t ulnow)
{
	const atomic_int *abort_flag = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return abort_flag && atomic_load(abort_flag);
}

/* Read an API answer (any status) into res. */
static void read_answer(const struct strbuf *sb, struct tg_result *res)
{
	json_error_t jerr;
	/* getUpdates hands over what people typed: \u0000 included */
	json_t *j = json_loadb(sb_str(sb), sb->len, JSON_ALLOW_NUL, &jerr), *params;
	const char *desc;

	res->ok = json_is_true(json_object_get(j, "ok")) && res->status == 200;
	if (res->ok)
		res->result = json_incref(json_object_get(j, "result"));
	desc = json_string_value(json_object_get(j, "description"));
	utf8_copy(res->description, sizeof(res->description), desc ? desc : "",
		  desc ? strlen(desc) : 0);
	params = json_object_get(j, "parameters");
	res->retry_after = json_integer_value(json_object_get(params, "retry_after"));
	id_text(json_object_get(params, "migrate_to_chat_id"), res->migrate_to, sizeof(res->migrate_to));
	json_decref(j);
}

/*
 * POST body (JSON) to $api/bot<token>/<method> with the calling thread's
 * handle, for timeout_s at most and never past the thread's delivery
 * deadline (adapter_call_ms(): with too little left, no call is made and
 * res says so). abort_flag (may be NULL) ends the call early when it
 * becomes non-zero. The URL holds the token: it never reaches a log line,
 * and curl's own messages (curl_easy_strerror) do not include it.
 */
static void tg_api(struct telegram *t, const char *method, const json_t *body, long timeout_s,
		   const atomic_int *abort_flag, struct tg_result *res)
{
	CURL *c = adapter_curl();
	struct curl_slist *h = NULL;
	struct strbuf url = { 0 }, in = { 0 };
	char *text = NULL;
	long timeout_ms = adapter_call_ms(timeout_s * 1000);

	memset(res, 0, sizeof(*res));
	if (!timeout_ms) {
		res->transport = CURLE_OPERATION_TIMEDOUT;
		res->not_made = true;
		return;
	}
	text = json_dumps(body, JSON_COMPACT);
	h = curl_slist_append(h, "Content-Type: application/json");
	if (!c || !text || !h) {
		res->transport = CURLE_OUT_OF_MEMORY;
		goto out;
	}
	sb_addf(&url, "%s/bot%s/%s", t->api, t->token, method);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (abort_flag) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)abort_flag);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	res->transport = (int)curl_easy_perform(c);
	res->no_connection = res->transport && adapter_no_connection(res->transport, c);
	res->sent = res->transport && adapter_request_sent(res->transport, c, strlen(text));
	if (res->transport)
		goto out;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	read_answer(&in, res);
out:
	curl_slist_free_all(h);
	/* setWebhook's body holds the webhook secret */
	if (text)
		sodium_memzero(text, strlen(text));
	free(text);
	adapter_sb_wipe(&url);
	sb_release(&in);
}

/* A short account of a failed call for logs and set-aside rows: no URL, no token. */
static void describe(const char *method, const struct tg_result *res, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	if (res->transport)
		sb_addf(&sb, "%s: %s", method, curl_easy_strerror((CURLcode)res->transport));
	else
		sb_addf(&sb, "%s: %ld %s", method, res->status, res->description);
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
}

static void tg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tg_log(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	gb_log("telegram: %s", sb_str(&sb));
	sb_release(&sb);
}

/* Learn the bot's username with getMe, at most once a minute until it is known. */
static void ensure_username(struct telegram *t)
{
	struct tg_result res;
	int64_t now = bot_now_ms();
	json_t *body;
	const char *name;

	pthread_mutex_lock(&t->lock);
	if (t->username[0] || (t->username_tried_ms && now - t->username_tried_ms < 60000)) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	t->username_tried_ms = now;
	pthread_mutex_unlock(&t->lock);
	body = json_object();
	tg_api(t, "getMe", body, TG_CALL_TIMEOUT_S, NULL, &res);
	json_decref(body);
	name = json_string_value(json_object_get(res.result, "username"));
	if (res.ok && name) {
		pthread_mutex_lock(&t->lock);
		snprintf(t->username, sizeof(t->username), "%s", name);
		/* without it, "My cards" and "type @bot" would open nothing */
		t->no_inline = !json_is_true(json_object_get(res.result, "supports_inline_queries"));
		pthread_mutex_unlock(&t->lock);
	} else {
		char why[200];

		describe("getMe", &res, why, sizeof(why));
		tg_log("cannot learn the bot's username (%s); commands for other bots are not told apart until then",
		       why);
	}
	tg_result_release(&res);
}

static void username_copy(struct telegram *t, char *buf, size_t n)
{
	pthread_mutex_lock(&t->lock);
	snprintf(buf, n, "%s", t->username);
	pthread_mutex_unlock(&t->lock);
}

/* Is the bot's inline mode on (as far as getMe has told; on until it has)? */
static bool inline_on(struct telegram *t)
{
	bool on;

	pthread_mutex_lock(&t->lock);
	on = !t->no_inline;
	pthread_mutex_unlock(&t->lock);
	return on;
}

/* ---- delivery ---- */

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
 * Whose private chat is closed, kept in the store (meta) so that it
 * outlives a restart: per user, the tables ("12,15") whose group has been
 * told once how to open it - each told copy costs the group's budget of
 * messages, so a person hears it once per table, not at every deal and
 * every /hand. "" (or none) when the chat is open, as far as is known: a
 * message of theirs in it clears the list.
 */
#define CLOSED_KEY "telegram.closed."
#define CLOSED_MAX 8            /* tables remembered per person (the newest) */
#define CLOSED_LEN (CLOSED_MAX * 21)

static void closed_key(const char *user, char *key, size_t n)
{
	snprintf(key, n, "%s%.47s", CLOSED_KEY, user);
}

/* The tables user's group was told about into buf ("" none or not known). */
static void closed_get(struct store *s, const char *user, char *buf, size_t n)
{
	char key[STORE_ID_LEN];

	closed_key(user, key, sizeof(key));
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

/* Add table to user's list (the oldest dropped past CLOSED_MAX). */
static int closed_add(struct store *s, const char *user, const char *list, int64_t table)
{
	char key[STORE_ID_LEN], value[2 * CLOSED_LEN];
	const char *p = list;
	int n = 0;

	for (const char *q = list; *q; q++)
		n += *q == ',';
	/* the list holds n + 1 tables: keep the newest CLOSED_MAX - 1 of them */
	while (*p && n + 1 >= CLOSED_MAX) {
		p = strchr(p, ',');
		p = p ? p + 1 : "";
		n--;
	}
	/* the seven kept (at most 7 * 21 bytes) and the new one always fit */
	snprintf(value, sizeof(value), "%.*s%s%lld", CLOSED_LEN, p, *p ? "," : "", (long long)table);
	closed_key(user, key, sizeof(key));
	return store_meta_set(s, key, value);
}

/* A message of user in their private chat: it is open. */
static void closed_clear(struct store *s, const char *user)
{
	char list[CLOSED_LEN + 24], key[STORE_ID_LEN];

	closed_get(s, user, list, sizeof(list));
	closed_key(user, key, sizeof(key));
	if (list[0] && store_meta_set(s, key, ""))
		tg_log("private chat of %s opened, not recorded", user);
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
	char name[STORE_NAME_LEN], bot[64], why[200], list[CLOSED_LEN + 24], group[STORE_ID_LEN];
	struct strbuf text = { 0 }, link = { 0 };
	struct tg_result res = { 0 };
	json_t *body = NULL;
	bool inline_mode = inline_on(t);
	int64_t taken = 0, wait;

	if (!table)
		table = row->table;
	/* nobody else to tell in a private chat itself; a group told already is not told again */
	if (!user || !user[0] || strcmp(place_chat(row->chat, group, sizeof(group)), user) == 0)
		goto out;
	closed_get(s, user, list, sizeof(list));
	if (closed_has(list, table))
		goto out;
	ensure_username(t);
	username_copy(t, bot, sizeof(bot));
	seat_name_of(s, table, user, name, sizeof(name));
	sb_addf(&link, "https://t.me/%s?start=hands", bot[0] ? bot : "gamebot");
	if (inline_mode)
		sb_addtr(&text, tr(lang < 0 ? LANG_EN : lang, M_TG_START_PRIVATE), name, sb_str(&link),
			 bot[0] ? bot : "gamebot");
	else
		sb_addtr(&text, tr(lang < 0 ? LANG_EN : lang, M_TG_START_PRIVATE_NO_INLINE), name,
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
	body = send_body(row->chat, sb_str(&text), false);
	tg_api(t, "sendMessage", body, TG_SEND_TIMEOUT_S, NULL, &res);
	if (taken)
		tg_pace_sent(t->pace, row->chat, taken, bot_now_ms());
	if (unsettled("sendMessage (private fallback)", &res, d))
		goto out; /* handed back, or in doubt: d says which */
	if (res.transport || res.status >= 500 || res.status == 429 || res.status == 401) {
		describe("sendMessage (private fallback)", &res, why, sizeof(why));
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
		describe("sendMessage (private fallback)", &res, why, sizeof(why));
		set_result(d, DELIVERY_GIVE_UP, 0, why);
	}
	/* told (or never to be told here): not again at this table */
	if (closed_add(s, user, list, table))
		tg_log("group %s told how to open a private chat, not recorded", row->chat);
out:
	tg_result_release(&res);
	json_decref(body);
	sb_release(&text);
	sb_release(&link);
}

/*
 * Record message as the table's message in the row's chat: the table's
 * own, or an online seat's in its private chat (a view marked "seat").
 */
/* A view marked "queue": a person's queue message, edited in place as the queue changes (no table). */
static bool queue_view(const json_t *view)
{
	return json_is_true(json_object_get(view, "queue"));
}

/*
 * A view marked "stale" too: a press on a queue message whose entry is
 * gone edits that message (the view brings its id) to say so; it is never
 * posted afresh nor recorded.
 */
static bool stale_view(const json_t *view)
{
	return queue_view(view) && json_is_true(json_object_get(view, "stale"));
}

static int set_message(struct store *s, const struct store_out *row, const json_t *view, const char *message)
{
	if (queue_view(view))
		return adapter_queue_message(s, "telegram", row->chat, message, false);
	if (json_is_true(json_object_get(view, "seat")))
		return store_view_set_message(s, row->table, "telegram", row->chat, message, NULL);
	return store_table_set_message(s, row->table, message);
}

/*
 * The table of a table row and its moves so far; its message the one in
 * the row's chat (an online seat's own, in its private chat, for a view
 * marked "seat").
 */
static int table_of_row(struct store *s, const struct store_out *row, const json_t *view,
			struct store_table *table, int *moves)
{
	int rc = store_table_get(s, row->table, table);

	if (!rc)
		rc = store_move_last(s, row->table, moves);
	if (!rc && json_is_true(json_object_get(view, "seat")))
		rc = store_view_message(s, row->table, "telegram", row->chat, table->message,
					sizeof(table->message), &(int){ 0 });
	return rc;
}

/* Did the table's message go (sendMessage): record its id, without bumping the version. */
static void record_message(struct store *s, const struct store_out *row, const json_t *view,
			   const struct tg_result *res)
{
	char id[32];
	int rc;

	if ((!row->table && !queue_view(view)) || !id_text(json_object_get(res->result, "message_id"), id, sizeof(id)))
		return;
	rc = set_message(s, row, view, id);
	if (rc && rc != GB_ENOTFOUND)
		/* posted all the same: sending it again would show the table twice */
		tg_log("table %lld: message %s posted but not recorded: %s", (long long)row->table, id,
		       gb_strerror(rc));
}

/*
 * The table moved to a new message (a repost): the old one loses its
 * buttons, so only the newest table message can be pressed. Done once,
 * not retried: a message deleted or too old to edit has nothing to press.
 */
static void strip_buttons(struct telegram *t, const char *chat, const char *message)
{
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
		describe("editMessageReplyMarkup", &res, why, sizeof(why));
		tg_log("old table message %s in chat %s keeps its buttons: %s", message, chat, why);
	}
	tg_result_release(&res);
	json_decref(body);
}

/*
 * Was the table row drawn before the table's last move (it is then not
 * sent)? A repost so overtaken leaves the move's newer board to be posted
 * afresh: the old message loses its buttons and is forgotten, so that
 * board is sent as a new message, not edited in.
 */
static bool superseded(struct telegram *t, struct store *s, const struct store_out *row,
		       const json_t *view, int moves, const char *message, struct delivery *d)
{
	int rc;

	if (json_integer_value(json_object_get(view, "turn")) >= moves)
		return false;
	if (json_is_true(json_object_get(view, "repost")) && message[0]) {
		strip_buttons(t, row->chat, message);
		rc = set_message(s, row, view, "");
		if (rc && rc != GB_ENOTFOUND)
			set_result(d, DELIVERY_RETRY, 0, gb_strerror(rc));
	}
	return true;
}

static bool says(const struct tg_result *res, const char *what)
{
	return strstr(res->description, what) != NULL;
}

/*
 * A failure of the Bot API as a whole rather than of the call: no answer
 * (refused, timed out, cut off), 5xx, or 401 (the token revoked: every
 * call gets it).
 */
static bool platform_failure(const struct tg_result *res)
{
	return res->transport || res->status >= 500 || res->status == 401;
}

/* A 403 saying the bot is no longer in the group (kicked, or it left). */
static bool removed(const struct tg_result *res)
{
	return says(res, "bot was kicked") || says(res, "bot is not a member");
}

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
	size_t len = strlen(call->chat);
	/* a message to the row's own group keeps its topic: the group's steps go round its tables */
	const char *key = strncmp(row->chat, call->chat, len) == 0 && row->chat[len] == PLACE_SEP
				  ? row->chat : call->chat;
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

/*
 * The message a table view edits, into table->message ("" posts a new
 * one): a board's as recorded with its table, the queue message's as
 * recorded with the queue entry (or, the entry gone once seated, as the
 * view brings it; an outdated one's as the view brings it, always). False
 * when the row is settled here (d): the store failed, the board was
 * superseded by a later move's, or an outdated message has no id to edit.
 */
static bool message_to_edit(struct telegram *t, struct store *s, const struct store_out *row, json_t *view,
			    struct store_table *table, struct delivery *d)
{
	const char *given;
	int rc;

	if (row->table) {
		int moves = 0;

		rc = table_of_row(s, row, view, table, &moves);
		if (rc && rc != GB_ENOTFOUND) {
			set_result(d, DELIVERY_RETRY, 0, gb_strerror(rc));
			return false;
		}
		/*
		 * Every move queues a new board: one drawn before the last
		 * move (a row re-claimed after a crash, or one claimed just
		 * before the next move) is superseded, and is not sent.
		 */
		return !superseded(t, s, row, view, moves, table->message, d);
	}
	if (!queue_view(view))
		return true;
	given = json_string_value(json_object_get(view, "message"));
	if (stale_view(view)) {
		snprintf(table->message, sizeof(table->message), "%s", given ? given : "");
		return table->message[0] != '\0';
	}
	rc = store_queue_message(s, "telegram", row->chat, table->message, sizeof(table->message), &(int){ 0 });
	if (rc) {
		set_result(d, DELIVERY_RETRY, 0, gb_strerror(rc));
		return false;
	}
	if (!table->message[0])
		snprintf(table->message, sizeof(table->message), "%s", given ? given : "");
	return true;
}

/* The time limit of a delivery's call of method: a new message waits longer (TG_SEND_TIMEOUT_S). */
static long send_limit(const char *method)
{
	return strcmp(method, "sendMessage") == 0 ? TG_SEND_TIMEOUT_S : TG_CALL_TIMEOUT_S;
}

static void deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
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
	if (is_table && !message_to_edit(t, s, row, view, &table, d))
		goto out;
	rc = tg_render_mode(view, row->chat, repost ? "" : table.message, inline_on(t), &call);
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
	if (!res.ok && res.status == 400 && stale_view(view))
		goto out; /* deleted, or too old to edit: nothing left to press on it */
	if (!res.ok && res.status == 400 && strcmp(call.method, "editMessageText") == 0 &&
	    (says(&res, "message to edit not found") || says(&res, "message can't be edited"))) {
		/* deleted, or too old to edit: post the table afresh and keep the new id */
		tg_call_release(&call);
		tg_result_release(&res);
		rc = tg_render_mode(view, row->chat, "", inline_on(t), &call);
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
	char why[200];
	int rc;

	describe(call->method, res, why, sizeof(why));
	if (res->ok) {
		if (is_table && strcmp(call->method, "sendMessage") == 0)
			record_message(s, row, view, res);
		if (repost)
			strip_buttons(t, row->chat, message);
	} else if (platform_failure(res)) {
		/* the Bot API's state, not the row's: the outbox asks getMe before it counts a try */
		set_result(d, DELIVERY_RETRY, 0, why);
		d->platform_down = true;
		d->unauthorized = res->status == 401;
	} else if (res->status == 429) {
		set_result(d, DELIVERY_WAIT, (res->retry_after > 0 ? res->retry_after : 1) * 1000, why);
	} else if (res->status == 403 && removed(res)) {
		/* the bot is out of the group: its tables stop, its rows go nowhere */
		set_result(d, DELIVERY_GIVE_UP, 0, why);
		adapter_chat_gone(&t->env, "telegram", row->chat, why);
	} else if (res->status == 400 && says(res, "message is not modified")) {
		/* the same board again (a repeat after a lost lease): already shown */
	} else if (res->migrate_to[0]) {
		/* the group became a supergroup: move the chat, and this row goes there next */
		rc = store_chat_move(s, "telegram", row->chat, res->migrate_to);
		if (rc && rc != GB_ENOTFOUND)
			set_result(d, DELIVERY_GIVE_UP, 0, why);
		else
			set_result(d, DELIVERY_WAIT, 0, "chat moved to a supergroup");
	} else if (res->status == 403 && strcmp(kind, "private") == 0) {
		private_fallback(t, s, row, view, d);
	} else if ((res->status == 403 || res->status == 400) && strcmp(kind, "alert") == 0 &&
		   json_is_true(json_object_get(view, "secret"))) {
		/* their private chat is closed: the group's cover line is all that is said */
	} else if (strcmp(call->method, "answerCallbackQuery") == 0 && res->status == 400) {
		/* too old, or answered already: the press is over, nothing left to tell */
	} else {
		set_result(d, DELIVERY_GIVE_UP, 0, why);
	}
}

/* ---- answers to presses: their own lane ---- */

#define TG_TAKE_MAX 32          /* the chat's newest rows looked through for a press's answer */
#define TG_ANSWER_HOLD_MS 15000 /* out of the workers' reach while it is being sent */
#define TG_ANSWER_TIMEOUT_S 5L  /* Telegram refuses an answer older than a few seconds anyway */

/*
 * The row of chat whose view answers the press reply (an ack, or an alert
 * or a hand shown in one) among rows[0..n-1], not in a worker's hands at
 * now: its index, or -1. *call gets the rendered answerCallbackQuery.
 */
static int find_answer(const struct store_out *rows, int n, const char *chat, const char *reply,
		       int64_t now, struct tg_call *call)
{
	int found = -1;

	for (int i = 0; i < n && found < 0; i++) {
		json_error_t jerr;
		json_t *v = json_loads(rows[i].payload ? rows[i].payload : "", 0, &jerr);
		const char *r = json_string_value(json_object_get(v, "reply"));

		if (rows[i].lease_until_ms <= now && r && strcmp(r, reply) == 0 &&
		    !tg_render(v, chat, "", call) && strcmp(call->method, "answerCallbackQuery") == 0)
			found = i;
		else
			tg_call_release(call);
		json_decref(v);
	}
	return found;
}

/*
 * A press's answer is not a chat message: it goes out now, from the thread
 * that received the press, never behind the chat's boards waiting out the
 * group's budget (Telegram shows a press unanswered within seconds as
 * failed, and refuses the late answer). Its row was committed with the
 * command; here it is put out of the workers' reach (due later than this
 * call can last) in one transaction, sent, and removed. On a failure, or a
 * crash in between, a worker sends it later: still delivered at least
 * once, and a repeat is refused by Telegram and ignored.
 */
/*
 * Mark reply as being answered by this thread: false when another thread
 * already is (the same update delivered again while its answer is on its
 * way, whose row is held but still there). *slot gets the mark, -1 when
 * every mark is taken (then it goes unmarked).
 */
static bool answering_take(struct telegram *t, const char *reply, int *slot)
{
	bool mine = true;

	*slot = -1;
	pthread_mutex_lock(&t->lock);
	for (int k = 0; k < TG_ANSWERING && mine; k++) {
		if (!strcmp(t->answering[k], reply))
			mine = false;
		else if (*slot < 0 && !t->answering[k][0])
			*slot = k;
	}
	if (mine && *slot >= 0)
		snprintf(t->answering[*slot], sizeof(t->answering[*slot]), "%s", reply);
	pthread_mutex_unlock(&t->lock);
	return mine;
}

static void answering_drop(struct telegram *t, int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&t->lock);
	t->answering[slot][0] = '\0';
	pthread_mutex_unlock(&t->lock);
}

static void answer_press(struct telegram *t, struct store *s, const char *chat, const char *reply)
{
	struct store_out rows[TG_TAKE_MAX];
	struct tg_call call = { 0 };
	struct tg_result res = { 0 };
	int64_t now = bot_now_ms();
	int n = 0, i = -1, slot = -1, rc;

	if (!answering_take(t, reply, &slot))
		return;
	rc = store_begin(s);
	if (rc)
		goto out;
	rc = store_out_chat(s, "telegram", chat, rows, TG_TAKE_MAX, &n);
	if (!rc)
		i = find_answer(rows, n, chat, reply, now, &call);
	if (!rc && i >= 0)
		rc = store_out_retry(s, rows[i].id, now + TG_ANSWER_HOLD_MS, 0);
	if (!rc)
		rc = store_commit(s);
	else
		store_rollback(s);
	if (rc || i < 0)
		goto out;
	tg_api(t, call.method, call.body, TG_ANSWER_TIMEOUT_S, NULL, &res);
	if (res.ok || res.status == 400) {
		/* answered, or too old or answered already: the press is over either way */
		rc = store_out_done(s, rows[i].id);
		metrics_inc("gamebot_deliveries_total", "platform=\"telegram\",result=\"ok\"", 1);
	} else {
		rc = store_out_retry(s, rows[i].id, now, 0);
	}
	if (rc)
		tg_log("answer to a press in chat %s: row %lld not settled (%s): a worker sends it again",
		       chat, (long long)rows[i].id, gb_strerror(rc));
out:
	answering_drop(t, slot);
	for (int k = 0; k < n; k++)
		store_out_release(&rows[k]);
	tg_result_release(&res);
	tg_call_release(&call);
}

/* ---- receiving ---- */

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
	e = &t->admins[hash(sb_str(&key)) % ADMIN_SLOTS];
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

		describe("getChatMember", &res, why, sizeof(why));
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
		describe("answerInlineQuery", &res, why, sizeof(why));
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
	char list[CLOSED_LEN + 24];

	if (!cmd->reply[0] || strcmp(cmd->verb, "hand") || strcmp(cmd->args, TG_MY_CARDS))
		return false;
	cmd->args[0] = '\0';
	closed_get(s, cmd->user, list, sizeof(list));
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
		closed_clear(b->store, cmd.user); /* they wrote here: the chat is open */
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
		answer_press(t, b->store, cmd.chat, cmd.reply);
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
static int receive(struct telegram *t, const char *body, size_t len, char *close, size_t cap)
{
	struct tg_update u;
	struct bot *b;
	char me[64];
	int rc;

	ensure_username(t);
	username_copy(t, me, sizeof(me));
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
static int admit(void *arg, const struct http_request *req)
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

static void webhook(void *arg, const struct http_request *req, struct http_response *resp)
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
	resp->status = receive(t, req->body, req->body_len, close, sizeof(close));
	if (resp->status == 200 && close[0])
		resp->body = close_body(close);
	if (!resp->body)
		resp->body = strdup(resp->status == 200 ? "{\"ok\":true}" : "{\"ok\":false}");
}

/* ---- long polling ---- */

/* Wait ms, or less when the adapter stops. Returns true when it is stopping. */
static bool pause_ms(struct telegram *t, int64_t ms)
{
	struct timespec until;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->stop)
		if (pthread_cond_timedwait(&t->wake, &t->lock, &until))
			break;
	stop = t->stop;
	pthread_mutex_unlock(&t->lock);
	return stop;
}

#define OFFSET_KEY "telegram.offset"

/*
 * The polling loop. The offset (the next update_id wanted) is kept in the
 * store after each update is handled, so a restart asks for exactly the
 * first update not yet handled: none is skipped, and one handled but not
 * yet confirmed is dropped by the bot's dedupe.
 */
static void *poll_main(void *arg)
{
	struct telegram *t = arg;
	struct bot *b = NULL;
	long long offset = 0;
	int64_t backoff = 500, wait;
	bool logged = false;
	char buf[32], why[200];

	while (!atomic_load(&t->abort_poll)) {
		struct tg_result res;
		json_t *body, *allowed, *upd;
		size_t i;
		bool failed = false;

		if (!b) {
			b = adapter_bot(&t->env);
			if (b && !store_meta_get(b->store, OFFSET_KEY, buf, sizeof(buf)))
				offset = strtoll(buf, NULL, 10);
			if (!b && pause_ms(t, 1000))
				break;
			if (!b)
				continue;
		}
		body = json_object();
		allowed = json_array();
		for (size_t k = 0; k < sizeof(allowed_updates) / sizeof(allowed_updates[0]); k++)
			json_array_append_new(allowed, json_string(allowed_updates[k]));
		json_object_set_new(body, "offset", json_integer(offset));
		json_object_set_new(body, "timeout", json_integer(TG_POLL_S));
		json_object_set_new(body, "allowed_updates", allowed);
		tg_api(t, "getUpdates", body, TG_POLL_S + 10, &t->abort_poll, &res);
		json_decref(body);
		if (atomic_load(&t->abort_poll)) {
			tg_result_release(&res);
			break;
		}
		if (!res.ok || !json_is_array(res.result)) {
			if (!logged) {
				describe("getUpdates", &res, why, sizeof(why));
				tg_log("%s; trying again", why);
				logged = true;
			}
			/* read before the release clears it: a 429 says how long to wait */
			wait = res.status == 429 && res.retry_after > 0 ? res.retry_after * 1000 : backoff;
			tg_result_release(&res);
			if (pause_ms(t, wait))
				break;
			backoff = backoff * 2 > 30000 ? 30000 : backoff * 2;
			continue;
		}
		if (logged)
			tg_log("getUpdates answers again");
		logged = false;
		backoff = 500;
		json_array_foreach(res.result, i, upd) {
			long long id = json_integer_value(json_object_get(upd, "update_id"));
			char *text = json_dumps(upd, JSON_COMPACT);
			/* polling has no answer to carry a call: an over-limit press stays open */
			char close[TG_REPLY_LEN];
			int status = text ? receive(t, text, strlen(text), close, sizeof(close)) : 500;

			free(text);
			if (status >= 500) {
				failed = true; /* not confirmed: asked for again after a pause */
				break;
			}
			if (id >= offset) {
				offset = id + 1;
				snprintf(buf, sizeof(buf), "%lld", offset);
				if (store_meta_set(b->store, OFFSET_KEY, buf))
					tg_log("polling offset %s not saved", buf);
			}
		}
		tg_result_release(&res);
		if (failed && pause_ms(t, 1000))
			break;
	}
	adapter_bot_release();
	return NULL;
}

/* ---- the adapter ---- */

static bool configured(const struct config *cfg)
{
	return cfg->telegram_token[0] != '\0';
}

static void tg_free(struct telegram *t)
{
	if (!t)
		return;
	tg_pace_free(t->pace);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	sodium_memzero(t->token, sizeof(t->token));
	sodium_memzero(t->secret, sizeof(t->secret));
	free(t);
}

static int start(const struct adapter_env *env, void **self)
{
	struct telegram *t = calloc(1, sizeof(*t));
	const struct config *cfg = env->cfg;
	size_t n;
	int rc = GB_OK;

	*self = NULL;
	if (!t)
		return GB_ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	t->env = *env;
	snprintf(t->api, sizeof(t->api), "%s", cfg->telegram_api);
	n = strlen(t->api);
	while (n && t->api[n - 1] == '/')
		t->api[--n] = '\0';
	snprintf(t->token, sizeof(t->token), "%s", cfg->telegram_token);
	snprintf(t->secret, sizeof(t->secret), "%s", cfg->telegram_secret);
	t->webhook = strcmp(cfg->telegram_mode, "webhook") == 0;
	if (strcmp(cfg->telegram_pacing, "off")) {
		t->pace = tg_pace_new();
		if (!t->pace) {
			rc = GB_ENOMEM;
			goto out;
		}
	}
	if (t->webhook && !t->secret[0]) {
		tg_log("webhook mode needs telegram_secret (Telegram sends it with every update)");
		rc = GB_ECONFIG;
		goto out;
	}
	ensure_username(t);
	if (!t->webhook) {
		struct tg_result res;
		json_t *body = json_object();

		/* Telegram refuses getUpdates while a webhook is set */
		tg_api(t, "deleteWebhook", body, TG_CALL_TIMEOUT_S, NULL, &res);
		json_decref(body);
		tg_result_release(&res);
		if (pthread_create(&t->poller, NULL, poll_main, t)) {
			rc = GB_ENOMEM;
			goto out;
		}
		t->polling = true;
	}
	tg_log("started in %s mode as @%s%s", t->webhook ? "webhook" : "polling",
	       t->username[0] ? t->username : "?", t->pace ? "" : " (pacing off)");
	*self = t;
out:
	if (rc)
		tg_free(t);
	return rc;
}

/* Does the Bot API answer getMe as it does when well (enum probe_result)? */
static int probe(void *self)
{
	struct telegram *t = self;
	struct tg_result res;
	json_t *body = json_object();
	int pr;

	tg_api(t, "getMe", body, TG_LISTENER_TIMEOUT_S, NULL, &res);
	pr = res.status == 401 ? PROBE_UNAUTHORIZED : platform_failure(&res) ? PROBE_DOWN : PROBE_UP;
	tg_result_release(&res);
	json_decref(body);
	return pr;
}

static int routes(void *self, struct http_route *out, int max)
{
	struct telegram *t = self;

	if (!t->webhook || max < 1)
		return 0;
	out[0] = (struct http_route){ "POST", "/telegram", webhook, t, admit };
	return 1;
}

static void stop(void *self)
{
	struct telegram *t = self;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	atomic_store(&t->abort_poll, 1);
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->lock);
	if (t->polling)
		pthread_join(t->poller, NULL);
	tg_log("stopped");
	tg_free(t);
}

const struct adapter telegram_adapter = {
	.name = "telegram",
	.configured = configured,
	.start = start,
	.routes = routes,
	.deliver = deliver,
	.probe = probe,
	.stop = stop,
};

/* ---- gamebot telegram-setup ---- */

/*
 * The command menu Telegram shows when someone types "/" (setMyCommands)
 * in lang: every command of the router's table its menus list, each with
 * its line in that language (Telegram has no pickers: the line names an
 * argument's choices). Caller owns the result.
 */
static json_t *menu(int lang)
{
	json_t *list = json_array();
	size_t n;
	const struct bot_command *cmds = bot_commands(&n);

	for (size_t k = 0; k < n; k++) {
		struct strbuf desc = { 0 };

		if (!cmds[k].desc[lang])
			continue;
		bot_command_describe(&cmds[k], lang, false, &desc);
		json_array_append_new(list, json_pack("{ssss}", "command", cmds[k].name, "description", sb_str(&desc)));
		sb_release(&desc);
	}
	return list;
}

static void setup_usage(FILE *err)
{
	fputs("usage: gamebot telegram-setup [--url https://HOST/telegram] [--drop-pending] [--polling]\n",
	      err);
}

/* Call method; print a line to err and return false when it failed. */
static bool setup_call(struct telegram *t, const char *method, const json_t *body, FILE *err,
		       struct tg_result *res)
{
	char why[200];

	tg_api(t, method, body, TG_CALL_TIMEOUT_S, NULL, res);
	if (res->ok)
		return true;
	describe(method, res, why, sizeof(why));
	fprintf(err, "telegram-setup: %s\n", why);
	return false;
}

/* What telegram-setup was asked to do. */
struct setup_opts {
	const char *url;             /* --url: the webhook to set, or NULL */
	bool drop;                   /* --drop-pending */
	bool polling;                /* --polling: no webhook */
};

/* The command line into o; 0, or 2 after saying what is wrong. */
static int setup_options(int argc, char **argv, const struct config *cfg, struct setup_opts *o, FILE *err)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--url") == 0 && i + 1 < argc) {
			o->url = argv[++i];
		} else if (strcmp(argv[i], "--drop-pending") == 0) {
			o->drop = true;
		} else if (strcmp(argv[i], "--polling") == 0) {
			o->polling = true;
		} else {
			fprintf(err, "telegram-setup: unknown option '%s'\n", argv[i]);
			setup_usage(err);
			return 2;
		}
	}
	if (o->url && o->polling) {
		fputs("telegram-setup: --url and --polling exclude each other\n", err);
		return 2;
	}
	if (!cfg->telegram_token[0]) {
		fputs("telegram-setup: telegram_token is not set (TELEGRAM_TOKEN)\n", err);
		return 2;
	}
	if (o->url && !cfg->telegram_secret[0]) {
		fputs("telegram-setup: a webhook needs telegram_secret (TELEGRAM_SECRET): "
		      "the service refuses updates without it\n", err);
		return 2;
	}
	return 0;
}

/* A client of the Bot API for the calls of telegram-setup, or NULL. */
static struct telegram *setup_client(const struct config *cfg)
{
	struct telegram *t = calloc(1, sizeof(*t));
	size_t n;

	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	snprintf(t->api, sizeof(t->api), "%s", cfg->telegram_api);
	n = strlen(t->api);
	while (n && t->api[n - 1] == '/')
		t->api[--n] = '\0';
	snprintf(t->token, sizeof(t->token), "%s", cfg->telegram_token);
	return t;
}

/* Call method with body (owned: released here); false when it failed (said on err). */
static bool setup_send(struct telegram *t, const char *method, json_t *body, FILE *err, struct tg_result *res)
{
	bool ok = setup_call(t, method, body, err, res);

	json_decref(body);
	return ok;
}

/* getMe: which bot the token is, and whether its inline mode is on (*inline_mode). */
static bool setup_who(struct telegram *t, FILE *out, FILE *err, bool *inline_mode)
{
	struct tg_result res = { 0 };

	if (!setup_send(t, "getMe", json_object(), err, &res)) {
		tg_result_release(&res);
		return false;
	}
	fprintf(out, "bot: @%s (id %lld)\n", json_string_value(json_object_get(res.result, "username")),
		(long long)json_integer_value(json_object_get(res.result, "id")));
	*inline_mode = json_is_true(json_object_get(res.result, "supports_inline_queries"));
	tg_result_release(&res);
	return true;
}

/* The webhook set (--url) or removed (--polling, --drop-pending); nothing asked, nothing done. */
static bool setup_webhook(struct telegram *t, const struct config *cfg, const struct setup_opts *o, FILE *out,
			  FILE *err)
{
	struct tg_result res = { 0 };
	json_t *body;
	bool ok;

	if (!o->url && !o->polling && !o->drop)
		return true;
	body = json_object();
	if (o->url) {
		json_t *list = json_array();

		for (size_t k = 0; k < sizeof(allowed_updates) / sizeof(allowed_updates[0]); k++)
			json_array_append_new(list, json_string(allowed_updates[k]));
		json_object_set_new(body, "url", json_string(o->url));
		json_object_set_new(body, "secret_token", json_string(cfg->telegram_secret));
		json_object_set_new(body, "allowed_updates", list);
	}
	json_object_set_new(body, "drop_pending_updates", json_boolean(o->drop));
	ok = setup_send(t, o->url ? "setWebhook" : "deleteWebhook", body, err, &res);
	if (ok && o->url)
		fprintf(out, "webhook: %s (secret token set; updates: message, callback_query, "
			"inline_query, chosen_inline_result, my_chat_member)%s\n", o->url,
			o->drop ? "; pending updates dropped" : "");
	else if (ok)
		fprintf(out, "webhook: none; run the service with telegram_mode = polling%s\n",
			o->drop ? "; pending updates dropped" : "");
	tg_result_release(&res);
	return ok;
}

/* The command menus, English the default and each other language by its code. */
static bool setup_menus(struct telegram *t, FILE *out, FILE *err)
{
	size_t n = 0;

	for (int lang = 0; lang < LANG_COUNT; lang++) {
		struct tg_result res = { 0 };
		json_t *body = json_object(), *list = menu(lang);
		bool ok;

		n = json_array_size(list);
		json_object_set_new(body, "commands", list);
		if (lang != LANG_EN)
			json_object_set_new(body, "language_code", json_string(lang_code(lang)));
		ok = setup_send(t, "setMyCommands", body, err, &res);
		tg_result_release(&res);
		if (!ok)
			return false;
	}
	fprintf(out, "commands: %zu in English (default) and in Nepali (language_code ne)\n", n);
	return true;
}

int telegram_setup_main(int argc, char **argv, const struct config *cfg, FILE *out, FILE *err)
{
	struct setup_opts o;
	struct telegram *t;
	bool inline_mode = false;
	int status = setup_options(argc, argv, cfg, &o, err);

	if (status)
		return status;
	t = setup_client(cfg);
	if (!t)
		return 1;
	if (!setup_who(t, out, err, &inline_mode) || !setup_webhook(t, cfg, &o, out, err) ||
	    !setup_menus(t, out, err)) {
		status = 1;
	} else if (inline_mode) {
		fputs("inline mode: on; switch on inline feedback with @BotFather (/setinlinefeedback) "
		      "so that a card picked with @bot is played\n", out);
	} else {
		fputs("inline mode: off; \"My cards\" sends each hand to its player's private chat. To pick "
		      "cards with @bot in the group, switch it on with @BotFather (/setinline, then "
		      "/setinlinefeedback) and restart the service\n", out);
	}
	tg_free(t);
	return status;
}
