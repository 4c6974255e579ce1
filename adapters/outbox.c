/*
 * outbox.c - see outbox.h. The policy (what a delivery outcome does to its
 * row) is outbox_run_once(); the threads around it only decide when to
 * run it: at once when woken after a commit, else every poll_ms.
 */
#include "outbox.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/base/log.h"
#include "bot/base/metrics.h"

#define MAX_WORKERS 8
#define MAX_BATCH 64
/*
 * A worker claims about what it delivers in this long, judged by its last
 * pass: a platform paced to a steady stream (Telegram's thirty a second
 * shared by every chat) takes a few rows a claim, so a row is not held
 * for seconds while newer boards of its table queue up behind it (a board
 * overtaken in hand is not sent, and its table waits for the next claim),
 * and the chats waiting longest are picked afresh at every claim.
 */
#define PASS_MS 250
/* a platform's wait this long or longer is logged (its rows are not due, so no age shows it) */
#define LONG_WAIT_MS 60000

void outbox_opts_init(struct outbox_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->lease_ms = 30000;
	o->max_attempts = 8;
	o->platform_attempts = 18;
	o->backoff_ms = 500;
	o->backoff_max_ms = 60000;
	o->poll_ms = 50;
	o->batch = 32;
	o->workers = 2;
	o->linger_ms = 2;
	o->probe_max_ms = 10000;
}

/* first, doubled `times` times, at most max. */
static int64_t backoff_to(int64_t first, int64_t max, int times)
{
	int64_t d = first;

	for (int i = 0; i < times && d < max; i++)
		d *= 2;
	return d < max ? d : max;
}

/* The delay before the retry that follows `attempts` failed tries. */
static int64_t backoff(const struct outbox_opts *o, int attempts)
{
	return backoff_to(o->backoff_ms, o->backoff_max_ms, attempts);
}

static int give_up(struct store *s, const struct adapter *a, const struct store_out *row,
		   const char *why)
{
	gb_log("delivery to %s chat %s given up (row %lld, table %lld, %d attempts): %s", a->name,
	       row->chat, (long long)row->id, (long long)row->table, row->attempts + 1, why);
	return store_out_set_aside(s, row->id, why);
}

/* Apply one delivery's outcome to its row. */
static void count(const struct adapter *a, const char *result)
{
	char labels[64];

	snprintf(labels, sizeof(labels), "platform=\"%s\",result=\"%s\"", a->name, result);
	metrics_inc("gamebot_deliveries_total", labels, 1);
}

/* Failed tries a row may have: the platform's own failures its probe did not confirm get the longer budget. */
static int attempts_allowed(const struct outbox_opts *o, const struct delivery *d)
{
	return d->platform_down && o->platform_attempts > o->max_attempts ? o->platform_attempts : o->max_attempts;
}

static int settle(struct store *s, const struct adapter *a, const struct outbox_opts *o,
		  const struct store_out *row, const struct delivery *d, int64_t now_ms)
{
	int rc = GB_OK, cap = attempts_allowed(o, d);

	count(a, d->result == DELIVERY_OK ? "ok" : d->result == DELIVERY_WAIT ? "wait"
		 : d->result == DELIVERY_RETRY && row->attempts + 1 < cap ? "retried"
									  : "set_aside");

	switch (d->result) {
	case DELIVERY_OK:
		rc = store_out_done(s, row->id);
		break;
	case DELIVERY_RETRY:
		if (row->attempts + 1 >= cap) {
			rc = give_up(s, a, row, d->why[0] ? d->why : "too many failed attempts");
			break;
		}
		gb_log("delivery to %s chat %s failed (row %lld, attempt %d), retrying: %s", a->name,
		       row->chat, (long long)row->id, row->attempts + 1, d->why);
		rc = store_out_retry(s, row->id, now_ms + backoff(o, row->attempts), 1);
		break;
	case DELIVERY_WAIT: {
		int64_t until = now_ms + (d->retry_ms > 0 ? d->retry_ms : o->backoff_ms);

		/* the platform's wait, not a failure: no attempt is counted */
		if (d->retry_ms >= LONG_WAIT_MS)
			/* rows held that long show in no age: the log says so */
			gb_log("%s asks %s to wait %lld s (row %lld): %s", a->name,
			       d->global ? "every chat" : row->chat, (long long)(d->retry_ms / 1000),
			       (long long)row->id, d->why[0] ? d->why : "rate limited");
		rc = store_out_retry(s, row->id, until, 0);
		if (!rc)
			rc = store_out_delay(s, a->name, d->global ? NULL : row->chat, until);
		break;
	}
	case DELIVERY_GIVE_UP:
	default:
		rc = give_up(s, a, row, d->why[0] ? d->why : "refused by the platform");
		break;
	}
	return rc;
}

