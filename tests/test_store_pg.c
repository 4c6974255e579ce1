/*
 * test_store_pg.c - what only the PostgreSQL backend (store/pg.c) does: a
 * server, connections, concurrent transactions and migrations.
 *
 * Every test gets a fresh schema in the database GAMEBOT_TEST_PG names
 * (tests/pg.sh starts a throwaway server for make test), reached through
 * search_path in the URL, and drops it afterwards. Without a server every
 * test fails: nothing here is skipped. What every backend promises is in
 * test_store_contract.c.
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/tools/audit.h"
#include "store/store.h"

struct fixture {
	char schema[64];
	char url[1024];   /* the server's URL with search_path set to schema */
	struct store *s;  /* open on url; owned, freed by teardown */
};

static const char *base(void)
{
	const char *b = getenv("GAMEBOT_TEST_PG");

	if (!b || !b[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server to test"
			 " (make test starts one through tests/pg.sh)");
	return b;
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Run sql on target (a URL); 0 when it worked. */
static int raw_exec(const char *target, const char *sql)
{
	PGconn *c = PQconnectdb(target);
	PGresult *res;
	int ok;

	PQsetNoticeProcessor(c, quiet, NULL);
	res = PQexec(c, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	PQclear(res);
	PQfinish(c);
	return ok ? 0 : -1;
}

/* The first column of the first row of sql on target, as an integer. */
static long long raw_int(const char *target, const char *sql)
{
	PGconn *c = PQconnectdb(target);
	PGresult *res = PQexec(c, sql);
	long long v;

	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	assert_int_equal(PQntuples(res), 1);
	v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	PQfinish(c);
	return v;
}

/*
 * Wait, at most 10 s, until sql on target gives want (polling every
 * 2 ms): the event a test waits for instead of sleeping. The last answer.
 */
static long long wait_int(const char *target, const char *sql, long long want)
{
	long long v = raw_int(target, sql);

	for (int i = 0; i < 5000 && v != want; i++) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
		v = raw_int(target, sql);
	}
	return v;
}

/*
 * Wait until n transactions of this fixture (its connections are named
 * after its schema, as target's is) wait for a lock another holds; other
 * suites' transactions on the same server are not counted.
 */
static void wait_lock_waiters(const char *target, int n)
{
	assert_int_equal(wait_int(target, "SELECT count(*) FROM pg_stat_activity WHERE"
				  " datname = current_database() AND wait_event_type = 'Lock'"
				  " AND application_name = current_setting('application_name')", n), n);
}

/* A fresh schema and its URL, without opening the store. */
static int setup_empty(void **state)
{
	static int counter;
	struct fixture *f = calloc(1, sizeof *f);
	const char *b = base();
	char sql[256];

	assert_non_null(f);
	snprintf(f->schema, sizeof f->schema, "pgtest_%ld_%d", (long)getpid(), counter++);
	snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", f->schema,
		 f->schema);
	assert_int_equal(raw_exec(b, sql), 0);
	/* named after its schema, so that dropping its connections drops no other suite's */
	snprintf(f->url, sizeof f->url, "%s%soptions=-csearch_path%%3D%s&application_name=%s", b,
		 strchr(b, '?') ? "&" : "?", f->schema, f->schema);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	struct fixture *f;

	setup_empty(state);
	f = *state;
	assert_int_equal(store_open(&f->s, f->url), GB_OK);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char sql[128];

	store_free(f->s);
	snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", f->schema);
	raw_exec(base(), sql);
	free(f);
	return 0;
}

static int64_t make_table(struct store *s, const char *chat_name)
{
	struct store_chat c;
	struct store_table t;

	assert_int_equal(store_chat_get(s, "telegram", chat_name, "en", &c), GB_OK);
	memset(&t, 0, sizeof t);
	t.chat = c.id;
	snprintf(t.game, sizeof t.game, "ludo");
	t.rules = "{}";
	assert_int_equal(store_table_insert(s, &t), GB_OK);
	store_chat_release(&c);
	return t.id;
}

/* ---- opening ---- */

static void test_unreachable_server_and_bad_url(void **state)
{
	struct store *s = NULL;

	(void)state;
	/* nothing listens on port 1; a socket folder that is not there */
	assert_int_equal(store_open(&s, "postgresql://nobody@127.0.0.1:1/x?connect_timeout=2"), GB_ESTORE);
	assert_null(s);
	/* the log line says why, and that it may clear by itself */
	assert_non_null(strstr(store_last_error(), "127.0.0.1"));
	assert_null(strchr(store_last_error(), '\n'));
	assert_int_equal(store_last_error_transient(), 1);
	assert_int_equal(store_open(&s, "postgres:///x?host=/nonexistent-gamebot"), GB_ESTORE);
	assert_int_equal(store_open(&s, "postgresql://[not a url"), GB_ESTORE);
	assert_null(s);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	struct store *s = NULL;

	assert_int_equal(store_schema_version(f->s), 11);
	assert_int_equal(raw_exec(f->url, "UPDATE gamebot_schema SET version = 999"), 0);
	assert_int_equal(store_open(&s, f->url), GB_ESTORE);
	assert_null(s);
	assert_int_equal(store_schema_version(f->s), 999);
}

struct opener {
	const char *url;
	int rc;
	int version;
};

static void *open_one(void *arg)
{
	struct opener *o = arg;
	struct store *s = NULL;

	o->rc = store_open(&s, o->url);
	o->version = store_schema_version(s);
	store_free(s);
	return NULL;
}

/* Instances starting together on an empty schema: one migrates, the others wait and find it done. */
static void test_many_open_at_once_migrate_once(void **state)
{
	struct fixture *f = *state;
	struct opener o[6];
	pthread_t th[6];

	for (int i = 0; i < 6; i++) {
		o[i] = (struct opener){ .url = f->url, .rc = -1 };
		assert_int_equal(pthread_create(&th[i], NULL, open_one, &o[i]), 0);
	}
	for (int i = 0; i < 6; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(o[i].rc, GB_OK);
		assert_int_equal(o[i].version, 11);
	}
	assert_int_equal(raw_int(f->url, "SELECT count(*) FROM gamebot_schema"), 1);
	assert_int_equal(store_open(&f->s, f->url), GB_OK);
}

/* ---- connections ---- */

/*
 * The server drops the store's connections (a restart, a failover, an
 * admin): those of this fixture only, named by its schema, as other
 * suites may be using the same server at the same time.
 */
static void drop_connections(const struct fixture *f)
{
	char sql[512];

	/* each waits (at most 10 s) for its connection's process to end */
	snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
		 " WHERE pid <> pg_backend_pid() AND datname = current_database()"
		 " AND application_name = '%s' AND backend_type = 'client backend'", f->schema);
	assert_int_equal(raw_exec(f->url, sql), 0);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity"
		 " WHERE pid <> pg_backend_pid() AND datname = current_database()"
		 " AND application_name = '%s' AND backend_type = 'client backend'", f->schema);
	assert_int_equal(wait_int(f->url, sql, 0), 0);
}

