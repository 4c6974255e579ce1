/*
 * router.c - one static command table and the path every command takes:
 * lookup, arity and precondition checks, the handler, then one store
 * transaction that commits the handler's work (retried when another writer
 * changed the table first).
 */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "games/ai/ai.h"
#include "games/game.h"
#include "games/utf8.h"
#include "choices.h"
#include "internal.h"
#include "limit.h"
#include "log.h"
#include "metrics.h"

/* Tries of a command that meets version conflicts before "busy, try again". */
#define CONFLICT_TRIES 4
/* A timer that keeps failing is retried this often (with a doubling delay) and then dropped. */
#define TIMER_TRIES 5
#define TIMER_BACKOFF_MS 200
#define TIMER_STORE_RETRY_MS 2000 /* longest wait between tries of a timer the store failed */

/*
 * The command table. Fields:
 *   name      the verb as typed after the slash
 *   handler   runs with the context loaded and all checks passed
 *   min, max  how many blank-separated arguments it takes
 *   flags     preconditions checked by the router before the handler:
 *               NEEDS_TABLE   an open table (lobby or playing) in this chat
 *               NEEDS_GAME    a game in progress
 *               PLAYERS_ONLY  the caller has a seat at the table
 *               ADMIN_ONLY    the caller administers the chat
 *               INTERNAL      not typeable: timers fired by the scheduler
 *   usage     what to type, shown when the arguments are wrong
 */
#define NEEDS_TABLE 1
#define NEEDS_GAME 2
#define PLAYERS_ONLY 4
#define ADMIN_ONLY 8
#define INTERNAL 16

struct bot_cmd {
	const char *name;
	int (*handler)(struct ctx *c);
	int min, max;
	int flags;
	const char *usage;
};

static const struct bot_cmd commands[] = {
	/* games may be named by their titles: "/new साँप सिँढी", "/new Snakes and Ladders" */
	{ "new", cmd_new, 1, 4, 0, "/new snakes|ludo|baghchal|callbreak [SEAT]" },
	{ "join", cmd_join, 0, 1, NEEDS_TABLE, "/join [SEAT]" },
	{ "seat", cmd_seat, 1, 1, NEEDS_TABLE | PLAYERS_ONLY, "/seat SEAT" },
	{ "leave", cmd_leave, 0, 0, NEEDS_TABLE | PLAYERS_ONLY, "/leave" },
	{ "addbot", cmd_addbot, 0, 1, NEEDS_TABLE, "/addbot [easy|medium|hard]" },
	{ "start", cmd_start, 0, 0, NEEDS_TABLE, "/start" },
	{ "stop", cmd_stop, 0, 0, NEEDS_TABLE, "/stop" },
	{ "watch", cmd_watch, 1, 3, 0, "/watch ludo|baghchal|callbreak|snakes" },
	{ "roll", cmd_play_action, 0, 0, NEEDS_GAME | PLAYERS_ONLY, "/roll" },
	{ "move", cmd_play_action, 1, 2, NEEDS_GAME | PLAYERS_ONLY, "/move N  or  /move b2 c3" },
	{ "place", cmd_play_action, 1, 1, NEEDS_GAME | PLAYERS_ONLY, "/place c3" },
	{ "bid", cmd_play_action, 1, 1, NEEDS_GAME | PLAYERS_ONLY, "/bid 1..8" },
	/* two words: a card may be typed by its Nepali name, "हुकुमको एक्का" */
	{ "play", cmd_play_action, 1, 2, NEEDS_GAME | PLAYERS_ONLY, "/play QS" },
	{ "next", cmd_play_action, 0, 0, NEEDS_GAME | PLAYERS_ONLY, "/next" },
	{ "board", cmd_board, 0, 0, 0, "/board" },
	{ "hand", cmd_hand, 0, 0, NEEDS_GAME | PLAYERS_ONLY, "/hand" },
	{ "settings", cmd_settings, 0, 5, 0, "/settings [GAME] [KEY VALUE]" },
	{ "speed", cmd_speed, 1, 1, ADMIN_ONLY, "/speed slow|normal|fast" },
	{ "lang", cmd_lang, 1, 1, ADMIN_ONLY, "/lang en|ne" },
	{ "rules", cmd_rules, 0, 3, 0, "/rules GAME" },
	{ "help", cmd_help, 0, 1, 0, "/help" },
	{ "stats", cmd_stats, 0, 3, 0, "/stats [GAME]" },
	{ "wallet", cmd_wallet, 0, 0, 0, "/wallet" },
	{ "top", cmd_top, 0, 0, 0, "/top" },
	{ "grant", cmd_grant, 2, 2, ADMIN_ONLY, "/grant @name 100" },
	{ "stake", cmd_stake, 1, 1, NEEDS_TABLE, "/stake 100" },
	{ "verify", cmd_verify, 0, 2, 0, "/verify [TABLE] [log]" },
	{ "_timer", cmd_timer, 3, 3, INTERNAL, "" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

void bot_config_init(struct bot_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->default_lang = "en";
	cfg->bot_delay_ms[0] = 2500;
	cfg->bot_delay_ms[1] = 1200;
	cfg->bot_delay_ms[2] = 300;
}

/*
 * Computer players think on one thread of their own at a lower CPU
 * priority (nice 10): a person's command never waits for a core behind a
 * think. Only the thinking goes there: the write that follows is made by
 * the calling thread at its own priority, so the store's write lock is
 * never held by a thread the scheduler keeps waiting (lowering a thread
 * and raising it again would need a privilege a service may not have).
 */
struct think_job {
	void (*fn)(void *arg);
	void *arg;
	bool done;
};

static pthread_once_t thinker_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t thinker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thinker_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t thinker_done = PTHREAD_COND_INITIALIZER;
static struct think_job *thinker_job;
static bool thinker_up;

static void *thinker_main(void *arg)
{
	(void)arg;
	/* best effort: a service without the right keeps its priority */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) != 0) {
		/* thinking at normal priority is still correct */
	}
	pthread_mutex_lock(&thinker_lock);
	for (;;) {
		struct think_job *j;

		while (!thinker_job || thinker_job->done)
			pthread_cond_wait(&thinker_wake, &thinker_lock);
		j = thinker_job;
		pthread_mutex_unlock(&thinker_lock);
		j->fn(j->arg);
		pthread_mutex_lock(&thinker_lock);
		j->done = true;
		pthread_cond_broadcast(&thinker_done);
	}
	return NULL;
}

static void thinker_start(void)
{
	pthread_t t;
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	thinker_up = pthread_create(&t, &a, thinker_main, NULL) == 0;
	pthread_attr_destroy(&a);
}

