/*
 * http.c - see http.h. Three kinds of thread share a server:
 *
 *   the polling thread (libmicrohttpd, epoll) reads every connection and
 *     answers what needs no handler: /healthz, and 400, 404, 405, 413,
 *     501 and 503 refusals;
 *   the workers run route handlers: a complete request is suspended,
 *     queued, handled, and resumed with its response;
 *   the reaper shuts down connections that have held a deadline too long.
 *
 * libmicrohttpd's own timeout only measures silence, so a client sending a
 * byte a second would keep a connection for ever. The reaper closes that
 * gap: from its start (or the end of its previous request) a connection has
 * timeout_s to deliver a whole request, headers and body. It is disarmed
 * while the request is being handled and answered.
 *
 * A route's admission check runs when the headers are in: a request it
 * refuses is answered before its body is read, and what the client sends
 * after is dropped unread. A request admitted reserves its body's room in
 * the server's body budget (the declared length, or max_body) until it is
 * answered; one that does not fit gets 503 at once: the bodies read and
 * queued never hold more than the budget, however many clients send.
 *
 * Body bytes are buffered up to max_body and counted past it, never stored:
 * a declared Content-Length over the cap is refused before the body is
 * read; a chunked body that passes the cap is read to its end (the
 * deadline bounds how long) and refused then, because libmicrohttpd cannot
 * answer in the middle of a body.
 */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bot/base/log.h"
#include "games/error.h"

#define DEFAULT_MAX_CONNECTIONS 10000u
#define DEFAULT_TIMEOUT_S 10u
#define DEFAULT_WORKERS 4u
#define DEFAULT_MAX_BODY ((size_t)64 * 1024)
#define DEFAULT_BODY_BUDGET ((size_t)16 * 1024 * 1024)
/* Descriptors kept back from the listener for the store, the outbox and logs. */
#define FD_RESERVE 256u
/*
 * libmicrohttpd's per-connection pool holds the headers and the read
 * buffer. Webhook headers are small; 16 KiB keeps 10,000 connections
 * under 160 MiB where the 32 KiB default would need twice that.
 */
#define CONN_MEMORY ((size_t)16 * 1024)
/* How often the reaper looks for expired deadlines. */
#define REAP_TICK_MS 100u
/* How long http_stop() gives answered requests to reach their clients. */
#define STOP_GRACE_MS 2000u

struct route {
	char *method;
	char *path;
	http_handler fn;
	void *arg;
	http_admit admit;
};

/* One connection's deadline: a whole request must arrive before it. */
struct watch {
	struct watch *prev, *next;  /* in the server's list, earliest first */
	int fd;
	int armed;
	uint64_t deadline_ms;
};

enum req_state {
	REQ_READING,    /* headers seen, body arriving */
	REQ_QUEUED,     /* suspended, waiting for or inside a handler */
	REQ_ANSWERED,   /* a worker filled resp and resumed the connection */
	REQ_DONE        /* a response is queued; any further bytes are dropped */
};

/* One request from its headers to its response (libmicrohttpd's con_cls). */
struct request {
	struct request *next;           /* in the job queue */
	struct MHD_Connection *conn;
	enum req_state state;
	int route;                      /* first route matching method and path */
	int health;                     /* GET /healthz */
	int too_big;
	int queued;                     /* counted in the server's pending */
	size_t reserved;                /* bytes of the body budget held */
	char *body;
	size_t len, cap;
	char *hdr;                      /* method\0path\0 then name\0value\0 pairs */
	size_t nhdr;
	struct http_request req;
	struct http_response resp;
};

struct http_server {
	struct MHD_Daemon *d;
	MHD_socket quiesced;            /* listen socket handed back at stop */
	int port;
	struct route *routes;
	int nroutes;
	int (*health)(void *arg);
	void *health_arg;
	size_t max_body;
	size_t body_budget;
	char *health_path;              /* "" = none */
	uint64_t timeout_ms;

