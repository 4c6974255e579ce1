/*
 * context.c - the context a command's handler works in, and the helpers it
 * works with: the chat's settings and language, the table loaded with its
 * game, seats, log strip and terms (seed and stake), an online table's
 * seats in their people's private chats, the replies it queues, the
 * timers it asks for, the names of games and seats. Handlers describe
 * what should happen here; commit.c writes it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "bot/base/log.h"
#include "bot/internal.h"
#include "bot/render/games.h"
#include "games/ai/ai.h"
#include "games/game.h"
#include "games/utf8.h"

int count_words(const char *s)
{
	int n = 0;
	bool in = false;

	for (; *s; s++) {
		bool blank = *s == ' ' || *s == '\t';

		if (!blank && !in)
			n++;
		in = !blank;
	}
	return n;
}

const char *arg_word(const char *s, char *buf, size_t n)
{
	const char *end = gb_next_word(s, buf, n);
	size_t len = 0, cut;

	if (end || !s || n < 5)
		return end;
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	if (!*s)
		return NULL;
	while (s[len] && s[len] != ' ' && s[len] != '\t' && s[len] != '\r' && s[len] != '\n')
		len++;
	/* room for "…" (3 bytes) and the NUL; never split a character */
	cut = utf8_cut(s, len, n - 4);
	memcpy(buf, s, cut);
	memcpy(buf + cut, "…", sizeof("…"));
	return s + len;
}

/*
 * A JSON string of text (caller owns). json_string() refuses text that is
 * not UTF-8 outright, which would drop the whole field; replies are built
 * from typed words and names, so any invalid byte that got this far (a
 * fixed buffer cut a character) is shown as U+FFFD instead.
 */
json_t *json_text(const char *text)
{
	json_t *j;
	struct strbuf sb = { 0 };
	size_t len;

	if (!text)
		return NULL;
	/* checked here already: jansson need not look at every byte again */
	if (utf8_valid_len(text, &len))
		return json_stringn_nocheck(text, len);
	sb_add_utf8(&sb, text);
	j = json_string(sb_str(&sb));
	sb_release(&sb);
	return j;
}

json_t *reply_push(struct ctx *c, const char *kind, const char *user, const char *text)
{
	json_t *r = json_object();

	json_object_set_new(r, "kind", json_string(kind));
	if (user)
		json_object_set_new(r, "user", json_text(user));
	json_object_set_new(r, "text", json_text(text));
	json_array_append_new(c->replies, r);
	return r;
}

static void reply_v(struct ctx *c, const char *kind, const char *user, int key, va_list ap)
{
	struct strbuf sb = { 0 };

	va_list again;
	json_t *r;

	/* one style of digits per message, the echo of what was typed included */
	va_copy(again, ap);
	i18n_vformat(&sb, chat_digits_devanagari(c), tr(c->lang, key), ap);
	r = reply_push(c, kind, user, sb_str(&sb));
	sb_release(&sb);
	if (c->online) {
		/* an online table's seats each read it in their own language */
		json_t *texts = json_array();

		for (int l = 0; l < LANG_COUNT; l++) {
			va_list each;

			va_copy(each, again);
			i18n_vformat(&sb, l == LANG_NE && strcmp(setting_str(c, "digits", "devanagari"), "ascii"),
				     tr(l, key), each);
			va_end(each);
			json_array_append_new(texts, json_text(sb_str(&sb)));
			sb_release(&sb);
		}
		json_object_set_new(r, "texts", texts);
	}
	va_end(again);
}

/* (name in parentheses: the function, not the checking macro of bot/internal.h) */
void (reply_public)(struct ctx *c, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	reply_v(c, "public", NULL, key, ap);
	va_end(ap);
}

void (reply_alert)(struct ctx *c, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	reply_v(c, "alert", c->cmd->user, key, ap);
	va_end(ap);
}