/* Run fn(arg) on the thinking thread and wait for it (on this thread if there is none). */
static void think(void (*fn)(void *arg), void *arg)
{
	struct think_job j = { fn, arg, false };

	pthread_once(&thinker_once, thinker_start);
	if (!thinker_up) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&thinker_lock);
	while (thinker_job && !thinker_job->done)
		pthread_cond_wait(&thinker_done, &thinker_lock);
	thinker_job = &j;
	pthread_cond_signal(&thinker_wake);
	while (!j.done)
		pthread_cond_wait(&thinker_done, &thinker_lock);
	thinker_job = NULL;
	pthread_cond_broadcast(&thinker_done);
	pthread_mutex_unlock(&thinker_lock);
}

struct choose_job {
	const struct gb_game *game;
	const void *st;
	int level;
	uint64_t seed;
	struct gb_action *out;
	int rc;
};

static void choose_job_run(void *arg)
{
	struct choose_job *j = arg;

	j->rc = gb_ai_choose(j->game, j->st, j->level, j->seed, 0, j->out);
}

int64_t bot_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
 * Bytes of the space or line break at p (any Unicode one: people type
 * "/new" then a line break, and phones put a no-break space after a
 * command chosen from the menu), or 0.
 */
static size_t blank_len(const char *p)
{
	uint32_t c;
	size_t n;

	if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		return 1;
	if ((unsigned char)*p < 0x80)
		return 0;
	n = utf8_decode(p, &c);
	return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 ? n : 0;
}

static const char *skip_blanks(const char *p)
{
	size_t n;

	while ((n = blank_len(p)) > 0)
		p += n;
	return p;
}

int command_parse_text(struct command *cmd, const char *text)
{
	size_t i = 0, len = 0, n;
	const char *p = skip_blanks(text);

	if (*p == '/')
		p++;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
		if (i + 1 >= sizeof(cmd->verb))
			return GB_EPARSE;
		cmd->verb[i++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		p++;
	}
	cmd->verb[i] = '\0';
	if (i == 0)
		return GB_EPARSE;
	if (*p == '@')  /* "/roll@gamebot" in groups */
		while (*p && !blank_len(p))
			p++;
	if (*p && !blank_len(p))
		return GB_EPARSE;
	/* each blank of the arguments a plain space; a long line cut between characters */
	for (p = skip_blanks(p); *p; p += n) {
		n = blank_len(p);
		if (n) {
			if (len + 1 >= sizeof(cmd->args))
				break;
			cmd->args[len++] = ' ';
			continue;
		}
		n = utf8_char_len(p);
		if (!n)
			n = 1;
		if (len + n >= sizeof(cmd->args))
			break;
		memcpy(cmd->args + len, p, n);
		len += n;
	}
	while (len > 0 && cmd->args[len - 1] == ' ')
		len--;
	cmd->args[len] = '\0';
	return GB_OK;
}

static const struct bot_cmd *lookup(const char *verb)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, verb) == 0)
			return &commands[i];
	return NULL;
}

/* ---- replies ---- */

/*
 * A JSON string of text (caller owns). json_string() refuses text that is
 * not UTF-8 outright, which would drop the whole field; replies are built
 * from typed words and names, so any invalid byte that got this far (a
 * fixed buffer cut a character) is shown as U+FFFD instead.
 */
static json_t *json_text(const char *text)
{
	json_t *j;
	struct strbuf sb = { 0 };

	if (!text || utf8_valid(text))
		return json_string(text);
	sb_add_utf8(&sb, text);
	j = json_string(sb_str(&sb));
	sb_release(&sb);
	return j;
}

/*
 * Make the field s (cap bytes) valid UTF-8 in place: invalid bytes become
 * U+FFFD, and what then no longer fits is cut between characters.
 */
static void utf8_clean(char *s, size_t cap)
{
	struct strbuf sb = { 0 };

	if (utf8_valid(s))
		return;
	sb_add_utf8(&sb, s);
	utf8_copy(s, cap, sb_str(&sb), sb.len);
	sb_release(&sb);
}

/*
 * A character that has no place in a name or an argument: C0 and C1
 * controls, DEL, line and paragraph separators, and the invisible format
 * characters that reorder or hide what follows them (bidi overrides and
 * isolates, marks, zero-width spaces and joiners, the BOM). In a board
 * they would break a line or turn the rest of it around.
 */
static bool unprintable(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff;
}

/*
 * In the valid UTF-8 field s: drop the unprintable characters (with =
 * NULL), or replace each with the one byte *with; returns how many printable
 * characters remain. The zero-width joiner stays between two visible
 * characters, where emoji sequences need it.
 */
static int printable_only(char *s, const char *with)
{
	char *w = s;
	const char *r = s;
	int kept = 0;

	while (*r) {
		uint32_t c;
		size_t n = utf8_decode(r, &c);

		if (!n)
			n = 1;
		if (unprintable(c) && !(c == 0x200d && w > s && r[n] && !with)) {
			if (with)
				*w++ = *with;
		} else {
			memmove(w, r, n);
			w += n;
			kept++;
		}
		r += n;
	}
	*w = '\0';
	return kept;
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

	/* one style of digits per message, the echo of what was typed included */
	i18n_vformat(&sb, chat_digits_devanagari(c), tr(c->lang, key), ap);
	reply_push(c, kind, user, sb_str(&sb));
	sb_release(&sb);
}

void reply_public(struct ctx *c, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	reply_v(c, "public", NULL, key, ap);
	va_end(ap);
}

void reply_alert(struct ctx *c, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	reply_v(c, "alert", c->cmd->user, key, ap);
	va_end(ap);
}

