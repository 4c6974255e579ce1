/*
 * test_online.c - online tables through the router in-process on a real
 * SQLite file, on a virtual clock: people queue from their private chats
 * on two platforms, the matcher seats them, each seat's private chat gets
 * its own table message (its own hand, its own buttons, the others'
 * chosen names only), they play to the end, coins settle and ratings
 * move; a silent player is played for after the online wait and comes
 * back; reactions, blocks and every refusal.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include <pthread.h>

#include "adapters/serve.h"
#include "bot/base/config.h"
#include "bot/base/metrics.h"
#include "bot/bot.h"
#include "games/strbuf.h"
#include "tests/pgadmin.h"
#include "tests/fixture.h"

#define MAXP 4

struct person {
	const char *platform, *user, *name;
	char chat[32];
	json_t *view;        /* the newest table message shown in their chat */
	int views;
	char *lines;         /* every other text their chat was sent */
	json_t *queue;       /* the newest queue message shown in their chat */
	int queue_rows;      /* queue messages sent to their chat (each an edit of the one message) */
	json_t *stale;       /* the newest edit of an outdated queue message in their chat */
	char queue_key[32];  /* the outbox key they all came under */
	const char *reads;   /* "en" or "ne": every text to them is checked to be in it; NULL none */
	int checked;         /* texts so checked */
};

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
	int64_t now;
	struct person p[MAXP];
	int np;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "online", 7))
		return -1;
	f->b.cfg.online_fill_ms = 2000;
	f->now = 1700000000000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	for (int i = 0; i < f->np; i++) {
		json_decref(f->p[i].view);
		json_decref(f->p[i].queue);
		json_decref(f->p[i].stale);
		free(f->p[i].lines);
	}
	rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);
	free(f);
	return rc;
}

/* SQL run on the fixture's database file, beside the bot's own handle. */
static void sql_exec(struct fixture *f, const char *text)
{
	assert_int_equal(fixture_sql(f->db, text), 0);
}

static void audit(struct fixture *f)
{
	char why[256];

	if (store_coins_audit(f->b.store, 0, why, sizeof(why)))
		fail_msg("ledger: %s", why);
}

static struct person *add(struct fixture *f, const char *platform, const char *user, const char *name)
{
	struct person *p = &f->p[f->np++];

	p->platform = platform;
	p->user = user;
	p->name = name;
	snprintf(p->chat, sizeof(p->chat), "dm-%s", user);
	return p;
}

static void append(char **s, const char *text)
{
	struct strbuf sb = { 0 };

	if (*s)
		sb_add(&sb, *s);
	sb_add(&sb, text);
	sb_add(&sb, "\n");
	free(*s);
	*s = sb_detach(&sb);
}

/* Does text hold a Devanagari letter (U+0900 to U+097F)? */
static bool devanagari(const char *text)
{
	return strstr(text, "\xe0\xa4") || strstr(text, "\xe0\xa5");
}

/* A text to p is in the language p reads: the games' titles and the computers' names too. */
static void check_language(struct person *p, const char *text)
{
	static const char *const english[] = { "Ludo", "Call Break", "Bagh Chal", "Snakes", "Bot ", "wins", NULL };

	if (!p->reads || !text || !text[0])
		return;
	p->checked++;
	if (!strcmp(p->reads, "en")) {
		if (devanagari(text))
			fail_msg("Nepali in a text to %s, who reads English: %s", p->name, text);
		return;
	}
	if (!devanagari(text))
		fail_msg("a text to %s, who reads Nepali, has no Nepali: %s", p->name, text);
	for (int i = 0; english[i]; i++)
		if (strstr(text, english[i]))
			fail_msg("\"%s\" in a text to %s, who reads Nepali: %s", english[i], p->name, text);
}

/*
 * Every row queued so far, to the people's chats: no row may name anyone
 * by a platform id or to a chat that is no one's.
 */
static void drain(struct fixture *f)
{
	static const char *const platforms[] = { "telegram", "discord" };

	for (int k = 0; k < 2; k++) {
		struct store_out rows[64];
		int n = 0;

		do {
			assert_int_equal(store_out_due(f->b.store, platforms[k], INT64_MAX, rows, 64, &n), GB_OK);
			for (int i = 0; i < n; i++) {
				json_error_t err;
				json_t *j = json_loads(rows[i].payload, 0, &err);
				const char *kind = json_string_value(json_object_get(j, "kind"));
				const char *text = json_string_value(json_object_get(j, "text"));
				struct person *to = NULL;

				for (int q = 0; q < f->np; q++)
					if (!strcmp(f->p[q].platform, platforms[k]) &&
					    (!strcmp(f->p[q].chat, rows[i].chat) ||
					     (!strcmp(rows[i].chat, "group-1") &&
					      !strcmp(f->p[q].user, json_string_value(json_object_get(j, "user"))))))
						to = &f->p[q];
				if (!to)
					fail_msg("a row to %s:%s, nobody's chat: %s", platforms[k], rows[i].chat,
						 rows[i].payload);
				for (int q = 0; q < f->np; q++)
					if (text && strstr(text, f->p[q].user))
						fail_msg("%s's id shown to %s: %s", f->p[q].name, to->name, text);
				check_language(to, text);
				if (json_is_true(json_object_get(j, "stale"))) {
					/* an outdated queue message edited aside: no key, replacing no other row */
					assert_true(json_is_true(json_object_get(j, "queue")));
					assert_string_equal(kind, "table");
					assert_string_equal(rows[i].key, "");
					assert_int_equal(rows[i].table, 0);
					json_decref(to->stale);
					to->stale = json_incref(j);
				} else if (json_is_true(json_object_get(j, "queue"))) {
					/* the queue message: one per chat, edited in place (its rows share a key) */
					assert_string_equal(kind, "table");
					assert_null(json_object_get(j, "table"));
					assert_string_equal(rows[i].key, "queue");
					json_decref(to->queue);
					to->queue = json_incref(j);
					to->queue_rows++;
					append(&to->lines, text);
				} else if (!strcmp(kind, "table")) {
					assert_true(json_is_true(json_object_get(j, "seat")));
					json_decref(to->view);
					to->view = json_incref(j);
					to->views++;
				} else {
					append(&to->lines, text);
				}
				json_decref(j);
				store_out_done(f->b.store, rows[i].id);
				store_out_release(&rows[i]);
			}
		} while (n == 64);
	}
}

