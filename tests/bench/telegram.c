/*
 * telegram.c - `make bench` rows: Telegram through the webhook, against the
 * fake Bot API server (tests/fake_telegram.c), all on 127.0.0.1.
 *
 * Many chats play Ludo (two people each). Every client thread owns some
 * chats and keeps each chat's game in step locally (the rules core is
 * deterministic: the same state and action give the same dice), so every
 * action it posts is a legal move by the player whose turn it is. A chat
 * has one update in flight at a time, as Telegram sends them.
 *
 *   ceiling   a bare libmicrohttpd handler doing one SQLite WAL transaction
 *             of the same shape per request (dedupe row, 2 KB state update,
 *             log row, outbox row), as fast as the clients can post;
 *   ingest    actions per second accepted and committed by POST /telegram
 *             (clients as fast as they can), and p50/p99 response time at
 *             a fixed offered load of 500 actions per second;
 *   delivery  with per-chat pacing off (a setting for tests and benchmarks
 *             only): replies per second reaching the fake server while the
 *             backlog of the ingest runs drains, and p50/p99 from receipt
 *             (the command's commit) to the fake's answer at 500 actions/s.
 *
 * Targets: ingest at least 50% of the ceiling measured in the same run, p99
 * under 20 ms at 500 actions/s, at any number of chats; delivery at least
 * 2,000 replies/s. Every chat's table is opened before the rounds, so they
 * measure moves at that many open tables (tests/bench.sh compares 2,000
 * and 20,000 chats with 200, and a year-old database with a new one).
 *
 * Sixteen client threads and sixteen handler threads by default: Telegram
 * itself keeps up to 40 webhook connections open at once.
 *
 * The ceiling and the ingest are measured in turn, three rounds each
 * (make bench: five), and compared by their medians: a shared machine's
 * speed drifts within a run.
 *
 *   telegram [--seconds N] [--rounds R] [--chats C] [--threads T] [--workers W]
 *            [--aged GAMES [--aged-moves M] [--aged-processed P] [--aged-file F]]
 *            [--ingest-only 1] [--keep 1]
 *
 * --aged runs the same rows on a database a year of play left (aged.h:
 * GAMES finished games of M moves, P update ids, pruned as the service
 * prunes; with --aged-file, kept in F, or taken from F when an earlier
 * run made it), --ingest-only 1 opens the tables and runs the ingest
 * rounds only (for a profiler), --keep 1 leaves the database for a look.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/base/metrics.h"
#include "games/game.h"
#include "tests/bench/aged.h"
#include "tests/bench/bench.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define TOKEN "4242:bench-token"
#define SECRET "bench-secret"
#define MAX_CLIENTS 64
#define MAX_ROUNDS 9

struct opts {
	int seconds, chats, threads;
	int rounds;                    /* ceiling and ingest measured in turn, this many times each */
	int workers;                   /* the listener's handler threads (the service's http_workers) */
	bool ingest_only;              /* no ceiling, no delivery: the tables opened and the ingest rounds (a profile) */
	bool keep;                     /* leave the database for a look afterwards */
	int aged_games, aged_moves, aged_processed; /* a year-old database first (aged.h); 0 games: a new one */
	const char *aged_file;         /* a year-old database kept here, taken from here when it is */
	char dir[64], db[128], probe_db[128];
};

/* ---- the ceiling probe: a bare handler, one transaction per request ---- */

static const char *probe_db_path;
static pthread_key_t probe_key;
static atomic_llong probe_seq;
static char state_2k[2049];

static sqlite3 *probe_conn(void)
{
	sqlite3 *db = pthread_getspecific(probe_key);

	if (db)
		return db;
	if (sqlite3_open(probe_db_path, &db) != SQLITE_OK)
		return NULL;
	sqlite3_busy_timeout(db, 5000);
	sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", NULL, NULL, NULL);
	pthread_setspecific(probe_key, db);
	return db;
}

