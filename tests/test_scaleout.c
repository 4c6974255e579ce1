/*
 * test_scaleout.c - several `gamebot serve` instances sharing one
 * PostgreSQL database, some of them killed and restarted while they work.
 *
 * Three instances listen on loopback in Telegram webhook mode and deliver
 * to the fake Bot API (tests/fake_telegram.c). Games of Snakes and Ladders
 * in CHATS chats are played through the webhook: every update goes to an
 * instance picked at random, and goes again (same update_id, as Telegram
 * does) to another one until some instance answers 200. Each chat's
 * updates are sent one at a time, as Telegram sends them; the chats are
 * played side by side by several client threads. Meanwhile the main thread
 * kills one instance every KILL_MS (SIGKILL: no goodbye, claims left
 * leased, commands cut anywhere) and starts it again.
 *
 * What must hold afterwards:
 *   - every move exactly once: each table's move log holds exactly the
 *     actions sent for it (none lost to a kill, none twice from a
 *     redelivery), seq 1, 2, ... without a gap;
 *   - every chat's messages in order: the turn carried by each table
 *     message the fake received (its buttons' callback data) never goes
 *     back within a chat, and the last one is the table's final turn;
 *   - everything delivered: nothing pending or set aside in the outbox.
 *
 * The short run (make test) is 100 chats of ROLLS actions; more with
 * GAMEBOT_SCALEOUT_ROLLS=N. Needs GAMEBOT_TEST_PG (tests/pg.sh starts a
 * server) and GAMEBOT_BIN; without a server the test fails, never skips.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/telegram.h"
#include "games/game.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/pgadmin.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "123456:TEST-token_xyz"
#define SECRET "s3cret"
#define INSTANCES 3
#define CHATS 100
#define CLIENTS 8
#define ROLLS 8
#define KILL_MS 150
#define STEP_US 4000
#define LEASE_S "2"

struct instance {
	pid_t pid;
	int port;
	char log[96];                  /* what it printed, across its restarts */
};

struct run {
	char db[1024];                 /* the URL every instance and client uses */
	char schema[64];
	char dir[64];                  /* the instances' logs */
	struct fake_tg *f;
	struct instance in[INSTANCES];
	int rolls;                     /* game actions per chat */
	int actions[CHATS];            /* game actions sent per chat (each answered 200) */
	int64_t table[CHATS];          /* each chat's table */
	int done;                      /* client threads finished */
	int failed;                    /* a client gave up */
	char why[256];
	pthread_mutex_t lock;
};

static struct run run;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* POST an update to instance port's webhook; the HTTP status, 0 when it could not connect. */
static long hook(int port, const char *json)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[64];
	long code = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/telegram", port);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

/* `gamebot audit --db db`, as an operator runs it: the coins ledger must be sound (exit 0). */
static void audit_sound(const char *db)
{
	int status = -1;
	pid_t pid = spawn(bin(), (char *const[]){ (char *)bin(), "audit", "--db", (char *)db, NULL }, NULL, NULL,
			  false);

	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("gamebot audit: the coins ledger breaks its rules (status %#x)", status);
}

/* The last lines of an instance's log, to stderr. */
static void show_log(const char *path)
{
	char text[8192];
	FILE *f = fopen(path, "r");
	long size;
	size_t n = 0;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(text) - 1 ? size - (long)sizeof(text) + 1 : 0, SEEK_SET);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	fprintf(stderr, "--- %s (its end) ---\n%s\n---\n", path, text);
}

