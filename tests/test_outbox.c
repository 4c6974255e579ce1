/*
 * test_outbox.c - the delivery contract every adapter relies on, driven
 * through outbox_run_once() with a scripted adapter on a real SQLite file:
 * backoff and the attempt cap, a chat's order kept behind a failing first
 * row, a platform's wait delaying one chat (or, when global, all), rows set
 * aside, rows the adapter holds back handed back before any delivery,
 * the rest of a claim handed back when the worker is halted or half its
 * lease is spent, every delivery's calls given only what is left of the lease,
 * leases of a crashed worker expiring, table edits coalesced, the
 * worker threads delivering everything in order, and a platform's
 * failure pausing every row behind one probe (or, when the probe answers,
 * counting as the row's).
 */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/outbox.h"
#include "bot/tools/requeue.h"
#include "tests/fixture.h"

#define MAX_CALLS 512

/* A platform whose answers the test scripts: results[k] for the k-th call, then `then`. */
struct script {
	pthread_mutex_t lock;
	enum delivery_result results[16];
	int64_t wait_ms[16];
	bool global[16];
	int nresults;
	enum delivery_result then;
	char calls[MAX_CALLS][64];       /* payloads seen, in order */
	int ncalls;
};

static void scripted_deliver(void *self, struct store *s, const struct store_out *row,
			     struct delivery *d)
{
	struct script *sc = self;
	int k;

	(void)s;
	pthread_mutex_lock(&sc->lock);
	k = sc->ncalls;
	if (sc->ncalls < MAX_CALLS)
		snprintf(sc->calls[sc->ncalls++], sizeof(sc->calls[0]), "%s", row->payload);
	if (k < sc->nresults) {
		d->result = sc->results[k];
		d->retry_ms = sc->wait_ms[k];
		d->global = sc->global[k];
	} else {
		d->result = sc->then;
	}
	snprintf(d->why, sizeof(d->why), "scripted");
	pthread_mutex_unlock(&sc->lock);
}

static bool always(const struct config *cfg)
{
	(void)cfg;
	return true;
}

static const struct adapter fake = {
	.name = "fake",
	.configured = always,
	.deliver = scripted_deliver,
};

/*
 * An adapter holding back chat "h" while hold_ms > 0; its deliver() notes
 * what the store said of h's row at the time (its lease, its due time).
 */
struct holding {
	struct script sc;
	int64_t hold_ms;
	int64_t h_lease, h_due;         /* of h's row when the last delivery was made */
	int h_rows;
};

static int64_t holding_held(void *self, const struct store_out *row)
{
	struct holding *h = self;

	return strcmp(row->chat, "h") == 0 ? h->hold_ms : 0;
}

static void holding_deliver(void *self, struct store *s, const struct store_out *row,
			    struct delivery *d)
{
	struct holding *h = self;
	struct store_out rows[4];
	int n = 0;

	assert_int_equal(store_out_chat(s, "fake", "h", rows, 4, &n), GB_OK);
	h->h_rows = n;
	h->h_lease = n ? rows[0].lease_until_ms : -1;
	h->h_due = n ? rows[0].due_ms : -1;
	for (int i = 0; i < n; i++)
		store_out_release(&rows[i]);
	scripted_deliver(&h->sc, s, row, d);
}

static const struct adapter fake_holding = {
	.name = "fake",
	.configured = always,
	.deliver = holding_deliver,
	.held = holding_held,
};

struct fixture {
	char dir[64];
	char db[128];
	struct store *s;
	struct script sc;
	struct outbox_opts o;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || fixture_dir(f->dir, sizeof(f->dir), "outbox"))
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/out.db", f->dir);
	if (store_open(&f->s, f->db))
		return -1;
	pthread_mutex_init(&f->sc.lock, NULL);
	f->sc.then = DELIVERY_OK;
	outbox_opts_init(&f->o);
	f->o.backoff_ms = 100;
	f->o.max_attempts = 4;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	store_free(f->s);
	pthread_mutex_destroy(&f->sc.lock);
	rc = fixture_rm(f->dir);
	free(f);
	return rc;
}