/* dedupe row, 2 KB state update, log row, outbox row: one write transaction */
static int probe_txn(sqlite3 *db, long long id)
{
	static const char *const sql[] = {
		"INSERT INTO processed (id) VALUES (?1)",
		"UPDATE tables SET state = ?2, version = version + 1 WHERE id = ?1 % 200",
		"INSERT INTO moves (t, action) VALUES (?1 % 200, 'roll')",
		"INSERT INTO outbox (chat, payload) VALUES (?1 % 200, ?2)",
	};
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st = NULL;

		rc = sqlite3_prepare_v2(db, sql[i], -1, &st, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			if (sqlite3_bind_parameter_count(st) > 1)
				sqlite3_bind_text(st, 2, state_2k, -1, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		}
		sqlite3_finalize(st);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	else
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static enum MHD_Result probe_request(void *cls, struct MHD_Connection *conn, const char *url,
				     const char *method, const char *version, const char *data,
				     size_t *data_size, void **con_cls)
{
	static int marker;
	struct MHD_Response *r;
	enum MHD_Result ret;
	sqlite3 *db;
	int ok;

	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	(void)data;
	if (!*con_cls) {
		*con_cls = &marker;
		return MHD_YES;
	}
	if (*data_size) {
		*data_size = 0;
		return MHD_YES;
	}
	db = probe_conn();
	ok = db && probe_txn(db, atomic_fetch_add(&probe_seq, 1)) == SQLITE_OK;
	r = MHD_create_response_from_buffer(2, (void *)"{}", MHD_RESPMEM_PERSISTENT);
	ret = MHD_queue_response(conn, ok ? 200 : 500, r);
	MHD_destroy_response(r);
	return ret;
}

static void probe_close(void *p)
{
	sqlite3_close(p);
}

struct probe_client {
	const char *url;
	int64_t until_us;
	long done;
};

static void *probe_client_main(void *arg)
{
	struct probe_client *pc = arg;
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");

	while (mono_us() < pc->until_us)
		if (post(c, h, pc->url, "{\"update_id\":1}") == 200)
			pc->done++;
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

static double run_probe(const struct opts *o)
{
	struct MHD_Daemon *d;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct probe_client pcs[MAX_CLIENTS];
	pthread_t th[MAX_CLIENTS];
	sqlite3 *db;
	char url[64];
	long total = 0;
	int64_t t0;

	probe_db_path = o->probe_db;
	if (sqlite3_open(o->probe_db, &db) != SQLITE_OK)
		return 0;
	/* made by the first round; later rounds find it made */
	sqlite3_exec(db, "PRAGMA journal_mode = WAL;"
		     "CREATE TABLE processed (id INTEGER PRIMARY KEY);"
		     "CREATE TABLE tables (id INTEGER PRIMARY KEY, state TEXT, version INTEGER);"
		     "CREATE TABLE moves (t INTEGER, action TEXT);"
		     "CREATE TABLE outbox (id INTEGER PRIMARY KEY, chat INTEGER, payload TEXT);"
		     "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)"
		     " INSERT INTO tables SELECT i, '', 1 FROM n;", NULL, NULL, NULL);
	sqlite3_close(db);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, probe_request, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)4, MHD_OPTION_END);
	if (!d)
		return 0;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/telegram",
		 (unsigned)MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	t0 = mono_us();
	for (int i = 0; i < o->threads; i++) {
		pcs[i] = (struct probe_client){ url, t0 + (int64_t)o->seconds * 1000000, 0 };
		pthread_create(&th[i], NULL, probe_client_main, &pcs[i]);
	}
	for (int i = 0; i < o->threads; i++) {
		pthread_join(th[i], NULL);
		total += pcs[i].done;
	}
	MHD_stop_daemon(d);
	return total / ((mono_us() - t0) / 1e6);
}

/* The median of v[0..n-1] (sorts v). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CPU time of the whole process so far, user and system (microseconds). */
static int64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_usec;
}

/* ---- chats playing Ludo through the webhook ---- */

