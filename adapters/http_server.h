/*
 * http_server.h - what the two halves of the webhook listener share
 * (adapters/http.c: the server, its deadlines, workers, start and stop;
 * adapters/http_request.c: a request's life on the polling thread): the
 * server's, a connection's and a request's structs and the calls between
 * them. See http.c for how the threads share a server.
 */
#ifndef GB_ADAPTERS_HTTP_SERVER_H
#define GB_ADAPTERS_HTTP_SERVER_H

#include <microhttpd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "http.h"

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
	int busy;                       /* the body budget could not hold its body: answered 503 once read */
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

/* The deadline of a connection (NULL: none kept); armed anew, disarmed while a request is handled. */
struct watch *http_watch_of(struct MHD_Connection *conn);
void http_watch_arm(struct http_server *h, struct watch *w);
void http_watch_disarm(struct http_server *h, struct watch *w);

/* libmicrohttpd's access handler and request-completed callback (cls: the server). */
enum MHD_Result http_on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				const char *version, const char *data, size_t *data_size, void **con_cls);
void http_on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe);

#endif