static void add(struct fixture *f, const char *chat, const char *payload, int64_t due)
{
	assert_int_equal(store_out_add(f->s, "fake", chat, 0, "", payload, due), GB_OK);
}

static void script(struct fixture *f, enum delivery_result r, int64_t wait_ms, bool global)
{
	f->sc.results[f->sc.nresults] = r;
	f->sc.wait_ms[f->sc.nresults] = wait_ms;
	f->sc.global[f->sc.nresults] = global;
	f->sc.nresults++;
}

static int run(struct fixture *f, int64_t now)
{
	return outbox_run_once(f->s, &fake, &f->sc, &f->o, now);
}

static void pending(struct fixture *f, int want_pending, int want_aside)
{
	int p = -1, a = -1;
	int64_t oldest = 0;

	assert_int_equal(store_out_count(f->s, "fake", &p, &a, &oldest), GB_OK);
	assert_int_equal(p, want_pending);
	assert_int_equal(a, want_aside);
}

static void test_backoff_then_set_aside(void **state)
{
	struct fixture *f = *state;
	int64_t now = 1000;

	f->sc.then = DELIVERY_RETRY;
	add(f, "a", "m1", now);
	for (int attempt = 0; attempt < f->o.max_attempts; attempt++) {
		assert_int_equal(run(f, now), 1);
		/* not again at the same moment: the row waits out its backoff */
		assert_int_equal(run(f, now), 0);
		/* the backoff doubles: still waiting just before it ends */
		assert_int_equal(run(f, now + (f->o.backoff_ms << attempt) - 1), 0);
		now += f->o.backoff_ms << attempt;
	}
	assert_int_equal(f->sc.ncalls, f->o.max_attempts);
	pending(f, 0, 1);
	assert_int_equal(run(f, now + 1000000), 0);
}

static void test_chat_order_behind_a_failing_row(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "a", "a2", 1000);
	add(f, "b", "b1", 1000);
	script(f, DELIVERY_RETRY, 0, false); /* a1 fails once */
	assert_int_equal(run(f, 1000), 2);   /* a1 (failed) and b1: one per chat */
	assert_string_equal(f->sc.calls[0], "a1");
	assert_string_equal(f->sc.calls[1], "b1");
	/* a2 waits behind a1 */
	assert_int_equal(run(f, 1050), 0);
	assert_int_equal(run(f, 1100), 1);
	assert_string_equal(f->sc.calls[2], "a1");
	assert_int_equal(run(f, 1100), 1);
	assert_string_equal(f->sc.calls[3], "a2");
	pending(f, 0, 0);
}

static void test_wait_delays_one_chat_only(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "a", "a2", 1000);
	add(f, "b", "b1", 1000);
	add(f, "b", "b2", 1000);
	script(f, DELIVERY_WAIT, 5000, false); /* a1: retry_after 5 s */
	assert_int_equal(run(f, 1000), 2);
	{
		/* waiting is not failing: a1 is not counted as an attempt */
		struct store_out rows[4];
		int n = 0;

		assert_int_equal(store_out_due(f->s, "fake", INT64_MAX, rows, 4, &n), GB_OK);
		assert_int_equal(n, 3);
		assert_string_equal(rows[0].payload, "b2");
		for (int i = 0; i < n; i++) {
			if (strcmp(rows[i].payload, "a1") == 0) {
				assert_int_equal(rows[i].attempts, 0);
				assert_true(rows[i].due_ms >= 6000);
			}
			store_out_release(&rows[i]);
		}
	}
	assert_int_equal(run(f, 1001), 1);     /* b2 flows */
	assert_string_equal(f->sc.calls[2], "b2");
	assert_int_equal(run(f, 5999), 0);     /* chat a still waits */
	assert_int_equal(run(f, 6000), 1);
	assert_string_equal(f->sc.calls[3], "a1");
	assert_int_equal(run(f, 6000), 1);
	assert_string_equal(f->sc.calls[4], "a2");
	pending(f, 0, 0);
}

