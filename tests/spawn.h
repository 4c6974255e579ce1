/*
 * spawn.h - start the service (or any program) from a test or harness
 * whose process has threads of its own (its fake platform servers), and
 * wait for it to answer.
 *
 * Between fork() and exec() the child of a threaded process may make only
 * async-signal-safe calls: another thread may have held a lock at the
 * fork (the allocator's, the environment's), and a child taking it waits
 * for ever. So the child's environment is made before the fork, and the
 * child only opens, redirects and executes.
 *
 *     const char *env[] = { "GAMEBOT_DB=/tmp/x.db", "TELEGRAM_TOKEN", NULL };
 *     pid_t pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, log, false);
 *     ... wait_serving(pid, "http://127.0.0.1:PORT/healthz", 20000) ...
 */
#ifndef GB_SPAWN_H
#define GB_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Run path with argv (NULL-terminated) and this process's environment
 * changed by env (NULL-terminated, or NULL for none): "NAME=value" sets
 * NAME, "NAME" alone removes it. Standard input reads /dev/null; standard
 * output and error go to log (appended to when append, else truncated;
 * created 0600; "/dev/null" to drop them), or stay this process's when
 * log is NULL. Returns the child's
 * pid, or -1 (errno set) when it cannot be started; a path that cannot
 * be executed gives a child exiting with 127.
 */
pid_t spawn(const char *path, char *const argv[], const char *const env[], const char *log,
	    bool append);

/*
 * spawn() with standard input read from in (a pipe's read end, an open
 * file), or /dev/null when in is negative. The caller keeps in and closes
 * it after the call; a pipe's ends are marked FD_CLOEXEC, so that the child holds
 * no copy of its write end and sees the end of input when the caller closes
 * it.
 */
pid_t spawn_in(const char *path, char *const argv[], const char *const env[], int in, const char *log,
	       bool append);

/* A port on 127.0.0.1 that nobody listens on right now, or 0. */
int free_port(void);

/* GET url once, waiting timeout_ms at most: its HTTP status, 0 when nothing answered. */
long http_status(const char *url, long timeout_ms);

/*
 * GET url until it answers 200 or timeout_ms passes, while pid (the
 * program serving it) runs. True when it answered and pid still runs;
 * false as soon as pid has ended (then reaped: a port taken by someone
 * else is answered by them, not by pid).
 */
bool wait_serving(pid_t pid, const char *url, int timeout_ms);

#endif
