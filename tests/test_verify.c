/*
 * test_verify.c - provably fair tables: the seal shown when a game starts
 * is the SHA-256 of the seed revealed when it ends; /verify in the chat
 * and `gamebot verify SEED MOVELOG` (the real binary, no database) confirm
 * a finished game from its seed and move log, and catch a tampered log, a
 * wrong seed, and a wrong seed passed off with a matching seal (the dice
 * or the deal then differ from what was played).
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sodium.h>
#include <sqlite3.h>

#include "bot/bot.h"
#include "bot/tools/verify.h"
#include "games/strbuf.h"
#include "tests/fixture.h"

struct fixture {
	char dir[64];
	char db[128];
	struct bot b;
	int64_t now;
	char *out;          /* texts queued since the last drain */
	char *priv;         /* the private texts among them */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || sodium_init() < 0 || FIXTURE_BOT_OPEN(f, "verify", 5))
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
	free(f->priv);
	free(f);
	return rc;
}

static void drain(struct fixture *f)
{
	struct store_out rows[64];
	struct strbuf all = { 0 }, priv = { 0 };
	int n = 0;

	do {
		assert_int_equal(store_out_due(f->b.store, "test", INT64_MAX, rows, 64, &n), GB_OK);
		for (int i = 0; i < n; i++) {
			json_error_t err;
			json_t *j = json_loads(rows[i].payload, 0, &err);
			const char *text = json_string_value(json_object_get(j, "text"));

			sb_add(&all, text);
			sb_add(&all, "\n");
			if (strcmp(json_string_value(json_object_get(j, "kind")), "private") == 0) {
				sb_add(&priv, text);
				sb_add(&priv, "\n");
			}
			json_decref(j);
			store_out_done(f->b.store, rows[i].id);
			store_out_release(&rows[i]);
		}
	} while (n == 64);
	free(f->out);
	free(f->priv);
	f->out = sb_detach(&all);
	f->priv = priv.buf ? sb_detach(&priv) : strdup("");
}

static void say(struct fixture *f, const char *user, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.now_ms = f->now += 1000;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
	drain(f);
}

/* The 64 hex digits after "label " in the table text (two lines of 32), into out. */
static void hex_after(const char *text, const char *label, char out[65])
{
	char key[16];
	const char *p, *q;

	snprintf(key, sizeof(key), "\n%s ", label);
	p = strstr(text, key);
	assert_non_null(p);
	p += strlen(key);
	q = strchr(p, '\n');
	assert_non_null(q);
	assert_int_equal(q - p, 32);
	memcpy(out, p, 32);
	q++;
	while (*q == ' ')
		q++;
	memcpy(out + 32, q, 32);
	out[64] = '\0';
	assert_true(verify_seed_ok(out));
}

static int64_t last_table(struct fixture *f)
{
	sqlite3 *h;
	sqlite3_stmt *q;
	int64_t id;

	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT max(id) FROM tables", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(h);
	return id;
}

static int table_status(struct fixture *f, int64_t id)
{
	struct store_table t = { 0 };
	int status;

	assert_int_equal(store_table_get(f->b.store, id, &t), GB_OK);
	status = t.status;
	store_table_release(&t);
	return status;
}

/* Two people play Snakes and Ladders to the end; returns the table. */
static int64_t play_snakes(struct fixture *f, char seal[65], char seed[65])
{
	int64_t id;
	const char *who[2] = { "asha", "bikash" };

	say(f, "asha", "/new snakes");
	say(f, "bikash", "/join");
	say(f, "asha", "/start");
	id = last_table(f);
	hex_after(f->out, "Seal", seal);
	say(f, "asha", "/verify");
	assert_non_null(strstr(f->out, "No finished game"));
	{
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "/verify %lld", (long long)id);
		say(f, "asha", cmd);
		assert_non_null(strstr(f->out, "The seed is revealed when the game ends"));
	}
	for (int i = 0; i < 4000 && table_status(f, id) == STORE_PLAYING; i++) {
		/* whoever's turn it is rolls; the other is refused and nothing changes */
		say(f, who[i % 2], "/roll");
		if (strstr(f->out, "Not your turn"))
			say(f, who[(i + 1) % 2], "/roll");
		if (table_status(f, id) != STORE_PLAYING)
			break;
	}
	assert_int_equal(table_status(f, id), STORE_OVER);
	hex_after(f->out, "Seed", seed);
	return id;
}

static void test_seal_matches_revealed_seed(void **state)
{
	struct fixture *f = *state;
	char seal[65], seed[65], check[65];
	struct store_table t = { 0 };
	int64_t id = play_snakes(f, seal, seed);

	verify_seal(seed, check);
	assert_string_equal(check, seal);
	/* the game's generator starts from the seed's first 16 digits */
	assert_int_equal(store_table_get(f->b.store, id, &t), GB_OK);
	assert_true(t.seed == verify_game_seed(seed));
	store_table_release(&t);
	say(f, "chandra", "/verify");
	assert_non_null(strstr(f->out, "checks out"));
	assert_non_null(strstr(f->out, seed));
	assert_non_null(strstr(f->out, seal));
}

