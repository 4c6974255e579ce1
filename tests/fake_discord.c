/*
 * fake_discord.c - see fake_discord.h. libmicrohttpd with a thread per
 * connection; one mutex guards everything the test and the connections
 * share, and a condition variable wakes tests waiting for a call.
 */
#include "fake_discord.h"
#include "fake_server.h"
#include "fake_upload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_MAX_BODY (1024 * 1024)
#define FAKE_MAX_TOKENS 64
#define STRICT_BUCKETS 1024     /* (route, channel or webhook) windows strict mode keeps */
#define STRICT_ALL_N 50         /* bot calls a second: the global limit */
#define STRICT_ANSWER_MS 3000   /* an interaction's initial response, after its creation */
#define DC_EPOCH_MS 1420070400000LL

/* One bucket's window in strict mode: limit calls from start for window_ms. */
struct window {
	char key[300];
	long long start;
	int count;
};

/* What strict mode adds to an answer: the X-RateLimit-* headers, or a 429's. */
struct limits {
	bool has;               /* a bucketed route: Limit, Remaining, Reset-After, Bucket */
	int limit, remaining;
	long long reset_after_ms;
	const char *bucket;
	bool refused, global;   /* a 429 (global: of the global limit) */
};

/* The answer being made on this connection's thread (thread per connection). */
static _Thread_local const struct limits *cur_limits;

struct original {
	char token[256];
	long long id;
};

struct fake_dc {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct MHD_Daemon *d;
	int port;
	char url[64];
	char bot_auth[256];     /* "Bot <token>" */

	struct fake_log log;
	struct fake_faults faults;
	char expired[FAKE_MAX_TOKENS][256];
	int nexpired;
	struct original originals[FAKE_MAX_TOKENS];
	int noriginals;
	/* channels where the bot user is not (the app added with applications.commands only) */
	struct {
		char channel[64];
		int code;
	} denied[FAKE_MAX_TOKENS];
	int ndenied;
	long long next_id;
	/* channel messages posted with enforce_nonce: the same nonce in a channel is the same message */
	struct {
		char channel[64];
		char nonce[32];
		long long id;
	} nonces[256];
	int nnonces;

	/* strict mode: Discord's limits enforced */
	bool strict;
	struct window *windows;     /* STRICT_BUCKETS of them, allocated when strict */
	long long all[STRICT_ALL_N];
	int all_next;
	int refused;                /* 429s answered by strict mode */
	int late;                   /* initial responses refused as too late */
	enum fake_dc_outage outage;
	bool stopping;              /* held calls go */
};

