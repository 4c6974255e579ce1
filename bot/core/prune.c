/*
 * prune.c - see bot.h (bot_prune_step()). What a year of play leaves
 * behind is pruned a batch at a time, so the database of a service that
 * has run for a year holds what one of a few weeks holds, and is as fast.
 */
#include <stdio.h>

#include "bot/base/metrics.h"
#include "bot/bot.h"

#define DAY_MS (24LL * 3600 * 1000)

/* Tables go with their move logs (a few hundred rows each): fewer a transaction. */
#define TABLE_ROWS 50

static void counted(const char *what, int n)
{
	char labels[32];

	snprintf(labels, sizeof(labels), "what=\"%s\"", what);
	metrics_inc("gamebot_pruned_total", labels, n);
}

int bot_prune_step(struct store *s, const struct bot_prune *p, int64_t now_ms, struct bot_pruned *done)
{
	int batch = p->batch > 0 ? p->batch : 1;
	int tables = batch / TABLE_ROWS > 0 ? batch / TABLE_ROWS : 1;
	int n = 0, rc, more = 0;

	if (p->processed_keep_days > 0) {
		rc = store_processed_prune_some(s, now_ms - p->processed_keep_days * DAY_MS, batch, &n);
		if (rc)
			return -rc;
		done->processed += n;
		counted("processed", n);
		more |= n == batch;
	}
	if (p->verify_keep_days > 0) {
		rc = store_tables_prune(s, now_ms - p->verify_keep_days * DAY_MS, tables, &n);
		if (rc)
			return -rc;
		done->tables += n;
		counted("tables", n);
		more |= n == tables;
	}
	if (p->aside_keep_days > 0) {
		rc = store_out_aside_prune(s, now_ms - p->aside_keep_days * DAY_MS, batch, &n);
		if (rc)
			return -rc;
		done->aside += n;
		counted("set_aside", n);
		more |= n == batch;
	}
	return more;
}
