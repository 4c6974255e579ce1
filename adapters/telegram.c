/*
 * telegram.c - see telegram.h. The file reads top to bottom as the data
 * flows: updates in (pure), reply views out (pure), pacing (pure, behind a
 * mutex).
 */
#include "telegram.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/*
 * "/verb@name rest": is the command for us? A command addressed to
 * another bot is not; one without an address is for whoever reads it.
 */
static bool addressed_to_us(const char *text, const char *bot_username)
{
	const char *at = text, *end;
	size_t n;

	while (*at && *at != '@' && *at != ' ' && *at != '\t' && *at != '\n')
		at++;
	if (*at != '@' || !bot_username || !bot_username[0])
		return true;
	at++;
	end = at;
	while (*end && *end != ' ' && *end != '\t' && *end != '\n')
		end++;
	n = (size_t)(end - at);
	return n == strlen(bot_username) && strncasecmp(at, bot_username, n) == 0;
}

static void read_message(const json_t *msg, const char *bot_username, struct tg_update *u)
{
	const json_t *chat = json_object_get(msg, "chat");
	const char *text = json_string_value(json_object_get(msg, "text"));

	str_field(chat, "type", u->chat_type, sizeof(u->chat_type));
	if (!id_text(json_object_get(chat, "id"), u->cmd.chat, sizeof(u->cmd.chat)))
		return;
	if (json_object_get(msg, "migrate_to_chat_id")) {
		if (id_text(json_object_get(msg, "migrate_to_chat_id"), u->migrate_to,
			    sizeof(u->migrate_to)))
			u->kind = TG_MIGRATE;
		return;
	}
	if (!text || text[0] != '/' || !addressed_to_us(text, bot_username))
		return;
	if (!read_from(json_object_get(msg, "from"), &u->cmd))
		return;
	if (command_parse_text(&u->cmd, text))
		return;
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
	if (!u->reply[0] || !id_text(json_object_get(chat, "id"), u->cmd.chat, sizeof(u->cmd.chat)) ||
	    !read_from(json_object_get(cq, "from"), &u->cmd))
		return;
	u->button = true;
	read_button(json_string_value(json_object_get(cq, "data")), u);
	u->kind = TG_COMMAND;
}

int tg_update_parse(const char *json, size_t len, const char *bot_username, int64_t now_ms,
		    struct tg_update *u)
{
	json_error_t jerr;
	json_t *root = json_loadb(json, len, 0, &jerr), *v;
	int rc = GB_OK;

	memset(u, 0, sizeof(*u));
	u->button_table = 0;
	if (!json_is_object(root) || !json_is_integer(json_object_get(root, "update_id"))) {
		rc = GB_EPARSE;
		goto out;
	}
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
		    !command_parse_text(&u->cmd, cmd))
			u->kind = TG_CHOSEN;
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
	int n;

	if (!cmd || cmd[0] != '/' || !cmd[1] || cap < TG_CALLBACK_MAX + 1)
		return GB_EARGS;
	n = snprintf(buf, cap, "%lld:%d:%s", (long long)table, turn, cmd + 1);
	if (n < 0 || n > TG_CALLBACK_MAX) {
		buf[0] = '\0';
		return GB_EARGS;
	}
	return GB_OK;
}

/* A decimal number of at most 18 digits at *p; advances *p past it. */
static bool read_num(const char **p, long long *out)
{
	const char *s = *p;
	long long v = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9' && digits < 18) {
		v = v * 10 + (*s - '0');
		s++;
		digits++;
	}
	if (!digits || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	*out = v;
	return true;
}

