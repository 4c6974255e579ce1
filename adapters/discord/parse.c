/*
 * parse.c - what Discord sends, read: an interaction's body into a
 * struct interaction (dc_interaction_parse()), its slash command or
 * component into a struct command, the request's Ed25519 signature
 * checked (dc_verify()), button ids encoded and decoded, a snowflake's
 * time. Pure: no I/O, no state.
 */
#include "adapters/discord/internal.h"

/* A JSON string's text, or def when v is not a string. */
const char *dc_str_or(const json_t *v, const char *def)
{
	const char *s = json_string_value(v);

	return s ? s : def;
}

int64_t dc_snowflake_ms(const char *id)
{
	uint64_t v = 0;
	int digits = 0;

	if (!id)
		return 0;
	for (const char *p = id; *p; p++) {
		if (*p < '0' || *p > '9' || ++digits > 20)
			return 0;
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (!digits)
		return 0;
	return (int64_t)(v >> 22) + DC_FROM_EPOCH;
}

/* A decimal number of seconds (at most 12 digits), or -1. */
static int64_t parse_seconds(const char *s)
{
	int64_t v = 0;
	int digits = 0;

	if (!s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || ++digits > 12)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return digits ? v : -1;
}

/* The signature headers' form (hex of the right length, a timestamp in the window), sig decoded. */
static int signature_form(const char *sig_hex, const char *timestamp, int64_t now_s,
			  unsigned char sig[crypto_sign_BYTES])
{
	size_t siglen = 0;
	const char *end = NULL;
	int64_t ts = parse_seconds(timestamp);
	int rc = GB_EAUTH;

	if (!sig_hex || ts < 0 || strlen(sig_hex) != 2 * crypto_sign_BYTES)
		goto out;
	if (ts > now_s + DC_SKEW_S || ts < now_s - DC_SKEW_S)
		goto out;
	if (sodium_hex2bin(sig, crypto_sign_BYTES, sig_hex, strlen(sig_hex), NULL, &siglen, &end) ||
	    siglen != crypto_sign_BYTES || *end)
		goto out;
	rc = GB_OK;
out:
	return rc;
}

int dc_signature_form(const char *sig_hex, const char *timestamp, int64_t now_s)
{
	unsigned char sig[crypto_sign_BYTES];

	return signature_form(sig_hex, timestamp, now_s, sig);
}

int dc_verify(const unsigned char pk[32], const char *sig_hex, const char *timestamp,
	      const char *body, size_t len, int64_t now_s)
{
	unsigned char sig[crypto_sign_BYTES];
	unsigned char *msg = NULL;
	size_t tslen;
	int rc = GB_EAUTH;

	if (signature_form(sig_hex, timestamp, now_s, sig))
		goto out;
	tslen = strlen(timestamp);
	msg = malloc(tslen + len + 1);
	if (!msg)
		goto out;
	memcpy(msg, timestamp, tslen);
	memcpy(msg + tslen, body, len);
	if (crypto_sign_verify_detached(sig, msg, tslen + len, pk) == 0)
		rc = GB_OK;
out:
	free(msg);
	return rc;
}

int dc_custom_id_encode(int64_t table, int turn, const char *cmd, char *buf, size_t cap)
{
	return button_data_encode(table, turn, cmd, DC_CUSTOM_ID_MAX, buf, cap);
}

int dc_custom_id_decode(const char *id, int64_t *table, int *turn, char *cmd, size_t cap)
{
	const char *rest;
	int64_t t;
	int n;
	size_t len;

	if (cap < 2 || button_data_decode(id, DC_CUSTOM_ID_MAX, &t, &n, &rest))
		return GB_EPARSE;
	len = strlen(rest);
	if (len + 2 > cap)
		return GB_EPARSE;
	if (rest[0] == '~') {
		cmd[0] = '\0'; /* a select menu: the command is the chosen value */
	} else {
		cmd[0] = '/';
		memcpy(cmd + 1, rest, len + 1);
	}
	*table = t;
	*turn = n;
	return GB_OK;
}

/* s cut to max UTF-16 units, with an ellipsis when cut, appended to sb. */
/* ---- interactions in ---- */

void dc_interaction_release(struct interaction *ia)
{
	json_decref(ia->root);
	memset(ia, 0, sizeof(*ia));
}

/* A snowflake-shaped id: 1 to 20 digits. */
bool dc_id_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > 20)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* A permissions bit field, sent as a decimal string. */
static uint64_t permissions(const json_t *v)
{
	const char *s = json_string_value(v);
	uint64_t p = 0;

	for (int i = 0; s && s[i] && i < 20; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		p = p * 10 + (uint64_t)(s[i] - '0');
	}
	return p;
}

