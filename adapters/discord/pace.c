/*
 * pace.c - see pace.h. Buckets live in a fixed table of slots found
 * by a hash of their key (the bucket's hash or, until Discord named it,
 * the route's template, with the major parameter); a full table reuses
 * the slot idle longest, which forgets only a bucket nobody used lately
 * (the next answer teaches it again). Routes whose bucket Discord named
 * are remembered in a small list, so routes sharing a bucket share its
 * count. Keys are kept as 64-bit hashes: an interaction's token (in a
 * webhook's path) is never held.
 */
#include "adapters/discord/pace.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/call_ring.h"

#define DCP_SLOTS 2048
#define DCP_PROBE 16
#define DCP_ROUTES 32
#define DCP_TMPL 96

struct dcp_bucket {
	uint64_t key;               /* 0: a free slot */
	int limit;                  /* calls a window; 0 while unknown */
	int remaining;              /* left in the window */
	int64_t reset_at;           /* the window's end (our clock); 0 unknown */
	int64_t last;               /* the last call counted */
};

struct dcp_route {
	char tmpl[DCP_TMPL];        /* "PATCH /channels/{}/messages/{id}" */
	char bucket[64];            /* Discord's X-RateLimit-Bucket for it */
};

struct dc_pace {
	pthread_mutex_t lock;
	struct dcp_bucket buckets[DCP_SLOTS];
	struct dcp_route routes[DCP_ROUTES];
	int nroutes;
	struct call_ring all;       /* the last bot calls, against the global limit */
	int64_t global_until;       /* a global 429's end */
};

struct dc_pace *dc_pace_new(void)
{
	struct dc_pace *p = calloc(1, sizeof(*p));

	if (p) {
		pthread_mutex_init(&p->lock, NULL);
		call_ring_init(&p->all, DC_PACE_ALL_N);
	}
	return p;
}

