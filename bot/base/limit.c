/*
 * limit.c - see limit.h. An open-addressing table of windows keyed by a
 * 64-bit hash of the key text; a collision of two keys in one window only
 * makes them share a budget, never lets a flood through unlimited.
 */
#include "limit.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PROBE 64
#define WINDOW_MS 60000

struct window {
	uint64_t key;
	int64_t start_ms;
	int count;
	bool warned;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* slots windows, allocated at the first check (limit_size() sets how many) */
static struct window *table;
static size_t slots = LIMIT_SLOTS_DEFAULT;
static uint64_t found, opened, no_slot;

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL; /* a separator, so "ab"+"c" differs from "a"+"bc" */
}

/* The window of key at now, started afresh when the last one passed; NULL when none is free. */
static struct window *window_of(uint64_t key, int64_t now)
{
	struct window *free_slot = NULL;
	size_t start;

	key |= 1; /* 0 marks an empty slot */
	if (!table)
		table = calloc(slots, sizeof(*table));
	if (!table)
		return NULL;
	/* FNV's low bits follow the last characters of near keys ("-1001", "-1002"): mixed first */
	start = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17);
	for (int i = 0; i < PROBE; i++) {
		struct window *w = &table[(start + (size_t)i) % slots];

		if (w->key == key) {
			if (now - w->start_ms >= WINDOW_MS || now < w->start_ms) {
				w->start_ms = now;
				w->count = 0;
				w->warned = false;
			}
			found++;
			return w;
		}
		if (!free_slot && (!w->key || now - w->start_ms >= WINDOW_MS))
			free_slot = w;
	}
	if (free_slot) {
		free_slot->key = key;
		free_slot->start_ms = now;
		free_slot->count = 0;
		free_slot->warned = false;
		opened++;
	} else {
		no_slot++;
	}
	return free_slot;
}

/*
 * Count one against w; the verdict for limit. No window (every slot a key
 * could take holds another's live window: a flood of many keys) is a
 * refusal: a full table must not let everyone through.
 */
static enum limit_verdict count(struct window *w, int limit)
{
	if (limit <= 0)
		return LIMIT_OK;
	if (!w)
		return LIMIT_SILENT;
	if (w->count < limit) {
		w->count++;
		return LIMIT_OK;
	}
	if (w->warned)
		return LIMIT_SILENT;
	w->warned = true;
	return LIMIT_WARN;
}

enum limit_verdict limit_check(const char *platform, const char *chat, const char *user,
			       int64_t now_ms, int user_per_min, int chat_per_min, const char **scope)
{
	uint64_t kc = fnv(fnv(0xcbf29ce484222325ULL, platform), chat);
	uint64_t ku = fnv(kc, user);
	enum limit_verdict v = LIMIT_OK;

	*scope = NULL;
	pthread_mutex_lock(&lock);
	/* the user's own budget first: one person's flood should not use up the chat's */
	v = count(user_per_min > 0 ? window_of(ku, now_ms) : NULL, user_per_min);
	if (v != LIMIT_OK) {
		*scope = "user";
	} else {
		v = count(chat_per_min > 0 ? window_of(kc, now_ms) : NULL, chat_per_min);
		if (v != LIMIT_OK)
			*scope = "chat";
	}
	pthread_mutex_unlock(&lock);
	return v;
}

void limit_reset(void)
{
	pthread_mutex_lock(&lock);
	if (table)
		memset(table, 0, slots * sizeof(*table));
	found = opened = no_slot = 0;
	pthread_mutex_unlock(&lock);
}

void limit_size(size_t n)
{
	pthread_mutex_lock(&lock);
	if (n == slots) {
		pthread_mutex_unlock(&lock);
		return;
	}
	free(table);
	table = NULL;
	slots = n > 0 ? n : 1;
	found = opened = no_slot = 0;
	pthread_mutex_unlock(&lock);
}

void limit_stats(int64_t now_ms, struct limit_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&lock);
	out->found = found;
	out->opened = opened;
	out->no_slot = no_slot;
	out->slots = slots;
	for (size_t i = 0; table && i < slots; i++)
		out->live += table[i].key && now_ms - table[i].start_ms < WINDOW_MS;
	pthread_mutex_unlock(&lock);
}
