/*
 * test_coins.c - coins played for as the seeds describe them, through the
 * router in-process on a real SQLite file: wallets and grants, a staked
 * Ludo game, a Call Break game tied at the top (CB-21: every stake back), a
 * stopped game, computer seats that play free, a seat autoplayed for its
 * idle owner (CB-23: the seat and its stake stay theirs), and a player who
 * cannot cover the stake. After every command and every timer the ledger
 * must pass store_coins_audit().
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/bot.h"
#include "games/strbuf.h"
#include "tests/fixture.h"

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
	int64_t now;
	char *out;          /* everything queued since the last drain */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || FIXTURE_BOT_OPEN(f, "coins", 11))
		return -1;
	f->now = 1700000000000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);

	free(f->out);
	free(f);
	return rc;
}

static void audit(struct fixture *f)
{
	char why[256];
	int rc = store_coins_audit(f->b.store, 0, why, sizeof(why));

	if (rc)
		fail_msg("ledger: %s", why);
}

/* Keep every queued reply's text in f->out (replacing what was there). */
static void drain(struct fixture *f)
{
	struct store_out rows[64];
	struct strbuf sb = { 0 };
	int n = 0;

	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;
			json_t *j = json_loads(rows[i].payload, 0, &err);

			sb_add(&sb, json_string_value(json_object_get(j, "text")));
			sb_add(&sb, "\n");
			json_decref(j);
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	free(f->out);
	f->out = sb_detach(&sb);
}

static void say(struct fixture *f, const char *user, bool admin, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.is_admin = admin;
	cmd.now_ms = f->now += 1000;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	audit(f);
	drain(f);
}

/* Let ms pass and fire every timer due by then, one batch at a time. */
static void wait_ms(struct fixture *f, int64_t ms)
{
	f->now += ms;
	for (int guard = 0; guard < 100; guard++) {
		int fired = bot_run_timers(&f->b, f->now, BOT_TIMER_ALL);

		assert_true(fired >= 0);
		audit(f);
		if (!fired)
			break;
	}
	drain(f);
}

static int64_t chat_id(struct fixture *f)
{
	struct store_chat chat = { 0 };
	int64_t id;

	assert_int_equal(store_chat_get(f->b.store, "test", "chat-1", "en", &chat), GB_OK);
	id = chat.id;
	store_chat_release(&chat);
	return id;
}

static int64_t coins(struct fixture *f, const char *user)
{
	char acct[STORE_ACCOUNT_LEN];
	int64_t v = 0;

	snprintf(acct, sizeof(acct), "user:%s", user);
	assert_int_equal(store_coins_balance(f->b.store, chat_id(f), acct, &v, NULL), GB_OK);
	return v;
}

/*
 * The open game as the script contract shows it (caller decrefs), or NULL
 * when the chat has no game in play.
 */
static json_t *game_state(struct fixture *f, int64_t *table)
{
	struct store_table t = { 0 };
	json_error_t err;
	json_t *w, *g = NULL;

	if (store_table_open_get(f->b.store, chat_id(f), &t) != GB_OK)
		return NULL;
	if (table)
		*table = t.id;
	w = t.state ? json_loads(t.state, 0, &err) : NULL;
	if (t.status == STORE_PLAYING && json_object_get(w, "game"))
		g = json_incref(json_object_get(w, "game"));
	json_decref(w);
	store_table_release(&t);
	return g;
}

/*
 * Play the open game to its end: the people named in users[] (by seat)
 * take their first legal action, NULL seats are left to the timers
 * (computers, or idle autoplay when the chat has it). Returns the last
 * state (caller decrefs).
 */
static json_t *play_out(struct fixture *f, const char *const *users, int nusers)
{
	json_t *last = NULL, *g;
	int64_t table = 0;

	for (int step = 0; step < 5000 && (g = game_state(f, &table)); step++) {
		json_int_t turn = json_integer_value(json_object_get(g, "turn"));
		const char *act = json_string_value(json_array_get(json_object_get(g, "legal"), 0));
		bool person = json_is_integer(json_object_get(g, "turn")) && turn >= 0 && turn < nusers &&
			      users[turn];

		json_decref(last);
		last = g;
		if (!json_is_integer(json_object_get(g, "turn")) && act) {
			char line[64];

			/* between Call Break rounds: anyone seated deals the next */
			snprintf(line, sizeof(line), "/%s", act);
			say(f, users[0], false, line);
		} else if (person && act) {
			char line[64];

			snprintf(line, sizeof(line), "/%s", act);
			say(f, users[turn], false, line);
		} else {
			wait_ms(f, 60000);
		}
	}
	json_decref(last);
	last = NULL;
	{
		/* the finished table's final state */
		struct store_table t = { 0 };
		json_error_t err;
		json_t *w;

		assert_int_equal(store_table_get(f->b.store, table, &t), GB_OK);
		assert_int_equal(t.status, STORE_OVER);
		w = json_loads(t.state, 0, &err);
		last = json_incref(json_object_get(w, "game"));
		json_decref(w);
		store_table_release(&t);
	}
	assert_true(json_is_true(json_object_get(last, "over")));
	return last;
}