static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static enum MHD_Result respond(struct MHD_Connection *conn, int status, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
	struct MHD_Response *r;
	enum MHD_Result ret;

	json_decref(j);
	if (!text)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (cur_limits && cur_limits->has) {
		char v[32];

		snprintf(v, sizeof(v), "%d", cur_limits->limit);
		MHD_add_response_header(r, "X-RateLimit-Limit", v);
		snprintf(v, sizeof(v), "%d", cur_limits->remaining);
		MHD_add_response_header(r, "X-RateLimit-Remaining", v);
		snprintf(v, sizeof(v), "%.3f", (double)cur_limits->reset_after_ms / 1000.0);
		MHD_add_response_header(r, "X-RateLimit-Reset-After", v);
		snprintf(v, sizeof(v), "%.3f",
			 (double)(wall_ms() + cur_limits->reset_after_ms) / 1000.0);
		MHD_add_response_header(r, "X-RateLimit-Reset", v);
		MHD_add_response_header(r, "X-RateLimit-Bucket", cur_limits->bucket);
	}
	if (cur_limits && cur_limits->refused) {
		char v[32];

		snprintf(v, sizeof(v), "%lld", (cur_limits->reset_after_ms + 999) / 1000);
		MHD_add_response_header(r, "Retry-After", v);
		MHD_add_response_header(r, "X-RateLimit-Scope", cur_limits->global ? "global" : "user");
		if (cur_limits->global)
			MHD_add_response_header(r, "X-RateLimit-Global", "true");
	}
	ret = MHD_queue_response(conn, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result error_reply(struct MHD_Connection *conn, int status, const char *message,
				   int code)
{
	return respond(conn, status, json_pack("{sssi}", "message", message, "code", code));
}

/* A 429 from in front of Discord: a body that is not JSON, the wait only in Retry-After (secs). */
static enum MHD_Result text_429(struct MHD_Connection *conn, long secs)
{
	static const char text[] = "error code: 1015";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(text) - 1, (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;
	char v[32];

	if (!r)
		return MHD_NO;
	snprintf(v, sizeof(v), "%ld", secs);
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=UTF-8");
	MHD_add_response_header(r, "Retry-After", v);
	ret = MHD_queue_response(conn, 429, r);
	MHD_destroy_response(r);
	return ret;
}

/* The fault for this call, consuming it; 0 when none. Lock held. */
static enum fake_dc_fault take_fault(struct fake_dc *f, const char *method, const char *path,
				     long *arg)
{
	return (enum fake_dc_fault)fake_faults_take(&f->faults, method, path, arg);
}

static void record(struct fake_dc *f, const char *method, const char *path, const char *auth,
		   json_t *body, int status)
{
	fake_log_add(&f->log, method, path, auth, body, status);
	pthread_cond_broadcast(&f->cond);
}

/* The token of a webhook path "/webhooks/APP/TOKEN[/...]" into buf; false when not one. */
static bool webhook_token(const char *path, char *buf, size_t n)
{
	const char *app, *tok, *end;

	if (strncmp(path, "/webhooks/", 10))
		return false;
	app = path + 10;
	tok = strchr(app, '/');
	if (!tok)
		return false;
	tok++;
	end = strchr(tok, '/');
	snprintf(buf, n, "%.*s", (int)(end ? (size_t)(end - tok) : strlen(tok)), tok);
	return buf[0] != '\0';
}

static bool expired_locked(struct fake_dc *f, const char *token)
{
	for (int i = 0; i < f->nexpired; i++)
		if (strcmp(f->expired[i], token) == 0)
			return true;
	return false;
}

/* The refusal code for a bot call into a denied channel's path, 0 when allowed. Lock held. */
static int denied_locked(struct fake_dc *f, const char *path)
{
	size_t n;

	if (strncmp(path, "/channels/", 10))
		return 0;
	for (int i = 0; i < f->ndenied; i++) {
		n = strlen(f->denied[i].channel);
		if (strncmp(path + 10, f->denied[i].channel, n) == 0 &&
		    (path[10 + n] == '/' || path[10 + n] == '\0'))
			return f->denied[i].code;
	}
	return 0;
}

/* The message id of the original answer of the interaction with token. Lock held. */
static long long original_locked(struct fake_dc *f, const char *token)
{
	for (int i = 0; i < f->noriginals; i++)
		if (strcmp(f->originals[i].token, token) == 0)
			return f->originals[i].id;
	if (f->noriginals < FAKE_MAX_TOKENS) {
		snprintf(f->originals[f->noriginals].token, sizeof(f->originals[0].token), "%s", token);
		f->originals[f->noriginals].id = f->next_id;
		f->noriginals++;
	}
	return f->next_id++;
}

long long fake_dc_original_id(struct fake_dc *f, const char *token)
{
	long long id;

	pthread_mutex_lock(&f->lock);
	id = original_locked(f, token);
	pthread_mutex_unlock(&f->lock);
	return id;
}

/* A message object as Discord answers it: id, channel_id, content, components, flags. */
static json_t *message(long long id, const char *channel, const json_t *body)
{
	json_t *m = json_object();
	char idtext[32];

	snprintf(idtext, sizeof(idtext), "%lld", id);
	json_object_set_new(m, "id", json_string(idtext));
	if (channel)
		json_object_set_new(m, "channel_id", json_string(channel));
	json_object_set(m, "content", json_object_get(body, "content"));
	json_object_set(m, "components", json_object_get(body, "components"));
	if (json_object_get(body, "flags"))
		json_object_set(m, "flags", json_object_get(body, "flags"));
	return m;
}

/* The answer to a call that is not faulted. */
static enum MHD_Result success(struct fake_dc *f, struct MHD_Connection *conn, const char *method,
			       const char *path, const json_t *body, const char *token)
{
	char channel[64] = "", rest[128] = "";
	long long id;

	if (token) {
		const char *msg = strstr(path, "/messages/");

		pthread_mutex_lock(&f->lock);
		if (msg && strcmp(msg, "/messages/@original") == 0)
			id = original_locked(f, token);
		else if (msg)
			id = strtoll(msg + 10, NULL, 10); /* a follow-up edited by its id */
		else
			id = f->next_id++;
		pthread_mutex_unlock(&f->lock);
		return respond(conn, 200, message(id, NULL, body));
	}
	if (strncmp(path, "/channels/", 10) == 0) {
		const char *slash = strchr(path + 10, '/');

		snprintf(channel, sizeof(channel), "%.*s",
			 (int)(slash ? (size_t)(slash - path - 10) : strlen(path + 10)), path + 10);
		if (slash && strncmp(slash, "/messages/", 10) == 0)
			snprintf(rest, sizeof(rest), "%s", slash + 10);
		if (strcmp(method, "PATCH") == 0 && rest[0])
			return respond(conn, 200, message(strtoll(rest, NULL, 10), channel, body));
		pthread_mutex_lock(&f->lock);
		id = 0;
		if (json_is_true(json_object_get(body, "enforce_nonce")) &&
		    json_is_string(json_object_get(body, "nonce"))) {
			/* as Discord does: a nonce seen again in the channel answers the message it made */
			const char *nonce = json_string_value(json_object_get(body, "nonce"));

			for (int i = 0; i < f->nnonces && !id; i++)
				if (!strcmp(f->nonces[i].channel, channel) && !strcmp(f->nonces[i].nonce, nonce))
					id = f->nonces[i].id;
			if (!id) {
				id = f->next_id++;
				if (f->nnonces < (int)(sizeof(f->nonces) / sizeof(f->nonces[0]))) {
					snprintf(f->nonces[f->nnonces].channel, sizeof(f->nonces[0].channel), "%s", channel);
					snprintf(f->nonces[f->nnonces].nonce, sizeof(f->nonces[0].nonce), "%s", nonce);
					f->nonces[f->nnonces++].id = id;
				}
			}
		} else {
			id = f->next_id++;
		}
		pthread_mutex_unlock(&f->lock);
		return respond(conn, 200, message(id, channel, body));
	}
	if (strncmp(path, "/applications/", 14) == 0 && strcmp(method, "PUT") == 0) {
		json_t *out = json_deep_copy(body), *c;
		size_t i;

		json_array_foreach(out, i, c) {
			char idtext[32];

			snprintf(idtext, sizeof(idtext), "%lld", 800000000000000000LL + (long long)i);
			json_object_set_new(c, "id", json_string(idtext));
		}
		return respond(conn, 200, out);
	}
	if (strcmp(path, "/users/@me") == 0 && strcmp(method, "GET") == 0)
		return respond(conn, 200, json_pack("{sssssb}", "id", "4242", "username", "gamebot", "bot", 1));
	return error_reply(conn, 404, "404: Not Found", 0);
}

/*
 * The bucket of a call as Discord keeps it: a channel's message posts,
 * its edits (5 each per 5 s), an interaction webhook's calls (5 per 2 s);
 * its key (route and major parameter) into key. false: not bucketed.
 */
static bool bucket_of(const char *method, const char *path, char *key, size_t n, int *limit,
		      long long *window_ms, const char **name)
{
	char token[256];
	const char *slash;

	if (webhook_token(path, token, sizeof(token))) {
		snprintf(key, n, "hook:%s", token);
		*limit = 5;
		*window_ms = 2000;
		*name = "b7e0c6a1d2f9e8a7webhook";
		return true;
	}
	if (strncmp(path, "/channels/", 10))
		return false;
	slash = strchr(path + 10, '/');
	if (!slash || strncmp(slash, "/messages", 9))
		return false;
	*limit = 5;
	*window_ms = 5000;
	if (!strcmp(method, "POST") && slash[9] == '\0') {
		snprintf(key, n, "post:%.*s", (int)(slash - path - 10), path + 10);
		*name = "80c17d2f203122d936070c88c8d10f33";
	} else {
		snprintf(key, n, "edit:%.*s", (int)(slash - path - 10), path + 10);
		*name = "f9b4a1e0d8c2e3b5a6c7d8e9f0a1b2c3";
	}
	return true;
}

/* key's window at now, started afresh when over (NULL when the table is full). Lock held. */
static struct window *window_of(struct fake_dc *f, const char *key, long long now,
				long long window_ms)
{
	struct window *free_w = NULL;

	for (int i = 0; i < STRICT_BUCKETS; i++) {
		struct window *w = &f->windows[i];

		if (!w->key[0] || now - w->start >= 10 * window_ms) {
			if (!free_w)
				free_w = w;
			continue;
		}
		if (strcmp(w->key, key))
			continue;
		if (now - w->start >= window_ms) {
			w->start = now;
			w->count = 0;
		}
		return w;
	}
	if (free_w) {
		snprintf(free_w->key, sizeof(free_w->key), "%s", key);
		free_w->start = now;
		free_w->count = 0;
	}
	return free_w;
}

/*
 * Strict mode's verdict on a call (lock held) into *l: the bot's calls
 * are at most 50 in any second (else a global 429), a bucket's at most its
 * limit in its window (else a 429 of the bucket); a call that goes is
 * counted. Interactions' initial responses are not calls of the bot.
 */
static void strict_verdict(struct fake_dc *f, const char *method, const char *path, bool as_bot,
			   struct limits *l)
{
	long long now = fake_mono_ms(), window_ms = 0, t = f->all[f->all_next];
	char key[300];
	struct window *w = NULL;
	int limit = 0;

	memset(l, 0, sizeof(*l));
	if (!f->strict)
		return;
	if (as_bot && t && now - t < 1000) {
		l->refused = l->global = true;
		l->reset_after_ms = 1000 - (now - t);
		f->refused++;
		return;
	}
	if (bucket_of(method, path, key, sizeof(key), &limit, &window_ms, &l->bucket))
		w = window_of(f, key, now, window_ms);
	if (w) {
		l->has = true;
		l->limit = limit;
		l->reset_after_ms = w->start + window_ms - now;
		if (w->count >= limit) {
			l->refused = true;
			l->remaining = 0;
			f->refused++;
			return;
		}
		w->count++;
		l->remaining = limit - w->count;
	}
	if (as_bot) {
		f->all[f->all_next] = now;
		f->all_next = (f->all_next + 1) % STRICT_ALL_N;
	}
}

/* An interaction's initial response (POST /interactions/ID/TOKEN/callback) made too late? Lock held. */
static bool too_late(struct fake_dc *f, const char *method, const char *path)
{
	unsigned long long id;
	char *end = NULL;

	if (!f->strict || strcmp(method, "POST") || strncmp(path, "/interactions/", 14))
		return false;
	id = strtoull(path + 14, &end, 10);
	if (end == path + 14 || *end != '/')
		return false;
	if (wall_ms() - ((long long)(id >> 22) + DC_EPOCH_MS) <= STRICT_ANSWER_MS)
		return false;
	f->late++;
	return true;
}

static enum MHD_Result answer(struct fake_dc *f, struct MHD_Connection *conn, const char *method,
			      const char *path, struct fake_upload *up)
{
	const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	char token[256];
	bool is_webhook = webhook_token(path, token, sizeof(token));
	json_error_t jerr;
	json_t *body = up->len ? json_loadb(up->buf, up->len, 0, &jerr) : NULL;
	enum fake_dc_fault kind;
	long arg = 0;
	int status = 200, denied = 0;
	bool expired, late = false, callback = !strncmp(path, "/interactions/", 14);
	struct limits lim = { 0 };
	enum MHD_Result ret;

	if (!body)
		body = json_null();
	pthread_mutex_lock(&f->lock);
	if (f->outage && (f->outage != FAKE_DC_OUT_401 || !is_webhook)) {
		status = f->outage == FAKE_DC_OUT_401 ? 401 : 502;
		record(f, method, path, auth, json_deep_copy(body), status);
		while (f->outage == FAKE_DC_OUT_TIMEOUT && !f->stopping)
			pthread_cond_wait(&f->cond, &f->lock);
		pthread_mutex_unlock(&f->lock);
		json_decref(body);
		return status == 401 ? error_reply(conn, 401, "401: Unauthorized", 0)
				     : error_reply(conn, 502, "502: Bad Gateway", 0);
	}
	expired = is_webhook && expired_locked(f, token);
	kind = take_fault(f, method, path, &arg);
	denied = is_webhook ? 0 : denied_locked(f, path);
	if (callback)
		late = too_late(f, method, path);
	else if (!kind)
		strict_verdict(f, method, path, !is_webhook, &lim);
	if (late)
		status = 404;
	else if (callback)
		status = 204;
	else if (!is_webhook && (!auth || strcmp(auth, f->bot_auth)))
		status = 401;
	else if (lim.refused)
		status = 429;
	else if (denied)
		status = 403;
	else if (expired)
		status = 401; /* as Discord answers a token past its fifteen minutes */
	else if (kind == FAKE_DC_429 || kind == FAKE_DC_429_GLOBAL || kind == FAKE_DC_429_TEXT)
		status = 429;
	else if (kind == FAKE_DC_404 || kind == FAKE_DC_UNKNOWN_CHANNEL)
		status = 404;
	else if (kind == FAKE_DC_403)
		status = 403;
	else if (kind == FAKE_DC_500)
		status = 500;
	/* a copy of its own: this thread goes on with body while a test reads the record */
	record(f, method, path, auth, json_deep_copy(body), status);
	pthread_mutex_unlock(&f->lock);
	if (kind == FAKE_DC_SLOW && arg > 0) {
		/* recorded on arrival, answered late: a thread per connection, so only this call waits */
		fake_ms_sleep(arg);
	}

	cur_limits = &lim;
	switch (status) {
	case 204: {
		struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);

		ret = r ? MHD_queue_response(conn, 204, r) : MHD_NO;
		if (r)
			MHD_destroy_response(r);
		break;
	}
	case 401:
		ret = expired ? error_reply(conn, 401, "Invalid Webhook Token", 50027)
			      : error_reply(conn, 401, "401: Unauthorized", 0);
		break;
	case 404:
		ret = late ? error_reply(conn, 404, "Unknown interaction", 10062)
		     : expired ? error_reply(conn, 404, "Unknown Webhook", 10015)
		     : kind == FAKE_DC_UNKNOWN_CHANNEL ? error_reply(conn, 404, "Unknown Channel", 10003)
						       : error_reply(conn, 404, "Unknown Message", 10008);
		break;
	case 429:
		if (kind == FAKE_DC_429_TEXT)
			ret = text_429(conn, arg);
		else if (lim.refused)
			ret = respond(conn, 429,
				      json_pack("{sssfsbsi}", "message", "You are being rate limited.",
						"retry_after", (double)lim.reset_after_ms / 1000.0, "global",
						lim.global, "code", 0));
		else
			ret = respond(conn, 429,
				      json_pack("{sssfsb}", "message", "You are being rate limited.",
						"retry_after", (double)arg / 1000.0, "global",
						kind == FAKE_DC_429_GLOBAL));
		break;
	case 403:
		ret = denied == 50013 ? error_reply(conn, 403, "Missing Permissions", 50013)
				      : error_reply(conn, 403, "Missing Access", 50001);
		break;
	case 500:
		ret = error_reply(conn, 500, "500: Internal Server Error", 0);
		break;
	default:
		ret = success(f, conn, method, path, body, is_webhook ? token : NULL);
		break;
	}
	cur_limits = NULL;
	json_decref(body);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	struct fake_dc *f = cls;
	struct fake_upload *up = NULL;

	(void)version;
	if (fake_upload_step(con_cls, data, data_size, FAKE_MAX_BODY, &up) != FAKE_UPLOAD_DONE)
		return up ? MHD_YES : MHD_NO;
	if (up->too_big)
		return error_reply(conn, 413, "Request Entity Too Large", 0);
	return answer(f, conn, method, url, up);
}

/* Listen on 127.0.0.1:port (0: a free one); f->port gets it. 0, or -1. */
static int listen_on(struct fake_dc *f, int port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;

	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
					MHD_USE_ERROR_LOG,
				(uint16_t)port, NULL, NULL, on_request, f, MHD_OPTION_SOCK_ADDR,
				(struct sockaddr *)&addr, MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
				MHD_OPTION_NOTIFY_COMPLETED, fake_upload_done, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30, MHD_OPTION_END);
	if (!f->d)
		return -1;
	info = MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT);
	f->port = info ? info->port : port;
	return 0;
}

