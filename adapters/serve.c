/*
 * serve.c - see serve.h. The composition root: the only place that knows
 * every layer (store, bot, adapters, listener) and wires them together.
 */
#include "serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "bot/base/limit.h"
#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "games/strbuf.h"

#define MAX_ADAPTERS 8
#define MAX_ROUTES 16

/* set by a signal or by an adapter's thread (the console at end of input):
 * a lock-free atomic, safe in a handler and seen by the main loop */
static atomic_int stopping;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may only store to a lock-free atomic");

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stopping, 1);
}

static void request_stop(void *arg)
{
	(void)arg;
	atomic_store(&stopping, 1);
}

/*
 * What /healthz and /metrics tell of the store, kept current by a thread
 * of its own: every HEALTH_EVERY_MS it pings the store on its own handle
 * (which reconnects to a server that came back) and reads the gauges
 * /metrics shows (outbox depth, open tables). The listener only reads what
 * the thread left, so no request waits on the database. /healthz says 503
 * from the first check that fails, and when none has come back healthy
 * within HEALTH_STALE_MS (a server that stopped answering, a thread stuck
 * in its call), and while a platform refuses the service's credentials
 * (its outbox paused for a 401: only an operator can cure that).
 */
#define HEALTH_EVERY_MS 2000
#define HEALTH_STALE_MS (HEALTH_EVERY_MS + 5000)
#define MAX_GAMES 16