/* The log line for a row whose outcome the store did not take (what: what was not done). */
static void log_unrecorded(const struct adapter *a, const struct store_out *row, const char *what,
			   int rc)
{
	gb_log("outbox row %lld of %s chat %s: cannot %s: %s", (long long)row->id, a->name, row->chat,
	       what, gb_strerror(rc));
}

/* Milliseconds on the monotonic clock: how long a pass has taken (now_ms may be a test's). */
static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- a platform that cannot be reached: one probe, not every row (outbox.h) ---- */

void outbox_gate_init(struct outbox_gate *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
}

void outbox_gate_destroy(struct outbox_gate *g)
{
	pthread_mutex_destroy(&g->lock);
}

static void gate_gauge(const struct adapter *a, bool down, bool unauthorized)
{
	char labels[48];

	snprintf(labels, sizeof(labels), "platform=\"%s\"", a->name);
	metrics_set("gamebot_outbox_paused", labels, down ? 1 : 0);
	metrics_set("gamebot_platform_unauthorized", labels, unauthorized ? 1 : 0);
}

/* Rows of a's platform waiting (for the log lines); -1 when the store cannot say. */
static int waiting(struct store *s, const struct adapter *a)
{
	int pending = -1;

	if (store_out_count(s, a->name, &pending, NULL, NULL))
		pending = -1;
	return pending;
}

/*
 * A delivery found the platform down (why; unauthorized: it refused the
 * credentials): shut the gate, the first probe after backoff_ms. Only the
 * first worker to see it logs.
 */
static void gate_shut(struct outbox_gate *g, struct store *s, const struct adapter *a,
		      const struct outbox_opts *o, int64_t now_ms, bool unauthorized, const char *why)
{
	bool was;

	pthread_mutex_lock(&g->lock);
	was = g->down;
	if (!was) {
		g->down = true;
		g->unauthorized = unauthorized;
		g->failures = 0;
		g->probe_at_ms = now_ms + o->backoff_ms;
		g->down_since_ms = now_ms;
		g->outages++;
	}
	pthread_mutex_unlock(&g->lock);
	if (was)
		return;
	if (unauthorized)
		gb_log("%s refuses the service's credentials (%s): no call is made to it, %d deliveries"
		       " wait, and it is asked again with a backoff", a->name, why, waiting(s, a));
	else
		gb_log("%s is down (%s): %d deliveries wait, and it is asked again with a backoff",
		       a->name, why, waiting(s, a));
	gate_gauge(a, true, unauthorized);
}

static void count_probe(const struct adapter *a, int pr)
{
	char labels[64];

	snprintf(labels, sizeof(labels), "platform=\"%s\",result=\"%s\"", a->name,
		 pr == PROBE_UP ? "up" : pr == PROBE_UNAUTHORIZED ? "unauthorized" : "down");
	metrics_inc("gamebot_outbox_probes_total", labels, 1);
}

/*
 * May this pass claim rows? Yes while the gate is open. While it is shut,
 * no - unless the next probe is due and no other worker is probing: then
 * this one asks the platform, and an answer opens the gate (yes), no
 * answer sets the next probe further off (no). Nothing is written in the
 * store either way.
 */
