/*
 * requeue.h - `gamebot requeue`: the replies the outbox set aside (a chat
 * gone, a refusal, a platform failing past its budget) put back in their
 * queue once the cause is mended, for a running service to deliver.
 */
#ifndef GB_REQUEUE_H
#define GB_REQUEUE_H

#include <stdio.h>

/*
 * `gamebot requeue [--db PATH-or-postgresql-URL] [--platform NAME]
 * [--within MINUTES]` with argv[0] = "requeue"; db is the database when
 * --db is not given. The rows set aside within the last MINUTES (60 when
 * not given) of that platform (every platform when not given) are due
 * again at once, no attempt counted, each in its old place among its
 * chat's rows; one line to out says how many. Returns the exit status: 0
 * done, 2 bad arguments or a database that cannot be opened or written.
 */
int requeue_main(int argc, char **argv, const char *db, FILE *out, FILE *err);

#endif