struct chat {
	char id[32];
	void *st;                      /* the game as the service has it */
	bool playing;
};

struct load {
	const struct opts *o;
	const char *url;
	struct bot *view;              /* reads table states (setup only) */
	pthread_mutex_t view_lock;
	atomic_llong update_id;
	struct samples lat;
	atomic_long done, errors;
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
static int chat_start(struct load *l, CURL *c, struct curl_slist *h, struct chat *ch, int user0)
{
	char buf[512];
	struct store_chat sc = { 0 };
	struct store_table t = { 0 };
	json_error_t err;
	json_t *w = NULL;
	int rc;

	text_update(l, buf, sizeof(buf), ch->id, user0, "/new ludo");
	post(c, h, l->url, buf);
	text_update(l, buf, sizeof(buf), ch->id, user0 + 1, "/join");
	post(c, h, l->url, buf);
	text_update(l, buf, sizeof(buf), ch->id, user0, "/start");
	if (post(c, h, l->url, buf) != 200)
		return -1;
	pthread_mutex_lock(&l->view_lock);
	rc = store_chat_get(l->view->store, "telegram", ch->id, "en", &sc);
	if (!rc)
		rc = store_table_open_get(l->view->store, sc.id, &t);
	if (!rc) {
		w = json_loads(t.state ? t.state : "", 0, &err);
		rc = ludo->from_json(ch->st, json_object_get(w, "game"));
	}
	pthread_mutex_unlock(&l->view_lock);
	json_decref(w);
	store_table_release(&t);
	store_chat_release(&sc);
	ch->playing = rc == 0;
	return rc;
}

/* Post the next move of the chat; false when its game is over. */
static bool chat_move(struct load *l, CURL *c, struct curl_slist *h, struct chat *ch, int user0,
		      bool record)
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
	code = post(c, h, l->url, buf);
	if (record)
		sample(&l->lat, (mono_us() - t0) / 1000.0);
	if (code == 200)
		atomic_fetch_add(&l->done, 1);
	else
		atomic_fetch_add(&l->errors, 1);
	return true;
}

struct client {
	struct load *l;
	int first, count;              /* its chats */
	struct chat *chats;
	double rate;                   /* actions/s of this thread; 0 = as fast as it can */
	int64_t until_us;
	bool record;
	bool open_only;                /* open every chat's table once, then stop */
};