	pthread_mutex_t qlock;          /* the job queue and the fields below */
	pthread_cond_t qcond;           /* work queued, or stopping */
	pthread_cond_t idle;            /* CLOCK_MONOTONIC: pending dropped to 0 */
	struct request *qhead, *qtail;
	int stopping;
	unsigned pending;               /* queued requests not yet completed */
	size_t body_used;               /* of body_budget, reserved by requests */
	pthread_t *workers;
	unsigned nworkers;              /* started */

	pthread_mutex_t wlock;          /* the deadline list and reaper_stop */
	pthread_cond_t wcond;           /* CLOCK_MONOTONIC: reaper_stop set */
	struct watch *whead, *wtail;
	int reaper_stop;
	int reaper_started;
	pthread_t reaper;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void http_options_init(struct http_options *o)
{
	memset(o, 0, sizeof(*o));
	o->listen = "127.0.0.1:8080";
}

const char *http_header(const struct http_request *req, const char *name)
{
	const struct request *r = req->conn;
	const char *p = r && r->hdr ? r->hdr : NULL;
	const char *found = NULL;

	/* skip method and path */
	if (p) {
		p += strlen(p) + 1;
		p += strlen(p) + 1;
	}
	for (size_t i = 0; p && i < r->nhdr && !found; i++) {
		const char *value = p + strlen(p) + 1;

		if (strcasecmp(p, name) == 0)
			found = value;
		p = value + strlen(value) + 1;
	}
	return found;
}

/* ---- deadlines -------------------------------------------------------- */

static void watch_unlink(struct http_server *h, struct watch *w)
{
	if (w->armed) {
		if (w->prev)
			w->prev->next = w->next;
		else
			h->whead = w->next;
		if (w->next)
			w->next->prev = w->prev;
		else
			h->wtail = w->prev;
		w->prev = w->next = NULL;
		w->armed = 0;
	}
}

/* Every deadline is now + the same timeout, so appending keeps the list sorted. */
static void watch_arm(struct http_server *h, struct watch *w)
{
	pthread_mutex_lock(&h->wlock);
	watch_unlink(h, w);
	w->deadline_ms = now_ms() + h->timeout_ms;
	w->prev = h->wtail;
	if (h->wtail)
		h->wtail->next = w;
	else
		h->whead = w;
	h->wtail = w;
	w->armed = 1;
	pthread_mutex_unlock(&h->wlock);
}

static void watch_disarm(struct http_server *h, struct watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&h->wlock);
	watch_unlink(h, w);
	pthread_mutex_unlock(&h->wlock);
}

static struct watch *watch_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/*
 * shutdown() rather than close(): the descriptor stays libmicrohttpd's, which
 * sees end-of-stream and closes the connection on its own thread. The
 * descriptor cannot have been reused meanwhile: libmicrohttpd reports the
 * close (on_connection, which takes wlock) before it closes the socket.
 */
static void *reaper_main(void *arg)
{
	struct http_server *h = arg;

	pthread_mutex_lock(&h->wlock);
	while (!h->reaper_stop) {
		uint64_t now = now_ms();
		struct timespec until;

		while (h->whead && h->whead->deadline_ms <= now) {
			struct watch *w = h->whead;

			watch_unlink(h, w);
			shutdown(w->fd, SHUT_RDWR);
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += (long)REAP_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->wcond, &h->wlock, &until);
	}
	pthread_mutex_unlock(&h->wlock);
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_server *h = cls;
	struct watch *w = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		/* without memory or a descriptor only the idle timeout guards it */
		w = ci ? calloc(1, sizeof(*w)) : NULL;
		if (w) {
			w->fd = ci->connect_fd;
			watch_arm(h, w);
		}
		*socket_context = w;
	} else if (w) {
		watch_disarm(h, w);
		free(w);
		*socket_context = NULL;
	}
}

/* ---- responses --------------------------------------------------------- */

static struct MHD_Response *text_response(const char *text)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	return r;
}

/*
 * Queues r (consumed; NULL fails) and marks the request answered. The
 * deadline is left alone: a request answered before its body arrived must
 * still finish (or be cut) in time; on_completed() re-arms it.
 */