/* The message a press is on ("" none): the next send_cmd()'s. */
static const char *pressed_on = "";
/* The platform's id of the next send_cmd()'s update ("" none). */
static const char *update_id = "";

static int send_cmd(struct fixture *f, struct person *p, const char *text, bool private_chat,
		    int64_t table, int turn)
{
	struct command cmd;
	int rc;

	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.button_message, sizeof(cmd.button_message), "%s", pressed_on);
	pressed_on = "";
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.update_id, sizeof(cmd.update_id), "%s", update_id);
	update_id = "";
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", p->platform);
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", private_chat ? p->chat : "group-1");
	snprintf(cmd.user, sizeof(cmd.user), "%s", p->user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s_platform_name", p->user);
	cmd.private_chat = private_chat;
	cmd.is_admin = private_chat;
	cmd.button_table = table;
	cmd.button_turn = turn;
	cmd.now_ms = f->now += 500;
	rc = bot_handle(&f->b, &cmd);
	if (rc)
		fprintf(stderr, "%s from %s: %s\n", text, p->name, gb_strerror(rc));
	audit(f);
	drain(f);
	return rc;
}

static void say(struct fixture *f, struct person *p, const char *text)
{
	free(p->lines);
	p->lines = NULL;
	assert_int_equal(send_cmd(f, p, text, true, 0, 0), GB_OK);
}

/* Let ms pass, firing every timer (the matcher too) due by then. */
static int wait_ms(struct fixture *f, int64_t ms)
{
	int all = 0;

	f->now += ms;
	for (int guard = 0; guard < 200; guard++) {
		int fired = bot_run_timers(&f->b, f->now, BOT_TIMER_ALL);

		assert_true(fired >= 0);
		audit(f);
		drain(f);
		all += fired;
		if (!fired)
			break;
	}
	return all;
}

/* The first button of p's newest view (a reaction row is never first), or NULL. */
static const char *first_button(struct person *p)
{
	json_t *rows = json_object_get(p->view, "buttons");
	const char *cmd = json_string_value(json_object_get(json_array_get(json_array_get(rows, 0), 0), "cmd"));

	return cmd && strncmp(cmd, "/react", 6) && strncmp(cmd, "/online", 7) ? cmd : NULL;
}

static bool over(struct fixture *f)
{
	for (int i = 0; i < f->np; i++) {
		json_t *rows = json_object_get(f->p[i].view, "buttons");
		const char *cmd = json_string_value(json_object_get(json_array_get(json_array_get(rows, 0), 0), "cmd"));

		if (cmd && !strncmp(cmd, "/online", 7))
			return true;
	}
	return false;
}

/* Play on: whoever has buttons presses the first; computers' and idle turns as the clock passes. */
static void play_out(struct fixture *f, int limit)
{
	for (int step = 0; step < limit && !over(f); step++) {
		bool pressed = false;

		for (int i = 0; i < f->np && !pressed; i++) {
			const char *cmd = first_button(&f->p[i]);

			if (!cmd)
				continue;
			assert_int_equal(send_cmd(f, &f->p[i], cmd, true,
						  json_integer_value(json_object_get(f->p[i].view, "table")),
						  (int)json_integer_value(json_object_get(f->p[i].view, "turn"))),
					 GB_OK);
			pressed = true;
		}
		if (!pressed)
			wait_ms(f, 3000);
	}
	assert_true(over(f));
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");

	assert_int_equal(send_cmd(f, a, "/online ludo", false, 0, 0), GB_OK);
	/* a group gets nothing from the online queue: the answer says where to go */
	assert_non_null(strstr(a->lines ? a->lines : "", "private chat"));
	say(f, a, "/online chess");
	assert_non_null(strstr(a->lines, "chess"));
	say(f, a, "/online callbreak 5000");
	assert_non_null(strstr(a->lines, "not enough"));
	say(f, a, "/react gg");
	assert_non_null(strstr(a->lines, "none"));
	say(f, a, "/block");
	assert_non_null(strstr(a->lines, "nobody to block"));
	say(f, a, "/online leave");
	assert_non_null(strstr(a->lines, "not in a queue"));
	f->b.cfg.online = false;
	say(f, a, "/online ludo");
	assert_non_null(strstr(a->lines, "switched off"));
	f->b.cfg.online = true;
	say(f, a, "/online ludo");
	assert_non_null(strstr(a->lines, "queue for Ludo"));
	say(f, a, "/online snakes");
	assert_non_null(strstr(a->lines, "already wait"));
	say(f, a, "/online");
	assert_non_null(strstr(a->lines, "number 1 of 1"));
}

