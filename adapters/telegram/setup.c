/*
 * setup.c - `gamebot telegram-setup`: the bot's command menus in every
 * language, its webhook set or removed, and what getMe says of it.
 */
#include "adapters/telegram/internal.h"

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
	tg_describe(method, res, why, sizeof(why));
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

		for (size_t k = 0; k < sizeof(tg_allowed_updates) / sizeof(tg_allowed_updates[0]); k++)
			json_array_append_new(list, json_string(tg_allowed_updates[k]));
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