struct health {
	struct store *store;
	const char *platforms[MAX_ADAPTERS];
	struct outbox *outboxes[MAX_ADAPTERS]; /* the platforms' workers: is one refused its credentials? */
	int nplatforms;
	atomic_llong ok_at;             /* monotonic ms of the last healthy check; 0 none */
	atomic_bool failed;             /* the last check that came back failed */
	pthread_mutex_t lock;           /* stop and its condition */
	pthread_cond_t cond;            /* CLOCK_MONOTONIC: stop set */
	bool stop;
	bool started;
	pthread_t th;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* On the polling thread: a read of what the checker left, nothing more. */
static int health_check(void *arg)
{
	struct health *h = arg;
	int64_t ok_at = atomic_load(&h->ok_at);
	bool refused = false;

	/* a platform refusing the service's token (401) needs an operator: unhealthy until it accepts it */
	for (int i = 0; i < h->nplatforms && !refused; i++)
		outbox_paused(h->outboxes[i], &refused);
	return !refused && !atomic_load(&h->failed) && ok_at > 0 &&
			       mono_ms() - ok_at <= HEALTH_STALE_MS ? 0 : 1;
}

/* The store's gauges for /metrics, read on the checker's handle. */
static void read_gauges(struct health *h)
{
	struct store_game_count games[MAX_GAMES];
	int64_t now = bot_now_ms();
	int n = 0;

	for (int i = 0; i < h->nplatforms; i++) {
		int pending = 0, aside = 0;
		int64_t oldest = 0;
		char labels[48];

		if (store_out_count(h->store, h->platforms[i], &pending, &aside, &oldest))
			continue;
		snprintf(labels, sizeof(labels), "platform=\"%s\"", h->platforms[i]);
		metrics_set("gamebot_outbox_depth", labels, pending);
		metrics_set("gamebot_outbox_set_aside", labels, aside);
		metrics_set("gamebot_outbox_oldest_age_seconds", labels,
			    pending && oldest && oldest < now ? (double)(now - oldest) / 1000.0 : 0);
	}
	bot_caches_publish(now);
	if (!store_tables_open_by_game(h->store, games, MAX_GAMES, &n))
		for (int i = 0; i < n; i++) {
			char labels[48], game[24];

			snprintf(labels, sizeof(labels), "game=\"%s\"",
				 metrics_label(games[i].game, game, sizeof(game)));
			metrics_set("gamebot_open_tables", labels, games[i].tables);
		}
	bot_online_publish(h->store, now);
}

static void health_once(struct health *h)
{
	bool ok = store_ping(h->store) == GB_OK;

	/* a failure shows at once; a check that never comes back, once its answer is overdue */
	atomic_store(&h->failed, !ok);
	if (ok) {
		atomic_store(&h->ok_at, mono_ms());
		read_gauges(h);
	}
}

static void *health_main(void *arg)
{
	struct health *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		struct timespec until;

		pthread_mutex_unlock(&h->lock);
		health_once(h);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += HEALTH_EVERY_MS / 1000;
		until.tv_nsec += (long)(HEALTH_EVERY_MS % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&h->lock);
		while (!h->stop && pthread_cond_timedwait(&h->cond, &h->lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void health_init(struct health *h)
{
	pthread_condattr_t ca;

	memset(h, 0, sizeof(*h));
	atomic_init(&h->ok_at, 0);
	atomic_init(&h->failed, false);
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* The first check before the listener opens (so /healthz is right at once), then the thread. */
static int health_start(struct health *h)
{
	health_once(h);
	if (pthread_create(&h->th, NULL, health_main, h))
		return GB_EIO;
	h->started = true;
	return GB_OK;
}

static void health_stop(struct health *h)
{
	pthread_mutex_lock(&h->lock);
	h->stop = true;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (h->started)
		pthread_join(h->th, NULL);
	h->started = false;
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
}

struct running {
	const struct adapter *a;
	void *self;
	struct outbox *outbox;
	struct adapter_env env;         /* handed to start(): valid until stop() */
};

static void wake_outbox(void *arg)
{
	outbox_wake(arg);
}

/* GET /metrics: the counters as they stand (the gauges are the checker's); nothing is asked of the store. */
static void metrics_route(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct strbuf sb = { 0 };

	(void)arg;
	(void)req;
	metrics_render(&sb);
	resp->status = 200;
	resp->content_type = "text/plain; version=0.0.4";
	resp->body = sb_detach(&sb);
}

/*
 * With metrics_token set, GET /metrics needs "Authorization: Bearer
 * <token>", compared in constant time over a fixed length.
 */
static int metrics_admit(void *arg, const struct http_request *req)
{
	const char *token = arg, *got = http_header(req, "Authorization");
	char want[CONFIG_VALUE_LEN + 8] = { 0 }, have[CONFIG_VALUE_LEN + 8] = { 0 };
	unsigned char diff = 0;

	if (!token[0])
		return 0;
	snprintf(want, sizeof(want), "Bearer %s", token);
	if (got && strlen(got) < sizeof(have))
		memcpy(have, got, strlen(got));
	else
		diff = 1;
	for (size_t i = 0; i < sizeof(want); i++)
		diff |= (unsigned char)(want[i] ^ have[i]);
	return diff ? 401 : 0;
}

void serve_bot_config(const struct config *cfg, struct bot_config *out)
{
	bot_config_init(out);
	out->default_lang = cfg->lang;
	out->watch_max = cfg->watch_max;
	out->watch_per_hour = cfg->watch_per_hour;
	out->rate_user_per_min = cfg->rate_user_per_min;
	out->rate_chat_per_min = cfg->rate_chat_per_min;
	out->online = strcmp(cfg->online, "off") != 0;
	out->online_fill_ms = (int64_t)cfg->online_fill_after * 1000;
	out->online_autoplay_s = cfg->online_autoplay_after;
	out->online_coins = cfg->online_starting_coins;
	/* process-wide, like the caches themselves */
	bot_state_cache_size((size_t)cfg->state_cache);
	limit_size((size_t)cfg->rate_limit_slots);
}

/* The main listener: the platforms' routes (and /metrics unless it has its own), /healthz. */
static int listen_main(const struct config *cfg, const struct http_route *routes, int nroutes,
		       struct health *health, struct http_server **out)
{
	struct http_options ho;

	http_options_init(&ho);
	ho.listen = cfg->listen;
	ho.routes = routes;
	ho.nroutes = nroutes;
	ho.health = health_check;
	ho.health_arg = health;
	ho.max_connections = (unsigned)cfg->http_max_connections;
	ho.per_ip_limit = (unsigned)cfg->http_per_ip_limit;
	ho.timeout_s = (unsigned)cfg->http_timeout;
	ho.workers = (unsigned)cfg->http_workers;
	return http_start(out, &ho);
}

/* metrics_listen: /metrics alone on an address of its own (a private network, say). */
static int listen_metrics(const struct config *cfg, struct http_server **out)
{
	const struct http_route r = { "GET", "/metrics", metrics_route, (void *)cfg->metrics_token,
				      metrics_admit };
	struct http_options ho;
	int rc;

	http_options_init(&ho);
	ho.listen = cfg->metrics_listen;
	ho.routes = &r;
	ho.nroutes = 1;
	ho.health_path = "";
	ho.max_connections = 64;
	ho.workers = 1;
	ho.timeout_s = (unsigned)cfg->http_timeout;
	rc = http_start(out, &ho);
	if (rc)
		gb_log("cannot serve /metrics on %s: %s", cfg->metrics_listen,
		       rc == GB_EIO ? "is another program using that port?" : gb_strerror(rc));
	else
		gb_log("serving GET /metrics on %s", cfg->metrics_listen);
	return rc;
}

/*
 * One step of the scheduled pruning (bot_prune_step()); false once it is
 * done (or failed: tried again at the next schedule), with one log line
 * of what went when anything did.
 */
static bool prune_step(struct bot *b, const struct config *cfg, int64_t now, struct bot_pruned *pruned)
{
	const struct bot_prune p = { cfg->processed_keep_days, cfg->verify_keep_days, cfg->aside_keep_days,
				     cfg->prune_batch };
	int rc = bot_prune_step(b->store, &p, now, pruned);

	if (rc > 0)
		return true;
	if (rc < 0)
		gb_log("pruning stopped, tried again later: %s", gb_strerror(-rc));
	if (pruned->processed || pruned->tables || pruned->aside)
		gb_log("pruned %lld processed update ids older than %d days, %lld tables finished more"
		       " than %d days ago (with their move logs), %lld outbox rows set aside more than"
		       " %d days ago", (long long)pruned->processed, cfg->processed_keep_days,
		       (long long)pruned->tables, cfg->verify_keep_days, (long long)pruned->aside,
		       cfg->aside_keep_days);
	memset(pruned, 0, sizeof(*pruned));
	return false;
}

/* Sleep until the next timer is due, at most max_ms. */
static void nap(struct store *s, int64_t max_ms)
{
	struct store_timer t;
	int64_t ms = max_ms;
	struct timespec ts;

	if (store_timer_next(s, &t) == GB_OK) {
		int64_t d = t.due_ms - bot_now_ms();

		ms = d < 0 ? 0 : d < max_ms ? d : max_ms;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* What serve_main() runs, for its steps to share. */
struct serving {
	const struct config *cfg;
	struct running run[MAX_ADAPTERS];
	struct http_route routes[MAX_ROUTES];
	struct http_server *http, *mhttp;
	struct health health;
	struct bot b;
	struct store_checkpointer *checkpointer;
	char names[128];
	int nrun, nroutes;
};

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atomic_store(&stopping, 0);
}

/* The store the bot writes through, and the health checker's own. */
static int open_stores(struct serving *sv)
{
	const struct config *cfg = sv->cfg;
	/* a thread of the store's copies its log back: commits never wait for it */
	int rc = store_checkpointer_start(cfg->db, &sv->checkpointer);

	if (!rc)
		rc = store_open(&sv->b.store, cfg->db);
	if (!rc && store_one_writer(sv->b.store)) {
		int n = 0;

		/* one process serves a SQLite file: claims still leased are a stopped one's */
		if (store_out_unlease(sv->b.store, bot_now_ms(), &n) == GB_OK && n)
			gb_log("took back %d outbox rows a stopped service had claimed", n);
	}
	if (!rc)
		rc = store_open(&sv->health.store, cfg->db);
	if (rc)
		gb_log("cannot open the store '%s': %s", cfg->db, gb_strerror(rc));
	return rc;
}

/* Start one configured adapter, its outbox worker first; its routes join the listener's. */
static int start_adapter(struct serving *sv, const struct adapter *a, const struct outbox_opts *oo)
{
	struct running *r = &sv->run[sv->nrun];
	int rc;

	r->a = a;
	r->env = (struct adapter_env){ .cfg = sv->cfg, .bot = sv->b.cfg, .db = sv->cfg->db,
				       .request_stop = request_stop };
	if (a->deliver) {
		/* the worker first, so the adapter's commands can wake it */
		rc = outbox_new(&r->outbox, a, sv->cfg->db, oo);
		if (rc)
			return rc;
		r->env.wake = wake_outbox;
		r->env.wake_arg = r->outbox;
	}
	rc = a->start(&r->env, &r->self);
	if (rc) {
		gb_log("%s: cannot start: %s", a->name, gb_strerror(rc));
		outbox_stop(r->outbox);
		r->outbox = NULL;
		return rc;
	}
	sv->nrun++;
	if (r->outbox) {
		rc = outbox_run(r->outbox, r->self);
		if (rc)
			return rc;
	}
	if (a->routes)
		sv->nroutes += a->routes(r->self, sv->routes + sv->nroutes, MAX_ROUTES - sv->nroutes);
	snprintf(sv->names + strlen(sv->names), sizeof(sv->names) - strlen(sv->names), "%s%s",
		 sv->names[0] ? ", " : "", a->name);
	return GB_OK;
}

static int start_adapters(struct serving *sv)
{
	const struct config *cfg = sv->cfg;
	struct outbox_opts oo;
	int rc = GB_OK;

	outbox_opts_init(&oo);
	oo.workers = cfg->outbox_workers > 0 ? cfg->outbox_workers : 1;
	if (cfg->outbox_lease_seconds > 0)
		oo.lease_ms = cfg->outbox_lease_seconds * 1000LL;
	for (int i = 0; adapters[i] && sv->nrun < MAX_ADAPTERS && !rc; i++)
		if (adapters[i]->configured(cfg))
			rc = start_adapter(sv, adapters[i], &oo);
	for (int i = 0; i < sv->nrun; i++)
		if (sv->run[i].a->deliver) {
			sv->health.outboxes[sv->health.nplatforms] = sv->run[i].outbox;
			sv->health.platforms[sv->health.nplatforms++] = sv->run[i].a->name;
		}
	return rc;
}

/* The health checker, /metrics and the main listener. */
static int start_listeners(struct serving *sv)
{
	const struct config *cfg = sv->cfg;
	int rc = health_start(&sv->health);

	if (!rc && cfg->metrics_listen[0])
		rc = listen_metrics(cfg, &sv->mhttp);
	else if (!rc && sv->nroutes < MAX_ROUTES)
		/* the token is the admission check's argument */
		sv->routes[sv->nroutes++] = (struct http_route){ "GET", "/metrics", metrics_route,
								 (void *)cfg->metrics_token, metrics_admit };
	if (rc)
		return rc;
	rc = listen_main(cfg, sv->routes, sv->nroutes, &sv->health, &sv->http);
	if (rc) {
		bool console_only = sv->nrun == 1 && strcmp(sv->run[0].a->name, "console") == 0;

		if (rc == GB_EIO)
			gb_log("cannot listen on %s: is another program using that port?", cfg->listen);
		else
			gb_log("cannot listen on %s: %s", cfg->listen, gb_strerror(rc));
		/* a service fails (its manager restarts it); a person at the console chat plays on */
		if (!console_only)
			return rc;
		gb_log("the console chat goes on without the listener (no /healthz, no /metrics)");
		rc = GB_OK;
	}
	return rc;
}

/* Timers and scheduled pruning until a signal or an adapter asks to stop. */
static void serve_loop(struct serving *sv)
{
	const struct config *cfg = sv->cfg;
	struct bot_pruned pruned = { 0 };
	int64_t last_prune = 0;
	bool pruning = false;

	while (!atomic_load(&stopping)) {
		int64_t now = bot_now_ms();
		int fired = bot_run_timers(&sv->b, now, BOT_TIMER_ALL);

		if (fired > 0)
			for (int i = 0; i < sv->nrun; i++)
				outbox_wake(sv->run[i].outbox);
		if (!pruning && cfg->prune_every_minutes > 0 &&
		    now - last_prune >= cfg->prune_every_minutes * 60000LL) {
			last_prune = now;
			pruning = true;
		}
		/* a batch a turn of the loop, between the timers: no command waits long behind it */
		if (pruning && !prune_step(&sv->b, cfg, now, &pruned))
			pruning = false;
		if (!atomic_load(&stopping) && fired <= 0 && !pruning)
			nap(sv->b.store, 50);
	}
}

/*
 * The listener first (it waits for handlers in flight); then each
 * adapter's workers, which deliver with its state; then the adapter
 * (a poller of its own may still wake its workers until then).
 */
static void serve_stop(struct serving *sv)
{
	http_stop(sv->http);
	http_stop(sv->mhttp);
	health_stop(&sv->health);
	for (int i = sv->nrun - 1; i >= 0; i--) {
		outbox_halt(sv->run[i].outbox);
		sv->run[i].a->stop(sv->run[i].self);
		outbox_stop(sv->run[i].outbox);
	}
	store_free(sv->b.store);
	store_free(sv->health.store);
	store_checkpointer_stop(sv->checkpointer);
}

int serve_main(const struct config *cfg)
{
	struct serving *sv = calloc(1, sizeof(*sv));
	int status = 1;

	if (!sv) {
		gb_log("cannot start: %s", gb_strerror(GB_ENOMEM));
		return 1;
	}
	sv->cfg = cfg;
	health_init(&sv->health);
	catch_signals();
	serve_bot_config(cfg, &sv->b.cfg);
	if (!open_stores(sv) && !start_adapters(sv) && !start_listeners(sv)) {
		metrics_set("gamebot_start_time_seconds", NULL, (double)bot_now_ms() / 1000.0);
		if (sv->http)
			gb_log("started: listening on %s (GET /healthz); adapters: %s", cfg->listen,
			       sv->names[0] ? sv->names
					    : "none (no platform token and no terminal: serving /healthz and timers)");
		else
			gb_log("started: adapters: %s", sv->names);
		serve_loop(sv);
		gb_log("stopping");
		status = 0;
	}
	serve_stop(sv);
	if (!status)
		gb_log("stopped");
	free(sv);
	return status;
}