static void *client_main(void *arg)
{
	struct client *cl = arg;
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	int64_t next = mono_us(), step = cl->rate > 0 ? (int64_t)(1e6 / cl->rate) : 0;
	int k = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	for (int i = 0; cl->open_only && i < cl->count; i++)
		chat_start(cl->l, c, h, &cl->chats[cl->first + i], (cl->first + i) * 2 + 1);
	while (!cl->open_only && mono_us() < cl->until_us) {
		struct chat *ch = &cl->chats[cl->first + k];
		int user0 = (cl->first + k) * 2 + 1;

		if (!ch->playing || !chat_move(cl->l, c, h, ch, user0, cl->record))
			chat_start(cl->l, c, h, ch, user0);
		k = (k + 1) % cl->count;
		if (step) {
			next += step;
			sleep_us(next - mono_us());
		}
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

/*
 * Rounds of o->seconds at rate (0: as fast as the clients go); open_only:
 * open every chat's table once instead, however long it takes.
 */
static double run_clients(struct load *l, struct chat *chats, double rate, bool record, bool open_only)
{
	const struct opts *o = l->o;
	struct client cl[MAX_CLIENTS];
	pthread_t th[MAX_CLIENTS];
	int per = o->chats / o->threads, extra = o->chats % o->threads;
	long before = atomic_load(&l->done);
	int64_t t0 = mono_us();

	for (int i = 0; i < o->threads; i++) {
		/* every chat has its thread: the first threads take one more when they do not divide */
		cl[i] = (struct client){ l, i * per + (i < extra ? i : extra), per + (i < extra),
					 chats, rate / o->threads, t0 + (int64_t)o->seconds * 1000000, record,
					 open_only };
		pthread_create(&th[i], NULL, client_main, &cl[i]);
	}
	for (int i = 0; i < o->threads; i++)
		pthread_join(th[i], NULL);
	return (atomic_load(&l->done) - before) / ((mono_us() - t0) / 1e6);
}

static double run_load(struct load *l, struct chat *chats, double rate, bool record)
{
	return run_clients(l, chats, rate, record, false);
}

/* ---- delivery: the adapter's deliver(), timed from each row's receipt ---- */

static struct samples dlat;
static atomic_long delivered;

static void timed_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	telegram_adapter.deliver(self, s, row, d);
	if (d->result == DELIVERY_OK) {
		atomic_fetch_add(&delivered, 1);
		sample(&dlat, (double)(bot_now_ms() - row->due_ms));
	}
}

static void wake(void *arg)
{
	outbox_wake(arg);
}

static const struct adapter timed_adapter = {
	.name = "telegram",
	.deliver = timed_deliver,
};

static int pending_rows(const char *db)
{
	struct store *s;
	int n = -1;

	if (store_open(&s, db) == GB_OK)
		store_out_count(s, "telegram", &n, NULL, NULL);
	store_free(s);
	return n;
}

/* A year of play in the database, pruned as the service would (aged.h); what it took. */
/* Copy the file from to the file to; 0 when done. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[1 << 16];
	size_t n;
	int rc = in && out ? 0 : -1;

	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

static int age(const struct opts *o)
{
	struct aged a = { .chats = o->chats, .games = o->aged_games, .moves = o->aged_moves,
			  .processed = o->aged_processed, .now_ms = bot_now_ms() };

	if (o->aged_file && access(o->aged_file, R_OK) == 0) {
		/* made by an earlier run: every run of a comparison starts from the same file */
		printf("telegram   aged: the year-old database of %s\n", o->aged_file);
		return copy_file(o->aged_file, o->db);
	}
	if (aged_build(o->db, &a) || aged_prune(o->db, &a) || (o->aged_file && copy_file(o->db, o->aged_file))) {
		fprintf(stderr, "telegram: cannot age the database\n");
		return -1;
	}
	printf("telegram   aged: a year of %d finished games (%d moves each) and %d update ids built in %.1f s"
	       " (%.0f MB); pruned in %.1f s: %lld ids, %lld tables with their logs, %lld rows set aside;"
	       " left %lld tables, %lld moves, %lld ids (%.0f MB, %lld pages free)\n", a.games, a.moves,
	       a.processed, a.build_s, a.bytes_built / 1e6, a.prune_s, (long long)a.pruned.processed,
	       (long long)a.pruned.tables, (long long)a.pruned.aside, a.tables_left, a.moves_left,
	       a.processed_left, a.bytes_pruned / 1e6, a.free_pages);
	return 0;
}

/* The options; false when they are not usable. */
static bool parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct {
		const char *name;
		size_t off;
	} nums[] = {
		{ "--seconds", offsetof(struct opts, seconds) },
		{ "--chats", offsetof(struct opts, chats) },
		{ "--threads", offsetof(struct opts, threads) },
		{ "--workers", offsetof(struct opts, workers) },
		{ "--rounds", offsetof(struct opts, rounds) },
		{ "--aged", offsetof(struct opts, aged_games) },
		{ "--aged-moves", offsetof(struct opts, aged_moves) },
		{ "--aged-processed", offsetof(struct opts, aged_processed) },
	};

	for (int i = 1; i + 1 < argc; i += 2) {
		for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!strcmp(argv[i], nums[k].name))
				*(int *)((char *)o + nums[k].off) = (int)strtol(argv[i + 1], NULL, 10);
		if (!strcmp(argv[i], "--aged-file"))
			o->aged_file = argv[i + 1];
		else if (!strcmp(argv[i], "--ingest-only"))
			o->ingest_only = strtol(argv[i + 1], NULL, 10) != 0;
		else if (!strcmp(argv[i], "--keep"))
			o->keep = strtol(argv[i + 1], NULL, 10) != 0;
	}
	return o->threads >= 1 && o->threads <= MAX_CLIENTS && o->chats >= o->threads && o->seconds >= 1 &&
	       o->rounds >= 1 && o->rounds <= MAX_ROUNDS && o->aged_games >= 0 && o->aged_moves >= 0 &&
	       o->aged_processed >= 0;
}

