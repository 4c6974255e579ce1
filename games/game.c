/*
 * game.c - the helpers every game shares: house rule tables, the
 * contract's state JSON with its sorted "legal" list, and forgiving readers
 * for action words and numbers. It names no game: the games stand above it,
 * and the registry of them (games/rows/registry.c) above their rows.
 */
#include "game.h"

#include <stdlib.h>
#include <string.h>

void gb_events_push(struct gb_events *ev, int type, int seat, int a, int b, int c)
{
	if (!ev)
		return;
	if (ev->n >= GB_MAX_EVENTS) {
		ev->dropped++;
		return;
	}
	ev->ev[ev->n++] = (struct gb_event){ type, seat, a, b, c };
}

void gb_setup_init(struct gb_setup *su, const struct gb_game *g)
{
	memset(su, 0, sizeof(*su));
	su->players = g ? g->default_players : 2;
}

/* Index of key among the n house rules of defs, or -1. */
static int def_index(const struct gb_rule_def *defs, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(defs[i].key, key) == 0)
			return i;
	return -1;
}

/* gb_rules_set() over the n house rules of defs. */
static int defs_set(const struct gb_rule_def *defs, int n, struct gb_rules *r, const char *key,
		    const char *value)
{
	int i = def_index(defs, n, key);

	if (i < 0)
		return GB_ERULE_KEY;
	for (int v = 0; defs[i].values[v]; v++) {
		if (strcmp(defs[i].values[v], value) == 0) {
			r->v[i] = (unsigned char)v;
			return GB_OK;
		}
	}
	return GB_ERULE_VALUE;
}

int gb_rule_index(const struct gb_game *g, const char *key)
{
	return def_index(g->rules, g->nrules, key);
}

int gb_rules_set(const struct gb_game *g, struct gb_rules *r, const char *key, const char *value)
{
	return defs_set(g->rules, g->nrules, r, key, value);
}

int gb_rules_set_kv(const struct gb_game *g, struct gb_rules *r, const char *kv)
{
	char key[64];
	const char *eq = strchr(kv, '=');
	size_t len;

	if (!eq)
		return GB_EPARSE;
	len = (size_t)(eq - kv);
	if (len == 0 || len >= sizeof(key))
		return len ? GB_ERULE_KEY : GB_EPARSE;
	memcpy(key, kv, len);
	key[len] = '\0';
	return gb_rules_set(g, r, key, eq + 1);
}

const char *gb_rule_value(const struct gb_game *g, const struct gb_rules *r, int i)
{
	return g->rules[i].values[r->v[i]];
}

json_t *gb_rule_defs_json(const struct gb_rule_def *defs, int n, const struct gb_rules *r)
{
	json_t *o = json_object();

	for (int i = 0; o && i < n; i++)
		json_object_set_new(o, defs[i].key, json_string(defs[i].values[r->v[i]]));
	return o;
}

json_t *gb_rules_to_json(const struct gb_game *g, const struct gb_rules *r)
{
	return gb_rule_defs_json(g->rules, g->nrules, r);
}

int gb_rule_defs_from_json(const struct gb_rule_def *defs, int n, struct gb_rules *r, const json_t *j)
{
	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return GB_ESTATE;
	for (int i = 0; i < n; i++) {
		json_t *v = json_object_get(j, defs[i].key);

		if (!v)
			continue;
		if (!json_is_string(v) || defs_set(defs, n, r, defs[i].key, json_string_value(v)))
			return GB_ESTATE;
	}
	return GB_OK;
}

int gb_rules_from_json(const struct gb_game *g, struct gb_rules *r, const json_t *j)
{
	return gb_rule_defs_from_json(g->rules, g->nrules, r, j);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The legal actions' canonical texts into text[], ptr[] pointing at them sorted; their count. */
static int legal_sorted(const struct gb_game *g, const void *st, char text[][GB_ACTION_TEXT],
			const char *ptr[])
{
	struct gb_action acts[GB_MAX_LEGAL];
	int n = g->legal(st, acts);

	for (int i = 0; i < n; i++) {
		g->format(st, &acts[i], text[i], GB_ACTION_TEXT);
		ptr[i] = text[i];
	}
	qsort(ptr, (size_t)(n > 0 ? n : 0), sizeof(ptr[0]), cmp_str);
	return n;
}

json_t *gb_legal_json(const struct gb_game *g, const void *st)
{
	char text[GB_MAX_LEGAL][GB_ACTION_TEXT];
	const char *ptr[GB_MAX_LEGAL];
	int n = legal_sorted(g, st, text, ptr);
	json_t *arr = json_array();

	for (int i = 0; arr && i < n; i++)
		json_array_append_new(arr, json_string(ptr[i]));
	return arr;
}

bool gb_text_str(struct strbuf *sb, const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e || s[n] == '"' || s[n] == '\\')
			return false;
	sb_addn(sb, "\"", 1);
	sb_addn(sb, s, n);
	sb_addn(sb, "\"", 1);
	return true;
}

