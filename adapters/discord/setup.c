/*
 * setup.c - the slash command set made from the router's table
 * (dc_command_set()) and `gamebot discord-register`, which registers it
 * with Discord for the application.
 */
#include "adapters/discord/internal.h"

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
		/* installed to servers; used in them and in the bot's own direct messages */
		json_object_set_new(cmd, "integration_types", json_pack("[i]", 0));
		json_object_set_new(cmd, "contexts", json_pack("[ii]", 0, 1));
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
		if (strcmp(argv[k], "--guild") == 0 && k + 1 < argc && dc_id_ok(argv[k + 1])) {
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
	if (!dc_ok_status(&res) || !json_is_array(res.body)) {
		dc_describe("PUT commands", &res, why, sizeof(why));
		fprintf(err, "discord-register: %s\n", why);
		status = 1;
		goto out;
	}
	fprintf(out, "commands registered %s%s: %zu\n", guild ? "in guild " : "globally",
		guild ? guild : "", json_array_size(res.body));
	json_array_foreach(res.body, i, c) {
		const json_t *opt;
		size_t k;

		fprintf(out, "/%s", dc_str_or(json_object_get(c, "name"), "?"));
		json_array_foreach(json_object_get(c, "options"), k, opt)
			fprintf(out, json_is_true(json_object_get(opt, "required")) ? " %s" : " [%s]",
				dc_str_or(json_object_get(opt, "name"), "?"));
		fprintf(out, "%s - %s\n",
			json_object_get(c, "default_member_permissions") &&
					!json_is_null(json_object_get(c, "default_member_permissions"))
				? " (admins)"
				: "",
			dc_str_or(json_object_get(c, "description"), ""));
	}
out:
	dc_result_release(&res);
	json_decref(set);
	sb_release(&path);
	dc_free(d);
	return status;
}