static enum MHD_Result queue(struct request *rq, unsigned status, struct MHD_Response *r)
{
	enum MHD_Result ret = MHD_NO;

	rq->state = REQ_DONE;
	if (r) {
		ret = MHD_queue_response(rq->conn, status, r);
		MHD_destroy_response(r);
	}
	return ret;
}

/*
 * An error answer, after which the connection closes: an unread body must
 * not be parsed as the next request, and a client this far off is not
 * worth keeping.
 */
static enum MHD_Result refuse(struct request *rq, unsigned status, const char *text)
{
	struct MHD_Response *r = text_response(text);

	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	return queue(rq, status, r);
}

static enum MHD_Result too_large(struct request *rq)
{
	return refuse(rq, MHD_HTTP_CONTENT_TOO_LARGE, "request too large\n");
}

static enum MHD_Result answer_health(struct http_server *h, struct request *rq)
{
	int sick = h->health ? h->health(h->health_arg) : 0;

	return queue(rq, sick ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK,
		     text_response(sick ? "unhealthy\n" : "ok\n"));
}

/* 405 naming, in Allow, every method routed for this path. */
static enum MHD_Result not_allowed(struct http_server *h, struct request *rq, const char *path)
{
	struct MHD_Response *r = text_response("method not allowed\n");
	char allow[256] = "";
	size_t used = 0;

	for (int i = 0; i < h->nroutes; i++) {
		int n, seen = 0;

		if (strcmp(h->routes[i].path, path))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(h->routes[j].path, path) &&
			       !strcmp(h->routes[j].method, h->routes[i].method);
		if (seen)
			continue;
		n = snprintf(allow + used, sizeof(allow) - used, "%s%s", used ? ", " : "",
			     h->routes[i].method);
		if (n < 0 || (size_t)n >= sizeof(allow) - used)
			break;
		used += (size_t)n;
	}
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	return queue(rq, MHD_HTTP_METHOD_NOT_ALLOWED, r);
}

/* The response a worker left in rq->resp; its body passes to libmicrohttpd. */
static enum MHD_Result answer_handled(struct request *rq)
{
	struct MHD_Response *r;
	char *body = rq->resp.body;
	int status = rq->resp.status;

	rq->resp.body = NULL;
	r = MHD_create_response_from_buffer(body ? strlen(body) : 0, body ? body : (char *)"",
					    body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r)
		free(body);
	else
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					rq->resp.content_type ? rq->resp.content_type
							      : "application/json");
	/* a status no client could read is the handler's bug: say so */
	if (status < 200 || status > 599)
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	return queue(rq, (unsigned)status, r);
}

/* ---- the request's life on the polling thread ---------------------------- */

/* A declared Content-Length, or -1 when there is none or it is not a number. */
static long long content_length(struct MHD_Connection *conn)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_CONTENT_LENGTH);
	long long n = -1;

	if (v && *v >= '0' && *v <= '9') {
		n = 0;
		for (; *v >= '0' && *v <= '9'; v++) {
			/* anything past a gigabyte is simply "too large" */
			if (n < (1LL << 30))
				n = n * 10 + (*v - '0');
		}
		if (*v)
			n = -1;
	}
	return n;
}

/* RFC 9110 token: what a header name must be. */
static int is_token(const char *s)
{
	int ok = s && *s;

	for (; ok && *s; s++)
		ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		     (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s);
	return ok;
}

/* What on_headers() needs to know about the header lines. */
struct head_facts {
	int bad_name;       /* a name that is not a token */
	int lengths;        /* Content-Length lines */
	int codings;        /* Transfer-Encoding lines */
	int chunked;        /* ... of which exactly "chunked" */
};

static enum MHD_Result note_header(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct head_facts *f = cls;

	(void)kind;
	f->bad_name |= !is_token(key);
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		f->lengths++;
	if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
		f->codings++;
		f->chunked += value && strcasecmp(value, "chunked") == 0;
	}
	return MHD_YES;
}