static void test_lost_connection(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	int64_t id = make_table(f->s, "c1");
	struct store_table t;

	/* outside a transaction: the next call connects again */
	drop_connections(f);
	assert_int_equal(store_chat_get(f->s, "telegram", "c2", "en", &c), GB_OK);
	store_chat_release(&c);
	assert_int_equal(store_ping(f->s), GB_OK);

	/* inside one: its work is gone, so the transaction fails as a whole */
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	t.status = STORE_PLAYING;
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	drop_connections(f);
	assert_int_equal(store_mark_processed(f->s, "telegram", "u1"), GB_ESTORE);
	assert_int_equal(store_commit(f->s), GB_ESTORE);
	store_rollback(f->s);
	store_table_release(&t);
	/* nothing of it was kept, and the handle works again */
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(t.status, STORE_LOBBY);
	assert_int_equal(t.version, 1);
	store_table_release(&t);
	assert_int_equal(store_was_processed(f->s, "telegram", "u1"), GB_OK);
}

/* An unexpected failure aborts PostgreSQL's transaction: the commit refuses, nothing is kept. */
static void test_failed_statement_fails_the_commit(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "c1");
	struct store_table t;
	int moves = -1;

	assert_int_equal(raw_exec(f->url,
		"CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
		"  $$BEGIN RAISE EXCEPTION 'boom'; END$$;"
		"CREATE TRIGGER boom_table BEFORE UPDATE ON tables FOR EACH ROW"
		"  WHEN (NEW.state = 'boom') EXECUTE FUNCTION boom();"), 0);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 1, "0", "roll", NULL), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	t.state = strdup("boom");
	assert_int_equal(store_table_update(f->s, &t), GB_ESTORE);
	/* what the server said, with its SQLSTATE (P0001: raised by a function), is not transient */
	assert_non_null(strstr(store_last_error(), "boom"));
	assert_non_null(strstr(store_last_error(), "(PostgreSQL P0001)"));
	assert_int_equal(store_last_error_transient(), 0);
	assert_int_equal(store_commit(f->s), GB_ESTORE);
	store_rollback(f->s);
	store_table_release(&t);
	assert_int_equal(store_move_count(f->s, id, &moves), GB_OK);
	assert_int_equal(moves, 0);
}