/* Two people on two platforms, Ludo; one goes silent, is played for, and comes back. */
static void test_ludo_cross_platform_idle(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");
	struct store_rating r;
	int before;

	say(f, a, "/name Asha");
	say(f, b, "/name Bikash");
	/* Bikash reads Nepali: his table and every line to him in it, whatever the others read */
	say(f, b, "/lang ne");
	say(f, a, "/online ludo");
	assert_int_equal(wait_ms(f, 1000), 0);
	assert_null(a->view);
	say(f, b, "/online लुडो");
	wait_ms(f, 1000);
	assert_non_null(a->view);
	assert_non_null(b->view);
	/* each sees the other's chosen name, and only that */
	assert_non_null(strstr(json_string_value(json_object_get(a->view, "text")), "Bikash"));
	assert_non_null(strstr(json_string_value(json_object_get(b->view, "text")), "Asha"));
	assert_non_null(strstr(a->lines, "An online table of Ludo opens"));
	assert_non_null(strstr(b->lines, "लुडोको अनलाइन टेबल खुल्यो"));
	assert_null(strstr(b->lines, "Ludo"));
	/* nobody stops a table of strangers */
	say(f, a, "/stop");
	assert_non_null(strstr(a->lines, "plays on to its end"));
	/* seated: a second /online is refused */
	say(f, a, "/online ludo");
	assert_non_null(strstr(a->lines, "seated at an online table"));

	/* Bikash goes silent on his turn: after the online wait the computer moves for him */
	f->b.cfg.online_autoplay_s = 45;
	for (int i = 0; i < 40 && !first_button(b); i++) {
		const char *cmd = first_button(a);

		if (cmd)
			assert_int_equal(send_cmd(f, a, cmd, true, json_integer_value(json_object_get(a->view, "table")),
						  (int)json_integer_value(json_object_get(a->view, "turn"))), GB_OK);
		else
			wait_ms(f, 3000);
	}
	assert_non_null(first_button(b));
	before = b->views;
	wait_ms(f, 46000);
	assert_true(b->views > before);
	assert_non_null(strstr(a->lines ? a->lines : "", "Bikash"));
	/* he comes back: his seat is still his, and he plays on */
	say(f, b, "/react hurry");
	assert_non_null(strstr(a->lines, "Bikash: hurry up!"));
	play_out(f, 4000);
	/* ratings moved, and the game counted for both */
	assert_int_equal(store_rating_get(f->b.store, "telegram", "9001", "ludo", &r), GB_OK);
	assert_true(r.r != 1500000);
	assert_int_equal(r.games, 1);
	assert_int_equal(store_rating_get(f->b.store, "discord", "777000111", "ludo", &r), GB_OK);
	assert_int_equal(r.games, 1);
	/* after the game: a reaction still reaches the table, and /block remembers them */
	say(f, a, "/react gg");
	assert_non_null(strstr(b->lines, "Asha: राम्रो खेल!"));
	say(f, a, "/block");
	assert_non_null(strstr(a->lines, "Bikash"));
	say(f, a, "/rating");
	assert_non_null(strstr(a->lines, "Ludo"));
	say(f, b, "/top online ludo");
	assert_non_null(strstr(b->lines, "Asha"));
	/* blocked: the two queue again ("Play again" under the finished table) and are never seated together */
	{
		json_t *rows = json_object_get(a->view, "buttons");
		const char *again = json_string_value(json_object_get(json_array_get(json_array_get(rows, 0), 0), "cmd"));

		assert_string_equal(again, "/online ludo");
		free(a->lines);
		a->lines = NULL;
		assert_int_equal(send_cmd(f, a, again, true, json_integer_value(json_object_get(a->view, "table")),
					  (int)json_integer_value(json_object_get(a->view, "turn"))), GB_OK);
		assert_non_null(strstr(a->lines, "queue for Ludo"));
	}
	say(f, b, "/online ludo");
	wait_ms(f, 1000);
	say(f, a, "/online");
	assert_non_null(strstr(a->lines, "number 1 of 2"));
}

/*
 * A Nepali reader and an English reader at one table with two computers,
 * for a stake: every text each is sent, from the queue to the pot, is in
 * their own language - the game's title and the computers' names too,
 * in the lines and in the answers to what they type.
 */
static void test_each_seat_own_language(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");

	say(f, a, "/name Asha");
	say(f, b, "/name Bikash");
	say(f, b, "/lang ne");
	a->reads = "en";
	b->reads = "ne";
	say(f, a, "/online ludo 50 4p");
	say(f, b, "/online ludo 50 4p");
	say(f, a, "/online fill");
	say(f, b, "/online fill");
	wait_ms(f, 3000);
	assert_non_null(a->view);
	assert_non_null(b->view);
	assert_non_null(strstr(json_string_value(json_object_get(b->view, "text")), "कम्प्युटर"));
	assert_non_null(strstr(json_string_value(json_object_get(a->view, "text")), "Bot "));
	/* a verb the game has not: the game is named in the reader's language */
	say(f, b, "/bid 3");
	assert_non_null(strstr(b->lines, "लुडोमा /bid हुँदैन"));
	say(f, a, "/bid 3");
	assert_non_null(strstr(a->lines, "Ludo has no /bid"));
	/* the people play their turns; on a computer's, each asks to roll and is told whose turn it is */
	for (int i = 0; i < 200; i++) {
		struct person *p = first_button(a) ? a : first_button(b) ? b : NULL;

		if (!p)
			break;
		assert_int_equal(send_cmd(f, p, first_button(p), true,
					  json_integer_value(json_object_get(p->view, "table")),
					  (int)json_integer_value(json_object_get(p->view, "turn"))), GB_OK);
	}
	assert_null(first_button(a));
	assert_null(first_button(b));
	say(f, b, "/roll");
	assert_non_null(strstr(b->lines, "अहिले कम्प्युटर"));
	say(f, a, "/roll");
	assert_non_null(strstr(a->lines, "it is Bot "));
	play_out(f, 4000);
	assert_true(a->checked > 20);
	assert_true(b->checked > 20);
}

/* Four people, Call Break for a stake: each sees only their own hand; the pot settles. */
static void test_callbreak_hands_and_pot(void **state)
{
	struct fixture *f = *state;
	struct person *p[4] = { add(f, "telegram", "101", "Asha"), add(f, "telegram", "102", "Bina"),
				add(f, "telegram", "103", "Chiri"), add(f, "discord", "904", "Dawa") };
	char prefix[64];

	for (int i = 0; i < 4; i++) {
		snprintf(prefix, sizeof(prefix), "/name %s", p[i]->name);
		say(f, p[i], prefix);
		say(f, p[i], "/online callbreak 100");
	}
	wait_ms(f, 500);
	for (int i = 0; i < 4; i++) {
		const char *text = json_string_value(json_object_get(p[i]->view, "text"));

		assert_non_null(text);
		snprintf(prefix, sizeof(prefix), "%s, your cards", p[i]->name);
		assert_non_null(strstr(text, prefix));
		for (int k = 0; k < 4; k++) {
			snprintf(prefix, sizeof(prefix), "%s, your cards", p[k]->name);
			if (k != i)
				assert_null(strstr(text, prefix));
		}
	}
	play_out(f, 2000);
	for (int i = 0; i < 4; i++) {
		struct store_rating r;

		assert_int_equal(store_rating_get(f->b.store, p[i]->platform, p[i]->user, "callbreak", &r), GB_OK);
		assert_int_equal(r.games, 3);
	}
}