/*
 * Requests that a proxy in front might frame differently from
 * libmicrohttpd (which lets through empty or spaced header names, takes
 * the first of two Content-Lengths, and prefers chunked over a
 * Content-Length) are refused: that disagreement is how requests are
 * smuggled. Returns 0 or the status to refuse with.
 */
static unsigned ambiguous(struct MHD_Connection *conn)
{
	struct head_facts f = { 0 };
	unsigned status = 0;

	MHD_get_connection_values(conn, MHD_HEADER_KIND, note_header, &f);
	if (f.bad_name || f.lengths > 1 || (f.lengths && f.codings))
		status = MHD_HTTP_BAD_REQUEST;
	else if (f.codings && (f.codings > 1 || !f.chunked))
		status = MHD_HTTP_NOT_IMPLEMENTED;  /* the one coding we read is chunked */
	return status;
}

static int copy_request(struct request *rq, const char *method, const char *url);

/*
 * The routes' admission checks, before the body: 0 when a route for this
 * method and path admits the request (or checks nothing), else the first
 * refusal's status. The request's headers are copied for the checks (and
 * kept for the handler).
 */
static unsigned admission(struct http_server *h, struct request *rq, const char *url,
			  const char *method)
{
	unsigned refusal = 0;
	int admitted = 0;

	if (copy_request(rq, method, url))
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	for (int i = rq->route; i < h->nroutes && !admitted; i++) {
		const struct route *r = &h->routes[i];
		int st;

		if (strcmp(r->method, method) || strcmp(r->path, url))
			continue;
		st = r->admit ? r->admit(r->arg, &rq->req) : 0;
		if (st < 200 || st > 599)
			admitted = 1;
		else if (!refusal)
			refusal = (unsigned)st;
	}
	return admitted ? 0 : refusal;
}

/* Room for the body in the budget (declared < 0: not declared, max_body). */
static int reserve(struct http_server *h, struct request *rq, long long declared)
{
	size_t want = declared >= 0 ? (size_t)declared : h->max_body;
	int ok;

	pthread_mutex_lock(&h->qlock);
	ok = want <= h->body_budget - h->body_used;
	if (ok) {
		h->body_used += want;
		rq->reserved = want;
	}
	pthread_mutex_unlock(&h->qlock);
	return ok;
}

/* A refusal from an admission check, in the words of its status. */
static enum MHD_Result refuse_admission(struct request *rq, unsigned status)
{
	return refuse(rq, status, status == MHD_HTTP_UNAUTHORIZED ? "unauthorized\n"
				  : status == MHD_HTTP_FORBIDDEN  ? "forbidden\n"
								  : "refused\n");
}

/* First call: the headers are in, no body yet. Answer early what we can. */
static enum MHD_Result on_headers(struct http_server *h, struct MHD_Connection *conn,
				  const char *url, const char *method, void **con_cls)
{
	struct request *rq = calloc(1, sizeof(*rq));
	int path_known = 0;
	long long declared;
	unsigned refusal;
	enum MHD_Result ret = MHD_NO;

	if (!rq)
		goto out;
	rq->conn = conn;
	rq->route = -1;
	*con_cls = rq;
	declared = content_length(conn);
	for (int i = 0; i < h->nroutes && rq->route < 0; i++) {
		if (strcmp(h->routes[i].path, url))
			continue;
		path_known = 1;
		if (strcmp(h->routes[i].method, method) == 0)
			rq->route = i;
	}
	rq->health = h->health_path[0] && strcmp(url, h->health_path) == 0 &&
		     strcmp(method, MHD_HTTP_METHOD_GET) == 0;
	refusal = ambiguous(conn);
	if (refusal)
		ret = refuse(rq, refusal, refusal == MHD_HTTP_BAD_REQUEST
						  ? "bad request\n"
						  : "transfer coding not supported\n");
	else if (declared > 0 && (unsigned long long)declared > h->max_body)
		ret = too_large(rq);
	else if (rq->health)
		ret = MHD_YES;          /* answered once whole: an early answer would close */
	else if (rq->route < 0 && path_known)
		ret = not_allowed(h, rq, url);
	else if (rq->route < 0)
		ret = queue(rq, MHD_HTTP_NOT_FOUND, text_response("not found\n"));
	else if ((refusal = admission(h, rq, url, method)) != 0)
		ret = refuse_admission(rq, refusal);
	else if (!reserve(h, rq, declared))
		/* the bodies in hand fill the budget: the platform sends it again later */
		ret = refuse(rq, MHD_HTTP_SERVICE_UNAVAILABLE, "busy\n");
	else
		ret = MHD_YES;          /* a route's: read the body */
out:
	return ret;
}

