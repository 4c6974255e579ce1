/*
 * test_online_scale.c - online queues that survive what a service meets:
 *
 *   - a SIGKILL of `gamebot serve` (SQLite) while people wait in the
 *     queues, a table plays and a crowd is being seated: after the
 *     restart nothing is lost (who waited still waits, the table plays
 *     on) and nobody is seated twice;
 *   - two instances on one PostgreSQL database, 200 people queueing at
 *     once through both of them: every person is seated exactly once and
 *     every table is full (a queue entry is claimed by one instance only).
 *
 * People are Telegram users in their private chats, their updates POSTed
 * to the webhook of an instance (again, with the same update id, until
 * one answers 200, as Telegram does), against the fake Bot API. Needs
 * GAMEBOT_BIN, and GAMEBOT_TEST_PG for the second test (tests/pg.sh).
 */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/pgadmin.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "777:online-scale"
#define SECRET "scale-secret"
#define MAXI 2
#define CROWD 200
#define CLIENTS 4

struct instance {
	pid_t pid;
	int port;
	char log[160];
};

struct run {
	char dir[64], db[1100];
	struct fake_tg *f;
	struct instance in[MAXI];
	int ninstances;
	long long update;              /* the last update id handed out */
	pthread_mutex_t lock;
	int next_person;               /* the crowd's next person to queue */
	int people;
	const char *game;
};

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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static long post_to(int port, const char *body)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[64];
	long code = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/telegram", port);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

/* Person user types text in their private chat; sent until an instance takes it. */
static void type(struct run *r, long long user, const char *text)
{
	char body[512];
	long long id;

	pthread_mutex_lock(&r->lock);
	id = ++r->update;
	pthread_mutex_unlock(&r->lock);
	snprintf(body, sizeof(body), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%lld,"
		 "\"first_name\":\"U%lld\"},\"chat\":{\"id\":%lld,\"type\":\"private\"},\"text\":\"%s\"}}",
		 id, id, user, user, user, text);
	for (int tries = 0; tries < 400; tries++) {
		int port = __atomic_load_n(&r->in[(id + tries) % r->ninstances].port, __ATOMIC_RELAXED);

		if (post_to(port, body) == 200)
			return;
		ms_sleep(25);
	}
	fail_msg("update %lld was never taken", id);
}

static void start_instance(struct run *r, int i)
{
	struct instance *in = &r->in[i];
	char e_db[1200], e_listen[96], e_api[160], url[64];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api,
			      "GAMEBOT_TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_SECRET=" SECRET,
			      "GAMEBOT_TELEGRAM_PACING=off", "GAMEBOT_RATE_USER_PER_MIN=0",
			      "GAMEBOT_RATE_CHAT_PER_MIN=0", "GAMEBOT_OUTBOX_LEASE_SECONDS=2", NULL };

	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", r->db);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(r->f));
	for (int attempt = 0; attempt < 3; attempt++) {
		if (!in->port)
			in->port = free_port();
		snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", in->port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", in->port);
		in->pid = spawn(bin(), (char *const[]){ (char *)bin(), "serve", NULL }, env, in->log, true);
		assert_true(in->pid > 0);
		if (wait_serving(in->pid, url, 20000))
			return;
		kill(in->pid, SIGKILL);
		waitpid(in->pid, NULL, 0);
		__atomic_store_n(&in->port, free_port(), __ATOMIC_RELAXED);
	}
	fail_msg("instance %d did not answer /healthz", i);
}

static void stop_instance(struct run *r, int i, int sig)
{
	int status;

	kill(r->in[i].pid, sig);
	assert_int_equal(waitpid(r->in[i].pid, &status, 0), r->in[i].pid);
}

/* The crowd: each client thread queues the next person until all have. */
static void *crowd(void *arg)
{
	struct run *r = arg;

	for (;;) {
		char text[64];
		int me;

		pthread_mutex_lock(&r->lock);
		me = r->next_person < r->people ? r->next_person++ : -1;
		pthread_mutex_unlock(&r->lock);
		if (me < 0)
			return NULL;
		snprintf(text, sizeof(text), "/online %s", r->game);
		type(r, 100000 + me, text);
	}
}

