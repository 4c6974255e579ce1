/*
 * http.c - see http.h. Bodies are collected up to HTTP_MAX_BODY; requests
 * are answered after the whole body has arrived. A store mutex serialises
 * the handlers' use of the listener's one store connection.
 */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct route {
	char method[8];
	char path[64];
	http_handler fn;
	void *arg;
};

struct http_server {
	struct MHD_Daemon *d;
	struct bot bot;
	pthread_mutex_t lock;
	struct route routes[16];
	int nroutes;
	int port;
};

struct upload {
	char *buf;
	size_t len;
	int too_big;
};

const char *http_header(const struct http_request *req, const char *name)
{
	return MHD_lookup_connection_value((struct MHD_Connection *)req->conn, MHD_HEADER_KIND, name);
}

static enum MHD_Result respond(struct MHD_Connection *conn, int status, const char *type,
			       char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = body ? strlen(body) : 0;

	r = MHD_create_response_from_buffer(len, body ? body : (char *)"", body ? MHD_RESPMEM_MUST_FREE
										 : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	ret = MHD_queue_response(conn, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	struct http_server *h = cls;
	struct upload *up = *con_cls;
	struct http_request req;
	struct http_response resp = { 0 };
	enum MHD_Result ret;

	(void)version;
	if (!up) {
		up = calloc(1, sizeof(*up));
		if (!up)
			return MHD_NO;
		*con_cls = up;
		return MHD_YES;
	}
	if (*data_size) {
		if (up->len + *data_size > HTTP_MAX_BODY) {
			up->too_big = 1;
		} else {
			char *p = realloc(up->buf, up->len + *data_size + 1);

			if (!p)
				return MHD_NO;
			up->buf = p;
			memcpy(up->buf + up->len, data, *data_size);
			up->len += *data_size;
			up->buf[up->len] = '\0';
		}
		*data_size = 0;
		return MHD_YES;
	}
	if (up->too_big)
		return respond(conn, 413, "text/plain", strdup("request too large\n"));
	if (strcmp(method, "GET") == 0 && strcmp(url, "/healthz") == 0) {
		int ok;

		pthread_mutex_lock(&h->lock);
		ok = store_ping(h->bot.store) == GB_OK;
		pthread_mutex_unlock(&h->lock);
		return respond(conn, ok ? 200 : 503, "text/plain", strdup(ok ? "ok\n" : "store unreachable\n"));
	}
	req.method = method;
	req.path = url;
	req.body = up->buf ? up->buf : "";
	req.body_len = up->len;
	req.conn = conn;
	for (int i = 0; i < h->nroutes; i++) {
		if (strcmp(h->routes[i].method, method) || strcmp(h->routes[i].path, url))
			continue;
		pthread_mutex_lock(&h->lock);
		h->routes[i].fn(h->routes[i].arg, &h->bot, &req, &resp);
		pthread_mutex_unlock(&h->lock);
		if (resp.status) {
			ret = respond(conn, resp.status, resp.content_type ? resp.content_type : "application/json",
				      resp.body);
			return ret;
		}
		free(resp.body);
	}
	return respond(conn, 404, "text/plain", strdup("not found\n"));
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls,
		    enum MHD_RequestTerminationCode toe)
{
	struct upload *up = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (up) {
		free(up->buf);
		free(up);
		*con_cls = NULL;
	}
}

int http_start(struct http_server **out, const char *listen, const char *db,
	       const struct bot_config *cfg)
{
	struct http_server *h;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	char host[64];
	const char *colon = strrchr(listen, ':');
	long port;
	char *end;
	const union MHD_DaemonInfo *info;
	int rc;

	*out = NULL;
	if (!colon || (size_t)(colon - listen) >= sizeof(host))
		return GB_ECONFIG;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535 || inet_pton(AF_INET, host, &addr.sin_addr) != 1)
		return GB_ECONFIG;
	addr.sin_port = htons((uint16_t)port);
	h = calloc(1, sizeof(*h));
	if (!h)
		return GB_ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	h->bot.cfg = *cfg;
	rc = store_open(&h->bot.store, db);
	if (rc) {
		http_stop(h);
		return rc;
	}
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
				on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, h, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)30, MHD_OPTION_END);
	if (!h->d) {
		http_stop(h);
		return GB_EIO;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : (int)port;
	*out = h;
	return GB_OK;
}

int http_route(struct http_server *h, const char *method, const char *path, http_handler fn,
	       void *arg)
{
	struct route *r;

	if (h->nroutes >= 16)
		return GB_EFULL;
	r = &h->routes[h->nroutes];
	snprintf(r->method, sizeof(r->method), "%s", method);
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->fn = fn;
	r->arg = arg;
	h->nroutes++;
	return GB_OK;
}

int http_port(const struct http_server *h)
{
	return h->port;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	store_free(h->bot.store);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