/* Nobody else comes: after the fill-in wait, computers take the seats of who accepted them. */
static void test_fill_with_computers(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");

	metrics_reset();
	say(f, a, "/online baghchal");
	wait_ms(f, 3000);
	assert_null(a->view);
	say(f, a, "/online fill");
	assert_non_null(strstr(a->lines, "Computers may take"));
	wait_ms(f, 500);
	assert_non_null(a->view);
	assert_true(metrics_value("gamebot_online_computer_seats_total", "game=\"baghchal\"") >= 1);
	assert_true(metrics_value("gamebot_online_tables_opened_total", "game=\"baghchal\"") >= 1);
	/* who leaves hands the seat to a computer; with nobody left the table closes */
	say(f, a, "/leave");
	say(f, a, "/online snakes");
	assert_non_null(strstr(a->lines, "queue for Snakes"));
}

/* The text of p's queue message. */
static const char *queue_text(struct person *p)
{
	return json_string_value(json_object_get(p->queue, "text"));
}

/*
 * The queue message says how many wait for the same table (game, size,
 * stake) and is edited in place as that changes - once a matcher round
 * however many joined or left in it - and when the person leaves or is
 * seated; in the person's language.
 */
static void test_queue_message_counts(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "telegram", "9002", "Bina");
	struct person *c = add(f, "discord", "9003", "Chiri");
	struct person *d = add(f, "telegram", "9004", "Dawa");
	int found = 0;

	say(f, b, "/lang ne");
	say(f, a, "/online callbreak");
	assert_int_equal(a->queue_rows, 1);
	assert_non_null(strstr(queue_text(a), "Waiting for this table now: 1, you included."));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_array_get(
				    json_object_get(a->queue, "buttons"), 1), 0), "cmd")), "/online leave");
	/* the platform's id of the message, as the adapter records it once sent */
	assert_int_equal(store_queue_set_message(f->b.store, "telegram", a->chat, "4242", &found), GB_OK);
	assert_int_equal(found, 1);
	/* two join before the matcher's next round: Asha's message is edited once, to three */
	say(f, b, "/online callbreak");
	assert_non_null(strstr(queue_text(b), "यो टेबलका लागि अहिले पर्खिरहेका: तपाईंसहित २ जना।"));
	say(f, c, "/online callbreak");
	assert_non_null(strstr(queue_text(c), "Waiting for this table now: 3, you included."));
	assert_int_equal(a->queue_rows, 1);
	wait_ms(f, 300);
	assert_int_equal(a->queue_rows, 2);
	assert_non_null(strstr(queue_text(a), "Waiting for this table now: 3, you included."));
	assert_string_equal(json_string_value(json_object_get(a->queue, "message")), "4242");
	assert_non_null(strstr(queue_text(b), "तपाईंसहित ३ जना"));
	assert_int_equal(b->queue_rows, 2);
	assert_int_equal(c->queue_rows, 1);
	/* one leaves (the message says so, its buttons gone); one waits at another stake: two wait for Asha's table */
	say(f, c, "/online leave");
	assert_non_null(strstr(queue_text(c), "You left the queue for Call Break."));
	assert_null(json_object_get(c->queue, "buttons"));
	say(f, d, "/online callbreak 100");
	assert_non_null(strstr(queue_text(d), "Waiting for this table now: 1, you included."));
	wait_ms(f, 300);
	assert_int_equal(a->queue_rows, 3);
	assert_non_null(strstr(queue_text(a), "Waiting for this table now: 2, you included."));
	assert_non_null(strstr(queue_text(b), "तपाईंसहित २ जना"));
	assert_int_equal(d->queue_rows, 1);
	/* four for the table: seated, each queue message says the table is ready, buttons gone */
	say(f, d, "/online leave");
	say(f, c, "/online callbreak");
	say(f, d, "/online callbreak");
	wait_ms(f, 300);
	assert_non_null(a->view);
	assert_non_null(d->view);
	assert_non_null(strstr(queue_text(a), "Your table of Call Break is ready"));
	assert_string_equal(json_string_value(json_object_get(a->queue, "message")), "4242");
	assert_null(json_object_get(a->queue, "buttons"));
	assert_non_null(strstr(queue_text(b), "तपाईंको कल ब्रेकको टेबल तयार भयो"));
	assert_non_null(strstr(queue_text(c), "Your table of Call Break is ready"));
	assert_non_null(strstr(queue_text(d), "Your table of Call Break is ready"));
	assert_int_equal(a->queue_rows, 4);
}

/*
 * "Leave the queue" (or "Computers may fill") pressed on a queue message
 * after its person was seated - a message that could not be edited, or
 * was posted twice: they are told their table is ready and how to leave
 * it, in their language, and that message is edited to say so, its
 * buttons gone (never posted afresh, replacing no other row). Typed, the
 * same answer, and nothing to edit; in no queue and at no table, the
 * answer says how to join one.
 */