static void test_global_wait_holds_every_chat(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "b", "b1", 1000);
	add(f, "c", "c1", 1000);
	script(f, DELIVERY_WAIT, 2000, true);
	assert_int_equal(run(f, 1000), 3);
	assert_int_equal(f->sc.ncalls, 1);     /* the rest of the batch was not sent */
	assert_int_equal(run(f, 2999), 0);
	assert_int_equal(run(f, 3000), 3);
	assert_int_equal(f->sc.ncalls, 4);
	pending(f, 0, 0);
}

static void test_give_up_sets_aside_and_chat_goes_on(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "a", "a2", 1000);
	script(f, DELIVERY_GIVE_UP, 0, false);
	assert_int_equal(run(f, 1000), 1);
	pending(f, 1, 1);
	assert_int_equal(run(f, 1000), 1);
	assert_string_equal(f->sc.calls[1], "a2");
	pending(f, 0, 1);
}

static void test_held_rows_handed_back_before_any_delivery(void **state)
{
	struct fixture *f = *state;
	struct holding h = { .hold_ms = 300 };

	pthread_mutex_init(&h.sc.lock, NULL);
	h.sc.then = DELIVERY_OK;
	add(f, "a", "a1", 1000);
	add(f, "h", "h1", 1000);
	add(f, "h", "h2", 1000);
	assert_int_equal(outbox_run_once(f->s, &fake_holding, &h, &f->o, 1000), 2);
	/* only a1 went to the platform; h1 was already handed back when it went */
	assert_int_equal(h.sc.ncalls, 1);
	assert_string_equal(h.sc.calls[0], "a1");
	assert_int_equal(h.h_rows, 2);
	assert_int_equal(h.h_lease, 0);
	assert_int_equal(h.h_due, 1300);
	assert_int_equal(outbox_run_once(f->s, &fake_holding, &h, &f->o, 1299), 0);
	/* let go: h's rows in order, h1 not counted as an attempt */
	h.hold_ms = 0;
	assert_int_equal(outbox_run_once(f->s, &fake_holding, &h, &f->o, 1300), 1);
	assert_int_equal(outbox_run_once(f->s, &fake_holding, &h, &f->o, 1300), 1);
	assert_int_equal(h.sc.ncalls, 3);
	assert_string_equal(h.sc.calls[1], "h1");
	assert_string_equal(h.sc.calls[2], "h2");
	pending(f, 0, 0);
	pthread_mutex_destroy(&h.sc.lock);
}

/* The rows due at now are n, each free to claim (no lease), due now, no attempt counted. */
static void handed_back(struct fixture *f, int64_t now, int n)
{
	struct store_out rows[8];
	int got = 0;

	assert_int_equal(store_out_due(f->s, "fake", now, rows, 8, &got), GB_OK);
	assert_int_equal(got, n);
	for (int i = 0; i < got; i++) {
		assert_int_equal(rows[i].lease_until_ms, 0);
		assert_int_equal(rows[i].attempts, 0);
		assert_int_equal(rows[i].due_ms, now);
		store_out_release(&rows[i]);
	}
}

/* Halts the outbox the first time it delivers (a SIGTERM arriving mid-batch). */
static atomic_bool halt_flag;

static void halting_deliver(void *self, struct store *s, const struct store_out *row,
			    struct delivery *d)
{
	scripted_deliver(self, s, row, d);
	atomic_store(&halt_flag, true);
}

static const struct adapter fake_halting = {
	.name = "fake",
	.configured = always,
	.deliver = halting_deliver,
};

