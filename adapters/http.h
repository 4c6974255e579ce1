/*
 * http.h - the webhook listener (libmicrohttpd). One listener serves every
 * platform from a route table fixed at start; GET /healthz is answered by a
 * health callback. It is built to keep answering while clients misbehave:
 * one epoll thread polls every connection (no FD_SETSIZE ceiling), route
 * handlers run on a small pool of worker threads so a slow handler never
 * delays /healthz, a connection that has not delivered a whole request
 * within timeout_s is dropped however slowly it trickles bytes, bodies over
 * max_body get 413 without being buffered, and the number of connections
 * (in all and per client address) is capped. A route may name an admission
 * check that sees the headers before any byte of the body is read (a
 * platform's secret or signature headers): a stranger's request is refused
 * at the cost of its headers. The bodies read and waiting for a worker
 * share one memory budget (body_budget); a request that does not fit gets
 * 503 at once rather than a place in an unbounded queue. The listener
 * knows nothing of the bot: a handler gets the request and fills the
 * response.
 */
#ifndef GB_HTTP_H
#define GB_HTTP_H

#include <stddef.h>

struct http_request {
	const char *method;
	const char *path;
	const char *body;       /* NUL-terminated */
	size_t body_len;
	void *conn;             /* for http_header() */
};

struct http_response {
	int status;
	char *body;             /* malloc'd, owned by the response (may be NULL) */
	const char *content_type;
};

/*
 * Handles one request on a worker thread; fills resp. Status 0 means "not
 * mine": the next route with the same method and path is tried, then 404.
 * Handlers run concurrently (up to `workers` at once): what they share
 * they must lock themselves.
 */
typedef void (*http_handler)(void *arg, const struct http_request *req,
			     struct http_response *resp);

/*
 * Runs on the polling thread when a request's headers are in, before its
 * body is read (req->body is "" then): 0 admits it, an HTTP status (401,
 * 403) refuses it at once and the connection closes, its body never
 * buffered. Must be cheap: no I/O, no lock held for long.
 */
typedef int (*http_admit)(void *arg, const struct http_request *req);

struct http_route {
	const char *method;
	const char *path;
	http_handler fn;
	void *arg;
	http_admit admit;       /* NULL: every request is read */
};

struct http_options {
	const char *listen;               /* "host:port"; port 0 picks a free one */
	const struct http_route *routes;  /* fixed at start (copied); none can be added later */
	int nroutes;
	int (*health)(void *arg);         /* GET /healthz: 0 = healthy (200 "ok"), else 503; NULL = always healthy */
	void *health_arg;
	unsigned max_connections;         /* 0 = default 10000 */
	unsigned per_ip_limit;            /* connections per client address; 0 = off (default: behind a TLS proxy every request comes from one address) */
	unsigned timeout_s;               /* idle and slow clients are dropped after this; 0 = default 10 */
	unsigned workers;                 /* threads running route handlers; 0 = default 4 */
	size_t max_body;                  /* larger bodies get 413; 0 = default 64 KiB */
	size_t body_budget;               /* bytes of bodies read or queued at once (a body counts
	                                     its declared length, or max_body when undeclared);
	                                     past it 503; 0 = default 16 MiB */
	const char *health_path;          /* answered by the health callback; NULL = "/healthz", "" = none */
};

/* Defaults: everything 0/NULL, listen "127.0.0.1:8080". */
void http_options_init(struct http_options *o);

struct http_server;

/*
 * Listen as o says (http_port() tells the port). The health callback runs
 * on the polling thread and must be cheap; it and the routes' args must
 * stay valid until http_stop() returns. Raises the RLIMIT_NOFILE soft
 * limit when it is below what max_connections needs. *out is owned by the
 * caller: stop with http_stop(). Returns GB_OK, GB_ECONFIG (bad address or
 * route), GB_ENOMEM or GB_EIO (cannot listen, cannot start a thread).
 */
int http_start(struct http_server **out, const struct http_options *o);

/* The port actually listened on. */
int http_port(const struct http_server *h);

/*
 * Stop listening and free. Handlers already running finish and their
 * responses are sent; requests still queued get 503. A no-op on NULL.
 */
void http_stop(struct http_server *h);

/* A request header's value (name compared without case), or NULL. */
const char *http_header(const struct http_request *req, const char *name);

#endif