/* Start instance i (webhook mode, on the shared database) and wait for its /healthz. */
static void start_instance(int i)
{
	struct instance *in = &run.in[i];
	char e_db[1100], e_listen[96], e_api[160], url[64];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
			      "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api, "GAMEBOT_TELEGRAM_MODE=webhook",
			      "GAMEBOT_TELEGRAM_SECRET=" SECRET, "GAMEBOT_TELEGRAM_PACING=off",
			      "GAMEBOT_OUTBOX_LEASE_SECONDS=" LEASE_S, NULL };

	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", run.db);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(run.f));
	for (int attempt = 0; attempt < 3; attempt++) {
		int port = __atomic_load_n(&in->port, __ATOMIC_RELAXED);

		snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", port);
		in->pid = spawn(bin(), (char *const[]){ (char *)bin(), "serve", NULL }, env, in->log, true);
		assert_true(in->pid > 0);
		if (wait_serving(in->pid, url, 20000))
			return;
		/*
		 * It ended: its port was taken meanwhile (while it was down, an
		 * outgoing connection may get that number). Another port, then.
		 */
		show_log(in->log);
		kill(in->pid, SIGKILL);
		waitpid(in->pid, NULL, 0);
		__atomic_store_n(&in->port, free_port(), __ATOMIC_RELAXED);
	}
	fail_msg("instance %d did not answer /healthz", i);
}

static void stop_instance(int i, int sig)
{
	int status;

	kill(run.in[i].pid, sig);
	assert_int_equal(waitpid(run.in[i].pid, &status, 0), run.in[i].pid);
	run.in[i].pid = 0;
}

static void fail_run(const char *why)
{
	pthread_mutex_lock(&run.lock);
	if (!run.failed)
		snprintf(run.why, sizeof(run.why), "%s", why);
	run.failed = 1;
	pthread_mutex_unlock(&run.lock);
}

/* Send one update until some instance answers 200 (Telegram redelivers until then). */
static bool deliver(unsigned *seed, const char *json)
{
	int64_t t0 = now_ms();

	while (now_ms() - t0 < 60000) {
		int port = __atomic_load_n(&run.in[rand_r(seed) % INSTANCES].port, __ATOMIC_RELAXED);

		if (hook(port, json) == 200)
			return true;
		usleep(2000);
	}
	fail_run("an update was not taken by any instance for 60 s");
	return false;
}

static void chat_id(int chat, char *buf, size_t n)
{
	snprintf(buf, n, "-100%04d", chat);
}

/*
 * The user (seat + 1) to act next at chat's table and the first legal
 * action as a command: 1; 0 when the game is over (a long run may finish
 * one); -1 when the table is not there.
 */
static int next_action(struct store *s, int chat, char *user, size_t un, char *cmd, size_t cn)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct gb_action acts[GB_MAX_LEGAL];
	const struct gb_game *g;
	char id[32];
	json_error_t err;
	json_t *w = NULL;
	void *st = NULL;
	int ok = -1;

	chat_id(chat, id, sizeof(id));
	if (run.table[chat] && store_table_get(s, run.table[chat], &t) == GB_OK &&
	    t.status == STORE_OVER) {
		ok = 0;
		goto out;
	}
	store_table_release(&t);
	if (store_chat_get(s, "telegram", id, "en", &c) != GB_OK ||
	    store_table_open_get(s, c.id, &t) != GB_OK || !t.state || t.status != STORE_PLAYING)
		goto out;
	run.table[chat] = t.id;
	g = gb_game_find(t.game);
	st = calloc(1, g->state_size);
	w = json_loads(t.state, 0, &err);
	if (!st || !w || g->from_json(st, json_object_get(w, "game")) != GB_OK)
		goto out;
	if (g->turn(st) >= 0 && g->legal(st, acts) > 0) {
		snprintf(user, un, "%d", g->turn(st) + 1);
		cmd[0] = '/';
		g->format(st, &acts[0], cmd + 1, cn - 1);
		ok = 1;
	}
out:
	json_decref(w);
	free(st);
	store_table_release(&t);
	store_chat_release(&c);
	return ok;
}

