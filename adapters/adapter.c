/*
 * adapter.c - what every adapter shares: the list of adapters and the
 * calling thread's bot (see adapter.h).
 *
 * A store handle belongs to one thread, and the listener's workers, the
 * polling loops and the outbox workers are all threads: each gets its own
 * bot on first use, kept in thread-specific data and closed when the thread
 * exits.
 */
#include "adapter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/console.h"
#include "adapters/telegram.h"
#include "adapters/discord.h"
#include "bot/log.h"

const struct adapter *const adapters[] = {
	&console_adapter,
	&telegram_adapter,
	&discord_adapter,
	NULL,
};

struct thread_bot {
	struct bot bot;
	char db[CONFIG_VALUE_LEN];  /* which store it has open */
};

static pthread_key_t bot_key;
static pthread_once_t bot_once = PTHREAD_ONCE_INIT;

static void thread_bot_free(void *p)
{
	struct thread_bot *t = p;

	if (!t)
		return;
	store_free(t->bot.store);
	free(t);
}

static void make_key(void)
{
	pthread_key_create(&bot_key, thread_bot_free);
}

struct bot *adapter_bot(const struct adapter_env *env)
{
	struct thread_bot *t;
	int rc;

	pthread_once(&bot_once, make_key);
	t = pthread_getspecific(bot_key);
	if (t && strcmp(t->db, env->db) == 0) {
		t->bot.cfg = env->bot;
		return &t->bot;
	}
	adapter_bot_release();
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	snprintf(t->db, sizeof(t->db), "%s", env->db);
	t->bot.cfg = env->bot;
	rc = store_open(&t->bot.store, env->db);
	if (rc) {
		const char *why = store_last_error();

		gb_log("cannot open the store for a worker thread: %s",
		       rc == GB_ESTORE && why[0] ? why : gb_strerror(rc));
		free(t);
		return NULL;
	}
	pthread_setspecific(bot_key, t);
	return &t->bot;
}

void adapter_bot_release(void)
{
	struct thread_bot *t;

	pthread_once(&bot_once, make_key);
	t = pthread_getspecific(bot_key);
	pthread_setspecific(bot_key, NULL);
	thread_bot_free(t);
}