static void test_outdated_queue_message_pressed(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");

	say(f, b, "/lang ne");
	a->reads = "en";
	b->reads = "ne";
	say(f, a, "/online ludo");
	say(f, b, "/online ludo");
	wait_ms(f, 1000);
	assert_non_null(a->view);
	assert_non_null(b->view);
	assert_non_null(strstr(queue_text(a), "Your table of Ludo is ready"));

	pressed_on = "4242";
	say(f, a, "/online leave");
	assert_non_null(strstr(a->lines, "Your table of Ludo is ready and you are seated at it"));
	assert_non_null(strstr(a->lines, "/leave hands your seat to a computer"));
	assert_null(strstr(a->lines, "not in a queue"));
	assert_non_null(a->stale);
	assert_string_equal(json_string_value(json_object_get(a->stale, "message")), "4242");
	assert_null(json_object_get(a->stale, "buttons"));
	assert_non_null(strstr(json_string_value(json_object_get(a->stale, "text")), "you are seated at it"));
	pressed_on = "99887766";
	say(f, b, "/online fill");
	assert_non_null(strstr(b->lines, "तपाईंको लुडोको टेबल तयार छ र तपाईं त्यसमा बसिसक्नुभएको छ"));
	assert_non_null(strstr(b->lines, "/leave ले तपाईंको सिट कम्प्युटरलाई दिन्छ"));
	assert_non_null(b->stale);
	assert_string_equal(json_string_value(json_object_get(b->stale, "message")), "99887766");
	assert_non_null(strstr(json_string_value(json_object_get(b->stale, "text")), "बसिसक्नुभएको"));
	/* typed: the same answer, nothing to edit */
	json_decref(a->stale);
	a->stale = NULL;
	say(f, a, "/online leave");
	assert_non_null(strstr(a->lines, "you are seated at it"));
	assert_null(a->stale);
	/* the table is theirs still: the game plays on to its end */
	play_out(f, 4000);
	/* over: in no queue and at no table, a press says how to queue, and edits nothing */
	pressed_on = "4242";
	say(f, a, "/online leave");
	assert_non_null(strstr(a->lines, "not in a queue"));
	assert_null(a->stale);
	assert_true(a->checked > 5);
	assert_true(b->checked > 5);
}

/*
 * The queue entry gone between the command's reading and its writing (the
 * matcher seating the person, played here by a trigger in the command's
 * own transaction, every time it is tried): /online leave and /online
 * fill are never confirmed for an entry they did not change, and the
 * entry is as it was.
 */
static void test_queue_entry_gone_before_the_write(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct store_queue q;
	const char *const words[] = { "/online leave", "/online nofill" };

	say(f, a, "/online ludo");
	assert_non_null(a->queue);
	sql_exec(f, "CREATE TRIGGER matcher_between AFTER INSERT ON processed BEGIN"
		    " DELETE FROM online_queue; END;");
	for (int i = 0; i < 2; i++) {
		update_id = i ? "u-2" : "u-1";
		free(a->lines);
		a->lines = NULL;
		send_cmd(f, a, words[i], true, 0, 0);
		assert_non_null(a->lines);
		assert_null(strstr(a->lines, "You left the queue"));
		assert_null(strstr(a->lines, "Only people will be seated"));
		assert_non_null(strstr(a->lines, "The table changed while I was working"));
		assert_int_equal(store_queue_of(f->b.store, "telegram", "9001", &q), GB_OK);
	}
	sql_exec(f, "DROP TRIGGER matcher_between;");
	say(f, a, "/online leave");
	assert_non_null(strstr(a->lines, "You left the queue for Ludo"));
	assert_int_equal(store_queue_of(f->b.store, "telegram", "9001", &q), GB_ENOTFOUND);
}

/*
 * /block once the person's online tables were pruned (verify_keep_days):
 * nobody is blocked, and the answer says there is no recent table to
 * block someone from, in the person's language.
 */
static void test_block_after_prune(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");
	struct person *c = add(f, "telegram", "9003", "Chiri");
	struct person *d = add(f, "telegram", "9004", "Dawa");
	struct bot_prune keep = { .verify_keep_days = 30, .batch = 100 };
	struct bot_pruned done = { 0 };
	int yes = 1;

	say(f, b, "/lang ne");
	say(f, a, "/online baghchal");
	say(f, b, "/online baghchal");
	wait_ms(f, 500);
	assert_non_null(a->view);
	/* both leave: the table stops, and is over */
	say(f, a, "/leave");
	say(f, b, "/leave");
	/* a month and more later another table is in play (the newest table is never pruned anyway) */
	f->now += 31LL * 24 * 3600 * 1000;
	say(f, c, "/online baghchal");
	say(f, d, "/online baghchal");
	wait_ms(f, 500);
	assert_non_null(c->view);
	while (bot_prune_step(f->b.store, &keep, f->now, &done) > 0)
		;
	assert_int_equal(done.tables, 1);
	say(f, a, "/block");
	assert_non_null(strstr(a->lines, "no recent table to block someone from"));
	assert_null(strstr(a->lines, "Only computers"));
	say(f, b, "/block");
	assert_non_null(strstr(b->lines, "रोक्ने हालको टेबल छैन"));
	assert_int_equal(store_blocked(f->b.store, "telegram", "9001", "discord", "777000111", &yes), GB_OK);
	assert_int_equal(yes, 0);
	/* the table still kept is the one /block takes its people from */
	say(f, c, "/block");
	assert_non_null(strstr(c->lines, "You will not meet Player"));
	assert_int_equal(store_blocked(f->b.store, "telegram", "9003", "telegram", "9004", &yes), GB_OK);
	assert_int_equal(yes, 1);
}

/* How many times needle is in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * p's turn, from the moment it comes: the virtual milliseconds until it
 * moves on (p's view says another turn), the clock let run 1 s at a time.
 */
static int64_t turn_takes(struct fixture *f, struct person *p)
{
	int64_t t0 = f->now;
	json_int_t turn = json_integer_value(json_object_get(p->view, "turn"));

	for (int i = 0; i < 120 && json_integer_value(json_object_get(p->view, "turn")) == turn; i++)
		wait_ms(f, 1000);
	return f->now - t0;
}

/* Press p's first button on p's newest view. */
static void press(struct fixture *f, struct person *p)
{
	assert_int_equal(send_cmd(f, p, first_button(p), true, json_integer_value(json_object_get(p->view, "table")),
				  (int)json_integer_value(json_object_get(p->view, "turn"))), GB_OK);
}

