/*
 * statecache.c - decoded table states, kept between commands (internal.h:
 * statecache_get(), statecache_put(), statecache_turn(); bot.h:
 * bot_state_cache_size()).
 *
 * A saved state is decoded once, not once per command. An entry answers
 * only for the very text it was decoded from (or encoded to), so whatever
 * changed the row - another instance, a repair by hand - is decoded
 * afresh. Each reader gets copies; nothing is shared.
 *
 * The entries are a map from table id to entry with a recency list: when
 * the map holds its capacity, the entry used longest ago makes room. So
 * the tables in play stay decoded however many chats there are, up to the
 * capacity (bot_state_cache_size(), the service's state_cache): below the
 * tables in play, every command on a table whose entry was pushed out
 * decodes its state again (about 120,000 instructions for a Ludo table,
 * more than the rest of a command's reads). One mutex guards it: a hit is
 * a lookup and a copy of the game; the next state of a table kept is
 * written over its entry's, so a command allocates and frees nothing here
 * but its own copy.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bot/base/limit.h"
#include "bot/base/metrics.h"
#include "bot/internal.h"

struct decoded {
	int64_t table;
	struct decoded *hnext;         /* the next entry of its bucket */
	struct decoded *newer, *older; /* the recency list */
	const struct gb_game *game;
	char *text;                    /* the wrapper's text (owned) */
	size_t text_cap;               /* bytes text may hold, its NUL included */
	void *st;                      /* its game (owned), NULL when it has none */
	struct gb_event log[LOG_KEEP];
	int nlog;
	/*
	 * The log strip as saved (a reference of its own): shared with the
	 * commands that read it, never changed by any of them (jansson
	 * counts references atomically, so this is safe from any thread).
	 */
	json_t *log_saved;
	bool watch;
	bool has_owner;
	int64_t quiet;                 /* the row's version with no timers (0: not known) */
	/*
	 * What else the row's version `known` goes with (0: none known): its
	 * seats, its last move's number and its terms, as this process wrote
	 * them. Each of them changes only in a write of the row, which bumps
	 * the version (commit()), so they hold for exactly that version.
	 */
	int64_t known;
	struct store_seat seats[GB_MAX_SEATS];
	int nseats;
	int seq;
	bool has_terms;
	struct store_terms terms;
	char owner[STORE_ID_LEN];
	size_t bytes;                  /* what it holds, itself included */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct decoded **buckets;  /* nbuckets heads, allocated at the first put */
static size_t nbuckets;
static size_t capacity = BOT_STATE_CACHE_DEFAULT;
static size_t count;
static size_t bytes;
static struct decoded *newest, *oldest;
static uint64_t hits, misses, evictions, facts_hits, facts_misses;


void bot_state_cache_stats(struct bot_cache_stats *out)
{
	pthread_mutex_lock(&lock);
	out->hits = hits;
	out->misses = misses;
	out->evictions = evictions;
	out->entries = count;
	out->capacity = capacity;
	out->bytes = bytes;
	out->facts_hits = facts_hits;
	out->facts_misses = facts_misses;
	pthread_mutex_unlock(&lock);
}

/* The bucket of table among n (a power of two): ids are sequential, so they are mixed first. */
static size_t hash_to(int64_t table, size_t n)
{
	return (size_t)(((uint64_t)table * 0x9e3779b97f4a7c15ULL) >> 32) & (n - 1);
}

static size_t bucket_of(int64_t table)
{
	return hash_to(table, nbuckets);
}

static void entry_free(struct decoded *d)
{
	free(d->text);
	free(d->st);
	json_decref(d->log_saved);
	free(d);
}

/* The entry of table, or NULL. Lock held. */
static struct decoded *find(int64_t table)
{
	struct decoded *d = buckets ? buckets[bucket_of(table)] : NULL;

	while (d && d->table != table)
		d = d->hnext;
	return d;
}

static void list_unlink(struct decoded *d)
{
	if (d->newer)
		d->newer->older = d->older;
	else
		newest = d->older;
	if (d->older)
		d->older->newer = d->newer;
	else
		oldest = d->newer;
	d->newer = d->older = NULL;
}

static void list_push(struct decoded *d)
{
	d->older = newest;
	d->newer = NULL;
	if (newest)
		newest->newer = d;
	newest = d;
	if (!oldest)
		oldest = d;
}

/* Take d out of the map and the list and free it. Lock held. */
static void drop(struct decoded *d)
{
	struct decoded **pp = &buckets[bucket_of(d->table)];

	while (*pp != d)
		pp = &(*pp)->hnext;
	*pp = d->hnext;
	list_unlink(d);
	count--;
	bytes -= d->bytes;
	entry_free(d);
}

/*
 * Buckets for the capacity (a power of two, at least as many as entries),
 * made at the first put; a capacity raised later grows them. Lock held.
 * False when there is no memory for them (nothing is kept then).
 */
