/*
 * http_request.c - a request's life on the webhook listener's polling
 * thread (adapters/http.c says how the threads share a server): its
 * headers admitted or refused, its body read within the caps and the
 * server's body budget, the complete request queued for a worker, the
 * worker's answer sent, and what is left freed when the connection is
 * done with it; the answers that need no handler (health, refusals).
 */
#include "http.h"
#include "http_server.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/base/log.h"
#include "games/error.h"

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
 * still finish (or be cut) in time; http_on_completed() re-arms it.
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

/*
 * Room in the budget for more bytes of a body, as they come: what a
 * request holds is what it has sent (the memory it takes), never what its
 * headers promise, so headers alone - a signature of the right form, a
 * large Content-Length, no body - hold nothing.
 */
static int reserve(struct http_server *h, struct request *rq, size_t more)
{
	int ok;

	pthread_mutex_lock(&h->qlock);
	ok = more <= h->body_budget - h->body_used;
	if (ok) {
		h->body_used += more;
		rq->reserved += more;
	}
	pthread_mutex_unlock(&h->qlock);
	return ok;
}

/* Is the budget spent to the last byte (a new body is refused at once)? */
static int budget_spent(struct http_server *h)
{
	int spent;

	pthread_mutex_lock(&h->qlock);
	spent = h->body_used >= h->body_budget;
	pthread_mutex_unlock(&h->qlock);
	return spent;
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
	else if (budget_spent(h))
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

	if (rq->health || rq->busy) {
		/* a health check's body is not read; one the budget could not hold is answered 503 */
	} else if (rq->too_big || n > h->max_body - rq->len) {
		rq->too_big = 1;
	} else {
		if (rq->len + n + 1 > rq->cap) {
			size_t cap = rq->cap ? rq->cap : 1024;
			char *p;

			while (cap < rq->len + n + 1)
				cap *= 2;
			if (cap > h->max_body + 1)
				cap = h->max_body + 1;
			if (!reserve(h, rq, cap - rq->cap)) {
				rq->busy = 1;
				return MHD_YES;
			}
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

	/* answered here at once (its deadline still runs while the answer is read), or queued */
	if (rq->too_big) {
		ret = too_large(rq);
		goto out;
	}
	if (rq->busy) {
		/* the bodies in hand fill the budget: the platform sends it again later */
		ret = refuse(rq, MHD_HTTP_SERVICE_UNAVAILABLE, "busy\n");
		goto out;
	}
	/* on this thread, never behind a handler: the callback is cheap */
	if (rq->health) {
		ret = answer_health(h, rq);
		goto out;
	}
	if (copy_request(rq, method, url))
		goto out;
	/* the request is whole: from here on it is our time, not the client's */
	http_watch_disarm(h, http_watch_of(rq->conn));
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

enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				const char *version, const char *data, size_t *data_size, void **con_cls)
{
	struct http_server *h = cls;
	struct request *rq = *con_cls;
	enum MHD_Result ret = MHD_YES;

	(void)version;
	if (!rq)
		ret = on_headers(h, conn, url, method, con_cls);
	else if (rq->state == REQ_DONE)
		*data_size = 0;         /* answered early: the rest is not ours to read */
	else if (rq->state == REQ_ANSWERED) {
		struct watch *w = http_watch_of(conn);

		ret = answer_handled(rq);
		/* the client's time again: an answer read a byte at a time is cut at the deadline */
		if (w)
			http_watch_arm(h, w);
	}
	else if (*data_size) {
		ret = on_body(h, rq, data, *data_size);
		*data_size = 0;
	} else
		ret = on_complete(h, rq, url, method);
	return ret;
}

void http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;
	struct request *rq = *con_cls;
	struct watch *w = http_watch_of(conn);

	(void)toe;
	/* kept alive: the next request gets a fresh deadline */
	if (w)
		http_watch_arm(h, w);
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