static bool gate_pass(struct outbox_gate *g, struct store *s, const struct adapter *a, void *self,
		      const struct outbox_opts *o, int64_t now_ms)
{
	int64_t since;
	bool up, was_unauthorized;
	int pr;

	pthread_mutex_lock(&g->lock);
	if (!g->down || g->probing || now_ms < g->probe_at_ms) {
		up = !g->down;
		pthread_mutex_unlock(&g->lock);
		return up;
	}
	g->probing = true;
	pthread_mutex_unlock(&g->lock);
	pr = a->probe(self);
	up = pr == PROBE_UP;
	count_probe(a, pr);
	pthread_mutex_lock(&g->lock);
	g->probing = false;
	g->probes++;
	since = g->down_since_ms;
	was_unauthorized = g->unauthorized;
	if (up) {
		g->down = false;
		g->unauthorized = false;
	} else {
		g->failures++;
		g->unauthorized = pr == PROBE_UNAUTHORIZED;
		g->probe_at_ms = now_ms + backoff_to(o->backoff_ms, o->probe_max_ms, g->failures);
	}
	pthread_mutex_unlock(&g->lock);
	if (up) {
		gb_log("%s answers again after %lld s%s: %d deliveries resume in order", a->name,
		       (long long)((now_ms - since) / 1000),
		       was_unauthorized ? " and accepts the credentials" : "", waiting(s, a));
		gate_gauge(a, false, false);
	} else if (was_unauthorized != (pr == PROBE_UNAUTHORIZED)) {
		gate_gauge(a, true, pr == PROBE_UNAUTHORIZED);
	}
	return up;
}

static bool gate_is_shut(struct outbox_gate *g)
{
	bool down;

	pthread_mutex_lock(&g->lock);
	down = g->down;
	pthread_mutex_unlock(&g->lock);
	return down;
}

/*
 * The longest a probe asked about a delivery's failure may take (its calls
 * end by then, adapter_deadline_set()). The claim's rows still in hand are
 * leased that long more, and a tenth of the lease to record the outcome:
 * the failed call may have waited out its time limit, leaving only that
 * tenth, and no other worker may claim a row (and send it again) while
 * this one still decides about it.
 */
#define PROBE_IN_PASS_MS 5000

/*
 * A delivery failed for the platform (d->platform_down): is the platform
 * down as a whole (true: the gate is shut now, or was already)? A 401 is
 * the platform's refusal of every call: shut at once, without another
 * call. Otherwise the probe is asked now, the rows in hand (rows[0..n),
 * claimed at claimed on adapter_mono_ms()'s clock) kept leased while it
 * asks: no answer (or a 401) confirms it; an answer means the failure was
 * the row's own, an attempt as any.
 */
static bool platform_failed(struct outbox_gate *g, struct store *s, const struct adapter *a,
			    void *self, const struct outbox_opts *o, int64_t now_ms,
			    const struct delivery *d, const struct store_out *rows, int n, int64_t claimed)
{
	int pr = PROBE_UNAUTHORIZED;

	if (gate_is_shut(g))
		return true;
	if (!d->unauthorized) {
		int64_t until = now_ms + (adapter_mono_ms() - claimed) + PROBE_IN_PASS_MS + o->lease_ms / 10;

		/* a row no longer under this lease (a failure to extend it) is left as it is */
		for (int i = 0; i < n; i++)
			store_out_extend(s, rows[i].id, until);
		adapter_deadline_set(adapter_mono_ms() + PROBE_IN_PASS_MS);
		pr = a->probe(self);
		adapter_deadline_set(0);
		count_probe(a, pr);
	}
	if (pr == PROBE_UP)
		return false;
	gate_shut(g, s, a, o, now_ms, pr == PROBE_UNAUTHORIZED, d->why);
	return true;
}

/*
 * Rows [0..n) of a claim, not tried (or not reached) for the platform
 * being down: handed back, no attempt counted, due when the first probe
 * goes (the gate opens no sooner), so a chat's newer rows queue behind
 * them rather than being claimed by a worker that passed the gate before
 * it shut.
 */
static void hand_back(struct store *s, const struct adapter *a, const struct outbox_opts *o,
		      const struct store_out *rows, int n, int64_t now_ms)
{
	for (int i = 0; i < n; i++) {
		int rc = store_out_retry(s, rows[i].id, now_ms + o->backoff_ms, 0);

		if (rc)
			log_unrecorded(a, &rows[i], "hand it back", rc);
	}
}

/*
 * When every platform call of a delivery from a claim made at claimed
 * (adapter_mono_ms()) must have ended: the lease, less a tenth of it to record
 * the outcome. A call still running later could meet another worker that
 * claimed the row again (its lease run out) and sends it a second time;
 * each of a delivery's calls (an edit, a resend, a button strip, a
 * fallback) is given only what is left (adapter_deadline_set()).
 */
