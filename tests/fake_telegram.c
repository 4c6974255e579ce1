/*
 * fake_telegram.c - see fake_telegram.h. libmicrohttpd with a thread per
 * connection, so a slow answer or a long poll never holds up another call.
 * One mutex guards everything the test and the connections share; a
 * condition variable wakes long polls (a new update) and waiting tests (a
 * new call).
 */
#include "fake_telegram.h"
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
#include <unistd.h>

#define FAKE_MAX_BODY (1024 * 1024)
#define FAKE_MAX_MEMBERS 64
#define FAKE_MAX_TOPICS 64
#define FAKE_POLL_CAP_S 5   /* a long poll never waits longer, whatever it asks */
#define STRICT_CHATS 2048   /* chats whose sends strict mode remembers */
#define STRICT_QUERIES 8192 /* callback queries whose birth it remembers */
#define GROUP_N 20          /* Telegram: messages a minute in a group */
#define ALL_N 30            /* messages a second overall */
#define QUERY_TTL_MS 10000  /* a callback query older than this cannot be answered */

/* Strict mode: one chat's last sends. */
struct sent {
	char chat[64];
	long long at[GROUP_N];  /* ring */
	int next;
};

struct query {
	char id[64];
	long long born;
};

struct member {
	char chat[64], user[64], status[32];
};

struct topic {
	char chat[64];
	long long thread;       /* 0: General */
	enum fake_tg_topic state;
};

struct update {
	long long id;
	json_t *json;
};

struct fake_tg {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct MHD_Daemon *d;
	int port;
	char url[64];
	char token[160];
	char username[64];
	bool stopping;

	struct fake_log log;
	struct fake_faults faults;
	struct member members[FAKE_MAX_MEMBERS];
	int nmembers;
	struct topic topics[FAKE_MAX_TOPICS];
	int ntopics;
	struct update *updates;
	int nupdates, capupdates;
	long long next_update;
	long long next_message;

	bool no_inline;         /* getMe: supports_inline_queries false */
	char closed[FAKE_MAX_MEMBERS][64]; /* users who never started the bot */
	int nclosed;

	bool strict;
	bool held;              /* requests wait before they are recorded (fake_tg_hold()) */
	enum fake_tg_outage outage;
	int busy;               /* requests being answered now (a long poll, a slow answer) */
	struct sent *chats;     /* STRICT_CHATS of them */
	int nchats;
	long long all[ALL_N];   /* ring of the last sends overall */
	int all_next;
	struct query *queries;  /* STRICT_QUERIES, a ring */
	int query_next;
};

/* A chat_id or user_id as text, whether the body sent a number or a string. */
static void id_text(const json_t *v, char *buf, size_t n)
{
	if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else
		snprintf(buf, n, "?");
}