/*
 * A seat a computer took over after the online wait stays the computer's,
 * played at the computer's pace (not the wait again at every turn), said
 * once; the away state is a store row, so a restart keeps it; the person
 * pressing or typing something takes the seat back, and their turns wait
 * for them again.
 */
static void test_away_keeps_pace(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");
	int away_turns = 0;
	bool restarted = false;

	say(f, a, "/name Asha");
	say(f, b, "/name Bikash");
	say(f, a, "/online ludo");
	say(f, b, "/online ludo");
	wait_ms(f, 1000);
	assert_non_null(a->view);
	free(a->lines);
	a->lines = NULL;
	/* Bikash never presses: his first turn waits the 45 s */
	for (int i = 0; i < 40 && !first_button(b); i++)
		if (first_button(a))
			press(f, a);
		else
			wait_ms(f, 3000);
	assert_non_null(first_button(b));
	assert_true(turn_takes(f, b) >= 45000);
	assert_int_equal(count_of(a->lines, "Bikash is away"), 1);
	/* from then on his turns go at a computer's pace, a restart in between */
	for (int step = 0; step < 400 && away_turns < 6 && !over(f); step++) {
		if (away_turns == 3 && !restarted) {
			restarted = true;
			store_free(f->b.store);
			assert_int_equal(store_open(&f->b.store, f->db), GB_OK);
		}
		if (first_button(b)) {
			assert_true(turn_takes(f, b) < 10000);
			away_turns++;
		} else if (first_button(a)) {
			press(f, a);
		} else {
			wait_ms(f, 1000);
		}
	}
	assert_true(away_turns >= 3 || over(f));
	assert_int_equal(count_of(a->lines, "Bikash is away"), 1);
	assert_int_equal(count_of(a->lines, "was away"), 0);
	if (over(f))
		return;
	/* he types something: the seat is his again, his turn waits for him */
	say(f, b, "/board");
	for (int i = 0; i < 40 && !first_button(b) && !over(f); i++)
		if (first_button(a))
			press(f, a);
		else
			wait_ms(f, 1000);
	if (over(f))
		return;
	wait_ms(f, 10000);
	assert_non_null(first_button(b));
	press(f, b);
}

/*
 * /name as promised: 2 to 20 letters of any script (Devanagari with its
 * marks), digits or spaces; no name that reads as a computer's; no name
 * another player has, case aside; each refusal in the reader's language.
 */
static void test_name_rules(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "9001", "Asha");
	struct person *b = add(f, "discord", "777000111", "Bikash");
	char name[64];
	static const char *const bad[] = { "/name \xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2\xf0\x9f\x8e\xb2", "/name A",
					   "/name Asha!", "/name @asha", "/name abcdefghij abcdefghij",
					   "/name \xe0\xa4\xbf\xe0\xa4\x95", NULL };
	static const char *const computer[] = { "/name Bot 2", "/name bot2", "/name BOT", "/name Computer",
						"/name कम्प्युटर ३", "/name Bot for Asha", "/name Player 1234",
						NULL };

	for (int i = 0; bad[i]; i++) {
		say(f, a, bad[i]);
		if (!strstr(a->lines ? a->lines : "", "A name is 2 to 20 letters"))
			fail_msg("%s was not refused: %s", bad[i], a->lines ? a->lines : "(nothing)");
	}
	for (int i = 0; computer[i]; i++) {
		say(f, a, computer[i]);
		if (!strstr(a->lines ? a->lines : "", "reads as a computer player's name"))
			fail_msg("%s was not refused: %s", computer[i], a->lines ? a->lines : "(nothing)");
	}
	assert_int_equal(store_person_get(f->b.store, "telegram", "9001", name, sizeof(name), NULL), GB_OK);
	assert_string_equal(name, "");
	/* letters of any script, marks and all; spaces between words one apiece */
	say(f, b, "/name प्रविण कुमार");
	assert_non_null(strstr(b->lines, "You play online as प्रविण कुमार"));
	say(f, a, "/name   Asha    Rai  ");
	assert_non_null(strstr(a->lines, "You play online as Asha Rai."));
	say(f, a, "/name Élodie 2");
	assert_non_null(strstr(a->lines, "You play online as Élodie 2."));
	say(f, a, "/name Asha Rai");
	/* taken, case aside: in either language */
	say(f, b, "/name asha RAI");
	assert_non_null(strstr(b->lines, "Another player already plays as \"asha RAI\""));
	say(f, b, "/lang ne");
	say(f, b, "/name ASHA rai");
	assert_non_null(strstr(b->lines, "अर्को खेलाडी \"ASHA rai\" नामले"));
	say(f, b, "/name Bot 3");
	assert_non_null(strstr(b->lines, "कम्प्युटर खेलाडीको नामजस्तो"));
	say(f, b, "/name 🎲🎲");
	assert_non_null(strstr(b->lines, "नाम २ देखि २० अक्षर"));
	assert_int_equal(store_person_get(f->b.store, "discord", "777000111", name, sizeof(name), NULL), GB_OK);
	assert_string_equal(name, "प्रविण कुमार");
	/* one's own name in another case is still one's own */
	say(f, a, "/name ASHA RAI");
	assert_non_null(strstr(a->lines, "You play online as ASHA RAI."));
	/* a name given up is free for someone else */
	say(f, a, "/name Asha");
	say(f, b, "/name Asha Rai");
	assert_non_null(strstr(b->lines, "Asha Rai"));
	assert_int_equal(store_person_get(f->b.store, "discord", "777000111", name, sizeof(name), NULL), GB_OK);
	assert_string_equal(name, "Asha Rai");
	/* case aside in other scripts too */
	say(f, a, "/name Łukasz Дима");
	assert_non_null(strstr(a->lines, "You play online as Łukasz Дима."));
	say(f, b, "/lang en");
	say(f, b, "/name łukasz дима");
	assert_non_null(strstr(b->lines, "Another player already plays as"));
}

#define RACERS 8