void reply_private(struct ctx *c, const char *user, const char *text)
{
	reply_push(c, "private", user, text);
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

const struct gb_game *game_lookup(const char *text, const char **rest)
{
	static const int titles[] = { M_GAME_SNAKES, M_GAME_LUDO, M_GAME_BAGHCHAL, M_GAME_CALLBREAK };
	static const struct {
		const char *alias, *game;
	} aliases[] = {
		{ "snake", "snakes" }, { "snakesandladders", "snakes" }, { "bagh", "baghchal" },
		{ "bagh-chal", "baghchal" }, { "call", "callbreak" }, { "call-break", "callbreak" },
	};
	const struct gb_game *best = NULL;
	size_t best_len = 0, len;

	while (text && (*text == ' ' || *text == '\t'))
		text++;
	for (int i = 0; text && gb_games[i]; i++) {
		const char *names[1 + LANG_COUNT];

		names[0] = gb_games[i]->name;
		for (int l = 0; l < LANG_COUNT; l++)
			names[1 + l] = i < 4 ? tr(l, titles[i]) : gb_games[i]->name;
		for (int k = 0; k < 1 + LANG_COUNT; k++) {
			len = starts_with_name(text, names[k]);
			if (len > best_len) {
				best = gb_games[i];
				best_len = len;
			}
		}
	}
	for (size_t i = 0; text && i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		len = starts_with_name(text, aliases[i].alias);
		if (len > best_len) {
			best = gb_game_find(aliases[i].game);
			best_len = len;
		}
	}
	if (rest)
		*rest = text ? text + best_len : text;
	return best;
}

const char *game_title(struct ctx *c, const struct gb_game *g)
{
	static const int keys[] = { M_GAME_SNAKES, M_GAME_LUDO, M_GAME_BAGHCHAL, M_GAME_CALLBREAK };

	for (int i = 0; gb_games[i] && i < 4; i++)
		if (gb_games[i] == g)
			return tr(c->lang, keys[i]);
	return g->name;
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
		snprintf(buf, n, tr(c->lang, M_BOT_FOR), c->seats[seat].name);
	else if (c->seats[seat].level >= 0)
		snprintf(buf, n, tr(c->lang, M_BOT_NAME), ctx_num(c, seat + 1, num));
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

static void ctx_release(struct ctx *c)
{
	store_chat_release(&c->chat);
	store_table_release(&c->table);
	json_decref(c->settings);
	free(c->settings_text);
	json_decref(c->log_saved);
	for (size_t i = 0; i < c->nreply_text; i++)
		free(c->reply_text[i]);
	free(c->reply_text);
	json_decref(c->replies);
	free(c->st);
	for (int i = 0; i < c->nmoves; i++)
		free(c->moves[i].events);
	memset(c, 0, sizeof(*c));
}

/*
 * The log strip as saved: "type seat a b c" per event, oldest first, comma
 * between ("1 0 6 0 0,3 0 0 0 6"): one string to read and write, where an
 * array of arrays costs a value per number. A null when it cannot be made.
 */
static json_t *log_text(const struct ctx *c)
{
	/* at most 12 characters a number (sign, ten digits, separator): no printf per number */
	char buf[LOG_KEEP * 5 * 12 + 1], *p = buf;
	json_t *text;

	for (int i = 0; i < c->nlog; i++) {
		const struct gb_event *e = &c->log[i];
		const int v[5] = { e->type, e->seat, e->a, e->b, e->c };

		for (int k = 0; k < 5; k++) {
			char digits[11];
			long long x = v[k];
			int n = 0;

			if (i || k)
				*p++ = k ? ' ' : ',';
			if (x < 0) {
				*p++ = '-';
				x = -x;
			}
			do {
				digits[n++] = (char)('0' + x % 10);
				x /= 10;
			} while (x);
			while (n)
				*p++ = digits[--n];
		}
	}
	text = json_stringn(buf, (size_t)(p - buf));
	return text ? text : json_null();
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

/*
 * Decoded states, one per table slot: a saved state is decoded once, not
 * once per command. An entry answers only for the very text it was
 * decoded from (or encoded to), so whatever changed the row - another
 * instance, a repair by hand - is decoded afresh. Each reader gets copies;
 * nothing is shared.
 */
#define STATE_SLOTS 256

struct decoded {
	int64_t table;
	const struct gb_game *game;
	char *text;                    /* the wrapper's text (owned); NULL: empty slot */
	void *st;                      /* its game (owned), NULL when it has none */
	struct gb_event log[LOG_KEEP];
	int nlog;
	json_t *log_saved;             /* owned */
	bool watch;
	bool has_owner;
	char owner[STORE_ID_LEN];
};

static struct decoded decoded[STATE_SLOTS];
static pthread_mutex_t decoded_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fill c from the entry for c->table's text; false when there is none (c untouched). */
static bool decoded_get(struct ctx *c)
{
	struct decoded *d = &decoded[(uint64_t)c->table.id % STATE_SLOTS];
	bool hit = false;

	pthread_mutex_lock(&decoded_lock);
	if (d->text && d->table == c->table.id && d->game == c->game && !strcmp(d->text, c->table.state)) {
		void *st = d->st ? malloc(c->game->state_size) : NULL;
		json_t *lg = d->log_saved ? json_deep_copy(d->log_saved) : NULL;

		if ((st || !d->st) && (lg || !d->log_saved)) {
			if (st)
				memcpy(st, d->st, c->game->state_size);
			c->st = st;
			memcpy(c->log, d->log, sizeof(c->log));
			c->nlog = d->nlog;
			c->log_saved = lg;
			c->log_changed = false;
			c->watch = d->watch;
			if (d->has_owner)
				snprintf(c->owner, sizeof(c->owner), "%s", d->owner);
			hit = true;
		} else {
			free(st);
			json_decref(lg);
		}
	}
	pthread_mutex_unlock(&decoded_lock);
	return hit;
}

/* Remember c's decoded state as the one of text (c->log_saved being its log as saved). */
static void decoded_put(const struct ctx *c, const char *text, bool has_owner)
{
	struct decoded *d = &decoded[(uint64_t)c->table.id % STATE_SLOTS];
	char *t = strdup(text);
	void *st = c->st ? malloc(c->game->state_size) : NULL;
	json_t *lg = c->log_saved ? json_deep_copy(c->log_saved) : NULL;

	if (!t || (c->st && !st) || (c->log_saved && !lg)) {
		free(t);
		free(st);
		json_decref(lg);
		return;
	}
	if (st)
		memcpy(st, c->st, c->game->state_size);
	pthread_mutex_lock(&decoded_lock);
	free(d->text);
	free(d->st);
	json_decref(d->log_saved);
	d->table = c->table.id;
	d->game = c->game;
	d->text = t;
	d->st = st;
	memcpy(d->log, c->log, sizeof(d->log));
	d->nlog = c->nlog;
	d->log_saved = lg;
	d->watch = c->watch;
	d->has_owner = has_owner;
	snprintf(d->owner, sizeof(d->owner), "%s", c->owner);
	pthread_mutex_unlock(&decoded_lock);
}

/* Read the table's wrapper JSON: {"game": state, "log": "...", "seq": n, "watch": b}. */
static int load_table_state(struct ctx *c)
{
	json_error_t err;
	json_t *w;
	int rc = GB_OK;

	c->game = gb_game_find(c->table.game);
	if (!c->game)
		return GB_ESTATE;
	/*
	 * Moves are numbered after the log itself, not after the wrapper's
	 * copy of the count: a damaged copy would make every later move
	 * collide with the log (or break its 1..N) and the table unplayable.
	 */
	rc = store_move_last(c->b->store, c->table.id, &c->seq);
	if (rc)
		return rc;
	c->nlog = 0;
	snprintf(c->owner, sizeof(c->owner), "%s", c->table.creator);
	if (!c->table.state)
		return GB_OK;
	if (decoded_get(c)) {
		/* past the lobby the wrapper must hold the game: without it the state is unreadable too */
		return c->table.status != STORE_LOBBY && !c->st ? GB_ESTATE : GB_OK;
	}
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
		decoded_put(c, c->table.state, json_is_string(json_object_get(w, "owner")));
	json_decref(w);
	return rc;
}

static int load_seats(struct ctx *c)
{
	int rc = store_seats_get(c->b->store, c->table.id, c->seats, GB_MAX_SEATS, &c->nseats);

	c->my_seat = -1;
	for (int i = 0; !rc && i < c->nseats; i++)
		if (c->seats[i].level < 0 && strcmp(c->seats[i].user, c->cmd->user) == 0)
			c->my_seat = i;
	return rc;
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
	if (c->table.status != STORE_OVER || c->table.chat != c->place || load_table_state(c) || !c->st)
		return GB_ENOTFOUND;
	rc = load_seats(c);
	if (rc)
		return rc;
	/* nothing of it is written back: only the reply names the table */
	c->has_table = true;
	return GB_OK;
}

/* The table's wrapper JSON text into c->table.state (before the write transaction). */
static int table_text(struct ctx *c)
{
	json_t *w;

	/*
	 * A saved state this instance cannot read stays as it is when only
	 * seats or status change (/leave, /stop): it may be a newer instance's,
	 * or wanted for repair. Only a game started afresh replaces it.
	 */
	if (c->broken && !c->st)
		return GB_OK;
	w = json_object();
	if (c->st)
		json_object_set_new(w, "game", gb_state_json(c->game, c->st));
	if (c->log_changed || !c->log_saved) {
		json_decref(c->log_saved);
		c->log_saved = log_text(c);
		c->log_changed = false;
	}
	json_object_set(w, "log", c->log_saved);
	json_object_set_new(w, "seq", json_integer(c->seq));
	json_object_set_new(w, "watch", json_boolean(c->watch));
	json_object_set_new(w, "owner", json_string(c->owner));
	free(c->table.state);
	c->table.state = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	if (!c->table.state)
		return GB_ENOMEM;
	/* the next command on this table starts from this text: decoded already */
	if (c->st && !c->table_new)
		decoded_put(c, c->table.state, true);
	return GB_OK;
}

static int save_table(struct ctx *c)
{
	int rc;

	if (c->table_new) {
		c->table.watch = c->watch;
		c->table.created_ms = c->cmd->now_ms;
		rc = store_table_insert(c->ws, &c->table);
		/* another command opened a table here first: read again and decide again */
		if (rc == GB_EEXISTS)
			rc = GB_ECONFLICT;
	} else {
		rc = store_table_update(c->ws, &c->table);
	}
	return rc;
}

/* Is reply r addressed to the command's caller alone (an alert or a private view for them)? */
static bool for_caller(struct ctx *c, json_t *r)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));
	const char *user = json_string_value(json_object_get(r, "user"));

	return kind && user && (!strcmp(kind, "alert") || !strcmp(kind, "private")) &&
	       !strcmp(user, c->cmd->user);
}

