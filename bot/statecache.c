/*
 * statecache.c - saved table states decoded once, not once per command.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Decoded states, one per table slot: a saved state is decoded once, not
 * once per command. An entry answers only for the very text it was
 * decoded from (or encoded to), so whatever changed the row - another
 * instance, a repair by hand - is decoded afresh. Each reader gets copies;
 * nothing is shared.
 */
#define STATE_SLOTS 256

struct decoded {
	int64_t table;
	const struct gb_game *game;
	char *text;                    /* the wrapper's text (owned); NULL: empty slot */
	void *st;                      /* its game (owned), NULL when it has none */
	struct gb_event log[LOG_KEEP];
	int nlog;
	json_t *log_saved;             /* owned */
	bool watch;
	bool has_owner;
	char owner[STORE_ID_LEN];
};

static struct decoded decoded[STATE_SLOTS];
static pthread_mutex_t decoded_lock = PTHREAD_MUTEX_INITIALIZER;

/* Fill c from the entry for c->table's text; false when there is none (c untouched). */
bool statecache_get(struct ctx *c)
{
	struct decoded *d = &decoded[(uint64_t)c->table.id % STATE_SLOTS];
	bool hit = false;

	pthread_mutex_lock(&decoded_lock);
	if (d->text && d->table == c->table.id && d->game == c->game && !strcmp(d->text, c->table.state)) {
		void *st = d->st ? malloc(c->game->state_size) : NULL;
		json_t *lg = d->log_saved ? json_deep_copy(d->log_saved) : NULL;

		if ((st || !d->st) && (lg || !d->log_saved)) {
			if (st)
				memcpy(st, d->st, c->game->state_size);
			c->st = st;
			memcpy(c->log, d->log, sizeof(c->log));
			c->nlog = d->nlog;
			c->log_saved = lg;
			c->log_changed = false;
			c->watch = d->watch;
			if (d->has_owner)
				snprintf(c->owner, sizeof(c->owner), "%s", d->owner);
			hit = true;
		} else {
			free(st);
			json_decref(lg);
		}
	}
	pthread_mutex_unlock(&decoded_lock);
	return hit;
}

/* Remember c's decoded state as the one of text (c->log_saved being its log as saved). */
void statecache_put(const struct ctx *c, const char *text, bool has_owner)
{
	struct decoded *d = &decoded[(uint64_t)c->table.id % STATE_SLOTS];
	char *t = strdup(text);
	void *st = c->st ? malloc(c->game->state_size) : NULL;
	json_t *lg = c->log_saved ? json_deep_copy(c->log_saved) : NULL;

	if (!t || (c->st && !st) || (c->log_saved && !lg)) {
		free(t);
		free(st);
		json_decref(lg);
		return;
	}
	if (st)
		memcpy(st, c->st, c->game->state_size);
	pthread_mutex_lock(&decoded_lock);
	free(d->text);
	free(d->st);
	json_decref(d->log_saved);
	d->table = c->table.id;
	d->game = c->game;
	d->text = t;
	d->st = st;
	memcpy(d->log, c->log, sizeof(d->log));
	d->nlog = c->nlog;
	d->log_saved = lg;
	d->watch = c->watch;
	d->has_owner = has_owner;
	snprintf(d->owner, sizeof(d->owner), "%s", c->owner);
	pthread_mutex_unlock(&decoded_lock);
}