struct racer {
	const char *db;
	pthread_barrier_t *go;
	char user[16];
	char text[32];
	int rc;
};

static void *race_name(void *arg)
{
	struct racer *r = arg;
	struct command cmd;
	struct bot b = { 0 };

	/* a service's threads each have a handle of their own */
	bot_config_init(&b.cfg);
	r->rc = store_open(&b.store, r->db);
	pthread_barrier_wait(r->go);
	if (r->rc)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	command_parse_text(&cmd, r->text);
	snprintf(cmd.platform, sizeof(cmd.platform), "telegram");
	snprintf(cmd.chat, sizeof(cmd.chat), "dm-%s", r->user);
	snprintf(cmd.user, sizeof(cmd.user), "%s", r->user);
	cmd.private_chat = true;
	cmd.now_ms = 1700000000000;
	r->rc = bot_handle(&b, &cmd);
	store_free(b.store);
	return NULL;
}

/* RACERS people claim one name at once, each through a handle of their own on db: one gets it. */
static void name_race(const char *db, const char *name)
{
	struct store *s = NULL;
	struct racer r[RACERS];
	pthread_t th[RACERS];
	pthread_barrier_t go;
	static const char *const spellings[] = { "/name %s", "/name %s ", "/name  %s", "/name %s  " };
	int holders = 0;

	pthread_barrier_init(&go, NULL, RACERS);
	for (int i = 0; i < RACERS; i++) {
		r[i] = (struct racer){ .db = db, .go = &go };
		snprintf(r[i].text, sizeof(r[i].text), spellings[i % 4], name);
		/* case aside: the same name */
		if (i % 3 == 1)
			r[i].text[6] = (char)(r[i].text[6] ^ 0x20);
		snprintf(r[i].user, sizeof(r[i].user), "race%d", i);
		assert_int_equal(pthread_create(&th[i], NULL, race_name, &r[i]), 0);
	}
	for (int i = 0; i < RACERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&go);
	assert_int_equal(store_open(&s, db), GB_OK);
	for (int i = 0; i < RACERS; i++) {
		char got[64];

		assert_int_equal(r[i].rc, GB_OK);
		assert_int_equal(store_person_get(s, "telegram", r[i].user, got, sizeof(got), NULL), GB_OK);
		holders += strcasecmp(got, name) == 0;
	}
	store_free(s);
	assert_int_equal(holders, 1);
}

/* Threads on one SQLite file: of people claiming one name at once, one gets it. */
static void test_name_race_sqlite(void **state)
{
	struct fixture *f = *state;
	static const char *const names[] = { "Sita", "Gita", "Rita", "Mina", "Tara", "Hari" };

	for (int i = 0; i < 6; i++)
		name_race(f->db, names[i]);
}

/* Two instances (two store handles) on one PostgreSQL database: of people claiming one name at once, one gets it. */
static void test_name_race_pg(void **state)
{
	const char *base = getenv("GAMEBOT_TEST_PG");
	char schema[64], sql[256], db[1100];

	(void)state;
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server (make test starts one through tests/pg.sh)");
	snprintf(schema, sizeof(schema), "online_names_%ld", (long)getpid());
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
	assert_int_equal(pg_admin(base, sql), 0);
	snprintf(db, sizeof(db), "%s%soptions=-csearch_path%%3D%s", base, strchr(base, '?') ? "&" : "?", schema);
	name_race(db, "Sita");
	name_race(db, "Gita");
	name_race(db, "Rita");
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	pg_admin(base, sql);
}

/* What p's chat was sent, in the order a delivery worker sends it: one line a message. */
struct delivered {
	char *seq[MAXP];
};

/*
 * Every row queued so far, claimed as the delivery workers claim them
 * (store_out_claim(): a chat's head, one at a time), into d->seq of the
 * person whose chat it goes to: "queue: TEXT" for the queue message,
 * "board" for a table view, "line: TEXT" for the rest.
 */
static void deliver_in_order(struct fixture *f, struct delivered *d)
{
	static const char *const platforms[] = { "telegram", "discord" };

	for (int k = 0; k < 2; k++) {
		struct store_out rows[64];
		int n = 0;

		do {
			assert_int_equal(store_out_claim(f->b.store, platforms[k], f->now, 30000, rows, 64, &n), GB_OK);
			for (int i = 0; i < n; i++) {
				json_t *j = json_loads(rows[i].payload, 0, NULL);
				const char *kind = json_string_value(json_object_get(j, "kind"));
				const char *text = json_string_value(json_object_get(j, "text"));
				struct strbuf sb = { 0 };

				for (int q = 0; q < f->np; q++) {
					if (strcmp(f->p[q].platform, platforms[k]) || strcmp(f->p[q].chat, rows[i].chat))
						continue;
					if (json_is_true(json_object_get(j, "queue")))
						sb_addf(&sb, "queue: %s", text);
					else if (!strcmp(kind, "table"))
						sb_add(&sb, "board");
					else
						sb_addf(&sb, "line: %s", text);
					append(&d->seq[q], sb_str(&sb));
				}
				sb_release(&sb);
				json_decref(j);
				store_out_done(f->b.store, rows[i].id);
				store_out_release(&rows[i]);
			}
		} while (n > 0);
	}
}

/* A command from p in their private chat, its rows left in the outbox. */
static void queue_cmd(struct fixture *f, struct person *p, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", p->platform);
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", p->chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", p->user);
	cmd.private_chat = true;
	cmd.now_ms = f->now += 20;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
}

/* Where line needle first is in the sequence seq (-1 nowhere). */
static int line_at(const char *seq, const char *needle)
{
	const char *hit = seq ? strstr(seq, needle) : NULL;
	int at = 0;

	if (!hit)
		return -1;
	for (const char *p = seq; p < hit; p++)
		at += *p == '\n';
	return at;
}

/*
 * Four people queue for Call Break for a stake and are seated in the
 * matcher's round before any of their queue messages went out: in each
 * chat the queue message comes first, says the table is ready before
 * the table's first message, and the table's lines come in the order
 * they happened (it opens, the stakes are held, the game starts).
 */