/* Each reply not yet made into the text of its outbox row, into c->reply_text. */
static int reply_texts(struct ctx *c)
{
	size_t n = json_array_size(c->replies);
	char **texts;

	if (c->nreply_text == n)
		return GB_OK;
	texts = realloc(c->reply_text, n * sizeof(char *));
	if (!texts)
		return GB_ENOMEM;
	c->reply_text = texts;
	for (size_t i = c->nreply_text; i < n; i++) {
		json_t *r = json_array_get(c->replies, i);

		if (c->has_table) {
			json_object_set_new(r, "table", json_integer(c->table.id));
			json_object_set_new(r, "turn", json_integer(c->seq));
		}
		json_object_set_new(r, "lang", json_string(lang_code(c->lang)));
		/* only the caller's own rows answer the handle: another player's hand never does */
		if (c->cmd->reply[0] && (for_caller(c, r) || !strcmp(json_string_value(json_object_get(r, "kind")), "ack")))
			json_object_set_new(r, "reply", json_string(c->cmd->reply));
		/* every row names the command it came from, for an adapter answering in place */
		if (c->cmd->reply[0])
			json_object_set_new(r, "origin", json_string(c->cmd->reply));
		c->reply_text[i] = json_dumps(r, JSON_COMPACT);
		if (!c->reply_text[i])
			return GB_ENOMEM;
		c->nreply_text = i + 1;
	}
	return GB_OK;
}

/*
 * Everything a command's writes need that takes time - the settings and
 * state JSON, the table message with its board, the acknowledgement - made
 * before the write transaction, so the store's write lock is held only
 * for the writes themselves.
 */
static int prepare(struct ctx *c)
{
	int rc = GB_OK;
	size_t i;
	json_t *r;

	if (c->chat_changed) {
		c->settings_text = json_dumps(c->settings, JSON_COMPACT);
		if (!c->settings_text)
			return GB_ENOMEM;
	}
	if (c->has_table && (c->table_changed || c->table_new || c->seats_changed))
		rc = table_text(c);
	if (rc)
		return rc;
	if (c->show_table && c->has_table) {
		table_message(c);
		/*
		 * Asked for again: a new message at the bottom of the chat,
		 * and the older one loses its buttons (bot.h, "repost")
		 */
		if (c->repost_table)
			json_object_set_new(json_array_get(c->replies, json_array_size(c->replies) - 1),
					    "repost", json_true());
	}
	if (c->cmd->reply[0]) {
		/* the platform waits for exactly one answer to a handle: the caller's own view, else an ack */
		bool answered = false;

		json_array_foreach(c->replies, i, r)
			answered |= for_caller(c, r);
		if (!answered)
			reply_push(c, "ack", c->cmd->user, "");
	}
	return c->table_new ? GB_OK : reply_texts(c);
}

/*
 * The chat as the command read it is still the chat in the store: its
 * settings carry no version, so a change is checked against what was read
 * (another command changing them in between is a conflict, not a lost
 * update).
 */
static int chat_unchanged(struct ctx *c)
{
	struct store_chat now = { 0 };
	int rc = store_chat_get_by_id(c->ws, c->chat.id, &now);

	if (!rc && (strcmp(now.lang, c->lang_loaded) ||
		    strcmp(now.settings ? now.settings : "", c->chat.settings ? c->chat.settings : "")))
		rc = GB_ECONFLICT;
	store_chat_release(&now);
	return rc;
}

/* Is the command's reply i of that kind? */
static bool reply_is(const struct ctx *c, size_t i, const char *kind)
{
	return !strcmp(json_string_value(json_object_get(json_array_get(c->replies, i), "kind")), kind);
}

/*
 * The order the command's replies are queued in, into order[0..n-1];
 * returns how many of them, from the first, are turn-critical. The board
 * says whose turn it is, and a press waits for its answer: they go before
 * the chat's posts queued earlier. So do the rows before the command's
 * last board, which it shows after them - except that at a table in play
 * or over the board goes before its lines for everyone (who won, who
 * left, a turn played for someone away; not a seating line such as the
 * game beginning), the rest in their order: the board shows the move they
 * tell of, and a table waiting for its board never waits for a line as
 * well (the platform's budget spent on the board first).
 */