static void test_wallets_and_grants(void **state)
{
	struct fixture *f = *state;

	say(f, "asha", false, "/wallet");
	assert_non_null(strstr(f->out, "asha has 1000 coins"));
	say(f, "bikash", false, "/wallet");
	/* only admins grant; grants come from the bank */
	say(f, "bikash", false, "/grant @asha 50");
	assert_non_null(strstr(f->out, "Only chat admins"));
	say(f, "admin", true, "/grant @asha 250");
	assert_non_null(strstr(f->out, "admin grants 250 coins to asha (now 1250)"));
	assert_int_equal(coins(f, "asha"), 1250);
	say(f, "admin", true, "/grant @nobody 5");
	assert_non_null(strstr(f->out, "I don't know @nobody"));
	say(f, "admin", true, "/grant asha lots");
	assert_non_null(strstr(f->out, "not an amount"));
	say(f, "asha", false, "/top");
	assert_non_null(strstr(f->out, "1. asha — 1250 coins\n2. bikash — 1000 coins"));
	/* an admin sets what a new wallet gets */
	say(f, "admin", true, "/settings starting_coins 40");
	say(f, "chandra", false, "/wallet");
	assert_non_null(strstr(f->out, "chandra has 40 coins"));
	{
		int64_t bank = 0;

		assert_int_equal(store_coins_balance(f->b.store, chat_id(f), "bank", &bank, NULL), GB_OK);
		assert_int_equal(bank, -(1250 + 1000 + 40));
	}
}

static void test_staked_ludo_winner_takes_the_pot(void **state)
{
	struct fixture *f = *state;
	static const char *const users[] = { "asha", "bikash" };
	json_t *last;
	int64_t a, b;

	say(f, "asha", false, "/new ludo");
	say(f, "asha", false, "/stake 100");
	assert_non_null(strstr(f->out, "asha sets the stake: 100 coins a seat"));
	assert_non_null(strstr(f->out, "Stake: 100 coins a seat"));
	say(f, "bikash", false, "/join");
	say(f, "bikash", false, "/stake 5");
	assert_non_null(strstr(f->out, "Only who runs the table"));
	say(f, "asha", false, "/start");
	assert_non_null(strstr(f->out, "Stakes held: 200 coins in the pot."));
	assert_non_null(strstr(f->out, "Pot: 200 coins"));
	assert_int_equal(coins(f, "asha"), 900);
	assert_int_equal(coins(f, "bikash"), 900);
	say(f, "asha", false, "/stake 50");
	assert_non_null(strstr(f->out, "set in the lobby"));
	last = play_out(f, users, 2);
	assert_non_null(last);
	a = coins(f, "asha");
	b = coins(f, "bikash");
	/* the winner's seat takes both stakes */
	assert_int_equal(a + b, 2000);
	assert_true((a == 1100 && b == 900) || (a == 900 && b == 1100));
	assert_non_null(strstr(f->out, a > b ? "asha takes the pot: 200 coins." : "bikash takes the pot: 200 coins."));
	json_decref(last);
}

static void test_callbreak_tie_at_the_top_refunds(void **state)
{
	struct fixture *f = *state;
	static const char *const users[] = { "asha", "bikash", "chandra", "dipa" };
	bool tie_seen = false, win_seen = false;

	say(f, "asha", true, "/settings callbreak rounds 1");
	for (int game = 0; game < 40 && !(tie_seen && win_seen); game++) {
		int64_t before[4], after[4];
		json_t *last;
		int tied;

		say(f, "asha", false, "/new callbreak");
		for (int i = 1; i < 4; i++)
			say(f, users[i], false, "/join");
		say(f, "asha", false, "/stake 10");
		for (int i = 0; i < 4; i++)
			before[i] = coins(f, users[i]);
		say(f, "asha", false, "/start");
		/* (the open table: play_out() reads the final state from it) */
		last = play_out(f, users, 4);
		assert_non_null(last);
		tied = (int)json_array_size(json_object_get(last, "tied"));
		json_decref(last);
		for (int i = 0; i < 4; i++)
			after[i] = coins(f, users[i]);
		if (tied > 1) {
			/* CB-21: the sheet still names a seat, but every stake goes back */
			assert_non_null(strstr(f->out, "A tie at the top: every stake goes back"));
			for (int i = 0; i < 4; i++)
				assert_int_equal(after[i], before[i]);
			tie_seen = true;
		} else {
			int gained = 0;

			for (int i = 0; i < 4; i++) {
				assert_true(after[i] == before[i] - 10 || after[i] == before[i] + 30);
				gained += after[i] == before[i] + 30;
			}
			assert_int_equal(gained, 1);
			assert_non_null(strstr(f->out, "takes the pot: 40 coins."));
			win_seen = true;
		}
	}
	assert_true(tie_seen);
	assert_true(win_seen);
}