static bool buckets_ready(void)
{
	size_t want = 64;
	struct decoded **nb;

	while (want < capacity && want < ((size_t)1 << 30))
		want <<= 1;
	if (buckets && nbuckets >= want)
		return true;
	nb = calloc(want, sizeof(*nb));
	if (!nb)
		return buckets != NULL;
	for (size_t i = 0; i < nbuckets; i++)
		for (struct decoded *d = buckets[i], *next; d; d = next) {
			next = d->hnext;
			d->hnext = nb[hash_to(d->table, want)];
			nb[hash_to(d->table, want)] = d;
		}
	free(buckets);
	buckets = nb;
	nbuckets = want;
	return true;
}

void bot_state_cache_size(size_t entries)
{
	pthread_mutex_lock(&lock);
	capacity = entries;
	while (count > capacity && oldest)
		drop(oldest);
	pthread_mutex_unlock(&lock);
}

bool statecache_get(struct ctx *c)
{
	struct decoded *d;
	bool hit = false;

	pthread_mutex_lock(&lock);
	d = find(c->table.id);
	if (d && d->game == c->game && !strcmp(d->text, c->table.state)) {
		void *st = d->st ? malloc(c->game->state_size) : NULL;

		if (st || !d->st) {
			if (st)
				memcpy(st, d->st, c->game->state_size);
			c->st = st;
			memcpy(c->log, d->log, sizeof(c->log));
			c->nlog = d->nlog;
			/* a copy: jansson's reference counts are not shared safely between threads */
			c->log_saved = json_deep_copy(d->log_saved);
			c->log_changed = false;
			c->watch = d->watch;
			c->timers_quiet = d->quiet != 0 && d->quiet == c->table.version;
			if (d->known != 0 && d->known == c->table.version) {
				memcpy(c->seats, d->seats, (size_t)d->nseats * sizeof(d->seats[0]));
				c->nseats = d->nseats;
				c->seq = d->seq;
				c->facts_known = true;
				if (d->has_terms && !c->terms_loaded) {
					c->terms = d->terms;
					c->terms_loaded = true;
				}
				facts_hits++;
			} else {
				facts_misses++;
			}
			if (d->has_owner)
				snprintf(c->owner, sizeof(c->owner), "%s", d->owner);
			hit = true;
			list_unlink(d);
			list_push(d);
		}
	}
	if (hit)
		hits++;
	else
		misses++;
	pthread_mutex_unlock(&lock);
	return hit;
}

void statecache_quiet(int64_t table, const char *text, int64_t version)
{
	struct decoded *d;

	pthread_mutex_lock(&lock);
	d = find(table);
	if (d && text && !strcmp(d->text, text))
		d->quiet = version;
	pthread_mutex_unlock(&lock);
}

static pthread_once_t checking_once = PTHREAD_ONCE_INIT;
static bool checking;

static void checking_read(void)
{
	const char *v = getenv("GAMEBOT_CACHE_CHECK");

	checking = v && v[0] && strcmp(v, "0") != 0;
}

bool statecache_checking(void)
{
	pthread_once(&checking_once, checking_read);
	return checking;
}

void statecache_known(const struct ctx *c)
{
	struct decoded *d;

	if (c->nseats < 0 || c->nseats > GB_MAX_SEATS)
		return;
	pthread_mutex_lock(&lock);
	d = find(c->table.id);
	if (d && c->table.state && !strcmp(d->text, c->table.state)) {
		d->known = c->table.version;
		memcpy(d->seats, c->seats, (size_t)c->nseats * sizeof(d->seats[0]));
		d->nseats = c->nseats;
		d->seq = c->seq;
		d->has_terms = c->terms_loaded;
		if (c->terms_loaded)
			d->terms = c->terms;
	}
	pthread_mutex_unlock(&lock);
}

bool statecache_turn(int64_t table, const struct gb_game *game, const char *text, int *turn)
{
	struct decoded *d;
	bool hit = false;

	pthread_mutex_lock(&lock);
	d = find(table);
	if (d && d->game == game && d->st && text && !strcmp(d->text, text)) {
		*turn = game->turn(d->st);
		hit = true;
		list_unlink(d);
		list_push(d);
	}
	if (hit)
		hits++;
	else
		misses++;
	pthread_mutex_unlock(&lock);
	return hit;
}

/* What d holds, itself included (for /metrics). */
static size_t entry_bytes(const struct decoded *d)
{
	return sizeof(*d) + d->text_cap + (d->st ? d->game->state_size : 0) +
	       (json_is_string(d->log_saved) ? json_string_length(d->log_saved) + 64 : 0);
}

