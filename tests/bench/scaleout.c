/*
 * scaleout.c - `make bench` rows: the same load on one SQLite instance and
 * on 1, 2 and 3 instances sharing one PostgreSQL database, in one run.
 *
 * Every row starts `gamebot serve` processes (GAMEBOT_BIN) in Telegram
 * webhook mode on 127.0.0.1, delivering to the fake Bot API with per-chat
 * pacing off, on a fresh database: a SQLite file, or a fresh schema in the
 * server GAMEBOT_TEST_PG names (tests/bench.sh starts one through
 * tests/pg.sh). CHATS chats play Ludo (two people each); client threads
 * keep each chat's game in step locally, as tests/bench/telegram.c does,
 * so every action posted is the legal move of the player whose turn it
 * is, one update in flight per chat, and post each chat's updates to the
 * instance the chat hashes to (as a load balancer with sticky chats
 * would; any instance could take any). As fast as the clients can for
 * SECONDS: actions/s accepted (answered 200), and the webhook's p50/p99.
 *
 * Target: p99 under 50 ms on every row. On a machine of few cores the
 * instances, the server and the clients share them, so more instances
 * show the cost of sharing one database more than any gain; the row says
 * how many cores there were.
 *
 *   scaleout [--seconds N] [--chats C] [--threads T]
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <curl/curl.h>
#include <ftw.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "store/store.h"
#include "tests/bench/bench.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "4242:bench-token"
#define SECRET "bench-secret"
#define MAX_INSTANCES 3

struct opts {
	int seconds, chats, threads;
};

/* ---- instances ---- */

/* `gamebot serve` on db listening on port, once it answers /healthz; 0 when it did not start. */
static pid_t serve(const char *db, int port, const char *api)
{
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char e_db[1100], e_listen[96], e_api[160], url[64];
	/* the bench's clients are a few addresses sending for many people */
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
			      "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api, "GAMEBOT_TELEGRAM_MODE=webhook",
			      "GAMEBOT_TELEGRAM_SECRET=" SECRET, "GAMEBOT_TELEGRAM_PACING=off",
			      "GAMEBOT_RATE_USER_PER_MIN=100000", "GAMEBOT_RATE_CHAT_PER_MIN=100000", NULL };
	pid_t pid;

	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", api);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", port);
	pid = spawn(bin, (char *const[]){ "gamebot", "serve", NULL }, env, "/dev/null", false);
	if (pid < 0)
		return 0;
	if (wait_serving(pid, url, 20000))
		return pid;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

/* ---- chats playing Ludo through the webhook ---- */

struct chat {
	char id[32];
	void *st;                      /* the game as the service has it */
	bool playing;
};

struct load {
	const char *db;
	char url[MAX_INSTANCES][64];
	int instances;
	atomic_llong update_id;
	struct samples lat;
	atomic_long done, errors;
	int64_t until_us;
};

static const struct gb_game *ludo;

