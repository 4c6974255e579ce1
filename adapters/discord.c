/*
 * discord.c - see discord.h. The file reads top to bottom as the data
 * flows: pure helpers (signatures, custom ids, message text, components),
 * the slash command set, interactions in, the answer taken from the
 * command's rows, the API over HTTP, delivery of the remaining rows, the
 * adapter table, and `gamebot discord-register`.
 *
 * The reply handle a command carries (struct command.reply, copied into
 * every reply row) is "INTERACTION_ID:USER_ID:TOKEN": enough for deliver()
 * to post follow-ups through the interaction's webhook while its token is
 * valid (the id is a snowflake, so its age is known without asking), and to
 * tell whether a private view is for the person who pressed.
 *
 * The table message id stored for a table (store_table_set_message) is a
 * channel message id, or "@INTERACTION_ID" when the table was posted as the
 * answer to a typed command: such a message is edited through that
 * interaction's webhook (its token kept in the store's meta under
 * "discord.orig.<channel>") and its real id recorded from the edit's answer
 * or from the next button pressed on it.
 */
#include "discord.h"
#include "dc_pace.h"

#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bot/commands/choices.h"
#include "bot/commands.h"
#include "bot/lang/i18n.h"
#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "games/strbuf.h"
#include "games/utf8.h"

#define DC_LABEL_MAX 80        /* a button's label */
#define DC_OPTION_MAX 100      /* a select option's label and value */
#define DC_ROW_MAX 5           /* buttons in a row */
#define DC_ROWS_MAX 5          /* rows in a message */
#define DC_CHOICES_MAX 25      /* autocomplete choices, options of a select */
#define DC_GATE_SLOTS 128     /* more than the listener's threads (at most 64) */
#define DC_GATE_GRACE_MS 300   /* rows of an answered interaction wait this long after the answer */
#define DC_CALL_TIMEOUT_S 10L
#define DC_POST_TIMEOUT_S 60L  /* a post waits as long as the row's lease allows (adapter_call_ms()) */
#define DC_TAKE_MAX 64
#define DC_TAKE_WAIT_MS 1000   /* for a row of the answer that a worker claimed */
#define DC_FROM_EPOCH 1420070400000LL
#define DC_REACH_SLOTS 256     /* channels whose reach is remembered in memory (the store has all) */
#define DC_PROBE_MS (60LL * 60 * 1000) /* a channel refused to the bot is tried as the bot again after this */
#define DC_DEAD_HOOKS 256      /* interaction webhooks Discord said are gone, remembered */
#define DC_RETRY_MAX_MS (7LL * 24 * 3600 * 1000) /* the longest 429 wait believed (longer: this) */
#define DC_UNKNOWN_CHANNEL 10003
#define DC_UNKNOWN_WEBHOOK 10015
#define DC_UNKNOWN_INTERACTION 10062

/* ---- pure helpers ---- */

/* A JSON string's text, or def when v is not a string. */
static const char *str_or(const json_t *v, const char *def)
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
static void add_cut(struct strbuf *sb, const char *s, size_t max)
{
	size_t keep = utf8_cut_utf16(s, max);

	if (!s[keep]) {
		sb_add(sb, s);
		return;
	}
	sb_addn(sb, s, utf8_cut_utf16(s, max - 1));
	sb_add(sb, "…");
}

char *dc_message_text(const char *text, bool code)
{
	struct strbuf body = { 0 }, out = { 0 };
	size_t room = code ? DC_TEXT_MAX - 8 : DC_TEXT_MAX;

	for (const char *p = text ? text : ""; *p; p++) {
		if (code && *p == '`')
			sb_add(&body, "ˋ"); /* a backtick would end the code block */
		else if (!code && strchr("\\*_~`|>#[]", *p)) {
			sb_addn(&body, "\\", 1);
			sb_addn(&body, p, 1);
		} else {
			sb_addn(&body, p, 1);
		}
	}
	if (code)
		sb_add(&out, "```\n");
	add_cut(&out, sb_str(&body), room);
	if (code)
		sb_add(&out, "\n```");
	if (!out.len)
		sb_add(&out, "…"); /* Discord refuses an empty message */
	sb_release(&body);
	return sb_detach(&out);
}

struct choice {
	const char *label, *cmd;
	char id[DC_CUSTOM_ID_MAX + 1];
	int row;
};

static json_t *button(const struct choice *c)
{
	struct strbuf label = { 0 };
	json_t *b;

	add_cut(&label, c->label, DC_LABEL_MAX);
	b = json_pack("{sisiss}", "type", 2, "style", 1, "custom_id", c->id);
	json_object_set_new(b, "label", json_string(sb_str(&label)));
	sb_release(&label);
	return b;
}

static json_t *action_row(void)
{
	json_t *row = json_object();

	json_object_set_new(row, "type", json_integer(1));
	json_object_set_new(row, "components", json_array());
	return row;
}

/* Lay out n choices as buttons (n <= 25). */
static json_t *button_rows(const struct choice *c, int n)
{
	json_t *rows = json_array(), *row = NULL;
	int nrows = 0, in_row = 0;

	/* the view's own rows first, split where longer than 5 */
	for (int i = 0; i < n; i++) {
		if (!row || in_row == DC_ROW_MAX || c[i].row != c[i - 1].row) {
			nrows++;
			in_row = 0;
			row = NULL;
			if (nrows > DC_ROWS_MAX)
				break;
			row = action_row();
			json_array_append_new(rows, row);
		}
		json_array_append_new(json_object_get(row, "components"), button(&c[i]));
		in_row++;
	}
	if (nrows <= DC_ROWS_MAX)
		return rows;
	/* too many rows: packed five to a row */
	json_array_clear(rows);
	for (int i = 0; i < n; i++) {
		if (i % DC_ROW_MAX == 0) {
			row = action_row();
			json_array_append_new(rows, row);
		}
		json_array_append_new(json_object_get(row, "components"), button(&c[i]));
	}
	return rows;
}

/* Lay out n choices (> 25) as select menus of 25 options, at most 5. */
static json_t *select_rows(const struct choice *c, int n, int64_t table, int turn, int lang)
{
	json_t *rows = json_array();

	for (int m = 0; m * DC_CHOICES_MAX < n && m < DC_ROWS_MAX; m++) {
		json_t *row = action_row(), *sel = json_object(), *opts = json_array();
		char id[DC_CUSTOM_ID_MAX + 1];

		snprintf(id, sizeof(id), "%lld:%d:~%d", (long long)table, turn, m);
		for (int i = m * DC_CHOICES_MAX; i < n && i < (m + 1) * DC_CHOICES_MAX; i++) {
			struct strbuf label = { 0 };
			json_t *o;

			if (strlen(c[i].cmd) > DC_OPTION_MAX)
				continue;
			add_cut(&label, c[i].label, DC_OPTION_MAX);
			o = json_object();
			json_object_set_new(o, "label", json_string(sb_str(&label)));
			json_object_set_new(o, "value", json_string(c[i].cmd));
			json_array_append_new(opts, o);
			sb_release(&label);
		}
		json_object_set_new(sel, "type", json_integer(3));
		json_object_set_new(sel, "custom_id", json_string(id));
		json_object_set_new(sel, "placeholder", json_string(tr(lang, M_DC_CHOOSE)));
		json_object_set_new(sel, "options", opts);
		json_array_append_new(json_object_get(row, "components"), sel);
		json_array_append_new(rows, row);
	}
	return rows;
}

