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

#include <jansson.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters/console.h"
#include "adapters/telegram.h"
#include "adapters/discord.h"
#include "bot/base/log.h"
#include "games/strbuf.h"
#include "games/utf8.h"

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

/* ---- a chat the bot can no longer reach ---- */

#define GONE_BATCH 64

/*
 * Stop place's open table (as the internal command _gone) and set aside
 * its pending rows not under a live lease at now; *aside counts them.
 */
static int place_gone(struct bot *b, const char *platform, const char *place, const char *why, int64_t now,
		      int *aside)
{
	struct command cmd;
	struct store_out rows[GONE_BATCH];
	int rc, n = 0;

	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", platform);
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", place);
	snprintf(cmd.verb, sizeof(cmd.verb), "_gone");
	cmd.internal = true;
	cmd.now_ms = now;
	rc = bot_handle(b, &cmd);
	if (rc == GB_EDUP)
		rc = GB_OK;
	/*
	 * The place's pending rows: nobody there can read them. In a
	 * transaction, so no worker claims one between the read and the
	 * setting aside; one under a live lease is in a worker's hands, and
	 * its own call meets the refusal.
	 */
	for (int pass = 0; !rc && pass < 64; pass++) {
		int before = *aside, set = 0;

		rc = store_begin(b->store);
		if (!rc)
			rc = store_out_chat(b->store, platform, place, rows, GONE_BATCH, &n);
		for (int i = 0; !rc && i < n; i++) {
			if (rows[i].lease_until_ms > now)
				continue;
			rc = store_out_set_aside(b->store, rows[i].id, why);
			if (!rc)
				set++;
			else if (rc == GB_ENOTFOUND)
				rc = GB_OK; /* delivered or set aside meanwhile */
		}
		for (int i = 0; i < n; i++)
			store_out_release(&rows[i]);
		n = 0;
		if (!rc)
			rc = store_commit(b->store);
		else
			store_rollback(b->store);
		if (!rc)
			*aside += set;
		if (rc || *aside == before)
			break;
	}
	return rc;
}

int adapter_chat_gone(const struct adapter_env *env, const char *platform, const char *chat,
		      const char *why)
{
	struct bot *b = adapter_bot(env);
	struct store_chat places[GONE_BATCH];
	char group[STORE_ID_LEN], in_topics[40] = "";
	int rc, n = 0, aside = 0, topics = 0;
	int64_t now = bot_now_ms(), after = 0;

	if (!b)
		return GB_ESTORE;
	/* a forum topic's refusal is its group's: the bot is out of every topic with it */
	place_chat(chat, group, sizeof(group));
	rc = place_gone(b, platform, group, why, now, &aside);
	/* its topics, each a chat of its own in the store, page by page */
	do {
		if (!rc)
			rc = store_chat_places(b->store, platform, group, after, places, GONE_BATCH, &n);
		for (int i = 0; !rc && i < n; i++) {
			if (strcmp(places[i].chat, group)) {
				rc = place_gone(b, platform, places[i].chat, why, now, &aside);
				topics++;
			}
		}
		after = n ? places[n - 1].id : after;
		for (int i = 0; i < n; i++)
			store_chat_release(&places[i]);
	} while (!rc && n == GONE_BATCH);
	if (topics)
		snprintf(in_topics, sizeof(in_topics), " or in its %d topics", topics);
	gb_log("%s chat %s cannot be reached any more (%s): any open table there%s stopped with its stakes"
	       " refunded, %d deliveries given up%s%s", platform, group, why, in_topics, aside, rc ? ": " : "",
	       rc ? gb_strerror(rc) : "");
	return rc;
}

/* ---- the calling thread's libcurl handle ---- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static pthread_key_t curl_key;

static void curl_handle_free(void *h)
{
	curl_easy_cleanup(h);
}

static void curl_key_init(void)
{
	pthread_key_create(&curl_key, curl_handle_free);
}

CURL *adapter_curl(void)
{
	CURL *c;

	pthread_once(&curl_once, curl_key_init);
	c = pthread_getspecific(curl_key);
	if (!c) {
		c = curl_easy_init();
		if (c && pthread_setspecific(curl_key, c)) {
			curl_easy_cleanup(c);
			c = NULL;
		}
	}
	return c;
}

bool adapter_no_connection(int curl_code, CURL *c)
{
	curl_off_t connected = 0;

	switch (curl_code) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		return true;
	case CURLE_OPERATION_TIMEDOUT:
		/* the time limit met while connecting: nothing reached the platform */
		return c && curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connected) == CURLE_OK &&
		       connected == 0;
	default:
		return false;
	}
}

