/*
 * http.h - the webhook listener (libmicrohttpd). One listener serves every
 * platform: routes are a table of {method, path, handler}; GET /healthz
 * answers 200 when the store is reachable and 503 otherwise. The listener
 * runs on libmicrohttpd's own threads and uses its own store connection.
 */
#ifndef GB_HTTP_H
#define GB_HTTP_H

#include <stddef.h>

#include "bot/bot.h"

#define HTTP_MAX_BODY (256 * 1024)  /* larger requests get 413 */

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

/* A request header's value, or NULL. */
const char *http_header(const struct http_request *req, const char *name);

/* Handles one request; fills resp (status 0 means "not mine"). */
typedef void (*http_handler)(void *arg, struct bot *b, const struct http_request *req,
			     struct http_response *resp);

struct http_server;

/*
 * Listen on "host:port" (port 0 picks a free one; http_port() tells which).
 * db is the store path the listener opens for itself. *out is owned by the
 * caller: stop with http_stop(). Returns GB_OK, GB_ECONFIG (bad address) or
 * GB_EIO (cannot listen).
 */
int http_start(struct http_server **out, const char *listen, const char *db,
	       const struct bot_config *cfg);

/* Add a route before or after start (at most 16). */
int http_route(struct http_server *h, const char *method, const char *path, http_handler fn,
	       void *arg);

/* The port actually listened on. */
int http_port(const struct http_server *h);

/* Stop and free; a no-op on NULL. */
void http_stop(struct http_server *h);

#endif