json_t *dc_components(const json_t *buttons, int64_t table, int turn, int lang)
{
	struct choice c[GB_MAX_LEGAL];
	const json_t *row, *b;
	size_t i, k;
	int n = 0;
	json_t *out;

	json_array_foreach(buttons, i, row) {
		json_array_foreach(row, k, b) {
			const char *label = json_string_value(json_object_get(b, "label"));
			const char *cmd = json_string_value(json_object_get(b, "cmd"));
			bool dup = false;

			/*
			 * A button opening a private picker ("inline") is pressed
			 * as its command: the answer is the ephemeral hand. It
			 * shares its command with "Show my hand": one button.
			 */
			if (n == GB_MAX_LEGAL || !label || !label[0] ||
			    dc_custom_id_encode(table, turn, cmd, c[n].id, sizeof(c[n].id)))
				continue; /* a command too long for a custom_id cannot be a button */
			for (int j = 0; j < n; j++)
				dup |= strcmp(c[j].id, c[n].id) == 0; /* custom_ids are unique in a message */
			if (dup)
				continue;
			c[n].label = label;
			c[n].cmd = cmd;
			c[n].row = (int)i;
			n++;
		}
	}
	if (n <= DC_ROW_MAX * DC_ROWS_MAX)
		out = button_rows(c, n);
	else
		out = select_rows(c, n, table, turn, lang);
	return out;
}

/* ---- the slash command set ---- */

#define OPT_STRING 3
#define OPT_INTEGER 4
#define PERM_ADMINISTRATOR 0x8ULL
#define PERM_MANAGE_GUILD 0x20ULL
#define DC_DESC_MAX 100                 /* a command's or option's description, in characters */

/* text cut to Discord's DC_DESC_MAX characters (whole characters), as a JSON string */
static json_t *desc_text(const char *text)
{
	char buf[DC_DESC_MAX * 4 + 1];
	size_t bytes = 0;
	int chars = 0;

	while (text[bytes] && chars < DC_DESC_MAX) {
		size_t n = utf8_char_len(text + bytes);

		bytes += n ? n : 1;
		chars++;
	}
	utf8_copy(buf, sizeof(buf), text, bytes);
	return json_string(buf);
}

/* One option of a slash command, from the argument of the router's row. */
static json_t *option_of(const struct cmd_arg *a)
{
	json_t *opt = json_object();
	const char *choices[DC_CHOICES_MAX];
	int n = bot_command_choices(a->choices, choices, DC_CHOICES_MAX);

	json_object_set_new(opt, "type", json_integer(a->number ? OPT_INTEGER : OPT_STRING));
	json_object_set_new(opt, "name", json_string(a->name));
	json_object_set_new(opt, "description", desc_text(a->desc));
	json_object_set_new(opt, "required", json_boolean(a->required));
	if (a->autocomplete)
		json_object_set_new(opt, "autocomplete", json_true());
	if (n) {
		json_t *ch = json_array();

		for (int j = 0; j < n; j++)
			json_array_append_new(ch, json_pack("{ssss}", "name", choices[j], "value", choices[j]));
		json_object_set_new(opt, "choices", ch);
	}
	if (a->min || a->max) {
		json_object_set_new(opt, "min_value", json_integer(a->min));
		json_object_set_new(opt, "max_value", json_integer(a->max));
	}
	return opt;
}

/*
 * What Discord shows when someone types "/": every command of the router's
 * table that its menus list, with the arguments in the router's order.
 * English only: Discord's locales have no Nepali.
 */
json_t *dc_command_set(void)
{
	json_t *set = json_array();
	size_t n;
	const struct bot_command *cmds = bot_commands(&n);

	for (size_t i = 0; i < n; i++) {
		const struct bot_command *c = &cmds[i];
		json_t *cmd, *opts;
		struct strbuf desc = { 0 };

		if (!c->desc[LANG_EN])
			continue;
		cmd = json_object();
		opts = json_array();
		bot_command_describe(c, LANG_EN, true, &desc);
		json_object_set_new(cmd, "name", json_string(c->name));
		json_object_set_new(cmd, "type", json_integer(1));
		json_object_set_new(cmd, "description", desc_text(sb_str(&desc)));
		sb_release(&desc);
		if (c->flags & (CMD_ADMIN_ONLY | CMD_ADMIN_MENU))
			json_object_set_new(cmd, "default_member_permissions",
					    json_string("32")); /* MANAGE_GUILD; administrators have it too */
		for (int k = 0; k < CMD_ARGS && c->arg[k].name; k++)
			json_array_append_new(opts, option_of(&c->arg[k]));
		json_object_set_new(cmd, "options", opts);
		json_array_append_new(set, cmd);
	}
	return set;
}

/* ---- interactions in ---- */

enum {
	IT_PING = 1,
	IT_COMMAND = 2,
	IT_COMPONENT = 3,
	IT_AUTOCOMPLETE = 4,
	IT_MODAL_SUBMIT = 5,
};

struct interaction {
	json_t *root;                   /* the parsed body (owned); the pointers below point into it */
	int type;
	const char *id;
	const char *app_id;             /* the application it is for (NULL when not sent) */
	const char *token;
	const char *channel;
	const char *user;
	char user_name[STORE_NAME_LEN];
	bool is_admin;
	const json_t *data;
	const char *message_id;         /* IT_COMPONENT: the message the component is on */
	bool message_ephemeral;
	const char *message_content;
};

static void interaction_release(struct interaction *ia)
{
	json_decref(ia->root);
	memset(ia, 0, sizeof(*ia));
}

/* A snowflake-shaped id: 1 to 20 digits. */
static bool id_ok(const char *s)
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
static int interaction_parse(const char *body, size_t len, struct interaction *ia)
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
	if (!id_ok(ia->id) || !id_ok(ia->channel) || !id_ok(ia->user) || !ia->token ||
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
	/* in a guild the member's rights; a direct message is their own */
	ia->is_admin = member ? (permissions(json_object_get(member, "permissions")) &
				 (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD)) != 0
			      : true;
	msg = json_object_get(ia->root, "message");
	ia->message_id = json_string_value(json_object_get(msg, "id"));
	ia->message_ephemeral = (json_integer_value(json_object_get(msg, "flags")) & DC_EPHEMERAL) != 0;
	ia->message_content = json_string_value(json_object_get(msg, "content"));
	rc = GB_OK;
out:
	return rc;
}

/* An option's value as text into buf; false when missing or of another type. */
static bool option_text(const json_t *opt, char *buf, size_t n)
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
static const json_t *option_named(const json_t *data, const char *name)
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
static void command_from_slash(const json_t *data, struct command *cmd)
{
	const char *name = json_string_value(json_object_get(data, "name"));
	const struct bot_command *bc = bot_command_find(name);
	struct strbuf args = { 0 };
	char val[CMD_ARGS_LEN];

	snprintf(cmd->verb, sizeof(cmd->verb), "%s", name ? name : "");
	for (int k = 0; bc && k < CMD_ARGS && bc->arg[k].name; k++) {
		const json_t *opt = option_named(data, bc->arg[k].name);

		if (!opt || !option_text(opt, val, sizeof(val)))
			break; /* the rest are optional and left out */
		sb_addf(&args, "%s%s", args.len ? " " : "", val);
	}
	utf8_copy(cmd->args, sizeof(cmd->args), sb_str(&args), args.len);
	sb_release(&args);
}

/* A button or menu choice into the command; unreadable data is kept as a forged press. */
static void command_from_component(const json_t *data, struct command *cmd)
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

/* ---- the adapter's state ---- */

struct gate {
	char iid[24];
	int64_t until_ms;               /* 0: being answered now */
};

/* What is known of a channel: can the bot post there, or only interactions? */
struct reach {
	char channel[24];               /* "" for a free slot */
	bool hooks;                     /* the bot was refused there (403): interactions only */
	int64_t probe_ms;               /* hooks: when a row with no interaction may try the bot again */
};

