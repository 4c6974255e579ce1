/*
 * store.c - store.h's functions, dispatched to the database chosen at open.
 *
 * store_open() looks at what it is given: a URL starting with
 * postgres:// or postgresql:// is a PostgreSQL database (store/pg.c), any
 * other text is the path of a SQLite file (store/sqlite.c). Both are built
 * into every binary, so GAMEBOT_DB (config key db) alone chooses. The
 * handle remembers its backend's struct store_ops; the functions here
 * that open, close, check and checkpoint a handle and run its
 * transactions are one call through it, so callers never know which
 * database they talk to. The operations on rows are in store/ops.c and
 * its siblings.
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
	return s ? s->ops->checkpoint(s->b, log_pages, copied) : GB_EARGS;
}

/* The counts of every backend that keeps pages in the process (each once, however many prefixes it has). */
void store_page_cache(uint64_t *hits, uint64_t *misses)
{
	*hits = *misses = 0;
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
		uint64_t h = 0, m = 0;

		if (!backends[i].ops->page_cache || (i > 0 && backends[i - 1].ops == backends[i].ops))
			continue;
		backends[i].ops->page_cache(&h, &m);
		*hits += h;
		*misses += m;
	}
}

/* The last failure's message, per thread, and whether it clears by itself. */
static _Thread_local char last_error[200];
static _Thread_local int last_transient;

void store_note_error(const char *message, int transient)
{
	snprintf(last_error, sizeof(last_error), "%s", message ? message : "");
	last_transient = transient;
}

int store_migrate(struct store_backend *b, const char *const *migrations, int latest,
		  int (*version)(struct store_backend *b, int *v),
		  int (*apply)(struct store_backend *b, const char *sql))
{
	int v = 0;
	int rc = version(b, &v);

	if (rc)
		return rc;
	if (v < 0 || v > latest)
		return GB_ESTORE;
	for (; v < latest; v++) {
		int now = 0;

		rc = apply(b, migrations[v]);
		if (!rc)
			rc = version(b, &now);
		if (!rc && now != v + 1)
			rc = GB_ESTORE;
		if (rc)
			return rc;
	}
	return GB_OK;
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
	return s ? s->ops->ping(s->b) : GB_EARGS;
}

/* The version, or -1 when s is NULL or the database cannot be read. */
int store_schema_version(struct store *s)
{
	return s ? s->ops->schema_version(s->b) : -1;
}

int store_begin(struct store *s)
{
	return s ? s->ops->begin(s->b) : GB_EARGS;
}

/* A database whose reads need no snapshot of their own has no read_begin: nothing to do. */
int store_read_begin(struct store *s)
{
	if (!s)
		return GB_EARGS;
	return s->ops->read_begin ? s->ops->read_begin(s->b) : GB_OK;
}

void store_read_end(struct store *s)
{
	if (s && s->ops->read_end)
		s->ops->read_end(s->b);
}

int store_commit(struct store *s)
{
	return s ? s->ops->commit(s->b) : GB_EARGS;
}

void store_rollback(struct store *s)
{
	if (s)
		s->ops->rollback(s->b);
}

int store_unit_begin(struct store *s)
{
	return s ? s->ops->unit_begin(s->b) : GB_EARGS;
}

int store_unit_end(struct store *s, int ok)
{
	return s ? s->ops->unit_end(s->b, ok) : GB_EARGS;
}