/*
 * Where the people of users [from, from + n) are: each in the queue or
 * at one open online table, never both nor twice. *queued and *seated
 * get the counts; every table seen must have every seat a person's.
 */
static void census(struct store *s, long long from, int n, const char *game, int seats, int *queued, int *seated)
{
	int64_t *tables = calloc((size_t)n, sizeof(int64_t));

	*queued = *seated = 0;
	for (int i = 0; i < n; i++) {
		struct store_queue q;
		char user[32];
		int64_t table = 0;
		bool waits, sits;

		snprintf(user, sizeof(user), "%lld", from + i);
		waits = store_queue_of(s, "telegram", user, &q) == GB_OK;
		sits = store_oseat_open(s, "telegram", user, &table) == GB_OK;
		if (waits && sits)
			fail_msg("person %s waits and sits at table %lld at once", user, (long long)table);
		if (sits) {
			struct store_oseat os[4];
			struct store_seat st[4];
			struct store_table t = { 0 };
			int no = 0, ns = 0, mine = 0;

			assert_int_equal(store_oseats_get(s, table, os, 4, &no), GB_OK);
			assert_int_equal(store_seats_get(s, table, st, 4, &ns), GB_OK);
			assert_int_equal(store_table_get(s, table, &t), GB_OK);
			assert_string_equal(t.game, game);
			store_table_release(&t);
			/* a full table of people */
			assert_int_equal(no, seats);
			assert_int_equal(ns, seats);
			for (int k = 0; k < no; k++)
				mine += !strcmp(os[k].user, user);
			assert_int_equal(mine, 1);
			for (int k = 0; k < ns; k++)
				assert_true(st[k].level < 0);
			tables[i] = table;
		}
		*queued += waits;
		*seated += sits;
	}
	free(tables);
}

static void open_run(struct run *r, const char *db)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	assert_int_equal(fixture_dir(r->dir, sizeof(r->dir), "online-scale"), 0);
	if (db)
		snprintf(r->db, sizeof(r->db), "%s", db);
	else
		snprintf(r->db, sizeof(r->db), "%s/o.db", r->dir);
	assert_int_equal(fake_tg_start(&r->f, TOKEN, "scale_bot"), 0);
	for (int i = 0; i < MAXI; i++) {
		char dir[64];

		memcpy(dir, r->dir, sizeof(dir));
		snprintf(r->in[i].log, sizeof(r->in[i].log), "%s/instance-%d.log", dir, i);
	}
	r->update = 1000;
}

static void close_run(struct run *r)
{
	for (int i = 0; i < r->ninstances; i++)
		if (r->in[i].pid > 0)
			stop_instance(r, i, SIGTERM);
	fake_tg_free(r->f);
	if (fixture_rm(r->dir))
		fprintf(stderr, "%s not removed\n", r->dir);
}

/* Wait until at most `left` of game's people still wait (each queue's leftover), up to ms. */
static int wait_queue(struct store *s, const char *game, int left, int ms)
{
	struct store_queue_count c[8];
	int waiting = 0;

	for (long long t0 = now_ms(); now_ms() - t0 < ms; ms_sleep(50)) {
		int n = 0;

		waiting = 0;
		assert_int_equal(store_queue_by_game(s, c, 8, &n), GB_OK);
		for (int i = 0; i < n; i++)
			if (!strcmp(c[i].game, game))
				waiting = c[i].waiting;
		if (waiting <= left)
			break;
	}
	return waiting;
}

/* The two at the Ludo table play a few turns: whatever the die says, one of these is a move. */
static void play_a_while(struct run *r)
{
	static const char *const tries[] = { "/roll", "/move 1", "/move 2", "/move 3", "/move 4" };

	for (int i = 0; i < 4; i++)
		for (int who = 300; who <= 301; who++)
			for (size_t k = 0; k < sizeof(tries) / sizeof(tries[0]); k++)
				type(r, who, tries[k]);
}

