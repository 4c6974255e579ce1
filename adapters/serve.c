/*
 * serve.c - see serve.h. The composition root: the only place that knows
 * every layer (store, bot, adapters, listener) and wires them together.
 */
#include "serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "bot/log.h"
#include "bot/metrics.h"
#include "games/strbuf.h"

#define MAX_ADAPTERS 8
#define MAX_ROUTES 16
#define PRUNE_EVERY_MS (10 * 60 * 1000)
#define DAY_MS (24LL * 3600 * 1000)

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

/* /healthz: its own store handle, so it never waits behind a command. */
struct health {
	pthread_mutex_t lock;
	struct store *store;
};

static int health_check(void *arg)
{
	struct health *h = arg;
	int rc;

	pthread_mutex_lock(&h->lock);
	rc = store_ping(h->store);
	pthread_mutex_unlock(&h->lock);
	return rc;
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

/* GET /metrics: what the service counted, and the store's gauges read now. */
struct metrics_ctx {
	struct adapter_env env;         /* for the worker thread's store handle */
	const char *platforms[MAX_ADAPTERS];
	int nplatforms;
};

static void metrics_route(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct metrics_ctx *m = arg;
	struct bot *b = adapter_bot(&m->env);
	struct strbuf sb = { 0 };
	int64_t now = bot_now_ms();

	(void)req;
	if (b) {
		struct store_game_count games[16];
		int n = 0;

		for (int i = 0; i < m->nplatforms; i++) {
			int pending = 0, aside = 0;
			int64_t oldest = 0;
			char labels[48];

			if (store_out_count(b->store, m->platforms[i], &pending, &aside, &oldest))
				continue;
			snprintf(labels, sizeof(labels), "platform=\"%s\"", m->platforms[i]);
			metrics_set("gamebot_outbox_depth", labels, pending);
			metrics_set("gamebot_outbox_set_aside", labels, aside);
			metrics_set("gamebot_outbox_oldest_age_seconds", labels,
				    pending && oldest && oldest < now ? (double)(now - oldest) / 1000.0 : 0);
		}
		if (!store_tables_open_by_game(b->store, games, 16, &n))
			for (int i = 0; i < n; i++) {
				char labels[48], game[24];

				snprintf(labels, sizeof(labels), "game=\"%s\"",
					 metrics_label(games[i].game, game, sizeof(game)));
				metrics_set("gamebot_open_tables", labels, games[i].tables);
			}
	}
	metrics_render(&sb);
	resp->status = 200;
	resp->content_type = "text/plain; version=0.0.4";
	resp->body = sb_detach(&sb);
}

void serve_bot_config(const struct config *cfg, struct bot_config *out)
{
	bot_config_init(out);
	out->default_lang = cfg->lang;
	out->watch_max = cfg->watch_max;
	out->watch_per_hour = cfg->watch_per_hour;
	out->rate_user_per_min = cfg->rate_user_per_min;
	out->rate_chat_per_min = cfg->rate_chat_per_min;
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

int serve_main(const struct config *cfg)
{
	struct running run[MAX_ADAPTERS];
	struct http_route routes[MAX_ROUTES];
	struct http_options ho;
	struct http_server *http = NULL;
	struct health health = { .store = NULL };
	struct outbox_opts oo;
	struct metrics_ctx mctx = { .nplatforms = 0 };
	struct bot b;
	struct store_checkpointer *checkpointer = NULL;
	struct sigaction sa;
	char names[128] = "";
	int nrun = 0, nroutes = 0, rc = GB_OK, status = 1;
	int64_t last_prune = 0;

	memset(&b, 0, sizeof(b));
	memset(run, 0, sizeof(run));
	pthread_mutex_init(&health.lock, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atomic_store(&stopping, 0);

	serve_bot_config(cfg, &b.cfg);
	/* a thread of the store's copies its log back: commits never wait for it */
	rc = store_checkpointer_start(cfg->db, &checkpointer);
	if (!rc)
		rc = store_open(&b.store, cfg->db);
	if (!rc && store_one_writer(b.store)) {
		int n = 0;

		/* one process serves a SQLite file: claims still leased are a stopped one's */
		if (store_out_unlease(b.store, bot_now_ms(), &n) == GB_OK && n)
			gb_log("took back %d outbox rows a stopped service had claimed", n);
	}
	if (!rc)
		rc = store_open(&health.store, cfg->db);
	if (rc) {
		gb_log("cannot open the store '%s': %s", cfg->db, gb_strerror(rc));
		goto out;
	}
	outbox_opts_init(&oo);
	oo.workers = cfg->outbox_workers > 0 ? cfg->outbox_workers : 1;
	if (cfg->outbox_lease_seconds > 0)
		oo.lease_ms = cfg->outbox_lease_seconds * 1000LL;
	for (int i = 0; adapters[i] && nrun < MAX_ADAPTERS; i++) {
		const struct adapter *a = adapters[i];
		struct running *r = &run[nrun];

		if (!a->configured(cfg))
			continue;
		r->a = a;
		r->env = (struct adapter_env){ .cfg = cfg, .bot = b.cfg, .db = cfg->db,
					       .request_stop = request_stop };
		if (a->deliver) {
			/* the worker first, so the adapter's commands can wake it */
			rc = outbox_new(&r->outbox, a, cfg->db, &oo);
			if (rc)
				goto out;
			r->env.wake = wake_outbox;
			r->env.wake_arg = r->outbox;
		}
		rc = a->start(&r->env, &r->self);
		if (rc) {
			gb_log("%s: cannot start: %s", a->name, gb_strerror(rc));
			outbox_stop(r->outbox);
			r->outbox = NULL;
			goto out;
		}
		nrun++;
		if (r->outbox) {
			rc = outbox_run(r->outbox, r->self);
			if (rc)
				goto out;
		}
		if (a->routes)
			nroutes += a->routes(r->self, routes + nroutes, MAX_ROUTES - nroutes);
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 names[0] ? ", " : "", a->name);
	}
	mctx.env = (struct adapter_env){ .cfg = cfg, .bot = b.cfg, .db = cfg->db };
	for (int i = 0; i < nrun; i++)
		if (run[i].a->deliver)
			mctx.platforms[mctx.nplatforms++] = run[i].a->name;
	if (nroutes < MAX_ROUTES)
		routes[nroutes++] = (struct http_route){ "GET", "/metrics", metrics_route, &mctx };
	http_options_init(&ho);
	ho.listen = cfg->listen;
	ho.routes = routes;
	ho.nroutes = nroutes;
	ho.health = health_check;
	ho.health_arg = &health;
	ho.max_connections = (unsigned)cfg->http_max_connections;
	ho.per_ip_limit = (unsigned)cfg->http_per_ip_limit;
	ho.timeout_s = (unsigned)cfg->http_timeout;
	ho.workers = (unsigned)cfg->http_workers;
	rc = http_start(&http, &ho);
	if (rc) {
		bool console_only = nrun == 1 && strcmp(run[0].a->name, "console") == 0;

		if (rc == GB_EIO)
			gb_log("cannot listen on %s: is another program using that port?", cfg->listen);
		else
			gb_log("cannot listen on %s: %s", cfg->listen, gb_strerror(rc));
		/* a service fails (its manager restarts it); a person at the console chat plays on */
		if (!console_only)
			goto out;
		gb_log("the console chat goes on without the listener (no /healthz, no /metrics)");
		rc = GB_OK;
	}
	metrics_set("gamebot_start_time_seconds", NULL, (double)bot_now_ms() / 1000.0);
	if (http)
		gb_log("started: listening on %s (GET /healthz); adapters: %s", cfg->listen,
		       names[0] ? names
				: "none (no platform token and no terminal: serving /healthz and timers)");
	else
		gb_log("started: adapters: %s", names);
	while (!atomic_load(&stopping)) {
		int64_t now = bot_now_ms();
		int fired = bot_run_timers(&b, now, BOT_TIMER_ALL);

		if (fired > 0)
			for (int i = 0; i < nrun; i++)
				outbox_wake(run[i].outbox);
		if (now - last_prune >= PRUNE_EVERY_MS) {
			int n = 0;

			last_prune = now;
			if (store_processed_prune(b.store, now - cfg->processed_keep_days * DAY_MS, &n) == GB_OK &&
			    n)
				gb_log("pruned %d processed update ids older than %d days", n,
				       cfg->processed_keep_days);
		}
		if (!atomic_load(&stopping) && fired <= 0)
			nap(b.store, 50);
	}
	gb_log("stopping");
	status = 0;
out:
	/*
	 * The listener first (it waits for handlers in flight); then each
	 * adapter's workers, which deliver with its state; then the adapter
	 * (a poller of its own may still wake its workers until then).
	 */
	http_stop(http);
	for (int i = nrun - 1; i >= 0; i--) {
		outbox_halt(run[i].outbox);
		run[i].a->stop(run[i].self);
		outbox_stop(run[i].outbox);
	}
	store_free(b.store);
	store_free(health.store);
	store_checkpointer_stop(checkpointer);
	pthread_mutex_destroy(&health.lock);
	if (!status)
		gb_log("stopped");
	return status;
}