static size_t reply_order(struct ctx *c, size_t *order)
{
	size_t n = json_array_size(c->replies), last = n, first = n, k = 0;

	for (size_t i = 0; i < n; i++)
		if (reply_is(c, i, "table"))
			last = i;
	for (size_t i = 0; last < n && i < last && c->has_table && c->table.status != STORE_LOBBY; i++)
		if (reply_is(c, i, "public") &&
		    !json_is_true(json_object_get(json_array_get(c->replies, i), "seating"))) {
			first = i;
			break;
		}
	/* the last board moves up to just before the first such line */
	for (size_t i = 0; i < n; i++) {
		if (i == first)
			order[k++] = last;
		if (i != last || first == n)
			order[k++] = i;
	}
	return last < n ? last + 1 : 0;
}

/*
 * The command's replies into the outbox, inside the write transaction. A
 * new table's id is known only now; settling a stake has replies of its own.
 */
static int queue_replies(struct ctx *c)
{
	struct store *s = c->ws;
	size_t n, turn_rows, *order = NULL;
	int rc = reply_texts(c);

	if (rc)
		goto out;
	n = json_array_size(c->replies);
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		rc = GB_ENOMEM;
		goto out;
	}
	turn_rows = reply_order(c, order);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		json_t *r = json_array_get(c->replies, i);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		enum store_out_prio prio = STORE_OUT_INFO;
		char key[32] = "";

		/*
		 * A newer board replaces one not yet sent: only the newest goes
		 * out. A repost is not replaced: it moves the table message.
		 */
		if (c->has_table && !strcmp(kind, "table") && !json_is_true(json_object_get(r, "repost")))
			snprintf(key, sizeof(key), "table:%lld", (long long)c->table.id);
		/* so does a seating line: the board lists the seats (a table's opening is two rows) */
		if (c->has_table && !strcmp(kind, "public") && json_is_true(json_object_get(r, "seating")))
			snprintf(key, sizeof(key), "seating:%lld", (long long)c->table.id);
		if (k < turn_rows || json_object_get(r, "reply"))
			prio = STORE_OUT_TURN;
		rc = store_out_add_prio(s, c->cmd->platform, c->cmd->chat, c->has_table ? c->table.id : 0,
					key, c->reply_text[i], c->cmd->now_ms, prio);
		if (rc)
			goto out;
	}
out:
	free(order);
	return rc;
}

/* The command's writes, inside the write transaction. */
static int commit(struct ctx *c)
{
	struct store *s = c->ws;
	int rc = GB_OK;

	if (c->cmd->update_id[0]) {
		rc = store_mark_processed(s, c->cmd->platform, c->cmd->update_id);
		if (rc)
			goto out;
	}
	if (c->chat_changed) {
		rc = chat_unchanged(c);
		if (!rc) {
			free(c->chat.settings);
			c->chat.settings = c->settings_text;
			c->settings_text = NULL;
			rc = store_chat_save(s, &c->chat);
		}
		if (rc)
			goto out;
	}
	if (c->has_table && (c->table_changed || c->table_new || c->seats_changed)) {
		rc = save_table(c);
		if (rc)
			goto out;
	}
	if (c->has_table && (c->seats_changed || c->table_new)) {
		rc = store_seats_set(s, c->table.id, c->seats, c->nseats);
		if (rc)
			goto out;
	}
	for (int m = 0; m < c->nmoves; m++) {
		rc = store_move_append(s, c->table.id, c->moves[m].move_seq, c->moves[m].actor,
				       c->moves[m].action, c->moves[m].events);
		if (rc)
			goto out;
	}
	for (int q = 0; c->record_stats && q < c->nseats; q++) {
		const struct gb_outcome *oc = &c->final;

		/* every person who sat: who left is counted as a game not won, without points */
		if (!c->seats[q].user[0])
			continue;
		rc = store_stat_add(s, c->chat.id, c->seats[q].user, c->seats[q].name, c->game->name,
				    seat_is_person(c, q) && !oc->draw && oc->winner == q,
				    seat_is_person(c, q) ? oc->score[q] : 0);
		if (rc)
			goto out;
	}
	/* coins move in the same transaction as the move that moved them */
	rc = coins_commit(c);
	if (rc)
		goto out;
	if (c->has_table && (c->clear_timers || c->ntimers)) {
		rc = store_timer_clear(s, c->table.id, NULL);
		if (rc)
			goto out;
	}
	for (int t = 0; t < c->ntimers; t++) {
		struct store_timer tm = { .table = c->table.id, .due_ms = c->timers[t].due_ms,
					  .version = c->table.version };

		snprintf(tm.kind, sizeof(tm.kind), "%s", c->timers[t].kind);
		rc = store_timer_set(s, &tm);
		if (rc)
			goto out;
	}
	rc = queue_replies(c);
out:
	return rc;
}

/*
 * The command's chat (its settings) and the place its tables live in: a
 * forum topic "CHAT#THREAD" is a place of its own, with a store row of its
 * own for its tables, while the language, settings, wallets and stats are
 * those of CHAT.
 */
static int load_chat(struct bot *b, const struct command *cmd, struct ctx *c)
{
	struct store_chat place = { 0 };
	char chat[STORE_ID_LEN];
	int rc;

	place_chat(cmd->chat, chat, sizeof(chat));
	rc = store_chat_get(b->store, cmd->platform, chat, b->cfg.default_lang, &c->chat);
	if (rc || !place_thread(cmd->chat)[0]) {
		c->place = c->chat.id;
		return rc;
	}
	rc = store_chat_get(b->store, cmd->platform, cmd->chat, b->cfg.default_lang, &place);
	c->place = place.id;
	store_chat_release(&place);
	return rc;
}

/*
 * Run one command on what the store holds now, outside any transaction:
 * its writes come later, in commit(), where the table's version check and
 * chat_unchanged() catch anything that changed in between.
 */
static int run_once(struct bot *b, const struct command *cmd, const struct bot_cmd *bc,
		    struct ctx *c)
{
	json_error_t jerr;
	int rc, nargs;

