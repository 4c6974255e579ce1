/*
 * command.c - `make bench` rows: the mean time of one typical command's
 * transaction in the store, on SQLite and on PostgreSQL.
 *
 * A typical command (a move at a table) is one transaction: the update
 * marked processed, the chat and its open table read, the table written
 * back with a 2 KiB state, a move appended, a board queued and the idle
 * timer set, then the commit. The rows run it RUNS times (default 2000,
 * GAMEBOT_STORE_BENCH=N changes it) on one handle: on a fresh SQLite file
 * in a temporary folder, then on a fresh schema in the PostgreSQL server
 * GAMEBOT_TEST_PG names (tests/bench.sh starts one, syncing to its disk).
 *
 * Target: a mean under 5 ms on both (the goal is well under 1-2 ms).
 *
 *   command
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "tests/bench/bench.h"
#include "tests/fixture.h"

#define TARGET_MS 5.0

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Run sql on the server as it is; 0 or -1. */
static int pg_admin(const char *base, const char *sql)
{
	PGconn *c = PQconnectdb(base);
	PGresult *res;
	int ok;

	PQsetNoticeProcessor(c, quiet, NULL);
	res = PQexec(c, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	PQclear(res);
	PQfinish(c);
	return ok ? 0 : -1;
}

/* A chat with an open table on s; the table's id, 0 when the store refused. */
static int64_t make_table(struct store *s)
{
	struct store_chat c;
	struct store_table t;

	if (store_chat_get(s, "telegram", "bench", "en", &c))
		return 0;
	memset(&t, 0, sizeof t);
	t.chat = c.id;
	snprintf(t.game, sizeof t.game, "ludo");
	t.seed = 7;
	snprintf(t.creator, sizeof t.creator, "u1");
	t.rules = "{}";
	store_chat_release(&c);
	return store_table_insert(s, &t) ? 0 : t.id;
}

/* One command's transaction, the i-th; GB_OK or the first refusal. */
static int command(struct store *s, int64_t table, long i, const char *state)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_timer tm = { .table = table, .kind = "idle", .due_ms = i + 60000 };
	char update[32];
	int rc;

	snprintf(update, sizeof update, "%ld", 5000000 + i);
	rc = store_begin(s);
	if (!rc)
		rc = store_mark_processed(s, "telegram", update);
	if (!rc)
		rc = store_chat_get(s, "telegram", "bench", "en", &c);
	if (!rc)
		rc = store_table_open_get(s, c.id, &t);
	if (!rc) {
		free(t.state);
		t.state = strdup(state);
		t.status = STORE_PLAYING;
		rc = store_table_update(s, &t);
	}
	if (!rc)
		rc = store_move_append(s, table, (int)i + 1, "u1", "move 2", "[\"move 2\",\"capture 1\"]");
	if (!rc)
		rc = store_out_add(s, "telegram", "bench", 0, NULL,
				   "{\"edit\":\"m-1\",\"text\":\"<pre>board</pre>\"}", i);
	tm.version = t.version;
	if (!rc)
		rc = store_timer_set(s, &tm);
	if (!rc)
		rc = store_commit(s);
	else
		store_rollback(s);
	store_table_release(&t);
	store_chat_release(&c);
	return rc;
}

/* The row of target: mean ms per command, or -1 when a command failed (said). */
static double row(const char *label, const char *target, long runs)
{
	struct store *s = NULL;
	char state[2048];
	int64_t table, start;
	int rc = store_open(&s, target);
	long i = 0;

	memset(state, 'x', sizeof state - 1);
	state[0] = '"';
	state[sizeof state - 2] = '"';
	state[sizeof state - 1] = '\0';
	table = rc ? 0 : make_table(s);
	start = mono_us();
	for (; table && i < runs && !rc; i++)
		rc = command(s, table, i, state);
	if (!table || rc) {
		printf("command    %-10s a command failed after %ld (%s): target NOT MET\n", label, i,
		       store_last_error());
		store_free(s);
		return -1;
	}
	store_free(s);
	return (double)(mono_us() - start) / 1000.0 / (double)runs;
}

static void report(const char *label, double ms, long runs)
{
	if (ms < 0)
		return;
	printf("command    %-10s typical command transaction %.3f ms mean over %ld (target < %.0f ms) %s\n",
	       label, ms, runs, TARGET_MS, ms < TARGET_MS ? "met" : "NOT MET");
}

int main(void)
{
	const char *env = getenv("GAMEBOT_STORE_BENCH");
	const char *base = getenv("GAMEBOT_TEST_PG");
	long runs = env ? strtol(env, NULL, 10) : 2000;
	char dir[64], target[1100];
	double ms;

	if (runs <= 0)
		runs = 2000;
	if (fixture_dir(dir, sizeof(dir), "bench-command")) {
		fprintf(stderr, "command: cannot make a folder\n");
		return 1;
	}
	snprintf(target, sizeof target, "%s/gamebot.db", dir);
	report("sqlite", row("sqlite", target, runs), runs);
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (!base || !base[0] ||
	    pg_admin(base, "DROP SCHEMA IF EXISTS bench_command CASCADE; CREATE SCHEMA bench_command")) {
		printf("command    postgresql no server (GAMEBOT_TEST_PG), target NOT MET\n");
		return 0;
	}
	snprintf(target, sizeof target, "%s%soptions=-csearch_path%%3Dbench_command", base,
		 strchr(base, '?') ? "&" : "?");
	ms = row("postgresql", target, runs);
	report("postgresql", ms, runs);
	pg_admin(base, "DROP SCHEMA bench_command CASCADE");
	return 0;
}