/* The service as `gamebot serve` runs it for Telegram's webhook, against the fake Bot API. */
struct service {
	struct fake_tg *f;
	struct config cfg;
	struct adapter_env env;
	struct http_route routes[2];
	struct http_server *http;
	struct outbox *ob;
	struct store_checkpointer *cp;
	void *self;
	char url[128];
};

static int service_start(const struct opts *o, struct service *sv)
{
	struct http_options ho;
	struct outbox_opts oo;

	if (fake_tg_start(&sv->f, TOKEN, "gb_bench_bot"))
		return -1;
	/* what `gamebot serve` does: the store's checkpoints on a thread of their own */
	if (store_checkpointer_start(o->db, &sv->cp))
		return -1;
	config_init(&sv->cfg);
	snprintf(sv->cfg.db, sizeof(sv->cfg.db), "%s", o->db);
	snprintf(sv->cfg.telegram_token, sizeof(sv->cfg.telegram_token), TOKEN);
	snprintf(sv->cfg.telegram_secret, sizeof(sv->cfg.telegram_secret), SECRET);
	snprintf(sv->cfg.telegram_api, sizeof(sv->cfg.telegram_api), "%s", fake_tg_url(sv->f));
	snprintf(sv->cfg.telegram_mode, sizeof(sv->cfg.telegram_mode), "webhook");
	snprintf(sv->cfg.telegram_pacing, sizeof(sv->cfg.telegram_pacing), "off");
	sv->env.cfg = &sv->cfg;
	bot_config_init(&sv->env.bot);
	sv->env.bot.seed = 1;
	sv->env.db = o->db;
	outbox_opts_init(&oo);
	if (outbox_new(&sv->ob, &timed_adapter, o->db, &oo))
		return -1;
	sv->env.wake = wake;
	sv->env.wake_arg = sv->ob;
	if (telegram_adapter.start(&sv->env, &sv->self))
		return -1;
	http_options_init(&ho);
	ho.listen = "127.0.0.1:0";
	ho.routes = sv->routes;
	ho.workers = o->workers;
	ho.nroutes = telegram_adapter.routes(sv->self, sv->routes, 2);
	if (http_start(&sv->http, &ho))
		return -1;
	snprintf(sv->url, sizeof(sv->url), "http://127.0.0.1:%d/telegram", http_port(sv->http));
	return 0;
}

static void service_stop(struct service *sv)
{
	http_stop(sv->http);
	store_checkpointer_stop(sv->cp);
	outbox_stop(sv->ob);
	telegram_adapter.stop(sv->self);
	fake_tg_free(sv->f);
}

/*
 * Every chat's table opened first (three commands each: /new, /join,
 * /start), so that the rounds measure moves at N open tables rather
 * than the opening of the tables still to open.
 */
static void open_tables(struct load *l, struct chat *chats)
{
	int64_t t0 = mono_us();
	int open = 0;
	double s;

	run_clients(l, chats, 0, false, true);
	s = (mono_us() - t0) / 1e6;
	for (int i = 0; i < l->o->chats; i++)
		open += chats[i].playing;
	printf("telegram   opened %d of %d tables (three commands each) in %.1f s: %.0f commands/s\n", open,
	       l->o->chats, s, 3 * l->o->chats / s);
}

/* The figures of a run. */
struct rows {
	double ceiling, ingest, probe_cpu, ingest_cpu;
	double at500_rate, a_p50, a_p99, drain_rate, d_p50, d_p99;
	int backlog;
};