	memset(c, 0, sizeof(*c));
	c->b = b;
	c->cmd = cmd;
	c->my_seat = -1;
	c->replies = json_array();
	if (!c->replies)
		return GB_ENOMEM;
	rc = load_chat(b, cmd, c);
	if (rc)
		return rc;
	snprintf(c->lang_loaded, sizeof(c->lang_loaded), "%s", c->chat.lang);
	c->lang = lang_parse(c->chat.lang);
	if (c->lang < 0) {
		/* a language we cannot read: speak English, and save that back, not the unreadable code */
		c->lang = LANG_EN;
		snprintf(c->chat.lang, sizeof(c->chat.lang), "%s", lang_code(c->lang));
	}
	c->settings = json_loads(c->chat.settings ? c->chat.settings : "{}", 0, &jerr);
	if (!json_is_object(c->settings)) {
		json_decref(c->settings);
		c->settings = json_object();
	}
	if (!bc || (bc->flags & INTERNAL) != (cmd->internal ? INTERNAL : 0)) {
		reply_alert(c, M_UNKNOWN_COMMAND, cmd->verb);
		return GB_OK;
	}
	nargs = count_words(cmd->args);
	if (nargs < bc->min || nargs > bc->max) {
		reply_alert(c, M_ARGS, bc->usage);
		return GB_OK;
	}
	rc = store_table_open_get(b->store, c->place, &c->table);
	if (rc && rc != GB_ENOTFOUND)
		return rc;
	c->has_table = rc == GB_OK;
	if (c->has_table) {
		rc = load_table_state(c);
		if (rc == GB_ESTATE) {
			/*
			 * A saved state that cannot be read: refuse play on it
			 * (below) but keep the chat usable - /stop, /help, /settings.
			 */
			free(c->st);
			c->st = NULL;
			c->broken = true;
			if (!c->game)
				c->game = gb_game_find("snakes");
			rc = GB_OK;
		}
		if (!rc)
			rc = load_seats(c);
		if (rc)
			return rc;
	}
	if (cmd->button_table &&
	    (!c->has_table || c->table.id != cmd->button_table || c->seq != cmd->button_turn)) {
		/*
		 * A button of an earlier turn, of another table, or forged:
		 * change nothing. A pick with no handle to answer in place (a
		 * Telegram inline result) pressed no button the chat saw: the
		 * chat is not told about it either.
		 */
		if (cmd->reply[0])
			reply_alert(c, M_STALE_BUTTON);
		return GB_OK;
	}
	if ((bc->flags & (NEEDS_TABLE | NEEDS_GAME)) && !c->has_table) {
		reply_alert(c, M_NO_TABLE);
		return GB_OK;
	}
	if ((bc->flags & NEEDS_GAME) && c->table.status != STORE_PLAYING) {
		reply_alert(c, M_NOT_STARTED);
		return GB_OK;
	}
	if ((bc->flags & NEEDS_GAME) && (c->broken || !c->st))
		return GB_ESTATE;
	if (cmd->anonymous && (bc->handler == cmd_join || bc->handler == cmd_seat)) {
		/* one name for several people cannot hold a seat */
		reply_alert(c, M_POST_AS_YOURSELF);
		return GB_OK;
	}
	if ((bc->flags & PLAYERS_ONLY) && c->my_seat < 0) {
		reply_alert(c, M_PLAYERS_ONLY);
		return GB_OK;
	}
	if ((bc->flags & ADMIN_ONLY) && !cmd->is_admin) {
		reply_alert(c, M_ADMINS_ONLY);
		return GB_OK;
	}
	return bc->handler(c);
}