static enum MHD_Result on_body(struct http_server *h, struct request *rq, const char *data,
			       size_t n)
{
	enum MHD_Result ret = MHD_YES;

	if (rq->too_big || n > h->max_body - rq->len) {
		rq->too_big = 1;
	} else {
		if (rq->len + n + 1 > rq->cap) {
			size_t cap = rq->cap ? rq->cap : 1024;
			char *p;

			while (cap < rq->len + n + 1)
				cap *= 2;
			if (cap > h->max_body + 1)
				cap = h->max_body + 1;
			p = realloc(rq->body, cap);
			if (!p)
				ret = MHD_NO;
			else {
				rq->body = p;
				rq->cap = cap;
			}
		}
		if (ret == MHD_YES) {
			memcpy(rq->body + rq->len, data, n);
			rq->len += n;
			rq->body[rq->len] = '\0';
		}
	}
	return ret;
}

struct hdr_copy {
	char *p;
	size_t used;
	size_t n;
};

static void hdr_put(struct hdr_copy *c, const char *s)
{
	size_t len = strlen(s) + 1;

	if (c->p)
		memcpy(c->p + c->used, s, len);
	c->used += len;
}

static enum MHD_Result hdr_each(void *cls, enum MHD_ValueKind kind, const char *key,
				const char *value)
{
	struct hdr_copy *c = cls;

	(void)kind;
	hdr_put(c, key);
	hdr_put(c, value ? value : "");
	c->n++;
	return MHD_YES;
}

/*
 * The handler reads the request on another thread: give it copies of
 * method, path and headers so it never reaches into libmicrohttpd's
 * connection (which only the polling thread may touch).
 */
static int copy_request(struct request *rq, const char *method, const char *url)
{
	struct hdr_copy c = { 0 };
	int rc = GB_OK;

	if (rq->hdr) {
		/* copied for the admission check: only the body is new */
		rq->req.body = rq->body ? rq->body : "";
		rq->req.body_len = rq->len;
		goto out;
	}
	hdr_put(&c, method);
	hdr_put(&c, url);
	MHD_get_connection_values(rq->conn, MHD_HEADER_KIND, hdr_each, &c);
	c.p = malloc(c.used);
	if (!c.p) {
		rc = GB_ENOMEM;
		goto out;
	}
	c.used = 0;
	c.n = 0;
	hdr_put(&c, method);
	hdr_put(&c, url);
	MHD_get_connection_values(rq->conn, MHD_HEADER_KIND, hdr_each, &c);
	rq->hdr = c.p;
	rq->nhdr = c.n;
	rq->req.method = rq->hdr;
	rq->req.path = rq->hdr + strlen(rq->hdr) + 1;
	rq->req.body = rq->body ? rq->body : "";
	rq->req.body_len = rq->len;
	rq->req.conn = rq;
out:
	return rc;
}