static void test_queue_message_first(void **state)
{
	struct fixture *f = *state;
	struct person *p[4] = { add(f, "telegram", "101", "Asha"), add(f, "telegram", "102", "Bina"),
				add(f, "discord", "103", "Chiri"), add(f, "discord", "904", "Dawa") };
	struct delivered d = { { 0 } };

	for (int i = 0; i < 4; i++)
		queue_cmd(f, p[i], "/online callbreak 100");
	assert_int_equal(bot_run_timers(&f->b, f->now, BOT_TIMER_ALL), 1);
	/* the game is played on a while the first messages are still on their way */
	for (int i = 0; i < 3; i++)
		bot_run_timers(&f->b, f->now += 3000, BOT_TIMER_ALL);
	deliver_in_order(f, &d);
	for (int i = 0; i < 4; i++) {
		const char *seq = d.seq[i];
		int ready = line_at(seq, "queue: Your table of Call Break is ready"), board = line_at(seq, "board");
		int opens = line_at(seq, "line: An online table of Call Break opens"), held = line_at(seq, "Stakes");

		if (getenv("TEST_SHOW"))
			fprintf(stderr, "---- %s\n%s", p[i]->name, seq);
		assert_true(ready == 0 || (ready > 0 && !strncmp(seq, "queue: ", 7)));
		assert_true(ready >= 0 && board > ready);
		assert_true(opens >= 0 && held > opens);
		free(d.seq[i]);
	}
}

/* The operator's keys: online = off takes /online away; the waits and the grant are read. */
static void test_operator_settings(void **state)
{
	struct config c;
	struct bot_config bc;
	char err[256];

	(void)state;
	setenv("GAMEBOT_ONLINE", "off", 1);
	setenv("GAMEBOT_ONLINE_FILL_AFTER", "5", 1);
	setenv("GAMEBOT_ONLINE_AUTOPLAY_AFTER", "20", 1);
	setenv("GAMEBOT_ONLINE_STARTING_COINS", "250", 1);
	assert_int_equal(config_load(&c, "/dev/null", err, sizeof(err)), GB_OK);
	serve_bot_config(&c, &bc);
	assert_false(bc.online);
	assert_int_equal(bc.online_fill_ms, 5000);
	assert_int_equal(bc.online_autoplay_s, 20);
	assert_int_equal(bc.online_coins, 250);
	setenv("GAMEBOT_ONLINE", "maybe", 1);
	assert_int_not_equal(config_load(&c, "/dev/null", err, sizeof(err)), GB_OK);
	assert_non_null(strstr(err, "online must be on or off"));
	unsetenv("GAMEBOT_ONLINE");
	unsetenv("GAMEBOT_ONLINE_FILL_AFTER");
	unsetenv("GAMEBOT_ONLINE_AUTOPLAY_AFTER");
	unsetenv("GAMEBOT_ONLINE_STARTING_COINS");
	assert_int_equal(config_load(&c, "/dev/null", err, sizeof(err)), GB_OK);
	serve_bot_config(&c, &bc);
	assert_true(bc.online);
	assert_int_equal(bc.online_fill_ms, 30000);
	assert_int_equal(bc.online_autoplay_s, 45);
}

/*
 * A private chat's coins are the person's online wallet: /wallet there
 * says what /online says (the starting grant before any is written, 900
 * once a stake of 100 is held), never a wallet of the private chat itself;
 * /top there lists the richest online wallets. In English and in Nepali.
 */
static void test_private_chat_coins(void **state)
{
	struct fixture *f = *state;
	struct person *a = add(f, "telegram", "5101", "Asha");
	struct person *b = add(f, "telegram", "5102", "Bina");
	struct store_chat dm = { 0 };
	int64_t coins = -1;
	int rows = -1;

	say(f, a, "/name Asha");
	say(f, b, "/name Bina");
	say(f, b, "/lang ne");
	a->reads = "en";
	b->reads = "ne";
	say(f, a, "/top");
	assert_non_null(strstr(a->lines, "Nobody has online coins yet"));
	say(f, a, "/wallet");
	assert_non_null(strstr(a->lines, "Your online coins: 1000"));
	assert_null(strstr(a->lines, "has 1000 coins"));
	/* nothing was written for the private chat: it has no wallet of its own */
	assert_int_equal(store_chat_get(f->b.store, "telegram", a->chat, "en", &dm), GB_OK);
	assert_int_equal(store_coins_balance(f->b.store, dm.id, "user:5101", &coins, &rows), GB_OK);
	assert_int_equal(rows, 0);
	store_chat_release(&dm);
	say(f, a, "/online ludo 100");
	say(f, b, "/online ludo 100");
	wait_ms(f, 500);
	assert_non_null(a->view);
	say(f, a, "/wallet");
	assert_non_null(strstr(a->lines, "Your online coins: 900"));
	say(f, a, "/online");
	assert_non_null(strstr(a->lines, "Your online coins: 900"));
	say(f, b, "/wallet");
	assert_non_null(strstr(b->lines, "तपाईंका अनलाइन सिक्का: ९००"));
	say(f, a, "/top");
	assert_non_null(strstr(a->lines, "Richest at online tables"));
	assert_non_null(strstr(a->lines, "Asha — 900 coins"));
	assert_non_null(strstr(a->lines, "Bina — 900 coins"));
	say(f, b, "/top");
	assert_non_null(strstr(b->lines, "अनलाइन टेबलका सबैभन्दा धनी"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ludo_cross_platform_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_seat_own_language, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbreak_hands_and_pot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fill_with_computers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_message_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outdated_queue_message_pressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_entry_gone_before_the_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_after_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_chat_coins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_away_keeps_pace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_race_sqlite, setup, teardown),
		cmocka_unit_test(test_name_race_pg),
		cmocka_unit_test_setup_teardown(test_queue_message_first, setup, teardown),
		cmocka_unit_test(test_operator_settings),
	};

	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