void dc_pace_free(struct dc_pace *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void dc_limits_init(struct dc_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->remaining = -1;
	l->reset_after_ms = -1;
	l->retry_after_ms = -1;
}

/* A header's value (after "name:" and blanks, before CR/LF) into buf; false when too long. */
static bool header_value(const char *line, size_t len, size_t name_len, char *buf, size_t n)
{
	size_t i = name_len, j = len;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	while (j > i && (line[j - 1] == '\r' || line[j - 1] == '\n' || line[j - 1] == ' '))
		j--;
	if (j - i >= n)
		return false;
	memcpy(buf, line + i, j - i);
	buf[j - i] = '\0';
	return true;
}

/* A whole non-negative number of at most 9 digits, or -1. */
static int whole(const char *s)
{
	char *end = NULL;
	long v = strtol(s, &end, 10);

	return (end != s && *end == '\0' && v >= 0 && v < 1000000000L) ? (int)v : -1;
}

/* Non-negative fractional seconds (at most an hour) in milliseconds, rounded up, or -1. */
static int64_t seconds_ms(const char *s)
{
	char *end = NULL;
	double v = strtod(s, &end);
	int64_t ms;

	if (end == s || *end != '\0' || !(v >= 0) || v > 3600)
		return -1;
	ms = (int64_t)(v * 1000.0);
	return (double)ms < v * 1000.0 ? ms + 1 : ms;
}

void dc_limits_header(struct dc_limits *l, const char *line, size_t len)
{
	static const char prefix[] = "x-ratelimit-";
	char v[64];
	size_t plen = sizeof(prefix) - 1;

	if (len > 12 && !strncasecmp(line, "retry-after:", 12) &&
	    header_value(line, len, 12, v, sizeof(v))) {
		/* whole seconds as a rule, fractional from Discord; a wait of hours is believed (a week at most) */
		char *end = NULL;
		double secs = strtod(v, &end);

		if (end != v && *end == '\0' && secs > 0)
			l->retry_after_ms = secs < 7 * 24 * 3600.0 ? (int64_t)ceil(secs * 1000.0)
								   : 7LL * 24 * 3600 * 1000;
		return;
	}
	if (len <= plen || strncasecmp(line, prefix, plen))
		return;
	line += plen;
	len -= plen;
	if (len > 6 && !strncasecmp(line, "limit:", 6) && header_value(line, len, 6, v, sizeof(v)))
		l->limit = whole(v) > 0 ? whole(v) : 0;
	else if (len > 10 && !strncasecmp(line, "remaining:", 10) &&
		 header_value(line, len, 10, v, sizeof(v)))
		l->remaining = whole(v);
	else if (len > 12 && !strncasecmp(line, "reset-after:", 12) &&
		 header_value(line, len, 12, v, sizeof(v)))
		l->reset_after_ms = seconds_ms(v);
	else if (len > 7 && !strncasecmp(line, "bucket:", 7) &&
		 !header_value(line, len, 7, l->bucket, sizeof(l->bucket)))
		l->bucket[0] = '\0';
	else if (len > 7 && !strncasecmp(line, "global:", 7) && header_value(line, len, 7, v, sizeof(v)))
		l->global = !strcasecmp(v, "true");
}

/* Append s (n bytes) to buf (cap bytes, NUL-terminated), cutting what does not fit. */
static void append(char *buf, size_t cap, const char *s, size_t n)
{
	size_t used = strlen(buf);

	if (used + 1 >= cap)
		return;
	if (n > cap - used - 1)
		n = cap - used - 1;
	memcpy(buf + used, s, n);
	buf[used + n] = '\0';
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * The route of method on path: its template (the major parameters "{}",
 * other ids "{id}") into tmpl, and the hash of its major parameters.
 */
static uint64_t route_of(const char *method, const char *path, char *tmpl, size_t n)
{
	uint64_t major = 14695981039346656037ULL;
	int majors = 0;
	const char *seg = path;

	snprintf(tmpl, n, "%s ", method);
	while (*seg && *seg != '?') {
		size_t len;
		bool digits = true;

		if (*seg == '/') {
			append(tmpl, n, "/", 1);
			seg++;
			continue;
		}
		len = strcspn(seg, "/?");
		for (size_t i = 0; i < len; i++)
			digits = digits && seg[i] >= '0' && seg[i] <= '9';
		if (majors > 0) {
			/* the channel, guild or webhook (and its token): hashed, never kept */
			for (size_t i = 0; i < len; i++)
				major = (major ^ (unsigned char)seg[i]) * 1099511628211ULL;
			major = (major ^ '/') * 1099511628211ULL;
			append(tmpl, n, "{}", 2);
			majors--;
		} else {
			append(tmpl, n, digits ? "{id}" : seg, digits ? 4 : len);
			if (len == 8 && !strncmp(seg, "channels", len))
				majors = 1;
			else if (len == 6 && !strncmp(seg, "guilds", len))
				majors = 1;
			else if (len == 8 && !strncmp(seg, "webhooks", len))
				majors = 2;
		}
		seg += len;
	}
	return major;
}

/* The key of the bucket of method on path: Discord's bucket when it named it. Lock held. */
static uint64_t bucket_key(struct dc_pace *p, const char *method, const char *path)
{
	char tmpl[DCP_TMPL];
	uint64_t major = route_of(method, path, tmpl, sizeof(tmpl));
	const char *name = tmpl;
	uint64_t key;

	for (int i = 0; i < p->nroutes; i++)
		if (!strcmp(p->routes[i].tmpl, tmpl))
			name = p->routes[i].bucket;
	key = fnv(major, name);
	return key ? key : 1;
}

/* The bucket of key: its slot, else a free one, else the one idle longest. Lock held. */
static struct dcp_bucket *bucket_slot(struct dc_pace *p, uint64_t key)
{
	struct dcp_bucket *empty = NULL, *lru = NULL, *b;

	for (int i = 0; i < DCP_PROBE; i++) {
		b = &p->buckets[(key + (uint64_t)i) % DCP_SLOTS];
		if (b->key == key)
			return b;
		if (!b->key) {
			if (!empty)
				empty = b;
		} else if (!lru || b->last < lru->last) {
			lru = b;
		}
	}
	b = empty ? empty : lru;
	memset(b, 0, sizeof(*b));
	b->key = key;
	return b;
}

/* How long bucket b must wait at now (0: it may go). Lock held. */
static int64_t bucket_wait(struct dcp_bucket *b, int64_t now)
{
	int64_t at;

	if (b->reset_at && now >= b->reset_at) {
		/* a fresh window: its end is known from the next answer */
		b->remaining = b->limit;
		b->reset_at = 0;
	}
	if (!b->reset_at)
		return 0;
	if (b->remaining <= 0)
		return b->reset_at - now;
	if (!b->limit || b->limit - b->remaining < DC_PACE_BURST)
		return 0;
	/* past the burst: what is left, spread evenly over what is left of the window */
	at = b->last + (b->reset_at - b->last) / (b->remaining + 1);
	return at > now ? at - now : 0;
}

int64_t dc_pace_take(struct dc_pace *p, const char *method, const char *path, bool as_bot,
		     int64_t now_ms, bool *global)
{
	struct dcp_bucket *b;
	int64_t wait = 0, oldest;

	*global = false;
	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	oldest = call_ring_oldest(&p->all);
	if (as_bot && p->global_until > now_ms) {
		wait = p->global_until - now_ms;
		*global = true;
		goto out;
	}
	if (as_bot && oldest && now_ms - oldest < DC_PACE_ALL_MS) {
		wait = DC_PACE_ALL_MS - (now_ms - oldest);
		*global = true;
		goto out;
	}
	b = bucket_slot(p, bucket_key(p, method, path));
	wait = bucket_wait(b, now_ms);
	if (wait)
		goto out;
	if (b->reset_at && b->remaining > 0)
		b->remaining--;
	b->last = now_ms;
	if (as_bot)
		call_ring_push(&p->all, now_ms);
out:
	pthread_mutex_unlock(&p->lock);
	return wait;
}

void dc_pace_sent(struct dc_pace *p, bool as_bot, int64_t taken_ms, int64_t done_ms)
{
	if (!p || !as_bot)
		return;
	pthread_mutex_lock(&p->lock);
	call_ring_answered(&p->all, taken_ms, done_ms);
	pthread_mutex_unlock(&p->lock);
}

/* Remember that tmpl's bucket is named bucket. Lock held. */
static void route_named(struct dc_pace *p, const char *tmpl, const char *bucket)
{
	int i;

	for (i = 0; i < p->nroutes; i++)
		if (!strcmp(p->routes[i].tmpl, tmpl))
			break;
	if (i == p->nroutes) {
		if (p->nroutes == DCP_ROUTES)
			return; /* more kinds of route than the bot calls: counted per route */
		p->nroutes++;
	}
	snprintf(p->routes[i].tmpl, sizeof(p->routes[i].tmpl), "%s", tmpl);
	snprintf(p->routes[i].bucket, sizeof(p->routes[i].bucket), "%s", bucket);
}

void dc_pace_learn(struct dc_pace *p, const char *method, const char *path,
		   const struct dc_limits *l, int64_t now_ms)
{
	char tmpl[DCP_TMPL];
	struct dcp_bucket *b;

	if (!p || !l->status)
		return;
	pthread_mutex_lock(&p->lock);
	if (l->bucket[0]) {
		route_of(method, path, tmpl, sizeof(tmpl));
		route_named(p, tmpl, l->bucket);
	}
	if (l->status == 429 && l->global) {
		if (now_ms + l->retry_ms > p->global_until)
			p->global_until = now_ms + l->retry_ms + DC_PACE_ROOM_MS;
		goto out;
	}
	b = bucket_slot(p, bucket_key(p, method, path));
	if (l->limit > 0 && l->remaining >= 0 && l->reset_after_ms >= 0) {
		int64_t reset = now_ms + l->reset_after_ms + DC_PACE_ROOM_MS;

		/* answers may come back out of order: of one window, the fewest left counts */
		if (!(b->reset_at && now_ms < b->reset_at && b->remaining < l->remaining))
			b->remaining = l->remaining;
		b->limit = l->limit;
		b->reset_at = reset > b->reset_at ? reset : b->reset_at;
	}
	if (l->status == 429) {
		/* the bucket is spent, whatever it was thought to hold */
		b->remaining = 0;
		if (now_ms + l->retry_ms + DC_PACE_ROOM_MS > b->reset_at)
			b->reset_at = now_ms + l->retry_ms + DC_PACE_ROOM_MS;
	}
	if (!b->last)
		b->last = now_ms;
out:
	pthread_mutex_unlock(&p->lock);
}