struct discord {
	/*
	 * A copy: the service builds the env it hands start() on its own stack
	 * (its pointers, the configuration and the store's path, do live
	 * until stop).
	 */
	struct adapter_env env;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES];
	char api[CONFIG_VALUE_LEN];     /* base URL without a trailing slash */
	char app_id[CONFIG_VALUE_LEN];  /* digits only (checked at start) */
	char token[CONFIG_VALUE_LEN];   /* bot token: never logged */

	/*
	 * Interactions being answered by their route handler: their rows are
	 * the handler's to take, and deliver() leaves them alone until a
	 * moment after the answer went, so no follow-up overtakes it.
	 */
	pthread_mutex_t lock;
	struct gate gates[DC_GATE_SLOTS];

	/*
	 * Channels where the app was added without its bot user (only the
	 * applications.commands scope), so posting there as the bot is
	 * refused: a cache of the store's "discord.hooks.<channel>" (under
	 * lock), so that a restart or another instance does not learn it
	 * again from a refusal per channel.
	 */
	struct reach reach[DC_REACH_SLOTS];
	int reach_next;                 /* the slot taken next when all are used */

	/* Discord's rate limits as its answers state them (dc_pace.h); NULL: not paced */
	struct dc_pace *pace;

	/*
	 * Interaction webhooks that answered 404 Unknown Webhook (10015) or
	 * Unknown interaction (10062), under lock: never called again, the
	 * rows they would carry go as the bot instead. Kept as hashes of the
	 * tokens, a ring of the newest.
	 */
	unsigned char dead[DC_DEAD_HOOKS][16];
	int dead_next;
};

static void hook_hash(const char *token, size_t len, unsigned char out[16])
{
	crypto_generichash(out, 16, (const unsigned char *)token, len, NULL, 0);
}

/* Discord said the webhook of this interaction token (len bytes) is gone. */
static void hook_bury(struct discord *d, const char *token, size_t len)
{
	unsigned char h[16];

	hook_hash(token, len, h);
	pthread_mutex_lock(&d->lock);
	memcpy(d->dead[d->dead_next], h, sizeof(h));
	d->dead_next = (d->dead_next + 1) % DC_DEAD_HOOKS;
	pthread_mutex_unlock(&d->lock);
}

/* Is the webhook of this interaction token known to be gone? */
static bool hook_dead(struct discord *d, const char *token)
{
	unsigned char h[16];
	bool dead = false;

	if (!token)
		return true;
	hook_hash(token, strlen(token), h);
	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_DEAD_HOOKS && !dead; i++)
		dead = sodium_memcmp(d->dead[i], h, sizeof(h)) == 0;
	pthread_mutex_unlock(&d->lock);
	return dead;
}

static void gate_enter(struct discord *d, const char *iid)
{
	int64_t now = bot_now_ms();
	struct gate *slot = NULL;

	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++) {
		struct gate *g = &d->gates[i];

		if (!g->iid[0] || (g->until_ms && g->until_ms <= now)) {
			slot = g;
			break;
		}
		/*
		 * None free yet: the answered one whose wait ends first. Its rows
		 * may go a moment early; those of one being answered never do
		 * (the slots outnumber the threads that answer).
		 */
		if (g->until_ms && (!slot || g->until_ms < slot->until_ms))
			slot = g;
	}
	if (slot) {
		snprintf(slot->iid, sizeof(slot->iid), "%s", iid);
		slot->until_ms = 0;
	}
	pthread_mutex_unlock(&d->lock);
}

static void gate_leave(struct discord *d, const char *iid)
{
	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++)
		if (strcmp(d->gates[i].iid, iid) == 0 && !d->gates[i].until_ms)
			d->gates[i].until_ms = bot_now_ms() + DC_GATE_GRACE_MS;
	pthread_mutex_unlock(&d->lock);
}

/* Milliseconds the rows of iid must wait, 0 when they may go. */
static int64_t gate_wait(struct discord *d, const char *iid)
{
	int64_t now = bot_now_ms(), wait = 0;

	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++) {
		struct gate *g = &d->gates[i];

		if (strcmp(g->iid, iid) == 0 && (!g->until_ms || g->until_ms > now))
			wait = g->until_ms ? g->until_ms - now : 100;
	}
	pthread_mutex_unlock(&d->lock);
	return wait;
}

/* ---- reply handles ---- */

struct handle {
	char iid[24];
	char user[24];
	const char *token;              /* points into the handle text */
};

static void handle_make(const struct interaction *ia, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%s:%s", ia->id, ia->user, ia->token);
}

static bool handle_parse(const char *text, struct handle *h)
{
	const char *a = text ? strchr(text, ':') : NULL, *b = a ? strchr(a + 1, ':') : NULL;

	memset(h, 0, sizeof(*h));
	if (!b || (size_t)(a - text) >= sizeof(h->iid) || (size_t)(b - a - 1) >= sizeof(h->user) || !b[1])
		return false;
	memcpy(h->iid, text, (size_t)(a - text));
	memcpy(h->user, a + 1, (size_t)(b - a - 1));
	h->token = b + 1;
	return id_ok(h->iid);
}

/* Is the interaction's token still good for a while (a margin for the call itself)? */
static bool fresh(const char *iid, int64_t now_ms)
{
	int64_t made = dc_snowflake_ms(iid);

	return made && now_ms - made < DC_TOKEN_TTL_MS - 10000;
}

/* ---- the answer taken from the command's rows ---- */

/*
 * The handle of the command a row came from: "origin" on every row of a
 * command with a handle, "reply" alone on the alert the bot queues when a
 * command failed outright.
 */
static const char *origin_of(const json_t *view)
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

static json_t *message_data(const json_t *view, bool code, bool ephemeral)
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

static json_t *answer(int type, json_t *data)
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
	data = message_data(view, false, ephemeral);
	json_decref(view);
	sb_release(&sb);
	return data;
}

static int find_kind(struct taken *t, int n, const char *kind, const char *user)
{
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].kind, kind) == 0 &&
		    (!user || strcmp(user, str_or(json_object_get(t[i].view, "user"), "")) == 0))
			return i;
	return -1;
}

/* Whose message a view edits in place: a table's, an online seat's, a person's queue message. */
enum view_of { VIEW_TABLE, VIEW_SEAT, VIEW_QUEUE };

/*
 * The table message of a table in channel: the table's own, or, for a
 * view marked "seat" (an online table's seat, shown in that person's
 * direct messages), the seat's own message there; for a view marked
 * "queue", the person's queue message there (no table).
 */
static int message_get(struct store *s, int64_t table, const char *channel, enum view_of of,
		       struct store_table *t)
{
	int found = 0, rc;

	if (of == VIEW_QUEUE) {
		memset(t, 0, sizeof(*t));
		rc = store_queue_message(s, "discord", channel, t->message, sizeof(t->message), &found);
		return rc ? rc : found ? GB_OK : GB_ENOTFOUND;
	}
	rc = store_table_get(s, table, t);
	if (!rc && of == VIEW_SEAT)
		rc = store_view_message(s, table, "discord", channel, t->message, sizeof(t->message), &found);
	return rc;
}

/* Record id as the message of the view (in_tx: in the caller's transaction). */
static int message_set(struct store *s, int64_t table, const char *channel, enum view_of of, const char *id,
		       bool in_tx)
{
	if (of == VIEW_QUEUE)
		return adapter_queue_message(s, "discord", channel, id, in_tx);
	if (of == VIEW_SEAT)
		return store_view_set_message(s, table, "discord", channel, id, NULL);
	return store_table_set_message(s, table, id);
}

/* A queue message whose entry is gone, pressed: edited in place, never posted afresh nor recorded. */
static bool stale_view(const json_t *view)
{
	return json_is_true(json_object_get(view, "queue")) && json_is_true(json_object_get(view, "stale"));
}

static enum view_of view_of(const json_t *view)
{
	if (json_is_true(json_object_get(view, "queue")))
		return VIEW_QUEUE;
	return json_is_true(json_object_get(view, "seat")) ? VIEW_SEAT : VIEW_TABLE;
}