void gb_text_int(struct strbuf *sb, long long v)
{
	char digits[24], *p = digits + sizeof(digits);
	/* the magnitude as unsigned: the most negative value has no positive twin */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sb_addn(sb, p, (size_t)(digits + sizeof(digits) - p));
}

bool gb_rule_defs_text(const struct gb_rule_def *defs, int n, const struct gb_rules *r, struct strbuf *sb)
{
	bool ok = true;

	sb_addn(sb, "{", 1);
	for (int i = 0; ok && i < n; i++) {
		if (i)
			sb_addn(sb, ",", 1);
		ok = gb_text_str(sb, defs[i].key);
		sb_addn(sb, ":", 1);
		ok = ok && gb_text_str(sb, defs[i].values[r->v[i]]);
	}
	sb_addn(sb, "}", 1);
	return ok;
}

bool gb_rules_text(const struct gb_game *g, const struct gb_rules *r, struct strbuf *sb)
{
	return gb_rule_defs_text(g->rules, g->nrules, r, sb);
}

bool gb_state_text(const struct gb_game *g, const void *st, struct strbuf *sb)
{
	char text[GB_MAX_LEGAL][GB_ACTION_TEXT];
	const char *ptr[GB_MAX_LEGAL];
	struct gb_outcome oc;
	size_t start = sb->len;
	int turn, n;
	bool ok;

	if (!g->to_text)
		return false;
	turn = g->turn(st);
	g->outcome(st, &oc);
	sb_addn(sb, "{\"game\":", 8);
	ok = gb_text_str(sb, g->name);
	sb_add(sb, oc.over ? ",\"over\":true,\"turn\":" : ",\"over\":false,\"turn\":");
	if (turn < 0)
		sb_addn(sb, "null", 4);
	else
		gb_text_int(sb, turn);
	ok = ok && g->to_text(st, sb);
	n = legal_sorted(g, st, text, ptr);
	sb_addn(sb, ",\"legal\":[", 10);
	for (int i = 0; ok && i < n; i++) {
		if (i)
			sb_addn(sb, ",", 1);
		ok = gb_text_str(sb, ptr[i]);
	}
	sb_addn(sb, "]}", 2);
	if (!ok || sb->failed) {
		if (!sb->failed && sb->buf) {
			sb->len = start;
			sb->buf[start] = '\0';
		}
		return false;
	}
	return true;
}

json_t *gb_state_json(const struct gb_game *g, const void *st)
{
	struct gb_outcome oc;
	json_t *own = g->to_json(st);
	json_t *o = json_object();
	int turn = g->turn(st);

	if (!o || !own) {
		json_decref(o);
		json_decref(own);
		return NULL;
	}
	g->outcome(st, &oc);
	json_object_set_new(o, "game", json_string(g->name));
	json_object_set_new(o, "over", json_boolean(oc.over));
	json_object_set_new(o, "turn", turn < 0 ? json_null() : json_integer(turn));
	json_object_update(o, own);
	json_decref(own);
	json_object_set_new(o, "legal", gb_legal_json(g, st));
	return o;
}

bool gb_action_is_legal(const struct gb_game *g, const void *st, const struct gb_action *act)
{
	struct gb_action acts[GB_MAX_LEGAL];
	int n = g->legal(st, acts);

	for (int i = 0; i < n; i++)
		if (acts[i].kind == act->kind && acts[i].a == act->a && acts[i].b == act->b)
			return true;
	return false;
}

const char *gb_next_word(const char *s, char *buf, size_t n)
{
	size_t len = 0;

	if (!s || n == 0)
		return NULL;
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	if (!*s)
		return NULL;
	while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
		char c = *s++;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (len + 1 >= n) {
			/* a word longer than the buffer is not read as its first part */
			buf[0] = '\0';
			return NULL;
		}
		buf[len++] = c;
	}
	buf[len] = '\0';
	return s;
}

int gb_parse_uint(const char *s, int max, int *out)
{
	long v = 0;
	int digits = 0;
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return GB_EPARSE;
	while (*p) {
		int d;

		if (*p >= '0' && *p <= '9') {
			d = *p - '0';
			p++;
		} else if (p[0] == 0xe0 && p[1] == 0xa5 && p[2] >= 0xa6 && p[2] <= 0xaf) {
			/* Devanagari digits U+0966..U+096F are E0 A5 A6..AF in UTF-8 */
			d = p[2] - 0xa6;
			p += 3;
		} else {
			return GB_EPARSE;
		}
		v = v * 10 + d;
		if (v > max)
			return GB_EPARSE;
		digits++;
	}
	if (!digits)
		return GB_EPARSE;
	*out = (int)v;
	return GB_OK;
}
