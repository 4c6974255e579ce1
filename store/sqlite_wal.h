/*
 * sqlite_wal.h - the SQLite backend's write-ahead log, for store/sqlite.c:
 * the process's writer lock and the background checkpoints
 * (store_checkpointer_start(), store.h).
 */
#ifndef GB_STORE_SQLITE_WAL_H
#define GB_STORE_SQLITE_WAL_H

#include <sqlite3.h>

/* Take and give back the process's writer lock; *locked counts a handle's holds (recursive). */
void sq_writer_acquire(int *locked);
void sq_writer_release(int *locked);

/* Handles opened from now on leave checkpoints to the checkpointer (on 1) or make them in their commits (0). */
void sq_background_checkpoints(int on);
int sq_background_on(void);

/* SQLite's WAL hook of such a handle: after each commit, wakes the checkpointer once the log is full. */
int sq_log_grew(void *arg, sqlite3 *db, const char *name, int pages);

/*
 * The checkpointer's wait: 1 once a commit has filled the log, 0 when
 * timeout_ms passed or sq_checkpoint_wake() was called; after a restart
 * refused by a long reader it leaves the writers be for a while first.
 */
int sq_checkpoint_wait(int timeout_ms);
void sq_checkpoint_wake(void);

/*
 * Copy the log of db back into the database, and start it again from its
 * beginning when it is all copied (waiting briefly for readers, with the
 * writer lock held through *locked; busy_ms is the handle's busy timeout to
 * restore). *log_pages and *copied (each may be NULL) say how far it got.
 * SQLITE_OK (a busy database is no failure), or SQLite's error.
 */
int sq_checkpoint_log(sqlite3 *db, int *locked, int busy_ms, int *log_pages, int *copied);

#endif