static void test_halt_hands_back_the_rest_of_a_claim(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "b", "b1", 1000);
	add(f, "c", "c1", 1000);
	atomic_store(&halt_flag, false);
	f->o.halt = &halt_flag;
	assert_int_equal(outbox_run_once(f->s, &fake_halting, &f->sc, &f->o, 1000), 3);
	/* one went; the other two are free at once, due now, no attempt counted */
	assert_int_equal(f->sc.ncalls, 1);
	handed_back(f, 1000, 2);
	/* the next start (or another instance) delivers them without waiting for a lease */
	atomic_store(&halt_flag, false);
	f->o.halt = NULL;
	assert_int_equal(run(f, 1000), 2);
	assert_int_equal(f->sc.ncalls, 3);
	pending(f, 0, 0);
}

/* A slow platform: each call takes 600 ms. */
static void slow_deliver(void *self, struct store *s, const struct store_out *row,
			 struct delivery *d)
{
	usleep(600000);
	scripted_deliver(self, s, row, d);
}

static const struct adapter fake_slow = {
	.name = "fake",
	.configured = always,
	.deliver = slow_deliver,
};

/*
 * Half the lease gone on the first row of a claim: the rest are not sent
 * by this pass (a call could outlast their lease while another worker
 * claims them) but handed back, due at once.
 */
static void test_slow_pass_hands_back_before_its_leases_run_out(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "b", "b1", 1000);
	add(f, "c", "c1", 1000);
	f->o.lease_ms = 1000;
	assert_int_equal(outbox_run_once(f->s, &fake_slow, &f->sc, &f->o, 1000), 3);
	assert_int_equal(f->sc.ncalls, 1);
	handed_back(f, 1000, 2);
	/* each pass sends one and hands back the rest, until none is left */
	assert_int_equal(outbox_run_once(f->s, &fake_slow, &f->sc, &f->o, 1000), 2);
	assert_int_equal(outbox_run_once(f->s, &fake_slow, &f->sc, &f->o, 1000), 1);
	assert_int_equal(f->sc.ncalls, 3);
	pending(f, 0, 0);
}

/* An adapter noting the time its calls may take, as the outbox leaves it to it. */
static long deadline_seen[4];
static int deadline_n;

static void deadline_deliver(void *self, struct store *s, const struct store_out *row,
			     struct delivery *d)
{
	if (deadline_n < 4)
		deadline_seen[deadline_n++] = adapter_call_ms(1000000L);
	scripted_deliver(self, s, row, d);
}

static const struct adapter fake_deadline = {
	.name = "fake",
	.configured = always,
	.deliver = deadline_deliver,
};

/*
 * Every call of a delivery is to end before the row's lease does: the
 * thread's deadline, set around deliver(), leaves a call at most the lease
 * less a tenth to record the outcome, and is gone once the pass is over.
 */
static void test_deliveries_within_the_lease(void **state)
{
	struct fixture *f = *state;

	add(f, "a", "a1", 1000);
	add(f, "b", "b1", 1000);
	f->o.lease_ms = 20000;
	deadline_n = 0;
	assert_int_equal(outbox_run_once(f->s, &fake_deadline, &f->sc, &f->o, 1000), 2);
	assert_int_equal(deadline_n, 2);
	for (int i = 0; i < 2; i++) {
		assert_true(deadline_seen[i] <= 18000);
		assert_true(deadline_seen[i] > ADAPTER_CALL_MIN_MS);
	}
	assert_int_equal(adapter_call_ms(1000000L), 1000000L);
	pending(f, 0, 0);
}

