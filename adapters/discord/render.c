/*
 * render.c - views out: a message's text cut to Discord's limits
 * (dc_message_text()) and a view's buttons as components, rows of buttons
 * or a select menu (dc_components()). Pure: no I/O, no state.
 */
#include "adapters/discord/internal.h"

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
