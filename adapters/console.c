/*
 * console.c - the console adapter: see console.h. Replies are taken from
 * the outbox like any platform's, printed, and marked delivered.
 */
#include "console.h"

#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/base/config.h"
#include "bot/lang/i18n.h"
#include "bot/render/name.h"
#include "games/game.h"
#include "games/strbuf.h"

struct button_set {
	char user[STORE_ID_LEN];     /* private sets: whose */
	char cmd[64][48];
	int n;
	long seq;                    /* when it was shown */
};

struct console {
	struct bot *b;
	const struct console_opts *o;
	FILE *out;
	int64_t now;                 /* virtual clock (ms) when not interactive */
	char last_user[STORE_ID_LEN];
	/*
	 * Buttons a number can press: the last table message's, and the last
	 * private message's per user (a Call Break hand). A user presses
	 * whichever of the two was shown to them last.
	 */
	struct button_set table;
	struct button_set priv[8];
	int npriv;
	long shown;                  /* counts messages with buttons */
	const char *unnamed;         /* while a line typed without a name is answered: who it
	                                was taken as (its alerts are not labelled), else NULL */
};

static int64_t clock_now(struct console *c)
{
	return c->o->interactive ? bot_now_ms() : c->now;
}

static bool is_admin(const struct console_opts *o, const char *user)
{
	const char *p = o->admins;
	size_t len = strlen(user);

	if (!p)
		return true;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && strncmp(p, user, n) == 0)
			return true;
		p += n + (comma ? 1 : 0);
	}
	return false;
}

/* The private button set of user (the oldest one is reused when full). */
static struct button_set *private_set(struct console *c, const char *user)
{
	struct button_set *oldest = &c->priv[0];

	for (int i = 0; i < c->npriv; i++) {
		if (strcmp(c->priv[i].user, user) == 0)
			return &c->priv[i];
		if (c->priv[i].seq < oldest->seq)
			oldest = &c->priv[i];
	}
	if (c->npriv < (int)(sizeof(c->priv) / sizeof(c->priv[0])))
		oldest = &c->priv[c->npriv++];
	memset(oldest, 0, sizeof(*oldest));
	snprintf(oldest->user, sizeof(oldest->user), "%s", user);
	return oldest;
}

static bool chat_devanagari(struct console *c);

/* Print a reply's buttons as numbered choices and remember them in set. */
static void print_buttons(struct console *c, json_t *r, struct button_set *set)
{
	json_t *rows = json_object_get(r, "buttons"), *row, *btn;
	size_t i, j;
	int n = 0;
	bool dev = json_array_size(rows) && chat_devanagari(c);

	json_array_foreach(rows, i, row) {
		json_array_foreach(row, j, btn) {
			const char *label = json_string_value(json_object_get(btn, "label"));
			const char *cmd = json_string_value(json_object_get(btn, "cmd"));

			bool dup = false;

			for (int k = 0; k < n && cmd; k++)
				dup |= strcmp(set->cmd[k], cmd) == 0;
			/*
			 * No private picker here: a button opening one ("inline")
			 * is pressed as its command, shown once with any other
			 * button of that command ("My cards" is "Show my hand").
			 */
			if (!label || !cmd || dup || n >= 64)
				continue;
			snprintf(set->cmd[n], sizeof(set->cmd[n]), "%s", cmd);
			struct strbuf num = { 0 };

			/* the numbers in the chat's digits, like every number in the message (१ presses too) */
			i18n_format(&num, dev, "[%d]", n + 1);
			fprintf(c->out, "%s%s %s", n ? "  " : "", sb_str(&num), label);
			sb_release(&num);
			n++;
		}
	}
	if (n) {
		fputc('\n', c->out);
		set->n = n;
		set->seq = ++c->shown;
	}
}

static void print_reply(struct console *c, const char *payload)
{
	json_error_t err;
	json_t *r = json_loads(payload, 0, &err);
	const char *kind, *text, *user;

	if (!r)
		return;
	kind = json_string_value(json_object_get(r, "kind"));
	text = json_string_value(json_object_get(r, "text"));
	user = json_string_value(json_object_get(r, "user"));
	/* a line standing in the chat for someone's private answer: here that answer is shown itself */
	if (!kind || !text || json_is_true(json_object_get(r, "cover")))
		goto out;
	if (strcmp(kind, "alert") == 0 && user && c->unnamed && strcmp(user, c->unnamed) == 0) {
		fprintf(c->out, "%s\n", text); /* the answer to a line typed without a name */
	} else if (strcmp(kind, "private") == 0 || strcmp(kind, "alert") == 0) {
		int lang = lang_parse(json_string_value(json_object_get(r, "lang")));

		msg_fprintf(c->out, lang < 0 ? LANG_EN : lang, M_CONSOLE_PRIVATE, user ? user : "?");
		fprintf(c->out, " %s\n", text);
		if (strcmp(kind, "private") == 0 && user)
			print_buttons(c, r, private_set(c, user));
	} else if (strcmp(kind, "table") == 0) {
		fprintf(c->out, "┌──\n%s\n", text);
		print_buttons(c, r, &c->table);
		fprintf(c->out, "└──\n");
	} else {
		fprintf(c->out, "%s\n", text);
	}
out:
	json_decref(r);
}