static void test_chat_detects_tampered_log(void **state)
{
	struct fixture *f = *state;
	char seal[65], seed[65], sql[256];
	int64_t id = play_snakes(f, seal, seed);
	sqlite3 *h;

	/* someone with the database rewrites the first die */
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "DROP TRIGGER moves_append_only", NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "UPDATE moves SET events = json_set(events, '$[0][2]', json_extract(events, '$[0][2]') %% 6 + 1)"
		 " WHERE table_id = %lld AND seq = 1", (long long)id);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	say(f, "asha", "/verify");
	assert_non_null(strstr(f->out, "does NOT check out: move 1 (roll): the log says \"roll"));
}

/* Run the binary's verify; returns its exit status, output in out. */
static int run_verify(const char *seed, const char *file, char *out, size_t n)
{
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char cmd[512];
	FILE *p;
	size_t got;
	int status;

	snprintf(cmd, sizeof(cmd), "'%s' verify %s '%s' 2>&1", bin, seed, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	got = fread(out, 1, n - 1, p);
	out[got] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	fclose(fp);
}

/* text with the first occurrence of from replaced by to (caller frees). */
static char *replace_first(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	struct strbuf sb = { 0 };

	assert_non_null(p);
	sb_addn(&sb, text, (size_t)(p - text));
	sb_add(&sb, to);
	sb_add(&sb, p + strlen(from));
	return sb_detach(&sb);
}

static void test_offline_verify_callbreak(void **state)
{
	struct fixture *f = *state;
	char seed[65], seal[65], wrong[65], wrong_seal[65], path[160], out[2048];
	struct store_terms terms;
	struct strbuf log = { 0 };
	int64_t id;
	char *bad;

	say(f, "asha", "/settings callbreak rounds 1");
	say(f, "asha", "/watch callbreak");
	id = last_table(f);
	for (int i = 0; i < 2000 && table_status(f, id) == STORE_PLAYING; i++) {
		f->now += 10000;
		assert_true(bot_run_timers(&f->b, f->now, BOT_TIMER_ALL) >= 0);
	}
	drain(f);
	assert_int_equal(table_status(f, id), STORE_OVER);
	assert_int_equal(store_terms_get(f->b.store, id, &terms), GB_OK);
	snprintf(seed, sizeof(seed), "%s", terms.seed);
	verify_seal(seed, seal);
	assert_int_equal(verify_movelog(f->b.store, id, seal, &log), GB_OK);
	snprintf(path, sizeof(path), "%s/movelog.jsonl", f->dir);
	write_file(path, sb_str(&log));

	/* the seed and the log: every deal and card matches */
	assert_int_equal(run_verify(seed, path, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "verified: table"));
	assert_non_null(strstr(out, "every die and deal matches"));

	/* a wrong seed does not have the seal */
	snprintf(wrong, sizeof(wrong), "%s", seed);
	wrong[63] = wrong[63] == '0' ? '1' : '0';
	wrong[0] = wrong[0] == '0' ? '1' : '0';
	assert_int_equal(run_verify(wrong, path, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "not verified: the seed's SHA-256 is"));

	/* a wrong seed passed off with its own seal deals other hands than were played */
	verify_seal(wrong, wrong_seal);
	bad = replace_first(sb_str(&log), seal, wrong_seal);
	write_file(path, bad);
	free(bad);
	assert_int_equal(run_verify(wrong, path, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "not verified: move"));

	/* a card changed in the log */
	{
		const char *p = strstr(sb_str(&log), "\"action\":\"play ");
		char from[40], to[40];

		assert_non_null(p);
		snprintf(from, sizeof(from), "%.*s", (int)(strchr(p + 16, '"') - p + 1), p);
		snprintf(to, sizeof(to), "\"action\":\"play %s\"", strstr(from, "play 2C") ? "3C" : "2C");
		bad = replace_first(sb_str(&log), from, to);
		write_file(path, bad);
		free(bad);
		assert_int_equal(run_verify(seed, path, out, sizeof(out)), 1);
		assert_non_null(strstr(out, "not verified: move"));
	}
	/* a move dropped */
	{
		const char *p = strstr(sb_str(&log), "{\"seq\":2,");
		const char *e = strchr(p, '\n');
		struct strbuf sb = { 0 };

		sb_addn(&sb, sb_str(&log), (size_t)(p - sb_str(&log)));
		sb_add(&sb, e + 1);
		write_file(path, sb_str(&sb));
		sb_release(&sb);
		assert_int_equal(run_verify(seed, path, out, sizeof(out)), 1);
		assert_non_null(strstr(out, "move 2 is missing"));
	}
	/* not a seed at all */
	assert_int_equal(run_verify("xyz", path, out, sizeof(out)), 2);
	sb_release(&log);
}

static void test_log_from_the_chat_verifies_offline(void **state)
{
	struct fixture *f = *state;
	char seal[65], seed[65], path[160], out[2048];
	struct strbuf file = { 0 };

	play_snakes(f, seal, seed);
	say(f, "chandra", "/verify log");
	assert_non_null(strstr(f->out, "checks out"));
	assert_non_null(strstr(f->priv, "Move log of table 1, part 1 of"));
	/* the private parts, saved one after the other, are the file */
	sb_add(&file, f->priv);
	snprintf(path, sizeof(path), "%s/pasted.txt", f->dir);
	write_file(path, sb_str(&file));
	sb_release(&file);
	assert_int_equal(run_verify(seed, path, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "verified: table 1 (snakes)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seal_matches_revealed_seed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chat_detects_tampered_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_verify_callbreak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_from_the_chat_verifies_offline, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