/* Copy c's decoded state, as the one of text (len bytes), into d, whose buffers fit it. */
static void entry_fill(struct decoded *d, const struct ctx *c, const char *text, size_t len, bool has_owner)
{
	json_t *old = d->log_saved;

	memcpy(d->text, text, len + 1);
	if (d->st)
		memcpy(d->st, c->st, c->game->state_size);
	d->table = c->table.id;
	d->game = c->game;
	memcpy(d->log, c->log, sizeof(d->log));
	d->nlog = c->nlog;
	d->log_saved = json_deep_copy(c->log_saved);
	json_decref(old);
	d->watch = c->watch;
	d->quiet = 0;
	d->known = 0;
	d->has_owner = has_owner;
	snprintf(d->owner, sizeof(d->owner), "%s", c->owner);
}

/* A new entry holding copies of c's decoded state as the one of text; NULL without memory. */
static struct decoded *entry_new(const struct ctx *c, const char *text, bool has_owner)
{
	struct decoded *d = calloc(1, sizeof(*d));
	size_t len = strlen(text);

	if (!d)
		return NULL;
	/* room for the text to grow a little, as a game's does */
	d->text_cap = len + 1 + len / 4;
	d->text = malloc(d->text_cap);
	d->st = c->st ? malloc(c->game->state_size) : NULL;
	if (!d->text || (c->st && !d->st)) {
		entry_free(d);
		return NULL;
	}
	entry_fill(d, c, text, len, has_owner);
	d->bytes = entry_bytes(d);
	return d;
}

/*
 * Write c's decoded state over table's entry when its buffers fit it (the
 * same game, a text no longer than they hold); true when done. Lock held.
 */
static bool entry_reuse(const struct ctx *c, const char *text, bool has_owner)
{
	struct decoded *d = find(c->table.id);
	size_t len = strlen(text);

	if (!d || d->game != c->game || !d->st != !c->st || len + 1 > d->text_cap)
		return false;
	bytes -= d->bytes;
	entry_fill(d, c, text, len, has_owner);
	d->bytes = entry_bytes(d);
	bytes += d->bytes;
	list_unlink(d);
	list_push(d);
	return true;
}

void statecache_put(const struct ctx *c, const char *text, bool has_owner)
{
	struct decoded *d, *old;
	size_t b;

	pthread_mutex_lock(&lock);
	if (capacity > 0 && entry_reuse(c, text, has_owner)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	pthread_mutex_unlock(&lock);
	d = entry_new(c, text, has_owner);
	if (!d)
		return;
	pthread_mutex_lock(&lock);
	if (capacity == 0 || !buckets_ready()) {
		pthread_mutex_unlock(&lock);
		entry_free(d);
		return;
	}
	old = find(d->table);
	if (old)
		drop(old);
	while (count >= capacity && oldest) {
		drop(oldest);
		evictions++;
	}
	b = bucket_of(d->table);
	d->hnext = buckets[b];
	buckets[b] = d;
	list_push(d);
	count++;
	bytes += d->bytes;
	pthread_mutex_unlock(&lock);
}

void bot_caches_publish(int64_t now_ms)
{
	struct bot_cache_stats cs;
	struct limit_stats ls;
	const char *states = "cache=\"states\"", *limits = "cache=\"rate_limits\"";

	bot_state_cache_stats(&cs);
	metrics_set("gamebot_cache_hits_total", states, (double)cs.hits);
	metrics_set("gamebot_cache_misses_total", states, (double)cs.misses);
	metrics_set("gamebot_cache_evictions_total", states, (double)cs.evictions);
	metrics_set("gamebot_cache_entries", states, (double)cs.entries);
	metrics_set("gamebot_cache_capacity", states, (double)cs.capacity);
	metrics_set("gamebot_cache_bytes", states, (double)cs.bytes);
	metrics_set("gamebot_cache_hits_total", "cache=\"table_facts\"", (double)cs.facts_hits);
	metrics_set("gamebot_cache_misses_total", "cache=\"table_facts\"", (double)cs.facts_misses);
	/* a key that finds its window is a hit; one that opens a window a miss */
	limit_stats(now_ms, &ls);
	metrics_set("gamebot_cache_hits_total", limits, (double)ls.found);
	metrics_set("gamebot_cache_misses_total", limits, (double)ls.opened);
	metrics_set("gamebot_cache_entries", limits, (double)ls.live);
	metrics_set("gamebot_cache_capacity", limits, (double)ls.slots);
	metrics_set("gamebot_cache_bytes", limits, (double)ls.slots * 32);
	metrics_set("gamebot_rate_limit_no_slot_total", NULL, (double)ls.no_slot);
	{
		uint64_t hit = 0, missed = 0;

		store_page_cache(&hit, &missed);
		metrics_set("gamebot_cache_hits_total", "cache=\"sqlite_pages\"", (double)hit);
		metrics_set("gamebot_cache_misses_total", "cache=\"sqlite_pages\"", (double)missed);
	}
}