/* Print and retire everything queued for the console. */
static int deliver(struct console *c)
{
	struct store_out rows[32];
	int n = 0, rc;

	do {
		rc = store_out_due(c->b->store, "console", INT64_MAX, rows, 32, &n);
		if (rc)
			return rc;
		for (int i = 0; i < n; i++) {
			if (!strcmp(rows[i].chat, c->o->chat))
				print_reply(c, rows[i].payload);
			store_out_done(c->b->store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 32);
	fflush(c->out);
	return GB_OK;
}

/*
 * Let time pass. Piped, the clock is virtual: computer turns (and watch
 * tables' next rounds) happen at once, the clock jumping to each in turn;
 * idle autoplay timers fire when they fall due by `until` - every one of
 * them, in order, each at its own time, so a long :wait plays every turn
 * an away player would have missed - and then the clock stands at `until`.
 * Interactive: whatever is due by the real clock.
 */
static int settle(struct console *c, int64_t until)
{
	for (int guard = 0; guard < 200000; guard++) {
		struct store_timer t;
		int rc = store_timer_next(c->b->store, &t), fired;

		if (rc == GB_ENOTFOUND)
			break;
		if (rc)
			return rc;
		if (c->o->interactive) {
			fired = bot_run_timers(c->b, bot_now_ms(), BOT_TIMER_ALL);
			if (fired < 0)
				return -fired;
			deliver(c);
			return GB_OK;
		}
		if (strcmp(t.kind, "idle") == 0 && t.due_ms > until)
			break;
		if (t.due_ms > c->now)
			c->now = t.due_ms;
		fired = bot_run_timers(c->b, c->now, BOT_TIMER_ALL);
		if (fired < 0)
			return -fired;
		deliver(c);
	}
	if (!c->o->interactive && until > c->now)
		c->now = until;
	return GB_OK;
}

/* The chat's language (the console answers its own refusals in it). */
static int chat_lang(struct console *c)
{
	struct store_chat chat = { 0 };
	int lang = lang_parse(c->b->cfg.default_lang);

	if (store_chat_get(c->b->store, "console", c->o->chat, c->b->cfg.default_lang, &chat) == GB_OK &&
	    lang_parse(chat.lang) >= 0)
		lang = lang_parse(chat.lang);
	store_chat_release(&chat);
	return lang < 0 ? LANG_EN : lang;
}

/* Does the chat write its numbers in Devanagari (Nepali, unless it chose ASCII digits)? */
static bool chat_devanagari(struct console *c)
{
	struct store_chat chat = { 0 };
	bool dev = false;

	if (store_chat_get(c->b->store, "console", c->o->chat, c->b->cfg.default_lang, &chat) == GB_OK &&
	    lang_parse(chat.lang) == LANG_NE) {
		json_t *j = json_loads(chat.settings ? chat.settings : "{}", 0, NULL);
		const char *d = json_string_value(json_object_get(j, "digits"));

		dev = !d || strcmp(d, "devanagari") == 0;
		json_decref(j);
	}
	store_chat_release(&chat);
	return dev;
}

/* Answer a line the bot never sees, as an alert to who typed it (user NULL: to nobody in particular). */
static void console_say(struct console *c, const char *user, int key, ...)
{
	int lang = chat_lang(c);
	struct strbuf sb = { 0 };
	va_list ap;

	/* every number in the chat's digits, the echo of what was typed included */
	va_start(ap, key);
	i18n_vformat(&sb, chat_devanagari(c), tr(lang, key), ap);
	va_end(ap);
	/* a line typed without a name is nobody's in particular: its answer is not labelled */
	if (user) {
		msg_fprintf(c->out, lang, M_CONSOLE_PRIVATE, user);
		fputc(' ', c->out);
	}
	fprintf(c->out, "%s\n", sb_str(&sb));
	fflush(c->out);
	sb_release(&sb);
}
/* (calls checked against key when compiled: MSG_ARGS_OK, bot/lang/i18n.h) */
#define console_say(c, user, key, ...) \
	(MSG_ARGS_OK(key, ##__VA_ARGS__), console_say((c), (user), (key), ##__VA_ARGS__))

/*
 * Remove from a typed name what a terminal would act on instead of show:
 * ANSI escape sequences (ESC [ ... final byte, ESC ] ... BEL or ESC \,
 * ESC and one byte), other C0 and C1 control characters and DEL.
 */
static void clean_name(char *s)
{
	char *w = s;
	const unsigned char *r = (const unsigned char *)s;

	while (*r) {
		if (*r == 0x1b) {
			r++;
			if (*r == '[') {
				r++;
				while (*r && !(*r >= 0x40 && *r <= 0x7e))
					r++;
				if (*r)
					r++;
			} else if (*r == ']') {
				while (*r && *r != 0x07 && !(*r == 0x1b && r[1] == '\\'))
					r++;
				r += *r == 0x07 ? 1 : *r ? 2 : 0;
			} else if (*r) {
				r++;
			}
		} else if (*r < 0x20 || *r == 0x7f) {
			r++;
		} else if (*r == 0xc2 && r[1] >= 0x80 && r[1] <= 0x9f) {
			r += 2; /* C1 controls (U+0080..U+009F) */
		} else {
			*w++ = (char)*r++;
		}
	}
	*w = '\0';
}

/*
 * Where a line "name: text" ends its name: at the first colon followed by
 * a blank or ending the line ("Bhimsen Bahadur Thapa: /hand", "alice:"),
 * or at a first colon with no blank before it ("alice:/roll"). A slash
 * before the colon makes it a command's ("/settings x:y"). NULL when the
 * line names nobody.
 */
static char *name_colon(char *text)
{
	char *colon = strchr(text, ':');

	while (colon && colon != text && !memchr(text, '/', (size_t)(colon - text))) {
		if (colon[1] == ' ' || colon[1] == '\t' || !colon[1] || !memchr(text, ' ', (size_t)(colon - text)))
			return colon;
		colon = strchr(colon + 1, ':');
	}
	return NULL;
}

/*
 * One typed line. Every line gets an answer: a command's from the bot, a
 * button pressed is that button's command, and anything the console cannot
 * pass on (no such button, not a command, a bad :wait, a name it cannot
 * take) is answered here.
 */
static void handle_line(struct console *c, char *line)
{
	struct command cmd;
	char *colon, *text = line, *end;
	const char *user = c->last_user[0] ? c->last_user : "you";
	const char *to = NULL; /* whom the console's own answers name: who typed, when named */
	int choice;

	while (*text == ' ' || *text == '\t')
		text++;
	end = text + strlen(text);
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	if (!*text || *text == '#')
		return;
	if (strncmp(text, ":wait", 5) == 0 && (!text[5] || text[5] == ' ')) {
		int secs = 0;

		if (gb_parse_uint(text + 5 + strspn(text + 5, " "), 86400, &secs) == GB_OK)
			settle(c, c->now + (int64_t)secs * 1000);
		else
			console_say(c, to, M_CONSOLE_WAIT, text + 5 + strspn(text + 5, " "));
		return;
	}
	colon = name_colon(text);
	if (colon) {
		char name[sizeof(c->last_user)];

		*colon = '\0';
		clean_name(text);
		if (!*text || strlen(text) >= sizeof(c->last_user)) {
			console_say(c, to, M_CONSOLE_NAME, (int)sizeof(c->last_user) - 1);
			return;
		}
		/* as the bot shows it: one line, read left to right, never blank ("Player 1234") */
		snprintf(name, sizeof(name), "%s", text);
		name_clean(name, sizeof(name), "console", text);
		snprintf(c->last_user, sizeof(c->last_user), "%s", name);
		user = c->last_user;
		to = user;
		text = colon + 1;
		while (*text == ' ')
			text++;
		if (!*text)
			return;
	}
	memset(&cmd, 0, sizeof(cmd));
	/* a bare number presses that button of the last buttons shown to the user */
	if (gb_parse_uint(text, 1000000, &choice) == GB_OK) {
		struct button_set *set = &c->table;

		for (int i = 0; i < c->npriv; i++)
			if (strcmp(c->priv[i].user, user) == 0 && c->priv[i].seq > set->seq)
				set = &c->priv[i];
		if (!set->n) {
			console_say(c, to, M_CONSOLE_NO_BUTTONS);
			return;
		}
		if (choice < 1 || choice > set->n) {
			char hi[16];

			snprintf(hi, sizeof(hi), "%d", set->n);
			console_say(c, to, M_CONSOLE_NO_SUCH_BUTTON, text, hi);
			return;
		}
		text = set->cmd[choice - 1];
	}
	if (text[0] != '/' || command_parse_text(&cmd, text) != GB_OK) {
		console_say(c, to, M_CONSOLE_NOT_COMMAND, text);
		return;
	}
	snprintf(cmd.platform, sizeof(cmd.platform), "console");
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", c->o->chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.is_admin = is_admin(c->o, user);
	cmd.now_ms = clock_now(c);
	bot_handle(c->b, &cmd);
	c->unnamed = to ? NULL : user;
	deliver(c);
	c->unnamed = NULL;
	if (!c->o->stop)
		settle(c, c->now);
}

int console_run(struct bot *b, const struct console_opts *o, FILE *in, FILE *out)
{
	struct console c = { .b = b, .o = o, .out = out };

	/* a seeded (reproducible) console also starts its virtual clock at a fixed time */
	c.now = b->cfg.seed ? INT64_C(1700000000000) : bot_now_ms();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	deliver(&c);
	if (o->interactive)
		fprintf(out, "gamebot console: type lines like \"alice: /new ludo\" (/help for commands)\n");
	for (;;) {
		if (o->interactive) {
			struct store_timer t;
			struct pollfd p = { .fd = fileno(in), .events = POLLIN };
			int wait = -1;

			if (o->stop) {
				/* the service runs the timers: look for replies and for the stop often */
				wait = 200;
			} else if (store_timer_next(b->store, &t) == GB_OK) {
				int64_t d = t.due_ms - bot_now_ms();

				wait = d < 0 ? 0 : d > 60000 ? 60000 : (int)d;
			}
			fflush(out);
			if (o->stop && atomic_load(o->stop))
				break;
			if (poll(&p, 1, wait) == 0) {
				if (o->stop)
					deliver(&c);
				else
					settle(&c, c.now);
				continue;
			}
		}
		len = getline(&line, &cap, in);
		if (len < 0)
			break;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		/* a line of blanks is a blank line: silent, not even echoed */
		if (!o->interactive && line[strspn(line, " \t")] && line[0] != '#') {
			/* the echo shows what was typed, never an escape a terminal would obey */
			char *shown = strdup(line);

			if (shown) {
				clean_name(shown);
				name_strip(shown); /* nor a bidi control that would turn the line around */
			}
			fprintf(out, "> %s\n", shown ? shown : "");
			free(shown);
		}
		handle_line(&c, line);
	}
	free(line);
	if (!o->interactive)
		settle(&c, c.now);
	return 0;
}

/* ---- the console inside the service ---- */

struct console_adapter {
	struct adapter_env env;
	pthread_t thread;
	atomic_int stop;
};

/* Is any platform (any adapter but this one) configured? */
static bool platform_configured(const struct config *cfg)
{
	for (int i = 0; adapters[i]; i++)
		if (adapters[i] != &console_adapter && adapters[i]->configured(cfg))
			return true;
	return false;
}

/*
 * Without a platform the service's chat is the console. On a terminal it
 * is one of the service's adapters; on a pipe or a file (printf '...' |
 * gamebot serve, or gamebot serve < lines.txt) serve plays those lines
 * as `gamebot console` does (console_piped()). Any other standard input -
 * /dev/null under a service manager, a socket - is left alone.
 */
static bool console_configured(const struct config *cfg)
{
	return !platform_configured(cfg) && isatty(STDIN_FILENO);
}

bool console_piped(const struct config *cfg)
{
	struct stat sb;

	return !platform_configured(cfg) && !isatty(STDIN_FILENO) && fstat(STDIN_FILENO, &sb) == 0 &&
	       (S_ISFIFO(sb.st_mode) || S_ISREG(sb.st_mode));
}

static void *console_thread(void *arg)
{
	struct console_adapter *ca = arg;
	struct bot *b = adapter_bot(&ca->env);
	struct console_opts o = { .chat = "console", .interactive = 1, .stop = &ca->stop,
				  .admins = ca->env.cfg->console_admins[0] ? ca->env.cfg->console_admins
									   : NULL };

	if (b)
		console_run(b, &o, stdin, stdout);
	adapter_bot_release();
	if (!atomic_load(&ca->stop) && ca->env.request_stop)
		ca->env.request_stop(ca->env.stop_arg); /* end of input ends the service */
	return NULL;
}

static int console_start(const struct adapter_env *env, void **self)
{
	struct console_adapter *ca = calloc(1, sizeof(*ca));

	*self = NULL;
	if (!ca)
		return GB_ENOMEM;
	ca->env = *env;
	/* one person types for everyone at a local table: no flood limits */
	ca->env.bot.rate_user_per_min = 0;
	ca->env.bot.rate_chat_per_min = 0;
	if (pthread_create(&ca->thread, NULL, console_thread, ca)) {
		free(ca);
		return GB_EIO;
	}
	*self = ca;
	return GB_OK;
}

static void console_stop(void *self)
{
	struct console_adapter *ca = self;

	if (!ca)
		return;
	atomic_store(&ca->stop, 1);
	pthread_join(ca->thread, NULL);
	free(ca);
}

const struct adapter console_adapter = {
	.name = "console",
	.configured = console_configured,
	.start = console_start,
	.routes = NULL,
	.deliver = NULL,  /* prints its own rows, in step with what is typed */
	.stop = console_stop,
};