void reply_keep_secret(struct ctx *c)
{
	json_t *alert = json_array_get(c->replies, json_array_size(c->replies) - 1);
	char name[STORE_NAME_LEN];

	if (!alert)
		return;
	json_object_set_new(alert, "secret", json_true());
	/*
	 * Answered in place (a press's alert, a Discord interaction), in a
	 * private chat, or at an online table (each seat's own chat): the
	 * caller alone reads it already. Typed in a group, the chat sees that
	 * an answer went, and nothing of it.
	 */
	if (c->cmd->reply[0] || c->cmd->private_chat || c->online)
		return;
	if (c->my_seat >= 0)
		seat_name(c, c->my_seat, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", c->cmd->user_name);
	reply_public(c, M_CB_REFUSED_PRIVATELY, name);
	json_object_set_new(json_array_get(c->replies, json_array_size(c->replies) - 1), "cover", json_true());
}

void reply_merge_langs(struct ctx *c, size_t at)
{
	size_t n = json_array_size(c->replies), each = (n - at) / LANG_COUNT;
	json_t *merged;

	/* one pass per language, each the same lines: the line i of pass l is at + l * each + i */
	if (!c->online || n <= at || (n - at) % LANG_COUNT)
		return;
	merged = json_array();
	for (size_t i = 0; i < each; i++) {
		json_t *r = json_array_get(c->replies, at + (size_t)c->lang * each + i), *texts = json_array();

		for (int l = 0; l < LANG_COUNT; l++) {
			json_t *t = json_object_get(json_array_get(c->replies, at + (size_t)l * each + i), "text");

			if (t)
				json_array_append(texts, t);
			else
				json_array_append_new(texts, json_string(""));
		}
		json_object_set_new(r, "texts", texts);
		json_array_append(merged, r);
	}
	while (json_array_size(c->replies) > at)
		json_array_remove(c->replies, at);
	json_array_extend(c->replies, merged);
	json_decref(merged);
}

void reply_private(struct ctx *c, const char *user, const char *text)
{
	reply_push(c, "private", user, text);
}

void reply_mark_seating(struct ctx *c)
{
	size_t n = json_array_size(c->replies);

	if (n)
		json_object_set_new(json_array_get(c->replies, n - 1), "seating", json_true());
}

void ctx_timer(struct ctx *c, const char *kind, int64_t due_ms)
{
	if (c->ntimers >= (int)(sizeof(c->timers) / sizeof(c->timers[0])))
		return;
	snprintf(c->timers[c->ntimers].kind, sizeof(c->timers[0].kind), "%s", kind);
	c->timers[c->ntimers].due_ms = due_ms;
	c->ntimers++;
}

/* ---- settings ---- */

const char *setting_str(struct ctx *c, const char *key, const char *def)
{
	json_t *v = json_object_get(c->settings, key);

	return json_is_string(v) ? json_string_value(v) : def;
}

int setting_int(struct ctx *c, const char *key, int def)
{
	json_t *v = json_object_get(c->settings, key);

	return json_is_integer(v) ? (int)json_integer_value(v) : def;
}

bool chat_digits_devanagari(struct ctx *c)
{
	return c->lang == LANG_NE && strcmp(setting_str(c, "digits", "devanagari"), "devanagari") == 0;
}

void chat_rules(struct ctx *c, const struct gb_game *g, struct gb_rules *out)
{
	json_t *all = json_object_get(c->settings, "rules");

	memset(out, 0, sizeof(*out));
	if (json_is_object(all) && json_is_object(json_object_get(all, g->name)))
		gb_rules_from_json(g, out, json_object_get(all, g->name));
}

const char *ctx_num(struct ctx *c, int v, char buf[24])
{
	struct render_ctx rc = { .devanagari = chat_digits_devanagari(c) };
	struct strbuf sb = { 0 };

	render_int(&rc, v, &sb);
	snprintf(buf, 24, "%s", sb_str(&sb));
	sb_release(&sb);
	return buf;
}

/*
 * Does text start with name (blanks between words matching any run of
 * blanks, ASCII case ignored) followed by a blank or the end? Returns the
 * length matched in text, or 0.
 */
static size_t starts_with_name(const char *text, const char *name)
{
	const char *t = text, *n = name;

	while (*n) {
		if (*n == ' ') {
			if (*t != ' ' && *t != '\t')
				return 0;
			while (*t == ' ' || *t == '\t')
				t++;
			while (*n == ' ')
				n++;
			continue;
		}
		if (!*t)
			return 0;
		{
			char a = *t >= 'A' && *t <= 'Z' ? (char)(*t - 'A' + 'a') : *t;
			char b = *n >= 'A' && *n <= 'Z' ? (char)(*n - 'A' + 'a') : *n;

			if (a != b)
				return 0;
		}
		t++;
		n++;
	}
	return *t == '\0' || *t == ' ' || *t == '\t' ? (size_t)(t - text) : 0;
}

/* The longest name of g (its name, a title, an alias) that text starts with: its length, or 0. */
static size_t game_named(const struct gb_game *g, const char *text)
{
	const struct bot_game *row = bot_game_of(g);
	size_t best = starts_with_name(text, g->name), len;

	for (int l = 0; row && l < LANG_COUNT; l++) {
		len = starts_with_name(text, row->title[l]);
		best = len > best ? len : best;
	}
	for (int i = 0; row && row->aliases && row->aliases[i]; i++) {
		len = starts_with_name(text, row->aliases[i]);
		best = len > best ? len : best;
	}
	return best;
}

const struct gb_game *game_lookup(const char *text, const char **rest)
{
	const struct gb_game *best = NULL;
	size_t best_len = 0, len;

	while (text && (*text == ' ' || *text == '\t'))
		text++;
	for (int i = 0; text && gb_games[i]; i++) {
		len = game_named(gb_games[i], text);
		if (len > best_len) {
			best = gb_games[i];
			best_len = len;
		}
	}
	if (rest)
		*rest = text ? text + best_len : text;
	return best;
}

const char *game_title(struct ctx *c, const struct gb_game *g)
{
	return bot_game_title(g, c->lang);
}

void reply_usage(struct ctx *c, const char *usage)
{
	struct strbuf names = { 0 }, line = { 0 };

	games_join(&names, "", "|", NULL);
	sb_addtr(&line, usage, sb_str(&names));
	reply_alert(c, M_ARGS, sb_str(&line));
	sb_release(&names);
	sb_release(&line);
}

void reply_no_table(struct ctx *c)
{
	struct strbuf list = { 0 }, last = { 0 };

	sb_addf(&last, " %s ", tr(c->lang, M_OR));
	games_join(&list, "/new ", ", ", sb_str(&last));
	reply_alert(c, M_NO_TABLE, sb_str(&list));
	sb_release(&list);
	sb_release(&last);
}

void reply_unknown_game(struct ctx *c, const char *name)
{
	struct strbuf list = { 0 };

	games_join(&list, "", ", ", NULL);
	reply_alert(c, M_UNKNOWN_GAME, name, sb_str(&list));
	sb_release(&list);
}

bool seat_is_person(const struct ctx *c, int seat)
{
	return seat >= 0 && seat < c->nseats && c->seats[seat].level < 0 && c->seats[seat].user[0];
}

bool seat_is_free(const struct ctx *c, int seat)
{
	return seat >= 0 && seat < c->nseats && c->seats[seat].level < 0 && !c->seats[seat].user[0];
}

const char *level_word(struct ctx *c, int level)
{
	return tr(c->lang, M_LEVEL_RANDOM + (level >= 0 && level < GB_LEVEL_COUNT ? level : 0));
}

const char *seat_name(struct ctx *c, int seat, char *buf, size_t n)
{
	char num[24];

	if (seat < 0 || seat >= c->nseats)
		snprintf(buf, n, "?");
	else if (c->seats[seat].level >= 0 && c->seats[seat].user[0])
		msg_snprintf(buf, n, c->lang, M_BOT_FOR, c->seats[seat].name);
	else if (c->seats[seat].level >= 0)
		msg_snprintf(buf, n, c->lang, M_BOT_NAME, ctx_num(c, seat + 1, num));
	else
		snprintf(buf, n, "%s", c->seats[seat].name);
	return buf;
}

void ctx_render_init(struct ctx *c, struct render_ctx *rc, char names[][STORE_NAME_LEN])
{
	memset(rc, 0, sizeof(*rc));
	rc->game = c->game;
	rc->st = c->st;
	rc->lang = c->lang;
	rc->devanagari = chat_digits_devanagari(c);
	rc->nseats = c->nseats;
	for (int i = 0; i < c->nseats; i++) {
		seat_name(c, i, names[i], STORE_NAME_LEN);
		rc->names[i] = names[i];
	}
}

/* ---- load, commit, release ---- */

void ctx_init(struct ctx *c, struct bot *b, const struct command *cmd)
{
	memset(c, 0, offsetof(struct ctx, moves));
	memset(&c->ow, 0, offsetof(struct ctx, ow.block) - offsetof(struct ctx, ow));
	c->b = b;
	c->cmd = cmd;
	c->my_seat = -1;
}

void ctx_release(struct ctx *c)
{
	store_chat_release(&c->chat);
	store_table_release(&c->table);
	json_decref(c->settings);
	c->settings = NULL;
	free(c->settings_text);
	c->settings_text = NULL;
	json_decref(c->log_saved);
	c->log_saved = NULL;
	for (size_t i = 0; i < c->nreply_text; i++)
		free(c->reply_text[i]);
	free(c->reply_text);
	c->reply_text = NULL;
	c->nreply_text = 0;
	json_decref(c->replies);
	c->replies = NULL;
	free(c->st);
	c->st = NULL;
	for (int i = 0; i < c->nmoves; i++)
		free(c->moves[i].events);
	c->nmoves = 0;
}

/* One number of a saved event, clamped to int (anything else reads as 0). */
static int log_int(json_int_t v)
{
	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

void ctx_log_keep(struct ctx *c, const struct gb_event *e)
{
	if (c->nlog == LOG_KEEP) {
		memmove(&c->log[0], &c->log[1], (LOG_KEEP - 1) * sizeof(c->log[0]));
		c->nlog--;
	}
	c->log[c->nlog++] = *e;
	c->log_changed = true;
}

/*
 * The log strip from a saved wrapper: the string above, or the array of
 * [type, seat, a, b, c] arrays tables saved before it. What is not an
 * event is read as far as it goes; the strip only shows, it decides nothing.
 */
static void log_read(struct ctx *c, json_t *lg)
{
	size_t i;
	json_t *e;

	json_decref(c->log_saved);
	c->log_saved = json_incref(lg);
	c->nlog = 0;
	if (json_is_string(lg)) {
		const char *p = json_string_value(lg);

		while (*p) {
			struct gb_event ev;
			long v[5];
			char *end;
			int k;

			for (k = 0; k < 5; k++, p = end) {
				v[k] = strtol(p, &end, 10);
				if (end == p)
					break;
			}
			if (k < 5)
				break;
			ev = (struct gb_event){ log_int(v[0]), log_int(v[1]), log_int(v[2]), log_int(v[3]),
						log_int(v[4]) };
			ctx_log_keep(c, &ev);
			if (*p != ',')
				break;
			p++;
		}
	}
	json_array_foreach(lg, i, e) {
		struct gb_event ev = { log_int(json_integer_value(json_array_get(e, 0))),
				       log_int(json_integer_value(json_array_get(e, 1))),
				       log_int(json_integer_value(json_array_get(e, 2))),
				       log_int(json_integer_value(json_array_get(e, 3))),
				       log_int(json_integer_value(json_array_get(e, 4))) };

		ctx_log_keep(c, &ev);
	}
	/* as saved: written back unchanged while no event is added */
	c->log_changed = false;
}

/* Read the table's wrapper JSON: {"game": state, "log": "...", "seq": n, "watch": b}. */
int ctx_load_table(struct ctx *c)
{
	json_error_t err;
	json_t *w;
	int rc = GB_OK;
	bool hit;

	c->game = gb_game_find(c->table.game);
	if (!c->game)
		return GB_ESTATE;
	c->nlog = 0;
	c->facts_known = false; /* until the cache hands over this table's */
	snprintf(c->owner, sizeof(c->owner), "%s", c->table.creator);
	hit = c->table.state && statecache_get(c);
	/*
	 * Moves are numbered after the log itself, not after the wrapper's
	 * copy of the count: a damaged copy would make every later move
	 * collide with the log (or break its 1..N) and the table unplayable.
	 * At a version this process wrote, the number came with the decoded
	 * state (c->facts_known).
	 */
	if (!c->facts_known) {
		rc = store_move_last(c->b->store, c->table.id, &c->seq);
		if (rc)
			return rc;
	}
	/* past the lobby the wrapper must hold the game: without it the state is unreadable too */
	if (hit)
		return c->table.status != STORE_LOBBY && !c->st ? GB_ESTATE : GB_OK;
	if (!c->table.state)
		return GB_OK;
	w = json_loads(c->table.state, 0, &err);
	if (!json_is_object(w) || (c->table.status != STORE_LOBBY && !json_object_get(w, "game"))) {
		json_decref(w);
		return GB_ESTATE;
	}
	c->watch = json_is_true(json_object_get(w, "watch"));
	if (json_is_string(json_object_get(w, "owner")))
		snprintf(c->owner, sizeof(c->owner), "%s", json_string_value(json_object_get(w, "owner")));
	log_read(c, json_object_get(w, "log"));
	if (json_object_get(w, "game")) {
		c->st = calloc(1, c->game->state_size);
		if (!c->st)
			rc = GB_ENOMEM;
		else
			rc = c->game->from_json(c->st, json_object_get(w, "game"));
	}
	if (!rc)
		statecache_put(c, c->table.state, json_is_string(json_object_get(w, "owner")));
	json_decref(w);
	return rc;
}

/*
 * With GAMEBOT_CACHE_CHECK set (the test suites): what came with the
 * decoded state (statecache_known()) read from the store as well, the
 * process stopped at the first difference.
 */
static int check_facts(struct ctx *c)
{
	struct store_seat seats[GB_MAX_SEATS];
	struct store_terms terms = { 0 };
	int n = 0, seq = 0;
	int rc = store_move_last(c->b->store, c->table.id, &seq);

	if (!rc)
		rc = store_seats_get(c->b->store, c->table.id, seats, GB_MAX_SEATS, &n);
	if (!rc && c->terms_loaded) {
		rc = store_terms_get(c->b->store, c->table.id, &terms);
		if (rc == GB_ENOTFOUND)
			rc = GB_OK;
	}
	if (rc)
		return rc;
	bool same = seq == c->seq && n == c->nseats &&
		    (!c->terms_loaded || (!strcmp(terms.seed, c->terms.seed) && terms.stake == c->terms.stake));

	for (int i = 0; same && i < n; i++)
		same = seats[i].seat == c->seats[i].seat && seats[i].level == c->seats[i].level &&
		       !strcmp(seats[i].user, c->seats[i].user) && !strcmp(seats[i].name, c->seats[i].name);
	if (!same) {
		gb_log("table %lld at version %lld: the cached seats, last move (%d, stored %d) or terms"
		       " differ from the store", (long long)c->table.id, (long long)c->table.version,
		       c->seq, seq);
		abort();
	}
	return GB_OK;
}

int ctx_load_seats(struct ctx *c)
{
	int rc = GB_OK;

	if (!c->facts_known)
		rc = store_seats_get(c->b->store, c->table.id, c->seats, GB_MAX_SEATS, &c->nseats);
	else if (statecache_checking())
		rc = check_facts(c);
	c->my_seat = -1;
	for (int i = 0; !rc && i < c->nseats; i++)
		if (c->seats[i].level < 0 && strcmp(c->seats[i].user, c->cmd->user) == 0)
			c->my_seat = i;
	/* an online table's seats are shown in their own private chats */
	return rc ? rc : online_load_seats(c);
}

int ctx_load_finished(struct ctx *c)
{
	json_t *id = json_object_get(c->settings, "last_table");
	int rc;

	if (!json_is_integer(id))
		return GB_ENOTFOUND;
	rc = store_table_get(c->b->store, json_integer_value(id), &c->table);
	if (rc)
		return rc == GB_ENOTFOUND ? GB_ENOTFOUND : rc;
	if (c->table.status != STORE_OVER || c->table.chat != c->place || ctx_load_table(c) || !c->st)
		return GB_ENOTFOUND;
	rc = ctx_load_seats(c);
	if (rc)
		return rc;
	/* nothing of it is written back: only the reply names the table */
	c->has_table = true;
	return GB_OK;
}

/* The table's terms, read once (the coins and the sealed seed both need them). */
int ctx_terms(struct ctx *c)
{
	int rc = GB_OK;

	if (!c->has_table || c->terms_loaded)
		return GB_OK;
	rc = store_terms_get(c->ws ? c->ws : c->b->store, c->table.id, &c->terms);
	if (rc == GB_ENOTFOUND) {
		/* a table opened before seeds were sealed: no seal, no stake */
		memset(&c->terms, 0, sizeof(c->terms));
		rc = GB_OK;
	}
	if (!rc)
		c->terms_loaded = true;
	return rc;
}

/* ---- the context of an online table ---- */

bool ctx_is_online(const struct ctx *c)
{
	return strcmp(c->chat.platform, "online") == 0;
}

void online_ctx_load(struct ctx *c)
{
	c->online = ctx_is_online(c);
	c->viewer = -1;
	if (!c->online)
		return;
	/* the operator's settings, whatever the world chat has saved */
	json_object_set_new(c->settings, "autoplay_after", json_integer(c->b->cfg.online_autoplay_s));
	json_object_set_new(c->settings, "starting_coins", json_integer(c->b->cfg.online_coins));
}

int online_load_seats(struct ctx *c)
{
	int rc;

	if (!c->online || !c->has_table)
		return GB_OK;
	rc = store_oseats_get(c->b->store, c->table.id, c->oseats, GB_MAX_SEATS, &c->noseats);
	for (int i = 0; !rc && i < c->noseats; i++) {
		struct store_oseat *o = &c->oseats[i];

		if (!c->cmd->from_platform[0] || strcmp(o->platform, c->cmd->from_platform) ||
		    strcmp(o->user, c->cmd->from_user))
			continue;
		/* who typed or pressed it reads the answers in their own language, the words in them too */
		if (lang_parse(o->lang) >= 0)
			c->lang = lang_parse(o->lang);
		/* and is back: their seat is theirs again (online_commit() writes it) */
		o->away = 0;
	}
	return rc;
}

/* The online seat of the table's seat, or NULL. */
static struct store_oseat *oseat_at(struct ctx *c, int seat)
{
	for (int i = 0; i < c->noseats; i++)
		if (c->oseats[i].seat == seat)
			return &c->oseats[i];
	return NULL;
}

bool online_seat_away(const struct ctx *c, int seat)
{
	for (int i = 0; c->online && i < c->noseats; i++)
		if (c->oseats[i].seat == seat)
			return c->oseats[i].away != 0;
	return false;
}

bool online_mark_away(struct ctx *c, int seat)
{
	struct store_oseat *o = c->online ? oseat_at(c, seat) : NULL;

	if (!o || o->away || c->ow.naway >= GB_MAX_SEATS)
		return false;
	o->away = 1;
	c->ow.away[c->ow.naway++] = seat;
	return true;
}

/* Monotonic microseconds (how long the write lock is held). */
int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