/* Monotonic microseconds (how long the write lock is held). */
static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Queue one alert (key, in the chat's language) for cmd's user in its own transaction. */
static void queue_alert(struct bot *b, const struct command *cmd, int key)
{
	struct store_chat chat = { 0 };
	int lang = LANG_EN;
	json_t *r = json_object();
	char *text = NULL, group[STORE_ID_LEN];

	if (!r || store_begin(b->store))
		goto out;
	place_chat(cmd->chat, group, sizeof(group));
	if (!store_chat_get(b->store, cmd->platform, group, b->cfg.default_lang, &chat))
		lang = lang_parse(chat.lang) < 0 ? LANG_EN : lang_parse(chat.lang);
	json_object_set_new(r, "kind", json_string("alert"));
	json_object_set_new(r, "user", json_text(cmd->user));
	json_object_set_new(r, "text", json_string(tr(lang, key)));
	json_object_set_new(r, "lang", json_string(lang_code(lang)));
	if (cmd->reply[0])
		json_object_set_new(r, "reply", json_text(cmd->reply));
	text = json_dumps(r, JSON_COMPACT);
	if (text && !store_out_add(b->store, cmd->platform, cmd->chat, 0, "", text, cmd->now_ms))
		store_commit(b->store);
	else
		store_rollback(b->store);
out:
	free(text);
	json_decref(r);
	store_chat_release(&chat);
}

/* ---- group commit ---- */

/*
 * Commands of this process that are ready to write at the same moment
 * share one transaction: the first to arrive writes everyone's work, each
 * in a unit of its own (one command's conflict or refusal undoes only its
 * writes), and commits once. A commit costs the same for one command as
 * for twenty (writing the pages that changed, most of them shared: the
 * outbox's, the move log's, the update ids'), so under load the write
 * lock is held for far less per command; alone, a command writes as it
 * would by itself. The waiting commands' contexts are read by the writing
 * thread only while their own threads sleep.
 *
 * Commands join the batch of their own database (a process may serve
 * several, as tests do). Each waiter sleeps on a condition of its own:
 * the writer wakes exactly the commands it wrote, and the first one left
 * waiting, which writes next.
 */
struct pending {
	struct ctx *c;
	const char *db;                /* store_target() of the command's store */
	int rc;
	bool done;
	pthread_cond_t wake;
	struct pending *next;
};

static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t group_arrived = PTHREAD_COND_INITIALIZER;
static struct pending *group_head;
static bool group_writing;
static bool group_lingering;     /* the writer waits for commands still deciding */
static int group_queued;
/* Commands reading and deciding (run_once() and prepare()): they will want to write soon. */
static atomic_int group_deciding;

#define GROUP_MAX 64
/*
 * How long a writer waits for commands still deciding to join its batch
 * (only while some are): under load a bigger batch shares one commit
 * among more commands; alone, a command never waits.
 */
#define GROUP_LINGER_US 200

/*
 * Write the commands of list in one transaction on s; their results in
 * each rc. Returns how long the write lock was held (microseconds).
 */
static int64_t write_batch(struct store *s, struct pending *list)
{
	int rc = store_begin(s);
	int64_t t0 = mono_us();

	for (struct pending *p = list; !rc && p; p = p->next) {
		int unit = store_unit_begin(s);

		p->c->ws = s;
		p->rc = unit ? unit : commit(p->c);
		unit = store_unit_end(s, p->rc == GB_OK);
		if (unit == GB_ESTORE)
			rc = unit; /* the transaction itself is lost: nobody's work is kept */
		else if (unit && !p->rc)
			p->rc = unit;
	}
	if (!rc)
		rc = store_commit(s);
	if (rc) {
		store_rollback(s);
		for (struct pending *p = list; p; p = p->next)
			if (!p->rc || rc == GB_ESTORE)
				p->rc = rc;
	}
	return mono_us() - t0;
}

/* Wait (group_lock held) until no more commands are deciding, GROUP_MAX are queued, or the linger is over. */
static void group_linger(void)
{
	struct timespec until;

	if (atomic_load(&group_deciding) == 0)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += GROUP_LINGER_US * 1000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	group_lingering = true;
	while (atomic_load(&group_deciding) > 0 && group_queued < GROUP_MAX &&
	       pthread_cond_timedwait(&group_arrived, &group_lock, &until) == 0)
		;
	group_lingering = false;
}

/* Take up to GROUP_MAX queued commands of database db, in order, off the queue (group_lock held). */
static struct pending *group_take(const char *db)
{
	struct pending *list = NULL, **tail = &list, **pp = &group_head;
	int n = 0;

	while (*pp && n < GROUP_MAX) {
		struct pending *p = *pp;

		if (strcmp(p->db, db) != 0) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->next = NULL;
		*tail = p;
		tail = &p->next;
		n++;
	}
	group_queued -= n;
	return list;
}

/* Write c's work, with whatever else is ready; *held_us gets the transaction's time. */
static int write_grouped(struct bot *b, struct ctx *c, int64_t *held_us)
{
	struct pending me = { .c = c, .db = store_target(b->store), .wake = PTHREAD_COND_INITIALIZER };
	struct pending **pp;

	if (!store_one_writer(b->store)) {
		/* a database with row locks and many writers (PostgreSQL): each command writes alone */
		*held_us = write_batch(b->store, &me);
		return me.rc;
	}
	pthread_mutex_lock(&group_lock);
	for (pp = &group_head; *pp; pp = &(*pp)->next)
		;
	*pp = &me;
	group_queued++;
	if (group_lingering)
		pthread_cond_signal(&group_arrived);
	while (!me.done) {
		struct pending *list;

		if (group_writing) {
			pthread_cond_wait(&me.wake, &group_lock);
			continue;
		}
		/* this thread writes: its own command's batch (its own among it) */
		group_writing = true;
		group_linger();
		list = group_take(me.db);
		pthread_mutex_unlock(&group_lock);
		*held_us = write_batch(b->store, list);
		pthread_mutex_lock(&group_lock);
		for (struct pending *p = list, *next; p; p = next) {
			next = p->next;
			p->done = true;
			if (p != &me)
				pthread_cond_signal(&p->wake);
		}
		group_writing = false;
		if (group_head)
			pthread_cond_signal(&group_head->wake);
	}
	pthread_mutex_unlock(&group_lock);
	pthread_cond_destroy(&me.wake);
	return me.rc;
}

/*
 * What people send is stored (seats, names), compared (is this your
 * seat?) and sent back (replies are JSON, which is UTF-8 only): make it
 * valid UTF-8 once, here, so all three see the same text. A platform's
 * ids already are; a console name or an id cut by a fixed field may not be.
 */
static void clean_input(struct command *c)
{
	utf8_clean(c->user, sizeof(c->user));
	utf8_clean(c->user_name, sizeof(c->user_name));
	utf8_clean(c->verb, sizeof(c->verb));
	utf8_clean(c->args, sizeof(c->args));
	/* names and arguments end up in boards and log lines: one line, read left to right */
	if (!printable_only(c->user_name, NULL))
		snprintf(c->user_name, sizeof(c->user_name), "?");
	printable_only(c->args, " ");
	printable_only(c->verb, " ");
}

/*
 * Is cmd over its rate limits? Then true, with what bot_handle() returns
 * in *rc. The player to move pressing the current table message's buttons
 * is playing, not flooding: those presses are not counted (stale or
 * foreign ones are). Checked only for presses, and only with limits on.
 */
static bool rate_limited(struct bot *b, const struct command *cmd, int *rc)
{
	const char *scope = NULL;
	enum limit_verdict v;
	char labels[32];

	if (cmd->internal || (b->cfg.rate_user_per_min <= 0 && b->cfg.rate_chat_per_min <= 0) ||
	    bot_press_is_own_turn(b, cmd))
		return false;
	v = limit_check(cmd->platform, cmd->chat, cmd->user, cmd->now_ms, b->cfg.rate_user_per_min,
			b->cfg.rate_chat_per_min, &scope);
	if (v == LIMIT_OK)
		return false;
	snprintf(labels, sizeof(labels), "scope=\"%s\"", scope);
	metrics_inc("gamebot_rate_limited_total", labels, 1);
	/*
	 * One polite answer per window (one row per user and minute at most);
	 * past it nothing at all, not even an ack row: a flood writes nothing,
	 * and the adapter answers a press without a row, or not at all.
	 */
	*rc = v == LIMIT_SILENT ? GB_ELIMIT : GB_OK;
	if (v != LIMIT_SILENT)
		queue_alert(b, cmd, M_SLOW_DOWN);
	return true;
}

int bot_handle(struct bot *b, const struct command *in)
{
	struct command clean = *in;
	const struct command *cmd = &clean;
	const struct bot_cmd *bc;
	struct ctx c;
	int64_t started, held = 0;
	int rc = GB_OK;

	clean_input(&clean);
	bc = lookup(cmd->verb);
	/* another bot's command, seen because the platform shows every bot all of them */
	if (!bc && cmd->unaddressed && !cmd->internal)
		return GB_OK;
	if (rate_limited(b, cmd, &rc))
		return rc;
	started = mono_us();

	/*
	 * Read and decide without a lock, then write in one short
	 * transaction; when the table moved in between (its version check,
	 * or the chat's settings check, fails) read and decide again.
	 */
	for (int attempt = 0; attempt < CONFLICT_TRIES; attempt++) {
		int64_t t0;

		atomic_fetch_add(&group_deciding, 1);
		store_read_begin(b->store);
		rc = run_once(b, cmd, bc, &c);
		/*
		 * A repeated delivery: commit() finds its update id taken and
		 * keeps nothing; one the command cannot even run for (a state
		 * that cannot be read) is answered as a repeat all the same.
		 */
		if (rc && rc != GB_ECONFLICT && cmd->update_id[0] &&
		    store_was_processed(b->store, cmd->platform, cmd->update_id) == GB_EDUP)
			rc = GB_EDUP;
		if (!rc)
			rc = prepare(&c);
		store_read_end(b->store);
		atomic_fetch_sub(&group_deciding, 1);
		if (!rc) {
			t0 = 0;
			rc = write_grouped(b, &c, &t0);
			held += t0;
			if (t0 > b->lock_max_us)
				b->lock_max_us = t0;
		}
		ctx_release(&c);
		if (rc != GB_ECONFLICT)
			break;
		b->conflicts++;
	}
	/*
	 * Tell a person what happened without touching any table: nothing was
	 * changed. The scheduler's own commands have nobody to tell (a failing
	 * timer is retried and logged by bot_run_timers()). When the store
	 * failed (locked past its timeout, disk full, read-only), a delivery
	 * the platform sends again is not acknowledged: it gets its answer
	 * then, and writing an alert now would only meet the same fault.
	 */
	if (rc == GB_ESTORE || rc == GB_ENOMEM) {
		const char *why = store_last_error();

		gb_log("chat %s:%s: /%s not done, nothing changed: %s", cmd->platform, cmd->chat,
		       cmd->verb, rc == GB_ESTORE && why[0] ? why : gb_strerror(rc));
	}
	if (rc && rc != GB_EDUP && !cmd->internal &&
	    !((rc == GB_ESTORE || rc == GB_ENOMEM) && cmd->redelivered))
		queue_alert(b, cmd, rc == GB_ECONFLICT ? M_BUSY : M_INTERNAL);
	{
		char labels[96];

		snprintf(labels, sizeof(labels), "verb=\"%s\",result=\"%s\"",
			 bc ? (bc->flags & INTERNAL ? "timer" : bc->name) : "unknown",
			 !rc ? "ok" : rc == GB_EDUP ? "duplicate" : rc == GB_ECONFLICT ? "busy" : "error");
		metrics_inc("gamebot_commands_total", labels, 1);
		metrics_observe("gamebot_command_latency_ms", NULL, (double)(mono_us() - started) / 1000.0);
		metrics_observe("gamebot_store_transaction_ms", NULL, (double)held / 1000.0);
	}
	return rc;
}

/*
 * Choose the computer's move for timer tm before the transaction, so that
 * thinking (up to a second for a hard Bagh Chal move) never holds the
 * store's write lock. The choice is for the table at tm's version: the
 * command carries it, and cmd_timer() uses it only when the table is
 * still at that version (otherwise the timer is stale and does nothing).
 * The reads here take no lock; anything that fails leaves cmd without a
 * choice and cmd_timer() decides as before.
 */
static void prechoose(struct bot *b, const struct store_timer *tm, struct command *cmd)
{
	struct ctx c;
	int turn, level;

	memset(&c, 0, sizeof(c));
	c.b = b;
	c.cmd = cmd;
	c.my_seat = -1;
	if (strcmp(tm->kind, "bot") && strcmp(tm->kind, "idle"))
		goto out;
	if (store_table_get(b->store, tm->table, &c.table) || c.table.version != tm->version ||
	    c.table.status != STORE_PLAYING)
		goto out;
	if (load_table_state(&c) || !c.st || load_seats(&c))
		goto out;
	turn = c.game->turn(c.st);
	if (turn < 0 || turn >= c.nseats)
		goto out;
	level = c.seats[turn].level;
	if (strcmp(tm->kind, "idle") == 0) {
		if (level >= 0)
			goto out;
		level = TIMER_IDLE_LEVEL;
	} else if (level < 0) {
		goto out;
	}
	{
		struct choose_job j = { c.game, c.st, level,
					gb_seed_derive(c.table.seed, (uint64_t)c.seq + 1), &cmd->choice, 0 };

		think(choose_job_run, &j);
		if (j.rc)
			goto out;
	}
	cmd->choice.die = 0;
	cmd->has_choice = true;
out:
	ctx_release(&c);
}

/*
 * A timer whose command failed: try again later, and give up after
 * TIMER_TRIES (never for a store failure that passes).
 */
static void timer_failed(struct bot *b, const struct store_timer *tm, const struct command *cmd,
			 int64_t now_ms, int err)
{
	int attempts = 0;
	int64_t delay = (int64_t)TIMER_BACKOFF_MS << (tm->attempts < 10 ? tm->attempts : 10);
	/*
	 * The store failing in a way that clears by itself (locked past its
	 * timeout, disk full) is not the timer's doing: such a timer is tried
	 * again, at most TIMER_STORE_RETRY_MS apart, and never given up (a
	 * computer's turn dropped would leave its table stuck).
	 */
	bool store_fault = err == GB_ESTORE && store_last_error_transient();

	if (store_fault && delay > TIMER_STORE_RETRY_MS)
		delay = TIMER_STORE_RETRY_MS;
	if (store_timer_retry(b->store, tm->table, tm->kind, now_ms + delay, &attempts))
		return; /* the store itself is failing: the timer stays due and is tried again */
	if (store_fault || attempts < TIMER_TRIES)
		return;
	store_timer_clear(b->store, tm->table, tm->kind);
	gb_log("timer %s of table %lld in chat %s:%s given up after %d tries: %s", tm->kind,
	       (long long)tm->table, cmd->platform, cmd->chat, attempts, gb_strerror(err));
}

int bot_run_timers(struct bot *b, int64_t now_ms, int kinds_mask)
{
	struct store_timer due[16];
	int n = 0, fired = 0, rc;

	rc = store_timer_due(b->store, now_ms, due, 16, &n);
	if (rc)
		return -rc;
	for (int i = 0; i < n; i++) {
		struct command cmd;
		struct store_table t = { 0 };
		struct store_chat chat = { 0 };
		char labels[48];
		int bit = strcmp(due[i].kind, "bot") == 0    ? BOT_TIMER_BOT
			  : strcmp(due[i].kind, "idle") == 0 ? BOT_TIMER_IDLE
							     : BOT_TIMER_NEXT;

		if (!(bit & kinds_mask))
			continue;
		rc = store_table_get(b->store, due[i].table, &t);
		if (!rc)
			rc = store_chat_get_by_id(b->store, t.chat, &chat);
		if (rc) {
			store_timer_clear(b->store, due[i].table, due[i].kind);
		} else {
			memset(&cmd, 0, sizeof(cmd));
			snprintf(cmd.platform, sizeof(cmd.platform), "%s", chat.platform);
			cmd.internal = true;
			snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat.chat);
			snprintf(cmd.verb, sizeof(cmd.verb), "_timer");
			snprintf(cmd.args, sizeof(cmd.args), "%s %lld %lld", due[i].kind,
				 (long long)due[i].table, (long long)due[i].version);
			cmd.now_ms = now_ms > due[i].due_ms ? now_ms : due[i].due_ms;
			prechoose(b, &due[i], &cmd);
			rc = bot_handle(b, &cmd);
			snprintf(labels, sizeof(labels), "kind=\"%s\"", due[i].kind);
			if (!rc) {
				fired++;
				metrics_inc("gamebot_timers_fired_total", labels, 1);
				if (now_ms - due[i].due_ms > 1000)
					metrics_inc("gamebot_timers_late_total", labels, 1);
			} else if (rc != GB_EDUP) {
				metrics_inc("gamebot_timers_failed_total", labels, 1);
				timer_failed(b, &due[i], &cmd, now_ms, rc);
			}
		}
		store_table_release(&t);
		store_chat_release(&chat);
	}
	return fired;
}