static int64_t deadline(const struct outbox_opts *o, int64_t claimed)
{
	return claimed + o->lease_ms - o->lease_ms / 10;
}

int outbox_run_once(struct store *s, const struct adapter *a, void *self,
		    const struct outbox_opts *o, int64_t now_ms)
{
	struct store_out rows[MAX_BATCH];
	bool settled[MAX_BATCH] = { false };
	int64_t held_until = 0, t0, claimed;
	int n = 0, rc, batch = o->batch > 0 && o->batch < MAX_BATCH ? o->batch : MAX_BATCH;

	if (o->gate && a->probe && !gate_pass(o->gate, s, a, self, o, now_ms))
		return 0;
	claimed = adapter_mono_ms();
	rc = store_out_claim(s, a->name, now_ms, o->lease_ms, rows, batch, &n);
	if (rc)
		return -rc;
	if (n && o->gate && a->probe && gate_is_shut(o->gate)) {
		/* another worker found the platform down since this one passed the gate */
		hand_back(s, a, o, rows, n, now_ms);
		for (int i = 0; i < n; i++)
			store_out_release(&rows[i]);
		return 0;
	}
	t0 = mono_ms();
	for (int i = 0; i < n && a->held; i++) {
		/* held back by the adapter: handed back before any call to the platform */
		struct delivery d = { .result = DELIVERY_WAIT, .retry_ms = a->held(self, &rows[i]) };

		if (d.retry_ms <= 0)
			continue;
		snprintf(d.why, sizeof(d.why), "held back by the adapter");
		rc = settle(s, a, o, &rows[i], &d, now_ms);
		if (rc)
			log_unrecorded(a, &rows[i], "hand it back", rc);
		settled[i] = true;
	}
	for (int i = 0; i < n; i++) {
		struct delivery d;

		if (settled[i])
			continue;
		if (!held_until &&
		    ((o->halt && atomic_load(o->halt)) || mono_ms() - t0 >= o->lease_ms / 2)) {
			/*
			 * Stopping, or half the lease spent on the rows before it (a
			 * slow platform): a call begun now could outlast the lease,
			 * and another worker claim the row meanwhile and send it too.
			 * Not sent by this pass: handed back, due now, for whoever
			 * claims next, without waiting out the lease.
			 */
			rc = store_out_retry(s, rows[i].id, now_ms, 0);
			if (rc)
				log_unrecorded(a, &rows[i], "hand it back", rc);
			continue;
		}
		if (o->gate && a->probe && gate_is_shut(o->gate)) {
			/* another worker found the platform down: the rest waits behind the gate */
			hand_back(s, a, o, rows + i, n - i, now_ms);
			break;
		}
		memset(&d, 0, sizeof(d));
		if (held_until) {
			/* the platform asked everyone to wait: the rest of the batch waits too */
			d.result = DELIVERY_WAIT;
			d.retry_ms = held_until - now_ms;
		} else {
			adapter_deadline_set(deadline(o, claimed));
			a->deliver(self, s, &rows[i], &d);
			adapter_deadline_set(0);
			if (d.result == DELIVERY_WAIT && d.global)
				held_until = now_ms + (d.retry_ms > 0 ? d.retry_ms : o->backoff_ms);
		}
		if ((d.result == DELIVERY_RETRY || d.result == DELIVERY_GIVE_UP) && d.platform_down && o->gate &&
		    a->probe &&
		    platform_failed(o->gate, s, a, self, o, now_ms, &d, rows + i, n - i, claimed)) {
			/* the platform's failure, not the row's: this row and the rest wait behind the gate */
			count(a, "platform_down");
			hand_back(s, a, o, rows + i, n - i, now_ms);
			break;
		}
		/*
		 * Recorded at once, row by row: a worker killed after a platform
		 * accepted a message sends at most that one again (a platform
		 * cannot be asked whether it already has it), never a whole batch.
		 */
		rc = settle(s, a, o, &rows[i], &d, now_ms);
		if (rc)
			/* the lease runs out and the row is claimed again: delivered at least once */
			log_unrecorded(a, &rows[i], "record the delivery", rc);
	}
	for (int i = 0; i < n; i++)
		store_out_release(&rows[i]);
	return n;
}

