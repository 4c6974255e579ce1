/*
 * think.c - the computer players' thread.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bot/internal.h"
#include "games/ai/ai.h"

/*
 * Computer players think on one thread of their own at a lower CPU
 * priority (nice 10): a person's command never waits for a core behind a
 * think. Only the thinking goes there: the write that follows is made by
 * the calling thread at its own priority, so the store's write lock is
 * never held by a thread the scheduler keeps waiting (lowering a thread
 * and raising it again would need a privilege a service may not have).
 */
struct think_job {
	void (*fn)(void *arg);
	void *arg;
	bool done;
};

static pthread_once_t thinker_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t thinker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thinker_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t thinker_done = PTHREAD_COND_INITIALIZER;
static struct think_job *thinker_job;
static bool thinker_up;

static void *thinker_main(void *arg)
{
	(void)arg;
	/* best effort: a service without the right keeps its priority */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) != 0) {
		/* thinking at normal priority is still correct */
	}
	pthread_mutex_lock(&thinker_lock);
	for (;;) {
		struct think_job *j;

		while (!thinker_job || thinker_job->done)
			pthread_cond_wait(&thinker_wake, &thinker_lock);
		j = thinker_job;
		pthread_mutex_unlock(&thinker_lock);
		j->fn(j->arg);
		pthread_mutex_lock(&thinker_lock);
		j->done = true;
		pthread_cond_broadcast(&thinker_done);
	}
	return NULL;
}

static void thinker_start(void)
{
	pthread_t t;
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	thinker_up = pthread_create(&t, &a, thinker_main, NULL) == 0;
	pthread_attr_destroy(&a);
}

/* Run fn(arg) on the thinking thread and wait for it (on this thread if there is none). */
static void think(void (*fn)(void *arg), void *arg)
{
	struct think_job j = { fn, arg, false };

	pthread_once(&thinker_once, thinker_start);
	if (!thinker_up) {
		fn(arg);
		return;
	}
	pthread_mutex_lock(&thinker_lock);
	while (thinker_job && !thinker_job->done)
		pthread_cond_wait(&thinker_done, &thinker_lock);
	thinker_job = &j;
	pthread_cond_signal(&thinker_wake);
	while (!j.done)
		pthread_cond_wait(&thinker_done, &thinker_lock);
	thinker_job = NULL;
	pthread_cond_broadcast(&thinker_done);
	pthread_mutex_unlock(&thinker_lock);
}

struct choose_job {
	const struct gb_game *game;
	const void *st;
	int level;
	uint64_t seed;
	struct gb_action *out;
	int rc;
};

static void choose_job_run(void *arg)
{
	struct choose_job *j = arg;

	j->rc = gb_ai_choose(j->game, j->st, j->level, j->seed, 0, j->out);
}

int think_choose(const struct gb_game *g, const void *st, int level, uint64_t seed, struct gb_action *out)
{
	struct choose_job j = { g, st, level, seed, out, 0 };

	think(choose_job_run, &j);
	return j.rc;
}