/* A unit undone clears a failed statement's abort: the units after it and the commit go on. */
static void test_failed_unit_leaves_the_others(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "c1");
	struct store_table t;
	int moves = -1;

	assert_int_equal(raw_exec(f->url,
		"CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
		"  $$BEGIN RAISE EXCEPTION 'boom'; END$$;"
		"CREATE TRIGGER boom_table BEFORE UPDATE ON tables FOR EACH ROW"
		"  WHEN (NEW.state = 'boom') EXECUTE FUNCTION boom();"), 0);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 1, "0", "roll", NULL), GB_OK);
	assert_int_equal(store_unit_end(f->s, 1), GB_OK);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	t.state = strdup("boom");
	assert_int_equal(store_table_update(f->s, &t), GB_ESTORE);
	assert_int_equal(store_unit_end(f->s, 0), GB_OK);
	store_table_release(&t);
	/* a unit said ok whose statement failed is not kept */
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	t.state = strdup("boom");
	assert_int_equal(store_table_update(f->s, &t), GB_ESTORE);
	assert_int_equal(store_unit_end(f->s, 1), GB_ESTORE);
	store_table_release(&t);
	assert_int_equal(store_unit_begin(f->s), GB_OK);
	assert_int_equal(store_move_append(f->s, id, 2, "1", "roll", NULL), GB_OK);
	assert_int_equal(store_unit_end(f->s, 1), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(store_move_count(f->s, id, &moves), GB_OK);
	assert_int_equal(moves, 2);
}

/* ---- concurrent transactions ---- */

struct writer {
	const char *url;
	int64_t table;
	int64_t version;
	int rc;
};

/* Update table at version in a transaction of its own handle; rc = the update's answer. */
static void *cas_writer(void *arg)
{
	struct writer *w = arg;
	struct store *s = NULL;
	struct store_table t;

	w->rc = -1;
	if (store_open(&s, w->url) != GB_OK || store_table_get(s, w->table, &t) != GB_OK)
		goto out;
	t.version = w->version;
	t.status = STORE_PLAYING;
	store_begin(s);
	w->rc = store_table_update(s, &t);
	if (!w->rc)
		w->rc = store_commit(s);
	else
		store_rollback(s);
	store_table_release(&t);
out:
	store_free(s);
	return NULL;
}