static enum MHD_Result respond(struct MHD_Connection *conn, int status, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT);
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
	ret = MHD_queue_response(conn, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result error_reply(struct MHD_Connection *conn, int status, const char *desc,
				   json_t *params)
{
	json_t *j = json_object();

	json_object_set_new(j, "ok", json_false());
	json_object_set_new(j, "error_code", json_integer(status));
	json_object_set_new(j, "description", json_string(desc));
	if (params)
		json_object_set_new(j, "parameters", params);
	return respond(conn, status, j);
}

static enum MHD_Result ok_reply(struct MHD_Connection *conn, json_t *result)
{
	json_t *j = json_object();

	json_object_set_new(j, "ok", json_true());
	json_object_set_new(j, "result", result);
	return respond(conn, 200, j);
}

/* The fault for this call of method, consuming it; 0 when none. Lock held. */
static enum fake_tg_fault take_fault(struct fake_tg *f, const char *method, long *arg)
{
	return (enum fake_tg_fault)fake_faults_take(&f->faults, method, NULL, arg);
}

static int fault_status(enum fake_tg_fault kind)
{
	switch (kind) {
	case FAKE_TG_429:
		return 429;
	case FAKE_TG_500:
		return 500;
	case FAKE_TG_403:
	case FAKE_TG_KICKED:
		return 403;
	case FAKE_TG_SLOW:
		return 200;
	default:
		return 400;
	}
}

static void record(struct fake_tg *f, const char *method, json_t *body, int status)
{
	fake_log_add(&f->log, method, NULL, NULL, body, status);
	pthread_cond_broadcast(&f->cond);
}

/* Remember when callback query id was made (strict mode refuses late answers). Lock held. */
static void note_query(struct fake_tg *f, const char *id, long long now)
{
	if (!f->queries || !id || !id[0])
		return;
	snprintf(f->queries[f->query_next].id, sizeof(f->queries[0].id), "%s", id);
	f->queries[f->query_next].born = now;
	f->query_next = (f->query_next + 1) % STRICT_QUERIES;
}

/* The send history of chat, made when new (NULL when full). Lock held. */
static struct sent *sent_of(struct fake_tg *f, const char *chat)
{
	for (int i = 0; i < f->nchats; i++)
		if (!strcmp(f->chats[i].chat, chat))
			return &f->chats[i];
	if (f->nchats == STRICT_CHATS)
		return NULL;
	memset(&f->chats[f->nchats], 0, sizeof(f->chats[0]));
	snprintf(f->chats[f->nchats].chat, sizeof(f->chats[0].chat), "%s", chat);
	return &f->chats[f->nchats++];
}

/*
 * Strict mode's verdict on a call (lock held): 0 when it goes on, else
 * the status it is refused with (*retry_after: seconds, with 429). A
 * message that goes is counted. Telegram's documented limits: one message
 * a second in a chat, twenty a minute in a group, thirty a second overall;
 * answers to callback and inline queries are not messages, but a callback
 * query cannot be answered after QUERY_TTL_MS.
 */
static int strict_verdict(struct fake_tg *f, const char *method, const json_t *body,
			  long long now, long *retry_after)
{
	const char *qid = json_string_value(json_object_get(body, "callback_query_id"));
	struct sent *c;
	long long wait = 0, t;
	char chat[64];

	if (!f->strict)
		return 0;
	if (!strcmp(method, "answerCallbackQuery")) {
		for (int i = 0; qid && i < STRICT_QUERIES; i++)
			if (f->queries[i].id[0] && !strcmp(f->queries[i].id, qid))
				return now - f->queries[i].born > QUERY_TTL_MS ? 400 : 0;
		return 0;
	}
	if (!json_object_get(body, "chat_id") || !strncmp(method, "get", 3) ||
	    !strncmp(method, "answer", 6))
		return 0;
	id_text(json_object_get(body, "chat_id"), chat, sizeof(chat));
	c = sent_of(f, chat);
	t = f->all[f->all_next];
	if (t && now - t < 1000)
		wait = 1000 - (now - t);
	t = c ? c->at[(c->next + GROUP_N - 1) % GROUP_N] : 0;
	if (!wait && t && now - t < 1000)
		wait = 1000 - (now - t);
	t = c ? c->at[c->next] : 0;
	if (!wait && chat[0] == '-' && t && now - t < 60000)
		wait = 60000 - (now - t);
	if (wait) {
		*retry_after = (long)((wait + 999) / 1000);
		return 429;
	}
	if (c) {
		c->at[c->next] = now;
		c->next = (c->next + 1) % GROUP_N;
	}
	f->all[f->all_next] = now;
	f->all_next = (f->all_next + 1) % ALL_N;
	return 0;
}

static json_t *get_updates(struct fake_tg *f, const json_t *body)
{
	long long offset = json_integer_value(json_object_get(body, "offset"));
	long long limit = json_integer_value(json_object_get(body, "limit"));
	long long timeout = json_integer_value(json_object_get(body, "timeout"));
	json_t *out = json_array();
	struct timespec until;
	int kept = 0;

	if (limit <= 0 || limit > 100)
		limit = 100;
	if (timeout > FAKE_POLL_CAP_S)
		timeout = FAKE_POLL_CAP_S;
	fake_deadline_in(&until, (long)(timeout > 0 ? timeout : 0) * 1000);
	pthread_mutex_lock(&f->lock);
	for (;;) {
		/* an offset confirms every update before it: they are gone for good */
		kept = 0;
		for (int i = 0; i < f->nupdates; i++) {
			if (offset && f->updates[i].id < offset)
				json_decref(f->updates[i].json);
			else
				f->updates[kept++] = f->updates[i];
		}
		f->nupdates = kept;
		if (f->nupdates || timeout <= 0 || f->stopping)
			break;
		if (pthread_cond_timedwait(&f->cond, &f->lock, &until) == ETIMEDOUT)
			break;
	}
	for (int i = 0; i < f->nupdates && i < limit; i++)
		json_array_append(out, f->updates[i].json);
	pthread_mutex_unlock(&f->lock);
	return out;
}

/* The answer of a call that is not faulted. Consumes nothing; returns a new result. */
static json_t *result_of(struct fake_tg *f, const char *method, const json_t *body, int *status)
{
	char chat[64], user[64];

	*status = 200;
	if (strcmp(method, "sendMessage") == 0 || strcmp(method, "editMessageText") == 0) {
		json_t *m = json_object(), *c = json_object();
		long long id;

		pthread_mutex_lock(&f->lock);
		id = strcmp(method, "sendMessage") == 0 ? f->next_message++
			: json_integer_value(json_object_get(body, "message_id"));
		pthread_mutex_unlock(&f->lock);
		json_object_set_new(m, "message_id", json_integer(id));
		json_object_set(c, "id", json_object_get(body, "chat_id"));
		json_object_set_new(m, "chat", c);
		json_object_set_new(m, "date", json_integer((json_int_t)time(NULL)));
		json_object_set(m, "text", json_object_get(body, "text"));
		if (json_is_integer(json_object_get(body, "message_thread_id"))) {
			json_object_set(m, "message_thread_id", json_object_get(body, "message_thread_id"));
			json_object_set_new(m, "is_topic_message", json_true());
		}
		return m;
	}
	if (strcmp(method, "getChatMember") == 0) {
		json_t *m = json_object(), *u = json_object();
		const char *st = "member";

		id_text(json_object_get(body, "chat_id"), chat, sizeof(chat));
		id_text(json_object_get(body, "user_id"), user, sizeof(user));
		pthread_mutex_lock(&f->lock);
		for (int i = 0; i < f->nmembers; i++)
			if (!strcmp(f->members[i].chat, chat) && !strcmp(f->members[i].user, user))
				st = f->members[i].status;
		json_object_set_new(m, "status", json_string(st));
		pthread_mutex_unlock(&f->lock);
		json_object_set(u, "id", json_object_get(body, "user_id"));
		json_object_set_new(m, "user", u);
		return m;
	}
	if (strcmp(method, "getMe") == 0) {
		json_t *m = json_object();

		json_object_set_new(m, "id", json_integer(4242));
		json_object_set_new(m, "is_bot", json_true());
		json_object_set_new(m, "first_name", json_string("gamebot"));
		json_object_set_new(m, "username", json_string(f->username));
		json_object_set_new(m, "can_join_groups", json_true());
		json_object_set_new(m, "can_read_all_group_messages", json_false());
		json_object_set_new(m, "supports_inline_queries", json_boolean(!f->no_inline));
		return m;
	}
	if (strcmp(method, "getUpdates") == 0)
		return get_updates(f, body);
	return json_true();
}

/* Does a sendMessage body go to the private chat of a user who never started the bot? Lock held. */
static bool private_closed(struct fake_tg *f, const json_t *body)
{
	char chat[64];

	id_text(json_object_get(body, "chat_id"), chat, sizeof(chat));
	for (int i = 0; i < f->nclosed; i++)
		if (!strcmp(f->closed[i], chat))
			return true;
	return false;
}

/* The state of the topic a sendMessage body goes to. Lock held. */
static enum fake_tg_topic topic_state(struct fake_tg *f, const json_t *body)
{
	long long thread = json_integer_value(json_object_get(body, "message_thread_id"));
	char chat[64];

	id_text(json_object_get(body, "chat_id"), chat, sizeof(chat));
	for (int i = 0; i < f->ntopics; i++)
		if (!strcmp(f->topics[i].chat, chat) && f->topics[i].thread == thread)
			return f->topics[i].state;
	return FAKE_TG_TOPIC_OPEN;
}

static enum MHD_Result answer(struct fake_tg *f, struct MHD_Connection *conn, const char *url,
			      struct fake_upload *up)
{
	char prefix[200], method[64];
	size_t plen;
	json_error_t jerr;
	json_t *body, *result;
	enum fake_tg_fault kind;
	enum fake_tg_topic topic;
	long arg = 0;
	int status;

	plen = (size_t)snprintf(prefix, sizeof(prefix), "/bot%s/", f->token);
	if (strncmp(url, prefix, plen) != 0)
		return error_reply(conn, 401, "Unauthorized", NULL);
	snprintf(method, sizeof(method), "%s", url + plen);
	body = up->len ? json_loadb(up->buf, up->len, 0, &jerr) : json_object();
	if (!json_is_object(body)) {
		json_decref(body);
		body = json_object();
	}
	pthread_mutex_lock(&f->lock);
	while (f->held)
		pthread_cond_wait(&f->cond, &f->lock);
	if (f->outage == FAKE_TG_OUT_502 || f->outage == FAKE_TG_OUT_401 ||
	    f->outage == FAKE_TG_OUT_TIMEOUT) {
		status = f->outage == FAKE_TG_OUT_401 ? 401 : 502;
		record(f, method, json_deep_copy(body), status);
		/* held until the outage ends: the client's time limit comes first */
		while (f->outage == FAKE_TG_OUT_TIMEOUT && !f->stopping)
			pthread_cond_wait(&f->cond, &f->lock);
		pthread_mutex_unlock(&f->lock);
		json_decref(body);
		return error_reply(conn, status, status == 401 ? "Unauthorized" : "Bad Gateway", NULL);
	}
	topic = strcmp(method, "sendMessage") ? FAKE_TG_TOPIC_OPEN : topic_state(f, body);
	if (topic) {
		record(f, method, json_deep_copy(body), 400);
		pthread_mutex_unlock(&f->lock);
		json_decref(body);
		return error_reply(conn, 400, topic == FAKE_TG_TOPIC_CLOSED ? "Bad Request: TOPIC_CLOSED"
					     : "Bad Request: message thread not found", NULL);
	}
	if (!strcmp(method, "sendMessage") && private_closed(f, body)) {
		record(f, method, json_deep_copy(body), 403);
		pthread_mutex_unlock(&f->lock);
		json_decref(body);
		return error_reply(conn, 403, "Forbidden: bot can't initiate conversation with a user", NULL);
	}
	kind = take_fault(f, method, &arg);
	status = kind ? fault_status(kind) : strict_verdict(f, method, body, fake_mono_ms(), &arg);
	if (!status)
		status = 200;
	else if (!kind && status == 429)
		kind = FAKE_TG_429;
	/*
	 * The record gets a copy of its own: this thread goes on reading and
	 * releasing body while a test reads the record, and json_incref()
	 * reads a shared count without an atomic load.
	 */
	record(f, method, json_deep_copy(body), status);
	pthread_mutex_unlock(&f->lock);
	if (!kind && status == 400) {
		json_decref(body);
		return error_reply(conn, 400, "Bad Request: query is too old and response timeout "
				   "expired or query ID is invalid", NULL);
	}

	switch (kind) {
	case FAKE_TG_429: {
		json_t *p = json_object();
		char desc[80];

		json_object_set_new(p, "retry_after", json_integer(arg));
		snprintf(desc, sizeof(desc), "Too Many Requests: retry after %ld", arg);
		json_decref(body);
		return error_reply(conn, 429, desc, p);
	}
	case FAKE_TG_500:
		json_decref(body);
		return error_reply(conn, 500, "Internal Server Error", NULL);
	case FAKE_TG_NOT_MODIFIED:
		json_decref(body);
		return error_reply(conn, 400,
				   "Bad Request: message is not modified: specified new message content "
				   "and reply markup are exactly the same as a current content and reply "
				   "markup of the message", NULL);
	case FAKE_TG_NOT_FOUND:
		json_decref(body);
		return error_reply(conn, 400, "Bad Request: message to edit not found", NULL);
	case FAKE_TG_403:
		json_decref(body);
		return error_reply(conn, 403, "Forbidden: bot can't initiate conversation with a user",
				   NULL);
	case FAKE_TG_400:
		json_decref(body);
		return error_reply(conn, 400, "Bad Request: chat not found", NULL);
	case FAKE_TG_KICKED:
		json_decref(body);
		return error_reply(conn, 403, "Forbidden: bot was kicked from the group chat", NULL);
	case FAKE_TG_DELETED:
		json_decref(body);
		return error_reply(conn, 403, "Forbidden: the group chat was deleted", NULL);
	case FAKE_TG_BLOCKED:
		json_decref(body);
		return error_reply(conn, 403, "Forbidden: bot was blocked by the user", NULL);
	case FAKE_TG_MIGRATE: {
		json_t *p = json_object();

		json_object_set_new(p, "migrate_to_chat_id", json_integer(arg));
		json_decref(body);
		return error_reply(conn, 400, "Bad Request: group chat was upgraded to a supergroup chat",
				   p);
	}
	case FAKE_TG_SLOW:
		fake_ms_sleep(arg);
		break;
	default:
		break;
	}
	result = result_of(f, method, body, &status);
	json_decref(body);
	return ok_reply(conn, result);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	struct fake_tg *f = cls;
	struct fake_upload *up = NULL;
	enum MHD_Result ret;

	(void)version;
	if (fake_upload_step(con_cls, data, data_size, FAKE_MAX_BODY, &up) != FAKE_UPLOAD_DONE)
		return up ? MHD_YES : MHD_NO;
	if (up->too_big)
		return error_reply(conn, 413, "Request Entity Too Large", NULL);
	if (strcmp(method, "POST") && strcmp(method, "GET"))
		return error_reply(conn, 405, "Method Not Allowed", NULL);
	pthread_mutex_lock(&f->lock);
	f->busy++;
	pthread_mutex_unlock(&f->lock);
	ret = answer(f, conn, url, up);
	pthread_mutex_lock(&f->lock);
	f->busy--;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return ret;
}

static int listen_on(struct fake_tg *f, int port)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;

	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
					MHD_USE_ERROR_LOG,
				(uint16_t)port, NULL, NULL, on_request, f,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
				MHD_OPTION_NOTIFY_COMPLETED, fake_upload_done, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
				MHD_OPTION_END);
	if (!f->d)
		return -1;
	info = MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT);
	f->port = info ? info->port : port;
	return 0;
}