/* Last call before a handler: the whole body is in. Hand it to a worker. */
static enum MHD_Result on_complete(struct http_server *h, struct request *rq, const char *url,
				   const char *method)
{
	enum MHD_Result ret = MHD_NO;
	int stopping;

	/* the request is whole: from here on it is our time, not the client's */
	watch_disarm(h, watch_of(rq->conn));
	if (rq->too_big) {
		ret = too_large(rq);
		goto out;
	}
	/* on this thread, never behind a handler: the callback is cheap */
	if (rq->health) {
		ret = answer_health(h, rq);
		goto out;
	}
	if (copy_request(rq, method, url))
		goto out;
	pthread_mutex_lock(&h->qlock);
	stopping = h->stopping;
	if (!stopping) {
		/* suspended before any worker can see it, so a resume never comes first */
		MHD_suspend_connection(rq->conn);
		rq->state = REQ_QUEUED;
		rq->queued = 1;
		h->pending++;
		if (h->qtail)
			h->qtail->next = rq;
		else
			h->qhead = rq;
		h->qtail = rq;
		pthread_cond_signal(&h->qcond);
	}
	pthread_mutex_unlock(&h->qlock);
	if (stopping)
		ret = queue(rq, MHD_HTTP_SERVICE_UNAVAILABLE, text_response("shutting down\n"));
	else
		ret = MHD_YES;
out:
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	struct http_server *h = cls;
	struct request *rq = *con_cls;
	enum MHD_Result ret = MHD_YES;

	(void)version;
	if (!rq)
		ret = on_headers(h, conn, url, method, con_cls);
	else if (rq->state == REQ_DONE)
		*data_size = 0;         /* answered early: the rest is not ours to read */
	else if (rq->state == REQ_ANSWERED)
		ret = answer_handled(rq);
	else if (*data_size) {
		ret = on_body(h, rq, data, *data_size);
		*data_size = 0;
	} else
		ret = on_complete(h, rq, url, method);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;
	struct request *rq = *con_cls;
	struct watch *w = watch_of(conn);

	(void)toe;
	/* kept alive: the next request gets a fresh deadline */
	if (w)
		watch_arm(h, w);
	if (rq && (rq->queued || rq->reserved)) {
		pthread_mutex_lock(&h->qlock);
		h->body_used -= rq->reserved;
		if (rq->queued && --h->pending == 0)
			pthread_cond_broadcast(&h->idle);
		pthread_mutex_unlock(&h->qlock);
	}
	if (rq) {
		free(rq->resp.body);
		free(rq->body);
		free(rq->hdr);
		free(rq);
		*con_cls = NULL;
	}
}

/* ---- workers ----------------------------------------------------------- */

/* Routes with this method and path in order, until one answers (status != 0). */
static void run_handlers(struct http_server *h, struct request *rq)
{
	for (int i = rq->route; i < h->nroutes && !rq->resp.status; i++) {
		const struct route *r = &h->routes[i];

		if (strcmp(r->method, rq->req.method) || strcmp(r->path, rq->req.path))
			continue;
		free(rq->resp.body);
		memset(&rq->resp, 0, sizeof(rq->resp));
		r->fn(r->arg, &rq->req, &rq->resp);
	}
	if (!rq->resp.status) {
		free(rq->resp.body);
		rq->resp.status = MHD_HTTP_NOT_FOUND;
		rq->resp.body = strdup("not found\n");
		rq->resp.content_type = "text/plain";
	}
}

static void *worker_main(void *arg)
{
	struct http_server *h = arg;

	pthread_mutex_lock(&h->qlock);
	for (;;) {
		struct request *rq;
		struct MHD_Connection *conn;
		int stopping;

		while (!h->qhead && !h->stopping)
			pthread_cond_wait(&h->qcond, &h->qlock);
		rq = h->qhead;
		if (!rq)
			break;
		h->qhead = rq->next;
		if (!h->qhead)
			h->qtail = NULL;
		stopping = h->stopping;
		pthread_mutex_unlock(&h->qlock);
		if (stopping) {
			rq->resp.status = MHD_HTTP_SERVICE_UNAVAILABLE;
			rq->resp.body = strdup("shutting down\n");
			rq->resp.content_type = "text/plain";
		} else {
			run_handlers(h, rq);
		}
		rq->state = REQ_ANSWERED;
		/* after the resume the polling thread owns rq and may free it */
		conn = rq->conn;
		MHD_resume_connection(conn);
		pthread_mutex_lock(&h->qlock);
	}
	pthread_mutex_unlock(&h->qlock);
	return NULL;
}

/* ---- start and stop ----------------------------------------------------- */