/*
 * (a) ingest as fast as the clients go (the outbox waits), in turn with
 * the ceiling probe: a shared machine's speed drifts within a run, and
 * each figure is the median of its rounds.
 */
static void measure_ingest(const struct opts *o, struct load *l, struct chat *chats, struct rows *r)
{
	double ceilings[MAX_ROUNDS], ingests[MAX_ROUNDS], n, found, looked;
	struct bot_cache_stats cs0, cs;

	metrics_reset();
	bot_state_cache_stats(&cs0); /* the rounds' own lookups: the tables' opening looked too */
	for (int k = 0; k < o->rounds; k++) {
		int64_t c0 = cpu_us();
		double n0 = metrics_value("gamebot_command_latency_ms", NULL);

		ceilings[k] = o->ingest_only ? 1 : run_probe(o);
		r->probe_cpu += (double)(cpu_us() - c0) / (ceilings[k] * o->seconds);
		c0 = cpu_us();
		ingests[k] = run_load(l, chats, 0, false);
		r->ingest_cpu += (double)(cpu_us() - c0) / (metrics_value("gamebot_command_latency_ms", NULL) - n0);
		printf("telegram   round %d: ceiling %.0f requests/s, ingest %.0f actions/s (%.0f%%)\n", k + 1,
		       ceilings[k], ingests[k], 100 * ingests[k] / ceilings[k]);
	}
	r->ceiling = median(ceilings, o->rounds);
	r->ingest = median(ingests, o->rounds);
	r->probe_cpu /= o->rounds;
	r->ingest_cpu /= o->rounds;
	n = metrics_value("gamebot_command_latency_ms", NULL);
	bot_state_cache_stats(&cs);
	found = (double)(cs.hits - cs0.hits);
	looked = found + (double)(cs.misses - cs0.misses);
	printf("telegram   ingest: %.0f commands, %.3f ms each in the router (%.3f ms of it in the write"
	       " transaction), %.0f us of CPU each, clients included; decoded states found %.1f%%"
	       " (%zu kept, %.0f bytes each), with their seats and last move %.1f%%\n",
	       n, metrics_sum("gamebot_command_latency_ms", NULL) / (n ? n : 1),
	       metrics_sum("gamebot_store_transaction_ms", NULL) / (n ? n : 1), r->ingest_cpu,
	       100.0 * found / (looked > 0 ? looked : 1),
	       cs.entries, cs.entries ? (double)cs.bytes / (double)cs.entries : 0,
	       100.0 * (double)(cs.facts_hits - cs0.facts_hits) / (found > 0 ? found : 1));
	/* ingest at a fixed offered load */
	if (o->ingest_only)
		return;
	samples_reset(&l->lat);
	r->at500_rate = run_load(l, chats, 500, true);
	r->a_p50 = pct(&l->lat, 0.5);
	r->a_p99 = pct(&l->lat, 0.99);
}

/* (b) delivery: the backlog drains, then replies at 500 actions/s. */
static void measure_delivery(const struct opts *o, struct service *sv, struct load *l, struct chat *chats,
			     struct rows *r)
{
	int64_t t0;
	int left;

	r->backlog = pending_rows(o->db);
	t0 = mono_us();
	outbox_run(sv->ob, sv->self);
	do {
		sleep_us(20000);
		left = pending_rows(o->db);
	} while (left > 0 && mono_us() - t0 < 120 * 1000000LL);
	r->drain_rate = atomic_load(&delivered) / ((mono_us() - t0) / 1e6);
	samples_reset(&dlat);
	run_load(l, chats, 500, false);
	t0 = mono_us();
	while (pending_rows(o->db) > 0 && mono_us() - t0 < 30 * 1000000LL)
		sleep_us(20000);
	r->d_p50 = pct(&dlat, 0.5);
	r->d_p99 = pct(&dlat, 0.99);
}