static void test_stopped_game_returns_every_stake(void **state)
{
	struct fixture *f = *state;

	say(f, "asha", false, "/new ludo");
	say(f, "bikash", false, "/join");
	say(f, "chandra", false, "/join");
	say(f, "asha", false, "/stake 300");
	say(f, "asha", false, "/start");
	assert_int_equal(coins(f, "chandra"), 700);
	say(f, "asha", false, "/roll");
	say(f, "asha", false, "/stop");
	assert_non_null(strstr(f->out, "The game did not finish: every stake goes back"));
	assert_int_equal(coins(f, "asha"), 1000);
	assert_int_equal(coins(f, "bikash"), 1000);
	assert_int_equal(coins(f, "chandra"), 1000);
	/* and when everyone leaves, the table closes the same way */
	say(f, "asha", false, "/new snakes");
	say(f, "bikash", false, "/join");
	say(f, "asha", false, "/stake 100");
	say(f, "asha", false, "/start");
	say(f, "asha", false, "/leave");
	say(f, "bikash", false, "/leave");
	assert_non_null(strstr(f->out, "every stake goes back"));
	assert_int_equal(coins(f, "asha"), 1000);
	assert_int_equal(coins(f, "bikash"), 1000);
}

static void test_computers_play_free(void **state)
{
	struct fixture *f = *state;
	static const char *const users[] = { "asha", "bikash", NULL };
	bool computer_won = false, person_won = false;

	for (int game = 0; game < 30 && !(computer_won && person_won); game++) {
		int64_t a0, b0, a, b;
		json_t *last;

		say(f, "asha", false, "/new snakes");
		say(f, "bikash", false, "/join");
		say(f, "asha", false, "/addbot");
		say(f, "asha", false, "/stake 100");
		a0 = coins(f, "asha");
		b0 = coins(f, "bikash");
		say(f, "asha", false, "/start");
		/* the computer stakes nothing */
		assert_non_null(strstr(f->out, "Stakes held: 200 coins"));
		last = play_out(f, users, 3);
		json_decref(last);
		a = coins(f, "asha");
		b = coins(f, "bikash");
		if (a == a0 && b == b0) {
			assert_non_null(strstr(f->out, "Bot 3 played for free: every stake goes back"));
			computer_won = true;
		} else {
			assert_true((a == a0 + 100 && b == b0 - 100) || (a == a0 - 100 && b == b0 + 100));
			person_won = true;
		}
	}
	assert_true(computer_won);
	assert_true(person_won);
}

static void test_idle_seat_keeps_stake_and_winnings(void **state)
{
	struct fixture *f = *state;
	/* bikash never plays: the computer plays his turns after 10 s */
	static const char *const users[] = { "asha", NULL };
	bool idle_won = false;

	say(f, "admin", true, "/settings autoplay_after 10s");
	for (int game = 0; game < 20 && !idle_won; game++) {
		int64_t b0;
		json_t *last;

		say(f, "asha", false, "/new snakes");
		say(f, "bikash", false, "/join");
		say(f, "asha", false, "/stake 100");
		b0 = coins(f, "bikash");
		say(f, "asha", false, "/start");
		last = play_out(f, users, 2);
		if (json_integer_value(json_object_get(last, "winner")) == 1) {
			/* his seat, his stake, his winnings */
			assert_int_equal(coins(f, "bikash"), b0 + 100);
			assert_non_null(strstr(f->out, "bikash takes the pot: 200 coins."));
			idle_won = true;
		}
		json_decref(last);
	}
	assert_true(idle_won);
}

static void test_who_cannot_cover_is_refused(void **state)
{
	struct fixture *f = *state;

	say(f, "admin", true, "/settings starting_coins 60");
	say(f, "asha", false, "/new ludo");
	say(f, "admin", true, "/grant asha 100");
	say(f, "asha", false, "/stake 100");
	say(f, "bikash", false, "/join");
	assert_non_null(strstr(f->out, "bikash cannot cover the stake of 100 coins (has 60)."));
	say(f, "asha", false, "/start");
	assert_non_null(strstr(f->out, "at least 2"));
	/* a grant makes it up */
	say(f, "admin", true, "/grant @bikash 40");
	say(f, "bikash", false, "/join");
	assert_non_null(strstr(f->out, "bikash sits down in seat 2"));
	/* a stake nobody seated can cover is refused too */
	say(f, "asha", false, "/stake 101");
	assert_non_null(strstr(f->out, "cannot cover the stake of 101"));
	/* exactly enough is enough */
	say(f, "asha", false, "/start");
	assert_non_null(strstr(f->out, "Stakes held: 200 coins"));
	assert_int_equal(coins(f, "bikash"), 0);
}

static void test_forced_dice_unreachable(void **state)
{
	struct fixture *f = *state;

	/* the arity check refuses an argument to /roll: a die is never chosen in a chat */
	say(f, "asha", false, "/new snakes");
	say(f, "bikash", false, "/join");
	say(f, "asha", false, "/start");
	say(f, "asha", false, "/roll 6");
	assert_non_null(strstr(f->out, "Usage: /roll"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wallets_and_grants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staked_ludo_winner_takes_the_pot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbreak_tie_at_the_top_refunds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_game_returns_every_stake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_computers_play_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_seat_keeps_stake_and_winnings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_who_cannot_cover_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forced_dice_unreachable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
