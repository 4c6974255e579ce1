/*
 * fake_server.h - what the fake platform servers (tests/fake_telegram.c,
 * tests/fake_discord.c) share: the log of what they were asked and
 * answered, in arrival order; the faults a test programs them to answer
 * with; the clocks they read.
 *
 * The log and the faults have no lock of their own: each fake guards them
 * with the one mutex that guards the rest of its state, and the functions
 * below that read or change them are called with that mutex held
 * (fake_log_wait() takes it itself). A call matches a method and a path prefix when each is NULL or
 * equal (the method) or a prefix of the call's path.
 */
#ifndef GB_FAKE_SERVER_H
#define GB_FAKE_SERVER_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

struct fake_call {
	char method[64];        /* Telegram: the Bot API method; Discord: the HTTP method */
	char path[512];         /* "" where the fake records none */
	char auth[256];         /* the Authorization header, "" where none */
	json_t *body;           /* the parsed request body (owned) */
	int status;             /* the status it was answered */
	long long ms;           /* when it arrived (fake_mono_ms()) */
};

struct fake_log {
	struct fake_call *calls;
	int n, cap;
};

long long fake_mono_ms(void);
/* Sleep ms milliseconds, through signals. */
void fake_ms_sleep(long ms);
/* The CLOCK_REALTIME deadline ms from now, for pthread_cond_timedwait(). */
void fake_deadline_in(struct timespec *ts, long ms);

/* Add a call, taking body (dropped when out of memory). */
void fake_log_add(struct fake_log *l, const char *method, const char *path, const char *auth,
		  json_t *body, int status);
bool fake_log_matches(const struct fake_call *c, const char *method, const char *prefix);
int fake_log_count(const struct fake_log *l, const char *method, const char *prefix);
/* The index of the i-th matching call (from 0), or -1. */
int fake_log_find(const struct fake_log *l, const char *method, const char *prefix, int i);
/* The call at index i, or NULL. */
const struct fake_call *fake_log_at(const struct fake_log *l, int i);
void fake_log_clear(struct fake_log *l);
/* Frees the calls; the log is empty after. */
void fake_log_free(struct fake_log *l);
/* Each call on stderr, its path too when paths. */
void fake_log_dump(const struct fake_log *l, bool paths);

/*
 * Wait until count calls match or timeout_ms pass (cond is signalled at
 * every call added); takes lock itself. Returns how many match.
 */
int fake_log_wait(const struct fake_log *l, pthread_mutex_t *lock, pthread_cond_t *cond,
		  const char *method, const char *prefix, int count, int timeout_ms);

#define FAKE_MAX_FAULTS 64

/*
 * A programmed fault: the calls matching method and prefix ("" = any),
 * after the next `skip` of them, `count` calls in all, are answered as
 * kind (the fake's own enum), with arg.
 */
struct fake_fault {
	char method[64];
	char prefix[256];
	int skip, count;
	int kind;
	long arg;
};

struct fake_faults {
	struct fake_fault v[FAKE_MAX_FAULTS];
	int n;
};

/* Add a fault (NULL method or prefix: any); those past FAKE_MAX_FAULTS are dropped. */
void fake_faults_add(struct fake_faults *ff, const char *method, const char *prefix, int skip,
		     int count, int kind, long arg);
/*
 * The kind of the first fault, in the order they were added, that takes a
 * call of method to path (NULL path: ""), with its arg; 0 when none does.
 */
int fake_faults_take(struct fake_faults *ff, const char *method, const char *path, long *arg);

/*
 * Wait up to ms for every connection to d to close. With a thread per
 * connection a connection closes only after its last request was read and
 * handled (recorded), so none open means every request a client that went
 * away had sent is in. True when none is open.
 */
bool fake_settle(struct MHD_Daemon *d, int ms);

#endif
