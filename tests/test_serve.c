/*
 * test_serve.c - `gamebot serve` run as a service would run it: the real
 * binary, no platform token, standard input at end of file (a container or
 * a service manager). It must keep serving GET /healthz until SIGTERM or
 * SIGINT, then stop cleanly with exit status 0, logging one line at start
 * and at stop; a port already in use is a clear error.
 */
#include <curl/curl.h>
#include <libpq-fe.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/pgproxy.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

struct service {
	pid_t pid;
	char dir[64];
	char log[128];
	int port;
};

/* Start on port with the store db (NULL: a fresh file) and up to 4 more settings ("NAME=value"). */
static void start_with(struct service *s, int port, const char *db, const char *const *extra)
{
	char file[128], e_db[1200], e_listen[96];
	const char *env[16] = { e_db, e_listen, "GAMEBOT_CONFIG=/dev/null", "GAMEBOT_TELEGRAM_TOKEN",
				"TELEGRAM_TOKEN", "GAMEBOT_DISCORD_PUBLIC_KEY", "DISCORD_PUBLIC_KEY",
				"GAMEBOT_METRICS_TOKEN", "GAMEBOT_METRICS_LISTEN" };
	int n = 9;

	for (int i = 0; extra && extra[i] && i < 4; i++)
		env[n++] = extra[i];
	assert_int_equal(fixture_dir(s->dir, sizeof(s->dir), "serve"), 0);
	snprintf(file, sizeof(file), "%s/g.db", s->dir);
	snprintf(s->log, sizeof(s->log), "%s/log", s->dir);
	s->port = port;
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", db ? db : file);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	s->pid = spawn(bin(), (char *const[]){ (char *)bin(), "serve", NULL }, env, s->log, false);
	assert_true(s->pid > 0);
}

static void start(struct service *s, int port)
{
	start_with(s, port, NULL, NULL);
}

struct text {
	char buf[65536];
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct text *t = arg;
	size_t len = size * n;

	if (t->len + len >= sizeof(t->buf))
		len = sizeof(t->buf) - 1 - t->len;
	memcpy(t->buf + t->len, p, len);
	t->len += len;
	t->buf[t->len] = '\0';
	return size * n;
}

/* GET path with header (NULL: none), answered within ms; the status (0: none) and the body in out. */
static long get_as(int port, const char *path, const char *header, long ms, struct text *out)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = header ? curl_slist_append(NULL, header) : NULL;
	char url[96];
	long code = 0;

	memset(out, 0, sizeof(*out));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	return code;
}

