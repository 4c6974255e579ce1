/*
 * timers.c - the scheduler's side of the router: due timers (computer
 * turns, idle autoplay, watch-mode rounds) become commands on the same
 * path as any other, the computer's move chosen before the transaction.
 */
#include <string.h>

#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "bot/internal.h"
#include "games/ai/ai.h"

/* A timer that keeps failing is retried this often (with a doubling delay) and then dropped. */
#define TIMER_TRIES 5
#define TIMER_BACKOFF_MS 200
#define TIMER_STORE_RETRY_MS 2000 /* longest wait between tries of a timer the store failed */

/*
 * Choose the computer's move for timer tm before the transaction, so that
 * thinking (up to a second for a hard Bagh Chal move) never holds the
 * store's write lock. The choice is for the table at tm's version: the
 * command carries it, and cmd_timer() uses it only when the table is
 * still at that version (otherwise the timer is stale and does nothing).
 * The reads here take no lock; anything that fails leaves cmd without a
 * choice and cmd_timer() decides as before.
 */
static void prechoose(struct bot *b, const struct store_timer *tm, struct command *cmd)
{
	struct ctx c;
	int turn, level;

	ctx_init(&c, b, cmd);
	if (strcmp(tm->kind, "bot") && strcmp(tm->kind, "idle"))
		goto out;
	if (store_table_get(b->store, tm->table, &c.table) || c.table.version != tm->version ||
	    c.table.status != STORE_PLAYING)
		goto out;
	if (ctx_load_table(&c) || !c.st || ctx_load_seats(&c))
		goto out;
	turn = c.game->turn(c.st);
	if (turn < 0 || turn >= c.nseats)
		goto out;
	level = c.seats[turn].level;
	if (strcmp(tm->kind, "idle") == 0) {
		if (level >= 0)
			goto out;
		level = TIMER_IDLE_LEVEL;
	} else if (level < 0) {
		goto out;
	}
	if (think_choose(c.game, c.st, level, gb_seed_derive(c.table.seed, (uint64_t)c.seq + 1), &cmd->choice))
		goto out;
	cmd->choice.die = 0;
	cmd->has_choice = true;
out:
	ctx_release(&c);
}

/*
 * A timer whose command failed: try again later, and give up after
 * TIMER_TRIES (never for a store failure that passes).
 */
static void timer_failed(struct bot *b, const struct store_timer *tm, const struct command *cmd,
			 int64_t now_ms, int err)
{
	int attempts = 0;
	int64_t delay = (int64_t)TIMER_BACKOFF_MS << (tm->attempts < 10 ? tm->attempts : 10);
	/*
	 * The store failing in a way that clears by itself (locked past its
	 * timeout, disk full) is not the timer's doing: such a timer is tried
	 * again, at most TIMER_STORE_RETRY_MS apart, and never given up (a
	 * computer's turn dropped would leave its table stuck).
	 */
	bool store_fault = err == GB_ESTORE && store_last_error_transient();

	if (store_fault && delay > TIMER_STORE_RETRY_MS)
		delay = TIMER_STORE_RETRY_MS;
	/* replaced meanwhile (the table moved on), or the store itself failing: it stays as it is */
	if (store_timer_retry(b->store, tm->table, tm->kind, tm->version, now_ms + delay, &attempts))
		return;
	if (store_fault || attempts < TIMER_TRIES)
		return;
	store_timer_drop(b->store, tm->table, tm->kind, tm->version);
	gb_log("timer %s of table %lld in chat %s:%s given up after %d tries: %s", tm->kind,
	       (long long)tm->table, cmd->platform, cmd->chat, attempts, gb_strerror(err));
}

int bot_run_timers(struct bot *b, int64_t now_ms, int kinds_mask)
{
	struct store_timer due[16];
	int n = 0, fired = 0, rc;

	if (kinds_mask & BOT_TIMER_MATCH) {
		rc = bot_online_match(b, now_ms);
		if (rc > 0)
			fired += rc;
	}
	rc = store_timer_due(b->store, now_ms, due, 16, &n);
	if (rc)
		return fired ? fired : -rc;
	for (int i = 0; i < n; i++) {
		struct command cmd;
		struct store_table t = { 0 };
		struct store_chat chat = { 0 };
		char labels[48];
		int bit = strcmp(due[i].kind, "bot") == 0    ? BOT_TIMER_BOT
			  : strcmp(due[i].kind, "idle") == 0 ? BOT_TIMER_IDLE
							     : BOT_TIMER_NEXT;

		if (!(bit & kinds_mask))
			continue;
		rc = store_table_get(b->store, due[i].table, &t);
		if (!rc)
			rc = store_chat_get_by_id(b->store, t.chat, &chat);
		if (rc) {
			store_timer_drop(b->store, due[i].table, due[i].kind, due[i].version);
		} else {
			memset(&cmd, 0, sizeof(cmd));
			snprintf(cmd.platform, sizeof(cmd.platform), "%s", chat.platform);
			cmd.internal = true;
			snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat.chat);
			snprintf(cmd.verb, sizeof(cmd.verb), "_timer");
			snprintf(cmd.args, sizeof(cmd.args), "%s %lld %lld", due[i].kind,
				 (long long)due[i].table, (long long)due[i].version);
			cmd.now_ms = now_ms > due[i].due_ms ? now_ms : due[i].due_ms;
			prechoose(b, &due[i], &cmd);
			rc = bot_handle(b, &cmd);
			snprintf(labels, sizeof(labels), "kind=\"%s\"", due[i].kind);
			if (!rc) {
				fired++;
				metrics_inc("gamebot_timers_fired_total", labels, 1);
				if (now_ms - due[i].due_ms > 1000)
					metrics_inc("gamebot_timers_late_total", labels, 1);
			} else if (rc != GB_EDUP) {
				metrics_inc("gamebot_timers_failed_total", labels, 1);
				timer_failed(b, &due[i], &cmd, now_ms, rc);
			}
		}
		store_table_release(&t);
		store_chat_release(&chat);
	}
	return fired;
}
