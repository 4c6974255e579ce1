/*
 * test_http.c - the real HTTP listener on 127.0.0.1 (a free port), spoken to
 * with libcurl where a well-behaved client will do and with raw sockets
 * where the client has to misbehave: thousands of idle connections, a
 * slowloris, a declared 10 MiB body, garbage, chunked bodies, a slow
 * handler. Every abuse test checks that /healthz keeps answering in under
 * a second (timed with CLOCK_MONOTONIC) and what happened to the abuser.
 */
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/http.h"
#include "games/error.h"

/* ---- clocks and memory -------------------------------------------------- */

static long long us_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)(t.tv_sec - t0->tv_sec) * 1000000 + (t.tv_nsec - t0->tv_nsec) / 1000;
}

static long long ms_since(const struct timespec *t0)
{
	return us_since(t0) / 1000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Resident set size of this process (client and server both) in KiB. */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	char line[128] = "";
	const char *p = line;
	long pages = 0;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	while (*p && *p != ' ')
		p++;
	for (p++; *p >= '0' && *p <= '9'; p++)
		pages = pages * 10 + (*p - '0');
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- raw sockets -------------------------------------------------------- */

static int connect_to(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* Sends what it can; a server that hung up is an answer, not a test failure. */
static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct reply {
	int status;             /* 0: none */
	int closed;             /* the server hung up */
	int timed_out;
	char buf[8192];
	size_t len;
};

/* Length of a complete response in r->buf (headers and Content-Length body), or 0. */
static size_t reply_complete(const struct reply *r)
{
	const char *end = strstr(r->buf, "\r\n\r\n");
	const char *p;
	size_t body = 0;

	if (!end)
		return 0;
	for (p = r->buf; p < end; p++) {
		if (*p == '\n' && strncasecmp(p + 1, "Content-Length:", 15) == 0) {
			for (p += 16; *p == ' '; p++)
				;
			for (; *p >= '0' && *p <= '9'; p++)
				body = body * 10 + (size_t)(*p - '0');
			break;
		}
	}
	return (size_t)(end + 4 - r->buf) + body <= r->len ? (size_t)(end + 4 - r->buf) + body : 0;
}

/* Reads one response, or until the server closes, or until ms pass. */
static void read_reply(int fd, int ms, struct reply *r)
{
	struct timespec t0;

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!reply_complete(r)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = ms - ms_since(&t0);
		ssize_t n;

		if (left <= 0) {
			r->timed_out = 1;
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = recv(fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len, 0);
		if (n <= 0) {
			r->closed = 1;
			break;
		}
		r->len += (size_t)n;
		r->buf[r->len] = '\0';
	}
	if (r->len >= 12 && strncmp(r->buf, "HTTP/1.", 7) == 0)
		r->status = (r->buf[9] - '0') * 100 + (r->buf[10] - '0') * 10 + (r->buf[11] - '0');
}

/* Has the server closed fd? Waits up to ms for it to. */
static int wait_closed(int fd, int ms)
{
	struct timespec t0;
	char buf[4096];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = ms - ms_since(&t0);

		if (poll(&p, 1, left > 0 ? (int)left : 0) > 0 &&
		    recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			return 1;
		if (left <= 0)
			return 0;
	}
}

/* One request on a fresh connection; the response in *r. */
static void exchange(int port, const char *req, size_t len, struct reply *r)
{
	int fd = connect_to(port);

	send_all(fd, req, len);
	read_reply(fd, 5000, r);
	close(fd);
}

/* GET /healthz on a fresh connection: the status, and in *us how long it took. */
static int healthz(int port, long long *us)
{
	static const char req[] = "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
	struct timespec t0;
	struct reply r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	exchange(port, req, sizeof(req) - 1, &r);
	*us = us_since(&t0);
	return r.status;
}

/* /healthz answers 200 in under a second; returns the time it took in µs. */
static long long assert_healthy_fast(int port)
{
	long long us;

	assert_int_equal(healthz(port, &us), 200);
	assert_true(us < 1000000);
	return us;
}

/* ---- curl --------------------------------------------------------------- */

struct body {
	char buf[4096];
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t len = size * n;

	if (b->len + len >= sizeof(b->buf))
		len = sizeof(b->buf) - 1 - b->len;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return size * n;
}

static long request(int port, const char *method, const char *path, const char *data, size_t len,
		    const char *header, struct body *out)
{
	CURL *c = curl_easy_init();
	char url[256];
	long code = 0;
	struct curl_slist *h = NULL;

	assert_non_null(c);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	memset(out, 0, sizeof(*out));
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (data) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	if (header) {
		h = curl_slist_append(h, header);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	}
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

/* ---- routes ------------------------------------------------------------- */

static atomic_int echo_calls;

/* Answers "X-Test header|body". */
static void echo_route(void *arg, const struct http_request *req, struct http_response *resp)
{
	const char *sig = http_header(req, "X-Test");
	char *body = malloc(req->body_len + 64);

	(void)arg;
	atomic_fetch_add(&echo_calls, 1);
	/* cmocka cannot fail a test from this thread: a 500 fails it at the client */
	resp->status = body && strlen(req->body) == req->body_len ? 200 : 500;
	if (body)
		snprintf(body, req->body_len + 64, "%s|%s", sig ? sig : "-", req->body);
	resp->body = body;
	resp->content_type = "text/plain";
}

/* Declines every request, so the next route for the path answers. */
static void decline_route(void *arg, const struct http_request *req, struct http_response *resp)
{
	(void)arg;
	(void)req;
	resp->body = strdup("ignored");
}

static atomic_int slow_started, slow_finished;

/* Sleeps *(int *)arg milliseconds, then answers 200 "slow". */
static void slow_route(void *arg, const struct http_request *req, struct http_response *resp)
{
	(void)req;
	atomic_fetch_add(&slow_started, 1);
	sleep_ms(*(int *)arg);
	resp->status = 200;
	resp->body = strdup("slow");
	atomic_fetch_add(&slow_finished, 1);
}

static int health_flag(void *arg)
{
	return *(int *)arg;
}

static struct http_server *start(struct http_options *o)
{
	static const struct http_route routes[] = {
		{ "POST", "/echo", decline_route, NULL },
		{ "POST", "/echo", echo_route, NULL },
		{ "PUT", "/echo", echo_route, NULL },
	};
	struct http_server *h = NULL;

	o->listen = "127.0.0.1:0";
	if (!o->routes) {
		o->routes = routes;
		o->nroutes = 3;
	}
	assert_int_equal(http_start(&h, o), GB_OK);
	assert_true(http_port(h) > 0);
	atomic_store(&echo_calls, 0);
	return h;
}

/* ---- setup -------------------------------------------------------------- */

static int setup(void **state)
{
	struct rlimit rl;

	(void)state;
	/* 2,000 client sockets and their 2,000 server ends live in this process */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	curl_global_cleanup();
	return 0;
}

/* ---- tests -------------------------------------------------------------- */

/* (h) /healthz, 404, 405, a handler seeing headers and body, routes in order. */
static void test_healthz_and_routes(void **state)
{
	static const char wrong_method[] = "GET /echo HTTP/1.1\r\nHost: t\r\n\r\n";
	struct http_options o;
	struct http_server *h;
	struct body b;
	struct reply r;
	int port;
	char *big;

	(void)state;
	http_options_init(&o);
	h = start(&o);
	port = http_port(h);

	assert_int_equal(request(port, "GET", "/healthz", NULL, 0, NULL, &b), 200);
	assert_string_equal(b.buf, "ok\n");
	assert_int_equal(request(port, "GET", "/nowhere", NULL, 0, NULL, &b), 404);
	assert_int_equal(request(port, "POST", "/healthz", "x", 1, NULL, &b), 404);
	exchange(port, wrong_method, sizeof(wrong_method) - 1, &r);
	assert_int_equal(r.status, 405);
	assert_non_null(strstr(r.buf, "Allow: POST, PUT\r\n"));
	/* the declining route is passed over; the next one for the path answers */
	assert_int_equal(request(port, "POST", "/echo", "{\"a\":1}", 7, "X-Test: yes", &b), 200);
	assert_string_equal(b.buf, "yes|{\"a\":1}");
	assert_int_equal(request(port, "PUT", "/echo", "", 0, "x-test: lower", &b), 200);
	assert_string_equal(b.buf, "lower|");
	assert_int_equal(atomic_load(&echo_calls), 2);
	/* a body over the limit is refused, and the listener keeps serving */
	big = malloc(64 * 1024 + 10);
	memset(big, 'x', 64 * 1024 + 10);
	assert_int_equal(request(port, "POST", "/echo", big, 64 * 1024 + 10, NULL, &b), 413);
	assert_int_equal(request(port, "POST", "/echo", big, 64 * 1024, NULL, &b), 200);
	assert_memory_equal(b.buf, "-|xxxx", 6);
	free(big);
	assert_int_equal(request(port, "GET", "/healthz", NULL, 0, NULL, &b), 200);
	http_stop(h);
}

/* (g) The health callback decides: non-zero is 503, and it is asked every time. */
static void test_health_callback(void **state)
{
	struct http_options o;
	struct http_server *h;
	struct body b;
	int sick = 1;

	(void)state;
	http_options_init(&o);
	o.health = health_flag;
	o.health_arg = &sick;
	h = start(&o);
	assert_int_equal(request(http_port(h), "GET", "/healthz", NULL, 0, NULL, &b), 503);
	sick = 0;
	assert_int_equal(request(http_port(h), "GET", "/healthz", NULL, 0, NULL, &b), 200);
	assert_string_equal(b.buf, "ok\n");
	http_stop(h);
}

static void test_bad_options(void **state)
{
	static const struct http_route no_fn[] = { { "GET", "/x", NULL, NULL } };
	struct http_server *h = NULL;
	struct http_options o;
	const char *bad[] = { "nonsense", "127.0.0.1:99999", "localhost:80", "127.0.0.1:80x",
			      "127.0.0.1:", "127.0.0.1:+80", ":80" };

	(void)state;
	http_options_init(&o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.listen = bad[i];
		assert_int_equal(http_start(&h, &o), GB_ECONFIG);
		assert_null(h);
	}
	o.listen = "127.0.0.1:0";
	o.routes = no_fn;
	o.nroutes = 1;
	assert_int_equal(http_start(&h, &o), GB_ECONFIG);
	assert_null(h);
	http_stop(NULL);
}

static void test_port_in_use(void **state)
{
	struct http_server *a, *b = NULL;
	struct http_options o;
	char addr[64];

	(void)state;
	http_options_init(&o);
	a = start(&o);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", http_port(a));
	o.listen = addr;
	assert_int_equal(http_start(&b, &o), GB_EIO);
	assert_null(b);
	http_stop(a);
}

#define IDLE 2000

/* (a) 2,000 idle connections held open: /healthz still answers in under 1 s. */
static void test_idle_connections(void **state)
{
	static const char req[] = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
	struct http_options o;
	struct http_server *h;
	int *fds = malloc(IDLE * sizeof(*fds));
	struct timespec t0;
	struct reply r;
	long long worst = 0;
	int port, open_now = 0;

	(void)state;
	assert_non_null(fds);
	http_options_init(&o);  /* defaults: 10,000 connections, 10 s timeout */
	h = start(&o);
	port = http_port(h);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < IDLE; i++)
		fds[i] = connect_to(port);
	print_message("      %d idle connections opened in %lld ms\n", IDLE, ms_since(&t0));
	/* the newest of them is served: the listener holds every one */
	send_all(fds[IDLE - 1], req, sizeof(req) - 1);
	read_reply(fds[IDLE - 1], 2000, &r);
	assert_int_equal(r.status, 200);
	for (int i = 0; i < 10; i++) {
		long long us = assert_healthy_fast(port);

		worst = us > worst ? us : worst;
	}
	print_message("      /healthz beside %d idle connections: worst of 10 %lld us\n", IDLE,
		      worst);
	/* and none was dropped to make room */
	for (int i = 0; i < IDLE; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };

		open_now += poll(&p, 1, 0) == 0;
	}
	assert_int_equal(open_now, IDLE);
	for (int i = 0; i < IDLE; i++)
		close(fds[i]);
	free(fds);
	assert_healthy_fast(port);
	http_stop(h);
}

/*
 * (b) A slowloris keeps sending header bytes, one every 100 ms: it is never
 * silent long enough for an idle timeout, yet it is dropped once timeout_s
 * passes without a whole request. /healthz answers in under 1 s throughout.
 */
static void test_slowloris(void **state)
{
	struct http_options o;
	struct http_server *h;
	char req[256];
	struct timespec t0;
	long long dropped_at = -1, idle_dropped_at = -1, worst = 0;
	size_t sent = 0, len;
	int port, slow, idle;

	(void)state;
	http_options_init(&o);
	o.timeout_s = 2;
	h = start(&o);
	port = http_port(h);
	len = (size_t)snprintf(req, sizeof(req), "POST /echo HTTP/1.1\r\nHost: t\r\nX-Pad: %0150d\r\n\r\n", 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	slow = connect_to(port);
	idle = connect_to(port);
	while (ms_since(&t0) < 6000 && (dropped_at < 0 || idle_dropped_at < 0)) {
		if (dropped_at < 0 && sent < len) {
			if (send_all(slow, req + sent, 1) == 0)
				sent++;
			else
				dropped_at = ms_since(&t0);
		}
		if (dropped_at < 0 && wait_closed(slow, 0))
			dropped_at = ms_since(&t0);
		if (idle_dropped_at < 0 && wait_closed(idle, 0))
			idle_dropped_at = ms_since(&t0);
		if (sent % 5 == 0) {
			long long us = assert_healthy_fast(port);

			worst = us > worst ? us : worst;
		}
		sleep_ms(100);
	}
	print_message("      slowloris dropped after %lld ms (%zu of %zu bytes sent), idle after "
		      "%lld ms; worst /healthz meanwhile %lld us\n",
		      dropped_at, sent, len, idle_dropped_at, worst);
	assert_true(sent < len);
	assert_true(dropped_at >= 1500 && dropped_at <= 4000);
	assert_true(idle_dropped_at >= 1500 && idle_dropped_at <= 4000);
	assert_int_equal(atomic_load(&echo_calls), 0);
	close(slow);
	close(idle);
	assert_healthy_fast(port);
	http_stop(h);
}

/*
 * (c) Content-Length: 10485760 is refused with 413 before a byte of body
 * is sent, the connection is closed, and memory does not grow: not over
 * 50 such requests, nor when the client streams the body anyway.
 */
static void test_declared_too_large(void **state)
{
	static const char req[] = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10485760\r\n\r\n";
	static const char huge[] =
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999999\r\n\r\n";
	struct http_options o;
	struct http_server *h;
	struct reply r;
	struct timespec t0;
	long before, after;
	long long us, worst = 0;
	size_t streamed = 0;
	char *chunk;
	int port, fd;

	(void)state;
	http_options_init(&o);
	h = start(&o);
	port = http_port(h);
	assert_healthy_fast(port);
	before = rss_kib();
	for (int i = 0; i < 50; i++) {
		fd = connect_to(port);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		send_all(fd, req, sizeof(req) - 1);
		read_reply(fd, 2000, &r);
		us = us_since(&t0);
		worst = us > worst ? us : worst;
		assert_int_equal(r.status, 413);
		assert_true(wait_closed(fd, 1000));
		close(fd);
	}
	exchange(port, huge, sizeof(huge) - 1, &r);
	assert_true(r.status == 413 || r.status == 400);

	/* a client that sends the body regardless is cut off, its bytes dropped */
	chunk = malloc(64 * 1024);
	memset(chunk, 'x', 64 * 1024);
	fd = connect_to(port);
	send_all(fd, req, sizeof(req) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (streamed < 10485760 && ms_since(&t0) < 5000) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = send(fd, chunk, 64 * 1024, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		streamed += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	free(chunk);
	after = rss_kib();
	print_message("      413 for 10 MiB declared: worst %lld us of 50; RSS %ld -> %ld KiB; "
		      "%zu body bytes went out before the cut\n",
		      worst, before, after, streamed);
	assert_true(worst < 1000000);
	assert_true(after - before < 4096);
	assert_int_equal(atomic_load(&echo_calls), 0);
	assert_healthy_fast(port);
	http_stop(h);
}

/* (d) Malformed requests get a 4xx or a closed connection, never a stall. */
static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"GARBAGE\r\n\r\n",
		"GET\r\n\r\n",
		"\x01\x02\x03\xff\xfe binary\r\n\r\n",
		"GET /healthz HTTP/9.9\r\nHost: t\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nNoColonHere\r\nContent-Length: 2\r\n\r\nhi",
		"POST /echo HTTP/1.1\r\nHost: t\r\nX Space: v\r\nContent-Length: 2\r\n\r\nhi",
		"POST /echo HTTP/1.1\r\nHost: t\r\nX-Ctl\x01: v\r\nContent-Length: 2\r\n\r\nhi",
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: -5\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5x\r\n\r\nhello",
		"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhi\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
		"fffffffffffffffffff\r\nhi\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\n\r\n",  /* HTTP/1.1 without Host */
		/* framed one way here and maybe another by a proxy in front */
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\nhi",
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
		"2\r\nhi\r\n0\r\n\r\n",
	};
	static const char *const unsupported[] = {
		"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
		"2\r\nhi\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\nhi",
	};
	struct http_options o;
	struct http_server *h;
	struct reply r;
	char *long_header;
	size_t n;
	int port;

	(void)state;
	http_options_init(&o);
	o.timeout_s = 3;
	h = start(&o);
	port = http_port(h);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		exchange(port, bad[i], strlen(bad[i]), &r);
		print_message("      malformed #%zu: %d%s\n", i, r.status, r.closed ? " closed" : "");
		assert_false(r.timed_out);
		/* 505 is the right answer to HTTP/9.9 */
		assert_true(r.closed || (r.status >= 400 && r.status < 500) || r.status == 505);
		assert_healthy_fast(port);
	}
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		exchange(port, unsupported[i], strlen(unsupported[i]), &r);
		assert_int_equal(r.status, 501);
	}
	/* one header line larger than a connection may hold */
	long_header = malloc(70000);
	n = (size_t)snprintf(long_header, 100, "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Long: ");
	memset(long_header + n, 'a', 65536);
	memcpy(long_header + n + 65536, "\r\n\r\n", 4);
	exchange(port, long_header, n + 65540, &r);
	free(long_header);
	assert_false(r.timed_out);
	assert_true(r.closed || (r.status >= 400 && r.status < 500));
	assert_int_equal(atomic_load(&echo_calls), 0);
	assert_healthy_fast(port);
	http_stop(h);
}