/* Two writers of one version at once: the second waits, then loses. */
static void test_concurrent_compare_and_swap(void **state)
{
	struct fixture *f = *state;
	int64_t id = make_table(f->s, "c1");
	struct writer w = { .url = f->url, .table = id, .version = 1 };
	struct store_table t;
	pthread_t th;

	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	assert_int_equal(pthread_create(&th, NULL, cas_writer, &w), 0);
	wait_lock_waiters(f->url, 1); /* the other is now waiting on the row */
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.rc, GB_ECONFLICT);
	store_table_release(&t);
	assert_int_equal(store_table_get(f->s, id, &t), GB_OK);
	assert_int_equal(t.version, 2);
	assert_int_equal(t.status, STORE_LOBBY);
	store_table_release(&t);
}

struct crosser {
	const char *url;
	int64_t first, second;
	pthread_barrier_t *both_hold_one;
	int rc;
};

/* Update first, wait for the other to hold its row, then update second. */
static void *cross_writer(void *arg)
{
	struct crosser *x = arg;
	struct store *s = NULL;
	struct store_table a = { 0 }, b = { 0 };

	x->rc = -1;
	if (store_open(&s, x->url) != GB_OK || store_table_get(s, x->first, &a) != GB_OK ||
	    store_table_get(s, x->second, &b) != GB_OK)
		goto out;
	store_begin(s);
	x->rc = store_table_update(s, &a);
	pthread_barrier_wait(x->both_hold_one);
	if (!x->rc)
		x->rc = store_table_update(s, &b);
	if (!x->rc)
		x->rc = store_commit(s);
	else
		store_rollback(s);
out:
	store_table_release(&a);
	store_table_release(&b);
	store_free(s);
	return NULL;
}

/* A deadlock the server breaks is GB_ECONFLICT for its victim, who runs again; the other commits. */
static void test_deadlock_is_a_conflict(void **state)
{
	struct fixture *f = *state;
	int64_t t1 = make_table(f->s, "c1"), t2 = make_table(f->s, "c2");
	pthread_barrier_t bar;
	struct crosser x[2] = {
		{ .url = f->url, .first = t1, .second = t2, .both_hold_one = &bar },
		{ .url = f->url, .first = t2, .second = t1, .both_hold_one = &bar },
	};
	pthread_t th[2];

	pthread_barrier_init(&bar, NULL, 2);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, cross_writer, &x[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&bar);
	assert_true((x[0].rc == GB_OK && x[1].rc == GB_ECONFLICT) ||
		    (x[0].rc == GB_ECONFLICT && x[1].rc == GB_OK));
}

struct reader {
	const char *url;
	int64_t chat;
	char settings[64];
	int rc;
};

/* Read the chat by id inside a transaction (what the router does before saving it). */
static void *chat_reader(void *arg)
{
	struct reader *r = arg;
	struct store *s = NULL;
	struct store_chat c = { 0 };

	r->rc = -1;
	if (store_open(&s, r->url) != GB_OK)
		goto out;
	store_begin(s);
	r->rc = store_chat_get_by_id(s, r->chat, &c);
	snprintf(r->settings, sizeof r->settings, "%s", c.settings ? c.settings : "");
	store_rollback(s);
out:
	store_chat_release(&c);
	store_free(s);
	return NULL;
}

/*
 * Settings carry no version: a transaction that read a chat holds it
 * until it ends, so a check of "unchanged" and the save are one step.
 */
static void test_chat_read_in_a_transaction_holds_it(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	struct reader r = { .url = f->url };
	pthread_t th;

	assert_int_equal(store_chat_get(f->s, "telegram", "c1", "en", &c), GB_OK);
	r.chat = c.id;
	store_chat_release(&c);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_chat_get_by_id(f->s, r.chat, &c), GB_OK);
	assert_int_equal(pthread_create(&th, NULL, chat_reader, &r), 0);
	wait_lock_waiters(f->url, 1); /* the reader waits for the chat's row */
	free(c.settings);
	c.settings = strdup("{\"x\":1}");
	assert_int_equal(store_chat_save(f->s, &c), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.rc, GB_OK);
	/* it waited, and read what was saved */
	assert_string_equal(r.settings, "{\"x\":1}");
	store_chat_release(&c);
}

