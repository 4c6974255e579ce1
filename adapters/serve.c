/*
 * serve.c - see serve.h. The composition root: the only place that knows
 * every layer (store, bot, adapters, listener) and wires them together.
 */
#include "serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "bot/log.h"

#define MAX_ADAPTERS 8
#define MAX_ROUTES 16
#define PRUNE_EVERY_MS (10 * 60 * 1000)
#define DAY_MS (24LL * 3600 * 1000)

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void request_stop(void *arg)
{
	(void)arg;
	stopping = 1;
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
};

static void wake_outbox(void *arg)
{
	outbox_wake(arg);
}

void serve_bot_config(const struct config *cfg, struct bot_config *out)
{
	bot_config_init(out);
	out->default_lang = cfg->lang;
	out->watch_max = cfg->watch_max;
	out->watch_per_hour = cfg->watch_per_hour;
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
	struct bot b;
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
	stopping = 0;

	serve_bot_config(cfg, &b.cfg);
	rc = store_open(&b.store, cfg->db);
	if (!rc)
		rc = store_open(&health.store, cfg->db);
	if (rc) {
		gb_log("cannot open the store '%s': %s", cfg->db, gb_strerror(rc));
		goto out;
	}
	outbox_opts_init(&oo);
	oo.workers = cfg->outbox_workers > 0 ? cfg->outbox_workers : 1;
	for (int i = 0; adapters[i] && nrun < MAX_ADAPTERS; i++) {
		const struct adapter *a = adapters[i];
		struct running *r = &run[nrun];
		struct adapter_env env = { .cfg = cfg, .bot = b.cfg, .db = cfg->db,
					   .request_stop = request_stop };

		if (!a->configured(cfg))
			continue;
		r->a = a;
		if (a->deliver) {
			/* the worker first, so the adapter's commands can wake it */
			rc = outbox_new(&r->outbox, a, cfg->db, &oo);
			if (rc)
				goto out;
			env.wake = wake_outbox;
			env.wake_arg = r->outbox;
		}
		rc = a->start(&env, &r->self);
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
		gb_log("cannot listen on %s: %s (is another program using that port?)", cfg->listen,
		       gb_strerror(rc));
		goto out;
	}
	gb_log("started: listening on %s (GET /healthz); adapters: %s", cfg->listen,
	       names[0] ? names : "none (no platform token and no terminal: serving /healthz and timers)");
	/* this thread runs the timers, where computer players think: after every other thread started */
	bot_thinker_priority();
	while (!stopping) {
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
		if (!stopping && fired <= 0)
			nap(b.store, 50);
	}
	gb_log("stopping");
	status = 0;
out:
	/* the listener first (it waits for handlers in flight), then adapters and workers */
	http_stop(http);
	for (int i = nrun - 1; i >= 0; i--) {
		run[i].a->stop(run[i].self);
		outbox_stop(run[i].outbox);
	}
	store_free(b.store);
	store_free(health.store);
	pthread_mutex_destroy(&health.lock);
	if (!status)
		gb_log("stopped");
	return status;
}