/* Read what every interaction has. GB_EPARSE when it is not one. */
int dc_interaction_parse(const char *body, size_t len, struct interaction *ia)
{
	json_error_t jerr;
	const json_t *member, *user, *msg;
	const char *name;
	int rc = GB_EPARSE;

	memset(ia, 0, sizeof(*ia));
	ia->root = json_loadb(body, len, 0, &jerr);
	if (!json_is_object(ia->root) || !json_is_integer(json_object_get(ia->root, "type")))
		goto out;
	ia->type = (int)json_integer_value(json_object_get(ia->root, "type"));
	if (ia->type == IT_PING) {
		rc = GB_OK;
		goto out;
	}
	ia->id = json_string_value(json_object_get(ia->root, "id"));
	ia->app_id = json_string_value(json_object_get(ia->root, "application_id"));
	ia->token = json_string_value(json_object_get(ia->root, "token"));
	ia->channel = json_string_value(json_object_get(ia->root, "channel_id"));
	if (!ia->channel)
		ia->channel = json_string_value(json_object_get(json_object_get(ia->root, "channel"), "id"));
	member = json_object_get(ia->root, "member");
	user = member ? json_object_get(member, "user") : json_object_get(ia->root, "user");
	ia->user = json_string_value(json_object_get(user, "id"));
	ia->data = json_object_get(ia->root, "data");
	if (!dc_id_ok(ia->id) || !dc_id_ok(ia->channel) || !dc_id_ok(ia->user) || !ia->token ||
	    !ia->token[0] || strlen(ia->token) > CMD_REPLY_LEN - 64 || strchr(ia->token, ':') ||
	    !json_is_object(ia->data))
		goto out;
	name = json_string_value(json_object_get(member, "nick"));
	if (!name)
		name = json_string_value(json_object_get(user, "global_name"));
	if (!name)
		name = json_string_value(json_object_get(user, "username"));
	if (!name)
		name = ia->user;
	utf8_copy(ia->user_name, sizeof(ia->user_name), name, strlen(name));
	/*
	 * Where: a server (a member), the bot's own direct messages, or
	 * (context 2, an app a user installed) a group DM or a DM between
	 * two other people, which others read: a chat like a group, with
	 * nobody its admin.
	 */
	ia->dm = !member && !json_object_get(ia->root, "guild_id") &&
		 json_integer_value(json_object_get(ia->root, "context")) != DC_CONTEXT_PRIVATE_CHANNEL;
	/* in a guild the member's rights; the bot's direct messages are the person's own */
	ia->is_admin = member ? (permissions(json_object_get(member, "permissions")) &
				 (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD)) != 0
			      : ia->dm;
	msg = json_object_get(ia->root, "message");
	ia->message_id = json_string_value(json_object_get(msg, "id"));
	ia->message_ephemeral = (json_integer_value(json_object_get(msg, "flags")) & DC_EPHEMERAL) != 0;
	ia->message_content = json_string_value(json_object_get(msg, "content"));
	rc = GB_OK;
out:
	return rc;
}

/* An option's value as text into buf; false when missing or of another type. */
bool dc_option_text(const json_t *opt, char *buf, size_t n)
{
	const json_t *v = json_object_get(opt, "value");

	if (json_is_string(v))
		utf8_copy(buf, n, json_string_value(v), json_string_length(v));
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else
		return false;
	return true;
}

/* The option called name among data's options, or NULL. */
const json_t *dc_option_named(const json_t *data, const char *name)
{
	const json_t *opt;
	size_t i;

	json_array_foreach(json_object_get(data, "options"), i, opt) {
		const char *n = json_string_value(json_object_get(opt, "name"));

		if (n && strcmp(n, name) == 0)
			return opt;
	}
	return NULL;
}

/* A slash command's name and options as verb and args, in the router's order. */
void dc_command_from_slash(const json_t *data, struct command *cmd)
{
	const char *name = json_string_value(json_object_get(data, "name"));
	const struct bot_command *bc = bot_command_find(name);
	struct strbuf args = { 0 };
	char val[CMD_ARGS_LEN];

	snprintf(cmd->verb, sizeof(cmd->verb), "%s", name ? name : "");
	for (int k = 0; bc && k < CMD_ARGS && bc->arg[k].name; k++) {
		const json_t *opt = dc_option_named(data, bc->arg[k].name);

		if (!opt || !dc_option_text(opt, val, sizeof(val)))
			break; /* the rest are optional and left out */
		sb_addf(&args, "%s%s", args.len ? " " : "", val);
	}
	utf8_copy(cmd->args, sizeof(cmd->args), sb_str(&args), args.len);
	sb_release(&args);
}

/* A button or menu choice into the command; unreadable data is kept as a forged press. */
void dc_command_from_component(const json_t *data, struct command *cmd)
{
	const char *id = json_string_value(json_object_get(data, "custom_id"));
	char text[DC_CUSTOM_ID_MAX + 2];
	const char *chosen = text;

	if (dc_custom_id_decode(id, &cmd->button_table, &cmd->button_turn, text, sizeof(text)))
		goto forged;
	if (!text[0])
		chosen = json_string_value(json_array_get(json_object_get(data, "values"), 0));
	if (!chosen || chosen[0] != '/' || strlen(chosen) > DC_OPTION_MAX ||
	    command_parse_text(cmd, chosen))
		goto forged;
	return;
forged:
	/* the router refuses a press for no table of this chat, changing nothing */
	cmd->button_table = -1;
	cmd->button_turn = -1;
	snprintf(cmd->verb, sizeof(cmd->verb), "board");
	cmd->args[0] = '\0';
}
