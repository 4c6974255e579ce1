/*
 * outbox.h - the delivery worker every platform adapter uses.
 *
 * Replies are written to the store's outbox in the same transaction as the
 * command that caused them (the transactional-outbox pattern). A worker
 * claims due rows with a lease, hands each to its adapter's deliver(), and
 * acknowledges the outcome:
 *   - delivered: the row is removed;
 *   - a transient failure: retried after an exponential backoff, and after
 *     max_attempts set aside with one log line; one of the platform's own
 *     (5xx, no answer, no connection) while its probe still answers (an
 *     outage of the sending methods alone) after platform_attempts, some
 *     eleven minutes of backoff;
 *   - the platform asks to wait (429 retry_after, or the adapter's own
 *     pacing): that chat (or, when global, the platform) waits; not an
 *     attempt;
 *   - a permanent failure (of that row: its chat gone, the bot blocked,
 *     the message refused): set aside at once with one log line;
 *   - a failure of the platform as a whole (below): nothing is set aside
 *     or counted; every row waits behind one probe.
 * The store gives a chat's rows out one at a time, its boards before its
 * informational posts and each kind in order, and drops a table edit
 * superseded by a newer one, so a worker never reorders a chat.
 * Each outcome is recorded as soon as its delivery is made (no write lock
 * is held across a platform call), so a killed worker repeats at most the
 * one message it had in hand.
 * A crashed worker's claims expire after lease_ms and are delivered again:
 * delivery is at least once, and adapters make repeats harmless where the
 * platform allows (an edit with the same text is a no-op). A live
 * worker's row is never claimed by another: every platform call of a
 * delivery ends before the row's lease does (adapter_deadline_set()), and
 * while the probe is asked about a failed call the rows in hand are leased
 * for as long as it may take (5 s) and the time to record the outcome. A
 * new message whose request went out and whose answer never came is the
 * adapter's to judge (without a key the platform drops a repeat by, it is
 * set aside in doubt rather than sent again).
 */
#ifndef GB_OUTBOX_H
#define GB_OUTBOX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/adapter.h"

/*
 * A platform that fails as a whole - it cannot be reached, does not answer
 * in time, answers 5xx, or refuses the service's credentials (401) - is
 * down for all its rows, not for the one in hand. The adapter says which
 * failures are the platform's (struct delivery's platform_down and
 * unauthorized, its own errors classified) and the policy is this one,
 * the same for every platform: the first delivery that meets such a
 * failure asks the adapter's probe() at once. When the probe answers, the
 * failure was the row's (an attempt, as any). When it does not - or at
 * once for a 401, which no row can cure and which Discord punishes when
 * repeated - the gate shuts, with one log line saying how many rows wait.
 * The rest of that claim is handed back untried and nothing more is
 * claimed: no row is tried, written or counted an attempt while it is
 * down, however long that lasts. One worker asks probe() instead, after
 * backoff_ms, doubling to probe_max_ms. When a probe is answered the gate
 * opens (one log line, with the rows waiting) and the rows go out in their
 * order, each chat's newest board replacing the ones it overtook, as if
 * nothing had happened. The workers of one outbox share one gate
 * (outbox_new() makes it); a test driving outbox_run_once() may pass its
 * own.
 */
struct outbox_gate {
	pthread_mutex_t lock;
	bool down;                      /* shut: nothing is claimed */
	bool unauthorized;              /* shut for the platform's refusal of the credentials (401) */
	bool probing;                   /* a worker is asking the platform now */
	int failures;                   /* probes failed since it went down */
	int64_t probe_at_ms;            /* when the next probe may go */
	int64_t down_since_ms;
	uint64_t probes;                /* probes made (tests, metrics) */
	uint64_t outages;               /* times it went down */
};

/* An open gate (lock initialised). */
void outbox_gate_init(struct outbox_gate *g);
void outbox_gate_destroy(struct outbox_gate *g);

