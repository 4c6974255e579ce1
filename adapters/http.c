/*
 * http.c - see http.h. Three kinds of thread share a server (a request's
 * life on the polling thread is adapters/http_request.c's):
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
#include "http_server.h"

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
void http_watch_arm(struct http_server *h, struct watch *w)
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

void http_watch_disarm(struct http_server *h, struct watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&h->wlock);
	watch_unlink(h, w);
	pthread_mutex_unlock(&h->wlock);
}

struct watch *http_watch_of(struct MHD_Connection *conn)
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
			http_watch_arm(h, w);
		}
		*socket_context = w;
	} else if (w) {
		http_watch_disarm(h, w);
		free(w);
		*socket_context = NULL;
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
		NULL, http_on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
		MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		o->per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_NOTIFY_COMPLETED,
		http_on_completed, h, MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_END);
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
