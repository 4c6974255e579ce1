/*
 * requeue.c - `gamebot requeue` (requeue.h): store_out_requeue() for an
 * operator, against the database a service is running on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "requeue.h"
#include "tool_store.h"

#define MAX_MINUTES (7 * 24 * 60)   /* a week: rows set aside are kept for days, not longer */

/* Milliseconds since the epoch: the outbox's clock. */
static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char usage[] =
	"usage: gamebot requeue [--db PATH-or-postgresql-URL] [--platform NAME] [--within MINUTES]\n";

int requeue_main(int argc, char **argv, const char *db, FILE *out, FILE *err)
{
	struct store *s = NULL;
	const char *platform = NULL;
	long minutes = 60;
	int n = 0, rc, status = 2;

	for (int i = 1; i < argc; i++) {
		char *end = NULL;

		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			db = argv[++i];
		} else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) {
			platform = argv[++i];
		} else if (strcmp(argv[i], "--within") == 0 && i + 1 < argc) {
			minutes = strtol(argv[++i], &end, 10);
			if (!*argv[i] || *end || minutes < 1 || minutes > MAX_MINUTES) {
				fprintf(err, "gamebot requeue: --within takes minutes, 1 to %d\n", MAX_MINUTES);
				goto out;
			}
		} else {
			fputs(usage, err);
			goto out;
		}
	}
	s = tool_store_open("requeue", db, err);
	if (!s)
		goto out;
	rc = store_out_requeue(s, platform, (int64_t)minutes * 60000, wall_ms(), &n);
	if (rc == GB_EARGS) {
		fprintf(err, "gamebot requeue: no platform called '%s'\n", platform ? platform : "");
		goto out;
	}
	if (rc) {
		fprintf(err, "gamebot requeue: the store failed: %s\n", gb_strerror(rc));
		goto out;
	}
	fprintf(out, "%d repl%s set aside in the last %ld minute%s queued again%s%s\n", n, n == 1 ? "y" : "ies",
		minutes, minutes == 1 ? "" : "s", platform ? " for " : "", platform ? platform : "");
	status = 0;
out:
	store_free(s);
	return status;
}