/* One client: plays chats first, first + CLIENTS, ... one step each in turn. */
static void *client(void *arg)
{
	int first = (int)(intptr_t)arg;
	unsigned seed = 1234u + (unsigned)first;
	int step[CHATS] = { 0 };
	struct store *s = NULL;
	bool more = true;

	if (store_open(&s, run.db) != GB_OK) {
		fail_run("a client could not open the database");
		goto out;
	}
	while (more && !run.failed) {
		more = false;
		for (int chat = first; chat < CHATS && !run.failed; chat += CLIENTS) {
			static const char *const names[] = { "", "Asha", "Bina" };
			char json[512], id[32], user[16] = "1", cmd[64];
			int k = step[chat];

			if (k >= 3 + run.rolls)
				continue;
			more = true;
			if (k == 0) {
				snprintf(cmd, sizeof(cmd), "/new snakes");
			} else if (k == 1) {
				snprintf(user, sizeof(user), "2");
				snprintf(cmd, sizeof(cmd), "/join");
			} else if (k == 2) {
				snprintf(cmd, sizeof(cmd), "/start");
			} else {
				int next = next_action(s, chat, user, sizeof(user), cmd, sizeof(cmd));

				if (next < 0) {
					fail_run("a table was not being played after /start");
					break;
				}
				if (next == 0) {
					step[chat] = 3 + run.rolls; /* the game is over */
					continue;
				}
			}
			chat_id(chat, id, sizeof(id));
			snprintf(json, sizeof(json),
				 "{\"update_id\":%d,\"message\":{\"message_id\":%d,\"from\":{\"id\":%s,"
				 "\"first_name\":\"%s\"},\"chat\":{\"id\":%s,\"type\":\"supergroup\"},"
				 "\"text\":\"%s\"}}",
				 chat * 1000 + k + 1, k + 1, user, names[user[0] == '2' ? 2 : 1], id, cmd);
			if (!deliver(&seed, json))
				break;
			if (k >= 3)
				run.actions[chat]++;
			step[chat]++;
			/* people take a moment between moves: boards go out between them */
			usleep(STEP_US);
		}
	}
out:
	store_free(s);
	pthread_mutex_lock(&run.lock);
	run.done++;
	pthread_mutex_unlock(&run.lock);
	return NULL;
}

/* The turn a table message carries in its first button's callback data; -1 without one. */
static int message_turn(json_t *body, int64_t *table)
{
	json_t *b = json_array_get(json_array_get(json_object_get(json_object_get(body, "reply_markup"),
								 "inline_keyboard"), 0), 0);
	const char *data = json_string_value(json_object_get(b, "callback_data"));
	char cmd[64];
	int turn = -1;

	if (!data || tg_callback_decode(data, table, &turn, cmd, sizeof(cmd)) != GB_OK)
		return -1;
	return turn;
}

/* The turn the table's state was saved at (the "seq" of its wrapper). */
static int table_turn(struct store *s, int64_t id)
{
	struct store_table t = { 0 };
	json_error_t err;
	json_t *w;
	int seq = -1;

	assert_int_equal(store_table_get(s, id, &t), GB_OK);
	w = json_loads(t.state, 0, &err);
	assert_non_null(w);
	seq = (int)json_integer_value(json_object_get(w, "seq"));
	json_decref(w);
	store_table_release(&t);
	return seq;
}