struct adder {
	const char *url;
	int rc;
};

static void *add_b(void *arg)
{
	struct adder *a = arg;
	struct store *s = NULL;

	a->rc = store_open(&s, a->url);
	if (!a->rc)
		a->rc = store_out_add(s, "telegram", "c1", 0, NULL, "{\"n\":\"b\"}", 0);
	store_free(s);
	return NULL;
}

/*
 * A chat's rows are numbered in commit order: a row queued while another
 * transaction holds an earlier row of the chat waits for it, so a worker
 * never sends the later one first.
 */
static void test_outbox_rows_follow_commit_order(void **state)
{
	struct fixture *f = *state;
	struct store *worker = NULL;
	struct adder a = { .url = f->url, .rc = -1 };
	struct store_out o[4];
	pthread_t th;
	int n = -1;

	assert_int_equal(store_open(&worker, f->url), GB_OK);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_out_add(f->s, "telegram", "c1", 0, NULL, "{\"n\":\"a\"}", 0), GB_OK);
	assert_int_equal(pthread_create(&th, NULL, add_b, &a), 0);
	wait_lock_waiters(f->url, 1);
	/* "b" is not there yet: it waits for "a" */
	assert_int_equal(store_out_claim(worker, "telegram", 10, 1000, o, 4, &n), GB_OK);
	assert_int_equal(n, 0);
	/* another chat is not held up */
	assert_int_equal(store_out_add(worker, "telegram", "c2", 0, NULL, "{\"n\":0}", 0), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(a.rc, GB_OK);
	assert_int_equal(store_out_claim(worker, "telegram", 10, 1000, o, 4, &n), GB_OK);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		if (!strcmp(o[i].chat, "c1"))
			assert_string_equal(o[i].payload, "{\"n\":\"a\"}");
		store_out_release(&o[i]);
	}
	store_free(worker);
}

/*
 * An adapter answering a command in place reads the chat's rows in a
 * transaction and takes them: meanwhile no worker claims them.
 */