/* "a.b.c.d:port" with a port of digits only. */
static int parse_listen(const char *listen, struct sockaddr_in *addr)
{
	char host[64];
	const char *colon = listen ? strrchr(listen, ':') : NULL;
	const char *p;
	long port = 0;
	int rc = GB_ECONFIG;

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	if (!colon || (size_t)(colon - listen) >= sizeof(host) || !colon[1])
		goto out;
	for (p = colon + 1; *p >= '0' && *p <= '9' && port <= 65535; p++)
		port = port * 10 + (*p - '0');
	if (*p || port > 65535)
		goto out;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	if (inet_pton(AF_INET, host, &addr->sin_addr) != 1)
		goto out;
	addr->sin_port = htons((uint16_t)port);
	rc = GB_OK;
out:
	return rc;
}

/*
 * Every connection is a descriptor. Raise the soft limit to the hard one
 * when it is short; if it is still short, accept fewer connections rather
 * than leave the store and the outbox without descriptors.
 */
static unsigned fit_descriptors(unsigned want)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)want + FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < need) {
		struct rlimit up = rl;

		/* an unlimited hard limit cannot be the soft one for descriptors */
		up.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = up.rlim_cur;
		if (rl.rlim_cur < need)
			want = rl.rlim_cur > 2 * FD_RESERVE ? (unsigned)(rl.rlim_cur - FD_RESERVE)
							  : (unsigned)(rl.rlim_cur / 2);
	}
	return want;
}

static int copy_routes(struct http_server *h, const struct http_options *o)
{
	int rc = GB_OK;

	if (o->nroutes < 0 || (o->nroutes > 0 && !o->routes)) {
		rc = GB_ECONFIG;
		goto out;
	}
	h->routes = calloc((size_t)o->nroutes + 1, sizeof(*h->routes));
	if (!h->routes) {
		rc = GB_ENOMEM;
		goto out;
	}
	for (int i = 0; i < o->nroutes; i++) {
		const struct http_route *r = &o->routes[i];

		if (!r->method || !r->path || !r->fn || r->path[0] != '/') {
			rc = GB_ECONFIG;
			goto out;
		}
		h->routes[i].method = strdup(r->method);
		h->routes[i].path = strdup(r->path);
		h->routes[i].fn = r->fn;
		h->routes[i].arg = r->arg;
		h->routes[i].admit = r->admit;
		h->nroutes = i + 1;
		if (!h->routes[i].method || !h->routes[i].path) {
			rc = GB_ENOMEM;
			goto out;
		}
	}
out:
	return rc;
}

static int start_threads(struct http_server *h, unsigned workers)
{
	int rc = GB_OK;

	h->workers = calloc(workers, sizeof(*h->workers));
	if (!h->workers) {
		rc = GB_ENOMEM;
		goto out;
	}
	for (; h->nworkers < workers; h->nworkers++) {
		if (pthread_create(&h->workers[h->nworkers], NULL, worker_main, h)) {
			rc = GB_EIO;
			goto out;
		}
	}
	if (pthread_create(&h->reaper, NULL, reaper_main, h)) {
		rc = GB_EIO;
		goto out;
	}
	h->reaper_started = 1;
out:
	return rc;
}

static struct http_server *server_new(void)
{
	struct http_server *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;

	if (h) {
		h->quiesced = MHD_INVALID_SOCKET;
		pthread_mutex_init(&h->qlock, NULL);
		pthread_cond_init(&h->qcond, NULL);
		pthread_mutex_init(&h->wlock, NULL);
		/* timed waits must not jump with the wall clock */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&h->idle, &ca);
		pthread_cond_init(&h->wcond, &ca);
		pthread_condattr_destroy(&ca);
	}
	return h;
}

/*
 * libmicrohttpd's own messages, into the service's log: at most
 * LOG_BURST a minute (a client sending malformed requests on purpose
 * must not be able to flood the log), and not its bind failure, which the
 * caller reports with the address ("port 0" in libmicrohttpd's words).
 */
#define LOG_BURST 20

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t window;
	static int lines;
	char msg[512];
	time_t now = time(NULL);
	bool say;
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	if (strncmp(msg, "Failed to bind", 14) == 0)
		return;
	pthread_mutex_lock(&lock);
	if (now - window >= 60) {
		window = now;
		lines = 0;
	}
	say = ++lines <= LOG_BURST;
	pthread_mutex_unlock(&lock);
	if (say)
		gb_log("listener: %s", msg);
}