struct outbox_opts {
	/*
	 * Claim lease (default 30 s). A pass sends a row only while half of
	 * it is left (the rest of a slow pass's claim is handed back), and
	 * every platform call of a delivery ends before the lease does, less
	 * a tenth of it to record the outcome (adapter_deadline_set()):
	 * no other worker can claim a row while a call for it is on its way.
	 */
	int64_t lease_ms;
	int max_attempts;               /* transient failures before a row is set aside (default 8) */
	/*
	 * The same for failures of the platform (platform_down) its probe did
	 * not confirm: a platform whose sends fail while it answers the probe
	 * is having an outage of its own, not refusing the row. Default 18:
	 * 63.5 s of doubling backoff, then ten more a minute apart.
	 */
	int platform_attempts;
	int64_t backoff_ms;             /* first retry delay, doubled per attempt (default 500 ms) */
	int64_t backoff_max_ms;         /* cap of the delay (default 60 s) */
	int64_t poll_ms;                /* idle wait between claims when not woken (default 50 ms) */
	/*
	 * Rows claimed at once, at most (default 32): a worker claims about
	 * what it delivered in a quarter second on its last pass, so rows
	 * paced to a steady stream are not held while newer ones queue.
	 */
	int batch;
	int workers;                    /* delivery threads per adapter (default 2) */
	int64_t linger_ms;              /* after a wake-up, wait this long to claim a fuller batch (default 2 ms) */
	/*
	 * Once *halt is true (outbox_halt() sets the workers' own), a pass
	 * delivers no further row: the rest of its claim is handed back at
	 * once, due now, for the next start or another instance (default
	 * NULL: never).
	 */
	const atomic_bool *halt;
	/*
	 * The platform's gate (above); NULL: none, every row is tried as
	 * any failure (outbox_new() sets its workers' own).
	 */
	struct outbox_gate *gate;
	int64_t probe_max_ms;           /* longest wait between probes of a platform down (default 10 s) */
};

/* Fill o with the defaults. */
void outbox_opts_init(struct outbox_opts *o);

/*
 * One pass: claim what is due for adapter a at now_ms and deliver it with
 * store s. Returns the number of rows handled, or a negative gb_error when
 * the store failed. Used by the worker threads, and by tests driving time.
 */
int outbox_run_once(struct store *s, const struct adapter *a, void *self,
		    const struct outbox_opts *o, int64_t now_ms);

struct outbox;

/*
 * A worker for adapter a's rows, each thread with its own store handle on
 * db; not running until outbox_run() (outbox_wake() is already safe, so an
 * adapter may be given the wake-up before its state exists). *out is owned
 * by the caller: outbox_stop() it.
 */
int outbox_new(struct outbox **out, const struct adapter *a, const char *db,
	       const struct outbox_opts *o);

/* Start the o->workers threads, delivering with the adapter's state self. */
int outbox_run(struct outbox *w, void *self);

/* outbox_new() and outbox_run() in one. */
int outbox_start(struct outbox **out, const struct adapter *a, void *self, const char *db,
		 const struct outbox_opts *o);

/*
 * Is w's platform paused behind its probe (true)? *unauthorized (may be
 * NULL) is true when for a refusal of the service's credentials: /healthz
 * reports that, since only an operator can cure it. False on NULL.
 */
bool outbox_paused(struct outbox *w, bool *unauthorized);

/* Wake the workers now (a command just committed replies). Safe from any thread. */
void outbox_wake(struct outbox *w);

/*
 * Let the workers finish the row in hand (the rest of their claims is
 * handed back, see halt above) and stop them; w stays, and
 * outbox_wake() on it stays safe. Before the adapter's stop(): a worker
 * delivers with the adapter's state. A no-op on NULL.
 */
void outbox_halt(struct outbox *w);

/* outbox_halt(), then free w; a no-op on NULL. */
void outbox_stop(struct outbox *w);

#endif