int fake_tg_start(struct fake_tg **out, const char *token, const char *username)
{
	struct fake_tg *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	snprintf(f->token, sizeof(f->token), "%s", token);
	snprintf(f->username, sizeof(f->username), "%s", username ? username : "gamebot_test_bot");
	f->next_update = 1000;
	f->next_message = 100;
	f->chats = calloc(STRICT_CHATS, sizeof(*f->chats));
	f->queries = calloc(STRICT_QUERIES, sizeof(*f->queries));
	if (!f->chats || !f->queries || listen_on(f, 0)) {
		fake_tg_free(f);
		return -1;
	}
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
	*out = f;
	return 0;
}

int fake_tg_outage(struct fake_tg *f, enum fake_tg_outage kind)
{
	int rc = 0;

	if (kind == FAKE_TG_OUT_REFUSED)
		fake_tg_down(f);
	else
		rc = fake_tg_up(f);
	pthread_mutex_lock(&f->lock);
	f->outage = kind;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void fake_tg_down(struct fake_tg *f)
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

int fake_tg_up(struct fake_tg *f)
{
	if (f->d)
		return 0;
	/* the port may linger a moment after the stop: try for a second */
	for (int i = 0; i < 100; i++) {
		if (listen_on(f, f->port) == 0)
			return 0;
		fake_ms_sleep(10);
	}
	return -1;
}

void fake_tg_free(struct fake_tg *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->outage = FAKE_TG_ANSWERING;
	pthread_mutex_unlock(&f->lock);
	fake_tg_down(f);
	fake_log_free(&f->log);
	for (int i = 0; i < f->nupdates; i++)
		json_decref(f->updates[i].json);
	free(f->updates);
	free(f->chats);
	free(f->queries);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

const char *fake_tg_url(const struct fake_tg *f)
{
	return f->url;
}

int fake_tg_port(const struct fake_tg *f)
{
	return f->port;
}

void fake_tg_fault(struct fake_tg *f, const char *method, int skip, int count,
		   enum fake_tg_fault kind, long arg)
{
	pthread_mutex_lock(&f->lock);
	fake_faults_add(&f->faults, method, NULL, skip, count, (int)kind, arg);
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_faults_clear(struct fake_tg *f)
{
	pthread_mutex_lock(&f->lock);
	f->faults.n = 0;
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_topic(struct fake_tg *f, const char *chat, long long thread, enum fake_tg_topic state)
{
	int i;

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->ntopics; i++)
		if (!strcmp(f->topics[i].chat, chat) && f->topics[i].thread == thread)
			break;
	if (i < FAKE_MAX_TOPICS) {
		snprintf(f->topics[i].chat, sizeof(f->topics[i].chat), "%s", chat);
		f->topics[i].thread = thread;
		f->topics[i].state = state;
		if (i == f->ntopics)
			f->ntopics++;
	}
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_member(struct fake_tg *f, const char *chat, const char *user, const char *status)
{
	pthread_mutex_lock(&f->lock);
	for (int i = 0; i < f->nmembers; i++) {
		if (!strcmp(f->members[i].chat, chat) && !strcmp(f->members[i].user, user)) {
			snprintf(f->members[i].status, sizeof(f->members[i].status), "%s", status);
			pthread_mutex_unlock(&f->lock);
			return;
		}
	}
	if (f->nmembers < FAKE_MAX_MEMBERS) {
		struct member *m = &f->members[f->nmembers++];

		snprintf(m->chat, sizeof(m->chat), "%s", chat);
		snprintf(m->user, sizeof(m->user), "%s", user);
		snprintf(m->status, sizeof(m->status), "%s", status);
	}
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_private(struct fake_tg *f, const char *user, bool open)
{
	pthread_mutex_lock(&f->lock);
	for (int i = 0; i < f->nclosed; i++)
		if (!strcmp(f->closed[i], user)) {
			if (i != f->nclosed - 1)
				memcpy(f->closed[i], f->closed[f->nclosed - 1], sizeof(f->closed[i]));
			f->nclosed--;
			i--;
		}
	if (!open && f->nclosed < FAKE_MAX_MEMBERS)
		snprintf(f->closed[f->nclosed++], sizeof(f->closed[0]), "%s", user);
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_inline(struct fake_tg *f, bool on)
{
	pthread_mutex_lock(&f->lock);
	f->no_inline = !on;
	pthread_mutex_unlock(&f->lock);
}

long long fake_tg_push_update(struct fake_tg *f, const char *update)
{
	json_error_t jerr;
	json_t *j = json_loads(update, JSON_ALLOW_NUL, &jerr);
	long long id = -1;

	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	pthread_mutex_lock(&f->lock);
	if (json_is_integer(json_object_get(j, "update_id"))) {
		id = json_integer_value(json_object_get(j, "update_id"));
		if (id >= f->next_update)
			f->next_update = id + 1;
	} else {
		id = f->next_update++;
		json_object_set_new(j, "update_id", json_integer(id));
	}
	if (f->nupdates == f->capupdates) {
		int cap = f->capupdates ? f->capupdates * 2 : 32;
		struct update *u = realloc(f->updates, (size_t)cap * sizeof(*u));

		if (!u) {
			pthread_mutex_unlock(&f->lock);
			json_decref(j);
			return -1;
		}
		f->updates = u;
		f->capupdates = cap;
	}
	note_query(f, json_string_value(json_object_get(json_object_get(j, "callback_query"), "id")),
		   fake_mono_ms());
	f->updates[f->nupdates].id = id;
	f->updates[f->nupdates].json = j;
	f->nupdates++;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return id;
}




bool fake_tg_settle(struct fake_tg *f, int ms)
{
	return fake_settle(f->d, ms);
}

bool fake_tg_quiet(struct fake_tg *f, int ms)
{
	struct timespec until;
	bool quiet;

	fake_deadline_in(&until, ms);
	pthread_mutex_lock(&f->lock);
	while (f->busy && pthread_cond_timedwait(&f->cond, &f->lock, &until) == 0)
		;
	quiet = f->busy == 0;
	pthread_mutex_unlock(&f->lock);
	return quiet;
}

void fake_tg_hold(struct fake_tg *f, bool hold)
{
	pthread_mutex_lock(&f->lock);
	f->held = hold;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int fake_tg_count(struct fake_tg *f, const char *method)
{
	int n;

	pthread_mutex_lock(&f->lock);
	n = fake_log_count(&f->log, method, NULL);
	pthread_mutex_unlock(&f->lock);
	return n;
}

json_t *fake_tg_call(struct fake_tg *f, int i, char *method, size_t n, int *status)
{
	const struct fake_call *c;
	json_t *body = NULL;

	pthread_mutex_lock(&f->lock);
	if ((c = fake_log_at(&f->log, i))) {
		body = json_incref(c->body);
		if (method)
			snprintf(method, n, "%s", c->method);
		if (status)
			*status = c->status;
	}
	pthread_mutex_unlock(&f->lock);
	return body;
}

json_t *fake_tg_nth(struct fake_tg *f, const char *method, int i)
{
	json_t *body = NULL;
	int k;

	pthread_mutex_lock(&f->lock);
	if ((k = fake_log_find(&f->log, method, NULL, i)) >= 0)
		body = json_incref(f->log.calls[k].body);
	pthread_mutex_unlock(&f->lock);
	return body;
}

int fake_tg_wait(struct fake_tg *f, const char *method, int count, int timeout_ms)
{
	return fake_log_wait(&f->log, &f->lock, &f->cond, method, NULL, count, timeout_ms);
}

void fake_tg_clear(struct fake_tg *f)
{
	pthread_mutex_lock(&f->lock);
	fake_log_clear(&f->log);
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_dump(struct fake_tg *f)
{
	pthread_mutex_lock(&f->lock);
	fake_log_dump(&f->log, false);
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_strict(struct fake_tg *f, bool on)
{
	pthread_mutex_lock(&f->lock);
	f->strict = on;
	pthread_mutex_unlock(&f->lock);
}

void fake_tg_query(struct fake_tg *f, const char *id)
{
	pthread_mutex_lock(&f->lock);
	note_query(f, id, fake_mono_ms());
	pthread_mutex_unlock(&f->lock);
}

long long fake_tg_call_ms(struct fake_tg *f, int i)
{
	const struct fake_call *c;
	long long ms = -1;

	pthread_mutex_lock(&f->lock);
	if ((c = fake_log_at(&f->log, i)))
		ms = c->ms;
	pthread_mutex_unlock(&f->lock);
	return ms;
}

long long fake_tg_now_ms(void)
{
	return fake_mono_ms();
}

int fake_tg_count_status(struct fake_tg *f, const char *method, int status)
{
	int n = 0;

	pthread_mutex_lock(&f->lock);
	for (int i = 0; i < f->log.n; i++)
		if (fake_log_matches(&f->log.calls[i], method, NULL) && f->log.calls[i].status == status)
			n++;
	pthread_mutex_unlock(&f->lock);
	return n;
}