int http_start(struct http_server **out, const struct http_options *o)
{
	struct http_server *h = NULL;
	struct sockaddr_in addr;
	const union MHD_DaemonInfo *info;
	unsigned limit = o->max_connections ? o->max_connections : DEFAULT_MAX_CONNECTIONS;
	unsigned timeout_s = o->timeout_s ? o->timeout_s : DEFAULT_TIMEOUT_S;
	int rc;

	*out = NULL;
	rc = parse_listen(o->listen, &addr);
	if (rc)
		goto out;
	h = server_new();
	if (!h) {
		rc = GB_ENOMEM;
		goto out;
	}
	h->health = o->health;
	h->health_arg = o->health_arg;
	h->max_body = o->max_body ? o->max_body : DEFAULT_MAX_BODY;
	h->body_budget = o->body_budget ? o->body_budget : DEFAULT_BODY_BUDGET;
	h->health_path = strdup(o->health_path ? o->health_path : "/healthz");
	if (!h->health_path) {
		rc = GB_ENOMEM;
		goto out;
	}
	h->timeout_ms = (uint64_t)timeout_s * 1000u;
	rc = copy_routes(h, o);
	if (rc)
		goto out;
	rc = start_threads(h, o->workers ? o->workers : DEFAULT_WORKERS);
	if (rc)
		goto out;
	limit = fit_descriptors(limit);
	/*
	 * Strict parsing (HTTP/1.1 needs Host, no spaces in the URL): our only
	 * clients are chat platforms and the TLS proxy, which never need the
	 * leniency, and a request two parsers read differently is how requests
	 * are smuggled past a proxy.
	 */
	h->d = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL,
		NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
		MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		o->per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_END);
	if (!h->d) {
		rc = GB_EIO;
		goto out;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : (int)ntohs(addr.sin_port);
	*out = h;
	h = NULL;
out:
	http_stop(h);
	return rc;
}

int http_port(const struct http_server *h)
{
	return h->port;
}

/* Waits, at most STOP_GRACE_MS, for answered requests to reach their clients. */
static void drain(struct http_server *h)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += STOP_GRACE_MS / 1000u;
	until.tv_nsec += (long)(STOP_GRACE_MS % 1000u) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&h->qlock);
	while (h->pending && pthread_cond_timedwait(&h->idle, &h->qlock, &until) == 0)
		;
	pthread_mutex_unlock(&h->qlock);
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	/* no new connections; those open keep being served until the end */
	if (h->d)
		h->quiesced = MHD_quiesce_daemon(h->d);
	/* workers finish what they run, answer the queue with 503 and leave */
	pthread_mutex_lock(&h->qlock);
	h->stopping = 1;
	pthread_cond_broadcast(&h->qcond);
	pthread_mutex_unlock(&h->qlock);
	for (unsigned i = 0; i < h->nworkers; i++)
		pthread_join(h->workers[i], NULL);
	if (h->d)
		drain(h);
	pthread_mutex_lock(&h->wlock);
	h->reaper_stop = 1;
	pthread_cond_broadcast(&h->wcond);
	pthread_mutex_unlock(&h->wlock);
	if (h->reaper_started)
		pthread_join(h->reaper, NULL);
	/* every suspended connection was resumed by a worker: none is left behind */
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->quiesced != MHD_INVALID_SOCKET)
		close(h->quiesced);
	for (int i = 0; i < h->nroutes; i++) {
		free(h->routes[i].method);
		free(h->routes[i].path);
	}
	free(h->routes);
	free(h->health_path);
	free(h->workers);
	pthread_cond_destroy(&h->wcond);
	pthread_mutex_destroy(&h->wlock);
	pthread_cond_destroy(&h->idle);
	pthread_cond_destroy(&h->qcond);
	pthread_mutex_destroy(&h->qlock);
	free(h);
}
