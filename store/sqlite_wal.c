/*
 * sqlite_wal.c - the SQLite backend's write-ahead log (store/sqlite_wal.h):
 * one writer at a time per process, and the checkpoints that copy the log
 * back into the database from a background thread rather than inside a
 * commit.
 */
#include "store/sqlite_wal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/*
 * Writers of one process queue on a mutex before SQLite's own lock. SQLite
 * makes a writer that finds the database locked sleep and poll (1, 2, 5,
 * 10 ms ...), so threads of one process handing the write lock to each
 * other would spend most of their time asleep; a mutex wakes the next one
 * the moment the last one commits. Other processes still meet SQLite's
 * lock and its busy timeout. Recursive, so one thread holding a
 * transaction on one handle and trying another handle meets SQLite's
 * busy answer as before instead of waiting on itself.
 */
static pthread_mutex_t writer_lock;

/*
 * Checkpoints: by default SQLite copies the write-ahead log back into the
 * database inside whichever commit makes the log pass 1,000 pages, and
 * that commit (with every writer queued behind it) waits for the copy.
 * A service turns this off for the handles it opens from then on and
 * calls store_checkpoint() from a background thread instead.
 */
static atomic_int background_checkpoints;
static pthread_once_t writer_once = PTHREAD_ONCE_INIT;

/*
 * The log is worth copying back once it holds this many pages (4 KiB
 * each): every commit of a handle with background checkpoints tells the
 * checkpointer (store_checkpointer_start()) when it is, so under load the
 * log is copied as often as it fills rather than on a fixed clock.
 */
#define CHECKPOINT_PAGES 2000

/*
 * How long a checkpoint that restarts the log waits for readers still in
 * its old part (this process's writers wait as long): a command's reads
 * take a few milliseconds. A reader that stays longer (a backup, a person
 * at the sqlite3 shell) makes it give up, and the checkpointer then
 * sleeps RESTART_PAUSE_MS before its next try, so writers are never held
 * up for long.
 */
#define RESTART_WAIT_MS 20
#define RESTART_PAUSE_MS 2000

static pthread_mutex_t checkpoint_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t checkpoint_cond = PTHREAD_COND_INITIALIZER;
static int checkpoint_wanted;
static int restart_refused;      /* a reader made the last restart give up */
static unsigned wake_calls;      /* sq_checkpoint_wake()s so far */

static void writer_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&writer_lock, &a);
	pthread_mutexattr_destroy(&a);
}

void sq_writer_acquire(int *locked)
{
	pthread_once(&writer_once, writer_init);
	pthread_mutex_lock(&writer_lock);
	(*locked)++;
}

void sq_writer_release(int *locked)
{
	if (!*locked)
		return;
	(*locked)--;
	pthread_mutex_unlock(&writer_lock);
}

void sq_background_checkpoints(int on)
{
	atomic_store(&background_checkpoints, on);
}

int sq_background_on(void)
{
	return atomic_load(&background_checkpoints);
}

int sq_log_grew(void *arg, sqlite3 *db, const char *name, int pages)
{
	(void)arg;
	(void)db;
	(void)name;
	if (pages >= CHECKPOINT_PAGES && !__atomic_load_n(&checkpoint_wanted, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&checkpoint_lock);
		checkpoint_wanted = 1;
		pthread_cond_signal(&checkpoint_cond);
		pthread_mutex_unlock(&checkpoint_lock);
	}
	return SQLITE_OK;
}

/* *until = ms from now on the realtime clock, for pthread_cond_timedwait(). */
static void deadline_in(struct timespec *until, int ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

/*
 * Until a commit has filled the log (1), timeout_ms passes or
 * sq_checkpoint_wake() is called (0); after a refused restart, until
 * RESTART_PAUSE_MS passes or a wake-up.
 */
int sq_checkpoint_wait(int timeout_ms)
{
	struct timespec until;
	int wanted;

	pthread_mutex_lock(&checkpoint_lock);
	if (restart_refused) {
		/* a long reader refused the last restart: leave the writers be for a while */
		unsigned calls = wake_calls;

		restart_refused = 0;
		deadline_in(&until, RESTART_PAUSE_MS);
		while (calls == wake_calls &&
		       pthread_cond_timedwait(&checkpoint_cond, &checkpoint_lock, &until) == 0)
			;
	} else if (!checkpoint_wanted) {
		deadline_in(&until, timeout_ms);
		pthread_cond_timedwait(&checkpoint_cond, &checkpoint_lock, &until);
	}
	wanted = checkpoint_wanted;
	checkpoint_wanted = 0;
	pthread_mutex_unlock(&checkpoint_lock);
	return wanted;
}

void sq_checkpoint_wake(void)
{
	pthread_mutex_lock(&checkpoint_lock);
	wake_calls++;
	pthread_cond_broadcast(&checkpoint_cond);
	pthread_mutex_unlock(&checkpoint_lock);
}

/*
 * The restart's wait for readers still in the log's old part. SQLite's
 * own busy handler sleeps 1, 2, 5, then 10 ms between its tries, so a
 * reader that ends within a millisecond still held every writer for 3 or
 * 8 ms; here the tries are RESTART_TRY_US apart, for RESTART_WAIT_MS in
 * all: the writers wait about as long as the last such reader reads.
 */
#define RESTART_TRY_US 100

static int restart_busy(void *arg, int tries)
{
	struct timespec gap = { 0, RESTART_TRY_US * 1000L };

	(void)arg;
	if (tries >= RESTART_WAIT_MS * 1000 / RESTART_TRY_US)
		return 0;
	nanosleep(&gap, NULL);
	return 1;
}

int sq_checkpoint_log(sqlite3 *db, int *locked, int busy_ms, int *log_pages, int *copied)
{
	int log = 0, done = 0, src;

	/* PASSIVE: copies what it can without waiting for (or blocking) readers and writers */
	src = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
	/*
	 * Only a writer that finds the whole log copied and no reader in it
	 * starts the log again from its beginning; under steady load some
	 * reader always is, and the log would grow without end (every page
	 * written to new space in the file, every read searching more).
	 * RESTART copies the rest and waits for those readers, while this
	 * process's writers wait on their mutex: the next commit then writes
	 * at the start of the file.
	 */
	if (src == SQLITE_OK && log >= CHECKPOINT_PAGES) {
		sq_writer_acquire(locked);
		sqlite3_busy_handler(db, restart_busy, NULL);
		src = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_RESTART, &log, &done);
		sqlite3_busy_timeout(db, busy_ms);
		sq_writer_release(locked);
		if ((src & 0xff) == SQLITE_BUSY) {
			pthread_mutex_lock(&checkpoint_lock);
			restart_refused = 1;
			pthread_mutex_unlock(&checkpoint_lock);
		}
	}
	if (log_pages)
		*log_pages = log;
	if (copied)
		*copied = done;
	return src == SQLITE_OK || (src & 0xff) == SQLITE_BUSY ? SQLITE_OK : src;
}
