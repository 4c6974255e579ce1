/*
 * store.c - store.h's functions, dispatched to the database chosen at open.
 *
 * store_open() looks at what it is given: a URL starting with
 * postgres:// or postgresql:// is a PostgreSQL database (store/pg.c), any
 * other text is the path of a SQLite file (store/sqlite.c). Both are built
 * into every binary, so GAMEBOT_DB (config key db) alone chooses. The
 * handle remembers its backend's struct store_ops; every other function
 * here is one call through it, so callers never know which database they
 * talk to. The row release functions belong to no backend and live here.
 */
#include "store/backend.h"
#include "store/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The backends, by the prefix of what store_open() is given; the last
 * row (prefix "") takes everything else.
 */
static const struct {
	const char *prefix;
	const struct store_ops *ops;
} backends[] = {
	{ "postgres://", &store_pg_ops },
	{ "postgresql://", &store_pg_ops },
	{ "", &store_sqlite_ops },
};

/*
 * A NULL handle goes to the embedded backend, which answers it as every
 * backend must (GB_EARGS with outputs zeroed; a no-op where store.h says).
 */
#define OPS(s) ((s) ? (s)->ops : &store_sqlite_ops)
#define B(s) ((s) ? (s)->b : NULL)

int store_open(struct store **out, const char *target)
{
	const struct store_ops *ops = NULL;
	struct store *s = NULL;
	int rc = GB_OK;

	if (!out || !target || !target[0]) {
		rc = GB_EARGS;
		goto out;
	}
	*out = NULL;
	for (size_t i = 0; !ops && i < sizeof backends / sizeof backends[0]; i++)
		if (strncmp(target, backends[i].prefix, strlen(backends[i].prefix)) == 0)
			ops = backends[i].ops;
	s = calloc(1, sizeof *s);
	if (!s) {
		rc = GB_ENOMEM;
		goto out;
	}
	s->ops = ops;
	s->target = strdup(target);
	if (!s->target) {
		rc = GB_ENOMEM;
		goto out;
	}
	rc = ops->open(&s->b, target);
	if (rc)
		goto out;
	*out = s;
	s = NULL;
out:
	store_free(s);
	return rc;
}

void store_free(struct store *s)
{
	if (!s)
		return;
	if (s->b)
		s->ops->close(s->b);
	free(s->target);
	free(s);
}

const char *store_target(const struct store *s)
{
	return s ? s->target : "";
}

/* Every backend that has checkpoints of its own hears it. */
void store_background_checkpoints(int on)
{
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (backends[i].ops->background_checkpoints)
			backends[i].ops->background_checkpoints(on);
}

int store_checkpoint(struct store *s, int *log_pages, int *copied)
{
	return OPS(s)->checkpoint(B(s), log_pages, copied);
}

/* The last failure's message, per thread, and whether it clears by itself. */
static _Thread_local char last_error[200];
static _Thread_local int last_transient;

void store_note_error(const char *message, int transient)
{
	snprintf(last_error, sizeof(last_error), "%s", message ? message : "");
	last_transient = transient;
}

static void (*_Atomic warn_fn)(const char *message);

void store_set_warn(void (*warn)(const char *message))
{
	atomic_store(&warn_fn, warn);
}

void store_warn(const char *message)
{
	void (*warn)(const char *) = atomic_load(&warn_fn);

	if (warn)
		warn(message);
	else
		fprintf(stderr, "gamebot: %s\n", message);
}

const char *store_last_error(void)
{
	return last_error;
}

int store_last_error_transient(void)
{
	return last_transient;
}

/* How long the checkpointer sleeps when no commit wakes it, and at least between two checkpoints. */
#define CHECKPOINT_EVERY_MS 500
#define CHECKPOINT_GAP_MS 20

struct store_checkpointer {
	const struct store_ops *ops;
	struct store *s;               /* the thread's own handle */
	pthread_t thread;
	atomic_bool stop;
};

static void *checkpointer_main(void *arg)
{
	struct store_checkpointer *c = arg;

	while (!atomic_load(&c->stop)) {
		/*
		 * At most one checkpoint every CHECKPOINT_GAP_MS: a log that
		 * cannot start over (a long reader) stays full, and every
		 * commit would wake this thread again.
		 */
		struct timespec gap = { 0, CHECKPOINT_GAP_MS * 1000000L };

		c->ops->checkpoint_wait(CHECKPOINT_EVERY_MS);
		if (!atomic_load(&c->stop))
			store_checkpoint(c->s, NULL, NULL);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

int store_checkpointer_start(const char *target, struct store_checkpointer **out)
{
	struct store_checkpointer *c = NULL;
	int rc;

	*out = NULL;
	store_background_checkpoints(1);
	c = calloc(1, sizeof(*c));
	if (!c)
		return GB_ENOMEM;
	rc = store_open(&c->s, target);
	if (rc)
		goto fail;
	c->ops = c->s->ops;
	if (!c->ops->checkpoint_wait)
		goto fail; /* the database copies its own log: no thread */
	atomic_init(&c->stop, false);
	if (pthread_create(&c->thread, NULL, checkpointer_main, c)) {
		rc = GB_ENOMEM;
		goto fail;
	}
	*out = c;
	return GB_OK;
fail:
	store_free(c->s);
	free(c);
	return rc;
}

void store_checkpointer_stop(struct store_checkpointer *c)
{
	if (!c)
		return;
	atomic_store(&c->stop, true);
	c->ops->checkpoint_wake();
	pthread_join(c->thread, NULL);
	store_free(c->s);
	free(c);
}

int store_one_writer(struct store *s)
{
	return s ? s->ops->one_writer : 0;
}

int store_ping(struct store *s)
{
	return OPS(s)->ping(B(s));
}

int store_schema_version(struct store *s)
{
	return OPS(s)->schema_version(B(s));
}

int store_begin(struct store *s)
{
	return OPS(s)->begin(B(s));
}

int store_read_begin(struct store *s)
{
	if (s && !s->ops->read_begin)
		return GB_OK;
	return OPS(s)->read_begin(B(s));
}

void store_read_end(struct store *s)
{
	if (s && s->ops->read_end)
		s->ops->read_end(s->b);
}

int store_commit(struct store *s)
{
	return OPS(s)->commit(B(s));
}

void store_rollback(struct store *s)
{
	OPS(s)->rollback(B(s));
}

int store_unit_begin(struct store *s)
{
	return OPS(s)->unit_begin(B(s));
}

int store_unit_end(struct store *s, int ok)
{
	return OPS(s)->unit_end(B(s), ok);
}

/* ---- rows ---- */

void store_chat_release(struct store_chat *c)
{
	if (!c)
		return;
	free(c->settings);
	c->settings = NULL;
}

void store_table_release(struct store_table *t)
{
	if (!t)
		return;
	free(t->rules);
	free(t->state);
	t->rules = NULL;
	t->state = NULL;
}

void store_out_release(struct store_out *o)
{
	if (!o)
		return;
	free(o->payload);
	o->payload = NULL;
}

void store_move_release(struct store_move *m)
{
	if (!m)
		return;
	free(m->events);
	m->events = NULL;
}