static void print_rows(const struct opts *o, const struct rows *r, long errors)
{
	/* CPU time moves less with the machine's other work than a rate does */
	printf("telegram   ceiling: bare handler + one WAL transaction per request: %.0f requests/s"
	       " (median of %d); %.0f us of CPU each, clients included\n", r->ceiling, o->rounds, r->probe_cpu);
	printf("telegram   ingest (%d chats of Ludo, %d client threads, %d handler threads): %.0f actions/s"
	       " (median of %d) = %.0f%% of the ceiling (target >= 50%%) %s; %.0f us of CPU each, clients"
	       " included\n", o->chats, o->threads, o->workers, r->ingest, o->rounds,
	       r->ceiling > 0 ? 100 * r->ingest / r->ceiling : 0, r->ingest >= 0.5 * r->ceiling ? "met" : "NOT MET",
	       r->ingest_cpu);
	printf("telegram   ingest at 500 actions/s offered (%.0f/s taken): webhook p50 %.2f ms, p99 %.2f ms"
	       " (target p99 < 20 ms) %s\n", r->at500_rate, r->a_p50, r->a_p99, r->a_p99 < 20 ? "met" : "NOT MET");
	printf("telegram   delivery, pacing off: %d queued rows drained at %.0f replies/s (target >= 2000) %s\n",
	       r->backlog, r->drain_rate, r->drain_rate >= 2000 ? "met" : "NOT MET");
	printf("telegram   delivery at 500 actions/s: receipt to the fake's answer p50 %.1f ms, p99 %.1f ms;"
	       " %ld errors\n", r->d_p50, r->d_p99, errors);
}

int main(int argc, char **argv)
{
	struct opts o = { .seconds = 4, .chats = 200, .threads = 16, .workers = 16, .rounds = 3,
			  .aged_moves = 40, .aged_processed = 5000000 };
	struct service sv = { 0 };
	struct load l = { .o = &o };
	struct bot view = { 0 };
	struct rows r = { 0 };
	struct chat *chats;

	if (!parse_opts(argc, argv, &o)) {
		fprintf(stderr, "telegram: bad options\n");
		return 2;
	}
	/* each line as it is made, also into a file: a long run shows where it is */
	setvbuf(stdout, NULL, _IOLBF, 0);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ludo = gb_game_find("ludo");
	memset(state_2k, 'x', 2048);
	if (fixture_dir(o.dir, sizeof(o.dir), "bench-tg"))
		return 1;
	snprintf(o.db, sizeof(o.db), "%s/gamebot.db", o.dir);
	snprintf(o.probe_db, sizeof(o.probe_db), "%s/probe.db", o.dir);
	pthread_mutex_init(&dlat.lock, NULL);
	pthread_mutex_init(&l.lat.lock, NULL);
	pthread_mutex_init(&l.view_lock, NULL);
	/* SQLite as the service sets it up (at its first open) for the probe too */
	if (store_open(&view.store, o.db))
		return 1;
	store_free(view.store);
	if (o.aged_games > 0 && age(&o))
		return 1;
	pthread_key_create(&probe_key, probe_close);
	if (service_start(&o, &sv) || store_open(&view.store, o.db))
		return 1;
	l.url = sv.url;
	l.view = &view;
	/* Telegram's update ids go on from the year's */
	atomic_store(&l.update_id, o.aged_games > 0 ? o.aged_processed + 1 : 1);
	chats = calloc((size_t)o.chats, sizeof(*chats));
	for (int i = 0; i < o.chats; i++) {
		snprintf(chats[i].id, sizeof(chats[i].id), "-100%d", 1000 + i);
		chats[i].st = calloc(1, ludo->state_size);
	}
	open_tables(&l, chats);
	measure_ingest(&o, &l, chats, &r);
	if (!o.ingest_only)
		measure_delivery(&o, &sv, &l, chats, &r);
	service_stop(&sv);
	store_free(view.store);
	if (!o.ingest_only)
		print_rows(&o, &r, atomic_load(&l.errors));
	if (o.keep) {
		printf("telegram   database kept: %s\n", o.db);
		return 0;
	}
	return fixture_rm(o.dir) ? 1 : 0;
}