struct outbox {
	const struct adapter *a;
	void *self;
	char *db;
	struct outbox_opts o;
	pthread_t threads[MAX_WORKERS];
	int nthreads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	atomic_bool halting;            /* o.halt points here */
	struct outbox_gate gate;        /* o.gate points here */
	unsigned wakes;                 /* bumped by outbox_wake() */
};

/* The rows to claim next, after a pass that handled n rows in spent_ms: see PASS_MS. */
static int next_batch(const struct outbox_opts *o, int n, int64_t spent_ms)
{
	int most = o->batch > 0 && o->batch < MAX_BATCH ? o->batch : MAX_BATCH;
	int64_t b = spent_ms > 0 ? n * PASS_MS / spent_ms : most;

	return b < 1 ? 1 : b > most ? most : (int)b;
}

static void *worker(void *arg)
{
	struct outbox *w = arg;
	struct store *s = NULL;
	unsigned seen = 0;
	int rc = store_open(&s, w->db);
	struct outbox_opts o = w->o;    /* o.batch follows the pace of delivery */

	if (rc) {
		gb_log("%s outbox worker cannot open the store: %s", w->a->name, gb_strerror(rc));
		return NULL;
	}
	for (;;) {
		struct timespec until;
		int n;
		int64_t t0;
		bool woken;
		int64_t wait_ms = w->o.poll_ms;

		pthread_mutex_lock(&w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		seen = w->wakes;
		pthread_mutex_unlock(&w->lock);
		t0 = mono_ms();
		n = outbox_run_once(s, w->a, w->self, &o, bot_now_ms());
		if (n > 0) {
			o.batch = next_batch(&w->o, n, mono_ms() - t0);
			continue;
		}
		if (n < 0)
			wait_ms = 1000; /* the store is failing: do not spin */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += wait_ms / 1000;
		until.tv_nsec += (wait_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&w->lock);
		while (!w->stop && w->wakes == seen &&
		       pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0)
			;
		woken = w->wakes != seen;
		pthread_mutex_unlock(&w->lock);
		if (woken && w->o.linger_ms > 0) {
			/* under load, commits come in bursts: gather them into one claim */
			struct timespec ts = { 0, (long)w->o.linger_ms * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	store_free(s);
	return NULL;
}

int outbox_new(struct outbox **out, const struct adapter *a, const char *db,
	       const struct outbox_opts *o)
{
	struct outbox *w;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return GB_ENOMEM;
	w->a = a;
	w->o = *o;
	atomic_init(&w->halting, false);
	w->o.halt = &w->halting;
	outbox_gate_init(&w->gate);
	w->o.gate = &w->gate;
	w->db = strdup(db);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (!w->db) {
		outbox_stop(w);
		return GB_ENOMEM;
	}
	*out = w;
	return GB_OK;
}

int outbox_run(struct outbox *w, void *self)
{
	int n = w->o.workers > 0 ? w->o.workers : 1;

	w->self = self;
	for (int i = w->nthreads; i < n && i < MAX_WORKERS; i++) {
		if (pthread_create(&w->threads[i], NULL, worker, w))
			return GB_EIO;
		w->nthreads++;
	}
	return GB_OK;
}

int outbox_start(struct outbox **out, const struct adapter *a, void *self, const char *db,
		 const struct outbox_opts *o)
{
	struct outbox *w = NULL;
	int rc = outbox_new(&w, a, db, o);

	if (!rc)
		rc = outbox_run(w, self);
	if (rc) {
		outbox_stop(w);
		w = NULL;
	}
	*out = w;
	return rc;
}

bool outbox_paused(struct outbox *w, bool *unauthorized)
{
	bool down = false, refused = false;

	if (w) {
		pthread_mutex_lock(&w->gate.lock);
		down = w->gate.down;
		refused = w->gate.unauthorized;
		pthread_mutex_unlock(&w->gate.lock);
	}
	if (unauthorized)
		*unauthorized = down && refused;
	return down;
}

void outbox_wake(struct outbox *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->wakes++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void outbox_halt(struct outbox *w)
{
	if (!w)
		return;
	atomic_store(&w->halting, true);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (int i = 0; i < w->nthreads; i++)
		pthread_join(w->threads[i], NULL);
	w->nthreads = 0;
}

void outbox_stop(struct outbox *w)
{
	if (!w)
		return;
	outbox_halt(w);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	outbox_gate_destroy(&w->gate);
	free(w->db);
	free(w);
}