int tg_callback_decode(const char *data, int64_t *table, int *turn, char *cmd, size_t cap)
{
	const char *p = data;
	long long t, n;
	size_t len;

	if (!data || strlen(data) > TG_CALLBACK_MAX)
		return GB_EPARSE;
	if (!read_num(&p, &t) || *p++ != ':' || !read_num(&p, &n) || *p++ != ':' || n > 1000000000)
		return GB_EPARSE;
	len = strlen(p);
	if (!len || len + 2 > cap || !utf8_valid(p))
		return GB_EPARSE;
	cmd[0] = '/';
	memcpy(cmd + 1, p, len + 1);
	*table = t;
	*turn = (int)n;
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

size_t tg_utf16_cut(const char *s, size_t max)
{
	size_t units = 0, off = 0;

	while (s[off]) {
		uint32_t cp;
		size_t n = utf8_decode(s + off, &cp);
		size_t w = cp >= 0x10000 ? 2 : 1;

		if (units + w > max)
			break;
		units += w;
		off += n;
	}
	return off;
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

json_t *tg_keyboard(const json_t *buttons, int64_t table, int turn)
{
	json_t *rows = json_array(), *row, *b, *kb;
	size_t i, k;

	json_array_foreach(buttons, i, row) {
		json_t *out = json_array();

		json_array_foreach(row, k, b) {
			const char *label = json_string_value(json_object_get(b, "label"));
			const char *cmd = json_string_value(json_object_get(b, "cmd"));
			char data[TG_CALLBACK_MAX + 1];
			json_t *btn;

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
	size_t keep = tg_utf16_cut(text, TG_TEXT_MAX);

	if (text[keep]) {
		keep = tg_utf16_cut(text, TG_TEXT_MAX - 1);
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

static json_t *send_body(const char *chat, const char *text, bool pre)
{
	json_t *body = json_object();
	char *html = message_text(text, pre);

	json_object_set_new(body, "chat_id", tg_chat_id(chat));
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
		size_t keep = tg_utf16_cut(text, TG_ALERT_MAX);

		if (text[keep]) {
			keep = tg_utf16_cut(text, TG_ALERT_MAX - 1);
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
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *text = json_string_value(json_object_get(view, "text"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *reply = json_string_value(json_object_get(view, "reply"));
	int64_t table = json_integer_value(json_object_get(view, "table"));
	int turn = (int)json_integer_value(json_object_get(view, "turn"));
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
		snprintf(out->chat, sizeof(out->chat), "%s", chat);
		out->body = send_body(chat, text, true);
		json_object_set_new(out->body, "message_id", tg_chat_id(message_id));
	} else if (strcmp(kind, "table") == 0 || strcmp(kind, "public") == 0 ||
		   strcmp(kind, "alert") == 0) {
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", chat);
		out->body = send_body(chat, text, strcmp(kind, "table") == 0);
	} else if (strcmp(kind, "private") == 0 && user && user[0]) {
		/* a user's private chat with the bot has the user's id */
		snprintf(out->method, sizeof(out->method), "sendMessage");
		snprintf(out->chat, sizeof(out->chat), "%s", user);
		out->body = send_body(user, text, true);
	} else {
		rc = GB_EPARSE;
		goto out;
	}
	kb = tg_keyboard(json_object_get(view, "buttons"), table, turn);
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

#define PACE_SLOTS 2048
#define PACE_PROBE 16
#define PACE_GROUP_N 20         /* messages a minute in a group */
#define PACE_CHAT_MS 1000       /* one message a second in a chat */
#define PACE_ALL_N 30           /* messages a second overall */

struct pace_chat {
	char chat[32];
	int64_t sent[PACE_GROUP_N]; /* ring of the last sends */
	int next;
	int64_t last;
};

struct tg_pace {
	pthread_mutex_t lock;
	struct pace_chat chats[PACE_SLOTS];
	int64_t all[PACE_ALL_N];
	int all_next;
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

int64_t tg_pace_take(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global)
{
	struct pace_chat *c;
	int64_t wait = 0, oldest;

	*global = false;
	pthread_mutex_lock(&p->lock);
	oldest = p->all[p->all_next];
	if (oldest && now_ms - oldest < 1000) {
		wait = 1000 - (now_ms - oldest);
		*global = true;
		goto out;
	}
	c = pace_slot(p, chat);
	if (c->last && now_ms - c->last < PACE_CHAT_MS) {
		wait = PACE_CHAT_MS - (now_ms - c->last);
		goto out;
	}
	oldest = c->sent[c->next];
	if (chat[0] == '-' && oldest && now_ms - oldest < 60000) {
		wait = 60000 - (now_ms - oldest);
		goto out;
	}
	c->sent[c->next] = now_ms;
	c->next = (c->next + 1) % PACE_GROUP_N;
	c->last = now_ms;
	p->all[p->all_next] = now_ms;
	p->all_next = (p->all_next + 1) % PACE_ALL_N;
out:
	pthread_mutex_unlock(&p->lock);
	return wait;
}