static void instances_share_the_load_and_survive_kills(void **state)
{
	const char *base = getenv("GAMEBOT_TEST_PG");
	const char *rolls = getenv("GAMEBOT_SCALEOUT_ROLLS");
	pthread_t th[CLIENTS];
	int last[CHATS], boards = 0, kills = 0, pending = -1, aside = -1, status;
	unsigned seed = 42;
	int64_t t0;
	struct store *s = NULL;
	char sql[256];

	(void)state;
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server to run instances on"
			 " (make test starts one through tests/pg.sh)");
	run.rolls = rolls ? (int)strtol(rolls, NULL, 10) : ROLLS;
	if (run.rolls < 1)
		run.rolls = ROLLS;
	pthread_mutex_init(&run.lock, NULL);
	snprintf(run.schema, sizeof(run.schema), "scaleout_%ld", (long)getpid());
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", run.schema,
		 run.schema);
	assert_int_equal(pg_admin(base, sql), 0);
	snprintf(run.db, sizeof(run.db), "%s%soptions=-csearch_path%%3D%s", base,
		 strchr(base, '?') ? "&" : "?", run.schema);
	assert_int_equal(fake_tg_start(&run.f, TOKEN, "gb_bot"), 0);
	/* every fifth call of the platform slow: a chat's next row is queued
	 * while one is still on its way */
	for (int k = 0; k < 3000; k++)
		fake_tg_fault(run.f, NULL, 4 * k, 1, FAKE_TG_SLOW, 60);
	/* the first migrates the empty schema; the others find it current */
	assert_int_equal(fixture_dir(run.dir, sizeof(run.dir), "scaleout"), 0);
	for (int i = 0; i < INSTANCES; i++) {
		run.in[i].port = free_port();
		snprintf(run.in[i].log, sizeof(run.in[i].log), "%s/instance-%d.log", run.dir, i);
	}
	for (int i = 0; i < INSTANCES; i++)
		start_instance(i);

	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_create(&th[c], NULL, client, (void *)(intptr_t)c), 0);
	while (run.done < CLIENTS) {
		int victim = rand_r(&seed) % INSTANCES;

		usleep(KILL_MS * 1000);
		if (run.done >= CLIENTS)
			break;
		stop_instance(victim, SIGKILL);
		kills++;
		start_instance(victim);
	}
	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_join(th[c], NULL), 0);
	if (run.failed)
		fail_msg("%s", run.why);
	assert_true(kills >= 1);

	/* everything delivered: a claim a kill left waits out its lease, then goes */
	assert_int_equal(store_open(&s, run.db), GB_OK);
	t0 = now_ms();
	do {
		usleep(50000);
		assert_int_equal(store_out_count(s, "telegram", &pending, &aside, NULL), GB_OK);
	} while (pending && now_ms() - t0 < 30000);
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 0);
	for (int i = 0; i < INSTANCES; i++) {
		kill(run.in[i].pid, SIGTERM);
		assert_int_equal(waitpid(run.in[i].pid, &status, 0), run.in[i].pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			show_log(run.in[i].log);
			fail_msg("instance %d did not stop cleanly on SIGTERM (status %#x)", i, status);
		}
	}

	/* every move exactly once */
	for (int c = 0; c < CHATS; c++) {
		struct store_move m[64];
		int n = 0, moves = -1, seen = 0;

		assert_true(run.table[c] > 0);
		assert_int_equal(store_move_count(s, run.table[c], &moves), GB_OK);
		if (moves != run.actions[c])
			fail_msg("chat %d: %d moves logged for %d actions sent", c, moves, run.actions[c]);
		do {
			assert_int_equal(store_moves_get(s, run.table[c], seen, m, 64, &n), GB_OK);
			for (int i = 0; i < n; i++) {
				assert_int_equal(m[i].seq, ++seen);
				store_move_release(&m[i]);
			}
		} while (n == 64);
		assert_int_equal(seen, moves);
	}

	/* every chat's table messages in order, ending at the final turn */
	for (int c = 0; c < CHATS; c++)
		last[c] = -1;
	for (int i = 0; i < fake_tg_count(run.f, NULL); i++) {
		char method[64];
		json_t *b = fake_tg_call(run.f, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));
		long long chat = -json_integer_value(json_object_get(b, "chat_id")) - 1000000;
		int64_t table = 0;
		int turn;

		if ((!strcmp(method, "sendMessage") && text && !strncmp(text, "<pre>", 5)) ||
		    !strcmp(method, "editMessageText")) {
			turn = message_turn(b, &table);
			assert_true(chat >= 0 && chat < CHATS);
			if (turn >= 0 && table == run.table[chat]) {
				if (turn < last[chat])
					fail_msg("chat %lld: the board of turn %d arrived after turn %d", chat,
						 turn, last[chat]);
				last[chat] = turn;
				boards++;
			}
		}
		json_decref(b);
	}
	for (int c = 0; c < CHATS; c++)
		assert_int_equal(last[c], table_turn(s, run.table[c]));
	print_message("%d chats, %d updates, %d kills, %d boards delivered in order\n", CHATS,
		      CHATS * (3 + run.rolls), kills, boards);
	store_free(s);
	audit_sound(run.db);
	fake_tg_free(run.f);
	snprintf(sql, sizeof(sql), "DROP SCHEMA %s CASCADE", run.schema);
	pg_admin(base, sql);
	assert_int_equal(fixture_rm(run.dir), 0);
	pthread_mutex_destroy(&run.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(instances_share_the_load_and_survive_kills),
	};

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests_name("scale-out on PostgreSQL", tests, NULL, NULL);
}
