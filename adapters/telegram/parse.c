/*
 * parse.c - Bot API updates in: tg_update_parse() reads an Update into a
 * struct tg_update (the command, its sender, its place, a press's data), and
 * the button data is encoded and decoded here. Pure: no I/O, no state.
 */
#include "adapters/telegram/internal.h"

/* An id field (Telegram sends integers) as text into buf; false when missing. */
bool tg_id_text(const json_t *v, char *buf, size_t n)
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

	if (!tg_id_text(json_object_get(from, "id"), cmd->user, sizeof(cmd->user)))
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
	u->as_group = tg_id_text(json_object_get(sc, "id"), id, sizeof(id)) &&
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

	if (!tg_id_text(json_object_get(chat, "id"), buf, n))
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
		if (tg_id_text(json_object_get(msg, "migrate_to_chat_id"), u->migrate_to,
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
		if (tg_id_text(json_object_get(chat, "id"), u->cmd.chat, sizeof(u->cmd.chat)) &&
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