/* Sends body as a chunked POST /echo in chunks of `piece` bytes. */
static void chunked_post(int port, const char *body, size_t len, size_t piece, struct reply *r)
{
	static const char head[] =
		"POST /echo HTTP/1.1\r\nHost: t\r\nX-Test: chunked\r\nTransfer-Encoding: chunked\r\n\r\n";
	int fd = connect_to(port);
	char size[32];

	send_all(fd, head, sizeof(head) - 1);
	for (size_t off = 0; off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;

		snprintf(size, sizeof(size), "%zx\r\n", n);
		send_all(fd, size, strlen(size));
		send_all(fd, body + off, n);
		send_all(fd, "\r\n", 2);
	}
	send_all(fd, "0\r\n\r\n", 5);
	read_reply(fd, 5000, r);
	close(fd);
}

/* (e) Chunked bodies: up to the cap they reach the handler intact; past it, 413. */
static void test_chunked(void **state)
{
	struct http_options o;
	struct http_server *h;
	struct reply r;
	char body[3000];
	const char *got;
	int port;

	(void)state;
	http_options_init(&o);
	o.max_body = 1024;
	h = start(&o);
	port = http_port(h);
	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)('a' + i % 26);

	chunked_post(port, body, 1000, 100, &r);
	assert_int_equal(r.status, 200);
	got = strstr(r.buf, "\r\n\r\n") + 4;
	assert_memory_equal(got, "chunked|", 8);
	assert_int_equal(strlen(got + 8), 1000);
	assert_memory_equal(got + 8, body, 1000);

	chunked_post(port, body, 1024, 1000, &r);     /* exactly the cap */
	assert_int_equal(r.status, 200);
	assert_int_equal(strlen(strstr(r.buf, "\r\n\r\n") + 4), 8 + 1024);
	assert_int_equal(atomic_load(&echo_calls), 2);

	chunked_post(port, body, 1025, 1000, &r);     /* one byte over */
	assert_int_equal(r.status, 413);
	chunked_post(port, body, 3000, 256, &r);
	assert_int_equal(r.status, 413);
	assert_int_equal(atomic_load(&echo_calls), 2);
	assert_healthy_fast(port);
	http_stop(h);
}

