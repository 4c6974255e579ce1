/*
 * receive.c - receiving: the interactions route (POST /discord): the
 * signature admitted before the body is read (dc_admit()), then a ping,
 * an autocomplete, an interaction of another application or a command run
 * and answered (dc_interactions()).
 */
#include "adapters/discord/internal.h"

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

	dc_option_text(dc_option_named(data, "game"), game, sizeof(game));
	dc_option_text(dc_option_named(data, "key"), key, sizeof(key));
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
	dc_option_text(focused, typed, sizeof(typed));
	if (strcmp(verb, "settings") == 0) {
		settings_choices(ia->data, dc_str_or(json_object_get(focused, "name"), ""),
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
			const char *rest;
			char name[DC_OPTION_MAX + 1];

			/* the verb matched first: only then is rest within the command */
			if (strcmp(ch[k].chat, ia->channel) || strncmp(ch[k].cmd + 1, verb, vlen) ||
			    ch[k].cmd[1 + vlen] != ' ')
				continue;
			rest = ch[k].cmd + 2 + vlen;
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
	return dc_answer(8, data);
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
		return dc_answer(6, NULL);
	if (ia->type == IT_AUTOCOMPLETE)
		return dc_answer(8, json_pack("{s[]}", "choices"));
	view = json_pack("{ss}", "text", tr(dc_chat_lang(b, ia->channel), M_DC_NOT_OURS));
	a = dc_answer(4, dc_message_data(view, false, true));
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
	if (dc_interaction_parse(body, len, &ia)) {
		gb_log("discord: malformed interaction of %zu bytes refused", len);
		status = 400;
		goto out;
	}
	if (ia.type == IT_PING) {
		*out = dc_answer(1, NULL);
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
		status = dc_run_interaction(d, b, &ia, out);
out:
	dc_interaction_release(&ia);
	return status;
}

/*
 * Before the body is read: a request without both signature headers in
 * their form (or with a timestamp out of the window) is no interaction,
 * and is refused at the cost of its headers. The signature itself needs
 * the body: the handler checks it.
 */
int dc_admit(void *arg, const struct http_request *req)
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

void dc_interactions(void *arg, const struct http_request *req, struct http_response *resp)
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