bool adapter_request_sent(int curl_code, CURL *c, size_t body_len)
{
	curl_off_t up = 0;

	/* the whole body went out (so a connection was made, whatever its timings say) */
	if (!curl_code || !c || curl_code == CURLE_OUT_OF_MEMORY)
		return false;
	return curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up) == CURLE_OK && up >= (curl_off_t)body_len;
}

int64_t adapter_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The calling thread's delivery deadline (adapter.h); 0: none. */
static _Thread_local int64_t deadline_ms;

void adapter_deadline_set(int64_t mono_ms)
{
	deadline_ms = mono_ms;
}

long adapter_call_ms(long limit_ms)
{
	int64_t left;

	if (!deadline_ms)
		return limit_ms;
	left = deadline_ms - adapter_mono_ms();
	if (left < ADAPTER_CALL_MIN_MS)
		return 0;
	return left < limit_ms ? (long)left : limit_ms;
}

size_t adapter_curl_sink(char *p, size_t size, size_t n, void *strbuf)
{
	struct strbuf *sb = strbuf;
	size_t len = size * n;

	/* a short count is how a write callback ends the transfer */
	if (len > ADAPTER_MAX_RESPONSE - sb->len)
		return 0;
	sb_addn(sb, p, len);
	return sb->failed ? 0 : len;
}

void adapter_sb_wipe(struct strbuf *sb)
{
	if (sb->buf)
		sodium_memzero(sb->buf, sb->cap);
	sb_release(sb);
}

/* ---- button data ---- */

int button_data_encode(int64_t table, int turn, const char *cmd, size_t max, char *buf, size_t cap)
{
	int n;

	if (!cmd || cmd[0] != '/' || !cmd[1] || cap <= max)
		return GB_EARGS;
	n = snprintf(buf, cap, "%lld:%d:%s", (long long)table, turn, cmd + 1);
	if (n < 0 || (size_t)n > max) {
		buf[0] = '\0';
		return GB_EARGS;
	}
	return GB_OK;
}

/* A decimal number of at most 18 digits at *p; advances *p past it. */
static bool read_num(const char **p, long long *out)
{
	const char *s = *p;
	long long v = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9' && digits < 18) {
		v = v * 10 + (*s - '0');
		s++;
		digits++;
	}
	if (!digits || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	*out = v;
	return true;
}

int button_data_decode(const char *data, size_t max, int64_t *table, int *turn, const char **rest)
{
	const char *p = data;
	long long t, n;

	if (!data || strlen(data) > max)
		return GB_EPARSE;
	if (!read_num(&p, &t) || *p++ != ':' || !read_num(&p, &n) || *p++ != ':' || n > 1000000000)
		return GB_EPARSE;
	if (!*p || !utf8_valid(p))
		return GB_EPARSE;
	*table = t;
	*turn = (int)n;
	*rest = p;
	return GB_OK;
}

/* ---- a queue message's id, handed on ---- */

#define QUEUE_HANDOFF_ROWS 32  /* a chat's newest pending rows looked through */

/* Hand message to the chat's pending queue views (rows[0..n-1]) not leased at now. */
static int queue_handoff(struct store *s, const struct store_out *rows, int n, const char *message, int64_t now)
{
	int rc = GB_OK;

	for (int i = 0; !rc && i < n; i++) {
		json_error_t jerr;
		json_t *v = rows[i].lease_until_ms > now ? NULL : json_loads(rows[i].payload, 0, &jerr);
		const char *had = json_string_value(json_object_get(v, "message"));
		char *text;

		/* an outdated message's own edit (no key) keeps its message */
		if (!json_is_true(json_object_get(v, "queue")) || strcmp(rows[i].key, "queue") ||
		    (had && !strcmp(had, message))) {
			json_decref(v);
			continue;
		}
		json_object_set_new(v, "message", json_string(message));
		text = json_dumps(v, JSON_COMPACT);
		json_decref(v);
		rc = text ? store_out_set_payload(s, rows[i].id, text) : GB_ENOMEM;
		free(text);
	}
	return rc;
}

int adapter_queue_message(struct store *s, const char *platform, const char *chat, const char *message,
			  bool in_tx)
{
	struct store_out rows[QUEUE_HANDOFF_ROWS];
	int found = 0, n = 0, rc = in_tx ? GB_OK : store_begin(s);

	if (rc)
		return rc;
	rc = store_queue_set_message(s, platform, chat, message, &found);
	/* in a transaction: the rows stay unclaimed and unreplaced until it ends */
	if (!rc && !found)
		rc = store_out_chat(s, platform, chat, rows, QUEUE_HANDOFF_ROWS, &n);
	if (!rc && n)
		rc = queue_handoff(s, rows, n, message, bot_now_ms());
	for (int i = 0; i < n; i++)
		store_out_release(&rows[i]);
	if (!in_tx && !rc)
		rc = store_commit(s);
	if (!in_tx && rc)
		store_rollback(s);
	return rc;
}