/* Stop listening; calls held by an outage go first. */
static void stop_listening(struct fake_dc *f)
{
	if (!f->d)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	MHD_stop_daemon(f->d);
	f->d = NULL;
	pthread_mutex_lock(&f->lock);
	f->stopping = false;
	pthread_mutex_unlock(&f->lock);
}

int fake_dc_outage(struct fake_dc *f, enum fake_dc_outage kind)
{
	int rc = 0;

	if (kind == FAKE_DC_OUT_REFUSED) {
		stop_listening(f);
	} else if (!f->d) {
		/* the port may linger a moment after the stop: try for a second */
		rc = -1;
		for (int i = 0; i < 100 && rc; i++) {
			rc = listen_on(f, f->port);
			if (rc)
				fake_ms_sleep(10);
		}
	}
	pthread_mutex_lock(&f->lock);
	f->outage = kind;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

int fake_dc_start(struct fake_dc **out, const char *bot_token)
{
	struct fake_dc *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	snprintf(f->bot_auth, sizeof(f->bot_auth), "Bot %s", bot_token);
	f->next_id = 900000000000000001LL;
	if (listen_on(f, 0)) {
		fake_dc_free(f);
		return -1;
	}
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
	*out = f;
	return 0;
}

void fake_dc_free(struct fake_dc *f)
{
	if (!f)
		return;
	stop_listening(f);
	fake_log_free(&f->log);
	free(f->windows);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

int fake_dc_strict(struct fake_dc *f, bool on)
{
	int rc = 0;

	pthread_mutex_lock(&f->lock);
	if (on && !f->windows)
		f->windows = calloc(STRICT_BUCKETS, sizeof(*f->windows));
	if (on && !f->windows)
		rc = -1;
	else
		f->strict = on;
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void fake_dc_strict_counts(struct fake_dc *f, int *refused, int *late)
{
	pthread_mutex_lock(&f->lock);
	if (refused)
		*refused = f->refused;
	if (late)
		*late = f->late;
	pthread_mutex_unlock(&f->lock);
}

const char *fake_dc_url(const struct fake_dc *f)
{
	return f->url;
}

void fake_dc_fault(struct fake_dc *f, const char *method, const char *prefix, int skip,
		   int count, enum fake_dc_fault kind, long arg)
{
	pthread_mutex_lock(&f->lock);
	fake_faults_add(&f->faults, method, prefix, skip, count, (int)kind, arg);
	pthread_mutex_unlock(&f->lock);
}

void fake_dc_faults_clear(struct fake_dc *f)
{
	pthread_mutex_lock(&f->lock);
	f->faults.n = 0;
	pthread_mutex_unlock(&f->lock);
}

void fake_dc_deny_channel(struct fake_dc *f, const char *channel, int code)
{
	pthread_mutex_lock(&f->lock);
	if (f->ndenied < FAKE_MAX_TOKENS) {
		snprintf(f->denied[f->ndenied].channel, sizeof(f->denied[0].channel), "%s", channel);
		f->denied[f->ndenied++].code = code == 50013 ? 50013 : 50001;
	}
	pthread_mutex_unlock(&f->lock);
}

void fake_dc_expire_token(struct fake_dc *f, const char *token)
{
	pthread_mutex_lock(&f->lock);
	if (f->nexpired < FAKE_MAX_TOKENS)
		snprintf(f->expired[f->nexpired++], sizeof(f->expired[0]), "%s", token);
	pthread_mutex_unlock(&f->lock);
}





bool fake_dc_settle(struct fake_dc *f, int ms)
{
	return fake_settle(f->d, ms);
}

int fake_dc_count(struct fake_dc *f, const char *method, const char *prefix)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = fake_log_count(&f->log, method, prefix);
	pthread_mutex_unlock(&f->lock);
	return n;
}

json_t *fake_dc_call(struct fake_dc *f, int i, char *method, size_t nm, char *path, size_t np,
		     char *auth, size_t na, int *status)
{
	const struct fake_call *c;
	json_t *body = NULL;

	pthread_mutex_lock(&f->lock);
	if ((c = fake_log_at(&f->log, i))) {
		body = json_incref(c->body);
		if (method)
			snprintf(method, nm, "%s", c->method);
		if (path)
			snprintf(path, np, "%s", c->path);
		if (auth)
			snprintf(auth, na, "%s", c->auth);
		if (status)
			*status = c->status;
	}
	pthread_mutex_unlock(&f->lock);
	return body;
}

json_t *fake_dc_nth(struct fake_dc *f, const char *method, const char *prefix, int i, char *path,
		    size_t np)
{
	json_t *body = NULL;
	int k;

	pthread_mutex_lock(&f->lock);
	if ((k = fake_log_find(&f->log, method, prefix, i)) >= 0) {
		body = json_incref(f->log.calls[k].body);
		if (path)
			snprintf(path, np, "%s", f->log.calls[k].path);
	}
	pthread_mutex_unlock(&f->lock);
	return body;
}

json_t *fake_dc_last(struct fake_dc *f, const char *method, const char *prefix, char *path,
		     size_t np)
{
	int n = fake_dc_count(f, method, prefix);

	return n ? fake_dc_nth(f, method, prefix, n - 1, path, np) : NULL;
}

int fake_dc_wait(struct fake_dc *f, const char *method, const char *prefix, int count,
		 int timeout_ms)
{
	return fake_log_wait(&f->log, &f->lock, &f->cond, method, prefix, count, timeout_ms);
}

long long fake_dc_call_at(struct fake_dc *f, int i)
{
	const struct fake_call *c;
	long long at = -1;

	pthread_mutex_lock(&f->lock);
	if ((c = fake_log_at(&f->log, i)))
		at = c->ms;
	pthread_mutex_unlock(&f->lock);
	return at;
}

void fake_dc_clear(struct fake_dc *f)
{
	pthread_mutex_lock(&f->lock);
	fake_log_clear(&f->log);
	pthread_mutex_unlock(&f->lock);
}

void fake_dc_dump(struct fake_dc *f)
{
	pthread_mutex_lock(&f->lock);
	fake_log_dump(&f->log, true);
	pthread_mutex_unlock(&f->lock);
}