static void killed_while_queueing_and_playing(void **state)
{
	struct run r;
	struct store *s = NULL;
	pthread_t th[CLIENTS];
	int queued, seated, moves = 0, after = 0;
	int64_t ludo = 0;

	(void)state;
	open_run(&r, NULL);
	r.ninstances = 1;
	start_instance(&r, 0);
	assert_int_equal(store_open(&s, r.db), GB_OK);
	/* three wait for Call Break (it needs four); two are seated at Ludo and play */
	for (int i = 0; i < 3; i++)
		type(&r, 200 + i, "/online callbreak");
	type(&r, 300, "/online ludo");
	type(&r, 301, "/online ludo");
	for (long long t0 = now_ms(); now_ms() - t0 < 10000 && !ludo; ms_sleep(20))
		if (store_oseat_open(s, "telegram", "300", &ludo))
			ludo = 0;
	assert_true(ludo > 0);
	play_a_while(&r);
	assert_int_equal(store_move_last(s, ludo, &moves), GB_OK);
	assert_true(moves >= 1);
	/* a crowd queues for Snakes and Ladders; the service is killed while it is being seated */
	r.people = 60;
	r.game = "snakes";
	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_create(&th[c], NULL, crowd, &r), 0);
	while (__atomic_load_n(&r.next_person, __ATOMIC_RELAXED) < r.people / 2)
		ms_sleep(2);
	stop_instance(&r, 0, SIGKILL);
	ms_sleep(100);
	start_instance(&r, 0);
	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_join(th[c], NULL), 0);
	/* nobody lost, nobody twice: every one of the crowd seated, two by two */
	assert_int_equal(wait_queue(s, "snakes", 0, 20000), 0);
	census(s, 100000, r.people, "snakes", 2, &queued, &seated);
	assert_int_equal(queued, 0);
	assert_int_equal(seated, r.people);
	/* who waited for Call Break still waits; the Ludo table plays on */
	census(s, 200, 3, "callbreak", 4, &queued, &seated);
	assert_int_equal(queued, 3);
	assert_int_equal(seated, 0);
	play_a_while(&r);
	assert_int_equal(store_move_last(s, ludo, &after), GB_OK);
	assert_true(after > moves);
	/* and the fourth seats them */
	type(&r, 203, "/online callbreak");
	assert_int_equal(wait_queue(s, "callbreak", 0, 10000), 0);
	census(s, 200, 4, "callbreak", 4, &queued, &seated);
	assert_int_equal(seated, 4);
	store_free(s);
	audit_sound(r.db);
	close_run(&r);
}

static void two_instances_seat_a_crowd_once(void **state)
{
	const char *base = getenv("GAMEBOT_TEST_PG");
	char schema[64], sql[256], db[1100];
	struct store *s = NULL;
	pthread_t th[CLIENTS];
	struct run r;
	int queued, seated;

	(void)state;
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server (make test starts one through tests/pg.sh)");
	snprintf(schema, sizeof(schema), "online_%ld", (long)getpid());
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
	assert_int_equal(pg_admin(base, sql), 0);
	snprintf(db, sizeof(db), "%s%soptions=-csearch_path%%3D%s", base, strchr(base, '?') ? "&" : "?", schema);
	open_run(&r, db);
	/* the first migrates the empty schema; the second finds it current */
	start_instance(&r, 0);
	start_instance(&r, 1);
	r.ninstances = 2;
	r.people = CROWD;
	r.game = "ludo";
	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_create(&th[c], NULL, crowd, &r), 0);
	for (int c = 0; c < CLIENTS; c++)
		assert_int_equal(pthread_join(th[c], NULL), 0);
	assert_int_equal(store_open(&s, r.db), GB_OK);
	assert_int_equal(wait_queue(s, "ludo", 0, 30000), 0);
	census(s, 100000, CROWD, "ludo", 2, &queued, &seated);
	assert_int_equal(queued, 0);
	assert_int_equal(seated, CROWD);
	store_free(s);
	audit_sound(r.db);
	close_run(&r);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	pg_admin(base, sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(killed_while_queueing_and_playing),
		cmocka_unit_test(two_instances_seat_a_crowd_once),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