/* Has the view a message of its own to record (a table's, or a queue message)? */
static bool view_kept(int64_t table, enum view_of of)
{
	return table || of == VIEW_QUEUE;
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
	int rc = message_get(s, table, channel, of, &t);

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
		    strncmp(val, t.message + 1, (size_t)(colon - val)) || !fresh(t.message + 1, bot_now_ms()))
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
 * A queue message that is an interaction's answer ("@IID") may wait in
 * its chat longer than the interaction's token lives (15 minutes): its
 * id is asked for (learn_original()) while the token is good, so that it
 * is edited in place as the bot from then on. Queued as a row of the
 * adapter's own, {"kind": "original", "message": "@IID", "origin": the
 * interaction's handle}: it waits for the answer (held()), and goes in
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
	json_t *answer;                 /* the HTTP answer (owned) */
	int64_t table;                  /* the table whose message it records, 0 none */
	enum view_of of;                /* whose message: the table's, a seat's, a queue message */
	char message[STORE_ID_LEN];     /* its new id ("@IID": this interaction's answer) */
};

/*
 * Choose the HTTP answer from the command's rows t[0..n-1], in order of
 * what tells the user most, marking the rows it uses: the rest are sent
 * by deliver(). lang: for the texts of our own.
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
		p->answer = answer(7, message_data(t[table].view, view_of(t[table].view) != VIEW_QUEUE, false));
		t[table].used = true;
		p->table = json_integer_value(json_object_get(t[table].view, "table"));
		p->of = view_of(t[table].view);
		snprintf(p->message, sizeof(p->message), "%s", ia->message_id ? ia->message_id : "");
		if (!id_ok(p->message) || stale_view(t[table].view)) {
			p->table = 0;
			p->of = VIEW_TABLE;
		}
	} else if (ia->type == IT_COMPONENT && ia->message_ephemeral && mine >= 0) {
		p->answer = answer(7, message_data(t[mine].view, true, true));
		t[mine].used = true;
	} else if (mine >= 0) {
		p->answer = answer(4, message_data(t[mine].view, true, true));
		t[mine].used = true;
	} else if (alert >= 0) {
		p->answer = answer(4, joined_data(t, n, "alert", true));
	} else if (ia->type == IT_COMPONENT && ia->message_ephemeral) {
		/* a card played from the hand: the hand's buttons are spent, the table is edited */
		json_t *data = json_object();
		char *content = dc_message_text(ia->message_content, false);

		json_object_set_new(data, "content",
				    json_string(ia->message_content ? ia->message_content : content));
		json_object_set_new(data, "components", json_array());
		p->answer = answer(7, data);
		free(content);
	} else if (ia->type == IT_COMMAND && table >= 0) {
		/* a typed command showing the table: the answer is the table message now */
		p->answer = answer(4, message_data(t[table].view, view_of(t[table].view) != VIEW_QUEUE, false));
		t[table].used = true;
		p->table = json_integer_value(json_object_get(t[table].view, "table"));
		p->of = view_of(t[table].view);
		snprintf(p->message, sizeof(p->message), "@%s", ia->id);
	} else if (pub >= 0) {
		p->answer = answer(4, joined_data(t, n, "public", false));
	} else if (ia->type == IT_COMPONENT) {
		p->answer = answer(6, NULL); /* nothing changes on the message */
	} else {
		json_t *view = json_pack("{ss}", "text", tr(lang, M_DC_DONE));

		p->answer = answer(4, message_data(view, false, true));
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
		const char *origin = origin_of(v), *kind = json_string_value(json_object_get(v, "kind"));
		bool own = origin && kind && strcmp(origin, handle) == 0;

		if (own && rows[i].lease_until_ms > now) {
			/* a worker has it in hand: about to hand it back (held()), or to send it */
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
 * command's commit and this: it hands the row back at once (held()), so
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
	if (!rc && view_kept(p.table, p.of) && p.message[0] == '@')
		rc = queue_unbutton(s, ia->channel, p.table, p.of, p.message);
	if (!rc && view_kept(p.table, p.of)) {
		rc = message_set(s, p.table, ia->channel, p.of, p.message, true);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK;
	}
	if (!rc && p.of == VIEW_QUEUE && p.message[0] == '@')
		rc = queue_learn(s, ia->channel, p.message, handle);
	if (!rc && view_kept(p.table, p.of) && p.message[0] == '@') {
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
static int chat_lang(struct bot *b, const char *channel)
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
static int run_interaction(struct discord *d, struct bot *b, const struct interaction *ia,
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
	/* a direct message: no server member behind it */
	cmd.private_chat = !json_object_get(ia->root, "member") && !json_object_get(ia->root, "guild_id");
	cmd.now_ms = bot_now_ms();
	handle_make(ia, handle, sizeof(handle));
	snprintf(cmd.reply, sizeof(cmd.reply), "%s", handle);
	if (ia->type == IT_COMMAND) {
		command_from_slash(ia->data, &cmd);
	} else {
		command_from_component(ia->data, &cmd);
		if (ia->message_id && !ia->message_ephemeral && id_ok(ia->message_id))
			snprintf(cmd.button_message, sizeof(cmd.button_message), "%s", ia->message_id);
	}

	gate_enter(d, ia->id);
	rc = bot_handle(b, &cmd);
	if (rc == GB_ELIMIT) {
		/* past the limit's one warning: answered from here, and no row was written */
		int lang = lang_parse(b->cfg.default_lang);
		json_t *view = json_pack("{ss}", "text", tr(lang < 0 ? LANG_EN : lang, M_SLOW_DOWN));

		*out = ia->type == IT_COMPONENT ? answer(6, NULL)
						: answer(4, message_data(view, false, true));
		json_decref(view);
		goto out;
	}
	if (rc == GB_EDUP) {
		/* answered the first time; this one changes nothing and says so */
		json_t *view = json_pack("{ss}", "text", tr(chat_lang(b, ia->channel), M_DC_REPEATED));

		*out = ia->type == IT_COMPONENT ? answer(6, NULL)
						: answer(4, message_data(view, false, true));
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
	gate_leave(d, ia->id);
	if (d->env.wake)
		d->env.wake(d->env.wake_arg);
	return status;
}

/* ---- autocomplete ---- */

static bool starts_with(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static void add_choice(json_t *choices, const char *name, const char *value, bool integer,
		       const char *typed)
{
	char num[24];
	int v;

	if (json_array_size(choices) >= DC_CHOICES_MAX || strlen(value) > DC_OPTION_MAX ||
	    (typed[0] && !starts_with(value, typed) && !starts_with(name, typed)))
		return;
	if (integer) {
		if (gb_parse_uint(value, 1000, &v))
			return;
		snprintf(num, sizeof(num), "%d", v);
		json_array_append_new(choices, json_pack("{sssi}", "name", name, "value", v));
	} else {
		json_array_append_new(choices, json_pack("{ssss}", "name", name, "value", value));
	}
}

/* /settings: rule keys of the game chosen, or a setting's values, or a rule's values. */
static void settings_choices(const json_t *data, const char *focus, const char *typed,
			     json_t *choices)
{
	char game[32] = "", key[64] = "";
	const struct gb_game *g;
	static const char *const digits[] = { "devanagari", "ascii", NULL };
	static const char *const autoplay[] = { "off", "30s", "45s", "60s", "90s", NULL };

	option_text(option_named(data, "game"), game, sizeof(game));
	option_text(option_named(data, "key"), key, sizeof(key));
	g = gb_game_find(game);
	if (strcmp(focus, "key") == 0) {
		const char *const *vals = strcmp(game, "digits") == 0	      ? digits
					  : strcmp(game, "autoplay_after") == 0 ? autoplay
										: NULL;

		for (int i = 0; vals && vals[i]; i++)
			add_choice(choices, vals[i], vals[i], false, typed);
		for (int i = 0; g && i < g->nrules; i++)
			add_choice(choices, g->rules[i].key, g->rules[i].key, false, typed);
	} else if (g && gb_rule_index(g, key) >= 0) {
		const struct gb_rule_def *r = &g->rules[gb_rule_index(g, key)];

		for (int i = 0; r->values[i]; i++)
			add_choice(choices, r->values[i], r->values[i], false, typed);
	}
}

static json_t *autocomplete(struct bot *b, const struct interaction *ia)
{
	const char *verb = json_string_value(json_object_get(ia->data, "name"));
	const json_t *opt, *focused = NULL;
	json_t *choices = json_array(), *data;
	char typed[CMD_ARGS_LEN] = "";
	const char *scope;
	size_t i;

	/* a lookup per keystroke, in a budget of its own; past it no choices, nothing read */
	if (limit_check("discord", LIMIT_LOOKUPS, ia->user, bot_now_ms(),
			2 * b->cfg.rate_user_per_min, 0, &scope) != LIMIT_OK) {
		metrics_inc("gamebot_rate_limited_total", "scope=\"lookup\"", 1);
		goto out;
	}
	json_array_foreach(json_object_get(ia->data, "options"), i, opt)
		if (json_is_true(json_object_get(opt, "focused")))
			focused = opt;
	if (!verb || !focused)
		goto out;
	option_text(focused, typed, sizeof(typed));
	if (strcmp(verb, "settings") == 0) {
		settings_choices(ia->data, str_or(json_object_get(focused, "name"), ""),
				 typed, choices);
	} else {
		/* the caller's legal actions at this channel's table, for this command */
		struct bot_choice ch[GB_MAX_LEGAL];
		bool integer = json_integer_value(json_object_get(focused, "type")) == OPT_INTEGER;
		size_t vlen = strlen(verb);
		int n = 0;

		if (bot_user_choices(b, "discord", ia->user, ch, GB_MAX_LEGAL, &n))
			n = 0;
		for (int k = 0; k < n; k++) {
			const char *rest = ch[k].cmd + 1 + vlen;
			char name[DC_OPTION_MAX + 1];

			if (strcmp(ch[k].chat, ia->channel) || strncmp(ch[k].cmd + 1, verb, vlen) ||
			    *rest != ' ')
				continue;
			rest++;
			if (strcmp(ch[k].label, rest))
				snprintf(name, sizeof(name), "%s · %s", ch[k].label, rest);
			else
				snprintf(name, sizeof(name), "%s", rest);
			add_choice(choices, name, rest, integer, typed);
		}
	}
out:
	data = json_object();
	json_object_set_new(data, "choices", choices);
	return answer(8, data);
}

/*
 * Is the interaction for this bot? Another application's (a body signed
 * for it reaching this endpoint), a modal (the bot opens none) and a
 * component whose custom_id is not button data of ours are not: they are
 * answered and change nothing.
 */
static bool ours(const struct discord *d, const struct interaction *ia)
{
	int64_t table;
	int turn;
	char cmd[DC_CUSTOM_ID_MAX + 2];

	if (ia->app_id && strcmp(ia->app_id, d->app_id))
		return false;
	if (ia->type == IT_MODAL_SUBMIT)
		return false;
	return ia->type != IT_COMPONENT ||
	       !dc_custom_id_decode(json_string_value(json_object_get(ia->data, "custom_id")), &table,
				    &turn, cmd, sizeof(cmd));
}

/*
 * The answer to an interaction that is not ours: a press changes nothing
 * on its message (type 6), typing is offered no choices, anything else is
 * told so, to the sender alone. Caller owns the result.
 */
static json_t *not_ours(struct bot *b, const struct interaction *ia)
{
	json_t *view, *a;

	if (ia->type == IT_COMPONENT)
		return answer(6, NULL);
	if (ia->type == IT_AUTOCOMPLETE)
		return answer(8, json_pack("{s[]}", "choices"));
	view = json_pack("{ss}", "text", tr(chat_lang(b, ia->channel), M_DC_NOT_OURS));
	a = answer(4, message_data(view, false, true));
	json_decref(view);
	return a;
}

/*
 * Handle one verified interaction body; returns the HTTP status and, for
 * 200, the answer in *out.
 */
static int receive(struct discord *d, const char *body, size_t len, json_t **out)
{
	struct interaction ia;
	struct bot *b;
	int status = 200;

	*out = NULL;
	if (interaction_parse(body, len, &ia)) {
		gb_log("discord: malformed interaction of %zu bytes refused", len);
		status = 400;
		goto out;
	}
	if (ia.type == IT_PING) {
		*out = answer(1, NULL);
		goto out;
	}
	if (ia.type < IT_COMMAND || ia.type > IT_MODAL_SUBMIT) {
		status = 400; /* no interaction type Discord sends */
		goto out;
	}
	b = adapter_bot(&d->env);
	if (!b) {
		status = 503;
		goto out;
	}
	if (!ours(d, &ia))
		*out = not_ours(b, &ia);
	else if (ia.type == IT_AUTOCOMPLETE)
		*out = autocomplete(b, &ia);
	else
		status = run_interaction(d, b, &ia, out);
out:
	interaction_release(&ia);
	return status;
}

/*
 * Before the body is read: a request without both signature headers in
 * their form (or with a timestamp out of the window) is no interaction,
 * and is refused at the cost of its headers. The signature itself needs
 * the body: the handler checks it.
 */
static int admit(void *arg, const struct http_request *req)
{
	int status = 0;

	(void)arg;
	if (dc_signature_form(http_header(req, "X-Signature-Ed25519"),
			      http_header(req, "X-Signature-Timestamp"), bot_now_ms() / 1000)) {
		metrics_inc("gamebot_updates_refused_total", "platform=\"discord\",reason=\"auth\"", 1);
		status = 401;
	}
	return status;
}

static void interactions(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct discord *d = arg;
	json_t *ans = NULL;

	resp->content_type = "application/json";
	if (dc_verify(d->pk, http_header(req, "X-Signature-Ed25519"),
		      http_header(req, "X-Signature-Timestamp"), req->body, req->body_len,
		      bot_now_ms() / 1000)) {
		metrics_inc("gamebot_updates_refused_total", "platform=\"discord\",reason=\"auth\"", 1);
		resp->status = 401;
		resp->body = strdup("{\"message\":\"invalid request signature\"}");
		return;
	}
	metrics_inc("gamebot_updates_received_total", "platform=\"discord\"", 1);
	resp->status = receive(d, req->body, req->body_len, &ans);
	if (resp->status != 200)
		metrics_inc("gamebot_updates_refused_total",
			    resp->status >= 500 ? "platform=\"discord\",reason=\"store\""
						: "platform=\"discord\",reason=\"malformed\"", 1);
	resp->body = ans ? json_dumps(ans, JSON_COMPACT) : NULL;
	if (!resp->body)
		resp->body = strdup(resp->status == 200 ? "{}" : "{\"message\":\"not handled\"}");
	json_decref(ans);
}

/* ---- the API over HTTP ---- */

/* What one API call came back with. */
struct dc_result {
	int transport;                  /* CURLcode: 0 when a response arrived */
	long status;
	json_t *body;                   /* the parsed answer (owned), or NULL */
	int64_t retry_ms;               /* with 429 */
	bool global;                    /* with 429: the limit is the application's, not a route's */
	bool as_bot;                    /* the call was made with the bot token (not a webhook's) */
	bool paced;                     /* not made: the rate limits ask to wait retry_ms (a 429 of our own) */
	struct dc_limits limits;        /* what the answer's X-RateLimit-* headers said */
	bool no_connection;             /* transport: no connection could be made at all */
	long code;                      /* Discord's JSON error code (10003 Unknown Channel, ...); 0 none */
	/*
	 * transport: a post that carries no enforced nonce (a follow-up
	 * through an interaction's webhook) failed after the whole request
	 * went out - Discord may have posted it, and would post a repeat too
	 */
	bool in_doubt;
};

static void dc_result_release(struct dc_result *r)
{
	json_decref(r->body);
	memset(r, 0, sizeof(*r));
}


/* curl's header callback: the X-RateLimit-* headers into the call's limits. */
static size_t limits_sink(char *p, size_t size, size_t n, void *arg)
{
	dc_limits_header(arg, p, size * n);
	return size * n;
}

/*
 * Not called now: the rate limits ask to wait (res then reads as a 429 of
 * our own, paced, with retry_ms and global). Else 0, the call counted.
 */
static bool paced(struct discord *d, const char *method, const char *path, bool auth,
		  struct dc_result *res)
{
	int64_t wait = dc_pace_take(d->pace, method, path, auth, bot_now_ms(), &res->global);

	if (wait <= 0)
		return false;
	res->status = 429;
	res->paced = true;
	res->retry_ms = wait;
	res->body = json_pack("{ss}", "message", "paced within the rate limits");
	return true;
}

/*
 * A 429's wait into res: its JSON retry_after (fractional seconds), else
 * (a body that is not JSON, as Cloudflare's in front of Discord) the
 * Retry-After header, else a second; a long one is honoured (a ban of
 * hours), up to DC_RETRY_MAX_MS.
 */
static void retry_of(struct dc_result *res)
{
	const json_t *ra = json_object_get(res->body, "retry_after");
	double secs = json_is_number(ra) ? json_number_value(ra) : -1.0;
	int64_t ms;

	if (secs > 0 && secs * 1000.0 < (double)DC_RETRY_MAX_MS)
		ms = (int64_t)ceil(secs * 1000.0);
	else if (secs > 0)
		ms = DC_RETRY_MAX_MS;
	else if (res->limits.retry_after_ms > 0)
		ms = res->limits.retry_after_ms;
	else
		ms = 1000;
	res->retry_ms = ms < DC_RETRY_MAX_MS ? ms : DC_RETRY_MAX_MS;
	res->global = json_is_true(json_object_get(res->body, "global")) || res->limits.global;
}

/*
 * method path (below the API URL) with body (may be NULL), as the bot when
 * auth, unless pacing asks to wait (see paced()), for DC_CALL_TIMEOUT_S at
 * most (a post: DC_POST_TIMEOUT_S, since Discord posts it however late it
 * answers) and never past the thread's delivery deadline
 * (adapter_call_ms(): with too little left it is not made, and reads as a
 * wait of our own as a paced one does). Webhook paths hold the
 * interaction's token and the Authorization header the bot's: neither
 * ever reaches a log line.
 */
static void dc_api(struct discord *d, const char *method, const char *path,
		   const json_t *body, bool auth, struct dc_result *res)
{
	CURL *c = NULL;
	struct curl_slist *h = NULL;
	struct strbuf url = { 0 }, in = { 0 }, authz = { 0 };
	char *text = NULL;
	json_error_t jerr;
	bool post = strcmp(method, "POST") == 0;
	long timeout_ms = adapter_call_ms((post ? DC_POST_TIMEOUT_S : DC_CALL_TIMEOUT_S) * 1000);

	memset(res, 0, sizeof(*res));
	res->as_bot = auth;
	dc_limits_init(&res->limits);
	if (!timeout_ms) {
		res->status = 429;
		res->paced = true;
		res->body = json_pack("{ss}", "message", "no time left in the lease: handed back untried");
		goto out;
	}
	if (paced(d, method, path, auth, res))
		goto out;
	c = adapter_curl();
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	h = curl_slist_append(h, "Content-Type: application/json");
	if (h)
		h = curl_slist_append(h, "User-Agent: DiscordBot (https://github.com/gamebot, 1.0)");
	if (h && auth) {
		sb_addf(&authz, "Authorization: Bot %s", d->token);
		h = curl_slist_append(h, sb_str(&authz));
	}
	if (!c || !h || (body && !text)) {
		res->transport = CURLE_OUT_OF_MEMORY;
		goto out;
	}
	sb_addf(&url, "%s%s", d->api, path);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (text)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, limits_sink);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &res->limits);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	res->transport = (int)curl_easy_perform(c);
	res->no_connection = res->transport && adapter_no_connection(res->transport, c);
	res->in_doubt = post && !json_is_true(json_object_get(body, "enforce_nonce")) &&
			adapter_request_sent(res->transport, c, text ? strlen(text) : 0);
	if (res->transport)
		goto out;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	res->body = json_loadb(sb_str(&in), in.len, 0, &jerr);
	res->code = (long)json_integer_value(json_object_get(res->body, "code"));
	if (res->status == 429)
		retry_of(res);
	if (!auth && res->status == 404 && !strncmp(path, "/webhooks/", 10) &&
	    (res->code == DC_UNKNOWN_WEBHOOK || res->code == DC_UNKNOWN_INTERACTION)) {
		/* "/webhooks/APP/TOKEN[/...]": that interaction's webhook is gone for good */
		const char *tok = strchr(path + 10, '/');

		if (tok)
			hook_bury(d, tok + 1, strcspn(tok + 1, "/"));
	}
	res->limits.status = res->status;
	res->limits.retry_ms = res->retry_ms;
	res->limits.global = res->limits.global || res->global;
	dc_pace_learn(d->pace, method, path, &res->limits, bot_now_ms());
out:
	curl_slist_free_all(h);
	free(text);
	adapter_sb_wipe(&url);
	sb_release(&in);
	adapter_sb_wipe(&authz);
}

/* A short account of a call for logs and set-aside rows: no URL, no token. */
static void describe(const char *what, const struct dc_result *res, char *buf, size_t n)
{
	const char *msg = json_string_value(json_object_get(res->body, "message"));
	struct strbuf sb = { 0 };

	if (res->transport)
		sb_addf(&sb, "%s: %s", what, curl_easy_strerror((CURLcode)res->transport));
	else
		sb_addf(&sb, "%s: %ld %s", what, res->status, msg ? msg : "");
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
}

static bool ok_status(const struct dc_result *res)
{
	return !res->transport && res->status >= 200 && res->status < 300;
}

/*
 * A failure of Discord as a whole rather than of the call: no answer
 * (refused, timed out, cut off), 5xx, or 401 to the bot's own token (it
 * was revoked: every call as the bot gets it, and Discord bans an address
 * that goes on making such calls).
 */
static bool platform_failure(const struct dc_result *res)
{
	return res->transport || res->status >= 500 || (res->status == 401 && res->as_bot);
}

/* The outcome of a finished call into d. */
static void settle(const char *what, const struct dc_result *res, struct delivery *d)
{
	memset(d, 0, sizeof(*d));
	if (ok_status(res)) {
		d->result = DELIVERY_OK;
		return;
	}
	describe(what, res, d->why, sizeof(d->why));
	if (res->in_doubt) {
		/*
		 * A follow-up whose answer never came may be in the channel: a
		 * webhook takes no nonce, so it is not posted again blindly but
		 * set aside (at most once; a channel post's nonce makes its
		 * repeat harmless, and it is tried again as any failure).
		 */
		char why[sizeof(d->why)];

		snprintf(why, sizeof(why), "in doubt, not sent again: %.120s", d->why);
		snprintf(d->why, sizeof(d->why), "%s", why);
		d->result = DELIVERY_GIVE_UP;
		d->platform_down = true; /* unless Discord is down as a whole (adapter.h) */
	} else if (platform_failure(res)) {
		/* Discord's state, not the row's: the outbox asks before it counts a try */
		d->result = DELIVERY_RETRY;
		d->platform_down = true;
		d->unauthorized = res->status == 401;
	} else if (res->status == 429) {
		d->result = DELIVERY_WAIT;
		d->retry_ms = res->retry_ms;
		d->global = res->global;
	} else
		d->result = DELIVERY_GIVE_UP;
}

/* ---- delivery ---- */

static json_t *channel_body(const json_t *view, bool code, bool edit)
{
	json_t *data = message_data(view, code, false);

	if (edit)
		json_object_del(data, "allowed_mentions");
	return data;
}

/* A message just posted (res) is table's message now, when table and it went. */
static void record_posted(struct store *s, int64_t table, const char *channel, const json_t *view,
			  const struct dc_result *res)
{
	const char *id = json_string_value(json_object_get(res->body, "id"));
	int rc;

	if (!view_kept(table, view_of(view)) || !ok_status(res) || !id_ok(id))
		return;
	rc = message_set(s, table, channel, view_of(view), id, false);
	if (rc && rc != GB_ENOTFOUND)
		/* posted all the same: sending it again would show the table twice */
		gb_log("discord: table %lld: message %s posted but not recorded: %s", (long long)table, id,
		       gb_strerror(rc));
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
	record_posted(s, table, row->chat, view, res);
	json_decref(body);
	sb_release(&path);
}

/* POST a follow-up through the interaction's webhook. */
static void post_followup(struct discord *d, const struct handle *h, const json_t *view,
			  bool code, bool ephemeral, struct dc_result *res)
{
	struct strbuf path = { 0 };
	json_t *body = message_data(view, code, ephemeral);

	sb_addf(&path, "/webhooks/%s/%s", d->app_id, h->token);
	dc_api(d, "POST", sb_str(&path), body, false, res);
	json_decref(body);
	adapter_sb_wipe(&path);
}

/* A follow-up seen by everyone in the channel; recorded as the table's message when table. */
static void post_hook(struct discord *d, struct store *s, const struct handle *h, const char *channel,
		      const json_t *view, bool code, int64_t table, struct dc_result *res)
{
	post_followup(d, h, view, code, false, res);
	record_posted(s, table, channel, view, res);
}

/*
 * The table's message edited in place, or posted when it has none (or it
 * is gone): as the bot, or through the interaction hook when the channel
 * is reached only through interactions (then a message that interaction
 * may not edit is posted afresh too). Returns GB_OK with the call's
 * outcome in res, or the store's error (then no call was made).
 */
static int send_table(struct discord *d, struct store *s, const struct store_out *row,
		      const json_t *view, const struct handle *hook, struct dc_result *res)
{
	struct store_table t = { 0 };
	struct strbuf path = { 0 };
	bool code = view_of(view) != VIEW_QUEUE; /* a table in a code block; a queue message is prose */
	json_t *body = channel_body(view, code, true);
	char key[96], val[CMD_REPLY_LEN];
	bool as_bot = false;
	int rc = view_kept(row->table, view_of(view)) ? message_get(s, row->table, row->chat, view_of(view), &t)
						    : GB_ENOTFOUND;

	memset(res, 0, sizeof(*res));
	if (rc && rc != GB_ENOTFOUND)
		goto out;
	rc = GB_OK;
	/* a queue message whose entry is gone (the person was seated): its id came with the view */
	if ((!t.message[0] && view_of(view) == VIEW_QUEUE) || stale_view(view))
		snprintf(t.message, sizeof(t.message), "%s", str_or(json_object_get(view, "message"), ""));
	snprintf(key, sizeof(key), "discord.orig.%s", row->chat);
	val[0] = '\0';
	if (t.message[0] == '@' && !store_meta_get(s, key, val, sizeof(val))) {
		/* the answer to a typed command: edited through that interaction's webhook (val "IID:TOKEN") */
		char *colon = strchr(val, ':');

		if (colon && (size_t)(colon - val) == strlen(t.message + 1) &&
		    strncmp(val, t.message + 1, (size_t)(colon - val)) == 0 &&
		    fresh(t.message + 1, bot_now_ms()) && !hook_dead(d, colon + 1))
			sb_addf(&path, "/webhooks/%s/%s/messages/@original", d->app_id, colon + 1);
	} else if (t.message[0] && t.message[0] != '@' && hook && !hook_dead(d, hook->token)) {
		sb_addf(&path, "/webhooks/%s/%s/messages/%s", d->app_id, hook->token, t.message);
	} else if (t.message[0] && t.message[0] != '@') {
		sb_addf(&path, "/channels/%s/messages/%s", row->chat, t.message);
		as_bot = true;
	}
	if (stale_view(view) && !path.len) {
		res->status = 204; /* nothing to edit: nothing is posted, and that is all */
		goto out;
	}
	if (path.len) {
		dc_api(d, "PATCH", sb_str(&path), body, as_bot, res);
		if (stale_view(view) && !platform_failure(res) && res->status >= 400 && res->status < 500 &&
		    res->status != 429) {
			/* gone, or not ours to edit: nothing left to press on it */
			dc_result_release(res);
			memset(res, 0, sizeof(*res));
			res->status = 204;
			goto out;
		}
		if (ok_status(res) && t.message[0] == '@') {
			const char *id = json_string_value(json_object_get(res->body, "id"));

			if (id_ok(id) && message_set(s, row->table, row->chat, view_of(view), id, false))
				gb_log("discord: table %lld: message id %s not recorded", (long long)row->table, id);
		}
		if (res->transport ||
		    (res->status != 404 &&
		     !(hook && res->status >= 400 && res->status < 500 && res->status != 429)))
			goto out;
		/* deleted, or the interaction's token expired: post the table afresh */
		dc_result_release(res);
	}
	if (hook && !hook_dead(d, hook->token))
		post_hook(d, s, hook, row->chat, view, code, row->table, res);
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
	else if (store_meta_get(s, key, buf, sizeof(buf)) || !handle_parse(buf, &h) ||
		 !fresh(h.iid, bot_now_ms()) || hook_dead(d, h.token)) {
		found = false;
		goto out;
	}
	/* a follow-up cannot come before its interaction's answer */
	wait = own ? 0 : gate_wait(d, h.iid);
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
		settle("table message", &res, dl);
	} else {
		post_followup(d, &h, view, false, false, &res);
		settle("follow-up", &res, dl);
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
	if (msg && msg[0] == '@' && hook && hook[0] && !hook_dead(d, hook)) {
		sb_addf(&path, "/webhooks/%s/%s/messages/@original", d->app_id, hook);
	} else if (msg && id_ok(msg) && hooks_only(d, s, row->chat)) {
		if (store_meta_get(s, key, buf, sizeof(buf)) || !handle_parse(buf, &h) ||
		    !fresh(h.iid, bot_now_ms()) || hook_dead(d, h.token))
			goto out;
		sb_addf(&path, "/webhooks/%s/%s/messages/%s", d->app_id, h.token, msg);
	} else if (msg && id_ok(msg)) {
		sb_addf(&path, "/channels/%s/messages/%s", row->chat, msg);
		as_bot = true;
	} else {
		goto out;
	}
	dc_api(d, "PATCH", sb_str(&path), body, as_bot, &res);
	if (!platform_failure(&res) && res.status >= 400 && res.status < 500 && res.status != 429)
		goto out; /* gone, or not ours to edit: its buttons are stale all the same */
	settle("old table message", &res, dl);
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
 * known as the interaction's answer ("@IID"), or handed to its views on
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
	if (!ok_status(&res)) {
		settle("queue message's id", &res, dl);
		goto out;
	}
	id = json_string_value(json_object_get(res.body, "id"));
	rc = id_ok(id) ? record_original(s, row->chat, msg, id) : GB_OK;
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
static int64_t held(void *self, const struct store_out *row)
{
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	struct handle h;
	int64_t wait = handle_parse(origin_of(view), &h) ? gate_wait(self, h.iid) : 0;

	json_decref(view);
	return wait;
}

static void deliver(void *self, struct store *s, const struct store_out *row, struct delivery *dl)
{
	struct discord *d = self;
	struct dc_result res = { 0 };
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *what = "channel message";
	struct handle h;
	bool has_handle = handle_parse(origin_of(view), &h);
	bool live = has_handle && fresh(h.iid, bot_now_ms()) && !hook_dead(d, h.token);
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

		describe(what, &res, why, sizeof(why));
		reach_mark(d, s, row->chat, true, why);
		if (!deliver_hooked(d, s, row, view, kind, live ? &h : NULL, dl))
			unreachable(dl, why);
		goto out;
	}
	if (res.as_bot && !res.transport && res.status == 404 && res.code == DC_UNKNOWN_CHANNEL) {
		/* the channel is gone: its tables stop (stakes back), and no board is sent there again */
		describe(what, &res, dl->why, sizeof(dl->why));
		dl->result = DELIVERY_GIVE_UP;
		adapter_chat_gone(&d->env, "discord", row->chat, dl->why);
		goto out;
	}
	if (hooks && res.as_bot && ok_status(&res))
		reach_mark(d, s, row->chat, false, NULL);
	settle(what, &res, dl);
	goto out;
settle_followup:
	settle("follow-up", &res, dl);
out:
	dc_result_release(&res);
	json_decref(view);
}

/* ---- the adapter ---- */

static bool configured(const struct config *cfg)
{
	return cfg->discord_public_key[0] != '\0';
}

static void dc_free(struct discord *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	sodium_memzero(d->token, sizeof(d->token));
	dc_pace_free(d->pace);
	free(d);
}

/* State from the configuration; GB_ECONFIG (with a line on err) when it cannot work. */
static int dc_new(const struct config *cfg, bool need_key, FILE *err, struct discord **out)
{
	struct discord *d = calloc(1, sizeof(*d));
	size_t n = 0;
	const char *end = NULL;
	int rc = GB_OK;

	*out = NULL;
	if (!d)
		return GB_ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	snprintf(d->api, sizeof(d->api), "%s", cfg->discord_api);
	n = strlen(d->api);
	while (n && d->api[n - 1] == '/')
		d->api[--n] = '\0';
	snprintf(d->token, sizeof(d->token), "%s", cfg->discord_token);
	if (!id_ok(cfg->discord_app_id)) {
		fprintf(err, "discord: discord_app_id (DISCORD_APP_ID) must be the application's id\n");
		rc = GB_ECONFIG;
		goto out;
	}
	snprintf(d->app_id, sizeof(d->app_id), "%s", cfg->discord_app_id);
	if (need_key &&
	    (sodium_hex2bin(d->pk, sizeof(d->pk), cfg->discord_public_key,
			    strlen(cfg->discord_public_key), NULL, &n, &end) ||
	     n != sizeof(d->pk) || *end)) {
		fprintf(err, "discord: discord_public_key (DISCORD_PUBLIC_KEY) must be 64 hex digits\n");
		rc = GB_ECONFIG;
		goto out;
	}
out:
	if (rc)
		dc_free(d);
	else
		*out = d;
	return rc;
}

static int start(const struct adapter_env *env, void **self)
{
	struct discord *d = NULL;
	int rc;

	*self = NULL;
	if (sodium_init() < 0)
		return GB_EIO;
	rc = dc_new(env->cfg, true, stderr, &d);
	if (rc)
		return rc;
	d->env = *env;
	d->pace = dc_pace_new();
	if (!d->pace) {
		dc_free(d);
		return GB_ENOMEM;
	}
	if (!d->token[0])
		gb_log("discord: no bot token (DISCORD_TOKEN): interactions are answered, but tables "
		       "cannot be posted or edited once their interaction is over");
	gb_log("discord: started: interactions on POST /discord, API %s", d->api);
	*self = d;
	return GB_OK;
}

static int routes(void *self, struct http_route *out, int max)
{
	if (max < 1)
		return 0;
	out[0] = (struct http_route){ .method = "POST", .path = "/discord", .fn = interactions,
				      .arg = self, .admit = admit };
	return 1;
}

static void stop(void *self)
{
	if (!self)
		return;
	gb_log("discord: stopped");
	dc_free(self);
}

/*
 * Does Discord answer the bot (GET /users/@me with its token; /gateway,
 * which needs none, without a token)? enum probe_result.
 */
static int probe(void *self)
{
	struct discord *d = self;
	struct dc_result res;
	int pr;

	for (int i = 0; i < 2; i++) {
		struct timespec nap;

		if (d->token[0])
			dc_api(d, "GET", "/users/@me", NULL, true, &res);
		else
			dc_api(d, "GET", "/gateway", NULL, false, &res);
		if (!res.paced || res.retry_ms > 2000 || i)
			break;
		/* our own pacing held it back: a probe not made says nothing, so it waits its turn once */
		nap.tv_sec = (time_t)(res.retry_ms / 1000);
		nap.tv_nsec = (long)(res.retry_ms % 1000) * 1000000L;
		dc_result_release(&res);
		nanosleep(&nap, NULL);
	}
	if (res.paced || (platform_failure(&res) && res.status != 401))
		pr = PROBE_DOWN;
	else if (res.status == 401 && res.as_bot)
		pr = PROBE_UNAUTHORIZED;
	else
		pr = PROBE_UP;
	dc_result_release(&res);
	return pr;
}

const struct adapter discord_adapter = {
	.name = "discord",
	.configured = configured,
	.start = start,
	.routes = routes,
	.deliver = deliver,
	.held = held,
	.probe = probe,
	.stop = stop,
};

/* ---- gamebot discord-register ---- */

int discord_register_main(int argc, char **argv, const struct config *cfg, FILE *out, FILE *err)
{
	struct discord *d = NULL;
	struct dc_result res = { 0 };
	struct strbuf path = { 0 };
	const char *guild = NULL;
	json_t *set = NULL, *c;
	char why[200];
	size_t i;
	int status = 0;

	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--guild") == 0 && k + 1 < argc && id_ok(argv[k + 1])) {
			guild = argv[++k];
		} else {
			fprintf(err, "discord-register: unknown option '%s'\n"
				     "usage: gamebot discord-register [--guild ID]\n", argv[k]);
			return 2;
		}
	}
	if (!cfg->discord_token[0]) {
		fputs("discord-register: discord_token is not set (DISCORD_TOKEN)\n", err);
		return 2;
	}
	if (dc_new(cfg, false, err, &d))
		return 2;
	set = dc_command_set();
	if (guild)
		sb_addf(&path, "/applications/%s/guilds/%s/commands", d->app_id, guild);
	else
		sb_addf(&path, "/applications/%s/commands", d->app_id);
	dc_api(d, "PUT", sb_str(&path), set, true, &res);
	if (!ok_status(&res) || !json_is_array(res.body)) {
		describe("PUT commands", &res, why, sizeof(why));
		fprintf(err, "discord-register: %s\n", why);
		status = 1;
		goto out;
	}
	fprintf(out, "commands registered %s%s: %zu\n", guild ? "in guild " : "globally",
		guild ? guild : "", json_array_size(res.body));
	json_array_foreach(res.body, i, c) {
		const json_t *opt;
		size_t k;

		fprintf(out, "/%s", str_or(json_object_get(c, "name"), "?"));
		json_array_foreach(json_object_get(c, "options"), k, opt)
			fprintf(out, json_is_true(json_object_get(opt, "required")) ? " %s" : " [%s]",
				str_or(json_object_get(opt, "name"), "?"));
		fprintf(out, "%s - %s\n",
			json_object_get(c, "default_member_permissions") &&
					!json_is_null(json_object_get(c, "default_member_permissions"))
				? " (admins)"
				: "",
			str_or(json_object_get(c, "description"), ""));
	}
out:
	dc_result_release(&res);
	json_decref(set);
	sb_release(&path);
	dc_free(d);
	return status;
}