static const char slow_req[] = "POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";

/* (f) A handler sleeping 2 s does not hold up /healthz. */
static void test_slow_handler(void **state)
{
	int delay = 2000;
	const struct http_route routes[] = { { "POST", "/slow", slow_route, &delay } };
	struct http_options o;
	struct http_server *h;
	struct reply r;
	struct timespec t0;
	long long worst = 0, total;
	int port, fd[3];

	(void)state;
	http_options_init(&o);
	o.routes = routes;
	o.nroutes = 1;
	o.workers = 2;
	o.timeout_s = 1;        /* the client's deadline: handlers may take longer */
	h = start(&o);
	port = http_port(h);
	atomic_store(&slow_started, 0);
	atomic_store(&slow_finished, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* three slow requests for two workers: one of them waits in the queue */
	for (int i = 0; i < 3; i++) {
		fd[i] = connect_to(port);
		send_all(fd[i], slow_req, sizeof(slow_req) - 1);
	}
	while (atomic_load(&slow_started) < 2 && ms_since(&t0) < 1000)
		sleep_ms(5);
	assert_int_equal(atomic_load(&slow_started), 2);
	while (ms_since(&t0) < 1800) {
		long long us = assert_healthy_fast(port);

		worst = us > worst ? us : worst;
		/* the handlers were still running while /healthz answered */
		if (ms_since(&t0) < 1900)
			assert_int_equal(atomic_load(&slow_finished), 0);
		sleep_ms(100);
	}
	for (int i = 0; i < 3; i++) {
		read_reply(fd[i], 5000, &r);
		assert_int_equal(r.status, 200);
		assert_non_null(strstr(r.buf, "\r\n\r\nslow"));
		close(fd[i]);
	}
	total = ms_since(&t0);
	print_message("      /healthz while 2 s handlers ran: worst %lld us; 3 slow requests on 2 "
		      "workers took %lld ms\n",
		      worst, total);
	assert_true(total >= 3900);
	http_stop(h);
}

/* http_stop() lets a running handler finish and its answer reach the client. */
static void test_stop_waits(void **state)
{
	int delay = 500;
	const struct http_route routes[] = { { "POST", "/slow", slow_route, &delay } };
	struct http_options o;
	struct http_server *h;
	struct reply r;
	struct timespec t0;
	int fd[2];

	(void)state;
	http_options_init(&o);
	o.routes = routes;
	o.nroutes = 1;
	o.workers = 1;
	h = start(&o);
	atomic_store(&slow_started, 0);
	atomic_store(&slow_finished, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 2; i++) {
		fd[i] = connect_to(http_port(h));
		send_all(fd[i], slow_req, sizeof(slow_req) - 1);
	}
	while (atomic_load(&slow_started) < 1 && ms_since(&t0) < 1000)
		sleep_ms(5);
	sleep_ms(50);   /* the second request is queued behind the first by now */
	http_stop(h);
	assert_int_equal(atomic_load(&slow_started), 1);
	assert_int_equal(atomic_load(&slow_finished), 1);
	read_reply(fd[0], 1000, &r);
	assert_int_equal(r.status, 200);
	read_reply(fd[1], 1000, &r);
	assert_true(r.status == 503 || r.closed);
	close(fd[0]);
	close(fd[1]);
}

/* per_ip_limit: one address cannot take more than its share. */
static void test_per_ip_limit(void **state)
{
	struct http_options o;
	struct http_server *h;
	struct reply r;
	int port, fd[3];

	(void)state;
	http_options_init(&o);
	o.per_ip_limit = 3;
	h = start(&o);
	port = http_port(h);
	for (int i = 0; i < 3; i++)
		fd[i] = connect_to(port);
	exchange(port, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", 34, &r);
	assert_true(r.closed);
	assert_int_equal(r.status, 0);
	close(fd[0]);
	sleep_ms(100);
	assert_healthy_fast(port);
	close(fd[1]);
	close(fd[2]);
	http_stop(h);
}

/* Admits a request carrying "X-Key: k"; refuses the rest with 401. */
static int key_admit(void *arg, const struct http_request *req)
{
	const char *k = http_header(req, "X-Key");

	(void)arg;
	return k && strcmp(k, "k") == 0 ? 0 : 401;
}

/*
 * A route's admission check answers from the headers alone: a request
 * without the key gets 401 while its declared body has not been sent
 * (nothing is read, nothing buffered, no handler runs), and the
 * connection closes; with the key the body is read and handled.
 */
static void test_admission_before_body(void **state)
{
	static const char stranger[] = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n";
	static const char keyed[] = "POST /echo HTTP/1.1\r\nHost: t\r\nX-Key: k\r\nX-Test: in\r\n"
				    "Content-Length: 5\r\nConnection: close\r\n\r\nhello";
	const struct http_route routes[] = {
		{ "POST", "/echo", echo_route, NULL, key_admit },
	};
	struct http_options o;
	struct http_server *h;
	struct reply r;
	int port, fd;

	(void)state;
	http_options_init(&o);
	o.routes = routes;
	o.nroutes = 1;
	h = start(&o);
	port = http_port(h);
	for (int i = 0; i < 20; i++) {
		fd = connect_to(port);
		send_all(fd, stranger, sizeof(stranger) - 1);
		/* no body follows: only an answer from the headers comes back in time */
		read_reply(fd, 5000, &r);
		assert_int_equal(r.status, 401);
		assert_true(wait_closed(fd, 2000));
		close(fd);
	}
	assert_int_equal(atomic_load(&echo_calls), 0);
	exchange(port, keyed, sizeof(keyed) - 1, &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.buf, "in|hello"));
	assert_int_equal(atomic_load(&echo_calls), 1);
	http_stop(h);
}

/*
 * Bodies in hand share one budget: with room for two, two clients that
 * declared a body and are still sending it hold it all, and a third is
 * answered 503 at once; when one finishes, its room is free again.
 */
/*
 * The body budget holds what bodies have sent, not what their headers
 * promise: connections that declare a body and send none hold nothing
 * (a stranger's headers of the right form cannot fill it); bodies that
 * have arrived fill it, and one that finds no room is answered 503 once
 * read, while the others go on; a freed budget takes the next body whole.
 */
static void test_body_budget(void **state)
{
	static const char head[] = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n"
				   "Connection: close\r\n\r\n";
	struct http_options o;
	struct http_server *h;
	struct reply r;
	char body[1000];
	int port, fd[8];

	(void)state;
	memset(body, 'b', sizeof(body));
	http_options_init(&o);
	o.max_body = 1000;
	o.body_budget = 2100; /* two bodies' room (each holds up to max_body + 1) */
	h = start(&o);
	port = http_port(h);
	/* headers alone, a body promised and not sent: nothing held */
	for (int i = 3; i < 8; i++) {
		fd[i] = connect_to(port);
		send_all(fd[i], head, sizeof(head) - 1);
	}
	/* two bodies in part: they hold the budget */
	for (int i = 0; i < 2; i++) {
		fd[i] = connect_to(port);
		send_all(fd[i], head, sizeof(head) - 1);
		send_all(fd[i], body, 10);
	}
	/* a third body whole: no room for it once the two are read (answered 503, not held) */
	for (int tries = 0; tries < 50; tries++) {
		fd[2] = connect_to(port);
		send_all(fd[2], head, sizeof(head) - 1);
		send_all(fd[2], body, sizeof(body));
		read_reply(fd[2], 5000, &r);
		close(fd[2]);
		if (r.status == 503)
			break;
		/* the listener had not read the others' bodies yet: this one had the room */
	}
	assert_int_equal(r.status, 503);
	/* the first ends: answered, and its room is the next one's */
	send_all(fd[0], body, sizeof(body) - 10);
	read_reply(fd[0], 5000, &r);
	assert_int_equal(r.status, 200);
	close(fd[0]);
	fd[2] = connect_to(port);
	send_all(fd[2], head, sizeof(head) - 1);
	send_all(fd[2], body, sizeof(body));
	read_reply(fd[2], 5000, &r);
	assert_int_equal(r.status, 200);
	close(fd[2]);
	close(fd[1]);
	for (int i = 3; i < 8; i++)
		close(fd[i]);
	http_stop(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthz_and_routes),
		cmocka_unit_test(test_health_callback),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_port_in_use),
		cmocka_unit_test(test_idle_connections),
		cmocka_unit_test(test_slowloris),
		cmocka_unit_test(test_declared_too_large),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_chunked),
		cmocka_unit_test(test_slow_handler),
		cmocka_unit_test(test_stop_waits),
		cmocka_unit_test(test_per_ip_limit),
		cmocka_unit_test(test_admission_before_body),
		cmocka_unit_test(test_body_budget),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