/* GET path; the status (0 when nothing answered) and the body in out. */
static long get(int port, const char *path, struct text *out)
{
	CURL *c = curl_easy_init();
	char url[96];
	long code = 0;

	memset(out, 0, sizeof(*out));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

/* GET /healthz on port: its status, 0 when nothing answered. */
static long healthz(int port)
{
	char url[64];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", port);
	return http_status(url, 1000);
}

/* Wait (up to 10 s) for /healthz to answer 200. */
static void wait_healthy(struct service *s)
{
	for (int i = 0; i < 200 && healthz(s->port) != 200; i++)
		sleep_ms(50);
	assert_int_equal(healthz(s->port), 200);
}

static char *read_log(struct service *s)
{
	FILE *f = fopen(s->log, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Stop with sig; returns the exit status (asserting a normal exit within 10 s). */
static int stop(struct service *s, int sig)
{
	int status = 0;
	pid_t r = 0;

	kill(s->pid, sig);
	for (int i = 0; i < 200 && r == 0; i++) {
		r = waitpid(s->pid, &status, WNOHANG);
		if (!r)
			sleep_ms(50);
	}
	if (r == 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &status, 0);
		fail_msg("the service did not stop within 10 s of signal %d", sig);
	}
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void cleanup(struct service *s)
{
	assert_int_equal(fixture_rm(s->dir), 0);
}

static void check_serving_until(int sig)
{
	struct service s;
	char *log;

	start(&s, free_port());
	wait_healthy(&s);
	/* standard input ended long ago: still serving */
	sleep_ms(600);
	assert_int_equal(waitpid(s.pid, NULL, WNOHANG), 0);
	assert_int_equal(healthz(s.port), 200);
	{
		/* GET /metrics: Prometheus text with help and type lines */
		static struct text t;

		assert_int_equal(get(s.port, "/metrics", &t), 200);
		assert_non_null(strstr(t.buf, "# TYPE gamebot_start_time_seconds gauge\n"));
		assert_non_null(strstr(t.buf, "\ngamebot_start_time_seconds "));
	}
	assert_int_equal(stop(&s, sig), 0);
	log = read_log(&s);
	assert_non_null(strstr(log, "gamebot: started: listening on 127.0.0.1:"));
	assert_non_null(strstr(log, "gamebot: stopping"));
	assert_non_null(strstr(log, "gamebot: stopped"));
	/* nothing but the listener answers once it stopped */
	assert_int_equal(healthz(s.port), 0);
	free(log);
	cleanup(&s);
}

static void test_serves_until_sigterm(void **state)
{
	(void)state;
	check_serving_until(SIGTERM);
}

static void test_serves_until_sigint(void **state)
{
	(void)state;
	check_serving_until(SIGINT);
}

static void test_port_in_use_named(void **state)
{
	struct service a, b;
	char *log, want[64];
	int status = 0;

	(void)state;
	start(&a, free_port());
	wait_healthy(&a);
	start(&b, a.port);
	assert_int_equal(waitpid(b.pid, &status, 0), b.pid);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	log = read_log(&b);
	snprintf(want, sizeof(want), "cannot listen on 127.0.0.1:%d", a.port);
	assert_non_null(strstr(log, want));
	free(log);
	assert_int_equal(stop(&a, SIGTERM), 0);
	cleanup(&a);
	cleanup(&b);
}

/* GET /metrics with metrics_token set: only with the bearer token. */
static void test_metrics_token(void **state)
{
	static struct text t;
	struct service s;

	(void)state;
	start_with(&s, free_port(), NULL, (const char *const[]){ "GAMEBOT_METRICS_TOKEN=m3trics", NULL });
	wait_healthy(&s);
	assert_int_equal(get_as(s.port, "/metrics", NULL, 2000, &t), 401);
	assert_null(strstr(t.buf, "gamebot_start_time_seconds"));
	assert_int_equal(get_as(s.port, "/metrics", "Authorization: Bearer wrong", 2000, &t), 401);
	assert_int_equal(get_as(s.port, "/metrics", "Authorization: Bearer m3tric", 2000, &t), 401);
	assert_int_equal(get_as(s.port, "/metrics", "Authorization: m3trics", 2000, &t), 401);
	assert_int_equal(get_as(s.port, "/metrics", "Authorization: Bearer m3trics", 2000, &t), 200);
	assert_non_null(strstr(t.buf, "\ngamebot_start_time_seconds "));
	assert_int_equal(stop(&s, SIGTERM), 0);
	cleanup(&s);
}

/* metrics_listen: /metrics on its own address, and not on the main listener. */
static void test_metrics_listen(void **state)
{
	static struct text t;
	struct service s;
	char e[64];
	int mport = free_port();

	(void)state;
	snprintf(e, sizeof(e), "GAMEBOT_METRICS_LISTEN=127.0.0.1:%d", mport);
	start_with(&s, free_port(), NULL, (const char *const[]){ e, NULL });
	wait_healthy(&s);
	assert_int_equal(get_as(mport, "/metrics", NULL, 2000, &t), 200);
	assert_non_null(strstr(t.buf, "\ngamebot_start_time_seconds "));
	assert_int_equal(get_as(s.port, "/metrics", NULL, 2000, &t), 404);
	assert_int_equal(get_as(mport, "/healthz", NULL, 2000, &t), 404);
	assert_int_equal(stop(&s, SIGTERM), 0);
	cleanup(&s);
}

/* Run sql on the server of url; 0 when it went through. */
static int pg_admin(const char *url, const char *sql)
{
	PGconn *c = PQconnectdb(url);
	PGresult *res = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;
	int rc = res && PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : -1;

	PQclear(res);
	PQfinish(c);
	return rc;
}

/* Poll /healthz until it says want (every answer within 1 s), for up to ms. */
static void wait_health(struct service *s, long want, int ms)
{
	long st = 0;

	for (int waited = 0; waited <= ms; waited += 50) {
		st = healthz(s->port);
		/* answered at once whatever the database does: a read of the checker's status */
		assert_int_not_equal(st, 0);
		if (st == want)
			return;
		sleep_ms(50);
	}
	fail_msg("/healthz still %ld after %d ms, not %ld", st, ms, want);
}

/*
 * On PostgreSQL, /healthz follows the server without waiting on it: a
 * server that stops answering, or stops altogether, makes it 503 while
 * every request is still answered at once (and /metrics too); a server
 * back makes it 200 again within seconds (the checker connects afresh).
 */
static void test_health_follows_postgres(void **state)
{
	static struct text t;
	const char *base = getenv("GAMEBOT_TEST_PG");
	struct pgproxy *p;
	struct service s;
	char url[1200], sql[160], schema[48];

	(void)state;
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server (make test starts one)");
	snprintf(schema, sizeof(schema), "serve_health_%ld", (long)getpid());
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
	assert_int_equal(pg_admin(base, sql), 0);
	p = pgproxy_start(base);
	assert_non_null(p);
	snprintf(url, sizeof(url), "%s%soptions=-csearch_path%%3D%s", pgproxy_url(p),
		 strchr(pgproxy_url(p), '?') ? "&" : "?", schema);
	start_with(&s, free_port(), url, NULL);
	wait_healthy(&s);

	pgproxy_set(p, PGPROXY_STALL);
	wait_health(&s, 503, 30000);
	assert_int_equal(get_as(s.port, "/metrics", NULL, 1000, &t), 200);
	pgproxy_set(p, PGPROXY_UP);
	wait_health(&s, 200, 30000);

	pgproxy_set(p, PGPROXY_DOWN);
	wait_health(&s, 503, 30000);
	assert_int_equal(get_as(s.port, "/metrics", NULL, 1000, &t), 200);
	pgproxy_set(p, PGPROXY_UP);
	wait_health(&s, 200, 30000);

	assert_int_equal(stop(&s, SIGTERM), 0);
	cleanup(&s);
	pgproxy_stop(p);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	assert_int_equal(pg_admin(base, sql), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serves_until_sigterm),
		cmocka_unit_test(test_serves_until_sigint),
		cmocka_unit_test(test_port_in_use_named),
		cmocka_unit_test(test_metrics_token),
		cmocka_unit_test(test_metrics_listen),
		cmocka_unit_test(test_health_follows_postgres),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