static void test_crashed_worker_lease_expires(void **state)
{
	struct fixture *f = *state;
	struct store_out rows[4];
	int n = 0;

	add(f, "a", "a1", 1000);
	/* a worker claims the row and dies before delivering it */
	assert_int_equal(store_out_claim(f->s, "fake", 1000, f->o.lease_ms, rows, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	store_out_release(&rows[0]);
	assert_int_equal(run(f, 1000 + f->o.lease_ms - 1), 0);
	assert_int_equal(f->sc.ncalls, 0);
	assert_int_equal(run(f, 1000 + f->o.lease_ms), 1);
	assert_string_equal(f->sc.calls[0], "a1");
	pending(f, 0, 0);
}

static void test_table_edits_coalesced(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(store_out_add(f->s, "fake", "a", 5, "table:5", "board-1", 1000), GB_OK);
	add(f, "a", "line", 1000);
	assert_int_equal(store_out_add(f->s, "fake", "a", 5, "table:5", "board-2", 1000), GB_OK);
	assert_int_equal(store_out_add(f->s, "fake", "a", 5, "table:5", "board-3", 1000), GB_OK);
	while (run(f, 1000) > 0)
		;
	assert_int_equal(f->sc.ncalls, 2);
	assert_string_equal(f->sc.calls[0], "line");
	assert_string_equal(f->sc.calls[1], "board-3");
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_workers_deliver_everything_in_order(void **state)
{
	struct fixture *f = *state;
	struct outbox *w = NULL;
	int p = 1, a = 0;
	int64_t oldest, deadline;
	char payload[32], chat[8];

	for (int i = 0; i < 60; i++) {
		snprintf(payload, sizeof(payload), "c%d-%02d", i % 6, i / 6);
		snprintf(chat, sizeof(chat), "c%d", i % 6);
		add(f, chat, payload, 0);
	}
	/* every third delivery fails once: retries must not reorder a chat */
	for (int k = 0; k < 16; k++)
		script(f, k % 3 == 0 ? DELIVERY_RETRY : DELIVERY_OK, 0, false);
	f->o.backoff_ms = 5;
	f->o.workers = 3;
	assert_int_equal(outbox_start(&w, &fake, &f->sc, f->db, &f->o), GB_OK);
	outbox_wake(w);
	deadline = mono_ms() + 10000;
	while (mono_ms() < deadline) {
		assert_int_equal(store_out_count(f->s, "fake", &p, &a, &oldest), GB_OK);
		if (!p)
			break;
		usleep(10000);
	}
	outbox_stop(w);
	assert_int_equal(p, 0);
	assert_int_equal(a, 0);
	/* per chat, the successful deliveries came in queue order */
	for (int c = 0; c < 6; c++) {
		int last = -1;
		char prefix[16];

		snprintf(prefix, sizeof(prefix), "c%d-", c);
		for (int k = 0; k < f->sc.ncalls; k++) {
			int seq;

			if (strncmp(f->sc.calls[k], prefix, 3))
				continue;
			seq = (int)strtol(f->sc.calls[k] + 3, NULL, 10);
			assert_true(seq >= last);  /* a retry repeats the same row, never an earlier one */
			last = seq;
		}
		assert_int_equal(last, 9);
	}
}

/*
 * A platform whose every failure says it is the platform's (platform_down,
 * or unauthorized too), and whose probe answers what the test sets.
 */
struct flaky {
	struct script sc;
	int probe_result;               /* enum probe_result */
	bool unauthorized;
	int probes;
};

static void flaky_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	struct flaky *fl = self;

	scripted_deliver(&fl->sc, s, row, d);
	d->platform_down = d->result == DELIVERY_RETRY;
	d->unauthorized = d->platform_down && fl->unauthorized;
}

static int flaky_probe(void *self)
{
	struct flaky *fl = self;

	fl->probes++;
	return fl->probe_result;
}

static const struct adapter fake_flaky = {
	.name = "fake",
	.configured = always,
	.deliver = flaky_deliver,
	.probe = flaky_probe,
};

static int attempts_of(struct fixture *f, const char *chat)
{
	struct store_out rows[1];
	int n = 0, a;

	assert_int_equal(store_out_chat(f->s, "fake", chat, rows, 1, &n), GB_OK);
	assert_int_equal(n, 1);
	a = rows[0].attempts;
	store_out_release(&rows[0]);
	return a;
}

/* A platform failure the probe does not confirm (it answers) is the row's: an attempt, no pause. */
static void test_platform_failure_probe_answers_is_the_rows(void **state)
{
	struct fixture *f = *state;
	struct flaky fl = { .probe_result = PROBE_UP };
	struct outbox_gate g;

	outbox_gate_init(&g);
	f->o.gate = &g;
	pthread_mutex_init(&fl.sc.lock, NULL);
	fl.sc.then = DELIVERY_OK;
	fl.sc.results[fl.sc.nresults++] = DELIVERY_RETRY;
	add(f, "a", "a1", 1000);
	assert_int_equal(outbox_run_once(f->s, &fake_flaky, &fl, &f->o, 1000), 1);
	assert_int_equal(fl.probes, 1);
	assert_false(g.down);
	assert_int_equal(attempts_of(f, "a"), 1);
	assert_int_equal(outbox_run_once(f->s, &fake_flaky, &fl, &f->o, 1000 + f->o.backoff_ms), 1);
	pending(f, 0, 0);
	pthread_mutex_destroy(&fl.sc.lock);
	outbox_gate_destroy(&g);
}

/*
 * `gamebot requeue`: a row set aside goes out again once queued again
 * (the operator mended its cause); it says how many, and refuses bad
 * arguments with status 2.
 */
static void test_requeue_command(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "requeue", "--db", f->db, "--platform", "fake", "--within", "30", NULL };
	char *bad[] = { "requeue", "--db", f->db, "--within", "0", NULL };
	char *none[] = { "requeue", "--db", "/nonexistent/gamebot.db", NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	f->sc.then = DELIVERY_GIVE_UP;
	add(f, "a", "m1", 1000);
	assert_int_equal(run(f, 1000), 1);
	pending(f, 0, 1);
	assert_int_equal(requeue_main(7, argv, NULL, out, stderr), 0);
	fflush(out);
	assert_non_null(strstr(text, "1 reply set aside in the last 30 minutes queued again for fake"));
	pending(f, 1, 0);
	f->sc.then = DELIVERY_OK;
	{
		struct timespec ts;

		/* due at once by the wall clock, as the command queued it */
		clock_gettime(CLOCK_REALTIME, &ts);
		assert_int_equal(run(f, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 1000), 1);
	}
	pending(f, 0, 0);
	assert_int_equal(requeue_main(5, bad, NULL, out, stderr), 2);
	assert_int_equal(requeue_main(3, none, NULL, out, stderr), 2);
	fclose(out);
	free(text);
}

/*
 * Sends failing for the platform while its probe answers (an outage of
 * the sending methods alone, ten minutes): the row is tried on past
 * max_attempts, for platform_attempts (some eleven minutes of backoff),
 * and goes out once sends work again; a send failing longer than that is
 * set aside, after exactly platform_attempts calls.
 */
static void test_send_outage_probe_answers_outlasted(void **state)
{
	struct fixture *f = *state;
	struct flaky fl = { .probe_result = PROBE_UP };
	struct outbox_gate g;
	int64_t t, end;
	int calls;

	outbox_opts_init(&f->o); /* the service's own budget and backoff */
	outbox_gate_init(&g);
	f->o.gate = &g;
	pthread_mutex_init(&fl.sc.lock, NULL);
	fl.sc.then = DELIVERY_RETRY;
	add(f, "a", "a1", 1000);
	for (t = 1000; t < 1000 + 600000; t += 250)
		outbox_run_once(f->s, &fake_flaky, &fl, &f->o, t);
	assert_false(g.down);
	assert_true(attempts_of(f, "a") >= f->o.max_attempts);
	pending(f, 1, 0);
	/* sends work again: out at its next try, a minute later at most */
	fl.sc.then = DELIVERY_OK;
	for (end = t + 61000; t < end; t += 250)
		outbox_run_once(f->s, &fake_flaky, &fl, &f->o, t);
	pending(f, 0, 0);
	/* failing for good: set aside once the budget is spent, within a quarter of an hour */
	fl.sc.then = DELIVERY_RETRY;
	calls = fl.sc.ncalls;
	add(f, "b", "b1", t);
	for (end = t + 15 * 60000; t < end; t += 250)
		outbox_run_once(f->s, &fake_flaky, &fl, &f->o, t);
	pending(f, 0, 1);
	assert_int_equal(fl.sc.ncalls - calls, f->o.platform_attempts);
	pthread_mutex_destroy(&fl.sc.lock);
	outbox_gate_destroy(&g);
}

/*
 * Confirmed by the probe (or a 401, at once): the gate shuts and stays shut
 * however long - ten minutes here, far past the attempts' cap - with no
 * row tried or counted; probes back off to probe_max_ms; then in order.
 */
static void run_outage(struct fixture *f, bool unauthorized)
{
	struct flaky fl = { .probe_result = PROBE_DOWN, .unauthorized = unauthorized };
	struct outbox_gate g;
	int64_t t;

	outbox_gate_init(&g);
	f->o.gate = &g;
	pthread_mutex_init(&fl.sc.lock, NULL);
	fl.sc.then = DELIVERY_RETRY;
	add(f, "a", "a1", 1000);
	add(f, "a", "a2", 1000);
	add(f, "b", "b1", 1000);
	assert_int_equal(outbox_run_once(f->s, &fake_flaky, &fl, &f->o, 1000), 0 + 2);
	assert_true(g.down);
	assert_int_equal(g.unauthorized, unauthorized);
	/* a 401 is not asked about again at once: no call more to a platform that refuses the token */
	assert_int_equal(fl.probes, unauthorized ? 0 : 1);
	assert_int_equal(fl.sc.ncalls, 1);
	for (t = 1000; t < 1000 + 600000; t += 100)
		assert_int_equal(outbox_run_once(f->s, &fake_flaky, &fl, &f->o, t), 0);
	assert_int_equal(fl.sc.ncalls, 1);
	assert_int_equal(attempts_of(f, "a"), 0);
	assert_int_equal(attempts_of(f, "b"), 0);
	pending(f, 3, 0);
	assert_true(fl.probes >= 600000 / f->o.probe_max_ms &&
		    fl.probes <= 600000 / f->o.probe_max_ms + 12);
	fl.probe_result = PROBE_UP;
	fl.sc.then = DELIVERY_OK;
	for (int i = 0; i < 10 && outbox_run_once(f->s, &fake_flaky, &fl, &f->o, t) >= 0; i++)
		t += f->o.probe_max_ms;
	pending(f, 0, 0);
	assert_false(g.down);
	assert_string_equal(fl.sc.calls[fl.sc.ncalls - 1], "a2");
	pthread_mutex_destroy(&fl.sc.lock);
	outbox_gate_destroy(&g);
}

static void test_platform_down_confirmed_pauses_without_attempts(void **state)
{
	run_outage(*state, false);
}

static void test_platform_401_pauses_at_once(void **state)
{
	run_outage(*state, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_backoff_then_set_aside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chat_order_behind_a_failing_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_delays_one_chat_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_global_wait_holds_every_chat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_give_up_sets_aside_and_chat_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_rows_handed_back_before_any_delivery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_halt_hands_back_the_rest_of_a_claim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_pass_hands_back_before_its_leases_run_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deliveries_within_the_lease, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crashed_worker_lease_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_edits_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers_deliver_everything_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_platform_failure_probe_answers_is_the_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_outage_probe_answers_outlasted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_requeue_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_platform_down_confirmed_pauses_without_attempts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_platform_401_pauses_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