static void test_outbox_chat_rows_held_in_a_transaction(void **state)
{
	struct fixture *f = *state;
	struct store *worker = NULL;
	struct store_out o[4];
	int n = -1;

	assert_int_equal(store_open(&worker, f->url), GB_OK);
	assert_int_equal(store_out_add(f->s, "discord", "c1", 0, NULL, "{\"n\":1}", 0), GB_OK);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_out_chat(f->s, "discord", "c1", o, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_out_claim(worker, "discord", 10, 1000, o + 1, 3, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_out_done(f->s, o[0].id), GB_OK);
	assert_int_equal(store_commit(f->s), GB_OK);
	store_out_release(&o[0]);
	assert_int_equal(store_out_claim(worker, "discord", 10, 1000, o, 4, &n), GB_OK);
	assert_int_equal(n, 0);
	store_free(worker);
}

/* ---- coins: what the ledger refuses when two handles decide at once ---- */

struct mover {
	const char *url;
	int64_t chat;
	const char *from, *to, *reason;
	int64_t amount;
	int rc;
};

/* One movement in a transaction of its own handle; rc = the movement's answer. */
static void *coin_mover(void *arg)
{
	struct mover *m = arg;
	struct store *s = NULL;
	struct store_coin_move mv = { .amount = m->amount, .at_ms = 7 };

	m->rc = -1;
	if (store_open(&s, m->url) != GB_OK)
		goto out;
	snprintf(mv.from, sizeof mv.from, "%s", m->from);
	snprintf(mv.to, sizeof mv.to, "%s", m->to);
	snprintf(mv.reason, sizeof mv.reason, "%s", m->reason);
	store_begin(s);
	m->rc = store_coins_move(s, m->chat, &mv);
	if (!m->rc)
		m->rc = store_commit(s);
	else
		store_rollback(s);
out:
	store_free(s);
	return NULL;
}

/* `gamebot audit --db url`: the ledger must be sound. */
static void audit_sound(const char *url)
{
	char *argv[] = { "audit", "--db", (char *)url, NULL };

	assert_int_equal(audit_main(3, argv, "", stdout, stderr), 0);
}

/*
 * A movement in this handle's open transaction while another handle makes
 * the same kind of movement: the other waits for this one (a lock on the
 * index entry or the balance row), then is refused as a conflict.
 */
static void race_one(struct fixture *f, int64_t chat, struct mover *m)
{
	struct store_coin_move mv = { .amount = m->amount, .at_ms = 6 };
	pthread_t th;

	snprintf(mv.from, sizeof mv.from, "%s", m->from);
	snprintf(mv.to, sizeof mv.to, "%s", m->to);
	snprintf(mv.reason, sizeof mv.reason, "%s", m->reason);
	assert_int_equal(store_begin(f->s), GB_OK);
	assert_int_equal(store_coins_move(f->s, chat, &mv), GB_OK);
	assert_int_equal(pthread_create(&th, NULL, coin_mover, m), 0);
	wait_lock_waiters(f->url, 1);
	assert_int_equal(store_commit(f->s), GB_OK);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(m->rc, GB_ECONFLICT);
}

/*
 * Two handles give one new wallet its starting grant at once: the second
 * waits for the first and is refused. Two handles take a stake each from
 * a wallet that covers one: the second waits on the balance and is
 * refused. The wallet holds one grant, then one stake's worth less.
 */
static void test_coins_two_handles(void **state)
{
	struct fixture *f = *state;
	struct store_chat c;
	struct store_table t;
	char pot[32];
	int64_t coins = 0, table = make_table(f->s, "coins");
	int rows = 0;

	/* a table being played: its pot may hold the stakes */
	assert_int_equal(store_table_get(f->s, table, &t), GB_OK);
	t.status = STORE_PLAYING;
	assert_int_equal(store_table_update(f->s, &t), GB_OK);
	store_table_release(&t);
	snprintf(pot, sizeof pot, "pot:%lld", (long long)table);
	assert_int_equal(store_chat_get(f->s, "telegram", "coins", "en", &c), GB_OK);
	{
		struct mover m = { .url = f->url, .chat = c.id, .from = "bank", .to = "user:1", .reason = "start",
				   .amount = 1000 };

		race_one(f, c.id, &m);
	}
	assert_int_equal(store_coins_balance(f->s, c.id, "user:1", &coins, &rows), GB_OK);
	assert_int_equal(coins, 1000);
	assert_int_equal(rows, 1);
	{
		struct mover m = { .url = f->url, .chat = c.id, .from = "user:1", .to = pot, .reason = "stake",
				   .amount = 600 };

		race_one(f, c.id, &m);
	}
	assert_int_equal(store_coins_balance(f->s, c.id, "user:1", &coins, &rows), GB_OK);
	assert_int_equal(coins, 400);
	assert_int_equal(rows, 2);
	store_chat_release(&c);
	audit_sound(f->url);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unreachable_server_and_bad_url),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_open_at_once_migrate_once, setup_empty, teardown),
		cmocka_unit_test_setup_teardown(test_lost_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_statement_fails_the_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_unit_leaves_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_compare_and_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadlock_is_a_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chat_read_in_a_transaction_holds_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_rows_follow_commit_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_chat_rows_held_in_a_transaction, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_coins_two_handles, setup, teardown),
	};

	return cmocka_run_group_tests_name("store: postgresql", tests, NULL, NULL);
}