static void text_update(struct load *l, char *buf, size_t n, const char *chat, int user, const char *text)
{
	long long id = atomic_fetch_add(&l->update_id, 1);

	snprintf(buf, n, "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%d,"
		 "\"first_name\":\"P%d\"},\"chat\":{\"id\":%s,\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		 id, id, user, user, chat, text);
}

/* Open a game in the chat and take the service's state as the local one. */
static int chat_start(struct load *l, struct store *view, CURL *c, struct curl_slist *h,
		      struct chat *ch, int user0, const char *url)
{
	char buf[512];
	struct store_chat sc = { 0 };
	struct store_table t = { 0 };
	json_error_t err;
	json_t *w = NULL;
	int rc;

	text_update(l, buf, sizeof(buf), ch->id, user0, "/new ludo");
	post(c, h, url, buf);
	text_update(l, buf, sizeof(buf), ch->id, user0 + 1, "/join");
	post(c, h, url, buf);
	text_update(l, buf, sizeof(buf), ch->id, user0, "/start");
	if (post(c, h, url, buf) != 200)
		return -1;
	rc = store_chat_get(view, "telegram", ch->id, "en", &sc);
	if (!rc)
		rc = store_table_open_get(view, sc.id, &t);
	if (!rc) {
		w = json_loads(t.state ? t.state : "", 0, &err);
		rc = ludo->from_json(ch->st, json_object_get(w, "game"));
	}
	json_decref(w);
	store_table_release(&t);
	store_chat_release(&sc);
	ch->playing = rc == 0;
	return rc;
}

/* Post the next move of the chat; false when its game is over. */
static bool chat_move(struct load *l, CURL *c, struct curl_slist *h, struct chat *ch, int user0,
		      const char *url)
{
	struct gb_action acts[GB_MAX_LEGAL];
	char act[GB_ACTION_TEXT], cmd[GB_ACTION_TEXT + 2], buf[512];
	int turn = ludo->turn(ch->st);
	int64_t t0;
	long code;

	if (turn < 0 || ludo->legal(ch->st, acts) <= 0)
		return false;
	ludo->format(ch->st, &acts[0], act, sizeof(act));
	snprintf(cmd, sizeof(cmd), "/%s", act);
	text_update(l, buf, sizeof(buf), ch->id, user0 + turn, cmd);
	acts[0].die = 0;
	ludo->apply(ch->st, &acts[0], NULL);
	t0 = mono_us();
	code = post(c, h, url, buf);
	sample(&l->lat, (mono_us() - t0) / 1000.0);
	if (code == 200)
		atomic_fetch_add(&l->done, 1);
	else
		atomic_fetch_add(&l->errors, 1);
	return true;
}

struct client {
	struct load *l;
	struct chat *chats;
	int first, count;              /* its chats */
};

static void *client_main(void *arg)
{
	struct client *cl = arg;
	struct load *l = cl->l;
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct store *view = NULL;
	int k = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	if (store_open(&view, l->db) != GB_OK) {
		atomic_fetch_add(&l->errors, 1);
		goto out;
	}
	while (mono_us() < l->until_us) {
		int i = cl->first + k;
		struct chat *ch = &cl->chats[i];
		const char *url = l->url[i % l->instances];

		if (!ch->playing || !chat_move(l, c, h, ch, i * 2 + 1, url))
			chat_start(l, view, c, h, ch, i * 2 + 1, url);
		k = (k + 1) % cl->count;
	}
out:
	store_free(view);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

/* One row: instances on db, the load for o->seconds; prints its line. Returns its p99 (ms), -1 failed. */
static double row(const struct opts *o, const char *label, const char *db, int instances,
		  const char *api)
{
	struct load l = { .db = db, .instances = instances, .update_id = 1 };
	struct chat *chats = calloc((size_t)o->chats, sizeof(*chats));
	struct client *cl = calloc((size_t)o->threads, sizeof(*cl));
	pthread_t *th = calloc((size_t)o->threads, sizeof(*th));
	pid_t pid[MAX_INSTANCES] = { 0 };
	double rate = 0, p50 = 0, p99 = -1;
	int64_t t0;
	int per;

	pthread_mutex_init(&l.lat.lock, NULL);
	if (!chats || !cl || !th)
		goto out;
	for (int i = 0; i < instances; i++) {
		int port = free_port();

		pid[i] = serve(db, port, api);
		if (!pid[i]) {
			printf("scale-out  %-28s did not start\n", label);
			goto out;
		}
		snprintf(l.url[i], sizeof(l.url[i]), "http://127.0.0.1:%d/telegram", port);
	}
	for (int i = 0; i < o->chats; i++) {
		snprintf(chats[i].id, sizeof(chats[i].id), "-100%d", 1000 + i);
		chats[i].st = calloc(1, ludo->state_size);
	}
	per = o->chats / o->threads;
	t0 = mono_us();
	l.until_us = t0 + (int64_t)o->seconds * 1000000;
	for (int i = 0; i < o->threads; i++) {
		cl[i] = (struct client){ &l, chats, i * per, per };
		pthread_create(&th[i], NULL, client_main, &cl[i]);
	}
	for (int i = 0; i < o->threads; i++)
		pthread_join(th[i], NULL);
	rate = (double)atomic_load(&l.done) / ((mono_us() - t0) / 1e6);
	p50 = pct(&l.lat, 0.50);
	p99 = pct(&l.lat, 0.99);
	printf("scale-out  %-28s %6.0f actions/s, webhook p50 %6.2f ms, p99 %6.2f ms%s\n", label, rate,
	       p50, p99, atomic_load(&l.errors) ? " (some refused)" : "");
	fflush(stdout);
out:
	for (int i = 0; i < instances; i++) {
		if (pid[i]) {
			kill(pid[i], SIGTERM);
			waitpid(pid[i], NULL, 0);
		}
	}
	for (int i = 0; chats && i < o->chats; i++)
		free(chats[i].st);
	free(chats);
	free(cl);
	free(th);
	free(l.lat.v);
	pthread_mutex_destroy(&l.lat.lock);
	return p99;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Run sql on the server; 0 when it worked. */
static int pg_admin(const char *base, const char *sql)
{
	PGconn *c = PQconnectdb(base);
	PGresult *res;
	int ok;

	PQsetNoticeProcessor(c, quiet, NULL);
	res = PQexec(c, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	PQfinish(c);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .seconds = 5, .chats = 256, .threads = 16 };
	const char *base = getenv("GAMEBOT_TEST_PG");
	char dir[64], db[1024], sql[256], label[64];
	struct fake_tg *f = NULL;
	double worst = 0, p;
	bool ok = true;

	for (int i = 1; i + 1 < argc; i += 2) {
		int v = (int)strtol(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--seconds"))
			o.seconds = v;
		else if (!strcmp(argv[i], "--chats"))
			o.chats = v;
		else if (!strcmp(argv[i], "--threads"))
			o.threads = v;
	}
	if (o.seconds < 1 || o.threads < 1 || o.chats < o.threads) {
		fprintf(stderr, "scaleout: bad options\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ludo = gb_game_find("ludo");
	if (fixture_dir(dir, sizeof(dir), "bench-scale") || fake_tg_start(&f, TOKEN, "bench_bot")) {
		fprintf(stderr, "scaleout: cannot set up\n");
		return 1;
	}
	printf("scale-out  %d chats of Ludo, %d client threads, %d s a row, %ld cores\n", o.chats,
	       o.threads, o.seconds, sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(db, sizeof(db), "%s/gamebot.db", dir);
	p = row(&o, "sqlite, 1 instance", db, 1, fake_tg_url(f));
	ok &= p >= 0;
	worst = p > worst ? p : worst;
	for (int n = 1; n <= MAX_INSTANCES; n++) {
		if (!base || !base[0]) {
			printf("scale-out  postgresql: GAMEBOT_TEST_PG not set, no server\n");
			ok = false;
			break;
		}
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS bench_%d CASCADE; CREATE SCHEMA bench_%d",
			 n, n);
		if (pg_admin(base, sql)) {
			printf("scale-out  postgresql: cannot make a schema\n");
			ok = false;
			break;
		}
		snprintf(db, sizeof(db), "%s%soptions=-csearch_path%%3Dbench_%d", base,
			 strchr(base, '?') ? "&" : "?", n);
		snprintf(label, sizeof(label), "postgresql, %d instance%s", n, n > 1 ? "s" : "");
		p = row(&o, label, db, n, fake_tg_url(f));
		ok &= p >= 0;
		worst = p > worst ? p : worst;
		snprintf(sql, sizeof(sql), "DROP SCHEMA bench_%d CASCADE", n);
		pg_admin(base, sql);
	}
	printf("scale-out  p99 on every row under 50 ms (target): %.2f ms at worst %s\n", worst,
	       ok && worst < 50 ? "met" : "NOT MET");
	fake_tg_free(f);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
